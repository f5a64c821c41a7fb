/*
 * lint.h - the annotation rules of `tngc lint` (docs/rules.md).
 */
#ifndef TNGC_LINT_H
#define TNGC_LINT_H

#include "scan.h"

typedef struct LintOptions {
    const char *soc;       /* --soc NAME, or NULL */
    int torchair;          /* --torchair VERSION: its index (lint_torchair_version); 0, the newest, by default */
    /* TNG175, TorchAir's notice that the reduce-overhead mode will be
     * deprecated: `tngc lint` reports it; plan, gen and build, which print
     * lint's findings on the way to their own output, leave it out */
    int notices;
} LintOptions;

/* 1 when soc names a chip tngc knows; *has_super_kernel says whether it
 * runs super kernels: 0 no, 1 Atlas A3, 2 Atlas A2 (from TorchAir
 * fced8842's documentation on). */
int lint_soc_known(const char *soc, int *has_super_kernel);
/* The index of the TorchAir commit named by name (a short name such as
 * fced8842, a prefix of at least 7 hex digits of its commit, or "newest"),
 * or -1 when tngc does not know its CompilerConfig schema. */
int lint_torchair_version(const char *name);
/* The known commits for a usage message: "fced8842 (2026-06-01, the
 * default), 770a4d54 (2026-02-27)"; a static string. */
const char *lint_torchair_versions(void);
/* Appends every rule's diagnostics for sf to sf->diags, drops the ones a
 * `# tngc: ignore[...]` comment suppresses, and sorts them. */
void lint_file(ScanFile *sf, const LintOptions *opt);

#endif
