/*
 * torchlib_shape.c - the torch library (torchlib.c), shapes: expand, repeat, flip, roll, movedim, unflatten, pad, tri.
 * Each lowering (lo_*) is under the Python signature it lowers; its lib[]
 * row is in torchlib.c; helpers shared across the library are declared
 * in torchlib_core.h and torchlib_int.h.
 */
#include "torchlib.h"
#include "torchlib_int.h"

/* ---- lowerings: shape ---- */

/* One bound of a slice on a dim of size n as a DimId in [0, n]: a symbolic
 * int d (min(d, n)), or a Python int c (negative counts from the end),
 * GRAPH_END for n. */
static DimId dyn_bound(Interp *I, DimId n, DimId d, int64_t c)
{
    Graph *g = G(I);
    if (d >= 0)
        return graph_dim_min(g, d, n);
    if (c == GRAPH_END || c >= (int64_t)1 << 62)
        return n;
    if (c < 0)
        return graph_dim_max(g, graph_dim_add(g, n, graph_dim_const(g, c < -((int64_t)1 << 62) ? -((int64_t)1 << 62) : c)),
                             graph_dim_const(g, 0));
    return graph_dim_min(g, graph_dim_const(g, c), n);
}

/* x[..., start:end:step, ...] along dim (normalised) where a bound is a
 * symbolic int (start_d / end_d >= 0; else the int start / end): a
 * SLICE_DYN with both bounds clamped to the dim's size. */
Obj *tl_slice_dyn_of(Interp *I, int32_t x, int64_t dim, DimId start_d, int64_t start, DimId end_d,
                     int64_t end, int64_t step, int32_t node)
{
    DimId n = val_at(I, x)->dims[dim];
    int64_t attr[4] = {dim, dyn_bound(I, n, start_d, start), dyn_bound(I, n, end_d, end), step};
    return tl_emit_x(I, OP_SLICE_DYN, x, attr, 4, 0, DT_UNKNOWN, node);
}

/* narrow where start or length is a symbolic int (a dim of a geared
 * input): non-negative ints, the end start + length; a SLICE_DYN. */
Obj *tl_narrow_dyn(Interp *I, Call *c, int32_t x)
{
    int64_t dim;
    if (!tl_dim_arg(I, P(c, "dim"), rank_of(I, x), c->node, "the narrow dim", &dim))
        return unk(I);
    int64_t s[2];
    Obj *so = P(c, "start"), *lo = P(c, "length");
    if (!tl_size_item(I, so, c->node, 0, &s[0]) || !tl_size_item(I, lo, c->node, 0, &s[1]))
        return unk(I);
    DimId end = graph_dim_add(G(I), (DimId)s[0], (DimId)s[1]);
    return tl_slice_dyn_of(I, x, dim, (DimId)s[0], 0, end, 0, 1, c->node);
}

/* x.triu(diagonal=0) | torch.triu(x, diagonal=0) | x.tril | torch.tril */
Obj *lo_tri(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    int64_t k = 0;
    if (x < 0)
        return unk(I);
    Obj *d = P(c, "diagonal");
    if (d && !tl_const_int(I, d, c->node, "the diagonal", &k))
        return unk(I);
    return tl_emit_x(I, (OpKind)c->arg, x, &k, 1, 0, DT_UNKNOWN, c->node);
}

/* An EXPAND of value x to dims d[0..n) (a materialised broadcast). */
static Obj *expand_to(Interp *I, int32_t x, const DimId *d, int n, int32_t node)
{
    int64_t attr[GRAPH_MAX_DIMS];
    for (int i = 0; i < n; i++)
        attr[i] = d[i];
    return tl_emit_x(I, OP_EXPAND, x, attr, (uint32_t)n, 0, DT_UNKNOWN, node);
}

/* x.expand(*sizes) | x.expand(sizes) | torch.broadcast_to(x, shape) |
 * x.broadcast_to(shape): -1 keeps x's size there; new dims go in front. A
 * copy, not a view: tngc materialises it (writes through an expanded view
 * are an error in torch anyway). */
Obj *lo_expand(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int64_t s[GRAPH_MAX_DIMS];
    int n = tl_sizes_arg(I, P_at(c, 1), c->node, 1, s);   /* size (broadcast_to: shape) */
    if (n < 0)
        return unk(I);
    DimId xd[GRAPH_MAX_DIMS], d[GRAPH_MAX_DIMS];
    int r = tl_dims_of(I, x, xd);
    if (n < r)
        return interp_break(I, c->node, RULE_TNG206, "expand: the number of sizes (%d) must be at least the "
                            "tensor's rank (%d)", n, r);
    for (int i = 0; i < n; i++) {
        int j = i - (n - r);
        if (s[i] != GRAPH_INFER) {
            d[i] = (DimId)s[i];
        } else if (j < 0) {
            return interp_break(I, c->node, RULE_TNG206, "expand: -1 is not allowed for a new leading dim (%d)", i);
        } else {
            d[i] = xd[j];
        }
    }
    return expand_to(I, x, d, n, c->node);
}

