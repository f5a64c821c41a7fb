/*
 * test_rt_gemm.c - unit tests of the fast CPU kernel paths: pow with
 * integer and half-integer exponents, the vectorised tanh / log / erf /
 * exp of tngrt_kernel_unary, the online softmax and log-softmax, checked
 * against double-precision references computed here with libm at the
 * float32 conformance tolerance (|got - want| <= 1e-6 + 1e-5 |want|);
 * and the GEMM microkernels against a naive double loop.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "../../runtime/tngrt_kernels.h"

#include <pthread.h>

/* An operand over caller storage. */
static TngrtArg t_arg(void *data, TngrtDType dt, int ndim, const int64_t *shape)
{
    TngrtArg a = {data, dt, ndim, shape};
    return a;
}

/* Deterministic uniform floats in [lo, hi). */
static float t_rand(uint32_t *s, float lo, float hi)
{
    *s = *s * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(*s >> 8) / 16777216.0f;
}

/* Whether got matches want at the float32 tolerance (NaN only with NaN,
 * infinities equal). */
static int t_close(float got, double want)
{
    if (isnan(want))
        return isnan(got);
    if (isinf(want))
        return (double)got == want;
    return fabs((double)got - want) <= 1e-6 + 1e-5 * fabs(want);
}

/* Checks n results of a unary op against ref(x, p); prints the first miss. */
static void t_check_unary(TngrtUnaryOp op, double p, const float *x, int64_t n,
                          double (*ref)(double, double))
{
    float *o = malloc((size_t)n * sizeof *o);
    int64_t shape[1] = {n};
    TngrtArg ao = t_arg(o, TNGRT_F32, 1, shape), ax = t_arg((void *)x, TNGRT_F32, 1, shape);
    assert_non_null(o);
    tngrt_kernel_unary(&ao, &ax, op, p);
    for (int64_t i = 0; i < n; i++) {
        double w = ref((double)x[i], p);
        if (!t_close(o[i], w)) {
            fprintf(stderr, "op %d p %g: x %.9g got %.9g want %.9g\n", (int)op, p, x[i], o[i], w);
            fail();
        }
    }
    free(o);
}

/* powf, but +-0.5 as sqrt and 1 / sqrt (PyTorch 1.13's CPU pow: sqrt(-0)
 * is -0 and sqrt(-inf) NaN where powf gives +0 and +inf). */
static double r_pow(double x, double p)
{
    if (p == 0.5)
        return sqrt(x);
    if (p == -0.5)
        return 1.0 / sqrt(x);
    return (double)powf((float)x, (float)p);
}
static double r_tanh(double x, double p) { (void)p; return tanh(x); }
static double r_log(double x, double p) { (void)p; return log(x); }
static double r_erf(double x, double p) { (void)p; return erf(x); }
static double r_exp(double x, double p) { (void)p; return exp(x); }

/* A spread of inputs: random over several magnitudes plus specials. */
static int64_t t_inputs(float *x, int64_t cap, float lo, float hi)
{
    static const float sp[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 1e-30f, -1e-30f,
                               1e-3f, -1e-3f, 7.5f, -7.5f, 30.0f, -30.0f};
    uint32_t s = 12345u;
    int64_t n = 0;
    for (size_t i = 0; i < sizeof sp / sizeof sp[0] && n < cap; i++)
        if (sp[i] >= lo && sp[i] < hi)
            x[n++] = sp[i];
    while (n < cap) {
        float m = t_rand(&s, 0.0f, 1.0f);
        float v = t_rand(&s, lo, hi);
        x[n++] = m < 0.3f ? v * 1e-3f : v;
    }
    return n;
}

/* pow: every integer and half-integer exponent from -6 to 6, then 17 and
 * -33 (square and multiply), over values that do not overflow, plus the
 * specials (0, -0, inf, -inf, NaN) exponent by exponent. */
static void test_pow_exponents(void **state)
{
    float x[203];
    static const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -2.0f, 1.0f};
    (void)state;
    int64_t n = t_inputs(x, 203, -3.0f, 3.0f);
    for (int k = -12; k <= 12; k++)
        t_check_unary(TNGRT_UN_POW, k * 0.5, x, n, r_pow);
    t_inputs(x, 203, 0.5f, 1.5f);
    t_check_unary(TNGRT_UN_POW, 17.0, x, n, r_pow);
    t_check_unary(TNGRT_UN_POW, -33.0, x, n, r_pow);
    t_check_unary(TNGRT_UN_POW, 2.5, x, n, r_pow);
    for (int k = -7; k <= 7; k++)
        t_check_unary(TNGRT_UN_POW, k * 0.5, sp, 7, r_pow);
    t_check_unary(TNGRT_UN_POW, 1.3, x, n, r_pow);   /* not a kind: powf */
}

