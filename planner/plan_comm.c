/*
 * plan_comm.c - the collectives of a plan (--world-size N: ops with
 * OPF_COLLECTIVE), as `tngc plan` prints them after the events (text) and
 * as the entry's "collectives" member (JSON); nothing for a plan without
 * collectives, so other plans print as before.
 *
 * Per collective: the stream it runs on, the first unit that reads its
 * result, the bytes it moves per gear and the units on other streams that
 * overlap it.
 *
 * Bytes. Per rank and per run, by a count that does not depend on the
 * algorithm MPI picks: "in" is the bytes of the rank's input (what it
 * contributes), "out" the bytes of its result. all_reduce and broadcast of
 * B bytes: B in, B out; all_gather of B bytes over a group of n ranks: B
 * in, n B out; reduce_scatter of B bytes: B in, B / n out. -1 (JSON) or
 * "unknown" (text) where a dim is unbound in the gear.
 *
 * Overlap. Unit x overlaps collective c when x is on another stream and
 * neither happens before the other: x may run while c waits for the other
 * ranks. Happens-before is stream order and the events, as one vector
 * clock per unit (the clock of unit u holds, per stream s, how many units
 * of s happen before u or are u), computed here from the schedules and the
 * events in program order: O(units x streams), skipped (no overlap listed)
 * past COMM_MAX_CLOCK entries.
 */
#include "plan.h"
#include "values.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The most clock entries (4 bytes each) computed for the overlaps. */
#define COMM_MAX_CLOCK ((size_t)1 << 24)

/* The vector clocks of every unit. */
typedef struct CommOrder {
    size_t nstreams;
    int32_t *clock;        /* units x nstreams, or NULL (too many) */
} CommOrder;

/* 1 when op is a collective in the schedules (a unit, or in a segment's). */
static int comm__is(const Plan *p, size_t op)
{
    return (op_info[p->g->ops.v[op].kind].flags & OPF_COLLECTIVE) && p->unit_of_op && p->unit_of_op[op] >= 0;
}

/* The number of collectives in p's schedules. */
static size_t comm__count(const Plan *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->g->ops.n; i++)
        n += comm__is(p, i);
    return n;
}

static void comm__order(const Plan *p, CommOrder *o)
{
    size_t ns = p->streams.n, nu = p->units.n;
    o->nstreams = ns;
    o->clock = NULL;
    if (!ns || nu > COMM_MAX_CLOCK / ns)
        return;
    int32_t *clk = xcalloc(nu * ns + 1, sizeof *clk);
    int32_t *last = xmalloc((ns + 1) * sizeof *last);
    for (size_t s = 0; s < ns; s++)
        last[s] = -1;
    for (size_t u = 0; u < nu; u++) {
        const PlanUnit *unit = &p->units.v[u];
        size_t s = (size_t)unit->stream;
        int32_t *row = clk + u * ns;
        if (last[s] >= 0)
            memcpy(row, clk + (size_t)last[s] * ns, ns * sizeof *row);
        for (size_t w = 0; w < unit->nwait; w++) {
            const int32_t *from = clk + (size_t)p->events.v[unit->wait[w]].after * ns;
            for (size_t t = 0; t < ns; t++)
                if (from[t] > row[t])
                    row[t] = from[t];
        }
        row[s] = (last[s] >= 0 ? clk[(size_t)last[s] * ns + s] : 0) + 1;
        last[s] = (int32_t)u;
    }
    free(last);
    o->clock = clk;
}

/* 1 when unit a happens before unit b. */
static int comm__before(const Plan *p, const CommOrder *o, int32_t a, int32_t b)
{
    size_t s = (size_t)p->units.v[a].stream;
    return o->clock[(size_t)b * o->nstreams + s] >= o->clock[(size_t)a * o->nstreams + s];
}

static int comm__overlaps(const Plan *p, const CommOrder *o, int32_t c, int32_t x)
{
    return p->units.v[x].stream != p->units.v[c].stream && !comm__before(p, o, x, c) && !comm__before(p, o, c, x);
}

