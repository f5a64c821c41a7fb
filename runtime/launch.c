/*
 * launch.c - the launchers' shared logic (tngrt_launch.h): inputs, the
 * gear and --pad, the unused tensors of a weights file, and the results
 * written all or nothing. The command line, the printing and the runs
 * stay in each launcher (templates/launcher.c, launcher_acl.c).
 *
 * Nothing here prints or exits; a failure leaves a one-line message in
 * the launch (tngrt_launch_last_error).
 */
#include "internal.h"
#include "tngrt_launch.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct TngrtLaunch {
    const TngrtBundleDesc *desc;
    TngrtTensor **given;    /* the inputs as read, in signature order */
    TngrtTensor **padded;   /* padded copies (NULL where not padded) */
    TngrtTensor *run_in;    /* what each run gets (views of given/padded) */
    TngrtTensor *outs;      /* the outputs of the last run (views) */
    int64_t *real;          /* each symbol's size in the inputs (after --pad) */
    int *is_padded;         /* per symbol: padded up to the gear's value */
    int64_t *sym;           /* the selected gear's symbol values */
    int gear;
    char *out_dir;          /* the results' directory */
    int made_out_dir;       /* it did not exist: created, removed again on failure */
    char **tmp, **dst;      /* the files written: temporary name ("" until made), final name */
    int nfiles, installed;  /* installed: every tmp renamed into place */
    int widen;              /* bf16 and f16 results written as float32 */
    char err[TNGRT_LAUNCH_MSG];
};

/* Replaces the message; returns status. */
static int launch__fail(TngrtLaunch *self, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(self->err, sizeof self->err, fmt, ap);
    va_end(ap);
    return status;
}

/* Whether path is a directory. */
static int launch__is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int tngrt_launch_new(TngrtLaunch **out, const TngrtBundleDesc *desc, TngrtError *err)
{
    TngrtLaunch *self;
    size_t ni, no, ns;
    *out = NULL;
    if (tngrt_desc_check(desc, err) != 0)
        return -1;
    ni = (size_t)desc->ninputs + 1;
    no = (size_t)desc->noutputs + 1;
    ns = (size_t)desc->nsyms + 1;
    self = calloc(1, sizeof *self);
    if (self) {
        self->desc = desc;
        self->gear = -1;
        self->given = calloc(ni, sizeof *self->given);
        self->padded = calloc(ni, sizeof *self->padded);
        self->run_in = calloc(ni, sizeof *self->run_in);
        self->outs = calloc(no, sizeof *self->outs);
        self->real = calloc(ns, sizeof *self->real);
        self->is_padded = calloc(ns, sizeof *self->is_padded);
        self->sym = calloc(ns, sizeof *self->sym);
        /* outputs, the inputs updated in place, the trace */
        self->tmp = calloc(ni + no, sizeof *self->tmp);
        self->dst = calloc(ni + no, sizeof *self->dst);
    }
    if (!self || !self->given || !self->padded || !self->run_in || !self->outs || !self->real
        || !self->is_padded || !self->sym || !self->tmp || !self->dst) {
        tngrt_launch_delete(self);
        tngrt__fail(err, NULL, "out of memory");
        return -1;
    }
    *out = self;
    return 0;
}

void tngrt_launch_delete(TngrtLaunch *self)
{
    if (!self)
        return;
    for (int i = 0; self->given && i < self->desc->ninputs; i++)
        tngrt_tensor_delete(self->given[i]);
    for (int i = 0; self->padded && i < self->desc->ninputs; i++)
        tngrt_tensor_delete(self->padded[i]);
    for (int k = 0; k < self->nfiles; k++) {
        if (!self->installed && self->tmp[k][0])
            unlink(self->tmp[k]);   /* a failure: nothing is left behind */
        free(self->tmp[k]);
        free(self->dst[k]);
    }
    free(self->given);
    free(self->padded);
    free(self->run_in);
    free(self->outs);
    free(self->real);
    free(self->is_padded);
    free(self->sym);
    free(self->out_dir);
    free(self->tmp);
    free(self->dst);
    free(self);
}