/* tanh, log, erf, exp over wide ranges and their specials. */
static void test_math_vectorised(void **state)
{
    enum { N = 4001 };
    static float x[N];
    static const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f,
                               1e-40f, 3.4e38f, -3.4e38f, 0.625f, -0.625f};
    (void)state;
    t_inputs(x, N, -12.0f, 12.0f);
    t_check_unary(TNGRT_UN_TANH, 0, x, N, r_tanh);
    t_check_unary(TNGRT_UN_TANH, 0, sp, 12, r_tanh);
    t_check_unary(TNGRT_UN_ERF, 0, x, N, r_erf);
    t_check_unary(TNGRT_UN_ERF, 0, sp, 12, r_erf);
    t_check_unary(TNGRT_UN_EXP, 0, x, N, r_exp);
    t_inputs(x, N, 0.0f, 100.0f);
    t_check_unary(TNGRT_UN_LOG, 0, x, N, r_log);
    t_check_unary(TNGRT_UN_LOG, 0, sp, 12, r_log);
    for (int i = 0; i < N; i++)   /* around 1, where log is small */
        x[i] = 0.99f + 0.02f * (float)i / N;
    t_check_unary(TNGRT_UN_LOG, 0, x, N, r_log);
    for (int i = 0; i < N; i++)   /* subnormals and tiny normals */
        x[i] = ldexpf(1.0f + (float)i / N, -140 + i % 30);
    t_check_unary(TNGRT_UN_LOG, 0, x, N, r_log);
}

/* Softmax and log-softmax of rows of many lengths (chunked above 4096)
 * against a double reference; rows with -inf (masked), all -inf and NaN.
 * Rows shorter than 128 come 500 at a time: the short-row path works on
 * blocks of 2048 / len rows, so a length of 7 or more spans blocks. */
static void test_softmax_online(void **state)
{
    static const int64_t lens[] = {1, 2, 7, 15, 16, 17, 63, 64, 65, 100, 1023, 4096, 4097, 9000};
    uint32_t s = 7u;
    (void)state;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        int64_t len = lens[li], rows = len < 128 ? 500 : 5, shape[2] = {rows, len};
        float *x = malloc((size_t)(rows * len) * sizeof *x);
        float *o = malloc((size_t)(rows * len) * sizeof *o);
        assert_non_null(x);
        assert_non_null(o);
        for (int64_t i = 0; i < rows * len; i++)
            x[i] = t_rand(&s, -20.0f, 20.0f);
        for (int64_t j = 0; j < len; j++) {
            x[1 * len + j] = j < len / 2 ? -INFINITY : x[1 * len + j];   /* masked front */
            x[2 * len + j] = -INFINITY;
            x[4 * len + j] = j % 3 ? x[4 * len + j] : -INFINITY;
        }
        x[3 * len + len / 2] = NAN;
        for (int lg = 0; lg < 2; lg++) {
            TngrtArg ao = t_arg(o, TNGRT_F32, 2, shape), ax = t_arg(x, TNGRT_F32, 2, shape);
            tngrt_kernel_softmax(&ao, &ax, 1, lg);
            for (int64_t r = 0; r < rows; r++) {
                const float *xr = x + r * len;
                double mx = -INFINITY, sum = 0.0;
                int nan = 0;
                for (int64_t j = 0; j < len; j++) {
                    nan |= isnan(xr[j]);
                    mx = xr[j] > mx ? xr[j] : mx;
                }
                for (int64_t j = 0; j < len; j++)
                    sum += exp((double)xr[j] - mx);
                for (int64_t j = 0; j < len; j++) {
                    double d = (double)xr[j] - mx;
                    double w = nan || mx == -INFINITY ? NAN : lg ? d - log(sum) : exp(d) / sum;
                    if (!t_close(o[r * len + j], w)) {
                        fprintf(stderr, "softmax len %lld row %lld log %d j %lld: %.9g vs %.9g\n",
                                (long long)len, (long long)r, lg, (long long)j,
                                o[r * len + j], w);
                        fail();
                    }
                }
            }
        }
        free(x);
        free(o);
    }
}

/* C [m, n] (ldc apart) of path isa against a double loop over A (ars,
 * acs) and B (brs, bcs) plus the row bias (NULL: none), within 1e-6 of
 * the sum of the terms' magnitudes. */
static void t_check_product(const char *what, int isa, int mode, int m, int n, int k,
                            const float *a, int64_t ars, int64_t acs, const float *b,
                            int64_t brs, int64_t bcs, const float *bias, const float *c,
                            int64_t ldc)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double w = bias ? bias[j] : 0.0, sa = 0.0;
            for (int kk = 0; kk < k; kk++) {
                w += (double)a[i * ars + kk * acs] * b[kk * brs + j * bcs];
                sa += fabs((double)a[i * ars + kk * acs] * b[kk * brs + j * bcs]);
            }
            if (fabs(c[i * ldc + j] - w) > 1e-6 * (sa + 1.0)) {
                fprintf(stderr, "%s path %d m %d n %d k %d mode %d (%d, %d): %.9g vs %.9g\n",
                        what, isa, m, n, k, mode, i, j, c[i * ldc + j], w);
                fail();
            }
        }
}

/* The microkernel paths against a naive double loop: every path this CPU
 * runs, odd M, N, K from 1 to 67, A row-major or transposed (read through
 * strides), B row-major or transposed when packed, with and without a row
 * bias; C written with a leading dimension wider than N (the padding must
 * stay untouched). */
