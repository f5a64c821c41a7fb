/*
 * launcher_acl.c - the main program of a bundle built with --target acl:
 * reads the inputs from .npy files and the weights from a safetensors
 * file, runs the entry on the Ascend NPU through the bundle's own API
 * (<name>_create, _load_weights, _run), prints the latency percentiles of
 * the timed runs and writes the outputs of the last run (as D/<output>.npy:
 * out0, out1, ... or the keys of a returned dict, named tuple or dataclass)
 * and the inputs it updated in place (as D/<input with [A-Za-z0-9_.-]
 * kept>.npy); two results that would share a file are refused at the start.
 *
 *   <name>_launcher [--weights W.safetensors] --input NAME=F.npy ...
 *                   [--out-dir D] [--warmup N] [--iters N] [--trace T.json]
 *                   [--pad] [--strict] [--widen-outputs]
 *
 * The CPU target's launcher (launcher.c) drives libtngcrt's executor
 * through the descriptor; an ACL bundle runs only through its API, hence
 * this smaller sibling. tngc links it only where CANN's libraries are
 * ($ASCEND_TOOLKIT_HOME/lib64), with libtngcrt_core (no CPU kernels, no
 * OpenBLAS). The template compiles on its own against the API of
 * tngc_template.h. What both launchers do alike is libtngcrt's
 * (tngrt_launch.h): the inputs, the gear and --pad, the unused tensors,
 * the results; the command line, the printing and the runs are here.
 *
 * It selects the gear itself first, from the descriptor
 * (tngrt_launch_select; the ACL bundle selects the same one inside): so
 * it prints the gear, and --pad pads the inputs up to the smallest gear
 * that holds them as launcher.c does (same messages), crops the outputs
 * back, and writes only the valid rows of inputs updated in place.
 * --trace attaches a trace to the last timed run (<name>_set_trace): host
 * clock slices per stream of each op's issue and each event wait, with
 * flow arrows from the records, and on stream 0 the copies, a replay and
 * the final synchronisation, in launcher.c's Chrome trace format.
 *
 * As launcher.c does, it creates a missing --out-dir (one level), writes
 * every file under a temporary name (a new file beside it, created
 * exclusively under a random name by libtngcrt) and renames them all into
 * place only once every one and stdout were written, all or nothing
 * (tngrt_files_install: every destination checked before the first
 * rename, the renames done undone when one fails; none is left on a
 * failure), and
 * warns of tensors of the weights file the model does not use (--strict:
 * refuses them). It prints the warning <name>_create gives in err on
 * success (a chip that cannot capture: reduce-overhead runs eagerly).
 *
 * Exit status: 0 success, 1 a failure on the device, 2 bad usage, bad
 * input or an output that cannot be written (one line on stderr:
 * "<prog>: ...").
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

/*@tngc:prologue@*/
#ifndef TNGC_BUNDLE_DESC
#include "tngc_template.h"
#endif
#ifndef TNGC_DIST_BEGIN
/* A bundle of one process (the prologue of a --world-size N > 1 build
 * reads the rank from $RANK_ID here and replaces {rank} in the arguments). */
#define TNGC_DIST_BEGIN(argc, argv, prog) 0
#endif
#include "tngrt_launch.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Defined by every ACL bundle (templates/bundle_acl.c); the header, shared
 * with the CPU target whose handle is a TngrtBundle, does not declare it. */
void tngc_template_set_trace(tngc_template_t *self, TngrtTrace *trace);
int tngc_template_own_state(tngc_template_t *self);

enum { ACL_EXIT_DEVICE = 1, ACL_EXIT_USAGE = 2 };

