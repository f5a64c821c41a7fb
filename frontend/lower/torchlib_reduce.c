/*
 * torchlib_reduce.c - the torch library (torchlib.c), reductions, sorting and contractions: topk, sort, max, argmax, prod, cumsum, var, norm, outer, baddbmm, einsum.
 * Each lowering (lo_*) is under the Python signature it lowers; its lib[]
 * row is in torchlib.c; helpers shared across the library are declared
 * in torchlib_core.h and torchlib_int.h.
 */
#include "torchlib.h"
#include "torchlib_int.h"

/* ---- lowerings: reductions, sorting, contractions ---- */

/* The (values, indices) named tuple of op's two outputs (torch.return_types). */
static Obj *values_indices(Interp *I, int32_t op)
{
    static const char *const names[2] = {"values", "indices"};
    if (op < 0)
        return obj_unknown_reported(I);   /* interp_op reported */
    Obj *items[2] = {tl_op_out(I, op, 0), tl_op_out(I, op, 1)};
    return obj_named_tuple(I, items, names, 2);
}

/* A bool argument known at compile time into *v (def when absent); 0 after
 * a diagnostic. */
static int flag_arg(Interp *I, const Obj *o, int32_t node, const char *what, int def, int64_t *v)
{
    if (!tl_known(I, o, node, what))
        return 0;
    *v = obj_flag(o, def);
    return 1;
}

/* A dim argument (def when absent or None) normalised for value x. */
static int line_dim(Interp *I, const Obj *o, int32_t x, int32_t node, const char *what, int64_t def,
                    int64_t *out)
{
    if (is_none(o))
        return tl_norm_dim(I, def, rank_of(I, x), node, out);
    return tl_dim_arg(I, o, rank_of(I, x), node, what, out);
}

/* value x flattened to one dim (a RESHAPE to [-1]). */
static int32_t flat_of(Interp *I, int32_t x, int32_t node)
{
    int64_t infer = GRAPH_INFER;
    Obj *f = tl_emit_x(I, OP_RESHAPE, x, &infer, 1, 0, DT_UNKNOWN, node);
    return tl_tv(I, f, node);
}

/* torch.topk(input, k, dim=-1, largest=True, sorted=True) | x.topk(k, ...)
 * -> (values, indices). sorted=False gives them sorted too (a valid answer:
 * torch leaves the order unspecified). */
Obj *lo_topk(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    Obj *k = P(c, "k");
    int64_t attr[4];
    if (!tl_const_int(I, k, c->node, "topk's k", &attr[1]) ||
        !line_dim(I, P(c, "dim"), x, c->node, "topk's dim", -1, &attr[0]) ||
        !flag_arg(I, P(c, "largest"), c->node, "largest=", 1, &attr[2]) ||
        !flag_arg(I, P(c, "sorted"), c->node, "sorted=", 1, &attr[3]))
        return unk(I);
    return values_indices(I, tl_emit(I, OP_TOPK, &x, 1, attr, 4, 0, 0, DT_UNKNOWN, c->node));
}

/* torch.sort(input, dim=-1, descending=False, stable=False) -> (values,
 * indices) | torch.argsort(input, dim=-1, descending=False, stable=False):
 * equal values keep their order whatever stable says (the order is total). */
Obj *lo_sort(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int64_t attr[3];
    if (!line_dim(I, P(c, "dim"), x, c->node, "the sort dim", -1, &attr[0]) ||
        !flag_arg(I, P(c, "descending"), c->node, "descending=", 0, &attr[1]) ||
        !flag_arg(I, P(c, "stable"), c->node, "stable=", 0, &attr[2]))
        return unk(I);
    if (c->arg == OP_ARGSORT)
        return tl_emit1(I, OP_ARGSORT, &x, 1, attr, 2, 0, 0, DT_UNKNOWN, c->node);
    return values_indices(I, tl_emit(I, OP_SORT, &x, 1, attr, 3, 0, 0, DT_UNKNOWN, c->node));
}

/* torch.max(input) | torch.max(input, dim, keepdim=False) -> (values,
 * indices) | torch.max(input, other) | the same for min; c->arg is OP_AMAX
 * or OP_AMIN (the full reduction's kind). */
Obj *lo_max(Interp *I, Call *c)
{
    int is_min = c->arg == OP_AMIN;
    /* the overload of (input, other) or of (input, dim, keepdim): the
     * argument's value decides */
    Obj *dim = P_if(c, "dim");
    if (!dim)
        dim = P_if(c, "other");
    if (is_tensor(dim)) {   /* torch.max(a, b): elementwise */
        Call two = *c;
        two.arg = is_min ? OP_MINIMUM : OP_MAXIMUM;
        return tl_two_tensors(I, &two);
    }
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int64_t attr[2] = {0, 0};
    if (is_none(dim)) {
        if (c->ov == 2 && PA(c, "keepdim"))
            return interp_break(I, c->node, RULE_TNG203, "%s with keepdim= but no dim", c->full);
        return tl_emit_x(I, (OpKind)c->arg, x, attr, 1, 0, DT_UNKNOWN, c->node);
    }
    if (!tl_dim_arg(I, dim, rank_of(I, x), c->node, "the reduction dim", &attr[0]) ||
        !flag_arg(I, P_if(c, "keepdim"), c->node, "keepdim=", 0, &attr[1]))
        return unk(I);
    return values_indices(I, tl_emit(I, is_min ? OP_MIN_DIM : OP_MAX_DIM, &x, 1, attr, 2, 0, 0, DT_UNKNOWN,
                                     c->node));
}

