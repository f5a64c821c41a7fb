/*
 * tngrt_kernel_impl.h - the bodies of libtngcrt's CPU kernels as static
 * inline functions: tngrt_impl_<kernel> takes exactly the parameters of
 * tngrt_kernel_<kernel> (tngrt_kernels.h, the contract). kernels.c
 * instantiates them with shapes read at run time; generated code includes
 * this header and calls them with constant shapes so the compiler
 * specialises the loops.
 *
 * Sections: the N-d walk (per-operand strides, 0 on broadcast dims,
 * contiguous dims collapsed); elementwise; contractions (kernels_gemm.c's
 * microkernels; CBLAS for large shapes); data movement; reductions and
 * normalisations; then the kernel families in files of their own
 * (tngrt_impl_<family>.h, the torch_npu fused operators last). The element
 * helpers they all use (dtype conversions, element access, the per-element
 * ops) are tngrt_impl_base.h's, which kernels_gemm.c includes alone.
 *
 * Helpers are tngrt_impl__*. No globals, no printing; the heap is used only
 * for matmul conversion and packing scratch, and a failed malloc falls back
 * to a direct loop. Fallible kernels write their message into err->msg.
 */
#ifndef TNGRT_KERNEL_IMPL_H
#define TNGRT_KERNEL_IMPL_H

#include "tngrt_impl_base.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ===================== the N-d walk ===================== */

/* An N-d walk over shape for up to 3 operands with element strides st. */
typedef struct TngrtImplWalk {
    int nd;
    int nop;
    int64_t shape[TNGRT_MAX_DIMS];
    int64_t st[3][TNGRT_MAX_DIMS];
} TngrtImplWalk;

static inline int tngrt_impl__walk_mergeable(const TngrtImplWalk *w, int p, int d)
{
    for (int o = 0; o < w->nop; o++)
        if (w->st[o][p] != w->st[o][d] * w->shape[d])
            return 0;
    return 1;
}

/* Drops extent-1 dims and merges dims contiguous for every operand; leaves
 * at least one dim. Returns the element count (0: nothing to walk). */
static inline int64_t tngrt_impl__walk_collapse(TngrtImplWalk *w)
{
    int n = 0;
    int64_t total = 1;
    for (int d = 0; d < w->nd; d++) {
        total *= w->shape[d];
        if (w->shape[d] == 1)
            continue;
        if (n > 0 && tngrt_impl__walk_mergeable(w, n - 1, d)) {
            for (int o = 0; o < w->nop; o++)
                w->st[o][n - 1] = w->st[o][d];
            w->shape[n - 1] *= w->shape[d];
            continue;
        }
        w->shape[n] = w->shape[d];
        for (int o = 0; o < w->nop; o++)
            w->st[o][n] = w->st[o][d];
        n++;
    }
    if (n == 0) {
        w->shape[0] = 1;
        for (int o = 0; o < w->nop; o++)
            w->st[o][0] = 0;
        n = 1;
    }
    w->nd = n;
    return total;
}

/* Steps the outer dims (all but the innermost) of w, updating the operand
 * offsets off; returns 0 after the last row. */
TNGRT_KINLINE int tngrt_impl__walk_next(const TngrtImplWalk *w, int64_t *idx, int64_t *off)
{
    for (int d = w->nd - 2; d >= 0; d--) {
        for (int o = 0; o < w->nop; o++)
            off[o] += w->st[o][d];
        if (++idx[d] < w->shape[d])
            return 1;
        for (int o = 0; o < w->nop; o++)
            off[o] -= w->st[o][d] * w->shape[d];
        idx[d] = 0;
    }
    return 0;
}

/* Sets up a walk over out's shape with out and operands xs broadcast to it;
 * returns the element count (0 also for invalid ranks). */
static inline int64_t tngrt_impl__walk_bcast(TngrtImplWalk *w, const TngrtArg *out,
                                             const TngrtArg *const *xs, int nx)
{
    if (!tngrt_impl__rank_ok(out))
        return 0;
    w->nd = out->ndim;
    w->nop = nx + 1;
    for (int d = 0; d < out->ndim; d++)
        w->shape[d] = out->shape[d];
    tngrt_impl__bstrides(out->ndim, out->shape, out->ndim, w->st[0]);
    for (int o = 0; o < nx; o++) {
        if (!tngrt_impl__rank_ok(xs[o]) || xs[o]->ndim > out->ndim)
            return 0;
        tngrt_impl__bstrides(xs[o]->ndim, xs[o]->shape, out->ndim, w->st[o + 1]);
    }
    return tngrt_impl__walk_collapse(w);
}

#define TNGRT_IMPL__COPY_AS(T)                                              \
    for (int64_t i = 0; i < n; i++)                                         \
        memcpy(d + (size_t)(i * ds) * sizeof(T), s + (size_t)(i * ss) * sizeof(T), sizeof(T))

/* Copies n elements of es bytes with element strides ds and ss; the size is
 * a constant in each loop so the copies compile to plain moves. */
static inline void tngrt_impl__copy_strided(unsigned char *d, int64_t ds, const unsigned char *s,
                                            int64_t ss, int64_t n, size_t es)
{
    switch (es) {
    case 8: TNGRT_IMPL__COPY_AS(uint64_t); break;
    case 4: TNGRT_IMPL__COPY_AS(uint32_t); break;
    case 2: TNGRT_IMPL__COPY_AS(uint16_t); break;
    default: TNGRT_IMPL__COPY_AS(uint8_t); break;
    }
}
#undef TNGRT_IMPL__COPY_AS

/* n elements from src (offset so, stride ss) to dst (do_, ds), converted to
 * dst's dtype. */
static inline void tngrt_impl__cvt_row(const TngrtArg *dst, int64_t do_, int64_t ds,
                                       const TngrtArg *src, int64_t so, int64_t ss, int64_t n)
{
    if (dst->dtype == src->dtype) {
        size_t es = tngrt_impl__esize(dst->dtype);
        unsigned char *d = (unsigned char *)dst->data + (size_t)do_ * es;
        const unsigned char *s = (const unsigned char *)src->data + (size_t)so * es;
        if (ds == 1 && ss == 1) {
            if (d != s)
                memmove(d, s, (size_t)n * es);
            return;
        }
        tngrt_impl__copy_strided(d, ds, s, ss, n, es);
        return;
    }
    if (tngrt_impl__is_float(dst->dtype) || dst->dtype == TNGRT_BOOL) {
        for (int64_t i = 0; i < n; i++)
            tngrt_impl__stf(dst, do_ + i * ds, tngrt_impl__ldf(src, so + i * ss));
        return;
    }
    for (int64_t i = 0; i < n; i++)
        tngrt_impl__sti(dst, do_ + i * ds, tngrt_impl__ldi(src, so + i * ss));
}

/* Copies the nd-dim block `shape` from src (base so, strides sst) to dst
 * (base do_, strides dst_st), converting dtypes: every data mover. */
static inline void tngrt_impl__move(int nd, const int64_t *shape, const TngrtArg *dst,
                                    int64_t do_, const int64_t *dst_st, const TngrtArg *src,
                                    int64_t so, const int64_t *sst)
{
    TngrtImplWalk w;
    int64_t idx[TNGRT_MAX_DIMS] = {0}, off[3] = {do_, so, 0};
    if (nd < 0 || nd > TNGRT_MAX_DIMS)
        return;
    w.nd = nd;
    w.nop = 2;
    for (int d = 0; d < nd; d++) {
        w.shape[d] = shape[d];
        w.st[0][d] = dst_st[d];
        w.st[1][d] = sst[d];
    }
    if (tngrt_impl__walk_collapse(&w) == 0)
        return;
    do {
        tngrt_impl__cvt_row(dst, off[0], w.st[0][w.nd - 1], src, off[1], w.st[1][w.nd - 1],
                            w.shape[w.nd - 1]);
    } while (tngrt_impl__walk_next(&w, idx, off));
}

