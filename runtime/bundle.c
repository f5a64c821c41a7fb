/*
 * bundle.c - the generic half of a model bundle (tngrt_bundle.h): checks
 * the generated descriptor once, owns the arena, the weight storage and
 * the executor, loads weights from safetensors, checks the inputs of a
 * run, selects the gear from their shapes, and runs the gear's stream
 * functions on the executor.
 *
 * Weights at scale: the weights file is mapped, not read, and
 * a weight whose bytes in it are aligned for its dtype is used in place:
 * the generated code reads weights through c->w[i], which points into the
 * mapping, kept until delete or the next load (safetensors.c maps a file
 * of 2 MiB or more at a 2 MiB-aligned address, advised MADV_HUGEPAGE, so
 * that the kernel may map its page cache in 2 MiB pages). A weight a run
 * updates, a misaligned one or an empty one gets a private copy, the
 * source pages dropped as copying goes. Float32 Linear weights the
 * descriptor marks for packing (up to BUNDLE_PACK_MAX each) are packed
 * straight from the mapping, and the source pages are dropped as packing
 * goes, so resident memory stays near the weights' size. Private copies,
 * packings and the arena are huge-page-backed blocks from 2 MiB
 * (blocks.c).
 *
 * Nothing here prints or exits; every failure leaves a one-line message
 * in the bundle (tngrt_bundle_last_error), or in a TngrtError for
 * tngrt_bundle_new.
 */
#include "internal.h"
#include "tngrt_bundle.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OpenBLAS's thread count, declared weak: libtngcrt_core (this file without
 * the CPU kernels) links with no BLAS, and there the symbol is NULL. Where
 * the kernels are linked, so is OpenBLAS, and the call is made. */
void openblas_set_num_threads(int num_threads) __attribute__((weak));
/* OpenBLAS's (pthread build) stop of its server threads, weak as above
 * and absent from its serial and OpenMP builds. */
void blas_thread_shutdown_(void) __attribute__((weak));
/* The GEMM's weight packing (kernels_gemm.c), weak for the same reason: a
 * bundle with TNGRT_SIG_PACK_LINEAR weights calls tngrt_kernel_linear_packed
 * (kernels_linear.c), whose object calls the GEMM, so that kernels_gemm.c's
 * object, which defines them, is linked. */
int64_t tngrt_gemm_packed_size(int64_t n, int64_t k) __attribute__((weak));
void tngrt_gemm_pack_weight_rows(float *dst, const void *w, TngrtDType dt, int64_t n, int64_t k,
                                 int64_t r0, int64_t rows) __attribute__((weak));

/* Alignment of the arena and of every weight block, in bytes. */
#define BUNDLE_ALIGN TNGRT_BLOCK_ALIGN
/* Room for a message; long gear lists are cut short with "...". */
#define BUNDLE_MSG TNGRT_BUNDLE_MSG
/* Rows of a Linear weight packed between two drops of their source pages
 * (a multiple of TNGRT_GEMM_NR, 32). */
#define BUNDLE_PACK_ROWS 2048
/* The bytes of a weight copied between two drops of their source pages. */
#define BUNDLE_COPY_BYTES ((size_t)32 << 20)
/* The largest weight packed at load, in bytes of its packing. A larger one
 * is read in place: products of fewer than 8 rows (decode) stream it once
 * at memory speed (kernels_gemm.c), 8 rows or more pack it per call, which
 * their arithmetic amortises. Packing 1 GiB at load costs several reads of
 * the file and a second copy of the weights (BENCHMARKS.md's targets: load
 * within 1.5x of one read, resident memory within 1.1x of the weights). */
#define BUNDLE_PACK_MAX ((uint64_t)64 << 20)
/* The largest block allocated (keeps size arithmetic far from overflow). */
#define BUNDLE_MAX_BYTES TNGRT_BLOCK_MAX

struct TngrtBundle {
    const TngrtBundleDesc *desc;
    unsigned char *arena;     /* BUNDLE_ALIGN-aligned, arena_cap bytes */
    size_t arena_cap;
    TngrtBlock arena_blk;     /* the arena's block */
    int huge;                 /* large blocks huge-page-backed (tngrt__huge_pages) */
    void **w;                 /* per weight: its bytes (wown[i], or in st aligned for its dtype) */
    void **wown;              /* per weight: a private block, zeroed until a load copies into it */
    TngrtBlock *wblk;         /* per weight: wown[i]'s block */
    unsigned char *wbind;     /* per weight: BIND_* (TNGRT_SIG_SHARED weights) */
    size_t *wbytes;           /* their sizes */
    float **wpack;            /* per weight: packed for the GEMM at load, or NULL */
    TngrtBlock *wpackblk;     /* per weight: wpack[i]'s block */
    TngrtSafetensors *st;     /* the loaded weights file or memory, NULL before a load */
    void **in;                /* input data of the current run */
    int64_t *sym;             /* symbol values of the selected gear */
    int64_t *off;             /* dynamic gears' arena offsets (max noff) */
    TngrtExec *exec;
    TngrtPar *par;            /* the large products' threads (par.c), NULL: none */
    char **unused;            /* tensors of the last weights file no weight uses (one block) */
    int nunused;
    int last_gear;
    char err[BUNDLE_MSG];     /* last failure, "" when the last call succeeded */
};

/* TngrtBundle.wbind: a shared state weight not yet bound (runs refuse),
 * keeping a copy of its own, or reading another bundle's. */
enum { BIND_NONE, BIND_OWN, BIND_SHARED };

/* ---- messages ---- */

/* A bounded string being appended to (always NUL-terminated). */
typedef struct Msg {
    char *buf;
    size_t cap, len;
} Msg;

