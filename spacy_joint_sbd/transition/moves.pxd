from ._state cimport StateC


cdef enum:
    # Move types: the rows of Figure 2 (bjorkelund2016). Index `valid[N_MOVES]` with them.
    SHIFT = 0
    SWAP = 1
    SB = 2
    LEFTARC = 3
    RIGHTARC = 4
    N_MOVES = 5
    # Class ids: SHIFT, SWAP and SB have one class each (class id = move id); then one class per
    # label for LEFTARC(l) = FIRST_ARC + l, and for RIGHTARC(l) = FIRST_ARC + n_labels + l.
    FIRST_ARC = 3


cdef struct DocC:
    int n
    int n_labels
    const signed char* fixed_starts  # NULL: SB predicted everywhere; else by engine token number
                                     # 1..n (size n + 2): 1 forced, 0 forbidden, -1 predicted


cdef int move_of(int clas, int n_labels) noexcept nogil
cdef int class_of(int move, int label, int n_labels) noexcept nogil
cdef void valid_moves(const StateC* s, const DocC* doc, bint* valid) noexcept nogil
cdef StateC* apply_move(StateC* prev, int clas, const DocC* doc) noexcept nogil
cdef bytes set_doc(DocC* doc, n, n_labels, object fixed_starts)