/* x.expand_as(other) */
Obj *lo_expand_as(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c), o = tl_tv(I, P(c, "other"), c->node);
    if (x < 0)
        return unk(I);
    if (o < 0)
        return is_unknown(P(c, "other")) ? unk(I)
                                                : interp_break(I, c->node, RULE_TNG203, "expand_as expects a tensor");
    DimId d[GRAPH_MAX_DIMS];
    int n = tl_dims_of(I, o, d);
    return expand_to(I, x, d, n, c->node);
}

/* x.repeat(*sizes): tiles x; as expand of x with a 1 in front of each
 * repeated dim, then a reshape merging each repeat with its dim. */
Obj *lo_repeat(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int64_t s[GRAPH_MAX_DIMS];
    int n = tl_sizes_arg(I, P(c, "repeats"), c->node, 0, s);
    if (n < 0)
        return unk(I);
    Graph *g = G(I);
    DimId xd[GRAPH_MAX_DIMS], pad[GRAPH_MAX_DIMS], mid[2 * GRAPH_MAX_DIMS], big[2 * GRAPH_MAX_DIMS],
        out[GRAPH_MAX_DIMS];
    int r = tl_dims_of(I, x, xd);
    if (n < r)
        return interp_break(I, c->node, RULE_TNG206, "repeat: the number of repeats (%d) must be at least the "
                            "tensor's rank (%d)", n, r);
    int m = 0;
    for (int i = 0; i < n; i++) {
        int j = i - (n - r);
        pad[i] = j < 0 ? graph_dim_const(g, 1) : xd[j];
        out[i] = graph_dim_mul(g, pad[i], (DimId)s[i]);
        int64_t one;
        if (!(graph_dim_const_value(g, (DimId)s[i], &one) && one == 1)) {
            mid[m] = graph_dim_const(g, 1);
            big[m++] = (DimId)s[i];
        }
        mid[m] = pad[i];
        big[m++] = pad[i];
    }
    if (m > GRAPH_MAX_DIMS)
        return interp_break(I, c->node, RULE_TNG206, "repeat: more than %d dims once each repeated dim is split "
                            "(tngc lowers repeat to expand)", GRAPH_MAX_DIMS);
    if (m == r) {   /* nothing repeats: a copy */
        Obj *v = tl_reshape_to(I, x, pad, n, c->node);
        int32_t xv = tl_tv(I, v, c->node);
        return xv < 0 ? unk(I) : tl_emit_x(I, OP_CLONE, xv, NULL, 0, 0, DT_UNKNOWN, c->node);
    }
    int32_t v = tl_tv(I, tl_reshape_to(I, x, mid, m, c->node), c->node);
    if (v < 0)
        return unk(I);
    if ((v = tl_tv(I, expand_to(I, v, big, m, c->node), c->node)) < 0)
        return unk(I);
    return tl_reshape_to(I, v, out, n, c->node);
}

/* x.repeat_interleave(repeats, dim=None) | torch.repeat_interleave: an int
 * repeats (a tensor of repeats would give a data-dependent shape: TNG203);
 * each element repeated along dim (x flattened when dim is None), as an
 * expand of a new dim after it and a reshape merging the two. */
