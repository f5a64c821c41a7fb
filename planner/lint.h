/*
 * lint.h - the annotation rules of `tngc lint` (docs/rules.md).
 */
#ifndef TNGC_LINT_H
#define TNGC_LINT_H

#include "../frontend/frontend.h"

typedef struct LintOptions {
    const char *soc;       /* --soc NAME, or NULL */
} LintOptions;

/* 1 when soc names a chip tngc knows; *has_super_kernel says whether it
 * runs super kernels (only Atlas A3 does). */
int lint_soc_known(const char *soc, int *has_super_kernel);
/* Appends every rule's diagnostics for sf to sf->diags, drops the ones a
 * `# tngc: ignore[...]` comment suppresses, and sorts them. */
void lint_file(ScanFile *sf, const LintOptions *opt);

#endif
