/*
 * values.c - the helpers every pass shares (values.h): where a value's
 * storage belongs (graph_storage_root, once per value for the whole plan,
 * up to an input or weight), and its
 * element count and bytes in a gear, evaluated from its symbolic dims. The
 * planner checked the size invariant per gear first (gears.c), so an
 * overflow here is a bug.
 */
#include "values.h"

int64_t plan_val_numel(const Plan *self, int gear, int32_t v)
{
    const Graph *g = self->g;
    const Val *val = &g->vals.v[v];
    int64_t n = 1;
    for (int d = 0; d < val->ndim; d++) {
        int64_t x;
        if (graph_dim_eval(g, val->dims[d], self->gears.v[gear].symval, &x) < 0 || x < 0)
            return -1;
        /* plan_gears checked the size invariant: a bug if this overflows */
        if (graph_ckd_mul(&n, n, x) || n > GRAPH_MAX_BYTES)
            TNGC_BUG("value %d of %s is past the size limit in gear %d", (int)v,
                     g->name ? g->name : "?", gear);
    }
    return n;
}

int64_t plan_val_bytes(const Plan *self, int gear, int32_t v)
{
    int64_t n = plan_val_numel(self, gear, v), bytes;
    if (n < 0)
        return -1;
    if (graph_ckd_mul(&bytes, n, dtype_size(self->g->vals.v[v].dtype)) || bytes > GRAPH_MAX_BYTES)
        TNGC_BUG("value %d is past the size limit in gear %d", (int)v, gear);
    return bytes;
}

void plan_values_init(Plan *self)
{
    const Graph *g = self->g;
    size_t nv = g->vals.n;
    self->root = arena_alloc(&self->arena, (nv + 1) * sizeof *self->root);
    self->last_write = arena_alloc(&self->arena, (nv + 1) * sizeof *self->last_write);
    for (size_t v = 0; v < nv; v++) {
        const Op *op = &g->ops.v[g->vals.v[v].op];
        unsigned flags = op_info[op->kind].flags;
        int32_t r = (int32_t)v;
        if ((flags & (OPF_ALIAS | OPF_INPLACE)) && op->nin > 0 && op->in[0] >= 0)
            r = op->in[0] < (int32_t)v ? self->root[op->in[0]] : graph_storage_root(g, (int32_t)v);
        self->root[v] = r;
        self->last_write[v] = -1;
        if ((flags & OPF_INPLACE) && g->vals.v[v].idx == 0)
            self->last_write[r] = (int32_t)v;
    }
}

int32_t plan_root(const Plan *self, int32_t v)
{
    return self->root ? self->root[v] : graph_storage_root(self->g, v);
}

const char *plan_caller_storage(Plan *self, int32_t v)
{
    const Graph *g = self->g;
    int32_t root = plan_root(self, v);
    OpKind kind = g->ops.v[g->vals.v[root].op].kind;
    for (size_t i = 0; kind == OP_INPUT && i < g->inputs.n; i++)
        if (g->inputs.v[i].value == root)
            return arena_printf(&self->arena, "input %s", g->inputs.v[i].name);
    for (size_t i = 0; kind == OP_WEIGHT && i < g->weights.n; i++)
        if (g->weights.v[i].value == root)
            return arena_printf(&self->arena, "weight %s", g->weights.v[i].name);
    return NULL;
}
