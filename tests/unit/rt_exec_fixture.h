/*
 * rt_exec_fixture.h - what the executor's tests (test_rt_exec.c,
 * test_rt_exec_sched.c, test_rt_exec_help.c) share: sleeping a number of
 * microseconds, and a new executor that fails the test when it cannot be
 * made. Included after cmocka.h and tngrt_exec.h.
 */
#ifndef TNGC_TESTS_RT_EXEC_FIXTURE_H
#define TNGC_TESTS_RT_EXEC_FIXTURE_H

#include <time.h>

static inline void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

static inline TngrtExec *exec_new_ok(int nstreams, int nevents)
{
    TngrtExec *x = NULL;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    if (tngrt_exec_new(&x, nstreams, nevents, &err) != 0)
        fail_msg("tngrt_exec_new(%d, %d): %s", nstreams, nevents, err.msg);
    return x;
}

#endif
