/*
 * test_rt_bundle.c - unit tests of libtngcrt's generic bundle
 * (tngrt_bundle.h) with small descriptors written here as tngc would
 * generate them: gear selection (static gears, symbols left unbound by a
 * gear, conflicting bindings, first match wins), the arena growing for a
 * dynamic gear, input checks and their messages, weight loading and its
 * errors (missing file, missing tensor, wrong dtype or shape: the weights
 * keep their values), output views, a failing stream, malformed
 * descriptors, many runs of one bundle, and no thread left but the
 * caller's once a one-stream bundle on one thread is made (OpenBLAS's
 * pthread build starts threads when it is loaded; tngrt_bundle_new stops
 * them).
 *
 * Stream functions run on worker threads, where cmocka's asserts must not
 * be used: they report through their return value and error message.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>

#include <cblas.h>

#include "../../runtime/tngrt_bundle.h"

/* ---- model A: out[i] = sum_j a[i,j] * scale[j] + b[i] on two streams ----
 * inputs a f32[s0,3], b f32[s0]; weight scale f32[3]; gears s0 = 1, 2, 4,
 * and in the dynamic variant a last gear leaving s0 unbound. Stream 0
 * writes tmp = a @ scale into the arena and records e0; stream 1 waits and
 * writes out = tmp + b. A NaN in b[0] makes stream 0 fail before it
 * records (stream 1's wait is then aborted); an infinite b[0] makes it
 * fail the same way with bad input, located at a.py:7. */

/* Arena offsets of tmp and out: static gears use sym, the dynamic one off. */
static float *a_buf(const TngrtRunCtx *c, int which, int dynamic)
{
    int64_t off = dynamic ? c->off[which] : which * c->sym[0] * 4;
    return (float *)(void *)(c->arena + off);
}

static int a_stream0(const TngrtRunCtx *c, TngrtExec *x, int dynamic, TngrtError *err)
{
    const float *a = c->in[0], *b = c->in[1], *scale = c->w[0];
    float *tmp = a_buf(c, 0, dynamic);
    if (c->sym[0] > 0 && isnan(b[0])) {
        snprintf(err->msg, sizeof err->msg, "model A: NaN in b");
        return -1;
    }
    if (c->sym[0] > 0 && isinf(b[0])) {
        snprintf(err->msg, sizeof err->msg, "model A: inf in b");
        err->kind = TNGRT_ERR_BAD_INPUT;
        return tngrt_error_at(err, "a.py", 7);
    }
    for (int64_t i = 0; i < c->sym[0]; i++)
        tmp[i] = a[i * 3] * scale[0] + a[i * 3 + 1] * scale[1] + a[i * 3 + 2] * scale[2];
    tngrt_exec_record(x, 0, 0);
    return 0;
}

static int a_stream1(const TngrtRunCtx *c, TngrtExec *x, int dynamic, TngrtError *err)
{
    const float *b = c->in[1], *tmp = a_buf(c, 0, dynamic);
    float *out = a_buf(c, 1, dynamic);
    if (tngrt_exec_wait(x, 1, 0) != 0) {
        snprintf(err->msg, sizeof err->msg, "model A: aborted");
        return -1;
    }
    for (int64_t i = 0; i < c->sym[0]; i++)
        out[i] = tmp[i] + b[i];
    return 0;
}

static int a_s0(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    (void)s;
    return a_stream0(arg, x, 0, err);
}

static int a_s1(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    (void)s;
    return a_stream1(arg, x, 0, err);
}

static int a_d0(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    (void)s;
    return a_stream0(arg, x, 1, err);
}

static int a_d1(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    (void)s;
    return a_stream1(arg, x, 1, err);
}

static void a_out_view(TngrtTensor *o, float *data, int64_t n)
{
    o->dtype = TNGRT_F32;
    o->ndim = 1;
    o->shape[0] = n;
    o->strides[0] = 1;
    o->data = data;
    o->nbytes = (size_t)n * 4;
}

static void a_outputs(const TngrtRunCtx *c, TngrtTensor *outs)
{
    a_out_view(&outs[0], a_buf(c, 1, 0), c->sym[0]);
}

static void a_outputs_dyn(const TngrtRunCtx *c, TngrtTensor *outs)
{
    a_out_view(&outs[0], a_buf(c, 1, 1), c->sym[0]);
}

/* tmp and out, each s0 floats; the 64-byte gap checks that off is used.
 * Like a generated layout it refuses sizes past TNGRT_MAX_BYTES, here of
 * a (never placed) tensor of s0 x 64 bytes. */
