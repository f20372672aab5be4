# cython: infer_types=True, binding=True
"""Beam search over back-pointer states (bjorkelund2016 §2, last paragraph, and §3 eq. 1).

`Engine` owns the weights (`learn.HashedWeights`, one row of n_classes scores per hashed feature)
and works on one document at a time, given as an (n × n_attrs) uint64 attribute array:

- `parse(attrs, beam_width, fixed_starts=None)`: beam search of width B (B = 1 is greedy). Items
  are ranked by (score desc, parent rank, class id), so ties break deterministically. Every
  `COMMIT_EVERY` steps the common ancestor of the beam is found and the arcs before it are written
  to the output arrays, then its back-pointer is cut: memory stays O(B · divergence), not O(n·B).
  Items whose history left the best item's more than `MAX_LAG` (2048) moves ago are dropped
  first: such lineages differ only in long-finished structure (typically one old arc label) and
  would otherwise keep the whole document alive and make the ancestor search quadratic.
- `train(attrs, gold_actions, update, beam_width, learner, fixed_starts=None)`: one document, one
  update strategy (greedy, early, max_violation, dlaso, laso); see `updates`.

`expand_and_filter` is Algorithm 1's EXPANDANDFILTER, shared by parsing and training.
`fixed_starts` is None (SB predicted) or n presets, 0-based: True / 1 = the token starts a
sentence, False / 0 = it does not, None / -1 = predicted (n bools: every boundary given).
`parse(..., sb_bias=b)` adds b to SB's score wherever SB is valid (the precision / recall knob;
0 = the model as trained) and `parse(..., return_probs=True)` also returns the sentence-start
probability of every token (`_start_probs`: softmax over the final beam items' scores).

Role cache: 28–43% of a state's feature keys (by the number of extra columns) read one token in
one role (s0's word, b0's shape, ...; `features.role_features`), and 5 + E more read b0's window
(b0 − 1 .. b0 + 2), which b0 fixes while no swapped token waits in the buffer (role R_B0WIN). `parse` caches the partial score
of each (role, token) in a direct-mapped table (slots for every (role, token) of the document, at
most `MAX_ROLE_SLOTS`: short documents allocate little), so a state hashes and sums only its
other keys plus N_ROLES cached rows (scores equal up to float rounding; `testing.role_scores` and
`testing.derivation_scores` check them). Training caches too, except greedy (an update per move):
`updates` empties the cache (`forget_roles`) whenever it changes the weights before the document
is done (laso).

Per-call state: every call builds its own `Workspace` (the document, the weight table it scores,
feature / score / beam buffers, owned by a cymem Pool), so the Engine itself is read-only while
it parses. Threads: `parse` releases the GIL and many threads may parse with one Engine at once
(prediction reads the weights only). Training (`train`) updates the weights and is single-
threaded: do not train while another thread parses or trains with the same weights.

Arguments are checked at the Python entry points (`as_attrs`, `check_width`, `moves.as_classes`,
`moves.set_doc`: ValueError), so the nogil loops behind them stay unchecked; allocations are
checked (MemoryError).
"""
import numpy

from cymem.cymem cimport Pool
from libc.math cimport exp, fabs
from libc.stdint cimport int64_t, uint64_t

from ..learn.weights cimport HashedWeights, add_arrays, score_half_table, score_table
from ._state cimport StateC, buffer_at, is_final, read_arcs, state_decref, state_init
from .features cimport (MAX_CAND, MAX_EXTRA, MAX_FEATS, N_ROLES, NO_ROLE, extract_features, extract_split,
                       role_features)
from .moves cimport FIRST_ARC, LEFTARC, N_MOVES, RIGHTARC, SB, apply_move, set_doc, valid_moves

from .moves import MAX_TOKENS, check_n_labels, n_classes_for

cdef enum:
    COMMIT_EVERY = 256
    MAX_LAG = 2048
    MAX_ROLE_SLOTS = 4096  # role cache entries at most (a power of 2): ~340 tokens' roles

MAX_BEAM_WIDTH = 1 << 16
"""Widest beam accepted (the per-call buffers hold `beam_width` items; far beyond any use)."""
MAX_HEAD_CANDIDATES = MAX_CAND
"""The most head candidates per token the syntax templates read (`Engine`'s n_cand)."""


