/*
 * test_rt_exec_help.c - unit tests of the stream executor's helping
 * (runtime/exec.c, "Helping"): with one CPU in the process's affinity set,
 * a stream known to wait for nothing runs on the caller's thread (its
 * worker is not woken), and not with TNGRT_HELP=0; a stream that waits is
 * never run inline by a waiter (a ping-pong of events that would deadlock
 * if it were), neither after a failed run that stopped it before its wait,
 * nor when runs alternate between functions that wait and functions that
 * do not (gears); every stream runs exactly once per run, whoever runs it;
 * on one CPU a chain of streams runs on the caller alone, and one whose
 * first stream waits for a later one still completes (workers woken when
 * the caller would sleep).
 *
 * Every test arms alarm(): a deadlock kills the test instead of hanging.
 * Stream functions may run on worker threads, where cmocka's asserts must
 * not be used: they count failures in their context, which the test
 * asserts after the run.
 */
#define _GNU_SOURCE     /* sched_getaffinity, sched_setaffinity, CPU_SET */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../runtime/tngrt_exec.h"
#include "rt_exec_fixture.h"

/* Seconds a test may take before SIGALRM ends it (a deadlock). */
#define HELP_ALARM_S 60

/* Restricts the process to one CPU of its set (the first); returns the
 * set to restore. */
static cpu_set_t one_cpu(void)
{
    cpu_set_t all, one;
    int cpu;
    assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
    for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &all); cpu++)
        ;
    assert_true(cpu < CPU_SETSIZE);
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    return all;
}

/* ---- a wait-free branch ---- */

/* Stream 1 computes a value and records event 0; stream 0 waits for it.
 * Each stream notes the thread it ran on. */
typedef struct Branch {
    long in, out, seen;
    pthread_t thread[2];
    atomic_int calls[2];
    atomic_int bad;
} Branch;

static int branch_stream(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    Branch *b = arg;
    (void)err;
    b->thread[s] = pthread_self();
    atomic_fetch_add(&b->calls[s], 1);
    if (s == 1) {
        b->out = b->in * 3 + 1;
        tngrt_exec_record(x, 1, 0);
    } else {
        if (tngrt_exec_wait(x, 0, 0) != 0)
            atomic_fetch_add(&b->bad, 1);
        b->seen = b->out;
    }
    return 0;
}

/* Runs the branch model `runs` times on an executor made under the
 * current affinity; returns how many runs after the first ran stream 1 on
 * the caller's thread. */
static int branch_runs(int runs)
{
    static const TngrtStreamFn fns[2] = {branch_stream, branch_stream};
    TngrtExec *x = exec_new_ok(2, 1);
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    Branch b;
    int inline_runs = 0;
    memset(&b, 0, sizeof b);
    for (int r = 0; r < runs; r++) {
        b.in = r;
        assert_int_equal(tngrt_exec_run(x, fns, &b, &err), 0);
        assert_int_equal(b.seen, r * 3 + 1);
        if (r > 0 && pthread_equal(b.thread[1], pthread_self()))
            inline_runs++;
    }
    assert_int_equal(atomic_load(&b.bad), 0);
    assert_int_equal(atomic_load(&b.calls[0]), runs);
    assert_int_equal(atomic_load(&b.calls[1]), runs);
    tngrt_exec_delete(x);
    return inline_runs;
}

/* One CPU: after the first run (which learns that stream 1 waits for
 * nothing), stream 1 always runs on the caller's thread. */
static void test_solo_inline(void **state)
{
    cpu_set_t all;
    (void)state;
    alarm(HELP_ALARM_S);
    unsetenv("TNGRT_HELP");
    all = one_cpu();
    assert_int_equal(branch_runs(200), 199);
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
    alarm(0);
}

/* TNGRT_HELP=0: stream 1 always runs on its worker, one CPU or not. */
static void test_help_off(void **state)
{
    cpu_set_t all;
    (void)state;
    alarm(HELP_ALARM_S);
    setenv("TNGRT_HELP", "0", 1);
    all = one_cpu();
    assert_int_equal(branch_runs(100), 0);
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
    assert_int_equal(branch_runs(100), 0);
    unsetenv("TNGRT_HELP");
    alarm(0);
}

/* Every CPU: whoever runs stream 1, every run is right and calls each
 * stream once. */
static void test_all_cpus(void **state)
{
    (void)state;
    alarm(HELP_ALARM_S);
    unsetenv("TNGRT_HELP");
    (void)branch_runs(2000);
    alarm(0);
}

