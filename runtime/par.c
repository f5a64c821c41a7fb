/*
 * par.c - the fork-join pool of libtngcrt's large products (internal.h).
 *
 * Why: a bundle's matmuls run libtngcrt's own GEMM (kernels_gemm.c), one
 * core's worth at the FMA peak. A product large enough to pay for a
 * hand-off (tngrt_gemm_f32_epi decides) is split into tasks of whole
 * column panels that the calling thread and the pool's workers claim, so a
 * bundle's stream 0 uses the cores as OpenBLAS did. Each output element is
 * computed by the same code in the same order whichever thread claims its
 * task, so the result has the same bits with any number of threads.
 *
 * Who owns it: a bundle (tngrt_bundle_new) creates one when more than one
 * thread is allowed (TNGRT_THREADS, else the CPUs of the process's
 * affinity set). tngrt_bundle_run makes it the calling thread's current
 * pool for the run (tngrt__par_enter, a thread-local pointer: the kernels
 * take no context argument): the thread that runs stream 0 (and any
 * stream it helps with); the workers of a bundle's other streams have no
 * current pool. The GEMM asks tngrt__par_current. Nothing else in the
 * process sees it.
 *
 * Decode's GEMVs (a few rows over a weight: bound by reading it) split
 * only where it is timed to pay (tngrt__par_for_timed): the second
 * thread's reads help on an idle machine, but a worker that has no core
 * (a loaded machine, or another stream's worker on it) makes the caller
 * wait at the join. Each call site (a kernel and its sizes) keeps a
 * running average of its times split and on the caller alone, runs the
 * faster, and every TNGRT_PAR_EXPLORE-th call the other, so that the
 * choice follows the load (internal.h). Both arms run the same tasks, so
 * the choice never changes a bit.
 *
 * Workers start on the first call that has work for them (a bundle whose
 * products are all small never starts a thread), run a job's tasks until
 * none is left, then poll for the next job for the executor's spin budget
 * (TNGRT_SPIN_US, tngrt__spin_ns) and sleep on a condition variable.
 *
 * Guests. A bundle's stream workers (exec.c) run a job's tasks too while
 * they wait (for an event or for the next run): they are the pool's
 * guests (tngrt__par_set_guests), and the pool starts that many fewer
 * workers of its own. Without them a bundle with a second stream on two
 * cores ran three threads: the caller, the pool's worker and the stream's
 * worker, and whichever two shared a core took turns in slices of
 * milliseconds (measured: the LLaMA example's decode at hidden 512 in
 * float16, its K/V projections on a second stream, 4.3 ms a token on two
 * threads with every GEMV split, against 3.0 ms for the same model on one
 * stream; perf sched showed the stream's worker runnable but waiting
 * 1.4 ms a token). With guests the bundle's threads in all are
 * TNGRT_THREADS where it has fewer streams than that. A guest busy with
 * its stream claims nothing, and the caller claims what it leaves: two
 * threads then do stream 0's product and the other stream's work, one
 * each. Each published job pokes the guests (the poke wakes those asleep),
 * and a guest that ran tasks polls for the next job for the spin budget
 * before it goes back to its own wait.
 *
 * One job at a time: a call that finds the pool busy (another thread of
 * the program using the same bundle's pool, which tngrt_bundle_run does
 * not allow, or a task calling back in) runs its tasks itself. Tasks are
 * claimed under the mutex, one at a time: each is tens of microseconds of
 * arithmetic, so the claim's cost does not show. The caller claims tasks
 * too, so a worker that gets no core (a loaded machine) costs nothing but
 * the tasks it did claim.
 */
#include "internal.h"
#include "tngrt_exec.h"   /* tngrt_trace_now */

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The most threads a pool runs (TNGRT_THREADS above it is ignored). */
#define PAR_MAX_THREADS 256
/* Polls between two reads of the clock. */
#define PAR_CLOCK_EVERY 64
/* Call sites (keys) whose split tngrt__par_for_timed times; a key past
 * them runs split, untimed. */
#define PAR_PICKS 64

struct TngrtPar {
    int nthreads;               /* the caller and nthreads - 1 workers */
    int nworkers;               /* workers started (lazily; 0 before the first job) */
    int tried;                  /* the start was tried (a failed one is not retried) */
    int guests;                 /* other threads that run tasks (tngrt__par_set_guests) */
    void (*poke)(void *ctx);    /* wakes the guests after a job is published */
    void *poke_ctx;
    pthread_t *tid;
    uint64_t spin_ns;

