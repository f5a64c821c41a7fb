/*
 * test_rt_gemm_epi.c - unit tests of the GEMM epilogues
 * (runtime/kernels_gemm.c TngrtGemmEpi, codegen/fuse_gemm.c): on every
 * microkernel path this CPU has, with M, N, K not multiples of the tiles,
 * the fused result (steps applied to each tile before its store) is
 * bitwise equal to the unfused one: the same path's GEMM, then each step
 * as a separate pass (the unary ones through tngrt_kernel_unary itself).
 * That is the policy fuse_bits.sh checks on whole bundles: float32 fused
 * equals --no-fuse bit for bit. tngrt_kernel_linear_epi is checked the
 * same way with its weight packed (the fused GEMM) and not (its fallback),
 * including a residual that is the output buffer itself; and
 * tngrt_kernel_matmul_strided_epi (steps per batch, the product written
 * through a permute's strides) against the strided matmul, the permute
 * copy and the passes.
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

#include "../../runtime/tngrt_kernels.h"

/* Deterministic uniform floats in [lo, hi). */
static float t_rand(uint32_t *s, float lo, float hi)
{
    *s = *s * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(*s >> 8) / 16777216.0f;
}

/* The unfused epilogue: epi's steps as separate passes over c [m, n]
 * (ldc apart), a unary step through the unary kernel. */
static void t_unfused(const TngrtGemmEpi *epi, int64_t m, int64_t n, float *c, int64_t ldc)
{
    float *row = malloc((size_t)n * sizeof *row);
    int64_t shape[1] = {n};
    assert_non_null(row);
    for (int s = 0; s < epi->n; s++) {
        const TngrtGemmEpiStep *st = &epi->s[s];
        for (int64_t i = 0; i < m; i++) {
            float *ci = c + i * ldc;
            if (st->kind == TNGRT_EPI_UNARY) {
                TngrtArg ao = {row, TNGRT_F32, 1, shape}, ax = {ci, TNGRT_F32, 1, shape};
                tngrt_kernel_unary(&ao, &ax, st->un, st->p);
                memcpy(ci, row, (size_t)n * sizeof *row);
                continue;
            }
            for (int64_t j = 0; j < n; j++) {
                float y = st->x ? ((const float *)st->x)[i * st->xrs + j * st->xcs] : st->p;
                float a = st->swap ? y : ci[j], b = st->swap ? ci[j] : y, r;
                switch (st->kind) {
                case TNGRT_EPI_ADD: r = a + b; break;
                case TNGRT_EPI_SUB: r = a - b; break;
                case TNGRT_EPI_MUL: r = a * b; break;
                default: r = a / b; break;
                }
                ci[j] = r;
            }
        }
    }
    free(row);
}

/* The epilogues tried: variant v over residual res [m, n] (n apart), row
 * vector vec [n] and one-element one. */
