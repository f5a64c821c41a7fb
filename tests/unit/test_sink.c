/*
 * test_sink.c - unit tests of the diagnostics sink (support/sink.c): a
 * diagnostic without a source location prints as "tngc: [FILE: ]MESSAGE"
 * (a warning or a note with its severity word), is counted by severity,
 * and a stage that fails without a line to point at (a file that cannot
 * be read, an output folder that cannot be written) reports exactly one
 * error through the sink it is given. A located diagnostic goes through
 * the same sink: printed as diag_text renders it, counted with the rest.
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
#include <sys/stat.h>
#include <unistd.h>

#include "../../codegen/build.h"
#include "../../frontend/diag/diag.h"
#include "../../frontend/python/python.h"
#include "../../support/sink.h"

/* The line m prints as. */
static char *line_of(const SinkMsg *m)
{
    StrBuf out = {0};
    sink_msg_line(m, &out);
    return out.s;
}

static void test_lines(void **state)
{
    (void)state;
    Sink s;
    sink_init(&s, NULL);
    sink_error(&s, "cannot write %s: %s", "out/x.c", "Permission denied");
    sink_file_error(&s, "model.py", "is a directory");
    sink_warning(&s, "building without the cache: %s", "no secret");
    sink_note(&s, "the stub is %s", "out/k.c");
    sink_report(&s, SEV_WARNING, "log.txt:7", "op name truncated");
    assert_int_equal(s.msgs.n, 5);
    assert_int_equal(s.errors, 2);
    assert_int_equal(s.warnings, 2);
    static const char *const want[] = {
        "tngc: cannot write out/x.c: Permission denied\n",
        "tngc: model.py: is a directory\n",
        "tngc: warning: building without the cache: no secret\n",
        "tngc: note: the stub is out/k.c\n",
        "tngc: log.txt:7: warning: op name truncated\n",
    };
    for (size_t i = 0; i < 5; i++) {
        char *got = line_of(&s.msgs.v[i]);
        assert_string_equal(got, want[i]);
        free(got);
    }
    StrBuf text = {0};
    sink_msg_text(sink_last(&s), &text);
    assert_string_equal(text.s, "log.txt:7: warning: op name truncated");
    sb_free(&text);
    sink_free(&s);
    assert_null(sink_last(&s));
}

/* A path with control bytes cannot write them to the terminal. */
static void test_printable(void **state)
{
    (void)state;
    Sink s;
    sink_init(&s, NULL);
    sink_file_error(&s, "a\033[2Jb.py", "No such file or directory");
    char *got = line_of(&s.msgs.v[0]);
    assert_string_equal(got, "tngc: a\\x1b[2Jb.py: No such file or directory\n");
    free(got);
    sink_free(&s);
}

/* With a stream, each diagnostic is printed when it is reported. */
static void test_stream(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    Sink s;
    sink_init(&s, f);
    sink_error(&s, "first");
    assert_string_equal(buf, "tngc: first\n");
    sink_warning(&s, "second");
    fclose(f);
    assert_string_equal(buf, "tngc: first\ntngc: warning: second\n");
    assert_int_equal(s.msgs.n, 2);
    free(buf);
    sink_free(&s);
}

/* source_load: one error about the file, nothing else. */
/* A Diag of a script, rendered in gcc's format, reported to the sink:
 * printed whole (source line and caret), counted by its severity. */
static void test_located(void **state)
{
    (void)state;
    Source src;
    Sink s;
    sink_init(&s, NULL);
    const char text[] = "import torch\nx = torch.zeros(2)\n";
    assert_int_equal(source_from_text(&src, "m.py", text, sizeof text - 1, &s), 0);
    DiagList l = {0};
    diag_at(&l, 2, 5, RULE_TNG203, "a %s", "problem");
    StrBuf out = {0};
    diag_text(&src, &l.v[0], &out);
    sink_located(&s, l.v[0].severity, "m.py", out.s, out.len);
    sink_warning(&s, "and one about the run");
    assert_int_equal(s.msgs.n, 2);
    assert_int_equal(s.errors, l.v[0].severity == SEV_ERROR);
    assert_int_equal(s.warnings, 1 + (l.v[0].severity == SEV_WARNING));
    char *got = line_of(&s.msgs.v[0]);
    assert_string_equal(got, out.s);
    assert_non_null(strstr(got, "m.py:2:5: "));
    assert_non_null(strstr(got, "    2 | x = torch.zeros(2)\n"));
    free(got);
    StrBuf q = {0};
    sink_msg_text(&s.msgs.v[0], &q);
    assert_string_equal(q.s, out.s);
    sb_free(&q);
    sb_free(&out);
    diag_free(&l);
    source_free(&src);
    sink_free(&s);
}

static void test_source_unreadable(void **state)
{
    (void)state;
    Sink s;
    sink_init(&s, NULL);
    Source src;
    assert_int_equal(source_load(&src, "/nonexistent/m.py", &s), -1);
    assert_int_equal(s.msgs.n, 1);
    assert_int_equal(s.errors, 1);
    char *got = line_of(&s.msgs.v[0]);
    assert_string_equal(got, "tngc: /nonexistent/m.py: No such file or directory\n");
    free(got);
    sink_free(&s);
}

/* A cache folder that is a file: build_cache_check reports
 * exactly one error, located nowhere, and fails. */
static void test_cache_unusable(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_sink_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char file[64];
    snprintf(file, sizeof file, "%s/f", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    Sink s;
    sink_init(&s, NULL);
    assert_int_equal(build_cache_check(file, 0, &s), -1);
    assert_int_equal(s.msgs.n, 1);
    assert_int_equal(s.errors, 1);
    assert_null(s.msgs.v[0].file);
    char want[160];
    snprintf(want, sizeof want, "tngc: cache dir %s is not a directory\n", file);
    char *got = line_of(&s.msgs.v[0]);
    assert_string_equal(got, want);
    free(got);
    sink_free(&s);
    unlink(file);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_printable),
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_located),
        cmocka_unit_test(test_source_unreadable),
        cmocka_unit_test(test_cache_unusable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
