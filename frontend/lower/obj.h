/*
 * obj.h - the object model of the lowering stage: what every other file of
 * frontend/lower/ works on.
 *
 * A run (Interp) interprets one script abstractly. Its values are Objs:
 * ints, floats, strings, containers, tensor specs (values of a graph),
 * instances of the script's classes and of torch.nn modules, config
 * objects, compiled entries, unknowns. This header declares them, the run's
 * state, the budget every allocation is charged to, the diagnostics and
 * the "reported unknown" discipline, the trace's view of tensors (host
 * tensors shadowed in the entry graph, ops added to the current graph),
 * call arguments, and THE iterator of Python values (obj_iter).
 *
 * Layering (each file includes only the headers below it):
 *   obj      the object model (this header)
 *   imports  the modules the script imports: search path, loading, switching
 *   torchlib the torch library: lib[], nn modules, tensor operators
 *   pyops    Python's operators on values: arithmetic, comparison, subscripts
 *   pyformat str(), repr(), format() and f-string fields of known values
 *   builtins Python's builtins and the methods of lists and dicts
 *   entry    TorchAir and torch entry points: torch.compile, CompilerConfig,
 *            scopes, compiled entries and their traces
 *   eval     the evaluator: expressions and statements
 *   interp   running a script (the stage's public header, interp.h)
 * The layers below the evaluator call back into it through the two hooks
 * the evaluator installs (interp_call, interp_getattr): a library function
 * may call a Python callable (an nn.Sequential of script modules), and
 * getattr() reads an attribute the way the evaluator does.
 */
#ifndef TNGC_LOWER_OBJ_H
#define TNGC_LOWER_OBJ_H

#include "../lint/scan.h"
#include "../../ir/graph.h"

#include <string.h>
#include <time.h>

/* Limits that keep any script from hanging or exhausting tngc. */
#define INTERP_MAX_STEPS 2000000L   /* statements and loop iterations */
#define INTERP_MAX_DEPTH 64         /* nested calls */
#define INTERP_MAX_ITEMS 100000     /* elements of one container */
#define INTERP_MAX_STR (1u << 20)   /* bytes of one string the script builds (+, *, join,
                                     * replace, format, f-strings, %) */
#define INTERP_MAX_NEST 1000        /* nested expressions and statements, as Python's
                                     * recursion limit: keeps the C stack bounded */
#define SMALL_INT_MIN (-16)          /* ints in [SMALL_INT_MIN, SMALL_INT_MAX) are shared */
#define SMALL_INT_MAX 1024

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
    O_DICT,        /* items: key, value, key, value, ... (insertion order); s:
                    * "collections.OrderedDict" for one, else NULL */
    O_SLICE,       /* items[0..3): start, stop, step (O_NONE when omitted) */
    O_ELLIPSIS,
    O_DIM,         /* a symbolic int of the current graph: dim */
    O_TENSOR,      /* t */
    O_DTYPE,       /* dtype */
    O_FUNC,        /* a def of the script: func */
    O_BOUND,       /* a def bound to self_obj: func, self_obj */
    O_CLASS,       /* a class of the script: cls */
    O_INST,        /* an instance of a script class (cls) or of a torch class
                    * (s: canonical class name, e.g. "torch.nn.Linear"); attrs.
                    * A script subclass of a torch.nn class has both: s once
                    * that class's constructor ran on it (the end of torchlib_modules.c) */
    O_BUILTIN,     /* a known callable or namespace by canonical name (s):
                    * "torch.add", "torch.nn", "len", "torch.float16" ... */
    O_METHOD,      /* a builtin method s bound to self_obj: tensor.view, list.append */
    O_CONFIG,      /* a CompilerConfig (or a sub-object): cfg, s = field path prefix */
    O_BACKEND,     /* get_npu_backend(...): cfg (may be NULL) */
    O_COMPILED,    /* torch.compile / cache_compile result: comp */
    O_SCOPE,       /* a context manager: s = "stream", "super_kernel", "null"; items
                    * hold its arguments */
    O_RANGE,       /* range(i, stop, step): items hold three O_INT */
    O_PARTIAL,     /* functools.partial(func, *args, **kw): self_obj the callable,
                    * items[0..n) the arguments, attrs the keywords */
    O_SET,         /* a set: items[0..n) distinct values in insertion order (mutable:
                    * shared by reference; obj_set_add) */
    O_ITER,        /* iter(x): self_obj the items (an O_LIST), i the next one's index */
} ObjKind;

typedef struct Obj Obj;
typedef struct TensorObj TensorObj;
typedef VEC(uint8_t) ByteVec;
typedef struct InterpFunc InterpFunc;
typedef struct InterpClass InterpClass;
typedef struct ConfigObj ConfigObj;       /* entry.c */
typedef struct CompiledObj CompiledObj;   /* entry.h */
typedef struct Frame Frame;               /* frame.c */
typedef struct Interp Interp;

