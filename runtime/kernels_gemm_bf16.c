/*
 * kernels_gemm_bf16.c - the product of a bfloat16 A and a bfloat16 B (a
 * bfloat16 model's Linear or matmul over many rows: prefill) on
 * AVX512_BF16's vdpbf16ps, and the same arithmetic on every other path.
 *
 * B is packed per call, a group of panels at a time per thread, as
 * tngrt_gemm_f32_packing packs (kernels_gemm.c): panels of TNGRT_GEMM_NR
 * (32) columns, each pair of B's rows 2p, 2p + 1 one row of 32 dwords
 * (column j's dword B[2p][j] | B[2p + 1][j] << 16; the high half 0 past
 * an odd k, the dwords 0 past n): half the bytes of the float32 panels. A
 * is read in place (rows contiguous, ars apart): the dword at row i,
 * elements 2p, 2p + 1 is broadcast as it is (the last element alone past
 * an odd k). Float32 sums in registers, 6 rows x 32 columns per tile;
 * then the row bias (float32 adds) and the tile epilogue of
 * tngrt_gemm_f32_epi (tngrt__gemm_epi_tile: rounding to the Linear's
 * dtype, fused pointwise ops), so those bits are the float32 GEMM's.
 *
 * The arithmetic is the instruction's, as Intel's SDM specifies it and
 * as this project's unit test finds it on the AMD EPYC of BENCHMARKS.md
 * (4 million random and edge-case operands, every bit equal): for each
 * pair, acc = fma(a[2p + 1], b[2p + 1], acc), then acc = fma(a[2p],
 * b[2p], acc), each rounded to nearest even, a bfloat16 input whose
 * exponent field is 0 read as a zero of its sign, a result whose exponent
 * field is 0 after rounding flushed to a zero of its sign. The product
 * of two bfloat16 values is exact in float32's precision, so each step
 * is one rounding of acc plus the exact product. Four paths give the same
 * bits: vdpbf16ps; AVX-512F and AVX2 FMAs on the pairs' halves (odd
 * half by a mask, even half by a shift) under MXCSR's DAZ and FTZ
 * (set for the tile's loop, restored before the epilogue); and portable C,
 * which adds the product to acc in double (the product is exact there,
 * and the sum rounds to float32 as one fma would: where the double sum is
 * not exact, one term is below 2^-37 of the other, far from a float32
 * tie) and flushes explicitly. A NaN result is a NaN on every path; its
 * payload may differ (the instruction's NaN priorities are not modelled).
 */
#include "tngrt_impl_base.h"

#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__)) && !defined(TNGRT_NO_ISA)
#define TNGRT_GBF_X86 1
#include <immintrin.h>
#else
#define TNGRT_GBF_X86 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TNGRT_GBF_INLINE static inline __attribute__((always_inline))
#else
#define TNGRT_GBF_INLINE static inline
#endif

#define NR TNGRT_GEMM_NR
#define TNGRT_GBF__MR 6

/* The dwords of B [k, n] packed: n rounded up to 32, times k's pairs. */
static int64_t tngrt_gbf__packed_size(int64_t n, int64_t k)
{
    return (n + NR - 1) / NR * NR * ((k + 1) / 2);
}

/* Packs B's columns [0, n) (element (kk, j) at b[kk * rs + j * cs]) into
 * dst as the header says. A Linear's weight (rs 1, cs even) is a matrix
 * of dwords, transposed 16 pairs x 32 columns at a time in registers
 * where AVX-512 runs (tngrt__gemm_pack_tile32); the rest one dword at a
 * time. */
static void tngrt_gbf__pack(uint32_t *dst, const uint16_t *b, int64_t rs, int64_t cs, int64_t k,
                            int64_t n)
{
    int64_t kp = (k + 1) / 2;
    for (int64_t p0 = 0; p0 < n; p0 += NR) {
        int64_t w = n - p0 < NR ? n - p0 : NR, whole = 0;
        uint32_t *d = dst + p0 * kp;
        if (rs == 1 && cs % 2 == 0 && k % 2 == 0 && w == NR)
            while (whole + 16 <= kp &&
                   tngrt__gemm_pack_tile32(d + whole * NR, b + p0 * cs + 2 * whole, cs / 2))
                whole += 16;
        for (int64_t p = whole; p < kp; p++)
            for (int64_t j = 0; j < NR; j++) {
                uint32_t lo = 0, hi = 0;
                if (j < w) {
                    const uint16_t *s = b + (p0 + j) * cs + 2 * p * rs;
                    lo = s[0];
                    hi = 2 * p + 1 < k ? s[rs] : 0u;
                }
                d[p * NR + j] = lo | hi << 16;
            }
    }
}

