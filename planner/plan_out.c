/*
 * plan_out.c - the printed forms of a Plan: the text dump that `tngc plan`
 * prints and golden tests diff, the JSON entry object of
 * `tngc plan --format json`, and a Graphviz DOT picture of the op graph.
 * docs/plan-format.md describes all three.
 *
 * Everything printed is deterministic: items in index order, no pointers,
 * no hash-table order, doubles in their shortest round-trip form. Ops are
 * named in the text and DOT forms by their first output value ("%4"),
 * units that are super-kernel segments by "seg N", events by "eN".
 *
 * One piece is shared with codegen/manifest.c: the named attributes of an
 * op (plan_op_attrs_json), so that the plan JSON and the static-kernel
 * manifests agree on attribute names and values.
 */
#include "plan.h"
#include "../frontend/diag/gear_rules.h"

#include <math.h>
#include <string.h>

/* ===================================================================== */
/* Small printers shared by the three forms                              */
/* ===================================================================== */

static const char *plan__str(const char *s) { return s ? s : ""; }

/* A path or name from the command line or the script in the text format:
 * control bytes and bytes that are not UTF-8 escaped, so that it can
 * neither end the line nor send terminal escapes. */
static void plan__text(StrBuf *out, const char *s)
{
    if (s)
        sb_put_printable(out, s, strlen(s));
}

static void plan__json_str(StrBuf *out, const char *s)
{
    if (s)
        sb_json_str(out, s, strlen(s));
    else
        sb_puts(out, "null");
}

/* A double in its shortest form that reads back exactly; integral values
 * get ".0" so they read as floats. Not finite: null in JSON. */
static void plan__double(StrBuf *out, double d, int json)
{
    if (isnan(d) || isinf(d)) {
        sb_puts(out, json ? "null" : isnan(d) ? "nan" : d > 0 ? "inf" : "-inf");
        return;
    }
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    sb_puts(out, buf);
    if (!strpbrk(buf, ".eEn"))
        sb_puts(out, ".0");
}

/* A scalar operand: an integer when it came from a Python int. */
static void plan__scalar(StrBuf *out, double d, int is_int, int json)
{
    if (is_int && d >= -9007199254740992.0 && d <= 9007199254740992.0 && d == floor(d))
        sb_printf(out, "%lld", (long long)d);
    else
        plan__double(out, d, json);
}

