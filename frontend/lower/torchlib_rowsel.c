/*
 * torchlib_rowsel.c - torch.where(condition) with one argument, and the
 * indexing through what it returns, as mixture-of-experts layers write
 * them:
 *
 *     rows, nth = torch.where(selected_experts == i)    # topk indices
 *     out[rows] += w[rows, nth, None] * expert(x[rows])
 *
 * PyTorch returns the coordinates of the true elements (nonzero), k of
 * them, k known only from the data. torch.compile refuses that (a graph
 * break) unless torch._dynamo.config.capture_dynamic_output_shape_ops is
 * set, and so does tngc. With it set, tngc computes the selection densely
 * (rowsel.c says why that is exact and which ops may follow): every row of
 * the condition flows through, a mask [N] marks the selected ones, and the
 * store writes only those. That needs each selected row to appear once, in
 * order: a 1-D condition has that; a 2-D one [N, K] when each row holds at
 * most one true element, which tngc proves for `topk(...).indices == c`
 * (topk's indices along the last dim are distinct within a row). Then:
 *   rows        arange(N), the row of each selected element;
 *   nth (cols)  argmax of the row's condition: the column of its true one;
 *   x[rows]     x (a copy), rows selected; x[rows, nth] gathers column nth
 *               of each row; trailing None and ':' as in basic indexing;
 *   x[rows] = v where(mask, v, x) written into x.
 * Anything else through the returned tensors is refused.
 */
#include "torchlib_int.h"

/* 1 when value c (bool [N, K]) has at most one true element per row:
 * c = (topk indices along the last dim) == a scalar. */
static int rowsel__one_per_row(Interp *I, int32_t c)
{
    const Graph *g = G(I);
    const Op *eq = g->vals.v[c].op >= 0 ? &g->ops.v[g->vals.v[c].op] : NULL;
    if (!eq || eq->kind != OP_EQ || eq->nin != 2)
        return 0;
    for (int side = 0; side < 2; side++) {
        int32_t idx = eq->in[side], other = eq->in[1 - side];
        if (idx < 0 || (other >= 0 && val_at(I, other)->ndim != 0))
            continue;
        int32_t p = g->vals.v[idx].op;
        const Op *tk = p >= 0 ? &g->ops.v[p] : NULL;
        if (tk && tk->kind == OP_TOPK && idx == tk->out + 1 && tk->attr[0] == rank_of(I, tk->in[0]) - 1)
            return 1;
    }
    return 0;
}

/* The selection of tensor o (a tagged value of the trace), or NULL. */
static RowSel *rowsel__sel(Interp *I, const Obj *o)
{
    if (!o || o->kind != O_TENSOR || o->t->g != G(I))
        return NULL;
    int tag = rowsel_of(I, o->t->value);
    return tag ? &I->rowsels.v[tag - 1] : NULL;
}

Obj *tl_where_rows(Interp *I, Obj *cond, int32_t node)
{
    if (is_unknown(cond))
        return unk(I);
    if (!I->tracing || !I->capture_dyn)
        return interp_break(I, node, RULE_TNG203, "torch.where(condition) with one argument is nonzero: its "
                            "output shape depends on the data, which torch.compile refuses (a graph break) "
                            "unless torch._dynamo.config.capture_dynamic_output_shape_ops = True");
    int32_t c = tl_tv(I, cond, node);
    if (c < 0)
        return unk(I);
    const Val *cv = val_at(I, c);
    if (cv->dtype != DT_BOOL || cv->ndim < 1 || cv->ndim > 2)
        return interp_break(I, node, RULE_TNG203, "torch.where(condition): tngc computes the selection of a "
                            "bool condition of 1 or 2 dims only (this one is %s with %d)", dtype_name(cv->dtype),
                            cv->ndim);
    if (cv->ndim == 2 && !rowsel__one_per_row(I, c))
        return interp_break(I, node, RULE_TNG203, "torch.where(condition) of a 2-D condition: tngc computes it "
                            "only where each row has at most one true element, as for `indices == i` of "
                            "topk's indices along the last dim");
    RowSel s = {.mask = c, .cols = -1, .n = cv->dims[0], .k = cv->ndim == 2 ? cv->dims[1] : 0, .node = node};
    I->rowsel_emit++;
    int64_t ar[2] = {s.n, graph_dim_const(G(I), 0)};
    s.rows = tl_tv(I, tl_emit1(I, OP_ARANGE, NULL, 0, ar, 2, 0, 1, DT_I64, node), node);
    if (cv->ndim == 2) {
        int64_t any[2] = {0, 1}, am[2] = {1, 0};
        s.mask = tl_tv(I, tl_emit_x(I, OP_REDUCE_ANY, c, any, 2, 0, DT_UNKNOWN, node), node);
        int32_t f = tl_tv(I, tl_cast_to(I, cond, DT_F32, node), node);
        s.cols = f < 0 ? -1 : tl_tv(I, tl_emit_x(I, OP_ARGMAX, f, am, 2, 0, DT_UNKNOWN, node), node);
        if (s.cols < 0)
            s.mask = -1;
    }
    I->rowsel_emit--;
    if (s.rows < 0 || s.mask < 0)
        return unk(I);
    VEC_PUSH(I->rowsels, s);
    int tag = (int)I->rowsels.n;
    rowsel_set(I, s.rows, tag);
    Obj *items[2] = {obj_tensor(I, s.rows), NULL};
    if (s.cols >= 0) {
        rowsel_set(I, s.cols, tag);
        items[1] = obj_tensor(I, s.cols);
    }
    return obj_tuple(I, items, s.cols >= 0 ? 2 : 1);
}

