/*
 * alias.c - file-wide import alias resolution. Every import statement of
 * the file (module level, in functions, in try/except) binds a local name
 * to a dotted module path; a callee expression resolves when its leftmost
 * name is such a binding. A module-level def or class of the same name
 * shadows the import (the project's own wrapper wins), which makes the
 * name unresolved.
 *
 * It also holds the one table of the import paths TorchAir is reached
 * through and of its entry points by canonical name, which lint's scanner
 * and the lowering's evaluator both read; and it knows which TorchAir
 * names exist: the torchair.ops stream API that moved to torchair.scope,
 * and the scope functions that torch.npu.npugraph_ex and the npugraph_ex
 * package do not export.
 */
#include "python.h"

#include <string.h>

struct AliasTable {
    StrMap names;           /* local name -> dotted path; "" when shadowed */
    StrMap guarded;         /* local name -> non-NULL: its import is in a try catching ImportError */
    VEC(const char *) star; /* modules imported with `from M import *` */
};

/* ---- what exists ---- */

/* torchair.ops lost its stream API in March 2025 (python/torchair/ops/
 * __init__.py at fced8842 and 770a4d54 has none of these names). */
static const struct { const char *path, *replacement; } api_removed[] = {
    {"torchair.ops.npu_stream_switch", "torchair.scope.npu_stream_switch"},
    {"torchair.ops.NpuStreamSwitch", "torchair.scope.npu_stream_switch"},
    {"torchair.ops.npu_wait_tensor", "torchair.scope.npu_wait_tensor"},
};

/* Annotation functions a package does not have. torch.npu.npugraph_ex
 * (torch_npu/npu/npugraph_ex/__init__.py) exports compile_fx,
 * register_replacement, inference.cache_compile / readable_cache and
 * scope.limit_core_num / deterministic; the npugraph_ex package
 * (npugraph_ex/npugraph_ex/{scope,inference}/__init__.py at fced8842)
 * has CompilerConfig, get_npu_backend, inference.cache_compile and
 * scope.limit_core_num. */
static const char *const api_missing[] = {
    "torch.npu.npugraph_ex.scope.super_kernel", "torch.npu.npugraph_ex.scope.npu_stream_switch",
    "torch.npu.npugraph_ex.scope.npu_wait_tensor", "torch.npu.npugraph_ex.scope.op_never_timeout",
    "torch.npu.npugraph_ex.CompilerConfig", "torch.npu.npugraph_ex.get_npu_backend",
    "torch.npu.npugraph_ex.inference.set_dim_gears",
    "npugraph_ex.scope.super_kernel", "npugraph_ex.scope.npu_stream_switch",
    "npugraph_ex.scope.npu_wait_tensor", "npugraph_ex.scope.op_never_timeout",
    "npugraph_ex.inference.set_dim_gears",
};

/* The import paths TorchAir is reached through, and the name each stands
 * for: a row whose from ends in '.' rewrites a prefix, any other row one
 * whole name. ALIAS_SCAN rows are what every reader of imports normalises
 * (alias_normalise: lint's scanner, the alias table's ranking); ALIAS_LOWER
 * rows are the names the lowering folds into TorchAir's own before it runs
 * a call (alias_rewrite), torch_npu's npugraph_ex flavour included. */
static const struct { const char *from, *to; unsigned use; } import_paths[] = {
    {"torch_npu.dynamo.torchair.", "torchair.", ALIAS_SCAN | ALIAS_LOWER},   /* torch_npu ships TorchAir there */
    {"torch_npu.dynamo.npugraph_ex.", "npugraph_ex.", ALIAS_SCAN},
    {"torch_npu.npu.npugraph_ex.", "torchair.", ALIAS_LOWER},
    {"torch_npu.npu.", "torch.npu.", ALIAS_SCAN},                /* torch_npu installs it as torch.npu */
    {"torch.npu.npugraph_ex.", "torchair.", ALIAS_LOWER},        /* TorchAir in npugraph_ex mode */
    {"torchair.ops.", "torchair.scope.", ALIAS_LOWER},           /* moved in March 2025 (api_removed) */
    {"torchair.configs.compiler_config.", "torchair.", ALIAS_LOWER},   /* re-exported as torchair.X */
    {"torchair.scope.NpuStreamSwitch", "torchair.scope.npu_stream_switch", ALIAS_LOWER},
};

