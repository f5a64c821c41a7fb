/*
 * interp.c - the module interpreter and the lowering of compiled methods.
 *
 * One abstract interpreter over the syntax tree serves two modes:
 *
 *  - host mode runs the script's module-level code (and the functions and
 *    methods it calls) on abstract objects: numbers, strings, containers,
 *    tensor specs (values of a scratch host graph with constant shapes),
 *    instances of the script's classes and of torch.nn modules, config
 *    objects and compiled entries. Whatever is not known is O_UNKNOWN and
 *    host code goes on silently: a script may do anything around its model.
 *
 *  - trace mode runs a compiled entry's method body when host code calls
 *    the entry. Tensors are values of the entry's Graph; operations append
 *    ops (torchlib.c); Python-level values (ints, constructor flags, module
 *    attributes) are evaluated and folded as Dynamo does. Anything that
 *    cannot be lowered is a graph-break diagnostic (TNG2xx) at its location.
 *
 * Host tensors enter a trace through a memo: the first read of a host tensor
 * while tracing gives a "shadow" tensor object of the entry graph (an input
 * when it was passed as an argument, a weight when it is a parameter or a
 * buffer of the compiled module). In-place updates change the shadow only,
 * and are written back as the input's or weight's final value.
 */
#define _GNU_SOURCE   /* memmem */
#include "interp.h"
#include "torchair_schema.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Limits that keep any script from hanging or exhausting tngc. */
#define INTERP_MAX_STEPS 2000000L   /* statements and loop iterations */
#define INTERP_MAX_DEPTH 64         /* nested calls */
#define INTERP_MAX_ITEMS 100000     /* elements of one container */
#define INTERP_MAX_STR (1u << 20)   /* bytes of one string built by + */
#define INTERP_MAX_NEST 1000        /* nested expressions and statements, as Python's
                                     * recursion limit: keeps the C stack bounded */
/* The total budget (InterpLimits) bounds what these limits do not: every
 * byte the interpreter allocates for objects, containers, strings, frames
 * and graph growth is charged at its allocation (interp_alloc, frame_put,
 * budget_graph); the clock is read every BUDGET_WORK_PER_CLOCK units of
 * work (statements, loop iterations, comparisons). */
#define BUDGET_WORK_PER_CLOCK 4096
#define SMALL_INT_MIN (-16)          /* ints in [SMALL_INT_MIN, SMALL_INT_MAX) are shared */
#define SMALL_INT_MAX 1024

/* ===================================================================== */
/* State                                                                 */
/* ===================================================================== */

typedef struct Frame Frame;
struct Frame {
    StrMap vars;           /* name -> Obj* */
    StrMap globals_decl;   /* names declared global (value: non-NULL) */
    Frame *parent;         /* enclosing function scope, NULL for the module */
    int kept;              /* a closure refers to it: lives until the end of the run */
};

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
};

struct InterpClass {
    const char *name;
    int32_t node;
    InterpClass *base;     /* a script base class, or NULL */
    const char *base_name; /* canonical name of a library base ("torch.nn.Module") */
    AttrList attrs;        /* methods and class variables */
};

typedef struct CfgField {
    const char *path;
    Obj *value;
    int32_t node;
} ConfigFieldObj;

struct ConfigObj {
    VEC(ConfigFieldObj) fields;
    int32_t node;
};

struct CompiledObj {
    Obj *target;           /* module instance, bound method or function; NULL for
                            * a decorator factory torch.compile(backend=...) */
    ConfigObj *cfg;
    int dynamic, fullgraph;  /* -1 not given */
    int is_cache;
    const char *cache_dir;
    int32_t node;
    Graph *graph;          /* the trace of the first call, or NULL */
    Obj *ret;              /* the traced return value (entry objects) */
    int traced;            /* traced (or tracing failed) */
    int skipped;           /* --entry names another entry */
    size_t nleaves;        /* tensor leaves of the first call's arguments */
    const char *name;      /* entry name, once called */
    CallArgs first;        /* the arguments of the first call */
};

typedef enum Flow { FLOW_NEXT, FLOW_RETURN, FLOW_BREAK, FLOW_CONTINUE, FLOW_ABORT } Flow;

typedef struct Shadow {
    TensorObj *host;
    Obj *obj;              /* the entry-graph tensor */
    int32_t initial;       /* its value at the start of the trace */
    int input;             /* GraphInput index, or -1 */
    int weight;            /* GraphWeight index, or -1 */
} Shadow;

typedef struct WaitEdge {
    int32_t value;         /* later users of this value ... */
    int32_t waits_for;     /* ... wait for the producer of this one */
} WaitEdge;

struct Interp {
    ScanFile *sf;
    const Ast *ast;
    Arena arena;           /* objects */
    Graph host;
    Graph *g;              /* current graph */
    Frame *globals;
    Obj *ret;              /* value of the last return */
    long steps;
    int depth;
    int nest;              /* eval/exec nesting, all calls together */
    int aborted;           /* a limit was hit: stop everything */
    size_t skipped;        /* host code skipped that may change objects (skip_code) */
    uint32_t cut_while;    /* the line of the first host 'while' ended on an unknown, or 0 */
    const char *only_entry;
    VEC(Graph *) entries;
    VEC(CompiledObj *) compiled;
    /* trace state */
    int tracing;
    int stream, sk;
    VEC(Shadow) shadows;
    VEC(WaitEdge) waits;
    VEC(int32_t) overwritten;  /* values an in-place op has replaced (their op ids follow) */
    StrMap weight_names;   /* "%p" of a host TensorObj -> state_dict key */
    int nconst;
    VEC(Frame *) frames;   /* the kept frames */
    VEC(ConfigObj *) configs;  /* their field lists are freed at the end */
    /* the budget */
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
    Obj *unknown;              /* the unknown of host code, reason NULL (see obj_unknown) */
    Obj *no_kw[1];             /* the keyword arguments of calls without any */
    const char *no_kwnames[1];
    Obj *small_ints[SMALL_INT_MAX - SMALL_INT_MIN];
    StrMap builtins;           /* canonical name -> O_BUILTIN */
};

/* ===================================================================== */
/* Objects                                                               */
/* ===================================================================== */

static void budget_charge(Interp *I, size_t n);

void *interp_alloc(Interp *I, size_t n)
{
    budget_charge(I, n);
    return arena_alloc(&I->arena, n);
}

char *interp_strndup(Interp *I, const char *s, size_t n)
{
    budget_charge(I, n + 1);
    return arena_strndup(&I->arena, s, n);
}

char *interp_printf(Interp *I, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *d = arena_vprintf(&I->arena, fmt, ap);
    va_end(ap);
    budget_charge(I, strlen(d) + 1);
    return d;
}

Obj *obj_new(Interp *I, ObjKind kind)
{
    Obj *o = interp_alloc(I, sizeof *o);
    o->kind = kind;
    o->node = -1;
    o->dim = -1;
    return o;
}

/* Host code makes an unknown at every operation on one: those with no
 * reason are one shared object, never marked (unknown_mark) and copied
 * where a value is stored (obj_stored), so that what is marked is the
 * stored value, as before the sharing. */
Obj *obj_unknown(Interp *I, const char *why)
{
    if (!why && !I->tracing) {
        if (!I->unknown)
            I->unknown = obj_new(I, O_UNKNOWN);
        return I->unknown;
    }
    Obj *o = obj_new(I, O_UNKNOWN);
    o->s = why;
    return o;
}

/* None, booleans and small ints are immutable: one object each. */
Obj *obj_none(Interp *I)
{
    if (!I->none)
        I->none = obj_new(I, O_NONE);
    return I->none;
}

Obj *obj_bool(Interp *I, int b)
{
    Obj **shared = &I->bools[b != 0];
    if (!*shared) {
        *shared = obj_new(I, O_BOOL);
        (*shared)->i = b != 0;
    }
    return *shared;
}

Obj *obj_int(Interp *I, int64_t v)
{
    Obj **shared = v >= SMALL_INT_MIN && v < SMALL_INT_MAX ? &I->small_ints[v - SMALL_INT_MIN] : NULL;
    if (shared && *shared)
        return *shared;
    Obj *o = obj_new(I, O_INT);
    o->i = v;
    if (shared)
        *shared = o;
    return o;
}

Obj *obj_float(Interp *I, double v)
{
    Obj *o = obj_new(I, O_FLOAT);
    o->f = v;
    return o;
}

Obj *obj_str(Interp *I, const char *s)
{
    Obj *o = obj_new(I, O_STR);
    o->s = s;
    o->len = strlen(s);
    return o;
}

/* What a variable, attribute or container keeps of x: its own unknown. */
static Obj *obj_stored(Interp *I, Obj *x)
{
    return x && x == I->unknown ? obj_new(I, O_UNKNOWN) : x;
}

static void items_push(Interp *I, Obj *seq, Obj *x)
{
    x = obj_stored(I, x);
    if (seq->n == seq->cap) {
        size_t cap = seq->cap ? 2 * seq->cap : 4;
        Obj **items = interp_alloc(I, cap * sizeof *items);
        if (seq->n)
            memcpy(items, seq->items, seq->n * sizeof *items);
        seq->items = items;
        seq->cap = cap;
    }
    seq->items[seq->n++] = x;
}

Obj *obj_tuple(Interp *I, Obj **items, size_t n)
{
    Obj *o = obj_new(I, O_TUPLE);
    for (size_t i = 0; i < n; i++)
        items_push(I, o, items[i]);
    return o;
}

static Obj *obj_seq(Interp *I, ObjKind kind)
{
    return obj_new(I, kind);
}

Obj *obj_tensor(Interp *I, int32_t v)
{
    Obj *o = obj_new(I, O_TENSOR);
    o->t = interp_alloc(I, sizeof *o->t);
    o->t->g = I->g;
    o->t->value = v;
    o->t->gears_node = -1;
    return o;
}

Obj *obj_dim(Interp *I, DimId d)
{
    int64_t c;
    if (graph_dim_const_value(I->g, d, &c))
        return obj_int(I, c);
    Obj *o = obj_new(I, O_DIM);
    o->dim = d;
    return o;
}

DimId obj_as_dim(Interp *I, const Obj *o)
{
    if (!o)
        return -1;
    if (o->kind == O_INT || o->kind == O_BOOL)
        return graph_dim_const(I->g, o->i);
    if (o->kind == O_DIM)
        return o->dim;
    return -1;
}

int obj_int_value(const Obj *o, int64_t *v)
{
    if (o && (o->kind == O_INT || o->kind == O_BOOL)) {
        *v = o->i;
        return 1;
    }
    return 0;
}

int obj_num_value(const Obj *o, double *v)
{
    if (o && (o->kind == O_INT || o->kind == O_BOOL)) {
        *v = (double)o->i;
        return 1;
    }
    if (o && o->kind == O_FLOAT) {
        *v = o->f;
        return 1;
    }
    return 0;
}

Obj *obj_getattr(const Obj *inst, const char *name)
{
    for (size_t i = inst->attrs.n; i-- > 0;)
        if (strcmp(inst->attrs.names[i], name) == 0)
            return inst->attrs.vals[i];
    return NULL;
}

static void budget_work(Interp *I, size_t units);

static void attrs_set(Interp *I, AttrList *l, const char *name, Obj *val)
{
    val = obj_stored(I, val);
    budget_work(I, l->n);
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->names[i], name) == 0) {
            l->vals[i] = val;
            return;
        }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        const char **names = interp_alloc(I, cap * sizeof *names);
        Obj **vals = interp_alloc(I, cap * sizeof *vals);
        if (l->n) {
            memcpy(names, l->names, l->n * sizeof *names);
            memcpy(vals, l->vals, l->n * sizeof *vals);
        }
        l->names = names, l->vals = vals, l->cap = cap;
    }
    l->names[l->n] = interp_strndup(I, name, strlen(name));
    l->vals[l->n++] = val;
}

void obj_setattr(Interp *I, Obj *inst, const char *name, Obj *val)
{
    attrs_set(I, &inst->attrs, name, val);
}

static int obj_is_str(const Obj *o, const char *s)
{
    return o && o->kind == O_STR && strcmp(o->s, s) == 0;
}

/* Python truthiness: 1 true, 0 false, -1 unknown. */
static int obj_truth(Interp *I, const Obj *o)
{
    int64_t c;
    switch (o->kind) {
    case O_NONE: return 0;
    case O_BOOL: case O_INT: return o->i != 0;
    case O_FLOAT: return o->f != 0.0;
    case O_STR: return o->len != 0;
    case O_TUPLE: case O_LIST: case O_DICT: return o->n != 0;
    case O_DIM: return graph_dim_const_value(I->g, o->dim, &c) ? c != 0 : -1;
    case O_UNKNOWN: case O_TENSOR: return -1;
    default: return 1;
    }
}

/* Equality of two known Python values: 1, 0, or -1 unknown. */
static int obj_eq_depth(Interp *I, const Obj *a, const Obj *b, int depth);

static int obj_eq(Interp *I, const Obj *a, const Obj *b)
{
    return obj_eq_depth(I, a, b, 0);
}

static int obj_eq_depth(Interp *I, const Obj *a, const Obj *b, int depth)
{
    double x, y;
    if (depth > 64)
        return -1;   /* nested too deep (or a container that holds itself) */
    if (a->kind == O_UNKNOWN || b->kind == O_UNKNOWN || a->kind == O_TENSOR || b->kind == O_TENSOR)
        return -1;
    if (a->kind == O_DIM || b->kind == O_DIM) {
        DimId da = obj_as_dim(I, a), db = obj_as_dim(I, b);
        if (da < 0 || db < 0)
            return 0;
        return da == db ? 1 : -1;
    }
    int64_t p, q;
    if (obj_int_value(a, &p) && obj_int_value(b, &q))
        return p == q;   /* exact: 2**62 + 1 != 2**62 */
    if (obj_num_value(a, &x) && obj_num_value(b, &y))
        return x == y;
    if (a->kind != b->kind)
        return a->kind == O_NONE || b->kind == O_NONE ? 0 : (a == b);
    switch (a->kind) {
    case O_NONE: case O_ELLIPSIS: return 1;
    case O_STR: return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
    case O_DTYPE: return a->dtype == b->dtype;
    case O_TUPLE: case O_LIST:
        if (a->n != b->n)
            return 0;
        budget_work(I, a->n);
        for (size_t i = 0; i < a->n; i++) {
            int e = obj_eq_depth(I, a->items[i], b->items[i], depth + 1);
            if (e != 1)
                return e;
        }
        return 1;
    case O_BUILTIN: return strcmp(a->s, b->s) == 0;
    default: return a == b;
    }
}

/* ===================================================================== */
/* Diagnostics                                                           */
/* ===================================================================== */

static void interp_vdiag(Interp *I, int32_t node, RuleId rule, const char *fmt, va_list ap)
{
    if (I->aborted)
        return;   /* after a stop (TNG212), what the unwinding finds is no news */
    StrBuf sb = {0};
    sb_vprintf(&sb, fmt, ap);
    if (node < 0)
        node = 0;
    diag_node(&I->sf->diags, I->ast, node, rule, "%s", sb.s ? sb.s : "");
    sb_free(&sb);
}

static void interp_diag(Interp *I, int32_t node, RuleId rule, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    interp_vdiag(I, node, rule, fmt, ap);
    va_end(ap);
}

/* The reason of an unknown whose cause has been reported: values computed
 * from it stay quiet (one diagnostic per cause, no cascades). */
static const char UNKNOWN_REPORTED[] = "reported";

static int unknown_reported(const Obj *o)
{
    return o->kind == O_UNKNOWN && o->s == UNKNOWN_REPORTED;
}

/* o's cause has been reported: values computed from it stay quiet. */
static void unknown_mark(Interp *I, Obj *o)
{
    if (o != I->unknown)
        o->s = UNKNOWN_REPORTED;
}

Obj *obj_unknown_reported(Interp *I)
{
    return obj_unknown(I, UNKNOWN_REPORTED);
}

/* The unknown result of an operation on x: reported when x was, so that
 * -n, not n, n and m ... of a reported unknown stay quiet. */
static Obj *unknown_from(Interp *I, const Obj *x)
{
    return x && unknown_reported(x) ? obj_unknown_reported(I) : obj_unknown(I, NULL);
}

Obj *interp_break(Interp *I, int32_t node, RuleId rule, const char *fmt, ...)
{
    if (I->tracing) {
        va_list ap;
        va_start(ap, fmt);
        interp_vdiag(I, node, rule, fmt, ap);
        va_end(ap);
        return obj_unknown_reported(I);
    }
    return obj_unknown(I, NULL);
}

/* While tracing, an unknown value that flows into the graph is an error
 * (TNG205) the first time: nothing may be skipped silently. Returns 1 when
 * o is unknown (reported now or before). */
static int trace_need(Interp *I, Obj *o, int32_t node, const char *what)
{
    if (!o || o->kind != O_UNKNOWN)
        return 0;
    if (I->tracing && !unknown_reported(o)) {
        interp_diag(I, node, RULE_TNG205, "%s is not known at compile time%s%s", what,
                    o->s ? ": " : "", o->s ? o->s : "");
        unknown_mark(I, o);
    }
    return 1;
}

/* Stops the whole run at a limit (TNG212). */
static void interp_limit(Interp *I, int32_t node, const char *what)
{
    if (!I->aborted)
        interp_diag(I, node, RULE_TNG212, "%s; tngc stops interpreting the script here", what);
    I->aborted = 1;
}

/* ---- the budget ---- */

static void budget_charge(Interp *I, size_t n)
{
    I->bytes += n;
    if (I->bytes > I->max_bytes && !I->aborted) {
        char what[200];
        snprintf(what, sizeof what, "the script needs more than %zu MB of interpreter memory "
                 "(raise the limit with --max-memory MB)", I->max_bytes >> 20);
        interp_limit(I, I->at, what);
    }
}

