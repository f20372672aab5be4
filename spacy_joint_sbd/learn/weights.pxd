from libc.stdint cimport uint64_t


cdef class HashedWeights:
    cdef float* W
    cdef float* U
    cdef object _W
    cdef object _U
    cdef object _saved_W
    cdef object _avg_cache
    cdef readonly long long version
    cdef long long _avg_version
    cdef readonly int n_rows
    cdef readonly int n_classes
    cdef readonly double time
    cdef readonly bint using_averages

    cdef void score_c(self, const uint64_t* feats, int n, float* out) noexcept nogil
    cdef void update_c(self, const uint64_t* feats, int n, int clas, float delta) noexcept nogil
    cdef void update_row_c(self, uint64_t row, int clas, float delta) noexcept nogil
