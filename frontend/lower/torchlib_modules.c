/*
 * torchlib_modules.c - the torch library (torchlib.c), nn modules: the
 * table nn_modules ({class, constructor, forward}), construction and calls
 * of torch.nn module instances, the torch.nn.Module methods tngc models,
 * and script classes derived from torch.nn classes (at the end).
 * Each lowering (lo_*) is under the Python signature it lowers; its lib[]
 * row is in torchlib.c; helpers shared across the library are declared
 * in torchlib_core.h and torchlib_int.h.
 */
#include "torchlib.h"
#include "torchlib_int.h"

/* ===================================================================== */
/* nn modules                                                            */
/* ===================================================================== */

/* A parameter of constant shape d[0..n): a FULL host tensor marked is_param. */
static Obj *param_new(Interp *I, const int64_t *d, int n, double fill, DType dt, int32_t node)
{
    int64_t dims[GRAPH_MAX_DIMS];
    for (int i = 0; i < n; i++)
        dims[i] = graph_dim_const(G(I), d[i]);
    Obj *t = tl_full_of(I, dims, n, fill, dt, node);
    if (is_tensor(t)) {
        t->t->is_param = 1;
        t->t->requires_grad = 1;
    }
    return t;
}

static Obj *module_new(Interp *I, const char *cls, int32_t node)
{
    Obj *m = obj_new(I, O_INST);
    m->s = cls;
    m->node = node;
    return m;
}

/* A positive constant int parameter of a module constructor. */
static int ctor_int(Interp *I, const Call *c, const char *name, int64_t *v)
{
    if (!tl_const_int(I, P(c, name), c->node, name, v))
        return 0;
    if (*v < 0) {
        interp_break(I, c->node, RULE_TNG206, "%s must not be negative", name);
        return 0;
    }
    return 1;
}

/* The module items of ModuleList(iterable) / Sequential(*mods). */
static int module_items(Interp *I, Obj *m, Obj *const *items, size_t n)
{
    m->items = interp_alloc(I, (n + 1) * sizeof *m->items);
    m->cap = n + 1;
    for (size_t i = 0; i < n; i++)
        m->items[m->n++] = items[i];
    return 1;
}

/* One nn module class tngc knows: how it is built (host mode) and how its
 * forward lowers (trace mode). */
typedef struct NnModule NnModule;
struct NnModule {
    const char *cls;       /* after "torch.nn." */
    unsigned flags;
    /* sets m's attributes from the constructor's parameters (NULL: none);
     * 0 when the module is not tl_known (after a diagnostic) */
    int (*init)(Interp *I, Obj *m, const Call *c, DType dt);
    /* the forward on input x (value v), or, for NN_ARGS, on the call's
     * arguments (x NULL, v -1); NULL for NN_IDENTITY */
    Obj *(*forward)(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v);
    OpKind op;             /* the op of an activation or softmax, else 0 */
    const char *sig;       /* the constructor's signature (sig.h) */
};

enum {
    NN_INPLACE = 1,        /* Module(inplace=False): the result replaces the input */
    NN_IDENTITY = 2,       /* the forward returns its input */
    NN_ARGS = 4,           /* the forward takes the call's arguments (containers) */
};

/* nn.Linear(in_features, out_features, bias=True, dtype=None) */
static int nn_linear_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    int64_t in, out;
    if (!ctor_int(I, c, "in_features", &in) || !ctor_int(I, c, "out_features", &out))
        return 0;
    int64_t wd[2] = {out, in};
    obj_setattr(I, m, "in_features", obj_int(I, in));
    obj_setattr(I, m, "out_features", obj_int(I, out));
    obj_setattr(I, m, "weight", param_new(I, wd, 2, 0, dt, c->node));
    Obj *b = P(c, "bias");
    obj_setattr(I, m, "bias", obj_flag(b, 1) ? param_new(I, &out, 1, 0, dt, c->node) : obj_none(I));
    return 1;
}

/* nn.LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, bias=True) */
static int nn_layer_norm_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    Obj *ns = P(c, "normalized_shape");
    int64_t d[GRAPH_MAX_DIMS];
    int n = 0;
    Obj *const *items = is_seq(ns) ? ns->items : &ns;
    size_t cnt = is_seq(ns) ? ns->n : 1;
    if (!ns || cnt == 0 || cnt > GRAPH_MAX_DIMS) {
        interp_break(I, c->node, RULE_TNG205, "LayerNorm needs a normalized_shape of 1 to %d dims",
                     GRAPH_MAX_DIMS);
        return 0;
    }
    Obj *dims[GRAPH_MAX_DIMS];
    for (size_t i = 0; i < cnt; i++) {
        if (!tl_const_int(I, items[i], c->node, "normalized_shape", &d[n]) || d[n] < 0)
            return 0;
        dims[n] = obj_int(I, d[n]);
        n++;
    }
    Obj *eps = P(c, "eps");
    int affine = obj_flag(P(c, "elementwise_affine"), 1);
    int bias = obj_flag(P(c, "bias"), 1);
    obj_setattr(I, m, "normalized_shape", obj_tuple(I, dims, (size_t)n));
    obj_setattr(I, m, "eps", obj_float(I, tl_float_arg(eps, 1e-5)));
    obj_setattr(I, m, "elementwise_affine", obj_bool(I, affine));
    obj_setattr(I, m, "weight", affine ? param_new(I, d, n, 1, dt, c->node) : obj_none(I));
    obj_setattr(I, m, "bias", affine && bias ? param_new(I, d, n, 0, dt, c->node) : obj_none(I));
    return 1;
}

/* nn.Embedding(num_embeddings, embedding_dim, padding_idx=None) */
static int nn_embedding_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    int64_t num, dim;
    if (!ctor_int(I, c, "num_embeddings", &num) || !ctor_int(I, c, "embedding_dim", &dim))
        return 0;
    int64_t wd[2] = {num, dim};
    Obj *pi = P(c, "padding_idx");
    obj_setattr(I, m, "num_embeddings", obj_int(I, num));
    obj_setattr(I, m, "embedding_dim", obj_int(I, dim));
    obj_setattr(I, m, "padding_idx", pi ? pi : obj_none(I));
    obj_setattr(I, m, "weight", param_new(I, wd, 2, 0, dt, c->node));
    return 1;
}

/* nn.GELU(approximate='none') */
static int nn_gelu_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    (void)dt;
    obj_setattr(I, m, "approximate", P(c, "approximate"));
    return 1;
}

/* nn.Softplus(beta=1, threshold=20) */
static int nn_softplus_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    (void)dt;
    obj_setattr(I, m, "beta", P(c, "beta"));
    obj_setattr(I, m, "threshold", P(c, "threshold"));
    return 1;
}

/* nn.LeakyReLU(negative_slope=0.01, inplace=False) */
static int nn_leaky_relu_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    (void)dt;
    Obj *ip = PA(c, "inplace");
    obj_setattr(I, m, "negative_slope", P(c, "negative_slope"));
    if (ip)
        obj_setattr(I, m, "inplace", ip);
    return 1;
}

/* nn.Softmax(dim=None) | nn.LogSoftmax(dim=None) */
static int nn_softmax_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    (void)dt;
    Obj *d = P(c, "dim");
    obj_setattr(I, m, "dim", d ? d : obj_none(I));
    return 1;
}

/* nn.Dropout / Dropout1d / Dropout2d / Dropout3d / AlphaDropout /
 * FeatureAlphaDropout (p=0.5, inplace=False): in training mode, as built */
static int nn_dropout_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    (void)dt;
    obj_setattr(I, m, "p", P(c, "p"));
    obj_setattr(I, m, "training", obj_bool(I, 1));   /* as PyTorch's; .eval() clears it */
    return 1;
}

/* A dropout module's forward: the identity in eval mode or with p=0; in
 * training mode it is random (TNG203: call .eval()). */
static Obj *nn_dropout(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)v;
    double p = 0.5;
    Obj *po = obj_getattr(inst, "p");
    if (po && !obj_num_value(po, &p))
        return interp_break(I, a->node, RULE_TNG205, "torch.nn.%s's p must be a number known at compile "
                            "time", m->cls);
    if (p != 0 && obj_flag(obj_getattr(inst, "training"), 0))
        return interp_break(I, a->node, RULE_TNG203, "torch.nn.%s(p=%g) in training mode (random): call "
                            ".eval() on the model (only inference is compiled)", m->cls, p);
    return x;
}

/* nn.ModuleList(modules=None) */
static int nn_module_list_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    (void)dt;
    Obj *src = P(c, "modules");
    Obj *l = is_none(src) ? obj_seq_of(I, O_LIST, NULL, 0) : obj_iter(I, src, c->node, ITER_EXPAND);
    if (!l)
        return 0;
    return module_items(I, m, l->items, l->n);
}

/* nn.Sequential(*modules) | nn.Sequential(OrderedDict of named modules) */
static int nn_sequential_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    (void)dt;
    Obj *args = P(c, "args");   /* the modules, or one OrderedDict of them */
    if (args && args->kind == O_DICT) {
        Obj *d = args;
        for (size_t i = 0; i + 1 < d->n; i += 2)
            if (d->items[i]->kind == O_STR)
                obj_setattr(I, m, d->items[i]->s, d->items[i + 1]);
        Obj *vals[1024];
        size_t n = 0;
        for (size_t i = 0; i + 1 < d->n && n < NELEM(vals); i += 2)
            vals[n++] = d->items[i + 1];
        return module_items(I, m, vals, n);
    }
    return module_items(I, m, is_seq(args) ? args->items : &args, is_seq(args) ? args->n : args != NULL);
}

/* Re-typing of a module's floating parameters and buffers (in place). */
typedef struct Retype {
    DType dt;
    int to;                /* Module.to(...) */
    VEC(const void *) seen;
} Retype;

static int retype_seen(Retype *r, const void *p)
{
    for (size_t i = 0; i < r->seen.n; i++)
        if (r->seen.v[i] == p)
            return 1;
    VEC_PUSH(r->seen, p);
    return 0;
}

static void retype_obj(Interp *I, Obj *o, Retype *r, int depth, int32_t node)
{
    if (!o || depth > 32 || r->seen.n > 100000)
        return;
    if (o->kind == O_TENSOR) {
        /* a complex tensor is no floating point one: half(), float() and
         * bfloat16() keep it; to(dtype) casts a complex buffer to a real
         * dtype (its imaginary part dropped), which tngc refuses */
        if (o->t->cplx) {
            if (o->t->is_buffer && r->to)
                interp_diag(I, node, RULE_TNG203, "Module.to(%s) of a module with a complex buffer is not "
                            "supported (PyTorch casts it to the real dtype)", dtype_name(r->dt));
            return;
        }
        if (retype_seen(r, o->t) || o->t->g != G(I) || o->t->value < 0 ||
            (size_t)o->t->value >= G(I)->vals.n)
            return;
        const Val *v = val_at(I, o->t->value);
        if (!dtype_is_float(v->dtype) || v->dtype == r->dt)
            return;
        int32_t op = tl_emit(I, OP_CAST, &o->t->value, 1, NULL, 0, 0, 0, r->dt, node);
        if (op >= 0)
            o->t->value = G(I)->ops.v[op].out;
        return;
    }
    if (o->kind == O_INST) {
        if (retype_seen(r, o))
            return;
        for (size_t i = 0; i < o->attrs.n; i++)
            retype_obj(I, o->attrs.vals[i], r, depth + 1, node);
        for (size_t i = 0; i < o->n; i++)
            retype_obj(I, o->items[i], r, depth + 1, node);
    } else if (is_seq(o) || o->kind == O_DICT) {
        if (retype_seen(r, o))
            return;
        for (size_t i = 0; i < o->n; i++)
            retype_obj(I, o->items[i], r, depth + 1, node);
    }
}

