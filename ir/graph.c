/*
 * graph.c - the op graph that lowering builds and the planner reads.
 *
 * Three parts:
 *   - the tables: dtypes, layout formats (X-macros of graph.h), op kinds
 *     (ops.def: one row per kind; its shape rule an infer_<rule> of
 *     infer.c or infer_families.c);
 *   - symbolic dims, hash-consed so that the same expression has the same
 *     id. Sums are kept in one canonical form (a linear combination of
 *     "atoms" — symbols, products, quotients, min/max — with the atoms in
 *     id order and the constant last), so a+b and b+a, (s0*8)//4 and s0*2,
 *     s0-(s0-1) and 1 all meet. Each dim also carries an interval of its
 *     possible values, which decides min/max where it can;
 *   - the graph: sources, ops and values, control dependencies, streams
 *     and super kernels. graph_add_op (infer.c) checks an op's operands
 *     and infers its outputs' dtypes, formats and shapes as PyTorch does.
 *
 * Sizes never wrap: every constant, coefficient and evaluation goes
 * through graph_ckd_*, an overflow gives the sticky overflow marker, and
 * graph_add_op / graph_add_input / graph_add_weight refuse values that
 * break the size invariant of graph.h (GRAPH_MAX_BYTES) or ops during which
 * an overflow happened. The planner checks the same invariant per gear.
 *
 * Symbols are sizes of dynamic input dims: they are taken to be >= 1 (gear
 * values are positive sizes). That is what lets x[1:] on a symbolic dim s0
 * have size s0-1 rather than max(s0-min(1,s0),0).
 */
#include "graph.h"

#include <string.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* ===================================================================== */
/* Tables                                                                */
/* ===================================================================== */

const OpInfo op_info[OP__count] = {
#define OP(e, name, flags, in_min, in_max, in_opt, attr_min, attr_max, rule, dtype_rule, rowrule, printer, fusion, op_type, view, layout, swap, acl_form, cpu, cpu_scalar, acl, acl_ts, acl_st, attrs) \
    [OP_##e] = {name, flags, in_min, in_max, in_opt, attr_min, attr_max, view, layout, swap, attrs},
#define SWAP(k) OP_##k
#define NO_SWAP (-1)
#include "ops.def"
#undef NO_SWAP
#undef SWAP
#undef OP
};

typedef struct DTypeInfo {
    const char *name;
    int size;
} DTypeInfo;

static const DTypeInfo dtype_table[DT__count] = {
    [DT_UNKNOWN] = {"?", 0},
#define X(e, name, size) [DT_##e] = {name, size},
    DTYPES(X)
#undef X
};

static const char *const dtype_shorts[DT__count] = {
    [DT_UNKNOWN] = "?", [DT_F32] = "f32", [DT_F16] = "f16", [DT_BF16] = "bf16",
    [DT_I8] = "i8", [DT_I32] = "i32", [DT_I64] = "i64", [DT_BOOL] = "b8",
};

static const DTypeInfo *dtype__info(DType t)
{
    return &dtype_table[(unsigned)t < DT__count ? t : DT_UNKNOWN];
}

const char *dtype_name(DType t) { return dtype__info(t)->name; }
int dtype_size(DType t) { return dtype__info(t)->size; }

const char *dtype_short(DType t)
{
    return dtype_shorts[(unsigned)t < DT__count ? t : DT_UNKNOWN];
}

int dtype_is_float(DType t)
{
    return t == DT_F32 || t == DT_F16 || t == DT_BF16;
}

/* 1 for an integer dtype (bool is none). Used by the shape rules too
 * (infer_core.h declares the graph.c helpers they use). */
int dtype__is_int(DType t)
{
    return t == DT_I8 || t == DT_I32 || t == DT_I64;
}

DType dtype_from_torch_name(const char *name)
{
    static const struct { const char *name; DType t; } names[] = {
        {"float32", DT_F32}, {"float", DT_F32}, {"float16", DT_F16}, {"half", DT_F16},
        {"bfloat16", DT_BF16}, {"int8", DT_I8}, {"int32", DT_I32}, {"int", DT_I32},
        {"int64", DT_I64}, {"long", DT_I64}, {"bool", DT_BOOL},
    };
    if (!name)
        return DT_UNKNOWN;
    if (!strncmp(name, "torch.", 6))
        name += 6;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i].name))
            return names[i].t;
    return DT_UNKNOWN;
}

const char *format_name(int fmt)
{
    static _Thread_local char other[32];
    switch (fmt) {
    case FMT_NCHW: return "NCHW";
    case FMT_NHWC: return "NHWC";
    case FMT_ND: return "ND";
    case FMT_NC1HWC0: return "NC1HWC0";
    case FMT_FRACTAL_Z: return "FRACTAL_Z";
    case FMT_FRACTAL_NZ: return "FRACTAL_NZ";
    default:
        snprintf(other, sizeof other, "FORMAT_%d", fmt);
        return other;
    }
}

/* ===================================================================== */
/* The graph                                                             */
/* ===================================================================== */

void graph_init(Graph *self, const char *name, const char *file)
{
    memset(self, 0, sizeof *self);
    self->name = name ? arena_strndup(&self->arena, name, strlen(name)) : NULL;
    self->file = file ? arena_strndup(&self->arena, file, strlen(file)) : NULL;
    self->cfg.mode = "max-autotune";
    self->cfg.dynamic = -1;
    self->cfg.fullgraph = -1;
    self->cfg.policy = GEAR_ZIP;
    VEC_PUSH(self->streams, ((GraphStream){NULL, 0, 0, 0}));
}

