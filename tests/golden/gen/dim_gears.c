/* generated from model.py by tngc 0.2.0, do not edit */
/*
 * One model bundle (template of <name>.c).
 *
 * tngc replaces every "model" by the bundle's name and the marker
 * line "@tngc:body@" by the generated part: per gear, one straight-line
 * function per stream (kernel calls, event records and waits), one function
 * per super-kernel segment, the static kernels, the gear table and the
 * descriptor model__desc. Standing alone, the file compiles with an
 * empty descriptor in place of the body.
 */
#include "model.h"
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
static const TngrtBundleDesc model__desc;

/* The return of a stream or segment function whose kernel call at line
 * `line` of the script failed: the kernel's message gets the location
 * "<script>:<line>: " in front (its kind, bad input or a failure, is kept:
 * an embedding id out of range makes the run return TNGRT_BAD_INPUT). */
TNGC_MAYBE_UNUSED static int tngc__fail(TngrtError *err, unsigned line)
{
    return tngrt_error_at(err, model__desc.script, line);
}

#define TNGC_GENERATED 1

/* ==== gears: in the files model_gears_K.c ==== */
void model__g0_outputs(const TngrtRunCtx *c, TngrtTensor *outs);
extern const TngrtStreamFn model__g0_streams[];
extern const int64_t model__g0_symval[];
void model__g1_outputs(const TngrtRunCtx *c, TngrtTensor *outs);
extern const TngrtStreamFn model__g1_streams[];
extern const int64_t model__g1_symval[];

/* ==== signature ==== */
static const TngrtDim in0_dims[] = {{0, 0}, {-1, 2}};
static const TngrtDim in1_dims[] = {{0, 0}, {-1, 2}};
static const TngrtSigTensor in_sig[] = {
    {"x1", TNGRT_F32, 2, in0_dims, 0},
    {"x2", TNGRT_F32, 2, in1_dims, 0},
};
static const TngrtDim out0_dims[] = {{0, 0}, {-1, 2}};
static const TngrtSigTensor out_sig[] = {
    {"out0", TNGRT_F32, 2, out0_dims, 0},
};
static const TngrtSym syms[] = {
    {"s0", 0, 0, 1},
};
static const TngrtGear gears[] = {
    {model__g0_symval, 64, NULL, 0, model__g0_streams, model__g0_outputs},
    {model__g1_symval, 64, NULL, 0, model__g1_streams, model__g1_outputs},
};
static const char *const stream_names[] = {"default"};

static const TngrtBundleDesc model__desc = {
    .name = "model",
    .entry = "Model.forward",
    .script = "model.py",
    .ninputs = 2, .inputs = in_sig,
    .nweights = 0, .weights = NULL,
    .noutputs = 1, .outputs = out_sig,
    .nsyms = 1, .syms = syms,
    .ngears = 2, .gears = gears,
    .nstreams = 1, .stream_names = stream_names,
    .nevents = 0,
};


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
static const TngrtBundleDesc model__desc = {
    .name = "model", .entry = "", .script = "", .nstreams = 1,
};
#endif

/* The descriptor. The first call computes the constants too (a bundle
 * made from it with the generic tngrt_bundle_new, as the launcher does,
 * reads them); a failure there is reported by model_create. */
const TngrtBundleDesc *model_desc(void)
{
    TngrtError err;
    (void)tngc__consts_once(&err);
    return &model__desc;
}

int model_create(model_t **out, TngrtError *err)
{
    TngrtError local;
    if (tngc__consts_once(err ? err : &local) != 0) {   /* the first create computes them */
        *out = NULL;
        return -1;
    }
    return tngrt_bundle_new(out, &model__desc, err);
}

int model_load_weights(model_t *self, const char *path)
{
    return tngrt_bundle_load_weights(self, path);
}

int model_unused_count(const model_t *self)
{
    return tngrt_bundle_unused_count(self);
}

const char *model_unused_name(const model_t *self, int i)
{
    return tngrt_bundle_unused_name(self, i);
}

int model_run(model_t *self, const TngrtTensor *inputs, int ninputs,
                      TngrtTensor *outputs, int noutputs)
{
    return tngrt_bundle_run(self, inputs, ninputs, outputs, noutputs);
}

const TngrtBundleDesc *model_signature(const model_t *self)
{
    return tngrt_bundle_desc(self);
}

const char *model_last_error(const model_t *self)
{
    return tngrt_bundle_last_error(self);
}

