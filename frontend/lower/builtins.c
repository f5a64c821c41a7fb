/*
 * builtins.c - Python's builtins and the methods of lists and dicts, as
 * the lowering evaluates them on known values (len, min, range, zip,
 * sorted, getattr, isinstance, list.append, dict.get, str methods, set(),
 * set.add, iter/next ...),
 * the library helpers model code is written with (functools.partial,
 * dataclasses, collections.namedtuple, types.SimpleNamespace, math), and
 * the host-side torch functions that only return a value
 * (torch.manual_seed, torch.device).
 *
 * A builtin is a row of the table `builtins`: its name, the function that
 * evaluates it, and flags. What a builtin cannot evaluate is an unknown
 * (silently: the evaluator reports an unknown where the plan needs it).
 * Containers iterate through obj_iter (ITER_EXPAND), the one iterator of
 * Python values; builtins_iter is Python's iter(): containers and tensors.
 * The methods of str, list, dict and set are in builtins_methods.c.
 */
#include "builtins.h"
#include "numpylib.h"
#include "pyformat.h"
#include "pyops.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NELEM(a) (sizeof(a) / sizeof *(a))

Obj *builtins_iter(Interp *I, Obj *o, int32_t node)
{
    if (o->kind == O_TENSOR)
        return torchlib_rows(I, o, node);
    return obj_iter(I, o, node, ITER_LOOP);
}

/* ===================================================================== */
/* Builtin functions                                                     */
/* ===================================================================== */

static int py_compare(const Obj *a, const Obj *b, int depth);
static Obj *bi__keyed(Interp *I, Obj *l, Obj *key, int32_t node);

/* Arguments of a builtin as one iterable (f(it)) or as varargs (f(a, b, ...)). */
static Obj *varargs_or_iter(Interp *I, CallArgs *a)
{
    if (a->npos == 1)
        return obj_iter(I, a->pos[0], a->node, ITER_EXPAND);
    return obj_seq_of(I, O_LIST, a->pos, a->npos);
}

/* min(a, b, ...) | min(iterable) | max(...): ints, floats, symbolic ints */
static Obj *bi_minmax(Interp *I, const char *name, CallArgs *a)
{
    int is_max = name[1] == 'a';
    Obj *key = args_kw(a, "key");
    Obj *l = varargs_or_iter(I, a);
    if (!l || l->n == 0) {
        Obj *d = args_kw(a, "default");
        return d && l ? d : unk(I);
    }
    if (is_unknown(key))
        return unk(I);
    if (!is_none(key) || (!obj_has_unknown(l) && l->n && l->items[0]->kind != O_DIM &&
                          l->items[0]->kind != O_TENSOR && !obj_num_value(l->items[0], &(double){0}))) {
        /* key=, or strs and tuples: the first best item by Python's ordering */
        Obj *keyed = !is_none(key) ? bi__keyed(I, l, key, a->node) : NULL;
        if (!is_none(key) && !keyed)
            return unk(I);
        size_t best = 0;
        for (size_t i = 1; i < l->n; i++) {
            Obj *p = keyed ? keyed->items[i]->items[0] : l->items[i];
            Obj *q = keyed ? keyed->items[best]->items[0] : l->items[best];
            if (!keyed && (p->kind == O_DIM || p->kind == O_TENSOR || p->kind == O_UNKNOWN))
                return unk(I);
            int c = py_compare(p, q, 0);
            if (c == 2)
                return unk(I);
            if (is_max ? c > 0 : c < 0)
                best = i;
        }
        return l->items[best];
    }
    int any_dim = 0, all_int = 1;
    for (size_t i = 0; i < l->n; i++) {
        Obj *o = l->items[i];
        if (!o || o->kind == O_UNKNOWN)
            return unk(I);
        if (is_tensor(o))
            return interp_break(I, a->node, RULE_TNG204, "%s of tensors is only known at run time",
                                is_max ? "max" : "min");
        any_dim |= o->kind == O_DIM;
        all_int &= o->kind == O_INT || o->kind == O_BOOL || o->kind == O_DIM;
        if (!(o->kind == O_INT || o->kind == O_BOOL || o->kind == O_DIM || o->kind == O_FLOAT))
            return unk(I);
    }
    if (any_dim) {
        if (!all_int)
            return interp_break(I, a->node, RULE_TNG205, "min/max of a dynamic dim and a float");
        DimId r = obj_as_dim(I, l->items[0]);
        for (size_t i = 1; i < l->n; i++) {
            DimId d = obj_as_dim(I, l->items[i]);
            r = is_max ? graph_dim_max(interp_graph(I), r, d) : graph_dim_min(interp_graph(I), r, d);
        }
        return obj_dim(I, r);
    }
    Obj *best = l->items[0];
    double bv;
    obj_num_value(best, &bv);
    for (size_t i = 1; i < l->n; i++) {
        double v;
        obj_num_value(l->items[i], &v);
        if (is_max ? v > bv : v < bv)
            best = l->items[i], bv = v;
    }
    return best;
}

/* sum(iterable, start=0): numbers, symbolic ints, or tensors (added up) */
static Obj *bi_sum(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *l = obj_iter(I, args_get(a, 0, NULL), a->node, ITER_EXPAND);
    Obj *acc = args_get(a, 1, "start");
    if (!l)
        return unk(I);
    if (!acc)
        acc = obj_int(I, 0);
    for (size_t i = 0; i < l->n; i++) {
        Obj *x = l->items[i];
        int64_t z;
        if (obj_has_unknown(x) || is_unknown(acc))
            return unk(I);
        if (is_tensor(x) || is_tensor(acc)) {
            if (!is_tensor(acc) && obj_int_value(acc, &z) && z == 0) {
                acc = x;
                continue;
            }
            acc = torchlib_add(I, acc, x, a->node, "sum");
        } else if (acc->kind == O_DIM || x->kind == O_DIM) {
            DimId p = obj_as_dim(I, acc), q = obj_as_dim(I, x);
            if (p < 0 || q < 0)
                return unk(I);
            acc = obj_dim(I, graph_dim_add(interp_graph(I), p, q));
        } else {
            double u, v;
            int64_t p, q;
            if (obj_int_value(acc, &p) && obj_int_value(x, &q)) {
                int64_t t;
                int ovf = graph_ckd_add(&t, p, q);
                acc = obj_int_checked(I, ovf, t, a->node);
                if (is_unknown(acc))
                    return acc;
            }
            else if (obj_num_value(acc, &u) && obj_num_value(x, &v))
                acc = obj_float(I, u + v);
            else
                return unk(I);
        }
    }
    return acc;
}

/* range(stop) | range(start, stop[, step]): constant ints only */
static Obj *bi_range(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    int64_t v[3] = {0, 0, 1};
    if (a->npos < 1 || a->npos > 3)
        return unk(I);
    for (size_t i = 0; i < a->npos; i++) {
        Obj *o = a->pos[i];
        int64_t x;
        if (o->kind == O_DIM) {
            if (!graph_dim_const_value(interp_graph(I), o->dim, &x))
                return unk(I);   /* the loop over it reports */
        } else if (!obj_int_value(o, &x)) {
            return unk(I);
        }
        if (a->npos == 1)
            v[1] = x;
        else
            v[i] = x;
    }
    if (v[2] == 0)
        return interp_break(I, a->node, RULE_TNG205, "range() step must not be zero");
    Obj *r = obj_new(I, O_RANGE);
    Obj *items[3] = {obj_int(I, v[0]), obj_int(I, v[1]), obj_int(I, v[2])};
    r->items = interp_alloc(I, 3 * sizeof *r->items);
    memcpy(r->items, items, sizeof items);
    r->n = r->cap = 3;
    return r;
}

