/*
 * tngc.c - the command line. Each command is one function that reads as
 * its pipeline; for this release: scan (parse -> scan annotations), lint
 * (parse -> scan -> rules -> report), plan (parse -> scan -> rules ->
 * interpret -> lower -> plan -> print) and recompiles (host log analysis).
 *
 * Exit status: 0 success / no errors, 1 errors found (lint; warnings too
 * with --werror), 2 usage or I/O error.
 */
#define _POSIX_C_SOURCE 200809L
#include "frontend/diag.h"
#include "frontend/frontend.h"
#include "frontend/hostlog.h"
#include "frontend/interp.h"
#include "planner/lint.h"
#include "planner/plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifndef TNGC_VERSION
#define TNGC_VERSION "0.1.0"
#endif

enum { EXIT_OK = 0, EXIT_FOUND = 1, EXIT_USAGE = 2 };

static const char usage_main[] =
    "usage: tngc [--version] [--help] COMMAND [ARGS]\n"
    "\n"
    "tngc reads PyTorch scripts annotated for TorchAir (the Ascend NPU backend\n"
    "of torch.compile) and checks and analyses their annotations.\n"
    "\n"
    "commands:\n"
    "  scan        list the TorchAir annotations of Python files\n"
    "  lint        report misuse of the annotations (pre-commit checks)\n"
    "  plan        interpret a model script, lower its compiled entries and print their plan\n"
    "  recompiles  find operators recompiled because of dynamic shapes, from a host log\n"
    "\n"
    "Run 'tngc COMMAND --help' for the options of a command.\n"
    "Code generation and bundles (gen, build) are not in this release.\n";

static const char usage_plan[] =
    "usage: tngc plan [--entry NAME] [--format text|json|dot] [-o FILE] [--manifest] FILE\n"
    "\n"
    "Runs the script's module-level code abstractly, lowers each compiled entry it\n"
    "calls (torch.compile'd models and methods, cache_compile'd methods) to an op\n"
    "graph, and plans it: gears, per-stream schedules with events, super-kernel\n"
    "segments, a memory arena per gear, row independence of geared dims and the\n"
    "static-kernel instances (docs/plan.md, docs/plan-format.md).\n"
    "\n"
    "  --entry NAME     plan only the entry NAME (e.g. Model.forward)\n"
    "  --format text    a stable, diffable dump (default)\n"
    "  --format json    {\"file\": ..., \"entries\": [...]}\n"
    "  --format dot     Graphviz: one colour per stream, a cluster per segment\n"
    "  -o FILE          write the plan to FILE (atomically) instead of stdout\n"
    "  --manifest       also write the static-kernel op-info tree of entries in\n"
    "                   reduce-overhead mode with _aclnn_static_shape_kernel = True,\n"
    "                   under their build dir (relative to the script's folder;\n"
    "                   default: the script's folder). SOURCE_DATE_EPOCH fixes the\n"
    "                   timestamp and pid in its path.\n"
    "\n"
    "The annotation rules of 'tngc lint' run first. Diagnostics go to stderr in gcc's\n"
    "format. Exit status: 0 planned, 1 errors in the script, 2 usage or I/O errors.\n";

static const char usage_scan[] =
    "usage: tngc scan [--format text|json] FILE...\n"
    "\n"
    "Lists every TorchAir annotation of each FILE: super_kernel, npu_stream_switch,\n"
    "npu_wait_tensor, limit_core_num, set_dim_gears, mark_static, cache_compile,\n"
    "CompilerConfig() calls and field assignments, get_npu_backend, torch.compile.\n"
    "Calls that only share an annotation's name are listed as unresolved.\n"
    "\n"
    "  --format text   one line per annotation (default)\n"
    "  --format json   one JSON document {\"files\": [...]}\n"
    "\n"
    "Exit status: 0, or 1 if a file has syntax errors, 2 on usage or I/O errors.\n";

