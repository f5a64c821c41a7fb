/*
 * graph.h - the op graph: what lowering produces from a compiled method and
 * what the planner reads.
 *
 * A Graph is one compiled entry (a torch.compile'd model or method, or a
 * cache_compile'd method). Its ops are in program order, which is a valid
 * topological order. Each op produces one or more SSA values (Val) with a
 * dtype, a layout format and a shape whose dims are symbolic expressions
 * (DimId into Graph.dims): constants, symbols for dynamic input dims, and
 * arithmetic on them. A gear binds every symbol to an int.
 *
 * Everything lives in the graph's arena and arrays; graph_free frees it.
 */
#ifndef TNGC_GRAPH_H
#define TNGC_GRAPH_H

#include "../support/support.h"

#define GRAPH_MAX_DIMS 8      /* rank limit of a tensor */
#define GRAPH_MAX_ATTRS 18    /* int attributes of one op (all_to_all: 2 + 2 per rank of 8) */

/*
 * The size limit every tensor of every graph obeys (the "size invariant",
 * enforced where values are added: graph_add_op, graph_add_input,
 * graph_add_weight, and per gear by the planner): each dim is in
 * [0, GRAPH_MAX_BYTES], and the product of its dims, each counted as at
 * least 1, times the element size is at most GRAPH_MAX_BYTES. 2^48 bytes
 * (256 TiB) is far past any device's or host's memory, and small enough
 * that nothing computed from sizes downstream can overflow int64: a
 * stride, an element index, a product of an index and a stride, a byte
 * offset within a tensor are all below 2^48; a sum of two sizes is below
 * 2^49. The planner bounds each arena (and so every offset in it) the same
 * way (planner/memory.c).
 */
#define GRAPH_MAX_BYTES ((int64_t)1 << 48)

/* ===================================================================== */
/* Checked int64 arithmetic                                              */
/* ===================================================================== */

/* C23's ckd_add/ckd_sub/ckd_mul for int64_t: *r = a op b; returns 1 when
 * the exact result does not fit (*r is then the wrapped value, never to be
 * used), else 0. Every size computation of the compiler goes through them. */
int graph_ckd_add(int64_t *r, int64_t a, int64_t b);
int graph_ckd_sub(int64_t *r, int64_t a, int64_t b);
int graph_ckd_mul(int64_t *r, int64_t a, int64_t b);

/* Checks dims[0..ndim) of esize-byte elements against the size invariant;
 * returns 0 with the tensor's bytes (elements x esize) in *bytes (NULL
 * allowed), or -1 when a dim is negative or the tensor passes the limit. */
int graph_size_check(int ndim, const int64_t *dims, int esize, int64_t *bytes);

/* ===================================================================== */
/* dtypes and formats                                                    */
/* ===================================================================== */

/* X(enum, torch name, bytes) */
#define DTYPES(X) \
    X(F32,  "float32",  4) \
    X(F16,  "float16",  2) \
    X(BF16, "bfloat16", 2) \
    X(I8,   "int8",     1) \
    X(I32,  "int32",    4) \
    X(I64,  "int64",    8) \
    X(BOOL, "bool",     1)

typedef enum DType {
    DT_UNKNOWN,
#define X(e, name, size) DT_##e,
    DTYPES(X)
#undef X
    DT__count
} DType;

/* "float32", ...; "?" for DT_UNKNOWN. */
const char *dtype_name(DType t);
/* Bytes of one element (0 for DT_UNKNOWN). */
int dtype_size(DType t);
/* Short name for dumps: "f32", "f16", "bf16", "i8", "i32", "i64", "b8". */
const char *dtype_short(DType t);
int dtype_is_float(DType t);
/* DT_UNKNOWN when name is not a dtype. Accepts "float32", "float", "half",
 * "float16", "bfloat16", "int8", "int32", "int", "int64", "long", "bool". */
DType dtype_from_torch_name(const char *name);

/* ACL layout formats (aclFormat values): ND is the default; torch_npu's
 * npu_format_cast(t, 29) gives FRACTAL_NZ. */
enum { FMT_NCHW = 0, FMT_NHWC = 1, FMT_ND = 2, FMT_NC1HWC0 = 3, FMT_FRACTAL_Z = 4,
       FMT_FRACTAL_NZ = 29 };
/* "ND", "FRACTAL_NZ", "NCHW", ... or "FORMAT_<n>". */
const char *format_name(int fmt);

/* ===================================================================== */
/* Symbolic dims                                                         */
/* ===================================================================== */

