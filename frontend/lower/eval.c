/*
 * eval.c - the evaluator: Python's expressions and statements, run on the
 * objects of obj.h.
 *
 * One abstract interpreter over the syntax tree serves two modes:
 *
 *  - host mode runs the script's module-level code (and the functions and
 *    methods it calls) on abstract objects: numbers, strings, containers,
 *    tensor specs (values of a scratch host graph with constant shapes),
 *    instances of the script's classes and of torch.nn modules, config
 *    objects and compiled entries. Whatever is not known is O_UNKNOWN and
 *    host code goes on silently: a script may do anything around its model.
 *
 *  - trace mode runs a compiled entry's method body when host code calls
 *    the entry (entry.c). Tensors are values of the entry's Graph;
 *    operations append ops (torchlib.c); Python-level values (ints,
 *    constructor flags, module attributes) are evaluated and folded as
 *    Dynamo does. Anything that cannot be lowered is a graph-break
 *    diagnostic (TNG2xx) at its location.
 *
 * Each eval_* / exec_* function has the Python construct it handles above
 * it. Calls dispatch on what is called (eval_call_obj, installed as the
 * run's interp_call): script functions and classes here, TorchAir entry
 * points in entry.c, builtins in builtins.c, the torch library in
 * torchlib.c; operators and subscripts of values are pyops.c's. The
 * frames are frame.c's, the step budget and loops loop.c's, and the calls
 * of the layers below (the library, builtins, methods) libcall.c's.
 */
#include "eval.h"
#include "frame.h"
#include "imports.h"
#include "libcall.h"
#include "loop.h"
#include "modelpy.h"
#include "numpylib.h"
#include "pyformat.h"

#include <stdio.h>
#include <string.h>

/* How a statement ends. */
typedef enum Flow { FLOW_NEXT, FLOW_RETURN, FLOW_BREAK, FLOW_CONTINUE, FLOW_ABORT } Flow;

/* any expression: eval_node within the nesting limit */
static Obj *eval(Interp *I, Frame *f, int32_t n);
/* a block (or the module): its statements in order */
static Flow exec_block(Interp *I, Frame *f, int32_t n);
/* any statement: exec_stmt_node within the step and nesting limits */
static Flow exec_stmt(Interp *I, Frame *f, int32_t n);
/* obj.name: instance attributes, methods (bound, static, class, property),
 * class attributes, super().name, library namespaces, tensor attributes,
 * config fields, a compiled model's attributes (the interp_getattr of the
 * layers below). */
static Obj *getattr_obj(Interp *I, Obj *o, const char *name, int32_t node);
/* target = val for any target: assign_target_node within the nesting limit */
static int assign_target(Interp *I, Frame *f, int32_t target, Obj *val);

/* ===================================================================== */
/* Literals                                                              */
/* ===================================================================== */

/* The object of a literal's value (value.c). */
static Obj *from_value(Interp *I, const Value *v)
{
    switch (v ? v->kind : V_EXPR) {
    case V_NONE: return obj_none(I);
    case V_BOOL: return obj_bool(I, (int)v->i);
    case V_INT: return obj_int(I, v->i);
    case V_FLOAT: return obj_float(I, v->f);
    case V_STR: {
        Obj *o = obj_new(I, O_STR);
        o->s = v->s;
        o->len = v->len;
        return o;
    }
    default: return obj_unknown(I, "a literal tngc cannot evaluate (an f-string, or a number out of range)");
    }
}

/* A literal's object, made once per literal (numbers and strings are
 * immutable); an unknown (f-string) is made anew, as it may be marked. */
static Obj *eval_literal(Interp *I, int32_t n)
{
    if (I->literals[n])
        return I->literals[n];
    Obj *o = from_value(I, value_of(I->ast, NULL, n, &I->arena));
    if (o->kind != O_UNKNOWN)
        I->literals[n] = o;
    return o;
}

/* ===================================================================== */
/* f-strings                                                             */
/* ===================================================================== */

/* True when the string literal n is an f-string (its prefix has f or F). */
static int fstring_is(Interp *I, int32_t n, int *raw)
{
    int32_t s = N(I, n)->first;
    if (s < 0 || N(I, s)->kind != NK_string_start)
        return 0;
    size_t len;
    const char *p = ast_text(I->ast, s, &len);
    int f = 0;
    *raw = 0;
    for (size_t i = 0; i < len && p[i] != '"' && p[i] != '\''; i++) {
        f |= p[i] == 'f' || p[i] == 'F';
        *raw |= p[i] == 'r' || p[i] == 'R';
    }
    return f;
}

/* The literal text of an f-string part: {{ and }} are braces, escapes
 * decoded unless raw. 0 for an escape tngc does not decode. */
static int fstring_text(const char *s, size_t n, int raw, StrBuf *out)
{
    StrBuf t = {0};
    for (size_t i = 0; i < n; i++) {
        sb_putc(&t, s[i]);
        if ((s[i] == '{' || s[i] == '}') && i + 1 < n && s[i + 1] == s[i])
            i++;
    }
    int ok = 1;
    if (raw)
        sb_putn(out, t.s ? t.s : "", t.len);
    else
        ok = value_unescape(t.s ? t.s : "", t.len, out);
    sb_free(&t);
    return ok;
}

/* The spec of {x:spec}: its text after ':', with each nested {expr}
 * replaced by str(expr). NULL when a nested value is not known. */
static const char *fstring_spec(Interp *I, Frame *f, int32_t spec, Obj **unknown)
{
    const Node *sn = N(I, spec);
    const char *src = I->ast->src->text;
    uint32_t at = sn->start + 1;   /* after ':' */
    StrBuf out = {0};
    for (int32_t c = sn->first; c >= 0; c = N(I, c)->next) {
        if (N(I, c)->start < at)
            continue;   /* the ':' token */
        if (!streq(ast_symbol_name(I->ast, c), "format_expression"))
            continue;
        sb_putn(&out, src + at, N(I, c)->start - at);
        int32_t e = child(I, c, 0);
        Obj *v = e >= 0 ? eval(I, f, e) : NULL;
        const char *t = v ? pyformat_value(I, v, 0, "") : NULL;
        if (!t) {
            *unknown = v;
            sb_free(&out);
            return NULL;
        }
        sb_puts(&out, t);
        at = N(I, c)->end;
    }
    if (sn->end > at)
        sb_putn(&out, src + at, sn->end - at);
    const char *r = interp_strndup(I, out.s ? out.s : "", out.len);
    sb_free(&out);
    return r;
}

/* One {expr!conv:spec} of an f-string, formatted into out; 0 when it is
 * not known (*unknown: the unknown value, if that was the cause). */
static int fstring_field(Interp *I, Frame *f, int32_t n, StrBuf *out, Obj **unknown)
{
    int32_t expr = -1, spec = -1;
    int conv = 0;
    for (int32_t c = N(I, n)->first; c >= 0; c = N(I, c)->next) {
        const char *sym = ast_symbol_name(I->ast, c);
        size_t len;
        const char *t = ast_text(I->ast, c, &len);
        if (streq(sym, "type_conversion"))
            conv = len == 2 ? t[1] : '?';
        else if (streq(sym, "format_specifier"))
            spec = c;
        else if (streq(sym, "="))
            return 0;   /* f"{x=}": not done */
        else if (expr < 0 && (N(I, c)->flags & NODE_NAMED))
            expr = c;
    }
    if (expr < 0 || (conv && conv != 'r' && conv != 's'))
        return 0;
    Obj *v = eval(I, f, expr);
    const char *sp = spec >= 0 ? fstring_spec(I, f, spec, unknown) : "";
    if (!sp)
        return 0;
    const char *t = pyformat_value(I, v, conv, sp);
    if (!t) {
        *unknown = v;
        return 0;
    }
    return interp_str_put(I, out, t, strlen(t), n, "an f-string");
}

/* f"text {expr!conv:spec} ...": the string, when every field is known */
static Obj *eval_fstring(Interp *I, Frame *f, int32_t n, int raw)
{
    StrBuf out = {0};
    Obj *unknown = NULL;
    int ok = 1;
    for (int32_t c = N(I, n)->first; c >= 0 && ok; c = N(I, c)->next) {
        size_t len;
        const char *t;
        switch ((NodeKind)N(I, c)->kind) {
        case NK_string_start: case NK_string_end:
            break;
        case NK_string_content:
            t = ast_text(I->ast, c, &len);
            ok = fstring_text(t, len, raw, &out) && interp_str_fits(I, c, out.len, "an f-string");
            break;
        case NK_interpolation:
            ok = fstring_field(I, f, c, &out, &unknown);
            break;
        default:
            ok = 0;
        }
    }
    Obj *r = ok ? obj_str(I, interp_strndup(I, out.s ? out.s : "", out.len))
                : unknown && is_unknown(unknown) ? obj_unknown_from(I, unknown)
                : obj_unknown(I, "an f-string with a value tngc cannot format");
    sb_free(&out);
    return r;
}

/* ===================================================================== */
/* Calls                                                                 */
/* ===================================================================== */

typedef struct ArgBuf {
    VEC(Obj *) pos;
    VEC(const char *) kwnames;
    VEC(Obj *) kw;
} ArgBuf;

/* Frees an ArgBuf's buffers. */
static void argbuf_free(ArgBuf *b)
{
    VEC_FREE(b->pos);
    VEC_FREE(b->kwnames);
    VEC_FREE(b->kw);
}

/* Copies the buffers into the arena so that CallArgs outlive them. */
static CallArgs argbuf_finish(Interp *I, ArgBuf *b, int32_t node)
{
    CallArgs a = {0};
    a.node = node;
    a.npos = b->pos.n;
    a.nkw = b->kw.n;
    a.pos = interp_alloc(I, (a.npos + 1) * sizeof *a.pos);
    a.kw = a.nkw ? interp_alloc(I, (a.nkw + 1) * sizeof *a.kw) : I->no_kw;
    a.kwnames = a.nkw ? interp_alloc(I, (a.nkw + 1) * sizeof *a.kwnames) : I->no_kwnames;
    if (a.npos)
        memcpy(a.pos, b->pos.v, a.npos * sizeof *a.pos);
    if (a.nkw) {
        memcpy(a.kw, b->kw.v, a.nkw * sizeof *a.kw);
        memcpy(a.kwnames, b->kwnames.v, a.nkw * sizeof *a.kwnames);
    }
    argbuf_free(b);
    return a;
}

