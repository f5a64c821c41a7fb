/*
 * views.c - aliasing as PyTorch defines it: a view shares its base's
 * storage, and an in-place write through any alias is seen, in program
 * order, by every other alias taken before or after it.
 *
 * The graph is dataflow: a view op (slice, select, reshape, permute, ...)
 * gives a value of its own. So every tensor object is either a root (it
 * owns its storage: an op's result, a graph input, a weight or buffer) or
 * a view of a root: TensorObj.base, and TensorObj.chain, the view ops
 * (op ids of the root's graph) that compute the view's value from the
 * root's. The two rules of functionalisation, as PyTorch's own compilers
 * apply them (AOTAutograd, torch.export), make it exact:
 *
 *   - a write through a view computes the view's new value and writes it
 *     back through the chain into the root, each step inverted (a slice or
 *     select: a SLICE_STORE into the parent; a reshape: the value reshaped
 *     back; a permute: the inverse permutation). The first step's store
 *     goes into the root's buffer in place (the memory planner's in-place
 *     ops), so a write into one column of a tensor is one column's store,
 *     not a copy of the tensor (views_write_end);
 *   - reading a view whose root was written since its value was computed
 *     replays the chain on the root's current value (views_current, which
 *     interp_val calls on every read).
 *
 * What it cannot model exactly, it refuses (TNG203/TNG211 at the write),
 * never guesses:
 *   - a write into an expanded view (overlapping memory: PyTorch raises);
 *   - a write through a slice whose bound is only known at run time;
 *   - reshape / flatten / contiguous of a tensor whose memory layout tngc
 *     cannot decide (PyTorch returns a view or a copy by the strides): the
 *     result and its source are "ambiguous", and a later write into either
 *     family is refused; a call tngc does not know whose result shares
 *     storage with an argument is treated the same;
 *   - writes into a host tensor (made outside the compiled method) that has
 *     views, or is one: the trace sees each host tensor as a weight or a
 *     constant of its own.
 *
 * A value an in-place write replaced is stale: any op that reads it is
 * refused (interp_stale), the backstop that turns an alias this file does
 * not know of into a diagnostic instead of a wrong number.
 *
 * Copies in PyTorch that share a buffer with another tensor in the graph
 * (reshape of a permuted tensor, whose graph RESHAPE aliases the permute's
 * buffer) are copy-on-write (TensorObj.cow): cloned before the first
 * in-place store into that buffer, by whichever side writes.
 */
#include "obj.h"

#include <stdlib.h>
#include <string.h>

#define VIEWS_MAX_CHAIN 32   /* view ops from a root to one of its views */
#define VIEWS_NELEM(a) (sizeof(a) / sizeof *(a))

/* ---- traces --------------------------------------------------------- */

void views_trace_begin(Interp *I)
{
    I->stale_entry.n = 0;   /* a new entry graph (copy-on-write tensors are kept per graph) */
    I->layout_unknown.n = 0;
    I->nonstd_at_trace = I->nonstd_layout;
}

/* ---- chains ----------------------------------------------------------- */

static int views__view_kind(OpKind k)
{
    return k == OP_RESHAPE || k == OP_PERMUTE || k == OP_SLICE || k == OP_SELECT || k == OP_SLICE_DYN ||
           k == OP_EXPAND || k == OP_CONTIGUOUS;
}

static TensorObj *views__root(TensorObj *t)
{
    return t->base ? t->base : t;
}

/* Adds op kind (no float attributes, no dtype); returns its output or -1. */
static int32_t views__emit(Interp *I, OpKind kind, const int32_t *in, uint32_t nin, const int64_t *attr,
                           uint32_t nattr, int32_t node)
{
    int32_t id = interp_emit(I, kind, in, nin, attr, nattr, 0, 0, DT_UNKNOWN, node);
    return id < 0 ? -1 : I->g->ops.v[id].out;
}

/* Makes r a view of p: the view ops between p's value and r's. 0 when r's
 * value is not p's through view ops only. */
static int views__link(Interp *I, TensorObj *p, TensorObj *r)
{
    const Graph *g = I->g;
    int32_t ops[VIEWS_MAX_CHAIN];
    int n = 0;
    for (int32_t v = r->value; v != p->value;) {
        if (v < 0 || (size_t)v >= g->vals.n || n == VIEWS_MAX_CHAIN)
            return 0;
        int32_t o = g->vals.v[v].op;
        const Op *op = &g->ops.v[o];
        if (!views__view_kind(op->kind) || op->nin < 1 || op->in[0] < 0)
            return 0;
        ops[n++] = o;
        v = op->in[0];
    }
    TensorObj *root = views__root(p);
    if (p->nchain + n > VIEWS_MAX_CHAIN)
        return 0;
    r->chain = interp_alloc(I, (size_t)(p->nchain + n + 1) * sizeof *r->chain);
    if (p->nchain)
        memcpy(r->chain, p->chain, (size_t)p->nchain * sizeof *r->chain);
    for (int i = 0; i < n; i++)
        r->chain[p->nchain + i] = ops[n - 1 - i];
    r->nchain = p->nchain + n;
    r->base = root;
    r->seen = root->value;
    r->cow = 0;
    root->nviews++;
    return 1;
}

