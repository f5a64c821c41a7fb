/*
 * rowindep.c - row independence of each geared symbol: may the launcher
 * pad a dim bound to that symbol up to a larger gear (`--pad`) and still
 * return the right values in the valid rows of every output?
 *
 * Padding appends rows of garbage along every dim whose size uses the
 * symbol. That is harmless as long as no op lets a row's result depend on
 * another row of such a dim, or on a row's position. The ops that do
 * (the first one found, in program order, is recorded with a reason):
 *   - reductions over such a dim: sum, mean, amax, softmax, log_softmax
 *     (their dims), layer_norm and rms_norm (the normalised trailing dims);
 *   - matrix products contracting over it (k of mm, bmm, matmul, addmm,
 *     linear, quant_matmul);
 *   - cat, slice, select along it (positions move or read padding), and
 *     swiglu / dequant_swiglu_quant splitting it in halves;
 *   - embedding whose table's rows are such a dim;
 *   - reshape that moves it out of its place as the outermost factor: it
 *     stays safe only when exactly one input dim and one output dim use the
 *     symbol, at the same index, behind identical leading dims (the padded
 *     rows then stay a suffix); anything else counts as mixing, which is
 *     conservative;
 *   - copy / slice_store into a graph input or weight when the destination
 *     or the source uses the symbol (padded rows would be written into
 *     memory the caller keeps), and slice_store along such a dim.
 * Elementwise ops, casts, permutes, views, stack and products along other
 * dims keep rows independent. The rule of each kind is a row of
 * rowindep_rules[], keyed by the op kind: a kind without one is a bug
 * (TNGC_BUG, and tests/unit/test_ops.c fails), never silently independent.
 */
#include "passes.h"

static const Val *rowindep__val(const Plan *self, int32_t v)
{
    return v >= 0 && (size_t)v < self->g->vals.n ? &self->g->vals.v[v] : NULL;
}

/* 1 when dim d of value v (negative d counts from the end) uses sym. */
static int rowindep__dim_uses(const Plan *self, int32_t v, int64_t d, int sym)
{
    const Val *val = rowindep__val(self, v);
    if (!val)
        return 0;
    if (d < 0)
        d += val->ndim;
    return d >= 0 && d < val->ndim && graph_dim_uses_sym(self->g, val->dims[d], sym);
}

/* 1 when any of the last `last` dims of v uses sym. */
static int rowindep__tail_uses(const Plan *self, int32_t v, int64_t last, int sym)
{
    for (int64_t d = 1; d <= last; d++)
        if (rowindep__dim_uses(self, v, -d, sym))
            return 1;
    return 0;
}

static int rowindep__any_uses(const Plan *self, int32_t v, int sym)
{
    const Val *val = rowindep__val(self, v);
    return val && rowindep__tail_uses(self, v, val->ndim, sym);
}

/* sum, mean, amax: the dims in attr[1..) (none: all dims). */
static const char *rowindep__reduce_dims(Plan *self, const Op *op, int sym)
{
    int32_t x = op->in[0];
    int mixes = op->nattr <= 1 && rowindep__any_uses(self, x, sym);
    for (uint32_t i = 1; i < op->nattr && !mixes; i++)
        mixes = rowindep__dim_uses(self, x, op->attr[i], sym);
    return mixes ? arena_printf(&self->arena, "%s reduces over it", op_info[op->kind].name) : NULL;
}

/* softmax, log_softmax: the dim attr[0]. */
static const char *rowindep__reduce_dim(Plan *self, const Op *op, int sym)
{
    if (!rowindep__dim_uses(self, op->in[0], op->attr[0], sym))
        return NULL;
    return arena_printf(&self->arena, "%s reduces over it", op_info[op->kind].name);
}

/* layer_norm: the last attr[0] dims. */
static const char *rowindep__layer_norm(Plan *self, const Op *op, int sym)
{
    return rowindep__tail_uses(self, op->in[0], op->attr[0], sym) ? "layer_norm reduces over it" : NULL;
}

/* sdpa: each query row reads every key (dim -2 of k and v) and the
 * feature dims are contracted; leading (batch, head) dims and the query
 * dim stay row by row. */
