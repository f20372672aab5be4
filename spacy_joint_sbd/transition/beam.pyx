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
  update strategy (greedy, early, max_violation, dlaso); see `updates`.

`expand_and_filter` is Algorithm 1's EXPANDANDFILTER, shared by parsing and training.
`fixed_starts` is None (SB predicted) or n bools, 0-based (True = the token starts a sentence).
"""
import numpy

from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc

from ..learn.weights cimport HashedWeights
from ._state cimport StateC, is_final, read_arcs, state_decref, state_init
from .features cimport MAX_FEATS, extract_features
from .moves cimport N_MOVES, apply_move, move_of, set_doc, valid_moves

from .moves import n_classes_for

cdef enum:
    COMMIT_EVERY = 256
    MAX_LAG = 2048


cdef class Engine:
    """Scores, searches and learns ArcStandard+SWAP+SB derivations of whole documents.

    n_labels: dependency labels (class layout: SHIFT, SWAP, SB, LEFTARC × L, RIGHTARC × L).
    n_attrs, word_col, tag_col, extra_cols: the attribute columns and their roles.
    n_rows: rows of the hashed weight table (each row holds 3 + 2·n_labels floats).
    """

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

    cdef void begin_document(self, const uint64_t[:, ::1] attrs, fixed_starts) except *:
        """Point the engine at one document (the caller keeps `attrs` alive while it works)."""
        if attrs.shape[1] != self.cfg.n_attrs:
            raise ValueError(f"attrs has {attrs.shape[1]} columns, engine expects {self.cfg.n_attrs}")
        self._flags = set_doc(&self.doc, attrs.shape[0], self.n_labels, fixed_starts)
        self.attrs = &attrs[0, 0] if attrs.shape[0] else NULL

    cdef void reserve_scores(self, int beam_width) except *:
        free(self.scores)
        self.scores = <float*>malloc(beam_width * self.n_classes * sizeof(float))

    cdef int features(self, const StateC* s) noexcept nogil:
        return extract_features(self.feats, s, &self.doc, self.attrs, &self.cfg)

    cdef void score(self, const StateC* s, float* out) noexcept nogil:
        cdef int nf = self.features(s)
        self.weights.score_c(self.feats, nf, out)

    cdef int expand_and_filter(self, StateC** beam, int beam_len, StateC** out, int width,
                               CandC* top, const int* gold, int n_gold) noexcept nogil:
        """Expand every item, keep the best `width` successors in `out`; returns their number.
        Final items are carried over unchanged. Items get is_gold if `gold` is given."""
        cdef int n_top = 0, i, c, j
        cdef bint valid[N_MOVES]
        cdef float* scores
        cdef StateC* st
        cdef int nc = self.n_classes
        for i in range(beam_len):
            st = beam[i]
            if is_final(st, self.doc.n):
                n_top = _insert(top, n_top, width, st.score, i, -1)
                continue
            scores = &self.scores[i * nc]
            self.score(st, scores)
            valid_moves(st, &self.doc, valid)
            for c in range(nc):
                if valid[move_of(c, self.n_labels)]:
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
        """Parse one document. attrs: (n, n_attrs) uint64. fixed_starts: None (SB predicted) or
        n bools, 0-based: the given sentence starts, which the parse keeps.

        Returns (heads, labels, sent_starts): int32 heads with absolute 0-based token indices and
        -1 for sentence roots, int32 label ids, bool sentence starts (token 0 always True).
        """
        if beam_width < 1:
            raise ValueError("beam_width must be ≥ 1")
        cdef const uint64_t[:, ::1] A = numpy.ascontiguousarray(attrs, dtype=numpy.uint64)
        cdef int n = A.shape[0]
        self.begin_document(A, fixed_starts)
        heads = numpy.full((n + 1,), -1, dtype=numpy.int32)
        labels = numpy.zeros((n + 1,), dtype=numpy.int32)
        starts = numpy.zeros((n + 1,), dtype=numpy.uint8)
        if n == 0:
            return heads[1:], labels[1:], starts[1:].astype(bool)
        cdef int[::1] H = heads
        cdef int[::1] L = labels
        cdef unsigned char[::1] S = starts
        self.reserve_scores(beam_width)
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
                    new_len = self.expand_and_filter(beam, beam_len, nxt, beam_width, top, NULL, 0)
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

    def train(self, attrs, gold_actions, str update="dlaso", int beam_width=20, learner=None,
              fixed_starts=None):
        """Learn from one document whose gold class sequence is `gold_actions` (the oracle's),
        with update strategy `update` (one of `updates.UPDATES`); see `updates.train_document`.
        """
        # `updates` cimports Engine, so it is imported here rather than at module level
        from .updates import train_document
        return train_document(self, attrs, gold_actions, update, beam_width, learner, fixed_starts)

    def count_features(self) -> int:
        """Feature keys extracted per state (depends on the number of extra columns)."""
        cdef const uint64_t[:, ::1] A = numpy.zeros((1, self.cfg.n_attrs), dtype=numpy.uint64)
        self.begin_document(A, None)
        cdef StateC* s = state_init(1)
        s.refs = 1
        nf = self.features(s)
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
    read_arcs(s, heads, labels, starts)
    if s.prev is not NULL:
        state_decref(s.prev)
        s.prev = NULL
