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
 *
 * Every operand is a TngrtArg literal: a pointer (an input's or weight's
 * buffer, or the arena at the offset the memory plan gave), the dtype, and
 * the shape as constants of the gear, or C expressions of the run's symbol
 * values S[k] where a symbol is unbound.
 */
#include "codegen.h"

#include <math.h>
#include <string.h>

typedef struct Emit {
    const Plan *p;
    const Graph *g;
    const GenOptions *opt;
    DiagList *diags;
    int errors;
    StrBuf *o;                 /* the file being written */
    const char *cfile;         /* its name, for #line */
    size_t nl_pos, nl;         /* newlines counted in o up to nl_pos */
    int gear;
    const int64_t *symval;
    int dyn;                   /* the gear places buffers at run time */
    int32_t *slot;             /* dynamic gears: per value, its index in off[], or -1 */
    int nslot;
    int32_t *input_of;         /* per value: graph input index, or -1 */
    int32_t *weight_of;        /* per value: weight index, or -1 */
    int kptr;                  /* static-kernel mode: operand k is p[k] */
    unsigned char user[OP__count];
} Emit;

const char emit_user_kernel_type[] =
    "int (const TngrtArg *, int, const TngrtArg *, int, const int64_t *, int, const double *, TngrtError *)";

static const char *const dtype_enum[] = {
    "TNGRT_F32",
#define X(e, name, acl, size) "TNGRT_" #e,
    DTYPES(X)
#undef X
};

/* ---- helpers ------------------------------------------------------------- */

static void e__cstr(StrBuf *o, const char *s);

static const char *e__dt(DType t)
{
    return t > DT_UNKNOWN && t < DT__count ? dtype_enum[t] : "TNGRT_F32";
}

/* The current line number of E->o (1-based line of the next char). */
static size_t e__line(Emit *E)
{
    for (; E->nl_pos < E->o->len; E->nl_pos++)
        E->nl += E->o->s[E->nl_pos] == '\n';
    return E->nl + 1;
}

static void e__line_script(Emit *E, uint32_t line)
{
    if (E->opt->line_directives && line > 0) {
        sb_printf(E->o, "#line %u ", line);
        e__cstr(E->o, E->opt->script);
        sb_puts(E->o, "\n");
    }
}

static void e__line_back(Emit *E)
{
    if (E->opt->line_directives) {
        size_t n = e__line(E);
        sb_printf(E->o, "#line %zu \"%s\"\n", n + 1, E->cfile);
    }
}

static void e__error(Emit *E, const Op *op, const char *fmt, const char *arg)
{
    Diag d = {0};
    d.severity = SEV_ERROR;
    d.rule = RULE_TNG203;
    d.line = op ? op->line : E->g->line;
    d.col = op ? op->col : E->g->col;
    d.end_line = d.line;
    d.end_col = d.col;
    char buf[512];
    snprintf(buf, sizeof buf, fmt, arg);
    d.msg = xstrdup(buf);
    VEC_PUSH(*E->diags, d);
    E->errors++;
}

/* Dim d as a C expression: a constant in this gear, or an expression of S[k]. */
static void e__dim(Emit *E, DimId d)
{
    int64_t c;
    if (graph_dim_eval(E->g, d, E->symval, &c) == 0) {
        sb_printf(E->o, "%lld", (long long)c);
        return;
    }
    const DimExpr *x = &E->g->dims.v[d];
    static const char *const fn[] = {[DIM_DIV] = "tngc__floordiv", [DIM_MIN] = "tngc__min",
                                     [DIM_MAX] = "tngc__max"};
    static const char *const op[] = {[DIM_ADD] = " + ", [DIM_SUB] = " - ", [DIM_MUL] = " * "};
    switch (x->kind) {
    case DIM_CONST:
        sb_printf(E->o, "%lld", (long long)x->c);
        break;
    case DIM_SYM:
        sb_printf(E->o, "S[%lld]", (long long)x->c);
        break;
    case DIM_ADD: case DIM_SUB: case DIM_MUL:
        sb_putc(E->o, '(');
        e__dim(E, x->a);
        sb_puts(E->o, op[x->kind]);
        e__dim(E, x->b);
        sb_putc(E->o, ')');
        break;
    case DIM_DIV: case DIM_MIN: case DIM_MAX:
        sb_printf(E->o, "%s(", fn[x->kind]);
        e__dim(E, x->a);
        sb_puts(E->o, ", ");
        e__dim(E, x->b);
        sb_putc(E->o, ')');
        break;
    }
}

/* "(const int64_t[]){d0, d1}" or "NULL" for a 0-d value; insert_at >= 0
 * inserts a 1 there (stack's operands). */
static void e__shape(Emit *E, int32_t v, int insert_at)
{
    const Val *val = &E->g->vals.v[v];
    int nd = val->ndim + (insert_at >= 0);
    if (nd == 0) {
        sb_puts(E->o, "NULL");
        return;
    }
    sb_puts(E->o, "(const int64_t[]){");
    for (int d = 0, k = 0; d < nd; d++) {
        if (d)
            sb_puts(E->o, ", ");
        if (d == insert_at)
            sb_puts(E->o, "1");
        else
            e__dim(E, val->dims[k++]);
    }
    sb_putc(E->o, '}');
}