Obj *lo_repeat_interleave(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    Obj *ro = P(c, "repeats");
    if (is_tensor(ro))
        return interp_break(I, c->node, RULE_TNG203, "repeat_interleave with a tensor of repeats (argument "
                            "'repeats': an int is supported; a tensor gives a dynamic output shape)");
    int64_t rs;
    if (!tl_size_item(I, ro, c->node, 0, &rs))
        return unk(I);
    Obj *dd = P(c, "dim");
    Graph *g = G(I);
    DimId d[GRAPH_MAX_DIMS + 1];
    int n = tl_dims_of(I, x, d);
    int64_t dim = 0;
    if (!dd || is_none(dd)) {   /* flattened */
        DimId all = graph_dim_const(g, 1);
        for (int i = 0; i < n; i++)
            all = graph_dim_mul(g, all, d[i]);
        int32_t v = tl_tv(I, tl_reshape_to(I, x, &all, 1, c->node), c->node);
        if (v < 0)
            return unk(I);
        x = v;
        n = tl_dims_of(I, x, d);
    } else if (!tl_dim_arg(I, dd, n, c->node, "the dim", &dim)) {
        return unk(I);
    }
    if (n == 0) {   /* a 0-d tensor with a dim: one element */
        d[0] = graph_dim_const(g, 1);
        n = 1;
        int32_t v = tl_tv(I, tl_reshape_to(I, x, d, 1, c->node), c->node);
        if (v < 0)
            return unk(I);
        x = v;
    }
    if (n >= GRAPH_MAX_DIMS)
        return interp_break(I, c->node, RULE_TNG206, "repeat_interleave of a %d-d tensor (at most %d)", n,
                            GRAPH_MAX_DIMS - 1);
    DimId e[GRAPH_MAX_DIMS + 1], out[GRAPH_MAX_DIMS];
    for (int i = 0, k = 0; i < n; i++) {
        e[k++] = d[i];
        out[i] = d[i];
        if (i == dim) {
            e[k++] = (DimId)rs;
            out[i] = graph_dim_mul(g, d[i], (DimId)rs);
        }
    }
    memmove(&d[dim + 2], &d[dim + 1], (size_t)(n - dim - 1) * sizeof d[0]);
    d[dim + 1] = graph_dim_const(g, 1);
    int32_t v = tl_tv(I, tl_reshape_to(I, x, d, n + 1, c->node), c->node);
    if (v < 0 || (v = tl_tv(I, expand_to(I, v, e, n + 1, c->node), c->node)) < 0)
        return unk(I);
    return tl_reshape_to(I, v, out, n, c->node);
}

/* Dims given as one int or a tuple/list (what `int... dims` binds: the
 * varargs, or one sequence), NULL: none; normalised for rank r into out.
 * Returns the count, or -1 after a diagnostic. */
