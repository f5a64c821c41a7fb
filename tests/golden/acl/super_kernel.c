/* generated from model.py by tngc 0.2.0, do not edit */
/*
 * One model bundle on an Ascend NPU (template of <name>.c for
 * `tngc gen --target acl`).
 *
 * The same API as the CPU target's (<name>.h, templates/model_ModelOrigin_forward.h):
 * host tensors in and out, the gear chosen from the input shapes. Under
 * it, AscendCL:
 *
 *   create        aclInit (once per process; a repeated call is fine),
 *                 aclrtSetDevice, aclrtCreateContext; one aclrtStream per
 *                 plan stream, created with the stream's recorded priority;
 *                 one aclrtEvent per plan event (plus a fork event and one
 *                 join event per extra stream), ACL_EVENT_SYNC events
 *                 (aclrtCreateEventExWithFlag) when a capture records them;
 *                 a chip that cannot capture (aclrtGetSocName: Atlas
 *                 training series, Atlas 200I/500 A2) runs reduce-overhead
 *                 eagerly, said in one warning line in create's err; per
 *                 gear one device arena (the planner's offsets, then the
 *                 gear's inputs), allocated once, and the gear's
 *                 aclTensor/aclScalar/aclIntArray/
 *                 aclTensorList descriptors, built once (gears whose sizes
 *                 depend on an unbound symbol: at their first run, and
 *                 again when the symbols change); the weights' device blocks.
 *   load_weights  safetensors, a safetensors index or a torch.save file
 *                 (libtngcrt, tngrt_weights_open) -> device (aclrtMemcpy), once.
 *   run           libtngcrt checks the inputs and selects the gear (the
 *                 same messages as the CPU target); the inputs are copied to
 *                 the gear's device buffers; the gear's launch function
 *                 issues every op on its stream (aclnnXxxGetWorkspaceSize,
 *                 then aclnnXxx) with the plan's event records and waits; in
 *                 reduce-overhead mode a static gear's launch is captured
 *                 once into a model run instance (aclmdlRICaptureBegin/End)
 *                 and replayed (aclmdlRIExecuteAsync) from then on; stream 0
 *                 is synchronised; the outputs (and inputs updated in place)
 *                 are copied back to host memory the bundle owns. After a
 *                 failure every stream is synchronised: no work of a
 *                 failed run overlaps the next run's copies or a free.
 *   destroy       every stream synchronised, then everything above in
 *                 reverse order of creation; aclrtResetDevice. aclFinalize
 *                 is left to the program: other bundles or libraries of the
 *                 process may still use AscendCL.
 *
 * Every AscendCL call is checked; a failure gives the bundle's last error
 * "<script>:<line>:<col>: <op> %<value>: <call> failed: error <code>: <the
 * runtime's own message>" (the script location of the op, or of the
 * compiled entry for calls that belong to no op).
 *
 * tngc replaces "model_ModelOrigin_forward" by the bundle's name, the marker line
 * "@tngc:helpers@" by the dim helpers of templates/bundle.c (one source for
 * both targets) and "@tngc:body@" by the generated part: per gear the
 * descriptor-building and launch functions, the layout and outputs
 * functions, then the stream table, the gear table and the descriptor.
 * Standing alone, the file compiles (against AscendCL's headers) with an
 * empty entry in place of the body.
 */
#include "model_ModelOrigin_forward.h"

#include "acl/acl.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- aclnn: CANN 8.1.RC1's declarations ------------------------------------- */
/* CANN's aclnn headers are C++ (aclnn/acl_meta.h includes <cstdint> and
 * declares a constexpr; some aclnnop/ headers include <string>), and this
 * file is C: it includes only acl/acl.h (C) and declares here the aclnn
 * types and functions it uses, exactly as aclnn/acl_meta.h declares them
 * (extern "C" there: the C symbols CANN's libraries export). The body
 * declares the operators it calls the same way (codegen/acl_ops.c), and
 * tests/acl/real_cann.sh checks both against CANN's headers in C++, where
 * a declaration that differs is an error. */
typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclTensorList aclTensorList;
typedef int32_t aclnnStatus;

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t *stride,
                           int64_t offset, aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,
                           void *tensorData);
aclScalar *aclCreateScalar(void *value, aclDataType dataType);
aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size);
aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size);
aclnnStatus aclDestroyTensor(const aclTensor *tensor);
aclnnStatus aclDestroyScalar(const aclScalar *scalar);
aclnnStatus aclDestroyIntArray(const aclIntArray *array);
aclnnStatus aclDestroyTensorList(const aclTensorList *array);
aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor);
aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);
/* ---- end of aclnn declarations ---- */

#if defined(__GNUC__)
#define TNGC_MAYBE_UNUSED __attribute__((unused))
#else
#define TNGC_MAYBE_UNUSED
#endif

/* The dim helpers of templates/bundle.c. */
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
#ifndef TNGC_DIM_BAD   /* standing alone: the helpers are not spliced in */
#define TNGC_DIM_BAD INT64_MIN
#endif

/* ---- the device side of a gear --------------------------------------------- */

/* What the generated body says about a gear. */
typedef struct TngcAclGear TngcAclGear;
typedef struct TngcAclGearCode {
    int ntensors, nscalars, narrays, nlists;   /* its descriptors */
    int capture;               /* reduce-overhead, static: captured once and replayed */
    int nexec;                 /* its aclnn calls (TNGC_ACLNN's k: 0, 1, ...) */
    int reuse;                 /* static, not captured: executors made repeatable at the
                                * first run, launched again on later runs */
    int64_t scratch;           /* static: bytes of its ops' scratch (attention scores),
                                * after the planner's part of the arena (64-aligned) */
    /* Creates the gear's descriptors over its device addresses (G->dev). */
    int (*build)(model_ModelOrigin_forward_t *self, TngcAclGear *G);
    /* Issues the gear's ops, events and waits on the streams. */
    int (*launch)(model_ModelOrigin_forward_t *self, TngcAclGear *G);
} TngcAclGearCode;

/* A plan stream: its tag and the priority its aclrtStream is created with. */
typedef struct TngcAclStream {
    const char *tag;
    uint32_t priority;
} TngcAclStream;

/* A gear's device state. */
struct TngcAclGear {
    unsigned char *arena;      /* device: the planner's offsets, then the inputs */
    int64_t arena_cap;         /* bytes allocated */
    int64_t arena_bytes;       /* of which the planner's part */
    TngrtRunCtx dev;           /* device addresses the descriptors use */
    void **in;                 /* device input buffers (inside the arena) */
    int64_t *sym;              /* symbol values the descriptors were built for */
    int64_t *off;              /* dynamic gears: buffer offsets (layout) */
    aclTensor **t;
    aclScalar **sc;
    aclIntArray **ia;
    aclTensorList **tl;
    int built;
    aclOpExecutor **ex;        /* reuse: per aclnn call its repeatable executor, or NULL */
    uint64_t *ex_ws;           /* ... and the workspace size it asked for */
    void **ws;                 /* per stream: the aclnn workspace */
    uint64_t *ws_cap;
    aclmdlRI ri;               /* the captured run (reduce-overhead) */
    int capturing, captured;
};

/* What another entry's ACL bundle reads of this one to share its state
 * (_share_state): every ACL bundle's handle begins with it, so a handle
 * of any of them points at one. */
struct TngcAclState {
    const TngrtBundleDesc *desc;
    int32_t device;
    void *const *w;                /* weights on the device */
    const unsigned char *nz;       /* per weight: its FRACTAL_NZ block width, 0: ND */
};

/* A weight shared with another entry's bundle: bound to nothing yet (runs
 * refuse), to its own block, or to the owner's. */
enum { TNGC_BIND_NONE, TNGC_BIND_OWN, TNGC_BIND_SHARED };

struct model_ModelOrigin_forward_acl {
    struct TngcAclState st;        /* first: what _share_state reads of an owner */
    const TngrtBundleDesc *desc;
    int32_t device;
    int device_set;
    aclrtContext ctx;
    aclrtStream *stream;           /* per plan stream */
    aclrtEvent *event;             /* per plan event */
    aclrtEvent fork;               /* stream 0's start, waited by the others */
    aclrtEvent *join;              /* stream s's end, waited by stream 0 */
    int capture_ok;                /* the chip can capture (aclrtGetSocName) */
    int sync_events;               /* events may be recorded in a capture: ACL_EVENT_SYNC */
    int unsettled;                 /* a stream failed to synchronise after a failed run */
    char warning[256];             /* create's warning ("" when none) */
    void **w;                      /* weights on the device: w_own's, or an owner's (shared state) */
    void **w_own;                  /* the device blocks this bundle allocated */
    unsigned char *wbind;          /* per weight shared with another entry: TNGC_BIND_* */
    void **w_host;                 /* host copies of weights an output returns */
    TngcAclGear *gear;
    unsigned char *host;           /* host arena: outputs come back here */
    int64_t host_cap;
    void **in;                     /* the run's host inputs */
    TngrtTensor *dev_out;          /* scratch: output views of device memory */
    char **unused;                 /* tensors of the weights file that are no weight */
    int nunused;
    TngrtTrace *trace;             /* _set_trace: the runs' host times go here (not owned) */
    uint64_t *rec_t;               /* per plan event: the host time of its last record */
    int *rec_s;                    /* ... and its stream */
    char (*wait_name)[24];         /* per plan event: "wait eN", its waits' slice name */
    char err[TNGRT_BUNDLE_MSG];    /* the last failure (tngrt_desc_select writes its message here) */
};

/* ---- errors ------------------------------------------------------------------- */

static int tngc__fail(model_ModelOrigin_forward_t *self, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(self->err, sizeof self->err, fmt, ap);
    va_end(ap);
    return -1;
}

/* A failed AscendCL call: its name, where (script:line:col: op, or NULL for
 * the entry), the code and the runtime's own last message. */
static int tngc__acl_fail(model_ModelOrigin_forward_t *self, int rc, const char *call, const char *where)
{
    const char *m = aclGetRecentErrMsg();
    return tngc__fail(self, "%s%s%s: %s failed: error %d%s%s", where ? where : self->desc->script,
                      where ? "" : ": ", where ? "" : self->desc->entry, call, rc,
                      m && *m ? ": " : "", m && *m ? m : "");
}

#define TNGC_CHECK(call, name, where)                                   \
    do {                                                                \
        int tngc__rc = (int)(call);                                     \
        if (tngc__rc != 0)                                              \
            return tngc__acl_fail(self, tngc__rc, (name), (where));     \
    } while (0)

/* A descriptor that the creating call returned as NULL. */
#define TNGC_NEW(slot, expr, name, where)                               \
    do {                                                                \
        if (!((slot) = (expr)))                                         \
            return tngc__acl_fail(self, -1, (name), (where));           \
    } while (0)

/* ---- what the launch functions call ----------------------------------------- */

/* G's workspace on stream s, grown to bytes: the stream is synchronised
 * first (the old block may be in use); never during a capture. */