/* The pointer to value v's data. */
static void e__ptr(Emit *E, int32_t v, int pos)
{
    if (E->kptr) {
        sb_printf(E->o, "p[%d]", pos);
        return;
    }
    int32_t r = graph_storage_root(E->g, v);
    if (E->input_of[r] >= 0)
        sb_printf(E->o, "c->in[%d]", E->input_of[r]);
    else if (E->weight_of[r] >= 0)
        sb_printf(E->o, "c->w[%d]", E->weight_of[r]);
    else if (E->dyn)
        sb_printf(E->o, "(A + c->off[%d])", E->slot[r]);
    else
        sb_printf(E->o, "(A + %lld)", (long long)E->p->mem.v[E->gear].offset[v]);
}

/* "&(TngrtArg){ptr, dtype, ndim, shape}" or "NULL" for an absent operand. */
static void e__arg(Emit *E, int32_t v, int pos)
{
    if (v < 0) {
        sb_puts(E->o, "NULL");
        return;
    }
    const Val *val = &E->g->vals.v[v];
    sb_puts(E->o, "&(TngrtArg){");
    e__ptr(E, v, pos);
    sb_printf(E->o, ", %s, %d, ", e__dt(val->dtype), val->ndim);
    e__shape(E, v, -1);
    sb_putc(E->o, '}');
}

/* Operand positions in static-kernel mode: outputs first, then inputs. */
#define OUT(k) (int32_t)(op->out + (k)), (int)(k)
#define IN(k) op->in[k], (int)(op->nout + (k))

static const char *e__unary(OpKind k, const Op *op)
{
    switch (k) {
    case OP_NEG: return "TNGRT_UN_NEG";
    case OP_ABS: return "TNGRT_UN_ABS";
    case OP_EXP: return "TNGRT_UN_EXP";
    case OP_LOG: return "TNGRT_UN_LOG";
    case OP_SQRT: return "TNGRT_UN_SQRT";
    case OP_RSQRT: return "TNGRT_UN_RSQRT";
    case OP_RELU: return "TNGRT_UN_RELU";
    case OP_GELU: return op->nattr > 0 && op->attr[0] == 1 ? "TNGRT_UN_GELU_TANH" : "TNGRT_UN_GELU";
    case OP_SILU: return "TNGRT_UN_SILU";
    case OP_SIGMOID: return "TNGRT_UN_SIGMOID";
    case OP_TANH: return "TNGRT_UN_TANH";
    case OP_POW: return "TNGRT_UN_POW";
    default: return "TNGRT_UN_IDENTITY";
    }
}

static const char *e__binary(OpKind k)
{
    switch (k) {
    case OP_ADD: return "TNGRT_BIN_ADD";
    case OP_SUB: return "TNGRT_BIN_SUB";
    case OP_MUL: return "TNGRT_BIN_MUL";
    default: return "TNGRT_BIN_DIV";
    }
}

/* x as a C double literal (NAN and INFINITY from <math.h>). */
static void e__double(Emit *E, double x)
{
    if (isnan(x)) {
        sb_puts(E->o, "NAN");
        return;
    }
    if (isinf(x)) {
        sb_puts(E->o, x < 0 ? "-INFINITY" : "INFINITY");
        return;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", x);
    sb_puts(E->o, buf);
    if (!strpbrk(buf, ".eE"))
        sb_puts(E->o, ".0");
}

static void e__slice_args(Emit *E, const Op *op)
{
    sb_printf(E->o, ", %d, %lld, ", (int)op->attr[0], (long long)op->attr[1]);
    if (op->attr[2] == GRAPH_END)
        sb_puts(E->o, "INT64_MAX");
    else
        sb_printf(E->o, "%lld", (long long)op->attr[2]);
    sb_printf(E->o, ", %lld", (long long)op->attr[3]);
}

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
        sb_printf(E->o, "%s%lld", k ? ", " : "", (long long)op->attr[k]);
    sb_printf(E->o, "%s}, %u, (const double[]){", op->nattr ? "" : "0", op->nattr);
    e__double(E, op->fattr[0]);
    sb_puts(E->o, ", ");
    e__double(E, op->fattr[1]);
    sb_puts(E->o, "}, err))\n        return -1;\n");
}

/* Opens the call "[if (]<pre><fn>(" with the operands spec names: "o0" is
 * output 0, "i2" input 2 (NULL when absent); the caller appends further
 * arguments and closes with e__close. */
static void e__open(Emit *E, const Op *op, const char *pre, const char *fn, const char *spec, int fallible)
{
    sb_printf(E->o, "%s%s%s(", fallible ? "if (" : "", pre, fn);
    for (const char *c = spec; c[0] && c[1]; c += 2) {
        uint32_t k = (uint32_t)(c[1] - '0');
        if (c != spec)
            sb_puts(E->o, ", ");
        if (c[0] == 'o')
            e__arg(E, OUT(k));
        else
            e__arg(E, k < op->nin ? op->in[k] : -1, (int)(op->nout + k));
    }
}

/* Closes a call e__open opened; a fallible one returns -1 on failure. */
static void e__close(Emit *E, int fallible)
{
    sb_puts(E->o, fallible ? ", err))\n        return -1;\n" : ");\n");
}

/* ", <x as a double literal>" */
static void e__comma_double(Emit *E, double x)
{
    sb_puts(E->o, ", ");
    e__double(E, x);
}

static const char *e__reduce(OpKind k)
{
    return k == OP_SUM ? "TNGRT_RED_SUM" : k == OP_MEAN ? "TNGRT_RED_MEAN" : "TNGRT_RED_AMAX";
}

