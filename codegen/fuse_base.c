/*
 * fuse_base.c - what the fusers of the CPU target (fuse.c, pointwise and
 * row groups; fuse_gemm.c, matmul epilogues) both read: every value's
 * readers, counted once per plan (fuse_init; FuseState, Emit.fuse), a
 * value's dims in the emitter's gear, the arena bytes of its storage, and
 * a group's trace name. Below both, so that neither calls the other for
 * them (emit_cpu.c -> fuse.c -> fuse_gemm.c -> fuse_base.c).
 */
#include "emit.h"

#include <stdlib.h>

typedef struct FuseState {
    uint32_t *uses;        /* per value: readers (ops' inputs, graph outputs) */
} FuseState;

void fuse_init(Emit *E)
{
    E->fuse = NULL;
    if (E->opt->no_fuse)
        return;
    FuseState *f = xcalloc(1, sizeof *f);
    f->uses = xcalloc(E->g->vals.n + 1, sizeof *f->uses);
    for (size_t i = 0; i < E->g->ops.n; i++) {
        const Op *op = &E->g->ops.v[i];
        for (uint32_t k = 0; k < op->nin; k++)
            if (op->in[k] >= 0)
                f->uses[op->in[k]]++;
    }
    for (size_t i = 0; i < E->g->outputs.n; i++)
        if (E->g->outputs.v[i].value >= 0)
            f->uses[E->g->outputs.v[i].value]++;
    E->fuse = f;
}

void fuse_fini(Emit *E)
{
    FuseState *f = E->fuse;
    if (f) {
        free(f->uses);
        free(f);
    }
    E->fuse = NULL;
}

/* Readers of value v (ops' inputs, graph outputs): fuse_init's count
 * (E->fuse set). */
uint32_t fuse_uses(const Emit *E, int32_t v)
{
    return ((const FuseState *)E->fuse)->uses[v];
}

/* Value v's dims in the gear (right-aligned into dims[GRAPH_MAX_DIMS]
 * is the caller's business); its rank, or -1 when a dim is not a constant. */
int fuse_dims(const Emit *E, int32_t v, int64_t *dims)
{
    const Val *val = &E->g->vals.v[v];
    for (int d = 0; d < val->ndim; d++)
        if (graph_dim_eval(E->g, val->dims[d], E->symval, &dims[d]) != 0)
            return -1;
    return val->ndim;
}

int64_t fuse_numel(const int64_t *dims, int nd)
{
    int64_t n = 1;
    for (int d = 0; d < nd; d++)
        n *= dims[d];
    return n;
}

/* The arena byte range of value v's storage in the gear: 1, or 0 when it
 * lives outside the arena (an input, a weight, a constant); -1 unknown. */
int fuse_range(const Emit *E, int32_t v, int64_t *lo, int64_t *hi)
{
    int32_t r = graph_storage_root(E->g, v);
    if (plan_const_storage(E->p, r) || E->input_of[r] >= 0 || E->weight_of[r] >= 0)
        return 0;
    const PlanMemory *m = &E->p->mem.v[E->gear];
    if (m->offset[r] < 0 || m->bytes[r] < 0)
        return -1;
    *lo = m->offset[r];
    *hi = m->offset[r] + m->bytes[r];
    return 1;
}

/* "fused mul %3 + silu %4 (line 9)": the group's trace name. */
void fuse_name(const Emit *E, const int32_t *ops, size_t n, StrBuf *o)
{
    const Op *sink = &E->g->ops.v[ops[n - 1]];
    sb_puts(o, "fused");
    for (size_t j = 0; j < n; j++) {
        const Op *op = &E->g->ops.v[ops[j]];
        sb_printf(o, "%s%s %%%d", j ? " + " : " ", op_info[op->kind].name, op->out);
    }
    if (sink->file)
        sb_printf(o, " (%s:%u)", sink->file, sink->line);
    else
        sb_printf(o, " (line %u)", sink->line);
}
