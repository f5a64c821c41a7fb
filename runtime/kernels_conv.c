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
 * Work splits over the current pool's threads by (sample, channel block)
 * from TNGRT_GEMM_PAR_FLOP multiply-adds on.
 */
#include "tngrt_kernel_impl.h"

#include "internal.h"
#include "kernels_isa.h"

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

/* Copies sample xs [C, H, W] into its scratch d (zeroed by the caller). */
static void conv__fill(const ConvLayout *L, float *d, const float *xs, int64_t C, int64_t H,
                       int64_t W, int64_t ph, int64_t pw)
{
    int64_t s = L->s;
    for (int64_t c = 0; c < C; c++)
        for (int64_t ih = 0; ih < H; ih++) {
            int64_t r = ih + ph;   /* the padded row */
            const float *src = xs + (c * H + ih) * W;
            float *row = d + c * L->cs + (r % s) * s * L->ps + (r / s) * L->wh;
            if (s == 1) {
                memcpy(row + pw, src, (size_t)W * sizeof(float));
                continue;
            }
            for (int64_t iw = 0; iw < W; iw++) {
                int64_t q = iw + pw;
                row[(q % 2) * L->ps + q / 2] = src[iw];
            }
        }
}

/* Weights w [O, C, KH, KW] as blocks [O / CONV_OB][C][taps][CONV_OB]. */
static void conv__pack_w(float *d, const float *w, int64_t O, int64_t C, int ntaps)
{
    int64_t nb = (O + CONV_OB - 1) / CONV_OB;
    memset(d, 0, (size_t)(nb * C * ntaps * CONV_OB) * sizeof(float));
    for (int64_t o = 0; o < O; o++)
        for (int64_t c = 0; c < C; c++)
            for (int t = 0; t < ntaps; t++)
                d[((o / CONV_OB * C + c) * ntaps + t) * CONV_OB + o % CONV_OB] =
                    w[(o * C + c) * ntaps + t];
}

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

typedef int32_t conv_i8 __attribute__((vector_size(CONV_VW * sizeof(int32_t))));

/* conv__epi on a whole vector v of channel o at positions [i, i +
 * CONV_VW), stored at dst: the same float operations, lane by lane. */
CONV_INLINE void conv__epi_store(const ConvEpiRow *e, int64_t o, int64_t i, const conv_v8 *acc,
                                 float *dst)
{
    conv_v8 v = *acc + e->b[o];
    if (e->has_bn)
        v = v * e->a[o] + e->sh[o];
    if (e->res) {
        conv_v8 r;
        memcpy(&r, e->res + i, sizeof r);
        v = v + r;
    }
    if (e->relu) {   /* v < 0 ? 0 : v: the sign test keeps NaN */
        conv_i8 bits, neg = v < (conv_v8){0};
        memcpy(&bits, &v, sizeof bits);
        bits &= ~neg;
        memcpy(&v, &bits, sizeof v);
    }
    memcpy(dst, &v, sizeof v);
}

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

typedef struct {
    const ConvLayout *L;
    const float *xs, *wp;
    float *out;
    const float *res;
    const ConvEpiRow *e;
    int64_t C, O, OH, OW, nb;
    int wide;   /* two vectors per register tile (CONV__BLOCK's nv) */
    int pair;   /* and they span two rows */
} ConvJob;

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
    ATTR static void NAME(void *ctx, int task)                                                 \
    {                                                                                          \
        const ConvJob *j = (const ConvJob *)ctx;                                               \
        int64_t n = task / j->nb, b = task % j->nb, plane = j->O * j->OH * j->OW;              \
        ConvEpiRow e = *j->e;                                                                  \
        e.res = j->res ? j->res + n * plane : NULL;                                            \
        const float *xs = j->xs + n * j->C * j->L->cs;                                         \
        const float *wb = j->wp + b * j->C * j->L->ntaps * CONV_OB;                            \
        float *out = j->out + n * plane;                                                       \
        int64_t o0 = b * CONV_OB, C = j->C, O = j->O, OH = j->OH, OW = j->OW;                  \
        const ConvLayout *L = j->L;                                                            \
        if (L->ntaps == 9 && (j->pair || j->wide))                                             \
            NAME##_b16(L, xs, wb, C, o0, O, OH, OW, out, &e, 9, j->pair);                      \
        else if (L->ntaps == 9)                                                                \
            NAME##_b8(L, xs, wb, C, o0, O, OH, OW, out, &e, 9);                                \
        else if (j->pair || j->wide)                                                           \
            NAME##_b16(L, xs, wb, C, o0, O, OH, OW, out, &e, 1, j->pair);                      \
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
CONV__TASK_DEF(conv__task_avx512, __attribute__((target("avx512f"))), CONV_FMA_256, CONV_FMA_512)
#endif

/* The task function for this CPU: AVX-512, else AVX2 with FMA, else C. */
static void (*conv__task_fn(void))(void *, int)
{
#if defined(__x86_64__) && !defined(TNGRT_NO_ISA)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return conv__task_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
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
    float *xs = direct ? NULL : (float *)calloc((size_t)xn, sizeof(float));
    float *wp = (float *)malloc((size_t)wn * sizeof(float));
    if ((!direct && !xs) || !wp) {
        free(xs);
        free(wp);
        return 0;
    }
    for (int64_t n = 0; n < N && !direct; n++)
        conv__fill(&L, xs + n * C * L.cs, (const float *)x->data + n * C * H * W, C, H, W, ph, pw);
    conv__pack_w(wp, (const float *)w->data, O, C, L.ntaps);
    ConvJob j = {&L, direct ? (const float *)x->data : xs, wp, (float *)out->data, e->res, e, C, O,
                 OH, OW, nb, wide || pair, pair};
    double macs = (double)N * (double)O * (double)C * (double)L.ntaps * (double)(OH * OW);
    int ntasks = (int)(N * nb);
    void (*task)(void *, int) = conv__task_fn();
    if (macs >= TNGRT_GEMM_PAR_FLOP && ntasks > 1)
        tngrt__par_for(tngrt__par_current(), ntasks, task, &j);
    else
        for (int t = 0; t < ntasks; t++)
            task(&j, t);
    free(xs);
    free(wp);
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