/* ---- a stream that waits: never run inline by a waiter ---- */

/* Ping-pong: stream 1 records event 1, then waits for event 0, which
 * stream 0 records only after its own wait for event 1. Run inside
 * stream 0's wait, stream 1 would wait for stream 0 forever. With `fail`
 * set, stream 1 fails at once (before its wait), as a kernel error would. */
typedef struct Pong {
    long a, b, seen_a, seen_b;
    int fail;
    atomic_int bad;
} Pong;

static int pong_stream(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    Pong *p = arg;
    if (s == 1) {
        if (p->fail) {
            strcpy(err->msg, "stream 1 fails");
            return -1;
        }
        p->b = p->a + 1;
        tngrt_exec_record(x, 1, 1);
        if (tngrt_exec_wait(x, 1, 0) != 0)
            atomic_fetch_add(&p->bad, 1);
        p->seen_a = p->a;
    } else {
        if (tngrt_exec_wait(x, 0, 1) != 0)
            atomic_fetch_add(&p->bad, 1);
        p->seen_b = p->b;
        p->a = p->b * 2;
        tngrt_exec_record(x, 0, 0);
    }
    return 0;
}

/* A second function for stream 1 (another gear's): records event 0 and
 * waits for nothing; stream 0 waits for it. */
static int pong_free(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    Pong *p = arg;
    (void)err;
    if (s == 1) {
        p->b = p->a + 5;
        tngrt_exec_record(x, 1, 0);
    } else {
        if (tngrt_exec_wait(x, 0, 0) != 0)
            atomic_fetch_add(&p->bad, 1);
        p->seen_b = p->b;
    }
    return 0;
}

/* Runs the ping-pong `runs` times (alternating with the wait-free gear
 * when `gears`), the first run with stream 1 failing when `fail_first`. */
static void pong_runs(int runs, int fail_first, int gears)
{
    static const TngrtStreamFn pong[2] = {pong_stream, pong_stream};
    static const TngrtStreamFn freefns[2] = {pong_free, pong_free};
    TngrtExec *x = exec_new_ok(2, 2);
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    Pong p;
    memset(&p, 0, sizeof p);
    for (int r = 0; r < runs; r++) {
        int use_free = gears && r % 2 == 1;
        p.fail = fail_first && r == 0;
        p.a = r;
        if (p.fail) {
            assert_int_equal(tngrt_exec_run(x, pong, &p, &err), -1);
            assert_string_equal(err.msg, "stream 1 fails");
            atomic_store(&p.bad, 0);    /* stream 0's wait returned -1, as it must */
            continue;
        }
        assert_int_equal(tngrt_exec_run(x, use_free ? freefns : pong, &p, &err), 0);
        if (use_free) {
            assert_int_equal(p.seen_b, r + 5);
        } else {
            assert_int_equal(p.seen_b, r + 1);
            assert_int_equal(p.seen_a, (r + 1) * 2);
        }
    }
    assert_int_equal(atomic_load(&p.bad), 0);
    tngrt_exec_delete(x);
}

/* The ping-pong completes on one CPU and on all, after a failed first run,
 * and alternating with a wait-free gear (whose event 0 has another
 * recorder). */
static void test_waiting_stream(void **state)
{
    cpu_set_t all;
    (void)state;
    alarm(HELP_ALARM_S);
    unsetenv("TNGRT_HELP");
    pong_runs(300, 0, 0);
    pong_runs(300, 1, 0);
    pong_runs(300, 0, 1);
    pong_runs(300, 1, 1);
    all = one_cpu();
    pong_runs(300, 0, 0);
    pong_runs(300, 1, 0);
    pong_runs(300, 0, 1);
    pong_runs(300, 1, 1);
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
    alarm(0);
}

/* ---- many streams, one CPU ---- */

/* Streams 1..7 each add their number into their own slot (wait-free);
 * stream 0 waits for all of them through events 1..7 and sums. */
typedef struct Fan {
    long slot[8], sum;
    atomic_int calls[8];
    atomic_int bad;
} Fan;

static int fan_stream(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    Fan *f = arg;
    (void)err;
    atomic_fetch_add(&f->calls[s], 1);
    if (s > 0) {
        f->slot[s] = s * 10;
        tngrt_exec_record(x, s, s);
        return 0;
    }
    f->sum = 0;
    for (int e = 7; e >= 1; e--) {   /* the last stream's event first */
        if (tngrt_exec_wait(x, 0, e) != 0)
            atomic_fetch_add(&f->bad, 1);
        f->sum += f->slot[e];
    }
    return 0;
}

