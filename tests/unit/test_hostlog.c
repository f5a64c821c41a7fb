/*
 * test_hostlog.c - unit tests of hostlog/hostlog.c (`tngc recompiles`).
 *
 * Standalone build:
 *   cc -std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L -Ifrontend \
 *      hostlog/hostlog.c support/out.c support/support.c support/fs.c \
 *      tests/unit/test_hostlog.c -lcmocka -o /tmp/t && /tmp/t
 * Each test works in its own directory from mkdtemp() and removes it.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../hostlog/hostlog.h"

/* ------------------------------------------------------------------------ */
/* fixture                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct Fx {
    char dir[256];
    char log[300];
    char list[300];
    char *report;  /* from the last run() */
    char *err;
    size_t report_len, err_len;
    HostlogOptions opt;
} Fx;

static int setup(void **state)
{
    Fx *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    const char *base = getenv("TMPDIR");
    snprintf(fx->dir, sizeof fx->dir, "%s/hostlog.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(fx->dir)) {
        free(fx);
        return -1;
    }
    snprintf(fx->log, sizeof fx->log, "%s/host.log", fx->dir);
    snprintf(fx->list, sizeof fx->list, "%s/recompile_op_list.txt", fx->dir);
    hostlog_options_init(&fx->opt);
    fx->opt.list_path = fx->list;
    *state = fx;
    return 0;
}