void model_destroy(model_t *self)
{
    tngrt_bundle_delete(self);
}
/* generated from model.py by tngc 0.2.0, do not edit */
/*
 * Gear 0 of the bundle model (tngc gen splits the gears across files so that
 * they compile in parallel; the gear table and the descriptor are in model.c).
 */
#include "model.h"
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

/* tngc__fail of templates/bundle.c, with the script's name. */
TNGC_MAYBE_UNUSED static int tngc__fail(TngrtError *err, unsigned line)
{
    return tngrt_error_at(err, "model.py", line);
}

/* defined in model.c */
/* defined here, for the gear table */
void model__g0_outputs(const TngrtRunCtx *c, TngrtTensor *outs);
extern const TngrtStreamFn model__g0_streams[];
extern const int64_t model__g0_symval[];

/* ==== gear 0 ==== */

static int g0_s0(void *arg, TngrtExec *ex, int stream, TngrtError *err)
{
    const TngrtRunCtx *c = arg;
    TngrtTrace *tr = tngrt_exec_trace(ex);
    (void)stream;
    (void)tr;
    unsigned char *A = c->arena;
    const int64_t *S = c->sym;
    (void)A;
    (void)S;
    (void)err;
    {
        TNGC_UNIT_BEGIN();
        /* f32[s0,2] %2 = add */
        tngrt_kernel_binary(&(TngrtArg){(A + 0), TNGRT_F32, 2, (const int64_t[]){2, 2}}, &(TngrtArg){c->in[0], TNGRT_F32, 2, (const int64_t[]){2, 2}}, &(TngrtArg){c->in[1], TNGRT_F32, 2, (const int64_t[]){2, 2}}, TNGRT_BIN_ADD, 1.0);
        TNGC_UNIT_END(0, "add %2 (line 17)");
    }
    return 0;
}

void model__g0_outputs(const TngrtRunCtx *c, TngrtTensor *outs)
{
    unsigned char *A = c->arena;
    const int64_t *S = c->sym;
    (void)A;
    (void)S;
    tngc__out(&outs[0], (A + 0), TNGRT_F32, 2, (const int64_t[]){2, 2});
}

const TngrtStreamFn model__g0_streams[] = {g0_s0};
const int64_t model__g0_symval[] = {2};
/* generated from model.py by tngc 0.2.0, do not edit */
/*
 * Gear 1 of the bundle model (tngc gen splits the gears across files so that
 * they compile in parallel; the gear table and the descriptor are in model.c).
 */
#include "model.h"
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

/* tngc__fail of templates/bundle.c, with the script's name. */
TNGC_MAYBE_UNUSED static int tngc__fail(TngrtError *err, unsigned line)
{
    return tngrt_error_at(err, "model.py", line);
}

/* defined in model.c */
/* defined here, for the gear table */
void model__g1_outputs(const TngrtRunCtx *c, TngrtTensor *outs);
extern const TngrtStreamFn model__g1_streams[];
extern const int64_t model__g1_symval[];

/* ==== gear 1 ==== */

static int g1_s0(void *arg, TngrtExec *ex, int stream, TngrtError *err)
{
    const TngrtRunCtx *c = arg;
    TngrtTrace *tr = tngrt_exec_trace(ex);
    (void)stream;
    (void)tr;
    unsigned char *A = c->arena;
    const int64_t *S = c->sym;
    (void)A;
    (void)S;
    (void)err;
    {
        TNGC_UNIT_BEGIN();
        /* f32[s0,2] %2 = add */
        tngrt_kernel_binary(&(TngrtArg){(A + 0), TNGRT_F32, 2, (const int64_t[]){4, 2}}, &(TngrtArg){c->in[0], TNGRT_F32, 2, (const int64_t[]){4, 2}}, &(TngrtArg){c->in[1], TNGRT_F32, 2, (const int64_t[]){4, 2}}, TNGRT_BIN_ADD, 1.0);
        TNGC_UNIT_END(0, "add %2 (line 17)");
    }
    return 0;
}

void model__g1_outputs(const TngrtRunCtx *c, TngrtTensor *outs)
{
    unsigned char *A = c->arena;
    const int64_t *S = c->sym;
    (void)A;
    (void)S;
    tngc__out(&outs[0], (A + 0), TNGRT_F32, 2, (const int64_t[]){4, 2});
}

const TngrtStreamFn model__g1_streams[] = {g1_s0};
const int64_t model__g1_symval[] = {4};
