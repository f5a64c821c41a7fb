/*
 * tngrt_impl_base.h - the element helpers of libtngcrt's kernel bodies,
 * as static inline functions: dtype conversions (float16 and bfloat16
 * rounded to nearest even) and element access in the float and int64
 * compute types, shapes and broadcast strides, the per-element ops of
 * tngrt_impl_eltwise.h's rows (tngrt_impl__unf, __binf, and their int64
 * forms), the half-precision blocks, scratch allocation.
 *
 * tngrt_kernel_impl.h includes it (its kernels and generated code use
 * these), and kernels_gemm.c includes it alone: the GEMM's packing and
 * epilogues read elements and compute the ops as the separate kernels do,
 * and call nothing of the kernel bodies (which call the GEMM).
 *
 * Helpers are tngrt_impl__*. No globals, no printing.
 */
#ifndef TNGRT_IMPL_BASE_H
#define TNGRT_IMPL_BASE_H

#include "tngrt_kernels.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Kernel bodies and hot helpers: always inlined; `unused` keeps a unit that
 * calls only some of them (or the header compiled alone) warning-free. */
#if defined(__GNUC__) || defined(__clang__)
#define TNGRT_KINLINE static inline __attribute__((always_inline, unused))
#else
#define TNGRT_KINLINE static inline
#endif

#define TNGRT_IMPL__SQRT1_2 0.70710678118654752440f
#define TNGRT_IMPL__SQRT2_PI 0.79788456080286535588f

/* ===================== dtype conversions, element access ===================== */

TNGRT_KINLINE float tngrt_impl__bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

TNGRT_KINLINE uint32_t tngrt_impl__f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* v / 2^s rounded to nearest, ties to even (1 <= s <= 31). */
TNGRT_KINLINE uint32_t tngrt_impl__rne_shr(uint32_t v, unsigned s)
{
    uint32_t q = v >> s, rem = v & ((1u << s) - 1u), half = 1u << (s - 1u);
    return q + (uint32_t)(rem > half || (rem == half && (q & 1u)));
}

/* IEEE binary16 -> binary32 (exact; NaN payloads kept), with no branch so
 * that loops over it vectorise (checked equal to the branching form for
 * all 2^16 inputs). */
TNGRT_KINLINE float tngrt_impl__f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    /* zero or subnormal: man units of 2^-24, exact in float */
    uint32_t sub = tngrt_impl__f32_bits((float)man * 0x1p-24f) | sign;
    uint32_t special = sign | 0x7f800000u | (man << 13);
    uint32_t normal = sign | ((exp + 112u) << 23) | (man << 13);
    return tngrt_impl__bits_f32(exp == 0 ? sub : exp == 31 ? special : normal);
}

/* binary32 -> binary16, round to nearest even; overflow gives inf, NaN a
 * quiet NaN of the same sign. Every case is computed and one selected, with
 * no branch, so that loops over it vectorise (checked equal to the
 * branching form for all 2^32 inputs). */
TNGRT_KINLINE uint16_t tngrt_impl__f32_to_f16(float f)
{
    uint32_t x = tngrt_impl__f32_bits(f), ax = x & 0x7fffffffu;
    uint32_t sign = (x >> 16) & 0x8000u;
    /* a normal half: rebias, drop 13 bits, round to nearest even */
    uint32_t normal = tngrt_impl__rne_shr(ax - 0x38000000u, 13);
    /* a subnormal half: units of 2^-24, the shift clamped to stay defined */
    uint32_t sh = 126u - (ax >> 23);
    uint32_t sub = tngrt_impl__rne_shr((ax & 0x7fffffu) | 0x800000u,
                                       sh < 1u ? 1u : sh > 31u ? 31u : sh);
    uint32_t r = ax > 0x7f800000u   ? 0x7e00u
                 : ax >= 0x477ff000u ? 0x7c00u  /* >= 65520: rounds to inf */
                 : ax >= 0x38800000u ? normal
                 : ax < 0x33000000u  ? 0u       /* below 2^-25: zero */
                                     : sub;
    return (uint16_t)(sign | r);
}

