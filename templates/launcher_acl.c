/*
 * launcher_acl.c - the main program of a bundle built with --target acl:
 * reads the inputs from .npy files and the weights from a safetensors
 * file, runs the entry on the Ascend NPU through the bundle's own API
 * (<name>_create, _load_weights, _run), prints the latency percentiles of
 * the timed runs and writes the outputs of the last run (and the inputs it
 * updated in place, as D/<input with [A-Za-z0-9_.-] kept>.npy) as .npy files.
 *
 *   <name>_launcher [--weights W.safetensors] --input NAME=F.npy ...
 *                   [--out-dir D] [--warmup N] [--iters N]
 *
 * The CPU target's launcher (launcher.c) drives libtngcrt's executor
 * through the descriptor; an ACL bundle runs only through its API, hence
 * this smaller sibling (no --trace, no --pad). tngc links it only where
 * CANN's libraries are ($ASCEND_TOOLKIT_HOME/lib64). The template
 * compiles on its own against the API of tngc_template.h.
 *
 * Exit status: 0 success, 1 a failure on the device, 2 bad usage or bad
 * input (one line on stderr: "<prog>: ...").
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

/*@tngc:prologue@*/
#ifndef TNGC_BUNDLE_DESC
#include "tngc_template.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ACL_EXIT_DEVICE = 1, ACL_EXIT_USAGE = 2 };

typedef struct AclLauncher {
    const char *prog, *weights, *out_dir;
    long warmup, iters;
    const TngrtBundleDesc *d;
    TngrtTensor **in;          /* per signature input, read from its file */
    TngrtTensor *out;
    double *us;                /* per timed run */
    tngc_template_t *b;
} AclLauncher;

static int acl_fail(const AclLauncher *L, int status, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", L->prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return status;
}

/* The signature input called name[0..n), or -1. */
static int acl_input(const TngrtBundleDesc *d, const char *name, size_t n)
{
    for (int i = 0; i < d->ninputs; i++)
        if (strlen(d->inputs[i].name) == n && !strncmp(d->inputs[i].name, name, n))
            return i;
    return -1;
}

/* Reads --input NAME=FILE into its slot (bf16 inputs from '<u2' files). */
static int acl_read_input(AclLauncher *L, const char *spec)
{
    const char *eq = strchr(spec, '=');
    int i = eq ? acl_input(L->d, spec, (size_t)(eq - spec)) : -1;
    TngrtError err;
    if (i < 0)
        return acl_fail(L, ACL_EXIT_USAGE, "--input %s: not NAME=FILE with NAME an input of %s", spec, L->d->entry);
    if (L->in[i])
        return acl_fail(L, ACL_EXIT_USAGE, "--input %s: given twice", L->d->inputs[i].name);
    if ((L->d->inputs[i].dtype == TNGRT_BF16 ? tngrt_npy_read_bf16 : tngrt_npy_read)(eq + 1, &L->in[i], &err) != 0)
        return acl_fail(L, ACL_EXIT_USAGE, "%s", err.msg);
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

static int acl_args(AclLauncher *L, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int rc = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: %s [--weights W.safetensors] --input NAME=F.npy ... [--out-dir D] [--warmup N] "
                   "[--iters N]\n%s (%s) on an Ascend NPU; inputs:\n", L->prog, L->d->entry, L->d->script);
            for (int k = 0; k < L->d->ninputs; k++)
                printf("  %s %s, %d dims\n", L->d->inputs[k].name, tngrt_dtype_name(L->d->inputs[k].dtype),
                       L->d->inputs[k].ndim);
            exit(0);
        } else if (!strcmp(a, "--input") || !strcmp(a, "--weights") || !strcmp(a, "--out-dir") ||
                   !strcmp(a, "--warmup") || !strcmp(a, "--iters")) {
            if (!v)
                return acl_fail(L, ACL_EXIT_USAGE, "%s needs a value", a);
            i++;
            if (!strcmp(a, "--input"))
                rc = acl_read_input(L, v);
            else if (!strcmp(a, "--weights"))
                L->weights = v;
            else if (!strcmp(a, "--out-dir"))
                L->out_dir = v;
            else
                rc = acl_count(L, a, v, a[2] == 'w' ? 0 : 1, a[2] == 'w' ? &L->warmup : &L->iters);
        } else {
            rc = acl_fail(L, ACL_EXIT_USAGE, "unknown argument '%s' (try --help)", a);
        }
        if (rc)
            return rc;
    }
    for (int k = 0; k < L->d->ninputs; k++)
        if (!L->in[k])
            return acl_fail(L, ACL_EXIT_USAGE, "no --input %s=FILE.npy", L->d->inputs[k].name);
    if (L->d->nweights > 0 && !L->weights)
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

