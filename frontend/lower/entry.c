/*
 * entry.c - TorchAir and torch entry points, and the compiled entries.
 *
 * Host code meets TorchAir through a few calls: torch.compile and
 * cache_compile make compiled entries, CompilerConfig and get_npu_backend
 * make config objects (whose fields follow TorchAir's schema), the scope
 * functions make context managers, and npu_wait_tensor, set_dim_gears and
 * mark_static annotate tensors. Which call is which comes from the one
 * table of TorchAir's names (alias_torchair_api, frontend/python/alias.c).
 *
 * When host code calls a compiled entry the first time, its method is
 * traced: the tensor leaves of the arguments become the entry graph's
 * inputs (with symbols per the gear and dynamic rules), the evaluator runs
 * the method in trace mode (interp_call), and what it returns becomes the
 * outputs; host tensors updated in place get their final values. Later
 * calls are checked against the plan (their shapes must be in a gear,
 * their Python scalars unchanged) and return host tensors of the output
 * shapes.
 */
#include "entry.h"
#include "imports.h"
#include "torchair_schema.h"
#include "../diag/gear_rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A CompilerConfig's fields as the script set them. */
typedef struct ConfigFieldObj {
    const char *path;
    Obj *value;
    int32_t node;
    struct ImpModule *mod; /* the module node is in (imports.h) */
} ConfigFieldObj;

struct ConfigObj {
    VEC(ConfigFieldObj) fields;
    int32_t node;
};

/* ===================================================================== */
/* Config objects                                                        */
/* ===================================================================== */

/* What a script reads and sets on a CompilerConfig follows TorchAir's
 * schema (data/torchair/, the newest commit): sections and option objects
 * are sub-objects, `cfg.x.value` reads option x as OptionValue.value does
 * and `cfg.x.value = v` sets x (the same setter, _option_base.py:42-48),
 * and a field never set has its TorchAir default. */

/* The schema row of path in the newest TorchAir, or NULL. */
static const TorchairField *config_schema(const char *path)
{
    for (size_t i = 0; i < torchair_nfields; i++)
        if ((torchair_fields[i].versions & 1u) && strcmp(torchair_fields[i].path, path) == 0)
            return &torchair_fields[i];
    return NULL;
}

/* An OptionValue (or a subclass): an object with a .value. */
static int config_is_option(const TorchairField *f)
{
    return f && f->kind != TK_SECTION && f->kind != TK_PLAIN && f->kind != TK_PROPERTY && f->kind != TK_NPUGRAPHEX;
}

static Obj *config_literal(Interp *I, const TorchairLit *t)
{
    switch (t->kind) {
    case TL_BOOL: return obj_bool(I, (int)t->i);
    case TL_INT: return obj_int(I, t->i);
    case TL_STR: return obj_str(I, t->s);
    case TL_NONE: break;
    }
    return obj_none(I);
}

/* The value of field path: its last assignment, else TorchAir's default;
 * NULL for a path the schema does not have and no assignment sets. */
static Obj *config_field(Interp *I, ConfigObj *cfg, const char *path)
{
    for (size_t i = cfg->fields.n; i-- > 0;)
        if (strcmp(cfg->fields.v[i].path, path) == 0)
            return cfg->fields.v[i].value;
    const TorchairField *f = config_schema(path);
    return f && f->kind != TK_SECTION ? config_literal(I, &f->dflt) : NULL;
}

/* OptionValue.value: None, "1" for True, "0" for False, else str(v);
 * IntListValue, DictOptionValue and CallableValue return v itself. */
static Obj *config_option_value(Interp *I, const TorchairField *f, Obj *v)
{
    if (!v || f->kind == TK_INT_LIST || f->kind == TK_DICT || f->kind == TK_CALLABLE)
        return v ? v : obj_unknown(I, NULL);
    switch (v->kind) {
    case O_NONE: case O_STR: return v;
    case O_BOOL: return obj_str(I, v->i ? "1" : "0");
    case O_INT: return obj_str(I, interp_printf(I, "%lld", (long long)v->i));
    default: return obj_unknown(I, NULL);
    }
}

static Obj *config_sub(Interp *I, ConfigObj *cfg, const char *path)
{
    Obj *sub = obj_new(I, O_CONFIG);
    sub->cfg = cfg;
    sub->s = path;
    return sub;
}

/* cfg.<prefix>.name */
Obj *entry_config_get(Interp *I, Obj *c, const char *name)
{
    const char *path = c->s && *c->s ? interp_printf(I, "%s.%s", c->s, name) :
                       interp_strndup(I, name, strlen(name));
    const TorchairField *owner = c->s && *c->s ? config_schema(c->s) : NULL;
    if (config_is_option(owner) && strcmp(name, "value") == 0)
        return config_option_value(I, owner, config_field(I, c->cfg, c->s));
    const TorchairField *f = config_schema(path);
    if (f && (f->kind == TK_SECTION || config_is_option(f)))
        return config_sub(I, c->cfg, path);
    Obj *v = config_field(I, c->cfg, path);
    /* unknown fields are lint's TNG164; reading one gives a sub-object */
    return v ? v : config_sub(I, c->cfg, path);
}

/* cfg.<prefix>.name = val; `x.value = v` is recorded as `x = v`. */
void entry_config_set(Interp *I, Obj *c, const char *name, Obj *val, int32_t node)
{
    ConfigFieldObj f;
    if (c->s && *c->s && strcmp(name, "value") == 0 && config_is_option(config_schema(c->s)))
        f.path = c->s;
    else
        f.path = c->s && *c->s ? interp_printf(I, "%s.%s", c->s, name) : interp_strndup(I, name, strlen(name));
    f.value = val;
    f.node = node;
    f.mod = I->mod;
    VEC_PUSH(c->cfg->fields, f);
}

/* A config field set to a value tngc cannot evaluate changes the rules the
 * plan follows (mode, static kernels, gear policy): TNG205 at the
 * assignment rather than a silent default. */
static void config_unknowns(Interp *I, ConfigObj *cfg)
{
    for (size_t i = 0; i < cfg->fields.n; i++) {
        ConfigFieldObj *f = &cfg->fields.v[i];
        if (f->value->kind == O_UNKNOWN && !obj_is_reported(f->value)) {
            ImpSaved s;
            int switched = imports_enter(I, f->mod, &s);   /* set in another module */
            interp_diag(I, f->node, RULE_TNG205, "the value of config field '%s' is not known at "
                        "compile time: tngc would plan with the wrong options", f->path);
            if (switched)
                imports_leave(I, &s);
            obj_mark_reported(I, f->value);
        }
    }
}

/* The entry's options from its compile call and config. */
static EntryConfig entry_config(Interp *I, CompiledObj *c)
{
    EntryConfig e = {0};
    e.mode = "max-autotune";
    e.dynamic = c->dynamic;
    e.fullgraph = c->fullgraph;
    e.is_cache = c->is_cache;
    e.cache_dir = c->cache_dir;
    e.policy = GEAR_ZIP;
    if (!c->cfg)
        return e;
    config_unknowns(I, c->cfg);
    Obj *o = config_field(I, c->cfg, "mode");
    if (o && o->kind == O_STR)
        e.mode = o->s;
    o = config_field(I, c->cfg, "experimental_config.aclgraph._aclnn_static_shape_kernel");
    e.static_kernel = o && (o->kind == O_BOOL || o->kind == O_INT) && o->i != 0;
    o = config_field(I, c->cfg, "experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir");
    e.build_dir = o && o->kind == O_STR ? o->s : NULL;
    o = config_field(I, c->cfg, "ge_config.enable_single_stream");
    e.single_stream = o && (o->kind == O_BOOL || o->kind == O_INT) && o->i != 0;
    o = config_field(I, c->cfg, "inference_config.dynamic_gears_merge_policy");
    int product;
    GearVerdict gv;   /* another name is zip here; lint reports it (TNG130) */
    gear_policy_parse(o && o->kind == O_STR ? o->s : NULL, o && o->kind == O_STR ? strlen(o->s) : 0, &product, &gv);
    e.policy = product ? GEAR_PRODUCT : GEAR_ZIP;
    return e;
}

