/*
 * streams.c - what runs where and in which order: units, the schedule of
 * each stream, and the events that order units across streams.
 *
 * A unit is a super-kernel segment or an op outside segments (graph inputs
 * and weights run nothing and are no units; views are units without a
 * kernel, so that every op has a place in the schedule). Units are in
 * program order, a segment at its first op; each runs on one stream and a
 * stream runs its units in that order.
 *
 * A unit depends on the producers of its ops' inputs and on its ops'
 * control dependencies (npu_wait_tensor, earlier readers of a buffer an
 * in-place op overwrites). A dependency on the same stream is implied by
 * stream order. One on another stream needs an event (recorded after the
 * producer, waited for before the consumer) unless it is already implied:
 * every stream keeps a vector clock of how far it has synchronised with
 * every other stream, and a dependency on the k-th unit of stream s is
 * redundant for stream t when clock[t][s] >= k. A unit's dependencies are
 * taken latest producer first, so that a wait which implies an earlier
 * one (through the producer's own clock) makes that one redundant. The
 * clock of every unit is kept for memory.c (order.h: a row per unit that
 * waits): O(units x streams) time and at most PLAN_MAX_CLOCK_ENTRIES
 * entries, with at most PLAN_MAX_STREAMS streams; an entry past either
 * limit is one TNG212.
 *
 * Program order is a topological order, so the schedule cannot deadlock;
 * a simulated run checks it anyway (a failure is a compiler bug).
 *
 * The cost model (on when Plan.handoff_ns > 0, as tngc sets it for the CPU
 * target): handing a branch to another thread and back costs about
 * handoff_ns, so a non-default stream whose estimated work per run (its
 * work over its runs: the maximal sequences of its ops in program order,
 * each handed to its thread and back) is below that in every gear runs
 * on stream 0 instead, in program order (which keeps every dependency),
 * and its thread gets no work: a multi-stream bundle is then not slower
 * than its one-stream version because of branches too small to pay.
 * Measured on 2 cores, the LLaMA decode of bench/llamacpp at hidden 512,
 * each layer's K/V projections on a second stream: with int8 weights
 * (about 9 us a run) each hand-off to a worker that had gone to sleep
 * between layers took 40-110 us, and the step was faster on one stream;
 * with float16 weights (about 13 us a run: the weights' reading) it was
 * about 10% slower on one stream. The estimate per op: STREAMS_OP_NS for
 * the call, plus, for a matrix product, 2 M N K flops at
 * STREAMS_MM_FLOPS_PER_NS or its operands' bytes at STREAMS_BYTES_PER_NS
 * (one core's reads), whichever is longer, or its output's elements at
 * STREAMS_ELEMS_PER_NS otherwise (small shapes on one core); a
 * collective (OPF_COLLECTIVE) STREAMS_COLLECTIVE_NS, the time it waits for
 * the other ranks, which a stream of its own overlaps with compute.
 *
 * Collectives (--world-size N) are ordered: each depends on the collective
 * before it in program order, as on an input, so every rank issues its
 * collectives in the same order whatever streams they run on (MPI requires
 * it of the collectives of a communicator), and no two run at once: the
 * MPI calls of a rank are serialised across its threads (runtime/mpi.c
 * asks for MPI_THREAD_SERIALIZED).
 */
#include "order.h"
#include "passes.h"
#include "values.h"
#include "plan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A dependency of a unit: the unit it waits for. */
typedef struct Dep {
    int32_t unit;
    int explicit_wait;
} Dep;

typedef VEC(Dep) DepList;

/* Work arrays of the pass. */
typedef struct StreamState {
    size_t nstreams;
    PlanOrder *order;      /* positions, and every unit's clock after it */
    int32_t *clock;        /* nstreams x nstreams: clock[t][s] */
    int32_t *last_row;     /* per stream: the order row of its clock, or -1 */
} StreamState;

/* The cost model's rates (see the file comment). */
#define STREAMS_OP_NS 30
#define STREAMS_MM_FLOPS_PER_NS 32
#define STREAMS_ELEMS_PER_NS 4
#define STREAMS_BYTES_PER_NS 20
/* A collective between the processes of one host, through Open MPI's
 * shared memory: tens of us when the ranks share cores (bench/tp). */
#define STREAMS_COLLECTIVE_NS 20000

/* ---- the cost model --------------------------------------------------- */