/* (a, *b, k=v, **d) */
static CallArgs eval_args(Interp *I, Frame *f, int32_t arglist, int32_t node)
{
    ArgBuf b = {0};
    int star = 0;
    if (arglist >= 0 && N(I, arglist)->kind == NK_generator_expression) {
        VEC_PUSH(b.pos, eval(I, f, arglist));
    } else if (arglist >= 0) {
        FOR_CHILDREN(I, arglist, c) {
            const Node *nd = N(I, c);
            if (nd->kind == NK_keyword_argument) {
                int32_t name = ast_field(I->ast, c, F_name), value = ast_field(I->ast, c, F_value);
                if (name < 0 || value < 0)
                    continue;
                VEC_PUSH(b.kwnames, interp_node_str(I, name));
                VEC_PUSH(b.kw, eval(I, f, value));
            } else if (nd->kind == NK_list_splat) {
                Obj *o = eval(I, f, child(I, c, 0) >= 0 ? child(I, c, 0) : c);
                Obj *items = loop_view(I, o, c);
                if (!items) {
                    star = 1;
                    continue;
                }
                for (size_t i = 0; i < items->n; i++)
                    VEC_PUSH(b.pos, items->items[i]);
            } else if (nd->kind == NK_dictionary_splat) {
                Obj *o = eval(I, f, child(I, c, 0));
                if (o->kind != O_DICT) {
                    star = 1;
                    continue;
                }
                for (size_t i = 0; i + 1 < o->n; i += 2)
                    if (o->items[i]->kind == O_STR) {
                        VEC_PUSH(b.kwnames, o->items[i]->s);
                        VEC_PUSH(b.kw, o->items[i + 1]);
                    }
            } else {
                VEC_PUSH(b.pos, eval(I, f, c));
            }
        }
    }
    CallArgs a = argbuf_finish(I, &b, node);
    a.has_star = star;
    return a;
}

/* def name(params): body | lambda params: body -- the function object,
 * with its default values evaluated now, as Python does. */
static InterpFunc *func_new(Interp *I, Frame *f, int32_t def, InterpClass *cls, const char *prefix)
{
    InterpFunc *fn = interp_alloc(I, sizeof *fn);
    fn->node = def;
    fn->cls = cls;
    fn->closure = f;
    fn->mod = I->mod;
    frame_keep(I, f);
    int32_t name = ast_field(I->ast, def, F_name);
    fn->name = name >= 0 ? interp_node_str(I, name) : "<lambda>";
    fn->qualname = prefix ? interp_printf(I, "%s.%s", prefix, fn->name) : fn->name;
    int32_t ps = obj_func_params(I, def);
    size_t np = 0;
    if (ps >= 0)
        FOR_CHILDREN(I, ps, p) np++;
    fn->nparams = np;
    fn->defaults = interp_alloc(I, (np + 1) * sizeof *fn->defaults);
    size_t i = 0;
    if (ps >= 0)
        FOR_CHILDREN(I, ps, p) {
            int32_t v = ast_field(I->ast, p, F_value);
            if ((N(I, p)->kind == NK_default_parameter || N(I, p)->kind == NK_typed_default_parameter) && v >= 0)
                fn->defaults[i] = eval(I, f, v);
            i++;
        }
    return fn;
}

/* f(args) for a def or lambda of the script: binds, runs the body, returns
 * what its return statement gives (None without one). */
static Obj *call_func(Interp *I, InterpFunc *fn, Obj *self_obj, CallArgs *a)
{
    if (I->depth >= INTERP_MAX_DEPTH) {
        interp_limit(I, a->node, "calls nested more than 64 deep (recursion?)");
        return obj_unknown(I, NULL);
    }
    Frame *fr = interp_frame(fn->closure);
    ImpSaved in;
    int switched = imports_enter(I, fn->mod, &in);   /* a def of another module: its code */
    frame_bind_params(I, fn, fr, self_obj, a);
    I->depth++;
    Obj *ret;
    int32_t body = ast_field(I->ast, fn->node, F_body);
    if (N(I, fn->node)->kind == NK_lambda) {
        ret = body >= 0 ? eval(I, fr, body) : obj_none(I);
    } else {
        I->ret = NULL;
        Flow fl = body >= 0 ? exec_block(I, fr, body) : FLOW_NEXT;
        ret = fl == FLOW_RETURN && I->ret ? I->ret : fl == FLOW_ABORT ? obj_unknown(I, NULL) : obj_none(I);
        I->ret = NULL;
    }
    I->depth--;
    if (switched)
        imports_leave(I, &in);
    frame_release(I, fr);
    return ret;
}

static Obj *eval_call_obj(Interp *I, Obj *callee, CallArgs *a);

/* The __init__ @dataclass generates for class dc, run on inst: the
 * fields from the arguments (positional in field order, then keywords),
 * else their defaults (default_factory called); then __post_init__. */
static void dataclass_init(Interp *I, InterpClass *dc, Obj *inst, CallArgs *a)
{
    size_t ai = 0;
    for (size_t i = 0; i < dc->nfields; i++) {
        const char *name = dc->fields[i];
        Obj *v = ai < a->npos ? a->pos[ai++] : args_kw(a, name), *d = dc->field_defaults[i];
        if (!v && d && d->kind == O_BUILTIN && streq(d->s, "dataclasses.Field")) {
            Obj *fac = obj_getattr(d, "default_factory");
            v = obj_getattr(d, "default");
            if (!v && fac) {
                CallArgs none = {0};
                none.kwnames = I->no_kwnames;
                none.kw = I->no_kw;
                none.node = a->node;
                v = eval_call_obj(I, fac, &none);
            }
        } else if (!v) {
            v = d;
        }
        if (!v && I->tracing && !a->has_star) {
            interp_diag(I, a->node, RULE_TNG205, "missing argument '%s' in this call of %s", name, dc->name);
            v = obj_unknown_reported(I);
        }
        obj_setattr(I, inst, name, v ? obj_stored(I, v) : obj_unknown(I, "a missing argument"));
    }
    if (I->tracing && !a->has_star) {
        if (ai < a->npos)
            interp_diag(I, a->node, RULE_TNG205, "%s takes %zu positional arguments but this call passes %zu",
                        dc->name, dc->nfields, a->npos);
        for (size_t k = 0; k < a->nkw; k++) {
            int found = 0;
            for (size_t i = 0; i < dc->nfields; i++)
                found |= streq(dc->fields[i], a->kwnames[k]);
            if (!found)
                interp_diag(I, a->node, RULE_TNG205, "%s has no field '%s'", dc->name, a->kwnames[k]);
        }
    }
    InterpFunc *post = obj_class_method(inst->cls, "__post_init__", NULL);
    if (post) {
        CallArgs none = {0};
        none.kwnames = I->no_kwnames;
        none.kw = I->no_kw;
        none.node = a->node;
        call_func(I, post, inst, &none);
    }
}

/* C(args) for a class of the script: a new instance, C.__init__ run on it
 * (the one @dataclass generated when that comes first in the bases). */
static Obj *instantiate(Interp *I, InterpClass *cls, CallArgs *a)
{
    if (cls->namedtuple) {   /* the fields as dataclass_init sets them, then a tuple of them */
        Obj *tmp = obj_new(I, O_INST);
        tmp->cls = cls;
        tmp->node = a->node;
        dataclass_init(I, cls, tmp, a);
        Obj **items = interp_alloc(I, (cls->nfields + 1) * sizeof *items);
        for (size_t i = 0; i < cls->nfields; i++)
            items[i] = obj_getattr(tmp, cls->fields[i]);
        Obj *t = obj_named_tuple(I, items, cls->fields, cls->nfields);
        t->cls = cls;
        return t;
    }
    Obj *inst = obj_new(I, O_INST);
    inst->cls = cls;
    inst->node = a->node;
    InterpClass *owner = NULL;
    InterpFunc *init = obj_class_method(cls, "__init__", &owner);
    int depth = 0;
    for (InterpClass *k = cls; k && k != owner && depth < 64; k = k->base, depth++)
        if (k->dataclass_init) {
            dataclass_init(I, k, inst, a);
            return inst;
        }
    const char *lib;
    if (init)
        call_func(I, init, inst, a);
    else if ((lib = torchlib_nn_base(cls)))   /* class Norm(nn.LayerNorm) with no __init__ */
        torchlib_subclass_init(I, inst, lib, a);
    return inst;
}

static Obj *eval_call_obj(Interp *I, Obj *callee, CallArgs *a);

/* inst(args): an instance of a script class (its forward or __call__, a
 * compiled forward) or a torch nn module */
static Obj *call_instance(Interp *I, Obj *callee, CallArgs *a)
{
    if (callee->cls) {
        Obj *own = obj_getattr(callee, "forward");
        if (own && own->kind == O_COMPILED)   /* model.forward = torch.compile(model.forward) */
            return eval_call_obj(I, own, a);
        Obj *fa = obj_class_attr(callee->cls, "forward");
        if (entry_is_unbound_compiled(fa))
            return entry_call_compiled(I, entry_bind_compiled(I, callee, "forward", fa), a);
        InterpFunc *fwd = obj_class_method(callee->cls, "forward", NULL);
        if (!fwd)
            fwd = obj_class_method(callee->cls, "__call__", NULL);
        if (fwd)
            return call_func(I, fwd, callee, a);
        const char *lib = torchlib_nn_base(callee->cls);
        if (lib) {   /* the forward of its torch.nn base */
            size_t ndiag = I->sf->diags.n;
            return libcall_result(I, ndiag, torchlib_subclass_call(I, callee, lib, a), lib, NULL, a);
        }
        return interp_break(I, a->node, RULE_TNG202, "instance of %s is not callable", callee->cls->name);
    }
    size_t ndiag = I->sf->diags.n;
    return libcall_result(I, ndiag, torchlib_call_module(I, callee, a), callee->s, NULL, a);
}

/* p(args) for p = functools.partial(func, *pargs, **pkw): func(*pargs,
 * *args, **{**pkw, **kw}) */
