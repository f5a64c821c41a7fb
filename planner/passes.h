/*
 * passes.h - the planning passes, one file each, in the order plan_build
 * (plan.c) runs them; docs/plan.md explains their algorithms. Each fills
 * its part of the Plan (plan_types.h) and may use what earlier passes
 * filled and the value helpers of values.h.
 */
#ifndef TNGC_PASSES_H
#define TNGC_PASSES_H

#include "../frontend/diag/diag.h"
#include "order.h"
#include "plan_types.h"

/* gears.c: validates g->gears and combines them (zip/product), dedup,
 * at most 100, deterministic order; evaluates g->checks per gear. */
int plan_gears(Plan *self, DiagList *diags);
/* consts.c: the ops run once at create (Plan.const_op, const_off,
 * const_bytes); the later passes leave them out like sources. */
void plan_consts(Plan *self);
/* segments.c: super-kernel segments. */
void plan_segments(Plan *self, DiagList *diags);
/* streams.c: units, per-stream schedules, events without redundant waits,
 * and the happens-before order of the units in *order (order.h; the
 * caller frees it); -1 after reporting an entry past PLAN_MAX_STREAMS or
 * PLAN_MAX_CLOCK_ENTRIES (TNG212). */
int plan_streams(Plan *self, PlanOrder *order, DiagList *diags);
/* memory.c: the arena of each gear; -1 after reporting an arena past
 * GRAPH_MAX_BYTES (TNG209) or a placement past PLAN_MAX_PLACE_STEPS
 * (TNG212). */
int plan_memory(Plan *self, const PlanOrder *order, DiagList *diags);
/* rowindep.c: row independence of each geared symbol. */
void plan_rowindep(Plan *self);
/* rowindep.c: 1 when its table has kind's rule (explicit for every kind,
 * "keeps rows independent" included); tests/unit/test_ops.c checks all. */
int plan_rowindep_has_rule(OpKind kind);
/* kernels.c: static-kernel instances, keyed by self->op_type's names. */
void plan_kernels(Plan *self);

#endif
