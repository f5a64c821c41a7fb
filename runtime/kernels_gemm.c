/*
 * kernels_gemm.c - libtngcrt's own float32 GEMM for the small and medium
 * shapes of linear / matmul / bmm / addmm: B packed into panels
 * of TNGRT_GEMM_NR (32) columns, k rows each (zero padded), read by a
 * register-blocked microkernel that broadcasts A's elements through any
 * strides (no packing of A: transposed and permuted A need no copy) and
 * writes C rows with a row bias added. Three microkernels, picked once at
 * load time by an ifunc as kernels_isa.h does: AVX-512 (6 rows x 32
 * columns, FMA), AVX2 + FMA (6 x 16, twice per panel) and portable C
 * (4 x 32, no FMA; what non-x86 and TNGRT_NO_ISA builds get).
 *
 * tngrt_gemm_f32_isa runs a named path (tests force each one the CPU
 * has); tngrt_gemm_isa_available says which. The FMA paths round each
 * product-sum once, so results differ from the portable path's in the last
 * bits (within the matmul tolerance class, as OpenBLAS's did).
 */
#include "tngrt_impl_base.h"

#include "internal.h"
#include "kernels_isa.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__)) && !defined(TNGRT_NO_ISA)
#define TNGRT_GEMM_X86 1
#include <immintrin.h>
#else
#define TNGRT_GEMM_X86 0
#endif

#define NR TNGRT_GEMM_NR

#if defined(__GNUC__) || defined(__clang__)
#define TNGRT_GEMM_INLINE static inline __attribute__((always_inline))
#else
#define TNGRT_GEMM_INLINE static inline
#endif

int64_t tngrt_gemm_packed_size(int64_t n, int64_t k)
{
    return (n + NR - 1) / NR * NR * k;
}

/* One element of a half B widened exactly (the branchless conversions of
 * tngrt_impl_base.h, so that the packing loops vectorise). */
static inline float tngrt_gemm__half(int bf16, uint16_t h)
{
    return bf16 ? tngrt_impl__bf16_to_f32(h) : tngrt_impl__f16_to_f32(h);
}

#if TNGRT_GEMM_X86
/* One whole 16 x 32 tile of a transposed B's panel with AVX-512: the 32
 * weight rows s, s + cs, ... (16 elements each; float32, or float16 /
 * bfloat16 widened exactly) as 16 rows of 32 floats at d, NR apart: two
 * 16 x 16 transposes in registers (pairs of rows interleaved, then
 * quadruples, then the 128-bit lanes exchanged), whole-vector stores. */
__attribute__((target("avx512f"))) static void tngrt_gemm__pack_tile_avx512(float *d,
                                                                           const void *s,
                                                                           int64_t cs,
                                                                           TngrtDType dt)
{
    for (int h = 0; h < 2; h++) {
        __m512 r[16], u[16];
        for (int j = 0; j < 16; j++) {
            int64_t at = (int64_t)(h * 16 + j) * cs;
            if (dt == TNGRT_F32) {
                const float *x = (const float *)s + at;
                _mm_prefetch((const char *)(x + 64), _MM_HINT_T0);
                r[j] = _mm512_loadu_ps(x);
                continue;
            }
            const uint16_t *x = (const uint16_t *)s + at;
            _mm_prefetch((const char *)(x + 64), _MM_HINT_T0);
            __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)x);
            r[j] = dt == TNGRT_F16 ? _mm512_cvtph_ps(v)
                                   : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(v), 16));
        }
        for (int g = 0; g < 4; g++) {   /* u[4g + c]: lane L holds column 4L + c of rows 4g.. */
            __m512 lo01 = _mm512_unpacklo_ps(r[4 * g], r[4 * g + 1]);
            __m512 hi01 = _mm512_unpackhi_ps(r[4 * g], r[4 * g + 1]);
            __m512 lo23 = _mm512_unpacklo_ps(r[4 * g + 2], r[4 * g + 3]);
            __m512 hi23 = _mm512_unpackhi_ps(r[4 * g + 2], r[4 * g + 3]);
            u[4 * g] = _mm512_shuffle_ps(lo01, lo23, _MM_SHUFFLE(1, 0, 1, 0));
            u[4 * g + 1] = _mm512_shuffle_ps(lo01, lo23, _MM_SHUFFLE(3, 2, 3, 2));
            u[4 * g + 2] = _mm512_shuffle_ps(hi01, hi23, _MM_SHUFFLE(1, 0, 1, 0));
            u[4 * g + 3] = _mm512_shuffle_ps(hi01, hi23, _MM_SHUFFLE(3, 2, 3, 2));
        }
        for (int c = 0; c < 4; c++) {   /* column 4L + c: lane L of u[c], u[4 + c], ... */
            __m512 v0 = _mm512_shuffle_f32x4(u[c], u[4 + c], _MM_SHUFFLE(1, 0, 1, 0));
            __m512 v1 = _mm512_shuffle_f32x4(u[c], u[4 + c], _MM_SHUFFLE(3, 2, 3, 2));
            __m512 v2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], _MM_SHUFFLE(1, 0, 1, 0));
            __m512 v3 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], _MM_SHUFFLE(3, 2, 3, 2));
            float *o = d + h * 16;
            _mm512_storeu_ps(o + c * NR, _mm512_shuffle_f32x4(v0, v2, _MM_SHUFFLE(2, 0, 2, 0)));
            _mm512_storeu_ps(o + (4 + c) * NR, _mm512_shuffle_f32x4(v0, v2, _MM_SHUFFLE(3, 1, 3, 1)));
            _mm512_storeu_ps(o + (8 + c) * NR, _mm512_shuffle_f32x4(v1, v3, _MM_SHUFFLE(2, 0, 2, 0)));
            _mm512_storeu_ps(o + (12 + c) * NR, _mm512_shuffle_f32x4(v1, v3, _MM_SHUFFLE(3, 1, 3, 1)));
        }
    }
}

/* Whether tngrt_gemm__pack_tile_avx512 runs here. */
static int tngrt_gemm__pack_avx512(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
}
#endif

int tngrt__gemm_pack_tile32(uint32_t *d, const void *s, int64_t cs)
{
#if TNGRT_GEMM_X86
    if (tngrt_gemm__pack_avx512()) {   /* float32 loads and stores move the bits as they are */
        tngrt_gemm__pack_tile_avx512((float *)(void *)d, s, cs, TNGRT_F32);
        return 1;
    }
#else
    (void)d;
    (void)s;
    (void)cs;
#endif
    return 0;
}

void tngrt_gemm_pack_b(float *dst, const TngrtArg *b, int64_t off, int64_t rs, int64_t cs,
                       int64_t k, int64_t n)
{
    int bf16 = b->dtype == TNGRT_BF16, tiles = 0;
#if TNGRT_GEMM_X86
    tiles = rs == 1 && cs != 1 && tngrt_gemm__pack_avx512();
#endif
    (void)tiles;
    for (int64_t p = 0; p < n; p += NR) {
        int64_t w = n - p < NR ? n - p : NR;
        if (rs == 1 && cs != 1) {
            /* B transposed (a Linear's weight [n, k]): each column is a
             * contiguous row of the weight, read in order (a half one
             * widened 16 elements at a time) */
            float *d = dst + p * k;
            int64_t whole = 0;   /* the k rows done by whole AVX-512 tiles */
#if TNGRT_GEMM_X86
            if (w == NR && tiles) {
                size_t es = b->dtype == TNGRT_F32 ? sizeof(float) : sizeof(uint16_t);
                for (whole = 0; whole + 16 <= k; whole += 16)
                    tngrt_gemm__pack_tile_avx512(
                        d + whole * NR, (const char *)b->data + (size_t)(off + p * cs + whole) * es,
                        cs, b->dtype);
            }
#endif
            for (int64_t k0 = whole; k0 < k; k0 += 16) {   /* 16 x 32 tiles, in L1 */
                int64_t kn = k - k0 < 16 ? k - k0 : 16;
                for (int64_t j = 0; j < w; j++) {
                    if (b->dtype == TNGRT_F32) {
                        const float *s = (const float *)b->data + off + (p + j) * cs + k0;
                        for (int64_t u = 0; u < kn; u++)
                            d[(k0 + u) * NR + j] = s[u];
                    } else {
                        const uint16_t *s = (const uint16_t *)b->data + off + (p + j) * cs + k0;
                        float t[16];
                        for (int64_t u = 0; u < kn; u++)
                            t[u] = tngrt_gemm__half(bf16, s[u]);
                        for (int64_t u = 0; u < kn; u++)
                            d[(k0 + u) * NR + j] = t[u];
                    }
                }
                for (int64_t u = 0; u < kn; u++)
                    for (int64_t j = w; j < NR; j++)
                        d[(k0 + u) * NR + j] = 0.0f;
            }
            continue;
        }
        for (int64_t kk = 0; kk < k; kk++) {
            float *d = dst + (p * k + kk * NR);
            int64_t at = off + kk * rs + p * cs;
            if (b->dtype == TNGRT_F32) {
                const float *s = (const float *)b->data + at;
                if (cs == 1)
                    memcpy(d, s, (size_t)w * sizeof(float));
                else
                    for (int64_t j = 0; j < w; j++)
                        d[j] = s[j * cs];
            } else {
                const uint16_t *s = (const uint16_t *)b->data + at;
                for (int64_t j = 0; j < w; j++)
                    d[j] = tngrt_gemm__half(bf16, s[j * cs]);
            }
            for (int64_t j = w; j < NR; j++)
                d[j] = 0.0f;
        }
    }
}

int64_t tngrt_gemm_pack_weight(float **dst, const void *w, TngrtDType dt, int64_t n, int64_t k)
{
    int64_t size = tngrt_gemm_packed_size(n, k), shape[1] = {n * k};
    TngrtArg a = {(void *)w, dt, 1, shape};
    *dst = NULL;
    if (n < 1 || k < 1 || (dt != TNGRT_F32 && dt != TNGRT_F16 && dt != TNGRT_BF16) ||
        (uint64_t)size > SIZE_MAX / sizeof(float) || !(*dst = malloc((size_t)size * sizeof(float))))
        return -1;
    tngrt_gemm_pack_b(*dst, &a, 0, 1, k, k, n);
    return size;
}

void tngrt_gemm_pack_weight_rows(float *dst, const void *w, TngrtDType dt, int64_t n, int64_t k,
                                 int64_t r0, int64_t rows)
{
    int64_t shape[1] = {n * k};
    TngrtArg a = {(void *)(uintptr_t)w, dt, 1, shape};
    tngrt_gemm_pack_b(dst + r0 * k, &a, r0 * k, 1, k, k, rows);
}

/* ---- matmul epilogues (TngrtGemmEpi) ---- */

/* One tile's epilogue: the mr x nc tile t (rows NR floats apart) of output
 * rows i0.., columns j0.. through epi's steps, step by step over the whole
 * tile (so that each step's loop vectorises with the target of the driver
 * it is inlined into), then stored to c (ldc apart). The expressions are
 * the separate kernels' (tngrt_impl__unf, the binary kernel's x op y), so
 * the bits are theirs. */