static Obj *call_partial(Interp *I, Obj *p, CallArgs *a)
{
    CallArgs m = *a;
    m.npos = p->n + a->npos;
    m.pos = interp_alloc(I, (m.npos + 1) * sizeof *m.pos);
    for (size_t i = 0; i < m.npos; i++)
        m.pos[i] = i < p->n ? p->items[i] : a->pos[i - p->n];
    size_t cap = p->attrs.n + a->nkw + 1;
    m.kwnames = interp_alloc(I, cap * sizeof *m.kwnames);
    m.kw = interp_alloc(I, cap * sizeof *m.kw);
    m.nkw = 0;
    for (size_t i = 0; i < p->attrs.n; i++) {
        Obj *v = args_kw(a, p->attrs.names[i]);
        m.kwnames[m.nkw] = p->attrs.names[i];
        m.kw[m.nkw++] = v ? v : p->attrs.vals[i];
    }
    for (size_t i = 0; i < a->nkw; i++)
        if (!obj_getattr(p, a->kwnames[i])) {
            m.kwnames[m.nkw] = a->kwnames[i];
            m.kw[m.nkw++] = a->kw[i];
        }
    return eval_call_obj(I, p->self_obj, &m);
}

/* callee(args), callee evaluated: the dispatch on what is called (the
 * interp_call of the layers below) */
static Obj *eval_call_obj(Interp *I, Obj *callee, CallArgs *a)
{
    if (I->aborted)
        return obj_unknown(I, NULL);
    switch (callee->kind) {
    case O_FUNC:
        return call_func(I, callee->func, NULL, a);
    case O_BOUND:
        return call_func(I, callee->func, callee->self_obj, a);
    case O_CLASS:
        return instantiate(I, callee->cls, a);
    case O_INST:
        return call_instance(I, callee, a);
    case O_COMPILED:
        return entry_call_compiled(I, callee, a);
    case O_BUILTIN:
        return libcall_function(I, callee, a);
    case O_METHOD:
        return libcall_method(I, callee, a);
    case O_PARTIAL:
        return call_partial(I, callee, a);
    case O_UNKNOWN:
        if (I->tracing) {
            interp_need(I, callee, a->node, "the function or module called here");
            return obj_unknown_reported(I);
        }
        return obj_is_reported(callee) ? obj_unknown_reported(I) : obj_unknown(I, NULL);
    default:
        return interp_break(I, a->node, RULE_TNG202, "call of an object that is not callable");
    }
}

/* ===================================================================== */
/* Attributes                                                            */
/* ===================================================================== */

/* obj.name for a method of the library (tensor.view, list.append): the
 * method bound to obj. */
static Obj *method_obj(Interp *I, const char *name, Obj *self)
{
    Obj *m = obj_new(I, O_METHOD);
    m->s = name;   /* node_str or a string object: lives as long as the run */
    m->self_obj = self;
    return m;
}

/* The _fields of named tuple class cls: a tuple of the field names. */
static Obj *namedtuple_fields(Interp *I, const InterpClass *cls)
{
    Obj *t = obj_seq(I, O_TUPLE);
    for (size_t i = 0; i < cls->nfields; i++)
        obj_push(I, t, obj_str(I, cls->fields[i]));
    return t;
}

/* obj.name (see the prototype above) */
static Obj *getattr_obj(Interp *I, Obj *o, const char *name, int32_t node)
{
    Obj *r;
    if ((r = modelpy_getattr(I, o, name, node)))   /* inst.__dict__, Fn.apply */
        return r;
    if (name[0] == '_' && name[1] == '_') {   /* obj.__class__, cls.__name__, fn.__name__ */
        if (strcmp(name, "__class__") == 0 && o->kind == O_INST && o->cls && o->cls->node) {
            r = obj_new(I, O_CLASS);
            r->cls = o->cls;
            return r;
        }
        if (strcmp(name, "__class__") == 0 && o->kind == O_INST && !o->cls)
            return obj_builtin(I, o->s);
        if (strcmp(name, "__name__") == 0 || strcmp(name, "__qualname__") == 0) {
            int q = name[2] == 'q';
            if (o->kind == O_CLASS)
                return obj_str(I, o->cls->name);
            if (o->kind == O_FUNC || o->kind == O_BOUND)
                return obj_str(I, q ? o->func->qualname : o->func->name);
            if (o->kind == O_BUILTIN && o->s) {
                const char *dot = strrchr(o->s, '.');
                return obj_str(I, dot ? dot + 1 : o->s);
            }
        }
    }
    switch (o->kind) {
    case O_INST:
        if ((r = obj_getattr(o, name)))
            return interp_trace_in(I, r, node);
        if (o->cls) {
            InterpClass *owner = NULL;
            InterpFunc *fn = obj_class_method(o->cls, name, &owner);
            if (fn && fn->binding == 's') {
                Obj *f = obj_new(I, O_FUNC);
                f->func = fn;
                return f;
            }
            if (fn && fn->binding == 'p') {   /* @property: its value */
                CallArgs none = {0};
                none.node = node;
                return call_func(I, fn, o, &none);
            }
            if (fn) {
                Obj *b = obj_new(I, O_BOUND);
                b->func = fn;
                b->self_obj = o;
                if (fn->binding == 'c') {
                    b->self_obj = obj_new(I, O_CLASS);
                    b->self_obj->cls = o->cls;
                }
                return b;
            }
            if ((r = obj_class_attr(o->cls, name)))
                return entry_is_unbound_compiled(r) ? entry_bind_compiled(I, o, name, r) : r;
            const char *lib = torchlib_nn_base(o->cls);
            if (lib && (r = torchlib_subclass_attr(I, o, lib, name, 0, node)))   /* its torch.nn base's */
                return r;
            /* nn.Module.__init__ sets training; .eval() / .train(mode) set it
             * on every submodule (torchlib's nn_set_training) */
            if (strcmp(name, "training") == 0 && obj_is_script_module(o))
                return obj_bool(I, 1);
            if (!torchlib_module_has_method(name)) {
                if (I->tracing)
                    return interp_break(I, node, RULE_TNG205, "'%s' object has no attribute '%s' that tngc "
                                        "can see (set in __init__, or a method of the class)", o->cls->name, name);
                return obj_unknown(I, NULL);
            }
        } else if ((r = torchlib_getattr(I, o, name, node))) {
            return interp_trace_in(I, r, node);
        }
        return method_obj(I, name, o);
    case O_CLASS:
        if (o->cls->namedtuple && strcmp(name, "_fields") == 0)
            return namedtuple_fields(I, o->cls);
        r = obj_class_attr(o->cls, name);
        if (r && r->kind == O_FUNC && r->func->binding == 'c') {   /* Cls.make: bound to the class */
            Obj *b = obj_new(I, O_BOUND);
            b->func = r->func;
            b->self_obj = o;
            return b;
        }
        return r ? r : obj_unknown(I, NULL);
    case O_BUILTIN:
        if (strcmp(o->s, "super") == 0) {
            /* super().name: the base class's method, or a library no-op */
            Obj *self = o->self_obj;
            InterpClass *cls = o->cls;
            InterpFunc *fn = cls && cls->base ? obj_class_method(cls->base, name, NULL) : NULL;
            if (fn && self) {
                Obj *b = obj_new(I, O_BOUND);
                b->func = fn;
                b->self_obj = self;
                return b;
            }
            const char *lib = cls ? torchlib_nn_base(cls) : NULL;
            if (lib && self && self->kind == O_INST)   /* the torch.nn base's method */
                return torchlib_subclass_attr(I, self, lib, name, 1, node);
            return obj_builtin_attr(I, "super", name);
        }
        if ((r = imports_getattr(I, o, name, node)))   /* a module of the script */
            return r;
        if ((r = torchlib_getattr(I, o, name, node)))
            return r;
        return obj_builtin_attr(I, o->s, name);
    case O_TENSOR:
        o = interp_trace_in(I, o, node);
        if (o->kind != O_TENSOR)
            return o;
        if ((r = torchlib_getattr(I, o, name, node)))
            return r;
        return method_obj(I, name, o);
    case O_CONFIG:
        return entry_config_get(I, o, name);
    case O_TUPLE:
        if ((r = obj_getattr(o, name)))   /* a named tuple's field */
            return r;
        if (o->cls && o->cls->namedtuple) {   /* its _fields, its class's methods and attributes */
            if (strcmp(name, "_fields") == 0)
                return namedtuple_fields(I, o->cls);
            InterpFunc *fn = obj_class_method(o->cls, name, NULL);
            if (fn && fn->binding == 'p') {
                CallArgs none = {0};
                none.node = node;
                return call_func(I, fn, o, &none);
            }
            if (fn && !fn->binding) {
                Obj *b = obj_new(I, O_BOUND);
                b->func = fn;
                b->self_obj = o;
                return b;
            }
            if (!fn && (r = obj_class_attr(o->cls, name)))
                return r;
        }
        return method_obj(I, name, o);
    case O_LIST: case O_DICT: case O_STR: case O_SET:
        return method_obj(I, name, o);
    case O_PARTIAL:   /* partial.func, .args, .keywords */
        if (strcmp(name, "func") == 0)
            return o->self_obj;
        if (strcmp(name, "args") == 0)
            return obj_seq_of(I, O_TUPLE, o->items, o->n);
        if (strcmp(name, "keywords") == 0) {
            Obj *d = obj_seq(I, O_DICT);
            for (size_t i = 0; i < o->attrs.n; i++)
                obj_dict_set(I, d, obj_str(I, o->attrs.names[i]), o->attrs.vals[i]);
            return d;
        }
        return obj_unknown(I, NULL);
    case O_COMPILED:
        /* attributes of the compiled model are the model's */
        if (o->comp->target)
            return getattr_obj(I, o->comp->target, name, node);
        return obj_unknown(I, NULL);
    default:
        return obj_unknown(I, NULL);
    }
}

/* obj.name = val on an instance, a config, a compiled model. */
static void setattr_obj(Interp *I, Obj *o, const char *name, Obj *val, int32_t node)
{
    if (modelpy_setattr(I, o, name, val, node))   /* Cls.name = val, an autograd ctx's */
        return;
    if (o->kind == O_INST) {
        Obj *old = obj_getattr(o, name);
        if (I->tracing && old && old->kind == O_TENSOR && old->t->g != I->g && val->kind == O_TENSOR) {
            Shadow *sh = interp_shadow_find(I, old->t);
            if (sh && sh->obj == val)
                return;   /* self.buf += x: updated in place already */
        }
        if (val->kind == O_TENSOR && I->tracing && val->t->g == I->g)
            interp_break(I, node, RULE_TNG211, "assigning a tensor to the module attribute '%s' inside the compiled method", name);
        else
            obj_setattr(I, o, name, val);
    } else if (o->kind == O_CONFIG) {
        entry_config_set(I, o, name, val, node);
    } else if (o->kind == O_COMPILED && o->comp->target) {
        setattr_obj(I, o->comp->target, name, val, node);
    } else if (o->kind == O_BUILTIN && o->s && strcmp(o->s, "torch._dynamo.config") == 0) {
        /* the one dynamo setting that changes what compiles: torch.where(condition) */
        if (strcmp(name, "capture_dynamic_output_shape_ops") == 0)
            I->capture_dyn = obj_truth(I, val) == 1;
    } else {
        imports_setattr(I, o, name, val);   /* mod.name = val: a global of a module of the script */
    }
}

