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
 * Layout: helpers; dtypes; tensor arguments; the lowering functions
 * (lo_*: arithmetic, products, shapes, reductions and norms, torch_npu,
 * in-place updates, casts and queries, creation), each under the Python
 * signature it lowers; the name table `lib`; nn modules (the table
 * `nn_modules`: class, constructor, forward); the entry points;
 * operators; subscripts.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torchlib.h"

#define M_PI_VALUE 3.14159265358979323846
#define NELEM(a) (sizeof(a) / sizeof *(a))

/* ===================================================================== */
/* Small helpers                                                         */
/* ===================================================================== */

static Graph *G(Interp *I) { return interp_graph(I); }

/* ceil(a / b) for a >= 0, b > 0, without the overflow of (a + b - 1) / b. */
static int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

/* The Val of value id v in the current graph. */
static const Val *val_at(Interp *I, int32_t v) { return &G(I)->vals.v[v]; }

/* The rank of value v. */
static int rank_of(Interp *I, int32_t v) { return val_at(I, v)->ndim; }

/* Value id of tensor o in the current graph, or -1. */
static int32_t tv(Interp *I, Obj *o, int32_t node)
{
    if (!is_tensor(o))
        return -1;
    int32_t v = interp_val(I, o, node);
    if (v < 0 || (size_t)v >= G(I)->vals.n)
        return -1;
    return v;
}

/* Adds an op; returns its id or -1 (interp_op reported). */
static int32_t emit(Interp *I, OpKind kind, const int32_t *in, uint32_t nin, const int64_t *attr,
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

/* Output k of op as a tensor object; when op < 0 (interp_op has reported
 * why) an unknown already reported, so that its uses stay quiet. */
static Obj *op_out(Interp *I, int32_t op, int k)
{
    if (op < 0)
        return obj_unknown_reported(I);
    Graph *g = G(I);
    return obj_tensor(I, g->ops.v[op].out + k);
}

/* emit + op_out for single-output ops. */
static Obj *emit1(Interp *I, OpKind kind, const int32_t *in, uint32_t nin, const int64_t *attr,
                  uint32_t nattr, double f0, double f1, DType dt, int32_t node)
{
    return op_out(I, emit(I, kind, in, nin, attr, nattr, f0, f1, dt, node), 0);
}

/* A one-input op on value x. */
static Obj *emit_x(Interp *I, OpKind kind, int32_t x, const int64_t *attr, uint32_t nattr,
                   double f0, DType dt, int32_t node)
{
    return emit1(I, kind, &x, 1, attr, nattr, f0, 0, dt, node);
}

/* Normalises dim d for a rank-n tensor into *out (0 <= *out < n; a 0-d
 * tensor accepts 0 and -1). Reports TNG206 when out of range. */
static int norm_dim(Interp *I, int64_t d, int n, int32_t node, int64_t *out)
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
static int const_int(Interp *I, const Obj *o, int32_t node, const char *what, int64_t *v)
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

/* 1 when o is known (or absent); else TNG205 (a value the plan needs). */
static int known(Interp *I, const Obj *o, int32_t node, const char *what)
{
    if (!obj_has_unknown(o))
        return 1;
    if (!obj_reported(o))   /* else its cause has been reported */
        interp_break(I, node, RULE_TNG205, "%s is not known at compile time%s", what, interp_unknown_origin(I, o, node));
    return 0;
}

/* A dim argument normalised for a rank-n tensor. */
static int dim_arg(Interp *I, const Obj *o, int n, int32_t node, const char *what, int64_t *out)
{
    int64_t d;
    return const_int(I, o, node, what, &d) && norm_dim(I, d, n, node, out);
}

/* A Python number (int, bool, float): 1, *v and *is_int. */
static int py_number(const Obj *o, double *v, int *is_int)
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
static double float_arg(const Obj *o, double def)
{
    double v;
    return obj_num_value(o, &v) ? v : def;
}

/* ===================================================================== */
/* dtypes                                                                */
/* ===================================================================== */

/* The dtype o stands for: an O_DTYPE, or a builtin named "torch.float16"
 * (also "torch.half", "torch.long", ...). DT_UNKNOWN otherwise. */
static DType dtype_of_obj(const Obj *o)
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
static int dtype_arg(Interp *I, const Obj *o, int32_t node, DType *dt)
{
    *dt = DT_UNKNOWN;
    if (is_none(o))
        return 1;
    *dt = dtype_of_obj(o);
    if (*dt != DT_UNKNOWN)
        return 1;
    if (!known(I, o, node, "the dtype"))
        return 0;
    interp_break(I, node, RULE_TNG203, "dtype not supported (float32, float16, bfloat16, int8, "
                     "int32, int64 and bool are)");
    return 0;
}

/* CAST of tensor x to dt; x itself when it already has that dtype. */
static Obj *cast_to(Interp *I, Obj *x, DType dt, int32_t node)
{
    int32_t v = tv(I, x, node);
    if (v < 0)
        return unk(I);
    if (val_at(I, v)->dtype == dt)
        return x;
    return emit_x(I, OP_CAST, v, NULL, 0, 0, dt, node);
}

/* ===================================================================== */
/* Tensor arguments                                                      */
/* ===================================================================== */

/* A lowering call: the tensor operand first (self of a method, or the
 * first argument of the function form), then the other arguments. */
typedef struct Call {
    const char *name;      /* the name as written after the namespace: "add" */
    const char *full;      /* for messages: "torch.add", "Tensor.add" */
    CallArgs *a;           /* pos[0] is the tensor operand for the tensor forms */
    int32_t node;
    int method;            /* called as a tensor method */
    int arg;               /* table argument (OpKind, flags) */
} Call;

/* Argument pos (counting the tensor operand as 0) or keyword name. */
static Obj *ARG(const Call *c, size_t pos, const char *name)
{
    return args_get(c->a, pos, name);
}

/* The tensor operand: pos 0 or keyword input/self/tensor. */
static Obj *ARG0(const Call *c)
{
    Obj *o = args_get(c->a, 0, "input");
    if (!o)
        o = args_kw(c->a, "self");
    if (!o)
        o = args_kw(c->a, "tensor");
    return o;
}

/* The value of the tensor operand, or -1 after a diagnostic. */
static int32_t X0(Interp *I, const Call *c)
{
    Obj *o = ARG0(c);
    if (!is_tensor(o)) {
        if (!is_unknown(o))
            interp_break(I, c->node, RULE_TNG203, "%s expects a tensor operand", c->full);
        return -1;
    }
    return tv(I, o, c->node);
}

/* The dims of value v into d (returns the rank). */
static int dims_of(Interp *I, int32_t v, DimId *d)
{
    const Val *x = val_at(I, v);
    for (int i = 0; i < x->ndim; i++)
        d[i] = x->dims[i];
    return x->ndim;
}

/* Tensors of a tuple/list argument (or of pos[from..] when seq is NULL)
 * into vals; returns the count, or -1 after a diagnostic (silently when an
 * item is unknown). */
static int tensor_list(Interp *I, Obj *seq, int32_t node, const char *what, int32_t *vals, int max)
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
        if ((vals[i] = tv(I, t, node)) < 0)
            return -1;
    }
    return (int)seq->n;
}

/* A size (one dim of a shape) into *d: an int or symbolic int; -1 gives
 * GRAPH_INFER when allowed. 0 after a diagnostic. */
