/*
 * aclsim_ops.c - aclsim's reference loops: each aclnn operator as CANN's
 * aclnn API reference defines it (its parameters in CANN 8.1.RC1's order,
 * tests/acl/cann/include/aclnnop), written as plain loops over the operands'
 * views - dims, strides and offset in elements, FRACTAL_NZ storage read
 * through its layout - and not with libtngcrt's kernels, so that a wrong
 * argument, attribute or dtype in the op table (codegen/acl_ops.c) gives a
 * wrong number.
 *
 * Every element is read into a long double (exact for every integer dtype
 * and float type used) and each result is rounded to the output's dtype:
 * a float16 or bfloat16 result first to float32 (the operators compute
 * half types in float32, as PyTorch's CPU kernels do), then to nearest
 * even; a float stored into
 * an integer dtype truncates toward zero, into bool is "nonzero".
 * Reductions accumulate in long double, matmuls in double.
 */
#include "aclsim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef long double R;

/* ---- dtypes ---- */

size_t sim_dtype_bytes(aclDataType t)
{
    switch (t) {
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 2;
    case ACL_INT64: case ACL_DOUBLE: case ACL_UINT64: return 8;
    default: return 4;
    }
}

int sim_dtype_is_float(aclDataType t)
{
    return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16 || t == ACL_DOUBLE;
}

static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 1024), e - 25);
    return h & 0x8000 ? -v : v;
}

/* Round to nearest even, through the magnitude's binary expansion. */
static uint16_t float_to_half(double v)
{
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    double a = fabs(v), q;
    int e;
    if (isnan(v))
        return 0x7e00;
    if (a >= 65520.0)
        return sign | 0x7c00;
    if (a < ldexp(1, -14)) {   /* subnormal: units of 2^-24 */
        q = nearbyint(ldexp(a, 24));
        return sign | (uint16_t)q;
    }
    frexp(a, &e);              /* a = f * 2^e, f in [0.5, 1) */
    q = nearbyint(ldexp(a, 11 - e));   /* 11 significant bits */
    if (q >= 2048) {
        q /= 2;
        e++;
    }
    return sign | (uint16_t)(((e + 14) << 10) | ((int)q & 1023));
}

static float bf16_to_float(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Round to nearest even from the double (8 significant bits). */
static uint16_t float_to_bf16(double v)
{
    double a = fabs(v), q;
    int e;
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    if (isnan(v))
        return 0x7fc0;
    if (a == 0)
        return sign;
    if (a >= ldexp(255.0 / 128.0 + 1.0 / 256.0, 127))   /* past the largest bf16 plus half an ulp */
        return sign | 0x7f80;
    if (a < ldexp(1, -126)) {
        q = nearbyint(ldexp(a, 133));
        return sign | (uint16_t)q;
    }
    frexp(a, &e);
    q = nearbyint(ldexp(a, 8 - e));
    if (q >= 256) {
        q /= 2;
        e++;
    }
    return sign | (uint16_t)(((e + 126) << 7) | ((int)q & 127));
}

static R get(aclDataType dt, const char *p)
{
    switch (dt) {
    case ACL_FLOAT: { float v; memcpy(&v, p, 4); return v; }
    case ACL_FLOAT16: { uint16_t v; memcpy(&v, p, 2); return half_to_float(v); }
    case ACL_BF16: { uint16_t v; memcpy(&v, p, 2); return bf16_to_float(v); }
    case ACL_DOUBLE: { double v; memcpy(&v, p, 8); return v; }
    case ACL_INT64: { int64_t v; memcpy(&v, p, 8); return (R)v; }
    case ACL_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case ACL_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case ACL_INT8: return (signed char)*p;
    case ACL_UINT8: return (unsigned char)*p;
    case ACL_BOOL: return *p != 0;
    default: return 0;
    }
}

static void put(aclDataType dt, char *p, R v)
{
    switch (dt) {
    case ACL_FLOAT: { float f = (float)v; memcpy(p, &f, 4); break; }
    case ACL_FLOAT16: { uint16_t h = float_to_half((double)(float)v); memcpy(p, &h, 2); break; }
    case ACL_BF16: { uint16_t h = float_to_bf16((double)(float)v); memcpy(p, &h, 2); break; }
    case ACL_DOUBLE: { double d = (double)v; memcpy(p, &d, 8); break; }
    case ACL_INT64: { int64_t i = isnan(v) ? 0 : (int64_t)v; memcpy(p, &i, 8); break; }
    case ACL_INT32: { int32_t i = isnan(v) ? 0 : (int32_t)(int64_t)v; memcpy(p, &i, 4); break; }
    case ACL_INT16: { int16_t i = (int16_t)(int64_t)v; memcpy(p, &i, 2); break; }
    case ACL_INT8: *p = (char)(signed char)(int64_t)v; break;
    case ACL_UINT8: *p = (char)(unsigned char)(int64_t)v; break;
    case ACL_BOOL: *p = v != 0; break;
    default: break;
    }
}

/* ---- views ---- */

int64_t sim_numel(const SimTensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->nd; d++)
        n *= t->dims[d];
    return n;
}

static int is_nz(const SimTensor *t)
{
    return t->fmt == ACL_FORMAT_FRACTAL_NZ;
}

void sim_span(const SimTensor *t, char **lo, char **hi)
{
    size_t es = sim_dtype_bytes(t->dt);
    int64_t last = 0;
    if (sim_numel(t) == 0) {
        *lo = *hi = t->data;
        return;
    }
    if (is_nz(t)) {
        int64_t n = 1;
        for (int d = 0; d < t->snd; d++)
            n *= t->sdims[d];
        *lo = t->data + t->offset * (int64_t)es;
        *hi = *lo + n * (int64_t)es;
        return;
    }
    for (int d = 0; d < t->nd; d++)
        last += (t->dims[d] - 1) * t->strides[d];
    *lo = t->data + t->offset * (int64_t)es;
    *hi = *lo + (last + 1) * (int64_t)es;
}

/* The element at index idx[0..nd) of the view. FRACTAL_NZ: the view
 * [..., h, w] is stored [..., ceil(w/w0), ceil(h/16), 16, w0]; a 2-D view
 * with strides (1, k) is the transpose of the stored matrix. */
static char *at(const SimTensor *t, const int64_t *idx)
{
    size_t es = sim_dtype_bytes(t->dt);
    int64_t off = t->offset;
    if (is_nz(t)) {
        int nd = t->nd, tr = nd == 2 && t->strides[0] == 1 && t->strides[1] != 1 && t->dims[0] > 1;
        int64_t w0 = es == 1 ? 32 : 16, i = nd >= 2 ? idx[nd - 2] : 0, j = idx[nd - 1], tmp, h1, w1, batch = 0;
        if (tr) {
            tmp = i;
            i = j;
            j = tmp;
        }
        h1 = t->sdims[t->snd - 3];
        w1 = t->sdims[t->snd - 4];
        for (int d = 0; d < nd - 2; d++)
            batch = batch * t->dims[d] + idx[d];
        off += batch * w1 * h1 * 16 * w0 + ((j / w0) * h1 + i / 16) * 16 * w0 + (i % 16) * w0 + j % w0;
        return t->data + off * (int64_t)es;
    }
    for (int d = 0; d < t->nd; d++)
        off += idx[d] * t->strides[d];
    return t->data + off * (int64_t)es;
}

/* The element of t that index idx of an nd-dim result broadcasts from. */
static char *at_b(const SimTensor *t, const int64_t *idx, int nd)
{
    int64_t j[SIM_MAX_DIMS];
    for (int d = 0; d < t->nd; d++) {
        int k = d + nd - t->nd;
        j[d] = k < 0 || t->dims[d] == 1 ? 0 : idx[k];
    }
    return at(t, j);
}

static R rd(const SimTensor *t, const int64_t *idx, int nd)
{
    return get(t->dt, at_b(t, idx, nd));
}

static void wr(const SimTensor *t, const int64_t *idx, R v)
{
    put(t->dt, at(t, idx), v);
}

/* The next index of dims[0..nd) in C order; 0 after the last. */
static int next(int64_t *idx, const int64_t *dims, int nd)
{
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < dims[d])
            return 1;
        idx[d] = 0;
    }
    return 0;
}

long double sim_rd(const SimTensor *t, const int64_t *idx, int nd)
{
    return rd(t, idx, nd);
}

void sim_wr(const SimTensor *t, const int64_t *idx, long double v)
{
    wr(t, idx, v);
}

int sim_next(int64_t *idx, const int64_t *dims, int nd)
{
    return next(idx, dims, nd);
}

#define EACH(idx, t) for (int64_t idx[SIM_MAX_DIMS] = {0}, idx##_go = sim_numel(t) > 0; idx##_go; idx##_go = next(idx, (t)->dims, (t)->nd))

static int fail(char *err, size_t n, const char *what)
{
    snprintf(err, n, "%s", what);
    return -1;
}

/* ---- arguments ---- */

#define T(k) (&op->a[k].t)
#define HAS(k) (op->a[k].present)
#define SC(k) ((R)op->a[k].d)
#define INT(k) (op->a[k].i)

/* ---- elementwise ---- */

enum { U_ABS, U_NEG, U_EXP, U_EXP2, U_EXPM1, U_LOG, U_LOG2, U_LOG1P, U_SQRT, U_RSQRT, U_SIN, U_COS, U_TANH, U_SIGMOID,
       U_RELU, U_SILU, U_ERF, U_RECIP, U_FLOOR, U_CEIL, U_ROUND, U_SIGN, U_MISH, U_HARDSWISH, U_NOT, U_ISFINITE,
       U_ISINF, U_BNOT };

