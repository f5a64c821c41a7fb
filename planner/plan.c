/*
 * plan.c - plan_build: runs the planning passes over one Graph, in order,
 * and owns the Plan's memory. The helpers the passes share are values.c.
 *
 * The passes, one file each (passes.h; docs/plan.md explains the
 * algorithms):
 *   gears.c     which assignments of the dynamic dims get compiled
 *   consts.c    the ops run once when the bundle is created (an option)
 *   segments.c  super-kernel segments
 *   streams.c   units, per-stream schedules, events (and order.c: which
 *               unit happens before which, for memory.c)
 *   memory.c    the arena of each gear
 *   rowindep.c  which geared dims may be padded at run time
 *   kernels.c   static-kernel instances
 *
 * Everything a pass allocates lives in the Plan's arena, except the VEC
 * arrays of the Plan itself; plan_free releases both.
 */
#include "plan.h"
#include "passes.h"
#include "values.h"

#include <string.h>

/* Without a target's names: an op is named by its dump name. */
static const char *plan__dump_name(const Graph *g, int32_t op)
{
    return op_info[g->ops.v[op].kind].name;
}

int plan_build(Plan *self, Graph *g, DiagList *diags)
{
    return plan_build_with(self, g, NULL, diags);
}

int plan_build_with(Plan *self, Graph *g, const PlanOptions *opt, DiagList *diags)
{
    return plan_build_for(self, g, opt, 0, diags);
}

int plan_build_for(Plan *self, Graph *g, const PlanOptions *opt, int consts_at_create, DiagList *diags)
{
    memset(self, 0, sizeof *self);
    self->g = g;
    self->op_type = opt && opt->op_type ? opt->op_type : plan__dump_name;
    self->dtype_name = opt && opt->dtype_name ? opt->dtype_name : dtype_name;
    self->handoff_ns = opt ? opt->handoff_ns : 0;
    self->strided_views = consts_at_create && !(opt && opt->dense_matmuls);
    plan_values_init(self);
    if (plan_gears(self, diags) < 0)
        return -1;
    if (consts_at_create)
        plan_consts(self);
    plan_segments(self, diags);
    PlanOrder order = {0};
    int rc = plan_streams(self, &order, diags);
    if (rc == 0)
        rc = plan_memory(self, &order, diags);
    plan_order_free(&order);
    if (rc < 0)
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
