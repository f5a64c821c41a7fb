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

/* Floor division and min/max of dims computed at run time. */
TNGC_MAYBE_UNUSED static inline int64_t tngc__floordiv(int64_t a, int64_t b)
{
    if (b == 0)
        return 0;
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
TNGC_MAYBE_UNUSED static inline int64_t tngc__min(int64_t a, int64_t b) { return a < b ? a : b; }
TNGC_MAYBE_UNUSED static inline int64_t tngc__max(int64_t a, int64_t b) { return a > b ? a : b; }

/* Bytes of a dims[0..nd) tensor of esize-byte elements in *out; returns
 * -1 when a dim is negative or the size passes 2^62 (a layout's check). */
TNGC_MAYBE_UNUSED static int tngc__size(int nd, const int64_t *dims, int64_t esize, int64_t *out)
{
    int64_t n = esize;
    for (int d = 0; d < nd; d++) {
        if (dims[d] < 0 || (dims[d] > 0 && n > (INT64_C(1) << 62) / dims[d]))
            return -1;
        n *= dims[d];
    }
    *out = n;
    return 0;
}

/* Fills an output view: data, dtype, shape, C-order strides, nbytes. */
TNGC_MAYBE_UNUSED static void tngc__out(TngrtTensor *t, void *data, TngrtDType dtype, int nd,
                                        const int64_t *dims)
{
    size_t n = tngrt_dtype_size(dtype);
    t->dtype = dtype;
    t->ndim = nd;
    for (int d = 0; d < nd; d++) {
        t->shape[d] = dims[d];
        n *= (size_t)dims[d];
    }
    tngrt_tensor_set_strides(t);
    t->data = data;
    t->nbytes = n;
    t->owns = 0;
}

/* A unit's trace slice: started when a trace is attached. */
#define TNGC_UNIT_BEGIN() uint64_t tngc__t0 = tr ? tngrt_trace_now() : 0
#define TNGC_UNIT_END(stream, name) \
    do { if (tr) tngrt_trace_slice(tr, (stream), (name), tngc__t0, tngrt_trace_now()); } while (0)

/*@tngc:body@*/

#ifndef TNGC_GENERATED
/* Standing alone: an entry with no inputs, outputs or gears. */
static const TngrtBundleDesc tngc_template__desc = {
    .name = "tngc_template", .entry = "", .script = "", .nstreams = 1,
};
#endif

const TngrtBundleDesc *tngc_template_desc(void)
{
    return &tngc_template__desc;
}

int tngc_template_create(tngc_template_t **out, TngrtError *err)
{
    return tngrt_bundle_new(out, &tngc_template__desc, err);
}

int tngc_template_load_weights(tngc_template_t *self, const char *path)
{
    return tngrt_bundle_load_weights(self, path);
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