static int dims_list(Interp *I, Call *c, Obj *one, int r, int64_t *out, int max)
{
    Obj *const *items = is_seq(one) ? one->items : &one;
    size_t n = is_seq(one) ? one->n : one != NULL;
    if ((int)n > max) {
        interp_break(I, c->node, RULE_TNG206, "%s: more than %d dims", c->full, max);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (!tl_dim_arg(I, items[i], r, c->node, "a dim", &out[i]))
            return -1;
    return (int)n;
}

/* x.flip(dims) | torch.flip(x, dims) | x.flip(0, 1) | fliplr (dim 1) |
 * flipud (dim 0) */
Obj *lo_flip(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int64_t dims[GRAPH_MAX_DIMS];
    int n;
    if (c->arg) {   /* fliplr: dim 1 (2-d at least), flipud: dim 0 */
        dims[0] = c->arg == 1 ? 1 : 0;
        if (rank_of(I, x) <= dims[0])
            return interp_break(I, c->node, RULE_TNG206, "%s needs a tensor of at least %d dims", c->full,
                                (int)dims[0] + 1);
        n = 1;
    } else if ((n = dims_list(I, c, P(c, "dims"), rank_of(I, x), dims, GRAPH_MAX_DIMS)) < 0) {
        return unk(I);
    }
    return tl_emit_x(I, OP_FLIP, x, dims, (uint32_t)n, 0, DT_UNKNOWN, c->node);
}

/* x.roll(shifts, dims=None) | torch.roll: with no dims, x is rolled as
 * flattened (and reshaped back) */
Obj *lo_roll(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    Obj *so = P(c, "shifts"), *dd = P(c, "dims");
    Obj *const *items = is_seq(so) ? so->items : &so;
    size_t ns = is_seq(so) ? so->n : 1;
    int64_t shifts[GRAPH_MAX_ATTRS / 2], dims[GRAPH_MAX_ATTRS / 2], attr[GRAPH_MAX_ATTRS];
    if (ns > GRAPH_MAX_ATTRS / 2)
        return interp_break(I, c->node, RULE_TNG206, "roll of more than %d dims", GRAPH_MAX_ATTRS / 2);
    for (size_t i = 0; i < ns; i++)
        if (!tl_const_int(I, items[i], c->node, "a roll shift", &shifts[i]))
            return unk(I);
    if (!dd || is_none(dd)) {   /* flattened */
        if (ns != 1)
            return interp_break(I, c->node, RULE_TNG206, "roll: 'shifts' must be one int when 'dims' is None");
        DimId d[GRAPH_MAX_DIMS], all = graph_dim_const(G(I), 1);
        int n = tl_dims_of(I, x, d);
        for (int i = 0; i < n; i++)
            all = graph_dim_mul(G(I), all, d[i]);
        int32_t v = tl_tv(I, tl_reshape_to(I, x, &all, 1, c->node), c->node);
        if (v < 0)
            return unk(I);
        attr[0] = shifts[0];
        attr[1] = 0;
        int32_t r = tl_tv(I, tl_emit_x(I, OP_ROLL, v, attr, 2, 0, DT_UNKNOWN, c->node), c->node);
        return r < 0 ? unk(I) : tl_reshape_to(I, r, d, n, c->node);
    }
    int nd = dims_list(I, c, P(c, "dims"), rank_of(I, x), dims, GRAPH_MAX_ATTRS / 2);
    if (nd < 0)
        return unk(I);
    if ((size_t)nd != ns)
        return interp_break(I, c->node, RULE_TNG206, "roll: 'shifts' and 'dims' must have the same length, got %zu "
                            "and %d", ns, nd);
    for (int i = 0; i < nd; i++) {
        attr[2 * i] = shifts[i];
        attr[2 * i + 1] = dims[i];
    }
    return tl_emit_x(I, OP_ROLL, x, attr, (uint32_t)(2 * nd), 0, DT_UNKNOWN, c->node);
}

/* x.movedim(source, destination) | torch.movedim | moveaxis: a permute */
Obj *lo_movedim(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int r = rank_of(I, x);
    int64_t src[GRAPH_MAX_DIMS], dst[GRAPH_MAX_DIMS], perm[GRAPH_MAX_DIMS];
    Obj *so = P(c, "source"), *doo = P(c, "destination");
    Obj *const *si = is_seq(so) ? so->items : &so, *const *di = is_seq(doo) ? doo->items : &doo;
    size_t ns = is_seq(so) ? so->n : 1, nd = is_seq(doo) ? doo->n : 1;
    if (ns != nd || (int)ns > r)
        return interp_break(I, c->node, RULE_TNG206, "%s: 'source' and 'destination' must have the same number "
                            "of dims, at most the rank", c->full);
    uint8_t used_s[GRAPH_MAX_DIMS] = {0}, used_d[GRAPH_MAX_DIMS] = {0};
    for (size_t i = 0; i < ns; i++) {
        if (!tl_dim_arg(I, si[i], r, c->node, "a source dim", &src[i]) ||
            !tl_dim_arg(I, di[i], r, c->node, "a destination dim", &dst[i]))
            return unk(I);
        if (used_s[src[i]]++ || used_d[dst[i]]++)
            return interp_break(I, c->node, RULE_TNG206, "%s: repeated dim", c->full);
    }
    for (int i = 0; i < r; i++)
        perm[i] = -1;
    for (size_t i = 0; i < ns; i++)
        perm[dst[i]] = src[i];
    for (int i = 0, k = 0; i < r; i++) {   /* the other dims keep their order */
        if (perm[i] >= 0)
            continue;
        while (used_s[k])
            k++;
        perm[i] = k++;
    }
    return tl_permute_of(I, P0(c), x, perm, r, c->node);
}

/* x.unflatten(dim, sizes) | torch.unflatten: dim split into sizes (one
 * may be -1) */
Obj *lo_unflatten(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int64_t dim, s[GRAPH_MAX_DIMS];
    DimId d[GRAPH_MAX_DIMS], out[2 * GRAPH_MAX_DIMS];
    int r = tl_dims_of(I, x, d);
    if (!tl_dim_arg(I, P(c, "dim"), r, c->node, "the dim", &dim))
        return unk(I);
    Obj *so = P(c, "sizes");
    if (!is_seq(so))
        return interp_break(I, c->node, RULE_TNG203, "unflatten expects 'sizes' as a tuple or list");
    int n = tl_sizes_arg(I, so, c->node, 1, s);
    if (n < 0)
        return unk(I);
    if (n == 0 || r - 1 + n > GRAPH_MAX_DIMS)
        return interp_break(I, c->node, RULE_TNG206, "unflatten into %d sizes", n);
    int m = 0;
    for (int i = 0; i < r; i++) {
        if (i != dim) {
            out[m++] = d[i];
            continue;
        }
        for (int k = 0; k < n; k++)
            out[m++] = (DimId)s[k];
    }
    return tl_reshape_to(I, x, out, m, c->node);
}

/* The block F.pad's mode puts before (hi 0) or after (hi 1) value x
 * along dim (size n, constant or not), k wide: replicate (1) the edge
 * expanded, reflect (2) the k next to the edge reversed, circular (3) the
 * k at the other end. -1 after a diagnostic. */
static int32_t pad_block(Interp *I, int32_t x, int64_t dim, int64_t k, int hi, int mode, int32_t node)
{
    int64_t n;
    if (mode != 1 && graph_dim_const_value(G(I), val_at(I, x)->dims[dim], &n) && k > n - (mode == 2)) {
        interp_break(I, node, RULE_TNG206, "F.pad: padding %lld is too large for a dim of size %lld (mode %s)",
                     (long long)k, (long long)n, mode == 2 ? "reflect" : "circular");
        return -1;
    }
    Obj *b;
    if (mode == 1)
        b = hi ? tl_slice_of(I, x, dim, -1, GRAPH_END, 1, node) : tl_slice_of(I, x, dim, 0, 1, 1, node);
    else if (mode == 2)
        b = hi ? tl_slice_of(I, x, dim, -k - 1, -1, 1, node) : tl_slice_of(I, x, dim, 1, k + 1, 1, node);
    else
        b = hi ? tl_slice_of(I, x, dim, 0, k, 1, node) : tl_slice_of(I, x, dim, -k, GRAPH_END, 1, node);
    int32_t v = tl_tv(I, b, node);
    if (v < 0)
        return -1;
    if (mode == 2)
        return tl_tv(I, tl_emit_x(I, OP_FLIP, v, &dim, 1, 0, DT_UNKNOWN, node), node);
    if (mode == 1) {
        DimId d[GRAPH_MAX_DIMS];
        int r = tl_dims_of(I, v, d);
        d[dim] = graph_dim_const(G(I), k);
        return tl_tv(I, expand_to(I, v, d, r, node), node);
    }
    return v;
}

/* F.pad(x, pad, mode="constant", value=0): pad holds (before, after)
 * pairs from the last dim backwards; negative amounts crop (constant
 * mode). Lowered to slices and a cat with FULL blocks of value; modes
 * "replicate" (the edge expanded), "reflect" (flipped slices) and
 * "circular" (slices of the other end) likewise. */
Obj *lo_pad(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    Obj *po = P(c, "pad"), *mo = P(c, "mode"), *vo = P(c, "value");
    static const char *const modes[] = {"constant", "replicate", "reflect", "circular"};
    int mode = -1;
    for (int m = 0; m < 4 && mo && mo->kind == O_STR; m++)
        if (streq(mo->s, modes[m]))
            mode = m;
    if (!mo || is_none(mo))
        mode = 0;
    if (mode < 0)
        return interp_break(I, c->node, RULE_TNG203, "F.pad: mode (argument 'mode') must be \"constant\", "
                            "\"replicate\", \"reflect\" or \"circular\"");
    if (mode && vo && !is_none(vo))
        return interp_break(I, c->node, RULE_TNG203, "F.pad: a 'value' with mode %s (torch allows it only for "
                            "constant padding)", modes[mode]);
    if (!po || !is_seq(po))
        return interp_break(I, c->node, RULE_TNG203, "F.pad expects 'pad' as a tuple or list of ints");
    int r = rank_of(I, x);
    if (po->n % 2 || (int)(po->n / 2) > r)
        return interp_break(I, c->node, RULE_TNG206, "F.pad: 'pad' must have an even length of at most twice the "
                            "rank, got %zu", po->n);
    double value = 0;
    if (vo && !is_none(vo) && !tl_fill_value(I, vo, c->node, &value))
        return unk(I);
    DType dt = val_at(I, x)->dtype;
    Obj *cur = P0(c);
    for (size_t p = 0; p < po->n / 2; p++) {
        int64_t lo, hi, dim = r - 1 - (int64_t)p;
        if (!tl_const_int(I, po->items[2 * p], c->node, "a pad amount", &lo) ||
            !tl_const_int(I, po->items[2 * p + 1], c->node, "a pad amount", &hi))
            return unk(I);
        if (lo < -((int64_t)1 << 40) || hi < -((int64_t)1 << 40) || lo > ((int64_t)1 << 40) || hi > ((int64_t)1 << 40))
            return interp_break(I, c->node, RULE_TNG206, "F.pad: a pad amount out of range");
        if (mode && (lo < 0 || hi < 0))
            return interp_break(I, c->node, RULE_TNG203, "F.pad: negative padding with mode %s", modes[mode]);
        if (lo < 0 || hi < 0) {
            int32_t v = tl_tv(I, cur, c->node);
            if (v < 0)
                return unk(I);
            cur = tl_slice_of(I, v, dim, lo < 0 ? -lo : 0, hi < 0 ? hi : GRAPH_END, 1, c->node);
        }
        if (lo <= 0 && hi <= 0)
            continue;
        int32_t in[3], k = 0, v = tl_tv(I, cur, c->node);
        if (v < 0)
            return unk(I);
        DimId d[GRAPH_MAX_DIMS];
        int64_t fd[GRAPH_MAX_DIMS];
        int n = tl_dims_of(I, v, d);
        for (int i = 0; i < n; i++)
            fd[i] = d[i];
        if (lo > 0) {
            fd[dim] = graph_dim_const(G(I), lo);
            in[k] = mode ? pad_block(I, v, dim, lo, 0, mode, c->node) : tl_tv(I, tl_full_of(I, fd, n, value, dt, c->node), c->node);
            if (in[k++] < 0)
                return unk(I);
        }
        in[k++] = v;
        if (hi > 0) {
            fd[dim] = graph_dim_const(G(I), hi);
            in[k] = mode ? pad_block(I, v, dim, hi, 1, mode, c->node) : tl_tv(I, tl_full_of(I, fd, n, value, dt, c->node), c->node);
            if (in[k++] < 0)
                return unk(I);
        }
        cur = tl_emit1(I, OP_CAT, in, (uint32_t)k, &dim, 1, 0, 0, DT_UNKNOWN, c->node);
    }
    return cur;
}

/* ---- lowerings: views and reshapes ---- */

/* x.view(*shape) | x.reshape(*shape) | x.view(shape) | torch.reshape(x, shape) */
Obj *lo_reshape(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    /* x.view(dtype) is an overload of its own: the argument's value decides */
    Obj *d1 = P_at(c, 1);   /* view: dtype or size; reshape: shape */
    if (tl_dtype_of_obj(d1) != DT_UNKNOWN)
        return interp_break(I, c->node, RULE_TNG203, "view(dtype) reinterprets memory");
    int64_t attr[GRAPH_MAX_DIMS];
    int n = tl_sizes_arg(I, d1, c->node, 1, attr);
    if (n < 0)
        return unk(I);
    return tl_emit_x(I, OP_RESHAPE, x, attr, (uint32_t)n, 0, DT_UNKNOWN, c->node);
}

/* x.view_as(other) | x.reshape_as(other) */
Obj *lo_reshape_as(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c), o = tl_tv(I, P(c, "other"), c->node);
    if (x < 0 || o < 0)
        return unk(I);
    DimId d[GRAPH_MAX_DIMS];
    int n = tl_dims_of(I, o, d);
    return tl_reshape_to(I, x, d, n, c->node);
}

