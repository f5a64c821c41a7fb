/*
 * kernels_conv.c - 2-d convolution with its epilogue in one pass:
 * tngrt_kernel_conv_epi (contract in tngrt_kernels.h). A float32
 * convolution with groups 1, dilation 1, stride 1 or 2 (the same along
 * both dims) and a 1 x 1 or 3 x 3 window runs the direct kernel here; any
 * other runs tngrt_impl_conv, then the epilogue over its output.
 * tngrt_kernel_conv (kernels_nn.c) tries the direct kernel first too.
 *
 * The direct kernel: per sample, the input is copied once into a zeroed
 * scratch holding the padding, split by stride phase (stride 2: the four
 * planes of even/odd rows and columns, so that every window tap reads
 * consecutive elements); the weights are reordered into blocks of
 * CONV_OB output channels [C][taps][CONV_OB] (channels past O zero).
 * Each output row is computed CONV_VW positions at a time for CONV_OB
 * channels in registers: per input channel and tap, one load of CONV_VW
 * inputs and CONV_OB broadcast weights. Positions past the row's end read
 * the next row's scratch (never past the scratch: conv__layout checks the
 * bound) and are not stored. The epilogue, per channel o and position:
 * v = acc + bias[o]; then the batch norm as tngrt_impl_batch_norm computes
 * it (a = weight / sqrt(var + eps), v * a + (bias - mean * a)); then + the
 * residual; then relu (v < 0 ? 0 : v). Each is a separate float
 * operation: the bits of the separate kernels on the same convolution
 * result (the runtime is compiled without FP contraction).
 *
 * A 3 x 3 stride-1 convolution from 8 input channels on takes the
 * Winograd form F(2 x 2, 3 x 3) instead (WINO__BLOCK: 16 products per 2 x
 * 2 outputs and input channel instead of 36), with the same epilogue.
 * The sums of both forms are fused multiply-adds written out in each
 * instruction set's clone (vfmadd with AVX-512 or AVX2+FMA, fmaf in C),
 * so a result has the same bits on every machine, fused or not.
 *
 * Work splits over the current pool's threads by (sample, channel block)
 * from TNGRT_GEMM_PAR_FLOP multiply-adds on.
 */
#include "tngrt_kernel_impl.h"

#include "internal.h"
#include "kernels_isa.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && !defined(TNGRT_NO_ISA)
#include <immintrin.h>
#endif

/* Output channels per register block and positions per vector. */
#define CONV_OB 8
#define CONV_VW 8
/* The largest window the direct kernel takes (3 x 3: 9 taps). */
#define CONV_MAX_TAPS 9

#if defined(__GNUC__) || defined(__clang__)
typedef float conv_v8 __attribute__((vector_size(CONV_VW * sizeof(float))));
typedef float conv_v16 __attribute__((vector_size(2 * CONV_VW * sizeof(float))));
#define CONV_INLINE static inline __attribute__((always_inline))
#else
#error "kernels_conv.c needs GNU C vector extensions"
#endif

/* The scratch layout of one sample's padded, phase-split input. */
typedef struct {
    int64_t s;          /* stride (1 or 2) */
    int64_t hh, wh;     /* rows and columns of one phase plane */
    int64_t ps;         /* floats per plane, its slack included */
    int64_t cs;         /* floats per input channel: s * s planes */
    int ntaps;
    int64_t toff[CONV_MAX_TAPS];   /* tap (kh, kw)'s offset in a channel's block */
} ConvLayout;

/* 1 where the CPU has 32 vector registers (AVX-512): a register tile of
 * two vectors for 8 channels (16 sums) fits only there. */
static int conv__regs32(void)
{
#if defined(__x86_64__) && !defined(TNGRT_NO_ISA)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
#else
    return 0;
#endif
}

/* The epilogue's per-channel constants: v = (acc + b) * a + sh where
 * has_bn, else acc + b. */
typedef struct {
    float *a, *sh, *b;
    int has_bn;
    const float *res;
    int relu;
} ConvEpiRow;

/* Fills L for x [N, C, H, W] and out [N, O, OH, OW]; 0 when the direct
 * kernel's reads would leave the scratch. */
static int conv__layout(ConvLayout *L, int64_t H, int64_t W, int64_t KH, int64_t KW, int64_t OH,
                        int64_t OW, int64_t s, int64_t ph, int64_t pw, int64_t ph1, int64_t pw1)
{
    int64_t hp = H + ph + ph1, wp = W + pw + pw1;
    int64_t tw = 2 * CONV_VW, owr = (OW + tw - 1) / tw * tw;
    L->s = s;
    L->hh = (hp + s - 1) / s;
    L->wh = (wp + s - 1) / s;
    L->ps = L->hh * L->wh + owr + tw;
    L->cs = s * s * L->ps;
    L->ntaps = (int)(KH * KW);
    for (int64_t kh = 0; kh < KH; kh++)
        for (int64_t kw = 0; kw < KW; kw++)
            L->toff[kh * KW + kw] = ((kh % s) * s + kw % s) * L->ps + (kh / s) * L->wh + kw / s;
    /* the furthest read of a plane: the last row's last tile (16 floats at
     * most) at the largest tap shift */
    int64_t far = (OH - 1) * L->wh + owr + (KH - 1) / s * L->wh + (KW - 1) / s;
    return OW <= L->wh && far <= L->ps;
}

/* Splits src [n] by parity into row (q = i + pw: element i at row[(q %
 * 2) * ps + q / 2]), 2 * CONV_VW elements at a time. */
CONV_INLINE void conv__split_row(float *row, const float *src, int64_t n, int64_t pw, int64_t ps)
{
    /* even i = 2k: plane pw % 2, index k + pw / 2; odd: the other plane,
     * index k + (pw + 1) / 2 */
    float *ev = row + (pw % 2) * ps + pw / 2, *od = row + ((pw + 1) % 2) * ps + (pw + 1) / 2;
    int64_t i = 0;
    for (; i + 2 * CONV_VW <= n; i += 2 * CONV_VW) {
        conv_v8 a0, a1;
        memcpy(&a0, src + i, sizeof a0);
        memcpy(&a1, src + i + CONV_VW, sizeof a1);
        conv_v8 e = __builtin_shufflevector(a0, a1, 0, 2, 4, 6, 8, 10, 12, 14);
        conv_v8 o = __builtin_shufflevector(a0, a1, 1, 3, 5, 7, 9, 11, 13, 15);
        memcpy(ev + i / 2, &e, sizeof e);
        memcpy(od + i / 2, &o, sizeof o);
    }
    for (; i < n; i++) {
        int64_t q = i + pw;
        row[(q % 2) * ps + q / 2] = src[i];
    }
}

/* Copies sample xs [C, H, W] into its scratch d (zeroed by the caller). */
CONV_INLINE void conv__fill_body(const ConvLayout *L, float *d, const float *xs, int64_t C,
                                 int64_t H, int64_t W, int64_t ph, int64_t pw)
{
    int64_t s = L->s;
    for (int64_t c = 0; c < C; c++)
        for (int64_t ih = 0; ih < H; ih++) {
            int64_t r = ih + ph;   /* the padded row */
            const float *src = xs + (c * H + ih) * W;
            float *row = d + c * L->cs + (r % s) * s * L->ps + (r / s) * L->wh;
            if (s == 1)
                memcpy(row + pw, src, (size_t)W * sizeof(float));
            else
                conv__split_row(row, src, W, pw, L->ps);
        }
}

