/*
 * test_rt_nn.c - unit tests of libtngcrt's neural net kernels
 * (tngrt_kernels.h, "kernels: neural net") against reference loops in
 * double written here: attention (default and given scale, causal, bool and
 * float masks broadcast, a key/value head broadcast, a fully masked row;
 * lengths across several of kernels_attn.c's query blocks and key tiles,
 * and the bits of one thread on pools of 2 and 3),
 * convolution (stride, padding, dilation, groups, bias, 1-d; the direct
 * kernel's shapes with the fused batch norm, residual and relu), inference
 * batch norm, group norm, max/avg pooling (padding, count_include_pad),
 * adaptive pooling, nearest and bilinear interpolation, and a float16
 * operand for each family's dtype path.
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

#include "../../runtime/internal.h"
#include "../../runtime/tngrt_kernels.h"

/* A float32 TngrtArg over data with shape sh[0..n). */
static TngrtArg t_f32(float *data, int n, const int64_t *sh)
{
    TngrtArg a = {data, TNGRT_F32, n, sh};
    return a;
}

/* Deterministic pseudo-random floats in [-1, 1). */
static void t_fill(float *p, size_t n, unsigned seed)
{
    uint32_t s = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        p[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
}

/* |got - want| <= tol * (1 + |want|) for n values, NaN matching NaN. */
static void t_close(const float *got, const double *want, size_t n, double tol)
{
    for (size_t i = 0; i < n; i++) {
        if (isnan(want[i])) {
            if (!isnan(got[i]))
                fail_msg("element %zu: %g, expected NaN", i, (double)got[i]);
            continue;
        }
        if (fabs((double)got[i] - want[i]) > tol * (1.0 + fabs(want[i])))
            fail_msg("element %zu: %.9g, expected %.9g", i, (double)got[i], want[i]);
    }
}

/* ---------------- attention ---------------- */

/* Reference attention of one [L, E] x [S, E] head; keep(i, j) masks. */
static void ref_attn(const float *q, const float *k, const float *v, int L, int S, int E, int Ev,
                     double scale, int causal, const uint8_t *keep, const float *add, double *out)
{
    for (int i = 0; i < L; i++) {
        double s[256], mx = -INFINITY, sum = 0;   /* S <= 256 */
        int any = 0;
        for (int j = 0; j < S; j++) {
            double d = 0;
            for (int e = 0; e < E; e++)
                d += (double)q[i * E + e] * k[j * E + e];
            s[j] = d * scale + (add ? add[i * S + j] : 0.0);
            if ((causal && j > i) || (keep && !keep[i * S + j]))
                s[j] = -INFINITY;
            else
                any = 1;
            mx = s[j] > mx ? s[j] : mx;
        }
        for (int j = 0; j < S; j++)
            sum += s[j] == -INFINITY ? 0 : exp(s[j] - mx);
        for (int c = 0; c < Ev; c++) {
            double acc = 0;
            for (int j = 0; j < S; j++)
                acc += s[j] == -INFINITY ? 0 : exp(s[j] - mx) * v[j * Ev + c];
            out[i * Ev + c] = any ? acc / sum : NAN;
        }
    }
}

static void test_sdpa_plain_and_causal(void **state)
{
    (void)state;
    enum { B = 2, L = 5, S = 7, E = 4, Ev = 3 };
    float q[B * L * E], k[B * S * E], v[B * S * Ev], out[B * L * Ev];
    double want[B * L * Ev];
    int64_t qs[3] = {B, L, E}, ks[3] = {B, S, E}, vs[3] = {B, S, Ev}, os[3] = {B, L, Ev};
    t_fill(q, sizeof q / sizeof *q, 1);
    t_fill(k, sizeof k / sizeof *k, 2);
    t_fill(v, sizeof v / sizeof *v, 3);
    TngrtArg Q = t_f32(q, 3, qs), K = t_f32(k, 3, ks), V = t_f32(v, 3, vs), O = t_f32(out, 3, os);
    for (int causal = 0; causal < 2; causal++) {
        tngrt_kernel_sdpa(&O, &Q, &K, &V, NULL, causal, 0, 0.0);
        for (int b = 0; b < B; b++)
            ref_attn(q + b * L * E, k + b * S * E, v + b * S * Ev, L, S, E, Ev, 0.5, causal, NULL, NULL,
                     want + b * L * Ev);
        t_close(out, want, B * L * Ev, 1e-5);
    }
    tngrt_kernel_sdpa(&O, &Q, &K, &V, NULL, 0, 1, 0.3);
    for (int b = 0; b < B; b++)
        ref_attn(q + b * L * E, k + b * S * E, v + b * S * Ev, L, S, E, Ev, 0.3, 0, NULL, NULL, want + b * L * Ev);
    t_close(out, want, B * L * Ev, 1e-5);
}

static void test_sdpa_masks_and_broadcast(void **state)
{
    (void)state;
    enum { H = 3, L = 4, S = 5, E = 2 };
    float q[H * L * E], k[S * E], v[S * E], add[L * S], out[H * L * E];
    uint8_t keep[L * S];
    double want[H * L * E];
    int64_t qs[3] = {H, L, E}, ks[3] = {1, S, E}, ms[2] = {L, S}, os[3] = {H, L, E};
    t_fill(q, sizeof q / sizeof *q, 4);
    t_fill(k, sizeof k / sizeof *k, 5);
    t_fill(v, sizeof v / sizeof *v, 6);
    t_fill(add, sizeof add / sizeof *add, 7);
    for (int i = 0; i < L * S; i++)
        keep[i] = (uint8_t)((i * 7) % 3 != 0);
    memset(keep + 2 * S, 0, S); /* row 2: nothing kept -> NaN */
    TngrtArg Q = t_f32(q, 3, qs), K = t_f32(k, 3, ks), V = t_f32(v, 3, ks), O = t_f32(out, 3, os);
    TngrtArg M = {keep, TNGRT_BOOL, 2, ms}, A = t_f32(add, 2, ms);
    tngrt_kernel_sdpa(&O, &Q, &K, &V, &M, 0, 0, 0.0);
    for (int h = 0; h < H; h++)
        ref_attn(q + h * L * E, k, v, L, S, E, E, 1.0 / sqrt(2.0), 0, keep, NULL, want + h * L * E);
    t_close(out, want, H * L * E, 1e-5);
    tngrt_kernel_sdpa(&O, &Q, &K, &V, &A, 0, 0, 0.0);
    for (int h = 0; h < H; h++)
        ref_attn(q + h * L * E, k, v, L, S, E, E, 1.0 / sqrt(2.0), 0, NULL, add, want + h * L * E);
    t_close(out, want, H * L * E, 1e-5);
}

static void test_sdpa_half(void **state)
{
    (void)state;
    enum { L = 3, S = 3, E = 2 };
    uint16_t q[L * E], k[S * E], v[S * E], out[L * E];
    /* 1.0 in float16 is 0x3c00, 0.5 0x3800, 0 0 */
    for (int i = 0; i < L * E; i++)
        q[i] = k[i] = 0, v[i] = i % 2 ? 0x3c00 : 0x3800;
    int64_t sh[2] = {L, E};
    TngrtArg Q = {q, TNGRT_F16, 2, sh}, K = {k, TNGRT_F16, 2, sh}, V = {v, TNGRT_F16, 2, sh},
             O = {out, TNGRT_F16, 2, sh};
    tngrt_kernel_sdpa(&O, &Q, &K, &V, NULL, 1, 0, 0.0);
    for (int i = 0; i < L * E; i++)   /* uniform weights over equal rows */
        assert_int_equal(out[i], i % 2 ? 0x3c00 : 0x3800);
}

/* H heads [H, L, E] x [H, S, E] -> [H, L, Ev] (float32) against ref_attn
 * within 2e-5: no mask, or (masks) a bool mask with a row that keeps no
 * key and one that keeps only the last, then a float mask rising along the
 * keys (the running maximum grows tile by tile). */
static void t_tiled(int H, int L, int S, int E, int Ev, int causal, int masks, unsigned seed)
{
    float *q = malloc((size_t)(H * L * E) * sizeof *q), *k = malloc((size_t)(H * S * E) * sizeof *k);
    float *v = malloc((size_t)(H * S * Ev) * sizeof *v), *o = malloc((size_t)(H * L * Ev) * sizeof *o);
    float *add = malloc((size_t)(L * S) * sizeof *add);
    uint8_t *keep = malloc((size_t)(L * S));
    double *want = malloc((size_t)(H * L * Ev) * sizeof *want);
    int64_t qs[3] = {H, L, E}, ks[3] = {H, S, E}, vs[3] = {H, S, Ev}, os[3] = {H, L, Ev}, ms[2] = {L, S};
    assert_true(q && k && v && o && add && keep && want && S <= 256);
    t_fill(q, (size_t)(H * L * E), seed);
    t_fill(k, (size_t)(H * S * E), seed + 1);
    t_fill(v, (size_t)(H * S * Ev), seed + 2);
    t_fill(add, (size_t)(L * S), seed + 3);
    for (int i = 0; i < L * S; i++) {
        keep[i] = (uint8_t)((i * 7) % 3 != 0);
        add[i] += (float)(i % S) * 0.05f;
    }
    memset(keep + S, 0, (size_t)S);            /* row 1: no key kept -> NaN */
    memset(keep + 2 * S, 0, (size_t)(S - 1));  /* row 2: the last key only */
    TngrtArg Q = t_f32(q, 3, qs), K = t_f32(k, 3, ks), V = t_f32(v, 3, vs), O = t_f32(o, 3, os);
    TngrtArg M = {keep, TNGRT_BOOL, 2, ms}, A = t_f32(add, 2, ms);
    for (int m = 0; m <= masks; m++) {
        tngrt_kernel_sdpa(&O, &Q, &K, &V, masks ? (m ? &A : &M) : NULL, causal, 0, 0.0);
        for (int h = 0; h < H; h++)
            ref_attn(q + h * L * E, k + h * S * E, v + h * S * Ev, L, S, E, Ev, 1.0 / sqrt((double)E),
                     causal, masks && !m ? keep : NULL, m ? add : NULL, want + h * L * Ev);
        t_close(o, want, (size_t)(H * L * Ev), 2e-5);
    }
    free(q);
    free(k);
    free(v);
    free(o);
    free(add);
    free(keep);
    free(want);
}

/* Lengths past kernels_attn.c's 16-query blocks and 64-key tiles, with
 * tails; causal with L == S and L < S; bool and float masks. */
static void test_sdpa_tiles(void **state)
{
    (void)state;
    t_tiled(2, 150, 150, 32, 32, 1, 0, 11);
    t_tiled(2, 37, 200, 16, 24, 1, 0, 12);
    t_tiled(3, 40, 130, 8, 8, 0, 1, 13);
    t_tiled(1, 3, 65, 4, 4, 0, 1, 14);
}

/* 8 heads of 200 x 200 on pools of 2 and 3 threads: the bits of one. */
static void test_sdpa_threads(void **state)
{
    enum { H = 8, L = 200, E = 32, N = H * L * E };
    float *q = malloc(N * sizeof *q), *o1 = malloc(N * sizeof *o1), *o2 = malloc(N * sizeof *o2);
    int64_t sh[3] = {H, L, E};
    (void)state;
    assert_true(q && o1 && o2 && 2.0 * H * L * L * 2 * E >= TNGRT_GEMM_PAR_FLOP);
    t_fill(q, N, 15);
    TngrtArg Q = t_f32(q, 3, sh), O1 = t_f32(o1, 3, sh), O2 = t_f32(o2, 3, sh);
    for (int causal = 0; causal < 2; causal++) {
        tngrt_kernel_sdpa(&O1, &Q, &Q, &Q, NULL, causal, 0, 0.0);
        for (int th = 2; th <= 3; th++) {
            TngrtPar *p = tngrt__par_new(th);
            assert_non_null(p);
            memset(o2, 0, N * sizeof *o2);
            tngrt__par_enter(p);
            tngrt_kernel_sdpa(&O2, &Q, &Q, &Q, NULL, causal, 0, 0.0);
            tngrt__par_enter(NULL);
            assert_memory_equal(o1, o2, N * sizeof *o1);
            tngrt__par_delete(p);
        }
    }
    free(q);
    free(o1);
    free(o2);
}

/* ---------------- convolution ---------------- */

/* Reference 2-d convolution (1-d: H = KH = 1). */
static void ref_conv(const float *x, const float *w, const float *b, int N, int C, int H, int W, int O, int KH,
                     int KW, int sh, int sw, int ph, int pw, int dh, int dw, int g, int OH, int OW, double *out)
{
    int Cg = C / g, Og = O / g;
    for (int n = 0; n < N; n++)
        for (int o = 0; o < O; o++)
            for (int oh = 0; oh < OH; oh++)
                for (int ow = 0; ow < OW; ow++) {
                    double acc = b ? b[o] : 0;
                    for (int c = 0; c < Cg; c++)
                        for (int i = 0; i < KH; i++)
                            for (int j = 0; j < KW; j++) {
                                int y = oh * sh - ph + i * dh, xx = ow * sw - pw + j * dw;
                                if (y >= 0 && y < H && xx >= 0 && xx < W)
                                    acc += (double)x[((n * C + (o / Og) * Cg + c) * H + y) * W + xx] *
                                           w[((o * Cg + c) * KH + i) * KW + j];
                            }
                    out[((n * O + o) * OH + oh) * OW + ow] = acc;
                }
}

static void test_conv2d(void **state)
{
    (void)state;
    enum { N = 2, C = 4, H = 7, W = 6, O = 6, G = 2, KH = 3, KW = 2 };
    float x[N * C * H * W], w[O * (C / G) * KH * KW], b[O], out[N * O * 7 * 6];
    double want[N * O * 7 * 6];
    t_fill(x, sizeof x / sizeof *x, 8);
    t_fill(w, sizeof w / sizeof *w, 9);
    t_fill(b, O, 10);
    int64_t xs[4] = {N, C, H, W}, wsh[4] = {O, C / G, KH, KW}, bs[1] = {O};
    TngrtArg X = t_f32(x, 4, xs), Wt = t_f32(w, 4, wsh), Bi = t_f32(b, 1, bs);
    /* stride (2, 1), padding (1, 1), dilation (1, 2): OH = (7 + 2 - 3) / 2 + 1 = 4,
     * OW = (6 + 2 - 3) / 1 + 1 = 6 */
    int64_t os[4] = {N, O, 4, 6};
    TngrtArg Out = t_f32(out, 4, os);
    tngrt_kernel_conv(&Out, &X, &Wt, &Bi, 2, 2, 1, 1, 1, 1, 1, 1, 2, G);
    ref_conv(x, w, b, N, C, H, W, O, KH, KW, 2, 1, 1, 1, 1, 2, G, 4, 6, want);
    t_close(out, want, N * O * 4 * 6, 1e-5);
    /* no bias, no padding */
    int64_t os2[4] = {N, O, 5, 5};
    TngrtArg Out2 = t_f32(out, 4, os2);
    tngrt_kernel_conv(&Out2, &X, &Wt, NULL, 2, 1, 1, 0, 0, 0, 0, 1, 1, G);
    ref_conv(x, w, NULL, N, C, H, W, O, KH, KW, 1, 1, 0, 0, 1, 1, G, 5, 5, want);
    t_close(out, want, N * O * 5 * 5, 1e-5);
}

static void test_conv1d(void **state)
{
    (void)state;
    enum { N = 2, C = 3, L = 9, O = 4, K = 3 };
    float x[N * C * L], w[O * C * K], out[N * O * 5];
    double want[N * O * 5];
    t_fill(x, sizeof x / sizeof *x, 11);
    t_fill(w, sizeof w / sizeof *w, 12);
    int64_t xs[3] = {N, C, L}, wsh[3] = {O, C, K}, os[3] = {N, O, 5};
    TngrtArg X = t_f32(x, 3, xs), Wt = t_f32(w, 3, wsh), Out = t_f32(out, 3, os);
    /* stride 2, padding 1: (9 + 2 - 3) / 2 + 1 = 5; the h parameters are ignored */
    tngrt_kernel_conv(&Out, &X, &Wt, NULL, 1, 7, 2, 7, 1, 7, 1, 7, 1, 1);
    ref_conv(x, w, NULL, N, C, 1, L, O, 1, K, 1, 2, 0, 1, 1, 1, 1, 1, 5, want);
    t_close(out, want, N * O * 5, 1e-5);
}

/* The epilogue of tngrt_kernel_conv_epi over want [N, O, P] in double:
 * batch norm (mean, var, g, b), then + res, then relu. */
static void ref_conv_epi(double *want, int N, int O, int P, const float *mean, const float *var,
                         const float *g, const float *b, double eps, const float *res, int relu)
{
    for (int n = 0; n < N; n++)
        for (int o = 0; o < O; o++)
            for (int p = 0; p < P; p++) {
                double *v = &want[(n * O + o) * P + p];
                if (mean)
                    *v = (*v - mean[o]) / sqrt((double)var[o] + eps) * g[o] + b[o];
                if (res)
                    *v += res[(n * O + o) * P + p];
                if (relu && *v < 0)
                    *v = 0;
            }
}

/* One convolution through tngrt_kernel_conv_epi (and, with no epilogue,
 * tngrt_kernel_conv) against ref_conv: the direct kernel's shapes (1 x 1,
 * 3 x 3, stride 1 and 2, widths that are and are not multiples of its
 * vector, output channels that are not multiples of its block) and, with
 * groups or dilation, the generic path followed by the epilogue. */
static void t_conv_case(int N, int C, int H, int W, int O, int K, int s, int p, int p1, int d,
                        int g, int bn, int res, int relu)
{
    int OH = (H + p + p1 - d * (K - 1) - 1) / s + 1, OW = (W + p + p1 - d * (K - 1) - 1) / s + 1;
    size_t nx = (size_t)N * C * H * W, nw = (size_t)O * (C / g) * K * K, no = (size_t)N * O * OH * OW;
    float *x = malloc(nx * sizeof *x), *w = malloc(nw * sizeof *w), *out = malloc(no * sizeof *out);
    float *r = malloc(no * sizeof *r), st[4][64], bias[64];
    double *want = malloc(no * sizeof *want);
    assert_non_null(x), assert_non_null(w), assert_non_null(out), assert_non_null(r),
        assert_non_null(want);
    t_fill(x, nx, (unsigned)(C * 7 + K));
    t_fill(w, nw, (unsigned)(O * 3 + s));
    t_fill(r, no, 5);
    t_fill(bias, 64, 6);
    for (int k = 0; k < 4; k++)
        t_fill(st[k], 64, (unsigned)(20 + k));
    for (int o = 0; o < 64; o++)
        st[1][o] = st[1][o] * 0.5f + 1.0f, st[2][o] += 1.5f;   /* var > 0, weight away from 0 */
    int64_t xs[4] = {N, C, H, W}, ws[4] = {O, C / g, K, K}, os[4] = {N, O, OH, OW}, cs[1] = {O};
    TngrtArg X = t_f32(x, 4, xs), Wt = t_f32(w, 4, ws), Out = t_f32(out, 4, os), R = t_f32(r, 4, os);
    TngrtArg B = t_f32(bias, 1, cs), M = t_f32(st[0], 1, cs), V = t_f32(st[1], 1, cs);
    TngrtArg G = t_f32(st[2], 1, cs), Bb = t_f32(st[3], 1, cs);
    TngrtConvEpi e = {bn ? &M : NULL, &V, &G, &Bb, 1e-5, res ? &R : NULL, relu};
    ref_conv(x, w, bias, N, C, H, W, O, K, K, s, s, p, p, d, d, g, OH, OW, want);
    if (!bn && !res && !relu) {
        tngrt_kernel_conv(&Out, &X, &Wt, &B, 2, s, s, p, p, p1, p1, d, d, g);
        t_close(out, want, no, 1e-5);
    }
    ref_conv_epi(want, N, O, OH * OW, bn ? st[0] : NULL, st[1], st[2], st[3], 1e-5,
                 res ? r : NULL, relu);
    assert_int_equal(tngrt_kernel_conv_epi(&Out, &X, &Wt, &B, 2, s, s, p, p, p1, p1, d, d, g, &e, NULL), 0);
    t_close(out, want, no, 1e-5);
    free(x), free(w), free(out), free(r), free(want);
}

static void test_conv_epi(void **state)
{
    (void)state;
    t_conv_case(2, 3, 9, 13, 5, 3, 1, 1, 1, 1, 1, 1, 0, 1);      /* 3 x 3, O < block */
    t_conv_case(1, 16, 8, 8, 17, 3, 1, 1, 1, 1, 1, 1, 1, 1);     /* residual, O past a block */
    t_conv_case(2, 8, 11, 10, 8, 3, 2, 1, 1, 1, 1, 0, 0, 0);     /* stride 2, row pairs */
    t_conv_case(1, 4, 16, 17, 9, 3, 2, 1, 0, 1, 1, 1, 0, 1);     /* padding after 0 */
    t_conv_case(2, 12, 5, 7, 24, 1, 1, 0, 0, 1, 1, 0, 1, 1);     /* 1 x 1 */
    t_conv_case(1, 6, 9, 9, 7, 1, 2, 0, 0, 1, 1, 1, 0, 0);       /* 1 x 1 stride 2 */
    t_conv_case(2, 5, 3, 8, 9, 1, 1, 0, 0, 1, 1, 1, 1, 1);       /* 1 x 1, x read in place */
    t_conv_case(2, 7, 2, 16, 8, 1, 1, 0, 0, 1, 1, 0, 1, 0);      /* the same, 16-wide rows */
    t_conv_case(2, 6, 4, 8, 10, 1, 1, 0, 0, 1, 1, 1, 1, 1);      /* the same, row pairs */
    t_conv_case(1, 3, 6, 20, 4, 3, 1, 0, 0, 1, 1, 0, 0, 0);      /* no padding */
    t_conv_case(2, 4, 8, 8, 6, 3, 1, 1, 1, 1, 2, 1, 1, 1);       /* groups: generic + epilogue */
    t_conv_case(1, 4, 9, 9, 5, 3, 1, 2, 2, 2, 1, 1, 0, 1);       /* dilation: generic */
    t_conv_case(1, 2, 7, 7, 3, 5, 1, 2, 2, 1, 1, 0, 0, 1);       /* 5 x 5: generic */
    t_conv_case(2, 12, 9, 21, 13, 3, 1, 1, 1, 1, 1, 1, 1, 1);    /* Winograd, odd sizes, residual */
    t_conv_case(1, 9, 7, 40, 5, 3, 1, 0, 0, 1, 1, 0, 0, 1);      /* Winograd, no padding, 3 groups */
    t_conv_case(2, 16, 6, 6, 8, 3, 1, 2, 2, 1, 1, 1, 0, 0);      /* Winograd, padding 2 */
    t_conv_case(1, 8, 5, 9, 3, 3, 1, 1, 0, 1, 1, 0, 1, 1);       /* Winograd, padding after 0 */
    t_conv_case(1, 64, 8, 8, 4, 3, 1, 1, 1, 1, 1, 0, 0, 0);      /* Winograd, a deep sum */
    /* whole register tiles, whose epilogue runs on the whole vectors: */
    t_conv_case(2, 3, 6, 32, 16, 3, 1, 1, 1, 1, 1, 1, 1, 1);     /* 16-wide rows, bn, residual */
    t_conv_case(2, 16, 16, 16, 16, 3, 2, 1, 1, 1, 1, 1, 1, 1);   /* stride 2, rows of 8 in pairs */
    t_conv_case(1, 8, 7, 8, 16, 1, 1, 0, 0, 1, 1, 1, 1, 1);      /* 1 x 1 pairs, an odd row left */
}

/* The direct and Winograd sums have the same bits in every clone of the
 * kernel (fused multiply-adds in each: fmaf in C, vfmadd with AVX2+FMA and
 * AVX-512); the clones this CPU lacks fall back to the next. */
extern int tngrt__conv_isa;

static void t_conv_isa_case(int N, int C, int H, int W, int O, int K, int s, int p)
{
    int OH = (H + 2 * p - K) / s + 1, OW = (W + 2 * p - K) / s + 1;
    size_t nx = (size_t)N * C * H * W, nw = (size_t)O * C * K * K, no = (size_t)N * O * OH * OW;
    float *x = malloc(nx * sizeof *x), *w = malloc(nw * sizeof *w), bias[32];
    float *got[3] = {malloc(no * sizeof(float)), malloc(no * sizeof(float)), malloc(no * sizeof(float))};
    assert_non_null(x), assert_non_null(w);
    t_fill(x, nx, (unsigned)(C + H));
    t_fill(w, nw, (unsigned)(O + K));
    t_fill(bias, 32, 9);
    int64_t xs[4] = {N, C, H, W}, ws[4] = {O, C, K, K}, os[4] = {N, O, OH, OW}, cs[1] = {O};
    TngrtArg X = t_f32(x, 4, xs), Wt = t_f32(w, 4, ws), B = t_f32(bias, 1, cs);
    for (int isa = 0; isa < 3; isa++) {
        assert_non_null(got[isa]);
        TngrtArg Out = t_f32(got[isa], 4, os);
        tngrt__conv_isa = isa;
        tngrt_kernel_conv(&Out, &X, &Wt, &B, 2, s, s, p, p, p, p, 1, 1, 1);
    }
    tngrt__conv_isa = -1;
    assert_memory_equal(got[0], got[1], no * sizeof(float));
    assert_memory_equal(got[0], got[2], no * sizeof(float));
    free(x), free(w), free(got[0]), free(got[1]), free(got[2]);
}

static void test_conv_isa_bits(void **state)
{
    (void)state;
    t_conv_isa_case(2, 12, 9, 21, 13, 3, 1, 1);   /* Winograd, 16-tile groups part-filled */
    t_conv_isa_case(1, 8, 6, 7, 8, 3, 1, 0);      /* Winograd, no padding */
    t_conv_isa_case(2, 3, 11, 13, 9, 3, 1, 1);    /* direct 3 x 3 (3 channels) */
    t_conv_isa_case(2, 10, 11, 18, 17, 3, 2, 1);  /* direct stride 2 */
    t_conv_isa_case(1, 20, 5, 16, 11, 1, 1, 0);   /* direct 1 x 1 */
}

/* bfloat16 of a float: its high half, rounded to nearest even (the values
 * used here are exact or need no care about NaN). */
static uint16_t t_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static float t_from_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The direct (non-CBLAS) loops: bfloat16 operands. */
static void test_bf16_direct(void **state)
{
    (void)state;
    enum { C = 2, H = 3, W = 3, O = 2, L = 4, S = 5, E = 3 };
    float xf[C * H * W], wf[O * C * 2 * 2], of[O * 2 * 2], qf[L * E], kf[S * E], vf[S * E], af[L * E];
    uint16_t x[C * H * W], w[O * C * 2 * 2], out[O * 2 * 2], q[L * E], k[S * E], v[S * E], a[L * E];
    double want[O * 2 * 2], wa[L * E];
    t_fill(xf, sizeof xf / sizeof *xf, 15);
    t_fill(wf, sizeof wf / sizeof *wf, 16);
    t_fill(qf, sizeof qf / sizeof *qf, 17);
    t_fill(kf, sizeof kf / sizeof *kf, 18);
    t_fill(vf, sizeof vf / sizeof *vf, 19);
    for (size_t i = 0; i < sizeof x / sizeof *x; i++)
        x[i] = t_bf16(xf[i]), xf[i] = t_from_bf16(x[i]);
    for (size_t i = 0; i < sizeof w / sizeof *w; i++)
        w[i] = t_bf16(wf[i]), wf[i] = t_from_bf16(w[i]);
    for (size_t i = 0; i < L * E; i++)
        q[i] = t_bf16(qf[i]), qf[i] = t_from_bf16(q[i]);
    for (size_t i = 0; i < S * E; i++) {
        k[i] = t_bf16(kf[i]), kf[i] = t_from_bf16(k[i]);
        v[i] = t_bf16(vf[i]), vf[i] = t_from_bf16(v[i]);
    }
    int64_t xs[4] = {1, C, H, W}, wsh[4] = {O, C, 2, 2}, os[4] = {1, O, 2, 2};
    TngrtArg X = {x, TNGRT_BF16, 4, xs}, Wt = {w, TNGRT_BF16, 4, wsh}, Out = {out, TNGRT_BF16, 4, os};
    tngrt_kernel_conv(&Out, &X, &Wt, NULL, 2, 1, 1, 0, 0, 0, 0, 1, 1, 1);
    ref_conv(xf, wf, NULL, 1, C, H, W, O, 2, 2, 1, 1, 0, 0, 1, 1, 1, 2, 2, want);
    for (int i = 0; i < O * 4; i++)
        of[i] = t_from_bf16(out[i]);
    t_close(of, want, O * 4, 1e-2);
    int64_t qs[2] = {L, E}, ks[2] = {S, E};
    TngrtArg Q = {q, TNGRT_BF16, 2, qs}, K = {k, TNGRT_BF16, 2, ks}, V = {v, TNGRT_BF16, 2, ks},
             A = {a, TNGRT_BF16, 2, qs};
    tngrt_kernel_sdpa(&A, &Q, &K, &V, NULL, 1, 0, 0.0);
    ref_attn(qf, kf, vf, L, S, E, E, 1.0 / sqrt(3.0), 1, NULL, NULL, wa);
    for (int i = 0; i < L * E; i++)
        af[i] = t_from_bf16(a[i]);
    t_close(af, wa, L * E, 1e-2);
}

/* ---------------- normalisation ---------------- */

static void test_batch_norm(void **state)
{
    (void)state;
    enum { N = 2, C = 3, S = 5 };
    float x[N * C * S], out[N * C * S], mean[C] = {0.5f, -1, 0}, var[C] = {1, 4, 0.25f}, w[C] = {2, 1, -1},
                                         b[C] = {0, 1, 3};
    double want[N * C * S];
    t_fill(x, sizeof x / sizeof *x, 13);
    int64_t xs[3] = {N, C, S}, cs[1] = {C};
    TngrtArg X = t_f32(x, 3, xs), O = t_f32(out, 3, xs), M = t_f32(mean, 1, cs), V = t_f32(var, 1, cs),
             Wt = t_f32(w, 1, cs), Bi = t_f32(b, 1, cs);
    tngrt_kernel_batch_norm(&O, &X, &M, &V, &Wt, &Bi, 1e-3);
    for (int i = 0; i < N * C * S; i++) {
        int c = (i / S) % C;
        want[i] = (x[i] - mean[c]) / sqrt(var[c] + 1e-3) * w[c] + b[c];
    }
    t_close(out, want, N * C * S, 1e-5);
    tngrt_kernel_batch_norm(&O, &X, &M, &V, NULL, NULL, 1e-5);
    for (int i = 0; i < N * C * S; i++) {
        int c = (i / S) % C;
        want[i] = (x[i] - mean[c]) / sqrt(var[c] + 1e-5);
    }
    t_close(out, want, N * C * S, 1e-5);
}

static void test_group_norm(void **state)
{
    (void)state;
    enum { N = 2, C = 4, S = 6, G = 2 };
    float x[N * C * S], out[N * C * S], w[C] = {1, 2, 3, 4}, b[C] = {0, -1, 1, 0};
    double want[N * C * S];
    t_fill(x, sizeof x / sizeof *x, 14);
    int64_t xs[3] = {N, C, S}, cs[1] = {C};
    TngrtArg X = t_f32(x, 3, xs), O = t_f32(out, 3, xs), Wt = t_f32(w, 1, cs), Bi = t_f32(b, 1, cs);
    tngrt_kernel_group_norm(&O, &X, &Wt, &Bi, G, 1e-5);
    for (int n = 0; n < N; n++)
        for (int g = 0; g < G; g++) {
            int base = (n * C + g * (C / G)) * S, len = (C / G) * S;
            double m = 0, v = 0;
            for (int i = 0; i < len; i++)
                m += x[base + i];
            m /= len;
            for (int i = 0; i < len; i++)
                v += (x[base + i] - m) * (x[base + i] - m);
            v /= len;
            for (int i = 0; i < len; i++) {
                int c = g * (C / G) + i / S;
                want[base + i] = (x[base + i] - m) / sqrt(v + 1e-5) * w[c] + b[c];
            }
        }
    t_close(out, want, N * C * S, 1e-5);
}

/* ---------------- pooling ---------------- */

static void test_pool2d(void **state)
{
    (void)state;
    /* one 4x4 plane 0..15, kernel 3, stride 2, padding 1 -> 2x2 */
    float x[16], out[4];
    for (int i = 0; i < 16; i++)
        x[i] = (float)i;
    int64_t xs[3] = {1, 4, 4}, os[3] = {1, 2, 2};
    TngrtArg X = t_f32(x, 3, xs), O = t_f32(out, 3, os);
    tngrt_kernel_pool2d(&O, &X, 1, 3, 3, 2, 2, 1, 1, 0);
    double mx[4] = {5, 7, 13, 15};
    t_close(out, mx, 4, 0);
    /* window (0,0) covers rows/cols -1..1: real elements 0, 1, 4, 5 */
    tngrt_kernel_pool2d(&O, &X, 0, 3, 3, 2, 2, 1, 1, 1);
    double inc[4] = {10.0 / 9, (1 + 2 + 3 + 5 + 6 + 7) / 9.0, (4 + 5 + 8 + 9 + 12 + 13) / 9.0,
                     (5 + 6 + 7 + 9 + 10 + 11 + 13 + 14 + 15) / 9.0};
    t_close(out, inc, 4, 1e-6);
    tngrt_kernel_pool2d(&O, &X, 0, 3, 3, 2, 2, 1, 1, 0);
    double exc[4] = {10.0 / 4, 24.0 / 6, 51.0 / 6, 90.0 / 9};
    t_close(out, exc, 4, 1e-6);
    /* NaN wins a max window */
    x[5] = NAN;
    tngrt_kernel_pool2d(&O, &X, 1, 3, 3, 2, 2, 1, 1, 0);
    double nanw[4] = {NAN, NAN, NAN, 15};
    t_close(out, nanw, 4, 0);
    /* no padding (the row-at-a-time float32 loop): kernel 2 stride 2 and
     * kernel 3 stride 1, NaN still winning */
    tngrt_kernel_pool2d(&O, &X, 1, 2, 2, 2, 2, 0, 0, 0);
    double k2[4] = {NAN, 7, 13, 15};
    t_close(out, k2, 4, 0);
    x[5] = -3.0f;
    tngrt_kernel_pool2d(&O, &X, 1, 3, 3, 1, 1, 0, 0, 0);
    double k3[4] = {10, 11, 14, 15};
    t_close(out, k3, 4, 0);
    x[10] = x[11] = x[14] = x[15] = -100.0f;   /* window (1, 1): 6 7 / 9 -100 / 13 -100 */
    tngrt_kernel_pool2d(&O, &X, 1, 3, 3, 1, 1, 0, 0, 0);
    double k3b[4] = {9, 9, 13, 13};
    t_close(out, k3b, 4, 0);
    /* 2 x 2 stride 2 over rows of 9 outputs (8 a vector at a time, one
     * after): NaN in either row and either column of a window wins */
    float y[2 * 4 * 18], oy[2 * 2 * 9];
    double wy[2 * 2 * 9];
    t_fill(y, sizeof y / sizeof *y, 31);
    y[3] = NAN, y[18 + 6] = NAN, y[36 + 17] = NAN, y[72 + 18 + 1] = NAN;
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 9; j++) {
                const float *r = y + p * 72 + 2 * i * 18 + 2 * j;
                double m = -INFINITY;
                for (int k = 0; k < 4; k++) {
                    double v = r[(k / 2) * 18 + k % 2];
                    m = isnan(m) ? m : (v > m || isnan(v)) ? v : m;
                }
                wy[(p * 2 + i) * 9 + j] = m;
            }
    int64_t ys[3] = {2, 4, 18}, oys[3] = {2, 2, 9};
    TngrtArg Y = t_f32(y, 3, ys), OY = t_f32(oy, 3, oys);
    tngrt_kernel_pool2d(&OY, &Y, 1, 2, 2, 2, 2, 0, 0, 0);
    t_close(oy, wy, 2 * 2 * 9, 0);
}

