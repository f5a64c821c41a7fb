/*
 * test_rt_compare.c - unit tests of libtngcrt's comparison, selection and
 * bool kernels (tngrt_kernels.h, "kernels: comparison, selection, bool"):
 * compare (broadcast, the promotion of mixed dtypes, Python scalars
 * rounded to the compute dtype, NaN), logic (logical and bitwise ops),
 * fpclass, where, masked_fill and any_all (dims, keepdim, empty), with
 * expected values written out by hand.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "../../runtime/tngrt_kernels.h"

/* A TngrtArg over data with n dims of shape. */
static TngrtArg t_arg(void *data, TngrtDType dt, int n, const int64_t *shape)
{
    TngrtArg a = {data, dt, n, shape};
    return a;
}

/* bfloat16 / float16 bit patterns of a few exact values. */
#define BF16_ONE 0x3F80u
#define BF16_NAN 0x7FC0u
#define BF16_INF 0x7F80u
#define F16_2_5 0x4100u
#define F16_1_5 0x3E00u

static void expect_bools(const uint8_t *got, const uint8_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        assert_int_equal(got[i], want[i]);
}

static void test_compare_broadcast_nan(void **state)
{
    (void)state;
    const int64_t sa[2] = {2, 3}, sb[1] = {3};
    float a[6] = {1, 2, 3, NAN, 5, 6}, b[3] = {1, 5, NAN};
    uint8_t o[6];
    TngrtArg out = t_arg(o, TNGRT_BOOL, 2, sa), x = t_arg(a, TNGRT_F32, 2, sa), y = t_arg(b, TNGRT_F32, 1, sb);
    tngrt_kernel_compare(&out, &x, &y, 0, 0, TNGRT_CMP_EQ);
    expect_bools(o, (const uint8_t[]){1, 0, 0, 0, 1, 0}, 6);
    tngrt_kernel_compare(&out, &x, &y, 0, 0, TNGRT_CMP_NE);
    expect_bools(o, (const uint8_t[]){0, 1, 1, 1, 0, 1}, 6);
    tngrt_kernel_compare(&out, &x, &y, 0, 0, TNGRT_CMP_LT);
    expect_bools(o, (const uint8_t[]){0, 1, 0, 0, 0, 0}, 6);
    tngrt_kernel_compare(&out, &x, &y, 0, 0, TNGRT_CMP_GE);
    expect_bools(o, (const uint8_t[]){1, 0, 0, 0, 1, 0}, 6);
    tngrt_kernel_compare(&out, &x, NULL, 3, 1, TNGRT_CMP_LE);
    expect_bools(o, (const uint8_t[]){1, 1, 1, 0, 0, 0}, 6);
    tngrt_kernel_compare(&out, &x, NULL, 2.5, 0, TNGRT_CMP_GT);
    expect_bools(o, (const uint8_t[]){0, 0, 1, 0, 1, 1}, 6);
}

/* A scalar is rounded to the compute dtype first (float16: 2.5000001 is
 * 2.5); int64 against a float scalar compares in float32, as torch. */
