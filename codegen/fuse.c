/*
 * fuse.c - pointwise fusion on the CPU target: elementwise ops of one
 * stream's schedule (or of one super-kernel segment), each reading the
 * one before or another member, whose intermediates nobody else reads,
 * become one generated loop over the output instead of one
 * kernel call per op. The loop runs where the group's last op (the sink)
 * was; ops that ran between the members (a matmul, a reduction) still run
 * in their places, before it.
 *
 * What fuses: float32/float16/bfloat16 add, sub (alpha 1), mul, div,
 * maximum, minimum, pow (tensor and scalar forms, broadcasting inputs of
 * static shape), the unary ops and activations of the unary kernel, casts
 * between float types. Every member's output has the group's element
 * count (its shape is the last op's, the sink, up to leading 1s): only the
 * group's external inputs broadcast. Each member computes in float32 from
 * the same expressions as tngrt_kernel_impl.h's kernels (tngrt_impl__unf,
 * the pow forms of tngrt_impl__unary_f32) and a half result is rounded per
 * op, so a fused group gives the bits of the separate kernels (FP
 * contraction is off around the loops, as in libtngcrt).
 *
 * A group is kept only where it is safe: every gear static (no run-time
 * dims or placement), no op of it a static kernel, a user kernel, or
 * ordered by control edges; no event recorded, segment or in-place op
 * between the members; no external input that the memory plan placed
 * over the sink's buffer (unless read element for element where the sink
 * writes), nor where an op between the members writes (the plan let it
 * reuse the memory of a value it thought dead). GenOptions.no_fuse (tngc gen/build --no-fuse) turns it
 * off. The stream's trace gets one slice per group, naming its ops.
 *
 * Row kernels: a hand-written float32 RMSNorm (fuse__rms) is one loop per
 * row, with the reduction kernel's own sum. Row groups (fuse__window, row set) take LayerNorm and softmax written
 * by hand (and RMSNorm in half types, and any other mix of elementwise
 * ops with mean, sum or amax over the last dim, keepdim), float32, float16
 * and bfloat16:
 * one loop over the rows, each reduction as the reduce kernel computes it,
 * each half member rounded as its kernel stores it, so these too give the
 * bits of the separate kernels (tests/conform/fuse_bits.sh runs
 * fuse_rows_*.py). F.layer_norm and F.softmax are single kernels already
 * (layer_norm, softmax) and are not grouped. `tngc plan` lists every
 * group (codegen_fused_text: the same fuse_seq, per gear).
 *
 * Cost: fuse_init (fuse_base.c) counts every value's readers once per
 * plan (O(ops + edges)), and fuse.c and fuse_gemm.c read the counts
 * (fuse_uses); from each position of a sequence a group looks at no more
 * than FUSE_WINDOW ops and FUSE_MAX_OPS members (an epilogue at
 * 1 + TNGC_GEMM_EPI_MAX), so fuse_seq is linear in the sequence's length
 * (tests/security/t_cg_scale.sh: 200k matmuls, 200k elementwise ops).
 */
#include "emit.h"

#include <string.h>

/* The most ops in a group and the most external inputs it reads. */
#define FUSE_MAX_OPS 32
#define FUSE_MAX_INS 16

static int fuse__float(DType t)
{
    return t == DT_F32 || t == DT_F16 || t == DT_BF16;
}

/* The number of tensor inputs op reads in a group. */
static uint32_t fuse__nin(const Op *op)
{
    if (fuse_unop(op, 0) || emit_fuse_row(op->kind)->how == FUSE_HOW_POW)
        return 1;
    return fuse_scalar(op) ? 1 : 2;
}

/* 1 when op can be a member of a group in E's gear. */
static int fuse__op_ok(const Emit *E, int32_t op_id)
{
    const Op *op = &E->g->ops.v[op_id];
    if (!E->fuse || E->dyn || E->rtdims || E->user[op->kind] || op->nctrl || op->nout != 1 ||
        emit_static_kernel(E, op_id) >= 0 || plan_is_const(E->p, op_id))
        return 0;
    if (!fuse_unop(op, 0) && emit_fuse_row(op->kind)->how != FUSE_HOW_POW && !fuse_binop(op, 0))
        return 0;
    uint32_t n = fuse__nin(op);
    if (op->nin < n || !fuse__float(E->g->vals.v[op->out].dtype))
        return 0;
    for (uint32_t k = 0; k < n; k++)
        if (op->in[k] < 0 || !fuse__float(E->g->vals.v[op->in[k]].dtype))
            return 0;
    int64_t dims[GRAPH_MAX_DIMS];
    return fuse_dims(E, op->out, dims) >= 0;
}

/* The index of value v among the outputs of ops[0..n), or -1. */
static int fuse__member(const Emit *E, const int32_t *ops, size_t n, int32_t v)
{
    for (size_t j = 0; j < n; j++)
        if (E->g->ops.v[ops[j]].out == v)
            return (int)j;
    return -1;
}

/* 1 when ops[0..n) is a group: all members fusable and every
 * intermediate read only inside it (both checked by the caller), every
 * member of the sink's element count, no external input that the sink's
 * writes clobber before the loop has read it, and none that an op between
 * the members (between[0..nb), run before the group's loop now)
 * overwrites. */
static int fuse__valid(const Emit *E, const int32_t *ops, size_t n, const int32_t *between,
                       size_t nb)
{
    const Graph *g = E->g;
    int64_t sd[GRAPH_MAX_DIMS], d[GRAPH_MAX_DIMS];
    int32_t sinkv = g->ops.v[ops[n - 1]].out;
    int snd = fuse_dims(E, sinkv, sd);
    int64_t total = fuse_numel(sd, snd);
    int64_t olo = 0, ohi = 0, xlo[FUSE_MAX_INS], xhi[FUSE_MAX_INS];
    int32_t xv[FUSE_MAX_INS];
    int orng = fuse_range(E, sinkv, &olo, &ohi);
    int nx = 0;
    if (orng < 0)
        return 0;
    for (size_t j = 0; j < n; j++) {
        const Op *op = &g->ops.v[ops[j]];
        int nd = fuse_dims(E, op->out, d);
        if (nd < 0 || fuse_numel(d, nd) != total || nd > snd)
            return 0;
        for (uint32_t k = 0; k < fuse__nin(op); k++) {
            int32_t x = op->in[k];
            if (fuse__member(E, ops, j, x) >= 0)
                continue;
            if (nx >= FUSE_MAX_INS)
                return 0;
            int xnd = fuse_dims(E, x, d);
            if (xnd < 0 || xnd > snd)
                return 0;
            for (int q = 0; q < xnd; q++)   /* broadcasts to the sink's shape */
                if (d[q] != 1 && d[q] != sd[snd - xnd + q])
                    return 0;
            int xr = fuse_range(E, x, &xlo[nx], &xhi[nx]);
            if (xr < 0)
                return 0;
            if (xr && orng && xlo[nx] < ohi && olo < xhi[nx] &&
                !(xlo[nx] == olo && fuse_numel(d, xnd) == total &&
                  dtype_size(g->vals.v[x].dtype) == dtype_size(g->vals.v[sinkv].dtype)))
                return 0;
            if (xr)
                xv[nx++] = x;
        }
    }
    for (size_t i = 0; i < nb; i++) {   /* what the ops in between write */
        const Op *op = &g->ops.v[between[i]];
        if (!emit_has_kernel(E, between[i]))
            continue;
        for (uint32_t k = 0; k < op->nout; k++) {
            int64_t lo = 0, hi = 0;
            int r = fuse_range(E, op->out + (int32_t)k, &lo, &hi);
            if (r < 0)
                return 0;
            for (int q = 0; r && q < nx; q++)   /* (its own output is written, not clobbered) */
                if (lo < xhi[q] && xlo[q] < hi && xv[q] != op->out + (int32_t)k)
                    return 0;
        }
    }
    return 1;
}

