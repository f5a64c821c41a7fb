/*
 * test_rt_kernels.c - unit tests of libtngcrt's CPU kernels (tngrt_kernels.h)
 * against reference loops written independently here: double-precision
 * references, test-side f16/bf16 codecs (ldexp/nearbyint, not bit tricks),
 * and the torch_npu reference formulas of tests/ref/stubs/torch_npu.
 * Covers every dtype where an op makes sense, broadcasting, odd and empty
 * sizes, in-place use, matmul shapes and the error returns.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/tngrt_kernels.h"

/* ---------------- test-side dtype codecs (independent of the kernels) ---------------- */

/* Encodes v in an IEEE-like format (mb mantissa bits, ebits exponent bits)
 * rounding to nearest even through nearbyint. */
static uint32_t t_enc(double v, int mb, int ebits)
{
    int bias = (1 << (ebits - 1)) - 1, e;
    uint32_t sign = signbit(v) ? 1u << (mb + ebits) : 0u, emax = (1u << ebits) - 1u;
    double q;
    v = fabs(v);
    if (isnan(v))
        return sign | emax << mb | 1u << (mb - 1);
    if (isinf(v))
        return sign | emax << mb;
    if (v < ldexp(1.0, 1 - bias)) /* subnormal units (may round up to the min normal) */
        return sign | (uint32_t)nearbyint(ldexp(v, bias - 1 + mb));
    frexp(v, &e); /* v in [2^(e-1), 2^e) */
    q = nearbyint(ldexp(v, mb + 1 - e));
    e = e - 1 + bias;
    if (q == ldexp(1.0, mb + 1)) {
        q /= 2;
        e++;
    }
    if (e >= (int)emax)
        return sign | emax << mb;
    return sign | (uint32_t)e << mb | ((uint32_t)q - (1u << mb));
}

static double t_dec(uint32_t h, int mb, int ebits)
{
    int bias = (1 << (ebits - 1)) - 1;
    uint32_t emax = (1u << ebits) - 1u, e = (h >> mb) & emax, m = h & ((1u << mb) - 1u);
    double v;
    if (e == emax)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)m, 1 - bias - mb);
    else
        v = ldexp((double)(m | 1u << mb), (int)e - bias - mb);
    return (h >> (mb + ebits)) & 1u ? -v : v;
}

static uint16_t t_f16(double v) { return (uint16_t)t_enc(v, 10, 5); }
static uint16_t t_bf16(double v) { return (uint16_t)t_enc(v, 7, 8); }
static double t_f16d(uint16_t h) { return t_dec(h, 10, 5); }
static double t_bf16d(uint16_t h) { return t_dec(h, 7, 8); }

/* ---------------- test tensors ---------------- */

typedef struct TT {
    TngrtArg a;
    int64_t shape[TNGRT_MAX_DIMS];
} TT;

static const TngrtDType ALL[] = {TNGRT_F32, TNGRT_F16, TNGRT_BF16, TNGRT_I8,
                                 TNGRT_I32, TNGRT_I64, TNGRT_BOOL};

static size_t t_esize(TngrtDType dt)
{
    return dt == TNGRT_F32 || dt == TNGRT_I32 ? 4 : dt == TNGRT_I64 ? 8
         : dt == TNGRT_F16 || dt == TNGRT_BF16 ? 2 : 1;
}

static int t_isfloat(TngrtDType dt)
{
    return dt == TNGRT_F32 || dt == TNGRT_F16 || dt == TNGRT_BF16;
}

static int64_t tt_numel(const TT *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->a.ndim; d++)
        n *= t->shape[d];
    return n;
}

static TT *tt_shape(TngrtDType dt, int nd, const int64_t *shape)
{
    TT *t = calloc(1, sizeof *t);
    int64_t n;
    assert_non_null(t);
    for (int d = 0; d < nd; d++)
        t->shape[d] = shape[d];
    t->a.dtype = dt;
    t->a.ndim = nd;
    t->a.shape = t->shape;
    n = tt_numel(t);
    t->a.data = calloc((size_t)(n ? n : 1), t_esize(dt));
    assert_non_null(t->a.data);
    return t;
}

/* A tensor of dtype dt with nd dims given as ints. */
static TT *tt(TngrtDType dt, int nd, ...)
{
    int64_t shape[TNGRT_MAX_DIMS];
    va_list ap;
    va_start(ap, nd);
    for (int d = 0; d < nd; d++)
        shape[d] = va_arg(ap, int);
    va_end(ap);
    return tt_shape(dt, nd, shape);
}

static void tt_free(TT *t)
{
    if (t)
        free(t->a.data);
    free(t);
}

static double tt_get(const TT *t, int64_t i)
{
    const void *p = t->a.data;
    switch (t->a.dtype) {
    case TNGRT_F32: return ((const float *)p)[i];
    case TNGRT_F16: return t_f16d(((const uint16_t *)p)[i]);
    case TNGRT_BF16: return t_bf16d(((const uint16_t *)p)[i]);
    case TNGRT_I8: return ((const int8_t *)p)[i];
    case TNGRT_I32: return ((const int32_t *)p)[i];
    case TNGRT_I64: return (double)((const int64_t *)p)[i];
    default: return ((const uint8_t *)p)[i];
    }
}

static void tt_set(TT *t, int64_t i, double v)
{
    void *p = t->a.data;
    switch (t->a.dtype) {
    case TNGRT_F32: ((float *)p)[i] = (float)v; break;
    case TNGRT_F16: ((uint16_t *)p)[i] = t_f16(v); break;
    case TNGRT_BF16: ((uint16_t *)p)[i] = t_bf16(v); break;
    case TNGRT_I8: ((int8_t *)p)[i] = (int8_t)v; break;
    case TNGRT_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    case TNGRT_I64: ((int64_t *)p)[i] = (int64_t)v; break;
    default: ((uint8_t *)p)[i] = v != 0.0; break;
    }
}

/* Deterministic values exact in every dtype: eighths in [-1.75, 1.75] for
 * floats, integers in [-14, 14] (0 included) for ints, 0/1 for bool. */
static double seq(TngrtDType dt, int64_t i, int seed)
{
    int64_t k = (i * 37 + seed * 11 + 5) % 29 - 14;
    if (dt == TNGRT_BOOL)
        return (double)((i + seed) % 3 != 0);
    return t_isfloat(dt) ? (double)k / 8.0 : (double)k;
}

static TT *tt_seq(TT *t, int seed)
{
    for (int64_t i = 0; i < tt_numel(t); i++)
        tt_set(t, i, seq(t->a.dtype, i, seed));
    return t;
}

static double tol_of(TngrtDType dt)
{
    return dt == TNGRT_F32 ? 1e-5 : dt == TNGRT_F16 ? 1e-3 : dt == TNGRT_BF16 ? 1e-2 : 0.0;
}

static int close_to(double g, double r, double rtol, double atol)
{
    if (isnan(r))
        return isnan(g);
    if (isinf(r))
        return g == r;
    return fabs(g - r) <= atol + rtol * fabs(r);
}

/* Asserts t == ref elementwise within rtol/atol (exact for 0, 0). */
static void check(const TT *t, const double *ref, double rtol, double atol, const char *what)
{
    for (int64_t i = 0; i < tt_numel(t); i++) {
        double g = tt_get(t, i);
        if (!close_to(g, ref[i], rtol, atol))
            fail_msg("%s (dtype %d): element %lld is %.9g, expected %.9g", what,
                     (int)t->a.dtype, (long long)i, g, ref[i]);
    }
}

/* Asserts t matches ref within its dtype's tolerance. */
static void check_dt(const TT *t, const double *ref, const char *what)
{
    double tol = tol_of(t->a.dtype);
    check(t, ref, tol, tol * 1e-2, what);
}

/* Rounds v to dtype dt as the kernels' output would hold it (ints wrap). */
static double t_wrap(TngrtDType dt, double v)
{
    switch (dt) {
    case TNGRT_I8: return (double)(int8_t)(uint8_t)((uint64_t)(int64_t)v & 0xff);
    case TNGRT_I32: return (double)(int32_t)(uint32_t)((uint64_t)(int64_t)v & 0xffffffffu);
    case TNGRT_BOOL: return v != 0.0;
    case TNGRT_F16: return t_f16d(t_f16(v));
    case TNGRT_BF16: return t_bf16d(t_bf16(v));
    default: return v;
    }
}

/* The element of x (right-aligned, size-1 dims broadcast) that broadcast
 * element oi of out reads. */
static int64_t bidx(const TT *x, const TT *out, int64_t oi)
{
    int64_t coord[TNGRT_MAX_DIMS], xi = 0;
    for (int d = out->a.ndim - 1; d >= 0; d--) {
        coord[d] = oi % out->shape[d];
        oi /= out->shape[d];
    }
    for (int d = 0; d < x->a.ndim; d++) {
        int od = d + out->a.ndim - x->a.ndim;
        xi = xi * x->shape[d] + (x->shape[d] == 1 ? 0 : coord[od]);
    }
    return xi;
}

static double *dbuf(int64_t n)
{
    double *p = calloc((size_t)(n ? n : 1), sizeof(double));
    assert_non_null(p);
    return p;
}

/* ---------------- dtype conversions ---------------- */

static uint16_t k_to_half(TngrtDType dt, float f)
{
    int64_t one = 1;
    uint16_t h = 0;
    TngrtArg in = {&f, TNGRT_F32, 1, &one}, out = {&h, dt, 1, &one};
    tngrt_kernel_unary(&out, &in, TNGRT_UN_IDENTITY, 0.0);
    return h;
}

static float k_from_half(TngrtDType dt, uint16_t h)
{
    int64_t one = 1;
    float f = 0.0f;
    TngrtArg in = {&h, dt, 1, &one}, out = {&f, TNGRT_F32, 1, &one};
    tngrt_kernel_copy(&out, &in);
    return f;
}

static void test_f16_corners(void **state)
{
    static const struct { float f; uint16_t h; } enc[] = {
        {65504.0f, 0x7bff}, {65519.0f, 0x7bff}, {65520.0f, 0x7c00}, {1e6f, 0x7c00},
        {INFINITY, 0x7c00}, {-INFINITY, 0xfc00}, {0x1p-24f, 0x0001}, {0x1p-25f, 0x0000},
        {0x1.8p-25f, 0x0001}, {0x1.8p-24f, 0x0002}, {0x1p-26f, 0x0000}, {-0x1p-25f, 0x8000},
        {0x1p-14f, 0x0400}, {0x1.ff8p-15f, 0x03ff}, {0x1.ffcp-15f, 0x0400},
        {1.0f + 0x1p-11f, 0x3c00}, {1.0f + 0x1.8p-10f, 0x3c02}, {1.0f + 0x1.2p-11f, 0x3c01},
        {-0.0f, 0x8000}, {0.0f, 0x0000}, {-2.0f, 0xc000}, {1.0f / 3.0f, 0x3555},
        {65505.0f, 0x7bff}, {-65520.0f, 0xfc00}};
    static const struct { uint16_t h; double f; } dec[] = {
        {0x0001, 0x1p-24}, {0x03ff, 1023 * 0x1p-24}, {0x0400, 0x1p-14}, {0x7bff, 65504.0},
        {0x3c00, 1.0}, {0xc000, -2.0}, {0x3555, 0.333251953125}};
    (void)state;
    for (size_t i = 0; i < sizeof enc / sizeof enc[0]; i++)
        if (k_to_half(TNGRT_F16, enc[i].f) != enc[i].h)
            fail_msg("f16(%a) = 0x%04x, expected 0x%04x", enc[i].f,
                     k_to_half(TNGRT_F16, enc[i].f), enc[i].h);
    for (size_t i = 0; i < sizeof dec / sizeof dec[0]; i++)
        assert_true(k_from_half(TNGRT_F16, dec[i].h) == (float)dec[i].f);
    assert_true(isinf(k_from_half(TNGRT_F16, 0x7c00)) && k_from_half(TNGRT_F16, 0x7c00) > 0);
    assert_true(isinf(k_from_half(TNGRT_F16, 0xfc00)) && k_from_half(TNGRT_F16, 0xfc00) < 0);
    assert_true(isnan(k_from_half(TNGRT_F16, 0x7e00)) && isnan(k_from_half(TNGRT_F16, 0xfc01)));
    assert_true(signbit(k_from_half(TNGRT_F16, 0x8000)));
    uint16_t hn = k_to_half(TNGRT_F16, NAN);
    assert_true((hn & 0x7c00) == 0x7c00 && (hn & 0x3ff) != 0);
}

