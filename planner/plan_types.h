/*
 * plan_types.h - the Plan of one entry and its parts, as data: what the
 * passes fill (passes.h), plan_out.c prints and the code generators read.
 * plan.h is the planner's interface (plan_build and the printed forms).
 *
 * A schedule is made of units: a unit is one op, or one super-kernel
 * segment (several ops dispatched at once). Units run on one stream each;
 * the schedule of a stream lists its units in order, with the events it
 * waits for before a unit and records after it. The unit order and events
 * do not depend on the gear; shapes, memory and static kernels do.
 */
#ifndef TNGC_PLAN_TYPES_H
#define TNGC_PLAN_TYPES_H

#include "../ir/graph.h"

/* The name a target gives op (g's op `op`): in static-kernel keys and the
 * plan's "acl" fields. The planner knows no target: the driver passes the
 * code generator's (codegen_op_type) in PlanOptions. */
typedef const char *(*PlanOpType)(const Graph *g, int32_t op);
/* The name a target gives a dtype in static-kernel keys ("float"). */
typedef const char *(*PlanDTypeName)(DType t);

/* What the planner takes from its caller. */
typedef struct PlanOptions {
    PlanOpType op_type;    /* NULL: ops are named by their dump names (op_info) */
    PlanDTypeName dtype_name;  /* NULL: dtypes by their torch names (dtype_name) */
    int64_t handoff_ns;    /* the stream cost model (streams.c): a non-default stream
                            * whose estimated work is below this in every gear runs on
                            * stream 0; 0 (the default): every stream keeps its thread */
    int dense_matmuls;     /* 1: matmuls read dense operands only (user kernels replace
                            * them), no strided views on the CPU target (strided.h) */
} PlanOptions;

/* The CPU target's cost of handing work to another thread and back (ns):
 * what tngc passes as PlanOptions.handoff_ns for the CPU target. */
#define PLAN_HANDOFF_NS 10000

/* The most bytes of constants computed at create (consts.c); the
 * lowering's own limit on the constants it replays is the same. */
#define PLAN_MAX_CONST_BYTES ((int64_t)64 << 20)

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

/* A distinct (op kind, dtypes, formats, shapes, attributes) across all
 * gears: a static-kernel instance. */
typedef struct StaticKernel {
    const char *key;       /* "MatMulV2_float_ND_1_2048_0": manifest file stem, from
                            * the target's op type (PlanOptions) */
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
    int64_t handoff_ns;    /* PlanOptions.handoff_ns */
    int *runs_on;          /* per Graph.streams: the stream its units run on (itself,
                            * or 0 when the cost model keeps it on one thread) */
    int64_t *work_ns;      /* per Graph.streams: estimated work of its ops in its
                            * busiest gear (ns), -1 when a gear's shapes are unknown */
    int *handoffs;         /* per Graph.streams: its runs (maximal sequences of its ops
                            * in program order), a hand-off each */
    int32_t *unit_of_op;   /* per op: its unit */
    int32_t *root;         /* per value: graph_storage_root (values.c) */
    int32_t *last_write;   /* per value: for a storage root, the output of the last op
                            * writing it in place (program order), else -1 (values.c) */
    VEC(PlanMemory) mem;   /* per gear */
    VEC(PlanRowIndep) rowindep;  /* per geared symbol */
    VEC(StaticKernel) kernels;
    int32_t **kernel_of;   /* per gear, per op: its StaticKernel, or -1 (dynamic
                            * gears, sources) */
    uint8_t *const_op;     /* per op: a constant, run once when the bundle is created and
                            * in no unit (consts.c); NULL without consts_at_create */
    int64_t *const_off;    /* per value: offset of its buffer in the constant block, or -1 */
    int64_t const_bytes;   /* size of the constant block */
    size_t nconst;         /* constant ops */
    PlanOpType op_type;    /* the target's op names (PlanOptions); never NULL */
    PlanDTypeName dtype_name;  /* the target's dtype names (PlanOptions); never NULL */
    int strided_views;     /* the CPU target: matmuls read permuted/expanded operands
                            * in place (strided.h) */
    Arena arena;
} Plan;

#endif
