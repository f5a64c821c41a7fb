/*
 * libcall.c - the evaluator's calls of the layers below it (libcall.h):
 * a library callable (a TorchAir or torch entry point, an external
 * module's function, a Python builtin, a torch function), a method of a
 * container, str, module or tensor, and, while tracing, the check that an
 * unknown result has a reported cause. Private to the evaluator (eval.c).
 */
#include "libcall.h"
#include "builtins.h"
#include "entry.h"
#include "imports.h"
#include "modelpy.h"

#include <string.h>

/* 1 when self or an argument is (or holds) an unknown already reported. */
static int args_reported(const Obj *self, const CallArgs *a)
{
    int reported = self && obj_is_reported(self);
    for (size_t i = 0; i < a->npos + a->nkw; i++)   /* torch.cat([y, y]) with y reported */
        reported |= obj_reported(i < a->npos ? a->pos[i] : a->kw[i - a->npos]);
    return reported;
}

/* f(args) of the library returned r: while tracing, an unknown result must
 * have a reported cause. When the library reported nothing (ndiag
 * unchanged) and an argument was an unknown nobody reported, that argument
 * is the cause: report it. */
Obj *libcall_result(Interp *I, size_t ndiag, Obj *r, const char *name, Obj *self, CallArgs *a)
{
    /* an argument the op reported as not known: its later uses stay quiet */
    for (size_t i = 0; I->tracing && I->sf->diags.n > ndiag && i < a->npos + a->nkw; i++)
        obj_mark_reported_since(I, i < a->npos ? a->pos[i] : a->kw[i - a->npos], ndiag);
    if (!r || r->kind != O_UNKNOWN || obj_is_reported(r))
        return r;
    if (!I->tracing)   /* host code: an unknown made from a reported one stays quiet too */
        return args_reported(self, a) ? obj_unknown_reported(I) : r;
    if (I->sf->diags.n == ndiag) {
        Obj *cause = self && self->kind == O_UNKNOWN ? self : NULL;
        const char *what = "the tensor";
        for (size_t i = 0; !cause && i < a->npos + a->nkw; i++) {
            Obj *o = i < a->npos ? a->pos[i] : a->kw[i - a->npos];
            if (o->kind == O_UNKNOWN && !obj_is_reported(o)) {
                cause = o;
                what = i < a->npos ? interp_printf(I, "argument %zu of %s%s", i + 1, self ? "." : "", name)
                                   : interp_printf(I, "argument '%s' of %s%s", a->kwnames[i - a->npos],
                                                  self ? "." : "", name);
            }
        }
        int reported_arg = args_reported(self, a);
        if (cause)
            interp_need(I, cause, a->node, what);
        else if (!reported_arg)   /* unknowns from reported causes stay quiet */
            interp_diag(I, a->node, RULE_TNG205, "the result of %s%s is not known at compile time",
                        self ? "." : "", name);
    }
    obj_mark_reported(I, r);
    return r;
}

/* f(args) for a library callable: a TorchAir or torch entry point, a
 * Python builtin, a torch function */
Obj *libcall_function(Interp *I, Obj *callee, CallArgs *a)
{
    Obj *r = entry_call(I, callee->s, a);
    if (r || (r = imports_call_external(I, callee->s, a)))
        return r;
    size_t ndiag = I->sf->diags.n;
    int checked;
    if ((r = modelpy_call(I, callee->s, a)))   /* torch.distributed in one process */
        return libcall_result(I, ndiag, r, callee->s, NULL, a);
    r = builtins_call(I, callee->s, a, &checked);
    if (!r)
        r = torchlib_call(I, callee->s, NULL, a);
    else if (!checked)
        return r;
    r = libcall_result(I, ndiag, r, callee->s, NULL, a);
    if (r)
        return r;
    if (strncmp(callee->s, "super", 5) == 0)
        return obj_none(I);
    if (strncmp(callee->s, "torch.", 6) == 0 || strncmp(callee->s, "torch_npu.", 10) == 0)
        return interp_break(I, a->node, RULE_TNG203, "%s is not among the operators tngc "
                            "compiles (docs/rules.md, TNG203)", callee->s);
    return interp_break(I, a->node, RULE_TNG202, "call of '%s', which tngc cannot lower", callee->s);
}

/* obj.m(args) for a method of a list, dict, module or tensor */
Obj *libcall_method(Interp *I, Obj *callee, CallArgs *a)
{
    Obj *self = callee->self_obj;
    Obj *r = NULL;
    if (self->kind == O_UNKNOWN) {   /* a container forgotten since the method was looked up */
        if (I->tracing)
            interp_need(I, self, a->node, "the object whose method is called here");
        return obj_is_reported(self) ? obj_unknown_reported(I) : obj_unknown(I, NULL);
    }
    r = modelpy_method(I, callee->s, self, a);   /* list.index, Module.parameters ... */
    if (!r && (self->kind == O_LIST || self->kind == O_DICT || self->kind == O_SET))
        r = builtins_container_method(I, callee->s, self, a);
    else if (!r && self->kind == O_STR)
        r = builtins_str_method(I, callee->s, self, a);
    else if (!r && self->kind == O_INST)
        r = torchlib_module_method(I, callee->s, self, a);
    modelpy_dict_sync(I, self);   /* inst.__dict__.update(d) */
    if (!r && self->kind == O_TENSOR)
        self = interp_trace_in(I, self, a->node);
    if (!r && (self->kind == O_TENSOR || self->kind == O_INST)) {
        size_t ndiag = I->sf->diags.n;
        r = torchlib_call(I, callee->s, self, a);
        if (self->kind == O_TENSOR)
            r = libcall_result(I, ndiag, r, callee->s, self, a);
    }
    if (r)
        return r;
    if (self->kind == O_TENSOR && I->tracing &&
        (!strcmp(callee->s, "item") || !strcmp(callee->s, "tolist") || !strcmp(callee->s, "numpy")))
        return interp_break(I, a->node, RULE_TNG203, "Tensor.%s() in a compiled method reads a tensor's values on "
                            "the host, so what depends on them (a slice bound, a loop, a branch) is data-"
                            "dependent: torch.compile(fullgraph=True) refuses it too (a graph break), and tngc "
                            "compiles whole graphs (compute it outside the compiled method and pass it as an "
                            "int argument)", callee->s);
    if (self->kind == O_TENSOR)
        return interp_break(I, a->node, RULE_TNG203, "tensor method '%s' is not in the compilable subset", callee->s);
    return interp_break(I, a->node, RULE_TNG202, "call of method '%s', which tngc cannot lower", callee->s);
}