TNGC_MAYBE_UNUSED static int tngc__workspace(model_ModelOrigin_forward_t *self, TngcAclGear *G, int s, uint64_t bytes,
                                             void **out, const char *where)
{
    *out = G->ws[s];
    if (bytes <= G->ws_cap[s])
        return 0;
    if (G->capturing || G->captured)
        return tngc__fail(self, "%s: a workspace grew while its gear was captured", where);
    TNGC_CHECK(aclrtSynchronizeStream(self->stream[s]), "aclrtSynchronizeStream", where);
    if (G->ws[s])
        TNGC_CHECK(aclrtFree(G->ws[s]), "aclrtFree", where);
    G->ws[s] = NULL;
    G->ws_cap[s] = 0;
    TNGC_CHECK(aclrtMalloc(&G->ws[s], (size_t)bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc", where);
    G->ws_cap[s] = bytes;
    *out = G->ws[s];
    return 0;
}

/* An executor the operator's second phase never took (its workspace could
 * not be had), or a repeatable one whose launch failed, is released with
 * aclDestroyAclOpExecutor, and its slot k of a reuse gear emptied. */
TNGC_MAYBE_UNUSED static void tngc__drop(TngcAclGear *G, int k, aclOpExecutor *ex)
{
    (void)aclDestroyAclOpExecutor(ex);
    if (G->ex)
        G->ex[k] = NULL;
}

/* Call k of a reuse gear: its new executor made repeatable and kept in
 * slot k with its workspace size; on failure it is released. */
TNGC_MAYBE_UNUSED static int tngc__keep(model_ModelOrigin_forward_t *self, TngcAclGear *G, int k, aclOpExecutor *ex,
                                        uint64_t ws, const char *where)
{
    int rc = aclSetAclOpExecutorRepeatable(ex);
    if (rc != 0) {
        (void)aclDestroyAclOpExecutor(ex);
        return tngc__acl_fail(self, rc, "aclSetAclOpExecutorRepeatable", where);
    }
    G->ex[k] = ex;
    G->ex_ws[k] = ws;
    return 0;
}

/* The trace (host clocks). One host thread issues every stream's work, so a
 * slice is the time the host spent issuing an op (its two-phase call) or a
 * wait on that op's stream; the device's own time shows in stream 0's
 * synchronisation at the end of a run. */
TNGC_MAYBE_UNUSED static uint64_t tngc__now(const model_ModelOrigin_forward_t *self)
{
    return self->trace ? tngrt_trace_now() : 0;
}

/* A slice [t0, now) named name (a string that outlives the trace) on stream s. */
TNGC_MAYBE_UNUSED static void tngc__slice(model_ModelOrigin_forward_t *self, int s, const char *name, uint64_t t0)
{
    if (self->trace)
        tngrt_trace_slice(self->trace, s, name, t0, tngrt_trace_now());
}

/* Plan event e was recorded on stream s: when, for the flow to its waits. */
TNGC_MAYBE_UNUSED static void tngc__traced_record(model_ModelOrigin_forward_t *self, int e, int s)
{
    if (self->trace) {
        self->rec_t[e] = tngrt_trace_now();
        self->rec_s[e] = s;
    }
}

/* Stream s waited for plan event e from t0: a slice, and an arrow from the record. */
TNGC_MAYBE_UNUSED static void tngc__traced_wait(model_ModelOrigin_forward_t *self, int e, int s, uint64_t t0)
{
    if (self->trace) {
        tngc__slice(self, s, self->wait_name[e], t0);
        tngrt_trace_flow(self->trace, e, self->rec_s[e], self->rec_t[e], s, t0);
    }
}

/* An aclnn operator's second phase: aclnnXxx(workspace, size, executor, stream). */
typedef aclnnStatus (*tngc__aclnn_fn)(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

/* Call k's executor kept by a reuse gear (its workspace size into *ws),
 * or NULL: the first phase must make one. */
TNGC_MAYBE_UNUSED static aclOpExecutor *tngc__kept(const TngcAclGear *G, int k, uint64_t *ws)
{
    aclOpExecutor *ex = G->ex ? G->ex[k] : NULL;
    if (ex)
        *ws = G->ex_ws[k];
    return ex;
}

/* The rest of TNGC_ACLNN after the first phase (fresh: it just made ex):
 * in a reuse gear a fresh executor is kept; then the workspace, the
 * second phase fn (called name) on stream s, the trace's slice from t0. */
TNGC_MAYBE_UNUSED static int tngc__aclnn_run(model_ModelOrigin_forward_t *self, TngcAclGear *G, int s, int k,
                                             aclOpExecutor *ex, uint64_t ws, int fresh, tngc__aclnn_fn fn,
                                             const char *name, const char *where, uint64_t t0)
{
    void *wp = NULL;
    int rc;
    if (fresh && G->ex && tngc__keep(self, G, k, ex, ws, where) != 0)
        return -1;
    if (tngc__workspace(self, G, s, ws, &wp, where) != 0) {
        tngc__drop(G, k, ex);
        return -1;
    }
    if ((rc = fn(wp, ws, ex, self->stream[s])) != 0) {
        if (G->ex)
            tngc__drop(G, k, ex);
        return tngc__acl_fail(self, rc, name, where);
    }
    tngc__slice(self, s, where, t0);
    return 0;
}

/* One aclnn operator on stream s: the two-phase call (a trace slice named
 * by its place in the script). In a reuse gear (static, not captured) the
 * executor of call k is made repeatable (aclSetAclOpExecutorRepeatable) the
 * first time and launched again on later runs without a first phase: the
 * gear's descriptors and device addresses never change. It is destroyed
 * with the gear (tngc__gear_unbuild), or at once when its launch fails
 * (the next run asks again). Only the first phase, whose parameters are
 * the operator's own, is expanded in place: a gear of a thousand calls
 * is a function of a few lines each (gcc's time on one function grows
 * faster than its length). */
#define TNGC_ACLNN(fn, s, k, where, ...)                                                   \
    do {                                                                                   \
        uint64_t tngc__t0 = tngc__now(self), tngc__ws = 0;                                 \
        aclOpExecutor *tngc__ex = tngc__kept(G, (k), &tngc__ws);                           \
        int tngc__fresh = !tngc__ex;                                                       \
        if (tngc__fresh)                                                                   \
            TNGC_CHECK(fn##GetWorkspaceSize(__VA_ARGS__, &tngc__ws, &tngc__ex),            \
                       #fn "GetWorkspaceSize", (where));                                   \
        if (tngc__aclnn_run(self, G, (s), (k), tngc__ex, tngc__ws, tngc__fresh, fn, #fn,   \
                            (where), tngc__t0) != 0)                                       \
            return -1;                                                                     \
    } while (0)

/* Plan event e: recorded on stream s after a unit, waited on stream s before one. */
#define TNGC_RECORD(e, s, where)                                                                    \
    do {                                                                                            \
        TNGC_CHECK(aclrtRecordEvent(self->event[e], self->stream[s]), "aclrtRecordEvent", (where)); \
        tngc__traced_record(self, (e), (s));                                                        \
    } while (0)
#define TNGC_WAIT(e, s, where)                                                                              \
    do {                                                                                                    \
        uint64_t tngc__t0 = tngc__now(self);                                                                \
        TNGC_CHECK(aclrtStreamWaitEvent(self->stream[s], self->event[e]), "aclrtStreamWaitEvent", (where)); \
        tngc__traced_wait(self, (e), (s), tngc__t0);                                                        \
    } while (0)

/* Super-kernel segment boundaries: scope name, options as
 * written ("key=value:key=value"). aclnn has no public call that fuses
 * kernels already launched; the segment's ops are issued back to back on
 * its stream, and inside a captured run they are one model run instance. */
#define TNGC_SUPER_KERNEL_BEGIN(scope, options, segment) ((void)0)
#define TNGC_SUPER_KERNEL_END(scope, segment) ((void)0)

/* An aclTensor in format fmt over data: view dims[0..nd) with strides
 * (NULL: C order) starting offset elements into storage sdims[0..snd)
 * (NULL: the view's dims). */
static aclTensor *tngc__tensor_as(aclFormat fmt, int nd, const int64_t *dims, const int64_t *strides,
                                  int64_t offset, aclDataType dt, int snd, const int64_t *sdims, void *data)
{
    int64_t st[TNGRT_MAX_DIMS + 1] = {0}, bound = 1;   /* set: gcc cannot see that nd 0 reads none */
    /* a dim, stride or offset computed at run time that is TNGC_DIM_BAD or
     * out of range (an index past its dim): no descriptor, no address */
    if (nd < 0 || nd > TNGRT_MAX_DIMS || offset < 0)
        return NULL;
    for (int d = 0; d < nd; d++) {
        if (dims[d] < 0 || (dims[d] > 1 && bound > TNGRT_MAX_BYTES / dims[d]) || (strides && strides[d] < 0))
            return NULL;
        bound *= dims[d] > 1 ? dims[d] : 1;
    }
    if (!strides) {
        int64_t n = 1;
        for (int d = nd - 1; d >= 0; d--) {
            st[d] = n;
            n *= dims[d];
        }
        strides = st;
    }
    if (!sdims) {
        sdims = dims;
        snd = nd;
    }
    return aclCreateTensor(dims, (uint64_t)nd, dt, strides, offset, fmt, sdims, (uint64_t)snd, data);
}

/* An ND aclTensor (tngc__tensor_as): the bundle's tensors are dense C-order. */
TNGC_MAYBE_UNUSED static aclTensor *tngc__tensor(int nd, const int64_t *dims, const int64_t *strides, int64_t offset,
                                                 aclDataType dt, int snd, const int64_t *sdims, void *data)
{
    return tngc__tensor_as(ACL_FORMAT_ND, nd, dims, strides, offset, dt, snd, sdims, data);
}

/* A weight stored FRACTAL_NZ (npu_format_cast(w, 29), tngc__nd_to_nz):
 * the view is the logical ND tensor, the storage its NZ dims. */
TNGC_MAYBE_UNUSED static aclTensor *tngc__tensor_nz(int nd, const int64_t *dims, const int64_t *strides,
                                                    int64_t offset, aclDataType dt, int snd, const int64_t *sdims,
                                                    void *data)
{
    return tngc__tensor_as(ACL_FORMAT_FRACTAL_NZ, nd, dims, strides, offset, dt, snd, sdims, data);
}

TNGC_MAYBE_UNUSED static aclScalar *tngc__scalar_f(double v)
{
    return aclCreateScalar(&v, ACL_DOUBLE);   /* the value is copied */
}

TNGC_MAYBE_UNUSED static aclScalar *tngc__scalar_i(int64_t v)
{
    return aclCreateScalar(&v, ACL_INT64);
}

/* Python's slice start for a dim of size n (start/end as written, end may
 * be INT64_MAX), as tngrt_kernel_slice computes it. */
TNGC_MAYBE_UNUSED static int64_t tngc__slice_start(int64_t n, int64_t start)
{
    if (n == TNGC_DIM_BAD)
        return TNGC_DIM_BAD;
    if (start < 0)
        start += n;
    return start < 0 ? 0 : start > n ? n : start;
}

/* The length of the slice [start:end:step] of a dim of size n. */
TNGC_MAYBE_UNUSED static int64_t tngc__slice_len(int64_t n, int64_t start, int64_t end, int64_t step)
{
    int64_t s = tngc__slice_start(n, start), e = end == INT64_MAX ? n : tngc__slice_start(n, end);
    if (n == TNGC_DIM_BAD)
        return TNGC_DIM_BAD;
    return e > s && step > 0 ? (e - s - 1) / step + 1 : 0;
}

/* An index of a dim of size n, counted from the end when negative;
 * TNGC_DIM_BAD when out of range, which tngc__tensor refuses. */
TNGC_MAYBE_UNUSED static int64_t tngc__index(int64_t n, int64_t i)
{
    if (n == TNGC_DIM_BAD || i < -n || i >= n)
        return TNGC_DIM_BAD;
    return i < 0 ? i + n : i;
}

/* A tensor list of l[0..n) (it owns them), in *out; when a tensor or the
 * list could not be created, the others are destroyed. */
TNGC_MAYBE_UNUSED static int tngc__list(model_ModelOrigin_forward_t *self, aclTensorList **out, int n, const aclTensor **l,
                                        const char *where)
{
    int ok = 1;
    for (int i = 0; i < n; i++)
        ok &= l[i] != NULL;
    if (ok && (*out = aclCreateTensorList(l, (uint64_t)n)) != NULL)
        return 0;
    for (int i = 0; i < n; i++)
        if (l[i])
            (void)aclDestroyTensor(l[i]);
    return tngc__acl_fail(self, -1, ok ? "aclCreateTensorList" : "aclCreateTensor", where);
}

/* Host stand-ins for the descriptor's stream functions: an ACL bundle runs
 * through model_ModelOrigin_forward_run, never through libtngcrt's CPU executor. */
TNGC_MAYBE_UNUSED static int tngc__on_device(void *arg, TngrtExec *ex, int stream, TngrtError *err)
{
    (void)arg;
    (void)ex;
    (void)stream;
    snprintf(err->msg, sizeof err->msg, "model_ModelOrigin_forward is an Ascend NPU bundle: run it with model_ModelOrigin_forward_run");
    return -1;
}

#define TNGC_GENERATED 1

/* ---- aclnn operators: CANN 8.1.RC1's declarations (its aclnnop/ headers are C++) ---- */
/* aclnnop/aclnn_quant_matmul_v4.h */
aclnnStatus aclnnQuantMatmulV4GetWorkspaceSize(const aclTensor *x1, const aclTensor *x2,
    const aclTensor *scale, const aclTensor *offset, const aclTensor *pertokenScaleOptional,
    const aclTensor *bias, bool transposeX1, bool transposeX2, const aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnQuantMatmulV4(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
    aclrtStream stream);
/* aclnnop/aclnn_dequant_swiglu_quant.h */
aclnnStatus aclnnDequantSwigluQuantGetWorkspaceSize(const aclTensor *x,
    const aclTensor *weightScaleOptional, const aclTensor *activationScaleOptional,
    const aclTensor *biasOptional, const aclTensor *quantScaleOptional,
    const aclTensor *quantOffsetOptional, const aclTensor *groupIndexOptional, bool activateLeft,
    char *quantModeOptional, const aclTensor *yOut, const aclTensor *scaleOut,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnDequantSwigluQuant(void *workspace, uint64_t workspaceSize,
    aclOpExecutor *executor, aclrtStream stream);
/* ---- end of aclnn operators ---- */

/* ==== gear 0 ==== */

/* The gear's units in issue order, each on its stream. */
static int g0_launch(model_ModelOrigin_forward_t *self, TngcAclGear *G)
{
    (void)self;
    (void)G;
    /* stream 0: bf16[864,4096] %5 = quant_matmul */
    TNGC_ACLNN(aclnnQuantMatmulV4, 0, 0, "model.py:27:39: quant_matmul %5", G->t[0], G->t[1], G->t[2], NULL, G->t[3], NULL, false, false, G->t[4]);
    /* stream 0: i8[864,2048] %6 = dequant_swiglu_quant */
    TNGC_ACLNN(aclnnDequantSwigluQuant, 0, 1, "model.py:28:33: dequant_swiglu_quant %6", G->t[4], G->t[5], NULL, NULL, NULL, NULL, NULL, false, "static", G->t[6], G->t[7]);
    return 0;
}

/* The descriptors of g0_launch, over the gear's device addresses. */
static int g0_build(model_ModelOrigin_forward_t *self, TngcAclGear *G)
{
    const TngrtRunCtx *c = &G->dev;
    unsigned char *A = c->arena;
    const int64_t *S = c->sym;
    (void)self;
    (void)A;
    (void)S;
    TNGC_NEW(G->t[0], tngc__tensor(2, (const int64_t[]){864, 7168}, NULL, 0, ACL_INT8, 0, NULL, c->in[0]), "aclCreateTensor", "model.py:27:39: quant_matmul %5");
    TNGC_NEW(G->t[1], tngc__tensor(2, (const int64_t[]){7168, 4096}, NULL, 0, ACL_INT8, 0, NULL, c->in[1]), "aclCreateTensor", "model.py:27:39: quant_matmul %5");
    TNGC_NEW(G->t[2], tngc__tensor(1, (const int64_t[]){4096}, NULL, 0, ACL_FLOAT, 0, NULL, c->in[2]), "aclCreateTensor", "model.py:27:39: quant_matmul %5");
    TNGC_NEW(G->t[3], tngc__tensor(1, (const int64_t[]){864}, NULL, 0, ACL_FLOAT, 0, NULL, c->in[3]), "aclCreateTensor", "model.py:27:39: quant_matmul %5");
    TNGC_NEW(G->t[4], tngc__tensor(2, (const int64_t[]){864, 4096}, NULL, 0, ACL_BF16, 0, NULL, (A + 0)), "aclCreateTensor", "model.py:27:39: quant_matmul %5");
    TNGC_NEW(G->t[5], tngc__tensor(2, (const int64_t[]){864, 4096}, NULL, 0, ACL_FLOAT, 0, NULL, c->in[4]), "aclCreateTensor", "model.py:28:33: dequant_swiglu_quant %6");
    TNGC_NEW(G->t[6], tngc__tensor(2, (const int64_t[]){864, 2048}, NULL, 0, ACL_INT8, 0, NULL, (A + 7077888)), "aclCreateTensor", "model.py:28:33: dequant_swiglu_quant %6");
    TNGC_NEW(G->t[7], tngc__tensor(1, (const int64_t[]){864}, NULL, 0, ACL_FLOAT, 0, NULL, (A + 8847360)), "aclCreateTensor", "model.py:28:33: dequant_swiglu_quant %6");
    return 0;
}

static void g0_outputs(const TngrtRunCtx *c, TngrtTensor *outs)
{
    unsigned char *A = c->arena;
    const int64_t *S = c->sym;
    (void)A;
    (void)S;
    tngc__out(&outs[0], (A + 7077888), TNGRT_I8, 2, (const int64_t[]){864, 2048});
    tngc__out(&outs[1], (A + 8847360), TNGRT_F32, 1, (const int64_t[]){864});
    tngc__out(&outs[2], (A + 0), TNGRT_BF16, 2, (const int64_t[]){864, 4096});
}

static const TngrtStreamFn g0_streams[] = {tngc__on_device};

/* ==== streams: one aclrtStream each, with its priority ==== */
static const TngcAclStream tngc__streams[] = {
    {"default", 0},
};

/* ==== gears: descriptors, capture (reduce-overhead), code ==== */
static const TngcAclGearCode tngc__gears[] = {
    {8, 0, 0, 0, 0, 2, 1, 0, g0_build, g0_launch},
};

/* weights an output returns: a host copy is kept */
static const signed char tngc__weight_returned[] = {0};

/* weights stored FRACTAL_NZ: the width of their blocks (0: ND) */
static const unsigned char tngc__weight_nz[] = {0};

/* ==== signature ==== */
static const TngrtDim in0_dims[] = {{-1, 864}, {-1, 7168}};
static const TngrtDim in1_dims[] = {{-1, 7168}, {-1, 4096}};
static const TngrtDim in2_dims[] = {{-1, 4096}};
static const TngrtDim in3_dims[] = {{-1, 864}};
static const TngrtDim in4_dims[] = {{-1, 864}, {-1, 4096}};
static const TngrtSigTensor in_sig[] = {
    {"x1", TNGRT_I8, 2, in0_dims, 0},
    {"x2", TNGRT_I8, 2, in1_dims, 0},
    {"scale", TNGRT_F32, 1, in2_dims, 0},
    {"pertoken_scale", TNGRT_F32, 1, in3_dims, 0},
    {"weight_scale", TNGRT_F32, 2, in4_dims, 0},
};
static const TngrtDim out0_dims[] = {{-1, 864}, {-1, 2048}};
static const TngrtDim out1_dims[] = {{-1, 864}};
static const TngrtDim out2_dims[] = {{-1, 864}, {-1, 4096}};
static const TngrtSigTensor out_sig[] = {
    {"out0", TNGRT_I8, 2, out0_dims, 0},
    {"out1", TNGRT_F32, 1, out1_dims, 0},
    {"out2", TNGRT_BF16, 2, out2_dims, 0},
};
static const TngrtGear gears[] = {
    {NULL, 8850816, NULL, 0, g0_streams, g0_outputs},
};
static const char *const stream_names[] = {"default"};

static const TngrtBundleDesc model_ModelOrigin_forward__desc = {
    .name = "model_ModelOrigin_forward",
    .entry = "ModelOrigin.forward",
    .script = "model.py",
    .ninputs = 5, .inputs = in_sig,
    .nweights = 0, .weights = NULL,
    .noutputs = 3, .outputs = out_sig,
    .nsyms = 0, .syms = NULL,
    .ngears = 1, .gears = gears,
    .nstreams = 1, .stream_names = stream_names,
    .nevents = 0,
};


#ifndef TNGC_GENERATED
/* Standing alone: an entry with no inputs, outputs or weights and one
 * empty static gear on one stream. */
static void tngc__no_outputs(const TngrtRunCtx *c, TngrtTensor *outs)
{
    (void)c;
    (void)outs;
}
static int tngc__no_launch(model_ModelOrigin_forward_t *self, TngcAclGear *G)
{
    (void)self;
    (void)G;
    return 0;
}
static const TngrtStreamFn g0_streams[] = {tngc__on_device};
static const TngrtGear gears[] = {{NULL, 0, NULL, 0, g0_streams, tngc__no_outputs}};
static const TngcAclStream tngc__streams[] = {{"default", 0}};
static const TngcAclGearCode tngc__gears[] = {{0, 0, 0, 0, 0, 0, 0, 0, tngc__no_launch, tngc__no_launch}};
static const signed char tngc__weight_returned[] = {0};
static const unsigned char tngc__weight_nz[] = {0};
static const TngrtBundleDesc model_ModelOrigin_forward__desc = {
    .name = "model_ModelOrigin_forward", .entry = "", .script = "", .ngears = 1, .gears = gears, .nstreams = 1,
};
#endif

/* ---- set-up and teardown ------------------------------------------------------ */

/* 0, or 1 with a device id from ASCEND_DEVICE_ID (the variable CANN's own
 * tools read), 0 when unset. */
static int tngc__device_id(model_ModelOrigin_forward_t *self, int32_t *out)
{
    const char *s = getenv("ASCEND_DEVICE_ID");
    char *end;
    long v;
    *out = 0;
    if (!s || !*s)
        return 0;
    v = strtol(s, &end, 10);
    if (*end || v < 0 || v > 1024)
        return tngc__fail(self, "ASCEND_DEVICE_ID='%s' is not a device number", s);
    *out = (int32_t)v;
    return 0;
}

/* Frees G's kept executors, then its descriptors (they are rebuilt for new
 * symbol values). */
static void tngc__gear_unbuild(TngcAclGear *G, const TngcAclGearCode *code)
{
    for (int k = code->nexec - 1; G->ex && k >= 0; k--)
        if (G->ex[k])
            (void)aclDestroyAclOpExecutor(G->ex[k]), G->ex[k] = NULL;
    for (int i = 0; G->t && i < code->ntensors; i++)
        if (G->t[i])
            (void)aclDestroyTensor(G->t[i]), G->t[i] = NULL;
    for (int i = 0; G->sc && i < code->nscalars; i++)
        if (G->sc[i])
            (void)aclDestroyScalar(G->sc[i]), G->sc[i] = NULL;
    for (int i = 0; G->ia && i < code->narrays; i++)
        if (G->ia[i])
            (void)aclDestroyIntArray(G->ia[i]), G->ia[i] = NULL;
    for (int i = 0; G->tl && i < code->nlists; i++)
        if (G->tl[i])
            (void)aclDestroyTensorList(G->tl[i]), G->tl[i] = NULL;
    G->built = 0;
}

/* Waits for every stream: after a failed run, work may still be queued on
 * the streams the launch forked to, and neither the next run's synchronous
 * copies nor a free may overlap it. A stream that fails to synchronise does
 * not stop the others; it is tried again before the next run. Returns 0,
 * or the first failure's code with its stream in *bad. */
static int tngc__settle(model_ModelOrigin_forward_t *self, int *bad)
{
    const TngrtBundleDesc *d = self->desc;
    int first = 0;
    self->unsettled = 0;
    for (int s = 0; self->stream && s < d->nstreams; s++) {
        int rc = self->stream[s] ? aclrtSynchronizeStream(self->stream[s]) : 0;
        if (rc != 0 && !first) {
            first = rc;
            *bad = s;
        }
        self->unsettled |= rc != 0;
    }
    return first;
}

/* Teardown: the streams synchronised, then every resource still held, in
 * reverse order of creation. Calls that fail here cannot be reported
 * (destroy returns nothing) and do not stop the rest. */
static void tngc__teardown(model_ModelOrigin_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    int bad;
    if (self->device_set && self->ctx)
        (void)aclrtSetCurrentContext(self->ctx);
    (void)tngc__settle(self, &bad);
    for (int g = d->ngears - 1; self->gear && g >= 0; g--) {
        TngcAclGear *G = &self->gear[g];
        if (G->ri)
            (void)aclmdlRIDestroy(G->ri);
        for (int s = d->nstreams - 1; G->ws && s >= 0; s--)
            if (G->ws[s])
                (void)aclrtFree(G->ws[s]);
        tngc__gear_unbuild(G, &tngc__gears[g]);
        if (G->arena)
            (void)aclrtFree(G->arena);
        free(G->t);
        free(G->sc);
        free(G->ia);
        free(G->tl);
        free(G->ex);
        free(G->ex_ws);
        free(G->ws);
        free(G->ws_cap);
        free(G->in);
        free(G->sym);
        free(G->off);
    }
    for (int i = d->nweights - 1; self->w_own && i >= 0; i--)
        if (self->w_own[i])
            (void)aclrtFree(self->w_own[i]);
    for (int s = d->nstreams - 1; self->join && s >= 1; s--)
        if (self->join[s])
            (void)aclrtDestroyEvent(self->join[s]);
    if (self->fork)
        (void)aclrtDestroyEvent(self->fork);
    for (int e = d->nevents - 1; self->event && e >= 0; e--)
        if (self->event[e])
            (void)aclrtDestroyEvent(self->event[e]);
    for (int s = d->nstreams - 1; self->stream && s >= 0; s--)
        if (self->stream[s])
            (void)aclrtDestroyStream(self->stream[s]);
    if (self->ctx)
        (void)aclrtDestroyContext(self->ctx);
    if (self->device_set)
        (void)aclrtResetDevice(self->device);
    for (int i = 0; self->w_host && i < d->nweights; i++)
        free(self->w_host[i]);
    free(self->w_host);
    free(self->w);
    free(self->w_own);
    free(self->wbind);
    free(self->event);
    free(self->join);
    free(self->stream);
    free(self->gear);
    free(self->host);
    free(self->in);
    free(self->dev_out);
    free(self->rec_t);
    free(self->rec_s);
    free(self->wait_name);
}

/* Checks the descriptor as libtngcrt's bundles do (tngrt_desc_check): each
 * run's input checks and gear selection are then tngrt_desc_select's. */
static int tngc__check_desc(model_ModelOrigin_forward_t *self, TngrtError *err)
{
    if (tngrt_desc_check(self->desc, err) != 0)
        return tngc__fail(self, "%s", err->msg);
    return 0;
}

/* Allocates the arrays of self and of its gears. */
static int tngc__alloc(model_ModelOrigin_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    size_t ns = (size_t)d->nstreams, nw = (size_t)d->nweights + 1, ni = (size_t)d->ninputs + 1;
    int ok;
    self->stream = calloc(ns, sizeof *self->stream);
    self->event = calloc((size_t)d->nevents + 1, sizeof *self->event);
    self->join = calloc(ns, sizeof *self->join);
    self->w = calloc(nw, sizeof *self->w);
    self->w_own = calloc(nw, sizeof *self->w_own);
    self->wbind = calloc(nw, 1);
    self->w_host = calloc(nw, sizeof *self->w_host);
    self->gear = calloc((size_t)d->ngears, sizeof *self->gear);
    self->in = calloc(ni, sizeof *self->in);
    self->dev_out = calloc((size_t)d->noutputs + 1, sizeof *self->dev_out);
    self->rec_t = calloc((size_t)d->nevents + 1, sizeof *self->rec_t);
    self->rec_s = calloc((size_t)d->nevents + 1, sizeof *self->rec_s);
    self->wait_name = calloc((size_t)d->nevents + 1, sizeof *self->wait_name);
    ok = self->stream && self->event && self->join && self->w && self->w_own && self->wbind && self->w_host && self->gear && self->in &&
         self->dev_out && self->rec_t && self->rec_s && self->wait_name;
    for (int e = 0; ok && e < d->nevents; e++)
        snprintf(self->wait_name[e], sizeof *self->wait_name, "wait e%d", e);
    for (int g = 0; ok && g < d->ngears; g++) {
        TngcAclGear *G = &self->gear[g];
        const TngcAclGearCode *code = &tngc__gears[g];
        int noff = d->gears[g].noff > 0 ? d->gears[g].noff : 1;
        G->t = calloc((size_t)code->ntensors + 1, sizeof *G->t);
        G->sc = calloc((size_t)code->nscalars + 1, sizeof *G->sc);
        G->ia = calloc((size_t)code->narrays + 1, sizeof *G->ia);
        G->tl = calloc((size_t)code->nlists + 1, sizeof *G->tl);
        G->ws = calloc(ns, sizeof *G->ws);
        G->ws_cap = calloc(ns, sizeof *G->ws_cap);
        G->in = calloc(ni, sizeof *G->in);
        G->sym = calloc((size_t)d->nsyms + 1, sizeof *G->sym);
        G->off = calloc((size_t)noff, sizeof *G->off);
        ok = G->t && G->sc && G->ia && G->tl && G->ws && G->ws_cap && G->in && G->sym && G->off;
        if (ok && code->reuse) {
            G->ex = calloc((size_t)code->nexec + 1, sizeof *G->ex);
            G->ex_ws = calloc((size_t)code->nexec + 1, sizeof *G->ex_ws);
            ok = G->ex && G->ex_ws;
        }
        G->dev.in = G->in;
        G->dev.w = self->w;
        G->dev.sym = G->sym;
        G->dev.off = G->off;
    }
    return ok ? 0 : tngc__fail(self, "%s: out of memory", d->name);
}

/* Bytes of a signature tensor with the symbol values sym. */
static int64_t tngc__sig_bytes(const TngrtSigTensor *t, const int64_t *sym)
{
    int64_t n = (int64_t)tngrt_dtype_size(t->dtype);
    for (int k = 0; k < t->ndim; k++)
        n *= t->dims[k].sym >= 0 ? sym[t->dims[k].sym] : t->dims[k].value;
    return n;
}

/* Makes G's arena hold its planner part (bytes) and its inputs with the
 * symbol values sym, and points G->in at them; grows it when needed. */
static int tngc__gear_arena(model_ModelOrigin_forward_t *self, TngcAclGear *G, int64_t bytes, const int64_t *sym)
{
    const TngrtBundleDesc *d = self->desc;
    int64_t need = (bytes + 63) & ~(int64_t)63, at = need;
    for (int i = 0; i < d->ninputs; i++)
        need += (tngc__sig_bytes(&d->inputs[i], sym) + 63) & ~(int64_t)63;
    if (need < 64)
        need = 64;
    if (need > G->arena_cap) {
        void *p = NULL;
        if (G->arena)
            TNGC_CHECK(aclrtFree(G->arena), "aclrtFree", NULL);
        G->arena = NULL;
        G->arena_cap = 0;
        TNGC_CHECK(aclrtMalloc(&p, (size_t)need, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc", NULL);
        G->arena = p;
        G->arena_cap = need;
    }
    G->arena_bytes = bytes;
    G->dev.arena = G->arena;
    for (int i = 0; i < d->ninputs; i++) {
        G->in[i] = G->arena + at;
        at += (tngc__sig_bytes(&d->inputs[i], sym) + 63) & ~(int64_t)63;
    }
    return 0;
}

/* Allocates every static gear's arena and builds its descriptors. */
static int tngc__gears_new(model_ModelOrigin_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    for (int g = 0; g < d->ngears; g++) {
        TngcAclGear *G = &self->gear[g];
        const TngrtGear *gear = &d->gears[g];
        if (gear->arena_bytes < 0)
            continue;   /* dynamic: placed at its first run */
        for (int s = 0; s < d->nsyms; s++)
            G->sym[s] = gear->symval[s];
        int64_t bytes = gear->arena_bytes;
        if (tngc__gears[g].scratch > 0)
            bytes = ((bytes + 63) & ~(int64_t)63) + tngc__gears[g].scratch;
        if (tngc__gear_arena(self, G, bytes, G->sym) != 0 || tngc__gears[g].build(self, G) != 0)
            return -1;
        G->built = 1;
    }
    return 0;
}

/* ---- FRACTAL_NZ weights ---- */

/* A weight every use of which is npu_format_cast(w, 29) into a matmul's
 * weight operand is stored on the device as torch_npu stores it, in
 * FRACTAL_NZ: ND [..., h, w] -> [..., ceil(w/w0), ceil(h/16), 16, w0]
 * (a 1-D [w] as [1, w]), zero padded, w0 = tngc__weight_nz[i] (16, or 32
 * for 1-byte dtypes: CANN's cube is 32 bytes wide, GE's
 * GetCubeSizeByDataType). The ND shape splits into times (the leading
 * dims), h and w. */
static void tngc__nz_split(const TngrtSigTensor *t, int64_t *times, int64_t *h, int64_t *w)
{
    *times = 1;
    for (int k = 0; k + 2 < t->ndim; k++)
        *times *= t->dims[k].value;
    *h = t->ndim >= 2 ? t->dims[t->ndim - 2].value : 1;
    *w = t->ndim >= 1 ? t->dims[t->ndim - 1].value : 1;
}

/* Bytes of weight t stored FRACTAL_NZ with blocks of w0 columns. */
static int64_t tngc__nz_bytes(const TngrtSigTensor *t, int w0)
{
    int64_t times, h, w;
    tngc__nz_split(t, &times, &h, &w);
    return times * ((w + w0 - 1) / w0) * ((h + 15) / 16) * 16 * w0 * (int64_t)tngrt_dtype_size(t->dtype);
}

/* dst (tngc__nz_bytes, zeroed) = the ND data src of t in FRACTAL_NZ: element
 * (i, j) of matrix m lands at block (j / w0, i / 16), row i % 16, column j % w0. */
static void tngc__nd_to_nz(unsigned char *dst, const unsigned char *src, const TngrtSigTensor *t, int w0)
{
    int64_t times, h, w, es = (int64_t)tngrt_dtype_size(t->dtype);
    tngc__nz_split(t, &times, &h, &w);
    int64_t h1 = (h + 15) / 16, w1 = (w + w0 - 1) / w0, block = h1 * 16 * w0;
    for (int64_t m = 0; m < times; m++)
        for (int64_t i = 0; i < h; i++)
            for (int64_t j = 0; j < w; j++)
                memcpy(dst + ((m * w1 + j / w0) * block + i * w0 + j % w0) * es, src + ((m * h + i) * w + j) * es,
                       (size_t)es);
}

/* Bytes of weight i on the device. */
static int64_t tngc__weight_bytes(const TngrtBundleDesc *d, int i)
{
    const TngrtSigTensor *w = &d->weights[i];
    return tngc__weight_nz[i] ? tngc__nz_bytes(w, tngc__weight_nz[i]) : tngc__sig_bytes(w, NULL);
}

/* Device blocks of the weights, and host copies of those an output returns. */
static int tngc__weights_new(model_ModelOrigin_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    for (int i = 0; i < d->nweights; i++) {
        int64_t n = tngc__weight_bytes(d, i);
        TNGC_CHECK(aclrtMalloc(&self->w_own[i], (size_t)(n > 0 ? n : 64), ACL_MEM_MALLOC_HUGE_FIRST),
                   "aclrtMalloc", NULL);
        self->w[i] = self->w_own[i];
        TNGC_CHECK(aclrtMemset(self->w[i], (size_t)(n > 0 ? n : 64), 0, (size_t)(n > 0 ? n : 64)), "aclrtMemset",
                   NULL);
        if (tngc__weight_returned[i] && !(self->w_host[i] = calloc(1, (size_t)n + 1)))
            return tngc__fail(self, "%s: out of memory", d->name);
    }
    return 0;
}

/* Chips that cannot capture a model run instance: aclmdlRICapture* is not
 * supported on the Atlas training series (Ascend 910, the SoC names
 * torch_npu lists for it) or on Atlas 200I/500 A2 (Ascend 310B). */
static const char *const tngc__no_capture_socs[] = {
    "Ascend910A", "Ascend910ProA", "Ascend910PremiumA", "Ascend910B", "Ascend910ProB",
    "Ascend310B1", "Ascend310B2", "Ascend310B3", "Ascend310B4",
};

/* Whether reduce-overhead gears are captured: when the chip can (else they
 * run eagerly, with the same results, and create says so in one warning
 * line); events are then created capture-safe when a capture takes in
 * more than one stream. */
static void tngc__capture_check(model_ModelOrigin_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    const char *soc;
    int any = 0;
    for (int g = 0; g < d->ngears; g++)
        any |= tngc__gears[g].capture;
    if (!any)
        return;
    self->capture_ok = 1;
    soc = aclrtGetSocName();   /* NULL: unknown, captured as usual */
    for (size_t i = 0; soc && i < sizeof tngc__no_capture_socs / sizeof *tngc__no_capture_socs; i++)
        if (!strcmp(soc, tngc__no_capture_socs[i]))
            self->capture_ok = 0;
    if (!self->capture_ok)
        snprintf(self->warning, sizeof self->warning,
                 "%s: %s cannot capture model run instances (aclmdlRICapture*): reduce-overhead runs eagerly, "
                 "with the same results",
                 d->name, soc);
    self->sync_events = self->capture_ok && d->nstreams > 1;
}

/* An event; one that may be recorded inside a capture is created with
 * ACL_EVENT_SYNC, as CANN's cross-stream capture guide asks. */
static int tngc__event_new(model_ModelOrigin_forward_t *self, aclrtEvent *e)
{
    if (self->sync_events)
        TNGC_CHECK(aclrtCreateEventExWithFlag(e, ACL_EVENT_SYNC), "aclrtCreateEventExWithFlag", NULL);
    else
        TNGC_CHECK(aclrtCreateEvent(e), "aclrtCreateEvent", NULL);
    return 0;
}

/* The device, the context, the streams (with their priorities), the events. */
static int tngc__device_new(model_ModelOrigin_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    int rc = aclInit(NULL);
    if (rc != 0 && rc != ACL_ERROR_REPEAT_INITIALIZE)
        return tngc__acl_fail(self, rc, "aclInit", NULL);
    if (tngc__device_id(self, &self->device) != 0)
        return -1;
    TNGC_CHECK(aclrtSetDevice(self->device), "aclrtSetDevice", NULL);
    self->device_set = 1;
    TNGC_CHECK(aclrtCreateContext(&self->ctx, self->device), "aclrtCreateContext", NULL);
    tngc__capture_check(self);
    for (int s = 0; s < d->nstreams; s++)
        TNGC_CHECK(aclrtCreateStreamWithConfig(&self->stream[s], tngc__streams[s].priority, 0),
                   "aclrtCreateStreamWithConfig", NULL);
    for (int e = 0; e < d->nevents; e++)
        if (tngc__event_new(self, &self->event[e]) != 0)
            return -1;
    if (tngc__event_new(self, &self->fork) != 0)
        return -1;
    for (int s = 1; s < d->nstreams; s++)
        if (tngc__event_new(self, &self->join[s]) != 0)
            return -1;
    return 0;
}

int model_ModelOrigin_forward_create(model_ModelOrigin_forward_t **out, TngrtError *err)
{
    model_ModelOrigin_forward_t *self = calloc(1, sizeof *self);
    *out = NULL;
    if (!self) {
        snprintf(err->msg, sizeof err->msg, "model_ModelOrigin_forward: out of memory");
        return -1;
    }
    self->desc = &model_ModelOrigin_forward__desc;
    self->st.desc = self->desc;
    self->st.nz = tngc__weight_nz;
    if (tngc__alloc(self) != 0 || tngc__check_desc(self, err) != 0 || tngc__device_new(self) != 0 ||
        tngc__weights_new(self) != 0 || tngc__gears_new(self) != 0) {
        snprintf(err->msg, sizeof err->msg, "%.*s", (int)sizeof err->msg - 1, self->err);
        tngc__teardown(self);
        free(self);
        return -1;
    }
    self->st.device = self->device;
    self->st.w = self->w;
    snprintf(err->msg, sizeof err->msg, "%s", self->warning);   /* "" or one warning line */
    *out = self;
    return 0;
}

void model_ModelOrigin_forward_destroy(model_ModelOrigin_forward_t *self)
{
    if (!self)
        return;
    tngc__teardown(self);
    free(self->unused);
    free(self);
}

/* ---- weights ------------------------------------------------------------------ */

static int tngc__cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Lists the tensors of st that are no state_dict key of the module (a
 * weight, an alias of one, or a key the model never reads; file order), in
 * one block: the pointers, then the names, replacing the previous list.
 * The keys are sorted once and each tensor is looked up among them, so the
 * work is O((keys + tensors) log keys), whatever the file holds. */
static int tngc__note_unused(model_ModelOrigin_forward_t *self, const TngrtSafetensors *st, const char *path)
{
    const TngrtBundleDesc *d = self->desc;
    int n = 0, count = tngrt_safetensors_count(st);
    int nkeys = d->nweights + d->naliases + d->nunread, k = 0;
    size_t bytes = 0;
    char **list, *at;
    const char **keys = malloc(((size_t)nkeys + 1) * sizeof *keys);
    unsigned char *used = calloc((size_t)count + 1, 1);
    if (!keys || !used) {
        free(keys);
        free(used);
        return tngc__fail(self, "%s: out of memory", path);
    }
    for (int i = 0; i < d->nweights; i++)
        keys[k++] = d->weights[i].name;
    for (int i = 0; i < d->naliases; i++)
        keys[k++] = d->aliases[i].name;
    for (int i = 0; i < d->nunread; i++)
        keys[k++] = d->unread[i];
    qsort(keys, (size_t)nkeys, sizeof *keys, tngc__cmp_name);
    for (int i = 0; i < count; i++) {
        const char *name = tngrt_safetensors_name(st, i);
        used[i] = bsearch(&name, keys, (size_t)nkeys, sizeof *keys, tngc__cmp_name) != NULL;
        if (!used[i]) {
            n++;
            bytes += strlen(name) + 1;
        }
    }
    free(keys);
    if (!(list = malloc((size_t)n * sizeof *list + bytes + 1))) {
        free(used);
        return tngc__fail(self, "%s: out of memory", path);
    }
    at = (char *)(list + n);
    n = 0;
    for (int i = 0; i < count; i++) {
        const char *name = tngrt_safetensors_name(st, i);
        if (used[i])
            continue;
        list[n++] = at;
        memcpy(at, name, strlen(name) + 1);
        at += strlen(name) + 1;
    }
    free(used);
    free(self->unused);
    self->unused = list;
    self->nunused = n;
    return 0;
}

int model_ModelOrigin_forward_unused_count(const model_ModelOrigin_forward_t *self)
{
    return self->nunused;
}

const char *model_ModelOrigin_forward_unused_name(const model_ModelOrigin_forward_t *self, int i)
{
    return i >= 0 && i < self->nunused ? self->unused[i] : NULL;
}

int model_ModelOrigin_forward_load_weights(model_ModelOrigin_forward_t *self, const char *path)
{
    const TngrtBundleDesc *d = self->desc;
    TngrtSafetensors *st = NULL;
    TngrtTensor *views;
    TngrtError e;
    unsigned char *nz = NULL;   /* a weight in FRACTAL_NZ */
    int rc = -1;
    self->err[0] = '\0';
    if (!path)
        return tngc__fail(self, "no weights file given");
    TNGC_CHECK(aclrtSetCurrentContext(self->ctx), "aclrtSetCurrentContext", NULL);
    if (tngrt_weights_open(path, &st, &e) != 0)
        return tngc__fail(self, "%s", e.msg);
    views = calloc((size_t)d->nweights + 1, sizeof *views);
    if (!views) {
        tngc__fail(self, "%s: out of memory", path);
        goto out;
    }
    for (int i = 0; i < d->nweights; i++) {
        const TngrtSigTensor *w = &d->weights[i];
        int same;
        if (tngrt_safetensors_find(st, tngrt_desc_weight_key(d, st, i), &views[i], &e) != 0) {
            if (w->flags & TNGRT_SIG_ZEROS) {   /* state that starts at zeros: data NULL */
                memset(&views[i], 0, sizeof views[i]);
                continue;
            }
            tngc__fail(self, "%s: weight '%s' is missing", path, w->name);
            goto out;
        }
        same = views[i].dtype == w->dtype && views[i].ndim == w->ndim &&
               (int64_t)views[i].nbytes == tngc__sig_bytes(w, NULL);
        for (int k = 0; same && k < w->ndim; k++)
            same = views[i].shape[k] == w->dims[k].value;
        if (!same) {
            tngc__fail(self, "%s: weight '%s' has another dtype or shape than the model's (%s, %d dims)", path,
                       w->name, tngrt_dtype_name(w->dtype), w->ndim);
            goto out;
        }
    }
    if (tngc__note_unused(self, st, path) != 0)
        goto out;
    /* every weight checked: only now change the device copies */
    for (int i = 0; i < d->nweights; i++) {
        const void *data = views[i].data;
        size_t n = views[i].nbytes;
        if (!data && (d->weights[i].flags & TNGRT_SIG_ZEROS)) {   /* not in the file: zeros */
            n = (size_t)tngc__weight_bytes(d, i);
            if (n > 0 && (rc = aclrtMemset(self->w[i], n, 0, n)) != 0) {
                tngc__acl_fail(self, rc, "aclrtMemset", NULL);
                rc = -1;
                goto out;
            }
            if (self->w_host[i])
                memset(self->w_host[i], 0, (size_t)tngc__sig_bytes(&d->weights[i], NULL));
            continue;
        }
        if (n == 0)
            continue;
        if (tngc__weight_nz[i]) {   /* its FRACTAL_NZ layout, built on the host */
            n = (size_t)tngc__weight_bytes(d, i);
            free(nz);
            if (!(nz = calloc(1, n))) {
                tngc__fail(self, "%s: out of memory", path);
                goto out;
            }
            tngc__nd_to_nz(nz, views[i].data, &d->weights[i], tngc__weight_nz[i]);
            data = nz;
        }
        rc = aclrtMemcpy(self->w[i], n, data, n, ACL_MEMCPY_HOST_TO_DEVICE);
        if (rc != 0) {
            tngc__acl_fail(self, rc, "aclrtMemcpy", NULL);
            rc = -1;
            goto out;
        }
        if (self->w_host[i])
            memcpy(self->w_host[i], views[i].data, views[i].nbytes);
    }
    rc = 0;
out:
    free(nz);
    free(views);
    tngrt_safetensors_close(st);
    return rc;
}

/* ---- running ------------------------------------------------------------------ */

/* Gears with run-time dims (an unbound symbol): checks every shape and
 * places the buffers for the run's symbols (gN_layout), grows the arena
 * and (re)builds the descriptors when the symbols changed. Returns 0,
 * TNGRT_BAD_INPUT when the input shapes make a tensor or the arena pass
 * TNGRT_MAX_BYTES, or -1. */
static int tngc__gear_prepare(model_ModelOrigin_forward_t *self, int g, const int64_t *sym)
{
    const TngrtBundleDesc *d = self->desc;
    const TngrtGear *gear = &d->gears[g];
    TngcAclGear *G = &self->gear[g];
    int64_t bytes = 0;
    int same = G->built;
    if (gear->arena_bytes >= 0)
        return 0;
    for (int s = 0; same && s < d->nsyms; s++)
        same = G->sym[s] == sym[s];
    if (same)
        return 0;
    tngc__gear_unbuild(G, &tngc__gears[g]);
    for (int s = 0; s < d->nsyms; s++)
        G->sym[s] = sym[s];
    if (gear->layout(G->sym, G->off, &bytes) != 0 || bytes < 0) {
        tngc__fail(self, "%s: gear %d: the input shapes make a tensor or the arena larger than 2^48 bytes, "
                   "the most a bundle handles", d->name, g);
        return TNGRT_BAD_INPUT;
    }
    if (tngc__gear_arena(self, G, bytes, G->sym) != 0 || tngc__gears[g].build(self, G) != 0)
        return -1;
    G->built = 1;
    return 0;
}

/* The symbol values of the inputs in gear g. */
static void tngc__symbols(const TngrtBundleDesc *d, int g, const TngrtTensor *inputs, int64_t *sym)
{
    for (int s = 0; s < d->nsyms; s++) {
        sym[s] = d->gears[g].symval[s];
        if (sym[s] == INT64_MIN)
            sym[s] = inputs[d->syms[s].input].shape[d->syms[s].dim];
    }
}

/* Stream 0 forks to the other streams at the start of a launch and joins
 * them at its end (what a capture on stream 0 needs to take them in). */
static int tngc__fork(model_ModelOrigin_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    if (d->nstreams < 2)
        return 0;
    TNGC_CHECK(aclrtRecordEvent(self->fork, self->stream[0]), "aclrtRecordEvent", NULL);
    for (int s = 1; s < d->nstreams; s++)
        TNGC_CHECK(aclrtStreamWaitEvent(self->stream[s], self->fork), "aclrtStreamWaitEvent", NULL);
    return 0;
}

static int tngc__join(model_ModelOrigin_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    for (int s = 1; s < d->nstreams; s++) {
        TNGC_CHECK(aclrtRecordEvent(self->join[s], self->stream[s]), "aclrtRecordEvent", NULL);
        TNGC_CHECK(aclrtStreamWaitEvent(self->stream[0], self->join[s]), "aclrtStreamWaitEvent", NULL);
    }
    return 0;
}

static int tngc__launch(model_ModelOrigin_forward_t *self, int g)
{
    return tngc__fork(self) != 0 || tngc__gears[g].launch(self, &self->gear[g]) != 0 || tngc__join(self) != 0
               ? -1
               : 0;
}

/* Runs gear g on the device: eagerly, or (reduce-overhead, static gears,
 * a chip that can capture) eagerly once, then captured once and replayed. */
static int tngc__execute(model_ModelOrigin_forward_t *self, int g)
{
    TngcAclGear *G = &self->gear[g];
    aclmdlRI ri = NULL;
    int rc, end;
    if (G->captured) {
        uint64_t t0 = tngc__now(self);
        TNGC_CHECK(aclmdlRIExecuteAsync(G->ri, self->stream[0]), "aclmdlRIExecuteAsync", NULL);
        tngc__slice(self, 0, "replay (aclmdlRIExecuteAsync)", t0);
        return 0;
    }
    if (tngc__launch(self, g) != 0)
        return -1;
    if (!tngc__gears[g].capture || !self->capture_ok)
        return 0;
    /* the eager run sized the workspaces: capture the same launch */
    TNGC_CHECK(aclrtSynchronizeStream(self->stream[0]), "aclrtSynchronizeStream", NULL);
    /* thread-local: other threads of the program may go on copying */
    TNGC_CHECK(aclmdlRICaptureBegin(self->stream[0], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL), "aclmdlRICaptureBegin",
               NULL);
    G->capturing = 1;
    rc = tngc__launch(self, g);
    G->capturing = 0;
    end = aclmdlRICaptureEnd(self->stream[0], &ri);   /* also after a failed launch: the capture ends */
    if (rc != 0 || end != 0) {
        if (ri)
            (void)aclmdlRIDestroy(ri);
        return rc != 0 ? -1 : tngc__acl_fail(self, end, "aclmdlRICaptureEnd", NULL);
    }
    G->ri = ri;
    G->captured = 1;
    return 0;
}

/* The host arena, grown to bytes. */
static int tngc__host_arena(model_ModelOrigin_forward_t *self, int64_t bytes)
{
    unsigned char *p;
    if (bytes <= self->host_cap)
        return 0;
    p = malloc((size_t)bytes);
    if (!p)
        return tngc__fail(self, "%s: out of memory for %lld bytes of outputs", self->desc->name, (long long)bytes);
    free(self->host);
    self->host = p;
    self->host_cap = bytes;
    return 0;
}

/* Copies the outputs, and the inputs updated in place, back to the host. */
static int tngc__fetch(model_ModelOrigin_forward_t *self, int g, const int64_t *sym, TngrtTensor *outputs)
{
    const TngrtBundleDesc *d = self->desc;
    TngcAclGear *G = &self->gear[g];
    TngrtRunCtx host = {self->host, self->in, self->w_host, sym, G->off, NULL};  /* no packed weights on the host side of ACL */
    if (tngc__host_arena(self, G->arena_bytes > 0 ? G->arena_bytes : 64) != 0)
        return -1;
    host.arena = self->host;
    memset(outputs, 0, (size_t)d->noutputs * sizeof *outputs);
    d->gears[g].outputs(&G->dev, self->dev_out);
    d->gears[g].outputs(&host, outputs);
    for (int i = 0; i < d->noutputs; i++)
        if (outputs[i].nbytes > 0)
            TNGC_CHECK(aclrtMemcpy(outputs[i].data, outputs[i].nbytes, self->dev_out[i].data, outputs[i].nbytes,
                                   ACL_MEMCPY_DEVICE_TO_HOST),
                       "aclrtMemcpy", NULL);
    for (int i = 0; i < d->ninputs; i++) {
        size_t n = (size_t)tngc__sig_bytes(&d->inputs[i], sym);
        if ((d->inputs[i].flags & TNGRT_SIG_UPDATED) && n > 0)
            TNGC_CHECK(aclrtMemcpy(self->in[i], n, G->in[i], n, ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy", NULL);
    }
    return 0;
}

/* The device part of a run of gear g: the inputs in, the launch, the
 * outputs out. */
static int tngc__run_gear(model_ModelOrigin_forward_t *self, int g, const int64_t *sym, const TngrtTensor *inputs, int ninputs,
                          TngrtTensor *outputs)
{
    int rc;
    uint64_t t0;
    if ((rc = tngc__gear_prepare(self, g, sym)) != 0)
        return rc;
    t0 = tngc__now(self);
    for (int i = 0; i < ninputs; i++) {
        self->in[i] = inputs[i].data;
        if (inputs[i].nbytes > 0)
            TNGC_CHECK(aclrtMemcpy(self->gear[g].in[i], inputs[i].nbytes, inputs[i].data, inputs[i].nbytes,
                                   ACL_MEMCPY_HOST_TO_DEVICE),
                       "aclrtMemcpy", NULL);
    }
    tngc__slice(self, 0, "inputs to the device (aclrtMemcpy)", t0);
    if (tngc__execute(self, g) != 0)
        return -1;
    t0 = tngc__now(self);
    TNGC_CHECK(aclrtSynchronizeStream(self->stream[0]), "aclrtSynchronizeStream", NULL);
    tngc__slice(self, 0, "synchronize (aclrtSynchronizeStream)", t0);
    t0 = tngc__now(self);
    rc = tngc__fetch(self, g, sym, outputs);
    tngc__slice(self, 0, "outputs to the host (aclrtMemcpy)", t0);
    return rc;
}

int model_ModelOrigin_forward_run(model_ModelOrigin_forward_t *self, const TngrtTensor *inputs, int ninputs, TngrtTensor *outputs,
                      int noutputs)
{
    const TngrtBundleDesc *d = self->desc;
    int64_t sym[64];
    int g, rc, src, bad = 0;
    self->err[0] = '\0';
    if (noutputs != d->noutputs || (noutputs > 0 && !outputs))
        return tngc__fail(self, "%s returns %d outputs, got room for %d", d->entry, d->noutputs,
                          outputs ? noutputs : 0);
    if (d->nsyms > 64)
        return tngc__fail(self, "%s: more than 64 symbols", d->name);
    for (int k = 0; k < d->nshared; k++)
        if (self->wbind[d->shared[k].weight] == TNGC_BIND_NONE)
            return tngc__fail(self, "the state '%s' is shared with the bundle of %s (its '%s'): bind the two "
                              "with %s_share_state, or give this one a copy of its own with %s_own_state",
                              d->weights[d->shared[k].weight].name, d->shared[k].entry, d->shared[k].name, d->name,
                              d->name);
    g = tngrt_desc_select(d, inputs, ninputs, sym, self->err, sizeof self->err);
    if (g < 0)   /* a dtype, rank or shape in no gear: the inputs are at fault */
        return TNGRT_BAD_INPUT;
    TNGC_CHECK(aclrtSetCurrentContext(self->ctx), "aclrtSetCurrentContext", NULL);
    /* a stream of an earlier failed run that did not synchronise: again */
    if (self->unsettled && (src = tngc__settle(self, &bad)) != 0)
        return tngc__acl_fail(self, src, "aclrtSynchronizeStream", NULL);
    tngc__symbols(d, g, inputs, sym);
    rc = tngc__run_gear(self, g, sym, inputs, ninputs, outputs);
    /* a failed launch may have left work queued on other streams */
    if (rc != 0 && (src = tngc__settle(self, &bad)) != 0) {
        size_t n = strlen(self->err);
        snprintf(self->err + n, sizeof self->err - n, " (then aclrtSynchronizeStream of stream %d failed: error %d)",
                 bad, src);
    }
    return rc;
}

/* ---- state shared between bundles ------------------------------------------- */

/* The weight of desc d named name, or -1. */
static int tngc__weight_named(const TngrtBundleDesc *d, const char *name)
{
    for (int j = 0; j < d->nweights; j++)
        if (!strcmp(d->weights[j].name, name))
            return j;
    return -1;
}

/* Why weight j of owner o cannot hold the shared weight i of self, or NULL. */
static const char *tngc__share_mismatch(const model_ModelOrigin_forward_t *self, int i, const struct TngcAclState *o, int j)
{
    const TngrtSigTensor *w = &self->desc->weights[i], *ow;
    if (j < 0)
        return "does not have";
    ow = &o->desc->weights[j];
    if (ow->dtype != w->dtype || o->nz[j] != tngc__weight_nz[i] ||
        tngc__sig_bytes(ow, NULL) != tngc__sig_bytes(w, NULL))
        return "holds with another dtype or size";
    if (!(ow->flags & (TNGRT_SIG_UPDATED | TNGRT_SIG_SHARED)))
        return "does not keep as state";
    return NULL;
}

/* The descriptors of every gear dropped (and its capture) and the static
 * ones built again over the weights' device addresses now; a dynamic gear
 * is built at its next run. */
static int tngc__gears_rebuild(model_ModelOrigin_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    int bad;
    TNGC_CHECK(aclrtSetCurrentContext(self->ctx), "aclrtSetCurrentContext", NULL);
    if (tngc__settle(self, &bad) != 0)
        return tngc__fail(self, "%s: stream %d did not synchronise", d->name, bad);
    for (int g = 0; g < d->ngears; g++) {
        TngcAclGear *G = &self->gear[g];
        if (G->ri)
            TNGC_CHECK(aclmdlRIDestroy(G->ri), "aclmdlRIDestroy", NULL);
        G->ri = NULL;
        G->captured = 0;
        tngc__gear_unbuild(G, &tngc__gears[g]);
    }
    return tngc__gears_new(self);
}

int model_ModelOrigin_forward_share_state(model_ModelOrigin_forward_t *self, const void *owner)
{
    const TngrtBundleDesc *d = self->desc, *od;
    const struct TngcAclState *o = owner;
    int bound = 0;
    self->err[0] = '\0';
    if (!owner || owner == (const void *)self)
        return tngc__fail(self, "%s_share_state: %s", d->name,
                          owner ? "a bundle shares no state with itself" : "no owner bundle");
    od = o->desc;
    if (o->device != self->device)
        return tngc__fail(self, "%s_share_state: the bundle '%s' is on device %d, this one on %d", d->name, od->name,
                          (int)o->device, (int)self->device);
    /* check every row first: a failed call binds nothing */
    for (int k = 0; k < d->nshared; k++) {
        const TngrtStateShare *r = &d->shared[k];
        const char *why;
        if (!od->entry || strcmp(r->entry, od->entry) != 0)
            continue;
        if ((why = tngc__share_mismatch(self, r->weight, o, tngc__weight_named(od, r->name))) != NULL)
            return tngc__fail(self, "the state '%s' is shared with %s's '%s', which the bundle '%s' %s",
                              d->weights[r->weight].name, r->entry, r->name, od->name, why);
        bound++;
    }
    if (bound == 0)
        return tngc__fail(self, "the bundle '%s' (%s) shares no state with the bundle '%s' (%s)", d->name, d->entry,
                          od->name, od->entry ? od->entry : "?");
    for (int k = 0; k < d->nshared; k++) {
        const TngrtStateShare *r = &d->shared[k];
        if (!strcmp(r->entry, od->entry)) {
            self->w[r->weight] = o->w[tngc__weight_named(od, r->name)];
            self->wbind[r->weight] = TNGC_BIND_SHARED;
        }
    }
    return tngc__gears_rebuild(self) != 0 ? -1 : bound;
}

int model_ModelOrigin_forward_own_state(model_ModelOrigin_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    int moved = 0;
    self->err[0] = '\0';
    for (int k = 0; k < d->nshared; k++) {
        int i = d->shared[k].weight;
        moved |= self->w[i] != self->w_own[i];
        self->w[i] = self->w_own[i];
        self->wbind[i] = TNGC_BIND_OWN;
    }
    return moved ? tngc__gears_rebuild(self) : 0;
}

/* ---- the signature ------------------------------------------------------------ */

const TngrtBundleDesc *model_ModelOrigin_forward_desc(void)
{
    return &model_ModelOrigin_forward__desc;
}

const TngrtBundleDesc *model_ModelOrigin_forward_signature(const model_ModelOrigin_forward_t *self)
{
    return self->desc;
}

/* Attaches trace (NULL detaches) to the following runs; the bundle does not
 * own it. Host clocks: per stream, each op's two-phase call (named by its
 * place in the script) and each event wait (a flow arrow from its record);
 * on stream 0 also the input copies, the replay of a captured run, the
 * final synchronisation (where the device's time shows) and the output
 * copies. The trace needs the signature's nstreams tracks. */
void model_ModelOrigin_forward_set_trace(model_ModelOrigin_forward_t *self, TngrtTrace *trace)
{
    self->trace = trace;
}

const char *model_ModelOrigin_forward_last_error(const model_ModelOrigin_forward_t *self)
{
    return self->err;
}
/* generated from model.py by tngc 0.2.0, do not edit */
/*
 * One model bundle on an Ascend NPU (template of <name>.c for
 * `tngc gen --target acl`).
 *
 * The same API as the CPU target's (<name>.h, templates/model_ModelSuperKernel_forward.h):
 * host tensors in and out, the gear chosen from the input shapes. Under
 * it, AscendCL:
 *
 *   create        aclInit (once per process; a repeated call is fine),
 *                 aclrtSetDevice, aclrtCreateContext; one aclrtStream per
 *                 plan stream, created with the stream's recorded priority;
 *                 one aclrtEvent per plan event (plus a fork event and one
 *                 join event per extra stream), ACL_EVENT_SYNC events
 *                 (aclrtCreateEventExWithFlag) when a capture records them;
 *                 a chip that cannot capture (aclrtGetSocName: Atlas
 *                 training series, Atlas 200I/500 A2) runs reduce-overhead
 *                 eagerly, said in one warning line in create's err; per
 *                 gear one device arena (the planner's offsets, then the
 *                 gear's inputs), allocated once, and the gear's
 *                 aclTensor/aclScalar/aclIntArray/
 *                 aclTensorList descriptors, built once (gears whose sizes
 *                 depend on an unbound symbol: at their first run, and
 *                 again when the symbols change); the weights' device blocks.
 *   load_weights  safetensors, a safetensors index or a torch.save file
 *                 (libtngcrt, tngrt_weights_open) -> device (aclrtMemcpy), once.
 *   run           libtngcrt checks the inputs and selects the gear (the
 *                 same messages as the CPU target); the inputs are copied to
 *                 the gear's device buffers; the gear's launch function
 *                 issues every op on its stream (aclnnXxxGetWorkspaceSize,
 *                 then aclnnXxx) with the plan's event records and waits; in
 *                 reduce-overhead mode a static gear's launch is captured
 *                 once into a model run instance (aclmdlRICaptureBegin/End)
 *                 and replayed (aclmdlRIExecuteAsync) from then on; stream 0
 *                 is synchronised; the outputs (and inputs updated in place)
 *                 are copied back to host memory the bundle owns. After a
 *                 failure every stream is synchronised: no work of a
 *                 failed run overlaps the next run's copies or a free.
 *   destroy       every stream synchronised, then everything above in
 *                 reverse order of creation; aclrtResetDevice. aclFinalize
 *                 is left to the program: other bundles or libraries of the
 *                 process may still use AscendCL.
 *
 * Every AscendCL call is checked; a failure gives the bundle's last error
 * "<script>:<line>:<col>: <op> %<value>: <call> failed: error <code>: <the
 * runtime's own message>" (the script location of the op, or of the
 * compiled entry for calls that belong to no op).
 *
 * tngc replaces "model_ModelSuperKernel_forward" by the bundle's name, the marker line
 * "@tngc:helpers@" by the dim helpers of templates/bundle.c (one source for
 * both targets) and "@tngc:body@" by the generated part: per gear the
 * descriptor-building and launch functions, the layout and outputs
 * functions, then the stream table, the gear table and the descriptor.
 * Standing alone, the file compiles (against AscendCL's headers) with an
 * empty entry in place of the body.
 */
#include "model_ModelSuperKernel_forward.h"

#include "acl/acl.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- aclnn: CANN 8.1.RC1's declarations ------------------------------------- */
/* CANN's aclnn headers are C++ (aclnn/acl_meta.h includes <cstdint> and
 * declares a constexpr; some aclnnop/ headers include <string>), and this
 * file is C: it includes only acl/acl.h (C) and declares here the aclnn
 * types and functions it uses, exactly as aclnn/acl_meta.h declares them
 * (extern "C" there: the C symbols CANN's libraries export). The body
 * declares the operators it calls the same way (codegen/acl_ops.c), and
 * tests/acl/real_cann.sh checks both against CANN's headers in C++, where
 * a declaration that differs is an error. */
typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclTensorList aclTensorList;
typedef int32_t aclnnStatus;

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t *stride,
                           int64_t offset, aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,
                           void *tensorData);
aclScalar *aclCreateScalar(void *value, aclDataType dataType);
aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size);
aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size);
aclnnStatus aclDestroyTensor(const aclTensor *tensor);
aclnnStatus aclDestroyScalar(const aclScalar *scalar);
aclnnStatus aclDestroyIntArray(const aclIntArray *array);
aclnnStatus aclDestroyTensorList(const aclTensorList *array);
aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor);
aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);
/* ---- end of aclnn declarations ---- */

#if defined(__GNUC__)
#define TNGC_MAYBE_UNUSED __attribute__((unused))
#else
#define TNGC_MAYBE_UNUSED
#endif

/* The dim helpers of templates/bundle.c. */
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
#ifndef TNGC_DIM_BAD   /* standing alone: the helpers are not spliced in */
#define TNGC_DIM_BAD INT64_MIN
#endif

/* ---- the device side of a gear --------------------------------------------- */

/* What the generated body says about a gear. */
typedef struct TngcAclGear TngcAclGear;
typedef struct TngcAclGearCode {
    int ntensors, nscalars, narrays, nlists;   /* its descriptors */
    int capture;               /* reduce-overhead, static: captured once and replayed */
    int nexec;                 /* its aclnn calls (TNGC_ACLNN's k: 0, 1, ...) */
    int reuse;                 /* static, not captured: executors made repeatable at the
                                * first run, launched again on later runs */
    int64_t scratch;           /* static: bytes of its ops' scratch (attention scores),
                                * after the planner's part of the arena (64-aligned) */
    /* Creates the gear's descriptors over its device addresses (G->dev). */
    int (*build)(model_ModelSuperKernel_forward_t *self, TngcAclGear *G);
    /* Issues the gear's ops, events and waits on the streams. */
    int (*launch)(model_ModelSuperKernel_forward_t *self, TngcAclGear *G);
} TngcAclGearCode;

/* A plan stream: its tag and the priority its aclrtStream is created with. */
typedef struct TngcAclStream {
    const char *tag;
    uint32_t priority;
} TngcAclStream;

/* A gear's device state. */
struct TngcAclGear {
    unsigned char *arena;      /* device: the planner's offsets, then the inputs */
    int64_t arena_cap;         /* bytes allocated */
    int64_t arena_bytes;       /* of which the planner's part */
    TngrtRunCtx dev;           /* device addresses the descriptors use */
    void **in;                 /* device input buffers (inside the arena) */
    int64_t *sym;              /* symbol values the descriptors were built for */
    int64_t *off;              /* dynamic gears: buffer offsets (layout) */
    aclTensor **t;
    aclScalar **sc;
    aclIntArray **ia;
    aclTensorList **tl;
    int built;
    aclOpExecutor **ex;        /* reuse: per aclnn call its repeatable executor, or NULL */
    uint64_t *ex_ws;           /* ... and the workspace size it asked for */
    void **ws;                 /* per stream: the aclnn workspace */
    uint64_t *ws_cap;
    aclmdlRI ri;               /* the captured run (reduce-overhead) */
    int capturing, captured;
};

/* What another entry's ACL bundle reads of this one to share its state
 * (_share_state): every ACL bundle's handle begins with it, so a handle
 * of any of them points at one. */
struct TngcAclState {
    const TngrtBundleDesc *desc;
    int32_t device;
    void *const *w;                /* weights on the device */
    const unsigned char *nz;       /* per weight: its FRACTAL_NZ block width, 0: ND */
};

/* A weight shared with another entry's bundle: bound to nothing yet (runs
 * refuse), to its own block, or to the owner's. */
enum { TNGC_BIND_NONE, TNGC_BIND_OWN, TNGC_BIND_SHARED };

struct model_ModelSuperKernel_forward_acl {
    struct TngcAclState st;        /* first: what _share_state reads of an owner */
    const TngrtBundleDesc *desc;
    int32_t device;
    int device_set;
    aclrtContext ctx;
    aclrtStream *stream;           /* per plan stream */
    aclrtEvent *event;             /* per plan event */
    aclrtEvent fork;               /* stream 0's start, waited by the others */
    aclrtEvent *join;              /* stream s's end, waited by stream 0 */
    int capture_ok;                /* the chip can capture (aclrtGetSocName) */
    int sync_events;               /* events may be recorded in a capture: ACL_EVENT_SYNC */
    int unsettled;                 /* a stream failed to synchronise after a failed run */
    char warning[256];             /* create's warning ("" when none) */
    void **w;                      /* weights on the device: w_own's, or an owner's (shared state) */
    void **w_own;                  /* the device blocks this bundle allocated */
    unsigned char *wbind;          /* per weight shared with another entry: TNGC_BIND_* */
    void **w_host;                 /* host copies of weights an output returns */
    TngcAclGear *gear;
    unsigned char *host;           /* host arena: outputs come back here */
    int64_t host_cap;
    void **in;                     /* the run's host inputs */
    TngrtTensor *dev_out;          /* scratch: output views of device memory */
    char **unused;                 /* tensors of the weights file that are no weight */
    int nunused;
    TngrtTrace *trace;             /* _set_trace: the runs' host times go here (not owned) */
    uint64_t *rec_t;               /* per plan event: the host time of its last record */
    int *rec_s;                    /* ... and its stream */
    char (*wait_name)[24];         /* per plan event: "wait eN", its waits' slice name */
    char err[TNGRT_BUNDLE_MSG];    /* the last failure (tngrt_desc_select writes its message here) */
};

/* ---- errors ------------------------------------------------------------------- */

static int tngc__fail(model_ModelSuperKernel_forward_t *self, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(self->err, sizeof self->err, fmt, ap);
    va_end(ap);
    return -1;
}

/* A failed AscendCL call: its name, where (script:line:col: op, or NULL for
 * the entry), the code and the runtime's own last message. */
static int tngc__acl_fail(model_ModelSuperKernel_forward_t *self, int rc, const char *call, const char *where)
{
    const char *m = aclGetRecentErrMsg();
    return tngc__fail(self, "%s%s%s: %s failed: error %d%s%s", where ? where : self->desc->script,
                      where ? "" : ": ", where ? "" : self->desc->entry, call, rc,
                      m && *m ? ": " : "", m && *m ? m : "");
}

#define TNGC_CHECK(call, name, where)                                   \
    do {                                                                \
        int tngc__rc = (int)(call);                                     \
        if (tngc__rc != 0)                                              \
            return tngc__acl_fail(self, tngc__rc, (name), (where));     \
    } while (0)

/* A descriptor that the creating call returned as NULL. */
#define TNGC_NEW(slot, expr, name, where)                               \
    do {                                                                \
        if (!((slot) = (expr)))                                         \
            return tngc__acl_fail(self, -1, (name), (where));           \
    } while (0)

/* ---- what the launch functions call ----------------------------------------- */

/* G's workspace on stream s, grown to bytes: the stream is synchronised
 * first (the old block may be in use); never during a capture. */
TNGC_MAYBE_UNUSED static int tngc__workspace(model_ModelSuperKernel_forward_t *self, TngcAclGear *G, int s, uint64_t bytes,
                                             void **out, const char *where)
{
    *out = G->ws[s];
    if (bytes <= G->ws_cap[s])
        return 0;
    if (G->capturing || G->captured)
        return tngc__fail(self, "%s: a workspace grew while its gear was captured", where);
    TNGC_CHECK(aclrtSynchronizeStream(self->stream[s]), "aclrtSynchronizeStream", where);
    if (G->ws[s])
        TNGC_CHECK(aclrtFree(G->ws[s]), "aclrtFree", where);
    G->ws[s] = NULL;
    G->ws_cap[s] = 0;
    TNGC_CHECK(aclrtMalloc(&G->ws[s], (size_t)bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc", where);
    G->ws_cap[s] = bytes;
    *out = G->ws[s];
    return 0;
}

/* An executor the operator's second phase never took (its workspace could
 * not be had), or a repeatable one whose launch failed, is released with
 * aclDestroyAclOpExecutor, and its slot k of a reuse gear emptied. */
TNGC_MAYBE_UNUSED static void tngc__drop(TngcAclGear *G, int k, aclOpExecutor *ex)
{
    (void)aclDestroyAclOpExecutor(ex);
    if (G->ex)
        G->ex[k] = NULL;
}

/* Call k of a reuse gear: its new executor made repeatable and kept in
 * slot k with its workspace size; on failure it is released. */
TNGC_MAYBE_UNUSED static int tngc__keep(model_ModelSuperKernel_forward_t *self, TngcAclGear *G, int k, aclOpExecutor *ex,
                                        uint64_t ws, const char *where)
{
    int rc = aclSetAclOpExecutorRepeatable(ex);
    if (rc != 0) {
        (void)aclDestroyAclOpExecutor(ex);
        return tngc__acl_fail(self, rc, "aclSetAclOpExecutorRepeatable", where);
    }
    G->ex[k] = ex;
    G->ex_ws[k] = ws;
    return 0;
}

/* The trace (host clocks). One host thread issues every stream's work, so a
 * slice is the time the host spent issuing an op (its two-phase call) or a
 * wait on that op's stream; the device's own time shows in stream 0's
 * synchronisation at the end of a run. */
TNGC_MAYBE_UNUSED static uint64_t tngc__now(const model_ModelSuperKernel_forward_t *self)
{
    return self->trace ? tngrt_trace_now() : 0;
}

/* A slice [t0, now) named name (a string that outlives the trace) on stream s. */
TNGC_MAYBE_UNUSED static void tngc__slice(model_ModelSuperKernel_forward_t *self, int s, const char *name, uint64_t t0)
{
    if (self->trace)
        tngrt_trace_slice(self->trace, s, name, t0, tngrt_trace_now());
}

/* Plan event e was recorded on stream s: when, for the flow to its waits. */
TNGC_MAYBE_UNUSED static void tngc__traced_record(model_ModelSuperKernel_forward_t *self, int e, int s)
{
    if (self->trace) {
        self->rec_t[e] = tngrt_trace_now();
        self->rec_s[e] = s;
    }
}

/* Stream s waited for plan event e from t0: a slice, and an arrow from the record. */
TNGC_MAYBE_UNUSED static void tngc__traced_wait(model_ModelSuperKernel_forward_t *self, int e, int s, uint64_t t0)
{
    if (self->trace) {
        tngc__slice(self, s, self->wait_name[e], t0);
        tngrt_trace_flow(self->trace, e, self->rec_s[e], self->rec_t[e], s, t0);
    }
}

/* An aclnn operator's second phase: aclnnXxx(workspace, size, executor, stream). */
typedef aclnnStatus (*tngc__aclnn_fn)(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

/* Call k's executor kept by a reuse gear (its workspace size into *ws),
 * or NULL: the first phase must make one. */
TNGC_MAYBE_UNUSED static aclOpExecutor *tngc__kept(const TngcAclGear *G, int k, uint64_t *ws)
{
    aclOpExecutor *ex = G->ex ? G->ex[k] : NULL;
    if (ex)
        *ws = G->ex_ws[k];
    return ex;
}

/* The rest of TNGC_ACLNN after the first phase (fresh: it just made ex):
 * in a reuse gear a fresh executor is kept; then the workspace, the
 * second phase fn (called name) on stream s, the trace's slice from t0. */
TNGC_MAYBE_UNUSED static int tngc__aclnn_run(model_ModelSuperKernel_forward_t *self, TngcAclGear *G, int s, int k,
                                             aclOpExecutor *ex, uint64_t ws, int fresh, tngc__aclnn_fn fn,
                                             const char *name, const char *where, uint64_t t0)
{
    void *wp = NULL;
    int rc;
    if (fresh && G->ex && tngc__keep(self, G, k, ex, ws, where) != 0)
        return -1;
    if (tngc__workspace(self, G, s, ws, &wp, where) != 0) {
        tngc__drop(G, k, ex);
        return -1;
    }
    if ((rc = fn(wp, ws, ex, self->stream[s])) != 0) {
        if (G->ex)
            tngc__drop(G, k, ex);
        return tngc__acl_fail(self, rc, name, where);
    }
    tngc__slice(self, s, where, t0);
    return 0;
}

/* One aclnn operator on stream s: the two-phase call (a trace slice named
 * by its place in the script). In a reuse gear (static, not captured) the
 * executor of call k is made repeatable (aclSetAclOpExecutorRepeatable) the
 * first time and launched again on later runs without a first phase: the
 * gear's descriptors and device addresses never change. It is destroyed
 * with the gear (tngc__gear_unbuild), or at once when its launch fails
 * (the next run asks again). Only the first phase, whose parameters are
 * the operator's own, is expanded in place: a gear of a thousand calls
 * is a function of a few lines each (gcc's time on one function grows
 * faster than its length). */
#define TNGC_ACLNN(fn, s, k, where, ...)                                                   \
    do {                                                                                   \
        uint64_t tngc__t0 = tngc__now(self), tngc__ws = 0;                                 \
        aclOpExecutor *tngc__ex = tngc__kept(G, (k), &tngc__ws);                           \
        int tngc__fresh = !tngc__ex;                                                       \
        if (tngc__fresh)                                                                   \
            TNGC_CHECK(fn##GetWorkspaceSize(__VA_ARGS__, &tngc__ws, &tngc__ex),            \
                       #fn "GetWorkspaceSize", (where));                                   \
        if (tngc__aclnn_run(self, G, (s), (k), tngc__ex, tngc__ws, tngc__fresh, fn, #fn,   \
                            (where), tngc__t0) != 0)                                       \
            return -1;                                                                     \
    } while (0)

/* Plan event e: recorded on stream s after a unit, waited on stream s before one. */
#define TNGC_RECORD(e, s, where)                                                                    \
    do {                                                                                            \
        TNGC_CHECK(aclrtRecordEvent(self->event[e], self->stream[s]), "aclrtRecordEvent", (where)); \
        tngc__traced_record(self, (e), (s));                                                        \
    } while (0)
#define TNGC_WAIT(e, s, where)                                                                              \
    do {                                                                                                    \
        uint64_t tngc__t0 = tngc__now(self);                                                                \
        TNGC_CHECK(aclrtStreamWaitEvent(self->stream[s], self->event[e]), "aclrtStreamWaitEvent", (where)); \
        tngc__traced_wait(self, (e), (s), tngc__t0);                                                        \
    } while (0)

/* Super-kernel segment boundaries: scope name, options as
 * written ("key=value:key=value"). aclnn has no public call that fuses
 * kernels already launched; the segment's ops are issued back to back on
 * its stream, and inside a captured run they are one model run instance. */
#define TNGC_SUPER_KERNEL_BEGIN(scope, options, segment) ((void)0)
#define TNGC_SUPER_KERNEL_END(scope, segment) ((void)0)

/* An aclTensor in format fmt over data: view dims[0..nd) with strides
 * (NULL: C order) starting offset elements into storage sdims[0..snd)
 * (NULL: the view's dims). */
static aclTensor *tngc__tensor_as(aclFormat fmt, int nd, const int64_t *dims, const int64_t *strides,
                                  int64_t offset, aclDataType dt, int snd, const int64_t *sdims, void *data)
{
    int64_t st[TNGRT_MAX_DIMS + 1] = {0}, bound = 1;   /* set: gcc cannot see that nd 0 reads none */
    /* a dim, stride or offset computed at run time that is TNGC_DIM_BAD or
     * out of range (an index past its dim): no descriptor, no address */
    if (nd < 0 || nd > TNGRT_MAX_DIMS || offset < 0)
        return NULL;
    for (int d = 0; d < nd; d++) {
        if (dims[d] < 0 || (dims[d] > 1 && bound > TNGRT_MAX_BYTES / dims[d]) || (strides && strides[d] < 0))
            return NULL;
        bound *= dims[d] > 1 ? dims[d] : 1;
    }
    if (!strides) {
        int64_t n = 1;
        for (int d = nd - 1; d >= 0; d--) {
            st[d] = n;
            n *= dims[d];
        }
        strides = st;
    }
    if (!sdims) {
        sdims = dims;
        snd = nd;
    }
    return aclCreateTensor(dims, (uint64_t)nd, dt, strides, offset, fmt, sdims, (uint64_t)snd, data);
}

/* An ND aclTensor (tngc__tensor_as): the bundle's tensors are dense C-order. */
TNGC_MAYBE_UNUSED static aclTensor *tngc__tensor(int nd, const int64_t *dims, const int64_t *strides, int64_t offset,
                                                 aclDataType dt, int snd, const int64_t *sdims, void *data)
{
    return tngc__tensor_as(ACL_FORMAT_ND, nd, dims, strides, offset, dt, snd, sdims, data);
}

/* A weight stored FRACTAL_NZ (npu_format_cast(w, 29), tngc__nd_to_nz):
 * the view is the logical ND tensor, the storage its NZ dims. */
TNGC_MAYBE_UNUSED static aclTensor *tngc__tensor_nz(int nd, const int64_t *dims, const int64_t *strides,
                                                    int64_t offset, aclDataType dt, int snd, const int64_t *sdims,
                                                    void *data)
{
    return tngc__tensor_as(ACL_FORMAT_FRACTAL_NZ, nd, dims, strides, offset, dt, snd, sdims, data);
}

TNGC_MAYBE_UNUSED static aclScalar *tngc__scalar_f(double v)
{
    return aclCreateScalar(&v, ACL_DOUBLE);   /* the value is copied */
}

TNGC_MAYBE_UNUSED static aclScalar *tngc__scalar_i(int64_t v)
{
    return aclCreateScalar(&v, ACL_INT64);
}

/* Python's slice start for a dim of size n (start/end as written, end may
 * be INT64_MAX), as tngrt_kernel_slice computes it. */
TNGC_MAYBE_UNUSED static int64_t tngc__slice_start(int64_t n, int64_t start)
{
    if (n == TNGC_DIM_BAD)
        return TNGC_DIM_BAD;
    if (start < 0)
        start += n;
    return start < 0 ? 0 : start > n ? n : start;
}

/* The length of the slice [start:end:step] of a dim of size n. */
TNGC_MAYBE_UNUSED static int64_t tngc__slice_len(int64_t n, int64_t start, int64_t end, int64_t step)
{
    int64_t s = tngc__slice_start(n, start), e = end == INT64_MAX ? n : tngc__slice_start(n, end);
    if (n == TNGC_DIM_BAD)
        return TNGC_DIM_BAD;
    return e > s && step > 0 ? (e - s - 1) / step + 1 : 0;
}

/* An index of a dim of size n, counted from the end when negative;
 * TNGC_DIM_BAD when out of range, which tngc__tensor refuses. */
TNGC_MAYBE_UNUSED static int64_t tngc__index(int64_t n, int64_t i)
{
    if (n == TNGC_DIM_BAD || i < -n || i >= n)
        return TNGC_DIM_BAD;
    return i < 0 ? i + n : i;
}

/* A tensor list of l[0..n) (it owns them), in *out; when a tensor or the
 * list could not be created, the others are destroyed. */
TNGC_MAYBE_UNUSED static int tngc__list(model_ModelSuperKernel_forward_t *self, aclTensorList **out, int n, const aclTensor **l,
                                        const char *where)
{
    int ok = 1;
    for (int i = 0; i < n; i++)
        ok &= l[i] != NULL;
    if (ok && (*out = aclCreateTensorList(l, (uint64_t)n)) != NULL)
        return 0;
    for (int i = 0; i < n; i++)
        if (l[i])
            (void)aclDestroyTensor(l[i]);
    return tngc__acl_fail(self, -1, ok ? "aclCreateTensorList" : "aclCreateTensor", where);
}

/* Host stand-ins for the descriptor's stream functions: an ACL bundle runs
 * through model_ModelSuperKernel_forward_run, never through libtngcrt's CPU executor. */
TNGC_MAYBE_UNUSED static int tngc__on_device(void *arg, TngrtExec *ex, int stream, TngrtError *err)
{
    (void)arg;
    (void)ex;
    (void)stream;
    snprintf(err->msg, sizeof err->msg, "model_ModelSuperKernel_forward is an Ascend NPU bundle: run it with model_ModelSuperKernel_forward_run");
    return -1;
}

#define TNGC_GENERATED 1

/* ---- aclnn operators: CANN 8.1.RC1's declarations (its aclnnop/ headers are C++) ---- */
/* aclnnop/aclnn_quant_matmul_v4.h */
aclnnStatus aclnnQuantMatmulV4GetWorkspaceSize(const aclTensor *x1, const aclTensor *x2,
    const aclTensor *scale, const aclTensor *offset, const aclTensor *pertokenScaleOptional,
    const aclTensor *bias, bool transposeX1, bool transposeX2, const aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnQuantMatmulV4(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
    aclrtStream stream);
/* aclnnop/aclnn_dequant_swiglu_quant.h */
aclnnStatus aclnnDequantSwigluQuantGetWorkspaceSize(const aclTensor *x,
    const aclTensor *weightScaleOptional, const aclTensor *activationScaleOptional,
    const aclTensor *biasOptional, const aclTensor *quantScaleOptional,
    const aclTensor *quantOffsetOptional, const aclTensor *groupIndexOptional, bool activateLeft,
    char *quantModeOptional, const aclTensor *yOut, const aclTensor *scaleOut,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnDequantSwigluQuant(void *workspace, uint64_t workspaceSize,
    aclOpExecutor *executor, aclrtStream stream);
/* ---- end of aclnn operators ---- */

/* Super kernels: 1 segment(s), each between TNGC_SUPER_KERNEL_BEGIN
 * (scope, options as written) and TNGC_SUPER_KERNEL_END. */

/* ==== gear 0 ==== */

/* The gear's units in issue order, each on its stream. */
static int g0_launch(model_ModelSuperKernel_forward_t *self, TngcAclGear *G)
{
    (void)self;
    (void)G;
    TNGC_SUPER_KERNEL_BEGIN("sp1", "", 0);   /* 2 ops; ended by: end of scope */
    /* stream 0: bf16[864,4096] %5 = quant_matmul */
    TNGC_ACLNN(aclnnQuantMatmulV4, 0, 0, "model.py:39:43: quant_matmul %5", G->t[0], G->t[1], G->t[2], NULL, G->t[3], NULL, false, false, G->t[4]);
    /* stream 0: i8[864,2048] %6 = dequant_swiglu_quant */
    TNGC_ACLNN(aclnnDequantSwigluQuant, 0, 1, "model.py:40:37: dequant_swiglu_quant %6", G->t[4], G->t[5], NULL, NULL, NULL, NULL, NULL, false, "static", G->t[6], G->t[7]);
    TNGC_SUPER_KERNEL_END("sp1", 0);
    return 0;
}

/* The descriptors of g0_launch, over the gear's device addresses. */
static int g0_build(model_ModelSuperKernel_forward_t *self, TngcAclGear *G)
{
    const TngrtRunCtx *c = &G->dev;
    unsigned char *A = c->arena;
    const int64_t *S = c->sym;
    (void)self;
    (void)A;
    (void)S;
    TNGC_NEW(G->t[0], tngc__tensor(2, (const int64_t[]){864, 7168}, NULL, 0, ACL_INT8, 0, NULL, c->in[0]), "aclCreateTensor", "model.py:39:43: quant_matmul %5");
    TNGC_NEW(G->t[1], tngc__tensor(2, (const int64_t[]){7168, 4096}, NULL, 0, ACL_INT8, 0, NULL, c->in[1]), "aclCreateTensor", "model.py:39:43: quant_matmul %5");
    TNGC_NEW(G->t[2], tngc__tensor(1, (const int64_t[]){4096}, NULL, 0, ACL_FLOAT, 0, NULL, c->in[2]), "aclCreateTensor", "model.py:39:43: quant_matmul %5");
    TNGC_NEW(G->t[3], tngc__tensor(1, (const int64_t[]){864}, NULL, 0, ACL_FLOAT, 0, NULL, c->in[3]), "aclCreateTensor", "model.py:39:43: quant_matmul %5");
    TNGC_NEW(G->t[4], tngc__tensor(2, (const int64_t[]){864, 4096}, NULL, 0, ACL_BF16, 0, NULL, (A + 0)), "aclCreateTensor", "model.py:39:43: quant_matmul %5");
    TNGC_NEW(G->t[5], tngc__tensor(2, (const int64_t[]){864, 4096}, NULL, 0, ACL_FLOAT, 0, NULL, c->in[4]), "aclCreateTensor", "model.py:40:37: dequant_swiglu_quant %6");
    TNGC_NEW(G->t[6], tngc__tensor(2, (const int64_t[]){864, 2048}, NULL, 0, ACL_INT8, 0, NULL, (A + 7077888)), "aclCreateTensor", "model.py:40:37: dequant_swiglu_quant %6");
    TNGC_NEW(G->t[7], tngc__tensor(1, (const int64_t[]){864}, NULL, 0, ACL_FLOAT, 0, NULL, (A + 8847360)), "aclCreateTensor", "model.py:40:37: dequant_swiglu_quant %6");
    return 0;
}

static void g0_outputs(const TngrtRunCtx *c, TngrtTensor *outs)
{
    unsigned char *A = c->arena;
    const int64_t *S = c->sym;
    (void)A;
    (void)S;
    tngc__out(&outs[0], (A + 7077888), TNGRT_I8, 2, (const int64_t[]){864, 2048});
    tngc__out(&outs[1], (A + 8847360), TNGRT_F32, 1, (const int64_t[]){864});
    tngc__out(&outs[2], (A + 0), TNGRT_BF16, 2, (const int64_t[]){864, 4096});
}

static const TngrtStreamFn g0_streams[] = {tngc__on_device};

/* ==== streams: one aclrtStream each, with its priority ==== */
static const TngcAclStream tngc__streams[] = {
    {"default", 0},
};

/* ==== gears: descriptors, capture (reduce-overhead), code ==== */
static const TngcAclGearCode tngc__gears[] = {
    {8, 0, 0, 0, 0, 2, 1, 0, g0_build, g0_launch},
};

/* weights an output returns: a host copy is kept */
static const signed char tngc__weight_returned[] = {0};

/* weights stored FRACTAL_NZ: the width of their blocks (0: ND) */
static const unsigned char tngc__weight_nz[] = {0};

/* ==== signature ==== */
static const TngrtDim in0_dims[] = {{-1, 864}, {-1, 7168}};
static const TngrtDim in1_dims[] = {{-1, 7168}, {-1, 4096}};
static const TngrtDim in2_dims[] = {{-1, 4096}};
static const TngrtDim in3_dims[] = {{-1, 864}};
static const TngrtDim in4_dims[] = {{-1, 864}, {-1, 4096}};
static const TngrtSigTensor in_sig[] = {
    {"x1", TNGRT_I8, 2, in0_dims, 0},
    {"x2", TNGRT_I8, 2, in1_dims, 0},
    {"scale", TNGRT_F32, 1, in2_dims, 0},
    {"pertoken_scale", TNGRT_F32, 1, in3_dims, 0},
    {"weight_scale", TNGRT_F32, 2, in4_dims, 0},
};
static const TngrtDim out0_dims[] = {{-1, 864}, {-1, 2048}};
static const TngrtDim out1_dims[] = {{-1, 864}};
static const TngrtDim out2_dims[] = {{-1, 864}, {-1, 4096}};
static const TngrtSigTensor out_sig[] = {
    {"out0", TNGRT_I8, 2, out0_dims, 0},
    {"out1", TNGRT_F32, 1, out1_dims, 0},
    {"out2", TNGRT_BF16, 2, out2_dims, 0},
};
static const TngrtGear gears[] = {
    {NULL, 8850816, NULL, 0, g0_streams, g0_outputs},
};
static const char *const stream_names[] = {"default"};

static const TngrtBundleDesc model_ModelSuperKernel_forward__desc = {
    .name = "model_ModelSuperKernel_forward",
    .entry = "ModelSuperKernel.forward",
    .script = "model.py",
    .ninputs = 5, .inputs = in_sig,
    .nweights = 0, .weights = NULL,
    .noutputs = 3, .outputs = out_sig,
    .nsyms = 0, .syms = NULL,
    .ngears = 1, .gears = gears,
    .nstreams = 1, .stream_names = stream_names,
    .nevents = 0,
};


#ifndef TNGC_GENERATED
/* Standing alone: an entry with no inputs, outputs or weights and one
 * empty static gear on one stream. */
static void tngc__no_outputs(const TngrtRunCtx *c, TngrtTensor *outs)
{
    (void)c;
    (void)outs;
}
static int tngc__no_launch(model_ModelSuperKernel_forward_t *self, TngcAclGear *G)
{
    (void)self;
    (void)G;
    return 0;
}
static const TngrtStreamFn g0_streams[] = {tngc__on_device};
static const TngrtGear gears[] = {{NULL, 0, NULL, 0, g0_streams, tngc__no_outputs}};
static const TngcAclStream tngc__streams[] = {{"default", 0}};
static const TngcAclGearCode tngc__gears[] = {{0, 0, 0, 0, 0, 0, 0, 0, tngc__no_launch, tngc__no_launch}};
static const signed char tngc__weight_returned[] = {0};
static const unsigned char tngc__weight_nz[] = {0};
static const TngrtBundleDesc model_ModelSuperKernel_forward__desc = {
    .name = "model_ModelSuperKernel_forward", .entry = "", .script = "", .ngears = 1, .gears = gears, .nstreams = 1,
};
#endif

/* ---- set-up and teardown ------------------------------------------------------ */

/* 0, or 1 with a device id from ASCEND_DEVICE_ID (the variable CANN's own
 * tools read), 0 when unset. */
static int tngc__device_id(model_ModelSuperKernel_forward_t *self, int32_t *out)
{
    const char *s = getenv("ASCEND_DEVICE_ID");
    char *end;
    long v;
    *out = 0;
    if (!s || !*s)
        return 0;
    v = strtol(s, &end, 10);
    if (*end || v < 0 || v > 1024)
        return tngc__fail(self, "ASCEND_DEVICE_ID='%s' is not a device number", s);
    *out = (int32_t)v;
    return 0;
}

/* Frees G's kept executors, then its descriptors (they are rebuilt for new
 * symbol values). */
static void tngc__gear_unbuild(TngcAclGear *G, const TngcAclGearCode *code)
{
    for (int k = code->nexec - 1; G->ex && k >= 0; k--)
        if (G->ex[k])
            (void)aclDestroyAclOpExecutor(G->ex[k]), G->ex[k] = NULL;
    for (int i = 0; G->t && i < code->ntensors; i++)
        if (G->t[i])
            (void)aclDestroyTensor(G->t[i]), G->t[i] = NULL;
    for (int i = 0; G->sc && i < code->nscalars; i++)
        if (G->sc[i])
            (void)aclDestroyScalar(G->sc[i]), G->sc[i] = NULL;
    for (int i = 0; G->ia && i < code->narrays; i++)
        if (G->ia[i])
            (void)aclDestroyIntArray(G->ia[i]), G->ia[i] = NULL;
    for (int i = 0; G->tl && i < code->nlists; i++)
        if (G->tl[i])
            (void)aclDestroyTensorList(G->tl[i]), G->tl[i] = NULL;
    G->built = 0;
}

/* Waits for every stream: after a failed run, work may still be queued on
 * the streams the launch forked to, and neither the next run's synchronous
 * copies nor a free may overlap it. A stream that fails to synchronise does
 * not stop the others; it is tried again before the next run. Returns 0,
 * or the first failure's code with its stream in *bad. */
static int tngc__settle(model_ModelSuperKernel_forward_t *self, int *bad)
{
    const TngrtBundleDesc *d = self->desc;
    int first = 0;
    self->unsettled = 0;
    for (int s = 0; self->stream && s < d->nstreams; s++) {
        int rc = self->stream[s] ? aclrtSynchronizeStream(self->stream[s]) : 0;
        if (rc != 0 && !first) {
            first = rc;
            *bad = s;
        }
        self->unsettled |= rc != 0;
    }
    return first;
}

/* Teardown: the streams synchronised, then every resource still held, in
 * reverse order of creation. Calls that fail here cannot be reported
 * (destroy returns nothing) and do not stop the rest. */
static void tngc__teardown(model_ModelSuperKernel_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    int bad;
    if (self->device_set && self->ctx)
        (void)aclrtSetCurrentContext(self->ctx);
    (void)tngc__settle(self, &bad);
    for (int g = d->ngears - 1; self->gear && g >= 0; g--) {
        TngcAclGear *G = &self->gear[g];
        if (G->ri)
            (void)aclmdlRIDestroy(G->ri);
        for (int s = d->nstreams - 1; G->ws && s >= 0; s--)
            if (G->ws[s])
                (void)aclrtFree(G->ws[s]);
        tngc__gear_unbuild(G, &tngc__gears[g]);
        if (G->arena)
            (void)aclrtFree(G->arena);
        free(G->t);
        free(G->sc);
        free(G->ia);
        free(G->tl);
        free(G->ex);
        free(G->ex_ws);
        free(G->ws);
        free(G->ws_cap);
        free(G->in);
        free(G->sym);
        free(G->off);
    }
    for (int i = d->nweights - 1; self->w_own && i >= 0; i--)
        if (self->w_own[i])
            (void)aclrtFree(self->w_own[i]);
    for (int s = d->nstreams - 1; self->join && s >= 1; s--)
        if (self->join[s])
            (void)aclrtDestroyEvent(self->join[s]);
    if (self->fork)
        (void)aclrtDestroyEvent(self->fork);
    for (int e = d->nevents - 1; self->event && e >= 0; e--)
        if (self->event[e])
            (void)aclrtDestroyEvent(self->event[e]);
    for (int s = d->nstreams - 1; self->stream && s >= 0; s--)
        if (self->stream[s])
            (void)aclrtDestroyStream(self->stream[s]);
    if (self->ctx)
        (void)aclrtDestroyContext(self->ctx);
    if (self->device_set)
        (void)aclrtResetDevice(self->device);
    for (int i = 0; self->w_host && i < d->nweights; i++)
        free(self->w_host[i]);
    free(self->w_host);
    free(self->w);
    free(self->w_own);
    free(self->wbind);
    free(self->event);
    free(self->join);
    free(self->stream);
    free(self->gear);
    free(self->host);
    free(self->in);
    free(self->dev_out);
    free(self->rec_t);
    free(self->rec_s);
    free(self->wait_name);
}

/* Checks the descriptor as libtngcrt's bundles do (tngrt_desc_check): each
 * run's input checks and gear selection are then tngrt_desc_select's. */
static int tngc__check_desc(model_ModelSuperKernel_forward_t *self, TngrtError *err)
{
    if (tngrt_desc_check(self->desc, err) != 0)
        return tngc__fail(self, "%s", err->msg);
    return 0;
}

/* Allocates the arrays of self and of its gears. */
static int tngc__alloc(model_ModelSuperKernel_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    size_t ns = (size_t)d->nstreams, nw = (size_t)d->nweights + 1, ni = (size_t)d->ninputs + 1;
    int ok;
    self->stream = calloc(ns, sizeof *self->stream);
    self->event = calloc((size_t)d->nevents + 1, sizeof *self->event);
    self->join = calloc(ns, sizeof *self->join);
    self->w = calloc(nw, sizeof *self->w);
    self->w_own = calloc(nw, sizeof *self->w_own);
    self->wbind = calloc(nw, 1);
    self->w_host = calloc(nw, sizeof *self->w_host);
    self->gear = calloc((size_t)d->ngears, sizeof *self->gear);
    self->in = calloc(ni, sizeof *self->in);
    self->dev_out = calloc((size_t)d->noutputs + 1, sizeof *self->dev_out);
    self->rec_t = calloc((size_t)d->nevents + 1, sizeof *self->rec_t);
    self->rec_s = calloc((size_t)d->nevents + 1, sizeof *self->rec_s);
    self->wait_name = calloc((size_t)d->nevents + 1, sizeof *self->wait_name);
    ok = self->stream && self->event && self->join && self->w && self->w_own && self->wbind && self->w_host && self->gear && self->in &&
         self->dev_out && self->rec_t && self->rec_s && self->wait_name;
    for (int e = 0; ok && e < d->nevents; e++)
        snprintf(self->wait_name[e], sizeof *self->wait_name, "wait e%d", e);
    for (int g = 0; ok && g < d->ngears; g++) {
        TngcAclGear *G = &self->gear[g];
        const TngcAclGearCode *code = &tngc__gears[g];
        int noff = d->gears[g].noff > 0 ? d->gears[g].noff : 1;
        G->t = calloc((size_t)code->ntensors + 1, sizeof *G->t);
        G->sc = calloc((size_t)code->nscalars + 1, sizeof *G->sc);
        G->ia = calloc((size_t)code->narrays + 1, sizeof *G->ia);
        G->tl = calloc((size_t)code->nlists + 1, sizeof *G->tl);
        G->ws = calloc(ns, sizeof *G->ws);
        G->ws_cap = calloc(ns, sizeof *G->ws_cap);
        G->in = calloc(ni, sizeof *G->in);
        G->sym = calloc((size_t)d->nsyms + 1, sizeof *G->sym);
        G->off = calloc((size_t)noff, sizeof *G->off);
        ok = G->t && G->sc && G->ia && G->tl && G->ws && G->ws_cap && G->in && G->sym && G->off;
        if (ok && code->reuse) {
            G->ex = calloc((size_t)code->nexec + 1, sizeof *G->ex);
            G->ex_ws = calloc((size_t)code->nexec + 1, sizeof *G->ex_ws);
            ok = G->ex && G->ex_ws;
        }
        G->dev.in = G->in;
        G->dev.w = self->w;
        G->dev.sym = G->sym;
        G->dev.off = G->off;
    }
    return ok ? 0 : tngc__fail(self, "%s: out of memory", d->name);
}

/* Bytes of a signature tensor with the symbol values sym. */
static int64_t tngc__sig_bytes(const TngrtSigTensor *t, const int64_t *sym)
{
    int64_t n = (int64_t)tngrt_dtype_size(t->dtype);
    for (int k = 0; k < t->ndim; k++)
        n *= t->dims[k].sym >= 0 ? sym[t->dims[k].sym] : t->dims[k].value;
    return n;
}

/* Makes G's arena hold its planner part (bytes) and its inputs with the
 * symbol values sym, and points G->in at them; grows it when needed. */
static int tngc__gear_arena(model_ModelSuperKernel_forward_t *self, TngcAclGear *G, int64_t bytes, const int64_t *sym)
{
    const TngrtBundleDesc *d = self->desc;
    int64_t need = (bytes + 63) & ~(int64_t)63, at = need;
    for (int i = 0; i < d->ninputs; i++)
        need += (tngc__sig_bytes(&d->inputs[i], sym) + 63) & ~(int64_t)63;
    if (need < 64)
        need = 64;
    if (need > G->arena_cap) {
        void *p = NULL;
        if (G->arena)
            TNGC_CHECK(aclrtFree(G->arena), "aclrtFree", NULL);
        G->arena = NULL;
        G->arena_cap = 0;
        TNGC_CHECK(aclrtMalloc(&p, (size_t)need, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc", NULL);
        G->arena = p;
        G->arena_cap = need;
    }
    G->arena_bytes = bytes;
    G->dev.arena = G->arena;
    for (int i = 0; i < d->ninputs; i++) {
        G->in[i] = G->arena + at;
        at += (tngc__sig_bytes(&d->inputs[i], sym) + 63) & ~(int64_t)63;
    }
    return 0;
}

/* Allocates every static gear's arena and builds its descriptors. */
static int tngc__gears_new(model_ModelSuperKernel_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    for (int g = 0; g < d->ngears; g++) {
        TngcAclGear *G = &self->gear[g];
        const TngrtGear *gear = &d->gears[g];
        if (gear->arena_bytes < 0)
            continue;   /* dynamic: placed at its first run */
        for (int s = 0; s < d->nsyms; s++)
            G->sym[s] = gear->symval[s];
        int64_t bytes = gear->arena_bytes;
        if (tngc__gears[g].scratch > 0)
            bytes = ((bytes + 63) & ~(int64_t)63) + tngc__gears[g].scratch;
        if (tngc__gear_arena(self, G, bytes, G->sym) != 0 || tngc__gears[g].build(self, G) != 0)
            return -1;
        G->built = 1;
    }
    return 0;
}

/* ---- FRACTAL_NZ weights ---- */

/* A weight every use of which is npu_format_cast(w, 29) into a matmul's
 * weight operand is stored on the device as torch_npu stores it, in
 * FRACTAL_NZ: ND [..., h, w] -> [..., ceil(w/w0), ceil(h/16), 16, w0]
 * (a 1-D [w] as [1, w]), zero padded, w0 = tngc__weight_nz[i] (16, or 32
 * for 1-byte dtypes: CANN's cube is 32 bytes wide, GE's
 * GetCubeSizeByDataType). The ND shape splits into times (the leading
 * dims), h and w. */
static void tngc__nz_split(const TngrtSigTensor *t, int64_t *times, int64_t *h, int64_t *w)
{
    *times = 1;
    for (int k = 0; k + 2 < t->ndim; k++)
        *times *= t->dims[k].value;
    *h = t->ndim >= 2 ? t->dims[t->ndim - 2].value : 1;
    *w = t->ndim >= 1 ? t->dims[t->ndim - 1].value : 1;
}

/* Bytes of weight t stored FRACTAL_NZ with blocks of w0 columns. */
static int64_t tngc__nz_bytes(const TngrtSigTensor *t, int w0)
{
    int64_t times, h, w;
    tngc__nz_split(t, &times, &h, &w);
    return times * ((w + w0 - 1) / w0) * ((h + 15) / 16) * 16 * w0 * (int64_t)tngrt_dtype_size(t->dtype);
}

/* dst (tngc__nz_bytes, zeroed) = the ND data src of t in FRACTAL_NZ: element
 * (i, j) of matrix m lands at block (j / w0, i / 16), row i % 16, column j % w0. */
static void tngc__nd_to_nz(unsigned char *dst, const unsigned char *src, const TngrtSigTensor *t, int w0)
{
    int64_t times, h, w, es = (int64_t)tngrt_dtype_size(t->dtype);
    tngc__nz_split(t, &times, &h, &w);
    int64_t h1 = (h + 15) / 16, w1 = (w + w0 - 1) / w0, block = h1 * 16 * w0;
    for (int64_t m = 0; m < times; m++)
        for (int64_t i = 0; i < h; i++)
            for (int64_t j = 0; j < w; j++)
                memcpy(dst + ((m * w1 + j / w0) * block + i * w0 + j % w0) * es, src + ((m * h + i) * w + j) * es,
                       (size_t)es);
}

/* Bytes of weight i on the device. */
static int64_t tngc__weight_bytes(const TngrtBundleDesc *d, int i)
{
    const TngrtSigTensor *w = &d->weights[i];
    return tngc__weight_nz[i] ? tngc__nz_bytes(w, tngc__weight_nz[i]) : tngc__sig_bytes(w, NULL);
}

/* Device blocks of the weights, and host copies of those an output returns. */
static int tngc__weights_new(model_ModelSuperKernel_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    for (int i = 0; i < d->nweights; i++) {
        int64_t n = tngc__weight_bytes(d, i);
        TNGC_CHECK(aclrtMalloc(&self->w_own[i], (size_t)(n > 0 ? n : 64), ACL_MEM_MALLOC_HUGE_FIRST),
                   "aclrtMalloc", NULL);
        self->w[i] = self->w_own[i];
        TNGC_CHECK(aclrtMemset(self->w[i], (size_t)(n > 0 ? n : 64), 0, (size_t)(n > 0 ? n : 64)), "aclrtMemset",
                   NULL);
        if (tngc__weight_returned[i] && !(self->w_host[i] = calloc(1, (size_t)n + 1)))
            return tngc__fail(self, "%s: out of memory", d->name);
    }
    return 0;
}

/* Chips that cannot capture a model run instance: aclmdlRICapture* is not
 * supported on the Atlas training series (Ascend 910, the SoC names
 * torch_npu lists for it) or on Atlas 200I/500 A2 (Ascend 310B). */
static const char *const tngc__no_capture_socs[] = {
    "Ascend910A", "Ascend910ProA", "Ascend910PremiumA", "Ascend910B", "Ascend910ProB",
    "Ascend310B1", "Ascend310B2", "Ascend310B3", "Ascend310B4",
};

/* Whether reduce-overhead gears are captured: when the chip can (else they
 * run eagerly, with the same results, and create says so in one warning
 * line); events are then created capture-safe when a capture takes in
 * more than one stream. */
static void tngc__capture_check(model_ModelSuperKernel_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    const char *soc;
    int any = 0;
    for (int g = 0; g < d->ngears; g++)
        any |= tngc__gears[g].capture;
    if (!any)
        return;
    self->capture_ok = 1;
    soc = aclrtGetSocName();   /* NULL: unknown, captured as usual */
    for (size_t i = 0; soc && i < sizeof tngc__no_capture_socs / sizeof *tngc__no_capture_socs; i++)
        if (!strcmp(soc, tngc__no_capture_socs[i]))
            self->capture_ok = 0;
    if (!self->capture_ok)
        snprintf(self->warning, sizeof self->warning,
                 "%s: %s cannot capture model run instances (aclmdlRICapture*): reduce-overhead runs eagerly, "
                 "with the same results",
                 d->name, soc);
    self->sync_events = self->capture_ok && d->nstreams > 1;
}

/* An event; one that may be recorded inside a capture is created with
 * ACL_EVENT_SYNC, as CANN's cross-stream capture guide asks. */
static int tngc__event_new(model_ModelSuperKernel_forward_t *self, aclrtEvent *e)
{
    if (self->sync_events)
        TNGC_CHECK(aclrtCreateEventExWithFlag(e, ACL_EVENT_SYNC), "aclrtCreateEventExWithFlag", NULL);
    else
        TNGC_CHECK(aclrtCreateEvent(e), "aclrtCreateEvent", NULL);
    return 0;
}

/* The device, the context, the streams (with their priorities), the events. */
static int tngc__device_new(model_ModelSuperKernel_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    int rc = aclInit(NULL);
    if (rc != 0 && rc != ACL_ERROR_REPEAT_INITIALIZE)
        return tngc__acl_fail(self, rc, "aclInit", NULL);
    if (tngc__device_id(self, &self->device) != 0)
        return -1;
    TNGC_CHECK(aclrtSetDevice(self->device), "aclrtSetDevice", NULL);
    self->device_set = 1;
    TNGC_CHECK(aclrtCreateContext(&self->ctx, self->device), "aclrtCreateContext", NULL);
    tngc__capture_check(self);
    for (int s = 0; s < d->nstreams; s++)
        TNGC_CHECK(aclrtCreateStreamWithConfig(&self->stream[s], tngc__streams[s].priority, 0),
                   "aclrtCreateStreamWithConfig", NULL);
    for (int e = 0; e < d->nevents; e++)
        if (tngc__event_new(self, &self->event[e]) != 0)
            return -1;
    if (tngc__event_new(self, &self->fork) != 0)
        return -1;
    for (int s = 1; s < d->nstreams; s++)
        if (tngc__event_new(self, &self->join[s]) != 0)
            return -1;
    return 0;
}

int model_ModelSuperKernel_forward_create(model_ModelSuperKernel_forward_t **out, TngrtError *err)
{
    model_ModelSuperKernel_forward_t *self = calloc(1, sizeof *self);
    *out = NULL;
    if (!self) {
        snprintf(err->msg, sizeof err->msg, "model_ModelSuperKernel_forward: out of memory");
        return -1;
    }
    self->desc = &model_ModelSuperKernel_forward__desc;
    self->st.desc = self->desc;
    self->st.nz = tngc__weight_nz;
    if (tngc__alloc(self) != 0 || tngc__check_desc(self, err) != 0 || tngc__device_new(self) != 0 ||
        tngc__weights_new(self) != 0 || tngc__gears_new(self) != 0) {
        snprintf(err->msg, sizeof err->msg, "%.*s", (int)sizeof err->msg - 1, self->err);
        tngc__teardown(self);
        free(self);
        return -1;
    }
    self->st.device = self->device;
    self->st.w = self->w;
    snprintf(err->msg, sizeof err->msg, "%s", self->warning);   /* "" or one warning line */
    *out = self;
    return 0;
}

void model_ModelSuperKernel_forward_destroy(model_ModelSuperKernel_forward_t *self)
{
    if (!self)
        return;
    tngc__teardown(self);
    free(self->unused);
    free(self);
}

/* ---- weights ------------------------------------------------------------------ */

static int tngc__cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Lists the tensors of st that are no state_dict key of the module (a
 * weight, an alias of one, or a key the model never reads; file order), in
 * one block: the pointers, then the names, replacing the previous list.
 * The keys are sorted once and each tensor is looked up among them, so the
 * work is O((keys + tensors) log keys), whatever the file holds. */
static int tngc__note_unused(model_ModelSuperKernel_forward_t *self, const TngrtSafetensors *st, const char *path)
{
    const TngrtBundleDesc *d = self->desc;
    int n = 0, count = tngrt_safetensors_count(st);
    int nkeys = d->nweights + d->naliases + d->nunread, k = 0;
    size_t bytes = 0;
    char **list, *at;
    const char **keys = malloc(((size_t)nkeys + 1) * sizeof *keys);
    unsigned char *used = calloc((size_t)count + 1, 1);
    if (!keys || !used) {
        free(keys);
        free(used);
        return tngc__fail(self, "%s: out of memory", path);
    }
    for (int i = 0; i < d->nweights; i++)
        keys[k++] = d->weights[i].name;
    for (int i = 0; i < d->naliases; i++)
        keys[k++] = d->aliases[i].name;
    for (int i = 0; i < d->nunread; i++)
        keys[k++] = d->unread[i];
    qsort(keys, (size_t)nkeys, sizeof *keys, tngc__cmp_name);
    for (int i = 0; i < count; i++) {
        const char *name = tngrt_safetensors_name(st, i);
        used[i] = bsearch(&name, keys, (size_t)nkeys, sizeof *keys, tngc__cmp_name) != NULL;
        if (!used[i]) {
            n++;
            bytes += strlen(name) + 1;
        }
    }
    free(keys);
    if (!(list = malloc((size_t)n * sizeof *list + bytes + 1))) {
        free(used);
        return tngc__fail(self, "%s: out of memory", path);
    }
    at = (char *)(list + n);
    n = 0;
    for (int i = 0; i < count; i++) {
        const char *name = tngrt_safetensors_name(st, i);
        if (used[i])
            continue;
        list[n++] = at;
        memcpy(at, name, strlen(name) + 1);
        at += strlen(name) + 1;
    }
    free(used);
    free(self->unused);
    self->unused = list;
    self->nunused = n;
    return 0;
}

int model_ModelSuperKernel_forward_unused_count(const model_ModelSuperKernel_forward_t *self)
{
    return self->nunused;
}

const char *model_ModelSuperKernel_forward_unused_name(const model_ModelSuperKernel_forward_t *self, int i)
{
    return i >= 0 && i < self->nunused ? self->unused[i] : NULL;
}

int model_ModelSuperKernel_forward_load_weights(model_ModelSuperKernel_forward_t *self, const char *path)
{
    const TngrtBundleDesc *d = self->desc;
    TngrtSafetensors *st = NULL;
    TngrtTensor *views;
    TngrtError e;
    unsigned char *nz = NULL;   /* a weight in FRACTAL_NZ */
    int rc = -1;
    self->err[0] = '\0';
    if (!path)
        return tngc__fail(self, "no weights file given");
    TNGC_CHECK(aclrtSetCurrentContext(self->ctx), "aclrtSetCurrentContext", NULL);
    if (tngrt_weights_open(path, &st, &e) != 0)
        return tngc__fail(self, "%s", e.msg);
    views = calloc((size_t)d->nweights + 1, sizeof *views);
    if (!views) {
        tngc__fail(self, "%s: out of memory", path);
        goto out;
    }
    for (int i = 0; i < d->nweights; i++) {
        const TngrtSigTensor *w = &d->weights[i];
        int same;
        if (tngrt_safetensors_find(st, tngrt_desc_weight_key(d, st, i), &views[i], &e) != 0) {
            if (w->flags & TNGRT_SIG_ZEROS) {   /* state that starts at zeros: data NULL */
                memset(&views[i], 0, sizeof views[i]);
                continue;
            }
            tngc__fail(self, "%s: weight '%s' is missing", path, w->name);
            goto out;
        }
        same = views[i].dtype == w->dtype && views[i].ndim == w->ndim &&
               (int64_t)views[i].nbytes == tngc__sig_bytes(w, NULL);
        for (int k = 0; same && k < w->ndim; k++)
            same = views[i].shape[k] == w->dims[k].value;
        if (!same) {
            tngc__fail(self, "%s: weight '%s' has another dtype or shape than the model's (%s, %d dims)", path,
                       w->name, tngrt_dtype_name(w->dtype), w->ndim);
            goto out;
        }
    }
    if (tngc__note_unused(self, st, path) != 0)
        goto out;
    /* every weight checked: only now change the device copies */
    for (int i = 0; i < d->nweights; i++) {
        const void *data = views[i].data;
        size_t n = views[i].nbytes;
        if (!data && (d->weights[i].flags & TNGRT_SIG_ZEROS)) {   /* not in the file: zeros */
            n = (size_t)tngc__weight_bytes(d, i);
            if (n > 0 && (rc = aclrtMemset(self->w[i], n, 0, n)) != 0) {
                tngc__acl_fail(self, rc, "aclrtMemset", NULL);
                rc = -1;
                goto out;
            }
            if (self->w_host[i])
                memset(self->w_host[i], 0, (size_t)tngc__sig_bytes(&d->weights[i], NULL));
            continue;
        }
        if (n == 0)
            continue;
        if (tngc__weight_nz[i]) {   /* its FRACTAL_NZ layout, built on the host */
            n = (size_t)tngc__weight_bytes(d, i);
            free(nz);
            if (!(nz = calloc(1, n))) {
                tngc__fail(self, "%s: out of memory", path);
                goto out;
            }
            tngc__nd_to_nz(nz, views[i].data, &d->weights[i], tngc__weight_nz[i]);
            data = nz;
        }
        rc = aclrtMemcpy(self->w[i], n, data, n, ACL_MEMCPY_HOST_TO_DEVICE);
        if (rc != 0) {
            tngc__acl_fail(self, rc, "aclrtMemcpy", NULL);
            rc = -1;
            goto out;
        }
        if (self->w_host[i])
            memcpy(self->w_host[i], views[i].data, views[i].nbytes);
    }
    rc = 0;
out:
    free(nz);
    free(views);
    tngrt_safetensors_close(st);
    return rc;
}

/* ---- running ------------------------------------------------------------------ */

/* Gears with run-time dims (an unbound symbol): checks every shape and
 * places the buffers for the run's symbols (gN_layout), grows the arena
 * and (re)builds the descriptors when the symbols changed. Returns 0,
 * TNGRT_BAD_INPUT when the input shapes make a tensor or the arena pass
 * TNGRT_MAX_BYTES, or -1. */
static int tngc__gear_prepare(model_ModelSuperKernel_forward_t *self, int g, const int64_t *sym)
{
    const TngrtBundleDesc *d = self->desc;
    const TngrtGear *gear = &d->gears[g];
    TngcAclGear *G = &self->gear[g];
    int64_t bytes = 0;
    int same = G->built;
    if (gear->arena_bytes >= 0)
        return 0;
    for (int s = 0; same && s < d->nsyms; s++)
        same = G->sym[s] == sym[s];
    if (same)
        return 0;
    tngc__gear_unbuild(G, &tngc__gears[g]);
    for (int s = 0; s < d->nsyms; s++)
        G->sym[s] = sym[s];
    if (gear->layout(G->sym, G->off, &bytes) != 0 || bytes < 0) {
        tngc__fail(self, "%s: gear %d: the input shapes make a tensor or the arena larger than 2^48 bytes, "
                   "the most a bundle handles", d->name, g);
        return TNGRT_BAD_INPUT;
    }
    if (tngc__gear_arena(self, G, bytes, G->sym) != 0 || tngc__gears[g].build(self, G) != 0)
        return -1;
    G->built = 1;
    return 0;
}

/* The symbol values of the inputs in gear g. */
static void tngc__symbols(const TngrtBundleDesc *d, int g, const TngrtTensor *inputs, int64_t *sym)
{
    for (int s = 0; s < d->nsyms; s++) {
        sym[s] = d->gears[g].symval[s];
        if (sym[s] == INT64_MIN)
            sym[s] = inputs[d->syms[s].input].shape[d->syms[s].dim];
    }
}

/* Stream 0 forks to the other streams at the start of a launch and joins
 * them at its end (what a capture on stream 0 needs to take them in). */
static int tngc__fork(model_ModelSuperKernel_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    if (d->nstreams < 2)
        return 0;
    TNGC_CHECK(aclrtRecordEvent(self->fork, self->stream[0]), "aclrtRecordEvent", NULL);
    for (int s = 1; s < d->nstreams; s++)
        TNGC_CHECK(aclrtStreamWaitEvent(self->stream[s], self->fork), "aclrtStreamWaitEvent", NULL);
    return 0;
}

static int tngc__join(model_ModelSuperKernel_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    for (int s = 1; s < d->nstreams; s++) {
        TNGC_CHECK(aclrtRecordEvent(self->join[s], self->stream[s]), "aclrtRecordEvent", NULL);
        TNGC_CHECK(aclrtStreamWaitEvent(self->stream[0], self->join[s]), "aclrtStreamWaitEvent", NULL);
    }
    return 0;
}

static int tngc__launch(model_ModelSuperKernel_forward_t *self, int g)
{
    return tngc__fork(self) != 0 || tngc__gears[g].launch(self, &self->gear[g]) != 0 || tngc__join(self) != 0
               ? -1
               : 0;
}

/* Runs gear g on the device: eagerly, or (reduce-overhead, static gears,
 * a chip that can capture) eagerly once, then captured once and replayed. */
static int tngc__execute(model_ModelSuperKernel_forward_t *self, int g)
{
    TngcAclGear *G = &self->gear[g];
    aclmdlRI ri = NULL;
    int rc, end;
    if (G->captured) {
        uint64_t t0 = tngc__now(self);
        TNGC_CHECK(aclmdlRIExecuteAsync(G->ri, self->stream[0]), "aclmdlRIExecuteAsync", NULL);
        tngc__slice(self, 0, "replay (aclmdlRIExecuteAsync)", t0);
        return 0;
    }
    if (tngc__launch(self, g) != 0)
        return -1;
    if (!tngc__gears[g].capture || !self->capture_ok)
        return 0;
    /* the eager run sized the workspaces: capture the same launch */
    TNGC_CHECK(aclrtSynchronizeStream(self->stream[0]), "aclrtSynchronizeStream", NULL);
    /* thread-local: other threads of the program may go on copying */
    TNGC_CHECK(aclmdlRICaptureBegin(self->stream[0], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL), "aclmdlRICaptureBegin",
               NULL);
    G->capturing = 1;
    rc = tngc__launch(self, g);
    G->capturing = 0;
    end = aclmdlRICaptureEnd(self->stream[0], &ri);   /* also after a failed launch: the capture ends */
    if (rc != 0 || end != 0) {
        if (ri)
            (void)aclmdlRIDestroy(ri);
        return rc != 0 ? -1 : tngc__acl_fail(self, end, "aclmdlRICaptureEnd", NULL);
    }
    G->ri = ri;
    G->captured = 1;
    return 0;
}

/* The host arena, grown to bytes. */
static int tngc__host_arena(model_ModelSuperKernel_forward_t *self, int64_t bytes)
{
    unsigned char *p;
    if (bytes <= self->host_cap)
        return 0;
    p = malloc((size_t)bytes);
    if (!p)
        return tngc__fail(self, "%s: out of memory for %lld bytes of outputs", self->desc->name, (long long)bytes);
    free(self->host);
    self->host = p;
    self->host_cap = bytes;
    return 0;
}

/* Copies the outputs, and the inputs updated in place, back to the host. */
static int tngc__fetch(model_ModelSuperKernel_forward_t *self, int g, const int64_t *sym, TngrtTensor *outputs)
{
    const TngrtBundleDesc *d = self->desc;
    TngcAclGear *G = &self->gear[g];
    TngrtRunCtx host = {self->host, self->in, self->w_host, sym, G->off, NULL};  /* no packed weights on the host side of ACL */
    if (tngc__host_arena(self, G->arena_bytes > 0 ? G->arena_bytes : 64) != 0)
        return -1;
    host.arena = self->host;
    memset(outputs, 0, (size_t)d->noutputs * sizeof *outputs);
    d->gears[g].outputs(&G->dev, self->dev_out);
    d->gears[g].outputs(&host, outputs);
    for (int i = 0; i < d->noutputs; i++)
        if (outputs[i].nbytes > 0)
            TNGC_CHECK(aclrtMemcpy(outputs[i].data, outputs[i].nbytes, self->dev_out[i].data, outputs[i].nbytes,
                                   ACL_MEMCPY_DEVICE_TO_HOST),
                       "aclrtMemcpy", NULL);
    for (int i = 0; i < d->ninputs; i++) {
        size_t n = (size_t)tngc__sig_bytes(&d->inputs[i], sym);
        if ((d->inputs[i].flags & TNGRT_SIG_UPDATED) && n > 0)
            TNGC_CHECK(aclrtMemcpy(self->in[i], n, G->in[i], n, ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy", NULL);
    }
    return 0;
}

/* The device part of a run of gear g: the inputs in, the launch, the
 * outputs out. */
static int tngc__run_gear(model_ModelSuperKernel_forward_t *self, int g, const int64_t *sym, const TngrtTensor *inputs, int ninputs,
                          TngrtTensor *outputs)
{
    int rc;
    uint64_t t0;
    if ((rc = tngc__gear_prepare(self, g, sym)) != 0)
        return rc;
    t0 = tngc__now(self);
    for (int i = 0; i < ninputs; i++) {
        self->in[i] = inputs[i].data;
        if (inputs[i].nbytes > 0)
            TNGC_CHECK(aclrtMemcpy(self->gear[g].in[i], inputs[i].nbytes, inputs[i].data, inputs[i].nbytes,
                                   ACL_MEMCPY_HOST_TO_DEVICE),
                       "aclrtMemcpy", NULL);
    }
    tngc__slice(self, 0, "inputs to the device (aclrtMemcpy)", t0);
    if (tngc__execute(self, g) != 0)
        return -1;
    t0 = tngc__now(self);
    TNGC_CHECK(aclrtSynchronizeStream(self->stream[0]), "aclrtSynchronizeStream", NULL);
    tngc__slice(self, 0, "synchronize (aclrtSynchronizeStream)", t0);
    t0 = tngc__now(self);
    rc = tngc__fetch(self, g, sym, outputs);
    tngc__slice(self, 0, "outputs to the host (aclrtMemcpy)", t0);
    return rc;
}

int model_ModelSuperKernel_forward_run(model_ModelSuperKernel_forward_t *self, const TngrtTensor *inputs, int ninputs, TngrtTensor *outputs,
                      int noutputs)
{
    const TngrtBundleDesc *d = self->desc;
    int64_t sym[64];
    int g, rc, src, bad = 0;
    self->err[0] = '\0';
    if (noutputs != d->noutputs || (noutputs > 0 && !outputs))
        return tngc__fail(self, "%s returns %d outputs, got room for %d", d->entry, d->noutputs,
                          outputs ? noutputs : 0);
    if (d->nsyms > 64)
        return tngc__fail(self, "%s: more than 64 symbols", d->name);
    for (int k = 0; k < d->nshared; k++)
        if (self->wbind[d->shared[k].weight] == TNGC_BIND_NONE)
            return tngc__fail(self, "the state '%s' is shared with the bundle of %s (its '%s'): bind the two "
                              "with %s_share_state, or give this one a copy of its own with %s_own_state",
                              d->weights[d->shared[k].weight].name, d->shared[k].entry, d->shared[k].name, d->name,
                              d->name);
    g = tngrt_desc_select(d, inputs, ninputs, sym, self->err, sizeof self->err);
    if (g < 0)   /* a dtype, rank or shape in no gear: the inputs are at fault */
        return TNGRT_BAD_INPUT;
    TNGC_CHECK(aclrtSetCurrentContext(self->ctx), "aclrtSetCurrentContext", NULL);
    /* a stream of an earlier failed run that did not synchronise: again */
    if (self->unsettled && (src = tngc__settle(self, &bad)) != 0)
        return tngc__acl_fail(self, src, "aclrtSynchronizeStream", NULL);
    tngc__symbols(d, g, inputs, sym);
    rc = tngc__run_gear(self, g, sym, inputs, ninputs, outputs);
    /* a failed launch may have left work queued on other streams */
    if (rc != 0 && (src = tngc__settle(self, &bad)) != 0) {
        size_t n = strlen(self->err);
        snprintf(self->err + n, sizeof self->err - n, " (then aclrtSynchronizeStream of stream %d failed: error %d)",
                 bad, src);
    }
    return rc;
}

/* ---- state shared between bundles ------------------------------------------- */

/* The weight of desc d named name, or -1. */
static int tngc__weight_named(const TngrtBundleDesc *d, const char *name)
{
    for (int j = 0; j < d->nweights; j++)
        if (!strcmp(d->weights[j].name, name))
            return j;
    return -1;
}

/* Why weight j of owner o cannot hold the shared weight i of self, or NULL. */
static const char *tngc__share_mismatch(const model_ModelSuperKernel_forward_t *self, int i, const struct TngcAclState *o, int j)
{
    const TngrtSigTensor *w = &self->desc->weights[i], *ow;
    if (j < 0)
        return "does not have";
    ow = &o->desc->weights[j];
    if (ow->dtype != w->dtype || o->nz[j] != tngc__weight_nz[i] ||
        tngc__sig_bytes(ow, NULL) != tngc__sig_bytes(w, NULL))
        return "holds with another dtype or size";
    if (!(ow->flags & (TNGRT_SIG_UPDATED | TNGRT_SIG_SHARED)))
        return "does not keep as state";
    return NULL;
}

/* The descriptors of every gear dropped (and its capture) and the static
 * ones built again over the weights' device addresses now; a dynamic gear
 * is built at its next run. */
static int tngc__gears_rebuild(model_ModelSuperKernel_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    int bad;
    TNGC_CHECK(aclrtSetCurrentContext(self->ctx), "aclrtSetCurrentContext", NULL);
    if (tngc__settle(self, &bad) != 0)
        return tngc__fail(self, "%s: stream %d did not synchronise", d->name, bad);
    for (int g = 0; g < d->ngears; g++) {
        TngcAclGear *G = &self->gear[g];
        if (G->ri)
            TNGC_CHECK(aclmdlRIDestroy(G->ri), "aclmdlRIDestroy", NULL);
        G->ri = NULL;
        G->captured = 0;
        tngc__gear_unbuild(G, &tngc__gears[g]);
    }
    return tngc__gears_new(self);
}

int model_ModelSuperKernel_forward_share_state(model_ModelSuperKernel_forward_t *self, const void *owner)
{
    const TngrtBundleDesc *d = self->desc, *od;
    const struct TngcAclState *o = owner;
    int bound = 0;
    self->err[0] = '\0';
    if (!owner || owner == (const void *)self)
        return tngc__fail(self, "%s_share_state: %s", d->name,
                          owner ? "a bundle shares no state with itself" : "no owner bundle");
    od = o->desc;
    if (o->device != self->device)
        return tngc__fail(self, "%s_share_state: the bundle '%s' is on device %d, this one on %d", d->name, od->name,
                          (int)o->device, (int)self->device);
    /* check every row first: a failed call binds nothing */
    for (int k = 0; k < d->nshared; k++) {
        const TngrtStateShare *r = &d->shared[k];
        const char *why;
        if (!od->entry || strcmp(r->entry, od->entry) != 0)
            continue;
        if ((why = tngc__share_mismatch(self, r->weight, o, tngc__weight_named(od, r->name))) != NULL)
            return tngc__fail(self, "the state '%s' is shared with %s's '%s', which the bundle '%s' %s",
                              d->weights[r->weight].name, r->entry, r->name, od->name, why);
        bound++;
    }
    if (bound == 0)
        return tngc__fail(self, "the bundle '%s' (%s) shares no state with the bundle '%s' (%s)", d->name, d->entry,
                          od->name, od->entry ? od->entry : "?");
    for (int k = 0; k < d->nshared; k++) {
        const TngrtStateShare *r = &d->shared[k];
        if (!strcmp(r->entry, od->entry)) {
            self->w[r->weight] = o->w[tngc__weight_named(od, r->name)];
            self->wbind[r->weight] = TNGC_BIND_SHARED;
        }
    }
    return tngc__gears_rebuild(self) != 0 ? -1 : bound;
}

int model_ModelSuperKernel_forward_own_state(model_ModelSuperKernel_forward_t *self)
{
    const TngrtBundleDesc *d = self->desc;
    int moved = 0;
    self->err[0] = '\0';
    for (int k = 0; k < d->nshared; k++) {
        int i = d->shared[k].weight;
        moved |= self->w[i] != self->w_own[i];
        self->w[i] = self->w_own[i];
        self->wbind[i] = TNGC_BIND_OWN;
    }
    return moved ? tngc__gears_rebuild(self) : 0;
}

/* ---- the signature ------------------------------------------------------------ */

const TngrtBundleDesc *model_ModelSuperKernel_forward_desc(void)
{
    return &model_ModelSuperKernel_forward__desc;
}

const TngrtBundleDesc *model_ModelSuperKernel_forward_signature(const model_ModelSuperKernel_forward_t *self)
{
    return self->desc;
}

/* Attaches trace (NULL detaches) to the following runs; the bundle does not
 * own it. Host clocks: per stream, each op's two-phase call (named by its
 * place in the script) and each event wait (a flow arrow from its record);
 * on stream 0 also the input copies, the replay of a captured run, the
 * final synchronisation (where the device's time shows) and the output
 * copies. The trace needs the signature's nstreams tracks. */
void model_ModelSuperKernel_forward_set_trace(model_ModelSuperKernel_forward_t *self, TngrtTrace *trace)
{
    self->trace = trace;
}

const char *model_ModelSuperKernel_forward_last_error(const model_ModelSuperKernel_forward_t *self)
{
    return self->err;
}
