/*
 * memory.c - the memory plan of each gear: one arena per gear, in which
 * every value that needs storage of its own gets an offset, and buffers
 * whose lifetimes do not overlap share bytes.
 *
 * Storage: graph inputs and weights belong to the caller (outside the
 * arena, offset -1). A view (OPF_ALIAS) shares the storage of its input 0
 * and an in-place op (OPF_INPLACE) writes into it: both resolve to the
 * root of their chain (graph_storage_root) and get no buffer (bytes 0,
 * offset of their root). Every other op output is a buffer.
 *
 * Lifetime: a buffer is in use from its producer to the last op that reads
 * it or any view of it; a graph output (or a value written back into an
 * input at the end) stays in use to the end. Streams run concurrently, so
 * "later in program order" is not "later in time": buffer B may take bytes
 * of buffer A only when every op that uses A happens-before B's producer,
 * that is, precedes it in the transitive closure of stream order and
 * events (order.h: a vector clock per unit). Units are the grain: buffers
 * used inside one super-kernel segment never share bytes with each other.
 * A buffer keeps, per stream, only its latest use there (MemLast): every
 * use happens-before a unit when each stream's latest does.
 *
 * In place: an elementwise op may write its output into the buffer of one
 * of its inputs when that buffer is not the caller's, has the same element
 * count and element size, is not a graph output, and every other use of
 * it happens-before the op. The output then joins the input's buffer
 * (PlanMemory.inplace_of).
 *
 * Placement: buffers (in-place chains count as one) are placed in program
 * order of their producers, each at the lowest 64-byte-aligned offset that
 * does not overlap a buffer whose lifetime conflicts with it (first fit).
 * Only the buffers that may still be in use are looked at: one whose uses
 * all happen-before the next birth on every stream that has births left
 * is over for good and leaves the list. Placing buffers many of which are
 * in use at once still costs their number at each birth: the steps of the
 * pass (buffers looked at, spans sorted) are bounded by
 * PLAN_MAX_PLACE_STEPS, past which the entry is one TNG212.
 * naive_bytes is the sum of every buffer's 64-byte-aligned size. A gear in
 * which a buffer's size depends on an unbound symbol has no static arena
 * (dynamic = 1, arena_bytes = naive_bytes = -1, offsets -1).
 *
 * Sizes: plan_gears has checked every value of every gear against the size
 * invariant (graph.h), so one buffer is at most GRAPH_MAX_BYTES. Sums of
 * them are still checked: an arena past GRAPH_MAX_BYTES (and so every
 * offset and end in it) is TNG209 at the op whose buffer does not fit,
 * and naive_bytes is added with overflow checks too.
 */
#include "passes.h"
#include "plan.h"
#include "strided.h"
#include "values.h"

#define MEM_ALIGN 64

/* The most steps of placement (memory__place) in all gears of an entry:
 * a few seconds. */
#define PLAN_MAX_PLACE_STEPS ((uint64_t)1 << 28)

/* The ops after a strided matmul kept from overlapping the storage it reads
 * (memory__info): an epilogue's steps (TNGRT_GEMM_EPI_MAX) and a permute. */
#define MEMORY_EPI_REACH 9

typedef VEC(int32_t) OpList;

/* What does not depend on the gear. */
typedef struct MemInfo {
    const PlanOrder *order;  /* happens-before between units */
    uint64_t steps;        /* of placement so far, all gears */
    int32_t *root;         /* per value: graph_storage_root */
    char *is_buffer;       /* per value: owns an arena buffer */
    char *to_end;          /* per root value: in use to the end of the run */
    OpList *users;         /* per root value: its producer and every op reading it */
} MemInfo;

/* The latest use of a buffer on one stream: the position of its unit
 * there, one op of that unit among the uses, and whether another op of
 * that unit is a use too. */
typedef struct MemLast {
    int32_t stream;
    int32_t pos;
    int32_t op;
    int more;
} MemLast;

typedef VEC(MemLast) LastList;

/* Buffers sharing bytes: one buffer and the outputs written into it in place. */
typedef struct Slot {
    int32_t first;         /* the value that opened it */
    int64_t size;          /* bytes */
    int to_end;
    LastList last;         /* the latest use of it on each stream that uses it */
    int64_t off;
} Slot;

typedef VEC(Slot) SlotList;

/* n rounded up to MEM_ALIGN; n is a buffer's bytes, <= GRAPH_MAX_BYTES. */
static int64_t memory__align(int64_t n)
{
    TNGC_ASSERT(n <= GRAPH_MAX_BYTES);
    return (n + MEM_ALIGN - 1) / MEM_ALIGN * MEM_ALIGN;
}