/* p and r: tngc cannot tell whether PyTorch's r is a view of p. r joins
 * p's family without a chain: reading it after a write into the family,
 * or writing into it, is refused (views_current, views__writable). */
static void views__ambiguous(TensorObj *p, TensorObj *r, int32_t node)
{
    TensorObj *root = views__root(p);
    r->base = root;
    r->chain = NULL;
    r->nchain = 0;
    r->seen = root->value;
    r->ambig = node + 1;
    r->cow = 0;
}

/* ---- memory layout (reshape, flatten, contiguous) ---------------------- */

/* 1 when value v (a tensor PyTorch computes, not a view) is contiguous in
 * PyTorch's memory layout; -1 when tngc cannot tell. PyTorch's ops give
 * contiguous results from contiguous operands; sources, creation ops and
 * products always do. Once the script asked for another memory format
 * (I->nonstd_layout), any tensor made since may be channels-last, and
 * PyTorch's ops keep that layout (convolution, batch norm, pooling,
 * elementwise ops, cat): only products still count as contiguous, their
 * results always are. The entry's inputs and weights count as contiguous
 * unless the script asked before the trace began (I->nonstd_at_trace); an
 * input made from a host tensor not known contiguous (a transposed view
 * passed to the compiled call) is not known either. */
static int views__value_contig(Interp *I, int32_t v, int depth)
{
    const Graph *g = I->g;
    if (v < 0 || (size_t)v >= g->vals.n || depth > 8)
        return -1;
    const Op *op = &g->ops.v[g->vals.v[v].op];
    switch (op_info[op->kind].layout) {
    case LAYOUT_CONTIGUOUS:
        if (I->tracing && (op->kind == OP_INPUT || op->kind == OP_WEIGHT)) {
            if (I->nonstd_at_trace)
                return -1;   /* the host tensors were made before the trace */
            for (size_t i = 0; i < I->layout_unknown.n; i++)
                if (I->layout_unknown.v[i] == v)
                    return -1;
            return 1;
        }
        if (I->nonstd_layout && !(op_info[op->kind].flags & OPF_CONTRACT))
            return -1;
        return 1;
    case LAYOUT_OF_IN0:
        return views__value_contig(I, op->in[0], depth + 1);
    case LAYOUT_UNKNOWN:
        return -1;   /* the value of a view, or of a copy tngc made: not known here */
    case LAYOUT_OF_OPERANDS:
        break;
    }
    for (uint32_t k = 0; k < op->nin; k++) {
        if (op->in[k] < 0)
            continue;
        const Op *p = &g->ops.v[g->vals.v[op->in[k]].op];
        if (p->kind == OP_EXPAND && views__value_contig(I, p->in[0], depth + 1) == 1)
            continue;   /* a broadcast operand */
        if (views__value_contig(I, op->in[k], depth + 1) != 1)
            return -1;
    }
    return 1;
}

/* Dims compared where the sizes may be symbols (a geared dim): 1 true,
 * 0 false, -1 unknown (then tngc cannot decide): equal expressions, equal
 * constants, or the same answer in every gear (an entry runs only at its
 * gears' sizes). */
static int views__eq_gears(const Graph *g, DimId a, DimId b)
{
    size_t ng = g->gears.n, nc = 1;
    int64_t sv[64];
    if (!ng || g->syms.n > 64)
        return -1;
    if (g->cfg.policy == GEAR_PRODUCT) {
        for (size_t k = 0; k < ng && nc <= 256; k++)
            nc *= g->gears.v[k].nvalues ? g->gears.v[k].nvalues : 1;
        if (nc > 256)
            return -1;
    } else {
        nc = g->gears.v[0].nvalues;
    }
    int eq = 0, ne = 0;
    for (size_t c = 0; c < nc; c++) {
        for (size_t i = 0; i < g->syms.n; i++)
            sv[i] = INT64_MIN;
        size_t rest = c;
        for (size_t k = 0; k < ng; k++) {
            const GearSpec *gs = &g->gears.v[k];
            size_t j = c;
            if (g->cfg.policy == GEAR_PRODUCT) {
                j = rest % gs->nvalues;
                rest /= gs->nvalues;
            }
            if (j >= gs->nvalues || gs->sym < 0 || (size_t)gs->sym >= g->syms.n)
                return -1;
            sv[gs->sym] = gs->values[j];
        }
        int64_t x, y;
        if (graph_dim_eval(g, a, sv, &x) != 0 || graph_dim_eval(g, b, sv, &y) != 0)
            return -1;
        eq |= x == y;
        ne |= x != y;
    }
    return eq && !ne ? 1 : ne && !eq ? 0 : -1;
}

/* every gear's sizes decide it when symbols are geared */
static int views__eq(const Graph *g, DimId a, DimId b)
{
    int64_t x, y;
    if (a == b)
        return 1;
    if (graph_dim_const_value(g, a, &x) && graph_dim_const_value(g, b, &y))
        return x == y;
    return views__eq_gears(g, a, b);
}

