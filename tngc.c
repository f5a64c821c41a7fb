/*
 * tngc.c - the command line. Each command is one function that reads as
 * its pipeline: scan (parse -> scan annotations), lint (parse -> scan ->
 * rules -> report), plan (parse -> scan -> rules -> interpret -> lower ->
 * plan -> print), gen (... plan -> emit C from templates -> write), build
 * (... emit -> compile with clang -> bundle) and recompiles (host logs).
 *
 * Exit status: 0 success / no errors, 1 errors found (lint; warnings too
 * with --werror), 2 usage or I/O error.
 */
#define _POSIX_C_SOURCE 200809L
#include "frontend/diag/diag.h"
#include "frontend/lint/scan.h"
#include "hostlog/hostlog.h"
#include "frontend/lower/interp.h"
#include "frontend/lint/lint.h"
#include "planner/plan.h"
#include "codegen/build.h"
#include "codegen/cesc.h"

#include <sys/stat.h>
#include <unistd.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifndef TNGC_VERSION
#define TNGC_VERSION "0.2.0"
#endif

enum { EXIT_OK = 0, EXIT_FOUND = 1, EXIT_USAGE = 2 };

static const char usage_main[] =
    "usage: tngc [--version] [--help] COMMAND [ARGS]\n"
    "\n"
    "tngc reads PyTorch scripts annotated for TorchAir (the Ascend NPU backend\n"
    "of torch.compile), checks and analyses their annotations, and compiles their\n"
    "models into C bundles and launchers that run without Python, on a CPU or\n"
    "(--target acl) against AscendCL for an Ascend NPU.\n"
    "\n"
    "commands:\n"
    "  scan        list the TorchAir annotations of Python files\n"
    "  lint        report misuse of the annotations (pre-commit checks)\n"
    "  plan        interpret a model script, lower its compiled entries and print their plan\n"
    "  gen         generate the C sources of a model bundle (--target cpu or acl)\n"
    "  build       generate and compile a bundle: lib<name>.a and a launcher\n"
    "  recompiles  find operators recompiled because of dynamic shapes, from a host log\n"
    "\n"
    "Run 'tngc COMMAND --help' for the options of a command.\n";

static const char usage_plan[] =
    "usage: tngc plan [--entry NAME] [--format text|json|dot] [-o FILE] [--manifest]\n"
    "                 [--max-memory MB] [--max-time SECONDS] FILE\n"
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
    "  --max-memory MB  the interpreter's memory budget (default 512)\n"
    "  --max-time SECONDS  its time budget (default 10); a script that needs more is\n"
    "                   stopped with one TNG212 error at the statement running then\n"
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
    "usage: tngc lint [--format text|json|sarif] [--soc NAME] [--torchair VERSION] [--werror] FILE...\n"
    "\n"
    "Reports misuse of TorchAir annotations (rules TNG001-TNG171, see docs/rules.md).\n"
    "A '# tngc: ignore[TNG123]' comment suppresses a rule on its line.\n"
    "\n"
    "  --format text    gcc-style diagnostics with the source line (default)\n"
    "  --format json    a JSON list of {path, line, col, end_line, end_col,\n"
    "                   severity, rule, message}\n"
    "  --format sarif   SARIF 2.1.0, for code-scanning tools\n"
    "  --soc NAME       the target chip, e.g. Ascend910_9391 (Atlas A3) or Ascend910B1\n"
    "  --torchair VERSION  the TorchAir commit whose CompilerConfig fields are checked:\n"
    "                   fced8842 (the default, also 'newest') or 770a4d54, or a longer\n"
    "                   prefix of the commit\n"
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

static const char usage_gen[] =
    "usage: tngc gen FILE -o DIR [--entry NAME] [--target cpu|acl] [--no-line] [-MD] [-MF FILE]\n"
    "                [--max-memory MB] [--max-time SECONDS]\n"
    "                [--user-kernel OP]...\n"
    "\n"
    "Plans the script's compiled entries (as 'tngc plan') and writes, per entry, the C\n"
    "sources of its bundle into DIR: <name>.h (the API), <name>.c (per gear, one\n"
    "straight-line function per stream and one per super-kernel segment) and\n"
    "<name>_launcher.c. <name> is the script's file name without .py, or, when the\n"
    "script has several entries, <stem>_<Class>_<method>. Files are written atomically.\n"
    "\n"
    "  -o DIR            the output directory (created when missing)\n"
    "  --entry NAME      only the entry NAME (e.g. Model.forward)\n"
    "  --target cpu      C kernels on the CPU, libtngcrt's stream executor (default)\n"
    "  --target acl      host code over AscendCL for an Ascend NPU: aclrt streams and\n"
    "                    events, aclnn operators (docs/bundles.md, \"The ACL target\")\n"
    "  --no-line         no #line directives back to the script (golden tests)\n"
    "  -MD               also write a make depfile DIR/<name>.d\n"
    "  -MF FILE          write the depfile to FILE (implies -MD)\n"
    "  --user-kernel OP  you supply the CPU kernel of op OP (e.g. add): tngc writes a\n"
    "                    stub <name>_kernels_user.c with its exact signature\n"
    "  --max-memory MB   the interpreter's memory budget (default 512)\n"
    "  --max-time SECONDS  its time budget (default 10), as 'tngc plan'\n"
    "\n"
    "Exit status: 0 written, 1 errors in the script, 2 usage or I/O errors.\n";

