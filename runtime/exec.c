/*
 * exec.c - the stream executor of libtngcrt (tngrt_exec.h).
 *
 * Threads. Stream 0 runs on the caller of tngrt_exec_run; streams 1..n-1
 * have one persistent worker each. A run publishes its functions, sets
 * `pending` to n-1 and bumps the atomic generation `gen`; a worker polls
 * `gen` briefly after each run and then parks on `start_cv` (counted in
 * `parked`, so the caller broadcasts only when someone sleeps). Each worker
 * runs its stream once per generation and decrements `pending`; the one
 * that reaches 0 signals `done_cv`, on which the caller sleeps after its
 * own brief polling.
 *
 * Polling. Every poll loop is bounded (EXEC_SPIN_POLLS) and yields the core
 * now and then, so that with more streams than cores a poller hands its
 * core to the thread it waits for; then it sleeps on a condition variable.
 *
 * Events. Event e is an atomic counter holding the generation of the run
 * that last recorded it, so a record from run k-1 never satisfies a wait
 * of run k. A wait polls the counter a bounded number of times and then
 * sleeps on `ev_cv`. A waiter that is about to sleep first counts itself in
 * `sleepers`; a recorder stores the event and then broadcasts only when
 * `sleepers` is non-zero. Both sides use sequentially consistent accesses,
 * so either the recorder sees the sleeper or the sleeper sees the record,
 * and the broadcast under `ev_mu` cannot be lost.
 *
 * Abort. The first stream (in time) whose function fails wins a
 * compare-and-swap on `abort_gen`, which makes every wait of the run
 * return -1; tngrt_exec_run then returns that stream's message. Later
 * failures (typically streams whose waits returned -1) are ignored.
 *
 * Tracing. With a trace attached, a record also stores its time and stream
 * per event, and a wait adds a slice "wait eN" and a flow arrow from the
 * record. The "wait eN" names live in a table the executor builds when a
 * trace is first attached and frees in tngrt_exec_delete: a trace that
 * used an executor must be written before the executor is deleted.
 */
#include "tngrt_exec.h"
#include "internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The most streams and events an executor accepts. */
#define EXEC_MAX_STREAMS 64
#define EXEC_MAX_EVENTS (1 << 20)
/* Polls of an event (or of the run handshake) before the poller goes to
 * sleep, and how often a poll yields the core (see exec__relax). */
#define EXEC_SPIN_POLLS 2000
#define EXEC_YIELD_EVERY 16
/* Bytes of one "wait eN" name ("wait e1048575" and its NUL fit). */
#define EXEC_NAME_LEN 16

/* One worker thread: the stream it runs. */
typedef struct ExecWorker {
    TngrtExec *exec;
    int stream;
    pthread_t thread;
} ExecWorker;

struct TngrtExec {
    int nstreams, nevents;

    /* The run handshake. */
    atomic_uint_fast64_t gen;   /* generation of the current run (1, 2, ...) */
    atomic_int pending;         /* workers still running the current run */
    atomic_int stop;            /* workers exit */
    const TngrtStreamFn *fns;   /* the current run's functions (published by gen) */
    void *arg;                  /* and their argument */
    pthread_mutex_t mu;         /* guards parked and the two sleeps below */
    pthread_cond_t start_cv;    /* parked workers wait for a new gen (or stop) */
    pthread_cond_t done_cv;     /* the caller waits for pending == 0 */
    int parked;                 /* workers asleep on start_cv */

    /* Events and their sleepers. */
    pthread_mutex_t ev_mu;
    pthread_cond_t ev_cv;
    atomic_uint_fast64_t *events;   /* generation of the last record */
    atomic_uint_fast64_t abort_gen; /* generation of the last aborted run */
    atomic_int sleepers;            /* waiters inside the sleeping path */
    int first_fail;                 /* stream that aborted the run, or -1 */

    /* Tracing. */
    TngrtTrace *trace;
    atomic_uint_fast64_t *rec_time;  /* per event: time of its last record */
    atomic_int *rec_stream;          /* per event: stream of its last record */
    char (*wait_names)[EXEC_NAME_LEN];   /* "wait eN", built on demand */

    TngrtError *errs;       /* per stream: its private error for the run */
    ExecWorker *workers;    /* nstreams - 1 of them (stream s at s - 1) */
    int nworkers;           /* how many were started */
};

