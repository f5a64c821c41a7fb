/*
 * kernels_gemm.c - libtngcrt's own float32 GEMM for the small and medium
 * shapes of linear / matmul / bmm / addmm (issue 18): B packed into panels
 * of TNGRT_GEMM_NR (32) columns, k rows each (zero padded), read by a
 * register-blocked microkernel that broadcasts A's elements through any
 * strides (no packing of A: transposed and permuted A need no copy) and
 * writes C rows with a row bias added. Three microkernels, picked once at
 * load time by an ifunc as kernels_isa.h does: AVX-512 (6 rows x 32
 * columns, FMA), AVX2 + FMA (6 x 16, twice per panel) and portable C
 * (4 x 32, no FMA; what non-x86 and TNGRT_NO_ISA builds get).
 *
 * tngrt_gemm_f32_isa runs a named path (tests force each one the CPU
 * has); tngrt_gemm_isa_available says which. The FMA paths round each
 * product-sum once, so results differ from the portable path's in the last
 * bits (within the matmul tolerance class, as OpenBLAS's did).
 */
#include "tngrt_kernel_impl.h"

#include "kernels_isa.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__)) && !defined(TNGRT_NO_ISA)
#define TNGRT_GEMM_X86 1
#include <immintrin.h>
#else
#define TNGRT_GEMM_X86 0
#endif

#define NR TNGRT_GEMM_NR

#if defined(__GNUC__) || defined(__clang__)
#define TNGRT_GEMM_INLINE static inline __attribute__((always_inline))
#else
#define TNGRT_GEMM_INLINE static inline
#endif

int64_t tngrt_gemm_packed_size(int64_t n, int64_t k)
{
    return (n + NR - 1) / NR * NR * k;
}

void tngrt_gemm_pack_b(float *dst, const TngrtArg *b, int64_t off, int64_t rs, int64_t cs,
                       int64_t k, int64_t n)
{
    for (int64_t p = 0; p < n; p += NR) {
        int64_t w = n - p < NR ? n - p : NR;
        if (b->dtype == TNGRT_F32 && rs == 1 && cs != 1) {
            /* B transposed (a Linear's weight [n, k]): each column is a
             * contiguous row of the weight, read in order */
            float *d = dst + p * k;
            for (int64_t k0 = 0; k0 < k; k0 += 16) {   /* 16 x 32 tiles, in L1 */
                int64_t kn = k - k0 < 16 ? k - k0 : 16;
                for (int64_t j = 0; j < w; j++) {
                    const float *s = (const float *)b->data + off + (p + j) * cs + k0;
                    for (int64_t u = 0; u < kn; u++)
                        d[(k0 + u) * NR + j] = s[u];
                }
                for (int64_t u = 0; u < kn; u++)
                    for (int64_t j = w; j < NR; j++)
                        d[(k0 + u) * NR + j] = 0.0f;
            }
            continue;
        }
        for (int64_t kk = 0; kk < k; kk++) {
            float *d = dst + (p * k + kk * NR);
            int64_t at = off + kk * rs + p * cs;
            if (b->dtype == TNGRT_F32) {
                const float *s = (const float *)b->data + at;
                if (cs == 1)
                    memcpy(d, s, (size_t)w * sizeof(float));
                else
                    for (int64_t j = 0; j < w; j++)
                        d[j] = s[j * cs];
            } else {
                const uint16_t *s = (const uint16_t *)b->data + at;
                for (int64_t j = 0; j < w; j++) {
                    uint32_t u = b->dtype == TNGRT_BF16 ? (uint32_t)s[j * cs] << 16 : 0;
                    float f;
                    if (b->dtype == TNGRT_F16) {   /* binary16 -> binary32, exact */
                        uint32_t h = s[j * cs], e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
                        uint32_t sg = (h & 0x8000u) << 16;
                        if (e == 0) {
                            f = (float)m * 0x1p-24f;
                            memcpy(&u, &f, sizeof u);
                            u |= sg;
                        } else {
                            u = sg | (e == 31 ? 0x7f800000u : (e + 112u) << 23) | m << 13;
                        }
                    }
                    memcpy(&f, &u, sizeof f);
                    d[j] = f;
                }
            }
            for (int64_t j = w; j < NR; j++)
                d[j] = 0.0f;
        }
    }
}

int64_t tngrt_gemm_pack_weight(float **dst, const void *w, TngrtDType dt, int64_t n, int64_t k)
{
    int64_t size = tngrt_gemm_packed_size(n, k), shape[1] = {n * k};
    TngrtArg a = {(void *)w, dt, 1, shape};
    *dst = NULL;
    if (n < 1 || k < 1 || (dt != TNGRT_F32 && dt != TNGRT_F16 && dt != TNGRT_BF16) ||
        (uint64_t)size > SIZE_MAX / sizeof(float) || !(*dst = malloc((size_t)size * sizeof(float))))
        return -1;
    tngrt_gemm_pack_b(*dst, &a, 0, 1, k, k, n);
    return size;
}