void graph_free(Graph *self)
{
    VEC_FREE(self->ops);
    VEC_FREE(self->vals);
    VEC_FREE(self->dims);
    VEC_FREE(self->syms);
    VEC_FREE(self->inputs);
    VEC_FREE(self->weights);
    VEC_FREE(self->weight_aliases);
    VEC_FREE(self->unread_keys);
    VEC_FREE(self->outputs);
    VEC_FREE(self->streams);
    VEC_FREE(self->sks);
    VEC_FREE(self->gears);
    VEC_FREE(self->checks);
    VEC_FREE(self->roots);
    strmap_free(&self->dim_index);
    strmap_free(&self->stream_index);
    strmap_free(&self->sk_index);
    sb_free(&self->error);
    arena_free(&self->arena);
}

/* ===================================================================== */
/* Integer helpers: checked, saturating and floor arithmetic             */
/* ===================================================================== */

int graph_ckd_add(int64_t *r, int64_t a, int64_t b) { return __builtin_add_overflow(a, b, r); }
int graph_ckd_sub(int64_t *r, int64_t a, int64_t b) { return __builtin_sub_overflow(a, b, r); }
int graph_ckd_mul(int64_t *r, int64_t a, int64_t b) { return __builtin_mul_overflow(a, b, r); }

int graph_size_check(int ndim, const int64_t *dims, int esize, int64_t *bytes)
{
    int64_t extent = esize > 0 ? esize : 1, numel = 1;
    for (int i = 0; i < ndim; i++) {
        if (dims[i] < 0 || dims[i] > GRAPH_MAX_BYTES)
            return -1;
        /* extent and the dim are <= GRAPH_MAX_BYTES: a checked product suffices */
        if (graph_ckd_mul(&extent, extent, dims[i] > 1 ? dims[i] : 1) || extent > GRAPH_MAX_BYTES)
            return -1;
        numel *= dims[i];   /* <= extent */
    }
    if (bytes)
        *bytes = numel * (esize > 0 ? esize : 1);
    return 0;
}

/* a op b into *r; on overflow, counts it in *ovf (left alone otherwise). */
static int64_t ckd_add_or(int64_t a, int64_t b, int *ovf)
{
    int64_t r = 0;
    *ovf |= graph_ckd_add(&r, a, b);
    return r;
}

static int64_t ckd_mul_or(int64_t a, int64_t b, int *ovf)
{
    int64_t r = 0;
    *ovf |= graph_ckd_mul(&r, a, b);
    return r;
}

/* a // b, rounding towards minus infinity (b != 0, not INT64_MIN // -1). */
static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
        q--;
    return q;
}

/* Interval ends: INT64_MIN is minus infinity, INT64_MAX plus infinity. */
static int64_t sat_neg(int64_t x)
{
    return x == INT64_MAX ? INT64_MIN : x == INT64_MIN ? INT64_MAX : -x;
}

static int64_t sat_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

/* Sum of two lower ends (minus infinity wins) and of two upper ends. */
static int64_t lo_add(int64_t a, int64_t b)
{
    return a == INT64_MIN || b == INT64_MIN ? INT64_MIN : sat_add(a, b);
}

static int64_t hi_add(int64_t a, int64_t b)
{
    return a == INT64_MAX || b == INT64_MAX ? INT64_MAX : sat_add(a, b);
}

static int64_t sat_mul(int64_t a, int64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    int neg = (a < 0) != (b < 0);
    int64_t inf = neg ? INT64_MIN : INT64_MAX;
    if (a == INT64_MIN || a == INT64_MAX || b == INT64_MIN || b == INT64_MAX)
        return inf;
    uint64_t ua = a < 0 ? -(uint64_t)a : (uint64_t)a;
    uint64_t ub = b < 0 ? -(uint64_t)b : (uint64_t)b;
    if (ua > (uint64_t)INT64_MAX / ub)
        return inf;
    int64_t p = (int64_t)(ua * ub);
    return neg ? -p : p;
}

static int64_t inf_floordiv(int64_t a, int64_t c)
{
    return a == INT64_MIN || a == INT64_MAX ? a : floordiv(a, c);
}

/* ===================================================================== */
/* Symbolic dims: the hash-consed table                                  */
/* ===================================================================== */

/* What dim_index maps an expression's key to (arena-allocated). */
typedef struct DimInfo {
    DimId id;
    int64_t lo, hi;        /* the values it can take (INT64_MIN/MAX: unbounded) */
} DimInfo;

static int dim__key(char *buf, size_t n, DimKind k, int64_t c, DimId a, DimId b)
{
    return snprintf(buf, n, "%d:%lld:%d:%d", (int)k, (long long)c, (int)a, (int)b);
}

static const DimExpr *dim__expr(const Graph *g, DimId d)
{
    TNGC_ASSERT(d >= 0 && (size_t)d < g->dims.n);
    return &g->dims.v[d];
}

static const DimInfo *dim__info(const Graph *g, DimId d)
{
    const DimExpr *e = dim__expr(g, d);
    char key[96];
    dim__key(key, sizeof key, e->kind, e->c, e->a, e->b);
    const DimInfo *info = strmap_get(&g->dim_index, key);
    TNGC_ASSERT(info && info->id == d);
    return info;
}

static void dim__bounds_mul(const DimInfo *x, const DimInfo *y, int64_t *lo, int64_t *hi)
{
    if (y->lo == y->hi || x->lo == x->hi) {
        const DimInfo *v = y->lo == y->hi ? x : y;
        int64_t c = y->lo == y->hi ? y->lo : x->lo;
        *lo = sat_mul(c >= 0 ? v->lo : v->hi, c);
        *hi = sat_mul(c >= 0 ? v->hi : v->lo, c);
    } else if (x->lo >= 0 && y->lo >= 0) {
        *lo = sat_mul(x->lo, y->lo);
        *hi = sat_mul(x->hi, y->hi);
    }
}

