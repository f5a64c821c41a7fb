/*
 * kernels_gemm_half.c - products whose B is float16 or bfloat16, read in
 * place: c[i * ldc + j] = sum_kk a[i * ars + kk * acs] * B[kk, j], B the
 * 16-bit bit patterns at b[kk * brs + j * bcs], A and C float32. Each of
 * B's elements is widened where it is used, 16 at a time into a vector
 * register (AVX-512's or F16C's vcvtph2ps for float16; bfloat16 by a
 * 16-bit shift, which every path vectorises), and multiplied into float32
 * sums as PyTorch's CPU matmul accumulates half operands: no widened copy
 * of B is made, so a weight is read at its own two bytes per element, once
 * per product (decode's GEMV and the attention products over a half KV
 * cache, read through the cache's strides).
 *
 * Three paths, picked once by an ifunc (kernels_isa.h explains why the
 * resolver is not instrumented): AVX-512, AVX2 + FMA + F16C, and portable
 * C (float16 widened element by element: what CPUs without F16C and
 * non-x86 builds get). The shapes are tngrt_gemm_small_f32's: B's columns
 * contiguous (brs 1, acs 1: a Linear's weight [n, k] or k^T read in place;
 * under 8 rows of A one of B's columns at a time, one sequential stream;
 * from 8 rows eight columns at a time, prefetched ahead, then four; each
 * dotted with every row of A while it is in cache), B's rows contiguous
 * (bcs 1: att @ v over a cache's rows; a C row accumulates 64 or 16
 * columns in registers), any strides (scalar). Every path inlines the same
 * loops, so each sums in the same order (the portable one without FMAs).
 * Calls nothing in kernels_gemm.c (which calls this file).
 */
#include "tngrt_impl_base.h"

#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__)) && !defined(TNGRT_NO_ISA)
#define TNGRT_GEMMH_X86 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define TNGRT_GEMMH_X86 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TNGRT_GEMMH_VEC 1
#define TNGRT_GEMMH_INLINE static inline __attribute__((always_inline))
typedef float tngrt_gemmh__v16 __attribute__((vector_size(64)));
#define TNGRT_GEMMH__LD(v, p) memcpy(&(v), (p), sizeof(v))
#define TNGRT_GEMMH__ST(p, v) memcpy((p), &(v), sizeof(v))
/* x0..x3 += a[off..off+16) times the 16 weights at b0..b3 + off, each
 * widened by cvt into w (the 4-column loop below: av, v, w, ai, b0..b3) */
#define TNGRT_GEMMH__DOT4(off, x0, x1, x2, x3) do {                   \
        TNGRT_GEMMH__LD(av, ai + (off));                              \
        cvt(w, b0 + (off)); TNGRT_GEMMH__LD(v, w); (x0) += av * v;    \
        cvt(w, b1 + (off)); TNGRT_GEMMH__LD(v, w); (x1) += av * v;    \
        cvt(w, b2 + (off)); TNGRT_GEMMH__LD(v, w); (x2) += av * v;    \
        cvt(w, b3 + (off)); TNGRT_GEMMH__LD(v, w); (x3) += av * v;    \
    } while (0)
/* x += a[off..off+16) times the 16 weights at bj + off, widened by cvt
 * into w; A float32 at ai, or with adt (1 float16, 2 bfloat16) 16-bit at
 * ah, widened by cvta (the one-column loop: av, v, w, ai, ah, adt, cvta,
 * bj). adt is a constant where the loop is inlined. */
#define TNGRT_GEMMH__DOT1(off, x) do {                                \
        if (adt) {                                                    \
            cvta(w, ah + (off)); TNGRT_GEMMH__LD(av, w);              \
        } else {                                                      \
            TNGRT_GEMMH__LD(av, ai + (off));                          \
        }                                                             \
        cvt(w, bj + (off)); TNGRT_GEMMH__LD(v, w); (x) += av * v;     \
    } while (0)
#else
#define TNGRT_GEMMH_VEC 0
#define TNGRT_GEMMH_INLINE static inline
#endif

/* Multiply-adds as FMAs where the target has them, as the float32 small
 * products' are (kernels_gemm.c): within the matmul tolerance. */
#if defined(__clang__)
#define TNGRT_GEMMH__CONTRACT _Pragma("clang fp contract(fast)")
#else
#define TNGRT_GEMMH__CONTRACT
#endif

