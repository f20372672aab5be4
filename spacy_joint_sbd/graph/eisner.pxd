# cython: infer_types=True, binding=True
cdef struct MasksC:
    int D  # chart positions: n words + the root at 0
    int K  # channels (1, or 2 for loose)
    const unsigned char* lbits  # [D*D] lbits[h*D + i]
    const unsigned char* rbits  # [D*D] rbits[h*D + j]
    const int* lim_left  # [D*D]
    const int* lim_right  # [D*D]


cdef double eisner1_c(const double* arc, const MasksC* m, int* heads) noexcept nogil


cdef class _MaskView:
    cdef MasksC c
    cdef const unsigned char[:, ::1] lbits
    cdef const unsigned char[:, ::1] rbits
    cdef const int[:, ::1] lim_left
    cdef const int[:, ::1] lim_right