static void dim__bounds_div(const DimInfo *x, const DimInfo *y, int64_t *lo, int64_t *hi)
{
    if (y->lo == y->hi && y->lo > 0) {
        *lo = inf_floordiv(x->lo, y->lo);
        *hi = inf_floordiv(x->hi, y->lo);
    } else if (x->lo >= 0 && y->lo >= 1) {
        *lo = 0;
        *hi = x->hi;
    }
}

/* The interval of a new expression, from its operands' intervals. */
static void dim__bounds(const Graph *g, DimKind k, int64_t c, DimId a, DimId b,
                        int64_t *lo, int64_t *hi)
{
    *lo = INT64_MIN;
    *hi = INT64_MAX;
    if (k == DIM_CONST) {
        *lo = *hi = c;
        return;
    }
    if (k == DIM_SYM) {
        *lo = 1;
        return;
    }
    const DimInfo *x = dim__info(g, a), *y = dim__info(g, b);
    switch (k) {
    case DIM_ADD: *lo = lo_add(x->lo, y->lo); *hi = hi_add(x->hi, y->hi); break;
    case DIM_SUB: *lo = lo_add(x->lo, sat_neg(y->hi)); *hi = hi_add(x->hi, sat_neg(y->lo)); break;
    case DIM_MUL: dim__bounds_mul(x, y, lo, hi); break;
    case DIM_DIV: dim__bounds_div(x, y, lo, hi); break;
    case DIM_MIN: *lo = MIN(x->lo, y->lo); *hi = MIN(x->hi, y->hi); break;
    case DIM_MAX: *lo = MAX(x->lo, y->lo); *hi = MAX(x->hi, y->hi); break;
    default: break;
    }
}

/* The id of expression (k, c, a, b), added to the table the first time. */
static DimId dim__intern(Graph *g, DimKind k, int64_t c, DimId a, DimId b)
{
    char key[96];
    int n = dim__key(key, sizeof key, k, c, a, b);
    DimInfo *info = strmap_get(&g->dim_index, key);
    if (info)
        return info->id;
    info = arena_alloc(&g->arena, sizeof *info);
    info->id = (DimId)g->dims.n;
    dim__bounds(g, k, c, a, b, &info->lo, &info->hi);
    VEC_PUSH(g->dims, ((DimExpr){k, c, a, b}));
    strmap_put(&g->dim_index, arena_strndup(&g->arena, key, (size_t)n), info);
    return info->id;
}

DimId graph_dim_const(Graph *self, int64_t c)
{
    return dim__intern(self, DIM_CONST, c, -1, -1);
}

DimId graph_dim_overflow(Graph *self)
{
    self->overflows++;
    return dim__intern(self, DIM_SYM, -1, -1, -1);
}

int graph_dim_is_overflow(const Graph *self, DimId d)
{
    const DimExpr *e = dim__expr(self, d);
    return e->kind == DIM_SYM && e->c < 0;
}

/* 1 when either operand is the overflow marker. */
static int dim__overflowed(const Graph *g, DimId a, DimId b)
{
    return graph_dim_is_overflow(g, a) || graph_dim_is_overflow(g, b);
}

int graph_dim_const_value(const Graph *self, DimId d, int64_t *c)
{
    const DimExpr *e = dim__expr(self, d);
    if (e->kind != DIM_CONST)
        return 0;
    *c = e->c;
    return 1;
}

/* 1 when d is the constant v. */
int dim__is(const Graph *g, DimId d, int64_t v)
{
    int64_t c;
    return graph_dim_const_value(g, d, &c) && c == v;
}

DimId graph_dim_sym(Graph *self, int input, int dim, int64_t example)
{
    int64_t n = (int64_t)self->syms.n;
    const char *name = arena_printf(&self->arena, "s%lld", (long long)n);
    VEC_PUSH(self->syms, ((Sym){name, input, dim, example}));
    return dim__intern(self, DIM_SYM, n, -1, -1);
}

/* An expression as written, operands of commutative kinds in canonical
 * order: a constant last, otherwise the lower id first. */
static DimId dim__raw(Graph *g, DimKind k, DimId a, DimId b)
{
    int commutes = k == DIM_ADD || k == DIM_MUL || k == DIM_MIN || k == DIM_MAX;
    int64_t c;
    if (commutes && (graph_dim_const_value(g, a, &c) ||
                     (!graph_dim_const_value(g, b, &c) && a > b))) {
        DimId t = a;
        a = b;
        b = t;
    }
    return dim__intern(g, k, 0, a, b);
}

/* ===================================================================== */
/* Symbolic dims: linear forms (the canonical form of sums)              */
/* ===================================================================== */

#define LIN_TERMS 16

/* k + sum(coef[i] * atom[i]), atoms in increasing id order, no zero coef;
 * ovf set when a coefficient or k overflowed (the form is then invalid). */
typedef struct Lin {
    int n;
    DimId atom[LIN_TERMS];
    int64_t coef[LIN_TERMS];
    int64_t k;
    int ovf;
} Lin;

