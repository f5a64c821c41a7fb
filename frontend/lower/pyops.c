/*
 * pyops.c - Python's operators on the values of the lowering: binary
 * arithmetic (ints exact in 64 bits, an overflow an unknown; floats;
 * symbolic dims; sequence + and *), comparisons (< <= > >= == != in is),
 * and subscripts of tuples, lists, dicts, strings and module lists. An
 * operand that is a tensor goes to the torch library (torchlib_binop,
 * torchlib_subscript).
 */
#define _GNU_SOURCE   /* memmem */
#include "pyops.h"
#include "dimgears.h"
#include "numpylib.h"

#include <math.h>
#include <string.h>

/* ===================================================================== */
/* Arithmetic                                                            */
/* ===================================================================== */

/* Python's a // b and a % b (floored) for b != 0 and not (a, b) =
 * (INT64_MIN, -1), the one quotient that overflows. */
static int64_t pyops__floordiv64(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;   /* |b| >= 2 here, so |q| <= 2^62: no overflow */
    return q;
}

static int64_t pyops__floormod64(int64_t a, int64_t b)
{
    int64_t r = a % b;
    if (r != 0 && (r < 0) != (b < 0))
        r += b;   /* opposite signs: no overflow */
    return r;
}

/* x << y for y >= 0; 1 on overflow. */
static int pyops__shl64(int64_t *r, int64_t x, int64_t y)
{
    if (x == 0 || y == 0) {
        *r = x;
        return 0;
    }
    if (y >= 63) {
        *r = INT64_MIN;
        return !(x == -1 && y == 63);
    }
    return graph_ckd_mul(r, x, (int64_t)1 << y);
}

/* x ** y for y >= 0, exact (square and multiply); 1 on overflow. When a
 * square overflows with bits of y left, the result (|x| >= 2) would too. */
static int pyops__pow64(int64_t *r, int64_t x, int64_t y)
{
    int64_t acc = 1, base = x;
    while (y > 0) {
        if ((y & 1) && graph_ckd_mul(&acc, acc, base))
            return 1;
        y >>= 1;
        if (y > 0 && graph_ckd_mul(&base, base, base))
            return 1;
    }
    *r = acc;
    return 0;
}

/* An int op of Python on x and y into *r: 0, 1 on overflow, -1 when op is
 * not one on ints ('/', negative powers: floats), -2 for a Python error
 * (*why says which). */
static int pyops__int_op(const char *op, int64_t x, int64_t y, int64_t *r, const char **why)
{
    if (strcmp(op, "+") == 0) return graph_ckd_add(r, x, y);
    if (strcmp(op, "-") == 0) return graph_ckd_sub(r, x, y);
    if (strcmp(op, "*") == 0) return graph_ckd_mul(r, x, y);
    if (strcmp(op, "&") == 0) return *r = x & y, 0;
    if (strcmp(op, "|") == 0) return *r = x | y, 0;
    if (strcmp(op, "^") == 0) return *r = x ^ y, 0;
    if (strcmp(op, "<<") == 0 || strcmp(op, ">>") == 0) {
        if (y < 0)
            return *why = "negative shift count", -2;
        if (op[0] == '<')
            return pyops__shl64(r, x, y);
        *r = y >= 63 ? (x < 0 ? -1 : 0) : x >> y;   /* floor, as Python */
        return 0;
    }
    if (strcmp(op, "//") == 0 || strcmp(op, "%") == 0) {
        if (y == 0)
            return *why = "integer division by zero", -2;
        if (y == -1)   /* INT64_MIN // -1 is 2^63 */
            return op[0] == '%' ? (*r = 0, 0) : graph_ckd_sub(r, 0, x);
        *r = op[0] == '%' ? pyops__floormod64(x, y) : pyops__floordiv64(x, y);
        return 0;
    }
    if (strcmp(op, "**") == 0 && y >= 0)
        return pyops__pow64(r, x, y);
    return -1;
}

static Obj *pyops__dim_binop(Interp *I, const char *op, Obj *l, Obj *r, int32_t node)
{
    DimId a = obj_as_dim(I, l), b = obj_as_dim(I, r);
    if (a < 0 || b < 0)
        return NULL;
    Graph *g = I->g;
    if (strcmp(op, "+") == 0) return obj_dim(I, graph_dim_add(g, a, b));
    if (strcmp(op, "-") == 0) return obj_dim(I, graph_dim_sub(g, a, b));
    if (strcmp(op, "*") == 0) return obj_dim(I, graph_dim_mul(g, a, b));
    if (strcmp(op, "//") == 0) return obj_dim(I, graph_dim_div(g, a, b));
    return interp_break(I, node, RULE_TNG204, "'%s' on a dynamic dimension", op);
}