/* Attributes of an instance, in assignment order (state_dict order). */
typedef struct AttrList {
    const char **names;
    Obj **vals;
    size_t n, cap;
    Obj *view;             /* an instance's __dict__ once read (modelpy.c): a dict
                            * obj_attrs_set keeps equal to the attributes */
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
    Obj *origin;           /* O_UNKNOWN: the unknown it was computed from (a
                            * root: its own origin is NULL), or NULL */
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
    int nonpersistent;     /* register_buffer(..., persistent=False) */
    int requires_grad;
    /* set_dim_gears / mark_static on a host tensor */
    Obj *gears;            /* the dim_gears dict, or NULL */
    int32_t gears_node;
    struct ImpModule *gears_mod;  /* the module gears_node is in (imports.h) */
    int marked_static;     /* bit d: dim d static; -1: every dim (mark_static(t)) */
    TensorObj *origin;     /* host tensor this entry value came from (trace mode) */
    /* aliasing (views.c): a view of a root's storage, or a root */
    TensorObj *base;       /* the root this tensor is a view of, or NULL (a root) */
    int32_t *chain;        /* the view ops (op ids of g) from base's value to this one's */
    int nchain;
    int32_t seen;          /* base->value when value was last computed from it */
    int32_t ambig;         /* node + 1 of the call after which tngc cannot tell whether
                            * this tensor shares PyTorch's storage with base: writing
                            * it, or reading it after base was written, is refused */
    int cow;               /* a copy whose graph value shares a buffer with another
                            * tensor's: cloned before the first in-place store there */
    int nviews;            /* a root: views taken of it */
    int cplx;              /* complex64 of shape S: value is float32 of shape S + [2], the
                            * real and imaginary parts (torchlib_complex.c) */
};

/* A def or lambda of the script. */
struct InterpFunc {
    int32_t node;          /* function_definition or lambda */
    const char *name;
    const char *qualname;
    InterpClass *cls;      /* defined in this class's body */
    Frame *closure;
    Obj **defaults;        /* per parameter, NULL when none */
    size_t nparams;
    int decorated;
    char binding;          /* 's' staticmethod, 'c' classmethod, 'p' property, 0 a method */
    struct ImpModule *mod; /* the module whose code it is (imports.h); NULL: the script */
};