/* Adds coef*atom; -1 when the form would have too many terms. */
static int lin__term(Lin *l, DimId atom, int64_t coef)
{
    int i = 0;
    while (i < l->n && l->atom[i] < atom)
        i++;
    if (i < l->n && l->atom[i] == atom) {
        l->coef[i] = ckd_add_or(l->coef[i], coef, &l->ovf);
        if (l->coef[i] == 0) {
            memmove(&l->atom[i], &l->atom[i + 1], (size_t)(l->n - i - 1) * sizeof l->atom[0]);
            memmove(&l->coef[i], &l->coef[i + 1], (size_t)(l->n - i - 1) * sizeof l->coef[0]);
            l->n--;
        }
        return 0;
    }
    if (l->n == LIN_TERMS)
        return -1;
    memmove(&l->atom[i + 1], &l->atom[i], (size_t)(l->n - i) * sizeof l->atom[0]);
    memmove(&l->coef[i + 1], &l->coef[i], (size_t)(l->n - i) * sizeof l->coef[0]);
    l->atom[i] = atom;
    l->coef[i] = coef;
    l->n++;
    return 0;
}

/* Adds scale*d to l, looking through +, - and products with a constant.
 * budget bounds the walk (shared subexpressions of fallback nodes). */
static int lin__add(const Graph *g, Lin *l, DimId d, int64_t scale, int *budget)
{
    if (scale == 0)
        return 0;
    if (--*budget < 0)
        return -1;
    const DimExpr *e = dim__expr(g, d);
    int64_t c;
    switch (e->kind) {
    case DIM_CONST:
        l->k = ckd_add_or(l->k, ckd_mul_or(scale, e->c, &l->ovf), &l->ovf);
        return 0;
    case DIM_ADD:
    case DIM_SUB:
        if (lin__add(g, l, e->a, scale, budget) < 0)
            return -1;
        return lin__add(g, l, e->b, e->kind == DIM_ADD ? scale : ckd_mul_or(scale, -1, &l->ovf),
                        budget);
    case DIM_MUL:
        if (graph_dim_const_value(g, e->b, &c))
            return lin__add(g, l, e->a, ckd_mul_or(scale, c, &l->ovf), budget);
        if (graph_dim_const_value(g, e->a, &c))
            return lin__add(g, l, e->b, ckd_mul_or(scale, c, &l->ovf), budget);
        break;
    default:
        break;
    }
    return lin__term(l, d, scale);
}

/* l = a + sb*b; 0, or -1 when the form is too big. */
static int lin__of(const Graph *g, Lin *l, DimId a, DimId b, int64_t sb)
{
    int budget = 64;
    memset(l, 0, sizeof *l);
    if (lin__add(g, l, a, 1, &budget) < 0)
        return -1;
    return b < 0 ? 0 : lin__add(g, l, b, sb, &budget);
}

static DimId lin__scaled(Graph *g, DimId atom, int64_t coef)
{
    return coef == 1 ? atom : dim__intern(g, DIM_MUL, 0, atom, graph_dim_const(g, coef));
}

/* The canonical expression of l: positive terms summed in atom order, then
 * the negative terms subtracted, then the constant ("s0+s1*2-s2-1"; a
 * positive constant leads when every term is negative: "5-s0"); the
 * overflow marker when l overflowed. */
static DimId lin__build(Graph *g, const Lin *l)
{
    DimId e = -1;
    int64_t k = l->k, neg;
    if (l->ovf)
        return graph_dim_overflow(g);
    for (int i = 0; i < l->n; i++)
        if (l->coef[i] == INT64_MIN)
            return graph_dim_overflow(g);   /* its negation does not fit */
    for (int i = 0; i < l->n; i++) {
        if (l->coef[i] <= 0)
            continue;
        DimId t = lin__scaled(g, l->atom[i], l->coef[i]);
        e = e < 0 ? t : dim__intern(g, DIM_ADD, 0, e, t);
    }
    if (e < 0 && k > 0) {
        e = graph_dim_const(g, k);
        k = 0;
    }
    for (int i = 0; i < l->n; i++) {
        if (l->coef[i] >= 0)
            continue;
        if (e < 0)
            e = lin__scaled(g, l->atom[i], l->coef[i]);
        else
            e = dim__intern(g, DIM_SUB, 0, e, lin__scaled(g, l->atom[i], -l->coef[i]));
    }
    if (e < 0)
        return graph_dim_const(g, k);
    if (k > 0)
        return dim__intern(g, DIM_ADD, 0, e, graph_dim_const(g, k));
    if (k < 0 && !graph_ckd_sub(&neg, 0, k))
        return dim__intern(g, DIM_SUB, 0, e, graph_dim_const(g, neg));
    if (k < 0)
        return dim__intern(g, DIM_ADD, 0, e, graph_dim_const(g, k));
    return e;
}

/* a + sb*b in canonical form (raw when the form is too big). */
static DimId dim__linear(Graph *g, DimKind raw, DimId a, DimId b, int64_t sb)
{
    Lin l;
    if (lin__of(g, &l, a, b, sb) == 0)
        return lin__build(g, &l);
    return dim__raw(g, raw, a, b);
}

/* 1 when a == b for every binding of the symbols, -1 when a != b for
 * every binding, 0 when it depends on them. */
int dim__same(const Graph *g, DimId a, DimId b)
{
    if (a == b)
        return 1;
    Lin l;
    if (lin__of(g, &l, a, b, -1) == 0 && !l.ovf && l.n == 0)
        return l.k == 0 ? 1 : -1;
    const DimInfo *x = dim__info(g, a), *y = dim__info(g, b);
    return x->hi < y->lo || y->hi < x->lo ? -1 : 0;
}

/* -1 when a <= b always, 1 when a >= b always, 0 when it depends. */
static int dim__compare(const Graph *g, DimId a, DimId b)
{
    const DimInfo *x = dim__info(g, a), *y = dim__info(g, b);
    if (x->hi <= y->lo)
        return -1;
    if (y->hi <= x->lo)
        return 1;
    Lin l;
    if (lin__of(g, &l, a, b, -1) == 0 && !l.ovf && l.n == 0)
        return l.k <= 0 ? -1 : 1;
    return 0;
}