static void test_compare_promotion(void **state)
{
    (void)state;
    const int64_t s2[1] = {2};
    uint16_t h[2] = {F16_1_5, F16_2_5};
    uint8_t o[2];
    TngrtArg out = t_arg(o, TNGRT_BOOL, 1, s2), x = t_arg(h, TNGRT_F16, 1, s2);
    tngrt_kernel_compare(&out, &x, NULL, 2.5000001, 0, TNGRT_CMP_LT);
    expect_bools(o, (const uint8_t[]){1, 0}, 2);
    int64_t big[2] = {16777217, 3};
    TngrtArg xi = t_arg(big, TNGRT_I64, 1, s2);
    tngrt_kernel_compare(&out, &xi, NULL, 16777216.5, 0, TNGRT_CMP_LT);
    expect_bools(o, (const uint8_t[]){0, 1}, 2);
    tngrt_kernel_compare(&out, &xi, NULL, 3, 1, TNGRT_CMP_EQ);
    expect_bools(o, (const uint8_t[]){0, 1}, 2);
    /* int32 with float16: compared as float16 (1.5 vs 1, 2.5 vs 2) */
    int32_t iv[2] = {1, 2};
    TngrtArg yi = t_arg(iv, TNGRT_I32, 1, s2);
    tngrt_kernel_compare(&out, &x, &yi, 0, 0, TNGRT_CMP_GT);
    expect_bools(o, (const uint8_t[]){1, 1}, 2);
    /* a 0-d float32 tensor does not raise float16: compared as float16 */
    float z = 1.5f;
    TngrtArg zero = t_arg(&z, TNGRT_F32, 0, NULL);
    tngrt_kernel_compare(&out, &x, &zero, 0, 0, TNGRT_CMP_EQ);
    expect_bools(o, (const uint8_t[]){1, 0}, 2);
    /* bool with an int scalar: compared as int64 (True == 2 is false) */
    uint8_t bv[2] = {1, 0};
    TngrtArg xb = t_arg(bv, TNGRT_BOOL, 1, s2);
    tngrt_kernel_compare(&out, &xb, NULL, 2, 1, TNGRT_CMP_EQ);
    expect_bools(o, (const uint8_t[]){0, 0}, 2);
    tngrt_kernel_compare(&out, &xb, NULL, 1, 1, TNGRT_CMP_EQ);
    expect_bools(o, (const uint8_t[]){1, 0}, 2);
}

static void test_logic(void **state)
{
    (void)state;
    const int64_t s4[1] = {4};
    float a[4] = {0, NAN, 2, 0};
    int32_t b[4] = {0, 0, 7, -3};
    uint8_t o[4];
    TngrtArg out = t_arg(o, TNGRT_BOOL, 1, s4), x = t_arg(a, TNGRT_F32, 1, s4), y = t_arg(b, TNGRT_I32, 1, s4);
    tngrt_kernel_logic(&out, &x, &y, TNGRT_LOGIC_AND);
    expect_bools(o, (const uint8_t[]){0, 0, 1, 0}, 4);
    tngrt_kernel_logic(&out, &x, &y, TNGRT_LOGIC_OR);
    expect_bools(o, (const uint8_t[]){0, 1, 1, 1}, 4);
    tngrt_kernel_logic(&out, &x, &y, TNGRT_LOGIC_XOR);
    expect_bools(o, (const uint8_t[]){0, 1, 0, 1}, 4);
    tngrt_kernel_logic(&out, &x, NULL, TNGRT_LOGIC_NOT);
    expect_bools(o, (const uint8_t[]){1, 0, 0, 1}, 4);
    /* bitwise on int32 (in place on b) and on int8 with wrap */
    int32_t c[4] = {6, -1, 5, 12};
    TngrtArg z = t_arg(c, TNGRT_I32, 1, s4), oi = t_arg(b, TNGRT_I32, 1, s4);
    tngrt_kernel_logic(&oi, &y, &z, TNGRT_BIT_AND);
    assert_int_equal(b[0], 0), assert_int_equal(b[1], 0), assert_int_equal(b[2], 5), assert_int_equal(b[3], 12);
    tngrt_kernel_logic(&oi, &oi, &z, TNGRT_BIT_XOR);
    assert_int_equal(b[0], 6), assert_int_equal(b[1], -1), assert_int_equal(b[2], 0), assert_int_equal(b[3], 0);
    tngrt_kernel_logic(&oi, &z, NULL, TNGRT_BIT_NOT);
    assert_int_equal(b[0], -7), assert_int_equal(b[1], 0), assert_int_equal(b[2], -6), assert_int_equal(b[3], -13);
    int8_t d[4] = {127, -128, 0, 1}, e[4];
    TngrtArg x8 = t_arg(d, TNGRT_I8, 1, s4), o8 = t_arg(e, TNGRT_I8, 1, s4);
    tngrt_kernel_logic(&o8, &x8, NULL, TNGRT_BIT_NOT);
    assert_int_equal(e[0], -128), assert_int_equal(e[1], 127), assert_int_equal(e[2], -1), assert_int_equal(e[3], -2);
    uint8_t p[4] = {1, 0, 1, 0}, q[4] = {1, 1, 0, 0};
    TngrtArg bp = t_arg(p, TNGRT_BOOL, 1, s4), bq = t_arg(q, TNGRT_BOOL, 1, s4);
    tngrt_kernel_logic(&out, &bp, &bq, TNGRT_BIT_OR);
    expect_bools(o, (const uint8_t[]){1, 1, 1, 0}, 4);
    tngrt_kernel_logic(&out, &bp, NULL, TNGRT_BIT_NOT);
    expect_bools(o, (const uint8_t[]){0, 1, 0, 1}, 4);
}

