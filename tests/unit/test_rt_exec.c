/*
 * test_rt_exec.c - unit tests of libtngcrt's stream executor and trace
 * writer: event ordering and chains, many runs of one executor (no event
 * leaks from one run into the next), random DAGs over 16 and 64 streams
 * checked against logical clocks computed sequentially, aborts, the
 * single-stream executor, argument errors, and the Chrome trace JSON
 * (coarsely parsed, deterministic, atomic writes; one flow per wait in
 * traced DAG runs).
 *
 * Stream functions run on worker threads, where cmocka's asserts must not
 * be used: they count failures in their context, which the test asserts
 * after the run.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../runtime/tngrt_exec.h"
#include "rt_exec_fixture.h"

/* ---- ordering ---- */

/* A chain: stream s waits for event s-1, checks and extends the value,
 * records event s. Stream 0 optionally sleeps first so the others sleep. */
typedef struct Chain {
    long value;          /* plain memory: ordered only by the events */
    long seen[8];        /* what stream s read */
    long delay_us;       /* stream 0's delay before its write */
    atomic_int bad;      /* failures inside streams */
} Chain;

static int chain_stream(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    Chain *c = arg;
    (void)err;
    if (s == 0) {
        if (c->delay_us)
            sleep_us(c->delay_us);
        c->value = 42;
    } else {
        if (tngrt_exec_wait(x, s, s - 1) != 0)
            atomic_fetch_add(&c->bad, 1);
        c->seen[s] = c->value;
        c->value = c->value * 10 + s;
    }
    tngrt_exec_record(x, s, s);
    return 0;
}

static void run_chain(int nstreams, long delay_us)
{
    static const TngrtStreamFn fns[8] = {
        chain_stream, chain_stream, chain_stream, chain_stream,
        chain_stream, chain_stream, chain_stream, chain_stream};
    TngrtExec *x = exec_new_ok(nstreams, nstreams);
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    Chain c;
    long want = 42;
    int s;
    memset(&c, 0, sizeof c);
    c.delay_us = delay_us;
    assert_int_equal(tngrt_exec_run(x, fns, &c, &err), 0);
    assert_int_equal(atomic_load(&c.bad), 0);
    for (s = 1; s < nstreams; s++) {
        assert_int_equal(c.seen[s], want);
        want = want * 10 + s;
    }
    assert_int_equal(c.value, want);
    tngrt_exec_delete(x);
}

static void test_event_order(void **state)
{
    (void)state;
    run_chain(2, 0);
    run_chain(2, 2000);
}

static void test_event_chain(void **state)
{
    (void)state;
    run_chain(3, 0);
    run_chain(5, 1000);
    run_chain(8, 3000);
}

/* ---- many runs ---- */

/* Stream 0 writes the run number and records e0; stream 1 waits e0,
 * copies it and records e1; streams 2 and 3 wait e1 (and e0). A wait
 * satisfied by the previous run's record would read the old number. */
typedef struct Runs {
    long run;              /* set by the test before each run */
    long v0, v1;           /* written by streams 0 and 1 */
    long seen2, seen3;     /* read by streams 2 and 3 */
    atomic_int bad;
} Runs;

static int runs_s0(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    Runs *r = arg;
    (void)err;
    if (r->run % 97 == 0)
        sleep_us(50);   /* now and then the waiters go to sleep */
    r->v0 = r->run;
    tngrt_exec_record(x, s, 0);
    return 0;
}

static int runs_s1(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    Runs *r = arg;
    (void)err;
    if (tngrt_exec_wait(x, s, 0) != 0 || r->v0 != r->run)
        atomic_fetch_add(&r->bad, 1);
    r->v1 = r->v0 + 1;
    tngrt_exec_record(x, s, 1);
    return 0;
}

static int runs_s2(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    Runs *r = arg;
    (void)err;
    if (tngrt_exec_wait(x, s, 1) != 0)
        atomic_fetch_add(&r->bad, 1);
    r->seen2 = r->v1;
    return 0;
}