/* conv__fill_body per instruction set (libtngcrt-internal). */
void tngrt__conv_fill(const ConvLayout *L, float *d, const float *xs, int64_t C, int64_t H,
                      int64_t W, int64_t ph, int64_t pw);
TNGRT_ISA_KERNEL(void, tngrt__conv_fill,
                 (const ConvLayout *L, float *d, const float *xs, int64_t C, int64_t H, int64_t W,
                  int64_t ph, int64_t pw),
                 conv__fill_body(L, d, xs, C, H, W, ph, pw);)

/* Weights w [O, C, KH, KW] as blocks [O / CONV_OB][C][taps][CONV_OB]
 * (channels past O zero), a block's CONV_OB channels gathered into one
 * vector per (channel, tap). */
CONV_INLINE void conv__pack_w_body(float *d, const float *w, int64_t O, int64_t C, int ntaps)
{
    int64_t nb = (O + CONV_OB - 1) / CONV_OB;
    for (int64_t b = 0; b < nb; b++)
        for (int64_t c = 0; c < C; c++)
            for (int t = 0; t < ntaps; t++) {
                conv_v8 g;
                for (int l = 0; l < CONV_OB; l++) {
                    int64_t o = b * CONV_OB + l;
                    g[l] = o < O ? w[(o * C + c) * ntaps + t] : 0.0f;
                }
                memcpy(d + ((b * C + c) * ntaps + t) * CONV_OB, &g, sizeof g);
            }
}

/* conv__pack_w_body per instruction set (libtngcrt-internal). */
void tngrt__conv_pack_w(float *d, const float *w, int64_t O, int64_t C, int ntaps);
TNGRT_ISA_KERNEL(void, tngrt__conv_pack_w, (float *d, const float *w, int64_t O, int64_t C, int ntaps),
                 conv__pack_w_body(d, w, O, C, ntaps);)

/* The epilogue of channel o at position i of its plane: v the sum. */
CONV_INLINE float conv__epi(const ConvEpiRow *e, int64_t o, int64_t i, float v)
{
    v = v + e->b[o];
    if (e->has_bn)
        v = v * e->a[o] + e->sh[o];
    if (e->res)
        v = v + e->res[i];
    if (e->relu)
        v = v < 0.0f ? 0.0f : v;
    return v;
}

/* conv__epi on a vector v of type VT (any width) of channel o at
 * positions [i, i + lanes) of its plane, stored at dst; where rs > 0, its
 * 8-lane parts are positions i, i + rs, ... (the rows of a pair tile), at
 * dst, dst + rs, ...: the same float operations, lane by lane. */
#define CONV_EPI_FULL(VT, e, o, i, rs, v, dst)                                                 \
    {                                                                                        \
        VT w_ = (v) + (e)->b[o];                                                             \
        if ((e)->has_bn)                                                                     \
            w_ = w_ * (e)->a[o] + (e)->sh[o];                                                \
        if ((e)->res) {                                                                      \
            VT r_;                                                                           \
            if (rs)                                                                          \
                for (int p_ = 0; p_ < (int)(sizeof r_ / sizeof(conv_v8)); p_++)              \
                    memcpy((char *)&r_ + p_ * sizeof(conv_v8), (e)->res + (i) + p_ * (rs),   \
                           sizeof(conv_v8));                                                 \
            else                                                                             \
                memcpy(&r_, (e)->res + (i), sizeof r_);                                      \
            w_ = w_ + r_;                                                                    \
        }                                                                                    \
        if ((e)->relu) { /* v < 0 ? 0 : v: the sign test keeps NaN */                        \
            __typeof__(w_ < w_) bits_, neg_ = w_ < (VT){0};                                  \
            memcpy(&bits_, &w_, sizeof bits_);                                               \
            bits_ &= ~neg_;                                                                  \
            memcpy(&w_, &bits_, sizeof w_);                                                  \
        }                                                                                    \
        if (rs)                                                                              \
            for (int p_ = 0; p_ < (int)(sizeof w_ / sizeof(conv_v8)); p_++)                  \
                memcpy((dst) + p_ * (rs), (const char *)&w_ + p_ * sizeof(conv_v8),          \
                       sizeof(conv_v8));                                                     \
        else                                                                                 \
            memcpy((dst), &w_, sizeof w_);                                                   \
    }

/* CONV_EPI_FULL on one 8-float vector *acc, stored at dst. */
CONV_INLINE void conv__epi_store(const ConvEpiRow *e, int64_t o, int64_t i, const conv_v8 *acc,
                                 float *dst)
{
    CONV_EPI_FULL(conv_v8, e, o, i, 0, *acc, dst)
}

/* CONV_EPI_FULL on the CONV_OB (8) vectors acc of channels o0.. at
 * position i of each channel's plane (plane floats apart). */
#define CONV_EPI_TILE(VT, e, o0, i, plane, rs, acc, out)                                       \
    {                                                                                        \
        CONV_EPI_FULL(VT, e, (o0) + 0, (i) + ((o0) + 0) * (plane), rs, (acc)[0],             \
                      (out) + (i) + ((o0) + 0) * (plane))                                    \
        CONV_EPI_FULL(VT, e, (o0) + 1, (i) + ((o0) + 1) * (plane), rs, (acc)[1],             \
                      (out) + (i) + ((o0) + 1) * (plane))                                    \
        CONV_EPI_FULL(VT, e, (o0) + 2, (i) + ((o0) + 2) * (plane), rs, (acc)[2],             \
                      (out) + (i) + ((o0) + 2) * (plane))                                    \
        CONV_EPI_FULL(VT, e, (o0) + 3, (i) + ((o0) + 3) * (plane), rs, (acc)[3],             \
                      (out) + (i) + ((o0) + 3) * (plane))                                    \
        CONV_EPI_FULL(VT, e, (o0) + 4, (i) + ((o0) + 4) * (plane), rs, (acc)[4],             \
                      (out) + (i) + ((o0) + 4) * (plane))                                    \
        CONV_EPI_FULL(VT, e, (o0) + 5, (i) + ((o0) + 5) * (plane), rs, (acc)[5],             \
                      (out) + (i) + ((o0) + 5) * (plane))                                    \
        CONV_EPI_FULL(VT, e, (o0) + 6, (i) + ((o0) + 6) * (plane), rs, (acc)[6],             \
                      (out) + (i) + ((o0) + 6) * (plane))                                    \
        CONV_EPI_FULL(VT, e, (o0) + 7, (i) + ((o0) + 7) * (plane), rs, (acc)[7],             \
                      (out) + (i) + ((o0) + 7) * (plane))                                    \
    }
_Static_assert(CONV_OB == 8, "CONV_EPI_TILE names 8 channels");

