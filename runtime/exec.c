/*
 * exec.c - the stream executor of libtngcrt (tngrt_exec.h).
 *
 * Threads. Stream 0 runs on the caller of tngrt_exec_run; streams 1..n-1
 * have one persistent worker each. A run publishes its functions, bumps the
 * atomic generation `gen`, sets `pending` to the number of workers it calls
 * and stores the generation in each called worker's `go`. A stream whose
 * function is NULL has no work in the run (the generated code passes NULL
 * for a stream the plan left empty): its worker is not called, so the run
 * makes no start/join handshake with it, and a run with no called worker
 * makes none at all. A worker polls its `go` briefly after each run and
 * then parks on `start_cv` (counted in `parked`, so the caller broadcasts
 * only when someone sleeps). Each called worker runs its stream and
 * decrements `pending`; the one that reaches 0 signals `done_cv`, on which
 * the caller sleeps after its own brief polling.
 *
 * Polling. Every poll loop spins on a pause instruction (a yield where the
 * CPU has none) for at most the current budget `spin_cur` (the clock is
 * read every EXEC_CLOCK_EVERY polls), then sleeps on a condition variable.
 * It never calls sched_yield while spinning: a poller either holds its core
 * briefly or sleeps, so with more streams than cores the thread it waits
 * for gets the core once it sleeps. The budget adapts between
 * EXEC_SPIN_MIN_NS and `spin_ns` (tngrt__spin_ns, poll.c: 50 us, or
 * TNGRT_SPIN_US from the environment): a spin for an event or for the join that ran out halves
 * it, one that saw its condition come true grows it by a quarter (a worker
 * waiting for the next run spins for the budget but does not change it). On an idle machine hand-offs
 * complete within the spin and it stays at spin_ns; on an overloaded one
 * the thread waited for is often not running at all, spins run out, and
 * pollers soon go to sleep at once instead of holding a core the other
 * thread needs (measured: a 2-stream bundle at load 11 on 2 cores took a
 * p50 of 117 us per run with a fixed 50 us spin, 17 us with none).
 *
 * Helping. Every called stream is claimed once per run (a compare-and-
 * swap of its `claim` to the run's generation) by the thread that runs it,
 * so a stream whose worker is not running yet can be run by another thread
 * instead, and a multi-stream run costs about what the one-stream run does
 * when the machine has no idle core for the workers (on 2 shared cores a
 * worker often gets no core for a whole run; waiting for it made such runs
 * slower than one stream). Two places help, on the thread that is there:
 * - the join: the caller, done with stream 0, runs every called stream not
 *   claimed yet. Safe for any stream: stream 0 has recorded all its events,
 *   and every other stream still has its own worker, so a helped stream
 *   that waits is waiting for a stream some thread will run.
 * - a wait for an event that is not recorded: the waiter runs the stream
 *   that recorded that event in an earlier run, if it is called in this
 *   run, unclaimed, and its function is known to wait for nothing (it made
 *   no wait in the last successful run that called it; generated stream
 *   functions wait unconditionally, so a successful run shows all their
 *   waits). Such a stream runs to its end without blocking, so running it
 *   inside the waiter's stream cannot deadlock.
 * A worker that finds its stream claimed goes back to polling. When the
 * process could run on one CPU only when the executor was created (solo),
 * a run wakes no worker at its start: the caller runs the streams at its
 * waits (those known to wait for nothing) and at its join (any), in order,
 * as one stream would, without the context switches and cache thrashing
 * of threads taking turns on one core; the first thread about to sleep in
 * a wait or the join wakes the workers (once per run), so a stream that
 * waits for another still gets a thread. Helping is
 * off with TNGRT_HELP=0 and with pinned workers (the user asked for every
 * stream on its own CPU).
 *
 * The pool's guests. A bundle attaches its pool of large products
 * (par.c) with tngrt__exec_set_pool: the workers then run the pool's
 * tasks while they wait, for an event (exec__block) or for the next run
 * (exec__park), and the pool starts that many fewer threads of its own
 * (par.c, Guests). A worker checks for a job at each poll and before it
 * sleeps; a published job pokes the executor (exec__poke), which wakes the
 * workers asleep on either condition variable. After running tasks a
 * worker polls for the pool's spin budget (its next job usually follows
 * within microseconds) before it goes back to its own wait; the adaptive
 * budget is for waits on other streams and is left as it is. Only
 * workers are guests: the caller's thread is the one that publishes the
 * jobs.
 *
 * Pinning. Workers are not pinned unless TNGRT_PIN_THREADS=1 is in the
 * environment when the executor is created: then the worker of stream s
 * runs on the s-th CPU (modulo their count) of the process's affinity set,
 * the first one being left to the caller's thread (Linux only; a failure
 * to pin is not an error).
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
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE     /* CPU_SET, pthread_setaffinity_np (pinning on request) */
#endif
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
/* How many polls go between two reads of the clock. */
#define EXEC_CLOCK_EVERY 64
/* The least budget the adaptation goes down to (ns): enough for a spin to
 * see a quick hand-off now and then, and so grow again. */