int tl_rowsel_index(Interp *I, const Obj *index)
{
    if (rowsel__sel(I, index))
        return 1;
    if (index && index->kind == O_TUPLE)
        for (size_t i = 0; i < index->n; i++)
            if (rowsel__sel(I, index->items[i]))
                return 1;
    return 0;
}

/* The items of index (a tuple's, or index itself) in items[0..*n); the
 * selection whose rows tensor items[0] is; 1 when items[1] is its cols
 * tensor. NULL after a diagnostic. */
static RowSel *rowsel__parse(Interp *I, Obj *index, Obj ***items, size_t *n, int *cols, int32_t node)
{
    static const char form[] = "tngc indexes with the tensors torch.where(condition) returns only as x[rows], "
                               "x[rows, cols], followed by None or ':'";
    *items = index->kind == O_TUPLE ? index->items : &index;
    *n = index->kind == O_TUPLE ? index->n : 1;
    RowSel *s = *n ? rowsel__sel(I, (*items)[0]) : NULL;
    if (!s || (*items)[0]->t->value != s->rows) {
        interp_break(I, node, RULE_TNG203, "%s", form);
        return NULL;
    }
    *cols = *n > 1 && rowsel__sel(I, (*items)[1]) == s && (*items)[1]->t->value == s->cols;
    for (size_t i = 1 + (size_t)*cols; i < *n; i++) {
        const Obj *it = (*items)[i];
        int full = it->kind == O_SLICE && is_none(it->items[0]) && is_none(it->items[1]) && is_none(it->items[2]);
        if (!full && it->kind != O_NONE) {
            interp_break(I, node, RULE_TNG203, "%s", form);
            return NULL;
        }
    }
    return s;
}

/* x of the trace whose dim 0 is selection s's rows (and dim 1 its
 * condition's columns when cols): its value, or -1 after a diagnostic. */
static int32_t rowsel__base(Interp *I, Obj *t, const RowSel *s, int cols, int32_t node, const char *what)
{
    int32_t x = tl_tv(I, t, node);
    if (x < 0)
        return -1;
    const Val *xv = val_at(I, x);
    if (rowsel_of(I, x)) {
        interp_break(I, node, RULE_TNG203, "%s a tensor that holds selected rows already", what);
        return -1;
    }
    if (xv->ndim < 1 + cols || xv->dims[0] != s->n || (cols && xv->dims[1] != s->k)) {
        interp_break(I, node, RULE_TNG203, "%s a tensor whose leading dims are not those of the condition of "
                     "torch.where at line %u", what, interp_node_line(I, s->node));
        return -1;
    }
    return x;
}

Obj *tl_rowsel_subscript(Interp *I, Obj *t, Obj *index, int32_t node)
{
    Obj **items;
    size_t n;
    int cols;
    RowSel *s = rowsel__parse(I, index, &items, &n, &cols, node);
    int32_t x = s ? rowsel__base(I, t, s, cols, node, "indexing with torch.where's rows") : -1;
    if (x < 0)
        return unk(I);
    int tag = (int)(s - I->rowsels.v) + 1;
    I->rowsel_emit++;
    int32_t r;
    if (!cols) {
        r = tl_tv(I, tl_emit_x(I, OP_CLONE, x, NULL, 0, 0, DT_UNKNOWN, node), node);
    } else {   /* gather column cols[i] of row i: index [N, 1, rest...] */
        DimId d[GRAPH_MAX_DIMS];
        int nd = tl_dims_of(I, x, d);
        DimId one = graph_dim_const(G(I), 1), shp[GRAPH_MAX_DIMS];
        for (int i = 0; i < nd; i++)
            shp[i] = i == 0 ? d[0] : one;
        int32_t ix = tl_tv(I, tl_reshape_to(I, s->cols, shp, nd, node), node);
        int64_t ex[GRAPH_MAX_DIMS];
        for (int i = 0; i < nd; i++)
            ex[i] = i == 1 ? one : d[i];
        if (ix >= 0 && nd > 2)
            ix = tl_tv(I, tl_emit_x(I, OP_EXPAND, ix, ex, (uint32_t)nd, 0, DT_UNKNOWN, node), node);
        int64_t dim = 1;
        int32_t in[2] = {x, ix};
        r = ix < 0 ? -1 : tl_tv(I, tl_emit1(I, OP_GATHER, in, 2, &dim, 1, 0, 0, DT_UNKNOWN, node), node);
        for (int i = 2; i < nd; i++)
            shp[i - 1] = d[i];
        shp[0] = d[0];
        if (r >= 0)
            r = tl_tv(I, tl_reshape_to(I, r, shp, nd - 1, node), node);
    }
    int64_t p = 1;   /* the dim of the result the next item applies to */
    for (size_t i = 1 + (size_t)cols; i < n && r >= 0; i++, p++)
        if (items[i]->kind == O_NONE)
            r = tl_tv(I, tl_unsqueeze_at(I, r, p, node), node);
    I->rowsel_emit--;
    if (r < 0)
        return unk(I);
    rowsel_set(I, r, tag);
    return obj_tensor(I, r);
}