/* A NaN whose payload lies only in the low 16 bits (truncation would give inf). */
static float nan_low(void)
{
    uint32_t u = 0x7f800001u;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void test_bf16_corners(void **state)
{
    static const struct { float f; uint16_t h; } enc[] = {
        {1.0f + 0x1p-8f, 0x3f80}, {1.0f + 0x1.8p-7f, 0x3f82}, {1.0f + 0x1.2p-8f, 0x3f81},
        {FLT_MAX, 0x7f80}, {0x1.fep127f, 0x7f7f}, {0x1.fefffep127f, 0x7f7f},
        {0x1.ffp127f, 0x7f80}, {0x1.fcp127f, 0x7f7e}, {INFINITY, 0x7f80}, {-INFINITY, 0xff80},
        {0x1p-149f, 0x0000}, {0x1p-133f, 0x0001}, {0x1.8p-133f, 0x0002}, {0x1p-134f, 0x0000},
        {0x1.0002p-134f, 0x0001}, {-0.0f, 0x8000}, {-2.0f, 0xc000}, {0x1p-126f, 0x0080}};
    (void)state;
    for (size_t i = 0; i < sizeof enc / sizeof enc[0]; i++)
        if (k_to_half(TNGRT_BF16, enc[i].f) != enc[i].h)
            fail_msg("bf16(%a) = 0x%04x, expected 0x%04x", enc[i].f,
                     k_to_half(TNGRT_BF16, enc[i].f), enc[i].h);
    assert_true(k_from_half(TNGRT_BF16, 0x0001) == 0x1p-133f);
    assert_true(k_from_half(TNGRT_BF16, 0x7f7f) == 0x1.fep127f);
    assert_true(isinf(k_from_half(TNGRT_BF16, 0xff80)) && k_from_half(TNGRT_BF16, 0xff80) < 0);
    assert_true(isnan(k_from_half(TNGRT_BF16, 0x7fc0)));
    uint16_t hn = k_to_half(TNGRT_BF16, NAN);
    assert_true((hn & 0x7f80) == 0x7f80 && (hn & 0x7f) != 0);
    hn = k_to_half(TNGRT_BF16, nan_low());
    assert_true((hn & 0x7f80) == 0x7f80 && (hn & 0x7f) != 0);
}

/* Every half pattern decodes as the test codec does and round-trips; a
 * sweep of float32 patterns encodes as the test codec rounds. */
static void sweep_half(TngrtDType dt, uint16_t (*enc)(double), double (*dec)(uint16_t))
{
    enum { N = 65536, S = 8191 };
    int64_t n = N, ns = (int64_t)(4294967296.0 / S) + 1;
    TT *h = tt_shape(dt, 1, &n), *f = tt_shape(TNGRT_F32, 1, &n), *h2 = tt_shape(dt, 1, &n);
    TT *fs = tt_shape(TNGRT_F32, 1, &ns), *hs = tt_shape(dt, 1, &ns);
    uint16_t *hp = h->a.data, *h2p = h2->a.data, *hsp = hs->a.data;
    for (int64_t i = 0; i < n; i++)
        hp[i] = (uint16_t)i;
    tngrt_kernel_copy(&f->a, &h->a);
    tngrt_kernel_unary(&h2->a, &f->a, TNGRT_UN_IDENTITY, 0.0);
    for (int64_t i = 0; i < n; i++) {
        double want = dec(hp[i]), got = ((float *)f->a.data)[i];
        if (!(isnan(want) ? isnan(got) : got == want && signbit(got) == signbit(want)))
            fail_msg("decode 0x%04x: %a, expected %a", (unsigned)i, got, want);
        if (isnan(want) ? !isnan(dec(h2p[i])) : h2p[i] != hp[i])
            fail_msg("round trip 0x%04x gave 0x%04x", (unsigned)i, h2p[i]);
    }
    for (int64_t i = 0; i < ns; i++) {
        uint32_t u = (uint32_t)((uint64_t)i * S);
        memcpy((float *)fs->a.data + i, &u, 4);
    }
    tngrt_kernel_unary(&hs->a, &fs->a, TNGRT_UN_IDENTITY, 0.0);
    for (int64_t i = 0; i < ns; i++) {
        float v = ((float *)fs->a.data)[i];
        uint16_t want = enc(v);
        if (isnan(v) ? !isnan(dec(hsp[i])) : hsp[i] != want)
            fail_msg("encode %a gave 0x%04x, expected 0x%04x", v, hsp[i], want);
    }
    tt_free(h), tt_free(f), tt_free(h2), tt_free(fs), tt_free(hs);
}

static void test_half_sweeps(void **state)
{
    (void)state;
    sweep_half(TNGRT_F16, t_f16, t_f16d);
    sweep_half(TNGRT_BF16, t_bf16, t_bf16d);
}

/* Expected value of src value v cast to dt (truncation toward zero, wrap). */
static double cast_ref(TngrtDType dt, double v)
{
    if (dt == TNGRT_BOOL)
        return v != 0.0;
    if (t_isfloat(dt))
        return t_wrap(dt, v);
    return t_wrap(dt, trunc(v));
}

static void test_casts(void **state)
{
    static const double fv[] = {0, 1, -1, 2.5, -2.75, 100, 0.5, -0.5, 127, -128, 0.25, 3};
    static const double iv[] = {0, 1, -1, 2, -3, 100, 127, -128, 5, 7, 64, -64};
    double ref[12];
    (void)state;
    for (size_t s = 0; s < 7; s++) {
        for (size_t d = 0; d < 7; d++) {
            TngrtDType sd = ALL[s], dd = ALL[d];
            TT *x = tt(sd, 1, 12), *o = tt(dd, 1, 12), *o2 = tt(dd, 2, 1, 12);
            for (int i = 0; i < 12; i++) {
                double v = sd == TNGRT_BOOL ? i % 3 != 0 : t_isfloat(sd) ? fv[i] : iv[i];
                if (sd == TNGRT_I8 && fabs(v) > 127)
                    v = v < 0 ? -127 : 126;
                tt_set(x, i, v);
                ref[i] = cast_ref(dd, tt_get(x, i));
            }
            tngrt_kernel_unary(&o->a, &x->a, TNGRT_UN_IDENTITY, 0.0);
            check(o, ref, 0, 0, "cast (unary identity)");
            tngrt_kernel_copy(&o2->a, &x->a);
            check(o2, ref, 0, 0, "cast (copy)");
            tt_free(x), tt_free(o), tt_free(o2);
        }
    }
}

/* Wrapping, truncation and the defined out-of-range conversions. */
static void test_cast_edges(void **state)
{
    TT *x64 = tt(TNGRT_I64, 1, 4), *o32 = tt(TNGRT_I32, 1, 4), *o8 = tt(TNGRT_I8, 1, 4);
    TT *f = tt(TNGRT_F32, 1, 4), *oi64 = tt(TNGRT_I64, 1, 4), *oh = tt(TNGRT_F16, 1, 4);
    TT *i32 = tt(TNGRT_I32, 1, 1), *f32 = tt(TNGRT_F32, 1, 1);
    int64_t *p = x64->a.data;
    float *fp = f->a.data;
    (void)state;
    p[0] = ((int64_t)1 << 32) + 5, p[1] = (int64_t)1 << 31, p[2] = 300, p[3] = -129;
    tngrt_kernel_copy(&o32->a, &x64->a);
    tngrt_kernel_copy(&o8->a, &x64->a);
    assert_int_equal(((int32_t *)o32->a.data)[0], 5);
    assert_int_equal(((int32_t *)o32->a.data)[1], INT32_MIN);
    assert_int_equal(((int8_t *)o8->a.data)[2], 44);
    assert_int_equal(((int8_t *)o8->a.data)[3], 127);
    fp[0] = NAN, fp[1] = 1e20f, fp[2] = -1e20f, fp[3] = -300.7f;
    tngrt_kernel_copy(&oi64->a, &f->a);
    tngrt_kernel_copy(&o8->a, &f->a);
    assert_true(((int64_t *)oi64->a.data)[0] == 0);
    assert_true(((int64_t *)oi64->a.data)[1] == INT64_MAX);
    assert_true(((int64_t *)oi64->a.data)[2] == INT64_MIN);
    assert_true(((int64_t *)oi64->a.data)[3] == -300);
    assert_int_equal(((int8_t *)o8->a.data)[3], -44);
    p[0] = 70000;
    tngrt_kernel_copy(&oh->a, &x64->a);
    assert_true(isinf(tt_get(oh, 0)));
    ((int32_t *)i32->a.data)[0] = 16777217;
    tngrt_kernel_copy(&f32->a, &i32->a);
    assert_true(((float *)f32->a.data)[0] == 16777216.0f);
    tt_free(x64), tt_free(o32), tt_free(o8), tt_free(f), tt_free(oi64), tt_free(oh);
    tt_free(i32), tt_free(f32);
}

/* ---------------- unary ---------------- */

static double un_ref(TngrtUnaryOp op, double x, double p)
{
    switch (op) {
    case TNGRT_UN_NEG: return -x;
    case TNGRT_UN_ABS: return fabs(x);
    case TNGRT_UN_EXP: return exp(x);
    case TNGRT_UN_LOG: return log(x);
    case TNGRT_UN_SQRT: return sqrt(x);
    case TNGRT_UN_RSQRT: return 1.0 / sqrt(x);
    case TNGRT_UN_RELU: return x > 0 ? x : 0;
    case TNGRT_UN_GELU: return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
    case TNGRT_UN_GELU_TANH:
        return 0.5 * x *
               (1.0 + tanh(sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
    case TNGRT_UN_SILU: return x / (1.0 + exp(-x));
    case TNGRT_UN_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case TNGRT_UN_TANH: return tanh(x);
    case TNGRT_UN_POW: return pow(x, p);
    case TNGRT_UN_COS: return cos(x);
    case TNGRT_UN_SIN: return sin(x);
    case TNGRT_UN_RECIPROCAL: return 1.0 / x;
    case TNGRT_UN_SQUARE: return x * x;
    case TNGRT_UN_SIGN: return (x > 0) - (x < 0);
    case TNGRT_UN_FLOOR: return floor(x);
    case TNGRT_UN_CEIL: return ceil(x);
    case TNGRT_UN_ROUND: return nearbyint(x);
    case TNGRT_UN_ERF: return erf(x);
    case TNGRT_UN_LOG1P: return log1p(x);
    case TNGRT_UN_EXPM1: return expm1(x);
    case TNGRT_UN_LEAKY_RELU: return x > 0 ? x : x * p;
    case TNGRT_UN_HARDSWISH: return x * fmin(fmax(x + 3, 0), 6) / 6;
    case TNGRT_UN_MISH: return x * tanh(log1p(exp(x)));
    default: return x;
    }
}

static int un_positive(TngrtUnaryOp op)
{
    return op == TNGRT_UN_LOG || op == TNGRT_UN_SQRT || op == TNGRT_UN_RSQRT || op == TNGRT_UN_LOG1P;
}

/* Runs op on 13 values of x's dtype into out's dtype, also in place when
 * the dtypes match, against the double reference. */
static void unary_case(TngrtDType xd, TngrtDType od, TngrtUnaryOp op, double p)
{
    static const double big[] = {0, 0.5, -0.5, 1.75, -1.75, 3, -3, 10, -10, 88, -100, 100, 0.125};
    TT *x = tt(xd, 1, 13), *o = tt(od, 1, 13);
    double ref[13];
    for (int i = 0; i < 13; i++) {
        double v = xd == TNGRT_F32 ? big[i] : seq(xd, i, 3);
        if (un_positive(op) || (op == TNGRT_UN_POW && p != floor(p)))
            v = fabs(v) + 0.5;
        tt_set(x, i, v);
        ref[i] = un_ref(op, tt_get(x, i), p);
        ref[i] = od == TNGRT_F32 ? (double)(float)ref[i] : t_wrap(od, ref[i]);
    }
    /* 1 + erf/tanh cancels for negative x: float keeps ~1e-6 absolute */
    double atol = od != TNGRT_F32 ? tol_of(od) * 1e-2
                : op == TNGRT_UN_GELU || op == TNGRT_UN_GELU_TANH ? 1e-6 : 1e-30;
    tngrt_kernel_unary(&o->a, &x->a, op, p);
    check(o, ref, tol_of(od), atol, "unary");
    if (xd == od) {
        tngrt_kernel_unary(&x->a, &x->a, op, p);
        check(x, ref, tol_of(od), atol, "unary in place");
    }
    tt_free(x), tt_free(o);
}

/* softplus (unary2): beta 2, threshold 5; x itself where 2x > 5 */
static void test_unary_softplus(void **state)
{
    static const double xs[] = {-30, -1, 0, 0.5, 2.5, 2.6, 40};
    TT *x = tt(TNGRT_F32, 1, 7), *o = tt(TNGRT_F32, 1, 7);
    double ref[7];
    (void)state;
    for (int i = 0; i < 7; i++) {
        tt_set(x, i, xs[i]);
        ref[i] = 2 * xs[i] > 5 ? xs[i] : log1p(exp(2 * xs[i])) / 2;
    }
    tngrt_kernel_unary2(&o->a, &x->a, TNGRT_UN_SOFTPLUS, 2.0, 5.0);
    check(o, ref, tol_of(TNGRT_F32), 1e-30, "softplus");
    tt_free(x), tt_free(o);
}

/* clamp (unary2) and its one-bound forms keep NaN; min > max gives max;
 * integers stay exact. maximum/minimum propagate NaN from either side. */
static void test_clamp_maximum(void **state)
{
    static const double xs[] = {-5, -1.5, 0, 1, 2.5, 7, NAN};
    TT *x = tt(TNGRT_F32, 1, 7), *o = tt(TNGRT_F32, 1, 7), *y = tt(TNGRT_F32, 1, 7);
    TT *xi = tt(TNGRT_I64, 1, 7), *oi = tt(TNGRT_I64, 1, 7);
    double ref[7];
    (void)state;
    for (int i = 0; i < 7; i++) {
        tt_set(x, i, xs[i]);
        tt_set(y, i, i == 2 ? NAN : 1.0);
        tt_set(xi, i, i == 6 ? 100 : xs[i]);
    }
    tngrt_kernel_unary2(&o->a, &x->a, TNGRT_UN_CLAMP, -1.0, 2.0);
    for (int i = 0; i < 7; i++)
        ref[i] = isnan(xs[i]) ? NAN : fmin(fmax(xs[i], -1.0), 2.0);
    check(o, ref, 0, 0, "clamp");
    tngrt_kernel_unary2(&o->a, &x->a, TNGRT_UN_CLAMP, 3.0, 1.0);
    for (int i = 0; i < 7; i++)
        ref[i] = isnan(xs[i]) ? NAN : 1.0;
    check(o, ref, 0, 0, "clamp, min > max");
    tngrt_kernel_unary(&o->a, &x->a, TNGRT_UN_CLAMP_MIN, 0.0);
    for (int i = 0; i < 7; i++)
        ref[i] = isnan(xs[i]) ? NAN : fmax(xs[i], 0.0);
    check(o, ref, 0, 0, "clamp_min");
    tngrt_kernel_unary2(&oi->a, &xi->a, TNGRT_UN_CLAMP, -2.0, 3.0);
    for (int i = 0; i < 7; i++)
        ref[i] = fmin(fmax(tt_get(xi, i), -2.0), 3.0);
    check(oi, ref, 0, 0, "clamp int64");
    tngrt_kernel_binary(&o->a, &x->a, &y->a, TNGRT_BIN_MAX, 1.0);
    for (int i = 0; i < 7; i++)
        ref[i] = isnan(xs[i]) || i == 2 ? NAN : fmax(xs[i], 1.0);
    check(o, ref, 0, 0, "maximum");
    tngrt_kernel_binary(&o->a, &y->a, &x->a, TNGRT_BIN_MIN, 1.0);
    for (int i = 0; i < 7; i++)
        ref[i] = isnan(xs[i]) || i == 2 ? NAN : fmin(xs[i], 1.0);
    check(o, ref, 0, 0, "minimum");
    tngrt_kernel_binary(&oi->a, &xi->a, &xi->a, TNGRT_BIN_MIN, 1.0);
    for (int i = 0; i < 7; i++)
        ref[i] = tt_get(xi, i);
    check(oi, ref, 0, 0, "minimum int64");
    tngrt_kernel_binary(&o->a, &x->a, &y->a, TNGRT_BIN_POW, 1.0);
    for (int i = 0; i < 7; i++)
        ref[i] = powf((float)xs[i], i == 2 ? NAN : 1.0f);
    check(o, ref, 0, 0, "pow_tensor");
    tngrt_kernel_binary_scalar(&o->a, &x->a, 2.0, 1, TNGRT_BIN_POW, 1.0);
    for (int i = 0; i < 7; i++)
        ref[i] = powf(2.0f, (float)xs[i]);
    check(o, ref, 0, 0, "pow_tensor, scalar base");
    {   /* integer powers: exact, wrapping; negative exponents truncate 1 / a */
        static const int64_t base[] = {2, -3, 1, -1, 0, 5, 3};
        static const int64_t ex[] = {10, 3, -4, -3, 0, -1, 41};
        TT *a = tt(TNGRT_I64, 1, 7), *e = tt(TNGRT_I64, 1, 7), *r = tt(TNGRT_I64, 1, 7);
        for (int i = 0; i < 7; i++)
            ((int64_t *)a->a.data)[i] = base[i], ((int64_t *)e->a.data)[i] = ex[i];
        tngrt_kernel_binary(&r->a, &a->a, &e->a, TNGRT_BIN_POW, 1.0);
        static const int64_t want[] = {1024, -27, 1, -1, 1, 0, 0};
        for (int i = 0; i < 6; i++)
            assert_int_equal(((int64_t *)r->a.data)[i], want[i]);
        uint64_t w = 1;   /* 3 ** 41 wraps as uint64 multiplication does */
        for (int k = 0; k < 41; k++)
            w *= 3u;
        assert_int_equal(((int64_t *)r->a.data)[6], (int64_t)w);
        tt_free(a), tt_free(e), tt_free(r);
    }
    tt_free(x), tt_free(o), tt_free(y), tt_free(xi), tt_free(oi);
}

static void test_unary_float(void **state)
{
    static const TngrtDType fl[] = {TNGRT_F32, TNGRT_F16, TNGRT_BF16};
    (void)state;
    for (int op = TNGRT_UN_NEG; op <= TNGRT_UN_TANH; op++)
        for (int d = 0; d < 3; d++)
            unary_case(fl[d], fl[d], (TngrtUnaryOp)op, 0.0);
    for (int d = 0; d < 3; d++) {
        unary_case(fl[d], fl[d], TNGRT_UN_POW, 2.0);
        unary_case(fl[d], fl[d], TNGRT_UN_POW, 3.0);
        unary_case(fl[d], fl[d], TNGRT_UN_POW, 0.5);
    }
    unary_case(TNGRT_F32, TNGRT_F32, TNGRT_UN_POW, -1.0);
    unary_case(TNGRT_F16, TNGRT_F32, TNGRT_UN_EXP, 0.0);
    unary_case(TNGRT_F32, TNGRT_BF16, TNGRT_UN_SILU, 0.0);
    unary_case(TNGRT_I32, TNGRT_F32, TNGRT_UN_SIGMOID, 0.0);
    for (int op = TNGRT_UN_COS; op <= TNGRT_UN_MISH; op++)
        for (int d = 0; d < 3 && op != TNGRT_UN_SOFTPLUS; d++)
            unary_case(fl[d], fl[d], (TngrtUnaryOp)op, op == TNGRT_UN_LEAKY_RELU ? 0.2 : 0.0);
    unary_case(TNGRT_I32, TNGRT_F32, TNGRT_UN_COS, 0.0);
    /* the math family's integer forms keep the dtype (square wraps) */
    unary_case(TNGRT_I32, TNGRT_I32, TNGRT_UN_SIGN, 0.0);
    unary_case(TNGRT_I8, TNGRT_I8, TNGRT_UN_SQUARE, 0.0);
    unary_case(TNGRT_I64, TNGRT_I64, TNGRT_UN_ROUND, 0.0);
    unary_case(TNGRT_I32, TNGRT_I32, TNGRT_UN_FLOOR, 0.0);
}

/* Sigmoid and SiLU stay finite and exact at the extremes. */
static void test_unary_extremes(void **state)
{
    TT *x = tt(TNGRT_F32, 1, 4), *o = tt(TNGRT_F32, 1, 4);
    float *xp = x->a.data, *op = o->a.data;
    (void)state;
    xp[0] = -1000.0f, xp[1] = 1000.0f, xp[2] = -89.0f, xp[3] = 89.0f;
    tngrt_kernel_unary(&o->a, &x->a, TNGRT_UN_SIGMOID, 0.0);
    /* sigmoid(-89) = 2.2e-39 (a float subnormal), not 0 from 1 / (1 + inf) */
    assert_true(op[0] == 0.0f && op[1] == 1.0f && op[2] > 0.0f && op[2] < 1e-38f && op[3] == 1.0f);
    tngrt_kernel_unary(&o->a, &x->a, TNGRT_UN_SILU, 0.0);
    assert_true(op[0] == 0.0f && op[1] == 1000.0f && !isnan(op[2]) && op[3] == 89.0f);
    tt_free(x), tt_free(o);
}

static void test_unary_int(void **state)
{
    TT *a8 = tt(TNGRT_I8, 1, 5), *o8 = tt(TNGRT_I8, 1, 5);
    TT *a32 = tt(TNGRT_I32, 1, 3), *o32 = tt(TNGRT_I32, 1, 3);
    TT *a64 = tt(TNGRT_I64, 1, 3), *o64 = tt(TNGRT_I64, 1, 3), *ob = tt(TNGRT_BOOL, 1, 3);
    int8_t *p8 = a8->a.data, *q8 = o8->a.data;
    int32_t *p32 = a32->a.data, *q32 = o32->a.data;
    int64_t *p64 = a64->a.data, *q64 = o64->a.data;
    (void)state;
    p8[0] = -128, p8[1] = 5, p8[2] = -7, p8[3] = 0, p8[4] = 127;
    tngrt_kernel_unary(&o8->a, &a8->a, TNGRT_UN_NEG, 0.0);
    assert_true(q8[0] == -128 && q8[1] == -5 && q8[2] == 7 && q8[3] == 0 && q8[4] == -127);
    tngrt_kernel_unary(&o8->a, &a8->a, TNGRT_UN_ABS, 0.0);
    assert_true(q8[0] == -128 && q8[1] == 5 && q8[2] == 7 && q8[4] == 127);
    tngrt_kernel_unary(&o8->a, &a8->a, TNGRT_UN_RELU, 0.0);
    assert_true(q8[0] == 0 && q8[1] == 5 && q8[2] == 0 && q8[4] == 127);
    p32[0] = 1000, p32[1] = 2000, p32[2] = -3;
    tngrt_kernel_unary(&o32->a, &a32->a, TNGRT_UN_POW, 3.0);
    assert_true(q32[0] == 1000000000 && q32[1] == -589934592 && q32[2] == -27);
    p32[0] = 10;
    tngrt_kernel_unary(&o32->a, &a32->a, TNGRT_UN_SQRT, 0.0); /* float op, truncated */
    assert_int_equal(q32[0], 3);
    p64[0] = INT64_MIN, p64[1] = 3037000499, p64[2] = 0;
    tngrt_kernel_unary(&o64->a, &a64->a, TNGRT_UN_NEG, 0.0);
    assert_true(q64[0] == INT64_MIN && q64[1] == -3037000499 && q64[2] == 0);
    tngrt_kernel_unary(&o64->a, &a64->a, TNGRT_UN_POW, 2.0);
    assert_true(q64[1] == 9223372030926249001LL && q64[2] == 0);
    tngrt_kernel_unary(&o64->a, &a64->a, TNGRT_UN_POW, 0.0);
    assert_true(q64[0] == 1 && q64[2] == 1);
    tngrt_kernel_unary(&ob->a, &a64->a, TNGRT_UN_IDENTITY, 0.0);
    assert_true(tt_get(ob, 0) == 1 && tt_get(ob, 1) == 1 && tt_get(ob, 2) == 0);
    tt_free(a8), tt_free(o8), tt_free(a32), tt_free(o32), tt_free(a64), tt_free(o64), tt_free(ob);
}

/* ---------------- binary ---------------- */

static int64_t floordiv_ref(int64_t a, int64_t b)
{
    if (b == 0)
        return 0;
    return (int64_t)floor((double)a / (double)b);
}

static double bin_ref(TngrtDType od, TngrtBinaryOp op, double a, double b, double alpha)
{
    double r;
    if (t_isfloat(od)) {
        r = op == TNGRT_BIN_ADD ? a + alpha * b : op == TNGRT_BIN_SUB ? a - alpha * b
          : op == TNGRT_BIN_MUL ? a * b : a / b;
        return od == TNGRT_F32 ? (double)(float)r : t_wrap(od, r);
    }
    r = op == TNGRT_BIN_ADD ? a + alpha * b : op == TNGRT_BIN_SUB ? a - alpha * b
      : op == TNGRT_BIN_MUL ? a * b : (double)floordiv_ref((int64_t)a, (int64_t)b);
    return t_wrap(od, r);
}

/* out = a op b for the given shapes, checked against bidx-broadcast refs. */
static void binary_case(TngrtDType ad, TngrtDType bd, TngrtDType od, int ond, const int64_t *os,
                        int and_, const int64_t *as, int bnd, const int64_t *bs,
                        TngrtBinaryOp op, double alpha)
{
    TT *a = tt_seq(tt_shape(ad, and_, as), 1), *b = tt_seq(tt_shape(bd, bnd, bs), 2);
    TT *o = tt_shape(od, ond, os);
    int64_t n = tt_numel(o);
    double *ref = dbuf(n);
    for (int64_t i = 0; i < n; i++)
        ref[i] = bin_ref(od, op, tt_get(a, bidx(a, o, i)), tt_get(b, bidx(b, o, i)), alpha);
    tngrt_kernel_binary(&o->a, &a->a, &b->a, op, alpha);
    check_dt(o, ref, "binary");
    free(ref);
    tt_free(a), tt_free(b), tt_free(o);
}

static void test_binary_dtypes(void **state)
{
    int64_t s13[1] = {13}, s37[2] = {37, 1};
    (void)state;
    for (int d = 0; d < 7; d++) {
        for (int op = TNGRT_BIN_ADD; op <= TNGRT_BIN_DIV; op++) {
            binary_case(ALL[d], ALL[d], ALL[d], 1, s13, 1, s13, 1, s13, (TngrtBinaryOp)op, 1.0);
            binary_case(ALL[d], ALL[d], ALL[d], 2, s37, 2, s37, 2, s37, (TngrtBinaryOp)op,
                        ALL[d] == TNGRT_BOOL ? 1.0 : t_isfloat(ALL[d]) ? 0.5 : 3.0);
        }
    }
}

static void test_binary_broadcast(void **state)
{
    static const struct { int on, an, bn; int64_t o[4], a[4], b[4]; } cs[] = {
        {1, 1, 1, {7}, {7}, {1}},
        {1, 1, 1, {7}, {1}, {7}},
        {3, 1, 3, {2, 3, 13}, {13}, {2, 3, 13}},
        {3, 3, 3, {4, 3, 5}, {4, 1, 5}, {4, 3, 5}},
        {3, 3, 3, {2, 3, 5}, {1, 3, 5}, {2, 3, 5}},
        {2, 2, 2, {3, 4}, {3, 1}, {1, 4}},
        {4, 4, 3, {2, 4, 3, 5}, {2, 1, 3, 1}, {4, 1, 5}},
        {2, 2, 1, {0, 3}, {0, 3}, {3}},
        {0, 0, 0, {0}, {0}, {0}},
        {2, 2, 0, {5, 17}, {5, 17}, {0}},
        {2, 1, 2, {2, 9}, {1}, {2, 1}},
        {3, 2, 3, {3, 2, 11}, {2, 1}, {3, 1, 11}},
    };
    static const TngrtDType dts[] = {TNGRT_F32, TNGRT_F16, TNGRT_I32, TNGRT_I64};
    (void)state;
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++)
        for (int d = 0; d < 4; d++)
            for (int op = TNGRT_BIN_ADD; op <= TNGRT_BIN_DIV; op++)
                binary_case(dts[d], dts[d], dts[d], cs[c].on, cs[c].o, cs[c].an, cs[c].a,
                            cs[c].bn, cs[c].b, (TngrtBinaryOp)op, t_isfloat(dts[d]) ? 0.5 : 2.0);
}

/* Half rows under a broadcast walk (a row of a [3, 600] against one of
 * [1, 600], a column [3, 1] and a scalar [1]: blocks of 256 and a tail,
 * a stride of 0) give, element by element, the bits of the float32 result
 * rounded once to the type (alpha 1: no fused multiply to tell apart). */
static void test_binary_half_rows(void **state)
{
    static const struct { int bn; int64_t b[2]; } cs[] = {{2, {1, 600}}, {2, {3, 1}}, {1, {1}}};
    static const TngrtDType dts[] = {TNGRT_F16, TNGRT_BF16};
    int64_t os[2] = {3, 600};
    (void)state;
    for (int d = 0; d < 2; d++)
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++)
    for (int op = TNGRT_BIN_ADD; op <= TNGRT_BIN_DIV; op++)
    for (int swap = 0; swap < 2; swap++) {
        TT *a = tt_seq(tt_shape(dts[d], 2, os), 1), *b = tt_seq(tt_shape(dts[d], cs[c].bn, cs[c].b), 2);
        TT *o = tt_shape(dts[d], 2, os);
        const uint16_t *got = o->a.data;
        tngrt_kernel_binary(&o->a, swap ? &b->a : &a->a, swap ? &a->a : &b->a, (TngrtBinaryOp)op,
                            1.0);
        for (int64_t i = 0; i < 1800; i++) {
            float x = (float)tt_get(a, i), y = (float)tt_get(b, bidx(b, o, i)), r;
            if (swap) {
                float t = x;
                x = y;
                y = t;
            }
            r = op == TNGRT_BIN_ADD ? x + y : op == TNGRT_BIN_SUB ? x - y
              : op == TNGRT_BIN_MUL ? x * y : x / y;
            if (r != r)   /* 0 / 0: a NaN of either sign */
                assert_true(dts[d] == TNGRT_F16 ? (got[i] & 0x7c00u) == 0x7c00u && (got[i] & 0x3ffu)
                                                : (got[i] & 0x7f80u) == 0x7f80u && (got[i] & 0x7fu));
            else
                assert_int_equal(got[i], dts[d] == TNGRT_F16 ? t_f16((double)r)
                                                             : t_bf16((double)r));
        }
        tt_free(a), tt_free(b), tt_free(o);
    }
}

static void test_binary_mixed(void **state)
{
    int64_t o[2] = {2, 3}, b[1] = {3};
    (void)state;
    binary_case(TNGRT_F16, TNGRT_F32, TNGRT_F32, 2, o, 2, o, 1, b, TNGRT_BIN_ADD, 1.0);
    binary_case(TNGRT_I8, TNGRT_I64, TNGRT_I64, 2, o, 2, o, 1, b, TNGRT_BIN_MUL, 1.0);
    binary_case(TNGRT_I32, TNGRT_F32, TNGRT_F32, 2, o, 2, o, 1, b, TNGRT_BIN_DIV, 1.0);
    binary_case(TNGRT_BOOL, TNGRT_I32, TNGRT_I32, 2, o, 2, o, 1, b, TNGRT_BIN_SUB, 1.0);
    binary_case(TNGRT_BF16, TNGRT_F16, TNGRT_F32, 2, o, 2, o, 1, b, TNGRT_BIN_SUB, 2.0);
    binary_case(TNGRT_F32, TNGRT_F32, TNGRT_BF16, 2, o, 2, o, 1, b, TNGRT_BIN_MUL, 1.0);
}

/* out aliasing an operand of the same shape (the memory planner's reuse). */
static void test_binary_inplace(void **state)
{
    static const TngrtDType dts[] = {TNGRT_F32, TNGRT_F16, TNGRT_I32};
    (void)state;
    for (int d = 0; d < 3; d++) {
        for (int op = TNGRT_BIN_ADD; op <= TNGRT_BIN_DIV; op++) {
            TT *a = tt_seq(tt(dts[d], 2, 3, 13), 1), *b = tt_seq(tt(dts[d], 2, 3, 13), 2);
            TT *s = tt_seq(tt(dts[d], 1, 1), 4);
            double ref[39], ref2[39];
            for (int i = 0; i < 39; i++) {
                ref[i] = bin_ref(dts[d], (TngrtBinaryOp)op, tt_get(a, i), tt_get(b, i), 2.0);
                ref2[i] = bin_ref(dts[d], (TngrtBinaryOp)op, tt_get(a, i), ref[i], 2.0);
            }
            tngrt_kernel_binary(&a->a, &a->a, &b->a, (TngrtBinaryOp)op, 2.0); /* out == a */
            check_dt(a, ref, "in place (out == a)");
            tt_seq(a, 1);
            tngrt_kernel_binary(&b->a, &a->a, &b->a, (TngrtBinaryOp)op, 2.0); /* out == b */
            check_dt(b, ref, "in place (out == b)");
            tngrt_kernel_binary(&b->a, &a->a, &b->a, (TngrtBinaryOp)op, 2.0);
            check_dt(b, ref2, "in place twice");
            for (int i = 0; i < 39; i++)
                ref[i] = bin_ref(dts[d], (TngrtBinaryOp)op, tt_get(a, i), tt_get(s, 0), 2.0);
            tngrt_kernel_binary(&a->a, &a->a, &s->a, (TngrtBinaryOp)op, 2.0);
            check_dt(a, ref, "in place, broadcast [1]");
            tt_free(a), tt_free(b), tt_free(s);
        }
    }
}

static void test_binary_scalar(void **state)
{
    static const TngrtDType dts[] = {TNGRT_F32, TNGRT_F16, TNGRT_BF16, TNGRT_I32, TNGRT_I64};
    (void)state;
    for (int d = 0; d < 5; d++) {
        for (int op = TNGRT_BIN_ADD; op <= TNGRT_BIN_DIV; op++) {
            for (int first = 0; first < 2; first++) {
                TT *x = tt_seq(tt(dts[d], 2, 3, 7), 1), *o = tt(dts[d], 2, 3, 7);
                double s = t_isfloat(dts[d]) ? 2.5 : 10.0, al = t_isfloat(dts[d]) ? 1.5 : 2.0;
                double ref[21];
                for (int i = 0; i < 21; i++)
                    ref[i] = first ? bin_ref(dts[d], (TngrtBinaryOp)op, s, tt_get(x, i), al)
                                   : bin_ref(dts[d], (TngrtBinaryOp)op, tt_get(x, i), s, al);
                tngrt_kernel_binary_scalar(&o->a, &x->a, s, first, (TngrtBinaryOp)op, al);
                check_dt(o, ref, "binary_scalar");
                tngrt_kernel_binary_scalar(&x->a, &x->a, s, first, (TngrtBinaryOp)op, al);
                check_dt(x, ref, "binary_scalar in place");
                tt_free(x), tt_free(o);
            }
        }
    }
}

/* ---------------- fill and copy ---------------- */

static void test_fill(void **state)
{
    static const double vs[] = {2.5, -0.5, 0.0, 300.0, 1e6};
    (void)state;
    for (int d = 0; d < 7; d++) {
        for (int n = 0; n < 14; n += 13) {
            for (size_t k = 0; k < sizeof vs / sizeof vs[0]; k++) {
                TT *o;
                double ref[39];
                if (!t_isfloat(ALL[d]) && ALL[d] != TNGRT_BOOL && vs[k] == 1e6)
                    continue; /* covered by the float dtypes (inf in f16) */
                o = tt(ALL[d], 2, n, 3);
                for (int i = 0; i < 39; i++)
                    ref[i] = cast_ref(ALL[d], vs[k]);
                tngrt_kernel_fill(&o->a, vs[k]);
                check(o, ref, 0, 0, "fill");
                tt_free(o);
            }
        }
    }
    TT *one = tt(TNGRT_F16, 0);
    tngrt_kernel_fill(&one->a, 1e6);
    assert_true(isinf(tt_get(one, 0)));
    tt_free(one);
}

static void copy_case(TngrtDType xd, TngrtDType od, int xn, const int64_t *xs, int on,
                      const int64_t *os)
{
    TT *x = tt_seq(tt_shape(xd, xn, xs), 5), *o = tt_shape(od, on, os);
    int64_t n = tt_numel(o);
    double *ref = dbuf(n);
    for (int64_t i = 0; i < n; i++)
        ref[i] = cast_ref(od, tt_get(x, bidx(x, o, i)));
    tngrt_kernel_copy(&o->a, &x->a);
    check(o, ref, 0, 0, "copy");
    free(ref);
    tt_free(x), tt_free(o);
}

static void test_copy(void **state)
{
    int64_t s3[1] = {3}, s23[2] = {2, 3}, s21[2] = {2, 1}, s24[2] = {2, 4};
    int64_t s413[3] = {4, 1, 3}, s423[3] = {4, 2, 3}, s0[2] = {0, 3}, s13[1] = {13};
    (void)state;
    copy_case(TNGRT_F32, TNGRT_F16, 1, s3, 2, s23);
    copy_case(TNGRT_I32, TNGRT_I64, 2, s21, 2, s24);
    copy_case(TNGRT_F16, TNGRT_F16, 3, s413, 3, s423);
    copy_case(TNGRT_I8, TNGRT_I8, 2, s21, 2, s24);
    copy_case(TNGRT_I64, TNGRT_I64, 1, s13, 1, s13);
    copy_case(TNGRT_BF16, TNGRT_F32, 1, s3, 2, s0);
    copy_case(TNGRT_F32, TNGRT_BOOL, 1, s13, 1, s13);
    TT *x = tt_seq(tt(TNGRT_F32, 1, 13), 1);
    double ref[13];
    for (int i = 0; i < 13; i++)
        ref[i] = tt_get(x, i);
    tngrt_kernel_copy(&x->a, &x->a); /* in place: a no-op */
    check(x, ref, 0, 0, "copy in place");
    ((float *)x->a.data)[0] = 0.25f;
    TT *b = tt(TNGRT_BOOL, 1, 13);
    tngrt_kernel_copy(&b->a, &x->a);
    assert_int_equal(((uint8_t *)b->a.data)[0], 1);
    tt_free(x), tt_free(b);
}

/* ---------------- contractions ---------------- */

/* torch.matmul in double: 1-D operands promoted, batch dims broadcast. */
static void matmul_ref(const TT *a, const TT *b, const TT *o, double *ref)
{
    int an = a->a.ndim, bn = b->a.ndim;
    int64_t k = a->shape[an - 1], m = an == 1 ? 1 : a->shape[an - 2];
    int64_t n = bn == 1 ? 1 : b->shape[bn - 1];
    int nb = o->a.ndim - (an > 1) - (bn > 1), abn = an > 2 ? an - 2 : 0, bbn = bn > 2 ? bn - 2 : 0;
    int64_t nbatch = 1;
    for (int d = 0; d < nb; d++)
        nbatch *= o->shape[d];
    for (int64_t t = 0; t < nbatch; t++) {
        int64_t at = 0, bt = 0, rem = t, coord[TNGRT_MAX_DIMS];
        for (int d = nb - 1; d >= 0; d--) {
            coord[d] = rem % o->shape[d];
            rem /= o->shape[d];
        }
        for (int d = 0; d < abn; d++)
            at = at * a->shape[d] + (a->shape[d] == 1 ? 0 : coord[d + nb - abn]);
        for (int d = 0; d < bbn; d++)
            bt = bt * b->shape[d] + (b->shape[d] == 1 ? 0 : coord[d + nb - bbn]);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double acc = 0;
                for (int64_t kk = 0; kk < k; kk++)
                    acc += tt_get(a, (at * m + i) * k + kk) * tt_get(b, (bt * k + kk) * n + j);
                ref[(t * m + i) * n + j] = acc;
            }
    }
}