/* ---- events ---- */

/* One poll's back-off: a pause instruction, and every EXEC_YIELD_EVERY
 * polls a yield, so that on a machine with fewer cores than streams a
 * poller hands its core to the thread it waits for. */
static void exec__relax(int poll)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (poll % EXEC_YIELD_EVERY == EXEC_YIELD_EVERY - 1)
        sched_yield();
}

/* Whether a wait for e in run g may return (recorded or aborted). */
static int exec__ready(TngrtExec *self, int e, uint64_t g)
{
    return atomic_load(&self->events[e]) == g || atomic_load(&self->abort_gen) == g;
}

/* Wakes every sleeping waiter; called after the condition they sleep on
 * became true (a record or an abort). */
static void exec__wake(TngrtExec *self)
{
    if (atomic_load(&self->sleepers) == 0)
        return;
    pthread_mutex_lock(&self->ev_mu);
    pthread_cond_broadcast(&self->ev_cv);
    pthread_mutex_unlock(&self->ev_mu);
}

/* Polls, then sleeps until exec__ready. */
static void exec__block(TngrtExec *self, int e, uint64_t g)
{
    int i;
    for (i = 0; i < EXEC_SPIN_POLLS; i++) {
        if (atomic_load_explicit(&self->events[e], memory_order_acquire) == g
            || atomic_load_explicit(&self->abort_gen, memory_order_acquire) == g)
            return;
        exec__relax(i);
    }
    atomic_fetch_add(&self->sleepers, 1);
    pthread_mutex_lock(&self->ev_mu);
    while (!exec__ready(self, e, g))
        pthread_cond_wait(&self->ev_cv, &self->ev_mu);
    pthread_mutex_unlock(&self->ev_mu);
    atomic_fetch_sub(&self->sleepers, 1);
}

/* The trace's side of a wait that returned at t1 after starting at t0. */
static void exec__trace_wait(TngrtExec *self, int stream, int e, uint64_t t0, uint64_t t1)
{
    const char *name = self->wait_names ? self->wait_names[e] : "wait";
    tngrt_trace_slice(self->trace, stream, name, t0, t1);
    tngrt_trace_flow(self->trace, e, atomic_load_explicit(&self->rec_stream[e], memory_order_relaxed),
                     atomic_load_explicit(&self->rec_time[e], memory_order_relaxed),
                     stream, t1);
}

void tngrt_exec_record(TngrtExec *self, int stream, int e)
{
    if (e < 0 || e >= self->nevents)
        return;
    if (self->trace) {
        atomic_store_explicit(&self->rec_time[e], tngrt_trace_now(), memory_order_relaxed);
        atomic_store_explicit(&self->rec_stream[e], stream, memory_order_relaxed);
    }
    atomic_store(&self->events[e], atomic_load_explicit(&self->gen, memory_order_relaxed));
    exec__wake(self);
}

int tngrt_exec_wait(TngrtExec *self, int stream, int e)
{
    uint64_t g = atomic_load_explicit(&self->gen, memory_order_relaxed), t0 = 0;
    if (e < 0 || e >= self->nevents)
        return -1;
    if (self->trace)
        t0 = tngrt_trace_now();
    exec__block(self, e, g);
    if (atomic_load_explicit(&self->events[e], memory_order_acquire) != g)
        return -1;   /* not recorded, so the run was aborted */
    if (self->trace)
        exec__trace_wait(self, stream, e, t0, tngrt_trace_now());
    return 0;
}

/* ---- running streams ---- */

/* Runs stream s of the current run; the first failure aborts the run. */
static void exec__run_stream(TngrtExec *self, int s, uint64_t g)
{
    TngrtError *err = &self->errs[s];
    uint_fast64_t prev;
    err->msg[0] = '\0';
    err->kind = TNGRT_ERR_FAILURE;
    if (self->fns[s](self->arg, self, s, err) == 0)
        return;
    prev = atomic_load(&self->abort_gen);
    if (prev != g && atomic_compare_exchange_strong(&self->abort_gen, &prev, g)) {
        self->first_fail = s;   /* read by the caller after the run's join */
        exec__wake(self);
    }
}

/* Whether a worker that last ran generation seen has something to do. */
static int exec__called(TngrtExec *self, uint64_t seen)
{
    return atomic_load_explicit(&self->gen, memory_order_acquire) != seen
           || atomic_load_explicit(&self->stop, memory_order_acquire);
}