/* An index into Graph.dims. Dims are hash-consed: the same expression has
 * the same id, so two dims are provably equal when their ids are equal.
 *
 * Arithmetic whose result does not fit int64 (a constant or a coefficient
 * that overflows, a division by the constant 0) gives the overflow marker
 * (graph_dim_overflow), and so does any arithmetic on it: it is sticky, so
 * no wrapped value ever stands for a size. It is no constant, no valid
 * attribute, and graph_add_op refuses every op that meets it. */
typedef int32_t DimId;

typedef enum DimKind {
    DIM_CONST,   /* c */
    DIM_SYM,     /* symbol number c (index into Graph.syms); c == -1: the overflow marker */
    DIM_ADD,     /* a + b */
    DIM_SUB,     /* a - b */
    DIM_MUL,     /* a * b */
    DIM_DIV,     /* a // b (floor) */
    DIM_MIN,     /* min(a, b) */
    DIM_MAX,     /* max(a, b) */
} DimKind;

typedef struct DimExpr {
    DimKind kind;
    int64_t c;
    DimId a, b;
} DimExpr;

/* A dynamic input dim. */
typedef struct Sym {
    const char *name;      /* "s0", "s1", ... */
    int input;             /* index into Graph.inputs */
    int dim;               /* which dim of that input */
    int64_t example;       /* its size in the example call */
} Sym;

/* ===================================================================== */
/* Op kinds                                                              */
/* ===================================================================== */

enum {
    OPF_ELEMWISE = 1 << 0,  /* output[i] depends on input[i] only (with broadcasting) */
    OPF_ALIAS    = 1 << 1,  /* no kernel: the output shares input 0's storage */
    OPF_INPLACE  = 1 << 2,  /* writes into input 0's storage; the output is its new version */
    OPF_SOURCE   = 1 << 3,  /* no inputs: graph input or weight */
    OPF_REDUCE   = 1 << 4,  /* reduces over the dims in its attributes */
    OPF_CONTRACT = 1 << 5,  /* matrix product: contracts a dim of its inputs */
    OPF_NOFUSE   = 1 << 6,  /* cannot be inside a super-kernel segment (docs/plan.md) */
    OPF_COLLECTIVE = 1 << 7, /* across the ranks of --world-size (libtngcrt_mpi): no static kernel */
};

#define GRAPH_END INT64_MAX   /* slice: an omitted end */
#define GRAPH_INFER (-1)      /* reshape: the dim inferred from the element count */
#define OP_ANY UINT32_MAX     /* ops.def: no limit / no optional input */

/* A kind's step in a chain of views (ops.def's view column): how the
 * strides of its output follow from its input's (frontend/lower/views.c,
 * planner/strided.c). */
typedef enum ViewStep {
    VIEW_NONE,         /* not a step of a chain of views */
    VIEW_SLICE,        /* x[a:b:s] along attr[0] */
    VIEW_SLICE_DYN,    /* the same with a start from a tensor */
    VIEW_SELECT,       /* x[i] along attr[0]: drops the dim */
    VIEW_PERMUTE,      /* the dims reordered by attr[] */
    VIEW_EXPAND,       /* size-1 dims broadcast (stride 0) */
    VIEW_CONTIGUOUS,   /* the same strides (a no-op in a chain) */
    VIEW_RESHAPE,      /* new sizes over the same elements */
} ViewStep;

/* Whether PyTorch's value of a kind's output is contiguous in memory
 * (ops.def's layout column, frontend/lower/views.c). */
typedef enum Layout {
    LAYOUT_CONTIGUOUS,   /* always: sources, creation ops, products */
    LAYOUT_OF_IN0,       /* when input 0's value is */
    LAYOUT_OF_OPERANDS,  /* when every operand's is (a broadcast one aside) */
    LAYOUT_UNKNOWN,      /* tngc cannot tell (a view, or a copy tngc made) */
} Layout;

/* The kinds, one row each in ops.def (what each kind's inputs, attr[],
 * fattr[] and dtype hold is written there). */
typedef enum OpKind {
#define OP(e, name, flags, in_min, in_max, in_opt, attr_min, attr_max, rule, dtype_rule, rowrule, printer, fusion, op_type, view, layout, swap, acl_form, cpu, cpu_scalar, acl, acl_ts, acl_st, attrs) \
    OP_##e,
#include "ops.def"
#undef OP
    OP__count
} OpKind;