/* 1 when some op of unit u reads value v (an input or a control
 * dependency on v's op). */
static int comm__reads(const Plan *p, int32_t u, int32_t c)
{
    const Graph *g = p->g;
    const PlanUnit *unit = &p->units.v[u];
    const PlanSegment *seg = unit->seg >= 0 ? &p->segs.v[unit->seg] : NULL;
    size_t n = seg ? seg->nops : 1;
    for (size_t k = 0; k < n; k++) {
        const Op *op = &g->ops.v[seg ? seg->ops[k] : unit->op];
        for (uint32_t i = 0; i < op->nin; i++)
            if (op->in[i] >= 0 && g->vals.v[op->in[i]].op == c)
                return 1;
        for (uint32_t i = 0; i < op->nctrl; i++)
            if (op->ctrl[i] == c)
                return 1;
    }
    return 0;
}

/* The first unit after the unit cu of collective op c that reads its
 * result, or -1. */
static int32_t comm__consumer(const Plan *p, int32_t cu, int32_t c)
{
    for (size_t u = (size_t)cu + 1; u < p->units.n; u++)
        if (comm__reads(p, (int32_t)u, c))
            return (int32_t)u;
    return -1;
}

/* Bytes in and out of collective op in gear gi (-1: unknown). */
static void comm__bytes(const Plan *p, size_t gi, int32_t op, int64_t *in, int64_t *out)
{
    const Op *o = &p->g->ops.v[op];
    *in = o->nin && o->in[0] >= 0 ? plan_val_bytes(p, (int)gi, o->in[0]) : -1;
    *out = o->nout ? plan_val_bytes(p, (int)gi, o->out) : -1;
}

static void comm__op_ref(const Graph *g, int32_t op, StrBuf *out)
{
    if (op >= 0 && g->ops.v[op].nout > 0)
        sb_printf(out, "%%%d", (int)g->ops.v[op].out);
    else
        sb_printf(out, "op%d", (int)op);
}

static void comm__unit_ref(const Plan *p, int32_t u, StrBuf *out)
{
    if (p->units.v[u].op >= 0)
        comm__op_ref(p->g, p->units.v[u].op, out);
    else
        sb_printf(out, "seg %d", p->units.v[u].seg);
}

static void comm__text_bytes(StrBuf *out, int64_t b, const char *what)
{
    if (b < 0)
        sb_printf(out, "unknown %s", what);
    else
        sb_printf(out, "%lld bytes %s", (long long)b, what);
}

/* "    overlaps: %13 %14 (stream 0), seg 2 (stream 2)" or "none". */
static void comm__text_overlaps(const Plan *p, const CommOrder *o, int32_t cu, StrBuf *out)
{
    sb_puts(out, "    overlaps:");
    if (!o->clock) {
        sb_puts(out, " not computed (too many units)\n");
        return;
    }
    size_t n = 0;
    for (size_t s = 0; s < p->streams.n; s++) {
        size_t k = 0;
        for (size_t i = 0; i < p->streams.v[s].nunits; i++) {
            int32_t x = p->streams.v[s].units[i];
            if (!comm__overlaps(p, o, cu, x))
                continue;
            sb_puts(out, k++ ? " " : n ? ", " : " ");
            comm__unit_ref(p, x, out);
        }
        if (k)
            sb_printf(out, " (stream %zu)", s);
        n += k;
    }
    sb_puts(out, n ? "\n" : " none\n");
}

