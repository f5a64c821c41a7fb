/*
 * plan.h - the planner's interface: plan_build turns a Graph into a Plan
 * (gears, per-stream schedules with events, super-kernel segments, per-gear
 * memory, row independence of geared dims and static-kernel instances; the
 * data is in plan_types.h), and plan_out.c prints it (text, JSON, DOT) for
 * `tngc plan`; the code generators read it.
 */
#ifndef TNGC_PLAN_H
#define TNGC_PLAN_H

#include "../frontend/diag/diag.h"
#include "plan_types.h"

/*
 * Plans g. Errors (invalid gears, a shape check failing in a gear, ...) are
 * appended to diags as diagnostics at their location in ast's file; returns
 * 0, or -1 when an error makes the plan unusable.
 */
int plan_build(Plan *self, Graph *g, DiagList *diags);
/* plan_build with the caller's options (opt NULL: the defaults). */
int plan_build_with(Plan *self, Graph *g, const PlanOptions *opt, DiagList *diags);
/* plan_build_with for a target that runs the constants once, when the
 * bundle is created (consts_at_create: the CPU target; consts.c), rather
 * than on every call. */
int plan_build_for(Plan *self, Graph *g, const PlanOptions *opt, int consts_at_create, DiagList *diags);
void plan_free(Plan *self);

/* 1 when op is a constant: run once when the bundle is created (consts.c). */
int plan_is_const(const Plan *self, int32_t op);
/* 1 when value v's storage is a constant's buffer (the constant block). */
int plan_const_storage(const Plan *self, int32_t v);

/* ---- output (plan_out.c) ---- */

/* The stable text dump. */
void plan_text(const Plan *self, StrBuf *out);
/* The graph part of plan_text: the entry, its symbols, inputs, streams and
 * super kernels, the ops and the outputs, as lowering left them (tngc
 * --dump=graph; no planning needed). */
void plan_graph_text(const Graph *g, StrBuf *out);
/* JSON: one entry object (see docs/plan-format.md). */
void plan_json(const Plan *self, StrBuf *out);

/* plan_json with, last in the entry object, the members extra writes
 * (",\n \"key\":value..."; extra NULL: none): what the planner cannot
 * know, such as the CPU target's fused groups (tngc plan). */
void plan_json_with(const Plan *self, StrBuf *out, void (*extra)(const Plan *, StrBuf *));
/* The collectives of the plan (plan_comm.c): the text section after the
 * events, and the JSON member ",\n \"collectives\":[...]"; nothing when the
 * plan has none. */
void plan_comm_text(const Plan *self, StrBuf *out);
void plan_comm_json(const Plan *self, StrBuf *out);
/* The attributes of op as a JSON object by name ({"dim":1,"keepdim":false});
 * shared by the JSON plan and the manifests. */
void plan_op_attrs_json(const Graph *g, int32_t op, StrBuf *out);
/* Graphviz DOT of the op graph: a colour per stream, a cluster per segment. */
void plan_dot(const Plan *self, StrBuf *out);
/* The n plans of one script (file) as one DOT document: plan_dot's for one,
 * else a cluster per entry, its ids prefixed e<i>_. */
void plan_dot_all(const Plan *plans, size_t n, const char *file, StrBuf *out);
/* 1 when plan_out.c knows the attributes of kind (a row of its table, or
 * its explicit "no attributes"); tests/unit/test_ops.c checks every kind. */
int plan_attrs_known(OpKind kind);

#endif