static void matmul_case(TngrtDType ad, TngrtDType bd, TngrtDType od, int an, const int64_t *as,
                        int bn, const int64_t *bs, int on, const int64_t *os)
{
    TT *a = tt_seq(tt_shape(ad, an, as), 1), *b = tt_seq(tt_shape(bd, bn, bs), 2);
    TT *o = tt_shape(od, on, os);
    int64_t n = tt_numel(o);
    double *ref = dbuf(n);
    for (int64_t i = 0; i < n; i++)
        tt_set(o, i, 7.0); /* stale contents must be overwritten */
    matmul_ref(a, b, o, ref);
    for (int64_t i = 0; !t_isfloat(od) && i < n; i++)
        ref[i] = t_wrap(od, ref[i]);
    tngrt_kernel_matmul(&o->a, &a->a, &b->a);
    check(o, ref, od == TNGRT_F32 ? 1e-4 : tol_of(od), od == TNGRT_F32 ? 1e-5 : tol_of(od),
          "matmul");
    free(ref);
    tt_free(a), tt_free(b), tt_free(o);
}

static void test_matmul(void **state)
{
    static const struct { int an, bn, on; int64_t a[4], b[4], o[4]; } cs[] = {
        {2, 2, 2, {7, 13}, {13, 5}, {7, 5}},
        {1, 2, 1, {13}, {13, 5}, {5}},
        {2, 1, 1, {7, 13}, {13}, {7}},
        {1, 1, 0, {13}, {13}, {0}},
        {4, 2, 4, {2, 3, 4, 5}, {5, 6}, {2, 3, 4, 6}},
        {2, 3, 3, {4, 5}, {2, 5, 6}, {2, 4, 6}},
        {4, 4, 4, {2, 1, 4, 5}, {1, 3, 5, 6}, {2, 3, 4, 6}},
        {3, 1, 2, {3, 4, 5}, {5}, {3, 4}},
        {1, 3, 2, {5}, {3, 5, 2}, {3, 2}},
        {2, 2, 2, {3, 0}, {0, 4}, {3, 4}},
        {2, 2, 2, {0, 4}, {4, 3}, {0, 3}},
        {3, 3, 3, {2, 3, 7}, {2, 7, 1}, {2, 3, 1}},
        {3, 3, 3, {2, 3, 7}, {1, 7, 4}, {2, 3, 4}},
        {3, 2, 3, {0, 3, 7}, {7, 4}, {0, 3, 4}},
    };
    static const TngrtDType dts[] = {TNGRT_F32, TNGRT_F16, TNGRT_BF16, TNGRT_I8, TNGRT_I32,
                                     TNGRT_I64};
    (void)state;
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++)
        for (int d = 0; d < 6; d++)
            matmul_case(dts[d], dts[d], dts[d], cs[c].an, cs[c].a, cs[c].bn, cs[c].b, cs[c].on,
                        cs[c].o);
    matmul_case(TNGRT_F16, TNGRT_F32, TNGRT_F32, 2, cs[0].a, 2, cs[0].b, 2, cs[0].o);
    matmul_case(TNGRT_F32, TNGRT_F32, TNGRT_BF16, 4, cs[4].a, 2, cs[4].b, 4, cs[4].o);
    int64_t a[2] = {33, 70}, b[2] = {70, 41}, o[2] = {33, 41};
    matmul_case(TNGRT_F32, TNGRT_F32, TNGRT_F32, 2, a, 2, b, 2, o);
}