static R unary(int f, R x, aclDataType dt)
{
    double v = (double)x;
    switch (f) {
    case U_ABS: return fabsl(x);
    case U_NEG: return -x;
    case U_EXP: return exp(v);
    case U_EXP2: return exp2(v);
    case U_EXPM1: return expm1(v);
    case U_LOG: return log(v);
    case U_LOG2: return log2(v);
    case U_LOG1P: return log1p(v);
    case U_SQRT: return sqrt(v);
    case U_RSQRT: return 1 / sqrt(v);
    case U_SIN: return sin(v);
    case U_COS: return cos(v);
    case U_TANH: return tanh(v);
    case U_SIGMOID: return 1 / (1 + exp(-v));
    case U_RELU: return x > 0 ? x : 0;
    case U_SILU: return v / (1 + exp(-v));
    case U_ERF: return erf(v);
    case U_RECIP: return 1 / x;
    case U_FLOOR: return floorl(x);
    case U_CEIL: return ceill(x);
    case U_ROUND: return nearbyintl(x);
    case U_SIGN: return x > 0 ? 1 : x < 0 ? -1 : x;
    case U_MISH: return v * tanh(v > 20 ? v : log1p(exp(v)));
    case U_HARDSWISH: return x * (x + 3 < 0 ? 0 : x + 3 > 6 ? 6 : x + 3) / 6;
    case U_NOT: return x == 0;
    case U_ISFINITE: return isfinite(v);
    case U_ISINF: return isinf(v) != 0;
    case U_BNOT: return dt == ACL_BOOL ? x == 0 : (R)~(int64_t)x;
    }
    return 0;
}

static const struct { const char *name; int f; } unaries[] = {
    {"aclnnAbs", U_ABS}, {"aclnnNeg", U_NEG}, {"aclnnExp", U_EXP}, {"aclnnExp2", U_EXP2}, {"aclnnExpm1", U_EXPM1},
    {"aclnnLog", U_LOG}, {"aclnnLog2", U_LOG2}, {"aclnnLog1p", U_LOG1P}, {"aclnnSqrt", U_SQRT},
    {"aclnnRsqrt", U_RSQRT}, {"aclnnSin", U_SIN}, {"aclnnCos", U_COS}, {"aclnnTanh", U_TANH},
    {"aclnnSigmoid", U_SIGMOID}, {"aclnnRelu", U_RELU}, {"aclnnSilu", U_SILU}, {"aclnnErf", U_ERF},
    {"aclnnReciprocal", U_RECIP}, {"aclnnFloor", U_FLOOR}, {"aclnnCeil", U_CEIL}, {"aclnnRound", U_ROUND},
    {"aclnnSign", U_SIGN}, {"aclnnMish", U_MISH}, {"aclnnHardswish", U_HARDSWISH}, {"aclnnLogicalNot", U_NOT},
    {"aclnnIsFinite", U_ISFINITE}, {"aclnnIsInf", U_ISINF}, {"aclnnBitwiseNot", U_BNOT},
};

/* (self, out): out = f(self) */
static int k_unary(const SimOp *op, char *err, size_t n)
{
    int f = -1;
    for (size_t i = 0; i < sizeof unaries / sizeof *unaries; i++)
        if (!strcmp(unaries[i].name, op->name))
            f = unaries[i].f;
    if (f < 0)
        return fail(err, n, "no unary function");
    EACH(i, T(1))
        wr(T(1), i, unary(f, rd(T(0), i, T(1)->nd), T(0)->dt));
    return 0;
}

enum { B_ADD, B_SUB, B_RSUB, B_MUL, B_DIV, B_MAX, B_MIN, B_POW, B_EQ, B_NE, B_GT, B_GE, B_LT, B_LE, B_AND, B_OR,
       B_XOR, B_BAND, B_BOR, B_BXOR };

static R binary(int f, R a, R b, R alpha)
{
    switch (f) {
    case B_ADD: return a + alpha * b;
    case B_SUB: return a - alpha * b;
    case B_RSUB: return b - alpha * a;
    case B_MUL: return a * b;
    case B_DIV: return a / b;
    case B_MAX: return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
    case B_MIN: return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
    case B_POW: return pow((double)a, (double)b);
    case B_EQ: return a == b;
    case B_NE: return a != b;
    case B_GT: return a > b;
    case B_GE: return a >= b;
    case B_LT: return a < b;
    case B_LE: return a <= b;
    case B_AND: return a != 0 && b != 0;
    case B_OR: return a != 0 || b != 0;
    case B_XOR: return (a != 0) != (b != 0);
    case B_BAND: return (R)((int64_t)a & (int64_t)b);
    case B_BOR: return (R)((int64_t)a | (int64_t)b);
    case B_BXOR: return (R)((int64_t)a ^ (int64_t)b);
    }
    return 0;
}

/* The operand layouts of the binary operators: tensor-tensor (self, other,
 * out), with alpha (self, other, alpha, out), tensor-scalar likewise,
 * scalar-tensor (self scalar, exponent, out), in place (selfRef, other). */
enum { L_TT, L_TTA, L_TS, L_TSA, L_ST, L_IS };

static const struct { const char *name; int f, layout; } binaries[] = {
    {"aclnnAdd", B_ADD, L_TTA}, {"aclnnAdds", B_ADD, L_TSA}, {"aclnnSub", B_SUB, L_TTA},
    {"aclnnSubs", B_SUB, L_TSA}, {"aclnnRsubs", B_RSUB, L_TSA}, {"aclnnMul", B_MUL, L_TT},
    {"aclnnMuls", B_MUL, L_TS}, {"aclnnInplaceMuls", B_MUL, L_IS}, {"aclnnDiv", B_DIV, L_TT},
    {"aclnnDivs", B_DIV, L_TS}, {"aclnnMaximum", B_MAX, L_TT}, {"aclnnMinimum", B_MIN, L_TT},
    {"aclnnPowTensorTensor", B_POW, L_TT}, {"aclnnPowTensorScalar", B_POW, L_TS},
    {"aclnnPowScalarTensor", B_POW, L_ST}, {"aclnnEqTensor", B_EQ, L_TT}, {"aclnnEqScalar", B_EQ, L_TS},
    {"aclnnNeTensor", B_NE, L_TT}, {"aclnnNeScalar", B_NE, L_TS}, {"aclnnGtTensor", B_GT, L_TT},
    {"aclnnGtScalar", B_GT, L_TS}, {"aclnnGeTensor", B_GE, L_TT}, {"aclnnGeScalar", B_GE, L_TS},
    {"aclnnLtTensor", B_LT, L_TT}, {"aclnnLtScalar", B_LT, L_TS}, {"aclnnLeTensor", B_LE, L_TT},
    {"aclnnLeScalar", B_LE, L_TS}, {"aclnnLogicalAnd", B_AND, L_TT}, {"aclnnLogicalOr", B_OR, L_TT},
    {"aclnnLogicalXor", B_XOR, L_TT}, {"aclnnBitwiseAndTensor", B_BAND, L_TT},
    {"aclnnBitwiseOrTensor", B_BOR, L_TT}, {"aclnnBitwiseXorTensor", B_BXOR, L_TT},
};

/* A floating result computed from float16/bfloat16 operands rounds each
 * operand's value once: the loop reads them exactly, so nothing to do. */
static int k_binary(const SimOp *op, char *err, size_t n)
{
    int f = -1, l = 0;
    const SimTensor *out;
    for (size_t i = 0; i < sizeof binaries / sizeof *binaries; i++)
        if (!strcmp(binaries[i].name, op->name))
            f = binaries[i].f, l = binaries[i].layout;
    if (f < 0)
        return fail(err, n, "no binary function");
    out = l == L_TT || l == L_TS || l == L_ST ? T(2) : l == L_IS ? T(0) : T(3);
    EACH(i, out) {
        R a = l == L_ST ? SC(0) : rd(T(0), i, out->nd);
        R b = l == L_TT || l == L_TTA || l == L_ST ? rd(T(1), i, out->nd) : SC(1);
        R alpha = l == L_TTA || l == L_TSA ? SC(2) : 1;
        wr(out, i, binary(f, a, b, alpha));
    }
    return 0;
}

/* aclnnSWhere(condition, self, other, out) */
static int k_where(const SimOp *op, char *err, size_t n)
{
    (void)err, (void)n;
    EACH(i, T(3))
        wr(T(3), i, rd(T(0), i, T(3)->nd) != 0 ? rd(T(1), i, T(3)->nd) : rd(T(2), i, T(3)->nd));
    return 0;
}

/* aclnnClamp(self, min?, max?, out), aclnnClampMin(self, min, out), aclnnClampMax(self, max, out) */
static int k_clamp(const SimOp *op, char *err, size_t n)
{
    int lo = !strcmp(op->name, "aclnnClampMax") ? -1 : 1, hi = !strcmp(op->name, "aclnnClampMin") ? -1 : lo == 1 ? 2 : 1;
    const SimTensor *out = T(op->n - 1);
    (void)err, (void)n;
    EACH(i, out) {
        R x = rd(T(0), i, out->nd);
        if (lo > 0 && HAS(lo) && !isnan(x) && x < SC(lo))
            x = SC(lo);
        if (hi > 0 && HAS(hi) && !isnan(x) && x > SC(hi))
            x = SC(hi);
        wr(out, i, x);
    }
    return 0;
}

/* aclnnLeakyRelu(self, negativeSlope, out) */
static int k_leaky_relu(const SimOp *op, char *err, size_t n)
{
    (void)err, (void)n;
    EACH(i, T(2)) {
        R x = rd(T(0), i, T(2)->nd);
        wr(T(2), i, x > 0 ? x : x * SC(1));
    }
    return 0;
}

/* aclnnSoftplus(self, beta, threshold, out): x when beta * x > threshold */
static int k_softplus(const SimOp *op, char *err, size_t n)
{
    (void)err, (void)n;
    EACH(i, T(3)) {
        double x = (double)rd(T(0), i, T(3)->nd), b = (double)SC(1);
        wr(T(3), i, b * x > (double)SC(2) ? x : log1p(exp(b * x)) / b);
    }
    return 0;
}

/* aclnnGeluV2(x, approximate, y): 0 erf, 1 tanh */
static int k_gelu(const SimOp *op, char *err, size_t n)
{
    (void)err, (void)n;
    EACH(i, T(2)) {
        double x = (double)rd(T(0), i, T(2)->nd);
        double y = INT(1) == 1 ? 0.5 * x * (1 + tanh(sqrt(2 / acos(-1.0)) * (x + 0.044715 * x * x * x)))
                               : 0.5 * x * (1 + erf(x / sqrt(2)));
        wr(T(2), i, y);
    }
    return 0;
}

/* aclnnCast(self, dtype, out); aclnnInplaceCopy(selfRef, src): src broadcast */
static int k_cast(const SimOp *op, char *err, size_t n)
{
    (void)err, (void)n;
    EACH(i, T(2))
        wr(T(2), i, rd(T(0), i, T(2)->nd));
    return 0;
}

