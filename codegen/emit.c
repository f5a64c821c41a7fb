/*
 * emit.c - the parts of code generation every target shares (emit.h):
 * operands as C expressions of the plan (dims, shapes, pointers into the
 * arena), #line bookkeeping, the per-gear layout and outputs functions,
 * the signature tables and descriptor, and the template splices.
 *
 * The text these functions write is the CPU target's, unchanged since it
 * was first written (tests/golden/gen holds it); the ACL target writes the
 * same text where it means the same thing.
 */
#include "emit.h"

#include <math.h>
#include <string.h>

static const char *const dtype_enum[] = {
    "TNGRT_F32",
#define X(e, name, size) "TNGRT_" #e,
    DTYPES(X)
#undef X
};

const char *emit_dtype_enum(DType t)
{
    return t > DT_UNKNOWN && t < DT__count ? dtype_enum[t] : "TNGRT_F32";
}

/* ---- state ------------------------------------------------------------------ */

void emit_init(Emit *E, const Plan *p, const GenOptions *opt, DiagList *diags)
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

GenOptions emit_options(const GenOptions *opt, StrBuf *name)
{
    GenOptions o = *opt;
    name->len = 0;
    cesc_ident(name, opt->name);
    o.name = name->s;
    return o;
}

void emit_fini(Emit *E)
{
    free(E->slot);
    free(E->input_of);
    free(E->weight_of);
}

/* ---- text ------------------------------------------------------------------- */

void emit_banner(const GenOptions *opt, StrBuf *o)
{
    sb_puts(o, "/* generated from ");
    cesc_comment(o, opt->script);
    sb_puts(o, " by tngc ");
    cesc_comment(o, opt->version);
    sb_puts(o, ", do not edit */");
}

/* The current line number of E->o (1-based line of the next char). */
static size_t emit__line(Emit *E)
{
    for (; E->nl_pos < E->o->len; E->nl_pos++)
        E->nl += E->o->s[E->nl_pos] == '\n';
    return E->nl + 1;
}

void emit_line_script(Emit *E, uint32_t line)
{
    if (E->opt->line_directives && line > 0) {
        sb_printf(E->o, "#line %u ", line);
        cesc_string(E->o, E->opt->script);
        sb_puts(E->o, "\n");
    }
}

void emit_line_op(Emit *E, const Op *op)
{
    if (!op->file) {
        emit_line_script(E, op->line);
    } else if (E->opt->line_directives && op->line > 0) {
        sb_printf(E->o, "#line %u ", op->line);
        cesc_string(E->o, op->file);
        sb_puts(E->o, "\n");
    }
}

void emit_line_back(Emit *E)
{
    if (E->opt->line_directives) {
        size_t n = emit__line(E);
        sb_printf(E->o, "#line %zu ", n + 1);
        cesc_string(E->o, E->cfile);
        sb_putc(E->o, '\n');
    }
}

void emit_double(Emit *E, double x)
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

const char *emit_i64(char *buf, int64_t x)
{
    if (x == INT64_MIN)
        snprintf(buf, EMIT_I64_LEN, "(%lldLL - 1)", (long long)(x + 1));
    else
        snprintf(buf, EMIT_I64_LEN, "%lld", (long long)x);
    return buf;
}

/* ---- argument tokens ----------------------------------------------------------- */

int emit_token_next(const char **at, EmitToken *t)
{
    const char *a = *at;
    while (*a == ' ')
        a++;
    if (!*a)
        return 0;
    size_t n = strcspn(a, " ");
    t->s = a;
    t->n = n;
    t->k = n >= 2 && a[1] >= '0' && a[1] <= '9' ? a[1] - '0' : -1;
    *at = a + n;
    return 1;
}

int emit_token_is(const EmitToken *t, const char *name)
{
    return strlen(name) == t->n && !strncmp(t->s, name, t->n);
}

int emit_token_count(const char *spec)
{
    EmitToken t;
    int n = 0;
    while (emit_token_next(&spec, &t))
        n++;
    return n;
}