#define EXEC_SPIN_MIN_NS 1000
/* Bytes of one "wait eN" name ("wait e1048575" and its NUL fit). */
#define EXEC_NAME_LEN 16

/* One worker thread: the stream it runs, and the generation of the last
 * run that called it. */
typedef struct ExecWorker {
    TngrtExec *exec;
    int stream;
    pthread_t thread;
    atomic_uint_fast64_t go;
} ExecWorker;

/* The functions a stream ran in earlier successful runs that made no wait
 * (EXEC_KNOWN of them, most recent first: a bundle has one per gear). */
#define EXEC_KNOWN 4
typedef struct ExecKnown {
    TngrtStreamFn fn[EXEC_KNOWN];
    unsigned char indep[EXEC_KNOWN];
} ExecKnown;

struct TngrtExec {
    int nstreams, nevents;

    /* The run handshake. */
    atomic_uint_fast64_t gen;   /* generation of the current run (1, 2, ...) */
    atomic_int pending;         /* called workers still running the current run */
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

    /* Helping (see "Helping" above). */
    int help;                       /* 0: TNGRT_HELP=0 or pinned workers: no helping */
    int solo;                       /* helping, and the process had one CPU at create */
    atomic_int lazy;                /* solo: this run has not woken its workers yet */
    atomic_uint_fast64_t *claim;    /* per stream: generation of the last run it was claimed in */
    int *nwaits;                    /* per stream: waits it made in the current run */
    ExecKnown *known;               /* per stream: functions seen to wait for nothing */
    atomic_int *cpu;                /* per stream: CPU its runner was on at its start, or -1 */

    TngrtError *errs;       /* per stream: its private error for the run */
    ExecWorker *workers;    /* nstreams - 1 of them (stream s at s - 1) */
    int nworkers;           /* how many were started */
    uint64_t spin_ns;       /* the most a poller spins before it sleeps (0: never spins) */
    atomic_uint_fast64_t spin_cur;  /* the current, adaptive budget (see Polling) */
    _Atomic(TngrtPar *) pool;   /* the pool whose tasks the workers run while they wait, or NULL
                                 * (set once, while the workers poll) */
};

/* Set on the executor's workers: they are guests of its pool. */
static _Thread_local int exec__is_guest;

/* ---- events ---- */

/* Called after poll `poll` (0, 1, ...) of a loop found nothing: pauses
 * and returns 1 while the loop may keep spinning, 0 once it has spun for
 * the current budget (*end: the deadline, set at the first clock read) and
 * must sleep; running out halves the budget when adapt (not for a worker
 * waiting for the next run: that gap is the caller's, not a sign of load). */
static int exec__spin(TngrtExec *self, unsigned poll, uint64_t *end, int adapt)
{
    if (self->spin_ns == 0)
        return 0;
    if (poll % EXEC_CLOCK_EVERY == 0) {
        uint64_t t = tngrt_trace_now();
        if (poll == 0) {
            *end = t + atomic_load_explicit(&self->spin_cur, memory_order_relaxed);
        } else if (t >= *end) {
            if (!adapt)
                return 0;
            uint64_t cur = atomic_load_explicit(&self->spin_cur, memory_order_relaxed) / 2;
            uint64_t min = self->spin_ns < EXEC_SPIN_MIN_NS ? self->spin_ns : EXEC_SPIN_MIN_NS;
            atomic_store_explicit(&self->spin_cur, cur < min ? min : cur, memory_order_relaxed);
            return 0;
        }
    }
    tngrt__pause();
    return 1;
}

/* Called when a loop's condition came true after poll `poll`: a spin that
 * paid off (poll > 0) grows the budget by a quarter, up to spin_ns. */