static int a_layout(const int64_t *sym, int64_t *off, int64_t *bytes)
{
    if (sym[0] > TNGRT_MAX_BYTES / 64)
        return -1;
    off[0] = 64;
    off[1] = 64 + sym[0] * 4;
    *bytes = off[1] + sym[0] * 4;
    return 0;
}

static const TngrtDim a_dims_a[] = {{0, 0}, {-1, 3}}, a_dims_b[] = {{0, 0}},
                      a_dims_w[] = {{-1, 3}};
static const TngrtSigTensor a_inputs[] = {
    {"a", TNGRT_F32, 2, a_dims_a, 0},
    {"b", TNGRT_F32, 1, a_dims_b, 0},
};
static const TngrtSigTensor a_weights[] = {{"scale", TNGRT_F32, 1, a_dims_w, 0}};
static const TngrtSigTensor a_outputs_sig[] = {{"out0", TNGRT_F32, 1, a_dims_b, 0}};
static const TngrtSym a_syms[] = {{"s0", 0, 0, 1}};
static const TngrtStreamFn a_streams[] = {a_s0, a_s1}, a_streams_dyn[] = {a_d0, a_d1};
static const int64_t v1[] = {1}, v2[] = {2}, v4[] = {4}, vq[] = {INT64_MIN};
static const TngrtGear a_gears[] = {
    {v1, 8, NULL, 0, a_streams, a_outputs},
    {v2, 16, NULL, 0, a_streams, a_outputs},
    {v4, 32, NULL, 0, a_streams, a_outputs},
    {vq, -1, a_layout, 2, a_streams_dyn, a_outputs_dyn},
};
static const char *const two_names[] = {"default", "1"};

static TngrtBundleDesc model_a(int dynamic)
{
    TngrtBundleDesc d = {"a", "A.forward", "a.py", 2, a_inputs, 1, a_weights, 1, a_outputs_sig,
                         1, a_syms, dynamic ? 4 : 3, a_gears, 2, two_names, 1, 0, NULL, 0, NULL, 0, NULL};
    return d;
}

/* ---- model B: two symbols, out[i] = sum_j a[i,j], one stream ----
 * input a f32[s0,s1]; gears (2,3) static, (2,?) and (?,?) dynamic. */

static int b_s0(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    const TngrtRunCtx *c = arg;
    const float *a = c->in[0];
    float *out = (float *)(void *)c->arena;   /* every gear puts out at 0 */
    (void)x, (void)s, (void)err;
    for (int64_t i = 0; i < c->sym[0]; i++) {
        out[i] = 0;
        for (int64_t j = 0; j < c->sym[1]; j++)
            out[i] += a[i * c->sym[1] + j];
    }
    return 0;
}

static void b_outputs(const TngrtRunCtx *c, TngrtTensor *outs)
{
    a_out_view(&outs[0], (float *)(void *)c->arena, c->sym[0]);
}

static int b_layout(const int64_t *sym, int64_t *off, int64_t *bytes)
{
    if (sym[0] > INT64_MAX / 8)
        return -1;
    off[0] = 0;
    *bytes = sym[0] * 4;
    return 0;
}

static const TngrtDim b_dims[] = {{0, 0}, {1, 0}}, b_out_dims[] = {{0, 0}};
static const TngrtSigTensor b_inputs[] = {{"a", TNGRT_F32, 2, b_dims, 0}};
static const TngrtSigTensor b_outs[] = {{"out0", TNGRT_F32, 1, b_out_dims, 0}};
static const TngrtSym b_syms[] = {{"s0", 0, 0, 1}, {"s1", 0, 1, 0}};
static const TngrtStreamFn b_streams[] = {b_s0};
static const int64_t b23[] = {2, 3}, b2q[] = {2, INT64_MIN}, bqq[] = {INT64_MIN, INT64_MIN};
static const TngrtGear b_gears[] = {
    {b23, 8, NULL, 0, b_streams, b_outputs},
    {b2q, -1, b_layout, 1, b_streams, b_outputs},
    {bqq, -1, b_layout, 1, b_streams, b_outputs},
};
static const char *const one_name[] = {"default"};
static const TngrtBundleDesc model_b = {"b", "B.forward", "b.py", 1, b_inputs, 0, NULL, 1, b_outs,
                                        2, b_syms, 3, b_gears, 1, one_name, 0, 0, NULL, 0, NULL, 0, NULL};

/* ---- model C: no symbols; x i32[2] updated in place (x += 1) ---- */

static int c_s0(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    const TngrtRunCtx *c = arg;
    int32_t *v = c->in[0];
    (void)x, (void)s, (void)err;
    v[0] += 1;
    v[1] += 1;
    return 0;
}

