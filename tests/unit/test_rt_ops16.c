/*
 * test_rt_ops16.c - unit tests of later additions to the op families:
 * npu_moe_gating_top_k's group selection (both scores), tie order and
 * normalisation, against values worked out here from the formula of
 * tests/ref/stubs/torch_npu.
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

/* A tensor operand over caller storage. */
static TngrtArg t_arg(void *data, TngrtDType dt, int ndim, const int64_t *shape)
{
    TngrtArg a = {data, dt, ndim, shape};
    return a;
}

static double t_sig(double v) { return 1.0 / (1.0 + exp(-v)); }

/* moe_gating_top_k, sigmoid, 4 groups of 2, 2 kept: by the two largest
 * (groups 2 and 1 win; experts 4 and 5 tie, the lower first) and by the
 * maximum (groups 0 and 2); y normalised by its sum and scaled; out holds
 * the sigmoid. */
static void test_moe_gating_groups(void **state)
{
    (void)state;
    float x[8] = {3.0f, -3.0f, 1.0f, 1.0f, 2.0f, 2.0f, -1.0f, 0.5f}, y[3], out[8];
    int32_t ei[3];
    int64_t sx[2] = {1, 8}, sy[2] = {1, 3};
    TngrtArg ax = t_arg(x, TNGRT_F32, 2, sx), ay = t_arg(y, TNGRT_F32, 2, sy);
    TngrtArg ae = t_arg(ei, TNGRT_I32, 2, sy), ao = t_arg(out, TNGRT_F32, 2, sx);
    tngrt_kernel_moe_gating_top_k(&ay, &ae, &ao, &ax, NULL, 3, 2, 4, 1, 1, 2.0, 1e-20);
    assert_int_equal(ei[0], 4);
    assert_int_equal(ei[1], 5);
    assert_int_equal(ei[2], 2);
    double s = 2 * t_sig(2.0) + t_sig(1.0);
    assert_true(fabs(y[0] - 2.0 * t_sig(2.0) / s) < 1e-6 && y[0] == y[1]);
    assert_true(fabs(y[2] - 2.0 * t_sig(1.0) / s) < 1e-6);
    for (int j = 0; j < 8; j++)
        assert_true(fabs(out[j] - t_sig(x[j])) < 1e-6);
    tngrt_kernel_moe_gating_top_k(&ay, &ae, &ao, &ax, NULL, 3, 2, 4, 0, 1, 1.0, 1e-20);
    assert_int_equal(ei[0], 0);
    assert_int_equal(ei[1], 4);
    assert_int_equal(ei[2], 5);
}

/* moe_gating_top_k, softmax without groups: y is the probability, not
 * renormalised; a bias changes the choice, not y. */
static void test_moe_gating_softmax_bias(void **state)
{
    (void)state;
    float x[4] = {0.0f, 1.0f, 2.0f, 0.5f}, bias[4] = {5.0f, 0.0f, 0.0f, 0.0f}, y[2], out[4];
    int32_t ei[2];
    int64_t sx[2] = {1, 4}, sy[2] = {1, 2}, sb[1] = {4};
    TngrtArg ax = t_arg(x, TNGRT_F32, 2, sx), ay = t_arg(y, TNGRT_F32, 2, sy), ab = t_arg(bias, TNGRT_F32, 1, sb);
    TngrtArg ae = t_arg(ei, TNGRT_I32, 2, sy), ao = t_arg(out, TNGRT_F32, 2, sx);
    tngrt_kernel_moe_gating_top_k(&ay, &ae, &ao, &ax, &ab, 2, 1, 1, 0, 0, 1.0, 1e-20);
    double sum = exp(0.0) + exp(1.0) + exp(2.0) + exp(0.5);
    assert_int_equal(ei[0], 0);
    assert_int_equal(ei[1], 2);
    assert_true(fabs(y[0] - 1.0 / sum) < 1e-6 && fabs(y[1] - exp(2.0) / sum) < 1e-6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_moe_gating_groups),
        cmocka_unit_test(test_moe_gating_softmax_bias),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