static void test_gemm_paths(void **state)
{
    static const int ms[] = {1, 2, 3, 4, 5, 6, 7, 8, 13, 17, 31, 67};
    static const int ns[] = {1, 2, 5, 8, 15, 16, 17, 31, 32, 33, 47, 64, 67};
    static const int ks[] = {1, 2, 3, 7, 16, 33, 67};
    enum { MX = 67 };
    static float a[MX * MX], b[MX * MX], bias[MX], c[MX * (MX + 3)], bp[3 * 32 * MX];
    uint32_t s = 99u;
    int checked = 0;
    (void)state;
    for (int i = 0; i < MX * MX; i++) {
        a[i] = t_rand(&s, -1.0f, 1.0f);
        b[i] = t_rand(&s, -1.0f, 1.0f);
    }
    for (int i = 0; i < MX; i++)
        bias[i] = t_rand(&s, -1.0f, 1.0f);
    for (int isa = TNGRT_GEMM_PORTABLE; isa <= TNGRT_GEMM_AVX512; isa++) {
        if (!tngrt_gemm_isa_available((TngrtGemmIsa)isa)) {
            fprintf(stderr, "gemm path %d: not on this CPU, skipped\n", isa);
            continue;
        }
        for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
        for (int mode = 0; mode < 4; mode++) {
            int m = ms[mi], n = ns[ni], k = ks[ki], ta = mode & 1, tb = (mode >> 1) & 1;
            int64_t ars = ta ? 1 : k, acs = ta ? m : 1, brs = tb ? 1 : n, bcs = tb ? k : 1;
            int64_t ldc = n + 3, shape[1] = {MX * MX};
            const float *bi = (mode == 1 || mode == 2) ? bias : NULL;
            TngrtArg ab = t_arg(b, TNGRT_F32, 1, shape);
            assert_true(tngrt_gemm_packed_size(n, k) <= 3 * 32 * MX);
            tngrt_gemm_pack_b(bp, &ab, 0, brs, bcs, k, n);
            for (int i = 0; i < MX * (MX + 3); i++)
                c[i] = 12345.0f;
            tngrt_gemm_f32_isa((TngrtGemmIsa)isa, m, n, k, a, ars, acs, bp, c, ldc, bi);
            t_check_product("gemm", isa, mode, m, n, k, a, ars, acs, b, brs, bcs, bi, c, ldc);
            for (int i = 0; i < m; i++) {
                for (int j = n; j < ldc; j++)
                    assert_true(c[i * ldc + j] == 12345.0f);
            }
            checked++;
        }
    }
    assert_true(checked > 0);
}

/* The unpacked few-row kernel (tngrt_gemm_small_f32) on every path this
 * CPU runs against a naive double loop: M 1..7, N and K across the vector
 * widths and tails, A row-major or transposed, B row-major (axpy form),
 * transposed (dot form) or read with neither stride 1 (scalar form); C's
 * padding beyond N untouched. */
static void test_gemm_small(void **state)
{
    static const int ns[] = {1, 3, 4, 15, 16, 17, 33, 64, 65, 130};
    static const int ks[] = {1, 5, 16, 17, 40, 64};
    enum { MX = 130, LD = MX + 3 };
    static float a[2 * MX * MX], b[2 * MX * MX], c[8 * LD];
    uint32_t s = 7u;
    int checked = 0;
    (void)state;
    for (int i = 0; i < 2 * MX * MX; i++) {
        a[i] = t_rand(&s, -1.0f, 1.0f);
        b[i] = t_rand(&s, -1.0f, 1.0f);
    }
    for (int isa = TNGRT_GEMM_PORTABLE; isa <= TNGRT_GEMM_AVX512; isa++) {
        if (!tngrt_gemm_isa_available((TngrtGemmIsa)isa))
            continue;
        for (int m = 1; m < 8; m++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
        for (int mode = 0; mode < 6; mode++) {
            int n = ns[ni], k = ks[ki], ta = mode & 1, bm = mode >> 1;
            int64_t ars = ta ? 1 : k, acs = ta ? m : 1;
            int64_t brs = bm == 0 ? n : bm == 1 ? 1 : 2 * n, bcs = bm == 0 ? 1 : bm == 1 ? k : 2;
            for (int i = 0; i < 8 * LD; i++)
                c[i] = 12345.0f;
            tngrt_gemm_small_f32_isa((TngrtGemmIsa)isa, m, n, k, a, ars, acs, b, brs, bcs, c, LD);
            t_check_product("small", isa, mode, m, n, k, a, ars, acs, b, brs, bcs, NULL, c, LD);
            for (int i = 0; i < m; i++) {
                for (int j = n; j < LD; j++)
                    assert_true(c[i * LD + j] == 12345.0f);
            }
            checked++;
        }
    }
    assert_true(checked > 0);
}

/* The narrow products (at least 8 rows, at most 16 columns, at most 128
 * deep: attention's per-head q @ k^T and att @ v) that tngrt_gemm_small_f32
 * runs from one 16-column panel on the stack, on every path this CPU runs,
 * against a naive double loop: row counts that leave 0..3 rows for the
 * last group of four, A and B in every stride form; C's rows past M and
 * columns past N untouched; and the shapes just outside the path keep
 * packing (tngrt_gemm_small_pays). */
static void test_gemm_tiny(void **state)
{
    static const int ms[] = {8, 9, 10, 11, 13, 20, 37};
    static const int ns[] = {1, 5, 10, 15, 16};
    static const int ks[] = {1, 7, 16, 33, 128};
    enum { MX = 128, LD = 19, MR = 40 };
    static float a[2 * MX * MX], b[2 * MX * MX], c[MR * LD];
    uint32_t s = 11u;
    int checked = 0;
    (void)state;
    assert_true(tngrt_gemm_small_pays(10, 10, 16));
    assert_true(tngrt_gemm_small_pays(64, 16, 128));
    assert_false(tngrt_gemm_small_pays(10, 17, 16));
    assert_false(tngrt_gemm_small_pays(10, 16, 129));
    for (int i = 0; i < 2 * MX * MX; i++) {
        a[i] = t_rand(&s, -1.0f, 1.0f);
        b[i] = t_rand(&s, -1.0f, 1.0f);
    }
    for (int isa = TNGRT_GEMM_PORTABLE; isa <= TNGRT_GEMM_AVX512; isa++) {
        if (!tngrt_gemm_isa_available((TngrtGemmIsa)isa))
            continue;
        for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
        for (int mode = 0; mode < 6; mode++) {
            int m = ms[mi], n = ns[ni], k = ks[ki], ta = mode & 1, bm = mode >> 1;
            int64_t ars = ta ? 1 : k, acs = ta ? m : 1;
            int64_t brs = bm == 0 ? n : bm == 1 ? 1 : 2 * n, bcs = bm == 0 ? 1 : bm == 1 ? k : 2;
            assert_true(tngrt_gemm_small_pays(m, n, k));
            for (int i = 0; i < MR * LD; i++)
                c[i] = 12345.0f;
            tngrt_gemm_small_f32_isa((TngrtGemmIsa)isa, m, n, k, a, ars, acs, b, brs, bcs, c, LD);
            t_check_product("tiny", isa, mode, m, n, k, a, ars, acs, b, brs, bcs, NULL, c, LD);
            for (int i = 0; i < MR; i++)   /* rows past M and columns past N untouched */
                for (int j = i < m ? n : 0; j < LD; j++)
                    assert_true(c[i * LD + j] == 12345.0f);
            checked++;
        }
    }
    assert_true(checked > 0);
}

/* Rounds x to float16 and back (normal range; ties to even). */
static uint16_t t_f16(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    uint32_t sg = (u >> 16) & 0x8000u, e = (u >> 23) & 0xffu, mnt = u & 0x7fffffu;
    if (e < 113)
        return (uint16_t)sg;   /* tiny: zero (test data stays normal) */
    uint32_t r = ((e - 112u) << 10) | (mnt >> 13), rem = mnt & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1u)))
        r++;
    return (uint16_t)(sg | r);
}