/* Why value src cannot be stored through selection s into dst, or NULL:
 * PyTorch broadcasts it to [k, dst's other dims]. */
static const char *rowsel__source(Interp *I, const RowSel *s, int32_t src, int32_t dst)
{
    const Val *sv = val_at(I, src), *dv = val_at(I, dst);
    int tag = rowsel_of(I, src);
    int64_t one;
    if (tag && &I->rowsels.v[tag - 1] != s)
        return "the value holds the rows of another torch.where selection";
    if (sv->ndim > dv->ndim)
        return "the value has more dims than the rows it is stored into";
    if (tag && sv->ndim != dv->ndim)
        return "the value's selected rows would broadcast along another dim";
    if (!tag && sv->ndim == dv->ndim && !(graph_dim_const_value(G(I), sv->dims[0], &one) && one == 1))
        return "the value's dim 0 is neither the selected rows nor 1";
    for (int i = 1; i <= sv->ndim - (sv->ndim == dv->ndim); i++) {
        DimId a = sv->dims[sv->ndim - i], b = dv->dims[dv->ndim - i];
        if (a != b && !(graph_dim_const_value(G(I), a, &one) && one == 1))
            return "the value does not broadcast to the rows it is stored into";
    }
    return NULL;
}

int tl_rowsel_store(Interp *I, Obj *t, Obj *index, Obj *v, int32_t node)
{
    Obj **items;
    size_t n;
    int cols;
    RowSel *s = rowsel__parse(I, index, &items, &n, &cols, node);
    if (!s)
        return -1;
    if (cols || n > 1) {
        interp_break(I, node, RULE_TNG203, "tngc assigns through the tensors torch.where(condition) returns "
                     "only as x[rows] = value");
        return -1;
    }
    int32_t dst = rowsel__base(I, t, s, 0, node, "assigning through torch.where's rows into");
    if (dst < 0 || is_unknown(v))
        return -1;
    int32_t src = tl_index_values(I, dst, v, node);   /* index_put's rule: a tensor of dst's dtype */
    if (src < 0)
        return -1;
    const char *why = rowsel__source(I, s, src, dst);
    if (why) {
        interp_break(I, node, RULE_TNG203, "assigning through the rows torch.where(condition) selected at line "
                     "%u: %s", interp_node_line(I, s->node), why);
        return -1;
    }
    /* where(mask [N, 1, ...], value, dst), written into dst */
    DimId shp[GRAPH_MAX_DIMS], one = graph_dim_const(G(I), 1);
    int nd = rank_of(I, dst);
    for (int i = 0; i < nd; i++)
        shp[i] = i == 0 ? s->n : one;
    I->rowsel_emit++;
    int32_t in[3] = {tl_tv(I, tl_reshape_to(I, s->mask, shp, nd, node), node), src, dst};
    int32_t w = in[0] < 0 ? -1 : tl_tv(I, tl_emit1(I, OP_WHERE, in, 3, NULL, 0, 0, 0, DT_UNKNOWN, node), node);
    I->rowsel_emit--;
    if (w < 0)
        return -1;
    return is_unknown(views_write(I, t, w, node, "assignment through torch.where's rows")) ? -1 : 0;
}

void torchlib_rowsel_leak(Interp *I, int32_t node)
{
    if (!I->rowsel_reads.n)
        return;
    int tag = rowsel_of(I, I->rowsel_reads.v[0]);
    I->rowsel_reads.n = 0;
    if (!tag)
        return;
    interp_diag(I, node, RULE_TNG203, "this statement reads the rows torch.where(condition) selected at line %u "
                "other than through an op that computes each row on its own (a shape, a size, a Python value): "
                "how many rows there are depends on the data, and tngc computes them as all the condition's "
                "rows with a mask", interp_node_line(I, I->rowsels.v[tag - 1].node));
}

int torchlib_rowsel_outputs(Interp *I, const Graph *g, int32_t node)
{
    I->rowsel_reads.n = 0;   /* collecting the outputs read them */
    for (size_t i = 0; i < g->outputs.n; i++) {
        int tag = rowsel_of(I, g->outputs.v[i].value);
        if (tag) {
            interp_diag(I, node, RULE_TNG203, "output '%s' of the compiled method holds the rows "
                        "torch.where(condition) selected at line %u: how many there are depends on the data "
                        "(a bundle's outputs have shapes its gears decide)", g->outputs.v[i].name,
                        interp_node_line(I, I->rowsels.v[tag - 1].node));
            return -1;
        }
    }
    return 0;
}