/* 1 when d may be 1 in some gear. */
int dim__may_be_one(const Graph *g, DimId d)
{
    const DimInfo *x = dim__info(g, d);
    return x->lo <= 1 && 1 <= x->hi;
}

/* ===================================================================== */
/* Symbolic dims: arithmetic                                             */
/* ===================================================================== */

/* The constant *r, or the overflow marker when computing it overflowed
 * (r by address: read after the call that sets it). */
static DimId dim__folded(Graph *g, int overflowed, const int64_t *r)
{
    return overflowed ? graph_dim_overflow(g) : graph_dim_const(g, *r);
}

DimId graph_dim_add(Graph *self, DimId a, DimId b)
{
    int64_t x, y, r;
    if (dim__overflowed(self, a, b))
        return graph_dim_overflow(self);
    if (graph_dim_const_value(self, a, &x) && graph_dim_const_value(self, b, &y))
        return dim__folded(self, graph_ckd_add(&r, x, y), &r);
    return dim__linear(self, DIM_ADD, a, b, 1);
}

DimId graph_dim_sub(Graph *self, DimId a, DimId b)
{
    int64_t x, y, r;
    if (dim__overflowed(self, a, b))
        return graph_dim_overflow(self);
    if (a == b)
        return graph_dim_const(self, 0);
    if (graph_dim_const_value(self, a, &x) && graph_dim_const_value(self, b, &y))
        return dim__folded(self, graph_ckd_sub(&r, x, y), &r);
    return dim__linear(self, DIM_SUB, a, b, -1);
}

/* d without its constant factor, which is multiplied into *f (*ovf set
 * when that overflows). */
static DimId dim__unscale(const Graph *g, DimId d, int64_t *f, int *ovf)
{
    const DimExpr *e = dim__expr(g, d);
    int64_t c;
    if (e->kind == DIM_MUL && graph_dim_const_value(g, e->b, &c)) {
        *f = ckd_mul_or(*f, c, ovf);
        return e->a;
    }
    return d;
}

DimId graph_dim_mul(Graph *self, DimId a, DimId b)
{
    int64_t x, y, r;
    if (dim__overflowed(self, a, b))
        return graph_dim_overflow(self);
    int ka = graph_dim_const_value(self, a, &x), kb = graph_dim_const_value(self, b, &y);
    if (ka && kb)
        return dim__folded(self, graph_ckd_mul(&r, x, y), &r);
    if (ka) {
        DimId t = a;
        a = b;
        b = t;
        y = x;
        kb = 1;
    }
    if (kb) {
        if (y == 0 || y == 1)
            return y ? a : b;
        Lin l;
        int budget = 64;
        memset(&l, 0, sizeof l);
        if (lin__add(self, &l, a, y, &budget) == 0)
            return lin__build(self, &l);
        return dim__raw(self, DIM_MUL, a, b);
    }
    /* two non-constants: the product of the bare atoms, times the factors */
    int64_t f = 1;
    int ovf = 0;
    a = dim__unscale(self, a, &f, &ovf);
    b = dim__unscale(self, b, &f, &ovf);
    if (ovf)
        return graph_dim_overflow(self);
    DimId p = dim__raw(self, DIM_MUL, a, b);
    return f == 1 ? p : graph_dim_mul(self, p, graph_dim_const(self, f));
}

/* a // c for a constant c != 0 when it simplifies; -1 otherwise. */
static DimId dim__div_const(Graph *g, DimId a, int64_t c)
{
    DimExpr e = *dim__expr(g, a);   /* a copy: interning may move g->dims */
    int64_t c1;
    /* (x // c1) // c == x // (c1*c) for positive c1, c */
    if (e.kind == DIM_DIV && graph_dim_const_value(g, e.b, &c1) && c1 > 0 && c > 0 &&
        c1 <= INT64_MAX / c)
        return graph_dim_div(g, e.a, graph_dim_const(g, c1 * c));
    /* (c*L + k) // c == L + k // c */
    Lin l;
    if (lin__of(g, &l, a, -1, 0) < 0 || l.ovf || c == -1)
        return -1;
    for (int i = 0; i < l.n; i++) {
        if (l.coef[i] % c != 0)
            return -1;
        l.coef[i] /= c;
    }
    l.k = floordiv(l.k, c);
    return lin__build(g, &l);
}

/* The factors of a product: its constant factor into *f (*ovf set when it
 * overflows), its other factors (atoms: symbols, sums, quotients, ...) into
 * atoms[0..*n). Returns -1 when there are more than `max`. */
static int dim__factors(const Graph *g, DimId d, DimId *atoms, int *n, int max, int64_t *f, int *ovf)
{
    const DimExpr *e = dim__expr(g, d);
    if (e->kind == DIM_CONST) {
        *f = ckd_mul_or(*f, e->c, ovf);
        return 0;
    }
    if (e->kind == DIM_MUL) {
        DimId x = e->a, y = e->b;   /* copies: e is not touched again */
        return dim__factors(g, x, atoms, n, max, f, ovf) < 0 ? -1 : dim__factors(g, y, atoms, n, max, f, ovf);
    }
    if (*n >= max)
        return -1;
    atoms[(*n)++] = d;
    return 0;
}

/* a // b when the division is exact because b's factors are among a's:
 * a = fa * A and b = fb * B (A, B products of atoms), B's atoms a part of
 * A's, each of them provably >= 1, fb > 0 dividing fa. Then
 * a // b == (fa / fb) * (A without B), with no remainder: a reshape's
 * inferred dim, s0*512 // (s0*8), is 64. -1 when that does not hold. */