static void budget_uncharge(Interp *I, size_t n)
{
    I->bytes -= n < I->bytes ? n : I->bytes;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Counts units of work (a statement, a comparison, an element visited) and
 * looks at the clock every BUDGET_WORK_PER_CLOCK of them. */
static void budget_work(Interp *I, size_t units)
{
    I->work += units;
    if (I->work < BUDGET_WORK_PER_CLOCK)
        return;
    I->work = 0;
    if (!I->aborted && seconds_since(&I->start) > I->max_seconds) {
        char what[200];
        snprintf(what, sizeof what, "the script runs longer than %g s (raise the limit with --max-time SECONDS)",
                 I->max_seconds);
        interp_limit(I, I->at, what);
    }
}

/* An upper bound of the heap memory of g's tables (its ops, values, dims,
 * inputs ...), so that growth of a graph is charged like objects are. */
static size_t graph_bytes(const Graph *g)
{
    return g->ops.cap * (sizeof(Op) + 8 * sizeof(int32_t)) + g->vals.cap * sizeof(Val) +
           g->dims.cap * (sizeof(DimExpr) + 64) + g->syms.cap * sizeof(Sym) +
           g->inputs.cap * sizeof(GraphInput) + g->weights.cap * sizeof(GraphWeight) +
           g->outputs.cap * sizeof(GraphOutput) + g->streams.cap * sizeof(GraphStream) +
           g->sks.cap * sizeof(GraphSk) + g->gears.cap * sizeof(GearSpec) + g->checks.cap * sizeof(DimCheck) +
           g->dim_index.cap * (sizeof(const char *) + sizeof(void *));
}

/* Charges the growth of the current graph since the last call. */
static void budget_graph(Interp *I)
{
    size_t *charged = I->g == &I->host ? &I->host_graph_bytes : &I->entry_graph_bytes;
    size_t now = graph_bytes(I->g);
    if (now > *charged) {
        budget_charge(I, now - *charged);
        *charged = now;
    }
}

Graph *interp_graph(Interp *I) { return I->g; }
int interp_tracing(const Interp *I) { return I->tracing; }
const Ast *interp_ast(const Interp *I) { return I->ast; }

/* ===================================================================== */
/* Frames                                                                */
/* ===================================================================== */

/*
 * A frame lives while its call (comprehension, class body) runs, unless a
 * function or lambda defined in it keeps it as its closure: then it lives
 * until the end of the run, with the frames around it. Memory therefore
 * follows the call depth, not the number of calls.
 */
static size_t frame_bytes(const Frame *f)
{
    return sizeof *f + (f->vars.cap + f->globals_decl.cap) * (sizeof(const char *) + sizeof(void *));
}

static Frame *interp_frame_in(Interp *I, Frame *parent)
{
    Frame *f = xcalloc(1, sizeof *f);
    f->parent = parent;
    budget_charge(I, frame_bytes(f));
    return f;
}
#define interp_frame(parent) interp_frame_in(I, parent)

/* f (and the frames around it) outlive their calls: a closure refers to them. */
static void frame_keep(Interp *I, Frame *f)
{
    for (; f && !f->kept; f = f->parent) {
        f->kept = 1;
        VEC_PUSH(I->frames, f);
    }
}

/* The end of f's call: frees it unless kept. */
static void frame_release(Interp *I, Frame *f)
{
    if (f->kept)
        return;
    budget_uncharge(I, frame_bytes(f));
    strmap_free(&f->vars);
    strmap_free(&f->globals_decl);
    free(f);
}

/* Sets key in one of f's maps, charging its growth. */
static void frame_put(Interp *I, Frame *f, StrMap *map, const char *key, void *val)
{
    size_t before = frame_bytes(f);
    strmap_put(map, key, val);
    size_t after = frame_bytes(f);
    if (after > before)
        budget_charge(I, after - before);
}

static void frames_free(Interp *I)
{
    for (size_t i = 0; i < I->frames.n; i++) {
        strmap_free(&I->frames.v[i]->vars);
        strmap_free(&I->frames.v[i]->globals_decl);
        free(I->frames.v[i]);
    }
    VEC_FREE(I->frames);
}

static Obj *frame_lookup(Interp *I, Frame *f, const char *name)
{
    for (; f; f = f->parent) {
        Obj *o = strmap_get(&f->vars, name);
        if (o)
            return o;
    }
    return strmap_get(&I->globals->vars, name);
}

/* Binds name (a string of the run: node_str, the arena) in f. */
static void frame_assign(Interp *I, Frame *f, const char *name, Obj *val)
{
    if (strmap_get(&f->globals_decl, name))
        f = I->globals;
    /* a host call's own frame is not seen by a trace: no copy needed */
    frame_put(I, f, &f->vars, name, f->kept || I->tracing ? obj_stored(I, val) : val);
}

/* ===================================================================== */
/* Canonical names of library objects                                    */
/* ===================================================================== */

/* Rewrites the other paths under which TorchAir ships to "torchair.". */
static const char *canon(Interp *I, const char *path)
{
    static const struct { const char *from, *to; } rw[] = {
        {"torch.npu.npugraph_ex.", "torchair."},
        {"torch_npu.dynamo.torchair.", "torchair."},
        {"torch_npu.npu.npugraph_ex.", "torchair."},
        {"torchair.ops.", "torchair.scope."},
        {"torchair.configs.compiler_config.", "torchair."},
        {"torch.nn.modules.linear.", "torch.nn."},
        {"torch.functional.", "torch."},
    };
    for (size_t i = 0; i < sizeof rw / sizeof *rw; i++) {
        size_t n = strlen(rw[i].from);
        if (strncmp(path, rw[i].from, n) == 0)
            return interp_printf(I, "%s%s", rw[i].to, path + n);
    }
    if (strcmp(path, "torchair.scope.NpuStreamSwitch") == 0)
        return "torchair.scope.npu_stream_switch";
    return path;
}

/* The library object named path: one shared object per name (builtins are
 * immutable; super() makes its own, see eval_call). */
static Obj *obj_builtin(Interp *I, const char *path)
{
    Obj *o = strmap_get(&I->builtins, path);
    if (o)
        return o;
    path = interp_strndup(I, path, strlen(path));   /* it may be on the caller's stack */
    o = obj_new(I, O_BUILTIN);
    o->s = canon(I, path);
    size_t cap = I->builtins.cap;
    strmap_put(&I->builtins, path, o);
    budget_charge(I, (I->builtins.cap - cap) * (sizeof(const char *) + sizeof(void *)));
    return o;
}

/* The library object base.name, formatted without allocating when it exists. */
static Obj *obj_builtin_attr(Interp *I, const char *base, const char *name)
{
    char buf[256];
    if ((size_t)snprintf(buf, sizeof buf, "%s.%s", base, name) < sizeof buf)
        return obj_builtin(I, buf);
    return obj_builtin(I, interp_printf(I, "%s.%s", base, name));
}

/* ===================================================================== */
/* Syntax helpers                                                        */
/* ===================================================================== */

static const Node *N(Interp *I, int32_t n) { return &I->ast->nodes[n]; }

/* The text of node n (an identifier, an operator), copied once per node. */
static const char *node_str(Interp *I, int32_t n)
{
    if (I->node_strs[n])
        return I->node_strs[n];
    size_t len;
    const char *s = ast_text(I->ast, n, &len);
    return I->node_strs[n] = interp_strndup(I, s, len);
}

static int32_t child(Interp *I, int32_t n, int i) { return ast_named_child(I->ast, n, i); }

/* Named children that are not comments. */
#define FOR_CHILDREN(I, n, c) \
    for (int32_t c = N(I, n)->first; c >= 0; c = N(I, c)->next) \
        if ((N(I, c)->flags & NODE_NAMED) && N(I, c)->kind != NK_comment)

/* ===================================================================== */
/* Trace: shadows, weights, values                                       */
/* ===================================================================== */

static void weight_names_collect(Interp *I, Obj *mod, const char *prefix, int depth);

static const char *ptr_key(Interp *I, const void *p)
{
    return interp_printf(I, "%p", p);
}

static Shadow *shadow_find(Interp *I, const TensorObj *host)
{
    for (size_t i = 0; i < I->shadows.n; i++)
        if (I->shadows.v[i].host == host)
            return &I->shadows.v[i];
    return NULL;
}

/* The entry-graph tensor standing for host tensor t in this trace. */
static Obj *shadow_of(Interp *I, Obj *t, int32_t node)
{
    Shadow *s = shadow_find(I, t->t);
    if (s)
        return s->obj;
    Graph *hg = t->t->g;
    const Val *hv = &hg->vals.v[t->t->value];
    int64_t dims[GRAPH_MAX_DIMS];
    for (int d = 0; d < hv->ndim; d++)
        if (!graph_dim_const_value(hg, hv->dims[d], &dims[d]))
            return NULL;
    const char *name = strmap_get(&I->weight_names, ptr_key(I, t->t));
    int is_buffer = t->t->is_buffer;
    if (!name) {
        name = interp_printf(I, "_const%d", I->nconst++);
        is_buffer = 1;
    }
    int32_t v = graph_add_weight(I->g, name, hv->dtype, hv->ndim, dims, is_buffer);
    if (v < 0) {
        /* the size invariant (host tensors obey it: only a bug gets here) */
        interp_diag(I, node, RULE_TNG206, "the tensor %s is larger than 2^48 bytes, the most tngc plans "
                    "for one tensor", name);
        Shadow sh = {t->t, obj_unknown_reported(I), -1, -1, -1};
        VEC_PUSH(I->shadows, sh);
        return sh.obj;
    }
    I->g->vals.v[v].format = hv->format;
    Obj *o = obj_tensor(I, v);
    o->t->origin = t->t;
    Shadow sh = {t->t, o, v, -1, (int)I->g->weights.n - 1};
    VEC_PUSH(I->shadows, sh);
    return o;
}

/* Host tensors read while tracing become entry-graph tensors. */
static Obj *trace_in(Interp *I, Obj *o, int32_t node)
{
    if (!I->tracing || !o || o->kind != O_TENSOR || o->t->g == I->g)
        return o;
    Obj *s = shadow_of(I, o, node);
    return s ? s : interp_break(I, node, RULE_TNG205, "tensor of unknown shape");
}

int32_t interp_val(Interp *I, Obj *t, int32_t node)
{
    if (!t || t->kind != O_TENSOR)
        return -1;
    if (t->t->g != I->g) {
        if (!I->tracing)
            return -1;
        t = trace_in(I, t, node);
        if (t->kind != O_TENSOR)
            return -1;
    }
    return t->t->value;
}

/* An in-place write must wait for every earlier reader of the storage. */
static void inplace_war(Interp *I, int32_t opid)
{
    Graph *g = I->g;
    Op *op = &g->ops.v[opid];
    int32_t root = graph_storage_root(g, op->in[0]);
    for (int32_t o = 0; o < opid; o++) {
        const Op *r = &g->ops.v[o];
        if (op_info[r->kind].flags & OPF_SOURCE)
            continue;
        for (uint32_t k = 0; k < r->nin; k++)
            if (r->in[k] >= 0 && graph_storage_root(g, r->in[k]) == root &&
                !(k == 0 && (op_info[r->kind].flags & OPF_ALIAS))) {
                graph_add_ctrl(g, opid, o, 0);
                break;
            }
    }
}

/* PyTorch views of a tensor see later in-place writes into it; the graph's
 * view ops copy (or alias a version). Reading, after a write, a view taken
 * before it would read stale data: TNG211 instead of a wrong plan. */
static int stale_view(Interp *I, int32_t v, int32_t node)
{
    const Graph *g = I->g;
    int views = 0;
    for (size_t guard = 0; v >= 0 && guard <= g->ops.n; guard++) {
        const Op *op = &g->ops.v[g->vals.v[v].op];
        OpKind k = op->kind;
        if (views)
            for (size_t i = 0; i + 1 < I->overwritten.n; i += 2)
                if (I->overwritten.v[i] == v) {
                    const Op *w = &g->ops.v[I->overwritten.v[i + 1]];
                    interp_diag(I, node, RULE_TNG211, "this reads a view taken before the in-place write "
                                "at line %u, which PyTorch's view would see: take the view after the write",
                                w->line);
                    return 1;
                }
        if (k != OP_RESHAPE && k != OP_PERMUTE && k != OP_SLICE && k != OP_SELECT &&
            k != OP_CONTIGUOUS && k != OP_FORMAT_CAST)
            return 0;
        views++;
        v = op->in[0];
    }
    return 0;
}

int32_t interp_op(Interp *I, OpDesc *d, int32_t node)
{
    char err[256];
    d->stream = I->tracing ? I->stream : 0;
    d->sk = I->tracing ? I->sk : -1;
    int32_t nn = node >= 0 ? node : 0;
    d->line = N(I, nn)->line;
    d->col = ast_col(I->ast, nn);
    for (uint32_t k = 0; k < d->nin; k++)
        if (d->in[k] < -1 || d->in[k] >= (int32_t)I->g->vals.n)
            return -1;
    if (I->tracing && I->overwritten.n)
        for (uint32_t k = 0; k < d->nin; k++)
            if (d->in[k] >= 0 && stale_view(I, d->in[k], node))
                return -1;
    int32_t op = graph_add_op(I->g, d, err, sizeof err);
    budget_graph(I);
    if (op < 0) {
        /* in host mode too: a module-level tensor past the size limit (or
         * of shapes that do not fit) is the script's error, at its line,
         * not a silent unknown that surfaces as "argument not known" at
         * the call of the model */
        interp_diag(I, node, strstr(err, "dtype") ? RULE_TNG207 : RULE_TNG206, "%s", err);
        return -1;
    }
    if (!I->tracing)
        return op;
    for (uint32_t k = 0; k < d->nin; k++)
        for (size_t w = 0; w < I->waits.n; w++)
            if (I->waits.v[w].value == d->in[k]) {
                int32_t p = I->g->vals.v[I->waits.v[w].waits_for].op;
                if (!(op_info[I->g->ops.v[p].kind].flags & OPF_SOURCE))
                    graph_add_ctrl(I->g, op, p, 1);
            }
    if (op_info[d->kind].flags & OPF_INPLACE) {
        inplace_war(I, op);
        VEC_PUSH(I->overwritten, d->in[0]);
        VEC_PUSH(I->overwritten, op);
    }
    return op;
}

/* ===================================================================== */
/* Evaluation: forward declarations                                      */
/* ===================================================================== */

static Obj *eval(Interp *I, Frame *f, int32_t n);
static Flow exec_block(Interp *I, Frame *f, int32_t n);
static Flow exec_stmt(Interp *I, Frame *f, int32_t n);
static Obj *getattr_obj(Interp *I, Obj *o, const char *name, int32_t node);
static int assign_target(Interp *I, Frame *f, int32_t target, Obj *val);
static Obj *call_compiled(Interp *I, CompiledObj *c, CallArgs *a);

static int step(Interp *I, int32_t node)
{
    if (I->aborted)
        return 0;
    budget_work(I, 1);
    budget_graph(I);
    if (I->aborted)
        return 0;
    if (++I->steps > INTERP_MAX_STEPS) {
        interp_limit(I, node, "the script runs more than 2,000,000 statements");
        return 0;
    }
    return 1;
}

/* ===================================================================== */
/* Literals and containers                                               */
/* ===================================================================== */

static Obj *from_value(Interp *I, const Value *v)
{
    switch (v ? v->kind : V_EXPR) {
    case V_NONE: return obj_none(I);
    case V_BOOL: return obj_bool(I, (int)v->i);
    case V_INT: return obj_int(I, v->i);
    case V_FLOAT: return obj_float(I, v->f);
    case V_STR: {
        Obj *o = obj_new(I, O_STR);
        o->s = v->s;
        o->len = v->len;
        return o;
    }
    default: return obj_unknown(I, "a literal tngc cannot evaluate (an f-string, or a number out of range)");
    }
}

/* A literal's object, made once per literal (numbers and strings are
 * immutable); an unknown (f-string) is made anew, as it may be marked. */
static Obj *eval_literal(Interp *I, int32_t n)
{
    if (I->literals[n])
        return I->literals[n];
    Obj *o = from_value(I, value_of(I->ast, NULL, n, &I->arena));
    if (o->kind != O_UNKNOWN)
        I->literals[n] = o;
    return o;
}

/* The length of range(a, b, st) with st != 0, without overflow. */
static uint64_t range_len(int64_t a, int64_t b, int64_t st)
{
    if (st > 0 ? b <= a : a <= b)
        return 0;
    uint64_t span = st > 0 ? (uint64_t)b - (uint64_t)a : (uint64_t)a - (uint64_t)b;
    uint64_t by = st > 0 ? (uint64_t)st : 0 - (uint64_t)st;
    return span / by + (span % by != 0);
}

/* Item k of range(a, _, st): in range, so exact in two's complement. */
static int64_t range_at(int64_t a, int64_t st, uint64_t k)
{
    return (int64_t)((uint64_t)a + k * (uint64_t)st);
}

/* Iterates a known iterable into a list of items; NULL when unknown. */
static Obj *iter_items(Interp *I, Obj *o, int32_t node)
{
    Obj *out = obj_seq(I, O_LIST);
    switch (o->kind) {
    case O_TUPLE: case O_LIST:
        for (size_t i = 0; i < o->n; i++)
            items_push(I, out, trace_in(I, o->items[i], node));
        return out;
    case O_DICT:
        for (size_t i = 0; i < o->n; i += 2)
            items_push(I, out, o->items[i]);
        return out;
    case O_STR:
        for (size_t i = 0; i < o->len; i++) {
            char *s = interp_strndup(I, o->s + i, 1);
            items_push(I, out, obj_str(I, s));
        }
        return out;
    case O_RANGE: {
        int64_t a = o->items[0]->i, b = o->items[1]->i, s = o->items[2]->i;
        if (s == 0)
            return NULL;
        uint64_t count = range_len(a, b, s);
        if (count > INTERP_MAX_ITEMS) {
            interp_limit(I, node, "a loop over more than 100,000 items");
            return NULL;
        }
        for (uint64_t k = 0; k < count; k++)
            items_push(I, out, obj_int(I, range_at(a, s, k)));
        return out;
    }
    case O_INST:
        if (o->s && (strcmp(o->s, "torch.nn.ModuleList") == 0 || strcmp(o->s, "torch.nn.Sequential") == 0)) {
            for (size_t i = 0; i < o->n; i++)
                items_push(I, out, o->items[i]);
            return out;
        }
        return NULL;
    case O_TENSOR: {
        int32_t v = interp_val(I, o, node);
        int64_t n0;
        if (v < 0 || I->g->vals.v[v].ndim == 0 ||
            !graph_dim_const_value(I->g, I->g->vals.v[v].dims[0], &n0) || n0 > 1024)
            return NULL;
        for (int64_t k = 0; k < n0; k++) {
            Obj *t = torchlib_subscript(I, o, obj_int(I, k), node);
            items_push(I, out, t);
        }
        return out;
    }
    default:
        return NULL;
    }
}

/* iter_items without the copy for a host tuple or list, for callers that
 * run no script code while they read the items (which could change them). */
static Obj *iter_view(Interp *I, Obj *o, int32_t node)
{
    if (!I->tracing && (o->kind == O_TUPLE || o->kind == O_LIST))
        return o;
    return iter_items(I, o, node);
}

/* What a loop iterates: a range item by item (no list of its ints), a
 * tuple as it is (it cannot change while the body runs), anything else
 * as a copy of its items (iter_items). */
typedef struct LoopIter {
    Obj *items;            /* NULL for a range */
    int64_t start, step;
    size_t n;
} LoopIter;

static int loop_begin(Interp *I, Obj *o, int32_t node, LoopIter *it)
{
    memset(it, 0, sizeof *it);
    if (o->kind == O_RANGE && o->items[2]->i != 0) {
        uint64_t count = range_len(o->items[0]->i, o->items[1]->i, o->items[2]->i);
        if (count > INTERP_MAX_ITEMS) {
            interp_limit(I, node, "a loop over more than 100,000 items");
            return 0;
        }
        it->start = o->items[0]->i;
        it->step = o->items[2]->i;
        it->n = (size_t)count;
        return 1;
    }
    it->items = o->kind == O_TUPLE ? iter_view(I, o, node) : iter_items(I, o, node);
    it->n = it->items ? it->items->n : 0;
    return it->items != NULL;
}

static Obj *loop_item(Interp *I, const LoopIter *it, size_t k)
{
    return it->items ? it->items->items[k] : obj_int(I, range_at(it->start, it->step, k));
}

/* dict lookup: the value index, or -1 (absent), -2 (undecidable). */
static long dict_find(Interp *I, const Obj *d, const Obj *key)
{
    int undecided = 0;
    budget_work(I, d->n / 2);
    for (size_t i = 0; i < d->n; i += 2) {
        int e = obj_eq(I, d->items[i], key);
        if (e == 1)
            return (long)i + 1;
        if (e < 0)
            undecided = 1;
    }
    return undecided ? -2 : -1;
}

static void dict_set(Interp *I, Obj *d, Obj *key, Obj *val)
{
    long i = dict_find(I, d, key);
    if (i >= 0) {
        d->items[i] = obj_stored(I, val);
        return;
    }
    items_push(I, d, key);
    items_push(I, d, val);
}

/* A list or dict changed in a way tngc cannot follow (list.extend of an
 * unknown, l[i] = v with i unknown, d.pop(k) with k undecidable, a method
 * tngc does not model ...) holds what nobody knows: it becomes an unknown
 * in place, so that every reference sees it (len(l) is then unknown, and
 * a loop on it stops as on any unknown) instead of keeping its old items,
 * a wrong value. While tracing, what it became unknown from is reported
 * (TNG205, once) at node, and the container is marked reported. */
static void obj_forget(Interp *I, Obj *o, Obj *cause, int32_t node, const char *what)
{
    int reported = 0;
    if (I->tracing) {
        if (cause && cause->kind == O_UNKNOWN)
            trace_need(I, cause, node, what);
        else
            interp_diag(I, node, RULE_TNG205, "%s: the container's contents are not known after it", what);
        reported = 1;
    }
    o->kind = O_UNKNOWN;
    o->items = NULL;
    o->n = o->cap = 0;
    o->s = reported ? UNKNOWN_REPORTED : NULL;
}

/* ===================================================================== */
/* Arithmetic on Python values                                           */
/* ===================================================================== */

/* Python ints are unbounded; tngc's are int64. An int result that does not
 * fit is not wrapped (that would fold a wrong size into the plan, e.g.
 * 2**62 * 4 + 16 as 16) but becomes an unknown. The rule is TNG205 (a
 * value the plan needs is not known), not TNG206: at the arithmetic the
 * value is a Python int, not yet a shape. An op that then takes it as a
 * size gets an unknown already reported and stays quiet, so the overflow
 * is one diagnostic, at the expression. In host mode, as for every value
 * tngc cannot evaluate, nothing is reported there (a module-level 2**64
 * mask is valid Python); the unknown carries the reason to where the plan
 * needs the value (an argument of the compiled entry). */
static const char INT_OVERFLOW_WHY[] = "the result of this int arithmetic does not fit in 64 bits";

Obj *obj_int_checked(Interp *I, int overflow, int64_t v, int32_t node)
{
    if (!overflow)
        return obj_int(I, v);
    if (I->tracing)
        return interp_break(I, node, RULE_TNG205, "%s (Python's ints are unbounded): "
                            "its value is not known at compile time", INT_OVERFLOW_WHY);
    return obj_unknown(I, INT_OVERFLOW_WHY);
}

/* Python's a // b and a % b (floored) for b != 0 and not (a, b) =
 * (INT64_MIN, -1), the one quotient that overflows. */
static int64_t floordiv64(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;   /* |b| >= 2 here, so |q| <= 2^62: no overflow */
    return q;
}

static int64_t floormod64(int64_t a, int64_t b)
{
    int64_t r = a % b;
    if (r != 0 && (r < 0) != (b < 0))
        r += b;   /* opposite signs: no overflow */
    return r;
}

/* x << y for y >= 0; 1 on overflow. */
static int shl64(int64_t *r, int64_t x, int64_t y)
{
    if (x == 0 || y == 0) {
        *r = x;
        return 0;
    }
    if (y >= 63) {
        *r = INT64_MIN;
        return !(x == -1 && y == 63);
    }
    return graph_ckd_mul(r, x, (int64_t)1 << y);
}

/* x ** y for y >= 0, exact (square and multiply); 1 on overflow. When a
 * square overflows with bits of y left, the result (|x| >= 2) would too. */
static int pow64(int64_t *r, int64_t x, int64_t y)
{
    int64_t acc = 1, base = x;
    while (y > 0) {
        if ((y & 1) && graph_ckd_mul(&acc, acc, base))
            return 1;
        y >>= 1;
        if (y > 0 && graph_ckd_mul(&base, base, base))
            return 1;
    }
    *r = acc;
    return 0;
}

/* An int op of Python on x and y into *r: 0, 1 on overflow, -1 when op is
 * not one on ints ('/', negative powers: floats), -2 for a Python error
 * (*why says which). */
static int int_op(const char *op, int64_t x, int64_t y, int64_t *r, const char **why)
{
    if (strcmp(op, "+") == 0) return graph_ckd_add(r, x, y);
    if (strcmp(op, "-") == 0) return graph_ckd_sub(r, x, y);
    if (strcmp(op, "*") == 0) return graph_ckd_mul(r, x, y);
    if (strcmp(op, "&") == 0) return *r = x & y, 0;
    if (strcmp(op, "|") == 0) return *r = x | y, 0;
    if (strcmp(op, "^") == 0) return *r = x ^ y, 0;
    if (strcmp(op, "<<") == 0 || strcmp(op, ">>") == 0) {
        if (y < 0)
            return *why = "negative shift count", -2;
        if (op[0] == '<')
            return shl64(r, x, y);
        *r = y >= 63 ? (x < 0 ? -1 : 0) : x >> y;   /* floor, as Python */
        return 0;
    }
    if (strcmp(op, "//") == 0 || strcmp(op, "%") == 0) {
        if (y == 0)
            return *why = "integer division by zero", -2;
        if (y == -1)   /* INT64_MIN // -1 is 2^63 */
            return op[0] == '%' ? (*r = 0, 0) : graph_ckd_sub(r, 0, x);
        *r = op[0] == '%' ? floormod64(x, y) : floordiv64(x, y);
        return 0;
    }
    if (strcmp(op, "**") == 0 && y >= 0)
        return pow64(r, x, y);
    return -1;
}

static Obj *dim_binop(Interp *I, const char *op, Obj *l, Obj *r, int32_t node)
{
    DimId a = obj_as_dim(I, l), b = obj_as_dim(I, r);
    if (a < 0 || b < 0)
        return NULL;
    Graph *g = I->g;
    if (strcmp(op, "+") == 0) return obj_dim(I, graph_dim_add(g, a, b));
    if (strcmp(op, "-") == 0) return obj_dim(I, graph_dim_sub(g, a, b));
    if (strcmp(op, "*") == 0) return obj_dim(I, graph_dim_mul(g, a, b));
    if (strcmp(op, "//") == 0) return obj_dim(I, graph_dim_div(g, a, b));
    return interp_break(I, node, RULE_TNG204, "'%s' on a dynamic dimension", op);
}

static Obj *num_binop(Interp *I, const char *op, Obj *l, Obj *r, int32_t node)
{
    int64_t x, y;
    double a, b;
    if (obj_int_value(l, &x) && obj_int_value(r, &y)) {
        int64_t v = 0;
        const char *why = NULL;
        int k = int_op(op, x, y, &v, &why);
        if (k == -2)
            return interp_break(I, node, RULE_TNG205, "%s", why);
        if (k >= 0)
            return obj_int_checked(I, k, v, node);
    }
    if (!obj_num_value(l, &a) || !obj_num_value(r, &b))
        return NULL;
    if (strcmp(op, "+") == 0) return obj_float(I, a + b);
    if (strcmp(op, "-") == 0) return obj_float(I, a - b);
    if (strcmp(op, "*") == 0) return obj_float(I, a * b);
    if (strcmp(op, "/") == 0)
        return b == 0 ? interp_break(I, node, RULE_TNG205, "division by zero") : obj_float(I, a / b);
    if (strcmp(op, "//") == 0)
        return b == 0 ? interp_break(I, node, RULE_TNG205, "division by zero") : obj_float(I, floor(a / b));
    if (strcmp(op, "%") == 0)
        return b == 0 ? interp_break(I, node, RULE_TNG205, "division by zero") : obj_float(I, a - floor(a / b) * b);
    if (strcmp(op, "**") == 0) return obj_float(I, pow(a, b));
    return NULL;
}

static Obj *seq_concat(Interp *I, Obj *l, Obj *r)
{
    Obj *o = obj_seq(I, l->kind);
    for (size_t i = 0; i < l->n; i++)
        items_push(I, o, l->items[i]);
    for (size_t i = 0; i < r->n; i++)
        items_push(I, o, r->items[i]);
    return o;
}

static Obj *binop(Interp *I, const char *op, Obj *l, Obj *r, int32_t node)
{
    if (I->tracing && (l->kind == O_UNKNOWN || r->kind == O_UNKNOWN) &&
        (l->kind == O_TENSOR || r->kind == O_TENSOR || unknown_reported(l) || unknown_reported(r))) {
        const char *what = interp_printf(I, "an operand of '%s'", op);
        trace_need(I, l, node, what);
        trace_need(I, r, node, what);
        return obj_unknown_reported(I);
    }
    if (l->kind == O_TENSOR || r->kind == O_TENSOR) {
        l = trace_in(I, l, node), r = trace_in(I, r, node);
        size_t ndiag = I->sf->diags.n;
        Obj *t = torchlib_binop(I, op, l, r, node);
        if (t && t->kind == O_UNKNOWN && I->tracing && I->sf->diags.n > ndiag)
            unknown_mark(I, t);
        return t ? t : interp_break(I, node, RULE_TNG203, "operator '%s' on a tensor", op);
    }
    if (l->kind == O_UNKNOWN || r->kind == O_UNKNOWN)
        return unknown_reported(l) || unknown_reported(r) ? obj_unknown_reported(I) : obj_unknown(I, NULL);
    if (l->kind == O_DIM || r->kind == O_DIM) {
        Obj *d = dim_binop(I, op, l, r, node);
        if (d)
            return d;
    }
    Obj *x = num_binop(I, op, l, r, node);
    if (x)
        return x;
    if (strcmp(op, "+") == 0 && l->kind == r->kind && (l->kind == O_TUPLE || l->kind == O_LIST)) {
        if (l->n + r->n > INTERP_MAX_ITEMS) {
            interp_limit(I, node, "a container of more than 100,000 items");
            return obj_unknown(I, NULL);
        }
        return seq_concat(I, l, r);
    }
    if (strcmp(op, "+") == 0 && l->kind == O_STR && r->kind == O_STR) {
        if (strlen(l->s) + strlen(r->s) > INTERP_MAX_STR) {
            interp_limit(I, node, "a string of more than 1 MiB");
            return obj_unknown(I, NULL);
        }
        return obj_str(I, interp_printf(I, "%s%s", l->s, r->s));
    }
    int64_t k;
    if (strcmp(op, "*") == 0 && (l->kind == O_TUPLE || l->kind == O_LIST) && obj_int_value(r, &k)) {
        if (l->n && k > INTERP_MAX_ITEMS / (int64_t)l->n) {
            interp_limit(I, node, "a container of more than 100,000 items");
            return obj_unknown(I, NULL);
        }
        Obj *o = obj_seq(I, l->kind);
        for (int64_t j = 0; j < k; j++)
            for (size_t i = 0; i < l->n; i++)
                items_push(I, o, l->items[i]);
        return o;
    }
    return interp_break(I, node, RULE_TNG203, "operator '%s' on these operands", op);
}

/* <, <=, >, >=, ==, !=, in, not in, is, is not */
static Obj *compare(Interp *I, const char *op, Obj *l, Obj *r, int32_t node)
{
    if (unknown_reported(l) || unknown_reported(r))
        return obj_unknown_reported(I);
    if (strcmp(op, "is") == 0 || strcmp(op, "is not") == 0) {
        int neg = op[2] == ' ';
        int res;
        if (l->kind == O_UNKNOWN || r->kind == O_UNKNOWN)
            return obj_unknown(I, NULL);
        if (l->kind == O_NONE || r->kind == O_NONE)
            res = l->kind == r->kind;
        else if (l->kind == O_BOOL && r->kind == O_BOOL)
            res = l->i == r->i;
        else
            res = l == r || (l->kind == O_TENSOR && r->kind == O_TENSOR && l->t == r->t);
        return obj_bool(I, neg ? !res : res);
    }
    if (strcmp(op, "in") == 0 || strcmp(op, "not in") == 0) {
        int neg = op[0] == 'n';
        if (r->kind == O_DICT) {
            long i = dict_find(I, r, l);
            return i == -2 ? obj_unknown(I, NULL) : obj_bool(I, neg ? i < 0 : i >= 0);
        }
        if (r->kind == O_TUPLE || r->kind == O_LIST) {
            int unk = 0;
            for (size_t i = 0; i < r->n; i++) {
                int e = obj_eq(I, l, r->items[i]);
                if (e == 1)
                    return obj_bool(I, !neg);
                unk |= e < 0;
            }
            return unk ? obj_unknown(I, NULL) : obj_bool(I, neg);
        }
        if (r->kind == O_STR && l->kind == O_STR)
            return obj_bool(I, neg != (memmem(r->s, r->len, l->s, l->len) != NULL));
        return obj_unknown(I, NULL);
    }
    if (l->kind == O_TENSOR || r->kind == O_TENSOR)
        return interp_break(I, node, RULE_TNG204, "comparison of tensors: its result is only known at run time");
    if (strcmp(op, "==") == 0 || strcmp(op, "!=") == 0) {
        int e = obj_eq(I, l, r);
        if (e < 0) {
            if (l->kind == O_DIM || r->kind == O_DIM)
                return interp_break(I, node, RULE_TNG204, "comparison on a dynamic dimension");
            return obj_unknown(I, NULL);
        }
        return obj_bool(I, op[0] == '=' ? e : !e);
    }
    double a, b;
    int64_t p, q;
    if (obj_int_value(l, &p) && obj_int_value(r, &q)) {   /* exact: no double above 2^53 */
        a = p < q ? -1 : p > q;
        b = 0;
    } else if (l->kind == O_DIM || r->kind == O_DIM) {
        int64_t x, y;
        DimId da = obj_as_dim(I, l), db = obj_as_dim(I, r);
        if (da < 0 || db < 0 || !graph_dim_const_value(I->g, da, &x) || !graph_dim_const_value(I->g, db, &y))
            return interp_break(I, node, RULE_TNG204, "comparison on a dynamic dimension");
        a = (double)x, b = (double)y;
    } else if (l->kind == O_STR && r->kind == O_STR) {
        a = strcmp(l->s, r->s), b = 0;
    } else if (!obj_num_value(l, &a) || !obj_num_value(r, &b)) {
        return obj_unknown(I, NULL);
    }
    int res = strcmp(op, "<") == 0 ? a < b : strcmp(op, "<=") == 0 ? a <= b :
              strcmp(op, ">") == 0 ? a > b : a >= b;
    return obj_bool(I, res);
}

/* ===================================================================== */
/* Config objects                                                        */
/* ===================================================================== */

/* What a script reads and sets on a CompilerConfig follows TorchAir's
 * schema (data/torchair/, the newest commit): sections and option objects
 * are sub-objects, `cfg.x.value` reads option x as OptionValue.value does
 * and `cfg.x.value = v` sets x (the same setter, _option_base.py:42-48),
 * and a field never set has its TorchAir default. */

/* The schema row of path in the newest TorchAir, or NULL. */
static const TorchairField *config_schema(const char *path)
{
    for (size_t i = 0; i < torchair_nfields; i++)
        if ((torchair_fields[i].versions & 1u) && strcmp(torchair_fields[i].path, path) == 0)
            return &torchair_fields[i];
    return NULL;
}

/* An OptionValue (or a subclass): an object with a .value. */
static int config_is_option(const TorchairField *f)
{
    return f && f->kind != TK_SECTION && f->kind != TK_PLAIN && f->kind != TK_PROPERTY && f->kind != TK_NPUGRAPHEX;
}

static Obj *config_literal(Interp *I, const TorchairLit *t)
{
    switch (t->kind) {
    case TL_BOOL: return obj_bool(I, (int)t->i);
    case TL_INT: return obj_int(I, t->i);
    case TL_STR: return obj_str(I, t->s);
    case TL_NONE: break;
    }
    return obj_none(I);
}

/* The value of field path: its last assignment, else TorchAir's default;
 * NULL for a path the schema does not have and no assignment sets. */
static Obj *config_field(Interp *I, ConfigObj *cfg, const char *path)
{
    for (size_t i = cfg->fields.n; i-- > 0;)
        if (strcmp(cfg->fields.v[i].path, path) == 0)
            return cfg->fields.v[i].value;
    const TorchairField *f = config_schema(path);
    return f && f->kind != TK_SECTION ? config_literal(I, &f->dflt) : NULL;
}

/* OptionValue.value: None, "1" for True, "0" for False, else str(v);
 * IntListValue, DictOptionValue and CallableValue return v itself. */
static Obj *config_option_value(Interp *I, const TorchairField *f, Obj *v)
{
    if (!v || f->kind == TK_INT_LIST || f->kind == TK_DICT || f->kind == TK_CALLABLE)
        return v ? v : obj_unknown(I, NULL);
    switch (v->kind) {
    case O_NONE: case O_STR: return v;
    case O_BOOL: return obj_str(I, v->i ? "1" : "0");
    case O_INT: return obj_str(I, interp_printf(I, "%lld", (long long)v->i));
    default: return obj_unknown(I, NULL);
    }
}

static Obj *config_sub(Interp *I, ConfigObj *cfg, const char *path)
{
    Obj *sub = obj_new(I, O_CONFIG);
    sub->cfg = cfg;
    sub->s = path;
    return sub;
}

/* cfg.<prefix>.name */
static Obj *config_get(Interp *I, Obj *c, const char *name)
{
    const char *path = c->s && *c->s ? interp_printf(I, "%s.%s", c->s, name) :
                       interp_strndup(I, name, strlen(name));
    const TorchairField *owner = c->s && *c->s ? config_schema(c->s) : NULL;
    if (config_is_option(owner) && strcmp(name, "value") == 0)
        return config_option_value(I, owner, config_field(I, c->cfg, c->s));
    const TorchairField *f = config_schema(path);
    if (f && (f->kind == TK_SECTION || config_is_option(f)))
        return config_sub(I, c->cfg, path);
    Obj *v = config_field(I, c->cfg, path);
    /* unknown fields are lint's TNG164; reading one gives a sub-object */
    return v ? v : config_sub(I, c->cfg, path);
}

/* cfg.<prefix>.name = val; `x.value = v` is recorded as `x = v`. */
static void config_set(Interp *I, Obj *c, const char *name, Obj *val, int32_t node)
{
    ConfigFieldObj f;
    if (c->s && *c->s && strcmp(name, "value") == 0 && config_is_option(config_schema(c->s)))
        f.path = c->s;
    else
        f.path = c->s && *c->s ? interp_printf(I, "%s.%s", c->s, name) : interp_strndup(I, name, strlen(name));
    f.value = val;
    f.node = node;
    VEC_PUSH(c->cfg->fields, f);
}

/* A config field set to a value tngc cannot evaluate changes the rules the
 * plan follows (mode, static kernels, gear policy): TNG205 at the
 * assignment rather than a silent default. */
static void config_unknowns(Interp *I, ConfigObj *cfg)
{
    for (size_t i = 0; i < cfg->fields.n; i++) {
        ConfigFieldObj *f = &cfg->fields.v[i];
        if (f->value->kind == O_UNKNOWN && !unknown_reported(f->value)) {
            interp_diag(I, f->node, RULE_TNG205, "the value of config field '%s' is not known at "
                        "compile time: tngc would plan with the wrong options", f->path);
            unknown_mark(I, f->value);
        }
    }
}

/* The entry's options from its compile call and config. */
static EntryConfig entry_config(Interp *I, CompiledObj *c)
{
    EntryConfig e = {0};
    e.mode = "max-autotune";
    e.dynamic = c->dynamic;
    e.fullgraph = c->fullgraph;
    e.is_cache = c->is_cache;
    e.cache_dir = c->cache_dir;
    e.policy = GEAR_ZIP;
    if (!c->cfg)
        return e;
    config_unknowns(I, c->cfg);
    Obj *o = config_field(I, c->cfg, "mode");
    if (o && o->kind == O_STR)
        e.mode = o->s;
    o = config_field(I, c->cfg, "experimental_config.aclgraph._aclnn_static_shape_kernel");
    e.static_kernel = o && (o->kind == O_BOOL || o->kind == O_INT) && o->i != 0;
    o = config_field(I, c->cfg, "experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir");
    e.build_dir = o && o->kind == O_STR ? o->s : NULL;
    o = config_field(I, c->cfg, "ge_config.enable_single_stream");
    e.single_stream = o && (o->kind == O_BOOL || o->kind == O_INT) && o->i != 0;
    o = config_field(I, c->cfg, "inference_config.dynamic_gears_merge_policy");
    e.policy = obj_is_str(o, "product") ? GEAR_PRODUCT : GEAR_ZIP;
    return e;
}

/* ===================================================================== */
/* Calls: arguments                                                      */
/* ===================================================================== */

Obj *args_kw(const CallArgs *a, const char *name)
{
    for (size_t i = 0; i < a->nkw; i++)
        if (strcmp(a->kwnames[i], name) == 0)
            return a->kw[i];
    return NULL;
}

Obj *args_get(const CallArgs *a, size_t pos, const char *name)
{
    if (pos < a->npos)
        return a->pos[pos];
    return name ? args_kw(a, name) : NULL;
}

typedef struct ArgBuf {
    VEC(Obj *) pos;
    VEC(const char *) kwnames;
    VEC(Obj *) kw;
} ArgBuf;

static void argbuf_free(ArgBuf *b)
{
    VEC_FREE(b->pos);
    VEC_FREE(b->kwnames);
    VEC_FREE(b->kw);
}

/* Copies the buffers into the arena so that CallArgs outlive them. */
static CallArgs argbuf_finish(Interp *I, ArgBuf *b, int32_t node)
{
    CallArgs a = {0};
    a.node = node;
    a.npos = b->pos.n;
    a.nkw = b->kw.n;
    a.pos = interp_alloc(I, (a.npos + 1) * sizeof *a.pos);
    a.kw = a.nkw ? interp_alloc(I, (a.nkw + 1) * sizeof *a.kw) : I->no_kw;
    a.kwnames = a.nkw ? interp_alloc(I, (a.nkw + 1) * sizeof *a.kwnames) : I->no_kwnames;
    if (a.npos)
        memcpy(a.pos, b->pos.v, a.npos * sizeof *a.pos);
    if (a.nkw) {
        memcpy(a.kw, b->kw.v, a.nkw * sizeof *a.kw);
        memcpy(a.kwnames, b->kwnames.v, a.nkw * sizeof *a.kwnames);
    }
    argbuf_free(b);
    return a;
}

/* (a, *b, k=v, **d) */
static CallArgs eval_args(Interp *I, Frame *f, int32_t arglist, int32_t node)
{
    ArgBuf b = {0};
    int star = 0;
    if (arglist >= 0 && N(I, arglist)->kind == NK_generator_expression) {
        VEC_PUSH(b.pos, eval(I, f, arglist));
    } else if (arglist >= 0) {
        FOR_CHILDREN(I, arglist, c) {
            const Node *nd = N(I, c);
            if (nd->kind == NK_keyword_argument) {
                int32_t name = ast_field(I->ast, c, F_name), value = ast_field(I->ast, c, F_value);
                if (name < 0 || value < 0)
                    continue;
                VEC_PUSH(b.kwnames, node_str(I, name));
                VEC_PUSH(b.kw, eval(I, f, value));
            } else if (nd->kind == NK_list_splat) {
                Obj *o = eval(I, f, child(I, c, 0) >= 0 ? child(I, c, 0) : c);
                Obj *items = iter_view(I, o, c);
                if (!items) {
                    star = 1;
                    continue;
                }
                for (size_t i = 0; i < items->n; i++)
                    VEC_PUSH(b.pos, items->items[i]);
            } else if (nd->kind == NK_dictionary_splat) {
                Obj *o = eval(I, f, child(I, c, 0));
                if (o->kind != O_DICT) {
                    star = 1;
                    continue;
                }
                for (size_t i = 0; i + 1 < o->n; i += 2)
                    if (o->items[i]->kind == O_STR) {
                        VEC_PUSH(b.kwnames, o->items[i]->s);
                        VEC_PUSH(b.kw, o->items[i + 1]);
                    }
            } else {
                VEC_PUSH(b.pos, eval(I, f, c));
            }
        }
    }
    CallArgs a = argbuf_finish(I, &b, node);
    a.has_star = star;
    return a;
}

/* ===================================================================== */
/* Calls: script functions                                               */
/* ===================================================================== */

/* The parameters node of a def or lambda. */
static int32_t func_params(Interp *I, int32_t def)
{
    return ast_field(I->ast, def, F_parameters);
}

/* Name of a parameter node (identifier, typed, default, splats). */
static const char *param_name(Interp *I, int32_t p, int *kind)
{
    /* kind: 0 normal, 1 *args, 2 **kwargs, 3 bare * or / */
    *kind = 0;
    switch ((NodeKind)N(I, p)->kind) {
    case NK_identifier: return node_str(I, p);
    case NK_typed_parameter: {
        int32_t c = child(I, p, 0);
        if (c >= 0 && N(I, c)->kind == NK_list_splat_pattern)
            *kind = 1, c = child(I, c, 0);
        else if (c >= 0 && N(I, c)->kind == NK_dictionary_splat_pattern)
            *kind = 2, c = child(I, c, 0);
        return c >= 0 ? node_str(I, c) : NULL;
    }
    case NK_default_parameter: case NK_typed_default_parameter: {
        int32_t c = ast_field(I->ast, p, F_name);
        return c >= 0 ? node_str(I, c) : NULL;
    }
    case NK_list_splat_pattern: *kind = 1; return child(I, p, 0) >= 0 ? node_str(I, child(I, p, 0)) : NULL;
    case NK_dictionary_splat_pattern: *kind = 2; return child(I, p, 0) >= 0 ? node_str(I, child(I, p, 0)) : NULL;
    default: *kind = 3; return NULL;
    }
}

static InterpFunc *func_new(Interp *I, Frame *f, int32_t def, InterpClass *cls, const char *prefix)
{
    InterpFunc *fn = interp_alloc(I, sizeof *fn);
    fn->node = def;
    fn->cls = cls;
    fn->closure = f;
    frame_keep(I, f);
    int32_t name = ast_field(I->ast, def, F_name);
    fn->name = name >= 0 ? node_str(I, name) : "<lambda>";
    fn->qualname = prefix ? interp_printf(I, "%s.%s", prefix, fn->name) : fn->name;
    int32_t ps = func_params(I, def);
    size_t np = 0;
    if (ps >= 0)
        FOR_CHILDREN(I, ps, p) np++;
    fn->nparams = np;
    fn->defaults = interp_alloc(I, (np + 1) * sizeof *fn->defaults);
    size_t i = 0;
    if (ps >= 0)
        FOR_CHILDREN(I, ps, p) {
            int32_t v = ast_field(I->ast, p, F_value);
            if ((N(I, p)->kind == NK_default_parameter || N(I, p)->kind == NK_typed_default_parameter) && v >= 0)
                fn->defaults[i] = eval(I, f, v);
            i++;
        }
    return fn;
}

/* Binds a call's arguments to fn's parameters in frame fr. */
/* While tracing, arguments that no parameter takes are Python's
 * TypeError: reported rather than dropped. */
static void bind_extra_args(Interp *I, InterpFunc *fn, int32_t ps, size_t used_pos, CallArgs *a)
{
    int has_varargs = 0, has_varkw = 0;
    FOR_CHILDREN(I, ps, p) {
        int kind;
        param_name(I, p, &kind);
        has_varargs |= kind == 1;
        has_varkw |= kind == 2;
    }
    if (!has_varargs && used_pos < a->npos)
        interp_diag(I, a->node, RULE_TNG205, "%s takes %zu positional arguments but this call passes %zu",
                    fn->qualname, used_pos, a->npos);
    for (size_t k = 0; !has_varkw && k < a->nkw; k++) {
        int found = 0;
        FOR_CHILDREN(I, ps, p) {
            int kind;
            const char *n = param_name(I, p, &kind);
            found |= kind == 0 && n && strcmp(n, a->kwnames[k]) == 0;
        }
        if (!found)
            interp_diag(I, a->node, RULE_TNG205, "%s has no parameter '%s'", fn->qualname, a->kwnames[k]);
    }
}

static void bind_params(Interp *I, InterpFunc *fn, Frame *fr, Obj *self_obj, CallArgs *a)
{
    int32_t ps = func_params(I, fn->node);
    size_t pi = 0, ai = 0, idx = 0;
    int kwonly = 0;
    if (ps < 0)
        return;
    FOR_CHILDREN(I, ps, p) {
        int kind;
        const char *name = param_name(I, p, &kind);
        Obj *val = NULL;
        if (kind == 3) {
            kwonly = 1;
        } else if (kind == 1) {
            Obj *rest = obj_seq(I, O_TUPLE);
            for (; ai < a->npos; ai++)
                items_push(I, rest, a->pos[ai]);
            val = a->has_star ? obj_unknown(I, NULL) : rest;
            kwonly = 1;
        } else if (kind == 2) {
            Obj *d = obj_seq(I, O_DICT);
            for (size_t k = 0; k < a->nkw; k++) {
                int used = 0;
                int32_t q = ps;
                FOR_CHILDREN(I, q, p2) {
                    int k2;
                    const char *n2 = param_name(I, p2, &k2);
                    if (k2 == 0 && n2 && strcmp(n2, a->kwnames[k]) == 0)
                        used = 1;
                }
                if (!used) {
                    items_push(I, d, obj_str(I, a->kwnames[k]));
                    items_push(I, d, a->kw[k]);
                }
            }
            val = d;
        } else if (pi == 0 && self_obj) {
            val = self_obj;
        } else {
            if (!kwonly && ai < a->npos)
                val = a->pos[ai++];
            else if (name)
                val = args_kw(a, name);
            if (!val && fn->defaults[idx])
                val = fn->defaults[idx];
            if (!val && I->tracing && !a->has_star) {
                interp_diag(I, a->node, RULE_TNG205, "missing argument '%s' in this call of %s",
                            name ? name : "?", fn->qualname);
                val = obj_unknown_reported(I);
            }
            if (!val)
                val = obj_unknown(I, "a missing argument");
        }
        if (kind != 3)
            pi++;
        if (name && val)
            frame_assign(I, fr, name, val);
        idx++;
    }
    if (I->tracing && !a->has_star)
        bind_extra_args(I, fn, ps, ai, a);
}

static Obj *call_func(Interp *I, InterpFunc *fn, Obj *self_obj, CallArgs *a)
{
    if (I->depth >= INTERP_MAX_DEPTH) {
        interp_limit(I, a->node, "calls nested more than 64 deep (recursion?)");
        return obj_unknown(I, NULL);
    }
    Frame *fr = interp_frame(fn->closure);
    bind_params(I, fn, fr, self_obj, a);
    I->depth++;
    Obj *ret;
    int32_t body = ast_field(I->ast, fn->node, F_body);
    if (N(I, fn->node)->kind == NK_lambda) {
        ret = body >= 0 ? eval(I, fr, body) : obj_none(I);
    } else {
        I->ret = NULL;
        Flow fl = body >= 0 ? exec_block(I, fr, body) : FLOW_NEXT;
        ret = fl == FLOW_RETURN && I->ret ? I->ret : fl == FLOW_ABORT ? obj_unknown(I, NULL) : obj_none(I);
        I->ret = NULL;
    }
    I->depth--;
    frame_release(I, fr);
    return ret;
}

static InterpFunc *class_method(InterpClass *cls, const char *name, InterpClass **owner)
{
    for (int guard = 0; cls && guard < 64; cls = cls->base, guard++)
        for (size_t i = 0; i < cls->attrs.n; i++)
            if (strcmp(cls->attrs.names[i], name) == 0 && cls->attrs.vals[i]->kind == O_FUNC) {
                if (owner)
                    *owner = cls;
                return cls->attrs.vals[i]->func;
            }
    return NULL;
}

static Obj *class_attr(InterpClass *cls, const char *name)
{
    for (int guard = 0; cls && guard < 64; cls = cls->base, guard++)
        for (size_t i = cls->attrs.n; i-- > 0;)
            if (strcmp(cls->attrs.names[i], name) == 0)
                return cls->attrs.vals[i];
    return NULL;
}

static Obj *instantiate(Interp *I, InterpClass *cls, CallArgs *a)
{
    Obj *inst = obj_new(I, O_INST);
    inst->cls = cls;
    inst->node = a->node;
    InterpFunc *init = class_method(cls, "__init__", NULL);
    if (init)
        call_func(I, init, inst, a);
    return inst;
}

/* ===================================================================== */
/* Calls: TorchAir and torch entry points handled here                   */
/* ===================================================================== */

static Obj *make_scope(Interp *I, const char *kind, CallArgs *a)
{
    Obj *s = obj_new(I, O_SCOPE);
    s->s = kind;
    s->node = a->node;
    Obj *x = strcmp(kind, "stream") == 0 ? args_get(a, 0, "stream_tag") : args_get(a, 0, "scope");
    Obj *y = strcmp(kind, "stream") == 0 ? args_get(a, 1, "stream_priority") : args_get(a, 1, "options");
    items_push(I, s, x ? x : obj_none(I));
    items_push(I, s, y ? y : obj_none(I));
    return s;
}

static int tri_arg(Interp *I, Obj *o, int32_t node)
{
    if (!o)
        return -1;
    if (o->kind == O_UNKNOWN && !unknown_reported(o)) {
        interp_diag(I, node, RULE_TNG205,
                    "a torch.compile flag (dynamic=, fullgraph=) is not known at compile time");
        unknown_mark(I, o);
    }
    int t = obj_truth(I, o);
    return o->kind == O_NONE ? -1 : t;
}

/* A torch.nn module instance (nn.Sequential, nn.Linear, ...). */
static int is_torch_module(const Obj *o)
{
    return o && o->kind == O_INST && !o->cls && o->s;
}

/* A new compiled entry (a copy of `from`'s options when not NULL) made at
 * node, with its target; every one is listed in I->compiled. */
static Obj *compiled_new(Interp *I, const CompiledObj *from, Obj *target, int32_t node)
{
    Obj *o = obj_new(I, O_COMPILED);
    CompiledObj *c = interp_alloc(I, sizeof *c);
    if (from)
        *c = *from;
    c->target = target;
    c->node = from ? from->node : node;
    o->comp = c;
    o->node = node;
    VEC_PUSH(I->compiled, c);
    return o;
}

static Obj *do_torch_compile(Interp *I, CallArgs *a)
{
    Obj *model = args_get(a, 0, "model");
    if (model && model->kind == O_METHOD && is_torch_module(model->self_obj) &&
        (!strcmp(model->s, "forward") || !strcmp(model->s, "__call__")))
        model = model->self_obj;   /* torch.compile(seq.forward): the module's forward */
    Obj *o = compiled_new(I, NULL, model && model->kind != O_NONE ? model : NULL, a->node);
    CompiledObj *c = o->comp;
    c->dynamic = tri_arg(I, args_kw(a, "dynamic"), a->node);
    c->fullgraph = tri_arg(I, args_kw(a, "fullgraph"), a->node);
    Obj *backend = args_kw(a, "backend");
    c->cfg = backend && backend->kind == O_BACKEND ? backend->cfg : NULL;
    return o;
}

static Obj *do_cache_compile(Interp *I, CallArgs *a)
{
    Obj *o = compiled_new(I, NULL, args_get(a, 0, "func"), a->node);
    CompiledObj *c = o->comp;
    c->is_cache = 1;
    c->dynamic = tri_arg(I, args_kw(a, "dynamic"), a->node);
    if (c->dynamic < 0)
        c->dynamic = 1;        /* cache_compile's default */
    c->fullgraph = 1;
    Obj *cfg = args_kw(a, "config");
    c->cfg = cfg && cfg->kind == O_CONFIG ? cfg->cfg : NULL;
    Obj *dir = args_kw(a, "cache_dir");
    c->cache_dir = dir && dir->kind == O_STR ? dir->s : NULL;
    return o;
}

/* npu_wait_tensor(a, b): later users of a wait for b's producer. */
static Obj *do_wait_tensor(Interp *I, CallArgs *a)
{
    Obj *x = args_get(a, 0, "self"), *y = args_get(a, 1, "dependency");
    if (!x || !y || x->kind != O_TENSOR || y->kind != O_TENSOR)
        return x ? x : obj_unknown(I, NULL);
    if (!I->tracing)
        return x;
    x = trace_in(I, x, a->node);
    y = trace_in(I, y, a->node);
    if (x->kind != O_TENSOR || y->kind != O_TENSOR)
        return x;
    WaitEdge w = {x->t->value, y->t->value};
    VEC_PUSH(I->waits, w);
    return x;
}

static Obj *call_builtin_here(Interp *I, const char *name, CallArgs *a, int *handled)
{
    *handled = 1;
    if (strcmp(name, "torch.compile") == 0)
        return do_torch_compile(I, a);
    if (strcmp(name, "torchair.inference.cache_compile") == 0)
        return do_cache_compile(I, a);
    if (strcmp(name, "torchair.get_npu_backend") == 0 || strcmp(name, "torchair.npu_fx_compiler.get_npu_backend") == 0) {
        Obj *o = obj_new(I, O_BACKEND);
        Obj *cfg = args_get(a, 0, "compiler_config");
        o->cfg = cfg && cfg->kind == O_CONFIG ? cfg->cfg : NULL;
        return o;
    }
    if (strcmp(name, "torchair.CompilerConfig") == 0) {
        Obj *o = obj_new(I, O_CONFIG);
        o->cfg = interp_alloc(I, sizeof *o->cfg);
        o->cfg->node = a->node;
        VEC_PUSH(I->configs, o->cfg);
        o->s = "";
        return o;
    }
    if (strcmp(name, "torchair.scope.npu_stream_switch") == 0)
        return make_scope(I, "stream", a);
    if (strcmp(name, "torchair.scope.super_kernel") == 0)
        return make_scope(I, "super_kernel", a);
    if (strcmp(name, "torchair.scope.limit_core_num") == 0 || strcmp(name, "torch.no_grad") == 0 ||
        strcmp(name, "torch.inference_mode") == 0 || strcmp(name, "torch.enable_grad") == 0) {
        Obj *s = obj_new(I, O_SCOPE);
        s->s = "null";
        return s;
    }
    if (strcmp(name, "torchair.scope.npu_wait_tensor") == 0)
        return do_wait_tensor(I, a);
    if (strcmp(name, "torchair.inference.set_dim_gears") == 0) {
        Obj *t = args_get(a, 0, "t"), *d = args_get(a, 1, "dim_gears");
        if (t && t->kind == O_TENSOR && d && d->kind == O_DICT && !I->tracing) {
            t->t->gears = d;
            t->t->gears_node = a->node;
        }
        return obj_none(I);
    }
    if (strcmp(name, "torch._dynamo.mark_static") == 0) {
        Obj *t = args_get(a, 0, "t");
        Obj *index = args_get(a, 1, "index");
        int64_t d;
        if (t && t->kind == O_TENSOR && !I->tracing) {
            if (index && obj_int_value(index, &d) && d >= 0 && d < 31)
                t->t->marked_static |= 1 << d;   /* mark_static(t, index): that dim */
            else if (!index || index->kind == O_NONE)
                t->t->marked_static = -1;         /* every dim */
        }
        return obj_none(I);
    }
    if (strcmp(name, "isinstance") == 0 || strcmp(name, "hasattr") == 0 ||
        strcmp(name, "callable") == 0 || strcmp(name, "id") == 0 || strcmp(name, "type") == 0)
        return obj_unknown(I, NULL);
    if (strcmp(name, "getattr") == 0) {
        Obj *o = args_get(a, 0, NULL), *n = args_get(a, 1, NULL), *d = args_get(a, 2, NULL);
        if (o && n && n->kind == O_STR) {
            Obj *r = getattr_obj(I, o, n->s, a->node);
            if (r->kind != O_UNKNOWN || !d)
                return r;
        }
        return d ? d : obj_unknown(I, NULL);
    }
    if (strcmp(name, "setattr") == 0) {
        Obj *o = args_get(a, 0, NULL), *n = args_get(a, 1, NULL), *v = args_get(a, 2, NULL);
        if (o && n && v && n->kind == O_STR && o->kind == O_INST)
            obj_setattr(I, o, n->s, v);
        return obj_none(I);
    }
    *handled = 0;
    return NULL;
}

/* ===================================================================== */
/* Calls: methods of Python containers and modules                       */
/* ===================================================================== */

static int seq_index(const Obj *seq, Obj *key, size_t *out);

/* list.remove(x): 1 removed, 0 when tngc cannot tell which item is x. */
static int list_remove(Interp *I, Obj *self, Obj *x)
{
    for (size_t i = 0; i < self->n; i++) {
        int e = obj_eq(I, self->items[i], x);
        if (e < 0)
            return 0;
        if (e == 1) {
            memmove(&self->items[i], &self->items[i + 1], (self->n - 1 - i) * sizeof(Obj *));
            self->n--;
            return 1;
        }
    }
    return 0;   /* ValueError in Python */
}

static Obj *call_list_method(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    Obj *x = args_get(a, 0, NULL);
    if (strcmp(m, "append") == 0 && x) {
        if (self->n >= INTERP_MAX_ITEMS) {
            interp_limit(I, a->node, "a list of more than 100,000 items");
            return obj_none(I);
        }
        items_push(I, self, x);
        return obj_none(I);
    }
    if (strcmp(m, "extend") == 0 && x) {
        Obj *it = iter_items(I, x, a->node);
        if (!it) {
            obj_forget(I, self, x, a->node, "the argument of list.extend");
            return obj_none(I);
        }
        if (self->n + it->n > INTERP_MAX_ITEMS) {
            interp_limit(I, a->node, "a list of more than 100,000 items");
            return obj_none(I);
        }
        for (size_t i = 0; i < it->n; i++)
            items_push(I, self, it->items[i]);
        return obj_none(I);
    }
    if (strcmp(m, "pop") == 0) {
        size_t at = self->n - 1;
        if (self->n == 0 || (x && !seq_index(self, x, &at))) {
            obj_forget(I, self, x, a->node, "the index of list.pop");
            return obj_unknown(I, NULL);
        }
        Obj *v = self->items[at];
        memmove(&self->items[at], &self->items[at + 1], (self->n - 1 - at) * sizeof(Obj *));
        self->n--;
        return v;
    }
    if (strcmp(m, "insert") == 0 && x && args_get(a, 1, NULL)) {
        int64_t at;
        if (!obj_int_value(x, &at)) {
            obj_forget(I, self, x, a->node, "the index of list.insert");
            return obj_none(I);
        }
        if (self->n >= INTERP_MAX_ITEMS) {
            interp_limit(I, a->node, "a list of more than 100,000 items");
            return obj_none(I);
        }
        items_push(I, self, args_get(a, 1, NULL));
        int64_t last = (int64_t)self->n - 1;   /* the old length */
        if (at < 0)
            at = at < -last ? 0 : at + last;
        if (at > last)
            at = last;
        Obj *v = self->items[last];
        memmove(&self->items[at + 1], &self->items[at], (size_t)(last - at) * sizeof(Obj *));
        self->items[at] = v;
        return obj_none(I);
    }
    if (strcmp(m, "remove") == 0 && x) {
        if (!list_remove(I, self, x))
            obj_forget(I, self, x, a->node, "the argument of list.remove");
        return obj_none(I);
    }
    if (strcmp(m, "clear") == 0 && !x) {
        self->n = 0;
        return obj_none(I);
    }
    if (strcmp(m, "reverse") == 0 && !x) {
        for (size_t i = 0; i < self->n / 2; i++) {
            Obj *t = self->items[i];
            self->items[i] = self->items[self->n - 1 - i];
            self->items[self->n - 1 - i] = t;
        }
        return obj_none(I);
    }
    return NULL;
}

/* dict.update(mapping, **kw) with a dict or keywords; 0 otherwise. */
static int dict_update(Interp *I, Obj *self, CallArgs *a)
{
    Obj *x = args_get(a, 0, NULL);
    if ((x && x->kind != O_DICT) || a->npos > 1 || a->has_star)
        return 0;
    if (x && self->n + x->n > 2 * INTERP_MAX_ITEMS) {
        interp_limit(I, a->node, "a dict of more than 100,000 items");
        return 1;
    }
    for (size_t i = 0; x && i + 1 < x->n; i += 2)
        if (dict_find(I, self, x->items[i]) == -2)
            return 0;
    for (size_t i = 0; x && i + 1 < x->n; i += 2)
        dict_set(I, self, x->items[i], x->items[i + 1]);
    for (size_t i = 0; i < a->nkw; i++)
        dict_set(I, self, obj_str(I, a->kwnames[i]), a->kw[i]);
    return 1;
}

static Obj *call_dict_method(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    Obj *x = args_get(a, 0, NULL);
    if (strcmp(m, "get") == 0 && x) {
        long i = dict_find(I, self, x);
        if (i >= 0)
            return trace_in(I, self->items[i], a->node);
        Obj *d = args_get(a, 1, "default");
        return i == -1 ? (d ? d : obj_none(I)) : obj_unknown(I, NULL);
    }
    if (strcmp(m, "keys") == 0 || strcmp(m, "values") == 0 || strcmp(m, "items") == 0) {
        Obj *out = obj_seq(I, O_LIST);
        for (size_t i = 0; i + 1 < self->n; i += 2) {
            if (m[0] == 'k')
                items_push(I, out, self->items[i]);
            else if (m[0] == 'v')
                items_push(I, out, self->items[i + 1]);
            else {
                Obj *pair[2] = {self->items[i], self->items[i + 1]};
                items_push(I, out, obj_tuple(I, pair, 2));
            }
        }
        return out;
    }
    if (strcmp(m, "update") == 0) {
        if (!dict_update(I, self, a))
            obj_forget(I, self, x, a->node, "the argument of dict.update");
        return obj_none(I);
    }
    if ((strcmp(m, "setdefault") == 0 || strcmp(m, "pop") == 0) && x) {
        long i = dict_find(I, self, x);
        Obj *d = args_get(a, 1, NULL);
        if (i == -2) {   /* tngc cannot tell whether the key is there */
            obj_forget(I, self, x, a->node, interp_printf(I, "the key of dict.%s", m));
            return obj_unknown(I, NULL);
        }
        if (m[0] == 'p') {
            if (i < 0)
                return d ? d : obj_unknown(I, NULL);   /* KeyError without a default */
            Obj *v = self->items[i];
            memmove(&self->items[i - 1], &self->items[i + 1], (self->n - 1 - (size_t)i) * sizeof(Obj *));
            self->n -= 2;
            return v;
        }
        if (i >= 0)
            return self->items[i];
        dict_set(I, self, x, d ? d : obj_none(I));
        return d ? d : obj_none(I);
    }
    if (strcmp(m, "clear") == 0 && !x) {
        self->n = 0;
        return obj_none(I);
    }
    return NULL;
}

/* The methods of list and dict that change the container: one tngc does
 * not model (or cannot apply) leaves it unknown (obj_forget). */
static int container_mutator(const char *m)
{
    static const char *const names[] = {
        "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update",
        "setdefault", "popitem", "__setitem__", "__delitem__", "__iadd__"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(m, names[i]) == 0)
            return 1;
    return 0;
}

static Obj *call_container_method(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    Obj *r = self->kind == O_LIST ? call_list_method(I, m, self, a) : call_dict_method(I, m, self, a);
    if (!r && container_mutator(m)) {
        obj_forget(I, self, NULL, a->node, interp_printf(I, "%s.%s as called here is not among what tngc "
                   "evaluates", self->kind == O_LIST ? "list" : "dict", m));
        return I->tracing ? obj_unknown_reported(I) : obj_unknown(I, NULL);
    }
    return r;
}

/* register_buffer / register_parameter and the module methods that return
 * the module itself in the compilable subset. */
static Obj *call_module_method(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    if (strcmp(m, "register_buffer") == 0 || strcmp(m, "register_parameter") == 0) {
        Obj *n = args_get(a, 0, "name"), *t = args_get(a, 1, m[9] == 'b' ? "tensor" : "param");
        if (n && n->kind == O_STR && t) {
            if (t->kind == O_TENSOR) {
                if (m[9] == 'b')
                    t->t->is_buffer = 1;
                else
                    t->t->is_param = 1;
            }
            obj_setattr(I, self, n->s, t);
        }
        return obj_none(I);
    }
    if (strcmp(m, "add_module") == 0 || strcmp(m, "register_module") == 0) {
        Obj *n = args_get(a, 0, "name"), *mod = args_get(a, 1, "module");
        if (n && n->kind == O_STR && mod) {
            obj_setattr(I, self, n->s, mod);
            if (self->s && strcmp(self->s, "torch.nn.Sequential") == 0)
                items_push(I, self, mod);
        }
        return obj_none(I);
    }
    static const char *const same[] = {"npu", "cuda", "cpu", "eval", "train", "requires_grad_",
                                       "to", "half", "float", "bfloat16", "double", "share_memory"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++)
        if (strcmp(m, same[i]) == 0) {
            if (strcmp(m, "half") == 0 || strcmp(m, "float") == 0 || strcmp(m, "bfloat16") == 0 ||
                strcmp(m, "to") == 0)
                torchlib_call(I, m, self, a);   /* re-types parameters; returns the module */
            return self;
        }
    return NULL;
}

/* ===================================================================== */
/* Calls: dispatch                                                       */
/* ===================================================================== */

/* A method decorated with @torch.compile, read through an instance: one
 * compiled entry per instance, bound to it. */
static Obj *bind_compiled(Interp *I, Obj *inst, const char *name, Obj *fa)
{
    const char *key = interp_printf(I, "\x01%s", name);
    Obj *memo = obj_getattr(inst, key);
    if (memo)
        return memo;
    Obj *b = obj_new(I, O_BOUND);
    b->func = fa->comp->target->func;
    b->self_obj = inst;
    memo = compiled_new(I, fa->comp, b, fa->node);
    fa->comp->skipped = 1;   /* the unbound one is not an entry of its own */
    obj_setattr(I, inst, key, memo);
    return memo;
}

static int is_unbound_compiled(const Obj *o)
{
    return o && o->kind == O_COMPILED && o->comp->target && o->comp->target->kind == O_FUNC &&
           o->comp->target->func->cls;
}

/* After a torch function or tensor method returned r while tracing: an
 * unknown result must have a reported cause. When the library reported
 * nothing (ndiag unchanged) and an argument was an unknown nobody reported,
 * that argument is the cause: report it. */
/* 1 when o is, or a tuple, list or dict holds, an unknown already reported. */
static int holds_reported(const Obj *o, int depth)
{
    if (!o || depth > 8)
        return 0;
    if (unknown_reported(o))
        return 1;
    if (o->kind == O_TUPLE || o->kind == O_LIST || o->kind == O_DICT)
        for (size_t i = 0; i < o->n; i++)
            if (holds_reported(o->items[i], depth + 1))
                return 1;
    return 0;
}

int obj_reported(const Obj *o) { return holds_reported(o, 0); }

static int args_reported(const Obj *self, const CallArgs *a)
{
    int reported = self && unknown_reported(self);
    for (size_t i = 0; i < a->npos + a->nkw; i++)   /* torch.cat([y, y]) with y reported */
        reported |= holds_reported(i < a->npos ? a->pos[i] : a->kw[i - a->npos], 0);
    return reported;
}

static Obj *trace_result(Interp *I, size_t ndiag, Obj *r, const char *name, Obj *self, CallArgs *a)
{
    if (!r || r->kind != O_UNKNOWN || unknown_reported(r))
        return r;
    if (!I->tracing)   /* host code: an unknown made from a reported one stays quiet too */
        return args_reported(self, a) ? obj_unknown_reported(I) : r;
    if (I->sf->diags.n == ndiag) {
        Obj *cause = self && self->kind == O_UNKNOWN ? self : NULL;
        const char *what = "the tensor";
        for (size_t i = 0; !cause && i < a->npos + a->nkw; i++) {
            Obj *o = i < a->npos ? a->pos[i] : a->kw[i - a->npos];
            if (o->kind == O_UNKNOWN && !unknown_reported(o)) {
                cause = o;
                what = i < a->npos ? interp_printf(I, "argument %zu of %s%s", i + 1, self ? "." : "", name)
                                   : interp_printf(I, "argument '%s' of %s%s", a->kwnames[i - a->npos],
                                                  self ? "." : "", name);
            }
        }
        int reported_arg = args_reported(self, a);
        if (cause)
            trace_need(I, cause, a->node, what);
        else if (!reported_arg)   /* unknowns from reported causes stay quiet */
            interp_diag(I, a->node, RULE_TNG205, "the result of %s%s is not known at compile time",
                        self ? "." : "", name);
    }
    unknown_mark(I, r);
    return r;
}

Obj *interp_call(Interp *I, Obj *callee, CallArgs *a)
{
    if (I->aborted)
        return obj_unknown(I, NULL);
    switch (callee->kind) {
    case O_FUNC:
        return call_func(I, callee->func, NULL, a);
    case O_BOUND:
        return call_func(I, callee->func, callee->self_obj, a);
    case O_CLASS:
        return instantiate(I, callee->cls, a);
    case O_INST:
        if (callee->cls) {
            Obj *own = obj_getattr(callee, "forward");
            if (own && own->kind == O_COMPILED)   /* model.forward = torch.compile(model.forward) */
                return interp_call(I, own, a);
            Obj *fa = class_attr(callee->cls, "forward");
            if (is_unbound_compiled(fa))
                return call_compiled(I, bind_compiled(I, callee, "forward", fa)->comp, a);
            InterpFunc *fwd = class_method(callee->cls, "forward", NULL);
            if (!fwd)
                fwd = class_method(callee->cls, "__call__", NULL);
            if (fwd)
                return call_func(I, fwd, callee, a);
            return interp_break(I, a->node, RULE_TNG202, "instance of %s is not callable", callee->cls->name);
        }
        {
            size_t ndiag = I->sf->diags.n;
            return trace_result(I, ndiag, torchlib_call_module(I, callee, a), callee->s, NULL, a);
        }
    case O_COMPILED:
        if (!callee->comp->target) {
            /* @torch.compile(backend=...) applied to a def */
            return compiled_new(I, callee->comp, args_get(a, 0, NULL), a->node);
        }
        return call_compiled(I, callee->comp, a);
    case O_BUILTIN: {
        int handled;
        Obj *r = call_builtin_here(I, callee->s, a, &handled);
        if (handled)
            return r;
        size_t ndiag = I->sf->diags.n;
        r = trace_result(I, ndiag, torchlib_call(I, callee->s, NULL, a), callee->s, NULL, a);
        if (r)
            return r;
        if (strncmp(callee->s, "super", 5) == 0)
            return obj_none(I);
        if (strncmp(callee->s, "torch.", 6) == 0 || strncmp(callee->s, "torch_npu.", 10) == 0)
            return interp_break(I, a->node, RULE_TNG203, "%s is not among the operators tngc "
                                "compiles (docs/rules.md, TNG203)", callee->s);
        return interp_break(I, a->node, RULE_TNG202, "call of '%s', which tngc cannot lower", callee->s);
    }
    case O_METHOD: {
        Obj *self = callee->self_obj;
        Obj *r = NULL;
        if (self->kind == O_UNKNOWN) {   /* a container forgotten since the method was looked up */
            if (I->tracing)
                trace_need(I, self, a->node, "the object whose method is called here");
            return unknown_reported(self) ? obj_unknown_reported(I) : obj_unknown(I, NULL);
        }
        if (self->kind == O_LIST || self->kind == O_DICT)
            r = call_container_method(I, callee->s, self, a);
        else if (self->kind == O_INST)
            r = call_module_method(I, callee->s, self, a);
        if (!r && self->kind == O_TENSOR)
            self = trace_in(I, self, a->node);
        if (!r && (self->kind == O_TENSOR || self->kind == O_INST)) {
            size_t ndiag = I->sf->diags.n;
            r = torchlib_call(I, callee->s, self, a);
            if (self->kind == O_TENSOR)
                r = trace_result(I, ndiag, r, callee->s, self, a);
        }
        if (r)
            return r;
        if (self->kind == O_TENSOR)
            return interp_break(I, a->node, RULE_TNG203, "tensor method '%s' is not in the compilable subset", callee->s);
        return interp_break(I, a->node, RULE_TNG202, "call of method '%s', which tngc cannot lower", callee->s);
    }
    case O_UNKNOWN:
        if (I->tracing) {
            trace_need(I, callee, a->node, "the function or module called here");
            return obj_unknown_reported(I);
        }
        return unknown_reported(callee) ? obj_unknown_reported(I) : obj_unknown(I, NULL);
    default:
        return interp_break(I, a->node, RULE_TNG202, "call of an object that is not callable");
    }
}

/* ===================================================================== */
/* Attributes                                                            */
/* ===================================================================== */

/* The torch.nn.Module methods a script module may call on itself. */
static int module_method_known(const char *name)
{
    static const char *const known[] = {
        "register_buffer", "register_parameter", "add_module", "register_module", "npu", "cuda",
        "cpu", "eval", "train", "requires_grad_", "to", "half", "float", "bfloat16", "double",
        "share_memory", "forward", "parameters", "named_parameters", "buffers", "named_buffers",
        "children", "named_children", "modules", "named_modules", "state_dict",
        "load_state_dict", "apply", "zero_grad", "type"};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (strcmp(name, known[i]) == 0)
            return 1;
    return 0;
}

static Obj *method_obj(Interp *I, const char *name, Obj *self)
{
    Obj *m = obj_new(I, O_METHOD);
    m->s = name;   /* node_str or a string object: lives as long as the run */
    m->self_obj = self;
    return m;
}

static Obj *getattr_obj(Interp *I, Obj *o, const char *name, int32_t node)
{
    Obj *r;
    switch (o->kind) {
    case O_INST:
        if ((r = obj_getattr(o, name)))
            return trace_in(I, r, node);
        if (o->cls) {
            InterpClass *owner = NULL;
            InterpFunc *fn = class_method(o->cls, name, &owner);
            if (fn && fn->binding == 's') {
                Obj *f = obj_new(I, O_FUNC);
                f->func = fn;
                return f;
            }
            if (fn && fn->binding == 'p') {   /* @property: its value */
                CallArgs none = {0};
                none.node = node;
                return call_func(I, fn, o, &none);
            }
            if (fn) {
                Obj *b = obj_new(I, O_BOUND);
                b->func = fn;
                b->self_obj = o;
                if (fn->binding == 'c') {
                    b->self_obj = obj_new(I, O_CLASS);
                    b->self_obj->cls = o->cls;
                }
                return b;
            }
            if ((r = class_attr(o->cls, name)))
                return is_unbound_compiled(r) ? bind_compiled(I, o, name, r) : r;
            if (!module_method_known(name)) {
                if (I->tracing)
                    return interp_break(I, node, RULE_TNG205, "'%s' object has no attribute '%s' that tngc "
                                        "can see (set in __init__, or a method of the class)", o->cls->name, name);
                return obj_unknown(I, NULL);
            }
        } else if ((r = torchlib_getattr(I, o, name, node))) {
            return trace_in(I, r, node);
        }
        return method_obj(I, name, o);
    case O_CLASS:
        r = class_attr(o->cls, name);
        return r ? r : obj_unknown(I, NULL);
    case O_BUILTIN:
        if (strcmp(o->s, "super") == 0) {
            /* super().name: the base class's method, or a library no-op */
            Obj *self = o->self_obj;
            InterpClass *cls = o->cls;
            InterpFunc *fn = cls && cls->base ? class_method(cls->base, name, NULL) : NULL;
            if (fn && self) {
                Obj *b = obj_new(I, O_BOUND);
                b->func = fn;
                b->self_obj = self;
                return b;
            }
            return obj_builtin_attr(I, "super", name);
        }
        if ((r = torchlib_getattr(I, o, name, node)))
            return r;
        return obj_builtin_attr(I, o->s, name);
    case O_TENSOR:
        o = trace_in(I, o, node);
        if (o->kind != O_TENSOR)
            return o;
        if ((r = torchlib_getattr(I, o, name, node)))
            return r;
        return method_obj(I, name, o);
    case O_CONFIG:
        return config_get(I, o, name);
    case O_LIST: case O_DICT: case O_STR: case O_TUPLE:
        return method_obj(I, name, o);
    case O_COMPILED:
        /* attributes of the compiled model are the model's */
        if (o->comp->target)
            return getattr_obj(I, o->comp->target, name, node);
        return obj_unknown(I, NULL);
    default:
        return obj_unknown(I, NULL);
    }
}

static void setattr_obj(Interp *I, Obj *o, const char *name, Obj *val, int32_t node)
{
    if (o->kind == O_INST) {
        Obj *old = obj_getattr(o, name);
        if (I->tracing && old && old->kind == O_TENSOR && old->t->g != I->g && val->kind == O_TENSOR) {
            Shadow *sh = shadow_find(I, old->t);
            if (sh && sh->obj == val)
                return;   /* self.buf += x: updated in place already */
        }
        if (val->kind == O_TENSOR && I->tracing && val->t->g == I->g)
            interp_break(I, node, RULE_TNG211, "assigning a tensor to the module attribute '%s' inside the compiled method", name);
        else
            obj_setattr(I, o, name, val);
    } else if (o->kind == O_CONFIG) {
        config_set(I, o, name, val, node);
    } else if (o->kind == O_COMPILED && o->comp->target) {
        setattr_obj(I, o->comp->target, name, val, node);
    }
}

/* ===================================================================== */
/* Subscripts                                                            */
/* ===================================================================== */

static Obj *eval_slice(Interp *I, Frame *f, int32_t n)
{
    /* slice: [start] ':' [stop] [':' [step]] */
    Obj *s = obj_new(I, O_SLICE);
    Obj *parts[3] = {obj_none(I), obj_none(I), obj_none(I)};
    int k = 0;
    for (int32_t c = N(I, n)->first; c >= 0 && k < 3; c = N(I, c)->next) {
        if (!(N(I, c)->flags & NODE_NAMED)) {
            if (ast_text_is(I->ast, c, ":"))
                k++;
            continue;
        }
        if (N(I, c)->kind != NK_comment)
            parts[k] = eval(I, f, c);
    }
    for (int i = 0; i < 3; i++)
        items_push(I, s, parts[i]);
    return s;
}

static Obj *eval_index(Interp *I, Frame *f, int32_t sub)
{
    /* the subscript field(s): one index, or several making a tuple */
    Obj *idx[GRAPH_MAX_DIMS * 2];
    int n = 0;
    for (int32_t c = N(I, sub)->first; c >= 0; c = N(I, c)->next)
        if (N(I, c)->field == F_subscript && n < (int)(sizeof idx / sizeof *idx))
            idx[n++] = N(I, c)->kind == NK_slice ? eval_slice(I, f, c) : eval(I, f, c);
    if (n == 1)
        return idx[0];
    return obj_tuple(I, idx, (size_t)n);
}

static int seq_index(const Obj *seq, Obj *key, size_t *out)
{
    int64_t i;
    if (!obj_int_value(key, &i))
        return 0;
    if (i < 0)
        i += (int64_t)seq->n;
    if (i < 0 || i >= (int64_t)seq->n)
        return 0;
    *out = (size_t)i;
    return 1;
}

static Obj *seq_slice(Interp *I, Obj *seq, Obj *sl)
{
    int64_t n = (int64_t)seq->n, a = 0, b = n, st = 1;
    if (sl->items[2]->kind != O_NONE && (!obj_int_value(sl->items[2], &st) || st == 0))
        return obj_unknown(I, NULL);
    if (st < 0)
        a = n - 1, b = -n - 1;
    if (sl->items[0]->kind != O_NONE && !obj_int_value(sl->items[0], &a))
        return obj_unknown(I, NULL);
    if (sl->items[1]->kind != O_NONE && !obj_int_value(sl->items[1], &b))
        return obj_unknown(I, NULL);
    if (a < 0) a += n;
    if (b < 0) b += n;
    Obj *o = obj_seq(I, seq->kind == O_INST ? O_LIST : seq->kind);
    if (st > 0) {
        if (a < 0) a = 0;
        if (b > n) b = n;
        for (int64_t i = a; i < b;) {
            items_push(I, o, seq->items[i]);
            if (graph_ckd_add(&i, i, st))
                break;   /* l[1::2**63-1]: past the end */
        }
    } else {
        if (a > n - 1) a = n - 1;
        if (b < -1) b = -1;
        for (int64_t i = a; i > b;) {
            items_push(I, o, seq->items[i]);
            if (graph_ckd_add(&i, i, st))
                break;
        }
    }
    if (seq->kind == O_INST) {
        o->kind = O_INST;
        o->s = seq->s;
    }
    return o;
}

static Obj *subscript_get(Interp *I, Obj *o, Obj *key, int32_t node)
{
    size_t i;
    switch (o->kind) {
    case O_TUPLE: case O_LIST:
        if (key->kind == O_SLICE)
            return seq_slice(I, o, key);
        if (seq_index(o, key, &i))
            return trace_in(I, o->items[i], node);
        if (key->kind == O_INT)
            return interp_break(I, node, RULE_TNG205, "index %lld is out of range", (long long)key->i);
        return obj_unknown(I, NULL);
    case O_INST:
        if (!o->cls && o->s && (strcmp(o->s, "torch.nn.ModuleList") == 0 || strcmp(o->s, "torch.nn.Sequential") == 0)) {
            if (key->kind == O_SLICE)
                return seq_slice(I, o, key);
            if (seq_index(o, key, &i))
                return o->items[i];
        }
        return interp_break(I, node, RULE_TNG205, "subscript of a module tngc cannot resolve");
    case O_DICT: {
        long j = dict_find(I, o, key);
        if (j >= 0)
            return trace_in(I, o->items[j], node);
        if (j == -1 && I->tracing)
            return interp_break(I, node, RULE_TNG205, "key not in the dict");
        return obj_unknown(I, NULL);
    }
    case O_TENSOR:
        o = trace_in(I, o, node);
        if (o->kind != O_TENSOR)
            return o;
        size_t ndiag = I->sf->diags.n;
        Obj *r = torchlib_subscript(I, o, key, node);
        if (r->kind == O_UNKNOWN && I->tracing) {
            if (I->sf->diags.n == ndiag)
                trace_need(I, key, node, "the index");
            unknown_mark(I, r);
        }
        return r;
    case O_STR: {
        int64_t k;
        if (obj_int_value(key, &k)) {
            if (k < 0)
                k += (int64_t)o->len;
            if (k >= 0 && k < (int64_t)o->len)
                return obj_str(I, interp_strndup(I, o->s + k, 1));
        }
        return obj_unknown(I, NULL);
    }
    case O_BUILTIN:
        return o;   /* typing: Optional[dict] */
    default:
        return obj_unknown(I, NULL);
    }
}

static void subscript_set(Interp *I, Obj *o, Obj *key, Obj *val, int32_t node)
{
    size_t i;
    switch (o->kind) {
    case O_LIST:
        if (seq_index(o, key, &i))
            o->items[i] = obj_stored(I, val);
        else   /* an unknown index or a slice: which items changed is not known */
            obj_forget(I, o, key, node, "the index of this list assignment");
        break;
    case O_DICT:
        if (o->n >= 2 * INTERP_MAX_ITEMS) {
            interp_limit(I, node, "a dict of more than 100,000 items");
            break;
        }
        if (dict_find(I, o, key) != -2)
            dict_set(I, o, key, val);
        else
            obj_forget(I, o, key, node, "the key of this dict assignment");
        break;
    case O_TENSOR: {
        Obj *t = trace_in(I, o, node);
        if (trace_need(I, val, node, "the value stored"))
            break;
        if (t->kind == O_TENSOR)
            torchlib_store_subscript(I, t, key, trace_in(I, val, node), node);
        break;
    }
    default:
        if (I->tracing && !unknown_reported(o))
            interp_break(I, node, RULE_TNG211, "assignment to a subscript of an object tngc cannot resolve");
        break;
    }
}

/* ===================================================================== */
/* Expressions                                                           */
/* ===================================================================== */

static Obj *eval_identifier(Interp *I, Frame *f, int32_t n)
{
    const char *name = node_str(I, n);
    Obj *o = frame_lookup(I, f, name);
    if (o)
        return trace_in(I, o, n);
    static const char *const builtins[] = {
        "len", "min", "max", "abs", "int", "float", "bool", "str", "range", "print",
        "isinstance", "getattr", "setattr", "hasattr", "list", "tuple", "dict", "enumerate",
        "zip", "sum", "round", "callable", "id", "type", "reversed", "sorted", "any", "all",
        "super", "set", "map", "object", "Exception", "ValueError", "RuntimeError",
        "NotImplementedError", "staticmethod", "classmethod", "property", "math"};
    for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
        if (strcmp(name, builtins[i]) == 0)
            return obj_builtin(I, name);
    if (strcmp(name, "__name__") == 0)
        return obj_str(I, "__main__");
    if (I->tracing)
        return interp_break(I, n, RULE_TNG205, "name '%s' is not known at compile time", name);
    return obj_unknown(I, NULL);
}

static const char *op_text(Interp *I, int32_t n)
{
    int32_t op = ast_field(I->ast, n, F_operator);
    if (op < 0)
        return "?";
    return node_str(I, op);
}

/* a if c else b */
static Obj *eval_conditional(Interp *I, Frame *f, int32_t n)
{
    int32_t a = child(I, n, 0), c = child(I, n, 1), b = child(I, n, 2);
    if (a < 0 || c < 0 || b < 0)
        return obj_unknown(I, NULL);
    Obj *cond = eval(I, f, c);
    int t = obj_truth(I, cond);
    if (t < 0)
        return cond->kind == O_TENSOR || cond->kind == O_DIM ?
            interp_break(I, c, RULE_TNG204, "conditional expression on a value only known at run time") :
            unknown_from(I, cond);
    return eval(I, f, t ? a : b);
}

/* a < b <= c ... */
static Obj *eval_comparison(Interp *I, Frame *f, int32_t n)
{
    int32_t operands[16];
    const char *ops[16];
    int no = 0, nops = 0;
    for (int32_t c = N(I, n)->first; c >= 0; c = N(I, c)->next) {
        if (N(I, c)->field == F_operators) {
            if (nops < 16) {
                const char *t = node_str(I, c);
                if (nops > 0 && no == nops && (strcmp(t, "in") == 0 || strcmp(t, "not") == 0)) {
                    /* "not" "in" and "is" "not" arrive as two tokens */
                    ops[nops - 1] = interp_printf(I, "%s %s", ops[nops - 1], t);
                } else {
                    ops[nops++] = t;
                }
            }
        } else if ((N(I, c)->flags & NODE_NAMED) && N(I, c)->kind != NK_comment && no < 16) {
            operands[no++] = c;
        }
    }
    if (no < 2 || nops != no - 1)
        return obj_unknown(I, NULL);
    Obj *l = eval(I, f, operands[0]);
    Obj *res = obj_bool(I, 1);
    for (int i = 0; i < nops; i++) {
        Obj *r = eval(I, f, operands[i + 1]);
        res = compare(I, ops[i], l, r, n);
        if (obj_truth(I, res) != 1)
            return res;
        l = r;
    }
    return res;
}

static Obj *eval_boolean(Interp *I, Frame *f, int32_t n)
{
    int32_t l = ast_field(I->ast, n, F_left), r = ast_field(I->ast, n, F_right);
    if (l < 0 || r < 0)
        return obj_unknown(I, NULL);
    const char *op = op_text(I, n);
    Obj *a = eval(I, f, l);
    int t = obj_truth(I, a);
    if (t < 0) {
        if (a->kind == O_TENSOR || a->kind == O_DIM)
            return interp_break(I, n, RULE_TNG204, "'%s' on a value only known at run time", op);
        return unknown_from(I, a);
    }
    if (strcmp(op, "and") == 0)
        return t ? eval(I, f, r) : a;
    return t ? a : eval(I, f, r);
}

static Obj *eval_unary(Interp *I, Frame *f, int32_t n)
{
    int32_t arg = ast_field(I->ast, n, F_argument);
    if (arg < 0)
        return obj_unknown(I, NULL);
    const char *op = op_text(I, n);
    Obj *x = eval(I, f, arg);
    if (x->kind == O_TENSOR) {
        Obj *r = torchlib_unop(I, op, x, n);
        return r ? r : interp_break(I, n, RULE_TNG203, "operator '%s' on a tensor", op);
    }
    if (strcmp(op, "+") == 0)
        return x;
    if (strcmp(op, "-") == 0) {
        int64_t r = 0;
        if (x->kind == O_INT) {
            int ovf = graph_ckd_sub(&r, 0, x->i);
            return obj_int_checked(I, ovf, r, n);
        }
        if (x->kind == O_BOOL) return obj_int(I, -x->i);
        if (x->kind == O_FLOAT) return obj_float(I, -x->f);
        if (x->kind == O_DIM) return obj_dim(I, graph_dim_sub(I->g, graph_dim_const(I->g, 0), x->dim));
    }
    if (strcmp(op, "~") == 0 && (x->kind == O_INT || x->kind == O_BOOL))
        return obj_int(I, ~x->i);
    return unknown_from(I, x);
}

/* [body for x in it if c ...], (…), {k: v for …} */
static void comprehension_loop(Interp *I, Frame *f, int32_t n, int32_t clause, Obj *out, int is_dict)
{
    if (I->aborted)
        return;
    while (clause >= 0 && !((N(I, clause)->flags & NODE_NAMED) &&
           (N(I, clause)->kind == NK_for_in_clause || N(I, clause)->kind == NK_if_clause)))
        clause = N(I, clause)->next;
    int32_t body = ast_field(I->ast, n, F_body);
    if (clause < 0) {
        if (body < 0)
            return;
        if (out->n >= 2 * INTERP_MAX_ITEMS) {
            interp_limit(I, n, "a comprehension of more than 100,000 items");
            return;
        }
        if (is_dict) {
            int32_t k = ast_field(I->ast, body, F_key), v = ast_field(I->ast, body, F_value);
            if (k >= 0 && v >= 0) {
                Obj *key = eval(I, f, k);
                dict_set(I, out, key, eval(I, f, v));
            }
        } else {
            items_push(I, out, eval(I, f, body));
        }
        return;
    }
    int32_t next = N(I, clause)->next;
    if (N(I, clause)->kind == NK_if_clause) {
        int32_t c = child(I, clause, 0);
        Obj *cond = c >= 0 ? eval(I, f, c) : obj_unknown(I, NULL);
        int t = obj_truth(I, cond);
        if (t < 0) {
            out->kind = O_UNKNOWN;
            return;
        }
        if (t)
            comprehension_loop(I, f, n, next, out, is_dict);
        return;
    }
    int32_t left = ast_field(I->ast, clause, F_left), right = ast_field(I->ast, clause, F_right);
    LoopIter it;
    if (right < 0 || !loop_begin(I, eval(I, f, right), clause, &it) || left < 0) {
        out->kind = O_UNKNOWN;
        return;
    }
    for (size_t i = 0; i < it.n && step(I, clause); i++) {
        assign_target(I, f, left, loop_item(I, &it, i));
        comprehension_loop(I, f, n, next, out, is_dict);
        if (out->kind == O_UNKNOWN)
            return;
    }
}

static Obj *eval_comprehension(Interp *I, Frame *f, int32_t n)
{
    int is_dict = N(I, n)->kind == NK_dictionary_comprehension;
    Obj *out = obj_seq(I, is_dict ? O_DICT : N(I, n)->kind == NK_generator_expression ? O_TUPLE : O_LIST);
    Frame *inner = interp_frame(f);
    comprehension_loop(I, inner, n, N(I, n)->first, out, is_dict);
    frame_release(I, inner);
    return out->kind == O_UNKNOWN ? obj_unknown(I, NULL) : out;
}

static Obj *eval_call(Interp *I, Frame *f, int32_t n)
{
    int32_t fn = ast_field(I->ast, n, F_function), args = ast_field(I->ast, n, F_arguments);
    if (fn < 0)
        return obj_unknown(I, NULL);
    Obj *callee = eval(I, f, fn);
    if (callee->kind == O_BUILTIN && strcmp(callee->s, "super") == 0) {
        /* super() inside a method: remember the class and self */
        Obj *s = obj_new(I, O_BUILTIN);
        s->s = "super";
        Frame *fr = f;
        Obj *self = fr ? strmap_get(&fr->vars, "self") : NULL;
        s->self_obj = self;
        s->cls = NULL;
        for (int32_t p = N(I, n)->parent; p >= 0; p = N(I, p)->parent)
            if (N(I, p)->kind == NK_class_definition) {
                int32_t cn = ast_field(I->ast, p, F_name);
                Obj *c = cn >= 0 ? frame_lookup(I, I->globals, node_str(I, cn)) : NULL;
                if (c && c->kind == O_CLASS)
                    s->cls = c->cls;
                else if (self && self->kind == O_INST)
                    s->cls = self->cls;
                break;
            }
        return s;
    }
    CallArgs a = eval_args(I, f, args, n);
    return interp_call(I, callee, &a);
}

static Obj *eval_sequence(Interp *I, Frame *f, int32_t n, ObjKind kind)
{
    Obj *o = obj_seq(I, kind);
    FOR_CHILDREN(I, n, c) {
        if (o->n >= INTERP_MAX_ITEMS) {
            interp_limit(I, c, "a literal of more than 100,000 items");
            break;
        }
        if (N(I, c)->kind == NK_list_splat) {
            Obj *it = iter_view(I, eval(I, f, child(I, c, 0)), c);
            if (!it)
                return obj_unknown(I, NULL);
            for (size_t i = 0; i < it->n; i++)
                items_push(I, o, it->items[i]);
        } else if (kind == O_DICT && N(I, c)->kind == NK_pair) {
            int32_t k = ast_field(I->ast, c, F_key), v = ast_field(I->ast, c, F_value);
            if (k >= 0 && v >= 0) {
                Obj *key = eval(I, f, k);
                dict_set(I, o, key, eval(I, f, v));
            }
        } else if (kind == O_DICT && N(I, c)->kind == NK_dictionary_splat) {
            Obj *d = eval(I, f, child(I, c, 0));
            if (d->kind != O_DICT)
                return obj_unknown(I, NULL);
            for (size_t i = 0; i + 1 < d->n; i += 2)
                dict_set(I, o, d->items[i], d->items[i + 1]);
        } else if (kind != O_DICT) {
            Obj *x = eval(I, f, c);
            int dup = 0;
            if (N(I, n)->kind == NK_set) {   /* {1, 2, 2}: a set keeps one of each */
                budget_work(I, o->n);
                for (size_t i = 0; i < o->n && !dup; i++)
                    dup = obj_eq(I, o->items[i], x) == 1;
            }
            if (!dup)
                items_push(I, o, x);
        }
    }
    return o;
}

static Obj *eval_node(Interp *I, Frame *f, int32_t n);

static Obj *eval(Interp *I, Frame *f, int32_t n)
{
    if (n < 0 || I->aborted)
        return obj_unknown(I, NULL);
    if (I->nest >= INTERP_MAX_NEST) {
        interp_limit(I, n, "expressions and statements nested more than 1000 deep");
        return obj_unknown(I, NULL);
    }
    I->nest++;
    Obj *o = eval_node(I, f, n);
    I->nest--;
    return o;
}

static Obj *eval_node(Interp *I, Frame *f, int32_t n)
{
    const Node *nd = N(I, n);
    if (nd->flags & (NODE_ERROR | NODE_MISSING))
        return obj_unknown(I, "a syntax error");
    switch ((NodeKind)nd->kind) {
    case NK_integer: case NK_float: case NK_string: case NK_concatenated_string:
        return eval_literal(I, n);
    case NK_true: return obj_bool(I, 1);
    case NK_false: return obj_bool(I, 0);
    case NK_none: return obj_none(I);
    case NK_ellipsis: return obj_new(I, O_ELLIPSIS);
    case NK_identifier: return eval_identifier(I, f, n);
    case NK_parenthesized_expression: return eval(I, f, child(I, n, 0));
    case NK_tuple: case NK_expression_list: return eval_sequence(I, f, n, O_TUPLE);
    case NK_list: return eval_sequence(I, f, n, O_LIST);
    case NK_set: return eval_sequence(I, f, n, O_LIST);
    case NK_dictionary: return eval_sequence(I, f, n, O_DICT);
    case NK_attribute: {
        int32_t obj = ast_field(I->ast, n, F_object), attr = ast_field(I->ast, n, F_attribute);
        if (obj < 0 || attr < 0)
            return obj_unknown(I, NULL);
        Obj *o = eval(I, f, obj);
        if (o->kind == O_UNKNOWN)
            return o;
        return getattr_obj(I, o, node_str(I, attr), n);
    }
    case NK_subscript: {
        int32_t v = ast_field(I->ast, n, F_value);
        Obj *o = eval(I, f, v);
        Obj *key = eval_index(I, f, n);
        if (o->kind == O_UNKNOWN)
            return o;
        return subscript_get(I, o, key, n);
    }
    case NK_call: return eval_call(I, f, n);
    case NK_binary_operator: {
        int32_t l = ast_field(I->ast, n, F_left), r = ast_field(I->ast, n, F_right);
        Obj *a = eval(I, f, l), *b = eval(I, f, r);
        return binop(I, op_text(I, n), a, b, n);
    }
    case NK_unary_operator: return eval_unary(I, f, n);
    case NK_not_operator: {
        Obj *x = eval(I, f, ast_field(I->ast, n, F_argument));
        int t = obj_truth(I, x);
        if (t < 0)
            return x->kind == O_TENSOR || x->kind == O_DIM ?
                interp_break(I, n, RULE_TNG204, "'not' on a value only known at run time") : unknown_from(I, x);
        return obj_bool(I, !t);
    }
    case NK_boolean_operator: return eval_boolean(I, f, n);
    case NK_comparison_operator: return eval_comparison(I, f, n);
    case NK_conditional_expression: return eval_conditional(I, f, n);
    case NK_list_comprehension: case NK_generator_expression: case NK_dictionary_comprehension:
    case NK_set_comprehension:
        return eval_comprehension(I, f, n);
    case NK_lambda: {
        Obj *o = obj_new(I, O_FUNC);
        o->func = func_new(I, f, n, NULL, NULL);
        return o;
    }
    case NK_named_expression: {
        Obj *v = eval(I, f, ast_field(I->ast, n, F_value));
        assign_target(I, f, ast_field(I->ast, n, F_name), v);
        return v;
    }
    case NK_keyword_argument: case NK_slice:
        return obj_unknown(I, NULL);
    default:
        return interp_break(I, n, RULE_TNG203, "this expression is not in the compilable subset");
    }
}

/* ===================================================================== */
/* Assignment                                                            */
/* ===================================================================== */

/* Binds target (identifier, attribute, subscript, tuple/list pattern) to val.
 * Returns 0, or -1 when the target cannot be assigned. */
static int assign_target_node(Interp *I, Frame *f, int32_t target, Obj *val);

static int assign_target(Interp *I, Frame *f, int32_t target, Obj *val)
{
    if (target < 0 || I->aborted)
        return -1;
    if (I->nest >= INTERP_MAX_NEST) {
        interp_limit(I, target, "expressions and statements nested more than 1000 deep");
        return -1;
    }
    I->nest++;
    int rc = assign_target_node(I, f, target, val);
    I->nest--;
    return rc;
}

static int assign_target_node(Interp *I, Frame *f, int32_t target, Obj *val)
{
    const Node *nd = N(I, target);
    switch ((NodeKind)nd->kind) {
    case NK_identifier:
        if (I->tracing && val->kind == O_TENSOR && val->t->g == I->g) {
            Val *v = &I->g->vals.v[val->t->value];
            if (!v->name)
                v->name = node_str(I, target);
        }
        frame_assign(I, f, node_str(I, target), val);
        return 0;
    case NK_parenthesized_expression:
        return assign_target(I, f, child(I, target, 0), val);
    case NK_attribute: {
        Obj *o = eval(I, f, ast_field(I->ast, target, F_object));
        int32_t attr = ast_field(I->ast, target, F_attribute);
        if (attr >= 0)
            setattr_obj(I, o, node_str(I, attr), val, target);
        return 0;
    }
    case NK_subscript: {
        Obj *o = eval(I, f, ast_field(I->ast, target, F_value));
        Obj *key = eval_index(I, f, target);
        subscript_set(I, o, key, val, target);
        return 0;
    }
    case NK_pattern_list: case NK_tuple_pattern: case NK_list_pattern: case NK_tuple:
    case NK_list: case NK_expression_list: {
        Obj *it = iter_view(I, val, target);
        size_t n = 0, star = (size_t)-1;
        FOR_CHILDREN(I, target, c) {
            if (N(I, c)->kind == NK_list_splat_pattern && star == (size_t)-1)
                star = n;
            n++;
        }
        if (it && star != (size_t)-1 && it->n + 1 >= n) {
            /* a, *rest, z = items */
            size_t i = 0, extra = it->n + 1 - n;
            FOR_CHILDREN(I, target, c) {
                if (i == star) {
                    Obj *rest = obj_seq(I, O_LIST);
                    for (size_t k = 0; k < extra; k++)
                        items_push(I, rest, it->items[star + k]);
                    assign_target(I, f, child(I, c, 0), rest);
                } else {
                    assign_target(I, f, c, it->items[i < star ? i : i + extra - 1]);
                }
                i++;
            }
            return 0;
        }
        if (!it || it->n != n) {
            if (it && I->tracing)
                interp_break(I, target, RULE_TNG205, "cannot unpack %zu values into %zu names", it->n, n);
            FOR_CHILDREN(I, target, c) assign_target(I, f, c, obj_unknown(I, NULL));
            return -1;
        }
        size_t i = 0;
        FOR_CHILDREN(I, target, c) assign_target(I, f, c, it->items[i++]);
        return 0;
    }
    default:
        return -1;
    }
}

/* ===================================================================== */
/* Statements                                                            */
/* ===================================================================== */

/* x = y = value  |  x: T = value  |  a, b = value */
static Flow exec_assignment(Interp *I, Frame *f, int32_t n)
{
    int32_t right = ast_field(I->ast, n, F_right);
    if (right < 0)
        return FLOW_NEXT;   /* a bare annotation `x: int` */
    Obj *val;
    if (N(I, right)->kind == NK_assignment) {
        exec_assignment(I, f, right);
        int32_t inner = right;
        while (N(I, inner)->kind == NK_assignment && ast_field(I->ast, inner, F_right) >= 0 &&
               N(I, ast_field(I->ast, inner, F_right))->kind == NK_assignment)
            inner = ast_field(I->ast, inner, F_right);
        val = eval(I, f, ast_field(I->ast, inner, F_left));
    } else {
        val = eval(I, f, right);
    }
    assign_target(I, f, ast_field(I->ast, n, F_left), val);
    return FLOW_NEXT;
}

/* x += y */
static Flow exec_augassign(Interp *I, Frame *f, int32_t n)
{
    int32_t left = ast_field(I->ast, n, F_left), right = ast_field(I->ast, n, F_right);
    if (left < 0 || right < 0)
        return FLOW_NEXT;
    const char *op = op_text(I, n);
    char bin[4] = {0};
    size_t len = strlen(op);
    if (len < 2 || len > 4)
        return FLOW_NEXT;
    memcpy(bin, op, len - 1);
    Obj *cur = eval(I, f, left), *r = eval(I, f, right);
    if (cur->kind == O_LIST && strcmp(bin, "+") == 0) {
        Obj *it = iter_items(I, r, n);
        if (it)
            for (size_t i = 0; i < it->n; i++)
                items_push(I, cur, it->items[i]);
        return FLOW_NEXT;
    }
    Obj *res = binop(I, bin, cur, r, n);
    if (cur->kind == O_TENSOR && res->kind == O_TENSOR && cur->t->g == res->t->g)
        /* x += y on a tensor is in place: every reference to x sees it */
        res = torchlib_augassign(I, cur, res, n);
    assign_target(I, f, left, res);
    return FLOW_NEXT;
}

/* ---- code host mode does not run ----
 *
 * Host code skips what it cannot decide: the body of a 'for' over an
 * unknown, the branches of an 'if' on one, the rest of a 'while' whose
 * condition is unknown. Skipping is not doing nothing: what the code would
 * have changed is not known after it. So (1) the names it binds become
 * unknown, and (2) when it may change an object (a store into an attribute
 * or a subscript, 'del', a call of a list or dict mutator), I->skipped
 * counts it: a 'while' whose body skipped such code ends as a 'while' on
 * an unknown condition does, for its condition may read what changed
 * (tests/corpus/deepseek_moe.py's `while len(finished) < 4:` ran 2,000,000
 * statements because the loop that appends the sampled tokens was skipped).
 * Calls are not counted: print() in a skipped branch is common and harmless. */

static int skip_target(Interp *I, Frame *f, int32_t t)
{
    if (t < 0)
        return 0;
    switch ((NodeKind)N(I, t)->kind) {
    case NK_identifier:
        frame_assign(I, f, node_str(I, t), obj_unknown(I, NULL));
        return 0;
    case NK_attribute: case NK_subscript:
        return 1;
    case NK_pattern_list: case NK_tuple_pattern: case NK_list_pattern: case NK_tuple: case NK_list:
    case NK_expression_list: case NK_parenthesized_expression: case NK_list_splat_pattern: {
        int found = 0;
        FOR_CHILDREN(I, t, c) found |= skip_target(I, f, c);
        return found;
    }
    default:
        return 0;
    }
}

/* Makes the names code n binds unknown; 1 when it may change an object. */
static int skip_scan(Interp *I, Frame *f, int32_t n, int depth)
{
    if (n < 0 || depth > INTERP_MAX_NEST)
        return 0;
    int found = 0;
    switch ((NodeKind)N(I, n)->kind) {
    case NK_function_definition: case NK_class_definition: case NK_lambda:
    case NK_list_comprehension: case NK_generator_expression: case NK_dictionary_comprehension:
    case NK_set_comprehension:
        return 0;   /* not run there, or names of their own */
    case NK_assignment: case NK_augmented_assignment: case NK_for_statement:
        found = skip_target(I, f, ast_field(I->ast, n, F_left));
        break;
    case NK_named_expression:
        found = skip_target(I, f, ast_field(I->ast, n, F_name));
        break;
    case NK_delete_statement:
        found = 1;
        break;
    case NK_call: {
        int32_t fn = ast_field(I->ast, n, F_function);
        int32_t attr = fn >= 0 && N(I, fn)->kind == NK_attribute ? ast_field(I->ast, fn, F_attribute) : -1;
        found = attr >= 0 && container_mutator(node_str(I, attr));
        break;
    }
    default:
        break;
    }
    FOR_CHILDREN(I, n, c) found |= skip_scan(I, f, c, depth + 1);
    return found;
}

/* Host code skips n (a block, or a clause of an 'if'). */
static void skip_code(Interp *I, Frame *f, int32_t n)
{
    if (!I->tracing && !I->aborted && skip_scan(I, f, n, 0))
        I->skipped++;
}

/* del x | del l[i] | del d[k] | del a, b (host code) */
static void exec_del(Interp *I, Frame *f, int32_t t)
{
    switch ((NodeKind)N(I, t)->kind) {
    case NK_identifier:
        frame_assign(I, f, node_str(I, t), obj_unknown(I, NULL));   /* a NameError after it */
        return;
    case NK_expression_list: case NK_tuple: case NK_list: case NK_parenthesized_expression:
        FOR_CHILDREN(I, t, c) exec_del(I, f, c);
        return;
    case NK_subscript: {
        Obj *o = eval(I, f, ast_field(I->ast, t, F_value));
        Obj *key = eval_index(I, f, t);
        size_t i;
        long j;
        if (o->kind == O_LIST && seq_index(o, key, &i)) {
            memmove(&o->items[i], &o->items[i + 1], (o->n - 1 - i) * sizeof(Obj *));
            o->n--;
        } else if (o->kind == O_DICT && (j = dict_find(I, o, key)) >= 0) {
            memmove(&o->items[j - 1], &o->items[j + 1], (o->n - 1 - (size_t)j) * sizeof(Obj *));
            o->n -= 2;
        } else if (o->kind == O_LIST || o->kind == O_DICT) {
            obj_forget(I, o, key, t, "the index of 'del'");
        }
        return;
    }
    default:
        return;
    }
}

static Flow exec_if(Interp *I, Frame *f, int32_t n)
{
    if (ast_is_main_guard(I->ast, n)) {
        int32_t body = ast_field(I->ast, n, F_consequence);
        return body >= 0 ? exec_block(I, f, body) : FLOW_NEXT;
    }
    int32_t cond = ast_field(I->ast, n, F_condition);
    size_t ndiag = I->sf->diags.n;
    Obj *c = eval(I, f, cond);
    int t = obj_truth(I, c);
    if (t < 0) {
        if (I->sf->diags.n > ndiag)
            ;   /* the condition's own diagnostic says why */
        else if (c->kind == O_TENSOR || c->kind == O_DIM)
            interp_break(I, cond, RULE_TNG204, "'if' on a value only known at run time");
        else if (I->tracing && c->kind == O_UNKNOWN)
            interp_break(I, cond, RULE_TNG205, "the condition of this 'if' is not known at compile time");
        FOR_CHILDREN(I, n, c2)
            if (c2 != cond)
                skip_code(I, f, c2);
        return FLOW_NEXT;
    }
    if (t)
        return exec_block(I, f, ast_field(I->ast, n, F_consequence));
    for (int32_t c2 = N(I, n)->first; c2 >= 0; c2 = N(I, c2)->next) {
        if (N(I, c2)->kind == NK_elif_clause) {
            int32_t ec = ast_field(I->ast, c2, F_condition);
            Obj *v = eval(I, f, ec);
            int et = obj_truth(I, v);
            if (et < 0) {
                if (v->kind == O_TENSOR || v->kind == O_DIM)
                    interp_break(I, ec, RULE_TNG204, "'elif' on a value only known at run time");
                for (int32_t c3 = c2; c3 >= 0; c3 = N(I, c3)->next)
                    skip_code(I, f, c3);
                return FLOW_NEXT;
            }
            if (et)
                return exec_block(I, f, ast_field(I->ast, c2, F_consequence));
        } else if (N(I, c2)->kind == NK_else_clause) {
            return exec_block(I, f, ast_field(I->ast, c2, F_body));
        }
    }
    return FLOW_NEXT;
}

static Flow exec_for(Interp *I, Frame *f, int32_t n)
{
    int32_t left = ast_field(I->ast, n, F_left), right = ast_field(I->ast, n, F_right);
    int32_t body = ast_field(I->ast, n, F_body);
    size_t ndiag = I->sf->diags.n;
    Obj *src = eval(I, f, right);
    LoopIter it;
    if (!loop_begin(I, src, right, &it)) {
        skip_code(I, f, n);   /* the target and the body */
        if (I->sf->diags.n > ndiag)
            return FLOW_NEXT;
        if (src->kind == O_TENSOR || src->kind == O_DIM || (I->tracing && src->kind != O_UNKNOWN))
            interp_break(I, right, RULE_TNG204, "'for' over a value whose length is only known at run time");
        else if (I->tracing)
            interp_break(I, right, RULE_TNG205, "'for' over a value not known at compile time");
        return FLOW_NEXT;
    }
    for (size_t i = 0; i < it.n; i++) {
        if (!step(I, n))
            return FLOW_ABORT;
        assign_target(I, f, left, loop_item(I, &it, i));
        Flow fl = exec_block(I, f, body);
        if (fl == FLOW_BREAK)
            return FLOW_NEXT;
        if (fl == FLOW_RETURN || fl == FLOW_ABORT)
            return fl;
    }
    int32_t alt = ast_field(I->ast, n, F_alternative);
    return alt >= 0 ? exec_block(I, f, ast_field(I->ast, alt, F_body)) : FLOW_NEXT;
}

static Flow exec_while(Interp *I, Frame *f, int32_t n)
{
    if (I->tracing) {
        interp_break(I, n, RULE_TNG201, "'while' loop in the compiled method (use 'for' over a constant range)");
        return FLOW_NEXT;
    }
    int32_t cond = ast_field(I->ast, n, F_condition), body = ast_field(I->ast, n, F_body);
    int tainted = 0;   /* the last iteration's body skipped code that may change objects */
    for (;;) {
        if (!step(I, n))
            return FLOW_ABORT;
        int t = obj_truth(I, eval(I, f, cond));
        if (t < 0 || (t == 1 && tainted)) {
            /* an unknown condition, or one that may read what skipped code
             * changed: the iterations left are skipped */
            skip_code(I, f, body);
            I->skipped += tainted;
            if (!I->cut_while)
                I->cut_while = N(I, n)->line;
            return FLOW_NEXT;
        }
        if (t == 0)
            return FLOW_NEXT;
        size_t skipped = I->skipped;
        Flow fl = exec_block(I, f, body);
        tainted = I->skipped != skipped;
        if (fl == FLOW_BREAK)
            return FLOW_NEXT;
        if (fl == FLOW_RETURN || fl == FLOW_ABORT)
            return fl;
    }
}

/* Enters a with-item's scope; returns what to restore. */
static void scope_enter(Interp *I, Obj *s, int32_t node)
{
    if (!I->tracing || s->kind != O_SCOPE || strcmp(s->s, "null") == 0)
        return;
    Obj *x = s->items[0], *y = s->items[1];
    uint32_t line = N(I, node)->line, col = ast_col(I->ast, node);
    if (strcmp(s->s, "stream") == 0) {
        if (x->kind == O_STR) {
            int64_t prio = 0;
            obj_int_value(y, &prio);
            I->stream = graph_stream(I->g, x->s, prio, line, col);
        } else {
            interp_break(I, node, RULE_TNG205, "the stream tag is not a string known at compile time");
        }
    } else {
        if (x->kind == O_NONE || obj_is_str(x, ""))
            I->sk = -1;
        else if (x->kind == O_STR)
            I->sk = graph_sk(I->g, x->s, y->kind == O_STR ? y->s : "", line, col);
        else
            interp_break(I, node, RULE_TNG205, "the super-kernel scope name is not known at compile time");
    }
}

static Flow exec_with(Interp *I, Frame *f, int32_t n)
{
    int saved_stream = I->stream, saved_sk = I->sk;
    int32_t clause = -1;
    FOR_CHILDREN(I, n, c) if (N(I, c)->kind == NK_with_clause) clause = c;
    if (clause >= 0)
        FOR_CHILDREN(I, clause, item) {
            if (N(I, item)->kind != NK_with_item)
                continue;
            int32_t v = ast_field(I->ast, item, F_value);
            if (v < 0)
                continue;
            int32_t expr = v, target = -1;
            if (N(I, v)->kind == NK_as_pattern) {
                expr = child(I, v, 0);
                int32_t alias = ast_field(I->ast, v, F_alias);
                target = alias >= 0 ? child(I, alias, 0) : -1;
                if (target < 0)
                    target = alias;
            }
            Obj *s = eval(I, f, expr);
            scope_enter(I, s, expr);
            if (target >= 0)
                assign_target(I, f, target, s->kind == O_SCOPE ? obj_unknown(I, NULL) : s);
        }
    Flow fl = exec_block(I, f, ast_field(I->ast, n, F_body));
    I->stream = saved_stream;
    I->sk = saved_sk;
    return fl;
}

static void exec_import(Interp *I, Frame *f, int32_t n)
{
    int from = N(I, n)->kind == NK_import_from_statement;
    const char *module = NULL;
    if (from) {
        int32_t m = ast_field(I->ast, n, F_module_name);
        if (m < 0 || N(I, m)->kind == NK_relative_import)
            return;
        module = node_str(I, m);
    }
    for (int32_t c = N(I, n)->first; c >= 0; c = N(I, c)->next) {
        if (N(I, c)->field != F_name)
            continue;
        int32_t name = c, alias = -1;
        if (N(I, c)->kind == NK_aliased_import) {
            name = ast_field(I->ast, c, F_name);
            alias = ast_field(I->ast, c, F_alias);
        }
        if (name < 0)
            continue;
        const char *path = node_str(I, name);
        const char *full = from ? interp_printf(I, "%s.%s", module, path) : path;
        if (alias >= 0) {
            frame_assign(I, f, node_str(I, alias), obj_builtin(I, full));
        } else if (from) {
            frame_assign(I, f, path, obj_builtin(I, full));
        } else {
            /* import a.b.c binds a */
            const char *dot = strchr(path, '.');
            const char *root = dot ? interp_strndup(I, path, (size_t)(dot - path)) : path;
            frame_assign(I, f, root, obj_builtin(I, root));
        }
    }
}

/* decorators applied bottom-up; torch.compile makes an entry */
static Obj *apply_decorators(Interp *I, Frame *f, int32_t decorated, Obj *fn)
{
    int32_t decs[32];
    int nd = 0;
    FOR_CHILDREN(I, decorated, c)
        if (N(I, c)->kind == NK_decorator && nd < 32)
            decs[nd++] = c;
    for (int i = nd - 1; i >= 0; i--) {
        Obj *d = eval(I, f, child(I, decs[i], 0));
        if (d->kind == O_BUILTIN && strcmp(d->s, "torch.compile") == 0) {
            CallArgs a = {0};
            Obj *arg[1] = {fn};
            a.pos = arg;
            a.npos = 1;
            a.node = decs[i];
            fn = do_torch_compile(I, &a);
        } else if ((d->kind == O_COMPILED && !d->comp->target) || d->kind == O_FUNC || d->kind == O_BOUND) {
            /* a decorator factory's result, or the script's own decorator
             * (registries, wrappers): called as Python does */
            CallArgs a = {0};
            Obj *arg[1] = {fn};
            a.pos = arg;
            a.npos = 1;
            a.node = decs[i];
            Obj *r = interp_call(I, d, &a);
            if (r->kind != O_UNKNOWN)
                fn = r;
        }
        else if (d->kind == O_BUILTIN && fn->kind == O_FUNC &&
                 (!strcmp(d->s, "staticmethod") || !strcmp(d->s, "classmethod") ||
                  !strcmp(d->s, "property") || !strcmp(d->s, "functools.cached_property")))
            fn->func->binding = d->s[0] == 'f' ? 'p' : d->s[0];
        /* other library decorators (no_grad, wraps...) keep the function */
    }
    return fn;
}

static Flow exec_def(Interp *I, Frame *f, int32_t n, int32_t decorated, InterpClass *cls)
{
    int32_t name = ast_field(I->ast, n, F_name);
    if (name < 0)
        return FLOW_NEXT;
    Obj *o = obj_new(I, O_FUNC);
    o->func = func_new(I, f, n, cls, cls ? cls->name : NULL);
    o->func->decorated = decorated >= 0;
    if (decorated >= 0)
        o = apply_decorators(I, f, decorated, o);
    if (cls)
        attrs_set(I, &cls->attrs, node_str(I, name), o);
    else
        frame_assign(I, f, node_str(I, name), o);
    return FLOW_NEXT;
}

static Flow exec_class(Interp *I, Frame *f, int32_t n)
{
    int32_t name = ast_field(I->ast, n, F_name), body = ast_field(I->ast, n, F_body);
    if (name < 0 || body < 0)
        return FLOW_NEXT;
    InterpClass *cls = interp_alloc(I, sizeof *cls);
    cls->name = node_str(I, name);
    cls->node = n;
    int32_t sup = ast_field(I->ast, n, F_superclasses);
    if (sup >= 0)
        FOR_CHILDREN(I, sup, c) {
            if (N(I, c)->kind == NK_keyword_argument)
                continue;
            Obj *b = eval(I, f, c);
            if (b->kind == O_CLASS && !cls->base)
                cls->base = b->cls;
            else if (b->kind == O_BUILTIN && !cls->base_name)
                cls->base_name = b->s;
        }
    /* the class body: defs become methods, assignments class variables */
    Frame *cf = interp_frame(f);
    FOR_CHILDREN(I, body, s) {
        int32_t st = s, dec = -1;
        if (N(I, s)->kind == NK_decorated_definition) {
            dec = s;
            st = ast_field(I->ast, s, F_definition);
        }
        if (st >= 0 && N(I, st)->kind == NK_function_definition)
            exec_def(I, f, st, dec, cls);
        else if (st >= 0)
            exec_stmt(I, cf, st);
    }
    for (size_t i = 0; i < cf->vars.cap; i++)
        if (cf->vars.keys && cf->vars.keys[i])
            attrs_set(I, &cls->attrs, cf->vars.keys[i], cf->vars.vals[i]);
    frame_release(I, cf);
    Obj *o = obj_new(I, O_CLASS);
    o->cls = cls;
    frame_assign(I, f, cls->name, o);
    return FLOW_NEXT;
}

static Flow exec_stmt_node(Interp *I, Frame *f, int32_t n);

static Flow exec_stmt(Interp *I, Frame *f, int32_t n)
{
    if (n < 0)
        return FLOW_NEXT;
    int32_t caller_at = I->at;
    I->at = n;
    if (!step(I, n))
        return I->aborted ? FLOW_ABORT : FLOW_NEXT;
    if (I->nest >= INTERP_MAX_NEST) {
        interp_limit(I, n, "expressions and statements nested more than 1000 deep");
        return FLOW_ABORT;
    }
    I->nest++;
    Flow fl = exec_stmt_node(I, f, n);
    I->nest--;
    I->at = caller_at;
    return fl;
}

static Flow exec_stmt_node(Interp *I, Frame *f, int32_t n)
{
    const Node *nd = N(I, n);
    if (nd->flags & (NODE_ERROR | NODE_MISSING))
        return FLOW_NEXT;
    switch ((NodeKind)nd->kind) {
    case NK_expression_statement: {
        FOR_CHILDREN(I, n, c) {
            if (N(I, c)->kind == NK_assignment)
                exec_assignment(I, f, c);
            else if (N(I, c)->kind == NK_augmented_assignment)
                exec_augassign(I, f, c);
            else
                eval(I, f, c);
        }
        return I->aborted ? FLOW_ABORT : FLOW_NEXT;
    }
    case NK_if_statement: return exec_if(I, f, n);
    case NK_for_statement: return exec_for(I, f, n);
    case NK_while_statement: return exec_while(I, f, n);
    case NK_with_statement: return exec_with(I, f, n);
    case NK_function_definition: return exec_def(I, f, n, -1, NULL);
    case NK_decorated_definition: {
        int32_t d = ast_field(I->ast, n, F_definition);
        if (d >= 0 && N(I, d)->kind == NK_function_definition)
            return exec_def(I, f, d, n, NULL);
        if (d >= 0 && N(I, d)->kind == NK_class_definition) {
            Flow fl = exec_class(I, f, d);
            int32_t name = ast_field(I->ast, d, F_name);
            Obj *cls = name >= 0 ? strmap_get(&f->vars, node_str(I, name)) : NULL;
            if (cls)
                frame_assign(I, f, node_str(I, name), apply_decorators(I, f, n, cls));
            return fl;
        }
        return FLOW_NEXT;
    }
    case NK_class_definition: return exec_class(I, f, n);
    case NK_return_statement: {
        int32_t v = child(I, n, 0);
        I->ret = v >= 0 ? eval(I, f, v) : obj_none(I);
        return I->aborted ? FLOW_ABORT : FLOW_RETURN;
    }
    case NK_import_statement: case NK_import_from_statement:
        exec_import(I, f, n);
        return FLOW_NEXT;
    case NK_pass_statement: return FLOW_NEXT;
    case NK_break_statement: return FLOW_BREAK;
    case NK_continue_statement: return FLOW_CONTINUE;
    case NK_global_statement: case NK_nonlocal_statement:
        FOR_CHILDREN(I, n, c)
            if (N(I, c)->kind == NK_identifier)
                frame_put(I, f, &f->globals_decl, node_str(I, c), (void *)1);
        return FLOW_NEXT;
    case NK_assert_statement: case NK_comment:
        return FLOW_NEXT;
    case NK_delete_statement:
        if (I->tracing)
            interp_break(I, n, RULE_TNG201, "'del' in the compiled method");
        else
            FOR_CHILDREN(I, n, c) exec_del(I, f, c);
        return FLOW_NEXT;
    case NK_raise_statement:
        if (I->tracing) {
            interp_break(I, n, RULE_TNG201, "'raise' in the compiled method");
            return FLOW_NEXT;
        }
        I->ret = obj_unknown(I, NULL);
        return FLOW_RETURN;   /* host code that raises: its caller gets an unknown */
    case NK_try_statement:
        if (I->tracing) {
            interp_break(I, n, RULE_TNG201, "'try' in the compiled method");
            return FLOW_NEXT;
        }
        /* host code: the try body, then finally; handlers are not run */
        FOR_CHILDREN(I, n, c) {
            Flow fl = FLOW_NEXT;
            if (c == ast_field(I->ast, n, F_body))
                fl = exec_block(I, f, c);
            else if (N(I, c)->kind == NK_finally_clause)
                fl = exec_block(I, f, child(I, c, 0));
            if (fl != FLOW_NEXT)
                return fl;
        }
        return FLOW_NEXT;
    default:
        if (I->tracing)
            interp_break(I, n, RULE_TNG201, "this statement cannot be lowered into the graph");
        return FLOW_NEXT;
    }
}

static Flow exec_block(Interp *I, Frame *f, int32_t n)
{
    if (n < 0)
        return FLOW_NEXT;
    if (N(I, n)->kind != NK_block && N(I, n)->kind != NK_module)
        return exec_stmt(I, f, n);
    FOR_CHILDREN(I, n, c) {
        Flow fl = exec_stmt(I, f, c);
        if (fl != FLOW_NEXT)
            return fl;
    }
    return FLOW_NEXT;
}

/* ===================================================================== */
/* Entries                                                               */
/* ===================================================================== */

/* state_dict keys of the parameters and buffers reachable from mod */
static void weight_names_collect(Interp *I, Obj *mod, const char *prefix, int depth)
{
    if (!mod || mod->kind != O_INST || depth > 32)
        return;
    for (size_t i = 0; i < mod->attrs.n; i++) {
        Obj *v = mod->attrs.vals[i];
        const char *name = interp_printf(I, "%s%s", prefix, mod->attrs.names[i]);
        if (v->kind == O_TENSOR) {
            const char *key = ptr_key(I, v->t);
            if (!strmap_get(&I->weight_names, key))
                strmap_put(&I->weight_names, key, (void *)name);
        } else if (v->kind == O_INST) {
            weight_names_collect(I, v, interp_printf(I, "%s.", name), depth + 1);
        }
    }
    /* ModuleList / Sequential items: "0.", "1.", ... (nested ones too) */
    if (!mod->cls)
        for (size_t k = 0; k < mod->n; k++)
            weight_names_collect(I, mod->items[k], interp_printf(I, "%s%zu.", prefix, k), depth + 1);
}

typedef struct Leaf {
    Obj *t;
    const char *path;
} Leaf;
typedef VEC(Leaf) LeafList;

/* The tensor leaves of an argument, with their paths: x, kv[0]['key'] */
static const char *py_repr_str(Interp *I, const char *s);

static void collect_leaves(Interp *I, Obj *o, const char *path, LeafList *out, int depth)
{
    if (!o || depth > 16 || out->n > 4096)
        return;
    if (o->kind == O_TENSOR) {
        Leaf l = {o, path};
        VEC_PUSH(*out, l);
    } else if (o->kind == O_TUPLE || o->kind == O_LIST) {
        for (size_t i = 0; i < o->n; i++)
            collect_leaves(I, o->items[i], interp_printf(I, "%s[%zu]", path, i), out, depth + 1);
    } else if (o->kind == O_DICT) {
        for (size_t i = 0; i + 1 < o->n; i += 2) {
            Obj *k = o->items[i];
            const char *ks = k->kind == O_STR ? py_repr_str(I, k->s) :
                             k->kind == O_INT ? interp_printf(I, "%lld", (long long)k->i) : "?";
            collect_leaves(I, o->items[i + 1], interp_printf(I, "%s[%s]", path, ks), out, depth + 1);
        }
    }
}

/* s as Python's repr() writes it ('a', "it's", 'k\\n'), so that input names
 * are unambiguous and match what PyTorch-side tools print. */
static const char *py_repr_str(Interp *I, const char *s)
{
    char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
    StrBuf b = {0};
    sb_putc(&b, q);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '\\' || *c == (unsigned char)q)
            sb_printf(&b, "\\%c", *c);
        else if (*c == '\n')
            sb_puts(&b, "\\n");
        else if (*c == '\t')
            sb_puts(&b, "\\t");
        else if (*c == '\r')
            sb_puts(&b, "\\r");
        else if (*c < 32 || *c == 127)
            sb_printf(&b, "\\x%02x", *c);
        else
            sb_putc(&b, (char)*c);
    }
    sb_putc(&b, q);
    const char *r = interp_strndup(I, b.s, b.len);
    sb_free(&b);
    return r;
}