/* conv__epi on the first nw lanes of v, stored at dst. */
static void conv__epi_tail(const ConvEpiRow *e, int64_t o, int64_t i, const conv_v8 *v,
                           float *dst, int64_t nw)
{
    float t[CONV_VW];
    memcpy(t, v, sizeof t);
    for (int64_t l = 0; l < nw; l++)
        dst[l] = conv__epi(e, o, i + l, t[l]);
}

/* Output channels [o0, o0 + CONV_OB) of one sample: xs its scratch, wb
 * the channel block's packed weights, out and res (in e) the sample's
 * [O, OH, OW] at channel 0. A register tile holds CONV_OB vectors of type
 * VT (nv * CONV_VW positions: nv 2 where 32 vector registers hold the
 * sums as 16-float vectors, AVX-512); nt (the taps) and nv are constants
 * at each use, so that the tap loop unrolls. Tiles run along each output
 * row, or, where pair (rows of 8 or fewer, an even count of them), span
 * two rows: a 16-float vector's halves are rows oh and oh + 1. */
#define CONV__BLOCK(VT, nv, MAC)                                                                \
    {                                                                                         \
        int64_t toff[CONV_MAX_TAPS], rp = pair ? 2 : 1, tw = pair ? CONV_VW : (nv) * CONV_VW; \
        int64_t tpr = (OW + tw - 1) / tw, ntile = OH / rp * tpr;                              \
        int64_t hoff = pair ? L->wh : CONV_VW; /* the second half's offset */                  \
        for (int t = 0; t < nt; t++)                                                          \
            toff[t] = L->toff[t];                                                             \
        for (int64_t k = 0; k < ntile; k++) {                                                 \
            int64_t oh = k / tpr * rp, ow = k % tpr * tw, q0 = oh * L->wh + ow;               \
            VT acc[CONV_OB];                                                                  \
            for (int o = 0; o < CONV_OB; o++)                                                 \
                acc[o] = (VT){0};                                                             \
            for (int64_t c = 0; c < C; c++) {                                                 \
                const float *xc = xs + q0 + c * L->cs, *wc = wb + c * nt * CONV_OB;           \
                for (int t = 0; t < nt; t++) {                                                \
                    VT xv;                                                                    \
                    for (int v = 0; v < (nv); v++)                                            \
                        memcpy((char *)&xv + v * sizeof(conv_v8), xc + toff[t] + v * hoff,    \
                               sizeof(conv_v8));                                              \
                    for (int o = 0; o < CONV_OB; o++)                                         \
                        MAC(acc[o], xv, wc[t * CONV_OB + o]);                                 \
                }                                                                             \
            }                                                                                 \
            if (!pair && ow + (nv) * CONV_VW <= OW && o0 + CONV_OB <= O) {                   \
                /* a whole tile of one row: the epilogue on the whole vectors (each acc[o] \
                 * named by a constant, so that the sums stay in registers) */                \
                CONV_EPI_TILE(VT, e, o0, oh * OW + ow, OH * OW, 0, acc, out)                  \
                continue;                                                                     \
            }                                                                                 \
            if (pair && OW == CONV_VW && oh + 1 < OH && o0 + CONV_OB <= O) {                 \
                /* two whole rows (halves of each vector): the same */                        \
                CONV_EPI_TILE(VT, e, o0, oh * OW, OH * OW, OW, acc, out)                      \
                continue;                                                                     \
            }                                                                                 \
            conv_v8 part[(nv)][CONV_OB]; /* part[v][o]: acc[o]'s half v */                    \
            for (int o = 0; o < CONV_OB; o++)                                                 \
                for (int v = 0; v < (nv); v++)                                                \
                    memcpy(&part[v][o], (const float *)&acc[o] + v * CONV_VW, sizeof(conv_v8)); \
            for (int v = 0; v < (nv); v++)                                                    \
                conv__store(e, o0, O, OH, OW, oh + (pair ? v : 0), ow + (pair ? 0 : v * CONV_VW), \
                            part[v], out);                                                    \
        }                                                                                     \
    }

/* The CONV_OB vectors acc of position w0 of row oh through the epilogue
 * into out (positions past OW and channels past O not stored). */
CONV_INLINE void conv__store(const ConvEpiRow *e, int64_t o0, int64_t O, int64_t OH, int64_t OW,
                             int64_t oh, int64_t w0, const conv_v8 *acc, float *out)
{
    int64_t nw = OW - w0 < CONV_VW ? OW - w0 : CONV_VW;
    for (int o = 0; o < CONV_OB && o0 + o < O && nw > 0; o++) {
        float *dst = out + ((o0 + o) * OH + oh) * OW + w0;
        if (nw == CONV_VW)
            conv__epi_store(e, o0 + o, dst - out, &acc[o], dst);
        else
            conv__epi_tail(e, o0 + o, dst - out, &acc[o], dst, nw);
    }
}


/* The Winograd form F(2 x 2, 3 x 3) of a 3 x 3 stride-1 convolution: each
 * 2 x 2 block of outputs (a tile) is A^T [(G g G^T) . (B^T d B)] A, d the
 * tile's 4 x 4 input window, g a 3 x 3 kernel: 16 products per input
 * channel instead of 36, as 16 independent sums over the channels (one per
 * element xi of the 4 x 4 transformed tile). The transforms:
 * B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1] (additions only);
 * G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1]; A^T = [1 1 1 0; 0 1 -1 -1].
 * Each is a fixed sequence of float operations (no contraction), the sums
 * fused multiply-adds in every clone: the same bits on every machine. The
 * result differs from the direct sums by the transforms' roundings
 * (docs/bundles.md gives the measured bound). */
typedef struct {
    int64_t th, tw;    /* tile rows and columns */
    int64_t twp;       /* tile columns padded to a multiple of CONV_VW */
    int64_t hp, wp;    /* the zero-padded input plane: 2 th + 2 rows, 2 tw + 2 columns */
    int64_t nq;        /* chunks of CONV_VW tiles: th * twp / CONV_VW */
    int64_t lw;        /* tiles per group: CONV_VW, or 2 * CONV_VW (AVX-512) */
    int64_t ng;        /* groups: nq chunks rounded up to whole groups */
    int64_t sstride;   /* floats of V per sample: ng * 16 * C * lw */
} WinoLayout;

typedef struct {
    const ConvLayout *L;
    const float *xs, *wp;
    float *out;
    const float *res;
    const ConvEpiRow *e;
    int64_t C, O, OH, OW, nb;
    int wide;   /* two vectors per register tile (CONV__BLOCK's nv) */
    int pair;   /* and they span two rows */
    const WinoLayout *wl;   /* the Winograd form (xs its V, wp its U), or NULL */
} ConvJob;

/* conv__epi's steps but the residual on every lane of vector v (any
 * width) of channel o, in place: without a residual the steps apply to
 * the sums lane by lane wherever the lanes go after. */
#define CONV_EPI_LANES(e, o, v)                                                                \
    {                                                                                        \
        (v) = (v) + (e)->b[o];                                                               \
        if ((e)->has_bn)                                                                     \
            (v) = (v) * (e)->a[o] + (e)->sh[o];                                              \
        if ((e)->relu) { /* v < 0 ? 0 : v: the sign test keeps NaN */                        \
            __typeof__((v) < (v)) bits_, neg_ = (v) < 0.0f;                                  \
            memcpy(&bits_, &(v), sizeof bits_);                                              \
            bits_ &= ~neg_;                                                                  \
            memcpy(&(v), &bits_, sizeof(v));                                                 \
        }                                                                                    \
    }

