/*
 * fuse_conv.c - convolution epilogue fusion on the CPU target: a float32
 * convolution followed at once in the schedule by, in this order and each
 * optional, an inference batch norm, an add of a tensor of the output's
 * shape (a residual) and a relu, each the only reader of the one before
 * (fuse_base.c's count), becomes one tngrt_kernel_conv_epi call: the
 * convolution's direct kernel applies the steps to each output vector
 * before storing it (runtime/kernels_conv.c), so the convolution's output
 * and the intermediates are never written, and the batch norm costs no
 * pass of its own.
 *
 * The batch norm is applied after the convolution, per output channel
 * (v * a + (bias - mean * a), a = weight / sqrt(var + eps), in float, as
 * tngrt_kernel_batch_norm computes it), rather than folded into the
 * convolution's weights at load: the weights come from the weights file
 * at load, a folded copy would need load-time work the plan has no place
 * for, and w * a rounded to float then summed differs from PyTorch's
 * convolution-then-normalisation by more than a rounding per output.
 * Applied in the epilogue, the results are the separate kernels' bits on
 * the same convolution result, and the per-call cost is three floats per
 * output channel.
 *
 * The group is a fuse.c group (fuse_seq records it, fuse_emit hands it
 * here): its call runs where its last op (the sink) was, and that op's
 * buffer receives the result. Kept only where safe: every gear static, no
 * member a user or static kernel or ordered by control edges, no event
 * between the members, the weights, bias and statistics apart from the
 * sink's buffer, the residual apart from it or exactly it (the input may
 * be it: the kernel reads it before writing).
 */
#include "emit.h"

#include <string.h>

/* 1 when op_id may be a member (float32 out, plain kernel). */
static int fc__plain(const Emit *E, int32_t op_id)
{
    const Op *op = &E->g->ops.v[op_id];
    return !E->user[op->kind] && !op->nctrl && op->nout == 1 && emit_static_kernel(E, op_id) < 0 &&
           !plan_is_const(E->p, op_id) && E->g->vals.v[op->out].dtype == DT_F32;
}

/* 1 when value v (or absent, v < 0) is float32 and its storage lies
 * apart from the arena range [lo, hi) (orng: fuse_range's answer for it),
 * or, where same, is exactly that range. */
static int fc__apart(const Emit *E, int32_t v, int orng, int64_t lo, int64_t hi, int same)
{
    int64_t a = 0, b = 0;
    if (v < 0)
        return 1;
    int r = fuse_range(E, v, &a, &b);
    if (r < 0 || E->g->vals.v[v].dtype != DT_F32)
        return 0;
    return !r || !orng || b <= lo || hi <= a || (same && a == lo && b == hi);
}

/* The residual of add op applied to cur, or -1 when op is no such add
 * (a tensor operand of the output's dims od[0..nd)). */
static int32_t fc__residual(const Emit *E, const Op *op, int32_t cur, const int64_t *od, int nd)
{
    int64_t d[GRAPH_MAX_DIMS];
    if (op->kind != OP_ADD || !fuse_binop(op, 0) || fuse_scalar(op) || op->nin != 2 ||
        (op->in[0] == cur) == (op->in[1] == cur) || op->in[0] < 0 || op->in[1] < 0)
        return -1;
    int32_t x = op->in[0] == cur ? op->in[1] : op->in[0];
    if (fuse_dims(E, x, d) != nd || memcmp(d, od, (size_t)nd * sizeof *d) != 0)
        return -1;
    return x;
}

/* The step op at ops[k] adds after cur (0 batch norm, 1 add, 2 relu), or -1;
 * *res the add's residual. Steps come in that order: after is the last
 * one taken (-1: none yet). */
static int fc__step(const Emit *E, const Op *op, int32_t cur, const int64_t *od, int nd, int after,
                    int32_t *res)
{
    if (op->kind == OP_BATCH_NORM && after < 0 && op->nin >= 3 && op->in[0] == cur)
        return 0;
    if (op->kind == OP_ADD && after < 1 && (*res = fc__residual(E, op, cur, od, nd)) >= 0)
        return 1;
    if (op->kind == OP_RELU && op->nin == 1 && op->in[0] == cur)
        return 2;
    return -1;
}

/* 1 when group ops[0..n) may write its sink's buffer. */
static int fc__valid(const Emit *E, const int32_t *ops, size_t n, int32_t res)
{
    const Graph *g = E->g;
    const Op *conv = &g->ops.v[ops[0]];
    int64_t lo = 0, hi = 0;
    int orng = fuse_range(E, g->ops.v[ops[n - 1]].out, &lo, &hi);
    if (orng < 0)
        return 0;
    /* x may share the sink's storage: the kernel reads it first */
    for (uint32_t k = 1; k < conv->nin; k++)
        if (!fc__apart(E, conv->in[k], orng, lo, hi, 0))
            return 0;
    for (size_t j = 1; j < n; j++) {
        const Op *op = &g->ops.v[ops[j]];
        if (op->kind == OP_BATCH_NORM)
            for (uint32_t k = 1; k < op->nin; k++)
                if (!fc__apart(E, op->in[k], orng, lo, hi, 0))
                    return 0;
    }
    return fc__apart(E, res, orng, lo, hi, 1);
}