/* A's pair at a (elements a[0], a[1] as one dword; last: a[0] alone). */
TNGRT_GBF_INLINE uint32_t tngrt_gbf__pair(const uint16_t *a, int last)
{
    uint32_t d;
    if (last)
        return a[0];
    memcpy(&d, a, sizeof d);
    return d;
}

/* The microkernel of a path: the mr (<= 6) x 32 sums of rows a (ars
 * apart) and the panel bp into t (rows NR floats apart). */
typedef void tngrt_gbf__ukr_fn(int mr, int64_t k, const uint16_t *a, int64_t ars,
                               const uint32_t *bp, float *t);

/* fn(mr, k, a, ars, bp, t) for mr a constant 1..6 (the microkernels'
 * loops unrolled). */
#define TNGRT_GBF__BY_MR(fn)                                \
    do {                                                    \
        switch (mr) {                                       \
        case 6: fn(6, k, a, ars, bp, t); break;             \
        case 5: fn(5, k, a, ars, bp, t); break;             \
        case 4: fn(4, k, a, ars, bp, t); break;             \
        case 3: fn(3, k, a, ars, bp, t); break;             \
        case 2: fn(2, k, a, ars, bp, t); break;             \
        default: fn(1, k, a, ars, bp, t); break;            \
        }                                                   \
    } while (0)

/* ---- portable C ---- */

/* x with a zero exponent field read as a zero of its sign (the
 * instruction's treatment of denormal inputs and results). */
