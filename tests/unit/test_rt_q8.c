/*
 * test_rt_q8.c - unit tests of the weight-only int8 product
 * (tngrt_kernel_weight_quant_matmul, npu_weight_quant_batchmatmul):
 * per group of k (a last group shorter than the others), per column and
 * per tensor scales, with and without offset and bias, float16 and
 * bfloat16, k and n not multiples of the kernel's unrolling; checked bit
 * for bit against the order tngrt_impl_q8.h documents, computed here one
 * float32 operation at a time, and within the dtype's rounding of the
 * exact value of (w + offset) * scale summed in double; the same bits
 * with the columns split over a pool of 2 threads; infinities and NaN
 * in x as the definition gives them; the operands it refuses. The weight
 * packed in column panels (tngrt_q8_pack_rows,
 * tngrt_kernel_weight_quant_matmul_packed) gives the same bits as read in
 * place, in every clone this CPU runs, on one thread and two.
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

#include "../../runtime/internal.h"
#include "../../runtime/tngrt.h"
#include "../../runtime/tngrt_kernels.h"

/* One case's operands: x [m, k], w int8 [k, n], scale and offset with ns
 * values each (1, n or groups * n), bias float32 [n]. */
typedef struct Q8Case {
    TngrtDType dt;
    int64_t m, k, n, group, ns;
    int offset, bias;
    uint16_t *x, *s, *o, *out;
    int8_t *w;
    float *b;
} Q8Case;

static uint16_t q8_half(TngrtDType dt, float v)
{
    uint16_t h;
    tngrt_half_from_f32(dt, &v, &h, 1);
    return h;
}

static float q8_float(TngrtDType dt, uint16_t h)
{
    float v;
    tngrt_half_to_f32(dt, &h, &v, 1);
    return v;
}

static void q8_make(Q8Case *c)
{
    c->x = calloc((size_t)(c->m * c->k), 2), c->w = calloc((size_t)(c->k * c->n), 1);
    c->s = calloc((size_t)c->ns, 2), c->o = calloc((size_t)c->ns, 2);
    c->out = calloc((size_t)(c->m * c->n), 2), c->b = calloc((size_t)c->n, 4);
    assert_true(c->x && c->w && c->s && c->o && c->out && c->b);
    for (int64_t i = 0; i < c->m * c->k; i++)
        c->x[i] = q8_half(c->dt, (float)((i * 37 + 5) % 61 - 30) / 16.0f);
    for (int64_t i = 0; i < c->k * c->n; i++)
        c->w[i] = (int8_t)((i * 97 + 11) % 256 - 128);
    for (int64_t i = 0; i < c->ns; i++) {
        c->s[i] = q8_half(c->dt, 0.001f + (float)(i % 13) * 0.0007f);
        c->o[i] = q8_half(c->dt, (float)(i % 9) - 4.5f);
    }
    for (int64_t i = 0; i < c->n; i++)
        c->b[i] = (float)(i % 7) * 0.25f - 0.75f;
}

static void q8_free(Q8Case *c)
{
    free(c->x), free(c->w), free(c->s), free(c->o), free(c->out), free(c->b);
}

/* The clone the kernel runs (kernels_q8.c): -1 the CPU's widest; 0
 * baseline, 1 AVX2, 2 AVX-512. */
extern int tngrt__q8_isa;

/* Runs the kernel on c (into c->out) reading the packing wp (NULL: w in
 * place); its return value. */
static int q8_run_packed(Q8Case *c, const int8_t *wp, TngrtError *err)
{
    int64_t xs[2] = {c->m, c->k}, ws[2] = {c->k, c->n}, os[2] = {c->m, c->n}, bs[1] = {c->n};
    int64_t ps[1] = {c->ns};
    TngrtArg out = {c->out, c->dt, 2, os}, x = {c->x, c->dt, 2, xs}, w = {c->w, TNGRT_I8, 2, ws};
    TngrtArg s = {c->s, c->dt, 1, ps}, o = {c->o, c->dt, 1, ps}, b = {c->b, TNGRT_F32, 1, bs};
    return tngrt_kernel_weight_quant_matmul_packed(&out, &x, &w, &s, c->offset ? &o : NULL,
                                                   c->bias ? &b : NULL, c->group, wp, err);
}

/* Runs the kernel on c (into c->out); its return value. */
static int q8_run(Q8Case *c, TngrtError *err)
{
    return q8_run_packed(c, NULL, err);
}

