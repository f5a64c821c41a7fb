/*
 * launcher.c - the main program of a tngc bundle: reads the inputs from
 * .npy files and the weights from a weights file (safetensors, a sharded
 * safetensors index, or a torch.save zip), runs the compiled
 * entry (warm-up runs, then timed runs), prints the gear and the latency
 * percentiles, and writes the outputs of the last run (and the inputs it
 * updated in place) as .npy files.
 *
 *   <name>_launcher [--weights W] --input NAME=F.npy ...
 *                   [--out-dir D] [--warmup N] [--iters N] [--trace T.json] [--pad]
 *                   [--strict] [--stats] [--widen-outputs]
 *   <name>_launcher --list-weights
 *   <name>_launcher --check-weights W [--strict]
 *
 * The files are all or nothing: each is written under a temporary name
 * first (a new file beside it, created exclusively under a random name by
 * libtngcrt, never through a link planted there), and only when every one
 * (and stdout) was written are they renamed into place, every destination
 * checked before the first rename and the renames done undone when a later
 * one fails (tngrt_files_install); on a failure (a full disk) every
 * temporary file is removed.
 *
 * This is a template (templates/README.md): `tngc gen` replaces the
 * prologue marker line below with a banner, #include "<name>.h" and
 * #define TNGC_BUNDLE_DESC() <name>_desc(). Without it the file compiles
 * on its own against the descriptor of tests/launcher/fake_bundle.c. It
 * uses only the generic API of libtngcrt: tngrt_bundle.h runs the bundle,
 * and tngrt_launch.h, shared with the ACL target's launcher_acl.c, reads
 * the inputs, selects the gear (padding with --pad), checks the weights
 * file's unused tensors and writes the results. What stays here is the
 * command line, the printing and the timed runs.
 *
 * Exit status: 0 success, 1 a runtime failure (a kernel's error, out of
 * memory), 2 bad usage, bad input (also values a kernel refuses, e.g. an
 * embedding id out of range) or an output that cannot be written, stdout
 * included (one line on stderr: "<prog>: ...").
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

/*@tngc:prologue@*/
#ifndef TNGC_BUNDLE_DESC
#include "tngrt_bundle.h"
const TngrtBundleDesc *tngc_template_desc(void);   /* the standalone build's descriptor (tests/launcher/fake_bundle.c) */
#define TNGC_BUNDLE_DESC() tngc_template_desc()
#endif

#ifndef TNGC_DIST_BEGIN
/* A bundle of one process (the prologue of a --world-size N > 1 build
 * starts MPI here, and ends it, aborting every rank on a failure). */
#define TNGC_DIST_BEGIN(argc, argv, prog) 0
#define TNGC_DIST_END(rc, prog) (rc)
#endif

#include "tngrt_launch.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

/* Exit statuses. */
enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* Largest --warmup / --iters accepted. */
#define MAX_RUNS 1000000L

/* One --input NAME=FILE argument. */
typedef struct InputArg {
    const char *spec;    /* "NAME=FILE" as given */
    size_t name_len;     /* length of NAME */
    const char *path;    /* FILE */
} InputArg;

/* The command line. */
typedef struct Args {
    const char *weights, *out_dir, *trace, *check_weights;
    long warmup, iters;
    int pad, strict, stats, help, version, list_weights, widen;
    InputArg *in;        /* nin entries (room for argc) */
    int nin;
    unsigned given;      /* options seen, one bit each (given once at most) */
} Args;

/* Everything the launcher owns; freed by launcher_free. */
typedef struct Launcher {
    const char *prog;
    const TngrtBundleDesc *desc;
    Args a;
    TngrtLaunch *launch;    /* the inputs, the gear, the files written (libtngcrt) */
    TngrtBundle *bundle;
    double *lat_us;         /* the timed runs' latencies */
    double load_us;         /* tngrt_bundle_load_weights's time (--stats) */
    double first_us;        /* the first run's time, warm-up or not (--stats) */
    TngrtTrace *trace;
} Launcher;

