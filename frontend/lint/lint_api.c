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

/* ---- signatures ---- */

/* The parameters of TorchAir's entry points at fced8842 (packages torchair
 * and npugraph_ex; torch_npu's torch.npu.npugraph_ex is not in that source
 * and is not checked). params: by position or keyword, the first nrequired
 * required; kwonly: by keyword only; kwargs: a **kwargs takes any other
 * keyword, and passes those of forwarded on to a function that reads them
 * (the rest nothing reads). where: the def, under python/torchair/. */
static const struct ApiSig {
    AnnKind kind;
    const char *name;
    const char *params, *kwonly, *forwarded;
    size_t nrequired;
    int kwargs;
    const char *where;
} api_sigs[] = {
    {ANN_super_kernel, "super_kernel", "scope options", "", "", 1, 0, "scope/__init__.py:30"},
    {ANN_npu_stream_switch, "npu_stream_switch", "stream_tag stream_priority enable_inner_parallel", "", "", 1, 0,
     "scope/__init__.py:22"},
    {ANN_npu_wait_tensor, "npu_wait_tensor", "self dependency", "", "", 2, 0, "scope/__init__.py:5"},
    {ANN_limit_core_num, "limit_core_num", "op_aicore_num op_vectorcore_num", "", "", 2, 0, "scope/__init__.py:40"},
    {ANN_op_never_timeout, "op_never_timeout", "enable", "", "", 0, 0, "scope/__init__.py:47"},
    {ANN_set_dim_gears, "set_dim_gears", "t dim_gears", "", "", 2, 0, "inference/__init__.py:24"},
    /* func missing is TNG150's; **kwargs reaches _cache_compiler.py:602 */
    {ANN_cache_compile, "cache_compile", "func", "config dynamic cache_dir global_rank tp_rank pp_rank",
     "backend custom_decompositions ge_cache", 0, 1, "inference/__init__.py:12"},
    {ANN_compiler_config, "CompilerConfig", "", "", "", 0, 0, "configs/compiler_config.py:27"},
    {ANN_get_npu_backend, "get_npu_backend", "", "compiler_config custom_decompositions", "", 0, 0,
     "npu_fx_compiler.py:890"},
    /* npu_print(*args, summarize_size=3, tensor_detail=False): any number of positionals */
    {ANN_npu_print, "npu_print", "", "summarize_size tensor_detail", "", 0, 0, "ops/__init__.py:15"},
    {ANN_ops_wait, "wait", "tensors", "", "", 1, 0, "ops/__init__.py:42"},
    {ANN_tagged_event, "npu_create_tagged_event", "tag", "", "", 1, 0, "ops/__init__.py:20"},
};

/* torch_npu's torch.npu.npugraph_ex.scope.limit_core_num, which calls the
 * npugraph_ex package's (npugraph_ex/scope/__init__.py:15 at fced8842:
 * both core numbers required). where: in torch_npu. */
static const struct ApiSig torch_npu_limit_core_num = {
    ANN_limit_core_num, "limit_core_num", "op_aicore_num op_vectorcore_num stream", "", "", 2, 0,
    "torch_npu/npu/npugraph_ex/scope/__init__.py:4"};

/* The index of word w in the space-separated words, or -1. */
static int lint__word_index(const char *words, const char *w)
{
    size_t wn = strlen(w);
    int i = 0;
    for (const char *p = words; *p; i++) {
        const char *e = strchr(p, ' ');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == wn && !memcmp(p, w, n))
            return i;
        p += n + (e != NULL);
    }
    return -1;
}

/* The n-th word of words (n < its count) as a fresh string of the arena. */
static const char *lint__word(Lint *l, const char *words, int n)
{
    const char *p = words;
    for (; n > 0; n--)
        p = strchr(p, ' ') + 1;
    const char *e = strchr(p, ' ');
    return arena_strndup(&l->sf->arena, p, e ? (size_t)(e - p) : strlen(p));
}

