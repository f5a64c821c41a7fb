/*
 * test_rt_index.c - unit tests of libtngcrt's indexing and scatter kernels
 * (tngrt_kernels.h, "kernels: indexing and scatter") against small cases
 * worked out by hand (PyTorch's results for the same calls): index_select,
 * gather, advanced indexing (consecutive dims, broadcast and negative
 * indices), index_put (store, accumulate with duplicates, dtype conversion),
 * scatter (src, value, add, multiply), scatter_add, index_add, index_copy;
 * half types rounding once per update; and every out-of-range index: -1,
 * TNGRT_ERR_BAD_INPUT, the message, and nothing written.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../runtime/tngrt_kernels.h"

/* A float32 operand over data with shape s[0..nd). */
static TngrtArg t_f32(float *data, int nd, const int64_t *s)
{
    return (TngrtArg){data, TNGRT_F32, nd, s};
}

static TngrtArg t_i64(int64_t *data, int nd, const int64_t *s)
{
    return (TngrtArg){data, TNGRT_I64, nd, s};
}

/* 0..n-1 as floats. */
static void t_iota(float *p, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (float)i;
}

static void t_expect(const float *got, const float *want, int n)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("element %d: got %g, expected %g", i, (double)got[i], (double)want[i]);
}

static void test_index_select(void **state)
{
    (void)state;
    float x[12], o[9];
    int64_t xs[2] = {3, 4}, is[1] = {3}, os0[2] = {3, 4}, os1[2] = {3, 3}, ix[3] = {2, 0, 2};
    int32_t ix32[3] = {3, 1, 0};
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    t_iota(x, 12);
    TngrtArg X = t_f32(x, 2, xs), I = t_i64(ix, 1, is), I32 = {ix32, TNGRT_I32, 1, is};
    float o12[12];
    TngrtArg O0 = t_f32(o12, 2, os0), O1 = t_f32(o, 2, os1);
    assert_int_equal(tngrt_kernel_index_select(&O0, &X, &I, 0, &err), 0);
    t_expect(o12, (const float[]){8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11}, 12);
    assert_int_equal(tngrt_kernel_index_select(&O1, &X, &I32, 1, &err), 0);
    t_expect(o, (const float[]){3, 1, 0, 7, 5, 4, 11, 9, 8}, 9);
    ix[1] = 3;
    assert_int_equal(tngrt_kernel_index_select(&O0, &X, &I, 0, &err), -1);
    assert_int_equal(err.kind, TNGRT_ERR_BAD_INPUT);
    assert_string_equal(err.msg, "index_select: index 3 is out of bounds for dim 0 with size 3");
    ix[1] = -1;   /* index_select does not count from the end */
    assert_int_equal(tngrt_kernel_index_select(&O0, &X, &I, 0, NULL), -1);
}

static void test_gather(void **state)
{
    (void)state;
    float x[6] = {1, 2, 3, 4, 5, 6}, o[4];
    int64_t xs[2] = {2, 3}, is[2] = {2, 2}, ix[4] = {2, 0, 1, 1};
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    TngrtArg X = t_f32(x, 2, xs), I = t_i64(ix, 2, is), O = t_f32(o, 2, is);
    assert_int_equal(tngrt_kernel_gather(&O, &X, &I, 1, &err), 0);
    t_expect(o, (const float[]){3, 1, 5, 5}, 4);
    ix[0] = 1, ix[1] = 0;
    assert_int_equal(tngrt_kernel_gather(&O, &X, &I, 0, &err), 0);   /* out[i][j] = x[ix[i][j]][j] */
    t_expect(o, (const float[]){4, 2, 4, 5}, 4);
    ix[3] = 2;
    assert_int_equal(tngrt_kernel_gather(&O, &X, &I, 0, &err), -1);
    assert_string_equal(err.msg, "gather: index 2 is out of bounds for dim 0 with size 2");
    int64_t big[2] = {3, 1};   /* more rows than the input's on the other dim */
    TngrtArg IB = t_i64(ix, 2, big), OB = t_f32(o, 2, big);
    assert_int_equal(tngrt_kernel_gather(&OB, &X, &IB, 1, &err), -1);
    assert_int_equal(err.kind, TNGRT_ERR_BAD_INPUT);
}

static void test_index(void **state)
{
    (void)state;
    float x[24], o[8];
    int64_t xs[3] = {2, 3, 4}, i0s[2] = {2, 1}, i1s[1] = {2}, os[3] = {2, 2, 2};
    int64_t i0[2] = {-1, 0}, i1[2] = {1, 3};
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    t_iota(x, 24);
    /* x[:, i0, i1] with i0 [2,1] and i1 [2] broadcast to [2,2]: out [2, 2, 2] */
    TngrtArg X = t_f32(x, 3, xs), I0 = t_i64(i0, 2, i0s), I1 = t_i64(i1, 1, i1s), O = t_f32(o, 3, os);
    const TngrtArg *ix[2] = {&I0, &I1};
    assert_int_equal(tngrt_kernel_index(&O, &X, ix, 2, 1, &err), 0);
    /* row b: x[b][2][1], x[b][2][3], x[b][0][1], x[b][0][3] */
    t_expect(o, (const float[]){9, 11, 1, 3, 21, 23, 13, 15}, 8);
    i0[0] = -4;
    assert_int_equal(tngrt_kernel_index(&O, &X, ix, 2, 1, &err), -1);
    assert_string_equal(err.msg, "index: index -4 is out of bounds for dim 1 with size 3");
    assert_int_equal(err.kind, TNGRT_ERR_BAD_INPUT);
}

