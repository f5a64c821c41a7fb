/*
 * obj.c - the object model of the lowering stage (see obj.h): allocation
 * and the budget, objects, diagnostics and reported unknowns, containers
 * and THE iterator, library names, and the trace's view of tensors.
 *
 * Memory: every object, container and string is allocated in the run's
 * arena through interp_alloc, which charges it to the budget (a TNG212 stop
 * past --max-memory). Work (statements, comparisons, elements visited) is
 * counted by interp_work, which reads the clock every BUDGET_WORK_PER_CLOCK
 * units (a stop past --max-time).
 *
 * Unknowns: an unknown whose cause has been reported carries the reason
 * UNKNOWN_REPORTED; what is computed from it stays quiet, so that each
 * cause gives one diagnostic. Host code's unknowns without a reason are one
 * shared object, never marked, copied where a value is stored.
 *
 * The trace: host tensors enter a trace through a memo. The first read of
 * a host tensor while tracing gives a "shadow" tensor object of the entry
 * graph (an input when it was passed as an argument, bound by entry.c; a
 * weight when it is a parameter or a buffer of the compiled module; else a
 * constant). In-place updates change the shadow only, and are written back
 * as the input's or weight's final value.
 */
#include "obj.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The clock is read every BUDGET_WORK_PER_CLOCK units of work. */
#define BUDGET_WORK_PER_CLOCK 4096

/* ===================================================================== */
/* Objects                                                               */
/* ===================================================================== */

void *interp_alloc(Interp *I, size_t n)
{
    interp_charge(I, n);
    return arena_alloc(&I->arena, n);
}

char *interp_strndup(Interp *I, const char *s, size_t n)
{
    interp_charge(I, n + 1);
    return arena_strndup(&I->arena, s, n);
}

char *interp_printf(Interp *I, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *d = arena_vprintf(&I->arena, fmt, ap);
    va_end(ap);
    interp_charge(I, strlen(d) + 1);
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
    o->i = (int64_t)++I->unk_made;
    o->node = I->at;
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
Obj *obj_stored(Interp *I, Obj *x)
{
    if (x && x == I->unknown) {
        Obj *o = obj_new(I, O_UNKNOWN);
        o->i = (int64_t)++I->unk_made;
        o->node = I->at;   /* where host code stores it: where it is made */
        return o;
    }
    return x;
}

void obj_push(Interp *I, Obj *seq, Obj *x)
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
        obj_push(I, o, items[i]);
    return o;
}

Obj *obj_named_tuple(Interp *I, Obj **items, const char *const *names, size_t n)
{
    Obj *o = obj_tuple(I, items, n);
    for (size_t i = 0; i < n; i++)
        obj_attrs_set(I, &o->attrs, names[i], items[i]);
    return o;
}

Obj *obj_seq(Interp *I, ObjKind kind)
{
    return obj_new(I, kind);
}

Obj *obj_seq_of(Interp *I, ObjKind kind, Obj *const *items, size_t n)
{
    Obj *o = obj_new(I, kind);
    o->items = interp_alloc(I, (n + 1) * sizeof *o->items);
    for (size_t i = 0; i < n; i++)
        o->items[i] = items[i];
    o->n = o->cap = n;
    return o;
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

void obj_attrs_set(Interp *I, AttrList *l, const char *name, Obj *val)
{
    val = obj_stored(I, val);
    interp_work(I, l->n);
    if (l->view && l->view->kind == O_DICT)
        obj_dict_set(I, l->view, obj_str(I, name), val);
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
    obj_attrs_set(I, &inst->attrs, name, val);
}

int obj_flag(const Obj *o, int def)
{
    if (!o)
        return def;
    if (o->kind == O_BOOL || o->kind == O_INT)
        return o->i != 0;
    return def;
}

int obj_is_str(const Obj *o, const char *s)
{
    return o && o->kind == O_STR && strcmp(o->s, s) == 0;
}

/* Python truthiness: 1 true, 0 false, -1 unknown. */
int obj_truth(Interp *I, const Obj *o)
{
    int64_t c;
    switch (o->kind) {
    case O_NONE: return 0;
    case O_BOOL: case O_INT: return o->i != 0;
    case O_FLOAT: return o->f != 0.0;
    case O_STR: return o->len != 0;
    case O_TUPLE: case O_LIST: case O_DICT: case O_SET: return o->n != 0;
    case O_DIM: return graph_dim_const_value(I->g, o->dim, &c) ? c != 0 : -1;
    case O_UNKNOWN: case O_TENSOR: return -1;
    default: return 1;
    }
}

/* Equality of two known Python values: 1, 0, or -1 unknown. */
static int obj__eq_depth(Interp *I, const Obj *a, const Obj *b, int depth);

Obj *obj_tensor_device(Interp *I)
{
    if (I->world_size > 1)
        return NULL;
    if (!I->device)
        I->device = obj_str(I, "npu:0");
    return I->device;
}

int obj_eq(Interp *I, const Obj *a, const Obj *b)
{
    return obj__eq_depth(I, a, b, 0);
}


/* Item by item, in order, of two sequences of the same length (tuples,
 * lists, two OrderedDicts' key/value runs): 1, 0, or -1 when an item's
 * equality is not known. */
static int obj__eq_items(Interp *I, const Obj *a, const Obj *b, int depth)
{
    interp_work(I, a->n);
    for (size_t i = 0; i < a->n; i++) {
        int e = obj__eq_depth(I, a->items[i], b->items[i], depth + 1);
        if (e != 1)
            return e;
    }
    return 1;
}

static int obj__eq_depth(Interp *I, const Obj *a, const Obj *b, int depth)
{
    double x, y;
    if (depth > 64)
        return -1;   /* nested too deep (or a container that holds itself) */
    if (a->kind == O_UNKNOWN || b->kind == O_UNKNOWN || a->kind == O_TENSOR || b->kind == O_TENSOR)
        return -1;
    if (I->device && (a == I->device || b == I->device))   /* obj_tensor_device */
        return a == b ? 1 : a->kind == O_NONE || b->kind == O_NONE ? 0 : -1;
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
    case O_STR:
        if (a->len != b->len)
            return 0;
        interp_work(I, a->len / 64);   /* long texts compared in a loop: the time limit */
        return a->s == b->s || memcmp(a->s, b->s, a->len) == 0;
    case O_DTYPE: return a->dtype == b->dtype;
    case O_TUPLE: case O_LIST:
        return a->n == b->n ? obj__eq_items(I, a, b, depth) : 0;
    case O_SET:   /* the same values, in any order */
        if (a->n != b->n)
            return 0;
        interp_work(I, a->n * b->n);
        for (size_t i = 0; i < a->n; i++) {
            int found = 0, unknown = 0;
            for (size_t j = 0; j < b->n && !found; j++) {
                int e = obj__eq_depth(I, a->items[i], b->items[j], depth + 1);
                found = e == 1;
                unknown |= e < 0;
            }
            if (!found)
                return unknown ? -1 : 0;
        }
        return 1;
    case O_DICT:   /* the same keys, each with an equal value, in any order */
        if (a->n != b->n)
            return 0;
        if (a->s && b->s)   /* two OrderedDicts: the same items in the same order */
            return obj__eq_items(I, a, b, depth);
        interp_work(I, a->n * b->n / 4);
        for (size_t i = 0; i < a->n; i += 2) {
            int found = 0, unknown = 0;
            for (size_t j = 0; j < b->n && !found; j += 2) {
                int k = obj__eq_depth(I, a->items[i], b->items[j], depth + 1);
                if (k == 1) {
                    int v = obj__eq_depth(I, a->items[i + 1], b->items[j + 1], depth + 1);
                    if (v != 1)
                        return v;   /* keys are unique: no other match */
                    found = 1;
                }
                unknown |= k < 0;
            }
            if (!found)
                return unknown ? -1 : 0;
        }
        return 1;
    case O_BUILTIN: return strcmp(a->s, b->s) == 0;
    case O_CLASS: return a->cls == b->cls;   /* type(x) == C makes a new class object */
    default: return a == b;
    }
}

