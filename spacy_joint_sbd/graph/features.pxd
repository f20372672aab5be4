# cython: infer_types=True, binding=True
from libc.stdint cimport uint64_t


cdef struct ToksC:
    int n  # chart positions 0..n (0 = root)
    const uint64_t* words  # [n + 1]
    const uint64_t* tags  # [n + 1]
    const int* coarse  # [n + 1] small ids (< 64) for the in-between features


cdef int arc_feats_c(const ToksC* t, int h, int d, uint64_t* out) noexcept nogil
cdef int sib_feats_c(const ToksC* t, int h, int s, int m, uint64_t* out) noexcept nogil
cdef int label_feats_c(const ToksC* t, int h, int d, uint64_t* out) noexcept nogil
