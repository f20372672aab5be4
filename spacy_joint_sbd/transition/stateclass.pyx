# cython: infer_types=True, binding=True
"""`StateClass`: a Python view of one derivation of the transition system, for tests and
debugging (not used on hot paths), as spaCy's `stateclass.pyx` is for its parser.

It exposes the configuration (σ, β, LAST(S), SWAPPED(β)) of bjorkelund2016 §2 and the validity of
each move of Figure 2, so tests can pin every precondition on explicit move sequences.
"""
import numpy

from ._state cimport NodeC, StateC, buffer_at, is_final, read_arcs, state_decref, state_init
from .moves cimport N_MOVES, DocC, apply_move, class_of, move_of, set_doc, valid_moves

from .moves import MOVE_NAMES, Move


cdef class StateClass:
    """One derivation of a document of n tokens, from the initial state.

    StateClass(n, n_labels=1, fixed_starts=None). Tokens are numbered 1..n as in the engine (0 is
    the root), so `stack`, `buffer`, `last_sb` and `arcs()` use that numbering; `fixed_starts`,
    like everywhere else, is None (SB predicted) or n bools, 0-based (True = token i + 1 starts a
    sentence).
    """
    cdef StateC* c
    cdef DocC doc
    cdef bytes _flags

    def __init__(self, int n, int n_labels=1, fixed_starts=None):
        self._flags = set_doc(&self.doc, n, n_labels, fixed_starts)
        self.c = state_init(n)
        self.c.refs = 1

    def __dealloc__(self):
        if self.c is not NULL:
            state_decref(self.c)

    def clas(self, str move, int label=0) -> int:
        """The class id of move `move` (a name of `Move`) with label id `label`."""
        return class_of(Move[move], label, self.doc.n_labels)

    def is_valid(self, str move) -> bool:
        cdef bint valid[N_MOVES]
        valid_moves(self.c, &self.doc, valid)
        return bool(valid[<int>Move[move]])

    def is_valid_class(self, int clas) -> bool:
        cdef bint valid[N_MOVES]
        valid_moves(self.c, &self.doc, valid)
        return bool(valid[move_of(clas, self.doc.n_labels)])

    def valid(self):
        """Names of the valid moves, in `Move` order."""
        cdef bint valid[N_MOVES]
        valid_moves(self.c, &self.doc, valid)
        return [name for i, name in enumerate(MOVE_NAMES) if valid[i]]

    def apply(self, str move, int label=0, bint check=True):
        if check and not self.is_valid(move):
            raise ValueError(f"{move} is not valid in {self}")
        self.apply_clas(self.clas(move, label))
        return self

    def apply_clas(self, int clas):
        cdef StateC* s = apply_move(self.c, clas, &self.doc)
        s.refs = 1
        state_decref(self.c)  # s holds the back-pointer reference
        self.c = s

    @property
    def stack(self):
        out = []
        cdef NodeC* node = self.c.stack
        while node is not NULL:
            out.append(node.tok)
            node = node.next
        return out[::-1]

    @property
    def buffer(self):
        out = []
        cdef int i = 0
        while buffer_at(self.c, i, self.doc.n) >= 0:
            out.append(buffer_at(self.c, i, self.doc.n))
            i += 1
        return out

    @property
    def last_sb(self):
        return self.c.last_sb

    @property
    def swapped(self):
        return self.c.n_swapped > 0

    @property
    def is_final(self):
        return is_final(self.c, self.doc.n)

    def arcs(self):
        """(heads, labels, starts) as lists over tokens 1..n (index 0 unused), read by
        back-pointers: heads -1 and labels -1 where no arc was made yet; starts[1] is True."""
        cdef int n = self.doc.n
        heads = numpy.full((n + 1,), -1, dtype=numpy.int32)
        labels = numpy.full((n + 1,), -1, dtype=numpy.int32)
        starts = numpy.zeros((n + 1,), dtype=numpy.uint8)
        if n:
            starts[1] = 1
        cdef int[::1] H = heads
        cdef int[::1] L = labels
        cdef unsigned char[::1] S = starts
        read_arcs(self.c, &H[0], &L[0], &S[0])
        return heads.tolist(), labels.tolist(), starts.astype(bool).tolist()

    def __repr__(self):
        return f"<State stack={self.stack} buffer={self.buffer} LAST(S)={self.c.last_sb}>"
