/*
 * modelpy.c - Python constructs of published model files (modelpy.h):
 *
 * - inst.__dict__ of an instance of a plain script class: one dict per
 *   instance (AttrList.view), kept equal to its attributes both ways
 *   (obj_attrs_set writes into it; modelpy_dict_sync writes it back after
 *   a method, a subscript store or a del changed it), as Python's is the
 *   instance's namespace itself. `self.__dict__.update(d)` configures.
 * - Cls.name = v after the class body: the class's attribute, which every
 *   later read sees (Cls.name and inst.name without an own attribute).
 * - torch.distributed in the single process tngc compiles: no process
 *   group is initialized.
 * - Fn.apply(*args) of a torch.autograd.Function subclass: its forward
 *   staticmethod called with a ctx whose bookkeeping methods do nothing
 *   (inference computes no gradients).
 * - nn.Module.parameters(), named_parameters(), buffers(), named_buffers()
 *   in PyTorch's order, and list/tuple index, count, copy, list.sort,
 *   dict.copy.
 */
#include "modelpy.h"

#include <stdint.h>
#include <string.h>

#define MODELPY_CTX "torch.autograd.function.FunctionCtx"

/* A construct PyTorch rejects or tngc does not evaluate: while tracing a
 * diagnostic (rule) at node; in host code an unknown that says why where
 * it is used. */
static Obj *mp__refuse(Interp *I, int32_t node, RuleId rule, const char *msg)
{
    if (I->tracing)
        return interp_break(I, node, rule, "%s", msg);
    return obj_unknown(I, msg);
}

/* ===================================================================== */
/* An instance's __dict__                                                */
/* ===================================================================== */

/* The live __dict__ of inst (a plain script class's instance). */
static Obj *mp__dict_view(Interp *I, Obj *inst)
{
    if (inst->attrs.view)
        return inst->attrs.view;
    Obj *d = obj_seq(I, O_DICT);
    for (size_t i = 0; i < inst->attrs.n; i++)
        obj_dict_set(I, d, obj_str(I, inst->attrs.names[i]), inst->attrs.vals[i]);
    d->self_obj = inst;
    inst->attrs.view = d;
    return d;
}

void modelpy_dict_sync(Interp *I, Obj *d)
{
    Obj *inst = d ? d->self_obj : NULL;
    if (!inst || inst->kind != O_INST || inst->attrs.view != d)
        return;
    inst->attrs.view = NULL;
    if (d->kind != O_DICT) {   /* forgotten: what the instance holds is not known either */
        int reported = obj_is_reported(d);
        inst->kind = O_UNKNOWN;
        inst->s = NULL;
        inst->origin = NULL;
        if (reported)
            obj_mark_reported(I, inst);
        return;
    }
    inst->attrs.n = 0;   /* the dict's string keys, in its order */
    for (size_t i = 0; i + 1 < d->n; i += 2)
        if (d->items[i]->kind == O_STR)
            obj_attrs_set(I, &inst->attrs, d->items[i]->s, d->items[i + 1]);
    inst->attrs.view = d;
}

/* ===================================================================== */
/* torch.distributed                                                     */
/* ===================================================================== */

Obj *modelpy_call(Interp *I, const char *name, CallArgs *a)
{
    static const char pre[] = "torch.distributed.";
    if (streq(name, "vars") && a->npos == 1 && !a->nkw && !a->has_star)   /* vars(obj): obj.__dict__ */
        return interp_getattr(I, a->pos[0], "__dict__", a->node);
    /* the default float dtype (Graph.default_float of the graphs built
     * from now on): float32, float16 or bfloat16; float64, which tngc does
     * not compile, is refused */
    if (streq(name, "torch.get_default_dtype") && !a->npos && !a->nkw) {
        Obj *d = obj_new(I, O_DTYPE);
        d->dtype = graph_float(interp_graph(I));
        return d;
    }
    if (streq(name, "torch.set_default_dtype") && a->npos + a->nkw == 1 && !a->has_star) {
        Obj *d = args_get(a, 0, "d");
        if (d && d->kind == O_DTYPE && dtype_is_float(d->dtype)) {
            I->default_float = d->dtype;
            I->host.default_float = d->dtype;
            if (I->tracing)
                I->g->default_float = d->dtype;
            return obj_none(I);
        }
        interp_diag(I, a->node, RULE_TNG202, "torch.set_default_dtype with a dtype other than torch.float32, "
                    "torch.float16 or torch.bfloat16 is not among what tngc evaluates");
        return obj_none(I);
    }
    if (strncmp(name, pre, sizeof pre - 1) != 0 || I->world_size > 1)   /* a rank's: torchlib_dist.c */
        return NULL;
    const char *f = name + sizeof pre - 1;
    if (streq(f, "is_initialized") || streq(f, "is_available")) {
        if (a->npos || a->nkw)
            return NULL;
        return obj_bool(I, f[3] == 'a');   /* a build with distributed, no process group */
    }
    if (streq(f, "get_world_size") || streq(f, "get_rank"))
        return mp__refuse(I, a->node, RULE_TNG203,
                          interp_printf(I, "%s() without an initialized process group raises in PyTorch (tngc "
                                        "compiles one process: torch.distributed.is_initialized() is False)", name));
    return NULL;
}

