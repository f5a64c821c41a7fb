/*
 * emit_cpu.c - the CPU target: a plan becomes <name>.h, <name>.c and
 * <name>_launcher.c (and <name>_kernels_user.c when the user supplies
 * kernels), from the templates in templates/.
 *
 * The generated part of <name>.c (the "body" splice) holds, per gear:
 *   - one function per stream, straight-line: for each unit its event waits,
 *     its kernel call (or its segment's function, called once), its event
 *     records; each unit timed into the trace when one is attached;
 *   - one function per super-kernel segment;
 *   - for dynamic gears (a buffer size depends on an unbound symbol) a
 *     layout function that places every buffer at run time;
 *   - an outputs function that fills the output views;
 * then the static kernels (reduce-overhead with _aclnn_static_shape_kernel:
 * one function per distinct signature, shapes as constants, the kernel
 * bodies of tngrt_kernel_impl.h inlined), the signature tables and the
 * descriptor.
 * A bundle with several gears has its gears in <name>_gears_K.c instead,
 * so that they compile in parallel (see "split bundles" below).
 *
 * Each op's kernel call comes from its row of cpu_ops (keyed by op kind;
 * argument tokens as in acl_ops.c, read by emit_args of emit.c).
 *
 * Every operand is a TngrtArg literal: a pointer (an input's or weight's
 * buffer, or the arena at the offset the memory plan gave), the dtype, and
 * the shape as constants of the gear, or C expressions of the run's symbol
 * values S[k] where a symbol is unbound.
 */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

const char emit_user_kernel_type[] =
    "int (const TngrtArg *, int, const TngrtArg *, int, const int64_t *, int, const double *, TngrtError *)";

/* ---- helpers ------------------------------------------------------------- */

/* "&(TngrtArg){ptr, dtype, ndim, shape}" or "NULL" for an absent operand. */
static void e__arg(Emit *E, int32_t v, int pos)
{
    if (v < 0) {
        sb_puts(E->o, "NULL");
        return;
    }
    const Val *val = &E->g->vals.v[v];
    sb_puts(E->o, "&(TngrtArg){");
    emit_ptr(E, v, pos);
    sb_printf(E->o, ", %s, %d, ", emit_dtype_enum(val->dtype), val->ndim);
    emit_shape(E, v, -1);
    sb_putc(E->o, '}');
}

/* Operand positions in static-kernel mode: outputs first, then inputs. */
#define OUT(k) (int32_t)(op->out + (k)), (int)(k)
#define IN(k) op->in[k], (int)(op->nout + (k))


/* A user kernel's call: outputs, inputs, int and float attributes. */
static void e__user_call(Emit *E, const Op *op)
{
    sb_printf(E->o, "if (%s_user_%s((const TngrtArg[]){", E->opt->name, op_info[op->kind].name);
    for (uint32_t k = 0; k < op->nout; k++) {
        sb_puts(E->o, k ? ", *" : "*");
        e__arg(E, OUT(k));
    }
    sb_printf(E->o, "}, %u, ", op->nout);
    if (op->nin == 0) {
        sb_puts(E->o, "NULL, 0, ");
    } else {
        sb_puts(E->o, "(const TngrtArg[]){");
        for (uint32_t k = 0; k < op->nin; k++) {
            sb_puts(E->o, k ? ", " : "");
            if (op->in[k] < 0) {
                sb_puts(E->o, "{NULL, TNGRT_F32, -1, NULL}");
            } else {
                sb_putc(E->o, '*');
                e__arg(E, IN(k));
            }
        }
        sb_printf(E->o, "}, %u, ", op->nin);
    }
    sb_puts(E->o, "(const int64_t[]){");
    for (uint32_t k = 0; k < op->nattr; k++)
        sb_printf(E->o, "%s%s", k ? ", " : "", EMIT_I64(op->attr[k]));
    sb_printf(E->o, "%s}, %u, (const double[]){", op->nattr ? "" : "0", op->nattr);
    emit_double(E, op->fattr[0]);
    sb_puts(E->o, ", ");
    emit_double(E, op->fattr[1]);
    sb_puts(E->o, "}, err))\n");
    emit_fail_return(E);
}

/* ---- the op table ---------------------------------------------------------- */

/*
 * One row per op kind: the libtngcrt kernel that computes it (called as
 * tngrt_kernel_<fn>, or tngrt_impl_<fn> inside a static kernel) and its
 * arguments as tokens (codegen/emit.h reads them; =text, aK and FK mean
 * the same as on the ACL target):
 *   oK    output K as a TngrtArg
 *   iK    input K as a TngrtArg (NULL when the optional input is absent)
 *   eK    attr[K] as an int64 literal, GRAPH_END as INT64_MAX (slice end)
 *   left  1 when the scalar operand is on the left (attr[0] == 2), else 0
 *   gelu  TNGRT_UN_GELU_TANH for approximate="tanh" (attr[0] == 1), else TNGRT_UN_GELU
 *   pd    the permutation (attr) as an int64_t array
 *   rd    the reduced dims as a bit mask (all dims when none are given)
 *   list  the inputs as an array of TngrtArg pointers (stack: each with a 1
 *         inserted at its dim)
 *   nin   the number of inputs
 *   na    the number of attributes (flip's dims, roll's shift/dim pairs)
 *   dK    attr[K] (a DimId) as the dim's value: a constant of the gear or
 *         an expression of the run's symbol values (as the ACL target)
 * A fallible kernel returns nonzero with a message: its call is checked.
 * The rows are the CPU columns of ops.def (CPU, CPU_FALLIBLE, CPU_UNARY,
 * CPU_NOCALL for the kinds without code: sources and views).
 */