/* module.half() | module.float() | module.bfloat16() | module.to(dtype) |
 * module.to(device, dtype) | module.to(tensor) | module.to(dtype=...) */
static Obj *module_retype(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    DType dt = streq(m, "half") ? DT_F16 : streq(m, "float") ? DT_F32 : streq(m, "bfloat16") ? DT_BF16 : DT_UNKNOWN;
    if (streq(m, "to")) {
        for (size_t i = 0; i < a->npos; i++) {
            DType d = tl_dtype_of_obj(a->pos[i]);
            if (d != DT_UNKNOWN)
                dt = d;
            else if (is_tensor(a->pos[i]) && a->pos[i]->t->g == G(I) && a->pos[i]->t->value >= 0 &&
                     (size_t)a->pos[i]->t->value < G(I)->vals.n)
                dt = val_at(I, a->pos[i]->t->value)->dtype;
        }
        views_memory_format(I, args_kw(a, "memory_format"), NULL);   /* the parameters become channels-last */
        DType k = tl_dtype_of_obj(args_kw(a, "dtype"));
        if (k != DT_UNKNOWN)
            dt = k;
        if (dt != DT_UNKNOWN && !dtype_is_float(dt))
            return interp_break(I, a->node, RULE_TNG203, "Module.to() only accepts floating point dtypes");
    }
    if (dt == DT_UNKNOWN)
        return self;
    if (interp_tracing(I))
        return interp_break(I, a->node, RULE_TNG203, "re-typing a module inside the compiled method");
    Retype r;
    memset(&r, 0, sizeof r);
    r.dt = dt;
    r.to = streq(m, "to");
    retype_obj(I, self, &r, 0, a->node);
    VEC_FREE(r.seen);
    return self;
}

/* Methods of module instances that reach the library: re-typing, forward,
 * and ModuleList's list methods. */
Obj *tl_module_method(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    if (streq(m, "half") || streq(m, "float") || streq(m, "bfloat16") || streq(m, "to"))
        return module_retype(I, m, self, a);
    if (streq(m, "double"))
        return interp_break(I, a->node, RULE_TNG203, "float64 parameters are not supported");
    if (self->cls && !obj_is_module_seq(self))
        return NULL;
    if (!self->cls && (streq(m, "forward") || streq(m, "__call__")))
        return torchlib_call_module(I, self, a);
    if (obj_is_module_seq(self) && (streq(m, "append") || streq(m, "extend") || streq(m, "insert"))) {
        Obj *add = NULL;
        int64_t at = (int64_t)self->n;
        if (streq(m, "append")) {
            add = obj_seq_of(I, O_LIST, a->pos, a->npos ? 1 : 0);
        } else if (streq(m, "extend")) {
            add = obj_iter(I, args_get(a, 0, "modules"), a->node, ITER_EXPAND);
        } else {
            Obj *ix = args_get(a, 0, "index");
            Obj *mod = args_get(a, 1, "module");
            if (!obj_int_value(ix, &at) || !mod)
                return unk(I);
            if (at < 0)
                at += (int64_t)self->n;
            at = at < 0 ? 0 : at > (int64_t)self->n ? (int64_t)self->n : at;
            add = obj_seq_of(I, O_LIST, &mod, 1);
        }
        if (!add)
            return unk(I);
        if (self->n + add->n > INTERP_MAX_ITEMS)
            return interp_break(I, a->node, RULE_TNG212, "a ModuleList of more than %d modules", INTERP_MAX_ITEMS);
        Obj **items = interp_alloc(I, (self->n + add->n + 1) * sizeof *items);
        size_t k = 0;
        for (int64_t i = 0; i < at; i++)
            items[k++] = self->items[i];
        for (size_t i = 0; i < add->n; i++)
            items[k++] = add->items[i];
        for (size_t i = (size_t)at; i < self->n; i++)
            items[k++] = self->items[i];
        self->items = items;
        self->n = k;
        self->cap = k + 1;
        return streq(m, "insert") ? obj_none(I) : self;   /* append/extend return the ModuleList */
    }
    if (obj_is_module_dict(self) && (streq(m, "keys") || streq(m, "values") || streq(m, "items"))) {
        Obj *out = obj_seq_of(I, O_LIST, NULL, 0);
        for (size_t i = 0; i < self->attrs.n; i++) {
            Obj *k = obj_str(I, self->attrs.names[i]), *v = self->attrs.vals[i];
            Obj *pair[2] = {k, v};
            obj_push(I, out, m[0] == 'k' ? k : m[0] == 'v' ? v : obj_tuple(I, pair, 2));
        }
        return out;
    }
    if (obj_is_module_dict(self) && streq(m, "update") && !interp_tracing(I)) {
        Obj *d = args_get(a, 0, "modules");
        if (!d || d->kind != O_DICT)
            return unk(I);
        for (size_t i = 0; i + 1 < d->n; i += 2)
            if (d->items[i]->kind == O_STR)
                obj_setattr(I, self, d->items[i]->s, d->items[i + 1]);
        if (streq(self->s, "torch.nn.ParameterDict"))   /* its tensors become parameters */
            for (size_t i = 0; i < self->attrs.n; i++)
                if (is_tensor(self->attrs.vals[i]))
                    self->attrs.vals[i]->t->is_param = self->attrs.vals[i]->t->requires_grad = 1;
        return obj_none(I);
    }
    return NULL;
}

/* module.eval() / module.train(mode): the modules record it as their
 * training attribute, as PyTorch's do: the library modules whose forward
 * depends on it (BatchNorm, the dropouts: those whose constructor set it)
 * and the script's nn.Module subclasses (whose forward may test
 * self.training). Every other library module (a container's attributes
 * are its entries) keeps it in Interp.lib_training, which
 * torchlib_getattr reads. */
static void nn_set_training(Interp *I, Obj *o, int training, int depth)
{
    if (!o || depth > 32)
        return;
    if (o->kind == O_INST) {
        if (!o->cls && o->s && strncmp(o->s, "torch.nn.", 9) == 0)
            strmap_put(&I->lib_training, interp_ptr_key(I, o), (void *)(intptr_t)(training + 1));
        if ((o->s && (streq(o->s, "torch.nn.BatchNorm1d") || streq(o->s, "torch.nn.BatchNorm2d"))) ||
            obj_is_script_module(o) || (o->s && obj_getattr(o, "training")))
            obj_setattr(I, o, "training", obj_bool(I, training));
        for (size_t i = 0; i < o->attrs.n; i++)
            if (o->attrs.vals[i] && (o->attrs.vals[i]->kind == O_INST || is_seq(o->attrs.vals[i])))
                nn_set_training(I, o->attrs.vals[i], training, depth + 1);
    }
    if (o->kind == O_INST || is_seq(o))
        for (size_t i = 0; i < o->n; i++)
            nn_set_training(I, o->items[i], training, depth + 1);
}

/* register_buffer / register_parameter and the module methods that return
 * the module itself in the compilable subset. */
Obj *torchlib_module_method(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    if (strncmp(m, "torch.nn.", 9) == 0)   /* a torch.nn class's method on a script subclass */
        return tl_subclass_method(I, m, self, a);
    if (strcmp(m, "register_buffer") == 0 || strcmp(m, "register_parameter") == 0) {
        Obj *n = args_get(a, 0, "name"), *t = args_get(a, 1, m[9] == 'b' ? "tensor" : "param");
        if (n && n->kind == O_STR && t) {
            if (t->kind == O_TENSOR) {
                if (m[9] == 'b') {
                    t->t->is_buffer = 1;
                    t->t->nonpersistent = !obj_flag(args_get(a, 2, "persistent"), 1);
                } else
                    t->t->is_param = 1;
            }
            obj_setattr(I, self, n->s, t);
        }
        return obj_none(I);
    }
    if (strcmp(m, "add_module") == 0 || strcmp(m, "register_module") == 0) {
        Obj *n = args_get(a, 0, "name"), *mod = args_get(a, 1, "module");
        if (n && n->kind == O_STR && mod) {
            obj_setattr(I, self, n->s, mod);
            if (self->s && strcmp(self->s, "torch.nn.Sequential") == 0)
                obj_push(I, self, mod);
        }
        return obj_none(I);
    }
    if (strcmp(m, "eval") == 0 || strcmp(m, "train") == 0)
        nn_set_training(I, self, m[0] == 't' && obj_flag(args_get(a, 0, "mode"), 1), 0);
    static const char *const same[] = {"npu", "cuda", "cpu", "eval", "train", "requires_grad_",
                                       "to", "half", "float", "bfloat16", "double", "share_memory"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++)
        if (strcmp(m, same[i]) == 0) {
            if (strcmp(m, "half") == 0 || strcmp(m, "float") == 0 || strcmp(m, "bfloat16") == 0 ||
                strcmp(m, "to") == 0)
                tl_module_method(I, m, self, a);   /* re-types parameters; returns the module */
            return self;
        }
    return NULL;
}

/* The torch.nn.Module methods a script module may call on itself. */
int torchlib_module_has_method(const char *name)
{
    static const char *const tl_known[] = {
        "register_buffer", "register_parameter", "add_module", "register_module", "npu", "cuda",
        "cpu", "eval", "train", "requires_grad_", "to", "half", "float", "bfloat16", "double",
        "share_memory", "forward", "parameters", "named_parameters", "buffers", "named_buffers",
        "children", "named_children", "modules", "named_modules", "state_dict",
        "load_state_dict", "apply", "zero_grad", "type"};
    for (size_t i = 0; i < sizeof tl_known / sizeof *tl_known; i++)
        if (strcmp(name, tl_known[i]) == 0)
            return 1;
    return 0;
}

/* A parameter of a module for the forward: its value, -1 when None or
 * absent, -2 after a diagnostic. */
static int32_t module_param(Interp *I, Obj *inst, const char *name, int32_t node)
{
    Obj *p = obj_getattr(inst, name);
    return tl_opt_tensor(I, p, node, name);
}

/* ---- nn modules: neural net ---- */