/* ===================================================================== */
/* torch.autograd.Function                                               */
/* ===================================================================== */

/* 1 when cls derives from torch.autograd.Function. */
static int mp__is_autograd_fn(const InterpClass *cls)
{
    int depth = 0;
    for (; cls && depth < 64; cls = cls->base, depth++)
        if (streq(cls->base_name, "torch.autograd.Function") ||
            streq(cls->base_name, "torch.autograd.function.Function"))
            return 1;
    return 0;
}

/* Fn.apply: forward bound to a fresh ctx (its first parameter). */
static Obj *mp__autograd_apply(Interp *I, Obj *cls, int32_t node)
{
    InterpFunc *fwd = obj_class_method(cls->cls, "forward", NULL);
    if (obj_class_method(cls->cls, "setup_context", NULL))
        return mp__refuse(I, node, RULE_TNG202, interp_printf(I, "%s.apply: a torch.autograd.Function with "
                          "setup_context (forward without ctx) is not among what tngc evaluates", cls->cls->name));
    if (!fwd || fwd->binding != 's')
        return mp__refuse(I, node, RULE_TNG202, interp_printf(I, "%s.apply: the Function has no forward "
                          "staticmethod", cls->cls->name));
    Obj *ctx = obj_new(I, O_INST);
    ctx->s = MODELPY_CTX;
    ctx->node = node;
    Obj *b = obj_new(I, O_BOUND);
    b->func = fwd;
    b->self_obj = ctx;
    return b;
}

/* ===================================================================== */
/* nn.Module's parameters and buffers                                    */
/* ===================================================================== */

/* 1 when o is an nn.Module: a script subclass or a torch.nn module. */
static int mp__is_module(const Obj *o)
{
    return obj_is_script_module(o) ||
           (o && o->kind == O_INST && !o->cls && o->s && strncmp(o->s, "torch.nn.", 9) == 0);
}

typedef struct MpWalk {
    int buffers;           /* buffers, else parameters */
    int recurse;
    Obj *out;              /* a list of tensors, or of (name, tensor) tuples */
    int named;
    Obj *seen_mods;        /* a list: modules visited (named_modules' memo) */
    Obj *seen;             /* a list: tensors listed (remove_duplicate) */
    const char *why;       /* set when the order is not one tngc knows */
} MpWalk;

static int mp__seen(Obj *list, const Obj *o)
{
    for (size_t i = 0; i < list->n; i++)
        if (list->items[i] == o || (o->kind == O_TENSOR && list->items[i]->t == o->t))
            return 1;
    return 0;
}

static int mp__member(const MpWalk *w, const Obj *v)
{
    if (!v || v->kind != O_TENSOR)
        return 0;
    return w->buffers ? v->t->is_buffer && !v->t->is_param : v->t->is_param;
}

static void mp__emit(Interp *I, MpWalk *w, const char *prefix, const char *name, Obj *v)
{
    if (mp__seen(w->seen, v))
        return;
    obj_push(I, w->seen, v);
    if (!w->named) {
        obj_push(I, w->out, v);
        return;
    }
    Obj *pair[2] = {obj_str(I, interp_printf(I, "%s%s", prefix, name)), v};
    obj_push(I, w->out, obj_tuple(I, pair, 2));
}

/* mod's own members, then its children's (PyTorch's named_modules order,
 * each module's _parameters / _buffers in registration order) */