/* The tokens both targets read the same way; 0 when t is not one. */
static int emit__shared_token(Emit *E, const Op *op, const EmitToken *t)
{
    if (t->s[0] == '=') {
        sb_putn(E->o, t->s + 1, t->n - 1);
    } else if (t->s[0] == 'a' && t->k >= 0 && t->n == 2) {
        sb_puts(E->o, EMIT_I64(op->attr[t->k]));
    } else if (t->s[0] == 'F' && t->k >= 0 && t->k < 2 && t->n == 2) {
        emit_double(E, op->fattr[t->k]);
    } else if (t->s[0] == 'd' && t->k >= 0 && t->n == 2) {   /* a DimId attribute's value */
        emit_dim(E, (DimId)op->attr[t->k]);
    } else {
        return 0;
    }
    return 1;
}

void emit_args(Emit *E, const Op *op, const char *spec, int lead, EmitTokenFn target, void *ctx)
{
    EmitToken t;
    for (int i = 0; emit_token_next(&spec, &t); i++) {
        if (i || lead)
            sb_puts(E->o, ", ");
        if (!emit__shared_token(E, op, &t) && !target(E, op, &t, ctx))
            TNGC_BUG("unknown argument token '%.*s' in '%s'", (int)t.n, t.s, spec);
    }
}

/* ---- operands ---------------------------------------------------------------- */

/* Dims the gear leaves to run time are computed by the checked helpers of
 * templates/bundle.c (tngc__add, ...): an overflow gives TNGC_DIM_BAD,
 * which the gear's layout function refuses before any kernel runs. */
void emit_dim(Emit *E, DimId d)
{
    int64_t c;
    int rc = graph_dim_eval(E->g, d, E->symval, &c);
    if (rc == 0) {
        sb_puts(E->o, EMIT_I64(c));
        return;
    }
    if (rc == -2)
        TNGC_BUG("gear %d: a dim the planner accepted overflows", E->gear);
    const DimExpr *x = &E->g->dims.v[d];
    static const char *const fn[] = {[DIM_ADD] = "tngc__add", [DIM_SUB] = "tngc__sub", [DIM_MUL] = "tngc__mul",
                                     [DIM_DIV] = "tngc__floordiv", [DIM_MIN] = "tngc__min",
                                     [DIM_MAX] = "tngc__max"};
    switch (x->kind) {
    case DIM_CONST:
        sb_puts(E->o, EMIT_I64(x->c));
        break;
    case DIM_SYM:
        sb_printf(E->o, "S[%s]", EMIT_I64(x->c));
        break;
    case DIM_ADD: case DIM_SUB: case DIM_MUL: case DIM_DIV: case DIM_MIN: case DIM_MAX:
        sb_printf(E->o, "%s(", fn[x->kind]);
        emit_dim(E, x->a);
        sb_puts(E->o, ", ");
        emit_dim(E, x->b);
        sb_putc(E->o, ')');
        break;
    }
}

void emit_shape(Emit *E, int32_t v, int insert_at)
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
            emit_dim(E, val->dims[k++]);
    }
    sb_putc(E->o, '}');
}

void emit_ptr(Emit *E, int32_t v, int pos)
{
    if (E->kptr) {
        sb_printf(E->o, "p[%d]", pos);
        return;
    }
    int32_t r = graph_storage_root(E->g, v);
    if (plan_const_storage(E->p, r))   /* the constant block, computed at create */
        sb_printf(E->o, "(%sK + %s)", E->gpre ? E->gpre : "tngc__", EMIT_I64(E->p->const_off[r]));
    else if (E->input_of[r] >= 0)
        sb_printf(E->o, "c->in[%d]", E->input_of[r]);
    else if (E->weight_of[r] >= 0)
        sb_printf(E->o, "c->w[%d]", E->weight_of[r]);
    else if (E->dyn)
        sb_printf(E->o, "(A + c->off[%d])", E->slot[r]);
    else
        sb_printf(E->o, "(A + %s)", EMIT_I64(E->p->mem.v[E->gear].offset[v]));
}

