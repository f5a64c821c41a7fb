/*
 * torchlib_complex.c - complex64 tensors as pairs of float32 numbers.
 *
 * A complex64 tensor of shape S is a TensorObj whose cplx flag is set and
 * whose graph value is a float32 tensor of shape S + [2], the real and the
 * imaginary part of each element: torch.view_as_real's layout. Every target
 * then runs complex code with its real kernels:
 *
 *   torch.polar(abs, angle)     stack([abs * cos(angle), abs * sin(angle)], -1)
 *   torch.complex(re, im)       stack([re, im], -1)
 *   torch.view_as_complex(x)    x itself (a view), flagged complex
 *   torch.view_as_real(z)       z's pairs (a view)
 *   z.real, z.imag              pairs[..., 0], pairs[..., 1] (views)
 *   z * w                       (ac - bd, ad + bc), as PyTorch's CPU kernel
 *   z * x, z * 2.0 (x real)     pairs * x[..., None], pairs * 2.0
 *   z + w, z - w, -z            on the pairs
 *   views and indexing          the same op on the pairs with one more dim
 *                               at the end (view/reshape sizes + (2,),
 *                               z[idx] as pairs[idx, ..., :], dims counted
 *                               on z's rank)
 *
 * Every other operation on a complex tensor is refused with TNG203 naming
 * it; interp_val (obj.c) refuses any reader that comes here by another road
 * (Interp.cplx_ok is set only while the functions of this file read the
 * pairs), so that no real kernel takes the pairs for a real tensor. A
 * complex tensor is never a weight (obj.c: a weights file holds real
 * tensors), a compiled entry's input or its result.
 */
#include "torchlib.h"
#include "torchlib_int.h"

#define CX__OPS "polar, complex, view_as_complex, view_as_real, .real, .imag, + - *, views and indexing"

/* "WHAT of a complex tensor is not supported": TNG203 while tracing; in
 * host code an unknown that carries the reason to where a trace uses it. */
static Obj *cx__refuse(Interp *I, int32_t node, const char *what)
{
    if (!interp_tracing(I))
        return obj_unknown(I, interp_printf(I, "%s of a complex tensor is not supported", what));
    return interp_break(I, node, RULE_TNG203, "%s of a complex tensor is not supported (tngc computes complex64 "
                        "tensors with " CX__OPS ")", what);
}

static int cx__is(const Obj *o)
{
    return is_tensor(o) && o->t->cplx;
}

int tl_cx_any(const Obj *self, const CallArgs *a)
{
    if (cx__is(self))
        return 1;
    for (size_t k = 0; a && k < a->npos + a->nkw; k++) {
        const Obj *o = k < a->npos ? a->pos[k] : a->kw[k - a->npos];
        if (cx__is(o))
            return 1;
        for (size_t i = 0; is_seq(o) && i < o->n; i++)
            if (cx__is(o->items[i]))
                return 1;
    }
    return 0;
}

/* The pairs of complex tensor z: a float32 tensor of z's shape + [2],
 * an identity view of z (writes into it are writes into z). NULL when z's
 * value is not known (reported). */
static Obj *cx__pairs(Interp *I, Obj *z, int32_t node)
{
    I->cplx_ok++;
    Obj *s = interp_trace_in(I, z, node);
    int32_t v = is_tensor(s) ? interp_val(I, s, node) : -1;
    Obj *r = NULL;
    if (v >= 0 && (size_t)v < G(I)->vals.n) {
        r = obj_tensor(I, v);
        views_of(I, s, r, node);
    }
    I->cplx_ok--;
    return r;
}

/* r (a tensor computed from pairs) as the complex tensor it holds. */
static Obj *cx__wrap(Obj *r)
{
    if (is_tensor(r))
        r->t->cplx = 1;
    return r;
}

/* The rank of complex tensor z from its pairs p. */
static int cx__rank(Interp *I, Obj *p, int32_t node)
{
    int32_t v = tl_tv(I, p, node);
    return v < 0 ? -1 : rank_of(I, v) - 1;
}

/* torchlib_call with positional arguments only. */
static Obj *cx__call(Interp *I, const char *name, Obj *self, Obj **pos, size_t npos, int32_t node)
{
    CallArgs a;
    memset(&a, 0, sizeof a);
    a.pos = pos;
    a.npos = npos;
    a.node = node;
    return tl_lib.call(I, name, self, &a);
}