static int k_copy(const SimOp *op, char *err, size_t n)
{
    R *tmp;
    int64_t k = 0, cnt = sim_numel(T(0));
    (void)err, (void)n;
    /* through a buffer: the two views may overlap */
    if (!(tmp = malloc((size_t)(cnt ? cnt : 1) * sizeof *tmp)))
        return fail(err, n, "out of memory");
    EACH(i, T(0))
        tmp[k++] = rd(T(1), i, T(0)->nd);
    k = 0;
    EACH(i, T(0))
        wr(T(0), i, tmp[k++]);
    free(tmp);
    return 0;
}

/* aclnnInplaceFillScalar(selfRef, value) */
static int k_fill(const SimOp *op, char *err, size_t n)
{
    (void)err, (void)n;
    EACH(i, T(0))
        wr(T(0), i, SC(1));
    return 0;
}

/* aclnnInplaceMaskedFillScalar(selfRef, mask, value) */
static int k_masked_fill(const SimOp *op, char *err, size_t n)
{
    (void)err, (void)n;
    EACH(i, T(0))
        if (rd(T(1), i, T(0)->nd) != 0)
            wr(T(0), i, SC(2));
    return 0;
}

/* aclnnArange(start, end, step, out): out[i] = start + i * step */
static int k_arange(const SimOp *op, char *err, size_t n)
{
    (void)err, (void)n;
    EACH(i, T(3))
        wr(T(3), i, SC(0) + (R)i[0] * SC(2));
    return 0;
}

/* ---- matmuls ---- */

/* out[b] = alpha * a[b] @ m[b] (+ beta * bias), of views broadcast over
 * the batch dims; a 1-D a is [1, k], a 1-D m is [k, 1] (torch.matmul's
 * rule). Each batch's operands are read into double matrices first, and
 * each dot product is summed in double in k order. */
static int matmul(const SimTensor *a, const SimTensor *m, const SimTensor *out, const SimTensor *bias, R beta, R alpha,
                  char *err, size_t n)
{
    int na = a->nd, nm = m->nd, no = out->nd, nb = no - (na >= 2) - (nm >= 2);
    int64_t K = a->dims[na - 1], Km = nm >= 2 ? m->dims[nm - 2] : m->dims[0];
    int64_t M = na >= 2 ? a->dims[na - 2] : 1, N = nm >= 2 ? m->dims[nm - 1] : 1;
    SimTensor batch = {0};
    double *A, *B, *C;
    if (K != Km)
        return snprintf(err, n, "matmul: self's last dim %lld, mat2's %lld", (long long)K, (long long)Km), -1;
    batch.nd = nb;
    for (int d = 0; d < nb; d++)
        batch.dims[d] = out->dims[d];
    A = malloc((size_t)(M * K + 1) * sizeof *A);
    B = malloc((size_t)(K * N + 1) * sizeof *B);
    C = malloc((size_t)(M * N + 1) * sizeof *C);
    if (!A || !B || !C) {
        free(A), free(B), free(C);
        return fail(err, n, "out of memory");
    }
    EACH(bi, &batch) {
        int64_t ia[SIM_MAX_DIMS] = {0}, im[SIM_MAX_DIMS] = {0}, o[SIM_MAX_DIMS] = {0};
        for (int d = 0; d < na - 2; d++) {
            int k = d + nb - (na - 2);
            ia[d] = a->dims[d] == 1 || k < 0 ? 0 : bi[k];
        }
        for (int d = 0; d < nm - 2; d++) {
            int k = d + nb - (nm - 2);
            im[d] = m->dims[d] == 1 || k < 0 ? 0 : bi[k];
        }
        for (int64_t r = 0; r < M; r++)
            for (int64_t k = 0; k < K; k++) {
                if (na >= 2)
                    ia[na - 2] = r;
                ia[na - 1] = k;
                A[r * K + k] = (double)get(a->dt, at(a, ia));
            }
        for (int64_t k = 0; k < K; k++)
            for (int64_t c = 0; c < N; c++) {
                im[nm >= 2 ? nm - 2 : 0] = k;
                if (nm >= 2)
                    im[nm - 1] = c;
                B[k * N + c] = (double)get(m->dt, at(m, im));
            }
        for (int64_t i = 0; i < M * N; i++)
            C[i] = 0;
        for (int64_t r = 0; r < M; r++)
            for (int64_t k = 0; k < K; k++) {
                double x = A[r * K + k];
                const double *brow = B + k * N;
                double *crow = C + r * N;
                for (int64_t c = 0; c < N; c++)
                    crow[c] += x * brow[c];
            }
        for (int d = 0; d < nb; d++)
            o[d] = bi[d];
        for (int64_t r = 0; r < M; r++)
            for (int64_t c = 0; c < N; c++) {
                R v = alpha * (R)C[r * N + c];
                if (na >= 2)
                    o[nb] = r;
                if (nm >= 2)
                    o[no - 1] = c;
                if (bias)
                    v += beta * rd(bias, o, no);
                wr(out, o, v);
            }
    }
    free(A), free(B), free(C);
    return 0;
}

/* aclnnMm / aclnnMatmul / aclnnBatchMatMul(self, mat2, out, cubeMathType) */
static int k_matmul(const SimOp *op, char *err, size_t n)
{
    return matmul(T(0), T(1), T(2), NULL, 0, 1, err, n);
}

/* aclnnAddmm(self, mat1, mat2, beta, alpha, out, cubeMathType):
 * out = beta * self + alpha * (mat1 @ mat2) */
static int k_addmm(const SimOp *op, char *err, size_t n)
{
    return matmul(T(1), T(2), T(5), T(0), SC(3), SC(4), err, n);
}

/* ---- reductions ---- */

/* The reduced dims of in (an int array, negative from the end; none: all). */
static void reduced(const SimTensor *in, const SimVal *dims, int *red)
{
    for (int d = 0; d < in->nd; d++)
        red[d] = !dims->present || dims->n == 0;
    for (int k = 0; dims->present && k < dims->n; k++) {
        int64_t d = dims->ia[k] < 0 ? dims->ia[k] + in->nd : dims->ia[k];
        if (d >= 0 && d < in->nd)
            red[d] = 1;
    }
}

/* The output element an input index reduces into, given the out's dims. */
static int64_t red_slot(const SimTensor *in, const int *red, const int64_t *i, const SimTensor *out)
{
    int64_t slot = 0;
    int k = 0;
    for (int d = 0; d < in->nd; d++) {
        if (red[d] && out->nd < in->nd)
            continue;
        slot = slot * out->dims[k] + (red[d] ? 0 : i[d]);
        k++;
    }
    return slot;
}

enum { RD_SUM, RD_MEAN, RD_MAX, RD_MIN, RD_ANY, RD_ALL, RD_PROD };

static int reduce(const SimTensor *in, const int *red, const SimTensor *out, int f, char *err, size_t n)
{
    int64_t cnt = sim_numel(out), per = 1, k = 0;
    R *acc = calloc((size_t)(cnt ? cnt : 1), sizeof *acc);
    int64_t *seen = calloc((size_t)(cnt ? cnt : 1), sizeof *seen);
    if (!acc || !seen) {
        free(acc), free(seen);
        return fail(err, n, "out of memory");
    }
    for (int d = 0; d < in->nd; d++)
        per *= red[d] ? in->dims[d] : 1;
    EACH(i, in) {
        int64_t s = red_slot(in, red, i, out);
        R x = get(in->dt, at(in, i));
        if (!seen[s]++)
            acc[s] = f == RD_SUM || f == RD_MEAN ? x : f == RD_ANY ? x != 0 : f == RD_ALL ? x != 0 : x;
        else if (f == RD_SUM || f == RD_MEAN)
            acc[s] += x;
        else if (f == RD_PROD)
            acc[s] *= x;
        else if (f == RD_MAX)
            acc[s] = isnan(acc[s]) || isnan(x) ? NAN : x > acc[s] ? x : acc[s];
        else if (f == RD_MIN)
            acc[s] = isnan(acc[s]) || isnan(x) ? NAN : x < acc[s] ? x : acc[s];
        else if (f == RD_ANY)
            acc[s] = acc[s] != 0 || x != 0;
        else
            acc[s] = acc[s] != 0 && x != 0;
    }
    EACH(o, out) {
        R v = acc[k];
        if (!seen[k])
            v = f == RD_PROD || f == RD_ALL ? 1 : f == RD_MEAN ? NAN : 0;
        wr(out, o, f == RD_MEAN ? v / (R)per : v);
        k++;
    }
    free(acc);
    free(seen);
    return 0;
}

/* aclnnReduceSum(self, dims, keepDims, dtype, out), aclnnMean(self, dim,
 * keepDim, dtype, out), aclnnAmax / aclnnAmin / aclnnAny / aclnnAll(self,
 * dim, keep, out) */
static int k_reduce(const SimOp *op, char *err, size_t n)
{
    int red[SIM_MAX_DIMS];
    const char *nm = op->name;
    int f = !strcmp(nm, "aclnnReduceSum") ? RD_SUM : !strcmp(nm, "aclnnMean") ? RD_MEAN
          : !strcmp(nm, "aclnnAmax") ? RD_MAX : !strcmp(nm, "aclnnAmin") ? RD_MIN
          : !strcmp(nm, "aclnnAny") ? RD_ANY : RD_ALL;
    reduced(T(0), &op->a[1], red);
    return reduce(T(0), red, T(op->n - 1), f, err, n);
}

/* aclnnProdDim(self, dim, keepDim, dtype, out) */
static int k_prod(const SimOp *op, char *err, size_t n)
{
    int red[SIM_MAX_DIMS] = {0};
    int64_t d = INT(1) < 0 ? INT(1) + T(0)->nd : INT(1);
    if (d >= 0 && d < T(0)->nd)
        red[d] = 1;
    return reduce(T(0), red, T(4), RD_PROD, err, n);
}

/* Runs body over every line of in along dim d: base is the line's first
 * index (idx[d] = 0), len its length. */