static TngrtGemmEpi t_epi(int v, const float *res, int64_t n, const float *vec, const float *one)
{
    TngrtGemmEpi e;
    memset(&e, 0, sizeof e);
    switch (v) {
    case 0:   /* bias + relu */
        e.n = 1;
        e.s[0] = (TngrtGemmEpiStep){TNGRT_EPI_UNARY, TNGRT_UN_RELU, 0.0f, 0.0f, NULL, 0, 0, 0, TNGRT_F32};
        break;
    case 1:   /* silu, scale, residual */
        e.n = 3;
        e.s[0] = (TngrtGemmEpiStep){TNGRT_EPI_UNARY, TNGRT_UN_SILU, 0.0f, 0.0f, NULL, 0, 0, 0, TNGRT_F32};
        e.s[1] = (TngrtGemmEpiStep){TNGRT_EPI_MUL, TNGRT_UN_NEG, 0.5f, 0.0f, NULL, 0, 0, 0, TNGRT_F32};
        e.s[2] = (TngrtGemmEpiStep){TNGRT_EPI_ADD, TNGRT_UN_NEG, 0.0f, 0.0f, res, n, 1, 0, TNGRT_F32};
        break;
    case 2:   /* row vector add, gelu (tanh form), scalar on the left */
        e.n = 3;
        e.s[0] = (TngrtGemmEpiStep){TNGRT_EPI_ADD, TNGRT_UN_NEG, 0.0f, 0.0f, vec, 0, 1, 1, TNGRT_F32};
        e.s[1] = (TngrtGemmEpiStep){TNGRT_EPI_UNARY, TNGRT_UN_GELU_TANH, 0.0f, 0.0f, NULL, 0, 0, 0, TNGRT_F32};
        e.s[2] = (TngrtGemmEpiStep){TNGRT_EPI_SUB, TNGRT_UN_NEG, 2.0f, 0.0f, NULL, 0, 0, 1, TNGRT_F32};
        break;
    case 3:   /* gelu, sigmoid, tanh, divided by a one-element tensor, residual on the left */
        e.n = 5;
        e.s[0] = (TngrtGemmEpiStep){TNGRT_EPI_UNARY, TNGRT_UN_GELU, 0.0f, 0.0f, NULL, 0, 0, 0, TNGRT_F32};
        e.s[1] = (TngrtGemmEpiStep){TNGRT_EPI_UNARY, TNGRT_UN_SIGMOID, 0.0f, 0.0f, NULL, 0, 0, 0, TNGRT_F32};
        e.s[2] = (TngrtGemmEpiStep){TNGRT_EPI_UNARY, TNGRT_UN_TANH, 0.0f, 0.0f, NULL, 0, 0, 0, TNGRT_F32};
        e.s[3] = (TngrtGemmEpiStep){TNGRT_EPI_DIV, TNGRT_UN_NEG, 0.0f, 0.0f, one, 0, 0, 0, TNGRT_F32};
        e.s[4] = (TngrtGemmEpiStep){TNGRT_EPI_SUB, TNGRT_UN_NEG, 0.0f, 0.0f, res, n, 1, 1, TNGRT_F32};
        break;
    case 4:   /* binary steps only (AVX-512: applied to the accumulators) */
        e.n = 4;
        e.s[0] = (TngrtGemmEpiStep){TNGRT_EPI_MUL, TNGRT_UN_NEG, 0.75f, 0.0f, NULL, 0, 0, 0, TNGRT_F32};
        e.s[1] = (TngrtGemmEpiStep){TNGRT_EPI_ADD, TNGRT_UN_NEG, 0.0f, 0.0f, res, n, 1, 1, TNGRT_F32};
        e.s[2] = (TngrtGemmEpiStep){TNGRT_EPI_DIV, TNGRT_UN_NEG, 0.0f, 0.0f, one, 0, 0, 1, TNGRT_F32};
        e.s[3] = (TngrtGemmEpiStep){TNGRT_EPI_SUB, TNGRT_UN_NEG, 0.0f, 0.0f, vec, 0, 1, 1, TNGRT_F32};
        break;
    default:  /* another unary op (the generic loop): exp */
        e.n = 1;
        e.s[0] = (TngrtGemmEpiStep){TNGRT_EPI_UNARY, TNGRT_UN_EXP, 0.0f, 0.0f, NULL, 0, 0, 0, TNGRT_F32};
        break;
    }
    return e;
}

#define T_NVAR 6

/* tngrt_gemm_f32_epi_isa on each path against the path's GEMM and the
 * separate passes, bit for bit; C's padding beyond N untouched. */
static void test_gemm_epi_paths(void **state)
{
    static const int shp[][3] = {{1, 1, 1}, {5, 17, 3}, {6, 32, 16}, {7, 33, 13}, {13, 100, 48},
                                 {20, 48, 40}, {2, 70, 9}};
    uint32_t s = 7u;
    int checked = 0;
    (void)state;
    for (int isa = TNGRT_GEMM_PORTABLE; isa <= TNGRT_GEMM_AVX512; isa++) {
        if (!tngrt_gemm_isa_available((TngrtGemmIsa)isa)) {
            fprintf(stderr, "gemm path %d: not on this CPU, skipped\n", isa);
            continue;
        }
        for (size_t si = 0; si < sizeof shp / sizeof shp[0]; si++)
        for (int v = 0; v < T_NVAR; v++)
        for (int hb = 0; hb < 2; hb++) {
            int64_t m = shp[si][0], n = shp[si][1], k = shp[si][2], ldc = n + 3;
            float *a = malloc((size_t)(m * k) * sizeof *a), *b = malloc((size_t)(k * n) * sizeof *b);
            float *bp = malloc((size_t)tngrt_gemm_packed_size(n, k) * sizeof *bp);
            float *bias = malloc((size_t)n * sizeof *bias), *res = malloc((size_t)(m * n) * sizeof *res);
            float *c0 = malloc((size_t)(m * ldc) * sizeof *c0), *c1 = malloc((size_t)(m * ldc) * sizeof *c1);
            float one = 1.75f;
            int64_t shape[1] = {k * n};
            assert_true(a && b && bp && bias && res && c0 && c1);
            for (int64_t i = 0; i < m * k; i++)
                a[i] = t_rand(&s, -1.0f, 1.0f);
            for (int64_t i = 0; i < k * n; i++)
                b[i] = t_rand(&s, -1.0f, 1.0f);
            for (int64_t i = 0; i < n; i++)
                bias[i] = t_rand(&s, -1.0f, 1.0f);
            for (int64_t i = 0; i < m * n; i++)
                res[i] = t_rand(&s, -2.0f, 2.0f);
            for (int64_t i = 0; i < m * ldc; i++)
                c0[i] = c1[i] = 12345.0f;
            TngrtArg ab = {b, TNGRT_F32, 1, shape};
            tngrt_gemm_pack_b(bp, &ab, 0, n, 1, k, n);
            TngrtGemmEpi e = t_epi(v, res, n, bias, &one);
            tngrt_gemm_f32_isa((TngrtGemmIsa)isa, m, n, k, a, k, 1, bp, c0, ldc, hb ? bias : NULL);
            t_unfused(&e, m, n, c0, ldc);
            tngrt_gemm_f32_epi_isa(isa, m, n, k, a, k, 1, bp, c1, ldc, hb ? bias : NULL, &e);
            if (memcmp(c0, c1, (size_t)(m * ldc) * sizeof *c0) != 0) {
                fprintf(stderr, "gemm epi path %d m %lld n %lld k %lld variant %d bias %d: not bitwise\n",
                        isa, (long long)m, (long long)n, (long long)k, v, hb);
                fail();
            }
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = n; j < ldc; j++)
                    assert_true(c1[i * ldc + j] == 12345.0f);
            free(a);
            free(b);
            free(bp);
            free(bias);
            free(res);
            free(c0);
            free(c1);
            checked++;
        }
    }
    assert_true(checked > 0);
}