static int runs_s3(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    Runs *r = arg;
    (void)err;
    if (tngrt_exec_wait(x, s, 1) != 0 || tngrt_exec_wait(x, s, 0) != 0)
        atomic_fetch_add(&r->bad, 1);
    r->seen3 = r->v1 + r->v0;
    return 0;
}

static void test_many_runs(void **state)
{
    static const TngrtStreamFn fns[4] = {runs_s0, runs_s1, runs_s2, runs_s3};
    TngrtExec *x = exec_new_ok(4, 2);
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    Runs r;
    long k;
    (void)state;
    memset(&r, 0, sizeof r);
    for (k = 1; k <= 10000; k++) {
        r.run = k;
        assert_int_equal(tngrt_exec_run(x, fns, &r, &err), 0);
        if (r.seen2 != k + 1 || r.seen3 != 2 * k + 1)
            fail_msg("run %ld: streams read %ld and %ld", k, r.seen2, r.seen3);
    }
    assert_int_equal(atomic_load(&r.bad), 0);
    tngrt_exec_delete(x);
}

/* ---- random DAGs ---- */

#define DAG_MAX_UNITS 512
#define DAG_MAX_DEPS 3

/* Units in a global order; unit u runs on stream[u] after the stream's
 * previous unit and after deps[u] (earlier units of other streams), then
 * records event u. Its clock is 1 + the max clock of what it follows,
 * tagged with the run number so stale values show. */
typedef struct Dag {
    int nstreams, nunits;
    int stream[DAG_MAX_UNITS];
    int ndeps[DAG_MAX_UNITS];
    int deps[DAG_MAX_UNITS][DAG_MAX_DEPS];
    long want[DAG_MAX_UNITS];     /* clocks computed sequentially */
    long clock[DAG_MAX_UNITS];    /* plain memory written by the units */
    long run;
    atomic_int bad;
} Dag;

static uint32_t lcg(uint32_t *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return *seed >> 8;
}

static void dag_build(Dag *d, int nstreams, int nunits, uint32_t seed)
{
    int last[64], u, k;
    memset(d, 0, sizeof *d);
    d->nstreams = nstreams;
    d->nunits = nunits;
    for (k = 0; k < nstreams; k++)
        last[k] = -1;
    for (u = 0; u < nunits; u++) {
        int s = (int)(lcg(&seed) % (uint32_t)nstreams), n = (int)(lcg(&seed) % (DAG_MAX_DEPS + 1));
        long c = last[s] >= 0 ? d->want[last[s]] : 0;
        d->stream[u] = s;
        for (k = 0; k < n && u > 0; k++) {
            int v = (int)(lcg(&seed) % (uint32_t)u);
            if (d->stream[v] == s)
                continue;
            d->deps[u][d->ndeps[u]++] = v;
            c = d->want[v] > c ? d->want[v] : c;
        }
        d->want[u] = c + 1;
        last[s] = u;
    }
}

static int dag_stream(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    Dag *d = arg;
    long tag = d->run << 32, c = 0;
    int u, k;
    for (u = 0; u < d->nunits; u++) {
        long m = c;
        if (d->stream[u] != s)
            continue;
        for (k = 0; k < d->ndeps[u]; k++) {
            int v = d->deps[u][k];
            if (tngrt_exec_wait(x, s, v) != 0) {
                snprintf(err->msg, sizeof err->msg, "wait e%d aborted", v);
                return -1;
            }
            if ((d->clock[v] & ~0xffffffffL) != tag)
                atomic_fetch_add(&d->bad, 1);
            m = (d->clock[v] & 0xffffffffL) > m ? (d->clock[v] & 0xffffffffL) : m;
        }
        c = m + 1;
        d->clock[u] = tag | c;
        if (tngrt_exec_trace(x))
            tngrt_trace_slice(tngrt_exec_trace(x), s, "unit", tngrt_trace_now(), tngrt_trace_now());
        tngrt_exec_record(x, s, u);
    }
    return 0;
}

