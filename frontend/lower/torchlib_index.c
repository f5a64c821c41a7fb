/*
 * torchlib_index.c - the torch library (torchlib.c), indexing and scatter: advanced indices in subscripts (read and store), index_select, scatter, index_add, index_put, one_hot.
 * Each lowering (lo_*) is under the Python signature it lowers; its lib[]
 * row is in torchlib.c; helpers shared across the library are declared
 * in torchlib_core.h and torchlib_int.h.
 */
#include "torchlib.h"
#include "torchlib_int.h"

/* ---- lowerings: indexing and scatter ---- */

/* 1 when a subscript holds a tensor or a list (advanced indexing). */
int tl_index_has_tensor(const Obj *index)
{
    if (!index)
        return 0;
    if (index->kind != O_TUPLE)
        return is_tensor(index) || index->kind == O_LIST;
    for (size_t i = 0; i < index->n; i++)
        if (is_tensor(index->items[i]) || index->items[i]->kind == O_LIST)
            return 1;
    return 0;
}

enum { INDEX_LIST_MAX = 256 };

/* A list of Python ints in a subscript (x[[0, 2]]) as an int64 index
 * tensor: the concatenation of one-element constants. -1 after a
 * diagnostic. */
static int32_t index_list(Interp *I, const Obj *l, int32_t node)
{
    int32_t parts[INDEX_LIST_MAX];
    int64_t one = graph_dim_const(G(I), 1), dim0 = 0;
    if (l->n == 0 || l->n > INDEX_LIST_MAX) {
        interp_break(I, node, RULE_TNG203, "a list index of %zu items (1 to %d are supported)", l->n,
                     INDEX_LIST_MAX);
        return -1;
    }
    for (size_t i = 0; i < l->n; i++) {
        const Obj *o = l->items[i];
        if (is_unknown(o))
            return -1;
        if (o->kind == O_BOOL) {
            interp_break(I, node, RULE_TNG203, "indexing with a list of bools (a mask) has a dynamic output "
                         "shape (the number of true elements is only known at run time)");
            return -1;
        }
        if (o->kind != O_INT) {
            interp_break(I, node, RULE_TNG203, "a list index must hold Python ints (item %zu does not)", i);
            return -1;
        }
        if ((parts[i] = tl_tv(I, tl_full_of(I, &one, 1, (double)o->i, DT_I64, node), node)) < 0)
            return -1;
    }
    if (l->n == 1)
        return parts[0];
    return tl_tv(I, tl_emit1(I, OP_CAT, parts, (uint32_t)l->n, &dim0, 1, 0, 0, DT_UNKNOWN, node), node);
}

/* An index tensor's value: integer (PyTorch: int64) tensors only; a bool
 * mask selects a data-dependent number of elements (TNG203). -1 after a
 * diagnostic. */
static int32_t index_tensor(Interp *I, Obj *o, int32_t node)
{
    int32_t v = tl_tv(I, o, node);
    if (v < 0)
        return -1;
    if (val_at(I, v)->dtype == DT_BOOL) {
        interp_break(I, node, RULE_TNG203, "indexing with a bool mask has a dynamic output shape (the number "
                     "of true elements is only known at run time)");
        return -1;
    }
    if (val_at(I, v)->dtype != DT_I64) {
        interp_break(I, node, RULE_TNG207, "tensors used as indices must be int64 (torch.long), got %s",
                     dtype_name(val_at(I, v)->dtype));
        return -1;
    }
    return v;
}

/* The parts of an advanced subscript t[index] applied to value *x except
 * the tensors: ints select (their dims go), slices slice, None inserts a
 * dim, tensors keep their dim, whose position in the result goes to pos[]
 * and value to ixv[]. store: an assignment target, where only full slices,
 * ints next to the tensors (0-d index tensors then) and ellipses may
 * appear. Returns the number of tensors, or -1 after a diagnostic. */
