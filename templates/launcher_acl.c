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
 *                   [--pad] [--strict]
 *
 * The CPU target's launcher (launcher.c) drives libtngcrt's executor
 * through the descriptor; an ACL bundle runs only through its API, hence
 * this smaller sibling. tngc links it only where CANN's libraries are
 * ($ASCEND_TOOLKIT_HOME/lib64), with libtngcrt_core (no CPU kernels, no
 * OpenBLAS). The template compiles on its own against the API of
 * tngc_template.h.
 *
 * It selects the gear itself first, with a libtngcrt bundle of the
 * signature alone (no weights, no arena), as the ACL bundle does inside:
 * so it prints the gear, and --pad pads the inputs up to the smallest gear
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

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Defined by every ACL bundle (templates/bundle_acl.c); the header, shared
 * with the CPU target whose handle is a TngrtBundle, does not declare it. */
void tngc_template_set_trace(tngc_template_t *self, TngrtTrace *trace);

enum { ACL_EXIT_DEVICE = 1, ACL_EXIT_USAGE = 2 };

typedef struct AclLauncher {
    const char *prog, *weights, *out_dir, *trace_path;
    long warmup, iters;
    const TngrtBundleDesc *d;
    TngrtBundleDesc check_desc;  /* the signature alone: gear selection and --pad */
    TngrtGear *check_gears;
    TngrtBundle *check;
    TngrtTensor **in;          /* per signature input, read from its file */
    TngrtTensor **padded;      /* --pad: its zero-padded copy (NULL: not padded) */
    TngrtTensor *run_in;       /* what each run gets: views of in or padded */
    int64_t *real;             /* per symbol: its size in the inputs */
    int *is_padded;            /* per symbol: padded up to the gear's value */
    int gear;
    TngrtTensor *out;
    double *us;                /* per timed run */
    TngrtTrace *trace;         /* --trace: of the last timed run */
    tngc_template_t *b;
    int help;                  /* --help was printed: nothing else to do */
    int strict;                /* --strict: unused tensors in the weights file are an error */
    int pad;                   /* --pad */
    int made_out_dir;          /* --out-dir was created: removed again on failure */
    char **tmp;                /* the files written, under temporary names ("" until made) */
    char **dst;                /* ... and their final names (malloc'd) */
    int nfiles, installed;     /* installed: every tmp renamed into place */
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
                   "[--iters N] [--trace T.json] [--pad] [--strict]\n%s (%s) on an Ascend NPU; inputs:\n", L->prog,
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
                   "       (only symbols proven row-independent), and the outputs cropped back\n");
            L->help = 1;   /* main checks that stdout took it */
            return 0;
        } else if (!strcmp(a, "--strict")) {
            L->strict = 1;
        } else if (!strcmp(a, "--pad")) {
            L->pad = 1;
        } else if (!strcmp(a, "--input") || !strcmp(a, "--weights") || !strcmp(a, "--out-dir") ||
                   !strcmp(a, "--warmup") || !strcmp(a, "--iters") || !strcmp(a, "--trace")) {
            if (!v)
                return acl_fail(L, ACL_EXIT_USAGE, "%s needs a value", a);
            i++;
            if (!strcmp(a, "--input"))
                rc = acl_read_input(L, v);
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
        rc = tngc_template_run(L->b, L->run_in, L->d->ninputs, L->out, L->d->noutputs);
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

/* The libtngcrt bundle that checks the inputs and selects the gear: the
 * signature with no weights, no arena and one host stream. */
static int acl_check_new(AclLauncher *L)
{
    const TngrtBundleDesc *d = L->d;
    TngrtError err;
    if (!(L->check_gears = calloc((size_t)d->ngears + 1, sizeof *L->check_gears)))
        return acl_fail(L, ACL_EXIT_DEVICE, "out of memory");
    for (int g = 0; g < d->ngears; g++) {
        L->check_gears[g] = d->gears[g];
        L->check_gears[g].arena_bytes = 0;
        L->check_gears[g].layout = NULL;
        L->check_gears[g].noff = 0;
    }
    L->check_desc = *d;
    L->check_desc.nweights = 0;
    L->check_desc.weights = NULL;
    L->check_desc.gears = L->check_gears;
    L->check_desc.nstreams = 1;
    L->check_desc.nevents = 0;
    if (tngrt_bundle_new(&L->check, &L->check_desc, &err) != 0)
        return acl_fail(L, ACL_EXIT_DEVICE, "%s", err.msg);
    return 0;
}

/* Steps idx through dims [0, n) of shape in C order; 0 once past the end. */
static int acl_next_index(int64_t *idx, const int64_t *shape, int n)
{
    int k = n - 1;
    while (k >= 0 && ++idx[k] == shape[k])
        idx[k--] = 0;
    return k >= 0;
}

/* Copies the region shape[0..ndim) between two strided buffers (element
 * strides), elem bytes per element. */
static void acl_copy_region(unsigned char *dst, const int64_t *dst_st, const unsigned char *src,
                            const int64_t *src_st, int ndim, const int64_t *shape, size_t elem)
{
    int64_t idx[TNGRT_MAX_DIMS] = {0}, n = 1;
    for (int k = 0; k < ndim; k++)
        n *= shape[k];
    if (n == 0)
        return;
    do {
        int64_t so = 0, dof = 0;
        for (int k = 0; k < ndim; k++) {
            so += idx[k] * src_st[k];
            dof += idx[k] * dst_st[k];
        }
        memcpy(dst + (size_t)dof * elem, src + (size_t)so * elem, elem);
    } while (acl_next_index(idx, shape, ndim));
}

/* Sets L->real from the inputs: each symbol's size, which every input dim
 * using it must agree with. */
static int acl_bind_symbols(AclLauncher *L)
{
    const TngrtBundleDesc *d = L->d;
    for (int s = 0; s < d->nsyms; s++)
        L->real[s] = L->in[d->syms[s].input]->shape[d->syms[s].dim];
    for (int i = 0; i < d->ninputs; i++)
        for (int k = 0; k < d->inputs[i].ndim; k++) {
            int s = d->inputs[i].dims[k].sym;
            if (s >= 0 && L->in[i]->shape[k] != L->real[s])
                return acl_fail(L, ACL_EXIT_USAGE, "input '%s' dim %d is %lld, but %s is %lld (input '%s' dim %d)",
                                d->inputs[i].name, k, (long long)L->in[i]->shape[k], d->syms[s].name,
                                (long long)L->real[s], d->inputs[d->syms[s].input].name, d->syms[s].dim);
        }
    return 0;
}

/* The value of symbol s in gear g (unbound symbols take the input's size). */
static int64_t acl_gear_value(const AclLauncher *L, int g, int s)
{
    int64_t v = L->d->gears[g].symval[s];
    return v == INT64_MIN ? L->real[s] : v;
}

/* Whether gear g holds the inputs; *bad: the first symbol it would pad
 * without pad_ok (or -1); *size: the sum of its symbol values (saturating). */
static int acl_gear_holds(const AclLauncher *L, int g, int *bad, uint64_t *size)
{
    *bad = -1;
    *size = 0;
    for (int s = 0; s < L->d->nsyms; s++) {
        int64_t v = acl_gear_value(L, g, s);
        if (v < L->real[s])
            return 0;
        if (v > L->real[s] && !L->d->syms[s].pad_ok && *bad < 0)
            *bad = s;
        *size = *size + (uint64_t)v < *size ? UINT64_MAX : *size + (uint64_t)v;
    }
    return 1;
}

/* The smallest gear that holds the inputs padding only pad_ok symbols. */
static int acl_pad_gear(AclLauncher *L, int *gear)
{
    const TngrtBundleDesc *d = L->d;
    int best = -1, best_any = -1, bad_any = -1, bad;
    uint64_t best_size = 0, any_size = 0, size;
    for (int g = 0; g < d->ngears; g++) {
        if (!acl_gear_holds(L, g, &bad, &size))
            continue;
        if (best_any < 0 || size < any_size)
            best_any = g, any_size = size, bad_any = bad;
        if (bad < 0 && (best < 0 || size < best_size))
            best = g, best_size = size;
    }
    if (best >= 0) {
        *gear = best;
        return 0;
    }
    if (best_any < 0)
        return acl_fail(L, ACL_EXIT_USAGE, "%s (--pad: no gear is large enough)", tngrt_bundle_last_error(L->check));
    return acl_fail(L, ACL_EXIT_USAGE,
                    "dim %s (input '%s' dim %d) cannot be padded: the planner did not prove it row-independent",
                    d->syms[bad_any].name, d->inputs[d->syms[bad_any].input].name, d->syms[bad_any].dim);
}

/* --pad: pads the inputs up to the smallest gear that holds them; refused
 * when an output has a dim computed from symbols (its valid rows are unknown). */
static int acl_pad_inputs(AclLauncher *L)
{
    const TngrtBundleDesc *d = L->d;
    int g = -1, rc;
    if ((rc = acl_bind_symbols(L)) != 0 || (rc = acl_pad_gear(L, &g)) != 0)
        return rc;
    for (int o = 0; o < d->noutputs; o++)
        for (int k = 0; k < d->outputs[o].ndim; k++)
            if (d->outputs[o].dims[k].sym == -2)
                return acl_fail(L, ACL_EXIT_USAGE,
                                "--pad: output '%s' dim %d is computed from symbols, so its padded rows cannot be cropped",
                                d->outputs[o].name, k);
    for (int s = 0; s < d->nsyms; s++)
        L->is_padded[s] = acl_gear_value(L, g, s) > L->real[s];
    for (int i = 0; i < d->ninputs; i++) {
        const TngrtTensor *t = L->in[i];
        int64_t shape[TNGRT_MAX_DIMS];
        int changed = 0;
        for (int k = 0; k < t->ndim; k++) {
            int sym = d->inputs[i].dims[k].sym;
            shape[k] = sym >= 0 ? acl_gear_value(L, g, sym) : t->shape[k];
            changed |= shape[k] != t->shape[k];
        }
        if (!changed)
            continue;
        if (!(L->padded[i] = tngrt_tensor_new(t->dtype, t->ndim, shape, NULL)))
            return acl_fail(L, ACL_EXIT_DEVICE, "input '%s': out of memory padding it", d->inputs[i].name);
        acl_copy_region(L->padded[i]->data, L->padded[i]->strides, t->data, t->strides, t->ndim, t->shape,
                        tngrt_dtype_size(t->dtype));
        L->run_in[i] = *L->padded[i];
    }
    return 0;
}

/* Whether some symbol may be padded. */
static int acl_any_pad_ok(const TngrtBundleDesc *d)
{
    for (int s = 0; s < d->nsyms; s++)
        if (d->syms[s].pad_ok)
            return 1;
    return 0;
}

/* Checks the inputs and selects the gear (padding with --pad); prints
 * "gear <i>: s0=4" and "padded: x [3,8] -> [4,8]" lines as launcher.c does. */
static int acl_select(AclLauncher *L)
{
    const TngrtBundleDesc *d = L->d;
    char gs[512];
    int rc, unbound = 0;
    for (int i = 0; i < d->ninputs; i++)
        L->run_in[i] = *L->in[i];
    if (tngrt_bundle_check_inputs(L->check, L->run_in, d->ninputs) != 0)
        return acl_fail(L, ACL_EXIT_USAGE, "%s", tngrt_bundle_last_error(L->check));
    if ((L->gear = tngrt_bundle_select(L->check, L->run_in, d->ninputs)) < 0) {
        if (!L->pad)
            return acl_fail(L, ACL_EXIT_USAGE, "%s%s", tngrt_bundle_last_error(L->check),
                            acl_any_pad_ok(d) ? " (--pad pads up to a larger gear)" : "");
        if ((rc = acl_pad_inputs(L)) != 0)
            return rc;
        if ((L->gear = tngrt_bundle_select(L->check, L->run_in, d->ninputs)) < 0)
            return acl_fail(L, ACL_EXIT_USAGE, "%s", tngrt_bundle_last_error(L->check));
    }
    tngrt_bundle_gear_str(L->check, L->gear, gs, sizeof gs);
    printf("gear %d: %s", L->gear, gs);
    for (int k = 0; k < d->nsyms; k++)
        if (d->gears[L->gear].symval[k] == INT64_MIN)
            printf("%s%s=%lld", unbound++ ? " " : " (bound: ", d->syms[k].name,
                   (long long)L->run_in[d->syms[k].input].shape[d->syms[k].dim]);
    printf("%s\n", unbound ? ")" : "");
    for (int i = 0; i < d->ninputs; i++)
        if (L->padded[i]) {
            printf("padded: %s [", d->inputs[i].name);
            for (int k = 0; k < L->in[i]->ndim; k++)
                printf(k ? ",%lld" : "%lld", (long long)L->in[i]->shape[k]);
            printf("] -> [");
            for (int k = 0; k < L->padded[i]->ndim; k++)
                printf(k ? ",%lld" : "%lld", (long long)L->padded[i]->shape[k]);
            printf("]\n");
        }
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

/* Adds a file to the set: its final path dst (copied) and room for the
 * name of its temporary file (made by tngrt_npy_write_temp or
 * tngrt_trace_write_temp), which is returned with its size in *cap (NULL:
 * out of memory, said on stderr). */
static char *acl_add_file(AclLauncher *L, const char *dst, size_t *cap)
{
    size_t n = strlen(dst);
    char *d = malloc(n + 1), *tmp = malloc(n + TNGRT_TEMP_EXTRA);
    if (!d || !tmp) {
        free(d);
        free(tmp);
        acl_fail(L, ACL_EXIT_DEVICE, "out of memory");
        return NULL;
    }
    memcpy(d, dst, n + 1);
    tmp[0] = '\0';
    *cap = n + TNGRT_TEMP_EXTRA;
    L->dst[L->nfiles] = d;
    L->tmp[L->nfiles++] = tmp;
    return tmp;
}

/* Writes the region shape of t (cropped, made dense) under a temporary name
 * of D/<name>.npy, name's other characters as '_'. */
static int acl_write1(AclLauncher *L, const char *name, const TngrtTensor *t, const int64_t *shape)
{
    char path[4096];
    char *tmp;
    size_t cap = 0;
    TngrtTensor *dense;
    TngrtError err;
    int rc = 0;
    size_t n = (size_t)snprintf(path, sizeof path, "%s/", L->out_dir);
    for (const char *c = name; *c && n + 5 < sizeof path; c++, n++) {
        int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
                 *c == '.' || *c == '-';
        path[n] = ok ? *c : '_';
    }
    snprintf(path + n, sizeof path - n, ".npy");
    if (!(tmp = acl_add_file(L, path, &cap)))
        return ACL_EXIT_DEVICE;
    if (!(dense = tngrt_tensor_new(t->dtype, t->ndim, shape, &err)))
        return acl_fail(L, ACL_EXIT_DEVICE, "%s", err.msg);
    acl_copy_region(dense->data, dense->strides, t->data, t->strides, t->ndim, shape, tngrt_dtype_size(t->dtype));
    if (tngrt_npy_write_temp(path, dense, tmp, cap, &err) != 0)
        rc = acl_fail(L, ACL_EXIT_USAGE, "%s (no output was written)", err.msg);
    tngrt_tensor_delete(dense);
    return rc;
}

/* Writes output o, the dims of padded symbols cropped to their real size. */
static int acl_write_output(AclLauncher *L, int o)
{
    const TngrtSigTensor *s = &L->d->outputs[o];
    const TngrtTensor *t = &L->out[o];
    int64_t shape[TNGRT_MAX_DIMS];
    int ok = t->ndim >= 0 && t->ndim <= TNGRT_MAX_DIMS && tngrt_dtype_size(t->dtype) != 0;
    for (int k = 0; ok && k < t->ndim; k++) {
        int sym = k < s->ndim ? s->dims[k].sym : -1;
        ok = t->shape[k] >= 0;
        shape[k] = sym >= 0 && L->is_padded[sym] && L->real[sym] < t->shape[k] ? L->real[sym] : t->shape[k];
    }
    if (!ok || (!t->data && tngrt_tensor_numel(t) > 0))
        return acl_fail(L, ACL_EXIT_DEVICE, "output '%s': the bundle returned a malformed tensor", s->name);
    return acl_write1(L, s->name, t, shape);
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
    const TngrtBundleDesc *d = L->d;
    char *tmp;
    size_t cap = 0;
    TngrtError err;
    int rc;
    L->tmp = calloc((size_t)(d->noutputs + d->ninputs) + 2, sizeof *L->tmp);
    L->dst = calloc((size_t)(d->noutputs + d->ninputs) + 2, sizeof *L->dst);
    if (!L->tmp || !L->dst)
        return acl_fail(L, ACL_EXIT_DEVICE, "out of memory");
    for (int o = 0; o < d->noutputs; o++)
        if ((rc = acl_write_output(L, o)) != 0)
            return rc;
    for (int i = 0; i < d->ninputs; i++)
        if ((d->inputs[i].flags & TNGRT_SIG_UPDATED) &&
            (rc = acl_write1(L, d->inputs[i].name, &L->run_in[i], L->in[i]->shape)) != 0)
            return rc;
    if (L->trace) {
        if (!(tmp = acl_add_file(L, L->trace_path, &cap)))
            return ACL_EXIT_DEVICE;
        if (tngrt_trace_write_temp(L->trace, L->trace_path, d->stream_names, tmp, cap, &err) != 0)
            return acl_fail(L, ACL_EXIT_USAGE, "%s (no output was written)", err.msg);
    }
    for (int k = 0; k < L->nfiles; k++)
        printf("wrote %s\n", L->dst[k]);
    if ((rc = acl_flush(L)) != 0)
        return rc;
    if (tngrt_files_install(L->tmp, L->dst, L->nfiles, &err) != 0)
        return acl_fail(L, ACL_EXIT_USAGE, "%s (no output was written)", err.msg);
    L->installed = 1;
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

/* Checks that the directory of --trace exists and that --trace itself is
 * no directory, before any run. */
static int acl_trace_dir(const AclLauncher *L)
{
    const char *slash = L->trace_path ? strrchr(L->trace_path, '/') : NULL;
    char dir[4096];
    struct stat st;
    if (L->trace_path && stat(L->trace_path, &st) == 0 && S_ISDIR(st.st_mode))
        return acl_fail(L, ACL_EXIT_USAGE, "--trace '%s' is a directory", L->trace_path);
    if (!slash || slash == L->trace_path)
        return 0;
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - L->trace_path), L->trace_path);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return acl_fail(L, ACL_EXIT_USAGE, "--trace '%s': no such directory", L->trace_path);
    return 0;
}

/* The name result k is written under: outputs first, then the inputs
 * updated in place; NULL for an input that is not written. */
static const char *acl_result_name(const TngrtBundleDesc *d, int k)
{
    if (k < d->noutputs)
        return d->outputs[k].name;
    k -= d->noutputs;
    return (d->inputs[k].flags & TNGRT_SIG_UPDATED) ? d->inputs[k].name : NULL;
}

/* Whether names a and b give the same file once their characters outside
 * [A-Za-z0-9_.-] become '_' (as acl_write1 writes them). */
static int acl_same_file(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ka = (*a >= 'a' && *a <= 'z') || (*a >= 'A' && *a <= 'Z') || (*a >= '0' && *a <= '9') || *a == '_' ||
                 *a == '.' || *a == '-';
        int kb = (*b >= 'a' && *b <= 'z') || (*b >= 'A' && *b <= 'Z') || (*b >= '0' && *b <= '9') || *b == '_' ||
                 *b == '.' || *b == '-';
        if (!*a || !*b)
            return !*a && !*b;
        if ((ka ? *a : '_') != (kb ? *b : '_'))
            return 0;
    }
}