#define LINES(in, d, base) \
    for (int64_t base[SIM_MAX_DIMS] = {0}, base##_go = sim_numel(in) > 0; base##_go; base##_go = next_line(base, (in), (d)))

static int next_line(int64_t *idx, const SimTensor *t, int skip)
{
    for (int d = t->nd - 1; d >= 0; d--) {
        if (d == skip)
            continue;
        if (++idx[d] < t->dims[d])
            return 1;
        idx[d] = 0;
    }
    return 0;
}

static int dim_of(int64_t d, int nd)
{
    return (int)(d < 0 ? d + nd : d);
}

/* aclnnSoftmax / aclnnLogSoftmax(self, dim, out) */
static int k_softmax(const SimOp *op, char *err, size_t n)
{
    const SimTensor *x = T(0), *y = T(2);
    int d = dim_of(INT(1), x->nd), lg = !strcmp(op->name, "aclnnLogSoftmax");
    (void)err, (void)n;
    if (x->nd == 0) {
        int64_t z[1] = {0};
        wr(y, z, lg ? 0 : 1);
        return 0;
    }
    LINES(x, d, b) {
        int64_t i[SIM_MAX_DIMS];
        R mx = -INFINITY, sum = 0;
        memcpy(i, b, sizeof i);
        for (i[d] = 0; i[d] < x->dims[d]; i[d]++) {
            R v = get(x->dt, at(x, i));
            mx = v > mx ? v : mx;
        }
        for (i[d] = 0; i[d] < x->dims[d]; i[d]++)
            sum += exp((double)(get(x->dt, at(x, i)) - mx));
        for (i[d] = 0; i[d] < x->dims[d]; i[d]++) {
            R v = get(x->dt, at(x, i)) - mx;
            wr(y, i, lg ? v - log((double)sum) : exp((double)v) / sum);
        }
    }
    return 0;
}

/* aclnnCumsum(self, dim, dtype, out) */
static int k_cumsum(const SimOp *op, char *err, size_t n)
{
    const SimTensor *x = T(0), *y = T(3);
    int d = dim_of(INT(1), x->nd);
    (void)err, (void)n;
    LINES(x, d, b) {
        int64_t i[SIM_MAX_DIMS];
        R s = 0;
        memcpy(i, b, sizeof i);
        for (i[d] = 0; i[d] < x->dims[d]; i[d]++) {
            s += get(x->dt, at(x, i));
            wr(y, i, s);
        }
    }
    return 0;
}

/* aclnnArgMax / aclnnArgMin(self, dim, keepdim, out), aclnnMaxDim /
 * aclnnMinDim(self, dim, keepdim, out, indices): the first extremum */
static int k_argext(const SimOp *op, char *err, size_t n)
{
    const SimTensor *x = T(0), *vals = op->n == 5 ? T(3) : NULL, *idxs = op->n == 5 ? T(4) : T(3);
    int d = dim_of(INT(1), x->nd), mx = strstr(op->name, "Max") != NULL;
    (void)err, (void)n;
    LINES(x, d, b) {
        int64_t i[SIM_MAX_DIMS], o[SIM_MAX_DIMS], best = 0, k = 0;
        R bv = 0;
        memcpy(i, b, sizeof i);
        for (i[d] = 0; i[d] < x->dims[d]; i[d]++) {
            R v = get(x->dt, at(x, i));
            if (i[d] == 0 || (!isnan(bv) && (isnan(v) || (mx ? v > bv : v < bv)))) {
                bv = v;
                best = i[d];
            }
        }
        for (int e = 0; e < x->nd; e++)
            if (e != d || idxs->nd == x->nd)
                o[k++] = e == d ? 0 : b[e];
        wr(idxs, o, (R)best);
        if (vals)
            wr(vals, o, bv);
    }
    return 0;
}

/* ---- normalisations ---- */

/* aclnnLayerNorm(input, normalizedShape, weight?, bias?, eps, out, mean?, rstd?) */
static int k_layer_norm(const SimOp *op, char *err, size_t n)
{
    const SimTensor *x = T(0), *w = HAS(2) ? T(2) : NULL, *bi = HAS(3) ? T(3) : NULL, *y = T(5);
    int nn = op->a[1].n, lead = x->nd - nn;
    int64_t inner = 1, outer = 1;
    R eps = (R)op->a[4].d;
    (void)err, (void)n;
    for (int d = 0; d < x->nd; d++)
        *(d < lead ? &outer : &inner) *= x->dims[d];
    for (int64_t r = 0; r < outer; r++) {
        int64_t i[SIM_MAX_DIMS] = {0}, rem = r;
        R mean = 0, var = 0, rstd;
        for (int d = lead - 1; d >= 0; d--) {
            i[d] = rem % x->dims[d];
            rem /= x->dims[d];
        }
        for (int pass = 0; pass < 3; pass++) {
            int64_t j[SIM_MAX_DIMS];
            memcpy(j, i, sizeof j);
            for (int d = lead; d < x->nd; d++)
                j[d] = 0;
            rstd = 1 / sqrtl(var + eps);
            for (int64_t c = 0; c < inner; c++) {
                R v = get(x->dt, at(x, j));
                if (pass == 0)
                    mean += v / (R)inner;
                else if (pass == 1)
                    var += (v - mean) * (v - mean) / (R)inner;
                else
                    wr(y, j, (v - mean) * rstd * (w ? rd(w, j + lead, nn) : 1) + (bi ? rd(bi, j + lead, nn) : 0));
                next(j + lead, x->dims + lead, nn);
            }
        }
        if (HAS(6) && lead >= 0)
            wr(T(6), i, mean);
        if (HAS(7) && lead >= 0)
            wr(T(7), i, 1 / sqrtl(var + eps));
    }
    return 0;
}

/* aclnnRmsNorm(x, gamma, epsilon, yOut, rstdOut); aclnnAddRmsNorm(x1, x2,
 * gamma, epsilon, yOut, rstdOut, xOut): x = x1 + x2 first, in float32 (the
 * norm uses that sum; xOut is it rounded to x1's dtype) */
static int k_rms_norm(const SimOp *op, char *err, size_t n)
{
    int add = op->n == 7;
    const SimTensor *x = T(0), *g = T(add ? 2 : 1), *y = T(add ? 4 : 3), *rs = T(add ? 5 : 4);
    int ng = g->nd, lead = x->nd - ng;
    int64_t inner = 1, outer = 1;
    R eps = (R)op->a[add ? 3 : 2].d;
    (void)err, (void)n;
    for (int d = 0; d < x->nd; d++)
        *(d < lead ? &outer : &inner) *= x->dims[d];
    for (int64_t r = 0; r < outer; r++) {
        int64_t i[SIM_MAX_DIMS] = {0}, rem = r;
        R ss = 0, rstd = 0;
        for (int d = lead - 1; d >= 0; d--) {
            i[d] = rem % x->dims[d];
            rem /= x->dims[d];
        }
        for (int pass = 0; pass < 2; pass++) {
            int64_t j[SIM_MAX_DIMS];
            memcpy(j, i, sizeof j);
            for (int d = lead; d < x->nd; d++)
                j[d] = 0;
            rstd = 1 / sqrtl(ss / (R)inner + eps);
            for (int64_t c = 0; c < inner; c++) {
                R v = get(x->dt, at(x, j));
                if (add) {   /* the float32 sum, xOut that rounded to x's dtype */
                    v = (float)(v + get(T(1)->dt, at(T(1), j)));
                    if (pass == 0)
                        wr(T(6), j, v);
                }
                if (pass == 0)
                    ss += v * v;
                else
                    wr(y, j, v * rstd * rd(g, j + lead, ng));
                next(j + lead, x->dims + lead, ng);
            }
        }
        if (rs->nd == x->nd) {
            for (int d = lead; d < x->nd; d++)
                i[d] = 0;
            wr(rs, i, rstd);
        }
    }
    return 0;
}

/* aclnnBatchNorm(input, weight?, bias?, runningMean, runningVar, training,
 * momentum, eps, output, saveMean?, saveInvstd?): per channel (dim 1), the
 * running statistics in inference; in training the batch's (biased
 * variance), the running ones updated with the unbiased variance */
static int k_batch_norm(const SimOp *op, char *err, size_t n)
{
    const SimTensor *x = T(0), *y = T(8);
    int64_t C = x->nd > 1 ? x->dims[1] : 1, cnt = x->nd ? sim_numel(x) / (C ? C : 1) : 1;
    R eps = (R)op->a[7].d, mom = (R)op->a[6].d;
    R *sum = calloc((size_t)(C ? C : 1), sizeof *sum), *sq = calloc((size_t)(C ? C : 1), sizeof *sq);
    if (!sum || !sq) {
        free(sum), free(sq);
        return fail(err, n, "out of memory");
    }
    EACH(i, x) {
        R v = get(x->dt, at(x, i));
        sum[x->nd > 1 ? i[1] : 0] += v;
    }
    EACH(i, x) {
        int64_t c = x->nd > 1 ? i[1] : 0;
        R d = get(x->dt, at(x, i)) - sum[c] / (R)cnt;
        sq[c] += d * d;
    }
    for (int64_t c = 0; c < C; c++) {
        int64_t k[1] = {c};
        R mean = op->a[5].i ? sum[c] / (R)cnt : get(T(3)->dt, at(T(3), k));
        R var = op->a[5].i ? sq[c] / (R)cnt : get(T(4)->dt, at(T(4), k));
        if (op->a[5].i) {
            wr(T(3), k, (1 - mom) * get(T(3)->dt, at(T(3), k)) + mom * mean);
            wr(T(4), k, (1 - mom) * get(T(4)->dt, at(T(4), k)) + mom * (cnt > 1 ? sq[c] / (R)(cnt - 1) : var));
        }
        if (HAS(9))
            wr(T(9), k, mean);
        if (HAS(10))
            wr(T(10), k, 1 / sqrtl(var + eps));
        sum[c] = mean;
        sq[c] = 1 / sqrtl(var + eps);
    }
    EACH(i, x) {
        int64_t c = x->nd > 1 ? i[1] : 0, k[1] = {c};
        R v = (get(x->dt, at(x, i)) - sum[c]) * sq[c];
        if (HAS(1))
            v *= get(T(1)->dt, at(T(1), k));
        if (HAS(2))
            v += get(T(2)->dt, at(T(2), k));
        wr(y, i, v);
    }
    free(sum), free(sq);
    return 0;
}

/* aclnnGroupNorm(self, gamma?, beta?, N, C, HxW, group, eps, out, meanOut?,
 * rstdOut?): self as [N, C, HxW], statistics per (n, group) */
static int k_group_norm(const SimOp *op, char *err, size_t n)
{
    const SimTensor *x = T(0), *y = T(8);
    int64_t N = INT(3), C = INT(4), HW = INT(5), G = INT(6), cpg;
    R eps = (R)op->a[7].d;
    if (G < 1 || C % G || sim_numel(x) != N * C * HW)
        return fail(err, n, "N, C, HxW and group do not fit the input");
    cpg = C / G;
    for (int64_t b = 0; b < N; b++)
        for (int64_t g = 0; g < G; g++) {
            R mean = 0, var = 0, rstd;
            int64_t k2[2] = {b, g};
            for (int pass = 0; pass < 3; pass++) {
                rstd = 1 / sqrtl(var + eps);
                for (int64_t c = g * cpg; c < (g + 1) * cpg; c++)
                    for (int64_t e = 0; e < HW; e++) {
                        int64_t lin = (b * C + c) * HW + e, i[SIM_MAX_DIMS], k[1] = {c};
                        R v;
                        for (int d = x->nd - 1; d >= 0; d--) {
                            i[d] = lin % x->dims[d];
                            lin /= x->dims[d];
                        }
                        v = get(x->dt, at(x, i));
                        if (pass == 0)
                            mean += v / (R)(cpg * HW);
                        else if (pass == 1)
                            var += (v - mean) * (v - mean) / (R)(cpg * HW);
                        else
                            wr(y, i, (v - mean) * rstd * (HAS(1) ? get(T(1)->dt, at(T(1), k)) : 1) +
                                         (HAS(2) ? get(T(2)->dt, at(T(2), k)) : 0));
                    }
            }
            if (HAS(9))
                wr(T(9), k2, mean);
            if (HAS(10))
                wr(T(10), k2, rstd);
        }
    return 0;
}

/* ---- pooling (the last two dims) ---- */

enum { P_MAX, P_AVG, P_ADAPTIVE };

/* One pooling window of x at output index o (the last two dims replaced):
 * rows [h0, h1) and columns [w0, w1) of the input, step dh and dw; pads
 * left outside are skipped (max: -inf; avg: not counted unless the divisor
 * says so). */
static R pool_window(const SimTensor *x, const int64_t *o, int f, int64_t h0, int64_t h1, int64_t dh, int64_t w0,
                     int64_t w1, int64_t dw, R divisor)
{
    int nd = x->nd;
    int64_t i[SIM_MAX_DIMS];
    R acc = f == P_MAX ? -INFINITY : 0;
    int64_t cnt = 0;
    memcpy(i, o, sizeof i);
    for (int64_t h = h0; h < h1; h += dh)
        for (int64_t w = w0; w < w1; w += dw) {
            R v;
            if (h < 0 || w < 0 || h >= x->dims[nd - 2] || w >= x->dims[nd - 1])
                continue;
            i[nd - 2] = h;
            i[nd - 1] = w;
            v = get(x->dt, at(x, i));
            if (f == P_MAX)
                acc = isnan(v) || isnan(acc) ? NAN : v > acc ? v : acc;
            else
                acc += v;
            cnt++;
        }
    return f == P_MAX ? acc : acc / (divisor > 0 ? divisor : (R)cnt);
}

/* aclnnMaxPool(self, kernelShape, strides, autoPad, pads (begins, ends),
 * dilations, ceilMode, out); aclnnAvgPool2d(self, kernelSize, strides,
 * paddings, ceilMode, countIncludePad, divisorOverride, cubeMathType, out);
 * aclnnAdaptiveAvgPool2d(self, outputSize, out): the window of output row
 * r is [r * H / OH, ceil((r + 1) * H / OH)) */
static int k_pool(const SimOp *op, char *err, size_t n)
{
    int f = !strcmp(op->name, "aclnnMaxPool") ? P_MAX : !strcmp(op->name, "aclnnAvgPool2d") ? P_AVG : P_ADAPTIVE;
    const SimTensor *x = T(0), *y = T(f == P_MAX ? 7 : f == P_AVG ? 8 : 2);
    int nd = x->nd;
    const SimVal *k = &op->a[1], *st = &op->a[2], *pd = &op->a[f == P_MAX ? 4 : 3];
    if (nd < 2 || y->nd != nd || (f != P_ADAPTIVE && (k->n < 1 || st->n < 1 || pd->n < 1)))
        return fail(err, n, "operands of unexpected ranks");
    EACH(o, y) {
        int64_t r = o[nd - 2], c = o[nd - 1], H = x->dims[nd - 2], W = x->dims[nd - 1];
        R v;
        if (f == P_ADAPTIVE) {
            int64_t OH = y->dims[nd - 2], OW = y->dims[nd - 1];
            v = pool_window(x, o, P_AVG, r * H / OH, ((r + 1) * H + OH - 1) / OH, 1, c * W / OW,
                            ((c + 1) * W + OW - 1) / OW, 1, 0);
        } else {
            int64_t kh = k->ia[0], kw = k->ia[k->n > 1], sh = st->ia[0], sw = st->ia[st->n > 1];
            int64_t ph = pd->ia[0], pw = pd->ia[pd->n > 1];
            int64_t dh = f == P_MAX && op->a[5].n ? op->a[5].ia[0] : 1;
            int64_t dw = f == P_MAX && op->a[5].n ? op->a[5].ia[op->a[5].n > 1] : 1;
            int64_t h0 = r * sh - ph, w0 = c * sw - pw;
            R div = 0;
            if (f == P_AVG && op->a[6].i)
                div = (R)op->a[6].i;
            else if (f == P_AVG && op->a[5].i) {   /* count_include_pad: the window within the padded input */
                int64_t he = h0 + kh < H + ph ? h0 + kh : H + ph, we = w0 + kw < W + pw ? w0 + kw : W + pw;
                div = (R)((he - h0) * (we - w0));
            }
            v = pool_window(x, o, f, h0, h0 + (kh - 1) * dh + 1, dh, w0, w0 + (kw - 1) * dw + 1, dw, div);
        }
        wr(y, o, v);
    }
    return 0;
}

/* aclnnAdaptiveMaxPool2d(self, outputSize, outputOut, indicesOut): the
 * adaptive windows' maxima, and where each is (h * W + w, the first) */
static int k_adaptive_max(const SimOp *op, char *err, size_t n)
{
    const SimTensor *x = T(0), *y = T(2), *ix = T(3);
    int nd = x->nd;
    (void)err, (void)n;
    EACH(o, y) {
        int64_t H = x->dims[nd - 2], W = x->dims[nd - 1], OH = y->dims[nd - 2], OW = y->dims[nd - 1];
        int64_t r = o[nd - 2], c = o[nd - 1], i[SIM_MAX_DIMS], best = -1;
        R m = -INFINITY;
        memcpy(i, o, sizeof i);
        for (int64_t h = r * H / OH; h < ((r + 1) * H + OH - 1) / OH; h++)
            for (int64_t w = c * W / OW; w < ((c + 1) * W + OW - 1) / OW; w++) {
                R v;
                i[nd - 2] = h;
                i[nd - 1] = w;
                v = get(x->dt, at(x, i));
                if (best < 0 || (!isnan(m) && (isnan(v) || v > m))) {
                    m = v;
                    best = h * W + w;
                }
            }
        wr(y, o, m);
        if (HAS(3))
            wr(ix, o, (R)best);
    }
    return 0;
}

/* aclnnUpsampleNearest2dV2(self, outputSize, scalesH, scalesW, out): source
 * row floor(r * s), s = 1 / scalesH when given (> 0), else in / out;
 * aclnnUpsampleBilinear2d(self, outputSize, alignCorners, scalesH, scalesW,
 * out): source (r + 0.5) * s - 0.5 (at least 0), or r * (in - 1) / (out - 1)
 * with alignCorners, between its two neighbours */
static int k_upsample(const SimOp *op, char *err, size_t n)
{
    int bil = !strcmp(op->name, "aclnnUpsampleBilinear2d");
    const SimTensor *x = T(0), *y = T(bil ? 5 : 4);
    int nd = x->nd, align = bil && op->a[2].i;
    double sc[2] = {op->a[bil ? 3 : 2].d, op->a[bil ? 4 : 3].d};
    (void)err, (void)n;
    if (nd < 2)
        return fail(err, n, "operands of unexpected ranks");
    EACH(o, y) {
        double src[2];
        int64_t lo[2], hi[2], i[SIM_MAX_DIMS];
        double lam[2];
        R v = 0;
        for (int d = 0; d < 2; d++) {
            int64_t in = x->dims[nd - 2 + d], out = y->dims[nd - 2 + d], q = o[nd - 2 + d];
            double s = sc[d] > 0 ? 1 / sc[d] : (double)in / (double)out;
            if (!bil) {
                int64_t k = (int64_t)floor((double)q * s);
                lo[d] = hi[d] = k < in ? k : in - 1;
                lam[d] = 0;
                continue;
            }
            src[d] = align ? (out > 1 ? (double)q * (double)(in - 1) / (double)(out - 1) : 0)
                           : ((double)q + 0.5) * s - 0.5;
            if (src[d] < 0)
                src[d] = 0;
            lo[d] = (int64_t)src[d];
            if (lo[d] > in - 1)
                lo[d] = in - 1;
            hi[d] = lo[d] + 1 < in ? lo[d] + 1 : in - 1;
            lam[d] = src[d] - (double)lo[d];
        }
        memcpy(i, o, sizeof i);
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) {
                double wgt = (a ? lam[0] : 1 - lam[0]) * (b ? lam[1] : 1 - lam[1]);
                if (wgt == 0)
                    continue;
                i[nd - 2] = a ? hi[0] : lo[0];
                i[nd - 1] = b ? hi[1] : lo[1];
                v += (R)wgt * get(x->dt, at(x, i));
            }
        wr(y, o, v);
    }
    return 0;
}

