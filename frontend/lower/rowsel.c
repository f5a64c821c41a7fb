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
 * those, obj.c's interp_op an op against the rules):
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

/* Why op o (reading a tagged value) does not keep the rows apart, or NULL. */
static const char *rowsel__rule(const Interp *I, const Op *o)
{
    const Val *out = &I->g->vals.v[o->out], *x = rowsel__val(I, o->in[0]);
    int r = out->ndim, tagged0 = rowsel_of(I, o->in[0]) != 0;
    const char *why = NULL;
    if (op_info[o->kind].flags & OPF_ELEMWISE) {
        for (uint32_t k = 0; k < o->nin && !why; k++)
            why = rowsel__bcast(I, o->in[k], r);
        return why;
    }
    switch (o->kind) {
    case OP_LINEAR: case OP_MM: case OP_MATMUL: {
        const Val *w = rowsel__val(I, o->in[1]);
        for (uint32_t k = 1; k < o->nin; k++)
            if (rowsel_of(I, o->in[k]))
                return "contracts over the selected rows";
        if (!tagged0 || !x || x->ndim < 2 || !w || (o->kind != OP_LINEAR && w->ndim > 2))
            return "mixes the selected rows with its batch dims";
        return NULL;
    }
    case OP_RESHAPE: case OP_EXPAND:
        return x && x->ndim > 0 && r > 0 && out->dims[0] == x->dims[0] ? NULL : "moves the selected rows";
    case OP_CONTIGUOUS: case OP_CLONE:
        return NULL;
    case OP_PERMUTE:
        return o->nattr > 0 && o->attr[0] == 0 ? NULL : "moves the selected rows to another dim";
    case OP_SLICE: case OP_SELECT: case OP_SLICE_DYN:
        return x && o->nattr > 0 && rowsel__dim(o->attr[0], x->ndim) > 0 ? NULL : "indexes the selected rows";
    case OP_SOFTMAX: case OP_LOG_SOFTMAX:
        return x && o->nattr > 0 && rowsel__dim(o->attr[0], x->ndim) > 0 ? NULL : "reduces over the selected rows";
    case OP_SUM: case OP_MEAN: case OP_AMAX: case OP_AMIN: case OP_PROD: case OP_REDUCE_ANY: case OP_REDUCE_ALL:
        return rowsel__reduces(I, o, 1);
    case OP_LAYER_NORM:
        for (uint32_t k = 1; k < o->nin; k++)
            if (rowsel_of(I, o->in[k]))
                return "normalises with the selected rows";
        return x && o->nattr > 0 && o->attr[0] < x->ndim ? NULL : "reduces over the selected rows";
    case OP_RMS_NORM: {
        const Val *gamma = rowsel__val(I, o->in[1]);
        if (rowsel_of(I, o->in[1]))
            return "normalises with the selected rows";
        return x && gamma && gamma->ndim < x->ndim ? NULL : "reduces over the selected rows";
    }
    case OP_COPY:
        if (!tagged0)
            return "writes the selected rows into a tensor that does not hold them";
        return rowsel__bcast(I, o->in[1], x ? x->ndim : 0);
    default:
        return "is not one that tngc knows to compute each selected row on its own";
    }
}

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
    const char *why = two ? "combines the rows of two selections" : rowsel__rule(I, o);
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
