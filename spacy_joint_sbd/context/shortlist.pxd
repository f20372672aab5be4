from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t


cdef extern from *:
    """
    #include <math.h>
    #include <stdint.h>
    #include <string.h>

    /* Nearest centroids by an int8 shortlist (see shortlist.pyx): rows and centroids quantized
       to 8 bits, every approximate distance from integer dot products (AVX-512 VNNI: 64
       multiply-adds per instruction, four times float32's), then the double-precision distance
       of the few centroids whose approximate distance lies within the quantization's error bound
       of the smallest. The bound is proven (Cauchy-Schwarz), so the true nearest is always among them.
       AVX2 has no VNNI: its kernel multiplies u8 row codes by 7-bit centroid codes (maddubs, whose
       int16 pair sums saturate past 32,767: 2 x 255 x 63 does not) and widens by madd, 32
       multiply-adds per two instructions, twice float32's. */

    #define SJS_SL_ROWS 8      /* rows sharing each centroid load (8 x 2 measured fastest on 4x4 ... 16x1) */
    #define SJS_SL_GROUPS 2    /* groups of 16 centroids per pass: 16 int32 accumulators in all */
    #define SJS_SL_PAD (16 * SJS_SL_GROUPS)  /* centroids padded to whole passes */

    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    #include <immintrin.h>

    /* The kernel this CPU runs: 2 AVX-512 VNNI, 1 AVX2 (with FMA), 0 none; `cap` limits it
       (tests): -1 none. */
    static int sjs_sl_found = -1, sjs_sl_cap_at = -1;
    static int sjs_sl_level(void) {
        if (sjs_sl_found < 0) {
            __builtin_cpu_init();
            sjs_sl_found = (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
                            && __builtin_cpu_supports("avx512vnni")) ? 2
                         : (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? 1 : 0;
        }
        return sjs_sl_cap_at >= 0 && sjs_sl_cap_at < sjs_sl_found ? sjs_sl_cap_at : sjs_sl_found;
    }
    static void sjs_sl_cap(int level) { sjs_sl_cap_at = level; }

    /* The squared distance ||x - c||^2 in double precision (exact to double rounding), by which the
       shortlist's centroids are ranked: 16 dims at a time, the tail one by one; the same value on
       every CPU that runs the kernels. */
    __attribute__((target("avx512f")))
    static inline double sjs_sl_exact512(const float* x, const float* c, int d) {
        __m512d acc0 = _mm512_setzero_pd(), acc1 = _mm512_setzero_pd();
        int i = 0;
        for (; i + 16 <= d; i += 16) {
            const __m512d t0 = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(x + i)), _mm512_cvtps_pd(_mm256_loadu_ps(c + i)));
            const __m512d t1 = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(x + i + 8)), _mm512_cvtps_pd(_mm256_loadu_ps(c + i + 8)));
            acc0 = _mm512_fmadd_pd(t0, t0, acc0);
            acc1 = _mm512_fmadd_pd(t1, t1, acc1);
        }
        double sum = _mm512_reduce_add_pd(_mm512_add_pd(acc0, acc1));
        for (; i < d; i++) {
            const double t = (double)x[i] - (double)c[i];
            sum += t * t;
        }
        return sum;
    }

    /* One row quantized: u8 codes q + 128, q = round(x / s) in [-127, 127], s = max |x| / 127
       (1 where that is 0: a zero row, or one so small its scale underflows), 16 values at a time
       (a codes row is a whole number of 16-byte pieces long: the lanes past d give code 128, as
       its pads hold); returns s and writes ||x|| and ||x - s q||, summed in float (the slack
       covers their rounding). */
    __attribute__((target("avx512f")))
    static float sjs_sl_quantize_row512(const float* x, int d, uint8_t* codes, double* norm, double* err) {
        __m512 top = _mm512_setzero_ps();
        int i;
        for (i = 0; i < d; i += 16) {
            const __mmask16 m = d - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (d - i)) - 1);
            top = _mm512_max_ps(top, _mm512_abs_ps(_mm512_maskz_loadu_ps(m, x + i)));
        }
        float s = _mm512_reduce_max_ps(top) / 127.0f;
        if (!(s > 0.0f)) s = 1.0f;
        const __m512 sv = _mm512_set1_ps(s), hi = _mm512_set1_ps(127.0f), lo = _mm512_set1_ps(-127.0f);
        __m512 n2 = _mm512_setzero_ps(), e2 = _mm512_setzero_ps();
        for (i = 0; i < d; i += 16) {
            const __mmask16 m = d - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (d - i)) - 1);
            const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
            __m512 q = _mm512_roundscale_ps(_mm512_div_ps(v, sv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            q = _mm512_max_ps(_mm512_min_ps(q, hi), lo);
            const __m512 e = _mm512_fnmadd_ps(sv, q, v);
            n2 = _mm512_fmadd_ps(v, v, n2);
            e2 = _mm512_fmadd_ps(e, e, e2);
            const __m512i code = _mm512_add_epi32(_mm512_cvtps_epi32(q), _mm512_set1_epi32(128));
            _mm_storeu_si128((__m128i*)(codes + i), _mm512_cvtepi32_epi8(code));
        }
        *norm = sqrt((double)_mm512_reduce_add_ps(n2));
        *err = sqrt((double)_mm512_reduce_add_ps(e2));
        return s;
    }

    /* Row x's nearest centroid among those whose approximate distance (`br`, kpad of them) is at
       most `limit`: the smallest double-precision distance, the first on a tie. */
    __attribute__((target("avx512f")))
    static int64_t sjs_sl_pick(const float* x, const float* br, float limit, const float* cents,
                               int d, int k, int kpad) {
        const __m512 lim = _mm512_set1_ps(limit);
        double best_d = INFINITY;
        int64_t best = -1;
        int j0;
        for (j0 = 0; j0 < kpad; j0 += 16) {
            __mmask16 m = _mm512_cmp_ps_mask(_mm512_loadu_ps(br + j0), lim, _CMP_LE_OQ);
            while (m) {
                const int j = j0 + __builtin_ctz((unsigned)m);
                m &= (__mmask16)(m - 1);
                if (j >= k) continue;
                const double dist = sjs_sl_exact512(x, cents + (int64_t)j * d, d);
                if (best < 0 || dist < best_d) { best_d = dist; best = j; }
            }
        }
        return best < 0 ? 0 : best;
    }

    /* 16 approximate distances of one row from 16 int32 dot products of codes: the codes' sum
       offset (`b` = 128 * sum of each centroid's codes) taken off, then ||c||^2 - 2 s t dot. */
    __attribute__((target("avx512f")))
    static inline __m512 sjs_sl_dist16(__m512i acc, __m512i b, __m512 two_s, __m512 sc, __m512 nv) {
        const __m512 dot = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc, b));
        return _mm512_fnmadd_ps(dot, _mm512_mul_ps(two_s, sc), nv);
    }

    /* One centroid set for rows [0, n) with VNNI: `pack` holds the centroids' codes by groups of
       16, each group as `chunks` 64-byte vectors (chunk t: 4 codes of each of the 16 centroids,
       dims 4t..4t+3); a row's codes start every `row_bytes`; `bias`, `scale`, `norms` (+inf for
       the pads up to kpad), `cents` the float centroids (k, d); `slack[r]`: the error bound of
       row r. Writes out[r * stride]. `buf`: SJS_SL_ROWS * kpad floats. */
    __attribute__((target("avx512f,avx512bw,avx512vnni")))
    static void sjs_sl_nearest_set(const float* X, int64_t n, int d, int chunks, int64_t row_bytes,
                                   const uint8_t* codes, const float* xscale, const float* slack,
                                   const int8_t* pack, const int32_t* bias, const float* scale,
                                   const float* norms, const float* cents, int k, int kpad,
                                   int64_t* out, int64_t stride, float* buf) {
        const int groups = kpad / 16;
        int64_t r0;
        int r, g, p, t;
        for (r0 = 0; r0 < n; r0 += SJS_SL_ROWS) {
            const int rows = n - r0 < SJS_SL_ROWS ? (int)(n - r0) : SJS_SL_ROWS;
            const uint8_t* xr[SJS_SL_ROWS];
            __m512 two_s[SJS_SL_ROWS], low[SJS_SL_ROWS];
            for (r = 0; r < SJS_SL_ROWS; r++) {
                const int64_t row = r0 + (r < rows ? r : rows - 1);
                xr[r] = codes + row * row_bytes;
                two_s[r] = _mm512_set1_ps(2.0f * xscale[row]);
                low[r] = _mm512_set1_ps(INFINITY);
            }
            for (g = 0; g < groups; g += SJS_SL_GROUPS) {
                __m512i acc[SJS_SL_ROWS][SJS_SL_GROUPS];
                const __m512i* pg = (const __m512i*)(pack + (int64_t)g * chunks * 64);
                for (r = 0; r < SJS_SL_ROWS; r++)
                    for (p = 0; p < SJS_SL_GROUPS; p++) acc[r][p] = _mm512_setzero_si512();
                for (t = 0; t < chunks; t++) {
                    __m512i c[SJS_SL_GROUPS];
                    for (p = 0; p < SJS_SL_GROUPS; p++) c[p] = _mm512_loadu_si512(pg + (int64_t)p * chunks + t);
                    for (r = 0; r < SJS_SL_ROWS; r++) {
                        int32_t four;
                        memcpy(&four, xr[r] + 4 * t, 4);
                        const __m512i xb = _mm512_set1_epi32(four);
                        for (p = 0; p < SJS_SL_GROUPS; p++) acc[r][p] = _mm512_dpbusd_epi32(acc[r][p], xb, c[p]);
                    }
                }
                for (p = 0; p < SJS_SL_GROUPS; p++) {
                    const int j0 = 16 * (g + p);
                    const __m512i b = _mm512_loadu_si512((const void*)(bias + j0));
                    const __m512 sc = _mm512_loadu_ps(scale + j0);
                    const __m512 nv = _mm512_loadu_ps(norms + j0);
                    for (r = 0; r < SJS_SL_ROWS; r++) {
                        const __m512 dist = sjs_sl_dist16(acc[r][p], b, two_s[r], sc, nv);
                        _mm512_storeu_ps(buf + (int64_t)r * kpad + j0, dist);
                        low[r] = _mm512_min_ps(low[r], dist);
                    }
                }
            }
            for (r = 0; r < rows; r++) {
                const int64_t row = r0 + r;
                const float limit = _mm512_reduce_min_ps(low[r]) + slack[row];
                out[row * stride] = sjs_sl_pick(X + row * (int64_t)d, buf + (int64_t)r * kpad, limit,
                                                cents, d, k, kpad);
            }
        }
    }

    /* AVX2: ||x - c||^2 in double precision, in the same order as sjs_sl_exact512 (lanes i..i+7
       and i+8..i+15 summed apart, then halves, quarters, pairs), so every CPU ranks the
       shortlist by the same doubles and picks the same centroid. */
    __attribute__((target("avx2,fma")))
    static inline double sjs_sl_exact256(const float* x, const float* c, int d) {
        __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd(), b0 = _mm256_setzero_pd(), b1 = _mm256_setzero_pd();
        int i = 0;
        for (; i + 16 <= d; i += 16) {
            const __m256d t0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + i)), _mm256_cvtps_pd(_mm_loadu_ps(c + i)));
            const __m256d t1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + i + 4)), _mm256_cvtps_pd(_mm_loadu_ps(c + i + 4)));
            const __m256d u0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + i + 8)), _mm256_cvtps_pd(_mm_loadu_ps(c + i + 8)));
            const __m256d u1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + i + 12)), _mm256_cvtps_pd(_mm_loadu_ps(c + i + 12)));
            a0 = _mm256_fmadd_pd(t0, t0, a0);
            a1 = _mm256_fmadd_pd(t1, t1, a1);
            b0 = _mm256_fmadd_pd(u0, u0, b0);
            b1 = _mm256_fmadd_pd(u1, u1, b1);
        }
        const __m256d half = _mm256_add_pd(_mm256_add_pd(a1, b1), _mm256_add_pd(a0, b0));
        const __m128d quarter = _mm_add_pd(_mm256_extractf128_pd(half, 1), _mm256_castpd256_pd128(half));
        double sum = _mm_cvtsd_f64(quarter) + _mm_cvtsd_f64(_mm_unpackhi_pd(quarter, quarter));
        for (; i < d; i++) {
            const double t = (double)x[i] - (double)c[i];
            sum += t * t;
        }
        return sum;
    }

    /* AVX2: one row quantized as sjs_sl_quantize_row512 does (the same codes, scale, and norms
       up to float rounding, which the slack covers). */
    __attribute__((target("avx2,fma")))
    static float sjs_sl_quantize_row256(const float* x, int d, uint8_t* codes, double* norm, double* err) {
        float top = 0.0f, n2 = 0.0f, e2 = 0.0f;
        int i;
        for (i = 0; i < d; i++) top = fmaxf(top, fabsf(x[i]));
        float s = top / 127.0f;
        if (!(s > 0.0f)) s = 1.0f;
        for (i = 0; i < d; i++) {
            const float q = fmaxf(fminf(nearbyintf(x[i] / s), 127.0f), -127.0f);
            const float e = fmaf(-s, q, x[i]);
            n2 = fmaf(x[i], x[i], n2);
            e2 = fmaf(e, e, e2);
            codes[i] = (uint8_t)((int)q + 128);
        }
        *norm = sqrt((double)n2);
        *err = sqrt((double)e2);
        return s;
    }

    #define SJS_SL_ROWS256 4   /* rows sharing each centroid load: 4 x 2 groups of 8 = 8 accumulators
                                  (measured fastest of 2x4, 4x2, 4x4, 6x2, 8x1 on an AMD EPYC); at
                                  most SJS_SL_ROWS, the rows `buf` holds */
    #define SJS_SL_GROUPS256 2

    /* AVX2: row x's nearest centroid among those whose approximate distance is at most `limit`. */
    __attribute__((target("avx2,fma")))
    static int64_t sjs_sl_pick256(const float* x, const float* br, float limit, const float* cents,
                                  int d, int k, int kpad) {
        const __m256 lim = _mm256_set1_ps(limit);
        double best_d = INFINITY;
        int64_t best = -1;
        int j0;
        for (j0 = 0; j0 < kpad; j0 += 8) {
            unsigned m = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(br + j0), lim, _CMP_LE_OQ));
            while (m) {
                const int j = j0 + __builtin_ctz(m);
                m &= m - 1;
                if (j >= k) continue;
                const double dist = sjs_sl_exact256(x, cents + (int64_t)j * d, d);
                if (best < 0 || dist < best_d) { best_d = dist; best = j; }
            }
        }
        return best < 0 ? 0 : best;
    }

    /* AVX2: one centroid set for rows [0, n), as sjs_sl_nearest_set with VNNI, but `pack` holds
       groups of 8 centroids, chunk t a 32-byte vector of 4 codes (in [-63, 63]) of each. */
    __attribute__((target("avx2,fma")))
    static void sjs_sl_nearest_set256(const float* X, int64_t n, int d, int chunks, int64_t row_bytes,
                                      const uint8_t* codes, const float* xscale, const float* slack,
                                      const int8_t* pack, const int32_t* bias, const float* scale,
                                      const float* norms, const float* cents, int k, int kpad,
                                      int64_t* out, int64_t stride, float* buf) {
        const int groups = kpad / 8;
        const __m256i ones = _mm256_set1_epi16(1);
        int64_t r0;
        int r, g, p, t;
        for (r0 = 0; r0 < n; r0 += SJS_SL_ROWS256) {
            const int rows = n - r0 < SJS_SL_ROWS256 ? (int)(n - r0) : SJS_SL_ROWS256;
            const uint8_t* xr[SJS_SL_ROWS256];
            __m256 two_s[SJS_SL_ROWS256], low[SJS_SL_ROWS256];
            for (r = 0; r < SJS_SL_ROWS256; r++) {
                const int64_t row = r0 + (r < rows ? r : rows - 1);
                xr[r] = codes + row * row_bytes;
                two_s[r] = _mm256_set1_ps(2.0f * xscale[row]);
                low[r] = _mm256_set1_ps(INFINITY);
            }
            for (g = 0; g < groups; g += SJS_SL_GROUPS256) {
                __m256i acc[SJS_SL_ROWS256][SJS_SL_GROUPS256];
                const __m256i* pg = (const __m256i*)(pack + (int64_t)g * chunks * 32);
                for (r = 0; r < SJS_SL_ROWS256; r++)
                    for (p = 0; p < SJS_SL_GROUPS256; p++) acc[r][p] = _mm256_setzero_si256();
                for (t = 0; t < chunks; t++) {
                    __m256i c[SJS_SL_GROUPS256];
                    for (p = 0; p < SJS_SL_GROUPS256; p++) c[p] = _mm256_loadu_si256(pg + (int64_t)p * chunks + t);
                    for (r = 0; r < SJS_SL_ROWS256; r++) {
                        int32_t four;
                        memcpy(&four, xr[r] + 4 * t, 4);
                        const __m256i xb = _mm256_set1_epi32(four);
                        for (p = 0; p < SJS_SL_GROUPS256; p++)
                            acc[r][p] = _mm256_add_epi32(acc[r][p], _mm256_madd_epi16(_mm256_maddubs_epi16(xb, c[p]), ones));
                    }
                }
                for (p = 0; p < SJS_SL_GROUPS256; p++) {
                    const int j0 = 8 * (g + p);
                    const __m256i b = _mm256_loadu_si256((const __m256i*)(bias + j0));
                    const __m256 sc = _mm256_loadu_ps(scale + j0);
                    const __m256 nv = _mm256_loadu_ps(norms + j0);
                    for (r = 0; r < SJS_SL_ROWS256; r++) {
                        const __m256 dot = _mm256_cvtepi32_ps(_mm256_sub_epi32(acc[r][p], b));
                        const __m256 dist = _mm256_fnmadd_ps(dot, _mm256_mul_ps(two_s[r], sc), nv);
                        _mm256_storeu_ps(buf + (int64_t)r * kpad + j0, dist);
                        low[r] = _mm256_min_ps(low[r], dist);
                    }
                }
            }
            for (r = 0; r < rows; r++) {
                const int64_t row = r0 + r;
                const __m128 m4 = _mm_min_ps(_mm256_extractf128_ps(low[r], 1), _mm256_castps256_ps128(low[r]));
                const __m128 m2 = _mm_min_ps(m4, _mm_movehl_ps(m4, m4));
                const float least = _mm_cvtss_f32(_mm_min_ss(m2, _mm_shuffle_ps(m2, m2, 1)));
                out[row * stride] = sjs_sl_pick256(X + row * (int64_t)d, buf + (int64_t)r * kpad, least + slack[row],
                                                   cents, d, k, kpad);
            }
        }
    }

    #else
    static float sjs_sl_quantize_row512(const float* x, int d, uint8_t* codes, double* norm, double* err) {
        return 1.0f;
    }
    static int sjs_sl_level(void) { return 0; }
    static void sjs_sl_cap(int level) { (void)level; }
    static float sjs_sl_quantize_row256(const float* x, int d, uint8_t* codes, double* norm, double* err) {
        return 1.0f;
    }
    static void sjs_sl_nearest_set(const float* X, int64_t n, int d, int chunks, int64_t row_bytes,
                                   const uint8_t* codes, const float* xscale, const float* slack,
                                   const int8_t* pack, const int32_t* bias, const float* scale,
                                   const float* norms, const float* cents, int k, int kpad,
                                   int64_t* out, int64_t stride, float* buf) {}
    static void sjs_sl_nearest_set256(const float* X, int64_t n, int d, int chunks, int64_t row_bytes,
                                      const uint8_t* codes, const float* xscale, const float* slack,
                                      const int8_t* pack, const int32_t* bias, const float* scale,
                                      const float* norms, const float* cents, int k, int kpad,
                                      int64_t* out, int64_t stride, float* buf) {}
    #endif
    """
    int SJS_SL_PAD
    int SJS_SL_ROWS
    int sjs_sl_level() nogil
    void sjs_sl_cap(int level) nogil
    float sjs_sl_quantize_row512(const float* x, int d, uint8_t* codes, double* norm, double* err) nogil
    float sjs_sl_quantize_row256(const float* x, int d, uint8_t* codes, double* norm, double* err) nogil
    void sjs_sl_nearest_set(const float* X, int64_t n, int d, int chunks, int64_t row_bytes,
                            const uint8_t* codes, const float* xscale, const float* slack,
                            const int8_t* pack, const int32_t* bias, const float* scale,
                            const float* norms, const float* cents, int k, int kpad, int64_t* out,
                            int64_t stride, float* buf) nogil
    void sjs_sl_nearest_set256(const float* X, int64_t n, int d, int chunks, int64_t row_bytes,
                               const uint8_t* codes, const float* xscale, const float* slack,
                               const int8_t* pack, const int32_t* bias, const float* scale,
                               const float* norms, const float* cents, int k, int kpad, int64_t* out,
                               int64_t stride, float* buf) nogil