/* int(x) | float(x) | bool(x) | abs(x) | round(x, ndigits=None) */
static Obj *bi_number(Interp *I, const char *f, CallArgs *a)
{
    Obj *x = args_get(a, 0, NULL);
    if (!x)
        return streq(f, "float") ? obj_float(I, 0) : streq(f, "bool") ? obj_bool(I, 0) : obj_int(I, 0);
    if (is_unknown(x))
        return unk(I);
    if (is_tensor(x)) {
        if (streq(f, "abs")) {
            return torchlib_abs(I, x, a->node);
        }
        return interp_break(I, a->node, RULE_TNG204, "%s() of a tensor: its value is only known at run time", f);
    }
    if (x->kind == O_DIM) {
        int64_t c;
        if (!graph_dim_const_value(interp_graph(I), x->dim, &c)) {
            if (streq(f, "int") || streq(f, "round"))
                return x;
            return interp_break(I, a->node, RULE_TNG205, "%s() of a dynamic dim", f);
        }
        x = obj_int(I, c);
    }
    double v;
    int64_t iv;
    if (streq(f, "bool")) {
        if (obj_num_value(x, &v))
            return obj_bool(I, v != 0);
        if (x->kind == O_NONE)
            return obj_bool(I, 0);
        if (x->kind == O_STR || is_seq(x) || x->kind == O_DICT || x->kind == O_SET)
            return obj_bool(I, (x->kind == O_STR ? x->len : x->n) != 0);
        return obj_bool(I, 1);
    }
    if (x->kind == O_STR) {
        char *end;
        if (streq(f, "int")) {
            errno = 0;
            long long p = strtoll(x->s, &end, 10);
            if (*end != 0 || end == x->s)
                return unk(I);
            return obj_int_checked(I, errno == ERANGE, p, a->node);
        }
        if (streq(f, "float")) {
            double p = strtod(x->s, &end);
            return *end == 0 && end != x->s ? obj_float(I, p) : unk(I);
        }
        return unk(I);
    }
    if (!obj_num_value(x, &v))
        return unk(I);
    int isint = obj_int_value(x, &iv);
    if (streq(f, "int")) {
        if (isint)
            return obj_int(I, iv);
        if (!(v > -9.2e18 && v < 9.2e18))
            return unk(I);
        return obj_int(I, (int64_t)v);
    }
    if (streq(f, "float"))
        return obj_float(I, v);
    if (streq(f, "abs"))
        return isint ? obj_int_checked(I, iv == INT64_MIN, iv < 0 && iv != INT64_MIN ? -iv : iv, a->node)
                     : numpy_result(obj_float(I, fabs(v)), x, NULL);
    /* round: half to even, as Python */
    Obj *nd = args_get(a, 1, "ndigits");
    if (is_none(nd)) {
        if (isint)
            return obj_int(I, iv);
        double r = nearbyint(v);
        if (!(r > -9.2e18 && r < 9.2e18))
            return unk(I);
        return obj_int(I, (int64_t)r);
    }
    int64_t k;
    if (!obj_int_value(nd, &k) || k > 300 || k < -300)
        return unk(I);
    if (numpy_is_f64(x))   /* numpy rounds x * 10**k, not the exact decimal value */
        return interp_break(I, a->node, RULE_TNG205, "round() of a numpy.float64 with ndigits");
    if (isint && k >= 0)
        return obj_int(I, iv);
    if (k >= 0 && isfinite(v)) {   /* the exact value rounded half-even, as Python's round */
        char buf[700];   /* %.300f of 1e308: 611 bytes */
        snprintf(buf, sizeof buf, "%.*f", (int)(k > 300 ? 300 : k), v);
        return obj_float(I, strtod(buf, NULL));
    }
    double p = pow(10.0, (double)k);
    return obj_float(I, nearbyint(v * p) / p);
}

/* enumerate(iterable, start=0) */
static Obj *bi_enumerate(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *l = obj_iter(I, args_get(a, 0, "iterable"), a->node, ITER_EXPAND);
    int64_t start = 0;
    Obj *st = args_get(a, 1, "start");
    if (!l || (st && !obj_int_value(st, &start)))
        return unk(I);
    int64_t last;
    if (graph_ckd_add(&last, start, (int64_t)l->n))
        return obj_int_checked(I, 1, 0, a->node);
    for (size_t i = 0; i < l->n; i++) {
        Obj *pair[2] = {obj_int(I, start + (int64_t)i), l->items[i]};
        l->items[i] = obj_tuple(I, pair, 2);
    }
    return l;
}

/* zip(*iterables): up to the shortest */
static Obj *bi_zip(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    if (a->has_star || a->npos > 64)
        return unk(I);
    Obj *ls[64];
    size_t n = SIZE_MAX;
    for (size_t k = 0; k < a->npos; k++) {
        if (!(ls[k] = obj_iter(I, a->pos[k], a->node, ITER_EXPAND)))
            return unk(I);
        if (ls[k]->n < n)
            n = ls[k]->n;
    }
    if (a->npos == 0)
        n = 0;
    Obj *out = obj_seq_of(I, O_LIST, NULL, 0);
    out->items = interp_alloc(I, (n + 1) * sizeof *out->items);
    for (size_t i = 0; i < n; i++) {
        Obj *t[64];
        for (size_t k = 0; k < a->npos; k++)
            t[k] = ls[k]->items[i];
        out->items[i] = obj_tuple(I, t, a->npos);
    }
    out->n = out->cap = n;
    return out;
}

/* dict() | dict(mapping) | dict(pairs) | dict(k=v, ...) */
static Obj *bi_dict(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *src = args_get(a, 0, NULL);
    Obj *d = obj_seq_of(I, O_DICT, NULL, 0);
    size_t cap = (src && (src->kind == O_DICT || is_seq(src)) ? src->n * 2 : 0) + a->nkw * 2 + 2;
    d->items = interp_alloc(I, cap * sizeof *d->items);
    d->cap = cap;
    if (src) {
        if (src->kind == O_DICT) {
            for (size_t i = 0; i + 1 < src->n; i += 2) {
                d->items[d->n++] = src->items[i];
                d->items[d->n++] = src->items[i + 1];
            }
        } else if (is_seq(src)) {
            for (size_t i = 0; i < src->n; i++) {
                Obj *p = src->items[i];
                if (!is_seq(p) || p->n != 2)
                    return unk(I);
                int dup = 0;
                for (size_t j = 0; j < d->n; j += 2)
                    if (d->items[j]->kind == p->items[0]->kind && d->items[j]->kind == O_STR &&
                        streq(d->items[j]->s, p->items[0]->s)) {
                        d->items[j + 1] = p->items[1];
                        dup = 1;
                    }
                if (!dup) {
                    d->items[d->n++] = p->items[0];
                    d->items[d->n++] = p->items[1];
                }
            }
        } else {
            return unk(I);
        }
    }
    for (size_t k = 0; k < a->nkw; k++) {
        int dup = 0;
        for (size_t j = 0; j < d->n; j += 2)
            if (d->items[j]->kind == O_STR && streq(d->items[j]->s, a->kwnames[k])) {
                d->items[j + 1] = a->kw[k];
                dup = 1;
            }
        if (!dup) {
            d->items[d->n++] = obj_str(I, a->kwnames[k]);
            d->items[d->n++] = a->kw[k];
        }
    }
    return d;
}

/* collections.OrderedDict(...) as dict(...): a dict marked with the class's
 * name in s, for what differs from dict: type(), isinstance(), == between
 * two of them (the order counts), repr (not evaluated), move_to_end (not
 * evaluated: the dict becomes unknown) */
static Obj *bi_ordered_dict(Interp *I, const char *name, CallArgs *a)
{
    Obj *d = bi_dict(I, name, a);
    if (d->kind == O_DICT)
        d->s = "collections.OrderedDict";
    return d;
}

/* len(x): containers, strings, ranges, module lists; a tensor's dim 0 */
static Obj *bi_len(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *x = args_get(a, 0, NULL);
    if (!x || is_unknown(x))
        return unk(I);
    switch (x->kind) {
    case O_TUPLE: case O_LIST: case O_SET:
        return obj_int(I, (int64_t)x->n);
    case O_DICT:
        return obj_int(I, (int64_t)(x->n / 2));
    case O_STR: {
        /* code points, as Python counts: every byte but UTF-8 continuations */
        interp_work(I, x->len / 64);
        int64_t n = 0;
        for (size_t i = 0; i < x->len; i++)
            n += ((unsigned char)x->s[i] & 0xC0) != 0x80;
        return obj_int(I, n);
    }
    case O_RANGE: {
        Obj *l = obj_iter(I, x, a->node, ITER_EXPAND);
        return l ? obj_int(I, (int64_t)l->n) : unk(I);
    }
    case O_INST:
        if (obj_is_module_dict(x))
            return obj_int(I, (int64_t)x->attrs.n);
        return obj_is_module_seq(x) ? obj_int(I, (int64_t)x->n) : unk(I);
    case O_TENSOR: {
        int32_t v = interp_val(I, x, a->node);
        Graph *g = interp_graph(I);
        if (v < 0 || (size_t)v >= g->vals.n)
            return unk(I);
        if (g->vals.v[v].ndim == 0)
            return interp_break(I, a->node, RULE_TNG206, "len() of a 0-d tensor");
        return obj_dim(I, g->vals.v[v].dims[0]);
    }
    default:
        return unk(I);
    }
}