static size_t lint__word_count(const char *words)
{
    size_t n = *words != 0;
    for (const char *p = words; *p; p++)
        n += *p == ' ';
    return n;
}

/* Edit distance of a and b, capped at 3. */
static int lint__distance(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na > 40 || nb > 40 || (na > nb ? na - nb : nb - na) > 2)
        return 3;
    int row[41];
    for (size_t j = 0; j <= nb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb] > 3 ? 3 : row[nb];
}

/* The parameter of sig that the unknown keyword kw most likely means
 * (edit distance 2 at most, or one name inside the other), or NULL. */
static const char *lint__near_param(Lint *l, const struct ApiSig *sig, const char *kw)
{
    const char *lists[3] = {sig->params, sig->kwonly, sig->forwarded};
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < 3; k++)
            for (size_t i = 0; i < lint__word_count(lists[k]); i++) {
                const char *p = lint__word(l, lists[k], (int)i);
                if (pass == 0 ? lint__distance(p, kw) <= 2
                              : strlen(p) >= 4 && strlen(kw) >= 4 && (strstr(kw, p) || strstr(p, kw)))
                    return p;
            }
    return NULL;
}

/* The node to report a keyword argument at: the keyword, not its value. */
static int32_t lint__keyword_node(Lint *l, const Value *v)
{
    int32_t p = l->ast->nodes[v->node].parent;
    return p >= 0 && l->ast->nodes[p].kind == NK_keyword_argument ? p : v->node;
}

/* A call of a TorchAir entry point that does not fit its def: too many
 * positional arguments, an unknown keyword, a parameter given twice or
 * missing raise TypeError (TNG172); a keyword **kwargs takes and nothing
 * reads is ignored (TNG173). Calls with *args or **kwargs are skipped.
 * sig: the signature to check against, NULL for a->kind's in api_sigs. */
static void lint__signature(Lint *l, const Annotation *a, const struct ApiSig *sig)
{
    for (size_t i = 0; i < sizeof api_sigs / sizeof *api_sigs && !sig; i++)
        if (api_sigs[i].kind == a->kind)
            sig = &api_sigs[i];
    if (!sig || l->ast->nodes[a->node].kind != NK_call)
        return;
    for (size_t i = 0; i < a->nargs; i++)
        if (!strcmp(a->args[i].name, "*") || !strcmp(a->args[i].name, "**"))
            return;
    size_t nparams = lint__word_count(sig->params);
    if (a->npos > nparams && sig->kind != ANN_npu_print) {
        const char *hint = "";
        for (size_t i = 0; i < lint__word_count(sig->kwonly); i++)
            hint = arena_printf(&l->sf->arena, "%s%s%s=", i ? hint : " (keyword-only: ", i ? ", " : "",
                                lint__word(l, sig->kwonly, (int)i));
        if (*sig->kwonly)
            hint = arena_printf(&l->sf->arena, "%s)", hint);
        if (nparams == 0)
            REPORT(l, a->args[0].value->node, TNG172, "%s() takes no positional argument%s: the call raises TypeError (%s)",
                   sig->name, hint, sig->where);
        else
            REPORT(l, a->args[nparams].value->node, TNG172,
                   "%s() takes at most %zu positional argument%s but %zu are given%s: the call raises TypeError (%s)",
                   sig->name, nparams, nparams == 1 ? "" : "s", a->npos, hint, sig->where);
        return;
    }
    int raised = 0;   /* Python reports the first TypeError only */
    for (size_t i = a->npos; i < a->nargs; i++) {
        const char *kw = a->args[i].name;
        int idx = lint__word_index(sig->params, kw);
        int32_t at = lint__keyword_node(l, a->args[i].value);
        if (idx >= 0 && (size_t)idx < a->npos) {
            REPORT(l, at, TNG172, "%s() gets %s twice, by position and by keyword: the call raises TypeError", sig->name, kw);
            raised = 1;
            continue;
        }
        if (idx >= 0 || lint__word_index(sig->kwonly, kw) >= 0 || lint__word_index(sig->forwarded, kw) >= 0)
            continue;
        if (sig->kind == ANN_cache_compile && !strcmp(kw, "fullgraph"))
            continue;   /* TNG152 */
        const char *near = lint__near_param(l, sig, kw);
        const char *also = near ? arena_printf(&l->sf->arena, "; did you mean %s=?", near) : "";
        if (sig->kwargs)
            REPORT(l, at, TNG173, "%s() has no parameter %s: its **kwargs takes it and nothing reads it, so it has no effect%s",
                   sig->name, kw, also);
        else
            REPORT(l, at, TNG172, "%s() has no parameter %s: the call raises TypeError (%s)%s", sig->name, kw, sig->where, also);
        raised |= !sig->kwargs;
    }
    for (size_t i = a->npos; i < sig->nrequired && !raised; i++) {
        const char *p = lint__word(l, sig->params, (int)i);
        if (!ann_arg(a, p))
            REPORT(l, a->node, TNG172, "%s() is missing its argument %s: the call raises TypeError (%s)", sig->name, p, sig->where);
    }
}