/* torch.argmax(input, dim=None, keepdim=False) | argmin: no dim = the
 * flattened tensor (keepdim then gives every dim 1, as torch does). */
Obj *lo_argmax(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    Obj *dim = P(c, "dim");
    int64_t attr[2] = {0, 0}, keep;
    if (!flag_arg(I, P(c, "keepdim"), c->node, "keepdim=", 0, &keep))
        return unk(I);
    if (!is_none(dim)) {
        attr[1] = keep;
        if (!tl_dim_arg(I, dim, rank_of(I, x), c->node, "the reduction dim", &attr[0]))
            return unk(I);
        return tl_emit_x(I, (OpKind)c->arg, x, attr, 2, 0, DT_UNKNOWN, c->node);
    }
    int n = rank_of(I, x);
    int32_t flat = flat_of(I, x, c->node);
    if (flat < 0)
        return unk(I);
    Obj *r = tl_emit_x(I, (OpKind)c->arg, flat, attr, 2, 0, DT_UNKNOWN, c->node);
    int32_t rv = tl_tv(I, r, c->node);
    if (!keep || rv < 0 || n == 0)
        return r;
    DimId ones[GRAPH_MAX_DIMS];
    for (int i = 0; i < n; i++)
        ones[i] = graph_dim_const(G(I), 1);
    return tl_reshape_to(I, rv, ones, n, c->node);
}

/* torch.prod(input, dim, keepdim=False, dtype=None) | torch.prod(input,
 * dtype=None): no dim = the flattened tensor's one dim (so the op always
 * has exactly one, as aclnnProdDim takes). */
Obj *lo_prod(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    Obj *dim = P(c, "dim");
    DType dt;
    int64_t attr[2] = {0, 0};
    if (!tl_dtype_arg(I, P(c, "dtype"), c->node, &dt))
        return unk(I);
    if (dim && tl_dtype_of_obj(dim) != DT_UNKNOWN) {   /* x.prod(torch.float32) */
        dt = tl_dtype_of_obj(dim);
        dim = NULL;
    }
    if (is_none(dim)) {
        if ((x = flat_of(I, x, c->node)) < 0)
            return unk(I);
    } else if (!tl_dim_arg(I, dim, rank_of(I, x), c->node, "the prod dim", &attr[1]) ||
               !flag_arg(I, P(c, "keepdim"), c->node, "keepdim=", 0, &attr[0])) {
        return unk(I);
    }
    return tl_emit_x(I, OP_PROD, x, attr, 2, 0, dt, c->node);
}

/* torch.cumsum(input, dim, dtype=None) | x.cumsum(dim, dtype=None) */
Obj *lo_cumsum(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    DType dt;
    int64_t d;
    if (!tl_dim_arg(I, P(c, "dim"), rank_of(I, x), c->node, "the cumsum dim", &d) ||
        !tl_dtype_arg(I, P(c, "dtype"), c->node, &dt))
        return unk(I);
    return tl_emit_x(I, OP_CUMSUM, x, &d, 1, 0, dt, c->node);
}

/* The dims argument of var/std/norm into attr (attr[0] keepdim, then the
 * dims; none: every dim) and *count the number of elements each result
 * reduces, which must be the same in every gear. 0 after a diagnostic. */
static int stat_dims(Interp *I, Call *c, int32_t x, Obj *dim, Obj *kd, int64_t *attr, uint32_t *na,
                     int64_t *count)
{
    const Val *v = val_at(I, x);
    uint8_t red[GRAPH_MAX_DIMS] = {0};
    *na = 1;
    if (!flag_arg(I, kd, c->node, "keepdim=", 0, &attr[0]))
        return 0;
    if (!is_none(dim)) {
        Obj *const *items = is_seq(dim) ? dim->items : &dim;
        size_t cnt = is_seq(dim) ? dim->n : 1;
        if (cnt > GRAPH_MAX_DIMS) {
            interp_break(I, c->node, RULE_TNG206, "too many reduction dims");
            return 0;
        }
        for (size_t k = 0; k < cnt; k++) {
            if (!tl_dim_arg(I, items[k], v->ndim, c->node, "a reduction dim", &attr[*na]))
                return 0;
            red[v->ndim ? attr[*na] : 0] = 1;
            (*na)++;
        }
    }
    *count = 1;
    for (int d = 0; d < v->ndim; d++) {
        int64_t size;
        if (*na > 1 && !red[d])
            continue;
        if (!graph_dim_const_value(G(I), v->dims[d], &size)) {
            interp_break(I, c->node, RULE_TNG203, "%s over dim %d, whose size differs between gears "
                         "(a reduction over a constant-size dim is supported)", c->full, d);
            return 0;
        }
        *count *= size;
    }
    return 1;
}

