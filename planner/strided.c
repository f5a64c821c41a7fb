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

/* The walk follows at most this many view ops below a value: a longer
 * chain is read from a copy (the walk stays linear in the ops). */
#define STRIDED_MAX_CHAIN 32

/* For a reshape of x into v that merges two adjacent dims a, a + 1 of x
 * (constant sizes above 1) into one and keeps the others: *a, or 0. */
static int strided__merge(const Graph *g, int32_t x, int32_t v, int *a)
{
    const Val *xv = &g->vals.v[x], *vv = &g->vals.v[v];
    int nx = xv->ndim, nv = vv->ndim, found = -1;
    if (nx != nv + 1)
        return 0;
    for (int dv = 0, dx = 0; dv < nv; dv++, dx++) {
        if (vv->dims[dv] == xv->dims[dx])
            continue;
        int64_t s0 = strided__size(g, x, dx), s1 = dx + 1 < nx ? strided__size(g, x, dx + 1) : -1;
        if (found >= 0 || s0 < 2 || s1 < 2 || strided__size(g, v, dv) != s0 * s1)
            return 0;
        found = dx++;
    }
    if (found < 0)
        return 0;
    *a = found;
    return 1;
}

/* An index op x[idx] along attr[0] by one integer index of one element
 * (vllm's cache[slot_ids] for one sequence): the dim it indexes, or -1. */
static int strided__index(const Graph *g, const Op *op)
{
    const Val *x, *ix;
    int64_t n = 0;
    if (op->kind != OP_INDEX || op->nin != 2 || op->in[1] < 0 || op->nattr < 1)
        return -1;
    x = &g->vals.v[op->in[0]];
    ix = &g->vals.v[op->in[1]];
    if ((ix->dtype != DT_I64 && ix->dtype != DT_I32) || ix->ndim != 1 ||
        !graph_dim_const_value(g, ix->dims[0], &n) || n != 1 || op->attr[0] < 0 ||
        op->attr[0] >= x->ndim || g->vals.v[op->out].ndim != x->ndim)
        return -1;
    return (int)op->attr[0];
}