static const char usage_build[] =
    "usage: tngc build FILE -o DIR [-j N] [--cc CC] [--opt FLAGS] [--cache-dir DIR | --no-cache]\n"
    "                  [--kernels FILE.c] [--acl-home DIR] [gen's options]\n"
    "\n"
    "Generates the bundle sources (as 'tngc gen') and compiles them: DIR/lib<name>.a\n"
    "and DIR/<name>_launcher, linked against libtngcrt and OpenBLAS. Translation units\n"
    "compile in parallel. Builds are cached: an unchanged script (same tngc, compiler\n"
    "and options) is a cache hit that compiles nothing. Entries in reduce-overhead mode\n"
    "with _aclnn_static_shape_kernel also get their static-kernel manifest tree.\n"
    "\n"
    "  -j N              compile N translation units at once (default: the CPUs)\n"
    "  --cc CC           the C compiler (default clang)\n"
    "  --opt FLAGS       its optimisation flags (default -O2)\n"
    "  --cache-dir DIR   the cache (default: cache_compile's cache_dir, else .tngc_cache);\n"
    "                    it must belong to you\n"
    "  --no-cache        build without the cache\n"
    "  --kernels FILE.c  the kernels of --user-kernel ops; their signatures are checked\n"
    "                    with libclang before compiling\n"
    "  --acl-home DIR    with --target acl: the CANN toolkit (default $ASCEND_TOOLKIT_HOME);\n"
    "                    its include/ compiles lib<name>.a, and its lib64/libascendcl.so,\n"
    "                    when present, links <name>_launcher\n"
    "\n"
    "Exit status: 0 built, 1 errors in the script or the build, 2 usage or I/O errors.\n";

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
    int torchair;          /* lint_torchair_version's index */
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
        } else if (allow_lint_opts && (!strcmp(a, "--torchair") || !strncmp(a, "--torchair=", 11))) {
            const char *v = a[10] == '=' ? a + 11 : i + 1 < argc ? argv[++i] : NULL;
            if (!v)
                return usage_error(usage, "%s needs a value", a);
            cli->torchair = lint_torchair_version(v);
            if (cli->torchair < 0) {
                char msg[640];
                snprintf(msg, sizeof msg, "unknown --torchair '%.80s' (known: %s)", v, lint_torchair_versions());
                return usage_error(usage, "%s", msg);
            }
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
    LintOptions opt = {cli.soc, cli.torchair};
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

static void print_diags(ScanFile *sf, size_t *printed);

/* A script taken through the pipeline up to the plans of its entries. */
typedef struct Loaded {
    ScanFile sf;
    InterpResult ir;
    VEC(Plan) plans;
    int loaded;
    size_t printed;        /* diagnostics already printed */
} Loaded;

/*
 * parse -> scan -> lint rules -> interpret -> lower -> plan. Diagnostics go
 * to stderr; returns EXIT_OK, EXIT_FOUND (errors in the script) or
 * EXIT_USAGE (the file cannot be read). loaded_free frees L in every case.
 */
/* --max-memory MB / --max-time SECONDS into lim: -1, or EXIT_USAGE after
 * saying why. */
static int limit_option(const char *usage, const char *opt, const char *v, InterpLimits *lim)
{
    char *end;
    errno = 0;
    if (!strcmp(opt, "--max-memory")) {
        long mb = strtol(v, &end, 10);
        if (errno || end == v || *end || mb < 1 || mb > 1048576)
            return usage_error(usage, "--max-memory takes megabytes from 1 to 1048576, not '%s'", v);
        lim->max_mb = (size_t)mb;
    } else {
        double sec = strtod(v, &end);
        if (errno || end == v || *end || !(sec > 0 && sec <= 1e6))
            return usage_error(usage, "--max-time takes seconds (more than 0, at most 1e6), not '%s'", v);
        lim->max_seconds = sec;
    }
    return -1;
}

static int load_plans(Loaded *L, const char *file, const char *entry, const InterpLimits *lim)
{
    memset(L, 0, sizeof *L);
    char err[512];
    if (scanfile_load(&L->sf, file, err, sizeof err) != 0) {
        fprintf(stderr, "tngc: %s\n", err);
        return EXIT_USAGE;
    }
    L->loaded = 1;
    LintOptions lopt = {NULL, 0};   /* the newest TorchAir */
    lint_file(&L->sf, &lopt);
    int errors = 0;
    for (size_t d = 0; d < L->sf.diags.n; d++)
        errors |= L->sf.diags.v[d].severity == SEV_ERROR;
    if (!errors && interp_run_limited(&L->sf, entry, lim, &L->ir) != 0)
        errors = 1;
    for (size_t i = 0; !errors && i < L->ir.nentries; i++) {
        Plan p;
        if (plan_build(&p, L->ir.entries[i], &L->sf.diags) != 0)
            errors = 1;
        VEC_PUSH(L->plans, p);
    }
    print_diags(&L->sf, &L->printed);
    return errors ? EXIT_FOUND : EXIT_OK;
}

static void loaded_free(Loaded *L)
{
    for (size_t i = 0; i < L->plans.n; i++)
        plan_free(&L->plans.v[i]);
    VEC_FREE(L->plans);
    if (L->loaded) {
        interp_result_free(&L->ir);
        scanfile_free(&L->sf);
    }
}

/* Sorts, dedups and prints the diagnostics of sf from *printed on to stderr;
 * they stay in sf (which frees them), and *printed moves past them. */
static void print_diags(ScanFile *sf, size_t *printed)
{
    if (sf->diags.n == *printed)
        return;    /* nothing new (and diags.v may still be NULL) */
    DiagList tail = {sf->diags.v + *printed, sf->diags.n - *printed, 0};
    diag_sort(&tail);
    diag_dedup(&tail);
    sf->diags.n = *printed + tail.n;
    StrBuf diags = {0};
    for (size_t d = 0; d < tail.n; d++)
        diag_text(&sf->src, &tail.v[d], &diags);
    if (diags.len)
        fputs(diags.s, stderr);
    sb_free(&diags);
    *printed = sf->diags.n;
}

/* Writes the manifests of the entries that ask for static kernels. */
static int plan_manifests(Plan *plans, size_t n, const char *script, int quiet)
{
    int written = 0;
    for (size_t i = 0; i < n; i++) {
        const EntryConfig *c = &plans[i].g->cfg;
        if (!c->static_kernel || !c->mode || strcmp(c->mode, "reduce-overhead") != 0)
            continue;
        char *dir = path_dir(script);
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
    if (!written && !quiet)
        fprintf(stderr, "tngc: no entry runs in reduce-overhead mode with _aclnn_static_shape_kernel = True: no manifest written\n");
    return 0;
}

/* tngc plan: source -> parse -> scan -> lint rules -> interpret -> lower ->
 * plan -> print */
static int cmd_plan(int argc, char **argv)
{
    const char *format = "text", *entry = NULL, *file = NULL, *outpath = NULL;
    int manifest = 0;
    InterpLimits lim = {0};
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
        } else if (!strcmp(a, "--max-memory") || !strcmp(a, "--max-time")) {
            if (!v)
                return usage_error(usage_plan, "%s needs a value", a);
            i++;
            int st = limit_option(usage_plan, a, v, &lim);
            if (st >= 0)
                return st;
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

    Loaded L;
    int status = load_plans(&L, file, entry, &lim);
    if (status != EXIT_OK) {
        loaded_free(&L);
        return status;
    }
    {
        StrBuf out = {0};
        if (!strcmp(format, "json")) {
            sb_puts(&out, "{\"file\":");
            sb_json_str(&out, file, strlen(file));
            sb_puts(&out, ",\"entries\":[");
            for (size_t i = 0; i < L.plans.n; i++) {
                if (i)
                    sb_puts(&out, ",\n");
                plan_json(&L.plans.v[i], &out);
            }
            sb_puts(&out, "]}\n");
        } else {
            for (size_t i = 0; i < L.plans.n; i++) {
                if (i)
                    sb_puts(&out, "\n");
                if (!strcmp(format, "dot"))
                    plan_dot(&L.plans.v[i], &out);
                else
                    plan_text(&L.plans.v[i], &out);
            }
        }
        if (manifest && plan_manifests(L.plans.v, L.plans.n, file, 0) != 0)
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
    loaded_free(&L);
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

/* ---- gen and build ---------------------------------------------------------- */

typedef struct GenArgs {
    const char *file, *outdir, *entry, *depfile;
    int md, no_line;
    NameList user_ops;
    const Target *target;
    /* build */
    BuildOptions bo;
    const char *cache_dir;
    InterpLimits limits;
} GenArgs;

/* The bundle name of entry i: the script's stem (a C identifier), with
 * _<Class>_<method> when the script has several entries. */
static char *bundle_name(const char *script, const Plan *p, size_t nplans)
{
    const char *base = strrchr(script, '/');
    base = base ? base + 1 : script;
    size_t n = strlen(base);
    if (n > 3 && !strcmp(base + n - 3, ".py"))
        n -= 3;
    StrBuf raw = {0}, sb = {0};
    sb_putn(&raw, base, n);
    if (nplans > 1) {
        sb_putc(&raw, '_');
        sb_puts(&raw, p->g->name);
    }
    cesc_ident(&sb, raw.s ? raw.s : "");
    sb_free(&raw);
    return sb.s;
}

/* Refuses bundle names that would shadow the runtime's headers (tngrt*.h)
 * or that two entries share; returns EXIT_OK or prints why. */
static int check_bundle_names(const Loaded *L, const char *file)
{
    int status = EXIT_OK;
    for (size_t i = 0; i < L->plans.n && status == EXIT_OK; i++) {
        char *n = bundle_name(file, &L->plans.v[i], L->plans.n);
        if (!strncmp(n, "tngrt", 5)) {
            fprintf(stderr, "tngc: the bundle name '%s' (from the script's file name) would shadow the runtime's "
                            "headers (tngrt*.h): rename the script\n", n);
            status = EXIT_USAGE;
        }
        for (size_t j = 0; j < i && status == EXIT_OK; j++) {
            char *m = bundle_name(file, &L->plans.v[j], L->plans.n);
            if (!strcmp(n, m)) {
                const Graph *g = L->plans.v[i].g;
                fprintf(stderr, "%s:%u:%u: error: entries %s and %s would both be the bundle '%s': rename one\n",
                        file, g->line, g->col, L->plans.v[j].g->name, g->name, n);
                status = EXIT_FOUND;
            }
            free(m);
        }
        free(n);
    }
    return status;
}

/* Parses gen's options (and build's when build != 0). */
static int gen_args(int argc, char **argv, int build, GenArgs *a)
{
    const char *usage = build ? usage_build : usage_gen;
    memset(a, 0, sizeof *a);
    a->bo.cc = "clang";
    a->bo.opt = "-O2";
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    a->bo.jobs = cpus > 0 ? (int)cpus : 1;
    a->target = target_find("cpu");
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        static const char *const with_value[] = {"-o", "--entry", "--target", "-MF", "--user-kernel", "-j",
                                                 "--cc", "--opt", "--cache-dir", "--kernels", "--acl-home",
                                                 "--max-memory", "--max-time", NULL};
        char jbuf[32];
        if (!strncmp(o, "-j", 2) && o[2] && strlen(o) < sizeof jbuf) {   /* -jN */
            snprintf(jbuf, sizeof jbuf, "%s", o + 2);
            o = "-j";
            v = jbuf;
            i--;   /* the value is in this argument, not the next */
        }
        int takes = 0;
        for (int k = 0; with_value[k]; k++)
            takes |= !strcmp(o, with_value[k]);
        int build_only = !strcmp(o, "-j") || !strcmp(o, "--cc") || !strcmp(o, "--opt") ||
                         !strcmp(o, "--cache-dir") || !strcmp(o, "--kernels") || !strcmp(o, "--no-cache") ||
                         !strcmp(o, "--acl-home");
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            fputs(usage, stdout);
            return -2;
        } else if (build_only && !build) {
            return usage_error(usage, "unknown option '%s' (it is build's)", o);
        } else if (takes) {
            if (!v)
                return usage_error(usage, "%s needs a value", o);
            i++;
            if (!strcmp(o, "-o"))
                a->outdir = v;
            else if (!strcmp(o, "--entry"))
                a->entry = v;
            else if (!strcmp(o, "-MF"))
                a->depfile = v, a->md = 1;
            else if (!strcmp(o, "--user-kernel"))
                VEC_PUSH(a->user_ops, v);
            else if (!strcmp(o, "--cc"))
                a->bo.cc = v;
            else if (!strcmp(o, "--opt"))
                a->bo.opt = v;
            else if (!strcmp(o, "--cache-dir"))
                a->cache_dir = v;
            else if (!strcmp(o, "--kernels"))
                a->bo.kernels = v;
            else if (!strcmp(o, "--acl-home"))
                a->bo.acl_home = v;
            else if (!strcmp(o, "--max-memory") || !strcmp(o, "--max-time")) {
                int st = limit_option(usage, o, v, &a->limits);
                if (st >= 0)
                    return st;
            }
            else if (!strcmp(o, "-j")) {
                long j;
                if (parse_long(v, &j) != 0 || j < 1 || j > 256)
                    return usage_error(usage, "-j takes a number of jobs from 1 to 256, not '%s'", v);
                a->bo.jobs = (int)j;
            } else if (!(a->target = target_find(v))) {
                return usage_error(usage, "unknown target '%s' (cpu, acl)", v);
            }
        } else if (!strcmp(o, "-MD")) {
            a->md = 1;
        } else if (!strcmp(o, "--no-line")) {
            a->no_line = 1;
        } else if (!strcmp(o, "--no-cache")) {
            a->bo.no_cache = 1;
        } else if (o[0] == '-' && o[1]) {
            return usage_error(usage, "unknown option '%s'", o);
        } else if (a->file) {
            return usage_error(usage, "one script at a time ('%s' is extra)", o);
        } else {
            a->file = o;
        }
    }
    if (!a->file)
        return usage_error(usage, "%sno input file", "");
    if (!a->outdir)
        return usage_error(usage, "%sno output directory (-o DIR)", "");
    for (size_t k = 0; k < a->user_ops.n; k++) {
        int known = 0;
        for (int op = 0; op < OP__count; op++)
            known |= !strcmp(op_info[op].name, a->user_ops.v[k]) && !(op_info[op].flags & (OPF_SOURCE | OPF_ALIAS));
        if (!known) {
            StrBuf ops = {0};
            for (int op = 0; op < OP__count; op++)
                if (!(op_info[op].flags & (OPF_SOURCE | OPF_ALIAS)))
                    sb_printf(&ops, "%s%s", ops.len ? " " : "", op_info[op].name);
            fprintf(stderr, "tngc: --user-kernel: unknown op '%s'; ops with kernels: %s\n", a->user_ops.v[k], ops.s);
            sb_free(&ops);
            VEC_FREE(a->user_ops);
            return EXIT_USAGE;
        }
    }
    a->bo.target = a->target->name;
    if (a->bo.no_cache && a->cache_dir) {
        VEC_FREE(a->user_ops);
        return usage_error(usage, "%s--cache-dir and --no-cache exclude each other", "");
    }
    if (a->user_ops.n && !a->target->user_kernels) {
        VEC_FREE(a->user_ops);
        return usage_error(usage, "--user-kernel supplies CPU kernels: not with --target %s", a->target->name);
    }
    if (a->bo.kernels && a->user_ops.n == 0) {
        VEC_FREE(a->user_ops);
        return usage_error(usage, "%s--kernels needs --user-kernel OP for each op it implements", "");
    }
    VEC_PUSH(a->user_ops, NULL);
    a->user_ops.n--;
    return 0;
}

/* Stages text as name in out; returns 0 or prints why. */
static int stage_in(OutSet *out, const char *name, const StrBuf *text)
{
    int rc = outset_add(out, name, text->s ? text->s : "", text->len, 0);
    if (rc != 0)
        fprintf(stderr, "tngc: cannot write %s/%s: %s\n", out->dir, name, strerror(errno));
    return rc;
}

/* Commits out; returns 0 or prints why. */
static int commit_out(OutSet *out)
{
    const char *failed;
    int rc = outset_commit(out, &failed);
    if (rc != 0)
        fprintf(stderr, "tngc: cannot write %s/%s: %s\n", out->dir, failed ? failed : "(the commit journal)",
                strerror(errno));
    return rc;
}

/* Writes text to dir/name atomically; returns 0 or prints why. */
static int write_in(const char *dir, const char *name, const StrBuf *text)
{
    StrBuf path = {0};
    sb_printf(&path, "%s/%s", dir, name);
    int rc = write_file_atomic(path.s, text->s ? text->s : "", text->len);
    if (rc != 0)
        fprintf(stderr, "tngc: cannot write %s: %s\n", path.s, strerror(errno));
    sb_free(&path);
    return rc;
}

/*
 * Why make cannot name path in a depfile rule, or NULL when it can. Found
 * by feeding every byte through GNU make 4.3 (tests/security/t_depfile.sh):
 * control bytes end the line or the word (a newline, or a CR that make
 * reads as one, starts a new rule or variable assignment: injection), and
 * these have no escape: ';' starts a recipe, '=' an assignment, '$' is
 * expanded again under .SECONDEXPANSION, '%' makes a pattern rule, '|' an
 * order-only list, '*' '?' '[' are globs; a leading '~' is a home
 * directory; a trailing blank, backslash, '&' (grouped targets) or ')'
 * (an archive member) changes the word.
 */
static const char *make_unsafe(const char *path)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)path[i];
        if (c < 0x20 || c == 0x7f)
            return c == '\n' ? "a newline" : c == '\r' ? "a carriage return" : c == '\t' ? "a tab" : "a control character";
        if (strchr(";=$%|*?[", c))
            return c == ';' ? "';'" : c == '=' ? "'='" : c == '$' ? "'$'" : c == '%' ? "'%'" : c == '|' ? "'|'"
                 : "a wildcard ('*', '?' or '[')";
    }
    if (n == 0)
        return "an empty path";
    if (path[0] == '~')
        return "a leading '~'";
    if (strchr(" \\&)", path[n - 1]))
        return "a trailing ' ', '\\', '&' or ')'";
    return NULL;
}