static int index_walk(Interp *I, int32_t *x, Obj *index, int32_t node, int store, int64_t *pos, int32_t *ixv)
{
    Obj *const *items = index->kind == O_TUPLE ? index->items : &index;
    size_t cnt = index->kind == O_TUPLE ? index->n : 1;
    int n = rank_of(I, *x), consumed = 0, ell = 0, k = 0;
    RuleId rule = store ? RULE_TNG211 : RULE_TNG203;
    for (size_t i = 0; i < cnt; i++) {
        Obj *o = items[i];
        if (is_unknown(o))
            return -1;
        if (o->kind == O_ELLIPSIS)
            ell++;
        else if (o->kind != O_NONE)
            consumed++;
    }
    if (ell > 1 || consumed > n) {
        interp_break(I, node, RULE_TNG206, ell > 1 ? "an index can only have a single ellipsis"
                                                   : "too many indices for a tensor of dimension %d", n);
        return -1;
    }
    int64_t p = 0;   /* the dim of *x the next part applies to */
    for (size_t i = 0; i < cnt; i++) {
        Obj *o = items[i];
        int64_t c;
        if (o->kind == O_ELLIPSIS) {
            p += n - consumed;
        } else if (is_tensor(o) || o->kind == O_LIST) {
            if (k >= GRAPH_MAX_DIMS ||
                (ixv[k] = is_tensor(o) ? index_tensor(I, o, node) : index_list(I, o, node)) < 0)
                return -1;
            pos[k++] = p++;
        } else if (o->kind == O_NONE) {
            if (store) {
                interp_break(I, node, RULE_TNG211, "assignment through an index with None");
                return -1;
            }
            Obj *u = tl_unsqueeze_at(I, *x, p++, node);
            if ((*x = tl_tv(I, u, node)) < 0)
                return -1;
        } else if ((o->kind == O_INT || o->kind == O_DIM) && o->kind != O_BOOL) {
            if (!tl_const_int(I, o, node, "an index", &c))
                return -1;
            if (store) {   /* a 0-d index tensor at this dim */
                if (k >= GRAPH_MAX_DIMS)
                    return -1;
                Obj *f = tl_full_of(I, NULL, 0, (double)c, DT_I64, node);
                if ((ixv[k] = tl_tv(I, f, node)) < 0)
                    return -1;
                pos[k++] = p++;
                continue;
            }
            int64_t attr[2] = {p, c};
            Obj *s = tl_emit_x(I, OP_SELECT, *x, attr, 2, 0, DT_UNKNOWN, node);
            if ((*x = tl_tv(I, s, node)) < 0)
                return -1;
        } else if (o->kind == O_SLICE && o->n >= 3) {
            int64_t b[3];
            static const int64_t def[3] = {0, GRAPH_END, 1};
            for (int j = 0; j < 3; j++) {
                if (is_none(o->items[j]))
                    b[j] = def[j];
                else if (!tl_const_int(I, o->items[j], node, "a slice bound", &b[j]))
                    return -1;
            }
            if (b[2] <= 0) {
                interp_break(I, node, RULE_TNG203, "a slice step must be positive");
                return -1;
            }
            if (b[0] == 0 && b[1] == GRAPH_END && b[2] == 1) {
                p++;
                continue;
            }
            if (store) {
                interp_break(I, node, RULE_TNG211, "assignment through tensor indices together with a slice "
                             "other than ':'");
                return -1;
            }
            Obj *s = tl_slice_of(I, *x, p++, b[0], b[1], b[2], node);
            if ((*x = tl_tv(I, s, node)) < 0)
                return -1;
        } else {
            interp_break(I, node, rule, "a tensor index tngc cannot lower (tensors, ints, slices, None and "
                         "... are supported)");
            return -1;
        }
    }
    return k;
}

/* 1 when pos[0..k) are consecutive dims. */
static int index_adjacent(const int64_t *pos, int k)
{
    for (int j = 1; j < k; j++)
        if (pos[j] != pos[j - 1] + 1)
            return 0;
    return 1;
}

/* t[index] with tensors in the index: PyTorch's advanced indexing. The
 * indexed dims are replaced by the indices' broadcast shape where they
 * are, or first when slices separate them (then x is permuted so that
 * they come first). */
Obj *tl_index_subscript(Interp *I, Obj *t, Obj *index, int32_t node)
{
    int32_t x = tl_tv(I, t, node), in[GRAPH_MAX_DIMS + 1], ixv[GRAPH_MAX_DIMS];
    int64_t pos[GRAPH_MAX_DIMS];
    if (x < 0)
        return unk(I);
    int k = index_walk(I, &x, index, node, 0, pos, ixv);
    if (k <= 0)
        return unk(I);
    if (!index_adjacent(pos, k)) {
        int64_t perm[GRAPH_MAX_DIMS];
        int n = rank_of(I, x), m = 0;
        for (int j = 0; j < k; j++)
            perm[m++] = pos[j];
        for (int d = 0, j = 0; d < n; d++) {
            if (j < k && pos[j] == d)
                j++;
            else
                perm[m++] = d;
        }
        Obj *pm = tl_emit_x(I, OP_PERMUTE, x, perm, (uint32_t)n, 0, DT_UNKNOWN, node);
        if ((x = tl_tv(I, pm, node)) < 0)
            return unk(I);
        pos[0] = 0;
    }
    in[0] = x;
    memcpy(in + 1, ixv, (size_t)k * sizeof in[0]);
    return tl_emit1(I, OP_INDEX, in, (uint32_t)k + 1, pos, 1, 0, 0, DT_UNKNOWN, node);
}

