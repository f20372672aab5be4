from ._state cimport StateC


cdef enum:
    SHIFT = 0
    SWAP = 1
    SB = 2
    LEFT = 3      # first LEFTARC class; LEFTARC(l) = LEFT + l, RIGHTARC(l) = LEFT + n_labels + l
    N_MOVES = 5   # move types: SHIFT, SWAP, SB, LEFTARC, RIGHTARC


cdef struct DocC:
    int n
    int n_labels
    const char* fixed_starts   # NULL: joint mode; else 1-based flags (size n + 2), sentence mode


cdef int move_of(int clas, int n_labels) noexcept nogil
cdef int label_of(int clas, int n_labels) noexcept nogil
cdef void valid_moves(const StateC* s, const DocC* doc, bint* valid) noexcept nogil
cdef StateC* apply_move(StateC* prev, int clas, const DocC* doc) noexcept nogil
