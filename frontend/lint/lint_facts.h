/*
 * lint_facts.h - what the files of `tngc lint` share: the state of one run
 * over a file, the reporting macros, and the facts every rule asks (the
 * mode of a compile, the functions it runs; lint_facts.c), and the rule
 * passes lint_file runs. lint.c holds the driver and the scope and gear
 * rules, lint_config.c the CompilerConfig rules, lint_api.c the rules on
 * TorchAir's entry points and cache_compile.
 */
#ifndef TNGC_LINT_FACTS_H
#define TNGC_LINT_FACTS_H

#include "scan.h"
#include "../diag/diag.h"

/* lint.h's options, used here by pointer only */
typedef struct LintOptions LintOptions;

typedef struct Lint {
    ScanFile *sf;
    const Ast *ast;
    const LintOptions *opt;
    uint8_t *compiles_func;   /* [compile * nfuncs + func]: func runs in that compile */
    size_t nfuncs;
} Lint;

#define REPORT(l, node, rule, ...) diag_node(&(l)->sf->diags, (l)->ast, (node), RULE_##rule, __VA_ARGS__)
/* REPORT at a severity other than the rule's (TNG125: a gear value of 1
 * is a warning, 0 an error); diag_node always appends. */
#define REPORT_AS(sev, l, node, rule, ...) \
    (REPORT(l, node, rule, __VA_ARGS__), (l)->sf->diags.v[(l)->sf->diags.n - 1].severity = (sev))

/* TorchAir's modes, default first. */
extern const char *const lint_modes[3];

/* The field a config path sets ("mode.value" sets "mode"). */
const char *lint_field_path(const char *path);
/* The last assignment of field path in config cfg, or NULL. */
const ConfigField *lint_field(const Lint *l, int cfg, const char *path);
/* The string a config field is set to: dflt when unset, NULL when the
 * config or the value is not known statically. */
const char *lint_config_str(const Lint *l, int cfg, const char *path, const char *dflt);
/* The mode of config cfg; NULL when unknown or not a valid mode. */
const char *lint_mode(const Lint *l, int cfg);
/* The mode of a compile through TorchAir, or NULL when unknown. */
const char *lint_compile_mode(const Lint *l, const Compile *c);
int lint_reduce_overhead(const Lint *l, const Compile *c);
/* True when compile c runs function func (its target or a method the
 * target calls through self). */
int lint_compiles(const Lint *l, size_t c, int func);
/* Marks the functions each compile runs (its target and, transitively, the
 * methods of its class it calls through self); lint_compiles reads it. */
void lint_compiled_functions(Lint *l);

/* lint_config.c: the rules on one CompilerConfig's fields. */
void lint_config(Lint *l, int cfg);
/* lint_config.c: torch.compile's options and mode with a TorchAir backend. */
void lint_compile_options(Lint *l, const Compile *c);
/* lint_config.c: what TorchAir compares across two configs: cache_compile's
 * config= against its backend's, and the GE session options of two
 * max-autotune compiles. */
void lint_config_pairs(Lint *l);
/* lint_api.c: the rules on one cache_compile call. */
void lint_cache_compile(Lint *l, const Compile *c);
void lint_api(Lint *l);
/* lint_dist.c: the rules on torch.distributed's groups and collectives. */
void lint_dist(Lint *l);

#endif
