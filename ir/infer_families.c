/*
 * infer_families.c - the shape rules (infer_<rule>, ops.def's shape rule
 * column) of creation, comparison and selection, sorting, indexing and
 * scatter, attention, convolution, pooling, interpolation and the NPU
 * ops; graph_add_op (infer.c) calls them, helpers in infer_core.c.
 *
 * Error messages come from user scripts: one line, lower case, starting
 * with the op's name.
 */
#include "infer_core.h"

#include <string.h>

/* ---- shape rules: creation and constants ---- */

/* torch.arange(start, end, step): attr[0] the length (a DimId, symbolic
 * when end is a geared dim), attr[1] a symbolic part of start; the dtype
 * the lowering chose */
int infer_arange(Infer *I)
{
    if (infer__dim_attr(I, 0) < 0 || infer__dim_attr(I, 1) < 0)
        return -1;
    Shape s = {1, {(DimId)I->attr[0]}};
    double a = I->d->fattr[0], b = I->d->fattr[1];
    if (a - a != 0 || b - b != 0)   /* inf or NaN */
        return infer__fail(I, "start and step must be finite");
    return infer__out(I, &s);
}

/* ---- shape rules: shape ---- */

/* x.triu(k), x.tril(k): at least 2-d; same type */
int infer_tri(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (x->ndim < 2)
        return infer__fail(I, "expected a tensor of at least 2 dims, got %d", x->ndim);
    Shape s = infer__shape_of(x);
    return infer__out(I, &s);
}

/* x.expand(*sizes): attr = the target dims; x broadcasts to them */
int infer_expand(Infer *I)
{
    const Val *x = infer__in(I, 0);
    Shape sx = infer__shape_of(x), s = {0};
    s.n = (int)I->d->nattr;
    for (uint32_t i = 0; i < I->d->nattr; i++) {
        if (infer__dim_attr(I, i) < 0)
            return -1;
        s.d[i] = (DimId)I->attr[i];
    }
    if (infer__expand(I, &sx, &s) < 0)
        return -1;
    return infer__out(I, &s);
}

/* x.flip(dims): attr = distinct dims of x */
int infer_flip(Infer *I)
{
    const Val *x = infer__in(I, 0);
    uint8_t seen[GRAPH_MAX_DIMS] = {0};
    for (uint32_t i = 0; i < I->d->nattr; i++) {
        if (infer__dim(I, I->attr[i], x->ndim) < 0)
            return -1;
        if (seen[I->attr[i]]++)
            return infer__fail(I, "dim %lld appears more than once", (long long)I->attr[i]);
    }
    Shape s = infer__shape_of(x);
    return infer__out(I, &s);
}

/* x[:, start:end:step] with start and end DimIds (>= 0), clamped to the
 * dim's size n: len = ceil(max(min(end, n) - min(start, n), 0) / step) */
int infer_slice_dyn(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (infer__dim(I, I->attr[0], x->ndim) < 0 || infer__dim_attr(I, 1) < 0 || infer__dim_attr(I, 2) < 0)
        return -1;
    if (I->attr[3] <= 0)
        return infer__fail(I, "slice step must be positive, got %lld", (long long)I->attr[3]);
    Graph *g = I->g;
    Shape s = infer__shape_of(x);
    int dim = (int)I->attr[0];
    DimId n = s.d[dim], st = graph_dim_min(g, (DimId)I->attr[1], n), en = graph_dim_min(g, (DimId)I->attr[2], n);
    DimId len = graph_dim_max(g, graph_dim_sub(g, en, st), graph_dim_const(g, 0));
    int64_t step = MIN(I->attr[3], (int64_t)1 << 62);
    if (step > 1)
        len = graph_dim_div(g, graph_dim_add(g, len, graph_dim_const(g, step - 1)), graph_dim_const(g, step));
    s.d[dim] = len;
    return infer__out(I, &s);
}