static int size_item(Interp *I, const Obj *o, int32_t node, int allow_infer, int64_t *d)
{
    int64_t c;
    if (!known(I, o, node, "a size"))
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
static int sizes_arg(Interp *I, CallArgs *a, size_t from, const char *kw, int32_t node, int allow_infer,
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
        if (!size_item(I, items[i], node, allow_infer, &out[i]))
            return -1;
    return (int)n;
}

/* A RESHAPE of value x to dims d[0..n). */
static Obj *reshape_to(Interp *I, int32_t x, const DimId *d, int n, int32_t node)
{
    int64_t attr[GRAPH_MAX_DIMS];
    for (int i = 0; i < n; i++)
        attr[i] = d[i];
    return emit_x(I, OP_RESHAPE, x, attr, (uint32_t)n, 0, DT_UNKNOWN, node);
}

/* A PERMUTE of value x; no op for the identity permutation. */
static Obj *permute_of(Interp *I, Obj *self, int32_t x, const int64_t *perm, int n, int32_t node)
{
    int ident = 1;
    for (int i = 0; i < n; i++)
        ident &= perm[i] == i;
    if (ident && self)
        return self;
    return emit_x(I, OP_PERMUTE, x, perm, (uint32_t)n, 0, DT_UNKNOWN, node);
}

/* A SLICE of value x on dim (normalised). */
static Obj *slice_of(Interp *I, int32_t x, int64_t dim, int64_t start, int64_t end, int64_t step, int32_t node)
{
    int64_t attr[4] = {dim, start, end, step};
    return emit_x(I, OP_SLICE, x, attr, 4, 0, DT_UNKNOWN, node);
}

/* x with a size-1 dim inserted at position dim (0..rank). */
static Obj *unsqueeze_at(Interp *I, int32_t x, int64_t dim, int32_t node)
{
    DimId d[GRAPH_MAX_DIMS + 1];
    int n = dims_of(I, x, d);
    if (n >= GRAPH_MAX_DIMS) {
        interp_break(I, node, RULE_TNG206, "a tensor of more than %d dims", GRAPH_MAX_DIMS);
        return unk(I);
    }
    memmove(&d[dim + 1], &d[dim], (size_t)(n - dim) * sizeof d[0]);
    d[dim] = graph_dim_const(G(I), 1);
    return reshape_to(I, x, d, n + 1, node);
}

/* The transpose of the last two dims (mT), or of a 2-d/1-d tensor (T, t()). */
static Obj *transpose_last2(Interp *I, Obj *self, int32_t x, int32_t node)
{
    int n = rank_of(I, x);
    if (n < 2)
        return self;
    int64_t perm[GRAPH_MAX_DIMS];
    for (int i = 0; i < n; i++)
        perm[i] = i;
    perm[n - 2] = n - 1;
    perm[n - 1] = n - 2;
    return permute_of(I, self, x, perm, n, node);
}

/* ===================================================================== */
/* Elementwise arithmetic                                                */
/* ===================================================================== */

/* A scalar operand of tensor arithmetic: a Python number, or a symbolic
 * int that is constant. 1 and *v; 0 when o is not one (nothing reported);
 * -1 after a diagnostic. */
static int scalar_operand(Interp *I, const Obj *o, int32_t node, double *v, int *is_int)
{
    if (py_number(o, v, is_int))
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
static Obj *arith(Interp *I, OpKind kind, Obj *l, Obj *r, double alpha, int32_t node, const char *what)
{
    if (is_unknown(l) || is_unknown(r))
        return unk(I);
    double sv;
    int si;
    if (is_tensor(l) && is_tensor(r)) {
        int32_t in[2] = {tv(I, l, node), tv(I, r, node)};
        if (in[0] < 0 || in[1] < 0)
            return unk(I);
        int64_t attr[1] = {0};
        return emit1(I, kind, in, 2, attr, 1, 0, alpha, DT_UNKNOWN, node);
    }
    int tl = is_tensor(l);
    Obj *t = tl ? l : r, *sc = tl ? r : l;
    if (!is_tensor(t))
        return interp_break(I, node, RULE_TNG203, "%s without a tensor operand", what);
    int k = scalar_operand(I, sc, node, &sv, &si);
    if (k < 0)
        return unk(I);
    if (k == 0)
        return interp_break(I, node, RULE_TNG203, "%s of a tensor and a non-number", what);
    int32_t x = tv(I, t, node);
    if (x < 0)
        return unk(I);
    /* 1 / t (the RoPE inv_freq idiom) is reciprocal(t): the same correctly
     * rounded quotient, and an op the ACL target maps (no aclnn operator
     * divides a scalar by a tensor) */
    if (kind == OP_DIV && !tl && sv == 1.0)
        return emit_x(I, OP_RECIPROCAL, x, NULL, 0, 0, DT_UNKNOWN, node);
    int64_t attr[2] = {tl ? 1 : 2, si};
    return emit1(I, kind, &x, 1, attr, 2, sv, alpha, DT_UNKNOWN, node);
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
    return arith(I, (OpKind)c->arg, l, r, alpha, c->node, c->full);
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
        return arith(I, OP_POW_T, x, e, 1, node, "pow");
    if (!is_tensor(x))
        return interp_break(I, node, RULE_TNG203, "pow without a tensor operand");
    int k = scalar_operand(I, e, node, &ev, &ei);
    if (k < 0)
        return unk(I);
    if (k == 0)
        return interp_break(I, node, RULE_TNG203, "pow with an exponent that is neither a number nor a tensor");
    int32_t v = tv(I, x, node);
    if (v < 0)
        return unk(I);
    return emit_x(I, OP_POW, v, NULL, 0, ev, DT_UNKNOWN, node);
}

static Obj *lo_pow(Interp *I, Call *c)
{
    Obj *e = ARG(c, 1, "exponent");
    if (!e)
        return interp_break(I, c->node, RULE_TNG203, "pow needs an exponent");
    return pow_of(I, ARG0(c), e, c->node);
}

/* F.relu(x, inplace=True) | nn.ReLU(inplace=True)(x): the result replaces
 * x's value, so every reference to x sees it (as PyTorch's in-place op). */
static Obj *inplace_result(Obj *x, Obj *r, const Obj *inplace)
{
    if (!inplace || !((inplace->kind == O_BOOL || inplace->kind == O_INT) && inplace->i) ||
        !x || x->kind != O_TENSOR || !r || r->kind != O_TENSOR || x->t->g != r->t->g)
        return r;
    x->t->value = r->t->value;
    return x;
}

/* torch.neg(x) | x.exp() | F.relu(x) | torch.sigmoid(x) | F.silu(x) | ... */
static Obj *lo_unary(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    Obj *r = emit_x(I, (OpKind)c->arg, x, NULL, 0, 0, DT_UNKNOWN, c->node);
    return inplace_result(ARG0(c), r, ARG(c, 1, "inplace"));
}

/* torch.round(x, *, decimals=0) | x.round(): to the nearest integer, halves
 * to even; other decimals are not compiled */
static Obj *lo_round(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    int64_t d = 0;
    Obj *dec = args_kw(c->a, "decimals");
    if (x < 0)
        return unk(I);
    if (dec && !is_none(dec) && !const_int(I, dec, c->node, "round's decimals=", &d))
        return unk(I);
    if (d != 0)
        return interp_break(I, c->node, RULE_TNG203, "round with decimals=%lld (only 0 is compiled)",
                            (long long)d);
    return emit_x(I, OP_ROUND, x, NULL, 0, 0, DT_UNKNOWN, c->node);
}

/* A number argument known at compile time: *v (def when absent); 0 after
 * TNG205. */
static int num_arg(Interp *I, const Obj *o, double def, int32_t node, const char *what, double *v)
{
    *v = def;
    if (!o || obj_num_value(o, v))
        return 1;
    if (!obj_reported(o))
        interp_break(I, node, RULE_TNG205, "%s must be a number known at compile time", what);
    return 0;
}

/* softplus(x, beta, threshold) on value x */
static Obj *softplus_of(Interp *I, int32_t x, const Obj *beta, const Obj *threshold, int32_t node)
{
    double b, t;
    if (!num_arg(I, beta, 1.0, node, "softplus's beta", &b) ||
        !num_arg(I, threshold, 20.0, node, "softplus's threshold", &t))
        return unk(I);
    if (b == 0)
        return interp_break(I, node, RULE_TNG203, "softplus with beta=0");
    return emit1(I, OP_SOFTPLUS, &x, 1, NULL, 0, b, t, DT_UNKNOWN, node);
}

/* F.softplus(input, beta=1, threshold=20) */
static Obj *lo_softplus(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    return softplus_of(I, x, ARG(c, 1, "beta"), ARG(c, 2, "threshold"), c->node);
}

/* F.leaky_relu(input, negative_slope=0.01, inplace=False) */
static Obj *lo_leaky_relu(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    double s;
    if (x < 0 || !num_arg(I, ARG(c, 1, "negative_slope"), 0.01, c->node, "leaky_relu's negative_slope", &s))
        return unk(I);
    Obj *r = emit_x(I, OP_LEAKY_RELU, x, NULL, 0, s, DT_UNKNOWN, c->node);
    return inplace_result(ARG0(c), r, ARG(c, 2, "inplace"));
}

/* A clamp bound: 0 absent (None), 1 a Python number (*v, *is_int), -1
 * after a diagnostic */
static int clamp_bound(Interp *I, const Obj *o, Call *c, double *v, int *is_int)
{
    if (is_none(o))
        return 0;
    if (py_number(o, v, is_int))
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
    int32_t x = X0(I, c);
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
        return emit1(I, OP_CLAMP, &x, 1, &int_bounds, 1, lo, hi, DT_UNKNOWN, c->node);
    return emit1(I, has_lo ? OP_CLAMP_MIN : OP_CLAMP_MAX, &x, 1, &int_bounds, 1, has_lo ? lo : hi, 0,
                 DT_UNKNOWN, c->node);
}

/* The op c->arg of input 0 and the tensor argument 1 (called `name`). */
static Obj *lo__two_tensors(Interp *I, Call *c, const char *name)
{
    Obj *b = ARG(c, 1, name);
    int32_t in[2] = {X0(I, c), -1};
    if (in[0] < 0)
        return unk(I);
    if (!is_tensor(b)) {
        if (!is_unknown(b))
            interp_break(I, c->node, RULE_TNG203, "%s expects two tensors", c->full);
        return unk(I);
    }
    if ((in[1] = tv(I, b, c->node)) < 0)
        return unk(I);
    return emit1(I, (OpKind)c->arg, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
}

/* torch.maximum(input, other) | x.minimum(other): two tensors */
static Obj *lo_maximum(Interp *I, Call *c)
{
    return lo__two_tensors(I, c, "other");
}

/* F.gelu(input, approximate='none') */
static Obj *lo_gelu(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    Obj *ap = ARG(c, 1, "approximate");
    int64_t tanh_mode = 0;
    if (!known(I, ap, c->node, "approximate="))
        return unk(I);
    if (ap && !is_none(ap)) {
        if (ap->kind == O_STR && streq(ap->s, "tanh"))
            tanh_mode = 1;
        else if (!(ap->kind == O_STR && streq(ap->s, "none")))
            return interp_break(I, c->node, RULE_TNG203, "gelu approximate= must be 'none' or 'tanh'");
    }
    return emit_x(I, OP_GELU, x, &tanh_mode, 1, 0, DT_UNKNOWN, c->node);
}

/* ===================================================================== */
/* Matrix products                                                       */
/* ===================================================================== */

/* torch.mm(a, b) | torch.bmm(a, b) | torch.matmul(a, b) | a.mm(b) ... */
static Obj *lo_mm(Interp *I, Call *c)
{
    return lo__two_tensors(I, c, c->arg == OP_MATMUL ? "other" : "mat2");
}

/* torch.addmm(input, mat1, mat2, *, beta=1, alpha=1) | bias.addmm(m1, m2) */
static Obj *lo_addmm(Interp *I, Call *c)
{
    Obj *m1 = ARG(c, 1, "mat1"), *m2 = ARG(c, 2, "mat2");
    int32_t in[3] = {X0(I, c), tv(I, m1, c->node), tv(I, m2, c->node)};
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
    return emit1(I, OP_ADDMM, in, 3, NULL, 0, beta, alpha, DT_UNKNOWN, c->node);
}

/* F.linear(input, weight, bias=None) */
static Obj *lo_linear(Interp *I, Call *c)
{
    Obj *w = ARG(c, 1, "weight"), *b = ARG(c, 2, "bias");
    int32_t in[3] = {X0(I, c), tv(I, w, c->node), -1};
    if (in[0] < 0)
        return unk(I);
    if (in[1] < 0) {
        if (!is_unknown(w))
            interp_break(I, c->node, RULE_TNG203, "linear expects a weight tensor");
        return unk(I);
    }
    if (!is_none(b) && (in[2] = tv(I, b, c->node)) < 0) {
        if (!is_unknown(b))
            interp_break(I, c->node, RULE_TNG203, "linear expects a bias tensor or None");
        return unk(I);
    }
    return emit1(I, OP_LINEAR, in, 3, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
}

/* ===================================================================== */
/* Shapes                                                                */
/* ===================================================================== */

/* x.view(*shape) | x.reshape(*shape) | x.view(shape) | torch.reshape(x, shape) */
static Obj *lo_reshape(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    Obj *d1 = ARG(c, 1, "dtype");
    if (c->a->npos == 2 && dtype_of_obj(d1) != DT_UNKNOWN)
        return interp_break(I, c->node, RULE_TNG203, "view(dtype) reinterprets memory");
    int64_t attr[GRAPH_MAX_DIMS];
    int n = sizes_arg(I, c->a, 1, "shape", c->node, 1, attr);
    if (n < 0)
        return unk(I);
    return emit_x(I, OP_RESHAPE, x, attr, (uint32_t)n, 0, DT_UNKNOWN, c->node);
}

/* x.view_as(other) | x.reshape_as(other) */
static Obj *lo_reshape_as(Interp *I, Call *c)
{
    int32_t x = X0(I, c), o = tv(I, ARG(c, 1, "other"), c->node);
    if (x < 0 || o < 0)
        return unk(I);
    DimId d[GRAPH_MAX_DIMS];
    int n = dims_of(I, o, d);
    return reshape_to(I, x, d, n, c->node);
}

/* x.transpose(dim0, dim1) | torch.transpose(x, dim0, dim1) | x.swapaxes(a, b) */
static Obj *lo_transpose(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    int n = rank_of(I, x);
    int64_t d0, d1;
    if (!dim_arg(I, ARG(c, 1, "dim0"), n, c->node, "a transpose dim", &d0) ||
        !dim_arg(I, ARG(c, 2, "dim1"), n, c->node, "a transpose dim", &d1))
        return unk(I);
    if (n == 0)
        return ARG0(c);
    int64_t perm[GRAPH_MAX_DIMS];
    for (int i = 0; i < n; i++)
        perm[i] = i;
    perm[d0] = d1;
    perm[d1] = d0;
    return permute_of(I, ARG0(c), x, perm, n, c->node);
}

/* x.permute(*dims) | x.permute(dims) | torch.permute(x, dims) */
static Obj *lo_permute(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    int n = rank_of(I, x);
    Obj *const *items;
    size_t cnt;
    Obj *one = c->a->npos > 1 ? c->a->pos[1] : args_kw(c->a, "dims");
    if (!known(I, one, c->node, "the permutation"))
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
        if (!dim_arg(I, items[i], n, c->node, "a permute dim", &perm[i]))
            return unk(I);
    return permute_of(I, ARG0(c), x, perm, n, c->node);
}

/* x.t() | torch.t(x): 0-d and 1-d tensors are returned as they are */
static Obj *lo_t(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    if (rank_of(I, x) > 2)
        return interp_break(I, c->node, RULE_TNG206, "t() expects a tensor of at most 2 dims");
    return transpose_last2(I, ARG0(c), x, c->node);
}

/* x.contiguous() */
static Obj *lo_contiguous(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    return emit_x(I, OP_CONTIGUOUS, x, NULL, 0, 0, DT_UNKNOWN, c->node);
}

/* x.clone() | torch.clone(x): a copy, so that in-place writes into it
 * leave x alone */
static Obj *lo_clone(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    if (!interp_tracing(I))
        return ARG0(c);   /* host tensors are shapes only */
    return emit_x(I, OP_CLONE, x, NULL, 0, 0, DT_UNKNOWN, c->node);
}

/* x.unsqueeze(dim) | torch.unsqueeze(x, dim) */
static Obj *lo_unsqueeze(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    int64_t d;
    if (!dim_arg(I, ARG(c, 1, "dim"), rank_of(I, x) + 1, c->node, "the unsqueeze dim", &d))
        return unk(I);
    return unsqueeze_at(I, x, d, c->node);
}

/* x.squeeze() | x.squeeze(dim) | x.squeeze((d0, d1)) | torch.squeeze(x, dim) */
static Obj *lo_squeeze(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    DimId d[GRAPH_MAX_DIMS];
    int n = dims_of(I, x, d);
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
            if (!dim_arg(I, items[k], n, c->node, "the squeeze dim", &i))
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
    return reshape_to(I, x, d, m, c->node);
}

/* x.flatten(start_dim=0, end_dim=-1) | torch.flatten(x, ...) */
static Obj *lo_flatten(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    DimId d[GRAPH_MAX_DIMS];
    int n = dims_of(I, x, d);
    Obj *so = ARG(c, 1, "start_dim"), *eo = ARG(c, 2, "end_dim");
    int64_t s0 = 0, e0 = -1;
    if ((so && !const_int(I, so, c->node, "start_dim", &s0)) || (eo && !const_int(I, eo, c->node, "end_dim", &e0)))
        return unk(I);
    if (n == 0) {
        DimId one = graph_dim_const(G(I), 1);
        return reshape_to(I, x, &one, 1, c->node);
    }
    int64_t s, e;
    if (!norm_dim(I, s0, n, c->node, &s) || !norm_dim(I, e0, n, c->node, &e))
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
    return reshape_to(I, x, out, m, c->node);
}

static Obj *narrow_dyn(Interp *I, Call *c, int32_t x);

/* x.narrow(dim, start, length) | torch.narrow(x, dim, start, length) */
static Obj *lo_narrow(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    int64_t dim, start, len;
    Obj *so = ARG(c, 2, "start"), *lo = ARG(c, 3, "length");
    int64_t sc, lc;
    if ((so && so->kind == O_DIM && !graph_dim_const_value(G(I), so->dim, &sc)) ||
        (lo && lo->kind == O_DIM && !graph_dim_const_value(G(I), lo->dim, &lc)))
        return narrow_dyn(I, c, x);
    if (!dim_arg(I, ARG(c, 1, "dim"), rank_of(I, x), c->node, "the narrow dim", &dim) ||
        !const_int(I, ARG(c, 2, "start"), c->node, "the narrow start", &start) ||
        !const_int(I, ARG(c, 3, "length"), c->node, "the narrow length", &len))
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
    return slice_of(I, x, dim, start, end, 1, c->node);
}

/* torch.cat(tensors, dim=0) | torch.concat | torch.concatenate | torch.stack(tensors, dim=0) */
static Obj *lo_cat(Interp *I, Call *c)
{
    int32_t in[1024];
    Obj *ts = args_get(c->a, 0, "tensors");
    int n = tensor_list(I, ts, c->node, c->full, in, (int)NELEM(in));
    if (n < 0)
        return unk(I);
    if (n == 0)
        return interp_break(I, c->node, RULE_TNG206, "%s of an empty list", c->full);
    Obj *dd = args_get(c->a, 1, "dim");
    if (!dd)
        dd = args_kw(c->a, "axis");
    int64_t d0 = 0, dim;
    if (dd && !const_int(I, dd, c->node, "the dim", &d0))
        return unk(I);
    int r = rank_of(I, in[0]) + (c->arg == OP_STACK);
    if (!norm_dim(I, d0, r, c->node, &dim))
        return unk(I);
    return emit1(I, (OpKind)c->arg, in, (uint32_t)n, &dim, 1, 0, 0, DT_UNKNOWN, c->node);
}

/* x.split(split_size_or_sections, dim=0) | torch.split(x, ...) |
 * x.chunk(chunks, dim=0) | torch.chunk(x, chunks, dim=0) | x.unbind(dim=0) */
static Obj *lo_split(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
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
    if (dd && !dim_arg(I, dd, n, c->node, "the dim", &dim))
        return unk(I);
    int known = graph_dim_const_value(G(I), val_at(I, x)->dims[dim], &size);
    int64_t len[256];
    size_t cnt = 0;
    if (kind == 0 && is_seq(spec)) {
        if (spec->n > NELEM(len))
            return interp_break(I, c->node, RULE_TNG212, "a split into more than %zu parts", NELEM(len));
        int64_t total = 0;
        for (size_t i = 0; i < spec->n; i++) {
            if (!const_int(I, spec->items[i], c->node, "a split size", &len[i]))
                return unk(I);
            if (len[i] < 0)
                return interp_break(I, c->node, RULE_TNG206, "negative split size");
            if (graph_ckd_add(&total, total, len[i]))   /* then at and at + len[i] below fit too */
                return interp_break(I, c->node, RULE_TNG206, "split sizes whose sum overflows 64-bit arithmetic");
        }
        cnt = spec->n;
        if (known && total != size)
            return interp_break(I, c->node, RULE_TNG206, "split sizes sum to %lld, the dim has size %lld",
                                (long long)total, (long long)size);
    } else {
        int64_t k = 1;
        if (kind != 2 && !const_int(I, spec, c->node, kind ? "the number of chunks" : "the split size", &k))
            return unk(I);
        if (!known)
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
            items[i] = emit_x(I, OP_SELECT, x, attr, 2, 0, DT_UNKNOWN, c->node);
        } else {
            items[i] = slice_of(I, x, dim, at, at + len[i], 1, c->node);
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
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    int n = rank_of(I, x);
    Obj *dim = ARG(c, 1, "dim"), *kd = ARG(c, 2, "keepdim");
    if (!dim)
        dim = args_kw(c->a, "axis");
    DType dt = DT_UNKNOWN;
    if (c->arg != OP_AMAX && !dtype_arg(I, ARG(c, 3, "dtype"), c->node, &dt))
        return unk(I);
    if (dim && dtype_of_obj(dim) != DT_UNKNOWN) {   /* x.sum(torch.float32) */
        dt = dtype_of_obj(dim);
        dim = NULL;
    }
    int64_t attr[GRAPH_MAX_DIMS + 1];
    uint32_t na = 1;
    if (!known(I, kd, c->node, "keepdim="))
        return unk(I);
    attr[0] = obj_flag(kd, 0);
    if (!is_none(dim)) {
        Obj *const *items = is_seq(dim) ? dim->items : &dim;
        size_t cnt = is_seq(dim) ? dim->n : 1;
        if (cnt > GRAPH_MAX_DIMS)
            return interp_break(I, c->node, RULE_TNG206, "too many reduction dims");
        for (size_t k = 0; k < cnt; k++) {
            int64_t d;
            if (!const_int(I, items[k], c->node, "a reduction dim", &d))
                return unk(I);
            if (n == 0 && (d == 0 || d == -1)) {
                attr[na++] = 0;
                continue;
            }
            if (!norm_dim(I, d, n, c->node, &attr[na]))
                return unk(I);
            na++;
        }
        if (cnt == 0 && c->arg != OP_AMAX)   /* sum(dim=()) is every dim too */
            na = 1;
    }
    return emit_x(I, (OpKind)c->arg, x, attr, na, 0, dt, c->node);
}

/* x.softmax(dim, dtype=None) | torch.softmax(x, dim) | F.softmax(x, dim=None,
 * _stacklevel=3, dtype=None) | F.log_softmax(...) | x.log_softmax(dim) */
static Obj *lo_softmax(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    Obj *dim = ARG(c, 1, "dim");
    Obj *dto = args_kw(c->a, "dtype");
    if (!dto)   /* F.softmax(input, dim, _stacklevel, dtype); the others (input, dim, dtype) */
        dto = args_get(c->a, strncmp(c->full, "torch.nn.functional.", 20) == 0 ? 3 : 2, NULL);
    DType dt;
    if (!dtype_arg(I, dto, c->node, &dt))
        return unk(I);
    if (is_none(dim))
        return interp_break(I, c->node, RULE_TNG205, "%s without dim= (the implicit dim is deprecated)",
                            c->full);
    int64_t d;
    int n = rank_of(I, x);
    if (!dim_arg(I, dim, n, c->node, "the softmax dim", &d))
        return unk(I);
    /* dtype=: "the input is cast to dtype before the operation" (PyTorch's
     * documentation): a CAST, then the softmax in that dtype (ACL's
     * aclnnSoftmax keeps its input's dtype) */
    if (dt != DT_UNKNOWN && val_at(I, x)->dtype != dt) {
        int32_t op = emit(I, OP_CAST, &x, 1, NULL, 0, 0, 0, dt, c->node);
        if (op < 0)
            return obj_unknown_reported(I);
        x = G(I)->ops.v[op].out;
    }
    return emit_x(I, (OpKind)c->arg, x, &d, 1, 0, dt, c->node);
}

/* Value of an optional tensor argument: -1 when None/absent; -2 after a
 * diagnostic (or when unknown). */
static int32_t opt_tensor(Interp *I, Obj *o, int32_t node, const char *what)
{
    if (is_none(o))
        return -1;
    if (is_tensor(o)) {
        int32_t v = tv(I, o, node);
        return v >= 0 ? v : -2;
    }
    if (!is_unknown(o))
        interp_break(I, node, RULE_TNG203, "%s must be a tensor or None", what);
    return -2;
}

/* LAYER_NORM of x over its k trailing dims. */
static Obj *layer_norm(Interp *I, int32_t x, int64_t k, int32_t w, int32_t b, double eps, int32_t node)
{
    int32_t in[3] = {x, w, b};
    return emit1(I, OP_LAYER_NORM, in, 3, &k, 1, eps, 0, DT_UNKNOWN, node);
}

/* The number of dims of a normalized_shape (an int, or a tuple/list of ints). */
static int norm_shape_rank(Interp *I, Obj *ns, int32_t node, int64_t *k)
{
    int64_t v;
    if (is_seq(ns)) {
        for (size_t i = 0; i < ns->n; i++)
            if (!const_int(I, ns->items[i], node, "normalized_shape", &v))
                return 0;
        *k = (int64_t)ns->n;
        return 1;
    }
    if (!const_int(I, ns, node, "normalized_shape", &v))
        return 0;
    *k = 1;
    return 1;
}

/* F.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5) */
static Obj *lo_layer_norm(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    int64_t k;
    if (!norm_shape_rank(I, ARG(c, 1, "normalized_shape"), c->node, &k))
        return unk(I);
    int32_t w = opt_tensor(I, ARG(c, 2, "weight"), c->node, "weight");
    int32_t b = opt_tensor(I, ARG(c, 3, "bias"), c->node, "bias");
    if (w < -1 || b < -1 || !known(I, ARG(c, 4, "eps"), c->node, "eps"))
        return unk(I);
    return layer_norm(I, x, k, w, b, float_arg(ARG(c, 4, "eps"), 1e-5), c->node);
}

/* F.embedding(input, weight, padding_idx=None, ...) */
static Obj *lo_embedding(Interp *I, Call *c)
{
    int32_t ids = X0(I, c);
    Obj *w = ARG(c, 1, "weight");
    if (ids < 0)
        return unk(I);
    int32_t in[2] = {tv(I, w, c->node), ids};
    if (in[0] < 0) {
        if (!is_unknown(w))
            interp_break(I, c->node, RULE_TNG203, "embedding expects a weight tensor");
        return unk(I);
    }
    Obj *mn = ARG(c, 3, "max_norm");
    if (!is_none(mn))
        return interp_break(I, c->node, RULE_TNG203, "embedding with max_norm (it renormalises the weight in place)");
    return emit1(I, OP_EMBEDDING, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
}

/* torch_npu.npu_rms_norm(x, gamma, epsilon=1e-6) -> (y, rstd) */
static Obj *lo_rms_norm(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    Obj *g = ARG(c, 1, "gamma");
    if (x < 0)
        return unk(I);
    int32_t in[2] = {x, tv(I, g, c->node)};
    if (in[1] < 0) {
        if (!is_unknown(g))
            interp_break(I, c->node, RULE_TNG203, "npu_rms_norm expects a gamma tensor");
        return unk(I);
    }
    if (!known(I, ARG(c, 2, "epsilon"), c->node, "epsilon"))
        return unk(I);
    int32_t op = emit(I, OP_RMS_NORM, in, 2, NULL, 0, float_arg(ARG(c, 2, "epsilon"), 1e-6), 0,
                      DT_UNKNOWN, c->node);
    if (op < 0)
        return obj_unknown_reported(I);   /* interp_op reported */
    Obj *items[2] = {op_out(I, op, 0), op_out(I, op, 1)};
    return obj_tuple(I, items, 2);
}

/* ===================================================================== */
/* torch_npu operators                                                   */
/* ===================================================================== */

/* torch_npu.npu_format_cast(input, acl_format) */
static Obj *lo_format_cast(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    int64_t fmt;
    if (!const_int(I, ARG(c, 1, "acl_format"), c->node, "the ACL format", &fmt))
        return unk(I);
    return emit_x(I, OP_FORMAT_CAST, x, &fmt, 1, 0, DT_UNKNOWN, c->node);
}

/* torch_npu.npu_quant_matmul(x1, x2, scale, *, offset=None, pertoken_scale=None,
 * bias=None, output_dtype=None) */
static Obj *lo_quant_matmul(Interp *I, Call *c)
{
    int32_t x1 = X0(I, c);
    if (x1 < 0)
        return unk(I);
    Obj *x2 = ARG(c, 1, "x2"), *scale = ARG(c, 2, "scale");
    int32_t in[6] = {x1, tv(I, x2, c->node), tv(I, scale, c->node), -1, -1, -1};
    if (in[1] < 0 || in[2] < 0) {
        if (!obj_has_unknown(x2) && !obj_has_unknown(scale))
            interp_break(I, c->node, RULE_TNG203, "npu_quant_matmul expects tensors x1, x2 and scale");
        return unk(I);
    }
    static const char *const opt[3] = {"offset", "bias", "pertoken_scale"};
    static const size_t pos[3] = {3, 5, 4};  /* positions in torch_npu's signature */
    for (int k = 0; k < 3; k++)
        if ((in[3 + k] = opt_tensor(I, ARG(c, pos[k], opt[k]), c->node, opt[k])) < -1)
            return unk(I);
    DType dt;
    if (!dtype_arg(I, ARG(c, 6, "output_dtype"), c->node, &dt))
        return unk(I);
    return emit1(I, OP_QUANT_MATMUL, in, 6, NULL, 0, 0, 0, dt, c->node);
}

/* torch_npu.npu_dequant_swiglu_quant(x, weight_scale=None, activation_scale=None,
 * bias=None, quant_scale=None, quant_offset=None, group_index=None,
 * activate_left=False, quant_mode=0) -> (y, scale) */
static Obj *lo_dequant_swiglu_quant(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    static const char *const opt[6] = {"weight_scale", "activation_scale", "bias", "quant_scale",
                                       "quant_offset", "group_index"};
    int32_t in[7] = {x, -1, -1, -1, -1, -1, -1};
    for (int k = 0; k < 6; k++)
        if ((in[1 + k] = opt_tensor(I, ARG(c, 1 + (size_t)k, opt[k]), c->node, opt[k])) < -1)
            return unk(I);
    if (!known(I, ARG(c, 7, "activate_left"), c->node, "activate_left") ||
        !known(I, ARG(c, 8, "quant_mode"), c->node, "quant_mode"))
        return unk(I);
    int64_t attr[2] = {obj_flag(ARG(c, 7, "activate_left"), 0), 0};
    Obj *qm = ARG(c, 8, "quant_mode");
    if (qm && qm->kind == O_STR) {
        if (streq(qm->s, "dynamic"))
            attr[1] = 1;
        else if (!streq(qm->s, "static"))
            return interp_break(I, c->node, RULE_TNG203, "quant_mode must be 'static' or 'dynamic'");
    } else if (qm && !const_int(I, qm, c->node, "quant_mode", &attr[1])) {
        return unk(I);
    }
    int32_t op = emit(I, OP_DEQUANT_SWIGLU_QUANT, in, 7, attr, 2, 0, 0, DT_UNKNOWN, c->node);
    if (op < 0)
        return obj_unknown_reported(I);   /* interp_op reported */
    Obj *items[2] = {op_out(I, op, 0), op_out(I, op, 1)};
    return obj_tuple(I, items, 2);
}

/* torch_npu.npu_swiglu(input, dim=-1) */
static Obj *lo_swiglu(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    int64_t d0 = -1, d;
    Obj *dim = ARG(c, 1, "dim");
    if ((dim && !const_int(I, dim, c->node, "the swiglu dim", &d0)) ||
        !norm_dim(I, d0, rank_of(I, x), c->node, &d))
        return unk(I);
    return emit_x(I, OP_SWIGLU, x, &d, 1, 0, DT_UNKNOWN, c->node);
}

/* ===================================================================== */
/* In-place updates                                                      */
/* ===================================================================== */

/* 1 when value v may be updated in place: while tracing, its storage (through
 * aliases and earlier in-place versions) must be a graph input or a buffer;
 * else TNG211. Host tensors may always be updated. */
static int inplace_target_ok(Interp *I, int32_t v, int32_t node, const char *what)
{
    if (!interp_tracing(I))
        return 1;
    Graph *g = G(I);
    /* earlier in-place versions lead back to the tensor written; a view
     * (view, reshape, contiguous, ...) would need PyTorch's write-through
     * to its base, which tngc does not model */
    for (size_t guard = 0; v >= 0 && (size_t)v < g->vals.n && guard <= g->ops.n; guard++) {
        const Op *op = &g->ops.v[g->vals.v[v].op];
        if (op->kind == OP_INPUT)
            return 1;
        if (op->kind == OP_WEIGHT) {
            for (size_t w = 0; w < g->weights.n; w++)
                if (g->weights.v[w].value == v && g->weights.v[w].is_buffer)
                    return 1;
            interp_break(I, node, RULE_TNG211, "%s into a parameter (only inputs and buffers can be "
                         "updated in place)", what);
            return 0;
        }
        if (op_info[op->kind].flags & OPF_ALIAS) {
            interp_break(I, node, RULE_TNG211, "%s into a view (%s) of a tensor: write into the input "
                         "or buffer itself, e.g. cache[:, p:p + 1] = k", what, op_info[op->kind].name);
            return 0;
        }
        if (!(op_info[op->kind].flags & OPF_INPLACE) || op->nin == 0)
            break;
        v = op->in[0];
    }
    interp_break(I, node, RULE_TNG211, "%s into the result of an op (only inputs and buffers can be "
                 "updated in place)", what);
    return 0;
}

/* ===================================================================== */
/* Casts, identities, queries, in-place copy                             */
/* ===================================================================== */

/* x.to(dtype) | x.to(device) | x.to(device, dtype) | x.to(other) |
 * x.to(dtype=..., device=..., non_blocking=...): a CAST only when the dtype
 * changes. Devices (strings, torch.device, unknown values) are ignored. */
static Obj *lo_to(Interp *I, Call *c)
{
    Obj *self = ARG0(c);
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    DType dt = DT_UNKNOWN;
    for (size_t i = 1; i < c->a->npos; i++) {
        Obj *o = c->a->pos[i];
        if (dtype_of_obj(o) != DT_UNKNOWN) {
            dt = dtype_of_obj(o);
        } else if (is_tensor(o)) {
            int32_t v = tv(I, o, c->node);
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
    if (kd && !is_none(kd) && !dtype_arg(I, kd, c->node, &dt))
        return unk(I);
    if (dt == DT_UNKNOWN)
        return self;
    return cast_to(I, self, dt, c->node);
}

/* x.float() | x.half() | x.bfloat16() | x.int() | x.long() | x.bool() | x.char() */
static Obj *lo_cast(Interp *I, Call *c)
{
    if (X0(I, c) < 0)
        return unk(I);
    return cast_to(I, ARG0(c), (DType)c->arg, c->node);
}

/* x.type_as(other) | x.type(dtype) */
static Obj *lo_type_as(Interp *I, Call *c)
{
    Obj *o = ARG(c, 1, c->arg ? "dtype" : "other");
    if (X0(I, c) < 0)
        return unk(I);
    DType dt = DT_UNKNOWN;
    if (c->arg) {
        if (!o)
            return interp_break(I, c->node, RULE_TNG203, "x.type() without a dtype (it returns a string)");
        if (!dtype_arg(I, o, c->node, &dt) || dt == DT_UNKNOWN)
            return unk(I);
    } else {
        int32_t v = tv(I, o, c->node);
        if (v < 0) {
            if (!is_unknown(o))
                interp_break(I, c->node, RULE_TNG203, "type_as expects a tensor");
            return unk(I);
        }
        dt = val_at(I, v)->dtype;
    }
    return cast_to(I, ARG0(c), dt, c->node);
}

/* x.npu() | x.cuda() | x.cpu() | x.detach() | x.clone() | x.requires_grad_() |
 * torch.clone(x) | torch.detach(x): the tensor itself */
static Obj *lo_same(Interp *I, Call *c)
{
    Obj *x = ARG0(c);
    if (X0(I, c) < 0)
        return unk(I);
    if (streq(c->name, "requires_grad_") && x->t)
        x->t->requires_grad = obj_flag(ARG(c, 1, "requires_grad"), 1);
    return x;
}

/* x.size() | x.size(dim) | x.dim() | x.ndimension() | x.numel() |
 * x.nelement() | x.is_contiguous() | x.element_size() | x.is_floating_point() */
static Obj *lo_query(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    DimId d[GRAPH_MAX_DIMS];
    int n = dims_of(I, x, d);
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
        if (!dim_arg(I, dim, n, c->node, "the size dim", &k))
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
    int32_t in[2] = {X0(I, c), -1};
    if (in[0] < 0)
        return unk(I);
    if (!is_tensor(src)) {
        if (!is_unknown(src))
            interp_break(I, c->node, RULE_TNG211, "copy_ from something that is not a tensor");
        return unk(I);
    }
    if ((in[1] = tv(I, src, c->node)) < 0 || !inplace_target_ok(I, in[0], c->node, "copy_"))
        return unk(I);
    int32_t op = emit(I, OP_COPY, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
    if (op < 0)
        return obj_unknown_reported(I);   /* interp_op reported */
    dst->t->value = G(I)->ops.v[op].out;
    return dst;
}

/* 1 when an in-place write into value v must reach a storage: while
 * tracing, v (through earlier in-place versions) is an input, a weight or
 * a view; 0 for an op's result, which just takes the new value. */
static int inplace_into_storage(Interp *I, int32_t v)
{
    Graph *g = G(I);
    if (!interp_tracing(I))
        return 0;
    for (size_t guard = 0; v >= 0 && (size_t)v < g->vals.n && guard <= g->ops.n; guard++) {
        const Op *op = &g->ops.v[g->vals.v[v].op];
        if (op->kind == OP_INPUT || op->kind == OP_WEIGHT || (op_info[op->kind].flags & OPF_ALIAS))
            return 1;
        if (!(op_info[op->kind].flags & OPF_INPLACE) || op->nin == 0)
            return 0;
        v = op->in[0];
    }
    return 0;
}

/* x, an op's result (no storage of the caller's), takes the new value v of
 * an in-place write. Its old value is recorded as overwritten, so that a
 * view of it taken before the write and read after is TNG211 (PyTorch's
 * view would see the write; interp_stale_view), not stale data. */
static void inplace_rebind(Interp *I, Obj *x, int32_t v)
{
    if (interp_tracing(I) && x->t->value >= 0 && v >= 0 && x->t->value != v) {
        VEC_PUSH(I->overwritten, x->t->value);
        VEC_PUSH(I->overwritten, G(I)->vals.v[v].op);
    }
    x->t->value = v;
}

/* x op= y on a tensor x whose new value res was computed: in place, as in
 * PyTorch. When x is an input or a buffer (directly or through earlier
 * in-place versions), the new value is copied into it (COPY, as
 * x.copy_(res)), so the write reaches the caller's tensor like copy_ and
 * slice assignment do; x op= y on a view of one, or on a parameter, is
 * TNG211 as copy_ there is. Any other tensor (an op's result) just takes
 * the new value. Returns the tensor object that now holds it. */
Obj *torchlib_augassign(Interp *I, Obj *x, Obj *res, int32_t node)
{
    Graph *g = G(I);
    if (inplace_into_storage(I, x->t->value)) {
        int32_t in[2] = {x->t->value, res->t->value};
        if (!inplace_target_ok(I, in[0], node, "an augmented assignment (+=, -=, ...)"))
            return unk(I);
        int32_t op = emit(I, OP_COPY, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, node);
        if (op < 0)
            return obj_unknown_reported(I);   /* interp_op reported */
        x->t->value = g->ops.v[op].out;
        return x;
    }
    inplace_rebind(I, x, res->t->value);
    return x;
}

/* ===================================================================== */
/* Tensor creation                                                       */
/* ===================================================================== */

enum { FILL_ZERO, FILL_ONE, FILL_FULL, FILL_RANDINT };

/* A FULL op of shape d[0..n), fill and dtype. */
static Obj *full_of(Interp *I, const int64_t *d, int n, double fill, DType dt, int32_t node)
{
    return emit1(I, OP_FULL, NULL, 0, d, (uint32_t)n, fill, 0, dt ? dt : DT_F32, node);
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
static int fill_value(Interp *I, const Obj *o, int32_t node, double *v)
{
    int is_int;
    if (!known(I, o, node, "the fill value"))
        return 0;
    int k = o ? scalar_operand(I, o, node, v, &is_int) : 0;
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
    if (!dtype_arg(I, args_kw(c->a, "dtype"), c->node, &dt))
        return unk(I);
    if (c->arg == FILL_FULL) {
        Obj *fo = args_get(c->a, 1, "fill_value");
        if (!fill_value(I, fo, c->node, &fill))
            return unk(I);
        Obj *size = args_get(c->a, 0, "size");
        if (!size)
            return interp_break(I, c->node, RULE_TNG203, "torch.full without a size");
        CallArgs one = {0};
        one.pos = &size;
        one.npos = 1;
        if ((n = sizes_arg(I, &one, 0, NULL, c->node, 0, d)) < 0)
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
        if (low && !fill_value(I, low, c->node, &fill))
            return unk(I);
        CallArgs one = {0};
        one.pos = &size;
        one.npos = 1;
        if ((n = sizes_arg(I, &one, 0, NULL, c->node, 0, d)) < 0)
            return unk(I);
        if (dt == DT_UNKNOWN)
            dt = DT_I64;
    } else {
        if ((n = sizes_arg(I, c->a, 0, "size", c->node, 0, d)) < 0)
            return unk(I);
    }
    Obj *r = full_of(I, d, n, fill, dt, c->node);
    if (c->arg == FILL_RANDINT || streq(c->name, "empty") || streq(c->name, "randn") || streq(c->name, "rand"))
        interp_host_inexact(I, r);   /* a spec only: its data is not the FULL's */
    return r;
}

/* torch.ones_like(input, dtype=None) | zeros_like | empty_like | randn_like |
 * rand_like | full_like(input, fill_value) | x.new_zeros(size) | x.new_ones |
 * x.new_empty | x.new_full(size, fill_value): the dtype of input by default */
static Obj *lo_create_like(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    int is_new = strncmp(c->name, "new_", 4) == 0;
    DType dt;
    if (!dtype_arg(I, args_kw(c->a, "dtype"), c->node, &dt))
        return unk(I);
    if (dt == DT_UNKNOWN)
        dt = val_at(I, x)->dtype;
    double fill = c->arg == FILL_ONE ? 1 : 0;
    if (c->arg == FILL_FULL && !fill_value(I, ARG(c, is_new ? 2 : 1, "fill_value"), c->node, &fill))
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
            n = sizes_arg(I, &one, 0, NULL, c->node, 0, d);
        } else {
            n = sizes_arg(I, c->a, 1, "size", c->node, 0, d);
        }
        if (n < 0)
            return unk(I);
    } else {
        DimId dd[GRAPH_MAX_DIMS];
        n = dims_of(I, x, dd);
        for (int i = 0; i < n; i++)
            d[i] = dd[i];
    }
    Obj *r = full_of(I, d, n, fill, dt, c->node);
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
    if (!py_number(o, &v, &is_int) || depth != td->ndim || td->count >= TENSOR_DATA_MAX)
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
    if (!known(I, data, c->node, "the data of torch.tensor"))
        return unk(I);
    if (!data || !tensor_data(data, 0, &td))
        return interp_break(I, c->node, RULE_TNG203, "torch.tensor of data tngc cannot read");
    if (!td.all_same && interp_tracing(I))
        return interp_break(I, c->node, RULE_TNG203, "torch.tensor of distinct values inside a compiled method");
    DType dt;
    if (!dtype_arg(I, args_kw(c->a, "dtype"), c->node, &dt))
        return unk(I);
    if (dt == DT_UNKNOWN)
        dt = td.any_float ? DT_F32 : td.all_bool && td.count ? DT_BOOL : DT_I64;
    int64_t d[GRAPH_MAX_DIMS];
    for (int i = 0; i < td.ndim; i++)
        d[i] = graph_dim_const(G(I), td.dims[i]);
    Obj *r = full_of(I, d, td.ndim, td.count ? td.first : 0, dt, c->node);
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
    if (!known(I, o, node, what))
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
    if (py_number(o, v, is_int))
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
    if (!dtype_arg(I, args_kw(a, "dtype"), c->node, &dt))
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
        return emit1(I, OP_ARANGE, NULL, 0, attr, 2, sk == 2 ? 0 : sv, (double)st, dt, c->node);
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
    return emit1(I, OP_ARANGE, NULL, 0, attr, 2, sv, pv, dt, c->node);
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
        if (!known(I, d, c->node, "the dtype"))
            return unk(I);
        if (is_tensor(d)) {   /* torch.finfo(x) is an error in torch; x.dtype is meant */
            return interp_break(I, c->node, RULE_TNG203, "%s expects a dtype (x.dtype), not a tensor", c->full);
        }
        dt = dtype_of_obj(d);
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

/* ---- lowerings: shape ---- */

/* One bound of a slice on a dim of size n as a DimId in [0, n]: a symbolic
 * int d (min(d, n)), or a Python int c (negative counts from the end),
 * GRAPH_END for n. */
static DimId dyn_bound(Interp *I, DimId n, DimId d, int64_t c)
{
    Graph *g = G(I);
    if (d >= 0)
        return graph_dim_min(g, d, n);
    if (c == GRAPH_END || c >= (int64_t)1 << 62)
        return n;
    if (c < 0)
        return graph_dim_max(g, graph_dim_add(g, n, graph_dim_const(g, c < -((int64_t)1 << 62) ? -((int64_t)1 << 62) : c)),
                             graph_dim_const(g, 0));
    return graph_dim_min(g, graph_dim_const(g, c), n);
}

/* x[..., start:end:step, ...] along dim (normalised) where a bound is a
 * symbolic int (start_d / end_d >= 0; else the int start / end): a
 * SLICE_DYN with both bounds clamped to the dim's size. */
static Obj *slice_dyn_of(Interp *I, int32_t x, int64_t dim, DimId start_d, int64_t start, DimId end_d,
                         int64_t end, int64_t step, int32_t node)
{
    DimId n = val_at(I, x)->dims[dim];
    int64_t attr[4] = {dim, dyn_bound(I, n, start_d, start), dyn_bound(I, n, end_d, end), step};
    return emit_x(I, OP_SLICE_DYN, x, attr, 4, 0, DT_UNKNOWN, node);
}

/* narrow where start or length is a symbolic int (a dim of a geared
 * input): non-negative ints, the end start + length; a SLICE_DYN. */
static Obj *narrow_dyn(Interp *I, Call *c, int32_t x)
{
    int64_t dim;
    if (!dim_arg(I, ARG(c, 1, "dim"), rank_of(I, x), c->node, "the narrow dim", &dim))
        return unk(I);
    int64_t s[2];
    Obj *so = ARG(c, 2, "start"), *lo = ARG(c, 3, "length");
    if (!so || !lo || !size_item(I, so, c->node, 0, &s[0]) || !size_item(I, lo, c->node, 0, &s[1]))
        return unk(I);
    DimId end = graph_dim_add(G(I), (DimId)s[0], (DimId)s[1]);
    return slice_dyn_of(I, x, dim, (DimId)s[0], 0, end, 0, 1, c->node);
}

/* x.triu(diagonal=0) | torch.triu(x, diagonal=0) | x.tril | torch.tril */
static Obj *lo_tri(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    int64_t k = 0;
    if (x < 0)
        return unk(I);
    Obj *d = ARG(c, 1, "diagonal");
    if (d && !const_int(I, d, c->node, "the diagonal", &k))
        return unk(I);
    return emit_x(I, (OpKind)c->arg, x, &k, 1, 0, DT_UNKNOWN, c->node);
}

/* An EXPAND of value x to dims d[0..n) (a materialised broadcast). */
static Obj *expand_to(Interp *I, int32_t x, const DimId *d, int n, int32_t node)
{
    int64_t attr[GRAPH_MAX_DIMS];
    for (int i = 0; i < n; i++)
        attr[i] = d[i];
    return emit_x(I, OP_EXPAND, x, attr, (uint32_t)n, 0, DT_UNKNOWN, node);
}

/* x.expand(*sizes) | x.expand(sizes) | torch.broadcast_to(x, shape) |
 * x.broadcast_to(shape): -1 keeps x's size there; new dims go in front. A
 * copy, not a view: tngc materialises it (writes through an expanded view
 * are an error in torch anyway). */
static Obj *lo_expand(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    int64_t s[GRAPH_MAX_DIMS];
    int n = sizes_arg(I, c->a, 1, c->arg ? "shape" : "size", c->node, 1, s);
    if (n < 0)
        return unk(I);
    DimId xd[GRAPH_MAX_DIMS], d[GRAPH_MAX_DIMS];
    int r = dims_of(I, x, xd);
    if (n < r)
        return interp_break(I, c->node, RULE_TNG206, "expand: the number of sizes (%d) must be at least the "
                            "tensor's rank (%d)", n, r);
    for (int i = 0; i < n; i++) {
        int j = i - (n - r);
        if (s[i] != GRAPH_INFER) {
            d[i] = (DimId)s[i];
        } else if (j < 0) {
            return interp_break(I, c->node, RULE_TNG206, "expand: -1 is not allowed for a new leading dim (%d)", i);
        } else {
            d[i] = xd[j];
        }
    }
    return expand_to(I, x, d, n, c->node);
}

/* x.expand_as(other) */
static Obj *lo_expand_as(Interp *I, Call *c)
{
    int32_t x = X0(I, c), o = tv(I, ARG(c, 1, "other"), c->node);
    if (x < 0)
        return unk(I);
    if (o < 0)
        return is_unknown(ARG(c, 1, "other")) ? unk(I)
                                                : interp_break(I, c->node, RULE_TNG203, "expand_as expects a tensor");
    DimId d[GRAPH_MAX_DIMS];
    int n = dims_of(I, o, d);
    return expand_to(I, x, d, n, c->node);
}

/* x.repeat(*sizes): tiles x; as expand of x with a 1 in front of each
 * repeated dim, then a reshape merging each repeat with its dim. */
static Obj *lo_repeat(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    int64_t s[GRAPH_MAX_DIMS];
    int n = sizes_arg(I, c->a, 1, "repeats", c->node, 0, s);
    if (n < 0)
        return unk(I);
    Graph *g = G(I);
    DimId xd[GRAPH_MAX_DIMS], pad[GRAPH_MAX_DIMS], mid[2 * GRAPH_MAX_DIMS], big[2 * GRAPH_MAX_DIMS],
        out[GRAPH_MAX_DIMS];
    int r = dims_of(I, x, xd);
    if (n < r)
        return interp_break(I, c->node, RULE_TNG206, "repeat: the number of repeats (%d) must be at least the "
                            "tensor's rank (%d)", n, r);
    int m = 0;
    for (int i = 0; i < n; i++) {
        int j = i - (n - r);
        pad[i] = j < 0 ? graph_dim_const(g, 1) : xd[j];
        out[i] = graph_dim_mul(g, pad[i], (DimId)s[i]);
        int64_t one;
        if (!(graph_dim_const_value(g, (DimId)s[i], &one) && one == 1)) {
            mid[m] = graph_dim_const(g, 1);
            big[m++] = (DimId)s[i];
        }
        mid[m] = pad[i];
        big[m++] = pad[i];
    }
    if (m > GRAPH_MAX_DIMS)
        return interp_break(I, c->node, RULE_TNG206, "repeat: more than %d dims once each repeated dim is split "
                            "(tngc lowers repeat to expand)", GRAPH_MAX_DIMS);
    if (m == r) {   /* nothing repeats: a copy */
        Obj *v = reshape_to(I, x, pad, n, c->node);
        int32_t xv = tv(I, v, c->node);
        return xv < 0 ? unk(I) : emit_x(I, OP_CLONE, xv, NULL, 0, 0, DT_UNKNOWN, c->node);
    }
    int32_t v = tv(I, reshape_to(I, x, mid, m, c->node), c->node);
    if (v < 0)
        return unk(I);
    if ((v = tv(I, expand_to(I, v, big, m, c->node), c->node)) < 0)
        return unk(I);
    return reshape_to(I, v, out, n, c->node);
}

/* x.repeat_interleave(repeats, dim=None) | torch.repeat_interleave: an int
 * repeats (a tensor of repeats would give a data-dependent shape: TNG203);
 * each element repeated along dim (x flattened when dim is None), as an
 * expand of a new dim after it and a reshape merging the two. */
static Obj *lo_repeat_interleave(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    Obj *ro = ARG(c, 1, "repeats");
    if (is_tensor(ro))
        return interp_break(I, c->node, RULE_TNG203, "repeat_interleave with a tensor of repeats (argument "
                            "'repeats': an int is supported; a tensor gives a dynamic output shape)");
    int64_t rs;
    if (!ro)
        return interp_break(I, c->node, RULE_TNG203, "repeat_interleave without 'repeats'");
    if (!size_item(I, ro, c->node, 0, &rs))
        return unk(I);
    Obj *dd = ARG(c, 2, "dim");
    Graph *g = G(I);
    DimId d[GRAPH_MAX_DIMS + 1];
    int n = dims_of(I, x, d);
    int64_t dim = 0;
    if (!dd || is_none(dd)) {   /* flattened */
        DimId all = graph_dim_const(g, 1);
        for (int i = 0; i < n; i++)
            all = graph_dim_mul(g, all, d[i]);
        int32_t v = tv(I, reshape_to(I, x, &all, 1, c->node), c->node);
        if (v < 0)
            return unk(I);
        x = v;
        n = dims_of(I, x, d);
    } else if (!dim_arg(I, dd, n, c->node, "the dim", &dim)) {
        return unk(I);
    }
    if (n == 0) {   /* a 0-d tensor with a dim: one element */
        d[0] = graph_dim_const(g, 1);
        n = 1;
        int32_t v = tv(I, reshape_to(I, x, d, 1, c->node), c->node);
        if (v < 0)
            return unk(I);
        x = v;
    }
    if (n >= GRAPH_MAX_DIMS)
        return interp_break(I, c->node, RULE_TNG206, "repeat_interleave of a %d-d tensor (at most %d)", n,
                            GRAPH_MAX_DIMS - 1);
    DimId e[GRAPH_MAX_DIMS + 1], out[GRAPH_MAX_DIMS];
    for (int i = 0, k = 0; i < n; i++) {
        e[k++] = d[i];
        out[i] = d[i];
        if (i == dim) {
            e[k++] = (DimId)rs;
            out[i] = graph_dim_mul(g, d[i], (DimId)rs);
        }
    }
    memmove(&d[dim + 2], &d[dim + 1], (size_t)(n - dim - 1) * sizeof d[0]);
    d[dim + 1] = graph_dim_const(g, 1);
    int32_t v = tv(I, reshape_to(I, x, d, n + 1, c->node), c->node);
    if (v < 0 || (v = tv(I, expand_to(I, v, e, n + 1, c->node), c->node)) < 0)
        return unk(I);
    return reshape_to(I, v, out, n, c->node);
}

/* Dims given as one int, a tuple/list, or varargs pos[from..]; normalised
 * for rank r into out. Returns the count, or -1 after a diagnostic. */
static int dims_list(Interp *I, Call *c, size_t from, const char *kw, int r, int64_t *out, int max)
{
    Obj *one = ARG(c, from, kw);
    Obj *const *items = &one;
    size_t n = one ? 1 : 0;
    if (one && is_seq(one)) {
        items = one->items;
        n = one->n;
    } else if (c->a->npos > from + 1) {
        items = c->a->pos + from;
        n = c->a->npos - from;
    }
    if ((int)n > max) {
        interp_break(I, c->node, RULE_TNG206, "%s: more than %d dims", c->full, max);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (!dim_arg(I, items[i], r, c->node, "a dim", &out[i]))
            return -1;
    return (int)n;
}

/* x.flip(dims) | torch.flip(x, dims) | x.flip(0, 1) | fliplr (dim 1) |
 * flipud (dim 0) */
static Obj *lo_flip(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    int64_t dims[GRAPH_MAX_DIMS];
    int n;
    if (c->arg) {   /* fliplr: dim 1 (2-d at least), flipud: dim 0 */
        dims[0] = c->arg == 1 ? 1 : 0;
        if (rank_of(I, x) <= dims[0])
            return interp_break(I, c->node, RULE_TNG206, "%s needs a tensor of at least %d dims", c->full,
                                (int)dims[0] + 1);
        n = 1;
    } else if ((n = dims_list(I, c, 1, "dims", rank_of(I, x), dims, GRAPH_MAX_DIMS)) < 0) {
        return unk(I);
    }
    return emit_x(I, OP_FLIP, x, dims, (uint32_t)n, 0, DT_UNKNOWN, c->node);
}

/* x.roll(shifts, dims=None) | torch.roll: with no dims, x is rolled as
 * flattened (and reshaped back) */
static Obj *lo_roll(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    Obj *so = ARG(c, 1, "shifts"), *dd = ARG(c, 2, "dims");
    if (!so)
        return interp_break(I, c->node, RULE_TNG203, "roll without 'shifts'");
    Obj *const *items = is_seq(so) ? so->items : &so;
    size_t ns = is_seq(so) ? so->n : 1;
    int64_t shifts[GRAPH_MAX_ATTRS / 2], dims[GRAPH_MAX_ATTRS / 2], attr[GRAPH_MAX_ATTRS];
    if (ns > GRAPH_MAX_ATTRS / 2)
        return interp_break(I, c->node, RULE_TNG206, "roll of more than %d dims", GRAPH_MAX_ATTRS / 2);
    for (size_t i = 0; i < ns; i++)
        if (!const_int(I, items[i], c->node, "a roll shift", &shifts[i]))
            return unk(I);
    if (!dd || is_none(dd)) {   /* flattened */
        if (ns != 1)
            return interp_break(I, c->node, RULE_TNG206, "roll: 'shifts' must be one int when 'dims' is None");
        DimId d[GRAPH_MAX_DIMS], all = graph_dim_const(G(I), 1);
        int n = dims_of(I, x, d);
        for (int i = 0; i < n; i++)
            all = graph_dim_mul(G(I), all, d[i]);
        int32_t v = tv(I, reshape_to(I, x, &all, 1, c->node), c->node);
        if (v < 0)
            return unk(I);
        attr[0] = shifts[0];
        attr[1] = 0;
        int32_t r = tv(I, emit_x(I, OP_ROLL, v, attr, 2, 0, DT_UNKNOWN, c->node), c->node);
        return r < 0 ? unk(I) : reshape_to(I, r, d, n, c->node);
    }
    int nd = dims_list(I, c, 2, "dims", rank_of(I, x), dims, GRAPH_MAX_ATTRS / 2);
    if (nd < 0)
        return unk(I);
    if ((size_t)nd != ns)
        return interp_break(I, c->node, RULE_TNG206, "roll: 'shifts' and 'dims' must have the same length, got %zu "
                            "and %d", ns, nd);
    for (int i = 0; i < nd; i++) {
        attr[2 * i] = shifts[i];
        attr[2 * i + 1] = dims[i];
    }
    return emit_x(I, OP_ROLL, x, attr, (uint32_t)(2 * nd), 0, DT_UNKNOWN, c->node);
}

/* x.movedim(source, destination) | torch.movedim | moveaxis: a permute */
static Obj *lo_movedim(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    int r = rank_of(I, x);
    int64_t src[GRAPH_MAX_DIMS], dst[GRAPH_MAX_DIMS], perm[GRAPH_MAX_DIMS];
    Obj *so = ARG(c, 1, "source"), *doo = ARG(c, 2, "destination");
    if (!so || !doo)
        return interp_break(I, c->node, RULE_TNG203, "%s needs 'source' and 'destination'", c->full);
    Obj *const *si = is_seq(so) ? so->items : &so, *const *di = is_seq(doo) ? doo->items : &doo;
    size_t ns = is_seq(so) ? so->n : 1, nd = is_seq(doo) ? doo->n : 1;
    if (ns != nd || (int)ns > r)
        return interp_break(I, c->node, RULE_TNG206, "%s: 'source' and 'destination' must have the same number "
                            "of dims, at most the rank", c->full);
    uint8_t used_s[GRAPH_MAX_DIMS] = {0}, used_d[GRAPH_MAX_DIMS] = {0};
    for (size_t i = 0; i < ns; i++) {
        if (!dim_arg(I, si[i], r, c->node, "a source dim", &src[i]) ||
            !dim_arg(I, di[i], r, c->node, "a destination dim", &dst[i]))
            return unk(I);
        if (used_s[src[i]]++ || used_d[dst[i]]++)
            return interp_break(I, c->node, RULE_TNG206, "%s: repeated dim", c->full);
    }
    for (int i = 0; i < r; i++)
        perm[i] = -1;
    for (size_t i = 0; i < ns; i++)
        perm[dst[i]] = src[i];
    for (int i = 0, k = 0; i < r; i++) {   /* the other dims keep their order */
        if (perm[i] >= 0)
            continue;
        while (used_s[k])
            k++;
        perm[i] = k++;
    }
    return permute_of(I, ARG0(c), x, perm, r, c->node);
}

/* x.unflatten(dim, sizes) | torch.unflatten: dim split into sizes (one
 * may be -1) */
static Obj *lo_unflatten(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    int64_t dim, s[GRAPH_MAX_DIMS];
    DimId d[GRAPH_MAX_DIMS], out[2 * GRAPH_MAX_DIMS];
    int r = dims_of(I, x, d);
    if (!dim_arg(I, ARG(c, 1, "dim"), r, c->node, "the dim", &dim))
        return unk(I);
    Obj *so = ARG(c, 2, "sizes");
    if (!so || !is_seq(so))
        return interp_break(I, c->node, RULE_TNG203, "unflatten expects 'sizes' as a tuple or list");
    CallArgs one = {0};
    one.pos = &so;
    one.npos = 1;
    int n = sizes_arg(I, &one, 0, NULL, c->node, 1, s);
    if (n < 0)
        return unk(I);
    if (n == 0 || r - 1 + n > GRAPH_MAX_DIMS)
        return interp_break(I, c->node, RULE_TNG206, "unflatten into %d sizes", n);
    int m = 0;
    for (int i = 0; i < r; i++) {
        if (i != dim) {
            out[m++] = d[i];
            continue;
        }
        for (int k = 0; k < n; k++)
            out[m++] = (DimId)s[k];
    }
    return reshape_to(I, x, out, m, c->node);
}

/* The block F.pad's mode puts before (hi 0) or after (hi 1) value x
 * along dim (size n, constant or not), k wide: replicate (1) the edge
 * expanded, reflect (2) the k next to the edge reversed, circular (3) the
 * k at the other end. -1 after a diagnostic. */
static int32_t pad_block(Interp *I, int32_t x, int64_t dim, int64_t k, int hi, int mode, int32_t node)
{
    int64_t n;
    if (mode != 1 && graph_dim_const_value(G(I), val_at(I, x)->dims[dim], &n) && k > n - (mode == 2)) {
        interp_break(I, node, RULE_TNG206, "F.pad: padding %lld is too large for a dim of size %lld (mode %s)",
                     (long long)k, (long long)n, mode == 2 ? "reflect" : "circular");
        return -1;
    }
    Obj *b;
    if (mode == 1)
        b = hi ? slice_of(I, x, dim, -1, GRAPH_END, 1, node) : slice_of(I, x, dim, 0, 1, 1, node);
    else if (mode == 2)
        b = hi ? slice_of(I, x, dim, -k - 1, -1, 1, node) : slice_of(I, x, dim, 1, k + 1, 1, node);
    else
        b = hi ? slice_of(I, x, dim, 0, k, 1, node) : slice_of(I, x, dim, -k, GRAPH_END, 1, node);
    int32_t v = tv(I, b, node);
    if (v < 0)
        return -1;
    if (mode == 2)
        return tv(I, emit_x(I, OP_FLIP, v, &dim, 1, 0, DT_UNKNOWN, node), node);
    if (mode == 1) {
        DimId d[GRAPH_MAX_DIMS];
        int r = dims_of(I, v, d);
        d[dim] = graph_dim_const(G(I), k);
        return tv(I, expand_to(I, v, d, r, node), node);
    }
    return v;
}

/* F.pad(x, pad, mode="constant", value=0): pad holds (before, after)
 * pairs from the last dim backwards; negative amounts crop (constant
 * mode). Lowered to slices and a cat with FULL blocks of value; modes
 * "replicate" (the edge expanded), "reflect" (flipped slices) and
 * "circular" (slices of the other end) likewise. */
static Obj *lo_pad(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    Obj *po = ARG(c, 1, "pad"), *mo = ARG(c, 2, "mode"), *vo = ARG(c, 3, "value");
    static const char *const modes[] = {"constant", "replicate", "reflect", "circular"};
    int mode = -1;
    for (int m = 0; m < 4 && mo && mo->kind == O_STR; m++)
        if (streq(mo->s, modes[m]))
            mode = m;
    if (!mo || is_none(mo))
        mode = 0;
    if (mode < 0)
        return interp_break(I, c->node, RULE_TNG203, "F.pad: mode (argument 'mode') must be \"constant\", "
                            "\"replicate\", \"reflect\" or \"circular\"");
    if (mode && vo && !is_none(vo))
        return interp_break(I, c->node, RULE_TNG203, "F.pad: a 'value' with mode %s (torch allows it only for "
                            "constant padding)", modes[mode]);
    if (!po || !is_seq(po))
        return interp_break(I, c->node, RULE_TNG203, "F.pad expects 'pad' as a tuple or list of ints");
    int r = rank_of(I, x);
    if (po->n % 2 || (int)(po->n / 2) > r)
        return interp_break(I, c->node, RULE_TNG206, "F.pad: 'pad' must have an even length of at most twice the "
                            "rank, got %zu", po->n);
    double value = 0;
    if (vo && !is_none(vo) && !fill_value(I, vo, c->node, &value))
        return unk(I);
    DType dt = val_at(I, x)->dtype;
    Obj *cur = ARG0(c);
    for (size_t p = 0; p < po->n / 2; p++) {
        int64_t lo, hi, dim = r - 1 - (int64_t)p;
        if (!const_int(I, po->items[2 * p], c->node, "a pad amount", &lo) ||
            !const_int(I, po->items[2 * p + 1], c->node, "a pad amount", &hi))
            return unk(I);
        if (lo < -((int64_t)1 << 40) || hi < -((int64_t)1 << 40) || lo > ((int64_t)1 << 40) || hi > ((int64_t)1 << 40))
            return interp_break(I, c->node, RULE_TNG206, "F.pad: a pad amount out of range");
        if (mode && (lo < 0 || hi < 0))
            return interp_break(I, c->node, RULE_TNG203, "F.pad: negative padding with mode %s", modes[mode]);
        if (lo < 0 || hi < 0) {
            int32_t v = tv(I, cur, c->node);
            if (v < 0)
                return unk(I);
            cur = slice_of(I, v, dim, lo < 0 ? -lo : 0, hi < 0 ? hi : GRAPH_END, 1, c->node);
        }
        if (lo <= 0 && hi <= 0)
            continue;
        int32_t in[3], k = 0, v = tv(I, cur, c->node);
        if (v < 0)
            return unk(I);
        DimId d[GRAPH_MAX_DIMS];
        int64_t fd[GRAPH_MAX_DIMS];
        int n = dims_of(I, v, d);
        for (int i = 0; i < n; i++)
            fd[i] = d[i];
        if (lo > 0) {
            fd[dim] = graph_dim_const(G(I), lo);
            in[k] = mode ? pad_block(I, v, dim, lo, 0, mode, c->node) : tv(I, full_of(I, fd, n, value, dt, c->node), c->node);
            if (in[k++] < 0)
                return unk(I);
        }
        in[k++] = v;
        if (hi > 0) {
            fd[dim] = graph_dim_const(G(I), hi);
            in[k] = mode ? pad_block(I, v, dim, hi, 1, mode, c->node) : tv(I, full_of(I, fd, n, value, dt, c->node), c->node);
            if (in[k++] < 0)
                return unk(I);
        }
        cur = emit1(I, OP_CAT, in, (uint32_t)k, &dim, 1, 0, 0, DT_UNKNOWN, c->node);
    }
    return cur;
}

/* ---- lowerings: comparison, selection, bool ---- */

/* The mirror of a comparison, for a scalar written on the left (2 < x is
 * x > 2). */
static OpKind cmp__mirror(OpKind k)
{
    switch (k) {
    case OP_LT: return OP_GT;
    case OP_LE: return OP_GE;
    case OP_GT: return OP_LT;
    case OP_GE: return OP_LE;
    default: return k;
    }
}

/* l op r for EQ NE LT LE GT GE with a tensor operand: a bool tensor (a
 * value, not control flow: `if l < r:` is still TNG204, where the truth of
 * the result is asked). A Python number on either side; a tensor compared
 * with None is False for == and True for != (as torch's). */
static Obj *cmp_of(Interp *I, OpKind kind, Obj *l, Obj *r, int32_t node, const char *what)
{
    if (is_unknown(l) || is_unknown(r))
        return unk(I);
    if (is_tensor(l) && is_tensor(r)) {
        int32_t in[2] = {tv(I, l, node), tv(I, r, node)};
        if (in[0] < 0 || in[1] < 0)
            return unk(I);
        int64_t attr[1] = {0};
        return emit1(I, kind, in, 2, attr, 1, 0, 0, DT_UNKNOWN, node);
    }
    int tl = is_tensor(l);
    Obj *t = tl ? l : r, *sc = tl ? r : l;
    if (!is_tensor(t))
        return interp_break(I, node, RULE_TNG203, "%s without a tensor operand", what);
    if (is_none(sc) && (kind == OP_EQ || kind == OP_NE))
        return obj_bool(I, kind == OP_NE);
    double sv;
    int si, k = scalar_operand(I, sc, node, &sv, &si);
    if (k < 0)
        return unk(I);
    if (k == 0)
        return interp_break(I, node, RULE_TNG203, "%s of a tensor and a non-number (a tensor or a "
                            "Python int, float or bool is needed)", what);
    int32_t in[2] = {tv(I, t, node), -1};
    if (in[0] < 0)
        return unk(I);
    int64_t attr[1] = {si};
    return emit1(I, tl ? kind : cmp__mirror(kind), in, 2, attr, 1, sv, 0, DT_UNKNOWN, node);
}

/* torch.eq(input, other) | x.eq(other) | x.ne/lt/le/gt/ge | torch.greater,
 * less, greater_equal, less_equal, not_equal (and x.<those>) */
static Obj *lo_compare(Interp *I, Call *c)
{
    Obj *r = ARG(c, 1, "other");
    if (!r)
        return interp_break(I, c->node, RULE_TNG203, "%s needs two operands", c->full);
    if (args_kw(c->a, "out"))
        return interp_break(I, c->node, RULE_TNG203, "out= of %s", c->full);
    return cmp_of(I, (OpKind)c->arg, ARG0(c), r, c->node, c->full);
}

/* A tensor operand of a bool/bitwise op: a tensor, or a Python bool or
 * int as a 0-d tensor (bool, int64), which promotes as torch's scalars do
 * (it only counts when its category is higher). -1 after a diagnostic. */
static int32_t bool_operand(Interp *I, Obj *o, int32_t node, const char *what)
{
    if (is_tensor(o))
        return tv(I, o, node);
    if (o && (o->kind == O_BOOL || o->kind == O_INT)) {
        Obj *t = full_of(I, NULL, 0, (double)o->i, o->kind == O_BOOL ? DT_BOOL : DT_I64, node);
        return is_tensor(t) ? tv(I, t, node) : -1;
    }
    if (!is_unknown(o))
        interp_break(I, node, RULE_TNG203, "%s of a tensor and something that is not a tensor, "
                     "bool or int", what);
    return -1;
}

/* l op r for LOGICAL_* and BITWISE_* (two operands, one a tensor). */
static Obj *bool_of(Interp *I, OpKind kind, Obj *l, Obj *r, int32_t node, const char *what)
{
    if (is_unknown(l) || is_unknown(r))
        return unk(I);
    int32_t in[2] = {bool_operand(I, l, node, what), bool_operand(I, r, node, what)};
    if (in[0] < 0 || in[1] < 0)
        return unk(I);
    return emit1(I, kind, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, node);
}

/* torch.logical_and(input, other) | x.logical_or(other) | ... |
 * torch.bitwise_and(input, other) | x.bitwise_xor(other) | ...; the NOTs
 * take one operand */
static Obj *lo_bool(Interp *I, Call *c)
{
    OpKind k = (OpKind)c->arg;
    if (args_kw(c->a, "out"))
        return interp_break(I, c->node, RULE_TNG203, "out= of %s", c->full);
    if (k == OP_LOGICAL_NOT || k == OP_BITWISE_NOT) {
        int32_t x = X0(I, c);
        return x < 0 ? unk(I) : emit_x(I, k, x, NULL, 0, 0, DT_UNKNOWN, c->node);
    }
    Obj *r = ARG(c, 1, "other");
    if (!r)
        return interp_break(I, c->node, RULE_TNG203, "%s needs two operands", c->full);
    return bool_of(I, k, ARG0(c), r, c->node, c->full);
}

/* The dtype a Python scalar branch of where takes against a branch of
 * dtype t (DT_UNKNOWN: the other branch is a scalar too, of kind ok):
 * torch.result_type's rule, a scalar only counting when its category
 * (bool < int < float) is higher. kind: 0 bool, 1 int, 2 float. */
static DType where__scalar_dtype(DType t, int kind, int other_kind)
{
    static const DType def[3] = {DT_BOOL, DT_I64, DT_F32};
    if (t == DT_UNKNOWN)
        return def[kind > other_kind ? kind : other_kind];
    int ct = t == DT_BOOL ? 0 : dtype_is_float(t) ? 2 : 1;
    return kind > ct ? def[kind] : t;
}

/* torch.where(condition, input, other) | x.where(condition, y): input and
 * other tensors or Python numbers (a number becomes a 0-d full of the
 * dtype torch would give it); torch.where(condition) alone is nonzero,
 * whose shape depends on the data: not compiled */
static Obj *lo_where(Interp *I, Call *c)
{
    Obj *cond, *br[2];
    if (c->method) {   /* x.where(condition, y): x where condition else y */
        cond = ARG(c, 1, "condition");
        br[0] = ARG0(c);
        br[1] = ARG(c, 2, "other");
    } else {
        cond = args_get(c->a, 0, "condition");
        br[0] = ARG(c, 1, "input");
        br[1] = ARG(c, 2, "other");
    }
    if (!br[0] && !br[1] && !c->method)
        return interp_break(I, c->node, RULE_TNG203, "torch.where(condition) with one argument is "
                            "nonzero: a dynamic output shape");
    if (!cond || !br[0] || !br[1])
        return interp_break(I, c->node, RULE_TNG203, "%s needs a condition and two branches", c->full);
    if (is_unknown(cond) || is_unknown(br[0]) || is_unknown(br[1]))
        return unk(I);
    if (!is_tensor(cond))
        return interp_break(I, c->node, RULE_TNG203, "the condition of %s must be a tensor", c->full);
    int32_t in[3] = {tv(I, cond, c->node), -1, -1};
    double sv[2] = {0, 0};
    int kind[2] = {0, 0};
    for (int b = 0; b < 2; b++) {
        if (is_tensor(br[b])) {
            in[b + 1] = tv(I, br[b], c->node);
            continue;
        }
        int si, k = scalar_operand(I, br[b], c->node, &sv[b], &si);
        if (k < 0)
            return unk(I);
        if (k == 0)
            return interp_break(I, c->node, RULE_TNG203, "a branch of %s that is neither a tensor nor a "
                                "number", c->full);
        kind[b] = br[b]->kind == O_BOOL ? 0 : si ? 1 : 2;
    }
    for (int b = 0; b < 2; b++) {
        if (is_tensor(br[b]))
            continue;
        int32_t o = in[2 - b];
        DType t = is_tensor(br[1 - b]) && o >= 0 ? val_at(I, o)->dtype : DT_UNKNOWN;
        Obj *f = full_of(I, NULL, 0, sv[b], where__scalar_dtype(t, kind[b], kind[1 - b]), c->node);
        if (!is_tensor(f))
            return unk(I);
        in[b + 1] = tv(I, f, c->node);
    }
    if (in[0] < 0 || in[1] < 0 || in[2] < 0)
        return unk(I);
    return emit1(I, OP_WHERE, in, 3, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
}

/* x.masked_fill(mask, value) | torch.masked_fill(x, mask, value): value a
 * Python number (a copy of x, then MASKED_FILL in place on it) or a 0-d
 * tensor (where(mask, value, x) cast to x's dtype). The mask broadcasts
 * to x (a mask that would enlarge x is refused). x.masked_fill_(...) is the
 * generic in-place form (inplace_method). */
static Obj *lo_masked_fill(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    Obj *mask = ARG(c, 1, "mask"), *value = ARG(c, 2, "value");
    if (x < 0)
        return unk(I);
    if (!mask || !value)
        return interp_break(I, c->node, RULE_TNG203, "%s needs a mask and a value", c->full);
    if (is_unknown(mask) || is_unknown(value))
        return unk(I);
    if (!is_tensor(mask))
        return interp_break(I, c->node, RULE_TNG203, "the mask of %s must be a bool tensor", c->full);
    int32_t m = tv(I, mask, c->node);
    if (m < 0)
        return unk(I);
    if (is_tensor(value)) {
        int32_t in[3] = {m, tv(I, value, c->node), x};
        if (in[1] < 0)
            return unk(I);
        if (rank_of(I, in[1]) != 0)
            return interp_break(I, c->node, RULE_TNG203, "the value of %s must be a Python number or a 0-d "
                                "tensor, got a %d-d tensor", c->full, rank_of(I, in[1]));
        Obj *w = emit1(I, OP_WHERE, in, 3, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
        return is_tensor(w) ? cast_to(I, w, val_at(I, x)->dtype, c->node) : w;
    }
    double v;
    int si, k = scalar_operand(I, value, c->node, &v, &si);
    if (k < 0)
        return unk(I);
    if (k == 0)
        return interp_break(I, c->node, RULE_TNG203, "the value of %s must be a Python number or a 0-d "
                            "tensor", c->full);
    Obj *copy = emit_x(I, OP_CLONE, x, NULL, 0, 0, DT_UNKNOWN, c->node);
    int32_t in[2] = {tv(I, copy, c->node), m};
    if (in[0] < 0)
        return unk(I);
    return emit1(I, OP_MASKED_FILL, in, 2, NULL, 0, v, 0, DT_UNKNOWN, c->node);
}

/* x.any() | x.all(dim, keepdim=False) | torch.any(x, dim=...): one int dim
 * (torch 1.13's), or all dims */
static Obj *lo_any_all(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    Obj *dim = ARG(c, 1, "dim"), *kd = ARG(c, 2, "keepdim");
    int64_t attr[2];
    uint32_t na = 1;
    if (!known(I, kd, c->node, "keepdim="))
        return unk(I);
    attr[0] = obj_flag(kd, 0);
    if (!is_none(dim)) {
        int64_t d;
        int n = rank_of(I, x);
        if (!const_int(I, dim, c->node, "the dim of any/all", &d))
            return unk(I);
        if (n == 0 && (d == 0 || d == -1))
            attr[na++] = 0;
        else if (!norm_dim(I, d, n, c->node, &attr[na++]))
            return unk(I);
    }
    return emit_x(I, (OpKind)c->arg, x, attr, na, 0, DT_UNKNOWN, c->node);
}

/* x.zero_() | x.fill_(value): a full of x's shape and dtype written into x
 * as the in-place methods are (inplace_method) */
static Obj *lo_fill_(Interp *I, Call *c)
{
    Obj *self = ARG0(c);
    int32_t x = X0(I, c);
    double v = 0;
    if (x < 0)
        return unk(I);
    if (c->arg) {
        Obj *value = ARG(c, 1, "value");
        int si, k;
        if (!value)
            return interp_break(I, c->node, RULE_TNG203, "fill_ needs a value");
        if (is_unknown(value))
            return unk(I);
        if ((k = scalar_operand(I, value, c->node, &v, &si)) < 0)
            return unk(I);
        if (k == 0)
            return interp_break(I, c->node, RULE_TNG203, "the value of fill_ must be a Python number");
    }
    const Val *xv = val_at(I, x);
    int64_t d[GRAPH_MAX_DIMS];
    for (int i = 0; i < xv->ndim; i++)
        d[i] = xv->dims[i];
    Obj *f = full_of(I, d, xv->ndim, v, xv->dtype, c->node);
    return is_tensor(f) ? torchlib_augassign(I, self, f, c->node) : f;
}

/*
 * The in-place tensor methods, one mechanism: x.X_(args) where the library
 * has no X_ of its own is x.X(args) written into x. The result must have
 * x's shape (else TNG203: an in-place op cannot resize x), and is cast to
 * x's dtype when it differs, where PyTorch allows it (a float result into
 * an integer x, or a non-bool one into a bool x, is PyTorch's error and
 * TNG203 here). The write is torchlib_augassign's, the rule of `x += y`
 * and copy_: into the storage of an input or buffer (COPY, written back
 * to the caller), TNG211 on a parameter or a view of one; any other
 * tensor (an op's result) just takes the new value. So add_ sub_ mul_
 * div_ clamp_ masked_fill_ and every later X_ whose X is a tensor method
 * come for free; methods whose X_ is no in-place op (casts, views,
 * queries) are left out. Returns NULL when x.X is no library method (the
 * caller reports the name).
 */
static Obj *inplace_method(Interp *I, const char *name, Obj *self, CallArgs *a)
{
    static const char *const not_inplace[] = {
        "to", "float", "half", "bfloat16", "int", "long", "bool", "char", "type_as", "type", "npu", "cuda",
        "cpu", "clone", "contiguous", "view", "view_as", "reshape", "reshape_as", "detach", "size", "dim",
        "ndimension", "numel", "nelement", "element_size", "is_floating_point", "is_contiguous", "copy",
        "split", "chunk", "unbind"};
    size_t n = strlen(name);
    if (n < 2 || name[n - 1] != '_' || name[n - 2] == '_')
        return NULL;
    const char *base = interp_printf(I, "%.*s", (int)(n - 1), name);
    for (size_t i = 0; i < NELEM(not_inplace); i++)
        if (streq(base, not_inplace[i]))
            return NULL;
    int32_t x = tv(I, self, a->node);
    if (x < 0)
        return unk(I);
    Obj *r = torchlib_call(I, base, self, a);
    if (!r || is_unknown(r))
        return r;
    int32_t v = is_tensor(r) ? tv(I, r, a->node) : -1;
    if (v < 0)
        return interp_break(I, a->node, RULE_TNG203, "Tensor.%s: Tensor.%s does not give a tensor", name, base);
    const Val *xv = val_at(I, x), *rv = val_at(I, v);
    int same = xv->ndim == rv->ndim;
    for (int i = 0; same && i < xv->ndim; i++)
        same = xv->dims[i] == rv->dims[i];
    if (!same)
        return interp_break(I, a->node, RULE_TNG203, "Tensor.%s: the result of %s would not have self's "
                            "shape (an in-place op cannot resize self)", name, base);
    if (rv->dtype != xv->dtype) {
        int cx = xv->dtype == DT_BOOL ? 0 : dtype_is_float(xv->dtype) ? 2 : 1;
        int cr = rv->dtype == DT_BOOL ? 0 : dtype_is_float(rv->dtype) ? 2 : 1;
        if (cr > cx)
            return interp_break(I, a->node, RULE_TNG203, "Tensor.%s: result type %s can't be cast to "
                                "self's dtype %s", name, dtype_name(rv->dtype), dtype_name(xv->dtype));
        r = cast_to(I, r, xv->dtype, a->node);
        if (!is_tensor(r))
            return r;
    }
    return torchlib_augassign(I, self, r, a->node);
}

/* l op r for Python's comparison and bit operators on tensors (and ~):
 * NULL when op is none of them. */
static Obj *compare_binop(Interp *I, const char *op, Obj *l, Obj *r, int32_t node)
{
    static const struct { const char *op; OpKind k; } ops[] = {
        {"<", OP_LT}, {"<=", OP_LE}, {">", OP_GT}, {">=", OP_GE}, {"==", OP_EQ}, {"!=", OP_NE},
        {"&", OP_BITWISE_AND}, {"|", OP_BITWISE_OR}, {"^", OP_BITWISE_XOR}};
    for (size_t i = 0; i < NELEM(ops); i++)
        if (streq(op, ops[i].op)) {
            const char *what = interp_printf(I, "operator '%s'", op);
            return i < 6 ? cmp_of(I, ops[i].k, l, r, node, what) : bool_of(I, ops[i].k, l, r, node, what);
        }
    return NULL;
}

/* ---- lowerings: reductions, sorting, contractions ---- */

/* The (values, indices) named tuple of op's two outputs (torch.return_types). */
static Obj *values_indices(Interp *I, int32_t op)
{
    static const char *const names[2] = {"values", "indices"};
    if (op < 0)
        return obj_unknown_reported(I);   /* interp_op reported */
    Obj *items[2] = {op_out(I, op, 0), op_out(I, op, 1)};
    return obj_named_tuple(I, items, names, 2);
}

/* A bool argument known at compile time into *v (def when absent); 0 after
 * a diagnostic. */
static int flag_arg(Interp *I, const Obj *o, int32_t node, const char *what, int def, int64_t *v)
{
    if (!known(I, o, node, what))
        return 0;
    *v = obj_flag(o, def);
    return 1;
}

/* A dim argument (def when absent or None) normalised for value x. */
static int line_dim(Interp *I, const Obj *o, int32_t x, int32_t node, const char *what, int64_t def,
                    int64_t *out)
{
    if (is_none(o))
        return norm_dim(I, def, rank_of(I, x), node, out);
    return dim_arg(I, o, rank_of(I, x), node, what, out);
}

/* value x flattened to one dim (a RESHAPE to [-1]). */
static int32_t flat_of(Interp *I, int32_t x, int32_t node)
{
    int64_t infer = GRAPH_INFER;
    Obj *f = emit_x(I, OP_RESHAPE, x, &infer, 1, 0, DT_UNKNOWN, node);
    return tv(I, f, node);
}

/* torch.topk(input, k, dim=-1, largest=True, sorted=True) | x.topk(k, ...)
 * -> (values, indices). sorted=False gives them sorted too (a valid answer:
 * torch leaves the order unspecified). */
static Obj *lo_topk(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    Obj *k = ARG(c, 1, "k");
    if (!k)
        return interp_break(I, c->node, RULE_TNG203, "%s without k", c->full);
    int64_t attr[4];
    if (!const_int(I, k, c->node, "topk's k", &attr[1]) ||
        !line_dim(I, ARG(c, 2, "dim"), x, c->node, "topk's dim", -1, &attr[0]) ||
        !flag_arg(I, ARG(c, 3, "largest"), c->node, "largest=", 1, &attr[2]) ||
        !flag_arg(I, ARG(c, 4, "sorted"), c->node, "sorted=", 1, &attr[3]))
        return unk(I);
    return values_indices(I, emit(I, OP_TOPK, &x, 1, attr, 4, 0, 0, DT_UNKNOWN, c->node));
}

/* torch.sort(input, dim=-1, descending=False, stable=False) -> (values,
 * indices) | torch.argsort(input, dim=-1, descending=False, stable=False):
 * equal values keep their order whatever stable says (the order is total). */
static Obj *lo_sort(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    int64_t attr[3];
    if (!line_dim(I, ARG(c, 1, "dim"), x, c->node, "the sort dim", -1, &attr[0]) ||
        !flag_arg(I, ARG(c, 2, "descending"), c->node, "descending=", 0, &attr[1]) ||
        !flag_arg(I, args_kw(c->a, "stable"), c->node, "stable=", 0, &attr[2]))
        return unk(I);
    if (c->arg == OP_ARGSORT)
        return emit1(I, OP_ARGSORT, &x, 1, attr, 2, 0, 0, DT_UNKNOWN, c->node);
    return values_indices(I, emit(I, OP_SORT, &x, 1, attr, 3, 0, 0, DT_UNKNOWN, c->node));
}

/* torch.max(input) | torch.max(input, dim, keepdim=False) -> (values,
 * indices) | torch.max(input, other) | the same for min; c->arg is OP_AMAX
 * or OP_AMIN (the full reduction's kind). */
static Obj *lo_max(Interp *I, Call *c)
{
    int is_min = c->arg == OP_AMIN;
    Obj *dim = ARG(c, 1, "dim");
    if (!dim)
        dim = args_kw(c->a, "other");
    if (is_tensor(dim)) {   /* torch.max(a, b): elementwise */
        Call two = *c;
        two.arg = is_min ? OP_MINIMUM : OP_MAXIMUM;
        return lo__two_tensors(I, &two, args_kw(c->a, "other") ? "other" : "dim");
    }
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    int64_t attr[2] = {0, 0};
    if (is_none(dim)) {
        if (ARG(c, 2, "keepdim"))
            return interp_break(I, c->node, RULE_TNG203, "%s with keepdim= but no dim", c->full);
        return emit_x(I, (OpKind)c->arg, x, attr, 1, 0, DT_UNKNOWN, c->node);
    }
    if (!dim_arg(I, dim, rank_of(I, x), c->node, "the reduction dim", &attr[0]) ||
        !flag_arg(I, ARG(c, 2, "keepdim"), c->node, "keepdim=", 0, &attr[1]))
        return unk(I);
    return values_indices(I, emit(I, is_min ? OP_MIN_DIM : OP_MAX_DIM, &x, 1, attr, 2, 0, 0, DT_UNKNOWN,
                                  c->node));
}

/* torch.argmax(input, dim=None, keepdim=False) | argmin: no dim = the
 * flattened tensor (keepdim then gives every dim 1, as torch does). */
static Obj *lo_argmax(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    Obj *dim = ARG(c, 1, "dim");
    int64_t attr[2] = {0, 0}, keep;
    if (!flag_arg(I, ARG(c, 2, "keepdim"), c->node, "keepdim=", 0, &keep))
        return unk(I);
    if (!is_none(dim)) {
        attr[1] = keep;
        if (!dim_arg(I, dim, rank_of(I, x), c->node, "the reduction dim", &attr[0]))
            return unk(I);
        return emit_x(I, (OpKind)c->arg, x, attr, 2, 0, DT_UNKNOWN, c->node);
    }
    int n = rank_of(I, x);
    int32_t flat = flat_of(I, x, c->node);
    if (flat < 0)
        return unk(I);
    Obj *r = emit_x(I, (OpKind)c->arg, flat, attr, 2, 0, DT_UNKNOWN, c->node);
    int32_t rv = tv(I, r, c->node);
    if (!keep || rv < 0 || n == 0)
        return r;
    DimId ones[GRAPH_MAX_DIMS];
    for (int i = 0; i < n; i++)
        ones[i] = graph_dim_const(G(I), 1);
    return reshape_to(I, rv, ones, n, c->node);
}

/* torch.prod(input, dim, keepdim=False, dtype=None) | torch.prod(input,
 * dtype=None): no dim = the flattened tensor's one dim (so the op always
 * has exactly one, as aclnnProdDim takes). */
static Obj *lo_prod(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    Obj *dim = ARG(c, 1, "dim");
    DType dt;
    int64_t attr[2] = {0, 0};
    if (!dtype_arg(I, ARG(c, 3, "dtype"), c->node, &dt))
        return unk(I);
    if (dim && dtype_of_obj(dim) != DT_UNKNOWN) {   /* x.prod(torch.float32) */
        dt = dtype_of_obj(dim);
        dim = NULL;
    }
    if (is_none(dim)) {
        if ((x = flat_of(I, x, c->node)) < 0)
            return unk(I);
    } else if (!dim_arg(I, dim, rank_of(I, x), c->node, "the prod dim", &attr[1]) ||
               !flag_arg(I, ARG(c, 2, "keepdim"), c->node, "keepdim=", 0, &attr[0])) {
        return unk(I);
    }
    return emit_x(I, OP_PROD, x, attr, 2, 0, dt, c->node);
}

/* torch.cumsum(input, dim, dtype=None) | x.cumsum(dim, dtype=None) */
static Obj *lo_cumsum(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    Obj *dim = ARG(c, 1, "dim");
    DType dt;
    int64_t d;
    if (!dim)
        return interp_break(I, c->node, RULE_TNG203, "%s without dim", c->full);
    if (!dim_arg(I, dim, rank_of(I, x), c->node, "the cumsum dim", &d) ||
        !dtype_arg(I, ARG(c, 2, "dtype"), c->node, &dt))
        return unk(I);
    return emit_x(I, OP_CUMSUM, x, &d, 1, 0, dt, c->node);
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
            if (!dim_arg(I, items[k], v->ndim, c->node, "a reduction dim", &attr[*na]))
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
    return dt == DT_F16 || dt == DT_BF16 ? cast_to(I, x, DT_F32, node) : x;
}

/* torch.var(input, dim=None, unbiased=True, keepdim=False) | torch.var(
 * input, dim, *, correction=1, keepdim=False) | x.std(...): c->arg 1 for
 * std. Lowered to mean, sub, mul, sum, div (and sqrt) in float32. */
static Obj *lo_var(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    Obj *dim = ARG(c, 1, "dim"), *unb = ARG(c, 2, "unbiased"), *corr = args_kw(c->a, "correction");
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
    if (!stat_dims(I, c, x, dim, ARG(c, 3, "keepdim"), attr, &na, &count))
        return unk(I);
    if (corr && !is_none(corr)) {
        if (!const_int(I, corr, c->node, "correction=", &cor))
            return unk(I);
    } else {
        if (!flag_arg(I, unb, c->node, "unbiased=", 1, &cor))
            return unk(I);
    }
    Obj *xf = stat_input(I, ARG0(c), dt, c->node);
    int32_t xv = tv(I, xf, c->node);
    if (xv < 0)
        return unk(I);
    int64_t kattr[GRAPH_MAX_DIMS + 1];
    memcpy(kattr, attr, na * sizeof kattr[0]);
    kattr[0] = 1;
    Obj *mean = emit_x(I, OP_MEAN, xv, kattr, na, 0, DT_UNKNOWN, c->node);
    Obj *d = arith(I, OP_SUB, xf, mean, 1.0, c->node, c->full);
    int32_t sq = tv(I, arith(I, OP_MUL, d, d, 1.0, c->node, c->full), c->node);
    if (sq < 0)
        return unk(I);
    Obj *s = emit_x(I, OP_SUM, sq, attr, na, 0, DT_UNKNOWN, c->node);
    double dof = count - cor > 0 ? (double)(count - cor) : 0.0;
    Obj *r = arith(I, OP_DIV, s, obj_float(I, dof), 1.0, c->node, c->full);
    if (c->arg == 1) {
        int32_t rv = tv(I, r, c->node);
        if (rv < 0)
            return unk(I);
        r = emit_x(I, OP_SQRT, rv, NULL, 0, 0, DT_UNKNOWN, c->node);
    }
    return is_tensor(r) ? cast_to(I, r, dt, c->node) : r;
}

/* The vector p-norm of tensor x (p 2, 1, inf or -inf) over attr's dims,
 * in float32, as dtype out_dt; NULL after a diagnostic. */
static Obj *vector_norm(Interp *I, Call *c, Obj *x, double p, const int64_t *attr, uint32_t na,
                        DType out_dt)
{
    DType dt = is_tensor(x) ? val_at(I, tv(I, x, c->node))->dtype : DT_UNKNOWN;
    Obj *xf = stat_input(I, x, dt, c->node);
    int32_t xv = tv(I, xf, c->node), t;
    if (xv < 0)
        return NULL;
    if (p == 2.0) {
        t = tv(I, arith(I, OP_MUL, xf, xf, 1.0, c->node, c->full), c->node);
        if (t < 0)
            return NULL;
        t = tv(I, emit_x(I, OP_SUM, t, attr, na, 0, DT_UNKNOWN, c->node), c->node);
        if (t < 0)
            return NULL;
        xf = emit_x(I, OP_SQRT, t, NULL, 0, 0, DT_UNKNOWN, c->node);
    } else {
        t = tv(I, emit_x(I, OP_ABS, xv, NULL, 0, 0, DT_UNKNOWN, c->node), c->node);
        if (t < 0)
            return NULL;
        OpKind k = p == 1.0 ? OP_SUM : p > 0 ? OP_AMAX : OP_AMIN;
        xf = emit_x(I, k, t, attr, na, 0, DT_UNKNOWN, c->node);
    }
    return is_tensor(xf) ? cast_to(I, xf, out_dt, c->node) : NULL;
}

/* The order of a norm: a number or 'fro' (2 for vectors); 0 after a
 * diagnostic naming it when it is not 1, 2, inf or -inf. */
static int norm_order(Interp *I, Call *c, Obj *o, double *p)
{
    *p = 2.0;
    if (is_none(o) || obj_is_str(o, "fro"))
        return 1;
    if (!known(I, o, c->node, "the norm's order"))
        return 0;
    double v;
    int is_int;
    if (py_number(o, &v, &is_int) && (v == 1.0 || v == 2.0 || isinf(v))) {
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
static Obj *lo_norm(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    DType dt = val_at(I, x)->dtype, want;
    double p;
    Obj *po = c->arg ? ARG(c, 1, "ord") : ARG(c, 1, "p");
    if (!dtype_is_float(dt))
        return interp_break(I, c->node, RULE_TNG203, "%s of a %s tensor (a floating point one is supported)",
                            c->full, dtype_name(dt));
    int64_t attr[GRAPH_MAX_DIMS + 1], count;
    uint32_t na;
    if (!norm_order(I, c, po, &p) || !dtype_arg(I, ARG(c, 4, "dtype"), c->node, &want) ||
        !stat_dims(I, c, x, ARG(c, 2, "dim"), ARG(c, 3, "keepdim"), attr, &na, &count))
        return unk(I);
    Obj *r = vector_norm(I, c, ARG0(c), p, attr, na, want ? want : dt);
    return r ? r : unk(I);
}

/* F.normalize(input, p=2.0, dim=1, eps=1e-12): x / norm(x, p, dim,
 * keepdim=True).clamp_min(eps), the norm rounded to x's dtype first, as
 * PyTorch computes it. */
static Obj *lo_normalize(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    DType dt = val_at(I, x)->dtype;
    double p;
    Obj *dim = ARG(c, 2, "dim"), *eps = ARG(c, 3, "eps");
    if (!dtype_is_float(dt))
        return interp_break(I, c->node, RULE_TNG203, "%s of a %s tensor (a floating point one is supported)",
                            c->full, dtype_name(dt));
    if (!norm_order(I, c, ARG(c, 1, "p"), &p) || !known(I, eps, c->node, "eps"))
        return unk(I);
    int64_t attr[2] = {1, 1};
    if (!line_dim(I, dim, x, c->node, "the normalize dim", 1, &attr[1]))
        return unk(I);
    Obj *n = vector_norm(I, c, ARG0(c), p, attr, 2, dt);
    int32_t nv = n ? tv(I, n, c->node) : -1;
    if (nv < 0)
        return unk(I);
    int64_t float_bound = 0;
    Obj *den = emit_x(I, OP_CLAMP_MIN, nv, &float_bound, 1, float_arg(eps, 1e-12), DT_UNKNOWN, c->node);
    return arith(I, OP_DIV, ARG0(c), den, 1.0, c->node, c->full);
}

/* The tensor argument pos/name of c as a value; -1 after a diagnostic
 * (silent for an unknown). */
static int32_t tensor_at(Interp *I, Call *c, size_t pos, const char *name)
{
    Obj *o = ARG(c, pos, name);
    if (is_tensor(o))
        return tv(I, o, c->node);
    if (!is_unknown(o))
        interp_break(I, c->node, RULE_TNG203, "%s expects a tensor %s", c->full, name);
    return -1;
}

/* torch.outer(input, vec2) | x.outer(vec2) | torch.ger: input[:, None] *
 * vec2[None, :] (both 1-d). */
static Obj *lo_outer(Interp *I, Call *c)
{
    int32_t a = X0(I, c), b = a < 0 ? -1 : tensor_at(I, c, 1, "vec2");
    if (a < 0 || b < 0)
        return unk(I);
    if (rank_of(I, a) != 1 || rank_of(I, b) != 1)
        return interp_break(I, c->node, RULE_TNG203, "%s expects two 1-d tensors", c->full);
    DimId one = graph_dim_const(G(I), 1);
    DimId da[2] = {val_at(I, a)->dims[0], one}, db[2] = {one, val_at(I, b)->dims[0]};
    Obj *ca = reshape_to(I, a, da, 2, c->node), *rb = reshape_to(I, b, db, 2, c->node);
    return arith(I, OP_MUL, ca, rb, 1.0, c->node, c->full);
}

/* torch.baddbmm(input, batch1, batch2, *, beta=1, alpha=1) |
 * x.baddbmm(b1, b2): beta * input + alpha * bmm(batch1, batch2), input
 * ignored when beta is 0; half types computed in float32 and rounded once. */
static Obj *lo_baddbmm(Interp *I, Call *c)
{
    int32_t x = X0(I, c), b1 = x < 0 ? -1 : tensor_at(I, c, 1, "batch1");
    int32_t b2 = b1 < 0 ? -1 : tensor_at(I, c, 2, "batch2");
    if (b2 < 0)
        return unk(I);
    double beta = 1, alpha = 1;
    Obj *bo = args_kw(c->a, "beta"), *ao = args_kw(c->a, "alpha");
    if ((bo && !obj_num_value(bo, &beta)) || (ao && !obj_num_value(ao, &alpha)))
        return interp_break(I, c->node, RULE_TNG205, "beta and alpha must be numbers known at compile time");
    DType dt = val_at(I, b1)->dtype;
    Obj *m1 = stat_input(I, ARG(c, 1, "batch1"), dt, c->node);
    Obj *m2 = stat_input(I, ARG(c, 2, "batch2"), dt, c->node);
    int32_t in[2] = {tv(I, m1, c->node), tv(I, m2, c->node)};
    if (in[0] < 0 || in[1] < 0)
        return unk(I);
    Obj *r = emit1(I, OP_BMM, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
    if (alpha != 1.0)
        r = arith(I, OP_MUL, r, obj_float(I, alpha), 1.0, c->node, c->full);
    if (beta != 0.0) {
        Obj *t = stat_input(I, ARG0(c), val_at(I, x)->dtype, c->node);
        if (beta != 1.0)
            t = arith(I, OP_MUL, t, obj_float(I, beta), 1.0, c->node, c->full);
        r = arith(I, OP_ADD, t, r, 1.0, c->node, c->full);
    }
    return is_tensor(r) ? cast_to(I, r, dt, c->node) : r;
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
        t->v = tv(I, emit_x(I, OP_PERMUTE, t->v, perm, (uint32_t)t->n, 0, DT_UNKNOWN, node), node);
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
    t->v = tv(I, emit_x(I, OP_SUM, t->v, attr, na, 0, DT_UNKNOWN, node), node);
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
    int32_t in[2] = {tv(I, reshape_to(I, a->v, da, nb + 2, node), node),
                     tv(I, reshape_to(I, b->v, db, nb + 2, node), node)};
    if (in[0] < 0 || in[1] < 0)
        return 0;
    int32_t m = tv(I, emit1(I, nb ? OP_MATMUL : OP_MM, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, node), node);
    if (m < 0)
        return 0;
    out->v = tv(I, reshape_to(I, m, dr, nb + nm + nn, node), node);
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
static Obj *lo_einsum(Interp *I, Call *c)
{
    enum { EIN_MAX = 6 };
    Obj *eq = ARG(c, 0, "equation");
    if (!eq || eq->kind != O_STR)
        return is_unknown(eq) ? unk(I) : interp_break(I, c->node, RULE_TNG205, "einsum's equation must be a "
                                                      "string known at compile time");
    Obj *const *ops = c->a->pos + 1;
    size_t nops = c->a->npos ? c->a->npos - 1 : 0;
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
        if ((t[i].v = tv(I, ops[i], c->node)) < 0)
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

/* ---- lowerings: indexing and scatter ---- */

/* 1 when a subscript holds a tensor or a list (advanced indexing). */
static int index_has_tensor(const Obj *index)
{
    if (!index)
        return 0;
    if (index->kind != O_TUPLE)
        return is_tensor(index) || index->kind == O_LIST;
    for (size_t i = 0; i < index->n; i++)
        if (is_tensor(index->items[i]) || index->items[i]->kind == O_LIST)
            return 1;
    return 0;
}

enum { INDEX_LIST_MAX = 256 };

/* A list of Python ints in a subscript (x[[0, 2]]) as an int64 index
 * tensor: the concatenation of one-element constants. -1 after a
 * diagnostic. */
static int32_t index_list(Interp *I, const Obj *l, int32_t node)
{
    int32_t parts[INDEX_LIST_MAX];
    int64_t one = graph_dim_const(G(I), 1), dim0 = 0;
    if (l->n == 0 || l->n > INDEX_LIST_MAX) {
        interp_break(I, node, RULE_TNG203, "a list index of %zu items (1 to %d are supported)", l->n,
                     INDEX_LIST_MAX);
        return -1;
    }
    for (size_t i = 0; i < l->n; i++) {
        const Obj *o = l->items[i];
        if (is_unknown(o))
            return -1;
        if (o->kind == O_BOOL) {
            interp_break(I, node, RULE_TNG203, "indexing with a list of bools (a mask) has a dynamic output "
                         "shape (the number of true elements is only known at run time)");
            return -1;
        }
        if (o->kind != O_INT) {
            interp_break(I, node, RULE_TNG203, "a list index must hold Python ints (item %zu does not)", i);
            return -1;
        }
        if ((parts[i] = tv(I, full_of(I, &one, 1, (double)o->i, DT_I64, node), node)) < 0)
            return -1;
    }
    if (l->n == 1)
        return parts[0];
    return tv(I, emit1(I, OP_CAT, parts, (uint32_t)l->n, &dim0, 1, 0, 0, DT_UNKNOWN, node), node);
}

/* An index tensor's value: integer (PyTorch: int64) tensors only; a bool
 * mask selects a data-dependent number of elements (TNG203). -1 after a
 * diagnostic. */
static int32_t index_tensor(Interp *I, Obj *o, int32_t node)
{
    int32_t v = tv(I, o, node);
    if (v < 0)
        return -1;
    if (val_at(I, v)->dtype == DT_BOOL) {
        interp_break(I, node, RULE_TNG203, "indexing with a bool mask has a dynamic output shape (the number "
                     "of true elements is only known at run time)");
        return -1;
    }
    if (val_at(I, v)->dtype != DT_I64) {
        interp_break(I, node, RULE_TNG207, "tensors used as indices must be int64 (torch.long), got %s",
                     dtype_name(val_at(I, v)->dtype));
        return -1;
    }
    return v;
}

/* The parts of an advanced subscript t[index] applied to value *x except
 * the tensors: ints select (their dims go), slices slice, None inserts a
 * dim, tensors keep their dim, whose position in the result goes to pos[]
 * and value to ixv[]. store: an assignment target, where only full slices,
 * ints next to the tensors (0-d index tensors then) and ellipses may
 * appear. Returns the number of tensors, or -1 after a diagnostic. */
static int index_walk(Interp *I, int32_t *x, Obj *index, int32_t node, int store, int64_t *pos, int32_t *ixv)
{
    Obj *const *items = index->kind == O_TUPLE ? index->items : &index;
    size_t cnt = index->kind == O_TUPLE ? index->n : 1;
    int n = rank_of(I, *x), consumed = 0, ell = 0, k = 0;
    RuleId rule = store ? RULE_TNG211 : RULE_TNG203;
    for (size_t i = 0; i < cnt; i++) {
        Obj *o = items[i];
        if (is_unknown(o))
            return -1;
        if (o->kind == O_ELLIPSIS)
            ell++;
        else if (o->kind != O_NONE)
            consumed++;
    }
    if (ell > 1 || consumed > n) {
        interp_break(I, node, RULE_TNG206, ell > 1 ? "an index can only have a single ellipsis"
                                                   : "too many indices for a tensor of dimension %d", n);
        return -1;
    }
    int64_t p = 0;   /* the dim of *x the next part applies to */
    for (size_t i = 0; i < cnt; i++) {
        Obj *o = items[i];
        int64_t c;
        if (o->kind == O_ELLIPSIS) {
            p += n - consumed;
        } else if (is_tensor(o) || o->kind == O_LIST) {
            if (k >= GRAPH_MAX_DIMS ||
                (ixv[k] = is_tensor(o) ? index_tensor(I, o, node) : index_list(I, o, node)) < 0)
                return -1;
            pos[k++] = p++;
        } else if (o->kind == O_NONE) {
            if (store) {
                interp_break(I, node, RULE_TNG211, "assignment through an index with None");
                return -1;
            }
            Obj *u = unsqueeze_at(I, *x, p++, node);
            if ((*x = tv(I, u, node)) < 0)
                return -1;
        } else if ((o->kind == O_INT || o->kind == O_DIM) && o->kind != O_BOOL) {
            if (!const_int(I, o, node, "an index", &c))
                return -1;
            if (store) {   /* a 0-d index tensor at this dim */
                if (k >= GRAPH_MAX_DIMS)
                    return -1;
                Obj *f = full_of(I, NULL, 0, (double)c, DT_I64, node);
                if ((ixv[k] = tv(I, f, node)) < 0)
                    return -1;
                pos[k++] = p++;
                continue;
            }
            int64_t attr[2] = {p, c};
            Obj *s = emit_x(I, OP_SELECT, *x, attr, 2, 0, DT_UNKNOWN, node);
            if ((*x = tv(I, s, node)) < 0)
                return -1;
        } else if (o->kind == O_SLICE && o->n >= 3) {
            int64_t b[3];
            static const int64_t def[3] = {0, GRAPH_END, 1};
            for (int j = 0; j < 3; j++) {
                if (is_none(o->items[j]))
                    b[j] = def[j];
                else if (!const_int(I, o->items[j], node, "a slice bound", &b[j]))
                    return -1;
            }
            if (b[2] <= 0) {
                interp_break(I, node, RULE_TNG203, "a slice step must be positive");
                return -1;
            }
            if (b[0] == 0 && b[1] == GRAPH_END && b[2] == 1) {
                p++;
                continue;
            }
            if (store) {
                interp_break(I, node, RULE_TNG211, "assignment through tensor indices together with a slice "
                             "other than ':'");
                return -1;
            }
            Obj *s = slice_of(I, *x, p++, b[0], b[1], b[2], node);
            if ((*x = tv(I, s, node)) < 0)
                return -1;
        } else {
            interp_break(I, node, rule, "a tensor index tngc cannot lower (tensors, ints, slices, None and "
                         "... are supported)");
            return -1;
        }
    }
    return k;
}

/* 1 when pos[0..k) are consecutive dims. */
static int index_adjacent(const int64_t *pos, int k)
{
    for (int j = 1; j < k; j++)
        if (pos[j] != pos[j - 1] + 1)
            return 0;
    return 1;
}

/* t[index] with tensors in the index: PyTorch's advanced indexing. The
 * indexed dims are replaced by the indices' broadcast shape where they
 * are, or first when slices separate them (then x is permuted so that
 * they come first). */
static Obj *index_subscript(Interp *I, Obj *t, Obj *index, int32_t node)
{
    int32_t x = tv(I, t, node), in[GRAPH_MAX_DIMS + 1], ixv[GRAPH_MAX_DIMS];
    int64_t pos[GRAPH_MAX_DIMS];
    if (x < 0)
        return unk(I);
    int k = index_walk(I, &x, index, node, 0, pos, ixv);
    if (k <= 0)
        return unk(I);
    if (!index_adjacent(pos, k)) {
        int64_t perm[GRAPH_MAX_DIMS];
        int n = rank_of(I, x), m = 0;
        for (int j = 0; j < k; j++)
            perm[m++] = pos[j];
        for (int d = 0, j = 0; d < n; d++) {
            if (j < k && pos[j] == d)
                j++;
            else
                perm[m++] = d;
        }
        Obj *pm = emit_x(I, OP_PERMUTE, x, perm, (uint32_t)n, 0, DT_UNKNOWN, node);
        if ((x = tv(I, pm, node)) < 0)
            return unk(I);
        pos[0] = 0;
    }
    in[0] = x;
    memcpy(in + 1, ixv, (size_t)k * sizeof in[0]);
    return emit1(I, OP_INDEX, in, (uint32_t)k + 1, pos, 1, 0, 0, DT_UNKNOWN, node);
}

/* The value written by dst[...] = v: a tensor of dst's dtype (as PyTorch
 * requires), or a Python number as a 0-d tensor of it. -1 after a
 * diagnostic. */
static int32_t index_values(Interp *I, int32_t dst, Obj *v, int32_t node)
{
    DType dt = val_at(I, dst)->dtype;
    double f;
    int is_int;
    if (py_number(v, &f, &is_int))
        return tv(I, full_of(I, NULL, 0, f, dt, node), node);
    if (!is_tensor(v)) {
        if (!is_unknown(v))
            interp_break(I, node, RULE_TNG211, "assigning something that is not a tensor or a number");
        return -1;
    }
    int32_t x = tv(I, v, node);
    if (x >= 0 && val_at(I, x)->dtype != dt) {
        interp_break(I, node, RULE_TNG207, "index_put requires the source and destination dtypes to match, "
                     "got %s for the destination and %s for the source", dtype_name(dt),
                     dtype_name(val_at(I, x)->dtype));
        return -1;
    }
    return x;
}

/* INDEX_PUT of values into dst (an input, a buffer, or their in-place
 * versions) through indices ixv[0..k) on dims d..d+k-1: the write lands in
 * dst's storage as copy_ does; t now holds the new version. */
static int index_put_into(Interp *I, Obj *t, int32_t dst, int32_t vals, const int32_t *ixv, int k, int64_t d,
                          int accumulate, int32_t node, const char *what)
{
    int32_t in[GRAPH_MAX_DIMS + 2];
    int64_t attr[2] = {d, accumulate};
    if (!inplace_target_ok(I, dst, node, what))
        return -1;
    in[0] = dst;
    in[1] = vals;
    memcpy(in + 2, ixv, (size_t)k * sizeof in[0]);
    int32_t op = emit(I, OP_INDEX_PUT, in, (uint32_t)k + 2, attr, 2, 0, 0, DT_UNKNOWN, node);
    if (op < 0)
        return -1;
    t->t->value = G(I)->ops.v[op].out;
    return 0;
}

/* dst[index] = v where slices separate the indices (pos[0..k) not
 * consecutive): as PyTorch does, ints (and 0-d index tensors) select first;
 * then the broadcast dims of the tensor indices stay in place when no slice
 * separates those, else they come first, followed by the sliced dims in
 * order. Every dim from the first written one (dim 0 when they come
 * first) to the last indexed one gets an index here, so that one index_put
 * on consecutive dims writes the same elements: each ':' dim an arange of
 * its size, all of them shaped to broadcast to that layout. ixv becomes the
 * new indices (their count is returned, -1 after a diagnostic) and *d0 the
 * first dim. */
static int index_spread(Interp *I, int32_t dst, const int64_t *pos, int32_t *ixv, int k, int64_t *d0,
                        int32_t node)
{
    DimId dd[GRAPH_MAX_DIMS];
    int32_t at[GRAPH_MAX_DIMS];   /* per dim: its index among ixv, or -1 */
    int n = dims_of(I, dst, dd), r = 0, first = -1, last = (int)pos[k - 1], adjacent = 1, prev = -1;
    for (int d = 0; d < n; d++)
        at[d] = -1;
    for (int j = 0; j < k; j++) {
        const Val *iv = val_at(I, ixv[j]);
        if (iv->dtype == DT_BOOL) {
            interp_break(I, node, RULE_TNG211, "assignment through a bool mask index separated from other "
                         "indices by a slice");
            return -1;
        }
        at[pos[j]] = j;
        if (iv->ndim == 0)
            continue;
        r = iv->ndim > r ? iv->ndim : r;
        if (first < 0)
            first = (int)pos[j];
        for (int d = prev + 1; prev >= 0 && d < pos[j]; d++)
            adjacent &= at[d] >= 0;   /* only ints between two tensor indices */
        prev = (int)pos[j];
    }
    *d0 = adjacent ? pos[0] : 0;
    /* the layout: slice dims before the broadcast dims (`lead` of them),
     * the broadcast dims (r), the other slice dims */
    int lead = 0, nslice = 0;
    for (int d = (int)*d0; d <= last; d++)
        if (at[d] < 0) {
            nslice++;
            lead += adjacent && first >= 0 && d < first;
        }
    int rank = nslice + r;
    if (rank > GRAPH_MAX_DIMS) {
        interp_break(I, node, RULE_TNG211, "assignment through separated indices: the written view would "
                     "have more than %d dims", GRAPH_MAX_DIMS);
        return -1;
    }
    int32_t out[GRAPH_MAX_DIMS];
    int m = 0, q = 0;
    DimId one = graph_dim_const(G(I), 1), shp[GRAPH_MAX_DIMS];
    for (int d = (int)*d0; d <= last; d++, m++) {
        for (int i = 0; i < rank; i++)
            shp[i] = one;
        int32_t x;
        if (at[d] < 0) {   /* a ':' dim: arange(size) at its place in the layout */
            int qq = q < lead ? q : q + r;
            int64_t attr[2] = {dd[d], graph_dim_const(G(I), 0)};
            x = tv(I, emit1(I, OP_ARANGE, NULL, 0, attr, 2, 0, 1, DT_I64, node), node);
            shp[qq] = dd[d];
            q++;
        } else if (val_at(I, ixv[at[d]])->ndim == 0) {
            out[m] = ixv[at[d]];
            continue;
        } else {   /* a tensor index: its dims right-aligned in the broadcast dims */
            DimId id[GRAPH_MAX_DIMS];
            int ni = dims_of(I, ixv[at[d]], id);
            x = ixv[at[d]];
            for (int i = 0; i < ni; i++)
                shp[lead + r - ni + i] = id[i];
        }
        if (x < 0 || (out[m] = tv(I, reshape_to(I, x, shp, rank, node), node)) < 0)
            return -1;
    }
    memcpy(ixv, out, (size_t)m * sizeof out[0]);
    return m;
}

/* t[index] = v with tensors in the index: index_put_ on the consecutive
 * indexed dims (ints beside them become 0-d indices). */
static int index_store_subscript(Interp *I, Obj *t, Obj *index, Obj *v, int32_t node)
{
    int32_t dst = tv(I, t, node), x = dst, ixv[GRAPH_MAX_DIMS];
    int64_t pos[GRAPH_MAX_DIMS];
    if (dst < 0 || is_unknown(v))
        return -1;
    int k = index_walk(I, &x, index, node, 1, pos, ixv);
    if (k <= 0)
        return -1;
    int32_t vals = index_values(I, dst, v, node);
    if (vals < 0)
        return -1;
    if (!index_adjacent(pos, k)) {
        int64_t d0;
        if ((k = index_spread(I, dst, pos, ixv, k, &d0, node)) < 0)
            return -1;
        return index_put_into(I, t, dst, vals, ixv, k, d0, 0, node, "assignment through tensor indices");
    }
    return index_put_into(I, t, dst, vals, ixv, k, pos[0], 0, node, "assignment through tensor indices");
}

/* The in-place form of an out-of-place result res: dst.copy_(res), the
 * write copy_ makes into an input or a buffer (TNG211 on a parameter or a
 * view); an op's result (e.g. a zeros_like mask) just takes the new value,
 * as x op= y does (torchlib_augassign). */
static Obj *index_inplace(Interp *I, Obj *dst, Obj *res, int32_t node, const char *what)
{
    int32_t in[2] = {tv(I, dst, node), tv(I, res, node)};
    if (in[0] < 0 || in[1] < 0)
        return unk(I);
    if (!inplace_into_storage(I, in[0])) {
        inplace_rebind(I, dst, in[1]);
        return dst;
    }
    if (!inplace_target_ok(I, in[0], node, what))
        return unk(I);
    int32_t op = emit(I, OP_COPY, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, node);
    if (op < 0)
        return obj_unknown_reported(I);
    dst->t->value = G(I)->ops.v[op].out;
    return dst;
}

/* An index tensor argument (any integer dtype; the shape rule checks
 * which). -1 after a diagnostic. */
static int32_t index_arg(Interp *I, Call *c, Obj *o, const char *what)
{
    if (!is_tensor(o)) {
        if (!is_unknown(o))
            interp_break(I, c->node, RULE_TNG203, "%s: %s must be a tensor", c->full, what);
        return -1;
    }
    return tv(I, o, c->node);
}

/* x.index_select(dim, index) | torch.index_select(x, dim, index) */
static Obj *lo_index_select(Interp *I, Call *c)
{
    int32_t in[2] = {X0(I, c), -1};
    int64_t dim;
    if (in[0] < 0 || !dim_arg(I, ARG(c, 1, "dim"), rank_of(I, in[0]), c->node, "dim", &dim) ||
        (in[1] = index_arg(I, c, ARG(c, 2, "index"), "index")) < 0)
        return unk(I);
    return emit1(I, c->arg ? OP_GATHER : OP_INDEX_SELECT, in, 2, &dim, 1, 0, 0, DT_UNKNOWN, c->node);
}

enum { IX_INPLACE = 1, IX_ADD = 2 };

/* x.scatter(dim, index, src | value, reduce=None), scatter_ (arg bit
 * IX_INPLACE), scatter_add(dim, index, src) and scatter_add_ (IX_ADD). */
static Obj *lo_scatter(Interp *I, Call *c)
{
    Obj *self = ARG0(c), *src = ARG(c, 3, "src"), *red = args_kw(c->a, "reduce");
    int32_t in[3] = {X0(I, c), -1, -1};
    int64_t attr[2] = {0, 0};
    double value = 0;
    int is_int;
    if (!src)
        src = args_kw(c->a, "value");
    if (in[0] < 0 || !dim_arg(I, ARG(c, 1, "dim"), rank_of(I, in[0]), c->node, "dim", &attr[0]) ||
        (in[1] = index_arg(I, c, ARG(c, 2, "index"), "index")) < 0)
        return unk(I);
    if (is_tensor(src)) {
        if ((in[2] = tv(I, src, c->node)) < 0)
            return unk(I);
    } else if ((c->arg & IX_ADD) || !py_number(src, &value, &is_int)) {
        if (!is_unknown(src))
            interp_break(I, c->node, RULE_TNG203, "%s expects %s", c->full,
                         c->arg & IX_ADD ? "a src tensor" : "a src tensor or a number value");
        return unk(I);
    }
    if (!is_none(red)) {
        const char *r = red->kind == O_STR ? red->s : NULL;
        if (r && streq(r, "add"))
            attr[1] = 1;
        else if (r && streq(r, "multiply"))
            attr[1] = 2;
        else {
            if (!is_unknown(red))
                interp_break(I, c->node, RULE_TNG203, "%s: reduce must be \"add\" or \"multiply\"", c->full);
            return unk(I);
        }
    }
    Obj *res = c->arg & IX_ADD ? emit1(I, OP_SCATTER_ADD, in, 3, attr, 1, 0, 0, DT_UNKNOWN, c->node)
                               : emit1(I, OP_SCATTER, in, 3, attr, 2, value, 0, DT_UNKNOWN, c->node);
    if (!(c->arg & IX_INPLACE) || !is_tensor(res))
        return res;
    return index_inplace(I, self, res, c->node, c->full);
}

/* x.index_add(dim, index, source, alpha=1), index_add_ (IX_INPLACE);
 * index_copy(dim, index, source), index_copy_ (arg without IX_ADD). */
static Obj *lo_index_add(Interp *I, Call *c)
{
    Obj *self = ARG0(c), *alpha = ARG(c, 4, "alpha");
    int32_t in[3] = {X0(I, c), -1, -1};
    int64_t dim;
    double a = 1;
    int is_int;
    if (in[0] < 0 || !dim_arg(I, ARG(c, 1, "dim"), rank_of(I, in[0]), c->node, "dim", &dim) ||
        (in[1] = index_arg(I, c, ARG(c, 2, "index"), "index")) < 0 ||
        (in[2] = index_arg(I, c, ARG(c, 3, "source"), "source")) < 0)
        return unk(I);
    if ((c->arg & IX_ADD) && !is_none(alpha) && !py_number(alpha, &a, &is_int)) {
        if (!is_unknown(alpha))
            interp_break(I, c->node, RULE_TNG203, "%s: alpha must be a number", c->full);
        return unk(I);
    }
    Obj *res = emit1(I, c->arg & IX_ADD ? OP_INDEX_ADD : OP_INDEX_COPY, in, 3, &dim, 1, a, 0, DT_UNKNOWN,
                     c->node);
    if (!(c->arg & IX_INPLACE) || !is_tensor(res))
        return res;
    return index_inplace(I, self, res, c->node, c->full);
}

/* x.index_put_(indices, values, accumulate=False) (IX_INPLACE), and
 * x.index_put / torch.index_put (a copy written). indices: a tuple of
 * int64 tensors for dims 0.. */
static Obj *lo_index_put(Interp *I, Call *c)
{
    Obj *self = ARG0(c), *ix = ARG(c, 1, "indices"), *acc = ARG(c, 3, "accumulate");
    int32_t x = X0(I, c), ixv[GRAPH_MAX_DIMS];
    if (x < 0)
        return unk(I);
    if (!is_seq(ix) || ix->n == 0 || ix->n > GRAPH_MAX_DIMS) {
        if (!is_unknown(ix))
            interp_break(I, c->node, RULE_TNG203, "%s expects a tuple of 1 to %d index tensors", c->full,
                         GRAPH_MAX_DIMS);
        return unk(I);
    }
    for (size_t j = 0; j < ix->n; j++) {
        if (is_unknown(ix->items[j]))
            return unk(I);
        if (!is_tensor(ix->items[j]))
            return interp_break(I, c->node, RULE_TNG203, "%s: index %zu is not a tensor (None and other "
                                "entries are not supported)", c->full, j);
        if ((ixv[j] = index_tensor(I, ix->items[j], c->node)) < 0)
            return unk(I);
    }
    if (!is_none(acc) && acc->kind != O_BOOL) {
        if (!is_unknown(acc))
            interp_break(I, c->node, RULE_TNG203, "%s: accumulate must be True or False", c->full);
        return unk(I);
    }
    int32_t vals = index_values(I, x, ARG(c, 2, "values"), c->node);
    if (vals < 0)
        return unk(I);
    Obj *t = self;
    if (!(c->arg & IX_INPLACE)) {
        if (!interp_tracing(I))
            return self;   /* host tensors are shapes only */
        t = emit_x(I, OP_CLONE, x, NULL, 0, 0, DT_UNKNOWN, c->node);
        if ((x = tv(I, t, c->node)) < 0)
            return unk(I);
        int32_t in[GRAPH_MAX_DIMS + 2] = {x, vals};
        int64_t attr[2] = {0, !is_none(acc) && acc->i};
        memcpy(in + 2, ixv, ix->n * sizeof in[0]);
        return emit1(I, OP_INDEX_PUT, in, (uint32_t)ix->n + 2, attr, 2, 0, 0, DT_UNKNOWN, c->node);
    }
    if (index_put_into(I, t, x, vals, ixv, (int)ix->n, 0, !is_none(acc) && acc->i, c->node, c->full) < 0)
        return unk(I);
    return t;
}

/* F.one_hot(x, num_classes): zeros(x.shape + [n], int64) with 1 scattered
 * along the new last dim at x's values (out of [0, n) is a run-time
 * error). num_classes=-1 (from the data) is a dynamic output shape. */
static Obj *lo_one_hot(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    int64_t n, d[GRAPH_MAX_DIMS];
    Obj *nc = ARG(c, 1, "num_classes");
    if (x < 0)
        return unk(I);
    if (!nc || (obj_int_value(nc, &n) && n == -1))
        return interp_break(I, c->node, RULE_TNG203, "one_hot without num_classes has a dynamic output shape "
                            "(the largest class is only known at run time): pass num_classes");
    if (!const_int(I, nc, c->node, "num_classes", &n))
        return unk(I);
    if (n < 0)
        return interp_break(I, c->node, RULE_TNG206, "num_classes must be >= 0, got %lld", (long long)n);
    if (val_at(I, x)->dtype != DT_I64)
        return interp_break(I, c->node, RULE_TNG207, "one_hot is only applicable to int64 index tensors, got %s",
                            dtype_name(val_at(I, x)->dtype));
    int r = rank_of(I, x);
    if (r >= GRAPH_MAX_DIMS)
        return interp_break(I, c->node, RULE_TNG206, "one_hot of a %d-d tensor has too many dims", r);
    for (int i = 0; i < r; i++)
        d[i] = val_at(I, x)->dims[i];
    d[r] = graph_dim_const(G(I), n);
    Obj *z = full_of(I, d, r + 1, 0, DT_I64, c->node), *ix = unsqueeze_at(I, x, r, c->node);
    int32_t in[3] = {tv(I, z, c->node), tv(I, ix, c->node), -1};
    int64_t attr[2] = {r, 0};
    if (in[0] < 0 || in[1] < 0)
        return unk(I);
    return emit1(I, OP_SCATTER, in, 3, attr, 2, 1.0, 0, DT_UNKNOWN, c->node);
}

/* ---- lowerings: neural net ---- */

/* A flag argument known at compile time (absent or None: def): 1 and *v;
 * 0 after a diagnostic. */
static int nn_flag(Interp *I, const Obj *o, int def, int32_t node, const char *what, int *v)
{
    *v = def;
    if (!o || is_none(o))
        return 1;
    if (o->kind == O_BOOL || o->kind == O_INT) {
        *v = o->i != 0;
        return 1;
    }
    if (!obj_reported(o))
        interp_break(I, node, RULE_TNG205, "%s must be a bool known at compile time", what);
    return 0;
}

/* An int or a tuple/list of n ints (one int: repeated); absent or None:
 * def. 1 and out[0..n); 0 after a diagnostic. */
static int nn_ints(Interp *I, const Obj *o, int n, int64_t def, int32_t node, const char *what, int64_t *out)
{
    for (int i = 0; i < n; i++)
        out[i] = def;
    if (!o || is_none(o))
        return 1;
    if (is_seq(o)) {
        if (o->n == 0) /* stride=[] means the default */
            return 1;
        if (o->n != (size_t)n && o->n != 1) {
            interp_break(I, node, RULE_TNG203, "%s must be an int or %d ints, got %zu", what, n, o->n);
            return 0;
        }
        for (int i = 0; i < n; i++)
            if (!const_int(I, o->items[o->n == 1 ? 0 : i], node, what, &out[i]))
                return 0;
        return 1;
    }
    if (!const_int(I, o, node, what, &out[0]))
        return 0;
    for (int i = 1; i < n; i++)
        out[i] = out[0];
    return 1;
}

/* F.scaled_dot_product_attention(query, key, value, attn_mask=None,
 * dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False) */
static Obj *lo_sdpa(Interp *I, Call *c)
{
    const char *fn = "scaled_dot_product_attention";
    Obj *qo = ARG(c, 0, "query"), *ko = ARG(c, 1, "key"), *vo = ARG(c, 2, "value");
    int32_t node = c->node;
    if (is_unknown(ko) || is_unknown(vo))
        return unk(I);
    if (!is_tensor(qo) || !is_tensor(ko) || !is_tensor(vo))
        return interp_break(I, node, RULE_TNG203, "%s expects tensors query, key and value", fn);
    int32_t in[4] = {tv(I, qo, node), tv(I, ko, node), tv(I, vo, node), -1};
    if (in[0] < 0 || in[1] < 0 || in[2] < 0)
        return unk(I);
    if ((in[3] = opt_tensor(I, ARG(c, 3, "attn_mask"), node, "attn_mask")) < -1)
        return unk(I);
    double p, scale = 0;
    int causal, gqa;
    Obj *so = ARG(c, 6, "scale");
    if (!num_arg(I, ARG(c, 4, "dropout_p"), 0.0, node, "dropout_p", &p) ||
        !nn_flag(I, ARG(c, 5, "is_causal"), 0, node, "is_causal", &causal) ||
        !nn_flag(I, ARG(c, 7, "enable_gqa"), 0, node, "enable_gqa", &gqa) ||
        (so && !is_none(so) && !num_arg(I, so, 0.0, node, "scale", &scale)))
        return unk(I);
    if (p != 0)
        return interp_break(I, node, RULE_TNG203, "%s with dropout_p=%g (only 0: inference)", fn, p);
    if (gqa)
        return interp_break(I, node, RULE_TNG203, "%s with enable_gqa=True (grouped-query attention)", fn);
    if (causal && in[3] >= 0)
        return interp_break(I, node, RULE_TNG203, "%s with both attn_mask and is_causal=True", fn);
    /* grouped-query attention: more query heads than key/value heads is
     * not broadcasting, which is all PyTorch's SDPA does without enable_gqa */
    const Val *q = val_at(I, in[0]);
    for (int t = 1; t <= 2; t++) {
        const Val *kv = val_at(I, in[t]);
        int64_t hq, hk;
        if (q->ndim >= 3 && kv->ndim >= 3 && graph_dim_const_value(G(I), q->dims[q->ndim - 3], &hq) &&
            graph_dim_const_value(G(I), kv->dims[kv->ndim - 3], &hk) && hq != hk && hk != 1)
            return interp_break(I, node, RULE_TNG203, "%s: %s has %lld heads and query %lld "
                                "(grouped-query attention needs enable_gqa, not supported; repeat "
                                "the %s heads)", fn, t == 1 ? "key" : "value", (long long)hk,
                                (long long)hq, t == 1 ? "key" : "value");
    }
    int64_t attr[2] = {causal, so && !is_none(so)};
    return emit1(I, OP_SDPA, in, 4, attr, 2, scale, 0, DT_UNKNOWN, node);
}

/* CONV of values x, w, b (-1) with the Python arguments stride, padding
 * (ints, "same", "valid"), dilation, groups; ns spatial dims. */
static Obj *conv_of(Interp *I, int32_t x, int32_t w, int32_t b, int ns, Obj *stride, Obj *padding,
                    Obj *dilation, Obj *groups, int32_t node)
{
    int64_t st[2], pad[2], dil[2], g, attr[10];
    if (!nn_ints(I, stride, ns, 1, node, "stride", st) || !nn_ints(I, dilation, ns, 1, node, "dilation", dil))
        return unk(I);
    g = 1;
    if (groups && !is_none(groups) && !const_int(I, groups, node, "groups", &g))
        return unk(I);
    if (g < 1)
        return interp_break(I, node, RULE_TNG206, "groups must be positive, got %lld", (long long)g);
    for (int i = 0; i < ns; i++)
        if (st[i] < 1 || dil[i] < 1)
            return interp_break(I, node, RULE_TNG206, "stride and dilation must be positive");
    const Val *wv = val_at(I, w), *xv = val_at(I, x);
    if (wv->ndim != ns + 2 || (xv->ndim != ns + 2 && xv->ndim != ns + 1))
        return interp_break(I, node, RULE_TNG206, "conv%dd expects a %d-d or %d-d input and a %d-d weight, "
                            "got %d-d and %d-d", ns, ns + 1, ns + 2, ns + 2, xv->ndim, wv->ndim);
    if (xv->ndim == ns + 1) {   /* unbatched: a batch of one, dropped after */
        int32_t xb = tv(I, unsqueeze_at(I, x, 0, node), node);
        int32_t y = xb < 0 ? -1 : tv(I, conv_of(I, xb, w, b, ns, stride, padding, dilation, groups, node), node);
        if (y < 0)
            return unk(I);
        DimId d[GRAPH_MAX_DIMS];
        int n = dims_of(I, y, d);
        return reshape_to(I, y, d + 1, n - 1, node);
    }
    attr[0] = ns;
    for (int i = 0; i < 2; i++) {
        attr[1 + i] = 1, attr[3 + i] = 0, attr[5 + i] = 0, attr[7 + i] = 1;
    }
    if (padding && padding->kind == O_STR) {
        int same = streq(padding->s, "same");
        if (!same && !streq(padding->s, "valid"))
            return interp_break(I, node, RULE_TNG203, "padding=\"%s\" (\"same\", \"valid\" or ints are)",
                                padding->s);
        for (int i = 0; i < ns && same; i++) {
            int64_t k;
            if (st[i] != 1)
                return interp_break(I, node, RULE_TNG203, "padding=\"same\" with a stride other than 1");
            if (!graph_dim_const_value(G(I), wv->dims[2 + i], &k))
                return interp_break(I, node, RULE_TNG205, "the kernel size is not known at compile time");
            int64_t total = dil[i] * (k - 1);
            pad[i] = total / 2;
            attr[(ns == 2 ? 3 : 4) + i] = pad[i];
            attr[(ns == 2 ? 5 : 6) + i] = total - pad[i];
        }
    } else {
        if (!nn_ints(I, padding, ns, 0, node, "padding", pad))
            return unk(I);
        for (int i = 0; i < ns; i++) {
            if (pad[i] < 0)
                return interp_break(I, node, RULE_TNG206, "negative padding");
            attr[(ns == 2 ? 3 : 4) + i] = attr[(ns == 2 ? 5 : 6) + i] = pad[i];
        }
    }
    for (int i = 0; i < ns; i++) {
        attr[(ns == 2 ? 1 : 2) + i] = st[i];
        attr[(ns == 2 ? 7 : 8) + i] = dil[i];
    }
    attr[9] = g;
    /* padded more after than before (padding="same", an even kernel): the
     * extra zeros are a block cat after x, the conv pads both sides alike
     * (the same sums; aclnnConvolution takes only symmetric padding) */
    for (int i = 0; i < 2; i++) {
        int64_t extra = attr[5 + i] - attr[3 + i];
        if (extra <= 0 || (ns == 1 && i == 0))
            continue;
        DimId d[GRAPH_MAX_DIMS];
        int64_t fd[GRAPH_MAX_DIMS], dim = ns == 2 ? 2 + i : 2;
        int n = dims_of(I, x, d);
        for (int j = 0; j < n; j++)
            fd[j] = d[j];
        fd[dim] = graph_dim_const(G(I), extra);
        int32_t cin[2] = {x, tv(I, full_of(I, fd, n, 0.0, val_at(I, x)->dtype, node), node)};
        if (cin[1] < 0 || (x = tv(I, emit1(I, OP_CAT, cin, 2, &dim, 1, 0, 0, DT_UNKNOWN, node), node)) < 0)
            return unk(I);
        attr[5 + i] = attr[3 + i];
    }
    int32_t in[3] = {x, w, b};
    return emit1(I, OP_CONV, in, 3, attr, 10, 0, 0, DT_UNKNOWN, node);
}

/* F.conv1d / F.conv2d(input, weight, bias=None, stride=1, padding=0,
 * dilation=1, groups=1) */
static Obj *lo_conv(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    int32_t w = opt_tensor(I, ARG(c, 1, "weight"), c->node, "weight");
    int32_t b = opt_tensor(I, ARG(c, 2, "bias"), c->node, "bias");
    if (w == -1)
        return interp_break(I, c->node, RULE_TNG203, "%s without a weight", c->full);
    if (w < 0 || b < -1)
        return unk(I);
    return conv_of(I, x, w, b, c->arg, ARG(c, 3, "stride"), ARG(c, 4, "padding"), ARG(c, 5, "dilation"),
                   ARG(c, 6, "groups"), c->node);
}

/* F.batch_norm(input, running_mean, running_var, weight=None, bias=None,
 * training=False, momentum=0.1, eps=1e-5): the inference form */
static Obj *lo_batch_norm(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    int training;
    double eps;
    if (x < 0)
        return unk(I);
    int32_t in[5] = {x, opt_tensor(I, ARG(c, 1, "running_mean"), c->node, "running_mean"),
                     opt_tensor(I, ARG(c, 2, "running_var"), c->node, "running_var"),
                     opt_tensor(I, ARG(c, 3, "weight"), c->node, "weight"),
                     opt_tensor(I, ARG(c, 4, "bias"), c->node, "bias")};
    if (in[1] < -1 || in[2] < -1 || in[3] < -1 || in[4] < -1 ||
        !nn_flag(I, ARG(c, 5, "training"), 0, c->node, "training", &training) ||
        !num_arg(I, ARG(c, 7, "eps"), 1e-5, c->node, "eps", &eps))
        return unk(I);
    if (training)
        return interp_break(I, c->node, RULE_TNG203, "batch_norm with training=True (batch statistics; "
                            "only inference is compiled)");
    if (in[1] < 0 || in[2] < 0)
        return interp_break(I, c->node, RULE_TNG203, "batch_norm without running_mean and running_var");
    return emit1(I, OP_BATCH_NORM, in, 5, NULL, 0, eps, 0, DT_UNKNOWN, c->node);
}

/* F.group_norm(input, num_groups, weight=None, bias=None, eps=1e-5) */
static Obj *lo_group_norm(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    int64_t g;
    double eps;
    if (x < 0 || !const_int(I, ARG(c, 1, "num_groups"), c->node, "num_groups", &g))
        return unk(I);
    int32_t in[3] = {x, opt_tensor(I, ARG(c, 2, "weight"), c->node, "weight"),
                     opt_tensor(I, ARG(c, 3, "bias"), c->node, "bias")};
    if (in[1] < -1 || in[2] < -1 || !num_arg(I, ARG(c, 4, "eps"), 1e-5, c->node, "eps", &eps))
        return unk(I);
    return emit1(I, OP_GROUP_NORM, in, 3, &g, 1, eps, 0, DT_UNKNOWN, c->node);
}

/* MAX_POOL2D or AVG_POOL2D of value x; the Python arguments as F's. */
static Obj *pool2d_of(Interp *I, OpKind kind, int32_t x, Obj *kernel, Obj *stride, Obj *padding,
                      Obj *dilation, Obj *ceil_mode, Obj *cip, Obj *divisor, Obj *indices, int32_t node)
{
    int64_t attr[7], dil[2];
    int ceil, inc, ret;
    const char *fn = kind == OP_MAX_POOL2D ? "max_pool2d" : "avg_pool2d";
    if (!kernel)
        return interp_break(I, node, RULE_TNG203, "%s without kernel_size", fn);
    if (!nn_ints(I, kernel, 2, 1, node, "kernel_size", attr) ||
        !nn_ints(I, stride, 2, 0, node, "stride", attr + 2) ||
        !nn_ints(I, padding, 2, 0, node, "padding", attr + 4) ||
        !nn_ints(I, dilation, 2, 1, node, "dilation", dil) ||
        !nn_flag(I, ceil_mode, 0, node, "ceil_mode", &ceil) ||
        !nn_flag(I, cip, 1, node, "count_include_pad", &inc) ||
        !nn_flag(I, indices, 0, node, "return_indices", &ret))
        return unk(I);
    for (int i = 0; i < 2; i++)
        if (attr[2 + i] == 0)
            attr[2 + i] = attr[i];
    attr[6] = inc;
    if (ceil)
        return interp_break(I, node, RULE_TNG203, "%s with ceil_mode=True (floor mode only)", fn);
    if (dil[0] != 1 || dil[1] != 1)
        return interp_break(I, node, RULE_TNG203, "%s with dilation other than 1", fn);
    if (ret)
        return interp_break(I, node, RULE_TNG203, "%s with return_indices=True", fn);
    if (divisor && !is_none(divisor))
        return interp_break(I, node, RULE_TNG203, "%s with divisor_override", fn);
    for (int i = 0; i < 6; i++)
        if (attr[i] < (i < 4 ? 1 : 0))
            return interp_break(I, node, RULE_TNG206, "%s: kernel_size and stride must be positive, "
                                "padding not negative", fn);
    return emit_x(I, kind, x, attr, kind == OP_AVG_POOL2D ? 7 : 6, 0, DT_UNKNOWN, node);
}

/* F.max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1,
 * ceil_mode=False, return_indices=False) | F.avg_pool2d(input, kernel_size,
 * stride=None, padding=0, ceil_mode=False, count_include_pad=True,
 * divisor_override=None) */
static Obj *lo_pool2d(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    if (c->arg == OP_MAX_POOL2D)
        return pool2d_of(I, OP_MAX_POOL2D, x, ARG(c, 1, "kernel_size"), ARG(c, 2, "stride"),
                         ARG(c, 3, "padding"), ARG(c, 4, "dilation"), ARG(c, 5, "ceil_mode"), NULL, NULL,
                         ARG(c, 6, "return_indices"), c->node);
    return pool2d_of(I, OP_AVG_POOL2D, x, ARG(c, 1, "kernel_size"), ARG(c, 2, "stride"),
                     ARG(c, 3, "padding"), NULL, ARG(c, 4, "ceil_mode"), ARG(c, 5, "count_include_pad"),
                     ARG(c, 6, "divisor_override"), NULL, c->node);
}

/* ADAPTIVE_*_POOL2D of value x to output_size (an int, or two, None
 * keeping the input's size). */
static Obj *adaptive_of(Interp *I, OpKind kind, int32_t x, Obj *size, Obj *indices, int32_t node)
{
    int64_t attr[2];
    int ret;
    const Val *xv = val_at(I, x);
    if (!nn_flag(I, indices, 0, node, "return_indices", &ret))
        return unk(I);
    if (ret)
        return interp_break(I, node, RULE_TNG203, "adaptive_max_pool2d with return_indices=True");
    if (xv->ndim < 3 || xv->ndim > 4)
        return interp_break(I, node, RULE_TNG203, "adaptive pooling of a %d-d tensor (3-d or 4-d are)", xv->ndim);
    for (int i = 0; i < 2; i++) {
        Obj *o = is_seq(size) && size->n == 2 ? size->items[i] : size;
        if (is_seq(size) && size->n != 2)
            return interp_break(I, node, RULE_TNG203, "output_size must be an int or two");
        if (!o || is_none(o)) {
            if (!graph_dim_const_value(G(I), xv->dims[xv->ndim - 2 + i], &attr[i]))
                return interp_break(I, node, RULE_TNG205, "output_size None of a dynamic dim");
        } else if (!const_int(I, o, node, "output_size", &attr[i])) {
            return unk(I);
        }
    }
    return emit_x(I, kind, x, attr, 2, 0, DT_UNKNOWN, node);
}

/* F.adaptive_avg_pool2d(input, output_size) | F.adaptive_max_pool2d(input,
 * output_size, return_indices=False) */
static Obj *lo_adaptive_pool2d(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    return adaptive_of(I, (OpKind)c->arg, x, ARG(c, 1, "output_size"),
                       c->arg == OP_ADAPTIVE_MAX_POOL2D ? ARG(c, 2, "return_indices") : NULL, c->node);
}

/* UPSAMPLE_NEAREST2D or UPSAMPLE_BILINEAR2D of value x: size, scale_factor, mode, align_corners and
 * recompute_scale_factor as F.interpolate's. */
static Obj *interpolate_of(Interp *I, int32_t x, Obj *size, Obj *scale, Obj *mode, Obj *align,
                           Obj *recompute, Obj *antialias, int32_t node)
{
    const Val *xv = val_at(I, x);
    int64_t attr[4] = {0, 0, 0, 0};
    double f[2] = {0, 0};
    int ac, rec, aa;
    if (xv->ndim != 4)
        return interp_break(I, node, RULE_TNG203, "interpolate of a %d-d tensor (4-d is compiled)", xv->ndim);
    if (!mode || is_none(mode) || obj_is_str(mode, "nearest"))
        attr[0] = 0;
    else if (obj_is_str(mode, "bilinear"))
        attr[0] = 1;
    else if (mode->kind == O_STR)
        return interp_break(I, node, RULE_TNG203, "interpolate with mode=\"%s\" (nearest and bilinear "
                            "are compiled)", mode->s);
    else
        return interp_break(I, node, RULE_TNG205, "interpolate's mode must be a known string");
    if (!nn_flag(I, align, 0, node, "align_corners", &ac) ||
        !nn_flag(I, recompute, 0, node, "recompute_scale_factor", &rec) ||
        !nn_flag(I, antialias, 0, node, "antialias", &aa))
        return unk(I);
    if (align && !is_none(align) && attr[0] == 0)
        return interp_break(I, node, RULE_TNG203, "interpolate: align_corners with mode=\"nearest\"");
    if (aa)
        return interp_break(I, node, RULE_TNG203, "interpolate with antialias=True");
    attr[1] = ac;
    int has_size = size && !is_none(size), has_scale = scale && !is_none(scale);
    if (has_size == has_scale)
        return interp_break(I, node, RULE_TNG203, "interpolate needs exactly one of size and scale_factor");
    for (int i = 0; i < 2; i++) {
        int64_t in;
        if (has_size) {
            if (!nn_ints(I, size, 2, 1, node, "size", attr + 2))
                return unk(I);
            break;
        }
        Obj *o = is_seq(scale) ? scale->items[scale->n == 2 ? i : 0] : scale;
        if (is_seq(scale) && scale->n != 2 && scale->n != 1)
            return interp_break(I, node, RULE_TNG203, "scale_factor must be a number or two");
        if (!num_arg(I, o, 1.0, node, "scale_factor", &f[i]))
            return unk(I);
        if (f[i] <= 0)
            return interp_break(I, node, RULE_TNG206, "scale_factor must be positive");
        if (!graph_dim_const_value(G(I), xv->dims[2 + i], &in))
            return interp_break(I, node, RULE_TNG205, "interpolate by scale_factor of a dynamic spatial dim");
        attr[2 + i] = (int64_t)floor((double)in * f[i]);
    }
    if (rec)
        f[0] = f[1] = 0;
    return emit1(I, attr[0] ? OP_UPSAMPLE_BILINEAR2D : OP_UPSAMPLE_NEAREST2D, &x, 1, attr, 4, f[0], f[1],
                 DT_UNKNOWN, node);
}

/* F.interpolate(input, size=None, scale_factor=None, mode='nearest',
 * align_corners=None, recompute_scale_factor=None, antialias=False) */
static Obj *lo_interpolate(Interp *I, Call *c)
{
    int32_t x = X0(I, c);
    if (x < 0)
        return unk(I);
    return interpolate_of(I, x, ARG(c, 1, "size"), ARG(c, 2, "scale_factor"), ARG(c, 3, "mode"),
                          ARG(c, 4, "align_corners"), ARG(c, 5, "recompute_scale_factor"),
                          ARG(c, 6, "antialias"), c->node);
}

/* F.dropout / dropout1d / dropout2d / dropout3d (input, p=0.5,
 * training=True, inplace=False), F.alpha_dropout / feature_alpha_dropout
 * (training=False by default) and torch.dropout / alpha_dropout /
 * feature_dropout / feature_alpha_dropout (input, p, train): the identity
 * in inference (training false, or p=0); in training mode it is random, so
 * it is refused naming the argument (TNG203), also when training is the
 * functional form's default (True, unlike nn.Dropout after .eval()). */
static Obj *lo_dropout(Interp *I, Call *c)
{
    int training;
    double p;
    if (X0(I, c) < 0)
        return unk(I);
    int functional = strncmp(c->full, "torch.nn.functional.", 20) == 0;
    int def = !(functional && strstr(c->full, "alpha_dropout"));
    const char *arg = functional ? "training" : "train";   /* torch.dropout(input, p, train) */
    Obj *tr = ARG(c, 2, arg);
    if (!num_arg(I, ARG(c, 1, "p"), 0.5, c->node, "p", &p) ||
        !nn_flag(I, tr, def, c->node, arg, &training))
        return unk(I);
    if (training && p != 0 && tr)
        return interp_break(I, c->node, RULE_TNG203, "%s with %s=True (random; only inference, "
                            "%s=False, is compiled)", c->full, arg, arg);
    if (training && p != 0)
        return interp_break(I, c->node, RULE_TNG203, "%s: argument '%s' defaults to True (training "
                            "mode), and with p=%g it is random; only inference is compiled: pass "
                            "%s=False (or %s=self.training with the model in eval mode)",
                            c->full, arg, p, arg, arg);
    return ARG0(c);
}

/* ---- lowerings: torch_npu fused ops ---- */

/* A required tensor argument of a torch_npu op: its value, or -1 after a
 * diagnostic naming it (silent when it is unknown). */
static int32_t npu_tensor_arg(Interp *I, const Call *c, size_t pos, const char *name)
{
    Obj *o = ARG(c, pos, name);
    int32_t v = is_tensor(o) ? tv(I, o, c->node) : -1;
    if (v < 0 && !obj_has_unknown(o))
        interp_break(I, c->node, RULE_TNG203, "%s expects a tensor %s", c->full, name);
    return v;
}

/* The outputs 0..n-1 of op as a tuple. */
static Obj *npu_outs(Interp *I, int32_t op, int n)
{
    if (op < 0)
        return obj_unknown_reported(I);   /* interp_op reported */
    Obj *items[3];
    for (int k = 0; k < n; k++)
        items[k] = op_out(I, op, k);
    return obj_tuple(I, items, (size_t)n);
}

/* torch_npu.npu_add_rms_norm(x1, x2, gamma, epsilon=1e-6) -> (y, rstd, x) */
static Obj *lo_add_rms_norm(Interp *I, Call *c)
{
    int32_t in[3] = {X0(I, c), -1, -1};
    if (in[0] < 0 || (in[1] = npu_tensor_arg(I, c, 1, "x2")) < 0 ||
        (in[2] = npu_tensor_arg(I, c, 2, "gamma")) < 0)
        return unk(I);
    Obj *eps = ARG(c, 3, "epsilon");
    double e;
    if (!known(I, eps, c->node, "epsilon"))
        return unk(I);
    if (eps && !is_none(eps) && !obj_num_value(eps, &e))
        return interp_break(I, c->node, RULE_TNG203, "npu_add_rms_norm: epsilon must be a number");
    return npu_outs(I, emit(I, OP_ADD_RMS_NORM, in, 3, NULL, 0, float_arg(eps, 1e-6), 0,
                            DT_UNKNOWN, c->node), 3);
}

/* A rotary mode argument: "half" (0, also when absent) or "interleave" (1);
 * 0 after TNG203 naming `name` for anything else. */
static int rotary_mode_arg(Interp *I, const Call *c, Obj *o, const char *name, int64_t *mode)
{
    *mode = 0;
    if (!o || is_none(o))
        return 1;
    if (!known(I, o, c->node, name))
        return 0;
    if (o->kind == O_STR && streq(o->s, "half"))
        return 1;
    if (o->kind == O_STR && streq(o->s, "interleave")) {
        *mode = 1;
        return 1;
    }
    interp_break(I, c->node, RULE_TNG203, "%s: %s must be 'half' or 'interleave'", c->full, name);
    return 0;
}

/* torch_npu.npu_rotary_mul(input, r1, r2, rotary_mode='half'):
 * input * r1 + rotate(input) * r2 */
static Obj *lo_rotary_mul(Interp *I, Call *c)
{
    int32_t in[3] = {X0(I, c), -1, -1};
    int64_t mode;
    if (in[0] < 0 || (in[1] = npu_tensor_arg(I, c, 1, "r1")) < 0 ||
        (in[2] = npu_tensor_arg(I, c, 2, "r2")) < 0 ||
        !rotary_mode_arg(I, c, ARG(c, 3, "rotary_mode"), "rotary_mode", &mode))
        return unk(I);
    return emit1(I, OP_ROTARY_MUL, in, 3, &mode, 1, 0, 0, DT_UNKNOWN, c->node);
}

/* torch_npu.npu_interleave_rope(x, cos, sin): x's last dim de-interleaved
 * (even elements, then odd ones), then rotated as rotary_mul's half mode */
static Obj *lo_interleave_rope(Interp *I, Call *c)
{
    int32_t in[3] = {X0(I, c), -1, -1};
    int64_t mode = 3;
    if (in[0] < 0 || (in[1] = npu_tensor_arg(I, c, 1, "cos")) < 0 || (in[2] = npu_tensor_arg(I, c, 2, "sin")) < 0)
        return unk(I);
    return emit1(I, OP_ROTARY_MUL, in, 3, &mode, 1, 0, 0, DT_UNKNOWN, c->node);
}

/* torch_npu.npu_apply_rotary_pos_emb(query, key, cos, sin, layout='BSH',
 * rotary_mode='half') -> (query, key): both rotated in place (as
 * rotary_mul with r1 = cos, r2 = sin; an input's storage is written like
 * copy_), and returned. layout only says how cos and sin line up with the
 * heads (they broadcast the same in every layout): BSH/BSND (1), SBH
 * (2), BNSD (3), TND (4). */
static Obj *lo_apply_rotary_pos_emb(Interp *I, Call *c)
{
    Obj *q = ARG0(c), *k = ARG(c, 1, "key");
    if (!ARG0(c))
        q = ARG(c, 0, "query");
    int32_t qv = is_tensor(q) ? tv(I, q, c->node) : -1, kv = -1, cs = -1, sn = -1;
    if (qv < 0) {
        if (!obj_has_unknown(q))
            interp_break(I, c->node, RULE_TNG203, "%s expects a tensor query", c->full);
        return unk(I);
    }
    if ((kv = npu_tensor_arg(I, c, 1, "key")) < 0 || (cs = npu_tensor_arg(I, c, 2, "cos")) < 0 ||
        (sn = npu_tensor_arg(I, c, 3, "sin")) < 0)
        return unk(I);
    Obj *lay = ARG(c, 4, "layout");
    if (!known(I, lay, c->node, "layout"))
        return unk(I);
    int64_t li;
    static const char *const layouts[] = {"BSH", "BSND", "SBH", "BNSD", "TND"};
    int lay_ok = !lay || is_none(lay) || (obj_int_value(lay, &li) && li >= 1 && li <= 4);
    for (size_t i = 0; !lay_ok && lay->kind == O_STR && i < NELEM(layouts); i++)
        lay_ok = streq(lay->s, layouts[i]);
    if (!lay_ok)
        return interp_break(I, c->node, RULE_TNG203,
                            "%s: layout must be 'BSH', 'BSND', 'SBH', 'BNSD', 'TND' or 1 to 4", c->full);
    int64_t mode;
    if (!rotary_mode_arg(I, c, ARG(c, 5, "rotary_mode"), "rotary_mode", &mode))
        return unk(I);
    int32_t inq[3] = {qv, cs, sn}, ink[3] = {kv, cs, sn};
    Obj *rq = emit1(I, OP_ROTARY_MUL, inq, 3, &mode, 1, 0, 0, DT_UNKNOWN, c->node);
    Obj *rk = emit1(I, OP_ROTARY_MUL, ink, 3, &mode, 1, 0, 0, DT_UNKNOWN, c->node);
    if (!is_tensor(rq) || !is_tensor(rk))
        return unk(I);
    Obj *items[2] = {torchlib_augassign(I, q, rq, c->node), NULL};
    if (!is_tensor(items[0]))
        return unk(I);
    items[1] = torchlib_augassign(I, k, rk, c->node);
    if (!is_tensor(items[1]))
        return unk(I);
    return obj_tuple(I, items, 2);
}

/* torch_npu.npu_prefetch(input, dependency, max_size, offset=0): a hint
 * that the NPU may start loading input's bytes into its L2 cache; it
 * computes nothing, so it adds no op (the CPU has nothing to prefetch, and
 * the ACL bundles leave the caching to CANN). The arguments are checked as
 * torch_npu documents them. Returns None. */
static Obj *lo_prefetch(Interp *I, Call *c)
{
    if (X0(I, c) < 0)
        return unk(I);
    Obj *dep = ARG(c, 1, "dependency");
    if (dep && !is_none(dep) && !is_tensor(dep)) {
        if (!obj_has_unknown(dep))
            interp_break(I, c->node, RULE_TNG203, "%s: dependency must be a tensor or None", c->full);
        return unk(I);
    }
    int64_t max_size, off = 0;
    Obj *ms = ARG(c, 2, "max_size"), *of = ARG(c, 3, "offset");
    if (!ms)
        return interp_break(I, c->node, RULE_TNG203, "%s without max_size", c->full);
    if (!const_int(I, ms, c->node, "max_size", &max_size) ||
        (of && !const_int(I, of, c->node, "offset", &off)))
        return unk(I);
    if (max_size <= 0)
        return interp_break(I, c->node, RULE_TNG203, "%s: max_size must be positive, got %lld",
                            c->full, (long long)max_size);
    if (off < 0)
        return interp_break(I, c->node, RULE_TNG203, "%s: offset must not be negative, got %lld",
                            c->full, (long long)off);
    return obj_none(I);
}

/* torch_npu.npu_dynamic_quant(x, *, smooth_scales=None, group_index=None,
 * dst_type=None) -> (y int8, scale float32): per-row symmetric int8
 * quantisation. group_index and int4 output (dst_type=torch.quint4x2) are
 * not compiled. */
static Obj *lo_dynamic_quant(Interp *I, Call *c)
{
    int32_t in[2] = {X0(I, c), -1};
    if (in[0] < 0 || (in[1] = opt_tensor(I, ARG(c, 1, "smooth_scales"), c->node, "smooth_scales")) < -1)
        return unk(I);
    Obj *gi = args_kw(c->a, "group_index"), *dt = args_kw(c->a, "dst_type");
    if (gi && !is_none(gi))
        return interp_break(I, c->node, RULE_TNG203, "%s: group_index (MoE smooth-scale groups) is not "
                            "supported", c->full);
    if (!known(I, dt, c->node, "dst_type"))
        return unk(I);
    if (dt && !is_none(dt) && dtype_of_obj(dt) != DT_I8)
        return interp_break(I, c->node, RULE_TNG203, "%s: dst_type must be torch.int8 (int4 output "
                            "is not supported)", c->full);
    return npu_outs(I, emit(I, OP_DYNAMIC_QUANT, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, c->node), 2);
}

/* torch_npu.npu_moe_gating_top_k_softmax(x, finished=None, k=1) ->
 * (y, expert_idx, row_idx) */
static Obj *lo_moe_gating_top_k_softmax(Interp *I, Call *c)
{
    int32_t in[2] = {X0(I, c), -1};
    if (in[0] < 0 || (in[1] = opt_tensor(I, ARG(c, 1, "finished"), c->node, "finished")) < -1)
        return unk(I);
    int64_t k = 1;
    Obj *ko = ARG(c, 2, "k");
    if (ko && !const_int(I, ko, c->node, "k", &k))
        return unk(I);
    if (k < 1 || k > 1024)
        return interp_break(I, c->node, RULE_TNG203, "%s: k must be in [1, 1024], got %lld", c->full,
                            (long long)k);
    return npu_outs(I, emit(I, OP_MOE_GATING_TOP_K_SOFTMAX, in, 2, &k, 1, 0, 0, DT_UNKNOWN, c->node), 3);
}

/* The three attention entry points of torch_npu, one op (FUSED_ATTENTION):
 * the keywords each takes, and which of them this lowering reads. */
enum { ATTN_FIA, ATTN_IFA, ATTN_PFA };

/* A lengths argument (per batch) of an attention: absent/None (1, input
 * -1, attrs -1 and 0); a list or tuple of ints that are all equal (attrs:
 * the value and the count; TNG203 for distinct values, which the op's
 * attributes cannot hold: pass a tensor then); an int tensor (read at run
 * time: its value id in *in). 0 after a diagnostic. */
static int attn_lengths(Interp *I, const Call *c, Obj *o, const char *name, int32_t *in, int64_t *attr)
{
    *in = -1;
    attr[0] = -1;
    attr[1] = 0;
    if (!o || is_none(o))
        return 1;
    if (!known(I, o, c->node, name))
        return 0;
    if (is_tensor(o))
        return (*in = tv(I, o, c->node)) >= 0;
    if (!is_seq(o) || o->n == 0)
        return interp_break(I, c->node, RULE_TNG203, "%s: %s must be a list of ints or a tensor",
                            c->full, name), 0;
    for (size_t i = 0; i < o->n; i++) {
        int64_t v;
        if (!obj_int_value(o->items[i], &v) || v < 0)
            return interp_break(I, c->node, RULE_TNG203, "%s: %s must hold ints >= 0", c->full, name), 0;
        if (i && v != attr[0])
            return interp_break(I, c->node, RULE_TNG203, "%s: %s with different lengths per batch is "
                                "supported as a tensor, not as a list", c->full, name), 0;
        attr[0] = v;
    }
    attr[1] = (int64_t)o->n;
    return 1;
}

/* An int keyword argument of an attention (def when absent). */
static int attn_int(Interp *I, const Call *c, const char *name, int64_t def, int64_t *v)
{
    Obj *o = args_kw(c->a, name);
    *v = def;
    return !o || is_none(o) || const_int(I, o, c->node, name, v);
}

/* key/value: a tensor, or a list of one tensor (torch_npu's TensorList). */
static int32_t attn_kv(Interp *I, const Call *c, size_t pos, const char *name)
{
    Obj *o = ARG(c, pos, name);
    if (o && is_seq(o) && o->n == 1)
        o = o->items[0];
    else if (o && is_seq(o))
        return interp_break(I, c->node, RULE_TNG203, "%s: %s as a list of %zu tensors (one is "
                            "supported)", c->full, name, o->n), -1;
    int32_t v = is_tensor(o) ? tv(I, o, c->node) : -1;
    if (v < 0 && !obj_has_unknown(o))
        interp_break(I, c->node, RULE_TNG203, "%s expects a tensor %s", c->full, name);
    return v;
}

/* torch_npu.npu_moe_gating_top_k(x, k, *, bias=None, k_group=1,
 * group_count=1, group_select_mode=0, renorm=0, norm_type=1,
 * out_flag=False, routed_scaling_factor=1.0, eps=1e-20) ->
 * (y, expert_idx, out). renorm=1 (top-k, then normalise) is not compiled:
 * the CANN releases that define the op document only renorm=0; any other
 * value, or an unknown keyword, is TNG203 naming it. */
static Obj *lo_moe_gating_top_k(Interp *I, Call *c)
{
    static const char *const ints[] = {"k", "k_group", "group_count", "group_select_mode", "norm_type",
                                       "out_flag", "renorm"};
    static const int64_t defs[] = {-1, 1, 1, 0, 1, 0, 0};
    static const char *const floats[] = {"routed_scaling_factor", "eps"};
    for (size_t i = 0; i < c->a->nkw; i++) {
        const char *n = c->a->kwnames[i];
        int ok = streq(n, "x") || streq(n, "bias") || streq(n, "routed_scaling_factor") || streq(n, "eps");
        for (size_t j = 0; j < NELEM(ints); j++)
            ok |= streq(n, ints[j]);
        if (!ok)
            return interp_break(I, c->node, RULE_TNG203, "%s: the argument %s is not supported", c->full, n);
    }
    if (c->a->npos > 2)
        return interp_break(I, c->node, RULE_TNG203, "%s: arguments after k must be keywords", c->full);
    int32_t in[2] = {X0(I, c), -1};
    if (in[0] < 0 || (in[1] = opt_tensor(I, args_kw(c->a, "bias"), c->node, "bias")) < -1)
        return unk(I);
    int64_t attr[7];
    for (size_t j = 0; j < NELEM(ints); j++) {
        Obj *o = j == 0 ? ARG(c, 1, "k") : args_kw(c->a, ints[j]);
        attr[j] = defs[j];
        if (j == 0 && !o)
            return interp_break(I, c->node, RULE_TNG203, "%s: k is required", c->full);
        if (o && !is_none(o) && !const_int(I, o, c->node, ints[j], &attr[j]))
            return unk(I);
    }
    if (attr[6] != 0)
        return interp_break(I, c->node, RULE_TNG203, "%s: renorm = %lld is not supported (only 0: "
                            "normalise, then top-k)", c->full, (long long)attr[6]);
    if (attr[4] != 0 && attr[4] != 1)
        return interp_break(I, c->node, RULE_TNG203, "%s: norm_type = %lld is not supported (0 softmax, "
                            "1 sigmoid)", c->full, (long long)attr[4]);
    if (attr[3] != 0 && attr[3] != 1)
        return interp_break(I, c->node, RULE_TNG203, "%s: group_select_mode = %lld is not supported (0 "
                            "max, 1 top-2 sum)", c->full, (long long)attr[3]);
    attr[5] = attr[5] != 0;
    double f[2] = {1.0, 1e-20};
    for (int j = 0; j < 2; j++) {
        Obj *o = args_kw(c->a, floats[j]);
        if (!known(I, o, c->node, floats[j]))
            return unk(I);
        if (o && !is_none(o) && !obj_num_value(o, &f[j]))
            return interp_break(I, c->node, RULE_TNG203, "%s: %s must be a number", c->full, floats[j]);
    }
    return npu_outs(I, emit(I, OP_MOE_GATING_TOP_K, in, 2, attr, 6, f[0], f[1], DT_UNKNOWN, c->node), 3);
}

/* The cumulative lengths of a TND attention (a list of ints, each >= the
 * one before) into end[0..*nb); 0 after a diagnostic. */
static int attn_tnd_ends(Interp *I, const Call *c, Obj *o, const char *name, int64_t *end, int *nb)
{
    if (!o || is_none(o) || is_tensor(o) || !is_seq(o) || o->n == 0 || o->n > 256)
        return interp_break(I, c->node, RULE_TNG203, "%s: input_layout 'TND' needs %s as a list of 1 to 256 "
                            "cumulative lengths", c->full, name), 0;
    if (!known(I, o, c->node, name))
        return 0;
    for (size_t i = 0; i < o->n; i++)
        if (!obj_int_value(o->items[i], &end[i]) || end[i] < (i ? end[i - 1] : 0))
            return interp_break(I, c->node, RULE_TNG203, "%s: %s must hold cumulative lengths (ints, each "
                                "at least the one before, from 0)", c->full, name), 0;
    *nb = (int)o->n;
    return 1;
}

/* Rows [from, to) of a [T, N, D] operand as [1, to - from, N, D]. */
static int32_t attn_tnd_rows(Interp *I, int32_t x, int64_t from, int64_t to, int32_t node)
{
    int32_t r = tv(I, slice_of(I, x, 0, from, to, 1, node), node);
    if (r < 0)
        return -1;
    DimId d[4] = {graph_dim_const(G(I), 1), graph_dim_const(G(I), to - from), val_at(I, x)->dims[1],
                  val_at(I, x)->dims[2]};
    return tv(I, reshape_to(I, r, d, 4, node), node);
}

/* npu_fused_infer_attention_score with input_layout "TND": query [T, N, D],
 * key/value [Tkv, Nkv, D], batch b the rows from the cumulative length
 * before it to actual_seq_lengths[b] (actual_seq_lengths_kv[b]): one BSND
 * attention per batch with a query (batches without one are skipped),
 * their outputs cat along T, softmax_lse [T, N, 1] likewise. The atten_mask
 * of sparse_mode 0 or 1 and block_table are TNG203. */
static Obj *attn_tnd(Interp *I, Call *c, int32_t *in, int64_t *attr, double scale, Obj *lq, Obj *lkv)
{
    int64_t eq[256], ekv[256], tq, tkv, tv2;
    int nq, nkv;
    if (!attn_tnd_ends(I, c, lq, "actual_seq_lengths", eq, &nq) ||
        !attn_tnd_ends(I, c, lkv, "actual_seq_lengths_kv", ekv, &nkv))
        return unk(I);
    if (nq != nkv)
        return interp_break(I, c->node, RULE_TNG203, "%s: actual_seq_lengths and actual_seq_lengths_kv list "
                            "%d and %d batches", c->full, nq, nkv);
    if (in[4] >= 0 || (in[3] >= 0 && attr[3] <= 1))
        return interp_break(I, c->node, RULE_TNG203, "%s: input_layout 'TND' with %s is not supported",
                            c->full, in[4] >= 0 ? "block_table" : "an atten_mask of sparse_mode 0 or 1");
    for (int j = 0; j < 3; j++)
        if (rank_of(I, in[j]) != 3)
            return interp_break(I, c->node, RULE_TNG203, "%s: input_layout 'TND' takes 3-d query, key and "
                                "value", c->full);
    if (!graph_dim_const_value(G(I), val_at(I, in[0])->dims[0], &tq) ||
        !graph_dim_const_value(G(I), val_at(I, in[1])->dims[0], &tkv) ||
        !graph_dim_const_value(G(I), val_at(I, in[2])->dims[0], &tv2) ||
        tq != eq[nq - 1] || tkv != ekv[nq - 1] || tv2 != tkv)
        return interp_break(I, c->node, RULE_TNG203, "%s: input_layout 'TND' needs constant T of query (the "
                            "last actual_seq_lengths) and of key/value (the last actual_seq_lengths_kv)",
                            c->full);
    int32_t outs[256], lses[256], first_lse = -1;
    int k = 0;
    int64_t battr[12];
    memcpy(battr, attr, sizeof battr);
    battr[0] = 1;
    battr[8] = battr[10] = -1;
    battr[9] = battr[11] = 0;
    for (int b = 0; b < nq; b++) {
        int64_t q0 = b ? eq[b - 1] : 0, k0 = b ? ekv[b - 1] : 0;
        if (eq[b] == q0)
            continue;
        if (ekv[b] == k0)
            return interp_break(I, c->node, RULE_TNG203, "%s: batch %d has queries but no keys", c->full, b);
        int32_t bin[7] = {attn_tnd_rows(I, in[0], q0, eq[b], c->node), attn_tnd_rows(I, in[1], k0, ekv[b], c->node),
                          attn_tnd_rows(I, in[2], k0, ekv[b], c->node), in[3], -1, -1, -1};
        if (bin[0] < 0 || bin[1] < 0 || bin[2] < 0)
            return unk(I);
        int32_t op = emit(I, OP_FUSED_ATTENTION, bin, 7, battr, 12, scale, 0, DT_UNKNOWN, c->node);
        if (op < 0)
            return obj_unknown_reported(I);
        const Op *o = &G(I)->ops.v[op];
        int32_t y = o->out, l = o->out + 1;
        DimId n = val_at(I, in[0])->dims[1], len = graph_dim_const(G(I), eq[b] - q0);
        DimId od[3] = {len, n, val_at(I, in[0])->dims[2]};
        if ((outs[k] = tv(I, reshape_to(I, y, od, 3, c->node), c->node)) < 0)
            return unk(I);
        if (first_lse < 0)
            first_lse = l;
        if (attr[6]) {   /* [1, N, len, 1] -> [len, N, 1] */
            int64_t perm[4] = {0, 2, 1, 3};
            DimId ld[3] = {len, n, graph_dim_const(G(I), 1)};
            int32_t p = tv(I, permute_of(I, NULL, l, perm, 4, c->node), c->node);
            if (p < 0 || (lses[k] = tv(I, reshape_to(I, p, ld, 3, c->node), c->node)) < 0)
                return unk(I);
        }
        k++;
    }
    if (k == 0)
        return interp_break(I, c->node, RULE_TNG203, "%s: every batch of the TND attention is empty", c->full);
    int64_t dim0 = 0;
    Obj *items[2];
    items[0] = k == 1 ? obj_tensor(I, outs[0]) : emit1(I, OP_CAT, outs, (uint32_t)k, &dim0, 1, 0, 0, DT_UNKNOWN, c->node);
    items[1] = !attr[6] ? obj_tensor(I, first_lse)
               : k == 1 ? obj_tensor(I, lses[0]) : emit1(I, OP_CAT, lses, (uint32_t)k, &dim0, 1, 0, 0, DT_UNKNOWN, c->node);
    return obj_tuple(I, items, 2);
}

/* torch_npu.npu_fused_infer_attention_score(query, key, value, *,
 *     atten_mask=None, actual_seq_lengths=None, actual_seq_lengths_kv=None,
 *     block_table=None, num_heads=1, scale=1.0, pre_tokens=2147483647,
 *     next_tokens=2147483647, input_layout="BSH", num_key_value_heads=0,
 *     sparse_mode=0, inner_precise=0, block_size=0, antiquant_mode=0,
 *     softmax_lse_flag=False, ...) -> (attention_out, softmax_lse)
 * torch_npu.npu_incre_flash_attention(query, key, value, *, atten_mask=None,
 *     actual_seq_lengths=None (key/value lengths), block_table=None,
 *     num_heads=1, scale_value=1.0, input_layout="BSH",
 *     num_key_value_heads=0, block_size=0, inner_precise=1, ...)
 * torch_npu.npu_prompt_flash_attention(query, key, value, *,
 *     atten_mask=None, actual_seq_lengths=None, actual_seq_lengths_kv=None,
 *     num_heads=1, scale_value=1.0, pre_tokens=2147473647, next_tokens=0,
 *     input_layout="BSH", num_key_value_heads=0, sparse_mode=0, ...)
 * Layouts BSH, BSND and BNSD (and TND for npu_fused_infer_attention_score:
 * attn_tnd); sparse modes 0 (atten_mask as given, True masked out, and the
 * pre/next-token band when a mask is given), 1 (the mask alone), 2 (causal
 * from the top left), 3 (causal from the bottom right) and 4 (the band
 * from the bottom right). Any other argument (quantisation, pse, padding,
 * shared prefix, rope) that is not None is TNG203 naming it. */
static Obj *lo_attention(Interp *I, Call *c)
{
    static const char *const known_kw[] = {
        "query", "key", "value", "atten_mask", "actual_seq_lengths", "actual_seq_lengths_kv",
        "block_table", "num_heads", "scale", "scale_value", "pre_tokens", "next_tokens",
        "input_layout", "num_key_value_heads", "sparse_mode", "inner_precise", "block_size",
        "antiquant_mode", "softmax_lse_flag"};
    int which = c->arg;
    for (size_t i = 0; i < c->a->nkw; i++) {
        size_t j = 0;
        while (j < NELEM(known_kw) && !streq(c->a->kwnames[i], known_kw[j]))
            j++;
        int allowed = j < NELEM(known_kw);
        if (allowed && which != ATTN_FIA && (streq(known_kw[j], "scale") || streq(known_kw[j], "softmax_lse_flag") ||
                                             streq(known_kw[j], "antiquant_mode")))
            allowed = 0;
        if (allowed && which == ATTN_FIA && streq(known_kw[j], "scale_value"))
            allowed = 0;
        if (!allowed && !is_none(c->a->kw[i]))
            return interp_break(I, c->node, RULE_TNG203, "%s: the argument %s is not supported", c->full,
                                c->a->kwnames[i]);
    }
    if (c->a->npos > 3)
        return interp_break(I, c->node, RULE_TNG203, "%s: arguments after value must be keywords", c->full);
    int32_t in[7] = {-1, -1, -1, -1, -1, -1, -1};
    int64_t attr[12] = {0};
    Obj *q = ARG(c, 0, "query");
    in[0] = is_tensor(q) ? tv(I, q, c->node) : -1;
    if (in[0] < 0) {
        if (!obj_has_unknown(q))
            interp_break(I, c->node, RULE_TNG203, "%s expects a tensor query", c->full);
        return unk(I);
    }
    if ((in[1] = attn_kv(I, c, 1, "key")) < 0 || (in[2] = attn_kv(I, c, 2, "value")) < 0 ||
        (in[3] = opt_tensor(I, args_kw(c->a, "atten_mask"), c->node, "atten_mask")) < -1 ||
        (in[4] = opt_tensor(I, args_kw(c->a, "block_table"), c->node, "block_table")) < -1)
        return unk(I);
    Obj *lay = args_kw(c->a, "input_layout");
    if (!known(I, lay, c->node, "input_layout"))
        return unk(I);
    if (lay && !is_none(lay)) {
        if (lay->kind == O_STR && streq(lay->s, "BSH"))
            attr[0] = 0;
        else if (lay->kind == O_STR && streq(lay->s, "BSND"))
            attr[0] = 1;
        else if (lay->kind == O_STR && streq(lay->s, "BNSD"))
            attr[0] = 2;
        else if (lay->kind == O_STR && streq(lay->s, "TND") && which == ATTN_FIA)
            attr[0] = 3;   /* attn_tnd: one BSND attention per batch */
        else
            return interp_break(I, c->node, RULE_TNG203, "%s: input_layout must be 'BSH', 'BSND', "
                                "'BNSD'%s", c->full, which == ATTN_FIA ? " or 'TND'" : " or 'TND' (with "
                                "npu_fused_infer_attention_score)");
    }
    int64_t inner, anti;
    if (!attn_int(I, c, "num_heads", 1, &attr[1]) || !attn_int(I, c, "num_key_value_heads", 0, &attr[2]) ||
        !attn_int(I, c, "sparse_mode", 0, &attr[3]) ||
        !attn_int(I, c, "pre_tokens", which == ATTN_PFA ? 2147473647 : 2147483647, &attr[4]) ||
        !attn_int(I, c, "next_tokens", which == ATTN_PFA ? 0 : 2147483647, &attr[5]) ||
        !attn_int(I, c, "block_size", 0, &attr[7]) ||
        !attn_int(I, c, "inner_precise", which == ATTN_IFA ? 1 : 0, &inner) ||
        !attn_int(I, c, "antiquant_mode", 0, &anti))
        return unk(I);
    if (attr[1] < 1)
        return interp_break(I, c->node, RULE_TNG203, "%s: num_heads must be positive", c->full);
    if (attr[2] == 0)
        attr[2] = attr[1];
    if (attr[2] < 1 || attr[1] % attr[2])
        return interp_break(I, c->node, RULE_TNG203, "%s: num_key_value_heads must divide num_heads",
                            c->full);
    if (attr[3] < 0 || attr[3] > 4)
        return interp_break(I, c->node, RULE_TNG203, "%s: sparse_mode %lld is not supported (0 to 4 "
                            "are)", c->full, (long long)attr[3]);
    if (inner < 0 || inner > 3)
        return interp_break(I, c->node, RULE_TNG203, "%s: inner_precise must be 0 to 3", c->full);
    if (anti != 0)
        return interp_break(I, c->node, RULE_TNG203, "%s: antiquant_mode is not supported", c->full);
    if (in[4] >= 0 && attr[7] < 1)
        return interp_break(I, c->node, RULE_TNG203, "%s: block_table needs block_size > 0", c->full);
    Obj *flag = args_kw(c->a, "softmax_lse_flag");
    if (!known(I, flag, c->node, "softmax_lse_flag"))
        return unk(I);
    attr[6] = which == ATTN_FIA && obj_flag(flag, 0);
    Obj *sc = args_kw(c->a, which == ATTN_FIA ? "scale" : "scale_value");
    double scale = 1.0;
    if (!known(I, sc, c->node, "scale"))
        return unk(I);
    if (sc && !is_none(sc) && !obj_num_value(sc, &scale))
        return interp_break(I, c->node, RULE_TNG203, "%s: the scale must be a number", c->full);
    Obj *lq = args_kw(c->a, "actual_seq_lengths"), *lkv = args_kw(c->a, "actual_seq_lengths_kv");
    if (which == ATTN_IFA) /* the incremental attention's lengths are key/value's */
        lkv = lq, lq = NULL;
    if (attr[0] == 3)
        return attn_tnd(I, c, in, attr, scale, lq, lkv);
    if (!attn_lengths(I, c, lq, which == ATTN_IFA ? "actual_seq_lengths_q" : "actual_seq_lengths", &in[5], &attr[8]) ||
        !attn_lengths(I, c, lkv, which == ATTN_IFA ? "actual_seq_lengths" : "actual_seq_lengths_kv", &in[6], &attr[10]))
        return unk(I);
    int32_t op = emit(I, OP_FUSED_ATTENTION, in, 7, attr, 12, scale, 0, DT_UNKNOWN, c->node);
    if (which == ATTN_FIA)
        return npu_outs(I, op, 2);
    return op_out(I, op, 0);
}

/* torch_npu.scatter_update_(data, indices, updates, axis) |
 * torch_npu.npu_scatter_nd_update_(var, indices, updates): in place on an
 * input or buffer (its storage is written, as copy_ writes it);
 * torch_npu.scatter_update / npu_scatter_nd_update: the same on a copy.
 * 2-d indices of scatter_update (which the documentation does not define)
 * are TNG203. */
static Obj *lo_scatter_update(Interp *I, Call *c)
{
    int nd = c->arg & 1, inplace = (c->arg & 2) != 0;
    Obj *dst = ARG0(c);
    if (!dst)
        dst = ARG(c, 0, nd ? "var" : "data");
    int32_t in[3] = {is_tensor(dst) ? tv(I, dst, c->node) : -1, -1, -1};
    if (in[0] < 0) {
        if (!obj_has_unknown(dst))
            interp_break(I, c->node, RULE_TNG203, "%s expects a tensor %s", c->full, nd ? "var" : "data");
        return unk(I);
    }
    if ((in[1] = npu_tensor_arg(I, c, 1, "indices")) < 0 || (in[2] = npu_tensor_arg(I, c, 2, "updates")) < 0)
        return unk(I);
    int64_t axis = 0;
    if (!nd) {
        Obj *ax = ARG(c, 3, "axis");
        if (!ax)
            return interp_break(I, c->node, RULE_TNG203, "%s without an axis", c->full);
        if (!dim_arg(I, ax, rank_of(I, in[0]), c->node, "axis", &axis))
            return unk(I);
        if (rank_of(I, in[1]) != 1)
            return interp_break(I, c->node, RULE_TNG203, "%s: indices must be 1-d (one position per row "
                                "of data's dim 0)", c->full);
    }
    if (inplace && !inplace_target_ok(I, in[0], c->node, c->full))
        return unk(I);
    if (!inplace) {
        Obj *copy = emit_x(I, OP_CLONE, in[0], NULL, 0, 0, DT_UNKNOWN, c->node);
        if (!is_tensor(copy) || (in[0] = tv(I, copy, c->node)) < 0)
            return unk(I);
        dst = copy;
    }
    int32_t op = emit(I, nd ? OP_SCATTER_ND_UPDATE : OP_SCATTER_UPDATE, in, 3, &axis, nd ? 0 : 1, 0, 0,
                      DT_UNKNOWN, c->node);
    if (op < 0)
        return obj_unknown_reported(I);   /* interp_op reported */
    dst->t->value = G(I)->ops.v[op].out;
    return dst;
}

/* torch_npu.npu_grouped_matmul(x, weight, *, bias=None, group_list=None,
 * split_item=0, group_type=None, group_list_type=0, output_dtype=None,
 * ...) -> [y]: group i computes x_i @ weight_i (+ bias_i), as addmm / mm
 * (float accumulation, rounded once). x is a list of G 2-d tensors, or of
 * one whose rows group_list splits (a list of ints: cumulative ends with
 * group_list_type 0, counts with 1; the split is known when compiling).
 * split_item 0/1: G results; 2/3: one, the results concatenated by rows.
 * Quantisation arguments, a tensor group_list, weights other than G 2-d
 * tensors and output_dtype other than x's are TNG203 naming them. */
static Obj *lo_grouped_matmul(Interp *I, Call *c)
{
    static const char *const ok_kw[] = {"x", "weight", "bias", "group_list", "split_item", "group_type",
                                        "group_list_type", "output_dtype", "act_type"};
    enum { GMAX = 128 };
    int32_t xs[GMAX], ws[GMAX], bs[GMAX];
    for (size_t i = 0; i < c->a->nkw; i++) {
        size_t j = 0;
        while (j < NELEM(ok_kw) && !streq(c->a->kwnames[i], ok_kw[j]))
            j++;
        if (j == NELEM(ok_kw) && !is_none(c->a->kw[i]) &&
            !(is_seq(c->a->kw[i]) && c->a->kw[i]->n == 0))
            return interp_break(I, c->node, RULE_TNG203, "%s: the argument %s is not supported", c->full,
                                c->a->kwnames[i]);
    }
    int nx = tensor_list(I, ARG(c, 0, "x"), c->node, c->full, xs, GMAX);
    int nw = nx < 0 ? -1 : tensor_list(I, ARG(c, 1, "weight"), c->node, c->full, ws, GMAX);
    if (nx < 0 || nw < 0)
        return unk(I);
    Obj *bo = args_kw(c->a, "bias");
    int nb = 0;
    if (bo && !is_none(bo) && !(is_seq(bo) && bo->n == 0) &&
        (nb = tensor_list(I, bo, c->node, c->full, bs, GMAX)) < 0)
        return unk(I);
    if (nw < 1 || (nx != 1 && nx != nw) || (nb && nb != nw))
        return interp_break(I, c->node, RULE_TNG203, "%s: %d x, %d weight and %d bias tensors do not group "
                            "(x: one or one per weight; bias: none or one per weight)", c->full, nx, nw, nb);
    int64_t split, gtype, ltype, act;
    if (!attn_int(I, c, "split_item", 0, &split) || !attn_int(I, c, "group_type", nx == 1 && nw > 1 ? 0 : -1, &gtype) ||
        !attn_int(I, c, "group_list_type", 0, &ltype) || !attn_int(I, c, "act_type", 0, &act))
        return unk(I);
    if (split < 0 || split > 3)
        return interp_break(I, c->node, RULE_TNG203, "%s: split_item must be 0 to 3", c->full);
    if (act != 0)
        return interp_break(I, c->node, RULE_TNG203, "%s: act_type is not supported", c->full);
    if (ltype != 0 && ltype != 1)
        return interp_break(I, c->node, RULE_TNG203, "%s: group_list_type must be 0 or 1", c->full);
    DType odt, xdt = val_at(I, xs[0])->dtype;
    if (!dtype_arg(I, args_kw(c->a, "output_dtype"), c->node, &odt))
        return unk(I);
    if (odt != DT_UNKNOWN && odt != xdt)
        return interp_break(I, c->node, RULE_TNG203, "%s: output_dtype other than x's is not supported", c->full);
    for (int i = 0; i < nw; i++) {
        if (rank_of(I, ws[i]) != 2 || (i < nx && rank_of(I, xs[i]) != 2))
            return interp_break(I, c->node, RULE_TNG203, "%s: x and weight must be 2-d tensors", c->full);
        if (nb && val_at(I, bs[i])->dtype != xdt)
            return interp_break(I, c->node, RULE_TNG203, "%s: a bias of another dtype than x is not supported",
                                c->full);
    }
    int64_t start[GMAX], end[GMAX];
    Obj *gl = args_kw(c->a, "group_list");
    if (nx == 1 && nw > 1) {
        int64_t rows, v, at = 0;
        if (gtype != 0)
            return interp_break(I, c->node, RULE_TNG203, "%s: one x for %d weights needs group_type 0", c->full, nw);
        if (!known(I, gl, c->node, "group_list"))
            return unk(I);
        if (!gl || !is_seq(gl))
            return interp_break(I, c->node, RULE_TNG203, "%s: group_list must be a list of ints (a tensor "
                                "group_list splits at run time, which is not supported)", c->full);
        if ((int)gl->n != nw)
            return interp_break(I, c->node, RULE_TNG203, "%s: group_list has %zu entries for %d weights",
                                c->full, gl->n, nw);
        if (!graph_dim_const_value(G(I), val_at(I, xs[0])->dims[0], &rows))
            return interp_break(I, c->node, RULE_TNG203, "%s: group_list needs x's row count known when "
                                "compiling", c->full);
        for (int i = 0; i < nw; i++) {
            if (!obj_int_value(gl->items[i], &v))
                return interp_break(I, c->node, RULE_TNG203, "%s: group_list must hold ints", c->full);
            start[i] = at;
            end[i] = ltype ? at + v : v;
            if (end[i] < start[i] || end[i] > rows || (ltype && v < 0))
                return interp_break(I, c->node, RULE_TNG203, "%s: group_list entry %d (%lld) does not split "
                                    "the %lld rows of x", c->full, i, (long long)v, (long long)rows);
            at = end[i];
        }
    } else if (gl && !is_none(gl) && !(is_seq(gl) && gl->n == 0)) {
        return interp_break(I, c->node, RULE_TNG203, "%s: group_list with one x per weight", c->full);
    }
    Obj *items[GMAX];
    int32_t ys[GMAX];
    for (int i = 0; i < nw; i++) {
        int32_t xi = nx == 1 ? xs[0] : xs[i];
        if (nx == 1 && nw > 1) {
            Obj *part = slice_of(I, xs[0], 0, start[i], end[i], 1, c->node);
            if (!is_tensor(part) || (xi = tv(I, part, c->node)) < 0)
                return unk(I);
        }
        int32_t in3[3] = {nb ? bs[i] : -1, xi, ws[i]};
        Obj *y = nb ? emit1(I, OP_ADDMM, in3, 3, NULL, 0, 1.0, 1.0, DT_UNKNOWN, c->node)
                    : emit1(I, OP_MM, in3 + 1, 2, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
        if (!is_tensor(y) || (ys[i] = tv(I, y, c->node)) < 0)
            return unk(I);
        items[i] = y;
    }
    if (split >= 2 && nw > 1) {
        int64_t dim0 = 0;
        items[0] = emit1(I, OP_CAT, ys, (uint32_t)nw, &dim0, 1, 0, 0, DT_UNKNOWN, c->node);
        if (!is_tensor(items[0]))
            return unk(I);
        nw = 1;
    }
    return obj_seq_of(I, O_LIST, items, (size_t)nw);
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

/* Calls a library entry: methods get self as argument 0. */
static Obj *lib_call(Interp *I, const struct LibEntry *e, const char *full, Obj *self, CallArgs *a)
{
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
    return e->fn(I, &c);
}

/* ===================================================================== */
/* nn modules                                                            */
/* ===================================================================== */

/* A parameter of constant shape d[0..n): a FULL host tensor marked is_param. */
static Obj *param_new(Interp *I, const int64_t *d, int n, double fill, DType dt, int32_t node)
{
    int64_t dims[GRAPH_MAX_DIMS];
    for (int i = 0; i < n; i++)
        dims[i] = graph_dim_const(G(I), d[i]);
    Obj *t = full_of(I, dims, n, fill, dt, node);
    if (is_tensor(t)) {
        t->t->is_param = 1;
        t->t->requires_grad = 1;
    }
    return t;
}

static Obj *module_new(Interp *I, const char *cls, int32_t node)
{
    Obj *m = obj_new(I, O_INST);
    m->s = cls;
    m->node = node;
    return m;
}

/* A positive constant int argument of a module constructor. */
static int ctor_int(Interp *I, CallArgs *a, size_t pos, const char *name, int64_t *v)
{
    Obj *o = args_get(a, pos, name);
    if (!o) {
        interp_break(I, a->node, RULE_TNG205, "missing argument %s", name);
        return 0;
    }
    if (!const_int(I, o, a->node, name, v))
        return 0;
    if (*v < 0) {
        interp_break(I, a->node, RULE_TNG206, "%s must not be negative", name);
        return 0;
    }
    return 1;
}

/* The module items of ModuleList(iterable) / Sequential(*mods). */
static int module_items(Interp *I, Obj *m, Obj *const *items, size_t n)
{
    m->items = interp_alloc(I, (n + 1) * sizeof *m->items);
    m->cap = n + 1;
    for (size_t i = 0; i < n; i++)
        m->items[m->n++] = items[i];
    return 1;
}

/* One nn module class tngc knows: how it is built (host mode) and how its
 * forward lowers (trace mode). */
typedef struct NnModule NnModule;
struct NnModule {
    const char *cls;       /* after "torch.nn." */
    unsigned flags;
    /* sets m's attributes from the constructor's arguments (NULL: none);
     * 0 when the module is not known (after a diagnostic) */
    int (*init)(Interp *I, Obj *m, CallArgs *a, DType dt);
    /* the forward on input x (value v), or, for NN_ARGS, on the call's
     * arguments (x NULL, v -1); NULL for NN_IDENTITY */
    Obj *(*forward)(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v);
    OpKind op;             /* the op of an activation or softmax, else 0 */
};

enum {
    NN_INPLACE = 1,        /* Module(inplace=False): the result replaces the input */
    NN_IDENTITY = 2,       /* the forward returns its input */
    NN_ARGS = 4,           /* the forward takes the call's arguments (containers) */
};

/* nn.Linear(in_features, out_features, bias=True, dtype=None) */
static int nn_linear_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    int64_t in, out;
    if (!ctor_int(I, a, 0, "in_features", &in) || !ctor_int(I, a, 1, "out_features", &out))
        return 0;
    int64_t wd[2] = {out, in};
    obj_setattr(I, m, "in_features", obj_int(I, in));
    obj_setattr(I, m, "out_features", obj_int(I, out));
    obj_setattr(I, m, "weight", param_new(I, wd, 2, 0, dt, a->node));
    Obj *b = args_get(a, 2, "bias");
    obj_setattr(I, m, "bias", obj_flag(b, 1) ? param_new(I, &out, 1, 0, dt, a->node) : obj_none(I));
    return 1;
}

/* nn.LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, bias=True) */
static int nn_layer_norm_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    Obj *ns = args_get(a, 0, "normalized_shape");
    int64_t d[GRAPH_MAX_DIMS];
    int n = 0;
    Obj *const *items = is_seq(ns) ? ns->items : &ns;
    size_t cnt = is_seq(ns) ? ns->n : 1;
    if (!ns || cnt == 0 || cnt > GRAPH_MAX_DIMS) {
        interp_break(I, a->node, RULE_TNG205, "LayerNorm needs a normalized_shape of 1 to %d dims",
                     GRAPH_MAX_DIMS);
        return 0;
    }
    Obj *dims[GRAPH_MAX_DIMS];
    for (size_t i = 0; i < cnt; i++) {
        if (!const_int(I, items[i], a->node, "normalized_shape", &d[n]) || d[n] < 0)
            return 0;
        dims[n] = obj_int(I, d[n]);
        n++;
    }
    Obj *eps = args_get(a, 1, "eps");
    int affine = obj_flag(args_get(a, 2, "elementwise_affine"), 1);
    int bias = obj_flag(args_get(a, 3, "bias"), 1);
    obj_setattr(I, m, "normalized_shape", obj_tuple(I, dims, (size_t)n));
    obj_setattr(I, m, "eps", obj_float(I, float_arg(eps, 1e-5)));
    obj_setattr(I, m, "elementwise_affine", obj_bool(I, affine));
    obj_setattr(I, m, "weight", affine ? param_new(I, d, n, 1, dt, a->node) : obj_none(I));
    obj_setattr(I, m, "bias", affine && bias ? param_new(I, d, n, 0, dt, a->node) : obj_none(I));
    return 1;
}

/* nn.Embedding(num_embeddings, embedding_dim, padding_idx=None) */
static int nn_embedding_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    int64_t num, dim;
    if (!ctor_int(I, a, 0, "num_embeddings", &num) || !ctor_int(I, a, 1, "embedding_dim", &dim))
        return 0;
    int64_t wd[2] = {num, dim};
    Obj *pi = args_get(a, 2, "padding_idx");
    obj_setattr(I, m, "num_embeddings", obj_int(I, num));
    obj_setattr(I, m, "embedding_dim", obj_int(I, dim));
    obj_setattr(I, m, "padding_idx", pi ? pi : obj_none(I));
    obj_setattr(I, m, "weight", param_new(I, wd, 2, 0, dt, a->node));
    return 1;
}

/* nn.GELU(approximate='none') */
static int nn_gelu_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    (void)dt;
    Obj *ap = args_get(a, 0, "approximate");
    obj_setattr(I, m, "approximate", ap ? ap : obj_str(I, "none"));
    return 1;
}

/* nn.Softplus(beta=1, threshold=20) */
static int nn_softplus_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    (void)dt;
    Obj *b = args_get(a, 0, "beta"), *t = args_get(a, 1, "threshold");
    obj_setattr(I, m, "beta", b ? b : obj_int(I, 1));
    obj_setattr(I, m, "threshold", t ? t : obj_int(I, 20));
    return 1;
}

/* nn.LeakyReLU(negative_slope=0.01, inplace=False) */
static int nn_leaky_relu_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    (void)dt;
    Obj *s = args_get(a, 0, "negative_slope"), *ip = args_get(a, 1, "inplace");
    obj_setattr(I, m, "negative_slope", s ? s : obj_float(I, 0.01));
    if (ip)
        obj_setattr(I, m, "inplace", ip);
    return 1;
}

/* nn.Softmax(dim=None) | nn.LogSoftmax(dim=None) */
static int nn_softmax_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    (void)dt;
    Obj *d = args_get(a, 0, "dim");
    obj_setattr(I, m, "dim", d ? d : obj_none(I));
    return 1;
}

/* nn.Dropout / Dropout1d / Dropout2d / Dropout3d / AlphaDropout /
 * FeatureAlphaDropout (p=0.5, inplace=False): in training mode, as built */
static int nn_dropout_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    (void)dt;
    Obj *p = args_get(a, 0, "p");
    obj_setattr(I, m, "p", p ? p : obj_float(I, 0.5));
    obj_setattr(I, m, "training", obj_bool(I, 1));   /* as PyTorch's; .eval() clears it */
    return 1;
}

/* A dropout module's forward: the identity in eval mode or with p=0; in
 * training mode it is random (TNG203: call .eval()). */
static Obj *nn_dropout(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)v;
    double p = 0.5;
    Obj *po = obj_getattr(inst, "p");
    if (po && !obj_num_value(po, &p))
        return interp_break(I, a->node, RULE_TNG205, "torch.nn.%s's p must be a number known at compile "
                            "time", m->cls);
    if (p != 0 && obj_flag(obj_getattr(inst, "training"), 0))
        return interp_break(I, a->node, RULE_TNG203, "torch.nn.%s(p=%g) in training mode (random): call "
                            ".eval() on the model (only inference is compiled)", m->cls, p);
    return x;
}

/* nn.ModuleList(modules=None) */
static int nn_module_list_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    (void)dt;
    Obj *src = args_get(a, 0, "modules");
    Obj *l = is_none(src) ? obj_seq_of(I, O_LIST, NULL, 0) : obj_iter(I, src, a->node, ITER_EXPAND);
    if (!l)
        return 0;
    return module_items(I, m, l->items, l->n);
}

/* nn.Sequential(*modules) | nn.Sequential(OrderedDict of named modules) */
static int nn_sequential_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    (void)dt;
    if (a->npos == 1 && a->pos[0]->kind == O_DICT) {
        Obj *d = a->pos[0];
        for (size_t i = 0; i + 1 < d->n; i += 2)
            if (d->items[i]->kind == O_STR)
                obj_setattr(I, m, d->items[i]->s, d->items[i + 1]);
        Obj *vals[1024];
        size_t n = 0;
        for (size_t i = 0; i + 1 < d->n && n < NELEM(vals); i += 2)
            vals[n++] = d->items[i + 1];
        return module_items(I, m, vals, n);
    }
    return module_items(I, m, a->pos, a->npos);
}

/* Re-typing of a module's floating parameters and buffers (in place). */
typedef struct Retype {
    DType dt;
    VEC(const void *) seen;
} Retype;

static int retype_seen(Retype *r, const void *p)
{
    for (size_t i = 0; i < r->seen.n; i++)
        if (r->seen.v[i] == p)
            return 1;
    VEC_PUSH(r->seen, p);
    return 0;
}

static void retype_obj(Interp *I, Obj *o, Retype *r, int depth, int32_t node)
{
    if (!o || depth > 32 || r->seen.n > 100000)
        return;
    if (o->kind == O_TENSOR) {
        if (retype_seen(r, o->t) || o->t->g != G(I) || o->t->value < 0 ||
            (size_t)o->t->value >= G(I)->vals.n)
            return;
        const Val *v = val_at(I, o->t->value);
        if (!dtype_is_float(v->dtype) || v->dtype == r->dt)
            return;
        int32_t op = emit(I, OP_CAST, &o->t->value, 1, NULL, 0, 0, 0, r->dt, node);
        if (op >= 0)
            o->t->value = G(I)->ops.v[op].out;
        return;
    }
    if (o->kind == O_INST) {
        if (retype_seen(r, o))
            return;
        for (size_t i = 0; i < o->attrs.n; i++)
            retype_obj(I, o->attrs.vals[i], r, depth + 1, node);
        for (size_t i = 0; i < o->n; i++)
            retype_obj(I, o->items[i], r, depth + 1, node);
    } else if (is_seq(o) || o->kind == O_DICT) {
        if (retype_seen(r, o))
            return;
        for (size_t i = 0; i < o->n; i++)
            retype_obj(I, o->items[i], r, depth + 1, node);
    }
}

/* module.half() | module.float() | module.bfloat16() | module.to(dtype) |
 * module.to(device, dtype) | module.to(tensor) | module.to(dtype=...) */
static Obj *module_retype(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    DType dt = streq(m, "half") ? DT_F16 : streq(m, "float") ? DT_F32 : streq(m, "bfloat16") ? DT_BF16 : DT_UNKNOWN;
    if (streq(m, "to")) {
        for (size_t i = 0; i < a->npos; i++) {
            DType d = dtype_of_obj(a->pos[i]);
            if (d != DT_UNKNOWN)
                dt = d;
            else if (is_tensor(a->pos[i]) && a->pos[i]->t->g == G(I) && a->pos[i]->t->value >= 0 &&
                     (size_t)a->pos[i]->t->value < G(I)->vals.n)
                dt = val_at(I, a->pos[i]->t->value)->dtype;
        }
        DType k = dtype_of_obj(args_kw(a, "dtype"));
        if (k != DT_UNKNOWN)
            dt = k;
        if (dt != DT_UNKNOWN && !dtype_is_float(dt))
            return interp_break(I, a->node, RULE_TNG203, "Module.to() only accepts floating point dtypes");
    }
    if (dt == DT_UNKNOWN)
        return self;
    if (interp_tracing(I))
        return interp_break(I, a->node, RULE_TNG203, "re-typing a module inside the compiled method");
    Retype r;
    memset(&r, 0, sizeof r);
    r.dt = dt;
    retype_obj(I, self, &r, 0, a->node);
    VEC_FREE(r.seen);
    return self;
}

/* Methods of module instances that reach the library: re-typing, forward,
 * and ModuleList's list methods. */
static Obj *module_method(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    if (streq(m, "half") || streq(m, "float") || streq(m, "bfloat16") || streq(m, "to"))
        return module_retype(I, m, self, a);
    if (streq(m, "double"))
        return interp_break(I, a->node, RULE_TNG203, "float64 parameters are not supported");
    if (self->cls)
        return NULL;
    if (streq(m, "forward") || streq(m, "__call__"))
        return torchlib_call_module(I, self, a);
    if (obj_is_module_seq(self) && (streq(m, "append") || streq(m, "extend") || streq(m, "insert"))) {
        Obj *add = NULL;
        int64_t at = (int64_t)self->n;
        if (streq(m, "append")) {
            add = obj_seq_of(I, O_LIST, a->pos, a->npos ? 1 : 0);
        } else if (streq(m, "extend")) {
            add = obj_iter(I, args_get(a, 0, "modules"), a->node, ITER_EXPAND);
        } else {
            Obj *ix = args_get(a, 0, "index");
            Obj *mod = args_get(a, 1, "module");
            if (!obj_int_value(ix, &at) || !mod)
                return unk(I);
            if (at < 0)
                at += (int64_t)self->n;
            at = at < 0 ? 0 : at > (int64_t)self->n ? (int64_t)self->n : at;
            add = obj_seq_of(I, O_LIST, &mod, 1);
        }
        if (!add)
            return unk(I);
        if (self->n + add->n > INTERP_MAX_ITEMS)
            return interp_break(I, a->node, RULE_TNG212, "a ModuleList of more than %d modules", INTERP_MAX_ITEMS);
        Obj **items = interp_alloc(I, (self->n + add->n + 1) * sizeof *items);
        size_t k = 0;
        for (int64_t i = 0; i < at; i++)
            items[k++] = self->items[i];
        for (size_t i = 0; i < add->n; i++)
            items[k++] = add->items[i];
        for (size_t i = (size_t)at; i < self->n; i++)
            items[k++] = self->items[i];
        self->items = items;
        self->n = k;
        self->cap = k + 1;
        return streq(m, "insert") ? obj_none(I) : self;   /* append/extend return the ModuleList */
    }
    if (obj_is_module_dict(self) && (streq(m, "keys") || streq(m, "values") || streq(m, "items"))) {
        Obj *out = obj_seq_of(I, O_LIST, NULL, 0);
        for (size_t i = 0; i < self->attrs.n; i++) {
            Obj *k = obj_str(I, self->attrs.names[i]), *v = self->attrs.vals[i];
            Obj *pair[2] = {k, v};
            obj_push(I, out, m[0] == 'k' ? k : m[0] == 'v' ? v : obj_tuple(I, pair, 2));
        }
        return out;
    }
    if (obj_is_module_dict(self) && streq(m, "update") && !interp_tracing(I)) {
        Obj *d = args_get(a, 0, "modules");
        if (!d || d->kind != O_DICT)
            return unk(I);
        for (size_t i = 0; i + 1 < d->n; i += 2)
            if (d->items[i]->kind == O_STR)
                obj_setattr(I, self, d->items[i]->s, d->items[i + 1]);
        if (streq(self->s, "torch.nn.ParameterDict"))   /* its tensors become parameters */
            for (size_t i = 0; i < self->attrs.n; i++)
                if (is_tensor(self->attrs.vals[i]))
                    self->attrs.vals[i]->t->is_param = 1;
        return obj_none(I);
    }
    return NULL;
}

/* module.eval() / module.train(mode): the modules record it as their
 * training attribute, as PyTorch's do: the library modules whose forward
 * depends on it (BatchNorm, the dropouts: those whose constructor set it)
 * and the script's nn.Module subclasses (whose forward may test
 * self.training). */
static void nn_set_training(Interp *I, Obj *o, int training, int depth)
{
    if (!o || depth > 32)
        return;
    if (o->kind == O_INST) {
        if ((o->s && (streq(o->s, "torch.nn.BatchNorm1d") || streq(o->s, "torch.nn.BatchNorm2d"))) ||
            obj_is_script_module(o) || (o->s && obj_getattr(o, "training")))
            obj_setattr(I, o, "training", obj_bool(I, training));
        for (size_t i = 0; i < o->attrs.n; i++)
            if (o->attrs.vals[i] && (o->attrs.vals[i]->kind == O_INST || is_seq(o->attrs.vals[i])))
                nn_set_training(I, o->attrs.vals[i], training, depth + 1);
    }
    if (o->kind == O_INST || is_seq(o))
        for (size_t i = 0; i < o->n; i++)
            nn_set_training(I, o->items[i], training, depth + 1);
}

/* register_buffer / register_parameter and the module methods that return
 * the module itself in the compilable subset. */
Obj *torchlib_module_method(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    if (strcmp(m, "register_buffer") == 0 || strcmp(m, "register_parameter") == 0) {
        Obj *n = args_get(a, 0, "name"), *t = args_get(a, 1, m[9] == 'b' ? "tensor" : "param");
        if (n && n->kind == O_STR && t) {
            if (t->kind == O_TENSOR) {
                if (m[9] == 'b') {
                    t->t->is_buffer = 1;
                    t->t->nonpersistent = !obj_flag(args_get(a, 2, "persistent"), 1);
                } else
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
                obj_push(I, self, mod);
        }
        return obj_none(I);
    }
    if (strcmp(m, "eval") == 0 || strcmp(m, "train") == 0)
        nn_set_training(I, self, m[0] == 't' && obj_flag(args_get(a, 0, "mode"), 1), 0);
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

/* The torch.nn.Module methods a script module may call on itself. */
int torchlib_module_has_method(const char *name)
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

/* A parameter of a module for the forward: its value, -1 when None or
 * absent, -2 after a diagnostic. */
static int32_t module_param(Interp *I, Obj *inst, const char *name, int32_t node)
{
    Obj *p = obj_getattr(inst, name);
    return opt_tensor(I, p, node, name);
}

/* ---- nn modules: neural net ---- */

/* An int-or-tuple constructor argument as a tuple of n ints (def when
 * absent); NULL after a diagnostic. */
static Obj *nn_tuple_arg(Interp *I, CallArgs *a, size_t pos, const char *name, int n, int64_t def)
{
    int64_t v[2];
    Obj *items[2];
    if (!nn_ints(I, args_get(a, pos, name), n, def, a->node, name, v))
        return NULL;
    for (int i = 0; i < n; i++)
        items[i] = obj_int(I, v[i]);
    return obj_tuple(I, items, (size_t)n);
}

/* nn.Conv1d / nn.Conv2d(in_channels, out_channels, kernel_size, stride=1,
 * padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros') */
static int nn_conv_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    int ns = m->s[strlen(m->s) - 2] == '1' ? 1 : 2;
    int64_t cin, cout, g = 1, k[2], wd[4];
    Obj *pm = args_get(a, 8, "padding_mode"), *pad = args_get(a, 4, "padding");
    Obj *ks = nn_tuple_arg(I, a, 2, "kernel_size", ns, 1), *st, *dil;
    if (!ks || !ctor_int(I, a, 0, "in_channels", &cin) || !ctor_int(I, a, 1, "out_channels", &cout) ||
        !(st = nn_tuple_arg(I, a, 3, "stride", ns, 1)) || !(dil = nn_tuple_arg(I, a, 5, "dilation", ns, 1)))
        return 0;
    if (args_get(a, 6, "groups") && !ctor_int(I, a, 6, "groups", &g))
        return 0;
    if (pm && !obj_is_str(pm, "zeros")) {
        interp_break(I, a->node, RULE_TNG203, "torch.nn.Conv%dd with padding_mode other than 'zeros'", ns);
        return 0;
    }
    if (g < 1 || cin % g || cout % g) {
        interp_break(I, a->node, RULE_TNG206, "in_channels and out_channels must be divisible by groups");
        return 0;
    }
    if (!pad || pad->kind != O_STR) {
        if (!(pad = nn_tuple_arg(I, a, 4, "padding", ns, 0)))
            return 0;
    }
    for (int i = 0; i < ns; i++)
        obj_int_value(ks->items[i], &k[i]);
    wd[0] = cout, wd[1] = cin / g, wd[2] = k[0], wd[3] = k[1];
    obj_setattr(I, m, "in_channels", obj_int(I, cin));
    obj_setattr(I, m, "out_channels", obj_int(I, cout));
    obj_setattr(I, m, "kernel_size", ks);
    obj_setattr(I, m, "stride", st);
    obj_setattr(I, m, "padding", pad);
    obj_setattr(I, m, "dilation", dil);
    obj_setattr(I, m, "groups", obj_int(I, g));
    obj_setattr(I, m, "padding_mode", obj_str(I, "zeros"));
    obj_setattr(I, m, "weight", param_new(I, wd, ns + 2, 0, dt, a->node));
    Obj *b = args_get(a, 7, "bias");
    obj_setattr(I, m, "bias", obj_flag(b, 1) ? param_new(I, &cout, 1, 0, dt, a->node) : obj_none(I));
    return 1;
}

/* conv(input) with the module's parameters and arguments */
static Obj *nn_conv(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)x;
    int32_t node = a->node;
    int32_t w = module_param(I, inst, "weight", node), b = module_param(I, inst, "bias", node);
    if (w < 0 || b < -1) {
        if (w == -1)
            interp_break(I, node, RULE_TNG205, "torch.nn.%s without a weight", m->cls);
        return unk(I);
    }
    return conv_of(I, v, w, b, m->cls[4] == '1' ? 1 : 2, obj_getattr(inst, "stride"),
                   obj_getattr(inst, "padding"), obj_getattr(inst, "dilation"), obj_getattr(inst, "groups"),
                   node);
}

/* A buffer of constant shape: a parameter-like host tensor marked a buffer. */
static Obj *buffer_new(Interp *I, const int64_t *d, int n, double fill, DType dt, int32_t node)
{
    Obj *t = param_new(I, d, n, fill, dt, node);
    if (is_tensor(t)) {
        t->t->is_param = 0;
        t->t->requires_grad = 0;
        t->t->is_buffer = 1;
    }
    return t;
}

/* nn.BatchNorm1d / BatchNorm2d(num_features, eps=1e-5, momentum=0.1,
 * affine=True, track_running_stats=True): compiled in inference form */
static int nn_batch_norm_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    int64_t c;
    if (!ctor_int(I, a, 0, "num_features", &c))
        return 0;
    int affine = obj_flag(args_get(a, 3, "affine"), 1), track = obj_flag(args_get(a, 4, "track_running_stats"), 1);
    if (!track) {
        interp_break(I, a->node, RULE_TNG203, "torch.nn.%s with track_running_stats=False (batch "
                     "statistics; only inference with running statistics is compiled)", m->s + 9);
        return 0;
    }
    obj_setattr(I, m, "num_features", obj_int(I, c));
    obj_setattr(I, m, "eps", obj_float(I, float_arg(args_get(a, 1, "eps"), 1e-5)));
    obj_setattr(I, m, "momentum", obj_float(I, float_arg(args_get(a, 2, "momentum"), 0.1)));
    obj_setattr(I, m, "affine", obj_bool(I, affine));
    obj_setattr(I, m, "track_running_stats", obj_bool(I, 1));
    obj_setattr(I, m, "weight", affine ? param_new(I, &c, 1, 1, dt, a->node) : obj_none(I));
    obj_setattr(I, m, "bias", affine ? param_new(I, &c, 1, 0, dt, a->node) : obj_none(I));
    obj_setattr(I, m, "running_mean", buffer_new(I, &c, 1, 0, dt, a->node));
    obj_setattr(I, m, "running_var", buffer_new(I, &c, 1, 1, dt, a->node));
    obj_setattr(I, m, "num_batches_tracked", buffer_new(I, NULL, 0, 0, DT_I64, a->node));
    obj_setattr(I, m, "training", obj_bool(I, 1));   /* as PyTorch's; .eval() clears it */
    return 1;
}

/* batch_norm(input) with the running statistics (inference) */
static Obj *nn_batch_norm(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)x;
    int32_t node = a->node;
    int32_t in[5] = {v, module_param(I, inst, "running_mean", node), module_param(I, inst, "running_var", node),
                     module_param(I, inst, "weight", node), module_param(I, inst, "bias", node)};
    if (in[1] < -1 || in[2] < -1 || in[3] < -1 || in[4] < -1)
        return unk(I);
    if (in[1] < 0 || in[2] < 0)
        return interp_break(I, node, RULE_TNG203, "torch.nn.%s without running statistics", m->cls);
    if (obj_flag(obj_getattr(inst, "training"), 0))
        return interp_break(I, node, RULE_TNG203, "torch.nn.%s in training mode (batch statistics): call "
                            ".eval() on the model (only inference is compiled)", m->cls);
    int rank = rank_of(I, v), want = m->cls[9] == '1' ? 2 : 4;
    if (rank != want && !(want == 2 && rank == 3))
        return interp_break(I, node, RULE_TNG203, "torch.nn.%s expects a %s input, got %d-d", m->cls,
                            want == 2 ? "2-d or 3-d" : "4-d", rank);
    return emit1(I, OP_BATCH_NORM, in, 5, NULL, 0, float_arg(obj_getattr(inst, "eps"), 1e-5), 0,
                 DT_UNKNOWN, node);
}

/* nn.GroupNorm(num_groups, num_channels, eps=1e-5, affine=True) */
static int nn_group_norm_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    int64_t g, c;
    if (!ctor_int(I, a, 0, "num_groups", &g) || !ctor_int(I, a, 1, "num_channels", &c))
        return 0;
    if (g < 1 || c % g) {
        interp_break(I, a->node, RULE_TNG206, "num_channels must be divisible by num_groups");
        return 0;
    }
    int affine = obj_flag(args_get(a, 3, "affine"), 1);
    obj_setattr(I, m, "num_groups", obj_int(I, g));
    obj_setattr(I, m, "num_channels", obj_int(I, c));
    obj_setattr(I, m, "eps", obj_float(I, float_arg(args_get(a, 2, "eps"), 1e-5)));
    obj_setattr(I, m, "affine", obj_bool(I, affine));
    obj_setattr(I, m, "weight", affine ? param_new(I, &c, 1, 1, dt, a->node) : obj_none(I));
    obj_setattr(I, m, "bias", affine ? param_new(I, &c, 1, 0, dt, a->node) : obj_none(I));
    return 1;
}

/* group_norm(input) with the module's groups and parameters */
static Obj *nn_group_norm(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x;
    int32_t node = a->node;
    int64_t g = 1;
    int32_t in[3] = {v, module_param(I, inst, "weight", node), module_param(I, inst, "bias", node)};
    if (in[1] < -1 || in[2] < -1 || !const_int(I, obj_getattr(inst, "num_groups"), node, "num_groups", &g))
        return unk(I);
    return emit1(I, OP_GROUP_NORM, in, 3, &g, 1, float_arg(obj_getattr(inst, "eps"), 1e-5), 0, DT_UNKNOWN, node);
}

/* nn.MaxPool2d(kernel_size, stride=None, padding=0, dilation=1,
 * return_indices=False, ceil_mode=False) | nn.AvgPool2d(kernel_size,
 * stride=None, padding=0, ceil_mode=False, count_include_pad=True,
 * divisor_override=None): the arguments kept as given */
static int nn_pool2d_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    (void)dt;
    int is_max = m->s[9] == 'M';
    static const char *const max_names[] = {"kernel_size", "stride", "padding", "dilation",
                                            "return_indices", "ceil_mode"};
    static const char *const avg_names[] = {"kernel_size", "stride", "padding", "ceil_mode",
                                            "count_include_pad", "divisor_override"};
    const char *const *names = is_max ? max_names : avg_names;
    if (!args_get(a, 0, "kernel_size")) {
        interp_break(I, a->node, RULE_TNG205, "missing argument kernel_size");
        return 0;
    }
    for (size_t i = 0; i < 6; i++) {
        Obj *o = args_get(a, i, names[i]);
        if (o)
            obj_setattr(I, m, names[i], o);
        else if (i == 1)
            obj_setattr(I, m, names[i], args_get(a, 0, "kernel_size"));
    }
    return 1;
}

/* max_pool2d(input) | avg_pool2d(input) with the module's arguments */
static Obj *nn_pool2d(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)x;
    return pool2d_of(I, m->op, v, obj_getattr(inst, "kernel_size"), obj_getattr(inst, "stride"),
                     obj_getattr(inst, "padding"), obj_getattr(inst, "dilation"), obj_getattr(inst, "ceil_mode"),
                     obj_getattr(inst, "count_include_pad"), obj_getattr(inst, "divisor_override"),
                     obj_getattr(inst, "return_indices"), a->node);
}

/* nn.AdaptiveAvgPool2d(output_size) | nn.AdaptiveMaxPool2d(output_size,
 * return_indices=False) */
static int nn_adaptive_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    (void)dt;
    Obj *o = args_get(a, 0, "output_size"), *ri = args_get(a, 1, "return_indices");
    if (!o) {
        interp_break(I, a->node, RULE_TNG205, "missing argument output_size");
        return 0;
    }
    obj_setattr(I, m, "output_size", o);
    if (ri)
        obj_setattr(I, m, "return_indices", ri);
    return 1;
}

/* adaptive pooling of input to the module's output_size */
static Obj *nn_adaptive(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)x;
    return adaptive_of(I, m->op, v, obj_getattr(inst, "output_size"), obj_getattr(inst, "return_indices"),
                       a->node);
}

/* nn.Upsample(size=None, scale_factor=None, mode='nearest',
 * align_corners=None, recompute_scale_factor=None) */
static int nn_upsample_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    (void)I, (void)dt;
    static const char *const names[] = {"size", "scale_factor", "mode", "align_corners",
                                        "recompute_scale_factor"};
    for (size_t i = 0; i < NELEM(names); i++) {
        Obj *o = args_get(a, i, names[i]);
        if (o)
            obj_setattr(I, m, names[i], o);
    }
    return 1;
}