/* Estimated ns of op in gear gi, or -1 when a shape there is unknown. */
static int64_t streams__op_ns(const Plan *self, int gi, const Op *op)
{
    const Graph *g = self->g;
    int64_t n = op->nout ? plan_val_numel(self, gi, op->out) : 0, k = 1;
    if (n < 0)
        return -1;
    if (op_info[op->kind].flags & OPF_COLLECTIVE)
        return STREAMS_COLLECTIVE_NS;
    if ((op_info[op->kind].flags & OPF_CONTRACT) && op->nin > 0) {
        int32_t a = op->in[op->kind == OP_ADDMM && op->nin > 1 ? 1 : 0];
        const Val *va = a >= 0 ? &g->vals.v[a] : NULL;
        if (va && va->ndim > 0
            && (graph_dim_eval(g, va->dims[va->ndim - 1], self->gears.v[gi].symval, &k) < 0 || k < 0))
            return -1;
        int64_t nk, bytes = 0;
        if (graph_ckd_mul(&nk, n, k) || nk > INT64_MAX / 4)
            return INT64_MAX / 4;    /* far past any hand-off */
        /* a product with few rows (decode's GEMV) reads its operands
         * (the weight, mostly) for longer than it multiplies */
        for (uint32_t i = 0; i < op->nin; i++) {
            int32_t v = op->in[i];
            if (v < 0)
                continue;   /* an absent optional input */
            int64_t e = plan_val_numel(self, gi, v);
            if (e < 0)
                return -1;
            if (e > INT64_MAX / 64 || bytes > INT64_MAX / 4)
                return INT64_MAX / 4;
            bytes += e * dtype_size(g->vals.v[v].dtype);
        }
        int64_t flops_ns = 2 * nk / STREAMS_MM_FLOPS_PER_NS, read_ns = bytes / STREAMS_BYTES_PER_NS;
        return STREAMS_OP_NS + (flops_ns > read_ns ? flops_ns : read_ns);
    }
    return STREAMS_OP_NS + n / STREAMS_ELEMS_PER_NS;
}

/* Fills runs_on and work_ns: each stream's work in its busiest gear, and
 * stream 0 for a non-default stream below the hand-off cost. */
static void streams__cost_model(Plan *self)
{
    const Graph *g = self->g;
    size_t ns = g->streams.n;
    int64_t *sum = xcalloc(ns + 1, sizeof *sum);
    self->runs_on = arena_alloc(&self->arena, (ns + 1) * sizeof *self->runs_on);
    self->work_ns = arena_alloc(&self->arena, (ns + 1) * sizeof *self->work_ns);
    for (size_t s = 0; s < ns; s++) {
        self->runs_on[s] = (int)s;
        self->work_ns[s] = 0;
    }
    for (size_t gi = 0; gi < self->gears.n; gi++) {
        memset(sum, 0, (ns + 1) * sizeof *sum);
        for (size_t i = 0; i < g->ops.n; i++) {
            const Op *op = &g->ops.v[i];
            int s = op->stream;
            if ((op_info[op->kind].flags & OPF_SOURCE) || s < 0 || (size_t)s >= ns || sum[s] < 0)
                continue;
            int64_t t = streams__op_ns(self, (int)gi, op);
            sum[s] = t < 0 ? -1 : sum[s] > INT64_MAX / 4 - t ? INT64_MAX / 4 : sum[s] + t;
        }
        for (size_t s = 0; s < ns; s++)
            if (self->work_ns[s] >= 0 && (sum[s] < 0 || sum[s] > self->work_ns[s]))
                self->work_ns[s] = sum[s];
    }
    free(sum);
    /* the runs of each stream: maximal sequences of its ops in program
     * order (sources and constants left out), each a hand-off to its
     * thread and back */
    self->handoffs = arena_alloc(&self->arena, (ns + 1) * sizeof *self->handoffs);
    memset(self->handoffs, 0, (ns + 1) * sizeof *self->handoffs);
    for (size_t i = 0, prev = SIZE_MAX; i < g->ops.n; i++) {
        const Op *op = &g->ops.v[i];
        if ((op_info[op->kind].flags & OPF_SOURCE) || plan_is_const(self, (int32_t)i) || op->stream < 0
            || (size_t)op->stream >= ns)
            continue;
        if ((size_t)op->stream != prev)
            self->handoffs[op->stream]++;
        prev = (size_t)op->stream;
    }
    if (self->handoff_ns <= 0)
        return;
    for (size_t s = 1; s < ns; s++)
        if (self->work_ns[s] >= 0 && self->work_ns[s] / (self->handoffs[s] > 0 ? self->handoffs[s] : 1)
                                         < self->handoff_ns)
            self->runs_on[s] = 0;
}