    pthread_mutex_t mu;         /* guards the job and the sleeps */
    pthread_cond_t start_cv;    /* workers wait for a new job (or stop) */
    pthread_cond_t done_cv;     /* the caller waits for the job's last task */
    atomic_uint_fast64_t gen;   /* the current job's number (1, 2, ...) */
    atomic_int stop;
    atomic_flag busy;           /* a caller is inside tngrt__par_for */
    int parked;                 /* workers asleep on start_cv */

    int force;                  /* TNGRT_SPLIT: -1 timed, 0 never split, 1 always */
    TngrtParPick picks[PAR_PICKS];   /* tngrt__par_for_timed's choices, by key */

    /* The current job (written under mu before gen is bumped). */
    void (*fn)(void *ctx, int task);
    void *ctx;
    int ntasks;
    int next;                   /* the next unclaimed task */
    atomic_int avail;           /* tasks not claimed yet (ntasks - next; written under mu) */
    atomic_int done;            /* tasks finished */
};

static _Thread_local TngrtPar *par__cur;

TngrtPar *tngrt__par_current(void)
{
    return par__cur;
}

TngrtPar *tngrt__par_enter(TngrtPar *p)
{
    TngrtPar *prev = par__cur;
    par__cur = p;
    return prev;
}

int tngrt__par_threads(const TngrtPar *p)
{
    return p ? p->nthreads : 1;
}

int tngrt__threads_env(void)
{
    const char *v = getenv("TNGRT_THREADS");
    char *end;
    long n;
    if (v && *v) {
        n = strtol(v, &end, 10);
        if (!*end && n >= 1 && n <= PAR_MAX_THREADS)
            return (int)n;
    }
    n = tngrt__cpu_count();
    return n < 1 ? 1 : n > PAR_MAX_THREADS ? PAR_MAX_THREADS : (int)n;
}

/* TNGRT_SPLIT: "0" never splits a timed call site, "1" always does; else
 * (unset) each site's choice is timed. */
static int par__force_env(void)
{
    const char *v = getenv("TNGRT_SPLIT");
    return v && !strcmp(v, "0") ? 0 : v && !strcmp(v, "1") ? 1 : -1;
}

TngrtPar *tngrt__par_new(int nthreads)
{
    TngrtPar *p;
    if (nthreads < 2)
        return NULL;
    if (!(p = calloc(1, sizeof *p)))
        return NULL;
    p->nthreads = nthreads > PAR_MAX_THREADS ? PAR_MAX_THREADS : nthreads;
    p->spin_ns = tngrt__spin_ns();
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->start_cv, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    atomic_init(&p->gen, 0);
    atomic_init(&p->stop, 0);
    atomic_init(&p->done, 0);
    atomic_init(&p->avail, 0);
    atomic_flag_clear(&p->busy);
    p->force = par__force_env();
    return p;
}

/* Claims the next task of job `gen` (under mu): its index, or -1 when the
 * job has none left or is not the current one. */
static int par__claim(TngrtPar *p, uint64_t gen, void (**fn)(void *, int), void **ctx,
                      int *ntasks)
{
    int t = -1;
    pthread_mutex_lock(&p->mu);
    if (atomic_load_explicit(&p->gen, memory_order_relaxed) == gen && p->next < p->ntasks) {
        t = p->next++;
        atomic_store(&p->avail, p->ntasks - p->next);
        *fn = p->fn;
        *ctx = p->ctx;
        *ntasks = p->ntasks;
    }
    pthread_mutex_unlock(&p->mu);
    return t;
}

/* Runs tasks of job gen until none is left; the thread that finishes the
 * job's last task wakes the caller. */
static void par__work(TngrtPar *p, uint64_t gen)
{
    void (*fn)(void *, int);
    void *ctx;
    int t, n;
    while ((t = par__claim(p, gen, &fn, &ctx, &n)) >= 0) {
        fn(ctx, t);
        /* the job's count as claimed: once done reaches it the caller may
         * publish the next job */
        if (atomic_fetch_add_explicit(&p->done, 1, memory_order_acq_rel) + 1 == n) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_broadcast(&p->done_cv);
            pthread_mutex_unlock(&p->mu);
        }
    }
}

/* Called after poll `poll` (0, 1, ...) of a loop found nothing: pauses
 * and returns 1 while the loop may keep spinning, 0 once it has spun for
 * the spin budget (*end: the deadline, set at poll 0) and must sleep. */
static int par__spin(const TngrtPar *p, unsigned poll, uint64_t *end)
{
    if (p->spin_ns == 0)
        return 0;
    if (poll % PAR_CLOCK_EVERY == 0) {
        uint64_t t = tngrt_trace_now();
        if (poll == 0)
            *end = t + p->spin_ns;
        else if (t >= *end)
            return 0;
    }
    tngrt__pause();
    return 1;
}