/* 1 when op op_id reads the output of one of ops[0..n). */
static int fuse__reads(const Emit *E, const int32_t *ops, size_t n, int32_t op_id)
{
    const Op *op = &E->g->ops.v[op_id];
    for (uint32_t k = 0; k < op->nin; k++)
        if (op->in[k] >= 0 && fuse__member(E, ops, n, op->in[k]) >= 0)
            return 1;
    return 0;
}

/* 1 when op may run between a group's members (before the group's loop
 * rather than after its earlier members): not an in-place update, nothing
 * ordered by control edges. */
static int fuse__passable(const Emit *E, int32_t op_id)
{
    const Op *op = &E->g->ops.v[op_id];
    return !(op_info[op->kind].flags & OPF_INPLACE) && !op->nctrl;
}

/* The window after position i of a sequence: how many ops a group that
 * starts at i may look at. */
#define FUSE_WINDOW 64

/* The position after `from` (within [from, end)) of the op that reads
 * value v, when it is v's only reader, or -1. */
static int fuse__reader(const Emit *E, const int32_t *ops, size_t from, size_t end, int32_t v)
{
    if (fuse_uses(E, v) != 1)
        return -1;
    for (size_t k = from; k < end; k++) {
        if (ops[k] < 0)
            return -1;
        const Op *op = &E->g->ops.v[ops[k]];
        for (uint32_t j = 0; j < op->nin; j++)
            if (op->in[j] == v)
                return (int)k;
    }
    return -1;
}

/* 1 when op is float32 with a static shape and no control edges. */
static int fuse__f32(const Emit *E, int32_t op_id)
{
    const Op *op = &E->g->ops.v[op_id];
    int64_t d[GRAPH_MAX_DIMS];
    return E->g->vals.v[op->out].dtype == DT_F32 && !op->nctrl && !E->user[op->kind] &&
           emit_static_kernel(E, op_id) < 0 && fuse_dims(E, op->out, d) >= 0;
}

/*
 * A hand-written RMSNorm from position i, float32:
 *   p = x ** 2 (or x * x, square(x)); m = p.mean(-1, keepdim=True);
 *   a = m + eps; r = rsqrt(a); y = x * r; optionally z = y * w, w of shape
 *   [D] (or [1.., D]);
 * each intermediate read only by the next. One row loop computes it with
 * the kernels' sum (tngrt_impl__sum_f32, its 8 lanes) and expressions, so
 * the bits are the separate kernels'. Fills cand[] and pos[] (5 or 6 ops)
 * and returns their count, or 0.
 */
static size_t fuse__rms(const Emit *E, const int32_t *ops, const uint8_t *stop, size_t n, size_t i,
                        const int32_t *at, int32_t *cand, int32_t *pos)
{
    const Graph *g = E->g;
    size_t end = i;
    while (end < n && end < i + FUSE_WINDOW && ops[end] >= 0 && at[end] == -1 &&
           fuse__passable(E, ops[end])) {
        if (stop[end++])
            break;
    }
    const Op *p = &g->ops.v[ops[i]];
    int sq = (p->kind == OP_POW && p->fattr[0] == 2.0) || p->kind == OP_SQUARE ||
             (p->kind == OP_MUL && !fuse_scalar(p) && p->nin == 2 && p->in[0] == p->in[1]);
    if (!sq || !fuse__f32(E, ops[i]))
        return 0;
    int32_t x = p->in[0];
    const Val *xv = &g->vals.v[x];
    if (xv->dtype != DT_F32 || xv->ndim < 1)
        return 0;
    static const OpKind chain[4] = {OP_MEAN, OP_ADD, OP_RSQRT, OP_MUL};
    size_t k = i, m = 0;
    cand[m] = ops[i];
    pos[m++] = (int32_t)i;
    for (int c = 0; c < 5; c++) {
        int r = fuse__reader(E, ops, k + 1, end, g->ops.v[cand[m - 1]].out);
        if (r < 0 || !fuse__f32(E, ops[r]))
            break;
        const Op *op = &g->ops.v[ops[r]];
        if (c < 4 && op->kind != chain[c])
            return 0;
        if (c == 4 && (op->kind != OP_MUL || fuse_scalar(op)))
            break;
        k = (size_t)r;
        cand[m] = ops[r];
        pos[m++] = r;
    }
    if (m < 5)
        return 0;
    const Op *mean = &g->ops.v[cand[1]], *add = &g->ops.v[cand[2]], *y = &g->ops.v[cand[4]];
    int last = xv->ndim - 1;
    if (mean->nattr != 2 || !mean->attr[0] || (mean->attr[1] != last && mean->attr[1] != -1) ||
        !fuse_scalar(add) || add->attr[0] != 1 || add->fattr[1] != 1.0 || y->nin != 2 ||
        fuse_scalar(y))
        return 0;
    int32_t rv = g->ops.v[cand[3]].out;
    if (!((y->in[0] == x && y->in[1] == rv) || (y->in[1] == x && y->in[0] == rv)))
        return 0;
    int64_t xd[GRAPH_MAX_DIMS], d[GRAPH_MAX_DIMS];
    int xnd = fuse_dims(E, x, xd);
    if (xnd < 1 || xd[xnd - 1] < 1 || fuse_dims(E, y->out, d) != xnd ||
        fuse_numel(d, xnd) != fuse_numel(xd, xnd))
        return 0;
    if (m == 6) {   /* * w: w of the row's length, broadcast over the rows */
        const Op *z = &g->ops.v[cand[5]];
        int32_t w = z->in[0] == y->out ? z->in[1] : z->in[0];
        int wnd = fuse_dims(E, w, d);
        int ok = z->in[0] != z->in[1] && wnd >= 1 && wnd <= xnd && g->vals.v[w].dtype == DT_F32 &&
                 d[wnd - 1] == xd[xnd - 1] && fuse_numel(d, wnd) == xd[xnd - 1];
        int zd = fuse_dims(E, z->out, d);
        if (!ok || zd != xnd || fuse_numel(d, zd) != fuse_numel(xd, xnd))
            m = 5;
    }
    /* memory: the inputs (x, w) against the output and the ops in between */
    int32_t sink = g->ops.v[cand[m - 1]].out, ins[2] = {x, -1};
    if (m == 6) {
        const Op *z = &g->ops.v[cand[5]];
        ins[1] = z->in[0] == y->out ? z->in[1] : z->in[0];
    }
    int64_t olo = 0, ohi = 0;
    int orng = fuse_range(E, sink, &olo, &ohi);
    if (orng < 0)
        return 0;
    for (int q = 0; q < 2; q++) {
        int64_t lo = 0, hi = 0;
        int r = ins[q] < 0 ? 0 : fuse_range(E, ins[q], &lo, &hi);
        if (r < 0)
            return 0;
        if (!r)
            continue;
        if (orng && lo < ohi && olo < hi && !(q == 0 && lo == olo))
            return 0;   /* (x read row by row before its row of the output is written) */
        for (size_t b = i + 1; b < (size_t)pos[m - 1]; b++) {
            int between = 1;
            for (size_t j = 0; j < m; j++)
                between &= (int32_t)b != pos[j];
            if (!between || !emit_has_kernel(E, ops[b]))
                continue;
            const Op *op = &g->ops.v[ops[b]];
            for (uint32_t o = 0; o < op->nout; o++) {
                int64_t blo = 0, bhi = 0;
                int br = fuse_range(E, op->out + (int32_t)o, &blo, &bhi);
                if (br < 0 || (br && blo < hi && lo < bhi && ins[q] != op->out + (int32_t)o))
                    return 0;
            }
        }
    }
    return m;
}