/* interpolate(input) with the module's arguments */
static Obj *nn_upsample(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x;
    return interpolate_of(I, v, obj_getattr(inst, "size"), obj_getattr(inst, "scale_factor"),
                          obj_getattr(inst, "mode"), obj_getattr(inst, "align_corners"),
                          obj_getattr(inst, "recompute_scale_factor"), NULL, a->node);
}

/* nn.MultiheadAttention(embed_dim, num_heads, dropout=0.0, bias=True,
 * add_bias_kv=False, add_zero_attn=False, kdim=None, vdim=None,
 * batch_first=False): the packed in-projection (in_proj_weight,
 * in_proj_bias) and out_proj, a Linear */
static int nn_mha_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    int64_t e, h, kd = -1, vd = -1;
    if (!ctor_int(I, a, 0, "embed_dim", &e) || !ctor_int(I, a, 1, "num_heads", &h))
        return 0;
    Obj *ko = args_get(a, 6, "kdim"), *vo = args_get(a, 7, "vdim");
    if ((ko && !is_none(ko) && !const_int(I, ko, a->node, "kdim", &kd)) ||
        (vo && !is_none(vo) && !const_int(I, vo, a->node, "vdim", &vd)))
        return 0;
    if (h < 1 || e % h) {
        interp_break(I, a->node, RULE_TNG206, "embed_dim must be divisible by num_heads");
        return 0;
    }
    if ((kd >= 0 && kd != e) || (vd >= 0 && vd != e) || obj_flag(args_get(a, 4, "add_bias_kv"), 0) ||
        obj_flag(args_get(a, 5, "add_zero_attn"), 0)) {
        interp_break(I, a->node, RULE_TNG203, "torch.nn.MultiheadAttention with kdim/vdim other than "
                     "embed_dim, add_bias_kv or add_zero_attn");
        return 0;
    }
    int bias = obj_flag(args_get(a, 3, "bias"), 1);
    int64_t wd[2] = {3 * e, e}, be = 3 * e;
    obj_setattr(I, m, "embed_dim", obj_int(I, e));
    obj_setattr(I, m, "num_heads", obj_int(I, h));
    obj_setattr(I, m, "head_dim", obj_int(I, e / h));
    obj_setattr(I, m, "dropout", obj_float(I, float_arg(args_get(a, 2, "dropout"), 0.0)));
    obj_setattr(I, m, "batch_first", obj_bool(I, obj_flag(args_get(a, 8, "batch_first"), 0)));
    obj_setattr(I, m, "training", obj_bool(I, 1));   /* as PyTorch's; .eval() clears it */
    obj_setattr(I, m, "in_proj_weight", param_new(I, wd, 2, 0, dt, a->node));
    obj_setattr(I, m, "in_proj_bias", bias ? param_new(I, &be, 1, 0, dt, a->node) : obj_none(I));
    Obj *out = module_new(I, "torch.nn.Linear", a->node);
    int64_t od[2] = {e, e};
    obj_setattr(I, out, "in_features", obj_int(I, e));
    obj_setattr(I, out, "out_features", obj_int(I, e));
    obj_setattr(I, out, "weight", param_new(I, od, 2, 0, dt, a->node));
    obj_setattr(I, out, "bias", bias ? param_new(I, &e, 1, 0, dt, a->node) : obj_none(I));
    obj_setattr(I, m, "out_proj", out);
    return 1;
}

