/*
 * torchlib_compare.c - the torch library (torchlib.c), comparison, selection and bool: compare, where, masked_fill, any/all, fill_.
 * Each lowering (lo_*) is under the Python signature it lowers; its lib[]
 * row is in torchlib.c; helpers shared across the library are declared
 * in torchlib_core.h and torchlib_int.h.
 */
#include "torchlib.h"
#include "torchlib_int.h"

/* ---- lowerings: comparison, selection, bool ---- */

/* The mirror of a comparison, for a scalar written on the left (2 < x is
 * x > 2): ops.def's swap column. */
static OpKind cmp__mirror(OpKind k)
{
    if (op_info[k].swap < 0)
        TNGC_BUG("cmp__mirror: %s has no mirror", op_info[k].name);
    return (OpKind)op_info[k].swap;
}

/* l op r for EQ NE LT LE GT GE with a tensor operand: a bool tensor (a
 * value, not control flow: `if l < r:` is still TNG204, where the truth of
 * the result is asked). A Python number on either side; a tensor compared
 * with None is False for == and True for != (as torch's). */
static Obj *cmp_of(Interp *I, OpKind kind, Obj *l, Obj *r, int32_t node, const char *what)
{
    if (is_unknown(l) || is_unknown(r))
        return unk(I);
    if (is_tensor(l) && is_tensor(r)) {
        int32_t in[2] = {tl_tv(I, l, node), tl_tv(I, r, node)};
        if (in[0] < 0 || in[1] < 0)
            return unk(I);
        int64_t attr[1] = {0};
        return tl_emit1(I, kind, in, 2, attr, 1, 0, 0, DT_UNKNOWN, node);
    }
    int tl = is_tensor(l);
    Obj *t = tl ? l : r, *sc = tl ? r : l;
    if (!is_tensor(t))
        return interp_break(I, node, RULE_TNG203, "%s without a tensor operand", what);
    if (is_none(sc) && (kind == OP_EQ || kind == OP_NE))
        return obj_bool(I, kind == OP_NE);
    double sv;
    int si, k = tl_scalar_operand(I, sc, node, &sv, &si);
    if (k < 0)
        return unk(I);
    if (k == 0)
        return interp_break(I, node, RULE_TNG203, "%s of a tensor and a non-number (a tensor or a "
                            "Python int, float or bool is needed)", what);
    int32_t in[2] = {tl_tv(I, t, node), -1};
    if (in[0] < 0)
        return unk(I);
    int64_t attr[1] = {si};
    return tl_emit1(I, tl ? kind : cmp__mirror(kind), in, 2, attr, 1, sv, 0, DT_UNKNOWN, node);
}

/* torch.eq(input, other) | x.eq(other) | x.ne/lt/le/gt/ge | torch.greater,
 * less, greater_equal, less_equal, not_equal (and x.<those>) */
Obj *lo_compare(Interp *I, Call *c)
{
    return cmp_of(I, (OpKind)c->arg, P0(c), P(c, "other"), c->node, c->full);
}

/* A tensor operand of a bool/bitwise op: a tensor, or a Python bool or
 * int as a 0-d tensor (bool, int64), which promotes as torch's scalars do
 * (it only counts when its category is higher). -1 after a diagnostic. */
static int32_t bool_operand(Interp *I, Obj *o, int32_t node, const char *what)
{
    if (is_tensor(o))
        return tl_tv(I, o, node);
    if (o && (o->kind == O_BOOL || o->kind == O_INT)) {
        Obj *t = tl_full_of(I, NULL, 0, (double)o->i, o->kind == O_BOOL ? DT_BOOL : DT_I64, node);
        return is_tensor(t) ? tl_tv(I, t, node) : -1;
    }
    if (!is_unknown(o))
        interp_break(I, node, RULE_TNG203, "%s of a tensor and something that is not a tensor, "
                     "bool or int", what);
    return -1;
}

/* l op r for LOGICAL_* and BITWISE_* (two operands, one a tensor). */
static Obj *bool_of(Interp *I, OpKind kind, Obj *l, Obj *r, int32_t node, const char *what)
{
    if (is_unknown(l) || is_unknown(r))
        return unk(I);
    int32_t in[2] = {bool_operand(I, l, node, what), bool_operand(I, r, node, what)};
    if (in[0] < 0 || in[1] < 0)
        return unk(I);
    return tl_emit1(I, kind, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, node);
}