/* Writes a message into err (may be NULL) for a kernel's failure; returns -1. */
static inline int tngrt_impl__err(TngrtError *err, const char *fmt, ...)
{
    va_list ap;
    if (!err)
        return -1;
    err->kind = TNGRT_ERR_FAILURE;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

/* The same for invalid values in the data (an embedding id out of range):
 * the kind TNGRT_ERR_BAD_INPUT, which a bundle run reports as
 * TNGRT_BAD_INPUT; returns -1. */
static inline int tngrt_impl__bad_input(TngrtError *err, const char *fmt, ...)
{
    va_list ap;
    if (!err)
        return -1;
    err->kind = TNGRT_ERR_BAD_INPUT;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

/* ===================== elementwise ===================== */

/* The loop over blocks is not vectorised itself (clang's loop vectoriser
 * would, for cheap ops, take 16 blocks at a time and read and write each
 * of its 16 strided lanes by gathers and scatters: relu over 2560 floats
 * took 1.9 us so); each block is one vector, by the SLP vectoriser. */
#if defined(__clang__)
#define TNGRT_IMPL__BLOCKS _Pragma("clang loop vectorize(disable)")
#else
#define TNGRT_IMPL__BLOCKS
#endif

/* The float32 elementwise loops run in blocks of 16 (read into a temporary,
 * then stored) so GCC and clang vectorise them at -O2 without alias checks,
 * a block one AVX-512 register wide (the Makefile asks clang for 512-bit
 * vectors where the target has them: F.gelu on 8 x 512 floats took 5.4 us
 * with blocks of 8 in 256-bit registers, spilling, and 3.7 us so);
 * exact in-place use (o == x) stays correct as a block is read before it
 * is written. k_ is the element index inside LOAD and EXPR. */
#define TNGRT_IMPL__LOOP(DECL, EXPR)                                   \
    do {                                                               \
        int64_t i_ = 0;                                                \
        TNGRT_IMPL__BLOCKS                                             \
        for (; i_ + 16 <= n; i_ += 16) {                                 \
            float t_[16];                                               \
            for (int j_ = 0; j_ < 16; j_++) {                           \
                const int64_t k_ = i_ + j_;                            \
                DECL;                                                  \
                t_[j_] = (EXPR);                                       \
            }                                                          \
            for (int j_ = 0; j_ < 16; j_++)                             \
                o[i_ + j_] = t_[j_];                                   \
        }                                                              \
        for (; i_ < n; i_++) {                                         \
            const int64_t k_ = i_;                                     \
            DECL;                                                      \
            o[i_] = (EXPR);                                            \
        }                                                              \
    } while (0)

#define TNGRT_IMPL__MAP(EXPR) TNGRT_IMPL__LOOP(const float x = px[k_], EXPR); break

/* x ** p over n floats where p is an integer or a half-integer of
 * magnitude at most 64 (tngrt_impl__pow_kind): multiplies (square and
 * multiply, the same for every element, so the block loops vectorise),
 * times sqrt(x) for the half, 1 / r for a negative p; 0.5 is sqrt, -0.5
 * 1 / sqrt, 2 x * x, 3 x * x * x and -1 1 / x, as PyTorch's CPU pow
 * computes them. At most a few float32 roundings from powf; for k != 0,
 * (-inf or -0) ** (k + 0.5) is as +inf's or +0's and other negative x give
 * NaN, as powf. */
TNGRT_KINLINE void tngrt_impl__pow_f32(float *o, const float *x, int64_t n, float p)
{
    int neg = p < 0.0f, half = (float)(int)p != p;
    int e = (int)(neg ? -p : p);
    int64_t i = 0;
    for (; i < n; i += 8) {
        float b[8], r[8];
        int m = n - i < 8 ? (int)(n - i) : 8;
        for (int j = 0; j < 8; j++) {
            b[j] = j < m ? x[i + j] : 1.0f;
            b[j] = half && e && (b[j] == -INFINITY || b[j] == 0.0f) ? fabsf(b[j]) : b[j];
            r[j] = half ? sqrtf(b[j]) : 1.0f;
        }
        for (int k = e; k; k >>= 1) {
            if (k & 1)
                for (int j = 0; j < 8; j++)
                    r[j] *= b[j];
            if (k > 1)
                for (int j = 0; j < 8; j++)
                    b[j] *= b[j];
        }
        if (neg)
            for (int j = 0; j < 8; j++)
                r[j] = 1.0f / r[j];
        for (int j = 0; j < m; j++)
            o[i + j] = r[j];
    }
}

/* Whether tngrt_impl__pow_f32 computes x ** p: p an integer or a
 * half-integer, |p| <= 64. */
TNGRT_KINLINE int tngrt_impl__pow_kind(float p)
{
    return p >= -64.0f && p <= 64.0f && (p * 2.0f == (float)(int)(p * 2.0f));
}

/* The float32 fast path: one loop per op, no per-element dispatch; pow by
 * an integer or half-integer exponent multiplies (tngrt_impl__pow_f32). */
TNGRT_KINLINE void tngrt_impl__unary_f32(float *o, const float *px, int64_t n, TngrtUnaryOp op,
                                         float p, float q)
{
    (void)q;
    if (op == TNGRT_UN_POW) {
        if (p == 2.0f) {
            TNGRT_IMPL__LOOP(const float x = px[k_], x * x);
            return;
        }
        if (p == 3.0f) {
            TNGRT_IMPL__LOOP(const float x = px[k_], x * x * x);
            return;
        }
        if (p == -1.0f) {
            TNGRT_IMPL__LOOP(const float x = px[k_], 1.0f / x);
            return;
        }
        if (p == -2.0f) {
            TNGRT_IMPL__LOOP(const float x = px[k_], 1.0f / (x * x));
            return;
        }
        if (tngrt_impl__pow_kind(p)) {
            tngrt_impl__pow_f32(o, px, n, p);
            return;
        }
    }
    switch (op) {
#define TNGRT_UNARY(name, f, i) case TNGRT_UN_##name: TNGRT_IMPL__MAP(f);
#define TNGRT_BINARY(name, f, i)
#include "tngrt_impl_eltwise.h"
#undef TNGRT_UNARY
#undef TNGRT_BINARY
    }
}
#undef TNGRT_IMPL__MAP

TNGRT_KINLINE void tngrt_impl_unary2(const TngrtArg *out, const TngrtArg *x, TngrtUnaryOp op,
                                     double p, double q)
{
    int64_t n;
    if (!tngrt_impl__rank_ok(out) || (n = tngrt_impl__numel(out->ndim, out->shape)) <= 0)
        return;
    if (op == TNGRT_UN_IDENTITY && out->dtype == x->dtype) {
        tngrt_impl__cvt_row(out, 0, 1, x, 0, 1, n);
    } else if (out->dtype == TNGRT_F32 && x->dtype == TNGRT_F32) {
        tngrt_impl__unary_f32((float *)out->data, (const float *)x->data, n, op, (float)p,
                              (float)q);
    } else if (tngrt_impl__is_float(out->dtype) && tngrt_impl__is_float(x->dtype) &&
               (tngrt_impl__is_half(out->dtype) || tngrt_impl__is_half(x->dtype))) {
        /* a half operand or out (a cast between float32 and a half type
         * among them): by blocks, as tngrt_impl__binary_half, widened and
         * narrowed a vector at a time */
        float t[TNGRT_IMPL__HBLOCK];
        for (int64_t i = 0; i < n; i += TNGRT_IMPL__HBLOCK) {
            int64_t m = n - i < TNGRT_IMPL__HBLOCK ? n - i : TNGRT_IMPL__HBLOCK;
            float *o = out->dtype == TNGRT_F32 ? (float *)out->data + i : t;
            const float *px = x->dtype == TNGRT_F32 ? (const float *)x->data + i : t;
            if (x->dtype != TNGRT_F32)
                tngrt_impl__widen(t, x, i, m);
            if (op != TNGRT_UN_IDENTITY || o != px)
                tngrt_impl__unary_f32(o, px, m, op, (float)p, (float)q);
            if (out->dtype != TNGRT_F32)
                tngrt_impl__narrow(out, i, t, m);
        }
    } else if (tngrt_impl__is_float(out->dtype) ||
               (out->dtype == TNGRT_BOOL && op == TNGRT_UN_IDENTITY)) {
        for (int64_t i = 0; i < n; i++)
            tngrt_impl__stf(out, i, tngrt_impl__unf(op, tngrt_impl__ldf(x, i), (float)p, (float)q));
    } else if (tngrt_impl__un_is_int(op, p)) {
        for (int64_t i = 0; i < n; i++)
            tngrt_impl__sti(out, i, tngrt_impl__uni(op, tngrt_impl__ldi(x, i), p, q));
    } else { /* a float-valued op into an integer out: computed, truncated */
        for (int64_t i = 0; i < n; i++)
            tngrt_impl__sti(out, i, tngrt_impl__f2i(tngrt_impl__unf(op, tngrt_impl__ldf(x, i),
                                                                    (float)p, (float)q)));
    }
}

TNGRT_KINLINE void tngrt_impl_unary(const TngrtArg *out, const TngrtArg *x, TngrtUnaryOp op,
                                    double p)
{
    tngrt_impl_unary2(out, x, op, p, 0.0);
}

/* One loop per stride pattern (0 = broadcast) so the common ones vectorise. */
#define TNGRT_IMPL__ZIP(EXPR)                                                       \
    do {                                                                            \
        if (sa == 1 && sb == 1)                                                     \
            TNGRT_IMPL__LOOP(const float a = pa[k_]; const float b = pb[k_], EXPR); \
        else if (sa == 1 && sb == 0)                                                \
            TNGRT_IMPL__LOOP(const float a = pa[k_]; const float b = pb[0], EXPR);  \
        else if (sa == 0 && sb == 1)                                                \
            TNGRT_IMPL__LOOP(const float a = pa[0]; const float b = pb[k_], EXPR);  \
        else                                                                        \
            TNGRT_IMPL__LOOP(const float a = pa[k_ * sa]; const float b = pb[k_ * sb], EXPR); \
    } while (0)

TNGRT_KINLINE void tngrt_impl__binary_f32(float *o, const float *pa, int64_t sa, const float *pb,
                                          int64_t sb, int64_t n, TngrtBinaryOp op, float alpha)
{
    /* add and sub without the multiply by an alpha of 1 (the same numbers) */
    if (alpha == 1.0f && op == TNGRT_BIN_ADD) {
        TNGRT_IMPL__ZIP(a + b);
        return;
    }
    if (alpha == 1.0f && op == TNGRT_BIN_SUB) {
        TNGRT_IMPL__ZIP(a - b);
        return;
    }
    switch (op) {
#define TNGRT_UNARY(name, f, i)
#define TNGRT_BINARY(name, f, i) case TNGRT_BIN_##name: TNGRT_IMPL__ZIP(f); break;
#include "tngrt_impl_eltwise.h"
#undef TNGRT_UNARY
#undef TNGRT_BINARY
    }
}
#undef TNGRT_IMPL__ZIP
#undef TNGRT_IMPL__LOOP

/* One row of a binary op of one half type (out, a and b): blocks of a and
 * b widened (a stride of 0: the one element, broadcast), the float32 loop
 * over them, narrowed into out; the conversions and expressions are the
 * element loop's, so the bits are too. */
TNGRT_KINLINE void tngrt_impl__binary_row_half(const TngrtArg *out, int64_t oo,
                                               const TngrtArg *a, int64_t ao, int64_t sa,
                                               const TngrtArg *b, int64_t bo, int64_t sb,
                                               int64_t n, TngrtBinaryOp op, float alpha)
{
    float ta[TNGRT_IMPL__HBLOCK], tb[TNGRT_IMPL__HBLOCK], to[TNGRT_IMPL__HBLOCK];
    const uint16_t *ha = (const uint16_t *)a->data, *hb = (const uint16_t *)b->data;
    int f16 = out->dtype == TNGRT_F16;
    for (int64_t i = 0; i < n; i += TNGRT_IMPL__HBLOCK) {
        int64_t m = n - i < TNGRT_IMPL__HBLOCK ? n - i : TNGRT_IMPL__HBLOCK;
        tngrt_impl__widen_strided(ta, ha + ao + i * sa, sa, sa ? m : 1, f16);
        tngrt_impl__widen_strided(tb, hb + bo + i * sb, sb, sb ? m : 1, f16);
        tngrt_impl__binary_f32(to, ta, sa ? 1 : 0, tb, sb ? 1 : 0, m, op, alpha);
        tngrt_impl__narrow(out, oo + i, to, m);
    }
}

/* One row of a binary op: n elements, out contiguous, a and b strided. */
static inline void tngrt_impl__binary_row(const TngrtArg *out, int64_t oo, const TngrtArg *a,
                                          int64_t ao, int64_t sa, const TngrtArg *b, int64_t bo,
                                          int64_t sb, int64_t n, TngrtBinaryOp op, double alpha)
{
    if (out->dtype == TNGRT_F32 && a->dtype == TNGRT_F32 && b->dtype == TNGRT_F32) {
        tngrt_impl__binary_f32((float *)out->data + oo, (const float *)a->data + ao, sa,
                               (const float *)b->data + bo, sb, n, op, (float)alpha);
    } else if (tngrt_impl__is_float(out->dtype)) {
        for (int64_t i = 0; i < n; i++)
            tngrt_impl__stf(out, oo + i,
                            tngrt_impl__binf(op, tngrt_impl__ldf(a, ao + i * sa),
                                             tngrt_impl__ldf(b, bo + i * sb), (float)alpha));
    } else {
        int64_t al = tngrt_impl__f2i(alpha);
        for (int64_t i = 0; i < n; i++)
            tngrt_impl__sti(out, oo + i,
                            tngrt_impl__bini(op, tngrt_impl__ldi(a, ao + i * sa),
                                             tngrt_impl__ldi(b, bo + i * sb), al));
    }
}

/* n elements of out's shape and half dtype (both inputs the same), by
 * blocks (see tngrt_impl__widen). */
TNGRT_KINLINE void tngrt_impl__binary_half(const TngrtArg *out, const TngrtArg *a,
                                           const TngrtArg *b, int64_t n, TngrtBinaryOp op,
                                           float alpha)
{
    float ta[TNGRT_IMPL__HBLOCK], tb[TNGRT_IMPL__HBLOCK], to[TNGRT_IMPL__HBLOCK];
    for (int64_t i = 0; i < n; i += TNGRT_IMPL__HBLOCK) {
        int64_t m = n - i < TNGRT_IMPL__HBLOCK ? n - i : TNGRT_IMPL__HBLOCK;
        tngrt_impl__widen(ta, a, i, m);
        tngrt_impl__widen(tb, b, i, m);
        tngrt_impl__binary_f32(to, ta, 1, tb, 1, m, op, alpha);
        tngrt_impl__narrow(out, i, to, m);
    }
}

TNGRT_KINLINE void tngrt_impl_binary(const TngrtArg *out, const TngrtArg *a, const TngrtArg *b,
                                     TngrtBinaryOp op, double alpha)
{
    TngrtImplWalk w;
    const TngrtArg *xs[2] = {a, b};
    int64_t idx[TNGRT_MAX_DIMS] = {0}, off[3] = {0, 0, 0};
    int half;
    /* Fast path: float32 (or one half type) operands of out's very shape
     * need no broadcast walk (the common elementwise op; its set-up
     * dominated small ones). */
    if (((out->dtype == TNGRT_F32) || tngrt_impl__is_half(out->dtype)) &&
        a->dtype == out->dtype && b->dtype == out->dtype &&
        a->ndim == out->ndim && b->ndim == out->ndim && tngrt_impl__rank_ok(out)) {
        int64_t n = 1;
        int d = 0;
        for (; d < out->ndim; d++) {
            if (a->shape[d] != out->shape[d] || b->shape[d] != out->shape[d])
                break;
            n *= out->shape[d];
        }
        if (d == out->ndim) {
            if (out->dtype == TNGRT_F32)
                tngrt_impl__binary_f32((float *)out->data, (const float *)a->data, 1,
                                       (const float *)b->data, 1, n, op, (float)alpha);
            else
                tngrt_impl__binary_half(out, a, b, n, op, (float)alpha);
            return;
        }
    }
    if (tngrt_impl__walk_bcast(&w, out, xs, 2) == 0)
        return;
    /* one half type throughout: rows widened by blocks, inlined here so
     * that the conversions vectorise with the kernel's ISA */
    half = tngrt_impl__is_half(out->dtype) && a->dtype == out->dtype && b->dtype == out->dtype;
    do {
        int in = w.nd - 1;
        if (half)
            tngrt_impl__binary_row_half(out, off[0], a, off[1], w.st[1][in], b, off[2],
                                        w.st[2][in], w.shape[in], op, (float)alpha);
        else
            tngrt_impl__binary_row(out, off[0], a, off[1], w.st[1][in], b, off[2],
                                   w.st[2][in], w.shape[in], op, alpha);
    } while (tngrt_impl__walk_next(&w, idx, off));
}

TNGRT_KINLINE void tngrt_impl_binary_scalar(const TngrtArg *out, const TngrtArg *x, double s,
                                            int scalar_first, TngrtBinaryOp op, double alpha)
{
    float sf = (float)s;
    int64_t si = tngrt_impl__f2i(s);
    TngrtArg sa = {NULL, TNGRT_F32, 0, NULL};
    if (tngrt_impl__is_float(out->dtype)) {
        sa.data = &sf;
    } else {
        sa.data = &si;
        sa.dtype = TNGRT_I64;
    }
    if (scalar_first)
        tngrt_impl_binary(out, &sa, x, op, alpha);
    else
        tngrt_impl_binary(out, x, &sa, op, alpha);
}

TNGRT_KINLINE void tngrt_impl_fill(const TngrtArg *out, double v)
{
    int64_t n;
    size_t es = tngrt_impl__esize(out->dtype);
    if (!tngrt_impl__rank_ok(out) || (n = tngrt_impl__numel(out->ndim, out->shape)) <= 0)
        return;
    if (tngrt_impl__is_float(out->dtype))
        tngrt_impl__stf(out, 0, (float)v);
    else if (out->dtype == TNGRT_BOOL)
        ((uint8_t *)out->data)[0] = v != 0.0;
    else
        tngrt_impl__sti(out, 0, tngrt_impl__f2i(v));
    for (int64_t done = 1; done < n; done *= 2) /* replicate element 0 */
        memcpy((unsigned char *)out->data + (size_t)done * es, out->data,
               (size_t)(done < n - done ? done : n - done) * es);
}

TNGRT_KINLINE void tngrt_impl_copy(const TngrtArg *out, const TngrtArg *x)
{
    TngrtImplWalk w;
    const TngrtArg *xs[1] = {x};
    int64_t idx[TNGRT_MAX_DIMS] = {0}, off[3] = {0, 0, 0};
    if (tngrt_impl__walk_bcast(&w, out, xs, 1) == 0)
        return;
    do {
        int in = w.nd - 1;
        tngrt_impl__cvt_row(out, off[0], 1, x, off[1], w.st[1][in], w.shape[in]);
    } while (tngrt_impl__walk_next(&w, idx, off));
}

/* ===================== contractions ===================== */

/* A batched out[b..., m, n] = alpha * a[b..., m, k] @ b[b..., k, n]
 * (+ beta * bias): batch strides are in whole matrices. */
typedef struct TngrtImplMM {
    int64_t m, n, k;
    int nb;                            /* batch rank */
    int64_t bshape[TNGRT_MAX_DIMS];    /* batch extents (out's) */
    int64_t ast[TNGRT_MAX_DIMS];
    int64_t bst[TNGRT_MAX_DIMS];
    int btrans;                        /* b stored as [n, k] */
    const TngrtArg *bias;              /* bias[i * bias_sm + j * bias_sn], or NULL */
    int64_t bias_sm, bias_sn;
    double alpha, beta;
} TngrtImplMM;

/* The plan of torch.matmul(a, b) into out; -1 for unusable ranks. */
static inline int tngrt_impl__mm_plan(TngrtImplMM *p, const TngrtArg *out, const TngrtArg *a,
                                      const TngrtArg *b)
{
    int a1 = a->ndim == 1, b1 = b->ndim == 1;
    memset(p, 0, sizeof *p);
    if (!tngrt_impl__rank_ok(a) || !tngrt_impl__rank_ok(b) || !tngrt_impl__rank_ok(out) ||
        a->ndim < 1 || b->ndim < 1)
        return -1;
    p->k = a->shape[a->ndim - 1];
    p->m = a1 ? 1 : a->shape[a->ndim - 2];
    p->n = b1 ? 1 : b->shape[b->ndim - 1];
    p->nb = out->ndim - !a1 - !b1;
    if (p->nb < 0 || p->nb < a->ndim - 2 || p->nb < b->ndim - 2)
        return -1;
    for (int d = 0; d < p->nb; d++)
        p->bshape[d] = out->shape[d];
    tngrt_impl__bstrides(a1 ? 0 : a->ndim - 2, a->shape, p->nb, p->ast);
    tngrt_impl__bstrides(b1 ? 0 : b->ndim - 2, b->shape, p->nb, p->bst);
    p->alpha = 1.0;
    return 0;
}

/* Steps the batch index of p, updating the a and b matrix offsets. */
TNGRT_KINLINE void tngrt_impl__mm_next(const TngrtImplMM *p, int64_t *idx, int64_t *ao,
                                       int64_t *bo)
{
    for (int d = p->nb - 1; d >= 0; d--) {
        *ao += p->ast[d];
        *bo += p->bst[d];
        if (++idx[d] < p->bshape[d])
            return;
        *ao -= p->ast[d] * p->bshape[d];
        *bo -= p->bst[d] * p->bshape[d];
        idx[d] = 0;
    }
}

/* Folds the batch into m when b is shared by every batch and a's batches
 * are consecutive (one large GEMM instead of many small ones). */
static inline void tngrt_impl__mm_fold(TngrtImplMM *q)
{
    int64_t s = 1;
    if (q->bias)
        return;
    for (int d = q->nb - 1; d >= 0; d--) {
        if (q->bst[d] != 0 || (q->bshape[d] != 1 && q->ast[d] != s))
            return;
        s *= q->bshape[d];
    }
    if (q->m * s <= INT_MAX) {
        q->m *= s;
        q->nb = 0;
    }
}

/* One output element of the direct loop (float or int64 compute). */
static inline void tngrt_impl__mm_elem(const TngrtArg *out, int64_t o, const TngrtArg *a,
                                       int64_t ar, const TngrtArg *b, int64_t bc, int64_t bks,
                                       const TngrtImplMM *p, int64_t i, int64_t j)
{
    int has_bias = p->bias && p->beta != 0.0;
    int64_t bi = i * p->bias_sm + j * p->bias_sn;
    if (tngrt_impl__is_float(out->dtype)) {
        float acc = 0.0f, v = 0.0f;
        for (int64_t kk = 0; kk < p->k; kk++)
            acc += tngrt_impl__ldf(a, ar + kk) * tngrt_impl__ldf(b, bc + kk * bks);
        if (p->k > 0)
            v = (float)p->alpha * acc;
        if (has_bias)
            v += (float)p->beta * tngrt_impl__ldf(p->bias, bi);
        tngrt_impl__stf(out, o, v);
    } else {
        uint64_t acc = 0, v;
        for (int64_t kk = 0; kk < p->k; kk++)
            acc += (uint64_t)tngrt_impl__ldi(a, ar + kk) *
                   (uint64_t)tngrt_impl__ldi(b, bc + kk * bks);
        v = (uint64_t)tngrt_impl__f2i(p->alpha) * acc;
        if (has_bias)
            v += (uint64_t)tngrt_impl__f2i(p->beta) * (uint64_t)tngrt_impl__ldi(p->bias, bi);
        tngrt_impl__sti(out, o, tngrt_impl__wrap(v));
    }
}

/* The direct loop: integer matmuls, k == 0, and the fallback when scratch
 * cannot be allocated. */
static inline void tngrt_impl__mm_naive(const TngrtArg *out, const TngrtArg *a,
                                        const TngrtArg *b, const TngrtImplMM *p)
{
    int64_t idx[TNGRT_MAX_DIMS] = {0}, ao = 0, bo = 0, o = 0;
    int64_t nbatch = tngrt_impl__numel(p->nb, p->bshape);
    for (int64_t t = 0; t < nbatch; t++) {
        for (int64_t i = 0; i < p->m; i++) {
            for (int64_t j = 0; j < p->n; j++) {
                int64_t bc = bo * p->k * p->n + (p->btrans ? j * p->k : j);
                tngrt_impl__mm_elem(out, o++, a, (ao * p->m + i) * p->k, b, bc,
                                    p->btrans ? 1 : p->n, p, i, j);
            }
        }
        tngrt_impl__mm_next(p, idx, &ao, &bo);
    }
}

/* Fills C with the bias for a GEMM's beta; returns the beta to use. */
static inline float tngrt_impl__mm_prefill(float *c, const TngrtImplMM *q)
{
    if (!q->bias || q->beta == 0.0)
        return 0.0f;
    if (q->bias->dtype == TNGRT_F32 && q->bias_sm == 0 && q->bias_sn == 1) {
        /* a row bias (Linear's): one row, copied down */
        for (int64_t i = 0; i < q->m; i++)
            memcpy(c + i * q->n, q->bias->data, (size_t)q->n * sizeof(float));
        return (float)q->beta;
    }
    for (int64_t i = 0; i < q->m; i++)
        for (int64_t j = 0; j < q->n; j++)
            c[i * q->n + j] = tngrt_impl__ldf(q->bias, i * q->bias_sm + j * q->bias_sn);
    return (float)q->beta;
}

/* Whether libtngcrt's own GEMM (kernels_gemm.c) runs plan p when B must
 * be packed by the call (B not prepacked at load). Measured against
 * OpenBLAS's sgemm on one core (microbenchmark and examples/decoder's
 * trace): packing B costs about as much as 8 to 16 rows of the product,
 * so it pays for A of 64 rows or more at any size (up to [128, 2048] x
 * [2048, 2048] measured: 12.7 ms vs sgemm's 14.1), and for 8 rows or more
 * up to 2^18 multiply-adds (where sgemm's per-call cost shows); with fewer
 * rows (attention's q @ k^T at decode, one row per head) packing costs
 * more than the product and sgemm stays. */
TNGRT_KINLINE int tngrt_impl__own_gemm_pays(int64_t m, int64_t n, int64_t k)
{
    double macs = (double)m * (double)n * (double)k;
    return m >= 64 || (m >= 8 && macs <= 262144.0);
}

/* Whether an [m, k] x [k, n] product with a B of dtype bdt not packed at
 * load runs libtngcrt's GEMM packing B per call (tngrt_gemm_f32_packing):
 * not a few-row product (tngrt_gemm_small_pays; a half B under
 * TNGRT_GEMM_HALF_INPLACE_ROWS rows, read in place), and for float32 where
 * the own GEMM pays; a half B always (never widened whole). */
TNGRT_KINLINE int tngrt_impl__packs_per_call(int64_t m, int64_t n, int64_t k, TngrtDType bdt)
{
    int half = tngrt_impl__is_half(bdt);
    if (!tngrt_impl__is_float(bdt) || tngrt_gemm_small_pays(m, n, k) ||
        (half && m < TNGRT_GEMM_HALF_INPLACE_ROWS))
        return 0;
    return half || tngrt_impl__own_gemm_pays(m, n, k);
}

/* The batched GEMMs of p with libtngcrt's microkernels on float32 a (or,
 * a NULL, the bfloat16 ha with a bfloat16 B: tngrt_gemm_bf16_packing) and
 * c, B float32 or half (c dense [batch..., m, n]): B prepacked (a weight
 * packed at load: p has no batch), or else packed by
 * tngrt_gemm_f32_packing a few panels at a time per batch matrix (never
 * widened or copied whole), A read in place; a float32 row bias with beta
 * 1 and alpha 1 added in the kernel, any other bias, beta or alpha
 * applied after. Returns -1 when the packing scratch cannot be had (the
 * caller then computes the whole product another way). */
static inline int tngrt_impl__gemm_own(const TngrtImplMM *p, const float *a, const uint16_t *ha,
                                       const TngrtArg *b, float *c, const float *prepacked)
{
    TngrtImplMM q = *p;
    int64_t idx[TNGRT_MAX_DIMS] = {0}, ao = 0, bo = 0, nbatch;
    const float *rowbias = NULL;
    int post;
    tngrt_impl__mm_fold(&q);
    nbatch = tngrt_impl__numel(q.nb, q.bshape);
    if (q.bias && q.beta == 1.0 && q.alpha == 1.0 && q.bias->dtype == TNGRT_F32 &&
        q.bias_sm == 0 && q.bias_sn == 1)
        rowbias = (const float *)q.bias->data;
    post = !rowbias && ((q.bias && q.beta != 0.0) || q.alpha != 1.0);
    for (int64_t t = 0; t < nbatch; t++) {
        float *ct = c + t * q.m * q.n;
        if (prepacked)
            tngrt_gemm_f32(q.m, q.n, q.k, a + ao * q.m * q.k, q.k, 1, prepacked, ct, q.n, rowbias);
        else if (ha) {
            if (tngrt_gemm_bf16_packing(q.m, q.n, q.k, ha + ao * q.m * q.k, q.k, b, bo * q.k * q.n,
                                        q.btrans ? 1 : q.n, q.btrans ? q.k : 1, ct, q.n, rowbias,
                                        NULL) != 0)
                return -1;
        } else if (tngrt_gemm_f32_packing(q.m, q.n, q.k, a + ao * q.m * q.k, q.k, 1, b,
                                        bo * q.k * q.n, q.btrans ? 1 : q.n, q.btrans ? q.k : 1,
                                        ct, q.n, rowbias, NULL) != 0)
            return -1;
        for (int64_t i = 0; post && i < q.m; i++)
            for (int64_t j = 0; j < q.n; j++) {
                float v = (float)q.alpha * ct[i * q.n + j];
                if (q.bias && q.beta != 0.0)
                    v += (float)q.beta * tngrt_impl__ldf(q.bias, i * q.bias_sm + j * q.bias_sn);
                ct[i * q.n + j] = v;
            }
        tngrt_impl__mm_next(&q, idx, &ao, &bo);
    }
    return 0;
}

/* The batched products of p with few rows (tngrt_gemm_small_pays) on
 * float32 a (or, a NULL, half ha's bits, with a half B: widened in
 * registers by tngrt_gemm_small_half_a16) and c, B float32 (b) or, b NULL,
 * half (hb's bits, widened in registers by tngrt_gemm_small_half): B read
 * in place, unpacked, no library call; bias, beta and alpha applied
 * after. */
static inline void tngrt_impl__gemm_small(const TngrtImplMM *p, const float *a, const float *b,
                                          const TngrtArg *ha, const TngrtArg *hb, float *c)
{
    int64_t idx[TNGRT_MAX_DIMS] = {0}, ao = 0, bo = 0, nbatch = tngrt_impl__numel(p->nb, p->bshape);
    int post = (p->bias && p->beta != 0.0) || p->alpha != 1.0;
    for (int64_t t = 0; t < nbatch; t++) {
        float *ct = c + t * p->m * p->n;
        if (b)
            tngrt_gemm_small_f32(p->m, p->n, p->k, a + ao * p->m * p->k, p->k, 1,
                                 b + bo * p->k * p->n, p->btrans ? 1 : p->n, p->btrans ? p->k : 1,
                                 ct, p->n);
        else if (!a)
            tngrt_gemm_small_half_a16(ha->dtype, hb->dtype, p->m, p->n, p->k,
                                      (const uint16_t *)ha->data + ao * p->m * p->k, p->k, 1,
                                      (const uint16_t *)hb->data + bo * p->k * p->n,
                                      p->btrans ? 1 : p->n, p->btrans ? p->k : 1, ct, p->n);
        else
            tngrt_gemm_small_half(hb->dtype, p->m, p->n, p->k, a + ao * p->m * p->k, p->k, 1,
                                  (const uint16_t *)hb->data + bo * p->k * p->n,
                                  p->btrans ? 1 : p->n, p->btrans ? p->k : 1, ct, p->n);
        for (int64_t i = 0; post && i < p->m; i++)
            for (int64_t j = 0; j < p->n; j++) {
                float v = (float)p->alpha * ct[i * p->n + j];
                if (p->bias && p->beta != 0.0)
                    v += (float)p->beta * tngrt_impl__ldf(p->bias, i * p->bias_sm + j * p->bias_sn);
                ct[i * p->n + j] = v;
            }
        tngrt_impl__mm_next(p, idx, &ao, &bo);
    }
}

/* The batched GEMMs of p on float (dbl 0: sgemm, bias applied) or double
 * (dbl 1: dgemm, no bias) buffers; m, n, k > 0 and within int. */
static inline void tngrt_impl__gemm_batched(const TngrtImplMM *p, int dbl, const void *a,
                                            const void *b, void *c)
{
    TngrtImplMM q = *p;
    int64_t idx[TNGRT_MAX_DIMS] = {0}, ao = 0, bo = 0, nbatch;
    tngrt_impl__mm_fold(&q);
    nbatch = tngrt_impl__numel(q.nb, q.bshape);
    const int m = (int)q.m, n = (int)q.n, k = (int)q.k, ldb = q.btrans ? k : n;
    const enum CBLAS_TRANSPOSE tb = q.btrans ? CblasTrans : CblasNoTrans;
    for (int64_t t = 0; t < nbatch; t++) {
        int64_t co = t * q.m * q.n, aoff = ao * q.m * q.k, boff = bo * q.k * q.n;
        if (dbl) {
            cblas_dgemm(CblasRowMajor, CblasNoTrans, tb, m, n, k, q.alpha,
                        (const double *)a + aoff, k, (const double *)b + boff, ldb, 0.0,
                        (double *)c + co, n);
        } else {
            float *ct = (float *)c + co;
            float beta = tngrt_impl__mm_prefill(ct, &q);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, tb, m, n, k, (float)q.alpha,
                        (const float *)a + aoff, k, (const float *)b + boff, ldb, beta, ct, n);
        }
        tngrt_impl__mm_next(&q, idx, &ao, &bo);
    }
}

/* Runs plan p: float outs through sgemm (operands and out converted to
 * float32 scratch where they are not float32), integer outs directly. */
TNGRT_KINLINE void tngrt_impl__mm_run_p(const TngrtArg *out, const TngrtArg *a, const TngrtArg *b,
                                        const TngrtImplMM *p, const float *prepacked)
{
    float *sa = NULL, *sb = NULL, *sc = NULL;
    const float *fa, *fb;
    float *fc;
    int own, small, half, a16;
    int64_t nout = tngrt_impl__numel(p->nb, p->bshape) * p->m * p->n;
    if (nout <= 0)
        return;
    if (!tngrt_impl__is_float(out->dtype) || p->k <= 0 || p->m > INT_MAX || p->n > INT_MAX ||
        p->k > INT_MAX) {
        tngrt_impl__mm_naive(out, a, b, p);
        return;
    }
    fc = out->dtype == TNGRT_F32 ? (float *)out->data
                                  : (sc = (float *)tngrt_impl__alloc(nout, sizeof(float)));
    /* own GEMM: B packed (and widened) straight from its dtype, a half B
     * always (never widened whole); fewer than
     * TNGRT_GEMM_HALF_INPLACE_ROWS rows: a half B read in place; a
     * bfloat16 A with a bfloat16 B: vdpbf16ps's product, A read in place */
    half = tngrt_impl__is_half(b->dtype);
    small = !prepacked && (tngrt_gemm_small_pays(p->m, p->n, p->k) ||
                           (half && p->m < TNGRT_GEMM_HALF_INPLACE_ROWS));
    own = !small && !prepacked && fc && a->dtype == TNGRT_BF16 && b->dtype == TNGRT_BF16 &&
          tngrt_impl__packs_per_call(p->m, p->n, p->k, b->dtype) &&
          tngrt_impl__gemm_own(p, NULL, (const uint16_t *)a->data, b, fc, NULL) == 0;
    /* a few-row product of half A and half B reads A in place too */
    a16 = small && half && tngrt_impl__is_half(a->dtype);
    fa = a->dtype == TNGRT_F32 || own || a16
             ? (const float *)a->data   /* own, a16: not read as float32 */
             : (sa = tngrt_impl__to_f32(a, tngrt_impl__numel(a->ndim, a->shape)));
    own = own || (!small && fa && fc && tngrt_impl__is_float(b->dtype) &&
                  (prepacked || tngrt_impl__packs_per_call(p->m, p->n, p->k, b->dtype)) &&
                  tngrt_impl__gemm_own(p, fa, NULL, b, fc, prepacked) == 0);
    fb = own || b->dtype == TNGRT_F32 || (small && half)
             ? (const float *)b->data
             : (sb = tngrt_impl__to_f32(b, tngrt_impl__numel(b->ndim, b->shape)));
    if (fa && fb && fc) {
        if (small)
            tngrt_impl__gemm_small(p, a16 ? NULL : fa, half ? NULL : fb, a, b, fc);
        else if (!own)
            tngrt_impl__gemm_batched(p, 0, fa, fb, fc);
        if (sc && tngrt_impl__is_half(out->dtype))
            tngrt_impl__narrow(out, 0, sc, nout);
        for (int64_t i = 0; sc && !tngrt_impl__is_half(out->dtype) && i < nout; i++)
            tngrt_impl__stf(out, i, sc[i]);
    } else {
        tngrt_impl__mm_naive(out, a, b, p);
    }
    free(sa);
    free(sb);
    free(sc);
}

/* Runs plan p with B packed by the call where that pays. */
TNGRT_KINLINE void tngrt_impl__mm_run(const TngrtArg *out, const TngrtArg *a, const TngrtArg *b,
                                      const TngrtImplMM *p)
{
    tngrt_impl__mm_run_p(out, a, b, p, NULL);
}

TNGRT_KINLINE void tngrt_impl_matmul(const TngrtArg *out, const TngrtArg *a, const TngrtArg *b)
{
    TngrtImplMM p;
    if (tngrt_impl__mm_plan(&p, out, a, b) == 0)
        tngrt_impl__mm_run(out, a, b, &p);
}

TNGRT_KINLINE void tngrt_impl_addmm(const TngrtArg *out, const TngrtArg *bias, const TngrtArg *a,
                                    const TngrtArg *b, double beta, double alpha)
{
    TngrtImplMM p;
    int64_t st[2];
    if (out->ndim != 2 || a->ndim != 2 || b->ndim != 2)
        return;
    memset(&p, 0, sizeof p);
    p.m = out->shape[0];
    p.n = out->shape[1];
    p.k = a->shape[1];
    p.alpha = alpha;
    p.beta = beta;
    if (bias && tngrt_impl__rank_ok(bias) && bias->ndim <= 2) {
        tngrt_impl__bstrides(bias->ndim, bias->shape, 2, st);
        p.bias = bias;
        p.bias_sm = st[0];
        p.bias_sn = st[1];
    }
    tngrt_impl__mm_run(out, a, b, &p);
}

TNGRT_KINLINE void tngrt_impl_linear_packed(const TngrtArg *out, const TngrtArg *x,
                                            const TngrtArg *w, const TngrtArg *bias,
                                            const float *wp)
{
    TngrtImplMM p;
    if (!tngrt_impl__rank_ok(out) || out->ndim < 1 || w->ndim != 2)
        return;
    memset(&p, 0, sizeof p);
    p.n = out->shape[out->ndim - 1];
    p.m = tngrt_impl__numel(out->ndim - 1, out->shape);
    p.k = w->shape[1];
    p.btrans = 1;
    p.alpha = 1.0;
    p.beta = 1.0;
    if (bias) {
        p.bias = bias;
        p.bias_sn = tngrt_impl__numel(bias->ndim, bias->shape) == 1 ? 0 : 1;
    }
    tngrt_impl__mm_run_p(out, x, w, &p, wp);
}

TNGRT_KINLINE void tngrt_impl_linear(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                                     const TngrtArg *bias)
{
    tngrt_impl_linear_packed(out, x, w, bias, NULL);
}

/* ===================== data movement ===================== */

TNGRT_KINLINE void tngrt_impl_permute(const TngrtArg *out, const TngrtArg *x, const int64_t *perm)
{
    int64_t xst[TNGRT_MAX_DIMS], ost[TNGRT_MAX_DIMS], sst[TNGRT_MAX_DIMS];
    if (!tngrt_impl__rank_ok(x) || out->ndim != x->ndim)
        return;
    tngrt_impl__bstrides(x->ndim, x->shape, x->ndim, xst);
    tngrt_impl__bstrides(out->ndim, out->shape, out->ndim, ost);
    for (int d = 0; d < x->ndim; d++) {
        int pd = tngrt_impl__dim((int)perm[d], x->ndim);
        if (pd < 0)
            return;
        sst[d] = xst[pd];
    }
    tngrt_impl__move(out->ndim, out->shape, out, 0, ost, x, 0, sst);
}

/* Python slice rules on an extent len: normalises *start and returns the
 * number of elements (0 for step < 1). */
TNGRT_KINLINE int64_t tngrt_impl__slice_count(int64_t len, int64_t *start, int64_t end,
                                              int64_t step)
{
    int64_t s = *start, e = end;
    if (s < 0)
        s = s + len < 0 ? 0 : s + len;
    if (s > len)
        s = len;
    if (e == INT64_MAX || e > len)
        e = len;
    else if (e < 0)
        e = e + len < 0 ? 0 : e + len;
    *start = s;
    if (step < 1 || e <= s)
        return 0;
    return (e - s - 1) / step + 1;
}

/* The strided view base[..., start::step, ...] of t along dim: sets shape
 * (count along dim), strides and the base offset. start is at most the
 * dim's size, so the base is within the tensor; a view of one element or
 * none takes step 1 (the step may be any positive int64), and with two or
 * more the step is below the dim's size, so the stride stays within the
 * tensor too (its size is bounded: TNGRT_MAX_BYTES). */
static inline void tngrt_impl__slice_view(const TngrtArg *t, int dim, int64_t start, int64_t step,
                                          int64_t count, int64_t *shape, int64_t *st,
                                          int64_t *base)
{
    tngrt_impl__bstrides(t->ndim, t->shape, t->ndim, st);
    for (int d = 0; d < t->ndim; d++)
        shape[d] = t->shape[d];
    st[dim] = tngrt_impl__numel(t->ndim - dim - 1, t->shape + dim + 1);
    *base = start * st[dim];
    st[dim] *= count > 1 ? step : 1;
    shape[dim] = count;
}

TNGRT_KINLINE void tngrt_impl_slice(const TngrtArg *out, const TngrtArg *x, int dim,
                                    int64_t start, int64_t end, int64_t step)
{
    int64_t shape[TNGRT_MAX_DIMS], st[TNGRT_MAX_DIMS], ost[TNGRT_MAX_DIMS], base, count;
    if (!tngrt_impl__rank_ok(x) || out->ndim != x->ndim ||
        (dim = tngrt_impl__dim(dim, x->ndim)) < 0)
        return;
    count = tngrt_impl__slice_count(x->shape[dim], &start, end, step);
    if (count > out->shape[dim])
        count = out->shape[dim];
    tngrt_impl__slice_view(x, dim, start, step, count, shape, st, &base);
    tngrt_impl__bstrides(out->ndim, out->shape, out->ndim, ost);
    tngrt_impl__move(x->ndim, shape, out, 0, ost, x, base, st);
}

TNGRT_KINLINE int tngrt_impl_select(const TngrtArg *out, const TngrtArg *x, int dim,
                                    int64_t index, TngrtError *err)
{
    int64_t shape[TNGRT_MAX_DIMS], xst[TNGRT_MAX_DIMS], sst[TNGRT_MAX_DIMS];
    int64_t ost[TNGRT_MAX_DIMS], len;
    int nd = 0, d0 = dim;
    if (!tngrt_impl__rank_ok(x) || (dim = tngrt_impl__dim(dim, x->ndim)) < 0)
        return tngrt_impl__err(err, "select: dim %d out of range for a %d-d tensor", d0, x->ndim);
    len = x->shape[dim];
    if (index < -len || index >= len)
        return tngrt_impl__err(err, "select: index %lld out of range for dim %d of size %lld",
                               (long long)index, dim, (long long)len);
    if (index < 0)
        index += len;
    tngrt_impl__bstrides(x->ndim, x->shape, x->ndim, xst);
    for (int d = 0; d < x->ndim; d++) {
        if (d == dim)
            continue;
        shape[nd] = x->shape[d];
        sst[nd++] = xst[d];
    }
    tngrt_impl__bstrides(nd, shape, nd, ost);
    tngrt_impl__move(nd, shape, out, 0, ost, x,
                     index * tngrt_impl__numel(x->ndim - dim - 1, x->shape + dim + 1), sst);
    return 0;
}

TNGRT_KINLINE void tngrt_impl_slice_store(const TngrtArg *dst, const TngrtArg *src, int dim,
                                          int64_t start, int64_t end, int64_t step)
{
    int64_t shape[TNGRT_MAX_DIMS], st[TNGRT_MAX_DIMS], sst[TNGRT_MAX_DIMS], base, count;
    if (!tngrt_impl__rank_ok(dst) || !tngrt_impl__rank_ok(src) || src->ndim > dst->ndim ||
        (dim = tngrt_impl__dim(dim, dst->ndim)) < 0)
        return;
    count = tngrt_impl__slice_count(dst->shape[dim], &start, end, step);
    tngrt_impl__slice_view(dst, dim, start, step, count, shape, st, &base);
    tngrt_impl__bstrides(src->ndim, src->shape, dst->ndim, sst);
    tngrt_impl__move(dst->ndim, shape, dst, base, st, src, 0, sst);
}

TNGRT_KINLINE void tngrt_impl_cat(const TngrtArg *out, const TngrtArg *const *xs, int n, int dim)
{
    int64_t shape[TNGRT_MAX_DIMS], ost[TNGRT_MAX_DIMS], xst[TNGRT_MAX_DIMS], at = 0;
    if (!tngrt_impl__rank_ok(out) || (dim = tngrt_impl__dim(dim, out->ndim)) < 0)
        return;
    tngrt_impl__bstrides(out->ndim, out->shape, out->ndim, ost);
    ost[dim] = tngrt_impl__numel(out->ndim - dim - 1, out->shape + dim + 1);
    for (int i = 0; i < n; i++) {
        const TngrtArg *x = xs[i];
        int64_t ext;
        /* empty operands add nothing (torch also skips legacy 1-D [0]) */
        if (x->ndim != out->ndim || tngrt_impl__numel(x->ndim, x->shape) == 0)
            continue;
        ext = x->shape[dim];
        if (at + ext > out->shape[dim])
            return;
        for (int d = 0; d < out->ndim; d++)
            shape[d] = d == dim ? ext : out->shape[d];
        tngrt_impl__bstrides(x->ndim, x->shape, x->ndim, xst);
        tngrt_impl__move(out->ndim, shape, out, at * ost[dim], ost, x, 0, xst);
        at += ext;
    }
}

/* ===================== reductions and normalisations ===================== */

/* Sum in float of n terms of a float32 row, mode 0: x, 1: x^2,
 * 2: (x - c)^2; eight partial sums (vectorisable, smaller error). The
 * loop over groups of eight is kept rolled: inlined into a generated row
 * kernel with n a constant (codegen/fuse.c), clang unrolled it whole and
 * then left the 8 x n/8 terms scalar (an RMSNorm of 20 x 64 floats took
 * 494 ns so, 172 ns with one vector per group). */
#if defined(__clang__)
#define TNGRT_IMPL__ROLLED _Pragma("clang loop unroll(disable)")
#else
#define TNGRT_IMPL__ROLLED
#endif
TNGRT_KINLINE float tngrt_impl__sum_f32(const float *x, int64_t n, int mode, float c)
{
    float l[8] = {0, 0, 0, 0, 0, 0, 0, 0}, s = 0.0f;
    int64_t i = 0;
    TNGRT_IMPL__ROLLED
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++) {
            float v = mode == 2 ? x[i + j] - c : x[i + j];
            l[j] += mode ? v * v : v;
        }
    for (; i < n; i++) {
        float v = mode == 2 ? x[i] - c : x[i];
        s += mode ? v * v : v;
    }
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])) + s;
}