/* One input of attention projected and split in heads: x[B, T, E] ->
 * linear with rows [part E, (part + 1) E) of the packed weight ->
 * [B, H, T, hd]; -1 after a diagnostic. */
static int32_t mha_heads(Interp *I, int32_t x, int32_t w, int32_t b, int part, int64_t e, int64_t h, int32_t node)
{
    int32_t in[3] = {x, tv(I, slice_of(I, w, 0, part * e, (part + 1) * e, 1, node), node), -1};
    if (b >= 0)
        in[2] = tv(I, slice_of(I, b, 0, part * e, (part + 1) * e, 1, node), node);
    if (in[1] < 0 || (b >= 0 && in[2] < 0))
        return -1;
    int32_t y = tv(I, emit1(I, OP_LINEAR, in, 3, NULL, 0, 0, 0, DT_UNKNOWN, node), node);
    if (y < 0)
        return -1;
    const Val *yv = val_at(I, y);
    DimId d[4] = {yv->dims[0], yv->dims[1], graph_dim_const(G(I), h), graph_dim_const(G(I), e / h)};
    int32_t r = tv(I, reshape_to(I, y, d, 4, node), node);
    int64_t perm[4] = {0, 2, 1, 3};
    return r < 0 ? -1 : tv(I, permute_of(I, NULL, r, perm, 4, node), node);
}