/* ===================================================================== */
/* TorchAir and torch entry points                                       */
/* ===================================================================== */

static Obj *make_scope(Interp *I, const char *kind, CallArgs *a)
{
    Obj *s = obj_new(I, O_SCOPE);
    s->s = kind;
    s->node = a->node;
    Obj *x = strcmp(kind, "stream") == 0 ? args_get(a, 0, "stream_tag") : args_get(a, 0, "scope");
    Obj *y = strcmp(kind, "stream") == 0 ? args_get(a, 1, "stream_priority") : args_get(a, 1, "options");
    obj_push(I, s, x ? x : obj_none(I));
    obj_push(I, s, y ? y : obj_none(I));
    return s;
}

static int tri_arg(Interp *I, Obj *o, int32_t node)
{
    if (!o)
        return -1;
    if (o->kind == O_UNKNOWN && !obj_is_reported(o)) {
        interp_diag(I, node, RULE_TNG205,
                    "a torch.compile flag (dynamic=, fullgraph=) is not known at compile time");
        obj_mark_reported(I, o);
    }
    int t = obj_truth(I, o);
    return o->kind == O_NONE ? -1 : t;
}

/* A new compiled entry (a copy of `from`'s options when not NULL) made at
 * node, with its target; every one is listed in I->compiled. */
Obj *entry_compiled_new(Interp *I, const CompiledObj *from, Obj *target, int32_t node)
{
    Obj *o = obj_new(I, O_COMPILED);
    CompiledObj *c = interp_alloc(I, sizeof *c);
    if (from)
        *c = *from;
    c->target = target;
    c->node = from ? from->node : node;
    c->mod = from ? from->mod : I->mod;
    o->comp = c;
    o->node = node;
    VEC_PUSH(I->compiled, c);
    return o;
}

Obj *entry_torch_compile(Interp *I, CallArgs *a)
{
    Obj *model = args_get(a, 0, "model");
    if (model && model->kind == O_METHOD && obj_is_torch_module(model->self_obj) &&
        (!strcmp(model->s, "forward") || !strcmp(model->s, "__call__")))
        model = model->self_obj;   /* torch.compile(seq.forward): the module's forward */
    Obj *o = entry_compiled_new(I, NULL, model && model->kind != O_NONE ? model : NULL, a->node);
    CompiledObj *c = o->comp;
    c->dynamic = tri_arg(I, args_kw(a, "dynamic"), a->node);
    c->fullgraph = tri_arg(I, args_kw(a, "fullgraph"), a->node);
    Obj *backend = args_kw(a, "backend");
    c->cfg = backend && backend->kind == O_BACKEND ? backend->cfg : NULL;
    return o;
}

static Obj *do_cache_compile(Interp *I, CallArgs *a)
{
    Obj *o = entry_compiled_new(I, NULL, args_get(a, 0, "func"), a->node);
    CompiledObj *c = o->comp;
    c->is_cache = 1;
    c->dynamic = tri_arg(I, args_kw(a, "dynamic"), a->node);
    if (c->dynamic < 0)
        c->dynamic = 1;        /* cache_compile's default */
    c->fullgraph = 1;
    Obj *cfg = args_kw(a, "config");
    c->cfg = cfg && cfg->kind == O_CONFIG ? cfg->cfg : NULL;
    Obj *dir = args_kw(a, "cache_dir");
    c->cache_dir = dir && dir->kind == O_STR ? dir->s : NULL;
    return o;
}

/* npu_wait_tensor(a, b): later users of a wait for b's producer. */
static Obj *do_wait_tensor(Interp *I, CallArgs *a)
{
    Obj *x = args_get(a, 0, "self"), *y = args_get(a, 1, "dependency");
    if (!x || !y || x->kind != O_TENSOR || y->kind != O_TENSOR)
        return x ? x : obj_unknown(I, NULL);
    if (!I->tracing)
        return x;
    x = interp_trace_in(I, x, a->node);
    y = interp_trace_in(I, y, a->node);
    if (x->kind != O_TENSOR || y->kind != O_TENSOR)
        return x;
    WaitEdge w = {x->t->value, y->t->value};
    VEC_PUSH(I->waits, w);
    return x;
}

/* torchair.get_npu_backend(compiler_config=None) */
static Obj *entry__backend(Interp *I, CallArgs *a)
{
    Obj *o = obj_new(I, O_BACKEND);
    Obj *cfg = args_get(a, 0, "compiler_config");
    o->cfg = cfg && cfg->kind == O_CONFIG ? cfg->cfg : NULL;
    return o;
}

/* torchair.CompilerConfig() */
static Obj *entry__config(Interp *I, CallArgs *a)
{
    Obj *o = obj_new(I, O_CONFIG);
    o->cfg = interp_alloc(I, sizeof *o->cfg);
    o->cfg->node = a->node;
    VEC_PUSH(I->configs, o->cfg);
    o->s = "";
    return o;
}

/* torchair.scope.npu_stream_switch(stream_tag, stream_priority=0) */
static Obj *entry__stream(Interp *I, CallArgs *a)
{
    return make_scope(I, "stream", a);
}

/* torchair.scope.super_kernel(scope, options='') */
static Obj *entry__super_kernel(Interp *I, CallArgs *a)
{
    return make_scope(I, "super_kernel", a);
}

/* torchair.scope.limit_core_num(...), torch.no_grad(),
 * contextlib.nullcontext() and the like: no effect on the plan */
static Obj *entry__null_scope(Interp *I, CallArgs *a)
{
    (void)a;
    Obj *s = obj_new(I, O_SCOPE);
    s->s = "null";
    return s;
}

/* The Python type of o, as a message names it. */
static const char *entry__kind_name(const Obj *o)
{
    switch (o->kind) {
    case O_NONE: return "None";
    case O_BOOL: return "bool";
    case O_INT: case O_DIM: return "int";
    case O_FLOAT: return "float";
    case O_STR: return "str";
    case O_TUPLE: return "tuple";
    case O_LIST: return "list";
    case O_DICT: return "dict";
    case O_SET: return "set";
    case O_TENSOR: return "tensor";
    default: return "value of another type";
    }
}

/* torchair.inference.set_dim_gears(t, dim_gears) on a host tensor. An
 * argument tngc cannot evaluate is an error at the call: dropping it would
 * plan the tensor's dims as static without a word. */
static Obj *entry__set_dim_gears(Interp *I, CallArgs *a)
{
    Obj *t = args_get(a, 0, "t"), *d = args_get(a, 1, "dim_gears");
    GearVerdict gv;
    if (I->tracing)
        return obj_none(I);
    if (!t || !d) {   /* TorchAir raises TypeError: a required argument is missing */
        interp_diag(I, a->node, RULE_TNG205, "set_dim_gears is called without its %s argument: tngc cannot give "
                    "the tensor its gears", !t ? "tensor (t)" : "dim_gears");
    } else if (t->kind == O_UNKNOWN || d->kind == O_UNKNOWN) {
        const Obj *u = t->kind == O_UNKNOWN ? t : d;
        if (!obj_is_reported(u))
            interp_diag(I, a->node, RULE_TNG205, "the %s of set_dim_gears is not known at compile time%s%s: "
                        "tngc cannot give the tensor its gears", u == t ? "tensor" : "dim_gears",
                        u && u->s ? ": " : "", u && u->s ? u->s : "");
    } else if (t->kind != O_TENSOR) {
        interp_diag(I, a->node, RULE_TNG205, "set_dim_gears is given a %s, not a tensor: tngc cannot give it gears",
                    entry__kind_name(t));
    } else if (gear_rule_dict(d->kind == O_DICT, entry__kind_name(d), &gv)) {
        interp_diag(I, a->node, gv.rule, "%s", gv.msg);
    } else {
        t->t->gears = d;
        t->t->gears_node = a->node;
        t->t->gears_mod = I->mod;
    }
    return obj_none(I);
}