int emit_has_kernel(const Emit *E, int32_t op_id)
{
    return !(op_info[E->g->ops.v[op_id].kind].flags & (OPF_SOURCE | OPF_ALIAS));
}

int emit_static_kernel(const Emit *E, int32_t op_id)
{
    const Plan *p = E->p;
    if (!p->g->cfg.static_kernel || !p->g->cfg.mode || strcmp(p->g->cfg.mode, "reduce-overhead") ||
        E->user[p->g->ops.v[op_id].kind])
        return -1;
    int k = p->kernel_of[E->gear][op_id];
    return k >= 0 && p->kernels.v[k].selected ? k : -1;
}

/* ---- per gear ------------------------------------------------------------------ */

const char *emit_linkage(const Emit *E)
{
    return E->gpre ? "" : "static ";
}

void emit_gear_sym(Emit *E, StrBuf *o, int gi, const char *what)
{
    sb_printf(o, "%sg%d_%s", E->gpre ? E->gpre : "", gi, what);
}

int emit_runtime_dims(const Plan *p, int gi)
{
    for (size_t k = 0; k < p->g->syms.n; k++)
        if (p->gears.v[gi].symval[k] == INT64_MIN)
            return 1;
    return 0;
}

void emit_gear_begin(Emit *E, int gi)
{
    E->gear = gi;
    E->symval = E->p->gears.v[gi].symval;
    E->dyn = E->p->mem.v[gi].dynamic;
    E->rtdims = emit_runtime_dims(E->p, gi);
}

/* 1 when every dim of value v is a constant of the gear. */
static int emit__static_shape(const Emit *E, const Val *val)
{
    int64_t c;
    for (int d = 0; d < val->ndim; d++)
        if (graph_dim_eval(E->g, val->dims[d], E->symval, &c) != 0)
            return 0;
    return 1;
}

/* The slot of every value a dynamic gear places (E->slot, E->nslot: the
 * same in every gear). */
static void emit__slots(Emit *E)
{
    const Graph *g = E->g;
    E->nslot = 0;
    for (size_t v = 0; v < g->vals.n; v++) {
        unsigned fl = op_info[g->ops.v[g->vals.v[v].op].kind].flags;
        E->slot[v] = fl & (OPF_SOURCE | OPF_ALIAS | OPF_INPLACE) || plan_is_const(E->p, g->vals.v[v].op) ? -1
                                                                                                         : E->nslot++;
    }
}

/* gN_layout checks the shape of every value of the gear that has a dim
 * known at run time only (a view's and an input's too) against
 * TNGRT_MAX_BYTES with tngc__size, and in dynamic gears places each
 * buffer (tngc__place bounds the arena the same way); the planner checked
 * the constant shapes. It runs before any kernel of the gear, and its -1
 * makes the run return TNGRT_BAD_INPUT. */
void emit_layout(Emit *E)
{
    const Graph *g = E->g;
    emit__slots(E);
    sb_printf(E->o, "\n%sint ", emit_linkage(E));
    emit_gear_sym(E, E->o, E->gear, "layout");
    sb_puts(E->o, "(const int64_t *S, int64_t *off, int64_t *bytes)\n{\n"
                  "    int64_t at = 0, n;\n    (void)S;\n");
    if (!E->dyn)
        sb_puts(E->o, "    (void)off;\n    (void)at;\n");
    for (size_t v = 0; v < g->vals.n; v++) {
        const Val *val = &g->vals.v[v];
        int placed = E->dyn && E->slot[v] >= 0;
        if (!placed && emit__static_shape(E, val))
            continue;
        sb_printf(E->o, "    if (tngc__size(%d, ", val->ndim);
        emit_shape(E, (int32_t)v, -1);
        sb_printf(E->o, ", %d, &n))\n        return -1;\n", dtype_size(val->dtype));
        if (placed)
            sb_printf(E->o, "    off[%d] = at;\n    if (tngc__place(&at, n))\n        return -1;\n", E->slot[v]);
    }
    if (E->dyn)
        sb_puts(E->o, "    *bytes = at;\n    return 0;\n}\n");
    else
        sb_printf(E->o, "    *bytes = %s;\n    return 0;\n}\n", EMIT_I64(E->p->mem.v[E->gear].arena_bytes));
}