/* x as a float32 tensor for a statistic of a half-precision x (computed in
 * float32 and rounded once, as PyTorch's CPU does); x itself else. */
static Obj *stat_input(Interp *I, Obj *x, DType dt, int32_t node)
{
    return dt == DT_F16 || dt == DT_BF16 ? tl_cast_to(I, x, DT_F32, node) : x;
}

/* torch.var(input, dim=None, unbiased=True, keepdim=False) | torch.var(
 * input, dim, *, correction=1, keepdim=False) | x.std(...): c->arg 1 for
 * std. Lowered to mean, sub, mul, sum, div (and sqrt) in float32. */
Obj *lo_var(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    Obj *dim = P(c, "dim"), *unb = P(c, "unbiased"), *corr = P(c, "correction");
    if (dim && dim->kind == O_BOOL) {   /* torch.var(x, False): unbiased first */
        unb = dim;
        dim = NULL;
    }
    DType dt = val_at(I, x)->dtype;
    if (!dtype_is_float(dt))
        return interp_break(I, c->node, RULE_TNG203, "%s of a %s tensor (a floating point one is supported)",
                            c->full, dtype_name(dt));
    int64_t attr[GRAPH_MAX_DIMS + 1], count, cor;
    uint32_t na;
    if (!stat_dims(I, c, x, dim, P(c, "keepdim"), attr, &na, &count))
        return unk(I);
    if (corr && !is_none(corr)) {
        if (!tl_const_int(I, corr, c->node, "correction=", &cor))
            return unk(I);
    } else {
        if (!flag_arg(I, unb, c->node, "unbiased=", 1, &cor))
            return unk(I);
    }
    Obj *xf = stat_input(I, P0(c), dt, c->node);
    int32_t xv = tl_tv(I, xf, c->node);
    if (xv < 0)
        return unk(I);
    int64_t kattr[GRAPH_MAX_DIMS + 1];
    memcpy(kattr, attr, na * sizeof kattr[0]);
    kattr[0] = 1;
    Obj *mean = tl_emit_x(I, OP_MEAN, xv, kattr, na, 0, DT_UNKNOWN, c->node);
    Obj *d = tl_arith(I, OP_SUB, xf, mean, 1.0, c->node, c->full);
    int32_t sq = tl_tv(I, tl_arith(I, OP_MUL, d, d, 1.0, c->node, c->full), c->node);
    if (sq < 0)
        return unk(I);
    Obj *s = tl_emit_x(I, OP_SUM, sq, attr, na, 0, DT_UNKNOWN, c->node);
    double dof = count - cor > 0 ? (double)(count - cor) : 0.0;
    Obj *r = tl_arith(I, OP_DIV, s, obj_float(I, dof), 1.0, c->node, c->full);
    if (c->arg == 1) {
        int32_t rv = tl_tv(I, r, c->node);
        if (rv < 0)
            return unk(I);
        r = tl_emit_x(I, OP_SQRT, rv, NULL, 0, 0, DT_UNKNOWN, c->node);
    }
    return is_tensor(r) ? tl_cast_to(I, r, dt, c->node) : r;
}

/* The vector p-norm of tensor x (p 2, 1, inf or -inf) over attr's dims,
 * in float32, as dtype out_dt; NULL after a diagnostic. */
static Obj *vector_norm(Interp *I, Call *c, Obj *x, double p, const int64_t *attr, uint32_t na,
                        DType out_dt)
{
    DType dt = is_tensor(x) ? val_at(I, tl_tv(I, x, c->node))->dtype : DT_UNKNOWN;
    Obj *xf = stat_input(I, x, dt, c->node);
    int32_t xv = tl_tv(I, xf, c->node), t;
    if (xv < 0)
        return NULL;
    if (p == 2.0) {
        t = tl_tv(I, tl_arith(I, OP_MUL, xf, xf, 1.0, c->node, c->full), c->node);
        if (t < 0)
            return NULL;
        t = tl_tv(I, tl_emit_x(I, OP_SUM, t, attr, na, 0, DT_UNKNOWN, c->node), c->node);
        if (t < 0)
            return NULL;
        xf = tl_emit_x(I, OP_SQRT, t, NULL, 0, 0, DT_UNKNOWN, c->node);
    } else {
        t = tl_tv(I, tl_emit_x(I, OP_ABS, xv, NULL, 0, 0, DT_UNKNOWN, c->node), c->node);
        if (t < 0)
            return NULL;
        OpKind k = p == 1.0 ? OP_SUM : p > 0 ? OP_AMAX : OP_AMIN;
        xf = tl_emit_x(I, k, t, attr, na, 0, DT_UNKNOWN, c->node);
    }
    return is_tensor(xf) ? tl_cast_to(I, xf, out_dt, c->node) : NULL;
}

/* The order of a norm: a number or 'fro' (2 for vectors); 0 after a
 * diagnostic naming it when it is not 1, 2, inf or -inf. */