/* x.roll(shifts, dims): attr = (shift, dim) pairs */
int infer_roll(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (I->d->nattr % 2)
        return infer__fail(I, "expected (shift, dim) pairs");
    for (uint32_t i = 1; i < I->d->nattr; i += 2)
        if (infer__dim(I, I->attr[i], x->ndim) < 0)
            return -1;
    Shape s = infer__shape_of(x);
    return infer__out(I, &s);
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
        Shape sv = infer__shape_of(v), t;
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
int infer_compare(Infer *I)
{
    Shape s;
    if (infer__bcast_all(I, 2, &s) < 0)
        return -1;
    return infer__out(I, &s);
}

/* logical_and/or/xor/not: any dtypes, bool out */
int infer_logical(Infer *I)
{
    Shape s;
    if (infer__bcast_all(I, I->d->nin, &s) < 0)
        return -1;
    return infer__out(I, &s);
}

/* & | ^ ~ on bool or integer tensors, broadcast */
int infer_bitwise(Infer *I)
{
    Shape s;
    for (uint32_t i = 0; i < I->d->nin; i++) {
        const Val *v = infer__in(I, i);
        if (dtype_is_float(v->dtype))
            return infer__fail(I, "dtype %s is not supported (torch's bitwise ops take bool and "
                               "integer tensors)", dtype_name(v->dtype));
    }
    if (infer__bcast_all(I, I->d->nin, &s) < 0)
        return -1;
    return infer__out(I, &s);
}

/* where(cond, a, b): cond bool; the three broadcast together */
int infer_where(Infer *I)
{
    const Val *c = infer__in(I, 0);
    if (c->dtype != DT_BOOL)
        return infer__fail(I, "expected the condition to be a bool tensor, got %s "
                           "(compare it, e.g. cond != 0)", dtype_name(c->dtype));
    Shape s;
    if (infer__bcast_all(I, 3, &s) < 0)
        return -1;
    return infer__out(I, &s);
}

/* dst.masked_fill_(mask, value): mask bool, broadcast to dst */
int infer_masked_fill(Infer *I)
{
    const Val *dst = infer__in(I, 0), *mask = infer__in(I, 1);
    if (mask->dtype != DT_BOOL)
        return infer__fail(I, "expected a bool mask, got %s", dtype_name(mask->dtype));
    Shape sd = infer__shape_of(dst), sm = infer__shape_of(mask);
    if (infer__expand(I, &sm, &sd) < 0)
        return -1;
    return infer__out(I, &sd);
}

/* x.any(), x.all(dim, keepdim): as a reduction, bool out */
int infer_any_all(Infer *I)
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
    return infer__out(I, &s);
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
int infer_topk(Infer *I)
{
    const Val *x = infer__in(I, 0);
    int64_t k = I->attr[1];
    if (x->ndim == 0)
        return infer__fail(I, "expected a tensor of at least 1 dim, got a 0-d one");
    if (infer__line_dim(I, x) < 0)
        return -1;
    if (k < 0)
        return infer__fail(I, "k (%lld) must not be negative", (long long)k);
    Shape s = infer__shape_of(x);
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
    if (infer__out(I, &s) < 0)
        return -1;
    return infer__out(I, &s);
}

/* torch.sort(x, dim, descending, stable) -> (values, indices); argsort */
int infer_sort(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (infer__line_dim(I, x) < 0)
        return -1;
    Shape s = infer__shape_of(x);
    if (I->d->kind == OP_SORT && infer__out(I, &s) < 0)
        return -1;
    return infer__out(I, &s);
}

/* x.max(dim, keepdim) -> (values, indices), x.min(dim); argmax, argmin */
int infer_arg_reduce(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (infer__line_dim(I, x) < 0)
        return -1;
    Shape s = infer__shape_of(x);
    if (x->ndim > 0) {
        int dim = (int)I->attr[0];
        if (I->attr[1]) {
            s.d[dim] = graph_dim_const(I->g, 1);
        } else {
            memmove(&s.d[dim], &s.d[dim + 1], (size_t)(s.n - dim - 1) * sizeof s.d[0]);
            s.n--;
        }
    }
    if ((I->d->kind == OP_MAX_DIM || I->d->kind == OP_MIN_DIM) && infer__out(I, &s) < 0)
        return -1;
    return infer__out(I, &s);
}

/* torch.cumsum(x, dim, dtype=None) */
int infer_cumsum(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (infer__line_dim(I, x) < 0)
        return -1;
    Shape s = infer__shape_of(x);
    return infer__out(I, &s);
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
int infer_index_select(Infer *I)
{
    const Val *x = infer__in(I, 0), *ix = infer__in(I, 1);
    int64_t dim = I->attr[0];
    if (infer__rank(I, x, 1, GRAPH_MAX_DIMS, "input") < 0 || infer__dim(I, dim, x->ndim) < 0 ||
        infer__rank(I, ix, 0, 1, "index") < 0 || infer__index_dtype(I, ix, 1, "an index") < 0)
        return -1;
    Shape s = infer__shape_of(x);
    s.d[dim] = ix->ndim ? ix->dims[0] : graph_dim_const(I->g, 1);
    return infer__out(I, &s);
}

/* x.gather(dim, index): index's shape, x's dtype */
int infer_gather(Infer *I)
{
    const Val *x = infer__in(I, 0), *ix = infer__in(I, 1);
    int64_t dim = I->attr[0];
    if (infer__rank(I, x, 1, GRAPH_MAX_DIMS, "input") < 0 || infer__dim(I, dim, x->ndim) < 0 ||
        infer__index_dtype(I, ix, 0, "an index") < 0)
        return -1;
    if (ix->ndim != x->ndim)
        return infer__fail(I, "index has %d dims, expected %d (the input's)", ix->ndim, x->ndim);
    Shape s = infer__shape_of(ix);
    return infer__out(I, &s);
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
        Shape si = infer__shape_of(ix), t;
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
int infer_index(Infer *I)
{
    const Val *x = infer__in(I, 0);
    Shape b, s;
    if (infer__index_shape(I, 1, &b) < 0 ||
        infer__indexed(I, x, I->attr[0], (int)I->d->nin - 1, &b, &s) < 0)
        return -1;
    return infer__out(I, &s);
}

/* dst[..., i0, .., ik-1, ...] = values: values broadcast to the indexed shape */
int infer_index_put(Infer *I)
{
    const Val *dst = infer__in(I, 0), *v = infer__in(I, 1);
    Shape b, s, sv = infer__shape_of(v), sd = infer__shape_of(dst);
    if (infer__index_shape(I, 2, &b) < 0 ||
        infer__indexed(I, dst, I->attr[0], (int)I->d->nin - 2, &b, &s) < 0 ||
        infer__expand(I, &sv, &s) < 0)
        return -1;
    return infer__out(I, &sd);
}

/* self.scatter(dim, index, src or value), scatter_add: self's shape */
int infer_scatter(Infer *I)
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
    Shape s = infer__shape_of(x);
    return infer__out(I, &s);
}

/* self.index_add(dim, index, source, alpha), index_copy: self's shape */
int infer_index_update(Infer *I)
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
    Shape s = infer__shape_of(x);
    return infer__out(I, &s);
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
    Shape sq = infer__shape_of(q), sk = infer__shape_of(k), sv = infer__shape_of(v);
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
int infer_sdpa(Infer *I)
{
    const Val *q = infer__in(I, 0), *k = infer__in(I, 1), *v = infer__in(I, 2), *m = infer__in(I, 3);
    if (infer__sdpa_operands(I, q, k, v) < 0)
        return -1;
    Shape s = infer__shape_of(q);
    if (m) {
        if (m->dtype != DT_BOOL && m->dtype != q->dtype)
            return infer__fail(I, "expected a bool mask or one of the query's dtype %s, got %s",
                               dtype_name(q->dtype), dtype_name(m->dtype));
        if (I->attr[0])
            return infer__fail(I, "a mask and is_causal=True together");
        Shape scores = s, sm = infer__shape_of(m);
        scores.d[scores.n - 1] = k->dims[k->ndim - 2];
        if (infer__expand(I, &sm, &scores) < 0)
            return -1;
    }
    s.d[s.n - 1] = v->dims[v->ndim - 1];
    return infer__out(I, &s);
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
int infer_conv(Infer *I)
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
        Shape sx = infer__shape_of(x), sw = infer__shape_of(w);
        return infer__fail(I, "input %s does not have weight %s's %lld x %s channels",
                           infer__shape_text(I, 0, &sx, 1), infer__shape_text(I, 1, &sw, 1),
                           (long long)groups, infer__dim_text(I, 2, w->dims[1]));
    }
    if (b && (b->ndim != 1 || infer__equal(I, b->dims[0], w->dims[0], "the bias of conv") < 0))
        return infer__fail(I, "the bias must be 1-d with one element per output channel");
    Shape s = infer__shape_of(x);
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
    return infer__out(I, &s);
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
int infer_batch_norm(Infer *I)
{
    const Val *x = infer__in(I, 0);
    static const char *const names[] = {"", "running_mean", "running_var", "weight", "bias"};
    if (infer__rank(I, x, 2, GRAPH_MAX_DIMS, "input") < 0 || infer__float_input(I, x) < 0)
        return -1;
    for (uint32_t i = 1; i < 5; i++)
        if (infer__channel_param(I, infer__in(I, i), x->dims[1], names[i]) < 0)
            return -1;
    Shape s = infer__shape_of(x);
    return infer__out(I, &s);
}

/* F.group_norm(x, groups, weight, bias, eps) */
int infer_group_norm(Infer *I)
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
    Shape s = infer__shape_of(x);
    return infer__out(I, &s);
}

/* F.max_pool2d / F.avg_pool2d(x, kernel, stride, padding), floor mode; the
 * kernel's area (the divisor of count_include_pad) fits int64 */
int infer_pool2d(Infer *I)
{
    const Val *x = infer__in(I, 0);
    int64_t pad2, area;
    if (infer__rank(I, x, 3, 4, "input") < 0 || infer__float_input(I, x) < 0)
        return -1;
    Shape s = infer__shape_of(x);
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
    return infer__out(I, &s);
}

/* F.adaptive_avg_pool2d / F.adaptive_max_pool2d(x, output_size). Window
 * o of an input size n in out spans [o n / out, ((o + 1) n + out - 1) /
 * out): out * n + out must fit int64, n taken at GRAPH_MAX_BYTES when it
 * is symbolic (the most it is in any gear). */
int infer_adaptive_pool2d(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (infer__rank(I, x, 3, 4, "input") < 0 || infer__float_input(I, x) < 0)
        return -1;
    Shape s = infer__shape_of(x);
    for (int i = 0; i < 2; i++) {
        int64_t out = I->attr[i], n = GRAPH_MAX_BYTES, span;
        if (out < 1)
            return infer__fail(I, "output size %lld: it must be positive", (long long)out);
        graph_dim_const_value(I->g, s.d[s.n - 2 + i], &n);
        if (graph_ckd_mul(&span, out, n) || graph_ckd_add(&span, span, out))
            return infer__overflow(I, "the windows of output size", out, '*', n);
        s.d[s.n - 2 + i] = graph_dim_const(I->g, out);
    }
    return infer__out(I, &s);
}

/* F.interpolate(x[N, C, H, W], size, scale_factor, mode, align_corners) */
int infer_interpolate(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (infer__rank(I, x, 4, 4, "input") < 0 || infer__float_input(I, x) < 0)
        return -1;
    Shape s = infer__shape_of(x);
    for (int i = 0; i < 2; i++) {
        double f = I->d->fattr[i];
        if (I->attr[2 + i] < 1)
            return infer__fail(I, "output size %lld: it must be positive", (long long)I->attr[2 + i]);
        if (!(f >= 0 && f - f == 0))   /* (NaN, inf) */
            return infer__fail(I, "scale factor %g: it must be finite and not negative", f);
        s.d[2 + i] = graph_dim_const(I->g, I->attr[2 + i]);
    }
    return infer__out(I, &s);
}

/* ---- shape rules: torch_npu fused ops ---- */

/* y, expert_idx, out = torch_npu.npu_moe_gating_top_k(x [t, e], k, bias [e],
 * k_group, group_count, ...): a constant number of experts e that
 * group_count divides, 1 <= k_group <= group_count, 1 <= k <= e /
 * group_count * k_group; y [t, k] in x's dtype, expert_idx [t, k] int32,
 * out [t, e] float32 */
int infer_moe_gating_top_k(Infer *I)
{
    const Val *x = infer__in(I, 0), *bias = infer__in(I, 1);
    const int64_t *a = I->attr;
    int64_t e;
    if (infer__float_input(I, x) < 0 || infer__rank(I, x, 2, 2, "input") < 0)
        return -1;
    Shape s = infer__shape_of(x);
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
        Shape sb = infer__shape_of(bias);
        return infer__fail(I, "bias must be a floating point tensor of shape [%lld], got %s %s",
                           (long long)e, dtype_name(bias->dtype), infer__shape_text(I, 0, &sb, 0));
    }
    Shape sk = s;
    sk.d[1] = graph_dim_const(I->g, a[0]);
    if (infer__out(I, &sk) < 0 || infer__out(I, &sk) < 0)
        return -1;
    return infer__out(I, &s);
}

