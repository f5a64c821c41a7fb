/*
 * poll.c - what the runtime's pollers share (internal.h): the executor's
 * (exec.c) and the pool's (par.c) waits spin on the CPU's spin-wait hint
 * for a bounded time before they sleep, and both size themselves by the
 * CPUs the process may run on.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE     /* CPU_COUNT, sched_getaffinity */
#endif
#include "internal.h"

#include <sched.h>
#include <stdlib.h>

/* How long a poller spins (ns) before it sleeps, by default, and the most
 * TNGRT_SPIN_US may ask for (us). */
#define POLL_SPIN_NS 50000
#define POLL_SPIN_US_MAX 100000

void tngrt__pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield");
#else
    sched_yield();
#endif
}

/* TNGRT_SPIN_US (0 .. POLL_SPIN_US_MAX microseconds; 0 sleeps at once)
 * when set to such a number, else POLL_SPIN_NS. */
uint64_t tngrt__spin_ns(void)
{
    const char *v = getenv("TNGRT_SPIN_US");
    char *end;
    long us;
    if (!v || !*v)
        return POLL_SPIN_NS;
    us = strtol(v, &end, 10);
    if (*end || us < 0 || us > POLL_SPIN_US_MAX)
        return POLL_SPIN_NS;
    return (uint64_t)us * 1000u;
}

int tngrt__cpu_count(void)
{
#if defined(__linux__)
    cpu_set_t all;
    return sched_getaffinity(0, sizeof all, &all) == 0 ? CPU_COUNT(&all) : 0;
#else
    return 0;
#endif
}
