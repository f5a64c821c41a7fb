/*
 * launcher.c - the main program of a tngc bundle: reads the inputs from
 * .npy files and the weights from a safetensors file, runs the compiled
 * entry (warm-up runs, then timed runs), prints the gear and the latency
 * percentiles, and writes the outputs of the last run (and the inputs it
 * updated in place) as .npy files.
 *
 *   <name>_launcher [--weights W.safetensors] --input NAME=F.npy ...
 *                   [--out-dir D] [--warmup N] [--iters N] [--trace T.json] [--pad]
 *                   [--strict] [--stats]
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
 * uses only the generic API of libtngcrt (tngrt_bundle.h).
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

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
    const char *weights, *out_dir, *trace;
    long warmup, iters;
    int pad, strict, stats, help, version;
    InputArg *in;        /* nin entries (room for argc) */
    int nin;
    unsigned given;      /* options seen, one bit each (given once at most) */
} Args;

/* Everything the launcher owns; freed by launcher_free. */
typedef struct Launcher {
    const char *prog;
    const TngrtBundleDesc *desc;
    Args a;
    TngrtBundle *bundle;
    TngrtTensor **given;    /* the inputs as read, in signature order */
    TngrtTensor **padded;   /* padded copies (NULL where not padded) */
    TngrtTensor *run_in;    /* what each run gets (views of given/padded) */
    TngrtTensor *outs;      /* the outputs of the last run (views) */
    int64_t *real;          /* each symbol's size in the inputs */
    int *is_padded;         /* per symbol: padded up to the gear's value */
    double *lat_us;         /* the timed runs' latencies */
    double load_us;         /* tngrt_bundle_load_weights's time (--stats) */
    double first_us;        /* the first run's time, warm-up or not (--stats) */
    TngrtTrace *trace;
    int gear;
    int made_out_dir;       /* --out-dir did not exist: created, removed again on failure */
    char **tmp, **dst;      /* the files written: temporary name ("" until made), final name */
    int nfiles, installed;  /* installed: every tmp renamed into place */
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
    fputc('[', f);
    for (int k = 0; k < t->ndim; k++) {
        int s = t->dims[k].sym;
        if (k)
            fputc(',', f);
        if (s >= 0)
            fputs(d->syms[s].name, f);
        else if (s == -2)
            fputc('?', f);
        else
            fprintf(f, "%lld", (long long)t->dims[k].value);
    }
    fputc(']', f);
}

/* Formats a shape as "[3,8]" into buf. */
static const char *shape_str(char *buf, size_t len, int ndim, const int64_t *shape)
{
    size_t n = (size_t)snprintf(buf, len, "[");
    for (int k = 0; k < ndim && n < len; k++)
        n += (size_t)snprintf(buf + n, len - n, k ? ",%lld" : "%lld", (long long)shape[k]);
    if (n < len)
        snprintf(buf + n, len - n, "]");
    return buf;
}

/* ---- --help ---- */

static void usage_line(FILE *f, const char *prog)
{
    fprintf(f, "usage: %s [--weights W.safetensors] --input NAME=F.npy ... [--out-dir D]\n"
               "       [--warmup N] [--iters N] [--trace T.json] [--pad] [--strict] [--stats]\n",
            prog);
}