/* The same sum over a strided row of any dtype. */
TNGRT_KINLINE float tngrt_impl__sum_row(const TngrtArg *x, int64_t off, int64_t s, int64_t n,
                                   int mode, float c)
{
    float acc = 0.0f;
    if (x->dtype == TNGRT_F32 && s == 1)
        return tngrt_impl__sum_f32((const float *)x->data + off, n, mode, c);
    for (int64_t i = 0; i < n; i++) {
        float v = tngrt_impl__ldf(x, off + i * s);
        v = mode == 2 ? v - c : v;
        acc += mode ? v * v : v;
    }
    return acc;
}

/* Float reduction of x over the walk r from base (count > 0 elements). */
TNGRT_KINLINE float tngrt_impl__reduce_f(const TngrtArg *x, int64_t base,
                                         const TngrtImplWalk *r, TngrtReduceOp op)
{
    int64_t idx[TNGRT_MAX_DIMS] = {0}, off[3] = {base, 0, 0};
    float acc = op == TNGRT_RED_AMAX   ? -INFINITY
                : op == TNGRT_RED_AMIN ? INFINITY
                : op == TNGRT_RED_PROD ? 1.0f
                                       : 0.0f;
    do {
        int64_t n = r->shape[r->nd - 1], s = r->st[0][r->nd - 1];
        if (op == TNGRT_RED_SUM || op == TNGRT_RED_MEAN) {
            acc += tngrt_impl__sum_row(x, off[0], s, n, 0, 0.0f);
            continue;
        }
        for (int64_t i = 0; i < n; i++) {
            float v = tngrt_impl__ldf(x, off[0] + i * s);
            if (op == TNGRT_RED_PROD)
                acc *= v;
            else if ((op == TNGRT_RED_AMIN ? v < acc : v > acc) || v != v)
                acc = v; /* NaN sticks: nothing compares above (or below) it */
        }
    } while (tngrt_impl__walk_next(r, idx, off));
    return acc;
}