/* Runs dp `runs` times on x, checking every unit's clock after each. */
static void run_dag_on(TngrtExec *x, Dag *dp, int runs)
{
    TngrtStreamFn fns[64];
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    int k, u;
    for (k = 0; k < dp->nstreams; k++)
        fns[k] = dag_stream;
    for (k = 1; k <= runs; k++) {
        dp->run++;
        if (tngrt_exec_run(x, fns, dp, &err) != 0)
            fail_msg("run %ld: %s", dp->run, err.msg);
        for (u = 0; u < dp->nunits; u++)
            if (dp->clock[u] != (dp->run << 32 | dp->want[u]))
                fail_msg("run %ld unit %d: clock %lx, want %ld", dp->run, u, dp->clock[u], dp->want[u]);
    }
    assert_int_equal(atomic_load(&dp->bad), 0);
}

static void run_dag(int nstreams, int nunits, int runs, uint32_t seed)
{
    TngrtExec *x = exec_new_ok(nstreams, nunits);
    Dag *d = malloc(sizeof *d);   /* large: kept off the stack */
    assert_non_null(d);
    dag_build(d, nstreams, nunits, seed);
    run_dag_on(x, d, runs);
    free(d);
    tngrt_exec_delete(x);
}

static void test_stress_16(void **state)
{
    (void)state;
    run_dag(16, 200, 300, 12345u);
}

static void test_stress_64(void **state)
{
    (void)state;
    run_dag(64, 400, 100, 777u);
}

/* ---- abort ---- */

/* Stream `failer` fails (after a delay, so the others sleep) instead of
 * recording event failer; every other stream waits for it, and stream
 * s > 0 records event s after its wait. */
typedef struct Abort {
    int failer;       /* -1: nobody fails */
    atomic_int waits_failed;
} Abort;

static int abort_stream(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    Abort *a = arg;
    if (s == a->failer) {
        sleep_us(2000);
        snprintf(err->msg, sizeof err->msg, "stream %d: boom", s);
        return -1;
    }
    if (a->failer >= 0 && tngrt_exec_wait(x, s, a->failer) != 0) {
        atomic_fetch_add(&a->waits_failed, 1);
        snprintf(err->msg, sizeof err->msg, "stream %d: wait aborted", s);
        return -1;
    }
    tngrt_exec_record(x, s, s);
    return 0;
}

static void abort_case(TngrtExec *x, int nstreams, int failer)
{
    static const TngrtStreamFn fns[4] = {abort_stream, abort_stream, abort_stream, abort_stream};
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    char want[64];
    Abort a;
    a.failer = failer;
    atomic_init(&a.waits_failed, 0);
    assert_int_equal(tngrt_exec_run(x, fns, &a, &err), -1);
    snprintf(want, sizeof want, "stream %d: boom", failer);
    assert_string_equal(err.msg, want);   /* the first failure, not a wait's */
    assert_int_equal(atomic_load(&a.waits_failed), nstreams - 1);
    a.failer = -1;
    assert_int_equal(tngrt_exec_run(x, fns, &a, &err), 0);
}

static void test_abort(void **state)
{
    TngrtExec *x = exec_new_ok(4, 4);
    int k;
    (void)state;
    abort_case(x, 4, 0);
    abort_case(x, 4, 2);
    abort_case(x, 4, 3);
    for (k = 0; k < 50; k++)
        abort_case(x, 4, k % 4);
    tngrt_exec_delete(x);
}

/* A stream that fails without a message gets one naming it. */
static int fail_silently(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    (void)arg, (void)x, (void)err;
    return s == 1 ? 1 : 0;
}

static void test_abort_no_message(void **state)
{
    static const TngrtStreamFn fns[2] = {fail_silently, fail_silently};
    TngrtExec *x = exec_new_ok(2, 0);
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    (void)state;
    assert_int_equal(tngrt_exec_run(x, fns, NULL, &err), -1);
    assert_string_equal(err.msg, "stream 1 failed");
    tngrt_exec_delete(x);
}