/* The one-column loop unrolled (the same sums in the same order: more of
 * B's loads in flight per iteration). */
#if defined(__clang__)
#define TNGRT_GEMMH__UNROLL _Pragma("clang loop unroll_count(8)")
#else
#define TNGRT_GEMMH__UNROLL
#endif

/* 16 consecutive half elements at s widened into d; d stays in registers
 * once inlined. One function per format and path. */
typedef void tngrt_gemmh__cvt_fn(float *d, const uint16_t *s);

TNGRT_GEMMH_INLINE void tngrt_gemmh__cvt_bf16(float *d, const uint16_t *s)
{
    for (int u = 0; u < 16; u++) {
        uint32_t w = (uint32_t)s[u] << 16;
        memcpy(d + u, &w, sizeof w);
    }
}

TNGRT_GEMMH_INLINE void tngrt_gemmh__cvt_f16_c(float *d, const uint16_t *s)
{
    for (int u = 0; u < 16; u++)
        d[u] = tngrt_impl__f16_to_f32(s[u]);
}

#if TNGRT_GEMMH_X86
#define TNGRT_GEMMH__T512 __attribute__((target("avx512f")))
#define TNGRT_GEMMH__T256 __attribute__((target("avx2,fma,f16c")))

TNGRT_GEMMH_INLINE TNGRT_GEMMH__T512 void tngrt_gemmh__cvt_f16_avx512(float *d, const uint16_t *s)
{
    _mm512_storeu_ps(d, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)s)));
}

TNGRT_GEMMH_INLINE TNGRT_GEMMH__T256 void tngrt_gemmh__cvt_f16_avx2(float *d, const uint16_t *s)
{
    _mm256_storeu_ps(d, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)s)));
    __m128i hi = _mm_loadu_si128((const __m128i *)(const void *)(s + 8));
    _mm256_storeu_ps(d + 8, _mm256_cvtph_ps(hi));
}

/* bfloat16 by the shift, in explicit zero-extensions (the portable loop
 * compiled slower: 6.4 against 9.6 GB/s on a [4096, 4096] GEMV). */
TNGRT_GEMMH_INLINE TNGRT_GEMMH__T512 void tngrt_gemmh__cvt_bf16_avx512(float *d, const uint16_t *s)
{
    __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)s));
    _mm512_storeu_ps(d, _mm512_castsi512_ps(_mm512_slli_epi32(w, 16)));
}

TNGRT_GEMMH_INLINE TNGRT_GEMMH__T256 void tngrt_gemmh__cvt_bf16_avx2(float *d, const uint16_t *s)
{
    __m256i w0 = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)s));
    __m256i w1 = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(s + 8)));
    _mm256_storeu_ps(d, _mm256_castsi256_ps(_mm256_slli_epi32(w0, 16)));
    _mm256_storeu_ps(d + 8, _mm256_castsi256_ps(_mm256_slli_epi32(w1, 16)));
}
#endif

/* One element of B widened (exactly, as tngrt_half_to_f32 does). */
TNGRT_GEMMH_INLINE float tngrt_gemmh__one(int bf16, uint16_t h)
{
    return bf16 ? tngrt_impl__bf16_to_f32(h) : tngrt_impl__f16_to_f32(h);
}

/* Element idx of A: float32 (adt 0), float16 (1) or bfloat16 (2), the
 * 16-bit ones widened exactly. */
TNGRT_GEMMH_INLINE float tngrt_gemmh__a1(int adt, const void *a, int64_t idx)
{
    if (adt == 0)
        return ((const float *)a)[idx];
    return tngrt_gemmh__one(adt == 2, ((const uint16_t *)a)[idx]);
}

/* One C element by the scalar loop (any strides): A of kind adt
 * (tngrt_gemmh__a1) from element a0 of a, acs apart. */
TNGRT_GEMMH_INLINE float tngrt_gemmh__dot_s(int bf16, int adt, int64_t k, const void *a,
                                            int64_t a0, int64_t acs, const uint16_t *b,
                                            int64_t brs)
{
    float s = 0.0f;
    for (int64_t kk = 0; kk < k; kk++)
        s += tngrt_gemmh__a1(adt, a, a0 + kk * acs) * tngrt_gemmh__one(bf16, b[kk * brs]);
    return s;
}

#if TNGRT_GEMMH_VEC

