/*
 * torchlib_arith.c - the torch library (torchlib.c), elementwise arithmetic and matrix products: arith, pow, unary, round, softplus, leaky_relu, clamp, maximum, gelu, mm, addmm, linear.
 * Each lowering (lo_*) is under the Python signature it lowers; its lib[]
 * row is in torchlib.c; helpers shared across the library are declared
 * in torchlib_core.h and torchlib_int.h.
 */
#include "torchlib.h"
#include "torchlib_int.h"

/* ---- lowerings: elementwise arithmetic ---- */

/* torch.add(input, other, alpha=1) | x.add(other) | x.sub(...) | x.mul(other)
 * | x.div(other) | torch.true_divide(input, other) */
Obj *lo_arith(Interp *I, Call *c)
{
    Obj *l = P0(c), *r = P_at(c, 1);   /* other (true_divide: divisor) */
    double alpha = 1;
    Obj *al = P_if(c, "alpha");
    if (al && !obj_num_value(al, &alpha))
        return interp_break(I, c->node, RULE_TNG205, "alpha must be a number known at compile time");
    if (alpha != 1 && c->arg != OP_ADD && c->arg != OP_SUB)
        return interp_break(I, c->node, RULE_TNG203, "alpha= of %s", c->full);
    Obj *rm = P_if(c, "rounding_mode");
    if (rm && !is_none(rm))
        return interp_break(I, c->node, RULE_TNG203, "%s with rounding_mode", c->full);
    return tl_arith(I, (OpKind)c->arg, l, r, alpha, c->node, c->full);
}

/* x ** e | torch.pow(x, e) | x.pow(e): pow for a number exponent, pow_tensor
 * (a binary op) for a tensor one, whatever the base */
Obj *tl_pow_of(Interp *I, Obj *x, Obj *e, int32_t node)
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

Obj *lo_pow(Interp *I, Call *c)
{
    return tl_pow_of(I, P0(c), P(c, "exponent"), c->node);
}

/* torch.neg(x) | x.exp() | F.relu(x) | torch.sigmoid(x) | F.silu(x) | ... */
Obj *lo_unary(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    Obj *r = tl_emit_x(I, (OpKind)c->arg, x, NULL, 0, 0, DT_UNKNOWN, c->node);
    return tl_inplace_result(I, P0(c), r, P_if(c, "inplace"), c->node);
}

/* torch.round(x, *, decimals=0) | x.round(): to the nearest integer, halves
 * to even; other decimals are not compiled */
Obj *lo_round(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    int64_t d = 0;
    Obj *dec = P(c, "decimals");
    if (x < 0)
        return unk(I);
    if (dec && !is_none(dec) && !tl_const_int(I, dec, c->node, "round's decimals=", &d))
        return unk(I);
    if (d != 0)
        return interp_break(I, c->node, RULE_TNG203, "round with decimals=%lld (only 0 is compiled)",
                            (long long)d);
    return tl_emit_x(I, OP_ROUND, x, NULL, 0, 0, DT_UNKNOWN, c->node);
}

/* F.softplus(input, beta=1, threshold=20) */
Obj *lo_softplus(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    return tl_softplus_of(I, x, P(c, "beta"), P(c, "threshold"), c->node);
}

/* F.leaky_relu(input, negative_slope=0.01, inplace=False) */
Obj *lo_leaky_relu(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    double s;
    if (x < 0 || !tl_num_arg(I, P(c, "negative_slope"), 0.01, c->node, "leaky_relu's negative_slope", &s))
        return unk(I);
    Obj *r = tl_emit_x(I, OP_LEAKY_RELU, x, NULL, 0, s, DT_UNKNOWN, c->node);
    return tl_inplace_result(I, P0(c), r, P(c, "inplace"), c->node);
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
Obj *lo_clamp(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    double lo = 0, hi = 0;
    int lo_int = 1, hi_int = 1, has_lo = 0, has_hi = 0;
    if (x < 0)
        return unk(I);
    if (c->arg != OP_CLAMP_MAX && (has_lo = clamp_bound(I, P(c, "min"), c, &lo, &lo_int)) < 0)
        return unk(I);
    if (c->arg == OP_CLAMP && (has_hi = clamp_bound(I, P(c, "max"), c, &hi, &hi_int)) < 0)
        return unk(I);
    if (c->arg == OP_CLAMP_MAX && (has_hi = clamp_bound(I, P(c, "max"), c, &hi, &hi_int)) < 0)
        return unk(I);
    if (!has_lo && !has_hi)
        return interp_break(I, c->node, RULE_TNG203, "%s needs a min or a max", c->full);
    int64_t int_bounds = (!has_lo || lo_int) && (!has_hi || hi_int);
    if (has_lo && has_hi)
        return tl_emit1(I, OP_CLAMP, &x, 1, &int_bounds, 1, lo, hi, DT_UNKNOWN, c->node);
    return tl_emit1(I, has_lo ? OP_CLAMP_MIN : OP_CLAMP_MAX, &x, 1, &int_bounds, 1, has_lo ? lo : hi, 0,
                    DT_UNKNOWN, c->node);
}

/* torch.maximum(input, other) | x.minimum(other): two tensors */
Obj *lo_maximum(Interp *I, Call *c)
{
    return tl_two_tensors(I, c);
}

/* F.gelu(input, approximate='none') */
Obj *lo_gelu(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    Obj *ap = P(c, "approximate");
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

/* ---- lowerings: matrix products ---- */

/* torch.mm(a, b) | torch.bmm(a, b) | torch.matmul(a, b) | a.mm(b) ... */
Obj *lo_mm(Interp *I, Call *c)
{
    return tl_two_tensors(I, c);
}

/* torch.addmm(input, mat1, mat2, *, beta=1, alpha=1) | bias.addmm(m1, m2) */
Obj *lo_addmm(Interp *I, Call *c)
{
    Obj *m1 = P(c, "mat1"), *m2 = P(c, "mat2");
    int32_t in[3] = {tl_x0(I, c), tl_tv(I, m1, c->node), tl_tv(I, m2, c->node)};
    if (in[0] < 0)
        return unk(I);
    if (in[1] < 0 || in[2] < 0) {
        if (!is_unknown(m1) && !is_unknown(m2))
            interp_break(I, c->node, RULE_TNG203, "addmm expects three tensors");
        return unk(I);
    }
    double beta = 1, alpha = 1;
    Obj *b = P(c, "beta"), *al = P(c, "alpha");
    if ((b && !obj_num_value(b, &beta)) || (al && !obj_num_value(al, &alpha)))
        return interp_break(I, c->node, RULE_TNG205, "beta and alpha must be numbers known at compile time");
    return tl_emit1(I, OP_ADDMM, in, 3, NULL, 0, beta, alpha, DT_UNKNOWN, c->node);
}

/* F.linear(input, weight, bias=None) */
Obj *lo_linear(Interp *I, Call *c)
{
    Obj *w = P(c, "weight"), *b = P(c, "bias");
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