static void help_signature(const TngrtBundleDesc *d)
{
    printf("\ninputs (one --input NAME=FILE.npy each):\n");
    for (int i = 0; i < d->ninputs; i++) {
        printf("  %s %s", d->inputs[i].name, tngrt_dtype_name(d->inputs[i].dtype));
        print_sig_shape(stdout, d, &d->inputs[i]);
        printf("%s%s\n", d->inputs[i].flags & TNGRT_SIG_UPDATED ? "  (updated in place)" : "",
               d->inputs[i].dtype == TNGRT_BF16 ? "  (a '<u2' .npy of bfloat16 bits)" : "");
    }
    printf("weights: %d%s\n", d->nweights, d->nweights ? " (--weights FILE.safetensors)" : "");
    printf("outputs:\n");
    for (int i = 0; i < d->noutputs; i++) {
        printf("  %s %s", d->outputs[i].name, tngrt_dtype_name(d->outputs[i].dtype));
        print_sig_shape(stdout, d, &d->outputs[i]);
        printf("%s\n", d->outputs[i].dtype == TNGRT_BF16 ? "  (written as '<u2' bfloat16 bits)" : "");
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
           "  --weights FILE     the weights (safetensors), required when the model has any\n"
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
           "  --help, --version\n"
           "\nWrites every output of the last run as DIR/<output>.npy (out0, out1, ... or,\n"
           "when the entry returns a dict, named tuple or dataclass, its keys: logits.npy),\n"
           "and every input updated in place as DIR/<input>.npy with characters outside\n"
           "[A-Za-z0-9_.-] replaced by '_'\n"
           "(kv_cache[0]['attn']['key'] -> kv_cache_0___attn____key__.npy).\n"
           "Inputs updated in place, e.g. KV caches, are updated by every iteration,\n"
           "warm-up included. The files appear all together once every one is written\n"
           "(none on a failure).\n"
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
    static const char *const once[] = {"--weights", "--out-dir", "--trace", "--warmup", "--iters"};
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
                                       "--iters", "--trace"};
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

/* The signature input that --input arg names, or -1. */
static int input_index(const TngrtBundleDesc *d, const InputArg *arg)
{
    for (int i = 0; i < d->ninputs; i++)
        if (strlen(d->inputs[i].name) == arg->name_len
            && strncmp(d->inputs[i].name, arg->spec, arg->name_len) == 0)
            return i;
    return -1;
}

/* Maps the --input arguments onto the signature: unknown names,
 * duplicates and missing inputs are errors. Fills which[i] with the
 * argument of input i. */
static int match_inputs(Launcher *L, const InputArg **which)
{
    const TngrtBundleDesc *d = L->desc;
    for (int k = 0; k < L->a.nin; k++) {
        const InputArg *arg = &L->a.in[k];
        int i = input_index(d, arg);
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

static char *result_path(const char *dir, const char *name);

/* The file name of result k: outputs first, then the inputs updated in
 * place; NULL for an input that is not written. */
static const char *result_name(const TngrtBundleDesc *d, int k)
{
    if (k < d->noutputs)
        return d->outputs[k].name;
    k -= d->noutputs;
    return (d->inputs[k].flags & TNGRT_SIG_UPDATED) ? d->inputs[k].name : NULL;
}

/* Refuses signatures in which two results would be written to the same
 * file (names equal once sanitised, or an input named like an output). */
static int check_result_names(const Launcher *L)
{
    const TngrtBundleDesc *d = L->desc;
    int n = d->noutputs + d->ninputs, rc = 0;
    for (int a = 0; a < n && rc == 0; a++) {
        const char *na = result_name(d, a);
        char *pa = na ? result_path("", na) : NULL;
        for (int b = 0; pa && b < a && rc == 0; b++) {
            const char *nb = result_name(d, b);
            char *pb = nb ? result_path("", nb) : NULL;
            if (pb && !strcmp(pa, pb))
                rc = fail(L, EXIT_USAGE, "%s '%s' and %s '%s' would both be written as %s: rename one in the script",
                          b < d->noutputs ? "output" : "input", nb, a < d->noutputs ? "output" : "input", na,
                          pa + 1);
            free(pb);
        }
        free(pa);
    }
    return rc;
}

/* Whether path is a directory. */
static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Checks that the directory of --trace exists and that --trace itself is
 * no directory, before any run. */
static int check_trace_dir(const Launcher *L)
{
    const char *slash = L->a.trace ? strrchr(L->a.trace, '/') : NULL;
    char *dir;
    int ok;
    if (L->a.trace && is_dir(L->a.trace))
        return fail(L, EXIT_USAGE, "--trace '%s' is a directory", L->a.trace);
    if (!slash || slash == L->a.trace)
        return 0;
    dir = malloc((size_t)(slash - L->a.trace) + 1);
    if (!dir)
        return fail(L, EXIT_RUNTIME, "out of memory");
    memcpy(dir, L->a.trace, (size_t)(slash - L->a.trace));
    dir[slash - L->a.trace] = '\0';
    ok = is_dir(dir);
    free(dir);
    return ok ? 0 : fail(L, EXIT_USAGE, "--trace '%s': no such directory", L->a.trace);
}

/* Creates --out-dir when it is missing (one level: its parent must exist;
 * mode 0777 & ~umask); main removes it again when the run fails. */
static int make_out_dir(Launcher *L)
{
    struct stat st;
    const char *dir = L->a.out_dir;
    if (stat(dir, &st) == 0)
        return S_ISDIR(st.st_mode) ? 0 : fail(L, EXIT_USAGE, "--out-dir '%s': not a directory", dir);
    if (errno != ENOENT || mkdir(dir, 0777) != 0)
        return fail(L, EXIT_USAGE, "--out-dir '%s': cannot create it: %s", dir, strerror(errno));
    L->made_out_dir = 1;
    return 0;
}

/* Refuses, before any run, a result whose file in --out-dir is a
 * directory (tngrt_files_install checks again before renaming). */
static int check_result_paths(const Launcher *L)
{
    const TngrtBundleDesc *d = L->desc;
    int rc = 0;
    for (int k = 0; k < d->noutputs + d->ninputs && rc == 0; k++) {
        const char *name = result_name(d, k);
        char *path = name ? result_path(L->a.out_dir, name) : NULL;
        if (name && !path)
            rc = fail(L, EXIT_RUNTIME, "out of memory");
        else if (path && is_dir(path))
            rc = fail(L, EXIT_USAGE, "%s: is a directory", path);
        free(path);
    }
    return rc;
}

/* Checks the options that do not depend on the files. */
static int check_options(Launcher *L)
{
    int nw = L->desc->nweights, rc;
    if (nw > 0 && !L->a.weights)
        return fail(L, EXIT_USAGE, "the model has %d weight%s: pass --weights FILE.safetensors",
                    nw, nw == 1 ? "" : "s");
    if ((rc = check_trace_dir(L)) != 0 || (rc = check_result_names(L)) != 0)
        return rc;
    if ((rc = make_out_dir(L)) != 0)   /* nothing is created when an option is refused */
        return rc;
    return check_result_paths(L);
}

/* ---- inputs and weights ---- */

/* Allocates the per-input, per-output and per-symbol arrays. */
static int alloc_arrays(Launcher *L)
{
    const TngrtBundleDesc *d = L->desc;
    L->given = calloc((size_t)d->ninputs + 1, sizeof *L->given);
    L->padded = calloc((size_t)d->ninputs + 1, sizeof *L->padded);
    L->run_in = calloc((size_t)d->ninputs + 1, sizeof *L->run_in);
    L->outs = calloc((size_t)d->noutputs + 1, sizeof *L->outs);
    L->real = calloc((size_t)d->nsyms + 1, sizeof *L->real);
    L->is_padded = calloc((size_t)d->nsyms + 1, sizeof *L->is_padded);
    L->lat_us = calloc((size_t)L->a.iters, sizeof *L->lat_us);
    L->tmp = calloc((size_t)d->noutputs + (size_t)d->ninputs + 1, sizeof *L->tmp);
    L->dst = calloc((size_t)d->noutputs + (size_t)d->ninputs + 1, sizeof *L->dst);
    if (!L->given || !L->padded || !L->run_in || !L->outs || !L->real || !L->is_padded
        || !L->lat_us || !L->tmp || !L->dst)
        return fail(L, EXIT_RUNTIME, "out of memory");
    return 0;
}

/* Reads every input's .npy file. numpy has no bfloat16: a bf16 input is
 * read from a '<u2' .npy of its bit patterns (and only from one), the form
 * in which bf16 outputs are written. */
static int read_inputs(Launcher *L)
{
    const TngrtBundleDesc *d = L->desc;
    const InputArg **which = calloc((size_t)d->ninputs + 1, sizeof *which);
    TngrtError err;
    int rc;
    if (!which)
        return fail(L, EXIT_RUNTIME, "out of memory");
    rc = match_inputs(L, which);
    for (int i = 0; rc == 0 && i < d->ninputs; i++) {
        if (is_dir(which[i]->path))
            rc = fail(L, EXIT_USAGE, "input '%s': %s is a directory", d->inputs[i].name,
                      which[i]->path);
        else if ((d->inputs[i].dtype == TNGRT_BF16
                  ? tngrt_npy_read_bf16(which[i]->path, &L->given[i], &err)
                  : tngrt_npy_read(which[i]->path, &L->given[i], &err)) != 0)
            rc = fail(L, EXIT_USAGE, "input '%s': %s", d->inputs[i].name, err.msg);
        else
            L->run_in[i] = *L->given[i];
    }
    free(which);
    return rc;
}

/* Tensors of the weights file that the model does not use: one warning
 * line naming the first few, or with --strict an error. */
static int check_unused(const Launcher *L)
{
    enum { SHOWN = 3 };
    int n = tngrt_bundle_unused_count(L->bundle);
    char names[1024];
    size_t len = 0;
    if (n == 0)
        return 0;
    names[0] = '\0';
    for (int i = 0; i < n && i < SHOWN && len < sizeof names; i++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s'%s'", i ? ", " : "",
                                tngrt_bundle_unused_name(L->bundle, i));
    if (n > SHOWN && len < sizeof names)
        snprintf(names + len, sizeof names - len, " and %d more", n - SHOWN);
    if (L->a.strict)
        return fail(L, EXIT_USAGE, "%s: %d tensor%s the model does not use (--strict): %s",
                    L->a.weights, n, n == 1 ? "" : "s", names);
    warn(L, "%s: %d tensor%s the model does not use, ignored: %s", L->a.weights, n,
         n == 1 ? "" : "s", names);
    return 0;
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
    t0 = now_us();
    if (L->a.weights && tngrt_bundle_load_weights(L->bundle, L->a.weights) != 0)
        return fail(L, EXIT_USAGE, "%s", tngrt_bundle_last_error(L->bundle));
    L->load_us = now_us() - t0;
    return L->a.weights ? check_unused(L) : 0;
}

/* ---- padding ---- */

/* Steps idx through dims [0, n) of shape in C order; 0 once past the end. */
static int next_index(int64_t *idx, const int64_t *shape, int n)
{
    int k = n - 1;
    while (k >= 0 && ++idx[k] == shape[k])
        idx[k--] = 0;
    return k >= 0;
}

/* Copies the region shape[0..ndim) between two strided buffers (element
 * strides), elem bytes per element; rows are copied whole when both are
 * contiguous along the last dim. */
static void copy_region(unsigned char *dst, const int64_t *dst_st, const unsigned char *src,
                        const int64_t *src_st, int ndim, const int64_t *shape, size_t elem)
{
    int64_t idx[TNGRT_MAX_DIMS] = {0}, n = 1, last = ndim ? shape[ndim - 1] : 1;
    int64_t dl = ndim ? dst_st[ndim - 1] : 1, sl = ndim ? src_st[ndim - 1] : 1;
    for (int k = 0; k < ndim; k++)
        n *= shape[k];
    if (n == 0)
        return;
    do {
        int64_t so = 0, dof = 0;
        for (int k = 0; k + 1 < ndim; k++) {
            so += idx[k] * src_st[k];
            dof += idx[k] * dst_st[k];
        }
        if (dl == 1 && sl == 1)
            memcpy(dst + (size_t)dof * elem, src + (size_t)so * elem, (size_t)last * elem);
        else
            for (int64_t j = 0; j < last; j++)
                memcpy(dst + (size_t)(dof + j * dl) * elem, src + (size_t)(so + j * sl) * elem,
                       elem);
    } while (next_index(idx, shape, ndim - 1));
}

/* A new dense tensor holding the region shape of src (any strides). */
static int dense_copy(const Launcher *L, const TngrtTensor *src, const int64_t *shape,
                      TngrtTensor **out)
{
    TngrtError err;
    *out = tngrt_tensor_new(src->dtype, src->ndim, shape, &err);
    if (!*out)
        return fail(L, EXIT_RUNTIME, "%s", err.msg);
    copy_region((*out)->data, (*out)->strides, src->data, src->strides, src->ndim, shape,
                tngrt_dtype_size(src->dtype));
    return 0;
}

/* Sets L->real from the inputs: each symbol's size, which every input
 * dim using it must agree with. */
static int bind_symbols(Launcher *L)
{
    const TngrtBundleDesc *d = L->desc;
    for (int s = 0; s < d->nsyms; s++)
        L->real[s] = L->given[d->syms[s].input]->shape[d->syms[s].dim];
    for (int i = 0; i < d->ninputs; i++) {
        for (int k = 0; k < d->inputs[i].ndim; k++) {
            int s = d->inputs[i].dims[k].sym;
            if (s >= 0 && L->given[i]->shape[k] != L->real[s])
                return fail(L, EXIT_USAGE, "input '%s' dim %d is %lld, but %s is %lld "
                            "(input '%s' dim %d)", d->inputs[i].name, k,
                            (long long)L->given[i]->shape[k], d->syms[s].name,
                            (long long)L->real[s], d->inputs[d->syms[s].input].name,
                            d->syms[s].dim);
        }
    }
    return 0;
}

/* The value of symbol s in gear g (unbound symbols take the input's size). */
static int64_t gear_value(const Launcher *L, int g, int s)
{
    int64_t v = L->desc->gears[g].symval[s];
    return v == INT64_MIN ? L->real[s] : v;
}

/* Whether gear g holds the inputs: every symbol >= its real size. Sets
 * *bad to the first symbol it would pad without pad_ok (or -1) and
 * *size to the sum of its symbol values (saturating). */
static int gear_holds(const Launcher *L, int g, int *bad, uint64_t *size)
{
    const TngrtBundleDesc *d = L->desc;
    *bad = -1;
    *size = 0;
    for (int s = 0; s < d->nsyms; s++) {
        int64_t v = gear_value(L, g, s);
        if (v < L->real[s])
            return 0;
        if (v > L->real[s] && !d->syms[s].pad_ok && *bad < 0)
            *bad = s;
        *size = *size + (uint64_t)v < *size ? UINT64_MAX : *size + (uint64_t)v;
    }
    return 1;
}

/* Chooses the smallest gear that holds the inputs, padding only pad_ok
 * symbols; returns its index, or fails. */
static int choose_pad_gear(Launcher *L, int *gear)
{
    const TngrtBundleDesc *d = L->desc;
    int best = -1, best_any = -1, bad_any = -1, bad;
    uint64_t best_size = 0, any_size = 0, size;
    for (int g = 0; g < d->ngears; g++) {
        if (!gear_holds(L, g, &bad, &size))
            continue;
        if (best_any < 0 || size < any_size) {
            best_any = g, any_size = size, bad_any = bad;
        }
        if (bad < 0 && (best < 0 || size < best_size))
            best = g, best_size = size;
    }
    if (best >= 0) {
        *gear = best;
        return 0;
    }
    if (best_any < 0)
        return fail(L, EXIT_USAGE, "%s (--pad: no gear is large enough)",
                    tngrt_bundle_last_error(L->bundle));
    return fail(L, EXIT_USAGE, "dim %s (input '%s' dim %d) cannot be padded: the planner did "
                "not prove it row-independent", d->syms[bad_any].name,
                d->inputs[d->syms[bad_any].input].name, d->syms[bad_any].dim);
}

/* Refuses padding when an output has a dim computed from symbols: which
 * rows are valid there is unknown. */
static int check_pad_outputs(const Launcher *L)
{
    const TngrtBundleDesc *d = L->desc;
    for (int o = 0; o < d->noutputs; o++)
        for (int k = 0; k < d->outputs[o].ndim; k++)
            if (d->outputs[o].dims[k].sym == -2)
                return fail(L, EXIT_USAGE, "--pad: output '%s' dim %d is computed from "
                            "symbols, so its padded rows cannot be cropped",
                            d->outputs[o].name, k);
    return 0;
}

/* Makes a zero-padded copy of input i in gear g's shape when it differs. */
static int pad_input(Launcher *L, int i, int g)
{
    const TngrtSigTensor *s = &L->desc->inputs[i];
    const TngrtTensor *t = L->given[i];
    TngrtTensor *p;
    int64_t shape[TNGRT_MAX_DIMS];
    int changed = 0;
    for (int k = 0; k < t->ndim; k++) {
        int sym = s->dims[k].sym;
        shape[k] = sym >= 0 ? gear_value(L, g, sym) : t->shape[k];
        changed |= shape[k] != t->shape[k];
    }
    if (!changed)
        return 0;
    p = L->padded[i] = tngrt_tensor_new(t->dtype, t->ndim, shape, NULL);
    if (!p)
        return fail(L, EXIT_RUNTIME, "input '%s': out of memory padding it", s->name);
    copy_region(p->data, p->strides, t->data, t->strides, t->ndim, t->shape,
                tngrt_dtype_size(t->dtype));
    L->run_in[i] = *p;
    return 0;
}

/* --pad: pads the inputs up to the smallest gear that holds them. */
static int pad_inputs(Launcher *L)
{
    const TngrtBundleDesc *d = L->desc;
    int g = -1, rc;
    if ((rc = bind_symbols(L)) != 0 || (rc = choose_pad_gear(L, &g)) != 0
        || (rc = check_pad_outputs(L)) != 0)
        return rc;
    for (int s = 0; s < d->nsyms; s++)
        L->is_padded[s] = gear_value(L, g, s) > L->real[s];
    for (int i = 0; i < d->ninputs; i++)
        if ((rc = pad_input(L, i, g)) != 0)
            return rc;
    return 0;
}

/* Whether some symbol may be padded. */
static int any_pad_ok(const TngrtBundleDesc *d)
{
    for (int s = 0; s < d->nsyms; s++)
        if (d->syms[s].pad_ok)
            return 1;
    return 0;
}

/* Checks the inputs and selects the gear, padding with --pad. */
static int select_gear(Launcher *L)
{
    TngrtBundle *b = L->bundle;
    int rc;
    if (tngrt_bundle_check_inputs(b, L->run_in, L->desc->ninputs) != 0)
        return fail(L, EXIT_USAGE, "%s", tngrt_bundle_last_error(b));
    L->gear = tngrt_bundle_select(b, L->run_in, L->desc->ninputs);
    if (L->gear >= 0)
        return 0;
    if (!L->a.pad)
        return fail(L, EXIT_USAGE, "%s%s", tngrt_bundle_last_error(b),
                    any_pad_ok(L->desc) ? " (--pad pads up to a larger gear)" : "");
    if ((rc = pad_inputs(L)) != 0)
        return rc;
    L->gear = tngrt_bundle_select(b, L->run_in, L->desc->ninputs);
    if (L->gear < 0)
        return fail(L, EXIT_USAGE, "%s", tngrt_bundle_last_error(b));
    return 0;
}

/* Prints "gear <i>: s0=4" (with the sizes of symbols the gear binds from
 * the inputs), then "padded: x [3,8] -> [4,8]" for each padded input. */
static void print_gear(const Launcher *L)
{
    const TngrtBundleDesc *d = L->desc;
    char s[512], from[256], to[256];
    int unbound = 0;
    tngrt_bundle_gear_str(L->bundle, L->gear, s, sizeof s);
    printf("gear %d: %s", L->gear, s);
    for (int k = 0; k < d->nsyms; k++) {
        if (d->gears[L->gear].symval[k] != INT64_MIN)
            continue;
        printf("%s%s=%lld", unbound++ ? " " : " (bound: ", d->syms[k].name,
               (long long)L->run_in[d->syms[k].input].shape[d->syms[k].dim]);
    }
    printf("%s\n", unbound ? ")" : "");
    for (int i = 0; i < d->ninputs; i++) {
        const TngrtTensor *t = L->given[i], *p = L->padded[i];
        if (p)
            printf("padded: %s %s -> %s\n", d->inputs[i].name,
                   shape_str(from, sizeof from, t->ndim, t->shape),
                   shape_str(to, sizeof to, p->ndim, p->shape));
    }
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
    int rc = tngrt_bundle_run(L->bundle, L->run_in, L->desc->ninputs, L->outs,
                              L->desc->noutputs);
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

/* "<dir>/<name with [^A-Za-z0-9_.-] as '_'>.npy", malloc'd (NULL: out of memory). */
static char *result_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 6;
    char *path = malloc(n), *p;
    if (!path)
        return NULL;
    snprintf(path, n, "%s/", dir);
    p = path + strlen(path);
    for (const char *c = name; *c; c++)
        *p++ = ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')
                || *c == '_' || *c == '.' || *c == '-') ? *c : '_';
    strcpy(p, ".npy");
    return path;
}

/* Adds a file to write: dst, its final path (malloc'd, owned from now
 * on), and room for the name of its temporary file (made by
 * tngrt_npy_write_temp or tngrt_trace_write_temp), which is returned
 * (NULL: out of memory; *cap set to its size). launcher_free removes
 * every temporary file not renamed into place. */
static char *add_file(Launcher *L, char *dst, size_t *cap)
{
    size_t n = dst ? strlen(dst) + TNGRT_TEMP_EXTRA : 0;
    char *tmp = dst ? malloc(n) : NULL;
    if (!tmp) {
        free(dst);
        return NULL;
    }
    tmp[0] = '\0';
    *cap = n;
    L->dst[L->nfiles] = dst;
    L->tmp[L->nfiles++] = tmp;
    return tmp;
}

/* Writes the region shape of t (cropped, made dense) under the temporary
 * name of <dir>/<name>.npy. */
static int write_result(Launcher *L, const char *name, const TngrtTensor *t,
                        const int64_t *shape)
{
    TngrtTensor *dense = NULL;
    TngrtError err;
    size_t cap = 0;
    char *tmp = add_file(L, result_path(L->a.out_dir, name), &cap);
    int rc;
    if (!tmp)
        return fail(L, EXIT_RUNTIME, "out of memory");
    rc = dense_copy(L, t, shape, &dense);
    if (rc == 0 && tngrt_npy_write_temp(L->dst[L->nfiles - 1], dense, tmp, cap, &err) != 0)
        rc = fail(L, EXIT_USAGE, "%s (no output was written)", err.msg);
    tngrt_tensor_delete(dense);
    return rc;
}

/* Checks that an output view of the bundle can be read safely. */
static int check_output(const Launcher *L, int o)
{
    const TngrtTensor *t = &L->outs[o];
    int ok = t->ndim >= 0 && t->ndim <= TNGRT_MAX_DIMS && tngrt_dtype_size(t->dtype) != 0;
    for (int k = 0; ok && k < t->ndim; k++)
        ok = t->shape[k] >= 0;
    if (!ok || (!t->data && tngrt_tensor_numel(t) > 0))
        return fail(L, EXIT_RUNTIME, "output '%s': the bundle returned a malformed tensor",
                    L->desc->outputs[o].name);
    return 0;
}

/* Writes output o, cropping the dims of padded symbols. */
static int write_output(Launcher *L, int o)
{
    const TngrtSigTensor *s = &L->desc->outputs[o];
    const TngrtTensor *t = &L->outs[o];
    int64_t shape[TNGRT_MAX_DIMS];
    if (check_output(L, o) != 0)
        return EXIT_RUNTIME;
    for (int k = 0; k < t->ndim; k++) {
        int sym = k < s->ndim ? s->dims[k].sym : -1;
        shape[k] = t->shape[k];
        if (sym >= 0 && L->is_padded[sym] && L->real[sym] < shape[k])
            shape[k] = L->real[sym];
    }
    return write_result(L, s->name, t, shape);
}

/* Flushes stdout: 0, or exit status 2 with one line on stderr. */
static int flush_stdout(const Launcher *L)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout))
        return fail(L, EXIT_USAGE, "stdout: write error%s%s", errno ? ": " : "",
                    errno ? strerror(errno) : "");
    return 0;
}