/* torch.logical_and(input, other) | x.logical_or(other) | ... |
 * torch.bitwise_and(input, other) | x.bitwise_xor(other) | ...; the NOTs
 * take one operand */
Obj *lo_bool(Interp *I, Call *c)
{
    OpKind k = (OpKind)c->arg;
    if (k == OP_LOGICAL_NOT || k == OP_BITWISE_NOT) {
        int32_t x = tl_x0(I, c);
        return x < 0 ? unk(I) : tl_emit_x(I, k, x, NULL, 0, 0, DT_UNKNOWN, c->node);
    }
    return bool_of(I, k, P0(c), P(c, "other"), c->node, c->full);
}

/* The dtype a Python scalar branch of where takes against a branch of
 * dtype t (DT_UNKNOWN: the other branch is a scalar too, of kind ok):
 * torch.result_type's rule, a scalar only counting when its category
 * (bool < int < float) is higher. kind: 0 bool, 1 int, 2 float. */
static DType where__scalar_dtype(Interp *I, DType t, int kind, int other_kind)
{
    const DType def[3] = {DT_BOOL, DT_I64, graph_float(G(I))};
    if (t == DT_UNKNOWN)
        return def[kind > other_kind ? kind : other_kind];
    int ct = t == DT_BOOL ? 0 : dtype_is_float(t) ? 2 : 1;
    return kind > ct ? def[kind] : t;
}

/* torch.where(condition, input, other) | x.where(condition, y): input and
 * other tensors or Python numbers (a number becomes a 0-d full of the
 * dtype torch would give it); torch.where(condition) alone is nonzero,
 * whose shape depends on the data (torchlib_rowsel.c) */
