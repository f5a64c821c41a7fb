/*
 * order.c - happens-before between units as vector clocks stored once per
 * change (order.h). Asking whether unit a happens before unit b is O(1):
 * a's position on its stream against b's clock entry for that stream.
 */
#include "order.h"

#include <string.h>

void plan_order_init(PlanOrder *o, const Plan *self)
{
    size_t n = self->units.n;
    memset(o, 0, sizeof *o);
    o->nstreams = self->streams.n;
    o->stream = xmalloc((n + 1) * sizeof *o->stream);
    o->pos = xmalloc((n + 1) * sizeof *o->pos);
    o->row = xmalloc((n + 1) * sizeof *o->row);
    for (size_t s = 0; s < self->streams.n; s++) {
        const PlanStream *ps = &self->streams.v[s];
        for (size_t k = 0; k < ps->nunits; k++) {
            o->stream[ps->units[k]] = (int32_t)s;
            o->pos[ps->units[k]] = (int32_t)(k + 1);
        }
    }
    for (size_t u = 0; u < n; u++)
        o->row[u] = -1;
}

void plan_order_free(PlanOrder *o)
{
    free(o->stream);
    free(o->pos);
    free(o->row);
    free(o->rows);
    memset(o, 0, sizeof *o);
}

int32_t plan_order_seen(const PlanOrder *o, int32_t u, size_t s)
{
    if ((size_t)o->stream[u] == s)
        return o->pos[u];
    return o->row[u] < 0 ? 0 : o->rows[(size_t)o->row[u] * o->nstreams + s];
}

int plan_order_before(const PlanOrder *o, int32_t a, int32_t b)
{
    return a != b && o->pos[a] <= plan_order_seen(o, b, (size_t)o->stream[a]);
}

const int32_t *plan_order_row(const PlanOrder *o, int32_t r)
{
    return o->rows + (size_t)r * o->nstreams;
}

/* Reports that the clocks of self's schedule pass PLAN_MAX_CLOCK_ENTRIES
 * at unit u. */
static void order__too_many(const PlanOrder *o, const Plan *self, int32_t u, DiagList *diags)
{
    const Graph *g = self->g;
    const PlanUnit *unit = &self->units.v[u];
    const Op *op = &g->ops.v[unit->op >= 0 ? unit->op : self->segs.v[unit->seg].ops[0]];
    diag_at_file(diags, op->line ? op->file : NULL, op->line ? op->line : g->line,
                 op->line ? op->col : g->col, RULE_TNG212,
                 "%s waits for another stream at more than %zu units, the most tngc plans on "
                 "%zu streams (%zu clock entries in all); use fewer streams or fewer waits",
                 g->name ? g->name : "the entry", o->nrows, o->nstreams,
                 (size_t)PLAN_MAX_CLOCK_ENTRIES);
}

int plan_order_push(PlanOrder *o, const Plan *self, int32_t u, const int32_t *clock, DiagList *diags)
{
    size_t w = o->nstreams;
    if ((o->nrows + 1) * w > PLAN_MAX_CLOCK_ENTRIES) {
        order__too_many(o, self, u, diags);
        return -1;
    }
    if (o->nrows == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 64;
        if (o->cap * w > PLAN_MAX_CLOCK_ENTRIES)
            o->cap = PLAN_MAX_CLOCK_ENTRIES / w;
        o->rows = xrealloc(o->rows, o->cap * w * sizeof *o->rows);
    }
    memcpy(o->rows + o->nrows * w, clock, w * sizeof *o->rows);
    o->row[u] = (int32_t)o->nrows++;
    return 0;
}

void plan_order_keep(PlanOrder *o, int32_t u, int32_t last_row)
{
    o->row[u] = last_row;
}