/* ---- units ---------------------------------------------------------- */

static void streams__push_unit(Plan *self, int32_t op, int seg, int stream)
{
    TNGC_ASSERT(stream >= 0 && (size_t)stream < self->g->streams.n);
    PlanUnit u = {.op = op, .seg = seg, .stream = self->runs_on[stream]};
    VEC_PUSH(self->units, u);
}

/* One unit per segment (at its first op) and per other non-source op. */
static void streams__units(Plan *self)
{
    const Graph *g = self->g;
    int *seg_of = xmalloc((g->ops.n + 1) * sizeof *seg_of);
    for (size_t i = 0; i < g->ops.n; i++)
        seg_of[i] = -1;
    for (size_t s = 0; s < self->segs.n; s++)
        for (size_t k = 0; k < self->segs.v[s].nops; k++)
            seg_of[self->segs.v[s].ops[k]] = (int)s;
    self->unit_of_op = arena_alloc(&self->arena, (g->ops.n + 1) * sizeof *self->unit_of_op);
    for (size_t i = 0; i < g->ops.n; i++) {
        const Op *op = &g->ops.v[i];
        int s = seg_of[i];
        self->unit_of_op[i] = -1;
        if ((op_info[op->kind].flags & OPF_SOURCE) || plan_is_const(self, (int32_t)i))
            continue;   /* constants run at create: no unit, like sources */
        if (s >= 0 && self->segs.v[s].ops[0] != (int32_t)i) {
            self->unit_of_op[i] = self->unit_of_op[self->segs.v[s].ops[0]];
            continue;
        }
        self->unit_of_op[i] = (int32_t)self->units.n;
        if (s >= 0)
            streams__push_unit(self, -1, s, self->segs.v[s].stream);
        else
            streams__push_unit(self, (int32_t)i, -1, op->stream);
    }
    free(seg_of);
}

/* ---- dependencies ----------------------------------------------------- */

static void streams__dep_add(DepList *deps, int32_t unit, int explicit_wait)
{
    Dep d = {unit, explicit_wait};
    VEC_PUSH(*deps, d);
}

/* The collective before op (index i) in program order, or -1. */
static int32_t streams__prev_collective(const Graph *g, size_t i)
{
    while (i-- > 0)
        if (op_info[g->ops.v[i].kind].flags & OPF_COLLECTIVE)
            return (int32_t)i;
    return -1;
}

/* The dependencies of op (in unit u) on other units. */
static void streams__op_deps(const Plan *self, int32_t u, const Op *op, DepList *deps)
{
    const Graph *g = self->g;
    if (op_info[op->kind].flags & OPF_COLLECTIVE) {   /* the collectives' order */
        int32_t c = streams__prev_collective(g, (size_t)(op - g->ops.v));
        int32_t p = c >= 0 ? self->unit_of_op[c] : -1;
        if (p >= 0 && p != u)
            streams__dep_add(deps, p, 0);
    }
    for (uint32_t k = 0; k < op->nin; k++) {
        if (op->in[k] < 0)
            continue;
        int32_t p = self->unit_of_op[g->vals.v[op->in[k]].op];
        if (p >= 0 && p != u)
            streams__dep_add(deps, p, 0);
    }
    for (uint32_t k = 0; k < op->nctrl; k++) {
        int32_t p = self->unit_of_op[op->ctrl[k]];
        if (p >= 0 && p != u)
            streams__dep_add(deps, p, op->ctrl_explicit ? op->ctrl_explicit[k] : 0);
    }
}

static int streams__dep_later(const void *a, const void *b)
{
    const Dep *x = a, *y = b;
    if (x->unit != y->unit)
        return (x->unit < y->unit) - (x->unit > y->unit);
    return (x->explicit_wait < y->explicit_wait) - (x->explicit_wait > y->explicit_wait);
}

/* The dependencies of unit u, latest producer first, each unit once (an
 * explicit wait when any of its dependencies is one). */