/* The CONV_OB vectors v of position w0 of row oh stored into out as they
 * are (positions past OW and channels past O not stored). */
CONV_INLINE void conv__store_raw(int64_t o0, int64_t O, int64_t OH, int64_t OW, int64_t oh,
                                 int64_t w0, const conv_v8 *v, float *out)
{
    int64_t nw = OW - w0 < CONV_VW ? OW - w0 : CONV_VW;
    for (int o = 0; o < CONV_OB && o0 + o < O && nw > 0; o++) {
        float *dst = out + ((o0 + o) * OH + oh) * OW + w0;
        if (nw == CONV_VW)
            memcpy(dst, &v[o], sizeof v[o]);
        else
            for (int64_t l = 0; l < nw; l++)
                dst[l] = v[o][l];
    }
}

/* The output transform of nv consecutive 8-tile chunks from chunk q (cpr
 * chunks per tile row) for CONV_OB channels: m[xi][o] the sums, of type
 * VT (nv * CONV_VW lanes); the 2 x 2 outputs through the epilogue into
 * out. Chunk q + h is tile row (q + h) / cpr, columns from (q + h) % cpr *
 * CONV_VW. */
#define WINO__OUT(VT, nv)                                                                       \
    {                                                                                         \
        conv_v8 r[(nv)][4][CONV_OB]; /* rows 2 th and 2 th + 1, two halves of 8 columns */     \
        for (int o = 0; o < CONV_OB; o++) {                                                   \
            VT s0[4], s1[4];                                                                  \
            for (int b = 0; b < 4; b++) {                                                     \
                s0[b] = (m[b][o] + m[4 + b][o]) + m[8 + b][o];                                \
                s1[b] = (m[4 + b][o] - m[8 + b][o]) - m[12 + b][o];                           \
            }                                                                                 \
            VT y[4] = {(s0[0] + s0[1]) + s0[2], (s0[1] - s0[2]) - s0[3], (s1[0] + s1[1]) + s1[2], \
                       (s1[1] - s1[2]) - s1[3]};                                              \
            if (!e->res && o0 + o < O)                                                        \
                for (int k = 0; k < 4; k++)                                                   \
                    CONV_EPI_LANES(e, o0 + o, y[k])                                           \
            for (int h = 0; h < (nv); h++) {                                                  \
                conv_v8 z[4];                                                                 \
                for (int k = 0; k < 4; k++)                                                   \
                    memcpy(&z[k], (const float *)&y[k] + h * CONV_VW, sizeof z[k]);           \
                r[h][0][o] = __builtin_shufflevector(z[0], z[1], 0, 8, 1, 9, 2, 10, 3, 11);   \
                r[h][1][o] = __builtin_shufflevector(z[0], z[1], 4, 12, 5, 13, 6, 14, 7, 15); \
                r[h][2][o] = __builtin_shufflevector(z[2], z[3], 0, 8, 1, 9, 2, 10, 3, 11);   \
                r[h][3][o] = __builtin_shufflevector(z[2], z[3], 4, 12, 5, 13, 6, 14, 7, 15); \
            }                                                                                 \
        }                                                                                     \
        for (int h = 0; h < (nv) && q + h < W->nq; h++) {                                     \
            int64_t th = (q + h) / cpr, tw0 = (q + h) % cpr * CONV_VW;                        \
            for (int k = 0; k < 4; k++)                                                       \
                if (2 * th + k / 2 < OH && e->res)                                            \
                    conv__store(e, o0, O, OH, OW, 2 * th + k / 2, 2 * tw0 + (k % 2) * CONV_VW,  \
                                r[h][k], out);                                                \
                else if (2 * th + k / 2 < OH)                                                 \
                    conv__store_raw(o0, O, OH, OW, 2 * th + k / 2, 2 * tw0 + (k % 2) * CONV_VW, \
                                    r[h][k], out);                                            \
        }                                                                                     \
    }

/* The Winograd sums and outputs of one sample's channel block: v the
 * sample's V [ng][16][C][lw], ub the block's U [16][C][CONV_OB]. The
 * tiles run as chunks of CONV_VW along each tile row (twp columns); a
 * group (a register tile of type VT) holds nv = lw / CONV_VW consecutive
 * chunks of the flattened [th][twp] grid. */
#define WINO__BLOCK(VT, nv, MAC)                                                                 \
    {                                                                                           \
        int64_t cpr = W->twp / CONV_VW;                                                         \
        for (int64_t g = 0; g < W->ng; g++) {                                                   \
            int64_t q = g * (nv);                                                               \
            VT m[16][CONV_OB];                                                                  \
            for (int xi = 0; xi < 16; xi++) {                                                   \
                VT acc[CONV_OB];                                                                \
                for (int o = 0; o < CONV_OB; o++)                                               \
                    acc[o] = (VT){0};                                                           \
                const float *vx = v + (g * 16 + xi) * C * (nv) * CONV_VW;                       \
                const float *ux = ub + xi * C * CONV_OB;                                        \
                for (int64_t c = 0; c < C; c++) {                                               \
                    VT xv;                                                                      \
                    memcpy(&xv, vx + c * (nv) * CONV_VW, sizeof xv);                            \
                    for (int o = 0; o < CONV_OB; o++)                                           \
                        MAC(acc[o], xv, ux[c * CONV_OB + o]);                                   \
                }                                                                               \
                for (int o = 0; o < CONV_OB; o++)                                               \
                    m[xi][o] = acc[o];                                                          \
            }                                                                                   \
            WINO__OUT(VT, nv)                                                                   \
        }                                                                                       \
    }

/* acc += x * w, one rounding per lane (a fused multiply-add), in each
 * instruction set's form: fmaf in C, vfmadd with AVX2+FMA or AVX-512. All
 * round alike, so the sums have the same bits on every machine. */
#define CONV_FMA_C(acc, x, w)                                                   \
    for (int l_ = 0; l_ < (int)(sizeof(acc) / sizeof(float)); l_++)               \
        (acc)[l_] = fmaf((x)[l_], (w), (acc)[l_]);

/* The per-instruction-set body: block functions of 8- and 16-float tiles
 * whose sums use MAC8 and MAC16, and the task over them (NAME). */
