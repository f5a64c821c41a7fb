/*
 * torchlib_npu.c - the torch library (torchlib.c), torch_npu fused operators: add_rms_norm, rotary embeddings, prefetch, dynamic quant, MoE gating, fused attention, scatter_update, grouped_matmul.
 * Each lowering (lo_*) is under the Python signature it lowers; its lib[]
 * row is in torchlib.c; helpers shared across the library are declared
 * in torchlib_core.h and torchlib_int.h.
 */
#include "torchlib.h"
#include "torchlib_int.h"

/* ---- lowerings: torch_npu fused ops ---- */

/* A required tensor argument of a torch_npu op: its value, or -1 after a
 * diagnostic naming it (silent when it is unknown). */
static int32_t npu_tensor_arg(Interp *I, const Call *c, const char *name)
{
    Obj *o = P(c, name);
    int32_t v = is_tensor(o) ? tl_tv(I, o, c->node) : -1;
    if (v < 0 && !obj_has_unknown(o))
        interp_break(I, c->node, RULE_TNG203, "%s expects a tensor %s", c->full, name);
    return v;
}

/* The keywords a row's signature leaves to its lowering ('**'): torch_npu
 * arguments tngc does not compile (quantisation, padding, shared prefix,
 * ...), accepted only as None (or, empty_ok, an empty list). 0 after
 * TNG203 naming the first other one. */
static int npu_extra_kw_none(Interp *I, const Call *c, int empty_ok)
{
    for (size_t i = 0; i < c->a->nkw; i++)
        if (sig_index(c->sig, c->a->kwnames[i]) < 0 && !is_none(c->a->kw[i]) &&
            !(empty_ok && is_seq(c->a->kw[i]) && c->a->kw[i]->n == 0))
            return interp_break(I, c->node, RULE_TNG203, "%s: the argument %s is not supported", c->full,
                                c->a->kwnames[i]), 0;
    return 1;
}

/* The outputs 0..n-1 of op as a tuple. */
static Obj *npu_outs(Interp *I, int32_t op, int n)
{
    if (op < 0)
        return obj_unknown_reported(I);   /* interp_op reported */
    Obj *items[3];
    for (int k = 0; k < n; k++)
        items[k] = tl_op_out(I, op, k);
    return obj_tuple(I, items, (size_t)n);
}

/* torch_npu.npu_add_rms_norm(x1, x2, gamma, epsilon=1e-6) -> (y, rstd, x) */
Obj *lo_add_rms_norm(Interp *I, Call *c)
{
    int32_t in[3] = {tl_x0(I, c), -1, -1};
    if (in[0] < 0 || (in[1] = npu_tensor_arg(I, c, "x2")) < 0 ||
        (in[2] = npu_tensor_arg(I, c, "gamma")) < 0)
        return unk(I);
    Obj *eps = P(c, "epsilon");
    double e;
    if (!tl_known(I, eps, c->node, "epsilon"))
        return unk(I);
    if (eps && !is_none(eps) && !obj_num_value(eps, &e))
        return interp_break(I, c->node, RULE_TNG203, "npu_add_rms_norm: epsilon must be a number");
    return npu_outs(I, tl_emit(I, OP_ADD_RMS_NORM, in, 3, NULL, 0, tl_float_arg(eps, 1e-6), 0,
                               DT_UNKNOWN, c->node), 3);
}

/* A rotary mode argument: "half" (0, also when absent) or "interleave" (1);
 * 0 after TNG203 naming `name` for anything else. */
