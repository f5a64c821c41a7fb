/*
 * rowsel.c - rows selected by data (torch.where(condition) with one
 * argument, torchlib_rowsel.c), the object layer's half: which values of a
 * trace hold selected rows, the check of every op that reads them, and the
 * reads that must end in such an op.
 *
 * tngc computes a selection densely: the N rows of the condition all flow
 * through the ops, a bool mask [N] says which of them are the k rows
 * PyTorch selects, and a store through the selection writes only those.
 * That computes what PyTorch computes exactly while every op keeps the rows
 * apart along dim 0 (a row's result depends on that row alone) and nothing
 * observes how many rows there are. So each value holding selected rows
 * carries the tag of its selection (Interp.rowtag); every op that reads a
 * tagged value must follow one of the rules below, and its outputs get the
 * tag; any other read of a tagged value (a shape, a size, a Python value,
 * an output of the compiled method) is refused (torchlib_rowsel.c reports
 * those, obj.c's interp_op an op against the rules, one per row rule of
 * ir/ops.def, the column planner/rowindep.c reads for padded rows):
 *   - elementwise ops: a tagged operand has the result's rank (its rows
 *     stay at dim 0); an untagged one has fewer dims, or size 1 at dim 0;
 *   - linear, mm and matmul of a tagged operand (rank >= 2) by an untagged
 *     matrix;
 *   - reshape and expand that keep dim 0, permute that keeps it first,
 *     slice and select along another dim, contiguous, clone;
 *   - softmax, log_softmax, reductions, layer_norm and rms_norm over other
 *     dims;
 *   - copy_ into a tagged tensor.
 * The rows of two selections never meet in one op (their masks differ).
 */
#include "obj.h"

static const Val *rowsel__val(const Interp *I, int32_t v)
{
    return v >= 0 && (size_t)v < I->g->vals.n ? &I->g->vals.v[v] : NULL;
}

int rowsel_of(const Interp *I, int32_t v)
{
    if (!I->tracing || v < 0 || (size_t)v >= I->rowtag.n)
        return 0;
    return I->rowtag.v[v];
}

void rowsel_set(Interp *I, int32_t v, int tag)
{
    if (v < 0)
        return;
    while (I->rowtag.n <= (size_t)v)
        VEC_PUSH(I->rowtag, 0);
    I->rowtag.v[v] = tag;
}

void rowsel_read(Interp *I, int32_t v)
{
    if (!rowsel_of(I, v))
        return;
    for (size_t i = 0; i < I->rowsel_reads.n; i++)
        if (I->rowsel_reads.v[i] == v)
            return;
    VEC_PUSH(I->rowsel_reads, v);
}

void rowsel_unread(Interp *I, int32_t v)
{
    size_t k = 0;
    for (size_t i = 0; i < I->rowsel_reads.n; i++)
        if (I->rowsel_reads.v[i] != v)
            I->rowsel_reads.v[k++] = I->rowsel_reads.v[i];
    I->rowsel_reads.n = k;
}

/* d normalised for rank n (0 <= d < n), or -1. */
static int64_t rowsel__dim(int64_t d, int n)
{
    if (d < 0)
        d += n;
    return d >= 0 && d < n ? d : -1;
}

static int rowsel__is_one(const Interp *I, DimId d)
{
    int64_t c;
    return graph_dim_const_value(I->g, d, &c) && c == 1;
}

/* Why operand v of an op whose result has rank r does not keep the rows
 * apart as an elementwise (broadcast) operand, or NULL. */
static const char *rowsel__bcast(const Interp *I, int32_t v, int r)
{
    const Val *x = rowsel__val(I, v);
    if (!x)
        return NULL;
    if (rowsel_of(I, v))
        return x->ndim == r ? NULL : "broadcasts the selected rows along another dim";
    if (x->ndim == r && r > 0 && !rowsel__is_one(I, x->dims[0]))
        return "combines them with a tensor of other rows (its dim 0 is not 1)";
    return NULL;
}