/* Prints a "wrote PATH" line per file written and, once stdout took them,
 * renames every file into place, all or nothing (tngrt_files_install:
 * every destination checked first, the renames done undone when one
 * fails). */
static int install_files(Launcher *L)
{
    TngrtError err;
    int rc;
    for (int k = 0; k < L->nfiles; k++)
        printf("wrote %s\n", L->dst[k]);
    if ((rc = flush_stdout(L)) != 0)
        return rc;
    if (tngrt_files_install(L->tmp, L->dst, L->nfiles, &err) != 0)
        return fail(L, EXIT_USAGE, "%s (no output was written)", err.msg);
    L->installed = 1;
    return 0;
}

/* Writes the outputs of the last run and the inputs it updated in place
 * (their valid rows when padded), then the trace, each under a temporary
 * name; once all of them and stdout were written, renames them into place. */
static int write_results(Launcher *L)
{
    const TngrtBundleDesc *d = L->desc;
    TngrtError err;
    char *tmp;
    size_t cap = 0;
    int rc;
    for (int o = 0; o < d->noutputs; o++)
        if ((rc = write_output(L, o)) != 0)
            return rc;
    for (int i = 0; i < d->ninputs; i++)
        if ((d->inputs[i].flags & TNGRT_SIG_UPDATED)
            && (rc = write_result(L, d->inputs[i].name, &L->run_in[i], L->given[i]->shape)) != 0)
            return rc;
    if (L->trace) {
        char *dst = malloc(strlen(L->a.trace) + 1);
        if (dst)
            strcpy(dst, L->a.trace);
        if (!(tmp = add_file(L, dst, &cap)))
            return fail(L, EXIT_RUNTIME, "out of memory");
        if (tngrt_trace_write_temp(L->trace, L->a.trace, d->stream_names, tmp, cap, &err) != 0)
            return fail(L, EXIT_USAGE, "%s (no output was written)", err.msg);
    }
    return install_files(L);
}

