/*
 * test_rt_reduce.c - unit tests of the reductions, sorting and contractions
 * family's CPU kernels (tngrt_kernel_topk, _arg_reduce, _cumsum, and the
 * AMIN / PROD cases of tngrt_kernel_reduce) against expectations written
 * out by hand from PyTorch 1.13's CPU results (NaN ranks above every
 * number in topk, sort, max and min; equal values keep index order) and a
 * brute-force selection reference for random data.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/tngrt_kernels.h"

/* An operand over caller storage. */
static TngrtArg t_arg(void *data, TngrtDType dt, int ndim, const int64_t *shape)
{
    TngrtArg a = {data, dt, ndim, shape};
    return a;
}

/* bfloat16 of a float exact in bfloat16 (the test values are). */
static uint16_t t_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint16_t)(u >> 16);
}

static float t_bf16f(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* torch.topk([1, nan, 3, -2, 5, 3], 3) and largest=False; sort = k 6. */
static void test_topk_nan_and_ties(void **state)
{
    (void)state;
    float x[6] = {1.0f, NAN, 3.0f, -2.0f, 5.0f, 3.0f}, v[6];
    int64_t ix[6], sx[1] = {6}, s3[1] = {3};
    TngrtArg X = t_arg(x, TNGRT_F32, 1, sx), V = t_arg(v, TNGRT_F32, 1, s3), I = t_arg(ix, TNGRT_I64, 1, s3);
    tngrt_kernel_topk(&V, &I, &X, 0, 1);
    assert_true(isnan(v[0]));
    assert_true(v[1] == 5.0f && v[2] == 3.0f);
    assert_true(ix[0] == 1 && ix[1] == 4 && ix[2] == 2);
    tngrt_kernel_topk(&V, &I, &X, -1, 0);
    assert_true(v[0] == -2.0f && v[1] == 1.0f && v[2] == 3.0f);
    assert_true(ix[0] == 3 && ix[1] == 0 && ix[2] == 2);
    /* sort ascending: NaN last; descending: NaN first, ties by index */
    V.shape = I.shape = sx;
    tngrt_kernel_topk(&V, &I, &X, 0, 0);
    static const int64_t asc[6] = {3, 0, 2, 5, 4, 1}, desc[6] = {1, 4, 2, 5, 0, 3};
    for (int j = 0; j < 6; j++)
        assert_int_equal(ix[j], asc[j]);
    assert_true(isnan(v[5]) && v[4] == 5.0f);
    tngrt_kernel_topk(NULL, &I, &X, 0, 1);   /* argsort: no values */
    for (int j = 0; j < 6; j++)
        assert_int_equal(ix[j], desc[j]);
}

/* sort along dim 0 of a [3, 2] tensor (strided lines), int32 and bfloat16. */
static void test_sort_dim0(void **state)
{
    (void)state;
    int32_t x[6] = {3, 1, 1, 2, 2, 0}, v[6];
    int64_t ix[6], sh[2] = {3, 2};
    TngrtArg X = t_arg(x, TNGRT_I32, 2, sh), V = t_arg(v, TNGRT_I32, 2, sh), I = t_arg(ix, TNGRT_I64, 2, sh);
    tngrt_kernel_topk(&V, &I, &X, 0, 1);
    static const int32_t ev[6] = {3, 2, 2, 1, 1, 0};
    static const int64_t ei[6] = {0, 1, 2, 0, 1, 2};
    for (int j = 0; j < 6; j++) {
        assert_int_equal(v[j], ev[j]);
        assert_int_equal(ix[j], ei[j]);
    }
    uint16_t b[6], bv[4];
    int64_t k2[2] = {2, 2};
    for (int j = 0; j < 6; j++)
        b[j] = t_bf16((float)x[j] / 8.0f);
    TngrtArg B = t_arg(b, TNGRT_BF16, 2, sh), BV = t_arg(bv, TNGRT_BF16, 2, k2), BI = t_arg(ix, TNGRT_I64, 2, k2);
    tngrt_kernel_topk(&BV, &BI, &B, 0, 0);   /* the 2 smallest per column */
    assert_true(t_bf16f(bv[0]) == 0.125f && t_bf16f(bv[1]) == 0.0f);
    assert_true(t_bf16f(bv[2]) == 0.25f && t_bf16f(bv[3]) == 0.125f);
    assert_true(ix[0] == 1 && ix[1] == 2 && ix[2] == 2 && ix[3] == 0);
}

/* topk of random rows against a brute-force selection. */
static void test_topk_random(void **state)
{
    (void)state;
    enum { R = 5, N = 37, K = 7 };
    float x[R * N], v[R * K];
    int64_t ix[R * K], sx[2] = {R, N}, sk[2] = {R, K};
    srand(7);
    for (int i = 0; i < R * N; i++)
        x[i] = (float)(rand() % 2001 - 1000) / 16.0f;
    TngrtArg X = t_arg(x, TNGRT_F32, 2, sx), V = t_arg(v, TNGRT_F32, 2, sk), I = t_arg(ix, TNGRT_I64, 2, sk);
    for (int largest = 0; largest < 2; largest++) {
        tngrt_kernel_topk(&V, &I, &X, 1, largest);
        for (int r = 0; r < R; r++) {
            unsigned char used[N] = {0};
            for (int j = 0; j < K; j++) {
                int best = -1;
                for (int c = 0; c < N; c++) {
                    float a = x[r * N + c];
                    if (used[c])
                        continue;
                    if (best < 0 || (largest ? a > x[r * N + best] : a < x[r * N + best]))
                        best = c;
                }
                used[best] = 1;
                assert_int_equal(ix[r * K + j], best);
                assert_true(v[r * K + j] == x[r * N + best]);
            }
        }
    }
}

/* max/min along a dim: the first NaN wins both; ties: the first index. */
static void test_arg_reduce(void **state)
{
    (void)state;
    float x[8] = {2.0f, NAN, 5.0f, NAN, -1.0f, 4.0f, 4.0f, -1.0f}, v[2];
    int64_t ix[2], sx[2] = {2, 4}, so[1] = {2};
    TngrtArg X = t_arg(x, TNGRT_F32, 2, sx), V = t_arg(v, TNGRT_F32, 1, so), I = t_arg(ix, TNGRT_I64, 1, so);
    tngrt_kernel_arg_reduce(&V, &I, &X, 1, 0);
    assert_true(isnan(v[0]) && ix[0] == 1);
    assert_true(v[1] == 4.0f && ix[1] == 1);
    tngrt_kernel_arg_reduce(&V, &I, &X, -1, 1);
    assert_true(isnan(v[0]) && ix[0] == 1);
    assert_true(v[1] == -1.0f && ix[1] == 0);
    int32_t y[6] = {3, 1, 3, 3, 2, 1};
    int64_t iy[3], sy[2] = {2, 3}, s3[1] = {3};
    TngrtArg Y = t_arg(y, TNGRT_I32, 2, sy), IY = t_arg(iy, TNGRT_I64, 1, s3);
    tngrt_kernel_arg_reduce(NULL, &IY, &Y, 0, 0);   /* argmax along dim 0 */
    assert_true(iy[0] == 0 && iy[1] == 1 && iy[2] == 0);
    tngrt_kernel_arg_reduce(NULL, &IY, &Y, 0, 1);   /* argmin */
    assert_true(iy[0] == 0 && iy[1] == 0 && iy[2] == 1);
}

/* cumsum: float accumulation rounded per element (bfloat16), int32 to
 * int64, along dim 0 and 1. */
static void test_cumsum(void **state)
{
    (void)state;
    int32_t x[6] = {1, 2, 3, 4, 5, 6};
    int64_t o[6], sh[2] = {2, 3};
    TngrtArg X = t_arg(x, TNGRT_I32, 2, sh), O = t_arg(o, TNGRT_I64, 2, sh);
    tngrt_kernel_cumsum(&O, &X, 1);
    static const int64_t e1[6] = {1, 3, 6, 4, 9, 15}, e0[6] = {1, 2, 3, 5, 7, 9};
    for (int j = 0; j < 6; j++)
        assert_int_equal(o[j], e1[j]);
    tngrt_kernel_cumsum(&O, &X, 0);
    for (int j = 0; j < 6; j++)
        assert_int_equal(o[j], e0[j]);
    /* bfloat16: 256 + 1 rounds to 256 when stored, but the float
     * accumulator keeps it: 256, 256 (257), 258 (258) */
    uint16_t b[3] = {t_bf16(256.0f), t_bf16(1.0f), t_bf16(1.0f)}, ob[3];
    int64_t s3[1] = {3};
    TngrtArg B = t_arg(b, TNGRT_BF16, 1, s3), OB = t_arg(ob, TNGRT_BF16, 1, s3);
    tngrt_kernel_cumsum(&OB, &B, 0);
    assert_true(t_bf16f(ob[0]) == 256.0f && t_bf16f(ob[1]) == 256.0f && t_bf16f(ob[2]) == 258.0f);
}

/* amin and prod through tngrt_kernel_reduce. */
static void test_amin_prod(void **state)
{
    (void)state;
    float x[6] = {2.0f, -3.0f, 0.5f, 4.0f, NAN, 1.0f}, o[2];
    int64_t sh[2] = {2, 3}, so[1] = {2};
    TngrtArg X = t_arg(x, TNGRT_F32, 2, sh), O = t_arg(o, TNGRT_F32, 1, so);
    tngrt_kernel_reduce(&O, &X, TNGRT_RED_AMIN, 0x2u);
    assert_true(o[0] == -3.0f && isnan(o[1]));
    tngrt_kernel_reduce(&O, &X, TNGRT_RED_PROD, 0x2u);
    assert_true(o[0] == -3.0f && isnan(o[1]));
    int64_t y[4] = {3, -2, 5, 7}, p[1], s4[1] = {4};
    TngrtArg Y = t_arg(y, TNGRT_I64, 1, s4), P = t_arg(p, TNGRT_I64, 0, NULL);
    tngrt_kernel_reduce(&P, &Y, TNGRT_RED_PROD, 0x1u);
    assert_int_equal(p[0], -210);
    tngrt_kernel_reduce(&P, &Y, TNGRT_RED_AMIN, 0x1u);
    assert_int_equal(p[0], -2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_topk_nan_and_ties),
        cmocka_unit_test(test_sort_dim0),
        cmocka_unit_test(test_topk_random),
        cmocka_unit_test(test_arg_reduce),
        cmocka_unit_test(test_cumsum),
        cmocka_unit_test(test_amin_prod),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
