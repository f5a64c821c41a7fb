/*
 * tngc.c - the command line: a script goes through the stages
 *
 *     LOAD   read, parse (tree-sitter) and scan the TorchAir annotations
 *     LINT   the annotation rules (docs/rules.md)
 *     LOWER  run the module code, lower each compiled entry to an op graph
 *     PLAN   gears, streams, segments, memory, static kernels
 *     EMIT   the C sources of each entry's bundle
 *     BUILD  compile them (clang, parallel, cached): lib<name>.a and a launcher
 *
 * and each command runs them up to its last stage (the commands[] table),
 * then does something with what that stage made: scan lists the
 * annotations (LOAD), lint reports (LINT), plan prints the plans (PLAN),
 * gen writes the sources (EMIT), build the bundle (BUILD). recompiles is a
 * separate tool on the same driver: it reads a host log, not a script.
 * --dump=STAGE stops at a stage and prints its intermediate form instead.
 *
 * The whole-script stages (LOAD..PLAN) run once; EMIT and BUILD run per
 * entry. Every located problem is a Diag of the script (frontend/diag):
 * printed to stderr in gcc's format with its rule id, or reported in
 * lint's --format. Every problem without a location goes to the run's one
 * Sink (support/sink.c, made by main, Job.sink), which prints it on
 * stderr as "tngc: [FILE: ]MESSAGE" ("tngc: cannot write X"). Options come
 * from one table, options[]: which commands take each, how its value is
 * stored, and its --help lines.
 *
 * Exit status: 0 success / no errors, 1 errors found (lint; warnings too
 * with --werror), 2 usage or I/O error.
 */
#define _POSIX_C_SOURCE 200809L
#include "frontend/python/python.h"
#include "frontend/diag/diag.h"
#include "frontend/lint/scan.h"
#include "hostlog/hostlog.h"
#include "frontend/lower/interp.h"
#include "frontend/lint/lint.h"
#include "planner/plan.h"
#include "codegen/build.h"
#include "codegen/cesc.h"
#include "tngc_ranks.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifndef TNGC_VERSION
#define TNGC_VERSION "0.2.0"
#endif

enum { EXIT_OK = 0, EXIT_FOUND = 1, EXIT_USAGE = 2 };

/* The stages, in pipeline order (the functions stage_* below). */
typedef enum Stage {
    STAGE_NONE,    /* no script (recompiles) */
    STAGE_LOAD,    /* read, parse, scan: ScanFile (--dump=ast, --dump=scan) */
    STAGE_LINT,    /* the annotation rules: diagnostics */
    STAGE_LOWER,   /* the entries' op graphs: InterpResult (--dump=graph) */
    STAGE_PLAN,    /* a Plan per entry (--dump=plan) */
    STAGE_EMIT,    /* per entry: the bundle's sources, GenFiles */
    STAGE_BUILD,   /* per entry: lib<name>.a and the launcher, staged in -o DIR */
} Stage;

typedef struct Command Command;
typedef struct Dump Dump;

/* A command line, parsed by the option table. */
typedef struct Job {
    const Command *cmd;
    VEC(const char *) files;   /* the scripts (recompiles: the log) */
    VEC(char *) owned;         /* the paths args_expand found in folders */
    char *stdin_text;          /* scan, lint: the file "-", read once */
    size_t stdin_len;
    const char *format;        /* --format */
    const Dump *dump;          /* --dump=STAGE, or NULL */
    const char *soc;           /* lint: --soc */
    int torchair;              /* lint: --torchair, lint_torchair_version's index */
    int werror;
    const char *entry;         /* --entry */
    const char *out;           /* -o: plan's FILE, gen's and build's DIR, recompiles' list */
    int manifest;              /* plan --manifest */
    InterpLimits limits;       /* --max-memory, --max-time, --world-size */
    const Target *target;      /* gen, build: --target */
    const char *depfile;       /* -MF */
    const char *dep_target;    /* -MT: one more target of the depfile's rule */
    int md, no_line;
    int no_fuse;               /* gen, build: --no-fuse */
    int streams_as_written;    /* plan, gen, build: no stream cost model */
    NameList user_ops;         /* --user-kernel OP... (NULL-terminated after parsing) */
    NameList import_dirs;      /* -I DIR...: where imports are looked for */
    ScanModules *modules;      /* the modules the scripts import, scanned once per run (lint's rules follow them) */
    BuildOptions bo;           /* build: -j, --cc, --opt, --no-cache, --kernels, --acl-home */
    const char *cache_dir;     /* build: --cache-dir */
    HostlogOptions hostlog;    /* recompiles: --split-flag, --after */
    Sink *sink;                /* the run's diagnostics without a location (main's; stderr) */
} Job;

/* One script on its way through the stages: each stage reads what the
 * ones before it left here. script_free frees it in every case. */
typedef struct Script {
    const Job *job;
    const char *file;
    ScanFile sf;           /* LOAD: source, tree, annotations; every stage's diagnostics */
    int loaded;
    InterpResult ir;       /* LOWER: the compiled entries' graphs */
    VEC(Plan) plans;       /* PLAN: one per entry */
    size_t printed;        /* diagnostics already printed */
    GenFiles files;        /* EMIT: the files of every bundle, entry after entry */
    RankSet ranks;         /* --world-size N > 1: ranks 1..N-1 (ir and plans above are rank 0's) */
    char *first;           /* EMIT: the first bundle's name (the depfile's) */
    OutSet out;            /* BUILD: the files of -o DIR, committed all at once */
} Script;

/* The commands: an index into commands[], a bit in an option's mask. */
enum { CMD_SCAN, CMD_LINT, CMD_PLAN, CMD_GEN, CMD_BUILD, CMD_RECOMPILES, CMD__count };
#define FOR(c) (1u << CMD_##c)

typedef struct Option Option;

/* Stores an option's value in job: -1 to go on, or the exit status to end
 * with after saying why. */
typedef int OptionSet(Job *job, const Option *o, const char *value);

/*
 * One option of one or more commands. help holds its --help lines: a line
 * "LEFT\tTEXT" starts a row with LEFT in the option column, a line without
 * a tab continues the row above (the first line's LEFT is "flag arg").
 */
struct Option {
    const char *flag;      /* "--entry", "-o" */
    const char *arg;       /* its value in help ("NAME"), or NULL: a flag */
    unsigned cmds;         /* FOR(...) of the commands that take it (and list it in --help) */
    OptionSet *set;
    size_t field;          /* opt_store and opt_flag: the Job field */
    int joined;            /* the value may follow the flag in one word: -j8 */
    const char *help;
};

/* A command: the stage it runs up to and what it then does. */
struct Command {
    const char *name;
    Stage last;
    int (*run)(Job *job);
    const char *summary;       /* its line in tngc --help */
    const char *usage;         /* --help up to the options (the first line: the synopsis) */
    const char *closing;       /* --help after the options */
    int col;                   /* --help: the column where options' text starts */
    const char *const *formats;  /* --format's values, NULL: none */
    unsigned also;             /* takes these commands' options too (build: gen's) */
    int many;                  /* FILE...: any number, and "--" ends the options */
    const char *missing, *extra; /* no input; a second input ('%s') */
    int (*check)(Job *job);    /* after parsing: the options together, or NULL */
};

static int usage_error(const Command *cmd, const char *fmt, ...);

/* Writes "tngc: MESSAGE" and a line break to stream, as the sink prints
 * (sink_msg_line: shown by sb_put_printable, so that a path or an option's
 * value cannot put control bytes on a terminal): usage errors before the
 * run has its sink, and build's result lines on stdout. */
static void tngc_vsay(FILE *stream, const char *fmt, va_list ap)
{
    Sink line;
    sink_init(&line, stream);
    sink_vreport(&line, SEV_ERROR, NULL, fmt, ap);
    sink_free(&line);
}

static void tngc_say(FILE *stream, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tngc_vsay(stream, fmt, ap);
    va_end(ap);
}

static int write_out(const StrBuf *out)
{
    if (out->len && fwrite(out->s, 1, out->len, stdout) != out->len)
        return -1;
    return fflush(stdout) == 0 ? 0 : -1;
}

static int script_has_errors(const Script *S)
{
    for (size_t d = 0; d < S->sf.diags.n; d++)
        if (S->sf.diags.v[d].severity == SEV_ERROR)
            return 1;
    return 0;
}

/* Sorts and de-duplicates l (its n shrinks) and reports each to the
 * run's sink in gcc's format against its source's text (src, or a
 * module's, Diag.src). */
static void print_diag_list(Sink *sink, const Source *src, DiagList *l)
{
    diag_sort(l);
    diag_dedup(l);
    StrBuf out = {0};
    for (size_t d = 0; d < l->n; d++) {
        const Diag *x = &l->v[d];
        const Source *in = x->src ? x->src : src;
        out.len = 0;
        diag_text(src, x, &out);
        sink_located(sink, x->severity, in ? in->path : NULL, out.s ? out.s : "", out.len);
    }
    sb_free(&out);
}

/* Points the diagnostics at a module's op (diag_at_file: the planner's,
 * the emitters') at that module's source. */
static void script_diag_files(Script *S)
{
    for (size_t d = 0; d < S->sf.diags.n; d++) {
        Diag *x = &S->sf.diags.v[d];
        for (size_t k = 0; x->file && !x->src && k < S->ir.nmodules; k++)
            if (!strcmp(S->ir.modules[k]->src.path, x->file))
                x->src = &S->ir.modules[k]->src;
    }
}

static void print_diags(Script *S)
{
    ScanFile *sf = &S->sf;
    if (!S->loaded || sf->diags.n == S->printed)
        return;    /* nothing new (and diags.v may still be NULL) */
    script_diag_files(S);
    DiagList tail = {sf->diags.v + S->printed, sf->diags.n - S->printed, 0};
    print_diag_list(S->job->sink, &sf->src, &tail);
    sf->diags.n = S->printed + tail.n;
    S->printed = sf->diags.n;
}