/* torch._dynamo.mark_static(t, index=None) on a host tensor */
static Obj *entry__mark_static(Interp *I, CallArgs *a)
{
    Obj *t = args_get(a, 0, "t");
    Obj *index = args_get(a, 1, "index");
    int64_t d;
    if (t && t->kind == O_TENSOR && !I->tracing) {
        if (index && obj_int_value(index, &d) && d >= 0 && d < 31)
            t->t->marked_static |= 1 << d;   /* mark_static(t, index): that dim */
        else if (!index || index->kind == O_NONE)
            t->t->marked_static = -1;         /* every dim */
    }
    return obj_none(I);
}

/* What each TorchAir entry point does here; NULL: not modelled (the
 * evaluator reports the call). */
static Obj *(*const entry_apis[TA__COUNT])(Interp *I, CallArgs *a) = {
    [TA_SUPER_KERNEL] = entry__super_kernel,
    [TA_NPU_STREAM_SWITCH] = entry__stream,
    [TA_NPU_WAIT_TENSOR] = do_wait_tensor,
    [TA_LIMIT_CORE_NUM] = entry__null_scope,
    [TA_OP_NEVER_TIMEOUT] = NULL,
    [TA_SET_DIM_GEARS] = entry__set_dim_gears,
    [TA_MARK_STATIC] = entry__mark_static,
    [TA_CACHE_COMPILE] = do_cache_compile,
    [TA_COMPILER_CONFIG] = entry__config,
    [TA_GET_NPU_BACKEND] = entry__backend,
    [TA_TORCH_COMPILE] = entry_torch_compile,
};

Obj *entry_call(Interp *I, const char *name, CallArgs *a)
{
    /* contextlib.nullcontext(): the disabled branch of the serving code's
     * stream and super-kernel wrappers (`scope(...) if enabled else
     * nullcontext()`) */
    static const char *const null_scopes[] = {"torch.no_grad", "torch.inference_mode", "torch.enable_grad",
                                              "contextlib.nullcontext"};
    int api = alias_torchair_api(name, ALIAS_LOWER);
    if (api >= 0)
        return entry_apis[api] ? entry_apis[api](I, a) : NULL;
    for (size_t i = 0; i < sizeof null_scopes / sizeof *null_scopes; i++)
        if (strcmp(name, null_scopes[i]) == 0)
            return entry__null_scope(I, a);
    return NULL;
}

/* A method decorated with @torch.compile, read through an instance: one
 * compiled entry per instance, bound to it. */
Obj *entry_bind_compiled(Interp *I, Obj *inst, const char *name, Obj *fa)
{
    const char *key = interp_printf(I, "\x01%s", name);
    Obj *memo = obj_getattr(inst, key);
    if (memo)
        return memo;
    Obj *b = obj_new(I, O_BOUND);
    b->func = fa->comp->target->func;
    b->self_obj = inst;
    memo = entry_compiled_new(I, fa->comp, b, fa->node);
    fa->comp->skipped = 1;   /* the unbound one is not an entry of its own */
    obj_setattr(I, inst, key, memo);
    return memo;
}

int entry_is_unbound_compiled(const Obj *o)
{
    return o && o->kind == O_COMPILED && o->comp->target && o->comp->target->kind == O_FUNC &&
           o->comp->target->func->cls;
}

/* Enters a with-item's scope; returns what to restore. */
void entry_scope_enter(Interp *I, Obj *s, int32_t node)
{
    if (!I->tracing || s->kind != O_SCOPE || strcmp(s->s, "null") == 0)
        return;
    Obj *x = s->items[0], *y = s->items[1];
    uint32_t line = N(I, node)->line, col = ast_col(I->ast, node);
    if (strcmp(s->s, "stream") == 0) {
        if (x->kind == O_STR) {
            int64_t prio = 0;
            obj_int_value(y, &prio);
            I->stream = graph_stream(I->g, x->s, prio, line, col);
        } else if (!(x->kind == O_UNKNOWN && obj_is_reported(x))) {
            interp_break(I, node, RULE_TNG205, "the stream tag is not a string known at compile time%s",
                         interp_unknown_origin(I, x, node));
            if (x->kind == O_UNKNOWN)
                obj_mark_reported(I, x);
        }
    } else {
        if (x->kind == O_NONE || obj_is_str(x, ""))
            I->sk = -1;
        else if (x->kind == O_STR)
            I->sk = graph_sk(I->g, x->s, y->kind == O_STR ? y->s : "", line, col);
        else if (!(x->kind == O_UNKNOWN && obj_is_reported(x)))
            interp_break(I, node, RULE_TNG205, "the super-kernel scope name is not known at compile time%s",
                         interp_unknown_origin(I, x, node));
        if (x->kind == O_UNKNOWN)
            obj_mark_reported(I, x);
    }
}

/* ===================================================================== */
/* Compiled entries                                                      */
/* ===================================================================== */

/* Notes name as another state_dict key of the tensor of key (a tied
 * parameter or persistent buffer, named first elsewhere). */
static void weight_alias_note(Interp *I, const TensorObj *t, const char *key, const char *name)
{
    if (!t->is_param && (!t->is_buffer || t->nonpersistent))
        return;
    WeightAlias a = {key, name};
    VEC_PUSH(I->weight_aliases, a);
}

/* state_dict keys of the parameters and buffers reachable from mod */
static void weight_names_collect(Interp *I, Obj *mod, const char *prefix, int depth)
{
    if (!mod || mod->kind != O_INST || depth > 32)
        return;
    for (size_t i = 0; i < mod->attrs.n; i++) {
        Obj *v = mod->attrs.vals[i];
        const char *name = interp_printf(I, "%s%s", prefix, mod->attrs.names[i]);
        if (v->kind == O_TENSOR) {
            const char *key = interp_ptr_key(I, v->t);
            if (!strmap_get(&I->weight_names, key))
                strmap_put(&I->weight_names, key, (void *)name);
            else
                weight_alias_note(I, v->t, key, name);
            if (v->t->g == &I->host && (v->t->is_param || (v->t->is_buffer && !v->t->nonpersistent))) {
                VEC_PUSH(I->weight_vals, v->t->value);   /* not a constant (interp_trace_in) */
                VEC_PUSH(I->state_keys, name);
            }
        } else if (v->kind == O_INST) {
            weight_names_collect(I, v, interp_printf(I, "%s.", name), depth + 1);
        }
    }
    /* ModuleList / Sequential items: "0.", "1.", ... (nested ones too); an
     * item that is also a named attribute (Sequential.add_module) has its
     * key from the attribute only. A script subclass of one has them once
     * the library constructor ran (s set). */
    if (!mod->cls || mod->s)
        for (size_t k = 0; k < mod->n; k++) {
            Obj *v = mod->items[k];
            int named = 0;
            for (size_t i = 0; i < mod->attrs.n && !named; i++)
                named = mod->attrs.vals[i] == v;
            if (named)
                continue;
            if (v->kind == O_TENSOR) {   /* nn.ParameterList: "<prefix><k>" */
                const char *key = interp_ptr_key(I, v->t);
                const char *name = interp_printf(I, "%s%zu", prefix, k);
                if (!strmap_get(&I->weight_names, key))
                    strmap_put(&I->weight_names, key, (void *)name);
                else
                    weight_alias_note(I, v->t, key, name);
                if (v->t->g == &I->host && (v->t->is_param || (v->t->is_buffer && !v->t->nonpersistent))) {
                    VEC_PUSH(I->weight_vals, v->t->value);
                    VEC_PUSH(I->state_keys, name);
                }
            } else {
                weight_names_collect(I, v, interp_printf(I, "%s%zu.", prefix, k), depth + 1);
            }
        }
}

/* The attribute path from mod to owner ("", "a.", "layers.0."), or NULL:
 * the prefixes weight_names_collect gives. */