/* Polls until job `seen` is not the current one or stop: for the spin
 * budget on a pause instruction, then asleep. Returns the new job's gen,
 * or 0 on stop. */
static uint64_t par__next_job(TngrtPar *p, uint64_t seen)
{
    uint64_t g, end = 0;
    for (unsigned poll = 0;; poll++) {
        if (atomic_load_explicit(&p->stop, memory_order_acquire))
            return 0;
        if ((g = atomic_load_explicit(&p->gen, memory_order_acquire)) != seen)
            return g;
        if (!par__spin(p, poll, &end))
            break;
    }
    pthread_mutex_lock(&p->mu);
    p->parked++;
    while (!atomic_load_explicit(&p->stop, memory_order_relaxed) &&
           atomic_load_explicit(&p->gen, memory_order_relaxed) == seen)
        pthread_cond_wait(&p->start_cv, &p->mu);
    p->parked--;
    g = atomic_load_explicit(&p->stop, memory_order_relaxed)
            ? 0
            : atomic_load_explicit(&p->gen, memory_order_relaxed);
    pthread_mutex_unlock(&p->mu);
    return g;
}

static void *par__worker(void *arg)
{
    TngrtPar *p = arg;
    uint64_t g = 0;
    while ((g = par__next_job(p, g)) != 0)
        par__work(p, g);
    return NULL;
}

/* Starts the workers once (nthreads - 1 less the guests); returns how
 * many threads other than the caller run tasks: the workers and the
 * guests. */
static int par__start(TngrtPar *p)
{
    int want = p->nthreads - 1 - p->guests;
    if (p->tried || want <= 0)
        return p->nworkers + p->guests;
    p->tried = 1;
    if (!(p->tid = calloc((size_t)want, sizeof *p->tid)))
        return p->guests;
    for (int i = 0; i < want; i++) {
        if (pthread_create(&p->tid[i], NULL, par__worker, p) != 0)
            break;   /* fewer workers: the caller claims what they leave */
        p->nworkers++;
    }
    return p->nworkers + p->guests;
}

void tngrt__par_set_guests(TngrtPar *p, int n, void (*poke)(void *ctx), void *ctx)
{
    if (!p || p->tried || n < 0)
        return;
    p->guests = n;
    p->poke = poke;
    p->poke_ctx = ctx;
}

int tngrt__par_has_work(const TngrtPar *p)
{
    return p && atomic_load(&((TngrtPar *)p)->avail) > 0;
}

int tngrt__par_help(TngrtPar *p)
{
    if (!tngrt__par_has_work(p))
        return 0;
    par__work(p, atomic_load_explicit(&p->gen, memory_order_acquire));
    return 1;
}

/* fn's tasks in order on the calling thread. */
static void par__serial(int ntasks, void (*fn)(void *ctx, int task), void *ctx)
{
    for (int t = 0; t < ntasks; t++)
        fn(ctx, t);
}