/* An int-or-tuple constructor argument as a tuple of n ints (def when
 * absent); NULL after a diagnostic. */
static Obj *nn_tuple_arg(Interp *I, const Call *c, const char *name, int n, int64_t def)
{
    int64_t v[2];
    Obj *items[2];
    if (!tl_nn_ints(I, P(c, name), n, def, c->node, name, v))
        return NULL;
    for (int i = 0; i < n; i++)
        items[i] = obj_int(I, v[i]);
    return obj_tuple(I, items, (size_t)n);
}

/* nn.Conv1d / nn.Conv2d(in_channels, out_channels, kernel_size, stride=1,
 * padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros') */
static int nn_conv_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    int ns = m->s[strlen(m->s) - 2] == '1' ? 1 : 2;
    int64_t cin, cout, g = 1, k[2], wd[4];
    Obj *pm = P(c, "padding_mode"), *pad = P(c, "padding");
    Obj *ks = nn_tuple_arg(I, c, "kernel_size", ns, 1), *st, *dil;
    if (!ks || !ctor_int(I, c, "in_channels", &cin) || !ctor_int(I, c, "out_channels", &cout) ||
        !(st = nn_tuple_arg(I, c, "stride", ns, 1)) || !(dil = nn_tuple_arg(I, c, "dilation", ns, 1)))
        return 0;
    if (P(c, "groups") && !ctor_int(I, c, "groups", &g))
        return 0;
    if (pm && !obj_is_str(pm, "zeros")) {
        interp_break(I, c->node, RULE_TNG203, "torch.nn.Conv%dd with padding_mode other than 'zeros'", ns);
        return 0;
    }
    if (g < 1 || cin % g || cout % g) {
        interp_break(I, c->node, RULE_TNG206, "in_channels and out_channels must be divisible by groups");
        return 0;
    }
    if (!pad || pad->kind != O_STR) {
        if (!(pad = nn_tuple_arg(I, c, "padding", ns, 0)))
            return 0;
    }
    for (int i = 0; i < ns; i++)
        obj_int_value(ks->items[i], &k[i]);
    wd[0] = cout, wd[1] = cin / g, wd[2] = k[0], wd[3] = k[1];
    obj_setattr(I, m, "in_channels", obj_int(I, cin));
    obj_setattr(I, m, "out_channels", obj_int(I, cout));
    obj_setattr(I, m, "kernel_size", ks);
    obj_setattr(I, m, "stride", st);
    obj_setattr(I, m, "padding", pad);
    obj_setattr(I, m, "dilation", dil);
    obj_setattr(I, m, "groups", obj_int(I, g));
    obj_setattr(I, m, "padding_mode", obj_str(I, "zeros"));
    obj_setattr(I, m, "weight", param_new(I, wd, ns + 2, 0, dt, c->node));
    Obj *b = P(c, "bias");
    obj_setattr(I, m, "bias", obj_flag(b, 1) ? param_new(I, &cout, 1, 0, dt, c->node) : obj_none(I));
    return 1;
}

/* conv(input) with weight w and bias b (-1: none), the module's stride,
 * padding, dilation and groups: torch.nn.ConvNd._conv_forward */
static Obj *conv_forward(Interp *I, const NnModule *m, Obj *inst, int32_t v, int32_t w, int32_t b, int32_t node)
{
    if (w < 0 || b < -1) {
        if (w == -1)
            interp_break(I, node, RULE_TNG205, "torch.nn.%s without a weight", m->cls);
        return unk(I);
    }
    return tl_conv_of(I, v, w, b, m->cls[4] == '1' ? 1 : 2, obj_getattr(inst, "stride"),
                      obj_getattr(inst, "padding"), obj_getattr(inst, "dilation"), obj_getattr(inst, "groups"),
                      node);
}

/* conv(input) with the module's parameters and arguments. PyTorch's
 * forward is self._conv_forward(input, self.weight, self.bias): a script
 * subclass that overrides _conv_forward gets that call. */
static Obj *nn_conv(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    int32_t node = a->node;
    if (inst->cls && obj_class_method(inst->cls, "_conv_forward", NULL)) {
        Obj *args[3] = {x, interp_getattr(I, inst, "weight", node), interp_getattr(I, inst, "bias", node)};
        CallArgs ca;
        memset(&ca, 0, sizeof ca);
        ca.pos = args;
        ca.npos = 3;
        ca.kwnames = I->no_kwnames;
        ca.kw = I->no_kw;
        ca.node = node;
        return interp_call(I, interp_getattr(I, inst, "_conv_forward", node), &ca);
    }
    int32_t w = module_param(I, inst, "weight", node), b = module_param(I, inst, "bias", node);
    return conv_forward(I, m, inst, v, w, b, node);
}

/* torch.nn.ConvNd._conv_forward(input, weight, bias) on module inst (a
 * script subclass's super()._conv_forward): the library's convolution
 * with the weight and bias given. */
static Obj *nn_conv_hook(Interp *I, const NnModule *m, Obj *inst, CallArgs *a)
{
    int32_t node = a->node;
    Obj *xo = args_get(a, 0, "input"), *wo = args_get(a, 1, "weight"), *bo = args_get(a, 2, "bias");
    if (args_unknown(a))
        return unk(I);
    if (!xo || !wo || !bo || a->npos + a->nkw != 3 || a->has_star)
        return interp_break(I, node, RULE_TNG203, "torch.nn.%s._conv_forward takes input, weight and bias",
                            m->cls);
    int32_t v = tl_tv(I, xo, node), w = tl_opt_tensor(I, wo, node, "weight"), b = tl_opt_tensor(I, bo, node, "bias");
    if (v < 0)
        return is_tensor(xo) ? unk(I) : interp_break(I, node, RULE_TNG203, "torch.nn.%s._conv_forward of "
                                                     "something that is not a tensor", m->cls);
    return conv_forward(I, m, inst, v, w, b, node);
}

/* A buffer of constant shape: a parameter-like host tensor marked a buffer. */
static Obj *buffer_new(Interp *I, const int64_t *d, int n, double fill, DType dt, int32_t node)
{
    Obj *t = param_new(I, d, n, fill, dt, node);
    if (is_tensor(t)) {
        t->t->is_param = 0;
        t->t->requires_grad = 0;
        t->t->is_buffer = 1;
    }
    return t;
}

/* nn.BatchNorm1d / BatchNorm2d(num_features, eps=1e-5, momentum=0.1,
 * affine=True, track_running_stats=True): compiled in inference form */
static int nn_batch_norm_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    int64_t ch;
    if (!ctor_int(I, c, "num_features", &ch))
        return 0;
    int affine = obj_flag(P(c, "affine"), 1), track = obj_flag(P(c, "track_running_stats"), 1);
    if (!track) {
        interp_break(I, c->node, RULE_TNG203, "torch.nn.%s with track_running_stats=False (batch "
                     "statistics; only inference with running statistics is compiled)", m->s + 9);
        return 0;
    }
    obj_setattr(I, m, "num_features", obj_int(I, ch));
    obj_setattr(I, m, "eps", obj_float(I, tl_float_arg(P(c, "eps"), 1e-5)));
    obj_setattr(I, m, "momentum", obj_float(I, tl_float_arg(P(c, "momentum"), 0.1)));
    obj_setattr(I, m, "affine", obj_bool(I, affine));
    obj_setattr(I, m, "track_running_stats", obj_bool(I, 1));
    obj_setattr(I, m, "weight", affine ? param_new(I, &ch, 1, 1, dt, c->node) : obj_none(I));
    obj_setattr(I, m, "bias", affine ? param_new(I, &ch, 1, 0, dt, c->node) : obj_none(I));
    obj_setattr(I, m, "running_mean", buffer_new(I, &ch, 1, 0, dt, c->node));
    obj_setattr(I, m, "running_var", buffer_new(I, &ch, 1, 1, dt, c->node));
    obj_setattr(I, m, "num_batches_tracked", buffer_new(I, NULL, 0, 0, DT_I64, c->node));
    obj_setattr(I, m, "training", obj_bool(I, 1));   /* as PyTorch's; .eval() clears it */
    return 1;
}

/* batch_norm(input) with the running statistics (inference) */
static Obj *nn_batch_norm(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)x;
    int32_t node = a->node;
    int32_t in[5] = {v, module_param(I, inst, "running_mean", node), module_param(I, inst, "running_var", node),
                     module_param(I, inst, "weight", node), module_param(I, inst, "bias", node)};
    if (in[1] < -1 || in[2] < -1 || in[3] < -1 || in[4] < -1)
        return unk(I);
    if (in[1] < 0 || in[2] < 0)
        return interp_break(I, node, RULE_TNG203, "torch.nn.%s without running statistics", m->cls);
    if (obj_flag(obj_getattr(inst, "training"), 0))
        return interp_break(I, node, RULE_TNG203, "torch.nn.%s in training mode (batch statistics): call "
                            ".eval() on the model (only inference is compiled)", m->cls);
    int rank = rank_of(I, v), want = m->cls[9] == '1' ? 2 : 4;
    if (rank != want && !(want == 2 && rank == 3))
        return interp_break(I, node, RULE_TNG203, "torch.nn.%s expects a %s input, got %d-d", m->cls,
                            want == 2 ? "2-d or 3-d" : "4-d", rank);
    return tl_emit1(I, OP_BATCH_NORM, in, 5, NULL, 0, tl_float_arg(obj_getattr(inst, "eps"), 1e-5), 0,
                    DT_UNKNOWN, node);
}

/* nn.GroupNorm(num_groups, num_channels, eps=1e-5, affine=True) */
static int nn_group_norm_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    int64_t g, ch;
    if (!ctor_int(I, c, "num_groups", &g) || !ctor_int(I, c, "num_channels", &ch))
        return 0;
    if (g < 1 || ch % g) {
        interp_break(I, c->node, RULE_TNG206, "num_channels must be divisible by num_groups");
        return 0;
    }
    int affine = obj_flag(P(c, "affine"), 1);
    obj_setattr(I, m, "num_groups", obj_int(I, g));
    obj_setattr(I, m, "num_channels", obj_int(I, ch));
    obj_setattr(I, m, "eps", obj_float(I, tl_float_arg(P(c, "eps"), 1e-5)));
    obj_setattr(I, m, "affine", obj_bool(I, affine));
    obj_setattr(I, m, "weight", affine ? param_new(I, &ch, 1, 1, dt, c->node) : obj_none(I));
    obj_setattr(I, m, "bias", affine ? param_new(I, &ch, 1, 0, dt, c->node) : obj_none(I));
    return 1;
}

/* group_norm(input) with the module's groups and parameters */
static Obj *nn_group_norm(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x;
    int32_t node = a->node;
    int64_t g = 1;
    int32_t in[3] = {v, module_param(I, inst, "weight", node), module_param(I, inst, "bias", node)};
    if (in[1] < -1 || in[2] < -1 || !tl_const_int(I, obj_getattr(inst, "num_groups"), node, "num_groups", &g))
        return unk(I);
    return tl_emit1(I, OP_GROUP_NORM, in, 3, &g, 1, tl_float_arg(obj_getattr(inst, "eps"), 1e-5), 0, DT_UNKNOWN, node);
}