static void script_free(Script *S)
{
    for (size_t i = 0; i < S->plans.n; i++)
        plan_free(&S->plans.v[i]);
    VEC_FREE(S->plans);
    ranks_free(&S->ranks);
    if (S->loaded) {
        interp_result_free(&S->ir);
        scanfile_free(&S->sf);
    }
    genfiles_free(&S->files);
    free(S->first);
    if (S->out.dir)
        outset_free(&S->out);
}

/* ===================================================================== */
/* The whole-script stages: LOAD -> LINT -> LOWER -> PLAN                */
/* ===================================================================== */

/* LOAD: reads, parses and scans file (scanfile_load does the three);
 * syntax errors are diagnostics, a file that cannot be read EXIT_USAGE. */
static int stage_load(Script *S, const Job *job, const char *file)
{
    memset(S, 0, sizeof *S);
    S->job = job;
    S->file = file;
    int bad = !strcmp(file, "-") && job->stdin_text
                  ? scanfile_load_text(&S->sf, "<stdin>", job->stdin_text, job->stdin_len, job->sink)
                  : scanfile_load_with(&S->sf, file, job->modules, job->sink);
    if (bad != 0)
        return EXIT_USAGE;
    S->loaded = 1;
    return EXIT_OK;
}

/* LINT: the annotation rules (--soc, --torchair; the newest TorchAir
 * unless lint's options say otherwise). EXIT_FOUND when the script has
 * errors, the parser's included: the stages after it need a sound script. */
static int stage_lint(Script *S)
{
    LintOptions opt = {S->job->soc, S->job->torchair, S->job->cmd->last == STAGE_LINT};
    lint_file(&S->sf, &opt);
    return script_has_errors(S) ? EXIT_FOUND : EXIT_OK;
}

/* LOWER: runs the module-level code abstractly and lowers each compiled
 * entry it calls (--entry: only that one) to an op graph. */
static int stage_lower(Script *S)
{
    int ws = S->job->limits.world_size;
    if (ws < 2)
        return interp_run_limited(&S->sf, S->job->entry, &S->job->limits, &S->ir) != 0 ? EXIT_FOUND : EXIT_OK;
    /* --world-size N: once per rank (docs/bundles.md, "Tensor parallel over MPI") */
    InterpLimits l = S->job->limits;
    l.rank = 0;
    if (interp_run_limited(&S->sf, S->job->entry, &l, &S->ir) != 0)
        return EXIT_FOUND;
    return ranks_lower(&S->ranks, &S->sf, S->job->entry, &l, &S->ir, S->job->sink) != 0 ? EXIT_FOUND : EXIT_OK;
}

/* PLAN: plans each entry's graph as its --target wants it planned
 * (target_plan_options); stops at the first that fails. */
static int stage_plan(Script *S)
{
    for (size_t i = 0; i < S->ir.nentries; i++) {
        Plan p;
        PlanOptions popt;
        int at_create = target_plan_options(S->job->target, &S->job->user_ops, S->job->streams_as_written, &popt);
        int rc = plan_build_for(&p, S->ir.entries[i], &popt, at_create, &S->sf.diags);
        VEC_PUSH(S->plans, p);
        if (rc != 0)
            return EXIT_FOUND;
    }
    if (ranks_plan(&S->ranks, S->job->target, &S->job->user_ops, S->job->streams_as_written, &S->sf.diags) != 0)
        return EXIT_FOUND;   /* --world-size */
    return EXIT_OK;
}

static int (*const whole_script_stage[])(Script *S) = {
    [STAGE_LINT] = stage_lint,
    [STAGE_LOWER] = stage_lower,
    [STAGE_PLAN] = stage_plan,
};

/* Runs file through LOAD and the whole-script stages after it up to last
 * (PLAN at most), stopping at the first that finds errors. Diagnostics stay
 * in S->sf.diags for the caller to print or report. */
static int script_run(Script *S, const Job *job, const char *file, Stage last)
{
    int status = stage_load(S, job, file);
    for (Stage st = STAGE_LINT; status == EXIT_OK && st <= last && st <= STAGE_PLAN; st++)
        status = whole_script_stage[st](S);
    return status;
}

/* ===================================================================== */
/* The per-entry stages: EMIT -> BUILD                                   */
/* ===================================================================== */

/* The bundle name of entry p: the script's stem (a C identifier), with
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

/* Before EMIT: refuses bundle names that would shadow the runtime's
 * headers (tngrt*.h, EXIT_USAGE) or that two entries share (TNG213). */
static int bundle_names_check(Script *S)
{
    int status = EXIT_OK;
    for (size_t i = 0; i < S->plans.n && status == EXIT_OK; i++) {
        char *n = bundle_name(S->file, &S->plans.v[i], S->plans.n);
        StrBuf why = {0};
        if (!strncmp(n, "tngrt", 5)) {
            sink_error(S->job->sink, "the bundle name '%s' (from the script's file name) would shadow the runtime's "
                                     "headers (tngrt*.h): rename the script", n);
            status = EXIT_USAGE;
        } else if (cesc_reserved_name(n, &why)) {
            sink_error(S->job->sink, "the bundle name '%s' (from the script's file name) cannot name a bundle: %s; "
                                     "rename the script", n, why.s);
            status = EXIT_USAGE;
        }
        sb_free(&why);
        for (size_t j = 0; j < i && status == EXIT_OK; j++) {
            char *m = bundle_name(S->file, &S->plans.v[j], S->plans.n);
            if (!strcmp(n, m)) {
                const Graph *g = S->plans.v[i].g;
                diag_at(&S->sf.diags, g->line, g->col, RULE_TNG213,
                        "entries %s and %s would both be the bundle '%s': rename one", S->plans.v[j].g->name,
                        g->name, n);
                status = EXIT_FOUND;
            }
            free(m);
        }
        free(n);
    }
    print_diags(S);
    return status;
}

/* EMIT: entry i's bundle appended to S->files by the --target's emitter;
 * go is filled (go->name is the caller's to free). */
static int stage_emit(Script *S, size_t i, GenOptions *go)
{
    const Job *job = S->job;
    go->name = bundle_name(S->file, &S->plans.v[i], S->plans.n);
    go->script = S->file;
    go->version = TNGC_VERSION;
    go->line_directives = !job->no_line;
    go->no_fuse = job->no_fuse;
    go->user_ops = job->user_ops.v;
    int rc = job->limits.world_size > 1   /* one bundle of the N ranks' plans */
                 ? ranks_emit(&S->ranks, &S->plans.v[i], i, job->target, go, &S->files, &S->sf.diags)
                 : job->target->emit(&S->plans.v[i], go, &S->files, &S->sf.diags);
    print_diags(S);
    return rc == 0 ? EXIT_OK : EXIT_FOUND;
}

/* Writes text to dir/name atomically; returns 0, or -1 after an error in sink. */
static int write_in(Sink *sink, const char *dir, const char *name, const StrBuf *text)
{
    StrBuf path = {0};
    sb_printf(&path, "%s/%s", dir, name);
    int rc = write_file_atomic(path.s, text->s ? text->s : "", text->len);
    if (rc != 0)
        sink_error(sink, "cannot write %s: %s", path.s, strerror(errno));
    sb_free(&path);
    return rc;
}

/* Without --kernels: a TNG214 error at the first use of each user-kernel
 * op, and the stub with their signatures (S->files from `from` on)
 * written to -o DIR for the user to fill. */
static void user_kernels_missing(Script *S, size_t e, const GenOptions *go, const NameList *ops, size_t from)
{
    const Graph *g = S->plans.v[e].g;
    const char *outdir = S->job->out;
    for (size_t k = 0; k < ops->n; k++) {
        for (size_t i = 0; i < g->ops.n; i++)
            if (!strcmp(op_info[g->ops.v[i].kind].name, ops->v[k])) {
                diag_at_file(&S->sf.diags, g->ops.v[i].file, g->ops.v[i].line, g->ops.v[i].col, RULE_TNG214,
                        "no CPU kernel for '%s' (--user-kernel): implement %s_user_%s", ops->v[k], go->name,
                        ops->v[k]);
                break;
            }
    }
    print_diags(S);
    for (size_t i = from; i < S->files.n; i++)
        if (strstr(S->files.v[i].name, "_kernels_user.c") && fs_output_dir(S->job->sink, outdir) == 0 &&
            write_in(S->job->sink, outdir, S->files.v[i].name, &S->files.v[i].text) == 0)
            sink_note(S->job->sink, "the stub with their signatures is %s/%s; pass your file with --kernels FILE.c",
                      outdir, S->files.v[i].name);
}

/* Prints the TNG215 diagnostics of the user's kernel file against its own
 * text (as the script's are printed against the script's; against no
 * text when it cannot be read again). */
static void print_file_diags(Sink *sink, const char *path, DiagList *diags)
{
    Source src;
    Sink quiet;   /* unreadable now: the diagnostics are printed without their lines */
    sink_init(&quiet, NULL);
    int rc = source_load(&src, path, &quiet);
    sink_free(&quiet);
    if (rc != 0 && source_from_text(&src, path, "", 0, sink) != 0)
        return;
    print_diag_list(sink, &src, diags);
    source_free(&src);
}

/* The user kernels of entry e's bundle: checked with libclang against
 * --kernels (TNG215 in that file), or reported missing (TNG214). */
static int user_kernels_check(Script *S, size_t e, const GenOptions *go, size_t from)
{
    const Job *job = S->job;
    NameList ops = {0}, fns = {0};
    int rc = EXIT_OK;
    if (emit_user_ops(&S->plans.v[e], go, &ops) == 0)
        goto done;
    if (!job->bo.kernels) {
        user_kernels_missing(S, e, go, &ops, from);
        rc = EXIT_FOUND;
        goto done;
    }
    for (size_t k = 0; k < ops.n; k++) {
        StrBuf f = {0};
        sb_printf(&f, "%s_user_%s", go->name, ops.v[k]);
        VEC_PUSH(fns, f.s);
    }
    char inc[4096], lib[4096];
    DiagList kdiags = {0};
    if (build_runtime_find(inc, lib, sizeof inc) != 0) {
        sink_error(job->sink, "cannot find libtngcrt's headers next to tngc");
        rc = EXIT_USAGE;
    } else if (usercheck_kernels(job->bo.kernels, inc, &fns, &kdiags, job->sink) != 0) {
        print_file_diags(job->sink, job->bo.kernels, &kdiags);
        rc = EXIT_FOUND;
    }
    diag_free(&kdiags);
    for (size_t k = 0; k < fns.n; k++)
        free((char *)fns.v[k]);
done:
    VEC_FREE(ops);
    VEC_FREE(fns);
    return rc;
}

