/*
 * lint_config.c - the CompilerConfig rules of `tngc lint`: every field a
 * script sets must exist in TorchAir's config classes and hold a value
 * their setters accept.
 */
#include "lint_impl.h"

#include <string.h>

/* ---- config fields ---- */

static const char *const config_fields[] = {
    "mode",
    "experimental_config.aclgraph._aclnn_static_shape_kernel",
    "experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir",
    "ge_config.enable_single_stream",
    "inference_config.dynamic_gears_merge_policy",
    "debug.graph_dump.type",
};

/* TorchAir's config sections. Fields inside them that tngc does not
 * interpret are many (frozen_parameter, tiling_schedule_optimize, ...):
 * they are accepted unless they look like a typo of a field tngc knows. */
static const char *const config_sections[] = {
    "debug", "dump_config", "export", "aoe_config", "fusion_config",
    "experimental_config", "inference_config", "ge_config",
};

/* Edit distance of a and b, counting a swap of neighbours as one edit. */
static size_t lint__distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64)
        return 99;
    size_t d[65][65];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m];
}

/* NULL when path is a field TorchAir may have; else the message. */
static const char *lint__unknown_field(Arena *arena, const char *path)
{
    for (size_t k = 0; k < sizeof config_fields / sizeof *config_fields; k++)
        if (!strcmp(path, config_fields[k]))
            return NULL;
    for (size_t k = 0; k < sizeof config_fields / sizeof *config_fields; k++)
        if (lint__distance(path, config_fields[k]) <= 2)
            return arena_printf(arena, "CompilerConfig has no field '%s'; did you mean '%s'?", path, config_fields[k]);
    size_t top = strcspn(path, ".");
    if (!path[top])
        return arena_printf(arena, "CompilerConfig has no field '%s'", path);
    for (size_t k = 0; k < sizeof config_sections / sizeof *config_sections; k++)
        if (strlen(config_sections[k]) == top && !strncmp(path, config_sections[k], top))
            return NULL;
    return arena_printf(arena, "CompilerConfig has no section '%.*s' (sections: debug, dump_config, export, aoe_config, fusion_config, experimental_config, inference_config, ge_config)",
                        (int)top, path);
}

static int lint__str_in(const Value *v, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v->len == strlen(list[i]) && !memcmp(v->s, list[i], v->len))
            return 1;
    return 0;
}

void lint_config(Lint *l, int cfg)
{
    static const char *const dumps[] = {"txt", "pbtxt", "py"};
    static const char *const policies[] = {"zip", "product"};
    const Config *c = &l->sf->configs.v[cfg];
    const char *mode = lint_mode(l, cfg);
    int ro = mode && !strcmp(mode, "reduce-overhead");
    for (size_t i = 0; i < c->fields.n; i++) {
        const ConfigField *f = &c->fields.v[i];
        const Value *v = f->value;
        const char *path = lint_field_path(f->path);
        const char *unknown = lint__unknown_field(&l->sf->arena, path);
        if (unknown) {
            REPORT(l, f->node, TNG164, "%s", unknown);
            continue;
        }
        if (!v || v->kind == V_EXPR)
            continue;
        if (!strcmp(path, "mode")) {
            if (v->kind != V_STR || !lint__str_in(v, lint_modes, 3))
                REPORT(l, v->node, TNG165, "unknown mode; use max-autotune, reduce-overhead or npugraph_ex");
        } else if (!strcmp(f->path, "experimental_config.aclgraph._aclnn_static_shape_kernel")) {
            if (v->kind == V_BOOL && v->i && mode && !strcmp(mode, "max-autotune"))
                REPORT(l, f->node, TNG160, "static kernels work only in reduce-overhead mode: TorchAir warns and ignores this in %s mode", mode);
        } else if (!strcmp(f->path, "experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir")) {
            if (v->kind == V_STR && path_escapes(v->s, v->len))
                REPORT(l, v->node, TNG161, "the static kernel build dir must not contain '..' or NUL");
        } else if (!strcmp(f->path, "debug.graph_dump.type")) {
            if (v->kind != V_STR || !lint__str_in(v, dumps, 3))
                REPORT(l, v->node, TNG162, "graph_dump.type must be txt, pbtxt or py");
            else if (ro && !(v->len == 2 && !memcmp(v->s, "py", 2)))
                REPORT(l, f->node, TNG163, "only graph_dump.type = \"py\" works in reduce-overhead mode");
        } else if (!strcmp(f->path, "inference_config.dynamic_gears_merge_policy")) {
            if (v->kind != V_STR || !lint__str_in(v, policies, 2))
                REPORT(l, v->node, TNG130, "dynamic_gears_merge_policy must be \"zip\" or \"product\"");
        }
    }
}