/* aclnnRotaryPositionEmbedding(x, cos, sin, mode, out): y = x * cos +
 * rotate(x) * sin, cos and sin broadcast to x, along the last dim of
 * size D: mode 0 (half) rotate = cat(-x2, x1) of the halves; 1
 * (interleave) each pair (a, b) -> (-b, a); 2 (quarter) cat(-x2, x1, -x4,
 * x3) of the quarters; 3 (interleave-half) x first reordered as cat(x[::2],
 * x[1::2]), then as mode 0 */
static int k_rope(const SimOp *op, char *err, size_t n)
{
    const SimTensor *x = T(0), *y = T(4);
    int nd = x->nd;
    int64_t mode = INT(3), D = nd ? x->dims[nd - 1] : 0;
    if (mode < 0 || mode > 3 || D % (mode == 2 ? 4 : 2))
        return snprintf(err, n, "mode %lld with a last dim of %lld", (long long)mode, (long long)D), -1;
    EACH(o, y) {
        int64_t j = o[nd - 1], i[SIM_MAX_DIMS], src, rs;
        R sg = 1, v, r;
        memcpy(i, o, sizeof i);
        if (mode == 1) {
            src = j;
            rs = j % 2 ? j - 1 : j + 1;
            sg = j % 2 ? 1 : -1;
        } else {
            int64_t part = mode == 2 ? D / 4 : D / 2, q = j / part, k = j % part;
            int64_t pair = mode == 2 ? (q ^ 1) : 1 - q;
            src = j;
            rs = pair * part + k;
            sg = q % 2 ? 1 : -1;
            if (mode == 3) {   /* the reordered x's element m is x[2m] (first half) or x[2(m - D/2) + 1] */
                src = j < D / 2 ? 2 * j : 2 * (j - D / 2) + 1;
                rs = rs < D / 2 ? 2 * rs : 2 * (rs - D / 2) + 1;
            }
        }
        i[nd - 1] = src;
        v = get(x->dt, at(x, i));
        i[nd - 1] = rs;
        r = sg * get(x->dt, at(x, i));
        wr(y, o, v * rd(T(1), o, nd) + r * rd(T(2), o, nd));
    }
    return 0;
}