/* addmm: beta * bias (broadcast) + alpha * a @ b. */
static void addmm_case(TngrtDType dt, int bn, const int64_t *bs, int k, double beta, double alpha)
{
    int64_t as[2] = {5, k}, bsh[2] = {k, 3};
    TT *a = tt_seq(tt_shape(dt, 2, as), 1), *b = tt_seq(tt_shape(dt, 2, bsh), 2);
    TT *bias = tt_seq(tt_shape(dt, bn, bs), 3), *o = tt(dt, 2, 5, 3);
    double ref[15];
    matmul_ref(a, b, o, ref);
    for (int i = 0; i < 15; i++) {
        ref[i] = alpha * ref[i] + beta * tt_get(bias, bidx(bias, o, i));
        if (!t_isfloat(dt))
            ref[i] = t_wrap(dt, ref[i]);
    }
    tngrt_kernel_addmm(&o->a, &bias->a, &a->a, &b->a, beta, alpha);
    check(o, ref, dt == TNGRT_F32 ? 1e-4 : tol_of(dt), dt == TNGRT_F32 ? 1e-5 : tol_of(dt),
          "addmm");
    tt_free(a), tt_free(b), tt_free(bias), tt_free(o);
}

static void test_addmm(void **state)
{
    int64_t n[1] = {3}, mn[2] = {5, 3}, one[1] = {1}, m1[2] = {5, 1};
    (void)state;
    addmm_case(TNGRT_F32, 1, n, 7, 0.5, 2.0);
    addmm_case(TNGRT_F32, 2, mn, 7, 1.0, 1.0);
    addmm_case(TNGRT_F32, 1, one, 7, 0.5, 2.0);
    addmm_case(TNGRT_F32, 2, m1, 7, 2.0, -1.0);
    addmm_case(TNGRT_F32, 1, n, 0, 0.5, 2.0); /* k == 0: beta * bias */
    addmm_case(TNGRT_F16, 1, n, 7, 0.5, 2.0);
    addmm_case(TNGRT_BF16, 2, mn, 13, 1.0, 1.0);
    addmm_case(TNGRT_I32, 1, n, 7, 2.0, 3.0);
    addmm_case(TNGRT_I64, 2, m1, 0, 2.0, 3.0);
    /* beta == 0 ignores the bias, NaN included */
    TT *a = tt_seq(tt(TNGRT_F32, 2, 2, 3), 1), *b = tt_seq(tt(TNGRT_F32, 2, 3, 2), 2);
    TT *bias = tt(TNGRT_F32, 1, 2), *o = tt(TNGRT_F32, 2, 2, 2);
    double ref[4];
    ((float *)bias->a.data)[0] = NAN;
    ((float *)bias->a.data)[1] = NAN;
    matmul_ref(a, b, o, ref);
    tngrt_kernel_addmm(&o->a, &bias->a, &a->a, &b->a, 0.0, 1.0);
    check(o, ref, 1e-5, 1e-6, "addmm beta 0");
    tt_free(a), tt_free(b), tt_free(bias), tt_free(o);
}