/* ---- happens-before ------------------------------------------------------- */

/* Records that op uses the buffer whose latest uses are l. */
static void memory__last_add(LastList *l, const Plan *self, const PlanOrder *o, int32_t op)
{
    int32_t u = self->unit_of_op[op];
    TNGC_ASSERT(u >= 0);
    int32_t s = o->stream[u], p = o->pos[u];
    for (size_t i = 0; i < l->n; i++) {
        MemLast *e = &l->v[i];
        if (e->stream != s)
            continue;
        if (p > e->pos)
            *e = (MemLast){s, p, op, 0};
        else if (p == e->pos && op != e->op)
            e->more = 1;
        return;
    }
    MemLast e = {s, p, op, 0};
    VEC_PUSH(*l, e);
}

/* 1 when every use in l, other than by op `op` (-1: none), happens-before
 * unit u. */
static int memory__over_at(const PlanOrder *o, const LastList *l, int32_t u, int32_t op)
{
    for (size_t i = 0; i < l->n; i++) {
        const MemLast *e = &l->v[i];
        if (e->stream == o->stream[u]) {
            if (e->pos > o->pos[u] || (e->pos == o->pos[u] && (e->more || e->op != op)))
                return 0;
        } else if (e->pos > plan_order_seen(o, u, (size_t)e->stream)) {
            return 0;
        }
    }
    return 1;
}

/* ---- uses ----------------------------------------------------------------- */

static void memory__use(OpList *users, int32_t op)
{
    if (users->n == 0 || users->v[users->n - 1] != op)
        VEC_PUSH(*users, op);
}

static void memory__mark_end(MemInfo *mi, const Graph *g, int32_t v)
{
    if (v >= 0 && (size_t)v < g->vals.n)
        mi->to_end[mi->root[v]] = 1;
}

/* Whether an op of each kind may be a step of a matmul's epilogue (ops.def's
 * fusion column: FUSE_UNARY(U, GEMM), FUSE_UNARY_ARGS(U, GEMM, A),
 * FUSE_BINARY(B, GEMM), FUSE_BINARY_ALPHA(B, GEMM); codegen/fuse_base.c:
 * fuse_unop, fuse_binop)
 * or the permute it writes through (its view column: VIEW_PERMUTE). */