/* True for a literal that is not a tensor (and not an expression). */
static int lint__literal(const Value *v)
{
    return v && v->kind != V_EXPR;
}

/* The line of a compile that runs func in reduce-overhead or npugraph_ex
 * mode (the aclgraph passes), or 0. */
static unsigned lint__aclgraph_compile(Lint *l, int func)
{
    for (size_t c = 0; c < l->sf->compiles.n; c++) {
        const char *m = lint_compile_mode(l, &l->sf->compiles.v[c]);
        if (lint_compiles(l, c, func) && m && (!strcmp(m, "reduce-overhead") || !strcmp(m, "npugraph_ex")))
            return l->ast->nodes[l->sf->anns.v[l->sf->compiles.v[c].ann].node].line;
    }
    return 0;
}

/* custom_decompositions goes to dict.update (npu_fx_compiler.py:919),
 * which takes a mapping or pairs: a number raises TypeError, a string or
 * an item that is not a pair ValueError / TypeError. None is {}. */
static void lint__decompositions(Lint *l, const Value *v)
{
    if (!lint__literal(v) || v->kind == V_NONE || v->kind == V_DICT)
        return;
    if (v->kind == V_TUPLE || v->kind == V_LIST) {
        for (size_t i = 0; i < v->nitems; i++) {
            const Value *e = v->items[i];
            int pair = ((e->kind == V_TUPLE || e->kind == V_LIST) && e->nitems == 2) || (e->kind == V_STR && e->len == 2);
            if (lint__literal(e) && !pair) {
                REPORT(l, e->node, TNG174, "custom_decompositions must be a dict of op -> decomposition: TorchAir merges it with dict.update (npu_fx_compiler.py:919), which raises on %s item",
                       lint__type_name(e));
                return;
            }
        }
        return;
    }
    if (v->kind == V_STR && v->len == 0)
        return;
    REPORT(l, v->node, TNG174, "custom_decompositions must be a dict of op -> decomposition: TorchAir merges it with dict.update (npu_fx_compiler.py:919), which raises on %s",
           lint__type_name(v));
}

/* npu_print's checks (ops/_print_ops.py:93-105): positionals must be
 * tensors or str, bool, float, int (TypeError), one at least a tensor
 * (ValueError); summarize_size an int (TypeError), -1 or positive
 * (ValueError); tensor_detail a bool (TypeError). */