TNGRT_ISA_KERNEL(void, tngrt_kernel_linear_packed,
                 (const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                 const TngrtArg *bias, const float *wp),
                 tngrt_impl_linear_packed(out, x, w, bias, wp);)

/* ---- the portable microkernel: MR_ rows x 32 columns ---- */

TNGRT_GEMM_INLINE void tngrt_gemm__ukr_c(const int mr, int64_t k, const float *a, int64_t ars,
                                         int64_t acs, const float *bp, float *c, int64_t ldc,
                                         int nc, const float *bias)
{
    float acc[4][NR];
    for (int i = 0; i < mr; i++)
        for (int j = 0; j < NR; j++)
            acc[i][j] = 0.0f;
    for (int64_t kk = 0; kk < k; kk++) {
        const float *br = bp + kk * NR;
        for (int i = 0; i < mr; i++) {
            float av = a[i * ars + kk * acs];
            for (int j = 0; j < NR; j++)
                acc[i][j] += av * br[j];
        }
    }
    for (int i = 0; i < mr; i++)
        for (int j = 0; j < nc; j++)
            c[i * ldc + j] = bias ? acc[i][j] + bias[j] : acc[i][j];
}

TNGRT_GEMM_INLINE void tngrt_gemm__body_c(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars,
                              int64_t acs, const float *bp, float *c, int64_t ldc,
                              const float *bias)
{
    for (int64_t p = 0; p < n; p += NR) {
        int nc = n - p < NR ? (int)(n - p) : NR;
        const float *pp = bp + p * k, *bb = bias ? bias + p : NULL;
        int64_t i = 0;
        for (; i + 4 <= m; i += 4)
            tngrt_gemm__ukr_c(4, k, a + i * ars, ars, acs, pp, c + i * ldc + p, ldc, nc, bb);
        switch (m - i) {
        case 3: tngrt_gemm__ukr_c(3, k, a + i * ars, ars, acs, pp, c + i * ldc + p, ldc, nc, bb); break;
        case 2: tngrt_gemm__ukr_c(2, k, a + i * ars, ars, acs, pp, c + i * ldc + p, ldc, nc, bb); break;
        case 1: tngrt_gemm__ukr_c(1, k, a + i * ars, ars, acs, pp, c + i * ldc + p, ldc, nc, bb); break;
        default: break;
        }
    }
}

/* The drivers with A's column stride a constant 1 where it is (the
 * common case: the kernel's address arithmetic folds), else general. */
#define TNGRT_GEMM__RUN(isa, attr)                                                          \
    attr static void tngrt_gemm__run_##isa(int64_t m, int64_t n, int64_t k, const float *a, \
                                           int64_t ars, int64_t acs, const float *bp,      \
                                           float *c, int64_t ldc, const float *bias)       \
    {                                                                                       \
        if (acs == 1)                                                                       \
            tngrt_gemm__body_##isa(m, n, k, a, ars, 1, bp, c, ldc, bias);                   \
        else                                                                                \
            tngrt_gemm__body_##isa(m, n, k, a, ars, acs, bp, c, ldc, bias);                 \
    }

TNGRT_GEMM__RUN(c, )

#if TNGRT_GEMM_X86

/* ---- AVX-512: MR_ (<= 6) rows x 32 columns, 12 accumulators ---- */

#define TNGRT_GEMM__T512 __attribute__((target("avx512f")))

