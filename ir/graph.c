/*
 * graph.c - the op graph that lowering builds and the planner reads.
 *
 * Three parts:
 *   - the tables: dtypes, layout formats (X-macros of graph.h), op kinds
 *     (ops.def: one row per kind, its shape rule an infer_<rule> below);
 *   - symbolic dims, hash-consed so that the same expression has the same
 *     id. Sums are kept in one canonical form (a linear combination of
 *     "atoms" — symbols, products, quotients, min/max — with the atoms in
 *     id order and the constant last), so a+b and b+a, (s0*8)//4 and s0*2,
 *     s0-(s0-1) and 1 all meet. Each dim also carries an interval of its
 *     possible values, which decides min/max where it can;
 *   - graph_add_op: checks an op's operands and infers its outputs' dtypes,
 *     formats and shapes as PyTorch does (broadcasting, type promotion,
 *     matmul and view rules). A shape fact that cannot be decided on
 *     symbols becomes a DimCheck that the planner evaluates in every gear.
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
 *
 * Error messages come from user scripts: one line, lower case, starting
 * with the op's name ("matmul: the inner dims differ: [2, 3] @ [4, 5]").
 */
#include "graph.h"

#include <string.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* ===================================================================== */
/* Tables                                                                */
/* ===================================================================== */