static void exec__spun(TngrtExec *self, unsigned poll)
{
    uint64_t cur;
    if (poll == 0)
        return;
    cur = atomic_load_explicit(&self->spin_cur, memory_order_relaxed);
    if (cur < self->spin_ns) {
        cur += cur / 4 + 1;
        atomic_store_explicit(&self->spin_cur, cur > self->spin_ns ? self->spin_ns : cur,
                              memory_order_relaxed);
    }
}

/* The CPU the calling thread runs on, or -1 where that is unknown. */
static int exec__cpu(void)
{
#if defined(__linux__)
    return sched_getcpu();
#else
    return -1;
#endif
}

/* Whether the thread that runs (or last ran) stream s was on the calling
 * thread's CPU when it started: then spinning for it would only keep it
 * off that CPU (two threads on one core, as under taskset or when the
 * scheduler put them there), and a poller sleeps at once instead. */
static int exec__same_cpu(const TngrtExec *self, int s)
{
    int c;
    if (s < 0 || s >= self->nstreams)
        return 0;
    c = atomic_load_explicit(&self->cpu[s], memory_order_relaxed);
    return c >= 0 && c == exec__cpu();
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

static void exec__unlazy(TngrtExec *self, uint64_t g);

/* Whether the calling thread, a guest of the pool, has its tasks to run. */
static int exec__pool_work(const TngrtExec *self)
{
    return exec__is_guest && tngrt__par_has_work(atomic_load_explicit(&self->pool, memory_order_acquire));
}

/* A guest runs the pool's tasks while `done(self, a, b)` is false: the
 * current job's, then each next one's that is published within the spin
 * budget (exec__spin's, not adapted) of the last. Returns 1 if it ran
 * any; the caller's wait has then spent its spin and goes to sleep. */
static int exec__guest_run(TngrtExec *self, int (*done)(TngrtExec *, uint64_t, uint64_t),
                           uint64_t a, uint64_t b)
{
    uint64_t end = 0;
    unsigned poll = 0;
    int ran = 0;
    TngrtPar *pool = exec__is_guest ? atomic_load_explicit(&self->pool, memory_order_acquire) : NULL;
    if (!pool)
        return 0;
    while (!done(self, a, b)) {
        if (tngrt__par_help(pool)) {
            ran = 1;
            poll = 0;
            continue;
        }
        if (!ran || !exec__spin(self, poll++, &end, 0))
            break;
    }
    return ran;
}

/* exec__guest_run's condition for a wait for event a in run b. */
static int exec__ready_cb(TngrtExec *self, uint64_t e, uint64_t g)
{
    return exec__ready(self, (int)e, g);
}

/* Polls, then sleeps until exec__ready; a guest runs the pool's tasks
 * meanwhile. */
static void exec__block(TngrtExec *self, int e, uint64_t g)
{
    uint64_t end = 0;
    int spin = !exec__same_cpu(self, atomic_load_explicit(&self->rec_stream[e], memory_order_relaxed));
    for (;;) {
        for (unsigned i = 0;; i++) {
            if (atomic_load_explicit(&self->events[e], memory_order_acquire) == g
                || atomic_load_explicit(&self->abort_gen, memory_order_acquire) == g) {
                exec__spun(self, i);
                return;
            }
            if (exec__guest_run(self, exec__ready_cb, (uint64_t)e, g)) {
                spin = 0;   /* its spin after the tasks was the budget */
                continue;
            }
            if (!spin || !exec__spin(self, i, &end, 1))
                break;
        }
        exec__unlazy(self, g);
        atomic_fetch_add(&self->sleepers, 1);
        pthread_mutex_lock(&self->ev_mu);
        while (!exec__ready(self, e, g) && !exec__pool_work(self))
            pthread_cond_wait(&self->ev_cv, &self->ev_mu);
        pthread_mutex_unlock(&self->ev_mu);
        atomic_fetch_sub(&self->sleepers, 1);
        if (exec__ready(self, e, g))
            return;
        spin = 0;   /* woken for the pool's job: run it, then sleep again at once */
    }
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
    if (self->trace)
        atomic_store_explicit(&self->rec_time[e], tngrt_trace_now(), memory_order_relaxed);
    /* always: a waiter of a later run helps the stream that recorded e */
    atomic_store_explicit(&self->rec_stream[e], stream, memory_order_relaxed);
    atomic_store(&self->events[e], atomic_load_explicit(&self->gen, memory_order_relaxed));
    exec__wake(self);
}

static void exec__help(TngrtExec *self, int stream, int e, uint64_t g);

int tngrt_exec_wait(TngrtExec *self, int stream, int e)
{
    uint64_t g = atomic_load_explicit(&self->gen, memory_order_relaxed), t0 = 0;
    if (stream >= 0 && stream < self->nstreams)
        self->nwaits[stream]++;     /* only the thread running stream writes it */
    if (e < 0 || e >= self->nevents)
        return -1;
    if (self->help && !exec__ready(self, e, g))
        exec__help(self, stream, e, g);
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
    self->nwaits[s] = 0;
    atomic_store_explicit(&self->cpu[s], exec__cpu(), memory_order_relaxed);
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

/* ---- helping ---- */

/* Claims stream s for run g: 1 when the caller is the first to claim it in
 * g (and must run it), 0 when another thread did, or a later run has begun
 * (a worker that read an old `go`). */
static int exec__claim(TngrtExec *self, int s, uint64_t g)
{
    uint_fast64_t cur = atomic_load_explicit(&self->claim[s], memory_order_relaxed);
    while (cur < g)
        if (atomic_compare_exchange_weak(&self->claim[s], &cur, g))
            return 1;
    return 0;
}

/* A called stream of the current run has finished; the last one wakes the
 * caller when `wake` (a worker: the caller may be asleep in the join). */
static void exec__finish(TngrtExec *self, int wake)
{
    if (atomic_fetch_sub(&self->pending, 1) == 1 && wake) {
        pthread_mutex_lock(&self->mu);
        pthread_cond_signal(&self->done_cv);
        pthread_mutex_unlock(&self->mu);
    }
}

/* Whether stream s's function fn made no wait in the last successful run
 * that called it (0 when unknown). */
static int exec__indep(const TngrtExec *self, int s, TngrtStreamFn fn)
{
    const ExecKnown *k = &self->known[s];
    for (int i = 0; i < EXEC_KNOWN; i++)
        if (k->fn[i] == fn)
            return k->indep[i];
    return 0;
}

/* Remembers, after a successful run, whether stream s's function fn waited
 * (most recent first; the least recent of EXEC_KNOWN is forgotten). */
static void exec__learn(TngrtExec *self, int s, TngrtStreamFn fn, int indep)
{
    ExecKnown *k = &self->known[s];
    int i = 0;
    while (i < EXEC_KNOWN - 1 && k->fn[i] != fn)
        i++;
    for (; i > 0; i--) {
        k->fn[i] = k->fn[i - 1];
        k->indep[i] = k->indep[i - 1];
    }
    k->fn[0] = fn;
    k->indep[0] = (unsigned char)(indep != 0);
}

/* Runs stream r of run g inline when this run calls it, its function is
 * known to wait for nothing, and no thread has claimed it; 1 if it ran. */
static int exec__help_one(TngrtExec *self, int r, uint64_t g)
{
    TngrtStreamFn fn = self->fns[r];
    if (!fn || !exec__indep(self, r, fn) || !exec__claim(self, r, g))
        return 0;
    exec__run_stream(self, r, g);
    exec__finish(self, 1);
    return 1;
}

/* Called by `stream`, about to wait for e in run g, which is not recorded:
 * runs inline the stream that recorded e in an earlier run if it waits for
 * nothing and no thread has claimed it (its worker is not running: on a
 * loaded machine, or still waking up). Solo, every such stream: their
 * workers were not woken, and the recorder of e may differ from the
 * earlier run's (another gear), so the waiter runs them all before it
 * blocks. */
static void exec__help(TngrtExec *self, int stream, int e, uint64_t g)
{
    int r = atomic_load_explicit(&self->rec_stream[e], memory_order_relaxed);
    if (r > 0 && r < self->nstreams && r != stream && exec__help_one(self, r, g)
        && exec__ready(self, e, g))
        return;
    if (self->solo)
        for (r = 1; r < self->nstreams && !exec__ready(self, e, g); r++)
            if (r != stream)
                exec__help_one(self, r, g);
}

/* Whether worker w, which last ran generation seen, has something to do. */
static int exec__called(TngrtExec *self, ExecWorker *w, uint64_t seen)
{
    return atomic_load_explicit(&w->go, memory_order_acquire) != seen
           || atomic_load_explicit(&self->stop, memory_order_acquire);
}

/* exec__guest_run's condition for worker a (an ExecWorker *) that last
 * ran generation b. */
static int exec__called_cb(TngrtExec *self, uint64_t w, uint64_t seen)
{
    return exec__called(self, (ExecWorker *)(uintptr_t)w, seen);
}

/* Polls, then sleeps until a run calls w (or stop) after generation seen;
 * runs the pool's tasks meanwhile. */
static void exec__park(TngrtExec *self, ExecWorker *w, uint64_t seen)
{
    uint64_t end = 0;
    int spin = !exec__same_cpu(self, 0);
    for (;;) {
        for (unsigned i = 0;; i++) {
            if (exec__called(self, w, seen))
                return;
            if (exec__guest_run(self, exec__called_cb, (uint64_t)(uintptr_t)w, seen)) {
                spin = 0;   /* its spin after the tasks was the budget */
                continue;
            }
            if (!spin || !exec__spin(self, i, &end, 0))
                break;
        }
        pthread_mutex_lock(&self->mu);
        self->parked++;
        while (!exec__called(self, w, seen) && !exec__pool_work(self))
            pthread_cond_wait(&self->start_cv, &self->mu);
        self->parked--;
        pthread_mutex_unlock(&self->mu);
        if (exec__called(self, w, seen))
            return;
        spin = 0;
    }
}

/* The pool's poke (tngrt__par_set_guests): a job was published; wakes the
 * workers asleep in a wait or between runs, which then run its tasks. */
static void exec__poke(void *ctx)
{
    TngrtExec *self = ctx;
    if (atomic_load(&self->sleepers) > 0) {
        pthread_mutex_lock(&self->ev_mu);
        pthread_cond_broadcast(&self->ev_cv);
        pthread_mutex_unlock(&self->ev_mu);
    }
    pthread_mutex_lock(&self->mu);
    if (self->parked > 0)
        pthread_cond_broadcast(&self->start_cv);
    pthread_mutex_unlock(&self->mu);
}

void tngrt__exec_set_pool(TngrtExec *self, TngrtPar *p)
{
    if (!self || !p || self->nworkers == 0)
        return;
    tngrt__par_set_guests(p, self->nworkers, exec__poke, self);
    atomic_store_explicit(&self->pool, p, memory_order_release);
}

static void *exec__worker(void *p)
{
    ExecWorker *w = p;
    TngrtExec *self = w->exec;
    uint64_t seen = 0;
    exec__is_guest = 1;
    for (;;) {
        exec__park(self, w, seen);
        if (atomic_load_explicit(&self->stop, memory_order_acquire))
            return NULL;
        seen = atomic_load_explicit(&w->go, memory_order_acquire);
        if (exec__claim(self, w->stream, seen)) {   /* else a helper ran it */
            exec__run_stream(self, w->stream, seen);
            exec__finish(self, 1);
        }
    }
}

/* Calls the worker of every stream run g calls, waking those asleep. */
static void exec__wake_workers(TngrtExec *self, uint64_t g)
{
    for (int s = 1; s < self->nstreams; s++)
        if (self->fns[s])
            atomic_store_explicit(&self->workers[s - 1].go, g, memory_order_release);
    pthread_mutex_lock(&self->mu);
    if (self->parked > 0)
        pthread_cond_broadcast(&self->start_cv);
    pthread_mutex_unlock(&self->mu);
}

/* Solo, a thread is about to sleep: the workers of run g, not woken at its
 * start, are woken now (once), so that a stream no helper can run gets a
 * thread. */
static void exec__unlazy(TngrtExec *self, uint64_t g)
{
    if (atomic_load_explicit(&self->lazy, memory_order_relaxed) && atomic_exchange(&self->lazy, 0))
        exec__wake_workers(self, g);
}

/* Starts generation g: publishes it (for events) and calls the workers
 * whose stream has a function; returns how many were called (0: no
 * handshake at all). */
static int exec__start(TngrtExec *self, uint64_t g)
{
    int s, called = 0;
    for (s = 1; s < self->nstreams; s++)
        called += self->fns[s] != NULL;
    atomic_store_explicit(&self->pending, called, memory_order_relaxed);
    atomic_store_explicit(&self->lazy, self->solo && called > 0, memory_order_relaxed);
    atomic_store_explicit(&self->gen, g, memory_order_release);
    if (called == 0 || self->solo)
        return called;
    exec__wake_workers(self, g);
    return called;
}

/* Runs on the caller's thread every called stream no worker has claimed
 * yet (see Helping), then polls and sleeps until every called stream has
 * finished the run. */
static void exec__join(TngrtExec *self, uint64_t g)
{
    uint64_t end = 0;
    int s, spin = 1;
    if (self->help)
        for (s = 1; s < self->nstreams; s++)
            if (self->fns[s] && exec__claim(self, s, g)) {
                exec__run_stream(self, s, g);
                exec__finish(self, 0);
            }
    for (s = 1; s < self->nstreams && spin; s++)
        if (self->fns[s] && exec__same_cpu(self, s))
            spin = 0;
    for (unsigned i = 0;; i++) {
        if (atomic_load_explicit(&self->pending, memory_order_acquire) == 0) {
            exec__spun(self, i);
            return;
        }
        if (!spin || !exec__spin(self, i, &end, 1))
            break;
    }
    exec__unlazy(self, g);
    pthread_mutex_lock(&self->mu);
    while (atomic_load_explicit(&self->pending, memory_order_acquire) > 0)
        pthread_cond_wait(&self->done_cv, &self->mu);
    pthread_mutex_unlock(&self->mu);
}

int tngrt_exec_run(TngrtExec *self, const TngrtStreamFn *fns, void *arg, TngrtError *err)
{
    uint64_t g = atomic_load_explicit(&self->gen, memory_order_relaxed) + 1;
    int s, called;
    self->fns = fns;
    self->arg = arg;
    self->first_fail = -1;
    called = exec__start(self, g);
    if (fns[0])
        exec__run_stream(self, 0, g);
    if (called)
        exec__join(self, g);
    s = self->first_fail;
    if (s < 0) {
        for (s = 1; s < self->nstreams; s++)
            if (fns[s])
                exec__learn(self, s, fns[s], self->nwaits[s] == 0);
        return 0;
    }
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
    free(self->claim);
    free(self->nwaits);
    free(self->known);
    free(self->cpu);
    free(self);
}

/* With TNGRT_PIN_THREADS=1: pins w to the (w->stream)-th CPU of the
 * process's affinity set (modulo its size); otherwise, or off Linux, does
 * nothing. Pinning is a hint: a failure leaves the thread unpinned. */
static void exec__pin(ExecWorker *w)
{
#if defined(__linux__)
    const char *v = getenv("TNGRT_PIN_THREADS");
    cpu_set_t all, one;
    int n, k, cpu;
    if (!v || strcmp(v, "1") != 0)
        return;
    if (sched_getaffinity(0, sizeof all, &all) != 0 || (n = CPU_COUNT(&all)) == 0)
        return;
    k = w->stream % n;
    for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &all) && k-- == 0)
            break;
    if (cpu == CPU_SETSIZE)
        return;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    (void)pthread_setaffinity_np(w->thread, sizeof one, &one);
#else
    (void)w;
#endif
}