/* A kind's row of ops.def, less its shape rule (private to infer.c). */
typedef struct OpInfo {
    const char *name;      /* dump name */
    unsigned flags;        /* OPF_* */
    uint32_t min_in, max_in;     /* how many inputs (max OP_ANY: no limit) */
    uint32_t optional;     /* inputs from this index on may be absent (-1); OP_ANY: none */
    uint32_t min_attr, max_attr; /* how many int attributes */
    ViewStep view;         /* its step in a chain of views */
    Layout layout;         /* whether its value is contiguous */
    int32_t swap;          /* the kind computing the same with the operands
                            * swapped (x < y is y > x), or -1 */
    const char *attrs;     /* what inputs, attr[], fattr[] and dtype hold */
} OpInfo;

extern const OpInfo op_info[OP__count];

/* ===================================================================== */
/* Values and ops                                                        */
/* ===================================================================== */

/* One SSA value: an output of an op. */
typedef struct Val {
    int32_t op;            /* producer */
    uint16_t idx;          /* which output of it */
    uint8_t ndim;
    uint8_t format;        /* FMT_* */
    DType dtype;
    DimId dims[GRAPH_MAX_DIMS];
    const char *name;      /* the Python name it was bound to, or NULL */
} Val;

typedef struct Op {
    OpKind kind;
    uint32_t line, col;    /* where in the script (1-based) */
    const char *file;      /* the file of line:col when not the script (a module it
                            * imports), else NULL */
    int32_t *in;           /* value ids; -1 for an absent optional input */
    uint32_t nin;
    int32_t out;           /* first output value id */
    uint32_t nout;
    int32_t *ctrl;         /* ops that must finish before this one: npu_wait_tensor,
                            * and earlier readers of a buffer an in-place op writes */
    uint32_t nctrl;
    int32_t ctrl_max;      /* the largest of ctrl[0..nctrl) (kept by graph_add_ctrl) */
    uint8_t *ctrl_explicit; /* per ctrl: 1 when it comes from npu_wait_tensor */
    int64_t attr[GRAPH_MAX_ATTRS];
    uint32_t nattr;
    double fattr[2];
    DType dtype;           /* target dtype (CAST, FULL, softmax, quant outputs) */
    int stream;            /* index into Graph.streams (0: the default stream) */
    int sk;                /* index into Graph.sks, or -1 outside any super kernel */
} Op;

/* ===================================================================== */
/* The graph of one entry                                                */
/* ===================================================================== */

typedef struct GraphInput {
    const char *name;      /* the parameter path: "x", "kv_cache[0]['attn']['key']" */
    int32_t value;         /* its INPUT op's value */
    int64_t example[GRAPH_MAX_DIMS];  /* shape in the example call */
    int is_static;         /* mark_static */
    int32_t final;         /* value written back at the end (in-place updates), or -1 */
} GraphInput;

typedef struct GraphWeight {
    const char *name;      /* state_dict key: "blocks.0.attn_ln.weight" */
    int32_t value;
    int is_buffer;         /* register_buffer; GRAPH_STATE: a plain tensor attribute
                            * the entry writes in place (frontend/lower/state.c), a
                            * buffer that is not in state_dict */
    int32_t final;         /* value written back (in-place updates of a buffer), or -1 */
    /* GRAPH_STATE only: the tensor attribute is state of another compiled
     * entry too, the first that kept it (share_entry, "Model.forward"),
     * whose weight share_name it is there; both NULL otherwise. A program
     * running both bundles makes them hold one copy
     * (tngrt_bundle_share_state). */
    const char *share_entry;
    const char *share_name;
    /* GRAPH_STATE only: its first value is zeros (the attribute was
     * torch.zeros(...), or torch.empty(...), whose contents PyTorch leaves
     * unspecified): a weights file may leave it out, and the bundle starts
     * it at zeros */
    int zeros;
} GraphWeight;

#define GRAPH_STATE 2   /* GraphWeight.is_buffer of a tensor attribute kept as state */

/* Another state_dict key of a weight's tensor (tied parameters:
 * "lm_head.weight" = "model.embed_tokens.weight"). */
typedef struct GraphWeightAlias {
    const char *name;
    int32_t weight;        /* index into Graph.weights */
} GraphWeightAlias;

typedef struct GraphOutput {
    const char *name;      /* "out0", "out1", ... */
    int32_t value;
} GraphOutput;

/* A stream: index 0 is the default stream (tag NULL). */
typedef struct GraphStream {
    const char *tag;
    int64_t priority;
    uint32_t line, col;    /* first npu_stream_switch with this tag */
} GraphStream;

/* A super-kernel scope: the same name is the same super kernel. */
typedef struct GraphSk {
    const char *name;
    const char *options;   /* "key=value:key=value" as written */
    uint32_t line, col;    /* first super_kernel with this name */
} GraphSk;