static Obj *pyops__num_binop(Interp *I, const char *op, Obj *l, Obj *r, int32_t node)
{
    int64_t x, y;
    double a, b;
    if (obj_int_value(l, &x) && obj_int_value(r, &y)) {
        int64_t v = 0;
        const char *why = NULL;
        int k = pyops__int_op(op, x, y, &v, &why);
        if (k == -2)
            return interp_break(I, node, RULE_TNG205, "%s", why);
        if (k >= 0)
            return obj_int_checked(I, k, v, node);
    }
    if (!obj_num_value(l, &a) || !obj_num_value(r, &b))
        return NULL;
    if (strcmp(op, "+") == 0) return obj_float(I, a + b);
    if (strcmp(op, "-") == 0) return obj_float(I, a - b);
    if (strcmp(op, "*") == 0) return obj_float(I, a * b);
    if (strcmp(op, "/") == 0)
        return b == 0 ? interp_break(I, node, RULE_TNG205, "division by zero") : obj_float(I, a / b);
    if (strcmp(op, "//") == 0)
        return b == 0 ? interp_break(I, node, RULE_TNG205, "division by zero") : obj_float(I, floor(a / b));
    if (strcmp(op, "%") == 0)
        return b == 0 ? interp_break(I, node, RULE_TNG205, "division by zero") : obj_float(I, a - floor(a / b) * b);
    if (strcmp(op, "**") == 0) return obj_float(I, pow(a, b));
    return NULL;
}

static Obj *pyops__seq_concat(Interp *I, Obj *l, Obj *r)
{
    Obj *o = obj_seq(I, l->kind);
    for (size_t i = 0; i < l->n; i++)
        obj_push(I, o, l->items[i]);
    for (size_t i = 0; i < r->n; i++)
        obj_push(I, o, r->items[i]);
    return o;
}

Obj *pyops_binop(Interp *I, const char *op, Obj *l, Obj *r, int32_t node)
{
    if (I->tracing && (l->kind == O_UNKNOWN || r->kind == O_UNKNOWN) &&
        (l->kind == O_TENSOR || r->kind == O_TENSOR || obj_is_reported(l) || obj_is_reported(r))) {
        const char *what = interp_printf(I, "an operand of '%s'", op);
        interp_need(I, l, node, what);
        interp_need(I, r, node, what);
        return obj_unknown_reported(I);
    }
    if (l->kind == O_TENSOR || r->kind == O_TENSOR) {
        l = interp_trace_in(I, l, node), r = interp_trace_in(I, r, node);
        size_t ndiag = I->sf->diags.n;
        Obj *t = torchlib_binop(I, op, l, r, node);
        if (t && t->kind == O_UNKNOWN && I->tracing && I->sf->diags.n > ndiag)
            obj_mark_reported(I, t);
        return t ? t : interp_break(I, node, RULE_TNG203, "operator '%s' on a tensor", op);
    }
    if (l->kind == O_UNKNOWN || r->kind == O_UNKNOWN)
        return obj_is_reported(l) || obj_is_reported(r) ? obj_unknown_reported(I) : obj_unknown(I, NULL);
    if (l->kind == O_DIM || r->kind == O_DIM) {
        Obj *d = pyops__dim_binop(I, op, l, r, node);
        if (d)
            return d;
    }
    Obj *x = pyops__num_binop(I, op, l, r, node);
    if (x)
        return numpy_result(x, l, r);
    if (strcmp(op, "+") == 0 && l->kind == r->kind && (l->kind == O_TUPLE || l->kind == O_LIST)) {
        if (l->n + r->n > INTERP_MAX_ITEMS) {
            interp_limit(I, node, "a container of more than 100,000 items");
            return obj_unknown(I, NULL);
        }
        return pyops__seq_concat(I, l, r);
    }
    if (strcmp(op, "+") == 0 && l->kind == O_STR && r->kind == O_STR) {
        if (!interp_str_fits(I, node, l->len + r->len, "'+'"))
            return obj_unknown(I, NULL);
        char *out = interp_alloc(I, l->len + r->len + 1);
        memcpy(out, l->s, l->len);
        memcpy(out + l->len, r->s, r->len);
        return obj_str(I, out);
    }
    int64_t k;
    if (strcmp(op, "*") == 0 && (l->kind == O_STR || r->kind == O_STR) &&
        obj_int_value(l->kind == O_STR ? r : l, &k)) {   /* "-" * 20, 2 * "ab" */
        const Obj *t = l->kind == O_STR ? l : r;
        if (k < 0)
            k = 0;
        if (t->len && (uint64_t)k > INTERP_MAX_STR / t->len) {
            interp_str_fits(I, node, (size_t)INTERP_MAX_STR + 1, "'*'");
            return obj_unknown(I, NULL);
        }
        char *out = interp_alloc(I, t->len * (size_t)k + 1);
        for (int64_t j = 0; j < k; j++)
            memcpy(out + (size_t)j * t->len, t->s, t->len);
        return obj_str(I, out);
    }
    if (strcmp(op, "*") == 0 && (l->kind == O_TUPLE || l->kind == O_LIST) && obj_int_value(r, &k)) {
        if (l->n && k > INTERP_MAX_ITEMS / (int64_t)l->n) {
            interp_limit(I, node, "a container of more than 100,000 items");
            return obj_unknown(I, NULL);
        }
        Obj *o = obj_seq(I, l->kind);
        for (int64_t j = 0; j < k; j++)
            for (size_t i = 0; i < l->n; i++)
                obj_push(I, o, l->items[i]);
        return o;
    }
    return interp_break(I, node, RULE_TNG203, "operator '%s' on these operands", op);
}

