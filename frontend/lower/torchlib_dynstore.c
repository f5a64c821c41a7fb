/*
 * torchlib_dynstore.c - the torch library (torchlib.c), slice assignment
 * whose bound is a symbolic int: t[..., start:end, ...] = v with start or
 * end a dim of a geared input (the KV cache write of a prefill,
 * cache[:bsz, start_pos:start_pos + seqlen] = xk, seqlen geared).
 *
 * PyTorch writes v (broadcast to the slice's shape) into the view
 * t[..., start:end, ...]. tngc writes the same elements as index_copy along
 * that dim at arange(start, end) into the view t[..., :, ...] (the other
 * indices as written: ints and constant slices, a view tngc writes back
 * through), which is exact when 0 <= start <= end <= the dim's size, so that
 * the slice is not clamped: checks the planner evaluates in every gear
 * (TNG209 naming the gear where one fails). Only step 1 and every symbol
 * of a bound geared (else TNG211 saying which), indices of ints and slices
 * and non-negative bounds (else the refusal of a slice bound that depends
 * on a dynamic dim, TNG211).
 */
#include "torchlib.h"
#include "torchlib_int.h"

#include <string.h>

/* A slice bound: -1 for None, the DimId of an int or a symbolic int in
 * *d; 0 when it is neither (a negative int: counted from the end). */
static int dynstore__bound(Interp *I, const Obj *o, DimId *d)
{
    int64_t c;
    if (is_none(o)) {
        *d = -1;
        return 1;
    }
    if (o->kind == O_DIM) {
        *d = o->dim;
        return !graph_dim_const_value(G(I), o->dim, &c) || c >= 0;
    }
    if (o->kind == O_INT && obj_int_value(o, &c) && c >= 0) {
        *d = graph_dim_const(G(I), c);
        return 1;
    }
    return 0;
}

int tl_dyn_slice_store(Interp *I, Obj *t, Obj *index, int32_t src, int32_t node)
{
    Obj *const *items = index->kind == O_TUPLE ? index->items : &index;
    size_t cnt = index->kind == O_TUPLE ? index->n : 1;
    int which = -1, p = 0, pos = 0;
    int64_t c;
    for (size_t i = 0; i < cnt; i++) {
        Obj *o = items[i];
        if (o->kind == O_INT)
            continue;
        if (o->kind != O_SLICE || o->n < 3)
            return -2;   /* None, Ellipsis, a tensor, a symbolic int index */
        int dyn = 0;
        for (size_t k = 0; k < 2; k++)
            dyn |= o->items[k]->kind == O_DIM && !graph_dim_const_value(G(I), o->items[k]->dim, &c);
        if (dyn) {
            if (which >= 0)
                return -2;   /* two symbolic slices */
            which = (int)i;
            p = pos;
        }
        pos++;
    }
    if (which < 0)
        return -2;
    Obj *sl = items[which];
    DimId start, end;
    if (!dynstore__bound(I, sl->items[0], &start) || !dynstore__bound(I, sl->items[1], &end))
        return -2;
    if (!(is_none(sl->items[2]) || (obj_int_value(sl->items[2], &c) && c == 1))) {
        interp_break(I, node, RULE_TNG211, "a slice assignment with a step and a bound that depends on a "
                     "dynamic dim");
        return -1;
    }
    if ((start >= 0 && !tl_dim_geared(I, start)) || (end >= 0 && !tl_dim_geared(I, end))) {
        interp_break(I, node, RULE_TNG211, "a slice assignment whose bound depends on a dynamic dim with no "
                     "gears: tngc checks such a bound in every gear (set_dim_gears)");
        return -1;
    }
    /* the view t[..., :, ...]: the other indices as written */
    Obj *full = obj_new(I, O_SLICE);
    Obj *parts[3] = {obj_none(I), obj_none(I), obj_none(I)};
    for (int k = 0; k < 3; k++)
        obj_push(I, full, parts[k]);
    Obj *ix = full;
    if (index->kind == O_TUPLE) {
        ix = obj_seq(I, O_TUPLE);
        for (size_t i = 0; i < cnt; i++)
            obj_push(I, ix, (int)i == which ? full : items[i]);
    }
    Obj *view = tl_lib.subscript(I, t, ix, node);
    int32_t vv = is_tensor(view) ? views_write_begin(I, view, node, "slice assignment") : -1;
    if (vv < 0)
        return -1;
    Graph *g = G(I);
    DimId dims[GRAPH_MAX_DIMS];
    int rank = tl_dims_of(I, vv, dims);
    DimId n = dims[p], zero = graph_dim_const(g, 0);
    if (start < 0)
        start = zero;
    if (end < 0)
        end = n;
    DimId len = graph_dim_sub(g, end, start);
    int32_t at = (int32_t)g->ops.n;   /* the store, added below */
    tl_dim_check(I, start, graph_dim_max(g, start, zero), at, "a slice assignment starts before 0 (start vs 0)");
    tl_dim_check(I, end, graph_dim_min(g, end, n), at,
                 "a slice assignment ends past the dim's size (end vs size; PyTorch clamps the slice and "
                 "refuses the copy)");
    tl_dim_check(I, len, graph_dim_max(g, len, zero), at, "a slice assignment ends before it starts (length vs 0)");
    /* the value: broadcast to the slice's shape, of the view's dtype */
    dims[p] = len;
    Obj *s = obj_tensor(I, src);
    const Val *sv = val_at(I, src);
    int same = sv->ndim == rank;
    for (int d = 0; same && d < rank; d++)
        same = sv->dims[d] == dims[d];
    if (!same) {
        int64_t attr[GRAPH_MAX_DIMS];
        for (int d = 0; d < rank; d++)
            attr[d] = dims[d];
        s = tl_emit_x(I, OP_EXPAND, src, attr, (uint32_t)rank, 0, DT_UNKNOWN, node);
    }
    if (is_tensor(s))
        s = tl_cast_to(I, s, val_at(I, vv)->dtype, node);
    int32_t sval = is_tensor(s) ? tl_tv(I, s, node) : -1;
    if (sval < 0)
        return -1;
    int64_t ar[2] = {len, start};
    int32_t idx = tl_tv(I, tl_emit1(I, OP_ARANGE, NULL, 0, ar, 2, 0, 1, DT_I64, node), node);
    if (idx < 0)
        return -1;
    int32_t in[3] = {vv, idx, sval};
    int64_t dim = p;
    Obj *r = tl_emit1(I, OP_INDEX_COPY, in, 3, &dim, 1, 0, 0, DT_UNKNOWN, node);
    int32_t rv = is_tensor(r) ? tl_tv(I, r, node) : -1;
    if (rv < 0)
        return -1;
    return views_write_end(I, view, rv, node) < 0 ? -1 : 0;
}