def check_width(beam_width) -> int:
    """`beam_width` as an int in [1, MAX_BEAM_WIDTH], or ValueError."""
    if isinstance(beam_width, bool) or not isinstance(beam_width, (int, numpy.integer)):
        raise ValueError(f"beam_width must be an int, got {beam_width!r}")
    if not 1 <= beam_width <= MAX_BEAM_WIDTH:
        raise ValueError(f"beam_width must be in [1, {MAX_BEAM_WIDTH}], got {beam_width}")
    return int(beam_width)


def as_attrs(attrs, int n_attrs):
    """An (n × n_attrs) attribute array as C-contiguous uint64, or ValueError: integer ids only
    (signed ids are taken modulo 2**64, as numpy casts them; floats are refused, not truncated)."""
    try:
        arr = numpy.asarray(attrs)
    except (TypeError, ValueError) as err:  # e.g. ragged lists
        raise ValueError(f"attrs must be an (n, {n_attrs}) integer array: {err}") from None
    if arr.ndim != 2 or arr.shape[1] != n_attrs:
        raise ValueError(f"attrs must have shape (n, {n_attrs}), got {arr.shape}")
    if arr.shape[0] > MAX_TOKENS:
        raise ValueError(f"a document has at most {MAX_TOKENS} tokens, got {arr.shape[0]}")
    if arr.size and arr.dtype.kind not in "iu":
        if arr.dtype.kind != "O":
            raise ValueError(f"attrs must be integer attribute ids, got dtype {arr.dtype}")
        try:
            arr = numpy.array(arr.tolist(), dtype=numpy.uint64)
        except (TypeError, ValueError, OverflowError) as err:
            raise ValueError(f"attrs must be integer attribute ids in [0, 2**64): {err}") from None
        if arr.ndim != 2:
            raise ValueError(f"attrs must have shape (n, {n_attrs}), got {arr.shape}")
    return numpy.ascontiguousarray(arr, dtype=numpy.uint64)


cdef inline void score_rows(const WorkC* w, const uint64_t* feats, int nf, float* out) noexcept nogil:
    """out = the summed rows of `feats` in this call's table, float32 or float16."""
    if w.H is not NULL:
        score_half_table(w.H, w.n_rows, w.n_classes, feats, nf, out)
    else:
        score_table(w.W, w.n_rows, w.n_classes, feats, nf, out)


cdef class Workspace:
    """One call's state: the document (`DocC`, attributes, given boundaries), the weight table it
    scores (held, so that `use_averages` swapping tables in another thread cannot pull it away)
    and its feature, score and beam buffers, all owned by `mem`. Built by `Engine.workspace`."""
    pass