/* <, <=, >, >=, ==, !=, in, not in, is, is not */
Obj *pyops_compare(Interp *I, const char *op, Obj *l, Obj *r, int32_t node)
{
    if (obj_is_reported(l) || obj_is_reported(r))
        return obj_unknown_reported(I);
    if (strcmp(op, "is") == 0 || strcmp(op, "is not") == 0) {
        int neg = op[2] == ' ';
        int res;
        if (l->kind == O_UNKNOWN || r->kind == O_UNKNOWN)
            return obj_unknown(I, NULL);
        if (l->kind == O_NONE || r->kind == O_NONE)
            res = l->kind == r->kind;
        else if (l->kind == O_BOOL && r->kind == O_BOOL)
            res = l->i == r->i;
        else if (l->kind == O_DTYPE && r->kind == O_DTYPE)
            res = l->dtype == r->dtype;   /* torch's dtypes are one object each (torch.float is torch.float32) */
        else
            res = l == r || (l->kind == O_TENSOR && r->kind == O_TENSOR && l->t == r->t);
        return obj_bool(I, neg ? !res : res);
    }
    if (strcmp(op, "in") == 0 || strcmp(op, "not in") == 0) {
        int neg = op[0] == 'n';
        if (r->kind == O_DICT) {
            long i = obj_dict_find(I, r, l);
            return i == -2 ? obj_unknown(I, NULL) : obj_bool(I, neg ? i < 0 : i >= 0);
        }
        if (r->kind == O_TUPLE || r->kind == O_LIST || r->kind == O_SET) {
            int unk = 0;
            for (size_t i = 0; i < r->n; i++) {
                int e = obj_eq(I, l, r->items[i]);
                if (e == 1)
                    return obj_bool(I, !neg);
                unk |= e < 0;
            }
            return unk ? obj_unknown(I, NULL) : obj_bool(I, neg);
        }
        if (r->kind == O_STR && l->kind == O_STR) {
            interp_work(I, 1 + r->len / 64);   /* a search through a long text */
            return obj_bool(I, neg != (memmem(r->s, r->len, l->s, l->len) != NULL));
        }
        if (obj_is_module_dict(r) && l->kind == O_STR)
            return obj_bool(I, neg != (obj_getattr(r, l->s) != NULL));
        return obj_unknown(I, NULL);
    }
    if (l->kind == O_TENSOR || r->kind == O_TENSOR)   /* a bool tensor: a value (torchlib) */
        return pyops_binop(I, op, l, r, node);
    if (strcmp(op, "==") == 0 || strcmp(op, "!=") == 0) {
        int e = obj_eq(I, l, r);
        if (e < 0) {
            int res;
            if (l->kind == O_DIM || r->kind == O_DIM)   /* decided when every gear agrees */
                return dimgears_compare(I, op, l, r, node, &res) ? obj_bool(I, res) : obj_unknown_reported(I);
            return obj_unknown(I, NULL);
        }
        return obj_bool(I, op[0] == '=' ? e : !e);
    }
    double a, b;
    int64_t p, q;
    if (obj_int_value(l, &p) && obj_int_value(r, &q)) {   /* exact: no double above 2^53 */
        a = p < q ? -1 : p > q;
        b = 0;
    } else if (l->kind == O_DIM || r->kind == O_DIM) {
        int64_t x, y;
        DimId da = obj_as_dim(I, l), db = obj_as_dim(I, r);
        if (da < 0 || db < 0 || !graph_dim_const_value(I->g, da, &x) || !graph_dim_const_value(I->g, db, &y)) {
            int res;   /* decided when every gear agrees */
            return dimgears_compare(I, op, l, r, node, &res) ? obj_bool(I, res) : obj_unknown_reported(I);
        }
        a = (double)x, b = (double)y;
    } else if (l->kind == O_STR && r->kind == O_STR) {
        a = strcmp(l->s, r->s), b = 0;
    } else if (!obj_num_value(l, &a) || !obj_num_value(r, &b)) {
        return obj_unknown(I, NULL);
    }
    int res = strcmp(op, "<") == 0 ? a < b : strcmp(op, "<=") == 0 ? a <= b :
              strcmp(op, ">") == 0 ? a > b : a >= b;
    return obj_bool(I, res);
}