/* The user's build cache, where other build caches keep theirs (the XDG
 * base directory convention): $XDG_CACHE_HOME/tngc when that is an
 * absolute path (the convention ignores a relative one), else
 * $HOME/.cache/tngc; NULL when neither names an absolute folder. */
static const char *user_cache_dir(void)
{
    static char path[4096];
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = -1;
    if (xdg && xdg[0] == '/')
        n = snprintf(path, sizeof path, "%s/tngc", xdg);
    else if (home && home[0] == '/')
        n = snprintf(path, sizeof path, "%s/.cache/tngc", home);
    return n > 0 && (size_t)n < sizeof path ? path : NULL;
}

/* The cache of entry p: --cache-dir, else cache_compile's cache_dir (its
 * TorchAir layout; *from_script set), else the user's (user_cache_dir);
 * NULL: none can be named, the entry builds without one. */
static const char *cache_dir_of(const Job *job, const Plan *p, int *from_script)
{
    *from_script = !job->cache_dir && p->g->cfg.cache_dir;
    return job->cache_dir ? job->cache_dir : p->g->cfg.cache_dir ? p->g->cfg.cache_dir : user_cache_dir();
}

/* BUILD: entry i's user kernels checked, its files (S->files from `from`
 * on) compiled through the cache and staged in S->out, one line said. */
static int stage_build(Script *S, size_t i, const GenOptions *go, size_t from)
{
    const Job *job = S->job;
    int status = user_kernels_check(S, i, go, from);
    if (status != EXIT_OK)
        return status;
    char entry[4096] = "";
    BuildOptions bo = job->bo;
    bo.cache_dir = cache_dir_of(job, &S->plans.v[i], &bo.cache_dir_from_script);
    if (!bo.cache_dir && !bo.no_cache) {
        sink_warning(job->sink, "%s: building without the cache: neither $XDG_CACHE_HOME nor $HOME names a "
                     "folder (--cache-dir DIR names one)", go->name);
        bo.no_cache = 1;
    }
    bo.outdir = job->out;
    bo.world_size = job->limits.world_size;
    bo.out = &S->out;
    bo.entry_out = entry;
    bo.entry_out_len = sizeof entry;
    const char **mods = xcalloc(S->ir.nmodules + 1, sizeof *mods);
    for (size_t k = 0; k < S->ir.nmodules; k++)
        mods[k] = S->ir.modules[k]->src.path;
    bo.modules = mods;
    bo.nmodules = S->ir.nmodules;
    GenFiles mine = {S->files.v + from, S->files.n - from, 0};
    int hit = 0;
    int rc = build_bundle(&S->plans.v[i], go, &mine, &bo, &hit, job->sink);
    free(mods);
    bo.modules = NULL;
    if (rc != 0)
        return rc == -2 ? EXIT_USAGE : EXIT_FOUND;
    if (hit)
        tngc_say(stdout, "%s: cache hit (%s): nothing to compile", go->name, entry);
    else if (!build_links_launcher(&bo))
        tngc_say(stdout, "%s: built %s/lib%s.a; no launcher: %s/%s is absent (link your program against %s, "
                 "docs/bundles.md)", go->name, job->out, go->name, bo.toolkit_home, bo.target->toolkit->launcher_lib,
                 bo.target->toolkit->what);
    else
        tngc_say(stdout, "%s: built %s/%s_launcher and %s/lib%s.a", go->name, job->out, go->name, job->out, go->name);
    return EXIT_OK;
}

/* EMIT, and BUILD when last is BUILD, for each entry in turn; stops at the
 * first entry that fails. S->first keeps the first bundle's name. */
static int script_run_entries(Script *S, Stage last)
{
    int status = EXIT_OK;
    for (size_t i = 0; status == EXIT_OK && i < S->plans.n; i++) {
        GenOptions go = {0};
        size_t from = S->files.n;
        status = stage_emit(S, i, &go);
        if (status == EXIT_OK && last >= STAGE_BUILD)
            status = stage_build(S, i, &go, from);
        if (!S->first)
            S->first = (char *)go.name;
        else
            free((char *)go.name);
    }
    return status;
}
/* ===================================================================== */
/* What each command does with its last stage                            */
/* ===================================================================== */

/* tngc scan: each file through LOAD; its annotations (text or JSON) and
 * syntax errors on stdout. */
static int run_scan(Job *job)
{
    int json = !strcmp(job->format, "json");
    int status = EXIT_OK;
    StrBuf out = {0};
    if (json)
        sb_puts(&out, "{\"files\":[");
    for (size_t i = 0; i < job->files.n; i++) {
        Script S;
        if (script_run(&S, job, job->files.v[i], job->cmd->last) != EXIT_OK) {
            status = EXIT_USAGE;
            script_free(&S);
            continue;
        }
        diag_sort(&S.sf.diags);
        if (S.sf.diags.n && status == EXIT_OK)
            status = EXIT_FOUND;
        if (json) {
            if (i && out.len > 10)
                sb_puts(&out, ",\n");
            scan_json(&S.sf, &out);
        } else {
            scan_text(&S.sf, &out);
            for (size_t d = 0; d < S.sf.diags.n; d++)
                diag_text(&S.sf.src, &S.sf.diags.v[d], &out);
        }
        script_free(&S);
    }
    if (json)
        sb_puts(&out, "]}\n");
    if (write_out(&out) != 0) {
        sink_error(job->sink, "writing the output: %s", strerror(errno));
        status = EXIT_USAGE;
    }
    sb_free(&out);
    return status;
}

/* tngc lint: each file through LINT; every diagnostic in the --format
 * report on stdout. */
static int run_lint(Job *job)
{
    DiagReport r;
    StrBuf out = {0};
    int io_error = 0;
    diag_report_begin(&r, diag_format(job->format), TNGC_VERSION, &out);
    for (size_t i = 0; i < job->files.n; i++) {
        Script S;
        if (script_run(&S, job, job->files.v[i], job->cmd->last) == EXIT_USAGE)
            io_error = 1;
        if (S.loaded)
            script_diag_files(&S);
        for (size_t d = 0; S.loaded && d < S.sf.diags.n; d++)
            diag_report_add(&r, &S.sf.src, &S.sf.diags.v[d]);
        script_free(&S);
    }
    diag_report_end(&r, 1);
    if (write_out(&out) != 0) {
        sink_error(job->sink, "writing the output: %s", strerror(errno));
        io_error = 1;
    }
    sb_free(&out);
    if (io_error)
        return EXIT_USAGE;
    return r.errors || (job->werror && r.warnings) ? EXIT_FOUND : EXIT_OK;
}

/* The plans of S in --format: the text dump, JSON or Graphviz. */
static void plan_format(const Script *S, const char *format, StrBuf *out)
{
    int ws = S->job->limits.world_size > 1 ? S->job->limits.world_size : 1;
    if (!strcmp(format, "json")) {   /* --world-size N: every rank's entries, rank after rank */
        sb_puts(out, "{\"file\":");
        sb_json_str(out, S->file, strlen(S->file));
        if (ws > 1)
            sb_printf(out, ",\"world_size\":%d", ws);
        sb_puts(out, ",\"entries\":[");
        for (int r = 0; r < ws; r++) {
            size_t n;
            const Plan *v = ranks_plans(&S->ranks, r, S->plans.v, S->plans.n, &n);
            for (size_t i = 0; i < n; i++) {
                if (i || r)
                    sb_puts(out, ",\n");
                plan_json_with(&v[i], out, codegen_fused_json);   /* with the CPU target's groups */
            }
        }
        sb_puts(out, "]}\n");
        return;
    }
    if (!strcmp(format, "dot")) {   /* one document, whatever the number of entries (rank 0's) */
        plan_dot_all(S->plans.v, S->plans.n, S->file, out);
        return;
    }
    for (int r = 0; r < ws; r++) {
        size_t n;
        const Plan *v = ranks_plans(&S->ranks, r, S->plans.v, S->plans.n, &n);
        if (ws > 1)
            sb_printf(out, "%srank %d of %d (--world-size)\n", r ? "\n" : "", r, ws);
        for (size_t i = 0; i < n; i++) {
            if (i)
                sb_puts(out, "\n");
            plan_text(&v[i], out);
            codegen_fused_text(&v[i], out);   /* the CPU target's groups */
        }
    }
}

/* The rest of a depfile after its targets: ": SCRIPT MODULE...", then an
 * empty rule for each file read, so make does not fail when one is
 * deleted or renamed. */
static void depfile_prerequisites(StrBuf *d, const Script *S)
{
    sb_puts(d, ": ");
    make_path(d, S->file);
    for (size_t i = 0; i < S->ir.nmodules; i++) {
        sb_putc(d, ' ');
        make_path(d, S->ir.modules[i]->src.path);
    }
    sb_puts(d, "\n");
    make_path(d, S->file);
    sb_puts(d, ":\n");
    for (size_t i = 0; i < S->ir.nmodules; i++) {
        make_path(d, S->ir.modules[i]->src.path);
        sb_puts(d, ":\n");
    }
}

/* plan -MF FILE: -o's file (and -MT's target) depend on the script and on
 * every module it imports, each with an empty rule. 0, or -1 said. */