typedef struct AclLauncher {
    const char *prog, *weights, *out_dir, *trace_path;
    long warmup, iters;
    const TngrtBundleDesc *d;
    TngrtLaunch *launch;       /* the inputs, the gear, --pad, the files written (libtngcrt) */
    double *us;                /* per timed run */
    TngrtTrace *trace;         /* --trace: of the last timed run */
    tngc_template_t *b;
    int help;                  /* --help was printed: nothing else to do */
    int strict;                /* --strict: unused tensors in the weights file are an error */
    int pad;                   /* --pad */
    int widen;                 /* --widen-outputs: bf16 and f16 results written as '<f4' */
    int list_weights;          /* --list-weights */
    const char *check_weights; /* --check-weights FILE */
    int nin;                   /* --input options given */
} AclLauncher;

/* Prints "<prog>: <message>" as one line on stderr (control characters,
 * from file names or contents, become '?') and returns status. */
static int acl_fail(const AclLauncher *L, int status, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    fprintf(stderr, "%s: %s\n", L->prog, msg);
    return status;
}

/* Reports the last failure of the launch (a tngrt_launch_* call that
 * returned rc): exit status 2 for TNGRT_BAD_INPUT, else 1. */
static int acl_launch_fail(const AclLauncher *L, int rc)
{
    return acl_fail(L, rc == TNGRT_BAD_INPUT ? ACL_EXIT_USAGE : ACL_EXIT_DEVICE, "%s",
                    tngrt_launch_last_error(L->launch));
}

/* Reads --input NAME=FILE into its slot (bf16 inputs from '<f4' files,
 * rounded, or '<u2' files of bit patterns; f16 ones from '<f2' or '<f4'). */
static int acl_read_input(AclLauncher *L, const char *spec)
{
    const char *eq = strchr(spec, '=');
    int i = eq ? tngrt_launch_input_index(L->d, spec, (size_t)(eq - spec)) : -1;
    if (i < 0)
        return acl_fail(L, ACL_EXIT_USAGE, "--input %s: not NAME=FILE with NAME an input of %s", spec, L->d->entry);
    if (tngrt_launch_input(L->launch, i))
        return acl_fail(L, ACL_EXIT_USAGE, "--input %s: given twice", L->d->inputs[i].name);
    if (tngrt_launch_read_input(L->launch, i, eq + 1) != 0)
        return acl_fail(L, ACL_EXIT_USAGE, "input '%s': %s", L->d->inputs[i].name,
                        tngrt_launch_last_error(L->launch));
    return 0;
}

/* A run count: digits only, lo..1000000. */
static int acl_count(const AclLauncher *L, const char *opt, const char *s, long lo, long *out)
{
    char *end;
    long v = s ? strtol(s, &end, 10) : -1;
    if (!s || !*s || *end || v < lo || v > 1000000)
        return acl_fail(L, ACL_EXIT_USAGE, "%s takes a number from %ld to 1000000", opt, lo);
    *out = v;
    return 0;
}

/* --list-weights or --check-weights, which run nothing (libtngcrt's,
 * as the CPU launcher's): 0, or 1 when the file would not load. */
static int acl_weights_report(AclLauncher *L)
{
    if (L->weights || L->nin > 0 || (L->list_weights && L->check_weights))
        return acl_fail(L, ACL_EXIT_USAGE, "%s runs nothing: give it alone (see --help)",
                        L->list_weights ? "--list-weights" : "--check-weights");
    L->help = 1;   /* nothing else to do */
    if (L->list_weights) {
        tngrt_launch_list_weights(L->d, stdout);
        return 0;
    }
    char *report = NULL;
    int rc = tngrt_launch_check_weights(L->launch, L->check_weights, L->strict, &report);
    if (rc < 0)
        return acl_fail(L, ACL_EXIT_DEVICE, "%s", tngrt_launch_last_error(L->launch));
    fputs(report, stdout);
    free(report);
    return rc ? ACL_EXIT_DEVICE : 0;
}