static void mp__walk(Interp *I, MpWalk *w, Obj *mod, const char *prefix, int depth)
{
    if (depth > 32)
        w->why = "modules nested more than 32 deep";
    if (depth > 32 || mp__seen(w->seen_mods, mod))
        return;
    obj_push(I, w->seen_mods, mod);
    const char *last = NULL;
    int nbuf = 0;
    for (size_t i = 0; i < mod->attrs.n; i++) {
        Obj *v = mod->attrs.vals[i];
        if (!mp__member(w, v))
            continue;
        /* a torch.nn module's own attributes hold its weight before its
         * bias, as PyTorch registers them; another name, or more than one
         * buffer, has an order tngc does not check (nn.ParameterDict sorts
         * the keys of a dict it is given, not those set one by one) */
        const char *nm = mod->attrs.names[i];
        if (!mod->cls &&
            (w->buffers ? ++nbuf > 1 : (!streq(nm, "weight") && !streq(nm, "bias")) ||
                                       (streq(last, "bias") && streq(nm, "weight"))))
            w->why = interp_printf(I, "the order of the %s of %s", w->buffers ? "buffers" : "parameters", mod->s);
        last = nm;
        mp__emit(I, w, prefix, nm, v);
    }
    if (!mod->cls)   /* nn.ParameterList / BufferList items: "<k>" */
        for (size_t k = 0; k < mod->n; k++)
            if (mp__member(w, mod->items[k]))
                mp__emit(I, w, prefix, interp_printf(I, "%zu", k), mod->items[k]);
    if (!w->recurse)
        return;
    for (size_t i = 0; i < mod->attrs.n; i++)
        if (mp__is_module(mod->attrs.vals[i]))
            mp__walk(I, w, mod->attrs.vals[i], interp_printf(I, "%s%s.", prefix, mod->attrs.names[i]), depth + 1);
    if (!mod->cls)   /* ModuleList / Sequential items not also named attributes */
        for (size_t k = 0; k < mod->n; k++) {
            Obj *v = mod->items[k];
            int named = 0;
            for (size_t i = 0; i < mod->attrs.n && !named; i++)
                named = mod->attrs.vals[i] == v;
            if (!named && mp__is_module(v))
                mp__walk(I, w, v, interp_printf(I, "%s%zu.", prefix, k), depth + 1);
        }
}

/* mod.parameters(recurse=True) | named_parameters(prefix='', recurse=True,
 * remove_duplicate=True) | buffers(...) | named_buffers(...): an iterator */
static Obj *mp__module_members(Interp *I, const char *m, Obj *mod, CallArgs *a)
{
    MpWalk w = {0};
    w.named = strncmp(m, "named_", 6) == 0;
    w.buffers = strstr(m, "buffers") != NULL;
    size_t np = w.named ? 3 : 1;
    Obj *prefix = w.named ? args_get(a, 0, "prefix") : NULL;
    Obj *rec = args_get(a, w.named ? 1 : 0, "recurse");
    Obj *dup = w.named ? args_get(a, 2, "remove_duplicate") : NULL;
    if (a->has_star || a->npos > np || a->npos + a->nkw > np || (prefix && prefix->kind != O_STR) ||
        (rec && rec->kind != O_BOOL) || (dup && (dup->kind != O_BOOL || !dup->i)))
        return mp__refuse(I, a->node, RULE_TNG202, interp_printf(I, "Module.%s with these arguments is not "
                          "among what tngc evaluates", m));
    w.recurse = obj_flag(rec, 1);
    w.out = obj_seq(I, O_LIST);
    w.seen = obj_seq(I, O_LIST);
    w.seen_mods = obj_seq(I, O_LIST);
    mp__walk(I, &w, mod, prefix && prefix->len ? interp_printf(I, "%s.", prefix->s) : "", 0);
    if (w.why)
        return mp__refuse(I, a->node, RULE_TNG202, interp_printf(I, "Module.%s: %s is not among what tngc "
                          "knows", m, w.why));
    Obj *it = obj_new(I, O_ITER);
    it->self_obj = w.out;
    it->i = 0;
    return it;
}

/* ===================================================================== */
/* list and tuple methods                                                */
/* ===================================================================== */

/* An optional start or end of index(): the clamped position, -1 when not
 * an int. */
static int64_t mp__bound(const Obj *o, size_t n, int64_t dflt)
{
    int64_t v;
    if (!o)
        return dflt;
    if (!obj_int_value(o, &v))
        return -1;
    if (v < 0)
        v = v + (int64_t)n < 0 ? 0 : v + (int64_t)n;
    return v > (int64_t)n ? (int64_t)n : v;
}