/* The method a compiled object runs, its self and its entry name. */
static InterpFunc *entry_method(Interp *I, CompiledObj *c, Obj **self, const char **name)
{
    Obj *t = c->target;
    *self = NULL;
    if (!t)
        return NULL;
    if (t->kind == O_INST && t->cls) {
        InterpFunc *fn = class_method(t->cls, "forward", NULL);
        *self = t;
        *name = interp_printf(I, "%s.forward", t->cls->name);
        return fn;
    }
    if (t->kind == O_BOUND) {
        *self = t->self_obj;
        *name = t->func->qualname;
        return t->func;
    }
    if (t->kind == O_FUNC) {
        *name = t->func->qualname;
        return t->func;
    }
    return NULL;
}

/* The parameter names of fn after self, for naming inputs. */
static const char *param_at(Interp *I, InterpFunc *fn, size_t pos, int has_self)
{
    int32_t ps = func_params(I, fn->node);
    size_t i = 0;
    if (ps < 0)
        return NULL;
    FOR_CHILDREN(I, ps, p) {
        int kind;
        const char *name = param_name(I, p, &kind);
        if (kind != 0)
            break;
        if (i == pos + (size_t)(has_self != 0))
            return name;
        i++;
    }
    return NULL;
}

/* Gear specs of an input from its set_dim_gears dict (lint checks them). */
static void gears_of(Interp *I, Graph *g, int input, TensorObj *t, int ndim, LeafList *unused)
{
    (void)unused;
    Obj *d = t->gears;
    for (size_t i = 0; i + 1 < d->n; i += 2) {
        int64_t dim;
        Obj *vals = d->items[i + 1];
        if (!obj_int_value(d->items[i], &dim) || dim < 0 || dim >= ndim ||
            (vals->kind != O_LIST && vals->kind != O_TUPLE) || vals->n < 1)
            continue;
        GearSpec s = {0};
        s.input = input;
        s.dim = (int)dim;
        s.values = arena_alloc(&g->arena, vals->n * sizeof *s.values);
        int ok = 1;
        for (size_t k = 0; k < vals->n; k++)
            ok &= obj_int_value(vals->items[k], &s.values[k]) && s.values[k] > 0;
        if (!ok)
            continue;
        s.nvalues = vals->n;
        s.sym = -1;
        s.line = N(I, t->gears_node)->line;
        s.col = ast_col(I->ast, t->gears_node);
        VEC_PUSH(g->gears, s);
    }
}