static void c_outputs(const TngrtRunCtx *c, TngrtTensor *outs)
{
    outs[0].dtype = TNGRT_I32;
    outs[0].ndim = 1;
    outs[0].shape[0] = 2;
    outs[0].strides[0] = 1;
    outs[0].data = c->in[0];
    outs[0].nbytes = 8;
}

static const TngrtDim c_dims[] = {{-1, 2}};
static const TngrtSigTensor c_inputs[] = {{"x", TNGRT_I32, 1, c_dims, TNGRT_SIG_UPDATED}};
static const TngrtStreamFn c_streams[] = {c_s0};
static const TngrtGear c_gears[] = {{NULL, 0, NULL, 0, c_streams, c_outputs}};
static const TngrtBundleDesc model_c = {"c", "C.forward", "c.py", 1, c_inputs, 0, NULL, 1,
                                        c_inputs, 0, NULL, 1, c_gears, 1, one_name, 0, 0, NULL, 0, NULL, 0, NULL};

/* ---- helpers ---- */

static TngrtBundle *bundle_ok(const TngrtBundleDesc *d)
{
    TngrtBundle *b = NULL;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    if (tngrt_bundle_new(&b, d, &err) != 0)
        fail_msg("tngrt_bundle_new: %s", err.msg);
    assert_int_equal(tngrt_bundle_last_gear(b), -1);
    assert_string_equal(tngrt_bundle_last_error(b), "");
    assert_ptr_equal(tngrt_bundle_desc(b), d);
    return b;
}

/* A dense C-order view of data. */
static TngrtTensor view(TngrtDType dt, void *data, int ndim, int64_t d0, int64_t d1)
{
    TngrtTensor t;
    memset(&t, 0, sizeof t);
    t.dtype = dt;
    t.ndim = ndim;
    t.shape[0] = d0;
    t.shape[1] = d1;
    tngrt_tensor_set_strides(&t);
    t.data = data;
    t.nbytes = tngrt_dtype_size(dt) * (size_t)(ndim == 0 ? 1 : ndim == 1 ? d0 : d0 * d1);
    return t;
}

/* Asserts the last error contains needle. */
static void error_has(const TngrtBundle *b, const char *needle)
{
    const char *msg = tngrt_bundle_last_error(b);
    if (!strstr(msg, needle))
        fail_msg("message '%s' lacks '%s'", msg, needle);
    assert_null(strchr(msg, '\n'));
}

/* Writes a safetensors file of one tensor (header unpadded: unaligned data). */
static char *write_st(const char *name, const char *dtype, const char *shape,
                      const void *data, size_t nbytes)
{
    char header[512], *path = strdup("/tmp/tngrt-bundle-XXXXXX");
    unsigned char len[8];
    int n = name ? snprintf(header, sizeof header,
                            "{\"%s\":{\"dtype\":\"%s\",\"shape\":%s,\"data_offsets\":[0,%zu]}}",
                            name, dtype, shape, nbytes)
                 : snprintf(header, sizeof header, "{}");
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "wb");
    assert_non_null(f);
    for (int i = 0; i < 8; i++)
        len[i] = (unsigned char)((uint64_t)n >> (8 * i));
    fwrite(len, 1, 8, f);
    fwrite(header, 1, (size_t)n, f);
    if (name && nbytes)
        fwrite(data, 1, nbytes, f);
    fclose(f);
    return path;
}

/* Loads scale = v into a bundle of model A. */
static void load_scale(TngrtBundle *b, const float *v)
{
    char *path = write_st("scale", "F32", "[3]", v, 12);
    if (tngrt_bundle_load_weights(b, path) != 0)
        fail_msg("load: %s", tngrt_bundle_last_error(b));
    unlink(path);
    free(path);
}

/* Runs model A on s0 rows (a[i,j] = i + j, b[i] = 10 i) and checks out. */
static void run_a(TngrtBundle *b, int64_t s0, int want_gear)
{
    static const float scale[3] = {1, 2, 3};   /* what the tests load */
    float a[64 * 3], bv[64];
    TngrtTensor in[2], out[1];
    assert_true(s0 <= 64);
    for (int64_t i = 0; i < s0; i++) {
        for (int j = 0; j < 3; j++)
            a[i * 3 + j] = (float)(i + j);
        bv[i] = (float)(10 * i);
    }
    in[0] = view(TNGRT_F32, a, 2, s0, 3);
    in[1] = view(TNGRT_F32, bv, 1, s0, 0);
    if (tngrt_bundle_run(b, in, 2, out, 1) != 0)
        fail_msg("run s0=%lld: %s", (long long)s0, tngrt_bundle_last_error(b));
    assert_int_equal(tngrt_bundle_last_gear(b), want_gear);
    assert_string_equal(tngrt_bundle_last_error(b), "");
    assert_int_equal(out[0].dtype, TNGRT_F32);
    assert_int_equal(out[0].ndim, 1);
    assert_int_equal(out[0].shape[0], s0);
    assert_int_equal(out[0].nbytes, (size_t)s0 * 4);
    for (int64_t i = 0; i < s0; i++) {
        float want = (float)i * scale[0] + (float)(i + 1) * scale[1] + (float)(i + 2) * scale[2]
                     + (float)(10 * i);
        assert_float_equal(((float *)out[0].data)[i], want, 0);
    }
}

