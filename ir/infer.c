/*
 * infer.c - graph_add_op: checks an op's operands and infers its outputs'
 * dtypes, formats and shapes as PyTorch does (broadcasting, type
 * promotion, matmul and view rules), each kind by its shape rule
 * (ops.def's column, infer_<rule>) and then its dtype rule (the next
 * column, dtype_<rule> in infer_dtype.c). A shape fact that cannot be
 * decided on symbols becomes a DimCheck that the planner evaluates in
 * every gear.
 * Here the rules of elementwise ops, matrix products, views, joins,
 * reductions, norms and copies; infer_families.c has the others, and
 * infer_core.c their helpers.
 *
 * Error messages come from user scripts: one line, lower case, starting
 * with the op's name ("matmul: the inner dims differ: [2, 3] @ [4, 5]").
 */
#include "infer_core.h"

#include <string.h>

/* ===================================================================== */
/* Inference per op kind                                                 */
/* ===================================================================== */

/* torch.full(shape, value, dtype=...) and friends: attr = the shape's dims */
int infer_full(Infer *I)
{
    Shape s = {0};
    s.n = (int)I->d->nattr;
    for (uint32_t i = 0; i < I->d->nattr; i++) {
        if (infer__dim_attr(I, i) < 0)
            return -1;
        s.d[i] = (DimId)I->attr[i];
    }
    return infer__out(I, &s);
}

/* a + b, a - b, a * b, a / b; a + 2.0; 2.0 - a */
int infer_binary(Infer *I)
{
    int64_t mode = I->d->nattr > 0 ? I->attr[0] : 0;
    if (mode < 0 || mode > 2)
        return infer__fail(I, "invalid operand mode %lld", (long long)mode);
    if (I->d->nin != (mode ? 1u : 2u))
        return infer__fail(I, "expected %d tensor operand(s), got %u", mode ? 1 : 2, I->d->nin);
    const Val *a = infer__in(I, 0);
    Shape s = infer__shape_of(a);
    if (mode == 0) {
        const Val *b = infer__in(I, 1);
        Shape sa = s, sb = infer__shape_of(b);
        if (I->d->kind == OP_SUB && a->dtype == DT_BOOL && b->dtype == DT_BOOL)
            return infer__fail(I, "dtypes bool and bool: subtraction of two bool tensors "
                               "is not supported");
        if (infer__broadcast(I, &sa, &sb, &s) < 0)
            return -1;
    }
    return infer__out(I, &s);
}

/* -x, abs(x), relu(x), sign(x), floor(x), ...: x's shape; the kinds
 * torch has no bool kernel for refuse bool */
int infer_unary(Infer *I)
{
    const Val *x = infer__in(I, 0);
    OpKind k = I->d->kind;
    if (k == OP_NEG && x->dtype == DT_BOOL)
        return infer__fail(I, "dtype bool: negation of a bool tensor is not supported");
    if ((k == OP_FLOOR || k == OP_CEIL || k == OP_ROUND) && x->dtype == DT_BOOL)
        return infer__fail(I, "dtype bool is not supported (torch has no bool kernel); "
                           "cast with .int() first");
    Shape s = infer__shape_of(x);
    return infer__out(I, &s);
}

