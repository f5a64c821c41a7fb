/*
 * test_rt_gemm_bf16.c - unit tests of the product of a bfloat16 A and a
 * bfloat16 B (kernels_gemm_bf16.c: tngrt_gemm_bf16_packing on every path
 * this CPU runs, vdpbf16ps where it has AVX512_BF16) and of the kernels
 * that reach it (a bfloat16 Linear, with and without a fused epilogue, and
 * matmul over many rows). Checked bit for bit against a scalar model of
 * the instruction written here: per pair of k, the odd element's product
 * then the even one's added by fmaf (one rounding each), a bfloat16 input
 * with a zero exponent field read as a zero of its sign, a result with a
 * zero exponent field flushed to a zero of its sign; a NaN against a NaN.
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

static uint32_t t_next(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s;
}

static float t_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t t_u(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* x, or a zero of its sign where its exponent field is 0. */
static float t_flush(float x)
{
    uint32_t u = t_u(x);
    return (u & 0x7f800000u) ? x : t_bits(u & 0x80000000u);
}

static float t_bf(uint16_t h)
{
    return t_flush(t_bits((uint32_t)h << 16));
}

/* The model's sum of row a (k elements) and column b (k elements, bstep
 * apart). */
static float t_model(int64_t k, const uint16_t *a, const uint16_t *b, int64_t bstep)
{
    float acc = 0.0f;
    for (int64_t p = 0; p < k; p += 2) {
        float ao = p + 1 < k ? t_bf(a[p + 1]) : 0.0f, bo = p + 1 < k ? t_bf(b[(p + 1) * bstep]) : 0.0f;
        acc = t_flush(fmaf(ao, bo, acc));
        acc = t_flush(fmaf(t_bf(a[p]), t_bf(b[p * bstep]), acc));
    }
    return acc;
}

/* Equal bits, or both NaN. */
static int t_same(float x, float y)
{
    return t_u(x) == t_u(y) || (isnan(x) && isnan(y));
}

/* Edge-case bfloat16 bits: zeros, denormals, the smallest and largest
 * normals, infinities, a NaN, values whose products underflow or
 * overflow float32, ones. */
static const uint16_t t_edge[] = {0x0000, 0x8000, 0x0001, 0x807f, 0x0080, 0x8081, 0x3f80, 0xbf80,
                                  0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x1f80, 0x2000, 0x9f81,
                                  0x0f80, 0x2080, 0x5f80, 0x4000};

/* Random bfloat16 bits: mode 0 edge cases, 1 any bits, 2 normal values
 * of magnitude 2^-20 .. 2^20. */
static uint16_t t_rand_bf(uint32_t *s, int mode)
{
    uint32_t r = t_next(s) >> 8;
    if (mode == 0)
        return t_edge[r % (sizeof t_edge / sizeof t_edge[0])];
    if (mode == 1)
        return (uint16_t)r;
    return (uint16_t)((r & 0x8000u) | (uint32_t)(107 + (r >> 16) % 41) << 7 | (r & 0x7fu));
}

/* Every path this CPU runs, against the model, one C element at a time
 * (k 2: one pair, 3: a pair and the lone last element) over random and
 * edge-case operands. */
static void test_instruction_model(void **state)
{
    uint32_t s = 7u;
    (void)state;
    for (int isa = TNGRT_GEMM_PORTABLE; isa <= TNGRT_GEMM_AVX512_BF16; isa++) {
        long bad = 0;
        if (!tngrt_gemm_isa_available((TngrtGemmIsa)isa))
            continue;
        for (int t = 0; t < 20000; t++) {
            int64_t k = 2 + t % 2, m = 1, n = 3, shape[1] = {n * k};
            uint16_t a[3], b[9];
            float c[3];
            TngrtArg ab = {b, TNGRT_BF16, 1, shape};
            for (int u = 0; u < 3; u++)
                a[u] = t_rand_bf(&s, t / 2 % 3);
            for (int u = 0; u < 9; u++)
                b[u] = t_rand_bf(&s, t / 6 % 3);
            assert_int_equal(tngrt_gemm_bf16_packing_isa((TngrtGemmIsa)isa, m, n, k, a, k, &ab, 0, 1,
                                                         k, c, n, NULL, NULL),
                             0);
            for (int64_t j = 0; j < n; j++)
                if (!t_same(c[j], t_model(k, a, b + j * k, 1)) && bad++ < 5)
                    print_message("isa %d: a %04x %04x %04x, column %04x %04x %04x: %08x, model %08x\n",
                                  isa, a[0], a[1], a[2], b[j * k], b[j * k + 1],
                                  b[j * k + (k > 2 ? 2 : 1)], t_u(c[j]),
                                  t_u(t_model(k, a, b + j * k, 1)));
        }
        assert_int_equal(bad, 0);
    }
}