static void lint__npu_print(Lint *l, const Annotation *a)
{
    int maybe_tensor = 0;
    for (size_t i = 0; i < a->npos; i++) {
        const Value *v = a->args[i].value;
        if (v->kind == V_EXPR) {
            maybe_tensor = 1;
        } else if (v->kind != V_STR && v->kind != V_BOOL && v->kind != V_INT && v->kind != V_FLOAT) {
            REPORT(l, v->node, TNG174, "npu_print takes tensors and str, bool, float or int, but argument %zu is %s: TorchAir raises TypeError",
                   i, lint__type_name(v));
            return;
        }
    }
    if (!maybe_tensor)
        REPORT(l, a->node, TNG174, "npu_print has no tensor to print: TorchAir raises ValueError (it requires at least one tensor)");
    const Value *n = ann_arg(a, "summarize_size"), *d = ann_arg(a, "tensor_detail");
    if (lint__literal(n) && n->kind != V_INT && n->kind != V_BOOL)
        REPORT(l, n->node, TNG174, "npu_print's summarize_size must be an int, but this is %s: TorchAir raises TypeError", lint__type_name(n));
    else if (lint__literal(n) && (n->i == 0 || n->i < -1))
        REPORT(l, n->node, TNG174, "npu_print's summarize_size must be positive or -1 (all elements), not %lld: TorchAir raises ValueError",
               (long long)n->i);
    if (lint__literal(d) && d->kind != V_BOOL)
        REPORT(l, d->node, TNG174, "npu_print's tensor_detail must be a bool, but this is %s: TorchAir raises TypeError", lint__type_name(d));
}

/* torchair.ops.wait(tensors) (ops/_record_wait.py:40-46): None or an empty
 * list raise ValueError, and so does an item that is not a tensor. */
static void lint__ops_wait(Lint *l, const Annotation *a)
{
    const Value *t = ann_arg(a, "tensors");
    if (!lint__literal(t))
        return;
    if (t->kind == V_NONE || ((t->kind == V_LIST || t->kind == V_TUPLE) && t->nitems == 0)) {
        REPORT(l, t->node, TNG174, "torchair.ops.wait() needs at least one tensor: TorchAir raises ValueError for %s",
               t->kind == V_NONE ? "None" : "an empty list");
        return;
    }
    if (t->kind != V_LIST && t->kind != V_TUPLE) {
        REPORT(l, t->node, TNG174, "torchair.ops.wait() takes a list of tensors, but this is %s: TorchAir raises", lint__type_name(t));
        return;
    }
    for (size_t i = 0; i < t->nitems; i++)
        if (lint__literal(t->items[i])) {
            REPORT(l, t->items[i]->node, TNG174, "torchair.ops.wait() takes only tensors, but this is %s: TorchAir raises ValueError",
                   lint__type_name(t->items[i]));
            return;
        }
}

/* True when node runs each time its function (or the module) runs, once:
 * not under a condition, a loop, a try, a lambda or a comprehension. */
static int lint__runs_once(const Lint *l, int32_t node)
{
    for (int32_t p = l->ast->nodes[node].parent; p >= 0; p = l->ast->nodes[p].parent) {
        NodeKind k = l->ast->nodes[p].kind;
        if (k == NK_function_definition || k == NK_class_definition || k == NK_module)
            return 1;
        if (k == NK_if_statement || k == NK_for_statement || k == NK_while_statement || k == NK_try_statement ||
            k == NK_conditional_expression || k == NK_lambda || k == NK_boolean_operator ||
            k == NK_list_comprehension || k == NK_generator_expression || k == NK_with_statement)
            return 0;
    }
    return 1;
}

/* npu_create_tagged_event with a tag an earlier call of the same function
 * (or of the module's code) made: ValueError "tagged event tag ... is
 * already in use" (ops/_tagged_event.py:137-138). */
static void lint__tagged_event(Lint *l, const Annotation *a)
{
    const Value *tag = ann_arg(a, "tag");
    if (!tag || tag->kind != V_STR || !lint__runs_once(l, a->node))
        return;
    for (const Annotation *b = l->sf->anns.v; b < a; b++) {
        const Value *t = b->kind == ANN_tagged_event && b->resolved && b->func == a->func && b->cls == a->cls ? ann_arg(b, "tag") : NULL;
        if (t && t->kind == V_STR && value_equal(t, tag) && lint__runs_once(l, b->node) &&
            l->ast->nodes[b->node].start < l->ast->nodes[a->node].start) {
            REPORT(l, a->node, TNG174, "tag '%.*s' already has a tagged event (created at line %u): TorchAir raises ValueError (tag already in use)",
                   (int)tag->len, tag->s, l->ast->nodes[b->node].line);
            return;
        }
    }
}