/* The kernel call of op (one statement, no trailing newline handling). */
static void e__call(Emit *E, int32_t op_id, const char *pre)
{
    const Op *op = &E->g->ops.v[op_id];
    StrBuf *o = E->o;
    if (E->user[op->kind]) {
        e__user_call(E, op);
        return;
    }
    switch (op->kind) {
    case OP_FULL:
        e__open(E, op, pre, "fill", "o0", 0);
        e__comma_double(E, op->fattr[0]);
        break;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV:
        if (op->attr[0] == 0) {
            e__open(E, op, pre, "binary", "o0i0i1", 0);
            sb_printf(o, ", %s", e__binary(op->kind));
        } else {
            e__open(E, op, pre, "binary_scalar", "o0i0", 0);
            e__comma_double(E, op->fattr[0]);
            sb_printf(o, ", %d, %s", op->attr[0] == 2, e__binary(op->kind));
        }
        e__comma_double(E, op->fattr[1]);
        break;
    case OP_POW: case OP_NEG: case OP_ABS: case OP_EXP: case OP_LOG: case OP_SQRT:
    case OP_RSQRT: case OP_RELU: case OP_GELU: case OP_SILU: case OP_SIGMOID: case OP_TANH:
    case OP_CAST:
        e__open(E, op, pre, "unary", "o0i0", 0);
        sb_printf(o, ", %s", e__unary(op->kind, op));
        e__comma_double(E, op->kind == OP_POW ? op->fattr[0] : 0);
        break;
    case OP_MM: case OP_BMM: case OP_MATMUL:
        e__open(E, op, pre, "matmul", "o0i0i1", 0);
        break;
    case OP_ADDMM:
        e__open(E, op, pre, "addmm", "o0i0i1i2", 0);
        e__comma_double(E, op->fattr[0]);
        e__comma_double(E, op->fattr[1]);
        break;
    case OP_LINEAR:
        e__open(E, op, pre, "linear", "o0i0i1i2", 0);
        break;
    case OP_PERMUTE:
        e__open(E, op, pre, "permute", "o0i0", 0);
        sb_puts(o, ", (const int64_t[]){");
        for (uint32_t k = 0; k < op->nattr; k++)
            sb_printf(o, "%s%lld", k ? ", " : "", (long long)op->attr[k]);
        sb_puts(o, op->nattr ? "}" : "0}");
        break;
    case OP_CLONE:
        e__open(E, op, pre, "copy", "o0i0", 0);
        break;
    case OP_COPY:
        e__open(E, op, pre, "copy", "o0i1", 0);
        break;
    case OP_SLICE:
        e__open(E, op, pre, "slice", "o0i0", 0);
        e__slice_args(E, op);
        break;
    case OP_SLICE_STORE:
        e__open(E, op, pre, "slice_store", "o0i1", 0);
        e__slice_args(E, op);
        break;
    case OP_SELECT:
        e__open(E, op, pre, "select", "o0i0", 1);
        sb_printf(o, ", %d, %lld", (int)op->attr[0], (long long)op->attr[1]);
        e__close(E, 1);
        return;
    case OP_CAT: case OP_STACK:
        sb_printf(o, "%scat(", pre);
        e__arg(E, OUT(0));
        sb_puts(o, ", (const TngrtArg *const[]){");
        for (uint32_t k = 0; k < op->nin; k++) {
            if (k)
                sb_puts(o, ", ");
            if (op->kind == OP_CAT) {
                e__arg(E, IN(k));
                continue;
            }
            sb_puts(o, "&(TngrtArg){");
            e__ptr(E, op->in[k], (int)(op->nout + k));
            sb_printf(o, ", %s, %d, ", e__dt(E->g->vals.v[op->in[k]].dtype), E->g->vals.v[op->in[k]].ndim + 1);
            e__shape(E, op->in[k], (int)op->attr[0]);
            sb_putc(o, '}');
        }
        sb_printf(o, "}, %u, %d);\n", op->nin, (int)op->attr[0]);
        return;
    case OP_SUM: case OP_MEAN: case OP_AMAX: {
        uint32_t mask = 0;
        if (op->nattr <= 1)
            mask = (1u << E->g->vals.v[op->in[0]].ndim) - 1;
        for (uint32_t k = 1; k < op->nattr; k++)
            mask |= 1u << op->attr[k];
        e__open(E, op, pre, "reduce", "o0i0", 0);
        sb_printf(o, ", %s, 0x%xu", e__reduce(op->kind), mask);
        break;
    }
    case OP_SOFTMAX: case OP_LOG_SOFTMAX:
        e__open(E, op, pre, "softmax", "o0i0", 0);
        sb_printf(o, ", %d, %d", (int)op->attr[0], op->kind == OP_LOG_SOFTMAX);
        break;
    case OP_LAYER_NORM:
        e__open(E, op, pre, "layer_norm", "o0i0i1i2", 0);
        sb_printf(o, ", %d", (int)op->attr[0]);
        e__comma_double(E, op->fattr[0]);
        break;
    case OP_RMS_NORM:
        e__open(E, op, pre, "rms_norm", "o0o1i0i1", 0);
        e__comma_double(E, op->fattr[0]);
        break;
    case OP_EMBEDDING:
        e__open(E, op, pre, "embedding", "o0i0i1", 1);
        e__close(E, 1);
        return;
    case OP_QUANT_MATMUL:
        e__open(E, op, pre, "quant_matmul", "o0i0i1i2i3i4i5", 1);
        e__close(E, 1);
        return;
    case OP_DEQUANT_SWIGLU_QUANT:
        e__open(E, op, pre, "dequant_swiglu_quant", "o0o1i0i1i2i3i4i5i6", 1);
        sb_printf(o, ", %d, %d", (int)op->attr[0], (int)op->attr[1]);
        e__close(E, 1);
        return;
    case OP_SWIGLU:
        e__open(E, op, pre, "swiglu", "o0i0", 0);
        sb_printf(o, ", %d", (int)op->attr[0]);
        break;
    case OP_INPUT: case OP_WEIGHT: case OP_RESHAPE: case OP_CONTIGUOUS: case OP_FORMAT_CAST:
    case OP__count:
        return;
    }
    e__close(E, 0);
}