static const char *rowindep__sdpa(Plan *self, const Op *op, int sym)
{
    if (rowindep__dim_uses(self, op->in[1], -2, sym) || rowindep__dim_uses(self, op->in[2], -2, sym))
        return "attention reads every key along it";
    if (rowindep__dim_uses(self, op->in[0], -1, sym) || rowindep__dim_uses(self, op->in[1], -1, sym))
        return "attention contracts it";
    if (op->nin > 3 && op->in[3] >= 0 && rowindep__dim_uses(self, op->in[3], -1, sym))
        return "attention reads every key along it";
    return NULL;
}

/* conv, group_norm, pools, interpolate: each sample (dim 0) on its own;
 * every other dim of input 0 is mixed (channels contracted or normalised
 * together, windows across spatial positions). */
static const char *rowindep__per_sample(Plan *self, const Op *op, int sym)
{
    const Val *x = rowindep__val(self, op->in[0]);
    for (int d = 1; x && d < x->ndim; d++)
        if (rowindep__dim_uses(self, op->in[0], d, sym))
            return arena_printf(&self->arena, "%s mixes positions along it", op_info[op->kind].name);
    if (op->kind == OP_CONV && rowindep__any_uses(self, op->in[1], sym))
        return "conv contracts it";
    return NULL;
}

/* max/avg/adaptive pools, upsampling: windows over the last two dims
 * only; every other dim (samples, channels) row by row. */
static const char *rowindep__pool(Plan *self, const Op *op, int sym)
{
    if (rowindep__tail_uses(self, op->in[0], 2, sym))
        return arena_printf(&self->arena, "%s mixes positions along it", op_info[op->kind].name);
    return NULL;
}

/* rms_norm: the last dims, as many as gamma has (at least one). */
static const char *rowindep__rms_norm(Plan *self, const Op *op, int sym)
{
    const Val *gamma = op->nin > 1 ? rowindep__val(self, op->in[1]) : NULL;
    int64_t last = gamma && gamma->ndim ? gamma->ndim : 1;
    return rowindep__tail_uses(self, op->in[0], last, sym) ? "rms_norm reduces over it" : NULL;
}

/* 1 when the contracted dim k of a matrix product uses sym. */
static int rowindep__contracts(const Plan *self, const Op *op, int sym)
{
    int32_t a = op->in[0], b = op->nin > 1 ? op->in[1] : -1;
    if (op->kind == OP_ADDMM)
        a = op->in[1], b = op->nin > 2 ? op->in[2] : -1;
    const Val *bv = rowindep__val(self, b);
    int64_t bk = -2;  /* k of b[..., k, n] */
    if (op->kind == OP_LINEAR || (bv && bv->ndim == 1))
        bk = -1;      /* w[n, k], or a 1-D operand */
    return rowindep__dim_uses(self, a, -1, sym) || rowindep__dim_uses(self, b, bk, sym);
}

/* 1 when reshape x -> y keeps sym's rows a suffix of one dim at the same
 * place behind the same leading dims (see the top of the file). */
static int rowindep__reshape_keeps(const Plan *self, const Op *op, int sym)
{
    const Val *x = rowindep__val(self, op->in[0]), *y = &self->g->vals.v[op->out];
    int ix = -1, iy = -1, nx = 0, ny = 0;
    for (int d = 0; d < x->ndim; d++)
        if (graph_dim_uses_sym(self->g, x->dims[d], sym))
            ix = ix < 0 ? d : ix, nx++;
    for (int d = 0; d < y->ndim; d++)
        if (graph_dim_uses_sym(self->g, y->dims[d], sym))
            iy = iy < 0 ? d : iy, ny++;
    if (nx == 0 && ny == 0)
        return 1;
    if (nx != 1 || ny != 1 || ix != iy)
        return 0;
    for (int d = 0; d < ix; d++)
        if (x->dims[d] != y->dims[d])
            return 0;
    return 1;
}

/* 1 when every dim of src that uses sym lands (right-aligned, as the
 * write broadcasts) on a dim of dst that uses it: row i goes to row i. */
static int rowindep__rows_align(const Plan *self, int32_t dst, int32_t src, int sym)
{
    const Val *d = rowindep__val(self, dst), *s = rowindep__val(self, src);
    if (!d || !s)
        return 1;
    for (int k = 0; k < s->ndim; k++) {
        int kd = k + d->ndim - s->ndim;
        if (graph_dim_uses_sym(self->g, s->dims[k], sym) &&
            (kd < 0 || !graph_dim_uses_sym(self->g, d->dims[kd], sym)))
            return 0;
    }
    return 1;
}