/* nn.MaxPool2d(kernel_size, stride=None, padding=0, dilation=1,
 * return_indices=False, ceil_mode=False) | nn.AvgPool2d(kernel_size,
 * stride=None, padding=0, ceil_mode=False, count_include_pad=True,
 * divisor_override=None): the arguments kept as given */
static int nn_pool2d_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    (void)dt;
    int is_max = m->s[9] == 'M';
    static const char *const max_names[] = {"kernel_size", "stride", "padding", "dilation",
                                            "return_indices", "ceil_mode"};
    static const char *const avg_names[] = {"kernel_size", "stride", "padding", "ceil_mode",
                                            "count_include_pad", "divisor_override"};
    const char *const *names = is_max ? max_names : avg_names;
    for (size_t i = 0; i < 6; i++) {   /* the arguments given (the forward has the defaults) */
        Obj *o = PA(c, names[i]);
        if (o)
            obj_setattr(I, m, names[i], o);
        else if (i == 1)
            obj_setattr(I, m, names[i], P(c, "kernel_size"));
    }
    return 1;
}

/* max_pool2d(input) | avg_pool2d(input) with the module's arguments */
static Obj *nn_pool2d(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)x;
    return tl_pool2d_of(I, m->op, v, obj_getattr(inst, "kernel_size"), obj_getattr(inst, "stride"),
                        obj_getattr(inst, "padding"), obj_getattr(inst, "dilation"), obj_getattr(inst, "ceil_mode"),
                        obj_getattr(inst, "count_include_pad"), obj_getattr(inst, "divisor_override"),
                        obj_getattr(inst, "return_indices"), a->node);
}

/* nn.AdaptiveAvgPool2d(output_size) | nn.AdaptiveMaxPool2d(output_size,
 * return_indices=False) */
static int nn_adaptive_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    (void)dt;
    Obj *o = P(c, "output_size"), *ri = sig_index(c->sig, "return_indices") < 0 ? NULL : PA(c, "return_indices");
    obj_setattr(I, m, "output_size", o);
    if (ri)
        obj_setattr(I, m, "return_indices", ri);
    return 1;
}

/* adaptive pooling of input to the module's output_size */
static Obj *nn_adaptive(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)x;
    return tl_adaptive_of(I, m->op, v, obj_getattr(inst, "output_size"), obj_getattr(inst, "return_indices"),
                          a->node);
}

/* nn.Upsample(size=None, scale_factor=None, mode='nearest',
 * align_corners=None, recompute_scale_factor=None) */
static int nn_upsample_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    (void)I, (void)dt;
    static const char *const names[] = {"size", "scale_factor", "mode", "align_corners",
                                        "recompute_scale_factor"};
    for (size_t i = 0; i < NELEM(names); i++) {   /* the arguments given (the forward has the defaults) */
        Obj *o = PA(c, names[i]);
        if (o)
            obj_setattr(I, m, names[i], o);
    }
    return 1;
}

/* interpolate(input) with the module's arguments */
static Obj *nn_upsample(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x;
    return tl_interpolate_of(I, v, obj_getattr(inst, "size"), obj_getattr(inst, "scale_factor"),
                             obj_getattr(inst, "mode"), obj_getattr(inst, "align_corners"),
                             obj_getattr(inst, "recompute_scale_factor"), NULL, a->node);
}

/* nn.MultiheadAttention(embed_dim, num_heads, dropout=0.0, bias=True,
 * add_bias_kv=False, add_zero_attn=False, kdim=None, vdim=None,
 * batch_first=False): the packed in-projection (in_proj_weight,
 * in_proj_bias) and out_proj, a Linear */
static int nn_mha_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    int64_t e, h, kd = -1, vd = -1;
    if (!ctor_int(I, c, "embed_dim", &e) || !ctor_int(I, c, "num_heads", &h))
        return 0;
    Obj *ko = P(c, "kdim"), *vo = P(c, "vdim");
    if ((ko && !is_none(ko) && !tl_const_int(I, ko, c->node, "kdim", &kd)) ||
        (vo && !is_none(vo) && !tl_const_int(I, vo, c->node, "vdim", &vd)))
        return 0;
    if (h < 1 || e % h) {
        interp_break(I, c->node, RULE_TNG206, "embed_dim must be divisible by num_heads");
        return 0;
    }
    if ((kd >= 0 && kd != e) || (vd >= 0 && vd != e) || obj_flag(P(c, "add_bias_kv"), 0) ||
        obj_flag(P(c, "add_zero_attn"), 0)) {
        interp_break(I, c->node, RULE_TNG203, "torch.nn.MultiheadAttention with kdim/vdim other than "
                     "embed_dim, add_bias_kv or add_zero_attn");
        return 0;
    }
    int64_t be;
    if (graph_ckd_mul(&be, 3, e)) {
        interp_break(I, c->node, RULE_TNG206, "embed_dim %lld: the packed in-projection's 3 * embed_dim rows "
                     "overflow 64-bit integers", (long long)e);
        return 0;
    }
    int bias = obj_flag(P(c, "bias"), 1);
    int64_t wd[2] = {be, e};
    obj_setattr(I, m, "embed_dim", obj_int(I, e));
    obj_setattr(I, m, "num_heads", obj_int(I, h));
    obj_setattr(I, m, "head_dim", obj_int(I, e / h));
    obj_setattr(I, m, "dropout", obj_float(I, tl_float_arg(P(c, "dropout"), 0.0)));
    obj_setattr(I, m, "batch_first", obj_bool(I, obj_flag(P(c, "batch_first"), 0)));
    obj_setattr(I, m, "training", obj_bool(I, 1));   /* as PyTorch's; .eval() clears it */
    obj_setattr(I, m, "in_proj_weight", param_new(I, wd, 2, 0, dt, c->node));
    obj_setattr(I, m, "in_proj_bias", bias ? param_new(I, &be, 1, 0, dt, c->node) : obj_none(I));
    Obj *out = module_new(I, "torch.nn.Linear", c->node);
    int64_t od[2] = {e, e};
    obj_setattr(I, out, "in_features", obj_int(I, e));
    obj_setattr(I, out, "out_features", obj_int(I, e));
    obj_setattr(I, out, "weight", param_new(I, od, 2, 0, dt, c->node));
    obj_setattr(I, out, "bias", bias ? param_new(I, &e, 1, 0, dt, c->node) : obj_none(I));
    obj_setattr(I, m, "out_proj", out);
    return 1;
}

/* One input of attention projected and split in heads: x[B, T, E] ->
 * linear with weight w and bias b (-1: none), of each the rows [part E,
 * (part + 1) E) when wpart / bpart is part (a packed in-projection), all
 * of it when -1 -> [B, H, T, hd]; -1 after a diagnostic. */
static int32_t mha_heads(Interp *I, int32_t x, int32_t w, int wpart, int32_t b, int bpart, int64_t e, int64_t h,
                         int32_t node)
{
    int32_t in[3] = {x, wpart < 0 ? w : tl_tv(I, tl_slice_of(I, w, 0, wpart * e, (wpart + 1) * e, 1, node), node),
                     -1};
    if (b >= 0)
        in[2] = bpart < 0 ? b : tl_tv(I, tl_slice_of(I, b, 0, bpart * e, (bpart + 1) * e, 1, node), node);
    if (in[1] < 0 || (b >= 0 && in[2] < 0))
        return -1;
    int32_t y = tl_tv(I, tl_emit1(I, OP_LINEAR, in, 3, NULL, 0, 0, 0, DT_UNKNOWN, node), node);
    if (y < 0)
        return -1;
    const Val *yv = val_at(I, y);
    DimId d[4] = {yv->dims[0], yv->dims[1], graph_dim_const(G(I), h), graph_dim_const(G(I), e / h)};
    int32_t r = tl_tv(I, tl_reshape_to(I, y, d, 4, node), node);
    int64_t perm[4] = {0, 2, 1, 3};
    return r < 0 ? -1 : tl_tv(I, tl_permute_of(I, NULL, r, perm, 4, node), node);
}

/* A [L, B, E] input as [B, L, E] (batch_first=False); -1 after a diagnostic. */
static int32_t mha_batch_first(Interp *I, Obj *o, int bf, int32_t node)
{
    int32_t v = tl_tv(I, o, node);
    if (v < 0 || bf)
        return v;
    int64_t perm[3] = {1, 0, 2};
    return tl_tv(I, tl_permute_of(I, NULL, v, perm, 3, node), node);
}

/* The attention scores s [B, H, L, S] of MultiheadAttention with its
 * masks, as PyTorch 1.13's multi_head_attention_forward merges them: a
 * float attn_mask ([L, S], or [B * H, L, S]) is added; a bool one, and a
 * bool key_padding_mask [B, S] (True: padding), set the scores they mark
 * to -inf (PyTorch adds -inf there: the same for finite scores). -1 after
 * a diagnostic. */
static int32_t mha_mask(Interp *I, int32_t s, int32_t mask, int32_t kpm, int32_t node)
{
    DimId sd[4];
    tl_dims_of(I, s, sd);
    if (mask >= 0 && val_at(I, mask)->ndim == 3) {   /* [B * H, L, S] -> [B, H, L, S] */
        DimId md[4] = {sd[0], sd[1], val_at(I, mask)->dims[1], val_at(I, mask)->dims[2]};
        mask = tl_tv(I, tl_reshape_to(I, mask, md, 4, node), node);
    }
    if (mask >= 0 && val_at(I, mask)->dtype != DT_BOOL) {
        int32_t ad[2] = {s, mask};
        int64_t at = 0;
        s = tl_tv(I, tl_emit1(I, OP_ADD, ad, 2, &at, 1, 0, 1, DT_UNKNOWN, node), node);
        mask = -1;
    }
    if (kpm >= 0) {   /* [B, S] -> [B, 1, 1, S] */
        DimId one = graph_dim_const(G(I), 1);
        DimId kd[4] = {val_at(I, kpm)->dims[0], one, one, val_at(I, kpm)->dims[1]};
        kpm = tl_tv(I, tl_reshape_to(I, kpm, kd, 4, node), node);
        if (kpm < 0)
            return -1;
        if (mask >= 0) {
            int32_t lo[2] = {mask, kpm};
            kpm = tl_tv(I, tl_emit1(I, OP_LOGICAL_OR, lo, 2, NULL, 0, 0, 0, DT_UNKNOWN, node), node);
        }
        mask = kpm;
    }
    if (s < 0 || mask < 0)
        return mask < -1 ? -1 : s;
    int32_t w[3] = {mask, tl_tv(I, tl_full_of(I, NULL, 0, -INFINITY, val_at(I, s)->dtype, node), node), s};
    if (w[1] < 0)
        return -1;
    return tl_tv(I, tl_emit1(I, OP_WHERE, w, 3, NULL, 0, 0, 0, DT_UNKNOWN, node), node);
}

