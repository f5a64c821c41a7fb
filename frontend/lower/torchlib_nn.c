/*
 * torchlib_nn.c - the torch library (torchlib.c), neural-net functions: scaled_dot_product_attention, conv, batch/group norm, pooling, interpolate, dropout.
 * Each lowering (lo_*) is under the Python signature it lowers; its lib[]
 * row is in torchlib.c; helpers shared across the library are declared
 * in torchlib_core.h and torchlib_int.h.
 */
#include "torchlib.h"
#include "torchlib_int.h"

/* ---- lowerings: neural net ---- */

/* A flag argument known at compile time (absent or None: def): 1 and *v;
 * 0 after a diagnostic. */
int tl_nn_flag(Interp *I, const Obj *o, int def, int32_t node, const char *what, int *v)
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
int tl_nn_ints(Interp *I, const Obj *o, int n, int64_t def, int32_t node, const char *what, int64_t *out)
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
            if (!tl_const_int(I, o->items[o->n == 1 ? 0 : i], node, what, &out[i]))
                return 0;
        return 1;
    }
    if (!tl_const_int(I, o, node, what, &out[0]))
        return 0;
    for (int i = 1; i < n; i++)
        out[i] = out[0];
    return 1;
}

/* F.scaled_dot_product_attention(query, key, value, attn_mask=None,
 * dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False) */
/* enable_gqa=True (PyTorch 2.5): the heads (dim -3) of kv, a key or a
 * value, repeated as repeat_interleave repeats them up to q's, which they
 * must divide: an unsqueeze after the heads, an expand to the group size
 * and a reshape, so head h of the query reads kv head h / (Hq / Hkv).
 * kv itself when the head counts agree (or a tensor has fewer than three
 * dims); -1 after a diagnostic. */
static int32_t sdpa__gqa(Interp *I, int32_t q, int32_t kv, const char *what, int32_t node)
{
    const Val *qv = val_at(I, q), *k = val_at(I, kv);
    int r = k->ndim;
    if (qv->ndim < 3 || r < 3 || r >= GRAPH_MAX_DIMS)
        return kv;
    int64_t hq, hk;
    if (!graph_dim_const_value(G(I), qv->dims[qv->ndim - 3], &hq) ||
        !graph_dim_const_value(G(I), k->dims[r - 3], &hk)) {
        interp_break(I, node, RULE_TNG203, "scaled_dot_product_attention with enable_gqa=True and a number of "
                     "heads not known at compile time");
        return -1;
    }
    if (hk == hq)
        return kv;
    if (hk <= 0 || hq % hk != 0) {
        interp_break(I, node, RULE_TNG206, "scaled_dot_product_attention with enable_gqa=True: the %lld %s heads "
                     "do not divide the query's %lld", (long long)hk, what, (long long)hq);
        return -1;
    }
    DimId grown[GRAPH_MAX_DIMS], merged[GRAPH_MAX_DIMS];
    int64_t attr[GRAPH_MAX_DIMS];
    for (int i = 0, j = 0; i < r; i++) {
        grown[j++] = k->dims[i];
        if (i == r - 3)
            grown[j++] = graph_dim_const(G(I), hq / hk);
        merged[i] = i == r - 3 ? graph_dim_const(G(I), hq) : k->dims[i];
    }
    for (int i = 0; i <= r; i++)
        attr[i] = grown[i];
    int32_t x = tl_tv(I, tl_unsqueeze_at(I, kv, r - 2, node), node);
    if (x >= 0)
        x = tl_tv(I, tl_emit_x(I, OP_EXPAND, x, attr, (uint32_t)r + 1, 0, DT_UNKNOWN, node), node);
    if (x >= 0)
        x = tl_tv(I, tl_reshape_to(I, x, merged, r, node), node);
    return x;
}

