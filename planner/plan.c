/*
 * plan.c - plan_build: runs the planning passes over one Graph, in order,
 * and owns the Plan's memory; plus the small helpers every pass shares
 * (where a value's storage lives, how big a value is in a gear).
 *
 * The passes, one file each (docs/plan.md explains the algorithms):
 *   gears.c     which assignments of the dynamic dims get compiled
 *   segments.c  super-kernel segments
 *   streams.c   units, per-stream schedules, events
 *   memory.c    the arena of each gear
 *   rowindep.c  which geared dims may be padded at run time
 *   kernels.c   static-kernel instances
 *
 * Everything a pass allocates lives in the Plan's arena, except the VEC
 * arrays of the Plan itself; plan_free releases both.
 */
#include "plan.h"

#include <string.h>

int plan_build(Plan *self, Graph *g, DiagList *diags)
{
    memset(self, 0, sizeof *self);
    self->g = g;
    if (plan_gears(self, diags) < 0)
        return -1;
    plan_segments(self, diags);
    if (plan_streams(self) < 0)
        TNGC_BUG("the stream schedule of %s deadlocks", g->name ? g->name : "?");
    if (plan_memory(self, diags) < 0)
        return -1;
    plan_rowindep(self);
    plan_kernels(self);
    return 0;
}

void plan_free(Plan *self)
{
    VEC_FREE(self->gears);
    VEC_FREE(self->segs);
    VEC_FREE(self->units);
    VEC_FREE(self->events);
    VEC_FREE(self->streams);
    VEC_FREE(self->mem);
    VEC_FREE(self->rowindep);
    VEC_FREE(self->kernels);
    arena_free(&self->arena);
    self->unit_of_op = NULL;
}

int64_t plan_val_numel(const Plan *self, int gear, int32_t v)
{
    const Graph *g = self->g;
    const Val *val = &g->vals.v[v];
    int64_t n = 1;
    for (int d = 0; d < val->ndim; d++) {
        int64_t x;
        if (graph_dim_eval(g, val->dims[d], self->gears.v[gear].symval, &x) < 0 || x < 0)
            return -1;
        /* plan_gears checked the size invariant: a bug if this overflows */
        if (graph_ckd_mul(&n, n, x) || n > GRAPH_MAX_BYTES)
            TNGC_BUG("value %d of %s is past the size limit in gear %d", (int)v,
                     g->name ? g->name : "?", gear);
    }
    return n;
}

int64_t plan_val_bytes(const Plan *self, int gear, int32_t v)
{
    int64_t n = plan_val_numel(self, gear, v), bytes;
    if (n < 0)
        return -1;
    if (graph_ckd_mul(&bytes, n, dtype_size(self->g->vals.v[v].dtype)) || bytes > GRAPH_MAX_BYTES)
        TNGC_BUG("value %d is past the size limit in gear %d", (int)v, gear);
    return bytes;
}

const char *plan_caller_storage(Plan *self, int32_t v)
{
    const Graph *g = self->g;
    int32_t root = graph_storage_root(g, v);
    for (size_t i = 0; i < g->inputs.n; i++)
        if (g->inputs.v[i].value == root)
            return arena_printf(&self->arena, "input %s", g->inputs.v[i].name);
    for (size_t i = 0; i < g->weights.n; i++)
        if (g->weights.v[i].value == root)
            return arena_printf(&self->arena, "weight %s", g->weights.v[i].name);
    return NULL;
}