/* ---- data movement ---- */

/* aclnnCat(tensors, dim, out), aclnnStack(tensors, dim, out) */
static int k_cat(const SimOp *op, char *err, size_t n)
{
    const SimVal *l = &op->a[0];
    const SimTensor *out = T(2);
    int stack = !strcmp(op->name, "aclnnStack"), d = dim_of(INT(1), out->nd);
    int64_t base = 0;
    (void)err, (void)n;
    for (int k = 0; k < l->n; k++) {
        const SimTensor *x = &l->list[k];
        if (sim_numel(x) == 0)
            continue;
        EACH(i, x) {
            int64_t o[SIM_MAX_DIMS];
            if (stack) {
                for (int e = 0, f = 0; e < out->nd; e++)
                    o[e] = e == d ? k : i[f++];
            } else {
                memcpy(o, i, sizeof o);
                o[d] += base;
            }
            wr(out, o, get(x->dt, at(x, i)));
        }
        base += stack ? 1 : x->dims[d];
    }
    return 0;
}

/* aclnnPermute(self, dims, out): out dim k is self dim dims[k] */
static int k_permute(const SimOp *op, char *err, size_t n)
{
    const SimVal *p = &op->a[1];
    (void)err, (void)n;
    EACH(o, T(2)) {
        int64_t i[SIM_MAX_DIMS];
        for (int k = 0; k < p->n; k++)
            i[dim_of(p->ia[k], T(0)->nd)] = o[k];
        wr(T(2), o, get(T(0)->dt, at(T(0), i)));
    }
    return 0;
}

/* aclnnSlice(self, dim, start, end, step, out) */
static int k_slice(const SimOp *op, char *err, size_t n)
{
    int d = dim_of(INT(1), T(0)->nd);
    int64_t start = INT(2) < 0 ? INT(2) + T(0)->dims[d] : INT(2);
    (void)err, (void)n;
    EACH(o, T(5)) {
        int64_t i[SIM_MAX_DIMS];
        memcpy(i, o, sizeof i);
        i[d] = start + o[d] * INT(4);
        wr(T(5), o, get(T(0)->dt, at(T(0), i)));
    }
    return 0;
}

/* aclnnTriu / aclnnTril(self, diagonal, out) */
static int k_tri(const SimOp *op, char *err, size_t n)
{
    int up = !strcmp(op->name, "aclnnTriu"), nd = T(2)->nd;
    (void)err, (void)n;
    EACH(o, T(2)) {
        int64_t c = o[nd - 1] - o[nd - 2];
        int keep = up ? c >= INT(1) : c <= INT(1);
        wr(T(2), o, keep ? rd(T(0), o, nd) : 0);
    }
    return 0;
}

/* aclnnFlip(self, dims, out) */
static int k_flip(const SimOp *op, char *err, size_t n)
{
    const SimVal *p = &op->a[1];
    for (int k = 0; k < p->n; k++)
        if (p->ia[k] < -T(0)->nd || p->ia[k] >= T(0)->nd)
            return snprintf(err, n, "dims[%d] = %lld is not a dim of a %d-dim tensor", k, (long long)p->ia[k],
                            T(0)->nd), -1;
    EACH(o, T(2)) {
        int64_t i[SIM_MAX_DIMS];
        memcpy(i, o, sizeof i);
        for (int k = 0; k < p->n; k++) {
            int d = dim_of(p->ia[k], T(0)->nd);
            i[d] = T(0)->dims[d] - 1 - o[d];
        }
        wr(T(2), o, get(T(0)->dt, at(T(0), i)));
    }
    return 0;
}

/* aclnnRoll(x, shifts, dims, out): out[(i + shift) mod n] = x[i] along
 * each dim; with no dims, over the flattened tensor */
static int k_roll(const SimOp *op, char *err, size_t n)
{
    const SimVal *sh = &op->a[1], *dm = &op->a[2];
    int64_t total = sim_numel(T(0));
    if (dm->n != sh->n && !(dm->n == 0 && sh->n == 1))
        return fail(err, n, "shifts and dims of different lengths");
    for (int k = 0; k < dm->n; k++)
        if (dm->ia[k] < -T(0)->nd || dm->ia[k] >= T(0)->nd)
            return snprintf(err, n, "dims[%d] = %lld is not a dim of a %d-dim tensor", k, (long long)dm->ia[k],
                            T(0)->nd), -1;
    EACH(o, T(3)) {
        int64_t i[SIM_MAX_DIMS];
        memcpy(i, o, sizeof i);
        if (dm->n == 0) {
            int64_t lin = 0;
            for (int d = 0; d < T(0)->nd; d++)
                lin = lin * T(0)->dims[d] + o[d];
            lin = ((lin - sh->ia[0]) % total + total) % total;
            for (int d = T(0)->nd - 1; d >= 0; d--) {
                i[d] = lin % T(0)->dims[d];
                lin /= T(0)->dims[d];
            }
        }
        for (int k = 0; k < dm->n; k++) {
            int d = dim_of(dm->ia[k], T(0)->nd);
            int64_t len = T(0)->dims[d];
            i[d] = ((o[d] - sh->ia[k]) % len + len) % len;
        }
        wr(T(3), o, get(T(0)->dt, at(T(0), i)));
    }
    return 0;
}

/* aclnnEmbedding(weight, indices, out): out[..., :] = weight[indices[...], :] */
static int k_embedding(const SimOp *op, char *err, size_t n)
{
    const SimTensor *w = T(0), *ix = T(1), *out = T(2);
    EACH(o, out) {
        int64_t j[2];
        j[0] = (int64_t)get(ix->dt, at(ix, o));
        j[1] = o[out->nd - 1];
        if (j[0] < 0 || j[0] >= w->dims[0])
            return snprintf(err, n, "index %lld out of range [0, %lld)", (long long)j[0], (long long)w->dims[0]), -1;
        wr(out, o, get(w->dt, at(w, j)));
    }
    return 0;
}

/* aclnnGather(self, dim, index, out): out[i] = self[i with dim = index[i]] */
static int k_gather(const SimOp *op, char *err, size_t n)
{
    int d = dim_of(INT(1), T(0)->nd);
    EACH(o, T(3)) {
        int64_t i[SIM_MAX_DIMS];
        memcpy(i, o, sizeof i);
        i[d] = (int64_t)get(T(2)->dt, at(T(2), o));
        if (i[d] < 0)
            i[d] += T(0)->dims[d];
        if (i[d] < 0 || i[d] >= T(0)->dims[d])
            return fail(err, n, "gather index out of range");
        wr(T(3), o, get(T(0)->dt, at(T(0), i)));
    }
    return 0;
}

/* aclnnIndexSelect(self, dim, index, out) */
static int k_index_select(const SimOp *op, char *err, size_t n)
{
    int d = dim_of(INT(1), T(0)->nd);
    EACH(o, T(3)) {
        int64_t i[SIM_MAX_DIMS], k[1] = {o[d]};
        memcpy(i, o, sizeof i);
        i[d] = (int64_t)get(T(2)->dt, at(T(2), k));
        if (i[d] < 0)
            i[d] += T(0)->dims[d];
        if (i[d] < 0 || i[d] >= T(0)->dims[d])
            return fail(err, n, "index_select index out of range");
        wr(T(3), o, get(T(0)->dt, at(T(0), i)));
    }
    return 0;
}

/* aclnnSwiGlu(x, dim, out): x split in halves a, b along dim: silu(a) * b */
static int k_swiglu(const SimOp *op, char *err, size_t n)
{
    int d = dim_of(INT(1), T(0)->nd);
    (void)err, (void)n;
    EACH(o, T(2)) {
        int64_t i[SIM_MAX_DIMS];
        double a, b;
        memcpy(i, o, sizeof i);
        a = (double)get(T(0)->dt, at(T(0), i));
        i[d] += T(2)->dims[d];
        b = (double)get(T(0)->dt, at(T(0), i));
        wr(T(2), o, a / (1 + exp(-a)) * b);
    }
    return 0;
}

/* ---- indexing ---- */

/* The index of self that position o of an advanced indexing reads or
 * writes: the k index tensors of l (broadcast together over the first nb
 * dims of o) index self's first k dims, o's others the rest. */