static const char usage_lint[] =
    "usage: tngc lint [--format text|json|sarif] [--soc NAME] [--werror] FILE...\n"
    "\n"
    "Reports misuse of TorchAir annotations (rules TNG001-TNG165, see docs/rules.md).\n"
    "A '# tngc: ignore[TNG123]' comment suppresses a rule on its line.\n"
    "\n"
    "  --format text    gcc-style diagnostics with the source line (default)\n"
    "  --format json    a JSON list of {path, line, col, end_line, end_col,\n"
    "                   severity, rule, message}\n"
    "  --format sarif   SARIF 2.1.0, for code-scanning tools\n"
    "  --soc NAME       the target chip, e.g. Ascend910_9391 (Atlas A3) or Ascend910B1\n"
    "  --werror         warnings make the exit status 1\n"
    "\n"
    "Exit status: 0 no errors, 1 errors (or warnings with --werror), 2 usage or I/O errors.\n";

static const char usage_recompiles[] =
    "usage: tngc recompiles LOG [--split-flag S] [--after N] [-o FILE] [--format text|json]\n"
    "\n"
    "Reads a host log with 'To compile op: NAME' lines and iteration markers, writes\n"
    "the per-iteration list of compiled ops (recompile_op_list.txt format), and reports\n"
    "the ops first compiled after iteration N as dynamic-shape suspects.\n"
    "\n"
    "  --split-flag S   iteration marker (default '=====iter')\n"
    "  --after N        suspects are ops first compiled in an iteration > N (default 3)\n"
    "  -o FILE          the list file (default recompile_op_list.txt)\n"
    "  --format F       the report on stdout: text (default) or json\n"
    "\n"
    "Reads the log as a stream: memory does not grow with its size.\n"
    "Exit status: 0 success, 2 usage or I/O errors.\n";

static int usage_error(const char *usage, const char *fmt, const char *arg)
{
    fprintf(stderr, "tngc: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%.*s", (int)strcspn(usage, "\n"), usage);
    fputs("\n", stderr);
    return EXIT_USAGE;
}

static int write_out(const StrBuf *out)
{
    if (out->len && fwrite(out->s, 1, out->len, stdout) != out->len)
        return -1;
    return fflush(stdout) == 0 ? 0 : -1;
}

typedef struct Cli {
    const char *format;
    const char *soc;
    int werror;
    VEC(const char *) files;
} Cli;

/* Parses the options shared by scan and lint: -1 to go on, else the exit
 * status to end with (--help, usage errors). */
static int parse_file_args(int argc, char **argv, const char *usage, const char *const *formats,
                           int allow_lint_opts, Cli *cli)
{
    int only_files = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || !strcmp(a, "-")) {
            VEC_PUSH(cli->files, a);
        } else if (!strcmp(a, "--")) {
            only_files = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--format") || !strncmp(a, "--format=", 9)) {
            const char *v = a[8] == '=' ? a + 9 : i + 1 < argc ? argv[++i] : NULL;
            if (!v)
                return usage_error(usage, "%s needs a value", a);
            int ok = 0;
            for (const char *const *f = formats; *f; f++)
                ok |= !strcmp(*f, v);
            if (!ok)
                return usage_error(usage, "unknown format '%s'", v);
            cli->format = v;
        } else if (allow_lint_opts && (!strcmp(a, "--soc") || !strncmp(a, "--soc=", 6))) {
            const char *v = a[5] == '=' ? a + 6 : i + 1 < argc ? argv[++i] : NULL;
            int has_sk;
            if (!v)
                return usage_error(usage, "%s needs a value", a);
            if (!lint_soc_known(v, &has_sk))
                return usage_error(usage, "unknown --soc '%s' (e.g. Ascend910_9391, Ascend910B1, Ascend310P3)", v);
            cli->soc = v;
        } else if (allow_lint_opts && !strcmp(a, "--werror")) {
            cli->werror = 1;
        } else {
            return usage_error(usage, "unknown option '%s'", a);
        }
    }
    if (!cli->files.n)
        return usage_error(usage, "%sno input files", "");
    return -1;
}