#define CONV__TASK_DEF(NAME, ATTR, MAC8, MAC16)                                                 \
    ATTR CONV_INLINE void NAME##_b8(const ConvLayout *L, const float *xs, const float *wb,      \
                                    int64_t C, int64_t o0, int64_t O, int64_t OH, int64_t OW,  \
                                    float *out, const ConvEpiRow *e, const int nt)             \
    {                                                                                          \
        const int pair = 0;                                                                    \
        CONV__BLOCK(conv_v8, 1, MAC8)                                                          \
    }                                                                                          \
    ATTR CONV_INLINE void NAME##_b16(const ConvLayout *L, const float *xs, const float *wb,    \
                                     int64_t C, int64_t o0, int64_t O, int64_t OH, int64_t OW, \
                                     float *out, const ConvEpiRow *e, const int nt,            \
                                     const int pair)                                           \
    CONV__BLOCK(conv_v16, 2, MAC16)                                                            \
    ATTR CONV_INLINE void NAME##_w8(const WinoLayout *W, const float *v, const float *ub,      \
                                    int64_t C, int64_t o0, int64_t O, int64_t OH, int64_t OW,  \
                                    float *out, const ConvEpiRow *e)                           \
    WINO__BLOCK(conv_v8, 1, MAC8)                                                              \
    ATTR CONV_INLINE void NAME##_w16(const WinoLayout *W, const float *v, const float *ub,     \
                                     int64_t C, int64_t o0, int64_t O, int64_t OH, int64_t OW, \
                                     float *out, const ConvEpiRow *e)                          \
    WINO__BLOCK(conv_v16, 2, MAC16)                                                            \
    ATTR static void NAME(void *ctx, int task)                                                 \
    {                                                                                          \
        const ConvJob *j = (const ConvJob *)ctx;                                               \
        int64_t n = task / j->nb, b = task % j->nb, plane = j->O * j->OH * j->OW;              \
        ConvEpiRow e = *j->e;                                                                  \
        e.res = j->res ? j->res + n * plane : NULL;                                            \
        float *out = j->out + n * plane;                                                       \
        int64_t o0 = b * CONV_OB, C = j->C, O = j->O, OH = j->OH, OW = j->OW;                  \
        const WinoLayout *W = j->wl;                                                           \
        if (W) {                                                                               \
            const float *v = j->xs + n * W->sstride, *ub = j->wp + b * 16 * C * CONV_OB;       \
            if (W->lw > CONV_VW)                                                               \
                NAME##_w16(W, v, ub, C, o0, O, OH, OW, out, &e);                               \
            else                                                                               \
                NAME##_w8(W, v, ub, C, o0, O, OH, OW, out, &e);                                \
            return;                                                                            \
        }                                                                                      \
        const ConvLayout *L = j->L;                                                            \
        const float *xs = j->xs + n * C * L->cs, *wb = j->wp + b * C * L->ntaps * CONV_OB;     \
        /* pair a constant at each call: each form is compiled on its own */                   \
        if (L->ntaps == 9 && j->pair)                                                          \
            NAME##_b16(L, xs, wb, C, o0, O, OH, OW, out, &e, 9, 1);                            \
        else if (L->ntaps == 9 && j->wide)                                                     \
            NAME##_b16(L, xs, wb, C, o0, O, OH, OW, out, &e, 9, 0);                            \
        else if (L->ntaps == 9)                                                                \
            NAME##_b8(L, xs, wb, C, o0, O, OH, OW, out, &e, 9);                                \
        else if (j->pair)                                                                      \
            NAME##_b16(L, xs, wb, C, o0, O, OH, OW, out, &e, 1, 1);                            \
        else if (j->wide)                                                                      \
            NAME##_b16(L, xs, wb, C, o0, O, OH, OW, out, &e, 1, 0);                            \
        else                                                                                   \
            NAME##_b8(L, xs, wb, C, o0, O, OH, OW, out, &e, 1);                                \
    }

CONV__TASK_DEF(conv__task_c, , CONV_FMA_C, CONV_FMA_C)

#if defined(__x86_64__) && !defined(TNGRT_NO_ISA)
#define CONV_FMA_256(acc, x, w)                                                         \
    for (int h_ = 0; h_ < (int)(sizeof(acc) / sizeof(__m256)); h_++) {                  \
        __m256 a_, x_;                                                                  \
        memcpy(&a_, (char *)&(acc) + h_ * sizeof a_, sizeof a_);                        \
        memcpy(&x_, (const char *)&(x) + h_ * sizeof x_, sizeof x_);                    \
        a_ = _mm256_fmadd_ps(x_, _mm256_set1_ps(w), a_);                                \
        memcpy((char *)&(acc) + h_ * sizeof a_, &a_, sizeof a_);                        \
    }
#define CONV_FMA_512(acc, x, w)                                                         \
    {                                                                                   \
        __m512 a_, x_;                                                                  \
        memcpy(&a_, &(acc), sizeof a_);                                                 \
        memcpy(&x_, &(x), sizeof x_);                                                   \
        a_ = _mm512_fmadd_ps(x_, _mm512_set1_ps(w), a_);                                \
        memcpy(&(acc), &a_, sizeof a_);                                                 \
    }
CONV__TASK_DEF(conv__task_avx2, __attribute__((target("avx2,fma"))), CONV_FMA_256, CONV_FMA_256)
CONV__TASK_DEF(conv__task_avx512, __attribute__((target("avx512f,fma"))), CONV_FMA_256,
               CONV_FMA_512)
#endif

/* The clone conv__task_fn takes: -1 the widest this CPU has; 0 the C
 * one, 1 AVX2 with FMA, 2 AVX-512 where the CPU has them (libtngcrt-
 * internal: tests/unit/test_rt_nn.c compares their bits). */
int tngrt__conv_isa = -1;

