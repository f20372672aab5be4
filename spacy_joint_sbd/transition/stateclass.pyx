# cython: infer_types=True, binding=True
"""`StateClass`: a Python view of one derivation of the transition system, for tests and
debugging (not used on hot paths), as spaCy's `stateclass.pyx` is for its parser.

It exposes the configuration (σ, β, LAST(S), SWAPPED(β)) of bjorkelund2016 §2 and the validity of
each move of Figure 2, so tests can pin every precondition on explicit move sequences.
"""
import numpy

from ._state cimport NodeC, StateC, buffer_at, is_final, read_arcs, state_decref, state_init
from .moves cimport FIRST_ARC, N_MOVES, DocC, apply_move, class_of, move_of, set_doc, valid_moves

from .moves import MOVE_NAMES, Move, move_name


cdef class StateClass:
    """One derivation of a document of n tokens, from the initial state.

    StateClass(n, n_labels=1, fixed_starts=None). Tokens are numbered 1..n as in the engine (0 is
    the root), so `stack`, `buffer`, `last_sb` and `arcs()` use that numbering; `fixed_starts`,
    like everywhere else, is None (SB predicted) or n bools, 0-based (True = token i + 1 starts a
    sentence). Every move is checked before it is applied: an invalid one raises ValueError and
    leaves the state as it was (there is no unchecked mode: an invalid LEFTARC or SWAP would
    follow a NULL stack pointer in C).
    """
    cdef StateC* c
    cdef DocC doc
    cdef bytes _flags

    def __init__(self, n, n_labels=1, fixed_starts=None):
        self._flags = set_doc(&self.doc, n, n_labels, fixed_starts)
        if self.c is not NULL:  # __init__ called again
            state_decref(self.c)
            self.c = NULL
        self.c = state_init(self.doc.n)
        if self.c is NULL:
            raise MemoryError()
        self.c.refs = 1

    def __dealloc__(self):
        if self.c is not NULL:
            state_decref(self.c)

    cdef StateC* _state(self) except NULL:
        if self.c is NULL:
            raise ValueError("StateClass was not initialised")
        return self.c

    cdef int _move(self, move) except -1:
        if not isinstance(move, str) or move not in Move.__members__:
            raise ValueError(f"unknown move {move!r}; expected one of {MOVE_NAMES}")
        return <int>Move[move]

    cdef int _clas(self, clas) except -1:
        if isinstance(clas, bool) or not isinstance(clas, (int, numpy.integer)) or not (
                0 <= clas < FIRST_ARC + 2 * self.doc.n_labels):
            raise ValueError(f"class {clas!r} is not in [0, {FIRST_ARC + 2 * self.doc.n_labels})")
        return clas

    def clas(self, move, label=0) -> int:
        """The class id of move `move` (a name of `Move`) with label id `label` (in [0, n_labels);
        ignored by SHIFT, SWAP and SB)."""
        self._state()
        cdef int m = self._move(move)
        if isinstance(label, bool) or not isinstance(label, (int, numpy.integer)) or not (
                0 <= label < self.doc.n_labels):
            raise ValueError(f"label {label!r} is not in [0, {self.doc.n_labels})")
        return class_of(m, label, self.doc.n_labels)

    def is_valid(self, move) -> bool:
        cdef int m = self._move(move)
        cdef bint valid[N_MOVES]
        valid_moves(self._state(), &self.doc, valid)
        return bool(valid[m])

    def is_valid_class(self, clas) -> bool:
        cdef int c = self._clas(clas)
        cdef bint valid[N_MOVES]
        valid_moves(self._state(), &self.doc, valid)
        return bool(valid[move_of(c, self.doc.n_labels)])

    def valid(self):
        """Names of the valid moves, in `Move` order."""
        cdef bint valid[N_MOVES]
        valid_moves(self._state(), &self.doc, valid)
        return [name for i, name in enumerate(MOVE_NAMES) if valid[i]]

    def apply(self, move, label=0):
        """Apply move `move` with label id `label`; ValueError if it is not valid here."""
        return self.apply_clas(self.clas(move, label))

    def apply_clas(self, clas):
        """Apply class `clas`; ValueError if it is out of range or not valid here."""
        if not self.is_valid_class(clas):
            raise ValueError(f"{move_name(clas, self.doc.n_labels)} (class {clas}) is not valid "
                             f"in {self}")
        cdef StateC* s = apply_move(self.c, clas, &self.doc)
        if s is NULL:
            raise MemoryError()
        s.refs = 1
        state_decref(self.c)  # s holds the back-pointer reference
        self.c = s
        return self

    @property
    def stack(self):
        out = []
        cdef NodeC* node = self._state().stack
        while node is not NULL:
            out.append(node.tok)
            node = node.next
        return out[::-1]

    @property
    def buffer(self):
        out = []
        cdef int i = 0
        cdef StateC* st = self._state()
        while buffer_at(st, i, self.doc.n) >= 0:
            out.append(buffer_at(st, i, self.doc.n))
            i += 1
        return out

    @property
    def last_sb(self):
        return self._state().last_sb

    @property
    def swapped(self):
        return self._state().n_swapped > 0

    @property
    def is_final(self):
        return is_final(self._state(), self.doc.n)

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
        read_arcs(self._state(), &H[0], &L[0], &S[0])
        return heads.tolist(), labels.tolist(), starts.astype(bool).tolist()

    def __repr__(self):
        if self.c is NULL:
            return "<State (not initialised)>"
        return f"<State stack={self.stack} buffer={self.buffer} LAST(S)={self.c.last_sb}>"
