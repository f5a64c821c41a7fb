/*
 * tngrt_exec.h - the stream executor and the Chrome trace writer of
 * libtngcrt.
 *
 * An executor runs one bundle's streams concurrently. Stream 0 runs on the
 * thread that calls tngrt_exec_run (it would otherwise sit idle waiting);
 * streams 1..n-1 each have one persistent worker thread, created by
 * tngrt_exec_new, parked on a condition variable between runs and woken
 * by the runs that give its stream work. Events are counters: a run has a
 * generation number g; a record stores g in the event, a wait returns once
 * the event holds g. A waiter spins on a pause instruction for a bounded
 * time (at most 50 us; TNGRT_SPIN_US=N in the environment of tngrt_exec_new
 * sets N microseconds, 0 .. 100000; the budget shrinks while spins run out,
 * as on an overloaded machine, and grows back while they pay off) and then
 * sleeps on a condition variable;
 * there is no unbounded busy-wait. Workers are pinned to CPUs only when
 * TNGRT_PIN_THREADS=1 is in that environment.
 *
 * A stream may run on another thread than its worker: a stream no
 * worker has started yet is run by the caller when it is done with stream
 * 0, or by a thread waiting for its event when its function is known to
 * wait for nothing (exec.c, "Helping"; off with TNGRT_HELP=0 and with
 * pinning), so a worker that gets no core does not hold up a run. Stream
 * functions must not depend on the thread they run on.
 *
 * When a stream's function fails, the run is aborted: every wait of that
 * run returns -1 at once, so no stream waits for an event that will never
 * be recorded, and tngrt_exec_run returns the first failure's message.
 *
 * Tracing: with a TngrtTrace attached, every unit the generated code
 * brackets with tngrt_trace_now / tngrt_trace_slice, and every wait (as a
 * slice "wait eN" plus a flow arrow from the matching record), lands on the
 * track of its stream.
 */
#ifndef TNGRT_EXEC_H
#define TNGRT_EXEC_H

#include "tngrt.h"

typedef struct TngrtExec TngrtExec;
typedef struct TngrtTrace TngrtTrace;

/* One stream's work for one run: returns 0, or -1 with a message and a
 * kind in err (err is private to the stream for the run; its kind starts
 * as TNGRT_ERR_FAILURE). */
typedef int (*TngrtStreamFn)(void *arg, TngrtExec *exec, int stream, TngrtError *err);

/* Creates an executor for nstreams streams (1 .. 64) and nevents events
 * (0 .. 1<<20), starting nstreams - 1 worker threads; returns 0, or -1
 * with a message in err (nothing is left running then). */
int tngrt_exec_new(TngrtExec **out, int nstreams, int nevents, TngrtError *err);

/* Runs fns[s](arg, self, s, ...) for every stream s concurrently and
 * returns when all have finished (fns[s] == NULL: stream s has no work in
 * this run and records no event; its worker is not woken): 0, or -1 with the message and kind of
 * the stream that failed first in time (streams failing after it,
 * typically because their waits returned -1, are not reported; an empty
 * message becomes "stream N failed"). Calls on one executor must not
 * overlap. */
int tngrt_exec_run(TngrtExec *self, const TngrtStreamFn *fns, void *arg, TngrtError *err);

/* Records event e of the current run (called from the stream that owns
 * it, after the unit it follows). */
void tngrt_exec_record(TngrtExec *self, int stream, int e);

/* Waits until event e has been recorded in the current run; returns 0, or
 * -1 when the run was aborted by a failing stream (or e is out of range). */
int tngrt_exec_wait(TngrtExec *self, int stream, int e);

/* Attaches trace (NULL detaches) to the following runs; the executor does
 * not own it. The "wait eN" slice names belong to the executor: write such
 * a trace before deleting the executor. */
void tngrt_exec_set_trace(TngrtExec *self, TngrtTrace *trace);

/* The attached trace, or NULL: generated code tests it before timing a unit. */
TngrtTrace *tngrt_exec_trace(const TngrtExec *self);

/* Stops and joins the workers and frees self; NULL is accepted. */
void tngrt_exec_delete(TngrtExec *self);

/* ---- trace ---- */

/* A monotonic clock in nanoseconds. */
uint64_t tngrt_trace_now(void);

/* Creates an empty trace of nstreams tracks; returns 0, or -1 with a
 * message in err. */
int tngrt_trace_new(TngrtTrace **out, int nstreams, TngrtError *err);

/* Adds a slice [t0, t1) named name (a string that outlives the trace) on
 * stream's track. Only stream's own thread adds to its track, so no lock is
 * taken; when memory runs out the slice is dropped and counted. */
void tngrt_trace_slice(TngrtTrace *self, int stream, const char *name,
                       uint64_t t0, uint64_t t1);

/* Adds a flow arrow (event e) from stream `from` at time t_from to stream
 * `to` at time t_to; added by the waiting stream's thread. */
void tngrt_trace_flow(TngrtTrace *self, int e, int from, uint64_t t_from,
                      int to, uint64_t t_to);

/* Writes the trace as Chrome trace-event JSON ({"traceEvents": [...]},
 * times in microseconds from the earliest time in the trace, one thread
 * track per stream named by stream_names[s] ("stream N" when stream_names
 * or the entry is NULL)) to path atomically (a temporary made as
 * tngrt_npy_write_temp makes it, renamed into place); returns 0, or -1
 * with a message in err, path unchanged. */
int tngrt_trace_write(const TngrtTrace *self, const char *path,
                      const char *const *stream_names, TngrtError *err);

/* Writes the trace as tngrt_trace_write does into a new temporary file
 * for path, left for the caller to rename or remove; its name goes into
 * tmp (cap bytes), as with tngrt_npy_write_temp. Returns 0, or -1 with a
 * message in err (no file is left then). */
int tngrt_trace_write_temp(const TngrtTrace *self, const char *path,
                           const char *const *stream_names, char *tmp, size_t cap,
                           TngrtError *err);

/* Number of slices and flows dropped for lack of memory. */
uint64_t tngrt_trace_dropped(const TngrtTrace *self);

void tngrt_trace_delete(TngrtTrace *self);

#endif