/* ===================================================================== */
/* Subscripts                                                            */
/* ===================================================================== */

/* start:stop:step inside a subscript */
static Obj *eval_slice(Interp *I, Frame *f, int32_t n)
{
    /* slice: [start] ':' [stop] [':' [step]] */
    Obj *s = obj_new(I, O_SLICE);
    Obj *parts[3] = {obj_none(I), obj_none(I), obj_none(I)};
    int k = 0;
    for (int32_t c = N(I, n)->first; c >= 0 && k < 3; c = N(I, c)->next) {
        if (!(N(I, c)->flags & NODE_NAMED)) {
            if (ast_text_is(I->ast, c, ":"))
                k++;
            continue;
        }
        if (N(I, c)->kind != NK_comment)
            parts[k] = eval(I, f, c);
    }
    for (int i = 0; i < 3; i++)
        obj_push(I, s, parts[i]);
    return s;
}

/* the index of x[i] | x[i, j:k, ...] (several make a tuple) */
static Obj *eval_index(Interp *I, Frame *f, int32_t sub)
{
    /* the subscript field(s): one index, or several making a tuple */
    Obj *idx[GRAPH_MAX_DIMS * 2];
    int n = 0;
    for (int32_t c = N(I, sub)->first; c >= 0; c = N(I, c)->next)
        if (N(I, c)->field == F_subscript && n < (int)(sizeof idx / sizeof *idx))
            idx[n++] = N(I, c)->kind == NK_slice ? eval_slice(I, f, c) : eval(I, f, c);
    if (n == 1)
        return idx[0];
    return obj_tuple(I, idx, (size_t)n);
}

/* ===================================================================== */
/* Expressions                                                           */
/* ===================================================================== */

/* name: a variable, a Python builtin, __name__ */
static Obj *eval_identifier(Interp *I, Frame *f, int32_t n)
{
    const char *name = interp_node_str(I, n);
    Obj *o = frame_lookup(I, f, name);
    if (o)
        return imports_trace_value(I, interp_trace_in(I, o, n), n);   /* (an external name: unknown) */
    if (builtins_is_name(name))
        return obj_builtin(I, name);
    if (strcmp(name, "__name__") == 0)
        return obj_str(I, "__main__");
    if (I->tracing)
        return interp_break(I, n, RULE_TNG205, "name '%s' is not known at compile time", name);
    return obj_unknown(I, NULL);
}

/* The operator token of a unary, binary or boolean operator node. */
static const char *op_text(Interp *I, int32_t n)
{
    int32_t op = ast_field(I->ast, n, F_operator);
    if (op < 0)
        return "?";
    return interp_node_str(I, op);
}

/* a if c else b */
static Obj *eval_conditional(Interp *I, Frame *f, int32_t n)
{
    int32_t a = child(I, n, 0), c = child(I, n, 1), b = child(I, n, 2);
    if (a < 0 || c < 0 || b < 0)
        return obj_unknown(I, NULL);
    Obj *cond = eval(I, f, c);
    int t = obj_truth(I, cond);
    if (t < 0)
        return cond->kind == O_TENSOR || cond->kind == O_DIM ?
            interp_break(I, c, RULE_TNG204, "conditional expression on a value only known at run time") :
            obj_unknown_from(I, cond);
    return eval(I, f, t ? a : b);
}

/* a < b <= c ... */
static Obj *eval_comparison(Interp *I, Frame *f, int32_t n)
{
    int32_t operands[16];
    const char *ops[16];
    int nops, no = interp_comparison_parts(I, n, operands, ops, 16, &nops);
    if (no < 2 || nops != no - 1)
        return obj_unknown(I, NULL);
    Obj *l = eval(I, f, operands[0]);
    Obj *res = obj_bool(I, 1);
    for (int i = 0; i < nops; i++) {
        Obj *r = eval(I, f, operands[i + 1]);
        res = pyops_compare(I, ops[i], l, r, n);
        if (i + 1 < nops && res->kind == O_TENSOR)   /* a < b < c asks the truth of a < b */
            return interp_break(I, n, RULE_TNG204, "a chained comparison of tensors: the truth of a "
                                "tensor is only known at run time");
        if (obj_truth(I, res) != 1)
            return res;
        l = r;
    }
    return res;
}

/* a and b | a or b */
static Obj *eval_boolean(Interp *I, Frame *f, int32_t n)
{
    int32_t l = ast_field(I->ast, n, F_left), r = ast_field(I->ast, n, F_right);
    if (l < 0 || r < 0)
        return obj_unknown(I, NULL);
    const char *op = op_text(I, n);
    Obj *a = eval(I, f, l);
    int t = obj_truth(I, a);
    if (t < 0) {
        if (a->kind == O_TENSOR || a->kind == O_DIM)
            return interp_break(I, n, RULE_TNG204, "'%s' on a value only known at run time", op);
        return obj_unknown_from(I, a);
    }
    if (strcmp(op, "and") == 0)
        return t ? eval(I, f, r) : a;
    return t ? a : eval(I, f, r);
}

/* -x | +x | ~x */
static Obj *eval_unary(Interp *I, Frame *f, int32_t n)
{
    int32_t arg = ast_field(I->ast, n, F_argument);
    if (arg < 0)
        return obj_unknown(I, NULL);
    const char *op = op_text(I, n);
    Obj *x = eval(I, f, arg);
    if (x->kind == O_TENSOR) {
        Obj *r = torchlib_unop(I, op, x, n);
        return r ? r : interp_break(I, n, RULE_TNG203, "operator '%s' on a tensor", op);
    }
    if (strcmp(op, "+") == 0)
        return x;
    if (strcmp(op, "-") == 0) {
        int64_t r = 0;
        if (x->kind == O_INT) {
            int ovf = graph_ckd_sub(&r, 0, x->i);
            return obj_int_checked(I, ovf, r, n);
        }
        if (x->kind == O_BOOL) return obj_int(I, -x->i);
        if (x->kind == O_FLOAT) return numpy_result(obj_float(I, -x->f), x, NULL);
        if (x->kind == O_DIM) return obj_dim(I, graph_dim_sub(I->g, graph_dim_const(I->g, 0), x->dim));
    }
    if (strcmp(op, "~") == 0 && (x->kind == O_INT || x->kind == O_BOOL))
        return obj_int(I, ~x->i);
    return obj_unknown_from(I, x);
}

/* [body for x in it if c ...], (…), {k: v for …} */
static void comprehension_loop(Interp *I, Frame *f, int32_t n, int32_t clause, Obj *out, int is_dict)
{
    if (I->aborted)
        return;
    while (clause >= 0 && !((N(I, clause)->flags & NODE_NAMED) &&
           (N(I, clause)->kind == NK_for_in_clause || N(I, clause)->kind == NK_if_clause)))
        clause = N(I, clause)->next;
    int32_t body = ast_field(I->ast, n, F_body);
    if (clause < 0) {
        if (body < 0)
            return;
        if (out->n >= 2 * INTERP_MAX_ITEMS) {
            interp_limit(I, n, "a comprehension of more than 100,000 items");
            return;
        }
        if (is_dict) {
            int32_t k = ast_field(I->ast, body, F_key), v = ast_field(I->ast, body, F_value);
            if (k >= 0 && v >= 0) {
                Obj *key = eval(I, f, k);
                obj_dict_set(I, out, key, eval(I, f, v));
            }
        } else if (out->kind == O_SET) {
            obj_set_add(I, out, eval(I, f, body));
        } else {
            obj_push(I, out, eval(I, f, body));
        }
        return;
    }
    int32_t next = N(I, clause)->next;
    if (N(I, clause)->kind == NK_if_clause) {
        int32_t c = child(I, clause, 0);
        Obj *cond = c >= 0 ? eval(I, f, c) : obj_unknown(I, NULL);
        int t = obj_truth(I, cond);
        if (t < 0) {
            out->kind = O_UNKNOWN;
            return;
        }
        if (t)
            comprehension_loop(I, f, n, next, out, is_dict);
        return;
    }
    int32_t left = ast_field(I->ast, clause, F_left), right = ast_field(I->ast, clause, F_right);
    LoopIter it;
    if (right < 0 || !loop_begin(I, eval(I, f, right), clause, &it) || left < 0) {
        out->kind = O_UNKNOWN;
        return;
    }
    for (size_t i = 0; i < it.n && loop_step(I, clause); i++) {
        assign_target(I, f, left, loop_item(I, &it, i));
        comprehension_loop(I, f, n, next, out, is_dict);
        if (out->kind == O_UNKNOWN)
            return;
    }
}

/* [e for x in it if c] | (e for ...) | {k: v for ...} | {e for ...} */
static Obj *eval_comprehension(Interp *I, Frame *f, int32_t n)
{
    int is_dict = N(I, n)->kind == NK_dictionary_comprehension;
    Obj *out = obj_seq(I, is_dict ? O_DICT : N(I, n)->kind == NK_generator_expression ? O_TUPLE
                          : N(I, n)->kind == NK_set_comprehension ? O_SET : O_LIST);
    Frame *inner = interp_frame(f);
    comprehension_loop(I, inner, n, N(I, n)->first, out, is_dict);
    frame_release(I, inner);
    return out->kind == O_UNKNOWN ? obj_unknown(I, NULL) : out;
}

/* f(args) | super() */
static Obj *eval_call(Interp *I, Frame *f, int32_t n)
{
    int32_t fn = ast_field(I->ast, n, F_function), args = ast_field(I->ast, n, F_arguments);
    if (fn < 0)
        return obj_unknown(I, NULL);
    Obj *callee = eval(I, f, fn);
    if (callee->kind == O_BUILTIN && strcmp(callee->s, "super") == 0) {
        /* super() inside a method: remember the class and self */
        Obj *s = obj_new(I, O_BUILTIN);
        s->s = "super";
        Frame *fr = f;
        Obj *self = fr ? strmap_get(&fr->vars, "self") : NULL;
        s->self_obj = self;
        s->cls = NULL;
        for (int32_t p = N(I, n)->parent; p >= 0; p = N(I, p)->parent)
            if (N(I, p)->kind == NK_class_definition) {
                int32_t cn = ast_field(I->ast, p, F_name);
                Obj *c = cn >= 0 ? frame_lookup(I, I->globals, interp_node_str(I, cn)) : NULL;
                if (c && c->kind == O_CLASS)
                    s->cls = c->cls;
                else if (self && self->kind == O_INST)
                    s->cls = self->cls;
                break;
            }
        return s;
    }
    CallArgs a = eval_args(I, f, args, n);
    return eval_call_obj(I, callee, &a);
}