/* y, rstd, x = torch_npu.npu_add_rms_norm(x1, x2, gamma, eps): x1 and x2
 * of one shape and dtype; y and x in that dtype, rstd as rms_norm's */
int infer_add_rms_norm(Infer *I)
{
    const Val *x1 = infer__in(I, 0), *x2 = infer__in(I, 1), *gamma = infer__in(I, 2);
    if (infer__float_input(I, x1) < 0)
        return -1;
    if (x2->dtype != x1->dtype)
        return infer__fail(I, "x1 and x2 must have the same dtype, got %s and %s",
                           dtype_name(x1->dtype), dtype_name(x2->dtype));
    Shape s = infer__shape_of(x1), s2 = infer__shape_of(x2);
    int ok = s2.n == s.n;
    for (int i = 0; ok && i < s.n; i++)
        ok = infer__equal(I, s2.d[i], s.d[i], "a dim of x2 of add_rms_norm equals x1's") == 0;
    if (!ok)
        return infer__fail(I, "x1 %s and x2 %s must have the same shape",
                           infer__shape_text(I, 0, &s, 0), infer__shape_text(I, 1, &s2, 0));
    if (gamma->ndim < 1 || gamma->ndim > x1->ndim)
        return infer__fail(I, "a %d-d gamma cannot normalise a %d-d tensor", gamma->ndim, x1->ndim);
    if (infer__norm_param(I, gamma, &s, gamma->ndim, "gamma") < 0 ||
        infer__out(I, &s) < 0)
        return -1;
    Shape r = s;
    for (int i = r.n - gamma->ndim; i < r.n; i++)
        r.d[i] = graph_dim_const(I->g, 1);
    if (infer__out(I, &r) < 0)
        return -1;
    return infer__out(I, &s);
}