/* The value written by dst[...] = v: a tensor of dst's dtype (as PyTorch
 * requires), or a Python number as a 0-d tensor of it. -1 after a
 * diagnostic. */
int32_t tl_index_values(Interp *I, int32_t dst, Obj *v, int32_t node)
{
    DType dt = val_at(I, dst)->dtype;
    double f;
    int is_int;
    if (tl_py_number(v, &f, &is_int))
        return tl_tv(I, tl_full_of(I, NULL, 0, f, dt, node), node);
    if (!is_tensor(v)) {
        if (!is_unknown(v))
            interp_break(I, node, RULE_TNG211, "assigning something that is not a tensor or a number");
        return -1;
    }
    int32_t x = tl_tv(I, v, node);
    if (x >= 0 && val_at(I, x)->dtype != dt) {
        interp_break(I, node, RULE_TNG207, "index_put requires the source and destination dtypes to match, "
                     "got %s for the destination and %s for the source", dtype_name(dt),
                     dtype_name(val_at(I, x)->dtype));
        return -1;
    }
    return x;
}

/* INDEX_PUT of values into dst (an input, a buffer, or their in-place
 * versions) through indices ixv[0..k) on dims d..d+k-1: the write lands in
 * dst's storage as copy_ does; t now holds the new version. */
static int index_put_into(Interp *I, Obj *t, int32_t dst, int32_t vals, const int32_t *ixv, int k, int64_t d,
                          int accumulate, int32_t node, const char *what)
{
    int32_t in[GRAPH_MAX_DIMS + 2];
    int64_t attr[2] = {d, accumulate};
    (void)dst;
    if ((in[0] = views_write_begin(I, t, node, what)) < 0)
        return -1;
    in[1] = vals;
    memcpy(in + 2, ixv, (size_t)k * sizeof in[0]);
    int32_t op = tl_emit(I, OP_INDEX_PUT, in, (uint32_t)k + 2, attr, 2, 0, 0, DT_UNKNOWN, node);
    if (op < 0)
        return -1;
    return views_write_end(I, t, G(I)->ops.v[op].out, node);
}

/* dst[index] = v where slices separate the indices (pos[0..k) not
 * consecutive): as PyTorch does, ints (and 0-d index tensors) select first;
 * then the broadcast dims of the tensor indices stay in place when no slice
 * separates those, else they come first, followed by the sliced dims in
 * order. Every dim from the first written one (dim 0 when they come
 * first) to the last indexed one gets an index here, so that one index_put
 * on consecutive dims writes the same elements: each ':' dim an arange of
 * its size, all of them shaped to broadcast to that layout. ixv becomes the
 * new indices (their count is returned, -1 after a diagnostic) and *d0 the
 * first dim. */