/* (a, b) | [a, *b] | {a, b} | {k: v, **d} */
static Obj *eval_sequence(Interp *I, Frame *f, int32_t n, ObjKind kind)
{
    Obj *o = obj_seq(I, kind);
    FOR_CHILDREN(I, n, c) {
        if (o->n >= INTERP_MAX_ITEMS) {
            interp_limit(I, c, "a literal of more than 100,000 items");
            break;
        }
        if (N(I, c)->kind == NK_list_splat) {
            Obj *it = loop_view(I, eval(I, f, child(I, c, 0)), c);
            if (!it)
                return obj_unknown(I, NULL);
            for (size_t i = 0; i < it->n; i++)
                if (kind == O_SET)
                    obj_set_add(I, o, it->items[i]);
                else
                    obj_push(I, o, it->items[i]);
        } else if (kind == O_DICT && N(I, c)->kind == NK_pair) {
            int32_t k = ast_field(I->ast, c, F_key), v = ast_field(I->ast, c, F_value);
            if (k >= 0 && v >= 0) {
                Obj *key = eval(I, f, k);
                obj_dict_set(I, o, key, eval(I, f, v));
            }
        } else if (kind == O_DICT && N(I, c)->kind == NK_dictionary_splat) {
            Obj *d = eval(I, f, child(I, c, 0));
            if (d->kind != O_DICT)
                return obj_unknown(I, NULL);
            for (size_t i = 0; i + 1 < d->n; i += 2)
                obj_dict_set(I, o, d->items[i], d->items[i + 1]);
        } else if (kind != O_DICT) {
            Obj *x = eval(I, f, c);
            int dup = 0;
            if (N(I, n)->kind == NK_set) {   /* {1, 2, 2}: a set keeps one of each */
                interp_work(I, o->n);
                for (size_t i = 0; i < o->n && !dup; i++)
                    dup = obj_eq(I, o->items[i], x) == 1;
            }
            if (!dup)
                obj_push(I, o, x);
        }
    }
    return o;
}

/* an expression: literals, names, attributes, subscripts, calls, operators,
 * comprehensions, lambda, named expressions (x := v) */
static Obj *eval_node(Interp *I, Frame *f, int32_t n);

/* l op r: "fmt % args" of a known str (pyformat_percent), else Python's
 * operators on values (pyops_binop) */
static Obj *eval_binop(Interp *I, const char *op, Obj *l, Obj *r, int32_t n)
{
    if (strcmp(op, "%") == 0 && l->kind == O_STR && r->kind != O_TENSOR && r->kind != O_UNKNOWN) {
        for (size_t i = 0; (r->kind == O_TUPLE || r->kind == O_DICT) && i < r->n; i++)
            if (r->items[i]->kind == O_UNKNOWN)   /* "%s_%d" % (name, n) with n unknown */
                return obj_unknown_link(I, obj_unknown_from(I, r->items[i]), r->items[i]);
        const char *t = pyformat_percent(I, l, r);
        if (t)
            return obj_str(I, t);
        return interp_break(I, n, RULE_TNG203, "'%%' formatting of these values is not evaluated by tngc "
                            "(it does %%s %%r %%a %%d %%i %%x %%X %%o %%e %%f %%g and %%%% of known numbers "
                            "and strings, with flags, width and precision; Python may raise here)");
    }
    return pyops_binop(I, op, l, r, n);
}

/* any expression: eval_node within the nesting limit */
static Obj *eval(Interp *I, Frame *f, int32_t n)
{
    if (n < 0 || I->aborted)
        return obj_unknown(I, NULL);
    if (I->nest >= INTERP_MAX_NEST) {
        interp_limit(I, n, "expressions and statements nested more than 1000 deep");
        return obj_unknown(I, NULL);
    }
    I->nest++;
    /* an unknown made here while an operand was unknown is computed from
     * that operand: one cause, one diagnostic (obj_unknown_link) */
    Obj *outer = I->unk_seen;
    uint64_t made = I->unk_made;
    I->unk_seen = NULL;
    Obj *o = eval_node(I, f, n);
    if (o && o->kind == O_UNKNOWN) {
        if (I->unk_seen && (o == I->unknown || (uint64_t)o->i > made))
            o = obj_unknown_link(I, o, I->unk_seen);
        I->unk_seen = outer ? outer : o;
    } else {
        I->unk_seen = outer;
    }
    I->nest--;
    return o;
}

/* an expression: literals, names, attributes, subscripts, calls, operators,
 * comprehensions, lambda, named expressions (x := v) */
static Obj *eval_node(Interp *I, Frame *f, int32_t n)
{
    const Node *nd = N(I, n);
    if (nd->flags & (NODE_ERROR | NODE_MISSING))
        return obj_unknown(I, "a syntax error");
    switch ((NodeKind)nd->kind) {
    case NK_string: {
        int raw;
        return fstring_is(I, n, &raw) ? eval_fstring(I, f, n, raw) : eval_literal(I, n);
    }
    case NK_integer: case NK_float: case NK_concatenated_string:
        return eval_literal(I, n);
    case NK_true: return obj_bool(I, 1);
    case NK_false: return obj_bool(I, 0);
    case NK_none: return obj_none(I);
    case NK_ellipsis: return obj_new(I, O_ELLIPSIS);
    case NK_identifier: return eval_identifier(I, f, n);
    case NK_parenthesized_expression: return eval(I, f, child(I, n, 0));
    case NK_tuple: case NK_expression_list: return eval_sequence(I, f, n, O_TUPLE);
    case NK_list: return eval_sequence(I, f, n, O_LIST);
    case NK_set: return eval_sequence(I, f, n, O_SET);
    case NK_dictionary: return eval_sequence(I, f, n, O_DICT);
    case NK_attribute: {
        int32_t obj = ast_field(I->ast, n, F_object), attr = ast_field(I->ast, n, F_attribute);
        if (obj < 0 || attr < 0)
            return obj_unknown(I, NULL);
        Obj *o = eval(I, f, obj);
        if (o->kind == O_UNKNOWN)
            return o;
        return imports_trace_value(I, getattr_obj(I, o, interp_node_str(I, attr), n), n);
    }
    case NK_subscript: {
        int32_t v = ast_field(I->ast, n, F_value);
        Obj *o = eval(I, f, v);
        Obj *key = eval_index(I, f, n);
        if (o->kind == O_UNKNOWN)
            return o;
        return pyops_subscript(I, o, key, n);
    }
    case NK_call: return eval_call(I, f, n);
    case NK_binary_operator: {
        int32_t l = ast_field(I->ast, n, F_left), r = ast_field(I->ast, n, F_right);
        Obj *a = eval(I, f, l), *b = eval(I, f, r);
        return eval_binop(I, op_text(I, n), a, b, n);
    }
    case NK_unary_operator: return eval_unary(I, f, n);
    case NK_not_operator: {
        Obj *x = eval(I, f, ast_field(I->ast, n, F_argument));
        int t = obj_truth(I, x);
        if (t < 0)
            return x->kind == O_TENSOR || x->kind == O_DIM ?
                interp_break(I, n, RULE_TNG204, "'not' on a value only known at run time") : obj_unknown_from(I, x);
        return obj_bool(I, !t);
    }
    case NK_boolean_operator: return eval_boolean(I, f, n);
    case NK_comparison_operator: return eval_comparison(I, f, n);
    case NK_conditional_expression: return eval_conditional(I, f, n);
    case NK_list_comprehension: case NK_generator_expression: case NK_dictionary_comprehension:
    case NK_set_comprehension:
        return eval_comprehension(I, f, n);
    case NK_lambda: {
        Obj *o = obj_new(I, O_FUNC);
        o->func = func_new(I, f, n, NULL, NULL);
        return o;
    }
    case NK_named_expression: {
        Obj *v = eval(I, f, ast_field(I->ast, n, F_value));
        assign_target(I, f, ast_field(I->ast, n, F_name), v);
        return v;
    }
    case NK_keyword_argument: case NK_slice:
        return obj_unknown(I, NULL);
    default:
        return interp_break(I, n, RULE_TNG203, "this expression is not in the compilable subset");
    }
}

/* ===================================================================== */
/* Assignment                                                            */
/* ===================================================================== */

/* Binds target (identifier, attribute, subscript, tuple/list pattern) to val.
 * Returns 0, or -1 when the target cannot be assigned. */
static int assign_target_node(Interp *I, Frame *f, int32_t target, Obj *val);

/* target = val: assign_target_node within the nesting limit */
static int assign_target(Interp *I, Frame *f, int32_t target, Obj *val)
{
    if (target < 0 || I->aborted)
        return -1;
    if (I->nest >= INTERP_MAX_NEST) {
        interp_limit(I, target, "expressions and statements nested more than 1000 deep");
        return -1;
    }
    I->nest++;
    int rc = assign_target_node(I, f, target, val);
    I->nest--;
    return rc;
}