/* Polls, then sleeps until the next run (or stop) after generation seen. */
static void exec__park(TngrtExec *self, uint64_t seen)
{
    int i;
    for (i = 0; i < EXEC_SPIN_POLLS; i++) {
        if (exec__called(self, seen))
            return;
        exec__relax(i);
    }
    pthread_mutex_lock(&self->mu);
    self->parked++;
    while (!exec__called(self, seen))
        pthread_cond_wait(&self->start_cv, &self->mu);
    self->parked--;
    pthread_mutex_unlock(&self->mu);
}

static void *exec__worker(void *p)
{
    ExecWorker *w = p;
    TngrtExec *self = w->exec;
    uint64_t seen = 0;
    for (;;) {
        exec__park(self, seen);
        if (atomic_load_explicit(&self->stop, memory_order_acquire))
            return NULL;
        seen = atomic_load_explicit(&self->gen, memory_order_acquire);
        exec__run_stream(self, w->stream, seen);
        if (atomic_fetch_sub(&self->pending, 1) == 1) {
            pthread_mutex_lock(&self->mu);   /* the caller may be asleep */
            pthread_cond_signal(&self->done_cv);
            pthread_mutex_unlock(&self->mu);
        }
    }
}

/* Starts generation g on the workers. */
static void exec__start(TngrtExec *self, uint64_t g)
{
    atomic_store_explicit(&self->pending, self->nstreams - 1, memory_order_relaxed);
    atomic_store_explicit(&self->gen, g, memory_order_release);
    pthread_mutex_lock(&self->mu);
    if (self->parked > 0)
        pthread_cond_broadcast(&self->start_cv);
    pthread_mutex_unlock(&self->mu);
}

/* Polls, then sleeps until every worker has finished the run. */
static void exec__join(TngrtExec *self)
{
    int i;
    for (i = 0; i < EXEC_SPIN_POLLS; i++) {
        if (atomic_load_explicit(&self->pending, memory_order_acquire) == 0)
            return;
        exec__relax(i);
    }
    pthread_mutex_lock(&self->mu);
    while (atomic_load_explicit(&self->pending, memory_order_acquire) > 0)
        pthread_cond_wait(&self->done_cv, &self->mu);
    pthread_mutex_unlock(&self->mu);
}

int tngrt_exec_run(TngrtExec *self, const TngrtStreamFn *fns, void *arg, TngrtError *err)
{
    uint64_t g = atomic_load_explicit(&self->gen, memory_order_relaxed) + 1;
    int s;
    self->fns = fns;
    self->arg = arg;
    self->first_fail = -1;
    if (self->nstreams > 1)
        exec__start(self, g);
    else
        atomic_store_explicit(&self->gen, g, memory_order_relaxed);
    exec__run_stream(self, 0, g);
    exec__join(self);
    s = self->first_fail;
    if (s < 0)
        return 0;
    if (self->errs[s].msg[0])
        tngrt__fail(err, NULL, "%s", self->errs[s].msg);
    else
        tngrt__fail(err, NULL, "stream %d failed", s);
    if (err)
        err->kind = self->errs[s].kind;
    return -1;
}

/* ---- life cycle ---- */

/* Stops and joins the started workers. */
static void exec__stop(TngrtExec *self)
{
    int i;
    atomic_store(&self->stop, 1);
    pthread_mutex_lock(&self->mu);
    pthread_cond_broadcast(&self->start_cv);
    pthread_mutex_unlock(&self->mu);
    for (i = 0; i < self->nworkers; i++)
        pthread_join(self->workers[i].thread, NULL);
    self->nworkers = 0;
}

/* Frees self's memory and synchronisation objects (no thread running). */
static void exec__free(TngrtExec *self)
{
    pthread_cond_destroy(&self->ev_cv);
    pthread_mutex_destroy(&self->ev_mu);
    pthread_cond_destroy(&self->done_cv);
    pthread_cond_destroy(&self->start_cv);
    pthread_mutex_destroy(&self->mu);
    free(self->events);
    free(self->rec_time);
    free(self->rec_stream);
    free(self->wait_names);
    free(self->errs);
    free(self->workers);
    free(self);
}

