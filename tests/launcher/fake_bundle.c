/*
 * fake_bundle.c - a hand-written stand-in for a bundle that `tngc gen`
 * would write, for testing templates/launcher.c. The model:
 *
 *   inputs   x f32[s0,4]               (s0 geared 1, 2, 4; padding allowed)
 *            y f32[4]
 *            cache['k'] f32[s0,4]      (updated in place: cache += x)
 *   weight   w f32[4]
 *   unread   bn.num_batches_tracked    (a state_dict key the model never reads)
 *   outputs  out0 = (x + w) * y        f32[s0,4]
 *            out1 = x * 2              f32[s0,4]
 *            out2 = (x + w).t()        f32[4,s0]   (a strided view of t)
 *
 * Two streams and one event: stream 0 computes t = x + w into the arena,
 * records e0, then out1 and the cache update; stream 1 waits for e0 and
 * computes out0 = t * y. The arena holds t, out1 and out0, s0*16 bytes
 * each. Built with -DFAKE_DYNAMIC it has a fourth gear leaving s0 unbound
 * (any size), laid out at run time; with -DFAKE_NO_PAD the planner has
 * not proved s0 row-independent (--pad must refuse it); with -DFAKE_BF16
 * y is bf16 (the launcher reads it from a '<u2' .npy of bfloat16 bits);
 * with -DFAKE_NAMED the outputs are named as for a returned dict:
 * logits, layer.0-norm and ../up/evil (a hand-made name the launcher must
 * keep inside --out-dir).
 *
 * A run whose y[0] is -1234 fails in stream 0 before recording e0 (a
 * stand-in for a kernel error), so the other stream's wait is aborted; one
 * whose y[0] is -4321 fails the same way with bad input (a stand-in for an
 * embedding id out of range at line 7 of fake.py).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tngrt_bundle.h"

const TngrtBundleDesc *tngc_template_desc(void);

enum { NCOL = 4, ROW_BYTES = NCOL * 4 };

#ifdef FAKE_NO_PAD
#define FAKE_PAD_OK 0
#else
#define FAKE_PAD_OK 1
#endif

/* Element i of the input y as float. */
#ifdef FAKE_BF16
#define FAKE_Y_DTYPE TNGRT_BF16
static float fake_y(const TngrtRunCtx *c, int64_t i)
{
    uint32_t u = (uint32_t)((const uint16_t *)c->in[1])[i] << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
#else
#define FAKE_Y_DTYPE TNGRT_F32
static float fake_y(const TngrtRunCtx *c, int64_t i)
{
    return ((const float *)c->in[1])[i];
}
#endif

/* The three arena buffers of a run, wherever the gear put them. */
typedef struct FakeBufs {
    float *t, *out1, *out0;
} FakeBufs;

/* Static gears: t, out1, out0 one after the other. */
static FakeBufs fake_static_bufs(const TngrtRunCtx *c)
{
    int64_t n = c->sym[0] * ROW_BYTES;
    FakeBufs b = {(float *)(void *)c->arena, (float *)(void *)(c->arena + n),
                  (float *)(void *)(c->arena + 2 * n)};
    return b;
}

/* Records [t0, now) as a slice when a trace is attached. */
static void fake_slice(TngrtExec *exec, int stream, const char *name, uint64_t t0)
{
    TngrtTrace *tr = tngrt_exec_trace(exec);
    if (tr)
        tngrt_trace_slice(tr, stream, name, t0, tngrt_trace_now());
}

static int fake_stream0(const TngrtRunCtx *c, FakeBufs b, TngrtExec *exec, TngrtError *err)
{
    const float *x = c->in[0], *w = c->w[0];
    float *cache = c->in[2];
    int64_t n = c->sym[0] * NCOL;
    uint64_t t0 = tngrt_trace_now();
    if (fake_y(c, 0) == -1234.0f) {
        snprintf(err->msg, sizeof err->msg, "fake kernel: y[0] is -1234");
        return -1;
    }
    if (fake_y(c, 0) == -4321.0f) {
        snprintf(err->msg, sizeof err->msg, "fake embedding: id -4321 out of range");
        err->kind = TNGRT_ERR_BAD_INPUT;
        return tngrt_error_at(err, "fake.py", 7);
    }
    for (int64_t i = 0; i < n; i++)
        b.t[i] = x[i] + w[i % NCOL];
    fake_slice(exec, 0, "add", t0);
    tngrt_exec_record(exec, 0, 0);
    t0 = tngrt_trace_now();
    for (int64_t i = 0; i < n; i++) {
        b.out1[i] = x[i] * 2.0f;
        cache[i] += x[i];
    }
    fake_slice(exec, 0, "mul+update", t0);
    return 0;
}

static int fake_stream1(const TngrtRunCtx *c, FakeBufs b, TngrtExec *exec, TngrtError *err)
{
    int64_t n = c->sym[0] * NCOL;
    uint64_t t0;
    if (tngrt_exec_wait(exec, 1, 0) != 0) {
        snprintf(err->msg, sizeof err->msg, "stream 1: run aborted");
        return -1;
    }
    t0 = tngrt_trace_now();
    for (int64_t i = 0; i < n; i++)
        b.out0[i] = b.t[i] * fake_y(c, i % NCOL);
    fake_slice(exec, 1, "mul", t0);
    return 0;
}

static int static_s0(void *arg, TngrtExec *exec, int stream, TngrtError *err)
{
    (void)stream;
    return fake_stream0(arg, fake_static_bufs(arg), exec, err);
}

static int static_s1(void *arg, TngrtExec *exec, int stream, TngrtError *err)
{
    (void)stream;
    return fake_stream1(arg, fake_static_bufs(arg), exec, err);
}

/* A [s0,4] f32 view of data. */
static void fake_view(TngrtTensor *o, float *data, int64_t s0)
{
    o->dtype = TNGRT_F32;
    o->ndim = 2;
    o->shape[0] = s0;
    o->shape[1] = NCOL;
    o->strides[0] = NCOL;
    o->strides[1] = 1;
    o->data = data;
    o->nbytes = (size_t)(s0 * ROW_BYTES);
    o->owns = 0;
}

/* A [4,s0] f32 view of the [s0,4] buffer data, transposed (not dense). */
static void fake_transposed(TngrtTensor *o, float *data, int64_t s0)
{
    fake_view(o, data, s0);
    o->shape[0] = NCOL;
    o->shape[1] = s0;
    o->strides[0] = 1;
    o->strides[1] = NCOL;
}

static void static_outputs(const TngrtRunCtx *c, TngrtTensor *outs)
{
    FakeBufs b = fake_static_bufs(c);
    fake_view(&outs[0], b.out0, c->sym[0]);
    fake_view(&outs[1], b.out1, c->sym[0]);
    fake_transposed(&outs[2], b.t, c->sym[0]);
}

#ifdef FAKE_DYNAMIC
/* The dynamic gear: the offsets its layout computed. */
static FakeBufs fake_dynamic_bufs(const TngrtRunCtx *c)
{
    FakeBufs b = {(float *)(void *)(c->arena + c->off[0]),
                  (float *)(void *)(c->arena + c->off[1]),
                  (float *)(void *)(c->arena + c->off[2])};
    return b;
}

static int dynamic_s0(void *arg, TngrtExec *exec, int stream, TngrtError *err)
{
    (void)stream;
    return fake_stream0(arg, fake_dynamic_bufs(arg), exec, err);
}

static int dynamic_s1(void *arg, TngrtExec *exec, int stream, TngrtError *err)
{
    (void)stream;
    return fake_stream1(arg, fake_dynamic_bufs(arg), exec, err);
}

static void dynamic_outputs(const TngrtRunCtx *c, TngrtTensor *outs)
{
    FakeBufs b = fake_dynamic_bufs(c);
    fake_view(&outs[0], b.out0, c->sym[0]);
    fake_view(&outs[1], b.out1, c->sym[0]);
    fake_transposed(&outs[2], b.t, c->sym[0]);
}

/* The dynamic gear's layout: three [s0,4] f32 buffers. */
static int dynamic_layout(const int64_t *sym, int64_t *off, int64_t *bytes)
{
    if (sym[0] < 0 || sym[0] > INT64_MAX / 3 / ROW_BYTES)
        return -1;
    off[0] = 0;
    off[1] = sym[0] * ROW_BYTES;
    off[2] = 2 * sym[0] * ROW_BYTES;
    *bytes = 3 * sym[0] * ROW_BYTES;
    return 0;
}

static const TngrtStreamFn dynamic_streams[] = {dynamic_s0, dynamic_s1};
static const int64_t unbound[] = {INT64_MIN};
#endif

static const TngrtDim dims_s0_4[] = {{0, 0}, {-1, NCOL}};
static const TngrtDim dims_4[] = {{-1, NCOL}};
static const TngrtDim dims_4_s0[] = {{-1, NCOL}, {0, 0}};

static const TngrtSigTensor inputs[] = {
    {"x", TNGRT_F32, 2, dims_s0_4, 0},
    {"y", FAKE_Y_DTYPE, 1, dims_4, 0},
    {"cache['k']", TNGRT_F32, 2, dims_s0_4, TNGRT_SIG_UPDATED},
};
static const TngrtSigTensor weights[] = {{"w", TNGRT_F32, 1, dims_4, 0}};
#ifdef FAKE_NAMED   /* as for a returned dict; the third a name tngc refuses, to be kept in --out-dir */
static const TngrtSigTensor outputs[] = {
    {"logits", TNGRT_F32, 2, dims_s0_4, 0},
    {"layer.0-norm", TNGRT_F32, 2, dims_s0_4, 0},
    {"../up/evil", TNGRT_F32, 2, dims_4_s0, 0},
};
#else
static const TngrtSigTensor outputs[] = {
    {"out0", TNGRT_F32, 2, dims_s0_4, 0},
    {"out1", TNGRT_F32, 2, dims_s0_4, 0},
    {"out2", TNGRT_F32, 2, dims_4_s0, 0},
};
#endif
static const TngrtSym syms[] = {{"s0", 0, 0, FAKE_PAD_OK}};

static const TngrtStreamFn static_streams[] = {static_s0, static_s1};
static const int64_t gear1[] = {1}, gear2[] = {2}, gear4[] = {4};

static const TngrtGear gears[] = {
    {gear1, 3 * 1 * ROW_BYTES, NULL, 0, static_streams, static_outputs},
    {gear2, 3 * 2 * ROW_BYTES, NULL, 0, static_streams, static_outputs},
    {gear4, 3 * 4 * ROW_BYTES, NULL, 0, static_streams, static_outputs},
#ifdef FAKE_DYNAMIC
    {unbound, -1, dynamic_layout, 3, dynamic_streams, dynamic_outputs},
#endif
};

static const char *const stream_names[] = {"default", "1"};

/* state_dict keys the model never reads (a BatchNorm's training counter) */
static const char *const unread[] = {"bn.num_batches_tracked"};

static const TngrtBundleDesc desc = {
    "fake", "Fake.forward", "tests/launcher/fake_bundle.c",
    3, inputs, 1, weights, 3, outputs, 1, syms,
    (int)(sizeof gears / sizeof gears[0]), gears,
    2, stream_names, 1, 0, NULL, 1, unread, 0, NULL,
};

const TngrtBundleDesc *tngc_template_desc(void)
{
    return &desc;
}