static Obj *cx__ellipsis(Interp *I)
{
    return obj_new(I, O_ELLIPSIS);
}

static Obj *cx__full_slice(Interp *I)
{
    Obj *s = obj_new(I, O_SLICE);
    for (int i = 0; i < 3; i++)
        obj_push(I, s, obj_none(I));
    return s;
}

/* Part k (0 real, 1 imaginary) of pairs p: p[..., k], a view of p. */
static Obj *cx__part(Interp *I, Obj *p, int k, int32_t node)
{
    Obj *ix[2] = {cx__ellipsis(I), obj_int(I, k)};
    return tl_lib.subscript(I, p, obj_tuple(I, ix, 2), node);
}

/* The complex tensor of parts re and im (real tensors of one shape). */
static Obj *cx__from_parts(Interp *I, Obj *re, Obj *im, int32_t node)
{
    if (!is_tensor(re) || !is_tensor(im))
        return obj_unknown_reported(I);
    Obj *parts[2] = {re, im};
    Obj *args[2] = {obj_seq_of(I, O_LIST, parts, 2), obj_int(I, -1)};
    return cx__wrap(cx__call(I, "torch.stack", NULL, args, 2, node));
}

static Obj *cx__bin(Interp *I, const char *op, Obj *l, Obj *r, int32_t node)
{
    return tl_lib.binop(I, op, l, r, node);
}

/* z * w of complex tensors: (ac - bd) + (ad + bc)i, the products and sums
 * in PyTorch's order (float32, no fused multiply-add). */
static Obj *cx__mul(Interp *I, Obj *z, Obj *w, int32_t node)
{
    Obj *p = cx__pairs(I, z, node), *q = cx__pairs(I, w, node);
    if (!p || !q)
        return obj_unknown_reported(I);
    Obj *a = cx__part(I, p, 0, node), *b = cx__part(I, p, 1, node);
    Obj *c = cx__part(I, q, 0, node), *d = cx__part(I, q, 1, node);
    if (!is_tensor(a) || !is_tensor(b) || !is_tensor(c) || !is_tensor(d))
        return obj_unknown_reported(I);
    Obj *re = cx__bin(I, "-", cx__bin(I, "*", a, c, node), cx__bin(I, "*", b, d, node), node);
    Obj *im = cx__bin(I, "+", cx__bin(I, "*", a, d, node), cx__bin(I, "*", b, c, node), node);
    return cx__from_parts(I, re, im, node);
}

/* z op x for complex z and a real tensor or a Python number x (either
 * side for *, complex on both sides for + and -). */
static Obj *cx__arith(Interp *I, const char *op, Obj *l, Obj *r, int32_t node)
{
    int lc = cx__is(l), rc = cx__is(r);
    double num;
    int is_int;
    if (streq(op, "*")) {
        if (lc && rc)
            return cx__mul(I, l, r, node);
        Obj *z = lc ? l : r, *x = lc ? r : l;
        Obj *p = cx__pairs(I, z, node);
        if (!p)
            return obj_unknown_reported(I);
        if (is_tensor(x)) {
            Obj *m1 = obj_int(I, -1);
            x = cx__call(I, "unsqueeze", x, &m1, 1, node);   /* each part times x */
            if (!is_tensor(x))
                return obj_unknown_reported(I);
        } else if (!tl_py_number(x, &num, &is_int) || x->kind == O_BOOL) {
            return cx__refuse(I, node, "operator '*' with something other than a tensor or a number");
        }
        return cx__wrap(cx__bin(I, "*", p, x, node));
    }
    if (streq(op, "+") || streq(op, "-")) {
        if (!lc || !rc)
            return cx__refuse(I, node, interp_printf(I, "operator '%s' with a real operand", op));
        Obj *p = cx__pairs(I, l, node), *q = cx__pairs(I, r, node);
        if (!p || !q)
            return obj_unknown_reported(I);
        return cx__wrap(cx__bin(I, op, p, q, node));
    }
    return cx__refuse(I, node, interp_printf(I, "operator '%s'", op));
}

Obj *tl_cx_binop(Interp *I, const char *op, Obj *l, Obj *r, int32_t node)
{
    return cx__arith(I, op, l, r, node);
}