/* linear: x [..., k] @ w[n, k]^T + bias[n]. */
static void linear_case(TngrtDType dt, int xn, const int64_t *xs, int n, int with_bias)
{
    int k = (int)xs[xn - 1];
    int64_t os[TNGRT_MAX_DIMS], ws[2] = {n, k}, bs[1] = {n};
    TT *x, *w, *bias, *o;
    for (int d = 0; d < xn - 1; d++)
        os[d] = xs[d];
    os[xn - 1] = n;
    x = tt_seq(tt_shape(dt, xn, xs), 1), w = tt_seq(tt_shape(dt, 2, ws), 2);
    bias = tt_seq(tt_shape(dt, 1, bs), 3), o = tt_shape(dt, xn, os);
    int64_t rows = tt_numel(o) / (n ? n : 1);
    double *ref = dbuf(tt_numel(o));
    for (int64_t r = 0; r < rows; r++)
        for (int j = 0; j < n; j++) {
            double acc = with_bias ? tt_get(bias, j) : 0.0;
            for (int kk = 0; kk < k; kk++)
                acc += tt_get(x, r * k + kk) * tt_get(w, (int64_t)j * k + kk);
            ref[r * n + j] = acc;
        }
    tngrt_kernel_linear(&o->a, &x->a, &w->a, with_bias ? &bias->a : NULL);
    check(o, ref, dt == TNGRT_F32 ? 1e-4 : tol_of(dt), dt == TNGRT_F32 ? 1e-5 : tol_of(dt),
          "linear");
    free(ref);
    tt_free(x), tt_free(w), tt_free(bias), tt_free(o);
}

static void test_linear(void **state)
{
    int64_t x3[3] = {2, 3, 4}, x1[1] = {4}, x0[2] = {3, 0}, big[2] = {9, 33};
    (void)state;
    linear_case(TNGRT_F32, 3, x3, 5, 1);
    linear_case(TNGRT_F32, 3, x3, 5, 0);
    linear_case(TNGRT_F32, 1, x1, 5, 1);
    linear_case(TNGRT_F32, 2, x0, 5, 1);
    linear_case(TNGRT_F32, 2, big, 17, 1);
    linear_case(TNGRT_BF16, 3, x3, 5, 1);
    linear_case(TNGRT_F16, 2, big, 7, 0);
    linear_case(TNGRT_I32, 3, x3, 5, 1);
}

/* ---------------- data movement ---------------- */

/* Linear index in a C-order tensor of shape sh (nd dims) of coord. */
static int64_t ravel(int nd, const int64_t *sh, const int64_t *coord)
{
    int64_t i = 0;
    for (int d = 0; d < nd; d++)
        i = i * sh[d] + coord[d];
    return i;
}

static void unravel(int nd, const int64_t *sh, int64_t i, int64_t *coord)
{
    for (int d = nd - 1; d >= 0; d--) {
        coord[d] = i % sh[d];
        i /= sh[d];
    }
}

static void permute_case(TngrtDType dt, int nd, const int64_t *xs, const int64_t *perm)
{
    int64_t os[TNGRT_MAX_DIMS], oc[TNGRT_MAX_DIMS], xc[TNGRT_MAX_DIMS];
    TT *x, *o;
    for (int d = 0; d < nd; d++)
        os[d] = xs[perm[d]];
    x = tt_seq(tt_shape(dt, nd, xs), 1), o = tt_shape(dt, nd, os);
    double *ref = dbuf(tt_numel(o));
    for (int64_t i = 0; i < tt_numel(o); i++) {
        unravel(nd, os, i, oc);
        for (int d = 0; d < nd; d++)
            xc[perm[d]] = oc[d];
        ref[i] = tt_get(x, ravel(nd, xs, xc));
    }
    tngrt_kernel_permute(&o->a, &x->a, perm);
    check(o, ref, 0, 0, "permute");
    free(ref);
    tt_free(x), tt_free(o);
}

static void test_permute(void **state)
{
    int64_t s3[3] = {2, 3, 4}, p201[3] = {2, 0, 1}, p012[3] = {0, 1, 2}, p102[3] = {1, 0, 2};
    int64_t s2[2] = {13, 7}, p10[2] = {1, 0}, s0[2] = {0, 3};
    int64_t s4[4] = {2, 1, 3, 5}, p3120[4] = {3, 1, 2, 0};
    (void)state;
    for (int d = 0; d < 7; d++) {
        permute_case(ALL[d], 3, s3, p201);
        permute_case(ALL[d], 3, s3, p012);
        permute_case(ALL[d], 3, s3, p102);
        permute_case(ALL[d], 2, s2, p10);
        permute_case(ALL[d], 2, s0, p10);
        permute_case(ALL[d], 4, s4, p3120);
    }
}

/* Python's range(len)[start:end:step] counted by brute force. */
static int64_t slice_ref(int64_t len, int64_t start, int64_t end, int64_t step, int64_t *first)
{
    int64_t s = start < 0 ? start + len : start;
    int64_t e = end == INT64_MAX ? len : end < 0 ? end + len : end;
    int64_t n = 0;
    if (s < 0) /* a start before the beginning counts its steps from 0 */
        s = 0;
    *first = -1;
    for (int64_t i = 0; i < len; i++)
        if (i >= s && i < e && (i - s) % step == 0) {
            if (*first < 0)
                *first = i;
            n++;
        }
    return n;
}

static void test_slice(void **state)
{
    static const int64_t cs[][3] = {{0, INT64_MAX, 1}, {2, 9, 3}, {-5, -1, 1}, {-100, 100, 2},
                                    {10, 3, 1}, {13, INT64_MAX, 1}, {-3, INT64_MAX, 1},
                                    {1, INT64_MAX, 5}, {-13, 13, 13}, {0, -100, 1},
                                    /* steps past any stride: one element, no overflow */
                                    {0, INT64_MAX, (int64_t)1 << 62}, {5, INT64_MAX, INT64_MAX}};
    (void)state;
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        for (int dim = 0; dim < 2; dim++) {
            TngrtDType dt = c % 2 ? TNGRT_I8 : TNGRT_F32;
            int64_t xs[2] = {13, 13}, first, os[2] = {13, 13}, oc[2];
            int64_t n = slice_ref(13, cs[c][0], cs[c][1], cs[c][2], &first);
            os[dim] = n;
            TT *x = tt_seq(tt_shape(dt, 2, xs), 1), *o = tt_shape(dt, 2, os);
            double *ref = dbuf(tt_numel(o));
            for (int64_t i = 0; i < tt_numel(o); i++) {
                unravel(2, os, i, oc);
                oc[dim] = first + oc[dim] * cs[c][2];
                ref[i] = tt_get(x, ravel(2, xs, oc));
            }
            tngrt_kernel_slice(&o->a, &x->a, dim - 2 * (int)(c % 2), cs[c][0], cs[c][1], cs[c][2]);
            check(o, ref, 0, 0, "slice");
            free(ref);
            tt_free(x), tt_free(o);
        }
    }
}

static void test_select(void **state)
{
    TT *x = tt_seq(tt(TNGRT_F16, 3, 3, 4, 5), 1), *o = tt(TNGRT_F16, 2, 3, 5);
    TT *o0 = tt(TNGRT_F16, 2, 4, 5), *o2 = tt(TNGRT_F16, 2, 3, 4);
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    double ref[20];
    (void)state;
    for (int idx = -4; idx < 4; idx++) {
        int ii = idx < 0 ? idx + 4 : idx;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 5; j++)
                ref[i * 5 + j] = tt_get(x, (i * 4 + ii) * 5 + j);
        assert_int_equal(tngrt_kernel_select(&o->a, &x->a, 1, idx, &err), 0);
        check(o, ref, 0, 0, "select dim 1");
    }
    assert_int_equal(tngrt_kernel_select(&o0->a, &x->a, 0, -3, &err), 0);
    for (int i = 0; i < 20; i++)
        ref[i] = tt_get(x, i);
    check(o0, ref, 0, 0, "select dim 0");
    assert_int_equal(tngrt_kernel_select(&o2->a, &x->a, -1, 4, &err), 0);
    for (int i = 0; i < 12; i++)
        ref[i] = tt_get(x, i * 5 + 4);
    check(o2, ref, 0, 0, "select dim -1");
    assert_int_equal(tngrt_kernel_select(&o->a, &x->a, 1, 4, &err), -1);
    assert_non_null(strstr(err.msg, "select: index 4 out of range"));
    assert_int_equal(tngrt_kernel_select(&o->a, &x->a, 1, -5, &err), -1);
    assert_non_null(strstr(err.msg, "-5"));
    assert_int_equal(tngrt_kernel_select(&o->a, &x->a, 3, 0, &err), -1);
    assert_non_null(strstr(err.msg, "dim 3"));
    TT *e = tt(TNGRT_F32, 1, 0), *s = tt(TNGRT_F32, 0);
    assert_int_equal(tngrt_kernel_select(&s->a, &e->a, 0, 0, NULL), -1);
    tt_free(x), tt_free(o), tt_free(o0), tt_free(o2), tt_free(e), tt_free(s);
}