static int views__is(Graph *g, DimId a, int64_t c)
{
    int64_t x;
    return graph_dim_const_value(g, a, &x) ? x == c : views__eq_gears(g, a, graph_dim_const(g, c));
}

/* PyTorch's is_contiguous of sizes and strides sz/st[0..n). */
static int views__contig_dims(Graph *g, int n, const DimId *sz, const DimId *st)
{
    DimId want = graph_dim_const(g, 1);
    int res = 1;
    for (int d = n - 1; d >= 0; d--) {
        if (views__is(g, sz[d], 0) == 1)
            return 1;
        int e = views__eq(g, st[d], want), s1 = views__is(g, sz[d], 1);
        if (e != 1 && s1 != 1) {
            if (e == 0 && s1 == 0)
                return 0;
            res = -1;
        }
        want = graph_dim_mul(g, want, sz[d]);
    }
    return res;
}

/* PyTorch's computeStride: the strides nst of shape nsz[0..m) as a view of
 * sizes and strides sz/st[0..n). 1 a view, 0 none, -1 unknown. */
static int views__compute_stride(Graph *g, int n, const DimId *sz, const DimId *st, int m, const DimId *nsz,
                                 DimId *nst)
{
    DimId one = graph_dim_const(g, 1);
    for (int d = 0; d < n; d++)
        if (views__is(g, sz[d], 0) == 1) {   /* no elements: contiguous strides */
            DimId q = one;
            for (int e = m - 1; e >= 0; e--) {
                nst[e] = q;
                q = graph_dim_mul(g, q, nsz[e]);
            }
            return 1;
        }
    int vd = m - 1;
    DimId base = n ? st[n - 1] : one, tn = one, vn = one;
    for (int td = n - 1; td >= 0; td--) {
        tn = graph_dim_mul(g, tn, sz[td]);
        int boundary = 1;
        if (td > 0) {
            int se = views__eq(g, st[td - 1], graph_dim_mul(g, tn, base)), s1 = views__is(g, sz[td - 1], 1);
            if (se == 1 || s1 == 1)
                boundary = 0;
            else if (se < 0 || s1 < 0)
                return -1;
        }
        if (!boundary)
            continue;
        while (vd >= 0) {
            int ne = views__eq(g, vn, tn), n1 = views__is(g, nsz[vd], 1);
            if (ne < 0 || (ne == 1 && n1 < 0))
                return -1;
            if (ne == 1 && n1 == 0)
                break;
            nst[vd] = graph_dim_mul(g, vn, base);
            vn = graph_dim_mul(g, vn, nsz[vd]);
            vd--;
        }
        int fe = views__eq(g, vn, tn);
        if (fe != 1)
            return fe;
        if (td > 0) {
            base = st[td - 1];
            tn = one;
            vn = one;
        }
    }
    for (; vd >= 0; vd--) {   /* leading size-1 dims (of a 0-d source) */
        int n1 = views__is(g, nsz[vd], 1);
        if (n1 != 1)
            return n1;
        nst[vd] = one;
    }
    return 1;
}

/* The sizes and strides (in elements) of tensor t, from its root's
 * contiguous layout through its chain; returns its rank, or -1 when tngc
 * cannot tell. */
static int views__strides(Interp *I, TensorObj *t, DimId *size, DimId *stride)
{
    Graph *g = I->g;
    TensorObj *root = views__root(t);
    const Val *rv = &g->vals.v[root->value];
    int n = rv->ndim;
    DimId q = graph_dim_const(g, 1);
    for (int d = n - 1; d >= 0; d--) {
        size[d] = rv->dims[d];
        stride[d] = q;
        q = graph_dim_mul(g, q, size[d]);
    }
    for (int i = 0; t->base && i < t->nchain; i++) {
        const Op op = g->ops.v[t->chain[i]];
        const Val *out = &g->vals.v[op.out];
        DimId os[GRAPH_MAX_DIMS], ot[GRAPH_MAX_DIMS];
        int m = out->ndim;
        memcpy(os, out->dims, (size_t)m * sizeof *os);
        switch (op_info[op.kind].view) {
        case VIEW_SLICE:
        case VIEW_SLICE_DYN:
            memcpy(ot, stride, (size_t)n * sizeof *ot);
            ot[op.attr[0]] = graph_dim_mul(g, stride[op.attr[0]], graph_dim_const(g, op.attr[3]));
            break;
        case VIEW_SELECT:
            for (int d = 0, e = 0; d < n; d++)
                if (d != op.attr[0])
                    ot[e++] = stride[d];
            break;
        case VIEW_PERMUTE:
            for (int d = 0; d < m; d++)
                ot[d] = stride[op.attr[d]];
            break;
        case VIEW_CONTIGUOUS:
            memcpy(ot, stride, (size_t)n * sizeof *ot);
            break;
        case VIEW_EXPAND:
            for (int d = 0; d < m; d++) {
                int k = d - (m - n);
                if (k < 0) {
                    ot[d] = graph_dim_const(g, 0);
                } else if (views__eq(g, size[k], os[d]) == 1) {
                    ot[d] = stride[k];
                } else if (views__is(g, size[k], 1) == 1) {
                    ot[d] = graph_dim_const(g, 0);
                } else {
                    return -1;
                }
            }
            break;
        case VIEW_RESHAPE: {
            int c = views__contig_dims(g, n, size, stride);
            if (c == 1) {
                DimId w = graph_dim_const(g, 1);
                for (int d = m - 1; d >= 0; d--) {
                    ot[d] = w;
                    w = graph_dim_mul(g, w, os[d]);
                }
            } else if (views__compute_stride(g, n, size, stride, m, os, ot) != 1) {
                return -1;
            }
            break;
        }
        case VIEW_NONE:
            return -1;
        }
        n = m;
        memcpy(size, os, (size_t)m * sizeof *size);
        memcpy(stride, ot, (size_t)m * sizeof *stride);
    }
    for (int d = 0; d < n; d++)
        if (graph_dim_is_overflow(g, stride[d]))
            return -1;
    return n;
}