/* The task function for this CPU: AVX-512, else AVX2 with FMA, else C. */
static void (*conv__task_fn(void))(void *, int)
{
#if defined(__x86_64__) && !defined(TNGRT_NO_ISA)
    __builtin_cpu_init();
    int want = tngrt__conv_isa < 0 ? 2 : tngrt__conv_isa;
    if (want >= 2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma"))
        return conv__task_avx512;
    if (want >= 1 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return conv__task_avx2;
#endif
    return conv__task_c;
}

/* The per-channel constants of e (arrays of O floats at buf). */
static void conv__epi_rows(ConvEpiRow *r, float *buf, int64_t O, const TngrtArg *bias,
                           const TngrtConvEpi *e)
{
    r->b = buf, r->a = buf + O, r->sh = buf + 2 * O;
    r->has_bn = e && e->mean;
    r->res = e && e->res ? (const float *)e->res->data : NULL;
    r->relu = e && e->relu;
    for (int64_t o = 0; o < O; o++) {
        r->b[o] = bias ? tngrt_impl__ldf(bias, o) : 0.0f;
        if (!r->has_bn)
            continue;
        float a = 1.0f / sqrtf(tngrt_impl__ldf(e->var, o) + (float)e->eps);
        if (e->weight)
            a *= tngrt_impl__ldf(e->weight, o);
        r->a[o] = a;
        r->sh[o] = (e->bias ? tngrt_impl__ldf(e->bias, o) : 0.0f) - tngrt_impl__ldf(e->mean, o) * a;
    }
}

/* Fills W for a 3 x 3 stride-1 convolution of C channels to an output
 * OH x OW, groups of lw tiles; 0 when the Winograd form does not take it. */
static int wino__layout(WinoLayout *W, int64_t C, int64_t OH, int64_t OW, int64_t lw)
{
    W->th = (OH + 1) / 2;
    W->tw = (OW + 1) / 2;
    W->twp = (W->tw + CONV_VW - 1) / CONV_VW * CONV_VW;
    W->hp = 2 * W->th + 2;
    W->wp = 2 * W->tw + 2;
    W->nq = W->th * W->twp / CONV_VW;
    W->lw = lw;
    W->ng = (W->nq * CONV_VW + lw - 1) / lw;
    W->sstride = W->ng * 16 * C * lw;
    return OH > 0 && OW > 0 && C > 0;
}

/* B^T d B of every tile of one padded channel plane pad [hp][wp] into v
 * (the sample's V at the channel: chunk q's xi at v + (q / (lw /
 * CONV_VW) * 16 + xi) * xistride + q % (lw / CONV_VW) * CONV_VW),
 * CONV_VW tiles at a time: lanes past tw take whatever the plane's next
 * floats give (their outputs are never stored; the reads stay within
 * wino__pad_floats); the chunks that fill the last group are zero. */
CONV_INLINE void wino__in_plane(const WinoLayout *W, float *v, int64_t xistride, const float *pad)
{
    int64_t cpr = W->twp / CONV_VW, per = W->lw / CONV_VW;
    for (int64_t q = 0; q < W->ng * per; q++) {
        float *vt = v + q / per * 16 * xistride + q % per * CONV_VW;
        conv_v8 r[16];
        if (q >= W->nq)
            for (int k = 0; k < 16; k++)
                r[k] = (conv_v8){0};
        else {
            int64_t th = q / cpr, t0 = q % cpr * CONV_VW;
            conv_v8 e[4][4];   /* e[i][j]: column j of d B for input row i */
            for (int i = 0; i < 4; i++) {
                const float *row = pad + (2 * th + i) * W->wp + 2 * t0;
                conv_v8 a0, a1, b0, b1;
                memcpy(&a0, row, sizeof a0);
                memcpy(&a1, row + CONV_VW, sizeof a1);
                memcpy(&b0, row + 2, sizeof b0);
                memcpy(&b1, row + 2 + CONV_VW, sizeof b1);
                conv_v8 d0 = __builtin_shufflevector(a0, a1, 0, 2, 4, 6, 8, 10, 12, 14);
                conv_v8 d1 = __builtin_shufflevector(a0, a1, 1, 3, 5, 7, 9, 11, 13, 15);
                conv_v8 d2 = __builtin_shufflevector(b0, b1, 0, 2, 4, 6, 8, 10, 12, 14);
                conv_v8 d3 = __builtin_shufflevector(b0, b1, 1, 3, 5, 7, 9, 11, 13, 15);
                e[i][0] = d0 - d2;
                e[i][1] = d1 + d2;
                e[i][2] = d2 - d1;
                e[i][3] = d1 - d3;
            }
            for (int j = 0; j < 4; j++) {   /* B^T (d B): row i of column j is xi 4 i + j */
                r[j] = e[0][j] - e[2][j];
                r[4 + j] = e[1][j] + e[2][j];
                r[8 + j] = e[2][j] - e[1][j];
                r[12 + j] = e[1][j] - e[3][j];
            }
        }
        for (int k = 0; k < 16; k++)
            memcpy(vt + k * xistride, &r[k], sizeof r[k]);
    }
}

/* The input transform's job: x [N, C, H, W] padded by (ph, pw) before
 * into V [N][ng][16][C][lw]; pad a zeroed scratch of N * C planes of
 * wino__pad_floats. */
typedef struct {
    const WinoLayout *W;
    float *v, *pad;
    const float *x;
    int64_t C, H, Wd, ph, pw;
} WinoInJob;

/* Floats of one plane's scratch: the padded plane, then the slack that
 * the last row's chunks read past it. */
static int64_t wino__pad_floats(const WinoLayout *W)
{
    return W->hp * W->wp + 2 * W->twp + 4 * CONV_VW;
}

/* Sample n's channel c (task n * C + c) of a WinoInJob. */
CONV_INLINE void wino__in_task_body(const WinoInJob *j, int task)
{
    const WinoLayout *W = j->W;
    int64_t n = task / j->C, c = task % j->C, H = j->H, Wd = j->Wd;
    float *pad = j->pad + task * wino__pad_floats(W);
    int64_t rows = H < W->hp - j->ph ? H : W->hp - j->ph;
    int64_t cols = Wd < W->wp - j->pw ? Wd : W->wp - j->pw;
    const float *src = j->x + (int64_t)task * H * Wd;
    for (int64_t r = 0; r < rows; r++)
        memcpy(pad + (r + j->ph) * W->wp + j->pw, src + r * Wd, (size_t)cols * sizeof(float));
    wino__in_plane(W, j->v + n * W->sstride + c * W->lw, j->C * W->lw, pad);
}

/* One task of a WinoInJob, per instruction set (libtngcrt-internal). */
void tngrt__wino_in_task(void *ctx, int task);
TNGRT_ISA_KERNEL(void, tngrt__wino_in_task, (void *ctx, int task),
                 wino__in_task_body((const WinoInJob *)ctx, task);)

/* U = G g G^T of weights w [O, C, 3, 3] as blocks [O / CONV_OB][16][C][CONV_OB]
 * (channels past O zero), the CONV_OB channels of a block as the lanes of
 * a vector. */
CONV_INLINE void wino__pack_u_body(float *u, const float *w, int64_t O, int64_t C)
{
    int64_t nb = (O + CONV_OB - 1) / CONV_OB;
    for (int64_t b = 0; b < nb; b++)
        for (int64_t c = 0; c < C; c++) {
            conv_v8 g[9], t[4][3], r[16];
            for (int k = 0; k < 9; k++)
                for (int l = 0; l < CONV_OB; l++) {
                    int64_t o = b * CONV_OB + l;
                    g[k][l] = o < O ? w[(o * C + c) * 9 + k] : 0.0f;
                }
            for (int j = 0; j < 3; j++) {   /* G g */
                t[0][j] = g[j];
                t[1][j] = ((g[j] + g[3 + j]) + g[6 + j]) * 0.5f;
                t[2][j] = ((g[j] - g[3 + j]) + g[6 + j]) * 0.5f;
                t[3][j] = g[6 + j];
            }
            for (int i = 0; i < 4; i++) {   /* (G g) G^T */
                r[4 * i] = t[i][0];
                r[4 * i + 1] = ((t[i][0] + t[i][1]) + t[i][2]) * 0.5f;
                r[4 * i + 2] = ((t[i][0] - t[i][1]) + t[i][2]) * 0.5f;
                r[4 * i + 3] = t[i][2];
            }
            for (int xi = 0; xi < 16; xi++)
                memcpy(u + ((b * 16 + xi) * C + c) * CONV_OB, &r[xi], sizeof r[xi]);
        }
}

/* wino__pack_u_body per instruction set (libtngcrt-internal). */
void tngrt__wino_pack_u(float *u, const float *w, int64_t O, int64_t C);
TNGRT_ISA_KERNEL(void, tngrt__wino_pack_u, (float *u, const float *w, int64_t O, int64_t C),
                 wino__pack_u_body(u, w, O, C);)

/* Bytes of a's data. */
static size_t conv__bytes(const TngrtArg *a)
{
    return (size_t)tngrt_impl__numel(a->ndim, a->shape) * tngrt_dtype_size(a->dtype);
}

/* 1 when the data of a and b share a byte. */
static int conv__overlap(const TngrtArg *a, const TngrtArg *b)
{
    uintptr_t a0 = (uintptr_t)a->data, b0 = (uintptr_t)b->data;
    return a0 < b0 + conv__bytes(b) && b0 < a0 + conv__bytes(a);
}

/* The scratch of the last call, kept for the next (a fresh allocation
 * of a few hundred KiB is mapped anew by malloc each call, and its page
 * faults cost as much as the convolution): conv__get takes it when it is
 * large enough (else frees it and allocates), conv__put gives it back
 * (freeing the one another thread gave back meanwhile). At most one
 * buffer of at most CONV_CACHE_MAX bytes stays cached. */
#define CONV_CACHE_MAX ((size_t)64 << 20)
typedef struct ConvBuf {
    size_t bytes;
    alignas(64) unsigned char data[];
} ConvBuf;
static _Atomic(ConvBuf *) conv__cache;

/* bytes of scratch (64-byte aligned, uninitialised), or NULL. A new
 * buffer is as large as the one it replaces at least, so that a model's
 * convolutions of different sizes, one after another, end up sharing the
 * largest instead of freeing and allocating (and faulting in) theirs on
 * every call. */
static void *conv__get(size_t bytes)
{
    ConvBuf *b = atomic_exchange(&conv__cache, NULL);
    if (b && b->bytes >= bytes)
        return b->data;
    if (b && b->bytes <= CONV_CACHE_MAX)
        bytes = b->bytes > bytes ? b->bytes : bytes;
    free(b);
    b = (ConvBuf *)aligned_alloc(64, (sizeof(ConvBuf) + bytes + 63) / 64 * 64);
    if (!b)
        return NULL;
    b->bytes = bytes;
    return b->data;
}

/* Gives back a conv__get buffer (NULL: none). */
static void conv__put(void *p)
{
    if (!p)
        return;
    ConvBuf *b = (ConvBuf *)((unsigned char *)p - offsetof(ConvBuf, data));
    if (b->bytes > CONV_CACHE_MAX)
        free(b);
    else
        free(atomic_exchange(&conv__cache, b));
}

/* Runs j's tasks, over the current pool's threads from
 * TNGRT_GEMM_PAR_FLOP multiply-adds on. */
static void conv__launch(ConvJob *j, double macs, int ntasks)
{
    void (*task)(void *, int) = conv__task_fn();
    if (macs >= TNGRT_GEMM_PAR_FLOP && ntasks > 1)
        tngrt__par_for(tngrt__par_current(), ntasks, task, j);
    else
        for (int t = 0; t < ntasks; t++)
            task(j, t);
}

/* 1 when a 3 x 3 stride-1 convolution of C to O channels runs the
 * Winograd form: from 8 input channels (with 3, bench/vision's stem, the
 * transforms cost what the saved products give: 27 us either way, so the
 * direct sums, without the transforms' roundings, are kept). */
static int wino__use(int64_t C, int64_t O)
{
    return C >= 8 && O >= 1;
}

/* The Winograd form of conv__direct (its checks done); 0 when its scratch
 * cannot be allocated or is too large (nothing written then). */
static int wino__run(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                     const ConvEpiRow *e, int64_t N, int64_t C, int64_t H, int64_t W, int64_t O,
                     int64_t ph, int64_t pw, int64_t nb)
{
    WinoLayout wl;
    int64_t OH = out->shape[2], OW = out->shape[3];
    if (!wino__layout(&wl, C, OH, OW, conv__regs32() ? 2 * CONV_VW : CONV_VW))
        return 0;
    uint64_t vn = (uint64_t)N * (uint64_t)wl.sstride;
    uint64_t un = (uint64_t)nb * 16 * (uint64_t)C * CONV_OB;
    if (vn > ((uint64_t)1 << 34) || un > ((uint64_t)1 << 34) || N * nb > INT_MAX)
        return 0;
    uint64_t pn = (uint64_t)N * (uint64_t)C * (uint64_t)wino__pad_floats(&wl);
    if (pn > ((uint64_t)1 << 34) || N * C > INT_MAX)
        return 0;
    /* V, U and the padded planes in one scratch, each 64-byte aligned */
    size_t vb = ((size_t)vn * sizeof(float) + 63) / 64 * 64, ubytes = ((size_t)un * sizeof(float) + 63) / 64 * 64;
    unsigned char *buf = (unsigned char *)conv__get(vb + ubytes + (size_t)pn * sizeof(float));
    if (!buf)
        return 0;
    float *v = (float *)buf, *u = (float *)(buf + vb), *pad = (float *)(buf + vb + ubytes);
    memset(pad, 0, (size_t)pn * sizeof(float));
    WinoInJob ij = {&wl, v, pad, (const float *)x->data, C, H, W, ph, pw};
    if ((double)vn >= TNGRT_GEMM_PAR_FLOP && N * C > 1)
        tngrt__par_for(tngrt__par_current(), (int)(N * C), tngrt__wino_in_task, &ij);
    else
        for (int t = 0; t < (int)(N * C); t++)
            tngrt__wino_in_task(&ij, t);
    tngrt__wino_pack_u(u, (const float *)w->data, O, C);
    ConvJob j = {NULL, v, u, (float *)out->data, e->res, e, C, O, OH, OW, nb,
                 conv__regs32(), 0, &wl};
    conv__launch(&j, (double)N * (double)O * (double)C * 9.0 * (double)(OH * OW), (int)(N * nb));
    conv__put(buf);
    return 1;
}

/* The direct kernel; 0 when it does not apply or its scratch cannot be
 * allocated (nothing written then). */
static int conv__direct(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                        const ConvEpiRow *e, int64_t s, int64_t ph, int64_t pw, int64_t ph1,
                        int64_t pw1)
{
    int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
    int64_t O = w->shape[0], KH = w->shape[2], KW = w->shape[3];
    int64_t OH = out->shape[2], OW = out->shape[3];
    ConvLayout L;
    if (N <= 0 || C <= 0 || O <= 0 || OH <= 0 || OW <= 0 || H <= 0 || W <= 0 ||
        !conv__layout(&L, H, W, KH, KW, OH, OW, s, ph, pw, ph1, pw1))
        return 0;
    int64_t nb = (O + CONV_OB - 1) / CONV_OB;
    if (KH == 3 && s == 1 && wino__use(C, O))
        return wino__run(out, x, w, e, N, C, H, W, O, ph, pw, nb);
    /* 16-float tiles where 32 registers hold them: along rows wider than
     * 8, else over pairs of rows (an even count); else 8-float tiles */
    int regs = conv__regs32(), wide = OW > CONV_VW && regs;
    int pair = !wide && regs && OH % 2 == 0;
    /* a 1 x 1 window at stride 1 with no padding whose rows are whole
     * tiles reads x in place (no read past a row's last tile), unless out
     * shares its storage */
    int direct = KH == 1 && KW == 1 && s == 1 && !ph && !pw && !ph1 && !pw1 &&
                 OW % (wide ? 2 * CONV_VW : CONV_VW) == 0 && !conv__overlap(out, x);
    if (direct)
        L.wh = W, L.ps = L.cs = H * W;
    uint64_t xn = direct ? 0 : (uint64_t)N * (uint64_t)C * (uint64_t)L.cs;
    uint64_t wn = (uint64_t)nb * (uint64_t)C * (uint64_t)L.ntaps * CONV_OB;
    if (xn > ((uint64_t)1 << 34) || wn > ((uint64_t)1 << 34) || N * nb > INT_MAX)
        return 0;
    size_t xb = ((size_t)xn * sizeof(float) + 63) / 64 * 64;
    unsigned char *buf = (unsigned char *)conv__get(xb + (size_t)wn * sizeof(float));
    if (!buf)
        return 0;
    float *xs = direct ? NULL : (float *)buf, *wp = (float *)(buf + xb);
    if (xs)
        memset(xs, 0, (size_t)xn * sizeof(float));
    for (int64_t n = 0; n < N && !direct; n++)
        tngrt__conv_fill(&L, xs + n * C * L.cs, (const float *)x->data + n * C * H * W, C, H, W, ph, pw);
    tngrt__conv_pack_w(wp, (const float *)w->data, O, C, L.ntaps);
    ConvJob j = {&L, direct ? (const float *)x->data : xs, wp, (float *)out->data, e->res, e, C, O,
                 OH, OW, nb, wide || pair, pair, NULL};
    conv__launch(&j, (double)N * (double)O * (double)C * (double)L.ntaps * (double)(OH * OW),
                 (int)(N * nb));
    conv__put(buf);
    return 1;
}

/* 1 when the direct kernel takes the convolution. */
static int conv__direct_ok(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                           const TngrtArg *bias, int ns, int64_t sh, int64_t sw, int64_t dh,
                           int64_t dw, int64_t groups)
{
    if (ns != 2 || groups != 1 || dh != 1 || dw != 1 || sh != sw || (sh != 1 && sh != 2) ||
        x->ndim != 4 || w->ndim != 4 || out->ndim != 4 || x->dtype != TNGRT_F32 ||
        w->dtype != TNGRT_F32 || out->dtype != TNGRT_F32 || (bias && bias->dtype != TNGRT_F32))
        return 0;
    int64_t KH = w->shape[2], KW = w->shape[3];
    return KH == KW && (KH == 1 || KH == 3) && w->shape[1] == x->shape[1] &&
           out->shape[1] == w->shape[0] && out->shape[0] == x->shape[0];
}

int tngrt__conv_direct(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                       const TngrtArg *bias, int ns, int64_t sh, int64_t sw, int64_t ph,
                       int64_t pw, int64_t ph1, int64_t pw1, int64_t dh, int64_t dw,
                       int64_t groups, const TngrtConvEpi *epi)
{
    if (!conv__direct_ok(out, x, w, bias, ns, sh, sw, dh, dw, groups) || w->shape[0] <= 0)
        return 0;
    int64_t O = w->shape[0];
    float *buf = (float *)malloc((size_t)(3 * O) * sizeof(float));
    ConvEpiRow e;
    if (!buf)
        return 0;
    conv__epi_rows(&e, buf, O, bias, epi);
    int done = conv__direct(out, x, w, &e, sh, ph, pw, ph1, pw1);
    free(buf);
    return done;
}

/* epi's steps over out [N, O, ...], the convolution's result with its
 * bias. */
static void conv__epi_pass(const TngrtArg *out, const TngrtConvEpi *epi)
{
    int64_t N = out->shape[0], O = out->shape[1];
    int64_t inner = tngrt_impl__numel(out->ndim - 2, out->shape + 2);
    for (int64_t o = 0; o < O; o++) {
        float a = 1.0f, sh = 0.0f;
        if (epi->mean) {
            a = 1.0f / sqrtf(tngrt_impl__ldf(epi->var, o) + (float)epi->eps);
            if (epi->weight)
                a *= tngrt_impl__ldf(epi->weight, o);
            sh = (epi->bias ? tngrt_impl__ldf(epi->bias, o) : 0.0f) - tngrt_impl__ldf(epi->mean, o) * a;
        }
        for (int64_t n = 0; n < N; n++)
            for (int64_t i = 0; i < inner; i++) {
                int64_t k = (n * O + o) * inner + i;
                float v = tngrt_impl__ldf(out, k);
                if (epi->mean)
                    v = v * a + sh;
                if (epi->res)
                    v = v + tngrt_impl__ldf(epi->res, k);
                if (epi->relu)
                    v = v < 0.0f ? 0.0f : v;
                tngrt_impl__stf(out, k, v);
            }
    }
}

/* The general convolution (tngrt_impl_conv: unrolled windows through the
 * GEMM), per instruction set (libtngcrt-internal). */
void tngrt__conv_general(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                         const TngrtArg *bias, int ns, int64_t sh, int64_t sw, int64_t ph,
                         int64_t pw, int64_t ph1, int64_t pw1, int64_t dh, int64_t dw,
                         int64_t groups);
TNGRT_ISA_KERNEL(void, tngrt__conv_general,
                 (const TngrtArg *out, const TngrtArg *x, const TngrtArg *w, const TngrtArg *bias,
                 int ns, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t ph1, int64_t pw1,
                 int64_t dh, int64_t dw, int64_t groups),
                 tngrt_impl_conv(out, x, w, bias, ns, sh, sw, ph, pw, ph1, pw1, dh, dw, groups);)

int tngrt_kernel_conv_epi(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                          const TngrtArg *bias, int ns, int64_t sh, int64_t sw, int64_t ph,
                          int64_t pw, int64_t ph1, int64_t pw1, int64_t dh, int64_t dw,
                          int64_t groups, const TngrtConvEpi *epi, TngrtError *err)
{
    const TngrtArg *res = epi ? epi->res : NULL;
    /* the direct kernel reads x from its scratch and each residual element
     * before writing the output element it gives */
    int res_ok = !res || res->data == out->data || !conv__overlap(res, out);
    if (res_ok && tngrt__conv_direct(out, x, w, bias, ns, sh, sw, ph, pw, ph1, pw1, dh, dw,
                                     groups, epi))
        return 0;
    if (!conv__overlap(out, x) && !(res && conv__overlap(res, out))) {
        tngrt__conv_general(out, x, w, bias, ns, sh, sw, ph, pw, ph1, pw1, dh, dw, groups);
        if (epi && out->ndim >= 2)
            conv__epi_pass(out, epi);
        return 0;
    }
    /* out shares storage with x or the residual: computed aside, then copied */
    size_t nb = conv__bytes(out);
    void *tmp = malloc(nb ? nb : 1);
    if (!tmp)
        return tngrt_impl__err(err, "conv: out of memory for a %zu-byte result", nb);
    TngrtArg t = *out;
    t.data = tmp;
    tngrt__conv_general(&t, x, w, bias, ns, sh, sw, ph, pw, ph1, pw1, dh, dw, groups);
    if (epi && out->ndim >= 2)
        conv__epi_pass(&t, epi);
    memcpy(out->data, tmp, nb);
    free(tmp);
    return 0;
}