static void test_slice_store(void **state)
{
    TT *d = tt_seq(tt(TNGRT_I32, 2, 4, 10), 1), *s = tt_seq(tt(TNGRT_I32, 2, 4, 1), 2);
    TT *h = tt_seq(tt(TNGRT_F16, 2, 4, 10), 3), *sf = tt_seq(tt(TNGRT_F32, 2, 4, 3), 4);
    double ref[40];
    (void)state;
    for (int i = 0; i < 40; i++) /* d[:, 1:8:3] = s (broadcast) */
        ref[i] = (i % 10 == 1 || i % 10 == 4 || i % 10 == 7) ? tt_get(s, i / 10) : tt_get(d, i);
    tngrt_kernel_slice_store(&d->a, &s->a, 1, 1, 8, 3);
    check(d, ref, 0, 0, "slice_store broadcast");
    for (int i = 0; i < 40; i++) /* h[:, -3:] = sf (converted) */
        ref[i] = i % 10 >= 7 ? tt_get(sf, (i / 10) * 3 + i % 10 - 7) : tt_get(h, i);
    tngrt_kernel_slice_store(&h->a, &sf->a, -1, -3, INT64_MAX, 1);
    check(h, ref, 0, 0, "slice_store convert");
    TT *row = tt_seq(tt(TNGRT_I32, 1, 10), 5);
    for (int i = 0; i < 40; i++) /* d[1:4:2] = row (dim 0, broadcast over rows) */
        ref[i] = (i / 10 == 1 || i / 10 == 3) ? tt_get(row, i % 10) : tt_get(d, i);
    tngrt_kernel_slice_store(&d->a, &row->a, 0, 1, 4, 2);
    check(d, ref, 0, 0, "slice_store dim 0");
    for (int i = 0; i < 40; i++) /* d[:, 2::2**62] = s: one column, the step never multiplied */
        ref[i] = i % 10 == 2 ? tt_get(s, i / 10) : tt_get(d, i);
    tngrt_kernel_slice_store(&d->a, &s->a, 1, 2, INT64_MAX, (int64_t)1 << 62);
    check(d, ref, 0, 0, "slice_store step 2^62");
    tt_free(d), tt_free(s), tt_free(h), tt_free(sf), tt_free(row);
}

static void test_cat(void **state)
{
    TT *a = tt_seq(tt(TNGRT_F32, 3, 2, 1, 3), 1), *b = tt(TNGRT_F32, 3, 2, 0, 3);
    TT *c = tt_seq(tt(TNGRT_F32, 3, 2, 2, 3), 2), *legacy = tt(TNGRT_F32, 1, 0);
    TT *o = tt(TNGRT_F32, 3, 2, 3, 3), *o0 = tt(TNGRT_I64, 2, 5, 4);
    TT *i0 = tt_seq(tt(TNGRT_I32, 2, 2, 4), 3), *i1 = tt_seq(tt(TNGRT_I8, 2, 3, 4), 4);
    const TngrtArg *xs[4] = {&a->a, &b->a, &legacy->a, &c->a}, *ys[2] = {&i0->a, &i1->a};
    double ref[20];
    (void)state;
    for (int i = 0; i < 18; i++) {
        int p = i / 9, r = (i / 3) % 3, q = i % 3;
        ref[i] = r == 0 ? tt_get(a, p * 3 + q) : tt_get(c, (p * 2 + r - 1) * 3 + q);
    }
    tngrt_kernel_cat(&o->a, xs, 4, 1);
    check(o, ref, 0, 0, "cat dim 1");
    tngrt_kernel_cat(&o->a, xs, 4, -2);
    check(o, ref, 0, 0, "cat dim -2");
    for (int i = 0; i < 20; i++)
        ref[i] = i < 8 ? tt_get(i0, i) : tt_get(i1, i - 8);
    tngrt_kernel_cat(&o0->a, ys, 2, 0);
    check(o0, ref, 0, 0, "cat dim 0 converting");
    tt_free(a), tt_free(b), tt_free(c), tt_free(legacy), tt_free(o), tt_free(o0);
    tt_free(i0), tt_free(i1);
}

/* ---------------- reductions and normalisations ---------------- */

/* Reduces x over mask into ref (out in x's order of kept dims) in double. */
static void reduce_ref(const TT *x, TngrtReduceOp op, uint32_t mask, double *ref, int64_t nout)
{
    int64_t xc[TNGRT_MAX_DIMS], *count = calloc((size_t)(nout ? nout : 1), sizeof *count);
    assert_non_null(count);
    for (int64_t o = 0; o < nout; o++)
        ref[o] = op == TNGRT_RED_AMAX ? -INFINITY : 0.0;
    for (int64_t i = 0; i < tt_numel(x); i++) {
        int64_t o = 0;
        double v = tt_get(x, i);
        unravel(x->a.ndim, x->shape, i, xc);
        for (int d = 0; d < x->a.ndim; d++)
            if (!((mask >> d) & 1u))
                o = o * x->shape[d] + xc[d];
        count[o]++;
        if (op != TNGRT_RED_AMAX)
            ref[o] += v;
        else if (isnan(v) || v > ref[o] || isnan(ref[o]))
            ref[o] = isnan(ref[o]) ? ref[o] : v;
    }
    for (int64_t o = 0; op == TNGRT_RED_MEAN && o < nout; o++)
        ref[o] /= (double)count[o];
    free(count);
}

/* Reduces x (shape xs) over mask with keepdim or not, out dtype od. */
static void reduce_case(TngrtDType xd, TngrtDType od, int xn, const int64_t *xs, uint32_t mask,
                        int keep, TngrtReduceOp op, int nan_at)
{
    int64_t os[TNGRT_MAX_DIMS];
    int on = 0;
    for (int d = 0; d < xn; d++)
        if (!((mask >> d) & 1u) || keep)
            os[on++] = (mask >> d) & 1u ? 1 : xs[d];
    TT *x = tt_seq(tt_shape(xd, xn, xs), 1), *o = tt_shape(od, on, os);
    int64_t n = tt_numel(o);
    double *ref = dbuf(n);
    if (nan_at >= 0)
        tt_set(x, nan_at, NAN);
    reduce_ref(x, op, mask, ref, n);
    for (int64_t i = 0; !t_isfloat(od) && i < n; i++)
        ref[i] = t_wrap(od, op == TNGRT_RED_MEAN ? trunc(ref[i]) : ref[i]);
    tngrt_kernel_reduce(&o->a, &x->a, op, mask);
    check(o, ref, od == TNGRT_F32 ? 1e-5 : tol_of(od), od == TNGRT_F32 ? 1e-5 : tol_of(od),
          "reduce");
    free(ref);
    tt_free(x), tt_free(o);
}

static void test_reduce(void **state)
{
    int64_t s3[3] = {3, 4, 5}, s0[2] = {3, 0}, big[2] = {2, 1001};
    static const uint32_t masks[] = {4, 1, 2, 5, 7, 0, 6, 3};
    (void)state;
    for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++)
        for (int keep = 0; keep < 2; keep++)
            for (int op = TNGRT_RED_SUM; op <= TNGRT_RED_AMAX; op++) {
                reduce_case(TNGRT_F32, TNGRT_F32, 3, s3, masks[m], keep, (TngrtReduceOp)op, -1);
                reduce_case(TNGRT_F16, TNGRT_F16, 3, s3, masks[m], keep, (TngrtReduceOp)op, -1);
                reduce_case(TNGRT_BF16, TNGRT_F32, 3, s3, masks[m], keep, (TngrtReduceOp)op, -1);
            }
    for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
        reduce_case(TNGRT_I8, TNGRT_I64, 3, s3, masks[m], 0, TNGRT_RED_SUM, -1);
        reduce_case(TNGRT_I32, TNGRT_I64, 3, s3, masks[m], 1, TNGRT_RED_SUM, -1);
        reduce_case(TNGRT_I64, TNGRT_I64, 3, s3, masks[m], 0, TNGRT_RED_AMAX, -1);
        reduce_case(TNGRT_I8, TNGRT_I8, 3, s3, masks[m], 0, TNGRT_RED_SUM, -1);
        reduce_case(TNGRT_BOOL, TNGRT_I64, 3, s3, masks[m], 0, TNGRT_RED_SUM, -1);
    }
    reduce_case(TNGRT_F32, TNGRT_F32, 3, s3, 4, 0, TNGRT_RED_AMAX, 7); /* NaN propagates */
    reduce_case(TNGRT_F32, TNGRT_F32, 3, s3, 1, 0, TNGRT_RED_AMAX, 7);
    reduce_case(TNGRT_F32, TNGRT_F32, 3, s3, 7, 0, TNGRT_RED_SUM, 59);
    reduce_case(TNGRT_F32, TNGRT_F32, 2, big, 2, 0, TNGRT_RED_SUM, -1);
    reduce_case(TNGRT_F32, TNGRT_F32, 2, big, 2, 1, TNGRT_RED_MEAN, -1);
    reduce_case(TNGRT_F32, TNGRT_F32, 2, big, 1, 0, TNGRT_RED_SUM, -1);
    /* reducing no elements: sum 0, mean NaN, amax -inf; nothing to reduce into */
    reduce_case(TNGRT_F32, TNGRT_F32, 2, s0, 2, 0, TNGRT_RED_SUM, -1);
    reduce_case(TNGRT_F32, TNGRT_F32, 2, s0, 2, 0, TNGRT_RED_MEAN, -1);
    reduce_case(TNGRT_F32, TNGRT_F32, 2, s0, 2, 1, TNGRT_RED_AMAX, -1);
    reduce_case(TNGRT_F32, TNGRT_F32, 2, s0, 1, 0, TNGRT_RED_SUM, -1);
    TT *e = tt(TNGRT_F32, 1, 0), *r = tt(TNGRT_F32, 0), *ri = tt(TNGRT_I32, 0);
    tngrt_kernel_reduce(&r->a, &e->a, TNGRT_RED_MEAN, 1);
    assert_true(isnan(tt_get(r, 0)));
    tngrt_kernel_reduce(&r->a, &e->a, TNGRT_RED_AMAX, 1);
    assert_true(isinf(tt_get(r, 0)) && tt_get(r, 0) < 0);
    tngrt_kernel_reduce(&ri->a, &e->a, TNGRT_RED_AMAX, 1);
    assert_int_equal(((int32_t *)ri->a.data)[0], 0);
    tt_free(e), tt_free(r), tt_free(ri);
}

static void softmax_case(TngrtDType dt, int nd, const int64_t *xs, int dim, int lg, double shift,
                         int inplace)
{
    TT *x = tt_seq(tt_shape(dt, nd, xs), 1), *o = inplace ? x : tt_shape(dt, nd, xs);
    int64_t n = tt_numel(x), c[TNGRT_MAX_DIMS], dd = dim < 0 ? dim + nd : dim;
    double *ref = dbuf(n);
    for (int64_t i = 0; i < n; i++)
        tt_set(x, i, tt_get(x, i) * 4 + shift);
    for (int64_t i = 0; i < n; i++) {
        double mx = -INFINITY, sum = 0, v = tt_get(x, i);
        unravel(nd, xs, i, c);
        for (int64_t j = 0; j < xs[dd]; j++) {
            c[dd] = j;
            mx = fmax(mx, tt_get(x, ravel(nd, xs, c)));
        }
        for (int64_t j = 0; j < xs[dd]; j++) {
            c[dd] = j;
            sum += exp(tt_get(x, ravel(nd, xs, c)) - mx);
        }
        ref[i] = lg ? v - mx - log(sum) : exp(v - mx) / sum;
    }
    tngrt_kernel_softmax(&o->a, &x->a, dim, lg);
    check(o, ref, tol_of(dt), tol_of(dt), "softmax");
    free(ref);
    if (!inplace)
        tt_free(o);
    tt_free(x);
}

static void test_softmax(void **state)
{
    int64_t s2[2] = {3, 7}, s3[3] = {2, 3, 4}, s1[1] = {13};
    (void)state;
    for (int lg = 0; lg < 2; lg++) {
        softmax_case(TNGRT_F32, 2, s2, 1, lg, 0.0, 0);
        softmax_case(TNGRT_F32, 2, s2, 0, lg, 0.0, 0);
        softmax_case(TNGRT_F32, 3, s3, 1, lg, 0.0, 0);
        softmax_case(TNGRT_F32, 3, s3, -1, lg, 1000.0, 0); /* no overflow */
        softmax_case(TNGRT_F32, 1, s1, 0, lg, -1000.0, 1); /* in place */
        softmax_case(TNGRT_F16, 3, s3, 2, lg, 0.0, 0);
        softmax_case(TNGRT_BF16, 2, s2, -1, lg, 0.0, 1);
    }
    TT *x = tt(TNGRT_F32, 1, 3), *o = tt(TNGRT_F32, 1, 3);
    float *xp = x->a.data, *op = o->a.data;
    xp[0] = -INFINITY, xp[1] = 0.0f, xp[2] = -INFINITY;
    tngrt_kernel_softmax(&o->a, &x->a, 0, 0);
    assert_true(op[0] == 0.0f && op[1] == 1.0f && op[2] == 0.0f);
    tt_free(x), tt_free(o);
}

static void layer_norm_case(TngrtDType dt, int nd, const int64_t *xs, int nnorm, int affine)
{
    TT *x = tt_seq(tt_shape(dt, nd, xs), 1), *o = tt_shape(dt, nd, xs);
    TT *w = tt_seq(tt_shape(TNGRT_F32, nnorm, xs + nd - nnorm), 2);
    TT *b = tt_seq(tt_shape(dt, nnorm, xs + nd - nnorm), 3);
    int64_t n = tt_numel(w), rows = tt_numel(x) / n;
    double *ref = dbuf(tt_numel(x));
    for (int64_t r = 0; r < rows; r++) {
        double mean = 0, var = 0;
        for (int64_t j = 0; j < n; j++)
            mean += tt_get(x, r * n + j) / (double)n;
        for (int64_t j = 0; j < n; j++)
            var += pow(tt_get(x, r * n + j) - mean, 2) / (double)n;
        for (int64_t j = 0; j < n; j++) {
            double y = (tt_get(x, r * n + j) - mean) / sqrt(var + 1e-5);
            ref[r * n + j] = affine ? y * tt_get(w, j) + tt_get(b, j) : y;
        }
    }
    tngrt_kernel_layer_norm(&o->a, &x->a, affine ? &w->a : NULL, affine ? &b->a : NULL, nnorm,
                            1e-5);
    check(o, ref, tol_of(dt), tol_of(dt), "layer_norm");
    free(ref);
    tt_free(x), tt_free(o), tt_free(w), tt_free(b);
}

