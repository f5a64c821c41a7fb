/*
 * fuse_gemm.c - matmul epilogue fusion on the CPU target: a float32
 * Linear whose weight is packed at load, followed at once in the schedule
 * by pointwise ops that each read the one before as its only reader (a
 * bias or residual add, sub, mul or div by a tensor of the output's
 * shape, of its last dim or of one element, or by a scalar; relu, gelu,
 * silu, sigmoid, tanh; the readers are fuse_base.c's count, fuse_uses,
 * made once per plan), becomes one call of
 * tngrt_kernel_linear_epi: the GEMM applies the ops to each output tile
 * before storing it (runtime/kernels_gemm.c, TngrtGemmEpi), so the
 * Linear's output and the intermediates are never written.
 *
 * A float16/bfloat16 Linear fuses the same way, its GEMM's result and each
 * step's rounded to the half type (TngrtGemmEpi.rdt) as the separate
 * kernels round them. A float32 mm/bmm/matmul takes unary and scalar steps
 * (tngrt_kernel_matmul_strided_epi), and a last permute that keeps the
 * last dim last is written through the permuted strides instead of being
 * copied (attention's (att @ v).transpose(1, 2)).
 *
 * Each step is the separate kernel's float32 expression, so the fused call
 * gives the bits of --no-fuse (tests/conform/fuse_bits.sh checks it with
 * tests/conform/models/fuse_gemm_*.py).
 *
 * The group is a fuse.c group (fuse_seq records it, fuse_emit hands it
 * here): its call runs where its last op (the sink) was, and that op's
 * buffer receives the result. Kept only where safe: every gear static, no
 * member a user or static kernel or ordered by control edges, no event
 * between the members, the Linear's input and bias not overlapping the
 * sink's buffer, and a tensor operand either exactly the sink's buffer
 * (read before each element is written) or apart from it.
 */
#include "emit.h"

#include "../planner/strided.h"

#include <string.h>

/* The most epilogue steps (TNGRT_GEMM_EPI_MAX of tngrt_kernels.h). */
#define TNGC_GEMM_EPI_MAX 8

/* The group's dtype: the Linear's or matmul's output's (matmuls: float32
 * only). */
static DType fg__dt(const Emit *E, const int32_t *ops)
{
    return E->g->vals.v[E->g->ops.v[ops[0]].out].dtype;
}

/* 1 when op may be part of a group of dtype dt at all (out of dtype dt,
 * plain kernel). */
static int fg__plain(const Emit *E, int32_t op_id, DType dt)
{
    const Op *op = &E->g->ops.v[op_id];
    return !E->user[op->kind] && !op->nctrl && op->nout == 1 && emit_static_kernel(E, op_id) < 0 &&
           !plan_is_const(E->p, op_id) && E->g->vals.v[op->out].dtype == dt;
}

/* The tensor operand of binary member op whose other operand is cur, or -1
 * (also -1 through *bad when op cannot be a member). */
static int32_t fg__other(const Op *op, int32_t cur, int *bad)
{
    *bad = 1;
    if (op->nin < 2 || (op->in[0] == cur) == (op->in[1] == cur) || op->in[0] < 0 || op->in[1] < 0)
        return -1;
    *bad = 0;
    return op->in[0] == cur ? op->in[1] : op->in[0];
}

/* Row and column element strides of tensor operand x against the output
 * dims od[0..ond) collapsed to [rows, n]; 0 when x broadcasts otherwise. */
static int fg__xstrides(const Emit *E, int32_t x, DType dt, const int64_t *od, int ond,
                        int64_t *rs, int64_t *cs)
{
    int64_t xd[GRAPH_MAX_DIMS];
    int xnd = fuse_dims(E, x, xd);
    if (xnd < 0 || xnd > ond || E->g->vals.v[x].dtype != dt)
        return 0;
    int64_t xn = fuse_numel(xd, xnd);
    if (xn == 1) {
        *rs = *cs = 0;
        return 1;
    }
    if (xnd == ond && memcmp(xd, od, (size_t)ond * sizeof *od) == 0) {
        *rs = od[ond - 1];
        *cs = 1;
        return 1;
    }
    if (xnd >= 1 && xd[xnd - 1] == od[ond - 1] && xn == od[ond - 1]) {   /* [.., n]: a row */
        *rs = 0;
        *cs = 1;
        return 1;
    }
    return 0;
}

/* 1 when values x's storage cannot be clobbered by writing the sink's
 * buffer [olo, ohi) (orng its fuse_range) before it is read: apart from it,
 * or exactly it when same (read element for element before the write). */
static int fg__apart(const Emit *E, int32_t x, int orng, int64_t olo, int64_t ohi, int same)
{
    int64_t lo = 0, hi = 0;
    int r = fuse_range(E, x, &lo, &hi);
    if (r < 0)
        return 0;
    if (!r || !orng || hi <= olo || ohi <= lo)
        return 1;
    return same && lo == olo && hi == ohi;
}