/* Step st's half tensor operand at row i0 + i, columns j0.. (nc) widened
 * into y; inlined, so that the conversions vectorise with the ISA of the
 * epilogue function it is part of. */
TNGRT_GEMM_INLINE void tngrt_gemm__epi_ldh(const TngrtGemmEpiStep *st, int64_t i0, int64_t j0,
                                           int i, int nc, float *restrict y)
{
    const uint16_t *x = (const uint16_t *)st->x + (i0 + i) * st->xrs + j0 * st->xcs;
    tngrt_impl__widen_strided(y, x, st->xcs, nc, st->xdt == TNGRT_F16);
}

/* for j < nc: stmt, with a constant trip count for whole panels (so that
 * the vectoriser's loop covers the 32 columns rather than a tail). */
#define TNGRT_GEMM__COLS(stmt)                \
    do {                                      \
        if (nc == NR)                         \
            for (int j = 0; j < NR; j++)      \
                stmt;                         \
        else                                  \
            for (int j = 0; j < nc; j++)      \
                stmt;                         \
    } while (0)

/* The mr x nc tile t rounded to half type rdt (float16 or bfloat16) and
 * widened back, as a separate kernel's store and the next one's load;
 * inlined, so that the branchless conversions vectorise with the ISA of
 * the epilogue function it is part of. */
TNGRT_GEMM_INLINE void tngrt_gemm__epi_round(TngrtDType rdt, int mr, int nc, float *t)
{
    for (int i = 0; i < mr; i++) {
        float *restrict ti = t + i * NR;
        if (rdt == TNGRT_F16)
            TNGRT_GEMM__COLS(ti[j] = tngrt_impl__f16_to_f32(tngrt_impl__f32_to_f16(ti[j])));
        else
            TNGRT_GEMM__COLS(ti[j] = tngrt_impl__bf16_to_f32(tngrt_impl__f32_to_bf16(ti[j])));
    }
}

TNGRT_GEMM_INLINE void tngrt_gemm__epi_store(const TngrtGemmEpi *epi, int64_t i0, int64_t j0,
                                             int mr, int nc, float *t, float *c, int64_t ldc)
{
    float yh[NR];
    if (epi->rdt != TNGRT_F32)   /* the Linear's own store */
        tngrt_gemm__epi_round(epi->rdt, mr, nc, t);
    for (int s = 0; s < epi->n; s++) {
        const TngrtGemmEpiStep *st = &epi->s[s];
        for (int i = 0; i < mr; i++) {
            float *restrict ti = t + i * NR;   /* the tile: a local buffer, no operand */
            const float *x = NULL;
            int64_t xcs = st->xcs;
            if (st->x && st->xdt == TNGRT_F32) {
                x = (const float *)st->x + (i0 + i) * st->xrs + j0 * st->xcs;
            } else if (st->x) {   /* a half operand, widened first */
                tngrt_gemm__epi_ldh(st, i0, j0, i, nc, yh);
                x = yh;
                xcs = 1;
            }
            switch (st->kind) {
            case TNGRT_EPI_UNARY:
                switch (st->un) {   /* a loop of its own per op (tngrt_impl_eltwise.h's rows) */
#define TNGRT_UNARY(name, f, i)                                                                 \
                case TNGRT_UN_##name:                                                           \
                    TNGRT_GEMM__COLS(ti[j] = tngrt_impl__unf(TNGRT_UN_##name, ti[j], st->p, st->q)); \
                    break;
#define TNGRT_BINARY(name, f, i)
#include "tngrt_impl_eltwise.h"
#undef TNGRT_UNARY
#undef TNGRT_BINARY
                }
                break;
#define TNGRT_GEMM__EPI_BIN(K, OPR)                                                  \
            case K:                                                                  \
                if (!x)                                                              \
                    TNGRT_GEMM__COLS(ti[j] = st->swap ? st->p OPR ti[j] : ti[j] OPR st->p);        \
                else if (xcs == 1 && !st->swap)                                      \
                    TNGRT_GEMM__COLS(ti[j] = ti[j] OPR x[j]);                                      \
                else                                                                 \
                    TNGRT_GEMM__COLS(ti[j] = st->swap ? x[j * xcs] OPR ti[j] : ti[j] OPR x[j * xcs]); \
                break;
            TNGRT_GEMM__EPI_BIN(TNGRT_EPI_ADD, +)
            TNGRT_GEMM__EPI_BIN(TNGRT_EPI_SUB, -)
            TNGRT_GEMM__EPI_BIN(TNGRT_EPI_MUL, *)
            TNGRT_GEMM__EPI_BIN(TNGRT_EPI_DIV, /)
#undef TNGRT_GEMM__EPI_BIN
            }
        }
        if (epi->rdt != TNGRT_F32)
            tngrt_gemm__epi_round(epi->rdt, mr, nc, t);
    }
    if (nc == NR) {   /* a constant size: moves, not a call */
        for (int i = 0; i < mr; i++)
            memcpy(c + i * ldc, t + i * NR, NR * sizeof(float));
        return;
    }
    for (int i = 0; i < mr; i++)
        memcpy(c + i * ldc, t + i * NR, (size_t)nc * sizeof(float));
}

/* The epilogue of one tile as a function of its own per ISA (not inlined
 * into each of the drivers' tail cases: that code would crowd the
 * microkernels out of the instruction cache). */
#define TNGRT_GEMM__EPI_FN(isa, attr)                                                          \
    attr __attribute__((noinline)) static void tngrt_gemm__epi_##isa(                          \
        const TngrtGemmEpi *epi, int64_t i0, int64_t j0, int mr, int nc, float *t, float *c,   \
        int64_t ldc)                                                                           \
    {                                                                                          \
        tngrt_gemm__epi_store(epi, i0, j0, mr, nc, t, c, ldc);                                 \
    }

TNGRT_GEMM__EPI_FN(c, )

/* One microkernel call UKR(mr, ...) of a driver at row i, columns q (nc
 * of them), through the tile buffer tile when there is an epilogue (EPI:
 * the driver's tngrt_gemm__epi_<isa>). */
#define TNGRT_GEMM__TILE(UKR, EPI, mr, pp, q, bb)                                               \
    do {                                                                                       \
        if (epi) {                                                                             \
            UKR(mr, k, a + i * ars, ars, acs, pp, tile, NR, nc, bb);                           \
            EPI(epi, i, q, mr, nc, tile, c + i * ldc + (q), ldc);                              \
        } else {                                                                               \
            UKR(mr, k, a + i * ars, ars, acs, pp, c + i * ldc + (q), ldc, nc, bb);             \
        }                                                                                      \
    } while (0)

/* ---- the portable microkernel: MR_ rows x 32 columns ---- */

TNGRT_GEMM_INLINE void tngrt_gemm__ukr_c(const int mr, int64_t k, const float *a, int64_t ars,
                                         int64_t acs, const float *bp, float *c, int64_t ldc,
                                         int nc, const float *bias)
{
    float acc[4][NR];
    for (int i = 0; i < mr; i++)
        for (int j = 0; j < NR; j++)
            acc[i][j] = 0.0f;
    for (int64_t kk = 0; kk < k; kk++) {
        const float *br = bp + kk * NR;
        for (int i = 0; i < mr; i++) {
            float av = a[i * ars + kk * acs];
            for (int j = 0; j < NR; j++)
                acc[i][j] += av * br[j];
        }
    }
    for (int i = 0; i < mr; i++)
        for (int j = 0; j < nc; j++)
            c[i * ldc + j] = bias ? acc[i][j] + bias[j] : acc[i][j];
}

TNGRT_GEMM_INLINE void tngrt_gemm__body_c(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars,
                              int64_t acs, const float *bp, float *c, int64_t ldc,
                              const float *bias, const TngrtGemmEpi *epi)
{
    float tile[6 * NR];
    for (int64_t p = 0; p < n; p += NR) {
        int nc = n - p < NR ? (int)(n - p) : NR;
        const float *pp = bp + p * k, *bb = bias ? bias + p : NULL;
        int64_t i = 0;
        for (; i + 4 <= m; i += 4)
            TNGRT_GEMM__TILE(tngrt_gemm__ukr_c, tngrt_gemm__epi_c, 4, pp, p, bb);
        switch (m - i) {
        case 3: TNGRT_GEMM__TILE(tngrt_gemm__ukr_c, tngrt_gemm__epi_c, 3, pp, p, bb); break;
        case 2: TNGRT_GEMM__TILE(tngrt_gemm__ukr_c, tngrt_gemm__epi_c, 2, pp, p, bb); break;
        case 1: TNGRT_GEMM__TILE(tngrt_gemm__ukr_c, tngrt_gemm__epi_c, 1, pp, p, bb); break;
        default: break;
        }
    }
}

/* The drivers with A's column stride a constant 1 where it is (the
 * common case: the kernel's address arithmetic folds), else general. */
#define TNGRT_GEMM__RUN(isa, attr)                                                          \
    attr static void tngrt_gemm__run_##isa(int64_t m, int64_t n, int64_t k, const float *a, \
                                           int64_t ars, int64_t acs, const float *bp,      \
                                           float *c, int64_t ldc, const float *bias,       \
                                           const TngrtGemmEpi *epi)                        \
    {                                                                                       \
        if (acs == 1)                                                                       \
            tngrt_gemm__body_##isa(m, n, k, a, ars, 1, bp, c, ldc, bias, epi);              \
        else                                                                                \
            tngrt_gemm__body_##isa(m, n, k, a, ars, acs, bp, c, ldc, bias, epi);            \
    }

TNGRT_GEMM__RUN(c, )

#if TNGRT_GEMM_X86

/* ---- AVX-512: MR_ (<= 6) rows x 32 columns, 12 accumulators ---- */

#define TNGRT_GEMM__T512 __attribute__((target("avx512f")))

TNGRT_GEMM__EPI_FN(avx512, TNGRT_GEMM__T512)

/* 1 when epi's steps can run on the accumulators (tngrt_gemm__ukr512):
 * float32, each a binary step with a scalar, a one-element or a row of
 * contiguous operands (the activations need the tile buffer). */
static int tngrt_gemm__epi_regs(const TngrtGemmEpi *epi)
{
    if (!epi || epi->rdt != TNGRT_F32)
        return 0;
    for (int s = 0; s < epi->n; s++)
        if (epi->s[s].kind == TNGRT_EPI_UNARY ||
            (epi->s[s].x && (epi->s[s].xdt != TNGRT_F32 || (epi->s[s].xcs != 0 && epi->s[s].xcs != 1))))
            return 0;
    return 1;
}

/* The AVX-512 microkernel; repi (tngrt_gemm__epi_regs) applied to the
 * accumulators of output rows i0.., columns j0.. before the store (an
 * operand is read before the element is written: it may be c). */