/* x.transpose(dim0, dim1) | torch.transpose(x, dim0, dim1) | x.swapaxes(a, b) */
Obj *lo_transpose(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int n = rank_of(I, x);
    int64_t d0, d1;
    /* dim0, dim1 (swapaxes: axis0, axis1) */
    if (!tl_dim_arg(I, P_at(c, 1), n, c->node, "a transpose dim", &d0) ||
        !tl_dim_arg(I, P_at(c, 2), n, c->node, "a transpose dim", &d1))
        return unk(I);
    if (n == 0)
        return P0(c);
    int64_t perm[GRAPH_MAX_DIMS];
    for (int i = 0; i < n; i++)
        perm[i] = i;
    perm[d0] = d1;
    perm[d1] = d0;
    return tl_permute_of(I, P0(c), x, perm, n, c->node);
}

/* x.permute(*dims) | x.permute(dims) | torch.permute(x, dims) */
Obj *lo_permute(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int n = rank_of(I, x);
    Obj *one = P(c, "dims");
    if (!tl_known(I, one, c->node, "the permutation"))
        return unk(I);
    Obj *const *items = is_seq(one) ? one->items : &one;
    size_t cnt = is_seq(one) ? one->n : 1;
    if ((int)cnt != n)
        return interp_break(I, c->node, RULE_TNG206, "permute of a %d-d tensor with %zu dims", n, cnt);
    int64_t perm[GRAPH_MAX_DIMS];
    for (size_t i = 0; i < cnt; i++)
        if (!tl_dim_arg(I, items[i], n, c->node, "a permute dim", &perm[i]))
            return unk(I);
    return tl_permute_of(I, P0(c), x, perm, n, c->node);
}