/* ===================================================================== */
/* Subscripts                                                            */
/* ===================================================================== */

static Obj *pyops__seq_slice(Interp *I, Obj *seq, Obj *sl)
{
    int64_t n = (int64_t)seq->n, a = 0, b = n, st = 1;
    if (sl->items[2]->kind != O_NONE && (!obj_int_value(sl->items[2], &st) || st == 0))
        return obj_unknown(I, NULL);
    if (st < 0)
        a = n - 1, b = -n - 1;
    if (sl->items[0]->kind != O_NONE && !obj_int_value(sl->items[0], &a))
        return obj_unknown(I, NULL);
    if (sl->items[1]->kind != O_NONE && !obj_int_value(sl->items[1], &b))
        return obj_unknown(I, NULL);
    if (a < 0) a += n;
    if (b < 0) b += n;
    Obj *o = obj_seq(I, seq->kind == O_INST ? O_LIST : seq->kind);
    if (st > 0) {
        if (a < 0) a = 0;
        if (b > n) b = n;
        for (int64_t i = a; i < b;) {
            obj_push(I, o, seq->items[i]);
            if (graph_ckd_add(&i, i, st))
                break;   /* l[1::2**63-1]: past the end */
        }
    } else {
        if (a > n - 1) a = n - 1;
        if (b < -1) b = -1;
        for (int64_t i = a; i > b;) {
            obj_push(I, o, seq->items[i]);
            if (graph_ckd_add(&i, i, st))
                break;
        }
    }
    if (seq->kind == O_INST) {
        o->kind = O_INST;
        o->s = seq->s;
    }
    return o;
}

/* s[k] and s[a:b:c] of an ASCII str (code points are bytes); NULL for
 * what is not done (non-ASCII text, an unknown index). */
static Obj *pyops__str_subscript(Interp *I, Obj *s, Obj *key, int32_t node)
{
    for (size_t k = 0; k < s->len; k++)
        if ((unsigned char)s->s[k] >= 0x80)
            return NULL;
    int64_t n = (int64_t)s->len, a = 0, b = n, st = 1, x;
    if (key->kind != O_SLICE) {
        if (!obj_int_value(key, &x))
            return NULL;
        if (x < -n || x >= n)
            return interp_break(I, node, RULE_TNG205, "string index %lld is out of range", (long long)x);
        return obj_str(I, interp_strndup(I, s->s + (x < 0 ? x + n : x), 1));
    }
    if (key->items[2]->kind != O_NONE && (!obj_int_value(key->items[2], &st) || st == 0))
        return NULL;
    if (st < 0)
        a = n - 1, b = -n - 1;
    if ((key->items[0]->kind != O_NONE && !obj_int_value(key->items[0], &a)) ||
        (key->items[1]->kind != O_NONE && !obj_int_value(key->items[1], &b)))
        return NULL;
    if (a < 0) a += n;
    if (b < 0) b += n;
    char *out = interp_alloc(I, (size_t)n + 1);
    size_t k = 0;
    if (st > 0) {
        if (a < 0) a = 0;
        if (b > n) b = n;
        for (int64_t i = a; i < b;) {
            out[k++] = s->s[i];
            if (graph_ckd_add(&i, i, st))
                break;
        }
    } else {
        if (a > n - 1) a = n - 1;
        if (b < -1) b = -1;
        for (int64_t i = a; i > b;) {
            out[k++] = s->s[i];
            if (graph_ckd_add(&i, i, st))
                break;
        }
    }
    out[k] = 0;
    return obj_str(I, out);
}