/*
 * Row groups: LayerNorm, softmax and RMSNorm written by hand in any float
 * dtype, and whatever else mixes elementwise ops with reductions along
 * the last dim. A row group is a set of ops in which
 * every value has the sink's shape [.., D] (a "full" value) or its shape
 * with the last dim 1 (a "row" value): elementwise ops of the pointwise
 * groups, and mean/sum/amax over the last dim with keepdim (full in, row
 * out; also max(-1, keepdim=True)'s values when its indices are unread).
 * External inputs broadcast to the sink's shape. One loop over the rows
 * computes it: per row, each run of full members in one loop over the row
 * (a row buffer of D floats for each one read after the run; the sink
 * into the output), each row member as one float,
 * each reduction as the reduce kernel does it (tngrt_impl__sum_f32 for a
 * float32 input, one running sum in float otherwise, the kernel's NaN-
 * sticking max), a half member rounded to its dtype as its kernel's store
 * would. So a row group gives the bits of the separate kernels
 * (tests/conform/fuse_bits.sh checks it).
 */

/* The most floats of row buffers a row group keeps on the stack. */
#define FUSE_ROW_FLOATS 8192

/* 1 when op is a reduction a row group can compute: mean, sum or amax of
 * a float tensor over its last dim only, keepdim. */
static int fuse__row_reduce(const Emit *E, const Op *op)
{
    if (op->kind != OP_MEAN && op->kind != OP_SUM && op->kind != OP_AMAX && op->kind != OP_MAX_DIM)
        return 0;
    if (op->nin != 1 || op->in[0] < 0)
        return 0;
    const Val *x = &E->g->vals.v[op->in[0]];
    if (!fuse__float(x->dtype) || x->ndim < 1 || op->nattr != 2)
        return 0;
    if (op->kind == OP_MAX_DIM)   /* max(-1, keepdim=True)[0]: amax's values, no index read */
        return op->nout == 2 && E->fuse &&
               fuse_uses(E, op->out + 1) == 0 && op->attr[1] == 1 &&
               (op->attr[0] == x->ndim - 1 || op->attr[0] == -1);
    return op->attr[0] == 1 && (op->attr[1] == x->ndim - 1 || op->attr[1] == -1);
}

/* 1 when op can be a member of a row group in E's gear. */
static int fuse__row_op_ok(const Emit *E, int32_t op_id)
{
    const Op *op = &E->g->ops.v[op_id];
    if (fuse__op_ok(E, op_id))
        return 1;
    if (!E->fuse || E->dyn || E->rtdims || E->user[op->kind] || op->nctrl ||
        op->nout != (op->kind == OP_MAX_DIM ? 2u : 1u) ||
        emit_static_kernel(E, op_id) >= 0 || plan_is_const(E->p, op_id) ||
        !fuse__row_reduce(E, op) || !fuse__float(E->g->vals.v[op->out].dtype))
        return 0;
    int64_t dims[GRAPH_MAX_DIMS];
    return fuse_dims(E, op->out, dims) >= 0 && fuse_dims(E, op->in[0], dims) >= 0;
}

/* Value v against the sink's dims sd[0..snd): 2 when it has them (up to
 * leading 1s), 1 when it has them with the last dim 1, 0 when it only
 * broadcasts to them, -1 when it does not. */
static int fuse__row_class(const Emit *E, int32_t v, const int64_t *sd, int snd)
{
    int64_t d[GRAPH_MAX_DIMS];
    int nd = fuse_dims(E, v, d);
    if (nd < 0)
        return -1;
    int off = 0;
    while (nd - off > snd) {   /* leading 1s beyond the sink's rank */
        if (d[off] != 1)
            return -1;
        off++;
    }
    int full = 1, row = 1, lead = 1;
    for (int q = off; q < nd; q++) {
        int64_t s = sd[snd - (nd - q)];
        if (d[q] != 1 && d[q] != s)
            return -1;
        if (d[q] != s)
            full = 0;
        if (q + 1 < nd ? d[q] != s : d[q] != 1)
            row = 0;
    }
    for (int q = 0; q < snd - (nd - off); q++)   /* the sink's dims v lacks */
        lead &= sd[q] == 1;
    if (lead && full)
        return 2;
    if (lead && row && nd - off >= 1)
        return 1;
    return 0;
}

/* 1 when cand[0..n) is a row group: the sink elementwise and full, at
 * least one reduction, every member full or row (a reduction full in, row
 * out), the external inputs broadcasting to the sink and clobbered neither
 * by the sink's writes nor by the ops in between (between[0..nb)); that
 * every intermediate is read only inside is the caller's check. */
static int fuse__row_valid(const Emit *E, const int32_t *cand, size_t n, const int32_t *between,
                           size_t nb)
{
    const Graph *g = E->g;
    const Op *sink = &g->ops.v[cand[n - 1]];
    if (fuse__row_reduce(E, sink))
        return 0;
    int64_t sd[GRAPH_MAX_DIMS], d[GRAPH_MAX_DIMS];
    int snd = fuse_dims(E, sink->out, sd);
    if (snd < 1 || sd[snd - 1] < 2 || fuse__row_class(E, sink->out, sd, snd) != 2)
        return 0;
    int64_t total = fuse_numel(sd, snd), len = sd[snd - 1];
    if (total < 1)
        return 0;
    int64_t olo = 0, ohi = 0, xlo[FUSE_MAX_INS], xhi[FUSE_MAX_INS];
    int32_t xv[FUSE_MAX_INS], seen[FUSE_MAX_INS];
    int orng = fuse_range(E, sink->out, &olo, &ohi), nx = 0, nseen = 0, nred = 0, nbuf = 0;
    if (orng < 0)
        return 0;
    for (size_t j = 0; j < n; j++) {
        const Op *op = &g->ops.v[cand[j]];
        int red = fuse__row_reduce(E, op), oc = fuse__row_class(E, op->out, sd, snd);
        if (oc != (red ? 1 : oc == 1 ? 1 : 2))
            return 0;
        nred += red;
        nbuf += oc == 2 && j + 1 < n;
        uint32_t nin = red ? 1 : fuse__nin(op);
        for (uint32_t k = 0; k < nin; k++) {
            int32_t x = op->in[k];
            int m = fuse__member(E, cand, j, x);
            int xc = fuse__row_class(E, x, sd, snd);
            if (xc < 0 || (red && xc != 2) || (!red && oc == 1 && xc == 2))
                return 0;
            if (m >= 0)
                continue;
            int dup = 0;
            for (int q = 0; q < nseen; q++)
                dup |= seen[q] == x;
            if (dup)
                continue;
            if (nseen >= FUSE_MAX_INS)
                return 0;
            seen[nseen++] = x;
            nbuf += xc != 1 && g->vals.v[x].dtype != DT_F32;
            int xnd = fuse_dims(E, x, d);
            int xr = fuse_range(E, x, &xlo[nx], &xhi[nx]);
            if (xr < 0)
                return 0;
            if (xr && orng && xlo[nx] < ohi && olo < xhi[nx] &&
                !(xlo[nx] == olo && xc == 2 && fuse_numel(d, xnd) == total &&
                  dtype_size(g->vals.v[x].dtype) == dtype_size(g->vals.v[sink->out].dtype)))
                return 0;
            if (xr)
                xv[nx++] = x;
        }
    }
    if (!nred || (int64_t)nbuf * len > FUSE_ROW_FLOATS)
        return 0;
    for (size_t i = 0; i < nb; i++) {   /* what the ops in between write */
        const Op *op = &g->ops.v[between[i]];
        if (!emit_has_kernel(E, between[i]))
            continue;
        for (uint32_t k = 0; k < op->nout; k++) {
            int64_t lo = 0, hi = 0;
            int r = fuse_range(E, op->out + (int32_t)k, &lo, &hi);
            if (r < 0)
                return 0;
            for (int q = 0; r && q < nx; q++)
                if (lo < xhi[q] && xlo[q] < hi && xv[q] != op->out + (int32_t)k)
                    return 0;
        }
    }
    return 1;
}