/* Int64 reduction (wrapping sum, max) of x over the walk r from base. */
static inline int64_t tngrt_impl__reduce_i(const TngrtArg *x, int64_t base,
                                           const TngrtImplWalk *r, TngrtReduceOp op)
{
    int64_t idx[TNGRT_MAX_DIMS] = {0}, off[3] = {base, 0, 0};
    uint64_t sum = 0, prod = 1;
    int64_t mx = INT64_MIN, mn = INT64_MAX;
    do {
        int64_t n = r->shape[r->nd - 1], s = r->st[0][r->nd - 1];
        for (int64_t i = 0; i < n; i++) {
            int64_t v = tngrt_impl__ldi(x, off[0] + i * s);
            sum += (uint64_t)v;
            prod *= (uint64_t)v;
            mx = v > mx ? v : mx;
            mn = v < mn ? v : mn;
        }
    } while (tngrt_impl__walk_next(r, idx, off));
    return op == TNGRT_RED_AMAX   ? mx
           : op == TNGRT_RED_AMIN ? mn
           : op == TNGRT_RED_PROD ? tngrt_impl__wrap(prod)
                                  : tngrt_impl__wrap(sum);
}

/* Reduces one output element (count elements of x from base) into out[o]. */
static inline void tngrt_impl__reduce_one(const TngrtArg *out, int64_t o, const TngrtArg *x,
                                          int64_t base, const TngrtImplWalk *r, int64_t count,
                                          TngrtReduceOp op)
{
    if (tngrt_impl__is_float(out->dtype)) {
        float v = count ? tngrt_impl__reduce_f(x, base, r, op)
                        : (op == TNGRT_RED_AMAX   ? -INFINITY
                           : op == TNGRT_RED_AMIN ? INFINITY
                           : op == TNGRT_RED_PROD ? 1.0f
                                                  : 0.0f);
        tngrt_impl__stf(out, o, op == TNGRT_RED_MEAN ? v / (float)count : v);
    } else {
        int64_t v = count ? tngrt_impl__reduce_i(x, base, r, op) : op == TNGRT_RED_PROD;
        tngrt_impl__sti(out, o, op == TNGRT_RED_MEAN && count ? v / count : v);
    }
}