/* Allocates self and its arrays and initialises every object; NULL when
 * memory runs out. */
static TngrtExec *exec__alloc(int nstreams, int nevents)
{
    size_t ne = nevents ? (size_t)nevents : 1;
    TngrtExec *self = calloc(1, sizeof *self);
    int i;
    if (!self)
        return NULL;
    self->nstreams = nstreams;
    self->nevents = nevents;
    pthread_mutex_init(&self->mu, NULL);
    pthread_cond_init(&self->start_cv, NULL);
    pthread_cond_init(&self->done_cv, NULL);
    pthread_mutex_init(&self->ev_mu, NULL);
    pthread_cond_init(&self->ev_cv, NULL);
    atomic_init(&self->gen, 0);
    atomic_init(&self->pending, 0);
    atomic_init(&self->stop, 0);
    atomic_init(&self->abort_gen, 0);
    atomic_init(&self->sleepers, 0);
    self->events = malloc(ne * sizeof *self->events);
    self->rec_time = malloc(ne * sizeof *self->rec_time);
    self->rec_stream = malloc(ne * sizeof *self->rec_stream);
    self->errs = calloc((size_t)nstreams, sizeof *self->errs);
    self->workers = calloc((size_t)nstreams, sizeof *self->workers);
    if (!self->events || !self->rec_time || !self->rec_stream || !self->errs || !self->workers) {
        exec__free(self);
        return NULL;
    }
    for (i = 0; i < nevents; i++) {
        atomic_init(&self->events[i], 0);
        atomic_init(&self->rec_time[i], 0);
        atomic_init(&self->rec_stream[i], 0);
    }
    return self;
}

int tngrt_exec_new(TngrtExec **out, int nstreams, int nevents, TngrtError *err)
{
    TngrtExec *self;
    int s, rc;
    *out = NULL;
    if (nstreams < 1 || nstreams > EXEC_MAX_STREAMS) {
        tngrt__fail(err, NULL, "executor: %d streams (must be 1 .. %d)", nstreams, EXEC_MAX_STREAMS);
        return -1;
    }
    if (nevents < 0 || nevents > EXEC_MAX_EVENTS) {
        tngrt__fail(err, NULL, "executor: %d events (must be 0 .. %d)", nevents, EXEC_MAX_EVENTS);
        return -1;
    }
    self = exec__alloc(nstreams, nevents);
    if (!self) {
        tngrt__fail(err, NULL, "executor: out of memory for %d streams and %d events", nstreams, nevents);
        return -1;
    }
    for (s = 1; s < nstreams; s++) {
        ExecWorker *w = &self->workers[s - 1];
        w->exec = self;
        w->stream = s;
        rc = pthread_create(&w->thread, NULL, exec__worker, w);
        if (rc != 0) {
            exec__stop(self);
            exec__free(self);
            tngrt__fail(err, NULL, "executor: cannot start the thread of stream %d (error %d)", s, rc);
            return -1;
        }
        self->nworkers++;
    }
    *out = self;
    return 0;
}

void tngrt_exec_delete(TngrtExec *self)
{
    if (!self)
        return;
    exec__stop(self);
    exec__free(self);
}

/* ---- tracing ---- */

/* Writes "wait e<e>" into out (EXEC_NAME_LEN bytes; e < EXEC_MAX_EVENTS). */
static void exec__name(char *out, int e)
{
    char digits[8];
    int n = 0;
    memcpy(out, "wait e", 6);
    do {
        digits[n++] = (char)('0' + e % 10);
        e /= 10;
    } while (e > 0);
    out += 6;
    while (n > 0)
        *out++ = digits[--n];
    *out = '\0';
}

/* Builds the "wait eN" table once; without memory, waits are named "wait". */
static void exec__build_names(TngrtExec *self)
{
    int e;
    if (self->wait_names || self->nevents == 0)
        return;
    self->wait_names = malloc((size_t)self->nevents * sizeof *self->wait_names);
    if (!self->wait_names)
        return;
    for (e = 0; e < self->nevents; e++)
        exec__name(self->wait_names[e], e);
}

void tngrt_exec_set_trace(TngrtExec *self, TngrtTrace *trace)
{
    if (trace)
        exec__build_names(self);
    self->trace = trace;
}

TngrtTrace *tngrt_exec_trace(const TngrtExec *self)
{
    return self->trace;
}