/* Is t contiguous? 1, 0, or -1 when tngc cannot tell. */
static int views__contig(Interp *I, TensorObj *t)
{
    if (views__value_contig(I, views__root(t)->value, 0) != 1)
        return -1;
    DimId size[GRAPH_MAX_DIMS], stride[GRAPH_MAX_DIMS];
    int n = views__strides(I, t, size, stride);
    return n < 0 ? -1 : views__contig_dims(I->g, n, size, stride);
}

/* Is r, p reshaped (reshape, flatten), a view of p? 1 yes, 0 no (PyTorch
 * copies), -1 unknown. */
static int views__reshape_viewable(Interp *I, TensorObj *p, TensorObj *r)
{
    Graph *g = I->g;
    if (views__value_contig(I, views__root(p)->value, 0) != 1)
        return -1;
    DimId size[GRAPH_MAX_DIMS], stride[GRAPH_MAX_DIMS], nst[GRAPH_MAX_DIMS];
    int n = views__strides(I, p, size, stride);
    if (n < 0)
        return -1;
    if (views__contig_dims(g, n, size, stride) == 1)
        return 1;
    const Val *rv = &g->vals.v[r->value];
    DimId nsz[GRAPH_MAX_DIMS];
    memcpy(nsz, rv->dims, (size_t)rv->ndim * sizeof *nsz);
    return views__compute_stride(g, n, size, stride, rv->ndim, nsz, nst);
}

static TensorObj *views__here(Interp *I, Obj *o);

/* The element offsets (from the root's first element) of t into bits
 * (one per element of the root, n of them), when every size, stride and
 * offset along the chain is a constant: the count newly set, t's element
 * count in *total; or -1. */
static int64_t views__elements(Interp *I, TensorObj *t, uint8_t *bits, int64_t nbits, int64_t *total_out)
{
    Graph *g = I->g;
    int64_t off = 0;
    for (int i = 0; t->base && i < t->nchain; i++) {
        TensorObj part = *t;
        part.nchain = i;   /* the strides of step i's input */
        DimId sz[GRAPH_MAX_DIMS], st[GRAPH_MAX_DIMS];
        const Op *op = &g->ops.v[t->chain[i]];
        if (op->kind != OP_SLICE && op->kind != OP_SELECT)
            continue;
        if (views__strides(I, &part, sz, st) < 0)
            return -1;
        int64_t n, s, a = op->attr[1];
        if (!graph_dim_const_value(g, sz[op->attr[0]], &n) || !graph_dim_const_value(g, st[op->attr[0]], &s))
            return -1;
        if (a == GRAPH_END)
            a = n;
        a = a < 0 ? (a + n < 0 ? 0 : a + n) : (a > n ? n : a);
        off += a * s;
    }
    DimId sz[GRAPH_MAX_DIMS], st[GRAPH_MAX_DIMS];
    int64_t c[GRAPH_MAX_DIMS], sv[GRAPH_MAX_DIMS], k[GRAPH_MAX_DIMS] = {0}, total = 1, set = 0;
    int nd = views__strides(I, t, sz, st);
    if (nd < 0)
        return -1;
    for (int d = 0; d < nd; d++) {
        if (!graph_dim_const_value(g, sz[d], &c[d]) || !graph_dim_const_value(g, st[d], &sv[d]))
            return -1;
        total *= c[d];
        if (total > ((int64_t)1 << 22))
            return -1;
    }
    for (int64_t e = 0; e < total; e++) {
        int64_t at = off;
        for (int d = 0; d < nd; d++)
            at += k[d] * sv[d];
        if (at < 0 || at >= nbits)
            return -1;
        set += !bits[at];
        bits[at] = 1;
        for (int d = nd - 1; d >= 0 && ++k[d] == c[d]; d--)
            k[d] = 0;
    }
    *total_out = total;
    return set;
}