int obj_is_torch_module(const Obj *o)
{
    return o && o->kind == O_INST && !o->cls && o->s;
}

int obj_is_module_seq(const Obj *o)
{
    return o && o->kind == O_INST && o->s &&
           (strcmp(o->s, "torch.nn.ModuleList") == 0 || strcmp(o->s, "torch.nn.Sequential") == 0 ||
            strcmp(o->s, "torch.nn.ParameterList") == 0);
}

int obj_is_module_dict(const Obj *o)
{
    return o && o->kind == O_INST && !o->cls && o->s &&
           (strcmp(o->s, "torch.nn.ModuleDict") == 0 || strcmp(o->s, "torch.nn.ParameterDict") == 0);
}

int obj_is_script_module(const Obj *o)
{
    int depth = 0;
    if (!o || o->kind != O_INST)
        return 0;
    for (const InterpClass *c = o->cls; c && depth < 64; c = c->base, depth++)
        if (c->base_name && strncmp(c->base_name, "torch.nn.", 9) == 0)
            return 1;
    return 0;
}

/* ===================================================================== */
/* Diagnostics                                                           */
/* ===================================================================== */

static void interp__vdiag(Interp *I, int32_t node, RuleId rule, const char *fmt, va_list ap)
{
    if (I->aborted)
        return;   /* after a stop (TNG212), what the unwinding finds is no news */
    if (node < 0 || (uint32_t)node >= I->ast->n)
        node = 0;   /* (a node of another module's tree is never read here) */
    if (rule == RULE_TNG205) {
        /* one unknown per line: a second one there (a value computed from
         * the first, reached another way) is the same cause again */
        const DiagList *dl = &I->sf->diags;
        for (size_t k = dl->n, seen = 0; k > 0 && seen < 64; k--, seen++)
            if (dl->v[k - 1].rule == RULE_TNG205 && dl->v[k - 1].src == I->src &&
                dl->v[k - 1].line == N(I, node)->line)
                return;
    }
    StrBuf sb = {0};
    sb_vprintf(&sb, fmt, ap);
    diag_node(&I->sf->diags, I->ast, node, rule, "%s", sb.s ? sb.s : "");
    I->sf->diags.v[I->sf->diags.n - 1].src = I->src;   /* an imported module's code */
    sb_free(&sb);
}

void interp_diag(Interp *I, int32_t node, RuleId rule, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    interp__vdiag(I, node, rule, fmt, ap);
    va_end(ap);
}

/* The reason of an unknown whose cause has been reported: values computed
 * from it stay quiet (one diagnostic per cause, no cascades). */
static const char UNKNOWN_REPORTED[] = "reported";

int obj_is_reported(const Obj *o)
{
    return o->kind == O_UNKNOWN &&
           (o->s == UNKNOWN_REPORTED || (o->origin && o->origin->s == UNKNOWN_REPORTED));
}

/* o's cause has been reported: values computed from it stay quiet, and so
 * does its root (the value it was computed from) and all computed from that. */
void obj_mark_reported(Interp *I, Obj *o)
{
    if (o != I->unknown)
        o->s = UNKNOWN_REPORTED;
    if (o->origin && o->origin != I->unknown)
        o->origin->s = UNKNOWN_REPORTED;
}

/* Marks the unknowns o is or holds (two levels deep). */
static void obj__mark_held(Interp *I, Obj *o, int depth)
{
    if (!o || depth > 2)
        return;
    if (o->kind == O_UNKNOWN)
        obj_mark_reported(I, o);
    else if (o->kind == O_TUPLE || o->kind == O_LIST || o->kind == O_SLICE)
        for (size_t i = 0; i < o->n; i++)
            obj__mark_held(I, o->items[i], depth + 1);
}

void obj_mark_reported_since(Interp *I, Obj *o, size_t ndiag)
{
    if (!I->tracing || !o)
        return;
    for (size_t k = ndiag; k < I->sf->diags.n; k++)
        if (I->sf->diags.v[k].rule == RULE_TNG205) {
            obj__mark_held(I, o, 0);
            return;
        }
}

Obj *obj_unknown_link(Interp *I, Obj *r, Obj *cause)
{
    if (!r || !cause || r->kind != O_UNKNOWN || cause->kind != O_UNKNOWN)
        return r;
    Obj *root = cause->origin ? cause->origin : cause;
    if (root == I->unknown || root == r || r->origin)
        return r;
    if (r == I->unknown)
        return root;   /* host code: the cause itself stands for what is computed from it */
    if (r->s == UNKNOWN_REPORTED && root->s != UNKNOWN_REPORTED)
        return r;      /* reported on its own: its operand's cause is another one */
    r->origin = root;
    return r;
}

Obj *obj_unknown_reported(Interp *I)
{
    return obj_unknown(I, UNKNOWN_REPORTED);
}

/* The unknown result of an operation on x: reported when x was, so that
 * -n, not n, n and m ... of a reported unknown stay quiet. */
Obj *obj_unknown_from(Interp *I, const Obj *x)
{
    return x && obj_is_reported(x) ? obj_unknown_reported(I) : obj_unknown(I, NULL);
}

Obj *interp_break(Interp *I, int32_t node, RuleId rule, const char *fmt, ...)
{
    if (I->tracing) {
        va_list ap;
        va_start(ap, fmt);
        interp__vdiag(I, node, rule, fmt, ap);
        va_end(ap);
        return obj_unknown_reported(I);
    }
    return obj_unknown(I, NULL);
}

/* While tracing, an unknown value that flows into the graph is an error
 * (TNG205) the first time: nothing may be skipped silently. Returns 1 when
 * o is unknown (reported now or before). */
const char *interp_unknown_origin(Interp *I, const Obj *o, int32_t node)
{
    if (!o || o->kind != O_UNKNOWN)
        return "";
    const Obj *root = o->origin ? o->origin : o;
    if (root->node > 0 && node >= 0 && N(I, root->node)->line != N(I, node)->line)
        return interp_printf(I, " (it comes from line %u)", (unsigned)N(I, root->node)->line);
    return "";
}

int interp_need(Interp *I, Obj *o, int32_t node, const char *what)
{
    if (!o || o->kind != O_UNKNOWN)
        return 0;
    if (I->tracing && !obj_is_reported(o)) {
        interp_diag(I, node, obj_is_external(o) ? RULE_TNG202 : RULE_TNG205, "%s is not known at compile time%s%s%s",
                    what, o->s ? ": " : "", o->s ? o->s : "", interp_unknown_origin(I, o, node));
        obj_mark_reported(I, o);
    }
    return 1;
}

/* Stops the whole run at a limit (TNG212). */
void interp_limit(Interp *I, int32_t node, const char *what)
{
    if (!I->aborted)
        interp_diag(I, node, RULE_TNG212, "%s; tngc stops interpreting the script here", what);
    I->aborted = 1;
}

int interp_str_fits(Interp *I, int32_t node, size_t n, const char *what)
{
    if (n <= INTERP_MAX_STR)
        return 1;
    if (!I->aborted) {
        char msg[200];
        snprintf(msg, sizeof msg, "a string of more than 1 MiB (%s)", what);
        interp_limit(I, node, msg);
    }
    I->aborted = 1;
    return 0;
}

int interp_str_put(Interp *I, StrBuf *out, const char *s, size_t n, int32_t node, const char *what)
{
    if (out->len > INTERP_MAX_STR || n > INTERP_MAX_STR - out->len)
        return interp_str_fits(I, node, (size_t)INTERP_MAX_STR + 1, what);
    sb_putn(out, s, n);
    return 1;
}

/* ---- the budget ---- */

void interp_charge(Interp *I, size_t n)
{
    I->bytes += n;
    if (I->bytes > I->max_bytes && !I->aborted) {
        char what[200];
        snprintf(what, sizeof what, "the script needs more than %zu MB of interpreter memory "
                 "(raise the limit with --max-memory MB)", I->max_bytes >> 20);
        interp_limit(I, I->at, what);
    }
}

