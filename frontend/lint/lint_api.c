/*
 * lint_api.c - the rules on how a script reaches TorchAir: names it no
 * longer has or never exported (TNG170, TNG171), scope arguments it checks
 * only when the script runs (TNG105, TNG106), and cache_compile's target
 * and options (TNG150-TNG153). Each rule follows what TorchAir's source
 * does with the call; a name kept only as a fallback (an except handler,
 * a hasattr() test) is not reported.
 */
#include "lint.h"
#include "lint_facts.h"
#include "torchair_schema.h"

#include <string.h>

/* ---- names TorchAir does not have ---- */

/* What a module of torch_npu or npugraph_ex exports, for TNG171's message
 * (torch_npu/npu/npugraph_ex/{,scope/,inference/}__init__.py;
 * npugraph_ex/npugraph_ex/{scope,inference}/__init__.py at fced8842). */
static const struct { const char *module, *exports; } api_exports[] = {
    {"torch.npu.npugraph_ex", "compile_fx, register_replacement, inference and scope"},
    {"torch.npu.npugraph_ex.scope", "limit_core_num and deterministic"},
    {"torch.npu.npugraph_ex.inference", "cache_compile and readable_cache"},
    {"npugraph_ex.scope", "only limit_core_num"},
    {"npugraph_ex.inference", "cache_compile and readable_cache"},
};

static void lint__api_missing(Lint *l, const Annotation *a)
{
    const char *path = a->api_path, *dot = strrchr(path, '.');
    if (a->api == API_REMOVED) {
        const char *replacement = NULL;
        alias_api_status(path, &replacement);
        REPORT(l, a->node, TNG170, "%s was removed in March 2025 (it is now %s): importing or calling it fails with AttributeError/ImportError",
               path, replacement);
        return;
    }
    const char *exports = "other names";
    for (size_t i = 0; i < sizeof api_exports / sizeof *api_exports; i++)
        if (strlen(api_exports[i].module) == (size_t)(dot - path) &&
            !memcmp(api_exports[i].module, path, (size_t)(dot - path)))
            exports = api_exports[i].exports;
    REPORT(l, a->node, TNG171, "%.*s has no %s (it exports %s): this raises AttributeError",
           (int)(dot - path), path, dot + 1, exports);
}

/* ---- scope arguments ---- */

static const char *lint__type_name(const Value *v)
{
    static const char *const names[] = {
        [V_NONE] = "None", [V_BOOL] = "bool", [V_INT] = "an int", [V_FLOAT] = "a float",
        [V_STR] = "a str", [V_TUPLE] = "a tuple", [V_LIST] = "a list", [V_DICT] = "a dict",
    };
    return v->kind == V_EXPR ? "an expression" : names[v->kind];
}

/* op_never_timeout(enable): `if not isinstance(enable, bool): raise
 * TypeError` (scope/__init__.py:65-68). */
static void lint__never_timeout(Lint *l, const Annotation *a)
{
    const Value *v = ann_arg(a, "enable");
    if (v && v->kind != V_EXPR && v->kind != V_BOOL)
        REPORT(l, v->node, TNG105, "op_never_timeout takes a bool, and TorchAir raises TypeError for %s",
               lint__type_name(v));
}

/* True when a literal is true as a Python condition. */
static int lint__truthy(const Value *v)
{
    switch (v->kind) {
    case V_NONE: return 0;
    case V_BOOL:
    case V_INT: return v->i != 0;
    case V_FLOAT: return v->f != 0;
    case V_STR: return v->len != 0;
    case V_TUPLE:
    case V_LIST:
    case V_DICT: return v->nitems != 0;
    default: return 0;
    }
}

/* npu_stream_switch(..., enable_inner_parallel): stored as str(value) and
 * read back as value == "True" (scope/__init__.py:26,
 * scope/_scope_attr.py:40-41): a non-bool that Python would call true
 * turns inner parallelism off. "True" and "False" read as written. */
static void lint__inner_parallel(Lint *l, const Annotation *a)
{
    const Value *v = ann_arg(a, "enable_inner_parallel");
    if (!v)
        return;
    /* scope/__init__.py:22 at 770a4d54: npu_stream_switch(stream_tag,
     * stream_priority=0) has no third parameter */
    int version = l->opt ? l->opt->torchair : 0;
    if (version > 0 && (size_t)version < torchair_nversions &&
        !strcmp(torchair_versions[version].name, "770a4d54")) {
        REPORT_AS(SEV_ERROR, l, v->node, TNG106,
                  "TorchAir %s's npu_stream_switch has no enable_inner_parallel parameter: the call raises TypeError",
                  torchair_versions[version].name);
        return;
    }
    if (v->kind == V_EXPR || v->kind == V_BOOL || !lint__truthy(v))
        return;
    if (v->kind == V_STR && ((v->len == 4 && !memcmp(v->s, "True", 4)) || (v->len == 5 && !memcmp(v->s, "False", 5))))
        return;
    REPORT(l, v->node, TNG106, "enable_inner_parallel is %s, not a bool: TorchAir compares str(value) with \"True\", so this turns inner parallelism off",
           lint__type_name(v));
}