/* How far ahead of its reads the eight-column loop prefetches each of
 * its columns of B, in elements (512 bytes). A [4096, 4096] GEMV at one
 * row measured 12.5-13.5 GB/s without it, 15.9-16.2 with it (the float32
 * packed GEMV: 15.2-15.6), 15.3-15.9 at 512 or 1024 elements. */
#define TNGRT_GEMMH__AHEAD 256

/* Rows of A from which the dot form reads eight columns of B together
 * (A's row re-read once per eight columns rather than per column: the
 * prefill's in-place products, kernels_gemm.c); fewer read one column at
 * a time (tngrt_gemmh__dots1). */
#define TNGRT_GEMMH__ROWS 8

/* The sum of *v's lanes in order (by pointer: a vector argument would
 * change the ABI per target). */
TNGRT_GEMMH_INLINE float tngrt_gemmh__lanes(const tngrt_gemmh__v16 *v)
{
    float r = 0.0f;
    for (int u = 0; u < 16; u++)
        r += (*v)[u];
    return r;
}

/* The sum of *v's lanes as a tree: lanes u and u + 8 added, then u and
 * u + 4 of those, u and u + 2, the last two (the same scalar adds on
 * every path). */
TNGRT_GEMMH_INLINE float tngrt_gemmh__tree(const tngrt_gemmh__v16 *v)
{
    float x[16];
    TNGRT_GEMMH__ST(x, *v);
    for (int h = 8; h >= 1; h /= 2)
        for (int u = 0; u < h; u++)
            x[u] += x[u + h];
    return x[0];
}

/* brs 1, acs 1 and fewer than TNGRT_GEMMH__ROWS rows of A (decode's
 * GEMV): one column of B (a contiguous run of k: a weight's row) at a
 * time, dotted with every row of A while it is in cache, so B is read as
 * one sequential stream, which the hardware prefetcher follows at the
 * memory's bandwidth (eight columns read together, as the loop below
 * does, ran at 13-20 GB/s where one ran at 29-32 on the 2-core machine of
 * BENCHMARKS.md, [1024..2048, 1024..2048] float16 and bfloat16). Four
 * partial sums per column, lanes kk % 64 in [0, 16), [16, 32), [32, 48),
 * [48, 64) of each step of 64; then steps of 16 into the first; then
 * (s0 + s1) + (s2 + s3), its lanes as a tree (tngrt_gemmh__tree), and the
 * scalar tail in order.
 *
 * A is float32, or (adt 1 or 2) the float16 or bfloat16 activation
 * itself, widened in registers by cvta like B: the same values, so the
 * same sums and bits. Every column re-reads A's row, twice B's bytes
 * per column in float32, and from k of about 4096 a float32 row no longer
 * stays in L1 beside B's stream: a [2048, 5632] float16 GEMV read B at
 * 15 GB/s with a float32 A and at 28 GB/s with a float16 one, where
 * [2048, 2048] read at 24-27 either way (load average 5). */
TNGRT_GEMMH_INLINE void tngrt_gemmh__dots1(tngrt_gemmh__cvt_fn *cvt, int bf16,
                                           tngrt_gemmh__cvt_fn *cvta, int adt, int64_t m,
                                           int64_t n, int64_t k, const void *a, int64_t ars,
                                           const uint16_t *b, int64_t bcs, float *c, int64_t ldc)
{
    TNGRT_GEMMH__CONTRACT
    int64_t k64 = k / 64 * 64, k16 = k / 16 * 16;
    float w[16];
    for (int64_t j = 0; j < n; j++) {
        const uint16_t *bj = b + j * bcs;
        for (int64_t i = 0; i < m; i++) {
            const float *ai = adt ? NULL : (const float *)a + i * ars;
            const uint16_t *ah = adt ? (const uint16_t *)a + i * ars : NULL;
            const void *arow = adt ? (const void *)ah : (const void *)ai;
            tngrt_gemmh__v16 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, av, v;
            float r;
            int64_t kk = 0;
            TNGRT_GEMMH__UNROLL
            for (; kk < k64; kk += 64) {
                TNGRT_GEMMH__DOT1(kk, s0);
                TNGRT_GEMMH__DOT1(kk + 16, s1);
                TNGRT_GEMMH__DOT1(kk + 32, s2);
                TNGRT_GEMMH__DOT1(kk + 48, s3);
            }
            for (; kk < k16; kk += 16)
                TNGRT_GEMMH__DOT1(kk, s0);
            s0 = (s0 + s1) + (s2 + s3);
            r = tngrt_gemmh__tree(&s0);
            for (; kk < k; kk++)
                r += tngrt_gemmh__a1(adt, arow, kk) * tngrt_gemmh__one(bf16, bj[kk]);
            c[i * ldc + j] = r;
        }
    }
}