TNGRT_KINLINE float tngrt_impl__bf16_to_f32(uint16_t h)
{
    return tngrt_impl__bits_f32((uint32_t)h << 16);
}

/* binary32 -> bfloat16, round to nearest even; NaN stays a quiet NaN. */
TNGRT_KINLINE uint16_t tngrt_impl__f32_to_bf16(float f)
{
    uint32_t x = tngrt_impl__f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

static inline const char *tngrt_impl__dtype_name(TngrtDType dt)
{
    switch (dt) {
    case TNGRT_F32: return "f32";
    case TNGRT_F16: return "f16";
    case TNGRT_BF16: return "bf16";
    case TNGRT_I8: return "i8";
    case TNGRT_I32: return "i32";
    case TNGRT_I64: return "i64";
    case TNGRT_BOOL: return "bool";
    default: return "?";
    }
}

TNGRT_KINLINE int tngrt_impl__is_float(TngrtDType dt)
{
    return dt == TNGRT_F32 || dt == TNGRT_F16 || dt == TNGRT_BF16;
}

TNGRT_KINLINE size_t tngrt_impl__esize(TngrtDType dt)
{
    switch (dt) {
    case TNGRT_F32: case TNGRT_I32: return 4;
    case TNGRT_F16: case TNGRT_BF16: return 2;
    case TNGRT_I64: return 8;
    default: return 1;
    }
}

/* Two's complement reinterpretation of u without implementation-defined
 * conversions (compiles to nothing). */
TNGRT_KINLINE int64_t tngrt_impl__wrap(uint64_t u)
{
    return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
}

/* Float -> int64 truncating toward zero; NaN gives 0, out of range clamps. */
TNGRT_KINLINE int64_t tngrt_impl__f2i(double v)
{
    if (v != v)
        return 0;
    if (v >= 9223372036854775808.0)
        return INT64_MAX;
    if (v < -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)v;
}

/* Element i of a as float (the float compute type). */
TNGRT_KINLINE float tngrt_impl__ldf(const TngrtArg *a, int64_t i)
{
    switch (a->dtype) {
    case TNGRT_F32: return ((const float *)a->data)[i];
    case TNGRT_F16: return tngrt_impl__f16_to_f32(((const uint16_t *)a->data)[i]);
    case TNGRT_BF16: return tngrt_impl__bf16_to_f32(((const uint16_t *)a->data)[i]);
    case TNGRT_I8: return (float)((const int8_t *)a->data)[i];
    case TNGRT_I32: return (float)((const int32_t *)a->data)[i];
    case TNGRT_I64: return (float)((const int64_t *)a->data)[i];
    case TNGRT_BOOL: return ((const uint8_t *)a->data)[i] != 0;
    default: return 0.0f;
    }
}

/* Element i of a as int64 (the integer compute type). */
TNGRT_KINLINE int64_t tngrt_impl__ldi(const TngrtArg *a, int64_t i)
{
    switch (a->dtype) {
    case TNGRT_I8: return ((const int8_t *)a->data)[i];
    case TNGRT_I32: return ((const int32_t *)a->data)[i];
    case TNGRT_I64: return ((const int64_t *)a->data)[i];
    case TNGRT_BOOL: return ((const uint8_t *)a->data)[i] != 0;
    default: return tngrt_impl__f2i((double)tngrt_impl__ldf(a, i));
    }
}

/* Element i of a as double (exact for every dtype but large int64). */
TNGRT_KINLINE double tngrt_impl__ldd(const TngrtArg *a, int64_t i)
{
    if (tngrt_impl__is_float(a->dtype))
        return (double)tngrt_impl__ldf(a, i);
    return (double)tngrt_impl__ldi(a, i);
}

/* The low `bits` bits of v as a signed value (two's complement wrap). */
TNGRT_KINLINE int64_t tngrt_impl__low(int64_t v, unsigned bits)
{
    uint64_t m = (1ull << bits) - 1u, u = (uint64_t)v & m;
    return u > (m >> 1) ? (int64_t)u - (int64_t)m - 1 : (int64_t)u;
}

/* Stores int64 v as element i of a (wrapping to integer widths). */
TNGRT_KINLINE void tngrt_impl__sti(const TngrtArg *a, int64_t i, int64_t v)
{
    switch (a->dtype) {
    case TNGRT_F32: ((float *)a->data)[i] = (float)v; break;
    case TNGRT_F16: ((uint16_t *)a->data)[i] = tngrt_impl__f32_to_f16((float)v); break;
    case TNGRT_BF16: ((uint16_t *)a->data)[i] = tngrt_impl__f32_to_bf16((float)v); break;
    case TNGRT_I8: ((int8_t *)a->data)[i] = (int8_t)tngrt_impl__low(v, 8); break;
    case TNGRT_I32: ((int32_t *)a->data)[i] = (int32_t)tngrt_impl__low(v, 32); break;
    case TNGRT_I64: ((int64_t *)a->data)[i] = v; break;
    case TNGRT_BOOL: ((uint8_t *)a->data)[i] = v != 0; break;
    default: break;
    }
}

/* Stores float v as element i of a (rounded once; truncated for ints). */
TNGRT_KINLINE void tngrt_impl__stf(const TngrtArg *a, int64_t i, float v)
{
    switch (a->dtype) {
    case TNGRT_F32: ((float *)a->data)[i] = v; break;
    case TNGRT_F16: ((uint16_t *)a->data)[i] = tngrt_impl__f32_to_f16(v); break;
    case TNGRT_BF16: ((uint16_t *)a->data)[i] = tngrt_impl__f32_to_bf16(v); break;
    case TNGRT_BOOL: ((uint8_t *)a->data)[i] = v != 0.0f; break;
    default: tngrt_impl__sti(a, i, tngrt_impl__f2i((double)v)); break;
    }
}

/* ===================== shapes ===================== */

TNGRT_KINLINE int64_t tngrt_impl__numel(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= shape[d];
    return n;
}

TNGRT_KINLINE int tngrt_impl__rank_ok(const TngrtArg *a)
{
    return a->ndim >= 0 && a->ndim <= TNGRT_MAX_DIMS;
}

/* Normalises a possibly negative dim of a rank-nd tensor; -1 if invalid. */
TNGRT_KINLINE int tngrt_impl__dim(int dim, int nd)
{
    if (dim < 0)
        dim += nd;
    return dim >= 0 && dim < nd ? dim : -1;
}

/* Element strides of a dense C-order operand of rank nda (extents sa)
 * right-aligned with nd dims: dims it lacks or has as 1 get stride 0. */
static inline void tngrt_impl__bstrides(int nda, const int64_t *sa, int nd, int64_t *st)
{
    int64_t s = 1;
    for (int d = nd - 1; d >= 0; d--) {
        int ad = d - (nd - nda);
        if (ad < 0 || sa[ad] == 1) {
            st[d] = 0;
            continue;
        }
        st[d] = s;
        s *= sa[ad];
    }
}

/* ===================== elementwise: the per-element ops ===================== */

TNGRT_KINLINE float tngrt_impl__exp(float y);

TNGRT_KINLINE float tngrt_impl__sigmoid(float x)
{
    float e = tngrt_impl__exp(-fabsf(x));   /* never overflows */
    return x >= 0.0f ? 1.0f / (1.0f + e) : e / (1.0f + e);
}

TNGRT_KINLINE float tngrt_impl__silu(float x)
{
    return x / (1.0f + tngrt_impl__exp(-x));
}

/* exp(y) for any float y, branch-free so that loops over it vectorise
 * (libm's expf is a call per element): y = n ln2 + r with |r| <= ln2/2 (n
 * rounded by the 1.5 * 2^23 trick, ln2 in two parts), a degree-7 Taylor
 * polynomial of e^r (truncation below 1e-8), and 2^n as two factors built
 * from exponent bits, so that overflow gives inf and underflow denormals or
 * 0 as the product's rounding has them. Relative error 9.2e-8 at most,
 * measured against double exp over every normal result; NaN stays NaN. */
TNGRT_KINLINE float tngrt_impl__exp(float y)
{
    const float round = 12582912.0f;
    union {
        float f;
        int32_t i;
    } s1, s2;
    /* the clamp as compares (one max and one min instruction; fmaxf and
     * fminf add NaN fix-ups): the same c, -104 for a NaN y */
    float c = y > -104.0f ? y : -104.0f, n, r, p;
    c = c < 89.0f ? c : 89.0f;
    int32_t ni, h;
    n = (c * 1.44269504f + round) - round;
    r = (c - n * 0.693359375f) + n * 2.12194440e-4f;
    p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 +
        r * (1.0f / 720 + r * (1.0f / 5040)))))));
    ni = (int32_t)n;
    h = ni / 2;
    s1.i = (h + 127) * (1 << 23);
    s2.i = (ni - h + 127) * (1 << 23);
    p = p * s1.f * s2.f;
    return y != y ? y : p;
}