/* TorchAir's entry points by canonical name (after the rewrites above):
 * ALIAS_SCAN rows are lint's annotations (scan.c), ALIAS_LOWER rows the
 * calls the lowering runs (entry.c). The lowering does not model the
 * npugraph_ex package (its default mode), nor op_never_timeout. */
static const struct { const char *path; TorchairApi api; unsigned use; } torchair_apis[] = {
    {"torchair.scope.super_kernel", TA_SUPER_KERNEL, ALIAS_SCAN | ALIAS_LOWER},
    {"torchair.scope.npu_stream_switch", TA_NPU_STREAM_SWITCH, ALIAS_SCAN | ALIAS_LOWER},
    {"torchair.scope.npu_wait_tensor", TA_NPU_WAIT_TENSOR, ALIAS_SCAN | ALIAS_LOWER},
    {"torchair.scope.limit_core_num", TA_LIMIT_CORE_NUM, ALIAS_SCAN | ALIAS_LOWER},
    {"torchair.scope.op_never_timeout", TA_OP_NEVER_TIMEOUT, ALIAS_SCAN},
    {"torchair.inference.set_dim_gears", TA_SET_DIM_GEARS, ALIAS_SCAN | ALIAS_LOWER},
    {"torch._dynamo.mark_static", TA_MARK_STATIC, ALIAS_SCAN | ALIAS_LOWER},
    {"torchair.inference.cache_compile", TA_CACHE_COMPILE, ALIAS_SCAN | ALIAS_LOWER},
    {"torchair.CompilerConfig", TA_COMPILER_CONFIG, ALIAS_SCAN | ALIAS_LOWER},
    {"torchair.configs.compiler_config.CompilerConfig", TA_COMPILER_CONFIG, ALIAS_SCAN},
    {"torchair.get_npu_backend", TA_GET_NPU_BACKEND, ALIAS_SCAN | ALIAS_LOWER},
    {"torchair.npu_fx_compiler.get_npu_backend", TA_GET_NPU_BACKEND, ALIAS_LOWER},
    {"torch.compile", TA_TORCH_COMPILE, ALIAS_SCAN | ALIAS_LOWER},
    {"torchair.ops.npu_print", TA_NPU_PRINT, ALIAS_SCAN},
    {"torchair.ops.wait", TA_OPS_WAIT, ALIAS_SCAN},
    {"torchair.ops.npu_create_tagged_event", TA_CREATE_TAGGED_EVENT, ALIAS_SCAN},
    {"torchair.ops.npu_tagged_event_record", TA_TAGGED_OP, ALIAS_SCAN},
    {"torchair.ops.npu_tagged_event_wait", TA_TAGGED_OP, ALIAS_SCAN},
    {"torchair.ops.npu_record_tagged_stream", TA_TAGGED_OP, ALIAS_SCAN},
    /* torch_npu's torch.npu.npugraph_ex (mode npugraph_ex) */
    {"torch.npu.npugraph_ex.scope.limit_core_num", TA_LIMIT_CORE_NUM, ALIAS_SCAN},
    {"torch.npu.npugraph_ex.inference.cache_compile", TA_CACHE_COMPILE, ALIAS_SCAN},
    /* the npugraph_ex package (`import npugraph_ex as nge`) */
    {"npugraph_ex.scope.limit_core_num", TA_LIMIT_CORE_NUM, ALIAS_SCAN},
    {"npugraph_ex.inference.cache_compile", TA_CACHE_COMPILE, ALIAS_SCAN},
    {"npugraph_ex.CompilerConfig", TA_COMPILER_CONFIG, ALIAS_SCAN},
    {"npugraph_ex.configs.compiler_config.CompilerConfig", TA_COMPILER_CONFIG, ALIAS_SCAN},
    {"npugraph_ex.get_npu_backend", TA_GET_NPU_BACKEND, ALIAS_SCAN},
};