/* A [L, B, E] input as [B, L, E] (batch_first=False); -1 after a diagnostic. */
static int32_t mha_batch_first(Interp *I, Obj *o, int bf, int32_t node)
{
    int32_t v = tv(I, o, node);
    if (v < 0 || bf)
        return v;
    int64_t perm[3] = {1, 0, 2};
    return tv(I, permute_of(I, NULL, v, perm, 3, node), node);
}

/* The attention scores s [B, H, L, S] of MultiheadAttention with its
 * masks, as PyTorch 1.13's multi_head_attention_forward merges them: a
 * float attn_mask ([L, S], or [B * H, L, S]) is added; a bool one, and a
 * bool key_padding_mask [B, S] (True: padding), set the scores they mark
 * to -inf (PyTorch adds -inf there: the same for finite scores). -1 after
 * a diagnostic. */
static int32_t mha_mask(Interp *I, int32_t s, int32_t mask, int32_t kpm, int32_t node)
{
    DimId sd[4];
    dims_of(I, s, sd);
    if (mask >= 0 && val_at(I, mask)->ndim == 3) {   /* [B * H, L, S] -> [B, H, L, S] */
        DimId md[4] = {sd[0], sd[1], val_at(I, mask)->dims[1], val_at(I, mask)->dims[2]};
        mask = tv(I, reshape_to(I, mask, md, 4, node), node);
    }
    if (mask >= 0 && val_at(I, mask)->dtype != DT_BOOL) {
        int32_t ad[2] = {s, mask};
        int64_t at = 0;
        s = tv(I, emit1(I, OP_ADD, ad, 2, &at, 1, 0, 1, DT_UNKNOWN, node), node);
        mask = -1;
    }
    if (kpm >= 0) {   /* [B, S] -> [B, 1, 1, S] */
        DimId one = graph_dim_const(G(I), 1);
        DimId kd[4] = {val_at(I, kpm)->dims[0], one, one, val_at(I, kpm)->dims[1]};
        kpm = tv(I, reshape_to(I, kpm, kd, 4, node), node);
        if (kpm < 0)
            return -1;
        if (mask >= 0) {
            int32_t lo[2] = {mask, kpm};
            kpm = tv(I, emit1(I, OP_LOGICAL_OR, lo, 2, NULL, 0, 0, 0, DT_UNKNOWN, node), node);
        }
        mask = kpm;
    }
    if (s < 0 || mask < 0)
        return mask < -1 ? -1 : s;
    int32_t w[3] = {mask, tv(I, full_of(I, NULL, 0, -INFINITY, val_at(I, s)->dtype, node), node), s};
    if (w[1] < 0)
        return -1;
    return tv(I, emit1(I, OP_WHERE, w, 3, NULL, 0, 0, 0, DT_UNKNOWN, node), node);
}