/* x.t() | torch.t(x): 0-d and 1-d tensors are returned as they are */
Obj *lo_t(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    if (rank_of(I, x) > 2)
        return interp_break(I, c->node, RULE_TNG206, "t() expects a tensor of at most 2 dims");
    return tl_transpose_last2(I, P0(c), x, c->node);
}

/* x.contiguous() */
Obj *lo_contiguous(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    return tl_emit_x(I, OP_CONTIGUOUS, x, NULL, 0, 0, DT_UNKNOWN, c->node);
}

/* x.clone() | torch.clone(x): a copy, so that in-place writes into it
 * leave x alone */
Obj *lo_clone(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    if (!interp_tracing(I))
        return P0(c);   /* host tensors are shapes only */
    return tl_emit_x(I, OP_CLONE, x, NULL, 0, 0, DT_UNKNOWN, c->node);
}

/* x.unsqueeze(dim) | torch.unsqueeze(x, dim) */
Obj *lo_unsqueeze(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int64_t d;
    if (!tl_dim_arg(I, P(c, "dim"), rank_of(I, x) + 1, c->node, "the unsqueeze dim", &d))
        return unk(I);
    return tl_unsqueeze_at(I, x, d, c->node);
}

/* x.squeeze() | x.squeeze(dim) | x.squeeze((d0, d1)) | torch.squeeze(x, dim) */
Obj *lo_squeeze(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    DimId d[GRAPH_MAX_DIMS];
    int n = tl_dims_of(I, x, d);
    uint8_t drop[GRAPH_MAX_DIMS] = {0};
    Obj *dim = P(c, "dim");
    if (is_none(dim)) {
        for (int i = 0; i < n; i++) {
            int64_t v;
            if (graph_dim_const_value(G(I), d[i], &v))
                drop[i] = v == 1;
            else
                return interp_break(I, c->node, RULE_TNG205, "squeeze() of a tensor with a dynamic dim: "
                                    "name the dims to squeeze");
        }
    } else {
        Obj *const *items = is_seq(dim) ? dim->items : &dim;
        size_t cnt = is_seq(dim) ? dim->n : 1;
        for (size_t k = 0; k < cnt; k++) {
            int64_t i, v;
            if (!tl_dim_arg(I, items[k], n, c->node, "the squeeze dim", &i))
                return unk(I);
            if (n == 0)
                continue;
            if (!graph_dim_const_value(G(I), d[i], &v))
                return interp_break(I, c->node, RULE_TNG205, "squeeze of dim %lld, which is dynamic",
                                    (long long)i);
            drop[i] = v == 1;
        }
    }
    int m = 0, any = 0;
    for (int i = 0; i < n; i++) {
        any |= drop[i];
        if (!drop[i])
            d[m++] = d[i];
    }
    if (!any)
        return P0(c);
    return tl_reshape_to(I, x, d, m, c->node);
}