/* erf(x) by Abramowitz and Stegun's formula 7.1.26 (absolute error below
 * 1.5e-7), the one PyTorch's vectorised CPU erf uses, so GELU matches its
 * reference closely and vectorises (libm's erff does neither). */
TNGRT_KINLINE float tngrt_impl__erf(float x)
{
    float a = fabsf(x);
    float t = 1.0f / (1.0f + 0.3275911f * a);
    float q = t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f +
              t * (-1.453152027f + t * 1.061405429f))));
    return copysignf(1.0f - q * tngrt_impl__exp(-a * a), x);
}

/* tanh(x), branch-free so that loops over it vectorise (libm's tanhf is a
 * call per element): for |x| < 0.625 an odd polynomial x P(x^2) (P fitted
 * by least squares on Chebyshev nodes, relative error 1.5e-10 in exact
 * arithmetic), above 1 - 2 / (e^{2|x|} + 1) with the vectorised exp, sign
 * restored; measured within 2e-7 relative of double tanh. NaN stays NaN;
 * large |x| gives +-1 (e^{2|x|} overflows to inf). */
TNGRT_KINLINE float tngrt_impl__tanh(float x)
{
    float a = fabsf(x), t = x * x;
    float p = x * (0.9999999999f + t * (-0.3333332960f + t * (0.1333317997f +
              t * (-0.05394439278f + t * (0.02169032684f + t * (-0.008155733864f +
              t * 0.002125637814f))))));
    float big = copysignf(1.0f - 2.0f / (tngrt_impl__exp(2.0f * a) + 1.0f), x);
    return a < 0.625f ? p : x != x ? x : big;
}

