# cython: infer_types=True, binding=True
"""Beam search over back-pointer states and the four update strategies (bjorkelund2016 §3).

`Engine` owns the weights (`learn.HashedWeights`, one row of n_classes scores per hashed feature)
and works on one document at a time, given as an (n × n_attrs) uint64 attribute array:

- `parse(attrs, beam_width, fixed_starts=None)`: beam search of width B (B = 1 is greedy). Items
  are ranked by (score desc, parent rank, class id), so ties break deterministically. Every
  `COMMIT_EVERY` steps the common ancestor of the beam is found and the arcs before it are written
  to the output arrays, then its back-pointer is cut: memory stays O(B · divergence), not O(n·B).
  Items whose history left the best item's more than `MAX_LAG` (2048) moves ago are dropped
  first: such lineages differ only in long-finished structure (typically one old arc label) and
  would otherwise keep the whole document alive and make the ancestor search quadratic.
- `train(attrs, gold, strategy, beam_width, learner, ...)`: one document, one strategy:
  greedy (a classifier on every oracle state, beam 1), early (Collins & Roark 2004),
  max_violation (Huang et al. 2012), dlaso (Algorithm 1: on fall-off store the update, reseed the
  beam with the gold item, go on; apply the summed update after the document).

An update is ΔΦ = Φ(gold prefix) − Φ(predicted prefix) over the moves after the point where the
prediction left the gold path (the shared prefix cancels), so each costs O(divergence).
"""
import numpy

from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, free, malloc

from ..learn.learners import apply_update
from ..learn.update cimport SparseUpdate
from ..learn.weights cimport HashedWeights
from ._state cimport StateC, is_final, state_decref, state_init
from .features cimport MAX_FEATS, FeatConfigC, extract_features
from .moves cimport LEFT, DocC, apply_move, move_of, valid_moves

cdef enum:
    COMMIT_EVERY = 256
    MAX_LAG = 2048
STRATEGIES = ("greedy", "early", "max_violation", "dlaso")


cdef struct CandC:
    double score
    int parent
    int clas


def n_classes_for(int n_labels) -> int:
    """Transition classes for `n_labels` labels: SHIFT, SWAP, SB, then LEFTARC and RIGHTARC per label."""
    return LEFT + 2 * n_labels