/* brs 1, acs 1: eight columns of B (contiguous runs of k) at a time, then
 * four, then one, each dotted with every row of A while they are in cache
 * (B read from memory once whatever m is); each widened vector of B serves
 * one multiply-add, each load of A's vector eight (or four). Eight: one
 * sum of 16 lanes per column, 32 elements a step with each column
 * prefetched TNGRT_GEMMH__AHEAD ahead, then 16, then the lanes in order,
 * then the scalar tail. Four: two partial sums per column (32 elements a
 * step), added, then a step of 16, the lanes, the tail. */
TNGRT_GEMMH_INLINE void tngrt_gemmh__dots(tngrt_gemmh__cvt_fn *cvt, int bf16, int64_t m, int64_t n,
                                          int64_t k, const float *a, int64_t ars,
                                          const uint16_t *b, int64_t bcs, float *c, int64_t ldc)
{
    TNGRT_GEMMH__CONTRACT
    int64_t k32 = k / 32 * 32, k16 = k / 16 * 16, j = 0;
    float w[16];
    for (; j + 8 <= n; j += 8) {
        const uint16_t *bj = b + j * bcs;
        for (int64_t i = 0; i < m; i++) {
            const float *ai = a + i * ars;
            tngrt_gemmh__v16 s[8] = {{0}}, av, v;
            float r[8];
            int64_t kk = 0;
            for (; kk < k32; kk += 32) {
                TNGRT_GEMMH__LD(av, ai + kk);
                for (int u = 0; u < 8; u++) {
                    __builtin_prefetch(bj + u * bcs + kk + TNGRT_GEMMH__AHEAD);
                    cvt(w, bj + u * bcs + kk);
                    TNGRT_GEMMH__LD(v, w);
                    s[u] += av * v;
                }
                TNGRT_GEMMH__LD(av, ai + kk + 16);
                for (int u = 0; u < 8; u++) {
                    cvt(w, bj + u * bcs + kk + 16);
                    TNGRT_GEMMH__LD(v, w);
                    s[u] += av * v;
                }
            }
            for (; kk < k16; kk += 16) {
                TNGRT_GEMMH__LD(av, ai + kk);
                for (int u = 0; u < 8; u++) {
                    cvt(w, bj + u * bcs + kk);
                    TNGRT_GEMMH__LD(v, w);
                    s[u] += av * v;
                }
            }
            for (int u = 0; u < 8; u++) {
                r[u] = tngrt_gemmh__lanes(&s[u]);
                for (int64_t q = kk; q < k; q++)
                    r[u] += ai[q] * tngrt_gemmh__one(bf16, bj[u * bcs + q]);
            }
            memcpy(c + i * ldc + j, r, sizeof r);
        }
    }
    for (; j + 4 <= n; j += 4) {
        const uint16_t *b0 = b + j * bcs, *b1 = b0 + bcs, *b2 = b1 + bcs, *b3 = b2 + bcs;
        for (int64_t i = 0; i < m; i++) {
            const float *ai = a + i * ars;
            tngrt_gemmh__v16 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, t0 = {0}, t1 = {0},
                             t2 = {0}, t3 = {0}, av, v;
            float r[4];
            int64_t kk = 0;
            for (; kk < k32; kk += 32) {
                TNGRT_GEMMH__DOT4(kk, s0, s1, s2, s3);
                TNGRT_GEMMH__DOT4(kk + 16, t0, t1, t2, t3);
            }
            for (; kk < k16; kk += 16) {
                TNGRT_GEMMH__DOT4(kk, s0, s1, s2, s3);
            }
            s0 += t0;
            s1 += t1;
            s2 += t2;
            s3 += t3;
            r[0] = tngrt_gemmh__lanes(&s0);
            r[1] = tngrt_gemmh__lanes(&s1);
            r[2] = tngrt_gemmh__lanes(&s2);
            r[3] = tngrt_gemmh__lanes(&s3);
            for (; kk < k; kk++) {
                r[0] += ai[kk] * tngrt_gemmh__one(bf16, b0[kk]);
                r[1] += ai[kk] * tngrt_gemmh__one(bf16, b1[kk]);
                r[2] += ai[kk] * tngrt_gemmh__one(bf16, b2[kk]);
                r[3] += ai[kk] * tngrt_gemmh__one(bf16, b3[kk]);
            }
            memcpy(c + i * ldc + j, r, sizeof r);
        }
    }
    for (; j < n; j++) {
        const uint16_t *bj = b + j * bcs;
        for (int64_t i = 0; i < m; i++) {
            const float *ai = a + i * ars;
            tngrt_gemmh__v16 s0 = {0}, av, v;
            float r;
            int64_t kk = 0;
            for (; kk < k16; kk += 16) {
                TNGRT_GEMMH__LD(av, ai + kk);
                cvt(w, bj + kk);
                TNGRT_GEMMH__LD(v, w);
                s0 += av * v;
            }
            r = tngrt_gemmh__lanes(&s0);
            for (; kk < k; kk++)
                r += ai[kk] * tngrt_gemmh__one(bf16, bj[kk]);
            c[i * ldc + j] = r;
        }
    }
}