void tngrt_launch_abandon(TngrtLaunch *self)
{
    if (!self)
        return;
    for (int k = 0; !self->installed && k < self->nfiles; k++)
        if (self->tmp[k][0]) {
            unlink(self->tmp[k]);
            self->tmp[k][0] = '\0';
        }
    if (self->made_out_dir)
        rmdir(self->out_dir);      /* empty: every temporary file is removed */
    self->made_out_dir = 0;
}

const char *tngrt_launch_last_error(const TngrtLaunch *self)
{
    return self->err;
}

/* ---- inputs ---- */

int tngrt_launch_input_index(const TngrtBundleDesc *desc, const char *name, size_t len)
{
    for (int i = 0; i < desc->ninputs; i++)
        if (strlen(desc->inputs[i].name) == len && strncmp(desc->inputs[i].name, name, len) == 0)
            return i;
    return -1;
}

int tngrt_launch_read_input(TngrtLaunch *self, int i, const char *path)
{
    TngrtError err;
    TngrtTensor **t = &self->given[i];
    tngrt_tensor_delete(*t);
    *t = NULL;
    if (tngrt_npy_read_as(path, self->desc->inputs[i].dtype, t, &err) != 0)
        return launch__fail(self, TNGRT_BAD_INPUT, "%s", err.msg);
    self->run_in[i] = **t;
    return 0;
}

const TngrtTensor *tngrt_launch_input(const TngrtLaunch *self, int i)
{
    return self->given[i];
}

const TngrtTensor *tngrt_launch_run_inputs(const TngrtLaunch *self)
{
    return self->run_in;
}

TngrtTensor *tngrt_launch_outputs(TngrtLaunch *self)
{
    return self->outs;
}

/* ---- copies ---- */

/* Steps idx through dims [0, n) of shape in C order; 0 once past the end. */
static int launch__next_index(int64_t *idx, const int64_t *shape, int n)
{
    int k = n - 1;
    while (k >= 0 && ++idx[k] == shape[k])
        idx[k--] = 0;
    return k >= 0;
}

/* Copies the region shape[0..ndim) between two strided buffers (element
 * strides), elem bytes per element; rows are copied whole when both are
 * contiguous along the last dim. */
static void launch__copy_region(unsigned char *dst, const int64_t *dst_st, const unsigned char *src,
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
    } while (launch__next_index(idx, shape, ndim - 1));
}

/* ---- the gear and --pad ---- */

/* Appends to msg[0..len) (cut to it). */
static void launch__append(char *msg, size_t len, const char *fmt, ...)
{
    size_t n = len ? strlen(msg) : 0;
    va_list ap;
    if (n + 1 >= len)
        return;
    va_start(ap, fmt);
    vsnprintf(msg + n, len - n, fmt, ap);
    va_end(ap);
}

/* Sets real from the inputs: each symbol's size, which every input dim
 * using it must agree with. */
static int launch__bind_symbols(const TngrtBundleDesc *d, const TngrtTensor *in, int64_t *real,
                                char *msg, size_t len)
{
    for (int s = 0; s < d->nsyms; s++)
        real[s] = in[d->syms[s].input].shape[d->syms[s].dim];
    for (int i = 0; i < d->ninputs; i++) {
        for (int k = 0; k < d->inputs[i].ndim; k++) {
            int s = d->inputs[i].dims[k].sym;
            if (s >= 0 && in[i].shape[k] != real[s]) {
                snprintf(msg, len, "input '%s' dim %d is %lld, but %s is %lld (input '%s' dim %d)",
                         d->inputs[i].name, k, (long long)in[i].shape[k], d->syms[s].name,
                         (long long)real[s], d->inputs[d->syms[s].input].name, d->syms[s].dim);
                return TNGRT_BAD_INPUT;
            }
        }
    }
    return 0;
}

/* The value of symbol s in gear g (unbound symbols take the input's size). */
static int64_t launch__gear_value(const TngrtBundleDesc *d, const int64_t *real, int g, int s)
{
    int64_t v = d->gears[g].symval[s];
    return v == INT64_MIN ? real[s] : v;
}

/* Whether gear g holds the inputs: every symbol >= its real size. Sets
 * *bad to the first symbol it would pad without pad_ok (or -1) and
 * *size to the sum of its symbol values (saturating). */