void emit_outputs(Emit *E)
{
    const Graph *g = E->g;
    sb_printf(E->o, "\n%svoid ", emit_linkage(E));
    emit_gear_sym(E, E->o, E->gear, "outputs");
    sb_puts(E->o, "(const TngrtRunCtx *c, TngrtTensor *outs)\n{\n");
    sb_puts(E->o, "    unsigned char *A = c->arena;\n    const int64_t *S = c->sym;\n    (void)A;\n    (void)S;\n");
    for (size_t i = 0; i < g->outputs.n; i++) {
        int32_t v = g->outputs.v[i].value;
        sb_printf(E->o, "    tngc__out(&outs[%zu], ", i);
        emit_ptr(E, v, 0);
        sb_printf(E->o, ", %s, %d, ", emit_dtype_enum(g->vals.v[v].dtype), g->vals.v[v].ndim);
        emit_shape(E, v, -1);
        sb_puts(E->o, ");\n");
    }
    sb_puts(E->o, "}\n");
}

int emit_stream_idle(const Plan *p, size_t s)
{
    return s > 0 && s < p->streams.n && p->streams.v[s].nunits == 0;
}

void emit_gear_tables(Emit *E, const char *stream_fn)
{
    const Plan *p = E->p;
    int gi = E->gear;
    sb_printf(E->o, "\n%sconst TngrtStreamFn ", emit_linkage(E));
    emit_gear_sym(E, E->o, gi, "streams");
    sb_puts(E->o, "[] = {");
    for (size_t s = 0; s < p->streams.n; s++) {
        if (stream_fn)
            sb_printf(E->o, "%s%s", s ? ", " : "", stream_fn);
        else if (emit_stream_idle(p, s))
            sb_printf(E->o, "%sNULL", s ? ", " : "");  /* no work: no hand-off (tngrt_exec_run) */
        else
            sb_printf(E->o, "%s%sg%d_s%zu", s ? ", " : "", E->opt->fn_prefix ? E->opt->fn_prefix : "", gi, s);
    }
    sb_puts(E->o, "};\n");
    if (E->g->syms.n) {
        sb_printf(E->o, "%sconst int64_t ", emit_linkage(E));
        emit_gear_sym(E, E->o, gi, "symval");
        sb_puts(E->o, "[] = {");
        for (size_t k = 0; k < E->g->syms.n; k++) {
            if (k)
                sb_puts(E->o, ", ");
            sb_puts(E->o, EMIT_I64(E->symval[k]));   /* INT64_MIN: set at run time */
        }
        sb_puts(E->o, "};\n");
    }
}

/* ---- signature and descriptor --------------------------------------------- */

static void emit__dims_table(Emit *E, const char *tab, int32_t v)
{
    const Val *val = &E->g->vals.v[v];
    sb_printf(E->o, "static const TngrtDim %s[] = {", tab);
    for (int d = 0; d < val->ndim; d++) {
        const DimExpr *x = &E->g->dims.v[val->dims[d]];
        if (d)
            sb_puts(E->o, ", ");
        if (x->kind == DIM_CONST)
            sb_printf(E->o, "{-1, %s}", EMIT_I64(x->c));
        else if (x->kind == DIM_SYM)
            sb_printf(E->o, "{%s, 0}", EMIT_I64(x->c));
        else
            sb_puts(E->o, "{-2, 0}");
    }
    sb_puts(E->o, val->ndim ? "};\n" : "{-1, 0}};\n");
}

