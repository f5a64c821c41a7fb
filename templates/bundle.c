/*@tngc:banner@*/
/*
 * One model bundle (template of <name>.c).
 *
 * tngc replaces every "tngc_template" by the bundle's name and the marker
 * line "@tngc:body@" by the generated part: per gear, one straight-line
 * function per stream (kernel calls, event records and waits), one function
 * per super-kernel segment, the static kernels, the gear table and the
 * descriptor tngc_template__desc. Standing alone, the file compiles with an
 * empty descriptor in place of the body.
 */
#include "tngc_template.h"
#include "tngrt_kernels.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define TNGC_MAYBE_UNUSED __attribute__((unused))
#else
#define TNGC_MAYBE_UNUSED
#endif

/* Dims computed at run time (of symbols no gear binds, taken from the
 * input shapes), in checked int64 arithmetic: a result that does not fit,
 * a division by 0, or an operand already bad gives TNGC_DIM_BAD, which
 * tngc__size refuses, so a wrapped dim never reaches a kernel. Dims the
 * gear fixes are literals and never come here. */
#define TNGC_DIM_BAD INT64_MIN

TNGC_MAYBE_UNUSED static inline int64_t tngc__add(int64_t a, int64_t b)
{
    int64_t r;
    return a == TNGC_DIM_BAD || b == TNGC_DIM_BAD || __builtin_add_overflow(a, b, &r) ? TNGC_DIM_BAD : r;
}
TNGC_MAYBE_UNUSED static inline int64_t tngc__sub(int64_t a, int64_t b)
{
    int64_t r;
    return a == TNGC_DIM_BAD || b == TNGC_DIM_BAD || __builtin_sub_overflow(a, b, &r) ? TNGC_DIM_BAD : r;
}
TNGC_MAYBE_UNUSED static inline int64_t tngc__mul(int64_t a, int64_t b)
{
    int64_t r;
    return a == TNGC_DIM_BAD || b == TNGC_DIM_BAD || __builtin_mul_overflow(a, b, &r) ? TNGC_DIM_BAD : r;
}
/* Floor division (a // b). */
TNGC_MAYBE_UNUSED static inline int64_t tngc__floordiv(int64_t a, int64_t b)
{
    if (a == TNGC_DIM_BAD || b == TNGC_DIM_BAD || b == 0)
        return TNGC_DIM_BAD;
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
TNGC_MAYBE_UNUSED static inline int64_t tngc__min(int64_t a, int64_t b)
{
    return a == TNGC_DIM_BAD || b == TNGC_DIM_BAD ? TNGC_DIM_BAD : a < b ? a : b;
}
TNGC_MAYBE_UNUSED static inline int64_t tngc__max(int64_t a, int64_t b)
{
    return a == TNGC_DIM_BAD || b == TNGC_DIM_BAD ? TNGC_DIM_BAD : a > b ? a : b;
}

/* Bytes of a dims[0..nd) tensor of esize-byte elements in *out; returns -1
 * when a dim is negative (TNGC_DIM_BAD included) or the tensor breaks the
 * size limit the planner keeps (TNGRT_MAX_BYTES, tngrt.h: the product of
 * its dims, each counted as at least 1, times esize; an empty tensor
 * cannot hide a huge dim). What a gear with run-time dims checks of every
 * value before its kernels run. */
TNGC_MAYBE_UNUSED static int tngc__size(int nd, const int64_t *dims, int64_t esize, int64_t *out)
{
    int64_t bound = esize, n = esize;
    for (int d = 0; d < nd; d++) {
        if (dims[d] < 0 || (dims[d] > 1 && bound > TNGRT_MAX_BYTES / dims[d]))
            return -1;
        bound *= dims[d] > 1 ? dims[d] : 1;
        n *= dims[d];
    }
    *out = n;
    return 0;
}

/* Places n bytes at *at, 64-byte aligned: returns -1 when the arena would
 * pass TNGRT_MAX_BYTES (n and *at are at most that: the sum cannot wrap). */
TNGC_MAYBE_UNUSED static int tngc__place(int64_t *at, int64_t n)
{
    *at += (n + 63) & ~(int64_t)63;
    return *at > TNGRT_MAX_BYTES ? -1 : 0;
}

/* Fills an output view: data, dtype, shape, C-order strides, nbytes. The
 * shape was checked (by the planner, or by the gear's layout function
 * before the run), so its size is within TNGRT_MAX_BYTES. */
TNGC_MAYBE_UNUSED static void tngc__out(TngrtTensor *t, void *data, TngrtDType dtype, int nd,
                                        const int64_t *dims)
{
    int64_t n = 0;
    t->dtype = dtype;
    t->ndim = nd;
    for (int d = 0; d < nd; d++)
        t->shape[d] = dims[d];
    if (tngc__size(nd, dims, (int64_t)tngrt_dtype_size(dtype), &n) != 0)
        n = 0;   /* never: see above */
    tngrt_tensor_set_strides(t);
    t->data = data;
    t->nbytes = (size_t)n;
    t->owns = 0;
}

/* A unit's trace slice: started when a trace is attached. */
#define TNGC_UNIT_BEGIN() uint64_t tngc__t0 = tr ? tngrt_trace_now() : 0
#define TNGC_UNIT_END(stream, name) \
    do { if (tr) tngrt_trace_slice(tr, (stream), (name), tngc__t0, tngrt_trace_now()); } while (0)

/* The descriptor, defined by the body (or below, standing alone). */
static const TngrtBundleDesc tngc_template__desc;

/* The return of a stream or segment function whose kernel call at line
 * `line` of the script failed: the kernel's message gets the location
 * "<script>:<line>: " in front (its kind, bad input or a failure, is kept:
 * an embedding id out of range makes the run return TNGRT_BAD_INPUT). */
TNGC_MAYBE_UNUSED static int tngc__fail(TngrtError *err, unsigned line)
{
    return tngrt_error_at(err, tngc_template__desc.script, line);
}

/*@tngc:body@*/

#ifndef TNGC_HAS_CONSTS
/* No constants (the body defines tngc__consts_once when the plan has ops
 * computed once, at create, into the bundle's constant block). */
static int tngc__consts_once(TngrtError *err)
{
    (void)err;
    return 0;
}
#endif

#ifndef TNGC_GENERATED
/* Standing alone: an entry with no inputs, outputs or gears. */
static const TngrtBundleDesc tngc_template__desc = {
    .name = "tngc_template", .entry = "", .script = "", .nstreams = 1,
};
#endif

/* The descriptor. The first call computes the constants too (a bundle
 * made from it with the generic tngrt_bundle_new, as the launcher does,
 * reads them); a failure there is reported by tngc_template_create. */
const TngrtBundleDesc *tngc_template_desc(void)
{
    TngrtError err;
    (void)tngc__consts_once(&err);
    return &tngc_template__desc;
}

int tngc_template_create(tngc_template_t **out, TngrtError *err)
{
    TngrtError local;
    if (tngc__consts_once(err ? err : &local) != 0) {   /* the first create computes them */
        *out = NULL;
        return -1;
    }
    return tngrt_bundle_new(out, &tngc_template__desc, err);
}

int tngc_template_load_weights(tngc_template_t *self, const char *path)
{
    return tngrt_bundle_load_weights(self, path);
}

int tngc_template_unused_count(const tngc_template_t *self)
{
    return tngrt_bundle_unused_count(self);
}

const char *tngc_template_unused_name(const tngc_template_t *self, int i)
{
    return tngrt_bundle_unused_name(self, i);
}

int tngc_template_run(tngc_template_t *self, const TngrtTensor *inputs, int ninputs,
                      TngrtTensor *outputs, int noutputs)
{
    return tngrt_bundle_run(self, inputs, ninputs, outputs, noutputs);
}

const TngrtBundleDesc *tngc_template_signature(const tngc_template_t *self)
{
    return tngrt_bundle_desc(self);
}

const char *tngc_template_last_error(const tngc_template_t *self)
{
    return tngrt_bundle_last_error(self);
}

void tngc_template_destroy(tngc_template_t *self)
{
    tngrt_bundle_delete(self);
}