Obj *lo_sdpa(Interp *I, Call *c)
{
    const char *fn = "scaled_dot_product_attention";
    Obj *qo = P(c, "query"), *ko = P(c, "key"), *vo = P(c, "value");
    int32_t node = c->node;
    if (is_unknown(ko) || is_unknown(vo))
        return unk(I);
    if (!is_tensor(qo) || !is_tensor(ko) || !is_tensor(vo))
        return interp_break(I, node, RULE_TNG203, "%s expects tensors query, key and value", fn);
    int32_t in[4] = {tl_tv(I, qo, node), tl_tv(I, ko, node), tl_tv(I, vo, node), -1};
    if (in[0] < 0 || in[1] < 0 || in[2] < 0)
        return unk(I);
    if ((in[3] = tl_opt_tensor(I, P(c, "attn_mask"), node, "attn_mask")) < -1)
        return unk(I);
    double p, scale = 0;
    int causal, gqa;
    Obj *so = P(c, "scale");
    if (!tl_num_arg(I, P(c, "dropout_p"), 0.0, node, "dropout_p", &p) ||
        !tl_nn_flag(I, P(c, "is_causal"), 0, node, "is_causal", &causal) ||
        !tl_nn_flag(I, P(c, "enable_gqa"), 0, node, "enable_gqa", &gqa) ||
        (so && !is_none(so) && !tl_num_arg(I, so, 0.0, node, "scale", &scale)))
        return unk(I);
    if (p != 0)
        return interp_break(I, node, RULE_TNG203, "%s with dropout_p=%g (only 0: inference)", fn, p);
    if (gqa) {   /* key and value heads repeated up to the query's */
        for (int t = 1; t <= 2; t++)
            if ((in[t] = sdpa__gqa(I, in[0], in[t], t == 1 ? "key" : "value", node)) < 0)
                return unk(I);
    }
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
                                "(grouped-query attention needs enable_gqa=True)", fn,
                                t == 1 ? "key" : "value", (long long)hk, (long long)hq);
    }
    int64_t attr[2] = {causal, so && !is_none(so)};
    return tl_emit1(I, OP_SDPA, in, 4, attr, 2, scale, 0, DT_UNKNOWN, node);
}

/* CONV of values x, w, b (-1) with the Python arguments stride, padding
 * (ints, "same", "valid"), dilation, groups; ns spatial dims. */
Obj *tl_conv_of(Interp *I, int32_t x, int32_t w, int32_t b, int ns, Obj *stride, Obj *padding,
                Obj *dilation, Obj *groups, int32_t node)
{
    int64_t st[2], pad[2], dil[2], g, attr[10];
    if (!tl_nn_ints(I, stride, ns, 1, node, "stride", st) || !tl_nn_ints(I, dilation, ns, 1, node, "dilation", dil))
        return unk(I);
    g = 1;
    if (groups && !is_none(groups) && !tl_const_int(I, groups, node, "groups", &g))
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
        int32_t xb = tl_tv(I, tl_unsqueeze_at(I, x, 0, node), node);
        int32_t y = xb < 0 ? -1 : tl_tv(I, tl_conv_of(I, xb, w, b, ns, stride, padding, dilation, groups, node), node);
        if (y < 0)
            return unk(I);
        DimId d[GRAPH_MAX_DIMS];
        int n = tl_dims_of(I, y, d);
        return tl_reshape_to(I, y, d + 1, n - 1, node);
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
            int64_t total;   /* k >= 0: k - 1 fits */
            if (graph_ckd_mul(&total, dil[i], k - 1))
                return interp_break(I, node, RULE_TNG206, "padding=\"same\": dilation %lld * (kernel size %lld - 1) "
                                    "overflows 64-bit integers", (long long)dil[i], (long long)k);
            pad[i] = total / 2;
            attr[(ns == 2 ? 3 : 4) + i] = pad[i];
            attr[(ns == 2 ? 5 : 6) + i] = total - pad[i];
        }
    } else {
        if (!tl_nn_ints(I, padding, ns, 0, node, "padding", pad))
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
        int n = tl_dims_of(I, x, d);
        for (int j = 0; j < n; j++)
            fd[j] = d[j];
        fd[dim] = graph_dim_const(G(I), extra);
        int32_t cin[2] = {x, tl_tv(I, tl_full_of(I, fd, n, 0.0, val_at(I, x)->dtype, node), node)};
        if (cin[1] < 0 || (x = tl_tv(I, tl_emit1(I, OP_CAT, cin, 2, &dim, 1, 0, 0, DT_UNKNOWN, node), node)) < 0)
            return unk(I);
        attr[5 + i] = attr[3 + i];
    }
    int32_t in[3] = {x, w, b};
    return tl_emit1(I, OP_CONV, in, 3, attr, 10, 0, 0, DT_UNKNOWN, node);
}

