/*
 * strided.c - which matmuls read views (permutes, expands, slices,
 * dim-splitting reshapes) of their operands in place, and which view
 * copies that leaves without a reader (strided.h).
 */
#include "strided.h"

#include "plan.h"
#include "values.h"

#include <string.h>

/* The constant size of dim d of value v, or -1. */
static int64_t strided__size(const Graph *g, int32_t v, int d)
{
    int64_t c = 0;
    return graph_dim_const_value(g, g->vals.v[v].dims[d], &c) && c >= 0 ? c : -1;
}

/* A slice op's dim and first index, normalised as Python's slice does,
 * on an input dim of constant size; 0 when not known. */
static int strided__slice(const Graph *g, const Op *op, int *dim, int64_t *start)
{
    int32_t x = op->in[0];
    int nx = g->vals.v[x].ndim;
    int64_t d, len, st;
    if (op->nattr < 4 || op->attr[3] < 1)
        return 0;
    d = op->attr[0] < 0 ? op->attr[0] + nx : op->attr[0];
    if (d < 0 || d >= nx || (len = strided__size(g, x, (int)d)) < 0)
        return 0;
    st = op->attr[1];
    if (st < 0)
        st = st < -len ? 0 : st + len;
    *dim = (int)d;
    *start = st > len ? len : st;
    return 1;
}

/* For a reshape of x into v that only splits dims (and adds or drops dims
 * of size 1): per dim dv of v, grp[dv] the dim of x it comes from (-1: a
 * dim of size 1, any stride) and inner[dv] the product of the sizes of the
 * later dims of v from the same dim of x. A dim of x split into several
 * has constant sizes; one kept as it is (the same dim: a gear's batch)
 * may be symbolic. Returns 0 for any other reshape. */
static int strided__split(const Graph *g, int32_t x, int32_t v, int *grp, int64_t *inner)
{
    const Val *xv = &g->vals.v[x], *vv = &g->vals.v[v];
    int nx = xv->ndim, nv = vv->ndim, dv = 0;
    int64_t vs[GRAPH_MAX_DIMS];
    for (int d = 0; d < nv; d++)
        vs[d] = strided__size(g, v, d);
    for (int dx = 0; dx < nx; dx++) {
        int64_t xs = strided__size(g, x, dx), prod = 1;
        if (xs == 1)
            continue;
        for (; dv < nv && vs[dv] == 1; dv++)
            grp[dv] = -1;
        if (dv < nv && vv->dims[dv] == xv->dims[dx]) {   /* kept */
            grp[dv++] = dx;
            continue;
        }
        if (xs < 1)
            return 0;
        while (prod < xs) {
            for (; dv < nv && vs[dv] == 1; dv++)
                grp[dv] = -1;
            if (dv >= nv || vs[dv] < 1 || vs[dv] > xs / prod)
                return 0;
            grp[dv] = dx;
            prod *= vs[dv++];
        }
        if (prod != xs)
            return 0;
    }
    for (; dv < nv; dv++) {
        if (vs[dv] != 1)
            return 0;
        grp[dv] = -1;
    }
    for (int d = nv - 1; d >= 0; d--)
        inner[d] = d + 1 < nv && grp[d] >= 0 && grp[d + 1] == grp[d] ? inner[d + 1] * vs[d + 1] : 1;
    return 1;
}

int plan_mm_view_op(const Plan *self, int32_t opi)
{
    const Graph *g = self->g;
    const Op *op = &g->ops.v[opi];
    int dim, grp[GRAPH_MAX_DIMS];
    int64_t start, inner[GRAPH_MAX_DIMS];
    if (op->nin < 1 || op->in[0] < 0 || op->nout != 1 || (self->const_op && self->const_op[opi]))
        return 0;
    switch (op_info[op->kind].view) {
    case VIEW_PERMUTE:
    case VIEW_EXPAND:
    case VIEW_CONTIGUOUS:
        return 1;
    case VIEW_SLICE:
        return strided__slice(g, op, &dim, &start);
    case VIEW_RESHAPE:
        return strided__split(g, op->in[0], op->out, grp, inner);
    case VIEW_SLICE_DYN:
    case VIEW_SELECT:
    case VIEW_NONE:
        return 0;
    }
    TNGC_BUG("plan_mm_view_op: view step %d", (int)op_info[op->kind].view);
}

/* *pv: v itself. */
static void strided__self(const Graph *g, int32_t v, PlanView *pv)
{
    pv->base = v;
    for (int d = 0; d < GRAPH_MAX_DIMS; d++) {
        pv->map[d] = d < g->vals.v[v].ndim ? d : -1;
        pv->coef[d] = 1;
        pv->off[d] = 0;
    }
}