/* A reduction's dims attr[from..nattr) (none: every dim) of input x. */
static const char *rowsel__reduces(const Interp *I, const Op *o, uint32_t from)
{
    const Val *x = rowsel__val(I, o->in[0]);
    if (!x || o->nattr <= from)
        return "reduces over the selected rows";
    for (uint32_t i = from; i < o->nattr; i++)
        if (rowsel__dim(o->attr[i], x->ndim) == 0)
            return "reduces over the selected rows";
    return NULL;
}

/* ---- the rules: one per row rule of ir/ops.def (the column that
 * planner/rowindep.c reads for padded rows), here for rows at dim 0 ---- */

#define ROWSEL_OTHER "is not one that tngc knows to compute each selected row on its own"

/* Elementwise ops; views that keep dim 0 in place (permute, expand,
 * contiguous); any other kind of this family (clone and stack, triu, a
 * source) is not checked row by row here. */
static const char *rowsel__independent(const Interp *I, const Op *o)
{
    const Val *out = &I->g->vals.v[o->out], *x = rowsel__val(I, o->in[0]);
    const char *why = NULL;
    if (op_info[o->kind].flags & OPF_ELEMWISE) {
        for (uint32_t k = 0; k < o->nin && !why; k++)
            why = rowsel__bcast(I, o->in[k], out->ndim);
        return why;
    }
    switch (op_info[o->kind].view) {
    case VIEW_PERMUTE:
        return o->nattr > 0 && o->attr[0] == 0 ? NULL : "moves the selected rows to another dim";
    case VIEW_EXPAND:
        return x && x->ndim > 0 && out->ndim > 0 && out->dims[0] == x->dims[0] ? NULL : "moves the selected rows";
    case VIEW_CONTIGUOUS:
        return NULL;
    default:
        return ROWSEL_OTHER;
    }
}

/* Matrix products: the selected rows the first operand's (addmm's second:
 * after its bias), every other operand untagged and at most a matrix. */
static const char *rowsel__contract(const Interp *I, const Op *o)
{
    uint32_t a = o->kind == OP_ADDMM ? 1 : 0;
    const Val *x = rowsel__val(I, o->in[a]), *w = rowsel__val(I, a + 1 < o->nin ? o->in[a + 1] : -1);
    for (uint32_t k = 0; k < o->nin; k++)
        if (k != a && rowsel_of(I, o->in[k]))
            return "contracts over the selected rows";
    if (!rowsel_of(I, o->in[a]) || !x || x->ndim < 2 || !w || w->ndim > 2)
        return "mixes the selected rows with its batch dims";
    return NULL;
}

static const char *rowsel__reshape(const Interp *I, const Op *o)
{
    const Val *out = &I->g->vals.v[o->out], *x = rowsel__val(I, o->in[0]);
    return x && x->ndim > 0 && out->ndim > 0 && out->dims[0] == x->dims[0] ? NULL : "moves the selected rows";
}

/* slice, select, slice_dyn: along attr[0]. */
/* 1 when op o works along its attr[0] dim of input 0, and that is not dim 0. */
static int rowsel__off_rows(const Interp *I, const Op *o)
{
    const Val *x = rowsel__val(I, o->in[0]);
    return x && o->nattr > 0 && rowsel__dim(o->attr[0], x->ndim) > 0;
}

static const char *rowsel__slice(const Interp *I, const Op *o)
{
    return rowsel__off_rows(I, o) ? NULL : "indexes the selected rows";
}
#define rowsel__select rowsel__slice
#define rowsel__slice_dyn rowsel__slice

/* sum, mean, amax, any, ...: the dims in attr[1..) (none: all). */
static const char *rowsel__reduce_dims(const Interp *I, const Op *o)
{
    return rowsel__reduces(I, o, 1);
}

/* softmax, log_softmax, topk, sort, argmax, cumsum, ...: the dim attr[0]. */
static const char *rowsel__reduce_dim(const Interp *I, const Op *o)
{
    return rowsel__off_rows(I, o) ? NULL : "reduces over the selected rows";
}