/* Under zip, an earlier gear list equal to spec k's gives the same symbol
 * in every gear: its symbol index, else -1. */
static int zip_twin(const Graph *g, size_t k)
{
    if (g->cfg.policy != GEAR_ZIP)
        return -1;
    const GearSpec *s = &g->gears.v[k];
    for (size_t j = 0; j < k; j++) {
        const GearSpec *t = &g->gears.v[j];
        if (t->sym >= 0 && t->nvalues == s->nvalues &&
            memcmp(t->values, s->values, s->nvalues * sizeof *s->values) == 0)
            return t->sym;
    }
    return -1;
}

/* The DimId of symbol number sym. */
static DimId gear_sym_dim(Graph *g, int sym)
{
    for (size_t d = 0; d < g->dims.n; d++)
        if (g->dims.v[d].kind == DIM_SYM && g->dims.v[d].c == sym)
            return (DimId)d;
    TNGC_BUG("symbol %d has no dim", sym);
}

/* Adds the inputs of the first call: symbols per the gear / dynamic rules. */
static void bind_inputs(Interp *I, Graph *g, LeafList *leaves, int dynamic, int32_t node)
{
    int geared = 0;
    for (size_t i = 0; i < leaves->n; i++)
        geared |= leaves->v[i].t->t->gears != NULL;
    uint32_t line = N(I, node)->line, col = ast_col(I->ast, node);
    StrMap duck = {0};   /* example size -> symbol (dynamic=True without gears) */
    for (size_t i = 0; i < leaves->n; i++) {
        TensorObj *ht = leaves->v[i].t->t;
        const Val *hv = &ht->g->vals.v[ht->value];
        int64_t ex[GRAPH_MAX_DIMS];
        DimId dims[GRAPH_MAX_DIMS];
        for (int d = 0; d < hv->ndim; d++)
            if (!graph_dim_const_value(ht->g, hv->dims[d], &ex[d]))
                ex[d] = 1;
        size_t first_gear = g->gears.n;
        if (geared && ht->gears)
            gears_of(I, g, (int)i, ht, hv->ndim, leaves);
        for (int d = 0; d < hv->ndim; d++) {
            DimId sym = -1;
            if (geared) {
                for (size_t k = first_gear; k < g->gears.n; k++)
                    if (g->gears.v[k].dim == d) {
                        int same = zip_twin(g, k);
                        if (same >= 0) {
                            /* zip with the same list: equal in every gear */
                            g->gears.v[k].sym = same;
                            sym = gear_sym_dim(g, same);
                        } else {
                            sym = graph_dim_sym(g, (int)i, d, ex[d]);
                            g->gears.v[k].sym = (int)g->syms.n - 1;
                        }
                    }
            } else if (dynamic == 1 && !(ht->marked_static & (1 << d)) && ex[d] >= 2) {
                char key[32];
                snprintf(key, sizeof key, "%lld", (long long)ex[d]);
                void *s = strmap_get(&duck, key);
                if (s) {
                    sym = (DimId)(intptr_t)s - 1;
                } else {
                    sym = graph_dim_sym(g, (int)i, d, ex[d]);
                    strmap_put(&duck, interp_strndup(I, key, strlen(key)), (void *)(intptr_t)(sym + 1));
                }
            }
            dims[d] = sym >= 0 ? sym : graph_dim_const(g, ex[d]);
        }
        int32_t v = graph_add_input(g, leaves->v[i].path, hv->dtype, hv->format, hv->ndim, dims, ex,
                                    ht->marked_static == -1 ||
                                        (hv->ndim > 0 && (ht->marked_static & ((1 << hv->ndim) - 1)) ==
                                                             (1 << hv->ndim) - 1),
                                    line, col);
        if (v < 0) {   /* an example or gear size past the size invariant */
            interp_diag(I, node, RULE_TNG206, "input '%s' of the compiled entry is larger than 2^48 bytes "
                        "(in a gear or as given), the most tngc plans for one tensor", leaves->v[i].path);
            Shadow sh = {ht, obj_unknown_reported(I), -1, -1, -1};
            VEC_PUSH(I->shadows, sh);
            continue;
        }
        Obj *o = obj_tensor(I, v);
        o->t->origin = ht;
        Shadow sh = {ht, o, v, (int)g->inputs.n - 1, -1};
        VEC_PUSH(I->shadows, sh);
    }
    strmap_free(&duck);
}