static int norm_order(Interp *I, Call *c, Obj *o, double *p)
{
    *p = 2.0;
    if (is_none(o) || obj_is_str(o, "fro"))
        return 1;
    if (!tl_known(I, o, c->node, "the norm's order"))
        return 0;
    double v;
    int is_int;
    if (tl_py_number(o, &v, &is_int) && (v == 1.0 || v == 2.0 || isinf(v))) {
        *p = v;
        return 1;
    }
    interp_break(I, c->node, RULE_TNG203, "%s with p (ord) other than 1, 2, inf, -inf or 'fro' "
                 "is not supported", c->full);
    return 0;
}

/* torch.norm(input, p='fro', dim=None, keepdim=False, dtype=None) |
 * x.norm(p, dim, keepdim) | torch.linalg.vector_norm(x, ord=2, dim=None,
 * keepdim=False, dtype=None): vector norms, lowered to abs/mul, sum or
 * amax/amin, sqrt in float32. */
Obj *lo_norm(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    DType dt = val_at(I, x)->dtype, want;
    double p;
    Obj *po = P_at(c, 1);   /* p (torch.linalg.vector_norm: ord) */
    if (!dtype_is_float(dt))
        return interp_break(I, c->node, RULE_TNG203, "%s of a %s tensor (a floating point one is supported)",
                            c->full, dtype_name(dt));
    int64_t attr[GRAPH_MAX_DIMS + 1], count;
    uint32_t na;
    if (!norm_order(I, c, po, &p) || !tl_dtype_arg(I, P(c, "dtype"), c->node, &want) ||
        !stat_dims(I, c, x, P(c, "dim"), P(c, "keepdim"), attr, &na, &count))
        return unk(I);
    Obj *r = vector_norm(I, c, P0(c), p, attr, na, want ? want : dt);
    return r ? r : unk(I);
}

/* F.normalize(input, p=2.0, dim=1, eps=1e-12): x / norm(x, p, dim,
 * keepdim=True).clamp_min(eps), the norm rounded to x's dtype first, as
 * PyTorch computes it. */
Obj *lo_normalize(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    DType dt = val_at(I, x)->dtype;
    double p;
    Obj *dim = P(c, "dim"), *eps = P(c, "eps");
    if (!dtype_is_float(dt))
        return interp_break(I, c->node, RULE_TNG203, "%s of a %s tensor (a floating point one is supported)",
                            c->full, dtype_name(dt));
    if (!norm_order(I, c, P(c, "p"), &p) || !tl_known(I, eps, c->node, "eps"))
        return unk(I);
    int64_t attr[2] = {1, 1};
    if (!line_dim(I, dim, x, c->node, "the normalize dim", 1, &attr[1]))
        return unk(I);
    Obj *n = vector_norm(I, c, P0(c), p, attr, 2, dt);
    int32_t nv = n ? tl_tv(I, n, c->node) : -1;
    if (nv < 0)
        return unk(I);
    int64_t float_bound = 0;
    Obj *den = tl_emit_x(I, OP_CLAMP_MIN, nv, &float_bound, 1, tl_float_arg(eps, 1e-12), DT_UNKNOWN, c->node);
    return tl_arith(I, OP_DIV, P0(c), den, 1.0, c->node, c->full);
}

/* The tensor parameter name of c as a value; -1 after a diagnostic
 * (silent for an unknown). */
static int32_t tensor_at(Interp *I, Call *c, const char *name)
{
    Obj *o = P(c, name);
    if (is_tensor(o))
        return tl_tv(I, o, c->node);
    if (!is_unknown(o))
        interp_break(I, c->node, RULE_TNG203, "%s expects a tensor %s", c->full, name);
    return -1;
}

/* torch.outer(input, vec2) | x.outer(vec2) | torch.ger: input[:, None] *
 * vec2[None, :] (both 1-d). */
Obj *lo_outer(Interp *I, Call *c)
{
    int32_t a = tl_x0(I, c), b = a < 0 ? -1 : tensor_at(I, c, "vec2");
    if (a < 0 || b < 0)
        return unk(I);
    if (rank_of(I, a) != 1 || rank_of(I, b) != 1)
        return interp_break(I, c->node, RULE_TNG203, "%s expects two 1-d tensors", c->full);
    DimId one = graph_dim_const(G(I), 1);
    DimId da[2] = {val_at(I, a)->dims[0], one}, db[2] = {one, val_at(I, b)->dims[0]};
    Obj *ca = tl_reshape_to(I, a, da, 2, c->node), *rb = tl_reshape_to(I, b, db, 2, c->node);
    return tl_arith(I, OP_MUL, ca, rb, 1.0, c->node, c->full);
}

/* torch.baddbmm(input, batch1, batch2, *, beta=1, alpha=1) |
 * x.baddbmm(b1, b2): beta * input + alpha * bmm(batch1, batch2), input
 * ignored when beta is 0; half types computed in float32 and rounded once. */
