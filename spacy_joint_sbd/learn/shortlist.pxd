from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t


cdef extern from *:
    """
    #include <math.h>
    #include <stdint.h>
    #include <string.h>

    /* Nearest centroids by an int8 shortlist (see shortlist.pyx): rows and centroids quantized
       to 8 bits, every approximate distance from integer dot products (AVX-512 VNNI: 64
       multiply-adds per instruction, four times float32's), then the float distance of the few
       centroids whose approximate distance lies within the quantization's error bound of the
       smallest. The bound is proven (Cauchy-Schwarz), so the true nearest is always among them. */

    #define SJS_SL_ROWS 8      /* rows sharing each centroid load (8 x 2 measured fastest on 4x4 ... 16x1) */
    #define SJS_SL_GROUPS 2    /* groups of 16 centroids per pass: 16 int32 accumulators in all */
    #define SJS_SL_PAD (16 * SJS_SL_GROUPS)

    /* One row quantized: u8 codes (q + 128, q = round(x / s) in [-127, 127]), `chunks` * 4 bytes
       with pads of 128 (code 0); returns the scale s and writes ||x|| and ||x - s q||. */
    static float sjs_sl_quantize_row(const float* x, int d, int chunks, uint8_t* codes,
                                     double* norm, double* err) {
        float top = 0.0f;
        int i;
        for (i = 0; i < d; i++) { float a = fabsf(x[i]); if (a > top) top = a; }
        float s = top / 127.0f;
        if (!(s > 0.0f)) s = 1.0f;  /* a zero row, or one so small its scale underflows: codes 0 */
        double n2 = 0.0, e2 = 0.0;
        for (i = 0; i < d; i++) {
            float q = nearbyintf(x[i] / s);
            if (q > 127.0f) q = 127.0f;
            if (q < -127.0f) q = -127.0f;
            codes[i] = (uint8_t)((int)q + 128);
            double e = (double)x[i] - (double)s * (double)q;
            n2 += (double)x[i] * (double)x[i];
            e2 += e * e;
        }
        for (; i < 4 * chunks; i++) codes[i] = 128;
        *norm = sqrt(n2);
        *err = sqrt(e2);
        return s;
    }

    /* The float distance ||c||^2 - 2 x.c, summed in index order (the same value on every CPU
       that has the kernel). */
    static inline float sjs_sl_exact(const float* x, const float* c, int d, float norm) {
        float dot = 0.0f;
        int i;
        for (i = 0; i < d; i++) dot += x[i] * c[i];
        return norm - 2.0f * dot;
    }

    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    #include <immintrin.h>
    #define SJS_SL_KERNEL 1
    static int sjs_sl_vnni = -1;
    static int sjs_sl_has_vnni(void) {
        if (sjs_sl_vnni < 0) {
            __builtin_cpu_init();
            sjs_sl_vnni = (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
                           && __builtin_cpu_supports("avx512vnni")) ? 1 : 0;
        }
        return sjs_sl_vnni;
    }
    static void sjs_sl_set_vnni(int on) { sjs_sl_vnni = on ? -1 : 0; }

    /* One centroid set for rows [0, n): `pack` holds the centroids' codes by groups of 16, each
       group as `chunks` 64-byte vectors (chunk t: 4 codes of each of the 16 centroids, dims
       4t..4t+3); `bias` = 128 * (sum of each centroid's codes), `scale` each centroid's scale,
       `norms` each centroid's float ||c||^2 (+inf for the pads up to kpad); `cents` the float
       centroids (k, d). `slack[r]`: the error bound of row r. Writes out[r * stride]. `buf`:
       SJS_SL_ROWS * kpad floats. */
    __attribute__((target("avx512f,avx512bw,avx512vnni")))
    static void sjs_sl_nearest_set(const float* X, int64_t n, int d, int chunks,
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
                xr[r] = codes + row * 4 * (int64_t)chunks;
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
                        const __m512 dot = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[r][p], b));
                        const __m512 dist = _mm512_fnmadd_ps(dot, _mm512_mul_ps(two_s[r], sc), nv);
                        _mm512_storeu_ps(buf + (int64_t)r * kpad + j0, dist);
                        low[r] = _mm512_min_ps(low[r], dist);
                    }
                }
            }
            for (r = 0; r < rows; r++) {
                const int64_t row = r0 + r;
                const float* x = X + row * (int64_t)d;
                const float* br = buf + (int64_t)r * kpad;
                const __m512 limit = _mm512_set1_ps(_mm512_reduce_min_ps(low[r]) + slack[row]);
                float best_d = INFINITY;
                int64_t best = -1;
                int j0;
                for (j0 = 0; j0 < kpad; j0 += 16) {
                    __mmask16 m = _mm512_cmp_ps_mask(_mm512_loadu_ps(br + j0), limit, _CMP_LE_OQ);
                    while (m) {
                        const int j = j0 + __builtin_ctz((unsigned)m);
                        m &= (__mmask16)(m - 1);
                        if (j >= k) continue;
                        const float dist = sjs_sl_exact(x, cents + (int64_t)j * d, d, norms[j]);
                        if (best < 0 || dist < best_d) { best_d = dist; best = j; }
                    }
                }
                out[row * stride] = best < 0 ? 0 : best;
            }
        }
    }
    #else
    #define SJS_SL_KERNEL 0
    static int sjs_sl_has_vnni(void) { return 0; }
    static void sjs_sl_set_vnni(int on) { (void)on; }
    static void sjs_sl_nearest_set(const float* X, int64_t n, int d, int chunks,
                                   const uint8_t* codes, const float* xscale, const float* slack,
                                   const int8_t* pack, const int32_t* bias, const float* scale,
                                   const float* norms, const float* cents, int k, int kpad,
                                   int64_t* out, int64_t stride, float* buf) {}
    #endif
    """
    int SJS_SL_PAD
    int SJS_SL_ROWS
    int sjs_sl_has_vnni() nogil
    void sjs_sl_set_vnni(int on) nogil
    float sjs_sl_quantize_row(const float* x, int d, int chunks, uint8_t* codes, double* norm,
                              double* err) nogil
    void sjs_sl_nearest_set(const float* X, int64_t n, int d, int chunks, const uint8_t* codes,
                            const float* xscale, const float* slack, const int8_t* pack,
                            const int32_t* bias, const float* scale, const float* norms,
                            const float* cents, int k, int kpad, int64_t* out, int64_t stride,
                            float* buf) nogil