/* bcs 1: each row of C accumulates rows of B (a[i][kk] times B's row kk),
 * 64 columns in four registers, then 16, then the scalar tail. */
TNGRT_GEMMH_INLINE void tngrt_gemmh__rows(tngrt_gemmh__cvt_fn *cvt, int bf16, int64_t m, int64_t n,
                                          int64_t k, const float *a, int64_t ars, int64_t acs,
                                          const uint16_t *b, int64_t brs, float *c, int64_t ldc)
{
    TNGRT_GEMMH__CONTRACT
    float w[16];
    for (int64_t i = 0; i < m; i++) {
        const float *ai = a + i * ars;
        float *ci = c + i * ldc;
        int64_t j = 0;
        for (; j + 64 <= n; j += 64) {
            tngrt_gemmh__v16 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, v;
            for (int64_t kk = 0; kk < k; kk++) {
                const uint16_t *bk = b + kk * brs + j;
                float x = ai[kk * acs];
                cvt(w, bk);
                TNGRT_GEMMH__LD(v, w);
                s0 += x * v;
                cvt(w, bk + 16);
                TNGRT_GEMMH__LD(v, w);
                s1 += x * v;
                cvt(w, bk + 32);
                TNGRT_GEMMH__LD(v, w);
                s2 += x * v;
                cvt(w, bk + 48);
                TNGRT_GEMMH__LD(v, w);
                s3 += x * v;
            }
            TNGRT_GEMMH__ST(ci + j, s0);
            TNGRT_GEMMH__ST(ci + j + 16, s1);
            TNGRT_GEMMH__ST(ci + j + 32, s2);
            TNGRT_GEMMH__ST(ci + j + 48, s3);
        }
        for (; j + 16 <= n; j += 16) {
            tngrt_gemmh__v16 s0 = {0}, v;
            for (int64_t kk = 0; kk < k; kk++) {
                cvt(w, b + kk * brs + j);
                TNGRT_GEMMH__LD(v, w);
                s0 += ai[kk * acs] * v;
            }
            TNGRT_GEMMH__ST(ci + j, s0);
        }
        for (; j < n; j++)
            ci[j] = tngrt_gemmh__dot_s(bf16, 0, k, ai, 0, acs, b + j, brs);
    }
}
#endif