/* ---- one stream ---- */

static int count_stream(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    int *n = arg;
    (void)x;
    if (++*n == 3) {
        snprintf(err->msg, sizeof err->msg, "third call of stream %d", s);
        return -1;
    }
    return 0;
}

static void test_single_stream(void **state)
{
    static const TngrtStreamFn fns[1] = {count_stream};
    TngrtExec *x = exec_new_ok(1, 0);
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    int n = 0;
    (void)state;
    assert_int_equal(tngrt_exec_run(x, fns, &n, &err), 0);
    assert_int_equal(tngrt_exec_run(x, fns, &n, &err), 0);
    assert_int_equal(tngrt_exec_run(x, fns, &n, &err), -1);
    assert_string_equal(err.msg, "third call of stream 0");
    assert_int_equal(tngrt_exec_run(x, fns, &n, &err), 0);
    assert_int_equal(n, 4);
    assert_int_equal(tngrt_exec_wait(x, 0, 0), -1);   /* no such event */
    assert_null(tngrt_exec_trace(x));
    tngrt_exec_delete(x);
    tngrt_exec_delete(NULL);
}

/* ---- arguments ---- */

static void new_rejects(int nstreams, int nevents, const char *needle)
{
    TngrtExec *x = (TngrtExec *)&x;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    assert_int_equal(tngrt_exec_new(&x, nstreams, nevents, &err), -1);
    assert_null(x);
    if (!strstr(err.msg, needle))
        fail_msg("message '%s' lacks '%s'", err.msg, needle);
}

static void test_arguments(void **state)
{
    TngrtTrace *t = (TngrtTrace *)&t;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    (void)state;
    new_rejects(0, 0, "0 streams");
    new_rejects(65, 0, "65 streams");
    new_rejects(-1, 4, "-1 streams");
    new_rejects(2, -1, "-1 events");
    new_rejects(2, (1 << 20) + 1, "1048577 events");
    assert_int_equal(tngrt_trace_new(&t, 0, &err), -1);
    assert_null(t);
    assert_non_null(strstr(err.msg, "0 streams"));
}

/* ---- trace ---- */

/* Stream s times a unit named names[s], waits for event s-1 (s > 0) and
 * records event s. */
static const char *const unit_names[3] = {"load \"x\"", "matmul\\t", "relu\n"};