/* name = v | obj.attr = v | x[i] = v | (a, b) = v | a, *rest = v */
static int assign_target_node(Interp *I, Frame *f, int32_t target, Obj *val)
{
    const Node *nd = N(I, target);
    switch ((NodeKind)nd->kind) {
    case NK_identifier:
        if (I->tracing && val->kind == O_TENSOR && val->t->g == I->g) {
            Val *v = &I->g->vals.v[val->t->value];
            if (!v->name)
                v->name = interp_node_str(I, target);
        }
        frame_assign(I, f, interp_node_str(I, target), val);
        return 0;
    case NK_parenthesized_expression:
        return assign_target(I, f, child(I, target, 0), val);
    case NK_attribute: {
        Obj *o = eval(I, f, ast_field(I->ast, target, F_object));
        int32_t attr = ast_field(I->ast, target, F_attribute);
        if (attr >= 0)
            setattr_obj(I, o, interp_node_str(I, attr), val, target);
        return 0;
    }
    case NK_subscript: {
        Obj *o = eval(I, f, ast_field(I->ast, target, F_value));
        Obj *key = eval_index(I, f, target);
        pyops_store_subscript(I, o, key, val, target);
        modelpy_dict_sync(I, o);
        return 0;
    }
    case NK_pattern_list: case NK_tuple_pattern: case NK_list_pattern: case NK_tuple:
    case NK_list: case NK_expression_list: {
        Obj *it = loop_view(I, val, target);
        size_t n = 0, star = (size_t)-1;
        FOR_CHILDREN(I, target, c) {
            if (N(I, c)->kind == NK_list_splat_pattern && star == (size_t)-1)
                star = n;
            n++;
        }
        if (it && star != (size_t)-1 && it->n + 1 >= n) {
            /* a, *rest, z = items */
            size_t i = 0, extra = it->n + 1 - n;
            FOR_CHILDREN(I, target, c) {
                if (i == star) {
                    Obj *rest = obj_seq(I, O_LIST);
                    for (size_t k = 0; k < extra; k++)
                        obj_push(I, rest, it->items[star + k]);
                    assign_target(I, f, child(I, c, 0), rest);
                } else {
                    assign_target(I, f, c, it->items[i < star ? i : i + extra - 1]);
                }
                i++;
            }
            return 0;
        }
        if (!it || it->n != n) {
            /* the names get an unknown: the value itself when it is one (an
             * error already reported where it was made stays silent), a
             * reported one after the error here */
            Obj *u = val && val->kind == O_UNKNOWN ? val : obj_unknown(I, NULL);
            if (it && I->tracing)
                u = interp_break(I, target, RULE_TNG205, "cannot unpack %zu values into %zu names", it->n, n);
            FOR_CHILDREN(I, target, c) assign_target(I, f, c, u);
            return -1;
        }
        size_t i = 0;
        FOR_CHILDREN(I, target, c) assign_target(I, f, c, it->items[i++]);
        return 0;
    }
    default:
        return -1;
    }
}

/* ===================================================================== */
/* Statements                                                            */
/* ===================================================================== */

/* x = y = value  |  x: T = value  |  a, b = value */
static Flow exec_assignment(Interp *I, Frame *f, int32_t n)
{
    int32_t right = ast_field(I->ast, n, F_right);
    if (right < 0)
        return FLOW_NEXT;   /* a bare annotation `x: int` */
    Obj *val;
    if (N(I, right)->kind == NK_assignment) {
        exec_assignment(I, f, right);
        int32_t inner = right;
        while (N(I, inner)->kind == NK_assignment && ast_field(I->ast, inner, F_right) >= 0 &&
               N(I, ast_field(I->ast, inner, F_right))->kind == NK_assignment)
            inner = ast_field(I->ast, inner, F_right);
        val = eval(I, f, ast_field(I->ast, inner, F_left));
    } else {
        val = eval(I, f, right);
    }
    assign_target(I, f, ast_field(I->ast, n, F_left), val);
    return FLOW_NEXT;
}

/* x += y */
static Flow exec_augassign(Interp *I, Frame *f, int32_t n)
{
    int32_t left = ast_field(I->ast, n, F_left), right = ast_field(I->ast, n, F_right);
    if (left < 0 || right < 0)
        return FLOW_NEXT;
    const char *op = op_text(I, n);
    char bin[4] = {0};
    size_t len = strlen(op);
    if (len < 2 || len > 4)
        return FLOW_NEXT;
    memcpy(bin, op, len - 1);
    Obj *cur = eval(I, f, left), *r = eval(I, f, right);
    if (cur->kind == O_LIST && strcmp(bin, "+") == 0) {
        Obj *it = builtins_iter(I, r, n);
        if (it)
            for (size_t i = 0; i < it->n; i++)
                obj_push(I, cur, it->items[i]);
        return FLOW_NEXT;
    }
    if (cur->kind == O_TENSOR && !views_operand_ok(I, cur, r, n, "an augmented assignment"))
        return FLOW_NEXT;
    if (cur->kind == O_TENSOR)   /* x += y on a tensor attribute: state */
        interp_state_write(I, cur, NULL, n);
    Obj *res = eval_binop(I, bin, cur, r, n);
    if (cur->kind == O_TENSOR && res->kind == O_TENSOR && cur->t->g == res->t->g) {
        /* x += y on a tensor is in place: every alias of x sees it */
        res = torchlib_augassign(I, cur, res, n);
        /* t[i] += y: Python then stores t[i] back into t[i]. Where t[i]
         * is a view of t (basic indexing) those are the same values in the
         * same elements, which the write above made; where it is a copy
         * (advanced indexing: a tensor or list index) the store below
         * writes them into t */
        if (res == cur && N(I, left)->kind == NK_subscript && cur->t->base)
            return FLOW_NEXT;
    }
    assign_target(I, f, left, res);
    return FLOW_NEXT;
}

/* del x | del l[i] | del d[k] | del a, b (host code) */
static void exec_del(Interp *I, Frame *f, int32_t t)
{
    switch ((NodeKind)N(I, t)->kind) {
    case NK_identifier:
        frame_assign(I, f, interp_node_str(I, t), obj_unknown(I, NULL));   /* a NameError after it */
        return;
    case NK_expression_list: case NK_tuple: case NK_list: case NK_parenthesized_expression:
        FOR_CHILDREN(I, t, c) exec_del(I, f, c);
        return;
    case NK_subscript: {
        Obj *o = eval(I, f, ast_field(I->ast, t, F_value));
        Obj *key = eval_index(I, f, t);
        size_t i;
        long j;
        if (o->kind == O_LIST && obj_seq_index(o, key, &i)) {
            memmove(&o->items[i], &o->items[i + 1], (o->n - 1 - i) * sizeof(Obj *));
            o->n--;
        } else if (o->kind == O_DICT && (j = obj_dict_find(I, o, key)) >= 0) {
            memmove(&o->items[j - 1], &o->items[j + 1], (o->n - 1 - (size_t)j) * sizeof(Obj *));
            o->n -= 2;
        } else if (o->kind == O_LIST || o->kind == O_DICT) {
            obj_forget(I, o, key, t, "the index of 'del'");
        }
        modelpy_dict_sync(I, o);
        return;
    }
    default:
        return;
    }
}

/* assert cond[, msg]: evaluated as Python does (python without -O). A
 * condition known at compile time (shapes, config values) that is false is
 * an error at the assert with its message (TNG216, Python's
 * AssertionError): in the compiled method, the method stops there (its
 * result is a reported unknown: no knock-on errors); in host code the
 * script stops, as an uncaught AssertionError ends it. One on a value only
 * known at run time (a tensor's values, a dynamic dim) cannot be checked
 * by the bundle: in the compiled method it is skipped with a TNG216
 * warning (TorchDynamo would make it a run-time assert); host code skips
 * it silently, as it does any condition it cannot decide. */
static Flow exec_assert(Interp *I, Frame *f, int32_t n)
{
    int32_t cond = -1, msg = -1;
    FOR_CHILDREN(I, n, c) {
        if (!(N(I, c)->flags & NODE_NAMED) || N(I, c)->kind == NK_comment)
            continue;
        if (cond < 0)
            cond = c;
        else if (msg < 0)
            msg = c;
    }
    if (cond < 0)
        return FLOW_NEXT;
    size_t ndiag = I->sf->diags.n;
    Graph *g = I->g;
    size_t nops = g->ops.n, nvals = g->vals.n, nw = g->weights.n, nsh = I->shadows.n;
    size_t nwaits = I->waits.n, nover = I->nwrites;
    Obj *c = eval(I, f, cond);
    int t = obj_truth(I, c);
    if (t == 1 || I->aborted)
        return I->aborted ? FLOW_ABORT : FLOW_NEXT;
    int dynamic = 0;   /* the condition's own errors are all TNG204: a dynamic dim's arithmetic */
    if (t < 0 && I->tracing && I->sf->diags.n > ndiag) {
        dynamic = 1;
        for (size_t i = ndiag; i < I->sf->diags.n; i++)
            dynamic &= I->sf->diags.v[i].rule == RULE_TNG204;
        if (dynamic) {   /* not an error: the assert is skipped (the warning below) */
            for (size_t i = ndiag; i < I->sf->diags.n; i++)
                free(I->sf->diags.v[i].msg);
            I->sf->diags.n = ndiag;
        }
    }
    if (t < 0 && I->tracing && g == I->g && g->weights.n == nw && I->shadows.n == nsh &&
        I->waits.n == nwaits && I->nwrites == nover) {
        /* the condition's ops compute nothing the graph uses: drop them
         * (constants it replayed are replayed again where used) */
        for (size_t i = 0; i < I->const_map_n; i++)
            if (I->const_map[i] >= (int32_t)nvals)
                I->const_map[i] = -1;
        interp_ops_forget(I, nops);
        graph_truncate(g, nops, nvals);
    }
    if (t < 0) {
        if (I->tracing && I->sf->diags.n == ndiag && (dynamic || !obj_is_reported(c))) {
            const char *why = c->kind == O_TENSOR ? "depends on a tensor's values, only known at run time"
                              : c->kind == O_DIM ? "depends on a dynamic dim, only known at run time"
                              : dynamic ? "depends on a value only known at run time (a tensor's values or "
                                          "a dynamic dim)"
                                        : "is not known at compile time";
            interp_diag(I, cond, RULE_TNG216, "this assert is not checked: its condition %s, and the bundle "
                        "has no run-time assert", why);
            I->sf->diags.v[I->sf->diags.n - 1].severity = SEV_WARNING;
        }
        return FLOW_NEXT;
    }
    const char *text = NULL;
    if (msg >= 0) {
        Obj *m = eval(I, f, msg);
        text = m->kind == O_STR ? m->s : pyformat_value(I, m, 0, "");
    }
    if (text)
        interp_diag(I, n, RULE_TNG216, "assertion failed: %s", text);
    else {
        size_t len;
        const char *src = ast_text(I->ast, cond, &len);
        interp_diag(I, n, RULE_TNG216, "assertion failed: assert %.*s%s", len > 80 ? 77 : (int)len, src,
                    len > 80 ? "..." : "");
    }
    if (!I->tracing) {   /* host code: the uncaught AssertionError ends the script */
        I->aborted = 1;
        return FLOW_ABORT;
    }
    I->ret = obj_unknown_reported(I);
    I->ret_node = n;
    return FLOW_RETURN;   /* AssertionError: the rest of the method does not run */
}

/* `if self.X is None: self.X = ...` in a compiled method, with X None:
 * the body runs once as host code (modelpy.c, "a tensor attribute
 * created on the first call"); 0 when the guard is not that. */