Obj *tl_cx_unop(Interp *I, const char *op, Obj *z, int32_t node)
{
    if (streq(op, "+"))
        return z;
    if (streq(op, "op=") && !interp_tracing(I))   /* z op= w in host code */
        interp_host_inexact(I, z);
    if (!streq(op, "-"))
        return cx__refuse(I, node, streq(op, "abs")   ? "abs()"
                                   : streq(op, "op=") ? "an augmented assignment (x op= y)"
                                                      : interp_printf(I, "operator '%s'", op));
    Obj *p = cx__pairs(I, z, node);
    return p ? cx__wrap(tl_lib.unop(I, "-", p, node)) : obj_unknown_reported(I);
}

/* z[index]: pairs[index..., ..., :] (pairs[index..., :] when index has an
 * Ellipsis): the indices apply to z's dims, the parts stay last. */
Obj *tl_cx_subscript(Interp *I, Obj *z, Obj *index, int32_t node)
{
    Obj *p = cx__pairs(I, z, node);
    if (!p)
        return obj_unknown_reported(I);
    Obj *ix[GRAPH_MAX_DIMS * 2 + 2];
    size_t n = 0;
    int ell = 0;
    Obj *const *items = index->kind == O_TUPLE ? index->items : &index;
    size_t m = index->kind == O_TUPLE ? index->n : 1;
    if (m > GRAPH_MAX_DIMS * 2)
        return cx__refuse(I, node, "an index of this many items");
    for (size_t i = 0; i < m; i++) {
        ell |= items[i]->kind == O_ELLIPSIS;
        ix[n++] = items[i];
    }
    if (!ell)
        ix[n++] = cx__ellipsis(I);
    ix[n++] = cx__full_slice(I);
    return cx__wrap(tl_lib.subscript(I, p, obj_tuple(I, ix, n), node));
}

int tl_cx_store_subscript(Interp *I, Obj *t, Obj *v, int32_t node)
{
    (void)v;
    if (!interp_tracing(I))
        interp_host_inexact(I, t);
    cx__refuse(I, node, cx__is(t) ? "assignment into a slice" : "assignment (into a real tensor's slice)");
    return -1;
}

/* The sizes of view/reshape/expand (varargs or one sequence) with 2
 * appended: the sizes of the pairs. NULL after a diagnostic. */
static Obj *cx__sizes2(Interp *I, const CallArgs *a, int32_t node, const char *what)
{
    if (a->has_star)   /* as lib_call reports it */
        return interp_break(I, node, RULE_TNG205, "the arguments of %s (*args or **kwargs) are not known at "
                            "compile time", what), NULL;
    if (a->nkw)
        return cx__refuse(I, node, interp_printf(I, "%s with keyword arguments", what)), NULL;
    Obj *const *items = a->npos == 1 && is_seq(a->pos[0]) ? a->pos[0]->items : a->pos;
    size_t n = a->npos == 1 && is_seq(a->pos[0]) ? a->pos[0]->n : a->npos;
    Obj *s = obj_seq(I, O_TUPLE);
    for (size_t i = 0; i < n; i++) {
        if (items[i]->kind == O_DTYPE || tl_dtype_of_obj(items[i]) != DT_UNKNOWN ||
            (items[i]->kind == O_BUILTIN && items[i]->s && strncmp(items[i]->s, "torch.", 6) == 0))
            return cx__refuse(I, node, interp_printf(I, "%s as another dtype", what)), NULL;
        obj_push(I, s, items[i]);
    }
    obj_push(I, s, obj_int(I, 2));
    return s;
}

/* Dim argument o of complex tensor of rank n, normalised; -1 after a
 * diagnostic. extra: 1 where the dim may be n (unsqueeze). */
static int64_t cx__dim(Interp *I, Obj *o, int n, int extra, int32_t node, const char *what)
{
    int64_t d, out;
    if (!tl_const_int(I, o, node, what, &d))
        return -1;
    if (!tl_norm_dim(I, d, n + extra, node, &out))
        return -1;
    return out;
}

/* A method (or function on z) whose result on the pairs with the same
 * arguments is the pairs of its result on z. */
static Obj *cx__same_args(Interp *I, const char *m, Obj *p, CallArgs *a)
{
    return cx__wrap(tl_lib.call(I, m, p, a));
}

/* z.to(...): no dtype (a device, a copy flag): z itself, as PyTorch
 * returns a tensor already where it is asked to be; complex64: z. */
