/*
 * scan_out.c - `tngc scan` output: annotations in source order, as JSON
 * (the schema tests/golden/scan/README.md describes) or one text line each.
 */
#include "scan.h"
#include "../diag/diag.h"

#include <stdlib.h>
#include <string.h>

typedef struct Ordered {
    uint32_t start;
    int idx;
} Ordered;

static int scan__by_position(const void *a, const void *b)
{
    const Ordered *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->idx - y->idx;
}

/* Annotation indices in source order (the walk visits defs after module code). */
static int *scan__order(const ScanFile *self)
{
    Ordered *tmp = xmalloc((self->anns.n + 1) * sizeof *tmp);
    for (size_t i = 0; i < self->anns.n; i++)
        tmp[i] = (Ordered){self->ast.nodes[self->anns.v[i].node].start, (int)i};
    qsort(tmp, self->anns.n, sizeof *tmp, scan__by_position);
    int *order = xmalloc((self->anns.n + 1) * sizeof *order);
    for (size_t i = 0; i < self->anns.n; i++)
        order[i] = tmp[i].idx;
    free(tmp);
    return order;
}

static const char *scan__function_name(const ScanFile *self, const Annotation *a)
{
    if (a->cls >= 0)   /* a class body, also of a class defined in a def */
        return self->classes.v[a->cls].qualname;
    return a->func >= 0 ? self->funcs.v[a->func].qualname : "<module>";
}

static void scan__scope_json(const ScanFile *self, const Annotation *a, StrBuf *out)
{
    sb_puts(out, "[");
    for (size_t i = 0; i < a->nscopes; i++) {
        const Annotation *sc = &self->anns.v[a->scopes[i]];
        if (i)
            sb_putc(out, ',');
        sb_printf(out, "{\"kind\":\"%s\"", ann_kind_name[sc->kind]);
        const Value *name = sc->kind == ANN_super_kernel ? ann_arg(sc, "scope")
                          : sc->kind == ANN_npu_stream_switch ? ann_arg(sc, "stream_tag") : NULL;
        if (name) {
            sb_puts(out, sc->kind == ANN_super_kernel ? ",\"name\":" : ",\"tag\":");
            value_json(name, out);
        }
        if (sc->kind == ANN_limit_core_num) {
            sb_puts(out, ",\"op_aicore_num\":");
            value_json(ann_arg(sc, "op_aicore_num"), out);
            sb_puts(out, ",\"op_vectorcore_num\":");
            value_json(ann_arg(sc, "op_vectorcore_num"), out);
        }
        sb_printf(out, ",\"line\":%u,\"col\":%u,\"conditional\":%s}", self->ast.nodes[sc->node].line,
                  ast_col(&self->ast, sc->node), a->scope_cond[i] ? "true" : "false");
    }
    sb_puts(out, "]");
}

void scan_json(const ScanFile *self, StrBuf *out)
{
    int *order = scan__order(self);
    sb_puts(out, "{\"path\":");
    sb_json_str(out, self->src.path, strlen(self->src.path));
    sb_puts(out, ",\"annotations\":[");
    for (size_t k = 0; k < self->anns.n; k++) {
        const Annotation *a = &self->anns.v[order[k]];
        const char *fn = scan__function_name(self, a);
        sb_puts(out, k ? ",\n  " : "\n  ");
        sb_printf(out, "{\"kind\":\"%s\",\"resolved\":%s,\"line\":%u,\"col\":%u,\"function\":",
                  ann_kind_name[a->kind], a->resolved ? "true" : "false",
                  self->ast.nodes[a->node].line, ast_col(&self->ast, a->node));
        sb_json_str(out, fn, strlen(fn));
        sb_puts(out, ",\"callee\":");
        sb_json_str(out, a->callee, strlen(a->callee));
        sb_puts(out, ",\"args\":{");
        for (size_t i = 0; i < a->nargs; i++) {
            if (i)
                sb_putc(out, ',');
            sb_json_str(out, a->args[i].name, strlen(a->args[i].name));
            sb_putc(out, ':');
            value_json(a->args[i].value, out);
        }
        sb_puts(out, "},\"scopes\":");
        scan__scope_json(self, a, out);
        sb_putc(out, '}');
    }
    sb_puts(out, "],\"diagnostics\":[");
    for (size_t i = 0; i < self->diags.n; i++) {
        sb_puts(out, i ? ",\n  " : "\n  ");
        diag_json(&self->src, &self->diags.v[i], out);
    }
    sb_puts(out, "]}");
    free(order);
}

void scan_text(const ScanFile *self, StrBuf *out)
{
    int *order = scan__order(self);
    for (size_t k = 0; k < self->anns.n; k++) {
        const Annotation *a = &self->anns.v[order[k]];
        sb_printf(out, "%s:%u:%u: %s%s in %s", self->src.path, self->ast.nodes[a->node].line,
                  ast_col(&self->ast, a->node), ann_kind_name[a->kind],
                  a->resolved ? "" : " (unresolved)", scan__function_name(self, a));
        for (size_t i = 0; i < a->nargs; i++) {
            sb_printf(out, "%s%s=", i ? ", " : " (", a->args[i].name);
            value_json(a->args[i].value, out);
        }
        if (a->nargs)
            sb_putc(out, ')');
        for (size_t i = 0; i < a->nscopes; i++) {
            const Annotation *sc = &self->anns.v[a->scopes[i]];
            sb_printf(out, "%s%s@%u", i ? " > " : " within ", ann_kind_name[sc->kind],
                      self->ast.nodes[sc->node].line);
        }
        sb_putc(out, '\n');
    }
    free(order);
}