/* math.sqrt(x) | math.log(x[, base]) | math.exp | math.ceil | math.floor |
 * math.pow | math.fabs | math.log2 | math.log10 | math.isqrt | math.prod */
static Obj *bi_math(Interp *I, const char *name, CallArgs *a)
{
    const char *f = name + 5;   /* after "math." */
    double x, y = 0;
    Obj *o = args_get(a, 0, NULL), *o2 = args_get(a, 1, NULL);
    if (streq(f, "prod")) {
        Obj *l = obj_iter(I, o, a->node, ITER_EXPAND);
        if (!l)
            return unk(I);
        int64_t p = 1, v;
        int ovf = 0, is_float = 0;
        double fp = 1, fv;
        for (size_t i = 0; i < l->n; i++) {
            if (!obj_num_value(l->items[i], &fv))
                return unk(I);
            is_float |= !obj_int_value(l->items[i], &v);
            if (!is_float)
                ovf |= graph_ckd_mul(&p, p, v);
            fp *= fv;
        }
        if (is_float)   /* a float item: the product of the items as Python's float math gives it */
            return ovf ? unk(I) : obj_float(I, fp);
        return obj_int_checked(I, ovf, p, a->node);
    }
    if (streq(f, "gcd")) {   /* math.gcd(*integers) */
        uint64_t g = 0;
        for (size_t i = 0; i < a->npos; i++) {
            int64_t v;
            if (!obj_int_value(a->pos[i], &v) || a->has_star)
                return unk(I);
            uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
            while (m) {
                uint64_t t = g % m;
                g = m;
                m = t;
            }
        }
        return obj_int_checked(I, g > (uint64_t)INT64_MAX, (int64_t)g, a->node);
    }
    if (!obj_num_value(o, &x) || (o2 && !obj_num_value(o2, &y)))
        return unk(I);
    if (streq(f, "isfinite") || streq(f, "isinf") || streq(f, "isnan"))
        return obj_bool(I, f[2] == 'f' ? isfinite(x) : f[2] == 'i' ? isinf(x) : isnan(x));
    if (streq(f, "isclose")) {   /* isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0) */
        double rel = 1e-9, abs_tol = 0;
        Obj *r = args_kw(a, "rel_tol"), *t = args_kw(a, "abs_tol");
        if (!o2 || (r && !obj_num_value(r, &rel)) || (t && !obj_num_value(t, &abs_tol)))
            return unk(I);
        if (x == y)
            return obj_bool(I, 1);
        if (isinf(x) || isinf(y))
            return obj_bool(I, 0);
        double d = fabs(x - y), m = fmax(fabs(x), fabs(y));
        return obj_bool(I, d <= rel * m || d <= abs_tol);
    }
    if (streq(f, "sqrt"))
        return x < 0 ? unk(I) : obj_float(I, sqrt(x));
    if (streq(f, "isqrt")) {
        int64_t v;
        if (!obj_int_value(o, &v) || v < 0)
            return unk(I);
        int64_t r = (int64_t)sqrt((double)v), sq;
        if (r > 3037000499)   /* the isqrt of INT64_MAX: r * r fits */
            r = 3037000499;
        while (r > 0 && r * r > v)
            r--;
        while (r < 3037000499 && !graph_ckd_mul(&sq, r + 1, r + 1) && sq <= v)
            r++;
        return obj_int(I, r);
    }
    if (streq(f, "log")) {
        if (x <= 0 || (o2 && (y <= 0 || y == 1)))
            return unk(I);
        return obj_float(I, o2 ? log(x) / log(y) : log(x));
    }
    if (streq(f, "log2"))
        return x <= 0 ? unk(I) : obj_float(I, log2(x));
    if (streq(f, "log10"))
        return x <= 0 ? unk(I) : obj_float(I, log10(x));
    if (streq(f, "exp"))
        return obj_float(I, exp(x));
    if (streq(f, "fabs"))
        return obj_float(I, fabs(x));
    if (streq(f, "pow"))
        return o2 ? obj_float(I, pow(x, y)) : unk(I);
    if (streq(f, "trunc") || ((streq(f, "ceil") || streq(f, "floor")) && obj_int_value(o, &(int64_t){0}))) {
        int64_t v;
        if (obj_int_value(o, &v))
            return obj_int(I, v);
        double r = trunc(x);
        return r > -9.2e18 && r < 9.2e18 ? obj_int(I, (int64_t)r) : unk(I);
    }
    if (streq(f, "ceil") || streq(f, "floor")) {
        double r = f[0] == 'c' ? ceil(x) : floor(x);
        return r > -9.2e18 && r < 9.2e18 ? obj_int(I, (int64_t)r) : unk(I);
    }
    if (streq(f, "sin"))
        return obj_float(I, sin(x));
    if (streq(f, "cos"))
        return obj_float(I, cos(x));
    if (streq(f, "tanh"))
        return obj_float(I, tanh(x));
    return NULL;
}

/* sorted(iterable, reverse=False): numbers or strings */
/* Python's ordering of two known values: -1, 0, 1, or 2 when Python would
 * refuse to compare them (or tngc cannot). Tuples and lists compare
 * lexicographically. */
static int py_compare(const Obj *a, const Obj *b, int depth)
{
    double p, q;
    if (depth > 32)
        return 2;
    if (obj_num_value(a, &p) && obj_num_value(b, &q))
        return p < q ? -1 : p > q;
    if (a->kind == O_STR && b->kind == O_STR) {
        int c = strcmp(a->s, b->s);
        return c < 0 ? -1 : c > 0;
    }
    if ((a->kind == O_TUPLE || a->kind == O_LIST) && a->kind == b->kind) {
        for (size_t i = 0; i < a->n && i < b->n; i++) {
            int c = py_compare(a->items[i], b->items[i], depth + 1);
            if (c != 0)
                return c;
        }
        return a->n < b->n ? -1 : a->n > b->n;
    }
    return 2;
}

/* Stable merge sort of items[0..n) by py_compare (of their first items
 * when keyed); -1 when two items do not compare. */
static int sort_items(Obj **items, Obj **tmp, size_t n, int desc, int keyed)
{
    if (n < 2)
        return 0;
    size_t h = n / 2;
    if (sort_items(items, tmp, h, desc, keyed) < 0 || sort_items(items + h, tmp, n - h, desc, keyed) < 0)
        return -1;
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        /* keyed: the items are (key, value) pairs compared by key */
        int c = keyed ? py_compare(items[j]->items[0], items[i]->items[0], 0) : py_compare(items[j], items[i], 0);
        if (c == 2)
            return -1;
        /* take from the right only when strictly before (stability) */
        if (desc ? c > 0 : c < 0)
            tmp[k++] = items[j++];
        else
            tmp[k++] = items[i++];
    }
    while (i < h)
        tmp[k++] = items[i++];
    while (j < n)
        tmp[k++] = items[j++];
    memcpy(items, tmp, n * sizeof *items);
    return 0;
}

/* The (key(x), x) pairs of list l for a key function (a callable of the
 * script or a builtin, called as Python does); NULL when a key is unknown. */
