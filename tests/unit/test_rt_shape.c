/*
 * test_rt_shape.c - unit tests of libtngcrt's "creation and constants" and
 * "shape" kernels (tngrt_kernels.h: arange, tri, flip, roll) against index
 * arithmetic written out here: every dtype's bytes move exactly, empty
 * dims, negative and far-out diagonals, shifts past the size and negative,
 * rolls and flips of several dims at once, 0-d tensors.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../runtime/tngrt_kernels.h"

/* A TngrtArg over caller storage. */
static TngrtArg t_arg(void *data, TngrtDType dt, int ndim, const int64_t *shape)
{
    TngrtArg a = {data, dt, ndim, shape};
    return a;
}

/* ---------------- arange ---------------- */

static void test_arange_ints(void **state)
{
    (void)state;
    int64_t o[6], n6[1] = {6};
    TngrtArg a = t_arg(o, TNGRT_I64, 1, n6);
    tngrt_kernel_arange(&a, 3, 0, -2);
    for (int i = 0; i < 6; i++)
        assert_int_equal(o[i], 3 - 2 * i);
    int32_t q[6];
    a = t_arg(q, TNGRT_I32, 1, n6);
    tngrt_kernel_arange(&a, 1.9, 0, 2.5);   /* integer dtype: start 1, step 2 (truncated) */
    for (int i = 0; i < 6; i++)
        assert_int_equal(q[i], 1 + 2 * i);
    int64_t n0[1] = {0};
    a = t_arg(NULL, TNGRT_I64, 1, n0);   /* empty: nothing touched */
    tngrt_kernel_arange(&a, 0, 0, 1);
    a = t_arg(o, TNGRT_I64, 1, n6);   /* a symbolic part of the start */
    tngrt_kernel_arange(&a, -1, 10, 3);
    for (int i = 0; i < 6; i++)
        assert_int_equal(o[i], 9 + 3 * i);
}

static void test_arange_floats(void **state)
{
    (void)state;
    float f[8];
    int64_t n8[1] = {8};
    TngrtArg a = t_arg(f, TNGRT_F32, 1, n8);
    tngrt_kernel_arange(&a, -1.5, 0, 0.25);
    for (int i = 0; i < 8; i++)
        assert_true(f[i] == (float)(-1.5 + 0.25 * i));
    uint16_t h[8];
    a = t_arg(h, TNGRT_F16, 1, n8);
    tngrt_kernel_arange(&a, 0, 0, 0.5);
    assert_int_equal(h[0], 0x0000);   /* 0.0 */
    assert_int_equal(h[2], 0x3c00);   /* 1.0 */
    assert_int_equal(h[7], 0x4300);   /* 3.5 */
    a = t_arg(h, TNGRT_BF16, 1, n8);
    tngrt_kernel_arange(&a, 0.5, 1, 1);   /* 1.5, 2.5: start_dim adds */
    assert_int_equal(h[0], 0x3fc0);   /* 1.5 */
    assert_int_equal(h[1], 0x4020);   /* 2.5 */
}

/* ---------------- triu / tril ---------------- */

/* Checks tri over a [m, r, c] int32 tensor of 1 + index values. */
static void t_tri_check(int64_t m, int64_t r, int64_t c, int64_t k, int lower)
{
    int32_t x[64], o[64];
    int64_t shape[3] = {m, r, c};
    for (int i = 0; i < m * r * c; i++) {
        x[i] = i + 1;
        o[i] = -7;
    }
    TngrtArg a = t_arg(o, TNGRT_I32, 3, shape), b = t_arg(x, TNGRT_I32, 3, shape);
    tngrt_kernel_tri(&a, &b, k, lower);
    for (int64_t q = 0; q < m; q++)
        for (int64_t i = 0; i < r; i++)
            for (int64_t j = 0; j < c; j++) {
                int64_t at = (q * r + i) * c + j;
                int keep = lower ? j - i <= k : j - i >= k;
                assert_int_equal(o[at], keep ? x[at] : 0);
            }
}

static void test_tri(void **state)
{
    (void)state;
    static const int64_t ks[] = {0, 1, -1, 2, -3, 7, -9};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        for (int lower = 0; lower < 2; lower++) {
            t_tri_check(2, 3, 3, ks[i], lower);
            t_tri_check(1, 3, 5, ks[i], lower);
            t_tri_check(2, 4, 2, ks[i], lower);
        }
    t_tri_check(1, 3, 3, INT64_MAX, 0);   /* no overflow at the extremes */
    t_tri_check(1, 3, 3, INT64_MIN + 1, 1);
    t_tri_check(1, 3, 3, INT64_MAX, 1);
    t_tri_check(1, 3, 3, INT64_MIN + 1, 0);
    int64_t empty[2] = {0, 3};   /* no rows: nothing touched */
    TngrtArg a = t_arg(NULL, TNGRT_F32, 2, empty), b = a;
    tngrt_kernel_tri(&a, &b, 0, 0);
}