/* The entry-graph outputs of a return value, flattened. */
static void collect_outputs(Interp *I, Graph *g, Obj *r, int32_t node, int depth)
{
    if (!r || depth > 16)
        return;
    if (r->kind == O_UNKNOWN) {
        trace_need(I, r, node, "a value the compiled method returns");
        return;
    }
    if (r->kind == O_TENSOR) {
        int32_t v = interp_val(I, r, node);
        if (v >= 0 && stale_view(I, v, node))
            return;   /* a returned view taken before an in-place write */
        if (v >= 0) {
            GraphOutput o = {arena_printf(&g->arena, "out%zu", g->outputs.n), v};
            VEC_PUSH(g->outputs, o);
        }
    } else if (r->kind == O_TUPLE || r->kind == O_LIST) {
        for (size_t i = 0; i < r->n; i++)
            collect_outputs(I, g, r->items[i], node, depth + 1);
    } else if (r->kind == O_DICT) {
        for (size_t i = 0; i + 1 < r->n; i += 2)
            collect_outputs(I, g, r->items[i + 1], node, depth + 1);
    }
}

/* Host tensors shaped like the entry's outputs, with symbols bound from
 * the call's leaves. */
static Obj *host_result(Interp *I, Graph *g, Obj *r, const int64_t *symval, int depth)
{
    if (!r || depth > 16)
        return obj_unknown(I, NULL);
    if (r->kind == O_TENSOR && r->t->g == g) {
        const Val *v = &g->vals.v[r->t->value];
        DimId dims[GRAPH_MAX_DIMS];
        int64_t x;
        for (int d = 0; d < v->ndim; d++) {
            if (graph_dim_eval(g, v->dims[d], symval, &x) < 0)
                return obj_unknown(I, NULL);
            dims[d] = graph_dim_const(&I->host, x);
        }
        int64_t attr[GRAPH_MAX_DIMS];
        for (int d = 0; d < v->ndim; d++)
            attr[d] = dims[d];
        OpDesc od = {0};
        od.kind = OP_FULL;
        od.attr = attr;
        od.nattr = v->ndim;
        od.dtype = v->dtype;
        Graph *saved = I->g;
        int tr = I->tracing;
        I->g = &I->host;
        I->tracing = 0;
        int32_t op = interp_op(I, &od, -1);
        Obj *o = op >= 0 ? obj_tensor(I, I->host.ops.v[op].out) : obj_unknown(I, NULL);
        I->g = saved;
        I->tracing = tr;
        return o;
    }
    if (r->kind == O_TUPLE || r->kind == O_LIST) {
        Obj *o = obj_seq(I, r->kind);
        for (size_t i = 0; i < r->n; i++)
            items_push(I, o, host_result(I, g, r->items[i], symval, depth + 1));
        return o;
    }
    if (r->kind == O_TENSOR)
        return obj_unknown(I, NULL);
    return r;
}