static int launch__gear_holds(const TngrtBundleDesc *d, const int64_t *real, int g, int *bad,
                              uint64_t *size)
{
    *bad = -1;
    *size = 0;
    for (int s = 0; s < d->nsyms; s++) {
        int64_t v = launch__gear_value(d, real, g, s);
        if (v < real[s])
            return 0;
        if (v > real[s] && !d->syms[s].pad_ok && *bad < 0)
            *bad = s;
        *size = *size + (uint64_t)v < *size ? UINT64_MAX : *size + (uint64_t)v;
    }
    return 1;
}

/* The smallest gear that holds the inputs, padding only pad_ok symbols;
 * msg holds the message of the inputs matching no gear. */
static int launch__pad_gear(const TngrtBundleDesc *d, const int64_t *real, char *msg, size_t len)
{
    int best = -1, best_any = -1, bad_any = -1, bad;
    uint64_t best_size = 0, any_size = 0, size;
    for (int g = 0; g < d->ngears; g++) {
        if (!launch__gear_holds(d, real, g, &bad, &size))
            continue;
        if (best_any < 0 || size < any_size)
            best_any = g, any_size = size, bad_any = bad;
        if (bad < 0 && (best < 0 || size < best_size))
            best = g, best_size = size;
    }
    if (best >= 0)
        return best;
    if (best_any < 0) {
        launch__append(msg, len, " (--pad: no gear is large enough)");
        return TNGRT_BAD_INPUT;
    }
    snprintf(msg, len, "dim %s (input '%s' dim %d) cannot be padded: the planner did not prove "
             "it row-independent", d->syms[bad_any].name, d->inputs[d->syms[bad_any].input].name,
             d->syms[bad_any].dim);
    return TNGRT_BAD_INPUT;
}

/* Whether some symbol may be padded. */
static int launch__any_pad_ok(const TngrtBundleDesc *d)
{
    for (int s = 0; s < d->nsyms; s++)
        if (d->syms[s].pad_ok)
            return 1;
    return 0;
}

int tngrt_launch_choose_gear(const TngrtBundleDesc *desc, const TngrtTensor *inputs, int ninputs,
                             int pad, int64_t *real, int *padded, char *msg, size_t len)
{
    int64_t sym[64], *vals;
    int g, rc;
    *padded = 0;
    if (tngrt_desc_check_inputs(desc, inputs, ninputs, msg, len) != 0)
        return ninputs != desc->ninputs || (ninputs > 0 && !inputs) ? TNGRT_FAILED
                                                                    : TNGRT_BAD_INPUT;
    vals = desc->nsyms <= 64 ? sym : malloc((size_t)desc->nsyms * sizeof *vals);
    if (!vals) {
        snprintf(msg, len, "out of memory");
        return TNGRT_FAILED;
    }
    g = tngrt_desc_select(desc, inputs, ninputs, vals, msg, len);
    if (vals != sym)
        free(vals);
    if (g >= 0)
        return g;
    /* the shapes match no gear: msg lists the gears */
    if (!pad) {
        if (launch__any_pad_ok(desc))
            launch__append(msg, len, " (--pad pads up to a larger gear)");
        return TNGRT_BAD_INPUT;
    }
    if ((rc = launch__bind_symbols(desc, inputs, real, msg, len)) != 0)
        return rc;
    if ((g = launch__pad_gear(desc, real, msg, len)) < 0)
        return g;
    for (int o = 0; o < desc->noutputs; o++)
        for (int k = 0; k < desc->outputs[o].ndim; k++)
            if (desc->outputs[o].dims[k].sym == -2) {
                snprintf(msg, len, "--pad: output '%s' dim %d is computed from symbols, so its "
                         "padded rows cannot be cropped", desc->outputs[o].name, k);
                return TNGRT_BAD_INPUT;
            }
    *padded = 1;
    return g;
}