int plan_mm_view(const Plan *self, int32_t v, PlanView *pv)
{
    const Graph *g = self->g;
    const Val *val = &g->vals.v[v];
    const Op *op = &g->ops.v[val->op];
    int nd = val->ndim, copies;
    if (!plan_mm_view_op(self, val->op)) {
        strided__self(g, v, pv);
        return 0;
    }
    PlanView in;
    int32_t x = op->in[0];
    int nx = g->vals.v[x].ndim;
    /* a view worth reading through has a copy in it (an alias alone is
     * the same storage read densely) */
    copies = plan_mm_view(self, x, &in) | !(op_info[op->kind].flags & OPF_ALIAS);
    pv->base = in.base;
    memcpy(pv->off, in.off, sizeof pv->off);
    for (int d = nd; d < GRAPH_MAX_DIMS; d++) {
        pv->map[d] = -1;
        pv->coef[d] = 0;
    }
    if (op->kind == OP_PERMUTE) {
        for (int d = 0; d < nd; d++) {
            int64_t p = d < (int)op->nattr ? op->attr[d] : d;
            if (p < 0)
                p += nx;
            TNGC_ASSERT(p >= 0 && p < nx);
            pv->map[d] = in.map[p];
            pv->coef[d] = in.coef[p];
        }
    } else if (op->kind == OP_EXPAND) {
        int off = nd - nx;
        for (int d = 0; d < nd; d++) {
            int64_t c = 0;
            int dx = d - off;
            pv->map[d] = dx < 0 ? -1 : in.map[dx];
            pv->coef[d] = dx < 0 ? 0 : in.coef[dx];
            if (dx >= 0 && graph_dim_const_value(g, g->vals.v[x].dims[dx], &c) && c == 1 &&
                !(graph_dim_const_value(g, val->dims[d], &c) && c == 1))
                pv->map[d] = -1;
        }
    } else if (op->kind == OP_SLICE) {
        int dim = 0;
        int64_t start = 0, n = 0;
        TNGC_ASSERT(strided__slice(g, op, &dim, &start));
        for (int d = 0; d < nd; d++) {
            pv->map[d] = in.map[d];
            pv->coef[d] = in.coef[d];
        }
        if (in.map[dim] >= 0)
            pv->off[in.map[dim]] += start * in.coef[dim];
        /* the step matters from two elements on (then it is below the
         * dim's size: no overflow) */
        if (!graph_dim_const_value(g, val->dims[dim], &n) || n > 1)
            pv->coef[dim] *= op->attr[3];
    } else if (op->kind == OP_RESHAPE) {
        int grp[GRAPH_MAX_DIMS];
        int64_t inner[GRAPH_MAX_DIMS];
        TNGC_ASSERT(strided__split(g, x, v, grp, inner));
        for (int d = 0; d < nd; d++) {
            pv->map[d] = grp[d] < 0 ? -1 : in.map[grp[d]];
            pv->coef[d] = grp[d] < 0 ? 0 : in.coef[grp[d]] * inner[d];
        }
    } else {   /* contiguous: the same view */
        memcpy(pv->map, in.map, sizeof pv->map);
        memcpy(pv->coef, in.coef, sizeof pv->coef);
    }
    if (!copies)
        strided__self(g, v, pv);
    return copies;
}

/* Whether the storage *base reads is not written after base: base is the
 * last version of its root (the output of the last in-place op writing
 * it, in program order), or no in-place op writes the root. */
static int strided__base_final(const Plan *self, int32_t base)
{
    const Graph *g = self->g;
    int32_t r = plan_root(self, base), last = self->last_write[r];
    /* the version base reads: through its views to the op that wrote it */
    for (size_t steps = 0; steps <= g->ops.n; steps++) {
        const Op *op = &g->ops.v[g->vals.v[base].op];
        if (!(op_info[op->kind].flags & OPF_ALIAS) || op->nin == 0 || op->in[0] < 0)
            break;
        base = op->in[0];
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
        int32_t v = op->in[k];
        PlanView pv;
        if (v < 0 || g->vals.v[v].ndim < 2 || !strided__float(g->vals.v[v].dtype))
            return 0;
        if (plan_mm_view(self, v, &pv)) {
            if (!strided__base_final(self, pv.base))
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
    unsigned char *el = xcalloc(nops + 1, 1), *mm, *keep;
    if (!self->strided_views || g->cfg.static_kernel)   /* the CPU target's only */
        return el;
    mm = xcalloc(nops + 1, 1);
    keep = xcalloc(nv + 1, 1);
    for (size_t o = 0; o < nops; o++)
        mm[o] = (unsigned char)plan_mm_strided(self, (int32_t)o);
    /* values that must exist: outputs, written-back finals, storage of others */
    for (size_t i = 0; i < g->outputs.n; i++)
        if (g->outputs.v[i].value >= 0)
            keep[g->outputs.v[i].value] = 1;
    for (size_t v = 0; v < nv; v++) {   /* (a view the walk takes is decided below) */
        int32_t r = plan_root(self, (int32_t)v);
        if (r != (int32_t)v && !plan_mm_view_op(self, g->vals.v[v].op))
            keep[r] = 1;
    }
    /* readers come after their producers: decide from the last op back,
     * counting each value's readers (2: one that needs the value itself) */
    unsigned char *readers = xcalloc(nv + 1, 1);
    for (size_t o = nops; o-- > 0;) {
        const Op *op = &g->ops.v[o];
        if (plan_mm_view_op(self, (int32_t)o) && !keep[op->out])
            el[o] = readers[op->out] <= 1;   /* (0: nothing reads it) */
        for (uint32_t k = 0; k < op->nin; k++)
            if (op->in[k] >= 0 && readers[op->in[k]] < 2)
                readers[op->in[k]] = mm[o] || el[o] ? 1 : 2;
    }
    free(readers);
    free(mm);
    free(keep);
    return el;
}
