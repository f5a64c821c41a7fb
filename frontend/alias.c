/*
 * alias.c - file-wide import alias resolution. Every import statement of
 * the file (module level, in functions, in try/except) binds a local name
 * to a dotted module path; a callee expression resolves when its leftmost
 * name is such a binding. A module-level def or class of the same name
 * shadows the import (the project's own wrapper wins), which makes the
 * name unresolved.
 */
#include "frontend.h"

#include <string.h>

struct AliasTable {
    StrMap names;           /* local name -> dotted path; "" when shadowed */
    VEC(const char *) star; /* modules imported with `from M import *` */
};

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
 * (try: import torchair as tng / except: from x import torchair as tng). */
static int alias__rank(const char *path)
{
    return strncmp(path, "torchair", 8) == 0 || strncmp(path, "torch", 5) == 0 ||
           strncmp(path, "torch_npu", 9) == 0;
}

static void alias__bind(AliasTable *t, const char *local, const char *path)
{
    const char *old = strmap_get(&t->names, local);
    if (old && (!*old || alias__rank(old) >= alias__rank(path)))
        return;
    strmap_put(&t->names, local, (void *)path);
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
                alias__bind(t, alias__text(ast, alias, arena), alias__text(ast, name, arena));
        } else if (ast->nodes[c].kind == NK_dotted_name) {
            char *path = alias__text(ast, c, arena);
            char *dot = strchr(path, '.');
            char *root = dot ? arena_strndup(arena, path, (size_t)(dot - path)) : path;
            alias__bind(t, root, root);
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
        alias__bind(t, alias__text(ast, alias, arena),
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
    VEC_FREE(self->star);
    free(self);
}

const char *alias_lookup(const AliasTable *self, const char *local)
{
    const char *p = strmap_get(&self->names, local);
    return p && *p ? p : NULL;
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