/* x.flatten(start_dim=0, end_dim=-1) | torch.flatten(x, ...) */
Obj *lo_flatten(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    DimId d[GRAPH_MAX_DIMS];
    int n = tl_dims_of(I, x, d);
    Obj *so = P(c, "start_dim"), *eo = P(c, "end_dim");
    int64_t s0 = 0, e0 = -1;
    if ((so && !tl_const_int(I, so, c->node, "start_dim", &s0)) || (eo && !tl_const_int(I, eo, c->node, "end_dim", &e0)))
        return unk(I);
    if (n == 0) {
        DimId one = graph_dim_const(G(I), 1);
        return tl_reshape_to(I, x, &one, 1, c->node);
    }
    int64_t s, e;
    if (!tl_norm_dim(I, s0, n, c->node, &s) || !tl_norm_dim(I, e0, n, c->node, &e))
        return unk(I);
    if (s > e)
        return interp_break(I, c->node, RULE_TNG206, "flatten: start_dim comes after end_dim");
    if (s == e)
        return P0(c);
    DimId prod = d[s];
    for (int64_t i = s + 1; i <= e; i++)
        prod = graph_dim_mul(G(I), prod, d[i]);
    DimId out[GRAPH_MAX_DIMS];
    int m = 0;
    for (int64_t i = 0; i < s; i++)
        out[m++] = d[i];
    out[m++] = prod;
    for (int64_t i = e + 1; i < n; i++)
        out[m++] = d[i];
    return tl_reshape_to(I, x, out, m, c->node);
}

/* x.narrow(dim, start, length) | torch.narrow(x, dim, start, length) */
Obj *lo_narrow(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int64_t dim, start, len;
    Obj *so = P(c, "start"), *lo = P(c, "length");
    int64_t sc, lc;
    if ((so && so->kind == O_DIM && !graph_dim_const_value(G(I), so->dim, &sc)) ||
        (lo && lo->kind == O_DIM && !graph_dim_const_value(G(I), lo->dim, &lc)))
        return tl_narrow_dyn(I, c, x);
    if (!tl_dim_arg(I, P(c, "dim"), rank_of(I, x), c->node, "the narrow dim", &dim) ||
        !tl_const_int(I, P(c, "start"), c->node, "the narrow start", &start) ||
        !tl_const_int(I, P(c, "length"), c->node, "the narrow length", &len))
        return unk(I);
    if (rank_of(I, x) == 0)
        return interp_break(I, c->node, RULE_TNG206, "narrow of a 0-d tensor");
    if (len < 0)
        return interp_break(I, c->node, RULE_TNG206, "narrow: negative length %lld", (long long)len);
    int64_t end;
    if (graph_ckd_add(&end, start, len))
        return interp_break(I, c->node, RULE_TNG206, "narrow: start %lld + length %lld overflows 64-bit "
                            "arithmetic", (long long)start, (long long)len);
    if (start < 0 && end >= 0)
        end = end == 0 ? GRAPH_END : end;   /* from the end, up to the end */
    return tl_slice_of(I, x, dim, start, end, 1, c->node);
}