void plan_comm_text(const Plan *p, StrBuf *out)
{
    const Graph *g = p->g;
    if (!comm__count(p))
        return;
    CommOrder o;
    comm__order(p, &o);
    sb_puts(out, "collectives (bytes per rank and run: its input in, its result out):\n");
    for (size_t i = 0; i < g->ops.n; i++) {
        if (!comm__is(p, i))
            continue;
        int32_t op = (int32_t)i, u = p->unit_of_op[i];
        const Op *c = &g->ops.v[op];
        int tag = c->stream;
        sb_puts(out, "  ");
        comm__op_ref(g, op, out);
        sb_printf(out, " %s on stream %d", op_info[c->kind].name, p->units.v[u].stream);
        if (tag > 0 && (size_t)tag < g->streams.n && g->streams.v[tag].tag)
            sb_printf(out, " (\"%s\")", g->streams.v[tag].tag);
        int32_t r = comm__consumer(p, u, op);
        if (r < 0) {
            sb_puts(out, ", needed by no later op\n");
        } else {
            sb_puts(out, ", first needed by ");
            comm__unit_ref(p, r, out);
            sb_printf(out, " on stream %d\n", p->units.v[r].stream);
        }
        for (size_t gi = 0; gi < p->gears.n; gi++) {
            int64_t in, bout;
            comm__bytes(p, gi, op, &in, &bout);
            sb_printf(out, "    gear %zu: ", gi);
            comm__text_bytes(out, in, "in");
            sb_puts(out, ", ");
            comm__text_bytes(out, bout, "out");
            sb_putc(out, '\n');
        }
        comm__text_overlaps(p, &o, u, out);
    }
    for (size_t gi = 0; gi < p->gears.n; gi++) {
        int64_t tin = 0, tout = 0;
        for (size_t i = 0; i < g->ops.n; i++) {
            int64_t in, bout;
            if (!comm__is(p, i))
                continue;
            comm__bytes(p, gi, (int32_t)i, &in, &bout);
            tin = tin < 0 || in < 0 ? -1 : tin + in;
            tout = tout < 0 || bout < 0 ? -1 : tout + bout;
        }
        size_t n = comm__count(p);
        sb_printf(out, "  gear %zu total: %zu collective%s, ", gi, n, n == 1 ? "" : "s");
        comm__text_bytes(out, tin, "in");
        sb_puts(out, ", ");
        comm__text_bytes(out, tout, "out");
        sb_putc(out, '\n');
    }
    free(o.clock);
}

void plan_comm_json(const Plan *p, StrBuf *out)
{
    const Graph *g = p->g;
    if (!comm__count(p))
        return;
    CommOrder o;
    comm__order(p, &o);
    sb_puts(out, ",\n \"collectives\":[");
    size_t n = 0;
    for (size_t i = 0; i < g->ops.n; i++) {
        if (!comm__is(p, i))
            continue;
        int32_t op = (int32_t)i, u = p->unit_of_op[i];
        int32_t r = comm__consumer(p, u, op);
        sb_printf(out, "%s{\"op\":%d,\"kind\":\"%s\",\"unit\":%d,\"stream\":%d,\"first_reader_unit\":%d",
                  n++ ? ",\n  " : "\n  ", (int)op, op_info[g->ops.v[op].kind].name, (int)u,
                  p->units.v[u].stream, (int)r);
        const char *key[2] = {"bytes_in", "bytes_out"};
        for (int k = 0; k < 2; k++) {
            sb_printf(out, ",\"%s\":[", key[k]);
            for (size_t gi = 0; gi < p->gears.n; gi++) {
                int64_t b[2];
                comm__bytes(p, gi, op, &b[0], &b[1]);
                sb_printf(out, gi ? ",%lld" : "%lld", (long long)b[k]);
            }
            sb_putc(out, ']');
        }
        sb_puts(out, ",\"overlap_units\":");
        if (!o.clock) {
            sb_puts(out, "null}");
            continue;
        }
        size_t k = 0;
        sb_putc(out, '[');
        for (size_t x = 0; x < p->units.n; x++)
            if (comm__overlaps(p, &o, u, (int32_t)x))
                sb_printf(out, k++ ? ",%zu" : "%zu", x);
        sb_puts(out, "]}");
    }
    sb_puts(out, "]");
    free(o.clock);
}