/* Whether threads help (see Helping): not with TNGRT_HELP=0, nor when
 * TNGRT_PIN_THREADS=1 asks for every stream on its own CPU. */
static int exec__help_on(void)
{
    const char *h = getenv("TNGRT_HELP"), *p = getenv("TNGRT_PIN_THREADS");
    if (h && strcmp(h, "0") == 0)
        return 0;
    return !(p && strcmp(p, "1") == 0);
}

/* Whether the process may run on one CPU only (its affinity set, as under
 * taskset -c N): then a worker can only take turns with the caller. */
static int exec__one_cpu(void)
{
    return tngrt__cpu_count() == 1;
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
    atomic_init(&self->lazy, 0);
    atomic_init(&self->pool, NULL);
    self->spin_ns = tngrt__spin_ns();
    atomic_init(&self->spin_cur, self->spin_ns);
    self->events = malloc(ne * sizeof *self->events);
    self->rec_time = malloc(ne * sizeof *self->rec_time);
    self->rec_stream = malloc(ne * sizeof *self->rec_stream);
    self->errs = calloc((size_t)nstreams, sizeof *self->errs);
    self->workers = calloc((size_t)nstreams, sizeof *self->workers);
    self->claim = malloc((size_t)nstreams * sizeof *self->claim);
    self->nwaits = calloc((size_t)nstreams, sizeof *self->nwaits);
    self->known = calloc((size_t)nstreams, sizeof *self->known);
    self->cpu = malloc((size_t)nstreams * sizeof *self->cpu);
    self->help = exec__help_on();
    self->solo = self->help && exec__one_cpu();
    if (!self->events || !self->rec_time || !self->rec_stream || !self->errs || !self->workers
        || !self->claim || !self->nwaits || !self->known || !self->cpu) {
        exec__free(self);
        return NULL;
    }
    for (i = 0; i < nstreams; i++) {
        atomic_init(&self->workers[i].go, 0);
        atomic_init(&self->claim[i], 0);
        atomic_init(&self->cpu[i], -1);
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
        exec__pin(w);
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