/* torch.cat(tensors, dim=0) | torch.concat | torch.concatenate | torch.stack(tensors, dim=0) */
Obj *lo_cat(Interp *I, Call *c)
{
    int32_t in[1024];
    Obj *ts = P(c, "tensors");
    int n = tl_tensor_list(I, ts, c->node, c->full, in, (int)NELEM(in));
    if (n < 0)
        return unk(I);
    if (n == 0)
        return interp_break(I, c->node, RULE_TNG206, "%s of an empty list", c->full);
    Obj *dd = P_if(c, "dim");
    if (!dd)   /* the overload of numpy's name */
        dd = P(c, "axis");
    int64_t d0 = 0, dim;
    if (dd && !tl_const_int(I, dd, c->node, "the dim", &d0))
        return unk(I);
    int r = rank_of(I, in[0]) + (c->arg == OP_STACK);
    if (!tl_norm_dim(I, d0, r, c->node, &dim))
        return unk(I);
    return tl_emit1(I, (OpKind)c->arg, in, (uint32_t)n, &dim, 1, 0, 0, DT_UNKNOWN, c->node);
}

/* x.split(split_size_or_sections, dim=0) | torch.split(x, ...) |
 * x.chunk(chunks, dim=0) | torch.chunk(x, chunks, dim=0) | x.unbind(dim=0) */
Obj *lo_split(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int kind = c->arg;   /* 0 split, 1 chunk, 2 unbind */
    /* chunks; split_size_or_sections (Tensor.split: split_size) */
    Obj *spec = kind == 2 ? NULL : P_at(c, 1);
    Obj *dd = P(c, "dim");
    int n = rank_of(I, x);
    int64_t dim = 0, size;
    if (n == 0)
        return interp_break(I, c->node, RULE_TNG206, "%s of a 0-d tensor", c->full);
    if (dd && !tl_dim_arg(I, dd, n, c->node, "the dim", &dim))
        return unk(I);
    int tl_known = graph_dim_const_value(G(I), val_at(I, x)->dims[dim], &size);
    int64_t len[256];
    size_t cnt = 0;
    if (kind == 0 && is_seq(spec)) {
        if (spec->n > NELEM(len))
            return interp_break(I, c->node, RULE_TNG212, "a split into more than %zu parts", NELEM(len));
        int64_t total = 0;
        for (size_t i = 0; i < spec->n; i++) {
            if (!tl_const_int(I, spec->items[i], c->node, "a split size", &len[i]))
                return unk(I);
            if (len[i] < 0)
                return interp_break(I, c->node, RULE_TNG206, "negative split size");
            if (graph_ckd_add(&total, total, len[i]))   /* then at and at + len[i] below fit too */
                return interp_break(I, c->node, RULE_TNG206, "split sizes whose sum overflows 64-bit arithmetic");
        }
        cnt = spec->n;
        if (tl_known && total != size)
            return interp_break(I, c->node, RULE_TNG206, "split sizes sum to %lld, the dim has size %lld",
                                (long long)total, (long long)size);
    } else {
        int64_t k = 1;
        if (kind != 2 && !tl_const_int(I, spec, c->node, kind ? "the number of chunks" : "the split size", &k))
            return unk(I);
        if (!tl_known)
            return interp_break(I, c->node, RULE_TNG205, "%s of a dynamic dim (give the sizes explicitly)",
                                c->full);
        if (k <= 0 && kind != 2)
            return interp_break(I, c->node, RULE_TNG206, "%s must be positive", kind ? "chunks" : "split size");
        /* size is a constant dim: 0 <= size <= GRAPH_MAX_BYTES; k may be any positive int */
        int64_t part = kind == 0 ? k : kind == 1 ? ceil_div(size, k) : 1;
        if (part == 0)
            part = 1;
        int64_t parts = size == 0 ? (kind == 2 ? 0 : 1) : ceil_div(size, part);
        if (parts > (int64_t)NELEM(len))
            return interp_break(I, c->node, RULE_TNG212, "a split into more than %zu parts", NELEM(len));
        for (int64_t p = 0; p < parts; p++)
            len[cnt++] = part < size - p * part ? part : size - p * part;
    }
    Obj *out = obj_tuple(I, NULL, 0);
    Obj **items = interp_alloc(I, (cnt + 1) * sizeof *items);
    int64_t at = 0;
    for (size_t i = 0; i < cnt; i++) {
        if (kind == 2) {
            int64_t attr[2] = {dim, at};
            items[i] = tl_emit_x(I, OP_SELECT, x, attr, 2, 0, DT_UNKNOWN, c->node);
        } else {
            items[i] = tl_slice_of(I, x, dim, at, at + len[i], 1, c->node);
        }
        at += len[i];
    }
    out->items = items;
    out->n = out->cap = cnt;
    return out;
}