/* Eight streams on one CPU and on all: every run sums right, and every
 * stream is called once per run. */
static void test_fan_in(void **state)
{
    static const TngrtStreamFn fns[8] = {fan_stream, fan_stream, fan_stream, fan_stream,
                                         fan_stream, fan_stream, fan_stream, fan_stream};
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    cpu_set_t all;
    (void)state;
    alarm(HELP_ALARM_S);
    unsetenv("TNGRT_HELP");
    all = one_cpu();
    for (int pass = 0; pass < 2; pass++) {
        TngrtExec *x = exec_new_ok(8, 8);
        Fan f;
        memset(&f, 0, sizeof f);
        for (int r = 0; r < 300; r++) {
            memset(f.slot, 0, sizeof f.slot);
            assert_int_equal(tngrt_exec_run(x, fns, &f, &err), 0);
            assert_int_equal(f.sum, 280);
        }
        for (int s = 0; s < 8; s++)
            assert_int_equal(atomic_load(&f.calls[s]), 300);
        assert_int_equal(atomic_load(&f.bad), 0);
        tngrt_exec_delete(x);
        if (pass == 0)
            assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
    }
    alarm(0);
}

/* ---- chains on one CPU: the caller runs them at its join ---- */

/* Stream 0 sets v0 and records event 0. Forward: stream 1 waits for event
 * 0 and records event 1, stream 2 waits for event 1. Backward: stream 2
 * waits for event 0 and records event 1, stream 1 waits for event 1 (the
 * caller, running stream 1 first at its join, must get stream 2 run: the
 * workers are woken when it is about to sleep). */
typedef struct Chain3 {
    long v0, v1, v2;
    int backward;
    pthread_t thread[3];
    atomic_int bad;
} Chain3;

static int chain3_stream(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    Chain3 *c = arg;
    int first = c->backward ? 2 : 1;    /* the stream that waits for stream 0 */
    (void)err;
    c->thread[s] = pthread_self();
    if (s == 0) {
        c->v0 += 1;
        tngrt_exec_record(x, 0, 0);
    } else if (s == first) {
        if (tngrt_exec_wait(x, s, 0) != 0)
            atomic_fetch_add(&c->bad, 1);
        *(s == 1 ? &c->v1 : &c->v2) = c->v0 * 2;
        tngrt_exec_record(x, s, 1);
    } else {
        if (tngrt_exec_wait(x, s, 1) != 0)
            atomic_fetch_add(&c->bad, 1);
        *(s == 1 ? &c->v1 : &c->v2) = (s == 1 ? c->v2 : c->v1) + 1;
    }
    return 0;
}

/* Runs the chain `runs` times; returns how many runs ran all three streams
 * on the caller's thread. */
static int chain3_runs(int runs, int backward)
{
    static const TngrtStreamFn fns[3] = {chain3_stream, chain3_stream, chain3_stream};
    TngrtExec *x = exec_new_ok(3, 2);
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    Chain3 c;
    int all_inline = 0;
    memset(&c, 0, sizeof c);
    c.backward = backward;
    for (int r = 0; r < runs; r++) {
        assert_int_equal(tngrt_exec_run(x, fns, &c, &err), 0);
        long last = backward ? c.v1 : c.v2;
        assert_int_equal(last, (r + 1) * 2 + 1);
        if (pthread_equal(c.thread[1], pthread_self()) && pthread_equal(c.thread[2], pthread_self()))
            all_inline++;
    }
    assert_int_equal(atomic_load(&c.bad), 0);
    tngrt_exec_delete(x);
    return all_inline;
}

/* One CPU: a forward chain runs entirely on the caller (no worker is
 * woken); a backward one completes (its workers are woken when the caller
 * would sleep). Every CPU: both complete. */
static void test_solo_chains(void **state)
{
    cpu_set_t all;
    (void)state;
    alarm(HELP_ALARM_S);
    unsetenv("TNGRT_HELP");
    all = one_cpu();
    assert_int_equal(chain3_runs(200, 0), 200);
    (void)chain3_runs(200, 1);
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
    (void)chain3_runs(500, 0);
    (void)chain3_runs(500, 1);
    alarm(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_solo_inline),
        cmocka_unit_test(test_help_off),
        cmocka_unit_test(test_all_cpus),
        cmocka_unit_test(test_waiting_stream),
        cmocka_unit_test(test_fan_in),
        cmocka_unit_test(test_solo_chains),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