TNGRT_GEMM_INLINE TNGRT_GEMM__T512 void
tngrt_gemm__ukr512(const int mr, int64_t k, const float *a, int64_t ars, int64_t acs,
                   const float *bp, float *c, int64_t ldc, int nc, const float *bias,
                   const TngrtGemmEpi *repi, int64_t i0, int64_t j0)
{
    __m512 c0[6], c1[6];
    __mmask16 m0 = (__mmask16)(nc >= 16 ? 0xffffu : (1u << nc) - 1u);
    __mmask16 m1 = (__mmask16)(nc >= 32 ? 0xffffu : nc > 16 ? (1u << (nc - 16)) - 1u : 0u);
    int64_t kk = 0;
    for (int i = 0; i < mr; i++)
        c0[i] = c1[i] = _mm512_setzero_ps();
    if (mr <= 2) {
        /* one or two rows (a decode step's GEMV): four independent sums
         * over k so that the FMA latency is hidden, added at the end */
        __m512 d0[2][3], d1[2][3];
        for (int i = 0; i < mr; i++)
            for (int u = 0; u < 3; u++)
                d0[i][u] = d1[i][u] = _mm512_setzero_ps();
        for (; kk + 4 <= k; kk += 4) {
            for (int i = 0; i < mr; i++) {
                const float *ai = a + i * ars + kk * acs;
                c0[i] = _mm512_fmadd_ps(_mm512_set1_ps(ai[0]), _mm512_loadu_ps(bp + kk * NR), c0[i]);
                c1[i] = _mm512_fmadd_ps(_mm512_set1_ps(ai[0]), _mm512_loadu_ps(bp + kk * NR + 16), c1[i]);
                for (int u = 0; u < 3; u++) {
                    __m512 av = _mm512_set1_ps(ai[(u + 1) * acs]);
                    const float *bu = bp + (kk + u + 1) * NR;
                    d0[i][u] = _mm512_fmadd_ps(av, _mm512_loadu_ps(bu), d0[i][u]);
                    d1[i][u] = _mm512_fmadd_ps(av, _mm512_loadu_ps(bu + 16), d1[i][u]);
                }
            }
        }
        for (int i = 0; i < mr; i++) {
            c0[i] = _mm512_add_ps(_mm512_add_ps(c0[i], d0[i][0]), _mm512_add_ps(d0[i][1], d0[i][2]));
            c1[i] = _mm512_add_ps(_mm512_add_ps(c1[i], d1[i][0]), _mm512_add_ps(d1[i][1], d1[i][2]));
        }
    }
    for (; kk < k; kk++) {
        __m512 b0 = _mm512_loadu_ps(bp + kk * NR), b1 = _mm512_loadu_ps(bp + kk * NR + 16);
        for (int i = 0; i < mr; i++) {
            __m512 av = _mm512_set1_ps(a[i * ars + kk * acs]);
            c0[i] = _mm512_fmadd_ps(av, b0, c0[i]);
            c1[i] = _mm512_fmadd_ps(av, b1, c1[i]);
        }
    }
    if (bias) {
        __m512 x0 = _mm512_maskz_loadu_ps(m0, bias), x1 = _mm512_maskz_loadu_ps(m1, bias + 16);
        for (int i = 0; i < mr; i++) {
            c0[i] = _mm512_add_ps(c0[i], x0);
            c1[i] = _mm512_add_ps(c1[i], x1);
        }
    }
    for (int s = 0; repi && s < repi->n; s++) {
        const TngrtGemmEpiStep *st = &repi->s[s];
        for (int i = 0; i < mr; i++) {
            __m512 y0, y1, u0, u1, v0, v1;
            if (!st->x) {
                y0 = y1 = _mm512_set1_ps(st->p);
            } else {
                const float *xr = (const float *)st->x + (i0 + i) * st->xrs + j0 * st->xcs;
                if (st->xcs == 0) {
                    y0 = y1 = _mm512_set1_ps(xr[0]);
                } else {
                    y0 = _mm512_maskz_loadu_ps(m0, xr);
                    y1 = _mm512_maskz_loadu_ps(m1, xr + 16);
                }
            }
            u0 = st->swap ? y0 : c0[i];
            u1 = st->swap ? y1 : c1[i];
            v0 = st->swap ? c0[i] : y0;
            v1 = st->swap ? c1[i] : y1;
            switch (st->kind) {
            case TNGRT_EPI_ADD: c0[i] = _mm512_add_ps(u0, v0); c1[i] = _mm512_add_ps(u1, v1); break;
            case TNGRT_EPI_SUB: c0[i] = _mm512_sub_ps(u0, v0); c1[i] = _mm512_sub_ps(u1, v1); break;
            case TNGRT_EPI_MUL: c0[i] = _mm512_mul_ps(u0, v0); c1[i] = _mm512_mul_ps(u1, v1); break;
            default: c0[i] = _mm512_div_ps(u0, v0); c1[i] = _mm512_div_ps(u1, v1); break;
            }
        }
    }
    if (nc == NR) {   /* whole panels: plain stores (a load of them can be forwarded) */
        for (int i = 0; i < mr; i++) {
            _mm512_storeu_ps(c + i * ldc, c0[i]);
            _mm512_storeu_ps(c + i * ldc + 16, c1[i]);
        }
        return;
    }
    for (int i = 0; i < mr; i++) {
        _mm512_mask_storeu_ps(c + i * ldc, m0, c0[i]);
        _mm512_mask_storeu_ps(c + i * ldc + 16, m1, c1[i]);
    }
}

/* The AVX-512 microkernel without an epilogue in registers. */
TNGRT_GEMM_INLINE TNGRT_GEMM__T512 void
tngrt_gemm__ukr_avx512(const int mr, int64_t k, const float *a, int64_t ars, int64_t acs,
                       const float *bp, float *c, int64_t ldc, int nc, const float *bias)
{
    tngrt_gemm__ukr512(mr, k, a, ars, acs, bp, c, ldc, nc, bias, NULL, 0, 0);
}

/* One AVX-512 tile: the epilogue in registers where it can be, else as
 * TNGRT_GEMM__TILE. */
#define TNGRT_GEMM__TILE512(mr)                                                                 \
    do {                                                                                       \
        if (repi)                                                                              \
            tngrt_gemm__ukr512(mr, k, a + i * ars, ars, acs, pp, c + i * ldc + p, ldc, nc, bb, \
                               repi, i, p);                                                    \
        else                                                                                   \
            TNGRT_GEMM__TILE(tngrt_gemm__ukr_avx512, tngrt_gemm__epi_avx512, mr, pp, p, bb);   \
    } while (0)

TNGRT_GEMM_INLINE TNGRT_GEMM__T512 void tngrt_gemm__body_avx512(int64_t m, int64_t n, int64_t k,
                                                     const float *a, int64_t ars, int64_t acs,
                                                     const float *bp, float *c, int64_t ldc,
                                                     const float *bias, const TngrtGemmEpi *epi)
{
    float tile[6 * NR];
    const TngrtGemmEpi *repi = tngrt_gemm__epi_regs(epi) ? epi : NULL;
    for (int64_t p = 0; p < n; p += NR) {
        int nc = n - p < NR ? (int)(n - p) : NR;
        const float *pp = bp + p * k, *bb = bias ? bias + p : NULL;
        int64_t i = 0;
        for (; i + 6 <= m; i += 6)
            TNGRT_GEMM__TILE512(6);
        switch (m - i) {
#define TNGRT_GEMM__TAIL(r) \
        case r: TNGRT_GEMM__TILE512(r); break;
        TNGRT_GEMM__TAIL(5) TNGRT_GEMM__TAIL(4) TNGRT_GEMM__TAIL(3) TNGRT_GEMM__TAIL(2)
        TNGRT_GEMM__TAIL(1)
#undef TNGRT_GEMM__TAIL
        default: break;
        }
    }
}

TNGRT_GEMM__RUN(avx512, TNGRT_GEMM__T512)

/* ---- AVX2 + FMA: MR_ (<= 6) rows x 16 columns (half a panel) ---- */

#define TNGRT_GEMM__T256 __attribute__((target("avx2,fma")))

TNGRT_GEMM__EPI_FN(avx2, TNGRT_GEMM__T256)

TNGRT_GEMM_INLINE TNGRT_GEMM__T256 __m256i tngrt_gemm__mask8(int nc)
{
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(nc), idx);
}

TNGRT_GEMM_INLINE TNGRT_GEMM__T256 void
tngrt_gemm__ukr_avx2(const int mr, int64_t k, const float *a, int64_t ars, int64_t acs,
                     const float *bp, float *c, int64_t ldc, int nc, const float *bias)
{
    __m256 c0[6], c1[6];
    __m256i m0 = tngrt_gemm__mask8(nc), m1 = tngrt_gemm__mask8(nc - 8);
    for (int i = 0; i < mr; i++)
        c0[i] = c1[i] = _mm256_setzero_ps();
    for (int64_t kk = 0; kk < k; kk++) {
        __m256 b0 = _mm256_loadu_ps(bp + kk * NR), b1 = _mm256_loadu_ps(bp + kk * NR + 8);
        for (int i = 0; i < mr; i++) {
            __m256 av = _mm256_broadcast_ss(a + i * ars + kk * acs);
            c0[i] = _mm256_fmadd_ps(av, b0, c0[i]);
            c1[i] = _mm256_fmadd_ps(av, b1, c1[i]);
        }
    }
    if (bias) {
        __m256 x0 = _mm256_maskload_ps(bias, m0), x1 = _mm256_maskload_ps(bias + 8, m1);
        for (int i = 0; i < mr; i++) {
            c0[i] = _mm256_add_ps(c0[i], x0);
            c1[i] = _mm256_add_ps(c1[i], x1);
        }
    }
    if (nc == 16) {   /* a whole half panel: plain stores */
        for (int i = 0; i < mr; i++) {
            _mm256_storeu_ps(c + i * ldc, c0[i]);
            _mm256_storeu_ps(c + i * ldc + 8, c1[i]);
        }
        return;
    }
    for (int i = 0; i < mr; i++) {
        _mm256_maskstore_ps(c + i * ldc, m0, c0[i]);
        _mm256_maskstore_ps(c + i * ldc + 8, m1, c1[i]);
    }
}

TNGRT_GEMM_INLINE TNGRT_GEMM__T256 void tngrt_gemm__body_avx2(int64_t m, int64_t n, int64_t k,
                                                 const float *a, int64_t ars, int64_t acs,
                                                 const float *bp, float *c, int64_t ldc,
                                                 const float *bias, const TngrtGemmEpi *epi)
{
    float tile[6 * NR];
    for (int64_t q = 0; q < n; q += 16) {
        int nc = n - q < 16 ? (int)(n - q) : 16;
        const float *pp = bp + (q / NR) * NR * k + q % NR, *bb = bias ? bias + q : NULL;
        int64_t i = 0;
        for (; i + 6 <= m; i += 6)
            TNGRT_GEMM__TILE(tngrt_gemm__ukr_avx2, tngrt_gemm__epi_avx2, 6, pp, q, bb);
        switch (m - i) {
#define TNGRT_GEMM__TAIL(r) \
        case r: TNGRT_GEMM__TILE(tngrt_gemm__ukr_avx2, tngrt_gemm__epi_avx2, r, pp, q, bb); break;
        TNGRT_GEMM__TAIL(5) TNGRT_GEMM__TAIL(4) TNGRT_GEMM__TAIL(3) TNGRT_GEMM__TAIL(2)
        TNGRT_GEMM__TAIL(1)
#undef TNGRT_GEMM__TAIL
        default: break;
        }
    }
}