Obj *pyops_subscript(Interp *I, Obj *o, Obj *key, int32_t node)
{
    size_t i;
    if (key->kind == O_UNKNOWN && o->kind != O_TENSOR)   /* computed from the key: its cause */
        return obj_unknown_link(I, obj_unknown_from(I, key), key);
    switch (o->kind) {
    case O_STR: {
        Obj *r = pyops__str_subscript(I, o, key, node);
        return r ? r : obj_unknown(I, NULL);
    }
    case O_TUPLE: case O_LIST:
        if (key->kind == O_SLICE)
            return pyops__seq_slice(I, o, key);
        if (obj_seq_index(o, key, &i))
            return interp_trace_in(I, o->items[i], node);
        if (key->kind == O_INT)
            return interp_break(I, node, RULE_TNG205, "index %lld is out of range", (long long)key->i);
        return obj_unknown(I, NULL);
    case O_INST:
        if (obj_is_module_dict(o) && key->kind == O_STR) {
            Obj *m = obj_getattr(o, key->s);
            if (m)
                return m;
            return interp_break(I, node, RULE_TNG205, "key '%s' is not in this nn.ModuleDict", key->s);
        }
        if (obj_is_module_seq(o)) {
            if (key->kind == O_SLICE && o->cls)   /* PyTorch makes an instance of the subclass */
                return interp_break(I, node, RULE_TNG203, "a slice of an instance of %s, a subclass of %s "
                                    "(PyTorch makes a new %s of the slice; tngc does not)", o->cls->name, o->s,
                                    o->cls->name);
            if (key->kind == O_SLICE)
                return pyops__seq_slice(I, o, key);
            if (obj_seq_index(o, key, &i))
                return o->items[i];
        }
        return interp_break(I, node, RULE_TNG205, "subscript of a module tngc cannot resolve");
    case O_DICT: {
        long j = obj_dict_find(I, o, key);
        if (j >= 0)
            return interp_trace_in(I, o->items[j], node);
        if (j == -1 && I->tracing)
            return interp_break(I, node, RULE_TNG205, "key not in the dict");
        return obj_unknown(I, NULL);
    }
    case O_TENSOR:
        o = interp_trace_in(I, o, node);
        if (o->kind != O_TENSOR)
            return o;
        size_t ndiag = I->sf->diags.n;
        Obj *r = torchlib_subscript(I, o, key, node);
        obj_mark_reported_since(I, key, ndiag);
        if (r->kind == O_UNKNOWN && I->tracing) {
            if (I->sf->diags.n == ndiag)
                interp_need(I, key, node, "the index");
            obj_mark_reported(I, r);
        }
        return r;
    case O_BUILTIN:
        return o;   /* typing: Optional[dict] */
    default:
        return obj_unknown(I, NULL);
    }
}

void pyops_store_subscript(Interp *I, Obj *o, Obj *key, Obj *val, int32_t node)
{
    size_t i;
    switch (o->kind) {
    case O_LIST:
        if (obj_seq_index(o, key, &i))
            o->items[i] = obj_stored(I, val);
        else   /* an unknown index or a slice: which items changed is not known */
            obj_forget(I, o, key, node, "the index of this list assignment");
        break;
    case O_DICT:
        if (o->n >= 2 * INTERP_MAX_ITEMS) {
            interp_limit(I, node, "a dict of more than 100,000 items");
            break;
        }
        if (obj_dict_find(I, o, key) != -2)
            obj_dict_set(I, o, key, val);
        else
            obj_forget(I, o, key, node, "the key of this dict assignment");
        break;
    case O_TENSOR: {
        Obj *t = interp_trace_in(I, o, node);
        if (interp_need(I, val, node, "the value stored"))
            break;
        if (t->kind == O_TENSOR)
            torchlib_store_subscript(I, t, key, interp_trace_in(I, val, node), node);
        break;
    }
    case O_INST:
        if (obj_is_module_dict(o) && key->kind == O_STR && !I->tracing) {   /* self.blocks["k"] = m */
            obj_setattr(I, o, key->s, val);
            if (val->kind == O_TENSOR && !strcmp(o->s, "torch.nn.ParameterDict"))
                val->t->is_param = val->t->requires_grad = 1;   /* a ParameterDict makes it a Parameter */
            break;
        }
        if (obj_is_module_seq(o) && !I->tracing && obj_seq_index(o, key, &i)) {
            o->items[i] = val;
            break;
        }
        /* fall through */
    default:
        if (I->tracing && !obj_is_reported(o))
            interp_break(I, node, RULE_TNG211, "assignment to a subscript of an object tngc cannot resolve");
        break;
    }
}

