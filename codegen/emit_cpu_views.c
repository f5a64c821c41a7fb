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

/* Whether op_id's copy is elided (an index op read in place still runs
 * its check: emit_cpu_index_checked). */
int emit_cpu_elided(const Emit *E, int32_t op_id)
{
    const CpuState *cs = E->target;
    return cs && cs->elided && cs->elided[op_id] && E->g->ops.v[op_id].kind != OP_INDEX;
}

int emit_cpu_index_checked(const Emit *E, int32_t op_id)
{
    const CpuState *cs = E->target;
    return cs && cs->elided && cs->elided[op_id] && E->g->ops.v[op_id].kind == OP_INDEX;
}

/* Whether op_id is a matmul emitted through strides. */
int emit_cpu_mm_strided(const Emit *E, int32_t op_id)
{
    const CpuState *cs = E->target;
    return cs && cs->elided && !E->kptr && plan_mm_strided(E->p, op_id);
}

void emit_cpu_index_check(Emit *E, int32_t op_id)
{
    const Op *op = &E->g->ops.v[op_id];
    const Val *ix = &E->g->vals.v[op->in[1]], *x = &E->g->vals.v[op->in[0]];
    sb_puts(E->o, "if (tngrt_kernel_index_check(&(TngrtArg){");
    emit_ptr(E, op->in[1], 0);
    sb_printf(E->o, ", %s, %d, ", emit_dtype_enum(ix->dtype), ix->ndim);
    emit_shape(E, op->in[1], -1);
    sb_puts(E->o, "}, ");
    emit_dim(E, x->dims[op->attr[0]]);
    sb_printf(E->o, ", %d, err))\n", (int)op->attr[0]);
    emit_fail_return(E);
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

/* The repeated dim of strided matmul op_id (plan_mm_rep): *dim (-1: none)
 * and *rep. */
static void ev__rep(const Emit *E, int32_t op_id, int *dim, int64_t *rep)
{
    if (!plan_mm_rep(E->p, op_id, dim, rep)) {
        *dim = -1;
        *rep = 1;
    }
}

/* The shape of v, dim rd split into (size / rep, rep) (rd -1: as it is;
 * a dim of size 1 there: (1, 1)). */
static void ev__shape(Emit *E, int32_t v, int rd, int64_t rep)
{
    const Val *val = &E->g->vals.v[v];
    int64_t n = 0;
    if (rd < 0) {
        emit_shape(E, v, -1);
        return;
    }
    sb_puts(E->o, "(const int64_t[]){");
    for (int d = 0; d < val->ndim; d++) {
        sb_puts(E->o, d ? ", " : "");
        if (d != rd) {
            emit_dim(E, val->dims[d]);
            continue;
        }
        TNGC_ASSERT(graph_dim_const_value(E->g, val->dims[d], &n) && n >= 1);
        if (n == 1)
            sb_puts(E->o, "1, 1");
        else
            sb_printf(E->o, "%s, %s", EMIT_I64(n / rep), EMIT_I64(rep));
    }
    sb_putc(E->o, '}');
}

void emit_cpu_mm_out(Emit *E, int32_t op_id, int32_t ptr_of)
{
    const Graph *g = E->g;
    int32_t v = g->ops.v[op_id].out;
    int rd;
    int64_t rep;
    ev__rep(E, op_id, &rd, &rep);
    sb_puts(E->o, "&(TngrtArg){");
    emit_ptr(E, ptr_of, 0);
    sb_printf(E->o, ", %s, %d, ", emit_dtype_enum(g->vals.v[ptr_of].dtype), g->vals.v[v].ndim + (rd >= 0));
    ev__shape(E, v, rd, rep);
    sb_putc(E->o, '}');
}

int emit_cpu_mm_split(const Emit *E, int32_t op_id, int64_t *rep)
{
    int rd;
    ev__rep(E, op_id, &rd, rep);
    return rd;
}

/* Operand v's storage pointer: base's at the views' element offset (a
 * slice's start, an index's row). */
static void ev__operand_ptr(Emit *E, const PlanView *pv)
{
    const Val *bv = &E->g->vals.v[pv->base];
    int any_off = pv->ix >= 0;
    for (int k = 0; k < bv->ndim; k++)
        any_off |= pv->off[k] != 0;
    if (!any_off) {
        emit_ptr(E, pv->base, 0);
        return;
    }
    sb_puts(E->o, "(unsigned char *)");
    emit_ptr(E, pv->base, 0);
    sb_printf(E->o, " + %d * (", dtype_size(bv->dtype));
    int n = 0;
    for (int k = 0; k < bv->ndim; k++) {
        if (!pv->off[k])
            continue;
        sb_printf(E->o, "%s%s * ", n++ ? " + " : "", EMIT_I64(pv->off[k]));
        ev__base_stride(E, bv, k);
    }
    if (pv->ix >= 0) {   /* checked where the index op runs */
        const Val *ix = &E->g->vals.v[pv->ix];
        sb_printf(E->o, "%stngrt_kernel_index_row(&(TngrtArg){", n ? " + " : "");
        emit_ptr(E, pv->ix, 0);
        sb_printf(E->o, ", %s, %d, ", emit_dtype_enum(ix->dtype), ix->ndim);
        emit_shape(E, pv->ix, -1);
        sb_puts(E->o, "}, ");
        emit_dim(E, bv->dims[pv->ixdim]);
        sb_puts(E->o, ") * ");
        ev__base_stride(E, bv, pv->ixdim);
    }
    sb_putc(E->o, ')');
}

/* Dim d's element stride in the storage of pv's base, times mul. */
static void ev__stride(Emit *E, const PlanView *pv, int d, int64_t mul)
{
    const Val *bv = &E->g->vals.v[pv->base];
    if (pv->map[d] < 0 || pv->coef[d] == 0 || mul == 0) {
        sb_putc(E->o, '0');
        return;
    }
    if (pv->coef[d] * mul != 1)
        sb_printf(E->o, "%s * ", EMIT_I64(pv->coef[d] * mul));
    ev__base_stride(E, bv, pv->map[d]);
}

/* Operand v of a strided matmul: the TngrtArg of its shape over the storage
 * of the value its views start from (at the views' element offset), then
 * its element strides there (planner/strided.h); the repeated dim split. */
void emit_cpu_mm_operand(Emit *E, int32_t op_id, int32_t v)
{
    const Val *val = &E->g->vals.v[v];
    const Val *bv;
    PlanView pv;
    int rd;
    int64_t rep, n = 0;
    plan_mm_view(E->p, v, &pv);
    ev__rep(E, op_id, &rd, &rep);
    bv = &E->g->vals.v[pv.base];
    sb_puts(E->o, "&(TngrtArg){");
    ev__operand_ptr(E, &pv);
    sb_printf(E->o, ", %s, %d, ", emit_dtype_enum(bv->dtype), val->ndim + (rd >= 0));
    ev__shape(E, v, rd, rep);
    sb_puts(E->o, "}, (const int64_t[]){");
    for (int d = 0; d < val->ndim; d++) {
        sb_puts(E->o, d ? ", " : "");
        if (d != rd) {
            ev__stride(E, &pv, d, 1);
            continue;
        }
        /* (size / rep, rep): the repeated operand's outer stride is its
         * dim's, its inner 0; the other's rep times its stride, then it */
        int repeated = pv.rep[d] > 1;
        graph_dim_const_value(E->g, val->dims[d], &n);
        ev__stride(E, &pv, d, n == 1 ? 0 : repeated ? 1 : rep);
        sb_puts(E->o, ", ");
        ev__stride(E, &pv, d, n == 1 || repeated ? 0 : 1);
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
