from libc.stdint cimport uint64_t
from libc.string cimport memset


cdef extern from *:
    """
    #include <stdint.h>
    #if defined(__GNUC__) || defined(__clang__)
    #define SJS_PREFETCH(p) __builtin_prefetch((const void*)(p), 0, 1)
    #else
    #define SJS_PREFETCH(p) ((void)0)
    #endif

    /* Row sums on AVX2 (x86-64, GCC / Clang; chosen at run time, so the build stays portable):
       64 classes at a time in eight 8-float registers over all the rows, instead of loading and
       storing `out` once per row 4 floats at a time. Each class still sums its rows in order from
       0, so the scores are bit for bit those of the plain loop. */
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    #include <immintrin.h>
    static int sjs_avx2 = -1;
    static int sjs_has_avx2(void) {
        if (sjs_avx2 < 0) {
            __builtin_cpu_init();
            sjs_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
        }
        return sjs_avx2;
    }
    static void sjs_set_avx2(int on) { sjs_avx2 = on ? -1 : 0; }
    __attribute__((target("avx2")))
    static void sjs_sum_rows_avx2(const float* W, uint64_t n_rows, int nc, const uint64_t* feats,
                                  int n, float* out) {
        const uint64_t mask = n_rows - 1;
        const int pow2 = (n_rows & mask) == 0;
        int c0, i, k, j;
        for (i = 0; i < n && i < 8; i++) {
            const float* ahead = W + (pow2 ? feats[i] & mask : feats[i] % n_rows) * (uint64_t)nc;
            for (j = 0; j < nc; j += 16) SJS_PREFETCH(ahead + j);
            SJS_PREFETCH(ahead + nc - 1);
        }
        for (c0 = 0; c0 < nc; c0 += 64) {
            const int width = nc - c0 < 64 ? nc - c0 : 64;
            __m256 acc[8];
            __m256i lanes[8];
            for (k = 0; k < 8; k++) {
                acc[k] = _mm256_setzero_ps();
                int m[8];
                for (j = 0; j < 8; j++) m[j] = 8 * k + j < width ? -1 : 0;
                lanes[k] = _mm256_loadu_si256((const __m256i*)m);
            }
            for (i = 0; i < n; i++) {
                if (c0 == 0 && i + 8 < n) {
                    const float* ahead = W + (pow2 ? feats[i + 8] & mask : feats[i + 8] % n_rows)
                                             * (uint64_t)nc;
                    for (j = 0; j < nc; j += 16) SJS_PREFETCH(ahead + j);
                    SJS_PREFETCH(ahead + nc - 1);
                }
                const float* row = W + (pow2 ? feats[i] & mask : feats[i] % n_rows) * (uint64_t)nc + c0;
                if (width == 64) {
                    for (k = 0; k < 8; k++) acc[k] = _mm256_add_ps(acc[k], _mm256_loadu_ps(row + 8 * k));
                } else {
                    for (k = 0; k < 8; k++)
                        acc[k] = _mm256_add_ps(acc[k], _mm256_maskload_ps(row + 8 * k, lanes[k]));
                }
            }
            for (k = 0; k < 8; k++) _mm256_maskstore_ps(out + c0 + 8 * k, lanes[k], acc[k]);
        }
    }
    #else
    static int sjs_has_avx2(void) { return 0; }
    static void sjs_set_avx2(int on) { (void)on; }
    static void sjs_sum_rows_avx2(const float* W, uint64_t n_rows, int nc, const uint64_t* feats,
                                  int n, float* out) { (void)W; (void)n_rows; (void)nc; (void)feats; (void)n; (void)out; }
    #endif
    """
    void SJS_PREFETCH(const void* p) noexcept nogil
    int sjs_has_avx2() noexcept nogil
    void sjs_set_avx2(int on) noexcept nogil
    void sjs_sum_rows_avx2(const float* W, uint64_t n_rows, int nc, const uint64_t* feats, int n,
                           float* out) noexcept nogil

cdef enum:
    PREFETCH_AHEAD = 8


cdef inline uint64_t row_of(uint64_t key, uint64_t n_rows) noexcept nogil:
    """The row of `key`: key mod n_rows, taken as a mask when n_rows is a power of 2, as the
    default tables' are (a 64-bit division per row costs more than the row's own sum)."""
    if n_rows & (n_rows - 1) == 0:
        return key & (n_rows - 1)
    return key % n_rows


cdef inline void score_table(const float* W, uint64_t n_rows, int n_classes, const uint64_t* feats,
                             int n, float* out) noexcept nogil:
    """out[c] = Σ_i W[feats[i] % n_rows, c] over a (n_rows × n_classes) table (out overwritten).
    Inline, so that the engine's scoring loop compiles it in place."""
    cdef int nc = n_classes
    cdef int i, c, j
    cdef const float* row
    cdef const float* ahead
    if n > 0 and sjs_has_avx2():
        sjs_sum_rows_avx2(W, n_rows, nc, feats, n, out)
        return
    memset(out, 0, nc * sizeof(float))
    # rows are scattered over a table larger than the cache: prefetch a few rows ahead, every
    # cache line of each (its last float too: rows are not line-aligned)
    for i in range(min(n, PREFETCH_AHEAD)):
        ahead = &W[row_of(feats[i], n_rows) * nc]
        for j in range(0, nc, 16):
            SJS_PREFETCH(ahead + j)
        SJS_PREFETCH(ahead + nc - 1)
    for i in range(n):
        if i + PREFETCH_AHEAD < n:
            ahead = &W[row_of(feats[i + PREFETCH_AHEAD], n_rows) * nc]
            for j in range(0, nc, 16):
                SJS_PREFETCH(ahead + j)
            SJS_PREFETCH(ahead + nc - 1)
        row = &W[row_of(feats[i], n_rows) * nc]
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