/* 1 when op runs code (sources and views do not). */
static int e__has_kernel(const Emit *E, int32_t op_id)
{
    return !(op_info[E->g->ops.v[op_id].kind].flags & (OPF_SOURCE | OPF_ALIAS));
}

/* The static kernel op uses in this gear, or -1. */
static int e__static_kernel(const Emit *E, int32_t op_id)
{
    const Plan *p = E->p;
    if (!p->g->cfg.static_kernel || !p->g->cfg.mode || strcmp(p->g->cfg.mode, "reduce-overhead") ||
        E->user[p->g->ops.v[op_id].kind])
        return -1;
    int k = p->kernel_of[E->gear][op_id];
    return k >= 0 && p->kernels.v[k].selected ? k : -1;
}

/* One op's statement, with #line back to the script. */
static void e__op(Emit *E, int32_t op_id, const char *indent)
{
    const Op *op = &E->g->ops.v[op_id];
    sb_printf(E->o, "%s/* ", indent);
    graph_val_type_str(E->g, op->out, E->o);
    sb_printf(E->o, " %%%d = %s */\n", op->out, op_info[op->kind].name);
    e__line_script(E, op->line);
    sb_puts(E->o, indent);
    int k = e__static_kernel(E, op_id);
    if (k >= 0) {
        sb_printf(E->o, "if (tngc__sk%d((void *const[]){", k);
        uint32_t n = 0;
        for (uint32_t j = 0; j < op->nout; j++, n++) {
            sb_puts(E->o, n ? ", " : "");
            e__ptr(E, op->out + (int32_t)j, 0);
        }
        for (uint32_t j = 0; j < op->nin; j++, n++) {
            sb_puts(E->o, n ? ", " : "");
            if (op->in[j] < 0)
                sb_puts(E->o, "NULL");
            else
                e__ptr(E, op->in[j], 0);
        }
        sb_puts(E->o, "}, err))\n        return -1;\n");
    } else {
        e__call(E, op_id, "tngrt_kernel_");
    }
    e__line_back(E);
}

/* ---- per gear ------------------------------------------------------------ */

static void e__fn_prologue(Emit *E)
{
    sb_puts(E->o, "    unsigned char *A = c->arena;\n"
                  "    const int64_t *S = c->sym;\n"
                  "    (void)A;\n    (void)S;\n    (void)err;\n");
}

static void e__segment(Emit *E, int seg)
{
    const PlanSegment *s = &E->p->segs.v[seg];
    sb_printf(E->o, "\n/* super kernel \"%s\", segment %d: %zu ops, ended by: %s */\n",
              E->g->sks.v[s->sk].name, seg, s->nops, s->split);
    sb_printf(E->o, "static int g%d_seg%d(const TngrtRunCtx *c, TngrtError *err)\n{\n", E->gear, seg);
    e__fn_prologue(E);
    for (size_t i = 0; i < s->nops; i++)
        if (e__has_kernel(E, s->ops[i]))
            e__op(E, s->ops[i], "    ");
    sb_puts(E->o, "    return 0;\n}\n");
}

/* The trace name of a unit: "add %4 (line 24)" or "sk name #3". */
static void e__unit_name(Emit *E, const PlanUnit *u)
{
    if (u->seg >= 0) {
        const PlanSegment *s = &E->p->segs.v[u->seg];
        sb_puts(E->o, "\"super_kernel ");
        for (const char *c = E->g->sks.v[s->sk].name; *c; c++)
            sb_printf(E->o, (*c == '"' || *c == '\\') ? "\\%c" : ((unsigned char)*c < 32 ? "?" : "%c"), *c);
        sb_printf(E->o, " #%d\"", u->seg);
    } else {
        const Op *op = &E->g->ops.v[u->op];
        sb_printf(E->o, "\"%s %%%d (line %u)\"", op_info[op->kind].name, op->out, op->line);
    }
}