static int rotary_mode_arg(Interp *I, const Call *c, Obj *o, const char *name, int64_t *mode)
{
    *mode = 0;
    if (!o || is_none(o))
        return 1;
    if (!tl_known(I, o, c->node, name))
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
Obj *lo_rotary_mul(Interp *I, Call *c)
{
    int32_t in[3] = {tl_x0(I, c), -1, -1};
    int64_t mode;
    if (in[0] < 0 || (in[1] = npu_tensor_arg(I, c, "r1")) < 0 ||
        (in[2] = npu_tensor_arg(I, c, "r2")) < 0 ||
        !rotary_mode_arg(I, c, P(c, "rotary_mode"), "rotary_mode", &mode))
        return unk(I);
    return tl_emit1(I, OP_ROTARY_MUL, in, 3, &mode, 1, 0, 0, DT_UNKNOWN, c->node);
}

/* torch_npu.npu_interleave_rope(x, cos, sin): x's last dim de-interleaved
 * (even elements, then odd ones), then rotated as rotary_mul's half mode */
Obj *lo_interleave_rope(Interp *I, Call *c)
{
    int32_t in[3] = {tl_x0(I, c), -1, -1};
    int64_t mode = 3;
    if (in[0] < 0 || (in[1] = npu_tensor_arg(I, c, "cos")) < 0 || (in[2] = npu_tensor_arg(I, c, "sin")) < 0)
        return unk(I);
    return tl_emit1(I, OP_ROTARY_MUL, in, 3, &mode, 1, 0, 0, DT_UNKNOWN, c->node);
}

/* torch_npu.npu_apply_rotary_pos_emb(query, key, cos, sin, layout='BSH',
 * rotary_mode='half') -> (query, key): both rotated in place (as
 * rotary_mul with r1 = cos, r2 = sin; an input's storage is written like
 * copy_), and returned. layout only says how cos and sin line up with the
 * heads (they broadcast the same in every layout): BSH/BSND (1), SBH
 * (2), BNSD (3), TND (4). */
Obj *lo_apply_rotary_pos_emb(Interp *I, Call *c)
{
    Obj *q = P(c, "query"), *k = P(c, "key");
    int32_t qv = is_tensor(q) ? tl_tv(I, q, c->node) : -1, kv = -1, cs = -1, sn = -1;
    if (qv < 0) {
        if (!obj_has_unknown(q))
            interp_break(I, c->node, RULE_TNG203, "%s expects a tensor query", c->full);
        return unk(I);
    }
    if ((kv = npu_tensor_arg(I, c, "key")) < 0 || (cs = npu_tensor_arg(I, c, "cos")) < 0 ||
        (sn = npu_tensor_arg(I, c, "sin")) < 0)
        return unk(I);
    Obj *lay = P(c, "layout");
    if (!tl_known(I, lay, c->node, "layout"))
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
    if (!rotary_mode_arg(I, c, P(c, "rotary_mode"), "rotary_mode", &mode))
        return unk(I);
    int32_t inq[3] = {qv, cs, sn}, ink[3] = {kv, cs, sn};
    Obj *rq = tl_emit1(I, OP_ROTARY_MUL, inq, 3, &mode, 1, 0, 0, DT_UNKNOWN, c->node);
    Obj *rk = tl_emit1(I, OP_ROTARY_MUL, ink, 3, &mode, 1, 0, 0, DT_UNKNOWN, c->node);
    if (!is_tensor(rq) || !is_tensor(rk))
        return unk(I);
    Obj *items[2] = {tl_augassign(I, q, rq, c->node), NULL};
    if (!is_tensor(items[0]))
        return unk(I);
    items[1] = tl_augassign(I, k, rk, c->node);
    if (!is_tensor(items[1]))
        return unk(I);
    return obj_tuple(I, items, 2);
}

/* torch_npu.npu_prefetch(input, dependency, max_size, offset=0): a hint
 * that the NPU may start loading input's bytes into its L2 cache; it
 * computes nothing, so it adds no op (the CPU has nothing to prefetch, and
 * the ACL bundles leave the caching to CANN). The arguments are checked as
 * torch_npu documents them. Returns None. */
Obj *lo_prefetch(Interp *I, Call *c)
{
    if (tl_x0(I, c) < 0)
        return unk(I);
    Obj *dep = P(c, "dependency");
    if (dep && !is_none(dep) && !is_tensor(dep)) {
        if (!obj_has_unknown(dep))
            interp_break(I, c->node, RULE_TNG203, "%s: dependency must be a tensor or None", c->full);
        return unk(I);
    }
    int64_t max_size, off = 0;
    Obj *ms = P(c, "max_size"), *of = P(c, "offset");
    if (!ms)
        return interp_break(I, c->node, RULE_TNG203, "%s without max_size", c->full);
    if (!tl_const_int(I, ms, c->node, "max_size", &max_size) ||
        (of && !tl_const_int(I, of, c->node, "offset", &off)))
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
Obj *lo_dynamic_quant(Interp *I, Call *c)
{
    int32_t in[2] = {tl_x0(I, c), -1};
    if (in[0] < 0 || (in[1] = tl_opt_tensor(I, P(c, "smooth_scales"), c->node, "smooth_scales")) < -1)
        return unk(I);
    Obj *gi = P(c, "group_index"), *dt = P(c, "dst_type");
    if (gi && !is_none(gi))
        return interp_break(I, c->node, RULE_TNG203, "%s: group_index (MoE smooth-scale groups) is not "
                            "supported", c->full);
    if (!tl_known(I, dt, c->node, "dst_type"))
        return unk(I);
    if (dt && !is_none(dt) && tl_dtype_of_obj(dt) != DT_I8)
        return interp_break(I, c->node, RULE_TNG203, "%s: dst_type must be torch.int8 (int4 output "
                            "is not supported)", c->full);
    return npu_outs(I, tl_emit(I, OP_DYNAMIC_QUANT, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, c->node), 2);
}

/* torch_npu.npu_moe_gating_top_k_softmax(x, finished=None, k=1) ->
 * (y, expert_idx, row_idx) */
Obj *lo_moe_gating_top_k_softmax(Interp *I, Call *c)
{
    int32_t in[2] = {tl_x0(I, c), -1};
    if (in[0] < 0 || (in[1] = tl_opt_tensor(I, P(c, "finished"), c->node, "finished")) < -1)
        return unk(I);
    int64_t k = 1;
    Obj *ko = P(c, "k");
    if (ko && !tl_const_int(I, ko, c->node, "k", &k))
        return unk(I);
    if (k < 1 || k > 1024)
        return interp_break(I, c->node, RULE_TNG203, "%s: k must be in [1, 1024], got %lld", c->full,
                            (long long)k);
    return npu_outs(I, tl_emit(I, OP_MOE_GATING_TOP_K_SOFTMAX, in, 2, &k, 1, 0, 0, DT_UNKNOWN, c->node), 3);
}

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
    if (!tl_known(I, o, c->node, name))
        return 0;
    if (is_tensor(o))
        return (*in = tl_tv(I, o, c->node)) >= 0;
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

/* An int keyword argument of an attention: the argument or the
 * signature's default; def when the row's signature has no such
 * parameter or it is None. */
static int attn_int(Interp *I, const Call *c, const char *name, int64_t def, int64_t *v)
{
    Obj *o = P_if(c, name);
    *v = def;
    return !o || is_none(o) || tl_const_int(I, o, c->node, name, v);
}

/* key/value: a tensor, or a list of one tensor (torch_npu's TensorList). */
static int32_t attn_kv(Interp *I, const Call *c, const char *name)
{
    Obj *o = P(c, name);
    if (o && is_seq(o) && o->n == 1)
        o = o->items[0];
    else if (o && is_seq(o))
        return interp_break(I, c->node, RULE_TNG203, "%s: %s as a list of %zu tensors (one is "
                            "supported)", c->full, name, o->n), -1;
    int32_t v = is_tensor(o) ? tl_tv(I, o, c->node) : -1;
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
Obj *lo_moe_gating_top_k(Interp *I, Call *c)
{
    static const char *const ints[] = {"k", "k_group", "group_count", "group_select_mode", "norm_type",
                                       "out_flag", "renorm"};
    static const char *const floats[] = {"routed_scaling_factor", "eps"};
    int32_t in[2] = {tl_x0(I, c), -1};
    if (in[0] < 0 || (in[1] = tl_opt_tensor(I, P(c, "bias"), c->node, "bias")) < -1)
        return unk(I);
    int64_t attr[7];
    for (size_t j = 0; j < NELEM(ints); j++) {
        Obj *o = P(c, ints[j]);
        attr[j] = 0;
        if (o && !is_none(o) && !tl_const_int(I, o, c->node, ints[j], &attr[j]))
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
        Obj *o = P(c, floats[j]);
        if (!tl_known(I, o, c->node, floats[j]))
            return unk(I);
        if (o && !is_none(o) && !obj_num_value(o, &f[j]))
            return interp_break(I, c->node, RULE_TNG203, "%s: %s must be a number", c->full, floats[j]);
    }
    return npu_outs(I, tl_emit(I, OP_MOE_GATING_TOP_K, in, 2, attr, 6, f[0], f[1], DT_UNKNOWN, c->node), 3);
}

/* The cumulative lengths of a TND attention (a list of ints, each >= the
 * one before) into end[0..*nb); 0 after a diagnostic. */
static int attn_tnd_ends(Interp *I, const Call *c, Obj *o, const char *name, int64_t *end, int *nb)
{
    if (!o || is_none(o) || is_tensor(o) || !is_seq(o) || o->n == 0 || o->n > 256)
        return interp_break(I, c->node, RULE_TNG203, "%s: input_layout 'TND' needs %s as a list of 1 to 256 "
                            "cumulative lengths", c->full, name), 0;
    if (!tl_known(I, o, c->node, name))
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
    int32_t r = tl_tv(I, tl_slice_of(I, x, 0, from, to, 1, node), node);
    if (r < 0)
        return -1;
    DimId d[4] = {graph_dim_const(G(I), 1), graph_dim_const(G(I), to - from), val_at(I, x)->dims[1],
                  val_at(I, x)->dims[2]};
    return tl_tv(I, tl_reshape_to(I, r, d, 4, node), node);
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
        int32_t op = tl_emit(I, OP_FUSED_ATTENTION, bin, 7, battr, 12, scale, 0, DT_UNKNOWN, c->node);
        if (op < 0)
            return obj_unknown_reported(I);
        const Op *o = &G(I)->ops.v[op];
        int32_t y = o->out, l = o->out + 1;
        DimId n = val_at(I, in[0])->dims[1], len = graph_dim_const(G(I), eq[b] - q0);
        DimId od[3] = {len, n, val_at(I, in[0])->dims[2]};
        if ((outs[k] = tl_tv(I, tl_reshape_to(I, y, od, 3, c->node), c->node)) < 0)
            return unk(I);
        if (first_lse < 0)
            first_lse = l;
        if (attr[6]) {   /* [1, N, len, 1] -> [len, N, 1] */
            int64_t perm[4] = {0, 2, 1, 3};
            DimId ld[3] = {len, n, graph_dim_const(G(I), 1)};
            int32_t p = tl_tv(I, tl_permute_of(I, NULL, l, perm, 4, c->node), c->node);
            if (p < 0 || (lses[k] = tl_tv(I, tl_reshape_to(I, p, ld, 3, c->node), c->node)) < 0)
                return unk(I);
        }
        k++;
    }
    if (k == 0)
        return interp_break(I, c->node, RULE_TNG203, "%s: every batch of the TND attention is empty", c->full);
    int64_t dim0 = 0;
    Obj *items[2];
    items[0] = k == 1 ? obj_tensor(I, outs[0]) : tl_emit1(I, OP_CAT, outs, (uint32_t)k, &dim0, 1, 0, 0, DT_UNKNOWN, c->node);
    items[1] = !attr[6] ? obj_tensor(I, first_lse)
               : k == 1 ? obj_tensor(I, lses[0]) : tl_emit1(I, OP_CAT, lses, (uint32_t)k, &dim0, 1, 0, 0, DT_UNKNOWN, c->node);
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
Obj *lo_attention(Interp *I, Call *c)
{
    int which = c->arg;
    if (!npu_extra_kw_none(I, c, 0))
        return unk(I);
    int32_t in[7] = {-1, -1, -1, -1, -1, -1, -1};
    int64_t attr[12] = {0};
    Obj *q = P(c, "query");
    in[0] = is_tensor(q) ? tl_tv(I, q, c->node) : -1;
    if (in[0] < 0) {
        if (!obj_has_unknown(q))
            interp_break(I, c->node, RULE_TNG203, "%s expects a tensor query", c->full);
        return unk(I);
    }
    if ((in[1] = attn_kv(I, c, "key")) < 0 || (in[2] = attn_kv(I, c, "value")) < 0 ||
        (in[3] = tl_opt_tensor(I, P(c, "atten_mask"), c->node, "atten_mask")) < -1 ||
        (in[4] = tl_opt_tensor(I, P_if(c, "block_table"), c->node, "block_table")) < -1)
        return unk(I);
    Obj *lay = P(c, "input_layout");
    if (!tl_known(I, lay, c->node, "input_layout"))
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
    Obj *flag = P_if(c, "softmax_lse_flag");
    if (!tl_known(I, flag, c->node, "softmax_lse_flag"))
        return unk(I);
    attr[6] = which == ATTN_FIA && obj_flag(flag, 0);
    Obj *sc = P(c, which == ATTN_FIA ? "scale" : "scale_value");
    double scale = 1.0;
    if (!tl_known(I, sc, c->node, "scale"))
        return unk(I);
    if (sc && !is_none(sc) && !obj_num_value(sc, &scale))
        return interp_break(I, c->node, RULE_TNG203, "%s: the scale must be a number", c->full);
    Obj *lq = P(c, "actual_seq_lengths"), *lkv = P_if(c, "actual_seq_lengths_kv");
    if (which == ATTN_IFA) /* the incremental attention's lengths are key/value's */
        lkv = lq, lq = NULL;
    if (attr[0] == 3)
        return attn_tnd(I, c, in, attr, scale, lq, lkv);
    if (!attn_lengths(I, c, lq, which == ATTN_IFA ? "actual_seq_lengths_q" : "actual_seq_lengths", &in[5], &attr[8]) ||
        !attn_lengths(I, c, lkv, which == ATTN_IFA ? "actual_seq_lengths" : "actual_seq_lengths_kv", &in[6], &attr[10]))
        return unk(I);
    int32_t op = tl_emit(I, OP_FUSED_ATTENTION, in, 7, attr, 12, scale, 0, DT_UNKNOWN, c->node);
    if (which == ATTN_FIA)
        return npu_outs(I, op, 2);
    return tl_op_out(I, op, 0);
}

/* torch_npu.scatter_update_(data, indices, updates, axis) |
 * torch_npu.npu_scatter_nd_update_(var, indices, updates): in place on an
 * input or buffer (its storage is written, as copy_ writes it);
 * torch_npu.scatter_update / npu_scatter_nd_update: the same on a copy.
 * 2-d indices of scatter_update (which the documentation does not define)
 * are TNG203. */
Obj *lo_scatter_update(Interp *I, Call *c)
{
    int nd = c->arg & 1, inplace = (c->arg & 2) != 0;
    Obj *dst = P0(c);
    int32_t in[3] = {is_tensor(dst) ? tl_tv(I, dst, c->node) : -1, -1, -1};
    if (in[0] < 0) {
        if (!obj_has_unknown(dst))
            interp_break(I, c->node, RULE_TNG203, "%s expects a tensor %s", c->full, nd ? "var" : "data");
        return unk(I);
    }
    if ((in[1] = npu_tensor_arg(I, c, "indices")) < 0 || (in[2] = npu_tensor_arg(I, c, "updates")) < 0)
        return unk(I);
    int64_t axis = 0;
    if (!nd) {
        Obj *ax = P(c, "axis");
        if (!tl_dim_arg(I, ax, rank_of(I, in[0]), c->node, "axis", &axis))
            return unk(I);
        if (rank_of(I, in[1]) != 1)
            return interp_break(I, c->node, RULE_TNG203, "%s: indices must be 1-d (one position per row "
                                "of data's dim 0)", c->full);
    }
    if (inplace && (in[0] = views_write_begin(I, dst, c->node, c->full)) < 0)
        return unk(I);
    if (!inplace) {
        Obj *copy = tl_emit_x(I, OP_CLONE, in[0], NULL, 0, 0, DT_UNKNOWN, c->node);
        if (!is_tensor(copy) || (in[0] = tl_tv(I, copy, c->node)) < 0)
            return unk(I);
        dst = copy;
    }
    int32_t op = tl_emit(I, nd ? OP_SCATTER_ND_UPDATE : OP_SCATTER_UPDATE, in, 3, &axis, nd ? 0 : 1, 0, 0,
                         DT_UNKNOWN, c->node);
    if (op < 0)
        return obj_unknown_reported(I);   /* interp_op reported */
    if (inplace)
        return views_write_end(I, dst, G(I)->ops.v[op].out, c->node) < 0 ? obj_unknown_reported(I) : dst;
    dst->t->value = G(I)->ops.v[op].out;   /* the copy, a tensor of its own */
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
Obj *lo_grouped_matmul(Interp *I, Call *c)
{
    enum { GMAX = 128 };
    int32_t xs[GMAX], ws[GMAX], bs[GMAX];
    if (!npu_extra_kw_none(I, c, 1))
        return unk(I);
    int nx = tl_tensor_list(I, P(c, "x"), c->node, c->full, xs, GMAX);
    int nw = nx < 0 ? -1 : tl_tensor_list(I, P(c, "weight"), c->node, c->full, ws, GMAX);
    if (nx < 0 || nw < 0)
        return unk(I);
    Obj *bo = P(c, "bias");
    int nb = 0;
    if (bo && !is_none(bo) && !(is_seq(bo) && bo->n == 0) &&
        (nb = tl_tensor_list(I, bo, c->node, c->full, bs, GMAX)) < 0)
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
    if (!tl_dtype_arg(I, P(c, "output_dtype"), c->node, &odt))
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
    Obj *gl = P(c, "group_list");
    if (nx == 1 && nw > 1) {
        int64_t rows, v, at = 0;
        if (gtype != 0)
            return interp_break(I, c->node, RULE_TNG203, "%s: one x for %d weights needs group_type 0", c->full, nw);
        if (!tl_known(I, gl, c->node, "group_list"))
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
            Obj *part = tl_slice_of(I, xs[0], 0, start[i], end[i], 1, c->node);
            if (!is_tensor(part) || (xi = tl_tv(I, part, c->node)) < 0)
                return unk(I);
        }
        int32_t in3[3] = {nb ? bs[i] : -1, xi, ws[i]};
        Obj *y = nb ? tl_emit1(I, OP_ADDMM, in3, 3, NULL, 0, 1.0, 1.0, DT_UNKNOWN, c->node)
                    : tl_emit1(I, OP_MM, in3 + 1, 2, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
        if (!is_tensor(y) || (ys[i] = tl_tv(I, y, c->node)) < 0)
            return unk(I);
        items[i] = y;
    }
    if (split >= 2 && nw > 1) {
        int64_t dim0 = 0;
        items[0] = tl_emit1(I, OP_CAT, ys, (uint32_t)nw, &dim0, 1, 0, 0, DT_UNKNOWN, c->node);
        if (!is_tensor(items[0]))
            return unk(I);
        nw = 1;
    }
    return obj_seq_of(I, O_LIST, items, (size_t)nw);
}

/* ---- lowerings: torch_npu norms, quantised matmul, swiglu ---- */

/* torch_npu.npu_format_cast(input, acl_format) */
Obj *lo_format_cast(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int64_t fmt;
    if (!tl_const_int(I, P(c, "acl_format"), c->node, "the ACL format", &fmt))
        return unk(I);
    return tl_emit_x(I, OP_FORMAT_CAST, x, &fmt, 1, 0, DT_UNKNOWN, c->node);
}

/* torch_npu.npu_quant_matmul(x1, x2, scale, *, offset=None, pertoken_scale=None,
 * bias=None, output_dtype=None) */
Obj *lo_quant_matmul(Interp *I, Call *c)
{
    int32_t x1 = tl_x0(I, c);
    if (x1 < 0)
        return unk(I);
    Obj *x2 = P(c, "x2"), *scale = P(c, "scale");
    int32_t in[6] = {x1, tl_tv(I, x2, c->node), tl_tv(I, scale, c->node), -1, -1, -1};
    if (in[1] < 0 || in[2] < 0) {
        if (!obj_has_unknown(x2) && !obj_has_unknown(scale))
            interp_break(I, c->node, RULE_TNG203, "npu_quant_matmul expects tensors x1, x2 and scale");
        return unk(I);
    }
    static const char *const opt[3] = {"offset", "bias", "pertoken_scale"};
    for (int k = 0; k < 3; k++)
        if ((in[3 + k] = tl_opt_tensor(I, P(c, opt[k]), c->node, opt[k])) < -1)
            return unk(I);
    DType dt;
    if (!tl_dtype_arg(I, P(c, "output_dtype"), c->node, &dt))
        return unk(I);
    return tl_emit1(I, OP_QUANT_MATMUL, in, 6, NULL, 0, 0, 0, dt, c->node);
}

/* torch_npu.npu_weight_quant_batchmatmul(x, weight, antiquant_scale,
 * antiquant_offset=None, quant_scale=None, quant_offset=None, bias=None,
 * antiquant_group_size=0, inner_precise=0): x float16/bfloat16 [m, k] @
 * int8 weight [k, n] dequantised as (weight + antiquant_offset) *
 * antiquant_scale. The int8 output (quant_scale, quant_offset), int4
 * weights held in int32, int64 scales (npu_trans_quant_param) and
 * inner_precise other than 0 are refused. */
Obj *lo_weight_quant_batchmatmul(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    Obj *w = P(c, "weight"), *scale = P(c, "antiquant_scale");
    int32_t in[5] = {x, tl_tv(I, w, c->node), tl_tv(I, scale, c->node), -1, -1};
    if (in[1] < 0 || in[2] < 0) {
        if (!obj_has_unknown(w) && !obj_has_unknown(scale))
            interp_break(I, c->node, RULE_TNG203, "%s expects tensors x, weight and antiquant_scale", c->full);
        return unk(I);
    }
    static const char *const unsupported[2] = {"quant_scale", "quant_offset"};
    for (int k = 0; k < 2; k++) {
        int32_t q = tl_opt_tensor(I, P(c, unsupported[k]), c->node, unsupported[k]);
        if (q < -1)
            return unk(I);
        if (q >= 0)
            return interp_break(I, c->node, RULE_TNG203, "%s: %s (an int8 output) is not supported",
                                c->full, unsupported[k]);
    }
    if ((in[3] = tl_opt_tensor(I, P(c, "antiquant_offset"), c->node, "antiquant_offset")) < -1 ||
        (in[4] = tl_opt_tensor(I, P(c, "bias"), c->node, "bias")) < -1)
        return unk(I);
    DType wdt = G(I)->vals.v[in[1]].dtype, sdt = G(I)->vals.v[in[2]].dtype;
    if (wdt == DT_I32)
        return interp_break(I, c->node, RULE_TNG203, "%s: int4 weights packed in int32 are not supported",
                            c->full);
    if (sdt == DT_I64)
        return interp_break(I, c->node, RULE_TNG203, "%s: an int64 antiquant_scale "
                            "(npu_trans_quant_param) is not supported", c->full);
    int64_t group, precise;
    if (!tl_const_int(I, P(c, "antiquant_group_size"), c->node, "antiquant_group_size", &group) ||
        !tl_const_int(I, P(c, "inner_precise"), c->node, "inner_precise", &precise))
        return unk(I);
    if (precise != 0)
        return interp_break(I, c->node, RULE_TNG203, "%s: inner_precise=%lld is not supported (0 only)",
                            c->full, (long long)precise);
    return tl_emit1(I, OP_WEIGHT_QUANT_MATMUL, in, 5, &group, 1, 0, 0, DT_UNKNOWN, c->node);
}

/* torch_npu.npu_dequant_swiglu_quant(x, weight_scale=None, activation_scale=None,
 * bias=None, quant_scale=None, quant_offset=None, group_index=None,
 * activate_left=False, quant_mode=0) -> (y, scale) */
Obj *lo_dequant_swiglu_quant(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    static const char *const opt[6] = {"weight_scale", "activation_scale", "bias", "quant_scale",
                                       "quant_offset", "group_index"};
    int32_t in[7] = {x, -1, -1, -1, -1, -1, -1};
    for (int k = 0; k < 6; k++)
        if ((in[1 + k] = tl_opt_tensor(I, P(c, opt[k]), c->node, opt[k])) < -1)
            return unk(I);
    if (!tl_known(I, P(c, "activate_left"), c->node, "activate_left") ||
        !tl_known(I, P(c, "quant_mode"), c->node, "quant_mode"))
        return unk(I);
    int64_t attr[2] = {obj_flag(P(c, "activate_left"), 0), 0};
    Obj *qm = P(c, "quant_mode");
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
Obj *lo_swiglu(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int64_t d0 = -1, d;
    Obj *dim = P(c, "dim");
    if ((dim && !tl_const_int(I, dim, c->node, "the swiglu dim", &d0)) ||
        !tl_norm_dim(I, d0, rank_of(I, x), c->node, &d))
        return unk(I);
    return tl_emit_x(I, OP_SWIGLU, x, &d, 1, 0, DT_UNKNOWN, c->node);
}