static const char *entry__path_to(Interp *I, Obj *mod, const Obj *owner, const char *prefix, int depth)
{
    if (mod == owner)
        return prefix;
    if (!mod || mod->kind != O_INST || depth > 32)
        return NULL;
    for (size_t i = 0; i < mod->attrs.n; i++) {
        Obj *v = mod->attrs.vals[i];
        const char *p = v->kind == O_INST
            ? entry__path_to(I, v, owner, interp_printf(I, "%s%s.", prefix, mod->attrs.names[i]), depth + 1) : NULL;
        if (p)
            return p;
    }
    if (!mod->cls || mod->s)
        for (size_t k = 0; k < mod->n; k++) {
            const char *p = entry__path_to(I, mod->items[k], owner, interp_printf(I, "%s%zu.", prefix, k), depth + 1);
            if (p)
                return p;
        }
    return NULL;
}

void entry_attr_created(Interp *I, Obj *owner, const char *attr)
{
    Obj *v = obj_getattr(owner, attr);
    const char *path = I->tracing && v && v->kind == O_TENSOR ? entry__path_to(I, I->trace_self, owner, "", 0) : NULL;
    const char *key = path ? interp_ptr_key(I, v->t) : NULL;
    if (key && !strmap_get(&I->weight_names, key))
        strmap_put(&I->weight_names, key, (void *)interp_printf(I, "%s%s", path, attr));
}

/* The state_dict keys of the compiled module that no weight of g reads
 * (by its name or a tied key) become g's unread keys: a weights file made
 * by state_dict() holds them, and the bundle neither loads them nor calls
 * them unused (BatchNorm's num_batches_tracked, an uncalled submodule). */
static void unread_keys_note(Interp *I, Graph *g)
{
    StrMap known = {0};
    for (size_t i = 0; i < g->weights.n; i++)
        if (g->weights.v[i].name)
            strmap_put(&known, g->weights.v[i].name, (void *)1);
    for (size_t i = 0; i < g->weight_aliases.n; i++)
        strmap_put(&known, g->weight_aliases.v[i].name, (void *)1);
    for (size_t i = 0; i < I->state_keys.n; i++) {
        const char *k = I->state_keys.v[i];
        if (strmap_get(&known, k))
            continue;
        strmap_put(&known, k, (void *)1);
        graph_add_unread_key(g, k);
    }
    strmap_free(&known);
}

typedef struct Leaf {
    Obj *t;
    const char *path;
} Leaf;
typedef VEC(Leaf) LeafList;

/* The tensor leaves of an argument, with their paths: x, kv[0]['key'] */
static const char *py_repr_str(Interp *I, const char *s);

static void collect_leaves(Interp *I, Obj *o, const char *path, LeafList *out, int depth)
{
    if (!o || depth > 16 || out->n > 4096)
        return;
    if (o->kind == O_TENSOR) {
        Leaf l = {o, path};
        VEC_PUSH(*out, l);
    } else if (o->kind == O_TUPLE || o->kind == O_LIST) {
        for (size_t i = 0; i < o->n; i++)
            collect_leaves(I, o->items[i], interp_printf(I, "%s[%zu]", path, i), out, depth + 1);
    } else if (o->kind == O_DICT) {
        for (size_t i = 0; i + 1 < o->n; i += 2) {
            Obj *k = o->items[i];
            const char *ks = k->kind == O_STR ? py_repr_str(I, k->s) :
                             k->kind == O_INT ? interp_printf(I, "%lld", (long long)k->i) : "?";
            collect_leaves(I, o->items[i + 1], interp_printf(I, "%s[%s]", path, ks), out, depth + 1);
        }
    }
}

/* s as Python's repr() writes it ('a', "it's", 'k\\n'), so that input names
 * are unambiguous and match what PyTorch-side tools print. */
static const char *py_repr_str(Interp *I, const char *s)
{
    char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
    StrBuf b = {0};
    sb_putc(&b, q);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '\\' || *c == (unsigned char)q)
            sb_printf(&b, "\\%c", *c);
        else if (*c == '\n')
            sb_puts(&b, "\\n");
        else if (*c == '\t')
            sb_puts(&b, "\\t");
        else if (*c == '\r')
            sb_puts(&b, "\\r");
        else if (*c < 32 || *c == 127)
            sb_printf(&b, "\\x%02x", *c);
        else
            sb_putc(&b, (char)*c);
    }
    sb_putc(&b, q);
    const char *r = interp_strndup(I, b.s, b.len);
    sb_free(&b);
    return r;
}

/* The method a compiled object runs, its self and its entry name. */
static InterpFunc *entry_method(Interp *I, CompiledObj *c, Obj **self, const char **name)
{
    Obj *t = c->target;
    *self = NULL;
    if (!t)
        return NULL;
    if (t->kind == O_INST && t->cls) {
        InterpFunc *fn = obj_class_method(t->cls, "forward", NULL);
        *self = t;
        *name = interp_printf(I, "%s.forward", t->cls->name);
        return fn;
    }
    if (t->kind == O_BOUND) {
        *self = t->self_obj;
        *name = t->func->qualname;
        return t->func;
    }
    if (t->kind == O_FUNC) {
        *name = t->func->qualname;
        return t->func;
    }
    return NULL;
}

/* The parameter names of fn after self, for naming inputs. */
static const char *param_at_in(Interp *I, InterpFunc *fn, size_t pos, int has_self);
static const char *param_at(Interp *I, InterpFunc *fn, size_t pos, int has_self)
{
    ImpSaved s;
    int switched = imports_enter(I, fn->mod, &s);   /* fn's module's syntax tree */
    const char *name = param_at_in(I, fn, pos, has_self);
    if (switched)
        imports_leave(I, &s);
    return name;
}

/* param_at in fn's module */
static const char *param_at_in(Interp *I, InterpFunc *fn, size_t pos, int has_self)
{
    int32_t ps = obj_func_params(I, fn->node);
    size_t i = 0;
    if (ps < 0)
        return NULL;
    FOR_CHILDREN(I, ps, p) {
        int kind;
        const char *name = obj_param_name(I, p, &kind);
        if (kind != 0)
            break;
        if (i == pos + (size_t)(has_self != 0))
            return name;
        i++;
    }
    return NULL;
}

/* A set_dim_gears entry that cannot be known at compile time: TNG205. */
static int gears__unknown(GearVerdict *v, const char *fmt, ...)
{
    va_list ap;
    v->rule = RULE_TNG205;
    v->severity = SEV_ERROR;
    va_start(ap, fmt);
    vsnprintf(v->msg, sizeof v->msg, fmt, ap);
    va_end(ap);
    return 1;
}

/* Whether the set_dim_gears entry dim -> vals of a tensor of rank ndim
 * cannot be used (1, the verdict in *v) or can (0); input names the
 * tensor. Lint reports the literal ones; these are the values the script
 * computes, checked by gear_rules.h as sizes tngc plans. */
static int gears__invalid(Interp *I, const Obj *dim, const Obj *vals, int ndim, const char *input,
                          GearVerdict *v)
{
    int64_t d, x;
    if (is_unknown(dim))
        return gears__unknown(v, "a gear dim is not known at compile time: tngc cannot plan these gears");
    if (is_unknown(vals))
        return gears__unknown(v, "a dim's gear values are not known at compile time%s%s%s: "
                              "tngc cannot plan these gears", vals->s ? " (" : "", vals->s ? vals->s : "",
                              vals->s ? ")" : "");
    if (gear_rule_dim_type(obj_int_value(dim, &d), entry__kind_name(dim), v) || gear_rule_dim(d, ndim, v))
        return 1;
    const char *where = interp_printf(I, "dim %lld of %s", (long long)d, input);
    if (gear_rule_values_type(vals->kind == O_LIST || vals->kind == O_TUPLE, entry__kind_name(vals), where, v) ||
        gear_rule_count(vals->n, where, v))
        return 1;
    for (size_t k = 0; k < vals->n; k++) {
        if (is_unknown(vals->items[k]))
            return gears__unknown(v, "a gear value of dim %lld is not known at compile time: "
                                  "tngc cannot plan these gears", (long long)d);
        int is_int = obj_int_value(vals->items[k], &x);
        if (gear_rule_value(is_int, entry__kind_name(vals->items[k]), is_int ? x : 0, GRAPH_MAX_BYTES, where, v))
            return 1;
    }
    return 0;
}