/* tngc scan: source -> parse -> scan -> report */
static int cmd_scan(int argc, char **argv)
{
    static const char *const formats[] = {"text", "json", NULL};
    Cli cli = {.format = "text"};
    int rc = parse_file_args(argc, argv, usage_scan, formats, 0, &cli);
    if (rc >= 0)
        return rc;
    int json = !strcmp(cli.format, "json");
    int status = EXIT_OK;
    StrBuf out = {0};
    if (json)
        sb_puts(&out, "{\"files\":[");
    for (size_t i = 0; i < cli.files.n; i++) {
        ScanFile sf;
        char err[512];
        if (scanfile_load(&sf, cli.files.v[i], err, sizeof err) != 0) {
            fprintf(stderr, "tngc: %s\n", err);
            status = EXIT_USAGE;
            continue;
        }
        diag_sort(&sf.diags);
        if (sf.diags.n && status == EXIT_OK)
            status = EXIT_FOUND;
        if (json) {
            if (i && out.len > 10)
                sb_puts(&out, ",\n");
            scan_json(&sf, &out);
        } else {
            scan_text(&sf, &out);
            for (size_t d = 0; d < sf.diags.n; d++)
                diag_text(&sf.src, &sf.diags.v[d], &out);
        }
        scanfile_free(&sf);
    }
    if (json)
        sb_puts(&out, "]}\n");
    if (write_out(&out) != 0) {
        fprintf(stderr, "tngc: writing the output: %s\n", strerror(errno));
        status = EXIT_USAGE;
    }
    sb_free(&out);
    VEC_FREE(cli.files);
    return status;
}

/* tngc lint: source -> parse -> scan -> rules -> report */
static int cmd_lint(int argc, char **argv)
{
    static const char *const formats[] = {"text", "json", "sarif", NULL};
    Cli cli = {.format = "text"};
    int rc = parse_file_args(argc, argv, usage_lint, formats, 1, &cli);
    if (rc >= 0)
        return rc;
    LintOptions opt = {cli.soc};
    int json = !strcmp(cli.format, "json"), sarif = !strcmp(cli.format, "sarif");
    size_t errors = 0, warnings = 0, reported = 0;
    int io_error = 0;
    StrBuf out = {0};
    if (json)
        sb_puts(&out, "[");
    if (sarif)
        diag_sarif_begin(&out, TNGC_VERSION);
    for (size_t i = 0; i < cli.files.n; i++) {
        ScanFile sf;
        char err[512];
        if (scanfile_load(&sf, cli.files.v[i], err, sizeof err) != 0) {
            fprintf(stderr, "tngc: %s\n", err);
            io_error = 1;
            continue;
        }
        lint_file(&sf, &opt);
        for (size_t d = 0; d < sf.diags.n; d++) {
            const Diag *dg = &sf.diags.v[d];
            errors += dg->severity == SEV_ERROR;
            warnings += dg->severity == SEV_WARNING;
            if (json) {
                sb_puts(&out, reported ? ",\n " : "\n ");
                diag_json(&sf.src, dg, &out);
            } else if (sarif) {
                diag_sarif(&sf.src, dg, reported == 0, &out);
            } else {
                diag_text(&sf.src, dg, &out);
            }
            reported++;
        }
        scanfile_free(&sf);
    }
    if (json)
        sb_puts(&out, reported ? "\n]\n" : "]\n");
    if (sarif)
        diag_sarif_end(&out);
    if (!json && !sarif && (errors || warnings))
        sb_printf(&out, "%zu error%s, %zu warning%s\n", errors, errors == 1 ? "" : "s", warnings,
                  warnings == 1 ? "" : "s");
    if (write_out(&out) != 0) {
        fprintf(stderr, "tngc: writing the output: %s\n", strerror(errno));
        io_error = 1;
    }
    sb_free(&out);
    VEC_FREE(cli.files);
    if (io_error)
        return EXIT_USAGE;
    return errors || (cli.werror && warnings) ? EXIT_FOUND : EXIT_OK;
}