/* erf(x) accurate to float32 (torch.erf's), branch-free: for |x| < 1 the
 * odd polynomial x P(x^2) (fitted as tanh's, relative error 1.3e-9), above
 * Abramowitz and Stegun's 7.1.26 (absolute error 1.5e-7 where erf >= 0.84,
 * so relative 1.8e-7). */
TNGRT_KINLINE float tngrt_impl__erf_acc(float x)
{
    float t = x * x;
    float p = x * (1.128379166f + t * (-0.3761262557f + t * (0.1128358225f +
              t * (-0.02685369110f + t * (0.005188098890f + t * (-0.0008008189324f +
              t * 0.00007847259131f))))));
    return fabsf(x) < 1.0f ? p : tngrt_impl__erf(x);
}

/* log(x), branch-free so that loops over it vectorise: x = 2^e m with m in
 * [sqrt(1/2), sqrt(2)) from the exponent bits (subnormals scaled by 2^23
 * first), log m = 2 atanh(f) with f = (m - 1) / (m + 1), |f| <= 0.172, by
 * its odd series to f^11 (truncation 3e-10), e ln 2 added in two parts.
 * Relative error within 2 float32 ulps; log(0) = -inf, log(x < 0) = NaN,
 * log(inf) = inf, NaN stays NaN (as logf). */