static int exec_lazy_if(Interp *I, Frame *f, int32_t n, Flow *fl)
{
    int32_t attr = I->tracing ? modelpy_lazy_guard(I, n) : -1;
    if (attr < 0)
        return 0;
    Obj *o = eval(I, f, ast_field(I->ast, attr, F_object));
    const char *name = interp_node_str(I, ast_field(I->ast, attr, F_attribute));
    if (!modelpy_lazy_ready(o, name))
        return 0;
    Graph *g = I->g;
    I->g = &I->host;
    I->tracing = 0;
    I->lazy_body = 1;
    I->lazy_stale = 0;
    *fl = exec_block(I, f, ast_field(I->ast, n, F_consequence));
    I->lazy_body = 0;
    I->g = g;
    I->tracing = 1;
    if (!modelpy_lazy_done(I, o, name, n))
        entry_attr_created(I, o, name);
    return 1;
}

/* The condition c (node cond) of an 'if' or 'elif' (kw) that is not
 * decided: one error says why, unless evaluating it (diagnostics from
 * ndiag on) already did. 1 when an error stands for it, so that the names
 * the skipped clauses bind are its echo (a warning alone would leave the
 * build without an error). */
static int if__undecided(Interp *I, int32_t cond, Obj *c, size_t ndiag, const char *kw)
{
    if (I->sf->diags.n > ndiag)
        ;   /* the condition's own diagnostic says why */
    else if (c->kind == O_TENSOR || c->kind == O_DIM)
        interp_break(I, cond, RULE_TNG204, "'%s' on a value only known at run time", kw);
    else if (I->tracing && c->kind == O_UNKNOWN && !obj_is_reported(c)) {
        interp_break(I, cond, RULE_TNG205, "the condition of this '%s' is not known at compile time%s%s%s", kw,
                     c->s ? ": " : "", c->s ? c->s : "", interp_unknown_origin(I, c, cond));
        obj_mark_reported(I, c);
    }
    int echo = obj_is_reported(c);
    for (size_t k = ndiag; k < I->sf->diags.n; k++)
        echo |= I->sf->diags.v[k].severity == SEV_ERROR;
    return echo;
}

/* if c: ... elif c2: ... else: ... | if __name__ == "__main__": ... */
static Flow exec_if(Interp *I, Frame *f, int32_t n)
{
    Flow lazy;
    if (exec_lazy_if(I, f, n, &lazy))
        return lazy;
    if (ast_is_main_guard(I->ast, n)) {
        if (imports_running_module(I))
            return FLOW_NEXT;   /* an imported module's __name__ is its name */
        int32_t body = ast_field(I->ast, n, F_consequence);
        return body >= 0 ? exec_block(I, f, body) : FLOW_NEXT;
    }
    int32_t cond = ast_field(I->ast, n, F_condition);
    size_t ndiag = I->sf->diags.n;
    Obj *c = eval(I, f, cond);
    int t = obj_truth(I, c);
    if (t < 0) {
        int echo = if__undecided(I, cond, c, ndiag, "if");
        FOR_CHILDREN(I, n, c2)
            if (c2 != cond)
                frame_skip_branch(I, f, c2, echo);
        return FLOW_NEXT;
    }
    if (t)
        return exec_block(I, f, ast_field(I->ast, n, F_consequence));
    for (int32_t c2 = N(I, n)->first; c2 >= 0; c2 = N(I, c2)->next) {
        if (N(I, c2)->kind == NK_elif_clause) {
            int32_t ec = ast_field(I->ast, c2, F_condition);
            size_t ediag = I->sf->diags.n;
            Obj *v = eval(I, f, ec);
            int et = obj_truth(I, v);
            if (et < 0) {
                int echo = if__undecided(I, ec, v, ediag, "elif");
                for (int32_t c3 = c2; c3 >= 0; c3 = N(I, c3)->next)
                    frame_skip_branch(I, f, c3, echo);
                return FLOW_NEXT;
            }
            if (et)
                return exec_block(I, f, ast_field(I->ast, c2, F_consequence));
        } else if (N(I, c2)->kind == NK_else_clause) {
            return exec_block(I, f, ast_field(I->ast, c2, F_body));
        }
    }
    return FLOW_NEXT;
}

/* for x in it: body else: alt */
static Flow exec_for(Interp *I, Frame *f, int32_t n)
{
    int32_t left = ast_field(I->ast, n, F_left), right = ast_field(I->ast, n, F_right);
    int32_t body = ast_field(I->ast, n, F_body);
    size_t ndiag = I->sf->diags.n;
    Obj *src = eval(I, f, right);
    LoopIter it;
    if (!loop_begin(I, src, right, &it)) {
        frame_skip_code(I, f, n);   /* the target and the body */
        if (I->sf->diags.n > ndiag)
            return FLOW_NEXT;
        if (src->kind == O_TENSOR || src->kind == O_DIM || (I->tracing && src->kind != O_UNKNOWN))
            interp_break(I, right, RULE_TNG204, "'for' over a value whose length is only known at run time");
        else if (I->tracing && !obj_is_reported(src)) {
            interp_break(I, right, RULE_TNG205, "'for' over a value not known at compile time%s",
                         interp_unknown_origin(I, src, right));
            obj_mark_reported(I, src);
        }
        return FLOW_NEXT;
    }
    for (size_t i = 0; i < it.n; i++) {
        if (!loop_step(I, n))
            return FLOW_ABORT;
        assign_target(I, f, left, loop_item(I, &it, i));
        Flow fl = exec_block(I, f, body);
        if (fl == FLOW_BREAK)
            return FLOW_NEXT;
        if (fl == FLOW_RETURN || fl == FLOW_ABORT)
            return fl;
    }
    int32_t alt = ast_field(I->ast, n, F_alternative);
    return alt >= 0 ? exec_block(I, f, ast_field(I->ast, alt, F_body)) : FLOW_NEXT;
}

/* while c: body (host code only) */
static Flow exec_while(Interp *I, Frame *f, int32_t n)
{
    if (I->tracing) {
        interp_break(I, n, RULE_TNG201, "'while' loop in the compiled method (use 'for' over a constant range)");
        return FLOW_NEXT;
    }
    int32_t cond = ast_field(I->ast, n, F_condition), body = ast_field(I->ast, n, F_body);
    int tainted = 0;   /* the last iteration's body skipped code that may change objects */
    for (;;) {
        if (!loop_step(I, n))
            return FLOW_ABORT;
        int t = obj_truth(I, eval(I, f, cond));
        if (t < 0 || (t == 1 && tainted)) {
            /* an unknown condition, or one that may read what skipped code
             * changed: the iterations left are skipped */
            frame_skip_code(I, f, body);
            I->skipped += tainted;
            if (!I->cut_while)
                I->cut_while = N(I, n)->line;
            return FLOW_NEXT;
        }
        if (t == 0)
            return FLOW_NEXT;
        size_t skipped = I->skipped;
        Flow fl = exec_block(I, f, body);
        tainted = I->skipped != skipped;
        if (fl == FLOW_BREAK)
            return FLOW_NEXT;
        if (fl == FLOW_RETURN || fl == FLOW_ABORT)
            return fl;
    }
}

/* with a as x, b: body (TorchAir scopes: entry_scope_enter) */
static Flow exec_with(Interp *I, Frame *f, int32_t n)
{
    int saved_stream = I->stream, saved_sk = I->sk;
    int32_t clause = -1;
    FOR_CHILDREN(I, n, c) if (N(I, c)->kind == NK_with_clause) clause = c;
    if (clause >= 0)
        FOR_CHILDREN(I, clause, item) {
            if (N(I, item)->kind != NK_with_item)
                continue;
            int32_t v = ast_field(I->ast, item, F_value);
            if (v < 0)
                continue;
            int32_t expr = v, target = -1;
            if (N(I, v)->kind == NK_as_pattern) {
                expr = child(I, v, 0);
                int32_t alias = ast_field(I->ast, v, F_alias);
                target = alias >= 0 ? child(I, alias, 0) : -1;
                if (target < 0)
                    target = alias;
            }
            Obj *s = eval(I, f, expr);
            entry_scope_enter(I, s, expr);
            if (target >= 0)
                assign_target(I, f, target, s->kind == O_SCOPE ? obj_unknown(I, NULL) : s);
        }
    Flow fl = exec_block(I, f, ast_field(I->ast, n, F_body));
    I->stream = saved_stream;
    I->sk = saved_sk;
    return fl;
}

/* import a.b.c | import a.b as x | from a.b import c as d | from .m import c
 * (imports.c) */
static void exec_import(Interp *I, Frame *f, int32_t n)
{
    imports_exec(I, f, n);
}

/* decorators applied bottom-up; torch.compile makes an entry */
static Obj *apply_decorators(Interp *I, Frame *f, int32_t decorated, Obj *fn)
{
    int32_t decs[32];
    int nd = 0;
    FOR_CHILDREN(I, decorated, c)
        if (N(I, c)->kind == NK_decorator && nd < 32)
            decs[nd++] = c;
    for (int i = nd - 1; i >= 0; i--) {
        Obj *d = eval(I, f, child(I, decs[i], 0));
        if (d->kind == O_BUILTIN && strcmp(d->s, "torch.compile") == 0) {
            CallArgs a = {0};
            Obj *arg[1] = {fn};
            a.pos = arg;
            a.npos = 1;
            a.node = decs[i];
            fn = entry_torch_compile(I, &a);
        } else if ((d->kind == O_COMPILED && !d->comp->target) || d->kind == O_FUNC || d->kind == O_BOUND ||
                   d->kind == O_PARTIAL || (d->kind == O_BUILTIN && strcmp(d->s, "dataclasses.dataclass") == 0)) {
            /* a decorator factory's result, or the script's own decorator
             * (registries, wrappers): called as Python does */
            CallArgs a = {0};
            Obj *arg[1] = {fn};
            a.pos = arg;
            a.npos = 1;
            a.node = decs[i];
            Obj *r = eval_call_obj(I, d, &a);
            if (r->kind != O_UNKNOWN)
                fn = r;
        }
        else if (d->kind == O_BUILTIN && fn->kind == O_FUNC &&
                 (!strcmp(d->s, "staticmethod") || !strcmp(d->s, "classmethod") ||
                  !strcmp(d->s, "property") || !strcmp(d->s, "functools.cached_property")))
            fn->func->binding = d->s[0] == 'f' ? 'p' : d->s[0];
        /* other library decorators (no_grad, wraps...) keep the function */
    }
    return fn;
}