static Obj *cx__to(Interp *I, Obj *z, CallArgs *a, const char *full)
{
    for (size_t k = 0; k < a->npos + a->nkw; k++) {
        Obj *o = k < a->npos ? a->pos[k] : a->kw[k - a->npos];
        if (is_tensor(o) && !cx__is(o))
            return cx__refuse(I, a->node, interp_printf(I, "%s (a cast to a real dtype)", full));
        if (o->kind == O_BUILTIN && o->s &&
            (streq(o->s, "torch.complex64") || streq(o->s, "torch.cfloat")))
            continue;
        if (o->kind == O_DTYPE || tl_dtype_of_obj(o) != DT_UNKNOWN ||
            (o->kind == O_BUILTIN && o->s && strncmp(o->s, "torch.", 6) == 0))
            return cx__refuse(I, a->node, interp_printf(I, "%s (a cast to another dtype)", full));
    }
    return z;
}

static Obj *cx__call_of(Interp *I, const char *name, Obj *self, CallArgs *a)
{
    int32_t node = a->node;
    const char *m = name;
    int fn = !self;
    if (fn)
        m = strncmp(name, "torch.", 6) == 0 ? name + 6 : name;
    const char *full = fn ? name : interp_printf(I, "Tensor.%s", name);
    if (fn && strncmp(name, "torch.", 6) != 0)
        return cx__refuse(I, node, full);
    /* the functions of two operands: torch.mul / add / sub, Tensor.mul ... */
    static const struct { const char *name, *op; } ar[] = {
        {"mul", "*"}, {"multiply", "*"}, {"add", "+"}, {"sub", "-"}, {"subtract", "-"}};
    for (size_t i = 0; i < NELEM(ar); i++)
        if (streq(m, ar[i].name)) {
            if (a->nkw || a->has_star || a->npos != (fn ? 2u : 1u))
                return cx__refuse(I, node, interp_printf(I, "%s with other than two operands", full));
            Obj *l = fn ? a->pos[0] : self, *r = fn ? a->pos[1] : a->pos[0];
            return cx__arith(I, ar[i].op, l, r, node);
        }
    if (streq(m, "neg") || streq(m, "negative")) {
        if (a->nkw || a->npos != (fn ? 1u : 0u))
            return cx__refuse(I, node, full);
        return tl_cx_unop(I, "-", fn ? a->pos[0] : self, node);
    }
    /* the rest take z first */
    Obj *z = self;
    CallArgs rest = *a;
    if (fn) {
        if (a->npos < 1 || !cx__is(a->pos[0]))
            return cx__refuse(I, node, full);
        z = a->pos[0];
        rest.pos = a->pos + 1;
        rest.npos = a->npos - 1;
    }
    if (!cx__is(z))   /* a real tensor's method with a complex operand */
        return cx__refuse(I, node, full);
    for (size_t k = 0; k < rest.npos + rest.nkw; k++) {   /* a second complex operand */
        Obj *o = k < rest.npos ? rest.pos[k] : rest.kw[k - rest.npos];
        int nested = 0;
        for (size_t i = 0; is_seq(o) && i < o->n; i++)
            nested |= cx__is(o->items[i]);
        if ((cx__is(o) && !streq(m, "type_as")) || nested)
            return cx__refuse(I, node, full);
    }
    if (streq(m, "view_as_real")) {
        if (!fn || rest.npos || rest.nkw)
            return cx__refuse(I, node, full);
        Obj *p = cx__pairs(I, z, node);
        return p ? p : obj_unknown_reported(I);
    }
    if (streq(m, "to"))
        return cx__to(I, z, &rest, full);
    if (streq(m, "type_as")) {
        if (rest.npos != 1 || rest.nkw || !cx__is(rest.pos[0]))
            return cx__refuse(I, node, interp_printf(I, "%s (a cast to a real dtype)", full));
        return z;
    }
    if (streq(m, "is_complex"))
        return obj_bool(I, 1);
    if (streq(m, "is_floating_point"))
        return obj_bool(I, 0);
    if (streq(m, "element_size"))
        return obj_int(I, 8);
    Obj *p = cx__pairs(I, z, node);
    if (!p)
        return obj_unknown_reported(I);
    int n = cx__rank(I, p, node);
    if (n < 0)
        return obj_unknown_reported(I);
    if (streq(m, "dim") || streq(m, "ndimension")) {
        if (rest.npos || rest.nkw)
            return cx__refuse(I, node, full);
        return obj_int(I, n);
    }
    if (streq(m, "size")) {
        if (rest.npos + rest.nkw > 1)
            return cx__refuse(I, node, full);
        Obj *d = rest.npos ? rest.pos[0] : rest.nkw ? rest.kw[0] : NULL;
        if (rest.nkw && !streq(rest.kwnames[0], "dim"))
            return cx__refuse(I, node, full);
        int32_t v = tl_tv(I, p, node);
        if (v < 0)
            return obj_unknown_reported(I);
        if (d && !is_none(d)) {
            int64_t k = cx__dim(I, d, n, 0, node, "the dim of size()");
            return k < 0 ? obj_unknown_reported(I) : obj_dim(I, val_at(I, v)->dims[k]);
        }
        Obj *items[GRAPH_MAX_DIMS];
        for (int i = 0; i < n; i++)
            items[i] = obj_dim(I, val_at(I, v)->dims[i]);
        return obj_tuple(I, items, (size_t)n);
    }
    if (streq(m, "view") || streq(m, "reshape") || streq(m, "expand")) {
        Obj *s = cx__sizes2(I, &rest, node, full);
        return s ? cx__wrap(cx__call(I, m, p, &s, 1, node)) : obj_unknown_reported(I);
    }
    if (streq(m, "contiguous") || streq(m, "clone") || streq(m, "detach") || streq(m, "cpu") ||
        streq(m, "npu") || streq(m, "cuda"))
        return cx__same_args(I, m, p, &rest);
    if (streq(m, "unsqueeze") || streq(m, "squeeze") || streq(m, "transpose") || streq(m, "swapaxes") ||
        streq(m, "swapdims") || streq(m, "flatten") || streq(m, "permute")) {
        /* dims counted on z's rank, given positionally; a 0-d z's pairs
         * are 1-d, which flatten and the others would treat as z's dim */
        if (n == 0 && !streq(m, "unsqueeze"))
            return cx__refuse(I, node, interp_printf(I, "%s of a 0-d tensor", full));
        if (rest.nkw || rest.has_star)
            return cx__refuse(I, node, interp_printf(I, "%s with keyword arguments", full));
        Obj *const *items = rest.pos;
        size_t k = rest.npos;
        if (streq(m, "permute") && k == 1 && is_seq(rest.pos[0]))
            items = rest.pos[0]->items, k = rest.pos[0]->n;
        if (k > GRAPH_MAX_DIMS)
            return cx__refuse(I, node, full);
        Obj *dims[GRAPH_MAX_DIMS + 1];
        for (size_t i = 0; i < k; i++) {
            int64_t d = cx__dim(I, items[i], n, streq(m, "unsqueeze"), node, interp_printf(I, "a dim of %s", full));
            if (d < 0)
                return obj_unknown_reported(I);
            dims[i] = obj_int(I, d);
        }
        if (streq(m, "permute"))
            dims[k++] = obj_int(I, n);
        else if (streq(m, "flatten") && k == 0)
            dims[k++] = obj_int(I, 0);
        if (streq(m, "flatten") && k == 1)
            dims[k++] = obj_int(I, n - 1);
        return cx__wrap(cx__call(I, m, p, dims, k, node));
    }
    return cx__refuse(I, node, full);
}