/* set_dim_gears(input, {dim: values}) for one dim. */
typedef struct GearSpec {
    int input;
    int dim;
    int64_t *values;
    size_t nvalues;
    int sym;               /* the symbol of that dim */
    uint32_t line, col;    /* the set_dim_gears call */
} GearSpec;

typedef enum GearPolicy { GEAR_ZIP, GEAR_PRODUCT } GearPolicy;

/* A shape check the lowering could not decide on symbolic dims: a and b
 * must be equal (or, for DIMCHECK_BCAST, one of them 1). The planner
 * evaluates it in every gear. */
typedef enum DimCheckKind { DIMCHECK_EQ, DIMCHECK_BCAST } DimCheckKind;
typedef struct DimCheck {
    DimCheckKind kind;
    DimId a, b;
    int32_t op;
    const char *what;      /* "dim 0 of the operands of add" */
} DimCheck;

/* Compile options of the entry, from torch.compile / cache_compile and the
 * CompilerConfig. */
typedef struct EntryConfig {
    const char *mode;          /* "max-autotune", "reduce-overhead", "npugraph_ex" */
    int dynamic;               /* -1 not given, 0, 1 */
    int fullgraph;             /* -1 not given, 0, 1 */
    int is_cache;              /* cache_compile */
    int static_kernel;         /* _aclnn_static_shape_kernel */
    const char *build_dir;     /* _aclnn_static_shape_kernel_build_dir, or NULL */
    int single_stream;         /* ge_config.enable_single_stream */
    GearPolicy policy;
    const char *cache_dir;     /* cache_compile(cache_dir=), or NULL */
} EntryConfig;

typedef struct Graph {
    const char *name;          /* "Model.forward" */
    const char *file;          /* the script's path as given */
    uint32_t line, col;        /* the compile call */
    EntryConfig cfg;
    Arena arena;
    VEC(Op) ops;
    VEC(Val) vals;
    VEC(DimExpr) dims;
    VEC(Sym) syms;
    VEC(GraphInput) inputs;
    VEC(GraphWeight) weights;
    VEC(GraphWeightAlias) weight_aliases;
    /* state_dict keys of the compiled module the graph never reads
     * (BatchNorm's num_batches_tracked, parameters of a submodule forward
     * does not call): a weights file may hold them */
    VEC(const char *) unread_keys;
    VEC(GraphOutput) outputs;
    VEC(GraphStream) streams;  /* streams.v[0] is the default stream */
    VEC(GraphSk) sks;
    VEC(GearSpec) gears;
    VEC(DimCheck) checks;
    /* torch.get_default_dtype() while the graph was built (DT_UNKNOWN:
     * float32): the dtype of a float tensor made without one, and of an
     * integer one promoted to float (graph_float) */
    DType default_float;
    StrMap dim_index;          /* hash-consing of dims (internal) */
    StrMap stream_index;       /* stream tag -> index in streams (internal) */
    StrMap sk_index;           /* super-kernel name -> index + 1 in sks (internal) */
    VEC(int32_t) roots;        /* graph_storage_root of vals[0..roots.n) (internal:
                                * filled by graph_add_op and the sources) */
    uint64_t overflows;        /* times dim arithmetic overflowed (graph_add_op
                                * refuses an op during which it grows) */
    StrBuf error;              /* why graph_add_op refused the op it was last
                                * given: one line, "<op>: <message>"; empty
                                * after it added one */
} Graph;

/* ---- building (graph.c) ---- */

/* Initialises an empty graph with the default stream. */
void graph_init(Graph *self, const char *name, const char *file);
/* The graph's default float dtype (Graph.default_float). */
static inline DType graph_float(const Graph *self) { return self->default_float ? self->default_float : DT_F32; }
void graph_free(Graph *self);

DimId graph_dim_const(Graph *self, int64_t c);
/* A new symbol for dim `dim` of input `input`, named "s<n>". */
DimId graph_dim_sym(Graph *self, int input, int dim, int64_t example);
/* The overflow marker (see DimId); counts an overflow. */
DimId graph_dim_overflow(Graph *self);
/* 1 when d is the overflow marker. */
int graph_dim_is_overflow(const Graph *self, DimId d);
/* Arithmetic with constant folding and simplification (x+0, x*1, ...),
 * overflow-checked: the overflow marker when a result or coefficient does
 * not fit int64, or an operand is the marker. */
