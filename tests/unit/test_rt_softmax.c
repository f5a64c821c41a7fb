/*
 * test_rt_softmax.c - unit tests of the float32 softmax paths' bits:
 * tngrt_impl__exp_le0 (the softmax's e^d for d <= 0) has
 * tngrt_impl__exp's bits wherever e^d is a normal float and is 0 below
 * -87.33654 (ln(FLT_MIN) rounded up); tngrt_impl_softmax compiled here for AVX-512, AVX2 and
 * baseline x86-64 (as kernels_isa.h clones the library's kernels) gives
 * the library's tngrt_kernel_softmax bits for every clone this CPU runs,
 * on causal-masked rows, rows with NaN and all -inf, short (the blocked
 * path) and long (the online path) rows.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/tngrt_kernel_impl.h"

/* Deterministic uniform floats in [lo, hi). */
static float t_rand(uint32_t *s, float lo, float hi)
{
    *s = *s * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(*s >> 8) / 16777216.0f;
}

static int same_bits(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Every float d in [-87.33654, 0] in steps of 97 ulps (and the ends):
 * the bits of tngrt_impl__exp(d); below, down to -inf, exactly 0; NaN
 * stays NaN. */
static void test_exp_le0_bits(void **state)
{
    const float lo = -87.33654f;
    union {
        float f;
        uint32_t u;
    } d;
    int checked = 0;
    (void)state;
    assert_true(tngrt_impl__exp(lo) >= FLT_MIN);   /* the least such d */
    assert_true(tngrt_impl__exp(nextafterf(lo, -INFINITY)) < FLT_MIN);
    for (d.f = -0.0f; d.f >= lo; d.u += 97, checked++)
        if (!same_bits(tngrt_impl__exp_le0(d.f), tngrt_impl__exp(d.f))) {
            fprintf(stderr, "exp_le0(%.9g) = %.9g, exp %.9g\n", d.f, tngrt_impl__exp_le0(d.f),
                    tngrt_impl__exp(d.f));
            fail();
        }
    assert_true(checked > 1000000);
    assert_true(same_bits(tngrt_impl__exp_le0(lo), tngrt_impl__exp(lo)));
    assert_true(same_bits(tngrt_impl__exp_le0(0.0f), 1.0f));
    for (float x = -87.34f; x > -200.0f; x -= 0.37f)
        assert_true(same_bits(tngrt_impl__exp_le0(x), 0.0f));
    assert_true(same_bits(tngrt_impl__exp_le0(-INFINITY), 0.0f));
    assert_true(isnan(tngrt_impl__exp_le0(NAN)));
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx512f"))) static void softmax_avx512(const TngrtArg *o, const TngrtArg *x)
{
    tngrt_impl_softmax(o, x, -1, 0);
}

__attribute__((target("avx2"))) static void softmax_avx2(const TngrtArg *o, const TngrtArg *x)
{
    tngrt_impl_softmax(o, x, -1, 0);
}
#endif

static void softmax_base(const TngrtArg *o, const TngrtArg *x)
{
    tngrt_impl_softmax(o, x, -1, 0);
}

/* rows x len scores: row r causal-masked at r % len (its later entries
 * -inf), row 1 holding a NaN, row 2 all -inf, the rest random in [-30, 30)
 * with entries 120 below the row's others (e^ of them subnormal). */
static void fill_scores(float *x, int64_t rows, int64_t len, uint32_t *s)
{
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < len; j++) {
            float v = t_rand(s, -30.0f, 30.0f);
            v = j % 5 == 3 ? v - 120.0f : v;
            x[r * len + j] = r == 2 || j > r % len ? -INFINITY : v;
        }
    x[1 * len] = NAN;
}

static void test_softmax_clones(void **state)
{
    static const int64_t lens[] = {1, 3, 10, 16, 17, 32, 64, 100, 127, 128, 200, 700};
    uint32_t s = 11u;
    (void)state;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        int64_t len = lens[li], rows = len < 128 ? 300 : 40, shape[2] = {rows, len};
        size_t n = (size_t)(rows * len);
        float *x = malloc(n * sizeof *x), *lib = malloc(n * sizeof *lib), *o = malloc(n * sizeof *o);
        assert_true(x && lib && o);
        fill_scores(x, rows, len, &s);
        TngrtArg ax = {x, TNGRT_F32, 2, shape}, al = {lib, TNGRT_F32, 2, shape},
                 ao = {o, TNGRT_F32, 2, shape};
        tngrt_kernel_softmax(&al, &ax, -1, 0);
        for (int64_t j = 0; j < len; j++) {   /* row 0 sees entry 0 alone; row 2 none */
            assert_true(same_bits(lib[j], j == 0 ? 1.0f : 0.0f));
            assert_true(isnan(lib[2 * len + j]));
        }
        for (int c = 0; c < 3; c++) {
#if defined(__x86_64__) && defined(__GNUC__)
            if ((c == 0 && !__builtin_cpu_supports("avx512f")) ||
                (c == 1 && !__builtin_cpu_supports("avx2")))
                continue;
            (c == 0 ? softmax_avx512 : c == 1 ? softmax_avx2 : softmax_base)(&ao, &ax);
#else
            if (c < 2)
                continue;
            softmax_base(&ao, &ax);
#endif
            for (size_t i = 0; i < n; i++)
                if (!same_bits(o[i], lib[i]) && !(isnan(o[i]) && isnan(lib[i]))) {
                    fprintf(stderr, "softmax len %lld clone %d [%zu]: %.9g vs library %.9g\n",
                            (long long)len, c, i, o[i], lib[i]);
                    fail();
                }
        }
        free(x);
        free(lib);
        free(o);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exp_le0_bits),
        cmocka_unit_test(test_softmax_clones),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
