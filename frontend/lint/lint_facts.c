/*
 * lint_facts.c - the facts every lint rule asks: the field a config path
 * sets, the value and mode of a config, the mode of a compile, and the
 * functions each compile runs.
 */
#include "lint_facts.h"

#include <stdlib.h>
#include <string.h>

/* ---- config facts ---- */

/* The field a config path sets: `config.mode.value = "..."` sets `mode`
 * (TorchAir's OptionValue; the same validating setter,
 * _option_base.py:42-48). */
const char *lint_field_path(const char *path)
{
    return !strcmp(path, "mode.value") ? "mode" : path;
}

/* True when assigning to set sets the option at path: the path itself or
 * its OptionValue's .value (the same validating setter,
 * _option_base.py:42-48). */
static int lint__same_field(const char *set, const char *path)
{
    size_t n = strlen(path);
    return !strncmp(set, path, n) && (set[n] == 0 || !strcmp(set + n, ".value"));
}

const ConfigField *lint_field(const Lint *l, int cfg, const char *path)
{
    if (cfg < 0)
        return NULL;
    const Config *c = &l->sf->configs.v[cfg];
    for (size_t i = c->fields.n; i-- > 0;)
        if (lint__same_field(c->fields.v[i].path, path))
            return &c->fields.v[i];
    return NULL;
}

/* The string a config field is set to: its default when unset, NULL when
 * the config or the value is not known statically. */
const char *lint_config_str(const Lint *l, int cfg, const char *path, const char *dflt)
{
    if (cfg == CONFIG_UNKNOWN)
        return NULL;
    const ConfigField *f = lint_field(l, cfg, path);
    if (!f)
        return dflt;
    return f->value && f->value->kind == V_STR ? f->value->s : NULL;
}

const char *const lint_modes[3] = {"max-autotune", "reduce-overhead", "npugraph_ex"};

/* The mode of a config; NULL when unknown or not a valid mode (TNG165). */
const char *lint_mode(const Lint *l, int cfg)
{
    if (cfg >= 0 && l->sf->configs.v[cfg].npugraph_ex)
        return "npugraph_ex";   /* the only mode its option accepts */
    const char *m = lint_config_str(l, cfg, "mode", "max-autotune");
    for (size_t i = 0; m && i < 3; i++)
        if (!strcmp(m, lint_modes[i]))
            return m;
    return NULL;
}

/* The mode of a compile through TorchAir, or NULL when unknown. */
const char *lint_compile_mode(const Lint *l, const Compile *c)
{
    return c->torchair == 1 ? lint_mode(l, c->config) : NULL;
}

int lint_reduce_overhead(const Lint *l, const Compile *c)
{
    const char *m = lint_compile_mode(l, c);
    return m && !strcmp(m, "reduce-overhead");
}

/* Marks the functions each compile runs: its target and, transitively,
 * the methods of the same class it calls through self. */
void lint_compiled_functions(Lint *l)
{
    ScanFile *sf = l->sf;
    l->nfuncs = sf->funcs.n;
    l->compiles_func = xcalloc(sf->compiles.n * l->nfuncs + 1, 1);
    int *work = xmalloc((l->nfuncs + 1) * sizeof *work);
    for (size_t c = 0; c < sf->compiles.n; c++) {
        int f0 = sf->compiles.v[c].func;
        if (f0 < 0)
            continue;
        uint8_t *mark = l->compiles_func + c * l->nfuncs;
        size_t n = 0;
        mark[f0] = 1;
        work[n++] = f0;
        while (n) {
            const Function *f = &sf->funcs.v[work[--n]];
            for (size_t i = 0; i < f->self_calls.n; i++)
                for (size_t g = 0; g < sf->funcs.n; g++)
                    if (!mark[g] && sf->funcs.v[g].cls == f->cls && f->cls >= 0 &&
                        !strcmp(sf->funcs.v[g].name, f->self_calls.v[i])) {
                        mark[g] = 1;
                        work[n++] = (int)g;
                    }
        }
    }
    free(work);
}

int lint_compiles(const Lint *l, size_t c, int func)
{
    return func >= 0 && l->compiles_func[c * l->nfuncs + (size_t)func];
}
