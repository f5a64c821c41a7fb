/*
 * test_ops.c - every op kind of ir/ops.def has an entry in every per-kind
 * table of the compiler: its row (name, arity, attribute schema), a shape
 * rule (or, for a source, none), a row-independence rule
 * (planner/rowindep.c), an attribute printer (planner/plan_out.c), a CPU
 * row (codegen/emit_cpu.c), an ACL row or its explicit ACL_NONE
 * (codegen/acl_ops.c) and an op type for the manifests. Adding a row to
 * ops.def without the rest fails here, naming the kind and the table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../codegen/acl_ops.h"
#include "../../codegen/emit.h"
#include "../../planner/passes.h"

/* Appends " table:kind" to missing when ok is 0. */
static void check(StrBuf *missing, int ok, const char *table, OpKind k)
{
    if (!ok)
        sb_printf(missing, " %s:%s", table, op_info[k].name ? op_info[k].name : "?");
}

static void test_every_kind_has_every_entry(void **state)
{
    (void)state;
    StrBuf missing = {0};
    sb_puts(&missing, "");
    for (int i = 0; i < OP__count; i++) {
        OpKind k = (OpKind)i;
        const OpInfo *info = &op_info[k];
        check(&missing, info->name != NULL, "name", k);
        check(&missing, info->attrs != NULL, "attrs", k);
        check(&missing, info->min_in <= info->max_in && info->min_attr <= info->max_attr, "arity", k);
        /* graph_add_op adds every kind but the sources (they have no rule) */
        check(&missing, graph_op_has_rule(k) != !!(info->flags & OPF_SOURCE), "shape-rule", k);
        check(&missing, plan_rowindep_has_rule(k), "rowindep", k);
        check(&missing, plan_attrs_known(k), "plan-attrs", k);
        check(&missing, emit_cpu_has_row(k), "cpu", k);
        check(&missing, acl_op_has_row(k), "acl", k);
        check(&missing, acl_op_type_of_kind(k) != NULL, "acl-op-type", k);
    }
    assert_string_equal(missing.s, "");
    sb_free(&missing);
}

/* Every dtype has the name the manifests and static-kernel keys use. */
static void test_every_dtype_has_a_target_name(void **state)
{
    (void)state;
    assert_string_equal(codegen_dtype_name(DT_F32), "float");
    assert_string_equal(codegen_dtype_name(DT_BF16), "bfloat16");
    assert_string_equal(codegen_dtype_name(DT_UNKNOWN), "?");
    for (int t = DT_UNKNOWN + 1; t < DT__count; t++) {
        const char *n = codegen_dtype_name((DType)t);
        if (!n || !strcmp(n, "?"))
            fail_msg("dtype %s has no name in codegen/acl_ops.c", dtype_name((DType)t));
    }
}

/* Each ACL row has one token per parameter of its aclnn function. */
static void test_acl_rows_match_their_functions(void **state)
{
    (void)state;
    for (int k = 0; k < OP__count; k++) {
        for (int v = 0; v < ACL_V_OTHER; v++) {
            const AclOp *row = acl_op_find((OpKind)k, (AclVariant)v);
            if (!row)
                continue;
            assert_int_equal(row->kind, k);
            assert_int_equal(row->variant, v);
            if (emit_token_count(row->args) != acl_fn_nparams(row->fn))
                fail_msg("%s: %s has %d parameters, the row '%s' %d tokens", op_info[k].name, row->fn->name,
                         acl_fn_nparams(row->fn), row->args, emit_token_count(row->args));
        }
    }
}

/* Dump names are unique: lowering and --user-kernel look kinds up by them. */
static void test_names_unique(void **state)
{
    (void)state;
    for (int a = 0; a < OP__count; a++)
        for (int b = a + 1; b < OP__count; b++)
            if (!strcmp(op_info[a].name, op_info[b].name))
                fail_msg("op kinds %d and %d are both '%s'", a, b, op_info[a].name);
}

/* The view, layout and swap columns agree with the rest of the row: a step
 * of a chain of views reads an input, and its value is not known to be
 * contiguous; a swap is its own inverse and keeps the arity. */
static void test_view_layout_swap_columns(void **state)
{
    (void)state;
    for (int k = 0; k < OP__count; k++) {
        const OpInfo *info = &op_info[k];
        if (info->view != VIEW_NONE) {
            if (info->min_in < 1 || (info->flags & OPF_SOURCE))
                fail_msg("%s: a view step that reads no input", info->name);
            if (info->layout == LAYOUT_CONTIGUOUS)
                fail_msg("%s: a view step whose value is always contiguous", info->name);
        }
        if (info->swap >= 0) {
            if (info->swap >= OP__count || op_info[info->swap].swap != k)
                fail_msg("%s: its swap %d does not swap back", info->name, (int)info->swap);
            else if (op_info[info->swap].min_in != info->min_in || op_info[info->swap].max_in != info->max_in)
                fail_msg("%s and its swap %s take different inputs", info->name, op_info[info->swap].name);
        }
    }
    assert_int_equal(op_info[OP_LT].swap, OP_GT);
    assert_int_equal(op_info[OP_EQ].swap, OP_EQ);
    assert_int_equal(op_info[OP_ADD].swap, -1);
    assert_int_equal(op_info[OP_SLICE].view, VIEW_SLICE);
    assert_int_equal(op_info[OP_ADD].layout, LAYOUT_OF_OPERANDS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind_has_every_entry),
        cmocka_unit_test(test_every_dtype_has_a_target_name),
        cmocka_unit_test(test_acl_rows_match_their_functions),
        cmocka_unit_test(test_names_unique),
        cmocka_unit_test(test_view_layout_swap_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