/* tngrt_kernel_linear_epi, weight packed or not, residual elsewhere or
 * the output buffer itself, against tngrt_kernel_linear_packed and the
 * separate passes: bitwise. */
static void test_linear_epi(void **state)
{
    static const int shp[][3] = {{1, 5, 3}, {7, 33, 40}, {20, 64, 64}, {3, 70, 1}, {31, 48, 100}};
    uint32_t s = 11u;
    (void)state;
    for (size_t si = 0; si < sizeof shp / sizeof shp[0]; si++)
    for (int v = 0; v < T_NVAR; v++)
    for (int pk = 0; pk < 2; pk++)
    for (int alias = 0; alias < 2; alias++) {
        int64_t m = shp[si][0], k = shp[si][1], n = shp[si][2];
        float *x = malloc((size_t)(m * k) * sizeof *x), *w = malloc((size_t)(n * k) * sizeof *w);
        float *b = malloc((size_t)n * sizeof *b), *res = malloc((size_t)(m * n) * sizeof *res);
        float *o0 = malloc((size_t)(m * n) * sizeof *o0), *o1 = malloc((size_t)(m * n) * sizeof *o1);
        float *wp = NULL, one = 0.625f;
        int64_t xs[2] = {m, k}, ws[2] = {n, k}, bs[1] = {n}, os[2] = {m, n};
        assert_true(x && w && b && res && o0 && o1);
        for (int64_t i = 0; i < m * k; i++)
            x[i] = t_rand(&s, -1.0f, 1.0f);
        for (int64_t i = 0; i < n * k; i++)
            w[i] = t_rand(&s, -1.0f, 1.0f);
        for (int64_t i = 0; i < n; i++)
            b[i] = t_rand(&s, -1.0f, 1.0f);
        for (int64_t i = 0; i < m * n; i++)
            res[i] = t_rand(&s, -2.0f, 2.0f);
        if (pk)
            assert_true(tngrt_gemm_pack_weight(&wp, w, TNGRT_F32, n, k) == tngrt_gemm_packed_size(n, k));
        TngrtArg ax = {x, TNGRT_F32, 2, xs}, aw = {w, TNGRT_F32, 2, ws}, ab = {b, TNGRT_F32, 1, bs};
        TngrtArg ao0 = {o0, TNGRT_F32, 2, os}, ao1 = {o1, TNGRT_F32, 2, os};
        /* unfused: into o0, residual res */
        TngrtGemmEpi e0 = t_epi(v, res, n, b, &one);
        tngrt_kernel_linear_packed(&ao0, &ax, &aw, &ab, wp);
        t_unfused(&e0, m, n, o0, n);
        /* fused: the residual in o1 itself when alias */
        if (alias)
            memcpy(o1, res, (size_t)(m * n) * sizeof *o1);
        TngrtGemmEpi e1 = t_epi(v, alias ? o1 : res, n, b, &one);
        tngrt_kernel_linear_epi(&ao1, &ax, &aw, &ab, wp, &e1);
        if (memcmp(o0, o1, (size_t)(m * n) * sizeof *o0) != 0) {
            fprintf(stderr, "linear epi m %lld k %lld n %lld variant %d packed %d alias %d: not bitwise\n",
                    (long long)m, (long long)k, (long long)n, v, pk, alias);
            fail();
        }
        free(wp);
        free(x);
        free(w);
        free(b);
        free(res);
        free(o0);
        free(o1);
    }
}