TNGRT_GEMM__RUN(avx2, TNGRT_GEMM__T256)

/* The widest path the CPU has (the resolver runs before sanitizers are set
 * up: not instrumented, see kernels_isa.h). */
__attribute__((used, no_sanitize("address", "undefined")))
static __typeof__(tngrt_gemm__run_c) *tngrt_gemm_f32__resolve(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return tngrt_gemm__run_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return tngrt_gemm__run_avx2;
    return tngrt_gemm__run_c;
}

static void tngrt_gemm__run_best(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars,
                                 int64_t acs, const float *bp, float *c, int64_t ldc,
                                 const float *bias, const TngrtGemmEpi *epi)
    __attribute__((ifunc("tngrt_gemm_f32__resolve")));

/* The widest tile epilogue the CPU has, for tngrt__gemm_epi_apply. */
__attribute__((used, no_sanitize("address", "undefined")))
static __typeof__(tngrt_gemm__epi_c) *tngrt_gemm__epi_resolve(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return tngrt_gemm__epi_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return tngrt_gemm__epi_avx2;
    return tngrt_gemm__epi_c;
}

static void tngrt_gemm__epi_best(const TngrtGemmEpi *epi, int64_t i0, int64_t j0, int mr, int nc,
                                 float *t, float *c, int64_t ldc)
    __attribute__((ifunc("tngrt_gemm__epi_resolve")));

int tngrt_gemm_isa_available(TngrtGemmIsa isa)
{
    __builtin_cpu_init();
    switch (isa) {
    case TNGRT_GEMM_AVX512: return __builtin_cpu_supports("avx512f") != 0;
    case TNGRT_GEMM_AVX512_BF16:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
    case TNGRT_GEMM_AVX2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    default: return 1;
    }
}

/* The driver of the named path (the portable one where the CPU lacks it). */
static __typeof__(tngrt_gemm__run_c) *tngrt_gemm__isa_run(int isa)
{
    if (isa == TNGRT_GEMM_AVX512 && tngrt_gemm_isa_available(TNGRT_GEMM_AVX512))
        return tngrt_gemm__run_avx512;
    if (isa == TNGRT_GEMM_AVX2 && tngrt_gemm_isa_available(TNGRT_GEMM_AVX2))
        return tngrt_gemm__run_avx2;
    return tngrt_gemm__run_c;
}

#else

#define tngrt_gemm__run_best tngrt_gemm__run_c
#define tngrt_gemm__epi_best tngrt_gemm__epi_c

int tngrt_gemm_isa_available(TngrtGemmIsa isa)
{
    return isa == TNGRT_GEMM_PORTABLE;
}

static __typeof__(tngrt_gemm__run_c) *tngrt_gemm__isa_run(int isa)
{
    (void)isa;
    return tngrt_gemm__run_c;
}

#endif

/* ---- large products on the run's threads (par.c) ---- */

/*
 * A product of at least TNGRT_GEMM__PAR_FLOP floating-point operations
 * and two panels, called while a pool is current (a bundle's run on
 * stream 0's thread, tngrt__par_current), is cut into tasks of whole panels (columns of
 * C and of packed B) that the pool's threads and the caller claim. A
 * task's C columns are computed by the same driver code, over the same
 * rows and k, as in one call, so the bits do not depend on the threads.
 * Measured on 2 cores of the AMD machine of BENCHMARKS.md: a hand-off
 * costs a few microseconds when the worker is polling and tens when it
 * sleeps, so the floor is 2^23 flops (about 70 us on one core); at
 * TNGRT_GEMM__PAR_TASKS tasks per thread a thread that loses its core
 * for a while leaves its share to the others. A product of fewer than 8
 * rows (decode's GEMV over a weight packed at load: bound by reading the
 * packing) splits from TNGRT_GEMM_PAR_GEMV_F32_BYTES of packed B instead
 * (internal.h), where timing says it pays (tngrt__par_for_timed).
 */
#define TNGRT_GEMM__PAR_FLOP TNGRT_GEMM_PAR_FLOP   /* internal.h */
#define TNGRT_GEMM__PAR_TASKS 4

typedef struct TngrtGemmJob {
    __typeof__(tngrt_gemm__run_c) *run;
    int64_t m, n, k, ars, acs, ldc, cols;   /* cols: C columns per task (whole panels) */
    const float *a, *bp, *bias;
    float *c;
    const TngrtGemmEpi *epi;
} TngrtGemmJob;

const TngrtGemmEpi *tngrt__gemm_epi_at(const TngrtGemmEpi *epi, int64_t p0, TngrtGemmEpi *e)
{
    if (!epi)
        return NULL;
    *e = *epi;
    for (int s = 0; s < e->n; s++)
        if (e->s[s].x)
            e->s[s].x = (const char *)e->s[s].x +
                        p0 * e->s[s].xcs * (int64_t)tngrt_dtype_size(e->s[s].xdt);
    return e;
}

/* Task t of job ctx: columns [t * cols, ..) through the driver, the
 * epilogue's tensor operands moved to the task's first column. */
static void tngrt_gemm__task(void *ctx, int t)
{
    const TngrtGemmJob *j = ctx;
    int64_t p0 = (int64_t)t * j->cols, nc = j->n - p0 < j->cols ? j->n - p0 : j->cols;
    TngrtGemmEpi e;
    j->run(j->m, nc, j->k, j->a, j->ars, j->acs, j->bp + p0 * j->k, j->c + p0, j->ldc,
           j->bias ? j->bias + p0 : NULL, tngrt__gemm_epi_at(j->epi, p0, &e));
}

/* run(m, n, k, ...) split over the current pool's threads when it pays. */
static void tngrt_gemm__split(__typeof__(tngrt_gemm__run_c) *run, int64_t m, int64_t n,
                              int64_t k, const float *a, int64_t ars, int64_t acs,
                              const float *bp, float *c, int64_t ldc, const float *bias,
                              const TngrtGemmEpi *epi)
{
    TngrtPar *p = tngrt__par_current();
    int64_t panels = (n + NR - 1) / NR, ntasks, th = tngrt__par_threads(p);
    TngrtGemmJob j = {run, m, n, k, ars, acs, ldc, 0, a, bp, bias, c, epi};
    int gemv = m < 8 && 4.0 * (double)n * (double)k >= TNGRT_GEMM_PAR_GEMV_F32_BYTES;
    if (th < 2 || panels < 2 ||
        (!gemv && 2.0 * (double)m * (double)n * (double)k < TNGRT_GEMM__PAR_FLOP)) {
        run(m, n, k, a, ars, acs, bp, c, ldc, bias, epi);
        return;
    }
    ntasks = panels < th * TNGRT_GEMM__PAR_TASKS ? panels : th * TNGRT_GEMM__PAR_TASKS;
    j.cols = (panels + ntasks - 1) / ntasks * NR;
    ntasks = (n + j.cols - 1) / j.cols;
    if (gemv)   /* split where it is timed faster */
        tngrt__par_for_timed(p, tngrt__par_key(TNGRT_PAR_SITE_F32, m, n, k), (int)ntasks,
                             tngrt_gemm__task, &j);
    else
        tngrt__par_for(p, (int)ntasks, tngrt_gemm__task, &j);
}

/*
 * The product with B unpacked (tngrt_gemm_f32_packing): each task packs
 * its columns a group of panels at a time into its own scratch, about
 * TNGRT_GEMM__GROUP_BYTES (a group stays in L2 while every row of A runs
 * over it), and runs the driver on the group before packing the next. A
 * column's sums are the driver's over the same rows and k whichever group
 * or task holds it, so the bits are those of B packed whole.
 */
#define TNGRT_GEMM__GROUP_BYTES TNGRT_GEMM_GROUP_BYTES   /* internal.h */

typedef struct TngrtGemmPackJob {
    TngrtGemmJob g;          /* g.bp unused; g.cols: C columns per task */
    const TngrtArg *b;
    int64_t off, rs, cs;     /* B's element (kk, j) at b->data[off + kk * rs + j * cs] */
    int64_t group;           /* columns per group (whole panels) */
    float *scratch;          /* per task: tngrt_gemm_packed_size(group, k) floats */
} TngrtGemmPackJob;

static void tngrt_gemm__pack_task(void *ctx, int t)
{
    const TngrtGemmPackJob *j = ctx;
    int64_t p0 = (int64_t)t * j->g.cols, end = p0 + j->g.cols < j->g.n ? p0 + j->g.cols : j->g.n;
    float *bp = j->scratch + (int64_t)t * tngrt_gemm_packed_size(j->group, j->g.k);
    TngrtGemmEpi e;
    for (int64_t q = p0; q < end; q += j->group) {
        int64_t nc = end - q < j->group ? end - q : j->group;
        tngrt_gemm_pack_b(bp, j->b, j->off + q * j->cs, j->rs, j->cs, j->g.k, nc);
        j->g.run(j->g.m, nc, j->g.k, j->g.a, j->g.ars, j->g.acs, bp, j->g.c + q, j->g.ldc,
                 j->g.bias ? j->g.bias + q : NULL, tngrt__gemm_epi_at(j->g.epi, q, &e));
    }
}

int64_t tngrt__gemm_tasks(TngrtPar *p, int64_t m, int64_t n, int64_t k)
{
    int64_t panels = (n + NR - 1) / NR, th = tngrt__par_threads(p);
    if (th >= 2 && panels >= 2 && 2.0 * (double)m * (double)n * (double)k >= TNGRT_GEMM__PAR_FLOP)
        return panels < th * TNGRT_GEMM__PAR_TASKS ? panels : th * TNGRT_GEMM__PAR_TASKS;
    return 1;
}

TngrtGemmPackSplit tngrt__gemm_pack_split(TngrtPar *p, int64_t m, int64_t n, int64_t k,
                                          int64_t col_bytes)
{
    int64_t panels = (n + NR - 1) / NR, ntasks = tngrt__gemm_tasks(p, m, n, k);
    TngrtGemmPackSplit s;
    s.cols = (panels + ntasks - 1) / ntasks * NR;
    s.ntasks = (n + s.cols - 1) / s.cols;
    s.group = TNGRT_GEMM__GROUP_BYTES / (col_bytes * NR) * NR;
    s.group = s.group < NR ? NR : s.group < s.cols ? s.group : s.cols;
    return s;
}

int tngrt_gemm_f32_packing(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars,
                           int64_t acs, const TngrtArg *b, int64_t off, int64_t rs, int64_t cs,
                           float *c, int64_t ldc, const float *bias, const TngrtGemmEpi *epi)
{
    TngrtPar *p = tngrt__par_current();
    TngrtGemmPackSplit s = tngrt__gemm_pack_split(p, m, n, k, (int64_t)sizeof(float) * k);
    TngrtGemmPackJob j = {{tngrt_gemm__run_best, m, n, k, ars, acs, ldc, s.cols, a, NULL, bias,
                           c, epi},
                          b, off, rs, cs, s.group, NULL};
    if (!(j.scratch = (float *)tngrt_impl__alloc(s.ntasks * tngrt_gemm_packed_size(j.group, k),
                                                 sizeof(float))))
        return -1;
    tngrt__par_for(p, (int)s.ntasks, tngrt_gemm__pack_task, &j);   /* one task: on the caller */
    free(j.scratch);
    return 0;
}

