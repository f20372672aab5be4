from libc.stdint cimport uint16_t, uint64_t
from libc.string cimport memset


cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #if defined(__GNUC__) || defined(__clang__)
    #define SJS_PREFETCH(p) __builtin_prefetch((const void*)(p), 0, 1)
    #else
    #define SJS_PREFETCH(p) ((void)0)
    #endif
    /* Prefetch one weight row of `bytes` bytes: every cache line of it, and its last byte (rows
       are not line-aligned). Rows are scattered over a table larger than the cache, so every
       kernel below asks for its rows a few ahead. */
    static inline void sjs_prefetch_row(const void* row, uint64_t bytes) {
        const char* p = (const char*)row;
        uint64_t b;
        for (b = 0; b < bytes; b += 64) SJS_PREFETCH(p + b);
        SJS_PREFETCH(p + bytes - 1);
    }

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
    /* The lanes of the k-th 8-float register of a block of `width` ≤ 64 columns that lie inside it. */
    __attribute__((target("avx2")))
    static inline __m256i sjs_lanes(int width, int k) {
        int m[8], j;
        for (j = 0; j < 8; j++) m[j] = 8 * k + j < width ? -1 : 0;
        return _mm256_loadu_si256((const __m256i*)m);
    }
    /* out[c] += xs[0][c] + ... in that order, for c < nc: 64 classes at a time held in eight
       registers over all the arrays (the cached role scores added to a state's). Each class is
       the same chain of single additions as the plain loops', so the bits are too. */
    __attribute__((target("avx2")))
    static void sjs_add_arrays_avx2(float* out, const float* const* xs, int n, int nc) {
        int c0, i, k;
        for (c0 = 0; c0 < nc; c0 += 64) {
            const int width = nc - c0 < 64 ? nc - c0 : 64;
            __m256 acc[8];
            __m256i lanes[8];
            for (k = 0; k < 8; k++) {
                lanes[k] = sjs_lanes(width, k);
                acc[k] = _mm256_maskload_ps(out + c0 + 8 * k, lanes[k]);
            }
            for (i = 0; i < n; i++) {
                const float* x = xs[i] + c0;
                for (k = 0; k < 8; k++) acc[k] = _mm256_add_ps(acc[k], _mm256_maskload_ps(x + 8 * k, lanes[k]));
            }
            for (k = 0; k < 8; k++) _mm256_maskstore_ps(out + c0 + 8 * k, lanes[k], acc[k]);
        }
    }
    __attribute__((target("avx2")))
    static void sjs_sum_rows_avx2(const float* W, uint64_t n_rows, int nc, const uint64_t* feats,
                                  int n, float* out) {
        const uint64_t mask = n_rows - 1;
        const int pow2 = (n_rows & mask) == 0;
        int c0, i, k;
        for (i = 0; i < n && i < 8; i++) {
            sjs_prefetch_row(W + (pow2 ? feats[i] & mask : feats[i] % n_rows) * (uint64_t)nc,
                             nc * sizeof(float));
        }
        for (c0 = 0; c0 < nc; c0 += 64) {
            const int width = nc - c0 < 64 ? nc - c0 : 64;
            __m256 acc[8];
            __m256i lanes[8];
            for (k = 0; k < 8; k++) {
                acc[k] = _mm256_setzero_ps();
                lanes[k] = sjs_lanes(width, k);
            }
            for (i = 0; i < n; i++) {
                if (c0 == 0 && i + 8 < n) {
                    sjs_prefetch_row(W + (pow2 ? feats[i + 8] & mask : feats[i + 8] % n_rows) * (uint64_t)nc,
                                     nc * sizeof(float));
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
    static int sjs_f16c = -1;
    static int sjs_has_f16c(void) {
        if (sjs_f16c < 0) {
            __builtin_cpu_init();
            sjs_f16c = (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c")) ? 1 : 0;
        }
        return sjs_f16c;
    }
    static void sjs_set_f16c(int on) { sjs_f16c = on ? -1 : 0; }
    /* The same row sums over a half-precision table (IEEE binary16, converted exactly to float
       with F16C): half the bytes per row, the scores bit for bit those of the float table holding
       the same values. */
    __attribute__((target("avx2,f16c")))
    static inline __m256 sjs_half8(const uint16_t* p) {
        return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)p));
    }
    __attribute__((target("avx2,f16c")))
    static void sjs_sum_half_rows_avx2(const uint16_t* H, uint64_t n_rows, int nc,
                                       const uint64_t* feats, int n, float* out) {
        /* Blocks of 64 columns (8 registers); a last block of fewer full chunks of 8, and the
           last nc % 8 columns summed in a register of their own over the row's last 8 columns
           (a load that never leaves the row; nc >= 8), of which only those columns are kept. */
        const uint64_t mask = n_rows - 1;
        const int pow2 = (n_rows & mask) == 0;
        const int full = nc / 8, rest = nc % 8;
        int c0, i, k, j;
        for (i = 0; i < n && i < 8; i++) {
            sjs_prefetch_row(H + (pow2 ? feats[i] & mask : feats[i] % n_rows) * (uint64_t)nc,
                             nc * sizeof(uint16_t));
        }
        for (c0 = 0; c0 < full; c0 += 8) {
            const int chunks = full - c0 < 8 ? full - c0 : 8;
            const int last = c0 + 8 >= full;
            const int tail = last && rest;
            __m256 acc[8], acc_tail = _mm256_setzero_ps();
            for (k = 0; k < 8; k++) acc[k] = _mm256_setzero_ps();
            for (i = 0; i < n; i++) {
                if (c0 == 0 && i + 8 < n) {
                    sjs_prefetch_row(H + (pow2 ? feats[i + 8] & mask : feats[i + 8] % n_rows) * (uint64_t)nc,
                                     nc * sizeof(uint16_t));
                }
                const uint16_t* row = H + (pow2 ? feats[i] & mask : feats[i] % n_rows) * (uint64_t)nc;
                if (chunks == 8) {
                    for (k = 0; k < 8; k++) acc[k] = _mm256_add_ps(acc[k], sjs_half8(row + 8 * (c0 + k)));
                } else {
                    for (k = 0; k < chunks; k++) acc[k] = _mm256_add_ps(acc[k], sjs_half8(row + 8 * (c0 + k)));
                }
                if (tail) acc_tail = _mm256_add_ps(acc_tail, sjs_half8(row + nc - 8));
            }
            for (k = 0; k < chunks; k++) _mm256_storeu_ps(out + 8 * (c0 + k), acc[k]);
            if (tail) {
                float t[8];
                _mm256_storeu_ps(t, acc_tail);
                for (j = 8 - rest; j < 8; j++) out[nc - 8 + j] = t[j];
            }
        }
    }
    #else
    static int sjs_has_f16c(void) { return 0; }
    static void sjs_set_f16c(int on) { (void)on; }
    static void sjs_sum_half_rows_avx2(const uint16_t* H, uint64_t n_rows, int nc, const uint64_t* feats,
                                       int n, float* out) { (void)H; (void)n_rows; (void)nc; (void)feats; (void)n; (void)out; }
    static int sjs_has_avx2(void) { return 0; }
    static void sjs_set_avx2(int on) { (void)on; }
    static void sjs_add_arrays_avx2(float* out, const float* const* xs, int n, int nc) {
        (void)out; (void)xs; (void)n; (void)nc; }
    static void sjs_sum_rows_avx2(const float* W, uint64_t n_rows, int nc, const uint64_t* feats,
                                  int n, float* out) { (void)W; (void)n_rows; (void)nc; (void)feats; (void)n; (void)out; }
    #endif

    /* binary16 -> float, exactly, without F16C (the portable path). */
    static inline float sjs_half_to_float(uint16_t h) {
        uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
        uint32_t exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu, bits;
        if (exp == 0) {
            if (man == 0) {
                bits = sign;
            } else {  /* subnormal: normalise */
                exp = 127 - 15 + 1;
                while ((man & 0x400u) == 0) { man <<= 1; exp--; }
                bits = sign | (exp << 23) | ((man & 0x3FFu) << 13);
            }
        } else if (exp == 0x1F) {
            bits = sign | 0x7F800000u | (man << 13);
        } else {
            bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
        }
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    """
    void SJS_PREFETCH(const void* p) noexcept nogil
    void sjs_prefetch_row(const void* row, uint64_t nbytes) noexcept nogil
    int sjs_has_avx2() noexcept nogil
    void sjs_set_avx2(int on) noexcept nogil
    void sjs_add_arrays_avx2(float* out, const float* const* xs, int n, int nc) noexcept nogil
    void sjs_sum_rows_avx2(const float* W, uint64_t n_rows, int nc, const uint64_t* feats, int n,
                           float* out) noexcept nogil
    int sjs_has_f16c() noexcept nogil
    void sjs_set_f16c(int on) noexcept nogil
    void sjs_sum_half_rows_avx2(const uint16_t* H, uint64_t n_rows, int nc, const uint64_t* feats,
                                int n, float* out) noexcept nogil
    float sjs_half_to_float(uint16_t h) noexcept nogil

cdef enum:
    PREFETCH_AHEAD = 8


cdef inline uint64_t row_of(uint64_t key, uint64_t n_rows) noexcept nogil:
    """The row of `key`: key mod n_rows, taken as a mask when n_rows is a power of 2, as the
    default tables' are (a 64-bit division per row costs more than the row's own sum)."""
    if n_rows & (n_rows - 1) == 0:
        return key & (n_rows - 1)
    return key % n_rows


cdef inline void add_arrays(float* out, const float* const* xs, int n, int nc) noexcept nogil:
    """out[c] += xs[0][c], then xs[1][c], … for c < nc (AVX2 where the CPU has it: the same bits)."""
    cdef int i, c
    if n > 0 and sjs_has_avx2():
        sjs_add_arrays_avx2(out, xs, n, nc)
        return
    for i in range(n):
        for c in range(nc):
            out[c] += xs[i][c]


cdef inline void score_table(const float* W, uint64_t n_rows, int n_classes, const uint64_t* feats,
                             int n, float* out) noexcept nogil:
    """out[c] = Σ_i W[feats[i] % n_rows, c] over a (n_rows × n_classes) table (out overwritten).
    Inline, so that the engine's scoring loop compiles it in place."""
    cdef int nc = n_classes
    cdef int i, c
    cdef const float* row
    if n > 0 and sjs_has_avx2():
        sjs_sum_rows_avx2(W, n_rows, nc, feats, n, out)
        return
    memset(out, 0, nc * sizeof(float))
    for i in range(min(n, PREFETCH_AHEAD)):
        sjs_prefetch_row(&W[row_of(feats[i], n_rows) * nc], nc * sizeof(float))
    for i in range(n):
        if i + PREFETCH_AHEAD < n:
            sjs_prefetch_row(&W[row_of(feats[i + PREFETCH_AHEAD], n_rows) * nc], nc * sizeof(float))
        row = &W[row_of(feats[i], n_rows) * nc]
        for c in range(nc):
            out[c] += row[c]


cdef inline void score_half_table(const uint16_t* H, uint64_t n_rows, int n_classes,
                                  const uint64_t* feats, int n, float* out) noexcept nogil:
    """`score_table` over a half-precision (binary16) table: the same sums, bit for bit, as the
    float table holding the same values (each row converted exactly, summed in the same order)."""
    cdef int nc = n_classes
    cdef int i, c
    cdef const uint16_t* row
    if n > 0 and nc >= 8 and sjs_has_f16c():
        sjs_sum_half_rows_avx2(H, n_rows, nc, feats, n, out)
        return
    memset(out, 0, nc * sizeof(float))
    for i in range(min(n, PREFETCH_AHEAD)):
        sjs_prefetch_row(&H[row_of(feats[i], n_rows) * nc], nc * sizeof(uint16_t))
    for i in range(n):
        if i + PREFETCH_AHEAD < n:
            sjs_prefetch_row(&H[row_of(feats[i + PREFETCH_AHEAD], n_rows) * nc], nc * sizeof(uint16_t))
        row = &H[row_of(feats[i], n_rows) * nc]
        for c in range(nc):
            out[c] += sjs_half_to_float(row[c])


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
    cdef object _H
    cdef long long _H_version
    cdef object _H32
    cdef long long _H32_version
    cdef readonly bint half_only

    cdef void score_c(self, const uint64_t* feats, int n, float* out) noexcept nogil
    cdef void update_c(self, const uint64_t* feats, int n, int clas, float delta) noexcept nogil
    cdef void update_row_c(self, uint64_t row, int clas, float delta) noexcept nogil
    cdef _materialize(self)