/* seq.index(x[, start[, end]]) | seq.count(x) */
static Obj *mp__seq_search(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    const char *what = self->kind == O_LIST ? "list" : "tuple";
    Obj *x = args_get(a, 0, NULL);
    int index = m[0] == 'i';
    if (!x || a->nkw || a->has_star || a->npos > (index ? 3u : 1u))
        return NULL;
    int64_t lo = index ? mp__bound(args_get(a, 1, NULL), self->n, 0) : 0;
    int64_t hi = index ? mp__bound(args_get(a, 2, NULL), self->n, (int64_t)self->n) : (int64_t)self->n;
    if (lo < 0 || hi < 0)
        return obj_unknown(I, NULL);
    int64_t count = 0;
    for (int64_t i = lo; i < hi; i++) {
        int e = obj_eq(I, self->items[i], x);
        if (e < 0)   /* tngc cannot tell whether this item is x */
            return obj_unknown(I, NULL);
        if (e == 1 && index)
            return obj_int(I, i);
        count += e == 1;
    }
    if (index)
        return mp__refuse(I, a->node, RULE_TNG205, interp_printf(I, "%s.index(x): x is not in the %s (Python "
                          "raises ValueError)", what, what));
    return obj_int(I, count);
}

/* list.sort(*, key=None, reverse=False): sorted()'s order, in place */
static Obj *mp__list_sort(Interp *I, Obj *self, CallArgs *a)
{
    if (a->npos || a->has_star)
        return NULL;
    CallArgs s = *a;
    Obj *pos[2] = {self, NULL};
    s.pos = pos;
    s.npos = 1;
    int checked;
    Obj *r = builtins_call(I, "sorted", &s, &checked);
    if (!r || r->kind != O_LIST || r->n != self->n) {
        obj_forget(I, self, NULL, a->node, "list.sort as called here is not among what tngc evaluates");
        return I->tracing ? obj_unknown_reported(I) : obj_unknown(I, NULL);
    }
    if (r->n)   /* an empty list's items may be NULL */
        memcpy(self->items, r->items, r->n * sizeof *r->items);
    return obj_none(I);
}

Obj *modelpy_method(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    switch (self->kind) {
    case O_LIST: case O_TUPLE:
        if (streq(m, "index") || streq(m, "count"))
            return mp__seq_search(I, m, self, a);
        if (self->kind == O_LIST && streq(m, "copy") && !a->npos && !a->nkw)
            return obj_seq_of(I, O_LIST, self->items, self->n);
        if (self->kind == O_LIST && streq(m, "sort"))
            return mp__list_sort(I, self, a);
        return NULL;
    case O_DICT:
        if (streq(m, "copy") && !a->npos && !a->nkw)
            return obj_seq_of(I, O_DICT, self->items, self->n);
        if (streq(m, "popitem") && !a->npos && !a->nkw) {   /* the last pair, LIFO */
            if (self->n < 2)
                return mp__refuse(I, a->node, RULE_TNG205, "dict.popitem() of an empty dict (Python raises "
                                  "KeyError)");
            Obj *pair[2] = {self->items[self->n - 2], self->items[self->n - 1]};
            self->n -= 2;
            return obj_tuple(I, pair, 2);
        }
        return NULL;
    case O_STR:
        if ((streq(m, "index") || streq(m, "rindex")) && a->npos == 1 && !a->nkw &&
            a->pos[0]->kind == O_STR) {   /* str.find / rfind, ValueError where they give -1 */
            Obj *r = builtins_str_method(I, m[0] == 'r' ? "rfind" : "find", self, a);
            if (r && r->kind == O_INT && r->i < 0)
                return mp__refuse(I, a->node, RULE_TNG205, interp_printf(I, "str.%s(sub): sub is not in the "
                                  "string (Python raises ValueError)", m));
            return r;
        }
        return NULL;
    case O_INST:
        if (streq(self->s, MODELPY_CTX)) {
            if (streq(m, "save_for_backward") || streq(m, "mark_dirty") || streq(m, "mark_non_differentiable") ||
                streq(m, "set_materialize_grads") || streq(m, "save_for_forward"))
                return obj_none(I);
            return NULL;
        }
        if (mp__is_module(self) && (streq(m, "parameters") || streq(m, "named_parameters") ||
                                    streq(m, "buffers") || streq(m, "named_buffers")))
            return mp__module_members(I, m, self, a);
        return NULL;
    default:
        return NULL;
    }
}

/* ===================================================================== */
/* Attributes                                                            */
/* ===================================================================== */

Obj *modelpy_getattr(Interp *I, Obj *o, const char *name, int32_t node)
{
    if (o->kind == O_INST && streq(name, "__dict__")) {
        if (o->cls && !obj_is_script_module(o))
            return mp__dict_view(I, o);
        return mp__refuse(I, node, RULE_TNG202, interp_printf(I, "the __dict__ of %s (an nn.Module keeps its "
                          "parameters, buffers and submodules out of it) is not among what tngc evaluates",
                          o->cls ? o->cls->name : o->s ? o->s : "a library object"));
    }
    if (o->kind == O_CLASS && streq(name, "apply") && mp__is_autograd_fn(o->cls) && !obj_class_attr(o->cls, "apply"))
        return mp__autograd_apply(I, o, node);
    return NULL;
}