/* The trace of entry c with the arguments of its first call. */
static void trace_entry(Interp *I, CompiledObj *c, CallArgs *a, LeafList *leaves)
{
    Obj *self;
    const char *name = NULL;
    InterpFunc *fn = entry_method(I, c, &self, &name);
    int torch_module = !fn && is_torch_module(c->target);
    if (torch_module) {
        /* torch.compile(nn.Sequential(...)) and the like: the module's forward */
        const char *dot = strrchr(c->target->s, '.');
        self = c->target;
        name = interp_printf(I, "%s.forward", dot ? dot + 1 : c->target->s);
    } else if (!fn) {
        if (!c->target || c->target->kind == O_UNKNOWN)
            interp_diag(I, c->node, RULE_TNG208, "the compiled model is not known at compile time: "
                        "tngc could not evaluate the expression that made it");
        else
            interp_diag(I, c->node, RULE_TNG208, "the compiled object is not a module or a method of this script");
        return;
    }
    for (size_t i = 0; i < I->entries.n; i++)
        if (strcmp(I->entries.v[i]->name, name) == 0) {
            name = interp_printf(I, "%s#%zu", name, I->entries.n + 1);
            break;
        }
    c->name = name;
    if (I->only_entry && strcmp(I->only_entry, name) != 0) {
        c->skipped = 1;
        return;
    }
    Graph *g = xcalloc(1, sizeof *g);
    graph_init(g, name, I->sf->src.path);
    g->line = N(I, c->node)->line;
    g->col = ast_col(I->ast, c->node);
    g->cfg = entry_config(I, c);
    VEC_PUSH(I->entries, g);
    c->graph = g;

    /* trace state */
    Graph *saved_g = I->g;
    int saved_depth = I->depth;
    I->g = g;
    I->entry_graph_bytes = 0;
    I->tracing = 1;
    I->stream = 0;
    I->sk = -1;
    I->shadows.n = 0;
    I->waits.n = 0;
    I->overwritten.n = 0;
    strmap_free(&I->weight_names);
    memset(&I->weight_names, 0, sizeof I->weight_names);
    weight_names_collect(I, self, "", 0);
    bind_inputs(I, g, leaves, g->cfg.dynamic, a->node);

    Obj *ret = torch_module ? torchlib_call_module(I, self, a) : call_func(I, fn, self, a);
    if (!I->aborted) {
        collect_outputs(I, g, ret, a->node, 0);
        for (size_t i = 0; i < I->shadows.n; i++) {
            Shadow *s = &I->shadows.v[i];
            if (s->obj->kind != O_TENSOR || s->obj->t->value == s->initial)
                continue;
            if (s->input >= 0)
                g->inputs.v[s->input].final = s->obj->t->value;
            else if (s->weight >= 0)
                g->weights.v[s->weight].final = s->obj->t->value;
        }
    }
    c->ret = ret;
    I->tracing = 0;
    I->g = saved_g;
    I->depth = saved_depth;
    I->stream = 0;
    I->sk = -1;
}