int views_operand_ok(Interp *I, Obj *dst, Obj *src, int32_t node, const char *what)
{
    TensorObj *a = views__here(I, dst), *b = views__here(I, src);
    if (!a || !b || a == b || views__root(a) != views__root(b) || a->value < 0 || b->value < 0)
        return 1;
    if (a->nchain == b->nchain && a->ambig == b->ambig &&
        (!a->nchain || memcmp(a->chain, b->chain, (size_t)a->nchain * sizeof *a->chain) == 0))
        return 1;   /* the same elements in the same order */
    /* another view of the written tensor's storage: fine when the two
     * share no element, PyTorch's memory-order result else */
    Graph *g = I->g;
    const Val *rv = &g->vals.v[views__root(a)->value];
    int64_t nbits = 1, x;
    int ok = !a->ambig && !b->ambig;
    for (int d = 0; ok && d < rv->ndim; d++) {
        ok = graph_dim_const_value(g, rv->dims[d], &x) && x <= ((int64_t)1 << 22);
        nbits *= ok ? x : 1;
        ok = ok && nbits <= ((int64_t)1 << 22);
    }
    if (ok) {
        uint8_t *bits = calloc((size_t)nbits + 1, 1);
        int64_t ta, tb;
        int64_t na = bits ? views__elements(I, a, bits, nbits, &ta) : -1;
        int64_t nb = na >= 0 ? views__elements(I, b, bits, nbits, &tb) : -1;
        free(bits);
        if (nb >= 0 && nb == tb)   /* disjoint: b set every one of its elements anew */
            return 1;
    }
    interp_break(I, node, RULE_TNG211, "%s: an operand is another view of the storage written, and may share "
                 "elements with it: PyTorch's result then depends on the order it writes them in (clone() "
                 "the operand)", what);
    return 0;
}

/* ---- library calls ----------------------------------------------------- */

enum { VK_OTHER, VK_VIEW, VK_RESHAPE, VK_CONTIG, VK_SAME };

/* What PyTorch's function or method `name` returns of its first tensor
 * argument: always a view, a view when the strides allow (reshape,
 * flatten), the tensor itself when contiguous (contiguous), the tensor
 * itself when nothing changes (casts and moves to the same dtype and
 * device, dropout in eval mode), or something else. */
static int views__kind_of(const char *name)
{
    static const char *const view[] = {
        "view", "view_as", "transpose", "swapaxes", "swapdims", "permute", "t", "unsqueeze", "squeeze",
        "narrow", "select", "split", "split_with_sizes", "chunk", "unbind", "expand", "expand_as",
        "broadcast_to", "movedim", "moveaxis", "unflatten", "detach", "diagonal", "unfold", "tensor_split",
        "hsplit", "vsplit", "dsplit", "as_strided", "view_as_real", "view_as_complex", "adjoint", "T",
        "mT", "H", "mH", "real", "imag", "atleast_1d", "atleast_2d", "atleast_3d", "alias", "__getitem__"};
    static const char *const reshape[] = {"reshape", "reshape_as", "flatten", "ravel"};
    static const char *const same[] = {
        "to", "float", "half", "bfloat16", "double", "int", "long", "short", "char", "byte", "bool",
        "type", "type_as", "npu", "cuda", "cpu", "dropout", "dropout1d", "dropout2d", "dropout3d",
        "alpha_dropout", "feature_alpha_dropout", "requires_grad_", "detach_", "clone_if_needed"};
    for (size_t i = 0; i < VIEWS_NELEM(view); i++)
        if (streq(name, view[i]))
            return VK_VIEW;
    for (size_t i = 0; i < VIEWS_NELEM(reshape); i++)
        if (streq(name, reshape[i]))
            return VK_RESHAPE;
    if (streq(name, "contiguous"))
        return VK_CONTIG;
    for (size_t i = 0; i < VIEWS_NELEM(same); i++)
        if (streq(name, same[i]))
            return VK_SAME;
    return VK_OTHER;
}

/* The tensor object of the current graph standing for o (a host tensor's
 * shadow while tracing), or NULL. */
static TensorObj *views__here(Interp *I, Obj *o)
{
    if (!o || o->kind != O_TENSOR)
        return NULL;
    if (o->t->g == I->g)
        return o->t;
    if (I->tracing) {
        Shadow *s = interp_shadow_find(I, o->t);
        if (s && s->obj && s->obj->kind == O_TENSOR && s->obj->t->g == I->g)
            return s->obj->t;
    }
    return NULL;
}

int views_is_contiguous(Interp *I, Obj *x)
{
    TensorObj *t = views__here(I, x);
    if (!t || t->value < 0 || t->ambig)
        return -1;   /* ambiguous: tngc does not know what PyTorch's tensor is */
    return views__contig(I, t);
}

void views_input_layout(Interp *I, TensorObj *ht, int32_t v)
{
    int c = -1;
    if (ht->g == &I->host && ht->value >= 0 && !ht->ambig) {
        Graph *sg = I->g;
        int tr = I->tracing;
        I->g = ht->g;
        I->tracing = 0;
        c = views__contig(I, ht);
        I->g = sg;
        I->tracing = tr;
    }
    if (c != 1)
        VEC_PUSH(I->layout_unknown, v);
}