/* Sums that pass near float32's smallest normal, 2^-126, odd elements
 * first: 2^-126 less the product 2^-80 * 2^-80 rounds back to 2^-126 (not
 * flushed: the flush looks at the rounded result); 2^-126 (1 + 2^-7)
 * less 2^-126 is 2^-133, flushed to +0. */
static void test_flush_boundary(void **state)
{
    static const uint16_t a1[4] = {0x0000, 0x3f80, 0x0000, 0x9780}, b1[4] = {0x0000, 0x0080, 0x0000, 0x1780};
    static const uint16_t a2[2] = {0xa000, 0x2000}, b2[2] = {0x2000, 0x2001};
    (void)state;
    for (int isa = TNGRT_GEMM_PORTABLE; isa <= TNGRT_GEMM_AVX512_BF16; isa++) {
        int64_t s1[1] = {4}, s2[1] = {2};
        TngrtArg ab1 = {(void *)b1, TNGRT_BF16, 1, s1}, ab2 = {(void *)b2, TNGRT_BF16, 1, s2};
        float c = 1.0f;
        if (!tngrt_gemm_isa_available((TngrtGemmIsa)isa))
            continue;
        assert_int_equal(tngrt_gemm_bf16_packing_isa((TngrtGemmIsa)isa, 1, 1, 4, a1, 4, &ab1, 0, 1,
                                                     4, &c, 1, NULL, NULL),
                         0);
        assert_int_equal(t_u(c), 0x00800000u);
        assert_int_equal(t_u(c), t_u(t_model(4, a1, b1, 1)));
        assert_int_equal(tngrt_gemm_bf16_packing_isa((TngrtGemmIsa)isa, 1, 1, 2, a2, 2, &ab2, 0, 1,
                                                     2, &c, 1, NULL, NULL),
                         0);
        assert_int_equal(t_u(c), 0u);
        assert_int_equal(t_u(c), t_u(t_model(2, a2, b2, 1)));
    }
}

/* Random shapes (k odd and even, m and n not multiples of the 6 x 32
 * tile, one panel and many), B transposed (a Linear's weight) or not,
 * with and without a row bias: every path gives the portable path's
 * bits; without bias those are the model's, with bias the model's sum
 * plus bias[j]. On 1, 2 and 3 threads. */
static void test_paths_shapes(void **state)
{
    static const int64_t shp[][3] = {{1, 1, 1},   {7, 33, 5},   {6, 32, 32},  {13, 70, 64},
                                     {100, 97, 257}, {96, 130, 1024}, {9, 300, 3}, {130, 64, 40}};
    uint32_t s = 11u;
    (void)state;
    for (size_t si = 0; si < sizeof shp / sizeof shp[0]; si++)
    for (int trans = 0; trans < 2; trans++)
    for (int hasb = 0; hasb < 2; hasb++) {
        int64_t m = shp[si][0], n = shp[si][1], k = shp[si][2], shape[1] = {n * k};
        int64_t rs = trans ? 1 : n, cs = trans ? k : 1;
        uint16_t *a = malloc((size_t)(m * k) * sizeof *a), *b = malloc((size_t)(n * k) * sizeof *b);
        float *bias = malloc((size_t)n * sizeof *bias), *c0 = malloc((size_t)(m * n) * sizeof *c0);
        float *c1 = malloc((size_t)(m * n) * sizeof *c1);
        TngrtArg ab = {b, TNGRT_BF16, 1, shape};
        assert_true(a && b && bias && c0 && c1);
        for (int64_t i = 0; i < m * k; i++)
            a[i] = t_rand_bf(&s, 2);
        for (int64_t i = 0; i < n * k; i++)
            b[i] = t_rand_bf(&s, 2);
        for (int64_t j = 0; j < n; j++)
            bias[j] = t_bits(t_next(&s) >> 9 | 0x3f800000u) - 1.5f;
        assert_int_equal(tngrt_gemm_bf16_packing_isa(TNGRT_GEMM_PORTABLE, m, n, k, a, k, &ab, 0, rs,
                                                     cs, c0, n, hasb ? bias : NULL, NULL),
                         0);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                float r = t_model(k, a + i * k, b + j * cs, rs);
                if (hasb)
                    r += bias[j];
                assert_true(t_same(c0[i * n + j], r));
            }
        for (int isa = TNGRT_GEMM_AVX2; isa <= TNGRT_GEMM_AVX512_BF16 + 1; isa++)
        for (int th = 1; th <= 3; th++) {
            TngrtPar *p = th > 1 ? tngrt__par_new(th) : NULL;
            int best = isa > TNGRT_GEMM_AVX512_BF16;   /* the widest path: the entry point */
            if ((!best && !tngrt_gemm_isa_available((TngrtGemmIsa)isa)) || (th > 1 && !p))
                continue;
            memset(c1, 0xff, (size_t)(m * n) * sizeof *c1);
            tngrt__par_enter(p);
            assert_int_equal(best ? tngrt_gemm_bf16_packing(m, n, k, a, k, &ab, 0, rs, cs, c1, n,
                                                            hasb ? bias : NULL, NULL)
                                  : tngrt_gemm_bf16_packing_isa((TngrtGemmIsa)isa, m, n, k, a, k,
                                                                &ab, 0, rs, cs, c1, n,
                                                                hasb ? bias : NULL, NULL),
                             0);
            tngrt__par_enter(NULL);
            assert_memory_equal(c0, c1, (size_t)(m * n) * sizeof *c0);
            if (p)
                tngrt__par_delete(p);
        }
        free(a);
        free(b);
        free(bias);
        free(c0);
        free(c1);
    }
}