int modelpy_setattr(Interp *I, Obj *o, const char *name, Obj *val, int32_t node)
{
    if (o->kind == O_INST && streq(o->s, MODELPY_CTX) && !o->cls) {   /* ctx.scale = s: read back in forward */
        obj_setattr(I, o, name, val);
        return 1;
    }
    if (o->kind != O_CLASS)
        return 0;
    Obj *old = obj_class_attr(o->cls, name);
    if ((old && (old->kind == O_FUNC || old->kind == O_BOUND)) || val->kind == O_FUNC || val->kind == O_BOUND) {
        interp_diag(I, node, RULE_TNG202, "assigning the method or function '%s' of class %s after its body is "
                    "not among what tngc evaluates", name, o->cls->name);
        return 1;
    }
    if (val->kind == O_TENSOR && I->tracing && val->t->g == I->g) {
        interp_break(I, node, RULE_TNG211, "assigning a tensor to the class attribute '%s.%s' inside the "
                     "compiled method", o->cls->name, name);
        return 1;
    }
    obj_attrs_set(I, &o->cls->attrs, name, val);
    return 1;
}

/* ---- a tensor attribute created on the first call ----
 *
 * `if self._cache is None: self._cache = torch.empty(...)` in a compiled
 * method: PyTorch's first call creates the tensor and every later call
 * finds it. The body runs once, as host code, when the trace reaches it
 * with the attribute None: the tensor is then what one made in __init__
 * is (a constant the bundle computes once, or state when the method
 * writes into it), and the trace goes on with it, as PyTorch's later
 * calls do. Host code cannot read the method's inputs, so what it makes
 * depends on constants only: the value PyTorch's first call makes too
 * (torch.empty's contents are unspecified in both). */

int32_t modelpy_lazy_guard(Interp *I, int32_t ifnode)
{
    int32_t cond = ast_field(I->ast, ifnode, F_condition);
    int32_t body = ast_field(I->ast, ifnode, F_consequence);
    if (cond < 0 || body < 0 || N(I, cond)->kind != NK_comparison_operator)
        return -1;
    int32_t operands[3];
    const char *ops[3];
    int nops, no = interp_comparison_parts(I, cond, operands, ops, 3, &nops);
    if (no != 2 || nops != 1 || !streq(ops[0], "is") || N(I, operands[0])->kind != NK_attribute ||
        N(I, operands[1])->kind != NK_none)
        return -1;   /* "is not", a chain, another operator */
    FOR_CHILDREN(I, ifnode, c)   /* no elif, no else */
        if (c != cond && c != body)
            return -1;
    FOR_CHILDREN(I, body, s) {
        int32_t e = N(I, s)->kind == NK_expression_statement ? child(I, s, 0) : -1;
        if (e < 0 || N(I, e)->kind != NK_assignment || child(I, s, 1) >= 0)
            return -1;
    }
    return operands[0];
}

int modelpy_lazy_ready(Obj *o, const char *name)
{
    Obj *old = o && o->kind == O_INST ? obj_getattr(o, name) : NULL;
    return old && old->kind == O_NONE;
}

int modelpy_lazy_done(Interp *I, Obj *o, const char *name, int32_t ifnode)
{
    Obj *now = obj_getattr(o, name);
    if (I->lazy_stale) {   /* host code read the value the call started from */
        interp_break(I, ifnode, RULE_TNG211, "the attribute '%s' this method creates on its first call is "
                     "computed from a tensor the method has updated in place before (tngc computes it once, "
                     "from the value before the update)", name);
        return 1;
    }
    if (now && now->kind == O_TENSOR && now->t->g == &I->host)
        return 0;
    if (now && now->kind == O_TENSOR) {
        interp_break(I, ifnode, RULE_TNG211, "the tensor attribute '%s' this method creates on its first call "
                     "is made from the method's inputs (a tensor created this way must depend on constants only)",
                     name);
        return 1;
    }
    if (now && now->kind == O_UNKNOWN) {
        interp_break(I, ifnode, RULE_TNG205, "the attribute '%s' this method creates on its first call is not "
                     "known at compile time%s", name, interp_unknown_origin(I, now, ifnode));
        obj_mark_reported(I, now);
        return 1;
    }
    return 0;
}