/* ---- messages ---- */

/* Prints "<prog>: <kind><message>" as one line on stderr (control
 * characters from file contents become '?'). */
static void say(const Launcher *L, const char *kind, const char *fmt, va_list ap)
{
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    for (char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    fprintf(stderr, "%s: %s%s\n", L->prog, kind, msg);
}

/* Reports an error as one line on stderr and returns status. */
static int fail(const Launcher *L, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(L, "", fmt, ap);
    va_end(ap);
    return status;
}

/* Prints one warning line on stderr. */
static void warn(const Launcher *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(L, "warning: ", fmt, ap);
    va_end(ap);
}

/* Writes a signature shape: "[s0,4]" ("?" for a dim computed from symbols). */
static void print_sig_shape(FILE *f, const TngrtBundleDesc *d, const TngrtSigTensor *t)
{
    tngrt_launch_print_shape(f, d, t);
}

/* Reports the last failure of the launch (a tngrt_launch_* call that
 * returned rc): exit status 2 for TNGRT_BAD_INPUT, else 1. */
static int fail_launch(const Launcher *L, int rc)
{
    return fail(L, rc == TNGRT_BAD_INPUT ? EXIT_USAGE : EXIT_RUNTIME, "%s",
                tngrt_launch_last_error(L->launch));
}

/* ---- --help ---- */

static void usage_line(FILE *f, const char *prog)
{
    fprintf(f, "usage: %s [--weights W] --input NAME=F.npy ... [--out-dir D]\n"
               "       [--warmup N] [--iters N] [--trace T.json] [--pad] [--strict] [--stats]\n"
               "       [--widen-outputs]\n"
               "       %s --list-weights | --check-weights W [--strict]\n",
            prog, prog);
}

static void help_signature(const TngrtBundleDesc *d)
{
    printf("\ninputs (one --input NAME=FILE.npy each):\n");
    for (int i = 0; i < d->ninputs; i++) {
        printf("  %s %s", d->inputs[i].name, tngrt_dtype_name(d->inputs[i].dtype));
        print_sig_shape(stdout, d, &d->inputs[i]);
        printf("%s%s\n", d->inputs[i].flags & TNGRT_SIG_UPDATED ? "  (updated in place)" : "",
               d->inputs[i].dtype == TNGRT_BF16
                   ? "  (a '<f4' .npy, rounded, or a '<u2' .npy of bfloat16 bits)"
                   : d->inputs[i].dtype == TNGRT_F16 ? "  (a '<f2' .npy, or a '<f4' one, rounded)"
                                                     : "");
    }
    printf("weights: %d%s\n", d->nweights,
           d->nweights ? " (--weights FILE; --list-weights lists them)" : "");
    printf("outputs:\n");
    for (int i = 0; i < d->noutputs; i++) {
        printf("  %s %s", d->outputs[i].name, tngrt_dtype_name(d->outputs[i].dtype));
        print_sig_shape(stdout, d, &d->outputs[i]);
        printf("%s\n", d->outputs[i].dtype == TNGRT_BF16
                            ? "  (written as '<u2' bfloat16 bits; '<f4' with --widen-outputs)"
                            : d->outputs[i].dtype == TNGRT_F16 ? "  ('<f4' with --widen-outputs)"
                                                               : "");
    }
    printf("gears (the first whose sizes the inputs match runs):\n");
    for (int g = 0; g < d->ngears; g++) {
        printf("  %d:", g);
        for (int s = 0; s < d->nsyms; s++) {
            int64_t v = d->gears[g].symval[s];
            printf(" %s=", d->syms[s].name);
            if (v == INT64_MIN)
                printf("?");
            else
                printf("%lld", (long long)v);
        }
        printf("%s\n", d->nsyms ? "" : " all static");
    }
    if (d->nsyms)
        printf("symbols:\n");
    for (int s = 0; s < d->nsyms; s++)
        printf("  %s: input '%s' dim %d%s\n", d->syms[s].name, d->inputs[d->syms[s].input].name,
               d->syms[s].dim, d->syms[s].pad_ok ? "; --pad may pad it" : "");
}

static void help(const Launcher *L)
{
    const TngrtBundleDesc *d = L->desc;
    usage_line(stdout, L->prog);
    printf("\nRuns %s (%s), compiled by tngc as bundle '%s'.\n", d->entry, d->script, d->name);
    help_signature(d);
    printf("\noptions:\n"
           "  --weights FILE     the weights, required when the model has any: a safetensors\n"
           "                     file, a sharded one's model.safetensors.index.json, or a\n"
           "                     torch.save(model.state_dict()) file (.pt, .pth, .bin);\n"
           "                     told apart by content. Each weight must have the model's\n"
           "                     dtype (no conversion) and shape\n"
           "  --list-weights     print every weight the model needs (name, dtype, shape,\n"
           "                     its tied keys) and the keys it accepts unread, then exit\n"
           "  --check-weights FILE  print what FILE lacks (missing, wrong dtype or shape)\n"
           "                     and holds beyond the model (extra), without running;\n"
           "                     exit 0 when it would load, 1 when not\n"
           "  --input NAME=FILE  input NAME from a .npy file (split at the first '=')\n"
           "  --out-dir DIR      where the .npy results go (default .; created when missing,\n"
           "                     its parent must exist)\n"
           "  --warmup N         untimed runs first (default 1)\n"
           "  --iters N          timed runs (default 10, at least 1)\n"
           "  --trace FILE       a Chrome trace (JSON) of the last timed run\n"
           "  --pad              inputs whose shapes are in no gear are padded with zeros up to\n"
           "                     the smallest gear that holds them (only symbols the planner\n"
           "                     proved row-independent), and the outputs cropped back\n"
           "  --strict           refuse a weights file holding tensors the model does not\n"
           "                     use (default: one warning naming them)\n"
           "  --stats            also print the weights' load time and size, the first\n"
           "                     run's time and the process's peak resident memory\n"
           "  --widen-outputs    write bf16 and f16 outputs (and inputs updated in place)\n"
           "                     as float32 ('<f4') .npy files, widened exactly (default:\n"
           "                     f16 as '<f2', bf16 as '<u2' files of its bit patterns)\n"
           "  --help, --version\n"
           "\nWrites every output of the last run as DIR/<output>.npy (out0, out1, ... or,\n"
           "when the entry returns a dict, named tuple or dataclass, its keys: logits.npy),\n"
           "and every input updated in place as DIR/<input>.npy with characters outside\n"
           "[A-Za-z0-9_.-] replaced by '_'\n"
           "(kv_cache[0]['attn']['key'] -> kv_cache_0___attn____key__.npy).\n"
           "Inputs updated in place, e.g. KV caches, are updated by every iteration,\n"
           "warm-up included. The files appear all together once every one is written\n"
           "(none on a failure).\n"
           "A bf16 input is read from a '<f4' .npy (rounded to nearest even, as torch's\n"
           ".to(torch.bfloat16)) or a '<u2' .npy of its bit patterns; an f16 input from\n"
           "a '<f2' .npy or a '<f4' one, rounded as .to(torch.float16).\n"
           "Exit status: 0 success, 1 runtime failure, 2 bad usage, bad input (also values\n"
           "a kernel refuses, e.g. an embedding id out of range) or an output that cannot\n"
           "be written.\n");
}

/* ---- the command line ---- */

/* Parses a count in [lo, MAX_RUNS]: decimal digits only. */
static int parse_count(const Launcher *L, const char *opt, const char *s, long lo, long *out)
{
    char *end;
    long v;
    errno = 0;
    v = (s[0] >= '0' && s[0] <= '9') ? strtol(s, &end, 10) : -1;
    if (v < 0 || *end != '\0' || errno != 0 || v < lo || v > MAX_RUNS)
        return fail(L, EXIT_USAGE, "%s: '%s' is not an integer in [%ld, %ld]", opt, s, lo,
                    MAX_RUNS);
    *out = v;
    return 0;
}

/* Records --input NAME=FILE. */
static int add_input(Launcher *L, const char *spec)
{
    const char *eq = strchr(spec, '=');
    InputArg *in = &L->a.in[L->a.nin];
    if (!eq || eq == spec || eq[1] == '\0')
        return fail(L, EXIT_USAGE, "--input '%s': expected NAME=FILE.npy", spec);
    in->spec = spec;
    in->name_len = (size_t)(eq - spec);
    in->path = eq + 1;
    L->a.nin++;
    return 0;
}

/* Applies option opt with its value val. */
static int apply_option(Launcher *L, const char *opt, const char *val)
{
    Args *a = &L->a;
    static const char *const once[] = {"--weights", "--out-dir", "--trace", "--warmup", "--iters",
                                       "--check-weights"};
    for (unsigned k = 0; k < sizeof once / sizeof *once; k++)
        if (strcmp(opt, once[k]) == 0) {
            if (a->given & (1u << k))
                return fail(L, EXIT_USAGE, "%s given twice", opt);
            a->given |= 1u << k;
        }
    if (strcmp(opt, "--weights") == 0)
        a->weights = val;
    else if (strcmp(opt, "--out-dir") == 0)
        a->out_dir = val;
    else if (strcmp(opt, "--trace") == 0)
        a->trace = val;
    else if (strcmp(opt, "--check-weights") == 0)
        a->check_weights = val;
    else if (strcmp(opt, "--warmup") == 0)
        return parse_count(L, opt, val, 0, &a->warmup);
    else if (strcmp(opt, "--iters") == 0)
        return parse_count(L, opt, val, 1, &a->iters);
    else
        return add_input(L, val);
    return 0;
}

/* Whether opt takes a value. */
static int takes_value(const char *opt)
{
    static const char *const with[] = {"--weights", "--input", "--out-dir", "--warmup",
                                       "--iters", "--trace", "--check-weights"};
    for (size_t i = 0; i < sizeof with / sizeof with[0]; i++)
        if (strcmp(opt, with[i]) == 0)
            return 1;
    return 0;
}

/* Parses one argument at argv[*i] ("--opt value" or "--opt=value"). */
static int parse_arg(Launcher *L, int argc, char **argv, int *i)
{
    char opt[32];
    const char *arg = argv[*i], *eq = strchr(arg, '=');
    size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
    if (n >= sizeof opt || strncmp(arg, "--", 2) != 0)
        return fail(L, EXIT_USAGE, "unexpected argument '%s' (see --help)", arg);
    memcpy(opt, arg, n);
    opt[n] = '\0';
    if (!takes_value(opt)) {
        int *flag = strcmp(opt, "--pad") == 0 ? &L->a.pad
                    : strcmp(opt, "--strict") == 0 ? &L->a.strict
                    : strcmp(opt, "--stats") == 0 ? &L->a.stats
                    : strcmp(opt, "--widen-outputs") == 0 ? &L->a.widen
                    : strcmp(opt, "--list-weights") == 0 ? &L->a.list_weights
                    : strcmp(opt, "--help") == 0 ? &L->a.help
                    : strcmp(opt, "--version") == 0 ? &L->a.version : NULL;
        if (!flag || eq)
            return fail(L, EXIT_USAGE, "unknown option '%s' (see --help)", arg);
        *flag = 1;
        return 0;
    }
    if (eq)
        return apply_option(L, opt, eq + 1);
    if (*i + 1 >= argc)
        return fail(L, EXIT_USAGE, "%s needs a value (see --help)", opt);
    *i += 1;
    return apply_option(L, opt, argv[*i]);
}

static int parse_args(Launcher *L, int argc, char **argv)
{
    L->a.warmup = 1;
    L->a.iters = 10;
    L->a.out_dir = ".";
    L->a.in = calloc((size_t)argc + 1, sizeof *L->a.in);
    if (!L->a.in)
        return fail(L, EXIT_RUNTIME, "out of memory");
    for (int i = 1; i < argc; i++)
        if (parse_arg(L, argc, argv, &i) != 0)
            return EXIT_USAGE;
    return 0;
}

/* ---- checks before reading anything ---- */

/* Maps the --input arguments onto the signature: unknown names,
 * duplicates and missing inputs are errors. Fills which[i] with the
 * argument of input i. */
static int match_inputs(Launcher *L, const InputArg **which)
{
    const TngrtBundleDesc *d = L->desc;
    for (int k = 0; k < L->a.nin; k++) {
        const InputArg *arg = &L->a.in[k];
        int i = tngrt_launch_input_index(d, arg->spec, arg->name_len);
        if (i < 0)
            return fail(L, EXIT_USAGE, "unknown input '%.*s' (%s takes %d inputs; see --help)",
                        (int)arg->name_len, arg->spec, d->entry, d->ninputs);
        if (which[i])
            return fail(L, EXIT_USAGE, "input '%s' is given twice", d->inputs[i].name);
        which[i] = arg;
    }
    for (int i = 0; i < d->ninputs; i++)
        if (!which[i])
            return fail(L, EXIT_USAGE, "missing --input %s=FILE.npy", d->inputs[i].name);
    return 0;
}
/* Refuses signatures in which two results would be written to the same
 * file (names equal once sanitised, or an input named like an output). */
static int check_result_names(const Launcher *L)
{
    const TngrtBundleDesc *d = L->desc;
    char file[1024];
    int a, b;
    if (!tngrt_launch_result_clash(d, &a, &b, file, sizeof file))
        return 0;
    return fail(L, EXIT_USAGE, "%s '%s' and %s '%s' would both be written as %s: rename one "
                "in the script", b < d->noutputs ? "output" : "input", tngrt_launch_result_name(d, b),
                a < d->noutputs ? "output" : "input", tngrt_launch_result_name(d, a), file);
}

/* Whether path is a directory. */
static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Checks the options that do not depend on the files: --trace's
 * directory, the results' names, --out-dir (created when missing) and the
 * results' files in it. */
static int check_options(Launcher *L)
{
    int nw = tngrt_launch_weights_required(L->desc), rc;
    TngrtError err;
    if (nw > 0 && !L->a.weights)
        return fail(L, EXIT_USAGE, "the model has %d weight%s: pass --weights FILE (see --list-weights)",
                    nw, nw == 1 ? "" : "s");
    if (tngrt_launch_new(&L->launch, L->desc, &err) != 0)
        return fail(L, EXIT_RUNTIME, "%s", err.msg);
    tngrt_launch_set_widen(L->launch, L->a.widen);
    if (!(L->lat_us = calloc((size_t)L->a.iters, sizeof *L->lat_us)))
        return fail(L, EXIT_RUNTIME, "out of memory");
    if ((rc = tngrt_launch_check_trace(L->launch, L->a.trace)) != 0)
        return fail_launch(L, rc);
    if ((rc = check_result_names(L)) != 0)
        return rc;
    /* nothing is created when an option is refused */
    if ((rc = tngrt_launch_make_out_dir(L->launch, L->a.out_dir)) != 0
        || (rc = tngrt_launch_check_result_paths(L->launch)) != 0)
        return fail_launch(L, rc);
    return 0;
}

/* ---- inputs and weights ---- */

/* Reads every input's .npy file. numpy has no bfloat16: a bf16 input is
 * read from a '<f4' .npy (rounded to bfloat16) or a '<u2' .npy of its bit
 * patterns, the form in which bf16 outputs are written without
 * --widen-outputs; an f16 input from a '<f2' or a rounded '<f4' .npy. */
static int read_inputs(Launcher *L)
{
    const TngrtBundleDesc *d = L->desc;
    const InputArg **which = calloc((size_t)d->ninputs + 1, sizeof *which);
    int rc;
    if (!which)
        return fail(L, EXIT_RUNTIME, "out of memory");
    rc = match_inputs(L, which);
    for (int i = 0; rc == 0 && i < d->ninputs; i++) {
        if (is_dir(which[i]->path))
            rc = fail(L, EXIT_USAGE, "input '%s': %s is a directory", d->inputs[i].name,
                      which[i]->path);
        else if (tngrt_launch_read_input(L->launch, i, which[i]->path) != 0)
            rc = fail(L, EXIT_USAGE, "input '%s': %s", d->inputs[i].name,
                      tngrt_launch_last_error(L->launch));
    }
    free(which);
    return rc;
}

/* Tensors of the weights file that the model does not use: one warning
 * line naming the first few, or with --strict an error. */
static int check_unused(const Launcher *L)
{
    const char *names[TNGRT_LAUNCH_UNUSED_SHOWN];
    int n = tngrt_bundle_unused_count(L->bundle), rc;
    for (int i = 0; i < n && i < TNGRT_LAUNCH_UNUSED_SHOWN; i++)
        names[i] = tngrt_bundle_unused_name(L->bundle, i);
    rc = tngrt_launch_unused(L->launch, L->a.weights, n, names, L->a.strict);
    if (rc == 1)
        warn(L, "%s", tngrt_launch_last_error(L->launch));
    return rc < 0 ? fail_launch(L, rc) : 0;
}

static double now_us(void);

/* Creates the bundle and loads the weights (timed for --stats). */
static int open_bundle(Launcher *L)
{
    TngrtError err;
    double t0;
    if (L->a.weights && is_dir(L->a.weights))
        return fail(L, EXIT_USAGE, "--weights '%s' is a directory", L->a.weights);
    if (tngrt_bundle_new(&L->bundle, L->desc, &err) != 0)
        return fail(L, EXIT_RUNTIME, "%s", err.msg);
    /* one bundle in this process: state shared with another entry's
     * bundle (TNGRT_SIG_SHARED) runs on its own copy, from --weights */
    tngrt_bundle_own_state(L->bundle);
    t0 = now_us();
    if (L->a.weights && tngrt_bundle_load_weights(L->bundle, L->a.weights) != 0)
        return fail(L, EXIT_USAGE, "%s", tngrt_bundle_last_error(L->bundle));
    L->load_us = now_us() - t0;
    return L->a.weights ? check_unused(L) : 0;
}

/* Checks the inputs and selects the gear, padding with --pad (the
 * smallest gear that holds them, tngrt_launch_select); prints "gear <i>:
 * s0=4" (with the sizes of symbols the gear binds from the inputs), then
 * "padded: x [3,8] -> [4,8]" for each padded input. */
static int select_gear(Launcher *L)
{
    char line[4096];
    int rc = tngrt_launch_select(L->launch, L->a.pad);
    if (rc < 0)
        return fail_launch(L, rc);
    tngrt_launch_gear_line(L->launch, line, sizeof line);
    printf("%s\n", line);
    for (int i = 0; i < L->desc->ninputs; i++)
        if (tngrt_launch_padded_line(L->launch, i, line, sizeof line))
            printf("%s\n", line);
    return 0;
}

/* ---- running ---- */

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* One run; values a kernel refuses (an embedding id out of range) are bad
 * input (exit 2), any other failure a runtime one (exit 1). */
static int run_once(Launcher *L)
{
    int rc = tngrt_bundle_run(L->bundle, tngrt_launch_run_inputs(L->launch), L->desc->ninputs,
                              tngrt_launch_outputs(L->launch), L->desc->noutputs);
    if (rc != 0)
        return fail(L, rc == TNGRT_BAD_INPUT ? EXIT_USAGE : EXIT_RUNTIME, "%s",
                    tngrt_bundle_last_error(L->bundle));
    return 0;
}

/* The warm-up runs, then the timed runs (the last one traced with --trace). */
static int run_all(Launcher *L)
{
    TngrtError err;
    if (L->a.trace && tngrt_trace_new(&L->trace, L->desc->nstreams, &err) != 0)
        return fail(L, EXIT_RUNTIME, "%s", err.msg);
    int rc;
    for (long i = 0; i < L->a.warmup; i++) {
        double t0 = now_us();
        if ((rc = run_once(L)) != 0)
            return rc;
        if (i == 0)
            L->first_us = now_us() - t0;
    }
    for (long i = 0; i < L->a.iters; i++) {
        double t0;
        if (i == L->a.iters - 1 && L->trace)
            tngrt_bundle_set_trace(L->bundle, L->trace);
        t0 = now_us();
        if ((rc = run_once(L)) != 0)
            return rc;
        L->lat_us[i] = now_us() - t0;
        if (i == 0 && L->a.warmup == 0)
            L->first_us = L->lat_us[i];
    }
    tngrt_bundle_set_trace(L->bundle, NULL);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The nearest-rank percentile p of the n sorted values v. */
static double percentile(const double *v, long n, long p)
{
    long rank = (p * n + 99) / 100;
    return v[rank < 1 ? 0 : rank - 1];
}

static void print_latency(Launcher *L)
{
    long n = L->a.iters;
    qsort(L->lat_us, (size_t)n, sizeof *L->lat_us, cmp_double);
    printf("latency: p50 %.1f us, p90 %.1f us, p99 %.1f us over %ld runs\n",
           percentile(L->lat_us, n, 50), percentile(L->lat_us, n, 90),
           percentile(L->lat_us, n, 99), n);
}

/* The peak resident set of this process so far, in KiB: Linux's VmHWM
 * (/proc/self/status), which starts afresh at exec, else getrusage's
 * ru_maxrss (which on Linux keeps the high-water mark of the process that
 * exec'd the launcher: a large parent's shows); -1 when neither works. */
static long peak_rss_kib(void)
{
    char line[256];
    long kib = -1;
    struct rusage ru;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && kib < 0 && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    if (kib < 0 && getrusage(RUSAGE_SELF, &ru) == 0)
        kib = ru.ru_maxrss;
    return kib;
}

/* --stats: the load time, the weights' bytes, and the peak resident set
 * so far. */
static void print_stats(const Launcher *L)
{
    const TngrtBundleDesc *d = L->desc;
    double wbytes = 0;
    for (int i = 0; i < d->nweights; i++) {
        double n = (double)tngrt_dtype_size(d->weights[i].dtype);
        for (int k = 0; k < d->weights[i].ndim; k++)
            n *= (double)d->weights[i].dims[k].value;
        wbytes += n;
    }
    printf("load: %.1f ms, first run %.1f ms, weights %.1f MiB, peak RSS %.1f MiB\n",
           L->load_us / 1e3, L->first_us / 1e3, wbytes / 1048576.0,
           (double)peak_rss_kib() / 1024.0);
}

/* ---- results ---- */

/* Flushes stdout: 0, or exit status 2 with one line on stderr. */
static int flush_stdout(const Launcher *L)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout))
        return fail(L, EXIT_USAGE, "stdout: write error%s%s", errno ? ": " : "",
                    errno ? strerror(errno) : "");
    return 0;
}