static void msg_add(Msg *m, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (m->cap == 0 || m->len + 1 >= m->cap)
        return;
    va_start(ap, fmt);
    n = vsnprintf(m->buf + m->len, m->cap - m->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    m->len += (size_t)n;
    if (m->len >= m->cap)
        m->len = m->cap - 1;
}

/* Appends a shape as "[3,8]". */
static void msg_shape(Msg *m, int ndim, const int64_t *shape)
{
    msg_add(m, "[");
    for (int d = 0; d < ndim; d++)
        msg_add(m, d ? ",%lld" : "%lld", (long long)shape[d]);
    msg_add(m, "]");
}

/* Appends a signature shape as "[s0,4]" ("?" for an expression dim). */
static void msg_sig_shape(Msg *m, const TngrtBundleDesc *desc, const TngrtSigTensor *t)
{
    msg_add(m, "[");
    for (int d = 0; d < t->ndim; d++) {
        const TngrtDim *dim = &t->dims[d];
        if (d)
            msg_add(m, ",");
        if (dim->sym >= 0)
            msg_add(m, "%s", desc->syms[dim->sym].name);
        else if (dim->sym == -2)
            msg_add(m, "?");
        else
            msg_add(m, "%lld", (long long)dim->value);
    }
    msg_add(m, "]");
}

/* Appends the symbol values of gear g ("s0=4 s1=?"; "all static"). */
static void msg_gear(Msg *m, const TngrtBundleDesc *desc, int g)
{
    const int64_t *v = desc->gears[g].symval;
    if (desc->nsyms == 0) {
        msg_add(m, "all static");
        return;
    }
    for (int s = 0; s < desc->nsyms; s++) {
        msg_add(m, "%s%s=", s ? " " : "", desc->syms[s].name);
        if (v[s] == INT64_MIN)
            msg_add(m, "?");
        else
            msg_add(m, "%lld", (long long)v[s]);
    }
}

/* Appends "s0=1, s0=2, ..." for every gear, cut short when out of room. */
static void msg_gear_list(Msg *m, const TngrtBundleDesc *desc)
{
    for (int g = 0; g < desc->ngears; g++) {
        if (m->len + 64 >= m->cap) {
            msg_add(m, ", ... (%d more)", desc->ngears - g);
            return;
        }
        msg_add(m, g ? ", " : "");
        msg_gear(m, desc, g);
    }
}

/* Replaces the bundle's message. */
static void bundle__fail(TngrtBundle *self, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(self->err, sizeof self->err, fmt, ap);
    va_end(ap);
}

/* ---- the descriptor ---- */

/* Checks one signature tensor; min_sym is -1 (inputs), -2 (outputs), or
 * 0 for weights, whose dims must all be constants. */
static int desc__tensor(const TngrtBundleDesc *d, const TngrtSigTensor *t, const char *kind,
                        int min_sym, TngrtError *err)
{
    if (!t->name || t->ndim < 0 || t->ndim > TNGRT_MAX_DIMS || (t->ndim > 0 && !t->dims)
        || tngrt_dtype_size(t->dtype) == 0) {
        tngrt__fail(err, NULL, "bundle '%s': %s '%s': bad name, dtype or rank", d->name,
                    kind, t->name ? t->name : "?");
        return -1;
    }
    for (int k = 0; k < t->ndim; k++) {
        const TngrtDim *dim = &t->dims[k];
        int ok = min_sym == 0 ? dim->sym == -1 : dim->sym >= min_sym && dim->sym < d->nsyms;
        if (!ok || (dim->sym == -1 && dim->value < 0)) {
            tngrt__fail(err, NULL, "bundle '%s': %s '%s': bad dim %d", d->name, kind,
                        t->name, k);
            return -1;
        }
    }
    return 0;
}

/* Checks every tensor of a list of n. */
static int desc__tensors(const TngrtBundleDesc *d, const TngrtSigTensor *ts, int n,
                         const char *kind, int min_sym, TngrtError *err)
{
    if (n < 0 || (n > 0 && !ts)) {
        tngrt__fail(err, NULL, "bundle '%s': bad %s list", d->name, kind);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (desc__tensor(d, &ts[i], kind, min_sym, err) != 0)
            return -1;
    return 0;
}

/* Checks that every symbol names an input dim that uses it. */
static int desc__syms(const TngrtBundleDesc *d, TngrtError *err)
{
    if (d->nsyms < 0 || (d->nsyms > 0 && !d->syms)) {
        tngrt__fail(err, NULL, "bundle '%s': bad symbol list", d->name);
        return -1;
    }
    for (int s = 0; s < d->nsyms; s++) {
        const TngrtSym *sym = &d->syms[s];
        if (!sym->name || sym->input < 0 || sym->input >= d->ninputs || sym->dim < 0
            || sym->dim >= d->inputs[sym->input].ndim
            || d->inputs[sym->input].dims[sym->dim].sym != s) {
            tngrt__fail(err, NULL, "bundle '%s': symbol %d is bound by no input dim",
                        d->name, s);
            return -1;
        }
    }
    return 0;
}

/* Checks one gear. */
static int desc__gear(const TngrtBundleDesc *d, const TngrtGear *g, int i, TngrtError *err)
{
    int ok = (d->nsyms == 0 || g->symval) && g->streams && g->outputs && g->noff >= 0
             && (g->arena_bytes >= 0 || (g->arena_bytes == -1 && g->layout))
             && (uint64_t)(g->arena_bytes < 0 ? 0 : g->arena_bytes) <= BUNDLE_MAX_BYTES;
    for (int s = 0; ok && s < d->nsyms; s++)
        ok = g->symval[s] >= 0 || g->symval[s] == INT64_MIN;
    /* stream 0 always has a function; another stream's is NULL in a gear
     * where the plan left it no work (tngrt_exec_run gives it no hand-off) */
    ok = ok && d->nstreams > 0 && g->streams[0] != NULL;
    if (!ok)
        tngrt__fail(err, NULL, "bundle '%s': gear %d is malformed", d->name, i);
    return ok ? 0 : -1;
}

/* Checks what the generic code relies on in a generated descriptor. */
static int desc__check(const TngrtBundleDesc *d, TngrtError *err)
{
    if (!d || !d->name) {
        tngrt__fail(err, NULL, "bundle: no descriptor");
        return -1;
    }
    if (desc__tensors(d, d->inputs, d->ninputs, "input", -1, err) != 0
        || desc__tensors(d, d->weights, d->nweights, "weight", 0, err) != 0
        || desc__tensors(d, d->outputs, d->noutputs, "output", -2, err) != 0
        || desc__syms(d, err) != 0)
        return -1;
    if (d->naliases < 0 || (d->naliases > 0 && !d->aliases)) {
        tngrt__fail(err, NULL, "bundle '%s': bad weight aliases", d->name);
        return -1;
    }
    for (int i = 0; i < d->naliases; i++)
        if (!d->aliases[i].name || d->aliases[i].weight < 0 || d->aliases[i].weight >= d->nweights) {
            tngrt__fail(err, NULL, "bundle '%s': weight alias %d is malformed", d->name, i);
            return -1;
        }
    if (d->nunread < 0 || (d->nunread > 0 && !d->unread)) {
        tngrt__fail(err, NULL, "bundle '%s': bad unread keys", d->name);
        return -1;
    }
    for (int i = 0; i < d->nunread; i++)
        if (!d->unread[i]) {
            tngrt__fail(err, NULL, "bundle '%s': unread key %d is malformed", d->name, i);
            return -1;
        }
    if (d->nshared < 0 || (d->nshared > 0 && !d->shared)) {
        tngrt__fail(err, NULL, "bundle '%s': bad shared state rows", d->name);
        return -1;
    }
    for (int i = 0; i < d->nshared; i++) {
        const TngrtStateShare *r = &d->shared[i];
        if (!r->entry || !r->name || r->weight < 0 || r->weight >= d->nweights ||
            !(d->weights[r->weight].flags & TNGRT_SIG_SHARED)) {
            tngrt__fail(err, NULL, "bundle '%s': shared state row %d is malformed", d->name, i);
            return -1;
        }
    }
    if (d->ngears < 1 || !d->gears || d->nstreams < 1 || d->nevents < 0) {
        tngrt__fail(err, NULL, "bundle '%s': no gears, streams or bad event count", d->name);
        return -1;
    }
    for (int g = 0; g < d->ngears; g++)
        if (desc__gear(d, &d->gears[g], g, err) != 0)
            return -1;
    return 0;
}

/* ---- memory ---- */

/* The arena's block for bytes (at least BUNDLE_ALIGN), rounded up to a
 * multiple of BUNDLE_ALIGN (*cap_out); NULL when out of memory or too
 * large. Huge-page-backed from TNGRT_BLOCK_HUGE bytes (blocks.c): large
 * activations are streamed like weights. */
static unsigned char *bundle__arena_block(TngrtBundle *self, uint64_t bytes, TngrtBlock *b,
                                          size_t *cap_out)
{
    uint64_t cap = bytes < BUNDLE_ALIGN ? BUNDLE_ALIGN
                                        : (bytes + BUNDLE_ALIGN - 1) / BUNDLE_ALIGN * BUNDLE_ALIGN;
    unsigned char *p;
    if (bytes > BUNDLE_MAX_BYTES)
        return NULL;
    p = tngrt__block_alloc(b, cap, 0, self->huge);
    if (p)
        *cap_out = (size_t)cap;
    return p;
}

/* The byte size of a weight (its dims are constants, checked by desc__check). */
static int bundle__weight_bytes(const TngrtSigTensor *w, size_t *out, TngrtError *err)
{
    int64_t shape[TNGRT_MAX_DIMS];
    for (int k = 0; k < w->ndim; k++)
        shape[k] = w->dims[k].value;
    return tngrt_shape_nbytes(w->dtype, w->ndim, shape, out, w->name, err);
}

/* Allocates the arena (the largest static gear), the weight blocks and the
 * per-run arrays. */
static int bundle__alloc_all(TngrtBundle *self, TngrtError *err)
{
    const TngrtBundleDesc *d = self->desc;
    int64_t arena = 0, noff = 1;
    for (int g = 0; g < d->ngears; g++) {
        if (d->gears[g].arena_bytes > arena)
            arena = d->gears[g].arena_bytes;
        if (d->gears[g].noff > noff)
            noff = d->gears[g].noff;
    }
    self->huge = tngrt__huge_pages();
    self->arena = bundle__arena_block(self, (uint64_t)arena, &self->arena_blk, &self->arena_cap);
    self->w = calloc((size_t)d->nweights + 1, sizeof *self->w);
    self->wown = calloc((size_t)d->nweights + 1, sizeof *self->wown);
    self->wblk = calloc((size_t)d->nweights + 1, sizeof *self->wblk);
    self->wbytes = calloc((size_t)d->nweights + 1, sizeof *self->wbytes);
    self->wpack = calloc((size_t)d->nweights + 1, sizeof *self->wpack);
    self->wpackblk = calloc((size_t)d->nweights + 1, sizeof *self->wpackblk);
    self->wbind = calloc((size_t)d->nweights + 1, sizeof *self->wbind);
    self->in = calloc((size_t)d->ninputs + 1, sizeof *self->in);
    self->sym = calloc((size_t)d->nsyms + 1, sizeof *self->sym);
    self->off = calloc((size_t)noff, sizeof *self->off);
    if (!self->arena || !self->w || !self->wown || !self->wblk || !self->wbytes || !self->wpack ||
        !self->wpackblk ||
        !self->wbind || !self->in || !self->sym || !self->off) {
        tngrt__fail(err, NULL, "bundle '%s': out of memory (arena of %lld bytes)", d->name,
                    (long long)arena);
        return -1;
    }
    for (int i = 0; i < d->nweights; i++) {
        if (bundle__weight_bytes(&d->weights[i], &self->wbytes[i], err) != 0)
            return -1;
        self->w[i] = self->wown[i] =
            tngrt__block_alloc(&self->wblk[i], self->wbytes[i], 1, self->huge);
        if (!self->w[i]) {
            tngrt__fail(err, NULL, "bundle '%s': out of memory for weight '%s' (%zu bytes)",
                        d->name, d->weights[i].name, self->wbytes[i]);
            return -1;
        }
    }
    return 0;
}

int tngrt_bundle_new(TngrtBundle **out, const TngrtBundleDesc *desc, TngrtError *err)
{
    TngrtBundle *self;
    *out = NULL;
    if (desc__check(desc, err) != 0)
        return -1;
    self = calloc(1, sizeof *self);
    if (!self) {
        tngrt__fail(err, NULL, "bundle '%s': out of memory", desc->name);
        return -1;
    }
    self->desc = desc;
    self->last_gear = -1;
    if (bundle__alloc_all(self, err) != 0
        || tngrt_exec_new(&self->exec, desc->nstreams, desc->nevents, err) != 0) {
        tngrt_bundle_delete(self);
        return -1;
    }
    /* The bundle's threads are its parallelism: its streams' (where some
     * gear gives a stream other than 0 work) and the pool of the large
     * products that stream 0's thread runs (libtngcrt's GEMM on
     * TNGRT_THREADS threads, by default one per CPU of the affinity set;
     * par.c: no thread starts before a product that pays for it, and
     * decode's GEMVs split only where timing says it pays). The streams'
     * workers run the pool's tasks while they wait, in place of as many
     * pool threads (par.c, Guests); their own products run on their
     * thread (they have no current pool).
     * OpenBLAS, left for the rarer products (double, 8-63 rows of an
     * operand that is not a weight, attention's fallback), runs on the
     * caller's thread: its idle threads poll with sched_yield for about
     * 0.1 s after each call they take part in, and after they start, on
     * the cores the bundle's threads need (measured: the bmm of
     * bench/matmul on 2 threads took 7.4 ms while OpenBLAS's threads
     * polled, 3.6-4.0 ms with OPENBLAS_NUM_THREADS=1), so its thread count
     * is set to 1 and the threads its pthread build started when it was
     * loaded are stopped (tngrt_bundle.h). */
    self->par = tngrt__par_new(tngrt__threads_env());
    tngrt__exec_set_pool(self->exec, self->par);
    if (openblas_set_num_threads)
        openblas_set_num_threads(1);
    if (openblas_set_num_threads && blas_thread_shutdown_)
        blas_thread_shutdown_();
    *out = self;
    return 0;
}

void tngrt_bundle_delete(TngrtBundle *self)
{
    if (!self)
        return;
    tngrt_exec_delete(self->exec);
    tngrt__par_delete(self->par);
    if (self->wblk)
        for (int i = 0; i < self->desc->nweights; i++)
            tngrt__block_free(&self->wblk[i]);
    if (self->wpackblk)
        for (int i = 0; i < self->desc->nweights; i++)
            tngrt__block_free(&self->wpackblk[i]);
    tngrt_safetensors_close(self->st);
    free(self->wpack);
    free(self->w);
    free(self->wown);
    free(self->wblk);
    free(self->wpackblk);
    free(self->wbind);
    free(self->wbytes);
    free(self->in);
    free(self->sym);
    free(self->off);
    tngrt__block_free(&self->arena_blk);
    free(self->unused);
    free(self);
}

/* ---- weights ---- */

/* Finds weight i in st and checks its dtype and shape; fills *view. */
static int bundle__find_weight(TngrtBundle *self, const TngrtSafetensors *st,
                               const char *path, int i, TngrtTensor *view)
{
    const TngrtSigTensor *w = &self->desc->weights[i];
    char want[256], got[256];
    Msg mw = {want, sizeof want, 0}, mg = {got, sizeof got, 0};
    int same;
    TngrtError e;
    if (tngrt_safetensors_find(st, tngrt_desc_weight_key(self->desc, st, i), view, &e) != 0) {
        if (w->flags & TNGRT_SIG_ZEROS) {   /* state that starts at zeros: view->data NULL */
            memset(view, 0, sizeof *view);
            return 0;
        }
        bundle__fail(self, "%s: weight '%s' is missing", path, w->name);
        return -1;
    }
    if (view->dtype != w->dtype) {
        bundle__fail(self, "%s: weight '%s' has dtype %s, the model expects %s", path,
                     w->name, tngrt_dtype_name(view->dtype), tngrt_dtype_name(w->dtype));
        return -1;
    }
    same = view->ndim == w->ndim && view->nbytes == self->wbytes[i];
    for (int k = 0; same && k < w->ndim; k++)
        same = view->shape[k] == w->dims[k].value;
    if (!same) {
        msg_shape(&mg, view->ndim, view->shape);
        msg_sig_shape(&mw, self->desc, w);
        bundle__fail(self, "%s: weight '%s' has shape %s, the model expects %s", path,
                     w->name, got, want);
        return -1;
    }
    return 0;
}

const char *tngrt_desc_weight_key(const TngrtBundleDesc *desc, const TngrtSafetensors *st, int i)
{
    const char *own = desc->weights[i].name;
    TngrtTensor view;
    TngrtError e;
    if (desc->naliases == 0 || tngrt_safetensors_find(st, own, &view, &e) == 0)
        return own;
    for (int k = 0; k < desc->naliases; k++)
        if (desc->aliases[k].weight == i && tngrt_safetensors_find(st, desc->aliases[k].name, &view, &e) == 0)
            return desc->aliases[k].name;
    return own;
}

/* The index of desc's weight named name (its own key, not an alias), or -1. */
static int desc__weight_named(const TngrtBundleDesc *desc, const char *name)
{
    for (int i = 0; i < desc->nweights; i++)
        if (strcmp(desc->weights[i].name, name) == 0)
            return i;
    return -1;
}

int tngrt_desc_is_weight_key(const TngrtBundleDesc *desc, const char *name)
{
    if (desc__weight_named(desc, name) >= 0)
        return 1;
    for (int k = 0; k < desc->naliases; k++)
        if (strcmp(desc->aliases[k].name, name) == 0)
            return 1;
    return 0;
}

int tngrt_desc_is_state_key(const TngrtBundleDesc *desc, const char *name)
{
    if (tngrt_desc_is_weight_key(desc, name))
        return 1;
    for (int k = 0; k < desc->nunread; k++)
        if (strcmp(desc->unread[k], name) == 0)
            return 1;
    return 0;
}

/* Marks in used[] (one flag per tensor of st) the tensor named name, when
 * st has one. */
static void bundle__mark(const TngrtSafetensors *st, const char *name, unsigned char *used)
{
    int i = tngrt__safetensors_index(st, name);
    if (i >= 0)
        used[i] = 1;
}

/* Replaces self->unused with the tensors of st that are no state_dict key
 * of the module (a weight, an alias of one, or a key the model never
 * reads; file order), in one block: the pointers, then the names. Each key
 * of the descriptor is looked up in st's index, so the work is
 * O((keys + tensors) log tensors), whatever the file holds. */
static int bundle__note_unused(TngrtBundle *self, const TngrtSafetensors *st, const char *path)
{
    const TngrtBundleDesc *d = self->desc;
    int n = 0, count = tngrt_safetensors_count(st);
    size_t bytes = 0;
    char **list, *at;
    unsigned char *used = calloc((size_t)count + 1, 1);
    if (!used) {
        bundle__fail(self, "%s: out of memory", path);
        return -1;
    }
    for (int i = 0; i < d->nweights; i++)
        bundle__mark(st, d->weights[i].name, used);
    for (int k = 0; k < d->naliases; k++)
        bundle__mark(st, d->aliases[k].name, used);
    for (int k = 0; k < d->nunread; k++)
        bundle__mark(st, d->unread[k], used);
    for (int i = 0; i < count; i++)
        if (!used[i]) {
            n++;
            bytes += strlen(tngrt_safetensors_name(st, i)) + 1;
        }
    list = malloc((size_t)n * sizeof *list + bytes + 1);
    if (!list) {
        free(used);
        bundle__fail(self, "%s: out of memory", path);
        return -1;
    }
    at = (char *)(list + n);
    n = 0;
    for (int i = 0; i < count; i++) {
        const char *name = tngrt_safetensors_name(st, i);
        if (used[i])
            continue;
        list[n++] = at;
        strcpy(at, name);
        at += strlen(name) + 1;
    }
    free(used);
    free(self->unused);
    self->unused = list;
    self->nunused = n;
    return 0;
}

/* Runs fn(ctx, r, rows) over [0, total) rows step at a time (the last
 * piece shorter), and where src lies in st's mapping (st not NULL) drops
 * each piece's source pages once fn is done with them: row r starts
 * r * row_bytes into src. The copies and packings made at load hold their
 * result and one piece of the source this way (peak RSS near the weights'
 * size; the dropped pages fault back in if read again). */
static void bundle__pieces(const TngrtSafetensors *st, const void *src, int64_t total,
                           size_t row_bytes, int64_t step,
                           void (*fn)(void *ctx, int64_t r, int64_t rows), void *ctx)
{
    for (int64_t r = 0; r < total; r += step) {
        int64_t rows = total - r < step ? total - r : step;
        fn(ctx, r, rows);
        if (st)
            tngrt_safetensors_drop(st, (const unsigned char *)src + (size_t)r * row_bytes,
                                   (size_t)rows * row_bytes);
    }
}

/* Whether weight i of d is packed for the GEMM at load: marked
 * TNGRT_SIG_PACK_LINEAR (2-D, float32), never updated by a run, its
 * packing within BUNDLE_PACK_MAX, and the GEMM linked (libtngcrt_core has
 * none). A float16 or bfloat16 weight stays in place at two bytes an
 * element: few-row products (decode) widen it in registers as they read
 * it (tngrt_gemm_small_half), where a float32 packing would double the
 * bytes every step reads; more rows pack it a block at a time per call. */
static int bundle__packs(const TngrtBundleDesc *d, int i)
{
    const TngrtSigTensor *w = &d->weights[i];
    return (w->flags & TNGRT_SIG_PACK_LINEAR) && !(w->flags & (TNGRT_SIG_UPDATED | TNGRT_SIG_SHARED)) &&
           w->dtype == TNGRT_F32 &&
           w->ndim == 2 && w->dims[0].sym == -1 && w->dims[1].sym == -1 &&
           w->dims[0].value > 0 && w->dims[1].value > 0 && tngrt_gemm_packed_size &&
           tngrt_gemm_pack_weight_rows &&
           (uint64_t)tngrt_gemm_packed_size(w->dims[0].value, w->dims[1].value) <=
               BUNDLE_PACK_MAX / sizeof(float);
}

typedef struct BundlePackJob {
    float *dst;
    const void *src;
    TngrtDType dt;
    int64_t n, k;
} BundlePackJob;

static void bundle__pack_piece(void *ctx, int64_t r, int64_t rows)
{
    const BundlePackJob *j = ctx;
    tngrt_gemm_pack_weight_rows(j->dst, j->src, j->dt, j->n, j->k, r, rows);
}

/* Packs Linear weight i [n, k] from src (its bytes in the weights file st,
 * or in its private copy) for the GEMM's microkernel, once per load: a
 * Linear then reads its weight with no per-call packing. Rows are
 * packed BUNDLE_PACK_ROWS at a time, and where src is in st's mapping each
 * block's source pages are dropped once packed (they fault back in if read
 * again), so packing holds the packed copy and one block of the source.
 * Returns the packing (its block in *blk), or NULL when it cannot be
 * allocated (the kernel then packs per call). */
static float *bundle__pack(const TngrtBundle *self, int i, const void *src,
                           const TngrtSafetensors *st, TngrtBlock *blk)
{
    const TngrtSigTensor *w = &self->desc->weights[i];
    int64_t n = w->dims[0].value, k = w->dims[1].value, size = tngrt_gemm_packed_size(n, k);
    BundlePackJob j = {NULL, src, w->dtype, n, k};
    if ((w->dtype != TNGRT_F32 && w->dtype != TNGRT_F16 && w->dtype != TNGRT_BF16) ||
        (uint64_t)size > SIZE_MAX / sizeof(float) ||
        !(j.dst = tngrt__block_alloc(blk, (uint64_t)size * sizeof(float), 0, self->huge)))
        return NULL;
    bundle__pieces(st, src, n, (size_t)k * tngrt_dtype_size(w->dtype), BUNDLE_PACK_ROWS,
                   bundle__pack_piece, &j);
    return j.dst;
}

/* ---- npu_weight_quant_batchmatmul's int8 weights packed at load ---- */

/* The packing of kernels_q8.c, weak as the GEMM's above (a bundle with
 * TNGRT_SIG_PACK_Q8 weights calls tngrt_kernel_weight_quant_matmul_packed,
 * whose object defines them). */
int64_t tngrt_q8_packed_size(int64_t k, int64_t n) __attribute__((weak));
void tngrt_q8_pack_rows(int8_t *dst, const int8_t *w, int64_t k, int64_t n, int64_t r0,
                        int64_t rows) __attribute__((weak));

/* Whether weight i of d is packed at load in column panels
 * (tngrt_q8_pack_rows): marked TNGRT_SIG_PACK_Q8 (2-D int8 [k, n] of
 * static dims), never updated by a run, and kernels_q8.c linked. */
static int bundle__packs_q8(const TngrtBundleDesc *d, int i)
{
    const TngrtSigTensor *w = &d->weights[i];
    return (w->flags & TNGRT_SIG_PACK_Q8) && !(w->flags & (TNGRT_SIG_UPDATED | TNGRT_SIG_SHARED)) &&
           w->dtype == TNGRT_I8 && w->ndim == 2 && w->dims[0].sym == -1 && w->dims[1].sym == -1 &&
           w->dims[0].value > 0 && w->dims[1].value > 0 && tngrt_q8_packed_size && tngrt_q8_pack_rows;
}

typedef struct BundleQ8Job {
    int8_t *dst;
    const int8_t *src;
    int64_t k, n;
} BundleQ8Job;

static void bundle__pack_q8_piece(void *ctx, int64_t r, int64_t rows)
{
    const BundleQ8Job *j = ctx;
    tngrt_q8_pack_rows(j->dst, j->src, j->k, j->n, r, rows);
}

/* Packs int8 weight i [k, n] from src (in st's mapping, or in its private
 * copy when st is NULL) into a block of blk (huge-page-backed as the
 * bundle's other large blocks), about 4 MiB of rows at a time, dropping
 * each block's source pages once packed: the packing takes the place of
 * the file's bytes in memory (they fault back in only if read again), with
 * one block of them resident while it is made. Returns the packing (int8
 * bytes, kept in wpack), or NULL when it cannot be allocated (the kernel
 * then reads src in place). */
static float *bundle__pack_q8(const TngrtBundle *self, int i, const void *src,
                              const TngrtSafetensors *st, TngrtBlock *blk)
{
    const TngrtSigTensor *w = &self->desc->weights[i];
    int64_t k = w->dims[0].value, n = w->dims[1].value, size = tngrt_q8_packed_size(k, n);
    BundleQ8Job j = {NULL, src, k, n};
    if (size <= 0 || !(j.dst = tngrt__block_alloc(blk, (uint64_t)size, 0, self->huge)))
        return NULL;
    bundle__pieces(st, src, k, (size_t)n, n >= ((int64_t)1 << 22) ? 1 : ((int64_t)1 << 22) / n,
                   bundle__pack_q8_piece, &j);
    return (float *)(void *)j.dst;
}

/* Whether weight i's bytes at data can be read in place: a weight no run
 * updates, not empty, aligned for its dtype (what C requires of a typed
 * access; kernels assume no more: vector loads are unaligned ones). A
 * safetensors writer pads the header to 8 bytes, so every tensor of an
 * ordinary file qualifies; BUNDLE_ALIGN (64) would only spare a few cache
 * line splits. */
static int bundle__in_place(const TngrtBundleDesc *d, int i, const void *data, size_t nbytes)
{
    return !(d->weights[i].flags & (TNGRT_SIG_UPDATED | TNGRT_SIG_SHARED)) && nbytes > 0 &&
           (uintptr_t)data % tngrt_dtype_size(d->weights[i].dtype) == 0;
}

typedef struct BundleCopyJob {
    unsigned char *dst;
    const unsigned char *src;
} BundleCopyJob;

static void bundle__copy_piece(void *ctx, int64_t at, int64_t len)
{
    const BundleCopyJob *j = ctx;
    memcpy(j->dst + at, j->src + at, (size_t)len);
}

/* Copies n bytes of a weight from src (in st) to dst BUNDLE_COPY_BYTES at
 * a time, dropping each piece's source pages once copied. */
static void bundle__copy(const TngrtSafetensors *st, void *dst, const void *src, size_t n)
{
    BundleCopyJob j = {dst, src};
    bundle__pieces(st, src, (int64_t)n, 1, BUNDLE_COPY_BYTES, bundle__copy_piece, &j);
}

/* Loads every weight from st (opened from what, the name for messages),
 * taking st: on success the bundle keeps it (in-place weights point into
 * it) and the previous one is closed; on failure st is closed and the
 * previous weights stay as they were. */
static int bundle__load(TngrtBundle *self, TngrtSafetensors *st, const char *what)
{
    const TngrtBundleDesc *d = self->desc;
    TngrtTensor *views;
    int rc = -1;
    views = calloc((size_t)d->nweights + 1, sizeof *views);
    if (!views) {
        bundle__fail(self, "%s: out of memory", what);
        goto out;
    }
    for (int i = 0; i < d->nweights; i++)
        if (bundle__find_weight(self, st, what, i, &views[i]) != 0)
            goto out;
    if (bundle__note_unused(self, st, what) != 0)
        goto out;
    /* every weight checked: only now change the stored values (nothing
     * below fails: a packing that cannot be allocated leaves the weight
     * unpacked) */
    for (int i = 0; i < d->nweights; i++) {
        const void *src = views[i].data;
        int mapped_src = 0;
        tngrt__block_free(&self->wpackblk[i]);
        self->wpack[i] = NULL;
        if (!src && (d->weights[i].flags & TNGRT_SIG_ZEROS)) {   /* not in the file: zeros */
            if (self->wbind[i] != BIND_SHARED)
                self->w[i] = self->wown[i];
            if (self->wbytes[i] > 0)
                memset(self->w[i], 0, self->wbytes[i]);
            continue;
        }
        if (bundle__in_place(d, i, src, self->wbytes[i])) {
            self->w[i] = (void *)(uintptr_t)src;   /* read only: no run writes it */
            mapped_src = 1;
            if (!bundle__packs(d, i) && !bundle__packs_q8(d, i))   /* packing reads (and drops) it */
                tngrt_safetensors_populate(st, src, self->wbytes[i]);
        } else {
            if (self->wbind[i] != BIND_SHARED)   /* a bound one writes the shared copy */
                self->w[i] = self->wown[i];
            bundle__copy(st, self->w[i], src, self->wbytes[i]);
        }
        if (bundle__packs(d, i))
            self->wpack[i] =
                bundle__pack(self, i, self->w[i], mapped_src ? st : NULL, &self->wpackblk[i]);
        else if (bundle__packs_q8(d, i))
            self->wpack[i] =
                bundle__pack_q8(self, i, self->w[i], mapped_src ? st : NULL, &self->wpackblk[i]);
    }
    tngrt_safetensors_close(self->st);
    self->st = st;
    st = NULL;
    rc = 0;
out:
    free(views);
    tngrt_safetensors_close(st);
    return rc;
}

int tngrt_bundle_load_weights(TngrtBundle *self, const char *path)
{
    TngrtSafetensors *st;
    TngrtError e;
    self->err[0] = '\0';
    if (!path) {
        bundle__fail(self, "no weights file given");
        return -1;
    }
    if (tngrt_weights_open(path, &st, &e) != 0) {
        bundle__fail(self, "%s", e.msg);
        return -1;
    }
    return bundle__load(self, st, path);
}

int tngrt_bundle_load_weights_memory(TngrtBundle *self, const void *data, size_t len,
                                     const char *name)
{
    TngrtSafetensors *st;
    TngrtError e;
    self->err[0] = '\0';
    if (!name)
        name = "<memory>";
    if (!data) {
        bundle__fail(self, "%s: no weights given (NULL)", name);
        return -1;
    }
    if (tngrt_weights_open_memory(data, len, name, &st, &e) != 0) {
        bundle__fail(self, "%s", e.msg);
        return -1;
    }
    return bundle__load(self, st, name);
}

/* ---- inputs and gears ---- */

/* Replaces the message in msg[0..len) (nothing when len is 0). */
static void desc__fail(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;
    if (len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
}

/* Checks that t is dense C-order with nbytes matching its shape and data. */
static int desc__check_dense(const char *name, const TngrtTensor *t, char *msg, size_t len)
{
    size_t nbytes;
    int64_t stride = 1;
    TngrtError e;
    if (tngrt_shape_nbytes(t->dtype, t->ndim, t->shape, &nbytes, "shape", &e) != 0) {
        desc__fail(msg, len, "input '%s': %s", name, e.msg);
        return -1;
    }
    if (t->nbytes != nbytes || (nbytes > 0 && !t->data)) {
        desc__fail(msg, len, "input '%s': holds %zu bytes at %s, its shape needs %zu", name,
                   t->nbytes, t->data ? "its data" : "NULL", nbytes);
        return -1;
    }
    for (int k = t->ndim - 1; k >= 0 && nbytes > 0; k--) {
        if (t->shape[k] > 1 && t->strides[k] != stride) {
            desc__fail(msg, len, "input '%s': not C-contiguous (dim %d has stride %lld, "
                       "expected %lld)", name, k, (long long)t->strides[k],
                       (long long)stride);
            return -1;
        }
        stride *= t->shape[k];
    }
    return 0;
}

/* Checks t's shape against TNGRT_MAX_BYTES: every dim at most that, and
 * the product of the dims, each counted as at least 1, times the element
 * size too (the compiler's limit: an empty tensor cannot hide a huge dim,
 * and no size the generated code computes from it overflows). */
static int desc__check_size(const char *name, const TngrtTensor *t, char *msg, size_t len)
{
    int64_t bound = (int64_t)tngrt_dtype_size(t->dtype);
    char got[256];
    Msg mg = {got, sizeof got, 0};
    for (int k = 0; k < t->ndim; k++) {
        int64_t n = t->shape[k] > 1 ? t->shape[k] : 1;
        if (t->shape[k] < 0 || bound > TNGRT_MAX_BYTES / n) {
            msg_shape(&mg, t->ndim, t->shape);
            desc__fail(msg, len, "input '%s': shape %s %s", name, got,
                       t->shape[k] < 0 ? "has a negative dim"
                                       : "passes 2^48 bytes (a 0 dim counting as 1), the most a "
                                         "bundle handles");
            return -1;
        }
        bound *= n;
    }
    return 0;
}

/* Checks input i's dtype, rank, size, density and constant dims. */
static int desc__check_input(const TngrtBundleDesc *d, int i, const TngrtTensor *t, char *msg,
                             size_t len)
{
    const TngrtSigTensor *s = &d->inputs[i];
    char want[256], got[256];
    Msg mw = {want, sizeof want, 0}, mg = {got, sizeof got, 0};
    /* every run checks its inputs: messages are formatted only on failure */
    if (t->dtype != s->dtype) {
        desc__fail(msg, len, "input '%s': dtype %s, expected %s", s->name,
                   tngrt_dtype_name(t->dtype), tngrt_dtype_name(s->dtype));
        return -1;
    }
    if (t->ndim != s->ndim) {
        msg_shape(&mg, t->ndim < 0 || t->ndim > TNGRT_MAX_DIMS ? 0 : t->ndim, t->shape);
        msg_sig_shape(&mw, d, s);
        desc__fail(msg, len, "input '%s': %d dims %s, expected %d %s", s->name, t->ndim, got,
                   s->ndim, want);
        return -1;
    }
    if (desc__check_size(s->name, t, msg, len) != 0 || desc__check_dense(s->name, t, msg, len) != 0)
        return -1;
    for (int k = 0; k < s->ndim; k++) {
        if (s->dims[k].sym == -1 && t->shape[k] != s->dims[k].value) {
            msg_shape(&mg, t->ndim, t->shape);
            msg_sig_shape(&mw, d, s);
            desc__fail(msg, len, "input '%s': shape %s, expected %s", s->name, got, want);
            return -1;
        }
    }
    return 0;
}

/* Checks the input count (TNGRT_FAILED: the caller's mistake) and every
 * input (TNGRT_BAD_INPUT). */
static int desc__check_inputs(const TngrtBundleDesc *d, const TngrtTensor *inputs, int ninputs,
                              char *msg, size_t len)
{
    if (ninputs != d->ninputs || (ninputs > 0 && !inputs)) {
        desc__fail(msg, len, "%s takes %d inputs, got %d", d->entry ? d->entry : d->name,
                   d->ninputs, inputs ? ninputs : 0);
        return TNGRT_FAILED;
    }
    for (int i = 0; i < ninputs; i++)
        if (desc__check_input(d, i, &inputs[i], msg, len) != 0)
            return TNGRT_BAD_INPUT;
    return 0;
}

/* Whether the (checked) inputs' shapes match gear g; fills vals[0..nsyms)
 * with its symbol values, unbound ones taken from the inputs. */
static int desc__match(const TngrtBundleDesc *d, int g, const TngrtTensor *in, int64_t *vals)
{
    for (int s = 0; s < d->nsyms; s++)
        vals[s] = d->gears[g].symval[s];
    for (int i = 0; i < d->ninputs; i++) {
        for (int k = 0; k < d->inputs[i].ndim; k++) {
            int s = d->inputs[i].dims[k].sym;
            if (s < 0)
                continue;
            if (vals[s] == INT64_MIN)
                vals[s] = in[i].shape[k];
            else if (vals[s] != in[i].shape[k])
                return 0;
        }
    }
    return 1;
}

/* The message of inputs that match no gear. */
static void desc__no_gear(const TngrtBundleDesc *d, const TngrtTensor *in, char *msg, size_t len)
{
    Msg m = {msg, len, 0};
    int listed = 0;
    if (len > 0)
        msg[0] = '\0';
    msg_add(&m, "input shapes");
    for (int i = 0; i < d->ninputs; i++) {
        int dynamic = 0;
        for (int k = 0; k < d->inputs[i].ndim; k++)
            dynamic |= d->inputs[i].dims[k].sym >= 0;
        if (!dynamic || m.len + 64 >= m.cap)
            continue;
        msg_add(&m, "%s %s=", listed++ ? "," : "", d->inputs[i].name);
        msg_shape(&m, in[i].ndim, in[i].shape);
    }
    msg_add(&m, " match no gear; gears: ");
    msg_gear_list(&m, d);
}

/* Checks the inputs and selects the first matching gear (symbol values in
 * sym); returns its index, or TNGRT_FAILED or TNGRT_BAD_INPUT. */
static int desc__select(const TngrtBundleDesc *d, const TngrtTensor *inputs, int ninputs,
                        int64_t *sym, char *msg, size_t len)
{
    int rc = desc__check_inputs(d, inputs, ninputs, msg, len);
    if (rc != 0)
        return rc;
    for (int g = 0; g < d->ngears; g++)
        if (desc__match(d, g, inputs, sym))
            return g;
    desc__no_gear(d, inputs, msg, len);
    return TNGRT_BAD_INPUT;
}

int tngrt_desc_check(const TngrtBundleDesc *desc, TngrtError *err)
{
    return desc__check(desc, err);
}

int tngrt_desc_check_inputs(const TngrtBundleDesc *desc, const TngrtTensor *inputs, int ninputs,
                            char *msg, size_t len)
{
    if (len > 0)
        msg[0] = '\0';
    return desc__check_inputs(desc, inputs, ninputs, msg, len) != 0 ? -1 : 0;
}

int tngrt_desc_select(const TngrtBundleDesc *desc, const TngrtTensor *inputs, int ninputs,
                      int64_t *sym, char *msg, size_t len)
{
    int g;
    if (len > 0)
        msg[0] = '\0';
    g = desc__select(desc, inputs, ninputs, sym, msg, len);
    return g < 0 ? -1 : g;
}

void tngrt_desc_gear_str(const TngrtBundleDesc *desc, int gear, char *buf, size_t len)
{
    Msg m = {buf, len, 0};
    if (!buf || len == 0)
        return;
    buf[0] = '\0';
    if (gear < 0 || gear >= desc->ngears)
        msg_add(&m, "no gear %d", gear);
    else
        msg_gear(&m, desc, gear);
}

int tngrt_bundle_check_inputs(TngrtBundle *self, const TngrtTensor *inputs, int ninputs)
{
    return tngrt_desc_check_inputs(self->desc, inputs, ninputs, self->err, sizeof self->err);
}

int tngrt_bundle_select(TngrtBundle *self, const TngrtTensor *inputs, int ninputs)
{
    return tngrt_desc_select(self->desc, inputs, ninputs, self->sym, self->err, sizeof self->err);
}

/* ---- running ---- */

/* Makes the arena large enough for gear g (self->sym set): gears with
 * run-time dims check every shape and place their buffers (layout), and
 * the arena grows when needed. Returns 0, TNGRT_BAD_INPUT or
 * TNGRT_FAILED. */
static int bundle__arena_for(TngrtBundle *self, int g)
{
    const TngrtGear *gear = &self->desc->gears[g];
    int64_t bytes = 0;
    unsigned char *grown;
    size_t cap = 0;
    TngrtBlock blk;
    char gs[256];
    Msg m = {gs, sizeof gs, 0};
    if (gear->arena_bytes >= 0)
        return 0;   /* the arena was sized for every static gear */
    msg_gear(&m, self->desc, g);
    if (gear->layout(self->sym, self->off, &bytes) != 0 || bytes < 0) {
        msg_add(&m, ", bound:");
        for (int k = 0; k < self->desc->nsyms; k++)
            if (gear->symval[k] == INT64_MIN)
                msg_add(&m, " %s=%lld", self->desc->syms[k].name, (long long)self->sym[k]);
        bundle__fail(self, "gear %d (%s): the input shapes make a tensor or the arena larger than 2^48 "
                     "bytes, the most a bundle handles", g, gs);
        return TNGRT_BAD_INPUT;
    }
    if ((uint64_t)bytes <= self->arena_cap)
        return 0;
    grown = bundle__arena_block(self, (uint64_t)bytes, &blk, &cap);
    if (!grown) {
        bundle__fail(self, "gear %d (%s): out of memory growing the arena to %lld bytes", g,
                     gs, (long long)bytes);
        return TNGRT_FAILED;
    }
    tngrt__block_free(&self->arena_blk);   /* contents live for one run only: nothing to copy */
    self->arena_blk = blk;
    self->arena = grown;
    self->arena_cap = cap;
    return 0;
}

int tngrt_bundle_run(TngrtBundle *self, const TngrtTensor *inputs, int ninputs,
                     TngrtTensor *outputs, int noutputs)
{
    const TngrtBundleDesc *d = self->desc;
    TngrtRunCtx c;
    TngrtError e = {{0}, TNGRT_ERR_FAILURE};
    int g, rc;
    self->err[0] = '\0';
    if (noutputs != d->noutputs || (noutputs > 0 && !outputs)) {
        bundle__fail(self, "%s returns %d outputs, got room for %d",
                     d->entry ? d->entry : d->name, d->noutputs, outputs ? noutputs : 0);
        return TNGRT_FAILED;
    }
    for (int k = 0; k < d->nshared; k++)
        if (self->wbind[d->shared[k].weight] == BIND_NONE) {
            bundle__fail(self, "the state '%s' is shared with the bundle of %s (its '%s'): bind the two "
                         "with tngrt_bundle_share_state, or give this one a copy of its own with "
                         "tngrt_bundle_own_state", d->weights[d->shared[k].weight].name, d->shared[k].entry,
                         d->shared[k].name);
            return TNGRT_FAILED;
        }
    g = desc__select(d, inputs, ninputs, self->sym, self->err, sizeof self->err);
    if (g < 0)
        return g;
    if ((rc = bundle__arena_for(self, g)) != 0)
        return rc;
    for (int i = 0; i < ninputs; i++)
        self->in[i] = inputs[i].data;
    c.arena = self->arena;
    c.in = self->in;
    c.w = self->w;
    c.sym = self->sym;
    c.off = self->off;
    c.wpack = (const float *const *)self->wpack;
    TngrtPar *prev = tngrt__par_enter(self->par);
    rc = tngrt_exec_run(self->exec, d->gears[g].streams, &c, &e);
    tngrt__par_enter(prev);
    if (rc != 0) {
        bundle__fail(self, "%s", e.msg[0] ? e.msg : "a stream failed");
        return e.kind == TNGRT_ERR_BAD_INPUT ? TNGRT_BAD_INPUT : TNGRT_FAILED;
    }
    if (noutputs > 0)
        memset(outputs, 0, (size_t)noutputs * sizeof *outputs);
    d->gears[g].outputs(&c, outputs);
    self->last_gear = g;
    return 0;
}

/* ---- state shared between bundles ---- */

int tngrt_bundle_share_state(TngrtBundle *self, const TngrtBundle *owner)
{
    const TngrtBundleDesc *d = self->desc, *od;
    int bound = 0;
    self->err[0] = '\0';
    if (!owner || owner == self) {
        bundle__fail(self, "tngrt_bundle_share_state: %s", owner ? "a bundle shares no state with itself"
                                                                  : "no owner bundle");
        return -1;
    }
    od = owner->desc;
    /* check every row first: a failed call binds nothing */
    for (int k = 0; k < d->nshared; k++) {
        const TngrtStateShare *r = &d->shared[k];
        if (!od->entry || strcmp(r->entry, od->entry) != 0)
            continue;
        int j = desc__weight_named(od, r->name);
        if (j < 0 || od->weights[j].dtype != d->weights[r->weight].dtype ||
            owner->wbytes[j] != self->wbytes[r->weight] ||
            !(od->weights[j].flags & (TNGRT_SIG_UPDATED | TNGRT_SIG_SHARED))) {
            bundle__fail(self, "the state '%s' is shared with %s's '%s', which the bundle '%s' %s",
                         d->weights[r->weight].name, r->entry, r->name, od->name,
                         j < 0 ? "does not have" : od->weights[j].dtype != d->weights[r->weight].dtype ||
                         owner->wbytes[j] != self->wbytes[r->weight] ? "holds with another dtype or size"
                                                                     : "does not keep as state");
            return -1;
        }
        bound++;
    }
    if (bound == 0) {
        bundle__fail(self, "the bundle '%s' (%s) shares no state with the bundle '%s' (%s)", d->name,
                     d->entry ? d->entry : "?", od->name, od->entry ? od->entry : "?");
        return -1;
    }
    for (int k = 0; k < d->nshared; k++) {
        const TngrtStateShare *r = &d->shared[k];
        if (!strcmp(r->entry, od->entry)) {
            self->w[r->weight] = owner->w[desc__weight_named(od, r->name)];
            self->wbind[r->weight] = BIND_SHARED;
        }
    }
    return bound;
}

void tngrt_bundle_own_state(TngrtBundle *self)
{
    const TngrtBundleDesc *d = self->desc;
    for (int k = 0; k < d->nshared; k++) {
        int i = d->shared[k].weight;
        self->w[i] = self->wown[i];
        self->wbind[i] = BIND_OWN;
    }
}

/* ---- accessors ---- */

int tngrt_bundle_last_gear(const TngrtBundle *self)
{
    return self->last_gear;
}

void tngrt_bundle_gear_str(const TngrtBundle *self, int gear, char *buf, size_t len)
{
    tngrt_desc_gear_str(self->desc, gear, buf, len);
}

const TngrtBundleDesc *tngrt_bundle_desc(const TngrtBundle *self)
{
    return self->desc;
}

void tngrt_bundle_set_trace(TngrtBundle *self, TngrtTrace *trace)
{
    tngrt_exec_set_trace(self->exec, trace);
}

int tngrt_bundle_unused_count(const TngrtBundle *self)
{
    return self->nunused;
}

const char *tngrt_bundle_unused_name(const TngrtBundle *self, int i)
{
    return i >= 0 && i < self->nunused ? self->unused[i] : NULL;
}

const char *tngrt_bundle_last_error(const TngrtBundle *self)
{
    return self->err;
}