static int acl_args(AclLauncher *L, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int rc = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: %s [--weights W.safetensors] --input NAME=F.npy ... [--out-dir D] [--warmup N] "
                   "[--iters N] [--trace T.json] [--pad] [--strict] [--widen-outputs]\n"
                   "       %s --list-weights | --check-weights W [--strict]\n", L->prog, L->prog);
            printf("%s (%s) on an Ascend NPU; inputs (bf16: a '<f4' .npy, rounded, or a '<u2' one of "
                   "bfloat16 bits; f16: '<f2' or '<f4'):\n",
                   L->d->entry, L->d->script);
            for (int k = 0; k < L->d->ninputs; k++)
                printf("  %s %s, %d dims\n", L->d->inputs[k].name, tngrt_dtype_name(L->d->inputs[k].dtype),
                       L->d->inputs[k].ndim);
            printf("outputs, written as D/<output>.npy (out0, out1, ... or the keys of a returned dict, named "
                   "tuple or dataclass):\n");
            for (int k = 0; k < L->d->noutputs; k++)
                printf("  %s %s, %d dims\n", L->d->outputs[k].name, tngrt_dtype_name(L->d->outputs[k].dtype),
                       L->d->outputs[k].ndim);
            printf("--trace T.json: host times of the last timed run (Chrome trace, one track per stream)\n"
                   "--pad: inputs in no gear are padded with zeros up to the smallest gear that holds them\n"
                   "       (only symbols proven row-independent), and the outputs cropped back\n"
                   "--widen-outputs: bf16 and f16 outputs (and inputs updated in place) written as '<f4'\n"
                   "       .npy files, widened exactly (default: f16 as '<f2', bf16 as '<u2' bit patterns)\n"
                   "--list-weights: every weight the model needs (name, dtype, shape, tied keys), then exit\n"
                   "--check-weights W: what W lacks (missing, wrong dtype or shape) and holds beyond the\n"
                   "       model (extra), without running; exit 0 when it would load\n");
            L->help = 1;   /* main checks that stdout took it */
            return 0;
        } else if (!strcmp(a, "--strict")) {
            L->strict = 1;
        } else if (!strcmp(a, "--pad")) {
            L->pad = 1;
        } else if (!strcmp(a, "--widen-outputs")) {
            L->widen = 1;
        } else if (!strcmp(a, "--list-weights")) {
            L->list_weights = 1;
        } else if (!strcmp(a, "--check-weights")) {
            if (!v)
                return acl_fail(L, ACL_EXIT_USAGE, "%s needs a value", a);
            L->check_weights = argv[++i];
        } else if (!strcmp(a, "--input") || !strcmp(a, "--weights") || !strcmp(a, "--out-dir") ||
                   !strcmp(a, "--warmup") || !strcmp(a, "--iters") || !strcmp(a, "--trace")) {
            if (!v)
                return acl_fail(L, ACL_EXIT_USAGE, "%s needs a value", a);
            i++;
            if (!strcmp(a, "--input"))
                rc = (L->nin++, acl_read_input(L, v));
            else if (!strcmp(a, "--weights"))
                L->weights = v;
            else if (!strcmp(a, "--out-dir"))
                L->out_dir = v;
            else if (!strcmp(a, "--trace"))
                L->trace_path = v;
            else
                rc = acl_count(L, a, v, a[2] == 'w' ? 0 : 1, a[2] == 'w' ? &L->warmup : &L->iters);
        } else {
            rc = acl_fail(L, ACL_EXIT_USAGE, "unknown argument '%s' (try --help)", a);
        }
        if (rc)
            return rc;
    }
    if (L->list_weights || L->check_weights)
        return acl_weights_report(L);
    for (int k = 0; k < L->d->ninputs; k++)
        if (!tngrt_launch_input(L->launch, k))
            return acl_fail(L, ACL_EXIT_USAGE, "no --input %s=FILE.npy", L->d->inputs[k].name);
    if (tngrt_launch_weights_required(L->d) > 0 && !L->weights)
        return acl_fail(L, ACL_EXIT_USAGE, "%s has weights: --weights FILE.safetensors", L->d->entry);
    return 0;
}

static double acl_now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int acl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Warm-up runs, then the timed runs (the last one traced with --trace);
 * prints the percentiles. */