static void streams__unit_deps(const Plan *self, int32_t u, DepList *deps)
{
    const PlanUnit *unit = &self->units.v[u];
    deps->n = 0;
    if (unit->seg < 0) {
        streams__op_deps(self, u, &self->g->ops.v[unit->op], deps);
    } else {
        const PlanSegment *seg = &self->segs.v[unit->seg];
        for (size_t k = 0; k < seg->nops; k++)
            streams__op_deps(self, u, &self->g->ops.v[seg->ops[k]], deps);
    }
    for (size_t i = 0; i < deps->n; i++)
        if (deps->v[i].unit > u)
            TNGC_BUG("unit %d depends on the later unit %d", (int)u, (int)deps->v[i].unit);
    if (deps->n < 2)
        return;
    qsort(deps->v, deps->n, sizeof *deps->v, streams__dep_later);
    size_t kept = 1;
    for (size_t i = 1; i < deps->n; i++)
        if (deps->v[i].unit != deps->v[kept - 1].unit)
            deps->v[kept++] = deps->v[i];
    deps->n = kept;
}

/* ---- events ----------------------------------------------------------- */

/* Merges into the clock of stream t the clock of unit p (its own entry:
 * its position). */
static void streams__merge(StreamState *st, size_t t, int32_t p)
{
    const PlanOrder *o = st->order;
    int32_t *clock = st->clock + t * st->nstreams;
    if (o->row[p] >= 0) {
        const int32_t *snap = plan_order_row(o, o->row[p]);
        for (size_t s = 0; s < st->nstreams; s++)
            if (snap[s] > clock[s] && s != (size_t)o->stream[p])
                clock[s] = snap[s];
    }
    if (o->pos[p] > clock[o->stream[p]])
        clock[o->stream[p]] = o->pos[p];
}

/* Keeps in deps the dependencies of unit u that need an event, and merges
 * what they imply into the clock of u's stream. */
static void streams__needed(Plan *self, StreamState *st, int32_t u, DepList *deps)
{
    size_t t = (size_t)self->units.v[u].stream;
    size_t kept = 0;
    for (size_t i = 0; i < deps->n; i++) {
        int32_t p = deps->v[i].unit;
        size_t s = (size_t)self->units.v[p].stream;
        if (s == t || st->clock[t * st->nstreams + s] >= st->order->pos[p])
            continue;  /* stream order, or implied by an earlier wait */
        streams__merge(st, t, p);
        deps->v[kept++] = deps->v[i];
    }
    deps->n = kept;
}

static void streams__add_events(Plan *self, int32_t u, const DepList *deps)
{
    for (size_t i = deps->n; i-- > 0;) {  /* earliest producer first */
        int32_t p = deps->v[i].unit;
        PlanEvent e = {.from = self->units.v[p].stream, .to = self->units.v[u].stream,
                       .after = p, .before = u, .explicit_wait = deps->v[i].explicit_wait};
        VEC_PUSH(self->events, e);
    }
}

/* The per-stream schedules. */
static void streams__schedules(Plan *self)
{
    size_t nstreams = self->g->streams.n;
    for (size_t s = 0; s < nstreams; s++) {
        PlanStream ps = {0};
        VEC_PUSH(self->streams, ps);
    }
    for (size_t u = 0; u < self->units.n; u++)
        self->streams.v[self->units.v[u].stream].nunits++;
    for (size_t s = 0; s < nstreams; s++) {
        PlanStream *ps = &self->streams.v[s];
        ps->units = arena_alloc(&self->arena, (ps->nunits + 1) * sizeof *ps->units);
        ps->nunits = 0;
    }
    for (size_t u = 0; u < self->units.n; u++) {
        PlanStream *ps = &self->streams.v[self->units.v[u].stream];
        ps->units[ps->nunits++] = (int32_t)u;
    }
}

/* The events, and every unit's clock in st->order; -1 after reporting
 * clocks past PLAN_MAX_CLOCK_ENTRIES. */
static int streams__events(Plan *self, StreamState *st, DiagList *diags)
{
    DepList deps = {0};
    size_t n = st->nstreams;
    int rc = 0;
    for (size_t u = 0; u < self->units.n && rc == 0; u++) {
        size_t t = (size_t)self->units.v[u].stream;
        streams__unit_deps(self, (int32_t)u, &deps);
        streams__needed(self, st, (int32_t)u, &deps);
        streams__add_events(self, (int32_t)u, &deps);
        st->clock[t * n + t] = st->order->pos[u];
        if (deps.n == 0) {
            plan_order_keep(st->order, (int32_t)u, st->last_row[t]);
        } else {
            rc = plan_order_push(st->order, self, (int32_t)u, st->clock + t * n, diags);
            st->last_row[t] = st->order->row[u];
        }
    }
    VEC_FREE(deps);
    return rc;
}