/* 1 when op op_id reads a value that one of ops[0..n) reads (and that
 * none of them computes). */
static int fuse__reads_same(const Emit *E, const int32_t *ops, size_t n, int32_t op_id)
{
    const Op *op = &E->g->ops.v[op_id];
    for (uint32_t k = 0; k < op->nin; k++) {
        int32_t v = op->in[k];
        if (v < 0 || fuse__member(E, ops, n, v) >= 0)
            continue;
        for (size_t j = 0; j < n; j++) {
            const Op *c = &E->g->ops.v[ops[j]];
            for (uint32_t q = 0; q < c->nin; q++)
                if (c->in[q] == v)
                    return 1;
        }
    }
    return 0;
}

/* Whether op_id joins the candidates cand[0..nc) of a group's window: a
 * fusable op (row: of a row group) that reads an earlier candidate; in a
 * row group also a reduction or a cast that reads what a candidate reads
 * (the second mean of x.var, its cast of a half x). */
static int fuse__joins(const Emit *E, int row, const int32_t *cand, size_t nc, int32_t op_id)
{
    if (!(row ? fuse__row_op_ok(E, op_id) : fuse__op_ok(E, op_id)))
        return 0;
    if (nc == 0 || fuse__reads(E, cand, nc, op_id))
        return 1;
    const Op *op = &E->g->ops.v[op_id];
    return row && (fuse__row_reduce(E, op) || op->kind == OP_CAST) && fuse__reads_same(E, cand, nc, op_id);
}

/* For each prefix cand[0..m) of cand[0..nc): ok[m] = 1 when every
 * intermediate (cand[j], j < m - 1) has all its readers (fuse_init's
 * count) among cand[j + 1..m). The counts grow with m, one candidate's
 * inputs at a time. */
static void fuse__inside(const Emit *E, const int32_t *cand, size_t nc, uint8_t *ok)
{
    const Graph *g = E->g;
    uint32_t cnt[FUSE_MAX_OPS] = {0};
    ok[0] = 1;
    for (size_t m = 1; m <= nc; m++) {
        const Op *c = &g->ops.v[cand[m - 1]];
        for (uint32_t k = 0; k < c->nin; k++)
            for (size_t j = 0; j + 1 < m; j++)
                cnt[j] += c->in[k] == g->ops.v[cand[j]].out;
        ok[m] = 1;
        for (size_t j = 0; j + 1 < m && ok[m]; j++)
            ok[m] = cnt[j] == fuse_uses(E, g->ops.v[cand[j]].out);
    }
}

/* A group from position i: the ops of the window from i that join it
 * (fuse__joins), the rest of the window running in between, and of those
 * the longest prefix that is valid (every intermediate read only inside,
 * fuse__inside; a row group with a reduction and fuse__row_valid, else
 * fuse__valid). Fills cand[] and pos[] and returns the count, or 0. */
static size_t fuse__window(const Emit *E, int row, const int32_t *ops, const uint8_t *stop, size_t n,
                           size_t i, const int32_t *at, int32_t *cand, int32_t *pos)
{
    if (!(row ? fuse__row_op_ok(E, ops[i]) : fuse__op_ok(E, ops[i])))
        return 0;
    int32_t between[FUSE_WINDOW];
    size_t nc = 0, nbt = 0, best = 0, nb_at[FUSE_MAX_OPS];
    for (size_t k = i; k < n && k < i + FUSE_WINDOW && nc < FUSE_MAX_OPS; k++) {
        if (ops[k] < 0 || at[k] != -1)
            break;
        if (fuse__joins(E, row, cand, nc, ops[k])) {
            nb_at[nc] = nbt;
            pos[nc] = (int32_t)k;
            cand[nc++] = ops[k];
        } else if (fuse__passable(E, ops[k])) {
            between[nbt++] = ops[k];
        } else {
            break;
        }
        if (stop[k])
            break;
    }
    uint8_t ok[FUSE_MAX_OPS + 1];
    size_t red = nc + 1;   /* the first prefix with a reduction (row groups need one) */
    fuse__inside(E, cand, nc, ok);
    for (size_t m = 1; row && m <= nc && red > nc; m++)
        if (fuse__row_reduce(E, &E->g->ops.v[cand[m - 1]]))
            red = m;
    for (size_t m = nc; m >= 2 && !best; m--)   /* the longest valid prefix */
        if (ok[m] && (row ? m >= red && fuse__row_valid(E, cand, m, between, nb_at[m - 1])
                          : fuse__valid(E, cand, m, between, nb_at[m - 1])))
            best = m;
    return best;
}

/* Records the group cand[0..n) (at positions pos[]) in q. */
static void fuse__take(FuseSeq *q, const int32_t *cand, const int32_t *pos, size_t n)
{
    if (q->ngrp + n + 1 > q->cap) {
        q->cap = (q->ngrp + n + 1) * 2;
        q->grp = xrealloc(q->grp, q->cap * sizeof *q->grp);
    }
    int32_t at = (int32_t)q->ngrp;
    q->grp[q->ngrp++] = (int32_t)n;
    for (size_t m = 0; m < n; m++) {
        q->grp[q->ngrp++] = cand[m];
        q->at[pos[m]] = -2;
    }
    q->at[pos[n - 1]] = at;
    q->ngroups++;
}

void fuse_seq(const Emit *E, const int32_t *ops, const uint8_t *stop, size_t n, FuseSeq *q)
{
    memset(q, 0, sizeof *q);
    q->at = xmalloc((n + 1) * sizeof *q->at);
    for (size_t i = 0; i < n; i++)
        q->at[i] = -1;
    if (!E->fuse)
        return;
    for (size_t i = 0; i < n; i++) {
        if (q->at[i] != -1 || ops[i] < 0)
            continue;
        int32_t rc[FUSE_MAX_OPS], rp[FUSE_MAX_OPS];
        size_t ng = fuse_gemm_group(E, ops, stop, n, i, q->at, rc, rp);   /* hook: fuse_gemm.c */
        if (!ng)
            ng = fuse_conv_group(E, ops, stop, n, i, q->at, rc, rp);   /* hook: fuse_conv.c */
        if (ng) {
            fuse__take(q, rc, rp, ng);
            continue;
        }
        size_t nr = E->dyn || E->rtdims ? 0 : fuse__rms(E, ops, stop, n, i, q->at, rc, rp);
        if (nr) {
            fuse__take(q, rc, rp, nr);
            continue;
        }
        nr = fuse__window(E, 1, ops, stop, n, i, q->at, rc, rp);   /* a row group */
        if (!nr)
            nr = fuse__window(E, 0, ops, stop, n, i, q->at, rc, rp);   /* a pointwise group */
        if (nr)
            fuse__take(q, rc, rp, nr);
    }
}

void fuse_seq_free(FuseSeq *q)
{
    free(q->at);
    free(q->grp);
    memset(q, 0, sizeof *q);
}

void fuse_seq_units(const Emit *E, int s, FuseSeq *q)
{
    const Plan *p = E->p;
    const PlanStream *ps = &p->streams.v[s];
    int32_t *ops = xmalloc((ps->nunits + 1) * sizeof *ops);
    uint8_t *stop = xcalloc(ps->nunits + 1, 1);
    for (size_t j = 0; j < ps->nunits; j++) {
        const PlanUnit *u = &p->units.v[ps->units[j]];
        ops[j] = u->seg >= 0 ? -1 : u->op;
        stop[j] = u->nrecord > 0;   /* events only after a group's last op */
    }
    fuse_seq(E, ops, stop, ps->nunits, q);
    free(ops);
    free(stop);
}

void fuse_seq_segment(const Emit *E, int seg, FuseSeq *q)
{
    const PlanSegment *sg = &E->p->segs.v[seg];
    uint8_t *stop = xcalloc(sg->nops + 1, 1);
    fuse_seq(E, sg->ops, stop, sg->nops, q);
    free(stop);
}