/* ---- tests ---- */

static void test_static_gears(void **state)
{
    TngrtBundleDesc d = model_a(0);
    TngrtBundle *b = bundle_ok(&d);
    static const float scale[3] = {1, 2, 3};
    char s[64];
    (void)state;
    load_scale(b, scale);
    run_a(b, 2, 1);
    run_a(b, 1, 0);
    run_a(b, 4, 2);
    tngrt_bundle_gear_str(b, 2, s, sizeof s);
    assert_string_equal(s, "s0=4");
    tngrt_bundle_gear_str(b, 7, s, sizeof s);
    assert_string_equal(s, "no gear 7");
    tngrt_bundle_delete(b);
}

static void test_no_gear_message(void **state)
{
    TngrtBundleDesc d = model_a(0);
    TngrtBundle *b = bundle_ok(&d);
    float a[9] = {0}, bv[3] = {0};
    TngrtTensor in[2] = {view(TNGRT_F32, a, 2, 3, 3), view(TNGRT_F32, bv, 1, 3, 0)}, out[1];
    (void)state;
    assert_int_equal(tngrt_bundle_select(b, in, 2), -1);
    error_has(b, "input shapes a=[3,3], b=[3] match no gear; gears: s0=1, s0=2, s0=4");
    assert_int_equal(tngrt_bundle_run(b, in, 2, out, 1), TNGRT_BAD_INPUT);
    error_has(b, "gears: s0=1, s0=2, s0=4");
    assert_int_equal(tngrt_bundle_last_gear(b), -1);
    /* a and b disagree on s0 */
    in[1] = view(TNGRT_F32, bv, 1, 2, 0);
    in[0] = view(TNGRT_F32, a, 2, 1, 3);
    assert_int_equal(tngrt_bundle_select(b, in, 2), -1);
    error_has(b, "a=[1,3], b=[2] match no gear");
    tngrt_bundle_delete(b);
}

static void test_dynamic_gear_grows_arena(void **state)
{
    TngrtBundleDesc d = model_a(1);
    TngrtBundle *b = bundle_ok(&d);
    static const float scale[3] = {1, 2, 3};
    char s[64];
    (void)state;
    load_scale(b, scale);
    run_a(b, 4, 2);    /* a static gear comes first */
    run_a(b, 3, 3);
    run_a(b, 64, 3);   /* larger than any static gear: the arena grows */
    run_a(b, 0, 3);
    run_a(b, 1, 0);
    run_a(b, 17, 3);
    tngrt_bundle_gear_str(b, 3, s, sizeof s);
    assert_string_equal(s, "s0=?");
    tngrt_bundle_delete(b);
}

static void test_two_symbols_binding(void **state)
{
    TngrtBundle *b = bundle_ok(&model_b);
    float a[5 * 7];
    TngrtTensor in[1], out[1];
    char s[64];
    (void)state;
    for (int i = 0; i < 35; i++)
        a[i] = (float)i;
    in[0] = view(TNGRT_F32, a, 2, 2, 3);
    assert_int_equal(tngrt_bundle_select(b, in, 1), 0);
    in[0] = view(TNGRT_F32, a, 2, 2, 5);
    assert_int_equal(tngrt_bundle_select(b, in, 1), 1);
    in[0] = view(TNGRT_F32, a, 2, 5, 7);
    assert_int_equal(tngrt_bundle_run(b, in, 1, out, 1), 0);
    assert_int_equal(tngrt_bundle_last_gear(b), 2);
    assert_int_equal(out[0].shape[0], 5);
    for (int i = 0; i < 5; i++)
        assert_float_equal(((float *)out[0].data)[i], (float)(49 * i + 21), 0);
    tngrt_bundle_gear_str(b, 1, s, sizeof s);
    assert_string_equal(s, "s0=2 s1=?");
    tngrt_bundle_gear_str(b, 0, s, 6);   /* truncated, NUL-terminated */
    assert_string_equal(s, "s0=2 ");
    tngrt_bundle_delete(b);
}