int views_memory_format(Interp *I, Obj *mf, Obj *x)
{
    if (is_none(mf))
        return 0;
    if (mf->kind == O_BUILTIN && mf->s &&
        (streq(mf->s, "torch.contiguous_format") || streq(mf->s, "torch.preserve_format")))
        return 0;
    /* PyTorch returns x itself when x already has the layout asked for; a
     * contiguous x has the channels-last one only when C or H*W (D*H*W)
     * is 1 */
    int rank = !mf->s ? 0 : streq(mf->s, "torch.channels_last") ? 4 : streq(mf->s, "torch.channels_last_3d") ? 5 : 0;
    int copy = 0;
    TensorObj *t = views__here(I, x);
    if (rank && t && t->value >= 0 && I->tracing && views_is_contiguous(I, x) == 1) {
        const Val *v = &I->g->vals.v[t->value];
        int64_t c = 0, sp = 1, e;
        copy = v->ndim == rank && graph_dim_const_value(I->g, v->dims[1], &c) && c > 1;
        for (int d = 2; copy && d < rank; d++) {
            copy = graph_dim_const_value(I->g, v->dims[d], &e);
            sp *= e;
        }
        copy = copy && sp > 1;
    }
    I->nonstd_layout = 1;   /* channels_last, channels_last_3d, or a value tngc does not know */
    return 1 + copy;
}

static int is_here_tensor(Interp *I, const Obj *o)
{
    return o && o->kind == O_TENSOR && o->t->g == I->g && o->t->value >= 0;
}

static int views__shares(const Graph *g, int32_t a, int32_t b)
{
    return a >= 0 && b >= 0 && (size_t)a < g->vals.n && (size_t)b < g->vals.n &&
           graph_storage_root(g, a) == graph_storage_root(g, b);
}

static void views__one(Interp *I, int kind, const char *name, TensorObj *p, Obj *args[], size_t nargs,
                       Obj *res, int32_t node)
{
    if (!res || res->kind != O_TENSOR || res->t->g != I->g || res->t->base || res->t->value < 0)
        return;
    TensorObj *r = res->t;
    for (size_t i = 0; i < nargs; i++)
        if (args[i] && args[i]->kind == O_TENSOR && args[i]->t == r)
            return;   /* the argument itself (in-place methods return self) */
    const Graph *g = I->g;
    if (p && p->ambig && p->value >= 0 &&
        (kind == VK_VIEW || kind == VK_RESHAPE || kind == VK_CONTIG || views__shares(g, r->value, p->value))) {
        views__ambiguous(p, r, p->ambig - 1);   /* a view of a tensor of unknown status */
        return;
    }
    if (p && p->value >= 0) {
        switch (kind) {
        case VK_VIEW:
            if ((streq(name, "view") || streq(name, "view_as")) && views__reshape_viewable(I, p, r) == 0)
                interp_diag(I, node, RULE_TNG203, "view size is not compatible with the input tensor's size "
                            "and stride (at least one dimension spans across two contiguous subspaces; "
                            "PyTorch raises): use reshape(...)");
            if (!views__link(I, p, r))
                views__ambiguous(p, r, node);
            return;
        case VK_RESHAPE:
        case VK_CONTIG: {
            int ok = kind == VK_RESHAPE ? views__reshape_viewable(I, p, r) : views__contig(I, p);
            if (ok == 1 && views__link(I, p, r))
                return;
            if (ok == 0) {   /* PyTorch copies */
                if (views__shares(g, r->value, p->value)) {
                    r->cow = 1;
                    VEC_PUSH(I->cows, r);
                }
                return;
            }
            views__ambiguous(p, r, node);
            return;
        }
        case VK_SAME:
            if (r->value == p->value) {
                if (!views__link(I, p, r))
                    views__ambiguous(p, r, node);
                return;
            }
            break;
        default:
            break;
        }
    }
    /* anything else that shares a buffer with an argument: tngc cannot
     * tell whether PyTorch's result is a view */
    for (size_t i = 0; i < nargs; i++) {
        TensorObj *a = views__here(I, args[i]);
        if (a && a->value >= 0 && views__shares(g, r->value, a->value)) {
            views__ambiguous(a, r, node);
            return;
        }
    }
}

void views_after_call(Interp *I, const char *name, Obj *args[], size_t nargs, Obj *res, int32_t node)
{
    if (!res || !name)
        return;
    int kind = views__kind_of(name);
    TensorObj *p = nargs ? views__here(I, args[0]) : NULL;
    if (p && p->base)
        views_current(I, p, node);
    if (res->kind == O_TENSOR) {
        views__one(I, kind, name, p, args, nargs, res, node);
    } else if (res->kind == O_TUPLE || res->kind == O_LIST) {
        for (size_t i = 0; i < res->n; i++)
            views__one(I, kind, name, p, args, nargs, res->items[i], node);
    }
}

void views_undecided(Interp *I, Obj *src, Obj *res, int32_t node)
{
    TensorObj *p = views__here(I, src);
    if (p && is_here_tensor(I, res) && res->t != p && !res->t->base)
        views__ambiguous(p, res->t, node);
}