typedef struct CpuOp {
    const char *fn;        /* NULL for CPU_NOCALL */
    const char *args;      /* CPU_NOCALL_ARGS for CPU_NOCALL */
    int fallible;
} CpuOp;

#define CPU_NOCALL_ARGS "-"
#define CPU(fn, args) {#fn, args, 0}
#define CPU_FALLIBLE(fn, args) {#fn, args, 1}
#define CPU_NOCALL {NULL, CPU_NOCALL_ARGS, 0}
#define CPU_UNARY(un) CPU(unary, "o0 i0 =TNGRT_UN_" #un " =0.0")
#define CPU_NO_SCALAR {NULL, NULL, 0}

static const CpuOp cpu_ops[OP__count] = {
#define OP(e, name, flags, in_min, in_max, in_opt, attr_min, attr_max, rule, dtype_rule, rowrule, printer, fusion, op_type, view, layout, swap, acl_form, cpu, cpu_scalar, acl, acl_ts, acl_st, attrs) \
    [OP_##e] = cpu,
#include "../ir/ops.def"
#undef OP
};

/* add/sub/mul/div/pow with a scalar operand (attr[0] != 0). */
static const CpuOp cpu_scalar_ops[OP__count] = {
#define OP(e, name, flags, in_min, in_max, in_opt, attr_min, attr_max, rule, dtype_rule, rowrule, printer, fusion, op_type, view, layout, swap, acl_form, cpu, cpu_scalar, acl, acl_ts, acl_st, attrs) \
    [OP_##e] = cpu_scalar,
#include "../ir/ops.def"
#undef OP
};

int emit_cpu_has_row(OpKind kind)
{
    return (unsigned)kind < OP__count && cpu_ops[kind].args != NULL;
}

const char *emit_cpu_args(OpKind kind)
{
    return (unsigned)kind < OP__count ? cpu_ops[kind].args : NULL;
}

/* The row of op (its scalar form for a binary op with a scalar operand). */
static const CpuOp *e__row(const Op *op)
{
    const CpuOp *row = &cpu_ops[op->kind];
    if (cpu_scalar_ops[op->kind].fn && op->nattr > 0 && op->attr[0] != 0)
        row = &cpu_scalar_ops[op->kind];
    if (!row->args)
        TNGC_BUG("emit_cpu.c: no row for %s", op_info[op->kind].name);
    return row;
}

/* "list": the inputs (stack: each with a 1 inserted at dim attr[0]); "lK":
 * the inputs from K on (the indices of index / index_put). */
static void e__list(Emit *E, const Op *op, uint32_t from)
{
    sb_puts(E->o, "(const TngrtArg *const[]){");
    for (uint32_t k = from; k < op->nin; k++) {
        if (k > from)
            sb_puts(E->o, ", ");
        if (op->kind != OP_STACK) {
            e__arg(E, IN(k));
            continue;
        }
        const Val *in = &E->g->vals.v[op->in[k]];
        sb_puts(E->o, "&(TngrtArg){");
        emit_ptr(E, op->in[k], (int)(op->nout + k));
        sb_printf(E->o, ", %s, %d, ", emit_dtype_enum(in->dtype), in->ndim + 1);
        emit_shape(E, op->in[k], (int)op->attr[0]);
        sb_putc(E->o, '}');
    }
    sb_putc(E->o, '}');
}

/* "rd": the reduced dims of a sum/mean/amax as a bit mask. */
static void e__reduced_mask(Emit *E, const Op *op)
{
    uint32_t mask = 0;
    if (op->nattr <= 1)
        mask = (1u << E->g->vals.v[op->in[0]].ndim) - 1;
    for (uint32_t k = 1; k < op->nattr; k++)
        mask |= 1u << op->attr[k];
    sb_printf(E->o, "0x%xu", mask);
}

/* "pd": the permutation as an int64_t array literal. */
static void e__perm(Emit *E, const Op *op)
{
    sb_puts(E->o, "(const int64_t[]){");
    for (uint32_t k = 0; k < op->nattr; k++)
        sb_printf(E->o, "%s%s", k ? ", " : "", EMIT_I64(op->attr[k]));
    sb_puts(E->o, op->nattr ? "}" : "0}");
}

/* The CPU target's argument tokens (see the table). */
static int e__token(Emit *E, const Op *op, const EmitToken *t, void *ctx)
{
    (void)ctx;
    int k = t->k;
    if (t->s[0] == 'o' && k >= 0 && t->n == 2)
        e__arg(E, OUT(k));
    else if (t->s[0] == 'i' && k >= 0 && t->n == 2)
        e__arg(E, (uint32_t)k < op->nin ? op->in[k] : -1, (int)(op->nout + (uint32_t)k));
    else if (t->s[0] == 'e' && k >= 0 && t->n == 2 && op->attr[k] == GRAPH_END)
        sb_puts(E->o, "INT64_MAX");
    else if (t->s[0] == 'e' && k >= 0 && t->n == 2)
        sb_puts(E->o, EMIT_I64(op->attr[k]));
    else if (emit_token_is(t, "left"))
        sb_printf(E->o, "%d", op->attr[0] == 2);
    else if (emit_token_is(t, "gelu"))
        sb_puts(E->o, op->nattr > 0 && op->attr[0] == 1 ? "TNGRT_UN_GELU_TANH" : "TNGRT_UN_GELU");
    else if (emit_token_is(t, "pd"))
        e__perm(E, op);
    else if (emit_token_is(t, "rd"))
        e__reduced_mask(E, op);
    else if (emit_token_is(t, "list"))
        e__list(E, op, 0);
    else if (t->s[0] == 'l' && k >= 0 && t->n == 2)
        e__list(E, op, (uint32_t)k);
    else if (emit_token_is(t, "nin"))
        sb_printf(E->o, "%u", op->nin);
    else if (emit_token_is(t, "na"))
        sb_printf(E->o, "%u", op->nattr);
    else if (t->s[0] == 'n' && k >= 0 && t->n == 2)
        sb_printf(E->o, "%d", (int)op->nin - k);
    else
        return 0;
    return 1;
}

/* The weight index of a Linear's W, or of npu_weight_quant_batchmatmul's
 * int8 weight, when it is a weight itself (not a view of one: the
 * descriptor marks it TNGRT_SIG_PACK_LINEAR or TNGRT_SIG_PACK_Q8 and the
 * bundle packs it at load, emit.c), else -1. */
static int e__packed_weight(const Emit *E, const Op *op)
{
    if ((op->kind != OP_LINEAR && op->kind != OP_WEIGHT_QUANT_MATMUL) || E->kptr || op->nin < 2 ||
        op->in[1] < 0 ||
        graph_storage_root(E->g, op->in[1]) != op->in[1])
        return -1;
    return E->weight_of[op->in[1]];
}

/* The kernel call of op from its row: "<pre><fn>(args);", or for a
 * fallible kernel "if (<pre><fn>(args, err))" and the failure's return.
 * A Linear whose W is a weight reads the packing the bundle made at load
 * tngrt_kernel_linear_packed(args, c->wpack[w]); so does
 * npu_weight_quant_batchmatmul's int8 weight,
 * tngrt_kernel_weight_quant_matmul_packed(args, c->wpack[w], err). */
static void e__call(Emit *E, int32_t op_id, const char *pre)
{
    const Op *op = &E->g->ops.v[op_id];
    if (E->user[op->kind]) {
        e__user_call(E, op);
        return;
    }
    const CpuOp *row = e__row(op);
    if (!row->fn)
        return;
    int pw = strcmp(pre, "tngrt_kernel_") ? -1 : e__packed_weight(E, op);
    sb_printf(E->o, "%s%s%s%s(", row->fallible ? "if (" : "", pre, row->fn, pw >= 0 ? "_packed" : "");
    emit_args(E, op, row->args, 0, e__token, NULL);
    if (pw >= 0)
        sb_printf(E->o, ", c->wpack[%d]", pw);
    sb_puts(E->o, row->fallible ? ", err))\n" : ");\n");
    if (row->fallible)
        emit_fail_return(E);
}

/* ---- matmuls reading views in place (planner/strided.h, emit_cpu_views.c) ---- */

/* A strided matmul's call (no copy of a permuted or expanded operand). */
static void e__mm_strided_call(Emit *E, int32_t op_id)
{
    const Op *op = &E->g->ops.v[op_id];
    sb_puts(E->o, "tngrt_kernel_matmul_strided(");
    emit_cpu_mm_out(E, op_id, op->out);
    sb_puts(E->o, ", ");
    emit_cpu_mm_operand(E, op_id, op->in[0]);
    sb_puts(E->o, ", ");
    emit_cpu_mm_operand(E, op_id, op->in[1]);
    sb_puts(E->o, ");\n");
}

/* One op's statement, with #line back to the script. */
static void e__op(Emit *E, int32_t op_id, const char *indent)
{
    const Op *op = &E->g->ops.v[op_id];
    if (emit_cpu_elided(E, op_id))
        return;
    sb_printf(E->o, "%s/* ", indent);
    graph_val_type_str(E->g, op->out, E->o);
    sb_printf(E->o, " %%%d = %s */\n", op->out, op_info[op->kind].name);
    emit_line_op(E, op);
    sb_puts(E->o, indent);
    E->line = op->line;
    E->line_file = op->file;
    int k = emit_static_kernel(E, op_id);
    if (k >= 0) {
        sb_printf(E->o, "if (%ssk%d((void *const[]){", E->gpre ? E->gpre : "tngc__", k);
        uint32_t n = 0;
        for (uint32_t j = 0; j < op->nout; j++, n++) {
            sb_puts(E->o, n ? ", " : "");
            emit_ptr(E, op->out + (int32_t)j, 0);
        }
        for (uint32_t j = 0; j < op->nin; j++, n++) {
            sb_puts(E->o, n ? ", " : "");
            if (op->in[j] < 0)
                sb_puts(E->o, "NULL");
            else
                emit_ptr(E, op->in[j], 0);
        }
        sb_puts(E->o, "}, err))\n");
        emit_fail_return(E);
    } else if (emit_cpu_index_checked(E, op_id)) {
        emit_cpu_index_check(E, op_id);
    } else if (emit_cpu_mm_strided(E, op_id)) {
        e__mm_strided_call(E, op_id);
    } else {
        e__call(E, op_id, "tngrt_kernel_");
    }
    E->line = 0;
    E->line_file = NULL;
    emit_line_back(E);
}

/* ---- per gear ------------------------------------------------------------ */

static void e__fn_prologue(Emit *E)
{
    sb_puts(E->o, "    unsigned char *A = c->arena;\n"
                  "    const int64_t *S = c->sym;\n"
                  "    (void)A;\n    (void)S;\n    (void)err;\n");
}

/* What a file with fused loops (fuse.c) starts with: their element
 * helpers, contraction off as in libtngcrt, and TNGC_ISA_CLONES, the
 * attribute of the functions that hold the loops. Where the compiler can
 * (GNU C on x86-64), each is compiled for AVX-512, AVX2 and baseline x86-64
 * and the loader picks the widest the CPU has, as libtngcrt's kernels are
 * (runtime/kernels_isa.h): a loop of exp or erf in baseline SSE2 runs at a
 * quarter of the AVX-512 kernel's width, and fusing it then costs more than
 * the passes over memory it saves. Clones compute alike (no contraction). */
static void e__fuse_prelude(StrBuf *o)
{
    sb_puts(o, "\n/* fused loops: contraction off, as in libtngcrt; one clone per instruction set */\n"
               "#pragma STDC FP_CONTRACT OFF\n#include \"tngrt_kernel_impl.h\"\n"
               "#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__)) && !defined(TNGRT_NO_ISA)\n"
               "#define TNGC_ISA_CLONES __attribute__((target_clones(\"avx512f\", \"avx2\", \"default\")))\n"
               "#else\n#define TNGC_ISA_CLONES\n#endif\n");
}

/* The functions of the fused loops of q (not matmul epilogues: those are
 * one libtngcrt call), defined before fn, the function that calls them:
 * fn_f<K>, K the group's offset in q.grp. Their code reads only c, A and S. */
static void e__fused_fns(Emit *E, const char *fn, const FuseSeq *q, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (q->at[i] < 0)
            continue;
        const int32_t *ops = q->grp + q->at[i] + 1;
        size_t nops = (size_t)q->grp[q->at[i]];
        if (fuse_gemm_is(E, ops, nops) || fuse_conv_is(E, ops, nops))
            continue;
        StrBuf t = {0};
        fuse_name(E, ops, nops, &t);
        sb_puts(E->o, "\n/* ");
        cesc_comment(E->o, t.s);
        sb_free(&t);
        sb_printf(E->o, " */\nTNGC_ISA_CLONES\nstatic void %s_f%d(const TngrtRunCtx *c, unsigned char *A, "
                        "const int64_t *S)\n{\n    (void)c;\n    (void)A;\n    (void)S;\n",
                  fn, (int)q->at[i]);
        fuse_emit(E, ops, nops, "    ");
        sb_puts(E->o, "}\n");
    }
}

/* A fused group's code where it runs: the call of its function
 * (e__fused_fns), or a matmul epilogue's libtngcrt call. */
static void e__fused_call(Emit *E, const char *fn, const FuseSeq *q, size_t i, const char *in)
{
    const int32_t *ops = q->grp + q->at[i] + 1;
    size_t nops = (size_t)q->grp[q->at[i]];
    if (fuse_gemm_is(E, ops, nops) || fuse_conv_is(E, ops, nops))
        fuse_emit(E, ops, nops, in);
    else
        sb_printf(E->o, "%s%s_f%d(c, A, S);\n", in, fn, (int)q->at[i]);
}

static void e__segment(Emit *E, int seg)
{
    const PlanSegment *s = &E->p->segs.v[seg];
    sb_puts(E->o, "\n/* super kernel \"");
    cesc_comment(E->o, E->g->sks.v[s->sk].name);
    sb_printf(E->o, "\", segment %d: %zu ops, ended by: ", seg, s->nops);
    cesc_comment(E->o, s->split);
    sb_puts(E->o, " */\n");
    FuseSeq q;
    fuse_seq_segment(E, seg, &q);
    char fn[128];
    snprintf(fn, sizeof fn, "%sg%d_seg%d", E->opt->fn_prefix ? E->opt->fn_prefix : "", E->gear, seg);
    e__fused_fns(E, fn, &q, s->nops);
    sb_printf(E->o, "static int %s(const TngrtRunCtx *c, TngrtError *err)\n{\n", fn);
    e__fn_prologue(E);
    for (size_t i = 0; i < s->nops; i++) {
        if (q.at[i] >= 0)   /* a fused group ends here (fuse.c) */
            e__fused_call(E, fn, &q, i, "    ");
        else if (q.at[i] == -1 && emit_has_kernel(E, s->ops[i]) && !emit_cpu_elided(E, s->ops[i]))
            e__op(E, s->ops[i], "    ");
    }
    fuse_seq_free(&q);
    sb_puts(E->o, "    return 0;\n}\n");
}

/* The trace name of a unit: "add %4 (line 24)" or "sk name #3". */
static void e__unit_name(Emit *E, const PlanUnit *u)
{
    if (u->seg >= 0) {
        const PlanSegment *s = &E->p->segs.v[u->seg];
        StrBuf t = {0};
        sb_printf(&t, "super_kernel %s #%d", E->g->sks.v[s->sk].name, u->seg);
        cesc_string(E->o, t.s);
        sb_free(&t);
    } else {
        const Op *op = &E->g->ops.v[u->op];
        if (op->file) {   /* an op of a module the script imports */
            StrBuf t = {0};
            sb_printf(&t, "%s %%%d (%s:%u)", op_info[op->kind].name, op->out, op->file, op->line);
            cesc_string(E->o, t.s);
            sb_free(&t);
        } else {
            sb_printf(E->o, "\"%s %%%d (line %u)\"", op_info[op->kind].name, op->out, op->line);
        }
    }
}

/* Fused group i of stream s's sequence q (fuse.c), where its last op
 * was: timed as one trace slice naming its ops. */
static void e__fused_unit(Emit *E, int s, const char *fn, const FuseSeq *q, size_t i)
{
    const int32_t *ops = q->grp + q->at[i] + 1;
    size_t n = (size_t)q->grp[q->at[i]];
    sb_puts(E->o, "    {\n        TNGC_UNIT_BEGIN();\n");
    e__fused_call(E, fn, q, i, "        ");
    sb_printf(E->o, "        TNGC_UNIT_END(%d, ", s);
    StrBuf t = {0};
    fuse_name(E, ops, n, &t);
    cesc_string(E->o, t.s);
    sb_free(&t);
    sb_puts(E->o, ");\n    }\n");
}

static void e__stream(Emit *E, int s)
{
    const Plan *p = E->p;
    const PlanStream *ps = &p->streams.v[s];
    FuseSeq q;
    fuse_seq_units(E, s, &q);
    char fn[128];
    snprintf(fn, sizeof fn, "%sg%d_s%d", E->opt->fn_prefix ? E->opt->fn_prefix : "", E->gear, s);
    e__fused_fns(E, fn, &q, ps->nunits);
    sb_printf(E->o, "\nstatic int %s(void *arg, TngrtExec *ex, int stream, TngrtError *err)\n{\n", fn);
    sb_puts(E->o, "    const TngrtRunCtx *c = arg;\n    TngrtTrace *tr = tngrt_exec_trace(ex);\n"
                  "    (void)stream;\n    (void)tr;\n");
    e__fn_prologue(E);
    for (size_t i = 0; i < ps->nunits; i++) {
        const PlanUnit *u = &p->units.v[ps->units[i]];
        for (size_t w = 0; w < u->nwait; w++)
            sb_printf(E->o, "    if (tngrt_exec_wait(ex, %d, %d))\n        return -1;\n", s, u->wait[w]);
        int runs = q.at[i] == -1 && (u->seg >= 0 || (emit_has_kernel(E, u->op) && !emit_cpu_elided(E, u->op)));
        if (q.at[i] >= 0)   /* a fused group ends here (fuse.c) */
            e__fused_unit(E, s, fn, &q, i);
        if (runs) {
            sb_puts(E->o, "    {\n        TNGC_UNIT_BEGIN();\n");
            if (u->seg >= 0)
                sb_printf(E->o, "        if (%sg%d_seg%d(c, err))\n            return -1;\n",
                          E->opt->fn_prefix ? E->opt->fn_prefix : "", E->gear, u->seg);
            else
                e__op(E, u->op, "        ");
            sb_printf(E->o, "        TNGC_UNIT_END(%d, ", s);
            e__unit_name(E, u);
            sb_puts(E->o, ");\n    }\n");
        }
        for (size_t r = 0; r < u->nrecord; r++)
            sb_printf(E->o, "    tngrt_exec_record(ex, %d, %d);\n", s, u->record[r]);
    }
    fuse_seq_free(&q);
    sb_puts(E->o, "    return 0;\n}\n");
}

static void e__gear(Emit *E, int gi)
{
    const Plan *p = E->p;
    emit_gear_begin(E, gi);
    sb_printf(E->o, "\n/* ==== gear %d ==== */\n", gi);
    if (E->dyn || E->rtdims)
        emit_layout(E);
    for (size_t s = 0; s < p->segs.n; s++)
        e__segment(E, (int)s);
    for (size_t s = 0; s < p->streams.n; s++)
        if (!emit_stream_idle(p, s))
            e__stream(E, (int)s);
    emit_outputs(E);
    emit_gear_tables(E, NULL);
}

/* The prototypes of the user's kernels. */
static void e__user_decls(Emit *E, StrBuf *o)
{
    if (!E->opt->user_ops || !E->opt->user_ops[0])
        return;
    sb_puts(o, "\n/* user kernels (see the _kernels_user.c stub) */\n");
    for (int k = 0; k < OP__count; k++)
        if (E->user[k])
            sb_printf(o, "int %s_user_%s(const TngrtArg *outs, int nout, const TngrtArg *ins, int nin,\n"
                         "    const int64_t *attr, int nattr, const double *fattr, TngrtError *err);\n",
                      E->opt->name, op_info[k].name);
}

/* ---- split bundles ----------------------------------------------------------- */

/*
 * A bundle with several gears is split: <name>.c keeps what the
 * whole bundle shares (the template's API functions, the static kernels,
 * the constants, the gear table and the descriptor), and the gears go to
 * <name>_gears_0.c .. _gears_{F-1}.c, F = min(gears, CPU_GEAR_FILES), gears
 * [k*G/F, (k+1)*G/F) in file k, so that `tngc build -j N` compiles them at
 * once. Every gear of a plan has the same ops, so equal counts of gears are
 * equal work; the cap keeps the files few (each one pays clang's start and
 * the runtime headers, about 0.05 s of CPU) while leaving 8 jobs something to do.
 * What crosses files is extern and prefixed "<name>__" (Emit.gpre): each
 * gear's stream table, symbol values, outputs and layout functions, the
 * static kernels, the constant block. The small helpers of templates/bundle.c
 * are copied into each gear file, static as in <name>.c.
 */
#define CPU_GEAR_FILES 8

/* The gears of file k of a split bundle: [*lo, *hi). */
static void e__gear_range(const Plan *p, int k, int *lo, int *hi)
{
    size_t n = p->gears.n, f = n < CPU_GEAR_FILES ? n : CPU_GEAR_FILES;
    *lo = (int)((size_t)k * n / f);
    *hi = (int)((size_t)(k + 1) * n / f);
}

/* The number of gear files (0: not split). */
static int e__gear_files(const Plan *p)
{
    return p->gears.n < 2 ? 0 : p->gears.n < CPU_GEAR_FILES ? (int)p->gears.n : CPU_GEAR_FILES;
}

/* Declarations of what gears [lo, hi) define for <name>.c's gear table. */
static void e__gear_decls(Emit *E, int lo, int hi)
{
    for (int gi = lo; gi < hi; gi++) {
        emit_gear_begin(E, gi);
        if (E->dyn || E->rtdims) {
            sb_puts(E->o, "int ");
            emit_gear_sym(E, E->o, gi, "layout");
            sb_puts(E->o, "(const int64_t *S, int64_t *off, int64_t *bytes);\n");
        }
        sb_puts(E->o, "void ");
        emit_gear_sym(E, E->o, gi, "outputs");
        sb_puts(E->o, "(const TngrtRunCtx *c, TngrtTensor *outs);\nextern const TngrtStreamFn ");
        emit_gear_sym(E, E->o, gi, "streams");
        sb_puts(E->o, "[];\n");
        if (E->g->syms.n) {
            sb_puts(E->o, "extern const int64_t ");
            emit_gear_sym(E, E->o, gi, "symval");
            sb_puts(E->o, "[];\n");
        }
    }
}

static void e__static_kernel_decls(Emit *E);

/* 1 when a gear of [lo, hi) has a fused group (fuse_any for some gears). */
static int e__fuse_any(Emit *E, int lo, int hi)
{
    FuseSeq q;
    if (!E->fuse)
        return 0;
    for (int gi = lo; gi < hi; gi++) {
        emit_gear_begin(E, gi);
        for (size_t s = 0; s < E->p->segs.n + E->p->streams.n; s++) {
            if (s < E->p->segs.n)
                fuse_seq_segment(E, (int)s, &q);
            else
                fuse_seq_units(E, (int)(s - E->p->segs.n), &q);
            size_t n = q.ngroups;
            fuse_seq_free(&q);
            if (n)
                return 1;
        }
    }
    return 0;
}

/* <name>_gears_K.c: the helpers of templates/bundle.c, the declarations of
 * what <name>.c defines for the gears, then gears [lo, hi). */
static void e__gear_file(Emit *E, int k, GenFiles *out)
{
    int lo, hi;
    e__gear_range(E->p, k, &lo, &hi);
    char suffix[32];
    snprintf(suffix, sizeof suffix, "_gears_%d.c", k);
    GenFile *f = emit_file(out, E->opt->name, suffix, 1);
    StrBuf *o = &f->text;
    E->o = o;
    E->cfile = f->name;
    E->nl_pos = E->nl = 0;
    emit_banner(E->opt, o);
    if (hi - lo == 1)
        sb_printf(o, "\n/*\n * Gear %d of the bundle ", lo);
    else
        sb_printf(o, "\n/*\n * Gears %d to %d of the bundle ", lo, hi - 1);
    cesc_comment(o, E->opt->name);
    sb_puts(o, " (tngc gen splits the gears across files so that\n"
               " * they compile in parallel; the gear table and the descriptor are in ");
    cesc_comment(o, E->opt->name);
    sb_puts(o, ".c).\n */\n");
    const char *t = template_text("bundle.c");
    const char *a = t ? strstr(t, "#include \"tngc_template.h\"") : NULL;
    const char *b = a ? strstr(a, "/* The descriptor, defined by the body") : NULL;
    if (!b)
        TNGC_BUG("templates/bundle.c has no helpers");
    StrBuf part = {0}, text = {0};
    sb_putn(&part, a, (size_t)(b - a));
    EmitSplice sc = {E, {0}};
    template_expand(part.s, E->opt->name, emit_splice, &sc, &text);
    sb_puts(o, text.s);
    sb_free(&part);
    sb_free(&text);
    sb_free(&sc.text);
    sb_puts(o, "/* tngc__fail of templates/bundle.c, with the script's name. */\n"
               "TNGC_MAYBE_UNUSED static int tngc__fail(TngrtError *err, unsigned line)\n{\n"
               "    return tngrt_error_at(err, ");
    cesc_string(o, E->opt->script);
    sb_puts(o, ", line);\n}\n");
    e__user_decls(E, o);
    if (e__fuse_any(E, lo, hi))
        e__fuse_prelude(o);
    sb_puts(o, "\n/* defined in ");
    cesc_comment(o, E->opt->name);
    sb_puts(o, ".c */\n");
    if (E->p->nconst)
        sb_printf(o, "extern unsigned char %sK[];\n", E->gpre);
    e__static_kernel_decls(E);
    sb_puts(o, "/* defined here, for the gear table */\n");
    e__gear_decls(E, lo, hi);
    for (int gi = lo; gi < hi; gi++)
        e__gear(E, gi);
}

/* ---- static kernels -------------------------------------------------------- */

/* A split bundle's gear file: the static kernels <name>.c defines. */
static void e__static_kernel_decls(Emit *E)
{
    const Plan *p = E->p;
    for (size_t k = 0; k < p->kernels.n; k++) {
        const StaticKernel *sk = &p->kernels.v[k];
        E->gear = sk->gear;
        if (sk->selected && emit_static_kernel(E, sk->op) == (int)k)
            sb_printf(E->o, "int %ssk%zu(void *const *p, TngrtError *err);\n", E->gpre, k);
    }
}

static void e__static_kernels(Emit *E)
{
    const Plan *p = E->p;
    int any = 0;
    for (size_t k = 0; k < p->kernels.n; k++) {
        const StaticKernel *sk = &p->kernels.v[k];
        E->gear = sk->gear;
        if (!sk->selected || emit_static_kernel(E, sk->op) != (int)k)
            continue;
        if (!any++)
            sb_puts(E->o, "\n/* ==== static kernels: shapes are compile-time constants ==== */\n"
                          "#include \"tngrt_kernel_impl.h\"\n");
        E->symval = p->gears.v[sk->gear].symval;
        E->kptr = 1;
        sb_puts(E->o, "\n/* ");
        cesc_comment(E->o, sk->key);
        sb_printf(E->o, ": %d instance(s) */\n%sint %ssk%zu(void *const *p, TngrtError *err)\n{\n"
                        "    (void)err;\n    ", sk->count, emit_linkage(E), E->gpre ? E->gpre : "tngc__", k);
        e__call(E, sk->op, "tngrt_impl_");
        sb_puts(E->o, "    return 0;\n}\n");
        E->kptr = 0;
    }
}

/* ---- constants ------------------------------------------------------------ */

/* The constants of the plan (Plan.const_op): their block tngc__K, the
 * function that runs their ops in program order into it, and
 * tngc__consts_once, which the template's create calls: the first create
 * computes them, later ones (and concurrent ones, which wait) find them
 * ready; a failure leaves them to the next create. Their dims are
 * constants, the same in every gear. */
static void e__consts(Emit *E)
{
    const Plan *p = E->p;
    if (!p->nconst)
        return;
    emit_gear_begin(E, 0);
    sb_printf(E->o, "\n/* ==== constants: %zu ops, computed once when the first bundle is created ==== */\n"
                    "#include <stdatomic.h>\n\n"
                    "%s_Alignas(64) unsigned char %sK[%s];\n"
                    "static atomic_int tngc__K_state;   /* 0 to compute, 1 being computed, 2 ready */\n\n"
                    "static int tngc__consts_run(TngrtError *err)\n{\n",
              p->nconst, emit_linkage(E), E->gpre ? E->gpre : "tngc__",
              EMIT_I64(p->const_bytes > 0 ? p->const_bytes : 1));
    for (size_t i = 0; i < E->g->ops.n; i++)
        if (plan_is_const(p, (int32_t)i) && emit_has_kernel(E, (int32_t)i))
            e__op(E, (int32_t)i, "    ");
    sb_puts(E->o, "    (void)err;\n    return 0;\n}\n\n"
                  "#define TNGC_HAS_CONSTS 1\n"
                  "static int tngc__consts_once(TngrtError *err)\n{\n"
                  "    for (;;) {\n"
                  "        int state = 0;\n"
                  "        if (atomic_compare_exchange_strong(&tngc__K_state, &state, 1)) {\n"
                  "            int rc = tngc__consts_run(err);\n"
                  "            atomic_store(&tngc__K_state, rc == 0 ? 2 : 0);\n"
                  "            return rc == 0 ? 0 : -1;\n"
                  "        }\n"
                  "        if (state == 2)\n"
                  "            return 0;\n"
                  "    }\n}\n");
}

/* The body: gears, static kernels, descriptor. */
static void e__body(Emit *E, StrBuf *body)
{
    E->o = body;
    sb_puts(body, "#define TNGC_GENERATED 1\n");
    e__user_decls(E, body);
    if (fuse_any(E))
        e__fuse_prelude(body);
    e__static_kernels(E);
    e__consts(E);
    if (E->gpre) {   /* split: the gears are in <name>_gears_K.c */
        sb_puts(body, "\n/* ==== gears: in the files ");
        cesc_comment(body, E->opt->name);
        sb_puts(body, "_gears_K.c ==== */\n");
        e__gear_decls(E, 0, (int)E->p->gears.n);
    } else {
        for (size_t gi = 0; gi < E->p->gears.n; gi++)
            e__gear(E, (int)gi);
    }
    emit_desc(E);
}

static void e__user_stub(Emit *E, StrBuf *o)
{
    emit_banner(E->opt, o);
    sb_printf(o, "\n/*\n * The kernels of %s that you supply: implement each function below (keep its\n"
                 " * exact signature; tngc checks it with libclang) in a file of your own and pass\n"
                 " * it to tngc build with --kernels FILE.c.\n *\n"
                 " * outs[0..nout) and ins[0..nin) are dense C-order operands (an absent optional\n"
                 " * input has ndim -1 and data NULL); attr and fattr are the op's int and float\n"
                 " * attributes (ir/graph.h documents them per op). Return 0, or -1 with a\n"
                 " * message in err->msg.\n */\n#include \"tngrt_kernels.h\"\n", E->opt->name);
    for (int k = 0; k < OP__count; k++) {
        if (!E->user[k])
            continue;
        sb_printf(o, "\nint %s_user_%s(const TngrtArg *outs, int nout, const TngrtArg *ins, int nin,\n"
                     "    const int64_t *attr, int nattr, const double *fattr, TngrtError *err)\n{\n"
                     "    (void)outs; (void)nout; (void)ins; (void)nin; (void)attr; (void)nattr; (void)fattr;\n"
                     "    snprintf(err->msg, sizeof err->msg, \"%s: kernel not implemented\");\n"
                     "    return -1;\n}\n",
                  E->opt->name, op_info[k].name, op_info[k].name);
    }
    /* snprintf needs stdio.h: put it after the include line */
    const char *inc = "#include \"tngrt_kernels.h\"\n";
    char *at = strstr(o->s, inc);
    if (at) {
        size_t pos = (size_t)(at - o->s) + strlen(inc);
        StrBuf t = {0};
        sb_putn(&t, o->s, pos);
        sb_puts(&t, "#include <stdio.h>\n");
        sb_puts(&t, o->s + pos);
        sb_free(o);
        *o = t;
    }
}

int emit_user_ops(const Plan *p, const GenOptions *opt, NameList *names)
{
    Emit E;
    emit_init(&E, p, opt, NULL);
    unsigned char seen[OP__count] = {0};
    int n = 0;
    for (size_t i = 0; i < p->g->ops.n; i++) {
        OpKind k = p->g->ops.v[i].kind;
        if (E.user[k] && !seen[k]) {
            seen[k] = 1;
            VEC_PUSH(*names, op_info[k].name);
            n++;
        }
    }
    emit_fini(&E);
    return n;
}

int emit_cpu(const Plan *p, const GenOptions *given, GenFiles *out, DiagList *diags)
{
    Emit E;
    StrBuf ident = {0};
    GenOptions o = emit_options(given, &ident);
    const GenOptions *opt = &o;
    emit_init(&E, p, opt, diags);
    fuse_init(&E);
    if (emit_check_writeback(&E, "CPU") != 0) {
        fuse_fini(&E);
        emit_fini(&E);
        sb_free(&ident);
        return -1;
    }
    /* the copies the planner gave no buffer (tngc plans with dense_matmuls
     * when a user kernel replaces a matmul) */
    emit_cpu_views_init(&E);
    EmitSplice sc = {&E, {0}};
    const char *name = opt->name;
    StrBuf gpre = {0};
    int nfiles = e__gear_files(p);
    if (nfiles) {   /* several gears: split (see e__gear_file) */
        sb_printf(&gpre, "%s__", name);
        E.gpre = gpre.s;
    }

    GenFile *h = emit_file(out, name, ".h", 0);
    template_expand(template_text("tngc_template.h"), name, emit_splice, &sc, &h->text);
    emit_bundle_c(&E, "bundle.c", emit_splice, e__body, out);
    for (int k = 0; k < nfiles; k++)
        e__gear_file(&E, k, out);
    GenFile *l = emit_file(out, name, "_launcher.c", 0);
    template_expand(template_text("launcher.c"), name, emit_splice, &sc, &l->text);

    if (opt->user_ops && opt->user_ops[0]) {
        int any = 0;
        for (int k = 0; k < OP__count; k++)
            any |= E.user[k];
        if (any) {
            GenFile *u = emit_file(out, name, "_kernels_user.c", 0);
            e__user_stub(&E, &u->text);
        }
    }
    sb_free(&sc.text);
    sb_free(&ident);
    sb_free(&gpre);
    emit_cpu_views_fini(&E);
    fuse_fini(&E);
    emit_fini(&E);
    return E.errors ? -1 : 0;
}