/* The index check and row of a matmul reading x[idx] in place: idx's one
 * element in [-n, n) passes (negative from the end), else the message of
 * tngrt_kernel_index; the row stays in [0, n) whatever idx holds. */
static void test_index_row(void **state)
{
    (void)state;
    int64_t i[1] = {2}, is[1] = {1}, two[2] = {0, 1}, ts[1] = {2};
    int32_t j[1] = {-3};
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    TngrtArg I = t_i64(i, 1, is), T2 = t_i64(two, 1, ts);
    TngrtArg J = {j, TNGRT_I32, 1, is};
    assert_int_equal(tngrt_kernel_index_check(&I, 3, 0, &err), 0);
    assert_int_equal(tngrt_kernel_index_row(&I, 3), 2);
    assert_int_equal(tngrt_kernel_index_check(&J, 3, 0, &err), 0);
    assert_int_equal(tngrt_kernel_index_row(&J, 3), 0);
    i[0] = -1;
    assert_int_equal(tngrt_kernel_index_row(&I, 3), 2);
    i[0] = 3;
    assert_int_equal(tngrt_kernel_index_check(&I, 3, 0, &err), -1);
    assert_string_equal(err.msg, "index: index 3 is out of bounds for dim 0 with size 3");
    assert_int_equal(err.kind, TNGRT_ERR_BAD_INPUT);
    assert_int_equal(tngrt_kernel_index_row(&I, 3), 2);
    i[0] = -7;
    assert_int_equal(tngrt_kernel_index_check(&I, 3, 1, &err), -1);
    assert_string_equal(err.msg, "index: index -7 is out of bounds for dim 1 with size 3");
    assert_int_equal(tngrt_kernel_index_row(&I, 3), 0);
    assert_int_equal(tngrt_kernel_index_check(&T2, 3, 0, &err), -1);   /* one element only */
}

static void test_index_put(void **state)
{
    (void)state;
    float d[12] = {0}, v[4] = {1, 2, 3, 4};
    int64_t ds[2] = {3, 4}, is[1] = {2}, ia[2] = {2, -3}, ib[2] = {1, 3};
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    TngrtArg D = t_f32(d, 2, ds), IA = t_i64(ia, 1, is), IB = t_i64(ib, 1, is), V = t_f32(v, 1, is);
    const TngrtArg *two[2] = {&IA, &IB}, *one[1] = {&IA};
    /* d[ia, ib] = v[:2] */
    assert_int_equal(tngrt_kernel_index_put(&D, &V, two, 2, 0, 0, &err), 0);
    t_expect(d, (const float[]){0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0, 0}, 12);
    /* d[:, ib] += v[:2] (broadcast over the rows) with a duplicate column:
     * both add */
    ib[0] = 3;
    const TngrtArg *col[1] = {&IB};
    assert_int_equal(tngrt_kernel_index_put(&D, &V, col, 1, 1, 1, &err), 0);
    t_expect(d, (const float[]){0, 0, 0, 5, 0, 0, 0, 3, 0, 1, 0, 3}, 12);
    /* float16 destination from float32 values, rounded once */
    uint16_t h[4] = {0};
    int64_t hs[1] = {4}, hi[1] = {1}, his[1] = {1};
    float fv[1] = {0.1f};
    TngrtArg H = {h, TNGRT_F16, 1, hs}, HI = t_i64(hi, 1, his), FV = t_f32(fv, 0, NULL);
    const TngrtArg *hix[1] = {&HI};
    assert_int_equal(tngrt_kernel_index_put(&H, &FV, hix, 1, 0, 0, &err), 0);
    assert_int_equal(h[1], 0x2e66);   /* float16(0.1) */
    /* out of range: nothing written */
    float before[12];
    memcpy(before, d, sizeof d);
    ia[1] = 3;
    assert_int_equal(tngrt_kernel_index_put(&D, &FV, one, 1, 0, 1, &err), -1);
    assert_string_equal(err.msg, "index_put: index 3 is out of bounds for dim 0 with size 3");
    t_expect(d, before, 12);
}

