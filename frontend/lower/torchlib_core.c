/*
 * torchlib_core.c - the torch library's core (torchlib.c): the helpers
 * every lowering uses, and nothing that names a lowering: emitting ops,
 * dims, sizes and dtypes of arguments, tensor arguments, the arithmetic,
 * norm, in-place and fill helpers several families share (tl_augassign
 * is torchlib_augassign, x op= y on a tensor). Declared in
 * torchlib_core.h; the lowerings (lo_*) are in torchlib_<family>.c, the
 * table that names them in torchlib.c.
 */
#include "torchlib_core.h"

TlLib tl_lib;

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

Obj *tl_obj_dtype(Interp *I, DType dt)
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
/* Parameters                                                            */
/* ===================================================================== */

/* The index of parameter name in c's overload; TNGC_BUG when it has none:
 * a lowering reads only the parameters its rows declare. */
static int tl__param(const Call *c, const char *name)
{
    int i = sig_index(c->sig, name);
    if (i < 0)
        TNGC_BUG("%s: the signature has no parameter '%s'", c->full, name);
    return i;
}

/* Parses the signature text of the table row `name` into row (its
 * parameters appended to pool[*used..cap)); 1, or 0 with the problem
 * appended to why (malformed, or an overload of another name). */
int tl_sig_row_parse(const char *name, const char *text, SigRow *row, SigParam *pool, size_t cap, size_t *used,
                     StrBuf *why)
{
    StrBuf what = {0};
    int n = sig_parse(text, row->s, SIG_MAXOV, pool, cap, used, &what);
    if (!n) {
        sb_printf(why, "the signature of %s: %s", name, what.s);
        sb_free(&what);
        return 0;
    }
    for (int k = 0; k < n; k++)
        if (row->s[k].nlen != strlen(name) || memcmp(row->s[k].name, name, row->s[k].nlen) != 0) {
            sb_printf(why, "the signature of %s names another function: %s", name, text);
            return 0;
        }
    row->n = n;
    return 1;
}

/* Binds the arguments a (a method's self at 0) to the first overload of
 * row they fit, into c (sig, ov, p). With several overloads the types of
 * the arguments choose (sig_bind's check_types), then the first the names
 * alone bind. NULL, or what the TypeError Python would raise is: TNG203 at
 * the call, the first overload's message, `full` naming the function (in
 * host code an unknown whose reason it is). */
Obj *tl_bind(Interp *I, const SigRow *row, const CallArgs *a, const char *full, Call *c)
{
    StrBuf first = {0}, other = {0};   /* the first overload's TypeError; the others' (dropped) */
    for (int pass = row->n > 1 ? 0 : 1; pass < 2; pass++)
        for (int k = 0; k < row->n; k++) {
            StrBuf *why = k ? &other : &first;
            why->len = 0;
            if (sig_bind(I, &row->s[k], a, pass == 0, full, c->p, why)) {
                c->sig = &row->s[k];
                c->ov = k;
                sb_free(&first);
                sb_free(&other);
                return NULL;
            }
        }
    const char *msg = interp_printf(I, "%s", first.s ? first.s : "");
    sb_free(&first);
    sb_free(&other);
    if (!interp_tracing(I))   /* host code: the reason travels with the unknown to where it is used */
        return obj_unknown(I, msg);
    return interp_break(I, a->node, RULE_TNG203, "%s", msg);
}

/* Parameter i: the argument given, else its default (NULL for None). */
Obj *P_at(const Call *c, int i)
{
    return c->p[i] ? c->p[i] : sig_default(c->I, c->sig, i);
}

/* Parameter name: the argument given, else the signature's default (NULL
 * for None). */
Obj *P(const Call *c, const char *name)
{
    return P_at(c, tl__param(c, name));
}

/* Parameter name as given: NULL when the call left it out (a lowering that
 * says so when an argument was given). */
Obj *PA(const Call *c, const char *name)
{
    return c->p[tl__param(c, name)];
}

/* P, or NULL when the overload has no parameter name (a lowering of rows
 * whose signatures differ). */
Obj *P_if(const Call *c, const char *name)
{
    int i = sig_index(c->sig, name);
    return i < 0 ? NULL : P_at(c, i);
}

/* ===================================================================== */
/* Tensor arguments                                                      */
/* ===================================================================== */

/* The value of the tensor operand (parameter 0), or -1 after a
 * diagnostic. */