const char *alias_rewrite(const char *path, unsigned use, size_t *len)
{
    for (size_t i = 0; i < sizeof import_paths / sizeof *import_paths; i++) {
        if (!(import_paths[i].use & use))
            continue;
        size_t n = strlen(import_paths[i].from);
        int prefix = n > 0 && import_paths[i].from[n - 1] == '.';
        if (prefix ? strncmp(path, import_paths[i].from, n) == 0 : strcmp(path, import_paths[i].from) == 0) {
            *len = n;
            return import_paths[i].to;
        }
    }
    return NULL;
}

const char *alias_normalise(const char *path, char *buf, size_t cap)
{
    size_t n;
    const char *to = alias_rewrite(path, ALIAS_SCAN, &n);
    if (!to)
        return path;
    snprintf(buf, cap, "%s%s", to, path + n);
    return buf;
}

int alias_torchair_api(const char *path, unsigned use)
{
    for (size_t i = 0; i < sizeof torchair_apis / sizeof *torchair_apis; i++)
        if ((torchair_apis[i].use & use) && strcmp(path, torchair_apis[i].path) == 0)
            return (int)torchair_apis[i].api;
    return -1;
}

ApiStatus alias_api_status(const char *path, const char **replacement)
{
    for (size_t i = 0; i < sizeof api_removed / sizeof *api_removed; i++)
        if (!strcmp(path, api_removed[i].path)) {
            if (replacement)
                *replacement = api_removed[i].replacement;
            return API_REMOVED;
        }
    for (size_t i = 0; i < sizeof api_missing / sizeof *api_missing; i++)
        if (!strcmp(path, api_missing[i]))
            return API_NOT_EXPORTED;
    return API_OK;
}

static char *alias__text(const Ast *ast, int32_t n, Arena *arena)
{
    size_t len;
    const char *s = ast_text(ast, n, &len);
    /* dotted names may contain spaces or comments: `torch . _dynamo` */
    char *out = arena_alloc(arena, len + 1);
    size_t j = 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\\' && s[i] != '\n' && s[i] != '\r')
            out[j++] = s[i];
    out[j] = 0;
    return out;
}

/* Prefers paths rooted at torch or torchair when a name is imported twice
 * (try: import torchair as tng / except: from x import torchair as tng),
 * and of those a name that exists (try: from torchair.ops import
 * npu_stream_switch / except ImportError: from torchair.scope import ...). */
static int alias__rank(const char *path)
{
    if (strncmp(path, "torch", 5) != 0 && strncmp(path, "npugraph_ex", 11) != 0)
        return 0;
    char buf[512];
    return alias_api_status(alias_normalise(path, buf, sizeof buf), NULL) == API_OK ? 2 : 1;
}

/* The final name of an exception class expression (ImportError,
 * builtins.ImportError), compared with each of the NUL-separated names. */
static int alias__exc_is(const Ast *ast, int32_t e, const char *names)
{
    if (ast->nodes[e].kind == NK_attribute)
        e = ast_field(ast, e, F_attribute);
    if (e < 0 || ast->nodes[e].kind != NK_identifier)
        return 0;
    for (const char *n = names; *n; n += strlen(n) + 1)
        if (ast_text_is(ast, e, n))
            return 1;
    return ast_text_is(ast, e, "Exception") || ast_text_is(ast, e, "BaseException");
}