int fuse_any(Emit *E)
{
    FuseSeq q;
    if (!E->fuse)
        return 0;
    for (size_t gi = 0; gi < E->p->gears.n; gi++) {
        emit_gear_begin(E, (int)gi);
        for (size_t s = 0; s < E->p->segs.n; s++) {
            fuse_seq_segment(E, (int)s, &q);
            size_t n = q.ngroups;
            fuse_seq_free(&q);
            if (n)
                return 1;
        }
        for (size_t s = 0; s < E->p->streams.n; s++) {
            fuse_seq_units(E, (int)s, &q);
            size_t n = q.ngroups;
            fuse_seq_free(&q);
            if (n)
                return 1;
        }
    }
    return 0;
}

static const char *fuse__half(DType t)
{
    return t == DT_F16 ? "f16" : "bf16";
}

/* Operand k of op as a C float expression: tJ for a member, aK for an
 * external input (ext[] lists them in order). */
static void fuse__operand(Emit *E, const int32_t *ops, size_t j, const int32_t *ext, int next,
                          int32_t v)
{
    int m = fuse__member(E, ops, j, v);
    if (m >= 0) {
        sb_printf(E->o, "t%d", m);
        return;
    }
    for (int k = 0; k < next; k++)
        if (ext[k] == v) {
            sb_printf(E->o, "a%d", k);
            return;
        }
    TNGC_BUG("fused operand %%%d not found", v);
}

/* Member j's statement(s): "float tJ = ...;", rounded to its half dtype. */
static void fuse__member_code(Emit *E, const int32_t *ops, size_t j, const int32_t *ext, int next,
                              int last, const char *in)
{
    const Op *op = &E->g->ops.v[ops[j]];
    DType ot = E->g->vals.v[op->out].dtype;
    sb_printf(E->o, "%sfloat t%zu;\n%s", in, j, in);
    if (op->kind == OP_POW) {
        double p = op->fattr[0];
        float pf = (float)p;
        int same = E->g->vals.v[op->in[0]].dtype == ot;   /* else the kernel's powf path */
        int kind = pf >= -64.0f && pf <= 64.0f && pf * 2.0f == (float)(int)(pf * 2.0f);
        sb_printf(E->o, "{\n%s    const float v = ", in);
        fuse__operand(E, ops, j, ext, next, op->in[0]);
        sb_printf(E->o, ";\n%s    ", in);
        if (same && pf == 2.0f)
            sb_printf(E->o, "t%zu = v * v;\n", j);
        else if (same && pf == 3.0f)
            sb_printf(E->o, "t%zu = v * v * v;\n", j);
        else if (same && pf == -1.0f)
            sb_printf(E->o, "t%zu = 1.0f / v;\n", j);
        else if (same && pf == -2.0f)
            sb_printf(E->o, "t%zu = 1.0f / (v * v);\n", j);
        else if (same && kind) {   /* tngrt_impl__pow_f32, one element */
            int neg = pf < 0.0f, half = (float)(int)pf != pf;
            int e = (int)(neg ? -pf : pf);
            sb_printf(E->o, "float b = v, r;\n");
            if (half && e)
                sb_printf(E->o, "%s    b = b == -INFINITY || b == 0.0f ? fabsf(b) : b;\n", in);
            sb_printf(E->o, "%s    r = %s;\n", in, half ? "sqrtf(b)" : "1.0f");
            for (int k = e; k; k >>= 1) {
                if (k & 1)
                    sb_printf(E->o, "%s    r *= b;\n", in);
                if (k > 1)
                    sb_printf(E->o, "%s    b *= b;\n", in);
            }
            sb_printf(E->o, "%s    t%zu = %sr;\n", in, j, neg ? "1.0f / " : "");
        } else {
            sb_printf(E->o, "t%zu = powf(v, ", j);
            fuse_float_lit(E, p);
            sb_puts(E->o, ");\n");
        }
        sb_printf(E->o, "%s}\n", in);
    } else {   /* a unary or binary step, from its operands' expressions */
        StrBuf x = {0}, y = {0}, *keep = E->o;
        E->o = &x;
        fuse__operand(E, ops, j, ext, next, op->in[0]);
        E->o = &y;
        if (!fuse_unop(op, 0) && !fuse_scalar(op))
            fuse__operand(E, ops, j, ext, next, op->in[1]);
        E->o = keep;
        sb_printf(E->o, "t%zu = ", j);
        fuse_step(E, op, 0, x.s, y.s);
        sb_puts(E->o, ";\n");
        sb_free(&x);
        sb_free(&y);
    }
    if (!last && ot != DT_F32)   /* the separate kernel's store and load */
        sb_printf(E->o, "%st%zu = tngrt_impl__%s_to_f32(tngrt_impl__f32_to_%s(t%zu));\n", in, j,
                  fuse__half(ot), fuse__half(ot), j);
}

/* The C element type of a float dtype. */
static const char *fuse__ctype(DType t)
{
    return t == DT_F32 ? "float" : "uint16_t";
}

/* The row loop of an RMSNorm group (fuse__rms): per row of length D the
 * kernels' sum of squares, their mean, + eps, rsqrt, then x * r (* w). */
static void fuse__emit_rms(Emit *E, const int32_t *ops, size_t n, const char *in)
{
    const Graph *g = E->g;
    const Op *p = &g->ops.v[ops[0]], *add = &g->ops.v[ops[2]], *sink = &g->ops.v[ops[n - 1]];
    int64_t xd[GRAPH_MAX_DIMS];
    int xnd = fuse_dims(E, p->in[0], xd);
    int64_t len = xd[xnd - 1], rows = fuse_numel(xd, xnd) / len;
    fuse_open(E, ops, n, in, "rms_norm row kernel: ");
    sb_printf(E->o, "%s    const float *x = (const float *)", in);
    emit_ptr(E, p->in[0], 0);
    sb_puts(E->o, ";\n");
    if (n == 6) {
        const Op *z = &g->ops.v[ops[5]];
        int32_t w = z->in[0] == g->ops.v[ops[4]].out ? z->in[1] : z->in[0];
        sb_printf(E->o, "%s    const float *w = (const float *)", in);
        emit_ptr(E, w, 0);
        sb_puts(E->o, ";\n");
    }
    sb_printf(E->o, "%s    float *y = (float *)", in);
    emit_ptr(E, sink->out, 0);
    sb_puts(E->o, ";\n");
    sb_printf(E->o, "%s    for (int64_t i = 0; i < %s; i++) {\n", in, EMIT_I64(rows));
    sb_printf(E->o, "%s        const float *xr = x + i * %s;\n", in, EMIT_I64(len));
    sb_printf(E->o, "%s        float m = 0.0f;\n", in);
    sb_printf(E->o, "%s        m += tngrt_impl__sum_f32(xr, %s, 1, 0.0f);\n", in, EMIT_I64(len));
    sb_printf(E->o, "%s        m = m / (float)%s;\n", in, EMIT_I64(len));
    sb_printf(E->o, "%s        const float a = m + ", in);
    fuse_float_lit(E, add->fattr[0]);
    sb_puts(E->o, ";\n");
    sb_printf(E->o, "%s        const float r = 1.0f / sqrtf(a);\n", in);
    sb_printf(E->o, "%s        for (int64_t j = 0; j < %s; j++) {\n", in, EMIT_I64(len));
    sb_printf(E->o, "%s            const float t = xr[j] * r;\n", in);
    sb_printf(E->o, "%s            y[i * %s + j] = %s;\n", in, EMIT_I64(len), n == 6 ? "t * w[j]" : "t");
    sb_printf(E->o, "%s        }\n%s    }\n%s}\n", in, in, in);
    emit_line_back(E);
}