/* A refused call in host code may have been meant to change its tensors
 * (z.uniform_(), torch.nn.init.*): they are no constants tngc knows then
 * (interp_host_inexact), so a trace refuses them as weights. */
Obj *tl_cx_call(Interp *I, const char *name, Obj *self, CallArgs *a)
{
    Obj *r = cx__call_of(I, name, self, a);
    if (!interp_tracing(I) && is_unknown(r)) {
        interp_host_inexact(I, self);
        for (size_t k = 0; k < a->npos + a->nkw; k++) {
            Obj *o = k < a->npos ? a->pos[k] : a->kw[k - a->npos];
            interp_host_inexact(I, o);
            for (size_t i = 0; is_seq(o) && i < o->n; i++)
                interp_host_inexact(I, o->items[i]);
        }
    }
    return r;
}

Obj *tl_cx_getattr(Interp *I, Obj *z, const char *name, int32_t node)
{
    if (streq(name, "dtype"))
        return obj_builtin(I, "torch.complex64");
    if (streq(name, "data"))
        return z;
    if (streq(name, "requires_grad"))
        return obj_bool(I, 0);
    if (streq(name, "device") && obj_tensor_device(I))
        return obj_tensor_device(I);
    if (streq(name, "is_cuda") || streq(name, "is_npu") || streq(name, "device"))
        return unk(I);
    if (streq(name, "itemsize"))
        return obj_int(I, 8);
    if (streq(name, "T") || streq(name, "mT") || streq(name, "H") || streq(name, "mH"))
        return cx__refuse(I, node, interp_printf(I, "Tensor.%s", name));
    if (!streq(name, "shape") && !streq(name, "ndim") && !streq(name, "real") && !streq(name, "imag"))
        return NULL;   /* a method: tl_cx_call */
    Obj *p = cx__pairs(I, z, node);
    int32_t v = p ? tl_tv(I, p, node) : -1;
    if (v < 0)
        return obj_unknown_reported(I);
    int n = rank_of(I, v) - 1;
    if (streq(name, "ndim"))
        return obj_int(I, n);
    if (streq(name, "shape")) {
        Obj *items[GRAPH_MAX_DIMS];
        for (int i = 0; i < n; i++)
            items[i] = obj_dim(I, val_at(I, v)->dims[i]);
        return obj_tuple(I, items, (size_t)n);
    }
    return cx__part(I, p, streq(name, "imag"), node);
}

