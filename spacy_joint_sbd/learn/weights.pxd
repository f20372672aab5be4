from libc.stdint cimport uint64_t
from libc.string cimport memset


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define SJS_PREFETCH(p) __builtin_prefetch((const void*)(p), 0, 1)
    #else
    #define SJS_PREFETCH(p) ((void)0)
    #endif
    """
    void SJS_PREFETCH(const void* p) noexcept nogil

cdef enum:
    PREFETCH_AHEAD = 8


cdef inline void score_table(const float* W, uint64_t n_rows, int n_classes, const uint64_t* feats,
                             int n, float* out) noexcept nogil:
    """out[c] = Σ_i W[feats[i] % n_rows, c] over a (n_rows × n_classes) table (out overwritten).
    Inline, so that the engine's scoring loop compiles it in place."""
    cdef int nc = n_classes
    cdef int i, c, j
    cdef const float* row
    cdef const float* ahead
    memset(out, 0, nc * sizeof(float))
    # rows are scattered over a table larger than the cache: prefetch a few rows ahead
    for i in range(min(n, PREFETCH_AHEAD)):
        ahead = &W[(feats[i] % n_rows) * nc]
        for j in range(0, nc, 16):
            SJS_PREFETCH(ahead + j)
    for i in range(n):
        if i + PREFETCH_AHEAD < n:
            ahead = &W[(feats[i + PREFETCH_AHEAD] % n_rows) * nc]
            for j in range(0, nc, 16):
                SJS_PREFETCH(ahead + j)
        row = &W[(feats[i] % n_rows) * nc]
        for c in range(nc):
            out[c] += row[c]


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
    cdef object _lock
    cdef int _avg_depth

    cdef void score_c(self, const uint64_t* feats, int n, float* out) noexcept nogil
    cdef void update_c(self, const uint64_t* feats, int n, int clas, float delta) noexcept nogil
    cdef void update_row_c(self, uint64_t row, int clas, float delta) noexcept nogil