/* Appends path as make reads it in a rule (make_unsafe(path) is NULL): a
 * blank, '#' or ':' escaped with a backslash, and the backslashes right
 * before one doubled, as GNU make unescapes them. */
static void make_path(StrBuf *d, const char *path)
{
    if (make_unsafe(path))
        TNGC_BUG("make_path: '%s' was not checked", path);
    for (const char *c = path; *c; c++) {
        if (*c == '\\') {
            size_t run = strspn(c, "\\");
            int special = c[run] == ' ' || c[run] == '#' || c[run] == ':';
            for (size_t k = 0; k < run * (special ? 2 : 1); k++)
                sb_putc(d, '\\');
            c += run - 1;
            continue;
        }
        if (*c == ' ' || *c == '#' || *c == ':')
            sb_putc(d, '\\');
        sb_putc(d, *c);
    }
}

/* Refuses (one line) paths that a depfile cannot name; 0 when all can. */
static int check_make_paths(const char *outdir, const char *file)
{
    const char *paths[2] = {outdir, file};
    for (int i = 0; i < 2; i++) {
        StrBuf word = {0};
        sb_printf(&word, i == 0 ? "%s/x.c" : "%s", paths[i]);   /* as it appears in a rule */
        const char *why = make_unsafe(word.s);
        sb_free(&word);
        if (why) {
            StrBuf shown = {0};
            sb_json_str(&shown, paths[i], strlen(paths[i]));
            fprintf(stderr, "tngc: -MD/-MF: make cannot name %s in a depfile (it has %s): rename it, or drop -MD\n",
                    shown.s, why);
            sb_free(&shown);
            return -1;
        }
    }
    return 0;
}

