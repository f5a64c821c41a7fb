/*
 * test_rt_guest.c - unit tests of the pool's guests (runtime/par.c,
 * "Guests"; runtime/exec.c, "The pool's guests"): a bundle's stream
 * workers run the pool's tasks while they wait, so a pool of two threads
 * beside a second stream starts no thread of its own.
 *
 * Each test's first task is claimed by the caller (the pool's caller
 * always claims before it joins) and does not return until another thread
 * has run a task: so the job completes only if a guest runs tasks. The
 * guest is the worker of stream 1, waiting for an event stream 0 records
 * after the job (exec__block), or done with its stream and waiting for
 * the next run (exec__park). Every task notes its thread; the tests
 * assert that each ran once and only on the caller or stream 1's worker.
 *
 * Every test arms alarm(): a job no guest helps would hang instead of
 * failing. Functions on other threads do not use cmocka's asserts; they
 * count failures that the test asserts after the run.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../runtime/tngrt_exec.h"
#include "../../runtime/internal.h"
#include "rt_exec_fixture.h"

#define GUEST_ALARM_S 60
#define GUEST_TASKS 64
/* How long the first task waits for another thread's task (us). */
#define GUEST_WAIT_US 20000000L

typedef struct Guest {
    TngrtPar *pool;
    int wait_in_stream1;        /* stream 1 waits for event 0 (else returns at once) */
    pthread_t caller, worker;
    atomic_int ran[GUEST_TASKS];
    atomic_int others;          /* tasks run by a thread other than the caller */
    atomic_int strangers;       /* tasks run by neither the caller nor stream 1's worker */
    atomic_int worker_known;
    atomic_int bad;
} Guest;

static void guest_task(void *ctx, int t)
{
    Guest *g = ctx;
    pthread_t me = pthread_self();
    atomic_fetch_add(&g->ran[t], 1);
    if (!pthread_equal(me, g->caller)) {
        atomic_fetch_add(&g->others, 1);
        /* stream 1's worker noted itself before it could wait or park */
        if (!atomic_load(&g->worker_known) || !pthread_equal(me, g->worker))
            atomic_fetch_add(&g->strangers, 1);
    }
    if (t == 0) {
        long waited = 0;
        while (atomic_load(&g->others) == 0 && waited < GUEST_WAIT_US) {
            sleep_us(100);
            waited += 100;
        }
        if (atomic_load(&g->others) == 0)
            atomic_fetch_add(&g->bad, 1);
    } else {
        sleep_us(50);
    }
}

static int guest_stream(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    Guest *g = arg;
    (void)err;
    if (s == 1) {
        g->worker = pthread_self();
        atomic_store(&g->worker_known, 1);
        if (g->wait_in_stream1 && tngrt_exec_wait(x, 1, 0) != 0)
            atomic_fetch_add(&g->bad, 1);
        return 0;
    }
    g->caller = pthread_self();
    /* stream 1's worker has started (it is the guest) */
    for (long w = 0; !atomic_load(&g->worker_known) && w < GUEST_WAIT_US; w += 100)
        sleep_us(100);
    tngrt__par_for(g->pool, GUEST_TASKS, guest_task, g);
    tngrt_exec_record(x, 0, 0);
    return 0;
}

static void guest_run(int wait_in_stream1)
{
    static Guest g;
    TngrtStreamFn fns[2] = {guest_stream, guest_stream};
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    TngrtExec *x = exec_new_ok(2, 1);
    TngrtPar *pool = tngrt__par_new(2);
    assert_non_null(pool);
    tngrt__exec_set_pool(x, pool);
    alarm(GUEST_ALARM_S);
    for (int run = 0; run < 3; run++) {
        memset(&g, 0, sizeof g);
        g.wait_in_stream1 = wait_in_stream1;
        g.pool = pool;
        assert_int_equal(tngrt_exec_run(x, fns, &g, &err), 0);
        assert_int_equal(atomic_load(&g.bad), 0);
        for (int t = 0; t < GUEST_TASKS; t++)
            assert_int_equal(atomic_load(&g.ran[t]), 1);
        assert_true(atomic_load(&g.others) >= 1);
        assert_int_equal(atomic_load(&g.strangers), 0);
    }
    tngrt_exec_delete(x);
    tngrt__par_delete(pool);
    alarm(0);
}

/* The guest waits for an event of stream 0's (exec__block). */
static void test_guest_in_wait(void **state)
{
    (void)state;
    guest_run(1);
}

/* The guest's stream returned; it waits for the next run (exec__park). */
static void test_guest_in_park(void **state)
{
    (void)state;
    guest_run(0);
}

/* Without an executor the pool of two starts its own worker: the job
 * completes, its other tasks on one thread that is not the caller. */
static void test_no_guests(void **state)
{
    static Guest g;
    (void)state;
    alarm(GUEST_ALARM_S);
    memset(&g, 0, sizeof g);
    g.pool = tngrt__par_new(2);
    assert_non_null(g.pool);
    g.caller = pthread_self();
    tngrt__par_for(g.pool, GUEST_TASKS, guest_task, &g);
    assert_int_equal(atomic_load(&g.bad), 0);
    for (int t = 0; t < GUEST_TASKS; t++)
        assert_int_equal(atomic_load(&g.ran[t]), 1);
    assert_true(atomic_load(&g.others) >= 1);
    tngrt__par_delete(g.pool);
    alarm(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guest_in_wait),
        cmocka_unit_test(test_guest_in_park),
        cmocka_unit_test(test_no_guests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