/* torch_npu.npu_rotary_mul(x, r1, r2, rotary_mode): r1, r2 broadcast to x,
 * whose last dim is even; the result has x's shape and dtype */
int infer_rotary_mul(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (infer__float_input(I, x) < 0 || infer__rank(I, x, 1, GRAPH_MAX_DIMS, "input") < 0)
        return -1;
    if (I->attr[0] != 0 && I->attr[0] != 1 && I->attr[0] != 3)
        return infer__fail(I, "rotary mode must be 0 (half), 1 (interleave) or 3 (interleave-half), got %lld",
                           (long long)I->attr[0]);
    Shape s = infer__shape_of(x);
    for (uint32_t k = 1; k < 3; k++) {
        const Val *r = infer__in(I, k);
        if (!dtype_is_float(r->dtype))
            return infer__fail(I, "r%u must have a floating point dtype, got %s", k,
                               dtype_name(r->dtype));
        Shape sr = infer__shape_of(r);
        if (infer__expand(I, &sr, &s) < 0)
            return -1;
    }
    DimId half;
    if (infer__half(I, s.d[s.n - 1], s.n - 1, &half) < 0)
        return -1;
    return infer__out(I, &s);
}

/* y, scale = torch_npu.npu_dynamic_quant(x, smooth_scales=): y int8 of x's
 * shape, scale float32 of x.shape[:-1]; smooth_scales is [x.shape[-1]] */