/* The inverse of t_f16. */
static float t_f16_to_f32(uint16_t h)
{
    uint32_t e = (h >> 10) & 0x1fu, u = ((uint32_t)(h & 0x8000u) << 16) | ((e + 112u) << 23) |
                                        ((uint32_t)(h & 0x3ffu) << 13);
    float f;
    if (e == 0)
        return (h & 0x8000u) ? -0.0f : 0.0f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* tngrt_kernel_matmul_strided against a naive loop over the same views:
 * attention's q @ k^T with k a permuted [b, s, h, d] cache, att @ v with v
 * permuted, a GQA-style broadcast batch ([b, 1, s, d] against [b, h, ...]),
 * 3-d by 2-d, and a transposed 2-d pair; few rows (unpacked kernel) and
 * many (packed); float32 and float16 operands and outputs. */
static void test_matmul_strided(void **state)
{
    /* {ndim, out shape[4], a shape, a strides, b shape, b strides} */
    struct Case {
        int nd, an, bn;
        int64_t os[4], ash[4], ast[4], bsh[4], bst[4];
    };
    static const struct Case cs[] = {
        /* q [2,4,1,16] @ k^T: k cache [2, 9, 4, 16] viewed [2,4,16,9] */
        {4, 4, 4, {2, 4, 1, 9}, {2, 4, 1, 16}, {64, 16, 16, 1}, {2, 4, 16, 9}, {576, 16, 1, 64}},
        /* att [2,4,1,9] @ v: v cache [2, 9, 4, 16] viewed [2,4,9,16] */
        {4, 4, 4, {2, 4, 1, 16}, {2, 4, 1, 9}, {36, 9, 9, 1}, {2, 4, 9, 16}, {576, 16, 64, 1}},
        /* q [2,4,12,16] @ k^T (many rows: packed), k broadcast over heads */
        {4, 4, 4, {2, 4, 12, 9}, {2, 4, 12, 16}, {768, 192, 16, 1}, {2, 1, 16, 9}, {144, 144, 1, 16}},
        /* 3-d by 2-d, A transposed per batch */
        {3, 3, 2, {3, 10, 7}, {3, 10, 5}, {50, 1, 10}, {5, 7}, {7, 1}},
        /* 2-d transposed both */
        {2, 2, 2, {3, 33}, {3, 20}, {1, 3}, {20, 33}, {1, 20}},
    };
    uint32_t s = 11u;
    (void)state;
    for (size_t ci = 0; ci < sizeof cs / sizeof cs[0]; ci++)
    for (int half = 0; half < 2; half++) {
        const struct Case *q = &cs[ci];
        int64_t asz = 1, bsz = 1, on = 1;
        /* storage extents: the largest offset + 1 */
        for (int d = 0; d < q->an; d++)
            asz += (q->ash[d] - 1) * q->ast[d];
        for (int d = 0; d < q->bn; d++)
            bsz += (q->bsh[d] - 1) * q->bst[d];
        for (int d = 0; d < q->nd; d++)
            on *= q->os[d];
        float *a = malloc((size_t)asz * sizeof *a), *b = malloc((size_t)bsz * sizeof *b);
        float *o = malloc((size_t)on * sizeof *o);
        uint16_t *ah = malloc((size_t)asz * 2), *bh = malloc((size_t)bsz * 2), *oh = malloc((size_t)on * 2);
        assert_true(a && b && o && ah && bh && oh);
        for (int64_t i = 0; i < asz; i++) {
            ah[i] = t_f16(t_rand(&s, -1.0f, 1.0f));
            a[i] = t_f16_to_f32(ah[i]);
        }
        for (int64_t i = 0; i < bsz; i++) {
            bh[i] = t_f16(t_rand(&s, -1.0f, 1.0f));
            b[i] = t_f16_to_f32(bh[i]);
        }
        TngrtArg ao = t_arg(half ? (void *)oh : (void *)o, half ? TNGRT_F16 : TNGRT_F32, q->nd, q->os);
        TngrtArg aa = t_arg(half ? (void *)ah : (void *)a, half ? TNGRT_F16 : TNGRT_F32, q->an, q->ash);
        TngrtArg ab = t_arg(half ? (void *)bh : (void *)b, half ? TNGRT_F16 : TNGRT_F32, q->bn, q->bsh);
        tngrt_kernel_matmul_strided(&ao, &aa, q->ast, &ab, q->bst);
        int64_t m = q->os[q->nd - 2], n = q->os[q->nd - 1], k = q->ash[q->an - 1];
        int64_t nbatch = on / (m * n);
        for (int64_t t = 0; t < nbatch; t++) {
            /* the batch index, and each operand's batch offset (broadcast) */
            int64_t rem = t, aoff = 0, boff = 0;
            for (int d = q->nd - 3; d >= 0; d--) {
                int64_t ix = rem % q->os[d];
                int da = d - (q->nd - q->an), db = d - (q->nd - q->bn);
                rem /= q->os[d];
                if (da >= 0 && q->ash[da] > 1)
                    aoff += ix * q->ast[da];
                if (db >= 0 && q->bsh[db] > 1)
                    boff += ix * q->bst[db];
            }
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < n; j++) {
                    double w = 0.0, sa = 0.0;
                    for (int64_t kk = 0; kk < k; kk++) {
                        double x = (double)a[aoff + i * q->ast[q->an - 2] + kk * q->ast[q->an - 1]] *
                                   b[boff + kk * q->bst[q->bn - 2] + j * q->bst[q->bn - 1]];
                        w += x;
                        sa += fabs(x);
                    }
                    int64_t oi = (t * m + i) * n + j;
                    double got = half ? t_f16_to_f32(oh[oi]) : o[oi];
                    double tol = half ? 1e-3 * (fabs(w) + 1e-2) + 1e-5 * sa : 1e-6 * (sa + 1.0);
                    if (fabs(got - w) > tol) {
                        fprintf(stderr, "strided case %zu half %d [%lld] (%lld, %lld): %.9g vs %.9g\n",
                                ci, half, (long long)t, (long long)i, (long long)j, got, w);
                        fail();
                    }
                }
        }
        free(a); free(b); free(o); free(ah); free(bh); free(oh);
    }
}