static void test_layer_norm(void **state)
{
    int64_t s2[2] = {3, 13}, s3[3] = {2, 3, 4}, big[2] = {2, 1000};
    (void)state;
    layer_norm_case(TNGRT_F32, 2, s2, 1, 1);
    layer_norm_case(TNGRT_F32, 2, s2, 1, 0);
    layer_norm_case(TNGRT_F32, 3, s3, 2, 1);
    layer_norm_case(TNGRT_F32, 3, s3, 2, 0);
    layer_norm_case(TNGRT_F32, 2, big, 1, 1);
    layer_norm_case(TNGRT_F16, 3, s3, 1, 1);
    layer_norm_case(TNGRT_BF16, 2, s2, 1, 1);
}

/* npu_rms_norm: rstd = 1/sqrt(mean(x^2) + eps), y = x * rstd * gamma. */
static void rms_case(TngrtDType dt, TngrtDType gd, int nd, const int64_t *xs, int gn, double eps)
{
    int64_t rs[TNGRT_MAX_DIMS];
    for (int d = 0; d < nd; d++)
        rs[d] = d < nd - gn ? xs[d] : 1;
    TT *x = tt_seq(tt_shape(dt, nd, xs), 1), *y = tt_shape(dt, nd, xs);
    TT *g = tt_seq(tt_shape(gd, gn, xs + nd - gn), 2), *r = tt_shape(TNGRT_F32, nd, rs);
    int64_t n = tt_numel(g), rows = tt_numel(r);
    double *ref = dbuf(tt_numel(x)), *rref = dbuf(rows);
    for (int64_t i = 0; i < rows; i++) {
        double ss = 0;
        for (int64_t j = 0; j < n; j++)
            ss += pow(tt_get(x, i * n + j), 2);
        rref[i] = 1.0 / sqrt(ss / (double)n + eps);
        for (int64_t j = 0; j < n; j++)
            ref[i * n + j] = tt_get(x, i * n + j) * rref[i] * tt_get(g, j);
    }
    tngrt_kernel_rms_norm(&y->a, &r->a, &x->a, &g->a, eps);
    check(y, ref, tol_of(dt), tol_of(dt) * 1e-2, "rms_norm y");
    check(r, rref, 1e-5, 1e-7, "rms_norm rstd");
    free(ref), free(rref);
    tt_free(x), tt_free(y), tt_free(g), tt_free(r);
}

static void test_rms_norm(void **state)
{
    int64_t s2[2] = {3, 8}, s3[3] = {2, 3, 4}, big[2] = {3, 1027};
    (void)state;
    rms_case(TNGRT_F32, TNGRT_F32, 2, s2, 1, 1e-6);
    rms_case(TNGRT_F32, TNGRT_F32, 2, s2, 1, 0.25); /* eps inside the root */
    rms_case(TNGRT_F32, TNGRT_F32, 2, big, 1, 1e-6);
    rms_case(TNGRT_BF16, TNGRT_BF16, 3, s3, 2, 1e-6);
    rms_case(TNGRT_F16, TNGRT_F32, 3, s3, 1, 0.5);
}

static void test_embedding(void **state)
{
    TT *w = tt_seq(tt(TNGRT_F32, 2, 64, 5), 1), *ids = tt(TNGRT_I64, 2, 2, 3);
    TT *ids32 = tt(TNGRT_I32, 1, 4), *o = tt(TNGRT_F32, 3, 2, 3, 5), *o2 = tt(TNGRT_F32, 2, 4, 5);
    TT *wh = tt_seq(tt(TNGRT_F16, 2, 64, 5), 2), *oh = tt(TNGRT_F16, 2, 4, 5);
    static const int64_t id[6] = {0, 63, 7, 7, 12, 1};
    static const int32_t id32[4] = {5, 0, 63, 2};
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    double ref[30];
    (void)state;
    memcpy(ids->a.data, id, sizeof id);
    memcpy(ids32->a.data, id32, sizeof id32);
    for (int i = 0; i < 30; i++)
        ref[i] = tt_get(w, id[i / 5] * 5 + i % 5);
    assert_int_equal(tngrt_kernel_embedding(&o->a, &w->a, &ids->a, &err), 0);
    check(o, ref, 0, 0, "embedding");
    for (int i = 0; i < 20; i++)
        ref[i] = tt_get(w, id32[i / 5] * 5 + i % 5);
    assert_int_equal(tngrt_kernel_embedding(&o2->a, &w->a, &ids32->a, &err), 0);
    check(o2, ref, 0, 0, "embedding i32 ids");
    for (int i = 0; i < 20; i++)
        ref[i] = tt_get(wh, id32[i / 5] * 5 + i % 5);
    assert_int_equal(tngrt_kernel_embedding(&oh->a, &wh->a, &ids32->a, &err), 0);
    check(oh, ref, 0, 0, "embedding f16");
    ((int64_t *)ids->a.data)[4] = 70;
    assert_int_equal(tngrt_kernel_embedding(&o->a, &w->a, &ids->a, &err), -1);
    assert_string_equal(err.msg, "embedding: id 70 out of range [0, 64)");
    assert_int_equal(err.kind, TNGRT_ERR_BAD_INPUT);   /* bad data, not a failure */
    assert_int_equal(tngrt_error_at(&err, "m.py", 12), -1);
    assert_string_equal(err.msg, "m.py:12: embedding: id 70 out of range [0, 64)");
    assert_int_equal(err.kind, TNGRT_ERR_BAD_INPUT);
    ((int64_t *)ids->a.data)[4] = -1;
    assert_int_equal(tngrt_kernel_embedding(&o->a, &w->a, &ids->a, &err), -1);
    assert_string_equal(err.msg, "embedding: id -1 out of range [0, 64)");
    ((int32_t *)ids32->a.data)[3] = 64;
    assert_int_equal(tngrt_kernel_embedding(&o2->a, &w->a, &ids32->a, NULL), -1);
    tt_free(w), tt_free(ids), tt_free(ids32), tt_free(o), tt_free(o2), tt_free(wh), tt_free(oh);
}

/* ---------------- torch_npu fused operators ---------------- */

static void swiglu_case(TngrtDType dt, int nd, const int64_t *xs, int dim)
{
    int64_t os[TNGRT_MAX_DIMS], oc[TNGRT_MAX_DIMS], dd = dim < 0 ? dim + nd : dim;
    for (int d = 0; d < nd; d++)
        os[d] = d == dd ? xs[d] / 2 : xs[d];
    TT *x = tt_seq(tt_shape(dt, nd, xs), 1), *o = tt_shape(dt, nd, os);
    double *ref = dbuf(tt_numel(o));
    for (int64_t i = 0; i < tt_numel(o); i++) {
        double a, b;
        unravel(nd, os, i, oc);
        a = tt_get(x, ravel(nd, xs, oc));
        oc[dd] += os[dd];
        b = tt_get(x, ravel(nd, xs, oc));
        ref[i] = a / (1.0 + exp(-a)) * b;
    }
    tngrt_kernel_swiglu(&o->a, &x->a, dim);
    check(o, ref, tol_of(dt), tol_of(dt) * 1e-2, "swiglu");
    free(ref);
    tt_free(x), tt_free(o);
}

static void test_swiglu(void **state)
{
    int64_t s2[2] = {3, 8}, s3[3] = {4, 2, 3}, h[2] = {2, 6}, big[2] = {2, 46};
    (void)state;
    swiglu_case(TNGRT_F32, 2, s2, -1);
    swiglu_case(TNGRT_F32, 3, s3, 0);
    swiglu_case(TNGRT_F32, 3, s3, 1);
    swiglu_case(TNGRT_F32, 2, big, 1);
    swiglu_case(TNGRT_F16, 2, h, 1);
    swiglu_case(TNGRT_BF16, 3, s3, -3);
}

static TT *tt_vals(TngrtDType dt, int64_t n, const double *v)
{
    TT *t = tt_shape(dt, 1, &n);
    for (int64_t i = 0; i < n; i++)
        tt_set(t, i, v[i]);
    return t;
}

static double t_sat8(double v)
{
    return isnan(v) ? 0.0 : fmin(fmax(v, -128.0), 127.0);
}

/* The exact int accumulator of x1 [.., m, k] @ x2 [.., k, n] at out index
 * oi (batch broadcast through bidx on the matrix grid). */
static double qmm_acc_ref(const TT *x1, const TT *x2, const TT *o, int64_t oi)
{
    int nd = o->a.ndim;
    int64_t m = o->shape[nd - 2], n = o->shape[nd - 1], k = x1->shape[x1->a.ndim - 1];
    int64_t t = oi / (m * n), i = (oi / n) % m, j = oi % n, at = 0, bt = 0, coord[TNGRT_MAX_DIMS];
    int64_t acc = 0;
    unravel(nd - 2, o->shape, t, coord);
    for (int d = 0; d < x1->a.ndim - 2; d++)
        at = at * x1->shape[d] + (x1->shape[d] == 1 ? 0 : coord[d + nd - x1->a.ndim]);
    for (int d = 0; d < x2->a.ndim - 2; d++)
        bt = bt * x2->shape[d] + (x2->shape[d] == 1 ? 0 : coord[d + nd - x2->a.ndim]);
    for (int64_t kk = 0; kk < k; kk++)
        acc += (int64_t)tt_get(x1, (at * m + i) * k + kk) *
               (int64_t)tt_get(x2, (bt * k + kk) * n + j);
    return (double)acc;
}

static void test_quant_matmul_int8(void **state)
{
    static const double sc[5] = {0.5, 0.25, 2.0, 0.1, 1.0}, bi[5] = {1, -2, 3, 100, -100};
    static const double off[1] = {0.5};
    TT *x1 = tt_seq(tt(TNGRT_I8, 2, 3, 7), 1), *x2 = tt_seq(tt(TNGRT_I8, 2, 7, 5), 2);
    TT *o = tt(TNGRT_I8, 2, 3, 5), *s = tt_vals(TNGRT_F32, 5, sc), *b = tt_vals(TNGRT_I32, 5, bi);
    TT *of = tt_vals(TNGRT_F32, 1, off), *s64 = tt(TNGRT_I64, 1, 1), *o32 = tt(TNGRT_I32, 2, 3, 5);
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    double ref[15];
    int ties = 0, sat = 0;
    float q = 0.25f;
    uint32_t qb;
    (void)state;
    for (int i = 0; i < 15; i++) {
        double y = (qmm_acc_ref(x1, x2, o, i) + bi[i % 5]) * (double)(float)sc[i % 5] + 0.5;
        ties += y - floor(y) == 0.5;
        sat += fabs(y) > 128;
        ref[i] = t_sat8(nearbyint(y));
    }
    assert_true(ties > 0 && sat > 0); /* the data exercise both */
    assert_int_equal(tngrt_kernel_quant_matmul(&o->a, &x1->a, &x2->a, &s->a, &of->a, &b->a, NULL,
                                               &err), 0);
    check(o, ref, 0, 0, "quant_matmul int8");
    memcpy(&qb, &q, 4); /* npu_trans_quant_param: float bits in the low 32 bits */
    ((int64_t *)s64->a.data)[0] = (int64_t)(((uint64_t)0x12345u << 32) | qb);
    for (int i = 0; i < 15; i++)
        ref[i] = t_sat8(nearbyint(qmm_acc_ref(x1, x2, o, i) * 0.25));
    assert_int_equal(tngrt_kernel_quant_matmul(&o->a, &x1->a, &x2->a, &s64->a, NULL, NULL, NULL,
                                               &err), 0);
    check(o, ref, 0, 0, "quant_matmul int64 scale");
    for (int i = 0; i < 15; i++)
        ref[i] = qmm_acc_ref(x1, x2, o, i) + bi[i % 5];
    assert_int_equal(tngrt_kernel_quant_matmul(&o32->a, &x1->a, &x2->a, NULL, NULL, &b->a, NULL,
                                               &err), 0);
    check(o32, ref, 0, 0, "quant_matmul int32");
    tt_free(x1), tt_free(x2), tt_free(o), tt_free(s), tt_free(b), tt_free(of), tt_free(s64);
    tt_free(o32);
}