/* The directory part of path ("." when none). */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return xstrdup(".");
    if (slash == path)
        return xstrdup("/");
    return xstrndup(path, (size_t)(slash - path));
}

/* Writes the manifests of the entries that ask for static kernels. */
static int plan_manifests(Plan *plans, size_t n, const char *script)
{
    int written = 0;
    for (size_t i = 0; i < n; i++) {
        const EntryConfig *c = &plans[i].g->cfg;
        if (!c->static_kernel || !c->mode || strcmp(c->mode, "reduce-overhead") != 0)
            continue;
        char *dir = dir_of(script);
        char *build = NULL;
        if (!c->build_dir)
            build = xstrdup(dir);
        else if (c->build_dir[0] == '/' || !strcmp(dir, "."))
            build = xstrdup(c->build_dir);
        else {
            StrBuf sb = {0};
            sb_printf(&sb, "%s/%s", dir, c->build_dir);
            build = sb.s;
        }
        char err[512];
        int rc = manifest_write(&plans[i], build, err, sizeof err);
        free(dir);
        free(build);
        if (rc != 0) {
            fprintf(stderr, "tngc: %s: %s\n", plans[i].g->name, err);
            return -1;
        }
        written++;
    }
    if (!written)
        fprintf(stderr, "tngc: no entry runs in reduce-overhead mode with _aclnn_static_shape_kernel = True: no manifest written\n");
    return 0;
}

/* tngc plan: source -> parse -> scan -> lint rules -> interpret -> lower ->
 * plan -> print */
static int cmd_plan(int argc, char **argv)
{
    const char *format = "text", *entry = NULL, *file = NULL, *outpath = NULL;
    int manifest = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_plan, stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--format") || !strcmp(a, "--entry") || !strcmp(a, "-o")) {
            if (!v)
                return usage_error(usage_plan, "%s needs a value", a);
            i++;
            if (!strcmp(a, "--entry"))
                entry = v;
            else if (!strcmp(a, "-o"))
                outpath = v;
            else if (!strcmp(v, "text") || !strcmp(v, "json") || !strcmp(v, "dot"))
                format = v;
            else
                return usage_error(usage_plan, "unknown format '%s'", v);
        } else if (!strcmp(a, "--manifest")) {
            manifest = 1;
        } else if (a[0] == '-' && a[1]) {
            return usage_error(usage_plan, "unknown option '%s'", a);
        } else if (file) {
            return usage_error(usage_plan, "one script at a time ('%s' is extra)", a);
        } else {
            file = a;
        }
    }
    if (!file)
        return usage_error(usage_plan, "%sno input file", "");

    ScanFile sf;
    char err[512];
    if (scanfile_load(&sf, file, err, sizeof err) != 0) {
        fprintf(stderr, "tngc: %s\n", err);
        return EXIT_USAGE;
    }
    LintOptions lopt = {NULL};
    lint_file(&sf, &lopt);
    int errors = 0;
    for (size_t d = 0; d < sf.diags.n; d++)
        errors |= sf.diags.v[d].severity == SEV_ERROR;
    InterpResult ir = {0};
    VEC(Plan) plans = {0};
    if (!errors && interp_run(&sf, entry, &ir) != 0)
        errors = 1;
    for (size_t i = 0; !errors && i < ir.nentries; i++) {
        Plan p;
        if (plan_build(&p, ir.entries[i], &sf.diags) != 0)
            errors = 1;
        VEC_PUSH(plans, p);
    }
    diag_sort(&sf.diags);
    diag_dedup(&sf.diags);
    StrBuf diags = {0};
    for (size_t d = 0; d < sf.diags.n; d++)
        diag_text(&sf.src, &sf.diags.v[d], &diags);
    if (diags.len)
        fputs(diags.s, stderr);
    sb_free(&diags);

    int status = errors ? EXIT_FOUND : EXIT_OK;
    if (!errors) {
        StrBuf out = {0};
        if (!strcmp(format, "json")) {
            sb_puts(&out, "{\"file\":");
            sb_json_str(&out, file, strlen(file));
            sb_puts(&out, ",\"entries\":[");
            for (size_t i = 0; i < plans.n; i++) {
                if (i)
                    sb_puts(&out, ",\n");
                plan_json(&plans.v[i], &out);
            }
            sb_puts(&out, "]}\n");
        } else {
            for (size_t i = 0; i < plans.n; i++) {
                if (i)
                    sb_puts(&out, "\n");
                if (!strcmp(format, "dot"))
                    plan_dot(&plans.v[i], &out);
                else
                    plan_text(&plans.v[i], &out);
            }
        }
        if (manifest && plan_manifests(plans.v, plans.n, file) != 0)
            status = EXIT_USAGE;
        if (status != EXIT_OK) {
            /* no plan file for make to take as up to date */
        } else if (outpath) {
            if (write_file_atomic(outpath, out.s ? out.s : "", out.len) != 0) {
                fprintf(stderr, "tngc: cannot write %s: %s\n", outpath, strerror(errno));
                status = EXIT_USAGE;
            }
        } else if (write_out(&out) != 0) {
            fprintf(stderr, "tngc: writing the output: %s\n", strerror(errno));
            status = EXIT_USAGE;
        }
        sb_free(&out);
    }
    for (size_t i = 0; i < plans.n; i++)
        plan_free(&plans.v[i]);
    VEC_FREE(plans);
    interp_result_free(&ir);
    scanfile_free(&sf);
    return status;
}