static Obj *mha_attend(Interp *I, int32_t qh, int32_t kh, int32_t vh, int32_t mask, int32_t kpm, int need, int avg,
                       int64_t e, int64_t h, int32_t ow, int32_t ob, int bf, int32_t node);

/* MultiheadAttention(query, key, value, key_padding_mask=None,
 * need_weights=True, attn_mask=None, average_attn_weights=True,
 * is_causal=False): (output, weights averaged over the heads, or per head,
 * or None) */
static Obj *nn_mha(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x, (void)v;
    int32_t node = a->node;
    Obj *qo = args_get(a, 0, "query"), *ko = args_get(a, 1, "key"), *vo = args_get(a, 2, "value");
    int need, avg, causal, bf = obj_flag(obj_getattr(inst, "batch_first"), 0);
    int64_t e, h;
    if (args_unknown(a))
        return unk(I);
    if (!is_tensor(qo) || !is_tensor(ko) || !is_tensor(vo))
        return interp_break(I, node, RULE_TNG203, "torch.nn.MultiheadAttention expects tensors query, key and value");
    int32_t kpm = tl_opt_tensor(I, args_get(a, 3, "key_padding_mask"), node, "key_padding_mask");
    if (kpm < -1)
        return unk(I);
    if (kpm >= 0 && (val_at(I, kpm)->dtype != DT_BOOL || val_at(I, kpm)->ndim != 2))
        return interp_break(I, node, RULE_TNG203, "torch.nn.MultiheadAttention with a %s key_padding_mask (a "
                            "2-d bool mask [batch, source length] is compiled)",
                            val_at(I, kpm)->dtype != DT_BOOL ? "non-bool" : "non-2-d");
    if (!tl_nn_flag(I, args_get(a, 4, "need_weights"), 1, node, "need_weights", &need) ||
        !tl_nn_flag(I, args_get(a, 6, "average_attn_weights"), 1, node, "average_attn_weights", &avg) ||
        !tl_nn_flag(I, args_get(a, 7, "is_causal"), 0, node, "is_causal", &causal) ||
        !tl_const_int(I, obj_getattr(inst, "embed_dim"), node, "embed_dim", &e) ||
        !tl_const_int(I, obj_getattr(inst, "num_heads"), node, "num_heads", &h))
        return unk(I);
    /* the attributes the script may have changed since the constructor
     * checked them: the heads split embed_dim, whose 3 blocks of rows fit */
    int64_t e3;
    if (h < 1 || e % h)
        return interp_break(I, node, RULE_TNG206, "torch.nn.MultiheadAttention: embed_dim %lld must be divisible "
                            "by num_heads %lld", (long long)e, (long long)h);
    if (graph_ckd_mul(&e3, 3, e))
        return interp_break(I, node, RULE_TNG206, "torch.nn.MultiheadAttention: 3 * embed_dim %lld overflows "
                            "64-bit integers", (long long)e);
    if (causal)
        return interp_break(I, node, RULE_TNG203, "torch.nn.MultiheadAttention with is_causal=True (pass "
                            "the causal attn_mask)");
    double drop = tl_float_arg(obj_getattr(inst, "dropout"), 0.0);
    if (drop != 0 && obj_flag(obj_getattr(inst, "training"), 0))   /* attention dropout: random */
        return interp_break(I, node, RULE_TNG203, "torch.nn.MultiheadAttention(dropout=%g) in training "
                            "mode (random): call .eval() on the model (only inference is compiled)", drop);
    int32_t mask = tl_opt_tensor(I, args_get(a, 5, "attn_mask"), node, "attn_mask");
    if (mask < -1)
        return unk(I);
    if (mask >= 0 && ((val_at(I, mask)->dtype != DT_BOOL && !dtype_is_float(val_at(I, mask)->dtype)) ||
                      val_at(I, mask)->ndim < 2 || val_at(I, mask)->ndim > 3))
        return interp_break(I, node, RULE_TNG203, "torch.nn.MultiheadAttention with a %s attn_mask (a 2-d or "
                            "3-d float or bool mask is compiled)", dtype_name(val_at(I, mask)->dtype));
    int32_t q = mha_batch_first(I, qo, bf, node), k = mha_batch_first(I, ko, bf, node),
            vv = mha_batch_first(I, vo, bf, node);
    if (q < 0 || k < 0 || vv < 0)
        return unk(I);
    if (rank_of(I, q) != 3 || rank_of(I, k) != 3 || rank_of(I, vv) != 3)
        return interp_break(I, node, RULE_TNG203, "torch.nn.MultiheadAttention of unbatched (2-d) inputs");
    int32_t w = module_param(I, inst, "in_proj_weight", node), b = module_param(I, inst, "in_proj_bias", node);
    Obj *out = obj_getattr(inst, "out_proj");
    int32_t ow = out ? module_param(I, out, "weight", node) : -1, ob = out ? module_param(I, out, "bias", node) : -1;
    if (w < 0 || b < -1 || ow < 0 || ob < -1)
        return unk(I);
    int32_t qh = mha_heads(I, q, w, 0, b, 0, e, h, node), kh = mha_heads(I, k, w, 1, b, 1, e, h, node),
            vh = mha_heads(I, vv, w, 2, b, 2, e, h, node);
    if (qh < 0 || kh < 0 || vh < 0)
        return unk(I);
    return mha_attend(I, qh, kh, vh, mask, kpm, need, avg, e, h, ow, ob, bf, node);
}

/* The attention of heads qh, kh, vh [B, H, L|S, hd] with the masks of
 * mha_mask, the heads merged and projected by out_proj (ow, ob: -1 none),
 * [L, B, E'] unless batch first: (output, weights averaged over the heads
 * when avg, per head, or None unless need). */
static Obj *mha_attend(Interp *I, int32_t qh, int32_t kh, int32_t vh, int32_t mask, int32_t kpm, int need, int avg,
                       int64_t e, int64_t h, int32_t ow, int32_t ob, int bf, int32_t node)
{
    int32_t att, weights = -1;
    {
        /* softmax(q / sqrt(hd) @ k^T + mask) @ v, step by step as PyTorch's
         * multi_head_attention_forward (each step rounded alike; matmuls
         * that the ACL target maps, which sdpa is not) */
        int64_t one = 1, last = 3;
        int32_t qs = tl_tv(I, tl_arith(I, OP_DIV, obj_tensor(I, qh), obj_float(I, sqrt((double)(e / h))), 1, node,
                                 "scaling"), node);
        int32_t kt = qs < 0 ? -1 : tl_tv(I, tl_transpose_last2(I, NULL, kh, node), node);
        int32_t mm[2] = {qs, kt};
        int32_t s = kt < 0 ? -1 : tl_tv(I, tl_emit1(I, OP_MATMUL, mm, 2, NULL, 0, 0, 0, DT_UNKNOWN, node), node);
        if (s >= 0 && (mask >= 0 || kpm >= 0))
            s = mha_mask(I, s, mask, kpm, node);
        int32_t p = s < 0 ? -1 : tl_tv(I, tl_emit_x(I, OP_SOFTMAX, s, &last, 1, 0, DT_UNKNOWN, node), node);
        int32_t pv[2] = {p, vh};
        att = p < 0 ? -1 : tl_tv(I, tl_emit1(I, OP_MATMUL, pv, 2, NULL, 0, 0, 0, DT_UNKNOWN, node), node);
        int64_t mattr[2] = {0, 1};
        (void)one;
        if (p < 0)
            return unk(I);
        weights = !need ? -1 : !avg ? p : tl_tv(I, tl_emit_x(I, OP_MEAN, p, mattr, 2, 0, DT_UNKNOWN, node), node);
        if (need && weights < 0)
            return unk(I);
    }
    if (att < 0)
        return unk(I);
    int64_t perm[4] = {0, 2, 1, 3};
    int32_t t = tl_tv(I, tl_permute_of(I, NULL, att, perm, 4, node), node);
    if (t < 0)
        return unk(I);
    const Val *tvv = val_at(I, t);
    DimId d[3] = {tvv->dims[0], tvv->dims[1], graph_dim_const(G(I), e)};
    int32_t in[3] = {tl_tv(I, tl_reshape_to(I, t, d, 3, node), node), ow, ob};
    if (in[0] < 0)
        return unk(I);
    Obj *y = tl_emit1(I, OP_LINEAR, in, 3, NULL, 0, 0, 0, DT_UNKNOWN, node);
    if (!bf && is_tensor(y)) {
        int64_t p3[3] = {1, 0, 2};
        y = tl_permute_of(I, NULL, tl_tv(I, y, node), p3, 3, node);
    }
    Obj *items[2] = {y, weights >= 0 ? obj_tensor(I, weights) : obj_none(I)};
    return obj_tuple(I, items, 2);
}

/* 1 when value w is a 2-d weight of rows rows (any when rows < 0) and cols
 * columns, else 0 after a diagnostic naming it (PyTorch's assertion). */
static int mha_weight_shape(Interp *I, int32_t w, int64_t rows, int64_t cols, const char *name, int32_t node)
{
    const Val *wv = val_at(I, w);
    int64_t r, c;
    if (wv->ndim == 2 && (rows < 0 || (graph_dim_const_value(G(I), wv->dims[0], &r) && r == rows)) &&
        graph_dim_const_value(G(I), wv->dims[1], &c) && c == cols)
        return 1;
    interp_break(I, node, RULE_TNG206, "multi_head_attention_forward: %s must be a 2-d weight of %s%lld columns",
                 name, rows < 0 ? "" : interp_printf(I, "%lld rows and ", (long long)rows), (long long)cols);
    return 0;
}

/* F.multi_head_attention_forward(query, key, value, embed_dim_to_check,
 * num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
 * dropout_p, out_proj_weight, out_proj_bias, training=True,
 * key_padding_mask=None, need_weights=True, attn_mask=None,
 * use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
 * v_proj_weight=None, static_k=None, static_v=None,
 * average_attn_weights=True, is_causal=False): the arithmetic of
 * nn.MultiheadAttention's forward (which calls it) on [L, B, E] inputs,
 * with the packed in-projection or (use_separate_proj_weight) the three
 * weights, the packed bias in three blocks either way. Refused: bias_k,
 * bias_v, add_zero_attn, static_k, static_v, is_causal, dropout in
 * training, unbatched inputs, the masks nn.MultiheadAttention refuses. */