/* def name(params): body (in a class body: a method), with its decorators */
static Flow exec_def(Interp *I, Frame *f, int32_t n, int32_t decorated, InterpClass *cls)
{
    int32_t name = ast_field(I->ast, n, F_name);
    if (name < 0)
        return FLOW_NEXT;
    Obj *o = obj_new(I, O_FUNC);
    o->func = func_new(I, f, n, cls, cls ? cls->name : NULL);
    o->func->decorated = decorated >= 0;
    if (decorated >= 0)
        o = apply_decorators(I, f, decorated, o);
    if (cls)
        obj_attrs_set(I, &cls->attrs, interp_node_str(I, name), o);
    else
        frame_assign(I, f, interp_node_str(I, name), o);
    return FLOW_NEXT;
}

/* class Name(Base, ...): body */
static Flow exec_class(Interp *I, Frame *f, int32_t n)
{
    int32_t name = ast_field(I->ast, n, F_name), body = ast_field(I->ast, n, F_body);
    if (name < 0 || body < 0)
        return FLOW_NEXT;
    InterpClass *cls = interp_alloc(I, sizeof *cls);
    cls->name = interp_node_str(I, name);
    cls->node = n;
    int32_t sup = ast_field(I->ast, n, F_superclasses);
    if (sup >= 0)
        FOR_CHILDREN(I, sup, c) {
            if (N(I, c)->kind == NK_keyword_argument)
                continue;
            Obj *b = eval(I, f, c);
            if (b->kind == O_CLASS && !cls->base)
                cls->base = b->cls;
            else if (b->kind == O_BUILTIN && !cls->base_name)
                cls->base_name = b->s;
        }
    /* the class body: defs become methods, assignments class variables */
    Frame *cf = interp_frame(f);
    FOR_CHILDREN(I, body, s) {
        int32_t st = s, dec = -1;
        if (N(I, s)->kind == NK_decorated_definition) {
            dec = s;
            st = ast_field(I->ast, s, F_definition);
        }
        if (st >= 0 && N(I, st)->kind == NK_function_definition)
            exec_def(I, f, st, dec, cls);
        else if (st >= 0)
            exec_stmt(I, cf, st);
    }
    for (size_t i = 0; i < cf->vars.cap; i++)
        if (cf->vars.keys && cf->vars.keys[i])
            obj_attrs_set(I, &cls->attrs, cf->vars.keys[i], cf->vars.vals[i]);
    frame_release(I, cf);
    if (cls->base_name && (streq(cls->base_name, "typing.NamedTuple") ||
                           streq(cls->base_name, "typing_extensions.NamedTuple"))) {
        builtins_namedtuple_class(I, cls);
    } else if (cls->base && cls->base->namedtuple) {   /* class B(Pair): the same fields, B's methods */
        cls->fields = cls->base->fields;
        cls->field_defaults = cls->base->field_defaults;
        cls->nfields = cls->base->nfields;
        cls->namedtuple = 1;
    }
    Obj *o = obj_new(I, O_CLASS);
    o->cls = cls;
    frame_assign(I, f, cls->name, o);
    return FLOW_NEXT;
}

/* a statement: expression statements and assignments, if, for, while,
 * with, def, class, return, import, pass, break, continue, global,
 * nonlocal, assert, del, raise, try */
static Flow exec_stmt_node(Interp *I, Frame *f, int32_t n);

/* any statement: exec_stmt_node within the step and nesting limits */
static Flow exec_stmt(Interp *I, Frame *f, int32_t n)
{
    if (n < 0)
        return FLOW_NEXT;
    int32_t caller_at = I->at;
    I->at = n;
    if (!loop_step(I, n))
        return I->aborted ? FLOW_ABORT : FLOW_NEXT;
    if (I->nest >= INTERP_MAX_NEST) {
        interp_limit(I, n, "expressions and statements nested more than 1000 deep");
        return FLOW_ABORT;
    }
    I->nest++;
    Flow fl = exec_stmt_node(I, f, n);
    I->nest--;
    I->at = caller_at;
    if (I->rowsel_reads.n)
        torchlib_rowsel_leak(I, n);
    return fl;
}

/* a statement: expression statements and assignments, if, for, while,
 * with, def, class, return, import, pass, break, continue, global,
 * nonlocal, assert, del, raise, try */
static Flow exec_stmt_node(Interp *I, Frame *f, int32_t n)
{
    const Node *nd = N(I, n);
    if (nd->flags & (NODE_ERROR | NODE_MISSING))
        return FLOW_NEXT;
    switch ((NodeKind)nd->kind) {
    case NK_expression_statement: {
        FOR_CHILDREN(I, n, c) {
            if (N(I, c)->kind == NK_assignment)
                exec_assignment(I, f, c);
            else if (N(I, c)->kind == NK_augmented_assignment)
                exec_augassign(I, f, c);
            else
                eval(I, f, c);
        }
        return I->aborted ? FLOW_ABORT : FLOW_NEXT;
    }
    case NK_if_statement: return exec_if(I, f, n);
    case NK_for_statement: return exec_for(I, f, n);
    case NK_while_statement: return exec_while(I, f, n);
    case NK_with_statement: return exec_with(I, f, n);
    case NK_function_definition: return exec_def(I, f, n, -1, NULL);
    case NK_decorated_definition: {
        int32_t d = ast_field(I->ast, n, F_definition);
        if (d >= 0 && N(I, d)->kind == NK_function_definition)
            return exec_def(I, f, d, n, NULL);
        if (d >= 0 && N(I, d)->kind == NK_class_definition) {
            Flow fl = exec_class(I, f, d);
            int32_t name = ast_field(I->ast, d, F_name);
            Obj *cls = name >= 0 ? strmap_get(&f->vars, interp_node_str(I, name)) : NULL;
            if (cls)
                frame_assign(I, f, interp_node_str(I, name), apply_decorators(I, f, n, cls));
            return fl;
        }
        return FLOW_NEXT;
    }
    case NK_class_definition: return exec_class(I, f, n);
    case NK_return_statement: {
        int32_t v = child(I, n, 0);
        I->ret = v >= 0 ? eval(I, f, v) : obj_none(I);
        I->ret_node = n;
        return I->aborted ? FLOW_ABORT : FLOW_RETURN;
    }
    case NK_import_statement: case NK_import_from_statement:
        exec_import(I, f, n);
        return FLOW_NEXT;
    case NK_pass_statement: return FLOW_NEXT;
    case NK_break_statement: return FLOW_BREAK;
    case NK_continue_statement: return FLOW_CONTINUE;
    case NK_global_statement: case NK_nonlocal_statement:
        FOR_CHILDREN(I, n, c)
            if (N(I, c)->kind == NK_identifier)
                frame_put(I, f, &f->globals_decl, interp_node_str(I, c), (void *)1);
        return FLOW_NEXT;
    case NK_assert_statement: return exec_assert(I, f, n);
    case NK_comment:
        return FLOW_NEXT;
    case NK_delete_statement:
        if (I->tracing)
            interp_break(I, n, RULE_TNG201, "'del' in the compiled method");
        else
            FOR_CHILDREN(I, n, c) exec_del(I, f, c);
        return FLOW_NEXT;
    case NK_raise_statement:
        if (I->tracing) {
            interp_break(I, n, RULE_TNG201, "'raise' in the compiled method");
            return FLOW_NEXT;
        }
        I->ret = obj_unknown(I, NULL);
        return FLOW_RETURN;   /* host code that raises: its caller gets an unknown */
    case NK_try_statement:
        if (I->tracing) {
            interp_break(I, n, RULE_TNG201, "'try' in the compiled method");
            return FLOW_NEXT;
        }
        /* host code: the try body, then finally; handlers are not run */
        FOR_CHILDREN(I, n, c) {
            Flow fl = FLOW_NEXT;
            if (c == ast_field(I->ast, n, F_body))
                fl = exec_block(I, f, c);
            else if (N(I, c)->kind == NK_finally_clause)
                fl = exec_block(I, f, child(I, c, 0));
            if (fl != FLOW_NEXT)
                return fl;
        }
        return FLOW_NEXT;
    default:
        if (I->tracing)
            interp_break(I, n, RULE_TNG201, "this statement cannot be lowered into the graph");
        return FLOW_NEXT;
    }
}

/* a block (or the module): its statements in order */
static Flow exec_block(Interp *I, Frame *f, int32_t n)
{
    if (n < 0)
        return FLOW_NEXT;
    if (N(I, n)->kind != NK_block && N(I, n)->kind != NK_module)
        return exec_stmt(I, f, n);
    FOR_CHILDREN(I, n, c) {
        Flow fl = exec_stmt(I, f, c);
        if (fl != FLOW_NEXT)
            return fl;
    }
    return FLOW_NEXT;
}

/* ===================================================================== */
/* Running                                                               */
/* ===================================================================== */

/* ---- the import machinery's hooks (imports.h) ---- */

/* a new module frame, kept to the end of the run */
static void *import_frame(Interp *I)
{
    Frame *f = interp_frame(NULL);
    frame_keep(I, f);
    return f;
}

/* a module's statements in its frame */
static void import_run(Interp *I, void *frame)
{
    exec_block(I, frame, 0);
}

/* a module's global */
static Obj *import_get(Interp *I, void *frame, const char *name)
{
    (void)I;
    return strmap_get(&((Frame *)frame)->vars, name);
}

/* binds a name in a frame */
static void import_set(Interp *I, void *frame, const char *name, Obj *v)
{
    frame_assign(I, frame, name, v);
}

/* each binding of a frame */
static void import_each(Interp *I, void *frame, void (*fn)(Interp *I, void *ctx, const char *name, Obj *v), void *ctx)
{
    StrMap *m = &((Frame *)frame)->vars;
    size_t cap = m->cap;
    for (size_t i = 0; i < cap && i < m->cap; i++)
        if (m->keys[i])
            fn(I, ctx, m->keys[i], m->vals[i]);
}

static const ImportHooks import_hooks = {import_frame, import_run, import_get, import_set, import_each};

/* Installs the hooks; the module frame lives to the end of the run. */
void eval_init(Interp *I)
{
    I->call = eval_call_obj;
    I->getattr = getattr_obj;
    I->setattr = setattr_obj;
    I->globals = interp_frame(NULL);
    frame_keep(I, I->globals);
}

const ImportHooks *eval_import_hooks(void)
{
    return &import_hooks;
}

/* the module: its statements */
void eval_module(Interp *I)
{
    exec_block(I, I->globals, 0);
}

/* Frees the kept frames. */
void eval_free(Interp *I)
{
    frames_free(I);
}