/* The make depfile: every generated file depends on the script. */
static int write_depfile(const GenArgs *a, const GenFiles *files, const char *first_name)
{
    StrBuf d = {0}, path = {0};
    for (size_t i = 0; i < files->n; i++) {
        StrBuf word = {0};
        sb_printf(&word, "%s/%s", a->outdir, files->v[i].name);
        if (i)
            sb_putc(&d, ' ');
        make_path(&d, word.s);
        sb_free(&word);
    }
    sb_puts(&d, ": ");
    make_path(&d, a->file);
    sb_puts(&d, "\n");
    make_path(&d, a->file);
    sb_puts(&d, ":\n");
    if (a->depfile)
        sb_puts(&path, a->depfile);
    else
        sb_printf(&path, "%s/%s.d", a->outdir, first_name);
    int rc = write_file_atomic(path.s, d.s, d.len);
    if (rc != 0)
        fprintf(stderr, "tngc: cannot write %s: %s\n", path.s, strerror(errno));
    sb_free(&d);
    sb_free(&path);
    return rc;
}

/* One entry's bundle: emitted into files; returns EXIT_OK or EXIT_FOUND. */
static int gen_entry(Loaded *L, size_t i, const GenArgs *a, GenOptions *go, GenFiles *files)
{
    go->name = bundle_name(a->file, &L->plans.v[i], L->plans.n);
    go->script = a->file;
    go->version = TNGC_VERSION;
    go->line_directives = !a->no_line;
    go->user_ops = a->user_ops.v;
    int rc = a->target->emit(&L->plans.v[i], go, files, &L->sf.diags);
    print_diags(&L->sf, &L->printed);
    return rc == 0 ? EXIT_OK : EXIT_FOUND;
}