void interp_uncharge(Interp *I, size_t n)
{
    I->bytes -= n < I->bytes ? n : I->bytes;
}

static double obj__seconds_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Counts units of work (a statement, a comparison, an element visited) and
 * looks at the clock every BUDGET_WORK_PER_CLOCK of them. */
void interp_work(Interp *I, size_t units)
{
    I->work += units;
    if (I->work < BUDGET_WORK_PER_CLOCK)
        return;
    I->work = 0;
    if (!I->aborted && obj__seconds_since(&I->start) > I->max_seconds) {
        char what[200];
        snprintf(what, sizeof what, "the script runs longer than %g s (raise the limit with --max-time SECONDS)",
                 I->max_seconds);
        interp_limit(I, I->at, what);
    }
}

/* An upper bound of the heap memory of g's tables (its ops, values, dims,
 * inputs ...), so that growth of a graph is charged like objects are. */
static size_t obj__graph_bytes(const Graph *g)
{
    return g->ops.cap * (sizeof(Op) + 8 * sizeof(int32_t)) + g->vals.cap * sizeof(Val) +
           g->dims.cap * (sizeof(DimExpr) + 64) + g->syms.cap * sizeof(Sym) +
           g->inputs.cap * sizeof(GraphInput) + g->weights.cap * sizeof(GraphWeight) +
           g->outputs.cap * sizeof(GraphOutput) + g->streams.cap * sizeof(GraphStream) +
           g->sks.cap * sizeof(GraphSk) + g->gears.cap * sizeof(GearSpec) + g->checks.cap * sizeof(DimCheck) +
           g->dim_index.cap * (sizeof(const char *) + sizeof(void *));
}

/* Charges the growth of the current graph since the last call. */
void interp_charge_graph(Interp *I)
{
    size_t *charged = I->g == &I->host ? &I->host_graph_bytes : &I->entry_graph_bytes;
    size_t now = obj__graph_bytes(I->g);
    if (now > *charged) {
        interp_charge(I, now - *charged);
        *charged = now;
    }
}

Graph *interp_graph(Interp *I) { return I->g; }
int interp_tracing(const Interp *I) { return I->tracing; }
const Ast *interp_ast(const Interp *I) { return I->ast; }

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


/* ===================================================================== */
/* Containers and iteration                                              */
/* ===================================================================== */

int obj_seq_index(const Obj *seq, Obj *key, size_t *out)
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

/* dict lookup: the value index, or -1 (absent), -2 (undecidable). */
long obj_dict_find(Interp *I, const Obj *d, const Obj *key)
{
    int undecided = 0;
    interp_work(I, d->n / 2);
    for (size_t i = 0; i < d->n; i += 2) {
        int e = obj_eq(I, d->items[i], key);
        if (e == 1)
            return (long)i + 1;
        if (e < 0)
            undecided = 1;
    }
    return undecided ? -2 : -1;
}

void obj_dict_set(Interp *I, Obj *d, Obj *key, Obj *val)
{
    long i = obj_dict_find(I, d, key);
    if (i >= 0) {
        d->items[i] = obj_stored(I, val);
        return;
    }
    obj_push(I, d, key);
    obj_push(I, d, val);
}

/* A list or dict changed in a way tngc cannot follow (list.extend of an
 * unknown, l[i] = v with i unknown, d.pop(k) with k undecidable, a method
 * tngc does not model ...) holds what nobody knows: it becomes an unknown
 * in place, so that every reference sees it (len(l) is then unknown, and
 * a loop on it stops as on any unknown) instead of keeping its old items,
 * a wrong value. While tracing, what it became unknown from is reported
 * (TNG205, once) at node, and the container is marked reported. */
void obj_forget(Interp *I, Obj *o, Obj *cause, int32_t node, const char *what)
{
    int reported = 0;
    if (I->tracing) {
        if (cause && cause->kind == O_UNKNOWN)
            interp_need(I, cause, node, what);
        else
            interp_diag(I, node, RULE_TNG205, "%s: the container's contents are not known after it", what);
        reported = 1;
    }
    o->kind = O_UNKNOWN;
    o->items = NULL;
    o->n = o->cap = 0;
    o->s = reported ? UNKNOWN_REPORTED : NULL;
}

/* The length of range(a, b, st) with st != 0, without overflow. */
static uint64_t obj__range_len(int64_t a, int64_t b, int64_t st)
{
    if (st > 0 ? b <= a : a <= b)
        return 0;
    uint64_t span = st > 0 ? (uint64_t)b - (uint64_t)a : (uint64_t)a - (uint64_t)b;
    uint64_t by = st > 0 ? (uint64_t)st : 0 - (uint64_t)st;
    return span / by + (span % by != 0);
}

/* Item k of range(a, _, st): in range, so exact in two's complement. */
int64_t obj_range_at(int64_t a, int64_t st, uint64_t k)
{
    return (int64_t)((uint64_t)a + k * (uint64_t)st);
}

int obj_range(Interp *I, const Obj *r, int32_t node, IterMode mode, int64_t *start, int64_t *step,
              uint64_t *count)
{
    int64_t stop;
    if (r->n < 3 || !obj_int_value(r->items[0], start) || !obj_int_value(r->items[1], &stop) ||
        !obj_int_value(r->items[2], step) || *step == 0)
        return 0;
    *count = obj__range_len(*start, stop, *step);
    if (*count > INTERP_MAX_ITEMS) {
        if (mode == ITER_LOOP)
            interp_limit(I, node, "a loop over more than 100,000 items");
        return 0;
    }
    return 1;
}

/*
 * The lists obj_iter makes are charged to the budget as they always were,
 * so that a budget stop falls where it did: a loop's list (ITER_LOOP) is
 * made before o is looked at and grows as a list does (obj_push); a
 * builtin's (ITER_EXPAND) is a copy of a tuple's or list's items, or an
 * empty list whose items array is added once their number is known.
 */

/* Room for n items in l (an ITER_EXPAND list; a loop's grows). */
static void obj__reserve(Interp *I, Obj *l, size_t n, IterMode mode)
{
    if (mode == ITER_LOOP)
        return;
    l->items = interp_alloc(I, (n + 1) * sizeof *l->items);
    l->cap = n;
}

/* Appends x to l (reserved for ITER_EXPAND). */
static void obj__add(Interp *I, Obj *l, Obj *x, IterMode mode)
{
    if (mode == ITER_LOOP)
        obj_push(I, l, x);
    else
        l->items[l->n++] = x;
}

/* items[0..n) into l (NULL for ITER_EXPAND: a new copy); a loop reads
 * them into the trace. */
static Obj *obj__copy(Interp *I, Obj *l, Obj *const *items, size_t n, int32_t node)
{
    if (!l)
        return obj_seq_of(I, O_LIST, items, n);
    for (size_t i = 0; i < n; i++)
        obj_push(I, l, interp_trace_in(I, items[i], node));
    return l;
}

int obj_set_add(Interp *I, Obj *s, Obj *x)
{
    interp_work(I, s->n);
    for (size_t i = 0; i < s->n; i++)
        if (obj_eq(I, s->items[i], x) == 1)
            return 0;
    obj_push(I, s, x);
    return 1;
}