/* MultiheadAttention(query, key, value, key_padding_mask=None,
 * need_weights=True, attn_mask=None, average_attn_weights=True,
 * is_causal=False): (output, weights averaged over the heads, or per head,
 * or None) */
static Obj *nn_mha(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x, (void)v;
    int32_t node = a->node;
    Obj *qo = args_get(a, 0, "query"), *ko = args_get(a, 1, "key"), *vo = args_get(a, 2, "value");
    int need, avg, causal, bf = obj_flag(obj_getattr(inst, "batch_first"), 0);
    int64_t e, h;
    if (args_unknown(a))
        return unk(I);
    if (!is_tensor(qo) || !is_tensor(ko) || !is_tensor(vo))
        return interp_break(I, node, RULE_TNG203, "torch.nn.MultiheadAttention expects tensors query, key and value");
    int32_t kpm = opt_tensor(I, args_get(a, 3, "key_padding_mask"), node, "key_padding_mask");
    if (kpm < -1)
        return unk(I);
    if (kpm >= 0 && (val_at(I, kpm)->dtype != DT_BOOL || val_at(I, kpm)->ndim != 2))
        return interp_break(I, node, RULE_TNG203, "torch.nn.MultiheadAttention with a %s key_padding_mask (a "
                            "2-d bool mask [batch, source length] is compiled)",
                            val_at(I, kpm)->dtype != DT_BOOL ? "non-bool" : "non-2-d");
    if (!nn_flag(I, args_get(a, 4, "need_weights"), 1, node, "need_weights", &need) ||
        !nn_flag(I, args_get(a, 6, "average_attn_weights"), 1, node, "average_attn_weights", &avg) ||
        !nn_flag(I, args_get(a, 7, "is_causal"), 0, node, "is_causal", &causal) ||
        !const_int(I, obj_getattr(inst, "embed_dim"), node, "embed_dim", &e) ||
        !const_int(I, obj_getattr(inst, "num_heads"), node, "num_heads", &h))
        return unk(I);
    if (causal)
        return interp_break(I, node, RULE_TNG203, "torch.nn.MultiheadAttention with is_causal=True (pass "
                            "the causal attn_mask)");
    double drop = float_arg(obj_getattr(inst, "dropout"), 0.0);
    if (drop != 0 && obj_flag(obj_getattr(inst, "training"), 0))   /* attention dropout: random */
        return interp_break(I, node, RULE_TNG203, "torch.nn.MultiheadAttention(dropout=%g) in training "
                            "mode (random): call .eval() on the model (only inference is compiled)", drop);
    int32_t mask = opt_tensor(I, args_get(a, 5, "attn_mask"), node, "attn_mask");
    if (mask < -1)
        return unk(I);
    if (mask >= 0 && ((val_at(I, mask)->dtype != DT_BOOL && !dtype_is_float(val_at(I, mask)->dtype)) ||
                      val_at(I, mask)->ndim < 2 || val_at(I, mask)->ndim > 3))
        return interp_break(I, node, RULE_TNG203, "torch.nn.MultiheadAttention with a %s attn_mask (a 2-d or "
                            "3-d float or bool mask is compiled)", dtype_name(val_at(I, mask)->dtype));
    int32_t q = mha_batch_first(I, qo, bf, node), k = mha_batch_first(I, ko, bf, node),
            vv = mha_batch_first(I, vo, bf, node);
    if (q < 0 || k < 0 || vv < 0)
        return unk(I);
    if (rank_of(I, q) != 3 || rank_of(I, k) != 3 || rank_of(I, vv) != 3)
        return interp_break(I, node, RULE_TNG203, "torch.nn.MultiheadAttention of unbatched (2-d) inputs");
    int32_t w = module_param(I, inst, "in_proj_weight", node), b = module_param(I, inst, "in_proj_bias", node);
    Obj *out = obj_getattr(inst, "out_proj");
    int32_t ow = out ? module_param(I, out, "weight", node) : -1, ob = out ? module_param(I, out, "bias", node) : -1;
    if (w < 0 || b < -1 || ow < 0 || ob < -1)
        return unk(I);
    int32_t qh = mha_heads(I, q, w, b, 0, e, h, node), kh = mha_heads(I, k, w, b, 1, e, h, node),
            vh = mha_heads(I, vv, w, b, 2, e, h, node);
    if (qh < 0 || kh < 0 || vh < 0)
        return unk(I);
    int32_t att, weights = -1;
    {
        /* softmax(q / sqrt(hd) @ k^T + mask) @ v, step by step as PyTorch's
         * multi_head_attention_forward (each step rounded alike; matmuls
         * that the ACL target maps, which sdpa is not) */
        int64_t one = 1, last = 3;
        int32_t qs = tv(I, arith(I, OP_DIV, obj_tensor(I, qh), obj_float(I, sqrt((double)(e / h))), 1, node,
                                 "scaling"), node);
        int32_t kt = qs < 0 ? -1 : tv(I, transpose_last2(I, NULL, kh, node), node);
        int32_t mm[2] = {qs, kt};
        int32_t s = kt < 0 ? -1 : tv(I, emit1(I, OP_MATMUL, mm, 2, NULL, 0, 0, 0, DT_UNKNOWN, node), node);
        if (s >= 0 && (mask >= 0 || kpm >= 0))
            s = mha_mask(I, s, mask, kpm, node);
        int32_t p = s < 0 ? -1 : tv(I, emit_x(I, OP_SOFTMAX, s, &last, 1, 0, DT_UNKNOWN, node), node);
        int32_t pv[2] = {p, vh};
        att = p < 0 ? -1 : tv(I, emit1(I, OP_MATMUL, pv, 2, NULL, 0, 0, 0, DT_UNKNOWN, node), node);
        int64_t mattr[2] = {0, 1};
        (void)one;
        if (p < 0)
            return unk(I);
        weights = !need ? -1 : !avg ? p : tv(I, emit_x(I, OP_MEAN, p, mattr, 2, 0, DT_UNKNOWN, node), node);
        if (need && weights < 0)
            return unk(I);
    }
    if (att < 0)
        return unk(I);
    int64_t perm[4] = {0, 2, 1, 3};
    int32_t t = tv(I, permute_of(I, NULL, att, perm, 4, node), node);
    if (t < 0)
        return unk(I);
    const Val *tvv = val_at(I, t);
    DimId d[3] = {tvv->dims[0], tvv->dims[1], graph_dim_const(G(I), e)};
    int32_t in[3] = {tv(I, reshape_to(I, t, d, 3, node), node), ow, ob};
    if (in[0] < 0)
        return unk(I);
    Obj *y = emit1(I, OP_LINEAR, in, 3, NULL, 0, 0, 0, DT_UNKNOWN, node);
    if (!bf && is_tensor(y)) {
        int64_t p3[3] = {1, 0, 2};
        y = permute_of(I, NULL, tv(I, y, node), p3, 3, node);
    }
    Obj *items[2] = {y, weights >= 0 ? obj_tensor(I, weights) : obj_none(I)};
    return obj_tuple(I, items, 2);
}