/* The product on one path: cvt widens float16, cvtb bfloat16. */
TNGRT_GEMMH_INLINE void tngrt_gemmh__body(tngrt_gemmh__cvt_fn *cvt, tngrt_gemmh__cvt_fn *cvtb,
                                          int bf16, int adt, int64_t m, int64_t n, int64_t k,
                                          const void *av, int64_t ars, int64_t acs,
                                          const uint16_t *b, int64_t brs, int64_t bcs, float *c,
                                          int64_t ldc)
{
    const float *a = av;   /* adt 0 */
#if TNGRT_GEMMH_VEC
    if (brs == 1 && acs == 1 && k >= 16 && m < TNGRT_GEMMH__ROWS) {
        if (bf16 && adt == 0)
            tngrt_gemmh__dots1(cvtb, 1, cvt, 0, m, n, k, av, ars, b, bcs, c, ldc);
        else if (bf16 && adt == 1)
            tngrt_gemmh__dots1(cvtb, 1, cvt, 1, m, n, k, av, ars, b, bcs, c, ldc);
        else if (bf16)
            tngrt_gemmh__dots1(cvtb, 1, cvtb, 2, m, n, k, av, ars, b, bcs, c, ldc);
        else if (adt == 0)
            tngrt_gemmh__dots1(cvt, 0, cvt, 0, m, n, k, av, ars, b, bcs, c, ldc);
        else if (adt == 1)
            tngrt_gemmh__dots1(cvt, 0, cvt, 1, m, n, k, av, ars, b, bcs, c, ldc);
        else
            tngrt_gemmh__dots1(cvt, 0, cvtb, 2, m, n, k, av, ars, b, bcs, c, ldc);
        return;
    }
    /* a 16-bit A outside the GEMV's shape: the scalar loop below */
    if (adt == 0 && brs == 1 && acs == 1 && k >= 16) {
        if (bf16)
            tngrt_gemmh__dots(cvtb, 1, m, n, k, a, ars, b, bcs, c, ldc);
        else
            tngrt_gemmh__dots(cvt, 0, m, n, k, a, ars, b, bcs, c, ldc);
        return;
    }
    if (adt == 0 && bcs == 1 && n >= 16) {
        if (bf16)
            tngrt_gemmh__rows(cvtb, 1, m, n, k, a, ars, acs, b, brs, c, ldc);
        else
            tngrt_gemmh__rows(cvt, 0, m, n, k, a, ars, acs, b, brs, c, ldc);
        return;
    }
#else
    (void)cvt;
    (void)cvtb;
#endif
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            c[i * ldc + j] = tngrt_gemmh__dot_s(bf16, adt, k, av, i * ars, acs, b + j * bcs, brs);
    (void)a;
}

static void tngrt_gemmh__c(int bf16, int adt, int64_t m, int64_t n, int64_t k, const void *a,
                           int64_t ars, int64_t acs, const uint16_t *b, int64_t brs, int64_t bcs,
                           float *c, int64_t ldc)
{
    tngrt_gemmh__body(tngrt_gemmh__cvt_f16_c, tngrt_gemmh__cvt_bf16, bf16, adt, m, n, k, a, ars,
                      acs, b, brs, bcs, c, ldc);
}

#if TNGRT_GEMMH_X86
TNGRT_GEMMH__T512 static void tngrt_gemmh__avx512(int bf16, int adt, int64_t m, int64_t n,
                                                  int64_t k, const void *a, int64_t ars,
                                                  int64_t acs, const uint16_t *b, int64_t brs,
                                                  int64_t bcs, float *c, int64_t ldc)
{
    tngrt_gemmh__body(tngrt_gemmh__cvt_f16_avx512, tngrt_gemmh__cvt_bf16_avx512, bf16, adt, m, n,
                      k, a, ars, acs, b, brs, bcs, c, ldc);
}

TNGRT_GEMMH__T256 static void tngrt_gemmh__avx2(int bf16, int adt, int64_t m, int64_t n, int64_t k,
                                                const void *a, int64_t ars, int64_t acs,
                                                const uint16_t *b, int64_t brs, int64_t bcs,
                                                float *c, int64_t ldc)
{
    tngrt_gemmh__body(tngrt_gemmh__cvt_f16_avx2, tngrt_gemmh__cvt_bf16_avx2, bf16, adt, m, n, k, a,
                      ars, acs, b, brs, bcs, c, ldc);
}

/* Whether the CPU runs path isa: AVX2's needs FMA and F16C too (CPUID
 * leaf 1, ECX bit 29: clang 14's __builtin_cpu_supports has no "f16c").
 * Called by the resolver: not instrumented (kernels_isa.h). */
__attribute__((no_sanitize("address", "undefined"))) static int tngrt_gemmh__has(TngrtGemmIsa isa)
{
    unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
    __builtin_cpu_init();
    if (isa == TNGRT_GEMM_AVX512)
        return __builtin_cpu_supports("avx512f") != 0;
    if (isa == TNGRT_GEMM_AVX2)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
               __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx >> 29 & 1u);
    return 1;
}

__attribute__((used, no_sanitize("address", "undefined")))
static __typeof__(tngrt_gemmh__c) *tngrt_gemmh__resolve(void)
{
    if (tngrt_gemmh__has(TNGRT_GEMM_AVX512))
        return tngrt_gemmh__avx512;
    if (tngrt_gemmh__has(TNGRT_GEMM_AVX2))
        return tngrt_gemmh__avx2;
    return tngrt_gemmh__c;
}