static void test_conflicting_binding(void **state)
{
    /* x f32[s0] and y f32[s0] on a gear leaving s0 unbound */
    static const TngrtDim dims[] = {{0, 0}};
    static const TngrtSigTensor ins[] = {{"x", TNGRT_F32, 1, dims, 0}, {"y", TNGRT_F32, 1, dims, 0}};
    static const TngrtSym syms[] = {{"s0", 0, 0, 0}};
    static const TngrtGear gears[] = {{vq, -1, b_layout, 1, b_streams, b_outputs}};
    TngrtBundleDesc d = {"k", "K.forward", "k.py", 2, ins, 0, NULL, 1, b_outs, 1, syms, 1, gears,
                         1, one_name, 0, 0, NULL, 0, NULL, 0, NULL};
    TngrtBundle *b = bundle_ok(&d);
    float x[4] = {0}, y[4] = {0};
    TngrtTensor in[2] = {view(TNGRT_F32, x, 1, 3, 0), view(TNGRT_F32, y, 1, 4, 0)};
    (void)state;
    assert_int_equal(tngrt_bundle_select(b, in, 2), -1);
    error_has(b, "input shapes x=[3], y=[4] match no gear; gears: s0=?");
    in[1] = view(TNGRT_F32, y, 1, 3, 0);
    assert_int_equal(tngrt_bundle_select(b, in, 2), 0);
    tngrt_bundle_delete(b);
}

static void test_input_errors(void **state)
{
    TngrtBundleDesc d = model_a(0);
    TngrtBundle *b = bundle_ok(&d);
    float a[6] = {0}, bv[2] = {0};
    int32_t ai[6] = {0};
    TngrtTensor in[2] = {view(TNGRT_F32, a, 2, 2, 3), view(TNGRT_F32, bv, 1, 2, 0)}, out[2], t;
    (void)state;
    assert_int_equal(tngrt_bundle_run(b, in, 1, out, 1), -1);
    error_has(b, "A.forward takes 2 inputs, got 1");
    assert_int_equal(tngrt_bundle_run(b, NULL, 2, out, 1), -1);
    assert_int_equal(tngrt_bundle_run(b, in, 2, out, 2), -1);
    error_has(b, "A.forward returns 1 outputs");
    assert_int_equal(tngrt_bundle_run(b, in, 2, NULL, 1), -1);
    t = in[0];
    in[0] = view(TNGRT_I32, ai, 2, 2, 3);
    assert_int_equal(tngrt_bundle_select(b, in, 2), -1);
    error_has(b, "input 'a': dtype i32, expected f32");
    in[0] = view(TNGRT_F32, a, 1, 6, 0);
    assert_int_equal(tngrt_bundle_select(b, in, 2), -1);
    error_has(b, "input 'a': 1 dims [6], expected 2 [s0,3]");
    in[0] = view(TNGRT_F32, a, 2, 3, 2);
    assert_int_equal(tngrt_bundle_check_inputs(b, in, 2), -1);
    error_has(b, "input 'a': shape [3,2], expected [s0,3]");
    in[0] = t;
    in[0].data = NULL;
    assert_int_equal(tngrt_bundle_select(b, in, 2), -1);
    error_has(b, "input 'a': holds 24 bytes at NULL");
    in[0] = t;
    in[0].nbytes = 20;
    assert_int_equal(tngrt_bundle_select(b, in, 2), -1);
    error_has(b, "its shape needs 24");
    in[0] = t;
    in[0].strides[0] = 1;
    in[0].strides[1] = 2;
    assert_int_equal(tngrt_bundle_select(b, in, 2), -1);
    error_has(b, "input 'a': not C-contiguous");
    in[0] = t;
    in[0].shape[0] = -1;
    assert_int_equal(tngrt_bundle_select(b, in, 2), -1);
    error_has(b, "input 'a'");
    in[0] = t;
    in[0].ndim = 99;
    assert_int_equal(tngrt_bundle_select(b, in, 2), -1);
    error_has(b, "input 'a': 99 dims [], expected 2");
    in[0] = t;
    assert_int_equal(tngrt_bundle_check_inputs(b, in, 2), 0);
    assert_string_equal(tngrt_bundle_last_error(b), "");
    assert_int_equal(tngrt_bundle_select(b, in, 2), 1);
    assert_int_equal(tngrt_bundle_last_gear(b), -1);   /* select does not run */
    tngrt_bundle_delete(b);
}