void views_of(Interp *I, Obj *src, Obj *res, int32_t node)
{
    Obj *args[1] = {src};
    views_after_call(I, "__getitem__", args, 1, res, node);
}

/* ---- writes ------------------------------------------------------------ */

/* The object a write into o writes (a host tensor's shadow while tracing). */
static TensorObj *views__target(Interp *I, Obj *o, int32_t node)
{
    if (!o || o->kind != O_TENSOR)
        return NULL;
    if (o->t->g == I->g)
        return o->t;
    Obj *s = interp_trace_in(I, o, node);
    return s && s->kind == O_TENSOR && s->t->g == I->g ? s->t : NULL;
}

/* Clones, before an in-place store into value v's buffer, every
 * copy-on-write tensor that shares it (but except). */
static void views__unshare(Interp *I, int32_t v, TensorObj *except, int32_t node)
{
    const Graph *g = I->g;
    for (size_t i = 0; i < I->cows.n; i++) {
        TensorObj *c = I->cows.v[i];
        if (!c->cow || c == except || c->g != I->g || c->value < 0 || !views__shares(g, c->value, v))
            continue;
        int32_t nv = views__emit(I, OP_CLONE, &c->value, 1, NULL, 0, node);
        if (nv >= 0) {
            c->value = nv;
            c->cow = 0;
        }
    }
}

/* 1 when value v lives in a graph input's or weight's storage. */
static int views__storage(Interp *I, int32_t v)
{
    if (!I->tracing || v < 0)
        return 0;
    const Graph *g = I->g;
    OpKind k = g->ops.v[g->vals.v[graph_storage_root(g, v)].op].kind;
    return k == OP_INPUT || k == OP_WEIGHT;
}

static int views__writable(Interp *I, TensorObj *t, int32_t node, const char *what)
{
    TensorObj *r = views__root(t);
    const Graph *g = I->g;
    if (I->tracing && r->value >= 0) {
        int32_t s = graph_storage_root(g, r->value);
        if (g->ops.v[g->vals.v[s].op].kind == OP_WEIGHT) {
            for (size_t w = 0; w < g->weights.n; w++)
                if (g->weights.v[w].value == s && !g->weights.v[w].is_buffer) {
                    interp_break(I, node, RULE_TNG211, "%s into a parameter (only inputs, buffers and "
                                 "tensors the method computes can be updated in place)", what);
                    return 0;
                }
        }
        /* the caller's tensors: one passed twice, or two views of one */
        TensorObj *host = r->origin ? views__root(r->origin) : NULL;
        for (size_t i = 0; host && i < I->shadows.n; i++) {
            const Shadow *s = &I->shadows.v[i];
            if (s->input >= 0 && s->obj && s->obj->kind == O_TENSOR && s->obj->t != r && s->host &&
                views__root(s->host) == host) {
                interp_break(I, node, RULE_TNG211, "%s into an input that shares its storage with another "
                             "input of the call (the same tensor, or views of one, passed twice): each input "
                             "of a bundle has a buffer of its own", what);
                return 0;
            }
        }
        if (r->origin && (r->origin->base || r->origin->nviews) && !interp_state_alone(I, r->origin)) {
            interp_break(I, node, RULE_TNG211, "%s into a tensor made outside the compiled method that is a "
                         "view of another or has views: the compiled method sees each such tensor on its "
                         "own (write into it in the method, or make it a buffer of its own)", what);
            return 0;
        }
    }
    if (t->ambig) {
        interp_break(I, node, RULE_TNG211, "%s into a tensor that PyTorch may or may not share with another "
                     "(line %u: reshape, flatten or contiguous of a tensor whose memory layout tngc cannot "
                     "decide, or a call whose result shares its argument's buffer): clone() it first", what,
                     interp_node_line(I, t->ambig - 1));
        return 0;
    }
    for (int i = 0; t->base && i < t->nchain; i++) {
        const Op *op = &g->ops.v[t->chain[i]];
        if (op->kind == OP_SLICE_DYN) {
            interp_break(I, node, RULE_TNG211, "%s through a slice whose bounds are only known at run time "
                         "(line %u)", what, op->line);
            return 0;
        }
        if (op->kind == OP_EXPAND) {
            const Val *in = &g->vals.v[op->in[0]], *out = &g->vals.v[op->out];
            int same = in->ndim == out->ndim;
            for (int d = 0; same && d < in->ndim; d++)
                same = in->dims[d] == out->dims[d];
            if (!same) {
                interp_break(I, node, RULE_TNG203, "%s into an expanded view (line %u): more than one element "
                             "of the written-to tensor refers to a single memory location, which PyTorch "
                             "refuses (clone() the expanded tensor first)", what, op->line);
                return 0;
            }
        }
    }
    return 1;
}