/* ---- main ---- */

static void launcher_free(Launcher *L)
{
    const TngrtBundleDesc *d = L->desc;
    for (int i = 0; L->given && i < d->ninputs; i++)
        tngrt_tensor_delete(L->given[i]);
    for (int i = 0; L->padded && i < d->ninputs; i++)
        tngrt_tensor_delete(L->padded[i]);
    free(L->given);
    free(L->padded);
    free(L->run_in);
    free(L->outs);
    free(L->real);
    free(L->is_padded);
    free(L->lat_us);
    free(L->a.in);
    for (int k = 0; k < L->nfiles; k++) {
        if (!L->installed && L->tmp[k][0])
            unlink(L->tmp[k]);   /* a failure: nothing is left behind */
        free(L->tmp[k]);
        free(L->dst[k]);
    }
    free(L->tmp);
    free(L->dst);
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
    if ((rc = check_options(L)) != 0 || (rc = alloc_arrays(L)) != 0
        || (rc = read_inputs(L)) != 0 || (rc = open_bundle(L)) != 0
        || (rc = select_gear(L)) != 0)
        return rc;
    print_gear(L);
    if ((rc = run_all(L)) != 0)
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
    L.desc = TNGC_BUNDLE_DESC();
    rc = launcher_main(&L, argc, argv);
    if (rc == 0)
        rc = flush_stdout(&L);   /* --help, --version */
    launcher_free(&L);
    if (rc != 0 && L.made_out_dir)
        rmdir(L.a.out_dir);      /* empty: every temporary file is removed */
    if (fclose(stdout) != 0 && rc == 0)
        rc = fail(&L, EXIT_USAGE, "stdout: %s", strerror(errno));
    return rc;
}