/* Float outputs: acc * scale * pertoken (+ float bias), double -> float -> out. */
static void qmm_float_case(TngrtDType od, int n1, const int64_t *s1, int n2, const int64_t *s2,
                           int on, const int64_t *os, int per_channel, int with_bias)
{
    static const double pt[6] = {1.5, -0.5, 2.0, 0.75, 1.0, -3.0};
    static const double fb[4] = {0.5, -1.25, 3.0, 7.5}, sc[4] = {0.125, 0.3, 0.01, 1.0};
    int64_t n = os[on - 1], rows = 1, pts[TNGRT_MAX_DIMS];
    for (int d = 0; d < on - 1; d++)
        rows *= pts[d] = os[d];
    TT *x1 = tt_seq(tt_shape(TNGRT_I8, n1, s1), 3), *x2 = tt_seq(tt_shape(TNGRT_I8, n2, s2), 4);
    TT *o = tt_shape(od, on, os), *s = tt_vals(TNGRT_BF16, per_channel ? n : 1, sc);
    TT *p = tt_seq(tt_shape(TNGRT_F32, on - 1, pts), 7), *b = tt_vals(TNGRT_F32, n, fb);
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    double *ref = dbuf(tt_numel(o));
    for (int64_t i = 0; i < rows; i++)
        tt_set(p, i, pt[i % 6]);
    for (int64_t i = 0; i < tt_numel(o); i++) {
        double y = qmm_acc_ref(x1, x2, o, i) * tt_get(s, per_channel ? i % n : 0) * pt[(i / n) % 6];
        if (with_bias)
            y += fb[i % n];
        ref[i] = od == TNGRT_F32 ? (double)(float)y : t_wrap(od, (double)(float)y);
    }
    assert_int_equal(tngrt_kernel_quant_matmul(&o->a, &x1->a, &x2->a, &s->a, NULL,
                                               with_bias ? &b->a : NULL, &p->a, &err), 0);
    check(o, ref, 0, 0, "quant_matmul float out");
    free(ref);
    tt_free(x1), tt_free(x2), tt_free(o), tt_free(s), tt_free(p), tt_free(b);
}

static void test_quant_matmul_float(void **state)
{
    int64_t a[2] = {3, 7}, b[2] = {7, 4}, o[2] = {3, 4};
    int64_t a3[3] = {2, 3, 7}, o3[3] = {2, 3, 4}, b3[3] = {2, 7, 4};
    (void)state;
    qmm_float_case(TNGRT_F16, 2, a, 2, b, 2, o, 0, 1);
    qmm_float_case(TNGRT_BF16, 2, a, 2, b, 2, o, 1, 1);
    qmm_float_case(TNGRT_F32, 2, a, 2, b, 2, o, 1, 0);
    qmm_float_case(TNGRT_BF16, 3, a3, 2, b, 3, o3, 1, 0);
    qmm_float_case(TNGRT_F16, 2, a, 3, b3, 3, o3, 0, 1);
    qmm_float_case(TNGRT_F16, 3, a3, 3, b3, 3, o3, 1, 1);
}

static void test_quant_matmul_errors(void **state)
{
    TT *x1 = tt(TNGRT_F32, 2, 3, 7), *x2 = tt(TNGRT_I8, 2, 7, 4), *x8 = tt(TNGRT_I8, 2, 3, 7);
    TT *o = tt(TNGRT_I8, 2, 3, 4), *o64 = tt(TNGRT_I64, 2, 3, 4), *s = tt(TNGRT_F32, 1, 1);
    TT *bad = tt(TNGRT_F32, 1, 3);
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    (void)state;
    assert_int_equal(tngrt_kernel_quant_matmul(&o->a, &x1->a, &x2->a, &s->a, NULL, NULL, NULL,
                                               &err), -1);
    assert_non_null(strstr(err.msg, "int8"));
    assert_non_null(strstr(err.msg, "f32"));
    assert_int_equal(tngrt_kernel_quant_matmul(&o64->a, &x8->a, &x2->a, &s->a, NULL, NULL, NULL,
                                               &err), -1);
    assert_non_null(strstr(err.msg, "output dtype"));
    assert_int_equal(tngrt_kernel_quant_matmul(&o->a, &x8->a, &x2->a, NULL, NULL, NULL, NULL,
                                               &err), -1);
    assert_non_null(strstr(err.msg, "scale"));
    assert_int_equal(tngrt_kernel_quant_matmul(&o->a, &x8->a, &x2->a, &bad->a, NULL, NULL, NULL,
                                               &err), -1);
    assert_non_null(strstr(err.msg, "broadcast"));
    tt_free(x1), tt_free(x2), tt_free(x8), tt_free(o), tt_free(o64), tt_free(s), tt_free(bad);
}

/* npu_dequant_swiglu_quant's operands for the reference below. */
typedef struct DsqIn {
    TT *x, *ws, *act, *bias, *qs, *qo, *gi;
    int left, mode;
} DsqIn;

static float t_silu(float v)
{
    return v / (1.0f + expf(-v));
}

/* Element c of row g of a per-group operand (flat without group_index). */
static float dsq_vec(const TT *v, const DsqIn *in, int64_t g, int64_t c)
{
    int64_t len = in->gi ? v->shape[v->a.ndim - 1] : tt_numel(v);
    return (float)tt_get(v, g * len + (len == 1 ? 0 : c));
}

/* One row of _dequant_swiglu_quant_rows, step by step as in Python. */
static void dsq_ref_row(const DsqIn *in, int64_t r, int64_t g, double *yref, double *sref)
{
    int64_t h2 = in->x->shape[in->x->a.ndim - 1], h = h2 / 2;
    float *xf = calloc((size_t)h2, sizeof *xf), *y = calloc((size_t)h + 1, sizeof *y), rm = 0;
    for (int64_t c = 0; c < h2; c++) {
        double bv = in->bias ? tt_get(in->bias, tt_numel(in->bias) == 1 ? 0 : c) : 0.0;
        if (in->x->a.dtype == TNGRT_I32) {
            double acc = tt_get(in->x, r * h2 + c);
            if (in->bias && in->bias->a.dtype == TNGRT_I32)
                acc += bv;
            if (in->ws)
                acc *= (double)dsq_vec(in->ws, in, g, c);
            if (in->act)
                acc *= tt_get(in->act, tt_numel(in->act) == 1 ? 0 : r);
            if (in->bias && in->bias->a.dtype != TNGRT_I32)
                acc += bv;
            xf[c] = (float)acc;
        } else {
            xf[c] = (float)tt_get(in->x, r * h2 + c) + (float)bv;
        }
    }
    for (int64_t j = 0; j < h; j++) {
        y[j] = in->left ? t_silu(xf[j]) * xf[j + h] : xf[j] * t_silu(xf[j + h]);
        if (in->qs)
            y[j] *= dsq_vec(in->qs, in, g, j);
        rm = fabsf(y[j]) > rm ? fabsf(y[j]) : rm;
    }
    rm = rm < 1e-12f ? 1e-12f : rm;
    for (int64_t j = 0; j < h; j++) {
        float v = y[j];
        if (in->mode == 0 && in->qo)
            v += dsq_vec(in->qo, in, g, j);
        if (in->mode == 1)
            v = v * ((1.0f / rm) * 127.0f);
        yref[r * h + j] = t_sat8(nearbyintf(v));
    }
    sref[r] = in->mode == 0 ? 1.0 : (double)(rm / 127.0f);
    free(xf), free(y);
}

static int dsq_run(const DsqIn *in, TT *y, TT *s, TngrtError *err)
{
    return tngrt_kernel_dequant_swiglu_quant(
        &y->a, &s->a, &in->x->a, in->ws ? &in->ws->a : NULL, in->act ? &in->act->a : NULL,
        in->bias ? &in->bias->a : NULL, in->qs ? &in->qs->a : NULL, in->qo ? &in->qo->a : NULL,
        in->gi ? &in->gi->a : NULL, in->left, in->mode, err);
}

static void dsq_case(const DsqIn *in)
{
    int64_t h2 = in->x->shape[in->x->a.ndim - 1], rows = tt_numel(in->x) / h2, g = 0, left = 0;
    TT *y = tt(TNGRT_I8, 2, (int)rows, (int)(h2 / 2)), *s = tt(TNGRT_F32, 1, (int)rows);
    double *yref = dbuf(rows * h2 / 2), *sref = dbuf(rows);
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    for (int64_t r = 0; r < rows; r++) {
        while (in->gi && left == 0)
            left = (int64_t)tt_get(in->gi, g++);
        left--;
        dsq_ref_row(in, r, in->gi ? g - 1 : 0, yref, sref);
    }
    if (dsq_run(in, y, s, &err) != 0)
        fail_msg("dequant_swiglu_quant failed: %s", err.msg);
    check(y, yref, 0, 0, "dequant_swiglu_quant y");
    check(s, sref, 0, 0, "dequant_swiglu_quant scale");
    free(yref), free(sref);
    tt_free(y), tt_free(s);
}

static TT *tt_scaled(TngrtDType dt, int nd, const int64_t *shape, int seed, double k)
{
    TT *t = tt_seq(tt_shape(dt, nd, shape), seed);
    for (int64_t i = 0; i < tt_numel(t); i++)
        tt_set(t, i, tt_get(t, i) * k + (k < 1 ? 0.03 : 0));
    return t;
}

static void test_dequant_swiglu_quant(void **state)
{
    int64_t x48[2] = {4, 8}, s8[1] = {8}, s4[1] = {4}, x36[2] = {3, 6}, s6[1] = {6}, s3[1] = {3};
    int64_t g38[2] = {3, 8}, g34[2] = {3, 4}, one[1] = {1}, x136[3] = {1, 3, 6};
    static const double counts[3] = {1, 0, 3}, bad_counts[2] = {1, 2};
    (void)state;
    DsqIn a = {tt_scaled(TNGRT_I32, 2, x48, 1, 37), tt_scaled(TNGRT_F32, 1, s8, 2, 0.01),
               tt_scaled(TNGRT_F32, 1, s4, 3, 0.1), tt_seq(tt_shape(TNGRT_I32, 1, s8), 4),
               tt_scaled(TNGRT_F32, 1, s4, 5, 0.5), NULL, NULL, 0, 1};
    dsq_case(&a);
    a.left = 1;
    a.mode = 0;
    dsq_case(&a);
    DsqIn b = {tt_seq(tt_shape(TNGRT_F16, 2, x36), 6), NULL, NULL,
               tt_seq(tt_shape(TNGRT_F32, 1, s6), 7), tt_scaled(TNGRT_F32, 1, s3, 8, 2.0),
               tt_vals(TNGRT_F32, 1, (const double[]){0.5}), NULL, 1, 0};
    dsq_case(&b);
    b.mode = 1;
    dsq_case(&b);
    int64_t w55[2] = {5, 5};
    b.ws = tt_scaled(TNGRT_F32, 2, w55, 15, 0.5); /* float x: weight_scale unused, whatever its shape */
    dsq_case(&b);
    DsqIn c = {tt_scaled(TNGRT_I32, 2, x48, 9, 37), tt_scaled(TNGRT_F32, 2, g38, 10, 0.01),
               tt_scaled(TNGRT_F32, 1, s4, 11, 0.1), NULL, tt_scaled(TNGRT_F32, 2, g34, 12, 0.5),
               NULL, tt_vals(TNGRT_I64, 3, counts), 0, 1};
    dsq_case(&c);
    DsqIn d = {tt_scaled(TNGRT_BF16, 3, x136, 13, 8), NULL, NULL, NULL, NULL,
               tt_seq(tt_shape(TNGRT_F32, 1, one), 14), NULL, 0, 0};
    dsq_case(&d); /* saturates */
    /* errors: bad mode, group counts not adding up, odd last dim, bad scale length */
    TT *y = tt(TNGRT_I8, 2, 4, 4), *s = tt(TNGRT_F32, 1, 4);
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    a.mode = 2;
    assert_int_equal(dsq_run(&a, y, s, &err), -1);
    assert_non_null(strstr(err.msg, "quant_mode"));
    tt_free(c.gi);
    c.gi = tt_vals(TNGRT_I64, 2, bad_counts);
    assert_int_equal(dsq_run(&c, y, s, &err), -1);
    assert_non_null(strstr(err.msg, "group_index"));
    TT *odd = tt(TNGRT_I32, 2, 4, 7), *ws3 = tt(TNGRT_F32, 1, 3);
    DsqIn e = {odd, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0};
    assert_int_equal(dsq_run(&e, y, s, &err), -1);
    e.x = a.x, e.ws = ws3;
    assert_int_equal(dsq_run(&e, y, s, &err), -1);
    assert_non_null(strstr(err.msg, "weight_scale"));
    DsqIn *all[4] = {&a, &b, &c, &d};
    for (int i = 0; i < 4; i++) {
        tt_free(all[i]->x), tt_free(all[i]->ws), tt_free(all[i]->act), tt_free(all[i]->bias);
        tt_free(all[i]->qs), tt_free(all[i]->qo), tt_free(all[i]->gi);
    }
    tt_free(y), tt_free(s), tt_free(odd), tt_free(ws3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f16_corners),
        cmocka_unit_test(test_bf16_corners),
        cmocka_unit_test(test_half_sweeps),
        cmocka_unit_test(test_casts),
        cmocka_unit_test(test_cast_edges),
        cmocka_unit_test(test_unary_float),
        cmocka_unit_test(test_unary_softplus),
        cmocka_unit_test(test_clamp_maximum),
        cmocka_unit_test(test_unary_extremes),
        cmocka_unit_test(test_unary_int),
        cmocka_unit_test(test_binary_dtypes),
        cmocka_unit_test(test_binary_broadcast),
        cmocka_unit_test(test_binary_half_rows),
        cmocka_unit_test(test_binary_mixed),
        cmocka_unit_test(test_binary_inplace),
        cmocka_unit_test(test_binary_scalar),
        cmocka_unit_test(test_fill),
        cmocka_unit_test(test_copy),
        cmocka_unit_test(test_matmul),
        cmocka_unit_test(test_addmm),
        cmocka_unit_test(test_linear),
        cmocka_unit_test(test_permute),
        cmocka_unit_test(test_slice),
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_slice_store),
        cmocka_unit_test(test_cat),
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_softmax),
        cmocka_unit_test(test_layer_norm),
        cmocka_unit_test(test_rms_norm),
        cmocka_unit_test(test_embedding),
        cmocka_unit_test(test_swiglu),
        cmocka_unit_test(test_quant_matmul_int8),
        cmocka_unit_test(test_quant_matmul_float),
        cmocka_unit_test(test_quant_matmul_errors),
        cmocka_unit_test(test_dequant_swiglu_quant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