/* Gear specs of an input from its set_dim_gears dict. An entry tngc cannot
 * use is an error at the set_dim_gears call (the plan would be static in
 * that dim without a word). */
static void gears_of(Interp *I, Graph *g, int input, TensorObj *t, int ndim, LeafList *leaves)
{
    Obj *d = t->gears;
    for (size_t i = 0; i + 1 < d->n; i += 2) {
        int64_t dim;
        Obj *vals = d->items[i + 1];
        GearVerdict gv;
        int invalid = gears__invalid(I, d->items[i], vals, ndim, leaves->v[input].path, &gv);
        ImpSaved in;
        int switched = imports_enter(I, t->gears_mod, &in);   /* set in another module */
        if (invalid) {
            interp_diag(I, t->gears_node, gv.rule, "%s", gv.msg);
            if (switched)
                imports_leave(I, &in);
            continue;
        }
        obj_int_value(d->items[i], &dim);
        GearSpec s = {0};
        s.input = input;
        s.dim = (int)dim;
        s.values = arena_alloc(&g->arena, vals->n * sizeof *s.values);
        for (size_t k = 0; k < vals->n; k++)
            obj_int_value(vals->items[k], &s.values[k]);
        s.nvalues = vals->n;
        s.sym = -1;
        s.line = N(I, t->gears_node)->line;
        s.col = ast_col(I->ast, t->gears_node);
        if (switched)
            imports_leave(I, &in);
        VEC_PUSH(g->gears, s);
    }
}

/* Under zip, an earlier gear list equal to spec k's gives the same symbol
 * in every gear: its symbol index, else -1. */
static int zip_twin(const Graph *g, size_t k)
{
    if (g->cfg.policy != GEAR_ZIP)
        return -1;
    const GearSpec *s = &g->gears.v[k];
    for (size_t j = 0; j < k; j++) {
        const GearSpec *t = &g->gears.v[j];
        if (t->sym >= 0 && t->nvalues == s->nvalues &&
            memcmp(t->values, s->values, s->nvalues * sizeof *s->values) == 0)
            return t->sym;
    }
    return -1;
}

/* The DimId of symbol number sym. */
static DimId gear_sym_dim(Graph *g, int sym)
{
    for (size_t d = 0; d < g->dims.n; d++)
        if (g->dims.v[d].kind == DIM_SYM && g->dims.v[d].c == sym)
            return (DimId)d;
    TNGC_BUG("symbol %d has no dim", sym);
}

/* Adds the inputs of the first call: symbols per the gear / dynamic rules. */
static void bind_inputs(Interp *I, Graph *g, LeafList *leaves, int dynamic, int32_t node)
{
    int geared = 0;
    for (size_t i = 0; i < leaves->n; i++)
        geared |= leaves->v[i].t->t->gears != NULL;
    uint32_t line = N(I, node)->line, col = ast_col(I->ast, node);
    StrMap duck = {0};   /* example size -> symbol (dynamic=True without gears) */
    for (size_t i = 0; i < leaves->n; i++) {
        TensorObj *ht = leaves->v[i].t->t;
        const Val *hv = &ht->g->vals.v[ht->value];
        int64_t ex[GRAPH_MAX_DIMS];
        DimId dims[GRAPH_MAX_DIMS];
        for (int d = 0; d < hv->ndim; d++)
            if (!graph_dim_const_value(ht->g, hv->dims[d], &ex[d]))
                ex[d] = 1;
        size_t first_gear = g->gears.n;
        if (geared && ht->gears)
            gears_of(I, g, (int)i, ht, hv->ndim, leaves);
        for (int d = 0; d < hv->ndim; d++) {
            DimId sym = -1;
            if (geared) {
                for (size_t k = first_gear; k < g->gears.n; k++)
                    if (g->gears.v[k].dim == d) {
                        int same = zip_twin(g, k);
                        if (same >= 0) {
                            /* zip with the same list: equal in every gear */
                            g->gears.v[k].sym = same;
                            sym = gear_sym_dim(g, same);
                        } else {
                            sym = graph_dim_sym(g, (int)i, d, ex[d]);
                            g->gears.v[k].sym = (int)g->syms.n - 1;
                        }
                    }
            } else if (dynamic == 1 && !(ht->marked_static & (1 << d)) && ex[d] >= 2) {
                char key[32];
                snprintf(key, sizeof key, "%lld", (long long)ex[d]);
                void *s = strmap_get(&duck, key);
                if (s) {
                    sym = (DimId)(intptr_t)s - 1;
                } else {
                    sym = graph_dim_sym(g, (int)i, d, ex[d]);
                    strmap_put(&duck, interp_strndup(I, key, strlen(key)), (void *)(intptr_t)(sym + 1));
                }
            }
            dims[d] = sym >= 0 ? sym : graph_dim_const(g, ex[d]);
        }
        int32_t v = graph_add_input(g, leaves->v[i].path, hv->dtype, hv->format, hv->ndim, dims, ex,
                                    ht->marked_static == -1 ||
                                        (hv->ndim > 0 && (ht->marked_static & ((1 << hv->ndim) - 1)) ==
                                                             (1 << hv->ndim) - 1),
                                    line, col);
        if (v < 0) {   /* an example or gear size past the size invariant */
            interp_diag(I, node, RULE_TNG206, "input '%s' of the compiled entry is larger than 2^48 bytes "
                        "(in a gear or as given), the most tngc plans for one tensor", leaves->v[i].path);
            Shadow sh = {ht, obj_unknown_reported(I), -1, -1, -1};
            VEC_PUSH(I->shadows, sh);
            continue;
        }
        views_input_layout(I, ht, v);
        Obj *o = obj_tensor(I, v);
        o->t->origin = ht;
        Shadow sh = {ht, o, v, (int)g->inputs.n - 1, -1};
        VEC_PUSH(I->shadows, sh);
    }
    strmap_free(&duck);
}

/* The entry-graph outputs of a return value, flattened. */
static void collect_outputs(Interp *I, Graph *g, Obj *r, int32_t node, int depth)
{
    if (!r || depth > 16)
        return;
    if (r->kind == O_UNKNOWN) {
        interp_need(I, r, node, "a value the compiled method returns");
        return;
    }
    if (r->kind == O_TENSOR && r->t->cplx) {
        interp_diag(I, node, RULE_TNG203, "a complex tensor as a result of the compiled method is not supported "
                    "(a bundle's outputs are real tensors): return torch.view_as_real of it");
        return;
    }
    if (r->kind == O_TENSOR) {
        int32_t v = interp_val(I, r, node);
        if (v >= 0 && interp_stale(I, v, node))
            return;   /* a returned view taken before an in-place write */
        if (v >= 0) {
            GraphOutput o = {arena_printf(&g->arena, "out%zu", g->outputs.n), v};
            VEC_PUSH(g->outputs, o);
        }
    } else if (r->kind == O_TUPLE || r->kind == O_LIST) {
        for (size_t i = 0; i < r->n; i++)
            collect_outputs(I, g, r->items[i], node, depth + 1);
    } else if (r->kind == O_DICT) {
        for (size_t i = 0; i + 1 < r->n; i += 2)
            collect_outputs(I, g, r->items[i + 1], node, depth + 1);
    }
}

/* 1 when key (n bytes) may name an output: 1..64 of [A-Za-z0-9_.-], not
 * starting with '.' (a file name of its own, a C string with nothing to
 * escape); a NUL byte in it is refused too. */