static Obj *bi__keyed(Interp *I, Obj *l, Obj *key, int32_t node)
{
    Obj *out = obj_seq_of(I, O_LIST, NULL, 0);
    out->items = interp_alloc(I, (l->n + 1) * sizeof *out->items);
    for (size_t i = 0; i < l->n; i++) {
        CallArgs ka = {0};
        Obj *arg[1] = {l->items[i]};
        ka.pos = arg;
        ka.npos = 1;
        ka.kwnames = I->no_kwnames;
        ka.kw = I->no_kw;
        ka.node = node;
        Obj *k = interp_call(I, key, &ka);
        if (!k || obj_has_unknown(k) || I->aborted)
            return NULL;
        Obj *pair[2] = {k, l->items[i]};
        out->items[i] = obj_tuple(I, pair, 2);
        out->n = i + 1;
    }
    out->cap = out->n;
    return out;
}

/* sorted(iterable, /, *, key=None, reverse=False) of numbers, strings,
 * tuples of them (or of what key gives for the items) */
static Obj *bi_sorted(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *l = obj_iter(I, args_get(a, 0, "iterable"), a->node, ITER_EXPAND);
    Obj *rev = args_kw(a, "reverse"), *key = args_kw(a, "key");
    if (!l || obj_has_unknown(rev) || is_unknown(key))
        return unk(I);
    Obj *keyed = !is_none(key) ? bi__keyed(I, l, key, a->node) : NULL;
    if (!is_none(key) && !keyed)
        return unk(I);
    Obj *s = keyed ? keyed : l;
    Obj **tmp = interp_alloc(I, (s->n + 1) * sizeof *tmp);
    if (sort_items(s->items, tmp, s->n, obj_flag(rev, 0), keyed != NULL) < 0)
        return unk(I);
    for (size_t i = 0; keyed && i < s->n; i++)
        l->items[i] = s->items[i]->items[1];
    return l;
}

/* list(iterable=()) | tuple(iterable=()) */
static Obj *bi_list(Interp *I, const char *name, CallArgs *a)
{
    Obj *x = args_get(a, 0, NULL);
    if (!x)
        return obj_seq_of(I, name[0] == 'l' ? O_LIST : O_TUPLE, NULL, 0);
    Obj *l = obj_iter(I, x, a->node, ITER_EXPAND);
    if (!l)
        return unk(I);
    l->kind = name[0] == 'l' ? O_LIST : O_TUPLE;
    return l;
}

/* set(iterable=()): its distinct items */
static Obj *bi_set(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *x = args_get(a, 0, NULL);
    Obj *s = obj_seq(I, O_SET);
    if (!x)
        return s;
    Obj *l = obj_iter(I, x, a->node, ITER_EXPAND);
    if (!l)
        return unk(I);
    for (size_t i = 0; i < l->n; i++)
        obj_set_add(I, s, l->items[i]);
    return s;
}

/* iter(iterable): an iterator over its items (an iterator: itself) */
static Obj *bi_iter(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *x = args_get(a, 0, NULL);
    if (x && x->kind == O_ITER)
        return x;
    Obj *l = x && a->npos == 1 ? obj_iter(I, x, a->node, ITER_EXPAND) : NULL;
    if (!l)
        return unk(I);
    Obj *it = obj_new(I, O_ITER);
    it->self_obj = l;
    it->i = 0;
    return it;
}

/* next(iterator[, default]): its next item; default when it is used up
 * (without one, Python raises StopIteration: an error here) */
static Obj *bi_next(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *it = args_get(a, 0, NULL), *dflt = args_get(a, 1, NULL);
    if (!it || it->kind != O_ITER)
        return unk(I);
    Obj *l = it->self_obj;
    if ((size_t)it->i < l->n)
        return interp_trace_in(I, l->items[it->i++], a->node);
    if (dflt)
        return dflt;
    return interp_break(I, a->node, RULE_TNG205, "next() of an iterator with no items left raises StopIteration");
}

/* reversed(seq) */
static Obj *bi_reversed(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *l = obj_iter(I, args_get(a, 0, NULL), a->node, ITER_EXPAND);
    if (!l)
        return unk(I);
    for (size_t i = 0; i < l->n / 2; i++) {
        Obj *t = l->items[i];
        l->items[i] = l->items[l->n - 1 - i];
        l->items[l->n - 1 - i] = t;
    }
    return l;
}

/* any(iterable) | all(iterable) of numbers, None, strings, containers */
static Obj *bi_any_all(Interp *I, const char *name, CallArgs *a)
{
    Obj *l = obj_iter(I, args_get(a, 0, NULL), a->node, ITER_EXPAND);
    if (!l)
        return unk(I);
    int is_any = name[1] == 'n', unknown = 0;
    for (size_t i = 0; i < l->n; i++) {
        Obj *o = l->items[i];
        double v;
        int t;
        if (obj_num_value(o, &v))
            t = v != 0;
        else if (o->kind == O_NONE)
            t = 0;
        else if (o->kind == O_STR || is_seq(o) || o->kind == O_DICT)
            t = (o->kind == O_STR ? o->len : o->n) != 0;
        else {
            unknown = 1;
            continue;
        }
        if (t == is_any)
            return obj_bool(I, is_any);
    }
    return unknown ? unk(I) : obj_bool(I, !is_any);
}

/* str(object='') | repr(object) | format(value, format_spec='') of a
 * known None, bool, int, float or str (pyformat.c) */
static Obj *bi_str(Interp *I, const char *name, CallArgs *a)
{
    Obj *x = args_get(a, 0, NULL), *spec = name[0] == 'f' ? args_get(a, 1, "format_spec") : NULL;
    if (!x)
        return name[0] == 's' ? obj_str(I, "") : unk(I);
    if (x->kind == O_STR && name[0] == 's')
        return x;
    if (spec && spec->kind != O_STR)
        return unk(I);
    const char *t = pyformat_value(I, x, name[0] == 'r' ? 'r' : 0, spec ? spec->s : "");
    return t ? obj_str(I, t) : unk(I);
}

/* print(...) and the host-side torch functions without an effect on the
 * plan: None */
static Obj *bi_none(Interp *I, const char *name, CallArgs *a)
{
    (void)name, (void)a;
    return obj_none(I);
}

/* torch.device(type): the device's name */
static Obj *bi_device(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *x = args_get(a, 0, "type");
    return x && x->kind == O_STR ? x : obj_str(I, "npu");
}

/* torch.Size(sizes=()) */
static Obj *bi_size(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *l = obj_iter(I, args_get(a, 0, NULL), a->node, ITER_EXPAND);
    if (!l)
        return a->npos ? unk(I) : obj_seq_of(I, O_TUPLE, NULL, 0);
    l->kind = O_TUPLE;
    return l;
}

/* torch.is_tensor(obj) */
static Obj *bi_is_tensor(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *x = args_get(a, 0, "obj");
    return !x || is_unknown(x) ? unk(I) : obj_bool(I, is_tensor(x));
}

/* isinstance(o, t) | hasattr | callable | id | type: not evaluated */
static Obj *bi_unknown(Interp *I, const char *name, CallArgs *a)
{
    (void)name, (void)a;
    return obj_unknown(I, NULL);
}

/* 1 when every instance of a Python class has the attribute name
 * (object's and a class's own dunders). */
static int bi__object_dunder(const char *name)
{
    static const char *const dunders[] = {
        "__class__", "__delattr__", "__dir__", "__doc__", "__eq__", "__format__", "__ge__", "__getattribute__",
        "__getstate__", "__gt__", "__hash__", "__init__", "__init_subclass__", "__le__", "__lt__", "__ne__",
        "__new__", "__reduce__", "__reduce_ex__", "__repr__", "__setattr__", "__sizeof__", "__str__",
        "__subclasshook__", "__dict__", "__module__", "__weakref__"};
    for (size_t i = 0; i < NELEM(dunders); i++)
        if (streq(name, dunders[i]))
            return 1;
    return 0;
}

/* True when o provably has no attribute name: an instance of a script
 * class without such an instance attribute, method or class attribute,
 * not a public name nn.Module gives its subclasses nor a dunder every
 * object has, and not derived from a torch.nn class other than nn.Module
 * (whose attributes tngc does not list). For anything else (an unknown
 * object, a library object) tngc cannot tell. */
static int bi__lacks_attr(Obj *o, const char *name)
{
    return o->kind == O_INST && o->cls && !obj_getattr(o, name) && !obj_class_method(o->cls, name, NULL) &&
           !obj_class_attr(o->cls, name) && !torchlib_module_has_method(name) && !torchlib_nn_base(o->cls) &&
           (name[0] == '_' || torchlib_nn_module_has(name) == 0) && !bi__object_dunder(name);
}