#define MEMORY__EPI_LOOPS 0
#define MEMORY__EPI_GEMM 1
#define FUSE_UNARY(u, w) MEMORY__EPI_##w
#define FUSE_UNARY_ARGS(u, w, a) MEMORY__EPI_##w
#define FUSE_BINARY(b, w) MEMORY__EPI_##w
#define FUSE_BINARY_ALPHA(b, w) MEMORY__EPI_##w
#define FUSE_POW 0
#define FUSE_NO 0
static const unsigned char memory__epi[OP__count] = {
#define OP(e, name, flags, in_min, in_max, in_opt, attr_min, attr_max, rule, dtype_rule, rowrule, printer, fusion, op_type, view, layout, swap, acl_form, cpu, cpu_scalar, acl, acl_ts, acl_st, attrs) \
    [OP_##e] = (fusion) || (view) == VIEW_PERMUTE,
#include "../ir/ops.def"
#undef OP
};
#undef FUSE_NO
#undef FUSE_POW
#undef FUSE_BINARY_ALPHA
#undef FUSE_BINARY
#undef FUSE_UNARY_ARGS
#undef FUSE_UNARY
#undef MEMORY__EPI_GEMM
#undef MEMORY__EPI_LOOPS

static int memory__epi_kind(OpKind k)
{
    return memory__epi[k];
}

static void memory__info(const Plan *self, const PlanOrder *order, MemInfo *mi)
{
    const Graph *g = self->g;
    size_t nv = g->vals.n;
    mi->order = order;
    mi->root = xmalloc((nv + 1) * sizeof *mi->root);
    mi->is_buffer = xcalloc(nv + 1, 1);
    mi->to_end = xcalloc(nv + 1, 1);
    mi->users = xcalloc(nv + 1, sizeof *mi->users);
    unsigned char *elided = plan_views_elided(self);   /* no buffer: nobody reads them */
    for (size_t v = 0; v < nv; v++) {
        unsigned flags = op_info[g->ops.v[g->vals.v[v].op].kind].flags;
        mi->root[v] = plan_root(self, (int32_t)v);
        /* constants' buffers are the constant block's, outside the arena */
        mi->is_buffer[v] = !(flags & (OPF_SOURCE | OPF_ALIAS | OPF_INPLACE)) && !plan_is_const(self, g->vals.v[v].op);
        mi->is_buffer[v] &= !elided[g->vals.v[v].op];
        if (mi->is_buffer[v])
            memory__use(&mi->users[v], g->vals.v[v].op);
    }
    for (size_t o = 0; o < g->ops.n; o++)
        for (uint32_t k = 0; k < g->ops.v[o].nin; k++)
            if (g->ops.v[o].in[k] >= 0)
                memory__use(&mi->users[mi->root[g->ops.v[o].in[k]]], (int32_t)o);
    /* a matmul reading a chain of views in place (strided.h) uses the
     * storage of every value of the chain (and an index's index tensor);
     * so do, after a float32 one,
     * the ops that each read the one before as its only reader and may be
     * an epilogue step, and a permute ending them (memory__epi_kind), which
     * codegen/fuse_gemm.c may fold into the matmul's call: their output
     * must not overlap that storage */
    int32_t *nread = xcalloc(nv + 1, sizeof *nread), *reader = xmalloc((nv + 1) * sizeof *reader);
    for (size_t o = 0; o < g->ops.n; o++)
        for (uint32_t k = 0; k < g->ops.v[o].nin; k++)
            if (g->ops.v[o].in[k] >= 0) {
                nread[g->ops.v[o].in[k]]++;
                reader[g->ops.v[o].in[k]] = (int32_t)o;
            }
    for (size_t i = 0; i < g->outputs.n; i++)
        if (g->outputs.v[i].value >= 0)
            nread[g->outputs.v[i].value] += 2;
    for (size_t o = 0; o < g->ops.n; o++) {
        if (!plan_mm_strided(self, (int32_t)o))
            continue;
        /* (only float32 matmuls take epilogues) */
        int32_t u = (int32_t)o, reach = g->vals.v[g->ops.v[o].out].dtype == DT_F32 ? MEMORY_EPI_REACH : 0;
        for (int step = 0; step <= reach && u >= 0; step++) {
            for (uint32_t k = 0; k < 2; k++) {
                for (int32_t v = g->ops.v[o].in[k]; v >= 0;) {
                    int32_t vo = g->vals.v[v].op;
                    memory__use(&mi->users[mi->root[v]], u);
                    if (!plan_mm_view_op(self, vo))
                        break;
                    if (g->ops.v[vo].kind == OP_INDEX)   /* its index tensor too */
                        memory__use(&mi->users[mi->root[g->ops.v[vo].in[1]]], u);
                    v = g->ops.v[vo].in[0];
                }
            }
            int32_t out = g->ops.v[u].out;
            u = g->ops.v[u].kind != OP_PERMUTE && g->ops.v[u].nout == 1 && out >= 0 &&
                        nread[out] == 1 ? reader[out] : -1;
            if (u >= 0 && !memory__epi_kind(g->ops.v[u].kind))
                u = -1;
        }
    }
    free(nread);
    free(reader);
    free(elided);
    for (size_t i = 0; i < g->outputs.n; i++)
        memory__mark_end(mi, g, g->outputs.v[i].value);
    for (size_t i = 0; i < g->inputs.n; i++)
        memory__mark_end(mi, g, g->inputs.v[i].final);
    for (size_t i = 0; i < g->weights.n; i++)
        memory__mark_end(mi, g, g->weights.v[i].final);
}

static void memory__info_free(const Graph *g, MemInfo *mi)
{
    for (size_t v = 0; v < g->vals.n; v++)
        VEC_FREE(mi->users[v]);
    free(mi->users);
    free(mi->root);
    free(mi->is_buffer);
    free(mi->to_end);
}

/* ---- slots ---------------------------------------------------------------- */

/* 1 when every use of slot s other than op happens-before op's unit. */
static int memory__last_use(const Plan *self, const MemInfo *mi, const Slot *s, int32_t op)
{
    return memory__over_at(mi->order, &s->last, self->unit_of_op[op], op);
}

/* The buffer (root value) that v, output of op, can be written into in
 * place, or -1. */
static int32_t memory__inplace_root(const Plan *self, const MemInfo *mi, int gear,
                                    const SlotList *slots, const int32_t *slot_of, int32_t v)
{
    const Graph *g = self->g;
    const Op *op = &g->ops.v[g->vals.v[v].op];
    if (!(op_info[op->kind].flags & OPF_ELEMWISE) || op->nout != 1)
        return -1;
    int64_t numel = plan_val_numel(self, gear, v);
    int esize = dtype_size(g->vals.v[v].dtype);
    for (uint32_t k = 0; k < op->nin; k++) {
        int32_t x = op->in[k];
        if (x < 0 || !mi->is_buffer[mi->root[x]] || slot_of[mi->root[x]] < 0)
            continue;
        const Slot *s = &slots->v[slot_of[mi->root[x]]];
        if (s->to_end || plan_val_numel(self, gear, x) != numel ||
            dtype_size(g->vals.v[x].dtype) != esize || s->size != numel * esize)
            continue;
        if (memory__last_use(self, mi, s, g->vals.v[v].op))
            return mi->root[x];
    }
    return -1;
}

static void memory__join(const Plan *self, Slot *s, const MemInfo *mi, int32_t v)
{
    for (size_t i = 0; i < mi->users[v].n; i++)
        memory__last_add(&s->last, self, mi->order, mi->users[v].v[i]);
    s->to_end |= mi->to_end[v];
}

/* Groups the buffers of one gear into slots (in-place chains share one). */
static void memory__slots(const Plan *self, const MemInfo *mi, int gear, PlanMemory *m,
                          SlotList *slots, int32_t *slot_of)
{
    const Graph *g = self->g;
    for (size_t v = 0; v < g->vals.n; v++) {
        slot_of[v] = -1;
        if (!mi->is_buffer[v])
            continue;
        int32_t into = memory__inplace_root(self, mi, gear, slots, slot_of, (int32_t)v);
        if (into >= 0) {
            m->inplace_of[v] = into;
            slot_of[v] = slot_of[into];
        } else {
            Slot fresh = {.first = (int32_t)v, .size = m->bytes[v]};
            VEC_PUSH(*slots, fresh);
            slot_of[v] = (int32_t)slots->n - 1;
        }
        memory__join(self, &slots->v[slot_of[v]], mi, (int32_t)v);
    }
}

/* ---- placement ------------------------------------------------------------ */

/* The unit in which slot s's first producer runs: its birth. */
static int32_t memory__born(const Plan *self, const Slot *s)
{
    return self->unit_of_op[self->g->vals.v[s->first].op];
}

/* 1 when slot a is in use at unit born (a slot's birth). */
static int memory__conflict(const MemInfo *mi, const Slot *a, int32_t born)
{
    return a->to_end || !memory__over_at(mi->order, &a->last, born, -1);
}

typedef struct Span {
    int64_t lo, hi;
} Span;

static int memory__span_cmp(const void *x, const void *y)
{
    const Span *a = x, *b = y;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    return (a->hi > b->hi) - (a->hi < b->hi);
}

/* The slots of one gear that may be in use at a later birth, and, per
 * stream with births left, the earliest of them (a slot over for it is
 * over for every later unit of that stream). */
typedef struct Placer {
    int32_t *live;         /* slot indices, in no order */
    size_t nlive;
    int32_t *next_same;    /* per slot: the next slot born on its stream, or -1 */
    int32_t *first_pos;    /* per slot: the earliest birth position among it and the
                            * later slots born on its stream */
    int32_t *head;         /* per stream: its first slot not yet placed, or -1 */
    int32_t *active;       /* the streams whose head is >= 0 */
    int32_t *at;           /* per stream: its index in active, or -1 */
    size_t nactive;
} Placer;

static void memory__placer_init(const Plan *self, const MemInfo *mi, const SlotList *slots, Placer *pl)
{
    size_t n = slots->n, ns = mi->order->nstreams;
    pl->live = xmalloc((n + 1) * sizeof *pl->live);
    pl->nlive = 0;
    pl->next_same = xmalloc((n + 1) * sizeof *pl->next_same);
    pl->first_pos = xmalloc((n + 1) * sizeof *pl->first_pos);
    pl->head = xmalloc((ns + 1) * sizeof *pl->head);
    pl->active = xmalloc((ns + 1) * sizeof *pl->active);
    pl->at = xmalloc((ns + 1) * sizeof *pl->at);
    for (size_t s = 0; s < ns; s++)
        pl->head[s] = pl->at[s] = -1;
    for (size_t k = n; k-- > 0;) {
        int32_t u = memory__born(self, &slots->v[k]), s = mi->order->stream[u], h = pl->head[s];
        pl->next_same[k] = h;
        pl->first_pos[k] = h >= 0 && pl->first_pos[h] < mi->order->pos[u] ? pl->first_pos[h] : mi->order->pos[u];
        pl->head[s] = (int32_t)k;
    }
    pl->nactive = 0;
    for (size_t s = 0; s < ns; s++)
        if (pl->head[s] >= 0) {
            pl->at[s] = (int32_t)pl->nactive;
            pl->active[pl->nactive++] = (int32_t)s;
        }
}

static void memory__placer_free(Placer *pl)
{
    free(pl->live);
    free(pl->next_same);
    free(pl->first_pos);
    free(pl->head);
    free(pl->active);
    free(pl->at);
}

/* After slot k is placed: its stream's next birth. */
static void memory__placer_next(const MemInfo *mi, Placer *pl, int32_t born, size_t k)
{
    int32_t s = mi->order->stream[born];
    pl->head[s] = pl->next_same[k];
    if (pl->head[s] < 0) {   /* no births left on s */
        int32_t i = pl->at[s], last = pl->active[--pl->nactive];
        pl->active[i] = last;
        pl->at[last] = i;
        pl->at[s] = -1;
    }
}

/* 1 when slot a is over at every birth left (those of slot k on). */
static int memory__over_for_good(const Plan *self, const MemInfo *mi, Placer *pl, const Slot *a,
                                 uint64_t *steps)
{
    for (size_t i = 0; i < pl->nactive; i++) {
        int32_t s = pl->active[i];
        int32_t w = self->streams.v[s].units[pl->first_pos[pl->head[s]] - 1];
        *steps += a->last.n + 1;
        if (!memory__over_at(mi->order, &a->last, w, -1))
            return 0;
    }
    return 1;
}

/* First fit: the lowest aligned offset where slot k overlaps no earlier
 * slot in use at its birth. The slots looked at are pl's live ones; those
 * over for good leave. */
static int64_t memory__place(const Plan *self, MemInfo *mi, SlotList *slots, size_t k, Placer *pl)
{
    Slot *s = &slots->v[k];
    int64_t size = memory__align(s->size);
    int32_t born = memory__born(self, s);
    Span *busy = xmalloc((pl->nlive + 1) * sizeof *busy);
    size_t n = 0;
    for (size_t i = 0; i < pl->nlive;) {
        const Slot *o = &slots->v[pl->live[i]];
        mi->steps += o->last.n + 1;
        if (memory__conflict(mi, o, born)) {
            busy[n++] = (Span){o->off, o->off + memory__align(o->size)};
            i++;
        } else if (memory__over_for_good(self, mi, pl, o, &mi->steps)) {
            pl->live[i] = pl->live[--pl->nlive];
        } else {
            i++;
        }
    }
    for (size_t b = n; b > 1; b >>= 1)
        mi->steps += n;
    qsort(busy, n, sizeof *busy, memory__span_cmp);
    int64_t off = 0;
    for (size_t i = 0; i < n && size > 0; i++) {
        if (busy[i].lo >= off + size)
            break;
        if (busy[i].hi > off)
            off = busy[i].hi;
    }
    free(busy);
    if (size > 0)
        pl->live[pl->nlive++] = (int32_t)k;
    memory__placer_next(mi, pl, born, k);
    return size > 0 ? off : 0;
}

/* Reports a placement past PLAN_MAX_PLACE_STEPS at slot k's birth. */
static void memory__too_slow(const Plan *self, int gi, const Slot *s, size_t nlive, DiagList *diags)
{
    const Graph *g = self->g;
    const Op *op = &g->ops.v[g->vals.v[s->first].op];
    diag_at_file(diags, op->line ? op->file : NULL, op->line ? op->line : g->line,
                 op->line ? op->col : g->col, RULE_TNG212,
                 "in gear %d: %zu buffers may be in use at once when the result of %s is made; "
                 "placing the buffers of %s takes more than %llu steps, the most tngc plans",
                 gi, nlive, op_info[op->kind].name, g->name ? g->name : "the entry",
                 (unsigned long long)PLAN_MAX_PLACE_STEPS);
}

/* ---- one gear ------------------------------------------------------------- */

static void memory__sizes(const Plan *self, const MemInfo *mi, int gear, PlanMemory *m)
{
    const Graph *g = self->g;
    for (size_t v = 0; v < g->vals.n; v++) {
        unsigned flags = op_info[g->ops.v[g->vals.v[v].op].kind].flags;
        m->offset[v] = -1;
        m->inplace_of[v] = -1;
        m->bytes[v] = flags & (OPF_ALIAS | OPF_INPLACE) ? 0 : plan_val_bytes(self, gear, (int32_t)v);
        if (mi->is_buffer[v] && m->bytes[v] < 0)
            m->dynamic = 1;
    }
}

/* Reports that value v's buffer does not fit the arena of gear gi. */
static void memory__too_big(const Plan *self, int gi, int32_t v, const char *what, DiagList *diags)
{
    const Graph *g = self->g;
    const Op *op = &g->ops.v[g->vals.v[v].op];
    StrBuf sb = {0};
    sb_printf(&sb, "in gear %d: the %s would pass 2^48 bytes, the most tngc plans, "
                   "with the buffer of the result of %s ", gi, what, op_info[op->kind].name);
    graph_val_type_str(g, v, &sb);
    diag_at_file(diags, op->line ? op->file : NULL, op->line ? op->line : g->line,
                 op->line ? op->col : g->col, RULE_TNG209, "%s", sb.s);
    sb_free(&sb);
}

/* Places the slots; -1 after reporting an arena past GRAPH_MAX_BYTES
 * (every offset and end placed before stays <= GRAPH_MAX_BYTES) or a
 * placement past PLAN_MAX_PLACE_STEPS. */
static int memory__offsets(const Plan *self, MemInfo *mi, int gi, PlanMemory *m,
                           SlotList *slots, const int32_t *slot_of, DiagList *diags)
{
    const Graph *g = self->g;
    Placer pl;
    int rc = 0;
    m->arena_bytes = m->naive_bytes = 0;
    memory__placer_init(self, mi, slots, &pl);
    for (size_t k = 0; k < slots->n && rc == 0; k++) {
        Slot *s = &slots->v[k];
        int64_t end;
        s->off = memory__place(self, mi, slots, k, &pl);
        if (mi->steps > PLAN_MAX_PLACE_STEPS) {
            memory__too_slow(self, gi, s, pl.nlive, diags);
            rc = -1;
        } else if (graph_ckd_add(&end, s->off, memory__align(s->size)) || end > GRAPH_MAX_BYTES) {
            memory__too_big(self, gi, s->first, "memory arena", diags);
            rc = -1;
        } else if (end > m->arena_bytes) {
            m->arena_bytes = end;
        }
    }
    memory__placer_free(&pl);
    if (rc < 0)
        return -1;
    for (size_t v = 0; v < g->vals.n; v++) {
        if (mi->is_buffer[v] &&
            graph_ckd_add(&m->naive_bytes, m->naive_bytes, memory__align(m->bytes[v]))) {
            memory__too_big(self, gi, (int32_t)v, "sum of the buffers", diags);
            return -1;
        }
        int32_t r = mi->root[v];
        if (slot_of[r] >= 0)
            m->offset[v] = slots->v[slot_of[r]].off;
    }
    return 0;
}

static int memory__gear(Plan *self, MemInfo *mi, int gear, DiagList *diags)
{
    int rc = 0;
    size_t nv = self->g->vals.n;
    PlanMemory m = {0};
    m.offset = arena_alloc(&self->arena, (nv + 1) * sizeof *m.offset);
    m.bytes = arena_alloc(&self->arena, (nv + 1) * sizeof *m.bytes);
    m.inplace_of = arena_alloc(&self->arena, (nv + 1) * sizeof *m.inplace_of);
    memory__sizes(self, mi, gear, &m);
    if (m.dynamic) {
        m.arena_bytes = m.naive_bytes = -1;
    } else {
        SlotList slots = {0};
        int32_t *slot_of = xmalloc((nv + 1) * sizeof *slot_of);
        memory__slots(self, mi, gear, &m, &slots, slot_of);
        rc = memory__offsets(self, mi, gear, &m, &slots, slot_of, diags);
        for (size_t k = 0; k < slots.n; k++)
            VEC_FREE(slots.v[k].last);
        VEC_FREE(slots);
        free(slot_of);
    }
    VEC_PUSH(self->mem, m);
    return rc;
}

int plan_memory(Plan *self, const PlanOrder *order, DiagList *diags)
{
    MemInfo mi = {0};
    int rc = 0;
    memory__info(self, order, &mi);
    for (size_t gi = 0; gi < self->gears.n && mi.steps <= PLAN_MAX_PLACE_STEPS; gi++)
        rc |= memory__gear(self, &mi, (int)gi, diags);
    memory__info_free(self->g, &mi);
    return rc;
}