static DimId dim__div_exact(Graph *g, DimId a, DimId b)
{
    enum { MAXF = 16 };
    DimId fa_atoms[MAXF], fb_atoms[MAXF];
    int na = 0, nb = 0, ovf = 0;
    int64_t fa = 1, fb = 1;
    if (dim__factors(g, a, fa_atoms, &na, MAXF, &fa, &ovf) < 0 ||
        dim__factors(g, b, fb_atoms, &nb, MAXF, &fb, &ovf) < 0 || ovf || fb <= 0 || fa % fb != 0 || nb == 0)
        return -1;
    for (int j = 0; j < nb; j++) {
        int found = -1;
        for (int i = 0; i < na && found < 0; i++)
            if (fa_atoms[i] == fb_atoms[j])
                found = i;
        if (found < 0 || dim__info(g, fb_atoms[j])->lo < 1)
            return -1;
        fa_atoms[found] = fa_atoms[--na];   /* removed; order does not matter to the product's value */
    }
    DimId r = graph_dim_const(g, fa / fb);
    for (int i = 0; i < na; i++)
        r = graph_dim_mul(g, r, fa_atoms[i]);
    return r;
}

DimId graph_dim_div(Graph *self, DimId a, DimId b)
{
    int64_t x, y;
    if (dim__overflowed(self, a, b) || (graph_dim_const_value(self, b, &y) && y == 0))
        return graph_dim_overflow(self);   /* a // 0 is no size either */
    if (graph_dim_const_value(self, b, &y)) {
        if (y == 1)
            return a;
        if (graph_dim_const_value(self, a, &x)) {
            if (x == INT64_MIN && y == -1)
                return graph_dim_overflow(self);
            return graph_dim_const(self, floordiv(x, y));
        } else {
            DimId r = dim__div_const(self, a, y);
            if (r >= 0)
                return r;
        }
    } else if (a == b && dim__info(self, a)->lo >= 1) {
        return graph_dim_const(self, 1);
    } else {
        DimId r = dim__div_exact(self, a, b);
        if (r >= 0)
            return r;
    }
    return dim__raw(self, DIM_DIV, a, b);
}

static DimId dim__minmax(Graph *g, DimKind k, DimId a, DimId b)
{
    int64_t x, y;
    if (dim__overflowed(g, a, b))
        return graph_dim_overflow(g);
    if (a == b)
        return a;
    if (graph_dim_const_value(g, a, &x) && graph_dim_const_value(g, b, &y))
        return graph_dim_const(g, k == DIM_MIN ? MIN(x, y) : MAX(x, y));
    int cmp = dim__compare(g, a, b);
    if (cmp)
        return (k == DIM_MIN) == (cmp < 0) ? a : b;
    return dim__raw(g, k, a, b);
}

DimId graph_dim_min(Graph *self, DimId a, DimId b)
{
    return dim__minmax(self, DIM_MIN, a, b);
}

DimId graph_dim_max(Graph *self, DimId a, DimId b)
{
    return dim__minmax(self, DIM_MAX, a, b);
}

/* ===================================================================== */
/* Symbolic dims: evaluation and text                                    */
/* ===================================================================== */

int graph_dim_eval(const Graph *self, DimId d, const int64_t *symval, int64_t *out)
{
    const DimExpr *e = dim__expr(self, d);
    int64_t x = 0, y = 0;
    switch (e->kind) {
    case DIM_CONST:
        *out = e->c;
        return 0;
    case DIM_SYM:
        if (e->c < 0)
            return -2;     /* the overflow marker */
        if (!symval || symval[e->c] == INT64_MIN)
            return -1;
        *out = symval[e->c];
        return 0;
    default:
        break;
    }
    /* both operands, so that an overflow anywhere wins over an unbound symbol */
    int ra = graph_dim_eval(self, e->a, symval, &x), rb = graph_dim_eval(self, e->b, symval, &y);
    if (ra < 0 || rb < 0)
        return ra == -2 || rb == -2 ? -2 : -1;
    switch (e->kind) {
    case DIM_ADD: return graph_ckd_add(out, x, y) ? -2 : 0;
    case DIM_SUB: return graph_ckd_sub(out, x, y) ? -2 : 0;
    case DIM_MUL: return graph_ckd_mul(out, x, y) ? -2 : 0;
    case DIM_DIV:
        if (y == 0 || (x == INT64_MIN && y == -1))
            return -2;
        *out = floordiv(x, y);
        return 0;
    case DIM_MIN: *out = MIN(x, y); return 0;
    case DIM_MAX: *out = MAX(x, y); return 0;
    default: return -1;
    }
}

/* Binding strength of an expression's text: sums 1, products 2, atoms 3. */
static int dim__prec(const Graph *g, DimId d)
{
    switch (dim__expr(g, d)->kind) {
    case DIM_ADD: case DIM_SUB: return 1;
    case DIM_MUL: case DIM_DIV: return 2;
    default: return 3;
    }
}

/* Appends operand d of an operator of strength p; right operands of equal
 * strength are parenthesised too (a-(b+c), a//(b*c)). */
static void dim__operand(const Graph *g, DimId d, int p, int right, StrBuf *out)
{
    int q = dim__prec(g, d);
    int paren = q < p || (right && q == p);
    if (paren)
        sb_putc(out, '(');
    graph_dim_str(g, d, out);
    if (paren)
        sb_putc(out, ')');
}