/* The scale or offset p of group g, column j. */
static float q8_param(const Q8Case *c, const uint16_t *p, int64_t g, int64_t j)
{
    return q8_float(c->dt, p[c->ns == 1 ? 0 : c->ns == c->n ? j : g * c->n + j]);
}

/* Element (r, j) in the documented order, one float32 operation at a time. */
static float q8_ordered(const Q8Case *c, int64_t r, int64_t j)
{
    int64_t g = c->group > 0 && c->group < c->k ? c->group : c->k;
    volatile float tot = 0.0f;
    for (int64_t k0 = 0, gi = 0; k0 < c->k; k0 += g, gi++) {
        volatile float acc = 0.0f, sx = 0.0f, p;
        for (int64_t kk = k0; kk < c->k && kk < k0 + g; kk++) {
            float xv = q8_float(c->dt, c->x[r * c->k + kk]);
            p = xv * (float)c->w[kk * c->n + j];
            acc = acc + p;
            sx = sx + xv;
        }
        float o = c->offset ? q8_param(c, c->o, gi, j) : 0.0f;
        volatile float t = o * sx;
        t = acc + t;
        t = q8_param(c, c->s, gi, j) * t;
        tot = tot + t;
    }
    return c->bias ? tot + c->b[j] : tot;
}

/* Element (r, j) as the stand-in defines it, in double. */
static double q8_exact(const Q8Case *c, int64_t r, int64_t j)
{
    int64_t g = c->group > 0 && c->group < c->k ? c->group : c->k;
    double y = 0.0;
    for (int64_t kk = 0; kk < c->k; kk++) {
        double o = c->offset ? q8_param(c, c->o, kk / g, j) : 0.0;
        y += (double)q8_float(c->dt, c->x[r * c->k + kk]) * ((c->w[kk * c->n + j] + o) *
                                                              q8_param(c, c->s, kk / g, j));
    }
    return c->bias ? y + c->b[j] : y;
}

static void q8_check(Q8Case *c, TngrtPar *pool)
{
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    double tol = c->dt == TNGRT_F16 ? 1e-3 : 8e-3;
    q8_make(c);
    assert_int_equal(q8_run(c, &err), 0);
    for (int64_t r = 0; r < c->m; r++)
        for (int64_t j = 0; j < c->n; j++) {
            uint16_t got = c->out[r * c->n + j], want = q8_half(c->dt, q8_ordered(c, r, j));
            double e = q8_exact(c, r, j), gv = q8_float(c->dt, got);
            if (got != want)
                fail_msg("dtype %d group %lld: (%lld, %lld) is 0x%04x, the documented order gives 0x%04x",
                         (int)c->dt, (long long)c->group, (long long)r, (long long)j, got, want);
            if (fabs(gv - e) > tol * fabs(e) + 1e-3)
                fail_msg("(%lld, %lld) is %g, exactly %g", (long long)r, (long long)j, gv, e);
        }
    if (pool) {   /* the same bits with the columns split over 2 threads */
        uint16_t *one = malloc((size_t)(c->m * c->n) * 2);
        assert_non_null(one);
        memcpy(one, c->out, (size_t)(c->m * c->n) * 2);
        memset(c->out, 0, (size_t)(c->m * c->n) * 2);
        TngrtPar *prev = tngrt__par_enter(pool);
        assert_int_equal(q8_run(c, &err), 0);
        tngrt__par_enter(prev);
        assert_memory_equal(one, c->out, (size_t)(c->m * c->n) * 2);
        free(one);
    }
    q8_free(c);
}

static void test_q8_groups(void **state)
{
    (void)state;
    /* 3 groups of 32 rows and one of 6; k not a multiple of 4, n odd */
    Q8Case a = {TNGRT_F16, 5, 102, 37, 32, 4 * 37, 1, 1, 0, 0, 0, 0, 0, 0};
    Q8Case b = {TNGRT_BF16, 3, 64, 19, 32, 2 * 19, 0, 1, 0, 0, 0, 0, 0, 0};
    q8_check(&a, NULL);
    q8_check(&b, NULL);
}

static void test_q8_channels(void **state)
{
    (void)state;
    Q8Case a = {TNGRT_F16, 1, 67, 45, 0, 45, 1, 0, 0, 0, 0, 0, 0, 0};
    Q8Case b = {TNGRT_BF16, 6, 33, 8, 0, 8, 0, 1, 0, 0, 0, 0, 0, 0};
    Q8Case t = {TNGRT_F16, 2, 40, 9, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0};      /* one scale in all */
    Q8Case g = {TNGRT_F16, 2, 40, 9, 64, 9, 1, 0, 0, 0, 0, 0, 0, 0};     /* group >= k: one group */
    q8_check(&a, NULL);
    q8_check(&b, NULL);
    q8_check(&t, NULL);
    q8_check(&g, NULL);
}