int alias_handler_catches(const Ast *ast, int32_t clause, const char *names)
{
    for (int32_t c = ast->nodes[clause].first; c >= 0; c = ast->nodes[c].next) {
        const Node *cn = &ast->nodes[c];
        if (!(cn->flags & NODE_NAMED) || cn->kind == NK_comment)
            continue;
        if (cn->kind == NK_block)
            return 1;   /* a bare except: */
        int32_t e = c;
        if (cn->kind == NK_as_pattern)
            e = ast_named_child(ast, c, 0);
        while (e >= 0 && ast->nodes[e].kind == NK_parenthesized_expression)
            e = ast_named_child(ast, e, 0);
        if (e >= 0 && ast->nodes[e].kind == NK_tuple) {
            for (int32_t i = ast->nodes[e].first; i >= 0; i = ast->nodes[i].next)
                if ((ast->nodes[i].flags & NODE_NAMED) && alias__exc_is(ast, i, names))
                    return 1;
            return 0;
        }
        return e >= 0 && alias__exc_is(ast, e, names);
    }
    return 1;
}

int32_t alias_try_body(const Ast *ast, int32_t try_statement)
{
    return ast_field(ast, try_statement, F_body);
}

/* True when n lies in the body of a try with a handler catching
 * ImportError (or ModuleNotFoundError, Exception, BaseException, all). */
static int alias__in_guarded_try(const Ast *ast, int32_t n)
{
    for (int32_t c = n, p = ast->nodes[n].parent; p >= 0; c = p, p = ast->nodes[p].parent) {
        NodeKind k = ast->nodes[p].kind;
        if (k == NK_function_definition || k == NK_class_definition)
            return 0;
        if (k != NK_try_statement || c != alias_try_body(ast, p))
            continue;
        for (int32_t h = ast->nodes[p].first; h >= 0; h = ast->nodes[h].next)
            if (ast->nodes[h].kind == NK_except_clause &&
                alias_handler_catches(ast, h, "ImportError\0ModuleNotFoundError\0"))
                return 1;
    }
    return 0;
}

static void alias__bind(AliasTable *t, const Ast *ast, int32_t import, const char *local, const char *path)
{
    const char *old = strmap_get(&t->names, local);
    if (old && (!*old || alias__rank(old) >= alias__rank(path)))
        return;
    strmap_put(&t->names, local, (void *)path);
    strmap_put(&t->guarded, local, alias__in_guarded_try(ast, import) ? (void *)"" : NULL);
}

/* import a.b.c  |  import a.b as x */
static void alias__import(AliasTable *t, const Ast *ast, int32_t n, Arena *arena)
{
    for (int32_t c = ast->nodes[n].first; c >= 0; c = ast->nodes[c].next) {
        if (ast->nodes[c].field != F_name)
            continue;
        if (ast->nodes[c].kind == NK_aliased_import) {
            int32_t name = ast_field(ast, c, F_name), alias = ast_field(ast, c, F_alias);
            if (name >= 0 && alias >= 0)
                alias__bind(t, ast, n, alias__text(ast, alias, arena), alias__text(ast, name, arena));
        } else if (ast->nodes[c].kind == NK_dotted_name) {
            char *path = alias__text(ast, c, arena);
            char *dot = strchr(path, '.');
            char *root = dot ? arena_strndup(arena, path, (size_t)(dot - path)) : path;
            alias__bind(t, ast, n, root, root);
        }
    }
}

/* from a.b import c  |  from a.b import c as d  |  from a import *  */
static void alias__import_from(AliasTable *t, const Ast *ast, int32_t n, Arena *arena)
{
    int32_t mod = ast_field(ast, n, F_module_name);
    if (mod < 0 || ast->nodes[mod].kind != NK_dotted_name)
        return;   /* relative imports name the project's own modules */
    const char *module = alias__text(ast, mod, arena);
    for (int32_t c = ast->nodes[n].first; c >= 0; c = ast->nodes[c].next) {
        if (ast->nodes[c].kind == NK_wildcard_import) {
            VEC_PUSH(t->star, module);
            continue;
        }
        if (ast->nodes[c].field != F_name)
            continue;
        int32_t name = c, alias = c;
        if (ast->nodes[c].kind == NK_aliased_import) {
            name = ast_field(ast, c, F_name);
            alias = ast_field(ast, c, F_alias);
        }
        if (name < 0 || alias < 0)
            continue;
        alias__bind(t, ast, n, alias__text(ast, alias, arena),
                    arena_printf(arena, "%s.%s", module, alias__text(ast, name, arena)));
    }
}