Obj *lo_baddbmm(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c), b1 = x < 0 ? -1 : tensor_at(I, c, "batch1");
    int32_t b2 = b1 < 0 ? -1 : tensor_at(I, c, "batch2");
    if (b2 < 0)
        return unk(I);
    double beta = 1, alpha = 1;
    Obj *bo = P(c, "beta"), *ao = P(c, "alpha");
    if ((bo && !obj_num_value(bo, &beta)) || (ao && !obj_num_value(ao, &alpha)))
        return interp_break(I, c->node, RULE_TNG205, "beta and alpha must be numbers known at compile time");
    DType dt = val_at(I, b1)->dtype;
    Obj *m1 = stat_input(I, P(c, "batch1"), dt, c->node);
    Obj *m2 = stat_input(I, P(c, "batch2"), dt, c->node);
    int32_t in[2] = {tl_tv(I, m1, c->node), tl_tv(I, m2, c->node)};
    if (in[0] < 0 || in[1] < 0)
        return unk(I);
    Obj *r = tl_emit1(I, OP_BMM, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
    if (alpha != 1.0)
        r = tl_arith(I, OP_MUL, r, obj_float(I, alpha), 1.0, c->node, c->full);
    if (beta != 0.0) {
        Obj *t = stat_input(I, P0(c), val_at(I, x)->dtype, c->node);
        if (beta != 1.0)
            t = tl_arith(I, OP_MUL, t, obj_float(I, beta), 1.0, c->node, c->full);
        r = tl_arith(I, OP_ADD, t, r, 1.0, c->node, c->full);
    }
    return is_tensor(r) ? tl_cast_to(I, r, dt, c->node) : r;
}

/* ---- einsum ---- */

/* One einsum term: a tensor value and a letter per dim. */
typedef struct EinTerm {
    int32_t v;
    char sub[GRAPH_MAX_DIMS + 1];
    int n;
} EinTerm;

/* Parses one subscript (letters and at most one "...", which stands for the
 * ndim - letters leading... dims, named by the digits '0'..) into t->sub;
 * ell is the number of dims "..." stands for (-1: given by the tensor's
 * rank). 0 when it is not one einsum lowers. */
static int ein_parse(const char *s, size_t len, int ndim, int *ell, char *out, int *n)
{
    int letters = 0, dots = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '.') {
            if (dots || i + 2 >= len || s[i + 1] != '.' || s[i + 2] != '.')
                return 0;
            dots = 1;
            i += 2;
        } else if ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')) {
            letters++;
        } else if (s[i] != ' ') {
            return 0;
        }
    }
    int e = 0;
    if (dots) {
        e = ndim >= 0 ? ndim - letters : *ell;
        if (e < 0 || (*ell >= 0 && e != *ell))
            return 0;
        *ell = e;
    }
    *n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == ' ')
            continue;
        if (s[i] == '.') {
            for (int k = 0; k < e; k++) {
                if (*n >= GRAPH_MAX_DIMS)
                    return 0;
                out[(*n)++] = (char)('0' + k);
            }
            i += 2;
            continue;
        }
        if (*n >= GRAPH_MAX_DIMS || memchr(out, s[i], (size_t)*n))
            return 0;   /* too many dims, or a repeated letter (a diagonal) */
        out[(*n)++] = s[i];
    }
    out[*n] = 0;
    return ndim < 0 || *n == ndim;
}

/* A PERMUTE of term t to the letters of `order` (a permutation of them). */
static int ein_permute(Interp *I, EinTerm *t, const char *order, int32_t node)
{
    int64_t perm[GRAPH_MAX_DIMS];
    int ident = 1;
    for (int i = 0; i < t->n; i++) {
        perm[i] = (const char *)memchr(t->sub, order[i], (size_t)t->n) - t->sub;
        ident &= perm[i] == i;
    }
    if (!ident) {
        t->v = tl_tv(I, tl_emit_x(I, OP_PERMUTE, t->v, perm, (uint32_t)t->n, 0, DT_UNKNOWN, node), node);
        memcpy(t->sub, order, (size_t)t->n);
    }
    return t->v >= 0;
}

/* Sums term t over its letters not in keep. */
static int ein_sum_out(Interp *I, EinTerm *t, const char *keep, int32_t node)
{
    int64_t attr[GRAPH_MAX_DIMS + 1] = {0};
    uint32_t na = 1;
    char rest[GRAPH_MAX_DIMS + 1];
    int m = 0;
    for (int i = 0; i < t->n; i++) {
        if (strchr(keep, t->sub[i]))
            rest[m++] = t->sub[i];
        else
            attr[na++] = i;
    }
    if (na == 1)
        return 1;
    rest[m] = 0;
    t->v = tl_tv(I, tl_emit_x(I, OP_SUM, t->v, attr, na, 0, DT_UNKNOWN, node), node);
    memcpy(t->sub, rest, (size_t)m + 1);
    t->n = m;
    return t->v >= 0;
}

/* The product of the dims of value v from dim lo to hi (exclusive). */
static DimId ein_prod(Interp *I, int32_t v, int lo, int hi)
{
    DimId p = graph_dim_const(G(I), 1);
    for (int i = lo; i < hi; i++)
        p = graph_dim_mul(G(I), p, val_at(I, v)->dims[i]);
    return p;
}

/* a and b contracted into one term whose letters are `keep`'s that a or b
 * has (in the order batch, a's, b's): a batched matmul. 1, or 0 after a
 * diagnostic, or -1 when the result would have too many dims. */