/* Is the call's shape one of the entry's gears (or its static shape)? */
static int call_matches(Graph *g, LeafList *leaves, int64_t *symval)
{
    if (leaves->n != g->inputs.n)
        return 0;
    for (size_t s = 0; s < g->syms.n; s++)
        symval[s] = INT64_MIN;
    for (size_t i = 0; i < leaves->n; i++) {
        TensorObj *ht = leaves->v[i].t->t;
        const Val *hv = &ht->g->vals.v[ht->value];
        const Val *ev = &g->vals.v[g->inputs.v[i].value];
        if (hv->ndim != ev->ndim || hv->dtype != ev->dtype)
            return 0;
        for (int d = 0; d < hv->ndim; d++) {
            int64_t x, c;
            if (!graph_dim_const_value(ht->g, hv->dims[d], &x))
                return 0;
            if (graph_dim_const_value(g, ev->dims[d], &c)) {
                if (c != x)
                    return 0;
            } else if (g->dims.v[ev->dims[d]].kind == DIM_SYM) {
                int64_t *sv = &symval[g->dims.v[ev->dims[d]].c];
                if (*sv != INT64_MIN && *sv != x)
                    return 0;   /* one symbol (zip gears with one list), two sizes */
                *sv = x;
            }
        }
    }
    /* geared symbols must take the values of one gear */
    if (!g->gears.n)
        return 1;
    if (g->cfg.policy == GEAR_PRODUCT) {
        for (size_t k = 0; k < g->gears.n; k++) {
            int found = 0;
            for (size_t j = 0; j < g->gears.v[k].nvalues; j++)
                found |= g->gears.v[k].values[j] == symval[g->gears.v[k].sym];
            if (!found)
                return 0;
        }
        return 1;
    }
    size_t n = g->gears.v[0].nvalues;
    for (size_t j = 0; j < n; j++) {
        int all = 1;
        for (size_t k = 0; k < g->gears.n; k++)
            all &= j < g->gears.v[k].nvalues && g->gears.v[k].values[j] == symval[g->gears.v[k].sym];
        if (all)
            return 1;
    }
    return 0;
}