TNGRT_KINLINE float tngrt_impl__log(float x)
{
    int sub = x < 1.17549435e-38f;
    float xs = sub ? x * 8388608.0f : x;
    uint32_t u = tngrt_impl__f32_bits(xs);
    int32_t e = (int32_t)((u >> 23) & 0xffu) - 127 - (sub ? 23 : 0);
    float m = tngrt_impl__bits_f32((u & 0x7fffffu) | 0x3f800000u);
    int hi = m > 1.41421356f;
    float m2 = hi ? m * 0.5f : m, ef = (float)(e + hi);
    float f = (m2 - 1.0f) / (m2 + 1.0f), f2 = f * f;
    float s = f2 * (1.0f / 3 + f2 * (1.0f / 5 + f2 * (1.0f / 7 + f2 * (1.0f / 9 +
              f2 * (1.0f / 11)))));
    float r = ((2.0f * f + 2.0f * f * s) - ef * 2.12194440e-4f) + ef * 0.693359375f;
    return x > 0.0f && x < INFINITY ? r : x == 0.0f ? -INFINITY : x == INFINITY ? x
                                                        : x != x ? x : NAN;
}

TNGRT_KINLINE float tngrt_impl__gelu(float x)
{
    return 0.5f * x * (1.0f + tngrt_impl__erf(x * TNGRT_IMPL__SQRT1_2));
}

TNGRT_KINLINE float tngrt_impl__gelu_tanh(float x)
{
    float inner = TNGRT_IMPL__SQRT2_PI * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + tngrt_impl__tanh(inner));
}

/* sign(x): -1, 0 or 1; 0 for NaN, as torch.sign */
TNGRT_KINLINE float tngrt_impl__sign(float x)
{
    return (float)((x > 0.0f) - (x < 0.0f));
}

/* softplus(x) with beta b and threshold t, as torch computes it: x where
 * b x > t, else log1p(exp(b x)) / b */
TNGRT_KINLINE float tngrt_impl__softplus(float x, float b, float t)
{
    float z = x * b;
    return z > t ? x : log1pf(expf(z)) / b;
}

/* hardswish(x) = x * min(max(x + 3, 0), 6) / 6, in torch's order */
TNGRT_KINLINE float tngrt_impl__hardswish(float x)
{
    return x * fminf(fmaxf(x + 3.0f, 0.0f), 6.0f) / 6.0f;
}

/* mish(x) = x * tanh(softplus(x)), softplus without a threshold (torch's) */
TNGRT_KINLINE float tngrt_impl__mish(float x)
{
    return x * tanhf(log1pf(expf(x)));
}

/* clamp(x, lo, hi) as torch: min(max(x, lo), hi) (hi when lo > hi); a NaN
 * x stays NaN */
TNGRT_KINLINE float tngrt_impl__clamp(float x, float lo, float hi)
{
    float t = x < lo ? lo : x;
    return t > hi ? hi : t;
}

/* A unary op in the float compute type. round is rintf in the default
 * rounding mode (to nearest, halves to even, as torch.round); erf is
 * tngrt_impl__erf_acc here, more accurate than tngrt_impl__erf (GELU's);
 * tanh, log and exp are the vectorisable forms above. */