/* tngrt_kernel_matmul_strided_epi: [B, H, M, K] @ [B, H, K, N] written
 * as [B, M, H, N] (the transpose(1, 2) of attention's output) with a
 * scale and an activation, against tngrt_kernel_matmul_strided, then the
 * permute and the passes: bitwise; rows 8 and 10 (the packed and the
 * few-row paths) and 3 (small). */
static void test_matmul_strided_epi(void **state)
{
    static const int ms[] = {3, 8, 10, 20};
    enum { B = 2, H = 3, K = 13, N = 20 };
    uint32_t s = 3u;
    (void)state;
    for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
    for (int v = 0; v < 2; v++) {
        int64_t M = ms[mi], total = B * H * M * N;
        float *a = malloc((size_t)(B * H * M * K) * sizeof *a), *b = malloc((size_t)(B * H * K * N) * sizeof *b);
        float *c0 = malloc((size_t)total * sizeof *c0), *c1 = malloc((size_t)total * sizeof *c1);
        float *d0 = malloc((size_t)total * sizeof *d0);
        int64_t as_[4] = {H * M * K, M * K, K, 1}, bs_[4] = {H * K * N, K * N, N, 1};
        int64_t ash[4] = {B, H, M, K}, bsh[4] = {B, H, K, N}, osh[4] = {B, H, M, N};
        int64_t os[4] = {M * H * N, N, H * N, 1};
        TngrtGemmEpi e;
        assert_true(a && b && c0 && c1 && d0);
        for (int64_t i = 0; i < B * H * M * K; i++)
            a[i] = t_rand(&s, -1.0f, 1.0f);
        for (int64_t i = 0; i < B * H * K * N; i++)
            b[i] = t_rand(&s, -1.0f, 1.0f);
        memset(&e, 0, sizeof e);
        e.n = 2;
        e.s[0] = (TngrtGemmEpiStep){TNGRT_EPI_MUL, TNGRT_UN_NEG, 0.25f, 0.0f, NULL, 0, 0, 0, TNGRT_F32};
        e.s[1] = (TngrtGemmEpiStep){TNGRT_EPI_UNARY, v ? TNGRT_UN_GELU : TNGRT_UN_SIGMOID, 0.0f,
                                    0.0f, NULL, 0, 0, 0, TNGRT_F32};
        TngrtArg aa = {a, TNGRT_F32, 4, ash}, ab = {b, TNGRT_F32, 4, bsh};
        TngrtArg ao0 = {c0, TNGRT_F32, 4, osh}, ao1 = {c1, TNGRT_F32, 4, osh};
        tngrt_kernel_matmul_strided(&ao0, &aa, as_, &ab, bs_);
        t_unfused(&e, B * H * M, N, c0, N);
        for (int64_t bb = 0; bb < B; bb++)   /* the permute (0, 2, 1, 3) */
            for (int64_t h = 0; h < H; h++)
                for (int64_t i = 0; i < M; i++)
                    memcpy(d0 + ((bb * M + i) * H + h) * N, c0 + ((bb * H + h) * M + i) * N,
                           N * sizeof *d0);
        tngrt_kernel_matmul_strided_epi(&ao1, os, &aa, as_, &ab, bs_, &e);
        if (memcmp(d0, c1, (size_t)total * sizeof *d0) != 0) {
            fprintf(stderr, "matmul strided epi M %lld variant %d: not bitwise\n", (long long)M, v);
            fail();
        }
        tngrt_kernel_matmul_strided_epi(&ao1, NULL, &aa, as_, &ab, bs_, &e);   /* dense out */
        if (memcmp(c0, c1, (size_t)total * sizeof *c0) != 0) {
            fprintf(stderr, "matmul dense epi M %lld variant %d: not bitwise\n", (long long)M, v);
            fail();
        }
        free(a);
        free(b);
        free(c0);
        free(c1);
        free(d0);
    }
}

/* A random half value (float16, or bfloat16 when bf) of magnitude in
 * [1/4, 2). */