/* True when n is a call of torch.npu.Event (or torch_npu.npu.Event). */
static int lint__plain_event(const Ast *ast, int32_t n)
{
    int32_t fn = n >= 0 && ast->nodes[n].kind == NK_call ? ast_field(ast, n, F_function) : -1;
    return fn >= 0 && (ast_text_is(ast, fn, "torch.npu.Event") || ast_text_is(ast, fn, "torch_npu.npu.Event"));
}

/* npu_tagged_event_record / _wait of an event npu_create_tagged_event did
 * not make: _get_tag_by_event raises ValueError "tagged event ... is not
 * in use" (ops/_tagged_event.py:145-149). The argument is torch.npu.Event()
 * itself, or a name or attribute every assignment of the file sets to one. */
static void lint__untagged_event(Lint *l, const Annotation *a)
{
    const Ast *ast = l->ast;
    if (!strstr(a->callee, "npu_tagged_event_") || a->npos < 1)
        return;
    int32_t n = a->args[0].value->node;
    int plain = lint__plain_event(ast, n);
    if (!plain && (ast->nodes[n].kind == NK_identifier || ast->nodes[n].kind == NK_attribute)) {
        size_t len, ln;
        const char *t = ast_text(ast, n, &len);
        int seen = 0, all = 1;
        for (size_t i = 0; i < ast->n && all; i++) {
            if (ast->nodes[i].kind != NK_assignment)
                continue;
            int32_t lhs = ast_field(ast, (int32_t)i, F_left);
            const char *lt = lhs >= 0 ? ast_text(ast, lhs, &ln) : NULL;
            if (!lt || ln != len || memcmp(lt, t, len))
                continue;
            seen = 1;
            all = lint__plain_event(ast, ast_field(ast, (int32_t)i, F_right));
        }
        plain = seen && all;
    }
    if (plain)
        REPORT(l, n, TNG174, "this is a plain torch.npu.Event, not one npu_create_tagged_event made: TorchAir raises ValueError (the event has no tag)");
}

/* npu_tagged_event_record / _wait and npu_record_tagged_stream in a
 * function compiled in max-autotune: their GE converters raise
 * NotImplementedError (ops/_tagged_event.py:76-80, 92-96, 120-124). */
static void lint__tagged_op(Lint *l, const Annotation *a)
{
    if (a->func < 0)
        return;
    for (size_t c = 0; c < l->sf->compiles.n; c++) {
        const Compile *cp = &l->sf->compiles.v[c];
        const char *m = lint_compile_mode(l, cp);
        if (cp->torchair == 1 && lint_compiles(l, c, a->func) && m && !strcmp(m, "max-autotune")) {
            const char *dot = strrchr(a->callee, '.');
            REPORT(l, a->node, TNG107, "%s has no GE converter: TorchAir raises NotImplementedError when %s is compiled in max-autotune mode (line %u); it works in reduce-overhead",
                   dot ? dot + 1 : a->callee, l->sf->funcs.v[a->func].qualname, l->ast->nodes[l->sf->anns.v[cp->ann].node].line);
            return;
        }
    }
}

