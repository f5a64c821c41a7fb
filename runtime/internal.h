/*
 * internal.h - helpers the files of libtngcrt share; not installed, not
 * part of the public interface (tngrt.h).
 */
#ifndef TNGRT_INTERNAL_H
#define TNGRT_INTERNAL_H

#include "tngrt.h"

#include <stdint.h>
#include <stdio.h>

/* Formats "path: message" into err (just the message when path is NULL);
 * err may be NULL. */
void tngrt__fail(TngrtError *err, const char *path, const char *fmt, ...);
/* Reads the whole file at path into a malloc'd buffer (*len bytes); returns
 * 0, or -1 with err naming the file. */
int tngrt__read_file(const char *path, unsigned char **buf, size_t *len, TngrtError *err);

/* Writes path atomically: put(ctx, f) writes the contents into
 * "<path>.tmp.<pid>", which is renamed into place when put returns 0 and
 * every write succeeded; otherwise the temporary file is removed. Returns
 * 0, or -1 with err naming path. */
int tngrt__write_atomic(const char *path, int (*put)(const void *ctx, FILE *f), const void *ctx,
                        TngrtError *err);

/* exec.c: one poll's back-off (the CPU's spin-wait hint, or a yield of
 * the core where there is none); how long pollers spin before they sleep,
 * in ns (TNGRT_SPIN_US when it is 0 .. 100000 microseconds, else 50 us);
 * the CPUs of the process's affinity set (0 where that is unknown). */
void tngrt__pause(void);
uint64_t tngrt__spin_ns(void);
int tngrt__cpu_count(void);

/* par.c: the fork-join pool of the large products (see there). */
typedef struct TngrtPar TngrtPar;
/* A pool of nthreads threads, the caller included (workers start at its
 * first job); NULL when nthreads < 2 or memory runs out. */
TngrtPar *tngrt__par_new(int nthreads);
/* Stops and joins the workers and frees p (NULL: nothing). */
void tngrt__par_delete(TngrtPar *p);
/* The threads p runs, the caller included (1 when p is NULL). */
int tngrt__par_threads(const TngrtPar *p);
/* TNGRT_THREADS when it is 1 .. 256, else the CPUs of the affinity set. */
int tngrt__threads_env(void);
/* Makes p (NULL: none) the calling thread's current pool; returns the
 * previous one, for the caller to restore. */
TngrtPar *tngrt__par_enter(TngrtPar *p);
/* The calling thread's current pool, or NULL. */
TngrtPar *tngrt__par_current(void);
/* Runs fn(ctx, t) for t < ntasks, on p's threads and the caller's, and
 * returns when all are done; serially on the caller when p is NULL or
 * already running a job. Tasks must not depend on one another. */
void tngrt__par_for(TngrtPar *p, int ntasks, void (*fn)(void *ctx, int task), void *ctx);

#endif