Obj *lo_mha_forward(Interp *I, Call *c)
{
    const char *fn = "multi_head_attention_forward";
    int32_t node = c->node;
    Obj *qo = P(c, "query"), *ko = P(c, "key"), *vo = P(c, "value");
    if (is_unknown(qo) || is_unknown(ko) || is_unknown(vo))
        return unk(I);
    if (!is_tensor(qo) || !is_tensor(ko) || !is_tensor(vo))
        return interp_break(I, node, RULE_TNG203, "%s expects tensors query, key and value", fn);
    static const char *const refused[] = {"bias_k", "bias_v", "static_k", "static_v"};
    for (size_t i = 0; i < NELEM(refused); i++)
        if (!is_none(P(c, refused[i])))
            return is_unknown(P(c, refused[i])) ? unk(I) : interp_break(I, node, RULE_TNG203, "%s with %s (not "
                                                                       "None) is not supported", fn, refused[i]);
    int zero, training, need, avg, causal, sep;
    int64_t e, h, echk;
    double drop;
    if (!tl_nn_flag(I, P(c, "add_zero_attn"), 0, node, "add_zero_attn", &zero) ||
        !tl_nn_flag(I, P(c, "training"), 1, node, "training", &training) ||
        !tl_nn_flag(I, P(c, "need_weights"), 1, node, "need_weights", &need) ||
        !tl_nn_flag(I, P(c, "average_attn_weights"), 1, node, "average_attn_weights", &avg) ||
        !tl_nn_flag(I, P(c, "is_causal"), 0, node, "is_causal", &causal) ||
        !tl_nn_flag(I, P(c, "use_separate_proj_weight"), 0, node, "use_separate_proj_weight", &sep) ||
        !tl_num_arg(I, P(c, "dropout_p"), 0.0, node, "dropout_p", &drop) ||
        !tl_const_int(I, P(c, "embed_dim_to_check"), node, "embed_dim_to_check", &echk) ||
        !tl_const_int(I, P(c, "num_heads"), node, "num_heads", &h))
        return unk(I);
    if (zero)
        return interp_break(I, node, RULE_TNG203, "%s with add_zero_attn=True is not supported", fn);
    if (causal)
        return interp_break(I, node, RULE_TNG203, "%s with is_causal=True is not supported (pass the causal "
                            "attn_mask)", fn);
    if (training && drop != 0)
        return interp_break(I, node, RULE_TNG203, "%s with dropout_p=%g and training=True (random; only "
                            "inference is compiled)", fn, drop);
    int32_t kpm = tl_opt_tensor(I, P(c, "key_padding_mask"), node, "key_padding_mask");
    int32_t mask = kpm < -1 ? -2 : tl_opt_tensor(I, P(c, "attn_mask"), node, "attn_mask");
    if (mask < -1)
        return unk(I);
    if (kpm >= 0 && (val_at(I, kpm)->dtype != DT_BOOL || val_at(I, kpm)->ndim != 2))
        return interp_break(I, node, RULE_TNG203, "%s with a %s key_padding_mask (a 2-d bool mask [batch, source "
                            "length] is compiled)", fn, val_at(I, kpm)->dtype != DT_BOOL ? "non-bool" : "non-2-d");
    if (mask >= 0 && ((val_at(I, mask)->dtype != DT_BOOL && !dtype_is_float(val_at(I, mask)->dtype)) ||
                      val_at(I, mask)->ndim < 2 || val_at(I, mask)->ndim > 3))
        return interp_break(I, node, RULE_TNG203, "%s with a %s attn_mask (a 2-d or 3-d float or bool mask is "
                            "compiled)", fn, dtype_name(val_at(I, mask)->dtype));
    int32_t q = mha_batch_first(I, qo, 0, node), k = mha_batch_first(I, ko, 0, node),
            vv = mha_batch_first(I, vo, 0, node);
    if (q < 0 || k < 0 || vv < 0)
        return unk(I);
    if (rank_of(I, q) != 3 || rank_of(I, k) != 3 || rank_of(I, vv) != 3)
        return interp_break(I, node, RULE_TNG203, "%s of unbatched (2-d) inputs", fn);
    int64_t kd, vd;
    if (!graph_dim_const_value(G(I), val_at(I, q)->dims[2], &e) || e != echk)
        return interp_break(I, node, RULE_TNG206, "%s: the query's embedding dim must be embed_dim_to_check "
                            "(%lld)", fn, (long long)echk);
    if (h < 1 || e % h)
        return interp_break(I, node, RULE_TNG206, "%s: embed_dim %lld must be divisible by num_heads %lld", fn,
                            (long long)e, (long long)h);
    const Val *qv = val_at(I, q), *kv = val_at(I, k), *vvv = val_at(I, vv);
    if (kv->dims[0] != vvv->dims[0] || kv->dims[1] != vvv->dims[1] || kv->dims[0] != qv->dims[0])   /* [B, T, E] */
        return interp_break(I, node, RULE_TNG206, "%s: key and value must have the same source length and "
                            "batch, and the batch of query", fn);
    if (!graph_dim_const_value(G(I), val_at(I, k)->dims[2], &kd) ||
        !graph_dim_const_value(G(I), val_at(I, vv)->dims[2], &vd))
        return interp_break(I, node, RULE_TNG205, "%s: the embedding dims of key and value must be known at "
                            "compile time", fn);
    int32_t b = tl_opt_tensor(I, P(c, "in_proj_bias"), node, "in_proj_bias");
    int32_t ow = tl_opt_tensor(I, P(c, "out_proj_weight"), node, "out_proj_weight");
    int32_t ob = ow < -1 ? -2 : tl_opt_tensor(I, P(c, "out_proj_bias"), node, "out_proj_bias");
    if (b < -1 || ow < -1 || ob < -1)
        return unk(I);
    int64_t e3;
    if (graph_ckd_mul(&e3, 3, e))
        return interp_break(I, node, RULE_TNG206, "%s: 3 * embed_dim %lld overflows 64-bit integers", fn,
                            (long long)e);
    if (ow < 0)
        return interp_break(I, node, RULE_TNG203, "%s: out_proj_weight must be a tensor", fn);
    const Val *bv = b >= 0 ? val_at(I, b) : NULL;
    int64_t bn;
    if (bv && (bv->ndim != 1 || !graph_dim_const_value(G(I), bv->dims[0], &bn) || bn != e3))
        return interp_break(I, node, RULE_TNG206, "%s: in_proj_bias must be 1-d of 3 * embed_dim (%lld) "
                            "elements", fn, (long long)e3);
    if (!mha_weight_shape(I, ow, -1, e, "out_proj_weight", node))
        return unk(I);
    int32_t w[3];
    int wpart[3];
    if (sep) {
        static const char *const names[3] = {"q_proj_weight", "k_proj_weight", "v_proj_weight"};
        int64_t cols[3] = {e, kd, vd};
        for (int i = 0; i < 3; i++) {
            w[i] = tl_opt_tensor(I, P(c, names[i]), node, names[i]);
            if (w[i] < -1)
                return unk(I);
            if (w[i] < 0)
                return interp_break(I, node, RULE_TNG206, "%s with use_separate_proj_weight=True needs %s", fn,
                                    names[i]);
            if (!mha_weight_shape(I, w[i], e, cols[i], names[i], node))
                return unk(I);
            wpart[i] = -1;
        }
    } else {
        int32_t pw = tl_opt_tensor(I, P(c, "in_proj_weight"), node, "in_proj_weight");
        if (pw < -1)
            return unk(I);
        if (pw < 0)
            return interp_break(I, node, RULE_TNG206, "%s with use_separate_proj_weight=False needs "
                                "in_proj_weight", fn);
        if (kd != e || vd != e)
            return interp_break(I, node, RULE_TNG206, "%s: the packed in_proj_weight needs key and value of "
                                "embed_dim %lld", fn, (long long)e);
        if (!mha_weight_shape(I, pw, e3, e, "in_proj_weight", node))
            return unk(I);
        for (int i = 0; i < 3; i++)
            w[i] = pw, wpart[i] = i;
    }
    int32_t qh = mha_heads(I, q, w[0], wpart[0], b, 0, e, h, node), kh = mha_heads(I, k, w[1], wpart[1], b, 1, e, h, node),
            vh = mha_heads(I, vv, w[2], wpart[2], b, 2, e, h, node);
    if (qh < 0 || kh < 0 || vh < 0)
        return unk(I);
    return mha_attend(I, qh, kh, vh, mask, kpm, need, avg, e, h, ow, ob, 0, node);
}

/* linear(input): F.linear with the module's weight and bias */
static Obj *nn_linear(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x;
    int32_t node = a->node;
    int32_t w = module_param(I, inst, "weight", node), b = module_param(I, inst, "bias", node);
    if (w < 0 || b < -1) {
        if (w == -1)
            interp_break(I, node, RULE_TNG205, "Linear without a weight");
        return unk(I);
    }
    int32_t in[3] = {v, w, b};
    return tl_emit1(I, OP_LINEAR, in, 3, NULL, 0, 0, 0, DT_UNKNOWN, node);
}

/* tl_layer_norm(input): over the module's normalized_shape */
static Obj *nn_layer_norm(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x;
    int32_t node = a->node;
    int32_t w = module_param(I, inst, "weight", node), b = module_param(I, inst, "bias", node);
    if (w < -1 || b < -1)
        return unk(I);
    Obj *ns = obj_getattr(inst, "normalized_shape");
    int64_t k = is_seq(ns) ? (int64_t)ns->n : 1;
    return tl_layer_norm(I, v, k, w, b, tl_float_arg(obj_getattr(inst, "eps"), 1e-5), node);
}

/* embedding(input): rows of the module's weight */
static Obj *nn_embedding(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x;
    int32_t node = a->node;
    int32_t in[2] = {module_param(I, inst, "weight", node), v};
    if (in[0] < 0) {
        if (in[0] == -1)
            interp_break(I, node, RULE_TNG205, "Embedding without a weight");
        return unk(I);
    }
    return tl_emit1(I, OP_EMBEDDING, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, node);
}

/* relu(input) | silu | sigmoid | tanh, in place when built with inplace=True */
static Obj *nn_activation(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    return tl_inplace_result(I, x, tl_emit_x(I, m->op, v, NULL, 0, 0, DT_UNKNOWN, a->node), obj_getattr(inst, "inplace"),
                             a->node);
}

/* gelu(input) with the module's approximate= */
static Obj *nn_gelu(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x;
    Obj *ap = obj_getattr(inst, "approximate");
    int64_t t = ap && ap->kind == O_STR && streq(ap->s, "tanh");
    return tl_emit_x(I, OP_GELU, v, &t, 1, 0, DT_UNKNOWN, a->node);
}

/* softplus(input) with the module's beta and threshold */
static Obj *nn_softplus(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x;
    return tl_softplus_of(I, v, obj_getattr(inst, "beta"), obj_getattr(inst, "threshold"), a->node);
}

/* leaky_relu(input) with the module's negative_slope, in place when built
 * with inplace=True */
static Obj *nn_leaky_relu(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m;
    double s;
    if (!tl_num_arg(I, obj_getattr(inst, "negative_slope"), 0.01, a->node, "LeakyReLU's negative_slope", &s))
        return unk(I);
    return tl_inplace_result(I, x, tl_emit_x(I, OP_LEAKY_RELU, v, NULL, 0, s, DT_UNKNOWN, a->node),
                             obj_getattr(inst, "inplace"), a->node);
}