static void test_fpclass(void **state)
{
    (void)state;
    const int64_t s4[1] = {4};
    uint16_t b[4] = {BF16_ONE, BF16_NAN, BF16_INF, (uint16_t)(BF16_INF | 0x8000u)};
    int64_t iv[4] = {1, 2, 3, 4};
    uint8_t o[4];
    TngrtArg out = t_arg(o, TNGRT_BOOL, 1, s4), x = t_arg(b, TNGRT_BF16, 1, s4), xi = t_arg(iv, TNGRT_I64, 1, s4);
    tngrt_kernel_fpclass(&out, &x, TNGRT_FP_ISNAN);
    expect_bools(o, (const uint8_t[]){0, 1, 0, 0}, 4);
    tngrt_kernel_fpclass(&out, &x, TNGRT_FP_ISINF);
    expect_bools(o, (const uint8_t[]){0, 0, 1, 1}, 4);
    tngrt_kernel_fpclass(&out, &x, TNGRT_FP_ISFINITE);
    expect_bools(o, (const uint8_t[]){1, 0, 0, 0}, 4);
    tngrt_kernel_fpclass(&out, &xi, TNGRT_FP_ISFINITE);
    expect_bools(o, (const uint8_t[]){1, 1, 1, 1}, 4);
    tngrt_kernel_fpclass(&out, &xi, TNGRT_FP_ISNAN);
    expect_bools(o, (const uint8_t[]){0, 0, 0, 0}, 4);
}

static void test_where(void **state)
{
    (void)state;
    const int64_t s23[2] = {2, 3}, s3[1] = {3}, s21[2] = {2, 1};
    uint8_t c[3] = {1, 0, 1};
    int32_t a[2] = {10, 20};
    float b[6] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f}, o[6];
    TngrtArg out = t_arg(o, TNGRT_F32, 2, s23), tc = t_arg(c, TNGRT_BOOL, 1, s3),
             ta = t_arg(a, TNGRT_I32, 2, s21), tb = t_arg(b, TNGRT_F32, 2, s23);
    tngrt_kernel_where(&out, &tc, &ta, &tb);
    const float want[6] = {10, 1.5f, 10, 20, 4.5f, 20};
    for (int i = 0; i < 6; i++)
        assert_true(o[i] == want[i]);
    /* in place over b, with a 0-d branch */
    float s = -1;
    TngrtArg ts = t_arg(&s, TNGRT_F32, 0, NULL);
    tngrt_kernel_where(&tb, &tc, &ts, &tb);
    const float want2[6] = {-1, 1.5f, -1, -1, 4.5f, -1};
    for (int i = 0; i < 6; i++)
        assert_true(b[i] == want2[i]);
    /* int64 out from int32 and bool branches */
    int64_t oi[3];
    uint8_t bb[3] = {1, 1, 0};
    int32_t ai[3] = {-5, 6, 7};
    TngrtArg outi = t_arg(oi, TNGRT_I64, 1, s3), tbb = t_arg(bb, TNGRT_BOOL, 1, s3), tai = t_arg(ai, TNGRT_I32, 1, s3);
    tngrt_kernel_where(&outi, &tc, &tai, &tbb);
    assert_int_equal(oi[0], -5), assert_int_equal(oi[1], 1), assert_int_equal(oi[2], 7);
}