size_t fuse_conv_group(const Emit *E, const int32_t *ops, const uint8_t *stop, size_t n, size_t i,
                       const int32_t *at, int32_t *cand, int32_t *pos)
{
    const Graph *g = E->g;
    int64_t od[GRAPH_MAX_DIMS];
    if (!E->fuse || E->dyn || E->rtdims || ops[i] < 0 || at[i] != -1)
        return 0;
    const Op *conv = &g->ops.v[ops[i]];
    if (conv->kind != OP_CONV || !fc__plain(E, ops[i]) || conv->nin < 2 ||
        g->vals.v[conv->in[0]].dtype != DT_F32 || g->vals.v[conv->in[1]].dtype != DT_F32)
        return 0;
    int nd = fuse_dims(E, conv->out, od);
    if (nd < 3)
        return 0;
    size_t nc = 0;
    int after = -1;
    int32_t cur = conv->out, res = -1, r = -1;
    cand[nc] = ops[i];
    pos[nc++] = (int32_t)i;
    for (size_t k = i + 1; k < n && after < 2 && !stop[k - 1]; k++) {
        if (ops[k] < 0 || at[k] != -1 || !fc__plain(E, ops[k]) || fuse_uses(E, cur) != 1)
            break;
        const Op *op = &g->ops.v[ops[k]];
        int s = fc__step(E, op, cur, od, nd, after, &r);
        if (s < 0)
            break;
        if (s == 1)
            res = r;
        after = s;
        cand[nc] = ops[k];
        pos[nc++] = (int32_t)k;
        cur = op->out;
    }
    /* the longest valid prefix: a residual that overlaps the sink drops the
     * add and what follows it */
    for (size_t m = nc; m >= 2; m--) {
        int32_t mres = -1;
        for (size_t j = 1; j < m; j++)
            if (g->ops.v[cand[j]].kind == OP_ADD)
                mres = res;
        if (fc__valid(E, cand, m, mres))
            return m;
    }
    return 0;
}

int fuse_conv_is(const Emit *E, const int32_t *ops, size_t n)
{
    return n >= 2 && E->g->ops.v[ops[0]].kind == OP_CONV;
}

/* Value v (absent: v < 0) as "&(TngrtArg){...}" or "NULL". */
static void fc__arg_or_null(Emit *E, int32_t v)
{
    if (v < 0)
        sb_puts(E->o, "NULL");
    else
        fuse_arg(E, v, v);
}

void fuse_conv_emit(Emit *E, const int32_t *ops, size_t n, const char *in)
{
    const Graph *g = E->g;
    const Op *conv = &g->ops.v[ops[0]], *sink = &g->ops.v[ops[n - 1]], *bn = NULL;
    int64_t od[GRAPH_MAX_DIMS];
    int nd = fuse_dims(E, conv->out, od), relu = 0;
    int32_t res = -1, cur = conv->out;
    for (size_t j = 1; j < n; j++) {
        const Op *op = &g->ops.v[ops[j]];
        int32_t r = -1;
        int s = fc__step(E, op, cur, od, nd, -1, &r);
        bn = s == 0 ? op : bn;
        res = s == 1 ? r : res;
        relu |= s == 2;
        cur = op->out;
    }
    fuse_open(E, ops, n, in, "");
    sb_printf(E->o, "%s    if (tngrt_kernel_conv_epi(", in);
    fuse_arg(E, sink->out, conv->out);
    for (uint32_t k = 0; k < 3; k++) {
        sb_puts(E->o, ", ");
        fc__arg_or_null(E, k < conv->nin ? conv->in[k] : -1);
    }
    sb_printf(E->o, ", %d", (int)conv->attr[0]);
    for (int k = 1; k < 10; k++)
        sb_printf(E->o, ", %s", EMIT_I64(conv->attr[k]));
    sb_printf(E->o, ",\n%s        &(TngrtConvEpi){", in);
    for (uint32_t k = 1; k < 5; k++) {
        fc__arg_or_null(E, bn && k < bn->nin ? bn->in[k] : -1);
        sb_puts(E->o, ", ");
    }
    emit_double(E, bn ? bn->fattr[0] : 0.0);
    sb_puts(E->o, ", ");
    fc__arg_or_null(E, res);
    sb_printf(E->o, ", %d}, err))\n", relu);
    E->line = sink->line;
    E->line_file = sink->file;
    emit_fail_return(E);
    E->line = 0;
    E->line_file = NULL;
    sb_printf(E->o, "%s}\n", in);
    emit_line_back(E);
}