static uint16_t t_half(uint32_t *s, int bf)
{
    uint32_t r = (uint32_t)(t_rand(s, 0.0f, 1.0f) * 16777216.0f);
    uint16_t sg = (uint16_t)((r & 1u) << 15);
    if (bf)
        return (uint16_t)(sg | (125u + (r >> 1) % 3u) << 7 | ((r >> 3) & 0x7fu));
    return (uint16_t)(sg | (13u + (r >> 1) % 3u) << 10 | ((r >> 3) & 0x3ffu));
}

/* tngrt_kernel_linear_epi on float16 and bfloat16 (weight packed or not):
 * silu, a scale and a half residual, rounded per op, against the half
 * Linear, tngrt_kernel_unary, tngrt_kernel_binary_scalar and
 * tngrt_kernel_binary one after the other: bitwise. */
static void test_linear_epi_half(void **state)
{
    static const int shp[][3] = {{1, 5, 3}, {7, 33, 40}, {13, 48, 70}};
    uint32_t s = 21u;
    (void)state;
    for (size_t si = 0; si < sizeof shp / sizeof shp[0]; si++)
    for (int bf = 0; bf < 2; bf++)
    for (int pk = 0; pk < 2; pk++) {
        int64_t m = shp[si][0], k = shp[si][1], n = shp[si][2];
        TngrtDType dt = bf ? TNGRT_BF16 : TNGRT_F16;
        uint16_t *x = malloc((size_t)(m * k) * 2), *w = malloc((size_t)(n * k) * 2);
        uint16_t *b = malloc((size_t)n * 2), *res = malloc((size_t)(m * n) * 2);
        uint16_t *o0 = malloc((size_t)(m * n) * 2), *o1 = malloc((size_t)(m * n) * 2);
        uint16_t *t0 = malloc((size_t)(m * n) * 2);
        float *wp = NULL;
        int64_t xs[2] = {m, k}, ws[2] = {n, k}, bs[1] = {n}, os[2] = {m, n};
        assert_true(x && w && b && res && o0 && o1 && t0);
        for (int64_t i = 0; i < m * k; i++)
            x[i] = t_half(&s, bf);
        for (int64_t i = 0; i < n * k; i++)
            w[i] = t_half(&s, bf);
        for (int64_t i = 0; i < n; i++)
            b[i] = t_half(&s, bf);
        for (int64_t i = 0; i < m * n; i++)
            res[i] = t_half(&s, bf);
        if (pk)
            assert_true(tngrt_gemm_pack_weight(&wp, w, dt, n, k) == tngrt_gemm_packed_size(n, k));
        TngrtArg ax = {x, dt, 2, xs}, aw = {w, dt, 2, ws}, ab = {b, dt, 1, bs};
        TngrtArg ar = {res, dt, 2, os}, ao0 = {o0, dt, 2, os}, at0 = {t0, dt, 2, os};
        TngrtArg ao1 = {o1, dt, 2, os};
        tngrt_kernel_linear_packed(&ao0, &ax, &aw, &ab, wp);
        tngrt_kernel_unary(&at0, &ao0, TNGRT_UN_SILU, 0.0);
        tngrt_kernel_binary_scalar(&ao0, &at0, 0.5, 0, TNGRT_BIN_MUL, 1.0);
        tngrt_kernel_binary(&at0, &ao0, &ar, TNGRT_BIN_ADD, 1.0);
        TngrtGemmEpi e;
        memset(&e, 0, sizeof e);
        e.n = 3;
        e.rdt = dt;
        e.s[0] = (TngrtGemmEpiStep){TNGRT_EPI_UNARY, TNGRT_UN_SILU, 0.0f, 0.0f, NULL, 0, 0, 0, dt};
        e.s[1] = (TngrtGemmEpiStep){TNGRT_EPI_MUL, TNGRT_UN_NEG, 0.5f, 0.0f, NULL, 0, 0, 0, dt};
        e.s[2] = (TngrtGemmEpiStep){TNGRT_EPI_ADD, TNGRT_UN_NEG, 0.0f, 0.0f, res, n, 1, 0, dt};
        tngrt_kernel_linear_epi(&ao1, &ax, &aw, &ab, wp, &e);
        if (memcmp(t0, o1, (size_t)(m * n) * 2) != 0) {
            fprintf(stderr, "linear epi half m %lld k %lld n %lld bf %d packed %d: not bitwise\n",
                    (long long)m, (long long)k, (long long)n, bf, pk);
            fail();
        }
        free(wp);
        free(x);
        free(w);
        free(b);
        free(res);
        free(o0);
        free(o1);
        free(t0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_epi_paths),
        cmocka_unit_test(test_linear_epi),
        cmocka_unit_test(test_linear_epi_half),
        cmocka_unit_test(test_matmul_strided_epi),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