static void test_weight_errors(void **state)
{
    TngrtBundleDesc d = model_a(0);
    TngrtBundle *b = bundle_ok(&d);
    static const float scale[3] = {1, 2, 3}, other[4] = {7, 7, 7, 7};
    static const uint16_t half[3] = {0, 0, 0};
    char *path;
    (void)state;
    load_scale(b, scale);
    path = write_st("scale", "F32", "[2,2]", other, 16);
    assert_int_equal(tngrt_bundle_load_weights(b, path), -1);
    error_has(b, "weight 'scale' has shape [2,2], the model expects [3]");
    error_has(b, path);
    unlink(path);
    free(path);
    path = write_st("scale", "F16", "[3]", half, 6);
    assert_int_equal(tngrt_bundle_load_weights(b, path), -1);
    error_has(b, "weight 'scale' has dtype f16, the model expects f32");
    unlink(path);
    free(path);
    path = write_st("other", "F32", "[3]", other, 12);
    assert_int_equal(tngrt_bundle_load_weights(b, path), -1);
    error_has(b, "weight 'scale' is missing");
    unlink(path);
    free(path);
    path = write_st(NULL, NULL, NULL, NULL, 0);   /* no tensor at all */
    assert_int_equal(tngrt_bundle_load_weights(b, path), -1);
    error_has(b, "weight 'scale' is missing");
    unlink(path);
    free(path);
    assert_int_equal(tngrt_bundle_load_weights(b, "/nonexistent/w.safetensors"), -1);
    error_has(b, "/nonexistent/w.safetensors");
    assert_int_equal(tngrt_bundle_load_weights(b, NULL), -1);
    run_a(b, 2, 1);   /* the weights kept their values */
    tngrt_bundle_delete(b);
}

static void test_weights_zero_until_loaded(void **state)
{
    TngrtBundleDesc d = model_a(0);
    TngrtBundle *b = bundle_ok(&d);
    float a[3] = {5, 6, 7}, bv[1] = {1.5f};
    TngrtTensor in[2] = {view(TNGRT_F32, a, 2, 1, 3), view(TNGRT_F32, bv, 1, 1, 0)}, out[1];
    (void)state;
    assert_int_equal(tngrt_bundle_run(b, in, 2, out, 1), 0);
    assert_float_equal(((float *)out[0].data)[0], 1.5f, 0);
    tngrt_bundle_delete(b);
}

static void test_stream_failure(void **state)
{
    TngrtBundleDesc d = model_a(0);
    TngrtBundle *b = bundle_ok(&d);
    static const float scale[3] = {1, 2, 3};
    float a[6] = {0}, bv[2] = {NAN, 0};
    TngrtTensor in[2] = {view(TNGRT_F32, a, 2, 2, 3), view(TNGRT_F32, bv, 1, 2, 0)}, out[1];
    (void)state;
    load_scale(b, scale);
    run_a(b, 1, 0);
    assert_int_equal(tngrt_bundle_run(b, in, 2, out, 1), TNGRT_FAILED);
    error_has(b, "model A: NaN in b");
    assert_int_equal(tngrt_bundle_last_gear(b), 0);   /* the last successful run's */
    run_a(b, 2, 1);                                    /* the bundle still works */
    bv[0] = INFINITY;                                  /* bad input: -2, located */
    assert_int_equal(tngrt_bundle_run(b, in, 2, out, 1), TNGRT_BAD_INPUT);
    error_has(b, "a.py:7: model A: inf in b");
    bv[0] = NAN;                                       /* the kind does not stick */
    assert_int_equal(tngrt_bundle_run(b, in, 2, out, 1), TNGRT_FAILED);
    tngrt_bundle_delete(b);
}

/* Tensors of the weights file that no weight uses are listed
 * (the launcher warns, or refuses them with --strict). */
static void test_unused_weights(void **state)
{
    TngrtBundleDesc d = model_a(0);
    TngrtBundle *b = bundle_ok(&d);
    static const float scale[3] = {1, 2, 3};
    static const char json[] = "{\"extra\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                               "\"scale\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[4,16]},"
                               "\"more\":{\"dtype\":\"I8\",\"shape\":[],\"data_offsets\":[16,17]}}";
    unsigned char len[8], data[17] = {0};
    char *path = strdup("/tmp/tngrt-bundle-XXXXXX");
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "wb");
    (void)state;
    assert_non_null(f);
    for (int i = 0; i < 8; i++)
        len[i] = (unsigned char)((uint64_t)(sizeof json - 1) >> (8 * i));
    memcpy(data + 4, scale, 12);
    fwrite(len, 1, 8, f);
    fwrite(json, 1, sizeof json - 1, f);
    fwrite(data, 1, sizeof data, f);
    fclose(f);
    assert_int_equal(tngrt_bundle_unused_count(b), 0);
    assert_null(tngrt_bundle_unused_name(b, 0));
    if (tngrt_bundle_load_weights(b, path) != 0)
        fail_msg("load: %s", tngrt_bundle_last_error(b));
    assert_int_equal(tngrt_bundle_unused_count(b), 2);
    assert_string_equal(tngrt_bundle_unused_name(b, 0), "extra");
    assert_string_equal(tngrt_bundle_unused_name(b, 1), "more");
    assert_null(tngrt_bundle_unused_name(b, 2));
    assert_null(tngrt_bundle_unused_name(b, -1));
    run_a(b, 2, 1);
    load_scale(b, scale);   /* a file of just the weights: nothing unused */
    assert_int_equal(tngrt_bundle_unused_count(b), 0);
    unlink(path);
    free(path);
    tngrt_bundle_delete(b);
}