TNGRT_KINLINE void tngrt_impl_reduce(const TngrtArg *out, const TngrtArg *x, TngrtReduceOp op,
                                     uint32_t dims_mask)
{
    TngrtImplWalk keep, red;
    int64_t xst[TNGRT_MAX_DIMS], idx[TNGRT_MAX_DIMS] = {0}, off[3] = {0, 0, 0}, t = 0, count;
    if (!tngrt_impl__rank_ok(x))
        return;
    tngrt_impl__bstrides(x->ndim, x->shape, x->ndim, xst);
    keep.nd = red.nd = 0;
    keep.nop = red.nop = 1;
    for (int d = 0; d < x->ndim; d++) {
        TngrtImplWalk *w = (dims_mask >> d) & 1u ? &red : &keep;
        w->shape[w->nd] = x->shape[d];
        w->st[0][w->nd++] = xst[d];
    }
    count = tngrt_impl__walk_collapse(&red);
    if (tngrt_impl__walk_collapse(&keep) == 0)
        return;
    do {
        int64_t n = keep.shape[keep.nd - 1], s = keep.st[0][keep.nd - 1];
        for (int64_t i = 0; i < n; i++)
            tngrt_impl__reduce_one(out, t++, x, off[0] + i * s, &red, count, op);
    } while (tngrt_impl__walk_next(&keep, idx, off));
}