/* Writes the outputs of the last run and the inputs it updated in place
 * (their valid rows when padded), then the trace, each under a temporary
 * name (tngrt_launch_write_results); prints a "wrote PATH" line per file
 * and, once stdout took them, renames every file into place, all or
 * nothing (tngrt_launch_install: every destination checked first, the
 * renames done undone when one fails). */
static int write_results(Launcher *L)
{
    int rc = tngrt_launch_write_results(L->launch, L->trace, L->a.trace);
    if (rc != 0)
        return fail_launch(L, rc);
    for (int k = 0; k < tngrt_launch_file_count(L->launch); k++)
        printf("wrote %s\n", tngrt_launch_file(L->launch, k));
    if ((rc = flush_stdout(L)) != 0)
        return rc;
    if ((rc = tngrt_launch_install(L->launch)) != 0)
        return fail_launch(L, rc);
    return 0;
}

/* ---- --list-weights, --check-weights ---- */

/* --check-weights: the report of tngrt_launch_check_weights on stdout;
 * 0 when the file would load, else 1 (a file that cannot be read: its
 * message on stderr). */
static int check_weights(Launcher *L)
{
    TngrtError err;
    char *report = NULL;
    int rc;
    if (tngrt_launch_new(&L->launch, L->desc, &err) != 0)
        return fail(L, EXIT_RUNTIME, "%s", err.msg);
    if (is_dir(L->a.check_weights))
        return fail(L, EXIT_RUNTIME, "--check-weights '%s' is a directory", L->a.check_weights);
    rc = tngrt_launch_check_weights(L->launch, L->a.check_weights, L->a.strict, &report);
    if (rc < 0)
        return fail(L, EXIT_RUNTIME, "%s", tngrt_launch_last_error(L->launch));
    fputs(report, stdout);
    free(report);
    return rc ? EXIT_RUNTIME : 0;
}