/* 1 for the matmul kinds (read through tngrt_kernel_matmul_strided_epi). */
static int fg__is_mm(const Op *op)
{
    return op->kind == OP_MM || op->kind == OP_BMM || op->kind == OP_MATMUL;
}

/* The storage operand v of matmul op_id reads: the value its view starts
 * from when the matmul reads through strides, else v. */
static int32_t fg__mm_base(const Emit *E, int32_t op_id, int32_t v)
{
    PlanView pv;
    if (!emit_cpu_mm_strided(E, op_id))
        return v;
    plan_mm_view(E->p, v, &pv);
    return pv.base;
}

/* 1 when the group ops[0..n) (a Linear or matmul, then its members) is
 * safe to emit as one call writing the sink's buffer. */
static int fg__valid(const Emit *E, const int32_t *ops, size_t n)
{
    const Graph *g = E->g;
    const Op *lin = &g->ops.v[ops[0]];
    int64_t od[GRAPH_MAX_DIMS], olo = 0, ohi = 0, rs, cs;
    int ond = fuse_dims(E, lin->out, od);
    int orng = fuse_range(E, g->ops.v[ops[n - 1]].out, &olo, &ohi);
    if (ond < 1 || orng < 0)
        return 0;
    if (fg__is_mm(lin))
        return fg__apart(E, fg__mm_base(E, ops[0], lin->in[0]), orng, olo, ohi, 0) &&
               fg__apart(E, fg__mm_base(E, ops[0], lin->in[1]), orng, olo, ohi, 0);
    if (!fg__apart(E, lin->in[0], orng, olo, ohi, 0) ||
        (lin->nin > 2 && lin->in[2] >= 0 && !fg__apart(E, lin->in[2], orng, olo, ohi, 0)))
        return 0;
    for (size_t j = 1; j < n; j++) {
        const Op *op = &g->ops.v[ops[j]];
        int bad;
        if (fuse_unop(op, 1) || fuse_scalar(op))
            continue;
        int32_t x = fg__other(op, g->ops.v[ops[j - 1]].out, &bad);
        if (bad || !fg__xstrides(E, x, fg__dt(E, ops), od, ond, &rs, &cs) ||
            !fg__apart(E, x, orng, olo, ohi, rs == od[ond - 1] && cs == 1))
            return 0;
    }
    return 1;
}

/* The weight index of a Linear's W packed at load (emit_cpu.c's rule), or -1. */
static int fg__packed(const Emit *E, const Op *op)
{
    if (op->kind != OP_LINEAR || E->kptr || op->nin < 2 || op->in[1] < 0 ||
        graph_storage_root(E->g, op->in[1]) != op->in[1])
        return -1;
    return E->weight_of[op->in[1]];
}

/* 1 when op_id is a permute of cur (rank nd) keeping the last dim last,
 * a copy with a buffer of its own (not elided). */
static int fg__permute_ok(const Emit *E, int32_t op_id, int32_t cur, int nd)
{
    const Op *op = &E->g->ops.v[op_id];
    int64_t lo, hi;
    if (op->kind != OP_PERMUTE || op->nin < 1 || op->in[0] != cur || (int)op->nattr != nd ||
        emit_cpu_elided(E, op_id) || fuse_range(E, op->out, &lo, &hi) < 0)
        return 0;
    int64_t last = op->attr[nd - 1];
    return last == nd - 1 || last == -1;
}