int32_t views_write_begin(Interp *I, Obj *x, int32_t node, const char *what)
{
    TensorObj *t = views__target(I, x, node);
    if (!t)
        return -1;
    interp_state_adopt(I, t, node);   /* a tensor attribute written in place: state */
    if (interp_val(I, x, node) < 0 || !views__writable(I, t, node, what))
        return -1;
    if (t->base)
        views_current(I, t, node);
    views__unshare(I, t->value, t, node);
    if (t->cow) {   /* a copy that shares its buffer: its own buffer first */
        int32_t nv = views__emit(I, OP_CLONE, &t->value, 1, NULL, 0, node);
        if (nv < 0)
            return -1;
        t->value = nv;
        t->cow = 0;
    }
    return t->value;
}

/* Writes nv, root r's new value (r's shape), into r: into its storage for
 * an input or buffer (COPY, unless nv is already a version of it), else r
 * takes the value. */
static int views__root_write(Interp *I, TensorObj *r, int32_t nv, int32_t node)
{
    int32_t old = r->value;
    if (nv == old)
        return 0;
    if (views__storage(I, old) && !views__shares(I->g, nv, old)) {
        views__unshare(I, old, NULL, node);
        int32_t in[2] = {old, nv};
        if ((nv = views__emit(I, OP_COPY, in, 2, NULL, 0, node)) < 0)
            return -1;
    }
    views_mark_stale(I, old);
    r->value = nv;
    return 0;
}

/* The parent value of chain step op written with cur: the step inverted. */
static int32_t views__inverse(Interp *I, int32_t opid, int32_t parent, int32_t cur, int32_t node)
{
    Graph *g = I->g;
    Op op = g->ops.v[opid];
    const Val *pv = &g->vals.v[parent];
    switch (op_info[op.kind].view) {
    case VIEW_SLICE: {
        int32_t in[2] = {parent, cur};
        return views__emit(I, OP_SLICE_STORE, in, 2, op.attr, 4, node);
    }
    case VIEW_SELECT: {
        int64_t dims[GRAPH_MAX_DIMS];
        int n = pv->ndim;
        int64_t dim = op.attr[0], idx = op.attr[1];
        for (int d = 0; d < n; d++)
            dims[d] = pv->dims[d];
        dims[dim] = graph_dim_const(g, 1);
        int32_t c1 = views__emit(I, OP_RESHAPE, &cur, 1, dims, (uint32_t)n, node);
        if (c1 < 0)
            return -1;
        int64_t attr[4] = {dim, idx, idx == -1 ? GRAPH_END : idx + 1, 1};
        int32_t in[2] = {parent, c1};
        return views__emit(I, OP_SLICE_STORE, in, 2, attr, 4, node);
    }
    case VIEW_RESHAPE: {
        int64_t dims[GRAPH_MAX_DIMS];
        for (int d = 0; d < pv->ndim; d++)
            dims[d] = pv->dims[d];
        return views__emit(I, OP_RESHAPE, &cur, 1, dims, pv->ndim, node);
    }
    case VIEW_PERMUTE: {
        int64_t inv[GRAPH_MAX_DIMS];
        for (uint32_t d = 0; d < op.nattr; d++)
            inv[op.attr[d]] = d;
        return views__emit(I, OP_PERMUTE, &cur, 1, inv, op.nattr, node);
    }
    case VIEW_CONTIGUOUS:
    case VIEW_EXPAND:   /* one that broadcasts nothing (views__writable) */
        return cur;
    case VIEW_SLICE_DYN:
    case VIEW_NONE:
        interp_diag(I, node, RULE_TNG211, "an in-place write through a view tngc cannot write back (%s)",
                    op_info[op.kind].name);
        return -1;
    }
    TNGC_BUG("views__inverse: view step %d", (int)op_info[op.kind].view);
}

int views_write_end(Interp *I, Obj *x, int32_t nv, int32_t node)
{
    TensorObj *t = views__target(I, x, node);
    if (!t || nv < 0)
        return -1;
    TensorObj *r = t->base;
    if (!r || r->value < 0)
        return views__root_write(I, t, nv, node);
    /* copy-on-write tensors sharing the root's buffer (the root itself
     * among them) get buffers of their own first; then the parents along
     * the chain, from the root's current value */
    views__unshare(I, r->value, NULL, node);
    int32_t par[VIEWS_MAX_CHAIN];
    par[0] = r->value;
    for (int i = 1; i < t->nchain; i++)
        if ((par[i] = views_replay(I, t->chain[i - 1], par[i - 1], node)) < 0)
            return -1;
    int32_t cur = nv;
    for (int i = t->nchain - 1; i >= 0 && cur >= 0; i--)
        cur = views__inverse(I, t->chain[i], par[i], cur, node);
    if (cur < 0 || views__root_write(I, r, cur, node) < 0)
        return -1;
    if (t->value != nv)
        views_mark_stale(I, t->value);
    t->value = nv;
    t->seen = r->value;
    return 0;
}

Obj *views_write(Interp *I, Obj *x, int32_t nv, int32_t node, const char *what)
{
    if (views_write_begin(I, x, node, what) < 0 || views_write_end(I, x, nv, node) < 0)
        return obj_unknown_reported(I);
    return x;
}