cdef class Engine:
    """Scores, searches and learns ArcStandard+SWAP+SB derivations of whole documents.

    n_labels: dependency labels (class layout: SHIFT, SWAP, SB, LEFTARC × L, RIGHTARC × L).
    n_attrs, word_col, tag_col, extra_cols: the attribute columns and their roles.
    cand_col, n_cand: the first of 3 · n_cand head-candidate columns (`features`' syntax
    templates; n_cand ≤ MAX_CAND), or -1 and 0 for none.
    n_rows: rows of the hashed weight table (each row holds 3 + 2·n_labels floats).

    Thread-safe for prediction (`parse`, `count_features`); `train` is single-threaded.
    """

    def __init__(self, n_labels, int n_attrs, int word_col=0, int tag_col=1, extra_cols=(),
                 int n_rows=1 << 17, HashedWeights weights=None, int cand_col=-1, int n_cand=0):
        n_labels = check_n_labels(n_labels)
        if not (0 <= word_col < n_attrs and 0 <= tag_col < n_attrs):
            raise ValueError(f"word_col / tag_col out of range for {n_attrs} attribute columns")
        extra_cols = list(extra_cols)
        if len(extra_cols) > MAX_EXTRA or any(
                not isinstance(c, (int, numpy.integer)) or not 0 <= c < n_attrs for c in extra_cols):
            raise ValueError(f"extra_cols must be ≤ {MAX_EXTRA} columns in [0, {n_attrs}): {extra_cols}")
        if not 0 <= n_cand <= MAX_CAND or (n_cand and not 0 <= cand_col <= n_attrs - 3 * n_cand) \
                or (not n_cand and cand_col != -1):
            raise ValueError(f"n_cand must be in [0, {MAX_CAND}] with 3 · n_cand head-candidate columns from "
                             f"cand_col inside the {n_attrs} attribute columns (-1 without), got {n_cand} at {cand_col}")
        self.n_labels = n_labels
        self.n_classes = n_classes_for(n_labels)
        self.cfg.n_attrs = n_attrs
        self.cfg.word_col = word_col
        self.cfg.tag_col = tag_col
        self.cfg.n_extra = len(extra_cols)
        for i, c in enumerate(extra_cols):
            self.cfg.extra_cols[i] = c
        self.cfg.cand_col = cand_col
        self.cfg.n_cand = n_cand
        if weights is None:
            weights = HashedWeights(n_rows, self.n_classes)
        if weights.n_classes != self.n_classes:
            raise ValueError(f"weights have {weights.n_classes} classes, need {self.n_classes}")
        self.weights = weights

    cdef Workspace workspace(self, attrs, fixed_starts, int width, bint use_averages=False):
        """A new `Workspace` for one call on one document (arguments checked: ValueError).

        `width` (≥ 1, from `check_width`) sizes the beam buffers. The weight table is the
        averaged one if `use_averages`, as float16 (`weights.prediction_table()`: float32 where a
        weight lies beyond float16's range, or of the same values where the CPU lacks F16C), else
        the one `weights` scores with now (also the averaged one inside `weights.use_averages()`;
        the half table of half-only weights, as loaded)."""
        if self.weights is None:
            raise ValueError("Engine was not initialised")
        cdef Workspace ws = Workspace()
        A = as_attrs(attrs, self.cfg.n_attrs)
        cdef const uint64_t[:, ::1] view = A
        ws._attrs = A
        ws._flags = set_doc(&ws.c.doc, A.shape[0], self.n_labels, fixed_starts)
        ws.c.attrs = &view[0, 0] if A.shape[0] else NULL
        if use_averages or self.weights.half_only:
            table = self.weights.prediction_table()
        else:
            table = self.weights._W
        if table.shape != (self.weights.n_rows, self.n_classes):
            raise ValueError(f"weight table has shape {table.shape}, engine expects "
                             f"{(self.weights.n_rows, self.n_classes)}")
        cdef const float[:, ::1] W
        cdef const uint16_t[:, ::1] H
        ws._table = table
        ws.c.W = NULL
        ws.c.H = NULL
        if table.dtype == numpy.float16:
            H = table.view(numpy.uint16)
            ws.c.H = &H[0, 0]
        else:
            W = table
            ws.c.W = &W[0, 0]
        ws.c.n_rows = self.weights.n_rows
        ws.c.n_classes = self.n_classes
        ws.c.width = width
        ws.c.sb_bias = 0
        ws.c.sb_add = NULL
        ws.mem = Pool()
        ws.c.feats = <uint64_t*>ws.mem.alloc(MAX_FEATS, sizeof(uint64_t))
        ws.c.scores = <float*>ws.mem.alloc(self.n_classes, sizeof(float))
        ws.c.beam = <StateC**>ws.mem.alloc(width, sizeof(StateC*))
        ws.c.nxt = <StateC**>ws.mem.alloc(width, sizeof(StateC*))
        ws.c.top = <CandC*>ws.mem.alloc(width + 1, sizeof(CandC))
        ws.c.role_keys = NULL  # no role cache unless `cache_roles` gives one
        ws.c.role_scores = NULL
        return ws

    cdef int features(self, WorkC* w, const StateC* s) noexcept nogil:
        return extract_features(w.feats, s, &w.doc, w.attrs, &self.cfg)

    cdef void score(self, WorkC* w, const StateC* s, float* out) noexcept nogil:
        cdef int nf, r, c, tok, slot, nc = w.n_classes
        cdef int64_t key
        cdef const float* part
        if w.role_keys is NULL:
            nf = self.features(w, s)
            score_rows(w, w.feats, nf, out)
            return
        cdef const float* parts[N_ROLES]
        cdef int n_parts = 0
        nf = extract_split(w.feats, w.role_toks, s, &w.doc, w.attrs, &self.cfg)
        score_rows(w, w.feats, nf, out)
        for r in range(N_ROLES):
            tok = w.role_toks[r]
            if tok == NO_ROLE:
                continue
            key = <int64_t>(tok + 1) * N_ROLES + r
            slot = <int>(key & w.role_mask)
            part = &w.role_scores[slot * nc]
            if w.role_keys[slot] != key:  # miss: the role's own keys, scored once (feats is free now)
                add_arrays(out, parts, n_parts, nc)  # first the parts taken: the slot may be one of them
                n_parts = 0
                nf = role_features(w.feats, r, tok, w.doc.n, w.attrs, &self.cfg)
                score_rows(w, w.feats, nf, <float*>part)
                w.role_keys[slot] = key
            parts[n_parts] = part
            n_parts += 1
        add_arrays(out, parts, n_parts, nc)  # in role order, as one pass over `out`

    cdef void cache_roles(self, Workspace ws) except *:
        """Give `ws` a role cache. Its entries hold scores of the weights at the time they were
        filled: whoever changes the weights while it lives calls `forget_roles`."""
        cdef int64_t slots = 64
        while slots < MAX_ROLE_SLOTS and slots < <int64_t>N_ROLES * (ws.c.doc.n + 2):
            slots *= 2
        ws.c.role_mask = slots - 1
        ws.c.role_keys = <int64_t*>ws.mem.alloc(slots, sizeof(int64_t))
        ws.c.role_scores = <float*>ws.mem.alloc(slots * self.n_classes, sizeof(float))
        forget_roles(&ws.c)

    cdef void add_sb_scores(self, WorkC* w, const StateC* st, const bint* valid, float* scores) noexcept nogil:
        """Add `w.sb_add[b0]` to the move that commits the state to a sentence start at b0 (not
        made yet): SB made early (the sentence before b0 still open), or RIGHTARC to the root with
        b0 in the buffer (it ends the sentence, and SB must follow: that forced SB adds nothing)."""
        cdef int b0 = buffer_at(st, 0, w.doc.n)
        cdef int c
        cdef float add
        if b0 <= 0 or st.last_sb == b0:
            return
        add = w.sb_add[b0 - 1]
        if st.stack_len == 2:  # s1 is the root
            for c in range(3 + self.n_labels, 3 + 2 * self.n_labels):
                scores[c] += add
        if valid[SB] and st.stack_len > 1:
            scores[SB] += add

    cdef int expand_and_filter(self, WorkC* w, StateC** beam, int beam_len, StateC** out, int width,
                               CandC* top, const int* gold, int n_gold) noexcept nogil:
        """Expand every item, keep the best `width` (≤ w.width) successors in `out`; returns
        their number, or -1 if memory ran out (then `out` holds nothing and `beam` is intact).
        Final items are carried over unchanged. Items get is_gold if `gold` is given."""
        cdef int n_top = 0, i, c, j, k
        cdef bint valid[N_MOVES]
        cdef float* scores = w.scores
        cdef StateC* st
        cdef StateC* child
        cdef int nc = self.n_classes, n_labels = self.n_labels
        for i in range(beam_len):
            st = beam[i]
            if is_final(st, w.doc.n):
                n_top = _insert(top, n_top, width, st.score, i, -1)
                continue
            self.score(w, st, scores)
            valid_moves(st, &w.doc, valid)
            if valid[SB]:
                scores[SB] += w.sb_bias
            if w.sb_add is not NULL:
                self.add_sb_scores(w, st, valid, scores)
            # in class order (earlier candidates win ties), by move type: SHIFT, SWAP, SB, then
            # the LEFTARC and RIGHTARC blocks, each skipped whole when its move is invalid
            for c in range(FIRST_ARC):
                if valid[c]:
                    n_top = _insert(top, n_top, width, st.score + scores[c], i, c)
            if valid[LEFTARC]:
                for c in range(FIRST_ARC, FIRST_ARC + n_labels):
                    n_top = _insert(top, n_top, width, st.score + scores[c], i, c)
            if valid[RIGHTARC]:
                for c in range(FIRST_ARC + n_labels, nc):
                    n_top = _insert(top, n_top, width, st.score + scores[c], i, c)
        for j in range(n_top):
            st = beam[top[j].parent]
            if top[j].clas < 0:
                out[j] = st
                st.refs += 1
            else:
                child = apply_move(st, top[j].clas, &w.doc)
                if child is NULL:
                    for k in range(j):
                        state_decref(out[k])
                    return -1
                out[j] = child
                out[j].refs = 1
                out[j].score = top[j].score
                out[j].is_gold = st.is_gold and gold is not NULL and st.steps < n_gold \
                    and gold[st.steps] == top[j].clas
        return n_top

    # -------------------------------------------------------------------------------- parsing

    def parse(self, attrs, beam_width=1, fixed_starts=None, bint use_averages=False, sb_bias=0.0,
              bint return_probs=False, sb_scores=None):
        """Parse one document. attrs: (n, n_attrs) uint64. fixed_starts: None (SB predicted) or
        n presets, 0-based (True / 1 forced, False / 0 forbidden, None / -1 predicted; n bools:
        every boundary given), which the parse keeps. beam_width: in [1, MAX_BEAM_WIDTH].
        use_averages: score with the averaged weights, rounded to float16 (the cached
        `weights.prediction_table()`, see `workspace`: nothing is swapped, so concurrent calls
        with either setting each get their own table); half-only weights (a loaded float16
        table) are scored as they are either way.
        sb_bias: a finite float added to the score of SB at every step where SB is valid
        (0 = the model's own scores; > 0 splits more eagerly, < 0 more lazily). sb_scores: None
        or n finite floats, the i-th added to SB's score wherever SB would start a sentence at
        token i (evidence from outside the parser, e.g. a boundary model's weighted log-odds).
        Invalid arguments raise ValueError. Thread-safe (GIL released).

        Returns (heads, labels, sent_starts): int32 heads with absolute 0-based token indices and
        -1 for sentence roots, int32 label ids, bool sentence starts (token 0 always True); with
        `return_probs`, also float64 sentence-start probabilities (`_start_probs`).
        """
        cdef int width = check_width(beam_width)
        cdef float bias = check_bias(sb_bias)
        cdef Workspace ws = self.workspace(attrs, fixed_starts, width, use_averages)
        cdef WorkC* w = &ws.c
        w.sb_bias = bias
        cdef const float[::1] add_view
        if sb_scores is not None:
            ws._sb_add = check_sb_scores(sb_scores, ws.c.doc.n)
            add_view = ws._sb_add
            w.sb_add = &add_view[0] if ws.c.doc.n else NULL
        if ws.c.doc.n:
            self.cache_roles(ws)
        cdef int n = w.doc.n
        heads = numpy.full((n + 1,), -1, dtype=numpy.int32)
        labels = numpy.zeros((n + 1,), dtype=numpy.int32)
        starts = numpy.zeros((n + 1,), dtype=numpy.uint8)
        probs = None
        if n == 0:
            if return_probs:
                return heads[1:], labels[1:], starts[1:].astype(bool), numpy.zeros((0,))
            return heads[1:], labels[1:], starts[1:].astype(bool)
        cdef int[::1] H = heads
        cdef int[::1] L = labels
        cdef unsigned char[::1] S = starts
        cdef StateC** beam = w.beam
        cdef StateC** nxt = w.nxt
        cdef StateC** tmp
        cdef CandC* top = w.top
        cdef int beam_len = 1, new_len, i, step = 0
        cdef bint done, failed = False
        beam[0] = state_init(n)
        if beam[0] is NULL:
            raise MemoryError("parse: cannot allocate the initial state")
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
                    new_len = self.expand_and_filter(w, beam, beam_len, nxt, width, top, NULL, 0)
                    if new_len < 0:
                        failed = True
                        break
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
            if not failed and return_probs:
                probs = _start_probs(beam, beam_len, starts)
            with nogil:
                if not failed:
                    _commit(beam[0], &H[0], &L[0], &S[0])
        finally:
            for i in range(beam_len):
                state_decref(beam[i])
        if failed:
            raise MemoryError("parse: out of memory for beam states")
        S[1] = 1
        out_heads = heads[1:] - 1  # root (0) → -1, token t → t − 1
        if return_probs:
            probs[1] = 1.0
            return out_heads, labels[1:].copy(), starts[1:].astype(bool), probs[1:].copy()
        return out_heads, labels[1:].copy(), starts[1:].astype(bool)

    # ------------------------------------------------------------------------------- training

    def train(self, attrs, gold_actions, update="dlaso", beam_width=20, learner=None,
              fixed_starts=None):
        """Learn from one document whose gold class sequence is `gold_actions` (the oracle's),
        with update strategy `update` (one of `updates.UPDATES`); see `updates.train_document`.
        Not thread-safe: it updates the weights (one training thread, no concurrent parse).
        """
        # `updates` cimports Engine, so it is imported here rather than at module level
        from .updates import train_document
        return train_document(self, attrs, gold_actions, update, beam_width, learner, fixed_starts)

    def count_features(self) -> int:
        """Feature keys extracted per state (depends on the number of extra columns)."""
        cdef Workspace ws = self.workspace(numpy.zeros((1, self.cfg.n_attrs), dtype=numpy.uint64),
                                           None, 1)
        cdef StateC* s = state_init(1)
        if s is NULL:
            raise MemoryError()
        s.refs = 1
        nf = self.features(&ws.c, s)
        state_decref(s)
        return nf