/* copy_ / slice assignment: padded rows of the source land in padded rows
 * of the destination (the launcher copies back only the valid rows of an
 * input it padded), unless the write runs along the symbol's dim or moves
 * rows to another dim. */
static const char *rowindep__store(Plan *self, const Op *op, int sym)
{
    int32_t dst = op->in[0], src = op->nin > 1 ? op->in[1] : -1;
    if (op->kind == OP_SLICE_STORE && rowindep__dim_uses(self, dst, op->attr[0], sym))
        return "slice_store writes along it";
    if (src >= 0 && !rowindep__rows_align(self, dst, src, sym))
        return arena_printf(&self->arena, "%s moves its rows to another dim", op_info[op->kind].name);
    return NULL;
}

/* mm, bmm, matmul, addmm, linear, quant_matmul: the contracted dim. */
static const char *rowindep__contract(Plan *self, const Op *op, int sym)
{
    if (!rowindep__contracts(self, op, sym))
        return NULL;
    return arena_printf(&self->arena, "%s contracts over it", op_info[op->kind].name);
}

static const char *rowindep__cat(Plan *self, const Op *op, int sym)
{
    return rowindep__dim_uses(self, op->out, op->attr[0], sym) ? "cat concatenates along it" : NULL;
}

/* all_gather, reduce_scatter: dim 0 is the ranks' blocks */
static const char *rowindep__collective(Plan *self, const Op *op, int sym)
{
    return rowindep__dim_uses(self, op->in[0], 0, sym) ? arena_printf(&self->arena, "%s moves rows between ranks "
                                                                      "along it", op_info[op->kind].name)
                                                       : NULL;
}

static const char *rowindep__slice(Plan *self, const Op *op, int sym)
{
    return rowindep__dim_uses(self, op->in[0], op->attr[0], sym) ? "slice slices along it" : NULL;
}

static const char *rowindep__select(Plan *self, const Op *op, int sym)
{
    return rowindep__dim_uses(self, op->in[0], op->attr[0], sym) ? "select indexes along it" : NULL;
}

static const char *rowindep__swiglu(Plan *self, const Op *op, int sym)
{
    return rowindep__dim_uses(self, op->in[0], op->attr[0], sym) ? "swiglu splits it in halves" : NULL;
}

static const char *rowindep__dequant_swiglu_quant(Plan *self, const Op *op, int sym)
{
    return rowindep__dim_uses(self, op->in[0], -1, sym) ? "dequant_swiglu_quant splits it in halves" : NULL;
}

/* add_rms_norm: the last dims, as many as gamma (input 2) has. */
static const char *rowindep__add_rms_norm(Plan *self, const Op *op, int sym)
{
    const Val *gamma = op->nin > 2 ? rowindep__val(self, op->in[2]) : NULL;
    int64_t last = gamma && gamma->ndim ? gamma->ndim : 1;
    return rowindep__tail_uses(self, op->in[0], last, sym) ? "add_rms_norm reduces over it" : NULL;
}

/* rotary_mul (pairs elements of the last dim), dynamic_quant (a row
 * maximum over the last dim): the last dim of input 0. */
static const char *rowindep__npu_last_dim(Plan *self, const Op *op, int sym)
{
    if (!rowindep__dim_uses(self, op->in[0], -1, sym))
        return NULL;
    return arena_printf(&self->arena, "%s mixes its last dim", op_info[op->kind].name);
}

/* moe_gating_top_k_softmax: softmax and top-k over the experts, and
 * row_idx holds the number of rows: any dim. */
static const char *rowindep__moe_gating(Plan *self, const Op *op, int sym)
{
    return rowindep__any_uses(self, op->in[0], sym) ? "moe_gating_top_k_softmax numbers its rows" : NULL;
}

/* scatter_update: writes along its axis; scatter_nd_update: indexes var's
 * leading dims with data (conservative: any dim of any operand). */
static const char *rowindep__scatter_update(Plan *self, const Op *op, int sym)
{
    if (op->kind == OP_SCATTER_UPDATE)
        return rowindep__dim_uses(self, op->in[0], op->attr[0], sym) ? "scatter_update writes along it" : NULL;
    for (uint32_t i = 0; i < op->nin; i++)
        if (rowindep__any_uses(self, op->in[i], sym))
            return "scatter_nd_update indexes it";
    return NULL;
}

/* fused_attention: attends across the sequences, and its lengths, masks
 * and block tables index the batch: any dim of any operand (conservative). */
