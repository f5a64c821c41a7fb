/*
 * test_rt_unread.c - unit tests of unread state_dict keys in libtngcrt's
 * generic bundle (TngrtBundleDesc.unread): a weights file made by
 * state_dict() holds keys the model never reads (BatchNorm's
 * num_batches_tracked); they load cleanly and are no unused tensor, while
 * an unknown extra tensor still is, a missing weight is still an error
 * naming it, and a malformed unread table is refused.
 *
 * The model: no inputs; one weight "bn.weight" f32[3] (unread key
 * "bn.num_batches_tracked"); its output out0 is the weight itself.
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

static const TngrtSigTensor t_weights[] = {{"bn.weight", TNGRT_F32, 1, t_dims, 0}};
static const char *const t_unread[] = {"bn.num_batches_tracked"};

/* The model's descriptor with the unread table given. */
static TngrtBundleDesc model_t(int nunread, const char *const *unread)
{
    TngrtBundleDesc d = {"t", "T.forward", "t.py", 0, NULL, 1, t_weights, 1, t_outs,
                         0, NULL, 1, t_gears, 1, t_names, 0, 0, NULL, nunread, unread, 0, NULL};
    return d;
}

/* Loads the file of names/vals into b: returns what load_weights returns
 * (the file removed). */
static int load(TngrtBundle *b, int n, const char *const *names, const float *vals)
{
    char *path = write_st("/tmp/tngrt-unread-XXXXXX", n, names, vals);
    int rc = tngrt_bundle_load_weights(b, path);
    unlink(path);
    free(path);
    return rc;
}

/* state_dict()'s file (the weight and the unread key) loads, nothing is
 * unused, and the weight's value is read; the unread key alone is fine
 * too; an extra unknown tensor is still unused. */
static void test_unread_loads(void **state)
{
    TngrtBundleDesc d = model_t(1, t_unread);
    TngrtBundle *b = NULL;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    TngrtTensor out[1];
    static const char *const sd[] = {"bn.num_batches_tracked", "bn.weight"},
                             *const extra[] = {"bn.weight", "bn.num_batches_tracked", "bn.bias_typo"};
    static const float v[] = {9, 9, 9, 1, 2, 3, 4, 5, 6};
    (void)state;
    if (tngrt_bundle_new(&b, &d, &err) != 0)
        fail_msg("tngrt_bundle_new: %s", err.msg);
    if (load(b, 2, sd, v) != 0)
        fail_msg("load: %s", tngrt_bundle_last_error(b));
    assert_int_equal(tngrt_bundle_unused_count(b), 0);
    if (tngrt_bundle_run(b, NULL, 0, out, 1) != 0)
        fail_msg("run: %s", tngrt_bundle_last_error(b));
    for (int i = 0; i < 3; i++)
        assert_float_equal(((const float *)out[0].data)[i], v[3 + i], 0);
    assert_int_equal(load(b, 3, extra, v), 0);
    assert_int_equal(tngrt_bundle_unused_count(b), 1);
    assert_string_equal(tngrt_bundle_unused_name(b, 0), "bn.bias_typo");
    assert_true(tngrt_desc_is_state_key(&d, "bn.num_batches_tracked"));
    assert_true(tngrt_desc_is_state_key(&d, "bn.weight"));
    assert_false(tngrt_desc_is_weight_key(&d, "bn.num_batches_tracked"));
    assert_false(tngrt_desc_is_state_key(&d, "bn.bias_typo"));
    tngrt_bundle_delete(b);
}

/* A file with the unread key but not the weight is refused naming the
 * weight; an unread key never stands in for a weight. */
static void test_unread_no_weight(void **state)
{
    TngrtBundleDesc d = model_t(1, t_unread);
    TngrtBundle *b = NULL;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    static const char *const only[] = {"bn.num_batches_tracked"};
    static const float v[] = {1, 2, 3};
    (void)state;
    if (tngrt_bundle_new(&b, &d, &err) != 0)
        fail_msg("tngrt_bundle_new: %s", err.msg);
    assert_int_equal(load(b, 1, only, v), -1);
    assert_non_null(strstr(tngrt_bundle_last_error(b), "weight 'bn.weight' is missing"));
    tngrt_bundle_delete(b);
}

/* Without the unread table the key is an unused tensor. */
static void test_no_unread(void **state)
{
    TngrtBundleDesc d = model_t(0, NULL);
    TngrtBundle *b = NULL;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    static const char *const sd[] = {"bn.num_batches_tracked", "bn.weight"};
    static const float v[] = {9, 9, 9, 1, 2, 3};
    (void)state;
    if (tngrt_bundle_new(&b, &d, &err) != 0)
        fail_msg("tngrt_bundle_new: %s", err.msg);
    assert_int_equal(load(b, 2, sd, v), 0);
    assert_int_equal(tngrt_bundle_unused_count(b), 1);
    assert_string_equal(tngrt_bundle_unused_name(b, 0), "bn.num_batches_tracked");
    tngrt_bundle_delete(b);
}

/* A negative count, a count without a table, or a NULL key is refused. */
static void test_malformed_unread(void **state)
{
    static const char *const null_key[] = {NULL};
    TngrtBundleDesc d = model_t(1, NULL);
    TngrtBundle *b = NULL;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    (void)state;
    assert_int_equal(tngrt_bundle_new(&b, &d, &err), -1);
    assert_non_null(strstr(err.msg, "bad unread keys"));
    d = model_t(-1, t_unread);
    assert_int_equal(tngrt_bundle_new(&b, &d, &err), -1);
    d = model_t(1, null_key);
    assert_int_equal(tngrt_bundle_new(&b, &d, &err), -1);
    assert_non_null(strstr(err.msg, "unread key 0 is malformed"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unread_loads),
        cmocka_unit_test(test_unread_no_weight),
        cmocka_unit_test(test_no_unread),
        cmocka_unit_test(test_malformed_unread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