/* e^d for a softmax's d = x - max (d <= 0, or NaN): tngrt_impl__exp's
 * polynomial with 2^n as one factor, which gives its bits wherever e^d is
 * a normal float (the product by a power of two is exact there); below
 * -87.33654 (ln(FLT_MIN) rounded up to a float: masked entries, -inf
 * included) 0 instead of a subnormal, whose arithmetic costs a microcode
 * assist per vector on x86 (a causal mask's half of the row made the exp
 * loop 1.6x slower). A sum of them is at least 1 (the max's term), which
 * no subnormal changes: log-softmax keeps its bits. NaN stays NaN. */
TNGRT_KINLINE float tngrt_impl__exp_le0(float d)
{
    const float round = 12582912.0f, lo = -87.33654f;
    union {
        float f;
        int32_t i;
    } s;
    float c = d >= lo ? d : 0.0f, n, r, p;   /* NaN too: its conversion to int below is undefined */
    n = (c * 1.44269504f + round) - round;
    r = (c - n * 0.693359375f) + n * 2.12194440e-4f;
    p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 +
        r * (1.0f / 720 + r * (1.0f / 5040)))))));
    s.i = ((int32_t)n + 127) * (1 << 23);
    p = d < lo ? 0.0f : p * s.f;
    return d != d ? d : p;
}