static const char *rowindep__attention(Plan *self, const Op *op, int sym)
{
    for (uint32_t i = 0; i < op->nin; i++)
        if (op->in[i] >= 0 && rowindep__any_uses(self, op->in[i], sym))
            return "fused_attention attends across it";
    return NULL;
}

static const char *rowindep__embedding(Plan *self, const Op *op, int sym)
{
    return rowindep__dim_uses(self, op->in[0], 0, sym) ? "embedding gathers along it" : NULL;
}

/* flip (attr = dims) and roll (attr = shift, dim pairs) along such a dim
 * move the padded rows in front of valid ones. (triu, tril and an arange
 * of such a length depend on positions, but padding only appends, so the
 * valid rows keep theirs: independent.) */
static const char *rowindep__flip_roll(Plan *self, const Op *op, int sym)
{
    int roll = op->kind == OP_ROLL;
    for (uint32_t i = (uint32_t)roll; i < op->nattr; i += 1u + (uint32_t)roll)
        if (rowindep__dim_uses(self, op->in[0], op->attr[i], sym))
            return roll ? "roll rotates along it" : "flip reverses it";
    return NULL;
}

/* arange whose start uses the symbol (arange(past, past + n)): padding
 * moves every value; a length that uses it only appends. */
static const char *rowindep__arange(Plan *self, const Op *op, int sym)
{
    if (op->nattr > 1 && graph_dim_uses_sym(self->g, (DimId)op->attr[1], sym))
        return "arange starts at it";
    return NULL;
}

/* slice_dyn along such a dim, or starting at a bound that uses it (x[:, n:]
 * moves with n); an end that uses it only lengthens the result. */
static const char *rowindep__slice_dyn(Plan *self, const Op *op, int sym)
{
    if (rowindep__dim_uses(self, op->in[0], op->attr[0], sym))
        return "slice slices along it";
    if (graph_dim_uses_sym(self->g, (DimId)op->attr[1], sym))
        return "slice starts at it";
    return NULL;
}

/* ---- rules: indexing and scatter ---- */

/* 1 when any dim of v from..to-1 uses sym. */
static int rowindep__range_uses(const Plan *self, int32_t v, int64_t from, int64_t to, int sym)
{
    for (int64_t d = from; d < to; d++)
        if (rowindep__dim_uses(self, v, d, sym))
            return 1;
    return 0;
}

/* index_select, index: reading positions along dims that use sym;
 * conservatively also advanced indices padded along it. */
static const char *rowindep__index_read(Plan *self, const Op *op, int sym)
{
    int64_t k = op->kind == OP_INDEX ? (int64_t)op->nin - 1 : 1;
    if (rowindep__range_uses(self, op->in[0], op->attr[0], op->attr[0] + k, sym))
        return arena_printf(&self->arena, "%s gathers along it", op_info[op->kind].name);
    for (uint32_t j = 1; op->kind == OP_INDEX && j < op->nin; j++)
        if (rowindep__any_uses(self, op->in[j], sym))
            return "index takes its positions from a tensor padded along it";
    return NULL;
}

/* gather: along dim, or when index and input are not padded alike on the
 * other dims (index row i reads input row i). */
static const char *rowindep__gather(Plan *self, const Op *op, int sym)
{
    const Val *x = rowindep__val(self, op->in[0]);
    if (rowindep__dim_uses(self, op->in[0], op->attr[0], sym) ||
        rowindep__dim_uses(self, op->in[1], op->attr[0], sym))
        return "gather gathers along it";
    for (int d = 0; x && d < x->ndim; d++)
        if (rowindep__dim_uses(self, op->in[0], d, sym) != rowindep__dim_uses(self, op->in[1], d, sym))
            return "gather pairs rows of its input and index padded differently";
    return NULL;
}

/* index_put, scatter, scatter_add, index_add, index_copy: writes at
 * positions taken from the data. Conservative: any operand padded along
 * sym mixes, but for scatter's rows that stay in place (see below) and
 * index_put's destination rows kept in place. */