/* F.conv1d / F.conv2d(input, weight, bias=None, stride=1, padding=0,
 * dilation=1, groups=1) */
Obj *lo_conv(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int32_t w = tl_opt_tensor(I, P(c, "weight"), c->node, "weight");
    int32_t b = tl_opt_tensor(I, P(c, "bias"), c->node, "bias");
    if (w == -1)
        return interp_break(I, c->node, RULE_TNG203, "%s without a weight", c->full);
    if (w < 0 || b < -1)
        return unk(I);
    return tl_conv_of(I, x, w, b, c->arg, P(c, "stride"), P(c, "padding"), P(c, "dilation"),
                      P(c, "groups"), c->node);
}

/* F.batch_norm(input, running_mean, running_var, weight=None, bias=None,
 * training=False, momentum=0.1, eps=1e-5): the inference form */
Obj *lo_batch_norm(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    int training;
    double eps;
    if (x < 0)
        return unk(I);
    int32_t in[5] = {x, tl_opt_tensor(I, P(c, "running_mean"), c->node, "running_mean"),
                     tl_opt_tensor(I, P(c, "running_var"), c->node, "running_var"),
                     tl_opt_tensor(I, P(c, "weight"), c->node, "weight"),
                     tl_opt_tensor(I, P(c, "bias"), c->node, "bias")};
    if (in[1] < -1 || in[2] < -1 || in[3] < -1 || in[4] < -1 ||
        !tl_nn_flag(I, P(c, "training"), 0, c->node, "training", &training) ||
        !tl_num_arg(I, P(c, "eps"), 1e-5, c->node, "eps", &eps))
        return unk(I);
    if (training)
        return interp_break(I, c->node, RULE_TNG203, "batch_norm with training=True (batch statistics; "
                            "only inference is compiled)");
    if (in[1] < 0 || in[2] < 0)
        return interp_break(I, c->node, RULE_TNG203, "batch_norm without running_mean and running_var");
    return tl_emit1(I, OP_BATCH_NORM, in, 5, NULL, 0, eps, 0, DT_UNKNOWN, c->node);
}

/* F.group_norm(input, num_groups, weight=None, bias=None, eps=1e-5) */
Obj *lo_group_norm(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    int64_t g;
    double eps;
    if (x < 0 || !tl_const_int(I, P(c, "num_groups"), c->node, "num_groups", &g))
        return unk(I);
    int32_t in[3] = {x, tl_opt_tensor(I, P(c, "weight"), c->node, "weight"),
                     tl_opt_tensor(I, P(c, "bias"), c->node, "bias")};
    if (in[1] < -1 || in[2] < -1 || !tl_num_arg(I, P(c, "eps"), 1e-5, c->node, "eps", &eps))
        return unk(I);
    return tl_emit1(I, OP_GROUP_NORM, in, 3, &g, 1, eps, 0, DT_UNKNOWN, c->node);
}