static int index_spread(Interp *I, int32_t dst, const int64_t *pos, int32_t *ixv, int k, int64_t *d0,
                        int32_t node)
{
    DimId dd[GRAPH_MAX_DIMS];
    int32_t at[GRAPH_MAX_DIMS];   /* per dim: its index among ixv, or -1 */
    int n = tl_dims_of(I, dst, dd), r = 0, first = -1, last = (int)pos[k - 1], adjacent = 1, prev = -1;
    for (int d = 0; d < n; d++)
        at[d] = -1;
    for (int j = 0; j < k; j++) {
        const Val *iv = val_at(I, ixv[j]);
        if (iv->dtype == DT_BOOL) {
            interp_break(I, node, RULE_TNG211, "assignment through a bool mask index separated from other "
                         "indices by a slice");
            return -1;
        }
        at[pos[j]] = j;
        if (iv->ndim == 0)
            continue;
        r = iv->ndim > r ? iv->ndim : r;
        if (first < 0)
            first = (int)pos[j];
        for (int d = prev + 1; prev >= 0 && d < pos[j]; d++)
            adjacent &= at[d] >= 0;   /* only ints between two tensor indices */
        prev = (int)pos[j];
    }
    *d0 = adjacent ? pos[0] : 0;
    /* the layout: slice dims before the broadcast dims (`lead` of them),
     * the broadcast dims (r), the other slice dims */
    int lead = 0, nslice = 0;
    for (int d = (int)*d0; d <= last; d++)
        if (at[d] < 0) {
            nslice++;
            lead += adjacent && first >= 0 && d < first;
        }
    int rank = nslice + r;
    if (rank > GRAPH_MAX_DIMS) {
        interp_break(I, node, RULE_TNG211, "assignment through separated indices: the written view would "
                     "have more than %d dims", GRAPH_MAX_DIMS);
        return -1;
    }
    int32_t out[GRAPH_MAX_DIMS];
    int m = 0, q = 0;
    DimId one = graph_dim_const(G(I), 1), shp[GRAPH_MAX_DIMS];
    for (int d = (int)*d0; d <= last; d++, m++) {
        for (int i = 0; i < rank; i++)
            shp[i] = one;
        int32_t x;
        if (at[d] < 0) {   /* a ':' dim: arange(size) at its place in the layout */
            int qq = q < lead ? q : q + r;
            int64_t attr[2] = {dd[d], graph_dim_const(G(I), 0)};
            x = tl_tv(I, tl_emit1(I, OP_ARANGE, NULL, 0, attr, 2, 0, 1, DT_I64, node), node);
            shp[qq] = dd[d];
            q++;
        } else if (val_at(I, ixv[at[d]])->ndim == 0) {
            out[m] = ixv[at[d]];
            continue;
        } else {   /* a tensor index: its dims right-aligned in the broadcast dims */
            DimId id[GRAPH_MAX_DIMS];
            int ni = tl_dims_of(I, ixv[at[d]], id);
            x = ixv[at[d]];
            for (int i = 0; i < ni; i++)
                shp[lead + r - ni + i] = id[i];
        }
        if (x < 0 || (out[m] = tl_tv(I, tl_reshape_to(I, x, shp, rank, node), node)) < 0)
            return -1;
    }
    memcpy(ixv, out, (size_t)m * sizeof out[0]);
    return m;
}

/* t[index] = v with tensors in the index: index_put_ on the consecutive
 * indexed dims (ints beside them become 0-d indices). */
int tl_index_store_subscript(Interp *I, Obj *t, Obj *index, Obj *v, int32_t node)
{
    int32_t dst = tl_tv(I, t, node), x = dst, ixv[GRAPH_MAX_DIMS];
    int64_t pos[GRAPH_MAX_DIMS];
    if (dst < 0 || is_unknown(v))
        return -1;
    int k = index_walk(I, &x, index, node, 1, pos, ixv);
    if (k <= 0)
        return -1;
    int32_t vals = tl_index_values(I, dst, v, node);
    if (vals < 0)
        return -1;
    if (!index_adjacent(pos, k)) {
        int64_t d0;
        if ((k = index_spread(I, dst, pos, ixv, k, &d0, node)) < 0)
            return -1;
        return index_put_into(I, t, dst, vals, ixv, k, d0, 0, node, "assignment through tensor indices");
    }
    return index_put_into(I, t, dst, vals, ixv, k, pos[0], 0, node, "assignment through tensor indices");
}

/* The in-place form of an out-of-place result res: res written into dst
 * as every in-place op writes (views_write: into an input's or buffer's
 * storage, through a view into its base; TNG211 into a parameter). */
static Obj *index_inplace(Interp *I, Obj *dst, Obj *res, int32_t node, const char *what)
{
    int32_t v = tl_tv(I, res, node);
    if (v < 0)
        return unk(I);
    return views_write(I, dst, v, node, what);
}

/* An index tensor argument (any integer dtype; the shape rule checks
 * which). -1 after a diagnostic. */
static int32_t index_arg(Interp *I, Call *c, Obj *o, const char *what)
{
    if (!is_tensor(o)) {
        if (!is_unknown(o))
            interp_break(I, c->node, RULE_TNG203, "%s: %s must be a tensor", c->full, what);
        return -1;
    }
    return tl_tv(I, o, c->node);
}