const OpInfo op_info[OP__count] = {
#define OP(e, name, flags, in_min, in_max, in_opt, attr_min, attr_max, rule, rowrule, printer, fusion, op_type, view, layout, swap, acl_form, cpu, cpu_scalar, acl, acl_ts, acl_st, attrs) \
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

static int dtype__is_int(DType t)
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

static int dim__is(const Graph *g, DimId d, int64_t v)
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
static int dim__same(const Graph *g, DimId a, DimId b)
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
static int dim__may_be_one(const Graph *g, DimId d)
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
static const char *graph__size_problem(const Graph *g, int ndim, const DimId *dims, int esize)
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
static int32_t graph__push_op(Graph *g, Op *op, Val *vals, uint32_t nout)
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
/* Inference: context and helpers                                        */
/* ===================================================================== */

/* A shape under construction (room for intermediate ranks past the limit). */
typedef struct Shape {
    int n;
    DimId d[2 * GRAPH_MAX_DIMS];
} Shape;

/* The state of one graph_add_op call. */
typedef struct Infer {
    Graph *g;
    const OpDesc *d;
    const char *op;                  /* the op's name: first word of messages */
    int64_t attr[GRAPH_MAX_ATTRS];   /* d->attr (RESHAPE replaces its -1) */
    Val out[3];
    uint32_t nout;
    StrBuf text[3];                  /* shape texts for messages */
    char *err;
    size_t errlen;
} Infer;

/* Writes "<op>: <message>" to the caller's buffer; returns -1. */
static int infer__fail(Infer *I, const char *fmt, ...)
{
    if (!I->err || !I->errlen)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(I->err, I->errlen, "%s: ", I->op);
    if (n >= 0 && (size_t)n < I->errlen)
        vsnprintf(I->err + n, I->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Input i, or NULL when it is absent (-1). */
static const Val *infer__in(const Infer *I, uint32_t i)
{
    if (i >= I->d->nin || I->d->in[i] < 0)
        return NULL;
    return &I->g->vals.v[I->d->in[i]];
}

static Shape shape_of(const Val *v)
{
    Shape s = {0};
    s.n = v->ndim;
    memcpy(s.d, v->dims, (size_t)v->ndim * sizeof s.d[0]);
    return s;
}

/* s as "(2, s0)" (paren) or "[2, s0]", in message slot `slot`. */
static const char *infer__shape_text(Infer *I, int slot, const Shape *s, int paren)
{
    StrBuf *t = &I->text[slot];
    t->len = 0;
    sb_putc(t, paren ? '(' : '[');
    for (int i = 0; i < s->n; i++) {
        if (i)
            sb_puts(t, ", ");
        graph_dim_str(I->g, s->d[i], t);
    }
    sb_putc(t, paren ? ')' : ']');
    return t->s;
}

static const char *infer__dim_text(Infer *I, int slot, DimId d)
{
    StrBuf *t = &I->text[slot];
    t->len = 0;
    graph_dim_str(I->g, d, t);
    return t->s;
}

/* Records a check the planner evaluates in every gear. */
static void infer__check(Infer *I, DimCheckKind k, DimId a, DimId b, const char *what)
{
    DimCheck c = {k, a, b, (int32_t)I->g->ops.n,
                  arena_strndup(&I->g->arena, what, strlen(what))};
    VEC_PUSH(I->g->checks, c);
}

/* a and b must be equal: 0 (with a check when only a gear can tell), or -1
 * (no message) when they differ. */
static int infer__equal(Infer *I, DimId a, DimId b, const char *what)
{
    int same = dim__same(I->g, a, b);
    if (same < 0)
        return -1;
    if (same == 0)
        infer__check(I, DIMCHECK_EQ, a, b, what);
    return 0;
}

/* Adds an output value (format ND: graph_add_op adjusts it). */
static int infer__out(Infer *I, DType dt, const Shape *s)
{
    if (s->n > GRAPH_MAX_DIMS)
        return infer__fail(I, "the result would have %d dims (at most %d)", s->n, GRAPH_MAX_DIMS);
    Val *v = &I->out[I->nout++];
    memset(v, 0, sizeof *v);
    v->dtype = dt;
    v->format = FMT_ND;
    v->ndim = (uint8_t)s->n;
    memcpy(v->dims, s->d, (size_t)s->n * sizeof s->d[0]);
    return 0;
}

/* dim (already normalised) must index a tensor of rank ndim. */
static int infer__dim(Infer *I, int64_t dim, int ndim)
{
    if (dim < 0 || dim >= ndim)
        return infer__fail(I, "dim %lld is out of range for a %d-d tensor", (long long)dim, ndim);
    return 0;
}

/* attr i must be a DimId of the graph. */
static int infer__dim_attr(Infer *I, uint32_t i)
{
    int64_t a = I->attr[i];
    if (a < 0 || (uint64_t)a >= I->g->dims.n)
        return infer__fail(I, "attribute %u is not a dim", i);
    int64_t c;
    if (graph_dim_is_overflow(I->g, (DimId)a))
        return infer__fail(I, "a requested size overflows 64-bit arithmetic");
    if (graph_dim_const_value(I->g, (DimId)a, &c) && c < 0)
        return infer__fail(I, "invalid negative size %lld", (long long)c);
    return 0;
}

static DimId infer__numel(Infer *I, const Shape *s)
{
    DimId n = graph_dim_const(I->g, 1);
    for (int i = 0; i < s->n; i++)
        n = graph_dim_mul(I->g, n, s->d[i]);
    return n;
}

/* d halved; it must be even. */
static int infer__half(Infer *I, DimId d, int dim, DimId *half)
{
    int64_t c;
    if (graph_dim_const_value(I->g, d, &c) && c % 2)
        return infer__fail(I, "dim %d has odd size %lld: it must be even", dim, (long long)c);
    DimId two = graph_dim_const(I->g, 2);
    *half = graph_dim_div(I->g, d, two);
    char what[96];
    snprintf(what, sizeof what, "dim %d of the input of %s is even", dim, I->op);
    return infer__equal(I, d, graph_dim_mul(I->g, *half, two), what);
}

/* ---- broadcasting ---- */

/* One aligned pair of sizes: -1 when they can never broadcast. */
static int infer__bcast_dim(Infer *I, DimId x, DimId y, int pos, DimId *out)
{
    Graph *g = I->g;
    int same = dim__same(g, x, y);
    if (same > 0 || dim__is(g, y, 1)) {
        *out = x;
        return 0;
    }
    if (dim__is(g, x, 1)) {
        *out = y;
        return 0;
    }
    if (same < 0 && !dim__may_be_one(g, x) && !dim__may_be_one(g, y))
        return -1;
    int64_t c;
    if (graph_dim_const_value(g, x, &c))
        *out = x;
    else if (graph_dim_const_value(g, y, &c))
        *out = y;
    else
        *out = graph_dim_max(g, x, y);
    char what[96];
    snprintf(what, sizeof what, "dim %d of the operands of %s", pos, I->op);
    infer__check(I, DIMCHECK_BCAST, x, y, what);
    return 0;
}

/* PyTorch broadcasting: right-aligned, a size 1 stretches. */
static int infer__broadcast(Infer *I, const Shape *a, const Shape *b, Shape *out)
{
    int n = MAX(a->n, b->n);
    out->n = n;
    for (int i = 0; i < n; i++) {
        int ia = i - (n - a->n), ib = i - (n - b->n);
        if (ia < 0 || ib < 0) {
            out->d[i] = ia < 0 ? b->d[ib] : a->d[ia];
            continue;
        }
        if (infer__bcast_dim(I, a->d[ia], b->d[ib], i, &out->d[i]) < 0)
            return infer__fail(I, "shapes %s and %s cannot be broadcast",
                               infer__shape_text(I, 0, a, 1), infer__shape_text(I, 1, b, 1));
    }
    return 0;
}

/* src must broadcast to dst without changing dst (expand, copy_). */
static int infer__expand(Infer *I, const Shape *src, const Shape *dst)
{
    int ok = src->n <= dst->n;
    for (int i = 0; ok && i < src->n; i++) {
        DimId s = src->d[i], d = dst->d[i + dst->n - src->n];
        int same = dim__same(I->g, s, d);
        if (same > 0 || dim__is(I->g, s, 1))
            continue;
        if (same < 0 && !dim__may_be_one(I->g, s)) {
            ok = 0;
            break;
        }
        char what[96];
        snprintf(what, sizeof what, "dim %d of the source of %s", i, I->op);
        infer__check(I, DIMCHECK_BCAST, s, d, what);
    }
    if (!ok)
        return infer__fail(I, "the shape %s cannot be broadcast to %s",
                           infer__shape_text(I, 0, src, 1), infer__shape_text(I, 1, dst, 1));
    return 0;
}

/* ---- dtypes ---- */

/* PyTorch's categories: bool < integer < floating point. */
static int dtype__category(DType t)
{
    return t == DT_BOOL ? 0 : dtype__is_int(t) ? 1 : 2;
}

/* torch.promote_types on the dtypes this graph has. */
static DType dtype__promote(DType a, DType b)
{
    if (a == b)
        return a;
    int ca = dtype__category(a), cb = dtype__category(b);
    if (ca != cb)
        return ca > cb ? a : b;
    if (ca == 2)
        return DT_F32;     /* f16 with bf16, or either with f32 */
    return dtype_size(a) >= dtype_size(b) ? a : b;
}

/* The result dtype of a tensor-tensor op: a 0-d operand only counts when
 * its category is higher (torch.result_type). */
static DType dtype__result(const Val *a, const Val *b)
{
    if ((a->ndim == 0) == (b->ndim == 0))
        return dtype__promote(a->dtype, b->dtype);
    const Val *dimmed = a->ndim ? a : b, *zero = a->ndim ? b : a;
    if (dtype__category(zero->dtype) > dtype__category(dimmed->dtype))
        return zero->dtype;
    return dimmed->dtype;
}

/* The result dtype of tensor op Python scalar: a float tensor keeps its
 * dtype; a float scalar makes an integer tensor float32; an int scalar
 * keeps an integer tensor's dtype (bool becomes int64). */
static DType dtype__with_scalar(DType t, int int_scalar)
{
    if (dtype_is_float(t))
        return t;
    if (!int_scalar)
        return DT_F32;
    return t == DT_BOOL ? DT_I64 : t;
}

/* The two operands of a matrix product must have the same dtype. */
static int infer__same_dtype(Infer *I, const Val *a, const Val *b)
{
    if (a->dtype != b->dtype)
        return infer__fail(I, "expected both operands to have the same dtype, got %s and %s",
                           dtype_name(a->dtype), dtype_name(b->dtype));
    return 0;
}

static int infer__float_input(Infer *I, const Val *x)
{
    if (!dtype_is_float(x->dtype))
        return infer__fail(I, "expected an input of a floating point dtype, got %s",
                           dtype_name(x->dtype));
    return 0;
}

/* ===================================================================== */
/* Inference per op kind                                                 */
/* ===================================================================== */

/* torch.full(shape, value, dtype=...) and friends: attr = the shape's dims */
static int infer_full(Infer *I)
{
    Shape s = {0};
    s.n = (int)I->d->nattr;
    for (uint32_t i = 0; i < I->d->nattr; i++) {
        if (infer__dim_attr(I, i) < 0)
            return -1;
        s.d[i] = (DimId)I->attr[i];
    }
    return infer__out(I, I->d->dtype ? I->d->dtype : DT_F32, &s);
}

/* a + b, a - b, a * b, a / b; a + 2.0; 2.0 - a */
static int infer_binary(Infer *I)
{
    int64_t mode = I->d->nattr > 0 ? I->attr[0] : 0;
    int int_scalar = I->d->nattr > 1 && I->attr[1];
    if (mode < 0 || mode > 2)
        return infer__fail(I, "invalid operand mode %lld", (long long)mode);
    if (I->d->nin != (mode ? 1u : 2u))
        return infer__fail(I, "expected %d tensor operand(s), got %u", mode ? 1 : 2, I->d->nin);
    const Val *a = infer__in(I, 0);
    Shape s = shape_of(a);
    DType dt;
    if (mode == 0) {
        const Val *b = infer__in(I, 1);
        Shape sa = s, sb = shape_of(b);
        if (I->d->kind == OP_SUB && a->dtype == DT_BOOL && b->dtype == DT_BOOL)
            return infer__fail(I, "dtypes bool and bool: subtraction of two bool tensors "
                               "is not supported");
        if (infer__broadcast(I, &sa, &sb, &s) < 0)
            return -1;
        dt = dtype__result(a, b);
    } else {
        dt = dtype__with_scalar(a->dtype, int_scalar);
    }
    if (I->d->kind == OP_DIV && !dtype_is_float(dt))
        dt = DT_F32;
    return infer__out(I, dt, &s);
}

/* clamp(x, min, max) with Python number bounds: promoted as x + bound */
static int infer_clamp(Infer *I)
{
    const Val *x = infer__in(I, 0);
    Shape s = shape_of(x);
    return infer__out(I, dtype__with_scalar(x->dtype, I->d->nattr > 0 && I->attr[0]), &s);
}

/* x ** 2.0: an integer tensor stays integer for a non-negative integral
 * exponent and becomes float32 otherwise */
static int infer_pow(Infer *I)
{
    const Val *x = infer__in(I, 0);
    double e = I->d->fattr[0];
    DType dt = x->dtype;
    if (!dtype_is_float(dt)) {
        int integral = e > -9e18 && e < 9e18 && e == (double)(int64_t)e;
        if (integral && e < 0)
            return infer__fail(I, "dtype %s: integers to negative integer powers are not allowed",
                               dtype_name(dt));
        if (!integral)
            dt = DT_F32;
        else if (dt == DT_BOOL)
            dt = DT_I64;
    }
    Shape s = shape_of(x);
    return infer__out(I, dt, &s);
}

/* -x, abs(x), relu(x), sign(x), floor(x), ...: the dtype stays (but
 * square(bool) is int64, as torch's) */
static int infer_same_dtype(Infer *I)
{
    const Val *x = infer__in(I, 0);
    OpKind k = I->d->kind;
    if (k == OP_NEG && x->dtype == DT_BOOL)
        return infer__fail(I, "dtype bool: negation of a bool tensor is not supported");
    if ((k == OP_FLOOR || k == OP_CEIL || k == OP_ROUND) && x->dtype == DT_BOOL)
        return infer__fail(I, "dtype bool is not supported (torch has no bool kernel); "
                           "cast with .int() first");
    Shape s = shape_of(x);
    return infer__out(I, k == OP_SQUARE && x->dtype == DT_BOOL ? DT_I64 : x->dtype, &s);
}

/* exp(x), sigmoid(x), F.gelu(x), ...: integers become float32 */
static int infer_float_unary(Infer *I)
{
    const Val *x = infer__in(I, 0);
    Shape s = shape_of(x);
    /* torch promotes integer inputs of exp, log, sqrt, rsqrt, sigmoid,
     * tanh, cos, sin, reciprocal, erf, log1p and expm1 to float32; gelu,
     * silu, softplus, leaky_relu, hardswish and mish have no integer
     * kernels */
    OpKind k = I->d->kind;
    if (!dtype_is_float(x->dtype) && (k == OP_GELU || k == OP_SILU || k == OP_SOFTPLUS ||
                                      k == OP_LEAKY_RELU || k == OP_HARDSWISH || k == OP_MISH))
        return infer__fail(I, "dtype %s is not supported (torch has no integer kernel); "
                           "cast with .float() first", dtype_name(x->dtype));
    return infer__out(I, dtype_is_float(x->dtype) ? x->dtype : DT_F32, &s);
}

/* x.to(dtype), x.float(), x.half() */
static int infer_cast(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (I->d->dtype == DT_UNKNOWN)
        return infer__fail(I, "no target dtype");
    Shape s = shape_of(x);
    return infer__out(I, I->d->dtype, &s);
}

/* The contracted dims ka (of a) and kb (of b) must be equal. */
static int infer__contract(Infer *I, DimId ka, DimId kb, const Shape *a, const Shape *b)
{
    char what[96];
    snprintf(what, sizeof what, "the inner dims of %s", I->op);
    if (infer__equal(I, ka, kb, what) < 0)
        return infer__fail(I, "the inner dims differ: %s @ %s",
                           infer__shape_text(I, 0, a, 0), infer__shape_text(I, 1, b, 0));
    return 0;
}

static int infer__rank(Infer *I, const Val *v, int lo, int hi, const char *what)
{
    if (v->ndim < lo || v->ndim > hi) {
        if (lo == hi)
            return infer__fail(I, "expected a %d-d %s, got %d-d", lo, what, v->ndim);
        return infer__fail(I, "expected a %d-d to %d-d %s, got %d-d", lo, hi, what, v->ndim);
    }
    return 0;
}

/* torch.mm(a[m,k], b[k,n]) -> [m,n] */
static int infer_mm(Infer *I)
{
    const Val *a = infer__in(I, 0), *b = infer__in(I, 1);
    if (infer__rank(I, a, 2, 2, "first operand") < 0 ||
        infer__rank(I, b, 2, 2, "second operand") < 0 || infer__same_dtype(I, a, b) < 0)
        return -1;
    Shape sa = shape_of(a), sb = shape_of(b);
    if (infer__contract(I, sa.d[1], sb.d[0], &sa, &sb) < 0)
        return -1;
    Shape s = {2, {sa.d[0], sb.d[1]}};
    return infer__out(I, a->dtype, &s);
}

/* torch.bmm(a[b,m,k], b[b,k,n]) -> [b,m,n] */
static int infer_bmm(Infer *I)
{
    const Val *a = infer__in(I, 0), *b = infer__in(I, 1);
    if (infer__rank(I, a, 3, 3, "first operand") < 0 ||
        infer__rank(I, b, 3, 3, "second operand") < 0 || infer__same_dtype(I, a, b) < 0)
        return -1;
    Shape sa = shape_of(a), sb = shape_of(b);
    if (infer__equal(I, sa.d[0], sb.d[0], "the batch dims of bmm") < 0)
        return infer__fail(I, "the batch dims differ: %s @ %s",
                           infer__shape_text(I, 0, &sa, 0), infer__shape_text(I, 1, &sb, 0));
    if (infer__contract(I, sa.d[2], sb.d[1], &sa, &sb) < 0)
        return -1;
    Shape s = {3, {sa.d[0], sa.d[1], sb.d[2]}};
    return infer__out(I, a->dtype, &s);
}

/* a @ b, torch.matmul(a, b): a 1-d a is a row [1,k] and a 1-d b a column
 * [k,1] (that dim is then dropped); batch dims broadcast:
 * [..., m, k] @ [..., k, n] -> [broadcast(...), m, n] */
static int infer_matmul(Infer *I)
{
    const Val *a = infer__in(I, 0), *b = infer__in(I, 1);
    if (a->ndim == 0 || b->ndim == 0)
        return infer__fail(I, "both arguments to matmul need to be at least 1-d");
    if (infer__same_dtype(I, a, b) < 0)
        return -1;
    Shape sa = shape_of(a), sb = shape_of(b);
    DimId one = graph_dim_const(I->g, 1);
    Shape ma = sa, mb = sb;   /* as matrices */
    if (a->ndim == 1)
        ma = (Shape){2, {one, sa.d[0]}};
    if (b->ndim == 1)
        mb = (Shape){2, {sb.d[0], one}};
    if (infer__contract(I, ma.d[ma.n - 1], mb.d[mb.n - 2], &sa, &sb) < 0)
        return -1;
    Shape ba = {ma.n - 2, {0}}, bb = {mb.n - 2, {0}}, s;
    memcpy(ba.d, ma.d, (size_t)ba.n * sizeof ba.d[0]);
    memcpy(bb.d, mb.d, (size_t)bb.n * sizeof bb.d[0]);
    if (infer__broadcast(I, &ba, &bb, &s) < 0)
        return -1;
    if (a->ndim > 1)
        s.d[s.n++] = ma.d[ma.n - 2];
    if (b->ndim > 1)
        s.d[s.n++] = mb.d[mb.n - 1];
    return infer__out(I, a->dtype, &s);
}

/* torch.addmm(bias, a[m,k], b[k,n]) -> [m,n]; bias broadcasts to [m,n] */
static int infer_addmm(Infer *I)
{
    const Val *bias = infer__in(I, 0), *a = infer__in(I, 1), *b = infer__in(I, 2);
    if (infer__rank(I, a, 2, 2, "first matrix") < 0 ||
        infer__rank(I, b, 2, 2, "second matrix") < 0 ||
        infer__same_dtype(I, a, b) < 0 || infer__same_dtype(I, bias, a) < 0)
        return -1;
    Shape sa = shape_of(a), sb = shape_of(b), sbias = shape_of(bias);
    if (infer__contract(I, sa.d[1], sb.d[0], &sa, &sb) < 0)
        return -1;
    Shape s = {2, {sa.d[0], sb.d[1]}};
    if (infer__expand(I, &sbias, &s) < 0)
        return -1;
    return infer__out(I, a->dtype, &s);
}

/* F.linear(x[..., k], w[n, k], bias[n]) -> [..., n] */
static int infer_linear(Infer *I)
{
    const Val *x = infer__in(I, 0), *w = infer__in(I, 1), *bias = infer__in(I, 2);
    if (infer__rank(I, x, 1, GRAPH_MAX_DIMS, "input") < 0 ||
        infer__rank(I, w, 2, 2, "weight") < 0 || infer__same_dtype(I, x, w) < 0 ||
        (bias && infer__same_dtype(I, bias, x) < 0))
        return -1;
    Shape sx = shape_of(x), sw = shape_of(w);
    if (infer__contract(I, sx.d[sx.n - 1], sw.d[1], &sx, &sw) < 0)
        return -1;
    Shape s = sx;
    s.d[s.n - 1] = sw.d[0];
    if (bias) {
        Shape sbias = shape_of(bias);
        if (infer__expand(I, &sbias, &s) < 0)
            return -1;
    }
    return infer__out(I, x->dtype, &s);
}

/* The target shape of a reshape as written, with -1 where it is inferred. */
static const char *infer__target_text(Infer *I, int slot)
{
    StrBuf *t = &I->text[slot];
    t->len = 0;
    sb_putc(t, '[');
    for (uint32_t i = 0; i < I->d->nattr; i++) {
        if (i)
            sb_puts(t, ", ");
        if (I->d->attr[i] == GRAPH_INFER)
            sb_puts(t, "-1");
        else
            graph_dim_str(I->g, (DimId)I->d->attr[i], t);
    }
    sb_putc(t, ']');
    return t->s;
}

/* x.view(a, -1, b), x.reshape(...), flatten, squeeze, unsqueeze: the -1 is
 * numel // (product of the others); element counts must agree */
static int infer_reshape(Infer *I)
{
    const Val *x = infer__in(I, 0);
    Shape sx = shape_of(x), s = {0};
    int inferred = -1;
    DimId known = graph_dim_const(I->g, 1);
    s.n = (int)I->d->nattr;
    for (uint32_t i = 0; i < I->d->nattr; i++) {
        if (I->attr[i] == GRAPH_INFER) {
            if (inferred >= 0)
                return infer__fail(I, "only one dimension can be inferred");
            inferred = (int)i;
            continue;
        }
        if (infer__dim_attr(I, i) < 0)
            return -1;
        s.d[i] = (DimId)I->attr[i];
        known = graph_dim_mul(I->g, known, s.d[i]);
    }
    DimId numel = infer__numel(I, &sx), total = known;
    if (inferred >= 0) {
        if (dim__is(I->g, known, 0))
            return infer__fail(I, "shape %s is invalid for input of size %s",
                               infer__target_text(I, 0), infer__dim_text(I, 1, numel));
        s.d[inferred] = graph_dim_div(I->g, numel, known);
        I->attr[inferred] = s.d[inferred];
        total = graph_dim_mul(I->g, s.d[inferred], known);
    }
    if (infer__equal(I, numel, total, "the element count of reshape") < 0)
        return infer__fail(I, "shape %s is invalid for input of size %s",
                           infer__target_text(I, 0), infer__dim_text(I, 1, numel));
    return infer__out(I, x->dtype, &s);
}

/* x.permute(2, 0, 1), x.transpose(0, 1), x.t(): attr = the permutation */
static int infer_permute(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (I->d->nattr != x->ndim)
        return infer__fail(I, "the permutation has %u dims, the tensor %d", I->d->nattr, x->ndim);
    Shape s = {x->ndim, {0}};
    uint8_t seen[GRAPH_MAX_DIMS] = {0};
    for (int i = 0; i < x->ndim; i++) {
        int64_t p = I->attr[i];
        if (p < 0 || p >= x->ndim || seen[p])
            return infer__fail(I, "the dims are not a permutation of 0..%d", x->ndim - 1);
        seen[p] = 1;
        s.d[i] = x->dims[p];
    }
    return infer__out(I, x->dtype, &s);
}

/* x.contiguous(), and FORMAT_CAST's npu_format_cast(x, fmt): same type */
static int infer_identity(Infer *I)
{
    const Val *x = infer__in(I, 0);
    Shape s = shape_of(x);
    if (I->d->kind == OP_FORMAT_CAST && (I->attr[0] < 0 || I->attr[0] > 255))
        return infer__fail(I, "invalid format %lld", (long long)I->attr[0]);
    return infer__out(I, x->dtype, &s);
}

/* One end of a slice on a dim of size n: a negative index counts from the
 * end, and both are clamped to [0, n]. */
static DimId slice__bound(Graph *g, DimId n, int64_t i)
{
    const int64_t big = (int64_t)1 << 62;
    if (i == GRAPH_END || i >= big)
        return n;
    if (i < 0)
        return graph_dim_max(g, graph_dim_add(g, n, graph_dim_const(g, MAX(i, -big))),
                             graph_dim_const(g, 0));
    return graph_dim_min(g, graph_dim_const(g, i), n);
}

/* len(range(n)[start:end:step]) */
static DimId slice__len(Graph *g, DimId n, int64_t start, int64_t end, int64_t step)
{
    DimId s = slice__bound(g, n, start), e = slice__bound(g, n, end);
    DimId len = graph_dim_max(g, graph_dim_sub(g, e, s), graph_dim_const(g, 0));
    if (step == 1)
        return len;
    step = MIN(step, (int64_t)1 << 62);   /* as good as infinite, and no overflow */
    return graph_dim_div(g, graph_dim_add(g, len, graph_dim_const(g, step - 1)),
                         graph_dim_const(g, step));
}

/* The shape of x[..., start:end:step, ...] (attr[0..3]) into *s. */
static int infer__slice_shape(Infer *I, const Val *x, Shape *s)
{
    if (infer__dim(I, I->attr[0], x->ndim) < 0)
        return -1;
    if (I->attr[3] <= 0)
        return infer__fail(I, "slice step must be positive, got %lld", (long long)I->attr[3]);
    *s = shape_of(x);
    int dim = (int)I->attr[0];
    s->d[dim] = slice__len(I->g, s->d[dim], I->attr[1], I->attr[2], I->attr[3]);
    return 0;
}

/* x[:, start:end:step] */
static int infer_slice(Infer *I)
{
    const Val *x = infer__in(I, 0);
    Shape s;
    if (infer__slice_shape(I, x, &s) < 0)
        return -1;
    return infer__out(I, x->dtype, &s);
}

/* x[:, i]: the dim goes away */
static int infer_select(Infer *I)
{
    const Val *x = infer__in(I, 0);
    int64_t dim = I->attr[0], index = I->attr[1], n;
    if (infer__dim(I, dim, x->ndim) < 0)
        return -1;
    if (graph_dim_const_value(I->g, x->dims[dim], &n) &&
        (index >= n || (index < 0 && index < -n)))
        return infer__fail(I, "index %lld is out of bounds for dim %lld with size %lld",
                           (long long)index, (long long)dim, (long long)n);
    Shape s = shape_of(x);
    memmove(&s.d[dim], &s.d[dim + 1], (size_t)(s.n - dim - 1) * sizeof s.d[0]);
    s.n--;
    return infer__out(I, x->dtype, &s);
}

/* The dtype all of an op's inputs promote to. */
static DType infer__promote_all(const Infer *I)
{
    DType dt = infer__in(I, 0)->dtype;
    for (uint32_t i = 1; i < I->d->nin; i++)
        dt = dtype__promote(dt, infer__in(I, i)->dtype);
    return dt;
}

/* torch.cat([x0, x1, ...], dim): same rank, equal sizes but along dim */
static int infer_cat(Infer *I)
{
    const Val *x0 = infer__in(I, 0);
    int64_t dim = I->attr[0];
    if (x0->ndim == 0)
        return infer__fail(I, "zero-dimensional tensors cannot be concatenated");
    if (infer__dim(I, dim, x0->ndim) < 0)
        return -1;
    Shape s = shape_of(x0);
    for (uint32_t k = 1; k < I->d->nin; k++) {
        const Val *x = infer__in(I, k);
        if (x->ndim != x0->ndim)
            return infer__fail(I, "tensors must have the same number of dims: got %d and %d",
                               x0->ndim, x->ndim);
        for (int i = 0; i < s.n; i++) {
            if (i == dim) {
                s.d[i] = graph_dim_add(I->g, s.d[i], x->dims[i]);
                continue;
            }
            char what[96];
            snprintf(what, sizeof what, "dim %d of the inputs of cat", i);
            if (infer__equal(I, x0->dims[i], x->dims[i], what) < 0)
                return infer__fail(I, "sizes of tensors must match except in dim %lld "
                                   "(got %s and %s in dim %d)", (long long)dim,
                                   infer__dim_text(I, 0, x0->dims[i]),
                                   infer__dim_text(I, 1, x->dims[i]), i);
        }
    }
    return infer__out(I, infer__promote_all(I), &s);
}

/* torch.stack([x0, x1, ...], dim): equal shapes, a new dim of size n */
static int infer_stack(Infer *I)
{
    const Val *x0 = infer__in(I, 0);
    int64_t dim = I->attr[0];
    if (dim < 0 || dim > x0->ndim)
        return infer__fail(I, "dim %lld is out of range for stacking %d-d tensors",
                           (long long)dim, x0->ndim);
    Shape s0 = shape_of(x0);
    for (uint32_t k = 1; k < I->d->nin; k++) {
        const Val *x = infer__in(I, k);
        Shape sx = shape_of(x);
        int ok = x->ndim == x0->ndim;
        for (int i = 0; ok && i < s0.n; i++) {
            char what[96];
            snprintf(what, sizeof what, "dim %d of the inputs of stack", i);
            ok = infer__equal(I, s0.d[i], sx.d[i], what) == 0;
        }
        if (!ok)
            return infer__fail(I, "expects each tensor to be equal size, but got %s at entry 0 "
                               "and %s at entry %u", infer__shape_text(I, 0, &s0, 0),
                               infer__shape_text(I, 1, &sx, 0), k);
    }
    Shape s = s0;
    memmove(&s.d[dim + 1], &s.d[dim], (size_t)(s.n - dim) * sizeof s.d[0]);
    s.d[dim] = graph_dim_const(I->g, (int64_t)I->d->nin);
    s.n++;
    return infer__out(I, infer__promote_all(I), &s);
}

/* How a reduction's output dtype follows from x's and the op's dtype
 * (its shape rule in ops.def names it: infer_reduce_sum, _mean, _minmax). */
typedef enum ReduceDtype {
    REDUCE_DT_ACCUM,    /* sum, prod: dtype=, else x's when float, else int64 */
    REDUCE_DT_FLOAT,    /* mean: dtype=, else x's; floating point */
    REDUCE_DT_SAME,     /* amax, amin: x's */
} ReduceDtype;

/* The dtype of a reduction of x. */
static int infer__reduce_dtype(Infer *I, ReduceDtype rule, const Val *x, DType *dt)
{
    DType want = I->d->dtype;
    switch (rule) {
    case REDUCE_DT_ACCUM:
        *dt = want ? want : dtype_is_float(x->dtype) ? x->dtype : DT_I64;
        return 0;
    case REDUCE_DT_FLOAT:
        *dt = want ? want : x->dtype;
        if (!dtype_is_float(*dt))
            return infer__fail(I, "could not infer the output dtype: the input dtype must be "
                               "floating point, got %s", dtype_name(*dt));
        return 0;
    case REDUCE_DT_SAME:
        *dt = x->dtype;
        return 0;
    }
    TNGC_BUG("infer_reduce: dtype rule %d", (int)rule);
}

/* x.sum(dim=(0, 2), keepdim=True), x.mean(-1), x.amax(): no dims = all */
static int infer__reduce(Infer *I, ReduceDtype rule)
{
    const Val *x = infer__in(I, 0);
    int keepdim = I->d->nattr > 0 && I->attr[0];
    uint8_t reduced[GRAPH_MAX_DIMS] = {0};
    for (uint32_t i = 1; i < I->d->nattr; i++) {
        int64_t dim = I->attr[i];
        if (x->ndim == 0 && dim == 0)
            continue;      /* torch accepts dim 0 (and -1) on a 0-d tensor */
        if (infer__dim(I, dim, x->ndim) < 0)
            return -1;
        if (reduced[dim])
            return infer__fail(I, "dim %lld appears multiple times in the list of dims",
                               (long long)dim);
        reduced[dim] = 1;
    }
    if (I->d->nattr <= 1)
        memset(reduced, 1, sizeof reduced);
    Shape s = {0};
    DimId one = graph_dim_const(I->g, 1);
    for (int i = 0; i < x->ndim; i++)
        if (!reduced[i] || keepdim)
            s.d[s.n++] = reduced[i] ? one : x->dims[i];
    DType dt;
    if (infer__reduce_dtype(I, rule, x, &dt) < 0)
        return -1;
    return infer__out(I, dt, &s);
}

static int infer_reduce_sum(Infer *I)
{
    return infer__reduce(I, REDUCE_DT_ACCUM);
}

static int infer_reduce_mean(Infer *I)
{
    return infer__reduce(I, REDUCE_DT_FLOAT);
}

static int infer_reduce_minmax(Infer *I)
{
    return infer__reduce(I, REDUCE_DT_SAME);
}

/* F.softmax(x, dim, dtype=None), F.log_softmax(...) */
static int infer_softmax(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (!(x->ndim == 0 && I->attr[0] == 0) && infer__dim(I, I->attr[0], x->ndim) < 0)
        return -1;
    DType dt = I->d->dtype ? I->d->dtype : x->dtype;
    if (!dtype_is_float(dt))
        return infer__fail(I, "expected a floating point result dtype, got %s", dtype_name(dt));
    Shape s = shape_of(x);
    return infer__out(I, dt, &s);
}

/* param (a norm's weight, bias or gamma) must have the k trailing dims of x. */
static int infer__norm_param(Infer *I, const Val *param, const Shape *sx, int k, const char *name)
{
    Shape sp = shape_of(param), trail = {k, {0}};
    memcpy(trail.d, &sx->d[sx->n - k], (size_t)k * sizeof trail.d[0]);
    int ok = sp.n == k;
    for (int i = 0; ok && i < k; i++) {
        char what[96];
        snprintf(what, sizeof what, "dim %d of the %s of %s", i, name, I->op);
        ok = infer__equal(I, sp.d[i], trail.d[i], what) == 0;
    }
    if (!ok)
        return infer__fail(I, "%s of shape %s does not match the normalised shape %s", name,
                           infer__shape_text(I, 0, &sp, 0), infer__shape_text(I, 1, &trail, 0));
    return 0;
}

/* F.layer_norm(x, x.shape[-k:], w, b, eps) */
static int infer_layer_norm(Infer *I)
{
    const Val *x = infer__in(I, 0), *w = infer__in(I, 1), *b = infer__in(I, 2);
    int64_t k = I->attr[0];
    if (infer__float_input(I, x) < 0)
        return -1;
    if (k < 1 || k > x->ndim)
        return infer__fail(I, "cannot normalise %lld trailing dims of a %d-d tensor",
                           (long long)k, x->ndim);
    Shape s = shape_of(x);
    if ((w && infer__norm_param(I, w, &s, (int)k, "weight") < 0) ||
        (b && infer__norm_param(I, b, &s, (int)k, "bias") < 0))
        return -1;
    return infer__out(I, x->dtype, &s);
}

/* y, rstd = torch_npu.npu_rms_norm(x, gamma, eps):
 * rstd is float32 of shape x.shape[:-gamma.ndim] + [1] * gamma.ndim */
static int infer_rms_norm(Infer *I)
{
    const Val *x = infer__in(I, 0), *gamma = infer__in(I, 1);
    if (infer__float_input(I, x) < 0)
        return -1;
    if (gamma->ndim < 1 || gamma->ndim > x->ndim)
        return infer__fail(I, "a %d-d gamma cannot normalise a %d-d tensor", gamma->ndim, x->ndim);
    Shape s = shape_of(x);
    if (infer__norm_param(I, gamma, &s, gamma->ndim, "gamma") < 0 ||
        infer__out(I, x->dtype, &s) < 0)
        return -1;
    for (int i = s.n - gamma->ndim; i < s.n; i++)
        s.d[i] = graph_dim_const(I->g, 1);
    return infer__out(I, DT_F32, &s);
}

/* nn.Embedding: weight[v, h][ids] -> ids.shape + [h] */
static int infer_embedding(Infer *I)
{
    const Val *w = infer__in(I, 0), *ids = infer__in(I, 1);
    if (infer__rank(I, w, 2, 2, "weight") < 0)
        return -1;
    if (!dtype__is_int(ids->dtype))
        return infer__fail(I, "expected indices of an integer dtype, got %s",
                           dtype_name(ids->dtype));
    Shape s = shape_of(ids);
    s.d[s.n++] = w->dims[1];
    return infer__out(I, w->dtype, &s);
}

/* An optional 1-d parameter (scale, offset) of size 1 or n. */
static int infer__vector_param(Infer *I, const Val *p, DimId n, const char *name)
{
    if (!p)
        return 0;
    if (p->ndim != 1)
        return infer__fail(I, "%s must be 1-d, got %d-d", name, p->ndim);
    if (dim__is(I->g, p->dims[0], 1) || dim__same(I->g, p->dims[0], n) >= 0)
        return 0;
    return infer__fail(I, "%s has size %s, expected 1 or %s", name,
                       infer__dim_text(I, 0, p->dims[0]), infer__dim_text(I, 1, n));
}

/* torch_npu.npu_quant_matmul(x1[..., m, k], x2[..., k, n], scale, offset=,
 * bias=, pertoken_scale=, output_dtype=) -> [broadcast(...), m, n].
 * int32 operands hold 8 int4 values in their last dim: x1 [m, k//8],
 * x2 [k, n//8]. */
static int infer_quant_matmul(Infer *I)
{
    const Val *x1 = infer__in(I, 0), *x2 = infer__in(I, 1);
    if (infer__rank(I, x1, 2, 6, "x1") < 0 || infer__rank(I, x2, 2, 6, "x2") < 0)
        return -1;
    int int8_or_32 = (x1->dtype == DT_I8 || x1->dtype == DT_I32) &&
                     (x2->dtype == DT_I8 || x2->dtype == DT_I32);
    if (!int8_or_32 || (x1->dtype == DT_I32 && x2->dtype != DT_I32))
        return infer__fail(I, "expected int8 operands (or int32 holding int4), got dtypes %s and %s",
                           dtype_name(x1->dtype), dtype_name(x2->dtype));
    Shape s1 = shape_of(x1), s2 = shape_of(x2);
    DimId eight = graph_dim_const(I->g, 8);
    DimId k1 = s1.d[s1.n - 1], n = s2.d[s2.n - 1];
    if (x1->dtype == DT_I32)
        k1 = graph_dim_mul(I->g, k1, eight);
    if (x2->dtype == DT_I32)
        n = graph_dim_mul(I->g, n, eight);
    if (infer__contract(I, k1, s2.d[s2.n - 2], &s1, &s2) < 0)
        return -1;
    Shape b1 = {s1.n - 2, {0}}, b2 = {s2.n - 2, {0}}, s;
    memcpy(b1.d, s1.d, (size_t)b1.n * sizeof b1.d[0]);
    memcpy(b2.d, s2.d, (size_t)b2.n * sizeof b2.d[0]);
    if (infer__broadcast(I, &b1, &b2, &s) < 0 ||
        infer__vector_param(I, infer__in(I, 2), n, "scale") < 0 ||
        infer__vector_param(I, infer__in(I, 3), n, "offset") < 0)
        return -1;
    s.d[s.n++] = s1.d[s1.n - 2];
    s.d[s.n++] = n;
    return infer__out(I, I->d->dtype ? I->d->dtype : DT_I8, &s);
}

/* y, scale = torch_npu.npu_dequant_swiglu_quant(x[..., 2h], ...):
 * y int8 [..., h], scale float32 [...] */
static int infer_dequant_swiglu_quant(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (infer__rank(I, x, 1, GRAPH_MAX_DIMS, "input") < 0)
        return -1;
    for (uint32_t i = 0; i < I->d->nattr; i++)
        if (I->attr[i] != 0 && I->attr[i] != 1)
            return infer__fail(I, "%s must be 0 or 1, got %lld",
                               i ? "quant_mode" : "activate_left", (long long)I->attr[i]);
    Shape s = shape_of(x);
    DimId half;
    if (infer__half(I, s.d[s.n - 1], s.n - 1, &half) < 0)
        return -1;
    s.d[s.n - 1] = half;
    if (infer__out(I, DT_I8, &s) < 0)
        return -1;
    s.n--;
    return infer__out(I, DT_F32, &s);
}

/* torch_npu.npu_swiglu(x, dim): that dim halved */
static int infer_swiglu(Infer *I)
{
    const Val *x = infer__in(I, 0);
    int64_t dim = I->attr[0];
    if (infer__dim(I, dim, x->ndim) < 0 || infer__float_input(I, x) < 0)
        return -1;
    Shape s = shape_of(x);
    if (infer__half(I, s.d[dim], (int)dim, &s.d[dim]) < 0)
        return -1;
    return infer__out(I, x->dtype, &s);
}

/* dst.copy_(src): src broadcasts to dst; the result is dst's new version */
static int infer_copy(Infer *I)
{
    const Val *dst = infer__in(I, 0), *src = infer__in(I, 1);
    Shape sd = shape_of(dst), ss = shape_of(src);
    if (infer__expand(I, &ss, &sd) < 0)
        return -1;
    return infer__out(I, dst->dtype, &sd);
}

/* dst[:, start:end] = src: src broadcasts to the slice */
static int infer_slice_store(Infer *I)
{
    const Val *dst = infer__in(I, 0), *src = infer__in(I, 1);
    Shape slice, ss = shape_of(src), sd = shape_of(dst);
    if (infer__slice_shape(I, dst, &slice) < 0 || infer__expand(I, &ss, &slice) < 0)
        return -1;
    return infer__out(I, dst->dtype, &sd);
}

/* ===================================================================== */
/* graph_add_op                                                          */
/* ===================================================================== */

/* ---- shape rules: creation and constants ---- */

/* torch.arange(start, end, step): attr[0] the length (a DimId, symbolic
 * when end is a geared dim), attr[1] a symbolic part of start; the dtype
 * the lowering chose */
static int infer_arange(Infer *I)
{
    if (infer__dim_attr(I, 0) < 0 || infer__dim_attr(I, 1) < 0)
        return -1;
    Shape s = {1, {(DimId)I->attr[0]}};
    double a = I->d->fattr[0], b = I->d->fattr[1];
    if (a - a != 0 || b - b != 0)   /* inf or NaN */
        return infer__fail(I, "start and step must be finite");
    return infer__out(I, I->d->dtype ? I->d->dtype : DT_I64, &s);
}

/* ---- shape rules: shape ---- */

/* x.triu(k), x.tril(k): at least 2-d; same type */
static int infer_tri(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (x->ndim < 2)
        return infer__fail(I, "expected a tensor of at least 2 dims, got %d", x->ndim);
    Shape s = shape_of(x);
    return infer__out(I, x->dtype, &s);
}

/* x.expand(*sizes): attr = the target dims; x broadcasts to them */
static int infer_expand(Infer *I)
{
    const Val *x = infer__in(I, 0);
    Shape sx = shape_of(x), s = {0};
    s.n = (int)I->d->nattr;
    for (uint32_t i = 0; i < I->d->nattr; i++) {
        if (infer__dim_attr(I, i) < 0)
            return -1;
        s.d[i] = (DimId)I->attr[i];
    }
    if (infer__expand(I, &sx, &s) < 0)
        return -1;
    return infer__out(I, x->dtype, &s);
}

/* x.flip(dims): attr = distinct dims of x */
static int infer_flip(Infer *I)
{
    const Val *x = infer__in(I, 0);
    uint8_t seen[GRAPH_MAX_DIMS] = {0};
    for (uint32_t i = 0; i < I->d->nattr; i++) {
        if (infer__dim(I, I->attr[i], x->ndim) < 0)
            return -1;
        if (seen[I->attr[i]]++)
            return infer__fail(I, "dim %lld appears more than once", (long long)I->attr[i]);
    }
    Shape s = shape_of(x);
    return infer__out(I, x->dtype, &s);
}

/* x[:, start:end:step] with start and end DimIds (>= 0), clamped to the
 * dim's size n: len = ceil(max(min(end, n) - min(start, n), 0) / step) */
static int infer_slice_dyn(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (infer__dim(I, I->attr[0], x->ndim) < 0 || infer__dim_attr(I, 1) < 0 || infer__dim_attr(I, 2) < 0)
        return -1;
    if (I->attr[3] <= 0)
        return infer__fail(I, "slice step must be positive, got %lld", (long long)I->attr[3]);
    Graph *g = I->g;
    Shape s = shape_of(x);
    int dim = (int)I->attr[0];
    DimId n = s.d[dim], st = graph_dim_min(g, (DimId)I->attr[1], n), en = graph_dim_min(g, (DimId)I->attr[2], n);
    DimId len = graph_dim_max(g, graph_dim_sub(g, en, st), graph_dim_const(g, 0));
    int64_t step = MIN(I->attr[3], (int64_t)1 << 62);
    if (step > 1)
        len = graph_dim_div(g, graph_dim_add(g, len, graph_dim_const(g, step - 1)), graph_dim_const(g, step));
    s.d[dim] = len;
    return infer__out(I, x->dtype, &s);
}

/* x.roll(shifts, dims): attr = (shift, dim) pairs */
static int infer_roll(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (I->d->nattr % 2)
        return infer__fail(I, "expected (shift, dim) pairs");
    for (uint32_t i = 1; i < I->d->nattr; i += 2)
        if (infer__dim(I, I->attr[i], x->ndim) < 0)
            return -1;
    Shape s = shape_of(x);
    return infer__out(I, x->dtype, &s);
}

/* ---- shape rules: comparison, selection, bool ---- */

/* Broadcasts the shapes of inputs 0..n-1 (absent ones skipped) into *s. */
static int infer__bcast_all(Infer *I, uint32_t n, Shape *s)
{
    int first = 1;
    for (uint32_t i = 0; i < n; i++) {
        const Val *v = infer__in(I, i);
        if (!v)
            continue;
        Shape sv = shape_of(v), t;
        if (first) {
            *s = sv;
            first = 0;
            continue;
        }
        if (infer__broadcast(I, s, &sv, &t) < 0)
            return -1;
        *s = t;
    }
    return 0;
}

/* eq ne lt le gt ge: a tensor with a tensor (broadcast) or a Python scalar;
 * bool out */
static int infer_compare(Infer *I)
{
    Shape s;
    if (infer__bcast_all(I, 2, &s) < 0)
        return -1;
    return infer__out(I, DT_BOOL, &s);
}

/* logical_and/or/xor/not: any dtypes, bool out */
static int infer_logical(Infer *I)
{
    Shape s;
    if (infer__bcast_all(I, I->d->nin, &s) < 0)
        return -1;
    return infer__out(I, DT_BOOL, &s);
}

/* & | ^ ~ on bool or integer tensors, promoted as add */
static int infer_bitwise(Infer *I)
{
    Shape s;
    DType dt = DT_UNKNOWN;
    for (uint32_t i = 0; i < I->d->nin; i++) {
        const Val *v = infer__in(I, i);
        if (dtype_is_float(v->dtype))
            return infer__fail(I, "dtype %s is not supported (torch's bitwise ops take bool and "
                               "integer tensors)", dtype_name(v->dtype));
    }
    if (I->d->nin == 2)
        dt = dtype__result(infer__in(I, 0), infer__in(I, 1));
    else
        dt = infer__in(I, 0)->dtype;
    if (infer__bcast_all(I, I->d->nin, &s) < 0)
        return -1;
    return infer__out(I, dt, &s);
}

/* isnan isinf isfinite: bool of x's shape */
static int infer_fpclass(Infer *I)
{
    Shape s = shape_of(infer__in(I, 0));
    return infer__out(I, DT_BOOL, &s);
}

/* where(cond, a, b): cond bool; the three broadcast together */
static int infer_where(Infer *I)
{
    const Val *c = infer__in(I, 0);
    if (c->dtype != DT_BOOL)
        return infer__fail(I, "expected the condition to be a bool tensor, got %s "
                           "(compare it, e.g. cond != 0)", dtype_name(c->dtype));
    Shape s;
    if (infer__bcast_all(I, 3, &s) < 0)
        return -1;
    return infer__out(I, dtype__result(infer__in(I, 1), infer__in(I, 2)), &s);
}

/* dst.masked_fill_(mask, value): mask bool, broadcast to dst */
static int infer_masked_fill(Infer *I)
{
    const Val *dst = infer__in(I, 0), *mask = infer__in(I, 1);
    if (mask->dtype != DT_BOOL)
        return infer__fail(I, "expected a bool mask, got %s", dtype_name(mask->dtype));
    Shape sd = shape_of(dst), sm = shape_of(mask);
    if (infer__expand(I, &sm, &sd) < 0)
        return -1;
    return infer__out(I, dst->dtype, &sd);
}

/* x.any(), x.all(dim, keepdim): as a reduction, bool out */
static int infer_any_all(Infer *I)
{
    const Val *x = infer__in(I, 0);
    int keepdim = I->d->nattr > 0 && I->attr[0];
    uint8_t reduced[GRAPH_MAX_DIMS] = {0};
    for (uint32_t i = 1; i < I->d->nattr; i++) {
        int64_t dim = I->attr[i];
        if (x->ndim == 0 && dim == 0)
            continue;
        if (infer__dim(I, dim, x->ndim) < 0)
            return -1;
        if (reduced[dim])
            return infer__fail(I, "dim %lld appears multiple times in the list of dims", (long long)dim);
        reduced[dim] = 1;
    }
    if (I->d->nattr <= 1)
        memset(reduced, 1, sizeof reduced);
    Shape s = {0};
    DimId one = graph_dim_const(I->g, 1);
    for (int i = 0; i < x->ndim; i++)
        if (!reduced[i] || keepdim)
            s.d[s.n++] = reduced[i] ? one : x->dims[i];
    return infer__out(I, DT_BOOL, &s);
}

/* ---- shape rules: reductions, sorting, contractions ---- */

/* The dim attr[0] of a sort, topk or arg-reduction of x: normalised, and
 * 0 (a line of one element) for a 0-d x. */
static int infer__line_dim(Infer *I, const Val *x)
{
    if (x->ndim == 0 && I->attr[0] == 0)
        return 0;
    return infer__dim(I, I->attr[0], x->ndim);
}

/* torch.topk(x, k, dim, largest, sorted) -> (values, indices) */
static int infer_topk(Infer *I)
{
    const Val *x = infer__in(I, 0);
    int64_t k = I->attr[1];
    if (x->ndim == 0)
        return infer__fail(I, "expected a tensor of at least 1 dim, got a 0-d one");
    if (infer__line_dim(I, x) < 0)
        return -1;
    if (k < 0)
        return infer__fail(I, "k (%lld) must not be negative", (long long)k);
    Shape s = shape_of(x);
    DimId size = s.d[I->attr[0]], kd = graph_dim_const(I->g, k);
    int64_t c;
    if (graph_dim_const_value(I->g, size, &c)) {
        if (k > c)
            return infer__fail(I, "k (%lld) is out of range for dim %lld of size %lld", (long long)k,
                               (long long)I->attr[0], (long long)c);
    } else {
        /* k <= size in every gear: min(size, k) == k */
        char what[96];
        snprintf(what, sizeof what, "k of %s against dim %lld", I->op, (long long)I->attr[0]);
        infer__check(I, DIMCHECK_EQ, graph_dim_min(I->g, size, kd), kd, what);
    }
    s.d[I->attr[0]] = kd;
    if (infer__out(I, x->dtype, &s) < 0)
        return -1;
    return infer__out(I, DT_I64, &s);
}

/* torch.sort(x, dim, descending, stable) -> (values, indices); argsort */
static int infer_sort(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (infer__line_dim(I, x) < 0)
        return -1;
    Shape s = shape_of(x);
    if (I->d->kind == OP_SORT && infer__out(I, x->dtype, &s) < 0)
        return -1;
    return infer__out(I, DT_I64, &s);
}

/* x.max(dim, keepdim) -> (values, indices), x.min(dim); argmax, argmin */
static int infer_arg_reduce(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (infer__line_dim(I, x) < 0)
        return -1;
    Shape s = shape_of(x);
    if (x->ndim > 0) {
        int dim = (int)I->attr[0];
        if (I->attr[1]) {
            s.d[dim] = graph_dim_const(I->g, 1);
        } else {
            memmove(&s.d[dim], &s.d[dim + 1], (size_t)(s.n - dim - 1) * sizeof s.d[0]);
            s.n--;
        }
    }
    if ((I->d->kind == OP_MAX_DIM || I->d->kind == OP_MIN_DIM) && infer__out(I, x->dtype, &s) < 0)
        return -1;
    return infer__out(I, DT_I64, &s);
}

/* torch.cumsum(x, dim, dtype=None) */
static int infer_cumsum(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (infer__line_dim(I, x) < 0)
        return -1;
    DType dt = I->d->dtype ? I->d->dtype : dtype_is_float(x->dtype) ? x->dtype : DT_I64;
    Shape s = shape_of(x);
    return infer__out(I, dt, &s);
}

/* ---- shape rules: indexing and scatter ---- */

/* An index operand: int64, or int32 where int32 is allowed. */
static int infer__index_dtype(Infer *I, const Val *ix, int allow_i32, const char *what)
{
    if (ix->dtype == DT_I64 || (allow_i32 && ix->dtype == DT_I32))
        return 0;
    return infer__fail(I, "expected %s of dtype int64%s, got %s", what, allow_i32 ? " or int32" : "",
                       dtype_name(ix->dtype));
}

/* Two dims that the op needs equal (checked per gear when symbolic). */
static int infer__same_size(Infer *I, DimId a, DimId b, int dim, const char *what)
{
    if (infer__equal(I, a, b, what) < 0)
        return infer__fail(I, "%s: size %s at dim %d, expected %s", what, infer__dim_text(I, 0, a), dim,
                           infer__dim_text(I, 1, b));
    return 0;
}

/* x.index_select(dim, index): dim becomes the index's length */
static int infer_index_select(Infer *I)
{
    const Val *x = infer__in(I, 0), *ix = infer__in(I, 1);
    int64_t dim = I->attr[0];
    if (infer__rank(I, x, 1, GRAPH_MAX_DIMS, "input") < 0 || infer__dim(I, dim, x->ndim) < 0 ||
        infer__rank(I, ix, 0, 1, "index") < 0 || infer__index_dtype(I, ix, 1, "an index") < 0)
        return -1;
    Shape s = shape_of(x);
    s.d[dim] = ix->ndim ? ix->dims[0] : graph_dim_const(I->g, 1);
    return infer__out(I, x->dtype, &s);
}

/* x.gather(dim, index): index's shape, x's dtype */
static int infer_gather(Infer *I)
{
    const Val *x = infer__in(I, 0), *ix = infer__in(I, 1);
    int64_t dim = I->attr[0];
    if (infer__rank(I, x, 1, GRAPH_MAX_DIMS, "input") < 0 || infer__dim(I, dim, x->ndim) < 0 ||
        infer__index_dtype(I, ix, 0, "an index") < 0)
        return -1;
    if (ix->ndim != x->ndim)
        return infer__fail(I, "index has %d dims, expected %d (the input's)", ix->ndim, x->ndim);
    Shape s = shape_of(ix);
    return infer__out(I, x->dtype, &s);
}

/* The broadcast shape of inputs from..nin-1 (indices, int64) into *b. */
static int infer__index_shape(Infer *I, uint32_t from, Shape *b)
{
    b->n = 0;
    for (uint32_t k = from; k < I->d->nin; k++) {
        const Val *ix = infer__in(I, k);
        if (!ix)
            return infer__fail(I, "index %u is absent", k - from);
        if (infer__index_dtype(I, ix, 0, "tensors used as indices") < 0)
            return -1;
        Shape si = shape_of(ix), t;
        if (infer__broadcast(I, b, &si, &t) < 0)
            return -1;
        *b = t;
    }
    return 0;
}

/* x of rank n indexed on k dims from d by indices of broadcast shape b:
 * x.shape[:d] + b + x.shape[d+k:] into *s. */
static int infer__indexed(Infer *I, const Val *x, int64_t d, int k, const Shape *b, Shape *s)
{
    if (d < 0 || k < 1 || d + k > x->ndim)
        return infer__fail(I, "%d indices from dim %lld do not fit a %d-d tensor", k, (long long)d, x->ndim);
    if (x->ndim - k + b->n > GRAPH_MAX_DIMS)
        return infer__fail(I, "the result would have %d dims (at most %d)", x->ndim - k + b->n,
                           GRAPH_MAX_DIMS);
    s->n = 0;
    for (int i = 0; i < d; i++)
        s->d[s->n++] = x->dims[i];
    for (int i = 0; i < b->n; i++)
        s->d[s->n++] = b->d[i];
    for (int i = (int)d + k; i < x->ndim; i++)
        s->d[s->n++] = x->dims[i];
    return 0;
}

/* x[..., i0, .., ik-1, ...]: advanced indexing of consecutive dims */
static int infer_index(Infer *I)
{
    const Val *x = infer__in(I, 0);
    Shape b, s;
    if (infer__index_shape(I, 1, &b) < 0 ||
        infer__indexed(I, x, I->attr[0], (int)I->d->nin - 1, &b, &s) < 0)
        return -1;
    return infer__out(I, x->dtype, &s);
}

/* dst[..., i0, .., ik-1, ...] = values: values broadcast to the indexed shape */
static int infer_index_put(Infer *I)
{
    const Val *dst = infer__in(I, 0), *v = infer__in(I, 1);
    Shape b, s, sv = shape_of(v), sd = shape_of(dst);
    if (infer__index_shape(I, 2, &b) < 0 ||
        infer__indexed(I, dst, I->attr[0], (int)I->d->nin - 2, &b, &s) < 0 ||
        infer__expand(I, &sv, &s) < 0)
        return -1;
    return infer__out(I, dst->dtype, &sd);
}

/* self.scatter(dim, index, src or value), scatter_add: self's shape */
static int infer_scatter(Infer *I)
{
    const Val *x = infer__in(I, 0), *ix = infer__in(I, 1), *src = infer__in(I, 2);
    int64_t dim = I->attr[0];
    if (infer__rank(I, x, 1, GRAPH_MAX_DIMS, "input") < 0 || infer__dim(I, dim, x->ndim) < 0 ||
        infer__index_dtype(I, ix, 0, "an index") < 0)
        return -1;
    if (ix->ndim != x->ndim)
        return infer__fail(I, "index has %d dims, expected %d (the input's)", ix->ndim, x->ndim);
    if (src && src->ndim != x->ndim)
        return infer__fail(I, "src has %d dims, expected %d (the input's)", src->ndim, x->ndim);
    if (src && src->dtype != x->dtype)
        return infer__fail(I, "expected src of the input's dtype %s, got %s", dtype_name(x->dtype),
                           dtype_name(src->dtype));
    if (I->d->kind == OP_SCATTER && (I->attr[1] < 0 || I->attr[1] > 2))
        return infer__fail(I, "invalid reduce %lld", (long long)I->attr[1]);
    Shape s = shape_of(x);
    return infer__out(I, x->dtype, &s);
}

/* self.index_add(dim, index, source, alpha), index_copy: self's shape */
static int infer_index_update(Infer *I)
{
    const Val *x = infer__in(I, 0), *ix = infer__in(I, 1), *src = infer__in(I, 2);
    int64_t dim = I->attr[0];
    if (infer__rank(I, x, 1, GRAPH_MAX_DIMS, "input") < 0 || infer__dim(I, dim, x->ndim) < 0 ||
        infer__rank(I, ix, 0, 1, "index") < 0 ||
        infer__index_dtype(I, ix, I->d->kind == OP_INDEX_ADD, "an index") < 0)
        return -1;
    if (src->ndim != x->ndim)
        return infer__fail(I, "source has %d dims, expected %d (the input's)", src->ndim, x->ndim);
    if (src->dtype != x->dtype)
        return infer__fail(I, "expected source of the input's dtype %s, got %s", dtype_name(x->dtype),
                           dtype_name(src->dtype));
    for (int d = 0; d < x->ndim; d++) {
        DimId want = d == dim ? (ix->ndim ? ix->dims[0] : graph_dim_const(I->g, 1)) : x->dims[d];
        if (infer__same_size(I, src->dims[d], want, d, "source") < 0)
            return -1;
    }
    Shape s = shape_of(x);
    return infer__out(I, x->dtype, &s);
}


/* ---- shape rules: neural net ---- */

/* q, k and v of scaled dot product attention must agree: k's and v's
 * leading dims broadcast to q's, the feature dims match. */
static int infer__sdpa_operands(Infer *I, const Val *q, const Val *k, const Val *v)
{
    if (infer__rank(I, q, 2, GRAPH_MAX_DIMS, "query") < 0 || infer__rank(I, k, 2, GRAPH_MAX_DIMS, "key") < 0 ||
        infer__rank(I, v, 2, GRAPH_MAX_DIMS, "value") < 0 || infer__float_input(I, q) < 0)
        return -1;
    if (k->dtype != q->dtype || v->dtype != q->dtype)
        return infer__fail(I, "expected query, key and value of one dtype, got %s, %s and %s",
                           dtype_name(q->dtype), dtype_name(k->dtype), dtype_name(v->dtype));
    Shape sq = shape_of(q), sk = shape_of(k), sv = shape_of(v);
    if (infer__equal(I, sq.d[sq.n - 1], sk.d[sk.n - 1], "the feature dims of query and key") < 0)
        return infer__fail(I, "query %s and key %s have different feature dims",
                           infer__shape_text(I, 0, &sq, 1), infer__shape_text(I, 1, &sk, 1));
    if (infer__equal(I, sk.d[sk.n - 2], sv.d[sv.n - 2], "the sequence dims of key and value") < 0)
        return infer__fail(I, "key %s and value %s have different sequence lengths",
                           infer__shape_text(I, 0, &sk, 1), infer__shape_text(I, 1, &sv, 1));
    Shape qb = sq, kb = sk, vb = sv;
    qb.n -= 2, kb.n -= 2, vb.n -= 2;
    if (kb.n > qb.n || vb.n > qb.n)
        return infer__fail(I, "key and value may not have more leading dims than query");
    if (infer__expand(I, &kb, &qb) < 0 || infer__expand(I, &vb, &qb) < 0)
        return -1;
    return 0;
}

/* F.scaled_dot_product_attention(q, k, v, attn_mask, is_causal, scale) */
static int infer_sdpa(Infer *I)
{
    const Val *q = infer__in(I, 0), *k = infer__in(I, 1), *v = infer__in(I, 2), *m = infer__in(I, 3);
    if (infer__sdpa_operands(I, q, k, v) < 0)
        return -1;
    Shape s = shape_of(q);
    if (m) {
        if (m->dtype != DT_BOOL && m->dtype != q->dtype)
            return infer__fail(I, "expected a bool mask or one of the query's dtype %s, got %s",
                               dtype_name(q->dtype), dtype_name(m->dtype));
        if (I->attr[0])
            return infer__fail(I, "a mask and is_causal=True together");
        Shape scores = s, sm = shape_of(m);
        scores.d[scores.n - 1] = k->dims[k->ndim - 2];
        if (infer__expand(I, &sm, &scores) < 0)
            return -1;
    }
    s.d[s.n - 1] = v->dims[v->ndim - 1];
    return infer__out(I, q->dtype, &s);
}

/* Reports that `what`, a op b, does not fit int64; returns -1. */
static int infer__overflow(Infer *I, const char *what, int64_t a, char op, int64_t b)
{
    return infer__fail(I, "%s %lld %c %lld overflows 64-bit integers", what, (long long)a, op,
                       (long long)b);
}

/* One output size of a sliding window: (in + pad - span) / stride + 1,
 * where span is the window's extent; at least 1. A constant in + pad is
 * checked; a symbolic one is dim arithmetic, checked in every gear. Every
 * window start the kernels compute (out - 1) * stride - pad is then at
 * most in - span, and its last element at most in + pad - 1. */
static int infer__window(Infer *I, DimId in, int64_t pad, int64_t span, int64_t stride, DimId *out)
{
    int64_t c, padded;
    if (stride < 1 || span < 1 || pad < 0)
        return infer__fail(I, "invalid window: extent %lld, stride %lld, padding %lld",
                           (long long)span, (long long)stride, (long long)pad);
    if (graph_dim_const_value(I->g, in, &c)) {
        if (graph_ckd_add(&padded, c, pad))
            return infer__overflow(I, "the padded input size", c, '+', pad);
        if (padded < span)
            return infer__fail(I, "the input size %lld (padded: %lld) is smaller than the window "
                               "(%lld)", (long long)c, (long long)padded, (long long)span);
        *out = graph_dim_const(I->g, (padded - span) / stride + 1);
        return 0;
    }
    DimId d = graph_dim_add(I->g, in, graph_dim_const(I->g, pad - span));
    d = graph_dim_div(I->g, d, graph_dim_const(I->g, stride));
    *out = graph_dim_add(I->g, d, graph_dim_const(I->g, 1));
    return 0;
}

/* F.conv1d / F.conv2d: x[N, C, *sp] * w[O, C/groups, *k] (+ bias[O]) */
static int infer_conv(Infer *I)
{
    const Val *x = infer__in(I, 0), *w = infer__in(I, 1), *b = infer__in(I, 2);
    int ns = (int)I->attr[0];
    int64_t groups = I->attr[9], c;
    if (ns < 1 || ns > 2 || groups < 1)
        return infer__fail(I, "invalid attributes");
    if (infer__rank(I, x, ns + 2, ns + 2, "input") < 0 || infer__rank(I, w, ns + 2, ns + 2, "weight") < 0 ||
        infer__float_input(I, x) < 0 || infer__same_dtype(I, x, w) < 0)
        return -1;
    DimId g = graph_dim_const(I->g, groups);
    if (graph_dim_const_value(I->g, w->dims[0], &c) && c % groups)
        return infer__fail(I, "%lld output channels cannot be split in %lld groups", (long long)c,
                           (long long)groups);
    if (infer__equal(I, x->dims[1], graph_dim_mul(I->g, w->dims[1], g), "the input channels of conv") < 0) {
        Shape sx = shape_of(x), sw = shape_of(w);
        return infer__fail(I, "input %s does not have weight %s's %lld x %s channels",
                           infer__shape_text(I, 0, &sx, 1), infer__shape_text(I, 1, &sw, 1),
                           (long long)groups, infer__dim_text(I, 2, w->dims[1]));
    }
    if (b && (b->ndim != 1 || infer__equal(I, b->dims[0], w->dims[0], "the bias of conv") < 0))
        return infer__fail(I, "the bias must be 1-d with one element per output channel");
    Shape s = shape_of(x);
    s.d[1] = w->dims[0];
    for (int i = 0; i < ns; i++) {
        int64_t k;
        if (!graph_dim_const_value(I->g, w->dims[2 + i], &k))
            return infer__fail(I, "the kernel size must be known at compile time");
        int j = i + 2 - ns;   /* the attribute slot: 1-d uses the w slots */
        int64_t dil = I->attr[7 + j], span, pad;
        if (dil < 1)
            return infer__fail(I, "dilation must be positive");
        if (I->attr[3 + j] < 0 || I->attr[5 + j] < 0)
            return infer__fail(I, "padding %lld, %lld: it must not be negative",
                               (long long)I->attr[3 + j], (long long)I->attr[5 + j]);
        if (graph_ckd_mul(&span, dil, k - 1) || graph_ckd_add(&span, span, 1))
            return infer__overflow(I, "the dilated kernel size: dilation", dil, '*', k - 1);
        if (graph_ckd_add(&pad, I->attr[3 + j], I->attr[5 + j]))
            return infer__overflow(I, "the padding", I->attr[3 + j], '+', I->attr[5 + j]);
        if (infer__window(I, x->dims[2 + i], pad, span, I->attr[1 + j], &s.d[2 + i]) < 0)
            return -1;
    }
    return infer__out(I, x->dtype, &s);
}

/* A per-channel parameter of a norm (weight, bias, running stats): 1-d of
 * C elements, a floating point dtype. */
static int infer__channel_param(Infer *I, const Val *p, DimId ch, const char *name)
{
    if (!p)
        return 0;
    if (p->ndim != 1 || !dtype_is_float(p->dtype))
        return infer__fail(I, "%s must be a 1-d floating point tensor", name);
    char what[96];
    snprintf(what, sizeof what, "the %s of %s", name, I->op);
    if (infer__equal(I, p->dims[0], ch, what) < 0)
        return infer__fail(I, "%s has %s elements, the input %s channels", name,
                           infer__dim_text(I, 0, p->dims[0]), infer__dim_text(I, 1, ch));
    return 0;
}

/* F.batch_norm(x, running_mean, running_var, weight, bias, False, _, eps) */
static int infer_batch_norm(Infer *I)
{
    const Val *x = infer__in(I, 0);
    static const char *const names[] = {"", "running_mean", "running_var", "weight", "bias"};
    if (infer__rank(I, x, 2, GRAPH_MAX_DIMS, "input") < 0 || infer__float_input(I, x) < 0)
        return -1;
    for (uint32_t i = 1; i < 5; i++)
        if (infer__channel_param(I, infer__in(I, i), x->dims[1], names[i]) < 0)
            return -1;
    Shape s = shape_of(x);
    return infer__out(I, x->dtype, &s);
}

/* F.group_norm(x, groups, weight, bias, eps) */
static int infer_group_norm(Infer *I)
{
    const Val *x = infer__in(I, 0);
    int64_t c, groups = I->attr[0];
    if (infer__rank(I, x, 2, GRAPH_MAX_DIMS, "input") < 0 || infer__float_input(I, x) < 0)
        return -1;
    if (groups < 1)
        return infer__fail(I, "num_groups must be positive");
    if (!graph_dim_const_value(I->g, x->dims[1], &c))
        return infer__fail(I, "the number of channels must be known at compile time");
    if (c % groups)
        return infer__fail(I, "%lld channels cannot be split in %lld groups", (long long)c,
                           (long long)groups);
    if (infer__channel_param(I, infer__in(I, 1), x->dims[1], "weight") < 0 ||
        infer__channel_param(I, infer__in(I, 2), x->dims[1], "bias") < 0)
        return -1;
    Shape s = shape_of(x);
    return infer__out(I, x->dtype, &s);
}

/* F.max_pool2d / F.avg_pool2d(x, kernel, stride, padding), floor mode; the
 * kernel's area (the divisor of count_include_pad) fits int64 */
static int infer_pool2d(Infer *I)
{
    const Val *x = infer__in(I, 0);
    int64_t pad2, area;
    if (infer__rank(I, x, 3, 4, "input") < 0 || infer__float_input(I, x) < 0)
        return -1;
    Shape s = shape_of(x);
    for (int i = 0; i < 2; i++) {
        /* (2 * padding past int64: more than half of any kernel) */
        if (I->attr[4 + i] < 0 || graph_ckd_mul(&pad2, I->attr[4 + i], 2) || pad2 > I->attr[i])
            return infer__fail(I, "padding %lld: it must be at most half the kernel size %lld",
                               (long long)I->attr[4 + i], (long long)I->attr[i]);
        if (infer__window(I, s.d[s.n - 2 + i], pad2, I->attr[i], I->attr[2 + i], &s.d[s.n - 2 + i]) < 0)
            return -1;
    }
    if (graph_ckd_mul(&area, I->attr[0], I->attr[1]))
        return infer__overflow(I, "the kernel area", I->attr[0], '*', I->attr[1]);
    return infer__out(I, x->dtype, &s);
}

/* F.adaptive_avg_pool2d / F.adaptive_max_pool2d(x, output_size). Window
 * o of an input size n in out spans [o n / out, ((o + 1) n + out - 1) /
 * out): out * n + out must fit int64, n taken at GRAPH_MAX_BYTES when it
 * is symbolic (the most it is in any gear). */
static int infer_adaptive_pool2d(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (infer__rank(I, x, 3, 4, "input") < 0 || infer__float_input(I, x) < 0)
        return -1;
    Shape s = shape_of(x);
    for (int i = 0; i < 2; i++) {
        int64_t out = I->attr[i], n = GRAPH_MAX_BYTES, span;
        if (out < 1)
            return infer__fail(I, "output size %lld: it must be positive", (long long)out);
        graph_dim_const_value(I->g, s.d[s.n - 2 + i], &n);
        if (graph_ckd_mul(&span, out, n) || graph_ckd_add(&span, span, out))
            return infer__overflow(I, "the windows of output size", out, '*', n);
        s.d[s.n - 2 + i] = graph_dim_const(I->g, out);
    }
    return infer__out(I, x->dtype, &s);
}

/* F.interpolate(x[N, C, H, W], size, scale_factor, mode, align_corners) */
static int infer_interpolate(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (infer__rank(I, x, 4, 4, "input") < 0 || infer__float_input(I, x) < 0)
        return -1;
    Shape s = shape_of(x);
    for (int i = 0; i < 2; i++) {
        double f = I->d->fattr[i];
        if (I->attr[2 + i] < 1)
            return infer__fail(I, "output size %lld: it must be positive", (long long)I->attr[2 + i]);
        if (!(f >= 0 && f - f == 0))   /* (NaN, inf) */
            return infer__fail(I, "scale factor %g: it must be finite and not negative", f);
        s.d[2 + i] = graph_dim_const(I->g, I->attr[2 + i]);
    }
    return infer__out(I, x->dtype, &s);
}

/* ---- shape rules: torch_npu fused ops ---- */

/* y, expert_idx, out = torch_npu.npu_moe_gating_top_k(x [t, e], k, bias [e],
 * k_group, group_count, ...): a constant number of experts e that
 * group_count divides, 1 <= k_group <= group_count, 1 <= k <= e /
 * group_count * k_group; y [t, k] in x's dtype, expert_idx [t, k] int32,
 * out [t, e] float32 */
static int infer_moe_gating_top_k(Infer *I)
{
    const Val *x = infer__in(I, 0), *bias = infer__in(I, 1);
    const int64_t *a = I->attr;
    int64_t e;
    if (infer__float_input(I, x) < 0 || infer__rank(I, x, 2, 2, "input") < 0)
        return -1;
    Shape s = shape_of(x);
    if (!graph_dim_const_value(I->g, s.d[1], &e))
        return infer__fail(I, "the number of experts (x's last dim, %s) must be a constant",
                           infer__dim_text(I, 0, s.d[1]));
    if (a[2] < 1 || a[2] > 1024 || e % a[2] != 0)
        return infer__fail(I, "group_count = %lld must divide the %lld experts (and be at most 1024)",
                           (long long)a[2], (long long)e);
    if (a[1] < 1 || a[1] > a[2])
        return infer__fail(I, "k_group = %lld must be in [1, group_count = %lld]", (long long)a[1],
                           (long long)a[2]);
    if (a[0] < 1 || a[0] > e / a[2] * a[1])
        return infer__fail(I, "k = %lld must be in [1, %lld] (experts / group_count * k_group)",
                           (long long)a[0], (long long)(e / a[2] * a[1]));
    if (a[3] < 0 || a[3] > 1 || a[4] < 0 || a[4] > 1)
        return infer__fail(I, "group_select_mode and norm_type must be 0 or 1");
    if (bias && (!dtype_is_float(bias->dtype) || bias->ndim != 1 ||
                 infer__equal(I, bias->dims[0], s.d[1], "bias of moe_gating_top_k matches the experts") < 0)) {
        Shape sb = shape_of(bias);
        return infer__fail(I, "bias must be a floating point tensor of shape [%lld], got %s %s",
                           (long long)e, dtype_name(bias->dtype), infer__shape_text(I, 0, &sb, 0));
    }
    Shape sk = s;
    sk.d[1] = graph_dim_const(I->g, a[0]);
    if (infer__out(I, x->dtype, &sk) < 0 || infer__out(I, DT_I32, &sk) < 0)
        return -1;
    return infer__out(I, DT_F32, &s);
}

/* y, rstd, x = torch_npu.npu_add_rms_norm(x1, x2, gamma, eps): x1 and x2
 * of one shape and dtype; y and x in that dtype, rstd as rms_norm's */
static int infer_add_rms_norm(Infer *I)
{
    const Val *x1 = infer__in(I, 0), *x2 = infer__in(I, 1), *gamma = infer__in(I, 2);
    if (infer__float_input(I, x1) < 0)
        return -1;
    if (x2->dtype != x1->dtype)
        return infer__fail(I, "x1 and x2 must have the same dtype, got %s and %s",
                           dtype_name(x1->dtype), dtype_name(x2->dtype));
    Shape s = shape_of(x1), s2 = shape_of(x2);
    int ok = s2.n == s.n;
    for (int i = 0; ok && i < s.n; i++)
        ok = infer__equal(I, s2.d[i], s.d[i], "a dim of x2 of add_rms_norm equals x1's") == 0;
    if (!ok)
        return infer__fail(I, "x1 %s and x2 %s must have the same shape",
                           infer__shape_text(I, 0, &s, 0), infer__shape_text(I, 1, &s2, 0));
    if (gamma->ndim < 1 || gamma->ndim > x1->ndim)
        return infer__fail(I, "a %d-d gamma cannot normalise a %d-d tensor", gamma->ndim, x1->ndim);
    if (infer__norm_param(I, gamma, &s, gamma->ndim, "gamma") < 0 ||
        infer__out(I, x1->dtype, &s) < 0)
        return -1;
    Shape r = s;
    for (int i = r.n - gamma->ndim; i < r.n; i++)
        r.d[i] = graph_dim_const(I->g, 1);
    if (infer__out(I, DT_F32, &r) < 0)
        return -1;
    return infer__out(I, x1->dtype, &s);
}

/* torch_npu.npu_rotary_mul(x, r1, r2, rotary_mode): r1, r2 broadcast to x,
 * whose last dim is even; the result has x's shape and dtype */
static int infer_rotary_mul(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (infer__float_input(I, x) < 0 || infer__rank(I, x, 1, GRAPH_MAX_DIMS, "input") < 0)
        return -1;
    if (I->attr[0] != 0 && I->attr[0] != 1 && I->attr[0] != 3)
        return infer__fail(I, "rotary mode must be 0 (half), 1 (interleave) or 3 (interleave-half), got %lld",
                           (long long)I->attr[0]);
    Shape s = shape_of(x);
    for (uint32_t k = 1; k < 3; k++) {
        const Val *r = infer__in(I, k);
        if (!dtype_is_float(r->dtype))
            return infer__fail(I, "r%u must have a floating point dtype, got %s", k,
                               dtype_name(r->dtype));
        Shape sr = shape_of(r);
        if (infer__expand(I, &sr, &s) < 0)
            return -1;
    }
    DimId half;
    if (infer__half(I, s.d[s.n - 1], s.n - 1, &half) < 0)
        return -1;
    return infer__out(I, x->dtype, &s);
}

/* y, scale = torch_npu.npu_dynamic_quant(x, smooth_scales=): y int8 of x's
 * shape, scale float32 of x.shape[:-1]; smooth_scales is [x.shape[-1]] */
static int infer_dynamic_quant(Infer *I)
{
    const Val *x = infer__in(I, 0), *sm = infer__in(I, 1);
    if (infer__float_input(I, x) < 0 || infer__rank(I, x, 2, GRAPH_MAX_DIMS, "input") < 0)
        return -1;
    Shape s = shape_of(x);
    if (sm) {
        if (!dtype_is_float(sm->dtype))
            return infer__fail(I, "smooth_scales must have a floating point dtype, got %s",
                               dtype_name(sm->dtype));
        if (sm->ndim != 1 || infer__equal(I, sm->dims[0], s.d[s.n - 1],
                                          "smooth_scales of dynamic_quant matches x's last dim") < 0) {
            Shape ss = shape_of(sm);
            return infer__fail(I, "smooth_scales of shape %s must be [%s]",
                               infer__shape_text(I, 0, &ss, 0), infer__dim_text(I, 1, s.d[s.n - 1]));
        }
    }
    if (infer__out(I, DT_I8, &s) < 0)
        return -1;
    s.n--;
    return infer__out(I, DT_F32, &s);
}

/* y, expert_idx, row_idx = torch_npu.npu_moe_gating_top_k_softmax(x[.., e],
 * finished=[..] bool, k): each [.., k]; y in x's dtype, the others int32 */
static int infer_moe_gating_top_k_softmax(Infer *I)
{
    const Val *x = infer__in(I, 0), *fin = infer__in(I, 1);
    if (infer__float_input(I, x) < 0 || infer__rank(I, x, 2, 3, "input") < 0)
        return -1;
    Shape s = shape_of(x);
    int64_t e, k = I->attr[0];
    if (k < 1 || k > 1024)
        return infer__fail(I, "k must be in [1, 1024], got %lld", (long long)k);
    DimId kd = graph_dim_const(I->g, k);
    if (graph_dim_const_value(I->g, s.d[s.n - 1], &e)) {
        if (k > e)
            return infer__fail(I, "k = %lld is larger than the %lld experts", (long long)k, (long long)e);
    } else {
        infer__check(I, DIMCHECK_EQ, graph_dim_min(I->g, s.d[s.n - 1], kd), kd,
                     "k of moe_gating_top_k_softmax is at most the number of experts");
    }
    if (fin) {
        Shape sf = shape_of(fin), lead = s;
        lead.n--;
        int ok = fin->dtype == DT_BOOL && sf.n == lead.n;
        for (int i = 0; ok && i < lead.n; i++)
            ok = infer__equal(I, sf.d[i], lead.d[i], "a dim of finished of moe_gating_top_k_softmax") == 0;
        if (!ok)
            return infer__fail(I, "finished must be a bool tensor of shape %s, got %s %s",
                               infer__shape_text(I, 0, &lead, 0), dtype_name(fin->dtype),
                               infer__shape_text(I, 1, &sf, 0));
    }
    s.d[s.n - 1] = kd;
    if (infer__out(I, x->dtype, &s) < 0 || infer__out(I, DT_I32, &s) < 0)
        return -1;
    return infer__out(I, DT_I32, &s);
}

/* The sizes a fused attention's operands agree on. */
typedef struct InferAttn {
    DimId b, sq, n, d, skv, nkv;
} InferAttn;

/* Dim i of v must equal want (what names it in messages). */
static int infer__attn_dim(Infer *I, const Val *v, int i, DimId want, const char *name, const char *what)
{
    char text[96];
    snprintf(text, sizeof text, "%s of %s of %s", what, name, I->op);
    if (infer__equal(I, v->dims[i], want, text) == 0)
        return 0;
    return infer__fail(I, "%s of %s is %s, expected %s", what, name, infer__dim_text(I, 0, v->dims[i]),
                       infer__dim_text(I, 1, want));
}

/* key/value of a fused attention: the layout of query, or paged blocks
 * [blocks, block_size, kv_heads * d] / [blocks, kv_heads, block_size, d]
 * with a block table [B, max_blocks]. */
static int infer__attn_kv(Infer *I, const Val *kv, const char *name, InferAttn *A)
{
    int64_t layout = I->attr[0], bs = I->attr[7];
    const Val *bt = infer__in(I, 4);
    DimId hkv = graph_dim_mul(I->g, A->nkv, A->d);
    if (kv->dtype != infer__in(I, 0)->dtype)
        return infer__fail(I, "%s has dtype %s, query %s", name, dtype_name(kv->dtype),
                           dtype_name(infer__in(I, 0)->dtype));
    if (bt) {
        DimId bsd = graph_dim_const(I->g, bs);
        if (infer__rank(I, kv, 3, 4, name) < 0)
            return -1;
        if (kv->ndim == 3)
            return infer__attn_dim(I, kv, 1, bsd, name, "the block size") ||
                   infer__attn_dim(I, kv, 2, hkv, name, "the hidden size");
        return infer__attn_dim(I, kv, 1, A->nkv, name, "the head count") ||
               infer__attn_dim(I, kv, 2, bsd, name, "the block size") ||
               infer__attn_dim(I, kv, 3, A->d, name, "the head size");
    }
    if (infer__rank(I, kv, layout == 0 ? 3 : 4, layout == 0 ? 3 : 4, name) < 0 ||
        infer__attn_dim(I, kv, 0, A->b, name, "the batch size"))
        return -1;
    int sd = layout == 2 ? 2 : 1, nd = layout == 1 ? 2 : 1;
    if (layout == 0 && infer__attn_dim(I, kv, 2, hkv, name, "the hidden size"))
        return -1;
    if (layout != 0 && (infer__attn_dim(I, kv, nd, A->nkv, name, "the head count") ||
                        infer__attn_dim(I, kv, 3, A->d, name, "the head size")))
        return -1;
    if (A->skv < 0)
        A->skv = kv->dims[sd];
    return infer__attn_dim(I, kv, sd, A->skv, name, "the sequence length");
}

/* attention_out, softmax_lse = torch_npu.npu_fused_infer_attention_score(
 * query, key, value, ...) and the prompt / incremental flash attentions
 * (ops.def has the attributes) */
static int infer_fused_attention(Infer *I)
{
    const Val *q = infer__in(I, 0), *k = infer__in(I, 1), *v = infer__in(I, 2);
    const Val *mask = infer__in(I, 3), *bt = infer__in(I, 4);
    int64_t layout = I->attr[0], n = I->attr[1], nkv = I->attr[2], mode = I->attr[3];
    InferAttn A;
    if (infer__float_input(I, q) < 0)
        return -1;
    if (layout < 0 || layout > 2 || n < 1 || nkv < 1 || n % nkv || mode < 0 || mode > 4)
        return infer__fail(I, "invalid attributes: layout %lld, %lld heads, %lld key/value heads, "
                           "sparse mode %lld", (long long)layout, (long long)n, (long long)nkv,
                           (long long)mode);
    if (infer__rank(I, q, layout == 0 ? 3 : 4, layout == 0 ? 3 : 4, "query") < 0)
        return -1;
    A.b = q->dims[0];
    A.n = graph_dim_const(I->g, n);
    A.nkv = graph_dim_const(I->g, nkv);
    A.skv = -1;
    if (layout == 0) {
        A.sq = q->dims[1];
        A.d = graph_dim_div(I->g, q->dims[2], A.n);
        if (infer__equal(I, graph_dim_mul(I->g, A.d, A.n), q->dims[2],
                         "the hidden size of query of fused_attention is a multiple of num_heads") < 0)
            return infer__fail(I, "the hidden size %s of query is not a multiple of num_heads = %lld",
                               infer__dim_text(I, 0, q->dims[2]), (long long)n);
    } else {
        A.sq = q->dims[layout == 1 ? 1 : 2];
        A.d = q->dims[3];
        if (infer__attn_dim(I, q, layout == 1 ? 2 : 1, A.n, "query", "the head count"))
            return -1;
    }
    if (bt) {
        if (!dtype__is_int(bt->dtype) || bt->ndim != 2)
            return infer__fail(I, "block_table must be a 2-d integer tensor, got %s %d-d",
                               dtype_name(bt->dtype), bt->ndim);
        if (I->attr[7] < 1)
            return infer__fail(I, "a block table needs block_size > 0");
        if (infer__attn_dim(I, bt, 0, A.b, "block_table", "the batch size"))
            return -1;
        A.skv = graph_dim_mul(I->g, bt->dims[1], graph_dim_const(I->g, I->attr[7]));
    }
    if (infer__attn_kv(I, k, "key", &A) || infer__attn_kv(I, v, "value", &A))
        return -1;
    for (uint32_t i = 5; i < 7; i++) {
        const Val *len = infer__in(I, i);
        if (len && (!dtype__is_int(len->dtype) || len->ndim != 1))
            return infer__fail(I, "%s must be a 1-d integer tensor", i == 5 ? "actual_seq_lengths"
                                                                             : "actual_seq_lengths_kv");
    }
    if (mask) {
        if (mask->dtype != DT_BOOL && mask->dtype != DT_I8)
            return infer__fail(I, "atten_mask must be bool or int8, got %s", dtype_name(mask->dtype));
        if (infer__rank(I, mask, 2, 4, "atten_mask") < 0)
            return -1;
        if (mode <= 1) {   /* sparse modes 2 to 4 build their own mask */
            int r = mask->ndim;
            if (infer__attn_dim(I, mask, r - 2, A.sq, "atten_mask", "the query length") ||
                infer__attn_dim(I, mask, r - 1, A.skv, "atten_mask", "the key/value length"))
                return -1;
            if (r >= 3 && !dim__is(I->g, mask->dims[0], 1) &&
                infer__attn_dim(I, mask, 0, A.b, "atten_mask", "the batch size"))
                return -1;
            if (r == 4 && !dim__is(I->g, mask->dims[1], 1) &&
                infer__attn_dim(I, mask, 1, A.n, "atten_mask", "the head count"))
                return -1;
        }
    } else if (mode != 0) {
        return infer__fail(I, "sparse_mode %lld needs an atten_mask", (long long)mode);
    }
    Shape s = shape_of(q), l = {4, {A.b, A.n, A.sq, graph_dim_const(I->g, 1)}};
    if (!I->attr[6]) {
        l.n = 1;
        l.d[0] = graph_dim_const(I->g, 1);
    }
    if (infer__out(I, q->dtype, &s) < 0)
        return -1;
    return infer__out(I, DT_F32, &l);
}

/* torch_npu.scatter_update_(data, indices, updates, axis): updates has
 * data's rank, dtype and dims except along axis; indices one per row of
 * dim 0 */
static int infer_scatter_update(Infer *I)
{
    const Val *data = infer__in(I, 0), *idx = infer__in(I, 1), *up = infer__in(I, 2);
    int64_t axis = I->attr[0];
    if (infer__rank(I, data, 2, GRAPH_MAX_DIMS, "data") < 0)
        return -1;
    if (axis < 1 || axis >= data->ndim)
        return infer__fail(I, "axis %lld must be one of dims 1..%d of data", (long long)axis, data->ndim - 1);
    if (!dtype__is_int(idx->dtype) || idx->ndim != 1)
        return infer__fail(I, "indices must be a 1-d integer tensor, got %s %d-d", dtype_name(idx->dtype),
                           idx->ndim);
    if (up->dtype != data->dtype || up->ndim != data->ndim)
        return infer__fail(I, "updates (%s, %d-d) must have data's dtype and rank (%s, %d-d)",
                           dtype_name(up->dtype), up->ndim, dtype_name(data->dtype), data->ndim);
    if (infer__attn_dim(I, idx, 0, data->dims[0], "indices", "the size"))
        return -1;
    for (int d = 0; d < data->ndim; d++)
        if (d != axis && infer__attn_dim(I, up, d, data->dims[d], "updates", "a dim"))
            return -1;
    Shape s = shape_of(data);
    return infer__out(I, data->dtype, &s);
}

/* torch_npu.npu_scatter_nd_update_(var, indices [.., K], updates): updates
 * is indices.shape[:-1] + var.shape[K:] in var's dtype */
static int infer_scatter_nd_update(Infer *I)
{
    const Val *var = infer__in(I, 0), *idx = infer__in(I, 1), *up = infer__in(I, 2);
    int64_t k;
    if (!dtype__is_int(idx->dtype) || idx->ndim < 1)
        return infer__fail(I, "indices must be an integer tensor of at least 1 dim, got %s %d-d",
                           dtype_name(idx->dtype), idx->ndim);
    if (!graph_dim_const_value(I->g, idx->dims[idx->ndim - 1], &k) || k < 1 || k > var->ndim)
        return infer__fail(I, "the last dim of indices must be a constant in 1..%d", var->ndim);
    if (up->dtype != var->dtype || up->ndim != idx->ndim - 1 + var->ndim - (int)k)
        return infer__fail(I, "updates (%s, %d-d) must be %s of rank %d", dtype_name(up->dtype), up->ndim,
                           dtype_name(var->dtype), idx->ndim - 1 + var->ndim - (int)k);
    for (int d = 0; d < idx->ndim - 1; d++)
        if (infer__attn_dim(I, up, d, idx->dims[d], "updates", "a dim"))
            return -1;
    for (int d = (int)k; d < var->ndim; d++)
        if (infer__attn_dim(I, up, idx->ndim - 1 + d - (int)k, var->dims[d], "updates", "a dim"))
            return -1;
    Shape s = shape_of(var);
    return infer__out(I, var->dtype, &s);
}

/* Each kind's shape rule, from its row of ops.def (NULL: graph_add_op
 * does not add the kind). */
#define infer_none NULL
static int (*const infer_rule[OP__count])(Infer *I) = {
#define OP(e, name, flags, in_min, in_max, in_opt, attr_min, attr_max, rule, rowrule, printer, fusion, op_type, view, layout, swap, acl_form, cpu, cpu_scalar, acl, acl_ts, acl_st, attrs) \
    [OP_##e] = infer_##rule,
#include "ops.def"
#undef OP
};
#undef infer_none

static int infer__count(Infer *I, const char *what, uint32_t n, uint32_t lo, uint32_t hi)
{
    if (n >= lo && n <= hi)
        return 0;
    if (lo == hi)
        return infer__fail(I, "expected %u %s, got %u", lo, what, n);
    if (hi == OP_ANY)
        return infer__fail(I, "expected at least %u %s, got %u", lo, what, n);
    return infer__fail(I, "expected %u to %u %s, got %u", lo, hi, what, n);
}

/* What every kind needs: its counts of inputs and attributes, valid value
 * ids (-1 only for optional inputs) with known dtypes, a valid dtype,
 * stream and super kernel. */
static int infer__validate(Infer *I, const OpInfo *info)
{
    const OpDesc *d = I->d;
    if (infer__count(I, "inputs", d->nin, info->min_in, info->max_in) < 0 ||
        infer__count(I, "attributes", d->nattr, info->min_attr, info->max_attr) < 0)
        return -1;
    for (uint32_t i = 0; i < d->nin; i++) {
        int32_t v = d->in[i];
        if (v == -1 && i >= info->optional)
            continue;
        if (v < 0 || (size_t)v >= I->g->vals.n)
            return infer__fail(I, "input %u is not a value", i);
        if (I->g->vals.v[v].dtype == DT_UNKNOWN || (unsigned)I->g->vals.v[v].dtype >= DT__count)
            return infer__fail(I, "input %u has an unknown dtype", i);
    }
    if ((unsigned)d->dtype >= DT__count)
        return infer__fail(I, "invalid dtype %d", (int)d->dtype);
    if (d->stream < 0 || (size_t)d->stream >= I->g->streams.n)
        return infer__fail(I, "invalid stream %d", d->stream);
    if (d->sk < -1 || (d->sk >= 0 && (size_t)d->sk >= I->g->sks.n))
        return infer__fail(I, "invalid super kernel %d", d->sk);
    if (d->nattr)
        memcpy(I->attr, d->attr, d->nattr * sizeof I->attr[0]);
    return 0;
}

/* Output formats: aliases and in-place writes keep input 0's layout,
 * FORMAT_CAST sets it, everything else computes in ND. */
static void infer__formats(Infer *I)
{
    for (uint32_t i = 0; i < I->nout; i++) {
        if (op_info[I->d->kind].flags & (OPF_ALIAS | OPF_INPLACE))
            I->out[i].format = infer__in(I, 0)->format;
        if (I->d->kind == OP_FORMAT_CAST)
            I->out[i].format = (uint8_t)I->attr[0];
    }
}

static int32_t graph__op_from(Graph *g, Infer *I)
{
    const OpDesc *d = I->d;
    Op op = {0};
    op.kind = d->kind;
    op.line = d->line;
    op.col = d->col;
    op.file = d->file ? arena_strndup(&g->arena, d->file, strlen(d->file)) : NULL;
    if (d->nin) {
        op.in = arena_alloc(&g->arena, d->nin * sizeof *op.in);
        memcpy(op.in, d->in, d->nin * sizeof *op.in);
    }
    op.nin = d->nin;
    memcpy(op.attr, I->attr, sizeof op.attr);
    op.nattr = d->nattr;
    op.fattr[0] = d->fattr[0];
    op.fattr[1] = d->fattr[1];
    op.dtype = d->dtype;
    op.stream = d->stream;
    op.sk = d->sk;
    return graph__push_op(g, &op, I->out, I->nout);
}

/* Every output must keep the size invariant, and no size computed on the
 * way may have overflowed (overflows counted since `before`). */
static int infer__sizes(Infer *I, uint64_t before)
{
    for (uint32_t i = 0; i < I->nout; i++) {
        const Val *v = &I->out[i];
        const char *why = graph__size_problem(I->g, v->ndim, v->dims, dtype_size(v->dtype));
        if (why) {
            Shape s = shape_of(v);
            return infer__fail(I, "the result %s%s %s", dtype_short(v->dtype),
                               infer__shape_text(I, 0, &s, 0), why);
        }
    }
    if (I->g->overflows != before)
        return infer__fail(I, "its size arithmetic overflows 64-bit integers");
    return 0;
}

int graph_op_has_rule(OpKind kind)
{
    return (unsigned)kind < OP__count && infer_rule[kind] != NULL;
}

int32_t graph_add_op(Graph *self, const OpDesc *d, char *err, size_t errlen)
{
    Infer I = {0};
    I.g = self;
    I.d = d;
    I.err = err;
    I.errlen = errlen;
    I.op = (unsigned)d->kind < OP__count ? op_info[d->kind].name : "op";
    size_t nchecks = self->checks.n;
    uint64_t overflows = self->overflows;
    int rc;
    if ((unsigned)d->kind >= OP__count || !infer_rule[d->kind])
        rc = infer__fail(&I, "not an op that graph_add_op adds");
    else
        rc = infer__validate(&I, &op_info[d->kind]);
    if (rc == 0)
        rc = infer_rule[d->kind](&I);
    if (rc == 0)
        rc = infer__sizes(&I, overflows);
    for (int i = 0; i < 3; i++)
        sb_free(&I.text[i]);
    if (rc < 0) {
        self->checks.n = nchecks;
        return -1;
    }
    infer__formats(&I);
    return graph__op_from(self, &I);
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
