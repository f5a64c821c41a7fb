/*
 * codegen.h - from plans to C sources (the emitters), and from sources to
 * a bundle (the clang driver and the build cache).
 *
 * Emitters are one per target (emit_cpu.c; the ACL target comes later).
 * They fill a GenFiles with the text of every file of a bundle; writing
 * them (atomically) is the caller's job, so a failing generation leaves
 * nothing behind.
 */
#ifndef TNGC_CODEGEN_H
#define TNGC_CODEGEN_H

#include "../planner/plan.h"

/* One generated file: its name inside the output directory and its text. */
typedef struct GenFile {
    char *name;
    StrBuf text;
    int is_tu;             /* a translation unit of lib<name>.a */
} GenFile;

typedef VEC(GenFile) GenFiles;

typedef struct GenOptions {
    const char *name;          /* the bundle name: a C identifier */
    const char *script;        /* the script path as given (banner, #line) */
    const char *version;       /* tngc's version (banner) */
    int line_directives;       /* #line back to the script (--no-line: 0) */
    const char *const *user_ops; /* op names whose kernel the user supplies (NULL-terminated) */
} GenOptions;

/* Appends the files of p's bundle for the CPU target to out; returns 0, or
 * -1 with diagnostics in diags (an op the CPU target cannot emit). */
int emit_cpu(const Plan *p, const GenOptions *opt, GenFiles *out, DiagList *diags);

typedef VEC(const char *) NameList;

/* The op names of user-kernel ops of p in program order of first use
 * (one per kind), appended to names; returns how many. */
int emit_user_ops(const Plan *p, const GenOptions *opt, NameList *names);

/* The exact C type of a user kernel function, as libclang spells it. */
extern const char emit_user_kernel_type[];

void genfiles_free(GenFiles *self);

/* ---- templates (the files of templates/, embedded by the Makefile) ---- */

/* The text of template file name ("bundle.c", "tngc_template.h",
 * "launcher.c"), or NULL. */
const char *template_text(const char *name);

/* Appends template `name` to out with every "tngc_template" replaced by
 * bundle, "TNGC_TEMPLATE" by its upper-case form, and each line that holds
 * a marker "@tngc:KEY@" replaced by the text splice(KEY) returns. */
void template_expand(const char *tpl, const char *bundle,
                     const char *(*splice)(void *ctx, const char *key), void *ctx,
                     StrBuf *out);

#endif