/* Packing float16 and bfloat16 B widens exactly. */
static void test_gemm_pack_half(void **state)
{
    uint16_t h[6] = {0x3c00u, 0xc000u, 0x0001u, 0x7c00u, 0x3555u, 0x8000u};   /* f16 */
    uint16_t bf[6] = {0x3f80u, 0xc000u, 0x0001u, 0x7f80u, 0x3eaau, 0x8000u};  /* bf16 */
    const float fh[6] = {1.0f, -2.0f, 0x1p-24f, INFINITY, 0x1.554p-2f, -0.0f};
    float bp[32 * 2];
    int64_t shape[1] = {6};
    TngrtArg ah = t_arg(h, TNGRT_F16, 1, shape), ab = t_arg(bf, TNGRT_BF16, 1, shape);
    (void)state;
    tngrt_gemm_pack_b(bp, &ah, 0, 3, 1, 2, 3);
    for (int kk = 0; kk < 2; kk++)
        for (int j = 0; j < 3; j++)
            assert_true(bp[kk * 32 + j] == fh[kk * 3 + j]);
    assert_true(bp[3] == 0.0f && bp[32 + 31] == 0.0f);
    tngrt_gemm_pack_b(bp, &ab, 0, 3, 1, 2, 3);
    assert_true(bp[0] == 1.0f && bp[1] == -2.0f && bp[3 * 0 + 32] == INFINITY);
    assert_true(bp[32 + 1] == 0x1.54p-2f);
}

/* A Linear's weight [n, k] packed as B = w^T (rs 1, cs k: whole 16 x 32
 * tiles through the AVX-512 transposes where the CPU has them, the edges
 * element by element), float32 and both half types, against each
 * element widened on its own: same bits, zero padding; sizes with and
 * without partial tiles and panels. */