static int output_key_ok(const char *key, size_t n)
{
    if (n == 0 || n > 64 || key[0] == '.')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((key[i] >= 'a' && key[i] <= 'z') || (key[i] >= 'A' && key[i] <= 'Z') ||
              (key[i] >= '0' && key[i] <= '9') || key[i] == '_' || key[i] == '.' || key[i] == '-'))
            return 0;
    return 1;
}

/* One named output: value v of the returned dict, named tuple or
 * dataclass under key (None and non-tensors leave no output; a
 * container is refused, naming the key). */
static void collect_named(Interp *I, Graph *g, const char *what, const char *key, size_t len, Obj *v,
                          int32_t node, int32_t ret)
{
    if (!v || v->kind == O_NONE)
        return;
    if (!output_key_ok(key, len)) {
        char shown[72];
        size_t k = 0;
        for (size_t i = 0; i < len && k < 64; i++)   /* printable ASCII shown, the rest as '?' */
            shown[k++] = (key[i] >= 0x20 && key[i] < 0x7f && key[i] != '\'') ? key[i] : '?';
        shown[k] = '\0';
        interp_diag(I, ret, RULE_TNG203, "output key '%s%s' of the %s the compiled method returns: an output "
                    "name must be 1 to 64 of [A-Za-z0-9_.-], not starting with '.' (it names the output's .npy "
                    "file)", shown, len > 64 ? "..." : "", what);
        return;
    }
    if (v->kind == O_TUPLE || v->kind == O_LIST || v->kind == O_DICT || v->kind == O_INST) {
        interp_diag(I, ret, RULE_TNG203, "output '%s' of the %s the compiled method returns is %s: a named "
                    "output must be a tensor", key, what,
                    v->kind == O_TUPLE ? "a tuple" : v->kind == O_LIST ? "a list" : v->kind == O_DICT ? "a dict"
                                                                                                 : "an object");
        return;
    }
    if (v->kind == O_UNKNOWN) {
        interp_need(I, v, node, "a value the compiled method returns");
        return;
    }
    if (v->kind != O_TENSOR)
        return;
    if (v->t->cplx) {
        interp_diag(I, node, RULE_TNG203, "a complex tensor as a result of the compiled method is not supported "
                    "(a bundle's outputs are real tensors): return torch.view_as_real of it");
        return;
    }
    int32_t val = interp_val(I, v, node);
    if (val < 0 || interp_stale(I, val, node))
        return;
    for (size_t i = 0; i < g->outputs.n; i++)
        if (strcmp(g->outputs.v[i].name, key) == 0) {
            interp_diag(I, ret, RULE_TNG203, "output '%s' of the %s the compiled method returns is named twice",
                        key, what);
            return;
        }
    GraphOutput o = {arena_printf(&g->arena, "%s", key), val};
    VEC_PUSH(g->outputs, o);
}

/* The class of r when r is a dataclass instance of the script (its fields
 * name the outputs), else NULL. */
static const InterpClass *dataclass_of(const Obj *r)
{
    if (r->kind != O_INST || !r->cls)
        return NULL;
    const InterpClass *k = r->cls;
    for (int depth = 0; k && depth < 64; k = k->base, depth++)
        if (k->fields)
            return k;
    return NULL;
}

/* The entry-graph outputs of return value r: named by key when r is a
 * dict (string keys), a named tuple of the script or a dataclass instance;
 * otherwise flattened as out0, out1, ... Diagnostics at node (the call),
 * those about keys at ret (the return statement, else the call). */
static void collect_top_outputs(Interp *I, Graph *g, Obj *r, int32_t node, int32_t ret)
{
    const InterpClass *dc = r ? dataclass_of(r) : NULL;
    if (r && r->kind == O_DICT) {
        for (size_t i = 0; i + 1 < r->n; i += 2) {
            if (r->items[i]->kind != O_STR) {
                interp_diag(I, ret, RULE_TNG203, "key %zu of the dict the compiled method returns is not a "
                            "string (a string names the output)", i / 2);
                continue;
            }
            collect_named(I, g, "dict", r->items[i]->s, r->items[i]->len, r->items[i + 1], node, ret);
        }
    } else if (r && r->kind == O_TUPLE && r->cls && r->cls->namedtuple) {
        for (size_t i = 0; i < r->n && i < r->cls->nfields; i++)
            collect_named(I, g, "named tuple", r->cls->fields[i], strlen(r->cls->fields[i]), r->items[i], node,
                          ret);
    } else if (dc) {
        for (size_t i = 0; i < dc->nfields; i++)
            collect_named(I, g, "dataclass", dc->fields[i], strlen(dc->fields[i]), obj_getattr(r, dc->fields[i]),
                          node, ret);
    } else {
        collect_outputs(I, g, r, node, 0);
    }
}

/* Host tensors shaped like the entry's outputs, with symbols bound from
 * the call's leaves. */
static Obj *host_result(Interp *I, Graph *g, Obj *r, const int64_t *symval, int depth)
{
    if (!r || depth > 16)
        return obj_unknown(I, NULL);
    if (r->kind == O_TENSOR && r->t->g == g) {
        const Val *v = &g->vals.v[r->t->value];
        DimId dims[GRAPH_MAX_DIMS];
        int64_t x;
        for (int d = 0; d < v->ndim; d++) {
            if (graph_dim_eval(g, v->dims[d], symval, &x) < 0)
                return obj_unknown(I, NULL);
            dims[d] = graph_dim_const(&I->host, x);
        }
        int64_t attr[GRAPH_MAX_DIMS];
        for (int d = 0; d < v->ndim; d++)
            attr[d] = dims[d];
        OpDesc od = {0};
        od.kind = OP_FULL;
        od.attr = attr;
        od.nattr = v->ndim;
        od.dtype = v->dtype;
        Graph *saved = I->g;
        int tr = I->tracing;
        I->g = &I->host;
        I->tracing = 0;
        int32_t op = interp_op(I, &od, -1);
        Obj *o = op >= 0 ? obj_tensor(I, I->host.ops.v[op].out) : obj_unknown(I, NULL);
        interp_host_inexact(I, o);   /* a spec of the result: its data is the bundle's */
        I->g = saved;
        I->tracing = tr;
        return o;
    }
    if (r->kind == O_TUPLE && r->cls && r->cls->namedtuple && r->n == r->cls->nfields) {
        Obj **items = interp_alloc(I, (r->n + 1) * sizeof *items);
        for (size_t i = 0; i < r->n; i++)
            items[i] = host_result(I, g, r->items[i], symval, depth + 1);
        Obj *o = obj_named_tuple(I, items, r->cls->fields, r->n);
        o->cls = r->cls;
        return o;
    }
    if (r->kind == O_TUPLE || r->kind == O_LIST) {
        Obj *o = obj_seq(I, r->kind);
        for (size_t i = 0; i < r->n; i++)
            obj_push(I, o, host_result(I, g, r->items[i], symval, depth + 1));
        return o;
    }
    if (r->kind == O_DICT) {   /* {"logits": ...}: the keys kept, the values as host tensors */
        Obj *o = obj_seq(I, O_DICT);
        for (size_t i = 0; i + 1 < r->n; i += 2) {
            obj_push(I, o, r->items[i]);
            obj_push(I, o, host_result(I, g, r->items[i + 1], symval, depth + 1));
        }
        return o;
    }
    if (dataclass_of(r)) {   /* a dataclass result: a copy, its attributes as host values */
        Obj *o = obj_new(I, O_INST);
        o->cls = r->cls;
        o->node = r->node;
        for (size_t i = 0; i < r->attrs.n; i++)
            obj_setattr(I, o, r->attrs.names[i], host_result(I, g, r->attrs.vals[i], symval, depth + 1));
        return o;
    }
    if (r->kind == O_TENSOR)
        return obj_unknown(I, NULL);
    return r;
}

/* 1 when compiled target t is called through the library: a torch.nn
 * module, or an instance of a script subclass of a torch.nn class whose
 * class has no forward of its own (its base's). */