/* Makes a zero-padded copy of input i in gear g's shape when it differs. */
static int launch__pad_input(TngrtLaunch *self, int i, int g)
{
    const TngrtSigTensor *s = &self->desc->inputs[i];
    const TngrtTensor *t = self->given[i];
    TngrtTensor *p;
    int64_t shape[TNGRT_MAX_DIMS];
    int changed = 0;
    for (int k = 0; k < t->ndim; k++) {
        int sym = s->dims[k].sym;
        shape[k] = sym >= 0 ? launch__gear_value(self->desc, self->real, g, sym) : t->shape[k];
        changed |= shape[k] != t->shape[k];
    }
    if (!changed)
        return 0;
    p = self->padded[i] = tngrt_tensor_new(t->dtype, t->ndim, shape, NULL);
    if (!p)
        return launch__fail(self, TNGRT_FAILED, "input '%s': out of memory padding it", s->name);
    launch__copy_region(p->data, p->strides, t->data, t->strides, t->ndim, t->shape,
                        tngrt_dtype_size(t->dtype));
    self->run_in[i] = *p;
    return 0;
}

int tngrt_launch_select(TngrtLaunch *self, int pad)
{
    const TngrtBundleDesc *d = self->desc;
    int padded, g, rc;
    self->err[0] = '\0';
    g = tngrt_launch_choose_gear(d, self->run_in, d->ninputs, pad, self->real, &padded, self->err,
                                 sizeof self->err);
    if (g < 0)
        return g;
    if (padded) {
        for (int s = 0; s < d->nsyms; s++)
            self->is_padded[s] = launch__gear_value(d, self->real, g, s) > self->real[s];
        for (int i = 0; i < d->ninputs; i++)
            if ((rc = launch__pad_input(self, i, g)) != 0)
                return rc;
    }
    g = tngrt_desc_select(d, self->run_in, d->ninputs, self->sym, self->err, sizeof self->err);
    if (g < 0)
        return TNGRT_BAD_INPUT;
    self->gear = g;
    return g;
}

/* Appends a shape as "[3,8]" to buf[0..len). */
static void launch__shape(char *buf, size_t len, int ndim, const int64_t *shape)
{
    launch__append(buf, len, "[");
    for (int k = 0; k < ndim; k++)
        launch__append(buf, len, k ? ",%lld" : "%lld", (long long)shape[k]);
    launch__append(buf, len, "]");
}

void tngrt_launch_gear_line(const TngrtLaunch *self, char *buf, size_t len)
{
    const TngrtBundleDesc *d = self->desc;
    char s[512];
    int unbound = 0;
    if (len == 0)
        return;
    tngrt_desc_gear_str(d, self->gear, s, sizeof s);
    snprintf(buf, len, "gear %d: %s", self->gear, s);
    for (int k = 0; self->gear >= 0 && k < d->nsyms; k++) {
        if (d->gears[self->gear].symval[k] != INT64_MIN)
            continue;
        launch__append(buf, len, "%s%s=%lld", unbound++ ? " " : " (bound: ", d->syms[k].name,
                       (long long)self->run_in[d->syms[k].input].shape[d->syms[k].dim]);
    }
    if (unbound)
        launch__append(buf, len, ")");
}

int tngrt_launch_padded_line(const TngrtLaunch *self, int i, char *buf, size_t len)
{
    const TngrtTensor *t = self->given[i], *p = self->padded[i];
    if (!p || len == 0)
        return 0;
    snprintf(buf, len, "padded: %s ", self->desc->inputs[i].name);
    launch__shape(buf, len, t->ndim, t->shape);
    launch__append(buf, len, " -> ");
    launch__shape(buf, len, p->ndim, p->shape);
    return 1;
}

/* ---- weights ---- */