/* getattr(object, name[, default]): the default only where the attribute
 * provably does not exist; an attribute of an object tngc does not know
 * (a transformers config, a SimpleNamespace) is unknown, not the default. */
static Obj *bi_getattr(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *o = args_get(a, 0, NULL), *n = args_get(a, 1, NULL), *d = args_get(a, 2, NULL);
    if (!o || !n || n->kind != O_STR)
        return obj_unknown(I, NULL);
    if (d && bi__lacks_attr(o, n->s))
        return d;   /* before the lookup, which reports a missing attribute while tracing */
    return interp_getattr(I, o, n->s, a->node);
}

/* setattr(object, name, value) as `object.name = value` (an instance, a
 * config, a compiled model) */
static Obj *bi_setattr(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *o = args_get(a, 0, NULL), *n = args_get(a, 1, NULL), *v = args_get(a, 2, NULL);
    if (o && n && v && n->kind == O_STR)
        interp_setattr(I, o, n->s, obj_stored(I, v), a->node);
    return obj_none(I);
}

/* hasattr(library object, name) that tngc cannot answer: TNG205 naming
 * both while tracing, else an unknown whose use reports them. */
static Obj *bi__hasattr_unknown(Interp *I, CallArgs *a, const char *what, const char *name, int inst)
{
    const char *why = inst ? interp_printf(I, "hasattr(a %s, '%s'): tngc cannot tell whether every PyTorch 2.x "
                                           "release gives a %s this attribute", what, name, what)
                           : interp_printf(I, "hasattr(%s, '%s'): tngc knows the PyTorch 2.x names it compiles, "
                                           "not this one", what, name);
    if (interp_tracing(I))
        return interp_break(I, a->node, RULE_TNG205, "%s", why);
    return obj_unknown(I, why);
}

/* hasattr(object, name): an instance of a script class (its attributes,
 * methods, class attributes), a module's attribute set on it; a torch
 * library object or torch.nn module instance as PyTorch 2.1 and later
 * answer (torchlib_has_name, torchlib_module_hasattr); unknown where tngc
 * cannot tell (names nn.Module gives its subclasses) */
static Obj *bi_hasattr(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *o = args_get(a, 0, NULL), *n = args_get(a, 1, NULL);
    if (o && n && n->kind == O_STR && o->kind == O_BUILTIN && o->s &&
        (strncmp(o->s, "torch", 5) == 0 && (o->s[5] == 0 || o->s[5] == '.' || strncmp(o->s + 5, "_npu", 4) == 0))) {
        if (torchlib_has_name(interp_printf(I, "%s.%s", o->s, n->s)) == 1)
            return obj_bool(I, 1);
        return bi__hasattr_unknown(I, a, o->s, n->s, 0);
    }
    if (o && n && n->kind == O_STR && o->kind == O_INST && !o->cls && o->s && strncmp(o->s, "torch.nn.", 9) == 0) {
        int k = torchlib_module_hasattr(o, n->s);
        if (k >= 0)
            return obj_bool(I, k);
        return bi__hasattr_unknown(I, a, o->s, n->s, 1);
    }
    if (!o || !n || n->kind != O_STR || o->kind != O_INST)
        return unk(I);
    if (obj_getattr(o, n->s) || (o->cls && (obj_class_method(o->cls, n->s, NULL) || obj_class_attr(o->cls, n->s))))
        return obj_bool(I, 1);
    if (obj_is_script_module(o) && torchlib_nn_module_has(n->s) == 1)
        return obj_bool(I, 1);   /* nn.Module's own */
    return bi__lacks_attr(o, n->s) ? obj_bool(I, 0) : unk(I);
}

/* The Python type names isinstance() knows for values tngc holds. */
static const char *const bi__type_names[] = {
    "int", "float", "str", "bool", "tuple", "list", "dict", "set", "bytes", "complex", "range",
    "torch.Tensor", "torch.nn.Parameter", "torch.dtype", "functools.partial", "types.SimpleNamespace",
    "collections.OrderedDict"};

/* 1 when name is a torch.nn module class (torch.nn.Linear, ...). */
static int bi__nn_class(const char *name)
{
    return strncmp(name, "torch.nn.", 9) == 0 && name[9] >= 'A' && name[9] <= 'Z' && !strchr(name + 9, '.') &&
           strcmp(name, "torch.nn.Parameter") != 0;
}

/* isinstance(x, c) for one class c: 1, 0, or -1 when tngc cannot tell. */
static int bi__isinstance_one(const Obj *x, const Obj *c)
{
    if (x->kind == O_UNKNOWN || (c->kind != O_CLASS && c->kind != O_BUILTIN))
        return -1;
    if (c->kind == O_BUILTIN && strcmp(c->s, "object") == 0)
        return 1;
    if (x->kind == O_INST && x->cls) {   /* an instance of a script class */
        const InterpClass *k = x->cls;
        const char *lib = NULL;
        for (int depth = 0; k && depth < 64; k = k->base, depth++) {
            if (c->kind == O_CLASS && c->cls == k)
                return 1;
            if (!lib && k->base_name)
                lib = k->base_name;
        }
        if (c->kind == O_CLASS)
            return 0;
        if (lib && (strcmp(lib, c->s) == 0 || (strcmp(c->s, "torch.nn.Module") == 0 && bi__nn_class(lib))))
            return 1;
        if (streq(x->cls->name, "SimpleNamespace") && !x->cls->node && streq(c->s, "types.SimpleNamespace"))
            return 1;
        if (lib && !bi__nn_class(lib))
            return -1;   /* a library base: its own bases are not known here */
    } else if (c->kind == O_CLASS && x->kind == O_TUPLE && x->cls && x->cls->namedtuple) {
        const InterpClass *k = x->cls;
        for (int depth = 0; k && depth < 64; k = k->base, depth++)   /* a named tuple of the script */
            if (c->cls == k)
                return 1;
        return 0;
    } else if (c->kind == O_CLASS) {
        return 0;   /* nothing else is an instance of a script class */
    } else {
        const char *t = NULL;
        switch (x->kind) {
        case O_BOOL: t = streq(c->s, "int") ? "int" : "bool"; break;
        case O_INT: case O_DIM: t = "int"; break;
        case O_FLOAT: t = "float"; break;
        case O_STR: t = "str"; break;
        case O_TUPLE: t = streq(c->s, "torch.Size") ? NULL : "tuple"; break;
        case O_LIST: t = "list"; break;
        case O_SET: t = "set"; break;
        case O_DICT:   /* an OrderedDict is a dict too */
            t = x->s && streq(c->s, x->s) ? x->s : "dict";
            break;
        case O_RANGE: t = "range"; break;
        case O_DTYPE: t = "torch.dtype"; break;
        case O_PARTIAL: t = "functools.partial"; break;
        case O_TENSOR:
            t = streq(c->s, "torch.nn.Parameter") ? (x->t->is_param ? "torch.nn.Parameter" : "torch.Tensor")
                                                   : "torch.Tensor";
            break;
        case O_INST:   /* a torch.nn module */
            if (streq(c->s, x->s) || streq(c->s, "torch.nn.Module"))
                return 1;
            return bi__nn_class(c->s) ? 0 : -1;
        case O_NONE: case O_FUNC: case O_BOUND: case O_CLASS: case O_SLICE: case O_ELLIPSIS:
            t = "";   /* none of the named types */
            break;
        default:
            return -1;
        }
        if (!t)
            return -1;
        if (streq(c->s, t))
            return 1;
    }
    for (size_t i = 0; i < NELEM(bi__type_names); i++)
        if (streq(c->s, bi__type_names[i]))
            return 0;
    return bi__nn_class(c->s) ? 0 : -1;
}

/* isinstance(object, classinfo): classinfo a class of the script, a type
 * tngc knows (int, float, str, bool, tuple, list, dict, torch.Tensor,
 * nn.Module, nn.Linear ...) or a tuple of them */