static int write_plan_depfile(const Script *S)
{
    const Job *job = S->job;
    if (!job->out && !job->dep_target) {
        sink_error(job->sink, "-MF: the depfile needs a target: -o FILE or -MT TARGET");
        return -1;
    }
    const char *why = NULL, *bad = NULL;
    for (size_t i = 0; i < S->ir.nmodules + 3 && !why; i++) {
        bad = i == 0 ? job->out : i == 1 ? job->dep_target : i == 2 ? S->file : S->ir.modules[i - 3]->src.path;
        why = bad ? make_unsafe(bad) : NULL;
    }
    if (why) {
        StrBuf shown = {0};
        sb_json_str(&shown, bad, strlen(bad));
        sink_error(job->sink, "-MF: make cannot name %s in a depfile (it has %s): rename it, or drop -MF", shown.s, why);
        sb_free(&shown);
        return -1;
    }
    StrBuf d = {0};
    if (job->out)
        make_path(&d, job->out);
    if (job->dep_target) {
        if (job->out)
            sb_putc(&d, ' ');
        make_path(&d, job->dep_target);
    }
    depfile_prerequisites(&d, S);
    int rc = write_file_atomic(job->depfile, d.s, d.len);
    if (rc != 0)
        sink_error(job->sink, "cannot write %s: %s", job->depfile, strerror(errno));
    sb_free(&d);
    return rc;
}

/* tngc plan: the script through PLAN; the plans on stdout or in -o FILE
 * (none when something failed: make must not take it as up to date), and
 * with --manifest the static-kernel manifests. */
static int run_plan(Job *job)
{
    Script S;
    int status = script_run(&S, job, job->files.v[0], job->cmd->last);
    print_diags(&S);
    if (status != EXIT_OK) {
        script_free(&S);
        return status;
    }
    StrBuf out = {0};
    plan_format(&S, job->format, &out);
    if (job->manifest && manifest_write_entries(S.plans.v, S.plans.n, S.file, 0, job->sink) != 0) {
        status = EXIT_USAGE;
    } else if (job->out) {
        if (write_file_atomic(job->out, out.s ? out.s : "", out.len) != 0) {
            sink_error(job->sink, "cannot write %s: %s", job->out, strerror(errno));
            status = EXIT_USAGE;
        }
    } else if (write_out(&out) != 0) {
        sink_error(job->sink, "writing the output: %s", strerror(errno));
        status = EXIT_USAGE;
    }
    if (status == EXIT_OK && job->depfile && write_plan_depfile(&S) != 0)
        status = EXIT_USAGE;
    sb_free(&out);
    script_free(&S);
    return status;
}

/* Stages text as name in out; returns 0, or -1 after an error in sink. */
static int stage_in(Sink *sink, OutSet *out, const char *name, const StrBuf *text)
{
    int rc = outset_add(out, name, text->s ? text->s : "", text->len, 0);
    if (rc != 0)
        sink_error(sink, "cannot write %s/%s: %s", out->dir, name, strerror(errno));
    return rc;
}

/* Commits out; returns 0, or -1 after an error in sink. */
static int commit_out(Sink *sink, OutSet *out)
{
    const char *failed;
    int rc = outset_commit(out, &failed);
    if (rc != 0)
        sink_error(sink, "cannot write %s/%s: %s", out->dir, failed ? failed : "(the commit journal)",
                   strerror(errno));
    return rc;
}

/* Refuses (one line) paths that a depfile cannot name; 0 when all can. */
static int check_make_paths(Sink *sink, const char *outdir, const char *file)
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
            sink_error(sink, "-MD/-MF: make cannot name %s in a depfile (it has %s): rename it, or drop -MD", shown.s,
                       why);
            sb_free(&shown);
            return -1;
        }
    }
    return 0;
}

/* The make depfile of S (-MD, -MF): every generated file depends on the
 * script and on every module it imports (a phony rule each, as gcc -MP
 * writes, so that a module removed later does not stop make). */
static int write_depfile(const Script *S)
{
    StrBuf d = {0}, path = {0};
    const Job *job = S->job;
    for (size_t i = 0; i < S->ir.nmodules; i++) {
        const char *why = make_unsafe(S->ir.modules[i]->src.path);
        if (why) {
            sb_json_str(&d, S->ir.modules[i]->src.path, strlen(S->ir.modules[i]->src.path));
            sink_error(job->sink, "-MD/-MF: make cannot name the imported module %s in a depfile (it has %s): "
                                  "rename it, or drop -MD", d.s, why);
            sb_free(&d);
            return -1;
        }
    }
    for (size_t i = 0; i < S->files.n; i++) {
        StrBuf word = {0};
        sb_printf(&word, "%s/%s", job->out, S->files.v[i].name);
        if (i)
            sb_putc(&d, ' ');
        make_path(&d, word.s);
        sb_free(&word);
    }
    if (job->dep_target) {
        sb_putc(&d, ' ');
        make_path(&d, job->dep_target);
    }
    depfile_prerequisites(&d, S);
    if (job->depfile)
        sb_puts(&path, job->depfile);
    else
        sb_printf(&path, "%s/%s.d", job->out, S->first);
    int rc = write_file_atomic(path.s, d.s, d.len);
    if (rc != 0)
        sink_error(job->sink, "cannot write %s: %s", path.s, strerror(errno));
    sb_free(&d);
    sb_free(&path);
    return rc;
}


/* Before gen or build reads the script: the options that need the file
 * system (build: --kernels readable, the --target's toolkit; -MD: paths a
 * depfile can name). */