static void test_adaptive_pool2d(void **state)
{
    (void)state;
    /* a 1x5 row to 3 outputs: windows [0,2), [1,4), [3,5) */
    float x[5] = {1, 2, 3, 4, 5}, out[3];
    int64_t xs[4] = {1, 1, 1, 5}, os[4] = {1, 1, 1, 3};
    TngrtArg X = t_f32(x, 4, xs), O = t_f32(out, 4, os);
    tngrt_kernel_adaptive_pool2d(&O, &X, 0);
    double avg[3] = {1.5, 3, 4.5};
    t_close(out, avg, 3, 1e-6);
    tngrt_kernel_adaptive_pool2d(&O, &X, 1);
    double mx[3] = {2, 4, 5};
    t_close(out, mx, 3, 0);
}

/* ---------------- interpolation ---------------- */

static void test_interpolate(void **state)
{
    (void)state;
    float x[4] = {0, 1, 2, 3}, out[16];
    int64_t xs[4] = {1, 1, 2, 2}, os[4] = {1, 1, 4, 4};
    TngrtArg X = t_f32(x, 4, xs), O = t_f32(out, 4, os);
    tngrt_kernel_interpolate(&O, &X, 0, 0, 0.0, 0.0);
    double near[16] = {0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3};
    t_close(out, near, 16, 0);
    /* align_corners: the corners map to corners, steps of 1/3 */
    tngrt_kernel_interpolate(&O, &X, 1, 1, 0.0, 0.0);
    double ac[16];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            ac[i * 4 + j] = 2.0 * i / 3.0 + j / 3.0;
    t_close(out, ac, 16, 1e-6);
    /* half-pixel centres: source (dst + 0.5) / 2 - 0.5, clamped at 0 */
    tngrt_kernel_interpolate(&O, &X, 1, 0, 0.0, 0.0);
    double hp[16];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double sy = fmin(fmax((i + 0.5) / 2 - 0.5, 0), 1), sx = fmin(fmax((j + 0.5) / 2 - 0.5, 0), 1);
            hp[i * 4 + j] = 2 * sy + sx;
        }
    t_close(out, hp, 16, 1e-6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sdpa_plain_and_causal),
        cmocka_unit_test(test_sdpa_masks_and_broadcast),
        cmocka_unit_test(test_sdpa_half),
        cmocka_unit_test(test_sdpa_tiles),
        cmocka_unit_test(test_sdpa_threads),
        cmocka_unit_test(test_conv2d),
        cmocka_unit_test(test_conv1d),
        cmocka_unit_test(test_conv_epi),
        cmocka_unit_test(test_conv_isa_bits),
        cmocka_unit_test(test_bf16_direct),
        cmocka_unit_test(test_batch_norm),
        cmocka_unit_test(test_group_norm),
        cmocka_unit_test(test_pool2d),
        cmocka_unit_test(test_adaptive_pool2d),
        cmocka_unit_test(test_interpolate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