/* 1 when op's kind and attributes are a step the walk may take. */
static int strided__step_kind(const Plan *self, int32_t opi)
{
    const Graph *g = self->g;
    const Op *op = &g->ops.v[opi];
    int dim, a, grp[GRAPH_MAX_DIMS];
    int64_t start, inner[GRAPH_MAX_DIMS];
    if (op->nin < 1 || op->in[0] < 0 || op->nout != 1 || (self->const_op && self->const_op[opi]))
        return 0;
    if (op->kind == OP_INDEX)
        return strided__index(g, op) >= 0;
    switch (op_info[op->kind].view) {
    case VIEW_PERMUTE:
    case VIEW_EXPAND:
    case VIEW_CONTIGUOUS:
        return 1;
    case VIEW_SLICE:
        return strided__slice(g, op, &dim, &start);
    case VIEW_RESHAPE:
        return strided__split(g, op->in[0], op->out, grp, inner) ||
               strided__merge(g, op->in[0], op->out, &a);
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
    pv->ix = -1;
    pv->ixdim = -1;
    for (int d = 0; d < GRAPH_MAX_DIMS; d++) {
        pv->map[d] = d < g->vals.v[v].ndim ? d : -1;
        pv->coef[d] = 1;
        pv->off[d] = 0;
        pv->rep[d] = 1;
    }
}

/* The view op opi (a step strided__step_kind takes) applied to in, the
 * view of its input: *pv. Returns 0 where the step cannot be expressed
 * over in (a dim repeated by a merge sliced or split again, an index of
 * a view, a merge of a dim that is not broadcast). */
static int strided__step(const Plan *self, int32_t opi, const PlanView *in, PlanView *pv)
{
    const Graph *g = self->g;
    const Op *op = &g->ops.v[opi];
    int32_t x = op->in[0], v = op->out;
    int nx = g->vals.v[x].ndim, nd = g->vals.v[v].ndim;
    *pv = *in;
    for (int d = nd; d < GRAPH_MAX_DIMS; d++) {
        pv->map[d] = -1;
        pv->coef[d] = 0;
        pv->rep[d] = 1;
    }
    if (op->kind == OP_INDEX) {
        /* of a value read as it is (its dim's size wraps a negative index) */
        int dim = strided__index(g, op);
        if (in->base != x || in->ix >= 0)
            return 0;
        pv->ix = op->in[1];
        pv->ixdim = in->map[dim];
    } else if (op->kind == OP_PERMUTE) {
        for (int d = 0; d < nd; d++) {
            int64_t p = d < (int)op->nattr ? op->attr[d] : d;
            if (p < 0)
                p += nx;
            TNGC_ASSERT(p >= 0 && p < nx);
            pv->map[d] = in->map[p];
            pv->coef[d] = in->coef[p];
            pv->rep[d] = in->rep[p];
        }
    } else if (op->kind == OP_EXPAND) {
        int off = nd - nx;
        for (int d = 0; d < nd; d++) {
            int64_t c = 0;
            int dx = d - off;
            pv->map[d] = dx < 0 ? -1 : in->map[dx];
            pv->coef[d] = dx < 0 ? 0 : in->coef[dx];
            pv->rep[d] = dx < 0 ? 1 : in->rep[dx];
            if (dx >= 0 && graph_dim_const_value(g, g->vals.v[x].dims[dx], &c) && c == 1 &&
                !(graph_dim_const_value(g, g->vals.v[v].dims[d], &c) && c == 1))
                pv->map[d] = -1;
        }
    } else if (op->kind == OP_SLICE) {
        int dim = 0;
        int64_t start = 0, n = 0;
        TNGC_ASSERT(strided__slice(g, op, &dim, &start));
        if (in->rep[dim] != 1)
            return 0;
        if (in->map[dim] >= 0)
            pv->off[in->map[dim]] += start * in->coef[dim];
        /* the step matters from two elements on (then it is below the
         * dim's size: no overflow) */
        if (!graph_dim_const_value(g, g->vals.v[v].dims[dim], &n) || n > 1)
            pv->coef[dim] *= op->attr[3];
    } else if (op->kind == OP_RESHAPE) {
        int grp[GRAPH_MAX_DIMS], a = 0;
        int64_t inner[GRAPH_MAX_DIMS];
        if (strided__split(g, x, v, grp, inner)) {
            for (int d = 0; d < nd; d++) {
                int dx = grp[d];
                /* a repeated dim is taken whole or not at all */
                if (dx >= 0 && in->rep[dx] != 1 &&
                    (inner[d] != 1 || strided__size(g, v, d) != strided__size(g, x, dx)))
                    return 0;
                pv->map[d] = dx < 0 ? -1 : in->map[dx];
                pv->coef[d] = dx < 0 ? 0 : in->coef[dx] * inner[d];
                pv->rep[d] = dx < 0 ? 1 : in->rep[dx];
            }
        } else {
            /* dims a, a + 1 into one: the inner one broadcast (repeat_kv's
             * expand then reshape), index i reads x's (i / rep, any) */
            TNGC_ASSERT(strided__merge(g, x, v, &a));
            if (in->map[a + 1] >= 0 || in->rep[a] != 1 || in->rep[a + 1] != 1)
                return 0;
            for (int d = 0; d < nd; d++) {
                int dx = d <= a ? d : d + 1;
                pv->map[d] = in->map[dx];
                pv->coef[d] = in->coef[dx];
                pv->rep[d] = d == a ? strided__size(g, x, a + 1) : in->rep[dx];
            }
        }
    }   /* (contiguous: the same view) */
    return 1;
}

/* 1 when op opi is a step the walk may take whose chain of such steps
 * below it is at most STRIDED_MAX_CHAIN long. */
static int strided__step_ok(const Plan *self, int32_t opi)
{
    const Graph *g = self->g;
    int32_t u = opi;
    for (int n = 0; n <= STRIDED_MAX_CHAIN; n++) {
        if (!strided__step_kind(self, u))
            return n > 0;
        u = g->vals.v[g->ops.v[u].in[0]].op;
    }
    return 0;
}

/* The view of v through every view op below it that the walk takes (a
 * step it cannot express ends it there, at a copy): *pv; returns 1 when
 * some step copies (then the view is worth reading). */
static int strided__walk(const Plan *self, int32_t v, PlanView *pv)
{
    const Graph *g = self->g;
    int32_t opi = g->vals.v[v].op;
    const Op *op = &g->ops.v[opi];
    PlanView in;
    int copies;
    if (!strided__step_ok(self, opi)) {
        strided__self(g, v, pv);
        return 0;
    }
    copies = strided__walk(self, op->in[0], &in);
    if (!strided__step(self, opi, &in, pv)) {
        strided__self(g, v, pv);
        return 0;
    }
    /* a view worth reading through has a copy in it (an alias alone is
     * the same storage read densely) */
    return copies | !(op_info[op->kind].flags & OPF_ALIAS);
}

int plan_mm_view_op(const Plan *self, int32_t opi)
{
    PlanView in, pv;
    if (!strided__step_ok(self, opi))
        return 0;
    strided__walk(self, self->g->ops.v[opi].in[0], &in);
    return strided__step(self, opi, &in, &pv);
}

int plan_mm_view(const Plan *self, int32_t v, PlanView *pv)
{
    int copies = strided__walk(self, v, pv);
    if (!copies)
        strided__self(self->g, v, pv);
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

/* The repeated dim of matmul op's operand views (PlanView.rep): 1 with
 * *dim and *rep for one batch dim of operands of the output's rank, 0 for
 * none, -1 for what the kernel call cannot take (a repeat in a row or
 * column dim, several, operands broadcast in rank, no rank to spare). */
static int strided__rep(const Plan *self, const Op *op, const PlanView *pv, int *dim, int64_t *rep)
{
    const Graph *g = self->g;
    int nd = g->vals.v[op->out].ndim, found = 0;
    for (int k = 0; k < 2; k++)
        for (int d = 0; d < g->vals.v[op->in[k]].ndim; d++) {
            if (pv[k].rep[d] == 1)
                continue;
            if (found || d >= nd - 2 || nd >= GRAPH_MAX_DIMS || g->vals.v[op->in[0]].ndim != nd ||
                g->vals.v[op->in[1]].ndim != nd || strided__size(g, op->out, d) < 0)
                return -1;
            found = 1;
            *dim = d;
            *rep = pv[k].rep[d];
        }
    return found;
}

int plan_mm_strided(const Plan *self, int32_t opi)
{
    const Graph *g = self->g;
    const Op *op = &g->ops.v[opi];
    PlanView pv[2];
    int any = 0, dim;
    int64_t rep;
    if (!self->strided_views || g->cfg.static_kernel ||
        (op->kind != OP_MM && op->kind != OP_BMM && op->kind != OP_MATMUL) || op->nin != 2 ||
        op->nout != 1 || (self->const_op && self->const_op[opi]) ||
        !strided__float(g->vals.v[op->out].dtype) || g->vals.v[op->out].ndim < 2)
        return 0;
    for (int k = 0; k < 2; k++) {
        int32_t v = op->in[k];
        if (v < 0 || g->vals.v[v].ndim < 2 || !strided__float(g->vals.v[v].dtype))
            return 0;
        if (plan_mm_view(self, v, &pv[k])) {
            if (!strided__base_final(self, pv[k].base) ||
                (pv[k].ix >= 0 && !strided__base_final(self, pv[k].ix)))
                return 0;
            any = 1;
        }
    }
    return any && strided__rep(self, op, pv, &dim, &rep) >= 0;
}

int plan_mm_rep(const Plan *self, int32_t opi, int *dim, int64_t *rep)
{
    const Op *op = &self->g->ops.v[opi];
    PlanView pv[2];
    if (!plan_mm_strided(self, opi))
        return 0;
    plan_mm_view(self, op->in[0], &pv[0]);
    plan_mm_view(self, op->in[1], &pv[1]);
    return strided__rep(self, op, pv, dim, rep) > 0;
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