Obj *obj_iter(Interp *I, Obj *o, int32_t node, IterMode mode)
{
    if (!o)
        return NULL;
    Obj *l = mode == ITER_LOOP ? obj_seq(I, O_LIST) : NULL;
    switch (o->kind) {
    case O_TUPLE: case O_LIST: case O_SET:
        return obj__copy(I, l, o->items, o->n, node);
    case O_ITER: {   /* what is left of it, which iterating uses up */
        Obj *src = o->self_obj;
        size_t from = (size_t)o->i < src->n ? (size_t)o->i : src->n;
        o->i = (int64_t)src->n;
        return obj__copy(I, l, src->items + from, src->n - from, node);
    }
    case O_DICT:
        if (!l)
            l = obj_seq_of(I, O_LIST, NULL, 0);
        obj__reserve(I, l, o->n / 2, mode);
        for (size_t i = 0; i + 1 < o->n; i += 2)
            obj__add(I, l, o->items[i], mode);
        return l;
    case O_STR:
        if (!l)
            l = obj_seq_of(I, O_LIST, NULL, 0);
        if (mode == ITER_EXPAND && o->len > INTERP_MAX_ITEMS)
            return NULL;
        obj__reserve(I, l, o->len, mode);
        for (size_t i = 0; i < o->len; i++)
            obj__add(I, l, obj_str(I, interp_strndup(I, o->s + i, 1)), mode);
        return l;
    case O_RANGE: {
        int64_t a, s;
        uint64_t count;
        if (!obj_range(I, o, node, mode, &a, &s, &count))
            return NULL;
        if (!l)
            l = obj_seq_of(I, O_LIST, NULL, 0);
        obj__reserve(I, l, (size_t)count, mode);
        for (uint64_t k = 0; k < count; k++)
            obj__add(I, l, obj_int(I, obj_range_at(a, s, k)), mode);
        return l;
    }
    case O_INST:
        if (obj_is_module_dict(o)) {   /* its keys */
            if (!l)
                l = obj_seq_of(I, O_LIST, NULL, 0);
            for (size_t i = 0; i < o->attrs.n; i++)
                obj_push(I, l, obj_str(I, o->attrs.names[i]));
            return l;
        }
        return obj_is_module_seq(o) ? obj__copy(I, l, o->items, o->n, node) : NULL;
    default:
        return NULL;
    }
}

/* ===================================================================== */
/* Calls                                                                 */
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

/* 1 when o is, or a tuple, list or dict holds, an unknown already reported. */
/* *visits bounds the items looked at: lists that share sublists
 * ([[l] * 1000] * 1000) hold more items than memory. */
static int obj__holds_reported(const Obj *o, int depth, size_t *visits)
{
    if (!o || depth > 8 || ++*visits > INTERP_MAX_ITEMS)
        return 0;
    if (obj_is_reported(o))
        return 1;
    if (o->kind == O_TUPLE || o->kind == O_LIST || o->kind == O_DICT)
        for (size_t i = 0; i < o->n; i++)
            if (obj__holds_reported(o->items[i], depth + 1, visits))
                return 1;
    return 0;
}

int obj_reported(const Obj *o)
{
    size_t visits = 0;
    return obj__holds_reported(o, 0, &visits);
}

int obj_has_unknown(const Obj *o)
{
    if (!o)
        return 0;
    if (o->kind == O_UNKNOWN)
        return 1;
    if (o->kind == O_TUPLE || o->kind == O_LIST)
        for (size_t i = 0; i < o->n; i++)
            if (o->items[i] && o->items[i]->kind == O_UNKNOWN)
                return 1;
    return 0;
}

int args_unknown(const CallArgs *a)
{
    if (a->has_star)
        return 1;
    for (size_t i = 0; i < a->npos; i++)
        if (obj_has_unknown(a->pos[i]))
            return 1;
    for (size_t i = 0; i < a->nkw; i++)
        if (obj_has_unknown(a->kw[i]))
            return 1;
    return 0;
}

/* The evaluator's dispatch and attribute access, installed by eval_init:
 * the layers below it call back through these. */

Obj *interp_call(Interp *I, Obj *callee, CallArgs *a)
{
    return I->call(I, callee, a);
}

Obj *interp_getattr(Interp *I, Obj *o, const char *name, int32_t node)
{
    return I->getattr(I, o, name, node);
}

void interp_setattr(Interp *I, Obj *o, const char *name, Obj *val, int32_t node)
{
    I->setattr(I, o, name, val, node);
}

/* ===================================================================== */
/* Script functions and classes                                          */
/* ===================================================================== */

/* The parameters node of a def or lambda. */
int32_t obj_func_params(Interp *I, int32_t def)
{
    return ast_field(I->ast, def, F_parameters);
}

/* Name of a parameter node (identifier, typed, default, splats). */
const char *obj_param_name(Interp *I, int32_t p, int *kind)
{
    /* kind: 0 normal, 1 *args, 2 **kwargs, 3 bare * or / */
    *kind = 0;
    switch ((NodeKind)N(I, p)->kind) {
    case NK_identifier: return interp_node_str(I, p);
    case NK_typed_parameter: {
        int32_t c = child(I, p, 0);
        if (c >= 0 && N(I, c)->kind == NK_list_splat_pattern)
            *kind = 1, c = child(I, c, 0);
        else if (c >= 0 && N(I, c)->kind == NK_dictionary_splat_pattern)
            *kind = 2, c = child(I, c, 0);
        return c >= 0 ? interp_node_str(I, c) : NULL;
    }
    case NK_default_parameter: case NK_typed_default_parameter: {
        int32_t c = ast_field(I->ast, p, F_name);
        return c >= 0 ? interp_node_str(I, c) : NULL;
    }
    case NK_list_splat_pattern: *kind = 1; return child(I, p, 0) >= 0 ? interp_node_str(I, child(I, p, 0)) : NULL;
    case NK_dictionary_splat_pattern: *kind = 2; return child(I, p, 0) >= 0 ? interp_node_str(I, child(I, p, 0)) : NULL;
    default: *kind = 3; return NULL;
    }
}

InterpFunc *obj_class_method(InterpClass *cls, const char *name, InterpClass **owner)
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

Obj *obj_class_attr(InterpClass *cls, const char *name)
{
    for (int guard = 0; cls && guard < 64; cls = cls->base, guard++)
        for (size_t i = cls->attrs.n; i-- > 0;)
            if (strcmp(cls->attrs.names[i], name) == 0)
                return cls->attrs.vals[i];
    return NULL;
}

/* ===================================================================== */
/* Canonical names of library objects                                    */
/* ===================================================================== */

/* The canonical name of path: TorchAir's other import paths folded into
 * its own (alias_rewrite's ALIAS_LOWER rows: torch.npu.npugraph_ex.X is
 * torchair.X), and torch's modules that re-export its names. */
static const char *obj__canon(Interp *I, const char *path)
{
    static const struct { const char *from, *to; } torch_rw[] = {
        {"torch.nn.modules.linear.", "torch.nn."},
        {"torch.functional.", "torch."},
    };
    size_t n;
    const char *to = alias_rewrite(path, ALIAS_LOWER, &n);
    if (to)
        return path[n] ? interp_printf(I, "%s%s", to, path + n) : to;
    for (size_t i = 0; i < sizeof torch_rw / sizeof *torch_rw; i++) {
        n = strlen(torch_rw[i].from);
        if (strncmp(path, torch_rw[i].from, n) == 0)
            return interp_printf(I, "%s%s", torch_rw[i].to, path + n);
    }
    return path;
}

/* The library object named path: one shared object per name (builtins are
 * immutable; super() makes its own, see eval_call). */
Obj *obj_builtin(Interp *I, const char *path)
{
    Obj *o = strmap_get(&I->builtins, path);
    if (o)
        return o;
    path = interp_strndup(I, path, strlen(path));   /* it may be on the caller's stack */
    static const struct { const char *name; double v; } consts[] = {
        {"math.pi", 3.141592653589793}, {"math.e", 2.718281828459045}, {"math.tau", 6.283185307179586},
        {"math.inf", HUGE_VAL}, {"math.nan", NAN},
        /* numpy's constants are Python floats too */
        {"numpy.pi", 3.141592653589793}, {"numpy.e", 2.718281828459045}, {"numpy.inf", HUGE_VAL},
        {"numpy.nan", NAN}};
    o = NULL;
    for (size_t i = 0; i < sizeof consts / sizeof *consts; i++)
        if (strcmp(path, consts[i].name) == 0)   /* math's constants are floats */
            o = obj_float(I, consts[i].v);
    if (!o && strcmp(path, "numpy.newaxis") == 0)
        o = obj_none(I);   /* numpy.newaxis is None */
    if (!o) {
        o = obj_new(I, O_BUILTIN);
        o->s = obj__canon(I, path);
    }
    size_t cap = I->builtins.cap;
    strmap_put(&I->builtins, path, o);
    interp_charge(I, (I->builtins.cap - cap) * (sizeof(const char *) + sizeof(void *)));
    return o;
}