int infer_dynamic_quant(Infer *I)
{
    const Val *x = infer__in(I, 0), *sm = infer__in(I, 1);
    if (infer__float_input(I, x) < 0 || infer__rank(I, x, 2, GRAPH_MAX_DIMS, "input") < 0)
        return -1;
    Shape s = infer__shape_of(x);
    if (sm) {
        if (!dtype_is_float(sm->dtype))
            return infer__fail(I, "smooth_scales must have a floating point dtype, got %s",
                               dtype_name(sm->dtype));
        if (sm->ndim != 1 || infer__equal(I, sm->dims[0], s.d[s.n - 1],
                                          "smooth_scales of dynamic_quant matches x's last dim") < 0) {
            Shape ss = infer__shape_of(sm);
            return infer__fail(I, "smooth_scales of shape %s must be [%s]",
                               infer__shape_text(I, 0, &ss, 0), infer__dim_text(I, 1, s.d[s.n - 1]));
        }
    }
    if (infer__out(I, &s) < 0)
        return -1;
    s.n--;
    return infer__out(I, &s);
}

/* y, expert_idx, row_idx = torch_npu.npu_moe_gating_top_k_softmax(x[.., e],
 * finished=[..] bool, k): each [.., k]; y in x's dtype, the others int32 */
int infer_moe_gating_top_k_softmax(Infer *I)
{
    const Val *x = infer__in(I, 0), *fin = infer__in(I, 1);
    if (infer__float_input(I, x) < 0 || infer__rank(I, x, 2, 3, "input") < 0)
        return -1;
    Shape s = infer__shape_of(x);
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
        Shape sf = infer__shape_of(fin), lead = s;
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
    if (infer__out(I, &s) < 0 || infer__out(I, &s) < 0)
        return -1;
    return infer__out(I, &s);
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
int infer_fused_attention(Infer *I)
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
    Shape s = infer__shape_of(q), l = {4, {A.b, A.n, A.sq, graph_dim_const(I->g, 1)}};
    if (!I->attr[6]) {
        l.n = 1;
        l.d[0] = graph_dim_const(I->g, 1);
    }
    if (infer__out(I, &s) < 0)
        return -1;
    return infer__out(I, &l);
}