static Obj *bi_isinstance(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *x = args_get(a, 0, NULL), *c = args_get(a, 1, NULL);
    if (!x || !c || a->npos != 2)
        return unk(I);
    int r = 0;
    if (c->kind == O_TUPLE) {
        for (size_t i = 0; i < c->n && r != 1; i++) {
            int k = bi__isinstance_one(x, c->items[i]);
            r = k == 1 ? 1 : k < 0 ? -1 : r;
        }
    } else {
        r = bi__isinstance_one(x, c);
    }
    return r < 0 ? unk(I) : obj_bool(I, r);
}

/* callable(object) */
static Obj *bi_callable(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *x = args_get(a, 0, NULL);
    if (!x)
        return unk(I);
    switch (x->kind) {
    case O_FUNC: case O_BOUND: case O_CLASS: case O_PARTIAL: case O_METHOD: case O_COMPILED:
        return obj_bool(I, 1);
    case O_NONE: case O_BOOL: case O_INT: case O_FLOAT: case O_STR: case O_TUPLE: case O_LIST: case O_DICT:
    case O_DIM: case O_TENSOR: case O_DTYPE: case O_RANGE: case O_SLICE:
        return obj_bool(I, 0);
    case O_INST:
        if (!x->cls)
            return obj_bool(I, obj_is_torch_module(x));
        if (obj_class_method(x->cls, "__call__", NULL) || obj_class_method(x->cls, "forward", NULL))
            return obj_bool(I, 1);
        return bi__lacks_attr(x, "__call__") ? obj_bool(I, 0) : unk(I);
    default:
        return unk(I);
    }
}

/* functools.partial(func, /, *args, **keywords): a partial of a partial
 * flattens, as Python's does */
static Obj *bi_partial(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *fn = args_get(a, 0, NULL);
    if (!fn || a->has_star || fn->kind == O_UNKNOWN)
        return unk(I);
    Obj *p = obj_new(I, O_PARTIAL);
    Obj *inner = fn->kind == O_PARTIAL ? fn : NULL;
    p->self_obj = inner ? inner->self_obj : fn;
    p->node = a->node;
    for (size_t i = 0; inner && i < inner->n; i++)
        obj_push(I, p, inner->items[i]);
    for (size_t i = 1; i < a->npos; i++)
        obj_push(I, p, a->pos[i]);
    for (size_t i = 0; inner && i < inner->attrs.n; i++)
        obj_attrs_set(I, &p->attrs, inner->attrs.names[i], inner->attrs.vals[i]);
    for (size_t i = 0; i < a->nkw; i++)
        obj_attrs_set(I, &p->attrs, a->kwnames[i], a->kw[i]);
    return p;
}

/* types.SimpleNamespace(**kwargs): an instance of a class of its own (no
 * methods) holding the keywords as attributes */
static Obj *bi_namespace(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    if (a->has_star || a->npos)
        return unk(I);   /* **kw of unknown contents; a mapping (Python 3.13) */
    InterpClass *cls = interp_alloc(I, sizeof *cls);
    cls->name = "SimpleNamespace";
    Obj *o = obj_new(I, O_INST);
    o->cls = cls;
    o->node = a->node;
    for (size_t i = 0; i < a->nkw; i++)
        obj_setattr(I, o, a->kwnames[i], a->kw[i]);
    return o;
}

/* dataclasses.field(*, default=..., default_factory=..., ...): the field's
 * marker as a class attribute (a "dataclasses.Field" object holding them) */
static Obj *bi_field(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    if (a->npos || a->has_star)
        return unk(I);
    Obj *o = obj_new(I, O_BUILTIN);
    o->s = "dataclasses.Field";
    o->node = a->node;
    for (size_t i = 0; i < a->nkw; i++)
        if (streq(a->kwnames[i], "default") || streq(a->kwnames[i], "default_factory"))
            obj_setattr(I, o, a->kwnames[i], a->kw[i]);
    return o;
}

/* Sets the dataclass fields of cls: its bases' (the nearest dataclass
 * base), then the annotated names of its body (`name: T` or `name: T =
 * default`, not ClassVar), a redefined name keeping its place. */
static void bi__dataclass_fields(Interp *I, InterpClass *cls)
{
    const InterpClass *b = cls->base;
    while (b && !b->fields)
        b = b->base;
    size_t cap = (b ? b->nfields : 0) + 8, n = 0;
    const char **names = interp_alloc(I, cap * sizeof *names);
    Obj **defs = interp_alloc(I, cap * sizeof *defs);
    for (size_t i = 0; b && i < b->nfields; i++)
        names[n] = b->fields[i], defs[n++] = b->field_defaults[i];
    int32_t body = ast_field(I->ast, cls->node, F_body);
    if (body >= 0)
        FOR_CHILDREN(I, body, st) {
            if (N(I, st)->kind != NK_expression_statement)
                continue;
            int32_t asg = child(I, st, 0);
            if (asg < 0 || N(I, asg)->kind != NK_assignment)
                continue;
            int32_t left = ast_field(I->ast, asg, F_left), type = ast_field(I->ast, asg, F_type);
            if (left < 0 || type < 0 || N(I, left)->kind != NK_identifier)
                continue;
            const char *t = interp_node_str(I, type);
            if (strncmp(t, "ClassVar", 8) == 0 || strncmp(t, "typing.ClassVar", 15) == 0)
                continue;
            const char *fname = interp_node_str(I, left);
            Obj *d = NULL;
            if (ast_field(I->ast, asg, F_right) >= 0) {
                for (size_t i = 0; i < cls->attrs.n; i++)
                    if (streq(cls->attrs.names[i], fname))
                        d = cls->attrs.vals[i];
                if (d && d->kind == O_BUILTIN && streq(d->s, "dataclasses.Field") && obj_getattr(d, "default"))
                    obj_attrs_set(I, &cls->attrs, fname, obj_getattr(d, "default"));   /* as Python sets it */
            }
            size_t at = n;
            for (size_t i = 0; i < n; i++)
                if (streq(names[i], fname))
                    at = i;
            if (at == n) {
                if (n == cap) {
                    const char **nn = interp_alloc(I, 2 * cap * sizeof *nn);
                    Obj **nd = interp_alloc(I, 2 * cap * sizeof *nd);
                    memcpy(nn, names, n * sizeof *nn);
                    memcpy(nd, defs, n * sizeof *nd);
                    names = nn, defs = nd, cap *= 2;
                }
                n++;
            }
            names[at] = fname;
            defs[at] = d;
        }
    cls->fields = names;
    cls->field_defaults = defs;
    cls->nfields = n;
}

/* @dataclasses.dataclass | @dataclass(init=True, ...) on a class of the
 * script: its fields, and a generated __init__ unless the class defines
 * one (or init=False); dataclass(...) without the class is the decorator */
static Obj *bi_dataclass(Interp *I, const char *name, CallArgs *a)
{
    Obj *c = args_get(a, 0, NULL);
    if (!c) {   /* @dataclass(frozen=True): a decorator taking the class */
        Obj *p = obj_new(I, O_PARTIAL);
        p->self_obj = obj_builtin(I, name);
        for (size_t i = 0; i < a->nkw; i++)
            obj_attrs_set(I, &p->attrs, a->kwnames[i], a->kw[i]);
        return p;
    }
    if (c->kind != O_CLASS)
        return unk(I);
    InterpClass *cls = c->cls;
    bi__dataclass_fields(I, cls);
    int own_init = 0;
    for (size_t i = 0; i < cls->attrs.n; i++)
        own_init |= streq(cls->attrs.names[i], "__init__");
    cls->dataclass_init = !own_init && obj_flag(args_kw(a, "init"), 1);
    return c;
}

void builtins_namedtuple_class(Interp *I, InterpClass *cls)
{
    bi__dataclass_fields(I, cls);
    cls->namedtuple = 1;
}

/* 1 when s (n bytes) is an ASCII identifier, as a field name must be. */
static int bi__identifier(const char *s, size_t n)
{
    if (n == 0 || strlen(s) != n || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '_'))
            return 0;
    return 1;
}

/* collections.namedtuple(typename, field_names, *, defaults=None): a class
 * whose call makes a named tuple; field_names a list or tuple of strings,
 * or one string of names separated by commas and/or spaces (ASCII
 * identifiers; anything else is not known). */