/* Wide enough to be split (TNGRT_GEMM_PAR_GEMV_BYTES of weight): 2 rows
 * of 1024 x 1000, per group of 128 with offsets. */
static void test_q8_threads(void **state)
{
    TngrtPar *pool = tngrt__par_new(2);
    (void)state;
    assert_non_null(pool);
    Q8Case a = {TNGRT_F16, 2, 1024, 1000, 128, 8 * 1000, 1, 1, 0, 0, 0, 0, 0, 0};
    q8_check(&a, pool);
    tngrt__par_delete(pool);
}

/* An infinity or NaN in x: each element is what the definition gives
 * (x * ((w + offset) * scale) summed; +-inf, or NaN where an infinity
 * meets a zero weight or infinities of both signs meet), with and without
 * offset, one scale per column and per group; rows without one keep the
 * documented order's bits. */
static void test_q8_nonfinite(void **state)
{
    (void)state;
    Q8Case cs[3] = {{TNGRT_F16, 3, 70, 40, 0, 40, 0, 0, 0, 0, 0, 0, 0, 0},
                    {TNGRT_F16, 3, 70, 40, 32, 3 * 40, 1, 1, 0, 0, 0, 0, 0, 0},
                    {TNGRT_BF16, 3, 70, 40, 0, 40, 1, 0, 0, 0, 0, 0, 0, 0}};
    for (int i = 0; i < 3; i++) {
        Q8Case *c = &cs[i];
        TngrtError err = {{0}, TNGRT_ERR_FAILURE};
        q8_make(c);
        c->x[0 * c->k + 5] = q8_half(c->dt, INFINITY);
        c->x[1 * c->k + 9] = q8_half(c->dt, -INFINITY);
        c->x[1 * c->k + 40] = q8_half(c->dt, INFINITY);
        c->x[2 * c->k + 2] = q8_half(c->dt, NAN);
        assert_int_equal(q8_run(c, &err), 0);
        int nans = 0, infs = 0;
        for (int64_t j = 0; j < c->n; j++) {
            for (int64_t r = 0; r < 2; r++) {
                double want = q8_exact(c, r, j);
                float got = q8_float(c->dt, c->out[r * c->n + j]);
                assert_true(isinf(want) || isnan(want));
                assert_int_equal(!!isnan(got), !!isnan(want));
                if (isinf(want))
                    assert_true(isinf(got) && (got > 0) == (want > 0));
                nans += !!isnan(want), infs += !!isinf(want);
            }
            assert_true(isnan(q8_float(c->dt, c->out[2 * c->n + j])));
        }
        assert_true(nans > 0 && infs > 0);
        q8_free(c);
    }
}

/* c's weight packed as a bundle packs it: rows in two calls. */
static int8_t *q8_pack(const Q8Case *c)
{
    int8_t *wp = tngrt_q8_pack_new(c->k, c->n);
    int64_t half = c->k / 2;
    assert_non_null(wp);
    assert_int_equal(tngrt_q8_packed_size(c->k, c->n), (c->n + 63) / 64 * 64 * c->k);
    tngrt_q8_pack_rows(wp, c->w, c->k, c->n, 0, half);
    tngrt_q8_pack_rows(wp, c->w, c->k, c->n, half, c->k - half);
    return wp;
}

/* c's product read in place by the CPU's widest clone (checked against the
 * documented order by q8_check), then packed and in place in each clone,
 * packed on a pool of 2 threads: the same bits each time. */
static void q8_packed_case(Q8Case *c, TngrtPar *pool)
{
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    size_t bytes = (size_t)(c->m * c->n) * 2;
    q8_make(c);
    uint16_t *want = malloc(bytes);
    int8_t *wp = q8_pack(c);
    assert_non_null(want);
    assert_int_equal(q8_run(c, &err), 0);
    memcpy(want, c->out, bytes);
    for (int isa = 0; isa < 3; isa++)
        for (int packed = 0; packed < 2; packed++) {
            memset(c->out, 0xff, bytes);
            tngrt__q8_isa = isa;
            assert_int_equal(q8_run_packed(c, packed ? wp : NULL, &err), 0);
            tngrt__q8_isa = -1;
            for (size_t i = 0; i < bytes / 2; i++)
                if (c->out[i] != want[i])
                    fail_msg("m %lld k %lld n %lld group %lld clone %d packed %d: [%zu] is 0x%04x, in place "
                             "0x%04x", (long long)c->m, (long long)c->k, (long long)c->n,
                             (long long)c->group, isa, packed, i, c->out[i], want[i]);
        }
    memset(c->out, 0, bytes);
    TngrtPar *prev = tngrt__par_enter(pool);
    assert_int_equal(q8_run_packed(c, wp, &err), 0);
    tngrt__par_enter(prev);
    assert_memory_equal(want, c->out, bytes);
    free(want);
    free(wp);
    q8_free(c);
}