/* 1 when the group ops[0..n) is an RMSNorm of fuse__rms (the group alone
 * checked again as a sequence). */
static int fuse__is_rms(const Emit *E, const int32_t *ops, size_t n)
{
    int32_t at[FUSE_MAX_OPS], c[FUSE_MAX_OPS], p[FUSE_MAX_OPS];
    uint8_t stop[FUSE_MAX_OPS] = {0};
    if (n < 5 || n > 6 || E->g->ops.v[ops[1]].kind != OP_MEAN)
        return 0;
    for (size_t j = 0; j < n; j++)
        at[j] = -1;
    return fuse__rms(E, ops, stop, n, 0, at, c, p) == n;
}

/* 1 when the group ops[0..n) has a reduction (a row group). */
static int fuse__has_reduce(const Emit *E, const int32_t *ops, size_t n)
{
    for (size_t j = 0; j < n; j++)
        if (fuse__row_reduce(E, &E->g->ops.v[ops[j]]))
            return 1;
    return 0;
}

const char *fuse_kind(const Emit *E, const int32_t *ops, size_t n)
{
    const Graph *g = E->g;
    int nmean = 0, nsum = 0, namax = 0, nexp = 0, nsq = 0, nsub = 0;
    if (fuse_gemm_is(E, ops, n) || fuse_conv_is(E, ops, n))
        return "epilogue";
    if (fuse__is_rms(E, ops, n))
        return "rmsnorm";
    if (!fuse__has_reduce(E, ops, n))
        return "pointwise";
    for (size_t j = 0; j < n; j++) {
        const Op *op = &g->ops.v[ops[j]];
        nmean += op->kind == OP_MEAN;
        nsum += op->kind == OP_SUM;
        namax += op->kind == OP_AMAX;
        nexp += op->kind == OP_EXP;
        nsub += op->kind == OP_SUB;
        nsq += op->kind == OP_RSQRT || op->kind == OP_SQRT;
    }
    if (nexp && nsum)
        return "softmax";
    if (nsq && nsub && nmean + nsum >= 2)
        return "layernorm";
    if (nsq && nmean)
        return "rmsnorm";
    return "row";
}

/* Where value v is among the group's external inputs ext[0..next), or -1. */
static int fuse__ext_at(const int32_t *ext, int next, int32_t v)
{
    for (int k = 0; k < next; k++)
        if (ext[k] == v)
            return k;
    return -1;
}

/* The opening of a fused group's block, indented by in: a comment naming
 * its ops (for a row group, "row kernel (<kind>): " first), the sink's
 * script line, x<k> pointing at external input ext[k] and y at the sink's
 * output, each typed by its dtype. */
static void fuse__emit_open(Emit *E, const int32_t *ops, size_t n, const int32_t *ext, int next,
                            const char *in, int row)
{
    const Graph *g = E->g;
    const Op *sink = &g->ops.v[ops[n - 1]];
    char what[64] = "";
    if (row)
        snprintf(what, sizeof what, "row kernel (%s): ", fuse_kind(E, ops, n));
    fuse_open(E, ops, n, in, what);
    for (int k = 0; k < next; k++) {
        DType t = g->vals.v[ext[k]].dtype;
        sb_printf(E->o, "%s    const %s *x%d = (const %s *)", in, fuse__ctype(t), k, fuse__ctype(t));
        emit_ptr(E, ext[k], 0);
        sb_puts(E->o, ";\n");
    }
    DType ot = g->vals.v[sink->out].dtype;
    sb_printf(E->o, "%s    %s *y = (%s *)", in, fuse__ctype(ot), fuse__ctype(ot));
    emit_ptr(E, sink->out, 0);
    sb_puts(E->o, ";\n");
}

/* The row loop of a row group (fuse__window, row set): per row, the
 * external inputs (a pointer into a float32 row, a half row widened into a
 * buffer, or one float), then each member in order. */
