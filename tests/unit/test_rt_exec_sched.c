/*
 * test_rt_exec_sched.c - unit tests of the stream executor's scheduling
 * behaviour: a stream whose function is NULL in a run
 * is not called (no start/join handshake; all-NULL runs make none at all)
 * while the other streams' events still order them; runs alternating idle
 * and busy workers; the spin budget from TNGRT_SPIN_US (0: sleep at once;
 * invalid values fall back to the default) with waits that must sleep; and
 * pinning, which happens only with TNGRT_PIN_THREADS=1.
 *
 * Stream functions run on worker threads, where cmocka's asserts must not
 * be used: they count failures in their context, which the test asserts
 * after the run.
 */
#define _GNU_SOURCE     /* sched_getaffinity, pthread_getaffinity_np */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../runtime/tngrt_exec.h"
#include "rt_exec_fixture.h"

/* ---- idle streams ---- */

/* Per-stream call counts, and a value passed from stream 0 to stream 2
 * through event 0 (stream 2 records event 1 for stream 0's second half
 * when both run). */
typedef struct Idle {
    atomic_int calls[4];
    long value, seen;
    long delay_us;
    int both;             /* stream 2 runs in this run */
    atomic_int bad;
} Idle;

static int idle_stream(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    Idle *c = arg;
    (void)err;
    atomic_fetch_add(&c->calls[s], 1);
    if (s == 0) {
        if (c->delay_us)
            sleep_us(c->delay_us);
        c->value++;
        tngrt_exec_record(x, 0, 0);
        if (c->both && tngrt_exec_wait(x, 0, 1) != 0)
            atomic_fetch_add(&c->bad, 1);
    } else if (s == 2) {
        if (tngrt_exec_wait(x, 2, 0) != 0)
            atomic_fetch_add(&c->bad, 1);
        c->seen = c->value;
        tngrt_exec_record(x, 2, 1);
    } else {
        atomic_fetch_add(&c->bad, 100);   /* streams 1 and 3 are never given work */
    }
    return 0;
}

/* Runs alternate: streams {0, 2} (1 and 3 idle), then stream 0 alone
 * (every worker idle): the idle workers are never called, and the busy
 * ones see every value in order. */
static void test_idle_streams(void **state)
{
    static const TngrtStreamFn two[4] = {idle_stream, NULL, idle_stream, NULL};
    static const TngrtStreamFn alone[4] = {idle_stream, NULL, NULL, NULL};
    TngrtExec *x = exec_new_ok(4, 2);
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    Idle c;
    int r, want2 = 0;
    (void)state;
    memset(&c, 0, sizeof c);
    for (r = 0; r < 400; r++) {
        c.both = r % 2 == 0;
        c.delay_us = r % 50 == 0 ? 3000 : 0;   /* now and then stream 2 must sleep */
        c.seen = -1;
        assert_int_equal(tngrt_exec_run(x, c.both ? two : alone, &c, &err), 0);
        if (c.both) {
            want2++;
            assert_int_equal(c.seen, c.value);
        } else {
            assert_int_equal(c.seen, -1);
        }
    }
    assert_int_equal(atomic_load(&c.bad), 0);
    assert_int_equal(atomic_load(&c.calls[0]), 400);
    assert_int_equal(atomic_load(&c.calls[1]), 0);
    assert_int_equal(atomic_load(&c.calls[2]), want2);
    assert_int_equal(atomic_load(&c.calls[3]), 0);
    assert_int_equal(c.value, 400);
    tngrt_exec_delete(x);
}

/* A stream 0 without work (NULL) while a worker runs: the run still waits
 * for the worker; a wait of an idle run's event from an earlier run does
 * not pass (generations). */
static int late_stream(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    long *v = arg;
    (void)x;
    (void)s;
    (void)err;
    sleep_us(2000);
    *v += 1;
    return 0;
}

static void test_idle_stream0(void **state)
{
    static const TngrtStreamFn fns[2] = {NULL, late_stream};
    TngrtExec *x = exec_new_ok(2, 1);
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    long v = 0;
    (void)state;
    assert_int_equal(tngrt_exec_run(x, fns, &v, &err), 0);
    assert_int_equal(v, 1);     /* joined: the worker finished before the return */
    assert_int_equal(tngrt_exec_run(x, fns, &v, &err), 0);
    assert_int_equal(v, 2);
    tngrt_exec_delete(x);
}

/* A failure on a busy stream with idle ones beside it is reported. */
static int fail_stream(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    (void)arg;
    (void)x;
    snprintf(err->msg, sizeof err->msg, "stream %d gave up", s);
    return -1;
}

