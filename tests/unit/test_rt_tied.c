/*
 * test_rt_tied.c - unit tests of tied weights in libtngcrt's generic
 * bundle (TngrtBundleDesc.aliases): a weight that the model's state_dict
 * holds under two keys (a tied lm_head and embedding, say) loads from a
 * weights file holding either key or both, neither key counts as unused,
 * its own key wins when both are there, a file holding neither names the
 * weight's own key, and a malformed alias table is refused.
 *
 * The model: no inputs; one weight "tok.weight" f32[3] (alias
 * "head.weight"); its output out0 is the weight itself.
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

static const TngrtSigTensor t_weights[] = {{"tok.weight", TNGRT_F32, 1, t_dims, 0}};
static const TngrtWeightAlias t_alias[] = {{"head.weight", 0}};

/* The model's descriptor with the alias table given. */
static TngrtBundleDesc model_t(int naliases, const TngrtWeightAlias *aliases)
{
    TngrtBundleDesc d = {"t", "T.forward", "t.py", 0, NULL, 1, t_weights, 1, t_outs,
                         0, NULL, 1, t_gears, 1, t_names, 0, naliases, aliases, 0, NULL, 0, NULL};
    return d;
}

/* Loads the file of names/vals into b (must succeed), runs it and checks
 * out0 = want[0..3) and that no tensor of the file is unused. */
static void load_run(TngrtBundle *b, int n, const char *const *names, const float *vals, const float *want)
{
    char *path = write_st("/tmp/tngrt-tied-XXXXXX", n, names, vals);
    TngrtTensor out[1];
    if (tngrt_bundle_load_weights(b, path) != 0)
        fail_msg("load: %s", tngrt_bundle_last_error(b));
    unlink(path);
    free(path);
    assert_int_equal(tngrt_bundle_unused_count(b), 0);
    if (tngrt_bundle_run(b, NULL, 0, out, 1) != 0)
        fail_msg("run: %s", tngrt_bundle_last_error(b));
    for (int i = 0; i < 3; i++)
        assert_float_equal(((const float *)out[0].data)[i], want[i], 0);
}

static void test_alias_loads(void **state)
{
    TngrtBundleDesc d = model_t(1, t_alias);
    TngrtBundle *b = NULL;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    static const char *const own[] = {"tok.weight"}, *const alias[] = {"head.weight"},
                             *const both[] = {"head.weight", "tok.weight"};
    static const float v1[] = {1, 2, 3}, v2[] = {4, 5, 6, 7, 8, 9};
    (void)state;
    if (tngrt_bundle_new(&b, &d, &err) != 0)
        fail_msg("tngrt_bundle_new: %s", err.msg);
    load_run(b, 1, own, v1, v1);
    load_run(b, 1, alias, v2, v2);             /* only the tied key */
    load_run(b, 2, both, v2, v2 + 3);          /* both: the weight's own key */
    assert_true(tngrt_desc_is_weight_key(&d, "tok.weight"));
    assert_true(tngrt_desc_is_weight_key(&d, "head.weight"));
    assert_false(tngrt_desc_is_weight_key(&d, "head"));
    tngrt_bundle_delete(b);
}

/* Without the alias table the tied key is an unused tensor, and a file
 * holding only it lacks the weight (named by its own key). */
static void test_no_alias(void **state)
{
    TngrtBundleDesc d = model_t(0, NULL);
    TngrtBundle *b = NULL;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    static const char *const alias[] = {"head.weight"}, *const both[] = {"head.weight", "tok.weight"};
    static const float v[] = {4, 5, 6, 7, 8, 9};
    char *path;
    (void)state;
    if (tngrt_bundle_new(&b, &d, &err) != 0)
        fail_msg("tngrt_bundle_new: %s", err.msg);
    path = write_st("/tmp/tngrt-tied-XXXXXX", 2, both, v);
    assert_int_equal(tngrt_bundle_load_weights(b, path), 0);
    assert_int_equal(tngrt_bundle_unused_count(b), 1);
    assert_string_equal(tngrt_bundle_unused_name(b, 0), "head.weight");
    unlink(path);
    free(path);
    path = write_st("/tmp/tngrt-tied-XXXXXX", 1, alias, v);
    assert_int_equal(tngrt_bundle_load_weights(b, path), -1);
    assert_non_null(strstr(tngrt_bundle_last_error(b), "weight 'tok.weight' is missing"));
    unlink(path);
    free(path);
    tngrt_bundle_delete(b);
}

/* An alias of a weight that does not exist, or without a name, is refused. */
static void test_malformed_alias(void **state)
{
    static const TngrtWeightAlias bad_index[] = {{"head.weight", 1}}, no_name[] = {{NULL, 0}};
    TngrtBundleDesc d = model_t(1, bad_index);
    TngrtBundle *b = NULL;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    (void)state;
    assert_int_equal(tngrt_bundle_new(&b, &d, &err), -1);
    assert_non_null(strstr(err.msg, "weight alias 0 is malformed"));
    d = model_t(1, no_name);
    assert_int_equal(tngrt_bundle_new(&b, &d, &err), -1);
    d = model_t(1, NULL);
    assert_int_equal(tngrt_bundle_new(&b, &d, &err), -1);
    assert_non_null(strstr(err.msg, "bad weight aliases"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alias_loads),
        cmocka_unit_test(test_no_alias),
        cmocka_unit_test(test_malformed_alias),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
