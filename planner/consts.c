/*
 * consts.c - the constants of a plan: ops the bundle runs once, when it is
 * created, instead of on every call (plan_build_for's consts_at_create; the CPU
 * target). They are the tensors a script computes from constants only
 * (RoPE inv_freq and cos/sin caches, causal masks, module-level tables:
 * the ops the lowering replays into the entry graph) and whatever the
 * forward computes from them, or from nothing, with the same shapes in
 * every gear.
 *
 * An op is a constant when it is not a graph input or weight, has no
 * control dependency, writes into no input (not OPF_INPLACE), every input
 * it has is a constant's value, and every dim of its outputs and of its
 * attributes (arange's start, slice_dyn's bounds) is a constant (no
 * symbol). Its values live in the plan's constant block (const_off,
 * const_bytes), outside every gear's arena, computed once and only read
 * afterwards; so a constant must not be the storage of anything a run
 * writes or hands out: a graph output, a value written back into an input
 * or buffer, or the input 0 of an in-place op whose storage it is. Such a
 * constant is made an ordinary op again, and with it everything computed
 * from it (a fixpoint over program order). The block takes the buffers in
 * program order, 64-byte aligned, up to PLAN_MAX_CONST_BYTES; ops past it
 * stay ordinary.
 */
#include "passes.h"
#include "plan.h"
#include "values.h"

#include <string.h>

#define CONST_ALIGN 64

/* The op producing v. */
static int32_t consts__producer(const Graph *g, int32_t v)
{
    return g->vals.v[v].op;
}

/* 1 when op may be a constant, its inputs aside. */
static int consts__candidate(const Graph *g, const Op *op)
{
    unsigned fl = op_info[op->kind].flags;
    if (fl & (OPF_SOURCE | OPF_INPLACE) || op->nctrl)
        return 0;
    /* dims in attributes the shapes do not say: arange's start (arange(s0,
     * s0 + 2) has a constant shape), slice_dyn's bounds */
    for (uint32_t k = op->kind == OP_ARANGE ? 1 : op->kind == OP_SLICE_DYN ? 1 : op->nattr;
         k < op->nattr && k < (op->kind == OP_ARANGE ? 2u : 3u); k++) {
        int64_t c;
        if (!graph_dim_const_value(g, (DimId)op->attr[k], &c))
            return 0;
    }
    for (uint32_t k = 0; k < op->nout; k++) {
        const Val *val = &g->vals.v[op->out + (int32_t)k];
        for (int d = 0; d < val->ndim; d++) {
            int64_t c;
            if (!graph_dim_const_value(g, val->dims[d], &c))
                return 0;
        }
    }
    return 1;
}

/* Unmarks the constant whose storage v is; 1 when one was. */
static int consts__unmark_storage(Plan *self, int32_t v)
{
    if (v < 0)
        return 0;
    int32_t root = plan_root(self, v);
    int32_t op = consts__producer(self->g, root);
    if (!self->const_op[op])
        return 0;
    self->const_op[op] = 0;
    return 1;
}

void plan_consts(Plan *self)
{
    const Graph *g = self->g;
    size_t nops = g->ops.n, nv = g->vals.n;
    self->const_op = arena_alloc(&self->arena, nops + 1);
    memset(self->const_op, 0, nops + 1);
    self->const_off = arena_alloc(&self->arena, (nv + 1) * sizeof *self->const_off);
    for (size_t v = 0; v < nv; v++)
        self->const_off[v] = -1;
    self->const_bytes = 0;
    for (size_t i = 0; i < nops; i++)
        self->const_op[i] = (uint8_t)consts__candidate(g, &g->ops.v[i]);
    for (int changed = 1; changed;) {
        changed = 0;
        /* forward: every input a constant's (program order is topological) */
        for (size_t i = 0; i < nops; i++) {
            const Op *op = &g->ops.v[i];
            if (!self->const_op[i])
                continue;
            for (uint32_t k = 0; k < op->nin; k++)
                if (op->in[k] >= 0 && !self->const_op[consts__producer(g, op->in[k])]) {
                    self->const_op[i] = 0;
                    break;
                }
        }
        /* storage a run writes or hands out */
        for (size_t i = 0; i < nops; i++) {
            const Op *op = &g->ops.v[i];
            if (!self->const_op[i] && (op_info[op->kind].flags & OPF_INPLACE) && op->nin)
                changed |= consts__unmark_storage(self, op->in[0]);
        }
        for (size_t i = 0; i < g->outputs.n; i++)
            changed |= consts__unmark_storage(self, g->outputs.v[i].value);
        for (size_t i = 0; i < g->inputs.n; i++)
            changed |= consts__unmark_storage(self, g->inputs.v[i].final);
        for (size_t i = 0; i < g->weights.n; i++)
            changed |= consts__unmark_storage(self, g->weights.v[i].final);
    }
    /* the block: each constant buffer in program order, within the limit */
    for (size_t i = 0; i < nops; i++) {
        const Op *op = &g->ops.v[i];
        if (!self->const_op[i] || (op_info[op->kind].flags & OPF_ALIAS))
            continue;
        int64_t need = 0;
        for (uint32_t k = 0; k < op->nout; k++) {
            int64_t b = plan_val_bytes(self, 0, op->out + (int32_t)k);
            need += (b + CONST_ALIGN - 1) / CONST_ALIGN * CONST_ALIGN;
        }
        if (self->const_bytes + need > PLAN_MAX_CONST_BYTES) {
            self->const_op[i] = 0;
            continue;
        }
        for (uint32_t k = 0; k < op->nout; k++) {
            int64_t b = plan_val_bytes(self, 0, op->out + (int32_t)k);
            self->const_off[op->out + (int32_t)k] = self->const_bytes;
            self->const_bytes += (b + CONST_ALIGN - 1) / CONST_ALIGN * CONST_ALIGN;
        }
    }
    /* ops past the limit: what reads them is ordinary again (their block
     * offsets stay unused: a rare case, the limit being the lowering's own) */
    for (size_t i = 0; i < nops; i++) {
        const Op *op = &g->ops.v[i];
        if (!self->const_op[i])
            continue;
        for (uint32_t k = 0; k < op->nin; k++)
            if (op->in[k] >= 0 && !self->const_op[consts__producer(g, op->in[k])]) {
                self->const_op[i] = 0;
                for (uint32_t j = 0; j < op->nout; j++)
                    self->const_off[op->out + (int32_t)j] = -1;
                break;
            }
    }
    self->nconst = 0;
    for (size_t i = 0; i < nops; i++)
        self->nconst += self->const_op[i];
}

int plan_is_const(const Plan *self, int32_t op)
{
    return self->const_op && op >= 0 && self->const_op[op];
}

int plan_const_storage(const Plan *self, int32_t v)
{
    if (!self->const_op || v < 0)
        return 0;
    return self->const_op[self->g->vals.v[plan_root(self, v)].op];
}