/* A class of the script. */
struct InterpClass {
    const char *name;
    int32_t node;
    InterpClass *base;     /* a script base class, or NULL */
    const char *base_name; /* canonical name of a library base ("torch.nn.Module") */
    AttrList attrs;        /* methods and class variables */
    /* @dataclasses.dataclass: its fields, the bases' first (fields[0..nfields)),
     * each one's default (NULL: none; a dataclasses.field() object: its
     * default or default_factory); dataclass_init: the __init__ is generated */
    const char **fields;
    Obj **field_defaults;
    size_t nfields;
    int dataclass_init;
    /* collections.namedtuple / typing.NamedTuple: calling it makes a tuple
     * of the fields (named, the class in the tuple's cls) */
    int namedtuple;
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
/* t.device of any tensor: tngc runs a compiled method on one device, so
 * every tensor's device is one object, "npu:0". It equals itself and is
 * not None; compared with anything else (a torch.device(...) of the
 * script, a string) the result is not known. NULL (unknown) in a rank of
 * --world-size N > 1, whose device index tngc does not know. */
Obj *obj_tensor_device(Interp *I);

/* 1 when any argument of a call is (or holds) an unknown value. */
int args_unknown(const CallArgs *a);

/* ===================================================================== */
/* The run's state                                                       */
/* ===================================================================== */

/* A host tensor read while tracing, and the entry-graph tensor for it. */
typedef struct Shadow {
    TensorObj *host;
    Obj *obj;              /* the entry-graph tensor */
    int32_t initial;       /* its value at the start of the trace */
    int input;             /* GraphInput index, or -1 */
    int weight;            /* GraphWeight index, or -1 */
} Shadow;

/* Another state_dict key of a host tensor (Interp.weight_aliases). */
typedef struct WeightAlias {
    const char *key;       /* the tensor's "%p", as in Interp.weight_names */
    const char *name;
} WeightAlias;

/* npu_wait_tensor(a, b) while tracing. */
typedef struct WaitEdge {
    int32_t value;         /* later users of this value ... */
    int32_t waits_for;     /* ... wait for the producer of this one */
} WaitEdge;

/* An op that reads a storage root (obj.c, the ordering of in-place writes). */
typedef struct WarRead {
    int32_t op;
    int32_t root;          /* graph_storage_root of what it reads */
    int32_t prev;          /* the previous read of root (index in war_reads), or -1 */
    int32_t write;         /* 1: op is an in-place write into root that has its edges */
} WarRead;

/* A selection of rows by data: torch.where(condition) with one argument
 * (rowsel.c, torchlib_rowsel.c). */
typedef struct RowSel {
    int32_t mask;          /* bool [N]: the condition's rows PyTorch selects */
    int32_t rows, cols;    /* the index tensors torch.where returned (cols -1: a 1-D condition) */
    DimId n, k;            /* the condition's dims (k: 0 for a 1-D condition) */
    int32_t node;          /* the torch.where call */
} RowSel;

/* One run. The fields are grouped by the file that owns them; every file
 * of the stage reads the trace state and the budget. */
struct Interp {
    ScanFile *sf;
    const Ast *ast;
    Arena arena;           /* objects */
    Graph host;
    Graph *g;              /* current graph */
    /* the evaluator (eval.c) */
    Obj *(*call)(Interp *I, Obj *callee, CallArgs *a);              /* interp_call */
    Obj *(*getattr)(Interp *I, Obj *o, const char *name, int32_t node);  /* interp_getattr */
    void (*setattr)(Interp *I, Obj *o, const char *name, Obj *val, int32_t node);  /* interp_setattr */
    Frame *globals;
    Obj *ret;              /* value of the last return */
    int32_t ret_node;      /* the last return statement run, or -1 */
    long steps;
    int depth;
    int nest;              /* eval/exec nesting, all calls together */
    size_t skipped;        /* host code skipped that may change objects (eval.c's skip_code) */
    uint32_t cut_while;    /* the line of the first host 'while' ended on an unknown, or 0 */
    Obj *unk_seen;         /* the first unknown an expression's operands gave (eval.c) */
    uint64_t unk_made;     /* unknowns made so far: an unknown's i is its number */
    VEC(Frame *) frames;   /* the kept frames */
    /* compiled entries (entry.c) */
    const char *only_entry;    /* --entry: every entry is traced, only this one is kept */
    VEC(Graph *) entries;
    VEC(CompiledObj *) compiled;
    VEC(ConfigObj *) configs;  /* their field lists are freed at the end */
    /* torch.distributed (torchlib_dist.c): the ranks of the process group
     * (1: no process group) and the rank this run is */
    int world_size, rank;
    /* trace state */
    int tracing;
    Obj *trace_self;       /* the module (or instance) the trace runs forward of */
    /* host code a trace runs (a tensor attribute created on the first
     * call, modelpy.c): lazy_stale is set when it read a host tensor the
     * trace has written in place */
    int lazy_body, lazy_stale;
    int stream, sk;
    VEC(Shadow) shadows;
    VEC(WaitEdge) waits;
    /* the ordering of in-place writes (obj.c): the reads of each storage
     * root of graph war_g, in program order, chained per root from
     * war_last[root]; an in-place write waits for the reads since the
     * previous write of its root (earlier ones precede that write) */
    const Graph *war_g;
    size_t war_scanned;    /* ops of war_g entered into war_reads so far */
    int32_t war_writer;    /* the write given its edges last, -1: none */
    int32_t *war_last;     /* per value id: its last read as a root, -1: none */
    size_t war_nlast;
    VEC(WarRead) war_reads;
    VEC(int32_t) war_edges;  /* scratch: one write's edges */
    size_t war_bytes;      /* of these tables, charged */
    /* aliasing (views.c): per graph, 1..255 for a value an in-place write
     * replaced (stale: no op may read it); the copy-on-write tensors; the
     * writes so far */
    ByteVec stale_host, stale_entry;
    /* complex tensors (torchlib_complex.c): > 0 while its lowerings read
     * the float pairs of one; interp_val refuses every other reader */
    int cplx_ok;
    /* rows selected by data (rowsel.c): the selections of the trace; the
     * tag of each value of the entry graph (1 + index into rowsels, 0:
     * none); the tagged values read since an op last consumed them; > 0
     * while torchlib_rowsel.c emits its own ops (not checked, not tagged);
     * torch._dynamo.config.capture_dynamic_output_shape_ops as the script
     * set it */
    VEC(RowSel) rowsels;
    VEC(int) rowtag;
    VEC(int32_t) rowsel_reads;
    int rowsel_emit;
    int capture_dyn;
    /* torch.set_default_dtype (modelpy.c): the default float dtype of the
     * graphs made from now on (DT_UNKNOWN: float32) */
    DType default_float;
    VEC(TensorObj *) cows;
    size_t nwrites;
    /* memory layouts (views.c): nonstd_layout is set once the script asked
     * for a memory format other than the contiguous one (channels_last):
     * from then on only products count as contiguous; layout_unknown holds
     * the entry graph's inputs whose host tensor was not known contiguous
     * (a view, a value of unknown layout) */
    int nonstd_layout, nonstd_at_trace;   /* the latter: as the trace began */
    VEC(int32_t) layout_unknown;
    StrMap weight_names;   /* "%p" of a host TensorObj -> state_dict key */
    StrMap lib_training;   /* "%p" of a library module -> 1 + its training flag, once set */
    /* the other state_dict keys of a parameter or persistent buffer reachable
     * under two names (tied weights): key is its "%p" as in weight_names */
    VEC(WeightAlias) weight_aliases;
    /* every state_dict key of the compiled module (parameters and
     * persistent buffers, tied keys too): those no graph weight reads
     * become Graph.unread_keys */
    VEC(const char *) state_keys;
    /* plain tensor attributes that a compiled entry keeps as state
     * (state.c): the host tensor and the entry graph */
    VEC(struct StateAttr) states;
    VEC(struct StateAttr) state_reads;   /* tensor attributes each trace read */
    int nconst;
    /* constant tensors (obj.c, interp_trace_in): host values whose data
     * tngc does not know (randn, empty, an unknown method on the tensor),
     * the values of the parameters and persistent buffers of the traced
     * module, and per host value the entry value a trace replayed it to
     * (-1: not yet), with the bytes replayed so far */
    VEC(int32_t) host_inexact;
    VEC(int32_t) host_unspec;  /* of those, torch.empty's: contents PyTorch leaves unspecified */
    VEC(int32_t) weight_vals;
    int32_t *const_map;
    size_t const_map_n;
    uint64_t const_bytes;
    /* the budget */
    int aborted;           /* a limit was hit: stop everything */
    size_t bytes;          /* charged so far */
    size_t max_bytes;
    size_t host_graph_bytes, entry_graph_bytes;  /* graph growth charged */
    double max_seconds;
    struct timespec start;
    size_t work;           /* units of work since the clock was last read */
    int32_t at;            /* the statement being interpreted (where a stop is reported) */
    /* shared immutable objects and strings: a statement run a million times
     * allocates nothing for its names, literals, None, booleans, small ints */
    const char **node_strs;    /* per AST node: its text, copied once */
    Obj **literals;            /* per AST node: its literal's object */
    Obj *none, *bools[2];
    Obj *device;               /* a tensor's .device (obj_tensor_device) */
    Obj *unknown;              /* the unknown of host code, reason NULL (see obj_unknown) */
    Obj *no_kw[1];             /* the keyword arguments of calls without any */
    const char *no_kwnames[1];
    Obj *small_ints[SMALL_INT_MAX - SMALL_INT_MIN];
    StrMap builtins;           /* canonical name -> O_BUILTIN */
    /* the modules the script imports (imports.c): the one being run; the
     * file of its code when not the script (its diagnostics say so) */
    struct Imports *imports;
    struct ImpModule *mod;
    const Source *src;
};

/* Calls a callable object (script function, bound method, class, module
 * instance, builtin, compiled entry): the evaluator's dispatch. */
Obj *interp_call(Interp *I, Obj *callee, CallArgs *a);
/* o.name as the evaluator reads it (instances, classes, modules, tensors,
 * configs, compiled entries). */
Obj *interp_getattr(Interp *I, Obj *o, const char *name, int32_t node);
/* o.name = val as the evaluator does it (instances, configs, compiled
 * entries; nothing for other objects). */
void interp_setattr(Interp *I, Obj *o, const char *name, Obj *val, int32_t node);

/* ===================================================================== */
/* Memory and the budget                                                 */
/* ===================================================================== */

/* n zeroed bytes, a copy of s[0..n) and a printf, owned by the run and
 * charged to its memory budget (every object, container and string of the
 * interpreter is allocated through these). */
void *interp_alloc(Interp *I, size_t n);
char *interp_strndup(Interp *I, const char *s, size_t n);
char *interp_printf(Interp *I, const char *fmt, ...);
/* Charges n bytes to the memory budget (a stop, TNG212, past it). */
void interp_charge(Interp *I, size_t n);
/* Gives back n bytes charged before (a frame freed). */
void interp_uncharge(Interp *I, size_t n);
/* Counts units of work (a statement, a comparison, an element visited) and
 * reads the clock every few thousand of them (a stop past the time limit). */
void interp_work(Interp *I, size_t units);
/* Charges the growth of the current graph since the last call. */
void interp_charge_graph(Interp *I);
/* Stops the whole run at a limit (TNG212 at node). */
void interp_limit(Interp *I, int32_t node, const char *what);
/* Whether a string of n bytes may be made (INTERP_MAX_STR at most): 1, or
 * 0 after stopping the run (TNG212 at node naming what made it). Every
 * operation that builds a string asks before it allocates. */
int interp_str_fits(Interp *I, int32_t node, size_t n, const char *what);
/* Appends s[0..n) to out when out stays within INTERP_MAX_STR: 1, or 0
 * after stopping the run as interp_str_fits does (out unchanged). */
int interp_str_put(Interp *I, StrBuf *out, const char *s, size_t n, int32_t node, const char *what);

/* ===================================================================== */
/* Making and reading objects                                            */
/* ===================================================================== */

Obj *obj_new(Interp *I, ObjKind kind);
/* An unknown; why (may be NULL) says why. Host code's unknowns without a
 * reason are one shared object (see obj_stored). */
Obj *obj_unknown(Interp *I, const char *why);
/* An unknown whose cause has been reported: what is computed from it
 * stays quiet (one diagnostic per cause). */
Obj *obj_unknown_reported(Interp *I);
/* 1 when o is an unknown whose cause has been reported. */
int obj_is_reported(const Obj *o);
/* o's cause has been reported: values computed from it stay quiet. */
void obj_mark_reported(Interp *I, Obj *o);
/* The unknown result of an operation on x: reported when x was, so that
 * -n, not n, n and m ... of a reported unknown stay quiet. */
Obj *obj_unknown_from(Interp *I, const Obj *x);
/* r, an unknown computed while cause (an unknown) was an operand: r made
 * from cause's root, so that reporting one silences both (one diagnostic
 * per cause). r itself when it already has a cause or is cause's root; the
 * root when r is host code's shared unknown (nothing allocated). */
Obj *obj_unknown_link(Interp *I, Obj *r, Obj *cause);
/* While tracing, when a diagnostic TNG205 was reported since there were
 * ndiag (an op's argument not known: a size, a dim): the unknowns o is or
 * holds are its cause, reported now, and later uses stay quiet. */
void obj_mark_reported_since(Interp *I, Obj *o, size_t ndiag);
/* 1 when o is such an unknown, or a tuple, list or dict holds one. */
int obj_reported(const Obj *o);
/* 1 when o is unknown, or a tuple/list holding an unknown item. */
int obj_has_unknown(const Obj *o);
Obj *obj_none(Interp *I);
Obj *obj_bool(Interp *I, int b);
Obj *obj_int(Interp *I, int64_t v);
Obj *obj_float(Interp *I, double v);
Obj *obj_str(Interp *I, const char *s);
Obj *obj_tuple(Interp *I, Obj **items, size_t n);
/* A named tuple (torch.return_types.topk, ...): a tuple of items whose
 * fields are also attributes names[i] (its attrs; getattr reads them). */
Obj *obj_named_tuple(Interp *I, Obj **items, const char *const *names, size_t n);
/* An empty tuple, list or dict. */
Obj *obj_seq(Interp *I, ObjKind kind);
/* A new tuple, list or dict holding items[0..n) (copied). */
Obj *obj_seq_of(Interp *I, ObjKind kind, Obj *const *items, size_t n);
/* What a variable, attribute or container keeps of x: its own unknown
 * instead of the shared one. */
Obj *obj_stored(Interp *I, Obj *x);
/* Appends x to a tuple, list or dict (as stored). */
void obj_push(Interp *I, Obj *seq, Obj *x);
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
/* A bool argument: o's truth when an int or bool, else (absent too) def. */
int obj_flag(const Obj *o, int def);
/* 1 when o is the string s. */
int obj_is_str(const Obj *o, const char *s);
/* Python truthiness: 1 true, 0 false, -1 unknown. */
int obj_truth(Interp *I, const Obj *o);
/* Equality of two known Python values: 1, 0, or -1 unknown. */
int obj_eq(Interp *I, const Obj *a, const Obj *b);
/* Instance attribute lookup (NULL when absent) and assignment. */
Obj *obj_getattr(const Obj *inst, const char *name);
void obj_setattr(Interp *I, Obj *inst, const char *name, Obj *val);
/* Sets name in an attribute list (an instance's, a class's). */
void obj_attrs_set(Interp *I, AttrList *l, const char *name, Obj *val);
/* A torch.nn module instance (nn.Sequential, nn.Linear, ...). */
int obj_is_torch_module(const Obj *o);
/* An nn.ModuleList, nn.Sequential or nn.ParameterList: a module that holds
 * items; also an instance of a script subclass of one whose constructor ran
 * (its items are the container's). */
int obj_is_module_seq(const Obj *o);
/* An nn.ModuleDict or nn.ParameterDict: its modules (parameters) are its
 * attributes, in insertion order. */
int obj_is_module_dict(const Obj *o);
/* An instance of a script class derived (directly or through script bases)
 * from a torch.nn module class: nn.Module, nn.Linear, ... */
int obj_is_script_module(const Obj *o);

/* Small predicates of the library code (a NULL o is none of them, but None). */
static inline int is_tensor(const Obj *o) { return o && o->kind == O_TENSOR; }
static inline int is_unknown(const Obj *o) { return o && o->kind == O_UNKNOWN; }
static inline int is_none(const Obj *o) { return !o || o->kind == O_NONE; }
static inline int is_seq(const Obj *o) { return o && (o->kind == O_TUPLE || o->kind == O_LIST); }
static inline int streq(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }
/* The reason of an unknown made by a name of a module not found on the
 * search path (imports.c): using it in a graph is TNG202, not TNG205. */
#define OBJ_EXTERNAL_REASON "from the external module "
static inline int obj_is_external(const Obj *o)
{
    return o && o->kind == O_UNKNOWN && o->s && strncmp(o->s, OBJ_EXTERNAL_REASON, sizeof OBJ_EXTERNAL_REASON - 1) == 0;
}
/* The unknown of a value tngc does not evaluate (no reason given). */
static inline Obj *unk(Interp *I) { return obj_unknown(I, NULL); }

/* ---- containers ---- */

/* Index key of a tuple or list (negative from the end): 1 and *out. */
int obj_seq_index(const Obj *seq, Obj *key, size_t *out);
/* dict lookup: the value index, or -1 (absent), -2 (undecidable). */
long obj_dict_find(Interp *I, const Obj *d, const Obj *key);
/* d[key] = val. */
void obj_dict_set(Interp *I, Obj *d, Obj *key, Obj *val);
/* A list or dict changed in a way tngc cannot follow becomes an unknown in
 * place (every reference sees it); while tracing, what it became unknown
 * from (cause, else the container) is reported at node (TNG205). */
void obj_forget(Interp *I, Obj *o, Obj *cause, int32_t node, const char *what);
/* Item k of range(a, _, st): in range, so exact in two's complement. */
int64_t obj_range_at(int64_t a, int64_t st, uint64_t k);

/* How obj_iter iterates. */
typedef enum IterMode {
    ITER_EXPAND,   /* a builtin's argument (list(x), sum(x), zip(...)): the items as
                    * they are; NULL past INTERP_MAX_ITEMS (a string or a range) */
    ITER_LOOP,     /* the evaluator's loops and unpacking: items read into the trace
                    * (interp_trace_in) and stored; a range past INTERP_MAX_ITEMS
                    * stops the run (TNG212); a string has any length (1 MiB at most) */
} IterMode;

/* The ints of range r: 1 with its start, step and count; 0 when its step
 * is 0 or, per mode, it has too many (past INTERP_MAX_ITEMS: a loop's stop
 * is TNG212 at node). */
int obj_range(Interp *I, const Obj *r, int32_t node, IterMode mode, int64_t *start, int64_t *step,
              uint64_t *count);
/*
 * THE iterator of Python values: the items of a known iterable as a new
 * list (a tuple's or list's items, a dict's keys, a string's characters, a
 * range's ints, an nn.ModuleList's or nn.Sequential's modules); NULL when
 * o is not one of those (unknown, a tensor: see builtins_iter) or, per
 * mode, too large.
 */
/* Adds x to the set s unless it holds an equal value: 1 added, 0 not. */
int obj_set_add(Interp *I, Obj *s, Obj *x);
Obj *obj_iter(Interp *I, Obj *o, int32_t node, IterMode mode);

/* ---- script functions and classes ---- */

/* The parameters node of a def or lambda. */
int32_t obj_func_params(Interp *I, int32_t def);
/* Name of a parameter node (identifier, typed, default, splats); *kind:
 * 0 normal, 1 *args, 2 **kwargs, 3 bare * or /. */
const char *obj_param_name(Interp *I, int32_t p, int *kind);
/* The method name of cls or a base (and the class that defines it). */
InterpFunc *obj_class_method(InterpClass *cls, const char *name, InterpClass **owner);
/* A class attribute (method or class variable) of cls or a base. */
Obj *obj_class_attr(InterpClass *cls, const char *name);

/* ===================================================================== */
/* Library names                                                         */
/* ===================================================================== */

/* The library object named path (an import, a builtin's name): one shared
 * object per name, its canonical name in s (TorchAir's paths folded, see
 * alias_torchair_name). */
Obj *obj_builtin(Interp *I, const char *path);
/* The library object base.name. */
Obj *obj_builtin_attr(Interp *I, const char *base, const char *name);

/* ===================================================================== */
/* The syntax tree                                                       */
/* ===================================================================== */

/* Node n of the script. */
static inline const Node *N(const Interp *I, int32_t n) { return &I->ast->nodes[n]; }
/* The i-th named child of n, or -1. */
static inline int32_t child(const Interp *I, int32_t n, int i) { return ast_named_child(I->ast, n, i); }
/* The text of node n (an identifier, an operator), copied once per node. */
const char *interp_node_str(Interp *I, int32_t n);
/* The operands (AST nodes) and operators of comparison node n, max of each
 * at most ("is not", "not in" as one operator): the operand count, the
 * operator count in *nops. */
int interp_comparison_parts(Interp *I, int32_t n, int32_t *operands, const char **ops, int max, int *nops);

/* Named children that are not comments. */
#define FOR_CHILDREN(I, n, c) \
    for (int32_t c = N(I, n)->first; c >= 0; c = N(I, c)->next) \
        if ((N(I, c)->flags & NODE_NAMED) && N(I, c)->kind != NK_comment)

/* ===================================================================== */
/* Diagnostics                                                           */
/* ===================================================================== */

/* A diagnostic at node (none after a stop). */
void interp_diag(Interp *I, int32_t node, RuleId rule, const char *fmt, ...);
/* An unknown result for an unsupported construct at node: in trace mode
 * a graph-break diagnostic (rule), in host mode silently. */
Obj *interp_break(Interp *I, int32_t node, RuleId rule, const char *fmt, ...);
/* While tracing, an unknown value that flows into the graph is an error
 * (TNG205) the first time: nothing may be skipped silently. Returns 1 when
 * o is unknown (reported now or before). */
int interp_need(Interp *I, Obj *o, int32_t node, const char *what);
/* " (it comes from line N)": where unknown o (or the value it was
 * computed from) was made, when that is not node's line; else "". */
const char *interp_unknown_origin(Interp *I, const Obj *o, int32_t node);

/* ===================================================================== */
/* Graphs and the trace                                                  */
/* ===================================================================== */

/* The current graph (the host graph in host mode). */
Graph *interp_graph(Interp *I);
/* 1 while lowering a compiled method. */
int interp_tracing(const Interp *I);
/* The AST and source of the script. */
const Ast *interp_ast(const Interp *I);
/* The shadow of host tensor host in this trace, or NULL. */
Shadow *interp_shadow_find(Interp *I, const TensorObj *host);
/* Host tensors read while tracing become entry-graph tensors (weights,
 * constants; inputs are bound by the entry). */
Obj *interp_trace_in(Interp *I, Obj *o, int32_t node);
/* Constant tensors: a host tensor that is no parameter and no persistent
 * buffer, computed by known ops from constants only (arange, full, pow,
 * outer, cat, cos, triu, ...: no data tngc does not know, no parameter or
 * persistent buffer of the traced module), enters a trace as the same ops
 * replayed into the entry graph, not as a weight. interp_host_inexact marks
 * t's current host value as data tngc does not know (host mode only);
 * interp_consts_begin starts a trace; interp_consts_end ends it, reporting
 * a constant the trace updated in place (TNG211) at node. */
void interp_host_inexact(Interp *I, const Obj *t);
/* interp_host_inexact for torch.empty(...) and its relatives, whose
 * contents PyTorch leaves unspecified (a FULL of zeros is one of them). */
void interp_host_unspecified(Interp *I, const Obj *t);
/* State (state.c): a plain tensor attribute of a module (neither parameter
 * nor buffer) that the compiled method writes in place keeps its values
 * between calls in PyTorch. interp_state_adopt makes t, the constant shadow
 * of such an attribute about to be written, a buffer of the entry named by
 * its attribute path (GraphWeight.is_state); 0 when t is not one (or
 * cannot be made one: the write goes on as before). interp_state_check
 * refuses (TNG211, 1) a host tensor that another entry keeps as state;
 * interp_state_after_call marks the state of entry graph g as data host
 * code does not know after a call. */
typedef struct StateAttr {
    TensorObj *host;
    const Graph *g;
    const char *name;
} StateAttr;
int interp_state_adopt(Interp *I, TensorObj *t, int32_t node);
/* Before an in-place op reads tensor x to compute what it writes (x op= y,
 * or method when it is an in-place method X_): interp_state_adopt on x. */
void interp_state_write(Interp *I, Obj *x, const char *method, int32_t node);
int interp_state_check(Interp *I, const TensorObj *host, int32_t node);
/* 1 when host, a tensor attribute the current entry keeps as state, may be
 * written although host code holds views of it: no view of it entered the
 * trace (views.c); interp_state_view_check refuses (TNG211, 1) host, a
 * host view of such an attribute, entering the trace. */
int interp_state_alone(Interp *I, const TensorObj *host);
int interp_state_view_check(Interp *I, const TensorObj *host, int32_t node);
/* Notes that the current trace reads host tensor host (interp_trace_in). */
void interp_state_note(Interp *I, TensorObj *host);
void interp_state_after_call(Interp *I, const Graph *g);
void interp_consts_begin(Interp *I);
void interp_consts_end(Interp *I, int32_t node);
/* The value id of tensor t in the current graph: entry inputs, weights
 * (parameters and buffers, named by their state_dict key) and constants
 * are mapped on first use. -1 (with a diagnostic) when impossible. */
int32_t interp_val(Interp *I, Obj *t, int32_t node);
/* Adds an op to the current graph at node's location, with the current
 * stream and super-kernel scope and the tensors' pending waits as control
 * dependencies. On a shape or dtype error reports TNG206/TNG207 (in host
 * mode too) and returns -1. Returns the op id. */
int32_t interp_op(Interp *I, OpDesc *d, int32_t node);
/* Forgets the ops of the current graph from nops on, before graph_truncate
 * drops them (the ordering of in-place writes reads the graph's ops). */
void interp_ops_forget(Interp *I, size_t nops);
/* interp_op of an op given by its fields; returns its id or -1. */
int32_t interp_emit(Interp *I, OpKind kind, const int32_t *in, uint32_t nin, const int64_t *attr,
                    uint32_t nattr, double f0, double f1, DType dt, int32_t node);

/* ===================================================================== */
/* Views and in-place writes (views.c)                                   */
/* ===================================================================== */

/* The stale values and the reads of views (interp_stale, views_mark_stale,
 * views_current, views_replay) are obj.c's: interp_op and interp_val use
 * them. */
/* 1 (after TNG211) when value v was replaced by an in-place write into its
 * storage: something still holds it through an alias tngc does not track. */
int interp_stale(Interp *I, int32_t v, int32_t node);
/* Value v (of the current graph) was replaced by an in-place write. */
void views_mark_stale(Interp *I, int32_t v);
/* A trace starts: its stale values and copy-on-write tensors are reset. */
void views_trace_begin(Interp *I);
/* The value of view t, recomputed from its root when the root was written
 * since (interp_val calls it on every read). */
int32_t views_current(Interp *I, TensorObj *t, int32_t node);
/* View op opid of the current graph applied again, to value x: the new
 * value, or -1. */
int32_t views_replay(Interp *I, int32_t opid, int32_t x, int32_t node);
/* After library function or method `name` (args[0]: self or the first
 * argument) returned res (a tensor, or a tuple or list of them): marks
 * what PyTorch returns as a view of args[0] as one (or, where tngc cannot
 * tell, as ambiguous: later writes refused). views_of: res is a view of src
 * (basic indexing, .T, .mT). */
void views_after_call(Interp *I, const char *name, Obj *args[], size_t nargs, Obj *res, int32_t node);
void views_of(Interp *I, Obj *src, Obj *res, int32_t node);
/* res is a view of src at a place tngc does not know (an index that is
 * data): writing it, or reading it after a write into src, is refused. */
void views_undecided(Interp *I, Obj *src, Obj *res, int32_t node);
/* 1 when operand src of an in-place op into dst shares no element with
 * dst unless it is dst's very view (same elements, same order); else
 * TNG211 (PyTorch's result would depend on its memory order) and 0. */
int views_operand_ok(Interp *I, Obj *dst, Obj *src, int32_t node, const char *what);
/* views_memory_format: 0 when mf, the memory_format argument of a call on
 * x, asks for PyTorch's contiguous layout (or preserves x's), else 1, and
 * I->nonstd_layout is set; 2 when PyTorch's result is then a copy of x for
 * sure (a contiguous x not in the channels-last layout asked for). views_is_contiguous: PyTorch's x.is_contiguous(), 1 or 0, or -1
 * when tngc cannot tell. views_input_layout: notes the entry input v made
 * from host tensor ht (bind_inputs), of unknown layout unless ht is a
 * contiguous host value. */
int views_memory_format(Interp *I, Obj *mf, Obj *x);
int views_is_contiguous(Interp *I, Obj *x);
void views_input_layout(Interp *I, TensorObj *ht, int32_t v);
/* An in-place write into tensor x (what names it in diagnostics):
 * views_write_begin checks it (TNG211 into a parameter, TNG203 into an
 * expanded view, ...) and returns the value an in-place op may store into
 * (x's current value, in a buffer of its own), or -1 after a diagnostic;
 * views_write_end makes nv (x's shape: an in-place op's output or a new
 * value) x's value, written back through every view into x's root, so
 * that every alias sees it. views_write is both, for a new value nv;
 * it returns x, or a reported unknown. */
int32_t views_write_begin(Interp *I, Obj *x, int32_t node, const char *what);
int views_write_end(Interp *I, Obj *x, int32_t nv, int32_t node);
Obj *views_write(Interp *I, Obj *x, int32_t nv, int32_t node, const char *what);
/* The line of node. */
uint32_t interp_node_line(const Interp *I, int32_t node);

/* Rows selected by data (rowsel.c). rowsel_of: the selection tag of value
 * v of the trace (0: none); rowsel_set tags v. interp_val notes each read
 * of a tagged value (rowsel_read); interp_op checks each op that reads one
 * (rowsel_check_op: NULL, the op's outputs tagged, or why the op does not
 * keep the selected rows apart, *tag the selection) and drops its reads
 * (rowsel_unread). torchlib_rowsel.c refuses a read no op consumed by the
 * end of a statement, and an output of the compiled method that holds
 * selected rows. */
int rowsel_of(const Interp *I, int32_t v);
void rowsel_set(Interp *I, int32_t v, int tag);
void rowsel_read(Interp *I, int32_t v);
void rowsel_unread(Interp *I, int32_t v);
const char *rowsel_check_op(Interp *I, int32_t op, int *tag);
void rowsel_trace_begin(Interp *I);
void rowsel_free(Interp *I);
/* The key under which weight names are kept: "%p" of p. */
const char *interp_ptr_key(Interp *I, const void *p);

#endif