static int adv_index(const SimTensor *self, const SimVal *l, const int64_t *o, int nb, int64_t *i, char *err, size_t n)
{
    int k = l->n;
    for (int j = 0; j < k; j++) {
        int64_t v = (int64_t)rd(&l->list[j], o, nb);
        if (v < 0)
            v += self->dims[j];
        if (v < 0 || v >= self->dims[j])
            return snprintf(err, n, "index %lld out of range for dim %d of size %lld", (long long)v, j,
                            (long long)self->dims[j]), -1;
        i[j] = v;
    }
    for (int d = k; d < self->nd; d++)
        i[d] = o[nb + d - k];
    return 0;
}

/* The broadcast shape of the index tensors, its dims count. */
static int adv_shape(const SimVal *l, int64_t *dims)
{
    int nb = 0;
    for (int j = 0; j < l->n; j++)
        nb = l->list[j].nd > nb ? l->list[j].nd : nb;
    for (int d = 0; d < nb; d++)
        dims[d] = 1;
    for (int j = 0; j < l->n; j++)
        for (int d = 0; d < l->list[j].nd; d++)
            if (l->list[j].dims[d] != 1)
                dims[d + nb - l->list[j].nd] = l->list[j].dims[d];
    return nb;
}

/* aclnnIndex(self, indices, out): out = self[i0, .., ik-1] */
static int k_index(const SimOp *op, char *err, size_t n)
{
    int64_t bd[SIM_MAX_DIMS];
    int nb = adv_shape(&op->a[1], bd);
    EACH(o, T(2)) {
        int64_t i[SIM_MAX_DIMS];
        if (adv_index(T(0), &op->a[1], o, nb, i, err, n))
            return -1;
        wr(T(2), o, get(T(0)->dt, at(T(0), i)));
    }
    return 0;
}

/* aclnnIndexPutImpl(selfRef, indices, values, accumulate, unsafe):
 * selfRef[i0, .., ik-1] = values (+= when accumulating), values broadcast
 * to the indexed shape */
static int k_index_put(const SimOp *op, char *err, size_t n)
{
    SimTensor space = {0};
    int nb = adv_shape(&op->a[1], space.dims);
    space.nd = nb + T(0)->nd - op->a[1].n;
    for (int d = op->a[1].n; d < T(0)->nd; d++)
        space.dims[nb + d - op->a[1].n] = T(0)->dims[d];
    EACH(o, &space) {
        int64_t i[SIM_MAX_DIMS];
        R v = rd(T(2), o, space.nd);
        if (adv_index(T(0), &op->a[1], o, nb, i, err, n))
            return -1;
        wr(T(0), i, op->a[3].i ? get(T(0)->dt, at(T(0), i)) + v : v);
    }
    return 0;
}

/* aclnnScatter(self, dim, index, src, reduce, out), aclnnScatterValue(self,
 * dim, index, value, reduce, out), aclnnScatterAdd(self, dim, index, src,
 * out): out = self, then out[i with dim = index[i]] = src[i] (reduce 1:
 * added, 2: multiplied) for every i of index */
static int k_scatter(const SimOp *op, char *err, size_t n)
{
    int add = !strcmp(op->name, "aclnnScatterAdd"), value = !strcmp(op->name, "aclnnScatterValue");
    const SimTensor *out = T(add ? 4 : 5), *ix = T(2);
    int d = dim_of(INT(1), T(0)->nd);
    int64_t red = add ? 1 : INT(4);
    if (out->data != T(0)->data || out->offset != T(0)->offset)
        EACH(i, out)
            wr(out, i, rd(T(0), i, out->nd));
    EACH(i, ix) {
        int64_t j[SIM_MAX_DIMS];
        R v = value ? SC(3) : get(T(3)->dt, at(T(3), i));
        memcpy(j, i, sizeof j);
        j[d] = (int64_t)get(ix->dt, at(ix, i));
        if (j[d] < 0)
            j[d] += out->dims[d];
        if (j[d] < 0 || j[d] >= out->dims[d])
            return fail(err, n, "scatter index out of range");
        wr(out, j, red == 1 ? get(out->dt, at(out, j)) + v : red == 2 ? get(out->dt, at(out, j)) * v : v);
    }
    return 0;
}

/* aclnnIndexCopy(selfRef, dim, index, source, outRef), aclnnIndexAdd(self,
 * dim, index, source, alpha, out): out = self, then along dim the slice
 * index[j] of out is source's slice j (added, times alpha) */
static int k_index_copy(const SimOp *op, char *err, size_t n)
{
    int add = !strcmp(op->name, "aclnnIndexAdd");
    const SimTensor *out = T(add ? 5 : 4), *src = T(3), *ix = T(2);
    int d = dim_of(INT(1), T(0)->nd);
    if (out->data != T(0)->data || out->offset != T(0)->offset)
        EACH(i, out)
            wr(out, i, rd(T(0), i, out->nd));
    EACH(i, src) {
        int64_t j[SIM_MAX_DIMS], k[1] = {T(0)->nd ? i[d] : 0};
        R v = get(src->dt, at(src, i));
        memcpy(j, i, sizeof j);
        if (out->nd) {
            j[d] = (int64_t)get(ix->dt, at(ix, ix->nd ? k : j));
            if (j[d] < 0)
                j[d] += out->dims[d];
            if (j[d] < 0 || j[d] >= out->dims[d])
                return fail(err, n, "index out of range");
        }
        wr(out, j, add ? get(out->dt, at(out, j)) + SC(4) * v : v);
    }
    return 0;
}

/* aclnnInplaceScatterUpdate(data, indices, updates, axis): with 1-D
 * indices [a], data[i, .., indices[i] + k (at axis), ..] = updates[i, ..,
 * k, ..] (CANN's reference; 2-D indices are not implemented here) */
static int k_scatter_update(const SimOp *op, char *err, size_t n)
{
    const SimTensor *d = T(0), *ix = T(1), *u = T(2);
    int ax = dim_of(INT(3), d->nd);
    if (ix->nd > 1)
        return fail(err, n, "2-D indices are not implemented in aclsim");
    if (ax <= 0 || ax >= d->nd || u->nd != d->nd)
        return fail(err, n, "axis or ranks out of range");
    EACH(i, u) {
        int64_t j[SIM_MAX_DIMS], b[1] = {i[0]};
        memcpy(j, i, sizeof j);
        j[ax] += (int64_t)get(ix->dt, at(ix, ix->nd ? b : i));
        if (j[ax] < 0 || j[ax] >= d->dims[ax])
            return fail(err, n, "index out of range");
        wr(d, j, get(u->dt, at(u, i)));
    }
    return 0;
}

/* aclnnScatterNdUpdate(varRef, indices, updates): indices [..., k] index
 * var's first k dims; var[indices[p]] = updates[p] (updates: indices'
 * leading dims, then var's dims from k) */
static int k_scatter_nd(const SimOp *op, char *err, size_t n)
{
    const SimTensor *v = T(0), *ix = T(1), *u = T(2);
    int k = ix->nd ? (int)ix->dims[ix->nd - 1] : 0, lead = ix->nd - 1;
    if (ix->nd < 1 || k > v->nd || u->nd != lead + v->nd - k)
        return fail(err, n, "indices and updates of unexpected shapes");
    EACH(i, u) {
        int64_t j[SIM_MAX_DIMS], q[SIM_MAX_DIMS];
        memcpy(q, i, sizeof q);
        for (int c = 0; c < k; c++) {
            q[lead] = c;
            j[c] = (int64_t)get(ix->dt, at(ix, q));
            if (j[c] < 0)
                j[c] += v->dims[c];
            if (j[c] < 0 || j[c] >= v->dims[c])
                return fail(err, n, "index out of range");
        }
        for (int c = k; c < v->nd; c++)
            j[c] = i[lead + c - k];
        wr(v, j, get(u->dt, at(u, i)));
    }
    return 0;
}

/* ---- sorting ---- */

typedef struct Key {
    R v;
    int64_t i;
} Key;

static int key_desc;

