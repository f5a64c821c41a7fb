/*
 * torchlib_subclass.c - the torch library (torchlib.c), script subclasses
 * of torch.nn module classes (`class LayerNorm(nn.LayerNorm)`): the
 * library's constructor run on the script's instance (the class has no
 * __init__, or its __init__ calls super().__init__(...)), its forward where
 * the class has none, and the library's methods reached through super()
 * or self (forward, a convolution's _conv_forward).
 *
 * The instance is the script's (O_INST with cls); the library constructor
 * sets its attributes (weight, bias, eps, stride, ...) as PyTorch's does,
 * and records the class it ran in the instance's s ("torch.nn.Linear"):
 * the library forward reads those attributes, so a subclass that changes
 * them gets the library's forward on its values. A library method is an
 * O_METHOD whose name is the class's and the method's ("torch.nn.Linear.
 * forward") bound to the instance.
 */
#include "torchlib.h"
#include "torchlib_int.h"

const char *torchlib_nn_base(const InterpClass *cls)
{
    for (int depth = 0; cls && depth < 64; cls = cls->base, depth++)
        if (tl_module_is_class(cls->base_name))
            return cls->base_name;
    return NULL;
}

/* The library method name of class base bound to self. */
static Obj *subclass__method(Interp *I, Obj *self, const char *base, const char *name)
{
    Obj *m = obj_new(I, O_METHOD);
    m->s = interp_printf(I, "%s.%s", base, name);
    m->self_obj = self;
    return m;
}

Obj *torchlib_subclass_init(Interp *I, Obj *self, const char *base, CallArgs *a)
{
    Obj *r = tl_module_init_on(I, self, base, a);
    return r ? r : obj_none(I);
}

/* The refusal of a library call on self, an instance of class whose base
 * constructor was not run (its __init__ does not call super().__init__, or
 * the constructor was refused); NULL when it was. */
static Obj *subclass__unbuilt(Interp *I, Obj *self, const char *base, const char *what, int32_t node)
{
    if (streq(self->s, base))
        return NULL;
    return interp_break(I, node, RULE_TNG205, "%s of an instance of %s whose %s constructor tngc did not run "
                        "(its __init__ does not call super().__init__(...), or the constructor's arguments "
                        "were not known)", what, self->cls ? self->cls->name : "this class", base);
}

Obj *torchlib_subclass_call(Interp *I, Obj *self, const char *base, CallArgs *a)
{
    Obj *r = subclass__unbuilt(I, self, base, interp_printf(I, "%s.forward", base), a->node);
    return r ? r : tl_module_base_method(I, base, "forward", self, a);
}

Obj *torchlib_subclass_attr(Interp *I, Obj *self, const char *base, const char *name, int super, int32_t node)
{
    if (super && streq(name, "__init__"))
        return subclass__method(I, self, base, name);
    if (tl_module_has_base_method(base, name))
        return subclass__method(I, self, base, name);
    if (obj_is_module_seq(self) && (streq(name, "append") || streq(name, "extend") || streq(name, "insert"))) {
        Obj *m = obj_new(I, O_METHOD);   /* the container's own (tl_module_method) */
        m->s = name;
        m->self_obj = self;
        return m;
    }
    if (!super)
        return NULL;
    if (torchlib_module_has_method(name))   /* nn.Module's own (eval, to, register_buffer, ...) */
        return subclass__method(I, self, "torch.nn.Module", name);
    if (interp_tracing(I))
        return interp_break(I, node, RULE_TNG203, "super().%s: tngc models the forward (and a convolution's "
                            "_conv_forward) of %s, not its method '%s'", name, base, name);
    return obj_unknown(I, NULL);
}

/* self.m(args) for an O_METHOD "torch.nn.X.name" of torchlib_subclass_attr. */
Obj *tl_subclass_method(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    const char *dot = strrchr(m, '.');
    if (!dot || self->kind != O_INST)
        return NULL;
    const char *base = interp_printf(I, "%.*s", (int)(dot - m), m), *name = dot + 1;
    if (streq(base, "torch.nn.Module"))
        return torchlib_module_method(I, name, self, a);
    if (streq(name, "__init__"))
        return torchlib_subclass_init(I, self, base, a);
    Obj *r = subclass__unbuilt(I, self, base, m, a->node);
    return r ? r : tl_module_base_method(I, base, name, self, a);
}

/* torch.nn.X.name(self, args) called through the class (`nn.Linear.
 * __init__(self, 8, 6)`) with self an instance of a script subclass of X:
 * as self.name(args) through super(); NULL for other calls. */
Obj *tl_subclass_explicit(Interp *I, const char *name, CallArgs *a)
{
    const char *dot = strrchr(name, '.');
    Obj *self = a->npos ? a->pos[0] : NULL;
    if (!dot || !self || self->kind != O_INST || !self->cls || a->has_star)
        return NULL;
    const char *base = interp_printf(I, "%.*s", (int)(dot - name), name), *m = dot + 1;
    if (!streq(torchlib_nn_base(self->cls), base) || (!streq(m, "__init__") && !tl_module_has_base_method(base, m)))
        return NULL;
    CallArgs rest = *a;
    rest.pos = a->pos + 1;
    rest.npos = a->npos - 1;
    return tl_subclass_method(I, name, self, &rest);
}