void tngrt_gemm_f32_epi(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars,
                        int64_t acs, const float *bp, float *c, int64_t ldc, const float *bias,
                        const TngrtGemmEpi *epi)
{
    tngrt_gemm__split(tngrt_gemm__run_best, m, n, k, a, ars, acs, bp, c, ldc, bias, epi);
}

void tngrt_gemm_f32_epi_isa(int isa, int64_t m, int64_t n, int64_t k, const float *a,
                            int64_t ars, int64_t acs, const float *bp, float *c, int64_t ldc,
                            const float *bias, const TngrtGemmEpi *epi)
{
    tngrt_gemm__split(tngrt_gemm__isa_run(isa), m, n, k, a, ars, acs, bp, c, ldc, bias, epi);
}

/* Both ISA cases: the entry points without an epilogue. */
void tngrt_gemm_f32(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars, int64_t acs,
                    const float *bp, float *c, int64_t ldc, const float *bias)
{
    tngrt_gemm_f32_epi(m, n, k, a, ars, acs, bp, c, ldc, bias, NULL);
}

void tngrt_gemm_f32_isa(TngrtGemmIsa isa, int64_t m, int64_t n, int64_t k, const float *a,
                        int64_t ars, int64_t acs, const float *bp, float *c, int64_t ldc,
                        const float *bias)
{
    tngrt_gemm_f32_epi_isa((int)isa, m, n, k, a, ars, acs, bp, c, ldc, bias, NULL);
}

/* ---- small products with B unpacked: no packing, no library call ---- */

/*
 * c[i * ldc + j] = sum_kk a[i * ars + kk * acs] * b[kk * brs + j * bcs] for
 * few rows (decode's one-row products, attention at batch 1), where
 * packing B or a call into OpenBLAS costs more than the product. Three
 * forms: B's rows contiguous (bcs 1: each C row accumulates rows of B,
 * 64 and 16 columns in registers), B's columns contiguous with A's rows
 * (brs 1, acs 1: dot products, four columns at a time, e.g. q @ k^T with
 * k read in place), and any strides (scalar). Written with the compiler's
 * vector extension, so one body compiles to AVX-512, AVX2 or SSE/NEON
 * through the target of the function it is inlined into; without the
 * extension, scalar loops.
 */
#if defined(__GNUC__) || defined(__clang__)
#define TNGRT_GEMM_VEC 1
typedef float tngrt_gemm__v16 __attribute__((vector_size(64)));
#define TNGRT_GEMM__LD(v, p) memcpy(&(v), (p), sizeof(v))
#define TNGRT_GEMM__ST(p, v) memcpy((p), &(v), sizeof(v))
#else
#define TNGRT_GEMM_VEC 0
#endif

/* One C element by the scalar loop. */
TNGRT_GEMM_INLINE float tngrt_gemm__dot_s(int64_t k, const float *a, int64_t acs, const float *b,
                                          int64_t brs)
{
    float s = 0.0f;
    for (int64_t kk = 0; kk < k; kk++)
        s += a[kk * acs] * b[kk * brs];
    return s;
}

/* The narrow products of tngrt_gemm__tiny_body: at least 8 rows (fewer
 * keep the few-row paths below), at most 16 columns and 128 deep (B's
 * panel: 8 KiB on the stack). */
#define TNGRT_GEMM__TINY_K 128
static inline int tngrt_gemm__tiny(int64_t m, int64_t n, int64_t k)
{
    return TNGRT_GEMM_VEC && m >= 8 && n >= 1 && n <= 16 && k >= 1 && k <= TNGRT_GEMM__TINY_K;
}

/* B of at least this many floats (16 MiB: past any cache) is streamed by
 * tngrt_gemm__stream_body rather than the four-column dot products. */
#define TNGRT_GEMM__STREAM_MIN ((int64_t)1 << 22)

#if TNGRT_GEMM_VEC

/* One dot product of k floats at ai and bj (two partial sums of 16
 * lanes, added, then the lanes in order, then the tail). */
TNGRT_GEMM_INLINE float tngrt_gemm__dot1(int64_t k, const float *ai, const float *bj)
{
    int64_t k32 = k / 32 * 32, kk = 0;
    tngrt_gemm__v16 s0 = {0}, s1 = {0}, av, v;
    float r = 0.0f;
    for (; kk < k32; kk += 32) {
        TNGRT_GEMM__LD(av, ai + kk);
        TNGRT_GEMM__LD(v, bj + kk);
        s0 += av * v;
        TNGRT_GEMM__LD(av, ai + kk + 16);
        TNGRT_GEMM__LD(v, bj + kk + 16);
        s1 += av * v;
    }
    s0 += s1;
    for (int u = 0; u < 16; u++)
        r += s0[u];
    for (; kk < k; kk++)
        r += ai[kk] * bj[kk];
    return r;
}

/* The dot-product case (brs 1, acs 1: a Linear's weight read in place)
 * for a B too large for the caches, where the product is bound by reading
 * B once (decode's GEMV). Four of B's columns (the weight's
 * rows, contiguous: one sequential stream) at a time, dotted with every
 * row of A while they are in cache, so B is read from memory once
 * whatever m is (the four-column loop below reads it m times); each load
 * of A's vector serves four columns, and each column keeps two partial
 * sums off one dependency chain. Measured on 1 GiB (bench/scale): one
 * column at a time with A's vector reloaded per column reached 60-70% of
 * the memory read bandwidth, this about 100%. Sums in an order of its own
 * (two partial sums of 16 lanes, added, then the lanes in order, then the
 * tail), within the matmul tolerance like the microkernels' FMAs. */