TNGRT_KINLINE float tngrt_impl__unf(TngrtUnaryOp op, float x, float p, float q)
{
    (void)p, (void)q;
    switch (op) {
#define TNGRT_UNARY(name, f, i) case TNGRT_UN_##name: return (f);
#define TNGRT_BINARY(name, f, i)
#include "tngrt_impl_eltwise.h"
#undef TNGRT_UNARY
#undef TNGRT_BINARY
    }
    return x;   /* not reached: op is not a TngrtUnaryOp */
}

/* Floor division; x / 0 is 0 and INT64_MIN / -1 wraps. */
TNGRT_KINLINE int64_t tngrt_impl__floordiv(int64_t a, int64_t b)
{
    int64_t q;
    if (b == 0)
        return 0;
    if (b == -1)
        return tngrt_impl__wrap(0u - (uint64_t)a);
    q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* a ** b in int64, wrapping as PyTorch's integer pow (square and multiply);
 * b < 0: 1 / a truncated toward zero (1, -1 or 0; 0 ** negative is 0). */
TNGRT_KINLINE int64_t tngrt_impl__powi(int64_t a, int64_t b)
{
    uint64_t r = 1, x = (uint64_t)a;
    if (b < 0)
        return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
    for (; b; b >>= 1, x *= x)
        if (b & 1)
            r *= x;
    return tngrt_impl__wrap(r);
}

/* clamp in int64: min(max(x, lo), hi) */
TNGRT_KINLINE int64_t tngrt_impl__clampi(int64_t x, int64_t lo, int64_t hi)
{
    x = x < lo ? lo : x;
    return x > hi ? hi : x;
}

/* Whether op has an exact int64 form (tngrt_impl_eltwise.h's INT column). */
TNGRT_KINLINE int tngrt_impl__un_is_int(TngrtUnaryOp op, double p)
{
    (void)p;
    switch (op) {
#define TNGRT_INT(e) 1
#define TNGRT_INT_IF(c, e) (c)
#define TNGRT_FLOAT_ONLY 0
#define TNGRT_UNARY(name, f, i) case TNGRT_UN_##name: return i;
#define TNGRT_BINARY(name, f, i)
#include "tngrt_impl_eltwise.h"
#undef TNGRT_UNARY
#undef TNGRT_BINARY
#undef TNGRT_INT
#undef TNGRT_INT_IF
#undef TNGRT_FLOAT_ONLY
    }
    return 0;   /* not reached: op is not a TngrtUnaryOp */
}

/* A unary op in the int64 compute type, wrapping, where un_is_int says it
 * has one (a TNGRT_FLOAT_ONLY row gives x: never asked); the bounds of
 * the clamps (p, q) are integers. */
TNGRT_KINLINE int64_t tngrt_impl__uni(TngrtUnaryOp op, int64_t x, double p, double q)
{
    int64_t lo = tngrt_impl__f2i(p), hi = tngrt_impl__f2i(q);
    (void)lo, (void)hi;
    switch (op) {
#define TNGRT_INT(e) (e)
#define TNGRT_INT_IF(c, e) (e)
#define TNGRT_FLOAT_ONLY x
#define TNGRT_UNARY(name, f, i) case TNGRT_UN_##name: return i;
#define TNGRT_BINARY(name, f, i)
#include "tngrt_impl_eltwise.h"
#undef TNGRT_UNARY
#undef TNGRT_BINARY
#undef TNGRT_INT
#undef TNGRT_INT_IF
#undef TNGRT_FLOAT_ONLY
    }
    return x;   /* not reached: op is not a TngrtUnaryOp */
}

TNGRT_KINLINE float tngrt_impl__binf(TngrtBinaryOp op, float a, float b, float alpha)
{
    switch (op) {
#define TNGRT_UNARY(name, f, i)
#define TNGRT_BINARY(name, f, i) case TNGRT_BIN_##name: return (f);
#include "tngrt_impl_eltwise.h"
#undef TNGRT_UNARY
#undef TNGRT_BINARY
    }
    return a;   /* not reached: op is not a TngrtBinaryOp */
}

TNGRT_KINLINE int64_t tngrt_impl__bini(TngrtBinaryOp op, int64_t a, int64_t b, int64_t alpha)
{
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    (void)ua, (void)ub, (void)alpha;
    switch (op) {
#define TNGRT_UNARY(name, f, i)
#define TNGRT_BINARY(name, f, i) case TNGRT_BIN_##name: return (i);
#include "tngrt_impl_eltwise.h"
#undef TNGRT_UNARY
#undef TNGRT_BINARY
    }
    return a;   /* not reached: op is not a TngrtBinaryOp */
}

/* Half-precision (float16, bfloat16) elementwise ops on operands of the
 * output's shape go by blocks: each block widened to float32, computed by
 * the float32 loops, rounded back once per element. The results are those
 * of the per-element path (the same float32 operations and one rounding),
 * without its dtype switch per element. */
#define TNGRT_IMPL__HBLOCK 256

TNGRT_KINLINE int tngrt_impl__is_half(TngrtDType dt)
{
    return dt == TNGRT_F16 || dt == TNGRT_BF16;
}

TNGRT_KINLINE void tngrt_impl__widen(float *t, const TngrtArg *a, int64_t off, int64_t n)
{
    const uint16_t *h = (const uint16_t *)a->data + off;
    if (a->dtype == TNGRT_F16)
        for (int64_t i = 0; i < n; i++)
            t[i] = tngrt_impl__f16_to_f32(h[i]);
    else
        for (int64_t i = 0; i < n; i++)
            t[i] = tngrt_impl__bf16_to_f32(h[i]);
}

/* m half values (float16 if f16, else bfloat16) at h, s apart, widened
 * into t; one loop per type and the contiguous case apart, so that each
 * vectorises. */
TNGRT_KINLINE void tngrt_impl__widen_strided(float *restrict t, const uint16_t *h, int64_t s,
                                             int64_t m, int f16)
{
    if (f16 && s == 1)
        for (int64_t j = 0; j < m; j++)
            t[j] = tngrt_impl__f16_to_f32(h[j]);
    else if (f16)
        for (int64_t j = 0; j < m; j++)
            t[j] = tngrt_impl__f16_to_f32(h[j * s]);
    else if (s == 1)
        for (int64_t j = 0; j < m; j++)
            t[j] = tngrt_impl__bf16_to_f32(h[j]);
    else
        for (int64_t j = 0; j < m; j++)
            t[j] = tngrt_impl__bf16_to_f32(h[j * s]);
}

TNGRT_KINLINE void tngrt_impl__narrow(const TngrtArg *o, int64_t off, const float *t, int64_t n)
{
    uint16_t *h = (uint16_t *)o->data + off;
    if (o->dtype == TNGRT_F16)
        for (int64_t i = 0; i < n; i++)
            h[i] = tngrt_impl__f32_to_f16(t[i]);
    else
        for (int64_t i = 0; i < n; i++)
            h[i] = tngrt_impl__f32_to_bf16(t[i]);
}

/* ===================== scratch ===================== */

/* malloc of n elements of size es, or NULL (also for n <= 0 or overflow). */
static inline void *tngrt_impl__alloc(int64_t n, size_t es)
{
    if (n <= 0 || (uint64_t)n > SIZE_MAX / es)
        return NULL;
    return malloc((size_t)n * es);
}

/* A malloc'd float32 copy of x's n elements, or NULL. */
TNGRT_KINLINE float *tngrt_impl__to_f32(const TngrtArg *x, int64_t n)
{
    float *f = (float *)tngrt_impl__alloc(n, sizeof(float));
    if (f && tngrt_impl__is_half(x->dtype))
        tngrt_impl__widen(f, x, 0, n);
    for (int64_t i = 0; f && !tngrt_impl__is_half(x->dtype) && i < n; i++)
        f[i] = tngrt_impl__ldf(x, i);
    return f;
}

#endif