DimId graph_dim_add(Graph *self, DimId a, DimId b);
DimId graph_dim_sub(Graph *self, DimId a, DimId b);
DimId graph_dim_mul(Graph *self, DimId a, DimId b);
DimId graph_dim_div(Graph *self, DimId a, DimId b);
DimId graph_dim_min(Graph *self, DimId a, DimId b);
DimId graph_dim_max(Graph *self, DimId a, DimId b);
/* 1 and *c set when d is a constant. */
int graph_dim_const_value(const Graph *self, DimId d, int64_t *c);
/* Evaluates d with symbol values symval[0..nsyms) (INT64_MIN = unbound),
 * overflow-checked; returns 0, -2 when a step overflows int64, divides by
 * 0 or d holds the overflow marker, else -1 when it depends on an unbound
 * symbol. */
int graph_dim_eval(const Graph *self, DimId d, const int64_t *symval, int64_t *out);
/* Appends d as text: "4", "s0", "s0*2", "(s0+1)//2", "max(s0,s1)". */
void graph_dim_str(const Graph *self, DimId d, StrBuf *out);
/* 1 when d's value depends on symbol sym. */
int graph_dim_uses_sym(const Graph *self, DimId d, int sym);

/* Adds a graph input (an INPUT op and its value); returns the value id, or
 * -1 (nothing added) when ndim is out of range or its constant dims break
 * the size invariant. */
int32_t graph_add_input(Graph *self, const char *name, DType dt, int format,
                        int ndim, const DimId *dims, const int64_t *example,
                        int is_static, uint32_t line, uint32_t col);
/* Adds a weight (a WEIGHT op and its value; constant dims); returns the
 * value id, or -1 (nothing added) when ndim is out of range or the dims
 * break the size invariant. */
int32_t graph_add_weight(Graph *self, const char *name, DType dt, int ndim,
                         const int64_t *dims, int is_buffer);
/* Records name as another state_dict key of weight index w (a tied
 * parameter); a name already recorded, or a weight's own, is ignored. */
void graph_add_weight_alias(Graph *self, int32_t w, const char *name);
/* Drops the ops from index nops on and the values from nvals on (what an
 * expression whose result nothing uses added last: an assert tngc does not
 * check): the counts of an earlier moment, so that no op kept reads a
 * value dropped. Symbolic dims stay. */
void graph_truncate(Graph *self, size_t nops, size_t nvals);
/* Records name as a state_dict key the graph does not read (the caller
 * leaves out weights' names and aliases, and duplicates). */
void graph_add_unread_key(Graph *self, const char *name);

/* What lowering asks for: an op of `kind` on inputs in[0..nin). */
typedef struct OpDesc {
    OpKind kind;
    const int32_t *in;
    uint32_t nin;
    const int64_t *attr;
    uint32_t nattr;
    double fattr[2];
    DType dtype;
    int stream, sk;
    uint32_t line, col;
    const char *file;      /* the file of line:col when not the script, else NULL */
} OpDesc;

/*
 * Adds an op, inferring its outputs' dtypes, formats and shapes (broadcasting,
 * dtype promotion as PyTorch does). Returns the op id, or -1 with a one-line
 * message in self->error when the operands' shapes or dtypes are invalid
 * for the op (nothing is added then). Checks on symbolic dims that cannot be decided
 * now are appended to self->checks. An op whose size arithmetic overflows,
 * whose attributes hold the overflow marker, or whose outputs break the
 * size invariant (a constant dim, or a lower bound of a symbolic one, past
 * GRAPH_MAX_BYTES) is refused the same way: no wrapped size enters a graph.
 */
int32_t graph_add_op(Graph *self, const OpDesc *d);
/* 1 when kind has a shape rule (ops.def), that is graph_add_op adds it;
 * the sources (OPF_SOURCE) have none. */
int graph_op_has_rule(OpKind kind);
/* Adds c to op's control dependencies (once); explicit marks npu_wait_tensor. */
void graph_add_ctrl(Graph *self, int32_t op, int32_t c, int explicit_wait);
/* The stream with tag (created in order of first appearance); 0 for NULL. */
int graph_stream(Graph *self, const char *tag, int64_t priority, uint32_t line, uint32_t col);
/* The super-kernel scope called name (created on first use). */
int graph_sk(Graph *self, const char *name, const char *options, uint32_t line, uint32_t col);

/* The value whose storage v uses: follows OPF_ALIAS and OPF_INPLACE
 * producers through their input 0 to the value that owns the storage (a
 * graph input or weight, or an op's own buffer); v itself when v owns it.
 * O(1) for the values graph_add_op and the sources added. */
int32_t graph_storage_root(const Graph *self, int32_t v);

/* Appends "f16[s0,1000]" (dtype short name and dims). */
void graph_val_type_str(const Graph *self, int32_t v, StrBuf *out);

#endif