/* torch_npu.scatter_update_(data, indices, updates, axis): updates has
 * data's rank, dtype and dims except along axis; indices one per row of
 * dim 0 */
int infer_scatter_update(Infer *I)
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
    Shape s = infer__shape_of(data);
    return infer__out(I, &s);
}

/* torch_npu.npu_scatter_nd_update_(var, indices [.., K], updates): updates
 * is indices.shape[:-1] + var.shape[K:] in var's dtype */
int infer_scatter_nd_update(Infer *I)
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
    Shape s = infer__shape_of(var);
    return infer__out(I, &s);
}

/* all_to_all: x's dim 0, a constant, cut in n equal blocks (2
 * attributes) or in the n split sizes given (attr[2..2+n)); the output's
 * dim 0 is the sum of the n sizes received (attr[2+n..2+2n)), or x's. */
static int infer__all_to_all(Infer *I, const Val *x, int64_t n)
{
    Shape s = infer__shape_of(x);
    int64_t d0, in = 0, out = 0;
    if (x->ndim < 1)
        return infer__fail(I, "a 0-d tensor has no dim 0 to split among the ranks");
    if (!graph_dim_const_value(I->g, x->dims[0], &d0))
        return infer__fail(I, "a constant dim 0 is split among the ranks, not %s", infer__dim_text(I, 0, x->dims[0]));
    if (I->d->nattr == 2) {
        if (d0 % n)
            return infer__fail(I, "dim 0 (%lld) is not a multiple of the group's %lld ranks", (long long)d0,
                               (long long)n);
        return infer__out(I, &s);
    }
    if (I->d->nattr != (uint32_t)(2 + 2 * n))
        return infer__fail(I, "all_to_all over %lld ranks with %u split sizes (2 x %lld expected)", (long long)n,
                           I->d->nattr - 2, (long long)n);
    for (int64_t r = 0; r < n; r++) {
        if (I->attr[2 + r] < 0 || I->attr[2 + n + r] < 0)
            return infer__fail(I, "a negative split size");
        in += I->attr[2 + r];
        out += I->attr[2 + n + r];
    }
    if (in != d0)
        return infer__fail(I, "the input split sizes add up to %lld, dim 0 is %lld", (long long)in, (long long)d0);
    s.d[0] = graph_dim_const(I->g, out);
    return infer__out(I, &s);
}

/* The collectives (all_reduce, broadcast: x's shape; all_gather: dim 0
 * times the group's size; reduce_scatter: dim 0 divided by it, which
 * must divide it). */
int infer_collective(Infer *I)
{
    const Val *x = infer__in(I, 0);
    OpKind k = I->d->kind;
    int64_t n = I->attr[k == OP_ALL_GATHER || k == OP_ALL_TO_ALL ? 1 : 2];
    Shape s = infer__shape_of(x);
    if (n < 1 || n > 64)
        return infer__fail(I, "a group of %lld ranks", (long long)n);
    if (k == OP_ALL_TO_ALL)
        return infer__all_to_all(I, x, n);
    if ((k == OP_ALL_GATHER || k == OP_REDUCE_SCATTER) && x->ndim < 1)
        return infer__fail(I, "a 0-d tensor has no dim 0 to gather or scatter along");
    if (k == OP_ALL_GATHER) {
        s.d[0] = graph_dim_mul(I->g, x->dims[0], graph_dim_const(I->g, n));
    } else if (k == OP_REDUCE_SCATTER) {
        int64_t d0;
        if (!graph_dim_const_value(I->g, x->dims[0], &d0) || d0 % n)
            return infer__fail(I, "dim 0 (%s) must be a constant multiple of the group's %lld ranks",
                               infer__dim_text(I, 0, x->dims[0]), (long long)n);
        s.d[0] = graph_dim_const(I->g, d0 / n);
    }
    return infer__out(I, &s);
}