cdef void forget_roles(WorkC* w) noexcept nogil:
    """Empty the role cache of `w` (if it has one): after an update of the weights it scores."""
    cdef int64_t i
    if w.role_keys is not NULL:
        for i in range(w.role_mask + 1):
            w.role_keys[i] = -1


def check_bias(sb_bias) -> float:
    """`sb_bias` as a finite float, or ValueError."""
    if isinstance(sb_bias, bool) or not isinstance(sb_bias, (int, float, numpy.integer, numpy.floating)):
        raise ValueError(f"sb_bias must be a number, got {sb_bias!r}")
    if not numpy.isfinite(sb_bias) or abs(sb_bias) > 1e30:
        raise ValueError(f"sb_bias must be finite, got {sb_bias!r}")
    return float(sb_bias)


def check_sb_scores(sb_scores, int n):
    """`sb_scores` as n contiguous finite float32, or ValueError."""
    try:
        arr = numpy.ascontiguousarray(sb_scores, dtype=numpy.float32)
    except (TypeError, ValueError) as e:
        raise ValueError(f"sb_scores must be {n} numbers: {e}") from None
    if arr.shape != (n,):
        raise ValueError(f"sb_scores must have shape ({n},), got {arr.shape}")
    if not _within(arr, 1e30):
        raise ValueError("sb_scores must be finite")
    return arr


