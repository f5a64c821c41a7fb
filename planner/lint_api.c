/*
 * lint_api.c - the rules on how a script reaches TorchAir: cache_compile's
 * target and options.
 */
#include "lint_impl.h"

#include <string.h>

/* ---- cache_compile ---- */

void lint_cache_compile(Lint *l, const Compile *c)
{
    ScanFile *sf = l->sf;
    const Annotation *a = &sf->anns.v[c->ann];
    int32_t t = c->target;
    if (t < 0) {   /* @cache_compile(...) on a def: not the form TorchAir supports */
        REPORT(l, a->node, TNG150, "cache_compile takes a method of the module as self.<method>, not as a decorator");
        return;
    }
    int self_attr = t >= 0 && l->ast->nodes[t].kind == NK_attribute &&
                    ast_text_is(l->ast, ast_field(l->ast, t, F_object), "self");
    /* a parameter or other unknown name may hold self.<method>: silent */
    int unknown_name = t >= 0 && l->ast->nodes[t].kind == NK_identifier && !c->target_is_function;
    if (t >= 0 && !self_attr && !unknown_name) {
        REPORT(l, t, TNG150, "cache_compile takes a method of the module as self.<method>");
        return;
    }
    if (c->fullgraph == TRI_FALSE)
        REPORT(l, a->node, TNG152, "cache_compile needs the full graph; fullgraph=False is not allowed");
    const Value *dir = ann_arg(a, "cache_dir");
    if (dir && dir->kind == V_STR && (dir->len == 0 || dir->s[0] != '/' || memchr(dir->s, 0, dir->len)) &&
        path_escapes(dir->s, dir->len))
        REPORT(l, dir->node, TNG153, "cache_dir must not contain a '..' component or NUL (an absolute path may)");
    if (c->func < 0)
        return;
    const Function *f = &sf->funcs.v[c->func];
    if (f->ndecorators)
        REPORT(l, t, TNG151, "cache_compile of %s, which is decorated; the method must not be wrapped by a decorator",
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