static Obj *bi_namedtuple(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *tn = args_get(a, 0, "typename"), *fn = args_get(a, 1, "field_names"), *dv = args_kw(a, "defaults");
    if (a->has_star || !tn || tn->kind != O_STR || !fn || (dv && dv->kind != O_NONE && !is_seq(dv)))
        return unk(I);
    size_t cap = 8, n = 0;
    const char **names = interp_alloc(I, cap * sizeof *names);
    if (fn->kind == O_STR) {
        const char *p = fn->s;
        if (strlen(p) != fn->len)
            return unk(I);
        while (*p) {
            while (*p == ' ' || *p == ',')
                p++;
            size_t len = 0;
            while (p[len] && p[len] != ' ' && p[len] != ',')
                len++;
            if (!len)
                break;
            if (n == cap) {
                const char **nn = interp_alloc(I, 2 * cap * sizeof *nn);
                memcpy(nn, names, n * sizeof *nn);
                names = nn, cap *= 2;
            }
            names[n++] = interp_printf(I, "%.*s", (int)len, p);
            if (!bi__identifier(names[n - 1], len))
                return unk(I);
            p += len;
        }
    } else if (is_seq(fn)) {
        names = interp_alloc(I, (fn->n + 1) * sizeof *names);
        for (size_t i = 0; i < fn->n; i++) {
            if (fn->items[i]->kind != O_STR || !bi__identifier(fn->items[i]->s, fn->items[i]->len))
                return unk(I);
            names[n++] = fn->items[i]->s;
        }
    } else {
        return unk(I);
    }
    Obj **defs = interp_alloc(I, (n + 1) * sizeof *defs);
    size_t nd = dv && dv->kind != O_NONE ? dv->n : 0;
    if (nd > n)
        return unk(I);
    for (size_t i = 0; i < nd; i++)
        defs[n - nd + i] = dv->items[i];
    InterpClass *cls = interp_alloc(I, sizeof *cls);
    cls->name = tn->s;
    cls->fields = names;
    cls->field_defaults = defs;
    cls->nfields = n;
    cls->namedtuple = 1;
    Obj *o = obj_new(I, O_CLASS);
    o->cls = cls;
    return o;
}

/* type(object): the class of a script instance, the library class of a
 * torch module, the builtin type of a known value */
static Obj *bi_type(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *x = args_get(a, 0, NULL);
    if (!x || a->npos != 1)
        return unk(I);
    const char *t = NULL;
    switch (x->kind) {
    case O_INST:
        if (x->cls && x->cls->node) {
            Obj *c = obj_new(I, O_CLASS);
            c->cls = x->cls;
            return c;
        }
        if (!x->cls)
            return obj_builtin(I, x->s);
        t = "types.SimpleNamespace";
        break;
    case O_NONE: t = "NoneType"; break;
    case O_BOOL: t = "bool"; break;
    case O_INT: case O_DIM: t = "int"; break;
    case O_FLOAT: t = numpy_is_f64(x) ? "numpy.float64" : "float"; break;
    case O_STR: t = "str"; break;
    case O_TUPLE:
        if (x->cls && x->cls->namedtuple) {   /* a named tuple: its class */
            Obj *c = obj_new(I, O_CLASS);
            c->cls = x->cls;
            return c;
        }
        t = "tuple";
        break;
    case O_LIST: t = "list"; break;
    case O_SET: t = "set"; break;
    case O_DICT: t = x->s ? x->s : "dict"; break;   /* collections.OrderedDict */
    case O_RANGE: t = "range"; break;
    case O_TENSOR: t = x->t->is_param ? "torch.nn.Parameter" : "torch.Tensor"; break;
    case O_DTYPE: t = "torch.dtype"; break;
    case O_PARTIAL: t = "functools.partial"; break;
    default: return unk(I);
    }
    return obj_builtin(I, t);
}

/* issubclass(cls, classinfo) of script classes and nn classes */
static Obj *bi_issubclass(Interp *I, const char *name, CallArgs *a)
{
    (void)name;
    Obj *c = args_get(a, 0, NULL), *info = args_get(a, 1, NULL);
    if (!c || !info || c->kind != O_CLASS)
        return unk(I);
    Obj inst = {0};   /* an instance of c stands for c: isinstance's rules */
    inst.kind = O_INST;
    inst.cls = c->cls;
    int r = 0;
    Obj *const *items = info->kind == O_TUPLE ? info->items : &info;
    size_t n = info->kind == O_TUPLE ? info->n : 1;
    for (size_t i = 0; i < n && r != 1; i++) {
        int k = bi__isinstance_one(&inst, items[i]);
        r = k == 1 ? 1 : k < 0 ? -1 : r;
    }
    return r < 0 ? unk(I) : obj_bool(I, r);
}

/* divmod(a, b) | pow(base, exp) of known ints and floats (Python's floor
 * division and modulo: the evaluator's operators) */
static Obj *bi_divmod_pow(Interp *I, const char *name, CallArgs *a)
{
    Obj *x = args_get(a, 0, NULL), *y = args_get(a, 1, NULL);
    if (!x || !y || a->npos != 2 || x->kind == O_TENSOR || y->kind == O_TENSOR)
        return unk(I);
    if (name[0] == 'p')
        return pyops_binop(I, "**", x, y, a->node);
    Obj *pair[2] = {pyops_binop(I, "//", x, y, a->node), pyops_binop(I, "%", x, y, a->node)};
    if (is_unknown(pair[0]) || is_unknown(pair[1]))
        return unk(I);
    return obj_tuple(I, pair, 2);
}

/* chr(i) of ASCII | ord(c) of one ASCII character | hex/bin/oct(int) */
static Obj *bi_chr_ord(Interp *I, const char *name, CallArgs *a)
{
    Obj *x = args_get(a, 0, NULL);
    int64_t v;
    if (!x)
        return unk(I);
    if (streq(name, "ord"))
        return x->kind == O_STR && x->len == 1 && (unsigned char)x->s[0] < 0x80 ? obj_int(I, (unsigned char)x->s[0])
                                                                                : unk(I);
    if (!obj_int_value(x, &v) || x->kind == O_BOOL)
        return unk(I);
    if (streq(name, "chr")) {
        char c[2] = {(char)v, 0};
        return v > 0 && v < 0x80 ? obj_str(I, interp_strndup(I, c, 1)) : unk(I);
    }
    const char *spec = name[0] == 'h' ? "#x" : name[0] == 'b' ? "#b" : "#o";
    const char *t = pyformat_value(I, x, 0, spec);
    return t ? obj_str(I, t) : unk(I);
}

/* map(func, *iterables) | filter(func or None, iterable): the items as a
 * list (tngc's iterators are lists), func called as Python does */
static Obj *bi_map_filter(Interp *I, const char *name, CallArgs *a)
{
    int is_map = name[0] == 'm';
    Obj *fn = args_get(a, 0, NULL);
    if (!fn || a->npos < 2 || a->has_star || a->npos > 17 || is_unknown(fn) || (!is_map && a->npos != 2))
        return unk(I);
    Obj *ls[16];
    size_t n = SIZE_MAX;
    for (size_t k = 1; k < a->npos; k++) {
        if (!(ls[k - 1] = obj_iter(I, a->pos[k], a->node, ITER_EXPAND)))
            return unk(I);
        if (ls[k - 1]->n < n)
            n = ls[k - 1]->n;
    }
    Obj *out = obj_seq_of(I, O_LIST, NULL, 0);
    for (size_t i = 0; i < n && !I->aborted; i++) {
        Obj *args[16];
        for (size_t k = 0; k + 1 < a->npos; k++)
            args[k] = ls[k]->items[i];
        Obj *r = args[0];
        if (!(!is_map && is_none(fn))) {
            CallArgs ca = {0};
            ca.pos = args;
            ca.npos = a->npos - 1;
            ca.kwnames = I->no_kwnames;
            ca.kw = I->no_kw;
            ca.node = a->node;
            r = interp_call(I, fn, &ca);
        }
        if (is_map) {
            obj_push(I, out, r);
            continue;
        }
        int t = obj_truth(I, r);
        if (t < 0)
            return unk(I);
        if (t)
            obj_push(I, out, args[0]);
    }
    return out;
}