/* exp(x), sigmoid(x), F.gelu(x), ...: x's shape */
int infer_float_unary(Infer *I)
{
    const Val *x = infer__in(I, 0);
    Shape s = infer__shape_of(x);
    /* torch promotes integer inputs of exp, log, sqrt, rsqrt, sigmoid,
     * tanh, cos, sin, reciprocal, erf, log1p and expm1 to float32 (the
     * dtype rule to_float); gelu, silu, softplus, leaky_relu, hardswish
     * and mish have no integer kernels */
    OpKind k = I->d->kind;
    if (!dtype_is_float(x->dtype) && (k == OP_GELU || k == OP_SILU || k == OP_SOFTPLUS ||
                                      k == OP_LEAKY_RELU || k == OP_HARDSWISH || k == OP_MISH))
        return infer__fail(I, "dtype %s is not supported (torch has no integer kernel); "
                           "cast with .float() first", dtype_name(x->dtype));
    return infer__out(I, &s);
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

/* torch.mm(a[m,k], b[k,n]) -> [m,n] */
int infer_mm(Infer *I)
{
    const Val *a = infer__in(I, 0), *b = infer__in(I, 1);
    if (infer__rank(I, a, 2, 2, "first operand") < 0 ||
        infer__rank(I, b, 2, 2, "second operand") < 0 || infer__same_dtype(I, a, b) < 0)
        return -1;
    Shape sa = infer__shape_of(a), sb = infer__shape_of(b);
    if (infer__contract(I, sa.d[1], sb.d[0], &sa, &sb) < 0)
        return -1;
    Shape s = {2, {sa.d[0], sb.d[1]}};
    return infer__out(I, &s);
}

/* torch.bmm(a[b,m,k], b[b,k,n]) -> [b,m,n] */
int infer_bmm(Infer *I)
{
    const Val *a = infer__in(I, 0), *b = infer__in(I, 1);
    if (infer__rank(I, a, 3, 3, "first operand") < 0 ||
        infer__rank(I, b, 3, 3, "second operand") < 0 || infer__same_dtype(I, a, b) < 0)
        return -1;
    Shape sa = infer__shape_of(a), sb = infer__shape_of(b);
    if (infer__equal(I, sa.d[0], sb.d[0], "the batch dims of bmm") < 0)
        return infer__fail(I, "the batch dims differ: %s @ %s",
                           infer__shape_text(I, 0, &sa, 0), infer__shape_text(I, 1, &sb, 0));
    if (infer__contract(I, sa.d[2], sb.d[1], &sa, &sb) < 0)
        return -1;
    Shape s = {3, {sa.d[0], sa.d[1], sb.d[2]}};
    return infer__out(I, &s);
}

/* a @ b, torch.matmul(a, b): a 1-d a is a row [1,k] and a 1-d b a column
 * [k,1] (that dim is then dropped); batch dims broadcast:
 * [..., m, k] @ [..., k, n] -> [broadcast(...), m, n] */
int infer_matmul(Infer *I)
{
    const Val *a = infer__in(I, 0), *b = infer__in(I, 1);
    if (a->ndim == 0 || b->ndim == 0)
        return infer__fail(I, "both arguments to matmul need to be at least 1-d");
    if (infer__same_dtype(I, a, b) < 0)
        return -1;
    Shape sa = infer__shape_of(a), sb = infer__shape_of(b);
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
    return infer__out(I, &s);
}

/* torch.addmm(bias, a[m,k], b[k,n]) -> [m,n]; bias broadcasts to [m,n] */
int infer_addmm(Infer *I)
{
    const Val *bias = infer__in(I, 0), *a = infer__in(I, 1), *b = infer__in(I, 2);
    if (infer__rank(I, a, 2, 2, "first matrix") < 0 ||
        infer__rank(I, b, 2, 2, "second matrix") < 0 ||
        infer__same_dtype(I, a, b) < 0 || infer__same_dtype(I, bias, a) < 0)
        return -1;
    Shape sa = infer__shape_of(a), sb = infer__shape_of(b), sbias = infer__shape_of(bias);
    if (infer__contract(I, sa.d[1], sb.d[0], &sa, &sb) < 0)
        return -1;
    Shape s = {2, {sa.d[0], sb.d[1]}};
    if (infer__expand(I, &sbias, &s) < 0)
        return -1;
    return infer__out(I, &s);
}

/* F.linear(x[..., k], w[n, k], bias[n]) -> [..., n] */
int infer_linear(Infer *I)
{
    const Val *x = infer__in(I, 0), *w = infer__in(I, 1), *bias = infer__in(I, 2);
    if (infer__rank(I, x, 1, GRAPH_MAX_DIMS, "input") < 0 ||
        infer__rank(I, w, 2, 2, "weight") < 0 || infer__same_dtype(I, x, w) < 0 ||
        (bias && infer__same_dtype(I, bias, x) < 0))
        return -1;
    Shape sx = infer__shape_of(x), sw = infer__shape_of(w);
    if (infer__contract(I, sx.d[sx.n - 1], sw.d[1], &sx, &sw) < 0)
        return -1;
    Shape s = sx;
    s.d[s.n - 1] = sw.d[0];
    if (bias) {
        Shape sbias = infer__shape_of(bias);
        if (infer__expand(I, &sbias, &s) < 0)
            return -1;
    }
    return infer__out(I, &s);
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
int infer_reshape(Infer *I)
{
    const Val *x = infer__in(I, 0);
    Shape sx = infer__shape_of(x), s = {0};
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
    return infer__out(I, &s);
}

/* x.permute(2, 0, 1), x.transpose(0, 1), x.t(): attr = the permutation */
int infer_permute(Infer *I)
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
    return infer__out(I, &s);
}

/* x's shape: x.contiguous(), x.clone(), x.to(dtype), clamp(x, min, max),
 * x ** 2.0, isnan(x), and FORMAT_CAST's npu_format_cast(x, fmt) (fmt
 * checked) */
int infer_identity(Infer *I)
{
    const Val *x = infer__in(I, 0);
    Shape s = infer__shape_of(x);
    if (I->d->kind == OP_FORMAT_CAST && (I->attr[0] < 0 || I->attr[0] > 255))
        return infer__fail(I, "invalid format %lld", (long long)I->attr[0]);
    return infer__out(I, &s);
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
    *s = infer__shape_of(x);
    int dim = (int)I->attr[0];
    s->d[dim] = slice__len(I->g, s->d[dim], I->attr[1], I->attr[2], I->attr[3]);
    return 0;
}

/* x[:, start:end:step] */
int infer_slice(Infer *I)
{
    const Val *x = infer__in(I, 0);
    Shape s;
    if (infer__slice_shape(I, x, &s) < 0)
        return -1;
    return infer__out(I, &s);
}

/* x[:, i]: the dim goes away */
int infer_select(Infer *I)
{
    const Val *x = infer__in(I, 0);
    int64_t dim = I->attr[0], index = I->attr[1], n;
    if (infer__dim(I, dim, x->ndim) < 0)
        return -1;
    if (graph_dim_const_value(I->g, x->dims[dim], &n) &&
        (index >= n || (index < 0 && index < -n)))
        return infer__fail(I, "index %lld is out of bounds for dim %lld with size %lld",
                           (long long)index, (long long)dim, (long long)n);
    Shape s = infer__shape_of(x);
    memmove(&s.d[dim], &s.d[dim + 1], (size_t)(s.n - dim - 1) * sizeof s.d[0]);
    s.n--;
    return infer__out(I, &s);
}

/* torch.cat([x0, x1, ...], dim): same rank, equal sizes but along dim */
int infer_cat(Infer *I)
{
    const Val *x0 = infer__in(I, 0);
    int64_t dim = I->attr[0];
    if (x0->ndim == 0)
        return infer__fail(I, "zero-dimensional tensors cannot be concatenated");
    if (infer__dim(I, dim, x0->ndim) < 0)
        return -1;
    Shape s = infer__shape_of(x0);
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
    return infer__out(I, &s);
}

/* torch.stack([x0, x1, ...], dim): equal shapes, a new dim of size n */
int infer_stack(Infer *I)
{
    const Val *x0 = infer__in(I, 0);
    int64_t dim = I->attr[0];
    if (dim < 0 || dim > x0->ndim)
        return infer__fail(I, "dim %lld is out of range for stacking %d-d tensors",
                           (long long)dim, x0->ndim);
    Shape s0 = infer__shape_of(x0);
    for (uint32_t k = 1; k < I->d->nin; k++) {
        const Val *x = infer__in(I, k);
        Shape sx = infer__shape_of(x);
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
    return infer__out(I, &s);
}

/* x.sum(dim=(0, 2), keepdim=True), x.mean(-1), x.amax(): no dims = all */
int infer_reduce(Infer *I)
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
    return infer__out(I, &s);
}

/* F.softmax(x, dim, dtype=None), F.log_softmax(...) */
int infer_softmax(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (!(x->ndim == 0 && I->attr[0] == 0) && infer__dim(I, I->attr[0], x->ndim) < 0)
        return -1;
    Shape s = infer__shape_of(x);
    return infer__out(I, &s);
}

/* F.layer_norm(x, x.shape[-k:], w, b, eps) */
int infer_layer_norm(Infer *I)
{
    const Val *x = infer__in(I, 0), *w = infer__in(I, 1), *b = infer__in(I, 2);
    int64_t k = I->attr[0];
    if (infer__float_input(I, x) < 0)
        return -1;
    if (k < 1 || k > x->ndim)
        return infer__fail(I, "cannot normalise %lld trailing dims of a %d-d tensor",
                           (long long)k, x->ndim);
    Shape s = infer__shape_of(x);
    if ((w && infer__norm_param(I, w, &s, (int)k, "weight") < 0) ||
        (b && infer__norm_param(I, b, &s, (int)k, "bias") < 0))
        return -1;
    return infer__out(I, &s);
}

/* y, rstd = torch_npu.npu_rms_norm(x, gamma, eps):
 * rstd is float32 of shape x.shape[:-gamma.ndim] + [1] * gamma.ndim */
int infer_rms_norm(Infer *I)
{
    const Val *x = infer__in(I, 0), *gamma = infer__in(I, 1);
    if (infer__float_input(I, x) < 0)
        return -1;
    if (gamma->ndim < 1 || gamma->ndim > x->ndim)
        return infer__fail(I, "a %d-d gamma cannot normalise a %d-d tensor", gamma->ndim, x->ndim);
    Shape s = infer__shape_of(x);
    if (infer__norm_param(I, gamma, &s, gamma->ndim, "gamma") < 0 ||
        infer__out(I, &s) < 0)
        return -1;
    for (int i = s.n - gamma->ndim; i < s.n; i++)
        s.d[i] = graph_dim_const(I->g, 1);
    return infer__out(I, &s);
}

/* nn.Embedding: weight[v, h][ids] -> ids.shape + [h] */
int infer_embedding(Infer *I)
{
    const Val *w = infer__in(I, 0), *ids = infer__in(I, 1);
    if (infer__rank(I, w, 2, 2, "weight") < 0)
        return -1;
    if (!dtype__is_int(ids->dtype))
        return infer__fail(I, "expected indices of an integer dtype, got %s",
                           dtype_name(ids->dtype));
    Shape s = infer__shape_of(ids);
    s.d[s.n++] = w->dims[1];
    return infer__out(I, &s);
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
int infer_quant_matmul(Infer *I)
{
    const Val *x1 = infer__in(I, 0), *x2 = infer__in(I, 1);
    if (infer__rank(I, x1, 2, 6, "x1") < 0 || infer__rank(I, x2, 2, 6, "x2") < 0)
        return -1;
    int int8_or_32 = (x1->dtype == DT_I8 || x1->dtype == DT_I32) &&
                     (x2->dtype == DT_I8 || x2->dtype == DT_I32);
    if (!int8_or_32 || (x1->dtype == DT_I32 && x2->dtype != DT_I32))
        return infer__fail(I, "expected int8 operands (or int32 holding int4), got dtypes %s and %s",
                           dtype_name(x1->dtype), dtype_name(x2->dtype));
    Shape s1 = infer__shape_of(x1), s2 = infer__shape_of(x2);
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
    return infer__out(I, &s);
}

/* The antiquant scale (or offset) p of npu_weight_quant_batchmatmul: one
 * value, one per column ([n] or [1, n]), or with group size g one per
 * column and group ([ceil(k / g), n], k constant); x's dtype. */
static int infer__antiquant_param(Infer *I, const Val *p, const Val *x, DimId k, DimId n,
                                  const char *name)
{
    if (!p)
        return 0;
    if (p->dtype != x->dtype)
        return infer__fail(I, "%s must have x's dtype %s, got %s", name, dtype_name(x->dtype),
                           dtype_name(p->dtype));
    int64_t g = I->attr[0], kc;
    if (g > 0) {
        if (!graph_dim_const_value(I->g, k, &kc))
            return infer__fail(I, "a group size needs a constant k");
        if (p->ndim != 2 || !dim__is(I->g, p->dims[0], (kc + g - 1) / g) ||
            dim__same(I->g, p->dims[1], n) < 0)
            return infer__fail(I, "%s must be [%lld, %s] (one row per group of %lld along k)", name,
                               (long long)((kc + g - 1) / g), infer__dim_text(I, 0, n), (long long)g);
        return 0;
    }
    int ok = (p->ndim == 1 && (dim__is(I->g, p->dims[0], 1) || dim__same(I->g, p->dims[0], n) >= 0)) ||
             (p->ndim == 2 && dim__is(I->g, p->dims[0], 1) && dim__same(I->g, p->dims[1], n) >= 0);
    return ok ? 0 : infer__fail(I, "%s must be [1], [%s] or [1, %s]", name, infer__dim_text(I, 0, n),
                                infer__dim_text(I, 1, n));
}

/* torch_npu.npu_weight_quant_batchmatmul(x[m, k], weight int8 [k, n],
 * antiquant_scale, antiquant_offset=, bias=, antiquant_group_size=g)
 * -> [m, n] of x's dtype (float16 or bfloat16). */
int infer_weight_quant_matmul(Infer *I)
{
    const Val *x = infer__in(I, 0), *w = infer__in(I, 1), *b = infer__in(I, 4);
    if (infer__rank(I, x, 2, 2, "x") < 0 || infer__rank(I, w, 2, 2, "weight") < 0)
        return -1;
    if (x->dtype != DT_F16 && x->dtype != DT_BF16)
        return infer__fail(I, "x must have dtype float16 or bfloat16, got %s", dtype_name(x->dtype));
    if (w->dtype != DT_I8)
        return infer__fail(I, "weight must have dtype int8, got %s", dtype_name(w->dtype));
    if (I->attr[0] < 0)
        return infer__fail(I, "antiquant_group_size must be >= 0, got %lld", (long long)I->attr[0]);
    Shape sx = infer__shape_of(x), sw = infer__shape_of(w);
    DimId k = sx.d[1], n = sw.d[1];
    if (infer__contract(I, k, sw.d[0], &sx, &sw) < 0 ||
        infer__antiquant_param(I, infer__in(I, 2), x, k, n, "antiquant_scale") < 0)
        return -1;
    if (infer__antiquant_param(I, infer__in(I, 3), x, k, n, "antiquant_offset") < 0)
        return -1;
    if (b && b->dtype != DT_F32 && b->dtype != x->dtype)
        return infer__fail(I, "bias must have dtype float32 or x's, got %s", dtype_name(b->dtype));
    if (b && !((b->ndim == 1 && dim__same(I->g, b->dims[0], n) >= 0) ||
               (b->ndim == 2 && dim__is(I->g, b->dims[0], 1) && dim__same(I->g, b->dims[1], n) >= 0)))
        return infer__fail(I, "bias must be [%s] or [1, %s]", infer__dim_text(I, 0, n), infer__dim_text(I, 1, n));
    Shape out = {2, {sx.d[0], n}};
    return infer__out(I, &out);
}

/* y, scale = torch_npu.npu_dequant_swiglu_quant(x[..., 2h], ...):
 * y int8 [..., h], scale float32 [...] */
int infer_dequant_swiglu_quant(Infer *I)
{
    const Val *x = infer__in(I, 0);
    if (infer__rank(I, x, 1, GRAPH_MAX_DIMS, "input") < 0)
        return -1;
    for (uint32_t i = 0; i < I->d->nattr; i++)
        if (I->attr[i] != 0 && I->attr[i] != 1)
            return infer__fail(I, "%s must be 0 or 1, got %lld",
                               i ? "quant_mode" : "activate_left", (long long)I->attr[i]);
    Shape s = infer__shape_of(x);
    DimId half;
    if (infer__half(I, s.d[s.n - 1], s.n - 1, &half) < 0)
        return -1;
    s.d[s.n - 1] = half;
    if (infer__out(I, &s) < 0)
        return -1;
    s.n--;
    return infer__out(I, &s);
}

/* torch_npu.npu_swiglu(x, dim): that dim halved */
int infer_swiglu(Infer *I)
{
    const Val *x = infer__in(I, 0);
    int64_t dim = I->attr[0];
    if (infer__dim(I, dim, x->ndim) < 0 || infer__float_input(I, x) < 0)
        return -1;
    Shape s = infer__shape_of(x);
    if (infer__half(I, s.d[dim], (int)dim, &s.d[dim]) < 0)
        return -1;
    return infer__out(I, &s);
}

/* dst.copy_(src): src broadcasts to dst; the result is dst's new version */
int infer_copy(Infer *I)
{
    const Val *dst = infer__in(I, 0), *src = infer__in(I, 1);
    Shape sd = infer__shape_of(dst), ss = infer__shape_of(src);
    if (infer__expand(I, &ss, &sd) < 0)
        return -1;
    return infer__out(I, &sd);
}

/* dst[:, start:end] = src: src broadcasts to the slice */
int infer_slice_store(Infer *I)
{
    const Val *dst = infer__in(I, 0), *src = infer__in(I, 1);
    Shape slice, ss = infer__shape_of(src), sd = infer__shape_of(dst);
    if (infer__slice_shape(I, dst, &slice) < 0 || infer__expand(I, &ss, &slice) < 0)
        return -1;
    return infer__out(I, &sd);
}

/* ===================================================================== */
/* graph_add_op                                                          */
/* ===================================================================== */

/* Each kind's shape rule and dtype rule, from its row of ops.def (NULL:
 * graph_add_op does not add the kind). */
typedef struct InferRules {
    int (*shape)(Infer *I);
    int (*dtype)(Infer *I);
} InferRules;

#define infer_none NULL
#define dtype_none NULL
static const InferRules infer_rule[OP__count] = {
#define OP(e, name, flags, in_min, in_max, in_opt, attr_min, attr_max, rule, dtype_rule, rowrule, printer, fusion, op_type, view, layout, swap, acl_form, cpu, cpu_scalar, acl, acl_ts, acl_st, attrs) \
    [OP_##e] = {infer_##rule, dtype_##dtype_rule},
#include "ops.def"
#undef OP
};
#undef dtype_none
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
            Shape s = infer__shape_of(v);
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
    return (unsigned)kind < OP__count && infer_rule[kind].shape && infer_rule[kind].dtype;
}

int32_t graph_add_op(Graph *self, const OpDesc *d)
{
    Infer I = {0};
    I.g = self;
    I.d = d;
    self->error.len = 0;
    if (self->error.s)
        self->error.s[0] = '\0';
    I.op = (unsigned)d->kind < OP__count ? op_info[d->kind].name : "op";
    size_t nchecks = self->checks.n;
    uint64_t overflows = self->overflows;
    int rc;
    if (!graph_op_has_rule(d->kind))
        rc = infer__fail(&I, "not an op that graph_add_op adds");
    else
        rc = infer__validate(&I, &op_info[d->kind]);
    if (rc == 0)
        rc = infer_rule[d->kind].shape(&I);
    if (rc == 0)
        rc = infer_rule[d->kind].dtype(&I);
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
