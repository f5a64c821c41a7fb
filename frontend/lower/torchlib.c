/*
 * torchlib.c - the torch library of the abstract interpreter.
 *
 * The evaluator (eval.c) comes here whenever it meets a torch function
 * (torch.*, torch.nn.functional.*, torch_npu.*), a tensor method, an nn
 * module (construction or call), or an operator / subscript on a tensor.
 * Every tensor operation becomes an op of the current graph
 * (interp_graph): the host graph in host mode (constant dims: it only
 * computes shapes), the entry's graph while tracing a compiled method.
 * Shape and dtype inference is graph.c's; this file maps the Python
 * surface onto the op kinds of graph.h, following its input/attribute
 * conventions.
 *
 * Rules: every Obj is checked for its kind before use. An unknown tensor
 * operand gives an unknown result silently (it echoes an earlier
 * diagnostic: no cascades); an unknown size, dim, index, slice bound or
 * other value the plan needs is TNG205 where it is used (interp_break: a
 * diagnostic while tracing, silent in host mode). Constructs outside the
 * compilable subset are graph breaks with a TNG2xx rule; torchlib_call
 * returns NULL only for names it does not know (the caller reports them).
 *
 * Layout: this file has the helpers; dtypes; tensor arguments; the
 * lowering functions (lo_*) of arithmetic, products, views and reshapes,
 * reductions and norms, torch_npu's norms, in-place updates, casts and
 * queries, creation, each under the Python signature it lowers; the name
 * table `lib`; the entry points; operators; subscripts. The other
 * families' lowerings are in torchlib_<family>.c (shape, compare, reduce,
 * index, nn, npu), the nn modules (the table `nn_modules`: class,
 * constructor, forward) in torchlib_modules.c; what the files share is
 * declared in torchlib_int.h.
 */

#include "torchlib.h"
#include "torchlib_int.h"

/* ===================================================================== */
/* Small helpers                                                         */
/* ===================================================================== */

/* Value id of tensor o in the current graph, or -1. */
int32_t tl_tv(Interp *I, Obj *o, int32_t node)
{
    if (!is_tensor(o))
        return -1;
    int32_t v = interp_val(I, o, node);
    if (v < 0 || (size_t)v >= G(I)->vals.n)
        return -1;
    return v;
}

/* Adds an op; returns its id or -1 (interp_op reported). */
int32_t tl_emit(Interp *I, OpKind kind, const int32_t *in, uint32_t nin, const int64_t *attr,
                uint32_t nattr, double f0, double f1, DType dt, int32_t node)
{
    return interp_emit(I, kind, in, nin, attr, nattr, f0, f1, dt, node);
}

/* Output k of op as a tensor object; when op < 0 (interp_op has reported
 * why) an unknown already reported, so that its uses stay quiet. */
Obj *tl_op_out(Interp *I, int32_t op, int k)
{
    if (op < 0)
        return obj_unknown_reported(I);
    Graph *g = G(I);
    return obj_tensor(I, g->ops.v[op].out + k);
}

/* emit + op_out for single-output ops. */
Obj *tl_emit1(Interp *I, OpKind kind, const int32_t *in, uint32_t nin, const int64_t *attr,
              uint32_t nattr, double f0, double f1, DType dt, int32_t node)
{
    return tl_op_out(I, tl_emit(I, kind, in, nin, attr, nattr, f0, f1, dt, node), 0);
}

/* A one-input op on value x. */
Obj *tl_emit_x(Interp *I, OpKind kind, int32_t x, const int64_t *attr, uint32_t nattr,
               double f0, DType dt, int32_t node)
{
    return tl_emit1(I, kind, &x, 1, attr, nattr, f0, 0, dt, node);
}

/* Normalises dim d for a rank-n tensor into *out (0 <= *out < n; a 0-d
 * tensor accepts 0 and -1). Reports TNG206 when out of range. */
int tl_norm_dim(Interp *I, int64_t d, int n, int32_t node, int64_t *out)
{
    int m = n > 0 ? n : 1;
    if (d < -m || d >= m) {
        interp_break(I, node, RULE_TNG206, "dimension %lld is out of range for a %d-d tensor",
                     (long long)d, n);
        return 0;
    }
    *out = d < 0 ? d + m : d;
    return 1;
}

/* A constant int argument: 1 and *v; 0 after reporting TNG205 (silently
 * for an unknown value). */
int tl_const_int(Interp *I, const Obj *o, int32_t node, const char *what, int64_t *v)
{
    if (obj_int_value(o, v))
        return 1;
    if (o && o->kind == O_DIM) {
        int64_t c;
        if (graph_dim_const_value(G(I), o->dim, &c)) {
            *v = c;
            return 1;
        }
    }
    if (obj_reported(o))
        ;   /* its cause has been reported */
    else if (is_unknown(o))
        interp_break(I, node, RULE_TNG205, "%s is not known at compile time%s", what, interp_unknown_origin(I, o, node));
    else
        interp_break(I, node, RULE_TNG205, "%s must be an int known at compile time", what);
    return 0;
}

/* 1 when o is tl_known (or absent); else TNG205 (a value the plan needs). */
int tl_known(Interp *I, const Obj *o, int32_t node, const char *what)
{
    if (!obj_has_unknown(o))
        return 1;
    if (!obj_reported(o))   /* else its cause has been reported */
        interp_break(I, node, RULE_TNG205, "%s is not known at compile time%s", what, interp_unknown_origin(I, o, node));
    return 0;
}

/* A dim argument normalised for a rank-n tensor. */
int tl_dim_arg(Interp *I, const Obj *o, int n, int32_t node, const char *what, int64_t *out)
{
    int64_t d;
    return tl_const_int(I, o, node, what, &d) && tl_norm_dim(I, d, n, node, out);
}

/* A Python number (int, bool, float): 1, *v and *is_int. */
int tl_py_number(const Obj *o, double *v, int *is_int)
{
    if (!o)
        return 0;
    if (o->kind == O_INT || o->kind == O_BOOL) {
        *v = (double)o->i;
        *is_int = 1;
        return 1;
    }
    if (o->kind == O_FLOAT) {
        *v = o->f;
        *is_int = 0;
        return 1;
    }
    return 0;
}

/* A float argument (absent or not a number: def). */
double tl_float_arg(const Obj *o, double def)
{
    double v;
    return obj_num_value(o, &v) ? v : def;
}

/* ===================================================================== */
/* dtypes                                                                */
/* ===================================================================== */

/* The dtype o stands for: an O_DTYPE, or a builtin named "torch.float16"
 * (also "torch.half", "torch.long", ...). DT_UNKNOWN otherwise. */
DType tl_dtype_of_obj(const Obj *o)
{
    if (!o)
        return DT_UNKNOWN;
    if (o->kind == O_DTYPE)
        return o->dtype;
    if (o->kind == O_BUILTIN && o->s && strncmp(o->s, "torch.", 6) == 0 && !strchr(o->s + 6, '.'))
        return dtype_from_torch_name(o->s + 6);
    return DT_UNKNOWN;
}

static Obj *obj_dtype(Interp *I, DType dt)
{
    Obj *o = obj_new(I, O_DTYPE);
    o->dtype = dt;
    return o;
}

/* A dtype= argument: 1 with *dt (DT_UNKNOWN when absent or None); 0 after
 * a diagnostic when it is not a dtype tngc knows. */
int tl_dtype_arg(Interp *I, const Obj *o, int32_t node, DType *dt)
{
    *dt = DT_UNKNOWN;
    if (is_none(o))
        return 1;
    *dt = tl_dtype_of_obj(o);
    if (*dt != DT_UNKNOWN)
        return 1;
    if (!tl_known(I, o, node, "the dtype"))
        return 0;
    interp_break(I, node, RULE_TNG203, "dtype not supported (float32, float16, bfloat16, int8, "
                     "int32, int64 and bool are)");
    return 0;
}

/* CAST of tensor x to dt; x itself when it already has that dtype. */
Obj *tl_cast_to(Interp *I, Obj *x, DType dt, int32_t node)
{
    int32_t v = tl_tv(I, x, node);
    if (v < 0)
        return unk(I);
    if (val_at(I, v)->dtype == dt)
        return x;
    return tl_emit_x(I, OP_CAST, v, NULL, 0, 0, dt, node);
}

/* ===================================================================== */
/* Tensor arguments                                                      */
/* ===================================================================== */

/* The value of the tensor operand, or -1 after a diagnostic. */
int32_t tl_x0(Interp *I, const Call *c)
{
    Obj *o = ARG0(c);
    if (!is_tensor(o)) {
        if (!is_unknown(o))
            interp_break(I, c->node, RULE_TNG203, "%s expects a tensor operand", c->full);
        return -1;
    }
    return tl_tv(I, o, c->node);
}

/* The dims of value v into d (returns the rank). */
int tl_dims_of(Interp *I, int32_t v, DimId *d)
{
    const Val *x = val_at(I, v);
    for (int i = 0; i < x->ndim; i++)
        d[i] = x->dims[i];
    return x->ndim;
}

/* Tensors of a tuple/list argument (or of pos[from..] when seq is NULL)
 * into vals; returns the count, or -1 after a diagnostic (silently when an
 * item is unknown). */
int tl_tensor_list(Interp *I, Obj *seq, int32_t node, const char *what, int32_t *vals, int max)
{
    if (!is_seq(seq)) {
        if (!is_unknown(seq))
            interp_break(I, node, RULE_TNG203, "%s expects a tuple or list of tensors", what);
        return -1;
    }
    if ((int)seq->n > max) {
        interp_break(I, node, RULE_TNG212, "%s of more than %d tensors", what, max);
        return -1;
    }
    for (size_t i = 0; i < seq->n; i++) {
        Obj *t = seq->items[i];
        if (is_unknown(t))
            return -1;
        if (!is_tensor(t)) {
            interp_break(I, node, RULE_TNG203, "%s expects tensors, item %zu is not one", what, i);
            return -1;
        }
        if ((vals[i] = tl_tv(I, t, node)) < 0)
            return -1;
    }
    return (int)seq->n;
}

/* A size (one dim of a shape) into *d: an int or symbolic int; -1 gives
 * GRAPH_INFER when allowed. 0 after a diagnostic. */
int tl_size_item(Interp *I, const Obj *o, int32_t node, int allow_infer, int64_t *d)
{
    int64_t c;
    if (!tl_known(I, o, node, "a size"))
        return 0;
    if (allow_infer && obj_int_value(o, &c) && c == -1) {
        *d = GRAPH_INFER;
        return 1;
    }
    if (obj_int_value(o, &c) && c < 0) {
        interp_break(I, node, RULE_TNG206, "invalid size %lld", (long long)c);
        return 0;
    }
    DimId id = obj_as_dim(I, o);
    if (id < 0) {
        interp_break(I, node, RULE_TNG205, "a size must be an int (or a dim of a tensor)");
        return 0;
    }
    *d = id;
    return 1;
}

/* Sizes given as varargs pos[from..] or as one tuple/list there (or as the
 * keyword kw). Returns the count, or -1 after a diagnostic. */