/* The job on p's threads and the caller's; the caller holds p->busy. */
static void par__run(TngrtPar *p, int ntasks, void (*fn)(void *ctx, int task), void *ctx)
{
    uint64_t g, end = 0;
    if (par__start(p) == 0) {
        par__serial(ntasks, fn, ctx);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->ntasks = ntasks;
    p->next = 0;
    atomic_store_explicit(&p->done, 0, memory_order_relaxed);
    atomic_store(&p->avail, ntasks);
    g = atomic_load_explicit(&p->gen, memory_order_relaxed) + 1;
    atomic_store_explicit(&p->gen, g, memory_order_release);
    if (p->parked)
        pthread_cond_broadcast(&p->start_cv);
    pthread_mutex_unlock(&p->mu);
    if (p->poke)
        p->poke(p->poke_ctx);
    par__work(p, g);
    /* the join: the tasks workers claimed may still be running */
    for (unsigned poll = 0; atomic_load_explicit(&p->done, memory_order_acquire) < ntasks; poll++) {
        if (!par__spin(p, poll, &end)) {
            pthread_mutex_lock(&p->mu);
            while (atomic_load_explicit(&p->done, memory_order_acquire) < ntasks)
                pthread_cond_wait(&p->done_cv, &p->mu);
            pthread_mutex_unlock(&p->mu);
            break;
        }
    }
}

void tngrt__par_for(TngrtPar *p, int ntasks, void (*fn)(void *ctx, int task), void *ctx)
{
    if (ntasks <= 0)
        return;
    if (!p || ntasks == 1 || atomic_flag_test_and_set_explicit(&p->busy, memory_order_acquire)) {
        par__serial(ntasks, fn, ctx);
        return;
    }
    par__run(p, ntasks, fn, ctx);
    atomic_flag_clear_explicit(&p->busy, memory_order_release);
}

/* ---- split or not, by timing each call site ---- */

int tngrt__pick_arm(const TngrtParPick *e)
{
    int best;
    if (e->n[0] < TNGRT_PAR_FIRST || e->n[1] < TNGRT_PAR_FIRST)
        return e->n[1] <= e->n[0];   /* the arm with fewer calls, split first */
    best = e->avg[1] + e->avg[1] / TNGRT_PAR_MARGIN < e->avg[0];
    return e->calls % TNGRT_PAR_EXPLORE == TNGRT_PAR_EXPLORE - 1 ? !best : best;
}

void tngrt__pick_record(TngrtParPick *e, int arm, uint64_t ns)
{
    uint64_t a = e->avg[arm];
    e->calls++;
    if (e->n[arm] == 0) {
        e->avg[arm] = ns;
    } else if (e->n[arm] < TNGRT_PAR_FIRST) {
        /* the first calls' least: the very first pays for cold caches,
         * first touches of a weight's pages, a worker's wake-up */
        e->avg[arm] = ns < a ? ns : a;
    } else {
        uint64_t cap = (a ? a : 1) * TNGRT_PAR_CLAMP;
        ns = ns > cap ? cap : ns;
        e->avg[arm] = ns >= a ? a + (ns - a) / TNGRT_PAR_WEIGHT : a - (a - ns) / TNGRT_PAR_WEIGHT;
    }
    if (e->n[arm] < 255)
        e->n[arm]++;
}

/* One step of a 64-bit mix (splitmix64's finaliser constants). */
static uint64_t par__mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

uint64_t tngrt__par_key(int site, int64_t m, int64_t n, int64_t k)
{
    return par__mix(par__mix(par__mix((uint64_t)site, (uint64_t)m), (uint64_t)n), (uint64_t)k);
}

/* key's entry in p's table (claimed when free), or NULL when it is full. */
static TngrtParPick *par__pick(TngrtPar *p, uint64_t key)
{
    key = key ? key : 1;
    for (int i = 0; i < PAR_PICKS; i++) {
        TngrtParPick *e = &p->picks[(key + (uint64_t)i) % PAR_PICKS];
        if (e->key == key)
            return e;
        if (e->key == 0) {
            e->key = key;
            return e;
        }
    }
    return NULL;
}

void tngrt__par_for_timed(TngrtPar *p, uint64_t key, int ntasks,
                          void (*fn)(void *ctx, int task), void *ctx)
{
    TngrtParPick *e;
    uint64_t t0;
    int arm;
    if (ntasks <= 0)
        return;
    if (!p || ntasks == 1 || atomic_flag_test_and_set_explicit(&p->busy, memory_order_acquire)) {
        par__serial(ntasks, fn, ctx);
        return;
    }
    e = p->force < 0 ? par__pick(p, key) : NULL;
    arm = e ? tngrt__pick_arm(e) : p->force != 0;
    t0 = e ? tngrt_trace_now() : 0;
    if (arm)
        par__run(p, ntasks, fn, ctx);
    else
        par__serial(ntasks, fn, ctx);
    if (e)
        tngrt__pick_record(e, arm, tngrt_trace_now() - t0);
    atomic_flag_clear_explicit(&p->busy, memory_order_release);
}

int64_t tngrt__par_cut(int64_t n, int64_t group, int64_t threads, int64_t per_thread,
                       int64_t *cols)
{
    int64_t groups = n / group, ntasks;
    if (groups < 2) {
        *cols = n;
        return 1;
    }
    ntasks = groups < threads * per_thread ? groups : threads * per_thread;
    *cols = (groups + ntasks - 1) / ntasks * group;
    return n / *cols;   /* the last task takes the columns past the last whole group */
}

void tngrt__par_delete(TngrtPar *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    atomic_store_explicit(&p->stop, 1, memory_order_release);
    pthread_cond_broadcast(&p->start_cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nworkers; i++)
        pthread_join(p->tid[i], NULL);
    free(p->tid);
    pthread_cond_destroy(&p->done_cv);
    pthread_cond_destroy(&p->start_cv);
    pthread_mutex_destroy(&p->mu);
    if (par__cur == p)
        par__cur = NULL;
    free(p);
}