static void fuse__emit_row(Emit *E, const int32_t *ops, size_t n, const char *in)
{
    const Graph *g = E->g;
    const Op *sink = &g->ops.v[ops[n - 1]];
    int64_t sd[GRAPH_MAX_DIMS], xd[GRAPH_MAX_DIMS];
    int snd = fuse_dims(E, sink->out, sd);
    int64_t len = sd[snd - 1], rows = fuse_numel(sd, snd) / len;
    int32_t ext[FUSE_MAX_INS];
    int next = 0;
    for (size_t j = 0; j < n; j++) {
        const Op *op = &g->ops.v[ops[j]];
        uint32_t nin = fuse__row_reduce(E, op) ? 1 : fuse__nin(op);
        for (uint32_t k = 0; k < nin; k++)
            if (fuse__member(E, ops, j, op->in[k]) < 0 && fuse__ext_at(ext, next, op->in[k]) < 0) {
                TNGC_ASSERT(next < FUSE_MAX_INS);
                ext[next++] = op->in[k];
            }
    }
    /* each input's strides over the sink's dims (0 where it broadcasts) */
    int64_t st[FUSE_MAX_INS][GRAPH_MAX_DIMS];
    for (int k = 0; k < next; k++) {
        int xnd = fuse_dims(E, ext[k], xd);
        int64_t s = 1;
        for (int d = snd - 1; d >= 0; d--) {
            int q = d - (snd - xnd);
            int64_t l = q >= 0 ? xd[q] : 1;
            st[k][d] = l == 1 ? 0 : s;
            s *= l;
        }
    }
    fuse__emit_open(E, ops, n, ext, next, in, 1);
    DType ot = g->vals.v[sink->out].dtype;
    sb_printf(E->o, "%s    for (int64_t i = 0; i < %s; i++) {\n", in, EMIT_I64(rows));
    StrBuf ri = {0}, ji = {0};
    sb_printf(&ri, "%s        ", in);
    sb_printf(&ji, "%s            ", in);
    for (int k = 0; k < next; k++) {   /* the row's inputs */
        DType t = g->vals.v[ext[k]].dtype;
        int64_t c = st[k][snd - 1] ? len : 1, lead = 1;
        int simple = 1, any = 0;
        StrBuf b = {0};
        for (int d = snd - 2; d >= 0; d--) {
            if (sd[d] != 1 && st[k][d] != lead * c)
                simple = 0;
            lead *= sd[d];
        }
        lead = 1;
        for (int d = snd - 2; d >= 0; d--) {
            if (sd[d] != 1 && st[k][d] && !simple)
                sb_printf(&b, "%si / %s %% %s * %s", any++ ? " + " : "", EMIT_I64(lead),
                          EMIT_I64(sd[d]), EMIT_I64(st[k][d]));
            any |= sd[d] != 1 && st[k][d] && simple;
            lead *= sd[d];
        }
        if (simple && any)
            sb_printf(&b, "i * %s", EMIT_I64(c));
        else if (!any)
            sb_puts(&b, "0");
        if (st[k][snd - 1] && t == DT_F32) {
            sb_printf(E->o, "%sconst float *e%d = x%d + (%s);\n", ri.s, k, k, b.s);
        } else if (st[k][snd - 1]) {
            sb_printf(E->o, "%sfloat e%d[%s];\n", ri.s, k, EMIT_I64(len));
            sb_printf(E->o, "%sfor (int64_t j = 0; j < %s; j++)\n", ri.s, EMIT_I64(len));
            sb_printf(E->o, "%s    e%d[j] = tngrt_impl__%s_to_f32(x%d[(%s) + j]);\n", ri.s, k,
                      fuse__half(t), k, b.s);
        } else if (t == DT_F32) {
            sb_printf(E->o, "%sconst float a%d = x%d[%s];\n", ri.s, k, k, b.s);
        } else {
            sb_printf(E->o, "%sconst float a%d = tngrt_impl__%s_to_f32(x%d[%s]);\n", ri.s, k,
                      fuse__half(t), k, b.s);
        }
        sb_free(&b);
    }
    for (size_t j = 0; j < n; j++) {
        const Op *op = &g->ops.v[ops[j]];
        DType mt = g->vals.v[op->out].dtype;
        if (fuse__row_reduce(E, op)) {
            int32_t x = op->in[0];
            int m = fuse__member(E, ops, j, x);
            StrBuf p = {0};
            if (m >= 0)
                sb_printf(&p, "r%d", m);
            else
                sb_printf(&p, "e%d", fuse__ext_at(ext, next, x));
            sb_printf(E->o, "%sfloat t%zu;\n", ri.s, j);
            if (op->kind == OP_AMAX || op->kind == OP_MAX_DIM) {   /* the kernels' max: NaN sticks */
                sb_printf(E->o, "%st%zu = -INFINITY;\n", ri.s, j);
                sb_printf(E->o, "%sfor (int64_t j = 0; j < %s; j++)\n", ri.s, EMIT_I64(len));
                sb_printf(E->o, "%s    t%zu = %s[j] > t%zu || %s[j] != %s[j] ? %s[j] : t%zu;\n", ri.s, j,
                          p.s, j, p.s, p.s, p.s, j);
            } else if (g->vals.v[x].dtype == DT_F32) {   /* its float32 sum */
                sb_printf(E->o, "%st%zu = 0.0f + tngrt_impl__sum_f32(%s, %s, 0, 0.0f);\n", ri.s, j,
                          p.s, EMIT_I64(len));
            } else {   /* its sum of another dtype: one running float */
                sb_printf(E->o, "%s{\n%s    float s = 0.0f;\n", ri.s, ri.s);
                sb_printf(E->o, "%s    for (int64_t j = 0; j < %s; j++)\n", ri.s, EMIT_I64(len));
                sb_printf(E->o, "%s        s += %s[j];\n", ri.s, p.s);
                sb_printf(E->o, "%s    t%zu = 0.0f + s;\n%s}\n", ri.s, j, ri.s);
            }
            if (op->kind == OP_MEAN)
                sb_printf(E->o, "%st%zu = t%zu / (float)%s;\n", ri.s, j, j, EMIT_I64(len));
            if (mt != DT_F32)
                sb_printf(E->o, "%st%zu = tngrt_impl__%s_to_f32(tngrt_impl__f32_to_%s(t%zu));\n", ri.s,
                          j, fuse__half(mt), fuse__half(mt), j);
            sb_free(&p);
            continue;
        }
        if (fuse__row_class(E, op->out, sd, snd) == 1) {   /* one float per row */
            fuse__member_code(E, ops, j, ext, next, 0, ri.s);
            continue;
        }
        /* a run of full elementwise members: one loop over the row, a
         * buffer for each member read after the run */
        size_t e = j;
        while (e < n && !fuse__row_reduce(E, &g->ops.v[ops[e]]) &&
               fuse__row_class(E, g->ops.v[ops[e]].out, sd, snd) == 2)
            e++;
        uint8_t keep[FUSE_MAX_OPS] = {0};
        for (size_t a = j; a < e; a++)
            for (size_t c = e; c < n; c++) {
                const Op *r = &g->ops.v[ops[c]];
                for (uint32_t k = 0; k < r->nin; k++)
                    keep[a] |= r->in[k] == g->ops.v[ops[a]].out;
            }
        for (size_t a = j; a < e; a++)
            if (keep[a] && a + 1 < n)
                sb_printf(E->o, "%sfloat r%zu[%s];\n", ri.s, a, EMIT_I64(len));
        sb_printf(E->o, "%sfor (int64_t j = 0; j < %s; j++) {\n", ri.s, EMIT_I64(len));
        int32_t loaded[2 * FUSE_MAX_OPS];
        int nl = 0;
        for (size_t a = j; a < e; a++) {   /* the run's row operands, element j */
            const Op *r = &g->ops.v[ops[a]];
            for (uint32_t k = 0; k < fuse__nin(r); k++) {
                int32_t x = r->in[k];
                int m = fuse__member(E, ops, a, x), xe = fuse__ext_at(ext, next, x), dup = 0;
                for (int q = 0; q < nl; q++)
                    dup |= loaded[q] == x;
                if (dup || (m >= 0 && (size_t)m >= j))
                    continue;
                if (m >= 0 && fuse__row_class(E, x, sd, snd) == 2)
                    sb_printf(E->o, "%sconst float t%d = r%d[j];\n", ji.s, m, m);
                else if (m < 0 && xe >= 0 && st[xe][snd - 1])
                    sb_printf(E->o, "%sconst float a%d = e%d[j];\n", ji.s, xe, xe);
                else
                    continue;
                loaded[nl++] = x;
            }
        }
        for (size_t a = j; a < e; a++) {
            fuse__member_code(E, ops, a, ext, next, a + 1 == n, ji.s);
            if (a + 1 == n && ot == DT_F32)
                sb_printf(E->o, "%sy[i * %s + j] = t%zu;\n", ji.s, EMIT_I64(len), a);
            else if (a + 1 == n)
                sb_printf(E->o, "%sy[i * %s + j] = tngrt_impl__f32_to_%s(t%zu);\n", ji.s,
                          EMIT_I64(len), fuse__half(ot), a);
            else if (keep[a])
                sb_printf(E->o, "%sr%zu[j] = t%zu;\n", ji.s, a, a);
        }
        sb_printf(E->o, "%s}\n", ri.s);
        j = e - 1;
    }
    sb_free(&ri);
    sb_free(&ji);
    sb_printf(E->o, "%s    }\n%s}\n", in, in);
    emit_line_back(E);
}