/* Online softmax of one contiguous float32 row (log: log-softmax): one
 * pass over chunks (at most 64 of them, each a multiple of 16 elements but
 * the last): the chunk's max, the running max M raised to it (the 16 lane
 * sums rescaled by e^{M_old - M}), e^{x - M} stored (softmax) and summed;
 * then one normalising pass scaling each chunk by e^{M_chunk - M} / sum
 * (1 / sum for the chunks after the last raise). A row that is all -inf
 * is NaN, as PyTorch's; NaN anywhere makes the row NaN. */
TNGRT_KINLINE void tngrt_impl__softmax_row_f32(float *o, const float *xr, int64_t len, int log)
{
    float cmax[64], l[16] = {0}, mx = -INFINITY, sum, r;
    int64_t csize = (len + 63) / 64, nc;
    csize = csize < 64 ? 64 : (csize + 15) / 16 * 16;
    nc = (len + csize - 1) / csize;
    for (int64_t c = 0; c < nc; c++) {
        const float *xc = xr + c * csize;
        int64_t n = len - c * csize < csize ? len - c * csize : csize, i = 0;
        float cm = mx, m16[16];
        for (int t = 0; t < 16; t++)
            m16[t] = -INFINITY;
        for (; i + 16 <= n; i += 16)
            for (int t = 0; t < 16; t++)
                m16[t] = (xc[i + t] > m16[t] || xc[i + t] != xc[i + t]) ? xc[i + t] : m16[t];
        for (; i < n; i++)
            cm = (xc[i] > cm || xc[i] != xc[i]) ? xc[i] : cm;
        for (int t = 0; t < 16; t++)
            cm = (m16[t] > cm || m16[t] != m16[t]) ? m16[t] : cm;
        if (cm != mx) {   /* raised (or NaN): rescale the sums so far */
            float f = mx == -INFINITY ? 0.0f : tngrt_impl__exp(mx - cm);
            for (int t = 0; t < 16; t++)
                l[t] *= f;
            mx = cm;
        }
        cmax[c] = mx;
        if (mx == -INFINITY) {   /* nothing but -inf so far: e^{x - M} is 0 */
            if (!log)
                memset(o + c * csize, 0, (size_t)n * sizeof(float));
            continue;
        }
        i = 0;
        if (log) {
            for (; i + 16 <= n; i += 16)
                for (int t = 0; t < 16; t++)
                    l[t] += tngrt_impl__exp_le0(xc[i + t] - mx);
            for (; i < n; i++)
                l[0] += tngrt_impl__exp_le0(xc[i] - mx);
        } else {
            float *oc = o + c * csize;
            for (; i + 16 <= n; i += 16)
                for (int t = 0; t < 16; t++)
                    l[t] += oc[i + t] = tngrt_impl__exp_le0(xc[i + t] - mx);
            for (; i < n; i++)
                l[0] += oc[i] = tngrt_impl__exp_le0(xc[i] - mx);
        }
    }
    for (int t = 0; t < 8; t++)
        l[t] += l[t + 8];
    sum = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
    if (mx == -INFINITY)
        sum = NAN;   /* e^{-inf - -inf}: every element NaN */
    if (log) {
        r = tngrt_impl__log(sum);
        for (int64_t i = 0; i < len; i++)
            o[i] = (xr[i] - mx) - r;
        return;
    }
    r = 1.0f / sum;
    for (int64_t c = 0; c < nc; c++) {
        float *oc = o + c * csize;
        int64_t n = len - c * csize < csize ? len - c * csize : csize;
        float f = cmax[c] == mx ? r : tngrt_impl__exp(cmax[c] - mx) * r;
        f = mx == -INFINITY || mx != mx ? NAN : f;
        for (int64_t i = 0; i < n; i++)
            oc[i] *= f;
    }
}

/* Softmax or log-softmax of one line (len elements, stride s, from base). */
TNGRT_KINLINE void tngrt_impl__softmax_line(const TngrtArg *out, const TngrtArg *x, int64_t base,
                                            int64_t s, int64_t len, int log)
{
    float mx = -INFINITY, sum = 0.0f, r;
    if (x->dtype == TNGRT_F32 && out->dtype == TNGRT_F32 && s == 1) {
        tngrt_impl__softmax_row_f32((float *)out->data + base, (const float *)x->data + base,
                                    len, log);
        return;
    }
    for (int64_t j = 0; j < len; j++) {
        float v = tngrt_impl__ldf(x, base + j * s);
        if (v > mx || v != v)
            mx = v;
    }
    if (out->dtype == TNGRT_F32 && !log) { /* exp once, stored, then scaled */
        float *o = (float *)out->data + base;
        for (int64_t j = 0; j < len; j++)
            sum += o[j * s] = tngrt_impl__exp(tngrt_impl__ldf(x, base + j * s) - mx);
        r = 1.0f / sum;
        for (int64_t j = 0; j < len; j++)
            o[j * s] *= r;
        return;
    }
    for (int64_t j = 0; j < len; j++)
        sum += tngrt_impl__exp(tngrt_impl__ldf(x, base + j * s) - mx);
    r = log ? tngrt_impl__log(sum) : 1.0f / sum;
    for (int64_t j = 0; j < len; j++) {
        float d = tngrt_impl__ldf(x, base + j * s) - mx;
        tngrt_impl__stf(out, base + j * s, log ? d - r : tngrt_impl__exp(d) * r);
    }
}