/* Packed against in place: per column and per group, with and without
 * offset, n not a multiple of the panel (64), k past the packed loop's run
 * of x (2048) with groups that fit it (7: runs of 2044), that do not (3000:
 * a group in pieces) and one group of all of k, 1 to 6 rows of x, the
 * checks of q8_check on a packed run; a wide one split over 2 threads. */
static void test_q8_packed(void **state)
{
    TngrtPar *pool = tngrt__par_new(2);
    (void)state;
    assert_non_null(pool);
    Q8Case cs[] = {
        {TNGRT_F16, 1, 67, 45, 0, 45, 1, 0, 0, 0, 0, 0, 0, 0},
        {TNGRT_BF16, 6, 102, 130, 32, 4 * 130, 1, 1, 0, 0, 0, 0, 0, 0},
        {TNGRT_F16, 3, 2100, 70, 7, 300 * 70, 1, 0, 0, 0, 0, 0, 0, 0},
        {TNGRT_F16, 2, 5000, 65, 3000, 2 * 65, 1, 1, 0, 0, 0, 0, 0, 0},
        {TNGRT_BF16, 5, 4200, 33, 0, 33, 0, 1, 0, 0, 0, 0, 0, 0},
        {TNGRT_F16, 4, 40, 9, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0},
        {TNGRT_F16, 1, 1024, 1000, 128, 8 * 1000, 1, 1, 0, 0, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        q8_packed_case(&cs[i], pool);
    tngrt__par_delete(pool);
}

/* Infinities and NaN in x with the weight packed: the same bits as in
 * place (the definition's sums read the packing). */
static void test_q8_packed_nonfinite(void **state)
{
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    (void)state;
    Q8Case c = {TNGRT_F16, 3, 70, 100, 32, 3 * 100, 1, 1, 0, 0, 0, 0, 0, 0};
    size_t bytes = 3 * 100 * 2;
    uint16_t want[3 * 100];
    q8_make(&c);
    c.x[0 * c.k + 5] = q8_half(c.dt, INFINITY);
    c.x[1 * c.k + 40] = q8_half(c.dt, -INFINITY);
    c.x[2 * c.k + 2] = q8_half(c.dt, NAN);
    int8_t *wp = q8_pack(&c);
    assert_int_equal(q8_run(&c, &err), 0);
    memcpy(want, c.out, bytes);
    memset(c.out, 0, bytes);
    assert_int_equal(q8_run_packed(&c, wp, &err), 0);
    assert_memory_equal(want, c.out, bytes);
    free(wp);
    q8_free(&c);
}

static void test_q8_errors(void **state)
{
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    (void)state;
    Q8Case c = {TNGRT_F16, 2, 64, 8, 32, 8, 0, 0, 0, 0, 0, 0, 0, 0};   /* groups need 2 * 8 scales */
    q8_make(&c);
    assert_int_equal(q8_run(&c, &err), -1);
    assert_non_null(strstr(err.msg, "antiquant_scale"));
    c.group = 0, c.ns = 3;   /* 3 values: neither 1 nor n */
    assert_int_equal(q8_run(&c, &err), -1);
    c.ns = 8, c.dt = TNGRT_F32;   /* float32 x */
    assert_int_equal(q8_run(&c, &err), -1);
    assert_non_null(strstr(err.msg, "float16 or bfloat16"));
    c.dt = TNGRT_F16, c.group = -1;
    assert_int_equal(q8_run(&c, &err), -1);
    assert_non_null(strstr(err.msg, "group size -1"));
    q8_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_q8_groups),
        cmocka_unit_test(test_q8_channels),
        cmocka_unit_test(test_q8_threads),
        cmocka_unit_test(test_q8_nonfinite),
        cmocka_unit_test(test_q8_packed),
        cmocka_unit_test(test_q8_packed_nonfinite),
        cmocka_unit_test(test_q8_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