static int entry__module_target(const Obj *t)
{
    return obj_is_torch_module(t) || (t && t->kind == O_INST && t->cls && torchlib_nn_base(t->cls) &&
                                      !obj_class_method(t->cls, "forward", NULL));
}

/* Runs the method fn (bound to self when not NULL) through the evaluator. */
static Obj *entry__run(Interp *I, InterpFunc *fn, Obj *self, CallArgs *a)
{
    Obj callee;
    memset(&callee, 0, sizeof callee);
    callee.kind = self ? O_BOUND : O_FUNC;
    callee.func = fn;
    callee.self_obj = self;
    callee.node = -1;
    callee.dim = -1;
    return interp_call(I, &callee, a);
}

/* The trace of entry c with the arguments of its first call. */
static void trace_entry(Interp *I, CompiledObj *c, CallArgs *a, LeafList *leaves)
{
    Obj *self;
    const char *name = NULL;
    InterpFunc *fn = entry_method(I, c, &self, &name);
    int torch_module = !fn && entry__module_target(c->target);
    if (torch_module && c->target->cls) {
        self = c->target;   /* a script subclass of a torch.nn class: its base's forward */
    } else if (torch_module) {
        /* torch.compile(nn.Sequential(...)) and the like: the module's forward */
        const char *dot = strrchr(c->target->s, '.');
        self = c->target;
        name = interp_printf(I, "%s.forward", dot ? dot + 1 : c->target->s);
    } else if (!fn) {
        ImpSaved s;
        int switched = imports_enter(I, c->mod, &s);   /* compiled in another module */
        if (!c->target || c->target->kind == O_UNKNOWN)
            interp_diag(I, c->node, RULE_TNG208, "the compiled model is not known at compile time: "
                        "tngc could not evaluate the expression that made it");
        else
            interp_diag(I, c->node, RULE_TNG208, "the compiled object is not a module or a method of this script");
        if (switched)
            imports_leave(I, &s);
        return;
    }
    /* a second entry of that name (another instance of the class): #N, N
     * its place among the entries named so far, those --entry skips
     * included (so that --entry Block.forward#2 finds the same one) */
    size_t named = 0;
    int clash = 0;
    for (size_t i = 0; i < I->compiled.n; i++)
        if (I->compiled.v[i] != c && I->compiled.v[i]->name) {
            named++;
            clash |= strcmp(I->compiled.v[i]->name, name) == 0;
        }
    if (clash)
        name = interp_printf(I, "%s#%zu", name, named + 1);
    c->name = name;
    Graph *g = xcalloc(1, sizeof *g);
    ImpSaved at;
    int switched = imports_enter(I, c->mod, &at);   /* where the compile call is */
    graph_init(g, name, I->src ? I->src->path : I->sf->src.path);
    g->default_float = I->default_float;
    g->line = N(I, c->node)->line;
    g->col = ast_col(I->ast, c->node);
    if (switched)
        imports_leave(I, &at);
    g->cfg = entry_config(I, c);
    VEC_PUSH(I->entries, g);
    c->graph = g;

    /* trace state */
    Graph *saved_g = I->g;
    int saved_depth = I->depth;
    I->g = g;
    I->entry_graph_bytes = 0;
    I->tracing = 1;
    I->stream = 0;
    I->sk = -1;
    I->shadows.n = 0;
    I->waits.n = 0;
    views_trace_begin(I);
    rowsel_trace_begin(I);
    strmap_free(&I->weight_names);
    memset(&I->weight_names, 0, sizeof I->weight_names);
    I->weight_vals.n = 0;
    I->weight_aliases.n = 0;
    I->state_keys.n = 0;
    interp_consts_begin(I);
    weight_names_collect(I, self, "", 0);
    I->trace_self = self;
    bind_inputs(I, g, leaves, g->cfg.dynamic, a->node);

    I->ret_node = -1;
    Obj *ret = !torch_module ? entry__run(I, fn, self, a)
             : self->cls ? torchlib_subclass_call(I, self, torchlib_nn_base(self->cls), a)
                         : torchlib_call_module(I, self, a);
    if (!I->aborted) {
        collect_top_outputs(I, g, ret, a->node,
                            fn && fn->mod == I->mod && I->ret_node >= 0 ? I->ret_node : a->node);
        if (I->rowsels.n)
            torchlib_rowsel_outputs(I, g, fn && fn->mod == I->mod && I->ret_node >= 0 ? I->ret_node : a->node);
        for (size_t i = 0; i < I->shadows.n; i++) {
            Shadow *s = &I->shadows.v[i];
            if (s->obj->kind != O_TENSOR || s->obj->t->value == s->initial)
                continue;
            if (s->input >= 0)
                g->inputs.v[s->input].final = s->obj->t->value;
            else if (s->weight >= 0)
                g->weights.v[s->weight].final = s->obj->t->value;
        }
        interp_consts_end(I, a->node);
        unread_keys_note(I, g);
    }
    c->ret = ret;
    I->tracing = 0;
    I->g = saved_g;
    I->depth = saved_depth;
    I->stream = 0;
    I->sk = -1;
}

/* Is the call's shape one of the entry's gears (or its static shape)? */
static int call_matches(Graph *g, LeafList *leaves, int64_t *symval)
{
    if (leaves->n != g->inputs.n)
        return 0;
    for (size_t s = 0; s < g->syms.n; s++)
        symval[s] = INT64_MIN;
    for (size_t i = 0; i < leaves->n; i++) {
        TensorObj *ht = leaves->v[i].t->t;
        const Val *hv = &ht->g->vals.v[ht->value];
        const Val *ev = &g->vals.v[g->inputs.v[i].value];
        if (hv->ndim != ev->ndim || hv->dtype != ev->dtype)
            return 0;
        for (int d = 0; d < hv->ndim; d++) {
            int64_t x, c;
            if (!graph_dim_const_value(ht->g, hv->dims[d], &x))
                return 0;
            if (graph_dim_const_value(g, ev->dims[d], &c)) {
                if (c != x)
                    return 0;
            } else if (g->dims.v[ev->dims[d]].kind == DIM_SYM) {
                int64_t *sv = &symval[g->dims.v[ev->dims[d]].c];
                if (*sv != INT64_MIN && *sv != x)
                    return 0;   /* one symbol (zip gears with one list), two sizes */
                *sv = x;
            }
        }
    }
    /* geared symbols must take the values of one gear */
    if (!g->gears.n)
        return 1;
    if (g->cfg.policy == GEAR_PRODUCT) {
        for (size_t k = 0; k < g->gears.n; k++) {
            int found = 0;
            for (size_t j = 0; j < g->gears.v[k].nvalues; j++)
                found |= g->gears.v[k].values[j] == symval[g->gears.v[k].sym];
            if (!found)
                return 0;
        }
        return 1;
    }
    size_t n = g->gears.v[0].nvalues;
    for (size_t j = 0; j < n; j++) {
        int all = 1;
        for (size_t k = 0; k < g->gears.n; k++)
            all &= j < g->gears.v[k].nvalues && g->gears.v[k].values[j] == symval[g->gears.v[k].sym];
        if (all)
            return 1;
    }
    return 0;
}

/* Python scalars the entry was traced with are constants of the plan: a
 * later call with other values is not what the plan computes (TNG210). */