static void test_tri_dtypes(void **state)
{
    (void)state;
    /* -inf above the diagonal of a float16 mask: its bits move, 0 below */
    uint16_t x[4] = {0xfc00, 0xfc00, 0xfc00, 0xfc00}, o[4];
    int64_t s[2] = {2, 2};
    TngrtArg a = t_arg(o, TNGRT_F16, 2, s), b = t_arg(x, TNGRT_F16, 2, s);
    tngrt_kernel_tri(&a, &b, 1, 0);
    assert_int_equal(o[0], 0);
    assert_int_equal(o[1], 0xfc00);
    assert_int_equal(o[2], 0);
    assert_int_equal(o[3], 0);
    uint8_t bx[4] = {1, 1, 1, 1}, bo[4];
    a = t_arg(bo, TNGRT_BOOL, 2, s);
    b = t_arg(bx, TNGRT_BOOL, 2, s);
    tngrt_kernel_tri(&a, &b, 0, 1);
    assert_int_equal(bo[0], 1);
    assert_int_equal(bo[1], 0);
    assert_int_equal(bo[2], 1);
    assert_int_equal(bo[3], 1);
}

/* ---------------- flip / roll ---------------- */

/* x[2, 3, 4] int64 of its flat indices; out of the kernel vs the expected
 * source index of each element (f: flips per dim, sh: shifts per dim). */
static void t_remap_check(const int64_t *o, const int64_t *shape, const int *f, const int64_t *sh)
{
    for (int64_t i = 0; i < shape[0]; i++)
        for (int64_t j = 0; j < shape[1]; j++)
            for (int64_t k = 0; k < shape[2]; k++) {
                int64_t idx[3] = {i, j, k}, src = 0;
                for (int d = 0; d < 3; d++) {
                    int64_t n = shape[d], v = f[d] ? n - 1 - idx[d] : idx[d];
                    v = ((v - sh[d]) % n + n) % n;
                    src = src * n + v;
                }
                assert_int_equal(o[(i * shape[1] + j) * shape[2] + k], src);
            }
}

static void test_flip(void **state)
{
    (void)state;
    int64_t x[24], o[24], shape[3] = {2, 3, 4}, zero[3] = {0, 0, 0};
    for (int i = 0; i < 24; i++)
        x[i] = i;
    TngrtArg a = t_arg(o, TNGRT_I64, 3, shape), b = t_arg(x, TNGRT_I64, 3, shape);
    static const int masks[][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}, {1, 0, 1}, {1, 1, 1}, {0, 0, 0}};
    for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
        int64_t dims[3];
        int n = 0;
        for (int d = 0; d < 3; d++)
            if (masks[m][d])
                dims[n++] = d == 2 && m == 3 ? -1 : d;   /* a negative dim too */
        tngrt_kernel_flip(&a, &b, dims, n);
        t_remap_check(o, shape, masks[m], zero);
    }
    int64_t e[3] = {2, 0, 4};   /* empty: nothing touched */
    TngrtArg ea = t_arg(NULL, TNGRT_I64, 3, e), eb = ea;
    int64_t d0 = 1;
    tngrt_kernel_flip(&ea, &eb, &d0, 1);
}

static void test_roll(void **state)
{
    (void)state;
    int64_t x[24], o[24], shape[3] = {2, 3, 4};
    int none[3] = {0, 0, 0};
    for (int i = 0; i < 24; i++)
        x[i] = i;
    TngrtArg a = t_arg(o, TNGRT_I64, 3, shape), b = t_arg(x, TNGRT_I64, 3, shape);
    static const int64_t cases[][4] = {
        {1, 2, 0, 0}, {-1, 1, 0, 0}, {5, 2, 0, 0}, {-7, 1, 0, 0}, {9, 0, 0, 0},
        {1, 2, 2, 1}, {3, -1, -4, 0}, {4, 2, 3, 1}, {INT64_MAX, 2, INT64_MIN, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int np = cases[c][2] || cases[c][3] ? 4 : 2;
        int64_t sh[3] = {0, 0, 0};
        for (int p = 0; p < np; p += 2) {
            int d = (int)(cases[c][p + 1] < 0 ? cases[c][p + 1] + 3 : cases[c][p + 1]);
            sh[d] = ((sh[d] + cases[c][p] % shape[d]) % shape[d] + shape[d]) % shape[d];
        }
        tngrt_kernel_roll(&a, &b, cases[c], np);
        t_remap_check(o, shape, none, sh);
    }
    /* one dim rolled twice: the shifts add */
    int64_t twice[4] = {1, 2, 2, 2}, sh3[3] = {0, 0, 3};
    tngrt_kernel_roll(&a, &b, twice, 4);
    t_remap_check(o, shape, none, sh3);
    /* a 0-d tensor: copied */
    float s = 2.5f, so = 0;
    TngrtArg sa = t_arg(&so, TNGRT_F32, 0, NULL), sb = t_arg(&s, TNGRT_F32, 0, NULL);
    tngrt_kernel_roll(&sa, &sb, NULL, 0);
    assert_true(so == 2.5f);
    /* bfloat16 bits move exactly (a NaN payload too) */
    uint16_t hx[3] = {0x7fc1, 0x3f80, 0x8000}, ho[3];
    int64_t h3[1] = {3}, p[2] = {1, 0};
    TngrtArg ha = t_arg(ho, TNGRT_BF16, 1, h3), hb = t_arg(hx, TNGRT_BF16, 1, h3);
    tngrt_kernel_roll(&ha, &hb, p, 2);
    assert_int_equal(ho[0], 0x8000);
    assert_int_equal(ho[1], 0x7fc1);
    assert_int_equal(ho[2], 0x3f80);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arange_ints),
        cmocka_unit_test(test_arange_floats),
        cmocka_unit_test(test_tri),
        cmocka_unit_test(test_tri_dtypes),
        cmocka_unit_test(test_flip),
        cmocka_unit_test(test_roll),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
