/*
 * gemv_main.h - what gemv.c and gemv_q8.c share: the clock, the sort of
 * per-pass times, and main's body (TOTAL and ROUNDS from the command line,
 * a pool of 2 threads, one call of the program's size function per size,
 * MIN=1 in the environment for the best instead of the median).
 */
#ifndef GEMV_MAIN_H
#define GEMV_MAIN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "internal.h"

#define MAX_ROUNDS 64

/* Seconds on the monotonic clock. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One size [n, k]: 0, or -1 when memory runs out. */
typedef int (*GemvSizeFn)(TngrtPar *pool, int64_t n, int64_t k, double total, int rounds, int best);

/* main of a GEMV benchmark over sizes sz[0 .. nsz - 1] ({n, k} each). */
static int gemv_main(int argc, char **argv, const char *name, const int64_t (*sz)[2], size_t nsz,
                     GemvSizeFn size_fn)
{
    double total = argc > 1 ? atof(argv[1]) : 512e6;
    int rounds = argc > 2 ? atoi(argv[2]) : 7, rc = 0;
    TngrtPar *pool = tngrt__par_new(2);
    if (rounds < 1 || rounds > MAX_ROUNDS || !pool) {
        fprintf(stderr, "usage: %s [TOTAL_BYTES [ROUNDS (1..%d)]]\n", name, MAX_ROUNDS);
        return 2;
    }
    for (size_t i = 0; i < nsz && rc == 0; i++)
        rc = size_fn(pool, sz[i][0], sz[i][1], total, rounds, getenv("MIN") != NULL);
    tngrt__par_delete(pool);
    if (rc)
        fprintf(stderr, "%s: out of memory\n", name);
    return rc ? 1 : 0;
}

#endif