/* o = xr - max(xr) over one contiguous row of len (o may be xr). The max
 * runs in 16 lanes (4 below 16 elements) merged by halving: one compare
 * chain would be the row's latency. Any NaN wins, so the max, a value of
 * the row, is the same whatever the order (a +-0 tie does not matter, as
 * x - max and e^ of it are the same for either zero). */
TNGRT_KINLINE void tngrt_impl__sub_max_f32(float *o, const float *xr, int64_t len)
{
    float mx = -INFINITY, m[16];
    int64_t i = 0;
    int w = len >= 16 ? 8 : 2;
    for (int t = 0; t < 16; t++)
        m[t] = -INFINITY;
    for (; i + 16 <= len; i += 16)
        for (int t = 0; t < 16; t++)
            m[t] = (xr[i + t] > m[t] || xr[i + t] != xr[i + t]) ? xr[i + t] : m[t];
    for (; i + 4 <= len; i += 4)
        for (int t = 0; t < 4; t++)
            m[t] = (xr[i + t] > m[t] || xr[i + t] != xr[i + t]) ? xr[i + t] : m[t];
    for (; i < len; i++)
        mx = (xr[i] > mx || xr[i] != xr[i]) ? xr[i] : mx;
    for (; w >= 1; w /= 2)
        for (int t = 0; t < w; t++)
            m[t] = (m[t + w] > m[t] || m[t + w] != m[t + w]) ? m[t + w] : m[t];
    mx = (m[0] > mx || m[0] != m[0]) ? m[0] : mx;
    for (i = 0; i < len; i++)
        o[i] = xr[i] - mx;
}

/* Softmax of short contiguous float32 rows (attention's, len < 128; the
 * online form of tngrt_impl__softmax_row_f32 measured slower there): per
 * row x - max, e^ of it, 8 partial sums in a fixed order, scaled; e^ as
 * one flat loop over a block of rows, since per row it would be a loop of
 * len iterations, mostly a vector tail (2.8 us for 80 rows of
 * 10, 1.2 us this way). out may be x itself: a row is read whole (its
 * max) before it is written. */
TNGRT_KINLINE void tngrt_impl__softmax_rows_f32(float *o, const float *x, int64_t rows, int64_t len)
{
    int64_t block = len >= 2048 ? 1 : 2048 / len;
    for (int64_t r0 = 0; r0 < rows; r0 += block) {
        int64_t nr = rows - r0 < block ? rows - r0 : block;
        float *ob = o + r0 * len;
        const float *xb = x + r0 * len;
        for (int64_t r = 0; r < nr; r++)
            tngrt_impl__sub_max_f32(ob + r * len, xb + r * len, len);
        for (int64_t i = 0; i < nr * len; i++)
            ob[i] = tngrt_impl__exp_le0(ob[i]);
        for (int64_t r = 0; r < nr; r++) {
            float *orow = ob + r * len, rc = 1.0f / tngrt_impl__sum_f32(orow, len, 0, 0.0f);
            for (int64_t i = 0; i < len; i++)
                orow[i] *= rc;
        }
    }
}

TNGRT_KINLINE void tngrt_impl_softmax(const TngrtArg *out, const TngrtArg *x, int dim, int log)
{
    int64_t outer = 1, len = 1, inner = 1;
    if (!tngrt_impl__rank_ok(x))
        return;
    if (x->ndim > 0) {
        if ((dim = tngrt_impl__dim(dim, x->ndim)) < 0)
            return;
        outer = tngrt_impl__numel(dim, x->shape);
        len = x->shape[dim];
        inner = tngrt_impl__numel(x->ndim - dim - 1, x->shape + dim + 1);
    }
    if (inner == 1 && !log && len > 0 && len < 128 && x->dtype == TNGRT_F32 &&
        out->dtype == TNGRT_F32) {
        tngrt_impl__softmax_rows_f32((float *)out->data, (const float *)x->data, outer, len);
        return;
    }
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++)
            tngrt_impl__softmax_line(out, x, o * len * inner + i, inner, len, log);
}

TNGRT_KINLINE void tngrt_impl_layer_norm(const TngrtArg *out, const TngrtArg *x,
                                         const TngrtArg *w, const TngrtArg *b, int nnorm,
                                         double eps)
{
    int64_t n, rows;
    if (!tngrt_impl__rank_ok(x) || nnorm < 0 || nnorm > x->ndim)
        return;
    n = tngrt_impl__numel(nnorm, x->shape + x->ndim - nnorm);
    rows = tngrt_impl__numel(x->ndim - nnorm, x->shape);
    if (n <= 0)
        return;
    for (int64_t r = 0; r < rows; r++) {
        int64_t base = r * n;
        float mean = tngrt_impl__sum_row(x, base, 1, n, 0, 0.0f) / (float)n;
        float var = tngrt_impl__sum_row(x, base, 1, n, 2, mean) / (float)n;
        float rstd = 1.0f / sqrtf(var + (float)eps);
        if (x->dtype == TNGRT_F32 && out->dtype == TNGRT_F32 && (!w || w->dtype == TNGRT_F32) &&
            (!b || b->dtype == TNGRT_F32)) { /* the common case, vectorised */
            const float *xr = (const float *)x->data + base;
            float *o = (float *)out->data + base;
            const float *wf = w ? (const float *)w->data : NULL;
            const float *bf = b ? (const float *)b->data : NULL;
            for (int64_t j = 0; j < n; j++) {
                float v = (xr[j] - mean) * rstd;
                v = wf ? v * wf[j] : v;
                o[j] = bf ? v + bf[j] : v;
            }
            continue;
        }
        for (int64_t j = 0; j < n; j++) {
            float v = (tngrt_impl__ldf(x, base + j) - mean) * rstd;
            if (w)
                v *= tngrt_impl__ldf(w, j);
            if (b)
                v += tngrt_impl__ldf(b, j);
            tngrt_impl__stf(out, base + j, v);
        }
    }
}

TNGRT_KINLINE void tngrt_impl_rms_norm(const TngrtArg *y, const TngrtArg *rstd, const TngrtArg *x,
                                       const TngrtArg *gamma, double eps)
{
    int64_t n, rows;
    if (!tngrt_impl__rank_ok(x) || gamma->ndim < 0 || gamma->ndim > x->ndim)
        return;
    n = tngrt_impl__numel(gamma->ndim, x->shape + x->ndim - gamma->ndim);
    rows = tngrt_impl__numel(x->ndim - gamma->ndim, x->shape);
    for (int64_t r = 0; r < rows; r++) {
        int64_t base = r * n;
        /* rstd = rsqrt(mean(xf^2) + eps), each step in float */
        float ms = tngrt_impl__sum_row(x, base, 1, n, 1, 0.0f) / (float)n;
        float rs = 1.0f / sqrtf(ms + (float)eps);
        if (rstd)
            tngrt_impl__stf(rstd, r, rs);
        if (x->dtype == TNGRT_F32 && y->dtype == TNGRT_F32 && gamma->dtype == TNGRT_F32) {
            const float *xr = (const float *)x->data + base, *gf = gamma->data;
            float *o = (float *)y->data + base;
            for (int64_t j = 0; j < n; j++)
                o[j] = xr[j] * rs * gf[j];
            continue;
        }
        for (int64_t j = 0; j < n; j++)
            tngrt_impl__stf(y, base + j, tngrt_impl__ldf(x, base + j) * rs *
                                             tngrt_impl__ldf(gamma, j));
    }
}

TNGRT_KINLINE int tngrt_impl_embedding(const TngrtArg *out, const TngrtArg *weight,
                                       const TngrtArg *ids, TngrtError *err)
{
    int64_t rows, h, nids;
    if (!tngrt_impl__rank_ok(weight) || weight->ndim < 1 || !tngrt_impl__rank_ok(ids))
        return tngrt_impl__err(err, "embedding: weight must have at least 1 dim, got %d",
                               weight->ndim);
    rows = weight->shape[0];
    h = tngrt_impl__numel(weight->ndim - 1, weight->shape + 1);
    nids = tngrt_impl__numel(ids->ndim, ids->shape);
    for (int64_t i = 0; i < nids; i++) {
        int64_t id = tngrt_impl__ldi(ids, i);
        if (id < 0 || id >= rows)
            return tngrt_impl__bad_input(err, "embedding: id %lld out of range [0, %lld)",
                                         (long long)id, (long long)rows);
    }
    for (int64_t i = 0; i < nids; i++)
        tngrt_impl__cvt_row(out, i * h, 1, weight, tngrt_impl__ldi(ids, i) * h, 1, h);
    return 0;
}

/* The kernel families in files of their own (tngrt_impl_<family>.h), each
 * after the sections above, which they may use. */
/* ---- creation and constants ---- */
/* ---- shape ---- */
#include "tngrt_impl_shape.h"
/* ---- comparison, selection, bool ---- */
#include "tngrt_impl_compare.h"
/* ---- reductions, sorting, contractions ---- */
#include "tngrt_impl_reduce.h"
/* ---- indexing and scatter ---- */
#include "tngrt_impl_index.h"
/* ---- neural net ---- */
#include "tngrt_impl_nn.h"
/* ---- torch_npu fused ops ---- */
#include "tngrt_impl_npu.h"
/* ---- weight-only int8 product ---- */
#include "tngrt_impl_q8.h"

#endif