int tngrt_launch_unused(TngrtLaunch *self, const char *path, int n, const char *const *names,
                        int strict)
{
    char list[1024];
    size_t len = 0;
    self->err[0] = '\0';
    if (n == 0)
        return 0;
    list[0] = '\0';
    for (int i = 0; i < n && i < TNGRT_LAUNCH_UNUSED_SHOWN && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s'%s'", i ? ", " : "", names[i]);
    if (n > TNGRT_LAUNCH_UNUSED_SHOWN && len < sizeof list)
        snprintf(list + len, sizeof list - len, " and %d more", n - TNGRT_LAUNCH_UNUSED_SHOWN);
    if (strict)
        return launch__fail(self, TNGRT_BAD_INPUT, "%s: %d tensor%s the model does not use "
                            "(--strict): %s", path, n, n == 1 ? "" : "s", list);
    launch__fail(self, 0, "%s: %d tensor%s the model does not use, ignored: %s", path, n,
                 n == 1 ? "" : "s", list);
    return 1;
}

/* A growing text (the weights report); on out of memory it stops growing
 * and remembers it. */
typedef struct LaunchText {
    char *buf;
    size_t len, cap;
    int oom;
} LaunchText;

static void launch__add(LaunchText *t, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || t->oom)
        return;
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        char *grown;
        while (cap < t->len + (size_t)n + 1)
            cap *= 2;
        if (!(grown = realloc(t->buf, cap))) {
            t->oom = 1;
            return;
        }
        t->buf = grown;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* Appends a shape, "[3,8]". */
static void launch__text_shape(LaunchText *t, int ndim, const int64_t *shape)
{
    launch__add(t, "[");
    for (int k = 0; k < ndim; k++)
        launch__add(t, k ? ",%lld" : "%lld", (long long)shape[k]);
    launch__add(t, "]");
}

/* Appends weight i's dtype and shape, "f32[3,8]". */
static void launch__weight(LaunchText *t, const TngrtSigTensor *w)
{
    int64_t shape[TNGRT_MAX_DIMS];
    for (int k = 0; k < w->ndim; k++)
        shape[k] = w->dims[k].value;
    launch__add(t, "%s", tngrt_dtype_name(w->dtype));
    launch__text_shape(t, w->ndim, shape);
}

/* Checks weight i of d against st: 0 when it would load, else 1 with a
 * line in t. */
static int launch__check_weight(const TngrtBundleDesc *d, const TngrtSafetensors *st, int i,
                                LaunchText *t)
{
    const TngrtSigTensor *w = &d->weights[i];
    const char *key = tngrt_desc_weight_key(d, st, i);
    TngrtTensor v;
    int same;
    if (tngrt_safetensors_find(st, key, &v, NULL) != 0) {
        if (w->flags & TNGRT_SIG_ZEROS)
            return 0;   /* state the bundle starts at zeros */
        launch__add(t, "missing: %s ", w->name);
        launch__weight(t, w);
        for (int k = 0; k < d->naliases; k++)
            if (d->aliases[k].weight == i)
                launch__add(t, " (or its tied key %s)", d->aliases[k].name);
        launch__add(t, "\n");
        return 1;
    }
    if (v.dtype != w->dtype) {
        launch__add(t, "dtype: %s is %s, the model expects %s (no conversion: save it as %s)\n",
                    key, tngrt_dtype_name(v.dtype), tngrt_dtype_name(w->dtype),
                    tngrt_dtype_name(w->dtype));
        return 1;
    }
    same = v.ndim == w->ndim;
    for (int k = 0; same && k < w->ndim; k++)
        same = v.shape[k] == w->dims[k].value;
    if (!same) {
        launch__add(t, "shape: %s is ", key);
        launch__text_shape(t, v.ndim, v.shape);
        launch__add(t, ", the model expects ");
        launch__weight(t, w);
        launch__add(t, "\n");
        return 1;
    }
    return 0;
}

int tngrt_launch_check_weights(TngrtLaunch *self, const char *path, int strict, char **report)
{
    const TngrtBundleDesc *d = self->desc;
    TngrtSafetensors *st;
    TngrtError e;
    LaunchText t = {0};
    int bad = 0, extra = 0, count;
    *report = NULL;
    self->err[0] = '\0';
    if (tngrt_weights_open(path, &st, &e) != 0)
        return launch__fail(self, TNGRT_BAD_INPUT, "%s", e.msg);
    for (int i = 0; i < d->nweights; i++)
        bad += launch__check_weight(d, st, i, &t);
    count = tngrt_safetensors_count(st);
    for (int i = 0; i < count; i++) {
        const char *name = tngrt_safetensors_name(st, i);
        TngrtTensor v;
        if (tngrt_desc_is_state_key(d, name))
            continue;
        extra++;
        tngrt_safetensors_find(st, name, &v, NULL);
        launch__add(&t, "extra: %s %s", name, tngrt_dtype_name(v.dtype));
        launch__text_shape(&t, v.ndim, v.shape);
        launch__add(&t, "%s\n", strict ? " (refused: --strict)" : " (ignored)");
    }
    tngrt_safetensors_close(st);
    launch__add(&t, "%s: %d tensor%s for %d weight%s: %d missing or mismatched, %d extra: %s\n",
                path, count, count == 1 ? "" : "s", d->nweights, d->nweights == 1 ? "" : "s", bad,
                extra, bad || (strict && extra) ? "would not load" : "would load");
    if (t.oom) {
        free(t.buf);
        return launch__fail(self, TNGRT_FAILED, "%s: out of memory", path);
    }
    *report = t.buf;
    return bad || (strict && extra) ? 1 : 0;
}

/* ---- results ---- */

/* Whether c stays as it is in a result's file name. */
static int launch__name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
           || c == '.' || c == '-';
}