int32_t tl_x0(Interp *I, const Call *c)
{
    Obj *o = P0(c);
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

/* Sizes: one size, or a tuple or list of them (what a parameter `int...
 * size` binds: the varargs, or one sequence). NULL: none. Returns the
 * count, or -1 after a diagnostic. */
int tl_sizes_arg(Interp *I, Obj *sizes, int32_t node, int allow_infer, int64_t *out)
{
    Obj *const *items = is_seq(sizes) ? sizes->items : &sizes;
    size_t n = is_seq(sizes) ? sizes->n : sizes != NULL;
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

/* F.relu(x, inplace=True) | nn.ReLU(inplace=True)(x): the result is
 * written into x, so every alias of x sees it (as PyTorch's in-place op). */
Obj *tl_inplace_result(Interp *I, Obj *x, Obj *r, const Obj *inplace, int32_t node)
{
    if (!inplace || !((inplace->kind == O_BOOL || inplace->kind == O_INT) && inplace->i) ||
        !x || x->kind != O_TENSOR || !r || r->kind != O_TENSOR || r->t->g != G(I))
        return r;
    return views_write(I, x, r->t->value, node, "an inplace=True activation");
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

/* The op c->arg of parameters 0 and 1, two tensors. */
Obj *tl_two_tensors(Interp *I, Call *c)
{
    Obj *b = P_at(c, 1);
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

/* ===================================================================== */
/* Norms                                                                 */
/* ===================================================================== */

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

/* ===================================================================== */
/* In-place updates                                                      */
/* ===================================================================== */

/* x op= y on a tensor x whose new value res was computed: written into x
 * as PyTorch's in-place op writes it (views_write): into the storage of an
 * input or buffer (COPY, written back to the caller), through a view into
 * its base, so that every alias sees it. Returns the tensor object that
 * now holds it. */
Obj *tl_augassign(Interp *I, Obj *x, Obj *res, int32_t node)
{
    Obj *r = tl_inplace_fit(I, x, res, node, "an augmented assignment");
    if (!is_tensor(r))
        return r;   /* reported */
    int32_t v = tl_tv(I, r, node), old = x->t->value;
    if (v < 0)
        return unk(I);
    Obj *w = views_write(I, x, v, node, "an in-place update");
    rowsel_unread(I, old);   /* read for its shape, which the new value has */
    return w;
}

/* 1 when every symbol d uses is geared. */
int tl_dim_geared(Interp *I, DimId d)
{
    const Graph *g = G(I);
    for (size_t s = 0; s < g->syms.n; s++) {
        if (!graph_dim_uses_sym(g, d, (int)s))
            continue;
        int found = 0;
        for (size_t k = 0; k < g->gears.n && !found; k++)
            found = g->gears.v[k].sym == (int)s;
        if (!found)
            return 0;
    }
    return 1;
}

/* A check the planner evaluates in every gear: a == b, reported at op
 * (an op id; the next op to be added when it is g->ops.n). */
void tl_dim_check(Interp *I, DimId a, DimId b, int32_t op, const char *what)
{
    Graph *g = G(I);
    if (a == b)
        return;
    DimCheck c = {DIMCHECK_EQ, a, b, op, arena_strndup(&g->arena, what, strlen(what))};
    VEC_PUSH(g->checks, c);
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
        int geared = 1;
        for (int i = 0; i < a->ndim; i++)
            geared &= tl_dim_geared(I, a->dims[i]) && tl_dim_geared(I, b->dims[i]);
        if (!geared)
            return interp_break(I, node, RULE_TNG203, "%s: tngc cannot show that the result has the shape of "
                                "the tensor written at every size of its dynamic dims (PyTorch raises at the "
                                "sizes where it does not): give the dims gears or make them static", what);
        for (int i = 0; i < a->ndim; i++)   /* equal in every gear: the planner checks (TNG209) */
            tl_dim_check(I, a->dims[i], b->dims[i], G(I)->vals.v[rv].op,
                         interp_printf(I, "%s: dim %d of the tensor written vs of the result", what, i));
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

/* A FULL op of shape d[0..n), fill and dtype. */
Obj *tl_full_of(Interp *I, const int64_t *d, int n, double fill, DType dt, int32_t node)
{
    return tl_emit1(I, OP_FULL, NULL, 0, d, (uint32_t)n, fill, 0, dt ? dt : graph_float(G(I)), node);
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