static void e__stream(Emit *E, int s)
{
    const Plan *p = E->p;
    const PlanStream *ps = &p->streams.v[s];
    sb_printf(E->o, "\nstatic int g%d_s%d(void *arg, TngrtExec *ex, int stream, TngrtError *err)\n{\n",
              E->gear, s);
    sb_puts(E->o, "    const TngrtRunCtx *c = arg;\n    TngrtTrace *tr = tngrt_exec_trace(ex);\n"
                  "    (void)stream;\n    (void)tr;\n");
    e__fn_prologue(E);
    for (size_t i = 0; i < ps->nunits; i++) {
        const PlanUnit *u = &p->units.v[ps->units[i]];
        for (size_t w = 0; w < u->nwait; w++)
            sb_printf(E->o, "    if (tngrt_exec_wait(ex, %d, %d))\n        return -1;\n", s, u->wait[w]);
        int runs = u->seg >= 0 || e__has_kernel(E, u->op);
        if (runs) {
            sb_puts(E->o, "    {\n        TNGC_UNIT_BEGIN();\n");
            if (u->seg >= 0)
                sb_printf(E->o, "        if (g%d_seg%d(c, err))\n            return -1;\n", E->gear, u->seg);
            else
                e__op(E, u->op, "        ");
            sb_printf(E->o, "        TNGC_UNIT_END(%d, ", s);
            e__unit_name(E, u);
            sb_puts(E->o, ");\n    }\n");
        }
        for (size_t r = 0; r < u->nrecord; r++)
            sb_printf(E->o, "    tngrt_exec_record(ex, %d, %d);\n", s, u->record[r]);
    }
    sb_puts(E->o, "    return 0;\n}\n");
}

/* Dynamic gears: every buffer gets a slot placed by the layout function. */
static void e__layout(Emit *E)
{
    const Graph *g = E->g;
    E->nslot = 0;
    for (size_t v = 0; v < g->vals.n; v++) {
        unsigned fl = op_info[g->ops.v[g->vals.v[v].op].kind].flags;
        E->slot[v] = fl & (OPF_SOURCE | OPF_ALIAS | OPF_INPLACE) ? -1 : E->nslot++;
    }
    sb_printf(E->o, "\nstatic int g%d_layout(const int64_t *S, int64_t *off, int64_t *bytes)\n{\n"
                    "    int64_t at = 0, n;\n    (void)S;\n", E->gear);
    for (size_t v = 0; v < g->vals.n; v++) {
        if (E->slot[v] < 0)
            continue;
        const Val *val = &g->vals.v[v];
        sb_printf(E->o, "    if (tngc__size(%d, ", val->ndim);
        e__shape(E, (int32_t)v, -1);
        sb_printf(E->o, ", %d, &n))\n        return -1;\n    off[%d] = at;\n    at += (n + 63) & ~(int64_t)63;\n",
                  dtype_size(val->dtype), E->slot[v]);
    }
    sb_puts(E->o, "    *bytes = at;\n    return 0;\n}\n");
}

static void e__outputs(Emit *E)
{
    const Graph *g = E->g;
    sb_printf(E->o, "\nstatic void g%d_outputs(const TngrtRunCtx *c, TngrtTensor *outs)\n{\n", E->gear);
    sb_puts(E->o, "    unsigned char *A = c->arena;\n    const int64_t *S = c->sym;\n    (void)A;\n    (void)S;\n");
    for (size_t i = 0; i < g->outputs.n; i++) {
        int32_t v = g->outputs.v[i].value;
        sb_printf(E->o, "    tngc__out(&outs[%zu], ", i);
        e__ptr(E, v, 0);
        sb_printf(E->o, ", %s, %d, ", e__dt(g->vals.v[v].dtype), g->vals.v[v].ndim);
        e__shape(E, v, -1);
        sb_puts(E->o, ");\n");
    }
    sb_puts(E->o, "}\n");
}

static void e__gear(Emit *E, int gi)
{
    const Plan *p = E->p;
    E->gear = gi;
    E->symval = p->gears.v[gi].symval;
    E->dyn = p->mem.v[gi].dynamic;
    sb_printf(E->o, "\n/* ==== gear %d ==== */\n", gi);
    if (E->dyn)
        e__layout(E);
    for (size_t s = 0; s < p->segs.n; s++)
        e__segment(E, (int)s);
    for (size_t s = 0; s < p->streams.n; s++)
        e__stream(E, (int)s);
    e__outputs(E);
    sb_printf(E->o, "\nstatic const TngrtStreamFn g%d_streams[] = {", gi);
    for (size_t s = 0; s < p->streams.n; s++)
        sb_printf(E->o, "%sg%d_s%zu", s ? ", " : "", gi, s);
    sb_puts(E->o, "};\n");
    if (E->g->syms.n) {
        sb_printf(E->o, "static const int64_t g%d_symval[] = {", gi);
        for (size_t k = 0; k < E->g->syms.n; k++) {
            if (k)
                sb_puts(E->o, ", ");
            if (E->symval[k] == INT64_MIN)
                sb_puts(E->o, "INT64_MIN");
            else
                sb_printf(E->o, "%lld", (long long)E->symval[k]);
        }
        sb_puts(E->o, "};\n");
    }
}

/* ---- static kernels -------------------------------------------------------- */

static void e__static_kernels(Emit *E)
{
    const Plan *p = E->p;
    int any = 0;
    for (size_t k = 0; k < p->kernels.n; k++) {
        const StaticKernel *sk = &p->kernels.v[k];
        E->gear = sk->gear;
        if (!sk->selected || e__static_kernel(E, sk->op) != (int)k)
            continue;
        if (!any++)
            sb_puts(E->o, "\n/* ==== static kernels: shapes are compile-time constants ==== */\n"
                          "#include \"tngrt_kernel_impl.h\"\n");
        E->symval = p->gears.v[sk->gear].symval;
        E->kptr = 1;
        sb_printf(E->o, "\n/* %s: %d instance(s) */\nstatic int tngc__sk%zu(void *const *p, TngrtError *err)\n{\n"
                        "    (void)err;\n    ", sk->key, sk->count, k);
        e__call(E, sk->op, "tngrt_impl_");
        sb_puts(E->o, "    return 0;\n}\n");
        E->kptr = 0;
    }
}