/* Refuses signatures in which two results would be written to the same
 * file (an output named like an input updated in place, or two names equal
 * once sanitised), as launcher.c does. */
static int acl_check_names(const AclLauncher *L)
{
    const TngrtBundleDesc *d = L->d;
    int n = d->noutputs + d->ninputs;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < a; b++) {
            const char *na = acl_result_name(d, a), *nb = acl_result_name(d, b);
            if (na && nb && acl_same_file(na, nb))
                return acl_fail(L, ACL_EXIT_USAGE, "%s '%s' and %s '%s' would both be written to one .npy file: "
                                "rename one in the script", b < d->noutputs ? "output" : "input", nb,
                                a < d->noutputs ? "output" : "input", na);
        }
    return 0;
}

static int acl_main(AclLauncher *L, int argc, char **argv)
{
    const TngrtBundleDesc *d = L->d;
    TngrtError err;
    int rc;
    L->in = calloc((size_t)d->ninputs + 1, sizeof *L->in);
    L->padded = calloc((size_t)d->ninputs + 1, sizeof *L->padded);
    L->run_in = calloc((size_t)d->ninputs + 1, sizeof *L->run_in);
    L->real = calloc((size_t)d->nsyms + 1, sizeof *L->real);
    L->is_padded = calloc((size_t)d->nsyms + 1, sizeof *L->is_padded);
    L->out = calloc((size_t)d->noutputs + 1, sizeof *L->out);
    if (!L->in || !L->padded || !L->run_in || !L->real || !L->is_padded || !L->out)
        return acl_fail(L, ACL_EXIT_DEVICE, "out of memory");
    if ((rc = acl_args(L, argc, argv)) != 0 || L->help || (rc = acl_check_names(L)) != 0 ||
        (rc = acl_trace_dir(L)) != 0 || (rc = acl_out_dir(L)) != 0)
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
    if ((L->weights && (rc = acl_unused(L)) != 0) || (rc = acl_check_new(L)) != 0 || (rc = acl_select(L)) != 0 ||
        (rc = acl_runs(L)) != 0)
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
    for (int k = 0; k < L.nfiles; k++) {
        if (!L.installed && L.tmp[k][0])
            unlink(L.tmp[k]);   /* a failure: nothing is left behind */
        free(L.tmp[k]);
        free(L.dst[k]);
    }
    if (rc != 0 && L.made_out_dir)
        rmdir(L.out_dir);
    for (int k = 0; L.in && k < L.d->ninputs; k++)
        tngrt_tensor_delete(L.in[k]);
    for (int k = 0; L.padded && k < L.d->ninputs; k++)
        tngrt_tensor_delete(L.padded[k]);
    tngrt_trace_delete(L.trace);
    tngrt_bundle_delete(L.check);
    free(L.check_gears);
    free(L.in);
    free(L.padded);
    free(L.run_in);
    free(L.real);
    free(L.is_padded);
    free(L.out);
    free(L.us);
    free(L.tmp);
    free(L.dst);
    if (fclose(stdout) != 0 && rc == 0)
        rc = acl_fail(&L, ACL_EXIT_USAGE, "stdout: %s", strerror(errno));
    return rc;
}