static void test_idle_abort(void **state)
{
    static const TngrtStreamFn fns[3] = {idle_stream, NULL, fail_stream};
    TngrtExec *x = exec_new_ok(3, 2);
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    Idle c;
    (void)state;
    memset(&c, 0, sizeof c);
    c.both = 1;     /* stream 0 waits for event 1, which the failing stream never records */
    assert_int_equal(tngrt_exec_run(x, fns, &c, &err), -1);
    assert_string_equal(err.msg, "stream 2 gave up");
    assert_int_equal(atomic_load(&c.calls[1]), 0);
    tngrt_exec_delete(x);
}

/* ---- spinning ---- */

/* A chain 0 -> 1 -> 2 with stream 0 late, so that the waits outlast any
 * spin and must sleep, under the spin budget TNGRT_SPIN_US=spin. */
typedef struct Chain {
    long value, seen[3];
    long delay_us;
    atomic_int bad;
} Chain;

static int chain_stream(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    Chain *c = arg;
    (void)err;
    if (s == 0) {
        if (c->delay_us)
            sleep_us(c->delay_us);
        c->value = 7;
    } else {
        if (tngrt_exec_wait(x, s, s - 1) != 0)
            atomic_fetch_add(&c->bad, 1);
        c->seen[s] = c->value;
        c->value = c->value * 10 + s;
    }
    tngrt_exec_record(x, s, s);
    return 0;
}

static void chain_with_spin(const char *spin)
{
    static const TngrtStreamFn fns[3] = {chain_stream, chain_stream, chain_stream};
    TngrtExec *x;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    Chain c;
    int r;
    if (spin)
        setenv("TNGRT_SPIN_US", spin, 1);
    else
        unsetenv("TNGRT_SPIN_US");
    x = exec_new_ok(3, 3);
    unsetenv("TNGRT_SPIN_US");
    for (r = 0; r < 60; r++) {
        memset(&c, 0, sizeof c);
        c.delay_us = r % 3 == 0 ? 1500 : 0;
        assert_int_equal(tngrt_exec_run(x, fns, &c, &err), 0);
        assert_int_equal(atomic_load(&c.bad), 0);
        assert_int_equal(c.seen[1], 7);
        assert_int_equal(c.seen[2], 71);
        assert_int_equal(c.value, 712);
        if (r % 20 == 19)
            sleep_us(3000);     /* the workers park past their spin */
    }
    tngrt_exec_delete(x);
}

static void test_spin_budgets(void **state)
{
    (void)state;
    chain_with_spin(NULL);      /* the default, 50 us */
    chain_with_spin("0");       /* sleep at once */
    chain_with_spin("1");
    chain_with_spin("100000");  /* the most accepted */
    chain_with_spin("100001");  /* out of range: the default */
    chain_with_spin("-5");
    chain_with_spin("12abc");
}

/* ---- pinning ---- */

typedef struct Pin {
    int ncpu[4];          /* CPUs in each worker's affinity set */
    atomic_int bad;
} Pin;

static int pin_stream(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    Pin *p = arg;
    cpu_set_t set;
    (void)x;
    (void)err;
    if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) != 0)
        atomic_fetch_add(&p->bad, 1);
    else
        p->ncpu[s] = CPU_COUNT(&set);
    return 0;
}

static void pin_run(const char *env, Pin *p)
{
    static const TngrtStreamFn fns[4] = {pin_stream, pin_stream, pin_stream, pin_stream};
    TngrtExec *x;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    if (env)
        setenv("TNGRT_PIN_THREADS", env, 1);
    else
        unsetenv("TNGRT_PIN_THREADS");
    x = exec_new_ok(4, 0);
    unsetenv("TNGRT_PIN_THREADS");
    memset(p, 0, sizeof *p);
    assert_int_equal(tngrt_exec_run(x, fns, p, &err), 0);
    assert_int_equal(atomic_load(&p->bad), 0);
    tngrt_exec_delete(x);
}

/* Workers keep the process's CPUs unless TNGRT_PIN_THREADS=1; then each
 * runs on one CPU. The caller's thread (stream 0) is never pinned. */
static void test_pinning(void **state)
{
    cpu_set_t all;
    int n, s;
    Pin p;
    (void)state;
    assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
    n = CPU_COUNT(&all);
    pin_run(NULL, &p);
    for (s = 0; s < 4; s++)
        assert_int_equal(p.ncpu[s], n);
    pin_run("0", &p);
    for (s = 0; s < 4; s++)
        assert_int_equal(p.ncpu[s], n);
    pin_run("1", &p);
    assert_int_equal(p.ncpu[0], n);
    for (s = 1; s < 4; s++)
        assert_int_equal(p.ncpu[s], 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle_streams),
        cmocka_unit_test(test_idle_stream0),
        cmocka_unit_test(test_idle_abort),
        cmocka_unit_test(test_spin_budgets),
        cmocka_unit_test(test_pinning),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