TNGRT_GEMM_INLINE TNGRT_GEMM__T512 void
tngrt_gemm__ukr_avx512(const int mr, int64_t k, const float *a, int64_t ars, int64_t acs,
                       const float *bp, float *c, int64_t ldc, int nc, const float *bias)
{
    __m512 c0[6], c1[6];
    __mmask16 m0 = (__mmask16)(nc >= 16 ? 0xffffu : (1u << nc) - 1u);
    __mmask16 m1 = (__mmask16)(nc >= 32 ? 0xffffu : nc > 16 ? (1u << (nc - 16)) - 1u : 0u);
    int64_t kk = 0;
    for (int i = 0; i < mr; i++)
        c0[i] = c1[i] = _mm512_setzero_ps();
    if (mr <= 2) {
        /* one or two rows (a decode step's GEMV): four independent sums
         * over k so that the FMA latency is hidden, added at the end */
        __m512 d0[2][3], d1[2][3];
        for (int i = 0; i < mr; i++)
            for (int u = 0; u < 3; u++)
                d0[i][u] = d1[i][u] = _mm512_setzero_ps();
        for (; kk + 4 <= k; kk += 4) {
            for (int i = 0; i < mr; i++) {
                const float *ai = a + i * ars + kk * acs;
                c0[i] = _mm512_fmadd_ps(_mm512_set1_ps(ai[0]), _mm512_loadu_ps(bp + kk * NR), c0[i]);
                c1[i] = _mm512_fmadd_ps(_mm512_set1_ps(ai[0]), _mm512_loadu_ps(bp + kk * NR + 16), c1[i]);
                for (int u = 0; u < 3; u++) {
                    __m512 av = _mm512_set1_ps(ai[(u + 1) * acs]);
                    const float *bu = bp + (kk + u + 1) * NR;
                    d0[i][u] = _mm512_fmadd_ps(av, _mm512_loadu_ps(bu), d0[i][u]);
                    d1[i][u] = _mm512_fmadd_ps(av, _mm512_loadu_ps(bu + 16), d1[i][u]);
                }
            }
        }
        for (int i = 0; i < mr; i++) {
            c0[i] = _mm512_add_ps(_mm512_add_ps(c0[i], d0[i][0]), _mm512_add_ps(d0[i][1], d0[i][2]));
            c1[i] = _mm512_add_ps(_mm512_add_ps(c1[i], d1[i][0]), _mm512_add_ps(d1[i][1], d1[i][2]));
        }
    }
    for (; kk < k; kk++) {
        __m512 b0 = _mm512_loadu_ps(bp + kk * NR), b1 = _mm512_loadu_ps(bp + kk * NR + 16);
        for (int i = 0; i < mr; i++) {
            __m512 av = _mm512_set1_ps(a[i * ars + kk * acs]);
            c0[i] = _mm512_fmadd_ps(av, b0, c0[i]);
            c1[i] = _mm512_fmadd_ps(av, b1, c1[i]);
        }
    }
    if (bias) {
        __m512 x0 = _mm512_maskz_loadu_ps(m0, bias), x1 = _mm512_maskz_loadu_ps(m1, bias + 16);
        for (int i = 0; i < mr; i++) {
            c0[i] = _mm512_add_ps(c0[i], x0);
            c1[i] = _mm512_add_ps(c1[i], x1);
        }
    }
    for (int i = 0; i < mr; i++) {
        _mm512_mask_storeu_ps(c + i * ldc, m0, c0[i]);
        _mm512_mask_storeu_ps(c + i * ldc + 16, m1, c1[i]);
    }
}

TNGRT_GEMM_INLINE TNGRT_GEMM__T512 void tngrt_gemm__body_avx512(int64_t m, int64_t n, int64_t k,
                                                     const float *a, int64_t ars, int64_t acs,
                                                     const float *bp, float *c, int64_t ldc,
                                                     const float *bias)
{
    for (int64_t p = 0; p < n; p += NR) {
        int nc = n - p < NR ? (int)(n - p) : NR;
        const float *pp = bp + p * k, *bb = bias ? bias + p : NULL;
        int64_t i = 0;
        for (; i + 6 <= m; i += 6)
            tngrt_gemm__ukr_avx512(6, k, a + i * ars, ars, acs, pp, c + i * ldc + p, ldc, nc, bb);
        switch (m - i) {
#define TNGRT_GEMM__TAIL(r) \
        case r: tngrt_gemm__ukr_avx512(r, k, a + i * ars, ars, acs, pp, c + i * ldc + p, ldc, nc, bb); break;
        TNGRT_GEMM__TAIL(5) TNGRT_GEMM__TAIL(4) TNGRT_GEMM__TAIL(3) TNGRT_GEMM__TAIL(2)
        TNGRT_GEMM__TAIL(1)
#undef TNGRT_GEMM__TAIL
        default: break;
        }
    }
}

TNGRT_GEMM__RUN(avx512, TNGRT_GEMM__T512)

/* ---- AVX2 + FMA: MR_ (<= 6) rows x 16 columns (half a panel) ---- */

#define TNGRT_GEMM__T256 __attribute__((target("avx2,fma")))

TNGRT_GEMM_INLINE TNGRT_GEMM__T256 __m256i tngrt_gemm__mask8(int nc)
{
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(nc), idx);
}