static void tngrt_gemmh__best(int bf16, int adt, int64_t m, int64_t n, int64_t k, const void *a,
                              int64_t ars, int64_t acs, const uint16_t *b, int64_t brs,
                              int64_t bcs, float *c, int64_t ldc)
    __attribute__((ifunc("tngrt_gemmh__resolve")));

/* The named path's function (the portable one where the CPU lacks it). */
static __typeof__(tngrt_gemmh__c) *tngrt_gemmh__isa(TngrtGemmIsa isa)
{
    if (isa == TNGRT_GEMM_AVX512 && tngrt_gemmh__has(isa))
        return tngrt_gemmh__avx512;
    if (isa == TNGRT_GEMM_AVX2 && tngrt_gemmh__has(isa))
        return tngrt_gemmh__avx2;
    return tngrt_gemmh__c;
}
#else
#define tngrt_gemmh__best tngrt_gemmh__c

static __typeof__(tngrt_gemmh__c) *tngrt_gemmh__isa(TngrtGemmIsa isa)
{
    (void)isa;
    return tngrt_gemmh__c;
}
#endif

/* ---- few-row products on the run's threads (par.c) ---- */

/*
 * A product of fewer than 8 rows reads each element of B once for a few
 * multiply-adds: it is bound by reading B, and a second core adds read
 * bandwidth. One in the dot form (brs 1, acs 1, k >= 16: a weight) whose
 * B has at least TNGRT_GEMM_PAR_GEMV_BYTES bytes (with 8 rows or more: of
 * at least TNGRT_GEMM_PAR_FLOP flops, the GEMM's floor), called while a
 * pool is current, is cut into tasks of whole groups of 8 columns of C (the last
 * task takes the tail), which the pool's threads and the caller claim:
 * every column is summed by the same loop, in the same order, as in one
 * call (the groups of 8 fall where they do in one call), so the bits do
 * not depend on the threads. The floor is TNGRT_GEMM_PAR_GEMV_BYTES
 * (internal.h: measured there; the float32 GEMM's few-row split,
 * kernels_gemm.c, has its own). Above it, a product of fewer than 8 rows
 * splits where timing says it pays (tngrt__par_for_timed, one call site
 * per dtype and sizes); one of 8 rows or more always does.
 */
typedef struct TngrtGemmhJob {
    int bf16, adt;
    int64_t m, n, k, ars, acs, brs, bcs, ldc, cols, ntasks;   /* cols: C columns per task */
    const void *a;
    const uint16_t *b;
    float *c;
} TngrtGemmhJob;

static void tngrt_gemmh__task(void *ctx, int t)
{
    const TngrtGemmhJob *j = ctx;
    int64_t j0 = (int64_t)t * j->cols, nc = t == j->ntasks - 1 ? j->n - j0 : j->cols;
    tngrt_gemmh__best(j->bf16, j->adt, j->m, nc, j->k, j->a, j->ars, j->acs, j->b + j0 * j->bcs,
                      j->brs, j->bcs, j->c + j0, j->ldc);
}

/* The product with A of kind adt (0 float32, 1 float16, 2 bfloat16; a
 * 16-bit one only in the GEMV's shape or on the scalar loop) on the run's
 * threads where that pays (above). */
static void tngrt_gemmh__run(int bf16, int adt, int64_t m, int64_t n, int64_t k, const void *a,
                             int64_t ars, int64_t acs, const uint16_t *b, int64_t brs, int64_t bcs,
                             float *c, int64_t ldc)
{
    TngrtPar *p = tngrt__par_current();
    int64_t th = tngrt__par_threads(p), groups = n / 8, ntasks;
    TngrtGemmhJob j = {bf16, adt, m, n, k, ars, acs, brs, bcs, ldc, 0, 0, a, b, c};
    int split = th >= 2 && groups >= 2 && brs == 1 && acs == 1 && k >= 16 &&
                (m < 8 ? 2.0 * (double)n * (double)k >= TNGRT_GEMM_PAR_GEMV_BYTES
                       : 2.0 * (double)m * (double)n * (double)k >= TNGRT_GEMM_PAR_FLOP);
    j.ntasks = ntasks = split ? tngrt__par_cut(n, 8, th, TNGRT_GEMM_PAR_GEMV_TASKS, &j.cols) : 1;
    if (ntasks < 2) {
        tngrt_gemmh__best(bf16, adt, m, n, k, a, ars, acs, b, brs, bcs, c, ldc);
        return;
    }
    if (m < 8)   /* decode's GEMV: split where it is timed faster */
        tngrt__par_for_timed(p, tngrt__par_key(bf16 ? TNGRT_PAR_SITE_BF16 : TNGRT_PAR_SITE_F16,
                                               m, n, k),
                             (int)ntasks, tngrt_gemmh__task, &j);
    else
        tngrt__par_for(p, (int)ntasks, tngrt_gemmh__task, &j);
}