cdef bint _within(const float[::1] a, double bound) noexcept:
    """Whether every value of `a` is finite with |x| ≤ `bound` (one pass; a short document's call
    paid more for four NumPy reductions than for its parse)."""
    cdef Py_ssize_t i
    for i in range(a.shape[0]):
        if not fabs(a[i]) <= bound:  # NaN compares false
            return False
    return True


cdef object _start_probs(StateC** beam, int beam_len, committed):
    """P(a sentence starts at engine token t), t in 0..n, from the final beam (all items final).

    Each final item i gets the weight softmax(score)_i over the final items' scores; the
    probability of a start at t is the summed weight of the items that made SB at t. Boundaries
    already committed (`committed`: shared by every item) and boundaries every item made get
    exactly 1.0, boundaries no item made exactly 0.0; with one item (beam 1) every value is 0 or
    1. Raw perceptron scores make this distribution peaked: it ranks boundaries, it is not
    calibrated.
    """
    n1 = committed.shape[0]
    probs = numpy.zeros((n1,), dtype=numpy.float64)
    counts = numpy.zeros((n1,), dtype=numpy.longlong)
    cdef double[::1] P = probs
    cdef long long[::1] C = counts
    cdef const unsigned char[::1] done = committed
    cdef int i
    cdef Py_ssize_t t
    cdef double top = beam[0].score, z = 0
    cdef const StateC* s
    weights = numpy.empty((beam_len,), dtype=numpy.float64)
    cdef double[::1] Wt = weights
    for i in range(beam_len):
        if beam[i].score > top:
            top = beam[i].score
    for i in range(beam_len):
        Wt[i] = exp(beam[i].score - top)
        z += Wt[i]
    for i in range(beam_len):
        s = beam[i]
        while s is not NULL:
            if s.sb > 0:
                P[s.sb] += Wt[i] / z
                C[s.sb] += 1
            s = s.prev
    for t in range(n1):  # in one pass: a short document paid more for array operations here
        if C[t] == beam_len or done[t] != 0:
            P[t] = 1.0
        elif C[t] == 0:
            P[t] = 0.0
        elif P[t] > 1.0:  # a sum of shares may round past 1
            P[t] = 1.0
    return probs


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
    read_arcs(s, heads, labels, starts)
    if s.prev is not NULL:
        state_decref(s.prev)
        s.prev = NULL