void graph_dim_str(const Graph *self, DimId d, StrBuf *out)
{
    const DimExpr *e = dim__expr(self, d);
    static const char *const ops[] = {
        [DIM_ADD] = "+", [DIM_SUB] = "-", [DIM_MUL] = "*", [DIM_DIV] = "//",
    };
    switch (e->kind) {
    case DIM_CONST:
        sb_printf(out, "%lld", (long long)e->c);
        return;
    case DIM_SYM:
        sb_puts(out, e->c < 0 ? "<overflow>" : self->syms.v[e->c].name);
        return;
    case DIM_MIN:
    case DIM_MAX:
        sb_puts(out, e->kind == DIM_MIN ? "min(" : "max(");
        graph_dim_str(self, e->a, out);
        sb_putc(out, ',');
        graph_dim_str(self, e->b, out);
        sb_putc(out, ')');
        return;
    default: {
        int p = dim__prec(self, d);
        dim__operand(self, e->a, p, 0, out);
        sb_puts(out, ops[e->kind]);
        dim__operand(self, e->b, p, 1, out);
        return;
    }
    }
}

int graph_dim_uses_sym(const Graph *self, DimId d, int sym)
{
    const DimExpr *e = dim__expr(self, d);
    switch (e->kind) {
    case DIM_CONST: return 0;
    case DIM_SYM: return e->c == sym;
    default:
        return graph_dim_uses_sym(self, e->a, sym) || graph_dim_uses_sym(self, e->b, sym);
    }
}

/* ===================================================================== */
/* The size invariant                                                    */
/* ===================================================================== */

/* Why dims[0..ndim) of esize-byte elements break the size invariant in
 * every binding of the symbols (a constant, or the lower end of a symbolic
 * dim's interval, too big or negative; the overflow marker), or NULL when
 * they may not. */
const char *graph__size_problem(const Graph *g, int ndim, const DimId *dims, int esize)
{
    int64_t lo[GRAPH_MAX_DIMS];
    for (int i = 0; i < ndim; i++) {
        if (graph_dim_is_overflow(g, dims[i]))
            return "overflows 64-bit arithmetic";
        const DimInfo *info = dim__info(g, dims[i]);
        if (info->hi < 0)
            return "has a negative size";
        lo[i] = MAX(info->lo, 0);
    }
    if (graph_size_check(ndim, lo, esize, NULL) < 0)
        return "is larger than 2^48 bytes, the most tngc plans for one tensor";
    return NULL;
}

/* ===================================================================== */
/* Ops and values                                                        */
/* ===================================================================== */

/* Appends an op whose outputs are vals[0..nout); returns its id. The
 * storage roots of its outputs join g->roots while that covers every
 * value (values pushed by hand, as tests do, end it). */
int32_t graph__push_op(Graph *g, Op *op, Val *vals, uint32_t nout)
{
    int32_t id = (int32_t)g->ops.n;
    int keep_roots = g->roots.n == g->vals.n;
    op->out = (int32_t)g->vals.n;
    op->nout = nout;
    for (uint32_t i = 0; i < nout; i++) {
        vals[i].op = id;
        vals[i].idx = (uint16_t)i;
        VEC_PUSH(g->vals, vals[i]);
    }
    VEC_PUSH(g->ops, *op);
    for (uint32_t i = 0; keep_roots && i < nout; i++) {
        int32_t r = graph_storage_root(g, op->out + (int32_t)i);
        VEC_PUSH(g->roots, r);
    }
    return id;
}

/* A source op (INPUT or WEIGHT) producing one value; returns the value id. */
static int32_t graph__source(Graph *g, OpKind kind, Val *v, uint32_t line, uint32_t col)
{
    Op op = {0};
    op.kind = kind;
    op.line = line;
    op.col = col;
    op.sk = -1;
    graph__push_op(g, &op, v, 1);
    return (int32_t)g->vals.n - 1;
}

int32_t graph_add_input(Graph *self, const char *name, DType dt, int format,
                        int ndim, const DimId *dims, const int64_t *example,
                        int is_static, uint32_t line, uint32_t col)
{
    if (ndim < 0 || ndim > GRAPH_MAX_DIMS)
        return -1;
    for (int i = 0; i < ndim; i++)
        TNGC_ASSERT(dims[i] >= 0 && (size_t)dims[i] < self->dims.n);
    if (graph__size_problem(self, ndim, dims, dtype_size(dt)))
        return -1;
    GraphInput in = {0};
    in.name = name ? arena_strndup(&self->arena, name, strlen(name)) : NULL;
    in.is_static = is_static;
    in.final = -1;
    Val v = {0};
    v.ndim = (uint8_t)ndim;
    v.format = (uint8_t)format;
    v.dtype = dt;
    v.name = in.name;
    for (int i = 0; i < ndim; i++) {
        v.dims[i] = dims[i];
        in.example[i] = example ? example[i] : 0;
    }
    in.value = graph__source(self, OP_INPUT, &v, line, col);
    VEC_PUSH(self->inputs, in);
    return in.value;
}

int32_t graph_add_weight(Graph *self, const char *name, DType dt, int ndim,
                         const int64_t *dims, int is_buffer)
{
    if (ndim < 0 || ndim > GRAPH_MAX_DIMS || graph_size_check(ndim, dims, dtype_size(dt), NULL) < 0)
        return -1;
    GraphWeight w = {0};
    w.name = name ? arena_strndup(&self->arena, name, strlen(name)) : NULL;
    w.is_buffer = is_buffer;
    w.final = -1;
    Val v = {0};
    v.ndim = (uint8_t)ndim;
    v.format = FMT_ND;
    v.dtype = dt;
    for (int i = 0; i < ndim; i++)
        v.dims[i] = graph_dim_const(self, dims[i]);
    w.value = graph__source(self, OP_WEIGHT, &v, 0, 0);
    VEC_PUSH(self->weights, w);
    return w.value;
}