/* "<dir>/<name with [^A-Za-z0-9_.-] as '_'>.npy", malloc'd (NULL: out of
 * memory); "<name...>.npy" for a NULL dir. */
static char *launch__result_path(const char *dir, const char *name)
{
    size_t n = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 5;
    char *path = malloc(n), *p;
    if (!path)
        return NULL;
    snprintf(path, n, "%s%s", dir ? dir : "", dir ? "/" : "");
    p = path + strlen(path);
    for (const char *c = name; *c; c++)
        *p++ = launch__name_char(*c) ? *c : '_';
    strcpy(p, ".npy");
    return path;
}

const char *tngrt_launch_result_name(const TngrtBundleDesc *desc, int k)
{
    if (k < desc->noutputs)
        return desc->outputs[k].name;
    k -= desc->noutputs;
    return (desc->inputs[k].flags & TNGRT_SIG_UPDATED) ? desc->inputs[k].name : NULL;
}

/* Whether names a and b give the same file once their characters outside
 * [A-Za-z0-9_.-] become '_'. */
static int launch__same_file(const char *a, const char *b)
{
    for (;; a++, b++) {
        if (!*a || !*b)
            return !*a && !*b;
        if ((launch__name_char(*a) ? *a : '_') != (launch__name_char(*b) ? *b : '_'))
            return 0;
    }
}

int tngrt_launch_result_clash(const TngrtBundleDesc *desc, int *a, int *b, char *file, size_t len)
{
    int n = desc->noutputs + desc->ninputs;
    for (int i = 0; i < n; i++) {
        const char *ni = tngrt_launch_result_name(desc, i);
        for (int j = 0; ni && j < i; j++) {
            const char *nj = tngrt_launch_result_name(desc, j);
            if (!nj || !launch__same_file(ni, nj))
                continue;
            *a = i;
            *b = j;
            if (len > 0) {
                size_t k = 0;
                for (const char *c = ni; *c && k + 1 < len; c++)
                    file[k++] = launch__name_char(*c) ? *c : '_';
                file[k] = '\0';
                launch__append(file, len, ".npy");
            }
            return 1;
        }
    }
    return 0;
}

int tngrt_launch_check_trace(TngrtLaunch *self, const char *trace)
{
    const char *slash = trace ? strrchr(trace, '/') : NULL;
    char *dir;
    int ok;
    if (trace && launch__is_dir(trace))
        return launch__fail(self, TNGRT_BAD_INPUT, "--trace '%s' is a directory", trace);
    if (!slash || slash == trace)
        return 0;
    dir = malloc((size_t)(slash - trace) + 1);
    if (!dir)
        return launch__fail(self, TNGRT_FAILED, "out of memory");
    memcpy(dir, trace, (size_t)(slash - trace));
    dir[slash - trace] = '\0';
    ok = launch__is_dir(dir);
    free(dir);
    return ok ? 0 : launch__fail(self, TNGRT_BAD_INPUT, "--trace '%s': no such directory", trace);
}

int tngrt_launch_make_out_dir(TngrtLaunch *self, const char *dir)
{
    struct stat st;
    size_t n = strlen(dir) + 1;
    free(self->out_dir);
    if (!(self->out_dir = malloc(n)))
        return launch__fail(self, TNGRT_FAILED, "out of memory");
    memcpy(self->out_dir, dir, n);
    if (stat(dir, &st) == 0)
        return S_ISDIR(st.st_mode) ? 0 : launch__fail(self, TNGRT_BAD_INPUT,
                                                      "--out-dir '%s': not a directory", dir);
    if (errno != ENOENT || mkdir(dir, 0777) != 0)
        return launch__fail(self, TNGRT_BAD_INPUT, "--out-dir '%s': cannot create it: %s", dir,
                            strerror(errno));
    self->made_out_dir = 1;
    return 0;
}