/* ---- signature and descriptor --------------------------------------------- */

static void e__dims_table(Emit *E, const char *tab, int32_t v)
{
    const Val *val = &E->g->vals.v[v];
    sb_printf(E->o, "static const TngrtDim %s[] = {", tab);
    for (int d = 0; d < val->ndim; d++) {
        const DimExpr *x = &E->g->dims.v[val->dims[d]];
        if (d)
            sb_puts(E->o, ", ");
        if (x->kind == DIM_CONST)
            sb_printf(E->o, "{-1, %lld}", (long long)x->c);
        else if (x->kind == DIM_SYM)
            sb_printf(E->o, "{%lld, 0}", (long long)x->c);
        else
            sb_puts(E->o, "{-2, 0}");
    }
    sb_puts(E->o, val->ndim ? "};\n" : "{-1, 0}};\n");
}

static void e__cstr(StrBuf *o, const char *s)
{
    sb_putc(o, '"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            sb_printf(o, "\\%c", ch);
        else if (ch < 32 || ch >= 127)
            sb_printf(o, "\\%03o", ch);
        else
            sb_putc(o, (char)ch);
    }
    sb_putc(o, '"');
}

static void e__sig(Emit *E, const char *what, size_t n, int32_t (*value)(const Graph *, size_t),
                   const char *(*name)(const Graph *, size_t), int (*flags)(const Graph *, size_t))
{
    for (size_t i = 0; i < n; i++) {
        char tab[64];
        snprintf(tab, sizeof tab, "%s%zu_dims", what, i);
        e__dims_table(E, tab, value(E->g, i));
    }
    if (n == 0)
        return;
    sb_printf(E->o, "static const TngrtSigTensor %s_sig[] = {\n", what);
    for (size_t i = 0; i < n; i++) {
        const Val *val = &E->g->vals.v[value(E->g, i)];
        sb_puts(E->o, "    {");
        e__cstr(E->o, name(E->g, i));
        sb_printf(E->o, ", %s, %d, %s%zu_dims, %d},\n", e__dt(val->dtype), val->ndim, what, i, flags(E->g, i));
    }
    sb_puts(E->o, "};\n");
}

static int32_t in_value(const Graph *g, size_t i) { return g->inputs.v[i].value; }
static const char *in_name(const Graph *g, size_t i) { return g->inputs.v[i].name; }
static int in_flags(const Graph *g, size_t i)
{
    return g->inputs.v[i].final >= 0 && g->inputs.v[i].final != g->inputs.v[i].value ? 1 : 0;
}
static int32_t w_value(const Graph *g, size_t i) { return g->weights.v[i].value; }
static const char *w_name(const Graph *g, size_t i) { return g->weights.v[i].name; }
static int w_flags(const Graph *g, size_t i)
{
    const GraphWeight *w = &g->weights.v[i];
    return (w->final >= 0 && w->final != w->value ? 1 : 0) | (w->is_buffer ? 2 : 0);
}
static int32_t out_value(const Graph *g, size_t i) { return g->outputs.v[i].value; }
static const char *out_name(const Graph *g, size_t i) { return g->outputs.v[i].name; }
static int out_flags(const Graph *g, size_t i) { (void)g; (void)i; return 0; }

static int e__pad_ok(const Plan *p, size_t sym)
{
    for (size_t i = 0; i < p->rowindep.n; i++)
        if (p->rowindep.v[i].sym == (int)sym)
            return p->rowindep.v[i].independent;
    return 0;
}

static void e__desc(Emit *E)
{
    const Plan *p = E->p;
    const Graph *g = E->g;
    StrBuf *o = E->o;
    sb_puts(o, "\n/* ==== signature ==== */\n");
    e__sig(E, "in", g->inputs.n, in_value, in_name, in_flags);
    e__sig(E, "w", g->weights.n, w_value, w_name, w_flags);
    e__sig(E, "out", g->outputs.n, out_value, out_name, out_flags);
    if (g->syms.n) {
        sb_puts(o, "static const TngrtSym syms[] = {\n");
        for (size_t k = 0; k < g->syms.n; k++)
            sb_printf(o, "    {\"%s\", %d, %d, %d},\n", g->syms.v[k].name, g->syms.v[k].input, g->syms.v[k].dim,
                      e__pad_ok(p, k));
        sb_puts(o, "};\n");
    }
    sb_puts(o, "static const TngrtGear gears[] = {\n");
    for (size_t gi = 0; gi < p->gears.n; gi++) {
        const PlanMemory *m = &p->mem.v[gi];
        if (g->syms.n)
            sb_printf(o, "    {g%zu_symval, ", gi);
        else
            sb_puts(o, "    {NULL, ");
        if (m->dynamic)
            sb_printf(o, "-1, g%zu_layout, %d, ", gi, E->nslot);
        else
            sb_printf(o, "%lld, NULL, 0, ", (long long)m->arena_bytes);
        sb_printf(o, "g%zu_streams, g%zu_outputs},\n", gi, gi);
    }
    sb_puts(o, "};\nstatic const char *const stream_names[] = {");
    for (size_t s = 0; s < g->streams.n; s++) {
        sb_puts(o, s ? ", " : "");
        e__cstr(o, g->streams.v[s].tag ? g->streams.v[s].tag : "default");
    }
    sb_puts(o, "};\n\nstatic const TngrtBundleDesc tngc_template__desc = {\n");
    sb_printf(o, "    .name = \"%s\",\n    .entry = ", E->opt->name);
    e__cstr(o, g->name);
    sb_puts(o, ",\n    .script = ");
    e__cstr(o, E->opt->script);
    sb_printf(o, ",\n    .ninputs = %zu, .inputs = %s,\n", g->inputs.n, g->inputs.n ? "in_sig" : "NULL");
    sb_printf(o, "    .nweights = %zu, .weights = %s,\n", g->weights.n, g->weights.n ? "w_sig" : "NULL");
    sb_printf(o, "    .noutputs = %zu, .outputs = %s,\n", g->outputs.n, g->outputs.n ? "out_sig" : "NULL");
    sb_printf(o, "    .nsyms = %zu, .syms = %s,\n", g->syms.n, g->syms.n ? "syms" : "NULL");
    sb_printf(o, "    .ngears = %zu, .gears = gears,\n", p->gears.n);
    sb_printf(o, "    .nstreams = %zu, .stream_names = stream_names,\n", p->streams.n);
    sb_printf(o, "    .nevents = %zu,\n};\n", p->events.n);
}

