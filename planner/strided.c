/*
 * strided.c - which matmuls read permuted / expanded operands in place
 * and which view copies that leaves without a reader (strided.h).
 */
#include "strided.h"

#include "plan.h"

/* Whether op kind is a view the strided matmul can walk: a permute, or an
 * expand (size-1 and new leading dims read with stride 0). */
static int strided__view_kind(OpKind k)
{
    return k == OP_PERMUTE || k == OP_EXPAND;
}

int plan_mm_view(const Plan *self, int32_t v, int32_t *base, int *map)
{
    const Graph *g = self->g;
    const Val *val = &g->vals.v[v];
    const Op *op = &g->ops.v[val->op];
    int nd = val->ndim;
    if (!strided__view_kind(op->kind) || op->nin < 1 || op->in[0] < 0 ||
        (self->const_op && self->const_op[val->op])) {
        *base = v;
        for (int d = 0; d < nd; d++)
            map[d] = d;
        return 0;
    }
    int inner[GRAPH_MAX_DIMS];
    int32_t x = op->in[0];
    int nx = g->vals.v[x].ndim;
    plan_mm_view(self, x, base, inner);
    if (op->kind == OP_PERMUTE) {
        for (int d = 0; d < nd; d++) {
            int64_t p = d < (int)op->nattr ? op->attr[d] : d;
            if (p < 0)
                p += nx;
            TNGC_ASSERT(p >= 0 && p < nx);
            map[d] = inner[p];
        }
    } else {
        int off = nd - nx;
        for (int d = 0; d < nd; d++) {
            int64_t c = 0;
            int dx = d - off;
            map[d] = dx < 0 ? -1 : inner[dx];
            if (dx >= 0 && graph_dim_const_value(g, g->vals.v[x].dims[dx], &c) && c == 1 &&
                !(graph_dim_const_value(g, val->dims[d], &c) && c == 1))
                map[d] = -1;
        }
    }
    return 1;
}

/* Whether the storage *base reads is not written after base: base is the
 * last version of its root (the output of the last in-place op writing
 * it, in program order), or no in-place op writes the root. */
static int strided__base_final(const Graph *g, int32_t base)
{
    int32_t r = graph_storage_root(g, base), last = -1;
    /* the version base reads: through its views to the op that wrote it */
    for (size_t steps = 0; steps <= g->ops.n; steps++) {
        const Op *op = &g->ops.v[g->vals.v[base].op];
        if (!(op_info[op->kind].flags & OPF_ALIAS) || op->nin == 0 || op->in[0] < 0)
            break;
        base = op->in[0];
    }
    for (size_t o = 0; o < g->ops.n; o++) {
        const Op *op = &g->ops.v[o];
        if ((op_info[op->kind].flags & OPF_INPLACE) && graph_storage_root(g, op->out) == r)
            last = op->out;
    }
    return last < 0 || last == base;
}

static int strided__float(DType t)
{
    return t == DT_F32 || t == DT_F16 || t == DT_BF16;
}

int plan_mm_strided(const Plan *self, int32_t opi)
{
    const Graph *g = self->g;
    const Op *op = &g->ops.v[opi];
    int any = 0;
    if (!self->strided_views || g->cfg.static_kernel ||
        (op->kind != OP_MM && op->kind != OP_BMM && op->kind != OP_MATMUL) || op->nin != 2 ||
        op->nout != 1 || (self->const_op && self->const_op[opi]) ||
        !strided__float(g->vals.v[op->out].dtype) || g->vals.v[op->out].ndim < 2)
        return 0;
    for (int k = 0; k < 2; k++) {
        int32_t v = op->in[k], base;
        int map[GRAPH_MAX_DIMS];
        if (v < 0 || g->vals.v[v].ndim < 2 || !strided__float(g->vals.v[v].dtype))
            return 0;
        if (plan_mm_view(self, v, &base, map)) {
            if (!strided__base_final(g, base))
                return 0;
            any = 1;
        }
    }
    return any;
}

unsigned char *plan_views_elided(const Plan *self)
{
    const Graph *g = self->g;
    size_t nops = g->ops.n, nv = g->vals.n;
    unsigned char *el = xcalloc(nops + 1, 1), *mm = xcalloc(nops + 1, 1), *keep = xcalloc(nv + 1, 1);
    for (size_t o = 0; o < nops; o++)
        mm[o] = (unsigned char)plan_mm_strided(self, (int32_t)o);
    /* values that must exist: outputs, written-back finals, storage of others */
    for (size_t i = 0; i < g->outputs.n; i++)
        if (g->outputs.v[i].value >= 0)
            keep[g->outputs.v[i].value] = 1;
    for (size_t v = 0; v < nv; v++) {
        int32_t r = graph_storage_root(g, (int32_t)v);
        if (r != (int32_t)v)
            keep[r] = 1;
    }
    /* readers come after their producers: decide from the last op back,
     * counting each value's readers (2: one that needs the value itself) */
    unsigned char *readers = xcalloc(nv + 1, 1);
    for (size_t o = nops; o-- > 0;) {
        const Op *op = &g->ops.v[o];
        if (strided__view_kind(op->kind) && op->nout == 1 && !keep[op->out] &&
            !(self->const_op && self->const_op[o]))
            el[o] = readers[op->out] == 1;
        for (uint32_t k = 0; k < op->nin; k++)
            if (op->in[k] >= 0 && readers[op->in[k]] < 2)
                readers[op->in[k]] = mm[o] || el[o] ? 1 : 2;
    }
    free(readers);
    free(mm);
    free(keep);
    return el;
}
