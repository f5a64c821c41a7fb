/*
 * plan.h - the plan of one entry: gears, per-stream schedules with events,
 * super-kernel segments, per-gear memory, row independence of geared dims
 * and static-kernel instances. Built from a Graph by plan_build; printed by
 * plan_out.c (text, JSON, DOT); read by the code generators.
 *
 * A schedule is made of units: a unit is one op, or one super-kernel
 * segment (several ops dispatched at once). Units run on one stream each;
 * the schedule of a stream lists its units in order, with the events it
 * waits for before a unit and records after it. The unit order and events
 * do not depend on the gear; shapes, memory and static kernels do.
 */
#ifndef TNGC_PLAN_H
#define TNGC_PLAN_H

#include "../frontend/diag/diag.h"
#include "../ir/graph.h"

/* A fully or partly static assignment of the graph's symbols. */
typedef struct PlanGear {
    int64_t *symval;       /* per Graph.syms; INT64_MIN when unbound */
} PlanGear;

/* One super-kernel segment: ops of one scope, consecutive in program
 * order, dispatched as one unit. */
typedef struct PlanSegment {
    int sk;                /* Graph.sks index */
    int32_t *ops;
    size_t nops;
    int stream;            /* the stream it runs on (its first op's) */
    const char *split;     /* why the segment ended, e.g. "format_cast cannot be fused",
                            * "third stream", "end of scope"; never NULL */
} PlanSegment;

/* What runs: an op (op >= 0, seg == -1) or a segment (op == -1, seg >= 0). */
typedef struct PlanUnit {
    int32_t op;
    int seg;
    int stream;
    int32_t *wait;         /* events waited for before the unit */
    size_t nwait;
    int32_t *record;       /* events recorded after the unit */
    size_t nrecord;
} PlanUnit;

/* An event: recorded on stream `from` after unit `after`, waited for on
 * stream `to` before unit `before`. */
typedef struct PlanEvent {
    int from, to;
    int32_t after, before; /* PlanUnit indices */
    int explicit_wait;     /* comes from an npu_wait_tensor */
} PlanEvent;

typedef struct PlanStream {
    int32_t *units;        /* PlanUnit indices in execution order */
    size_t nunits;
} PlanStream;

/* Memory of one gear: every value that needs storage of its own gets an
 * offset in one arena; aliases share their source's storage; inputs and
 * weights live outside the arena (offset -1). */
typedef struct PlanMemory {
    int dynamic;           /* sizes depend on unbound symbols: no static arena */
    int64_t arena_bytes;   /* peak with reuse */
    int64_t naive_bytes;   /* sum of all buffers without reuse */
    int64_t *offset;       /* per value: arena offset of its storage (a view or an
                            * in-place op's output: its root buffer's), or -1
                            * (inputs, weights and their views; dynamic gears) */
    int64_t *bytes;        /* per value: bytes of its own buffer (0 for views and
                            * OPF_INPLACE outputs; inputs and weights: their size;
                            * -1 when unknown in this gear) */
    int32_t *inplace_of;   /* per value: value whose buffer it reuses in place, or -1 */
} PlanMemory;

/* Whether padding a geared symbol up to a larger gear leaves the valid rows
 * of every output unchanged. */
typedef struct PlanRowIndep {
    int sym;
    int independent;
    int32_t op;            /* the first op that mixes rows, or -1 */
    const char *why;       /* "sum reduces over it", or NULL */
} PlanRowIndep;

/* A distinct (op, dtypes, formats, shapes, attributes) across all gears. */
typedef struct StaticKernel {
    const char *key;       /* "MatMulV2_float_ND_1_2048_0": manifest file stem */
    int32_t op;            /* first op with this signature */
    OpKind kind;
    int gear;              /* first gear it occurs in */
    int count;             /* op instances across gears with this signature */
    int selected;          /* compiled as a static kernel (not an alias/view) */
} StaticKernel;

typedef struct Plan {
    Graph *g;
    VEC(PlanGear) gears;   /* at least one */
    VEC(PlanSegment) segs;
    VEC(PlanUnit) units;
    VEC(PlanEvent) events;
    VEC(PlanStream) streams;  /* per Graph.streams */
    int32_t *unit_of_op;   /* per op: its unit */
    VEC(PlanMemory) mem;   /* per gear */
    VEC(PlanRowIndep) rowindep;  /* per geared symbol */
    VEC(StaticKernel) kernels;
    int32_t **kernel_of;   /* per gear, per op: its StaticKernel, or -1 (dynamic
                            * gears, sources) */
    Arena arena;
} Plan;

/*
 * Plans g. Errors (invalid gears, a shape check failing in a gear, ...) are
 * appended to diags as diagnostics at their location in ast's file; returns
 * 0, or -1 when an error makes the plan unusable.
 */
int plan_build(Plan *self, Graph *g, DiagList *diags);
void plan_free(Plan *self);

/* ---- the passes (one file each), in the order plan_build runs them ---- */

/* gears.c: validates g->gears and combines them (zip/product), dedup,
 * at most 100, deterministic order; evaluates g->checks per gear. */
int plan_gears(Plan *self, DiagList *diags);
/* segments.c: super-kernel segments. */
void plan_segments(Plan *self, DiagList *diags);
/* streams.c: units, per-stream schedules, events without redundant waits;
 * returns -1 (a bug) if the simulated run deadlocks. */
int plan_streams(Plan *self);
/* memory.c: the arena of each gear; -1 after reporting an arena past
 * GRAPH_MAX_BYTES. */
int plan_memory(Plan *self, DiagList *diags);
/* rowindep.c: row independence of each geared symbol. */
void plan_rowindep(Plan *self);
/* kernels.c: static-kernel instances. */
void plan_kernels(Plan *self);

/* ---- helpers the passes share (plan.c) ---- */

/* "input x" / "weight w" when v's storage belongs to the caller, else NULL. */
const char *plan_caller_storage(Plan *self, int32_t v);
/* Elements of value v in gear `gear`; -1 when a dim is unbound there. */
int64_t plan_val_numel(const Plan *self, int gear, int32_t v);
/* Bytes of value v in gear `gear` (elements x dtype size); -1 when unbound. */
int64_t plan_val_bytes(const Plan *self, int gear, int32_t v);

/* ---- output (plan_out.c) ---- */

/* The stable text dump. */
void plan_text(const Plan *self, StrBuf *out);
/* JSON: one entry object (see docs/plan-format.md). */
void plan_json(const Plan *self, StrBuf *out);
/* The attributes of op as a JSON object by name ({"dim":1,"keepdim":false});
 * shared by the JSON plan and the manifests. */
void plan_op_attrs_json(const Graph *g, int32_t op, StrBuf *out);
/* Graphviz DOT of the op graph: a colour per stream, a cluster per segment. */
void plan_dot(const Plan *self, StrBuf *out);

/* ---- static-kernel manifest (codegen/manifest.c) ---- */

/* Writes seed 000's op-info tree under build_dir (see DESIGN.md); returns
 * 0, or -1 with a one-line reason in err. */
int manifest_write(const Plan *self, const char *build_dir, char *err, size_t errlen);

#endif