cdef class Engine:
    """Scores, searches and learns ArcStandard+SWAP+SB derivations of whole documents.

    n_labels: dependency labels (class layout: SHIFT, SWAP, SB, LEFTARC × L, RIGHTARC × L).
    n_attrs, word_col, tag_col, extra_cols: the attribute columns and their roles.
    n_rows: rows of the hashed weight table (each row holds 3 + 2·n_labels floats).
    """
    cdef readonly HashedWeights weights
    cdef readonly int n_labels
    cdef readonly int n_classes
    cdef FeatConfigC cfg
    cdef uint64_t* feats
    cdef float* scores
    # per-call document context
    cdef DocC doc
    cdef const uint64_t* attrs
    cdef bytes _fixed

    def __init__(self, int n_labels, int n_attrs, int word_col=0, int tag_col=1, extra_cols=(),
                 int n_rows=1 << 17, HashedWeights weights=None):
        if n_labels < 1:
            raise ValueError("need at least one label")
        if not (0 <= word_col < n_attrs and 0 <= tag_col < n_attrs):
            raise ValueError(f"word_col / tag_col out of range for {n_attrs} attribute columns")
        extra_cols = list(extra_cols)
        if len(extra_cols) > 8 or any(not 0 <= c < n_attrs for c in extra_cols):
            raise ValueError(f"extra_cols must be ≤ 8 columns in [0, {n_attrs}): {extra_cols}")
        self.n_labels = n_labels
        self.n_classes = n_classes_for(n_labels)
        self.cfg.n_attrs = n_attrs
        self.cfg.word_col = word_col
        self.cfg.tag_col = tag_col
        self.cfg.n_extra = len(extra_cols)
        for i, c in enumerate(extra_cols):
            self.cfg.extra_cols[i] = c
        if weights is None:
            weights = HashedWeights(n_rows, self.n_classes)
        if weights.n_classes != self.n_classes:
            raise ValueError(f"weights have {weights.n_classes} classes, need {self.n_classes}")
        self.weights = weights
        self.feats = <uint64_t*>malloc(MAX_FEATS * sizeof(uint64_t))
        self.scores = NULL

    def __dealloc__(self):
        free(self.feats)
        free(self.scores)

    cdef void _set_doc(self, const uint64_t[:, ::1] attrs, bytes fixed) except *:
        if attrs.shape[1] != self.cfg.n_attrs:
            raise ValueError(f"attrs has {attrs.shape[1]} columns, engine expects {self.cfg.n_attrs}")
        self.doc.n = attrs.shape[0]
        self.doc.n_labels = self.n_labels
        self._fixed = fixed  # keeps the flags alive while the document is processed
        self.doc.fixed_starts = NULL
        if fixed is not None:
            self.doc.fixed_starts = fixed
        self.attrs = &attrs[0, 0] if attrs.shape[0] else NULL

    cdef void _ensure_scores(self, int beam_width) except *:
        free(self.scores)
        self.scores = <float*>malloc(beam_width * self.n_classes * sizeof(float))

    cdef int _features(self, const StateC* s) noexcept nogil:
        return extract_features(self.feats, s, &self.doc, self.attrs, &self.cfg)

    cdef void _score(self, const StateC* s, float* out) noexcept nogil:
        cdef int nf = self._features(s)
        self.weights.score_c(self.feats, nf, out)

    cdef int _step(self, StateC** beam, int beam_len, StateC** out, int width, CandC* top,
                   const int* gold, int n_gold) noexcept nogil:
        """Expand every item, keep the best `width` successors in `out`; returns their number.
        Final items are carried over unchanged. Items get is_gold if `gold` is given."""
        cdef int n_top = 0, i, c, j, move, lo, hi
        cdef bint valid[5]
        cdef double cand
        cdef float* scores
        cdef StateC* st
        cdef int nc = self.n_classes
        for i in range(beam_len):
            st = beam[i]
            if is_final(st, self.doc.n):
                n_top = _insert(top, n_top, width, st.score, i, -1)
                continue
            scores = &self.scores[i * nc]
            self._score(st, scores)
            valid_moves(st, &self.doc, valid)
            for c in range(nc):
                move = move_of(c, self.n_labels)
                if valid[move]:
                    n_top = _insert(top, n_top, width, st.score + scores[c], i, c)
        for j in range(n_top):
            st = beam[top[j].parent]
            if top[j].clas < 0:
                out[j] = st
                st.refs += 1
            else:
                out[j] = apply_move(st, top[j].clas, &self.doc)
                out[j].refs = 1
                out[j].score = top[j].score
                out[j].is_gold = st.is_gold and gold is not NULL and st.steps < n_gold \
                    and gold[st.steps] == top[j].clas
        return n_top

    # -------------------------------------------------------------------------------- parsing

    def parse(self, attrs, int beam_width=1, fixed_starts=None):
        """Parse one document. attrs: (n, n_attrs) uint64. fixed_starts: None (joint mode) or
        a length-n bool array of given sentence starts (sentence-level mode).

        Returns (heads, labels, sent_starts): int32 heads with absolute 0-based token indices and
        -1 for sentence roots, int32 label ids, bool sentence starts (token 0 always True).
        """
        if beam_width < 1:
            raise ValueError("beam_width must be ≥ 1")
        cdef const uint64_t[:, ::1] A = numpy.ascontiguousarray(attrs, dtype=numpy.uint64)
        cdef int n = A.shape[0]
        cdef bytes fixed = _fixed_bytes(fixed_starts, n)
        self._set_doc(A, fixed)
        heads = numpy.full((n + 1,), -1, dtype=numpy.int32)
        labels = numpy.zeros((n + 1,), dtype=numpy.int32)
        starts = numpy.zeros((n + 1,), dtype=numpy.uint8)
        if n == 0:
            return heads[1:], labels[1:], starts[1:].astype(bool)
        cdef int[::1] H = heads
        cdef int[::1] L = labels
        cdef unsigned char[::1] S = starts
        self._ensure_scores(beam_width)
        cdef StateC** beam = <StateC**>malloc(beam_width * sizeof(StateC*))
        cdef StateC** nxt = <StateC**>malloc(beam_width * sizeof(StateC*))
        cdef StateC** tmp
        cdef CandC* top = <CandC*>malloc((beam_width + 1) * sizeof(CandC))
        cdef int beam_len = 1, new_len, i, step = 0
        cdef bint done
        beam[0] = state_init(n)
        beam[0].refs = 1
        try:
            with nogil:
                while True:
                    done = True
                    for i in range(beam_len):
                        if not is_final(beam[i], n):
                            done = False
                            break
                    if done:
                        break
                    new_len = self._step(beam, beam_len, nxt, beam_width, top, NULL, 0)
                    for i in range(beam_len):
                        state_decref(beam[i])
                    tmp = beam
                    beam = nxt
                    nxt = tmp
                    beam_len = new_len
                    step += 1
                    if step % COMMIT_EVERY == 0:
                        beam_len = _prune_lagging(beam, beam_len, MAX_LAG)
                        _commit(_common_ancestor(beam, beam_len), &H[0], &L[0], &S[0])
                _commit(beam[0], &H[0], &L[0], &S[0])
        finally:
            for i in range(beam_len):
                state_decref(beam[i])
            free(beam)
            free(nxt)
            free(top)
        S[1] = 1
        out_heads = heads[1:] - 1  # root (0) → -1, token t → t − 1
        return out_heads, labels[1:].copy(), starts[1:].astype(bool)

    # ------------------------------------------------------------------------------- training

    def train(self, attrs, gold_actions, str strategy="dlaso", int beam_width=20, learner=None,
              fixed_starts=None):
        """Learn from one document whose gold class sequence is `gold_actions` (the oracle's).

        Returns a dict: n_gold (gold transitions), used (transitions of the gold sequence that
        updates covered; Figure 3's quantity is used / n_gold), violations (updates made),
        errors (greedy: misclassified states; beam: gold fell off the beam).
        """
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}; expected one of {STRATEGIES}")
        if learner is None:
            raise ValueError("train() needs a learner (see learn.make_learner)")
        if self.weights.using_averages:
            raise RuntimeError("cannot train inside weights.use_averages()")
        cdef const uint64_t[:, ::1] A = numpy.ascontiguousarray(attrs, dtype=numpy.uint64)
        cdef int[::1] G = numpy.ascontiguousarray(gold_actions, dtype=numpy.int32)
        cdef int n = A.shape[0]
        cdef bytes fixed = _fixed_bytes(fixed_starts, n)
        self._set_doc(A, fixed)
        cdef int T = G.shape[0]
        stats = {"n_gold": T, "used": T, "violations": 0, "errors": 0}
        if n == 0 or T == 0:
            return stats
        if strategy == "greedy":
            beam_width = 1
        self._ensure_scores(max(beam_width, 1))
        cdef SparseUpdate upd = SparseUpdate(self.weights.n_rows, self.n_classes)
        # the gold derivation with its scores under the current weights
        cdef StateC** gold = <StateC**>calloc(T + 1, sizeof(StateC*))
        cdef int t, i
        cdef bint valid[5]
        gold[0] = state_init(n)
        gold[0].refs = 1
        try:
            for t in range(T):
                self._score(gold[t], self.scores)
                valid_moves(gold[t], &self.doc, valid)
                if not valid[move_of(G[t], self.n_labels)]:
                    raise ValueError(f"gold move {G[t]} is invalid at step {t}")
                if strategy == "greedy":
                    if self._greedy_update(gold[t], G[t], upd, learner):
                        stats["errors"] += 1
                        stats["violations"] += 1
                    self.weights.tick()
                gold[t + 1] = apply_move(gold[t], G[t], &self.doc)
                gold[t + 1].refs = 1
                gold[t + 1].score = gold[t].score + self.scores[G[t]]
            if not is_final(gold[T], n):
                raise ValueError("gold sequence does not reach a final state")
            if strategy != "greedy":
                self._train_beam(gold, &G[0], T, strategy, beam_width, upd, learner, stats)
                self.weights.tick()
        finally:
            for i in range(T + 1):
                state_decref(gold[i])  # NULL-safe: an error may leave the tail unset
            free(gold)
        return stats

    cdef bint _greedy_update(self, StateC* st, int gold_clas, SparseUpdate upd, learner) except -1:
        cdef bint valid[5]
        valid_moves(st, &self.doc, valid)
        cdef int best = -1, c
        for c in range(self.n_classes):
            if valid[move_of(c, self.n_labels)] and (best < 0 or self.scores[c] > self.scores[best]):
                best = c
        if best == gold_clas:
            return False
        cdef int nf = self._features(st)
        upd.clear()
        upd.add_c(self.feats, nf, gold_clas, 1.0)
        upd.add_c(self.feats, nf, best, -1.0)
        upd.loss = self.scores[best] - self.scores[gold_clas] + 1.0
        apply_update(self.weights, upd, learner)
        return True

    cdef int _add_update(self, StateC** gold, StateC* pred, SparseUpdate upd, learner,
                         SparseUpdate seg) except -1:
        """upd += ΔΦ, ΔΦ = Φ(gold[k+1..t]) − Φ(pred's moves after its last gold ancestor, at
        step k), and upd.loss += score(pred) − score(gold) + 1. One step size (PA: min(C,
        Σ loss / ‖Σ ΔΦ‖²)) is applied to the sum at the end of the document: per-violation PA
        steps on repeated violations overshoot (measured: dev UAS 0.60 vs 0.70 after 2 epochs).
        Returns t, the length of the gold prefix covered."""
        cdef StateC* x = pred
        cdef int nf
        seg.clear()
        while not x.is_gold:
            nf = self._features(x.prev)
            seg.add_c(self.feats, nf, x.clas, -1.0)
            x = x.prev
        cdef int k = x.steps
        cdef int t = pred.steps
        cdef int j
        for j in range(k + 1, t + 1):
            nf = self._features(gold[j - 1])
            seg.add_c(self.feats, nf, gold[j].clas, 1.0)
        upd.merge(seg, 1.0)
        upd.loss += pred.score - gold[t].score + 1.0
        return t

    cdef int _train_beam(self, StateC** gold, const int* G, int T, str strategy, int width,
                         SparseUpdate upd, learner, dict stats) except -1:
        cdef StateC** beam = <StateC**>malloc(width * sizeof(StateC*))
        cdef StateC** nxt = <StateC**>malloc(width * sizeof(StateC*))
        cdef StateC** tmp
        cdef CandC* top = <CandC*>malloc((width + 1) * sizeof(CandC))
        cdef int beam_len = 1, new_len, i, t = 0
        cdef bint gold_in, fell = False
        cdef StateC* mv_pred = NULL
        cdef double mv_best = 0, viol
        cdef int used = 0
        cdef SparseUpdate seg = SparseUpdate(self.weights.n_rows, self.n_classes)
        beam[0] = gold[0]
        gold[0].refs += 1
        upd.clear()
        try:
            while t < T:
                new_len = self._step(beam, beam_len, nxt, width, top, G, T)
                for i in range(beam_len):
                    state_decref(beam[i])
                tmp = beam
                beam = nxt
                nxt = tmp
                beam_len = new_len
                t += 1
                gold_in = False
                for i in range(beam_len):
                    if beam[i].is_gold:
                        gold_in = True
                        break
                if strategy == "max_violation":
                    if not beam[0].is_gold and gold[t].steps == t:
                        viol = beam[0].score - gold[t].score
                        if mv_pred is NULL or viol > mv_best:
                            if mv_pred is not NULL:
                                state_decref(mv_pred)
                            mv_pred = beam[0]
                            mv_pred.refs += 1
                            mv_best = viol
                    if not gold_in and not fell:
                        stats["errors"] += 1
                        fell = True
                elif not gold_in:
                    stats["errors"] += 1
                    if strategy == "early":
                        used = self._add_update(gold, beam[0], upd, learner, seg)
                        break
                    # dlaso: store the update, reseed the beam with the gold item
                    self._add_update(gold, beam[0], upd, learner, seg)
                    stats["violations"] += 1
                    for i in range(beam_len):
                        state_decref(beam[i])
                    beam[0] = gold[t]
                    gold[t].refs += 1
                    beam_len = 1
            else:
                # search reached the end of the gold sequence (Algorithm 1, lines 13-16)
                if strategy == "max_violation":
                    if mv_pred is not NULL:
                        used = self._add_update(gold, mv_pred, upd, learner, seg)
                    else:
                        used = T
                else:
                    used = T
                    if not beam[0].is_gold:
                        self._add_update(gold, beam[0], upd, learner, seg)
                        if strategy == "dlaso":
                            stats["violations"] += 1
            if strategy != "dlaso" and len(upd) > 0:
                stats["violations"] += 1
            stats["used"] = used
            if len(upd) > 0:
                apply_update(self.weights, upd, learner)
        finally:
            for i in range(beam_len):
                state_decref(beam[i])
            if mv_pred is not NULL:
                state_decref(mv_pred)
            free(beam)
            free(nxt)
            free(top)
        return 0

    def gold_score(self, attrs, gold_actions, fixed_starts=None) -> float:
        """Model score of a class sequence (for tests: beam output must score ≥ it at B=∞)."""
        cdef const uint64_t[:, ::1] A = numpy.ascontiguousarray(attrs, dtype=numpy.uint64)
        cdef int n = A.shape[0]
        cdef bytes fixed = _fixed_bytes(fixed_starts, n)
        self._set_doc(A, fixed)
        self._ensure_scores(1)
        cdef StateC* s = state_init(n)
        cdef StateC* nxt
        s.refs = 1
        cdef double total = 0
        try:
            for c in gold_actions:
                self._score(s, self.scores)
                total += self.scores[<int>c]
                nxt = apply_move(s, c, &self.doc)
                nxt.refs = 1
                state_decref(s)
                s = nxt
        finally:
            state_decref(s)
        return total

    def count_features(self) -> int:
        """Feature keys extracted per state (depends on the number of extra columns)."""
        cdef const uint64_t[:, ::1] A = numpy.zeros((1, self.cfg.n_attrs), dtype=numpy.uint64)
        self._set_doc(A, None)
        cdef StateC* s = state_init(1)
        s.refs = 1
        nf = self._features(s)
        state_decref(s)
        return nf