static void test_masked_fill(void **state)
{
    (void)state;
    const int64_t s23[2] = {2, 3}, s3[1] = {3};
    uint8_t m[3] = {0, 1, 1};
    uint16_t h[6] = {F16_1_5, F16_1_5, F16_1_5, F16_2_5, F16_2_5, F16_2_5};
    TngrtArg out = t_arg(h, TNGRT_F16, 2, s23), tm = t_arg(m, TNGRT_BOOL, 1, s3);
    tngrt_kernel_masked_fill(&out, &tm, -INFINITY);
    const uint16_t want[6] = {F16_1_5, 0xFC00u, 0xFC00u, F16_2_5, 0xFC00u, 0xFC00u};
    for (int i = 0; i < 6; i++)
        assert_int_equal(h[i], want[i]);
    int32_t iv[6] = {1, 2, 3, 4, 5, 6};
    TngrtArg oi = t_arg(iv, TNGRT_I32, 2, s23);
    tngrt_kernel_masked_fill(&oi, &tm, -2.7);   /* truncated toward zero */
    assert_int_equal(iv[0], 1), assert_int_equal(iv[1], -2), assert_int_equal(iv[5], -2);
    uint8_t bv[6] = {0, 0, 0, 1, 0, 1};
    TngrtArg ob = t_arg(bv, TNGRT_BOOL, 2, s23);
    tngrt_kernel_masked_fill(&ob, &tm, 0.5);
    expect_bools(bv, (const uint8_t[]){0, 1, 1, 1, 1, 1}, 6);
}

static void test_any_all(void **state)
{
    (void)state;
    const int64_t s23[2] = {2, 3}, s2[1] = {2}, s13[2] = {1, 3}, s20[2] = {2, 0};
    float x[6] = {0, 0, 0, 0, NAN, 0};
    uint8_t o[3], one;
    TngrtArg tx = t_arg(x, TNGRT_F32, 2, s23), o2 = t_arg(o, TNGRT_BOOL, 1, s2);
    tngrt_kernel_any_all(&o2, &tx, 0x2u, 0);
    expect_bools(o, (const uint8_t[]){0, 1}, 2);
    tngrt_kernel_any_all(&o2, &tx, 0x2u, 1);
    expect_bools(o, (const uint8_t[]){0, 0}, 2);
    TngrtArg o13 = t_arg(o, TNGRT_BOOL, 2, s13);
    tngrt_kernel_any_all(&o13, &tx, 0x1u, 0);
    expect_bools(o, (const uint8_t[]){0, 1, 0}, 3);
    TngrtArg o0 = t_arg(&one, TNGRT_BOOL, 0, NULL);
    tngrt_kernel_any_all(&o0, &tx, 0x3u, 0);
    assert_int_equal(one, 1);
    int64_t iv[6] = {1, 2, 3, 4, -5, 6};
    TngrtArg ti = t_arg(iv, TNGRT_I64, 2, s23);
    tngrt_kernel_any_all(&o0, &ti, 0x3u, 1);
    assert_int_equal(one, 1);
    /* over no elements: any false, all true */
    TngrtArg te = t_arg(x, TNGRT_F32, 2, s20);
    tngrt_kernel_any_all(&o2, &te, 0x2u, 0);
    expect_bools(o, (const uint8_t[]){0, 0}, 2);
    tngrt_kernel_any_all(&o2, &te, 0x2u, 1);
    expect_bools(o, (const uint8_t[]){1, 1}, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_broadcast_nan),
        cmocka_unit_test(test_compare_promotion),
        cmocka_unit_test(test_logic),
        cmocka_unit_test(test_fpclass),
        cmocka_unit_test(test_where),
        cmocka_unit_test(test_masked_fill),
        cmocka_unit_test(test_any_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