/* ---- main ---- */

static void launcher_free(Launcher *L)
{
    free(L->lat_us);
    free(L->a.in);
    tngrt_launch_delete(L->launch);   /* removes the temporary files not renamed into place */
    tngrt_trace_delete(L->trace);
    tngrt_bundle_delete(L->bundle);
}

static int launcher_main(Launcher *L, int argc, char **argv)
{
    int rc;
    if ((rc = parse_args(L, argc, argv)) != 0)
        return rc;
    if (L->a.help || L->a.version) {
        if (L->a.help)
            help(L);
        else
            printf("%s: bundle '%s' of %s (%s)\n", L->prog, L->desc->name, L->desc->entry,
                   L->desc->script);
        return 0;
    }
    if (L->a.list_weights || L->a.check_weights) {
        if (L->a.weights || L->a.nin > 0 || (L->a.list_weights && L->a.check_weights))
            return fail(L, EXIT_USAGE, "%s runs nothing: give it alone (see --help)",
                        L->a.list_weights ? "--list-weights" : "--check-weights");
        if (L->a.list_weights) {
            tngrt_launch_list_weights(L->desc, stdout);
            return 0;
        }
        return check_weights(L);
    }
    if ((rc = check_options(L)) != 0 || (rc = read_inputs(L)) != 0 || (rc = open_bundle(L)) != 0
        || (rc = select_gear(L)) != 0 || (rc = run_all(L)) != 0)
        return rc;
    print_latency(L);
    if (L->a.stats)
        print_stats(L);
    return write_results(L);
}

int main(int argc, char **argv)
{
    Launcher L;
    const char *slash = argc > 0 ? strrchr(argv[0], '/') : NULL;
    int rc;
#ifdef SIGXFSZ
    signal(SIGXFSZ, SIG_IGN);   /* past a file size limit, a write fails (EFBIG) and is reported */
#endif
    memset(&L, 0, sizeof L);
    L.prog = slash ? slash + 1 : argc > 0 ? argv[0] : "launcher";
    rc = TNGC_DIST_BEGIN(&argc, &argv, L.prog);
    if (rc != 0)
        return rc;
    L.desc = TNGC_BUNDLE_DESC();
    rc = launcher_main(&L, argc, argv);
    if (rc == 0)
        rc = flush_stdout(&L);   /* --help, --version */
    if (rc != 0)
        tngrt_launch_abandon(L.launch);   /* every temporary file, and --out-dir when created */
    launcher_free(&L);
    if (fclose(stdout) != 0 && rc == 0)
        rc = fail(&L, EXIT_USAGE, "stdout: %s", strerror(errno));
    return TNGC_DIST_END(rc, L.prog);
}