int tngrt_launch_check_result_paths(TngrtLaunch *self)
{
    const TngrtBundleDesc *d = self->desc;
    int rc = 0;
    for (int k = 0; k < d->noutputs + d->ninputs && rc == 0; k++) {
        const char *name = tngrt_launch_result_name(d, k);
        char *path = name ? launch__result_path(self->out_dir, name) : NULL;
        if (name && !path)
            rc = launch__fail(self, TNGRT_FAILED, "out of memory");
        else if (path && launch__is_dir(path))
            rc = launch__fail(self, TNGRT_BAD_INPUT, "%s: is a directory", path);
        free(path);
    }
    return rc;
}

/* Adds a file to write: dst, its final path (malloc'd, owned from now
 * on), and room for the name of its temporary file (made by
 * tngrt_npy_write_temp or tngrt_trace_write_temp), which is returned
 * (NULL: out of memory; *cap set to its size). */
static char *launch__add_file(TngrtLaunch *self, char *dst, size_t *cap)
{
    size_t n = dst ? strlen(dst) + TNGRT_TEMP_EXTRA : 0;
    char *tmp = dst ? malloc(n) : NULL;
    if (!tmp) {
        free(dst);
        return NULL;
    }
    tmp[0] = '\0';
    *cap = n;
    self->dst[self->nfiles] = dst;
    self->tmp[self->nfiles++] = tmp;
    return tmp;
}

void tngrt_launch_set_widen(TngrtLaunch *self, int widen)
{
    self->widen = widen != 0;
}

/* Writes the region shape of t (cropped, made dense; bf16 and f16
 * widened to float32 with widen set) under the temporary name of
 * <dir>/<name>.npy. */
static int launch__write_result(TngrtLaunch *self, const char *name, const TngrtTensor *t,
                                const int64_t *shape)
{
    TngrtTensor *dense;
    TngrtError err;
    size_t cap = 0;
    char *tmp = launch__add_file(self, launch__result_path(self->out_dir, name), &cap);
    int rc = 0;
    if (!tmp)
        return launch__fail(self, TNGRT_FAILED, "out of memory");
    if (!(dense = tngrt_tensor_new(t->dtype, t->ndim, shape, &err)))
        return launch__fail(self, TNGRT_FAILED, "%s", err.msg);
    launch__copy_region(dense->data, dense->strides, t->data, t->strides, t->ndim, shape,
                        tngrt_dtype_size(t->dtype));
    if (self->widen && (t->dtype == TNGRT_BF16 || t->dtype == TNGRT_F16)) {
        TngrtTensor *wide = tngrt_tensor_new(TNGRT_F32, t->ndim, shape, &err);
        if (!wide) {
            tngrt_tensor_delete(dense);
            return launch__fail(self, TNGRT_FAILED, "%s", err.msg);
        }
        tngrt_half_to_f32(t->dtype, dense->data, wide->data, (size_t)tngrt_tensor_numel(wide));
        tngrt_tensor_delete(dense);
        dense = wide;
    }
    if (tngrt_npy_write_temp(self->dst[self->nfiles - 1], dense, tmp, cap, &err) != 0)
        rc = launch__fail(self, TNGRT_BAD_INPUT, "%s (no output was written)", err.msg);
    tngrt_tensor_delete(dense);
    return rc;
}

/* Writes output o, cropping the dims of padded symbols; refuses an output
 * view that cannot be read safely. */
static int launch__write_output(TngrtLaunch *self, int o)
{
    const TngrtSigTensor *s = &self->desc->outputs[o];
    const TngrtTensor *t = &self->outs[o];
    int64_t shape[TNGRT_MAX_DIMS];
    int ok = t->ndim >= 0 && t->ndim <= TNGRT_MAX_DIMS && tngrt_dtype_size(t->dtype) != 0;
    for (int k = 0; ok && k < t->ndim; k++)
        ok = t->shape[k] >= 0;
    if (!ok || (!t->data && tngrt_tensor_numel(t) > 0))
        return launch__fail(self, TNGRT_FAILED, "output '%s': the bundle returned a malformed "
                            "tensor", s->name);
    for (int k = 0; k < t->ndim; k++) {
        int sym = k < s->ndim ? s->dims[k].sym : -1;
        shape[k] = t->shape[k];
        if (sym >= 0 && self->is_padded[sym] && self->real[sym] < shape[k])
            shape[k] = self->real[sym];
    }
    return launch__write_result(self, s->name, t, shape);
}