/* Warm-up runs, then the timed runs; prints the percentiles. */
static int acl_runs(AclLauncher *L)
{
    TngrtTensor *in = calloc((size_t)L->d->ninputs + 1, sizeof *in);
    if (!in)
        return acl_fail(L, ACL_EXIT_DEVICE, "out of memory");
    for (int k = 0; k < L->d->ninputs; k++)
        in[k] = *L->in[k];
    for (long r = 0; r < L->warmup + L->iters; r++) {
        double t0 = acl_now_us();
        if (tngc_template_run(L->b, in, L->d->ninputs, L->out, L->d->noutputs) != 0) {
            free(in);
            return acl_fail(L, ACL_EXIT_DEVICE, "%s", tngc_template_last_error(L->b));
        }
        if (r >= L->warmup)
            L->us[r - L->warmup] = acl_now_us() - t0;
    }
    free(in);
    qsort(L->us, (size_t)L->iters, sizeof *L->us, acl_cmp);
    printf("latency: p50 %.1f us, p90 %.1f us, p99 %.1f us over %ld runs\n", L->us[(L->iters - 1) * 50 / 100],
           L->us[(L->iters - 1) * 90 / 100], L->us[(L->iters - 1) * 99 / 100], L->iters);
    return 0;
}

/* Writes t as D/<name>.npy, name's other characters as '_'. */
static int acl_write1(const AclLauncher *L, const char *name, const TngrtTensor *t)
{
    char path[4096];
    TngrtError err;
    size_t n = (size_t)snprintf(path, sizeof path, "%s/", L->out_dir);
    for (const char *c = name; *c && n + 5 < sizeof path; c++, n++) {
        int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
                 *c == '.' || *c == '-';
        path[n] = ok ? *c : '_';
    }
    snprintf(path + n, sizeof path - n, ".npy");
    if (tngrt_npy_write(path, t, &err) != 0)
        return acl_fail(L, ACL_EXIT_USAGE, "%s", err.msg);
    printf("wrote %s\n", path);
    return 0;
}

static int acl_write(AclLauncher *L)
{
    for (int o = 0; o < L->d->noutputs; o++)
        if (acl_write1(L, L->d->outputs[o].name, &L->out[o]) != 0)
            return ACL_EXIT_USAGE;
    for (int i = 0; i < L->d->ninputs; i++)
        if ((L->d->inputs[i].flags & TNGRT_SIG_UPDATED) && acl_write1(L, L->d->inputs[i].name, L->in[i]) != 0)
            return ACL_EXIT_USAGE;
    return 0;
}

static int acl_main(AclLauncher *L, int argc, char **argv)
{
    TngrtError err;
    int rc;
    L->in = calloc((size_t)L->d->ninputs + 1, sizeof *L->in);
    L->out = calloc((size_t)L->d->noutputs + 1, sizeof *L->out);
    if (!L->in || !L->out)
        return acl_fail(L, ACL_EXIT_DEVICE, "out of memory");
    if ((rc = acl_args(L, argc, argv)) != 0)
        return rc;
    if (!(L->us = calloc((size_t)L->iters, sizeof *L->us)))
        return acl_fail(L, ACL_EXIT_DEVICE, "out of memory");
    if (tngc_template_create(&L->b, &err) != 0)
        return acl_fail(L, ACL_EXIT_DEVICE, "%s", err.msg);
    if (L->weights && tngc_template_load_weights(L->b, L->weights) != 0)
        return acl_fail(L, ACL_EXIT_USAGE, "%s", tngc_template_last_error(L->b));
    if ((rc = acl_runs(L)) != 0)
        return rc;
    return acl_write(L);
}

int main(int argc, char **argv)
{
    AclLauncher L = {argv[0], NULL, ".", 1, 10, tngc_template_desc(), NULL, NULL, NULL, NULL};
    int rc = acl_main(&L, argc, argv);
    tngc_template_destroy(L.b);
    for (int k = 0; L.in && k < L.d->ninputs; k++)
        tngrt_tensor_delete(L.in[k]);
    free(L.in);
    free(L.out);
    free(L.us);
    return rc;
}