/* A def or class at module level (possibly inside if/try blocks). */
/* A fallback def in an except clause (try: import X / except: def X) does
 * not count: the import is what runs where TorchAir is installed. */
static int alias__is_module_def(const Ast *ast, int32_t n)
{
    for (int32_t p = ast->nodes[n].parent; p >= 0; p = ast->nodes[p].parent) {
        NodeKind k = ast->nodes[p].kind;
        if (k == NK_function_definition || k == NK_class_definition || k == NK_except_clause)
            return 0;
    }
    return 1;
}

AliasTable *alias_build(const Ast *ast, Arena *arena)
{
    AliasTable *t = xcalloc(1, sizeof *t);
    for (uint32_t i = 0; i < ast->n; i++) {
        NodeKind k = ast->nodes[i].kind;
        if (k == NK_import_statement)
            alias__import(t, ast, (int32_t)i, arena);
        else if (k == NK_import_from_statement)
            alias__import_from(t, ast, (int32_t)i, arena);
    }
    for (uint32_t i = 0; i < ast->n; i++) {
        NodeKind k = ast->nodes[i].kind;
        if ((k == NK_function_definition || k == NK_class_definition) &&
            alias__is_module_def(ast, (int32_t)i)) {
            int32_t name = ast_field(ast, (int32_t)i, F_name);
            if (name >= 0)
                strmap_put(&t->names, alias__text(ast, name, arena), (void *)"");
        }
    }
    return t;
}

void alias_free(AliasTable *self)
{
    if (!self)
        return;
    strmap_free(&self->names);
    strmap_free(&self->guarded);
    VEC_FREE(self->star);
    free(self);
}

const char *alias_lookup(const AliasTable *self, const char *local)
{
    const char *p = strmap_get(&self->names, local);
    return p && *p ? p : NULL;
}

int alias_guarded(const AliasTable *self, const char *local)
{
    return strmap_get(&self->guarded, local) != NULL;
}

/* Attribute chains deeper than this are not resolved. */
#define ALIAS_MAX_CHAIN 32

const char *alias_resolve(const AliasTable *self, const Ast *ast, int32_t n, Arena *arena)
{
    int32_t chain[ALIAS_MAX_CHAIN];
    int depth = 0;
    while (n >= 0 && ast->nodes[n].kind == NK_attribute) {
        int32_t attr = ast_field(ast, n, F_attribute);
        if (attr < 0 || depth == ALIAS_MAX_CHAIN)
            return NULL;
        chain[depth++] = attr;
        n = ast_field(ast, n, F_object);
    }
    if (n < 0 || ast->nodes[n].kind != NK_identifier)
        return NULL;
    size_t len;
    const char *s = ast_text(ast, n, &len);
    char root[256];
    if (len >= sizeof root)
        return NULL;
    memcpy(root, s, len);
    root[len] = 0;
    const char *base = strmap_get(&self->names, root);
    if (base && !*base)
        return NULL;
    StrBuf sb = {0};
    if (base) {
        sb_puts(&sb, base);
    } else if (self->star.n) {
        /* from torchair.scope import * ; super_kernel(...): a star import of
         * torch or torchair wins over the others */
        const char *module = self->star.v[0];
        for (size_t i = 1; i < self->star.n; i++)
            if (alias__rank(self->star.v[i]) > alias__rank(module))
                module = self->star.v[i];
        sb_printf(&sb, "%s.%s", module, root);
    } else {
        return NULL;
    }
    while (depth > 0) {
        size_t alen;
        const char *a = ast_text(ast, chain[--depth], &alen);
        sb_putc(&sb, '.');
        sb_putn(&sb, a, alen);
    }
    char *out = arena_strndup(arena, sb.s, sb.len);
    sb_free(&sb);
    return out;
}
