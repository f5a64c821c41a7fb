/*
 * interp.h - the module interpreter and the lowering of compiled methods.
 *
 * interp.c runs a script's module-level code abstractly (host mode): ints,
 * floats, strings, tuples, lists, dicts, tensor specs, module instances,
 * config objects. When host code calls a compiled entry (torch.compile'd
 * model or method, cache_compile'd method), the entry's method body is run
 * in trace mode: the same interpreter, but tensor operations append ops to
 * the entry's Graph, and anything that cannot be lowered is a graph-break
 * diagnostic (TNG2xx). Python values are known or "unknown"; only an
 * unknown value that the plan needs is an error.
 *
 * torchlib.c holds the torch library: torch.* / torch.nn.functional.* /
 * torch_npu.* functions, tensor methods, and the nn modules (construction
 * in host mode, lowering of their forward in trace mode).
 *
 * In host mode tensors are values of a scratch "host graph" whose dims are
 * all constants: the same shape inference serves both modes.
 */
#ifndef TNGC_INTERP_H
#define TNGC_INTERP_H

#include "../lint/scan.h"
#include "../../ir/graph.h"

/* ===================================================================== */
/* Objects                                                               */
/* ===================================================================== */

typedef enum ObjKind {
    O_UNKNOWN,     /* not known at compile time; s: why (may be NULL) */
    O_NONE,
    O_BOOL,        /* i */
    O_INT,         /* i */
    O_FLOAT,       /* f */
    O_STR,         /* s, len */
    O_TUPLE,       /* items[0..n) */
    O_LIST,        /* items[0..n) (mutable: shared by reference) */
    O_DICT,        /* items: key, value, key, value, ... (insertion order) */
    O_SLICE,       /* items[0..3): start, stop, step (O_NONE when omitted) */
    O_ELLIPSIS,
    O_DIM,         /* a symbolic int of the current graph: dim */
    O_TENSOR,      /* t */
    O_DTYPE,       /* dtype */
    O_FUNC,        /* a def of the script: func */
    O_BOUND,       /* a def bound to self_obj: func, self_obj */
    O_CLASS,       /* a class of the script: cls */
    O_INST,        /* an instance of a script class (cls) or of a torch class
                    * (s: canonical class name, e.g. "torch.nn.Linear"); attrs */
    O_BUILTIN,     /* a known callable or namespace by canonical name (s):
                    * "torch.add", "torch.nn", "len", "torch.float16" ... */
    O_METHOD,      /* a builtin method s bound to self_obj: tensor.view, list.append */
    O_CONFIG,      /* a CompilerConfig (or a sub-object): cfg, s = field path prefix */
    O_BACKEND,     /* get_npu_backend(...): cfg (may be NULL) */
    O_COMPILED,    /* torch.compile / cache_compile result: comp */
    O_SCOPE,       /* a context manager: s = "stream", "super_kernel", "null"; items
                    * hold its arguments */
    O_RANGE,       /* range(i, stop, step): items hold three O_INT */
} ObjKind;

typedef struct Obj Obj;
typedef struct TensorObj TensorObj;
typedef struct InterpFunc InterpFunc;
typedef struct InterpClass InterpClass;
typedef struct ConfigObj ConfigObj;
typedef struct CompiledObj CompiledObj;

/* Attributes of an instance, in assignment order (state_dict order). */
typedef struct AttrList {
    const char **names;
    Obj **vals;
    size_t n, cap;
} AttrList;

struct Obj {
    ObjKind kind;
    int64_t i;
    double f;
    const char *s;
    size_t len;
    Obj **items;
    size_t n, cap;
    DimId dim;
    DType dtype;
    TensorObj *t;
    InterpFunc *func;
    InterpClass *cls;
    Obj *self_obj;
    AttrList attrs;
    ConfigObj *cfg;
    CompiledObj *comp;
    int32_t node;          /* where it was made, or -1 */
};

/* A tensor. Mutable: in-place updates and npu_wait_tensor change value and
 * waits, and every reference to the object sees the change. */