/* The library object base.name, formatted without allocating when it exists. */
Obj *obj_builtin_attr(Interp *I, const char *base, const char *name)
{
    char buf[256];
    if ((size_t)snprintf(buf, sizeof buf, "%s.%s", base, name) < sizeof buf)
        return obj_builtin(I, buf);
    return obj_builtin(I, interp_printf(I, "%s.%s", base, name));
}

/* ===================================================================== */
/* The syntax tree                                                       */
/* ===================================================================== */

/* The text of node n (an identifier, an operator), copied once per node. */
const char *interp_node_str(Interp *I, int32_t n)
{
    if (I->node_strs[n])
        return I->node_strs[n];
    size_t len;
    const char *s = ast_text(I->ast, n, &len);
    return I->node_strs[n] = interp_strndup(I, s, len);
}

int interp_comparison_parts(Interp *I, int32_t n, int32_t *operands, const char **ops, int max, int *nops)
{
    int no = 0;
    *nops = 0;
    for (int32_t c = N(I, n)->first; c >= 0; c = N(I, c)->next) {
        const Node *k = N(I, c);
        if (k->field == F_operators) {
            if (*nops < max) {
                const char *t = interp_node_str(I, c);
                if (*nops > 0 && no == *nops && (strcmp(t, "in") == 0 || strcmp(t, "not") == 0))
                    /* "not" "in" and "is" "not" arrive as two tokens */
                    ops[*nops - 1] = interp_printf(I, "%s %s", ops[*nops - 1], t);
                else
                    ops[(*nops)++] = t;
            }
        } else if ((k->flags & NODE_NAMED) && k->kind != NK_comment && no < max) {
            operands[no++] = c;
        }
    }
    return no;
}

/* ===================================================================== */
/* The trace: shadows, weights, values                                   */
/* ===================================================================== */

const char *interp_ptr_key(Interp *I, const void *p)
{
    return interp_printf(I, "%p", p);
}

Shadow *interp_shadow_find(Interp *I, const TensorObj *host)
{
    for (size_t i = 0; i < I->shadows.n; i++)
        if (I->shadows.v[i].host == host)
            return &I->shadows.v[i];
    return NULL;
}

/* ---- reads of views, stale values ----
 * The read side of aliasing (views.c has the rest): a view whose root was
 * written since its value was computed is recomputed from the root's
 * current value by replaying its chain (views_current, which interp_val
 * calls on every read), and a value an in-place write replaced is stale
 * (interp_stale, which interp_op checks for every input).
 */

static ByteVec *obj__stale_map(Interp *I, const Graph *g)
{
    return g == &I->host ? &I->stale_host : &I->stale_entry;
}

void views_mark_stale(Interp *I, int32_t v)
{
    if (v < 0)
        return;
    ByteVec *m = obj__stale_map(I, I->g);
    while (m->n <= (size_t)v)
        VEC_PUSH(*m, 0);
    m->v[v] = 1;
    I->nwrites++;
}

int interp_stale(Interp *I, int32_t v, int32_t node)
{
    ByteVec *m = obj__stale_map(I, I->g);
    if (v < 0 || (size_t)v >= m->n || !m->v[v])
        return 0;
    interp_diag(I, node, RULE_TNG211, "this reads a tensor through an alias tngc does not track, after an "
                "in-place write into its storage: PyTorch would see the write (clone() the tensor, or "
                "take it again after the write)");
    return 1;
}

int32_t views_replay(Interp *I, int32_t opid, int32_t x, int32_t node)
{
    const Graph *g = I->g;
    if (opid < 0 || (size_t)opid >= g->ops.n)
        return -1;
    int64_t attr[GRAPH_MAX_ATTRS];
    OpKind k = g->ops.v[opid].kind;
    uint32_t na = g->ops.v[opid].nattr;
    memcpy(attr, g->ops.v[opid].attr, na * sizeof attr[0]);
    int32_t id = interp_emit(I, k, &x, 1, attr, na, 0, 0, DT_UNKNOWN, node);
    return id < 0 ? -1 : I->g->ops.v[id].out;
}

int32_t views_current(Interp *I, TensorObj *t, int32_t node)
{
    TensorObj *r = t->base;
    if (!r || t->g != I->g || r->g != t->g || t->seen == r->value)
        return t->value;
    if (t->ambig) {
        interp_diag(I, node, RULE_TNG211, "this reads, after an in-place write into its source, a tensor that "
                    "PyTorch may or may not share with that source (line %u: reshape, flatten or contiguous "
                    "of a tensor whose memory layout tngc cannot decide, or a call whose result shares its "
                    "argument's buffer): clone() it, or take it after the write",
                    interp_node_line(I, t->ambig - 1));
        return -1;
    }
    I->nwrites++;   /* ops added: an assert's condition keeps them */
    int32_t v = r->value;
    for (int i = 0; i < t->nchain && v >= 0; i++)
        v = views_replay(I, t->chain[i], v, node);
    if (v < 0)
        return -1;
    t->value = v;
    t->seen = r->value;
    return v;
}

/* ---- constant tensors ----
 * A host tensor computed from constants only enters a trace as the host
 * ops that compute it, replayed into the entry graph (run by the bundle
 * with the graph's own kernels, on CPU and ACL alike), instead of as a
 * weight the weights file must hold: PyTorch's state_dict has no
 * non-persistent buffer, no plain tensor attribute and no module-level
 * tensor. The host graph is in SSA order (an op's inputs come from earlier
 * ops), so one backward sweep finds the ops a value needs. */

static void interp__inplace_war(Interp *I, int32_t opid);

/* The most bytes of constants one trace replays (TNG212 past it). */
#define INTERP_MAX_CONST_BYTES ((uint64_t)64 << 20)

void interp_host_inexact(Interp *I, const Obj *t)
{
    if (!I->tracing && t && t->kind == O_TENSOR && t->t->g == &I->host)
        VEC_PUSH(I->host_inexact, t->t->value);
}

void interp_host_unspecified(Interp *I, const Obj *t)
{
    if (!I->tracing && t && t->kind == O_TENSOR && t->t->g == &I->host) {
        VEC_PUSH(I->host_inexact, t->t->value);
        VEC_PUSH(I->host_unspec, t->t->value);
    }
}

void interp_consts_begin(Interp *I)
{
    free(I->const_map);
    I->const_map = NULL;
    I->const_map_n = 0;
    I->const_bytes = 0;
}

void interp_consts_end(Interp *I, int32_t node)
{
    for (size_t i = 0; i < I->shadows.n && !I->aborted; i++) {
        const Shadow *s = &I->shadows.v[i];
        if (s->input < 0 && s->weight < 0 && s->initial >= 0 && s->obj->kind == O_TENSOR &&
            s->obj->t->value != s->initial) {
            const char *name = strmap_get(&I->weight_names, interp_ptr_key(I, s->host));
            if (name && (!s->host->is_buffer || s->host->nonpersistent)) {   /* one state.c could not adopt */
                interp_diag(I, node, RULE_TNG211, "the tensor attribute '%s' is updated in place by this "
                            "entry after its value was read (or through a view taken before the write): tngc "
                            "keeps an attribute as state between calls only when the method writes into it "
                            "before any other use; register it as a persistent buffer to keep its state", name);
                continue;
            }
            interp_diag(I, node, RULE_TNG211, "the tensor %s%s%s is computed from constants (tngc "
                        "evaluates it in the bundle, it is not in the weights file) and this entry "
                        "updates it in place: register it as a persistent buffer to keep its state",
                        name ? "'" : "", name ? name : "made outside the compiled method", name ? "'" : "");
        }
    }
    interp_consts_begin(I);
}