static int acl_runs(AclLauncher *L)
{
    TngrtError err;
    if (L->trace_path && tngrt_trace_new(&L->trace, L->d->nstreams, &err) != 0)
        return acl_fail(L, ACL_EXIT_DEVICE, "%s", err.msg);
    for (long r = 0; r < L->warmup + L->iters; r++) {
        double t0;
        int rc;
        if (r == L->warmup + L->iters - 1 && L->trace)
            tngc_template_set_trace(L->b, L->trace);
        t0 = acl_now_us();
        rc = tngc_template_run(L->b, tngrt_launch_run_inputs(L->launch), L->d->ninputs,
                               tngrt_launch_outputs(L->launch), L->d->noutputs);
        if (rc != 0)
            return acl_fail(L, rc == TNGRT_BAD_INPUT ? ACL_EXIT_USAGE : ACL_EXIT_DEVICE, "%s",
                            tngc_template_last_error(L->b));
        if (r >= L->warmup)
            L->us[r - L->warmup] = acl_now_us() - t0;
    }
    tngc_template_set_trace(L->b, NULL);
    qsort(L->us, (size_t)L->iters, sizeof *L->us, acl_cmp);
    printf("latency: p50 %.1f us, p90 %.1f us, p99 %.1f us over %ld runs\n", L->us[(L->iters - 1) * 50 / 100],
           L->us[(L->iters - 1) * 90 / 100], L->us[(L->iters - 1) * 99 / 100], L->iters);
    return 0;
}

/* ---- the gear, and --pad (as launcher.c) ---- */

/* Checks the inputs and selects the gear, padding with --pad
 * (tngrt_launch_select); prints "gear <i>: s0=4" and "padded: x [3,8] ->
 * [4,8]" lines as launcher.c does. */
static int acl_select(AclLauncher *L)
{
    char line[4096];
    int rc = tngrt_launch_select(L->launch, L->pad);
    if (rc < 0)
        return acl_launch_fail(L, rc);
    tngrt_launch_gear_line(L->launch, line, sizeof line);
    printf("%s\n", line);
    for (int i = 0; i < L->d->ninputs; i++)
        if (tngrt_launch_padded_line(L->launch, i, line, sizeof line))
            printf("%s\n", line);
    return 0;
}

/* Flushes stdout: 0, or exit status 2 with one line on stderr. */
static int acl_flush(const AclLauncher *L)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout))
        return acl_fail(L, ACL_EXIT_USAGE, "stdout: write error%s%s", errno ? ": " : "", errno ? strerror(errno) : "");
    return 0;
}

/* Writes every file under its temporary name (outputs, the valid rows of
 * inputs updated in place, the trace), then (stdout written too) renames
 * them all into place. */
static int acl_write(AclLauncher *L)
{
    int rc;
    tngrt_launch_set_widen(L->launch, L->widen);
    rc = tngrt_launch_write_results(L->launch, L->trace, L->trace_path);
    if (rc != 0)
        return acl_launch_fail(L, rc);
    for (int k = 0; k < tngrt_launch_file_count(L->launch); k++)
        printf("wrote %s\n", tngrt_launch_file(L->launch, k));
    if ((rc = acl_flush(L)) != 0)
        return rc;
    if ((rc = tngrt_launch_install(L->launch)) != 0)
        return acl_launch_fail(L, rc);
    return 0;
}

/* Tensors of the weights file the model does not use: one warning line
 * naming the first few, or with --strict an error. */
static int acl_unused(const AclLauncher *L)
{
    const char *names[TNGRT_LAUNCH_UNUSED_SHOWN];
    int n = tngc_template_unused_count(L->b), rc;
    for (int i = 0; i < n && i < TNGRT_LAUNCH_UNUSED_SHOWN; i++)
        names[i] = tngc_template_unused_name(L->b, i);
    rc = tngrt_launch_unused(L->launch, L->weights, n, names, L->strict);
    if (rc == 1)
        fprintf(stderr, "%s: warning: %s\n", L->prog, tngrt_launch_last_error(L->launch));
    return rc < 0 ? acl_launch_fail(L, rc) : 0;
}