/* softmax(input) | log_softmax(input) over the module's dim */
static Obj *nn_softmax(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)x;
    int32_t node = a->node;
    Obj *d = obj_getattr(inst, "dim");
    int64_t dim;
    if (is_none(d))
        return interp_break(I, node, RULE_TNG205, "torch.nn.%s without dim= (the implicit dim is deprecated)", m->cls);
    if (!tl_dim_arg(I, d, rank_of(I, v), node, "the softmax dim", &dim))
        return unk(I);
    return tl_emit_x(I, m->op, v, &dim, 1, 0, DT_UNKNOWN, node);
}

/* ModuleList(...)(x): not callable */
static Obj *nn_module_list(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)inst, (void)x, (void)v;
    return interp_break(I, a->node, RULE_TNG203, "ModuleList is not callable");
}

/* Sequential(m1, m2, ...)(args): m2(m1(args)) ..., the identity when empty */
static Obj *nn_sequential(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)m, (void)x, (void)v;
    if (args_unknown(a))
        return unk(I);
    Obj *cur = NULL;
    for (size_t i = 0; i < inst->n; i++) {
        CallArgs one = *a;
        if (i > 0) {
            one.pos = &cur;
            one.npos = 1;
            one.nkw = 0;
        }
        cur = interp_call(I, inst->items[i], &one);
        if (is_unknown(cur))
            return cur;
    }
    if (!cur)   /* an empty Sequential is the identity */
        cur = args_get(a, 0, "input");
    return cur ? cur : unk(I);
}

/* nn.ModuleDict(modules=None): a dict or (name, module) pairs; the
 * modules are its attributes (state_dict names "<key>.") */
static int nn_module_dict_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    (void)dt;
    Obj *src = P_at(c, 0);   /* modules (ParameterDict: parameters) */
    if (is_none(src))
        return 1;
    if (src->kind == O_DICT) {
        for (size_t i = 0; i + 1 < src->n; i += 2)
            if (src->items[i]->kind == O_STR)
                obj_setattr(I, m, src->items[i]->s, src->items[i + 1]);
            else
                return 0;
        return 1;
    }
    Obj *l = obj_iter(I, src, c->node, ITER_EXPAND);
    for (size_t i = 0; l && i < l->n; i++) {
        Obj *p = l->items[i];
        if (!is_seq(p) || p->n != 2 || p->items[0]->kind != O_STR)
            return 0;
        obj_setattr(I, m, p->items[0]->s, p->items[1]);
    }
    return l != NULL;
}

/* nn.ParameterList(values=None): its tensors are parameters */
static int nn_parameter_list_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    (void)dt;
    Obj *src = P(c, "values");
    Obj *l = is_none(src) ? obj_seq_of(I, O_LIST, NULL, 0) : obj_iter(I, src, c->node, ITER_EXPAND);
    if (!l)
        return 0;
    for (size_t i = 0; i < l->n; i++) {
        if (!is_tensor(l->items[i]))
            return 0;
        l->items[i]->t->is_param = l->items[i]->t->requires_grad = 1;
    }
    return module_items(I, m, l->items, l->n);
}

/* Marks the tensors of an nn.ParameterDict as its parameters (PyTorch
 * wraps each in a Parameter); 0 when one of its values is no tensor. */
static int nn_parameter_dict_mark(Obj *m)
{
    if (!m->s || !streq(m->s, "torch.nn.ParameterDict"))
        return 1;
    for (size_t i = 0; i < m->attrs.n; i++) {
        if (!is_tensor(m->attrs.vals[i]))
            return 0;
        m->attrs.vals[i]->t->is_param = m->attrs.vals[i]->t->requires_grad = 1;
    }
    return 1;
}

/* nn.ParameterDict(parameters=None): a dict or (name, tensor) pairs; its
 * tensors are parameters named "<key>" in the state_dict */
static int nn_parameter_dict_init(Interp *I, Obj *m, const Call *c, DType dt)
{
    return nn_module_dict_init(I, m, c, dt) && nn_parameter_dict_mark(m);
}

/* ModuleDict(...)(x), ParameterList(...)(x): not callable */
static Obj *nn_container_call(Interp *I, const NnModule *m, Obj *inst, CallArgs *a, Obj *x, int32_t v)
{
    (void)inst, (void)x, (void)v;
    return interp_break(I, a->node, RULE_TNG203, "%s is not callable", m->cls);
}

/* The nn modules tngc knows; op: the op of an activation or softmax. */
static const NnModule nn_modules[] = {
    /* class        flags        constructor          forward          op,
     * and the constructor's signature */
    {"Linear",      0,           nn_linear_init,      nn_linear,       0,
     "Linear(int in_features, int out_features, bool bias=True, Device? device=None, "
     "ScalarType? dtype=None) -> Linear"},
    {"LayerNorm",   0,           nn_layer_norm_init,  nn_layer_norm,   0,
     "LayerNorm(int[] normalized_shape, float eps=1e-05, bool elementwise_affine=True, bool bias=True, "
     "Device? device=None, ScalarType? dtype=None) -> LayerNorm"},
    {"Embedding",   0,           nn_embedding_init,   nn_embedding,    0,
     "Embedding(int num_embeddings, int embedding_dim, int? padding_idx=None, float? max_norm=None, "
     "float norm_type=2.0, bool scale_grad_by_freq=False, bool sparse=False, Tensor? _weight=None, "
     "bool _freeze=False, Device? device=None, ScalarType? dtype=None) -> Embedding"},
    {"ReLU",        NN_INPLACE,  NULL,                nn_activation,   OP_RELU,
     "ReLU(bool inplace=False) -> ReLU"},
    {"SiLU",        NN_INPLACE,  NULL,                nn_activation,   OP_SILU,
     "SiLU(bool inplace=False) -> SiLU"},
    {"Sigmoid",     NN_INPLACE,  NULL,                nn_activation,   OP_SIGMOID,
     "Sigmoid() -> Sigmoid"},
    {"Tanh",        NN_INPLACE,  NULL,                nn_activation,   OP_TANH,
     "Tanh() -> Tanh"},
    {"GELU",        0,           nn_gelu_init,        nn_gelu,         0,
     "GELU(str approximate='none') -> GELU"},
    {"Hardswish",   NN_INPLACE,  NULL,                nn_activation,   OP_HARDSWISH,
     "Hardswish(bool inplace=False) -> Hardswish"},
    {"Mish",        NN_INPLACE,  NULL,                nn_activation,   OP_MISH,
     "Mish(bool inplace=False) -> Mish"},
    {"LeakyReLU",   0,           nn_leaky_relu_init,  nn_leaky_relu,   0,
     "LeakyReLU(float negative_slope=0.01, bool inplace=False) -> LeakyReLU"},
    {"Softplus",    0,           nn_softplus_init,    nn_softplus,     0,
     "Softplus(Scalar beta=1, Scalar threshold=20) -> Softplus"},
    {"Softmax",     0,           nn_softmax_init,     nn_softmax,      OP_SOFTMAX,
     "Softmax(int? dim=None) -> Softmax"},
    {"LogSoftmax",  0,           nn_softmax_init,     nn_softmax,      OP_LOG_SOFTMAX,
     "LogSoftmax(int? dim=None) -> LogSoftmax"},
    {"Dropout",     0,           nn_dropout_init,     nn_dropout,      0,
     "Dropout(float p=0.5, bool inplace=False) -> Dropout"},
    {"Identity",    NN_IDENTITY, NULL,                NULL,            0,
     "Identity(Any?... args, **) -> Identity"},
    {"ModuleList",  NN_ARGS,     nn_module_list_init, nn_module_list,  0,
     "ModuleList(Any? modules=None) -> ModuleList"},
    {"Sequential",  NN_ARGS,     nn_sequential_init,  nn_sequential,   0,
     "Sequential(Any?... args) -> Sequential"},
    {"ModuleDict",  NN_ARGS,     nn_module_dict_init, nn_container_call, 0,
     "ModuleDict(Any? modules=None) -> ModuleDict"},
    {"ParameterList", NN_ARGS,   nn_parameter_list_init, nn_container_call, 0,
     "ParameterList(Any? values=None) -> ParameterList"},
    {"ParameterDict", NN_ARGS,   nn_parameter_dict_init, nn_container_call, 0,
     "ParameterDict(Any? parameters=None) -> ParameterDict"},
    /* -- creation and constants -- */
    /* -- shape -- */
    /* -- comparison, selection, bool -- */
    /* -- reductions, sorting, contractions -- */
    /* -- indexing and scatter -- */
    /* -- neural net -- */
    {"Dropout1d",   0,           nn_dropout_init,     nn_dropout,      0,
     "Dropout1d(float p=0.5, bool inplace=False) -> Dropout1d"},
    {"Dropout2d",   0,           nn_dropout_init,     nn_dropout,      0,
     "Dropout2d(float p=0.5, bool inplace=False) -> Dropout2d"},
    {"Dropout3d",   0,           nn_dropout_init,     nn_dropout,      0,
     "Dropout3d(float p=0.5, bool inplace=False) -> Dropout3d"},
    {"AlphaDropout", 0,          nn_dropout_init,     nn_dropout,      0,
     "AlphaDropout(float p=0.5, bool inplace=False) -> AlphaDropout"},
    {"FeatureAlphaDropout", 0,   nn_dropout_init,     nn_dropout,      0,
     "FeatureAlphaDropout(float p=0.5, bool inplace=False) -> FeatureAlphaDropout"},
    {"MultiheadAttention", NN_ARGS, nn_mha_init,      nn_mha,          0,
     "MultiheadAttention(int embed_dim, int num_heads, float dropout=0.0, bool bias=True, "
     "bool add_bias_kv=False, bool add_zero_attn=False, int? kdim=None, int? vdim=None, bool batch_first=False, "
     "Device? device=None, ScalarType? dtype=None) -> MultiheadAttention"},
    {"Conv1d",      0,           nn_conv_init,        nn_conv,         0,
     "Conv1d(int in_channels, int out_channels, int[1] kernel_size, int[1] stride=1, Any padding=0, "
     "int[1] dilation=1, int groups=1, bool bias=True, str padding_mode='zeros', Device? device=None, "
     "ScalarType? dtype=None) -> Conv1d"},
    {"Conv2d",      0,           nn_conv_init,        nn_conv,         0,
     "Conv2d(int in_channels, int out_channels, int[2] kernel_size, int[2] stride=1, Any padding=0, "
     "int[2] dilation=1, int groups=1, bool bias=True, str padding_mode='zeros', Device? device=None, "
     "ScalarType? dtype=None) -> Conv2d"},
    {"BatchNorm1d", 0,           nn_batch_norm_init,  nn_batch_norm,   0,
     "BatchNorm1d(int num_features, float eps=1e-05, float momentum=0.1, bool affine=True, "
     "bool track_running_stats=True, Device? device=None, ScalarType? dtype=None) -> BatchNorm1d"},
    {"BatchNorm2d", 0,           nn_batch_norm_init,  nn_batch_norm,   0,
     "BatchNorm2d(int num_features, float eps=1e-05, float momentum=0.1, bool affine=True, "
     "bool track_running_stats=True, Device? device=None, ScalarType? dtype=None) -> BatchNorm2d"},
    {"GroupNorm",   0,           nn_group_norm_init,  nn_group_norm,   0,
     "GroupNorm(int num_groups, int num_channels, float eps=1e-05, bool affine=True, Device? device=None, "
     "ScalarType? dtype=None) -> GroupNorm"},
    {"MaxPool2d",   0,           nn_pool2d_init,      nn_pool2d,       OP_MAX_POOL2D,
     "MaxPool2d(int[2] kernel_size, int[2]? stride=None, int[2] padding=0, int[2] dilation=1, "
     "bool return_indices=False, bool ceil_mode=False) -> MaxPool2d"},
    {"AvgPool2d",   0,           nn_pool2d_init,      nn_pool2d,       OP_AVG_POOL2D,
     "AvgPool2d(int[2] kernel_size, int[2]? stride=None, int[2] padding=0, bool ceil_mode=False, "
     "bool count_include_pad=True, int? divisor_override=None) -> AvgPool2d"},
    {"AdaptiveAvgPool2d", 0,     nn_adaptive_init,    nn_adaptive,     OP_ADAPTIVE_AVG_POOL2D,
     "AdaptiveAvgPool2d(int[2] output_size) -> AdaptiveAvgPool2d"},
    {"AdaptiveMaxPool2d", 0,     nn_adaptive_init,    nn_adaptive,     OP_ADAPTIVE_MAX_POOL2D,
     "AdaptiveMaxPool2d(int[2] output_size, bool return_indices=False) -> AdaptiveMaxPool2d"},
    {"Upsample",    0,           nn_upsample_init,    nn_upsample,     0,
     "Upsample(int[]? size=None, float[]? scale_factor=None, str mode='nearest', bool? align_corners=None, "
     "bool? recompute_scale_factor=None) -> Upsample"},
    /* -- torch_npu fused ops -- */
};