/* ---- the lowerings of lib[] rows ---------------------------------------- */

/* A float32 tensor argument of a complex constructor, or -1 after a
 * diagnostic (PyTorch: complex32 and complex128 come from other dtypes,
 * which tngc does not make). */
static int32_t cx__f32(Interp *I, Call *c, Obj *o, const char *what)
{
    int32_t v = tl_tv(I, o, c->node);
    if (v < 0)
        return -1;
    if (val_at(I, v)->dtype != DT_F32) {
        interp_break(I, c->node, RULE_TNG203, "%s: %s is %s; tngc makes complex64 tensors of float32 ones only",
                     c->full, what, dtype_name(val_at(I, v)->dtype));
        return -1;
    }
    return v;
}

/* torch.polar(abs, angle): abs * cos(angle) + abs * sin(angle)i */
Obj *lo_polar(Interp *I, Call *c)
{
    Obj *r = P(c, "abs"), *t = P(c, "angle");
    if (cx__f32(I, c, r, "abs") < 0 || cx__f32(I, c, t, "angle") < 0)
        return obj_unknown_reported(I);
    Obj *cs = cx__call(I, "torch.cos", NULL, &t, 1, c->node);
    Obj *sn = cx__call(I, "torch.sin", NULL, &t, 1, c->node);
    return cx__from_parts(I, cx__bin(I, "*", r, cs, c->node), cx__bin(I, "*", r, sn, c->node), c->node);
}

/* torch.complex(real, imag) */
Obj *lo_complex(Interp *I, Call *c)
{
    Obj *re = P(c, "real"), *im = P(c, "imag");
    if (cx__f32(I, c, re, "real") < 0 || cx__f32(I, c, im, "imag") < 0)
        return obj_unknown_reported(I);
    return cx__from_parts(I, re, im, c->node);
}

/* torch.view_as_complex(x): x's last dim of 2 holds the parts; a view */
Obj *lo_view_as_complex(Interp *I, Call *c)
{
    int32_t v = cx__f32(I, c, P0(c), "the input");
    if (v < 0)
        return obj_unknown_reported(I);
    const Val *x = val_at(I, v);
    int64_t two;
    if (x->ndim < 1 || !graph_dim_const_value(G(I), x->dims[x->ndim - 1], &two) || two != 2)
        return interp_break(I, c->node, RULE_TNG203, "%s: the tensor's last dim must be of size 2 (PyTorch "
                            "raises)", c->full);
    return cx__wrap(obj_tensor(I, v));
}

/* torch.view_as_real(x) of a real x: PyTorch's error (complex ones are
 * tl_cx_call's) */
Obj *lo_view_as_real(Interp *I, Call *c)
{
    return interp_break(I, c->node, RULE_TNG203, "%s of a real tensor (PyTorch: view_as_real is only supported "
                        "for complex tensors)", c->full);
}