Obj *lo_where(Interp *I, Call *c)
{
    /* x.where(condition, y): x where condition else y */
    Obj *cond = P(c, "condition"), *br[2] = {c->method ? P(c, "self") : P_if(c, "input"), P_if(c, "other")};
    if (!br[0])
        return tl_where_rows(I, cond, c->node);
    if (is_unknown(cond) || is_unknown(br[0]) || is_unknown(br[1]))
        return unk(I);
    if (!is_tensor(cond))
        return interp_break(I, c->node, RULE_TNG203, "the condition of %s must be a tensor", c->full);
    int32_t in[3] = {tl_tv(I, cond, c->node), -1, -1};
    double sv[2] = {0, 0};
    int kind[2] = {0, 0};
    for (int b = 0; b < 2; b++) {
        if (is_tensor(br[b])) {
            in[b + 1] = tl_tv(I, br[b], c->node);
            continue;
        }
        int si, k = tl_scalar_operand(I, br[b], c->node, &sv[b], &si);
        if (k < 0)
            return unk(I);
        if (k == 0)
            return interp_break(I, c->node, RULE_TNG203, "a branch of %s that is neither a tensor nor a "
                                "number", c->full);
        kind[b] = br[b]->kind == O_BOOL ? 0 : si ? 1 : 2;
    }
    for (int b = 0; b < 2; b++) {
        if (is_tensor(br[b]))
            continue;
        int32_t o = in[2 - b];
        DType t = is_tensor(br[1 - b]) && o >= 0 ? val_at(I, o)->dtype : DT_UNKNOWN;
        Obj *f = tl_full_of(I, NULL, 0, sv[b], where__scalar_dtype(I, t, kind[b], kind[1 - b]), c->node);
        if (!is_tensor(f))
            return unk(I);
        in[b + 1] = tl_tv(I, f, c->node);
    }
    if (in[0] < 0 || in[1] < 0 || in[2] < 0)
        return unk(I);
    return tl_emit1(I, OP_WHERE, in, 3, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
}

/* x.masked_fill(mask, value) | torch.masked_fill(x, mask, value): value a
 * Python number (a copy of x, then MASKED_FILL in place on it) or a 0-d
 * tensor (where(mask, value, x) cast to x's dtype). The mask broadcasts
 * to x (a mask that would enlarge x is refused). x.masked_fill_(...) is the
 * generic in-place form (tl_inplace_method). */
Obj *lo_masked_fill(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    Obj *mask = P(c, "mask"), *value = P(c, "value");
    if (x < 0)
        return unk(I);
    if (is_unknown(mask) || is_unknown(value))
        return unk(I);
    if (!is_tensor(mask))
        return interp_break(I, c->node, RULE_TNG203, "the mask of %s must be a bool tensor", c->full);
    int32_t m = tl_tv(I, mask, c->node);
    if (m < 0)
        return unk(I);
    if (is_tensor(value)) {
        int32_t in[3] = {m, tl_tv(I, value, c->node), x};
        if (in[1] < 0)
            return unk(I);
        if (rank_of(I, in[1]) != 0)
            return interp_break(I, c->node, RULE_TNG203, "the value of %s must be a Python number or a 0-d "
                                "tensor, got a %d-d tensor", c->full, rank_of(I, in[1]));
        Obj *w = tl_emit1(I, OP_WHERE, in, 3, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
        return is_tensor(w) ? tl_cast_to(I, w, val_at(I, x)->dtype, c->node) : w;
    }
    double v;
    int si, k = tl_scalar_operand(I, value, c->node, &v, &si);
    if (k < 0)
        return unk(I);
    if (k == 0)
        return interp_break(I, c->node, RULE_TNG203, "the value of %s must be a Python number or a 0-d "
                            "tensor", c->full);
    Obj *copy = tl_emit_x(I, OP_CLONE, x, NULL, 0, 0, DT_UNKNOWN, c->node);
    int32_t in[2] = {tl_tv(I, copy, c->node), m};
    if (in[0] < 0)
        return unk(I);
    return tl_emit1(I, OP_MASKED_FILL, in, 2, NULL, 0, v, 0, DT_UNKNOWN, c->node);
}

/* x.any() | x.all(dim, keepdim=False) | torch.any(x, dim=...): one int dim
 * (torch 1.13's), or all dims */
Obj *lo_any_all(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    Obj *dim = P(c, "dim"), *kd = P(c, "keepdim");
    int64_t attr[2];
    uint32_t na = 1;
    if (!tl_known(I, kd, c->node, "keepdim="))
        return unk(I);
    attr[0] = obj_flag(kd, 0);
    if (!is_none(dim)) {
        int64_t d;
        int n = rank_of(I, x);
        if (!tl_const_int(I, dim, c->node, "the dim of any/all", &d))
            return unk(I);
        if (n == 0 && (d == 0 || d == -1))
            attr[na++] = 0;
        else if (!tl_norm_dim(I, d, n, c->node, &attr[na++]))
            return unk(I);
    }
    return tl_emit_x(I, (OpKind)c->arg, x, attr, na, 0, DT_UNKNOWN, c->node);
}

/* x.zero_() | x.fill_(value): a full of x's shape and dtype written into x
 * as the in-place methods are (tl_inplace_method) */
Obj *lo_fill_(Interp *I, Call *c)
{
    Obj *self = P0(c);
    int32_t x = tl_x0(I, c);
    double v = 0;
    if (x < 0)
        return unk(I);
    if (c->arg) {
        Obj *value = P(c, "value");
        int si, k;
        if (is_unknown(value))
            return unk(I);
        if ((k = tl_scalar_operand(I, value, c->node, &v, &si)) < 0)
            return unk(I);
        if (k == 0)
            return interp_break(I, c->node, RULE_TNG203, "the value of fill_ must be a Python number");
    }
    const Val *xv = val_at(I, x);
    int64_t d[GRAPH_MAX_DIMS];
    for (int i = 0; i < xv->ndim; i++)
        d[i] = xv->dims[i];
    Obj *f = tl_full_of(I, d, xv->ndim, v, xv->dtype, c->node);
    return is_tensor(f) ? tl_augassign(I, self, f, c->node) : f;
}

/* l op r for Python's comparison and bit operators on tensors (and ~):
 * NULL when op is none of them. */
Obj *tl_compare_binop(Interp *I, const char *op, Obj *l, Obj *r, int32_t node)
{
    static const struct { const char *op; OpKind k; } ops[] = {
        {"<", OP_LT}, {"<=", OP_LE}, {">", OP_GT}, {">=", OP_GE}, {"==", OP_EQ}, {"!=", OP_NE},
        {"&", OP_BITWISE_AND}, {"|", OP_BITWISE_OR}, {"^", OP_BITWISE_XOR}};
    for (size_t i = 0; i < NELEM(ops); i++)
        if (streq(op, ops[i].op)) {
            const char *what = interp_printf(I, "operator '%s'", op);
            return i < 6 ? cmp_of(I, ops[i].k, l, r, node, what) : bool_of(I, ops[i].k, l, r, node, what);
        }
    return NULL;
}