void fuse_emit(Emit *E, const int32_t *ops, size_t n, const char *in)
{
    const Graph *g = E->g;
    if (fuse_gemm_is(E, ops, n)) {   /* hook: a matmul epilogue (fuse_gemm.c) */
        fuse_gemm_emit(E, ops, n, in);
        return;
    }
    if (fuse_conv_is(E, ops, n)) {   /* hook: a convolution epilogue (fuse_conv.c) */
        fuse_conv_emit(E, ops, n, in);
        return;
    }
    if (fuse__is_rms(E, ops, n)) {
        fuse__emit_rms(E, ops, n, in);
        return;
    }
    if (fuse__has_reduce(E, ops, n)) {
        fuse__emit_row(E, ops, n, in);
        return;
    }
    const Op *sink = &g->ops.v[ops[n - 1]];
    int32_t ext[FUSE_MAX_INS];
    int next = 0;
    for (size_t j = 0; j < n; j++) {
        const Op *op = &g->ops.v[ops[j]];
        for (uint32_t k = 0; k < fuse__nin(op); k++) {
            int32_t x = op->in[k];
            int seen = fuse__member(E, ops, j, x) >= 0;
            for (int q = 0; q < next && !seen; q++)
                seen = ext[q] == x;
            if (!seen) {
                TNGC_ASSERT(next < FUSE_MAX_INS);
                ext[next++] = x;
            }
        }
    }
    /* the loop nest: the sink's dims without 1s, merged where every input
     * is read alike (contiguous, or broadcast) along both */
    int64_t sd[GRAPH_MAX_DIMS], xd[GRAPH_MAX_DIMS];
    int snd = fuse_dims(E, sink->out, sd);
    int64_t st[FUSE_MAX_INS][GRAPH_MAX_DIMS];
    for (int k = 0; k < next; k++) {
        int xnd = fuse_dims(E, ext[k], xd);
        int64_t s = 1;
        for (int d = snd - 1; d >= 0; d--) {
            int q = d - (snd - xnd);
            int64_t len = q >= 0 ? xd[q] : 1;
            st[k][d] = len == 1 ? 0 : s;
            s *= len;
        }
    }
    int64_t ld[GRAPH_MAX_DIMS], ls[FUSE_MAX_INS][GRAPH_MAX_DIMS];
    int lnd = 0;
    for (int d = 0; d < snd; d++) {
        if (sd[d] == 1)
            continue;
        int merge = lnd > 0;
        for (int k = 0; k < next && merge; k++) {
            int64_t a = ls[k][lnd - 1], b = st[k][d];
            merge = (a == 0 && b == 0) || (a != 0 && b != 0 && a == b * sd[d]);
        }
        if (merge) {
            ld[lnd - 1] *= sd[d];
            for (int k = 0; k < next; k++)
                ls[k][lnd - 1] = st[k][d];
        } else {
            ld[lnd] = sd[d];
            for (int k = 0; k < next; k++)
                ls[k][lnd] = st[k][d];
            lnd++;
        }
    }
    if (lnd == 0) {   /* one element */
        ld[0] = 1;
        for (int k = 0; k < next; k++)
            ls[k][0] = 0;
        lnd = 1;
    }

    fuse__emit_open(E, ops, n, ext, next, in, 0);
    DType ot = g->vals.v[sink->out].dtype;
    StrBuf ind = {0};
    sb_printf(&ind, "%s    ", in);
    for (int d = 0; d < lnd; d++) {
        sb_printf(E->o, "%sfor (int64_t i%d = 0; i%d < %s; i%d++) {\n", ind.s, d, d, EMIT_I64(ld[d]), d);
        sb_puts(&ind, "    ");
    }
    for (int k = 0; k < next; k++) {
        DType t = g->vals.v[ext[k]].dtype;
        sb_printf(E->o, "%sconst float a%d = ", ind.s, k);
        if (t != DT_F32)
            sb_printf(E->o, "tngrt_impl__%s_to_f32(", fuse__half(t));
        sb_printf(E->o, "x%d[", k);
        int any = 0;
        for (int d = 0; d < lnd; d++) {
            if (!ls[k][d])
                continue;
            sb_printf(E->o, "%si%d", any++ ? " + " : "", d);
            if (ls[k][d] != 1)
                sb_printf(E->o, " * %s", EMIT_I64(ls[k][d]));
        }
        sb_puts(E->o, any ? "]" : "0]");
        sb_puts(E->o, t != DT_F32 ? ");\n" : ";\n");
    }
    for (size_t j = 0; j < n; j++)
        fuse__member_code(E, ops, j, ext, next, j + 1 == n, ind.s);
    sb_printf(E->o, "%sy[", ind.s);
    for (int d = 0; d < lnd; d++) {
        int64_t s = 1;
        for (int q = d + 1; q < lnd; q++)
            s *= ld[q];
        sb_printf(E->o, "%si%d", d ? " + " : "", d);
        if (s != 1)
            sb_printf(E->o, " * %s", EMIT_I64(s));
    }
    if (ot == DT_F32)
        sb_printf(E->o, "] = t%zu;\n", n - 1);
    else
        sb_printf(E->o, "] = tngrt_impl__f32_to_%s(t%zu);\n", fuse__half(ot), n - 1);
    for (int d = lnd; d > 0; d--) {
        ind.len -= 4;
        ind.s[ind.len] = 0;
        sb_printf(E->o, "%s}\n", ind.s);
    }
    sb_free(&ind);
    sb_printf(E->o, "%s}\n", in);
    emit_line_back(E);
}

/* The groups of q (positions ops[0..n)) as lines "  gear G WHERE: KIND: %V
 * KIND + ...". */
static void fuse__list(const Emit *E, const FuseSeq *q, size_t n, const char *where, StrBuf *out)
{
    for (size_t i = 0; i < n; i++) {
        if (q->at[i] < 0)
            continue;
        const int32_t *ops = q->grp + q->at[i] + 1;
        size_t m = (size_t)q->grp[q->at[i]];
        sb_printf(out, "  gear %d %s: %s:", E->gear, where, fuse_kind(E, ops, m));
        for (size_t j = 0; j < m; j++) {
            const Op *op = &E->g->ops.v[ops[j]];
            sb_printf(out, "%s %%%d %s", j ? " +" : "", op->out, op_info[op->kind].name);
        }
        sb_puts(out, "\n");
    }
}

/* The groups of q as JSON objects {gear, stream, segment, kind, ops}
 * (stream or segment null), each after a comma but the first (*n). */
static void fuse__json(const Emit *E, const FuseSeq *q, size_t n, int stream, int seg,
                       size_t *cnt, StrBuf *out)
{
    for (size_t i = 0; i < n; i++) {
        if (q->at[i] < 0)
            continue;
        const int32_t *ops = q->grp + q->at[i] + 1;
        size_t m = (size_t)q->grp[q->at[i]];
        sb_printf(out, "%s{\"gear\":%d,\"stream\":", (*cnt)++ ? ",\n  " : "\n  ", E->gear);
        sb_printf(out, stream >= 0 ? "%d" : "null", stream);
        sb_puts(out, ",\"segment\":");
        sb_printf(out, seg >= 0 ? "%d" : "null", seg);
        sb_printf(out, ",\"kind\":\"%s\",\"ops\":[", fuse_kind(E, ops, m));
        for (size_t j = 0; j < m; j++)
            sb_printf(out, "%s%d", j ? "," : "", ops[j]);
        sb_puts(out, "]}");
    }
}

/* Calls each(E, q, n, stream, seg, ...) for every stream's units and every
 * segment's ops of every gear of p. */
static void fuse__each_seq(const Plan *p, void (*each)(const Emit *, const FuseSeq *, size_t, int,
                                                       int, void *),
                           void *arg)
{
    GenOptions opt = {0};
    Emit E;
    FuseSeq q;
    opt.name = "plan";
    emit_init(&E, p, &opt, NULL);
    fuse_init(&E);
    for (size_t gi = 0; gi < p->gears.n; gi++) {
        emit_gear_begin(&E, (int)gi);
        for (size_t s = 0; s < p->streams.n; s++) {
            fuse_seq_units(&E, (int)s, &q);
            each(&E, &q, p->streams.v[s].nunits, (int)s, -1, arg);
            fuse_seq_free(&q);
        }
        for (size_t s = 0; s < p->segs.n; s++) {
            fuse_seq_segment(&E, (int)s, &q);
            each(&E, &q, p->segs.v[s].nops, -1, (int)s, arg);
            fuse_seq_free(&q);
        }
    }
    fuse_fini(&E);
    emit_fini(&E);
}

typedef struct FuseOut {
    StrBuf *out;
    size_t n;
} FuseOut;

static void fuse__text_each(const Emit *E, const FuseSeq *q, size_t n, int stream, int seg,
                            void *arg)
{
    char where[48];
    if (stream >= 0)
        snprintf(where, sizeof where, "stream %d", stream);
    else
        snprintf(where, sizeof where, "seg %d", seg);
    fuse__list(E, q, n, where, ((FuseOut *)arg)->out);
}

static void fuse__json_each(const Emit *E, const FuseSeq *q, size_t n, int stream, int seg,
                            void *arg)
{
    FuseOut *fo = arg;
    fuse__json(E, q, n, stream, seg, &fo->n, fo->out);
}

void codegen_fused_json(const Plan *p, StrBuf *out)
{
    FuseOut fo = {out, 0};
    sb_puts(out, ",\n \"fused_groups\":[");
    fuse__each_seq(p, fuse__json_each, &fo);
    sb_puts(out, fo.n ? "\n ]" : "]");
}

void codegen_fused_text(const Plan *p, StrBuf *out)
{
    size_t at = out->len;
    FuseOut fo = {out, 0};
    sb_puts(out, "fused groups (cpu):\n");
    fuse__each_seq(p, fuse__text_each, &fo);
    if (out->len == at + strlen("fused groups (cpu):\n")) {   /* none: no section */
        out->len = at;
        out->s[at] = 0;
    }
}