static int plan__is_ident(const char *s)
{
    if (!s || !*s)
        return 0;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

/* A user name in the text dump: bare when it is an identifier, else quoted. */
static void plan__name(StrBuf *out, const char *s)
{
    if (plan__is_ident(s))
        sb_puts(out, s);
    else
        plan__json_str(out, plan__str(s));
}

/* One dim: its value in the gear when symval binds it, else as text
 * ("s0", quoted in JSON). */
static void plan__dim(const Graph *g, DimId d, const int64_t *symval, StrBuf *out, int json)
{
    int64_t c;
    if (d < 0 || (size_t)d >= g->dims.n) {
        sb_printf(out, "%lld", (long long)d);
        return;
    }
    if ((symval && graph_dim_eval(g, d, symval, &c) == 0) || graph_dim_const_value(g, d, &c)) {
        sb_printf(out, "%lld", (long long)c);
        return;
    }
    StrBuf s = {0};
    graph_dim_str(g, d, &s);
    if (json)
        plan__json_str(out, plan__str(s.s));
    else
        sb_puts(out, plan__str(s.s));
    sb_free(&s);
}

/* "[2,s0]" (text) or [2,"s0"] (JSON). */
static void plan__dims(const Graph *g, const DimId *dims, size_t n, const int64_t *symval,
                       StrBuf *out, int json)
{
    sb_putc(out, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_putc(out, ',');
        plan__dim(g, dims[i], symval, out, json);
    }
    sb_putc(out, ']');
}

static void plan__shape(const Graph *g, int32_t v, const int64_t *symval, StrBuf *out, int json)
{
    const Val *val = &g->vals.v[v];
    plan__dims(g, val->dims, val->ndim, symval, out, json);
}

/* "f32[s0,2]", with the dims evaluated in a gear when symval is given. */
static void plan__type(const Graph *g, int32_t v, const int64_t *symval, StrBuf *out)
{
    sb_puts(out, dtype_short(g->vals.v[v].dtype));
    plan__shape(g, v, symval, out, 0);
}

/* An op by its first output value: "%4" ("op7" for an op without outputs). */
static void plan__op_ref(const Graph *g, int32_t op, StrBuf *out)
{
    if (op >= 0 && (size_t)op < g->ops.n && g->ops.v[op].nout > 0)
        sb_printf(out, "%%%d", (int)g->ops.v[op].out);
    else
        sb_printf(out, "op%d", (int)op);
}

/* A unit: its op ("%4") or its segment ("seg 0"). */
static void plan__unit_ref(const Plan *p, int32_t u, StrBuf *out)
{
    const PlanUnit *unit = &p->units.v[u];
    if (unit->op >= 0)
        plan__op_ref(p->g, unit->op, out);
    else
        sb_printf(out, "seg %d", unit->seg);
}

/* The op that stands for a unit at its start (first) or end (last). */
static int32_t plan__unit_op(const Plan *p, int32_t u, int last)
{
    const PlanUnit *unit = &p->units.v[u];
    if (unit->op >= 0 || unit->seg < 0 || (size_t)unit->seg >= p->segs.n)
        return unit->op;
    const PlanSegment *s = &p->segs.v[unit->seg];
    return s->nops ? s->ops[last ? s->nops - 1 : 0] : -1;
}

static const int64_t *plan__symval(const Plan *p, size_t gear)
{
    return gear < p->gears.n ? p->gears.v[gear].symval : NULL;
}

static const PlanMemory *plan__mem(const Plan *p, size_t gear)
{
    return gear < p->mem.n ? &p->mem.v[gear] : NULL;
}

static int plan__bound(int64_t v) { return v != INT64_MIN; }

/* ===================================================================== */
/* Op attributes by name                                                 */
/* ===================================================================== */

typedef enum PlanAttrKind {
    PA_INT,       /* i */
    PA_BOOL,      /* i */
    PA_FLOAT,     /* f; i = 1 when it was a Python int */
    PA_STR,       /* s */
    PA_INTS,      /* list[0..n) */
    PA_DIMS,      /* list[0..n) are DimIds */
    PA_END,       /* i, GRAPH_END printed as None / null */
} PlanAttrKind;

typedef struct PlanAttr {
    const char *name;
    PlanAttrKind kind;
    int64_t i;
    double f;
    const char *s;
    const int64_t *list;
    size_t n;
    int in_text;  /* 0: the text dump shows it another way, or it is the default */
} PlanAttr;

enum { PLAN_MAX_ATTRS = 16 };

typedef struct PlanAttrs {
    PlanAttr a[PLAN_MAX_ATTRS];
    int n;
} PlanAttrs;

static void attrs__add(PlanAttrs *l, const char *name, PlanAttrKind kind, int64_t i, double f)
{
    TNGC_ASSERT(l->n < PLAN_MAX_ATTRS);
    l->a[l->n++] = (PlanAttr){.name = name, .kind = kind, .i = i, .f = f, .in_text = 1};
}

static void attrs__str(PlanAttrs *l, const char *name, const char *s, int in_text)
{
    attrs__add(l, name, PA_STR, 0, 0);
    l->a[l->n - 1].s = s;
    l->a[l->n - 1].in_text = in_text;
}

static void attrs__list(PlanAttrs *l, const char *name, PlanAttrKind kind, const int64_t *v, size_t n)
{
    attrs__add(l, name, kind, 0, 0);
    l->a[l->n - 1].list = v;
    l->a[l->n - 1].n = n;
}

/* attr[i], or 0 when the op has fewer attributes. */
static int64_t plan__attr(const Op *op, uint32_t i) { return i < op->nattr ? op->attr[i] : 0; }

static int plan__is_binary(OpKind k) { return k == OP_ADD || k == OP_SUB || k == OP_MUL || k == OP_DIV; }

/* add/sub/mul/div: the scalar operand (the text shows it among the
 * operands) and alpha (shown in the text when it is not 1). */
static void attrs__binary(PlanAttrs *l, const Op *op)
{
    int64_t mode = plan__attr(op, 0);
    if (mode == 1 || mode == 2) {
        attrs__add(l, "scalar", PA_FLOAT, plan__attr(op, 1) == 1, op->fattr[0]);
        l->a[l->n - 1].in_text = 0;
        attrs__str(l, "scalar_side", mode == 1 ? "right" : "left", 0);
    }
    if (op->kind == OP_ADD || op->kind == OP_SUB) {
        attrs__add(l, "alpha", PA_FLOAT, 0, op->fattr[1]);
        l->a[l->n - 1].in_text = op->fattr[1] != 1.0;
    }
}

static void attrs__slice(PlanAttrs *l, const Op *op)
{
    attrs__add(l, "dim", PA_INT, plan__attr(op, 0), 0);
    attrs__add(l, "start", PA_INT, plan__attr(op, 1), 0);
    attrs__add(l, "end", PA_END, op->nattr > 2 ? op->attr[2] : GRAPH_END, 0);
    attrs__add(l, "step", PA_INT, op->nattr > 3 ? op->attr[3] : 1, 0);
}

static void attrs__reduce(PlanAttrs *l, const Op *op)
{
    attrs__list(l, "dim", PA_INTS, op->attr + 1, op->nattr > 1 ? op->nattr - 1 : 0);
    attrs__add(l, "keepdim", PA_BOOL, plan__attr(op, 0) != 0, 0);
}

static void attrs__dtype(PlanAttrs *l, const Op *op)
{
    if (op->dtype != DT_UNKNOWN)
        attrs__str(l, "dtype", dtype_name(op->dtype), 0);
}

static void attrs__none(PlanAttrs *l, const Op *op) { (void)l, (void)op; }

static void attrs__full(PlanAttrs *l, const Op *op)
{
    attrs__list(l, "shape", PA_DIMS, op->attr, op->nattr);
    attrs__add(l, "value", PA_FLOAT, 0, op->fattr[0]);
    attrs__dtype(l, op);
}

static void attrs__pow(PlanAttrs *l, const Op *op) { attrs__add(l, "exponent", PA_FLOAT, 0, op->fattr[0]); }

static void attrs__softplus(PlanAttrs *l, const Op *op)
{
    attrs__add(l, "beta", PA_FLOAT, 0, op->fattr[0]);
    attrs__add(l, "threshold", PA_FLOAT, 0, op->fattr[1]);
}

static void attrs__leaky_relu(PlanAttrs *l, const Op *op)
{
    attrs__add(l, "negative_slope", PA_FLOAT, 0, op->fattr[0]);
}

static void attrs__clamp(PlanAttrs *l, const Op *op)
{
    if (op->kind != OP_CLAMP_MAX)
        attrs__add(l, "min", PA_FLOAT, 0, op->fattr[0]);
    if (op->kind != OP_CLAMP_MIN)
        attrs__add(l, "max", PA_FLOAT, 0, op->fattr[op->kind == OP_CLAMP]);
}

static void attrs__gelu(PlanAttrs *l, const Op *op)
{
    attrs__str(l, "approximate", plan__attr(op, 0) == 1 ? "tanh" : "none", 1);
}

static void attrs__addmm(PlanAttrs *l, const Op *op)
{
    attrs__add(l, "beta", PA_FLOAT, 0, op->fattr[0]);
    attrs__add(l, "alpha", PA_FLOAT, 0, op->fattr[1]);
}

static void attrs__shape(PlanAttrs *l, const Op *op) { attrs__list(l, "shape", PA_DIMS, op->attr, op->nattr); }
static void attrs__perm(PlanAttrs *l, const Op *op) { attrs__list(l, "perm", PA_INTS, op->attr, op->nattr); }

static void attrs__select(PlanAttrs *l, const Op *op)
{
    attrs__add(l, "dim", PA_INT, plan__attr(op, 0), 0);
    attrs__add(l, "index", PA_INT, plan__attr(op, 1), 0);
}

static void attrs__dim(PlanAttrs *l, const Op *op) { attrs__add(l, "dim", PA_INT, plan__attr(op, 0), 0); }

static void attrs__softmax(PlanAttrs *l, const Op *op)
{
    attrs__dim(l, op);
    attrs__dtype(l, op);
}

static void attrs__layer_norm(PlanAttrs *l, const Op *op)
{
    attrs__add(l, "normalized_ndim", PA_INT, plan__attr(op, 0), 0);
    attrs__add(l, "eps", PA_FLOAT, 0, op->fattr[0]);
}

static void attrs__sdpa(PlanAttrs *l, const Op *op)
{
    attrs__add(l, "is_causal", PA_BOOL, plan__attr(op, 0) != 0, 0);
    if (plan__attr(op, 1))
        attrs__add(l, "scale", PA_FLOAT, 0, op->fattr[0]);
}

static void attrs__conv(PlanAttrs *l, const Op *op)
{
    int ns = (int)plan__attr(op, 0);
    ns = ns < 1 ? 1 : ns > 2 ? 2 : ns;
    int j = 2 - ns;   /* 1-d: the w slots */
    attrs__list(l, "stride", PA_INTS, op->attr + 1 + j, (size_t)ns);
    attrs__list(l, "padding_before", PA_INTS, op->attr + 3 + j, (size_t)ns);
    attrs__list(l, "padding_after", PA_INTS, op->attr + 5 + j, (size_t)ns);
    attrs__list(l, "dilation", PA_INTS, op->attr + 7 + j, (size_t)ns);
    attrs__add(l, "groups", PA_INT, plan__attr(op, 9), 0);
}

static void attrs__group_norm(PlanAttrs *l, const Op *op)
{
    attrs__add(l, "num_groups", PA_INT, plan__attr(op, 0), 0);
    attrs__add(l, "eps", PA_FLOAT, 0, op->fattr[0]);
}

static void attrs__pool2d(PlanAttrs *l, const Op *op)
{
    attrs__list(l, "kernel_size", PA_INTS, op->attr, 2);
    attrs__list(l, "stride", PA_INTS, op->attr + 2, 2);
    attrs__list(l, "padding", PA_INTS, op->attr + 4, 2);
    if (op->kind == OP_AVG_POOL2D)
        attrs__add(l, "count_include_pad", PA_BOOL, plan__attr(op, 6) != 0, 0);
}

static void attrs__output_size(PlanAttrs *l, const Op *op)
{
    attrs__list(l, "output_size", PA_INTS, op->attr, 2);
}

static void attrs__interpolate(PlanAttrs *l, const Op *op)
{
    if (op->kind == OP_UPSAMPLE_BILINEAR2D)
        attrs__add(l, "align_corners", PA_BOOL, plan__attr(op, 1) != 0, 0);
    attrs__list(l, "size", PA_INTS, op->attr + 2, 2);
    if (op->fattr[0] > 0) {
        attrs__add(l, "scale_h", PA_FLOAT, 0, op->fattr[0]);
        attrs__add(l, "scale_w", PA_FLOAT, 0, op->fattr[1]);
    }
}

static void attrs__eps(PlanAttrs *l, const Op *op) { attrs__add(l, "eps", PA_FLOAT, 0, op->fattr[0]); }

static void attrs__format(PlanAttrs *l, const Op *op)
{
    attrs__str(l, "format", format_name((int)plan__attr(op, 0)), 1);
}

/* arange: its length, start, step and dtype */
static void attrs__arange(PlanAttrs *l, const Op *op)
{
    attrs__list(l, "length", PA_DIMS, op->attr, 1);
    attrs__add(l, "start", PA_FLOAT, 0, op->fattr[0]);
    attrs__list(l, "start_dim", PA_DIMS, op->attr + 1, op->nattr > 1 ? 1 : 0);
    attrs__add(l, "step", PA_FLOAT, 0, op->fattr[1]);
    attrs__dtype(l, op);
}

static void attrs__diagonal(PlanAttrs *l, const Op *op) { attrs__add(l, "diagonal", PA_INT, plan__attr(op, 0), 0); }
static void attrs__dims(PlanAttrs *l, const Op *op) { attrs__list(l, "dims", PA_INTS, op->attr, op->nattr); }

/* slice_dyn: dim, the bounds as dims, step */
static void attrs__slice_dyn(PlanAttrs *l, const Op *op)
{
    attrs__add(l, "dim", PA_INT, plan__attr(op, 0), 0);
    attrs__list(l, "start", PA_DIMS, op->attr + 1, 1);
    attrs__list(l, "end", PA_DIMS, op->attr + 2, 1);
    attrs__add(l, "step", PA_INT, plan__attr(op, 3), 0);
}

/* the collectives (ops.def): reduce op, source rank, the group's mask,
 * all_to_all's split sizes */
static void attrs__collective(PlanAttrs *l, const Op *op)
{
    int k = 0;
    if (op->kind != OP_ALL_GATHER && op->kind != OP_ALL_TO_ALL)
        attrs__add(l, op->kind == OP_BROADCAST ? "src" : "op", PA_INT, plan__attr(op, k++), 0);
    attrs__add(l, "group", PA_INT, plan__attr(op, k), 0);
    if (op->kind == OP_ALL_TO_ALL && op->nattr > 2)   /* rows sent to each member, then received */
        attrs__list(l, "splits", PA_INTS, op->attr + 2, op->nattr - 2);
}

/* roll: its (shift, dim) pairs as one flat list */
static void attrs__roll(PlanAttrs *l, const Op *op) { attrs__list(l, "shift_dim", PA_INTS, op->attr, op->nattr); }

static void attrs__dequant_swiglu_quant(PlanAttrs *l, const Op *op)
{
    attrs__add(l, "activate_left", PA_BOOL, plan__attr(op, 0) != 0, 0);
    attrs__str(l, "quant_mode", plan__attr(op, 1) ? "dynamic" : "static", 1);
}

/* npu_weight_quant_batchmatmul: its antiquant_group_size (0: per channel or per tensor) */
static void attrs__group_size(PlanAttrs *l, const Op *op)
{
    attrs__add(l, "group_size", PA_INT, plan__attr(op, 0), 0);
}

/* ---- attributes: comparison, selection, bool ---- */

/* eq ... ge: the Python scalar operand when there is one (b absent). */
static void attrs__compare(PlanAttrs *l, const Op *op)
{
    if (op->nin < 2 || op->in[1] < 0) {
        attrs__add(l, "scalar", PA_FLOAT, plan__attr(op, 0) == 1, op->fattr[0]);
        l->a[l->n - 1].in_text = 0;
    }
}

static void attrs__masked_fill(PlanAttrs *l, const Op *op) { attrs__add(l, "value", PA_FLOAT, 0, op->fattr[0]); }

/* topk, sort, argsort, max/min along a dim, argmax/argmin, cumsum: the
 * dim attr[0] and the rest as ops.def names them (the reductions, sorting
 * and contractions family). */
static void attrs__line(PlanAttrs *l, const Op *op)
{
    static const char *const topk[] = {"k", "largest", "sorted"}, *const sort[] = {"descending", "stable"},
                             *const arg[] = {"keepdim"};
    const char *const *names = op->kind == OP_TOPK ? topk
                               : op->kind == OP_SORT || op->kind == OP_ARGSORT ? sort
                               : arg;
    attrs__add(l, "dim", PA_INT, plan__attr(op, 0), 0);
    if (op->kind == OP_CUMSUM) {
        attrs__dtype(l, op);
        return;
    }
    for (uint32_t i = 1; i < op->nattr; i++) {
        int k = op->kind == OP_TOPK && i == 1;   /* topk's k; the rest are flags */
        attrs__add(l, names[i - 1], k ? PA_INT : PA_BOOL, k ? op->attr[i] : op->attr[i] != 0, 0);
    }
}

/* ---- attributes: indexing and scatter ---- */

static void attrs__index(PlanAttrs *l, const Op *op)
{
    attrs__dim(l, op);
    if (op->kind == OP_INDEX_PUT)
        attrs__add(l, "accumulate", PA_BOOL, plan__attr(op, 1) != 0, 0);
}

static void attrs__scatter(PlanAttrs *l, const Op *op)
{
    static const char *const reduce[] = {"none", "add", "multiply"};
    int64_t r = op->kind == OP_SCATTER_ADD ? 1 : plan__attr(op, 1);
    attrs__dim(l, op);
    if (op->kind == OP_SCATTER && (op->nin < 3 || op->in[2] < 0))
        attrs__add(l, "value", PA_FLOAT, 0, op->fattr[0]);
    if (op->kind == OP_SCATTER)
        attrs__str(l, "reduce", reduce[r >= 0 && r <= 2 ? r : 0], 1);
    if (op->kind == OP_INDEX_ADD)
        attrs__add(l, "alpha", PA_FLOAT, 0, op->fattr[0]);
}

static void attrs__rotary_mul(PlanAttrs *l, const Op *op)
{
    int64_t m = plan__attr(op, 0);
    attrs__str(l, "rotary_mode", m == 3 ? "interleave_half" : m ? "interleave" : "half", 1);
}

static void attrs__k(PlanAttrs *l, const Op *op) { attrs__add(l, "k", PA_INT, plan__attr(op, 0), 0); }

/* npu_moe_gating_top_k: its keywords as the script spells them. */
static void attrs__moe_gating(PlanAttrs *l, const Op *op)
{
    attrs__add(l, "k", PA_INT, plan__attr(op, 0), 0);
    attrs__add(l, "k_group", PA_INT, plan__attr(op, 1), 0);
    attrs__add(l, "group_count", PA_INT, plan__attr(op, 2), 0);
    attrs__add(l, "group_select_mode", PA_INT, plan__attr(op, 3), 0);
    attrs__add(l, "norm_type", PA_INT, plan__attr(op, 4), 0);
    attrs__add(l, "out_flag", PA_BOOL, plan__attr(op, 5) != 0, 0);
    attrs__add(l, "routed_scaling_factor", PA_FLOAT, 0, op->fattr[0]);
    attrs__add(l, "eps", PA_FLOAT, 0, op->fattr[1]);
}

static void attrs__axis(PlanAttrs *l, const Op *op) { attrs__add(l, "axis", PA_INT, plan__attr(op, 0), 0); }

static void attrs__attention(PlanAttrs *l, const Op *op)
{
    static const char *const layouts[3] = {"BSH", "BSND", "BNSD"};
    int64_t lay = plan__attr(op, 0);
    attrs__str(l, "input_layout", lay >= 0 && lay < 3 ? layouts[lay] : "?", 1);
    attrs__add(l, "num_heads", PA_INT, plan__attr(op, 1), 0);
    attrs__add(l, "num_key_value_heads", PA_INT, plan__attr(op, 2), 0);
    attrs__add(l, "sparse_mode", PA_INT, plan__attr(op, 3), 0);
    attrs__add(l, "pre_tokens", PA_INT, plan__attr(op, 4), 0);
    attrs__add(l, "next_tokens", PA_INT, plan__attr(op, 5), 0);
    attrs__add(l, "softmax_lse_flag", PA_BOOL, plan__attr(op, 6) != 0, 0);
    attrs__add(l, "block_size", PA_INT, plan__attr(op, 7), 0);
    attrs__add(l, "actual_seq_length", PA_INT, plan__attr(op, 8), 0);
    attrs__add(l, "actual_seq_length_count", PA_INT, plan__attr(op, 9), 0);
    attrs__add(l, "actual_seq_length_kv", PA_INT, plan__attr(op, 10), 0);
    attrs__add(l, "actual_seq_length_kv_count", PA_INT, plan__attr(op, 11), 0);
    attrs__add(l, "scale", PA_FLOAT, 0, op->fattr[0]);
}

/* The named attributes of each kind (the plan attributes column of its
 * ops.def row, which documents attr[]/fattr[]); attrs__none where a kind
 * has none. */
static void (*const plan_attrs[OP__count])(PlanAttrs *l, const Op *op) = {
#define OP(e, name, flags, in_min, in_max, in_opt, attr_min, attr_max, rule, dtype_rule, rowrule, printer, fusion, op_type, view, layout, swap, acl_form, cpu, cpu_scalar, acl, acl_ts, acl_st, attrs) \
    [OP_##e] = attrs__##printer,
#include "../ir/ops.def"
#undef OP
};

int plan_attrs_known(OpKind kind)
{
    return (unsigned)kind < OP__count && plan_attrs[kind] != NULL;
}

/* The named attributes of op, by kind. */
static void plan__attrs(const Op *op, PlanAttrs *l)
{
    l->n = 0;
    if (!plan_attrs_known(op->kind))
        TNGC_BUG("plan_out.c: no attributes entry for op kind %d", (int)op->kind);
    plan_attrs[op->kind](l, op);
}

static void plan__attr_value(const Graph *g, const PlanAttr *a, StrBuf *out, int json)
{
    switch (a->kind) {
    case PA_INT: sb_printf(out, "%lld", (long long)a->i); break;
    case PA_BOOL: sb_puts(out, a->i ? "true" : "false"); break;
    case PA_FLOAT: plan__scalar(out, a->f, (int)a->i, json); break;
    case PA_STR: json ? plan__json_str(out, a->s) : sb_puts(out, plan__str(a->s)); break;
    case PA_END:
        if (a->i == GRAPH_END)
            sb_puts(out, json ? "null" : "None");
        else
            sb_printf(out, "%lld", (long long)a->i);
        break;
    case PA_INTS:
        sb_putc(out, '[');
        for (size_t k = 0; k < a->n; k++)
            sb_printf(out, k ? ",%lld" : "%lld", (long long)a->list[k]);
        sb_putc(out, ']');
        break;
    case PA_DIMS:
        sb_putc(out, '[');
        for (size_t k = 0; k < a->n; k++) {
            if (k)
                sb_putc(out, ',');
            plan__dim(g, (DimId)a->list[k], NULL, out, json);
        }
        sb_putc(out, ']');
        break;
    }
}

/* {"dim":1,"keepdim":false}: every named attribute of the op. */
void plan_op_attrs_json(const Graph *g, int32_t op, StrBuf *out)
{
    PlanAttrs l;
    plan__attrs(&g->ops.v[op], &l);
    sb_putc(out, '{');
    for (int i = 0; i < l.n; i++) {
        if (i)
            sb_putc(out, ',');
        plan__json_str(out, l.a[i].name);
        sb_putc(out, ':');
        plan__attr_value(g, &l.a[i], out, 1);
    }
    sb_putc(out, '}');
}

/* " dim=1 keepdim=false": the attributes the text dump shows. */
static void plan__attrs_text(const Graph *g, const Op *op, StrBuf *out)
{
    PlanAttrs l;
    plan__attrs(op, &l);
    for (int i = 0; i < l.n; i++) {
        if (!l.a[i].in_text)
            continue;
        sb_printf(out, " %s=", l.a[i].name);
        plan__attr_value(g, &l.a[i], out, 0);
    }
}

/* ===================================================================== */
/* Text                                                                  */
/* ===================================================================== */

/* " %0, %1" with "_" for an absent optional input and the scalar operand
 * of add/sub/mul/div in its place ("mul %4, 0.5", "sub 1, %0"). */
static void text__operands(const Op *op, StrBuf *out)
{
    int64_t mode = plan__is_binary(op->kind) ? plan__attr(op, 0) : 0;
    int n = 0;
    if (mode == 2) {
        sb_putc(out, ' ');
        plan__scalar(out, op->fattr[0], plan__attr(op, 1) == 1, 0);
        n++;
    }
    for (uint32_t i = 0; i < op->nin; i++, n++) {
        sb_puts(out, n ? ", " : " ");
        if (op->in[i] < 0)
            sb_putc(out, '_');
        else
            sb_printf(out, "%%%d", (int)op->in[i]);
    }
    if (mode == 1) {
        sb_puts(out, n ? ", " : " ");
        plan__scalar(out, op->fattr[0], plan__attr(op, 1) == 1, 0);
    }
}

/* "%7:f32[2,8], %8:f32[2,1] = rms_norm %5, %6": outputs, kind, operands. */
static void text__op_head(const Graph *g, int32_t o, const int64_t *symval, StrBuf *out)
{
    const Op *op = &g->ops.v[o];
    for (uint32_t k = 0; k < op->nout; k++) {
        int32_t v = op->out + (int32_t)k;
        sb_printf(out, k ? ", %%%d:" : "%%%d:", (int)v);
        plan__type(g, v, symval, out);
    }
    sb_puts(out, op->nout ? " = " : "");
    sb_puts(out, op_info[op->kind].name);
    text__operands(op, out);
}

static void text__header(const Graph *g, StrBuf *out)
{
    const EntryConfig *c = &g->cfg;
    static const char *const tri[] = {"unset", "false", "true"};
    sb_puts(out, "entry ");
    plan__text(out, g->name);
    sb_puts(out, "  # ");
    plan__text(out, g->file);
    sb_printf(out, ":%u:%u\n", g->line, g->col);
    sb_printf(out, "config mode=%s dynamic=%s fullgraph=%s policy=%s", c->mode ? c->mode : "max-autotune",
              tri[c->dynamic < 0 ? 0 : c->dynamic ? 2 : 1], tri[c->fullgraph < 0 ? 0 : c->fullgraph ? 2 : 1],
              gear_policy_name(c->policy == GEAR_PRODUCT));
    if (c->is_cache)
        sb_puts(out, " cache_compile=true");
    if (c->cache_dir) {
        sb_puts(out, " cache_dir=");
        plan__json_str(out, c->cache_dir);
    }
    if (c->static_kernel)
        sb_puts(out, " static_kernel=true");
    if (c->build_dir) {
        sb_puts(out, " build_dir=");
        plan__json_str(out, c->build_dir);
    }
    if (c->single_stream)
        sb_puts(out, " single_stream=true");
    sb_putc(out, '\n');
}

static const char *plan__input_name(const Graph *g, int input)
{
    return input >= 0 && (size_t)input < g->inputs.n ? g->inputs.v[input].name : NULL;
}

static void text__symbols(const Graph *g, StrBuf *out)
{
    sb_puts(out, "symbols:");
    if (!g->syms.n)
        sb_puts(out, " none");
    for (size_t i = 0; i < g->syms.n; i++) {
        const Sym *s = &g->syms.v[i];
        sb_printf(out, "%s %s = ", i ? "," : "", plan__str(s->name));
        plan__name(out, plan__input_name(g, s->input));
        sb_printf(out, ".shape[%d] (example %lld)", s->dim, (long long)s->example);
    }
    sb_putc(out, '\n');
    for (size_t i = 0; i < g->gears.n; i++) {
        const GearSpec *gs = &g->gears.v[i];
        sb_puts(out, "set_dim_gears ");
        plan__name(out, plan__input_name(g, gs->input));
        sb_printf(out, " dim=%d (%s) values=[", gs->dim,
                  gs->sym >= 0 && (size_t)gs->sym < g->syms.n ? plan__str(g->syms.v[gs->sym].name) : "?");
        for (size_t k = 0; k < gs->nvalues; k++)
            sb_printf(out, k ? ",%lld" : "%lld", (long long)gs->values[k]);
        sb_printf(out, "]  # line %u:%u\n", gs->line, gs->col);
    }
}

static void text__inputs(const Graph *g, StrBuf *out)
{
    for (size_t i = 0; i < g->inputs.n; i++) {
        const GraphInput *in = &g->inputs.v[i];
        sb_printf(out, "input %%%d ", (int)in->value);
        plan__name(out, in->name);
        sb_putc(out, ' ');
        plan__type(g, in->value, NULL, out);
        sb_printf(out, " %s", format_name(g->vals.v[in->value].format));
        if (in->is_static)
            sb_puts(out, " static");
        if (in->final >= 0)
            sb_printf(out, " -> %%%d", (int)in->final);
        sb_putc(out, '\n');
    }
    for (size_t i = 0; i < g->weights.n; i++) {
        const GraphWeight *w = &g->weights.v[i];
        sb_printf(out, "weight %%%d ", (int)w->value);
        plan__name(out, w->name);
        sb_putc(out, ' ');
        plan__type(g, w->value, NULL, out);
        if (w->is_buffer)
            sb_puts(out, w->is_buffer == GRAPH_STATE ? " state" : " buffer");
        if (w->zeros)
            sb_puts(out, " zeros");
        if (w->share_entry) {
            sb_printf(out, " shared %s ", w->share_entry);
            plan__name(out, w->share_name);
        }
        if (w->final >= 0)
            sb_printf(out, " -> %%%d", (int)w->final);
        sb_putc(out, '\n');
    }
    /* tied weights: another state_dict key of the same tensor */
    for (size_t i = 0; i < g->weight_aliases.n; i++) {
        const GraphWeightAlias *a = &g->weight_aliases.v[i];
        sb_printf(out, "weight %%%d ", (int)g->weights.v[a->weight].value);
        plan__name(out, a->name);
        sb_puts(out, " tied\n");
    }
    /* state_dict keys the graph never reads (a weights file may hold them) */
    for (size_t i = 0; i < g->unread_keys.n; i++) {
        sb_puts(out, "unread ");
        plan__name(out, g->unread_keys.v[i]);
        sb_putc(out, '\n');
    }
}

static void text__streams_sks(const Graph *g, StrBuf *out)
{
    for (size_t i = 0; i < g->streams.n; i++) {
        const GraphStream *s = &g->streams.v[i];
        if (!s->tag) {
            sb_printf(out, "stream %zu default\n", i);
            continue;
        }
        sb_printf(out, "stream %zu tag ", i);
        plan__json_str(out, s->tag);
        sb_printf(out, " priority %lld  # line %u:%u\n", (long long)s->priority, s->line, s->col);
    }
    for (size_t i = 0; i < g->sks.n; i++) {
        const GraphSk *sk = &g->sks.v[i];
        sb_printf(out, "super_kernel %zu ", i);
        plan__json_str(out, plan__str(sk->name));
        if (sk->options) {
            sb_puts(out, " options ");
            plan__json_str(out, sk->options);
        }
        sb_printf(out, "  # line %u:%u\n", sk->line, sk->col);
    }
}

/* "  # stream 1; sk 0; after %3 (explicit), %5; line 25:22" */
static void text__op_notes(const Graph *g, const Op *op, StrBuf *out)
{
    sb_puts(out, "  #");
    if (op->stream)
        sb_printf(out, " stream %d;", op->stream);
    if (op->sk >= 0)
        sb_printf(out, " sk %d;", op->sk);
    for (uint32_t i = 0; i < op->nctrl; i++) {
        sb_puts(out, i ? ", " : " after ");
        plan__op_ref(g, op->ctrl[i], out);
        if (op->ctrl_explicit && op->ctrl_explicit[i])
            sb_puts(out, " (explicit)");
        if (i + 1 == op->nctrl)
            sb_putc(out, ';');
    }
    if (op->file) {   /* code of a module the script imports */
        sb_putc(out, ' ');
        plan__text(out, op->file);
        sb_printf(out, ":%u:%u", op->line, op->col);
    }
    else
        sb_printf(out, " line %u:%u", op->line, op->col);
}

static void text__graph(const Graph *g, StrBuf *out)
{
    sb_puts(out, "graph:\n");
    for (size_t o = 0; o < g->ops.n; o++) {
        const Op *op = &g->ops.v[o];
        if (op_info[op->kind].flags & OPF_SOURCE)
            continue;
        sb_puts(out, "  ");
        text__op_head(g, (int32_t)o, NULL, out);
        plan__attrs_text(g, op, out);
        text__op_notes(g, op, out);
        sb_putc(out, '\n');
    }
    sb_puts(out, "outputs:");
    if (!g->outputs.n)
        sb_puts(out, " none");
    for (size_t i = 0; i < g->outputs.n; i++) {
        sb_puts(out, i ? ", " : " ");
        plan__name(out, g->outputs.v[i].name);
        sb_printf(out, " = %%%d", (int)g->outputs.v[i].value);
    }
    sb_putc(out, '\n');
}

/* "gear 0: s0=2, s1 unbound" or "gear 0: all static". */
static void text__gear_head(const Plan *p, size_t gi, StrBuf *out)
{
    const Graph *g = p->g;
    const int64_t *sv = plan__symval(p, gi);
    sb_printf(out, "gear %zu:", gi);
    if (!g->syms.n)
        sb_puts(out, " all static");
    for (size_t s = 0; s < g->syms.n; s++) {
        sb_printf(out, "%s %s", s ? "," : "", plan__str(g->syms.v[s].name));
        if (sv && plan__bound(sv[s]))
            sb_printf(out, "=%lld", (long long)sv[s]);
        else
            sb_puts(out, " unbound");
    }
    sb_putc(out, '\n');
}

/* Where output v of op lives in a gear: " [arena 0..64)", " [in-place %5]"
 * (an elementwise op writing into its input's buffer), " [storage of %6 @0]"
 * or " [storage of %0]" (a view or in-place write: input 0's storage, in
 * the arena or the caller's), " [no arena]". */
static void text__storage(const PlanMemory *m, const Op *op, int32_t v, StrBuf *out)
{
    int64_t off = m->offset[v], bytes = m->bytes ? m->bytes[v] : 0;
    if (m->inplace_of && m->inplace_of[v] >= 0)
        sb_printf(out, " [in-place %%%d]", (int)m->inplace_of[v]);
    else if (off >= 0 && bytes > 0)
        sb_printf(out, " [arena %lld..%lld)", (long long)off, (long long)(off + bytes));
    else if ((op_info[op->kind].flags & (OPF_ALIAS | OPF_INPLACE)) && op->nin && op->in[0] >= 0 && off >= 0)
        sb_printf(out, " [storage of %%%d @%lld]", (int)op->in[0], (long long)off);
    else if ((op_info[op->kind].flags & (OPF_ALIAS | OPF_INPLACE)) && op->nin && op->in[0] >= 0)
        sb_printf(out, " [storage of %%%d]", (int)op->in[0]);
    else
        sb_puts(out, " [no arena]");
}

/* One op of a schedule: shapes of this gear and where its outputs live. */
static void text__sched_op(const Plan *p, size_t gi, int32_t o, const char *indent, StrBuf *out)
{
    const Graph *g = p->g;
    const PlanMemory *m = plan__mem(p, gi);
    sb_puts(out, indent);
    text__op_head(g, o, plan__symval(p, gi), out);
    if (m && !m->dynamic && m->offset)
        for (uint32_t k = 0; k < g->ops.v[o].nout; k++)
            text__storage(m, &g->ops.v[o], g->ops.v[o].out + (int32_t)k, out);
    sb_putc(out, '\n');
}

static void text__events_line(const char *what, const int32_t *ev, size_t n, StrBuf *out)
{
    if (!n)
        return;
    sb_printf(out, "    %s", what);
    for (size_t i = 0; i < n; i++)
        sb_printf(out, " e%d", (int)ev[i]);
    sb_putc(out, '\n');
}

static void text__unit(const Plan *p, size_t gi, int32_t u, StrBuf *out)
{
    const PlanUnit *unit = &p->units.v[u];
    text__events_line("wait", unit->wait, unit->nwait, out);
    if (unit->op >= 0) {
        text__sched_op(p, gi, unit->op, "    ", out);
    } else {
        const PlanSegment *s = &p->segs.v[unit->seg];
        const char *name = s->sk >= 0 && (size_t)s->sk < p->g->sks.n ? p->g->sks.v[s->sk].name : NULL;
        sb_printf(out, "    segment %d ", unit->seg);
        plan__json_str(out, plan__str(name));
        sb_puts(out, " {\n");
        for (size_t k = 0; k < s->nops; k++)
            text__sched_op(p, gi, s->ops[k], "      ", out);
        sb_puts(out, "    }\n");
    }
    text__events_line("record", unit->record, unit->nrecord, out);
}

static void text__memory(const Plan *p, size_t gi, StrBuf *out)
{
    const PlanMemory *m = plan__mem(p, gi);
    if (!m)
        return;
    if (m->dynamic)
        sb_puts(out, "  memory: dynamic\n");
    else
        sb_printf(out, "  memory: arena %lld bytes, naive %lld bytes\n", (long long)m->arena_bytes,
                  (long long)m->naive_bytes);
}

/* The elements an in-place op writes in a gear: a slice store its slice,
 * every other kind its whole destination; -1 when a size is unknown. */
static int64_t text__written(const Plan *p, size_t gi, const Op *op)
{
    const Graph *g = p->g;
    const Val *dst = &g->vals.v[op->out];
    const int64_t *sv = plan__symval(p, gi);
    int64_t n = 1;
    for (int d = 0; d < dst->ndim; d++) {
        int64_t s;
        if (graph_dim_eval(g, dst->dims[d], sv, &s) < 0)
            return -1;
        if (op->kind == OP_SLICE_STORE && d == op->attr[0]) {   /* Python's slice of [0, s) */
            int64_t a = op->attr[1], b = op->attr[2], st = op->attr[3] > 0 ? op->attr[3] : 1;
            a = a < 0 ? (a + s < 0 ? 0 : a + s) : (a > s ? s : a);
            b = b == GRAPH_END ? s : b < 0 ? (b + s < 0 ? 0 : b + s) : (b > s ? s : b);
            s = b > a ? (b - a + st - 1) / st : 0;
        }
        n *= s;
    }
    return n * dtype_size(dst->dtype);
}

/* "  writes: N in place, B bytes": the in-place ops of the gear (stores
 * into inputs, buffers and op results, the write-backs of writes through
 * views), none of them a copy of its destination. */
static void text__writes(const Plan *p, size_t gi, StrBuf *out)
{
    const Graph *g = p->g;
    int64_t n = 0, bytes = 0;
    for (size_t o = 0; o < g->ops.n; o++) {
        const Op *op = &g->ops.v[o];
        if (!(op_info[op->kind].flags & OPF_INPLACE))
            continue;
        int64_t b = text__written(p, gi, op);
        n++;
        bytes = b < 0 || bytes < 0 ? -1 : bytes + b;
    }
    if (!n)
        return;
    if (bytes < 0)
        sb_printf(out, "  writes: %lld in place\n", (long long)n);
    else
        sb_printf(out, "  writes: %lld in place, %lld bytes\n", (long long)n, (long long)bytes);
}

/* Input shapes of the gear: "  shapes: x1=[2,2] x2=[2,2]". */
static void text__gear_shapes(const Plan *p, size_t gi, StrBuf *out)
{
    const Graph *g = p->g;
    if (!g->inputs.n)
        return;
    sb_puts(out, "  shapes:");
    for (size_t i = 0; i < g->inputs.n; i++) {
        sb_putc(out, ' ');
        plan__name(out, g->inputs.v[i].name);
        sb_putc(out, '=');
        plan__shape(g, g->inputs.v[i].value, plan__symval(p, gi), out, 0);
    }
    sb_putc(out, '\n');
}

static void text__gears(const Plan *p, StrBuf *out)
{
    for (size_t gi = 0; gi < p->gears.n; gi++) {
        text__gear_head(p, gi, out);
        text__gear_shapes(p, gi, out);
        for (size_t s = 0; s < p->streams.n; s++) {
            sb_printf(out, "  stream %zu:\n", s);
            for (size_t k = 0; k < p->streams.v[s].nunits; k++)
                text__unit(p, gi, p->streams.v[s].units[k], out);
        }
        text__memory(p, gi, out);
        text__writes(p, gi, out);
    }
}

/* The cost model's verdict per non-default stream (none with one stream
 * or with the model off): "stream 1 "b": about 4.1 us of work at most in
 * 1 run: runs on stream 0 (too small to pay for its hand-offs)". */
static void text__cost_model(const Plan *p, StrBuf *out)
{
    const Graph *g = p->g;
    if (p->handoff_ns <= 0 || g->streams.n < 2 || !p->runs_on)
        return;
    sb_printf(out, "stream cost model (a thread hand-off costs about %.1f us):\n",
              (double)p->handoff_ns / 1000.0);
    for (size_t s = 1; s < g->streams.n; s++) {
        sb_printf(out, "  stream %zu ", s);
        plan__json_str(out, plan__str(g->streams.v[s].tag));
        if (p->work_ns[s] < 0)
            sb_puts(out, ": work unknown (dynamic shapes)");
        else
            sb_printf(out, ": about %.1f us of work at most", (double)p->work_ns[s] / 1000.0);
        sb_printf(out, " in %d run%s", p->handoffs[s], p->handoffs[s] == 1 ? "" : "s");
        sb_puts(out, p->runs_on[s] == 0 ? ": runs on stream 0 (too small to pay for its hand-offs)\n"
                                        : ": own thread\n");
    }
}

/* "constants: computed once at create, 384 bytes: %1 %2 %16 %17" (ops in no
 * gear's schedule: the bundle runs them when it is created; only when the
 * plan has any) */
static void text__consts(const Plan *p, StrBuf *out)
{
    if (!p->nconst)
        return;
    sb_printf(out, "constants: computed once at create, %lld bytes:", (long long)p->const_bytes);
    for (size_t i = 0; i < p->g->ops.n; i++)
        if (p->const_op[i]) {
            sb_putc(out, ' ');
            plan__op_ref(p->g, (int32_t)i, out);
        }
    sb_putc(out, '\n');
}

/* "e0: stream 0 after %4 -> stream 1 before seg 0 (explicit)" */
static void text__events(const Plan *p, StrBuf *out)
{
    sb_puts(out, p->events.n ? "events:\n" : "events: none\n");
    for (size_t i = 0; i < p->events.n; i++) {
        const PlanEvent *e = &p->events.v[i];
        sb_printf(out, "  e%zu: stream %d after ", i, e->from);
        plan__unit_ref(p, e->after, out);
        sb_printf(out, " -> stream %d before ", e->to);
        plan__unit_ref(p, e->before, out);
        sb_puts(out, e->explicit_wait ? " (explicit)\n" : "\n");
    }
}

/* "seg 0 "sp1" stream 1: %4 %5 (end of scope)" */
static void text__segments(const Plan *p, StrBuf *out)
{
    const Graph *g = p->g;
    sb_puts(out, p->segs.n ? "segments:\n" : "segments: none\n");
    for (size_t i = 0; i < p->segs.n; i++) {
        const PlanSegment *s = &p->segs.v[i];
        sb_printf(out, "  seg %zu ", i);
        plan__json_str(out, plan__str(s->sk >= 0 && (size_t)s->sk < g->sks.n ? g->sks.v[s->sk].name : NULL));
        sb_printf(out, " stream %d:", s->stream);
        for (size_t k = 0; k < s->nops; k++) {
            sb_putc(out, ' ');
            plan__op_ref(g, s->ops[k], out);
        }
        sb_printf(out, " (%s)\n", plan__str(s->split));
    }
}

/* "s0 independent" / "s1 not independent: %9 sum at line 30:9: why" */
static void text__rowindep(const Plan *p, StrBuf *out)
{
    const Graph *g = p->g;
    sb_puts(out, p->rowindep.n ? "row independence:\n" : "row independence: none\n");
    for (size_t i = 0; i < p->rowindep.n; i++) {
        const PlanRowIndep *r = &p->rowindep.v[i];
        const char *sym = r->sym >= 0 && (size_t)r->sym < g->syms.n ? g->syms.v[r->sym].name : "?";
        sb_printf(out, "  %s %s", plan__str(sym), r->independent ? "independent" : "not independent");
        if (!r->independent && r->op >= 0) {
            sb_puts(out, ": ");
            plan__op_ref(g, r->op, out);
            sb_printf(out, " %s at line %u:%u", op_info[g->ops.v[r->op].kind].name, g->ops.v[r->op].line,
                      g->ops.v[r->op].col);
        }
        if (r->why)
            sb_printf(out, ": %s", r->why);
        sb_putc(out, '\n');
    }
}

/* "MatMulV2_float_ND_2_2_0: %4 mm gear 0 x2 selected" */
static void text__kernels(const Plan *p, StrBuf *out)
{
    sb_puts(out, p->kernels.n ? "static kernels:\n" : "static kernels: none\n");
    for (size_t i = 0; i < p->kernels.n; i++) {
        const StaticKernel *k = &p->kernels.v[i];
        sb_printf(out, "  %s: ", plan__str(k->key));
        plan__op_ref(p->g, k->op, out);
        sb_printf(out, " %s gear %d x%d %s\n", op_info[k->kind].name, k->gear, k->count,
                  k->selected ? "selected" : (op_info[k->kind].flags & OPF_COLLECTIVE) ? "collective" : "view");
    }
}

void plan_graph_text(const Graph *g, StrBuf *out)
{
    text__header(g, out);
    text__symbols(g, out);
    text__inputs(g, out);
    text__streams_sks(g, out);
    text__graph(g, out);
}

void plan_text(const Plan *self, StrBuf *out)
{
    plan_graph_text(self->g, out);
    text__gears(self, out);
    text__cost_model(self, out);
    text__consts(self, out);
    text__events(self, out);
    plan_comm_text(self, out);
    text__segments(self, out);
    text__rowindep(self, out);
    text__kernels(self, out);
}

/* ===================================================================== */
/* JSON                                                                  */
/* ===================================================================== */

static void json__bool(StrBuf *out, int b) { sb_puts(out, b ? "true" : "false"); }

/* An index that may be -1: the number or null. */
static void json__index(StrBuf *out, int64_t i)
{
    if (i < 0)
        sb_puts(out, "null");
    else
        sb_printf(out, "%lld", (long long)i);
}

static void json__ids(StrBuf *out, const int32_t *v, size_t n)
{
    sb_putc(out, '[');
    for (size_t i = 0; i < n; i++)
        sb_printf(out, i ? ",%d" : "%d", (int)v[i]);
    sb_putc(out, ']');
}

/* Starts the i-th element of a top-level array: one element per line. */
static void json__item(StrBuf *out, size_t i) { sb_puts(out, i ? ",\n  " : "\n  "); }

static void json__config(const Plan *p, StrBuf *out)
{
    const Graph *g = p->g;
    const EntryConfig *c = &g->cfg;
    sb_puts(out, "\"config\":{\"mode\":");
    plan__json_str(out, c->mode ? c->mode : "max-autotune");
    sb_puts(out, ",\"dynamic\":");
    sb_puts(out, c->dynamic < 0 ? "null" : c->dynamic ? "true" : "false");
    sb_puts(out, ",\"fullgraph\":");
    sb_puts(out, c->fullgraph < 0 ? "null" : c->fullgraph ? "true" : "false");
    sb_printf(out, ",\"policy\":\"%s\",\"cache_compile\":", gear_policy_name(c->policy == GEAR_PRODUCT));
    json__bool(out, c->is_cache);
    sb_puts(out, ",\"cache_dir\":");
    plan__json_str(out, c->cache_dir);
    sb_puts(out, ",\"static_kernel\":");
    json__bool(out, c->static_kernel);
    sb_puts(out, ",\"build_dir\":");
    plan__json_str(out, c->build_dir);
    sb_puts(out, ",\"single_stream\":");
    json__bool(out, c->single_stream);
    sb_puts(out, "}");
}

static void json__symbols(const Plan *p, StrBuf *out)
{
    const Graph *g = p->g;
    sb_puts(out, "\"symbols\":[");
    for (size_t i = 0; i < g->syms.n; i++) {
        const Sym *s = &g->syms.v[i];
        json__item(out, i);
        sb_puts(out, "{\"name\":");
        plan__json_str(out, s->name);
        sb_puts(out, ",\"input\":");
        plan__json_str(out, plan__input_name(g, s->input));
        sb_printf(out, ",\"dim\":%d,\"example\":%lld}", s->dim, (long long)s->example);
    }
    sb_puts(out, "],\n \"set_dim_gears\":[");
    for (size_t i = 0; i < g->gears.n; i++) {
        const GearSpec *gs = &g->gears.v[i];
        json__item(out, i);
        sb_puts(out, "{\"input\":");
        plan__json_str(out, plan__input_name(g, gs->input));
        sb_printf(out, ",\"dim\":%d,\"symbol\":", gs->dim);
        plan__json_str(out, gs->sym >= 0 && (size_t)gs->sym < g->syms.n ? g->syms.v[gs->sym].name : NULL);
        sb_puts(out, ",\"values\":[");
        for (size_t k = 0; k < gs->nvalues; k++)
            sb_printf(out, k ? ",%lld" : "%lld", (long long)gs->values[k]);
        sb_printf(out, "],\"line\":%u,\"col\":%u}", gs->line, gs->col);
    }
    sb_puts(out, "]");
}

/* "dtype":"float32","format":"ND","shape":[...] of value v (symbolic). */
static void json__val_type(const Graph *g, int32_t v, StrBuf *out)
{
    const Val *val = &g->vals.v[v];
    sb_printf(out, "\"dtype\":\"%s\",\"format\":\"%s\",\"shape\":", dtype_name(val->dtype),
              format_name(val->format));
    plan__shape(g, v, NULL, out, 1);
}

static void json__inputs(const Plan *p, StrBuf *out)
{
    const Graph *g = p->g;
    sb_puts(out, "\"inputs\":[");
    for (size_t i = 0; i < g->inputs.n; i++) {
        const GraphInput *in = &g->inputs.v[i];
        const Val *val = &g->vals.v[in->value];
        json__item(out, i);
        sb_puts(out, "{\"name\":");
        plan__json_str(out, in->name);
        sb_printf(out, ",\"value\":%d,", (int)in->value);
        json__val_type(g, in->value, out);
        sb_puts(out, ",\"example\":[");
        for (uint8_t d = 0; d < val->ndim; d++)
            sb_printf(out, d ? ",%lld" : "%lld", (long long)in->example[d]);
        sb_puts(out, "],\"static\":");
        json__bool(out, in->is_static);
        sb_puts(out, ",\"mutated\":");
        json__bool(out, in->final >= 0);
        sb_puts(out, ",\"final\":");
        json__index(out, in->final);
        sb_putc(out, '}');
    }
    sb_puts(out, "]");
}

static void json__weights(const Plan *p, StrBuf *out)
{
    const Graph *g = p->g;
    sb_puts(out, "\"weights\":[");
    for (size_t i = 0; i < g->weights.n; i++) {
        const GraphWeight *w = &g->weights.v[i];
        json__item(out, i);
        sb_puts(out, "{\"name\":");
        plan__json_str(out, w->name);
        sb_printf(out, ",\"value\":%d,", (int)w->value);
        json__val_type(g, w->value, out);
        sb_puts(out, ",\"buffer\":");
        json__bool(out, w->is_buffer);
        sb_puts(out, ",\"mutated\":");
        json__bool(out, w->final >= 0);
        sb_puts(out, ",\"final\":");
        json__index(out, w->final);
        if (w->zeros)
            sb_puts(out, ",\"zeros\":true");
        if (w->share_entry) {
            sb_puts(out, ",\"shared\":{\"entry\":");
            plan__json_str(out, w->share_entry);
            sb_puts(out, ",\"name\":");
            plan__json_str(out, w->share_name);
            sb_putc(out, '}');
        }
        sb_putc(out, '}');
    }
    sb_puts(out, "]");
}

static void json__outputs(const Plan *p, StrBuf *out)
{
    const Graph *g = p->g;
    sb_puts(out, "\"outputs\":[");
    for (size_t i = 0; i < g->outputs.n; i++) {
        json__item(out, i);
        sb_puts(out, "{\"name\":");
        plan__json_str(out, g->outputs.v[i].name);
        sb_printf(out, ",\"value\":%d,", (int)g->outputs.v[i].value);
        json__val_type(g, g->outputs.v[i].value, out);
        sb_putc(out, '}');
    }
    sb_puts(out, "]");
}

static void json__streams_decl(const Graph *g, size_t i, StrBuf *out)
{
    const GraphStream *s = i < g->streams.n ? &g->streams.v[i] : NULL;
    sb_printf(out, "{\"id\":%zu,\"tag\":", i);
    plan__json_str(out, s ? s->tag : NULL);
    sb_printf(out, ",\"priority\":%lld,", (long long)(s ? s->priority : 0));
    if (s && s->tag)
        sb_printf(out, "\"line\":%u,\"col\":%u,", s->line, s->col);
    else
        sb_puts(out, "\"line\":null,\"col\":null,");
}

/* "shapes":{"x1":[2,2]},"output_shapes":{"out0":[2,1]}: inputs and outputs in gear gi. */
static void json__gear_shapes(const Plan *p, size_t gi, StrBuf *out)
{
    const Graph *g = p->g;
    const int64_t *sv = plan__symval(p, gi);
    sb_puts(out, "\"shapes\":{");
    for (size_t i = 0; i < g->inputs.n; i++) {
        if (i)
            sb_putc(out, ',');
        plan__json_str(out, plan__str(g->inputs.v[i].name));
        sb_putc(out, ':');
        plan__shape(g, g->inputs.v[i].value, sv, out, 1);
    }
    sb_puts(out, "},\"output_shapes\":{");
    for (size_t i = 0; i < g->outputs.n; i++) {
        if (i)
            sb_putc(out, ',');
        plan__json_str(out, plan__str(g->outputs.v[i].name));
        sb_putc(out, ':');
        plan__shape(g, g->outputs.v[i].value, sv, out, 1);
    }
    sb_putc(out, '}');
}

static void json__gears(const Plan *p, StrBuf *out)
{
    const Graph *g = p->g;
    sb_puts(out, "\"gears\":[");
    for (size_t gi = 0; gi < p->gears.n; gi++) {
        const int64_t *sv = plan__symval(p, gi);
        json__item(out, gi);
        sb_printf(out, "{\"id\":%zu,\"symbols\":{", gi);
        for (size_t s = 0; s < g->syms.n; s++) {
            sb_puts(out, s ? "," : "");
            plan__json_str(out, plan__str(g->syms.v[s].name));
            if (sv && plan__bound(sv[s]))
                sb_printf(out, ":%lld", (long long)sv[s]);
            else
                sb_puts(out, ":null");
        }
        sb_puts(out, "},");
        json__gear_shapes(p, gi, out);
        sb_putc(out, '}');
    }
    sb_puts(out, "]");
}

static void json__op_outputs(const Graph *g, const Op *op, StrBuf *out)
{
    sb_puts(out, ",\"outputs\":[");
    for (uint32_t k = 0; k < op->nout; k++) {
        int32_t v = op->out + (int32_t)k;
        sb_printf(out, "%s{\"value\":%d,\"name\":", k ? "," : "", (int)v);
        plan__json_str(out, g->vals.v[v].name);
        sb_putc(out, ',');
        json__val_type(g, v, out);
        sb_putc(out, '}');
    }
    sb_putc(out, ']');
}

static void json__op(const Plan *p, size_t o, StrBuf *out)
{
    const Graph *g = p->g;
    const Op *op = &g->ops.v[o];
    sb_printf(out, "{\"id\":%zu,\"kind\":\"%s\",\"acl\":\"%s\",\"inputs\":[", o, op_info[op->kind].name,
              p->op_type(g, (int32_t)o));
    for (uint32_t i = 0; i < op->nin; i++) {
        sb_puts(out, i ? "," : "");
        json__index(out, op->in[i]);
    }
    sb_putc(out, ']');
    json__op_outputs(g, op, out);
    sb_puts(out, ",\"ctrl\":[");
    for (uint32_t i = 0; i < op->nctrl; i++) {
        sb_printf(out, "%s{\"op\":%d,\"explicit\":", i ? "," : "", (int)op->ctrl[i]);
        json__bool(out, op->ctrl_explicit && op->ctrl_explicit[i]);
        sb_putc(out, '}');
    }
    sb_printf(out, "],\"stream\":%d,\"sk\":", op->stream);
    json__index(out, op->sk);
    if (op->file) {
        sb_puts(out, ",\"file\":");
        plan__json_str(out, op->file);
    }
    sb_printf(out, ",\"line\":%u,\"col\":%u,\"attrs\":", op->line, op->col);
    plan_op_attrs_json(g, (int32_t)o, out);
    sb_putc(out, '}');
}

static void json__ops(const Plan *p, StrBuf *out)
{
    const Graph *g = p->g;
    sb_puts(out, "\"ops\":[");
    for (size_t o = 0; o < g->ops.n; o++) {
        json__item(out, o);
        json__op(p, o, out);
    }
    sb_puts(out, "]");
}

/* {"unit":3,"op":4,"wait":[],"record":[0]} or {"unit":4,"segment":0,...} */
static void json__unit(const Plan *p, int32_t u, StrBuf *out)
{
    const PlanUnit *unit = &p->units.v[u];
    sb_printf(out, "{\"unit\":%d,", (int)u);
    if (unit->op >= 0)
        sb_printf(out, "\"op\":%d", (int)unit->op);
    else
        sb_printf(out, "\"segment\":%d", unit->seg);
    sb_puts(out, ",\"wait\":");
    json__ids(out, unit->wait, unit->nwait);
    sb_puts(out, ",\"record\":");
    json__ids(out, unit->record, unit->nrecord);
    sb_putc(out, '}');
}

static void json__streams(const Plan *p, StrBuf *out)
{
    size_t n = p->streams.n > p->g->streams.n ? p->streams.n : p->g->streams.n;
    sb_puts(out, "\"streams\":[");
    for (size_t s = 0; s < n; s++) {
        json__item(out, s);
        json__streams_decl(p->g, s, out);
        sb_puts(out, "\"schedule\":[");
        for (size_t k = 0; s < p->streams.n && k < p->streams.v[s].nunits; k++) {
            sb_puts(out, k ? "," : "");
            json__unit(p, p->streams.v[s].units[k], out);
        }
        sb_puts(out, "]");
        if (p->runs_on && s < p->g->streams.n)   /* the cost model (streams.c) */
            sb_printf(out, ",\"runs_on\":%d,\"work_ns\":%lld,\"runs\":%d", p->runs_on[s],
                      (long long)p->work_ns[s], p->handoffs[s]);
        sb_puts(out, "}");
    }
    sb_puts(out, "]");
}

static void json__events(const Plan *p, StrBuf *out)
{
    sb_puts(out, "\"events\":[");
    for (size_t i = 0; i < p->events.n; i++) {
        const PlanEvent *e = &p->events.v[i];
        json__item(out, i);
        sb_printf(out, "{\"id\":%zu,\"from\":%d,\"to\":%d,\"after_unit\":%d,\"before_unit\":%d,\"after_op\":", i,
                  e->from, e->to, (int)e->after, (int)e->before);
        json__index(out, plan__unit_op(p, e->after, 1));
        sb_puts(out, ",\"before_op\":");
        json__index(out, plan__unit_op(p, e->before, 0));
        sb_puts(out, ",\"explicit\":");
        json__bool(out, e->explicit_wait);
        sb_putc(out, '}');
    }
    sb_puts(out, "]");
}

static void json__segments_of(const Plan *p, int sk, StrBuf *out)
{
    int n = 0;
    sb_puts(out, ",\"segments\":[");
    for (size_t i = 0; i < p->segs.n; i++) {
        const PlanSegment *s = &p->segs.v[i];
        if (s->sk != sk)
            continue;
        sb_printf(out, "%s{\"id\":%zu,\"ops\":", n++ ? "," : "", i);
        json__ids(out, s->ops, s->nops);
        sb_printf(out, ",\"stream\":%d,\"split\":", s->stream);
        plan__json_str(out, plan__str(s->split));
        sb_putc(out, '}');
    }
    sb_putc(out, ']');
}

static void json__super_kernels(const Plan *p, StrBuf *out)
{
    const Graph *g = p->g;
    sb_puts(out, "\"super_kernels\":[");
    for (size_t i = 0; i < g->sks.n; i++) {
        const GraphSk *sk = &g->sks.v[i];
        json__item(out, i);
        sb_printf(out, "{\"id\":%zu,\"scope\":", i);
        plan__json_str(out, sk->name);
        sb_puts(out, ",\"options\":");
        plan__json_str(out, sk->options);
        sb_printf(out, ",\"line\":%u,\"col\":%u", sk->line, sk->col);
        json__segments_of(p, (int)i, out);
        sb_putc(out, '}');
    }
    sb_puts(out, "]");
}

/* "key":{"4":0,"5":16}: the per-value entries of arr that are >= min. */
static void json__value_map(const Graph *g, const char *key, const int64_t *arr, const int32_t *arr32,
                            int64_t min, StrBuf *out)
{
    int n = 0;
    sb_printf(out, ",\"%s\":{", key);
    for (size_t v = 0; v < g->vals.n && (arr || arr32); v++) {
        int64_t x = arr ? arr[v] : arr32[v];
        if (x < min)
            continue;
        sb_printf(out, "%s\"%zu\":%lld", n++ ? "," : "", v, (long long)x);
    }
    sb_putc(out, '}');
}

static void json__memory(const Plan *p, StrBuf *out)
{
    sb_puts(out, "\"memory\":[");
    for (size_t gi = 0; gi < p->mem.n; gi++) {
        const PlanMemory *m = &p->mem.v[gi];
        json__item(out, gi);
        sb_printf(out, "{\"gear\":%zu,\"dynamic\":", gi);
        json__bool(out, m->dynamic);
        if (m->dynamic)
            sb_puts(out, ",\"arena_bytes\":null,\"naive_bytes\":null");
        else
            sb_printf(out, ",\"arena_bytes\":%lld,\"naive_bytes\":%lld", (long long)m->arena_bytes,
                      (long long)m->naive_bytes);
        json__value_map(p->g, "offsets", m->dynamic ? NULL : m->offset, NULL, 0, out);
        json__value_map(p->g, "bytes", m->dynamic ? NULL : m->bytes, NULL, 1, out);
        json__value_map(p->g, "inplace", NULL, m->inplace_of, 0, out);
        sb_putc(out, '}');
    }
    sb_puts(out, "]");
}

static void json__rowindep(const Plan *p, StrBuf *out)
{
    const Graph *g = p->g;
    sb_puts(out, "\"row_independence\":[");
    for (size_t i = 0; i < p->rowindep.n; i++) {
        const PlanRowIndep *r = &p->rowindep.v[i];
        int has_op = r->op >= 0 && (size_t)r->op < g->ops.n;
        json__item(out, i);
        sb_puts(out, "{\"symbol\":");
        plan__json_str(out, r->sym >= 0 && (size_t)r->sym < g->syms.n ? g->syms.v[r->sym].name : NULL);
        sb_puts(out, ",\"independent\":");
        json__bool(out, r->independent);
        sb_puts(out, ",\"op\":");
        json__index(out, has_op ? r->op : -1);
        if (has_op)
            sb_printf(out, ",\"line\":%u,\"col\":%u", g->ops.v[r->op].line, g->ops.v[r->op].col);
        else
            sb_puts(out, ",\"line\":null,\"col\":null");
        sb_puts(out, ",\"why\":");
        plan__json_str(out, r->why);
        sb_putc(out, '}');
    }
    sb_puts(out, "]");
}

static void json__kernels(const Plan *p, StrBuf *out)
{
    sb_puts(out, "\"static_kernels\":[");
    for (size_t i = 0; i < p->kernels.n; i++) {
        const StaticKernel *k = &p->kernels.v[i];
        json__item(out, i);
        sb_puts(out, "{\"key\":");
        plan__json_str(out, k->key);
        sb_printf(out, ",\"op\":%d,\"kind\":\"%s\",\"acl\":\"%s\",\"gear\":%d,\"count\":%d,\"selected\":",
                  (int)k->op, op_info[k->kind].name, p->op_type(p->g, k->op), k->gear, k->count);
        json__bool(out, k->selected);
        sb_putc(out, '}');
    }
    sb_puts(out, "]");
}

/* The sections of the entry object after its name and location, in order. */
static void (*const json__sections[])(const Plan *, StrBuf *) = {
    json__config, json__symbols, json__inputs, json__weights, json__outputs, json__gears, json__ops,
    json__streams, json__events, json__super_kernels, json__memory, json__rowindep, json__kernels,
};

/* "constants":{"bytes":384,"ops":[1,2,16,17],"offsets":{"4":0,...}}: the
 * ops run once at create and where their buffers are in the constant
 * block (only when the plan has any) */
static void json__consts(const Plan *p, StrBuf *out)
{
    sb_printf(out, "\"constants\":{\"bytes\":%lld,\"ops\":[", (long long)p->const_bytes);
    size_t n = 0;
    for (size_t i = 0; i < p->g->ops.n; i++)
        if (p->const_op[i])
            sb_printf(out, n++ ? ",%zu" : "%zu", i);
    sb_puts(out, "],\"offsets\":{");
    n = 0;
    for (size_t v = 0; v < p->g->vals.n; v++)
        if (p->const_off[v] >= 0)
            sb_printf(out, n++ ? ",\"%zu\":%lld" : "\"%zu\":%lld", v, (long long)p->const_off[v]);
    sb_puts(out, "}}");
}

void plan_json(const Plan *self, StrBuf *out)
{
    plan_json_with(self, out, NULL);
}

void plan_json_with(const Plan *self, StrBuf *out, void (*extra)(const Plan *, StrBuf *))
{
    const Graph *g = self->g;
    sb_puts(out, "{\"name\":");
    plan__json_str(out, g->name);
    sb_puts(out, ",\"file\":");
    plan__json_str(out, g->file);
    sb_printf(out, ",\"line\":%u,\"col\":%u", g->line, g->col);
    for (size_t i = 0; i < sizeof json__sections / sizeof *json__sections; i++) {
        sb_puts(out, ",\n ");
        json__sections[i](self, out);
    }
    if (self->nconst) {
        sb_puts(out, ",\n ");
        json__consts(self, out);
    }
    plan_comm_json(self, out);
    if (extra)
        extra(self, out);
    sb_puts(out, "}\n");
}

/* ===================================================================== */
/* DOT                                                                   */
/* ===================================================================== */

/* Fill colours of the streams (stream i takes colour i mod 8). */
static const char *const dot__palette[] = {
    "#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6", "#fb9a99", "#ffff99", "#8dd3c7", "#d9d9d9",
};

/* A DOT string literal; '\n' in s becomes the DOT line break "\n". */
static void dot__str(StrBuf *out, const char *s)
{
    sb_putc(out, '"');
    for (s = plan__str(s); *s; s++) {
        if (*s == '\n')
            sb_puts(out, "\\n");
        else if (*s == '"' || *s == '\\')
            sb_printf(out, "\\%c", *s);
        else if ((unsigned char)*s >= 0x20)
            sb_putc(out, *s);
    }
    sb_putc(out, '"');
}

/* The name of the graph input or weight whose value is v, or NULL. */
static const char *dot__source_name(const Graph *g, int32_t v)
{
    for (size_t i = 0; i < g->inputs.n; i++)
        if (g->inputs.v[i].value == v)
            return g->inputs.v[i].name;
    for (size_t i = 0; i < g->weights.n; i++)
        if (g->weights.v[i].value == v)
            return g->weights.v[i].name;
    return NULL;
}

/* The stream op o runs on: its unit's (a segment runs on its first op's
 * stream), else the one it was written for. */
static int dot__stream(const Plan *p, size_t o)
{
    int32_t u = p->unit_of_op ? p->unit_of_op[o] : -1;
    int s = u >= 0 && (size_t)u < p->units.n ? p->units.v[u].stream : p->g->ops.v[o].stream;
    return s < 0 ? 0 : s;
}

/* n4 [label="%4 add\nf16[1000,1000]", fillcolor="..."]; */
static void dot__node(const Plan *p, size_t o, const char *indent, const char *pre, StrBuf *out)
{
    const Graph *g = p->g;
    const Op *op = &g->ops.v[o];
    StrBuf label = {0};
    int source = (op_info[op->kind].flags & OPF_SOURCE) != 0;
    plan__op_ref(g, (int32_t)o, &label);
    sb_putc(&label, ' ');
    sb_puts(&label, source && op->nout ? plan__str(dot__source_name(g, op->out)) : op_info[op->kind].name);
    for (uint32_t k = 0; k < op->nout; k++) {
        sb_putc(&label, '\n');
        plan__type(g, op->out + (int32_t)k, NULL, &label);
    }
    sb_printf(out, "%s%sn%zu [label=", indent, pre, o);
    dot__str(out, label.s);
    if (source)
        sb_puts(out, ", shape=box, fillcolor=\"#ffffff\"];\n");
    else
        sb_printf(out, ", fillcolor=\"%s\"];\n", dot__palette[dot__stream(p, o) % 8]);
    sb_free(&label);
}

static void dot__clusters(const Plan *p, const char *pre, StrBuf *out)
{
    const Graph *g = p->g;
    for (size_t i = 0; i < p->segs.n; i++) {
        const PlanSegment *s = &p->segs.v[i];
        const char *name = s->sk >= 0 && (size_t)s->sk < g->sks.n ? g->sks.v[s->sk].name : NULL;
        sb_printf(out, "  subgraph cluster_%sseg%zu {\n    label=", pre, i);
        dot__str(out, plan__str(name));
        sb_puts(out, ";\n    style=dashed;\n");
        for (size_t k = 0; k < s->nops; k++)
            dot__node(p, (size_t)s->ops[k], "    ", pre, out);
        sb_puts(out, "  }\n");
    }
}

/* 1 when op o belongs to a segment (its node is drawn in the cluster). */
static int dot__in_segment(const Plan *p, int32_t o)
{
    if (p->unit_of_op && p->units.n) {
        int32_t u = p->unit_of_op[o];
        return u >= 0 && (size_t)u < p->units.n && p->units.v[u].seg >= 0;
    }
    for (size_t i = 0; i < p->segs.n; i++)
        for (size_t k = 0; k < p->segs.v[i].nops; k++)
            if (p->segs.v[i].ops[k] == o)
                return 1;
    return 0;
}

/* Position of every unit in its stream's schedule. */
static size_t *dot__positions(const Plan *p)
{
    size_t *pos = xcalloc(p->units.n + 1, sizeof *pos);
    for (size_t s = 0; s < p->streams.n; s++)
        for (size_t k = 0; k < p->streams.v[s].nunits; k++)
            pos[p->streams.v[s].units[k]] = k;
    return pos;
}

/* The event that orders unit `from` before unit `to` on another stream:
 * one between exactly these units, else the first one recorded after
 * `from` and waited for before `to`; -1 when none does directly. */
static int dot__event(const Plan *p, const size_t *pos, int32_t from, int32_t to)
{
    for (size_t i = 0; i < p->events.n; i++)
        if (p->events.v[i].after == from && p->events.v[i].before == to)
            return (int)i;
    const PlanUnit *uf = &p->units.v[from], *ut = &p->units.v[to];
    for (size_t i = 0; i < p->events.n; i++) {
        const PlanEvent *e = &p->events.v[i];
        if (e->from == uf->stream && e->to == ut->stream && pos[e->after] >= pos[from] && pos[e->before] <= pos[to])
            return (int)i;
    }
    return -1;
}

/* "n3 -> n4 [...];" with the event label when it crosses streams. */
static void dot__edge(const Plan *p, const size_t *pos, int32_t from, int32_t to, int dashed, const char *pre,
                      StrBuf *out)
{
    sb_printf(out, "  %sn%d -> %sn%d", pre, (int)from, pre, (int)to);
    int ev = -1;
    if (p->unit_of_op && p->units.n) {
        int32_t uf = p->unit_of_op[from], ut = p->unit_of_op[to];
        if (uf >= 0 && ut >= 0 && p->units.v[uf].stream != p->units.v[ut].stream)
            ev = dot__event(p, pos, uf, ut);
    }
    if (dashed && ev >= 0)
        sb_printf(out, " [style=dashed, label=\"e%d\"]", ev);
    else if (dashed)
        sb_puts(out, " [style=dashed]");
    else if (ev >= 0)
        sb_printf(out, " [label=\"e%d\"]", ev);
    sb_puts(out, ";\n");
}

static int dot__seen_producer(const Graph *g, const Op *op, uint32_t i)
{
    for (uint32_t j = 0; j < i; j++)
        if (op->in[j] >= 0 && g->vals.v[op->in[j]].op == g->vals.v[op->in[i]].op)
            return 1;
    return 0;
}

static void dot__edges(const Plan *p, const char *pre, StrBuf *out)
{
    const Graph *g = p->g;
    size_t *pos = dot__positions(p);
    for (size_t o = 0; o < g->ops.n; o++) {
        const Op *op = &g->ops.v[o];
        for (uint32_t i = 0; i < op->nin; i++)
            if (op->in[i] >= 0 && !dot__seen_producer(g, op, i))
                dot__edge(p, pos, g->vals.v[op->in[i]].op, (int32_t)o, 0, pre, out);
        for (uint32_t i = 0; i < op->nctrl; i++)
            dot__edge(p, pos, op->ctrl[i], (int32_t)o, 1, pre, out);
    }
    for (size_t i = 0; i < g->outputs.n; i++)
        sb_printf(out, "  %sn%d -> %sout%zu;\n", pre, (int)g->vals.v[g->outputs.v[i].value].op, pre, i);
    free(pos);
}

/* The nodes, clusters and edges of self's graph, their ids prefixed by pre. */
static void dot__graph(const Plan *self, const char *pre, StrBuf *out)
{
    const Graph *g = self->g;
    for (size_t o = 0; o < g->ops.n; o++)
        if (op_info[g->ops.v[o].kind].flags & OPF_SOURCE)
            dot__node(self, o, "  ", pre, out);
    dot__clusters(self, pre, out);
    for (size_t o = 0; o < g->ops.n; o++)
        if (!(op_info[g->ops.v[o].kind].flags & OPF_SOURCE) && !dot__in_segment(self, (int32_t)o))
            dot__node(self, o, "  ", pre, out);
    for (size_t i = 0; i < g->outputs.n; i++) {
        sb_printf(out, "  %sout%zu [label=", pre, i);
        dot__str(out, g->outputs.v[i].name);
        sb_puts(out, ", shape=box, style=rounded];\n");
    }
    dot__edges(self, pre, out);
}

#define DOT__NODE_STYLE "  node [shape=ellipse, style=filled, fontname=\"monospace\"];\n"

void plan_dot(const Plan *self, StrBuf *out)
{
    sb_puts(out, "digraph ");
    dot__str(out, self->g->name);
    sb_puts(out, " {\n" DOT__NODE_STYLE);
    dot__graph(self, "", out);
    sb_puts(out, "}\n");
}

void plan_dot_all(const Plan *plans, size_t n, const char *file, StrBuf *out)
{
    if (n == 1) {
        plan_dot(&plans[0], out);
        return;
    }
    sb_puts(out, "digraph ");
    dot__str(out, file);
    sb_puts(out, " {\n" DOT__NODE_STYLE);
    for (size_t i = 0; i < n; i++) {
        char pre[32];
        snprintf(pre, sizeof pre, "e%zu_", i);
        sb_printf(out, "subgraph cluster_%sentry {\n  label=", pre);
        dot__str(out, plans[i].g->name);
        sb_puts(out, ";\n");
        dot__graph(&plans[i], pre, out);
        sb_puts(out, "}\n");
    }
    sb_puts(out, "}\n");
}