/* Refuses signatures in which two results would be written to the same
 * file (an output named like an input updated in place, or two names equal
 * once sanitised), as launcher.c does. */
static int acl_check_names(const AclLauncher *L)
{
    const TngrtBundleDesc *d = L->d;
    int a, b;
    if (!tngrt_launch_result_clash(d, &a, &b, NULL, 0))
        return 0;
    return acl_fail(L, ACL_EXIT_USAGE, "%s '%s' and %s '%s' would both be written to one .npy file: "
                    "rename one in the script", b < d->noutputs ? "output" : "input",
                    tngrt_launch_result_name(d, b), a < d->noutputs ? "output" : "input",
                    tngrt_launch_result_name(d, a));
}

static int acl_main(AclLauncher *L, int argc, char **argv)
{
    const TngrtBundleDesc *d = L->d;
    TngrtError err;
    int rc;
    if (tngrt_launch_new(&L->launch, d, &err) != 0)
        return acl_fail(L, ACL_EXIT_DEVICE, "%s", err.msg);
    if ((rc = acl_args(L, argc, argv)) != 0 || L->help || (rc = acl_check_names(L)) != 0)
        return rc;
    if ((rc = tngrt_launch_check_trace(L->launch, L->trace_path)) != 0 ||
        (rc = tngrt_launch_make_out_dir(L->launch, L->out_dir)) != 0)
        return acl_launch_fail(L, rc);
    if (!(L->us = calloc((size_t)L->iters, sizeof *L->us)))
        return acl_fail(L, ACL_EXIT_DEVICE, "out of memory");
    err.msg[0] = '\0';
    if (tngc_template_create(&L->b, &err) != 0)
        return acl_fail(L, ACL_EXIT_DEVICE, "%s", err.msg);
    if (err.msg[0])   /* the bundle's warning: a chip that cannot capture runs reduce-overhead eagerly */
        fprintf(stderr, "%s: warning: %s\n", L->prog, err.msg);
    /* one bundle in this process: state shared with another entry's
     * bundle (TNGRT_SIG_SHARED) runs on its own copy, from --weights */
    if (tngc_template_own_state(L->b) != 0)
        return acl_fail(L, ACL_EXIT_DEVICE, "%s", tngc_template_last_error(L->b));
    if (L->weights && tngc_template_load_weights(L->b, L->weights) != 0)
        return acl_fail(L, ACL_EXIT_USAGE, "%s", tngc_template_last_error(L->b));
    if ((L->weights && (rc = acl_unused(L)) != 0) || (rc = acl_select(L)) != 0 || (rc = acl_runs(L)) != 0)
        return rc;
    return acl_write(L);
}

int main(int argc, char **argv)
{
    AclLauncher L = {.prog = argv[0], .out_dir = ".", .warmup = 1, .iters = 10, .d = tngc_template_desc()};
    int rc;
#ifdef SIGXFSZ
    signal(SIGXFSZ, SIG_IGN);   /* past a file size limit, a write fails (EFBIG) and is reported */
#endif
    if ((rc = TNGC_DIST_BEGIN(&argc, &argv, L.prog)) != 0)
        return rc;
    rc = acl_main(&L, argc, argv);
    if (rc == 0)
        rc = acl_flush(&L);
    tngc_template_destroy(L.b);
    if (rc != 0)
        tngrt_launch_abandon(L.launch);   /* every temporary file, and --out-dir when created */
    tngrt_launch_delete(L.launch);
    tngrt_trace_delete(L.trace);
    free(L.us);
    if (fclose(stdout) != 0 && rc == 0)
        rc = acl_fail(&L, ACL_EXIT_USAGE, "stdout: %s", strerror(errno));
    return rc;
}