/* MAX_POOL2D or AVG_POOL2D of value x; the Python arguments as F's. */
Obj *tl_pool2d_of(Interp *I, OpKind kind, int32_t x, Obj *kernel, Obj *stride, Obj *padding,
                  Obj *dilation, Obj *ceil_mode, Obj *cip, Obj *divisor, Obj *indices, int32_t node)
{
    int64_t attr[7], dil[2];
    int ceil, inc, ret;
    const char *fn = kind == OP_MAX_POOL2D ? "max_pool2d" : "avg_pool2d";
    if (!kernel)
        return interp_break(I, node, RULE_TNG203, "%s without kernel_size", fn);
    if (is_seq(kernel) && kernel->n == 0)   /* (tl_nn_ints takes [] as the default) */
        return interp_break(I, node, RULE_TNG203, "%s: kernel_size must be an int or two", fn);
    if (!tl_nn_ints(I, kernel, 2, 1, node, "kernel_size", attr) ||
        !tl_nn_ints(I, stride, 2, 0, node, "stride", attr + 2) ||
        !tl_nn_ints(I, padding, 2, 0, node, "padding", attr + 4) ||
        !tl_nn_ints(I, dilation, 2, 1, node, "dilation", dil) ||
        !tl_nn_flag(I, ceil_mode, 0, node, "ceil_mode", &ceil) ||
        !tl_nn_flag(I, cip, 1, node, "count_include_pad", &inc) ||
        !tl_nn_flag(I, indices, 0, node, "return_indices", &ret))
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
    return tl_emit_x(I, kind, x, attr, kind == OP_AVG_POOL2D ? 7 : 6, 0, DT_UNKNOWN, node);
}

/* F.max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1,
 * ceil_mode=False, return_indices=False) | F.avg_pool2d(input, kernel_size,
 * stride=None, padding=0, ceil_mode=False, count_include_pad=True,
 * divisor_override=None) */
Obj *lo_pool2d(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    if (c->arg == OP_MAX_POOL2D)
        return tl_pool2d_of(I, OP_MAX_POOL2D, x, P(c, "kernel_size"), P(c, "stride"),
                            P(c, "padding"), P(c, "dilation"), P(c, "ceil_mode"), NULL, NULL,
                            P(c, "return_indices"), c->node);
    return tl_pool2d_of(I, OP_AVG_POOL2D, x, P(c, "kernel_size"), P(c, "stride"),
                        P(c, "padding"), NULL, P(c, "ceil_mode"), P(c, "count_include_pad"),
                        P(c, "divisor_override"), NULL, c->node);
}

/* ADAPTIVE_*_POOL2D of value x to output_size (an int, or two, None
 * keeping the input's size). */
Obj *tl_adaptive_of(Interp *I, OpKind kind, int32_t x, Obj *size, Obj *indices, int32_t node)
{
    int64_t attr[2];
    int ret;
    const Val *xv = val_at(I, x);
    if (!tl_nn_flag(I, indices, 0, node, "return_indices", &ret))
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
        } else if (!tl_const_int(I, o, node, "output_size", &attr[i])) {
            return unk(I);
        }
    }
    return tl_emit_x(I, kind, x, attr, 2, 0, DT_UNKNOWN, node);
}

/* F.adaptive_avg_pool2d(input, output_size) | F.adaptive_max_pool2d(input,
 * output_size, return_indices=False) */
Obj *lo_adaptive_pool2d(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    return tl_adaptive_of(I, (OpKind)c->arg, x, P(c, "output_size"),
                          P_if(c, "return_indices"), c->node);
}

/* UPSAMPLE_NEAREST2D or UPSAMPLE_BILINEAR2D of value x: size, scale_factor, mode, align_corners and
 * recompute_scale_factor as F.interpolate's. */