static int bundles_ready(Job *job)
{
    if (job->cmd->last == STAGE_BUILD) {
        if (job->bo.kernels && access(job->bo.kernels, R_OK) != 0) {
            sink_error(job->sink, "cannot read %s: %s", job->bo.kernels, strerror(errno));
            return EXIT_USAGE;
        }
        if (build_target_ready(&job->bo, job->sink) != 0)
            return EXIT_USAGE;
    }
    if (job->md && check_make_paths(job->sink, job->out, job->files.v[0]) != 0)
        return EXIT_USAGE;
    if (job->md && job->dep_target && make_unsafe(job->dep_target)) {
        sink_error(job->sink, "-MT: make cannot name that target in a depfile (it has %s)", make_unsafe(job->dep_target));
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* Before BUILD creates anything: each entry's cache is usable, -o DIR
 * exists, and its file set is open for build_bundle to stage into. */
static int build_prepare(Script *S)
{
    const Job *job = S->job;
    int status = EXIT_OK;
    for (size_t i = 0; status == EXIT_OK && !job->bo.no_cache && i < S->plans.n; i++) {
        int from_script;
        const char *dir = cache_dir_of(job, &S->plans.v[i], &from_script);
        if (dir && build_cache_check(dir, from_script, job->sink) != 0)
            status = EXIT_USAGE;
    }
    if (status == EXIT_OK && fs_output_dir(job->sink, job->out) != 0)
        status = EXIT_USAGE;
    if (status == EXIT_OK)
        outset_begin(&S->out, job->out);
    return status;
}

/* After gen's EMIT: every bundle's sources staged in -o DIR (created now,
 * when nothing failed). */
static int gen_stage_files(Script *S)
{
    if (fs_output_dir(S->job->sink, S->job->out) != 0)
        return EXIT_USAGE;
    outset_begin(&S->out, S->job->out);
    for (size_t i = 0; i < S->files.n; i++)
        if (stage_in(S->job->sink, &S->out, S->files.v[i].name, &S->files.v[i].text) != 0)
            return EXIT_USAGE;
    return EXIT_OK;
}

/* tngc gen and build: the script through PLAN, then EMIT (and BUILD) per
 * entry; -o DIR gets every bundle's files at once (all or nothing), then
 * the static-kernel manifests and the depfile. */
static int run_bundles(Job *job)
{
    Stage last = job->cmd->last;
    int status = bundles_ready(job);
    if (status != EXIT_OK)
        return status;
    Script S;
    status = script_run(&S, job, job->files.v[0], STAGE_PLAN);
    print_diags(&S);
    if (status == EXIT_OK)
        status = bundle_names_check(&S);
    if (status == EXIT_OK && last == STAGE_BUILD)
        status = build_prepare(&S);
    if (status == EXIT_OK)
        status = script_run_entries(&S, last);
    if (status == EXIT_OK && last == STAGE_EMIT)
        status = gen_stage_files(&S);
    if (status == EXIT_OK && commit_out(job->sink, &S.out) != 0)
        status = EXIT_USAGE;
    int manifests_first = last == STAGE_EMIT;   /* gen's order; build writes the depfile first */
    if (status == EXIT_OK && manifests_first && manifest_write_entries(S.plans.v, S.plans.n, S.file, 1, job->sink) != 0)
        status = EXIT_USAGE;
    if (status == EXIT_OK && job->md && S.first && write_depfile(&S) != 0)
        status = EXIT_USAGE;
    if (status == EXIT_OK && !manifests_first && manifest_write_entries(S.plans.v, S.plans.n, S.file, 1, job->sink) != 0)
        status = EXIT_USAGE;
    script_free(&S);
    return status;
}

/* tngc recompiles: host log -> per-iteration op lists -> suspects. */
static int run_recompiles(Job *job)
{
    HostlogOptions opt = job->hostlog;
    if (job->out)
        opt.list_path = job->out;
    opt.json = !strcmp(job->format, "json");
    return hostlog_recompiles(&opt, job->files.v[0], stdout, job->sink);
}

/* ===================================================================== */
/* --dump=STAGE: a stage's intermediate form                             */
/* ===================================================================== */

/* One node of the ast dump: "kind line:col", a leaf's text (its first 40
 * bytes, as a JSON string), "missing" for a token the parser made up. */
static void dump_ast_node(const Ast *ast, int32_t n, int depth, StrBuf *out)
{
    const Node *nd = &ast->nodes[n];
    sb_printf(out, "%*s%s %u:%u", 2 * depth, "", ast_symbol_name(ast, n), nd->line, ast_col(ast, n));
    if (nd->first < 0 && !(nd->flags & NODE_MISSING)) {
        size_t len, cut;
        const char *t = ast_text(ast, n, &len);
        for (cut = len > 40 ? 40 : len; cut < len && cut > 0 && ((unsigned char)t[cut] & 0xC0) == 0x80; cut--)
            ;
        sb_putc(out, ' ');
        sb_json_str(out, t, cut);
        if (cut < len)
            sb_puts(out, "...");
    }
    if (nd->flags & NODE_MISSING)
        sb_puts(out, " missing");
    sb_putc(out, '\n');
}

/* --dump=ast: the syntax tree, one named node a line, indented by depth
 * (walked by the nodes' links: no recursion, however deep the tree). */
static void dump_ast(const Script *S, StrBuf *out)
{
    const Ast *ast = &S->sf.ast;
    int depth = 0;
    for (int32_t n = ast->n ? 0 : -1; n >= 0;) {
        if (ast->nodes[n].flags & NODE_NAMED)
            dump_ast_node(ast, n, depth, out);
        if (ast->nodes[n].first >= 0) {
            n = ast->nodes[n].first;
            depth++;
            continue;
        }
        while (n >= 0 && ast->nodes[n].next < 0) {
            n = ast->nodes[n].parent;
            depth--;
        }
        if (n >= 0)
            n = ast->nodes[n].next;
    }
}

/* --dump=scan: the annotations, as tngc scan lists them. */
static void dump_scan(const Script *S, StrBuf *out)
{
    scan_text(&S->sf, out);
}

/* --dump=graph: each entry's op graph as lowering made it (the graph part
 * of its plan's text, before any planning). */
static void dump_graph(const Script *S, StrBuf *out)
{
    for (size_t i = 0; i < S->ir.nentries; i++) {
        if (i)
            sb_puts(out, "\n");
        plan_graph_text(S->ir.entries[i], out);
    }
}

/* --dump=plan: the plans, as tngc plan prints them. */
static void dump_plan(const Script *S, StrBuf *out)
{
    plan_format(S, "text", out);
}

/* The stages --dump can stop at: name, the stage it runs up to, printer. */
struct Dump {
    const char *name;
    Stage stage;
    void (*print)(const Script *S, StrBuf *out);
};

static const Dump dumps[] = {
    {"ast", STAGE_LOAD, dump_ast},
    {"scan", STAGE_LOAD, dump_scan},
    {"graph", STAGE_LOWER, dump_graph},
    {"plan", STAGE_PLAN, dump_plan},
};

/* Any command with --dump=STAGE: each file through the stages up to STAGE,
 * their diagnostics on stderr and STAGE's form on stdout (when the stages
 * got there). Exit status 1 when they found errors. */
static int run_dump(Job *job)
{
    int status = EXIT_OK;
    StrBuf out = {0};
    for (size_t i = 0; i < job->files.n; i++) {
        Script S;
        int st = script_run(&S, job, job->files.v[i], job->dump->stage);
        print_diags(&S);
        if (S.loaded && (st == EXIT_OK || job->dump->stage == STAGE_LOAD))
            job->dump->print(&S, &out);
        if (st == EXIT_OK && S.loaded && script_has_errors(&S))
            st = EXIT_FOUND;
        if (st > status)
            status = st;
        script_free(&S);
    }
    if (write_out(&out) != 0) {
        sink_error(job->sink, "writing the output: %s", strerror(errno));
        status = EXIT_USAGE;
    }
    sb_free(&out);
    return status;
}

/* ===================================================================== */
/* Options: how each stores its value                                    */
/* ===================================================================== */

typedef struct Option Option;

/* Each returns -1 to go on, or the exit status to end with after saying why. */
typedef int OptionSet(Job *job, const Option *o, const char *value);

/* A string option: the value stored in the Job field at o->field. */
static int opt_store(Job *job, const Option *o, const char *v)
{
    *(const char **)((char *)job + o->field) = v;
    return -1;
}

/* A flag: the int Job field at o->field set to 1. */
static int opt_flag(Job *job, const Option *o, const char *v)
{
    (void)v;
    *(int *)((char *)job + o->field) = 1;
    return -1;
}

/* --format: one of the command's formats. */
static int opt_format(Job *job, const Option *o, const char *v)
{
    (void)o;
    for (const char *const *f = job->cmd->formats; f && *f; f++)
        if (!strcmp(*f, v)) {
            job->format = v;
            return -1;
        }
    return usage_error(job->cmd, "unknown format '%s'", v);
}

/* --dump=STAGE: a stage the command runs (a dump ends where it runs up to). */
static int opt_dump(Job *job, const Option *o, const char *v)
{
    (void)o;
    StrBuf known = {0};
    for (size_t i = 0; i < sizeof dumps / sizeof *dumps; i++) {
        if (dumps[i].stage > job->cmd->last)
            continue;
        if (!strcmp(dumps[i].name, v)) {
            job->dump = &dumps[i];
            sb_free(&known);
            return -1;
        }
        sb_printf(&known, "%s%s", known.len ? ", " : "", dumps[i].name);
    }
    int st = usage_error(job->cmd, "unknown --dump stage '%s' (%s)", v, known.s);
    sb_free(&known);
    return st;
}

/* lint --soc NAME: a chip tngc knows. */
static int opt_soc(Job *job, const Option *o, const char *v)
{
    (void)o;
    int has_sk;
    if (!lint_soc_known(v, &has_sk))
        return usage_error(job->cmd, "unknown --soc '%s' (e.g. Ascend910_9391, Ascend910B1, Ascend310P3)", v);
    job->soc = v;
    return -1;
}

/* lint --torchair VERSION: a TorchAir commit whose config schema tngc has. */
static int opt_torchair(Job *job, const Option *o, const char *v)
{
    (void)o;
    job->torchair = lint_torchair_version(v);
    if (job->torchair < 0)
        return usage_error(job->cmd, "unknown --torchair '%.80s' (known: %s)", v, lint_torchair_versions());
    return -1;
}

/* --max-memory MB, --max-time SECONDS: the interpreter's budgets. */
static int opt_limit(Job *job, const Option *o, const char *v)
{
    char *end;
    errno = 0;
    if (!strcmp(o->flag, "--world-size")) {
        long n = strtol(v, &end, 10);
        if (errno || end == v || *end || n < 1 || n > 63)
            return usage_error(job->cmd, "--world-size takes a number of ranks from 1 to 63, not '%s'", v);
        job->limits.world_size = (int)n;
    } else if (!strcmp(o->flag, "--max-memory")) {
        long mb = strtol(v, &end, 10);
        if (errno || end == v || *end || mb < 1 || mb > 1048576)
            return usage_error(job->cmd, "--max-memory takes megabytes from 1 to 1048576, not '%s'", v);
        job->limits.max_mb = (size_t)mb;
    } else {
        double sec = strtod(v, &end);
        if (errno || end == v || *end || !(sec > 0 && sec <= 1e6))
            return usage_error(job->cmd, "--max-time takes seconds (more than 0, at most 1e6), not '%s'", v);
        job->limits.max_seconds = sec;
    }
    return -1;
}

/* A non-negative decimal integer; 0, or -1 when s is not one. */
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

/* build -j N: 1 to 256 translation units at once. */
static int opt_jobs(Job *job, const Option *o, const char *v)
{
    (void)o;
    long j;
    if (parse_long(v, &j) != 0 || j < 1 || j > 256)
        return usage_error(job->cmd, "-j takes a number of jobs from 1 to 256, not '%s'", v);
    job->bo.jobs = (int)j;
    return -1;
}

static int opt_target(Job *job, const Option *o, const char *v)
{
    (void)o;
    if (!(job->target = target_find(v)))
        return usage_error(job->cmd, "unknown target '%s' (cpu, acl)", v);
    return -1;
}

/* -MF FILE: the depfile's path; implies -MD. */
static int opt_depfile(Job *job, const Option *o, const char *v)
{
    (void)o;
    job->depfile = v;
    job->md = 1;
    return -1;
}

/* -I DIR, repeatable: a folder of the modules the script imports, searched
 * after the script's folder and before TNGC_PATH's. */
static int opt_import_dir(Job *job, const Option *o, const char *v)
{
    (void)o;
    if (!*v)
        return usage_error(job->cmd, "-I takes a folder, not an empty string");
    VEC_PUSH(job->import_dirs, v);
    job->limits.path = job->import_dirs.v;
    job->limits.npath = job->import_dirs.n;
    return -1;
}

/* -MT TARGET: one more target of the depfile's rule (tngc.mk's stamp); implies -MD. */
static int opt_dep_target(Job *job, const Option *o, const char *v)
{
    (void)o;
    job->dep_target = v;
    job->md = 1;
    return -1;
}

/* --user-kernel OP, repeatable (the ops are checked after parsing). */
static int opt_user_kernel(Job *job, const Option *o, const char *v)
{
    (void)o;
    VEC_PUSH(job->user_ops, v);
    return -1;
}

static int opt_split_flag(Job *job, const Option *o, const char *v)
{
    (void)o;
    if (!*v)
        return usage_error(job->cmd, "--split-flag must not be empty");
    job->hostlog.split_flag = v;
    return -1;
}

static int opt_after(Job *job, const Option *o, const char *v)
{
    (void)o;
    if (parse_long(v, &job->hostlog.after) != 0)
        return usage_error(job->cmd, "--after takes a non-negative integer, not '%s'", v);
    return -1;
}

/* ===================================================================== */
/* The command and option tables                                         */
/* ===================================================================== */

#define STORE(f) opt_store, offsetof(Job, f), 0
#define FLAG(f) opt_flag, offsetof(Job, f), 0
#define SET(fn) fn, 0, 0

/* In --help order: each command lists its rows in this order. */
static const Option options[] = {
    {"--entry", "NAME", FOR(PLAN), STORE(entry), "plan only the entry NAME (e.g. Model.forward)"},
    {"--format", "FORMAT", FOR(PLAN), SET(opt_format),
     "--format text\ta stable, diffable dump (default)\n"
     "--format json\t{\"file\": ..., \"entries\": [...]}\n"
     "--format dot\tGraphviz: one colour per stream, a cluster per segment"},
    {"-o", "FILE", FOR(PLAN), STORE(out), "write the plan to FILE (atomically) instead of stdout"},
    {"--manifest", NULL, FOR(PLAN), FLAG(manifest),
     "also write the static-kernel op-info tree of entries in\n"
     "reduce-overhead mode with _aclnn_static_shape_kernel = True,\n"
     "under their build dir (relative to the script's folder;\n"
     "default: the script's folder). SOURCE_DATE_EPOCH fixes the\n"
     "timestamp and pid in its path."},
    {"-o", "DIR", FOR(GEN), STORE(out), "the output directory (created when missing)"},
    {"--entry", "NAME", FOR(GEN), STORE(entry), "only the entry NAME (e.g. Model.forward)"},
    {"--target", "NAME", FOR(GEN), SET(opt_target),
     "--target cpu\tC kernels on the CPU, libtngcrt's stream executor (default)\n"
     "--target acl\thost code over AscendCL for an Ascend NPU: aclrt streams and\n"
     "events, aclnn operators (docs/bundles.md, \"The ACL target\")"},
    {"--no-line", NULL, FOR(GEN), FLAG(no_line), "no #line directives back to the script (golden tests)"},
    {"--no-fuse", NULL, FOR(GEN), FLAG(no_fuse),
     "CPU target: one kernel call per op, no pointwise fusion (by\n"
     "default a chain of elementwise ops whose intermediates nothing\n"
     "else reads is one generated loop; for debugging)"},
    {"--streams-as-written", NULL, FOR(PLAN) | FOR(GEN), FLAG(streams_as_written),
     "every stream scope keeps its own thread on the CPU: no stream\n"
     "cost model (by default a branch too small to pay for a thread\n"
     "hand-off runs on the default stream; tngc plan reports it)"},
    {"-MD", NULL, FOR(GEN), FLAG(md), "also write a make depfile DIR/<name>.d"},
    {"-MF", "FILE", FOR(GEN), SET(opt_depfile), "write the depfile to FILE (implies -MD)"},
    {"-MT", "TARGET", FOR(GEN), SET(opt_dep_target),
     "TARGET is a target of the depfile's rule too (implies -MD)"},
    {"--user-kernel", "OP", FOR(GEN), SET(opt_user_kernel),
     "you supply the CPU kernel of op OP (e.g. add): tngc writes a\n"
     "stub <name>_kernels_user.c with its exact signature"},
    {"-MF", "FILE", FOR(PLAN), SET(opt_depfile),
     "also write a make depfile FILE: -o's file depends on the script\n"
     "and on every module it imports"},
    {"-MT", "TARGET", FOR(PLAN), SET(opt_dep_target), "TARGET is a target of that rule too"},
    {"-I", "DIR", FOR(PLAN) | FOR(GEN) | FOR(SCAN) | FOR(LINT), opt_import_dir, 0, 1,
     "look for the modules the script imports in DIR too\n"
     "(repeatable): after the script's folder, before TNGC_PATH's\n"
     "folders (colon-separated, as PYTHONPATH)"},
    {"--max-memory", "MB", FOR(PLAN) | FOR(GEN), SET(opt_limit), "the interpreter's memory budget (default 512)"},
    {"--world-size", "N", FOR(PLAN) | FOR(GEN), SET(opt_limit),
     "tensor parallel over N ranks (2..63; default 1): the script runs\n"
     "once per rank r with torch.distributed initialized (get_rank() r,\n"
     "get_world_size() N), its collectives are ops; gen and build make\n"
     "one bundle of the N plans, run with mpirun -np N (CPU target: MPI)\n"
     "or one process per rank with RANK_ID and RANK_TABLE_FILE (ACL\n"
     "target: HCCL; docs/bundles.md, \"Tensor parallel over MPI\")"},
    {"--max-time", "SECONDS", FOR(PLAN), SET(opt_limit),
     "its time budget in CPU seconds (default 10); a script that needs more is\n"
     "stopped with one TNG212 error at the statement running then"},
    {"--max-time", "SECONDS", FOR(GEN), SET(opt_limit), "its time budget (default 10), as 'tngc plan'"},
    {"--dump", "STAGE", FOR(PLAN) | FOR(GEN), SET(opt_dump),
     "--dump=STAGE\tprint the intermediate form of STAGE on stdout and stop:\n"
     "ast (the syntax tree), scan (the annotations), graph (the\n"
     "lowered op graphs) or plan; nothing else is written"},
    {"-j", "N", FOR(BUILD), opt_jobs, 0, 1, "compile N translation units at once (default: the CPUs)"},
    {"--cc", "CC", FOR(BUILD), STORE(bo.cc), "the C compiler (default clang)"},
    {"--opt", "FLAGS", FOR(BUILD), STORE(bo.opt), "its optimisation flags (default -O2)"},
    {"--cache-dir", "DIR", FOR(BUILD), STORE(cache_dir),
     "the cache (default: cache_compile's cache_dir, else\n"
     "$XDG_CACHE_HOME/tngc or ~/.cache/tngc); it must belong to you"},
    {"--no-cache", NULL, FOR(BUILD), FLAG(bo.no_cache), "build without the cache"},
    {"--kernels", "FILE.c", FOR(BUILD), STORE(bo.kernels),
     "the kernels of --user-kernel ops; their signatures are checked\n"
     "with libclang before compiling"},
    {"--acl-home", "DIR", FOR(BUILD), STORE(bo.toolkit_home),
     "with --target acl: the CANN toolkit (default $ASCEND_TOOLKIT_HOME);\n"
     "its include/ compiles lib<name>.a, and its lib64/libascendcl.so,\n"
     "when present, links <name>_launcher"},
    {"--format", "FORMAT", FOR(SCAN), SET(opt_format),
     "--format text\tone line per annotation (default)\n"
     "--format json\tone JSON document {\"files\": [...]}"},
    {"--format", "FORMAT", FOR(LINT), SET(opt_format),
     "--format text\tgcc-style diagnostics with the source line (default)\n"
     "--format json\ta JSON list of {path, line, col, end_line, end_col,\n"
     "severity, rule, message}\n"
     "--format sarif\tSARIF 2.1.0, for code-scanning tools"},
    {"--soc", "NAME", FOR(LINT), SET(opt_soc), "the target chip, e.g. Ascend910_9391 (Atlas A3) or Ascend910B1"},
    {"--torchair", "VERSION", FOR(LINT), SET(opt_torchair),
     "the TorchAir commit whose CompilerConfig fields are checked:\n"
     "fced8842 (the default, also 'newest') or 770a4d54, or a longer\n"
     "prefix of the commit"},
    {"--werror", NULL, FOR(LINT), FLAG(werror), "warnings make the exit status 1"},
    {"--dump", "STAGE", FOR(SCAN) | FOR(LINT), SET(opt_dump),
     "--dump=STAGE\tprint the intermediate form of STAGE on stdout and stop:\n"
     "ast (the syntax tree) or scan (the annotations)"},
    {"--split-flag", "S", FOR(RECOMPILES), SET(opt_split_flag), "iteration marker (default '=====iter')"},
    {"--after", "N", FOR(RECOMPILES), SET(opt_after),
     "suspects are ops first compiled in an iteration > N (default 3)"},
    {"-o", "FILE", FOR(RECOMPILES), STORE(out), "the list file (default recompile_op_list.txt)"},
    {"--format", "F", FOR(RECOMPILES), SET(opt_format), "the report on stdout: text (default) or json"},
};

static int check_bundle_args(Job *job);

static const char *const formats_scan[] = {"text", "json", NULL};
static const char *const formats_lint[] = {"text", "json", "sarif", NULL};
static const char *const formats_plan[] = {"text", "json", "dot", NULL};

static const Command commands[CMD__count] = {
    [CMD_SCAN] = {"scan", STAGE_LOAD, run_scan, "list the TorchAir annotations of Python files",
        "usage: tngc scan [--format text|json] [-I DIR]... FILE...\n"
        "\n"
        "Lists every TorchAir annotation of each FILE: super_kernel, npu_stream_switch,\n"
        "npu_wait_tensor, limit_core_num, set_dim_gears, mark_static, cache_compile,\n"
        "CompilerConfig() calls and field assignments, get_npu_backend, torch.compile.\n"
        "Calls that only share an annotation's name are listed as unresolved.\n"
        "A FILE that is a folder stands for the *.py files under it (hidden folders,\n"
        "__pycache__ and symbolic links skipped); '-' is standard input.\n"
        "\n",
        "Exit status: 0, or 1 if a file has syntax errors, 2 on usage or I/O errors.\n",
        18, formats_scan, 0, 1, "no input files", NULL, NULL},
    [CMD_LINT] = {"lint", STAGE_LINT, run_lint, "report misuse of the annotations (pre-commit checks)",
        "usage: tngc lint [--format text|json|sarif] [--soc NAME] [--torchair VERSION] [--werror]\n"
        "                 [-I DIR]... FILE...\n"
        "\n"
        "Reports misuse of TorchAir annotations (rules TNG001-TNG177, see docs/rules.md).\n"
        "A '# tngc: ignore[TNG123]' comment suppresses a rule on its line.\n"
        "A FILE that is a folder stands for the *.py files under it (hidden folders,\n"
        "__pycache__ and symbolic links skipped); '-' is standard input.\n"
        "\n",
        "Exit status: 0 no errors, 1 errors (or warnings with --werror), 2 usage or I/O errors.\n",
        19, formats_lint, 0, 1, "no input files", NULL, NULL},
    [CMD_PLAN] = {"plan", STAGE_PLAN, run_plan,
        "interpret a model script, lower its compiled entries and print their plan",
        "usage: tngc plan [--entry NAME] [--format text|json|dot] [-o FILE] [--manifest]\n"
        "                 [-MF FILE [-MT TARGET]] [-I DIR]...\n"
        "                 [--max-memory MB] [--max-time SECONDS] FILE\n"
        "\n"
        "Runs the script's module-level code abstractly, lowers each compiled entry it\n"
        "calls (torch.compile'd models and methods, cache_compile'd methods) to an op\n"
        "graph, and plans it: gears, per-stream schedules with events, super-kernel\n"
        "segments, a memory arena per gear, row independence of geared dims and the\n"
        "static-kernel instances (docs/plan.md, docs/plan-format.md).\n"
        "\n",
        "The annotation rules of 'tngc lint' run first. Diagnostics go to stderr in gcc's\n"
        "format. Exit status: 0 planned, 1 errors in the script, 2 usage or I/O errors.\n",
        19, formats_plan, 0, 0, "no input file", "one script at a time ('%s' is extra)", NULL},
    [CMD_GEN] = {"gen", STAGE_EMIT, run_bundles, "generate the C sources of a model bundle (--target cpu or acl)",
        "usage: tngc gen FILE -o DIR [--entry NAME] [--target cpu|acl] [--no-line] [-MD] [-MF FILE] [-MT TARGET]\n"
        "                [-I DIR]... [--max-memory MB] [--max-time SECONDS]\n"
        "                [--user-kernel OP]...\n"
        "\n"
        "Plans the script's compiled entries (as 'tngc plan') and writes, per entry, the C\n"
        "sources of its bundle into DIR: <name>.h (the API), <name>.c (per gear, one\n"
        "straight-line function per stream and one per super-kernel segment) and\n"
        "<name>_launcher.c. <name> is the script's file name without .py, or, when the\n"
        "script has several entries, <stem>_<Class>_<method>. Files are written atomically.\n"
        "\n",
        "Exit status: 0 written, 1 errors in the script, 2 usage or I/O errors.\n",
        20, NULL, 0, 0, "no input file", "one script at a time ('%s' is extra)", check_bundle_args},
    [CMD_BUILD] = {"build", STAGE_BUILD, run_bundles, "generate and compile a bundle: lib<name>.a and a launcher",
        "usage: tngc build FILE -o DIR [-j N] [--cc CC] [--opt FLAGS] [--cache-dir DIR | --no-cache]\n"
        "                  [--kernels FILE.c] [--acl-home DIR] [gen's options]\n"
        "\n"
        "Generates the bundle sources (as 'tngc gen') and compiles them: DIR/lib<name>.a\n"
        "and DIR/<name>_launcher, linked against libtngcrt and OpenBLAS. Translation units\n"
        "compile in parallel. Builds are cached: an unchanged script (same tngc, compiler\n"
        "and options) is a cache hit that compiles nothing. Entries in reduce-overhead mode\n"
        "with _aclnn_static_shape_kernel also get their static-kernel manifest tree.\n"
        "\n",
        "Exit status: 0 built, 1 errors in the script or the build, 2 usage or I/O errors.\n",
        20, NULL, FOR(GEN), 0, "no input file", "one script at a time ('%s' is extra)", check_bundle_args},
    [CMD_RECOMPILES] = {"recompiles", STAGE_NONE, run_recompiles,
        "find operators recompiled because of dynamic shapes, from a host log",
        "usage: tngc recompiles LOG [--split-flag S] [--after N] [-o FILE] [--format text|json]\n"
        "\n"
        "Reads a host log with 'To compile op: NAME' lines and iteration markers, writes\n"
        "the per-iteration list of compiled ops (recompile_op_list.txt format), and reports\n"
        "the ops first compiled after iteration N as dynamic-shape suspects.\n"
        "\n",
        "Reads the log as a stream: memory does not grow with its size.\n"
        "Exit status: 0 success, 2 usage or I/O errors.\n",
        19, formats_scan, 0, 0, "no log file", "one log at a time ('%s' is extra)", NULL},
};

static const char usage_main[] =
    "usage: tngc [--version] [--help] COMMAND [ARGS]\n"
    "\n"
    "tngc reads PyTorch scripts annotated for TorchAir (the Ascend NPU backend\n"
    "of torch.compile), checks and analyses their annotations, and compiles their\n"
    "models into C bundles and launchers that run without Python, on a CPU or\n"
    "(--target acl) against AscendCL for an Ascend NPU.\n"
    "\n"
    "commands:\n";

/* ===================================================================== */
/* Help and argument parsing, from the tables                            */
/* ===================================================================== */

/* "tngc: <message>" and the synopsis of cmd (NULL: tngc's own). */
static int usage_error(const Command *cmd, const char *fmt, ...)
{
    const char *usage = cmd ? cmd->usage : usage_main;
    va_list ap;
    va_start(ap, fmt);
    tngc_vsay(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%.*s", (int)strcspn(usage, "\n"), usage);
    fputs("\n", stderr);
    return EXIT_USAGE;
}

static void help_main(void)
{
    StrBuf s = {0};
    sb_puts(&s, usage_main);
    for (int c = 0; c < CMD__count; c++)
        sb_printf(&s, "  %-12s%s\n", commands[c].name, commands[c].summary);
    sb_puts(&s, "\nRun 'tngc COMMAND --help' for the options of a command.\n");
    fputs(s.s, stdout);
    sb_free(&s);
}

/* Appends o's help rows, their text from column col (or two blanks after a
 * longer left part). */
static void help_option(const Option *o, int col, StrBuf *s)
{
    for (const char *p = o->help; *p;) {
        size_t n = strcspn(p, "\n");
        const char *tab = memchr(p, '\t', n);
        size_t start = s->len;
        if (tab)
            sb_printf(s, "  %.*s", (int)(tab - p), p);
        else if (p == o->help && o->arg)
            sb_printf(s, "  %s %s", o->flag, o->arg);
        else if (p == o->help)
            sb_printf(s, "  %s", o->flag);
        size_t used = s->len - start;
        sb_printf(s, "%*s", used + 2 > (size_t)col ? 2 : col - (int)used, "");
        const char *text = tab ? tab + 1 : p;
        sb_printf(s, "%.*s\n", (int)(n - (size_t)(text - p)), text);
        p += n + (p[n] == '\n');
    }
}

/* cmd --help: its synopsis and description, its options (the rows of
 * options[] that name it, in order), and its closing lines. */
static void help_command(const Command *cmd)
{
    StrBuf s = {0};
    sb_puts(&s, cmd->usage);
    for (size_t i = 0; i < sizeof options / sizeof *options; i++)
        if (options[i].cmds & (1u << (cmd - commands)))
            help_option(&options[i], cmd->col, &s);
    sb_printf(&s, "\n%s", cmd->closing);
    fputs(s.s, stdout);
    sb_free(&s);
}

/* The row of flag that cmd takes, or NULL. */
static const Option *option_find(const Command *cmd, const char *flag)
{
    unsigned mine = (1u << (cmd - commands)) | cmd->also;
    for (size_t i = 0; i < sizeof options / sizeof *options; i++)
        if ((options[i].cmds & mine) && !strcmp(options[i].flag, flag))
            return &options[i];
    return NULL;
}

/* str_distance(a, b), or limit + 1 when it is above limit. */
static size_t edit_distance(const char *a, const char *b, size_t limit)
{
    size_t d = str_distance(a, b);
    return d > limit ? limit + 1 : d;
}

/* Whether name is close enough to candidate to suggest it: at most one
 * edit in every three characters (at least one). */
static size_t suggest_limit(const char *name)
{
    size_t n = strlen(name) / 3;
    return n ? n : 1;
}

/* The command closest to name, or NULL when none is close. */
static const char *command_suggest(const char *name)
{
    const char *best = NULL;
    size_t limit = suggest_limit(name), bd = limit + 1;
    for (int c = 0; c < CMD__count; c++) {
        size_t d = edit_distance(name, commands[c].name, limit);
        if (d < bd) {
            bd = d;
            best = commands[c].name;
        }
    }
    return best;
}

/* The option of cmd closest to flag, or NULL when none is close. */
static const char *option_suggest(const Command *cmd, const char *flag)
{
    unsigned mine = (1u << (cmd - commands)) | cmd->also;
    const char *best = NULL;
    size_t limit = suggest_limit(flag), bd = limit + 1;
    for (size_t i = 0; i < sizeof options / sizeof *options; i++) {
        if (!(options[i].cmds & mine))
            continue;
        size_t d = edit_distance(flag, options[i].flag, limit);
        if (d < bd) {
            bd = d;
            best = options[i].flag;
        }
    }
    return best;
}

/* A command that takes cmd's options and flag as well (gen's -j: build),
 * for the message; or NULL. */
static const Command *option_owner(const Command *cmd, const char *flag)
{
    for (int c = 0; c < CMD__count; c++)
        if ((commands[c].also & (1u << (cmd - commands))) && option_find(&commands[c], flag))
            return &commands[c];
    return NULL;
}

/* The option argv[*i] (its value from "--flag=V", "-jV" or the next
 * argument, which *i then moves past): -1 to go on, or an exit status. */
static int args_option(Job *job, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = NULL;
    char flag[32];
    size_t n = strcspn(a, "=");
    if (n >= sizeof flag)
        return usage_error(job->cmd, "unknown option '%s'", a);
    snprintf(flag, sizeof flag, "%.*s", (int)n, a);
    if (a[n] == '=' && a[1] == '-')
        v = a + n + 1;
    for (size_t k = 0; k < sizeof options / sizeof *options; k++)
        if (options[k].joined && a[1] != '-' && !strncmp(a, options[k].flag, strlen(options[k].flag)) &&
            a[strlen(options[k].flag)]) {
            snprintf(flag, sizeof flag, "%s", options[k].flag);
            v = a + strlen(flag);
        }
    const Option *o = option_find(job->cmd, flag);
    const Command *owner = o ? NULL : option_owner(job->cmd, flag);
    if (owner)
        return usage_error(job->cmd, "unknown option '%s' (it is %s's)", flag, owner->name);
    if (!o) {
        const char *near = option_suggest(job->cmd, flag);
        if (near)
            return usage_error(job->cmd, "unknown option '%s' (did you mean '%s'?)", a, near);
    }
    if (!o || (v && !o->arg) || (a[n] == '=' && !v))
        return usage_error(job->cmd, "unknown option '%s'", a);
    if (o->arg && !v) {
        if (*i + 1 >= argc)
            return usage_error(job->cmd, "%s needs a value", a);
        v = argv[++*i];
    }
    return o->set(job, o, v);
}

/* gen and build, after parsing: -o DIR (unless --dump), the user-kernel
 * ops, and the options that exclude each other. */
static int check_bundle_args(Job *job)
{
    if (!job->out && !job->dump)
        return usage_error(job->cmd, "no output directory (-o DIR)");
    for (size_t k = 0; k < job->user_ops.n; k++) {
        int known = 0;
        for (int op = 0; op < OP__count; op++)
            known |= !strcmp(op_info[op].name, job->user_ops.v[k]) && !(op_info[op].flags & (OPF_SOURCE | OPF_ALIAS));
        if (!known) {
            StrBuf ops = {0};
            for (int op = 0; op < OP__count; op++)
                if (!(op_info[op].flags & (OPF_SOURCE | OPF_ALIAS)))
                    sb_printf(&ops, "%s%s", ops.len ? " " : "", op_info[op].name);
            sink_error(job->sink, "--user-kernel: unknown op '%s'; ops with kernels: %s", job->user_ops.v[k], ops.s);
            sb_free(&ops);
            return EXIT_USAGE;
        }
    }
    job->bo.target = job->target;
    if (job->bo.no_cache && job->cache_dir)
        return usage_error(job->cmd, "--cache-dir and --no-cache exclude each other");
    if (job->user_ops.n && !job->target->user_kernels)
        return usage_error(job->cmd, "--user-kernel supplies CPU kernels: not with --target %s", job->target->name);
    if (job->bo.kernels && job->user_ops.n == 0)
        return usage_error(job->cmd, "--kernels needs --user-kernel OP for each op it implements");
    if (job->limits.world_size > 1 && job->user_ops.n)
        return usage_error(job->cmd, "--world-size and --user-kernel exclude each other");
    VEC_PUSH(job->user_ops, NULL);
    job->user_ops.n--;
    return -1;
}

/* Parses argv (argv[0] is the command's name) into job by the tables: -1
 * to go on, or the exit status to end with (--help, usage errors). */
static int args_parse(Job *job, int argc, char **argv)
{
    const Command *cmd = job->cmd;
    int only_files = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int st = -1;
        if (only_files || a[0] != '-' || !strcmp(a, "-")) {
            if (!cmd->many && job->files.n)
                return usage_error(cmd, cmd->extra, a);
            VEC_PUSH(job->files, a);
        } else if (cmd->many && !strcmp(a, "--")) {
            only_files = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help_command(cmd);
            return EXIT_OK;
        } else {
            st = args_option(job, argc, argv, &i);
        }
        if (st >= 0)
            return st;
    }
    if (!job->files.n)
        return usage_error(cmd, "%s", cmd->missing);
    return cmd->check ? cmd->check(job) : -1;
}

/* Folders args_expand descends into at most, and the files it takes. */
enum { EXPAND_MAX_DEPTH = 64, EXPAND_MAX_FILES = 100000, EXPAND_MAX_ENTRIES = 1000000 };

static int expand__cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends the *.py files under the folder open as dfd (named path) to
 * job->files, in name order, descending into folders; names that start
 * with '.', __pycache__ and symbolic links are skipped (a link is never
 * followed, so no loop and no file outside the folder). -1 after saying
 * why. */
static int expand__dir(Job *job, int dfd, const char *path, int depth, size_t *entries)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        sink_file_error(job->sink, path, "%s", strerror(errno));
        close(dfd);
        return -1;
    }
    VEC(char *) names = {0};
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "__pycache__"))
            continue;
        if (++*entries > EXPAND_MAX_ENTRIES) {
            sink_file_error(job->sink, path, "more than %d entries in the folders to lint", EXPAND_MAX_ENTRIES);
            rc = -1;
            break;
        }
        VEC_PUSH(names, xstrdup(e->d_name));
    }
    if (names.n)
        qsort(names.v, names.n, sizeof *names.v, expand__cmp);
    for (size_t i = 0; i < names.n && rc == 0; i++) {
        struct stat st;
        const char *name = names.v[i];
        if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;   /* gone since readdir */
        size_t n = strlen(path), m = strlen(name);
        char *full = xmalloc(n + m + 2);
        snprintf(full, n + m + 2, "%s%s%s", path, n && path[n - 1] == '/' ? "" : "/", name);
        if (S_ISDIR(st.st_mode)) {
            if (depth >= EXPAND_MAX_DEPTH) {
                sink_file_error(job->sink, full, "folders nested deeper than %d", EXPAND_MAX_DEPTH);
                rc = -1;
            } else {
                int sub = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                rc = sub < 0 ? (sink_file_error(job->sink, full, "%s", strerror(errno)), -1)
                             : expand__dir(job, sub, full, depth + 1, entries);
            }
            free(full);
        } else if (S_ISREG(st.st_mode) && m > 3 && !strcmp(name + m - 3, ".py")) {
            if (job->owned.n >= EXPAND_MAX_FILES) {
                sink_file_error(job->sink, path, "more than %d Python files in the folders to lint",
                                EXPAND_MAX_FILES);
                free(full);
                rc = -1;
            } else {
                VEC_PUSH(job->owned, full);
                VEC_PUSH(job->files, full);
            }
        } else {
            free(full);
        }
    }
    for (size_t i = 0; i < names.n; i++)
        free(names.v[i]);
    VEC_FREE(names);
    closedir(d);
    return rc;
}