/* A float32 value rounded to bfloat16 (nearest even) and widened. */
static float t_round_bf(float x)
{
    uint32_t u = t_u(x);
    if (isnan(x))
        return x;
    u += 0x7fffu + (u >> 16 & 1u);
    return t_bits(u & 0xffff0000u);
}

/* A bfloat16 Linear (tngrt_kernel_linear_packed, and
 * tngrt_kernel_linear_epi with a fused multiply by a row operand) and a
 * matmul over 128 rows: out rounded to bfloat16 from the model's sums
 * (plus the bias; then times the row, rounded again, for the fused one);
 * and tngrt_kernel_matmul of [2, 100, 48] x [48, 70]. */
static void test_kernels(void **state)
{
    int64_t m = 128, n = 70, k = 48;
    uint32_t s = 5u;
    /* x and y hold the matmul's 200 rows too */
    uint16_t *x = malloc((size_t)(200 * k) * 2), *w = malloc((size_t)(n * k) * 2);
    uint16_t *bias = malloc((size_t)n * 2), *y = malloc((size_t)(200 * n) * 2);
    float *row = malloc((size_t)n * sizeof *row);
    int64_t xs[2] = {m, k}, ws[2] = {n, k}, ys[2] = {m, n}, bs[1] = {n};
    TngrtArg ax = {x, TNGRT_BF16, 2, xs}, aw = {w, TNGRT_BF16, 2, ws}, ay = {y, TNGRT_BF16, 2, ys};
    TngrtArg ab = {bias, TNGRT_BF16, 1, bs};
    TngrtGemmEpi epi;
    (void)state;
    assert_true(x && w && bias && y && row);
    for (int64_t i = 0; i < 200 * k; i++)
        x[i] = t_rand_bf(&s, 2);
    for (int64_t i = 0; i < n * k; i++)
        w[i] = t_rand_bf(&s, 2);
    for (int64_t j = 0; j < n; j++) {
        bias[j] = t_rand_bf(&s, 2);
        row[j] = t_bits(t_next(&s) >> 9 | 0x3f800000u);
    }
    memset(&epi, 0, sizeof epi);
    epi.n = 1;
    epi.rdt = TNGRT_BF16;
    epi.s[0].kind = TNGRT_EPI_MUL;
    epi.s[0].x = row;
    epi.s[0].xdt = TNGRT_F32;
    epi.s[0].xcs = 1;
    for (int fused = 0; fused < 2; fused++) {
        if (fused)
            tngrt_kernel_linear_epi(&ay, &ax, &aw, &ab, NULL, &epi);
        else
            tngrt_kernel_linear_packed(&ay, &ax, &aw, &ab, NULL);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                float r = t_round_bf(t_model(k, x + i * k, w + j * k, 1) + t_bf(bias[j]));
                if (fused)
                    r = t_round_bf(r * row[j]);
                assert_int_equal((uint32_t)y[i * n + j] << 16, t_u(r));
            }
    }
    {
        int64_t as[3] = {2, 100, 48}, bs2[2] = {48, 70}, os[3] = {2, 100, 70};
        TngrtArg a3 = {x, TNGRT_BF16, 3, as}, b2 = {w, TNGRT_BF16, 2, bs2}, o3 = {y, TNGRT_BF16, 3, os};
        tngrt_kernel_matmul(&o3, &a3, &b2);
        for (int64_t i = 0; i < 200; i++)
            for (int64_t j = 0; j < 70; j++)
                assert_int_equal((uint32_t)y[i * 70 + j] << 16,
                                 t_u(t_round_bf(t_model(48, x + i * 48, w + j, 70))));
    }
    free(x);
    free(w);
    free(bias);
    free(y);
    free(row);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_instruction_model),
        cmocka_unit_test(test_flush_boundary),
        cmocka_unit_test(test_paths_shapes),
        cmocka_unit_test(test_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