/* layer_norm: the last attr[0] dims; weight and bias untagged. */
static const char *rowsel__layer_norm(const Interp *I, const Op *o)
{
    const Val *x = rowsel__val(I, o->in[0]);
    for (uint32_t k = 1; k < o->nin; k++)
        if (rowsel_of(I, o->in[k]))
            return "normalises with the selected rows";
    return x && o->nattr > 0 && o->attr[0] < x->ndim ? NULL : "reduces over the selected rows";
}

/* rms_norm: the last dims, as many as gamma (untagged) has. */
static const char *rowsel__rms_norm(const Interp *I, const Op *o)
{
    const Val *x = rowsel__val(I, o->in[0]), *gamma = rowsel__val(I, o->in[1]);
    if (rowsel_of(I, o->in[1]))
        return "normalises with the selected rows";
    return x && gamma && gamma->ndim < x->ndim ? NULL : "reduces over the selected rows";
}

/* copy_, slice assignment, masked_fill_: into a tensor holding the rows,
 * not along dim 0; the other operands broadcast as elementwise ones. */
static const char *rowsel__store(const Interp *I, const Op *o)
{
    const Val *dst = rowsel__val(I, o->in[0]);
    const char *why = NULL;
    if (!rowsel_of(I, o->in[0]) || !dst)
        return "writes the selected rows into a tensor that does not hold them";
    if (o->kind == OP_SLICE_STORE && (o->nattr < 1 || rowsel__dim(o->attr[0], dst->ndim) == 0))
        return "writes along the selected rows";
    for (uint32_t k = 1; k < o->nin && !why; k++)
        why = rowsel__bcast(I, o->in[k], dst->ndim);
    return why;
}

/* Every other row rule: not checked row by row here. */
static const char *rowsel__other(const Interp *I, const Op *o)
{
    (void)I, (void)o;
    return ROWSEL_OTHER;
}
#define rowsel__cat rowsel__other
#define rowsel__embedding rowsel__other
#define rowsel__dequant_swiglu_quant rowsel__other
#define rowsel__swiglu rowsel__other
#define rowsel__arange rowsel__other
#define rowsel__flip_roll rowsel__other
#define rowsel__index_read rowsel__other
#define rowsel__gather rowsel__other
#define rowsel__scatter rowsel__other
#define rowsel__sdpa rowsel__other
#define rowsel__per_sample rowsel__other
#define rowsel__pool rowsel__other
#define rowsel__npu_last_dim rowsel__other
#define rowsel__add_rms_norm rowsel__other
#define rowsel__moe_gating rowsel__other
#define rowsel__attention rowsel__other
#define rowsel__scatter_update rowsel__other
#define rowsel__collective rowsel__other

static const char *(*const rowsel_rules[OP__count])(const Interp *I, const Op *o) = {
#define OP(e, name, flags, in_min, in_max, in_opt, attr_min, attr_max, rule, dtype_rule, rowrule, printer, fusion, op_type, view, layout, swap, acl_form, cpu, cpu_scalar, acl, acl_ts, acl_st, attrs) \
    [OP_##e] = rowsel__##rowrule,
#include "../../ir/ops.def"
#undef OP
};

const char *rowsel_check_op(Interp *I, int32_t op, int *tag_out)
{
    const Op *o = &I->g->ops.v[op];
    int tag = 0, two = 0;
    for (uint32_t k = 0; k < o->nin; k++) {
        int t = rowsel_of(I, o->in[k]);
        if (t && tag && t != tag)
            two = 1;
        if (t)
            tag = t;
        rowsel_unread(I, o->in[k]);
    }
    *tag_out = tag;
    if (!tag || I->rowsel_emit)
        return NULL;
    const char *why = two ? "combines the rows of two selections" : rowsel_rules[o->kind](I, o);
    if (!why)
        for (uint32_t k = 0; k < o->nout; k++)
            rowsel_set(I, o->out + (int32_t)k, tag);
    return why;
}

void rowsel_trace_begin(Interp *I)
{
    I->rowsels.n = 0;
    I->rowtag.n = 0;
    I->rowsel_reads.n = 0;
    I->rowsel_emit = 0;
}

void rowsel_free(Interp *I)
{
    VEC_FREE(I->rowsels);
    VEC_FREE(I->rowtag);
    VEC_FREE(I->rowsel_reads);
}