void tngrt_gemm_small_half(TngrtDType bdt, int64_t m, int64_t n, int64_t k, const float *a,
                           int64_t ars, int64_t acs, const uint16_t *b, int64_t brs, int64_t bcs,
                           float *c, int64_t ldc)
{
    if (m <= 0 || n <= 0 || (bdt != TNGRT_F16 && bdt != TNGRT_BF16))
        return;
    tngrt_gemmh__run(bdt == TNGRT_BF16, 0, m, n, k, a, ars, acs, b, brs, bcs, c, ldc);
}

void tngrt_gemm_small_half_isa(TngrtGemmIsa isa, TngrtDType bdt, int64_t m, int64_t n, int64_t k,
                               const float *a, int64_t ars, int64_t acs, const uint16_t *b,
                               int64_t brs, int64_t bcs, float *c, int64_t ldc)
{
    if (m <= 0 || n <= 0 || (bdt != TNGRT_F16 && bdt != TNGRT_BF16))
        return;
    tngrt_gemmh__isa(isa)(bdt == TNGRT_BF16, 0, m, n, k, a, ars, acs, b, brs, bcs, c, ldc);
}

/* Whether A's 16-bit elements are read in place: the GEMV's shape (the
 * one-column loop, tngrt_gemmh__dots1); elsewhere A is widened first. */
static int tngrt_gemmh__a16_in_place(int64_t m, int64_t k, int64_t acs, int64_t brs)
{
    return TNGRT_GEMMH_VEC && brs == 1 && acs == 1 && k >= 16 && m < TNGRT_GEMMH__ROWS;
}

void tngrt_gemm_small_half_a16(TngrtDType adt, TngrtDType bdt, int64_t m, int64_t n, int64_t k,
                               const uint16_t *a, int64_t ars, int64_t acs, const uint16_t *b,
                               int64_t brs, int64_t bcs, float *c, int64_t ldc)
{
    float *fa;
    int akind = adt == TNGRT_F16 ? 1 : 2;
    if (m <= 0 || n <= 0 || (bdt != TNGRT_F16 && bdt != TNGRT_BF16) ||
        (adt != TNGRT_F16 && adt != TNGRT_BF16))
        return;
    if (tngrt_gemmh__a16_in_place(m, k, acs, brs) || k <= 0 ||
        (uint64_t)m > SIZE_MAX / sizeof(float) / (uint64_t)k ||
        !(fa = malloc((size_t)(m * k) * sizeof(float)))) {
        /* in place; or, out of memory, the scalar loop reads it so */
        tngrt_gemmh__run(bdt == TNGRT_BF16, akind, m, n, k, a, ars, acs, b, brs, bcs, c, ldc);
        return;
    }
    for (int64_t i = 0; i < m; i++)
        tngrt_impl__widen_strided(fa + i * k, a + i * ars, acs, k, akind == 1);
    tngrt_gemmh__run(bdt == TNGRT_BF16, 0, m, n, k, fa, k, 1, b, brs, bcs, c, ldc);
    free(fa);
}

void tngrt_gemm_small_half_a16_isa(TngrtGemmIsa isa, TngrtDType adt, TngrtDType bdt, int64_t m,
                                   int64_t n, int64_t k, const uint16_t *a, int64_t ars,
                                   int64_t acs, const uint16_t *b, int64_t brs, int64_t bcs,
                                   float *c, int64_t ldc)
{
    if (m <= 0 || n <= 0 || (bdt != TNGRT_F16 && bdt != TNGRT_BF16) ||
        (adt != TNGRT_F16 && adt != TNGRT_BF16) || !tngrt_gemmh__a16_in_place(m, k, acs, brs))
        return;
    tngrt_gemmh__isa(isa)(bdt == TNGRT_BF16, adt == TNGRT_F16 ? 1 : 2, m, n, k, a, ars, acs, b,
                          brs, bcs, c, ldc);
}