/* ---- files ----------------------------------------------------------------- */

static int e__check_writeback(Emit *E)
{
    const Graph *g = E->g;
    for (size_t i = 0; i < g->inputs.n; i++) {
        int32_t f = g->inputs.v[i].final;
        if (f >= 0 && graph_storage_root(g, f) != g->inputs.v[i].value)
            e__error(E, NULL, "input '%s' is reassigned, not updated in place: the CPU target cannot write it back",
                     g->inputs.v[i].name);
    }
    for (size_t i = 0; i < g->weights.n; i++) {
        int32_t f = g->weights.v[i].final;
        if (f >= 0 && graph_storage_root(g, f) != g->weights.v[i].value)
            e__error(E, NULL, "buffer '%s' is reassigned, not updated in place: the CPU target cannot write it back",
                     g->weights.v[i].name);
    }
    return E->errors ? -1 : 0;
}

static void e__banner(const GenOptions *opt, StrBuf *o)
{
    sb_puts(o, "/* generated from ");
    for (const char *s = opt->script; *s; s++)
        sb_putc(o, (*s == '*' && s[1] == '/') ? '_' : *s);
    sb_printf(o, " by tngc %s, do not edit */", opt->version);
}

typedef struct SpliceCtx {
    Emit *E;
    StrBuf text;
} SpliceCtx;

static const char *splice_body(void *ctx, const char *key)
{
    SpliceCtx *sc = ctx;
    Emit *E = sc->E;
    sc->text.len = 0;
    if (sc->text.s)
        sc->text.s[0] = 0;
    if (!strcmp(key, "banner")) {
        e__banner(E->opt, &sc->text);
    } else if (!strcmp(key, "body")) {
        /* the body is emitted into E->o directly; see emit_cpu */
        sb_puts(&sc->text, "@BODY@");
    } else if (!strcmp(key, "io")) {
        const Graph *g = E->g;
        char *up = xstrdup(E->opt->name);
        for (char *c = up; *c; c++)
            if (*c >= 'a' && *c <= 'z')
                *c = (char)(*c - 'a' + 'A');
        sb_printf(&sc->text, "/* inputs, in the order run takes them:\n");
        for (size_t i = 0; i < g->inputs.n; i++) {
            sb_printf(&sc->text, " *   %zu  ", i);
            for (const char *s = g->inputs.v[i].name; *s; s++)
                sb_putc(&sc->text, (*s == '*' && s[1] == '/') ? '_' : *s);
            sb_puts(&sc->text, " ");
            graph_val_type_str(g, g->inputs.v[i].value, &sc->text);
            sb_puts(&sc->text, "\n");
        }
        sb_printf(&sc->text, " * outputs:\n");
        for (size_t i = 0; i < g->outputs.n; i++) {
            sb_printf(&sc->text, " *   %zu  %s ", i, g->outputs.v[i].name);
            graph_val_type_str(g, g->outputs.v[i].value, &sc->text);
            sb_puts(&sc->text, "\n");
        }
        sb_printf(&sc->text, " */\n#define %s_NUM_INPUTS %zu\n#define %s_NUM_OUTPUTS %zu\n#define %s_NUM_WEIGHTS %zu",
                  up, g->inputs.n, up, g->outputs.n, up, g->weights.n);
        free(up);
    } else if (!strcmp(key, "prologue")) {
        e__banner(E->opt, &sc->text);
        sb_printf(&sc->text, "\n#include \"%s.h\"\n#define TNGC_BUNDLE_DESC() %s_desc()", E->opt->name, E->opt->name);
    }
    return sc->text.s ? sc->text.s : "";
}

static GenFile *e__file(GenFiles *out, const char *name, const char *suffix, int is_tu)
{
    GenFile f = {0};
    size_t n = strlen(name) + strlen(suffix) + 1;
    f.name = xmalloc(n);
    snprintf(f.name, n, "%s%s", name, suffix);
    f.is_tu = is_tu;
    VEC_PUSH(*out, f);
    return &out->v[out->n - 1];
}

