/*
 * test_rt_shared.c - unit tests of state shared between two generic
 * bundles (TngrtBundleDesc.shared, tngrt_bundle_share_state,
 * tngrt_bundle_own_state): a bound bundle reads and writes the owner's
 * copy, so each sees the other's runs; a bundle with shared state refuses
 * to run until it is bound or given a copy of its own; a binding to a
 * bundle of another entry, or to a weight of another dtype or size, is
 * refused and binds nothing; a malformed shared row is refused at creation.
 *
 * The models, with no inputs and one f32[3] weight each:
 *   owner  "O.forward": weight "c" (state), each run adds 1 to it; out0 = c;
 *   user   "U.forward": weight "m.c" (state shared with O.forward's "c"),
 *          each run doubles it; out0 = m.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../runtime/tngrt_bundle.h"

#include "rt_one_weight.h"

static int add1(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    float *w = ((const TngrtRunCtx *)arg)->w[0];
    (void)x, (void)s, (void)err;
    for (int i = 0; i < 3; i++)
        w[i] += 1;
    return 0;
}

static int times2(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    float *w = ((const TngrtRunCtx *)arg)->w[0];
    (void)x, (void)s, (void)err;
    for (int i = 0; i < 3; i++)
        w[i] *= 2;
    return 0;
}

static const TngrtStreamFn o_streams[] = {add1}, u_streams[] = {times2};
static const TngrtGear o_gears[] = {{NULL, 0, NULL, 0, o_streams, t_outputs}};
static const TngrtGear u_gears[] = {{NULL, 0, NULL, 0, u_streams, t_outputs}};
static const TngrtSigTensor o_weights[] = {{"c", TNGRT_F32, 1, t_dims, TNGRT_SIG_UPDATED | TNGRT_SIG_BUFFER}};
static const TngrtSigTensor u_weights[] = {
    {"m.c", TNGRT_F32, 1, t_dims, TNGRT_SIG_UPDATED | TNGRT_SIG_BUFFER | TNGRT_SIG_SHARED}};
static const TngrtStateShare u_shared[] = {{0, "O.forward", "c"}};

static TngrtBundleDesc desc(const char *entry, const TngrtSigTensor *w, const TngrtGear *g, int nshared,
                            const TngrtStateShare *shared)
{
    TngrtBundleDesc d = {"t", entry, "t.py", 0, NULL, 1, w, 1, t_outs, 0, NULL, 1, g, 1, t_names,
                         0, 0, NULL, 0, NULL, nshared, shared};
    return d;
}

/* A new bundle of d with weight name = vals (must succeed). */
static TngrtBundle *open_with(const TngrtBundleDesc *d, const char *name, const float *vals)
{
    TngrtBundle *b = NULL;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    const char *const names[] = {name};
    if (tngrt_bundle_new(&b, d, &err) != 0)
        fail_msg("tngrt_bundle_new: %s", err.msg);
    char *path = write_st("/tmp/tngrt-shared-XXXXXX", 1, names, vals);
    if (tngrt_bundle_load_weights(b, path) != 0)
        fail_msg("load: %s", tngrt_bundle_last_error(b));
    unlink(path);
    free(path);
    return b;
}

/* Runs b (must succeed) and checks out0 = a, b2, c. */
static void run_is(TngrtBundle *b, float a, float b2, float c)
{
    TngrtTensor out[1];
    if (tngrt_bundle_run(b, NULL, 0, out, 1) != 0)
        fail_msg("run: %s", tngrt_bundle_last_error(b));
    const float *y = out[0].data;
    assert_float_equal(y[0], a, 0);
    assert_float_equal(y[1], b2, 0);
    assert_float_equal(y[2], c, 0);
}

static void test_bound(void **state)
{
    TngrtBundleDesc od = desc("O.forward", o_weights, o_gears, 0, NULL);
    TngrtBundleDesc ud = desc("U.forward", u_weights, u_gears, 1, u_shared);
    static const float one23[] = {1, 2, 3}, zeros[] = {0, 0, 0};
    (void)state;
    TngrtBundle *o = open_with(&od, "c", one23), *u = open_with(&ud, "m.c", zeros);
    assert_int_equal(tngrt_bundle_share_state(u, o), 1);
    run_is(o, 2, 3, 4);        /* the owner writes its copy ... */
    run_is(u, 4, 6, 8);        /* ... which the user reads and writes ... */
    run_is(o, 5, 7, 9);        /* ... which the owner reads again */
    /* loading the user's file now sets the shared values */
    char *path = write_st("/tmp/tngrt-shared-XXXXXX", 1, (const char *const[]){"m.c"}, zeros);
    assert_int_equal(tngrt_bundle_load_weights(u, path), 0);
    unlink(path);
    free(path);
    run_is(o, 1, 1, 1);
    /* a copy of its own again: the values its last file gave, the owner's runs unseen */
    tngrt_bundle_own_state(u);
    run_is(o, 2, 2, 2);
    run_is(u, 0, 0, 0);
    tngrt_bundle_delete(u);
    tngrt_bundle_delete(o);
}