static int ensure_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "tngc: the output directory %s is a file, not a directory\n", dir);
        return -1;
    }
    if (fs_mkdirs(dir, 0) != 0 || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "tngc: cannot create the output directory %s: %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* tngc gen: ... plan -> emit (templates) -> write */
static int cmd_gen(int argc, char **argv)
{
    GenArgs a;
    int st = gen_args(argc, argv, 0, &a);
    if (st)
        return VEC_FREE(a.user_ops), st == -2 ? EXIT_OK : st;
    if (a.md && check_make_paths(a.outdir, a.file) != 0)
        return VEC_FREE(a.user_ops), EXIT_USAGE;
    Loaded L;
    int status = load_plans(&L, a.file, a.entry, &a.limits);
    if (status == EXIT_OK)
        status = check_bundle_names(&L, a.file);
    GenFiles files = {0};
    char *first = NULL;
    for (size_t i = 0; status == EXIT_OK && i < L.plans.n; i++) {
        GenOptions go = {0};
        status = gen_entry(&L, i, &a, &go, &files);
        if (!first)
            first = (char *)go.name;
        else
            free((char *)go.name);
    }
    if (status == EXIT_OK && ensure_dir(a.outdir) != 0)
        status = EXIT_USAGE;
    if (status == EXIT_OK) {   /* the bundles' files: all or nothing */
        OutSet out;
        outset_begin(&out, a.outdir);
        for (size_t i = 0; status == EXIT_OK && i < files.n; i++)
            if (stage_in(&out, files.v[i].name, &files.v[i].text) != 0)
                status = EXIT_USAGE;
        if (status == EXIT_OK && commit_out(&out) != 0)
            status = EXIT_USAGE;
        outset_free(&out);
    }
    if (status == EXIT_OK && plan_manifests(L.plans.v, L.plans.n, a.file, 1) != 0)
        status = EXIT_USAGE;
    if (status == EXIT_OK && a.md && first && write_depfile(&a, &files, first) != 0)
        status = EXIT_USAGE;
    free(first);
    genfiles_free(&files);
    loaded_free(&L);
    VEC_FREE(a.user_ops);
    return status;
}

/* The user kernels of one bundle: checked with libclang, or reported as
 * missing (the stub is then written to DIR). */
static int check_user_kernels(const Plan *p, const GenOptions *go, const GenArgs *a, const GenFiles *files,
                              size_t first)
{
    NameList ops = {0}, fns = {0};
    int rc = EXIT_OK;
    if (emit_user_ops(p, go, &ops) == 0)
        goto done;
    if (!a->bo.kernels) {
        for (size_t k = 0; k < ops.n; k++) {
            for (size_t i = 0; i < p->g->ops.n; i++)
                if (!strcmp(op_info[p->g->ops.v[i].kind].name, ops.v[k])) {
                    fprintf(stderr, "%s:%u:%u: error: no CPU kernel for '%s' (--user-kernel): implement %s_user_%s\n",
                            a->file, p->g->ops.v[i].line, p->g->ops.v[i].col, ops.v[k], go->name, ops.v[k]);
                    break;
                }
        }
        for (size_t i = first; i < files->n; i++)
            if (strstr(files->v[i].name, "_kernels_user.c") && ensure_dir(a->outdir) == 0 &&
                write_in(a->outdir, files->v[i].name, &files->v[i].text) == 0)
                fprintf(stderr, "tngc: the stub with their signatures is %s/%s; pass your file with --kernels FILE.c\n",
                        a->outdir, files->v[i].name);
        rc = EXIT_FOUND;
        goto done;
    }
    for (size_t k = 0; k < ops.n; k++) {
        StrBuf f = {0};
        sb_printf(&f, "%s_user_%s", go->name, ops.v[k]);
        VEC_PUSH(fns, f.s);
    }
    char inc[4096], lib[4096];
    StrBuf msgs = {0};
    if (build_runtime_find(inc, lib, sizeof inc) != 0) {
        fprintf(stderr, "tngc: cannot find libtngcrt's headers next to tngc\n");
        rc = EXIT_USAGE;
    } else if (usercheck_kernels(a->bo.kernels, inc, &fns, &msgs) != 0) {
        fputs(msgs.s ? msgs.s : "", stderr);
        rc = EXIT_FOUND;
    }
    sb_free(&msgs);
    for (size_t k = 0; k < fns.n; k++)
        free((char *)fns.v[k]);
done:
    VEC_FREE(ops);
    VEC_FREE(fns);
    return rc;
}

/* The cache of entry p: --cache-dir, else cache_compile's cache_dir, else .tngc_cache. */
static const char *cache_dir_of(const GenArgs *a, const Plan *p)
{
    return a->cache_dir ? a->cache_dir : p->g->cfg.cache_dir ? p->g->cfg.cache_dir : ".tngc_cache";
}

/* tngc build: ... plan -> emit -> compile (clang, parallel, cached) -> bundle */
static int cmd_build(int argc, char **argv)
{
    GenArgs a;
    int st = gen_args(argc, argv, 1, &a);
    if (st)
        return VEC_FREE(a.user_ops), st == -2 ? EXIT_OK : st;
    if (a.bo.kernels && access(a.bo.kernels, R_OK) != 0) {
        fprintf(stderr, "tngc: cannot read %s: %s\n", a.bo.kernels, strerror(errno));
        VEC_FREE(a.user_ops);
        return EXIT_USAGE;
    }
    char why[1024];
    if (build_target_ready(&a.bo, why, sizeof why) != 0) {
        fprintf(stderr, "tngc: %s\n", why);
        VEC_FREE(a.user_ops);
        return EXIT_USAGE;
    }
    if (a.md && check_make_paths(a.outdir, a.file) != 0)
        return VEC_FREE(a.user_ops), EXIT_USAGE;
    Loaded L;
    int status = load_plans(&L, a.file, a.entry, &a.limits);
    if (status == EXIT_OK)
        status = check_bundle_names(&L, a.file);
    for (size_t i = 0; status == EXIT_OK && !a.bo.no_cache && i < L.plans.n; i++) {   /* before creating anything */
        char err[1024];
        if (build_cache_check(cache_dir_of(&a, &L.plans.v[i]), !a.cache_dir, err, sizeof err) != 0) {
            fprintf(stderr, "tngc: %s\n", err);
            status = EXIT_USAGE;
        }
    }
    if (status == EXIT_OK && ensure_dir(a.outdir) != 0)
        status = EXIT_USAGE;
    OutSet out = {0};
    if (status == EXIT_OK)
        outset_begin(&out, a.outdir);
    GenFiles all = {0};
    for (size_t i = 0; status == EXIT_OK && i < L.plans.n; i++) {
        GenOptions go = {0};
        GenFiles files = {0};
        status = gen_entry(&L, i, &a, &go, &files);
        if (status == EXIT_OK)
            status = check_user_kernels(&L.plans.v[i], &go, &a, &files, 0);
        char entry[4096] = "", err[1024];
        BuildOptions bo = a.bo;
        bo.cache_dir = cache_dir_of(&a, &L.plans.v[i]);
        bo.cache_dir_from_script = !a.cache_dir;
        bo.outdir = a.outdir;
        bo.out = &out;
        bo.entry_out = entry;
        bo.entry_out_len = sizeof entry;
        int hit = 0;
        int brc = status == EXIT_OK ? build_bundle(&L.plans.v[i], &go, &files, &bo, &hit, err, sizeof err) : 0;
        if (brc != 0) {
            fprintf(stderr, "tngc: %s: %s\n", go.name, err);
            status = brc == -2 ? EXIT_USAGE : EXIT_FOUND;
        } else if (status == EXIT_OK && hit) {
            printf("tngc: %s: cache hit (%s): nothing to compile\n", go.name, entry);
        } else if (status == EXIT_OK && !build_links_launcher(&bo)) {
            printf("tngc: %s: built %s/lib%s.a; no launcher: %s/lib64/libascendcl.so is absent (link your program "
                   "against CANN, docs/bundles.md)\n", go.name, a.outdir, go.name, bo.acl_home);
        } else if (status == EXIT_OK) {
            printf("tngc: %s: built %s/%s_launcher and %s/lib%s.a\n", go.name, a.outdir, go.name, a.outdir, go.name);
        }
        for (size_t k = 0; k < files.n; k++)
            VEC_PUSH(all, files.v[k]);
        VEC_FREE(files);
        free((char *)go.name);
    }
    if (status == EXIT_OK && commit_out(&out) != 0)   /* every bundle at once */
        status = EXIT_USAGE;
    if (out.dir)
        outset_free(&out);
    if (status == EXIT_OK && a.md && L.plans.n) {
        char *first = bundle_name(a.file, &L.plans.v[0], L.plans.n);
        if (write_depfile(&a, &all, first) != 0)
            status = EXIT_USAGE;
        free(first);
    }
    if (status == EXIT_OK && plan_manifests(L.plans.v, L.plans.n, a.file, 1) != 0)
        status = EXIT_USAGE;
    genfiles_free(&all);
    loaded_free(&L);
    VEC_FREE(a.user_ops);
    return status;
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
    if (!strcmp(cmd, "gen"))
        return cmd_gen(argc - 1, argv + 1);
    if (!strcmp(cmd, "build"))
        return cmd_build(argc - 1, argv + 1);
    if (!strcmp(cmd, "recompiles"))
        return cmd_recompiles(argc - 1, argv + 1);
    return usage_error(usage_main, "unknown command '%s'", cmd);
}