/* dataclasses.asdict(obj): the fields of a dataclass instance as a dict,
 * nested dataclasses, lists and tuples of them copied the same way */
static Obj *bi__asdict(Interp *I, Obj *o, int depth)
{
    if (depth > 32)
        return NULL;
    if (o->kind == O_INST && o->cls && o->cls->fields) {
        Obj *d = obj_seq(I, O_DICT);
        for (size_t i = 0; i < o->cls->nfields; i++) {
            Obj *v = obj_getattr(o, o->cls->fields[i]);
            Obj *c = v ? bi__asdict(I, v, depth + 1) : NULL;
            if (!c)
                return NULL;
            obj_dict_set(I, d, obj_str(I, o->cls->fields[i]), c);
        }
        return d;
    }
    if (o->kind == O_LIST || o->kind == O_TUPLE || o->kind == O_DICT) {
        Obj *c = obj_seq(I, o->kind);
        for (size_t i = 0; i < o->n; i++) {
            Obj *x = bi__asdict(I, o->items[i], depth + 1);
            if (!x)
                return NULL;
            obj_push(I, c, x);
        }
        return c;
    }
    return o;
}

/* dataclasses.asdict(obj) | dataclasses.replace(obj, **changes) |
 * dataclasses.is_dataclass(obj) */
static Obj *bi_dataclass_fn(Interp *I, const char *name, CallArgs *a)
{
    Obj *o = args_get(a, 0, NULL);
    const char *f = name + 12;   /* after "dataclasses." */
    if (!o || o->kind == O_UNKNOWN)
        return unk(I);
    if (streq(f, "is_dataclass"))
        return obj_bool(I, (o->kind == O_INST || o->kind == O_CLASS) && o->cls && o->cls->fields);
    if (o->kind != O_INST || !o->cls || !o->cls->fields)
        return unk(I);   /* TypeError in Python */
    if (streq(f, "asdict")) {
        Obj *d = bi__asdict(I, o, 0);
        return d ? d : unk(I);
    }
    /* replace: a new instance from the fields, the changes over them */
    CallArgs c = *a;
    c.npos = 0;
    c.nkw = o->cls->nfields;
    c.kwnames = interp_alloc(I, (c.nkw + 1) * sizeof *c.kwnames);
    c.kw = interp_alloc(I, (c.nkw + 1) * sizeof *c.kw);
    for (size_t i = 0; i < c.nkw; i++) {
        Obj *v = args_kw(a, o->cls->fields[i]);
        c.kwnames[i] = o->cls->fields[i];
        c.kw[i] = v ? v : obj_getattr(o, o->cls->fields[i]);
        if (!c.kw[i])
            return unk(I);
    }
    Obj *cls = obj_new(I, O_CLASS);
    cls->cls = o->cls;
    return interp_call(I, cls, &c);
}

enum {
    BI_NOSTAR = 1,   /* *args or **kwargs of unknown contents: an unknown */
    BI_RAW = 2,      /* introspection: its unknown result is not the library's
                      * (builtins_call's *checked is 0) */
};

/* The builtins by name; "math." rows name a prefix. */
static const struct Builtin {
    const char *name;
    Obj *(*fn)(Interp *I, const char *name, CallArgs *a);
    unsigned flags;
} builtins[] = {
    {"len", bi_len, 0},
    {"min", bi_minmax, BI_NOSTAR},
    {"max", bi_minmax, BI_NOSTAR},
    {"int", bi_number, 0},
    {"float", bi_number, 0},
    {"bool", bi_number, 0},
    {"abs", bi_number, 0},
    {"round", bi_number, 0},
    {"range", bi_range, BI_NOSTAR},
    {"print", bi_none, 0},
    {"list", bi_list, 0},
    {"tuple", bi_list, 0},
    {"set", bi_set, 0},
    {"iter", bi_iter, 0},
    {"next", bi_next, 0},
    {"dict", bi_dict, BI_NOSTAR},
    {"enumerate", bi_enumerate, 0},
    {"zip", bi_zip, 0},
    {"sum", bi_sum, 0},
    {"reversed", bi_reversed, 0},
    {"sorted", bi_sorted, 0},
    {"any", bi_any_all, 0},
    {"all", bi_any_all, 0},
    {"math.", bi_math, 0},
    {"numpy.", numpy_call, 0},
    {"str", bi_str, 0},
    {"repr", bi_str, 0},
    {"format", bi_str, 0},
    {"isinstance", bi_isinstance, BI_RAW},
    {"hasattr", bi_hasattr, BI_RAW},
    {"callable", bi_callable, BI_RAW},
    {"id", bi_unknown, BI_RAW},
    {"type", bi_type, BI_RAW},
    {"issubclass", bi_issubclass, BI_RAW},
    {"divmod", bi_divmod_pow, 0},
    {"pow", bi_divmod_pow, 0},
    {"chr", bi_chr_ord, 0},
    {"ord", bi_chr_ord, 0},
    {"hex", bi_chr_ord, 0},
    {"bin", bi_chr_ord, 0},
    {"oct", bi_chr_ord, 0},
    {"map", bi_map_filter, 0},
    {"filter", bi_map_filter, 0},
    {"getattr", bi_getattr, BI_RAW},
    {"setattr", bi_setattr, BI_RAW},
    /* host-side torch functions */
    {"torch.manual_seed", bi_none, 0},
    {"torch.random.manual_seed", bi_none, 0},
    {"torch.npu.manual_seed", bi_none, 0},
    {"torch.cuda.manual_seed", bi_none, 0},
    {"torch.npu.manual_seed_all", bi_none, 0},
    {"torch.npu.set_device", bi_none, 0},
    {"torch.cuda.set_device", bi_none, 0},
    {"torch.npu.synchronize", bi_none, 0},
    {"torch.cuda.synchronize", bi_none, 0},
    {"torch.npu.empty_cache", bi_none, 0},
    {"torch.set_printoptions", bi_none, 0},
    {"torch.set_grad_enabled", bi_none, 0},
    {"torch.use_deterministic_algorithms", bi_none, 0},
    {"torch.set_num_threads", bi_none, 0},
    {"torch._dynamo.reset", bi_none, 0},
    {"torch.npu.set_compile_mode", bi_none, 0},
    {"torch_npu.npu.set_compile_mode", bi_none, 0},
    {"torch.device", bi_device, 0},
    {"torch.Size", bi_size, 0},
    {"torch.is_tensor", bi_is_tensor, 0},
    {"functools.partial", bi_partial, 0},
    {"types.SimpleNamespace", bi_namespace, 0},
    {"collections.namedtuple", bi_namedtuple, 0},
    {"collections.OrderedDict", bi_ordered_dict, BI_NOSTAR},
    {"dataclasses.dataclass", bi_dataclass, BI_NOSTAR},
    {"dataclasses.field", bi_field, 0},
    {"dataclasses.asdict", bi_dataclass_fn, 0},
    {"dataclasses.replace", bi_dataclass_fn, BI_NOSTAR},
    {"dataclasses.is_dataclass", bi_dataclass_fn, 0},
    {"object.__setattr__", bi_setattr, 0},
};

int builtins_is_name(const char *name)
{
    /* builtins the evaluator and the entry points handle themselves */
    static const char *const others[] = {
        "super", "set", "map", "object", "Exception", "ValueError", "RuntimeError",
        "NotImplementedError", "staticmethod", "classmethod", "property", "math", "vars"};
    for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
        if (!strchr(builtins[i].name, '.') && strcmp(name, builtins[i].name) == 0)
            return 1;
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        if (strcmp(name, others[i]) == 0)
            return 1;
    return 0;
}

Obj *builtins_call(Interp *I, const char *name, CallArgs *a, int *checked)
{
    *checked = 1;
    for (size_t i = 0; i < NELEM(builtins); i++) {
        const struct Builtin *b = &builtins[i];
        size_t n = strlen(b->name);
        if (b->name[n - 1] == '.' ? strncmp(name, b->name, n) != 0 : strcmp(name, b->name) != 0)
            continue;
        *checked = !(b->flags & BI_RAW);
        if ((b->flags & BI_NOSTAR) && a->has_star)
            return unk(I);
        return b->fn(I, name, a);
    }
    return NULL;
}