struct TensorObj {
    Graph *g;              /* the graph its value belongs to (host or entry) */
    int32_t value;         /* value id in g */
    int32_t *waits;        /* npu_wait_tensor: values whose producers later
                            * users of this tensor wait for */
    size_t nwaits;
    int is_param;          /* nn.Parameter (or a module's weight/bias) */
    int is_buffer;         /* register_buffer */
    int requires_grad;
    /* set_dim_gears / mark_static on a host tensor */
    Obj *gears;            /* the dim_gears dict, or NULL */
    int32_t gears_node;
    int marked_static;     /* bit d: dim d static; -1: every dim (mark_static(t)) */
    TensorObj *origin;     /* host tensor this entry value came from (trace mode) */
};

/* ===================================================================== */
/* Calls                                                                 */
/* ===================================================================== */

/* Arguments of a call, evaluated. */
typedef struct CallArgs {
    Obj **pos;
    size_t npos;
    const char **kwnames;
    Obj **kw;
    size_t nkw;
    int32_t node;          /* the call node (for diagnostics) */
    int has_star;          /* *args or **kwargs of unknown contents */
} CallArgs;

/* The argument at position pos or called name; NULL when absent. Marks
 * nothing: callers check for unexpected extra arguments themselves. */
Obj *args_get(const CallArgs *a, size_t pos, const char *name);
/* The keyword argument called name, or NULL. */
Obj *args_kw(const CallArgs *a, const char *name);

typedef struct Interp Interp;

/* ---- helpers the torch library uses (interp.c) ---- */

Obj *obj_new(Interp *I, ObjKind kind);
Obj *obj_unknown(Interp *I, const char *why);
/* An unknown whose cause has been reported: what is computed from it
 * stays quiet (one diagnostic per cause). */
Obj *obj_unknown_reported(Interp *I);
/* 1 when o is such an unknown, or a tuple, list or dict holds one. */
int obj_reported(const Obj *o);
Obj *obj_none(Interp *I);
Obj *obj_bool(Interp *I, int b);
Obj *obj_int(Interp *I, int64_t v);
Obj *obj_float(Interp *I, double v);
Obj *obj_str(Interp *I, const char *s);
Obj *obj_tuple(Interp *I, Obj **items, size_t n);
/* A tensor object for value v of the current graph. */
Obj *obj_tensor(Interp *I, int32_t v);
/* An int that may be symbolic: O_INT when d is constant, else O_DIM. */
Obj *obj_dim(Interp *I, DimId d);
/* d's DimId in the current graph when o is an O_INT or O_DIM; -1 otherwise. */
DimId obj_as_dim(Interp *I, const Obj *o);
/* 1 and *v when o is an int (or bool, or a constant O_DIM). */
int obj_int_value(const Obj *o, int64_t *v);
/* 1 and *v when o is an int or float. */
int obj_num_value(const Obj *o, double *v);
/* The result of an int operation: v, or when overflow is set (the exact
 * result does not fit in int64, which Python's unbounded ints allow) an
 * unknown: TNG205 at node in trace mode, silently (with the reason) in
 * host mode. Every int computation on script values goes through it. */
Obj *obj_int_checked(Interp *I, int overflow, int64_t v, int32_t node);
/* Instance attribute lookup (NULL when absent) and assignment. */
Obj *obj_getattr(const Obj *inst, const char *name);
void obj_setattr(Interp *I, Obj *inst, const char *name, Obj *val);

/* The current graph (the host graph in host mode). */
Graph *interp_graph(Interp *I);
/* 1 while lowering a compiled method. */
int interp_tracing(const Interp *I);
/* The value id of tensor t in the current graph: entry inputs, weights
 * (parameters and buffers, named by their state_dict key) and constants
 * are mapped on first use. -1 (with a diagnostic) when impossible. */
int32_t interp_val(Interp *I, Obj *t, int32_t node);
/* Adds an op to the current graph at node's location, with the current
 * stream and super-kernel scope and the tensors' pending waits as control
 * dependencies. On a shape or dtype error reports TNG206/TNG207 (in host
 * mode too) and returns -1. Returns the op id. */
int32_t interp_op(Interp *I, OpDesc *d, int32_t node);
/* An unknown result for an unsupported construct at node: in trace mode
 * a graph-break diagnostic (rule), in host mode silently. */