/* Fills every unit's wait and record lists from the events. */
static void streams__attach_events(Plan *self)
{
    for (size_t e = 0; e < self->events.n; e++) {
        self->units.v[self->events.v[e].before].nwait++;
        self->units.v[self->events.v[e].after].nrecord++;
    }
    for (size_t u = 0; u < self->units.n; u++) {
        PlanUnit *unit = &self->units.v[u];
        unit->wait = arena_alloc(&self->arena, (unit->nwait + 1) * sizeof *unit->wait);
        unit->record = arena_alloc(&self->arena, (unit->nrecord + 1) * sizeof *unit->record);
        unit->nwait = unit->nrecord = 0;
    }
    for (size_t e = 0; e < self->events.n; e++) {
        PlanUnit *before = &self->units.v[self->events.v[e].before];
        PlanUnit *after = &self->units.v[self->events.v[e].after];
        before->wait[before->nwait++] = (int32_t)e;
        after->record[after->nrecord++] = (int32_t)e;
    }
}

/* ---- deadlock check ----------------------------------------------------- */

/* Runs the streams as far as their events let them; 0 when all finish.
 * A stream runs until its next unit waits for an event not yet recorded;
 * recording the last event a unit waits for puts that unit's stream back
 * in the queue (events join two streams): O(units + events + streams). */
static int streams__simulate(const Plan *self)
{
    size_t nstreams = self->streams.n, done = 0, nq = 0;
    size_t *next = xcalloc(nstreams + 1, sizeof *next);
    size_t *queue = xmalloc((nstreams + 1) * sizeof *queue);
    char *queued = xmalloc(nstreams + 1);
    size_t *pending = xmalloc((self->units.n + 1) * sizeof *pending);
    for (size_t u = 0; u < self->units.n; u++)
        pending[u] = self->units.v[u].nwait;
    for (size_t s = nstreams; s-- > 0;) {
        queue[nq++] = s;
        queued[s] = 1;
    }
    while (nq > 0) {
        size_t s = queue[--nq];
        const PlanStream *ps = &self->streams.v[s];
        queued[s] = 0;
        while (next[s] < ps->nunits && pending[ps->units[next[s]]] == 0) {
            const PlanUnit *unit = &self->units.v[ps->units[next[s]++]];
            for (size_t i = 0; i < unit->nrecord; i++) {
                const PlanEvent *e = &self->events.v[unit->record[i]];
                size_t to = (size_t)self->units.v[e->before].stream;
                if (--pending[e->before] == 0 && !queued[to]) {
                    queue[nq++] = to;
                    queued[to] = 1;
                }
            }
            done++;
        }
    }
    free(next);
    free(queue);
    free(queued);
    free(pending);
    return done == self->units.n ? 0 : -1;
}

/* Reports an entry with more than PLAN_MAX_STREAMS streams, at the first
 * stream switch past the limit. */
static int streams__too_many(const Plan *self, DiagList *diags)
{
    const Graph *g = self->g;
    if (g->streams.n <= PLAN_MAX_STREAMS)
        return 0;
    const GraphStream *gs = &g->streams.v[PLAN_MAX_STREAMS];
    diag_at(diags, gs->line ? gs->line : g->line, gs->line ? gs->col : g->col, RULE_TNG212,
            "%s uses %zu streams (npu_stream_switch tags and the default stream), more than "
            "the %d tngc plans", g->name ? g->name : "the entry", g->streams.n, PLAN_MAX_STREAMS);
    return 1;
}

int plan_streams(Plan *self, PlanOrder *order, DiagList *diags)
{
    if (streams__too_many(self, diags))
        return -1;
    streams__cost_model(self);
    streams__units(self);
    streams__schedules(self);
    plan_order_init(order, self);
    StreamState st = {.nstreams = self->g->streams.n, .order = order};
    size_t n = st.nstreams;
    st.clock = xcalloc(n * n + 1, sizeof *st.clock);
    st.last_row = xmalloc((n + 1) * sizeof *st.last_row);
    for (size_t s = 0; s < n; s++)
        st.last_row[s] = -1;
    int rc = streams__events(self, &st, diags);
    free(st.clock);
    free(st.last_row);
    if (rc < 0)
        return -1;
    streams__attach_events(self);
    if (streams__simulate(self) < 0)
        TNGC_BUG("the stream schedule of %s deadlocks", self->g->name ? self->g->name : "?");
    return 0;
}
