/*
 * torchlib_rmsnorm.c - the torch library (torchlib.c), F.rms_norm
 * (PyTorch 2.4), composed from mul, mean, add and rsqrt. Each lowering
 * (lo_*) is under the Python signature it lowers; its lib[] row is in
 * torchlib.c.
 */
#include "torchlib.h"
#include "torchlib_int.h"

#include <float.h>

/* 1 when the last k dims of value v are the constants of shape ns (k
 * items); 0 after a diagnostic naming what. */
static int rmsnorm__trailing(Interp *I, Call *c, int32_t v, const int64_t *ns, int k, const char *what)
{
    const Val *x = val_at(I, v);
    int64_t size;
    if (x->ndim < k) {
        interp_break(I, c->node, RULE_TNG206, "%s: %s has %d dims, normalized_shape %d", c->full, what,
                     x->ndim, k);
        return 0;
    }
    for (int i = 0; i < k; i++) {
        DimId d = x->dims[x->ndim - k + i];
        if (!graph_dim_const_value(G(I), d, &size)) {
            interp_break(I, c->node, RULE_TNG204, "%s over a dim of %s whose size differs between gears "
                         "(normalized_shape is constant)", c->full, what);
            return 0;
        }
        if (size != ns[i]) {
            interp_break(I, c->node, RULE_TNG206, "%s: dim %d of %s has size %lld, normalized_shape %lld",
                         c->full, x->ndim - k + i, what, (long long)size, (long long)ns[i]);
            return 0;
        }
    }
    return 1;
}

/* F.rms_norm(input, normalized_shape, weight=None, eps=None) as PyTorch's
 * composite computes it for a float32 input:
 * input * rsqrt(mean(input^2 over the normalized dims, keepdim) + eps),
 * then times weight (promoting as mul does). eps None is float32's
 * machine epsilon (the opmath type's, for every input dtype). A float16 or
 * bfloat16 input (with a weight of its dtype, or none) is one operation
 * rounded once, as tngc computes every half-type op and as PyTorch
 * releases after 2.4 define it: the input and weight widened to float32,
 * the float32 composite, the result rounded to the input's dtype.
 * (PyTorch 2.4's composite rounds each step in the half type instead: a
 * few units in the last place apart.) */
Obj *lo_rms_norm_f(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    DType dt = val_at(I, x)->dtype;
    if (dt != DT_F32 && dt != DT_F16 && dt != DT_BF16)
        return interp_break(I, c->node, RULE_TNG203, "%s of a %s tensor (float32, float16 and bfloat16 are "
                            "supported)", c->full, dtype_name(dt));
    Obj *nso = P(c, "normalized_shape");
    int64_t ns[GRAPH_MAX_DIMS];
    Obj *const *items = is_seq(nso) ? nso->items : &nso;
    size_t k = is_seq(nso) ? nso->n : 1;
    if (k > GRAPH_MAX_DIMS)
        return interp_break(I, c->node, RULE_TNG206, "%s: normalized_shape of %zu dims", c->full, k);
    for (size_t i = 0; i < k; i++)
        if (!tl_const_int(I, items[i], c->node, "normalized_shape", &ns[i]))
            return unk(I);
    if (!rmsnorm__trailing(I, c, x, ns, (int)k, "the input"))
        return unk(I);
    int32_t w = tl_opt_tensor(I, P(c, "weight"), c->node, "weight");
    if (w < -1)
        return unk(I);
    if (w >= 0 && rank_of(I, w) != (int)k)   /* PyTorch: the weight's shape is normalized_shape */
        return interp_break(I, c->node, RULE_TNG206, "%s: the weight has %d dims, normalized_shape %zu", c->full,
                            rank_of(I, w), k);
    if (w >= 0 && !rmsnorm__trailing(I, c, w, ns, (int)k, "the weight"))
        return unk(I);
    Obj *eo = P(c, "eps");
    double eps;
    if (!tl_num_arg(I, eo, FLT_EPSILON, c->node, "eps", &eps))
        return unk(I);
    eps = (double)(float)eps;   /* PyTorch converts eps to the input's scalar type */
    int64_t attr[GRAPH_MAX_DIMS + 1];
    attr[0] = 1;   /* keepdim */
    for (size_t i = 0; i < k; i++)
        attr[1 + i] = rank_of(I, x) - (int64_t)k + (int64_t)i;
    Obj *xo = P0(c), *wo = P(c, "weight");
    if (dt != DT_F32) {   /* widened, rounded once at the end */
        if (w >= 0 && val_at(I, w)->dtype != dt)
            return interp_break(I, c->node, RULE_TNG203, "%s of a %s input with a %s weight (a half-type input "
                                "is supported with a weight of its dtype)", c->full, dtype_name(dt),
                                dtype_name(val_at(I, w)->dtype));
        xo = tl_cast_to(I, xo, DT_F32, c->node);
        if (w >= 0)
            wo = tl_cast_to(I, wo, DT_F32, c->node);
    }
    int32_t sq = tl_tv(I, tl_arith(I, OP_MUL, xo, xo, 1.0, c->node, c->full), c->node);
    if (sq < 0)
        return unk(I);
    Obj *m = tl_emit_x(I, OP_MEAN, sq, attr, (uint32_t)k + 1, 0, DT_UNKNOWN, c->node);
    int32_t s = tl_tv(I, tl_arith(I, OP_ADD, m, obj_float(I, eps), 1.0, c->node, c->full), c->node);
    if (s < 0)
        return unk(I);
    Obj *r = tl_arith(I, OP_MUL, xo, tl_emit_x(I, OP_RSQRT, s, NULL, 0, 0, DT_UNKNOWN, c->node), 1.0, c->node,
                      c->full);
    if (w >= 0)
        r = tl_arith(I, OP_MUL, r, wo, 1.0, c->node, c->full);
    return dt != DT_F32 && is_tensor(r) ? tl_cast_to(I, r, dt, c->node) : r;
}