TNGRT_GEMM_INLINE void tngrt_gemm__stream_body(int64_t m, int64_t n, int64_t k, const float *a,
                                               int64_t ars, const float *b, int64_t bcs,
                                               float *c, int64_t ldc)
{
    int64_t k32 = k / 32 * 32, j = 0;
    for (; j + 4 <= n; j += 4) {
        const float *b0 = b + j * bcs, *b1 = b0 + bcs, *b2 = b1 + bcs, *b3 = b2 + bcs;
        for (int64_t i = 0; i < m; i++) {
            const float *ai = a + i * ars;
            tngrt_gemm__v16 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, t0 = {0}, t1 = {0},
                            t2 = {0}, t3 = {0}, av, v;
            float r[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            int64_t kk = 0;
            for (; kk < k32; kk += 32) {
                TNGRT_GEMM__LD(av, ai + kk);
                TNGRT_GEMM__LD(v, b0 + kk);
                s0 += av * v;
                TNGRT_GEMM__LD(v, b1 + kk);
                s1 += av * v;
                TNGRT_GEMM__LD(v, b2 + kk);
                s2 += av * v;
                TNGRT_GEMM__LD(v, b3 + kk);
                s3 += av * v;
                TNGRT_GEMM__LD(av, ai + kk + 16);
                TNGRT_GEMM__LD(v, b0 + kk + 16);
                t0 += av * v;
                TNGRT_GEMM__LD(v, b1 + kk + 16);
                t1 += av * v;
                TNGRT_GEMM__LD(v, b2 + kk + 16);
                t2 += av * v;
                TNGRT_GEMM__LD(v, b3 + kk + 16);
                t3 += av * v;
            }
            s0 += t0;
            s1 += t1;
            s2 += t2;
            s3 += t3;
            for (int u = 0; u < 16; u++) {
                r[0] += s0[u];
                r[1] += s1[u];
                r[2] += s2[u];
                r[3] += s3[u];
            }
            for (; kk < k; kk++) {
                r[0] += ai[kk] * b0[kk];
                r[1] += ai[kk] * b1[kk];
                r[2] += ai[kk] * b2[kk];
                r[3] += ai[kk] * b3[kk];
            }
            memcpy(c + i * ldc + j, r, sizeof r);
        }
    }
    for (; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            c[i * ldc + j] = tngrt_gemm__dot1(k, a + i * ars, b + j * bcs);
}
#endif

#if TNGRT_GEMM_VEC
/* A loop left scalar: clang would vectorise it with scatters, slower here
 * than scalar stores. */
#if defined(__clang__)
#define TNGRT_GEMM__SCALAR _Pragma("clang loop vectorize(disable)")
#else
#define TNGRT_GEMM__SCALAR
#endif

/* Multiply-adds as FMAs where the target has them (the AVX-512 and AVX2
 * clones), as the microkernels' intrinsics are: a product's bits depend on
 * the ISA path within the matmul tolerance (runtime/README.md), where the
 * Makefile's -ffp-contract=off keeps the elementwise kernels' alike. */
#if defined(__clang__)
#define TNGRT_GEMM__CONTRACT _Pragma("clang fp contract(fast)")
#else
#define TNGRT_GEMM__CONTRACT
#endif

/* A row of a narrow product: the n (<= 16) lanes of vector s stored at ci
 * (a macro: a vector argument would change the ABI per target). */
#define TNGRT_GEMM__TINY_ST(ci, s)                  \
    do {                                            \
        if (n == 16)                                \
            TNGRT_GEMM__ST((ci), (s));              \
        else                                        \
            for (int64_t j_ = 0; j_ < n; j_++)      \
                (ci)[j_] = (s)[j_];                 \
    } while (0)

/* A narrow product (tngrt_gemm__tiny: attention's q @ k^T and att @ v per
 * head at short sequence lengths): B, read through its strides, copied
 * into one zero-padded panel of 16 columns on the stack, then four rows of
 * C at a time, each one vector of 16 lanes summing a[i][kk] * B[kk] over
 * kk in order. The packed path's 32-column panels would be half empty,
 * and packing into the heap and the microkernel's dispatch cost more than
 * these products (8 heads of 10 x 16 x 10 took 1.6 us that way). */
TNGRT_GEMM_INLINE void tngrt_gemm__tiny_body(int64_t m, int64_t n, int64_t k, const float *a,
                                             int64_t ars, int64_t acs, const float *b,
                                             int64_t brs, int64_t bcs, float *c, int64_t ldc)
{
    TNGRT_GEMM__CONTRACT
    float bt[TNGRT_GEMM__TINY_K * 16];
    if (n < 16)
        for (int64_t t = 0; t < k * 16; t++)
            bt[t] = 0.0f;
    if (brs == 1) {   /* B's columns contiguous (k^T read in place): a transpose */
        for (int64_t j = 0; j < n; j++) {
            TNGRT_GEMM__SCALAR
            for (int64_t kk = 0; kk < k; kk++)
                bt[kk * 16 + j] = b[kk + j * bcs];
        }
    } else {
        for (int64_t kk = 0; kk < k; kk++)
            for (int64_t j = 0; j < n; j++)
                bt[kk * 16 + j] = b[kk * brs + j * bcs];
    }
    for (int64_t i = 0; i < m; i += 4) {
        /* rows past m (at most three, in the last group) repeat row m - 1,
         * unstored: four independent sums hide the multiply-add latency */
        const float *a0 = a + i * ars, *a1 = a + (i + 1 < m ? i + 1 : m - 1) * ars,
                    *a2 = a + (i + 2 < m ? i + 2 : m - 1) * ars,
                    *a3 = a + (i + 3 < m ? i + 3 : m - 1) * ars;
        tngrt_gemm__v16 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, bv;
        for (int64_t kk = 0; kk < k; kk++) {
            TNGRT_GEMM__LD(bv, bt + kk * 16);
            s0 += a0[kk * acs] * bv;
            s1 += a1[kk * acs] * bv;
            s2 += a2[kk * acs] * bv;
            s3 += a3[kk * acs] * bv;
        }
        TNGRT_GEMM__TINY_ST(c + i * ldc, s0);
        if (i + 1 < m)
            TNGRT_GEMM__TINY_ST(c + (i + 1) * ldc, s1);
        if (i + 2 < m)
            TNGRT_GEMM__TINY_ST(c + (i + 2) * ldc, s2);
        if (i + 3 < m)
            TNGRT_GEMM__TINY_ST(c + (i + 3) * ldc, s3);
    }
}
#endif

/* stream: the dot form (brs 1, acs 1, k >= 16) streams B whatever its
 * size (a task of a split product whose whole B is past the caches,
 * tngrt_gemm_small_f32). */
TNGRT_GEMM_INLINE void tngrt_gemm__small_body(int64_t m, int64_t n, int64_t k, const float *a,
                                              int64_t ars, int64_t acs, const float *b,
                                              int64_t brs, int64_t bcs, float *c, int64_t ldc,
                                              int stream)
{
#if TNGRT_GEMM_VEC
    if (tngrt_gemm__tiny(m, n, k)) {
        tngrt_gemm__tiny_body(m, n, k, a, ars, acs, b, brs, bcs, c, ldc);
        return;
    }
    if (brs == 1 && acs == 1 && k >= 16 && (stream || n * k >= TNGRT_GEMM__STREAM_MIN)) {
        tngrt_gemm__stream_body(m, n, k, a, ars, b, bcs, c, ldc);
        return;
    }
#else
    (void)stream;
#endif
    for (int64_t i = 0; i < m; i++) {
        const float *ai = a + i * ars;
        float *ci = c + i * ldc;
        int64_t j = 0;
#if TNGRT_GEMM_VEC
        if (bcs == 1) {
            for (; j + 64 <= n; j += 64) {
                tngrt_gemm__v16 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, v0, v1, v2, v3;
                for (int64_t kk = 0; kk < k; kk++) {
                    const float *bk = b + kk * brs + j;
                    float av = ai[kk * acs];
                    TNGRT_GEMM__LD(v0, bk);
                    TNGRT_GEMM__LD(v1, bk + 16);
                    TNGRT_GEMM__LD(v2, bk + 32);
                    TNGRT_GEMM__LD(v3, bk + 48);
                    s0 += av * v0;
                    s1 += av * v1;
                    s2 += av * v2;
                    s3 += av * v3;
                }
                TNGRT_GEMM__ST(ci + j, s0);
                TNGRT_GEMM__ST(ci + j + 16, s1);
                TNGRT_GEMM__ST(ci + j + 32, s2);
                TNGRT_GEMM__ST(ci + j + 48, s3);
            }
            for (; j + 16 <= n; j += 16) {
                tngrt_gemm__v16 s0 = {0}, v0;
                for (int64_t kk = 0; kk < k; kk++) {
                    TNGRT_GEMM__LD(v0, b + kk * brs + j);
                    s0 += ai[kk * acs] * v0;
                }
                TNGRT_GEMM__ST(ci + j, s0);
            }
        } else if (brs == 1 && acs == 1 && k >= 16) {
            int64_t k16 = k / 16 * 16;
            for (; j + 4 <= n; j += 4) {
                const float *b0 = b + j * bcs, *b1 = b0 + bcs, *b2 = b1 + bcs, *b3 = b2 + bcs;
                tngrt_gemm__v16 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, av, v;
                float r[4] = {0.0f, 0.0f, 0.0f, 0.0f};
                for (int64_t kk = 0; kk < k16; kk += 16) {
                    TNGRT_GEMM__LD(av, ai + kk);
                    TNGRT_GEMM__LD(v, b0 + kk);
                    s0 += av * v;
                    TNGRT_GEMM__LD(v, b1 + kk);
                    s1 += av * v;
                    TNGRT_GEMM__LD(v, b2 + kk);
                    s2 += av * v;
                    TNGRT_GEMM__LD(v, b3 + kk);
                    s3 += av * v;
                }
                for (int u = 0; u < 16; u++) {
                    r[0] += s0[u];
                    r[1] += s1[u];
                    r[2] += s2[u];
                    r[3] += s3[u];
                }
                for (int64_t kk = k16; kk < k; kk++) {
                    r[0] += ai[kk] * b0[kk];
                    r[1] += ai[kk] * b1[kk];
                    r[2] += ai[kk] * b2[kk];
                    r[3] += ai[kk] * b3[kk];
                }
                memcpy(ci + j, r, sizeof r);
            }
            for (; j < n; j++) {
                const float *bj = b + j * bcs;
                tngrt_gemm__v16 s0 = {0}, av, v;
                float r = 0.0f;
                for (int64_t kk = 0; kk < k16; kk += 16) {
                    TNGRT_GEMM__LD(av, ai + kk);
                    TNGRT_GEMM__LD(v, bj + kk);
                    s0 += av * v;
                }
                for (int u = 0; u < 16; u++)
                    r += s0[u];
                for (int64_t kk = k16; kk < k; kk++)
                    r += ai[kk] * bj[kk];
                ci[j] = r;
            }
        }
#endif
        for (; j < n; j++)
            ci[j] = tngrt_gemm__dot_s(k, ai, acs, b + j * bcs, brs);
    }
}

static void tngrt_gemm__small_c(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars,
                                int64_t acs, const float *b, int64_t brs, int64_t bcs, float *c,
                                int64_t ldc, int stream)
{
    tngrt_gemm__small_body(m, n, k, a, ars, acs, b, brs, bcs, c, ldc, stream);
}

#if TNGRT_GEMM_X86

TNGRT_GEMM__T512 static void tngrt_gemm__small_avx512(int64_t m, int64_t n, int64_t k,
                                                      const float *a, int64_t ars, int64_t acs,
                                                      const float *b, int64_t brs, int64_t bcs,
                                                      float *c, int64_t ldc, int stream)
{
    tngrt_gemm__small_body(m, n, k, a, ars, acs, b, brs, bcs, c, ldc, stream);
}

TNGRT_GEMM__T256 static void tngrt_gemm__small_avx2(int64_t m, int64_t n, int64_t k,
                                                    const float *a, int64_t ars, int64_t acs,
                                                    const float *b, int64_t brs, int64_t bcs,
                                                    float *c, int64_t ldc, int stream)
{
    tngrt_gemm__small_body(m, n, k, a, ars, acs, b, brs, bcs, c, ldc, stream);
}

__attribute__((used, no_sanitize("address", "undefined")))
static __typeof__(tngrt_gemm__small_c) *tngrt_gemm_small_f32__resolve(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return tngrt_gemm__small_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return tngrt_gemm__small_avx2;
    return tngrt_gemm__small_c;
}

static void tngrt_gemm__small_best(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars,
                                   int64_t acs, const float *b, int64_t brs, int64_t bcs, float *c,
                                   int64_t ldc, int stream) __attribute__((ifunc("tngrt_gemm_small_f32__resolve")));

void tngrt_gemm_small_f32_isa(TngrtGemmIsa isa, int64_t m, int64_t n, int64_t k, const float *a,
                              int64_t ars, int64_t acs, const float *b, int64_t brs, int64_t bcs,
                              float *c, int64_t ldc)
{
    if (isa == TNGRT_GEMM_AVX512 && tngrt_gemm_isa_available(isa))
        tngrt_gemm__small_avx512(m, n, k, a, ars, acs, b, brs, bcs, c, ldc, 0);
    else if (isa == TNGRT_GEMM_AVX2 && tngrt_gemm_isa_available(isa))
        tngrt_gemm__small_avx2(m, n, k, a, ars, acs, b, brs, bcs, c, ldc, 0);
    else
        tngrt_gemm__small_c(m, n, k, a, ars, acs, b, brs, bcs, c, ldc, 0);
}

#else

static void tngrt_gemm__small_best(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars,
                                   int64_t acs, const float *b, int64_t brs, int64_t bcs, float *c,
                                   int64_t ldc, int stream)
{
    tngrt_gemm__small_c(m, n, k, a, ars, acs, b, brs, bcs, c, ldc, stream);
}

void tngrt_gemm_small_f32_isa(TngrtGemmIsa isa, int64_t m, int64_t n, int64_t k, const float *a,
                              int64_t ars, int64_t acs, const float *b, int64_t brs, int64_t bcs,
                              float *c, int64_t ldc)
{
    (void)isa;
    tngrt_gemm__small_c(m, n, k, a, ars, acs, b, brs, bcs, c, ldc, 0);
}

#endif

/*
 * A float32 weight read in place (past the load-time packing's limit: an
 * output layer of a large vocabulary) by a product of fewer than 8 rows
 * is streamed once for all rows (tngrt_gemm__stream_body), bound by
 * reading it. Called while a pool is current, such a product (brs 1,
 * acs 1, k >= 16, B of TNGRT_GEMM__STREAM_MIN floats or more) is cut into
 * tasks of whole groups of 4 columns (the weight's rows) that the pool's
 * threads and the caller claim, where timing says the split pays
 * (tngrt__par_for_timed): a column's sum is the same code's over the same
 * k whichever task holds it, so the bits do not depend on the threads.
 * Measured: the 2048 x 4 LLaMA decode's [32000, 2048] output layer took
 * 15-17 ms on one thread and on two before (its 262 MB at 15-17 GB/s).
 */
typedef struct TngrtGemmSmallJob {
    int64_t m, n, k, ars, bcs, ldc, cols, ntasks;
    const float *a, *b;
    float *c;
} TngrtGemmSmallJob;

static void tngrt_gemm__small_task(void *ctx, int t)
{
    const TngrtGemmSmallJob *j = ctx;
    int64_t j0 = (int64_t)t * j->cols, nc = t == j->ntasks - 1 ? j->n - j0 : j->cols;
    tngrt_gemm__small_best(j->m, nc, j->k, j->a, j->ars, 1, j->b + j0 * j->bcs, 1, j->bcs,
                           j->c + j0, j->ldc, 1);
}

void tngrt_gemm_small_f32(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars,
                          int64_t acs, const float *b, int64_t brs, int64_t bcs, float *c,
                          int64_t ldc)
{
    TngrtPar *p = tngrt__par_current();
    int64_t th = tngrt__par_threads(p), ntasks;
    TngrtGemmSmallJob j = {m, n, k, ars, bcs, ldc, 0, 0, a, b, c};
    int split = th >= 2 && m >= 1 && m < 8 && brs == 1 && acs == 1 && k >= 16 &&
                n * k >= TNGRT_GEMM__STREAM_MIN;
    j.ntasks = ntasks = split ? tngrt__par_cut(n, 4, th, TNGRT_GEMM__PAR_TASKS, &j.cols) : 1;
    if (ntasks < 2) {
        tngrt_gemm__small_best(m, n, k, a, ars, acs, b, brs, bcs, c, ldc, 0);
        return;
    }
    tngrt__par_for_timed(p, tngrt__par_key(TNGRT_PAR_SITE_F32_STREAM, m, n, k), (int)ntasks,
                         tngrt_gemm__small_task, &j);
}

int tngrt_gemm_small_pays(int64_t m, int64_t n, int64_t k)
{
    /* each row streams all of B: one or two rows always, up to 7 while B
     * stays in L2 (256 KiB), or where B is past the caches (a weight read
     * in place: the streaming loop reads it once for all rows when it is
     * a Linear's); packing pays from 8 rows, but for narrow products
     * (tngrt_gemm__tiny: one 16-column panel on the stack) */
    return tngrt_gemm__tiny(m, n, k) ||
           (m >= 1 && m < 8 &&
            (m <= 2 || n * k <= 65536 || (TNGRT_GEMM_VEC && n * k >= TNGRT_GEMM__STREAM_MIN)));
}

/* ---- matmul through strides: views read in place ---- */

/* Row by row (x's last dim, stride st[last]) of x's elements, widened
 * into f; inlined into each ISA's clone below so that the half
 * conversions vectorise. */
TNGRT_GEMM_INLINE void tngrt_gemm__widen_rows(float *restrict f, const TngrtArg *x,
                                              const int64_t *st)
{
    int64_t idx[TNGRT_MAX_DIMS] = {0}, off = 0, nd = x->ndim, w = x->shape[nd - 1];
    int64_t s = st[nd - 1], rows = w > 0 ? tngrt_impl__numel(x->ndim, x->shape) / w : 0;
    const uint16_t *h = (const uint16_t *)x->data;
    for (int64_t r = 0; r < rows; r++, f += w) {
        if (tngrt_impl__is_half(x->dtype))
            tngrt_impl__widen_strided(f, h + off, s, w, x->dtype == TNGRT_F16);
        else
            for (int64_t j = 0; j < w; j++)
                f[j] = tngrt_impl__ldf(x, off + j * s);
        for (int64_t d = nd - 2; d >= 0; d--) {
            off += st[d];
            if (++idx[d] < x->shape[d])
                break;
            off -= st[d] * x->shape[d];
            idx[d] = 0;
        }
    }
}

TNGRT_ISA_KERNEL(void, tngrt__gemm_widen_rows, (float *f, const TngrtArg *x, const int64_t *st),
                 tngrt_gemm__widen_rows(f, x, st);)

TNGRT_ISA_KERNEL(void, tngrt__gemm_narrow, (const TngrtArg *out, const float *f, int64_t n),
                 tngrt_impl__narrow(out, 0, f, n);)

/* A dense float32 copy of the strided operand x (nd dims, shape sh,
 * element strides st), or NULL. */
static float *tngrt_gemm__gather(const TngrtArg *x, const int64_t *st)
{
    int64_t n = tngrt_impl__numel(x->ndim, x->shape);
    float *f = (float *)tngrt_impl__alloc(n, sizeof(float));
    if (f)
        tngrt__gemm_widen_rows(f, x, st);
    return f;
}

/* Batch strides of the strided operand x (rank xn, strides st) against
 * nb batch dims of out: a missing or size-1 dim reads stride 0. */
static void tngrt_gemm__batch_strides(const TngrtArg *x, const int64_t *st, int64_t nb,
                                      int64_t *bst)
{
    for (int d = 0; d < nb; d++) {
        int dx = d - (int)(nb - (x->ndim - 2));
        bst[d] = dx < 0 || x->shape[dx] == 1 ? 0 : st[dx];
    }
}

/* The direct loop over the operands in place (scratch could not be had);
 * out through strides os (NULL: dense) and epi's steps (NULL: none). */
static void tngrt_gemm__naive_strided(const TngrtArg *out, const int64_t *os, const TngrtArg *a,
                                      const int64_t *as, const TngrtArg *b, const int64_t *bs,
                                      const TngrtGemmEpi *epi)
{
    int64_t abst[TNGRT_MAX_DIMS], bbst[TNGRT_MAX_DIMS], idx[TNGRT_MAX_DIMS] = {0}, ao = 0, bo = 0;
    int64_t nb = out->ndim - 2, an = a->ndim, bn = b->ndim, o = 0, co = 0;
    int64_t m = a->shape[an - 2], k = a->shape[an - 1], n = b->shape[bn - 1];
    tngrt_gemm__batch_strides(a, as, nb, abst);
    tngrt_gemm__batch_strides(b, bs, nb, bbst);
    for (int64_t t = tngrt_impl__numel((int)nb, out->shape); t > 0; t--) {
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                float s = 0.0f, r;
                for (int64_t kk = 0; kk < k; kk++)
                    s += tngrt_impl__ldf(a, ao + i * as[an - 2] + kk * as[an - 1]) *
                         tngrt_impl__ldf(b, bo + kk * bs[bn - 2] + j * bs[bn - 1]);
                if (epi)
                    tngrt_gemm__epi_store(epi, i, j, 1, 1, &s, &r, 1);
                else
                    r = s;
                tngrt_impl__stf(out, os ? co + i * os[nb] + j : o, r);
                o++;
            }
        for (int d = (int)nb - 1; d >= 0; d--) {
            ao += abst[d];
            bo += bbst[d];
            co += os ? os[d] : 0;
            if (++idx[d] < out->shape[d])
                break;
            ao -= abst[d] * out->shape[d];
            bo -= bbst[d] * out->shape[d];
            co -= os ? os[d] * out->shape[d] : 0;
            idx[d] = 0;
        }
    }
}

/* The rows of one batch's product c [m, n] (ldc apart) through epi's
 * steps, in place (steps without tensor operands). */
static void tngrt_gemm__epi_rows(const TngrtGemmEpi *epi, int64_t m, int64_t n, float *c,
                                 int64_t ldc);

/* tngrt_kernel_matmul_strided writing out through element strides os
 * (NULL: dense; else float32 out, os[last] 1) and applying epi (NULL:
 * none) to each batch's product while it is in cache. */
/* The products of a strided matmul's batches (tngrt_gemm__mm_strided
 * below): batch t's operands at its index's offsets (out's batch dims,
 * the last fastest), C dense or through os. */
typedef struct TngrtGemmMmJob {
    int64_t m, n, k;
    int nb;
    int64_t nbatch, ldc, per;   /* per: batches per task */
    int hb;                     /* B of a half type, read in place or widened by the packing */
    int64_t ars, acs, brs, bcs;
    const int64_t *oshape, *abs_, *bbs, *os;
    const float *fa, *fb;
    const TngrtArg *b;
    float *fc;
    const TngrtGemmEpi *epi;
    float *scratch;   /* per task: tngrt_gemm_packed_size(n, k) floats; NULL: no packing */
} TngrtGemmMmJob;

/* Batches [t0, t1) of j, B packed into bp (NULL: the small products). B is
 * packed again only where its offset changes (a key shared by a group of
 * heads is packed once for them). */
static void tngrt_gemm__mm_range(const TngrtGemmMmJob *j, int64_t t0, int64_t t1, float *bp)
{
    int64_t idx[TNGRT_MAX_DIMS] = {0}, ao = 0, bo = 0, co = 0, packed = -1, r = t0;
    int64_t m = j->m, n = j->n, k = j->k;
    for (int d = j->nb - 1; d >= 0; d--) {   /* batch t0's index and offsets */
        idx[d] = r % j->oshape[d];
        r /= j->oshape[d];
        ao += idx[d] * j->abs_[d];
        bo += idx[d] * j->bbs[d];
        co += j->os ? idx[d] * j->os[d] : 0;
    }
    for (int64_t t = t0; t < t1; t++) {
        float *ct = j->os ? j->fc + co : j->fc + t * m * n;
        if (k == 0) {
            for (int64_t i = 0; i < m; i++)
                memset(ct + i * j->ldc, 0, (size_t)n * sizeof(float));
        } else if (bp) {
            if (bo != packed) {
                TngrtArg bf = {(void *)j->fb, j->hb ? j->b->dtype : TNGRT_F32, j->b->ndim,
                               j->b->shape};
                tngrt_gemm_pack_b(bp, &bf, bo, j->brs, j->bcs, k, n);
                packed = bo;
            }
            tngrt_gemm_f32(m, n, k, j->fa + ao, j->ars, j->acs, bp, ct, j->ldc, NULL);
        } else if (j->hb) {
            tngrt_gemm_small_half(j->b->dtype, m, n, k, j->fa + ao, j->ars, j->acs,
                                  (const uint16_t *)j->b->data + bo, j->brs, j->bcs, ct, j->ldc);
        } else {
            tngrt_gemm_small_f32(m, n, k, j->fa + ao, j->ars, j->acs, j->fb + bo, j->brs, j->bcs,
                                 ct, j->ldc);
        }
        if (j->epi && (j->os || m * n >= 256))   /* while the product is in cache */
            tngrt_gemm__epi_rows(j->epi, m, n, ct, j->ldc);
        for (int d = j->nb - 1; d >= 0; d--) {
            ao += j->abs_[d];
            bo += j->bbs[d];
            co += j->os ? j->os[d] : 0;
            if (++idx[d] < j->oshape[d])
                break;
            ao -= j->abs_[d] * j->oshape[d];
            bo -= j->bbs[d] * j->oshape[d];
            co -= j->os ? j->os[d] * j->oshape[d] : 0;
            idx[d] = 0;
        }
    }
}

static void tngrt_gemm__mm_task(void *ctx, int t)
{
    const TngrtGemmMmJob *j = ctx;
    int64_t t0 = (int64_t)t * j->per, t1 = t0 + j->per < j->nbatch ? t0 + j->per : j->nbatch;
    tngrt_gemm__mm_range(j, t0, t1, j->scratch + (int64_t)t * tngrt_gemm_packed_size(j->n, j->k));
}

/* Every batch of j. Packed products of 8 rows or more, each under
 * TNGRT_GEMM__PAR_FLOP (so not split by columns: attention's q @ k^T and
 * att @ v per head at prefill) and together over it, are split by whole
 * batches over the current pool, each task packing into its own scratch;
 * a batch's product is the same code's either way, so the bits do not
 * depend on the threads. Returns -1 where scratch could not be had. */
static int tngrt_gemm__mm_batches(TngrtGemmMmJob *j)
{
    TngrtPar *p = tngrt__par_current();
    int64_t th = tngrt__par_threads(p), ntasks = 1;
    double flop = 2.0 * (double)j->m * (double)j->n * (double)j->k;
    int pack = j->k > 0 && !tngrt_gemm_small_pays(j->m, j->n, j->k) &&
               !(j->hb && j->m < TNGRT_GEMM_HALF_INPLACE_ROWS);
    if (pack && th >= 2 && j->m >= 8 && j->nbatch >= 2 && flop < TNGRT_GEMM__PAR_FLOP &&
        flop * (double)j->nbatch >= TNGRT_GEMM__PAR_FLOP)
        ntasks = j->nbatch < th * TNGRT_GEMM__PAR_TASKS ? j->nbatch : th * TNGRT_GEMM__PAR_TASKS;
    j->per = (j->nbatch + ntasks - 1) / ntasks;
    ntasks = (j->nbatch + j->per - 1) / j->per;
    if (pack && !(j->scratch = (float *)tngrt_impl__alloc(
                      ntasks * tngrt_gemm_packed_size(j->n, j->k), sizeof(float))))
        return -1;
    if (ntasks > 1)
        tngrt__par_for(p, (int)ntasks, tngrt_gemm__mm_task, j);
    else
        tngrt_gemm__mm_range(j, 0, j->nbatch, j->scratch);
    free(j->scratch);
    return 0;
}

static void tngrt_gemm__mm_strided(const TngrtArg *out, const int64_t *os, const TngrtArg *a,
                                   const int64_t *as, const TngrtArg *b, const int64_t *bs,
                                   const TngrtGemmEpi *epi);

void tngrt_kernel_matmul_strided(const TngrtArg *out, const TngrtArg *a, const int64_t *as,
                                 const TngrtArg *b, const int64_t *bs)
{
    tngrt_gemm__mm_strided(out, NULL, a, as, b, bs, NULL);
}

void tngrt_kernel_matmul_strided_epi(const TngrtArg *out, const int64_t *os, const TngrtArg *a,
                                     const int64_t *as, const TngrtArg *b, const int64_t *bs,
                                     const TngrtGemmEpi *epi)
{
    if ((os || epi) && out->dtype != TNGRT_F32)
        return;
    if (os && (out->ndim < 2 || os[out->ndim - 1] != 1))
        return;
    if (epi && (epi->rdt != TNGRT_F32 || epi->n > TNGRT_GEMM_EPI_MAX))
        return;
    for (int s = 0; epi && s < epi->n; s++)
        if (epi->s[s].x)
            return;
    tngrt_gemm__mm_strided(out, os, a, as, b, bs, epi);
}

/* epi's steps (no tensor operands) over the len floats at c, in place:
 * one loop per step, the op chosen outside it; compiled per ISA below. */
TNGRT_GEMM_INLINE void tngrt_gemm__epi_span_body(const TngrtGemmEpi *epi, float *c, int64_t len)
{
    for (int s = 0; s < epi->n; s++) {
        const TngrtGemmEpiStep *st = &epi->s[s];
        const float p = st->p, q = st->q;
        switch (st->kind) {
        case TNGRT_EPI_UNARY:
            switch (st->un) {   /* a loop of its own per op (tngrt_impl_eltwise.h's rows) */
#define TNGRT_UNARY(name, f, i)                                 \
            case TNGRT_UN_##name:                               \
                for (int64_t j = 0; j < len; j++)               \
                    c[j] = tngrt_impl__unf(TNGRT_UN_##name, c[j], p, q); \
                break;
#define TNGRT_BINARY(name, f, i)
#include "tngrt_impl_eltwise.h"
#undef TNGRT_UNARY
#undef TNGRT_BINARY
            }
            break;
#define TNGRT_GEMM__SPAN_BIN(K, OPR)                    \
        case K:                                         \
            if (st->swap)                               \
                for (int64_t j = 0; j < len; j++)       \
                    c[j] = p OPR c[j];                  \
            else                                        \
                for (int64_t j = 0; j < len; j++)       \
                    c[j] = c[j] OPR p;                  \
            break;
        TNGRT_GEMM__SPAN_BIN(TNGRT_EPI_ADD, +)
        TNGRT_GEMM__SPAN_BIN(TNGRT_EPI_SUB, -)
        TNGRT_GEMM__SPAN_BIN(TNGRT_EPI_MUL, *)
        TNGRT_GEMM__SPAN_BIN(TNGRT_EPI_DIV, /)
#undef TNGRT_GEMM__SPAN_BIN
        }
    }
}

static void tngrt_gemm__epi_span_c(const TngrtGemmEpi *epi, float *c, int64_t len)
{
    tngrt_gemm__epi_span_body(epi, c, len);
}

#if TNGRT_GEMM_X86
__attribute__((target("avx512f"))) static void tngrt_gemm__epi_span_avx512(const TngrtGemmEpi *epi,
                                                                           float *c, int64_t len)
{
    tngrt_gemm__epi_span_body(epi, c, len);
}

__attribute__((target("avx2,fma"))) static void tngrt_gemm__epi_span_avx2(const TngrtGemmEpi *epi,
                                                                          float *c, int64_t len)
{
    tngrt_gemm__epi_span_body(epi, c, len);
}
#endif

/* The span loop of the widest ISA the CPU has. */
static void tngrt_gemm__epi_span(const TngrtGemmEpi *epi, float *c, int64_t len)
{
#if TNGRT_GEMM_X86
    int isa = tngrt_gemm_isa_available(TNGRT_GEMM_AVX512) ? 2
              : tngrt_gemm_isa_available(TNGRT_GEMM_AVX2) ? 1 : 0;
    if (isa == 2) {
        tngrt_gemm__epi_span_avx512(epi, c, len);
        return;
    }
    if (isa == 1) {
        tngrt_gemm__epi_span_avx2(epi, c, len);
        return;
    }
#endif
    tngrt_gemm__epi_span_c(epi, c, len);
}

static void tngrt_gemm__epi_rows(const TngrtGemmEpi *epi, int64_t m, int64_t n, float *c,
                                 int64_t ldc)
{
    if (ldc == n) {   /* one span: the steps do not depend on the position */
        tngrt_gemm__epi_span(epi, c, m * n);
        return;
    }
    for (int64_t i = 0; i < m; i++)
        tngrt_gemm__epi_span(epi, c + i * ldc, n);
}

static void tngrt_gemm__mm_strided(const TngrtArg *out, const int64_t *os, const TngrtArg *a,
                                   const int64_t *as, const TngrtArg *b, const int64_t *bs,
                                   const TngrtGemmEpi *epi)
{
    const int64_t *as0 = as, *bs0 = bs;
    int64_t abs_[TNGRT_MAX_DIMS], bbs[TNGRT_MAX_DIMS], dense_a[TNGRT_MAX_DIMS], dense_b[TNGRT_MAX_DIMS];
    int64_t m, n, k, nb, nbatch, nout;
    float *sa = NULL, *sb = NULL, *sc = NULL, *fc;
    const float *fa, *fb;
    int an = a->ndim, bn = b->ndim, hb;
    if (out->ndim < 2 || an < 2 || bn < 2 || out->ndim > TNGRT_MAX_DIMS || an > out->ndim ||
        bn > out->ndim || !tngrt_impl__is_float(out->dtype) || !tngrt_impl__is_float(a->dtype) ||
        !tngrt_impl__is_float(b->dtype))
        return;
    nb = out->ndim - 2;
    m = a->shape[an - 2];
    k = a->shape[an - 1];
    n = b->shape[bn - 1];
    nout = tngrt_impl__numel(out->ndim, out->shape);
    if (nout <= 0)
        return;
    /* an A that is not float32 is widened into a dense copy (decode's q
     * or attention weights: small); a half B (a KV cache) is read in place
     * by tngrt_gemm_small_half or widened by the packing */
    if (a->dtype != TNGRT_F32) {
        if (!(sa = tngrt_gemm__gather(a, as)))
            goto fail;
        tngrt_impl__bstrides(an, a->shape, an, dense_a);
        as = dense_a;
    }
    hb = tngrt_impl__is_half(b->dtype);
    if (b->dtype != TNGRT_F32 && !hb) {
        if (!(sb = tngrt_gemm__gather(b, bs)))
            goto fail;
        tngrt_impl__bstrides(bn, b->shape, bn, dense_b);
        bs = dense_b;
    }
    fa = sa ? sa : (const float *)a->data;
    fb = sb ? sb : (const float *)b->data;
    fc = out->dtype == TNGRT_F32 ? (float *)out->data
                                 : (sc = (float *)tngrt_impl__alloc(nout, sizeof(float)));
    if (!fc)
        goto fail;
    tngrt_gemm__batch_strides(a, as, nb, abs_);
    tngrt_gemm__batch_strides(b, bs, nb, bbs);
    nbatch = tngrt_impl__numel((int)nb, out->shape);
    {
        TngrtGemmMmJob j = {m, n, k, (int)nb, nbatch, os ? os[out->ndim - 2] : n, 0, hb,
                            as[an - 2], as[an - 1], bs[bn - 2], bs[bn - 1], out->shape,
                            abs_, bbs, os, fa, fb, b, fc, epi, NULL};
        if (tngrt_gemm__mm_batches(&j) != 0)
            goto fail;
    }
    if (epi && !os && m * n < 256)   /* small products: one pass, not a call per product */
        tngrt_gemm__epi_span(epi, fc, nout);
    if (sc)
        tngrt__gemm_narrow(out, sc, nout);
    goto done;
fail:
    tngrt_gemm__naive_strided(out, os, a, as0, b, bs0, epi);
done:
    free(sa);
    free(sb);
    free(sc);
}

/* ---- row-major operands (convolution's im2col product) ---- */

int tngrt_gemm_f32_dense(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                         const float *b, int64_t ldb, float *c, int64_t ldc)
{
    float *bp;
    if (m <= 0 || n <= 0)
        return 0;
    if (k <= 0) {
        for (int64_t i = 0; i < m; i++)
            memset(c + i * ldc, 0, (size_t)n * sizeof(float));
        return 0;
    }
    if (tngrt_gemm_small_pays(m, n, k)) {
        tngrt_gemm_small_f32(m, n, k, a, lda, 1, b, ldb, 1, c, ldc);
        return 0;
    }
    if (!(bp = (float *)tngrt_impl__alloc(tngrt_gemm_packed_size(n, k), sizeof(float))))
        return -1;
    int64_t shape[2] = {k, n};
    TngrtArg bb = {(void *)b, TNGRT_F32, 2, shape};
    tngrt_gemm_pack_b(bp, &bb, 0, ldb, 1, k, n);
    tngrt_gemm_f32(m, n, k, a, lda, 1, bp, c, ldc, NULL);
    free(bp);
    return 0;
}

/* ---- epilogues over a product already computed ---- */

void tngrt__gemm_epi_tile(const TngrtGemmEpi *epi, int64_t i0, int64_t j0, int mr, int nc,
                          float *t, float *c, int64_t ldc)
{
    tngrt_gemm__epi_best(epi, i0, j0, mr, nc, t, c, ldc);
}

void tngrt__gemm_epi_apply(const TngrtGemmEpi *epi, int64_t m, int64_t n, const float *lin,
                           float *dst)
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j += NR) {
            float t[NR];
            int nc = n - j < NR ? (int)(n - j) : NR;
            memcpy(t, lin + i * n + j, (size_t)nc * sizeof(float));
            tngrt_gemm__epi_best(epi, i, j, 1, nc, t, dst + i * n + j, n);
        }
}
