/*
 * tngrt_impl_compare.h - the kernel bodies of the comparison, selection
 * and bool family: comparisons to bool, logical and bitwise
 * ops, isnan/isinf/isfinite, where, masked_fill (in place) and any/all.
 * Included at the end of tngrt_kernel_impl.h, whose helpers (loads,
 * stores, broadcast strides, half conversions) it uses; kernels_compare.c
 * instantiates the bodies as the tngrt_kernel_* functions of
 * tngrt_kernels.h. Every body reads all operands of an element before it
 * writes that element, so out may be an input of out's very shape.
 */
#ifndef TNGRT_IMPL_COMPARE_H
#define TNGRT_IMPL_COMPARE_H

/* A walk over out's elements in order (out dense) with up to 4 broadcast
 * operands: off[k] is operand k's element offset for the current one. */
typedef struct TngrtImplCmpWalk {
    int nd, nop;
    int64_t shape[TNGRT_MAX_DIMS];
    int64_t st[4][TNGRT_MAX_DIMS];
    int64_t idx[TNGRT_MAX_DIMS];
    int64_t off[4];
} TngrtImplCmpWalk;

/* Sets up the walk; NULL operands stay at offset 0. Returns out's element
 * count (0 also for an invalid rank or an operand of higher rank). */
static inline int64_t tngrt_impl__cw_init(TngrtImplCmpWalk *w, const TngrtArg *out,
                                          const TngrtArg *const *xs, int nx)
{
    if (!tngrt_impl__rank_ok(out) || nx > 4)
        return 0;
    w->nd = out->ndim;
    w->nop = nx;
    for (int d = 0; d < out->ndim; d++) {
        w->shape[d] = out->shape[d];
        w->idx[d] = 0;
    }
    for (int o = 0; o < nx; o++) {
        w->off[o] = 0;
        for (int d = 0; d < out->ndim; d++)
            w->st[o][d] = 0;
        if (!xs[o])
            continue;
        if (!tngrt_impl__rank_ok(xs[o]) || xs[o]->ndim > out->ndim)
            return 0;
        tngrt_impl__bstrides(xs[o]->ndim, xs[o]->shape, out->ndim, w->st[o]);
    }
    return tngrt_impl__numel(out->ndim, out->shape);
}

/* Steps to out's next element. */
TNGRT_KINLINE void tngrt_impl__cw_step(TngrtImplCmpWalk *w)
{
    for (int d = w->nd - 1; d >= 0; d--) {
        for (int o = 0; o < w->nop; o++)
            w->off[o] += w->st[o][d];
        if (++w->idx[d] < w->shape[d])
            return;
        for (int o = 0; o < w->nop; o++)
            w->off[o] -= w->st[o][d] * w->shape[d];
        w->idx[d] = 0;
    }
}

/* bool 0, integers 1, floats 2 (torch's promotion categories). */
TNGRT_KINLINE int tngrt_impl__cat(TngrtDType t)
{
    return t == TNGRT_BOOL ? 0 : tngrt_impl__is_float(t) ? 2 : 1;
}

/* torch.promote_types(a, b) on the dtypes libtngcrt has. */
TNGRT_KINLINE TngrtDType tngrt_impl__promote(TngrtDType a, TngrtDType b)
{
    int ca = tngrt_impl__cat(a), cb = tngrt_impl__cat(b);
    if (a == b)
        return a;
    if (ca != cb)
        return ca > cb ? a : b;
    if (ca == 2)
        return TNGRT_F32;   /* f16 with bf16, or either with f32 */
    return tngrt_impl__esize(a) >= tngrt_impl__esize(b) ? a : b;
}

/* The dtype a comparison converts its operands to: torch.result_type(a, b)
 * (a 0-d tensor only counts when its category is higher), or with b NULL,
 * that of a with a Python scalar (int or float). */
TNGRT_KINLINE TngrtDType tngrt_impl__cmp_type(const TngrtArg *a, const TngrtArg *b, int s_is_int)
{
    if (!b) {
        if (tngrt_impl__is_float(a->dtype))
            return a->dtype;
        if (!s_is_int)
            return TNGRT_F32;
        return a->dtype == TNGRT_BOOL ? TNGRT_I64 : a->dtype;
    }
    if ((a->ndim == 0) == (b->ndim == 0))
        return tngrt_impl__promote(a->dtype, b->dtype);
    const TngrtArg *dimmed = a->ndim ? a : b, *zero = a->ndim ? b : a;
    if (tngrt_impl__cat(zero->dtype) > tngrt_impl__cat(dimmed->dtype))
        return zero->dtype;
    return dimmed->dtype;
}

/* Float v rounded to float dtype ct (a no-op for float32). */
TNGRT_KINLINE float tngrt_impl__round_to(TngrtDType ct, float v)
{
    if (ct == TNGRT_F16)
        return tngrt_impl__f16_to_f32(tngrt_impl__f32_to_f16(v));
    if (ct == TNGRT_BF16)
        return tngrt_impl__bf16_to_f32(tngrt_impl__f32_to_bf16(v));
    return v;
}

