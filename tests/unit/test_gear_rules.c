/*
 * test_gear_rules.c - unit tests of the set_dim_gears rules
 * (frontend/diag/gear_rules.c) that lint, the interpreter and the planner
 * share: each rule's bounds, its severity in lint's view and in the
 * planner's, and the one wording with and without the list's name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../frontend/diag/gear_rules.h"

static void test_dims(void **state)
{
    GearVerdict v;
    (void)state;
    assert_int_equal(gear_rule_dict(1, "list", &v), 0);
    assert_int_equal(gear_rule_dict(0, "list", &v), 1);
    assert_int_equal(v.rule, RULE_TNG123);
    assert_string_equal(v.msg, "dim_gears must be a dict {dim: [values]}, not a list");
    assert_int_equal(gear_rule_dim_type(0, NULL, &v), 1);
    assert_int_equal(v.rule, RULE_TNG121);
    assert_string_equal(v.msg, "gear dim must be an int");
    assert_int_equal(gear_rule_dim(1, 2, &v), 0);
    assert_int_equal(gear_rule_dim(5, -1, &v), 0);   /* rank not known */
    assert_int_equal(gear_rule_dim(2, 2, &v), 1);
    assert_int_equal(v.rule, RULE_TNG122);
    assert_string_equal(v.msg, "gear dim 2 is out of range for a tensor of rank 2 (valid: 0 to 1)");
    assert_int_equal(gear_rule_dim(-1, -1, &v), 1);
    assert_string_equal(v.msg, "gear dim -1 is negative; dims are 0 to rank-1");
}

static void test_lists(void **state)
{
    GearVerdict v;
    (void)state;
    assert_int_equal(gear_rule_values_type(0, "int", "dim 0 of x", &v), 1);
    assert_int_equal(v.rule, RULE_TNG123);
    assert_string_equal(v.msg, "dim 0 of x: gear values must be a list or tuple of ints, not an int");
    assert_int_equal(gear_rule_count(GEAR_VALUES_MIN, NULL, &v), 0);
    assert_int_equal(gear_rule_count(GEAR_VALUES_MAX, NULL, &v), 0);
    assert_int_equal(gear_rule_count(GEAR_VALUES_MIN - 1, NULL, &v), 1);
    assert_int_equal(v.rule, RULE_TNG126);
    assert_string_equal(v.msg, "a dim takes 2 to 100 gear values, not 1");
    assert_int_equal(gear_rule_count(GEAR_VALUES_MAX + 1, NULL, &v), 1);
}

/* lint's view (plan_max 0) warns where TorchAir accepts; the planner's
 * refuses what is no size it plans */
static void test_values(void **state)
{
    GearVerdict v;
    (void)state;
    assert_int_equal(gear_rule_value(0, "str", 0, 0, NULL, &v), 1);
    assert_int_equal(v.rule, RULE_TNG124);
    assert_string_equal(v.msg, "gear value must be an int, not a str");
    assert_int_equal(gear_rule_value(1, NULL, 0, 0, NULL, &v), 1);
    assert_int_equal(v.rule, RULE_TNG125);
    assert_int_equal(v.severity, SEV_ERROR);
    assert_string_equal(v.msg, "gear value must not be 0");
    assert_int_equal(gear_rule_value(1, NULL, 1, 0, NULL, &v), 1);
    assert_int_equal(v.severity, SEV_WARNING);
    assert_int_equal(gear_rule_value(1, NULL, -3, 0, NULL, &v), 1);
    assert_int_equal(v.severity, SEV_WARNING);
    assert_int_equal(gear_rule_value(1, NULL, 2, 0, NULL, &v), 0);
    assert_int_equal(gear_rule_value(1, NULL, 1, 1 << 20, NULL, &v), 0);
    assert_int_equal(gear_rule_value(1, NULL, -3, 1 << 20, "dim 1 of y", &v), 1);
    assert_int_equal(v.rule, RULE_TNG125);
    assert_int_equal(v.severity, SEV_ERROR);
    assert_string_equal(v.msg, "dim 1 of y: gear value -3 is negative: tngc plans only sizes above 0");
    assert_int_equal(gear_rule_value(1, NULL, (1 << 20) + 1, 1 << 20, NULL, &v), 1);
    assert_int_equal(v.rule, RULE_TNG209);
    assert_string_equal(v.msg, "gear value 1048577 is larger than 2^20, the largest size tngc plans");
}

static void test_merge(void **state)
{
    GearVerdict v;
    int product = -1;
    (void)state;
    assert_int_equal(gear_rule_zip(3, "here", 3, "there", &v), 0);
    assert_int_equal(gear_rule_zip(2, "here", 3, "in the first at line 4", &v), 1);
    assert_int_equal(v.rule, RULE_TNG128);
    assert_string_equal(v.msg, "the zip gear policy needs gear lists of equal length: "
                               "2 values here, 3 in the first at line 4");
    assert_int_equal(gear_rule_total(0, GEARS_MAX, &v), 0);
    assert_int_equal(gear_rule_total(0, GEARS_MAX + 1, &v), 1);
    assert_int_equal(v.rule, RULE_TNG129);
    assert_string_equal(v.msg, "101 gears; at most 100 are allowed");
    size_t total = 1;
    for (int i = 0; i < 4; i++)
        total = gear_count_mul(total, 10);
    assert_true(total > GEARS_COUNT_CAP);
    assert_int_equal(gear_rule_total(1, total, &v), 1);
    assert_string_equal(v.msg, "the product of the gear lists gives more than 1000 gears; at most 100 are allowed");
    assert_int_equal(gear_rule_total(1, 110, &v), 1);
    assert_string_equal(v.msg, "the product of the gear lists gives 110 gears; at most 100 are allowed");
    assert_int_equal(gear_policy_parse("product", 7, &product, &v), 0);
    assert_int_equal(product, 1);
    assert_string_equal(gear_policy_name(product), "product");
    assert_int_equal(gear_policy_parse("zip", 3, &product, &v), 0);
    assert_int_equal(product, 0);
    assert_int_equal(gear_policy_parse("zipx", 4, &product, &v), 1);
    assert_int_equal(v.rule, RULE_TNG130);
    assert_string_equal(v.msg, "dynamic_gears_merge_policy must be \"zip\" or \"product\"");
    assert_int_equal(gear_policy_parse(NULL, 0, &product, &v), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dims),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