int tngrt_launch_write_results(TngrtLaunch *self, const TngrtTrace *trace, const char *trace_path)
{
    const TngrtBundleDesc *d = self->desc;
    TngrtError err;
    char *tmp, *dst;
    size_t cap = 0;
    int rc;
    self->err[0] = '\0';
    for (int o = 0; o < d->noutputs; o++)
        if ((rc = launch__write_output(self, o)) != 0)
            return rc;
    for (int i = 0; i < d->ninputs; i++)
        if ((d->inputs[i].flags & TNGRT_SIG_UPDATED)
            && (rc = launch__write_result(self, d->inputs[i].name, &self->run_in[i],
                                          self->given[i]->shape)) != 0)
            return rc;
    if (trace) {
        dst = malloc(strlen(trace_path) + 1);
        if (dst)
            strcpy(dst, trace_path);
        if (!(tmp = launch__add_file(self, dst, &cap)))
            return launch__fail(self, TNGRT_FAILED, "out of memory");
        if (tngrt_trace_write_temp(trace, trace_path, d->stream_names, tmp, cap, &err) != 0)
            return launch__fail(self, TNGRT_BAD_INPUT, "%s (no output was written)", err.msg);
    }
    return 0;
}

int tngrt_launch_file_count(const TngrtLaunch *self)
{
    return self->nfiles;
}

const char *tngrt_launch_file(const TngrtLaunch *self, int k)
{
    return k >= 0 && k < self->nfiles ? self->dst[k] : NULL;
}

int tngrt_launch_install(TngrtLaunch *self)
{
    TngrtError err;
    if (tngrt_files_install(self->tmp, self->dst, self->nfiles, &err) != 0)
        return launch__fail(self, TNGRT_BAD_INPUT, "%s (no output was written)", err.msg);
    self->installed = 1;
    return 0;
}

void tngrt_launch_print_shape(FILE *f, const TngrtBundleDesc *desc, const TngrtSigTensor *t)
{
    fputc('[', f);
    for (int k = 0; k < t->ndim; k++) {
        int s = t->dims[k].sym;
        if (k)
            fputc(',', f);
        if (s >= 0)
            fputs(desc->syms[s].name, f);
        else if (s == -2)
            fputc('?', f);
        else
            fprintf(f, "%lld", (long long)t->dims[k].value);
    }
    fputc(']', f);
}

int tngrt_launch_weights_required(const TngrtBundleDesc *desc)
{
    int n = 0;
    for (int i = 0; i < desc->nweights; i++)
        n += !(desc->weights[i].flags & TNGRT_SIG_ZEROS);
    return n;
}

void tngrt_launch_list_weights(const TngrtBundleDesc *desc, FILE *f)
{
    fprintf(f, "weights of %s (%d):\n", desc->entry, desc->nweights);
    for (int i = 0; i < desc->nweights; i++) {
        const TngrtSigTensor *w = &desc->weights[i];
        fprintf(f, "  %s %s", w->name, tngrt_dtype_name(w->dtype));
        tngrt_launch_print_shape(f, desc, w);
        for (int k = 0; k < desc->naliases; k++)
            if (desc->aliases[k].weight == i)
                fprintf(f, "  (tied: %s)", desc->aliases[k].name);
        fprintf(f, "%s%s%s\n", w->flags & TNGRT_SIG_BUFFER ? "  (buffer)" : "",
                w->flags & TNGRT_SIG_UPDATED ? "  (updated by runs)" : "",
                w->flags & TNGRT_SIG_ZEROS ? "  (optional: zeros when the file leaves it out)" : "");
    }
    if (desc->nunread > 0)
        fprintf(f, "optional (state_dict keys the model never reads, accepted, not loaded):\n");
    for (int k = 0; k < desc->nunread; k++)
        fprintf(f, "  %s\n", desc->unread[k]);
}