size_t fuse_gemm_group(const Emit *E, const int32_t *ops, const uint8_t *stop, size_t n, size_t i,
                       const int32_t *at, int32_t *cand, int32_t *pos)
{
    const Graph *g = E->g;
    if (!E->fuse || E->dyn || E->rtdims || ops[i] < 0 || at[i] != -1)
        return 0;
    const Op *lin = &g->ops.v[ops[i]];
    int64_t od[GRAPH_MAX_DIMS], d[GRAPH_MAX_DIMS];
    int mm = fg__is_mm(lin);
    DType dt = g->vals.v[lin->out].dtype;
    if ((dt != DT_F32 && (mm || (dt != DT_F16 && dt != DT_BF16))) || !fg__plain(E, ops[i], dt))
        return 0;
    if (mm) {   /* float32 operands of rank >= 2 (what the strided kernel reads) */
        if (E->kptr || emit_cpu_elided(E, ops[i]) || lin->nin < 2)
            return 0;
        for (int q = 0; q < 2; q++)
            if (lin->in[q] < 0 || g->vals.v[lin->in[q]].dtype != DT_F32 ||
                fuse_dims(E, lin->in[q], d) < 2)
                return 0;
    } else if (lin->kind != OP_LINEAR || fg__packed(E, lin) < 0 ||
               g->vals.v[lin->in[0]].dtype != dt ||
               (lin->nin > 2 && lin->in[2] >= 0 && g->vals.v[lin->in[2]].dtype != dt)) {
        return 0;
    }
    int ond = fuse_dims(E, lin->out, od);
    if (ond < (mm ? 2 : 1))
        return 0;
    size_t nc = 0, best = 0;
    int32_t cur = lin->out;
    cand[nc] = ops[i];
    pos[nc++] = (int32_t)i;
    for (size_t k = i + 1; k < n && nc <= TNGC_GEMM_EPI_MAX && !stop[k - 1]; k++) {
        if (ops[k] < 0 || at[k] != -1 || !fg__plain(E, ops[k], dt) || fuse_uses(E, cur) != 1)
            break;
        const Op *op = &g->ops.v[ops[k]];
        int bad = 0;
        if (mm && fg__permute_ok(E, ops[k], cur, ond)) {   /* written through strides: last */
            cand[nc] = ops[k];
            pos[nc++] = (int32_t)k;
            break;
        }
        if (fuse_unop(op, 1)) {
            if (op->nin < 1 || op->in[0] != cur)
                break;
        } else if (fuse_binop(op, 1)) {
            if (fuse_scalar(op)) {
                if (op->in[0] != cur)
                    break;
            } else {
                fg__other(op, cur, &bad);
                if (bad || mm)   /* a matmul's steps take no tensor operand */
                    break;
            }
        } else {
            break;
        }
        int nd = fuse_dims(E, op->out, d);
        if (nd != ond || memcmp(d, od, (size_t)nd * sizeof *d) != 0)
            break;
        cand[nc] = ops[k];
        pos[nc++] = (int32_t)k;
        cur = op->out;
    }
    for (size_t m = nc; m >= 2 && !best; m--)
        if (fg__valid(E, cand, m))
            best = m;
    if (best && mm && g->ops.v[cand[best - 1]].kind != OP_PERMUTE) {
        /* a matmul's chain that stops at a pointwise op it cannot take (a
         * tensor operand: attention's mask) leaves its steps to fuse.c's
         * group with that op: one generated loop beats the kernel call */
        size_t k = (size_t)pos[best - 1] + 1;
        int32_t sv = g->ops.v[cand[best - 1]].out;
        if (k < n && ops[k] >= 0 && fuse_uses(E, sv) == 1) {
            const Op *nx = &g->ops.v[ops[k]];
            for (uint32_t q = 0; q < nx->nin; q++)
                if (nx->in[q] == sv && (fuse_unop(nx, 1) || fuse_binop(nx, 1)))
                    return 0;
        }
    }
    return best;
}

int fuse_gemm_is(const Emit *E, const int32_t *ops, size_t n)
{
    return n >= 2 && (E->g->ops.v[ops[0]].kind == OP_LINEAR || fg__is_mm(&E->g->ops.v[ops[0]]));
}

static void fg__epi(Emit *E, const int32_t *ops, size_t n, const int64_t *od, int ond,
                    const char *in);
static void fg__emit_mm(Emit *E, const int32_t *ops, size_t n, const char *in);

void fuse_gemm_emit(Emit *E, const int32_t *ops, size_t n, const char *in)
{
    const Graph *g = E->g;
    if (fg__is_mm(&g->ops.v[ops[0]])) {
        fg__emit_mm(E, ops, n, in);
        return;
    }
    const Op *lin = &g->ops.v[ops[0]], *sink = &g->ops.v[ops[n - 1]];
    int64_t od[GRAPH_MAX_DIMS];
    int ond = fuse_dims(E, lin->out, od);
    fuse_open(E, ops, n, in, "");
    sb_printf(E->o, "%s    tngrt_kernel_linear_epi(", in);
    fuse_arg(E, sink->out, lin->out);
    sb_puts(E->o, ", ");
    fuse_arg(E, lin->in[0], lin->in[0]);
    sb_puts(E->o, ", ");
    fuse_arg(E, lin->in[1], lin->in[1]);
    sb_puts(E->o, ", ");
    if (lin->nin > 2 && lin->in[2] >= 0)
        fuse_arg(E, lin->in[2], lin->in[2]);
    else
        sb_puts(E->o, "NULL");
    sb_printf(E->o, ", c->wpack[%d],\n%s        ", fg__packed(E, lin), in);
    fg__epi(E, ops, n, od, ond, in);
    sb_printf(E->o, ");\n%s}\n", in);
    emit_line_back(E);
}