cdef inline int _insert(CandC* top, int n_top, int width, double score, int parent,
                        int clas) noexcept nogil:
    """Insert a candidate into `top` (sorted by score desc; earlier candidates win ties)."""
    if n_top == width and score <= top[n_top - 1].score:
        return n_top
    cdef int j = n_top if n_top < width else width - 1
    while j > 0 and top[j - 1].score < score:
        top[j] = top[j - 1]
        j -= 1
    top[j].score = score
    top[j].parent = parent
    top[j].clas = clas
    return n_top + 1 if n_top < width else n_top


cdef int _prune_lagging(StateC** beam, int beam_len, int lag) noexcept nogil:
    """Keep the items that share the best item's ancestor `lag` moves back (order kept)."""
    cdef StateC* anc = beam[0]
    cdef int target = beam[0].steps - lag
    if target <= 0:
        return beam_len
    while anc.prev is not NULL and anc.steps > target:
        anc = anc.prev
    cdef int i, j = 0
    cdef StateC* x
    for i in range(beam_len):
        x = beam[i]
        while x is not NULL and x.steps > anc.steps:
            x = x.prev
        if x is anc:
            beam[j] = beam[i]
            j += 1
        else:
            state_decref(beam[i])
    return j


cdef StateC* _common_ancestor(StateC** beam, int beam_len) noexcept nogil:
    """The deepest state every beam item descends from (or is)."""
    cdef StateC* a = beam[0]
    cdef StateC* b
    cdef int i
    for i in range(1, beam_len):
        b = beam[i]
        while a is not b:
            if a is NULL or b is NULL:
                return NULL
            if a.steps >= b.steps:
                a = a.prev
            else:
                b = b.prev
    return a


cdef void _commit(StateC* s, int* heads, int* labels, unsigned char* starts) noexcept nogil:
    """Write the arcs and boundaries of `s` and its ancestors, then cut `s` from them."""
    if s is NULL:
        return
    cdef StateC* x = s
    while x is not NULL:
        if x.arc_child > 0:
            heads[x.arc_child] = x.arc_head
            labels[x.arc_child] = x.arc_label
        if x.sb > 0:
            starts[x.sb] = 1
        x = x.prev
    if s.prev is not NULL:
        state_decref(s.prev)
        s.prev = NULL


cdef bytes _fixed_bytes(fixed_starts, int n):
    if fixed_starts is None:
        return None
    flags = numpy.zeros((n + 2,), dtype=numpy.uint8)
    given = numpy.asarray(fixed_starts, dtype=bool)
    if given.shape[0] != n:
        raise ValueError(f"fixed_starts has length {given.shape[0]}, document has {n} tokens")
    flags[1:n + 1] = given
    if n:
        flags[1] = 1
    return flags.tobytes()