/* The DimId attribute a of host op kind k (host dims are constants) in the
 * entry graph; other attributes are copied. */
static int64_t interp__const_attr(Interp *I, OpKind k, uint32_t j, int64_t a)
{
    int is_dim = k == OP_FULL || k == OP_RESHAPE || k == OP_EXPAND || (k == OP_ARANGE && j < 2) ||
                 (k == OP_SLICE_DYN && (j == 1 || j == 2));
    int64_t c;
    if (!is_dim || !graph_dim_const_value(&I->host, (DimId)a, &c))
        return a;
    return graph_dim_const(I->g, c);
}

/* Host value hv replayed into the entry graph when it is a constant: its
 * entry value; -1 when it is not a constant (the caller makes a weight);
 * -2 after a diagnostic naming name. */
static int32_t interp__const_of(Interp *I, int32_t hv, const char *name, int32_t node)
{
    Graph *hg = &I->host;
    if (hv < 0 || (size_t)hv >= hg->vals.n)
        return -1;
    size_t nv = hg->vals.n, no = hg->ops.n;
    if (I->const_map_n < nv) {
        int32_t *m = xmalloc((nv + 1) * sizeof *m);
        for (size_t i = 0; i < nv; i++)
            m[i] = i < I->const_map_n ? I->const_map[i] : -1;
        free(I->const_map);
        I->const_map = m;
        I->const_map_n = nv;
    }
    if (I->const_map[hv] >= 0)
        return I->const_map[hv];
    char *bad = xcalloc(nv + 1, 1), *need = xcalloc(no + 1, 1);
    for (size_t i = 0; i < I->host_inexact.n; i++)
        if ((size_t)I->host_inexact.v[i] < nv)
            bad[I->host_inexact.v[i]] = 1;
    for (size_t i = 0; i < I->weight_vals.n; i++)
        if ((size_t)I->weight_vals.v[i] < nv)
            bad[I->weight_vals.v[i]] = 1;
    int32_t last = hg->vals.v[hv].op, result = -1;
    int ok = 1;
    uint64_t bytes = 0;
    need[last] = 1;
    interp_work(I, (size_t)last + 1);
    for (int32_t o = last; o >= 0 && ok; o--) {
        if (!need[o])
            continue;
        const Op *op = &hg->ops.v[o];
        if ((op_info[op->kind].flags & OPF_SOURCE) || !graph_op_has_rule(op->kind)) {
            ok = 0;
            break;
        }
        for (uint32_t k = 0; k < op->nout; k++) {
            int32_t v = op->out + (int32_t)k;
            if (bad[v])
                ok = 0;
            if (I->const_map[v] >= 0)
                continue;
            const Val *val = &hg->vals.v[v];
            uint64_t n = (uint64_t)dtype_size(val->dtype);
            for (int d = 0; d < val->ndim; d++) {
                int64_t c;
                if (!graph_dim_const_value(hg, val->dims[d], &c) || c < 0)
                    ok = 0;
                else if (c && n > INTERP_MAX_CONST_BYTES * 2 / (uint64_t)c)
                    n = INTERP_MAX_CONST_BYTES * 2;
                else
                    n *= (uint64_t)c;
            }
            bytes += n;
        }
        for (uint32_t k = 0; k < op->nin && ok; k++) {
            int32_t x = op->in[k];
            if (x >= 0 && I->const_map[x] < 0)
                need[hg->vals.v[x].op] = 1;
        }
    }
    if (ok && I->const_bytes + bytes > INTERP_MAX_CONST_BYTES) {
        interp_diag(I, node, RULE_TNG212, "the constant tensor %s needs %llu bytes of constants computed "
                    "in the bundle, more than tngc allows per compiled entry (%llu): make it a persistent "
                    "buffer the weights file provides", name, (unsigned long long)(I->const_bytes + bytes),
                    (unsigned long long)INTERP_MAX_CONST_BYTES);
        ok = 0;
        result = -2;
    }
    for (int32_t o = 0; ok && o <= last; o++) {
        if (!need[o])
            continue;
        const Op *op = &hg->ops.v[o];
        if (I->const_map[op->out] >= 0)
            continue;
        int32_t in[64];
        int64_t attr[GRAPH_MAX_ATTRS];
        if (op->nin > sizeof in / sizeof *in) {
            ok = 0;
            break;
        }
        for (uint32_t k = 0; k < op->nin; k++)
            in[k] = op->in[k] >= 0 ? I->const_map[op->in[k]] : -1;
        for (uint32_t j = 0; j < op->nattr; j++)
            attr[j] = interp__const_attr(I, op->kind, j, op->attr[j]);
        OpDesc d = {0};
        d.kind = op->kind;
        d.in = in;
        d.nin = op->nin;
        d.attr = attr;
        d.nattr = op->nattr;
        d.fattr[0] = op->fattr[0];
        d.fattr[1] = op->fattr[1];
        d.dtype = op->dtype;
        d.stream = 0;
        d.sk = -1;
        d.line = op->line;
        d.col = op->col;
        d.file = op->file;
        int32_t id = graph_add_op(I->g, &d);
        if (id < 0) {
            interp_diag(I, node, RULE_TNG206, "the constant tensor %s: %s", name, I->g->error.s);
            ok = 0;
            result = -2;
            break;
        }
        interp_charge_graph(I);
        if (op_info[op->kind].flags & OPF_INPLACE)
            interp__inplace_war(I, id);
        for (uint32_t k = 0; k < op->nout; k++)
            I->const_map[op->out + (int32_t)k] = I->g->ops.v[id].out + (int32_t)k;
    }
    if (ok) {
        I->const_bytes += bytes;
        result = I->const_map[hv];
    }
    free(bad);
    free(need);
    return result;
}

/* ---- reads of tensor attributes that are state (state.c) ---- */

void interp_state_note(Interp *I, TensorObj *host)
{
    for (size_t i = 0; i < I->state_reads.n; i++)
        if (I->state_reads.v[i].host == host && I->state_reads.v[i].g == I->g)
            return;
    StateAttr a = {host, I->g, NULL};
    VEC_PUSH(I->state_reads, a);
}

int interp_state_check(Interp *I, const TensorObj *host, int32_t node)
{
    for (size_t i = 0; i < I->states.n; i++) {
        const StateAttr *a = &I->states.v[i];
        if (a->host != host || a->g == I->g)
            continue;
        interp_diag(I, node, RULE_TNG211, "the tensor attribute '%s' is state of the compiled entry %s (it "
                    "writes it in place) and this entry reads it too, but cannot hold it as state shared "
                    "with that entry's bundle: here it is %s (register it as a buffer and pass it as an "
                    "input, or compile one entry)", a->name, a->g->name,
                    strmap_get(&I->weight_names, interp_ptr_key(I, host))
                        ? "a view, a complex tensor or a tensor of dims not known"
                        : "no attribute of the compiled module");
        return 1;
    }
    return 0;
}

int interp_state_view_check(Interp *I, const TensorObj *host, int32_t node)
{
    if (!host || !host->base)
        return 0;
    for (size_t i = 0; i < I->states.n; i++)
        if (I->states.v[i].host == host->base && I->states.v[i].g == I->g) {
            interp_diag(I, node, RULE_TNG211, "this reads a view, made outside the compiled method, of the "
                        "tensor attribute '%s', which this entry keeps as state: the view would not see the "
                        "entry's writes (take the view inside the method)", I->states.v[i].name);
            return 1;
        }
    return 0;
}

/* The first record of another compiled entry keeping host tensor host as
 * state, or NULL. */
static const StateAttr *obj__state_elsewhere(const Interp *I, const TensorObj *host)
{
    for (size_t i = 0; i < I->states.n; i++)
        if (I->states.v[i].host == host && I->states.v[i].g != I->g)
            return &I->states.v[i];
    return NULL;
}