/* linear(input): F.linear with the module's weight and bias */
static Obj *nn_linear(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x;
    int32_t node = a->node;
    int32_t w = module_param(I, inst, "weight", node), b = module_param(I, inst, "bias", node);
    if (w < 0 || b < -1) {
        if (w == -1)
            interp_break(I, node, RULE_TNG205, "Linear without a weight");
        return unk(I);
    }
    int32_t in[3] = {v, w, b};
    return emit1(I, OP_LINEAR, in, 3, NULL, 0, 0, 0, DT_UNKNOWN, node);
}

/* layer_norm(input): over the module's normalized_shape */
static Obj *nn_layer_norm(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x;
    int32_t node = a->node;
    int32_t w = module_param(I, inst, "weight", node), b = module_param(I, inst, "bias", node);
    if (w < -1 || b < -1)
        return unk(I);
    Obj *ns = obj_getattr(inst, "normalized_shape");
    int64_t k = is_seq(ns) ? (int64_t)ns->n : 1;
    return layer_norm(I, v, k, w, b, float_arg(obj_getattr(inst, "eps"), 1e-5), node);
}

/* embedding(input): rows of the module's weight */
static Obj *nn_embedding(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x;
    int32_t node = a->node;
    int32_t in[2] = {module_param(I, inst, "weight", node), v};
    if (in[0] < 0) {
        if (in[0] == -1)
            interp_break(I, node, RULE_TNG205, "Embedding without a weight");
        return unk(I);
    }
    return emit1(I, OP_EMBEDDING, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, node);
}