/* Argument values the entry points refuse when they run (TNG174). */
static void lint__argument_values(Lint *l, const Annotation *a)
{
    if (a->kind == ANN_tagged_op) {
        lint__untagged_event(l, a);
        lint__tagged_op(l, a);
    } else if (a->kind == ANN_npu_print) {
        lint__npu_print(l, a);
    } else if (a->kind == ANN_ops_wait) {
        lint__ops_wait(l, a);
    } else if (a->kind == ANN_tagged_event) {
        lint__tagged_event(l, a);
    } else if (a->kind == ANN_get_npu_backend) {
        lint__decompositions(l, ann_arg(a, "custom_decompositions"));
    } else if (a->kind == ANN_cache_compile) {
        /* backend.keywords.get("compiler_config") (_cache_compiler.py:607,610):
         * only get_npu_backend's functools.partial has keywords */
        const Value *b = ann_arg(a, "backend");
        if (lint__literal(b) && b->kind != V_NONE)
            REPORT(l, b->node, TNG174, "cache_compile's backend must be the result of get_npu_backend(...), but this is %s: TorchAir reads backend.keywords and raises AttributeError",
                   lint__type_name(b));
    } else if (a->kind == ANN_npu_wait_tensor) {
        /* the op schema wait_tensor(Tensor self, Tensor dependency) (scope/_wait_tensor.py:8-10) */
        static const char *const names[] = {"self", "dependency"};
        for (int i = 0; i < 2; i++) {
            const Value *v = ann_arg(a, names[i]);
            if (lint__literal(v))
                REPORT(l, v->node, TNG174, "npu_wait_tensor's %s must be one tensor, but this is %s: the op schema wait_tensor(Tensor self, Tensor dependency) refuses it when the call runs",
                       names[i], lint__type_name(v));
        }
    } else if (a->kind == ANN_limit_core_num) {
        /* str(value) (scope/__init__.py:42-43), read back with int() by the
         * aclgraph pass (_acl_concrete_graph/graph_pass.py:746) */
        static const char *const names[] = {"op_aicore_num", "op_vectorcore_num"};
        for (int i = 0; i < 2; i++) {
            const Value *v = ann_arg(a, names[i]);
            if (!lint__literal(v) || v->kind == V_INT)
                continue;
            if (v->kind == V_STR) {
                size_t k = 0;
                while (k < v->len && (v->s[k] == ' ' || v->s[k] == '+' || v->s[k] == '-'))
                    k++;
                while (k < v->len && v->s[k] >= '0' && v->s[k] <= '9')
                    k++;
                if (k == v->len && v->len)
                    continue;   /* int() reads it */
            }
            unsigned line = a->func >= 0 ? lint__aclgraph_compile(l, a->func) : 0;
            if (line)
                REPORT(l, v->node, TNG174, "limit_core_num's %s must be an int, but this is %s: TorchAir stores str(value), and the reduce-overhead pass's int() of it raises ValueError (the compile at line %u)",
                       names[i], lint__type_name(v), line);
            else
                REPORT_AS(SEV_WARNING, l, v->node, TNG174, "limit_core_num's %s must be an int, but this is %s: TorchAir stores str(value) unchecked, and in reduce-overhead mode int() of it raises ValueError",
                          names[i], lint__type_name(v));
        }
    }
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
        char buf[512];
        if (a->api == API_OK && strncmp(alias_normalise(a->callee, buf, sizeof buf), "torch.npu.npugraph_ex.", 22)) {
            /* torch_npu's torch.npu.npugraph_ex is not TorchAir's source */
            lint__signature(l, a, NULL);
            lint__argument_values(l, a);
        } else if (a->api == API_OK && a->kind == ANN_limit_core_num) {
            lint__signature(l, a, &torch_npu_limit_core_num);
        }
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
    /* TorchAir's cache_compile with a config (config= or the backend's) in
     * reduce-overhead or npugraph_ex mode warns that ge_cache does not take
     * effect (_cache_compiler.py:621-623) */
    const Value *gc = ann_arg(a, "ge_cache");
    const char *mode = c->config >= 0 ? lint_mode(l, c->config) : NULL;
    char buf[512];
    if (gc && gc->kind != V_EXPR && lint__truthy(gc) && mode && strcmp(mode, "max-autotune") &&
        !strncmp(alias_normalise(a->callee, buf, sizeof buf), "torchair.", 9))
        REPORT(l, lint__keyword_node(l, gc), TNG169, "TorchAir warns that ge_cache does not take effect in %s mode (the config's mode)", mode);
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