static int ein_pair(Interp *I, EinTerm *a, EinTerm *b, const char *keep, EinTerm *out, int32_t node)
{
    /* letters only one side has and nobody needs: summed out first */
    char ka[GRAPH_MAX_DIMS * 9 + 2], kb[GRAPH_MAX_DIMS * 9 + 2];   /* keep (up to 7 terms) + a term */
    snprintf(ka, sizeof ka, "%s%s", keep, b->sub);
    snprintf(kb, sizeof kb, "%s%s", keep, a->sub);
    char bat[GRAPH_MAX_DIMS + 1], am[GRAPH_MAX_DIMS + 1], bn[GRAPH_MAX_DIMS + 1], k[GRAPH_MAX_DIMS + 1];
    int nb = 0, nm = 0, nn = 0, nk = 0;
    for (int i = 0; i < a->n; i++) {
        char ch = a->sub[i];
        int inb = memchr(b->sub, ch, (size_t)b->n) != NULL, kept = strchr(keep, ch) != NULL;
        if (inb && kept)
            bat[nb++] = ch;
        else if (inb)
            k[nk++] = ch;
        else
            am[nm++] = ch;
    }
    for (int i = 0; i < b->n; i++)
        if (!memchr(a->sub, b->sub[i], (size_t)a->n))
            bn[nn++] = b->sub[i];
    if (nb + 2 > GRAPH_MAX_DIMS || nb + nm + nn > GRAPH_MAX_DIMS)
        return -1;
    if (!ein_sum_out(I, a, ka, node) || !ein_sum_out(I, b, kb, node))
        return 0;
    char oa[GRAPH_MAX_DIMS + 1], ob[GRAPH_MAX_DIMS + 1];
    memcpy(oa, bat, (size_t)nb), memcpy(oa + nb, am, (size_t)nm), memcpy(oa + nb + nm, k, (size_t)nk);
    memcpy(ob, bat, (size_t)nb), memcpy(ob + nb, k, (size_t)nk), memcpy(ob + nb + nk, bn, (size_t)nn);
    if (!ein_permute(I, a, oa, node) || !ein_permute(I, b, ob, node))
        return 0;
    /* [batch..., M, K] @ [batch..., K, N] */
    DimId da[GRAPH_MAX_DIMS], db[GRAPH_MAX_DIMS], dr[GRAPH_MAX_DIMS];
    for (int i = 0; i < nb; i++)
        da[i] = db[i] = dr[i] = val_at(I, a->v)->dims[i];
    da[nb] = ein_prod(I, a->v, nb, nb + nm), da[nb + 1] = ein_prod(I, a->v, nb + nm, a->n);
    db[nb] = ein_prod(I, b->v, nb, nb + nk), db[nb + 1] = ein_prod(I, b->v, nb + nk, b->n);
    for (int i = 0; i < nm; i++)
        dr[nb + i] = val_at(I, a->v)->dims[nb + i];
    for (int i = 0; i < nn; i++)
        dr[nb + nm + i] = val_at(I, b->v)->dims[nb + nk + i];
    int32_t in[2] = {tl_tv(I, tl_reshape_to(I, a->v, da, nb + 2, node), node),
                     tl_tv(I, tl_reshape_to(I, b->v, db, nb + 2, node), node)};
    if (in[0] < 0 || in[1] < 0)
        return 0;
    int32_t m = tl_tv(I, tl_emit1(I, nb ? OP_MATMUL : OP_MM, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, node), node);
    if (m < 0)
        return 0;
    out->v = tl_tv(I, tl_reshape_to(I, m, dr, nb + nm + nn, node), node);
    out->n = nb + nm + nn;
    memcpy(out->sub, bat, (size_t)nb), memcpy(out->sub + nb, am, (size_t)nm);
    memcpy(out->sub + nb + nm, bn, (size_t)nn);
    out->sub[out->n] = 0;
    return out->v >= 0;
}

/* torch.einsum(equation, *operands) | torch.einsum(equation, [operands]):
 * equations over at most 6 operands with distinct letters per operand
 * (no diagonals), "..." allowed, an explicit or implicit output; lowered
 * to sums, permutes, reshapes and (batched) matmuls, operands contracted
 * left to right. Anything else is TNG203 naming the equation. */