static void test_gemm_pack_transposed(void **state)
{
    const int64_t ks[] = {5, 16, 37, 64}, ns[] = {7, 32, 45, 96};
    const TngrtDType dts[] = {TNGRT_F32, TNGRT_F16, TNGRT_BF16};
    uint32_t seed = 12345u;
    (void)state;
    for (int di = 0; di < 3; di++)
        for (int a = 0; a < 4; a++)
            for (int c = 0; c < 4; c++) {
                int64_t k = ks[a], n = ns[c], size = tngrt_gemm_packed_size(n, k);
                int64_t shape[1] = {n * k};
                float *wf = malloc((size_t)(n * k) * sizeof(float));
                uint16_t *wh = malloc((size_t)(n * k) * sizeof(uint16_t));
                float *bp = malloc((size_t)size * sizeof(float));
                assert_non_null(wf);
                assert_non_null(wh);
                assert_non_null(bp);
                for (int64_t i = 0; i < n * k; i++) {
                    seed = seed * 1103515245u + 12345u;
                    uint16_t h = (uint16_t)(seed >> 8);
                    /* every finite pattern (subnormals included), no NaN or inf */
                    if (dts[di] == TNGRT_F16 && (h & 0x7c00u) == 0x7c00u)
                        h &= 0xbfffu;
                    if (dts[di] == TNGRT_BF16 && (h & 0x7f80u) == 0x7f80u)
                        h &= 0xbfffu;
                    wh[i] = h;
                    wf[i] = (float)(int)(seed % 2001u) / 7.0f - 100.0f;
                }
                TngrtArg w = t_arg(dts[di] == TNGRT_F32 ? (void *)wf : (void *)wh, dts[di], 1,
                                   shape);
                memset(bp, 0xff, (size_t)size * sizeof(float));
                tngrt_gemm_pack_b(bp, &w, 0, 1, k, k, n);
                for (int64_t j = 0; j < (n + 31) / 32 * 32; j++)
                    for (int64_t kk = 0; kk < k; kk++) {
                        float want = 0.0f, got = bp[j / 32 * 32 * k + kk * 32 + j % 32];
                        if (j < n && dts[di] == TNGRT_F32)
                            want = wf[j * k + kk];
                        else if (j < n)
                            tngrt_half_to_f32(dts[di], wh + j * k + kk, &want, 1);
                        assert_memory_equal(&got, &want, sizeof got);
                    }
                free(wf);
                free(wh);
                free(bp);
            }
}

/* A Linear through a weight packed as a bundle packs it at load
 * (tngrt_gemm_pack_weight, tngrt_kernel_linear_packed) against a double
 * reference, float32 and bfloat16 weights, with and without bias, small
 * and large (OpenBLAS's range when unpacked); wp NULL is plain linear. */
static void test_linear_packed(void **state)
{
    static const int shp[][3] = {{1, 5, 3}, {7, 33, 40}, {20, 64, 64}, {3, 70, 1}, {64, 96, 80}};
    uint32_t s = 5u;
    (void)state;
    for (size_t si = 0; si < sizeof shp / sizeof shp[0]; si++)
    for (int bf = 0; bf < 2; bf++)
    for (int hb = 0; hb < 2; hb++)
    for (int pk = 0; pk < 2; pk++) {
        int m = shp[si][0], k = shp[si][1], n = shp[si][2];
        float *x = malloc((size_t)m * k * sizeof *x), *w = malloc((size_t)n * k * sizeof *w);
        float *b = malloc((size_t)n * sizeof *b), *o = malloc((size_t)m * n * sizeof *o);
        uint16_t *wh = malloc((size_t)n * k * sizeof *wh);
        float *wp = NULL;
        int64_t xs[2] = {m, k}, ws[2] = {n, k}, bs[1] = {n}, os[2] = {m, n};
        assert_true(x && w && b && o && wh);
        for (int i = 0; i < m * k; i++)
            x[i] = t_rand(&s, -1.0f, 1.0f);
        for (int i = 0; i < n * k; i++) {
            float v = t_rand(&s, -1.0f, 1.0f);
            uint32_t u;
            memcpy(&u, &v, sizeof u);
            wh[i] = (uint16_t)(u >> 16);   /* truncated: exact in bfloat16 */
            u = (uint32_t)wh[i] << 16;
            memcpy(&w[i], &u, sizeof u);
        }
        for (int i = 0; i < n; i++)
            b[i] = t_rand(&s, -1.0f, 1.0f);
        TngrtArg ax = t_arg(x, TNGRT_F32, 2, xs), aw = t_arg(bf ? (void *)wh : (void *)w,
                                                             bf ? TNGRT_BF16 : TNGRT_F32, 2, ws);
        TngrtArg ab = t_arg(b, TNGRT_F32, 1, bs), ao = t_arg(o, TNGRT_F32, 2, os);
        if (pk)
            assert_true(tngrt_gemm_pack_weight(&wp, aw.data, aw.dtype, n, k) ==
                        tngrt_gemm_packed_size(n, k));
        tngrt_kernel_linear_packed(&ao, &ax, &aw, hb ? &ab : NULL, wp);
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                double want = hb ? b[j] : 0.0;
                for (int kk = 0; kk < k; kk++)
                    want += (double)x[i * k + kk] * w[j * k + kk];
                if (fabs(o[i * n + j] - want) > 1e-4 + 1e-4 * fabs(want)) {
                    fprintf(stderr, "linear m %d k %d n %d bf %d bias %d packed %d: %g vs %g\n",
                            m, k, n, bf, hb, pk, o[i * n + j], want);
                    fail();
                }
            }
        free(wp);
        free(x);
        free(w);
        free(b);
        free(o);
        free(wh);
    }
}

/* tngrt__par_for: every task runs exactly once, on any number of threads,
 * with more tasks than threads and fewer; a pool of one thread is none. */
typedef struct TParCount {
    int n;
    int hits[64];
    pthread_mutex_t mu;
} TParCount;

static void t_par_count(void *ctx, int t)
{
    TParCount *c = ctx;
    pthread_mutex_lock(&c->mu);
    c->hits[t]++;
    pthread_mutex_unlock(&c->mu);
}