static void test_unbound_refused(void **state)
{
    TngrtBundleDesc ud = desc("U.forward", u_weights, u_gears, 1, u_shared);
    static const float one23[] = {1, 2, 3};
    TngrtTensor out[1];
    (void)state;
    TngrtBundle *u = open_with(&ud, "m.c", one23);
    assert_int_equal(tngrt_bundle_run(u, NULL, 0, out, 1), TNGRT_FAILED);
    assert_non_null(strstr(tngrt_bundle_last_error(u), "the state 'm.c' is shared with the bundle of "
                                                        "O.forward (its 'c')"));
    tngrt_bundle_own_state(u);
    run_is(u, 2, 4, 6);
    tngrt_bundle_delete(u);
}

static void test_bad_owner(void **state)
{
    static const TngrtSigTensor f16_weights[] = {{"c", TNGRT_F16, 1, t_dims, TNGRT_SIG_UPDATED | TNGRT_SIG_BUFFER}};
    static const TngrtSigTensor ro_weights[] = {{"c", TNGRT_F32, 1, t_dims, 0}};
    TngrtBundleDesc ud = desc("U.forward", u_weights, u_gears, 1, u_shared);
    TngrtBundleDesc other = desc("X.forward", o_weights, o_gears, 0, NULL);
    TngrtBundleDesc half = desc("O.forward", f16_weights, o_gears, 0, NULL);
    TngrtBundleDesc ro = desc("O.forward", ro_weights, o_gears, 0, NULL);
    TngrtBundle *u = NULL, *x = NULL, *h = NULL, *r = NULL;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    TngrtTensor out[1];
    (void)state;
    assert_int_equal(tngrt_bundle_new(&u, &ud, &err), 0);
    assert_int_equal(tngrt_bundle_new(&x, &other, &err), 0);
    assert_int_equal(tngrt_bundle_new(&h, &half, &err), 0);
    assert_int_equal(tngrt_bundle_new(&r, &ro, &err), 0);
    assert_int_equal(tngrt_bundle_share_state(u, x), -1);
    assert_non_null(strstr(tngrt_bundle_last_error(u), "shares no state with the bundle 't' (X.forward)"));
    assert_int_equal(tngrt_bundle_share_state(u, h), -1);
    assert_non_null(strstr(tngrt_bundle_last_error(u), "holds with another dtype or size"));
    assert_int_equal(tngrt_bundle_share_state(u, r), -1);
    assert_non_null(strstr(tngrt_bundle_last_error(u), "does not keep as state"));
    assert_int_equal(tngrt_bundle_share_state(u, u), -1);
    assert_int_equal(tngrt_bundle_share_state(u, NULL), -1);
    /* nothing was bound */
    assert_int_equal(tngrt_bundle_run(u, NULL, 0, out, 1), TNGRT_FAILED);
    tngrt_bundle_delete(r);
    tngrt_bundle_delete(h);
    tngrt_bundle_delete(x);
    tngrt_bundle_delete(u);
}

static void test_malformed_rows(void **state)
{
    static const TngrtStateShare out_of_range[] = {{1, "O.forward", "c"}};
    static const TngrtStateShare no_name[] = {{0, "O.forward", NULL}};
    TngrtBundleDesc d1 = desc("U.forward", u_weights, u_gears, 1, out_of_range);
    TngrtBundleDesc d2 = desc("U.forward", u_weights, u_gears, 1, no_name);
    TngrtBundleDesc d3 = desc("U.forward", o_weights, u_gears, 1, u_shared);   /* flag missing */
    TngrtBundleDesc d4 = desc("U.forward", u_weights, u_gears, 1, NULL);
    const TngrtBundleDesc *ds[] = {&d1, &d2, &d3, &d4};
    (void)state;
    for (int i = 0; i < 4; i++) {
        TngrtBundle *b = NULL;
        TngrtError err = {{0}, TNGRT_ERR_FAILURE};
        assert_int_equal(tngrt_bundle_new(&b, ds[i], &err), -1);
        assert_null(b);
        assert_non_null(strstr(err.msg, "shared state"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bound),
        cmocka_unit_test(test_unbound_refused),
        cmocka_unit_test(test_bad_owner),
        cmocka_unit_test(test_malformed_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
