/*
 * launcher_acl.c - the main program of a bundle built with --target acl:
 * reads the inputs from .npy files and the weights from a safetensors
 * file, runs the entry on the Ascend NPU through the bundle's own API
 * (<name>_create, _load_weights, _run), prints the latency percentiles of
 * the timed runs and writes the outputs of the last run (and the inputs it
 * updated in place, as D/<input with [A-Za-z0-9_.-] kept>.npy) as .npy files.
 *
 *   <name>_launcher [--weights W.safetensors] --input NAME=F.npy ...
 *                   [--out-dir D] [--warmup N] [--iters N] [--strict]
 *
 * The CPU target's launcher (launcher.c) drives libtngcrt's executor
 * through the descriptor; an ACL bundle runs only through its API, hence
 * this smaller sibling (no --trace, no --pad). tngc links it only where
 * CANN's libraries are ($ASCEND_TOOLKIT_HOME/lib64). The template
 * compiles on its own against the API of tngc_template.h.
 *
 * As launcher.c does, it creates a missing --out-dir (one level), writes
 * every file under a temporary name and renames them all into place only
 * once every one and stdout were written (none is left on a failure), and
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

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { ACL_EXIT_DEVICE = 1, ACL_EXIT_USAGE = 2 };

typedef struct AclLauncher {
    const char *prog, *weights, *out_dir;
    long warmup, iters;
    const TngrtBundleDesc *d;
    TngrtTensor **in;          /* per signature input, read from its file */
    TngrtTensor *out;
    double *us;                /* per timed run */
    tngc_template_t *b;
    int help;                  /* --help was printed: nothing else to do */
    int strict;                /* --strict: unused tensors in the weights file are an error */
    int made_out_dir;          /* --out-dir was created: removed again on failure */
    char (*tmp)[4096];         /* the files written, under temporary names */
    char (*dst)[4096];         /* ... and their final names */
    int nfiles, nrenamed;      /* tmp[nrenamed..nfiles) still to rename (or remove) */
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
                   "[--iters N] [--strict]\n%s (%s) on an Ascend NPU; inputs:\n", L->prog, L->d->entry,
                   L->d->script);
            for (int k = 0; k < L->d->ninputs; k++)
                printf("  %s %s, %d dims\n", L->d->inputs[k].name, tngrt_dtype_name(L->d->inputs[k].dtype),
                       L->d->inputs[k].ndim);
            L->help = 1;   /* main checks that stdout took it */
            return 0;
        } else if (!strcmp(a, "--strict")) {
            L->strict = 1;
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
        int rc = tngc_template_run(L->b, in, L->d->ninputs, L->out, L->d->noutputs);
        if (rc != 0) {
            free(in);
            return acl_fail(L, rc == TNGRT_BAD_INPUT ? ACL_EXIT_USAGE : ACL_EXIT_DEVICE, "%s",
                            tngc_template_last_error(L->b));
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

/* Creates --out-dir when it is missing (one level, mode 0777 & ~umask). */
static int acl_out_dir(AclLauncher *L)
{
    struct stat st;
    if (stat(L->out_dir, &st) == 0)
        return S_ISDIR(st.st_mode) ? 0 : acl_fail(L, ACL_EXIT_USAGE, "--out-dir '%s': not a directory", L->out_dir);
    if (errno != ENOENT || mkdir(L->out_dir, 0777) != 0)
        return acl_fail(L, ACL_EXIT_USAGE, "--out-dir '%s': cannot create it: %s", L->out_dir, strerror(errno));
    L->made_out_dir = 1;
    return 0;
}

/* Writes t under a temporary name of D/<name>.npy, name's other characters as '_'. */
static int acl_write1(AclLauncher *L, const char *name, const TngrtTensor *t)
{
    char *path = L->dst[L->nfiles], *tmp = L->tmp[L->nfiles];
    TngrtError err;
    size_t n = (size_t)snprintf(path, sizeof *L->dst, "%s/", L->out_dir);
    for (const char *c = name; *c && n + 5 < sizeof *L->dst; c++, n++) {
        int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
                 *c == '.' || *c == '-';
        path[n] = ok ? *c : '_';
    }
    snprintf(path + n, sizeof *L->dst - n, ".npy");
    if ((size_t)snprintf(tmp, sizeof *L->tmp, "%s.tmp.%ld", path, (long)getpid()) >= sizeof *L->tmp)
        return acl_fail(L, ACL_EXIT_USAGE, "%s: path too long", path);
    L->nfiles++;
    if (tngrt_npy_write(tmp, t, &err) != 0)
        return acl_fail(L, ACL_EXIT_USAGE, "%s (no output was written)", err.msg);
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

/* Writes every file under its temporary name, then (stdout written too)
 * renames them all into place. */
static int acl_write(AclLauncher *L)
{
    int rc;
    L->tmp = calloc((size_t)(L->d->noutputs + L->d->ninputs) + 1, sizeof *L->tmp);
    L->dst = calloc((size_t)(L->d->noutputs + L->d->ninputs) + 1, sizeof *L->dst);
    if (!L->tmp || !L->dst)
        return acl_fail(L, ACL_EXIT_DEVICE, "out of memory");
    for (int o = 0; o < L->d->noutputs; o++)
        if (acl_write1(L, L->d->outputs[o].name, &L->out[o]) != 0)
            return ACL_EXIT_USAGE;
    for (int i = 0; i < L->d->ninputs; i++)
        if ((L->d->inputs[i].flags & TNGRT_SIG_UPDATED) && acl_write1(L, L->d->inputs[i].name, L->in[i]) != 0)
            return ACL_EXIT_USAGE;
    for (int k = 0; k < L->nfiles; k++)
        printf("wrote %s\n", L->dst[k]);
    if ((rc = acl_flush(L)) != 0)
        return rc;
    for (; L->nrenamed < L->nfiles; L->nrenamed++)
        if (rename(L->tmp[L->nrenamed], L->dst[L->nrenamed]) != 0)
            return acl_fail(L, ACL_EXIT_USAGE, "%s: cannot rename %s into place: %s", L->dst[L->nrenamed],
                            L->tmp[L->nrenamed], strerror(errno));
    return 0;
}

/* Tensors of the weights file the model does not use: one warning line
 * naming the first few, or with --strict an error. */
static int acl_unused(const AclLauncher *L)
{
    enum { SHOWN = 3 };
    int n = tngc_template_unused_count(L->b);
    char names[1024];
    size_t len = 0;
    if (n == 0)
        return 0;
    names[0] = '\0';
    for (int i = 0; i < n && i < SHOWN && len < sizeof names; i++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s'%s'", i ? ", " : "",
                                tngc_template_unused_name(L->b, i));
    if (n > SHOWN && len < sizeof names)
        snprintf(names + len, sizeof names - len, " and %d more", n - SHOWN);
    if (L->strict)
        return acl_fail(L, ACL_EXIT_USAGE, "%s: %d tensor%s the model does not use (--strict): %s", L->weights, n,
                        n == 1 ? "" : "s", names);
    fprintf(stderr, "%s: warning: %s: %d tensor%s the model does not use, ignored: %s\n", L->prog, L->weights, n,
            n == 1 ? "" : "s", names);
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
    if ((rc = acl_args(L, argc, argv)) != 0 || L->help || (rc = acl_out_dir(L)) != 0)
        return rc;
    if (!(L->us = calloc((size_t)L->iters, sizeof *L->us)))
        return acl_fail(L, ACL_EXIT_DEVICE, "out of memory");
    err.msg[0] = '\0';
    if (tngc_template_create(&L->b, &err) != 0)
        return acl_fail(L, ACL_EXIT_DEVICE, "%s", err.msg);
    if (err.msg[0])   /* the bundle's warning: a chip that cannot capture runs reduce-overhead eagerly */
        fprintf(stderr, "%s: warning: %s\n", L->prog, err.msg);
    if (L->weights && tngc_template_load_weights(L->b, L->weights) != 0)
        return acl_fail(L, ACL_EXIT_USAGE, "%s", tngc_template_last_error(L->b));
    if ((L->weights && (rc = acl_unused(L)) != 0) || (rc = acl_runs(L)) != 0)
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
    rc = acl_main(&L, argc, argv);
    if (rc == 0)
        rc = acl_flush(&L);
    tngc_template_destroy(L.b);
    for (int k = L.nrenamed; k < L.nfiles; k++)
        remove(L.tmp[k]);   /* a failure: nothing is left behind */
    if (rc != 0 && L.made_out_dir)
        rmdir(L.out_dir);
    for (int k = 0; L.in && k < L.d->ninputs; k++)
        tngrt_tensor_delete(L.in[k]);
    free(L.in);
    free(L.out);
    free(L.us);
    free(L.tmp);
    free(L.dst);
    if (fclose(stdout) != 0 && rc == 0)
        rc = acl_fail(&L, ACL_EXIT_USAGE, "stdout: %s", strerror(errno));
    return rc;
}