/* The constructors' signatures, parsed once, all of them, on first use. */
static SigRow nn_sigs[NELEM(nn_modules)];
static SigParam nn_params[1024];

/* Parses the signature of every nn_modules[] row: their number, or 0 with
 * the first malformed one appended to why. */
size_t tl_module_parse_sigs(StrBuf *why)
{
    static int done;
    size_t used = 0;
    for (size_t i = 0; !done && i < NELEM(nn_modules); i++)
        if (!tl_sig_row_parse(nn_modules[i].cls, nn_modules[i].sig, &nn_sigs[i], nn_params, NELEM(nn_params), &used, why))
            return 0;
    done = 1;
    return NELEM(nn_modules);
}

/* The row of class cls (after "torch.nn."), or NULL. */
static const NnModule *nn_find(const char *cls)
{
    for (size_t i = 0; i < NELEM(nn_modules); i++)
        if (streq(cls, nn_modules[i].cls))
            return &nn_modules[i];
    return NULL;
}

/* 1 when torch.nn.<cls> is a class of nn_modules[]. */
int tl_module_class_known(const char *cls)
{
    return nn_find(cls) != NULL;
}

/* 1 when torch.nn.<cls> names an nn module class tngc does not lower (an
 * upper-case name, no dots, not one of the containers and bases the
 * interpreter handles itself): constructing it gives a module that is
 * refused, naming the class, where it is called. */
static int nn_unsupported_class(const char *cls)
{
    static const char *const bases[] = {"Module", "ModuleDict", "ParameterList", "ParameterDict",
                                        "Parameter", "Buffer"};
    if (!cls || cls[0] < 'A' || cls[0] > 'Z' || strchr(cls, '.'))
        return 0;
    for (size_t i = 0; i < NELEM(bases); i++)
        if (streq(cls, bases[i]))
            return 0;
    return 1;
}

/* Runs row's constructor on module m (m->s its canonical class name): the
 * arguments bound to the constructor's signature, m's attributes set from
 * them. NULL when done, else the refusal (an unknown). */
static Obj *module_ctor(Interp *I, const NnModule *row, Obj *m, CallArgs *a)
{
    if (a->has_star)
        return unk(I);
    StrBuf why = {0};
    if (!tl_module_parse_sigs(&why))
        TNGC_BUG("%s", why.s);
    Call c;
    memset(&c, 0, sizeof c);
    c.name = row->cls;
    c.full = m->s;
    c.a = a;
    c.node = a->node;
    c.I = I;
    Obj *refused = tl_bind(I, &nn_sigs[row - nn_modules], a, c.full, &c);
    if (refused)
        return refused;
    int ip = sig_index(c.sig, "inplace");
    if (ip >= 0 && c.p[ip] && (row->flags & NN_INPLACE))
        obj_setattr(I, m, "inplace", c.p[ip]);
    DType dt;
    if (!tl_dtype_arg(I, P_if(&c, "dtype"), a->node, &dt))
        return unk(I);
    if (row->init && !row->init(I, m, &c, dt))
        return unk(I);
    return NULL;
}

/* torch.nn.X(...) for a class X of nn_modules; NULL for other names */
Obj *tl_module_construct(Interp *I, const char *name, CallArgs *a)
{
    const char *cls = name + 9;   /* after "torch.nn." */
    Obj *r;
    if (strchr(cls, '.') && (r = tl_subclass_explicit(I, name, a)))   /* nn.Linear.__init__(self, ...) */
        return r;
    const NnModule *row = nn_find(cls);
    if (!row && nn_unsupported_class(cls) && !interp_tracing(I))
        return module_new(I, name, a->node);   /* refused where it is called */
    if (!row)
        return NULL;
    if (interp_tracing(I))
        return interp_break(I, a->node, RULE_TNG203, "constructing torch.nn.%s inside the compiled method", cls);
    Obj *m = module_new(I, interp_printf(I, "torch.nn.%s", cls), a->node);
    Obj *refused = module_ctor(I, row, m, a);
    return refused ? refused : m;
}

/* The constructor of torch.nn class full ("torch.nn.Linear") run on inst,
 * an instance of a script subclass of it (its super().__init__(...), or
 * the class has no __init__ of its own): inst->s becomes full, the class
 * its forward and super() calls lower as. NULL when done, else the
 * refusal (an unknown; inst->s stays NULL, so that its calls are refused).
 * A class tngc does not lower is recorded the same way: its calls are
 * refused naming it. */
Obj *tl_module_init_on(Interp *I, Obj *inst, const char *full, CallArgs *a)
{
    const NnModule *row = strncmp(full, "torch.nn.", 9) == 0 ? nn_find(full + 9) : NULL;
    if (!row && !nn_unsupported_class(full + 9))
        return NULL;
    if (interp_tracing(I))
        return interp_break(I, a->node, RULE_TNG203, "constructing torch.nn.%s inside the compiled method", full + 9);
    inst->s = full;
    Obj *refused = row ? module_ctor(I, row, inst, a) : NULL;
    if (refused)
        inst->s = NULL;
    return refused;
}

/* 1 when full names a torch.nn module class other than the bases
 * (torch.nn.Module, ...): one of nn_modules[], or one tngc does not lower. */
int tl_module_is_class(const char *full)
{
    return full && strncmp(full, "torch.nn.", 9) == 0 && (nn_find(full + 9) || nn_unsupported_class(full + 9));
}

static Obj *call_module(Interp *I, Obj *inst, CallArgs *a);

/* 1 when the methods of torch.nn class full that tngc lowers on a script
 * subclass's instance include name: forward, and _conv_forward of the
 * convolutions (the hook their forward calls). */
int tl_module_has_base_method(const char *full, const char *name)
{
    if (streq(name, "forward"))
        return 1;
    const NnModule *row = strncmp(full, "torch.nn.", 9) == 0 ? nn_find(full + 9) : NULL;
    return row && row->forward == nn_conv && streq(name, "_conv_forward");
}

/* torch.nn class full's method name (tl_module_has_base_method) on inst,
 * an instance of a script subclass of it whose constructor tl_module_init_on
 * ran (inst->s is full). */
Obj *tl_module_base_method(Interp *I, const char *full, const char *name, Obj *inst, CallArgs *a)
{
    const NnModule *row = strncmp(full, "torch.nn.", 9) == 0 ? nn_find(full + 9) : NULL;
    if (streq(name, "_conv_forward") && row && row->forward == nn_conv)
        return nn_conv_hook(I, row, inst, a);
    return torchlib_call_module(I, inst, a);
}

/* A module's result that shares a buffer with its input is one tngc
 * cannot tell a view from a copy of (views.c): writes into it refused. */
Obj *torchlib_call_module(Interp *I, Obj *inst, CallArgs *a)
{
    if (inst && inst->s && tl_cx_any(NULL, a))   /* refused with the module's name */
        return tl_cx_call(I, inst->s, NULL, a);
    Obj *r = call_module(I, inst, a);
    views_after_call(I, "", a->pos, a->npos, r, a->node);
    return r;
}

static Obj *call_module(Interp *I, Obj *inst, CallArgs *a)
{
    if (!inst || inst->kind != O_INST || !inst->s)
        return interp_break(I, a->node, RULE_TNG202, "call of a module tngc cannot resolve");
    const char *cls = strncmp(inst->s, "torch.nn.", 9) == 0 ? inst->s + 9 : inst->s;
    const NnModule *row = nn_find(cls);
    int32_t node = a->node;
    if (!row && cls != inst->s && nn_unsupported_class(cls))
        return interp_break(I, node, RULE_TNG203, "torch.nn.%s is not supported: tngc has no lowering for "
                            "this nn module", cls);
    if (row && (row->flags & NN_ARGS))
        return row->forward(I, row, inst, a, NULL, -1);
    Obj *x = args_get(a, 0, "input");
    if (!x)
        return interp_break(I, node, RULE_TNG203, "torch.nn.%s called without an input", cls);
    if (obj_has_unknown(x) || a->has_star)
        return unk(I);
    if (row && (row->flags & NN_IDENTITY))
        return x;
    int32_t v = tl_tv(I, x, node);
    if (v < 0) {
        if (!is_tensor(x))
            return interp_break(I, node, RULE_TNG203, "torch.nn.%s called on something that is not a tensor", cls);
        return unk(I);
    }
    if (!row)
        return interp_break(I, node, RULE_TNG202, "call of %s, which tngc cannot lower", inst->s);
    return row->forward(I, row, inst, a, x, v);
}

/* ---- script subclasses of torch.nn classes ------------------------------------ */

/*
 * Script subclasses of torch.nn module classes (`class LayerNorm(nn.LayerNorm)`): the
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