static void test_par_for(void **state)
{
    (void)state;
    assert_null(tngrt__par_new(1));
    for (int th = 2; th <= 5; th++) {
        TngrtPar *p = tngrt__par_new(th);
        assert_non_null(p);
        assert_int_equal(tngrt__par_threads(p), th);
        for (int rep = 0; rep < 50; rep++) {
            TParCount c = {.n = 1 + (rep * 7 + th) % 64};
            pthread_mutex_init(&c.mu, NULL);
            tngrt__par_for(p, c.n, t_par_count, &c);
            for (int t = 0; t < 64; t++)
                assert_int_equal(c.hits[t], t < c.n ? 1 : 0);
            pthread_mutex_destroy(&c.mu);
        }
        tngrt__par_delete(p);
    }
}

/* A product big enough to be split (2 m n k >= 2^23 flops), B packed, an
 * epilogue with a full-tensor operand, a row operand, a scalar and an
 * activation; every ISA path: with pools of 2..4 threads current the
 * result has the bits of the call with none, and is the product. Also two
 * threads sharing one pool at once (one of them runs its tasks alone). */
typedef struct TGemmCall {
    int isa, m, n, k;
    const float *a, *bp, *bias;
    float *c;
    const TngrtGemmEpi *epi;
    TngrtPar *pool;
} TGemmCall;

static void t_gemm_call(const TGemmCall *g)
{
    TngrtPar *prev = tngrt__par_enter(g->pool);
    tngrt_gemm_f32_epi_isa(g->isa, g->m, g->n, g->k, g->a, g->k, 1, g->bp, g->c, g->n, g->bias,
                           g->epi);
    tngrt__par_enter(prev);
}

static void *t_gemm_thread(void *arg)
{
    t_gemm_call(arg);
    return NULL;
}

static void test_gemm_threads(void **state)
{
    enum { M = 67, N = 300, K = 257 };
    static const TngrtGemmIsa isas[] = {TNGRT_GEMM_PORTABLE, TNGRT_GEMM_AVX2, TNGRT_GEMM_AVX512};
    uint32_t s = 77u;
    float *a = malloc((size_t)M * K * sizeof *a), *b = malloc((size_t)K * N * sizeof *b);
    float *x = malloc((size_t)M * N * sizeof *x), *row = malloc((size_t)N * sizeof *row);
    float *bias = malloc((size_t)N * sizeof *bias), *bp = malloc(
        (size_t)tngrt_gemm_packed_size(N, K) * sizeof *bp);
    float *c0 = malloc((size_t)M * N * sizeof *c0), *c1 = malloc((size_t)M * N * sizeof *c1);
    float *c2 = malloc((size_t)M * N * sizeof *c2);
    int64_t bsh[2] = {K, N};
    (void)state;
    assert_true(a && b && x && row && bias && bp && c0 && c1 && c2);
    assert_true(2.0 * M * N * K >= 8388608.0);
    for (int i = 0; i < M * K; i++)
        a[i] = t_rand(&s, -1.0f, 1.0f);
    for (int i = 0; i < K * N; i++)
        b[i] = t_rand(&s, -1.0f, 1.0f);
    for (int i = 0; i < M * N; i++)
        x[i] = t_rand(&s, -1.0f, 1.0f);
    for (int j = 0; j < N; j++) {
        row[j] = t_rand(&s, 0.5f, 2.0f);
        bias[j] = t_rand(&s, -1.0f, 1.0f);
    }
    TngrtArg ab = t_arg(b, TNGRT_F32, 2, bsh);
    tngrt_gemm_pack_b(bp, &ab, 0, N, 1, K, N);
    TngrtGemmEpi epi = {4, {
        {TNGRT_EPI_ADD, TNGRT_UN_NEG, 0.0f, 0.0f, x, N, 1, 0, TNGRT_F32},
        {TNGRT_EPI_MUL, TNGRT_UN_NEG, 0.0f, 0.0f, row, 0, 1, 0, TNGRT_F32},
        {TNGRT_EPI_SUB, TNGRT_UN_NEG, 0.25f, 0.0f, NULL, 0, 0, 1, TNGRT_F32},
        {TNGRT_EPI_UNARY, TNGRT_UN_SILU, 0.0f, 0.0f, NULL, 0, 0, 0, TNGRT_F32}}, TNGRT_F32};
    for (size_t ii = 0; ii < sizeof isas / sizeof isas[0]; ii++) {
        int isa = (int)isas[ii];
        if (!tngrt_gemm_isa_available(isas[ii]))
            continue;
        for (int ep = 0; ep < 2; ep++) {
            TGemmCall g = {isa, M, N, K, a, bp, bias, c0, ep ? &epi : NULL, NULL};
            t_gemm_call(&g);
            if (!ep)
                t_check_product("threads", isa, 0, M, N, K, a, K, 1, b, N, 1, bias, c0, N);
            for (int th = 2; th <= 4; th++) {
                TngrtPar *p = tngrt__par_new(th);
                assert_non_null(p);
                g.c = c1;
                g.pool = p;
                memset(c1, 0, (size_t)M * N * sizeof *c1);
                t_gemm_call(&g);
                assert_memory_equal(c0, c1, (size_t)M * N * sizeof *c0);
                TGemmCall g2 = g;
                pthread_t t;
                g2.c = c2;
                memset(c1, 0, (size_t)M * N * sizeof *c1);
                memset(c2, 0, (size_t)M * N * sizeof *c2);
                assert_int_equal(pthread_create(&t, NULL, t_gemm_thread, &g2), 0);
                t_gemm_call(&g);
                pthread_join(t, NULL);
                assert_memory_equal(c0, c1, (size_t)M * N * sizeof *c0);
                assert_memory_equal(c0, c2, (size_t)M * N * sizeof *c0);
                tngrt__par_delete(p);
            }
            g.c = c0;
        }
    }
    free(a);
    free(b);
    free(x);
    free(row);
    free(bias);
    free(bp);
    free(c0);
    free(c1);
    free(c2);
}