/* Host tensor t, a tensor attribute another entry keeps as state (sa),
 * read by this trace: a state weight of this entry too, named by its
 * attribute path here, marked as shared with sa's entry; the bundles of
 * both are bound to one copy by the program that runs them
 * (tngrt_bundle_share_state). The trace reads the state the call starts
 * from, and its writes keep it as state as the owner's do. NULL when it
 * cannot be one: no attribute path in this entry's module, a complex or
 * view tensor, a dim not known. */
static Obj *obj__shared_state(Interp *I, Obj *t, const StateAttr *sa)
{
    const char *name = strmap_get(&I->weight_names, interp_ptr_key(I, t->t));
    if (!name || !sa->name || t->t->cplx || t->t->base || t->t->is_param ||
        (t->t->is_buffer && !t->t->nonpersistent))
        return NULL;
    const Graph *hg = t->t->g;
    const Val *hv = &hg->vals.v[t->t->value];
    int64_t dims[GRAPH_MAX_DIMS];
    for (int d = 0; d < hv->ndim; d++)
        if (!graph_dim_const_value(hg, hv->dims[d], &dims[d]))
            return NULL;
    for (size_t i = 0; i < I->g->weights.n; i++)
        if (I->g->weights.v[i].name && strcmp(I->g->weights.v[i].name, name) == 0)
            return NULL;   /* the name taken (only a bug gets here) */
    int32_t v = graph_add_weight(I->g, name, hv->dtype, hv->ndim, dims, GRAPH_STATE);
    if (v < 0)
        return NULL;
    GraphWeight *w = &I->g->weights.v[I->g->weights.n - 1];
    w->share_entry = arena_strndup(&I->g->arena, sa->g->name, strlen(sa->g->name));
    w->share_name = arena_strndup(&I->g->arena, sa->name, strlen(sa->name));
    I->g->vals.v[v].format = hv->format;
    Obj *o = obj_tensor(I, v);
    o->t->origin = t->t;
    Shadow sh = {t->t, o, v, -1, (int)I->g->weights.n - 1};
    VEC_PUSH(I->shadows, sh);
    StateAttr a = {t->t, I->g, w->name};
    VEC_PUSH(I->states, a);
    interp_state_note(I, t->t);
    return o;
}

/* The entry-graph tensor standing for host tensor t in this trace. */
static Obj *interp__shadow_of(Interp *I, Obj *t, int32_t node)
{
    Shadow *s = interp_shadow_find(I, t->t);
    if (s)
        return s->obj;
    const StateAttr *sa = obj__state_elsewhere(I, t->t);
    Obj *shared = sa ? obj__shared_state(I, t, sa) : NULL;
    if (shared)
        return shared;
    if (interp_state_check(I, t->t, node) || interp_state_view_check(I, t->t, node)) {
        Shadow sh = {t->t, obj_unknown_reported(I), -1, -1, -1};
        VEC_PUSH(I->shadows, sh);
        return sh.obj;
    }
    interp_state_note(I, t->t);
    Graph *hg = t->t->g;
    if (t->t->base && t->t->seen != t->t->base->value && hg == &I->host) {
        /* a host view whose root host code wrote since: its value now */
        Graph *sg = I->g;
        int tr = I->tracing;
        I->g = hg;
        I->tracing = 0;
        int32_t hv = views_current(I, t->t, node);
        I->g = sg;
        I->tracing = tr;
        if (hv < 0)
            return NULL;
    }
    const Val *hv = &hg->vals.v[t->t->value];
    int64_t dims[GRAPH_MAX_DIMS];
    for (int d = 0; d < hv->ndim; d++)
        if (!graph_dim_const_value(hg, hv->dims[d], &dims[d]))
            return NULL;
    const char *name = strmap_get(&I->weight_names, interp_ptr_key(I, t->t));
    int is_buffer = t->t->is_buffer;
    if (!t->t->is_param && (!is_buffer || t->t->nonpersistent)) {
        int32_t cv = interp__const_of(I, t->t->value, name ? interp_printf(I, "'%s'", name) :
                                      "made outside the compiled method", node);
        if (cv != -1) {
            Obj *o = cv >= 0 ? obj_tensor(I, cv) : obj_unknown_reported(I);
            if (cv >= 0) {
                o->t->origin = t->t;
                o->t->cplx = t->t->cplx;
            }
            Shadow sh = {t->t, o, cv, -1, -1};
            VEC_PUSH(I->shadows, sh);
            return o;
        }
    }
    if (t->t->cplx) {
        /* a weights file holds real tensors: PyTorch's state_dict has complex64 */
        interp_diag(I, node, RULE_TNG203, "the complex tensor %s as a weight (a parameter, a persistent "
                    "buffer or a tensor of data tngc does not know) is not supported: make it a "
                    "non-persistent buffer or an attribute computed from constants",
                    name ? interp_printf(I, "'%s'", name) : "made outside the compiled method");
        Shadow sh = {t->t, obj_unknown_reported(I), -1, -1, -1};
        VEC_PUSH(I->shadows, sh);
        return sh.obj;
    }
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
    const char *key = interp_ptr_key(I, t->t);
    for (size_t i = 0; i < I->weight_aliases.n; i++)
        if (strcmp(I->weight_aliases.v[i].key, key) == 0)
            graph_add_weight_alias(I->g, (int32_t)I->g->weights.n - 1, I->weight_aliases.v[i].name);
    Obj *o = obj_tensor(I, v);
    o->t->origin = t->t;
    Shadow sh = {t->t, o, v, -1, (int)I->g->weights.n - 1};
    VEC_PUSH(I->shadows, sh);
    return o;
}

/* Host tensors read while tracing become entry-graph tensors. */
Obj *interp_trace_in(Interp *I, Obj *o, int32_t node)
{
    if (!I->tracing || !o || o->kind != O_TENSOR || o->t->g == I->g)
        return o;
    Obj *s = interp__shadow_of(I, o, node);
    return s ? s : interp_break(I, node, RULE_TNG205, "tensor of unknown shape");
}

/* Host code of a trace reads host: stale when the trace wrote it. */
static void obj__lazy_read(Interp *I, const TensorObj *host)
{
    for (size_t i = 0; i < I->shadows.n; i++) {
        const Shadow *sh = &I->shadows.v[i];
        if (sh->host == host && sh->obj && sh->obj->kind == O_TENSOR && sh->obj->t->value != sh->initial)
            I->lazy_stale = 1;
    }
}

int32_t interp_val(Interp *I, Obj *t, int32_t node)
{
    if (!t || t->kind != O_TENSOR)
        return -1;
    if (t->t->cplx && !I->cplx_ok) {
        /* every operation that computes on complex numbers is torchlib_complex.c's;
         * any other reader would take the float pairs for a real tensor */
        if (I->tracing)
            interp_diag(I, node, RULE_TNG203, "this operation on a complex tensor is not supported (tngc "
                        "computes complex64 tensors only with polar, complex, view_as_complex, view_as_real, "
                        ".real, .imag, + - *, views and indexing)");
        return -1;
    }
    if (I->lazy_body && !I->tracing && t->t->g == &I->host)
        obj__lazy_read(I, t->t->base ? t->t->base : t->t);
    if (t->t->g != I->g) {
        if (!I->tracing)
            return -1;
        t = interp_trace_in(I, t, node);
        if (t->kind != O_TENSOR)
            return -1;
    }
    int32_t v = t->t->base ? views_current(I, t->t, node) : t->t->value;
    if (I->rowtag.n)
        rowsel_read(I, v);
    return v;
}

/* ---- the ordering of in-place writes ----
 *
 * An in-place write must run after every earlier op that reads the storage
 * it writes. The writes of one storage root are ordered among themselves
 * (each reads the root), so a write needs edges only from the reads since
 * the previous write of its root, that write included: the reads before it
 * are ordered before it by its own edges. The edges are linear in the
 * reads. The reads are entered lazily, in program order, from the graph's
 * ops (Interp.war_*). */