Obj *lo_einsum(Interp *I, Call *c)
{
    enum { EIN_MAX = 6 };
    Obj *eq = P(c, "equation"), *opo = P(c, "operands");
    if (!eq || eq->kind != O_STR)
        return is_unknown(eq) ? unk(I) : interp_break(I, c->node, RULE_TNG205, "einsum's equation must be a "
                                                      "string known at compile time");
    /* the operands: several (a tuple), or one: a tensor, or a list of them */
    Obj *const *ops = is_seq(opo) ? opo->items : &opo;
    size_t nops = is_seq(opo) ? opo->n : 1;
    if (nops == 1 && is_seq(ops[0])) {
        nops = ops[0]->n;
        ops = ops[0]->items;
    }
    const char *s = eq->s, *arrow = strstr(s, "->");
    if (nops < 1 || nops > EIN_MAX)
        return interp_break(I, c->node, RULE_TNG203, "einsum \"%s\" with %zu operands (1 to %d are supported)",
                            s, nops, EIN_MAX);
    size_t nsub = 1;
    for (const char *q = s; *q && q != arrow; q++)
        nsub += *q == ',';
    if (nsub != nops)
        return interp_break(I, c->node, RULE_TNG203, "einsum \"%s\" has %zu operand subscripts for %zu operands",
                            s, nsub, nops);
    EinTerm t[EIN_MAX];
    int ell = -1;
    const char *at = s, *end = arrow ? arrow : s + strlen(s);
    for (size_t i = 0; i < nops; i++) {
        if (!is_tensor(ops[i]))
            return is_unknown(ops[i]) ? unk(I) : interp_break(I, c->node, RULE_TNG203,
                                                              "einsum operand %zu is not a tensor", i);
        if ((t[i].v = tl_tv(I, ops[i], c->node)) < 0)
            return unk(I);
        const char *comma = memchr(at, ',', (size_t)(end - at));
        const char *stop = comma && i + 1 < nops ? comma : end;
        if ((i + 1 < nops && !comma) || (i + 1 == nops && comma) ||
            !ein_parse(at, (size_t)(stop - at), rank_of(I, t[i].v), &ell, t[i].sub, &t[i].n))
            return interp_break(I, c->node, RULE_TNG203, "einsum \"%s\": only equations whose operands each "
                                "have distinct letters, one per dim (and at most one \"...\"), are supported", s);
        at = stop + 1;
    }
    char out[GRAPH_MAX_DIMS + 1] = "";
    int nout = 0;
    if (arrow) {
        if (!ein_parse(arrow + 2, strlen(arrow + 2), -1, &ell, out, &nout))
            return interp_break(I, c->node, RULE_TNG203, "einsum \"%s\": the output subscript is not supported", s);
        for (int i = 0; i < nout; i++) {
            int found = 0;
            for (size_t k = 0; k < nops && !found; k++)
                found = memchr(t[k].sub, out[i], (size_t)t[k].n) != NULL;
            if (!found)
                return interp_break(I, c->node, RULE_TNG203, "einsum \"%s\": output letter '%c' is in no operand",
                                    s, out[i]);
        }
    } else {   /* implicit: "..." dims, then the letters seen once, sorted */
        for (int k = 0; k < (ell > 0 ? ell : 0); k++)
            out[nout++] = (char)('0' + k);
        for (int ch = 'A'; ch <= 'z' && nout < GRAPH_MAX_DIMS; ch++) {
            int seen = 0;
            for (size_t k = 0; k < nops; k++)
                seen += memchr(t[k].sub, ch, (size_t)t[k].n) != NULL;
            if (seen == 1 && ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')))
                out[nout++] = (char)ch;
        }
        out[nout] = 0;
    }
    EinTerm acc = t[0];
    for (size_t i = 1; i < nops; i++) {
        /* the letters still needed: the output's and the later operands' */
        char keep[GRAPH_MAX_DIMS * (EIN_MAX + 1) + 1];
        size_t kl = 0;
        memcpy(keep, out, (size_t)nout), kl = (size_t)nout;
        for (size_t k = i + 1; k < nops; k++)
            memcpy(keep + kl, t[k].sub, (size_t)t[k].n), kl += (size_t)t[k].n;
        keep[kl] = 0;
        EinTerm r;
        int ok = ein_pair(I, &acc, &t[i], keep, &r, c->node);
        if (ok < 0)
            return interp_break(I, c->node, RULE_TNG203, "einsum \"%s\": an intermediate result would have "
                                "more than %d dims", s, GRAPH_MAX_DIMS);
        if (ok == 0)
            return unk(I);   /* reported */
        acc = r;
    }
    if (!ein_sum_out(I, &acc, out, c->node) || acc.n != nout)
        return unk(I);
    if (!ein_permute(I, &acc, out, c->node))
        return unk(I);
    return obj_tensor(I, acc.v);
}

/* ---- lowerings: reductions, softmax, norms, embedding ---- */

/* x.sum(dim=None, keepdim=False, dtype=None) | torch.mean(x, dim) |
 * x.amax(dim=(), keepdim=False): dim an int, a tuple/list, or None (all) */
Obj *lo_reduce(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int n = rank_of(I, x);
    Obj *dim = P_if(c, "dim"), *kd = P(c, "keepdim");
    if (!dim)   /* the overload of numpy's name */
        dim = P_if(c, "axis");
    DType dt = DT_UNKNOWN;
    if (!tl_dtype_arg(I, P_if(c, "dtype"), c->node, &dt))
        return unk(I);
    if (dim && tl_dtype_of_obj(dim) != DT_UNKNOWN) {   /* x.sum(torch.float32) */
        dt = tl_dtype_of_obj(dim);
        dim = NULL;
    }
    int64_t attr[GRAPH_MAX_DIMS + 1];
    uint32_t na = 1;
    if (!tl_known(I, kd, c->node, "keepdim="))
        return unk(I);
    attr[0] = obj_flag(kd, 0);
    if (!is_none(dim)) {
        Obj *const *items = is_seq(dim) ? dim->items : &dim;
        size_t cnt = is_seq(dim) ? dim->n : 1;
        if (cnt > GRAPH_MAX_DIMS)
            return interp_break(I, c->node, RULE_TNG206, "too many reduction dims");
        for (size_t k = 0; k < cnt; k++) {
            int64_t d;
            if (!tl_const_int(I, items[k], c->node, "a reduction dim", &d))
                return unk(I);
            if (n == 0 && (d == 0 || d == -1)) {
                attr[na++] = 0;
                continue;
            }
            if (!tl_norm_dim(I, d, n, c->node, &attr[na]))
                return unk(I);
            na++;
        }
        if (cnt == 0 && c->arg != OP_AMAX)   /* sum(dim=()) is every dim too */
            na = 1;
    }
    return tl_emit_x(I, (OpKind)c->arg, x, attr, na, 0, dt, c->node);
}

/* x.softmax(dim, dtype=None) | torch.softmax(x, dim) | F.softmax(x, dim=None,
 * _stacklevel=3, dtype=None) | F.log_softmax(...) | x.log_softmax(dim) */
Obj *lo_softmax(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    Obj *dim = P(c, "dim"), *dto = P(c, "dtype");
    DType dt;
    if (!tl_dtype_arg(I, dto, c->node, &dt))
        return unk(I);
    if (is_none(dim))
        return interp_break(I, c->node, RULE_TNG205, "%s without dim= (the implicit dim is deprecated)",
                            c->full);
    int64_t d;
    int n = rank_of(I, x);
    if (!tl_dim_arg(I, dim, n, c->node, "the softmax dim", &d))
        return unk(I);
    /* dtype=: "the input is cast to dtype before the operation" (PyTorch's
     * documentation): a CAST, then the softmax in that dtype (ACL's
     * aclnnSoftmax keeps its input's dtype) */
    if (dt != DT_UNKNOWN && val_at(I, x)->dtype != dt) {
        int32_t op = tl_emit(I, OP_CAST, &x, 1, NULL, 0, 0, 0, dt, c->node);
        if (op < 0)
            return obj_unknown_reported(I);
        x = G(I)->ops.v[op].out;
    }
    return tl_emit_x(I, (OpKind)c->arg, x, &d, 1, 0, dt, c->node);
}

/* The number of dims of a normalized_shape (an int, or a tuple/list of ints). */
static int norm_shape_rank(Interp *I, Obj *ns, int32_t node, int64_t *k)
{
    int64_t v;
    if (is_seq(ns)) {
        for (size_t i = 0; i < ns->n; i++)
            if (!tl_const_int(I, ns->items[i], node, "normalized_shape", &v))
                return 0;
        *k = (int64_t)ns->n;
        return 1;
    }
    if (!tl_const_int(I, ns, node, "normalized_shape", &v))
        return 0;
    *k = 1;
    return 1;
}

/* F.tl_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5) */
Obj *lo_layer_norm(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int64_t k;
    if (!norm_shape_rank(I, P(c, "normalized_shape"), c->node, &k))
        return unk(I);
    int32_t w = tl_opt_tensor(I, P(c, "weight"), c->node, "weight");
    int32_t b = tl_opt_tensor(I, P(c, "bias"), c->node, "bias");
    if (w < -1 || b < -1 || !tl_known(I, P(c, "eps"), c->node, "eps"))
        return unk(I);
    return tl_layer_norm(I, x, k, w, b, tl_float_arg(P(c, "eps"), 1e-5), c->node);
}

/* F.embedding(input, weight, padding_idx=None, ...) */
Obj *lo_embedding(Interp *I, Call *c)
{
    int32_t ids = tl_x0(I, c);
    Obj *w = P(c, "weight");
    if (ids < 0)
        return unk(I);
    int32_t in[2] = {tl_tv(I, w, c->node), ids};
    if (in[0] < 0) {
        if (!is_unknown(w))
            interp_break(I, c->node, RULE_TNG203, "embedding expects a weight tensor");
        return unk(I);
    }
    Obj *mn = P(c, "max_norm");
    if (!is_none(mn))
        return interp_break(I, c->node, RULE_TNG203, "embedding with max_norm (it renormalises the weight in place)");
    return tl_emit1(I, OP_EMBEDDING, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
}

/* torch_npu.npu_rms_norm(x, gamma, epsilon=1e-6) -> (y, rstd) */
Obj *lo_rms_norm(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    Obj *g = P(c, "gamma");
    if (x < 0)
        return unk(I);
    int32_t in[2] = {x, tl_tv(I, g, c->node)};
    if (in[1] < 0) {
        if (!is_unknown(g))
            interp_break(I, c->node, RULE_TNG203, "npu_rms_norm expects a gamma tensor");
        return unk(I);
    }
    if (!tl_known(I, P(c, "epsilon"), c->node, "epsilon"))
        return unk(I);
    int32_t op = tl_emit(I, OP_RMS_NORM, in, 2, NULL, 0, tl_float_arg(P(c, "epsilon"), 1e-6), 0,
                         DT_UNKNOWN, c->node);
    if (op < 0)
        return obj_unknown_reported(I);   /* interp_op reported */
    Obj *items[2] = {tl_op_out(I, op, 0), tl_op_out(I, op, 1)};
    return obj_tuple(I, items, 2);
}