void lint_api(Lint *l)
{
    ScanFile *sf = l->sf;
    for (size_t i = 0; i < sf->anns.n; i++) {
        const Annotation *a = &sf->anns.v[i];
        if (a->api != API_OK && !a->api_guarded)
            lint__api_missing(l, a);
        if (!a->resolved)
            continue;
        if (a->kind == ANN_op_never_timeout)
            lint__never_timeout(l, a);
        else if (a->kind == ANN_npu_stream_switch)
            lint__inner_parallel(l, a);
    }
}

/* ---- cache_compile ---- */

void lint_cache_compile(Lint *l, const Compile *c)
{
    ScanFile *sf = l->sf;
    const Annotation *a = &sf->anns.v[c->ann];
    int32_t t = c->target;
    /* TorchAir's checks: `isinstance(func, types.MethodType)` else
     * ValueError "Only method can be cached now", then
     * `isinstance(func.__self__, torch.nn.Module)` else ValueError "Only
     * torch.nn.Module method can be cached now" (_cache_compiler.py:612-616). */
    if (c->decorator) {
        REPORT(l, a->node, TNG150, "@cache_compile on a def receives the plain function, and TorchAir raises ValueError (only methods can be cached); call cache_compile(self.<method>) instead");
        return;
    }
    if (t < 0) {
        for (size_t i = 0; i < a->nargs; i++)
            if (!strcmp(a->args[i].name, "*") || !strcmp(a->args[i].name, "**"))
                return;   /* cache_compile(*args): the method may be in args */
        int in_decorator = l->ast->nodes[a->node].parent >= 0 &&
                           l->ast->nodes[l->ast->nodes[a->node].parent].kind == NK_decorator;
        REPORT(l, a->node, TNG150, "%s without the method to cache raises TypeError (func is required)%s",
               in_decorator ? "@cache_compile(...)" : "cache_compile", in_decorator ? "; call cache_compile(self.<method>) instead" : "");
        return;
    }
    if (c->not_module_method) {
        REPORT(l, t, TNG150, "cache_compile needs a bound method of a torch.nn.Module, but this is %s: TorchAir raises ValueError",
               c->not_module_method);
        return;
    }
    if (c->fullgraph == TRI_FALSE)
        /* **kwargs swallows it: _cache_compiler.py:448 always compiles with fullgraph=True */
        REPORT_AS(SEV_WARNING, l, a->node, TNG152, "fullgraph=False is ignored: cache_compile always compiles the full graph, so a graph break raises");
    const Value *dir = ann_arg(a, "cache_dir");
    if (dir && dir->kind == V_STR && (dir->len == 0 || dir->s[0] != '/' || memchr(dir->s, 0, dir->len)) &&
        path_escapes(dir->s, dir->len))
        REPORT(l, dir->node, TNG153, "cache_dir must not contain a '..' component or NUL (an absolute path may)");
    if (c->func < 0)
        return;
    const Function *f = &sf->funcs.v[c->func];
    if (f->ndecorators)
        /* not checked by TorchAir; its documentation requires an undecorated method */
        REPORT(l, t, TNG151, "cache_compile of %s, which is decorated: TorchAir's documentation requires a method no decorator wraps",
               f->qualname);
    size_t ci = (size_t)(c - sf->compiles.v);
    for (size_t g = 0; g < sf->funcs.n; g++) {
        if (!lint_compiles(l, ci, (int)g) || !sf->funcs.v[g].graph_breaks.n)
            continue;
        int32_t brk = sf->funcs.v[g].graph_breaks.v[0];
        size_t len;
        const char *txt = ast_text(l->ast, ast_field(l->ast, brk, F_function), &len);
        REPORT(l, a->node, TNG152, "cache_compile needs the full graph, but %.*s() at line %u in %s breaks it",
               (int)(len > 40 ? 40 : len), txt, l->ast->nodes[brk].line, sf->funcs.v[g].qualname);
        break;
    }
}