static void test_static_entry_in_place(void **state)
{
    TngrtBundle *b = bundle_ok(&model_c);
    int32_t x[2] = {40, -3};
    TngrtTensor in[1] = {view(TNGRT_I32, x, 1, 2, 0)}, out[1];
    char s[32];
    (void)state;
    for (int i = 0; i < 3; i++)
        assert_int_equal(tngrt_bundle_run(b, in, 1, out, 1), 0);
    assert_int_equal(x[0], 43);
    assert_int_equal(x[1], 0);
    assert_ptr_equal(out[0].data, x);   /* a view of the input */
    tngrt_bundle_gear_str(b, 0, s, sizeof s);
    assert_string_equal(s, "all static");
    in[0] = view(TNGRT_I32, x, 1, 3, 0);
    assert_int_equal(tngrt_bundle_run(b, in, 1, out, 1), TNGRT_BAD_INPUT);
    error_has(b, "input 'x': shape [3], expected [2]");
    tngrt_bundle_delete(b);
}

static void test_many_runs(void **state)
{
    TngrtBundleDesc d = model_a(1);
    TngrtBundle *b = bundle_ok(&d);
    static const float scale[3] = {1, 2, 3};
    static const int64_t sizes[] = {1, 2, 4, 3, 9, 2, 33, 1};
    static const int gear[] = {0, 1, 2, 3, 3, 1, 3, 0};
    (void)state;
    load_scale(b, scale);
    for (int i = 0; i < 2000; i++)
        run_a(b, sizes[i % 8], gear[i % 8]);
    tngrt_bundle_delete(b);
}

int openblas_get_num_threads(void);

/* The threads of this process (the entries of /proc/self/task), or -1
 * where that is not readable. */
static int thread_count(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void test_no_blas_threads(void **state)
{
    TngrtBundle *b;
    int n;
    (void)state;
    assert_int_equal(setenv("TNGRT_THREADS", "1", 1), 0);
    /* a strong reference: OpenBLAS is loaded (as in a launcher, which
     * calls cblas_sgemm) and has started its threads, where it has any */
    assert_true(openblas_get_num_threads() >= 1);
    b = bundle_ok(&model_c);
    n = thread_count();
    if (n >= 0)
        assert_int_equal(n, 1);
    /* OpenBLAS still computes, on the caller, without starting threads:
     * a product large enough that it would split it over its threads */
    {
        enum { M = 256 };
        float *x = malloc(sizeof(float) * M * M), *y = malloc(sizeof(float) * M * M);
        assert_non_null(x);
        assert_non_null(y);
        for (int i = 0; i < M * M; i++)
            x[i] = (float)(i % 7) - 3.0f;
        /* y = x * I */
        float *id = calloc((size_t)M * M, sizeof(float));
        assert_non_null(id);
        for (int i = 0; i < M; i++)
            id[i * M + i] = 1.0f;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, M, M, 1.0f, x, M, id, M, 0.0f,
                    y, M);
        assert_memory_equal(x, y, sizeof(float) * M * M);
        if (n >= 0)
            assert_int_equal(thread_count(), 1);
        free(x);
        free(y);
        free(id);
    }
    tngrt_bundle_delete(b);
    unsetenv("TNGRT_THREADS");
}