int tl_sizes_arg(Interp *I, CallArgs *a, size_t from, const char *kw, int32_t node, int allow_infer,
                 int64_t *out)
{
    Obj *const *items;
    size_t n;
    Obj *one = from < a->npos ? a->pos[from] : kw ? args_kw(a, kw) : NULL;
    if (one && is_seq(one) && (from >= a->npos || a->npos == from + 1)) {
        items = one->items;
        n = one->n;
    } else if (from < a->npos) {
        items = a->pos + from;
        n = a->npos - from;
    } else {
        items = NULL;
        n = 0;
    }
    if (n > GRAPH_MAX_DIMS) {
        interp_break(I, node, RULE_TNG206, "a shape of %zu dims (at most %d)", n, GRAPH_MAX_DIMS);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (!tl_size_item(I, items[i], node, allow_infer, &out[i]))
            return -1;
    return (int)n;
}

/* A RESHAPE of value x to dims d[0..n). */
Obj *tl_reshape_to(Interp *I, int32_t x, const DimId *d, int n, int32_t node)
{
    int64_t attr[GRAPH_MAX_DIMS];
    for (int i = 0; i < n; i++)
        attr[i] = d[i];
    return tl_emit_x(I, OP_RESHAPE, x, attr, (uint32_t)n, 0, DT_UNKNOWN, node);
}

/* A PERMUTE of value x; no op for the identity permutation. */
Obj *tl_permute_of(Interp *I, Obj *self, int32_t x, const int64_t *perm, int n, int32_t node)
{
    int ident = 1;
    for (int i = 0; i < n; i++)
        ident &= perm[i] == i;
    if (ident && self)
        return self;
    return tl_emit_x(I, OP_PERMUTE, x, perm, (uint32_t)n, 0, DT_UNKNOWN, node);
}

/* A SLICE of value x on dim (normalised). */
Obj *tl_slice_of(Interp *I, int32_t x, int64_t dim, int64_t start, int64_t end, int64_t step, int32_t node)
{
    int64_t attr[4] = {dim, start, end, step};
    return tl_emit_x(I, OP_SLICE, x, attr, 4, 0, DT_UNKNOWN, node);
}

/* x with a size-1 dim inserted at position dim (0..rank). */
Obj *tl_unsqueeze_at(Interp *I, int32_t x, int64_t dim, int32_t node)
{
    DimId d[GRAPH_MAX_DIMS + 1];
    int n = tl_dims_of(I, x, d);
    if (n >= GRAPH_MAX_DIMS) {
        interp_break(I, node, RULE_TNG206, "a tensor of more than %d dims", GRAPH_MAX_DIMS);
        return unk(I);
    }
    memmove(&d[dim + 1], &d[dim], (size_t)(n - dim) * sizeof d[0]);
    d[dim] = graph_dim_const(G(I), 1);
    return tl_reshape_to(I, x, d, n + 1, node);
}

/* The transpose of the last two dims (mT), or of a 2-d/1-d tensor (T, t()). */
Obj *tl_transpose_last2(Interp *I, Obj *self, int32_t x, int32_t node)
{
    int n = rank_of(I, x);
    if (n < 2)
        return self;
    int64_t perm[GRAPH_MAX_DIMS];
    for (int i = 0; i < n; i++)
        perm[i] = i;
    perm[n - 2] = n - 1;
    perm[n - 1] = n - 2;
    return tl_permute_of(I, self, x, perm, n, node);
}

/* ===================================================================== */
/* Elementwise arithmetic                                                */
/* ===================================================================== */

/* A scalar operand of tensor arithmetic: a Python number, or a symbolic
 * int that is constant. 1 and *v; 0 when o is not one (nothing reported);
 * -1 after a diagnostic. */
int tl_scalar_operand(Interp *I, const Obj *o, int32_t node, double *v, int *is_int)
{
    if (tl_py_number(o, v, is_int))
        return 1;
    if (o && o->kind == O_DIM) {
        int64_t c;
        if (graph_dim_const_value(G(I), o->dim, &c)) {
            *v = (double)c;
            *is_int = 1;
            return 1;
        }
        interp_break(I, node, RULE_TNG205, "a symbolic int (a dynamic dim) as a scalar operand of "
                     "tensor arithmetic is not supported");
        return -1;
    }
    return 0;
}

/* l op r for ADD SUB MUL DIV with at least one tensor operand; alpha
 * scales r (add/sub). */
Obj *tl_arith(Interp *I, OpKind kind, Obj *l, Obj *r, double alpha, int32_t node, const char *what)
{
    if (is_unknown(l) || is_unknown(r))
        return unk(I);
    double sv;
    int si;
    if (is_tensor(l) && is_tensor(r)) {
        int32_t in[2] = {tl_tv(I, l, node), tl_tv(I, r, node)};
        if (in[0] < 0 || in[1] < 0)
            return unk(I);
        int64_t attr[1] = {0};
        return tl_emit1(I, kind, in, 2, attr, 1, 0, alpha, DT_UNKNOWN, node);
    }
    int tl = is_tensor(l);
    Obj *t = tl ? l : r, *sc = tl ? r : l;
    if (!is_tensor(t))
        return interp_break(I, node, RULE_TNG203, "%s without a tensor operand", what);
    int k = tl_scalar_operand(I, sc, node, &sv, &si);
    if (k < 0)
        return unk(I);
    if (k == 0)
        return interp_break(I, node, RULE_TNG203, "%s of a tensor and a non-number", what);
    int32_t x = tl_tv(I, t, node);
    if (x < 0)
        return unk(I);
    /* 1 / t (the RoPE inv_freq idiom) is reciprocal(t): the same correctly
     * rounded quotient, and an op the ACL target maps (no aclnn operator
     * divides a scalar by a tensor) */
    if (kind == OP_DIV && !tl && sv == 1.0)
        return tl_emit_x(I, OP_RECIPROCAL, x, NULL, 0, 0, DT_UNKNOWN, node);
    int64_t attr[2] = {tl ? 1 : 2, si};
    return tl_emit1(I, kind, &x, 1, attr, 2, sv, alpha, DT_UNKNOWN, node);
}

/* torch.add(input, other, alpha=1) | x.add(other) | x.sub(...) | x.mul(other)
 * | x.div(other) | torch.true_divide(input, other) */
static Obj *lo_arith(Interp *I, Call *c)
{
    Obj *l = ARG0(c), *r = ARG(c, 1, "other");
    if (!r)
        return interp_break(I, c->node, RULE_TNG203, "%s needs two operands", c->full);
    double alpha = 1;
    Obj *al = args_kw(c->a, "alpha");
    if (al && !obj_num_value(al, &alpha))
        return interp_break(I, c->node, RULE_TNG205, "alpha must be a number known at compile time");
    if (alpha != 1 && c->arg != OP_ADD && c->arg != OP_SUB)
        return interp_break(I, c->node, RULE_TNG203, "alpha= of %s", c->full);
    Obj *rm = args_kw(c->a, "rounding_mode");
    if (rm && !is_none(rm))
        return interp_break(I, c->node, RULE_TNG203, "%s with rounding_mode", c->full);
    return tl_arith(I, (OpKind)c->arg, l, r, alpha, c->node, c->full);
}

/* x ** e | torch.pow(x, e) | x.pow(e): pow for a number exponent, pow_tensor
 * (a binary op) for a tensor one, whatever the base */
static Obj *pow_of(Interp *I, Obj *x, Obj *e, int32_t node)
{
    double ev;
    int ei;
    if (is_unknown(x) || is_unknown(e))
        return unk(I);
    if (is_tensor(e))   /* a tensor exponent: pow_tensor, as a binary op */
        return tl_arith(I, OP_POW_T, x, e, 1, node, "pow");
    if (!is_tensor(x))
        return interp_break(I, node, RULE_TNG203, "pow without a tensor operand");
    int k = tl_scalar_operand(I, e, node, &ev, &ei);
    if (k < 0)
        return unk(I);
    if (k == 0)
        return interp_break(I, node, RULE_TNG203, "pow with an exponent that is neither a number nor a tensor");
    int32_t v = tl_tv(I, x, node);
    if (v < 0)
        return unk(I);
    return tl_emit_x(I, OP_POW, v, NULL, 0, ev, DT_UNKNOWN, node);
}

static Obj *lo_pow(Interp *I, Call *c)
{
    Obj *e = ARG(c, 1, "exponent");
    if (!e)
        return interp_break(I, c->node, RULE_TNG203, "pow needs an exponent");
    return pow_of(I, ARG0(c), e, c->node);
}

/* F.relu(x, inplace=True) | nn.ReLU(inplace=True)(x): the result is
 * written into x, so every alias of x sees it (as PyTorch's in-place op). */
Obj *tl_inplace_result(Interp *I, Obj *x, Obj *r, const Obj *inplace, int32_t node)
{
    if (!inplace || !((inplace->kind == O_BOOL || inplace->kind == O_INT) && inplace->i) ||
        !x || x->kind != O_TENSOR || !r || r->kind != O_TENSOR || r->t->g != G(I))
        return r;
    return views_write(I, x, r->t->value, node, "an inplace=True activation");
}

/* torch.neg(x) | x.exp() | F.relu(x) | torch.sigmoid(x) | F.silu(x) | ... */
static Obj *lo_unary(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    Obj *r = tl_emit_x(I, (OpKind)c->arg, x, NULL, 0, 0, DT_UNKNOWN, c->node);
    return tl_inplace_result(I, ARG0(c), r, ARG(c, 1, "inplace"), c->node);
}

/* torch.round(x, *, decimals=0) | x.round(): to the nearest integer, halves
 * to even; other decimals are not compiled */
static Obj *lo_round(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    int64_t d = 0;
    Obj *dec = args_kw(c->a, "decimals");
    if (x < 0)
        return unk(I);
    if (dec && !is_none(dec) && !tl_const_int(I, dec, c->node, "round's decimals=", &d))
        return unk(I);
    if (d != 0)
        return interp_break(I, c->node, RULE_TNG203, "round with decimals=%lld (only 0 is compiled)",
                            (long long)d);
    return tl_emit_x(I, OP_ROUND, x, NULL, 0, 0, DT_UNKNOWN, c->node);
}

/* A number argument known at compile time: *v (def when absent); 0 after
 * TNG205. */
int tl_num_arg(Interp *I, const Obj *o, double def, int32_t node, const char *what, double *v)
{
    *v = def;
    if (!o || obj_num_value(o, v))
        return 1;
    if (!obj_reported(o))
        interp_break(I, node, RULE_TNG205, "%s must be a number known at compile time", what);
    return 0;
}

/* softplus(x, beta, threshold) on value x */
Obj *tl_softplus_of(Interp *I, int32_t x, const Obj *beta, const Obj *threshold, int32_t node)
{
    double b, t;
    if (!tl_num_arg(I, beta, 1.0, node, "softplus's beta", &b) ||
        !tl_num_arg(I, threshold, 20.0, node, "softplus's threshold", &t))
        return unk(I);
    if (b == 0)
        return interp_break(I, node, RULE_TNG203, "softplus with beta=0");
    return tl_emit1(I, OP_SOFTPLUS, &x, 1, NULL, 0, b, t, DT_UNKNOWN, node);
}

/* F.softplus(input, beta=1, threshold=20) */
static Obj *lo_softplus(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    return tl_softplus_of(I, x, ARG(c, 1, "beta"), ARG(c, 2, "threshold"), c->node);
}

/* F.leaky_relu(input, negative_slope=0.01, inplace=False) */
static Obj *lo_leaky_relu(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    double s;
    if (x < 0 || !tl_num_arg(I, ARG(c, 1, "negative_slope"), 0.01, c->node, "leaky_relu's negative_slope", &s))
        return unk(I);
    Obj *r = tl_emit_x(I, OP_LEAKY_RELU, x, NULL, 0, s, DT_UNKNOWN, c->node);
    return tl_inplace_result(I, ARG0(c), r, ARG(c, 2, "inplace"), c->node);
}

/* A clamp bound: 0 absent (None), 1 a Python number (*v, *is_int), -1
 * after a diagnostic */
static int clamp_bound(Interp *I, const Obj *o, Call *c, double *v, int *is_int)
{
    if (is_none(o))
        return 0;
    if (tl_py_number(o, v, is_int))
        return 1;
    if (is_tensor(o))
        interp_break(I, c->node, RULE_TNG203, "%s with a tensor bound (only Python numbers are compiled)", c->full);
    else if (!obj_reported(o))
        interp_break(I, c->node, RULE_TNG205, "%s's bound must be a number known at compile time", c->full);
    return -1;
}

/* torch.clamp(input, min=None, max=None) | torch.clip | x.clamp(...) |
 * torch.clamp_min(input, min) | torch.clamp_max(input, max) */
static Obj *lo_clamp(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    double lo = 0, hi = 0;
    int lo_int = 1, hi_int = 1, has_lo = 0, has_hi = 0;
    if (x < 0)
        return unk(I);
    if (c->arg != OP_CLAMP_MAX && (has_lo = clamp_bound(I, ARG(c, 1, "min"), c, &lo, &lo_int)) < 0)
        return unk(I);
    if (c->arg == OP_CLAMP && (has_hi = clamp_bound(I, ARG(c, 2, "max"), c, &hi, &hi_int)) < 0)
        return unk(I);
    if (c->arg == OP_CLAMP_MAX && (has_hi = clamp_bound(I, ARG(c, 1, "max"), c, &hi, &hi_int)) < 0)
        return unk(I);
    if (!has_lo && !has_hi)
        return interp_break(I, c->node, RULE_TNG203, "%s needs a min or a max", c->full);
    int64_t int_bounds = (!has_lo || lo_int) && (!has_hi || hi_int);
    if (has_lo && has_hi)
        return tl_emit1(I, OP_CLAMP, &x, 1, &int_bounds, 1, lo, hi, DT_UNKNOWN, c->node);
    return tl_emit1(I, has_lo ? OP_CLAMP_MIN : OP_CLAMP_MAX, &x, 1, &int_bounds, 1, has_lo ? lo : hi, 0,
                    DT_UNKNOWN, c->node);
}

/* The op c->arg of input 0 and the tensor argument 1 (called `name`). */
Obj *tl_two_tensors(Interp *I, Call *c, const char *name)
{
    Obj *b = ARG(c, 1, name);
    int32_t in[2] = {tl_x0(I, c), -1};
    if (in[0] < 0)
        return unk(I);
    if (!is_tensor(b)) {
        if (!is_unknown(b))
            interp_break(I, c->node, RULE_TNG203, "%s expects two tensors", c->full);
        return unk(I);
    }
    if ((in[1] = tl_tv(I, b, c->node)) < 0)
        return unk(I);
    return tl_emit1(I, (OpKind)c->arg, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
}

/* torch.maximum(input, other) | x.minimum(other): two tensors */
static Obj *lo_maximum(Interp *I, Call *c)
{
    return tl_two_tensors(I, c, "other");
}

/* F.gelu(input, approximate='none') */
static Obj *lo_gelu(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    Obj *ap = ARG(c, 1, "approximate");
    int64_t tanh_mode = 0;
    if (!tl_known(I, ap, c->node, "approximate="))
        return unk(I);
    if (ap && !is_none(ap)) {
        if (ap->kind == O_STR && streq(ap->s, "tanh"))
            tanh_mode = 1;
        else if (!(ap->kind == O_STR && streq(ap->s, "none")))
            return interp_break(I, c->node, RULE_TNG203, "gelu approximate= must be 'none' or 'tanh'");
    }
    return tl_emit_x(I, OP_GELU, x, &tanh_mode, 1, 0, DT_UNKNOWN, c->node);
}

/* ===================================================================== */
/* Matrix products                                                       */
/* ===================================================================== */

/* torch.mm(a, b) | torch.bmm(a, b) | torch.matmul(a, b) | a.mm(b) ... */
static Obj *lo_mm(Interp *I, Call *c)
{
    return tl_two_tensors(I, c, c->arg == OP_MATMUL ? "other" : "mat2");
}

/* torch.addmm(input, mat1, mat2, *, beta=1, alpha=1) | bias.addmm(m1, m2) */
static Obj *lo_addmm(Interp *I, Call *c)
{
    Obj *m1 = ARG(c, 1, "mat1"), *m2 = ARG(c, 2, "mat2");
    int32_t in[3] = {tl_x0(I, c), tl_tv(I, m1, c->node), tl_tv(I, m2, c->node)};
    if (in[0] < 0)
        return unk(I);
    if (in[1] < 0 || in[2] < 0) {
        if (!is_unknown(m1) && !is_unknown(m2))
            interp_break(I, c->node, RULE_TNG203, "addmm expects three tensors");
        return unk(I);
    }
    double beta = 1, alpha = 1;
    Obj *b = args_kw(c->a, "beta"), *al = args_kw(c->a, "alpha");
    if ((b && !obj_num_value(b, &beta)) || (al && !obj_num_value(al, &alpha)))
        return interp_break(I, c->node, RULE_TNG205, "beta and alpha must be numbers known at compile time");
    return tl_emit1(I, OP_ADDMM, in, 3, NULL, 0, beta, alpha, DT_UNKNOWN, c->node);
}

/* F.linear(input, weight, bias=None) */
static Obj *lo_linear(Interp *I, Call *c)
{
    Obj *w = ARG(c, 1, "weight"), *b = ARG(c, 2, "bias");
    int32_t in[3] = {tl_x0(I, c), tl_tv(I, w, c->node), -1};
    if (in[0] < 0)
        return unk(I);
    if (in[1] < 0) {
        if (!is_unknown(w))
            interp_break(I, c->node, RULE_TNG203, "linear expects a weight tensor");
        return unk(I);
    }
    if (!is_none(b) && (in[2] = tl_tv(I, b, c->node)) < 0) {
        if (!is_unknown(b))
            interp_break(I, c->node, RULE_TNG203, "linear expects a bias tensor or None");
        return unk(I);
    }
    return tl_emit1(I, OP_LINEAR, in, 3, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
}

/* ===================================================================== */
/* Shapes                                                                */
/* ===================================================================== */

/* x.view(*shape) | x.reshape(*shape) | x.view(shape) | torch.reshape(x, shape) */
static Obj *lo_reshape(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    Obj *d1 = ARG(c, 1, "dtype");
    if (c->a->npos == 2 && tl_dtype_of_obj(d1) != DT_UNKNOWN)
        return interp_break(I, c->node, RULE_TNG203, "view(dtype) reinterprets memory");
    int64_t attr[GRAPH_MAX_DIMS];
    int n = tl_sizes_arg(I, c->a, 1, "shape", c->node, 1, attr);
    if (n < 0)
        return unk(I);
    return tl_emit_x(I, OP_RESHAPE, x, attr, (uint32_t)n, 0, DT_UNKNOWN, c->node);
}

/* x.view_as(other) | x.reshape_as(other) */
static Obj *lo_reshape_as(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c), o = tl_tv(I, ARG(c, 1, "other"), c->node);
    if (x < 0 || o < 0)
        return unk(I);
    DimId d[GRAPH_MAX_DIMS];
    int n = tl_dims_of(I, o, d);
    return tl_reshape_to(I, x, d, n, c->node);
}

/* x.transpose(dim0, dim1) | torch.transpose(x, dim0, dim1) | x.swapaxes(a, b) */
static Obj *lo_transpose(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int n = rank_of(I, x);
    int64_t d0, d1;
    if (!tl_dim_arg(I, ARG(c, 1, "dim0"), n, c->node, "a transpose dim", &d0) ||
        !tl_dim_arg(I, ARG(c, 2, "dim1"), n, c->node, "a transpose dim", &d1))
        return unk(I);
    if (n == 0)
        return ARG0(c);
    int64_t perm[GRAPH_MAX_DIMS];
    for (int i = 0; i < n; i++)
        perm[i] = i;
    perm[d0] = d1;
    perm[d1] = d0;
    return tl_permute_of(I, ARG0(c), x, perm, n, c->node);
}

/* x.permute(*dims) | x.permute(dims) | torch.permute(x, dims) */
static Obj *lo_permute(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int n = rank_of(I, x);
    Obj *const *items;
    size_t cnt;
    Obj *one = c->a->npos > 1 ? c->a->pos[1] : args_kw(c->a, "dims");
    if (!tl_known(I, one, c->node, "the permutation"))
        return unk(I);
    if (one && is_seq(one) && c->a->npos <= 2) {
        items = one->items;
        cnt = one->n;
    } else {
        items = c->a->npos > 1 ? c->a->pos + 1 : NULL;
        cnt = c->a->npos > 1 ? c->a->npos - 1 : 0;
    }
    if ((int)cnt != n)
        return interp_break(I, c->node, RULE_TNG206, "permute of a %d-d tensor with %zu dims", n, cnt);
    int64_t perm[GRAPH_MAX_DIMS];
    for (size_t i = 0; i < cnt; i++)
        if (!tl_dim_arg(I, items[i], n, c->node, "a permute dim", &perm[i]))
            return unk(I);
    return tl_permute_of(I, ARG0(c), x, perm, n, c->node);
}

/* x.t() | torch.t(x): 0-d and 1-d tensors are returned as they are */
static Obj *lo_t(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    if (rank_of(I, x) > 2)
        return interp_break(I, c->node, RULE_TNG206, "t() expects a tensor of at most 2 dims");
    return tl_transpose_last2(I, ARG0(c), x, c->node);
}

/* x.contiguous() */
static Obj *lo_contiguous(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    return tl_emit_x(I, OP_CONTIGUOUS, x, NULL, 0, 0, DT_UNKNOWN, c->node);
}

/* x.clone() | torch.clone(x): a copy, so that in-place writes into it
 * leave x alone */
static Obj *lo_clone(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    if (!interp_tracing(I))
        return ARG0(c);   /* host tensors are shapes only */
    return tl_emit_x(I, OP_CLONE, x, NULL, 0, 0, DT_UNKNOWN, c->node);
}

/* x.unsqueeze(dim) | torch.unsqueeze(x, dim) */
static Obj *lo_unsqueeze(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int64_t d;
    if (!tl_dim_arg(I, ARG(c, 1, "dim"), rank_of(I, x) + 1, c->node, "the unsqueeze dim", &d))
        return unk(I);
    return tl_unsqueeze_at(I, x, d, c->node);
}

/* x.squeeze() | x.squeeze(dim) | x.squeeze((d0, d1)) | torch.squeeze(x, dim) */
static Obj *lo_squeeze(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    DimId d[GRAPH_MAX_DIMS];
    int n = tl_dims_of(I, x, d);
    uint8_t drop[GRAPH_MAX_DIMS] = {0};
    Obj *dim = ARG(c, 1, "dim");
    if (is_none(dim)) {
        for (int i = 0; i < n; i++) {
            int64_t v;
            if (graph_dim_const_value(G(I), d[i], &v))
                drop[i] = v == 1;
            else
                return interp_break(I, c->node, RULE_TNG205, "squeeze() of a tensor with a dynamic dim: "
                                    "name the dims to squeeze");
        }
    } else {
        Obj *const *items = is_seq(dim) ? dim->items : &dim;
        size_t cnt = is_seq(dim) ? dim->n : 1;
        for (size_t k = 0; k < cnt; k++) {
            int64_t i, v;
            if (!tl_dim_arg(I, items[k], n, c->node, "the squeeze dim", &i))
                return unk(I);
            if (n == 0)
                continue;
            if (!graph_dim_const_value(G(I), d[i], &v))
                return interp_break(I, c->node, RULE_TNG205, "squeeze of dim %lld, which is dynamic",
                                    (long long)i);
            drop[i] = v == 1;
        }
    }
    int m = 0, any = 0;
    for (int i = 0; i < n; i++) {
        any |= drop[i];
        if (!drop[i])
            d[m++] = d[i];
    }
    if (!any)
        return ARG0(c);
    return tl_reshape_to(I, x, d, m, c->node);
}

/* x.flatten(start_dim=0, end_dim=-1) | torch.flatten(x, ...) */
static Obj *lo_flatten(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    DimId d[GRAPH_MAX_DIMS];
    int n = tl_dims_of(I, x, d);
    Obj *so = ARG(c, 1, "start_dim"), *eo = ARG(c, 2, "end_dim");
    int64_t s0 = 0, e0 = -1;
    if ((so && !tl_const_int(I, so, c->node, "start_dim", &s0)) || (eo && !tl_const_int(I, eo, c->node, "end_dim", &e0)))
        return unk(I);
    if (n == 0) {
        DimId one = graph_dim_const(G(I), 1);
        return tl_reshape_to(I, x, &one, 1, c->node);
    }
    int64_t s, e;
    if (!tl_norm_dim(I, s0, n, c->node, &s) || !tl_norm_dim(I, e0, n, c->node, &e))
        return unk(I);
    if (s > e)
        return interp_break(I, c->node, RULE_TNG206, "flatten: start_dim comes after end_dim");
    if (s == e)
        return ARG0(c);
    DimId prod = d[s];
    for (int64_t i = s + 1; i <= e; i++)
        prod = graph_dim_mul(G(I), prod, d[i]);
    DimId out[GRAPH_MAX_DIMS];
    int m = 0;
    for (int64_t i = 0; i < s; i++)
        out[m++] = d[i];
    out[m++] = prod;
    for (int64_t i = e + 1; i < n; i++)
        out[m++] = d[i];
    return tl_reshape_to(I, x, out, m, c->node);
}

/* x.narrow(dim, start, length) | torch.narrow(x, dim, start, length) */
static Obj *lo_narrow(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int64_t dim, start, len;
    Obj *so = ARG(c, 2, "start"), *lo = ARG(c, 3, "length");
    int64_t sc, lc;
    if ((so && so->kind == O_DIM && !graph_dim_const_value(G(I), so->dim, &sc)) ||
        (lo && lo->kind == O_DIM && !graph_dim_const_value(G(I), lo->dim, &lc)))
        return tl_narrow_dyn(I, c, x);
    if (!tl_dim_arg(I, ARG(c, 1, "dim"), rank_of(I, x), c->node, "the narrow dim", &dim) ||
        !tl_const_int(I, ARG(c, 2, "start"), c->node, "the narrow start", &start) ||
        !tl_const_int(I, ARG(c, 3, "length"), c->node, "the narrow length", &len))
        return unk(I);
    if (rank_of(I, x) == 0)
        return interp_break(I, c->node, RULE_TNG206, "narrow of a 0-d tensor");
    if (len < 0)
        return interp_break(I, c->node, RULE_TNG206, "narrow: negative length %lld", (long long)len);
    int64_t end;
    if (graph_ckd_add(&end, start, len))
        return interp_break(I, c->node, RULE_TNG206, "narrow: start %lld + length %lld overflows 64-bit "
                            "arithmetic", (long long)start, (long long)len);
    if (start < 0 && end >= 0)
        end = end == 0 ? GRAPH_END : end;   /* from the end, up to the end */
    return tl_slice_of(I, x, dim, start, end, 1, c->node);
}

/* torch.cat(tensors, dim=0) | torch.concat | torch.concatenate | torch.stack(tensors, dim=0) */
static Obj *lo_cat(Interp *I, Call *c)
{
    int32_t in[1024];
    Obj *ts = args_get(c->a, 0, "tensors");
    int n = tl_tensor_list(I, ts, c->node, c->full, in, (int)NELEM(in));
    if (n < 0)
        return unk(I);
    if (n == 0)
        return interp_break(I, c->node, RULE_TNG206, "%s of an empty list", c->full);
    Obj *dd = args_get(c->a, 1, "dim");
    if (!dd)
        dd = args_kw(c->a, "axis");
    int64_t d0 = 0, dim;
    if (dd && !tl_const_int(I, dd, c->node, "the dim", &d0))
        return unk(I);
    int r = rank_of(I, in[0]) + (c->arg == OP_STACK);
    if (!tl_norm_dim(I, d0, r, c->node, &dim))
        return unk(I);
    return tl_emit1(I, (OpKind)c->arg, in, (uint32_t)n, &dim, 1, 0, 0, DT_UNKNOWN, c->node);
}

/* x.split(split_size_or_sections, dim=0) | torch.split(x, ...) |
 * x.chunk(chunks, dim=0) | torch.chunk(x, chunks, dim=0) | x.unbind(dim=0) */
static Obj *lo_split(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int kind = c->arg;   /* 0 split, 1 chunk, 2 unbind */
    Obj *spec = kind == 2 ? NULL : ARG(c, 1, kind == 1 ? "chunks" : "split_size_or_sections");
    if (kind == 0 && !spec)
        spec = args_kw(c->a, "split_size");
    Obj *dd = ARG(c, kind == 2 ? 1 : 2, "dim");
    int n = rank_of(I, x);
    int64_t dim = 0, size;
    if (n == 0)
        return interp_break(I, c->node, RULE_TNG206, "%s of a 0-d tensor", c->full);
    if (dd && !tl_dim_arg(I, dd, n, c->node, "the dim", &dim))
        return unk(I);
    int tl_known = graph_dim_const_value(G(I), val_at(I, x)->dims[dim], &size);
    int64_t len[256];
    size_t cnt = 0;
    if (kind == 0 && is_seq(spec)) {
        if (spec->n > NELEM(len))
            return interp_break(I, c->node, RULE_TNG212, "a split into more than %zu parts", NELEM(len));
        int64_t total = 0;
        for (size_t i = 0; i < spec->n; i++) {
            if (!tl_const_int(I, spec->items[i], c->node, "a split size", &len[i]))
                return unk(I);
            if (len[i] < 0)
                return interp_break(I, c->node, RULE_TNG206, "negative split size");
            if (graph_ckd_add(&total, total, len[i]))   /* then at and at + len[i] below fit too */
                return interp_break(I, c->node, RULE_TNG206, "split sizes whose sum overflows 64-bit arithmetic");
        }
        cnt = spec->n;
        if (tl_known && total != size)
            return interp_break(I, c->node, RULE_TNG206, "split sizes sum to %lld, the dim has size %lld",
                                (long long)total, (long long)size);
    } else {
        int64_t k = 1;
        if (kind != 2 && !tl_const_int(I, spec, c->node, kind ? "the number of chunks" : "the split size", &k))
            return unk(I);
        if (!tl_known)
            return interp_break(I, c->node, RULE_TNG205, "%s of a dynamic dim (give the sizes explicitly)",
                                c->full);
        if (k <= 0 && kind != 2)
            return interp_break(I, c->node, RULE_TNG206, "%s must be positive", kind ? "chunks" : "split size");
        /* size is a constant dim: 0 <= size <= GRAPH_MAX_BYTES; k may be any positive int */
        int64_t part = kind == 0 ? k : kind == 1 ? ceil_div(size, k) : 1;
        if (part == 0)
            part = 1;
        int64_t parts = size == 0 ? (kind == 2 ? 0 : 1) : ceil_div(size, part);
        if (parts > (int64_t)NELEM(len))
            return interp_break(I, c->node, RULE_TNG212, "a split into more than %zu parts", NELEM(len));
        for (int64_t p = 0; p < parts; p++)
            len[cnt++] = part < size - p * part ? part : size - p * part;
    }
    Obj *out = obj_tuple(I, NULL, 0);
    Obj **items = interp_alloc(I, (cnt + 1) * sizeof *items);
    int64_t at = 0;
    for (size_t i = 0; i < cnt; i++) {
        if (kind == 2) {
            int64_t attr[2] = {dim, at};
            items[i] = tl_emit_x(I, OP_SELECT, x, attr, 2, 0, DT_UNKNOWN, c->node);
        } else {
            items[i] = tl_slice_of(I, x, dim, at, at + len[i], 1, c->node);
        }
        at += len[i];
    }
    out->items = items;
    out->n = out->cap = cnt;
    return out;
}

/* ===================================================================== */
/* Reductions, softmax, norms, embedding                                 */
/* ===================================================================== */

/* x.sum(dim=None, keepdim=False, dtype=None) | torch.mean(x, dim) |
 * x.amax(dim=(), keepdim=False): dim an int, a tuple/list, or None (all) */
static Obj *lo_reduce(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int n = rank_of(I, x);
    Obj *dim = ARG(c, 1, "dim"), *kd = ARG(c, 2, "keepdim");
    if (!dim)
        dim = args_kw(c->a, "axis");
    DType dt = DT_UNKNOWN;
    if (c->arg != OP_AMAX && !tl_dtype_arg(I, ARG(c, 3, "dtype"), c->node, &dt))
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
static Obj *lo_softmax(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    Obj *dim = ARG(c, 1, "dim");
    Obj *dto = args_kw(c->a, "dtype");
    if (!dto)   /* F.softmax(input, dim, _stacklevel, dtype); the others (input, dim, dtype) */
        dto = args_get(c->a, strncmp(c->full, "torch.nn.functional.", 20) == 0 ? 3 : 2, NULL);
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

/* Value of an optional tensor argument: -1 when None/absent; -2 after a
 * diagnostic (or when unknown). */
int32_t tl_opt_tensor(Interp *I, Obj *o, int32_t node, const char *what)
{
    if (is_none(o))
        return -1;
    if (is_tensor(o)) {
        int32_t v = tl_tv(I, o, node);
        return v >= 0 ? v : -2;
    }
    if (!is_unknown(o))
        interp_break(I, node, RULE_TNG203, "%s must be a tensor or None", what);
    return -2;
}

/* LAYER_NORM of x over its k trailing dims. */
Obj *tl_layer_norm(Interp *I, int32_t x, int64_t k, int32_t w, int32_t b, double eps, int32_t node)
{
    int32_t in[3] = {x, w, b};
    return tl_emit1(I, OP_LAYER_NORM, in, 3, &k, 1, eps, 0, DT_UNKNOWN, node);
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
static Obj *lo_layer_norm(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int64_t k;
    if (!norm_shape_rank(I, ARG(c, 1, "normalized_shape"), c->node, &k))
        return unk(I);
    int32_t w = tl_opt_tensor(I, ARG(c, 2, "weight"), c->node, "weight");
    int32_t b = tl_opt_tensor(I, ARG(c, 3, "bias"), c->node, "bias");
    if (w < -1 || b < -1 || !tl_known(I, ARG(c, 4, "eps"), c->node, "eps"))
        return unk(I);
    return tl_layer_norm(I, x, k, w, b, tl_float_arg(ARG(c, 4, "eps"), 1e-5), c->node);
}

/* F.embedding(input, weight, padding_idx=None, ...) */
static Obj *lo_embedding(Interp *I, Call *c)
{
    int32_t ids = tl_x0(I, c);
    Obj *w = ARG(c, 1, "weight");
    if (ids < 0)
        return unk(I);
    int32_t in[2] = {tl_tv(I, w, c->node), ids};
    if (in[0] < 0) {
        if (!is_unknown(w))
            interp_break(I, c->node, RULE_TNG203, "embedding expects a weight tensor");
        return unk(I);
    }
    Obj *mn = ARG(c, 3, "max_norm");
    if (!is_none(mn))
        return interp_break(I, c->node, RULE_TNG203, "embedding with max_norm (it renormalises the weight in place)");
    return tl_emit1(I, OP_EMBEDDING, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
}

/* torch_npu.npu_rms_norm(x, gamma, epsilon=1e-6) -> (y, rstd) */
static Obj *lo_rms_norm(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    Obj *g = ARG(c, 1, "gamma");
    if (x < 0)
        return unk(I);
    int32_t in[2] = {x, tl_tv(I, g, c->node)};
    if (in[1] < 0) {
        if (!is_unknown(g))
            interp_break(I, c->node, RULE_TNG203, "npu_rms_norm expects a gamma tensor");
        return unk(I);
    }
    if (!tl_known(I, ARG(c, 2, "epsilon"), c->node, "epsilon"))
        return unk(I);
    int32_t op = tl_emit(I, OP_RMS_NORM, in, 2, NULL, 0, tl_float_arg(ARG(c, 2, "epsilon"), 1e-6), 0,
                         DT_UNKNOWN, c->node);
    if (op < 0)
        return obj_unknown_reported(I);   /* interp_op reported */
    Obj *items[2] = {tl_op_out(I, op, 0), tl_op_out(I, op, 1)};
    return obj_tuple(I, items, 2);
}

/* ===================================================================== */
/* torch_npu operators                                                   */
/* ===================================================================== */

/* torch_npu.npu_format_cast(input, acl_format) */
static Obj *lo_format_cast(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int64_t fmt;
    if (!tl_const_int(I, ARG(c, 1, "acl_format"), c->node, "the ACL format", &fmt))
        return unk(I);
    return tl_emit_x(I, OP_FORMAT_CAST, x, &fmt, 1, 0, DT_UNKNOWN, c->node);
}

/* torch_npu.npu_quant_matmul(x1, x2, scale, *, offset=None, pertoken_scale=None,
 * bias=None, output_dtype=None) */
static Obj *lo_quant_matmul(Interp *I, Call *c)
{
    int32_t x1 = tl_x0(I, c);
    if (x1 < 0)
        return unk(I);
    Obj *x2 = ARG(c, 1, "x2"), *scale = ARG(c, 2, "scale");
    int32_t in[6] = {x1, tl_tv(I, x2, c->node), tl_tv(I, scale, c->node), -1, -1, -1};
    if (in[1] < 0 || in[2] < 0) {
        if (!obj_has_unknown(x2) && !obj_has_unknown(scale))
            interp_break(I, c->node, RULE_TNG203, "npu_quant_matmul expects tensors x1, x2 and scale");
        return unk(I);
    }
    static const char *const opt[3] = {"offset", "bias", "pertoken_scale"};
    static const size_t pos[3] = {3, 5, 4};  /* positions in torch_npu's signature */
    for (int k = 0; k < 3; k++)
        if ((in[3 + k] = tl_opt_tensor(I, ARG(c, pos[k], opt[k]), c->node, opt[k])) < -1)
            return unk(I);
    DType dt;
    if (!tl_dtype_arg(I, ARG(c, 6, "output_dtype"), c->node, &dt))
        return unk(I);
    return tl_emit1(I, OP_QUANT_MATMUL, in, 6, NULL, 0, 0, 0, dt, c->node);
}

/* torch_npu.npu_dequant_swiglu_quant(x, weight_scale=None, activation_scale=None,
 * bias=None, quant_scale=None, quant_offset=None, group_index=None,
 * activate_left=False, quant_mode=0) -> (y, scale) */
static Obj *lo_dequant_swiglu_quant(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    static const char *const opt[6] = {"weight_scale", "activation_scale", "bias", "quant_scale",
                                       "quant_offset", "group_index"};
    int32_t in[7] = {x, -1, -1, -1, -1, -1, -1};
    for (int k = 0; k < 6; k++)
        if ((in[1 + k] = tl_opt_tensor(I, ARG(c, 1 + (size_t)k, opt[k]), c->node, opt[k])) < -1)
            return unk(I);
    if (!tl_known(I, ARG(c, 7, "activate_left"), c->node, "activate_left") ||
        !tl_known(I, ARG(c, 8, "quant_mode"), c->node, "quant_mode"))
        return unk(I);
    int64_t attr[2] = {obj_flag(ARG(c, 7, "activate_left"), 0), 0};
    Obj *qm = ARG(c, 8, "quant_mode");
    if (qm && qm->kind == O_STR) {
        if (streq(qm->s, "dynamic"))
            attr[1] = 1;
        else if (!streq(qm->s, "static"))
            return interp_break(I, c->node, RULE_TNG203, "quant_mode must be 'static' or 'dynamic'");
    } else if (qm && !tl_const_int(I, qm, c->node, "quant_mode", &attr[1])) {
        return unk(I);
    }
    int32_t op = tl_emit(I, OP_DEQUANT_SWIGLU_QUANT, in, 7, attr, 2, 0, 0, DT_UNKNOWN, c->node);
    if (op < 0)
        return obj_unknown_reported(I);   /* interp_op reported */
    Obj *items[2] = {tl_op_out(I, op, 0), tl_op_out(I, op, 1)};
    return obj_tuple(I, items, 2);
}

/* torch_npu.npu_swiglu(input, dim=-1) */
static Obj *lo_swiglu(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int64_t d0 = -1, d;
    Obj *dim = ARG(c, 1, "dim");
    if ((dim && !tl_const_int(I, dim, c->node, "the swiglu dim", &d0)) ||
        !tl_norm_dim(I, d0, rank_of(I, x), c->node, &d))
        return unk(I);
    return tl_emit_x(I, OP_SWIGLU, x, &d, 1, 0, DT_UNKNOWN, c->node);
}

/* ===================================================================== */
/* In-place updates                                                      */
/* ===================================================================== */

/* ===================================================================== */
/* Casts, identities, queries, in-place copy                             */
/* ===================================================================== */

/* x.to(dtype) | x.to(device) | x.to(device, dtype) | x.to(other) |
 * x.to(dtype=..., device=..., non_blocking=...): a CAST only when the dtype
 * changes. Devices (strings, torch.device, unknown values) are ignored. */
static Obj *lo_to(Interp *I, Call *c)
{
    Obj *self = ARG0(c);
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    DType dt = DT_UNKNOWN;
    for (size_t i = 1; i < c->a->npos; i++) {
        Obj *o = c->a->pos[i];
        if (tl_dtype_of_obj(o) != DT_UNKNOWN) {
            dt = tl_dtype_of_obj(o);
        } else if (is_tensor(o)) {
            int32_t v = tl_tv(I, o, c->node);
            if (v < 0)
                return unk(I);
            dt = val_at(I, v)->dtype;
        } else if (o->kind == O_BUILTIN && o->s && strncmp(o->s, "torch.", 6) == 0 &&
                   (strstr(o->s, "float64") || strstr(o->s, "double") || strstr(o->s, "int16") ||
                    strstr(o->s, "uint8") || strstr(o->s, "complex"))) {
            return interp_break(I, c->node, RULE_TNG203, "dtype %s is not supported", o->s);
        }
    }
    Obj *kd = args_kw(c->a, "dtype");
    if (kd && !is_none(kd) && !tl_dtype_arg(I, kd, c->node, &dt))
        return unk(I);
    if (dt == DT_UNKNOWN)
        return self;
    return tl_cast_to(I, self, dt, c->node);
}

/* x.float() | x.half() | x.bfloat16() | x.int() | x.long() | x.bool() | x.char() */
static Obj *lo_cast(Interp *I, Call *c)
{
    if (tl_x0(I, c) < 0)
        return unk(I);
    return tl_cast_to(I, ARG0(c), (DType)c->arg, c->node);
}

/* x.type_as(other) | x.type(dtype) */
static Obj *lo_type_as(Interp *I, Call *c)
{
    Obj *o = ARG(c, 1, c->arg ? "dtype" : "other");
    if (tl_x0(I, c) < 0)
        return unk(I);
    DType dt = DT_UNKNOWN;
    if (c->arg) {
        if (!o)
            return interp_break(I, c->node, RULE_TNG203, "x.type() without a dtype (it returns a string)");
        if (!tl_dtype_arg(I, o, c->node, &dt) || dt == DT_UNKNOWN)
            return unk(I);
    } else {
        int32_t v = tl_tv(I, o, c->node);
        if (v < 0) {
            if (!is_unknown(o))
                interp_break(I, c->node, RULE_TNG203, "type_as expects a tensor");
            return unk(I);
        }
        dt = val_at(I, v)->dtype;
    }
    return tl_cast_to(I, ARG0(c), dt, c->node);
}

/* x.npu() | x.cuda() | x.cpu() | x.detach() | x.clone() | x.requires_grad_() |
 * torch.clone(x) | torch.detach(x): the tensor itself */
static Obj *lo_same(Interp *I, Call *c)
{
    Obj *x = ARG0(c);
    if (tl_x0(I, c) < 0)
        return unk(I);
    if (streq(c->name, "requires_grad_") && x->t)
        x->t->requires_grad = obj_flag(ARG(c, 1, "requires_grad"), 1);
    return x;
}

/* x.size() | x.size(dim) | x.dim() | x.ndimension() | x.numel() |
 * x.nelement() | x.is_contiguous() | x.element_size() | x.is_floating_point() */
static Obj *lo_query(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    DimId d[GRAPH_MAX_DIMS];
    int n = tl_dims_of(I, x, d);
    const char *m = c->name;
    if (streq(m, "size") || streq(m, "shape")) {
        Obj *dim = ARG(c, 1, "dim");
        if (!dim) {
            Obj *items[GRAPH_MAX_DIMS];
            for (int i = 0; i < n; i++)
                items[i] = obj_dim(I, d[i]);
            return obj_tuple(I, items, (size_t)n);
        }
        int64_t k;
        if (!tl_dim_arg(I, dim, n, c->node, "the size dim", &k))
            return unk(I);
        if (n == 0)
            return interp_break(I, c->node, RULE_TNG206, "size(dim) of a 0-d tensor");
        return obj_dim(I, d[k]);
    }
    if (streq(m, "dim") || streq(m, "ndimension"))
        return obj_int(I, n);
    if (streq(m, "numel") || streq(m, "nelement")) {
        DimId p = graph_dim_const(G(I), 1);
        for (int i = 0; i < n; i++)
            p = graph_dim_mul(G(I), p, d[i]);
        return obj_dim(I, p);
    }
    if (streq(m, "element_size"))
        return obj_int(I, dtype_size(val_at(I, x)->dtype));
    if (streq(m, "is_floating_point"))
        return obj_bool(I, dtype_is_float(val_at(I, x)->dtype));
    return obj_bool(I, 1);   /* is_contiguous: the graph has no strides */
}

/* dst.copy_(src, non_blocking=False): COPY; dst's object now holds the new
 * version, and dst is returned. */
static Obj *lo_copy(Interp *I, Call *c)
{
    Obj *dst = ARG0(c), *src = ARG(c, 1, "src");
    int32_t in[2] = {tl_x0(I, c), -1};
    if (in[0] < 0)
        return unk(I);
    if (!is_tensor(src)) {
        if (!is_unknown(src))
            interp_break(I, c->node, RULE_TNG211, "copy_ from something that is not a tensor");
        return unk(I);
    }
    if (!views_operand_ok(I, dst, src, c->node, "copy_"))
        return obj_unknown_reported(I);
    if ((in[1] = tl_tv(I, src, c->node)) < 0 || (in[0] = views_write_begin(I, dst, c->node, "copy_")) < 0)
        return unk(I);
    int32_t op = tl_emit(I, OP_COPY, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
    if (op < 0 || views_write_end(I, dst, G(I)->ops.v[op].out, c->node) < 0)
        return obj_unknown_reported(I);   /* interp_op reported */
    return dst;
}

/* x op= y on a tensor x whose new value res was computed: written into x
 * as PyTorch's in-place op writes it (views_write): into the storage of an
 * input or buffer (COPY, written back to the caller), through a view into
 * its base, so that every alias sees it. Returns the tensor object that
 * now holds it. */
Obj *torchlib_augassign(Interp *I, Obj *x, Obj *res, int32_t node)
{
    Obj *r = tl_inplace_fit(I, x, res, node, "an augmented assignment");
    if (!is_tensor(r))
        return r;   /* reported */
    int32_t v = tl_tv(I, r, node);
    if (v < 0)
        return unk(I);
    return views_write(I, x, v, node, "an in-place update");
}

/* The result r of an in-place op on x, as PyTorch writes it into x: of x's
 * shape (an in-place op cannot resize x: TNG203 else), cast to x's dtype
 * where PyTorch allows it (TNG203 for a float result into an integer x, or
 * a non-bool one into a bool x: PyTorch's errors). */
Obj *tl_inplace_fit(Interp *I, Obj *x, Obj *r, int32_t node, const char *what)
{
    int32_t xv = tl_tv(I, x, node), rv = tl_tv(I, r, node);
    if (xv < 0 || rv < 0)
        return unk(I);
    const Val *a = val_at(I, xv), *b = val_at(I, rv);
    int same = a->ndim == b->ndim;
    for (int i = 0; same && i < a->ndim; i++)
        same = a->dims[i] == b->dims[i];
    if (!same) {
        int64_t p, q;
        int definite = a->ndim != b->ndim;
        for (int i = 0; !definite && i < a->ndim; i++)
            definite = graph_dim_const_value(G(I), a->dims[i], &p) &&
                       graph_dim_const_value(G(I), b->dims[i], &q) && p != q;
        if (definite)
            return interp_break(I, node, RULE_TNG203, "%s: the result would not have the shape of the tensor "
                                "written (an in-place op cannot resize it; PyTorch raises)", what);
        return interp_break(I, node, RULE_TNG203, "%s: tngc cannot show that the result has the shape of the "
                            "tensor written at every size of its dynamic dims (PyTorch raises at the sizes "
                            "where it does not): give the dims gears or make them static", what);
    }
    if (a->dtype == b->dtype)
        return r;
    int cx = a->dtype == DT_BOOL ? 0 : dtype_is_float(a->dtype) ? 2 : 1;
    int cr = b->dtype == DT_BOOL ? 0 : dtype_is_float(b->dtype) ? 2 : 1;
    if (cr > cx)
        return interp_break(I, node, RULE_TNG203, "%s: result type %s can't be cast to the written tensor's "
                            "dtype %s (PyTorch raises)", what, dtype_name(b->dtype), dtype_name(a->dtype));
    return tl_cast_to(I, r, a->dtype, node);
}

/* ===================================================================== */
/* Tensor creation                                                       */
/* ===================================================================== */

enum { FILL_ZERO, FILL_ONE, FILL_FULL, FILL_RANDINT };

/* A FULL op of shape d[0..n), fill and dtype. */
Obj *tl_full_of(Interp *I, const int64_t *d, int n, double fill, DType dt, int32_t node)
{
    return tl_emit1(I, OP_FULL, NULL, 0, d, (uint32_t)n, fill, 0, dt ? dt : DT_F32, node);
}

/* The dtype torch.full gives fill when no dtype= is given. */
static DType fill_dtype(const Obj *fill)
{
    if (fill && fill->kind == O_BOOL)
        return DT_BOOL;
    if (fill && (fill->kind == O_INT || fill->kind == O_DIM))
        return DT_I64;
    return DT_F32;
}

/* A fill value: a number (a constant symbolic int too). */
int tl_fill_value(Interp *I, const Obj *o, int32_t node, double *v)
{
    int is_int;
    if (!tl_known(I, o, node, "the fill value"))
        return 0;
    int k = o ? tl_scalar_operand(I, o, node, v, &is_int) : 0;
    if (k == 0)
        interp_break(I, node, RULE_TNG203, "the fill value must be a number");
    return k == 1;
}

/* torch.ones(*size, dtype=None) | torch.zeros | torch.empty | torch.randn |
 * torch.rand | torch.full(size, fill_value, dtype=None) |
 * torch.randint(low=0, high, size, dtype=torch.int64) */
static Obj *lo_create(Interp *I, Call *c)
{
    int64_t d[GRAPH_MAX_DIMS];
    int n;
    double fill = c->arg == FILL_ONE ? 1 : 0;
    DType dt;
    if (!tl_dtype_arg(I, args_kw(c->a, "dtype"), c->node, &dt))
        return unk(I);
    if (c->arg == FILL_FULL) {
        Obj *fo = args_get(c->a, 1, "fill_value");
        if (!tl_fill_value(I, fo, c->node, &fill))
            return unk(I);
        Obj *size = args_get(c->a, 0, "size");
        if (!size)
            return interp_break(I, c->node, RULE_TNG203, "torch.full without a size");
        CallArgs one = {0};
        one.pos = &size;
        one.npos = 1;
        if ((n = tl_sizes_arg(I, &one, 0, NULL, c->node, 0, d)) < 0)
            return unk(I);
        if (dt == DT_UNKNOWN)
            dt = fill_dtype(fo);
    } else if (c->arg == FILL_RANDINT) {
        Obj *low = NULL, *size;
        if (c->a->npos >= 3) {
            low = c->a->pos[0];
            size = c->a->pos[2];
        } else if (c->a->npos == 2) {
            size = c->a->pos[1];
            low = args_kw(c->a, "low");
        } else {
            low = args_kw(c->a, "low");
            size = args_kw(c->a, "size");
        }
        if (!size)
            return interp_break(I, c->node, RULE_TNG203, "torch.randint without a size");
        if (low && !tl_fill_value(I, low, c->node, &fill))
            return unk(I);
        CallArgs one = {0};
        one.pos = &size;
        one.npos = 1;
        if ((n = tl_sizes_arg(I, &one, 0, NULL, c->node, 0, d)) < 0)
            return unk(I);
        if (dt == DT_UNKNOWN)
            dt = DT_I64;
    } else {
        if ((n = tl_sizes_arg(I, c->a, 0, "size", c->node, 0, d)) < 0)
            return unk(I);
    }
    Obj *r = tl_full_of(I, d, n, fill, dt, c->node);
    if (c->arg == FILL_RANDINT || streq(c->name, "empty") || streq(c->name, "randn") || streq(c->name, "rand"))
        interp_host_inexact(I, r);   /* a spec only: its data is not the FULL's */
    return r;
}

/* torch.ones_like(input, dtype=None) | zeros_like | empty_like | randn_like |
 * rand_like | full_like(input, fill_value) | x.new_zeros(size) | x.new_ones |
 * x.new_empty | x.new_full(size, fill_value): the dtype of input by default */
static Obj *lo_create_like(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int is_new = strncmp(c->name, "new_", 4) == 0;
    DType dt;
    if (!tl_dtype_arg(I, args_kw(c->a, "dtype"), c->node, &dt))
        return unk(I);
    if (dt == DT_UNKNOWN)
        dt = val_at(I, x)->dtype;
    double fill = c->arg == FILL_ONE ? 1 : 0;
    if (c->arg == FILL_FULL && !tl_fill_value(I, ARG(c, is_new ? 2 : 1, "fill_value"), c->node, &fill))
        return unk(I);
    int64_t d[GRAPH_MAX_DIMS];
    int n;
    if (is_new) {
        Obj *size = ARG(c, 1, "size");
        if (!size)
            return interp_break(I, c->node, RULE_TNG203, "%s without a size", c->full);
        if (c->arg == FILL_FULL) {
            CallArgs one = {0};
            one.pos = &size;
            one.npos = 1;
            n = tl_sizes_arg(I, &one, 0, NULL, c->node, 0, d);
        } else {
            n = tl_sizes_arg(I, c->a, 1, "size", c->node, 0, d);
        }
        if (n < 0)
            return unk(I);
    } else {
        DimId dd[GRAPH_MAX_DIMS];
        n = tl_dims_of(I, x, dd);
        for (int i = 0; i < n; i++)
            d[i] = dd[i];
    }
    Obj *r = tl_full_of(I, d, n, fill, dt, c->node);
    if (streq(c->name, "empty_like") || streq(c->name, "randn_like") || streq(c->name, "rand_like") ||
        streq(c->name, "new_empty"))
        interp_host_inexact(I, r);   /* a spec only: its data is not the FULL's */
    return r;
}

/* Shape and element statistics of nested lists for torch.tensor(data).
 * [[0] * 100000] * 100000 is 10^10 elements in a few objects: the count is
 * bounded so that reading it stays fast. */
#define TENSOR_DATA_MAX (1L << 24)
typedef struct TensorData {
    int64_t dims[GRAPH_MAX_DIMS];
    int ndim;
    int any_float, all_bool;
    int64_t count;         /* elements visited (a shared inner list counts each time) */
    double first;
    int all_same;
} TensorData;

static int tensor_data(const Obj *o, int depth, TensorData *td)
{
    double v;
    int is_int;
    if (is_seq(o)) {
        if (depth >= GRAPH_MAX_DIMS)
            return 0;
        if (td->count == 0 && depth == td->ndim)
            td->dims[td->ndim++] = (int64_t)o->n;
        else if (depth >= td->ndim || td->dims[depth] != (int64_t)o->n)
            return 0;
        for (size_t i = 0; i < o->n; i++)
            if (!tensor_data(o->items[i], depth + 1, td))
                return 0;
        return 1;
    }
    if (!tl_py_number(o, &v, &is_int) || depth != td->ndim || td->count >= TENSOR_DATA_MAX)
        return 0;
    td->any_float |= !is_int;
    td->all_bool &= o->kind == O_BOOL;
    if (td->count++ == 0)
        td->first = v;
    else
        td->all_same &= v == td->first;
    return 1;
}

/* torch.tensor(data, dtype=None): a FULL of data's shape; exact only when
 * every element is the same (else only in host mode, where values do not
 * matter) */
static Obj *lo_tensor(Interp *I, Call *c)
{
    Obj *data = args_get(c->a, 0, "data");
    TensorData td;
    memset(&td, 0, sizeof td);
    td.all_bool = td.all_same = 1;
    if (!tl_known(I, data, c->node, "the data of torch.tensor"))
        return unk(I);
    if (!data || !tensor_data(data, 0, &td))
        return interp_break(I, c->node, RULE_TNG203, "torch.tensor of data tngc cannot read");
    if (!td.all_same && interp_tracing(I))
        return interp_break(I, c->node, RULE_TNG203, "torch.tensor of distinct values inside a compiled method");
    DType dt;
    if (!tl_dtype_arg(I, args_kw(c->a, "dtype"), c->node, &dt))
        return unk(I);
    if (dt == DT_UNKNOWN)
        dt = td.any_float ? DT_F32 : td.all_bool && td.count ? DT_BOOL : DT_I64;
    int64_t d[GRAPH_MAX_DIMS];
    for (int i = 0; i < td.ndim; i++)
        d[i] = graph_dim_const(G(I), td.dims[i]);
    Obj *r = tl_full_of(I, d, td.ndim, td.count ? td.first : 0, dt, c->node);
    if (!td.all_same)
        interp_host_inexact(I, r);   /* host mode: the shape only */
    return r;
}

/* ---- lowerings: creation and constants ---- */

/* One bound of torch.arange: 1 with *v (and *is_int) for a number known
 * now, 2 with *d for a symbolic int (a dim of a geared input), 0 after a
 * diagnostic naming `what`. */
static int arange_bound(Interp *I, const Obj *o, int32_t node, const char *what, double *v, int *is_int,
                        DimId *d)
{
    int64_t c;
    if (!tl_known(I, o, node, what))
        return 0;
    if (o->kind == O_DIM && !graph_dim_const_value(G(I), o->dim, &c)) {
        *d = o->dim;
        *is_int = 1;
        return 2;
    }
    if (o->kind == O_DIM) {
        *v = (double)c;
        *is_int = 1;
        return 1;
    }
    if (tl_py_number(o, v, is_int))
        return 1;
    interp_break(I, node, RULE_TNG203, "torch.arange: %s must be a number", what);
    return 0;
}

/* torch.arange(end) | torch.arange(start, end, step=1, dtype=None,
 * device=...): int64 when start, end and step are ints, else float32 (or
 * dtype). start and end may be symbolic ints (seq_len = x.shape[1]:
 * arange(seq_len), arange(past, past + seq_len)): the length is then a dim
 * expression, and the step an int known now. */
static Obj *lo_arange(Interp *I, Call *c)
{
    CallArgs *a = c->a;
    Obj *so = NULL, *eo = NULL, *po = args_kw(a, "step");
    if (a->npos == 1) {
        eo = a->pos[0];
        so = args_kw(a, "start");
    } else if (a->npos >= 2) {
        so = a->pos[0];
        eo = a->pos[1];
        if (a->npos >= 3)
            po = a->pos[2];
        if (a->npos > 3)
            return interp_break(I, c->node, RULE_TNG203, "torch.arange with more than 3 positional arguments");
    } else {
        so = args_kw(a, "start");
        eo = args_kw(a, "end");
    }
    if (!eo)
        return interp_break(I, c->node, RULE_TNG203, "torch.arange without an end");
    double sv = 0, ev = 0, pv = 1;
    int si = 1, ei = 1, pi = 1, sk = 1, ek, pk = 1;
    DimId sd = -1, ed = -1, pd = -1;
    if ((so && !is_none(so) && !(sk = arange_bound(I, so, c->node, "start", &sv, &si, &sd))) ||
        !(ek = arange_bound(I, eo, c->node, "end", &ev, &ei, &ed)) ||
        (po && !is_none(po) && !(pk = arange_bound(I, po, c->node, "step", &pv, &pi, &pd))))
        return unk(I);
    DType dt;
    if (!tl_dtype_arg(I, args_kw(a, "dtype"), c->node, &dt))
        return unk(I);
    int all_int = si && ei && pi;
    if (dt == DT_UNKNOWN)
        dt = all_int ? DT_I64 : DT_F32;
    if (dt == DT_BOOL)
        return interp_break(I, c->node, RULE_TNG203, "torch.arange: dtype torch.bool is not supported by torch");
    Graph *g = G(I);
    int64_t len;
    if (pk == 2)
        return interp_break(I, c->node, RULE_TNG203, "torch.arange: a step that depends on a dynamic dim");
    if (pv == 0 || pv != pv)
        return interp_break(I, c->node, RULE_TNG206, "torch.arange: step must be nonzero");
    if (sv - sv != 0 || ev - ev != 0 || pv - pv != 0)
        return interp_break(I, c->node, RULE_TNG206, "torch.arange: start, end and step must be finite");
    if (ek == 2 || sk == 2) {   /* a symbolic bound: ints, the constant ones >= 0 */
        if (!all_int)
            return interp_break(I, c->node, RULE_TNG203, "torch.arange: a float bound or step with a bound that "
                                "depends on a dynamic dim");
        if ((sk == 1 && (sv < 0 || sv > 4e18)) || (ek == 1 && (ev < 0 || ev > 4e18)) || fabs(pv) > 4e18)
            return interp_break(I, c->node, RULE_TNG203, "torch.arange: a negative bound with a bound that "
                                "depends on a dynamic dim");
        int64_t st = (int64_t)pv, mag = st > 0 ? st : -st;
        DimId s0 = sk == 2 ? sd : graph_dim_const(g, (int64_t)sv), e0 = ek == 2 ? ed : graph_dim_const(g, (int64_t)ev);
        DimId span = st > 0 ? graph_dim_sub(g, e0, s0) : graph_dim_sub(g, s0, e0);
        span = graph_dim_max(g, span, graph_dim_const(g, 0));
        if (mag != 1)
            span = graph_dim_div(g, graph_dim_add(g, span, graph_dim_const(g, mag - 1)), graph_dim_const(g, mag));
        int64_t attr[2] = {span, sk == 2 ? sd : graph_dim_const(g, 0)};
        return tl_emit1(I, OP_ARANGE, NULL, 0, attr, 2, sk == 2 ? 0 : sv, (double)st, dt, c->node);
    }
    if (all_int && fabs(sv) < 4e18 && fabs(ev) < 4e18 && fabs(pv) < 4e18) {
        int64_t s0 = (int64_t)sv, e0 = (int64_t)ev, st = (int64_t)pv;
        int64_t span = st > 0 ? e0 - s0 : s0 - e0, mag = st > 0 ? st : -st;
        len = span <= 0 ? 0 : ceil_div(span, mag);
    } else {
        double n = ceil((ev - sv) / pv);
        if (!(n < 4e18))
            return interp_break(I, c->node, RULE_TNG206, "torch.arange: too many elements");
        len = n > 0 ? (int64_t)n : 0;
    }
    int64_t attr[2] = {graph_dim_const(g, len), graph_dim_const(g, 0)};
    return tl_emit1(I, OP_ARANGE, NULL, 0, attr, 2, sv, pv, dt, c->node);
}

/* The attributes of torch.finfo / torch.iinfo (an instance holding Python
 * floats and ints, read at lowering time). */
static Obj *info_obj(Interp *I, const char *cls, DType dt)
{
    Obj *o = obj_new(I, O_INST);
    o->s = cls;
    obj_setattr(I, o, "dtype", obj_dtype(I, dt));
    obj_setattr(I, o, "bits", obj_int(I, dtype_size(dt) * 8));
    return o;
}

/* torch.finfo(dtype=torch.float32): .min .max .eps .tiny .smallest_normal
 * .resolution .bits | torch.iinfo(dtype): .min .max .bits */
static Obj *lo_finfo(Interp *I, Call *c)
{
    Obj *d = args_get(c->a, 0, "type");
    DType dt = DT_F32;
    if (d && !is_none(d)) {
        if (!tl_known(I, d, c->node, "the dtype"))
            return unk(I);
        if (is_tensor(d)) {   /* torch.finfo(x) is an error in torch; x.dtype is meant */
            return interp_break(I, c->node, RULE_TNG203, "%s expects a dtype (x.dtype), not a tensor", c->full);
        }
        dt = tl_dtype_of_obj(d);
    } else if (c->arg) {
        return interp_break(I, c->node, RULE_TNG203, "torch.iinfo without a dtype");
    }
    static const struct { DType dt; double eps, max, tiny, res; } fl[] = {
        {DT_F32, 1.1920928955078125e-07, 3.4028234663852886e+38, 1.1754943508222875e-38, 1e-06},
        {DT_F16, 0.0009765625, 65504.0, 6.103515625e-05, 0.001},
        {DT_BF16, 0.0078125, 3.3895313892515355e+38, 1.1754943508222875e-38, 0.01},
    };
    if (!c->arg) {
        for (size_t i = 0; i < NELEM(fl); i++)
            if (fl[i].dt == dt) {
                Obj *o = info_obj(I, "torch.finfo", dt);
                obj_setattr(I, o, "eps", obj_float(I, fl[i].eps));
                obj_setattr(I, o, "max", obj_float(I, fl[i].max));
                obj_setattr(I, o, "min", obj_float(I, -fl[i].max));
                obj_setattr(I, o, "tiny", obj_float(I, fl[i].tiny));
                obj_setattr(I, o, "smallest_normal", obj_float(I, fl[i].tiny));
                obj_setattr(I, o, "resolution", obj_float(I, fl[i].res));
                return o;
            }
        return interp_break(I, c->node, RULE_TNG203, "torch.finfo of a dtype tngc knows no float type for (float32, "
                            "float16 and bfloat16 are)");
    }
    if (dt != DT_I8 && dt != DT_I32 && dt != DT_I64)
        return interp_break(I, c->node, RULE_TNG203, "torch.iinfo of a dtype tngc knows no integer type for (int8, "
                            "int32 and int64 are)");
    int bits = dtype_size(dt) * 8;
    int64_t mx = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
    Obj *o = info_obj(I, "torch.iinfo", dt);
    obj_setattr(I, o, "max", obj_int(I, mx));
    obj_setattr(I, o, "min", obj_int(I, -mx - 1));
    return o;
}

/* ===================================================================== */
/* The library table                                                     */
/* ===================================================================== */

/* Where a name is known: torch.X, torch.nn.functional.X, torch_npu.X, or
 * as a tensor method. NOTENSOR: the function form takes no tensor operand
 * (creation). */
enum { NS_TORCH = 1, NS_F = 2, NS_NPU = 4, NS_METH = 8, NOTENSOR = 16 };
#define NS_TM (NS_TORCH | NS_METH)
#define NS_TFM (NS_TORCH | NS_F | NS_METH)

typedef Obj *(*LowerFn)(Interp *I, Call *c);

static const struct LibEntry {
    const char *name;
    unsigned ns;
    LowerFn fn;
    int arg;
} lib[] = {
    /* arithmetic */
    {"add", NS_TM, lo_arith, OP_ADD},
    {"sub", NS_TM, lo_arith, OP_SUB},
    {"subtract", NS_TM, lo_arith, OP_SUB},
    {"mul", NS_TM, lo_arith, OP_MUL},
    {"multiply", NS_TM, lo_arith, OP_MUL},
    {"div", NS_TM, lo_arith, OP_DIV},
    {"divide", NS_TM, lo_arith, OP_DIV},
    {"true_divide", NS_TM, lo_arith, OP_DIV},
    {"pow", NS_TM, lo_pow, 0},
    /* unary elementwise */
    {"neg", NS_TM, lo_unary, OP_NEG},
    {"negative", NS_TM, lo_unary, OP_NEG},
    {"abs", NS_TM, lo_unary, OP_ABS},
    {"exp", NS_TM, lo_unary, OP_EXP},
    {"log", NS_TM, lo_unary, OP_LOG},
    {"sqrt", NS_TM, lo_unary, OP_SQRT},
    {"rsqrt", NS_TM, lo_unary, OP_RSQRT},
    {"relu", NS_TFM, lo_unary, OP_RELU},
    {"silu", NS_F, lo_unary, OP_SILU},
    {"sigmoid", NS_TFM, lo_unary, OP_SIGMOID},
    {"tanh", NS_TFM, lo_unary, OP_TANH},
    {"gelu", NS_F, lo_gelu, 0},
    {"cos", NS_TM, lo_unary, OP_COS},
    {"sin", NS_TM, lo_unary, OP_SIN},
    {"reciprocal", NS_TM, lo_unary, OP_RECIPROCAL},
    {"square", NS_TM, lo_unary, OP_SQUARE},
    {"sign", NS_TM, lo_unary, OP_SIGN},
    {"floor", NS_TM, lo_unary, OP_FLOOR},
    {"ceil", NS_TM, lo_unary, OP_CEIL},
    {"round", NS_TM, lo_round, 0},
    {"erf", NS_TM, lo_unary, OP_ERF},
    {"log1p", NS_TM, lo_unary, OP_LOG1P},
    {"expm1", NS_TM, lo_unary, OP_EXPM1},
    {"softplus", NS_F, lo_softplus, 0},
    {"leaky_relu", NS_F, lo_leaky_relu, 0},
    {"hardswish", NS_F, lo_unary, OP_HARDSWISH},
    {"mish", NS_F, lo_unary, OP_MISH},
    {"clamp", NS_TM, lo_clamp, OP_CLAMP},
    {"clip", NS_TM, lo_clamp, OP_CLAMP},
    {"clamp_min", NS_TM, lo_clamp, OP_CLAMP_MIN},
    {"clamp_max", NS_TM, lo_clamp, OP_CLAMP_MAX},
    {"maximum", NS_TM, lo_maximum, OP_MAXIMUM},
    {"minimum", NS_TM, lo_maximum, OP_MINIMUM},
    /* matrix products */
    {"mm", NS_TM, lo_mm, OP_MM},
    {"bmm", NS_TM, lo_mm, OP_BMM},
    {"matmul", NS_TM, lo_mm, OP_MATMUL},
    {"addmm", NS_TM, lo_addmm, 0},
    {"linear", NS_F, lo_linear, 0},
    /* shapes */
    {"view", NS_METH, lo_reshape, 0},
    {"reshape", NS_TM, lo_reshape, 0},
    {"view_as", NS_METH, lo_reshape_as, 0},
    {"reshape_as", NS_METH, lo_reshape_as, 0},
    {"transpose", NS_TM, lo_transpose, 0},
    {"swapaxes", NS_TM, lo_transpose, 0},
    {"swapdims", NS_TM, lo_transpose, 0},
    {"permute", NS_TM, lo_permute, 0},
    {"t", NS_TM, lo_t, 0},
    {"contiguous", NS_METH, lo_contiguous, 0},
    {"unsqueeze", NS_TM, lo_unsqueeze, 0},
    {"squeeze", NS_TM, lo_squeeze, 0},
    {"flatten", NS_TM, lo_flatten, 0},
    {"narrow", NS_TM, lo_narrow, 0},
    {"cat", NS_TORCH, lo_cat, OP_CAT},
    {"concat", NS_TORCH, lo_cat, OP_CAT},
    {"concatenate", NS_TORCH, lo_cat, OP_CAT},
    {"stack", NS_TORCH, lo_cat, OP_STACK},
    {"split", NS_TM, lo_split, 0},
    {"chunk", NS_TM, lo_split, 1},
    {"unbind", NS_TM, lo_split, 2},
    /* reductions, softmax, norms */
    {"sum", NS_TM, lo_reduce, OP_SUM},
    {"mean", NS_TM, lo_reduce, OP_MEAN},
    {"amax", NS_TM, lo_reduce, OP_AMAX},
    {"softmax", NS_TFM, lo_softmax, OP_SOFTMAX},
    {"log_softmax", NS_TFM, lo_softmax, OP_LOG_SOFTMAX},
    {"layer_norm", NS_TORCH | NS_F, lo_layer_norm, 0},
    {"embedding", NS_F, lo_embedding, 0},
    /* torch_npu */
    {"npu_rms_norm", NS_NPU, lo_rms_norm, 0},
    {"npu_format_cast", NS_NPU, lo_format_cast, 0},
    {"npu_quant_matmul", NS_NPU, lo_quant_matmul, 0},
    {"npu_dequant_swiglu_quant", NS_NPU, lo_dequant_swiglu_quant, 0},
    {"npu_swiglu", NS_NPU, lo_swiglu, 0},
    /* casts, identities, queries */
    {"to", NS_METH, lo_to, 0},
    {"float", NS_METH, lo_cast, DT_F32},
    {"half", NS_METH, lo_cast, DT_F16},
    {"bfloat16", NS_METH, lo_cast, DT_BF16},
    {"int", NS_METH, lo_cast, DT_I32},
    {"long", NS_METH, lo_cast, DT_I64},
    {"bool", NS_METH, lo_cast, DT_BOOL},
    {"char", NS_METH, lo_cast, DT_I8},
    {"type_as", NS_METH, lo_type_as, 0},
    {"type", NS_METH, lo_type_as, 1},
    {"npu", NS_METH, lo_same, 0},
    {"cuda", NS_METH, lo_same, 0},
    {"cpu", NS_METH, lo_same, 0},
    {"detach", NS_TM, lo_same, 0},
    {"clone", NS_TM, lo_clone, 0},
    {"requires_grad_", NS_METH, lo_same, 0},
    {"size", NS_METH, lo_query, 0},
    {"dim", NS_METH, lo_query, 0},
    {"ndimension", NS_METH, lo_query, 0},
    {"numel", NS_TM, lo_query, 0},
    {"nelement", NS_METH, lo_query, 0},
    {"element_size", NS_METH, lo_query, 0},
    {"is_floating_point", NS_TM, lo_query, 0},
    {"is_contiguous", NS_METH, lo_query, 0},
    {"copy_", NS_METH, lo_copy, 0},
    /* creation */
    {"ones", NS_TORCH | NOTENSOR, lo_create, FILL_ONE},
    {"zeros", NS_TORCH | NOTENSOR, lo_create, FILL_ZERO},
    {"empty", NS_TORCH | NOTENSOR, lo_create, FILL_ZERO},
    {"randn", NS_TORCH | NOTENSOR, lo_create, FILL_ZERO},
    {"rand", NS_TORCH | NOTENSOR, lo_create, FILL_ZERO},
    {"full", NS_TORCH | NOTENSOR, lo_create, FILL_FULL},
    {"randint", NS_TORCH | NOTENSOR, lo_create, FILL_RANDINT},
    {"tensor", NS_TORCH | NOTENSOR, lo_tensor, 0},
    {"ones_like", NS_TORCH, lo_create_like, FILL_ONE},
    {"zeros_like", NS_TORCH, lo_create_like, FILL_ZERO},
    {"empty_like", NS_TORCH, lo_create_like, FILL_ZERO},
    {"randn_like", NS_TORCH, lo_create_like, FILL_ZERO},
    {"rand_like", NS_TORCH, lo_create_like, FILL_ZERO},
    {"full_like", NS_TORCH, lo_create_like, FILL_FULL},
    {"new_zeros", NS_METH, lo_create_like, FILL_ZERO},
    {"new_ones", NS_METH, lo_create_like, FILL_ONE},
    {"new_empty", NS_METH, lo_create_like, FILL_ZERO},
    {"new_full", NS_METH, lo_create_like, FILL_FULL},
    /* -- creation and constants -- */
    {"arange", NS_TORCH | NOTENSOR, lo_arange, 0},
    {"finfo", NS_TORCH | NOTENSOR, lo_finfo, 0},
    {"iinfo", NS_TORCH | NOTENSOR, lo_finfo, 1},
    /* -- shape -- */
    {"triu", NS_TM, lo_tri, OP_TRIU},
    {"tril", NS_TM, lo_tri, OP_TRIL},
    {"expand", NS_METH, lo_expand, 0},
    {"expand_as", NS_METH, lo_expand_as, 0},
    {"broadcast_to", NS_TM, lo_expand, 1},
    {"repeat", NS_METH, lo_repeat, 0},
    {"repeat_interleave", NS_TM, lo_repeat_interleave, 0},
    {"flip", NS_TM, lo_flip, 0},
    {"fliplr", NS_TM, lo_flip, 1},
    {"flipud", NS_TM, lo_flip, 2},
    {"roll", NS_TM, lo_roll, 0},
    {"movedim", NS_TM, lo_movedim, 0},
    {"moveaxis", NS_TM, lo_movedim, 0},
    {"unflatten", NS_TM, lo_unflatten, 0},
    {"pad", NS_F, lo_pad, 0},
    /* -- comparison, selection, bool -- */
    {"eq", NS_TM, lo_compare, OP_EQ},
    {"ne", NS_TM, lo_compare, OP_NE},
    {"not_equal", NS_TM, lo_compare, OP_NE},
    {"lt", NS_TM, lo_compare, OP_LT},
    {"less", NS_TM, lo_compare, OP_LT},
    {"le", NS_TM, lo_compare, OP_LE},
    {"less_equal", NS_TM, lo_compare, OP_LE},
    {"gt", NS_TM, lo_compare, OP_GT},
    {"greater", NS_TM, lo_compare, OP_GT},
    {"ge", NS_TM, lo_compare, OP_GE},
    {"greater_equal", NS_TM, lo_compare, OP_GE},
    {"logical_and", NS_TM, lo_bool, OP_LOGICAL_AND},
    {"logical_or", NS_TM, lo_bool, OP_LOGICAL_OR},
    {"logical_xor", NS_TM, lo_bool, OP_LOGICAL_XOR},
    {"logical_not", NS_TM, lo_bool, OP_LOGICAL_NOT},
    {"bitwise_and", NS_TM, lo_bool, OP_BITWISE_AND},
    {"bitwise_or", NS_TM, lo_bool, OP_BITWISE_OR},
    {"bitwise_xor", NS_TM, lo_bool, OP_BITWISE_XOR},
    {"bitwise_not", NS_TM, lo_bool, OP_BITWISE_NOT},
    {"isnan", NS_TM, lo_unary, OP_ISNAN},
    {"isinf", NS_TM, lo_unary, OP_ISINF},
    {"isfinite", NS_TM, lo_unary, OP_ISFINITE},
    {"where", NS_TM, lo_where, 0},
    {"masked_fill", NS_TM, lo_masked_fill, 0},
    {"any", NS_TM, lo_any_all, OP_REDUCE_ANY},
    {"all", NS_TM, lo_any_all, OP_REDUCE_ALL},
    {"zero_", NS_METH, lo_fill_, 0},
    {"fill_", NS_METH, lo_fill_, 1},
    /* -- reductions, sorting, contractions -- */
    {"topk", NS_TM, lo_topk, 0},
    {"sort", NS_TM, lo_sort, OP_SORT},
    {"argsort", NS_TM, lo_sort, OP_ARGSORT},
    {"max", NS_TM, lo_max, OP_AMAX},
    {"min", NS_TM, lo_max, OP_AMIN},
    {"amin", NS_TM, lo_reduce, OP_AMIN},
    {"argmax", NS_TM, lo_argmax, OP_ARGMAX},
    {"argmin", NS_TM, lo_argmax, OP_ARGMIN},
    {"prod", NS_TM, lo_prod, 0},
    {"cumsum", NS_TM, lo_cumsum, 0},
    {"var", NS_TM, lo_var, 0},
    {"std", NS_TM, lo_var, 1},
    {"norm", NS_TM, lo_norm, 0},
    {"linalg.vector_norm", NS_TORCH, lo_norm, 1},
    {"normalize", NS_F, lo_normalize, 0},
    {"outer", NS_TM, lo_outer, 0},
    {"ger", NS_TM, lo_outer, 0},
    {"baddbmm", NS_TM, lo_baddbmm, 0},
    {"einsum", NS_TORCH | NOTENSOR, lo_einsum, 0},
    /* -- indexing and scatter -- */
    {"index_select", NS_TM, lo_index_select, 0},
    {"gather", NS_TM, lo_index_select, 1},
    {"scatter", NS_TM, lo_scatter, 0},
    {"scatter_", NS_METH, lo_scatter, IX_INPLACE},
    {"scatter_add", NS_TM, lo_scatter, IX_ADD},
    {"scatter_add_", NS_METH, lo_scatter, IX_ADD | IX_INPLACE},
    {"index_add", NS_TM, lo_index_add, IX_ADD},
    {"index_add_", NS_METH, lo_index_add, IX_ADD | IX_INPLACE},
    {"index_copy", NS_TM, lo_index_add, 0},
    {"index_copy_", NS_METH, lo_index_add, IX_INPLACE},
    {"index_put", NS_TM, lo_index_put, 0},
    {"index_put_", NS_METH, lo_index_put, IX_INPLACE},
    {"one_hot", NS_F, lo_one_hot, 0},
    /* -- neural net -- */
    {"dropout1d", NS_F, lo_dropout, 0},
    {"dropout2d", NS_F, lo_dropout, 0},
    {"dropout3d", NS_F, lo_dropout, 0},
    {"alpha_dropout", NS_TORCH | NS_F, lo_dropout, 0},
    {"feature_alpha_dropout", NS_TORCH | NS_F, lo_dropout, 0},
    {"feature_dropout", NS_TORCH, lo_dropout, 0},
    {"scaled_dot_product_attention", NS_F, lo_sdpa, 0},
    {"conv1d", NS_TORCH | NS_F, lo_conv, 1},
    {"conv2d", NS_TORCH | NS_F, lo_conv, 2},
    {"batch_norm", NS_F, lo_batch_norm, 0},
    {"group_norm", NS_TORCH | NS_F, lo_group_norm, 0},
    {"max_pool2d", NS_TORCH | NS_F, lo_pool2d, OP_MAX_POOL2D},
    {"avg_pool2d", NS_F, lo_pool2d, OP_AVG_POOL2D},
    {"adaptive_avg_pool2d", NS_F, lo_adaptive_pool2d, OP_ADAPTIVE_AVG_POOL2D},
    {"adaptive_max_pool2d", NS_F, lo_adaptive_pool2d, OP_ADAPTIVE_MAX_POOL2D},
    {"interpolate", NS_F, lo_interpolate, 0},
    {"dropout", NS_TORCH | NS_F, lo_dropout, 0},
    /* -- torch_npu fused ops -- */
    {"npu_add_rms_norm", NS_NPU, lo_add_rms_norm, 0},
    {"npu_rotary_mul", NS_NPU, lo_rotary_mul, 0},
    {"npu_interleave_rope", NS_NPU, lo_interleave_rope, 0},
    {"npu_apply_rotary_pos_emb", NS_NPU, lo_apply_rotary_pos_emb, 0},
    {"npu_prefetch", NS_NPU, lo_prefetch, 0},
    {"npu_dynamic_quant", NS_NPU, lo_dynamic_quant, 0},
    {"npu_moe_gating_top_k_softmax", NS_NPU, lo_moe_gating_top_k_softmax, 0},
    {"npu_moe_gating_top_k", NS_NPU, lo_moe_gating_top_k, 0},
    {"npu_fused_infer_attention_score", NS_NPU, lo_attention, ATTN_FIA},
    {"npu_incre_flash_attention", NS_NPU, lo_attention, ATTN_IFA},
    {"npu_prompt_flash_attention", NS_NPU, lo_attention, ATTN_PFA},
    {"npu_grouped_matmul", NS_NPU, lo_grouped_matmul, 0},
    {"scatter_update_", NS_NPU, lo_scatter_update, 2},
    {"scatter_update", NS_NPU, lo_scatter_update, 0},
    {"npu_scatter_nd_update_", NS_NPU, lo_scatter_update, 3},
    {"npu_scatter_nd_update", NS_NPU, lo_scatter_update, 1},
};

static const struct LibEntry *lib_find(const char *name, unsigned ns)
{
    for (size_t i = 0; i < NELEM(lib); i++)
        if ((lib[i].ns & ns) && strcmp(lib[i].name, name) == 0)
            return &lib[i];
    return NULL;
}

static Obj *lib_call(Interp *I, const struct LibEntry *e, const char *full, Obj *self, CallArgs *a);

/* f(..., out=t): the result written into t as an in-place op writes it
 * (views_write), t returned. PyTorch resizes an out tensor of another
 * shape and casts into another dtype where it can: tngc writes only into
 * one of the result's shape and dtype (TNG211 else). */
static Obj *lib_call_out(Interp *I, const struct LibEntry *e, const char *full, Obj *self, CallArgs *a)
{
    CallArgs b = *a;
    Obj *out = NULL;
    b.kwnames = interp_alloc(I, (a->nkw + 1) * sizeof *b.kwnames);
    b.kw = interp_alloc(I, (a->nkw + 1) * sizeof *b.kw);
    b.nkw = 0;
    for (size_t i = 0; i < a->nkw; i++) {
        if (streq(a->kwnames[i], "out")) {
            out = a->kw[i];
            continue;
        }
        b.kwnames[b.nkw] = a->kwnames[i];
        b.kw[b.nkw++] = a->kw[i];
    }
    if (!is_tensor(out))
        return obj_has_unknown(out) ? unk(I) : interp_break(I, a->node, RULE_TNG211, "%s with out= of "
                                                           "something other than one tensor", full);
    Obj *r = lib_call(I, e, full, self, &b);
    if (!is_tensor(r))
        return r;
    int32_t rv = tl_tv(I, r, a->node), ov = tl_tv(I, out, a->node);
    if (rv < 0 || ov < 0)
        return unk(I);
    const Val *x = val_at(I, rv), *y = val_at(I, ov);
    int same = x->ndim == y->ndim && x->dtype == y->dtype;
    for (int d = 0; same && d < x->ndim; d++)
        same = x->dims[d] == y->dims[d];
    if (!same)
        return interp_break(I, a->node, RULE_TNG211, "%s(..., out=): out must have the result's shape and "
                            "dtype (PyTorch would resize or cast it)", full);
    return views_write(I, out, rv, a->node, "out=");
}

/* Calls a library entry: methods get self as argument 0. */
static Obj *lib_call(Interp *I, const struct LibEntry *e, const char *full, Obj *self, CallArgs *a)
{
    if (args_kw(a, "out"))
        return lib_call_out(I, e, full, self, a);
    CallArgs sh = *a;
    if (self) {
        sh.npos = a->npos + 1;
        sh.pos = interp_alloc(I, (sh.npos + 1) * sizeof *sh.pos);
        sh.pos[0] = self;
        for (size_t i = 0; i < a->npos; i++)
            sh.pos[i + 1] = a->pos[i];
    }
    Call c;
    c.name = e->name;
    c.full = full;
    c.a = &sh;
    c.node = a->node;
    c.method = self != NULL;
    c.arg = e->arg;
    /* an unknown tensor operand is the echo of an earlier diagnostic:
     * silent; unknown sizes, dims and scalars are reported where used */
    if (obj_has_unknown(self) || (!(e->ns & NOTENSOR) && is_unknown(ARG0(&c))))
        return unk(I);
    if (a->has_star)
        return interp_break(I, a->node, RULE_TNG205, "the arguments of %s (*args or **kwargs) are not known "
                            "at compile time", full);
    Obj *r = e->fn(I, &c);
    /* what PyTorch returns as a view of the first argument is one here too;
     * of torch.nn.functional only dropout returns its argument (F.unfold
     * is no view) */
    const char *vname = strncmp(full, "torch.nn.functional.", 20) != 0 || strstr(e->name, "dropout") ? e->name
                                                                                                     : "";
    views_after_call(I, vname, sh.pos, sh.npos, r, a->node);
    return r;
}

/* ===================================================================== */
/* Entry points: calls and attributes                                    */
/* ===================================================================== */

/* Parameter creation: torch.nn.Parameter(data, requires_grad=True) */
static Obj *make_parameter(Interp *I, CallArgs *a)
{
    Obj *t = args_get(a, 0, "data");
    if (!t)
        return interp_break(I, a->node, RULE_TNG203, "torch.nn.Parameter() without data");
    if (!is_tensor(t))
        return obj_has_unknown(t) ? unk(I) : interp_break(I, a->node, RULE_TNG203, "torch.nn.Parameter of a non-tensor");
    t->t->is_param = 1;
    t->t->requires_grad = obj_flag(args_get(a, 1, "requires_grad"), 1);
    return t;
}

Obj *torchlib_call(Interp *I, const char *name, Obj *self_obj, CallArgs *a)
{
    if (!name || !a)
        return NULL;
    if (self_obj) {
        if (self_obj->kind == O_UNKNOWN)
            return unk(I);
        if (self_obj->kind == O_INST)
            return tl_module_method(I, name, self_obj, a);
        if (self_obj->kind != O_TENSOR)
            return NULL;
        const struct LibEntry *e = lib_find(name, NS_METH);
        if (!e) {
            Obj *r = tl_inplace_method(I, name, self_obj, a);
            if (!r)   /* a method tngc does not know may change the tensor's data */
                interp_host_inexact(I, self_obj);
            return r;
        }
        return lib_call(I, e, interp_printf(I, "Tensor.%s", name), self_obj, a);
    }
    unsigned ns;
    const char *fn;
    if (strncmp(name, "torch.nn.functional.", 20) == 0) {
        ns = NS_F, fn = name + 20;
    } else if (strncmp(name, "torch_npu.", 10) == 0) {
        ns = NS_NPU, fn = name + 10;
    } else if (strncmp(name, "torch.nn.", 9) == 0) {
        if (strncmp(name, "torch.nn.init.", 14) == 0)   /* initialisers write data tngc does not know */
            for (size_t i = 0; i < a->npos; i++)
                interp_host_inexact(I, a->pos[i]);
        if (streq(name, "torch.nn.Parameter") || streq(name, "torch.nn.parameter.Parameter"))
            return make_parameter(I, a);
        return tl_module_construct(I, name, a);
    } else if (strncmp(name, "torch.", 6) == 0) {
        ns = NS_TORCH, fn = name + 6;
    } else {
        return NULL;
    }
    const struct LibEntry *e = lib_find(fn, ns);
    if (!e) {
        for (size_t i = 0; i < a->npos; i++)   /* it may write into its tensor arguments */
            interp_host_inexact(I, a->pos[i]);
        return NULL;
    }
    return lib_call(I, e, name, NULL, a);
}

Obj *torchlib_getattr(Interp *I, Obj *obj, const char *name, int32_t node)
{
    if (!obj || !name)
        return NULL;
    if (obj->kind == O_BUILTIN && obj->s) {
        if (streq(obj->s, "torch")) {
            DType dt = dtype_from_torch_name(name);
            if (dt != DT_UNKNOWN)
                return obj_dtype(I, dt);
            if (streq(name, "pi"))
                return obj_float(I, M_PI_VALUE);
            if (streq(name, "inf"))
                return obj_float(I, INFINITY);
            return NULL;
        }
        if (streq(obj->s, "math")) {
            if (streq(name, "pi"))
                return obj_float(I, M_PI_VALUE);
            if (streq(name, "e"))
                return obj_float(I, exp(1.0));
            if (streq(name, "tau"))
                return obj_float(I, 2 * M_PI_VALUE);
            if (streq(name, "inf"))
                return obj_float(I, INFINITY);
        }
        return NULL;
    }
    if (obj->kind == O_TENSOR) {
        int32_t v = tl_tv(I, obj, node);
        if (v < 0)
            return unk(I);
        const Val *x = val_at(I, v);
        if (streq(name, "shape")) {
            Obj *items[GRAPH_MAX_DIMS];
            for (int i = 0; i < x->ndim; i++)
                items[i] = obj_dim(I, x->dims[i]);
            return obj_tuple(I, items, x->ndim);
        }
        if (streq(name, "dtype"))
            return obj_dtype(I, x->dtype);
        if (streq(name, "ndim"))
            return obj_int(I, x->ndim);
        if (streq(name, "T")) {   /* reverses all dims */
            int n = x->ndim;
            if (n < 2)
                return obj;
            int64_t perm[GRAPH_MAX_DIMS];
            for (int i = 0; i < n; i++)
                perm[i] = n - 1 - i;
            Obj *r = tl_permute_of(I, obj, v, perm, n, node);
            views_of(I, obj, r, node);
            return r;
        }
        if (streq(name, "mT")) {
            if (x->ndim < 2)
                return interp_break(I, node, RULE_TNG206, "mT of a tensor of fewer than 2 dims");
            Obj *r = tl_transpose_last2(I, obj, v, node);
            views_of(I, obj, r, node);
            return r;
        }
        if (streq(name, "data"))
            return obj;
        if (streq(name, "requires_grad"))
            return obj_bool(I, obj->t->requires_grad || obj->t->is_param);
        if (streq(name, "is_cuda") || streq(name, "is_npu") || streq(name, "device") || streq(name, "grad") ||
            streq(name, "is_leaf"))
            return unk(I);
        if (streq(name, "itemsize"))
            return obj_int(I, dtype_size(x->dtype));
        return NULL;
    }
    if (obj->kind == O_INST && !obj->cls && obj->s) {
        static const struct { const char *attr, *cls; int dim; } fromw[] = {
            {"in_features", "torch.nn.Linear", 1}, {"out_features", "torch.nn.Linear", 0},
            {"num_embeddings", "torch.nn.Embedding", 0}, {"embedding_dim", "torch.nn.Embedding", 1}};
        for (size_t i = 0; i < NELEM(fromw); i++)
            if (streq(name, fromw[i].attr) && streq(obj->s, fromw[i].cls)) {
                Obj *w = obj_getattr(obj, "weight");
                int32_t v = is_tensor(w) && w->t->g == G(I) ? w->t->value : -1;
                if (v < 0 || (size_t)v >= G(I)->vals.n || val_at(I, v)->ndim != 2)
                    return unk(I);
                return obj_dim(I, val_at(I, v)->dims[fromw[i].dim]);
            }
        if (streq(name, "training"))
            return obj_bool(I, 0);
        return NULL;
    }
    return NULL;
}

/* ===================================================================== */
/* Operators                                                             */
/* ===================================================================== */

/* l op r with a tensor operand: + - * / ** @ (and the scalar forms on
 * either side), comparisons and & | ^ (tl_compare_binop); // and % are not lowered */
Obj *torchlib_binop(Interp *I, const char *op, Obj *l, Obj *r, int32_t node)
{
    if (!op || !l || !r || (!is_tensor(l) && !is_tensor(r)))
        return NULL;
    if (obj_has_unknown(l) || obj_has_unknown(r))
        return unk(I);
    static const struct { const char *op; OpKind k; } ar[] = {
        {"+", OP_ADD}, {"-", OP_SUB}, {"*", OP_MUL}, {"/", OP_DIV}};
    for (size_t i = 0; i < NELEM(ar); i++)
        if (streq(op, ar[i].op))
            return tl_arith(I, ar[i].k, l, r, 1, node, interp_printf(I, "operator '%s'", op));
    if (streq(op, "**"))
        return pow_of(I, l, r, node);
    if (streq(op, "@")) {
        if (!is_tensor(l) || !is_tensor(r))
            return interp_break(I, node, RULE_TNG203, "operator '@' needs two tensors");
        int32_t in[2] = {tl_tv(I, l, node), tl_tv(I, r, node)};
        if (in[0] < 0 || in[1] < 0)
            return unk(I);
        return tl_emit1(I, OP_MATMUL, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, node);
    }
    Obj *cb = tl_compare_binop(I, op, l, r, node);
    if (cb)
        return cb;
    return interp_break(I, node, RULE_TNG203, "operator '%s' on a tensor is not in the compilable subset", op);
}

Obj *torchlib_add(Interp *I, Obj *l, Obj *r, int32_t node, const char *what)
{
    return tl_arith(I, OP_ADD, l, r, 1, node, what);
}

Obj *torchlib_abs(Interp *I, Obj *x, int32_t node)
{
    int32_t v = tl_tv(I, x, node);
    return v < 0 ? unk(I) : tl_emit_x(I, OP_ABS, v, NULL, 0, 0, DT_UNKNOWN, node);
}

/* -x | +x | ~x */
Obj *torchlib_unop(Interp *I, const char *op, Obj *o, int32_t node)
{
    if (!op || !is_tensor(o))
        return NULL;
    if (streq(op, "+"))
        return o;
    if (streq(op, "-")) {
        int32_t v = tl_tv(I, o, node);
        return v < 0 ? unk(I) : tl_emit_x(I, OP_NEG, v, NULL, 0, 0, DT_UNKNOWN, node);
    }
    if (streq(op, "not"))
        return interp_break(I, node, RULE_TNG204, "the truth of a tensor is only known at run time");
    if (streq(op, "~")) {
        int32_t v = tl_tv(I, o, node);
        return v < 0 ? unk(I) : tl_emit_x(I, OP_BITWISE_NOT, v, NULL, 0, 0, DT_UNKNOWN, node);
    }
    return interp_break(I, node, RULE_TNG203, "operator '%s' on a tensor is not in the compilable subset", op);
}

/* ===================================================================== */
/* Subscripts                                                            */
/* ===================================================================== */

/* One index of a subscript, resolved. */
typedef enum IxKind { IX_FULL, IX_INT, IX_SLICE, IX_NEW, IX_ELLIPSIS } IxKind;
typedef struct Ix {
    IxKind kind;
    int64_t start, stop, step;   /* IX_INT: start is the index */
    DimId dstart, dstop;         /* IX_SLICE: a symbolic bound (reads only), else -1 */
} Ix;

/* A slice bound: None (def), an int, or a constant symbolic int. 0 after a
 * diagnostic. */
static int slice_bound(Interp *I, const Obj *o, int64_t def, int32_t node, int64_t *v, RuleId rule)
{
    if (is_none(o)) {
        *v = def;
        return 1;
    }
    if (o->kind == O_UNKNOWN)
        return 0;
    if (obj_int_value(o, v) && o->kind != O_BOOL)
        return 1;
    if (o->kind == O_DIM) {
        if (graph_dim_const_value(G(I), o->dim, v))
            return 1;
        interp_break(I, node, rule, "a slice bound that depends on a dynamic dim");
        return 0;
    }
    interp_break(I, node, RULE_TNG203, "a slice bound that is not an int");
    return 0;
}

/* Resolves index (an int, slice, None, Ellipsis or a tuple of them) for a
 * tensor of rank n into ix (ellipsis expanded into full slices); returns the
 * count, or -1 after a diagnostic. rule: the rule for non-constant bounds. */
static int resolve_index(Interp *I, Obj *index, int n, int32_t node, RuleId rule, Ix *ix, int max)
{
    Obj *const *items = index->kind == O_TUPLE ? index->items : &index;
    size_t cnt = index->kind == O_TUPLE ? index->n : 1;
    int consumed = 0, ellipses = 0;
    for (size_t i = 0; i < cnt; i++) {
        Obj *o = items[i];
        if (o->kind == O_SLICE)
            for (size_t k = 0; k < o->n; k++)
                if (is_unknown(o->items[k])) {
                    if (!obj_reported(o->items[k]))
                        interp_break(I, node, rule, "a slice bound is not known at compile time%s",
                                     interp_unknown_origin(I, o->items[k], node));
                    return -1;
                }
        if (is_unknown(o)) {
            if (!obj_reported(o))
                interp_break(I, node, rule, "a tensor index is not known at compile time%s",
                             interp_unknown_origin(I, o, node));
            return -1;
        }
        switch (o->kind) {
        case O_INT: case O_DIM: case O_SLICE: consumed++; break;
        case O_NONE: break;
        case O_ELLIPSIS: ellipses++; break;
        case O_TENSOR: case O_LIST: case O_BOOL: case O_TUPLE:
            interp_break(I, node, rule == RULE_TNG211 ? RULE_TNG211 : RULE_TNG203,
                         "indexing a tensor with a tensor, list or bool (advanced indexing) is not in the "
                         "compilable subset");
            return -1;
        default:
            interp_break(I, node, RULE_TNG203, "a tensor index tngc cannot lower");
            return -1;
        }
    }
    if (ellipses > 1) {
        interp_break(I, node, RULE_TNG206, "an index can only have a single ellipsis");
        return -1;
    }
    if (consumed > n) {
        interp_break(I, node, RULE_TNG206, "too many indices for a tensor of dimension %d", n);
        return -1;
    }
    int k = 0;
    for (size_t i = 0; i < cnt; i++) {
        Obj *o = items[i];
        if (o->kind == O_ELLIPSIS) {
            for (int j = 0; j < n - consumed && k < max; j++)
                ix[k++].kind = IX_FULL;
            continue;
        }
        if (k >= max) {
            interp_break(I, node, RULE_TNG206, "an index of too many parts");
            return -1;
        }
        Ix *x = &ix[k++];
        memset(x, 0, sizeof *x);
        if (o->kind == O_NONE) {
            x->kind = IX_NEW;
        } else if (o->kind == O_INT || o->kind == O_DIM) {
            x->kind = IX_INT;
            if (!slice_bound(I, o, 0, node, &x->start, rule))
                return -1;
        } else {   /* O_SLICE */
            if (o->n < 3) {
                interp_break(I, node, RULE_TNG203, "a malformed slice");
                return -1;
            }
            int64_t cv;
            x->dstart = x->dstop = -1;
            /* reads (rule TNG205) take a bound that is a dynamic dim: SLICE_DYN */
            if (rule == RULE_TNG205 && o->items[0]->kind == O_DIM && !graph_dim_const_value(G(I), o->items[0]->dim, &cv))
                x->dstart = o->items[0]->dim;
            if (rule == RULE_TNG205 && o->items[1]->kind == O_DIM && !graph_dim_const_value(G(I), o->items[1]->dim, &cv))
                x->dstop = o->items[1]->dim;
            if ((x->dstart < 0 && !slice_bound(I, o->items[0], 0, node, &x->start, rule)) ||
                (x->dstop < 0 && !slice_bound(I, o->items[1], GRAPH_END, node, &x->stop, rule)) ||
                !slice_bound(I, o->items[2], 1, node, &x->step, rule))
                return -1;
            if (x->step <= 0) {
                interp_break(I, node, RULE_TNG203, "a slice step must be positive (negative steps are "
                             "not supported by torch)");
                return -1;
            }
            x->kind = x->start == 0 && x->stop == GRAPH_END && x->step == 1 && x->dstart < 0 && x->dstop < 0
                          ? IX_FULL : IX_SLICE;
        }
    }
    return k;
}

/* 1 when index (a tensor or a tuple) holds a 0-d integer tensor, which
 * PyTorch indexes with as with an int: a view whose place is data. */
static int index_has_0d_int(Interp *I, Obj *index, int32_t node)
{
    Obj **items = index->kind == O_TUPLE ? index->items : &index;
    size_t n = index->kind == O_TUPLE ? index->n : 1;
    for (size_t i = 0; i < n; i++) {
        int32_t v = is_tensor(items[i]) ? tl_tv(I, items[i], node) : -1;
        if (v >= 0 && val_at(I, v)->ndim == 0 && val_at(I, v)->dtype != DT_BOOL &&
            !dtype_is_float(val_at(I, v)->dtype))
            return 1;
    }
    return 0;
}

/* t[index] */
Obj *torchlib_subscript(Interp *I, Obj *t, Obj *index, int32_t node)
{
    if (!is_tensor(t) || !index)
        return unk(I);
    if (tl_index_has_tensor(index)) {   /* advanced indexing: indexing and scatter */
        Obj *r = tl_index_subscript(I, t, index, node);
        if (index_has_0d_int(I, index, node))
            views_undecided(I, t, r, node);   /* PyTorch: a view at a place tngc does not know */
        return r;
    }
    int32_t x = tl_tv(I, t, node);
    if (x < 0)
        return unk(I);
    Ix ix[2 * GRAPH_MAX_DIMS + 2];
    int n = resolve_index(I, index, rank_of(I, x), node, RULE_TNG205, ix, (int)NELEM(ix));
    if (n < 0)
        return unk(I);
    Obj *cur = t;
    int64_t p = 0;   /* the dim of cur the next index applies to */
    for (int i = 0; i < n; i++) {
        switch (ix[i].kind) {
        case IX_FULL:
            p++;
            break;
        case IX_NEW:
            cur = tl_unsqueeze_at(I, x, p, node);
            p++;
            break;
        case IX_INT: {
            int64_t attr[2] = {p, ix[i].start};
            cur = tl_emit_x(I, OP_SELECT, x, attr, 2, 0, DT_UNKNOWN, node);
            break;
        }
        case IX_SLICE:
            if (ix[i].dstart >= 0 || ix[i].dstop >= 0)
                cur = tl_slice_dyn_of(I, x, p, ix[i].dstart, ix[i].start, ix[i].dstop, ix[i].stop, ix[i].step, node);
            else
                cur = tl_slice_of(I, x, p, ix[i].start, ix[i].stop, ix[i].step, node);
            p++;
            break;
        case IX_ELLIPSIS:
            break;
        }
        if (cur != t && (x = tl_tv(I, cur, node)) < 0)
            return unk(I);
    }
    views_of(I, t, cur, node);   /* basic indexing gives a view */
    return cur;
}

Obj *torchlib_rows(Interp *I, Obj *t, int32_t node)
{
    Obj *rows = obj_seq(I, O_LIST);
    int32_t v = interp_val(I, t, node);
    int64_t n0;
    if (v < 0 || G(I)->vals.v[v].ndim == 0 || !graph_dim_const_value(G(I), G(I)->vals.v[v].dims[0], &n0) ||
        n0 > 1024)
        return NULL;
    for (int64_t k = 0; k < n0; k++)
        obj_push(I, rows, torchlib_subscript(I, t, obj_int(I, k), node));
    return rows;
}

/* t[index] = v: one sliced or integer-indexed dim, the others full */
int torchlib_store_subscript(Interp *I, Obj *t, Obj *index, Obj *v, int32_t node)
{
    if (!is_tensor(t) || !index || !v)
        return -1;
    if (is_unknown(v))
        return -1;
    if (tl_index_has_tensor(index))   /* advanced indexing: indexing and scatter */
        return tl_index_store_subscript(I, t, index, v, node);
    int32_t dst = tl_tv(I, t, node);
    if (dst < 0)
        return -1;
    int32_t src;
    double num;
    int num_int;
    if (tl_py_number(v, &num, &num_int)) {   /* t[i] = 2.5: a 0-d tensor of t's dtype */
        src = tl_tv(I, tl_full_of(I, NULL, 0, num, val_at(I, dst)->dtype, node), node);
    } else if (!is_tensor(v)) {
        interp_break(I, node, RULE_TNG211, "assigning something that is not a tensor or a number to a "
                     "tensor slice");
        return -1;
    } else {
        src = tl_tv(I, v, node);
    }
    if (src < 0 || (dst = views_write_begin(I, t, node, "slice assignment")) < 0)
        return -1;
    int r = rank_of(I, dst);
    Ix ix[2 * GRAPH_MAX_DIMS + 2];
    int n = resolve_index(I, index, r, node, RULE_TNG211, ix, (int)NELEM(ix));
    if (n < 0)
        return -1;
    /* PyTorch drops the leading size-1 dims of a value of more dims than
     * the indexed view has (x[0] = y[None, None]) */
    int vr = r;
    for (int i = 0; i < n; i++)
        vr += ix[i].kind == IX_NEW ? 1 : ix[i].kind == IX_INT ? -1 : 0;
    for (int64_t one; rank_of(I, src) > vr && graph_dim_const_value(G(I), val_at(I, src)->dims[0], &one) &&
                      one == 1;) {
        DimId d[GRAPH_MAX_DIMS];
        int sr = tl_dims_of(I, src, d);
        if ((src = tl_tv(I, tl_reshape_to(I, src, d + 1, sr - 1, node), node)) < 0)
            return -1;
    }
    int which = -1, dim = 0, general = t->t->base != NULL;
    for (int i = 0; i < n && !general; i++) {
        if (ix[i].kind == IX_NEW || ix[i].dstart >= 0 || ix[i].dstop >= 0) {
            general = 1;
        } else if (ix[i].kind == IX_INT || ix[i].kind == IX_SLICE) {
            general = which >= 0;
            which = i;
            dim = i;   /* no None: index i applies to dim i */
        }
    }
    if (general) {   /* through the view t[index], as PyTorch's t[index].copy_(v) */
        Obj *view = torchlib_subscript(I, t, index, node);
        if (!is_tensor(view))
            return -1;
        int32_t in[2] = {views_write_begin(I, view, node, "slice assignment"), src};
        if (in[0] < 0)
            return -1;
        int32_t op = tl_emit(I, OP_COPY, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, node);
        return op < 0 ? -1 : views_write_end(I, view, G(I)->ops.v[op].out, node);
    }
    int32_t op;
    if (which < 0) {   /* t[:] = v, t[...] = v: the whole tensor */
        int32_t in[2] = {dst, src};
        op = tl_emit(I, OP_COPY, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, node);
    } else {
        Ix *x = &ix[which];
        int64_t attr[4] = {dim, x->start, x->stop, x->step};
        if (x->kind == IX_INT) {
            int64_t nsz;
            if (graph_dim_const_value(G(I), val_at(I, dst)->dims[dim], &nsz) &&
                (x->start >= nsz || x->start < -nsz)) {
                interp_break(I, node, RULE_TNG206, "index %lld is out of bounds for dim %d with size %lld",
                             (long long)x->start, dim, (long long)nsz);
                return -1;
            }
            if (x->start == INT64_MAX) {   /* past every dim; start + 1 would overflow */
                interp_break(I, node, RULE_TNG206, "index %lld is out of bounds for dim %d",
                             (long long)x->start, dim);
                return -1;
            }
            attr[2] = x->start == -1 ? GRAPH_END : x->start + 1;
            attr[3] = 1;
            /* the indexed shape lacks dim; src aligned to it from the right
             * gets the size-1 dim back when it reaches that far */
            int after = r - 1 - dim, sr = rank_of(I, src);
            if (sr > after) {
                Obj *s2 = tl_unsqueeze_at(I, src, sr - after, node);
                if ((src = tl_tv(I, s2, node)) < 0)
                    return -1;
            }
        }
        int32_t in[2] = {dst, src};
        op = tl_emit(I, OP_SLICE_STORE, in, 2, attr, 4, 0, 0, DT_UNKNOWN, node);
    }
    if (op < 0)
        return -1;
    return views_write_end(I, t, G(I)->ops.v[op].out, node);
}