/* Integer v wrapped to integer dtype ct. */
TNGRT_KINLINE int64_t tngrt_impl__wrap_to(TngrtDType ct, int64_t v)
{
    switch (ct) {
    case TNGRT_I8: return tngrt_impl__low(v, 8);
    case TNGRT_I32: return tngrt_impl__low(v, 32);
    case TNGRT_BOOL: return v != 0;
    default: return v;
    }
}

/* c = -1, 0, 1 or 2 (unordered: a NaN) as the result of op. */
TNGRT_KINLINE int tngrt_impl__cmp_res(TngrtCmpOp op, int c)
{
    switch (op) {
    case TNGRT_CMP_EQ: return c == 0;
    case TNGRT_CMP_NE: return c != 0;
    case TNGRT_CMP_LT: return c == -1;
    case TNGRT_CMP_LE: return c == -1 || c == 0;
    case TNGRT_CMP_GT: return c == 1;
    case TNGRT_CMP_GE: return c == 1 || c == 0;
    default: return 0;
    }
}

TNGRT_KINLINE void tngrt_impl_compare(const TngrtArg *out, const TngrtArg *a, const TngrtArg *b,
                                      double s, int s_is_int, TngrtCmpOp op)
{
    TngrtImplCmpWalk w;
    const TngrtArg *xs[2] = {a, b};
    int64_t n = tngrt_impl__cw_init(&w, out, xs, 2);
    TngrtDType ct = tngrt_impl__cmp_type(a, b, s_is_int);
    int fl = tngrt_impl__is_float(ct);
    float sf = tngrt_impl__round_to(ct, (float)s);
    int64_t si = tngrt_impl__wrap_to(ct, tngrt_impl__f2i(s));
    uint8_t *o = (uint8_t *)out->data;
    if (out->dtype != TNGRT_BOOL)
        return;
    for (int64_t i = 0; i < n; i++, tngrt_impl__cw_step(&w)) {
        int c;
        if (fl) {
            float x = tngrt_impl__round_to(ct, tngrt_impl__ldf(a, w.off[0]));
            float y = b ? tngrt_impl__round_to(ct, tngrt_impl__ldf(b, w.off[1])) : sf;
            c = x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
        } else {
            int64_t x = tngrt_impl__wrap_to(ct, tngrt_impl__ldi(a, w.off[0]));
            int64_t y = b ? tngrt_impl__wrap_to(ct, tngrt_impl__ldi(b, w.off[1])) : si;
            c = x < y ? -1 : x > y;
        }
        o[i] = (uint8_t)tngrt_impl__cmp_res(op, c);
    }
}

/* Element off of a as a truth value (x != 0; NaN is true). */
TNGRT_KINLINE int tngrt_impl__truth(const TngrtArg *a, int64_t off)
{
    if (tngrt_impl__is_float(a->dtype)) {
        float v = tngrt_impl__ldf(a, off);
        return v != 0.0f;
    }
    return tngrt_impl__ldi(a, off) != 0;
}

TNGRT_KINLINE void tngrt_impl_logic(const TngrtArg *out, const TngrtArg *a, const TngrtArg *b,
                                    TngrtLogicOp op)
{
    TngrtImplCmpWalk w;
    const TngrtArg *xs[2] = {a, b};
    int64_t n = tngrt_impl__cw_init(&w, out, xs, 2);
    for (int64_t i = 0; i < n; i++, tngrt_impl__cw_step(&w)) {
        int64_t r = 0;
        switch (op) {
        case TNGRT_LOGIC_AND:
            r = tngrt_impl__truth(a, w.off[0]) && b && tngrt_impl__truth(b, w.off[1]);
            break;
        case TNGRT_LOGIC_OR:
            r = tngrt_impl__truth(a, w.off[0]) || (b && tngrt_impl__truth(b, w.off[1]));
            break;
        case TNGRT_LOGIC_XOR:
            r = tngrt_impl__truth(a, w.off[0]) != (b && tngrt_impl__truth(b, w.off[1]));
            break;
        case TNGRT_LOGIC_NOT:
            r = !tngrt_impl__truth(a, w.off[0]);
            break;
        case TNGRT_BIT_AND:
            r = tngrt_impl__wrap((uint64_t)tngrt_impl__ldi(a, w.off[0]) &
                                 (uint64_t)(b ? tngrt_impl__ldi(b, w.off[1]) : 0));
            break;
        case TNGRT_BIT_OR:
            r = tngrt_impl__wrap((uint64_t)tngrt_impl__ldi(a, w.off[0]) |
                                 (uint64_t)(b ? tngrt_impl__ldi(b, w.off[1]) : 0));
            break;
        case TNGRT_BIT_XOR:
            r = tngrt_impl__wrap((uint64_t)tngrt_impl__ldi(a, w.off[0]) ^
                                 (uint64_t)(b ? tngrt_impl__ldi(b, w.off[1]) : 0));
            break;
        case TNGRT_BIT_NOT:
            if (out->dtype == TNGRT_BOOL)
                r = !tngrt_impl__ldi(a, w.off[0]);
            else
                r = tngrt_impl__wrap(~(uint64_t)tngrt_impl__ldi(a, w.off[0]));
            break;
        }
        tngrt_impl__sti(out, i, r);
    }
}