TNGRT_GEMM_INLINE TNGRT_GEMM__T256 void
tngrt_gemm__ukr_avx2(const int mr, int64_t k, const float *a, int64_t ars, int64_t acs,
                     const float *bp, float *c, int64_t ldc, int nc, const float *bias)
{
    __m256 c0[6], c1[6];
    __m256i m0 = tngrt_gemm__mask8(nc), m1 = tngrt_gemm__mask8(nc - 8);
    for (int i = 0; i < mr; i++)
        c0[i] = c1[i] = _mm256_setzero_ps();
    for (int64_t kk = 0; kk < k; kk++) {
        __m256 b0 = _mm256_loadu_ps(bp + kk * NR), b1 = _mm256_loadu_ps(bp + kk * NR + 8);
        for (int i = 0; i < mr; i++) {
            __m256 av = _mm256_broadcast_ss(a + i * ars + kk * acs);
            c0[i] = _mm256_fmadd_ps(av, b0, c0[i]);
            c1[i] = _mm256_fmadd_ps(av, b1, c1[i]);
        }
    }
    if (bias) {
        __m256 x0 = _mm256_maskload_ps(bias, m0), x1 = _mm256_maskload_ps(bias + 8, m1);
        for (int i = 0; i < mr; i++) {
            c0[i] = _mm256_add_ps(c0[i], x0);
            c1[i] = _mm256_add_ps(c1[i], x1);
        }
    }
    for (int i = 0; i < mr; i++) {
        _mm256_maskstore_ps(c + i * ldc, m0, c0[i]);
        _mm256_maskstore_ps(c + i * ldc + 8, m1, c1[i]);
    }
}

TNGRT_GEMM_INLINE TNGRT_GEMM__T256 void tngrt_gemm__body_avx2(int64_t m, int64_t n, int64_t k,
                                                 const float *a, int64_t ars, int64_t acs,
                                                 const float *bp, float *c, int64_t ldc,
                                                 const float *bias)
{
    for (int64_t q = 0; q < n; q += 16) {
        int nc = n - q < 16 ? (int)(n - q) : 16;
        const float *pp = bp + (q / NR) * NR * k + q % NR, *bb = bias ? bias + q : NULL;
        int64_t i = 0;
        for (; i + 6 <= m; i += 6)
            tngrt_gemm__ukr_avx2(6, k, a + i * ars, ars, acs, pp, c + i * ldc + q, ldc, nc, bb);
        switch (m - i) {
#define TNGRT_GEMM__TAIL(r) \
        case r: tngrt_gemm__ukr_avx2(r, k, a + i * ars, ars, acs, pp, c + i * ldc + q, ldc, nc, bb); break;
        TNGRT_GEMM__TAIL(5) TNGRT_GEMM__TAIL(4) TNGRT_GEMM__TAIL(3) TNGRT_GEMM__TAIL(2)
        TNGRT_GEMM__TAIL(1)
#undef TNGRT_GEMM__TAIL
        default: break;
        }
    }
}

TNGRT_GEMM__RUN(avx2, TNGRT_GEMM__T256)

/* The widest path the CPU has (the resolver runs before sanitizers are set
 * up: not instrumented, see kernels_isa.h). */
__attribute__((used, no_sanitize("address", "undefined")))
static __typeof__(tngrt_gemm__run_c) *tngrt_gemm_f32__resolve(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return tngrt_gemm__run_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return tngrt_gemm__run_avx2;
    return tngrt_gemm__run_c;
}

void tngrt_gemm_f32(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars, int64_t acs,
                    const float *bp, float *c, int64_t ldc, const float *bias)
    __attribute__((ifunc("tngrt_gemm_f32__resolve")));

int tngrt_gemm_isa_available(TngrtGemmIsa isa)
{
    __builtin_cpu_init();
    switch (isa) {
    case TNGRT_GEMM_AVX512: return __builtin_cpu_supports("avx512f") != 0;
    case TNGRT_GEMM_AVX2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    default: return 1;
    }
}

void tngrt_gemm_f32_isa(TngrtGemmIsa isa, int64_t m, int64_t n, int64_t k, const float *a,
                        int64_t ars, int64_t acs, const float *bp, float *c, int64_t ldc,
                        const float *bias)
{
    if (isa == TNGRT_GEMM_AVX512 && tngrt_gemm_isa_available(isa))
        tngrt_gemm__run_avx512(m, n, k, a, ars, acs, bp, c, ldc, bias);
    else if (isa == TNGRT_GEMM_AVX2 && tngrt_gemm_isa_available(isa))
        tngrt_gemm__run_avx2(m, n, k, a, ars, acs, bp, c, ldc, bias);
    else
        tngrt_gemm__run_c(m, n, k, a, ars, acs, bp, c, ldc, bias);
}

#else

void tngrt_gemm_f32(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars, int64_t acs,
                    const float *bp, float *c, int64_t ldc, const float *bias)
{
    tngrt_gemm__run_c(m, n, k, a, ars, acs, bp, c, ldc, bias);
}

int tngrt_gemm_isa_available(TngrtGemmIsa isa)
{
    return isa == TNGRT_GEMM_PORTABLE;
}

void tngrt_gemm_f32_isa(TngrtGemmIsa isa, int64_t m, int64_t n, int64_t k, const float *a,
                        int64_t ars, int64_t acs, const float *bp, float *c, int64_t ldc,
                        const float *bias)
{
    (void)isa;
    tngrt_gemm__run_c(m, n, k, a, ars, acs, bp, c, ldc, bias);
}

#endif