static void rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *de;
            while ((de = readdir(d)) != NULL) {
                if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                    continue;
                char sub[1024];
                snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
                rm_rf(sub);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

static int teardown(void **state)
{
    Fx *fx = *state;
    rm_rf(fx->dir);
    free(fx->report);
    free(fx->err);
    free(fx);
    return 0;
}

static void write_bytes(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void write_text(const char *path, const char *text)
{
    write_bytes(path, text, strlen(text));
}

/* Whole file as a NUL-terminated string (NULL if missing); *len its size. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    assert_non_null(buf);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
            assert_non_null(buf);
        }
    }
    fclose(f);
    buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

/* Runs the engine on fx->log with fx->opt; keeps report and err text. */
static int run(Fx *fx)
{
    free(fx->report);
    free(fx->err);
    fx->report = fx->err = NULL;
    FILE *rep = open_memstream(&fx->report, &fx->report_len);
    FILE *err = open_memstream(&fx->err, &fx->err_len);
    assert_non_null(rep);
    assert_non_null(err);
    Sink sink;   /* printing to err as tngc's prints to stderr */
    sink_init(&sink, err);
    int rc = hostlog_recompiles(&fx->opt, fx->log, rep, &sink);
    assert_int_equal(sink.errors, rc != 0);
    sink_free(&sink);
    fclose(rep);
    fclose(err);
    return rc;
}

static void assert_list(Fx *fx, const char *want)
{
    size_t n = 0;
    char *got = slurp(fx->list, &n);
    assert_non_null(got);
    assert_int_equal(n, strlen(want));
    assert_string_equal(got, want);
    free(got);
}

/* The directory holds exactly `want` entries (no temporary files left). */
static void assert_dir_entries(Fx *fx, int want)
{
    DIR *d = opendir(fx->dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            n++;
    closedir(d);
    assert_int_equal(n, want);
}

/* ------------------------------------------------------------------------ */
/* tests                                                                     */
/* ------------------------------------------------------------------------ */

static const char *BASIC_LOG =
    "startup noise\n"
    "[INFO] TBE(1,python3): To compile op: Cast\n"
    "[INFO] TBE(1,python3): To compile op: TransData\n"
    "To compile op|=====iter0\n"
    "To compile op: Conv2D\n"
    "To compile op: Cast\n"
    "To compile op: Conv2D\n"
    "To compile op|=====iter1\n"
    "loss 1.0\n"
    "To compile op|=====iter2\n"
    "To compile op|=====iter3\n"
    "To compile op: ConcatD\n"
    "To compile op|=====iter4\n"
    "To compile op: ConcatD\n"
    "To compile op: NonZero\n"
    "To compile op: Cast\n"
    "To compile op|=====iter5\n"
    "To compile op: ConcatD\n";

static const char *BASIC_LIST =
    "iter: 0\nCast,TransData\n"
    "iter: 1\nConv2D,Cast\n"
    "iter: 2\n\n"
    "iter: 3\n\n"
    "iter: 4\nConcatD\n"
    "iter: 5\nConcatD,NonZero,Cast\n"
    "iter: 6\nConcatD\n";

static void test_defaults(void **state)
{
    (void)state;
    HostlogOptions o;
    memset(&o, 0x55, sizeof o);
    hostlog_options_init(&o);
    assert_string_equal(o.split_flag, "=====iter");
    assert_int_equal(o.after, 3);
    assert_string_equal(o.list_path, "recompile_op_list.txt");
    assert_int_equal(o.json, 0);
}

static void test_basic_text(void **state)
{
    Fx *fx = *state;
    write_text(fx->log, BASIC_LOG);
    assert_int_equal(run(fx), 0);
    assert_list(fx, BASIC_LIST);
    assert_string_equal(fx->report,
        "7 iterations, 5 distinct ops; 2 compiled for the first time after iteration 3"
        " (dynamic-shape suspects):\n"
        "  ConcatD  first compiled in iteration 4, compiled in iterations 4,5,6\n"
        "  NonZero  first compiled in iteration 5, compiled in iterations 5\n");
    assert_string_equal(fx->err, "");
    assert_dir_entries(fx, 2);
}

static void test_basic_json(void **state)
{
    Fx *fx = *state;
    write_text(fx->log, BASIC_LOG);
    fx->opt.json = 1;
    assert_int_equal(run(fx), 0);
    assert_list(fx, BASIC_LIST);
    assert_string_equal(fx->report,
        "{\"iterations\":7,\"ops\":5,\"after\":3,\"suspects\":["
        "{\"op\":\"ConcatD\",\"first_iteration\":4,\"iterations\":[4,5,6],\"iteration_count\":3},"
        "{\"op\":\"NonZero\",\"first_iteration\":5,\"iterations\":[5],\"iteration_count\":1}]}\n");
}

static void test_after_option(void **state)
{
    Fx *fx = *state;
    write_text(fx->log, BASIC_LOG);
    fx->opt.after = 0;
    assert_int_equal(run(fx), 0);
    assert_string_equal(fx->report,
        "7 iterations, 5 distinct ops; 3 compiled for the first time after iteration 0"
        " (dynamic-shape suspects):\n"
        "  Conv2D  first compiled in iteration 1, compiled in iterations 1\n"
        "  ConcatD  first compiled in iteration 4, compiled in iterations 4,5,6\n"
        "  NonZero  first compiled in iteration 5, compiled in iterations 5\n");
    fx->opt.after = 10;
    assert_int_equal(run(fx), 0);
    assert_string_equal(fx->report,
        "7 iterations, 5 distinct ops; 0 compiled for the first time after iteration 10"
        " (dynamic-shape suspects).\n");
    fx->opt.after = -1; /* everything is a suspect */
    fx->opt.json = 1;
    assert_int_equal(run(fx), 0);
    assert_non_null(strstr(fx->report, "{\"op\":\"Cast\",\"first_iteration\":0,"
                                       "\"iterations\":[0,1,5],\"iteration_count\":3}"));
}

static void test_empty_log(void **state)
{
    Fx *fx = *state;
    write_text(fx->log, "");
    assert_int_equal(run(fx), 0);
    assert_list(fx, "iter: 0\n\n");
    assert_string_equal(fx->report,
        "1 iteration, 0 distinct ops; 0 compiled for the first time after iteration 3"
        " (dynamic-shape suspects).\n");
}

static void test_markers_only(void **state)
{
    Fx *fx = *state;
    write_text(fx->log, "=====iter0\nTo compile op|=====iter1\n  x=====itery  \n");
    assert_int_equal(run(fx), 0);
    assert_list(fx, "iter: 0\n\niter: 1\n\niter: 2\n\niter: 3\n\n");
    /* no final newline: the last line still counts */
    write_text(fx->log, "=====iter0");
    assert_int_equal(run(fx), 0);
    assert_list(fx, "iter: 0\n\niter: 1\n\n");
}

static void test_commas_and_spaces_in_names(void **state)
{
    Fx *fx = *state;
    write_text(fx->log,
               "To compile op: a,b\n"
               "To compile op: Add inner  space\n"
               "To compile op: a,b\n"
               "To compile op: \n"             /* flag stripped away: nothing */
               "x To compile op:  lead\n"      /* name keeps its leading space */
               "To compile op: To compile op: x\n"   /* name is empty */
               "To compile op: To compile op: \n"); /* name: "To compile op:" */
    assert_int_equal(run(fx), 0);
    assert_list(fx, "iter: 0\na,b,Add inner  space, lead,,To compile op:\n");
}

static void test_duplicates_per_iteration(void **state)
{
    Fx *fx = *state;
    write_text(fx->log,
               "To compile op: A\nTo compile op: B\nTo compile op: A\nTo compile op: A\n"
               "=====iter\n"
               "To compile op: B\nTo compile op: A\nTo compile op: B\n");
    assert_int_equal(run(fx), 0);
    assert_list(fx, "iter: 0\nA,B\niter: 1\nB,A\n");
}

static void test_flag_twice(void **state)
{
    Fx *fx = *state;
    write_text(fx->log,
               "pre To compile op: Mul To compile op: Add To compile op: Sub\n"
               "To compile op: abcTo compile op: \n"
               "To compile op: To compile op: To compile op: x\n");
    assert_int_equal(run(fx), 0);
    /* str.split(flag)[1]: up to the next occurrence; the second line's
     * trailing space is stripped, so its second flag is not complete */
    assert_list(fx, "iter: 0\nMul ,abcTo compile op:,\n");
}

static void test_marker_wins_over_op(void **state)
{
    Fx *fx = *state;
    write_text(fx->log, "To compile op: X =====iter\nTo compile op: Y\n");
    assert_int_equal(run(fx), 0);
    assert_list(fx, "iter: 0\n\niter: 1\nY\n");
}

static void test_crlf_and_cr(void **state)
{
    Fx *fx = *state;
    write_text(fx->log,
               "To compile op: A\r\n"
               "=====iter0\r\n"
               "To compile op: B\rTo compile op: C\r\r\n"
               "=====iter1\r"
               "To compile op: D\r\n");
    assert_int_equal(run(fx), 0);
    assert_list(fx, "iter: 0\nA\niter: 1\nB,C\niter: 2\nD\n");
}

static void test_unicode_whitespace_strip(void **state)
{
    Fx *fx = *state;
    write_text(fx->log,
               "\xe3\x80\x80 To compile op: A\xc2\xa0\t\x0b\x0c\x1c\x1f \xe2\x80\xa8\n"
               "To compile op: B\xe2\x80\x8b\n"   /* U+200B is not whitespace */
               "To compile op: C \xc2\x85\n"
               "To compile op:\xe2\x80\x80X\n");  /* U+2000 is not ' ': no flag */
    assert_int_equal(run(fx), 0);
    assert_list(fx, "iter: 0\nA,B\xe2\x80\x8b,C\n");
}

static void test_split_flag_option(void **state)
{
    Fx *fx = *state;
    write_text(fx->log, "To compile op: A\n--step--\nTo compile op: B\n=====iter\n");
    fx->opt.split_flag = "--step";
    assert_int_equal(run(fx), 0);
    assert_list(fx, "iter: 0\nA\niter: 1\nB\n");
    /* an empty flag is in every line (Python: '' in s is True) */
    fx->opt.split_flag = "";
    write_text(fx->log, "To compile op: A\n");
    assert_int_equal(run(fx), 0);
    assert_list(fx, "iter: 0\n\niter: 1\n\niter: 2\n\n");
    /* a flag with a trailing space does not match at the end of a line */
    fx->opt.split_flag = "iter ";
    write_text(fx->log, "iter \niter x\n");
    assert_int_equal(run(fx), 0);
    assert_list(fx, "iter: 0\n\niter: 1\n\n");
}

static void test_missing_log(void **state)
{
    Fx *fx = *state;
    snprintf(fx->log, sizeof fx->log, "%s/nope.log", fx->dir);
    assert_int_equal(run(fx), 2);
    char want[600];
    snprintf(want, sizeof want, "tngc: %s: No such file or directory\n", fx->log);
    assert_string_equal(fx->err, want);
    assert_string_equal(fx->report, "");
    assert_dir_entries(fx, 0);
}

static void test_log_is_directory(void **state)
{
    Fx *fx = *state;
    snprintf(fx->log, sizeof fx->log, "%s", fx->dir);
    assert_int_equal(run(fx), 2);
    char want[600];
    snprintf(want, sizeof want, "tngc: %s: Is a directory\n", fx->dir);
    assert_string_equal(fx->err, want);
    assert_dir_entries(fx, 0);
}

static void test_bad_output(void **state)
{
    Fx *fx = *state;
    write_text(fx->log, BASIC_LOG);
    char path[400];
    snprintf(path, sizeof path, "%s/no/such/dir/list.txt", fx->dir);
    fx->opt.list_path = path;
    assert_int_equal(run(fx), 2);
    char want[600];
    snprintf(want, sizeof want, "tngc: %s: No such file or directory\n", path);
    assert_string_equal(fx->err, want);
    assert_string_equal(fx->report, "");
    /* the output path is a directory */
    fx->opt.list_path = fx->dir;
    assert_int_equal(run(fx), 2);
    snprintf(want, sizeof want, "tngc: %s: Is a directory\n", fx->dir);
    assert_string_equal(fx->err, want);
    assert_dir_entries(fx, 1); /* only the log: no temporary file left */
}

static void test_failure_keeps_old_list(void **state)
{
    Fx *fx = *state;
    write_text(fx->list, "old\n");
    chmod(fx->list, 0640);
    snprintf(fx->log, sizeof fx->log, "%s/missing.log", fx->dir);
    assert_int_equal(run(fx), 2);
    assert_list(fx, "old\n");
    /* success replaces it and keeps its mode */
    snprintf(fx->log, sizeof fx->log, "%s/host.log", fx->dir);
    write_text(fx->log, "To compile op: A\n");
    assert_int_equal(run(fx), 0);
    assert_list(fx, "iter: 0\nA\n");
    struct stat st;
    assert_int_equal(stat(fx->list, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    assert_dir_entries(fx, 2);
}

/* A log that is not a regular file (a FIFO with no writer would block,
 * /dev/zero never ends) is refused at once; a FIFO as the list file is
 * written through, never replaced. */
static void test_non_regular_files(void **state)
{
    Fx *fx = *state;
    snprintf(fx->log, sizeof fx->log, "%s/log.fifo", fx->dir);
    assert_int_equal(mkfifo(fx->log, 0600), 0);
    assert_int_equal(run(fx), 2);
    assert_non_null(strstr(fx->err, "log.fifo: not a regular file"));
    assert_int_equal(access(fx->list, F_OK), -1);
    snprintf(fx->log, sizeof fx->log, "/dev/zero");
    assert_int_equal(run(fx), 2);
    assert_non_null(strstr(fx->err, "/dev/zero: not a regular file"));
    /* the list file on a FIFO: O_RDWR keeps the FIFO open for writing without a reader */
    snprintf(fx->log, sizeof fx->log, "%s/host.log", fx->dir);
    write_text(fx->log, "To compile op: A\n");
    snprintf(fx->list, sizeof fx->list, "%s/list.fifo", fx->dir);
    fx->opt.list_path = fx->list;
    assert_int_equal(mkfifo(fx->list, 0600), 0);
    int keep = open(fx->list, O_RDWR);
    assert_true(keep >= 0);
    assert_int_equal(run(fx), 0);
    char buf[64] = {0};
    assert_int_equal(read(keep, buf, sizeof buf - 1), (ssize_t)strlen("iter: 0\nA\n"));
    assert_string_equal(buf, "iter: 0\nA\n");
    close(keep);
    struct stat st;
    assert_int_equal(lstat(fx->list, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
}

static void test_list_to_report_stream(void **state)
{
    Fx *fx = *state;
    write_text(fx->log, BASIC_LOG);
    fx->opt.list_path = "-";
    fx->opt.json = 1; /* ignored: the stream gets the list, not the report */
    assert_int_equal(run(fx), 0);
    assert_string_equal(fx->report, BASIC_LIST);
    assert_dir_entries(fx, 1);
}

static void test_iteration_cap(void **state)
{
    Fx *fx = *state;
    size_t cap = 64 * (HOSTLOG_ITERS_MAX + 20);
    char *log = malloc(cap);
    assert_non_null(log);
    size_t n = 0;
    for (int i = 0; i < HOSTLOG_ITERS_MAX + 10; i++)
        n += (size_t)snprintf(log + n, cap - n, "=====iter%d\nTo compile op: Dyn\n", i);
    write_bytes(fx->log, log, n);
    free(log);
    fx->opt.after = 0;
    assert_int_equal(run(fx), 0);
    assert_non_null(strstr(fx->report, ",100,... (10 more)\n"));
    fx->opt.json = 1;
    assert_int_equal(run(fx), 0);
    assert_non_null(strstr(fx->report, ",99,100],\"iteration_count\":110}]}\n"));
}

static void test_long_name_truncated(void **state)
{
    Fx *fx = *state;
    char *log = malloc(3 * HOSTLOG_NAME_MAX);
    assert_non_null(log);
    size_t n = (size_t)sprintf(log, "To compile op: ");
    memset(log + n, 'a', HOSTLOG_NAME_MAX - 1);
    n += HOSTLOG_NAME_MAX - 1;
    memcpy(log + n, "\xe4\xb8\xad", 3); /* U+4E2D across the cut */
    n += 3;
    memset(log + n, 'b', 500);
    n += 500;
    n += (size_t)sprintf(log + n, "\nTo compile op: ");
    memset(log + n, 'c', HOSTLOG_NAME_MAX + 1);
    n += HOSTLOG_NAME_MAX + 1;
    log[n++] = '\n';
    write_bytes(fx->log, log, n);
    free(log);
    assert_int_equal(run(fx), 0);
    size_t got_len = 0;
    char *got = slurp(fx->list, &got_len);
    assert_non_null(got);
    /* "iter: 0\n" + (4095 a) + "," + (4096 c) + "\n" */
    assert_int_equal(got_len, 8 + (HOSTLOG_NAME_MAX - 1) + 1 + HOSTLOG_NAME_MAX + 1);
    assert_int_equal(got[8 + HOSTLOG_NAME_MAX - 1], ',');
    free(got);
    char want[600];
    snprintf(want, sizeof want,
             "tngc: %s:1: warning: op name longer than %d bytes truncated"
             " (further warnings suppressed)\n", fx->log, HOSTLOG_NAME_MAX);
    assert_string_equal(fx->err, want);
}

static void test_odd_bytes(void **state)
{
    Fx *fx = *state;
    static const char log[] =
        "To compile op: q\"b\\s\x01\t\x7f" "x\n"
        "To compile op: bad\xff\xc3(\xe4\xb8\n"
        "To compile op: nul\0z\n"
        "To compile op: ok\xc3\xa9\n";
    write_bytes(fx->log, log, sizeof log - 1);
    fx->opt.after = -1;
    assert_int_equal(run(fx), 0);
    size_t n = 0;
    char *got = slurp(fx->list, &n);
    static const char want[] =
        "iter: 0\nq\"b\\s\x01\t\x7f" "x,bad\xff\xc3(\xe4\xb8,nul\0z,ok\xc3\xa9\n";
    assert_int_equal(n, sizeof want - 1);
    assert_memory_equal(got, want, n);
    free(got);
    assert_string_equal(fx->report,
        "1 iteration, 4 distinct ops; 4 compiled for the first time after iteration -1"
        " (dynamic-shape suspects):\n"
        "  q\"b\\\\s\\x01\\x09\\x7fx  first compiled in iteration 0, compiled in iterations 0\n"
        "  bad\xff\xc3(\xe4\xb8  first compiled in iteration 0, compiled in iterations 0\n"
        "  nul\\x00z  first compiled in iteration 0, compiled in iterations 0\n"
        "  ok\xc3\xa9  first compiled in iteration 0, compiled in iterations 0\n");
    fx->opt.json = 1;
    assert_int_equal(run(fx), 0);
    assert_string_equal(fx->report,
        "{\"iterations\":1,\"ops\":4,\"after\":-1,\"suspects\":["
        "{\"op\":\"q\\\"b\\\\s\\u0001\\t\\u007fx\",\"first_iteration\":0,\"iterations\":[0],\"iteration_count\":1},"
        "{\"op\":\"bad\xef\xbf\xbd\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbd\",\"first_iteration\":0,\"iterations\":[0],\"iteration_count\":1},"
        "{\"op\":\"nul\\u0000z\",\"first_iteration\":0,\"iterations\":[0],\"iteration_count\":1},"
        "{\"op\":\"ok\xc3\xa9\",\"first_iteration\":0,\"iterations\":[0],\"iteration_count\":1}]}\n");
}

static void test_chunk_boundaries(void **state)
{
    /* a CRLF, a UTF-8 space and the flag straddling the 64 KiB read size */
    Fx *fx = *state;
    for (size_t pad = 65536 - 20; pad < 65536 + 4; pad++) {
        size_t cap = pad + 200;
        char *log = malloc(cap);
        assert_non_null(log);
        memset(log, 'x', pad);
        size_t n = pad;
        n += (size_t)snprintf(log + n, cap - n,
                              "\r\nTo compile op: A\xe3\x80\x80\r\n=====iter\r\nTo compile op: B\r\n");
        write_bytes(fx->log, log, n);
        free(log);
        assert_int_equal(run(fx), 0);
        assert_list(fx, "iter: 0\nA\niter: 1\nB\n");
    }
}

static void test_null_arguments(void **state)
{
    Fx *fx = *state;
    write_text(fx->log, "To compile op: A\n");
    /* no report stream and no error stream are allowed */
    assert_int_equal(hostlog_recompiles(&fx->opt, fx->log, NULL, NULL), 0);
    assert_list(fx, "iter: 0\nA\n");
    snprintf(fx->log, sizeof fx->log, "%s/missing", fx->dir);
    assert_int_equal(hostlog_recompiles(&fx->opt, fx->log, NULL, NULL), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test_setup_teardown(test_basic_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_basic_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_after_option, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_log, setup, teardown),
        cmocka_unit_test_setup_teardown(test_markers_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commas_and_spaces_in_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_duplicates_per_iteration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flag_twice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_marker_wins_over_op, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crlf_and_cr, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unicode_whitespace_strip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_split_flag_option, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_log, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_is_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_output, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failure_keeps_old_list, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_to_report_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(test_iteration_cap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_name_truncated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_odd_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chunk_boundaries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_null_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_non_regular_files, setup, teardown),
    };
    return cmocka_run_group_tests_name("hostlog", tests, NULL, NULL);
}