/* tngrt_gemm_f32_dense (convolution's product) against a naive double
 * loop: few rows (the unpacked kernel), many (packed B), k 0 (zeros), C
 * with a leading dimension wider than n, on a pool and without. */
static void test_gemm_dense(void **state)
{
    static const int shp[][3] = {{3, 50, 20}, {9, 31, 1}, {40, 65, 70}, {70, 300, 210}, {5, 7, 0}};
    uint32_t s = 9u;
    TngrtPar *p = tngrt__par_new(2);
    (void)state;
    for (size_t si = 0; si < sizeof shp / sizeof shp[0]; si++)
        for (int pool = 0; pool < 2; pool++) {
            int m = shp[si][0], n = shp[si][1], k = shp[si][2], lda = k + 3, ldb = n + 2,
                ldc = n + 5;
            float *a = malloc((size_t)m * lda * sizeof *a + 4);
            float *b = malloc((size_t)(k + 1) * ldb * sizeof *b);
            float *c = malloc((size_t)m * ldc * sizeof *c);
            assert_true(a && b && c);
            for (int i = 0; i < m * lda; i++)
                a[i] = t_rand(&s, -1.0f, 1.0f);
            for (int i = 0; i < (k + 1) * ldb; i++)
                b[i] = t_rand(&s, -1.0f, 1.0f);
            for (int i = 0; i < m * ldc; i++)
                c[i] = 12345.0f;
            TngrtPar *prev = tngrt__par_enter(pool ? p : NULL);
            assert_int_equal(tngrt_gemm_f32_dense(m, n, k, a, lda, b, ldb, c, ldc), 0);
            tngrt__par_enter(prev);
            t_check_product("dense", 0, pool, m, n, k, a, lda, 1, b, ldb, 1, NULL, c, ldc);
            for (int i = 0; i < m; i++)
                for (int j = n; j < ldc; j++)
                    assert_true(c[i * ldc + j] == 12345.0f);
            free(a);
            free(b);
            free(c);
        }
    tngrt__par_delete(p);
}

/* A float32 weight read in place past the caches (B of 2^22 floats or
 * more: the streaming loop) by 1-7 rows splits over a pool by groups of 4
 * columns: the same bits as one call on the caller, on pools of 2 and 3
 * threads that always split (TNGRT_SPLIT=1) and that time the choice
 * (unset: both arms run within the first calls), with a column count no
 * group divides. */
static void test_gemm_stream_split(void **state)
{
    enum { N = 4103, K = 1040, CALLS = 6 };
    static const char *modes[] = {"1", NULL};
    static const int rows[] = {1, 3, 7};
    uint32_t s = 77u;
    float *a = malloc(7 * K * sizeof *a), *b = malloc((size_t)N * K * sizeof *b);
    float *ref = malloc(7 * (size_t)N * sizeof *ref), *c = malloc(7 * (size_t)N * sizeof *c);
    (void)state;
    assert_true(a && b && ref && c);
    for (int i = 0; i < 7 * K; i++)
        a[i] = t_rand(&s, -1.0f, 1.0f);
    for (size_t i = 0; i < (size_t)N * K; i++)
        b[i] = t_rand(&s, -1.0f, 1.0f);
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        int m = rows[r];
        tngrt_gemm_small_f32(m, N, K, a, K, 1, b, 1, K, ref, N);
        for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; mi++)
            for (int th = 2; th <= 3; th++) {
                TngrtPar *p, *prev;
                if (modes[mi])
                    assert_int_equal(setenv("TNGRT_SPLIT", modes[mi], 1), 0);
                else
                    unsetenv("TNGRT_SPLIT");
                p = tngrt__par_new(th);
                assert_non_null(p);
                prev = tngrt__par_enter(p);
                for (int call = 0; call < CALLS; call++) {
                    memset(c, 0, (size_t)m * N * sizeof *c);
                    tngrt_gemm_small_f32(m, N, K, a, K, 1, b, 1, K, c, N);
                    assert_memory_equal(c, ref, (size_t)m * N * sizeof *c);
                }
                tngrt__par_enter(prev);
                tngrt__par_delete(p);
            }
    }
    unsetenv("TNGRT_SPLIT");
    free(a);
    free(b);
    free(ref);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pow_exponents),
        cmocka_unit_test(test_math_vectorised),
        cmocka_unit_test(test_softmax_online),
        cmocka_unit_test(test_gemm_paths),
        cmocka_unit_test(test_gemm_pack_half),
        cmocka_unit_test(test_gemm_pack_transposed),
        cmocka_unit_test(test_gemm_small),
        cmocka_unit_test(test_gemm_tiny),
        cmocka_unit_test(test_matmul_strided),
        cmocka_unit_test(test_linear_packed),
        cmocka_unit_test(test_par_for),
        cmocka_unit_test(test_gemm_threads),
        cmocka_unit_test(test_gemm_dense),
        cmocka_unit_test(test_gemm_stream_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