static const char *rowindep__scatter(Plan *self, const Op *op, int sym)
{
    const char *name = op_info[op->kind].name;
    if (op->kind == OP_INDEX_PUT) {
        int64_t k = (int64_t)op->nin - 2;
        if (rowindep__range_uses(self, op->in[0], op->attr[0], op->attr[0] + k, sym))
            return "index_put writes along it";
        for (uint32_t j = 2; j < op->nin; j++)
            if (rowindep__any_uses(self, op->in[j], sym))
                return "index_put takes its positions from a tensor padded along it";
        /* one 1-d index: the values keep the destination's rank and dims */
        const Val *ix = rowindep__val(self, op->in[2]);
        if (k == 1 && ix && ix->ndim == 1 && rowindep__rows_align(self, op->in[0], op->in[1], sym))
            return NULL;
        return rowindep__any_uses(self, op->in[1], sym) ? "index_put moves its rows to another dim" : NULL;
    }
    if (rowindep__dim_uses(self, op->in[0], op->attr[0], sym))
        return arena_printf(&self->arena, "%s writes along it", name);
    if (op->kind == OP_SCATTER || op->kind == OP_SCATTER_ADD) {
        /* element [.., i, ..] of index and src lands in row i of the
         * output on every dim but dim: independent when all three are
         * padded alike there and none along dim */
        const Val *x = rowindep__val(self, op->in[0]);
        for (uint32_t j = 1; j < op->nin; j++) {
            if (op->in[j] < 0)
                continue;
            if (rowindep__dim_uses(self, op->in[j], op->attr[0], sym))
                return arena_printf(&self->arena, "%s takes positions or values along dim %lld padded along it",
                                    name, (long long)op->attr[0]);
            for (int d = 0; x && d < x->ndim; d++)
                if (d != op->attr[0] &&
                    rowindep__dim_uses(self, op->in[j], d, sym) != rowindep__dim_uses(self, op->in[0], d, sym))
                    return arena_printf(&self->arena, "%s pairs rows of tensors padded differently", name);
        }
        return NULL;
    }
    for (uint32_t j = 1; j < op->nin; j++)
        if (op->in[j] >= 0 && rowindep__any_uses(self, op->in[j], sym))
            return arena_printf(&self->arena, "%s takes positions or values from a tensor padded along it", name);
    return NULL;
}

static const char *rowindep__reshape(Plan *self, const Op *op, int sym)
{
    return rowindep__reshape_keeps(self, op, sym) ? NULL : "reshape merges it with another dim";
}

/* Elementwise ops, casts, permutes, views, stack, sources: rows stay. */
static const char *rowindep__independent(Plan *self, const Op *op, int sym)
{
    (void)self, (void)op, (void)sym;
    return NULL;
}

/* Each kind's rule (the row rule column of its ops.def row): why an op of
 * that kind mixes rows of sym, or NULL. */
static const char *(*const rowindep_rules[OP__count])(Plan *self, const Op *op, int sym) = {
#define OP(e, name, flags, in_min, in_max, in_opt, attr_min, attr_max, rule, dtype_rule, rowrule, printer, fusion, op_type, view, layout, swap, acl_form, cpu, cpu_scalar, acl, acl_ts, acl_st, attrs) \
    [OP_##e] = rowindep__##rowrule,
#include "../ir/ops.def"
#undef OP
};

int plan_rowindep_has_rule(OpKind kind)
{
    return (unsigned)kind < OP__count && rowindep_rules[kind] != NULL;
}

/* Why op mixes rows of sym, or NULL. */
static const char *rowindep__why(Plan *self, const Op *op, int sym)
{
    if (!plan_rowindep_has_rule(op->kind))
        TNGC_BUG("rowindep.c: no rule for op kind %d", (int)op->kind);
    if ((op->nin == 0 || op->in[0] < 0) && op->kind != OP_ARANGE)   /* arange: its start may use it */
        return NULL;
    return rowindep_rules[op->kind](self, op, sym);
}

static void rowindep__sym(Plan *self, int sym)
{
    PlanRowIndep r = {.sym = sym, .independent = 1, .op = -1};
    for (size_t i = 0; i < self->g->ops.n && r.independent; i++) {
        const char *why = rowindep__why(self, &self->g->ops.v[i], sym);
        if (why)
            r.independent = 0, r.op = (int32_t)i, r.why = why;
    }
    VEC_PUSH(self->rowindep, r);
}

void plan_rowindep(Plan *self)
{
    const Graph *g = self->g;
    for (size_t i = 0; i < g->gears.n; i++) {
        int sym = g->gears.v[i].sym, seen = 0;
        if (sym < 0 || (size_t)sym >= g->syms.n)
            continue;
        for (size_t k = 0; k < self->rowindep.n; k++)
            seen |= self->rowindep.v[k].sym == sym;
        if (!seen)
            rowindep__sym(self, sym);
    }
}