/* scan and lint: a folder among the files stands for the *.py files under
 * it (as other linters take one); "-" is standard input, read here once
 * (at most SOURCE_MAX_BYTES). -1 to go on, or the exit status. */
static int args_expand(Job *job)
{
    if (!job->cmd->many)
        return -1;
    const char **given = job->files.v;
    size_t ngiven = job->files.n;
    memset(&job->files, 0, sizeof job->files);
    size_t entries = 0;
    int rc = -1;
    for (size_t i = 0; i < ngiven && rc < 0; i++) {
        const char *a = given[i];
        struct stat st;
        if (!strcmp(a, "-")) {
            if (job->stdin_text) {
                rc = usage_error(job->cmd, "'-' (standard input) is given twice");
                break;
            }
            StrBuf in = {0};
            char buf[65536];
            size_t k;
            while ((k = fread(buf, 1, sizeof buf, stdin)) > 0 && in.len <= SOURCE_MAX_BYTES)
                sb_putn(&in, buf, k);
            if (ferror(stdin) || in.len > SOURCE_MAX_BYTES) {
                sink_file_error(job->sink, "<stdin>", ferror(stdin) ? "cannot be read" : "more than %u bytes",
                                SOURCE_MAX_BYTES);
                sb_free(&in);
                rc = EXIT_USAGE;
                break;
            }
            job->stdin_len = in.len;
            job->stdin_text = in.s ? in.s : xstrdup("");
            VEC_PUSH(job->files, a);
        } else if (stat(a, &st) == 0 && S_ISDIR(st.st_mode)) {
            int dfd = open(a, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            size_t before = job->files.n;
            if (dfd < 0 || expand__dir(job, dfd, a, 0, &entries) != 0) {
                if (dfd < 0)
                    sink_file_error(job->sink, a, "%s", strerror(errno));
                rc = EXIT_USAGE;
            } else if (job->files.n == before) {
                sink_file_error(job->sink, a, "is a folder with no Python file in it");
                rc = EXIT_USAGE;
            }
        } else {
            VEC_PUSH(job->files, a);
        }
    }
    free(given);
    if (rc < 0 && !job->files.n)
        rc = usage_error(job->cmd, "no Python file in the folders given");
    return rc;
}

/* A Job for cmd with every option at its default. */
static void job_init(Job *job, const Command *cmd)
{
    memset(job, 0, sizeof *job);
    job->cmd = cmd;
    job->format = "text";
    job->bo.cc = "clang";
    job->bo.opt = "-O2";
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    job->bo.jobs = cpus > 0 ? (int)cpus : 1;
    job->target = target_find("cpu");
    hostlog_options_init(&job->hostlog);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error(NULL, "no command given");
    const char *name = argv[1];
    if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
        printf("tngc %s (tree-sitter-python 0.23.6)\n", TNGC_VERSION);
        return EXIT_OK;
    }
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        help_main();
        return EXIT_OK;
    }
    const Command *cmd = NULL;
    for (int c = 0; c < CMD__count && !cmd; c++)
        if (!strcmp(commands[c].name, name))
            cmd = &commands[c];
    if (!cmd) {
        const char *near = command_suggest(name);
        if (near)
            return usage_error(NULL, "unknown command '%s' (did you mean '%s'?)", name, near);
        return usage_error(NULL, "unknown command '%s'", name);
    }
    Job job;
    Sink sink;   /* the one sink of this run */
    sink_init(&sink, stderr);
    job_init(&job, cmd);
    job.sink = &sink;
    int status = args_parse(&job, argc - 1, argv + 1);
    if (status < 0)
        status = args_expand(&job);
    if (status < 0) {
        /* plan, gen and build parse within --max-memory too (lint has no budget) */
        if (cmd->last >= STAGE_LOWER) {
            size_t mb = job.limits.max_mb ? job.limits.max_mb : INTERP_DEFAULT_MAX_MB;
            ast_set_memory_limit(mb > SIZE_MAX >> 20 ? SIZE_MAX : mb << 20, "--max-memory");
        }
        job.modules = scanmods_new(job.import_dirs.v, job.import_dirs.n, scanfile_load_with, scanfile_free);
        status = job.dump ? run_dump(&job) : cmd->run(&job);
        scanmods_free(job.modules);
    }
    VEC_FREE(job.files);
    for (size_t i = 0; i < job.owned.n; i++)
        free(job.owned.v[i]);
    VEC_FREE(job.owned);
    free(job.stdin_text);
    VEC_FREE(job.user_ops);
    VEC_FREE(job.import_dirs);
    sink_free(&sink);
    return status;
}
