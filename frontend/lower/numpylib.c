/*
 * numpylib.c - numpy at build time (numpylib.h): the numpy.float64 scalars
 * of np.log, np.exp, np.sqrt and np.float64.
 */
#include "numpylib.h"

#include <math.h>
#include <string.h>

/* The mark of a numpy.float64 scalar: an O_FLOAT's s. */
static const char numpy__f64[] = "numpy.float64";

int numpy_is_f64(const Obj *o)
{
    return o && o->kind == O_FLOAT && o->s && strcmp(o->s, numpy__f64) == 0;
}

int numpy_holds_f64(const Obj *o)
{
    if (numpy_is_f64(o))
        return 1;
    if (o && (o->kind == O_LIST || o->kind == O_TUPLE))
        for (size_t i = 0; i < o->n; i++)
            if (numpy_holds_f64(o->items[i]))
                return 1;
    return 0;
}

Obj *numpy_result(Obj *r, const Obj *l, const Obj *r0)
{
    if (r && r->kind == O_FLOAT && (numpy_is_f64(l) || numpy_is_f64(r0)))
        r->s = numpy__f64;
    return r;
}

/* A refused numpy call: TNG202 while tracing, else an unknown naming it. */
static Obj *numpy__refuse(Interp *I, CallArgs *a, const char *why)
{
    if (interp_tracing(I))
        return interp_break(I, a->node, RULE_TNG202, "%s", why);
    return obj_unknown(I, why);
}

Obj *numpy_call(Interp *I, const char *name, CallArgs *a)
{
    static const struct { const char *name; double (*fn)(double); } fns[] = {
        {"numpy.log", log}, {"numpy.exp", exp}, {"numpy.sqrt", sqrt}, {"numpy.float64", NULL}};
    size_t k = 0;
    while (k < sizeof fns / sizeof *fns && strcmp(name, fns[k].name) != 0)
        k++;
    if (k == sizeof fns / sizeof *fns)
        return numpy__refuse(I, a, interp_printf(I, "%s: tngc evaluates numpy.log, numpy.exp, numpy.sqrt and "
                                                    "numpy.float64 of a Python number, no other numpy call (numpy "
                                                    "arrays are not modelled)", name));
    Obj *x = a->npos == 1 && !a->nkw && !a->has_star ? a->pos[0] : NULL;
    double v;
    if (x && is_unknown(x))
        return obj_is_reported(x) ? obj_unknown_reported(I) : obj_unknown_from(I, x);
    if (!x || (x->kind != O_INT && x->kind != O_BOOL && x->kind != O_FLOAT) || !obj_num_value(x, &v))
        return numpy__refuse(I, a, interp_printf(I, "%s of %s: tngc evaluates it on one Python number (int, "
                                                    "float, bool), with no keyword", name,
                                                 x && x->kind == O_TENSOR ? "a tensor" : "this argument"));
    Obj *r = obj_float(I, fns[k].fn ? fns[k].fn(v) : v);
    r->s = numpy__f64;
    return r;
}
