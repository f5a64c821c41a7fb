/*
 * infer_core.c - the helpers of the shape rules (infer.c,
 * infer_families.c): messages, operands, dims, broadcasting, operand
 * dtypes and outputs of one graph_add_op call (the promotion helpers of
 * the dtype rules are in infer_dtype.c).
 *
 * Error messages come from user scripts: one line, lower case, starting
 * with the op's name ("matmul: the inner dims differ: [2, 3] @ [4, 5]").
 */
#include "infer_core.h"

#include <string.h>

/* Sets the graph's error to "<op>: <message>"; returns -1. */
int infer__fail(Infer *I, const char *fmt, ...)
{
    StrBuf *e = &I->g->error;
    va_list ap;
    e->len = 0;
    sb_printf(e, "%s: ", I->op);
    va_start(ap, fmt);
    sb_vprintf(e, fmt, ap);
    va_end(ap);
    return -1;
}

/* Input i, or NULL when it is absent (-1). */
const Val *infer__in(const Infer *I, uint32_t i)
{
    if (i >= I->d->nin || I->d->in[i] < 0)
        return NULL;
    return &I->g->vals.v[I->d->in[i]];
}

Shape infer__shape_of(const Val *v)
{
    Shape s = {0};
    s.n = v->ndim;
    memcpy(s.d, v->dims, (size_t)v->ndim * sizeof s.d[0]);
    return s;
}

/* s as "(2, s0)" (paren) or "[2, s0]", in message slot `slot`. */
const char *infer__shape_text(Infer *I, int slot, const Shape *s, int paren)
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

const char *infer__dim_text(Infer *I, int slot, DimId d)
{
    StrBuf *t = &I->text[slot];
    t->len = 0;
    graph_dim_str(I->g, d, t);
    return t->s;
}

/* Records a check the planner evaluates in every gear. */
void infer__check(Infer *I, DimCheckKind k, DimId a, DimId b, const char *what)
{
    DimCheck c = {k, a, b, (int32_t)I->g->ops.n,
                  arena_strndup(&I->g->arena, what, strlen(what))};
    VEC_PUSH(I->g->checks, c);
}

/* a and b must be equal: 0 (with a check when only a gear can tell), or -1
 * (no message) when they differ. */
int infer__equal(Infer *I, DimId a, DimId b, const char *what)
{
    int same = dim__same(I->g, a, b);
    if (same < 0)
        return -1;
    if (same == 0)
        infer__check(I, DIMCHECK_EQ, a, b, what);
    return 0;
}

/* Adds an output value of shape s (its dtype is the dtype rule's, its
 * format ND: graph_add_op sets both after the shape rule). */
int infer__out(Infer *I, const Shape *s)
{
    if (s->n > GRAPH_MAX_DIMS)
        return infer__fail(I, "the result would have %d dims (at most %d)", s->n, GRAPH_MAX_DIMS);
    Val *v = &I->out[I->nout++];
    memset(v, 0, sizeof *v);
    v->format = FMT_ND;
    v->ndim = (uint8_t)s->n;
    memcpy(v->dims, s->d, (size_t)s->n * sizeof s->d[0]);
    return 0;
}

/* dim (already normalised) must index a tensor of rank ndim. */
int infer__dim(Infer *I, int64_t dim, int ndim)
{
    if (dim < 0 || dim >= ndim)
        return infer__fail(I, "dim %lld is out of range for a %d-d tensor", (long long)dim, ndim);
    return 0;
}

/* attr i must be a DimId of the graph. */
int infer__dim_attr(Infer *I, uint32_t i)
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

DimId infer__numel(Infer *I, const Shape *s)
{
    DimId n = graph_dim_const(I->g, 1);
    for (int i = 0; i < s->n; i++)
        n = graph_dim_mul(I->g, n, s->d[i]);
    return n;
}

/* d halved; it must be even. */
int infer__half(Infer *I, DimId d, int dim, DimId *half)
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
int infer__broadcast(Infer *I, const Shape *a, const Shape *b, Shape *out)
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
int infer__expand(Infer *I, const Shape *src, const Shape *dst)
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

/* ---- operand dtypes ---- */

/* The two operands of a matrix product must have the same dtype. */
int infer__same_dtype(Infer *I, const Val *a, const Val *b)
{
    if (a->dtype != b->dtype)
        return infer__fail(I, "expected both operands to have the same dtype, got %s and %s",
                           dtype_name(a->dtype), dtype_name(b->dtype));
    return 0;
}

int infer__float_input(Infer *I, const Val *x)
{
    if (!dtype_is_float(x->dtype))
        return infer__fail(I, "expected an input of a floating point dtype, got %s",
                           dtype_name(x->dtype));
    return 0;
}

int infer__rank(Infer *I, const Val *v, int lo, int hi, const char *what)
{
    if (v->ndim < lo || v->ndim > hi) {
        if (lo == hi)
            return infer__fail(I, "expected a %d-d %s, got %d-d", lo, what, v->ndim);
        return infer__fail(I, "expected a %d-d to %d-d %s, got %d-d", lo, hi, what, v->ndim);
    }
    return 0;
}

/* param (a norm's weight, bias or gamma) must have the k trailing dims of x. */
int infer__norm_param(Infer *I, const Val *param, const Shape *sx, int k, const char *name)
{
    Shape sp = infer__shape_of(param), trail = {k, {0}};
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