/* x.index_select(dim, index) | torch.index_select(x, dim, index) */
Obj *lo_index_select(Interp *I, Call *c)
{
    int32_t in[2] = {tl_x0(I, c), -1};
    int64_t dim;
    if (in[0] < 0 || !tl_dim_arg(I, P(c, "dim"), rank_of(I, in[0]), c->node, "dim", &dim) ||
        (in[1] = index_arg(I, c, P(c, "index"), "index")) < 0)
        return unk(I);
    return tl_emit1(I, c->arg ? OP_GATHER : OP_INDEX_SELECT, in, 2, &dim, 1, 0, 0, DT_UNKNOWN, c->node);
}

/* x.scatter(dim, index, src | value, reduce=None), scatter_ (arg bit
 * IX_INPLACE), scatter_add(dim, index, src) and scatter_add_ (IX_ADD). */
Obj *lo_scatter(Interp *I, Call *c)
{
    Obj *self = P0(c), *src = P_if(c, "src"), *red = P_if(c, "reduce");
    int32_t in[3] = {tl_x0(I, c), -1, -1};
    int64_t attr[2] = {0, 0};
    double value = 0;
    int is_int;
    if (!src)
        src = P(c, "value");
    if (in[0] < 0 || !tl_dim_arg(I, P(c, "dim"), rank_of(I, in[0]), c->node, "dim", &attr[0]) ||
        (in[1] = index_arg(I, c, P(c, "index"), "index")) < 0)
        return unk(I);
    if (is_tensor(src)) {
        if ((in[2] = tl_tv(I, src, c->node)) < 0)
            return unk(I);
    } else if ((c->arg & IX_ADD) || !tl_py_number(src, &value, &is_int)) {
        if (!is_unknown(src))
            interp_break(I, c->node, RULE_TNG203, "%s expects %s", c->full,
                         c->arg & IX_ADD ? "a src tensor" : "a src tensor or a number value");
        return unk(I);
    }
    if (!is_none(red)) {
        const char *r = red->kind == O_STR ? red->s : NULL;
        if (r && streq(r, "add"))
            attr[1] = 1;
        else if (r && streq(r, "multiply"))
            attr[1] = 2;
        else {
            if (!is_unknown(red))
                interp_break(I, c->node, RULE_TNG203, "%s: reduce must be \"add\" or \"multiply\"", c->full);
            return unk(I);
        }
    }
    Obj *res = c->arg & IX_ADD ? tl_emit1(I, OP_SCATTER_ADD, in, 3, attr, 1, 0, 0, DT_UNKNOWN, c->node)
                               : tl_emit1(I, OP_SCATTER, in, 3, attr, 2, value, 0, DT_UNKNOWN, c->node);
    if (!(c->arg & IX_INPLACE) || !is_tensor(res))
        return res;
    return index_inplace(I, self, res, c->node, c->full);
}

/* x.index_add(dim, index, source, alpha=1), index_add_ (IX_INPLACE);
 * index_copy(dim, index, source), index_copy_ (arg without IX_ADD). */
Obj *lo_index_add(Interp *I, Call *c)
{
    Obj *self = P0(c), *alpha = P_if(c, "alpha");
    int32_t in[3] = {tl_x0(I, c), -1, -1};
    int64_t dim;
    double a = 1;
    int is_int;
    if (in[0] < 0 || !tl_dim_arg(I, P(c, "dim"), rank_of(I, in[0]), c->node, "dim", &dim) ||
        (in[1] = index_arg(I, c, P(c, "index"), "index")) < 0 ||
        (in[2] = index_arg(I, c, P(c, "source"), "source")) < 0)
        return unk(I);
    if ((c->arg & IX_ADD) && !is_none(alpha) && !tl_py_number(alpha, &a, &is_int)) {
        if (!is_unknown(alpha))
            interp_break(I, c->node, RULE_TNG203, "%s: alpha must be a number", c->full);
        return unk(I);
    }
    Obj *res = tl_emit1(I, c->arg & IX_ADD ? OP_INDEX_ADD : OP_INDEX_COPY, in, 3, &dim, 1, a, 0, DT_UNKNOWN,
                        c->node);
    if (!(c->arg & IX_INPLACE) || !is_tensor(res))
        return res;
    return index_inplace(I, self, res, c->node, c->full);
}

/* x.index_put_(indices, values, accumulate=False) (IX_INPLACE), and
 * x.index_put / torch.index_put (a copy written). indices: a tuple of
 * int64 tensors for dims 0.. */