void graph_add_weight_alias(Graph *self, int32_t w, const char *name)
{
    TNGC_ASSERT(w >= 0 && (size_t)w < self->weights.n);
    for (size_t i = 0; i < self->weights.n; i++)
        if (self->weights.v[i].name && strcmp(self->weights.v[i].name, name) == 0)
            return;
    for (size_t i = 0; i < self->weight_aliases.n; i++)
        if (strcmp(self->weight_aliases.v[i].name, name) == 0)
            return;
    GraphWeightAlias a = {arena_strndup(&self->arena, name, strlen(name)), w};
    VEC_PUSH(self->weight_aliases, a);
}

void graph_truncate(Graph *self, size_t nops, size_t nvals)
{
    /* (the ops kept were made before the values dropped: none reads one) */
    TNGC_ASSERT(nops <= self->ops.n && nvals <= self->vals.n);
    self->ops.n = nops;
    self->vals.n = nvals;
    if (self->roots.n > nvals)
        self->roots.n = nvals;
}

void graph_add_unread_key(Graph *self, const char *name)
{
    const char *k = arena_strndup(&self->arena, name, strlen(name));
    VEC_PUSH(self->unread_keys, k);
}

/* ===================================================================== */
/* Control dependencies, streams, super kernels, text                    */
/* ===================================================================== */

void graph_add_ctrl(Graph *self, int32_t op, int32_t c, int explicit_wait)
{
    TNGC_ASSERT(op >= 0 && (size_t)op < self->ops.n && c >= 0 && c < op);
    Op *o = &self->ops.v[op];
    /* (past the largest: no repeat; lowering adds in program order) */
    for (uint32_t i = 0; o->nctrl > 0 && c <= o->ctrl_max && i < o->nctrl; i++) {
        if (o->ctrl[i] == c) {
            if (explicit_wait)
                o->ctrl_explicit[i] = 1;
            return;
        }
    }
    /* arena arrays with power-of-two capacities: grow when full */
    uint32_t n = o->nctrl;
    if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
        uint32_t cap = n ? 2 * n : 4;
        int32_t *ctrl = arena_alloc(&self->arena, cap * sizeof *ctrl);
        uint8_t *expl = arena_alloc(&self->arena, cap);
        if (n) {
            memcpy(ctrl, o->ctrl, n * sizeof *ctrl);
            memcpy(expl, o->ctrl_explicit, n);
        }
        o->ctrl = ctrl;
        o->ctrl_explicit = expl;
    }
    o->ctrl[n] = c;
    o->ctrl_explicit[n] = explicit_wait ? 1 : 0;
    o->nctrl = n + 1;
    if (n == 0 || c > o->ctrl_max)
        o->ctrl_max = c;
}

/* The streams and super kernels are looked up by name through a map;
 * a table filled without these functions (a test's) is indexed anew. */
int graph_stream(Graph *self, const char *tag, int64_t priority, uint32_t line, uint32_t col)
{
    if (!tag)
        return 0;
    if (self->stream_index.n + 1 != self->streams.n) {
        strmap_free(&self->stream_index);
        for (size_t i = 1; i < self->streams.n; i++)
            strmap_put(&self->stream_index, self->streams.v[i].tag, (void *)(intptr_t)i);
    }
    intptr_t i = (intptr_t)strmap_get(&self->stream_index, tag);
    if (i > 0)
        return (int)i;
    GraphStream s = {arena_strndup(&self->arena, tag, strlen(tag)), priority, line, col};
    VEC_PUSH(self->streams, s);
    strmap_put(&self->stream_index, s.tag, (void *)(intptr_t)(self->streams.n - 1));
    return (int)self->streams.n - 1;
}

int graph_sk(Graph *self, const char *name, const char *options, uint32_t line, uint32_t col)
{
    if (!name)
        return -1;
    if (self->sk_index.n != self->sks.n) {
        strmap_free(&self->sk_index);
        for (size_t i = 0; i < self->sks.n; i++)
            strmap_put(&self->sk_index, self->sks.v[i].name, (void *)(intptr_t)(i + 1));
    }
    intptr_t i = (intptr_t)strmap_get(&self->sk_index, name);
    if (i > 0)
        return (int)i - 1;
    GraphSk sk = {arena_strndup(&self->arena, name, strlen(name)),
                  options ? arena_strndup(&self->arena, options, strlen(options)) : NULL,
                  line, col};
    VEC_PUSH(self->sks, sk);
    strmap_put(&self->sk_index, sk.name, (void *)(intptr_t)self->sks.n);
    return (int)self->sks.n - 1;
}

void graph_val_type_str(const Graph *self, int32_t v, StrBuf *out)
{
    if (v < 0 || (size_t)v >= self->vals.n) {
        sb_puts(out, "?");
        return;
    }
    const Val *val = &self->vals.v[v];
    sb_puts(out, dtype_short(val->dtype));
    sb_putc(out, '[');
    for (int i = 0; i < val->ndim; i++) {
        if (i)
            sb_putc(out, ',');
        graph_dim_str(self, val->dims[i], out);
    }
    sb_putc(out, ']');
}

int32_t graph_storage_root(const Graph *g, int32_t v)
{
    /* A chain of views is never longer than the ops before it; it ends
     * at a value whose root g->roots holds, if not before. */
    for (size_t steps = 0; steps <= g->ops.n; steps++) {
        if ((size_t)v < g->roots.n)
            return g->roots.v[v];
        const Op *op = &g->ops.v[g->vals.v[v].op];
        unsigned flags = op_info[op->kind].flags;
        if (!(flags & (OPF_ALIAS | OPF_INPLACE)) || op->nin == 0 || op->in[0] < 0)
            return v;
        v = op->in[0];
    }
    TNGC_BUG("cycle of views at value %d", (int)v);
}