/* relu(input) | silu | sigmoid | tanh, in place when built with inplace=True */
static Obj *nn_activation(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    return inplace_result(x, emit_x(I, m->op, v, NULL, 0, 0, DT_UNKNOWN, a->node), obj_getattr(inst, "inplace"));
}

/* gelu(input) with the module's approximate= */
static Obj *nn_gelu(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x;
    Obj *ap = obj_getattr(inst, "approximate");
    int64_t t = ap && ap->kind == O_STR && streq(ap->s, "tanh");
    return emit_x(I, OP_GELU, v, &t, 1, 0, DT_UNKNOWN, a->node);
}

/* softplus(input) with the module's beta and threshold */
static Obj *nn_softplus(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x;
    return softplus_of(I, v, obj_getattr(inst, "beta"), obj_getattr(inst, "threshold"), a->node);
}

/* leaky_relu(input) with the module's negative_slope, in place when built
 * with inplace=True */
static Obj *nn_leaky_relu(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m;
    double s;
    if (!num_arg(I, obj_getattr(inst, "negative_slope"), 0.01, a->node, "LeakyReLU's negative_slope", &s))
        return unk(I);
    return inplace_result(x, emit_x(I, OP_LEAKY_RELU, v, NULL, 0, s, DT_UNKNOWN, a->node),
                          obj_getattr(inst, "inplace"));
}

/* softmax(input) | log_softmax(input) over the module's dim */
static Obj *nn_softmax(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)x;
    int32_t node = a->node;
    Obj *d = obj_getattr(inst, "dim");
    int64_t dim;
    if (is_none(d))
        return interp_break(I, node, RULE_TNG205, "torch.nn.%s without dim= (the implicit dim is deprecated)", m->cls);
    if (!dim_arg(I, d, rank_of(I, v), node, "the softmax dim", &dim))
        return unk(I);
    return emit_x(I, m->op, v, &dim, 1, 0, DT_UNKNOWN, node);
}

/* ModuleList(...)(x): not callable */
static Obj *nn_module_list(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)inst, (void)x, (void)v;
    return interp_break(I, a->node, RULE_TNG203, "ModuleList is not callable");
}

/* Sequential(m1, m2, ...)(args): m2(m1(args)) ..., the identity when empty */
static Obj *nn_sequential(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x, (void)v;
    if (args_unknown(a))
        return unk(I);
    Obj *cur = NULL;
    for (size_t i = 0; i < inst->n; i++) {
        CallArgs one = *a;
        if (i > 0) {
            one.pos = &cur;
            one.npos = 1;
            one.nkw = 0;
        }
        cur = interp_call(I, inst->items[i], &one);
        if (is_unknown(cur))
            return cur;
    }
    if (!cur)   /* an empty Sequential is the identity */
        cur = args_get(a, 0, "input");
    return cur ? cur : unk(I);
}

/* nn.ModuleDict(modules=None): a dict or (name, module) pairs; the
 * modules are its attributes (state_dict names "<key>.") */
static int nn_module_dict_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    (void)dt;
    Obj *src = args_get(a, 0, "modules");
    if (is_none(src))
        return 1;
    if (src->kind == O_DICT) {
        for (size_t i = 0; i + 1 < src->n; i += 2)
            if (src->items[i]->kind == O_STR)
                obj_setattr(I, m, src->items[i]->s, src->items[i + 1]);
            else
                return 0;
        return 1;
    }
    Obj *l = obj_iter(I, src, a->node, ITER_EXPAND);
    for (size_t i = 0; l && i < l->n; i++) {
        Obj *p = l->items[i];
        if (!is_seq(p) || p->n != 2 || p->items[0]->kind != O_STR)
            return 0;
        obj_setattr(I, m, p->items[0]->s, p->items[1]);
    }
    return l != NULL;
}

/* nn.ParameterList(values=None): its tensors are parameters */
static int nn_parameter_list_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    (void)dt;
    Obj *src = args_get(a, 0, "values");
    Obj *l = is_none(src) ? obj_seq_of(I, O_LIST, NULL, 0) : obj_iter(I, src, a->node, ITER_EXPAND);
    if (!l)
        return 0;
    for (size_t i = 0; i < l->n; i++) {
        if (!is_tensor(l->items[i]))
            return 0;
        l->items[i]->t->is_param = 1;
    }
    return module_items(I, m, l->items, l->n);
}

/* Marks the tensors of an nn.ParameterDict as its parameters (PyTorch
 * wraps each in a Parameter); 0 when one of its values is no tensor. */
static int nn_parameter_dict_mark(Obj *m)
{
    if (!m->s || !streq(m->s, "torch.nn.ParameterDict"))
        return 1;
    for (size_t i = 0; i < m->attrs.n; i++) {
        if (!is_tensor(m->attrs.vals[i]))
            return 0;
        m->attrs.vals[i]->t->is_param = 1;
    }
    return 1;
}

/* nn.ParameterDict(parameters=None): a dict or (name, tensor) pairs; its
 * tensors are parameters named "<key>" in the state_dict */
static int nn_parameter_dict_init(Interp *I, Obj *m, CallArgs *a, DType dt)
{
    return nn_module_dict_init(I, m, a, dt) && nn_parameter_dict_mark(m);
}

/* ModuleDict(...)(x), ParameterList(...)(x): not callable */
static Obj *nn_container_call(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)inst, (void)x, (void)v;
    return interp_break(I, a->node, RULE_TNG203, "%s is not callable", m->cls);
}

/* The nn modules tngc knows; op: the op of an activation or softmax. */
static const NnModule nn_modules[] = {
    /* class        flags        constructor          forward          op */
    {"Linear",      0,           nn_linear_init,      nn_linear,       0},
    {"LayerNorm",   0,           nn_layer_norm_init,  nn_layer_norm,   0},
    {"Embedding",   0,           nn_embedding_init,   nn_embedding,    0},
    {"ReLU",        NN_INPLACE,  NULL,                nn_activation,   OP_RELU},
    {"SiLU",        NN_INPLACE,  NULL,                nn_activation,   OP_SILU},
    {"Sigmoid",     NN_INPLACE,  NULL,                nn_activation,   OP_SIGMOID},
    {"Tanh",        NN_INPLACE,  NULL,                nn_activation,   OP_TANH},
    {"GELU",        0,           nn_gelu_init,        nn_gelu,         0},
    {"Hardswish",   NN_INPLACE,  NULL,                nn_activation,   OP_HARDSWISH},
    {"Mish",        NN_INPLACE,  NULL,                nn_activation,   OP_MISH},
    {"LeakyReLU",   0,           nn_leaky_relu_init,  nn_leaky_relu,   0},
    {"Softplus",    0,           nn_softplus_init,    nn_softplus,     0},
    {"Softmax",     0,           nn_softmax_init,     nn_softmax,      OP_SOFTMAX},
    {"LogSoftmax",  0,           nn_softmax_init,     nn_softmax,      OP_LOG_SOFTMAX},
    {"Dropout",     0,           nn_dropout_init,     nn_dropout,      0},
    {"Identity",    NN_IDENTITY, NULL,                NULL,            0},
    {"ModuleList",  NN_ARGS,     nn_module_list_init, nn_module_list,  0},
    {"Sequential",  NN_ARGS,     nn_sequential_init,  nn_sequential,   0},
    {"ModuleDict",  NN_ARGS,     nn_module_dict_init, nn_container_call, 0},
    {"ParameterList", NN_ARGS,   nn_parameter_list_init, nn_container_call, 0},
    {"ParameterDict", NN_ARGS,   nn_parameter_dict_init, nn_container_call, 0},
    /* -- creation and constants -- */
    /* -- shape -- */
    /* -- comparison, selection, bool -- */
    /* -- reductions, sorting, contractions -- */
    /* -- indexing and scatter -- */
    /* -- neural net -- */
    {"Dropout1d",   0,           nn_dropout_init,     nn_dropout,      0},
    {"Dropout2d",   0,           nn_dropout_init,     nn_dropout,      0},
    {"Dropout3d",   0,           nn_dropout_init,     nn_dropout,      0},
    {"AlphaDropout", 0,          nn_dropout_init,     nn_dropout,      0},
    {"FeatureAlphaDropout", 0,   nn_dropout_init,     nn_dropout,      0},
    {"MultiheadAttention", NN_ARGS, nn_mha_init,      nn_mha,          0},
    {"Conv1d",      0,           nn_conv_init,        nn_conv,         0},
    {"Conv2d",      0,           nn_conv_init,        nn_conv,         0},
    {"BatchNorm1d", 0,           nn_batch_norm_init,  nn_batch_norm,   0},
    {"BatchNorm2d", 0,           nn_batch_norm_init,  nn_batch_norm,   0},
    {"GroupNorm",   0,           nn_group_norm_init,  nn_group_norm,   0},
    {"MaxPool2d",   0,           nn_pool2d_init,      nn_pool2d,       OP_MAX_POOL2D},
    {"AvgPool2d",   0,           nn_pool2d_init,      nn_pool2d,       OP_AVG_POOL2D},
    {"AdaptiveAvgPool2d", 0,     nn_adaptive_init,    nn_adaptive,     OP_ADAPTIVE_AVG_POOL2D},
    {"AdaptiveMaxPool2d", 0,     nn_adaptive_init,    nn_adaptive,     OP_ADAPTIVE_MAX_POOL2D},
    {"Upsample",    0,           nn_upsample_init,    nn_upsample,     0},
    /* -- torch_npu fused ops -- */
};

/* The row of class cls (after "torch.nn."), or NULL. */
static const NnModule *nn_find(const char *cls)
{
    for (size_t i = 0; i < NELEM(nn_modules); i++)
        if (streq(cls, nn_modules[i].cls))
            return &nn_modules[i];
    return NULL;
}

/* 1 when torch.nn.<cls> names an nn module class tngc does not lower (an
 * upper-case name, no dots, not one of the containers and bases the
 * interpreter handles itself): constructing it gives a module that is
 * refused, naming the class, where it is called. */
static int nn_unsupported_class(const char *cls)
{
    static const char *const bases[] = {"Module", "ModuleDict", "ParameterList", "ParameterDict",
                                        "Parameter", "Buffer"};
    if (!cls || cls[0] < 'A' || cls[0] > 'Z' || strchr(cls, '.'))
        return 0;
    for (size_t i = 0; i < NELEM(bases); i++)
        if (streq(cls, bases[i]))
            return 0;
    return 1;
}

/* torch.nn.X(...) for a class X of nn_modules; NULL for other names */
static Obj *module_construct(Interp *I, const char *name, CallArgs *a)
{
    const char *cls = name + 9;   /* after "torch.nn." */
    const NnModule *row = nn_find(cls);
    if (!row && nn_unsupported_class(cls) && !interp_tracing(I))
        return module_new(I, name, a->node);   /* refused where it is called */
    if (!row)
        return NULL;
    if (interp_tracing(I))
        return interp_break(I, a->node, RULE_TNG203, "constructing torch.nn.%s inside the compiled method", cls);
    if (a->has_star)
        return unk(I);
    Obj *m = module_new(I, interp_printf(I, "torch.nn.%s", cls), a->node);
    Obj *inplace = args_get(a, 0, "inplace");
    if (inplace && (row->flags & NN_INPLACE))
        obj_setattr(I, m, "inplace", inplace);
    DType dt;
    if (!dtype_arg(I, args_kw(a, "dtype"), a->node, &dt))
        return unk(I);
    if (row->init && !row->init(I, m, a, dt))
        return unk(I);
    return m;
}

Obj *torchlib_call_module(Interp *I, Obj *inst, CallArgs *a)
{
    if (!inst || inst->kind != O_INST || !inst->s)
        return interp_break(I, a->node, RULE_TNG202, "call of a module tngc cannot resolve");
    const char *cls = strncmp(inst->s, "torch.nn.", 9) == 0 ? inst->s + 9 : inst->s;
    const NnModule *row = nn_find(cls);
    int32_t node = a->node;
    if (!row && cls != inst->s && nn_unsupported_class(cls))
        return interp_break(I, node, RULE_TNG203, "torch.nn.%s is not supported: tngc has no lowering for "
                            "this nn module", cls);
    if (row && (row->flags & NN_ARGS))
        return row->forward(I, row, inst, a, NULL, -1);
    Obj *x = args_get(a, 0, "input");
    if (!x)
        return interp_break(I, node, RULE_TNG203, "torch.nn.%s called without an input", cls);
    if (obj_has_unknown(x) || a->has_star)
        return unk(I);
    if (row && (row->flags & NN_IDENTITY))
        return x;
    int32_t v = tv(I, x, node);
    if (v < 0) {
        if (!is_tensor(x))
            return interp_break(I, node, RULE_TNG203, "torch.nn.%s called on something that is not a tensor", cls);
        return unk(I);
    }
    if (!row)
        return interp_break(I, node, RULE_TNG202, "call of %s, which tngc cannot lower", inst->s);
    return row->forward(I, row, inst, a, x, v);
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
            return module_method(I, name, self_obj, a);
        if (self_obj->kind != O_TENSOR)
            return NULL;
        const struct LibEntry *e = lib_find(name, NS_METH);
        if (!e) {
            Obj *r = inplace_method(I, name, self_obj, a);
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
        return module_construct(I, name, a);
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
        int32_t v = tv(I, obj, node);
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
            return permute_of(I, obj, v, perm, n, node);
        }
        if (streq(name, "mT")) {
            if (x->ndim < 2)
                return interp_break(I, node, RULE_TNG206, "mT of a tensor of fewer than 2 dims");
            return transpose_last2(I, obj, v, node);
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
 * either side), comparisons and & | ^ (compare_binop); // and % are not lowered */
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
            return arith(I, ar[i].k, l, r, 1, node, interp_printf(I, "operator '%s'", op));
    if (streq(op, "**"))
        return pow_of(I, l, r, node);
    if (streq(op, "@")) {
        if (!is_tensor(l) || !is_tensor(r))
            return interp_break(I, node, RULE_TNG203, "operator '@' needs two tensors");
        int32_t in[2] = {tv(I, l, node), tv(I, r, node)};
        if (in[0] < 0 || in[1] < 0)
            return unk(I);
        return emit1(I, OP_MATMUL, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, node);
    }
    Obj *cb = compare_binop(I, op, l, r, node);
    if (cb)
        return cb;
    return interp_break(I, node, RULE_TNG203, "operator '%s' on a tensor is not in the compilable subset", op);
}

Obj *torchlib_add(Interp *I, Obj *l, Obj *r, int32_t node, const char *what)
{
    return arith(I, OP_ADD, l, r, 1, node, what);
}

Obj *torchlib_abs(Interp *I, Obj *x, int32_t node)
{
    int32_t v = tv(I, x, node);
    return v < 0 ? unk(I) : emit_x(I, OP_ABS, v, NULL, 0, 0, DT_UNKNOWN, node);
}

/* -x | +x | ~x */
Obj *torchlib_unop(Interp *I, const char *op, Obj *o, int32_t node)
{
    if (!op || !is_tensor(o))
        return NULL;
    if (streq(op, "+"))
        return o;
    if (streq(op, "-")) {
        int32_t v = tv(I, o, node);
        return v < 0 ? unk(I) : emit_x(I, OP_NEG, v, NULL, 0, 0, DT_UNKNOWN, node);
    }
    if (streq(op, "not"))
        return interp_break(I, node, RULE_TNG204, "the truth of a tensor is only known at run time");
    if (streq(op, "~")) {
        int32_t v = tv(I, o, node);
        return v < 0 ? unk(I) : emit_x(I, OP_BITWISE_NOT, v, NULL, 0, 0, DT_UNKNOWN, node);
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

/* t[index] */
Obj *torchlib_subscript(Interp *I, Obj *t, Obj *index, int32_t node)
{
    if (!is_tensor(t) || !index)
        return unk(I);
    if (index_has_tensor(index))   /* advanced indexing: indexing and scatter */
        return index_subscript(I, t, index, node);
    int32_t x = tv(I, t, node);
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
            cur = unsqueeze_at(I, x, p, node);
            p++;
            break;
        case IX_INT: {
            int64_t attr[2] = {p, ix[i].start};
            cur = emit_x(I, OP_SELECT, x, attr, 2, 0, DT_UNKNOWN, node);
            break;
        }
        case IX_SLICE:
            if (ix[i].dstart >= 0 || ix[i].dstop >= 0)
                cur = slice_dyn_of(I, x, p, ix[i].dstart, ix[i].start, ix[i].dstop, ix[i].stop, ix[i].step, node);
            else
                cur = slice_of(I, x, p, ix[i].start, ix[i].stop, ix[i].step, node);
            p++;
            break;
        case IX_ELLIPSIS:
            break;
        }
        if (cur != t && (x = tv(I, cur, node)) < 0)
            return unk(I);
    }
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
    if (index_has_tensor(index))   /* advanced indexing: indexing and scatter */
        return index_store_subscript(I, t, index, v, node);
    int32_t dst = tv(I, t, node);
    if (dst < 0 || !inplace_target_ok(I, dst, node, "slice assignment"))
        return -1;
    if (!is_tensor(v)) {
        interp_break(I, node, RULE_TNG211, "assigning a Python scalar to a tensor slice is not supported "
                     "(assign a tensor, e.g. torch.full_like of the slice)");
        return -1;
    }
    int32_t src = tv(I, v, node);
    if (src < 0)
        return -1;
    int r = rank_of(I, dst);
    Ix ix[2 * GRAPH_MAX_DIMS + 2];
    int n = resolve_index(I, index, r, node, RULE_TNG211, ix, (int)NELEM(ix));
    if (n < 0)
        return -1;
    int which = -1, dim = 0;
    for (int i = 0; i < n; i++) {
        if (ix[i].kind == IX_NEW) {
            interp_break(I, node, RULE_TNG211, "assignment through an index with None");
            return -1;
        }
        if (ix[i].kind == IX_INT || ix[i].kind == IX_SLICE) {
            if (which >= 0) {
                interp_break(I, node, RULE_TNG211, "assignment to a subscript that indexes more than one dim "
                             "(only one dim may be sliced or indexed)");
                return -1;
            }
            which = i;
            dim = i;   /* no None: index i applies to dim i */
        }
    }
    int32_t op;
    if (which < 0) {   /* t[:] = v, t[...] = v: the whole tensor */
        int32_t in[2] = {dst, src};
        op = emit(I, OP_COPY, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, node);
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
                Obj *s2 = unsqueeze_at(I, src, sr - after, node);
                if ((src = tv(I, s2, node)) < 0)
                    return -1;
            }
        }
        int32_t in[2] = {dst, src};
        op = emit(I, OP_SLICE_STORE, in, 2, attr, 4, 0, 0, DT_UNKNOWN, node);
    }
    if (op < 0)
        return -1;
    t->t->value = G(I)->ops.v[op].out;
    return 0;
}