static void test_scatter(void **state)
{
    (void)state;
    float s[6] = {1, 1, 1, 1, 1, 1}, src[4] = {5, 6, 7, 8}, o[6];
    int64_t ss[2] = {2, 3}, is[2] = {2, 2}, ix[4] = {2, 0, 1, 1};
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    TngrtArg S = t_f32(s, 2, ss), I = t_i64(ix, 2, is), SRC = t_f32(src, 2, is), O = t_f32(o, 2, ss);
    ix[3] = 2;
    assert_int_equal(tngrt_kernel_scatter(&O, &S, &I, &SRC, 0, 1, 0, &err), 0);
    t_expect(o, (const float[]){6, 1, 5, 1, 7, 8}, 6);
    assert_int_equal(tngrt_kernel_scatter(&O, &S, &I, NULL, 2.5, 1, 0, &err), 0);
    t_expect(o, (const float[]){2.5f, 1, 2.5f, 1, 2.5f, 2.5f}, 6);
    assert_int_equal(tngrt_kernel_scatter(&O, &S, &I, &SRC, 0, 1, 2, &err), 0);   /* multiply */
    t_expect(o, (const float[]){6, 1, 5, 1, 7, 8}, 6);
    ix[3] = 1;   /* scatter_add: duplicates sum */
    assert_int_equal(tngrt_kernel_scatter(&O, &S, &I, &SRC, 0, 1, 1, &err), 0);
    t_expect(o, (const float[]){7, 1, 6, 1, 16, 1}, 6);
    /* in place (out is self) */
    assert_int_equal(tngrt_kernel_scatter(&S, &S, &I, &SRC, 0, 1, 1, &err), 0);
    t_expect(s, (const float[]){7, 1, 6, 1, 16, 1}, 6);
    ix[0] = 3;
    assert_int_equal(tngrt_kernel_scatter(&O, &S, &I, &SRC, 0, 1, 1, &err), -1);
    assert_string_equal(err.msg, "scatter: index 3 is out of bounds for dim 1 with size 3");
    assert_int_equal(err.kind, TNGRT_ERR_BAD_INPUT);
    /* int64 scatter_add wraps, exact */
    int64_t a[2] = {INT64_MAX, 5}, b[2] = {1, 7}, ai[2] = {0, 0}, oi[2], s1[1] = {2};
    TngrtArg A = t_i64(a, 1, s1), B = t_i64(b, 1, s1), AI = t_i64(ai, 1, s1), OI = t_i64(oi, 1, s1);
    assert_int_equal(tngrt_kernel_scatter(&OI, &A, &AI, &B, 0, 0, 1, &err), 0);
    assert_true(oi[0] == INT64_MIN + 7 && oi[1] == 5);
}

static void test_index_update(void **state)
{
    (void)state;
    float s[6] = {0}, src[4] = {1, 2, 3, 4}, o[6];
    int64_t ss[2] = {3, 2}, is[1] = {2}, srs[2] = {2, 2}, ix[2] = {2, 2};
    int32_t ix32[2] = {0, 2};
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    TngrtArg S = t_f32(s, 2, ss), I = t_i64(ix, 1, is), I32 = {ix32, TNGRT_I32, 1, is};
    TngrtArg SRC = t_f32(src, 2, srs), O = t_f32(o, 2, ss);
    assert_int_equal(tngrt_kernel_index_update(&O, &S, &I, &SRC, 0, 1, 2.0, &err), 0);   /* alpha 2, dup */
    t_expect(o, (const float[]){0, 0, 0, 0, 8, 12}, 6);
    assert_int_equal(tngrt_kernel_index_update(&O, &S, &I32, &SRC, 0, 0, 1.0, &err), 0);   /* copy */
    t_expect(o, (const float[]){1, 2, 0, 0, 3, 4}, 6);
    ix32[1] = 3;
    assert_int_equal(tngrt_kernel_index_update(&O, &S, &I32, &SRC, 0, 0, 1.0, &err), -1);
    assert_string_equal(err.msg, "index_copy: index 3 is out of bounds for dim 0 with size 3");
    ix[0] = -1;
    assert_int_equal(tngrt_kernel_index_update(&O, &S, &I, &SRC, 0, 1, 1.0, &err), -1);
    assert_string_equal(err.msg, "index_add: index -1 is out of bounds for dim 0 with size 3");
    /* bfloat16 index_add rounds each update */
    uint16_t hb[1] = {0x3f80}, hs[2] = {0x3b80, 0x3b80};   /* 1.0; 2^-8 twice */
    int64_t one[1] = {1}, two[1] = {2}, z[2] = {0, 0};
    TngrtArg HB = {hb, TNGRT_BF16, 1, one}, HS = {hs, TNGRT_BF16, 1, two}, Z = t_i64(z, 1, two);
    assert_int_equal(tngrt_kernel_index_update(&HB, &HB, &Z, &HS, 0, 1, 1.0, &err), 0);
    assert_int_equal(hb[0], 0x3f80);   /* 1 + 2^-8 rounds to 1, twice */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_select), cmocka_unit_test(test_gather),
        cmocka_unit_test(test_index),        cmocka_unit_test(test_index_put),
        cmocka_unit_test(test_index_row),
        cmocka_unit_test(test_scatter),      cmocka_unit_test(test_index_update),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