/* The TngrtGemmEpi literal of members ops[1..n) (NULL when none). */
static void fg__epi(Emit *E, const int32_t *ops, size_t n, const int64_t *od, int ond,
                    const char *in)
{
    const Graph *g = E->g;
    int64_t rs = 0, cs = 0;
    if (n < 2) {
        sb_puts(E->o, "NULL");
        return;
    }
    const char *xdt = emit_dtype_enum(fg__dt(E, ops));
    sb_printf(E->o, "&(TngrtGemmEpi){%zu, {", n - 1);
    for (size_t j = 1; j < n; j++) {
        const Op *op = &g->ops.v[ops[j]];
        sb_printf(E->o, "%s\n%s            {", j > 1 ? "," : "", in);
        fuse_step(E, op, 1, NULL, NULL);
        if (fuse_unop(op, 1)) {
            sb_printf(E->o, ", NULL, 0, 0, 0, %s}", xdt);
            continue;
        }
        if (fuse_scalar(op)) {   /* the scalar on its side */
            sb_printf(E->o, ", NULL, 0, 0, %d, %s}", op->attr[0] == 2, xdt);
            continue;
        }
        int bad;
        int32_t x = fg__other(op, g->ops.v[ops[j - 1]].out, &bad);
        TNGC_ASSERT(!bad && fg__xstrides(E, x, fg__dt(E, ops), od, ond, &rs, &cs));
        sb_puts(E->o, ", (const void *)");
        emit_ptr(E, x, 0);
        sb_printf(E->o, ", %s, %s, %d, %s}", EMIT_I64(rs), EMIT_I64(cs), op->in[1] != x, xdt);
    }
    sb_printf(E->o, "}, %s}", xdt);
}

/* Matmul operand v of op_id as "arg, element strides". */
static void fg__mm_operand(Emit *E, int32_t op_id, int32_t v)
{
    if (emit_cpu_mm_strided(E, op_id)) {
        emit_cpu_mm_operand(E, op_id, v);
        return;
    }
    int64_t d[GRAPH_MAX_DIMS], st = 1;
    int nd = fuse_dims(E, v, d);
    fuse_arg(E, v, v);
    sb_puts(E->o, ", (const int64_t[]){");
    for (int q = 0; q < nd; q++) {
        st = 1;
        for (int r = q + 1; r < nd; r++)
            st *= d[r];
        sb_printf(E->o, "%s%s", q ? ", " : "", EMIT_I64(st));
    }
    sb_putc(E->o, '}');
}

/* A matmul group: tngrt_kernel_matmul_strided_epi, the sink a permute
 * (written through strides) or the last step. */
static void fg__emit_mm(Emit *E, const int32_t *ops, size_t n, const char *in)
{
    const Graph *g = E->g;
    const Op *mm = &g->ops.v[ops[0]], *sink = &g->ops.v[ops[n - 1]];
    int64_t od[GRAPH_MAX_DIMS], yd[GRAPH_MAX_DIMS], os[GRAPH_MAX_DIMS], rep = 1;
    int ond = fuse_dims(E, mm->out, od), perm = sink->kind == OP_PERMUTE;
    int rd = emit_cpu_mm_split(E, ops[0], &rep);
    fuse_open(E, ops, n, in, "");
    sb_printf(E->o, "%s    tngrt_kernel_matmul_strided_epi(", in);
    if (emit_cpu_mm_strided(E, ops[0]))
        emit_cpu_mm_out(E, ops[0], sink->out);
    else
        fuse_arg(E, sink->out, mm->out);
    sb_puts(E->o, ", ");
    if (perm) {   /* out dim perm[d] is the sink's dim d */
        int ynd = fuse_dims(E, sink->out, yd);
        TNGC_ASSERT(ynd == ond);
        for (int d = 0; d < ynd; d++) {
            int64_t st = 1, pd = sink->attr[d] < 0 ? sink->attr[d] + ond : sink->attr[d];
            for (int r = d + 1; r < ynd; r++)
                st *= yd[r];
            TNGC_ASSERT(pd >= 0 && pd < ond);
            os[pd] = st;
        }
        sb_puts(E->o, "(const int64_t[]){");
        for (int d = 0; d < ond; d++) {
            sb_printf(E->o, "%s%s", d ? ", " : "", EMIT_I64(d == rd ? os[d] * rep : os[d]));
            if (d == rd)   /* the repeated dim split (emit_cpu_mm_split) */
                sb_printf(E->o, ", %s", EMIT_I64(os[d]));
        }
        sb_puts(E->o, "}");
    } else {
        sb_puts(E->o, "NULL");
    }
    sb_puts(E->o, ", ");
    fg__mm_operand(E, ops[0], mm->in[0]);
    sb_puts(E->o, ", ");
    fg__mm_operand(E, ops[0], mm->in[1]);
    sb_printf(E->o, ",\n%s        ", in);
    fg__epi(E, ops, perm ? n - 1 : n, od, ond, in);
    sb_printf(E->o, ");\n%s}\n", in);
    emit_line_back(E);
}