Obj *tl_interpolate_of(Interp *I, int32_t x, Obj *size, Obj *scale, Obj *mode, Obj *align,
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
    if (!tl_nn_flag(I, align, 0, node, "align_corners", &ac) ||
        !tl_nn_flag(I, recompute, 0, node, "recompute_scale_factor", &rec) ||
        !tl_nn_flag(I, antialias, 0, node, "antialias", &aa))
        return unk(I);
    if (align && !is_none(align) && attr[0] == 0)
        return interp_break(I, node, RULE_TNG203, "interpolate: align_corners with mode=\"nearest\"");
    if (aa)
        return interp_break(I, node, RULE_TNG203, "interpolate with antialias=True");
    attr[1] = ac;
    int has_size = size && !is_none(size), has_scale = scale && !is_none(scale);
    if (has_size == has_scale)
        return interp_break(I, node, RULE_TNG203, "interpolate needs exactly one of size and scale_factor");
    if (has_size && is_seq(size) && size->n == 0)   /* (tl_nn_ints takes [] as the default) */
        return interp_break(I, node, RULE_TNG203, "interpolate: size must be an int or two");
    for (int i = 0; i < 2; i++) {
        int64_t in;
        if (has_size) {
            if (!tl_nn_ints(I, size, 2, 1, node, "size", attr + 2))
                return unk(I);
            break;
        }
        if (is_seq(scale) && scale->n != 2 && scale->n != 1)
            return interp_break(I, node, RULE_TNG203, "scale_factor must be a number or two");
        Obj *o = is_seq(scale) ? scale->items[scale->n == 2 ? i : 0] : scale;
        if (!tl_num_arg(I, o, 1.0, node, "scale_factor", &f[i]))
            return unk(I);
        if (isnan(f[i]) || isinf(f[i]))
            return interp_break(I, node, RULE_TNG206, "scale_factor must be a finite number, got %g", f[i]);
        if (f[i] <= 0)
            return interp_break(I, node, RULE_TNG206, "scale_factor must be positive");
        if (!graph_dim_const_value(G(I), xv->dims[2 + i], &in))
            return interp_break(I, node, RULE_TNG205, "interpolate by scale_factor of a dynamic spatial dim");
        /* PyTorch's output size, floor(in * f) in double: converted only
         * below 2^63, where it fits */
        double out = floor((double)in * f[i]);
        if (!(out < 9223372036854775808.0))
            return interp_break(I, node, RULE_TNG206, "interpolate: the output size %lld * scale_factor %g "
                                "overflows 64-bit integers", (long long)in, f[i]);
        attr[2 + i] = (int64_t)out;
    }
    if (rec)
        f[0] = f[1] = 0;
    return tl_emit1(I, attr[0] ? OP_UPSAMPLE_BILINEAR2D : OP_UPSAMPLE_NEAREST2D, &x, 1, attr, 4, f[0], f[1],
                    DT_UNKNOWN, node);
}

/* F.interpolate(input, size=None, scale_factor=None, mode='nearest',
 * align_corners=None, recompute_scale_factor=None, antialias=False) */
Obj *lo_interpolate(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    return tl_interpolate_of(I, x, P(c, "size"), P(c, "scale_factor"), P(c, "mode"),
                             P(c, "align_corners"), P(c, "recompute_scale_factor"),
                             P(c, "antialias"), c->node);
}

/* F.dropout / dropout1d / dropout2d / dropout3d (input, p=0.5,
 * training=True, inplace=False), F.alpha_dropout / feature_alpha_dropout
 * (training=False by default) and torch.dropout / alpha_dropout /
 * feature_dropout / feature_alpha_dropout (input, p, train): the identity
 * in inference (training false, or p=0); in training mode it is random, so
 * it is refused naming the argument (TNG203), also when training is the
 * functional form's default (True, unlike nn.Dropout after .eval()). */
Obj *lo_dropout(Interp *I, Call *c)
{
    int training;
    double p;
    if (tl_x0(I, c) < 0)
        return unk(I);
    /* torch.dropout(input, p, train); F's default training is the signature's */
    const char *arg = sig_index(c->sig, "training") >= 0 ? "training" : "train";
    Obj *tr = PA(c, arg);
    if (!tl_num_arg(I, P(c, "p"), 0.5, c->node, "p", &p) || !tl_nn_flag(I, P(c, arg), 1, c->node, arg, &training))
        return unk(I);
    if (training && p != 0 && tr)
        return interp_break(I, c->node, RULE_TNG203, "%s with %s=True (random; only inference, "
                            "%s=False, is compiled)", c->full, arg, arg);
    if (training && p != 0)
        return interp_break(I, c->node, RULE_TNG203, "%s: argument '%s' defaults to True (training "
                            "mode), and with p=%g it is random; only inference is compiled: pass "
                            "%s=False (or %s=self.training with the model in eval mode)",
                            c->full, arg, p, arg, arg);
    return P0(c);
}