static int traced_stream(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    TngrtTrace *t = tngrt_exec_trace(x);
    uint64_t t0;
    (void)arg, (void)err;
    if (s > 0 && tngrt_exec_wait(x, s, s - 1) != 0)
        return -1;
    t0 = tngrt_trace_now();
    if (s == 0)
        sleep_us(300);
    if (t)
        tngrt_trace_slice(t, s, unit_names[s], t0, tngrt_trace_now());
    tngrt_exec_record(x, s, s);
    return 0;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* A coarse JSON check: strings hold only valid escapes and no control
 * characters, and brackets balance outside them. */
static void json_check(const char *s)
{
    char stack[16];
    int depth = 0, in_str = 0;
    for (; *s; s++) {
        if (in_str) {
            assert_true((unsigned char)*s >= 0x20);
            if (*s == '\\') {
                s++;
                assert_non_null(strchr("\"\\/bfnrtu", *s));
            } else if (*s == '"') {
                in_str = 0;
            }
        } else if (*s == '"') {
            in_str = 1;
        } else if (*s == '{' || *s == '[') {
            assert_true(depth < 16);
            stack[depth++] = *s == '{' ? '}' : ']';
        } else if (*s == '}' || *s == ']') {
            assert_true(depth > 0);
            assert_int_equal(*s, stack[--depth]);
        }
    }
    assert_int_equal(depth, 0);
    assert_int_equal(in_str, 0);
}

static void expect_in(const char *doc, const char *needle)
{
    if (!strstr(doc, needle))
        fail_msg("trace lacks %s", needle);
}

static void write_ok(const TngrtTrace *t, const char *path)
{
    static const char *const names[3] = {"stream 0 \"main\"", "s1", NULL};
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    char tmp[512];
    if (tngrt_trace_write(t, path, names, &err) != 0)
        fail_msg("tngrt_trace_write: %s", err.msg);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    assert_int_equal(access(tmp, F_OK), -1);
}

static void check_doc(const char *doc)
{
    json_check(doc);
    expect_in(doc, "{\"traceEvents\":[");
    expect_in(doc, "\"displayTimeUnit\":\"ns\"");
    expect_in(doc, "\"name\":\"process_name\"");
    expect_in(doc, "\"args\":{\"name\":\"tngc bundle\"}");
    expect_in(doc, "\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,"
                   "\"args\":{\"name\":\"stream 0 \\\"main\\\"\"}");
    expect_in(doc, "\"tid\":1,\"args\":{\"name\":\"s1\"}");
    expect_in(doc, "\"tid\":2,\"args\":{\"name\":\"stream 2\"}");
    expect_in(doc, "\"name\":\"load \\\"x\\\"\",\"cat\":\"tngc\",\"ph\":\"X\",\"pid\":1,\"tid\":0,\"ts\":");
    expect_in(doc, "\"name\":\"matmul\\\\t\"");
    expect_in(doc, "\"name\":\"relu\\n\"");
    expect_in(doc, "\"name\":\"wait e0\",\"cat\":\"tngc\",\"ph\":\"X\",\"pid\":1,\"tid\":1,");
    expect_in(doc, "\"name\":\"wait e1\",\"cat\":\"tngc\",\"ph\":\"X\",\"pid\":1,\"tid\":2,");
    expect_in(doc, "\"name\":\"e0\",\"cat\":\"event\",\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":0,");
    expect_in(doc, "\"name\":\"e0\",\"cat\":\"event\",\"ph\":\"f\",\"bp\":\"e\",\"id\":1,\"pid\":1,\"tid\":1,");
    expect_in(doc, "\"name\":\"e1\",\"cat\":\"event\",\"ph\":\"s\",\"id\":2,\"pid\":1,\"tid\":1,");
    expect_in(doc, "\"ph\":\"f\",\"bp\":\"e\",\"id\":2,\"pid\":1,\"tid\":2,");
    expect_in(doc, "\"ts\":0.000");   /* the earliest time is the origin */
    assert_null(strstr(doc, "\"id\":3"));
}

static void test_trace(void **state)
{
    static const TngrtStreamFn fns[3] = {traced_stream, traced_stream, traced_stream};
    char dir[] = "/tmp/tngrt-trace-XXXXXX", path[256], path2[256];
    TngrtExec *x = exec_new_ok(3, 3);
    TngrtTrace *t = NULL;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    char *doc, *doc2;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/trace.json", dir);
    snprintf(path2, sizeof path2, "%s/again.json", dir);
    assert_int_equal(tngrt_trace_new(&t, 3, &err), 0);
    tngrt_exec_set_trace(x, t);
    assert_ptr_equal(tngrt_exec_trace(x), t);
    assert_int_equal(tngrt_exec_run(x, fns, NULL, &err), 0);
    tngrt_exec_set_trace(x, NULL);
    assert_int_equal(tngrt_exec_run(x, fns, NULL, &err), 0);   /* not traced */
    write_ok(t, path);
    write_ok(t, path2);
    doc = read_all(path);
    doc2 = read_all(path2);
    check_doc(doc);
    assert_string_equal(doc, doc2);   /* deterministic */
    assert_int_equal(tngrt_trace_dropped(t), 0);
    free(doc);
    free(doc2);
    unlink(path);
    unlink(path2);
    rmdir(dir);
    tngrt_trace_delete(t);
    tngrt_exec_delete(x);
}

static void test_trace_write_fails(void **state)
{
    const char *path = "/nonexistent-tngrt-dir/trace.json";
    TngrtTrace *t = NULL;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    char tmp[256];
    (void)state;
    assert_int_equal(tngrt_trace_new(&t, 2, &err), 0);
    tngrt_trace_slice(t, 0, "a", 10, 20);
    tngrt_trace_slice(t, 5, "out of range", 10, 20);   /* ignored */
    assert_int_equal(tngrt_trace_write(t, path, NULL, &err), -1);
    assert_non_null(strstr(err.msg, path));
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    assert_int_equal(access(tmp, F_OK), -1);
    tngrt_trace_delete(t);
    tngrt_trace_delete(NULL);
}

/* Many slices grow the arrays; an empty trace writes a valid document. */
static void test_trace_growth(void **state)
{
    char dir[] = "/tmp/tngrt-trace-XXXXXX", path[256];
    TngrtTrace *t = NULL;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    char *doc;
    int i;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.json", dir);
    assert_int_equal(tngrt_trace_new(&t, 1, &err), 0);
    assert_int_equal(tngrt_trace_write(t, path, NULL, &err), 0);
    doc = read_all(path);
    json_check(doc);
    expect_in(doc, "\"args\":{\"name\":\"stream 0\"}");
    free(doc);
    for (i = 0; i < 5000; i++)
        tngrt_trace_slice(t, 0, "u", 1000 + (uint64_t)i * 10, 1005 + (uint64_t)i * 10);
    assert_int_equal(tngrt_trace_write(t, path, NULL, &err), 0);
    doc = read_all(path);
    json_check(doc);
    expect_in(doc, "\"ts\":0.000,\"dur\":0.005}");
    expect_in(doc, "\"ts\":49.990,\"dur\":0.005}");
    free(doc);
    unlink(path);
    rmdir(dir);
    tngrt_trace_delete(t);
}

/* Counts the occurrences of needle in doc. */
static int count_in(const char *doc, const char *needle)
{
    int n = 0;
    for (doc = strstr(doc, needle); doc; doc = strstr(doc + 1, needle))
        n++;
    return n;
}

/* Traced runs of a 16-stream DAG: one flow per dependency and run. */
static void test_trace_stress(void **state)
{
    char dir[] = "/tmp/tngrt-trace-XXXXXX", path[256];
    TngrtExec *x = exec_new_ok(16, 200);
    TngrtTrace *t = NULL;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    Dag *d = malloc(sizeof *d);
    int u, deps = 0;
    char *doc;
    (void)state;
    assert_non_null(d);
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.json", dir);
    dag_build(d, 16, 200, 99u);
    for (u = 0; u < d->nunits; u++)
        deps += d->ndeps[u];
    assert_int_equal(tngrt_trace_new(&t, 16, &err), 0);
    tngrt_exec_set_trace(x, t);
    run_dag_on(x, d, 5);
    free(d);
    assert_int_equal(tngrt_trace_write(t, path, NULL, &err), 0);
    doc = read_all(path);
    json_check(doc);
    assert_int_equal(count_in(doc, "\"ph\":\"s\""), 5 * deps);
    assert_int_equal(count_in(doc, "\"ph\":\"f\""), 5 * deps);
    assert_int_equal(count_in(doc, "\"name\":\"unit\""), 5 * 200);
    assert_int_equal(count_in(doc, "\"name\":\"wait e"), 5 * deps);
    assert_int_equal(tngrt_trace_dropped(t), 0);
    free(doc);
    unlink(path);
    rmdir(dir);
    tngrt_trace_delete(t);
    tngrt_exec_delete(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event_order),
        cmocka_unit_test(test_event_chain),
        cmocka_unit_test(test_many_runs),
        cmocka_unit_test(test_stress_16),
        cmocka_unit_test(test_stress_64),
        cmocka_unit_test(test_abort),
        cmocka_unit_test(test_abort_no_message),
        cmocka_unit_test(test_single_stream),
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_trace),
        cmocka_unit_test(test_trace_write_fails),
        cmocka_unit_test(test_trace_growth),
        cmocka_unit_test(test_trace_stress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