Obj *interp_break(Interp *I, int32_t node, RuleId rule, const char *fmt, ...);
/* Calls a callable object (script function, bound method, class, module
 * instance, builtin, compiled entry). */
Obj *interp_call(Interp *I, Obj *callee, CallArgs *a);
/* The AST and source of the script. */
const Ast *interp_ast(const Interp *I);
/* n zeroed bytes, a copy of s[0..n) and a printf, owned by the run and
 * charged to its memory budget (every object, container and string of the
 * interpreter is allocated through these). */
void *interp_alloc(Interp *I, size_t n);
char *interp_strndup(Interp *I, const char *s, size_t n);
char *interp_printf(Interp *I, const char *fmt, ...);

/* ---- the torch library (torchlib.c) ---- */

/*
 * Calls the builtin named name (canonical, e.g. "torch.matmul",
 * "torch.nn.functional.silu", "torch_npu.npu_rms_norm", "torch.nn.Linear"
 * (construction), "torch.ones", "len", "min", "range") with self_obj NULL,
 * or the method name of self_obj (a tensor: "view", "transpose", "npu",
 * "to", "copy_", "size", "shape" is an attribute; a list: "append").
 * Returns NULL when the name is not in the library (the caller reports it).
 */
Obj *torchlib_call(Interp *I, const char *name, Obj *self_obj, CallArgs *a);
/* An attribute of a tensor (shape, dtype, ndim, T, mT) or of a torch
 * module instance; NULL when not known. */
Obj *torchlib_getattr(Interp *I, Obj *obj, const char *name, int32_t node);
/* Calls a torch nn module instance (O_INST with s set): its forward. */
Obj *torchlib_call_module(Interp *I, Obj *inst, CallArgs *a);
/* Applies a binary operator (+ - * / // % ** @ and comparisons) when an
 * operand is a tensor; NULL when neither is. op is the operator's text. */
Obj *torchlib_binop(Interp *I, const char *op, Obj *l, Obj *r, int32_t node);
/* x op= y on a tensor x, res being x op y: updates x in place (see
 * torchlib.c); returns the object that holds the new value. */
Obj *torchlib_augassign(Interp *I, Obj *x, Obj *res, int32_t node);
/* Unary - + ~ on a tensor; NULL when o is not a tensor. */
Obj *torchlib_unop(Interp *I, const char *op, Obj *o, int32_t node);
/* t[index] where index is an int, slice, None, Ellipsis or a tuple of them. */
Obj *torchlib_subscript(Interp *I, Obj *t, Obj *index, int32_t node);
/* t[index] = v (in-place slice assignment); returns 0, or -1 after a diagnostic. */
int torchlib_store_subscript(Interp *I, Obj *t, Obj *index, Obj *v, int32_t node);

/* ===================================================================== */
/* Running a script                                                      */
/* ===================================================================== */

typedef struct InterpResult {
    Graph **entries;       /* the compiled entries called by the script, in call order */
    size_t nentries;
    Arena *arena;          /* the strings the entries point to */
} InterpResult;

/*
 * Runs sf's module-level code and lowers every compiled entry it calls.
 * entry, when not NULL, keeps only the entry of that name ("Model.forward").
 * Diagnostics go to sf->diags. Returns 0, or -1 when an error makes the
 * entries unusable (their diagnostics say why).
 */
int interp_run(ScanFile *sf, const char *entry, InterpResult *out);
void interp_result_free(InterpResult *self);

/* The budget of one run. A script that needs more is stopped with one
 * TNG212 at the statement being interpreted (exit 1), so that no script can
 * exhaust the memory or the time of the machine that plans it. */
#define INTERP_DEFAULT_MAX_MB 512        /* tngc plan/gen/build --max-memory MB */
#define INTERP_DEFAULT_MAX_SECONDS 10    /* --max-time SECONDS */
typedef struct InterpLimits {
    size_t max_mb;         /* MiB of interpreter memory: objects, containers,
                            * strings, call frames, graph growth; 0: default */
    double max_seconds;    /* wall-clock seconds of interpretation; 0: default */
} InterpLimits;

/* interp_run under limits (NULL: the defaults). */
int interp_run_limited(ScanFile *sf, const char *entry, const InterpLimits *limits, InterpResult *out);

#endif