TNGRT_KINLINE void tngrt_impl_fpclass(const TngrtArg *out, const TngrtArg *x, TngrtFpClass op)
{
    int64_t n;
    if (!tngrt_impl__rank_ok(out) || out->dtype != TNGRT_BOOL)
        return;
    n = tngrt_impl__numel(out->ndim, out->shape);
    for (int64_t i = 0; i < n; i++) {
        int nan = 0, inf = 0;
        if (tngrt_impl__is_float(x->dtype)) {
            float v = tngrt_impl__ldf(x, i);
            nan = v != v;
            inf = v > 3.40282346638528859812e38f || v < -3.40282346638528859812e38f;
        }
        ((uint8_t *)out->data)[i] = (uint8_t)(op == TNGRT_FP_ISNAN ? nan : op == TNGRT_FP_ISINF ? inf
                                              : !nan && !inf);
    }
}

TNGRT_KINLINE void tngrt_impl_where(const TngrtArg *out, const TngrtArg *cond, const TngrtArg *a,
                                    const TngrtArg *b)
{
    TngrtImplCmpWalk w;
    const TngrtArg *xs[3] = {cond, a, b};
    int64_t n = tngrt_impl__cw_init(&w, out, xs, 3);
    int fl = tngrt_impl__is_float(out->dtype);
    for (int64_t i = 0; i < n; i++, tngrt_impl__cw_step(&w)) {
        int t = tngrt_impl__truth(cond, w.off[0]);
        const TngrtArg *src = t ? a : b;
        int64_t so = t ? w.off[1] : w.off[2];
        if (fl)
            tngrt_impl__stf(out, i, tngrt_impl__ldf(src, so));
        else
            tngrt_impl__sti(out, i, tngrt_impl__ldi(src, so));
    }
}

TNGRT_KINLINE void tngrt_impl_masked_fill(const TngrtArg *out, const TngrtArg *mask, double v)
{
    TngrtImplCmpWalk w;
    const TngrtArg *xs[1] = {mask};
    int64_t n = tngrt_impl__cw_init(&w, out, xs, 1);
    int fl = tngrt_impl__is_float(out->dtype);
    float vf = (float)v;
    int64_t vi = tngrt_impl__f2i(v);
    for (int64_t i = 0; i < n; i++, tngrt_impl__cw_step(&w)) {
        if (!tngrt_impl__truth(mask, w.off[0]))
            continue;
        if (fl)
            tngrt_impl__stf(out, i, vf);
        else if (out->dtype == TNGRT_BOOL)
            tngrt_impl__sti(out, i, v != 0.0);
        else
            tngrt_impl__sti(out, i, vi);
    }
}

TNGRT_KINLINE void tngrt_impl_any_all(const TngrtArg *out, const TngrtArg *x, uint32_t dims_mask,
                                      int all)
{
    /* out's element of each x element: x's strides with the reduced dims
     * at stride 0 (out's layout is the same with or without keepdim) */
    int64_t kept[TNGRT_MAX_DIMS], st[TNGRT_MAX_DIMS], idx[TNGRT_MAX_DIMS], n, no, o = 0;
    if (!tngrt_impl__rank_ok(out) || !tngrt_impl__rank_ok(x) || out->dtype != TNGRT_BOOL)
        return;
    for (int d = 0; d < x->ndim; d++) {
        kept[d] = (dims_mask >> d) & 1u ? 1 : x->shape[d];
        idx[d] = 0;
    }
    tngrt_impl__bstrides(x->ndim, kept, x->ndim, st);
    no = tngrt_impl__numel(out->ndim, out->shape);
    for (int64_t i = 0; i < no; i++)
        ((uint8_t *)out->data)[i] = (uint8_t)(all != 0);
    n = tngrt_impl__numel(x->ndim, x->shape);
    for (int64_t i = 0; i < n; i++) {
        int t = tngrt_impl__truth(x, i);
        uint8_t *p = (uint8_t *)out->data + o;
        if (all ? !t : t)
            *p = (uint8_t)(all == 0);
        for (int d = x->ndim - 1; d >= 0; d--) {
            o += st[d];
            if (++idx[d] < x->shape[d])
                break;
            o -= st[d] * x->shape[d];
            idx[d] = 0;
        }
    }
}

#endif