/* Python scalars the entry was traced with are constants of the plan: a
 * later call with other values is not what the plan computes (TNG210). */
static void scalar_args_changed(Interp *I, CompiledObj *c, InterpFunc *fn, int has_self, CallArgs *a)
{
    const CallArgs *f = &c->first;
    for (size_t i = 0; i < f->npos + f->nkw; i++) {
        Obj *was = i < f->npos ? f->pos[i] : f->kw[i - f->npos];
        Obj *now = i < f->npos ? args_get(a, i, NULL) : args_kw(a, f->kwnames[i - f->npos]);
        if (!now || (was->kind != O_INT && was->kind != O_FLOAT && was->kind != O_BOOL && was->kind != O_STR))
            continue;
        if (obj_eq(I, was, now) == 1)
            continue;
        const char *p = i >= f->npos ? f->kwnames[i - f->npos] : fn ? param_at(I, fn, i, has_self) : NULL;
        StrBuf w = {0};
        if (was->kind == O_FLOAT)
            sb_printf(&w, "%g", was->f);
        else if (was->kind == O_STR)
            sb_printf(&w, "'%s'", was->s);
        else
            sb_printf(&w, "%lld", (long long)was->i);
        interp_diag(I, a->node, RULE_TNG210, "argument '%s' of %s was %s when it was traced and this call "
                    "passes another value: the plan is specialised to %s (pass a tensor to vary it)",
                    p ? p : "?", c->graph->name, w.s, w.s);
        sb_free(&w);
    }
}

static Obj *call_compiled(Interp *I, CompiledObj *c, CallArgs *a)
{
    if (I->tracing)
        return interp_break(I, a->node, RULE_TNG202, "a compiled entry called from inside another compiled method");
    LeafList leaves = {0};
    for (size_t i = 0; i < a->npos; i++)
        collect_leaves(I, a->pos[i], interp_printf(I, "arg%zu", i), &leaves, 0);
    Obj *self;
    const char *ename;
    InterpFunc *fn = entry_method(I, c, &self, &ename);
    if (fn || is_torch_module(c->target)) {
        /* name leaves by parameter ("input" for torch modules, as PyTorch) */
        leaves.n = 0;
        for (size_t i = 0; i < a->npos; i++) {
            const char *p = fn ? param_at(I, fn, i, self != NULL) : i == 0 ? "input" : NULL;
            collect_leaves(I, a->pos[i], p ? p : interp_printf(I, "arg%zu", i), &leaves, 0);
        }
        for (size_t i = 0; i < a->nkw; i++)
            collect_leaves(I, a->kw[i], a->kwnames[i], &leaves, 0);
    }
    Obj *result;
    if (!c->traced && (fn || is_torch_module(c->target))) {
        /* an example input tngc could not evaluate would leave the ops that
         * use it out of the plan */
        for (size_t i = 0; i < a->npos + a->nkw; i++) {
            Obj *o = i < a->npos ? a->pos[i] : a->kw[i - a->npos];
            if (o->kind != O_UNKNOWN || unknown_reported(o))
                continue;
            const char *p = i >= a->npos ? a->kwnames[i - a->npos] : fn ? param_at(I, fn, i, self != NULL) : NULL;
            if (!p)
                p = interp_printf(I, "%zu", i + 1);
            interp_diag(I, a->node, RULE_TNG205, "argument '%s' of the compiled entry is not known at compile time%s%s",
                        p, o->s ? ": " : "", o->s ? o->s : "");
            if (o == I->unknown)   /* the shared unknown is never marked: the trace gets its own */
                *(i < a->npos ? &a->pos[i] : &a->kw[i - a->npos]) = obj_unknown_reported(I);
            else
                unknown_mark(I, o);
        }
    }
    if (c->traced && c->graph)
        scalar_args_changed(I, c, fn, self != NULL, a);
    if (!c->traced) {
        c->traced = 1;
        c->first = *a;   /* copied: a caller may hold its arrays on the stack */
        c->first.pos = interp_alloc(I, (a->npos + 1) * sizeof *a->pos);
        c->first.kw = interp_alloc(I, (a->nkw + 1) * sizeof *a->kw);
        c->first.kwnames = interp_alloc(I, (a->nkw + 1) * sizeof *a->kwnames);
        if (a->npos)
            memcpy(c->first.pos, a->pos, a->npos * sizeof *a->pos);
        if (a->nkw) {
            memcpy(c->first.kw, a->kw, a->nkw * sizeof *a->kw);
            memcpy(c->first.kwnames, a->kwnames, a->nkw * sizeof *a->kwnames);
        }
        trace_entry(I, c, a, &leaves);
        c->nleaves = leaves.n;
    }
    if (!c->graph || I->aborted) {
        VEC_FREE(leaves);
        return obj_unknown(I, NULL);
    }
    Graph *g = c->graph;
    int64_t *symval = interp_alloc(I, (g->syms.n + 1) * sizeof *symval);
    int reported_arg = 0;   /* an argument whose error was reported: no TNG210 on top */
    for (size_t i = 0; i < a->npos + a->nkw; i++)
        reported_arg |= holds_reported(i < a->npos ? a->pos[i] : a->kw[i - a->npos], 0);
    if (reported_arg) {
        result = obj_unknown_reported(I);
    } else if (!call_matches(g, &leaves, symval)) {
        interp_diag(I, a->node, RULE_TNG210,
                    "the shapes of this call of %s are in no gear of the plan: the bundle refuses them at run time", g->name);
        result = obj_unknown(I, NULL);
    } else {
        result = host_result(I, g, c->ret, symval, 0);
    }
    VEC_FREE(leaves);
    return result;
}

/* ===================================================================== */
/* Running                                                               */
/* ===================================================================== */

int interp_run(ScanFile *sf, const char *entry, InterpResult *out)
{
    return interp_run_limited(sf, entry, NULL, out);
}

int interp_run_limited(ScanFile *sf, const char *entry, const InterpLimits *limits, InterpResult *out)
{
    Interp *I = xcalloc(1, sizeof *I);
    I->sf = sf;
    I->ast = &sf->ast;
    I->only_entry = entry;
    size_t mb = limits && limits->max_mb ? limits->max_mb : INTERP_DEFAULT_MAX_MB;
    I->max_bytes = mb > SIZE_MAX >> 20 ? SIZE_MAX : mb << 20;
    I->max_seconds = limits && limits->max_seconds > 0 ? limits->max_seconds : INTERP_DEFAULT_MAX_SECONDS;
    clock_gettime(CLOCK_MONOTONIC, &I->start);
    size_t nnodes = I->ast->n ? I->ast->n : 1;
    I->node_strs = xcalloc(nnodes, sizeof *I->node_strs);
    I->literals = xcalloc(nnodes, sizeof *I->literals);
    budget_charge(I, nnodes * (sizeof *I->node_strs + sizeof *I->literals));
    graph_init(&I->host, "<host>", sf->src.path);
    I->g = &I->host;
    I->sk = -1;
    I->globals = interp_frame(NULL);
    frame_keep(I, I->globals);
    size_t ndiag = sf->diags.n;

    exec_block(I, I->globals, 0);

    /* compiled entries never called */
    int any = 0;
    for (size_t i = 0; i < I->compiled.n; i++) {
        CompiledObj *c = I->compiled.v[i];
        if (c->graph || c->skipped)
            any = 1;
    }
    if (!I->aborted && !any) {
        /* the likely cause, when host code stopped a loop it could not follow */
        const char *cut = I->cut_while ? interp_printf(I, " (the 'while' loop at line %u stopped early: its "
                                                       "condition depends on what tngc cannot evaluate)",
                                                       I->cut_while) : "";
        if (I->compiled.n == 0)
            interp_diag(I, 0, RULE_TNG208, "no torch.compile or cache_compile call runs: nothing to plan%s", cut);
        else
            for (size_t i = 0; i < I->compiled.n; i++)
                if (I->compiled.v[i]->target && !I->compiled.v[i]->traced)
                    interp_diag(I, I->compiled.v[i]->node, RULE_TNG208,
                                "this compiled entry is never called with example inputs: nothing to plan%s", cut);
    }
    if (entry && !I->aborted) {
        int found = 0;
        for (size_t i = 0; i < I->entries.n; i++)
            found |= strcmp(I->entries.v[i]->name, entry) == 0;
        if (!found) {
            StrBuf names = {0};
            for (size_t i = 0; i < I->compiled.n; i++)
                if (I->compiled.v[i]->name)
                    sb_printf(&names, "%s%s", names.len ? ", " : "", I->compiled.v[i]->name);
            interp_diag(I, 0, RULE_TNG208, "no compiled entry named '%s' is called; the script calls: %s",
                        entry, names.len ? names.s : "none");
            sb_free(&names);
        }
    }
    int errors = 0;
    for (size_t i = ndiag; i < sf->diags.n; i++)
        errors |= sf->diags.v[i].severity == SEV_ERROR;

    out->entries = I->entries.v;
    out->nentries = I->entries.n;
    memset(&I->entries, 0, sizeof I->entries);
    graph_free(&I->host);
    strmap_free(&I->weight_names);
    VEC_FREE(I->compiled);
    VEC_FREE(I->shadows);
    VEC_FREE(I->waits);
    VEC_FREE(I->overwritten);
    frames_free(I);
    strmap_free(&I->builtins);
    free(I->node_strs);
    free(I->literals);
    for (size_t i = 0; i < I->configs.n; i++)
        VEC_FREE(I->configs.v[i]->fields);
    VEC_FREE(I->configs);
    out->arena = xmalloc(sizeof *out->arena);
    *out->arena = I->arena;   /* names in the graphs point into it */
    free(I);
    return errors ? -1 : 0;
}

void interp_result_free(InterpResult *self)
{
    for (size_t i = 0; i < self->nentries; i++) {
        graph_free(self->entries[i]);
        free(self->entries[i]);
    }
    free(self->entries);
    self->entries = NULL;
    self->nentries = 0;
    if (self->arena) {
        arena_free(self->arena);
        free(self->arena);
        self->arena = NULL;
    }
}