Obj *lo_index_put(Interp *I, Call *c)
{
    Obj *self = P0(c), *ix = P(c, "indices"), *acc = P(c, "accumulate");
    int32_t x = tl_x0(I, c), ixv[GRAPH_MAX_DIMS];
    if (x < 0)
        return unk(I);
    if (!is_seq(ix) || ix->n == 0 || ix->n > GRAPH_MAX_DIMS) {
        if (!is_unknown(ix))
            interp_break(I, c->node, RULE_TNG203, "%s expects a tuple of 1 to %d index tensors", c->full,
                         GRAPH_MAX_DIMS);
        return unk(I);
    }
    for (size_t j = 0; j < ix->n; j++) {
        if (is_unknown(ix->items[j]))
            return unk(I);
        if (!is_tensor(ix->items[j]))
            return interp_break(I, c->node, RULE_TNG203, "%s: index %zu is not a tensor (None and other "
                                "entries are not supported)", c->full, j);
        if ((ixv[j] = index_tensor(I, ix->items[j], c->node)) < 0)
            return unk(I);
    }
    if (!is_none(acc) && acc->kind != O_BOOL) {
        if (!is_unknown(acc))
            interp_break(I, c->node, RULE_TNG203, "%s: accumulate must be True or False", c->full);
        return unk(I);
    }
    int32_t vals = tl_index_values(I, x, P(c, "values"), c->node);
    if (vals < 0)
        return unk(I);
    Obj *t = self;
    if (!(c->arg & IX_INPLACE)) {
        if (!interp_tracing(I))
            return self;   /* host tensors are shapes only */
        t = tl_emit_x(I, OP_CLONE, x, NULL, 0, 0, DT_UNKNOWN, c->node);
        if ((x = tl_tv(I, t, c->node)) < 0)
            return unk(I);
        int32_t in[GRAPH_MAX_DIMS + 2] = {x, vals};
        int64_t attr[2] = {0, !is_none(acc) && acc->i};
        memcpy(in + 2, ixv, ix->n * sizeof in[0]);
        return tl_emit1(I, OP_INDEX_PUT, in, (uint32_t)ix->n + 2, attr, 2, 0, 0, DT_UNKNOWN, c->node);
    }
    if (index_put_into(I, t, x, vals, ixv, (int)ix->n, 0, !is_none(acc) && acc->i, c->node, c->full) < 0)
        return unk(I);
    return t;
}

/* F.one_hot(x, num_classes): zeros(x.shape + [n], int64) with 1 scattered
 * along the new last dim at x's values (out of [0, n) is a run-time
 * error). num_classes=-1 (from the data) is a dynamic output shape. */
Obj *lo_one_hot(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    int64_t n, d[GRAPH_MAX_DIMS];
    Obj *nc = P(c, "num_classes");
    if (x < 0)
        return unk(I);
    if (!nc || (obj_int_value(nc, &n) && n == -1))
        return interp_break(I, c->node, RULE_TNG203, "one_hot without num_classes has a dynamic output shape "
                            "(the largest class is only known at run time): pass num_classes");
    if (!tl_const_int(I, nc, c->node, "num_classes", &n))
        return unk(I);
    if (n < 0)
        return interp_break(I, c->node, RULE_TNG206, "num_classes must be >= 0, got %lld", (long long)n);
    if (val_at(I, x)->dtype != DT_I64)
        return interp_break(I, c->node, RULE_TNG207, "one_hot is only applicable to int64 index tensors, got %s",
                            dtype_name(val_at(I, x)->dtype));
    int r = rank_of(I, x);
    if (r >= GRAPH_MAX_DIMS)
        return interp_break(I, c->node, RULE_TNG206, "one_hot of a %d-d tensor has too many dims", r);
    for (int i = 0; i < r; i++)
        d[i] = val_at(I, x)->dims[i];
    d[r] = graph_dim_const(G(I), n);
    Obj *z = tl_full_of(I, d, r + 1, 0, DT_I64, c->node), *ix = tl_unsqueeze_at(I, x, r, c->node);
    int32_t in[3] = {tl_tv(I, z, c->node), tl_tv(I, ix, c->node), -1};
    int64_t attr[2] = {r, 0};
    if (in[0] < 0 || in[1] < 0)
        return unk(I);
    return tl_emit1(I, OP_SCATTER, in, 3, attr, 2, 1.0, 0, DT_UNKNOWN, c->node);
}