/* An upper bound of the arena bytes graph_add_ctrl takes for an op with n
 * control edges: arrays of 4, 8, 16, ... op ids and flags, each aligned. */
static size_t obj__ctrl_bytes(uint32_t n)
{
    size_t b = 0;
    for (size_t cap = 4; n > 0; cap *= 2) {
        b += cap * (sizeof(int32_t) + 1) + 32;
        if (n <= cap)
            break;
    }
    return b;
}

/* graph_add_ctrl on the current graph, its arrays charged to the budget. */
static void obj__add_ctrl(Interp *I, int32_t op, int32_t c, int explicit_wait)
{
    uint32_t n = I->g->ops.v[op].nctrl;
    graph_add_ctrl(I->g, op, c, explicit_wait);
    uint32_t m = I->g->ops.v[op].nctrl;
    if (m != n)
        interp_charge(I, obj__ctrl_bytes(m) - obj__ctrl_bytes(n));
}

/* Starts the reads over for the current graph. */
static void obj__war_reset(Interp *I)
{
    I->war_g = I->g;
    I->war_scanned = 0;
    I->war_writer = -1;
    I->war_reads.n = 0;
    for (size_t i = 0; i < I->war_nlast; i++)
        I->war_last[i] = -1;
}

/* war_last covers every value of the current graph; the tables' growth is
 * charged to the budget. */
static void obj__war_fit(Interp *I)
{
    size_t nv = I->g->vals.n;
    if (nv > I->war_nlast) {
        size_t n = nv + nv / 2 + 16;
        I->war_last = xrealloc(I->war_last, n * sizeof *I->war_last);
        for (size_t i = I->war_nlast; i < n; i++)
            I->war_last[i] = -1;
        I->war_nlast = n;
    }
    size_t now = I->war_nlast * sizeof *I->war_last + I->war_reads.cap * sizeof *I->war_reads.v +
                 I->war_edges.cap * sizeof *I->war_edges.v;
    if (now > I->war_bytes) {
        interp_charge(I, now - I->war_bytes);
        I->war_bytes = now;
    }
}

/* Enters op o as a read of every storage root it reads (a view op does
 * not read its source: the view's readers do); the write that has its
 * edges as a write of its root. */
static void obj__war_enter(Interp *I, int32_t o)
{
    const Graph *g = I->g;
    const Op *r = &g->ops.v[o];
    if (op_info[r->kind].flags & OPF_SOURCE)
        return;
    for (uint32_t k = 0; k < r->nin; k++) {
        if (r->in[k] < 0 || (k == 0 && (op_info[r->kind].flags & OPF_ALIAS)))
            continue;
        int32_t root = graph_storage_root(g, r->in[k]);
        int32_t last = I->war_last[root];
        if (last >= 0 && I->war_reads.v[last].op == o)
            continue;   /* o reads root through an earlier operand too */
        WarRead rd = {o, root, last, o == I->war_writer && k == 0};
        VEC_PUSH(I->war_reads, rd);
        I->war_last[root] = (int32_t)I->war_reads.n - 1;
    }
}

/* The control edges of the in-place write opid, the last op of the graph. */
static void interp__inplace_war(Interp *I, int32_t opid)
{
    Graph *g = I->g;
    if (I->war_g != g || I->war_scanned > (size_t)opid)
        obj__war_reset(I);
    obj__war_fit(I);
    size_t work = (size_t)opid - I->war_scanned;
    for (; I->war_scanned < (size_t)opid; I->war_scanned++)
        obj__war_enter(I, (int32_t)I->war_scanned);
    int32_t root = graph_storage_root(g, g->ops.v[opid].in[0]);
    I->war_edges.n = 0;
    for (int32_t e = I->war_last[root]; e >= 0; e = I->war_reads.v[e].prev) {
        VEC_PUSH(I->war_edges, I->war_reads.v[e].op);
        if (I->war_reads.v[e].write)
            break;   /* the reads before it precede it */
    }
    /* in program order, as graph_add_ctrl wants them */
    for (size_t i = I->war_edges.n; i-- > 0;)
        obj__add_ctrl(I, opid, I->war_edges.v[i], 0);
    I->war_writer = opid;
    obj__war_fit(I);
    interp_work(I, work + I->war_edges.n + 1);
}

void interp_ops_forget(Interp *I, size_t nops)
{
    if (I->war_g != I->g)
        return;
    while (I->war_reads.n > 0 && (size_t)I->war_reads.v[I->war_reads.n - 1].op >= nops) {
        const WarRead *r = &I->war_reads.v[--I->war_reads.n];
        I->war_last[r->root] = r->prev;
    }
    if (I->war_scanned > nops)
        I->war_scanned = nops;
    if (I->war_writer >= 0 && (size_t)I->war_writer >= nops)
        I->war_writer = -1;
}

int32_t interp_emit(Interp *I, OpKind kind, const int32_t *in, uint32_t nin, const int64_t *attr,
                    uint32_t nattr, double f0, double f1, DType dt, int32_t node)
{
    OpDesc d;
    memset(&d, 0, sizeof d);
    d.kind = kind;
    d.in = in;
    d.nin = nin;
    d.attr = attr;
    d.nattr = nattr;
    d.fattr[0] = f0;
    d.fattr[1] = f1;
    d.dtype = dt;
    d.sk = -1;
    return interp_op(I, &d, node);
}

uint32_t interp_node_line(const Interp *I, int32_t node)
{
    return N(I, node >= 0 ? node : 0)->line;
}

int32_t interp_op(Interp *I, OpDesc *d, int32_t node)
{
    d->stream = I->tracing ? I->stream : 0;
    d->sk = I->tracing ? I->sk : -1;
    int32_t nn = node >= 0 ? node : 0;
    d->line = N(I, nn)->line;
    d->col = ast_col(I->ast, nn);
    d->file = I->src ? I->src->path : NULL;   /* code of an imported module */
    for (uint32_t k = 0; k < d->nin; k++)
        if (d->in[k] < -1 || d->in[k] >= (int32_t)I->g->vals.n)
            return -1;
    for (uint32_t k = 0; k < d->nin; k++)
        if (d->in[k] >= 0 && interp_stale(I, d->in[k], node))
            return -1;
    int32_t op = graph_add_op(I->g, d);
    interp_charge_graph(I);
    if (op < 0) {
        /* in host mode too: a module-level tensor past the size limit (or
         * of shapes that do not fit) is the script's error, at its line,
         * not a silent unknown that surfaces as "argument not known" at
         * the call of the model */
        const char *err = I->g->error.s;
        interp_diag(I, node, strstr(err, "dtype") ? RULE_TNG207 : RULE_TNG206, "%s", err);
        return -1;
    }
    if (op_info[d->kind].flags & OPF_INPLACE)
        views_mark_stale(I, d->in[0]);   /* its old version is gone */
    if (!I->tracing)
        return op;
    int tag;
    const char *why = I->rowtag.n ? rowsel_check_op(I, op, &tag) : NULL;
    if (why) {
        interp_diag(I, node, RULE_TNG203, "the rows torch.where(condition) selected at line %u reach '%s', which "
                    "%s: how many rows there are depends on the data, and tngc computes them as all the "
                    "condition's rows with a mask, which is exact only while each row is computed on its own",
                    interp_node_line(I, I->rowsels.v[tag - 1].node), op_info[d->kind].name, why);
        return -1;
    }
    for (uint32_t k = 0; k < d->nin; k++)
        for (size_t w = 0; w < I->waits.n; w++)
            if (I->waits.v[w].value == d->in[k]) {
                int32_t p = I->g->vals.v[I->waits.v[w].waits_for].op;
                if (!(op_info[I->g->ops.v[p].kind].flags & OPF_SOURCE))
                    obj__add_ctrl(I, op, p, 1);
            }
    if (I->waits.n)
        interp_work(I, d->nin * I->waits.n);
    if (op_info[d->kind].flags & OPF_INPLACE)
        interp__inplace_war(I, op);
    return op;
}
