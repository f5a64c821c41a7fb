/*
 * test_diag_file.c - unit tests of diag_at_file (frontend/diag): a
 * diagnostic at an op of a module the script imports (the planner's gear
 * checks, the ACL emitter's unmapped ops, --user-kernel) keeps that
 * module's path for the caller (tngc.c) to resolve to its Source, and once
 * resolved it prints with the module's path and line, not the script's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../frontend/diag/diag.h"
#include "../../support/support.h"

static void test_file_kept(void **state)
{
    DiagList l = {0};
    (void)state;
    diag_at_file(&l, "modeling.py", 3, 9, RULE_TNG203, "no aclnn operator for '%s'", "sdpa");
    diag_at_file(&l, NULL, 0, 0, RULE_TNG209, "in the script");
    diag_at(&l, 2, 1, RULE_TNG209, "plain");
    assert_int_equal(l.n, 3);
    assert_string_equal(l.v[0].file, "modeling.py");
    assert_null(l.v[0].src);
    assert_int_equal(l.v[0].line, 3);
    assert_int_equal(l.v[0].col, 9);
    assert_string_equal(l.v[0].msg, "no aclnn operator for 'sdpa'");
    assert_null(l.v[1].file);
    assert_int_equal(l.v[1].line, 1);   /* line 0: the first line, as diag_at */
    assert_null(l.v[2].file);
    diag_free(&l);
}

static void test_printed_in_module(void **state)
{
    static const char script[] = "import torch\nfrom modeling import M\n";
    static const char module[] = "import torch\n\nclass M:\n    def f(self, q):\n        return g(q)\n";
    Source s, m;
    Sink err = {0};   /* nothing is reported: it succeeds */
    DiagList l = {0};
    StrBuf out = {0};
    (void)state;
    assert_int_equal(source_from_text(&s, "run.py", script, sizeof script - 1, &err), 0);
    assert_int_equal(source_from_text(&m, "modeling.py", module, sizeof module - 1, &err), 0);
    diag_at_file(&l, "modeling.py", 5, 16, RULE_TNG203, "no aclnn operator");
    l.v[0].src = &m;   /* what tngc.c does: the module of that path */
    diag_text(&s, &l.v[0], &out);
    assert_non_null(strstr(out.s, "modeling.py:5:16: error: no aclnn operator [TNG203]\n"));
    assert_non_null(strstr(out.s, "    5 |         return g(q)\n"));
    assert_null(strstr(out.s, "run.py"));
    sb_free(&out);
    diag_free(&l);
    source_free(&s);
    source_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_kept),
        cmocka_unit_test(test_printed_in_module),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
