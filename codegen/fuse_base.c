/*
 * fuse_base.c - what the fusers of the CPU target (fuse.c, pointwise and
 * row groups; fuse_gemm.c, matmul epilogues) both read: every value's
 * readers, counted once per plan (fuse_init; FuseState, Emit.fuse), a
 * value's dims in the emitter's gear, the arena bytes of its storage, a
 * group's trace name, and the code of one elementwise step from its op's
 * fusion column (fuse_step: a fused loop's expression, a GEMM epilogue's
 * step). Below both, so that neither calls the other for
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

const char *fuse_unop(const Op *op, int gemm)
{
    const FuseRow *r = emit_fuse_row(op->kind);
    if (r->how != FUSE_HOW_UNARY || (gemm && !r->epi))
        return NULL;
    if (r->args == FUSE_ARGS_APPROX && op->nattr > 0 && op->attr[0] == 1)
        return r->tanh;
    return gemm ? r->epi : r->op;
}

const char *fuse_binop(const Op *op, int gemm)
{
    const FuseRow *r = emit_fuse_row(op->kind);
    switch (r->how) {
    case FUSE_HOW_BINARY:
        return gemm ? r->epi : r->op;
    case FUSE_HOW_BINARY_ALPHA:   /* alpha: x + alpha * y only as x + y */
        return op->fattr[1] == 1.0 ? (gemm ? r->epi : r->op) : NULL;
    case FUSE_HOW_NO: case FUSE_HOW_UNARY: case FUSE_HOW_POW:
        return NULL;
    }
    return NULL;
}

int fuse_scalar(const Op *op)
{
    return emit_fuse_row(op->kind)->scalar && op->nattr > 0 && op->attr[0] != 0;
}

void fuse_float_lit(Emit *E, double x)
{
    sb_puts(E->o, "(float)");
    emit_double(E, x);
}

/* How many of fattr[] unary step op passes to tngrt_impl__unf (its
 * fusion column's FuseArgs); its other parameters are 0. */
static int fuse__nparams(const Op *op)
{
    switch (emit_fuse_row(op->kind)->args) {
    case FUSE_ARGS_NONE: case FUSE_ARGS_APPROX:
        return 0;
    case FUSE_ARGS_F0:
        return 1;
    case FUSE_ARGS_F0_F1:
        return 2;
    }
    return 0;
}

void fuse_step(Emit *E, const Op *op, int gemm, const char *x, const char *y)
{
    const char *un = fuse_unop(op, gemm), *bin = un ? NULL : fuse_binop(op, gemm);
    TNGC_ASSERT(un || bin);
    if (un) {   /* tngrt_impl__unf(op, x, p0, p1) */
        int np = fuse__nparams(op);
        if (gemm)
            sb_printf(E->o, "TNGRT_EPI_UNARY, %s, ", un);
        else
            sb_printf(E->o, "tngrt_impl__unf(%s, %s, ", un, x);
        fuse_float_lit(E, np > 0 ? op->fattr[0] : 0.0);
        sb_puts(E->o, ", ");
        if (gemm && np < 2)
            sb_puts(E->o, "0.0f");
        else
            fuse_float_lit(E, np > 1 ? op->fattr[1] : 0.0);
        sb_puts(E->o, gemm ? "" : ")");
        return;
    }
    if (gemm) {   /* the kernel's float scalar, or the operand the caller names */
        sb_printf(E->o, "%s, TNGRT_UN_NEG, ", bin);
        if (fuse_scalar(op))
            fuse_float_lit(E, op->fattr[0]);
        else
            sb_puts(E->o, "0.0f");
        sb_puts(E->o, ", 0.0f");
        return;
    }
    /* x op y, the scalar (as the kernel's float) on its side */
    StrBuf s = {0}, *keep = E->o;
    if (fuse_scalar(op)) {
        E->o = &s;
        fuse_float_lit(E, op->fattr[0]);
        E->o = keep;
        if (op->attr[0] == 2) {
            y = x;
            x = s.s;
        } else {
            y = s.s;
        }
    }
    TNGC_ASSERT(y);
    sb_printf(E->o, "tngrt_impl__binf(%s, %s, %s, 1.0f)", bin, x, y);
    sb_free(&s);
}

/* "&(TngrtArg){ptr, dtype, nd, shape}" of value v, with shape_of's shape. */
void fuse_arg(Emit *E, int32_t v, int32_t shape_of)
{
    const Val *val = &E->g->vals.v[v];
    sb_puts(E->o, "&(TngrtArg){");
    emit_ptr(E, v, 0);
    sb_printf(E->o, ", %s, %d, ", emit_dtype_enum(val->dtype), E->g->vals.v[shape_of].ndim);
    emit_shape(E, shape_of, -1);
    sb_putc(E->o, '}');
}

/* The opening of a group's block, indented by in: a brace and a comment
 * with what (a prefix) and the group's fuse_name, then the #line of its
 * sink, ops[n - 1]. */
void fuse_open(Emit *E, const int32_t *ops, size_t n, const char *in, const char *what)
{
    StrBuf nm = {0};
    fuse_name(E, ops, n, &nm);
    sb_printf(E->o, "%s{   /* %s", in, what);
    cesc_comment(E->o, nm.s);
    sb_puts(E->o, " */\n");
    sb_free(&nm);
    emit_line_op(E, &E->g->ops.v[ops[n - 1]]);
}