static void emit__sig(Emit *E, const char *what, size_t n, int32_t (*value)(const Graph *, size_t),
                      const char *(*name)(const Graph *, size_t), int (*flags)(const Graph *, size_t))
{
    for (size_t i = 0; i < n; i++) {
        char tab[64];
        snprintf(tab, sizeof tab, "%s%zu_dims", what, i);
        emit__dims_table(E, tab, value(E->g, i));
    }
    if (n == 0)
        return;
    sb_printf(E->o, "static const TngrtSigTensor %s_sig[] = {\n", what);
    for (size_t i = 0; i < n; i++) {
        const Val *val = &E->g->vals.v[value(E->g, i)];
        sb_puts(E->o, "    {");
        cesc_string(E->o, name(E->g, i));
        sb_printf(E->o, ", %s, %d, %s%zu_dims, %d},\n", emit_dtype_enum(val->dtype), val->ndim, what, i,
                  flags(E->g, i));
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
/* TNGRT_SIG_PACK_LINEAR (4) when some Linear reads the weight itself as
 * its W, TNGRT_SIG_PACK_Q8 (32) when some npu_weight_quant_batchmatmul
 * reads it as its int8 weight (emit_cpu.c calls the kernel's _packed form
 * there). */
static int w_pack_flag(const Graph *g, int32_t v)
{
    int f = 0;
    for (size_t o = 0; o < g->ops.n; o++) {
        const Op *op = &g->ops.v[o];
        if (op->nin >= 2 && op->in[1] == v)
            f |= op->kind == OP_LINEAR ? 4 : op->kind == OP_WEIGHT_QUANT_MATMUL ? 32 : 0;
    }
    return f;
}
static int w_flags(const Graph *g, size_t i)
{
    const GraphWeight *w = &g->weights.v[i];
    return (w->final >= 0 && w->final != w->value ? 1 : 0) | (w->is_buffer ? 2 : 0) |
           w_pack_flag(g, w->value) | (w->share_entry ? 8 : 0) | (w->zeros ? 16 : 0);
}
static int32_t out_value(const Graph *g, size_t i) { return g->outputs.v[i].value; }
static const char *out_name(const Graph *g, size_t i) { return g->outputs.v[i].name; }
static int out_flags(const Graph *g, size_t i) { (void)g; (void)i; return 0; }

static int emit__pad_ok(const Plan *p, size_t sym)
{
    for (size_t i = 0; i < p->rowindep.n; i++)
        if (p->rowindep.v[i].sym == (int)sym)
            return p->rowindep.v[i].independent;
    return 0;
}

void emit_desc(Emit *E)
{
    const Plan *p = E->p;
    const Graph *g = E->g;
    StrBuf *o = E->o;
    sb_puts(o, "\n/* ==== signature ==== */\n");
    emit__sig(E, "in", g->inputs.n, in_value, in_name, in_flags);
    emit__sig(E, "w", g->weights.n, w_value, w_name, w_flags);
    emit__sig(E, "out", g->outputs.n, out_value, out_name, out_flags);
    if (g->syms.n) {
        sb_puts(o, "static const TngrtSym syms[] = {\n");
        for (size_t k = 0; k < g->syms.n; k++) {
            sb_puts(o, "    {");
            cesc_string(o, g->syms.v[k].name);
            sb_printf(o, ", %d, %d, %d},\n", g->syms.v[k].input, g->syms.v[k].dim, emit__pad_ok(p, k));
        }
        sb_puts(o, "};\n");
    }
    emit__slots(E);   /* E->nslot: a split bundle's layouts are in other files */
    sb_puts(o, "static const TngrtGear gears[] = {\n");
    for (size_t gi = 0; gi < p->gears.n; gi++) {
        const PlanMemory *m = &p->mem.v[gi];
        sb_puts(o, "    {");
        if (g->syms.n)
            emit_gear_sym(E, o, (int)gi, "symval");
        else
            sb_puts(o, "NULL");
        if (m->dynamic || emit_runtime_dims(p, (int)gi)) {
            sb_puts(o, ", -1, ");
            emit_gear_sym(E, o, (int)gi, "layout");
            sb_printf(o, ", %d, ", m->dynamic ? E->nslot : 0);
        } else {
            sb_printf(o, ", %s, NULL, 0, ", EMIT_I64(m->arena_bytes));
        }
        emit_gear_sym(E, o, (int)gi, "streams");
        sb_puts(o, ", ");
        emit_gear_sym(E, o, (int)gi, "outputs");
        sb_puts(o, "},\n");
    }
    if (g->weight_aliases.n) {
        sb_puts(o, "};\nstatic const TngrtWeightAlias w_alias[] = {\n");
        for (size_t k = 0; k < g->weight_aliases.n; k++) {
            sb_puts(o, "    {");
            cesc_string(o, g->weight_aliases.v[k].name);
            sb_printf(o, ", %d},  /* another key of ", (int)g->weight_aliases.v[k].weight);
            cesc_comment(o, g->weights.v[g->weight_aliases.v[k].weight].name);
            sb_puts(o, " */\n");
        }
    }
    size_t nshared = 0;
    for (size_t k = 0; k < g->weights.n; k++)
        if (g->weights.v[k].share_entry) {
            sb_puts(o, nshared++ ? "" : "};\nstatic const TngrtStateShare w_shared[] = {\n");
            sb_printf(o, "    {%zu, ", k);
            cesc_string(o, g->weights.v[k].share_entry);
            sb_puts(o, ", ");
            cesc_string(o, g->weights.v[k].share_name);
            sb_puts(o, "},\n");
        }
    if (g->unread_keys.n) {
        sb_puts(o, "};\nstatic const char *const unread_keys[] = {\n");
        for (size_t k = 0; k < g->unread_keys.n; k++) {
            sb_puts(o, "    ");
            cesc_string(o, g->unread_keys.v[k]);
            sb_puts(o, ",\n");
        }
    }
    sb_puts(o, "};\nstatic const char *const stream_names[] = {");
    for (size_t s = 0; s < g->streams.n; s++) {
        sb_puts(o, s ? ", " : "");
        cesc_string(o, g->streams.v[s].tag ? g->streams.v[s].tag : "default");
    }
    sb_printf(o, "};\n\nstatic const TngrtBundleDesc %s__desc = {\n    .name = ", E->opt->name);
    cesc_string(o, E->opt->name);
    sb_puts(o, ",\n    .entry = ");
    cesc_string(o, g->name);
    sb_puts(o, ",\n    .script = ");
    cesc_string(o, E->opt->script);
    sb_printf(o, ",\n    .ninputs = %zu, .inputs = %s,\n", g->inputs.n, g->inputs.n ? "in_sig" : "NULL");
    sb_printf(o, "    .nweights = %zu, .weights = %s,\n", g->weights.n, g->weights.n ? "w_sig" : "NULL");
    sb_printf(o, "    .noutputs = %zu, .outputs = %s,\n", g->outputs.n, g->outputs.n ? "out_sig" : "NULL");
    sb_printf(o, "    .nsyms = %zu, .syms = %s,\n", g->syms.n, g->syms.n ? "syms" : "NULL");
    sb_printf(o, "    .ngears = %zu, .gears = gears,\n", p->gears.n);
    sb_printf(o, "    .nstreams = %zu, .stream_names = stream_names,\n", p->streams.n);
    if (g->weight_aliases.n)
        sb_printf(o, "    .naliases = %zu, .aliases = w_alias,\n", g->weight_aliases.n);
    if (g->unread_keys.n)
        sb_printf(o, "    .nunread = %zu, .unread = unread_keys,\n", g->unread_keys.n);
    if (nshared)
        sb_printf(o, "    .nshared = %zu, .shared = w_shared,\n", nshared);
    sb_printf(o, "    .nevents = %zu,\n};\n", p->events.n);
}

/* ---- files ----------------------------------------------------------------- */

/* An error when value v (an input or buffer, what) ends as final, a value
 * with storage of its own. */
static void emit__writeback(Emit *E, const char *what, const char *name, int32_t v, int32_t final,
                            const char *target)
{
    if (final < 0 || graph_storage_root(E->g, final) == v)
        return;
    diag_at(E->diags, E->g->line, E->g->col, RULE_TNG203,
            "%s '%s' is reassigned, not updated in place: the %s target cannot write it back", what, name, target);
    E->errors++;
}

int emit_check_writeback(Emit *E, const char *target)
{
    const Graph *g = E->g;
    for (size_t i = 0; i < g->inputs.n; i++)
        emit__writeback(E, "input", g->inputs.v[i].name, g->inputs.v[i].value, g->inputs.v[i].final, target);
    for (size_t i = 0; i < g->weights.n; i++)
        emit__writeback(E, "buffer", g->weights.v[i].name, g->weights.v[i].value, g->weights.v[i].final, target);
    return E->errors ? -1 : 0;
}

GenFile *emit_file(GenFiles *out, const char *name, const char *suffix, int is_tu)
{
    GenFile f = {0};
    size_t n = strlen(name) + strlen(suffix) + 1;
    f.name = xmalloc(n);
    snprintf(f.name, n, "%s%s", name, suffix);
    f.is_tu = is_tu;
    VEC_PUSH(*out, f);
    return &out->v[out->n - 1];
}

const char *emit_splice(void *ctx, const char *key)
{
    EmitSplice *sc = ctx;
    Emit *E = sc->E;
    sc->text.len = 0;
    if (sc->text.s)
        sc->text.s[0] = 0;
    if (!strcmp(key, "banner")) {
        emit_banner(E->opt, &sc->text);
    } else if (!strcmp(key, "body")) {
        /* the body is emitted into E->o directly; see emit_bundle_c */
        sb_puts(&sc->text, EMIT_BODY_MARK);
    } else if (!strcmp(key, "io")) {
        const Graph *g = E->g;
        char *up = xstrdup(E->opt->name);
        for (char *c = up; *c; c++)
            if (*c >= 'a' && *c <= 'z')
                *c = (char)(*c - 'a' + 'A');
        sb_printf(&sc->text, "/* inputs, in the order run takes them:\n");
        for (size_t i = 0; i < g->inputs.n; i++) {
            sb_printf(&sc->text, " *   %zu  ", i);
            cesc_comment(&sc->text, g->inputs.v[i].name);
            sb_puts(&sc->text, " ");
            graph_val_type_str(g, g->inputs.v[i].value, &sc->text);
            sb_puts(&sc->text, "\n");
        }
        sb_printf(&sc->text, " * outputs:\n");
        for (size_t i = 0; i < g->outputs.n; i++) {
            sb_printf(&sc->text, " *   %zu  ", i);
            cesc_comment(&sc->text, g->outputs.v[i].name);
            sb_puts(&sc->text, " ");
            graph_val_type_str(g, g->outputs.v[i].value, &sc->text);
            sb_puts(&sc->text, "\n");
        }
        sb_printf(&sc->text, " */\n#define %s_NUM_INPUTS %zu\n#define %s_NUM_OUTPUTS %zu\n#define %s_NUM_WEIGHTS %zu",
                  up, g->inputs.n, up, g->outputs.n, up, g->weights.n);
        free(up);
    } else if (!strcmp(key, "prologue")) {
        emit_banner(E->opt, &sc->text);
        sb_printf(&sc->text, "\n#include \"%s.h\"\n#define TNGC_BUNDLE_DESC() %s_desc()", E->opt->name, E->opt->name);
        if (E->opt->world_size > 1)   /* MPI before the descriptor picks the rank's plan (emit_dist.c) */
            sb_printf(&sc->text, "\n#include \"tngrt_mpi.h\"\n"
                      "#define TNGC_DIST_BEGIN(argc, argv, prog) tngrt_mpi_begin((argc), (argv), %d, (prog))\n"
                      "#define TNGC_DIST_END(rc, prog) tngrt_mpi_end((rc), (prog))", E->opt->world_size);
    }
    return sc->text.s ? sc->text.s : "";
}

void genfiles_free(GenFiles *self)
{
    for (size_t i = 0; i < self->n; i++) {
        free(self->v[i].name);
        sb_free(&self->v[i].text);
    }
    VEC_FREE(*self);
}

void emit_bundle_c(Emit *E, const char *tpl, const char *(*splice)(void *ctx, const char *key),
                   void (*body)(Emit *E, StrBuf *o), GenFiles *out)
{
    const char *name = E->opt->name;
    EmitSplice sc = {E, {0}};
    /* <name>.c: the template with the body spliced in; #line needs the
     * final line numbers, so the body is emitted in place. */
    GenFile *c = emit_file(out, name, ".c", 1);
    StrBuf whole = {0};
    template_expand(template_text(tpl), name, splice, &sc, &whole);
    char *mark = strstr(whole.s, EMIT_BODY_MARK);
    if (!mark || strstr(mark + 1, EMIT_BODY_MARK))
        TNGC_BUG("template %s: not one body marker", tpl);
    size_t head = (size_t)(mark - whole.s);
    sb_putn(&c->text, whole.s, head);
    E->cfile = c->name;
    E->nl_pos = 0;
    E->nl = 0;
    /* the body names the bundle itself: script text in it is never
     * rewritten by the template's name replacement */
    body(E, &c->text);
    E->nl_pos = E->nl = 0;
    if (E->opt->line_directives) {
        E->o = &c->text;
        emit_line_back(E);
    }
    sb_puts(&c->text, mark + strlen(EMIT_BODY_MARK));
    sb_free(&whole);
    sb_free(&sc.text);
}

/* ---- the fusion column of ops.def ---- */

#define FUSE_NO FUSE_HOW_NO, NULL, NULL, FUSE_ARGS_NONE, NULL
#define FUSE_UNARY(u, where) FUSE_UNARY_ARGS(u, where, NONE)
#define FUSE_UNARY_ARGS(u, where, args) \
    FUSE_HOW_UNARY, "TNGRT_UN_" #u, FUSE__##where("TNGRT_UN_" #u), FUSE_ARGS_##args, \
    FUSE__TANH_##args("TNGRT_UN_" #u "_TANH")
#define FUSE_BINARY(b, where) \
    FUSE_HOW_BINARY, "TNGRT_BIN_" #b, FUSE__##where("TNGRT_EPI_" #b), FUSE_ARGS_NONE, NULL
#define FUSE_BINARY_ALPHA(b, where) \
    FUSE_HOW_BINARY_ALPHA, "TNGRT_BIN_" #b, FUSE__##where("TNGRT_EPI_" #b), FUSE_ARGS_NONE, NULL
#define FUSE_POW FUSE_HOW_POW, NULL, NULL, FUSE_ARGS_NONE, NULL
#define FUSE__LOOPS(name) NULL
#define FUSE__GEMM(name) name
#define FUSE__TANH_NONE(name) NULL
#define FUSE__TANH_F0(name) NULL
#define FUSE__TANH_F0_F1(name) NULL
#define FUSE__TANH_APPROX(name) name
#define CPU(fn, args) 1
#define CPU_NO_SCALAR 0
static const FuseRow emit_fuse_rows[OP__count] = {
#define OP(e, name, flags, in_min, in_max, in_opt, attr_min, attr_max, rule, dtype_rule, rowrule, printer, fusion, op_type, view, layout, swap, acl_form, cpu, cpu_scalar, acl, acl_ts, acl_st, attrs) \
    [OP_##e] = {fusion, cpu_scalar},
#include "../ir/ops.def"
#undef OP
};

const FuseRow *emit_fuse_row(OpKind kind)
{
    return &emit_fuse_rows[kind];
}

/* The end of a fallible call: "return -1;" inside a static kernel (shared
 * by ops on several lines), else "return tngc__fail(err, LINE);", which puts
 * the op's script line in front of the kernel's message. */
void emit_fail_return(Emit *E)
{
    if (E->kptr || E->line == 0) {
        sb_puts(E->o, "        return -1;\n");
    } else if (E->line_file) {   /* an op of a module the script imports: its file */
        sb_puts(E->o, "        return tngrt_error_at(err, ");
        cesc_string(E->o, E->line_file);
        sb_printf(E->o, ", %u);\n", E->line);
    } else {
        sb_printf(E->o, "        return tngc__fail(err, %u);\n", E->line);
    }
}