static void scalar_args_changed(Interp *I, CompiledObj *c, InterpFunc *fn, int has_self, CallArgs *a)
{
    const CallArgs *f = &c->first;
    for (size_t i = 0; i < f->npos + f->nkw; i++) {
        Obj *was = i < f->npos ? f->pos[i] : f->kw[i - f->npos];
        Obj *now = i < f->npos ? args_get(a, i, NULL) : args_kw(a, f->kwnames[i - f->npos]);
        if (!now || (was->kind != O_INT && was->kind != O_FLOAT && was->kind != O_BOOL && was->kind != O_STR))
            continue;
        if (obj_eq(I, was, now) == 1)
            continue;
        const char *p = i >= f->npos ? f->kwnames[i - f->npos] : fn ? param_at(I, fn, i, has_self) : NULL;
        StrBuf w = {0};
        if (was->kind == O_FLOAT)
            sb_printf(&w, "%g", was->f);
        else if (was->kind == O_STR)
            sb_printf(&w, "'%s'", was->s);
        else
            sb_printf(&w, "%lld", (long long)was->i);
        interp_diag(I, a->node, RULE_TNG210, "argument '%s' of %s was %s when it was traced and this call "
                    "passes another value: the plan is specialised to %s (pass a tensor to vary it)",
                    p ? p : "?", c->graph->name, w.s, w.s);
        sb_free(&w);
    }
}

static Obj *call_compiled(Interp *I, CompiledObj *c, CallArgs *a)
{
    if (I->tracing)
        return interp_break(I, a->node, RULE_TNG202, "a compiled entry called from inside another compiled method");
    LeafList leaves = {0};
    for (size_t i = 0; i < a->npos; i++)
        collect_leaves(I, a->pos[i], interp_printf(I, "arg%zu", i), &leaves, 0);
    Obj *self;
    const char *ename;
    InterpFunc *fn = entry_method(I, c, &self, &ename);
    if (fn || entry__module_target(c->target)) {
        /* name leaves by parameter ("input" for torch modules, as PyTorch) */
        leaves.n = 0;
        for (size_t i = 0; i < a->npos; i++) {
            const char *p = fn ? param_at(I, fn, i, self != NULL) : i == 0 ? "input" : NULL;
            collect_leaves(I, a->pos[i], p ? p : interp_printf(I, "arg%zu", i), &leaves, 0);
        }
        for (size_t i = 0; i < a->nkw; i++)
            collect_leaves(I, a->kw[i], a->kwnames[i], &leaves, 0);
    }
    for (size_t i = 0; i < leaves.n; i++)
        if (leaves.v[i].t->t->cplx) {   /* a bundle's inputs are real tensors */
            interp_diag(I, a->node, RULE_TNG203, "argument '%s' of the compiled entry is a complex tensor, "
                        "which is not supported: pass torch.view_as_real of it", leaves.v[i].path);
            VEC_FREE(leaves);
            return obj_unknown_reported(I);
        }
    Obj *result;
    if (!c->traced && (fn || entry__module_target(c->target))) {
        /* an example input tngc could not evaluate would leave the ops that
         * use it out of the plan */
        for (size_t i = 0; i < a->npos + a->nkw; i++) {
            Obj *o = i < a->npos ? a->pos[i] : a->kw[i - a->npos];
            if (o->kind != O_UNKNOWN || obj_is_reported(o))
                continue;
            const char *p = i >= a->npos ? a->kwnames[i - a->npos] : fn ? param_at(I, fn, i, self != NULL) : NULL;
            if (!p)
                p = interp_printf(I, "%zu", i + 1);
            interp_diag(I, a->node, RULE_TNG205, "argument '%s' of the compiled entry is not known at compile time%s%s",
                        p, o->s ? ": " : "", o->s ? o->s : "");
            if (o == I->unknown)   /* the shared unknown is never marked: the trace gets its own */
                *(i < a->npos ? &a->pos[i] : &a->kw[i - a->npos]) = obj_unknown_reported(I);
            else
                obj_mark_reported(I, o);
        }
    }
    if (c->traced && c->graph)
        scalar_args_changed(I, c, fn, self != NULL, a);
    if (!c->traced) {
        c->traced = 1;
        c->first = *a;   /* copied: a caller may hold its arrays on the stack */
        c->first.pos = interp_alloc(I, (a->npos + 1) * sizeof *a->pos);
        c->first.kw = interp_alloc(I, (a->nkw + 1) * sizeof *a->kw);
        c->first.kwnames = interp_alloc(I, (a->nkw + 1) * sizeof *a->kwnames);
        if (a->npos)
            memcpy(c->first.pos, a->pos, a->npos * sizeof *a->pos);
        if (a->nkw) {
            memcpy(c->first.kw, a->kw, a->nkw * sizeof *a->kw);
            memcpy(c->first.kwnames, a->kwnames, a->nkw * sizeof *a->kwnames);
        }
        trace_entry(I, c, a, &leaves);
        c->nleaves = leaves.n;
    }
    if (!c->graph || I->aborted) {
        VEC_FREE(leaves);
        return obj_unknown(I, NULL);
    }
    Graph *g = c->graph;
    int64_t *symval = interp_alloc(I, (g->syms.n + 1) * sizeof *symval);
    int reported_arg = 0;   /* an argument whose error was reported: no TNG210 on top */
    for (size_t i = 0; i < a->npos + a->nkw; i++)
        reported_arg |= obj_reported(i < a->npos ? a->pos[i] : a->kw[i - a->npos]);
    if (reported_arg) {
        result = obj_unknown_reported(I);
    } else if (!call_matches(g, &leaves, symval)) {
        interp_diag(I, a->node, RULE_TNG210,
                    "the shapes of this call of %s are in no gear of the plan: the bundle refuses them at run time", g->name);
        result = obj_unknown(I, NULL);
    } else {
        result = host_result(I, g, c->ret, symval, 0);
    }
    for (size_t i = 0; i < leaves.n; i++)   /* the entry may update them in place */
        interp_host_inexact(I, leaves.v[i].t);
    interp_state_after_call(I, g);
    VEC_FREE(leaves);
    return result;
}


Obj *entry_call_compiled(Interp *I, Obj *o, CallArgs *a)
{
    if (!o->comp->target) {
        /* @torch.compile(backend=...) applied to a def */
        return entry_compiled_new(I, o->comp, args_get(a, 0, NULL), a->node);
    }
    return call_compiled(I, o->comp, a);
}

void entry_finish(Interp *I, const char *entry)
{
    /* compiled entries never called */
    int any = 0;
    for (size_t i = 0; i < I->compiled.n; i++) {
        CompiledObj *c = I->compiled.v[i];
        if (c->graph || c->skipped)
            any = 1;
    }
    if (!I->aborted && !any) {
        /* the likely cause, when host code stopped a loop it could not follow */
        const char *cut = I->cut_while ? interp_printf(I, " (the 'while' loop at line %u stopped early: its "
                                                       "condition depends on what tngc cannot evaluate)",
                                                       I->cut_while) : "";
        if (I->compiled.n == 0)
            interp_diag(I, 0, RULE_TNG208, "no torch.compile or cache_compile call runs: nothing to plan%s", cut);
        else
            for (size_t i = 0; i < I->compiled.n; i++)
                if (I->compiled.v[i]->target && !I->compiled.v[i]->traced) {
                    ImpSaved s;
                    int switched = imports_enter(I, I->compiled.v[i]->mod, &s);
                    interp_diag(I, I->compiled.v[i]->node, RULE_TNG208,
                                "this compiled entry is never called with example inputs: nothing to plan%s", cut);
                    if (switched)
                        imports_leave(I, &s);
                }
    }
    if (entry && !I->aborted) {
        int found = 0;
        for (size_t i = 0; i < I->entries.n; i++)
            found |= strcmp(I->entries.v[i]->name, entry) == 0;
        if (!found) {
            StrBuf names = {0};
            for (size_t i = 0; i < I->compiled.n; i++)
                if (I->compiled.v[i]->name)
                    sb_printf(&names, "%s%s", names.len ? ", " : "", I->compiled.v[i]->name);
            interp_diag(I, 0, RULE_TNG208, "no compiled entry named '%s' is called; the script calls: %s",
                        entry, names.len ? names.s : "none");
            sb_free(&names);
        }
    }
}

void entry_free(Interp *I)
{
    VEC_FREE(I->compiled);
    for (size_t i = 0; i < I->configs.n; i++)
        VEC_FREE(I->configs.v[i]->fields);
    VEC_FREE(I->configs);
}