TNGRT_GBF_INLINE float tngrt_gbf__flush(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    if ((u & 0x7f800000u) == 0)
        u &= 0x80000000u;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The bfloat16 in the high half of d, or the low half (lo), widened. */
TNGRT_GBF_INLINE float tngrt_gbf__half(uint32_t d, int lo)
{
    uint32_t u = lo ? d << 16 : d & 0xffff0000u;
    float x;
    memcpy(&x, &u, sizeof x);
    return tngrt_gbf__flush(x);
}

/* acc plus the exact product x * y, rounded once to float32 (see the
 * header), flushed. */
TNGRT_GBF_INLINE float tngrt_gbf__step(float acc, float x, float y)
{
    return tngrt_gbf__flush((float)((double)acc + (double)x * (double)y));
}

TNGRT_GBF_INLINE void tngrt_gbf__ukr_c_body(const int mr, int64_t k, const uint16_t *a,
                                            int64_t ars, const uint32_t *bp, float *t)
{
    float acc[TNGRT_GBF__MR][NR];
    int64_t kp = (k + 1) / 2;
    for (int i = 0; i < mr; i++)
        for (int j = 0; j < NR; j++)
            acc[i][j] = 0.0f;
    for (int64_t p = 0; p < kp; p++) {
        const uint32_t *br = bp + p * NR;
        for (int i = 0; i < mr; i++) {
            uint32_t ad = tngrt_gbf__pair(a + i * ars + 2 * p, 2 * p + 1 == k);
            float ao = tngrt_gbf__half(ad, 0), ae = tngrt_gbf__half(ad, 1);
            for (int j = 0; j < NR; j++) {
                float s = tngrt_gbf__step(acc[i][j], ao, tngrt_gbf__half(br[j], 0));
                acc[i][j] = tngrt_gbf__step(s, ae, tngrt_gbf__half(br[j], 1));
            }
        }
    }
    for (int i = 0; i < mr; i++)
        memcpy(t + i * NR, acc[i], sizeof acc[i]);
}

static void tngrt_gbf__ukr_c(int mr, int64_t k, const uint16_t *a, int64_t ars,
                             const uint32_t *bp, float *t)
{
    TNGRT_GBF__BY_MR(tngrt_gbf__ukr_c_body);
}

#if TNGRT_GBF_X86

/* ---- AVX512_BF16: vdpbf16ps ---- */

#define TNGRT_GBF__TBF16 __attribute__((target("avx512f,avx512bf16")))

TNGRT_GBF_INLINE TNGRT_GBF__TBF16 void tngrt_gbf__ukr_bf16_body(const int mr, int64_t k,
                                                                const uint16_t *a, int64_t ars,
                                                                const uint32_t *bp, float *t)
{
    __m512 c0[TNGRT_GBF__MR], c1[TNGRT_GBF__MR];
    int64_t kh = k / 2;
    for (int i = 0; i < mr; i++)
        c0[i] = c1[i] = _mm512_setzero_ps();
    for (int64_t p = 0; p < kh; p++) {
        __m512bh b0 = (__m512bh)_mm512_loadu_si512(bp + p * NR);
        __m512bh b1 = (__m512bh)_mm512_loadu_si512(bp + p * NR + 16);
        for (int i = 0; i < mr; i++) {
            __m512bh av = (__m512bh)_mm512_set1_epi32((int)tngrt_gbf__pair(a + i * ars + 2 * p, 0));
            c0[i] = _mm512_dpbf16_ps(c0[i], av, b0);
            c1[i] = _mm512_dpbf16_ps(c1[i], av, b1);
        }
    }
    if (k % 2) {   /* the last element alone: its pair's high halves are 0 */
        __m512bh b0 = (__m512bh)_mm512_loadu_si512(bp + kh * NR);
        __m512bh b1 = (__m512bh)_mm512_loadu_si512(bp + kh * NR + 16);
        for (int i = 0; i < mr; i++) {
            __m512bh av = (__m512bh)_mm512_set1_epi32((int)tngrt_gbf__pair(a + i * ars + k - 1, 1));
            c0[i] = _mm512_dpbf16_ps(c0[i], av, b0);
            c1[i] = _mm512_dpbf16_ps(c1[i], av, b1);
        }
    }
    for (int i = 0; i < mr; i++) {
        _mm512_storeu_ps(t + i * NR, c0[i]);
        _mm512_storeu_ps(t + i * NR + 16, c1[i]);
    }
}

TNGRT_GBF__TBF16 static void tngrt_gbf__ukr_bf16(int mr, int64_t k, const uint16_t *a,
                                                 int64_t ars, const uint32_t *bp, float *t)
{
    TNGRT_GBF__BY_MR(tngrt_gbf__ukr_bf16_body);
}

/* ---- AVX-512F and AVX2: FMAs on the halves under DAZ and FTZ ---- */

/* MXCSR's DAZ (bit 6) and FTZ (bit 15). The compiler barriers keep the
 * loop's loads and the stores of its sums between the two writes of the
 * register. */
#define TNGRT_GBF__DAZ_FTZ 0x8040u
#define TNGRT_GBF__BARRIER() __asm__ __volatile__("" ::: "memory")

/* The loop of both paths, in vectors of W floats (type VF; their bits
 * VI): each part of 2W columns of the panel in turn, two accumulators
 * per row, the pair's odd halves (HI: a mask) multiplied in first, then
 * the even ones (LO: a shift). */
#define TNGRT_GBF__FMA_LOOP(W, VF, VI, LOAD, ZERO, SET1, HI, LO, FMA, STORE)                  \
    for (int q = 0; q < NR; q += 2 * (W)) {                                                   \
        VF c0[TNGRT_GBF__MR], c1[TNGRT_GBF__MR];                                              \
        int64_t kp = (k + 1) / 2;                                                             \
        for (int i = 0; i < mr; i++)                                                          \
            c0[i] = c1[i] = ZERO();                                                           \
        for (int64_t p = 0; p < kp; p++) {                                                    \
            VI v0 = LOAD(bp + p * NR + q), v1 = LOAD(bp + p * NR + q + (W));                  \
            VF o0 = HI(v0), o1 = HI(v1), e0 = LO(v0), e1 = LO(v1);                            \
            for (int i = 0; i < mr; i++) {                                                    \
                VI ad = SET1((int)tngrt_gbf__pair(a + i * ars + 2 * p, 2 * p + 1 == k));      \
                VF ao = HI(ad), ae = LO(ad);                                                  \
                c0[i] = FMA(ae, e0, FMA(ao, o0, c0[i]));                                      \
                c1[i] = FMA(ae, e1, FMA(ao, o1, c1[i]));                                      \
            }                                                                                 \
        }                                                                                     \
        for (int i = 0; i < mr; i++) {                                                        \
            STORE(t + i * NR + q, c0[i]);                                                     \
            STORE(t + i * NR + q + (W), c1[i]);                                               \
        }                                                                                     \
    }

/* name (target attr): the microkernel of TNGRT_GBF__FMA_LOOP over the
 * operations given (its unrolled body name##_body), run with DAZ and FTZ
 * set and MXCSR restored after. */
#define TNGRT_GBF__FLUSHED(name, attr, ...)                                                   \
    TNGRT_GBF_INLINE attr void name##_body(const int mr, int64_t k, const uint16_t *a,       \
                                           int64_t ars, const uint32_t *bp, float *t)        \
    {                                                                                        \
        TNGRT_GBF__FMA_LOOP(__VA_ARGS__)                                                     \
    }                                                                                        \
    attr static void name(int mr, int64_t k, const uint16_t *a, int64_t ars,                 \
                          const uint32_t *bp, float *t)                                      \
    {                                                                                        \
        unsigned int csr = _mm_getcsr();                                                     \
        _mm_setcsr(csr | TNGRT_GBF__DAZ_FTZ);                                                \
        TNGRT_GBF__BARRIER();                                                                \
        TNGRT_GBF__BY_MR(name##_body);                                                       \
        TNGRT_GBF__BARRIER();                                                                \
        _mm_setcsr(csr);                                                                     \
    }

#define TNGRT_GBF__T512 __attribute__((target("avx512f")))

#define TNGRT_GBF__LD512(p) _mm512_loadu_si512(p)
#define TNGRT_GBF__HI512(v) _mm512_castsi512_ps(_mm512_and_si512((v), _mm512_set1_epi32(-65536)))
#define TNGRT_GBF__LO512(v) _mm512_castsi512_ps(_mm512_slli_epi32((v), 16))

TNGRT_GBF__FLUSHED(tngrt_gbf__ukr512, TNGRT_GBF__T512, 16, __m512, __m512i, TNGRT_GBF__LD512,
                   _mm512_setzero_ps, _mm512_set1_epi32, TNGRT_GBF__HI512, TNGRT_GBF__LO512,
                   _mm512_fmadd_ps, _mm512_storeu_ps)

#define TNGRT_GBF__T256 __attribute__((target("avx2,fma")))

#define TNGRT_GBF__LD256(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define TNGRT_GBF__HI256(v) _mm256_castsi256_ps(_mm256_and_si256((v), _mm256_set1_epi32(-65536)))
#define TNGRT_GBF__LO256(v) _mm256_castsi256_ps(_mm256_slli_epi32((v), 16))

TNGRT_GBF__FLUSHED(tngrt_gbf__ukr256, TNGRT_GBF__T256, 8, __m256, __m256i, TNGRT_GBF__LD256,
                   _mm256_setzero_ps, _mm256_set1_epi32, TNGRT_GBF__HI256, TNGRT_GBF__LO256,
                   _mm256_fmadd_ps, _mm256_storeu_ps)
#endif

/* The microkernel of path isa (the portable one where the CPU lacks it);
 * TNGRT_GEMM_PORTABLE - 1: the widest the CPU has. */
static tngrt_gbf__ukr_fn *tngrt_gbf__ukr_for(int isa)
{
#if TNGRT_GBF_X86
    if (isa < 0)
        isa = tngrt_gemm_isa_available(TNGRT_GEMM_AVX512_BF16) ? TNGRT_GEMM_AVX512_BF16
              : tngrt_gemm_isa_available(TNGRT_GEMM_AVX512)    ? TNGRT_GEMM_AVX512
              : tngrt_gemm_isa_available(TNGRT_GEMM_AVX2)      ? TNGRT_GEMM_AVX2
                                                               : TNGRT_GEMM_PORTABLE;
    if (isa == TNGRT_GEMM_AVX512_BF16 && tngrt_gemm_isa_available(TNGRT_GEMM_AVX512_BF16))
        return tngrt_gbf__ukr_bf16;
    if (isa == TNGRT_GEMM_AVX512 && tngrt_gemm_isa_available(TNGRT_GEMM_AVX512))
        return tngrt_gbf__ukr512;
    if (isa == TNGRT_GEMM_AVX2 && tngrt_gemm_isa_available(TNGRT_GEMM_AVX2))
        return tngrt_gbf__ukr256;
#else
    (void)isa;
#endif
    return tngrt_gbf__ukr_c;
}

/* ---- the driver: panels of packed B, tiles of 6 rows ---- */

typedef struct TngrtGbfJob {
    tngrt_gbf__ukr_fn *ukr;
    int64_t m, n, k, ars, rs, cs, ldc;
    int64_t cols, group;     /* C columns per task; per group (whole panels) */
    const uint16_t *a, *b;   /* B's element (kk, j) at b[kk * rs + j * cs] */
    float *c;
    const float *bias;
    const TngrtGemmEpi *epi;
    uint32_t *scratch;       /* per task: tngrt_gbf__packed_size(group, k) dwords */
} TngrtGbfJob;

/* Columns [q, q + nc) of C from their packing bp: each tile's sums, the
 * bias added, then the epilogue (moved to column q: e) or a copy. */
static void tngrt_gbf__run(const TngrtGbfJob *j, int64_t q, int64_t nc, const uint32_t *bp)
{
    float t[TNGRT_GBF__MR * NR];
    int64_t kp = (j->k + 1) / 2;
    TngrtGemmEpi e;
    const TngrtGemmEpi *epi = tngrt__gemm_epi_at(j->epi, q, &e);
    for (int64_t p = 0; p < nc; p += NR) {
        int w = nc - p < NR ? (int)(nc - p) : NR;
        for (int64_t i = 0; i < j->m; i += TNGRT_GBF__MR) {
            int mr = j->m - i < TNGRT_GBF__MR ? (int)(j->m - i) : TNGRT_GBF__MR;
            float *ci = j->c + i * j->ldc + q + p;
            j->ukr(mr, j->k, j->a + i * j->ars, j->ars, bp + p * kp, t);
            for (int r = 0; j->bias && r < mr; r++)
                for (int u = 0; u < w; u++)
                    t[r * NR + u] += j->bias[q + p + u];
            if (epi) {
                tngrt__gemm_epi_tile(epi, i, p, mr, w, t, ci, j->ldc);
                continue;
            }
            for (int r = 0; r < mr; r++)
                memcpy(ci + r * j->ldc, t + r * NR, (size_t)w * sizeof(float));
        }
    }
}

static void tngrt_gbf__task(void *ctx, int t)
{
    const TngrtGbfJob *j = ctx;
    int64_t p0 = (int64_t)t * j->cols, end = p0 + j->cols < j->n ? p0 + j->cols : j->n;
    uint32_t *bp = j->scratch + (int64_t)t * tngrt_gbf__packed_size(j->group, j->k);
    for (int64_t q = p0; q < end; q += j->group) {
        int64_t nc = end - q < j->group ? end - q : j->group;
        tngrt_gbf__pack(bp, j->b + q * j->cs, j->rs, j->cs, j->k, nc);
        tngrt_gbf__run(j, q, nc, bp);
    }
}

/* The product on the microkernel ukr, split over the current pool's
 * threads by whole panels as tngrt_gemm_f32_packing splits. */
static int tngrt_gbf__product(tngrt_gbf__ukr_fn *ukr, int64_t m, int64_t n, int64_t k,
                              const uint16_t *a, int64_t ars, const TngrtArg *b, int64_t off,
                              int64_t rs, int64_t cs, float *c, int64_t ldc, const float *bias,
                              const TngrtGemmEpi *epi)
{
    TngrtPar *p = tngrt__par_current();
    TngrtGemmPackSplit s;
    TngrtGbfJob j = {ukr, m, n, k, ars, rs, cs, ldc, 0, 0, a, NULL, c, bias, epi, NULL};
    if (m < 1 || n < 1 || k < 1 || b->dtype != TNGRT_BF16)
        return -1;
    j.b = (const uint16_t *)b->data + off;
    /* a column packs to (k + 1) / 2 pairs of bfloat16 */
    s = tngrt__gemm_pack_split(p, m, n, k, (int64_t)sizeof(uint32_t) * ((k + 1) / 2));
    j.cols = s.cols;
    j.group = s.group;
    if (!(j.scratch = (uint32_t *)tngrt_impl__alloc(s.ntasks * tngrt_gbf__packed_size(j.group, k),
                                                    sizeof(uint32_t))))
        return -1;
    tngrt__par_for(p, (int)s.ntasks, tngrt_gbf__task, &j);   /* one task: on the caller */
    free(j.scratch);
    return 0;
}

int tngrt_gemm_bf16_packing(int64_t m, int64_t n, int64_t k, const uint16_t *a, int64_t ars,
                            const TngrtArg *b, int64_t off, int64_t rs, int64_t cs, float *c,
                            int64_t ldc, const float *bias, const TngrtGemmEpi *epi)
{
    return tngrt_gbf__product(tngrt_gbf__ukr_for(-1), m, n, k, a, ars, b, off, rs, cs, c, ldc,
                              bias, epi);
}

int tngrt_gemm_bf16_packing_isa(TngrtGemmIsa isa, int64_t m, int64_t n, int64_t k,
                                const uint16_t *a, int64_t ars, const TngrtArg *b, int64_t off,
                                int64_t rs, int64_t cs, float *c, int64_t ldc, const float *bias,
                                const TngrtGemmEpi *epi)
{
    return tngrt_gbf__product(tngrt_gbf__ukr_for((int)isa), m, n, k, a, ars, b, off, rs, cs, c,
                              ldc, bias, epi);
}
