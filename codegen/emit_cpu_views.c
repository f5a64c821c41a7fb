/*
 * emit_cpu_views.c - the CPU target's views read in place
 * (planner/strided.h): which permutes and expands have no copy of their
 * own (the CPU emitter's state, Emit.target, set up by emit_cpu_views_init)
 * and a matmul's operands as a base pointer and element strides. emit_cpu.c
 * and fuse_gemm.c (matmul epilogues) both call it; it calls neither.
 */
#include "emit.h"

#include "../planner/strided.h"

#include <stdlib.h>

/* The CPU emitter's own state (Emit.target): per op, 1 for a permute or
 * expand whose readers all read through it (no kernel call, no buffer). */
typedef struct CpuState {
    unsigned char *elided;
} CpuState;

/* Whether op_id's copy is elided. */
int emit_cpu_elided(const Emit *E, int32_t op_id)
{
    const CpuState *cs = E->target;
    return cs && cs->elided && cs->elided[op_id];
}

/* Whether op_id is a matmul emitted through strides. */
int emit_cpu_mm_strided(const Emit *E, int32_t op_id)
{
    const CpuState *cs = E->target;
    return cs && cs->elided && !E->kptr && plan_mm_strided(E->p, op_id);
}

/* Base value b's dense stride along its dim k: the product of its later
 * dims ("1" for the last). */
static void ev__base_stride(Emit *E, const Val *b, int k)
{
    if (k == b->ndim - 1) {
        sb_putc(E->o, '1');
        return;
    }
    sb_putc(E->o, '(');
    for (int j = k + 1; j < b->ndim; j++) {
        sb_puts(E->o, j > k + 1 ? " * " : "");
        emit_dim(E, b->dims[j]);
    }
    sb_putc(E->o, ')');
}

/* Operand v of a strided matmul: the TngrtArg of its shape over the storage
 * of the value its views start from (at the views' element offset), then
 * its element strides there (planner/strided.h). */
void emit_cpu_mm_operand(Emit *E, int32_t v)
{
    const Val *val = &E->g->vals.v[v];
    PlanView pv;
    int any_off = 0;
    plan_mm_view(E->p, v, &pv);
    const Val *bv = &E->g->vals.v[pv.base];
    for (int k = 0; k < bv->ndim; k++)
        any_off |= pv.off[k] != 0;
    sb_puts(E->o, "&(TngrtArg){");
    if (any_off) {   /* a slice's start: the offset in bytes */
        sb_puts(E->o, "(unsigned char *)");
        emit_ptr(E, pv.base, 0);
        sb_printf(E->o, " + %d * (", dtype_size(bv->dtype));
        for (int k = 0, n = 0; k < bv->ndim; k++) {
            if (!pv.off[k])
                continue;
            sb_printf(E->o, "%s%s * ", n++ ? " + " : "", EMIT_I64(pv.off[k]));
            ev__base_stride(E, bv, k);
        }
        sb_putc(E->o, ')');
    } else {
        emit_ptr(E, pv.base, 0);
    }
    sb_printf(E->o, ", %s, %d, ", emit_dtype_enum(bv->dtype), val->ndim);
    emit_shape(E, v, -1);
    sb_puts(E->o, "}, (const int64_t[]){");
    for (int d = 0; d < val->ndim; d++) {
        sb_puts(E->o, d ? ", " : "");
        if (pv.map[d] < 0 || pv.coef[d] == 0) {
            sb_putc(E->o, '0');
            continue;
        }
        if (pv.coef[d] != 1)
            sb_printf(E->o, "%s * ", EMIT_I64(pv.coef[d]));
        ev__base_stride(E, bv, pv.map[d]);
    }
    sb_putc(E->o, '}');
}

void emit_cpu_views_init(Emit *E)
{
    CpuState *cs = xcalloc(1, sizeof *cs);
    cs->elided = plan_views_elided(E->p);
    E->target = cs;
}

void emit_cpu_views_fini(Emit *E)
{
    CpuState *cs = E->target;
    if (cs) {
        free(cs->elided);
        free(cs);
    }
    E->target = NULL;
}