/* NaN is the largest; equal values keep their order (stable) */
static int key_cmp(const void *pa, const void *pb)
{
    const Key *a = pa, *b = pb;
    int an = isnan(a->v), bn = isnan(b->v), c;
    c = an || bn ? an - bn : (a->v > b->v) - (a->v < b->v);
    if (key_desc)
        c = -c;
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* aclnnSort(self, stable, dim, descending, valuesOut, indicesOut),
 * aclnnArgsort(self, dim, descending, out), aclnnTopk(self, k, dim,
 * largest, sorted, valuesOut, indicesOut): each line along dim sorted */
static int k_sort(const SimOp *op, char *err, size_t n)
{
    int topk = !strcmp(op->name, "aclnnTopk"), arg = !strcmp(op->name, "aclnnArgsort");
    const SimTensor *x = T(0), *vals = arg ? NULL : T(topk ? 5 : 4), *idxs = T(arg ? 3 : topk ? 6 : 5);
    int d = dim_of(topk ? INT(2) : arg ? INT(1) : INT(2), x->nd);
    int64_t len = x->nd ? x->dims[d] : 1, keep = topk ? INT(1) : len;
    Key *k = malloc((size_t)(len ? len : 1) * sizeof *k);
    if (!k)
        return fail(err, n, "out of memory");
    key_desc = topk ? INT(3) != 0 : arg ? INT(2) != 0 : INT(3) != 0;
    LINES(x, d, b) {
        int64_t i[SIM_MAX_DIMS];
        memcpy(i, b, sizeof i);
        for (i[d] = 0; i[d] < len; i[d]++)
            k[i[d]] = (Key){get(x->dt, at(x, i)), i[d]};
        qsort(k, (size_t)len, sizeof *k, key_cmp);
        for (i[d] = 0; i[d] < keep; i[d]++) {
            if (vals)
                wr(vals, i, k[i[d]].v);
            wr(idxs, i, (R)k[i[d]].i);
        }
    }
    free(k);
    return 0;
}

/* ---- convolution ---- */

/* aclnnConvolution(input, weight, bias?, stride, padding, dilation,
 * transposed, outputPadding, groups, output, cubeMathType): input [N, C,
 * *S], weight [O, C / groups, *K], 1 or 2 spatial dims, padded alike on
 * both sides; out[n, o, p] = bias[o] + the sum over the group's channels c
 * and the kernel's k of input[n, c, p * stride - pad + k * dilation] *
 * weight[o, c, k] (outside the input: 0) */
static int k_conv(const SimOp *op, char *err, size_t n)
{
    const SimTensor *x = T(0), *w = T(1), *y = T(9);
    int sd = x->nd - 2;
    int64_t g = INT(8), cg, og;
    if (op->a[6].i)
        return fail(err, n, "transposed convolution is not implemented in aclsim");
    if (sd < 1 || sd > 2 || w->nd != x->nd || y->nd != x->nd || g < 1 || op->a[3].n < sd || op->a[4].n < sd ||
        op->a[5].n < sd)
        return fail(err, n, "operands of unexpected ranks");
    cg = w->dims[1];
    og = y->dims[1] / g;
    EACH(o, y) {
        int64_t grp = o[1] / og, xi[SIM_MAX_DIMS], wi[SIM_MAX_DIMS];
        int64_t kh = sd == 2 ? w->dims[2] : 1, kw = w->dims[x->nd - 1];
        double acc = HAS(2) ? (double)get(T(2)->dt, at(T(2), &o[1])) : 0;
        for (int64_t c = 0; c < cg; c++)
            for (int64_t a = 0; a < kh; a++)
                for (int64_t b = 0; b < kw; b++) {
                    int ok = 1;
                    xi[0] = o[0];
                    xi[1] = grp * cg + c;
                    wi[0] = o[1];
                    wi[1] = c;
                    for (int d = 0; d < sd; d++) {
                        int64_t k = sd == 2 && d == 0 ? a : b;
                        int64_t p = o[2 + d] * op->a[3].ia[d] - op->a[4].ia[d] + k * op->a[5].ia[d];
                        ok &= p >= 0 && p < x->dims[2 + d];
                        xi[2 + d] = p;
                        wi[2 + d] = k;
                    }
                    if (ok)
                        acc += (double)get(x->dt, at(x, xi)) * (double)get(w->dt, at(w, wi));
                }
        wr(y, o, acc);
    }
    return 0;
}

/* aclnnDynamicQuant(x, smoothScalesOptional, yOut, scaleOut): per row
 * (the last dim), v = x (* smoothScales) in float32, scale = max|v| / 127,
 * y = v / scale rounded half to even and saturated to int8 (0 in a row
 * whose scale is 0) */
static int k_dynamic_quant(const SimOp *op, char *err, size_t n)
{
    const SimTensor *x = T(0), *y = T(2);
    int nd = x->nd, last = nd - 1;
    (void)err, (void)n;
    if (nd < 1)
        return fail(err, n, "a 0-dim input");
    LINES(x, last, b) {
        int64_t i[SIM_MAX_DIMS], k[1];
        float m = 0, scale;
        memcpy(i, b, sizeof i);
        for (i[last] = 0; i[last] < x->dims[last]; i[last]++) {
            float v = (float)get(x->dt, at(x, i));
            k[0] = i[last];
            if (HAS(1))
                v *= (float)get(T(1)->dt, at(T(1), k));
            m = fabsf(v) > m ? fabsf(v) : m;
        }
        scale = m / 127.0f;
        for (i[last] = 0; i[last] < x->dims[last]; i[last]++) {
            float v = (float)get(x->dt, at(x, i));
            double q;
            k[0] = i[last];
            if (HAS(1))
                v *= (float)get(T(1)->dt, at(T(1), k));
            q = scale > 0 ? nearbyint((double)(v / scale)) : 0;
            wr(y, i, q < -128 ? -128 : q > 127 ? 127 : q);
        }
        i[last] = 0;
        wr(T(3), i, scale);   /* scaleOut: x's dims but the last */
    }
    return 0;
}

/* aclnnMoeGatingTopKSoftmax(x, finishedOptional, k, yOut, expertIdxOut,
 * rowIdxOut): softmax over the experts (the last dim, float32), its k
 * largest (descending, ties: the lower expert), the expert index E (the
 * number of experts) in finished rows, rowIdx[r, j] = j * R + r over the R
 * rows */
static int k_moe_topk_softmax(const SimOp *op, char *err, size_t n)
{
    const SimTensor *x = T(0), *y = T(3), *ei = T(4), *ri = T(5);
    int nd = x->nd, last = nd - 1;
    int64_t E = nd ? x->dims[last] : 0, K = INT(2), rows = E ? sim_numel(x) / E : 0, r = 0;
    Key *key = malloc((size_t)(E ? E : 1) * sizeof *key);
    if (!key)
        return fail(err, n, "out of memory");
    if (nd < 1 || K < 1 || K > E) {
        free(key);
        return fail(err, n, "k out of range");
    }
    key_desc = 1;
    LINES(x, last, b) {
        int64_t i[SIM_MAX_DIMS];
        float mx = -INFINITY, sum = 0;
        int fin;
        memcpy(i, b, sizeof i);
        for (i[last] = 0; i[last] < E; i[last]++) {
            float v = (float)get(x->dt, at(x, i));
            mx = v > mx ? v : mx;
        }
        for (i[last] = 0; i[last] < E; i[last]++)
            sum += expf((float)get(x->dt, at(x, i)) - mx);
        for (i[last] = 0; i[last] < E; i[last]++)
            key[i[last]] = (Key){expf((float)get(x->dt, at(x, i)) - mx) / sum, i[last]};
        qsort(key, (size_t)E, sizeof *key, key_cmp);
        fin = HAS(1) && get(T(1)->dt, at(T(1), b)) != 0;
        for (i[last] = 0; i[last] < K; i[last]++) {
            wr(y, i, key[i[last]].v);
            wr(ei, i, fin ? (R)E : (R)key[i[last]].i);
            wr(ri, i, (R)(i[last] * rows + r));
        }
        r++;
    }
    free(key);
    return 0;
}

/* ---- the table ---- */

static const struct { const char *name; SimKernel k; } kernels[] = {
    {"aclnnInplaceCopy", k_copy}, {"aclnnCast", k_cast}, {"aclnnInplaceFillScalar", k_fill},
    {"aclnnInplaceMaskedFillScalar", k_masked_fill}, {"aclnnPermute", k_permute}, {"aclnnArange", k_arange},
    {"aclnnMm", k_matmul}, {"aclnnMatmul", k_matmul}, {"aclnnBatchMatMul", k_matmul}, {"aclnnAddmm", k_addmm},
    {"aclnnReduceSum", k_reduce}, {"aclnnMean", k_reduce}, {"aclnnAmax", k_reduce}, {"aclnnAmin", k_reduce},
    {"aclnnAny", k_reduce}, {"aclnnAll", k_reduce}, {"aclnnProdDim", k_prod}, {"aclnnSoftmax", k_softmax},
    {"aclnnLogSoftmax", k_softmax}, {"aclnnCumsum", k_cumsum}, {"aclnnArgMax", k_argext}, {"aclnnArgMin", k_argext},
    {"aclnnMaxDim", k_argext}, {"aclnnMinDim", k_argext}, {"aclnnLayerNorm", k_layer_norm},
    {"aclnnRmsNorm", k_rms_norm}, {"aclnnAddRmsNorm", k_rms_norm}, {"aclnnCat", k_cat}, {"aclnnStack", k_cat},
    {"aclnnSlice", k_slice}, {"aclnnTriu", k_tri}, {"aclnnTril", k_tri}, {"aclnnFlip", k_flip},
    {"aclnnRoll", k_roll}, {"aclnnEmbedding", k_embedding}, {"aclnnGather", k_gather},
    {"aclnnIndexSelect", k_index_select}, {"aclnnSwiGlu", k_swiglu}, {"aclnnSWhere", k_where},
    {"aclnnClamp", k_clamp}, {"aclnnClampMin", k_clamp}, {"aclnnClampMax", k_clamp},
    {"aclnnConvolution", k_conv}, {"aclnnDynamicQuant", k_dynamic_quant},
    {"aclnnMoeGatingTopKSoftmax", k_moe_topk_softmax}, {"aclnnInplaceScatterUpdate", k_scatter_update},
    {"aclnnScatterNdUpdate", k_scatter_nd}, {"aclnnRotaryPositionEmbedding", k_rope}, {"aclnnMaxPool", k_pool}, {"aclnnAvgPool2d", k_pool},
    {"aclnnAdaptiveAvgPool2d", k_pool}, {"aclnnUpsampleNearest2dV2", k_upsample},
    {"aclnnUpsampleBilinear2d", k_upsample}, {"aclnnAdaptiveMaxPool2d", k_adaptive_max}, {"aclnnBatchNorm", k_batch_norm}, {"aclnnGroupNorm", k_group_norm}, {"aclnnIndex", k_index}, {"aclnnIndexCopy", k_index_copy}, {"aclnnIndexAdd", k_index_copy}, {"aclnnIndexPutImpl", k_index_put}, {"aclnnScatter", k_scatter},
    {"aclnnScatterValue", k_scatter}, {"aclnnScatterAdd", k_scatter}, {"aclnnSort", k_sort},
    {"aclnnArgsort", k_sort}, {"aclnnTopk", k_sort}, {"aclnnLeakyRelu", k_leaky_relu}, {"aclnnSoftplus", k_softplus}, {"aclnnGeluV2", k_gelu},
};

SimKernel sim_kernel(const char *name)
{
    for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++)
        if (!strcmp(kernels[i].name, name))
            return kernels[i].k;
    for (size_t i = 0; i < sizeof unaries / sizeof *unaries; i++)
        if (!strcmp(unaries[i].name, name))
            return k_unary;
    for (size_t i = 0; i < sizeof binaries / sizeof *binaries; i++)
        if (!strcmp(binaries[i].name, name))
            return k_binary;
    return NULL;
}

/* Every operator asks for a workspace, so that a launch given less, or
 * one shared by two streams, is seen: 512 bytes, and a matmul's or a
 * reduction's more. */
uint64_t sim_workspace_bytes(const SimOp *op)
{
    if (strstr(op->name, "mm") || strstr(op->name, "Mm") || strstr(op->name, "MatMul") || strstr(op->name, "Matmul"))
        return 4096;
    if (strstr(op->name, "Reduce") || strstr(op->name, "Mean") || strstr(op->name, "Norm") ||
        strstr(op->name, "Softmax"))
        return 2048;
    return 512;
}