static int parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < 0)
        return -1;
    *out = v;
    return 0;
}

/* tngc recompiles: host log -> per-iteration op lists -> suspects */
static int cmd_recompiles(int argc, char **argv)
{
    HostlogOptions opt;
    hostlog_options_init(&opt);
    const char *log = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_recompiles, stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--split-flag") || !strcmp(a, "--after") || !strcmp(a, "-o") ||
                   !strcmp(a, "--format")) {
            if (!v)
                return usage_error(usage_recompiles, "%s needs a value", a);
            i++;
            if (!strcmp(a, "--split-flag")) {
                if (!*v)
                    return usage_error(usage_recompiles, "%s--split-flag must not be empty", "");
                opt.split_flag = v;
            } else if (!strcmp(a, "--after")) {
                if (parse_long(v, &opt.after) != 0)
                    return usage_error(usage_recompiles, "--after takes a non-negative integer, not '%s'", v);
            } else if (!strcmp(a, "-o")) {
                opt.list_path = v;
            } else if (!strcmp(v, "json") || !strcmp(v, "text")) {
                opt.json = !strcmp(v, "json");
            } else {
                return usage_error(usage_recompiles, "unknown format '%s'", v);
            }
        } else if (a[0] == '-' && a[1]) {
            return usage_error(usage_recompiles, "unknown option '%s'", a);
        } else if (log) {
            return usage_error(usage_recompiles, "one log at a time ('%s' is extra)", a);
        } else {
            log = a;
        }
    }
    if (!log)
        return usage_error(usage_recompiles, "%sno log file", "");
    return hostlog_recompiles(&opt, log, stdout, stderr);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error(usage_main, "%sno command given", "");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("tngc %s (tree-sitter-python 0.23.6)\n", TNGC_VERSION);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage_main, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "scan"))
        return cmd_scan(argc - 1, argv + 1);
    if (!strcmp(cmd, "lint"))
        return cmd_lint(argc - 1, argv + 1);
    if (!strcmp(cmd, "plan"))
        return cmd_plan(argc - 1, argv + 1);
    if (!strcmp(cmd, "recompiles"))
        return cmd_recompiles(argc - 1, argv + 1);
    return usage_error(usage_main, "unknown command '%s'", cmd);
}
