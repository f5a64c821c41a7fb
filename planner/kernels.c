/*
 * kernels.c - static-kernel instances: one kernel per distinct
 * operator signature over all gears, compiled with its shapes as
 * compile-time constants.
 *
 * A signature is the op kind, every input's dtype, format and shape, every
 * output's dtype, format and shape, and the attributes that change the
 * computation (int and float attributes and the target dtype; reshape and
 * full carry dims in their attributes, which the output shape already
 * says). Gears are visited in order and ops in program order; the first
 * instance of a signature makes a StaticKernel, later ones only count.
 * A gear with an unbound dim has nothing static to compile and is skipped.
 *
 * The key is the manifest file stem of TorchAir's static kernel compilation:
 * "<op type>_<ACL dtype>_<format>_<dims joined by _>_<n>" of input 0 (of
 * output 0 for ops without inputs), n counting earlier kernels with the
 * same stem. The op type is the target's name for the op (Plan.op_type,
 * given by the driver: codegen's names, where mm, addmm and linear are all
 * MatMulV2 and so share stems); the planner itself names no target's op.
 * Views (OPF_ALIAS) are recorded but not selected: no kernel; nor are the
 * collectives (OPF_COLLECTIVE: MPI calls, no kernel of their own).
 */
#include "passes.h"
#include "plan.h"
#include "values.h"

/* 1 when every value has a known shape in gear gi. */
static int kernels__gear_static(const Plan *self, int gi)
{
    for (size_t v = 0; v < self->g->vals.n; v++)
        if (plan_val_numel(self, gi, (int32_t)v) < 0)
            return 0;
    return 1;
}

/* Appends "dtype,format,[d0,d1]" of value v in gear gi ("-" when absent). */
static void kernels__val_sig(const Plan *self, int gi, int32_t v, StrBuf *sb)
{
    if (v < 0) {
        sb_puts(sb, "-;");
        return;
    }
    const Val *val = &self->g->vals.v[v];
    sb_printf(sb, "%d,%d,[", (int)val->dtype, (int)val->format);
    for (int d = 0; d < val->ndim; d++) {
        int64_t x = 0;
        graph_dim_eval(self->g, val->dims[d], self->gears.v[gi].symval, &x);
        sb_printf(sb, "%s%lld", d ? "," : "", (long long)x);
    }
    sb_puts(sb, "];");
}

static void kernels__signature(const Plan *self, int gi, const Op *op, StrBuf *sb)
{
    sb->len = 0;
    sb_printf(sb, "%d|", (int)op->kind);
    for (uint32_t k = 0; k < op->nin; k++)
        kernels__val_sig(self, gi, op->in[k], sb);
    sb_putc(sb, '|');
    for (uint32_t k = 0; k < op->nout; k++)
        kernels__val_sig(self, gi, op->out + (int32_t)k, sb);
    sb_printf(sb, "|%d|%a|%a|", (int)op->dtype, op->fattr[0], op->fattr[1]);
    if (op->kind != OP_RESHAPE && op->kind != OP_FULL)
        for (uint32_t k = 0; k < op->nattr; k++)
            sb_printf(sb, "%lld,", (long long)op->attr[k]);
    /* dims in attributes the shapes do not say (arange's start, slice_dyn's
     * bounds): their values in this gear */
    for (uint32_t k = op->kind == OP_ARANGE ? 1 : op->kind == OP_SLICE_DYN ? 1 : op->nattr;
         k < op->nattr && k < (op->kind == OP_ARANGE ? 2u : 3u); k++) {
        int64_t x = 0;
        graph_dim_eval(self->g, (DimId)op->attr[k], self->gears.v[gi].symval, &x);
        sb_printf(sb, "=%lld,", (long long)x);
    }
}

/* "MatMulV2_float_ND_1_2048" for op in gear gi (op type from self->op_type). */
static void kernels__stem(const Plan *self, int gi, const Op *op, StrBuf *sb)
{
    int32_t v = op->nin > 0 && op->in[0] >= 0 ? op->in[0] : op->out;
    const Val *val = &self->g->vals.v[v];
    sb->len = 0;
    sb_printf(sb, "%s_%s_%s", self->op_type(self->g, (int32_t)(op - self->g->ops.v)), self->dtype_name(val->dtype),
              format_name(val->format));
    for (int d = 0; d < val->ndim; d++) {
        int64_t x = 0;
        graph_dim_eval(self->g, val->dims[d], self->gears.v[gi].symval, &x);
        sb_printf(sb, "_%lld", (long long)x);
    }
}

typedef struct KernelMaps {
    StrMap by_sig;         /* signature -> kernel index + 1 */
    StrMap by_stem;        /* stem -> kernels with that stem so far */
    StrBuf sig, stem;
} KernelMaps;

static void kernels__add(Plan *self, KernelMaps *km, int gi, int32_t op_id)
{
    const Op *op = &self->g->ops.v[op_id];
    kernels__stem(self, gi, op, &km->stem);
    intptr_t n = (intptr_t)strmap_get(&km->by_stem, km->stem.s);
    if (n == 0)  /* first of its stem: the map keeps the key */
        strmap_put(&km->by_stem, arena_strndup(&self->arena, km->stem.s, km->stem.len), (void *)1);
    else
        strmap_put(&km->by_stem, km->stem.s, (void *)(n + 1));
    StaticKernel k = {
        .key = arena_printf(&self->arena, "%s_%ld", km->stem.s, (long)(n > 0 ? n : 0)),
        .op = op_id, .kind = op->kind, .gear = gi, .count = 1,
        .selected = !(op_info[op->kind].flags & (OPF_ALIAS | OPF_COLLECTIVE)),
    };
    VEC_PUSH(self->kernels, k);
    strmap_put(&km->by_sig, arena_strndup(&self->arena, km->sig.s, km->sig.len),
               (void *)(intptr_t)self->kernels.n);
}

void plan_kernels(Plan *self)
{
    const Graph *g = self->g;
    KernelMaps km = {0};
    self->kernel_of = arena_alloc(&self->arena, self->gears.n * sizeof *self->kernel_of);
    for (size_t gi = 0; gi < self->gears.n; gi++) {
        int32_t *of = self->kernel_of[gi] = arena_alloc(&self->arena, (g->ops.n + 1) * sizeof *of);
        for (size_t i = 0; i < g->ops.n; i++)
            of[i] = -1;
        if (!kernels__gear_static(self, (int)gi))
            continue;
        for (size_t i = 0; i < g->ops.n; i++) {
            const Op *op = &g->ops.v[i];
            if ((op_info[op->kind].flags & OPF_SOURCE) || plan_is_const(self, (int32_t)i))
                continue;
            kernels__signature(self, (int)gi, op, &km.sig);
            intptr_t k = (intptr_t)strmap_get(&km.by_sig, km.sig.s);
            if (k > 0) {
                self->kernels.v[k - 1].count++;
            } else {
                kernels__add(self, &km, (int)gi, (int32_t)i);
                k = (intptr_t)self->kernels.n;
            }
            of[i] = (int32_t)(k - 1);
        }
    }
    strmap_free(&km.by_sig);
    strmap_free(&km.by_stem);
    sb_free(&km.sig);
    sb_free(&km.stem);
}