static void test_malformed_desc(void **state)
{
    static const TngrtSym on_const[] = {{"s0", 0, 1, 0}};   /* a's dim 1 is the constant 3 */
    static const TngrtDim w_dyn[] = {{0, 0}};
    static const TngrtSigTensor w_bad[] = {{"w", TNGRT_F32, 1, w_dyn, 0}};
    static const int64_t negative[] = {-5};
    static const TngrtStreamFn no_fn[] = {NULL, a_s1};   /* stream 0 needs a function */
    TngrtGear gears[1] = {a_gears[0]};
    TngrtBundleDesc d = model_a(0);
    TngrtBundle *b = (TngrtBundle *)1;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    (void)state;
    assert_int_equal(tngrt_bundle_new(&b, NULL, &err), -1);
    assert_null(b);
    d.weights = w_bad;
    assert_int_equal(tngrt_bundle_new(&b, &d, &err), -1);
    assert_non_null(strstr(err.msg, "weight 'w': bad dim 0"));
    d = model_a(0);
    d.syms = on_const;
    assert_int_equal(tngrt_bundle_new(&b, &d, &err), -1);
    assert_non_null(strstr(err.msg, "symbol 0 is bound by no input dim"));
    d = model_a(0);
    d.ngears = 0;
    assert_int_equal(tngrt_bundle_new(&b, &d, &err), -1);
    d = model_a(0);
    d.nstreams = 0;
    assert_int_equal(tngrt_bundle_new(&b, &d, &err), -1);
    d = model_a(0);
    d.gears = gears;
    d.ngears = 1;
    gears[0].symval = negative;
    assert_int_equal(tngrt_bundle_new(&b, &d, &err), -1);
    assert_non_null(strstr(err.msg, "gear 0 is malformed"));
    gears[0] = a_gears[0];
    gears[0].streams = no_fn;
    assert_int_equal(tngrt_bundle_new(&b, &d, &err), -1);
    gears[0] = a_gears[0];
    gears[0].arena_bytes = -1;   /* dynamic without a layout */
    assert_int_equal(tngrt_bundle_new(&b, &d, &err), -1);
    gears[0] = a_gears[0];
    assert_int_equal(tngrt_bundle_new(&b, &d, &err), 0);
    tngrt_bundle_delete(b);
}

static void test_layout_overflow(void **state)
{
    TngrtBundleDesc d = model_a(1);
    TngrtBundle *b = bundle_ok(&d);
    float dummy[1] = {0};
    int64_t big = (int64_t)1 << 43;   /* inputs within 2^48 bytes, the layout's tensor not */
    TngrtTensor in[2] = {view(TNGRT_F32, dummy, 2, big, 3), view(TNGRT_F32, dummy, 1, big, 0)};
    TngrtTensor out[1];
    (void)state;
    /* the views are checked, never read: the layout fails first */
    assert_int_equal(tngrt_bundle_select(b, in, 2), 3);
    assert_int_equal(tngrt_bundle_run(b, in, 2, out, 1), TNGRT_BAD_INPUT);
    error_has(b, "gear 3 (s0=?, bound: s0=8796093022208): the input shapes make a tensor or the arena larger "
                 "than 2^48 bytes");
    tngrt_bundle_delete(b);
}

/* Inputs past TNGRT_MAX_BYTES are bad input, empty ones too (a 0 dim
 * counts as 1): the generated code never computes with such dims. */
static void test_input_past_max_bytes(void **state)
{
    TngrtBundleDesc d = model_a(1);
    TngrtBundle *b = bundle_ok(&d);
    float dummy[1] = {0};
    int64_t over = ((int64_t)1 << 46) + 1;   /* a: 12 x over bytes; b: 4 x over */
    TngrtTensor in[2] = {view(TNGRT_F32, dummy, 2, over, 3), view(TNGRT_F32, dummy, 1, over, 0)};
    TngrtTensor empty[2] = {view(TNGRT_F32, dummy, 2, (int64_t)1 << 50, 3), view(TNGRT_F32, dummy, 1, 0, 0)};
    TngrtTensor out[1];
    (void)state;
    assert_int_equal(tngrt_bundle_select(b, in, 2), -1);
    error_has(b, "input 'a': shape [70368744177665,3] passes 2^48 bytes");
    assert_int_equal(tngrt_bundle_run(b, in, 2, out, 1), TNGRT_BAD_INPUT);
    error_has(b, "passes 2^48 bytes (a 0 dim counting as 1), the most a bundle handles");
    empty[0].nbytes = 0;   /* [2^50, 3] is not empty: make it [2^50, 0] */
    empty[0].shape[1] = 0;
    tngrt_tensor_set_strides(&empty[0]);
    assert_int_equal(tngrt_bundle_run(b, empty, 2, out, 1), TNGRT_BAD_INPUT);
    error_has(b, "input 'a': shape [1125899906842624,0] passes 2^48 bytes");
    tngrt_bundle_delete(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_gears),
        cmocka_unit_test(test_no_gear_message),
        cmocka_unit_test(test_dynamic_gear_grows_arena),
        cmocka_unit_test(test_two_symbols_binding),
        cmocka_unit_test(test_conflicting_binding),
        cmocka_unit_test(test_input_errors),
        cmocka_unit_test(test_weight_errors),
        cmocka_unit_test(test_weights_zero_until_loaded),
        cmocka_unit_test(test_stream_failure),
        cmocka_unit_test(test_unused_weights),
        cmocka_unit_test(test_static_entry_in_place),
        cmocka_unit_test(test_many_runs),
        cmocka_unit_test(test_no_blas_threads),
        cmocka_unit_test(test_malformed_desc),
        cmocka_unit_test(test_layout_overflow),
        cmocka_unit_test(test_input_past_max_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