/* The body: gears, static kernels, descriptor. */
static void e__body(Emit *E, StrBuf *body)
{
    E->o = body;
    sb_puts(body, "#define TNGC_GENERATED 1\n");
    if (E->opt->user_ops && E->opt->user_ops[0]) {
        sb_puts(body, "\n/* user kernels (see the _kernels_user.c stub) */\n");
        for (int k = 0; k < OP__count; k++)
            if (E->user[k])
                sb_printf(body, "int %s_user_%s(const TngrtArg *outs, int nout, const TngrtArg *ins, int nin,\n"
                                "    const int64_t *attr, int nattr, const double *fattr, TngrtError *err);\n",
                          E->opt->name, op_info[k].name);
    }
    e__static_kernels(E);
    for (size_t gi = 0; gi < E->p->gears.n; gi++)
        e__gear(E, (int)gi);
    e__desc(E);
}

static void e__user_stub(Emit *E, StrBuf *o)
{
    e__banner(E->opt, o);
    sb_printf(o, "\n/*\n * The kernels of %s that you supply: implement each function below (keep its\n"
                 " * exact signature; tngc checks it with libclang) in a file of your own and pass\n"
                 " * it to tngc build with --kernels FILE.c.\n *\n"
                 " * outs[0..nout) and ins[0..nin) are dense C-order operands (an absent optional\n"
                 " * input has ndim -1 and data NULL); attr and fattr are the op's int and float\n"
                 " * attributes (frontend/graph.h documents them per op). Return 0, or -1 with a\n"
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

static void e__init(Emit *E, const Plan *p, const GenOptions *opt, DiagList *diags)
{
    memset(E, 0, sizeof *E);
    E->p = p;
    E->g = p->g;
    E->opt = opt;
    E->diags = diags;
    size_t nv = p->g->vals.n + 1;
    E->slot = xmalloc(nv * sizeof *E->slot);
    E->input_of = xmalloc(nv * sizeof *E->input_of);
    E->weight_of = xmalloc(nv * sizeof *E->weight_of);
    for (size_t v = 0; v < nv; v++)
        E->slot[v] = E->input_of[v] = E->weight_of[v] = -1;
    for (size_t i = 0; i < p->g->inputs.n; i++)
        E->input_of[p->g->inputs.v[i].value] = (int32_t)i;
    for (size_t i = 0; i < p->g->weights.n; i++)
        E->weight_of[p->g->weights.v[i].value] = (int32_t)i;
    for (const char *const *u = opt->user_ops; u && *u; u++)
        for (int k = 0; k < OP__count; k++)
            if (!strcmp(op_info[k].name, *u) && !(op_info[k].flags & (OPF_SOURCE | OPF_ALIAS)))
                E->user[k] = 1;
}

static void e__fini(Emit *E)
{
    free(E->slot);
    free(E->input_of);
    free(E->weight_of);
}

int emit_user_ops(const Plan *p, const GenOptions *opt, NameList *names)
{
    Emit E;
    e__init(&E, p, opt, NULL);
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
    e__fini(&E);
    return n;
}

int emit_cpu(const Plan *p, const GenOptions *opt, GenFiles *out, DiagList *diags)
{
    Emit E;
    e__init(&E, p, opt, diags);
    if (e__check_writeback(&E) != 0) {
        e__fini(&E);
        return -1;
    }
    SpliceCtx sc = {&E, {0}};
    const char *name = opt->name;

    GenFile *h = e__file(out, name, ".h", 0);
    template_expand(template_text("tngc_template.h"), name, splice_body, &sc, &h->text);

    /* <name>.c: the template with the body spliced in; #line needs the
     * final line numbers, so the body is emitted in place. */
    GenFile *c = e__file(out, name, ".c", 1);
    StrBuf whole = {0};
    template_expand(template_text("bundle.c"), name, splice_body, &sc, &whole);
    char *mark = strstr(whole.s, "@BODY@");
    size_t head = (size_t)(mark - whole.s);
    sb_putn(&c->text, whole.s, head);
    E.cfile = c->name;
    E.nl_pos = 0;
    E.nl = 0;
    e__body(&E, &c->text);
    /* the body's generated identifiers use the template's names */
    StrBuf fixed = {0};
    template_expand(c->text.s + head, name, NULL, NULL, &fixed);
    c->text.len = head;
    sb_putn(&c->text, fixed.s, fixed.len);
    E.nl_pos = E.nl = 0;
    if (opt->line_directives) {
        E.o = &c->text;
        e__line_back(&E);
    }
    sb_puts(&c->text, mark + strlen("@BODY@"));
    sb_free(&fixed);
    sb_free(&whole);

    GenFile *l = e__file(out, name, "_launcher.c", 0);
    template_expand(template_text("launcher.c"), name, splice_body, &sc, &l->text);

    if (opt->user_ops && opt->user_ops[0]) {
        int any = 0;
        for (int k = 0; k < OP__count; k++)
            any |= E.user[k];
        if (any) {
            GenFile *u = e__file(out, name, "_kernels_user.c", 0);
            e__user_stub(&E, &u->text);
        }
    }
    sb_free(&sc.text);
    e__fini(&E);
    return E.errors ? -1 : 0;
}

void genfiles_free(GenFiles *self)
{
    for (size_t i = 0; i < self->n; i++) {
        free(self->v[i].name);
        sb_free(&self->v[i].text);
    }
    VEC_FREE(*self);
}
