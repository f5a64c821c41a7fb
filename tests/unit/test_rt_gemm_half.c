/*
 * test_rt_gemm_half.c - unit tests of the products whose B is float16 or
 * bfloat16 read in place (kernels_gemm_half.c: tngrt_gemm_small_half on
 * every path this CPU runs) and of the kernels that reach them: the
 * strided matmul over a half KV cache (few rows read in place, many rows
 * packed from the half cache) and a Linear with a half weight (few rows
 * read in place; many rows packed a block of columns at a time), and the
 * few-row products split over a pool's threads; B packed a few panels at
 * a time per thread (tngrt_gemm_f32_packing) against B packed whole. Checked
 * against a scalar reference here: each element widened by its own
 * decoder, products summed in double, within 1e-6 of the sum of the
 * terms' magnitudes (float32 accumulation).
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

/* Deterministic uniform floats in [lo, hi). */
static float t_rand(uint32_t *s, float lo, float hi)
{
    *s = *s * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(*s >> 8) / 16777216.0f;
}

/* The value of float16 bits h (subnormals, infinities), written apart
 * from the runtime's decoder. */
static double t_f16(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? INFINITY : ldexp(1024 + m, e - 25);
    return (h & 0x8000u) ? -v : v;
}

/* The value of bfloat16 bits h. */
static double t_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static double t_half(int bf16, uint16_t h)
{
    return bf16 ? t_bf16(h) : t_f16(h);
}

/* Random half bits of magnitude below 2 (every 16th a float16 subnormal
 * or a signed zero, to cover the widening's special cases). */
static uint16_t t_rand_half(uint32_t *s, int bf16)
{
    float x = t_rand(s, -2.0f, 2.0f);
    uint32_t u;
    *s = *s * 1664525u + 1013904223u;
    if ((*s >> 20) % 16 == 0)
        return (uint16_t)((*s >> 8) & (bf16 ? 0x807fu : 0x83ffu));
    memcpy(&u, &x, sizeof u);
    if (bf16)
        return (uint16_t)(u >> 16);
    /* float16: sign, exponent rebased (|x| < 2, and above 2^-14 here
     * unless tiny), the top 10 mantissa bits */
    int e = (int)((u >> 23) & 0xffu) - 127;
    if (e < -14)
        return (uint16_t)((u >> 16) & 0x8000u);
    return (uint16_t)(((u >> 16) & 0x8000u) | (uint32_t)(e + 15) << 10 | ((u >> 13) & 0x3ffu));
}

/* C [m, n] (ldc apart) against the double loop over A (ars, acs) and half
 * B (brs, bcs), plus bias[j] when bias is not NULL. */
static void t_check(const char *what, int isa, int bf16, int mode, int64_t m, int64_t n,
                    int64_t k, const float *a, int64_t ars, int64_t acs, const uint16_t *b,
                    int64_t brs, int64_t bcs, const float *bias, const float *c, int64_t ldc)
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double w = bias ? bias[j] : 0.0, sa = fabs(w);
            for (int64_t kk = 0; kk < k; kk++) {
                double x = (double)a[i * ars + kk * acs] * t_half(bf16, b[kk * brs + j * bcs]);
                w += x;
                sa += fabs(x);
            }
            if (fabs(c[i * ldc + j] - w) > 1e-6 * (sa + 1.0)) {
                fprintf(stderr, "%s path %d bf16 %d mode %d m %lld n %lld k %lld (%lld, %lld): "
                        "%.9g vs %.9g\n", what, isa, bf16, mode, (long long)m, (long long)n,
                        (long long)k, (long long)i, (long long)j, c[i * ldc + j], w);
                fail();
            }
        }
}

/* tngrt_gemm_small_half on every path this CPU runs, float16 and
 * bfloat16: M 1..9, N and K across the vector widths (16, 32, 64) and
 * their tails, A row-major or transposed, B with columns contiguous and
 * rows padded (dot form: a weight, or k^T of a cache), rows contiguous
 * and padded (row form: v of a cache), or neither stride 1 (scalar form);
 * C's padding beyond N untouched. */
static void test_small_half_paths(void **state)
{
    static const int ns[] = {1, 3, 4, 5, 15, 16, 17, 63, 64, 65, 130};
    static const int ks[] = {1, 5, 15, 16, 17, 31, 32, 33, 64, 100};
    enum { MX = 130, LD = MX + 3, PAD = 7 };
    static float a[2 * MX * MX], c[9 * LD];
    static uint16_t b[2][3 * (MX + PAD) * MX];
    uint32_t s = 3u;
    int checked = 0;
    (void)state;
    for (int i = 0; i < 2 * MX * MX; i++)
        a[i] = t_rand(&s, -1.0f, 1.0f);
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 3 * (MX + PAD) * MX; i++)
            b[h][i] = t_rand_half(&s, h);
    for (int isa = TNGRT_GEMM_PORTABLE; isa <= TNGRT_GEMM_AVX512; isa++) {
        if (!tngrt_gemm_isa_available((TngrtGemmIsa)isa))
            continue;
        for (int bf16 = 0; bf16 < 2; bf16++)
        for (int m = 1; m <= 9; m++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
        for (int mode = 0; mode < 6; mode++) {
            int n = ns[ni], k = ks[ki], ta = mode & 1, bm = mode >> 1;
            int64_t ars = ta ? 1 : k, acs = ta ? m : 1;
            int64_t brs = bm == 0 ? n + PAD : bm == 1 ? 1 : 2 * n + 1;
            int64_t bcs = bm == 0 ? 1 : bm == 1 ? k + PAD : 2;
            for (int i = 0; i < 9 * LD; i++)
                c[i] = 12345.0f;
            tngrt_gemm_small_half_isa((TngrtGemmIsa)isa, bf16 ? TNGRT_BF16 : TNGRT_F16, m, n, k,
                                      a, ars, acs, b[bf16], brs, bcs, c, LD);
            t_check("small_half", isa, bf16, mode, m, n, k, a, ars, acs, b[bf16], brs, bcs, NULL,
                    c, LD);
            for (int i = 0; i < m; i++)
                for (int j = n; j < LD; j++)
                    assert_true(c[i * LD + j] == 12345.0f);
            checked++;
        }
    }
    assert_true(checked > 0);
    /* another dtype: nothing written */
    c[0] = 12345.0f;
    tngrt_gemm_small_half(TNGRT_F32, 1, 1, 1, a, 1, 1, b[0], 1, 1, c, 1);
    assert_true(c[0] == 12345.0f);
}

/* tngrt_kernel_matmul_strided with a half KV cache as B, read through a
 * permuted view of the cache [batch, pos, heads, dim] (q @ k^T with k^T's
 * columns contiguous, att @ v with v's rows contiguous) and broadcast over
 * query heads (grouped-query attention), A float32 or the cache's dtype,
 * out float32; one row per head and 12 (read in place), 130 (packed from
 * the half cache). */
static void test_matmul_half_cache(void **state)
{
    enum { B = 2, S = 37, H = 2, D = 40, QH = 4, MX = D, R = 130 };   /* MX: the larger of S, D */
    static uint16_t cache[B * S * H * D], ah[B * QH * R * MX];
    static float af[B * QH * R * MX], o[B * QH * R * MX], ar[B * QH * R * MX];
    static const int rows_[] = {1, 12, R};
    uint32_t s = 17u;
    (void)state;
    for (int bf16 = 0; bf16 < 2; bf16++)
    for (int half_a = 0; half_a < 2; half_a++)
    for (int ri = 0; ri < 3; ri++)
    for (int kind = 0; kind < 2; kind++) {
        int rows = rows_[ri];
        TngrtDType hd = bf16 ? TNGRT_BF16 : TNGRT_F16;
        /* kind 0: q [B, QH, rows, D] @ k^T [B, 1->QH, D, S];
         * kind 1: att [B, QH, rows, S] @ v [B, 1->QH, S, D] */
        int64_t k = kind ? S : D, n = kind ? D : S;
        int64_t osh[4] = {B, QH, rows, n}, ash[4] = {B, QH, rows, k};
        int64_t ast[4] = {QH * rows * k, rows * k, k, 1};
        int64_t bsh[4] = {B, 1, k, n}, bst[4];
        for (int i = 0; i < B * S * H * D; i++)
            cache[i] = t_rand_half(&s, bf16);
        for (int64_t i = 0; i < B * QH * rows * k; i++) {
            ah[i] = t_rand_half(&s, bf16);
            af[i] = half_a ? (float)t_half(bf16, ah[i]) : t_rand(&s, -1.0f, 1.0f);
            ar[i] = af[i];
        }
        /* the cache's head 1, viewed as [B, 1, k, n] */
        bst[0] = S * H * D;
        bst[1] = 0;
        bst[2] = kind ? H * D : 1;
        bst[3] = kind ? 1 : H * D;
        TngrtArg out = {o, TNGRT_F32, 4, osh};
        TngrtArg aa = {half_a ? (void *)ah : (void *)af, half_a ? hd : TNGRT_F32, 4, ash};
        TngrtArg bb = {cache + D, hd, 4, bsh};
        tngrt_kernel_matmul_strided(&out, &aa, ast, &bb, bst);
        for (int64_t t = 0; t < B * QH; t++)
            t_check("strided", -1, bf16, kind + 2 * half_a, rows, n, k, ar + t * rows * k, k, 1,
                    cache + D + (t / QH) * bst[0], bst[2], bst[3], NULL, o + t * rows * n, n);
    }
}

/* tngrt_kernel_linear_packed with a half weight and no packing (as a
 * bundle leaves half weights): 1, 3, 20 and 70 rows read in place (fewer
 * than TNGRT_GEMM_HALF_INPLACE_ROWS), 130 packed per call a few panels at
 * a time (the groups' columns and bias meet); with and without bias. */
static void test_linear_half(void **state)
{
    static const int shp[][3] = {{1, 67, 40}, {3, 129, 33}, {20, 96, 64}, {70, 200, 64},
                                 {130, 16400, 64}};
    uint32_t s = 23u;
    (void)state;
    for (size_t si = 0; si < sizeof shp / sizeof shp[0]; si++)
    for (int bf16 = 0; bf16 < 2; bf16++)
    for (int hasb = 0; hasb < 2; hasb++) {
        int64_t m = shp[si][0], n = shp[si][1], k = shp[si][2];
        float *x = malloc((size_t)(m * k) * sizeof *x), *c = malloc((size_t)(m * n) * sizeof *c);
        float *bias = malloc((size_t)n * sizeof *bias);
        uint16_t *w = malloc((size_t)(n * k) * sizeof *w);
        assert_true(x && c && bias && w);
        for (int64_t i = 0; i < m * k; i++)
            x[i] = t_rand(&s, -1.0f, 1.0f);
        for (int64_t i = 0; i < n * k; i++)
            w[i] = t_rand_half(&s, bf16);
        for (int64_t i = 0; i < n; i++)
            bias[i] = t_rand(&s, -1.0f, 1.0f);
        int64_t xs[2] = {m, k}, ws[2] = {n, k}, os[2] = {m, n}, bs[1] = {n};
        TngrtArg ax = {x, TNGRT_F32, 2, xs}, aw = {w, bf16 ? TNGRT_BF16 : TNGRT_F16, 2, ws};
        TngrtArg ao = {c, TNGRT_F32, 2, os}, ab = {bias, TNGRT_F32, 1, bs};
        tngrt_kernel_linear_packed(&ao, &ax, &aw, hasb ? &ab : NULL, NULL);
        t_check("linear", -1, bf16, hasb, m, n, k, x, k, 1, w, 1, k, hasb ? bias : NULL, c, n);
        free(x);
        free(c);
        free(bias);
        free(w);
    }
}

/* A float16 or bfloat16 A read in place (tngrt_gemm_small_half_a16): the
 * bits of tngrt_gemm_small_half over A widened into a dense float32 [m, k]
 * (in the GEMV's shape read in place on every path, compared path by
 * path; outside it, 9 rows or a transposed A, widened first), float16 and
 * bfloat16 A and B in all four pairs, k with and without tails and past
 * L1 (5645); and a Linear of half x and half w through the kernel (the
 * read-in-place route) equal to the same Linear over x widened. */
static void test_half_a_in_place(void **state)
{
    static const int shp[][3] = {{1, 37, 16}, {3, 21, 77}, {7, 9, 130}, {1, 70, 5645},
                                 {9, 17, 64}};
    uint32_t s = 41u;
    (void)state;
    for (size_t si = 0; si < sizeof shp / sizeof shp[0]; si++)
    for (int abf = 0; abf < 2; abf++)
    for (int bbf = 0; bbf < 2; bbf++)
    for (int tr = 0; tr < 2; tr++) {
        int64_t m = shp[si][0], n = shp[si][1], k = shp[si][2];
        int64_t ars = tr ? 1 : k, acs = tr ? m : 1;
        TngrtDType adt = abf ? TNGRT_BF16 : TNGRT_F16, bdt = bbf ? TNGRT_BF16 : TNGRT_F16;
        uint16_t *ah = malloc((size_t)(m * k) * sizeof *ah), *w = malloc((size_t)(n * k) * sizeof *w);
        float *af = malloc((size_t)(m * k) * sizeof *af);
        float *c = malloc((size_t)(m * n) * sizeof *c), *want = malloc((size_t)(m * n) * sizeof *want);
        assert_true(ah && w && af && c && want);
        for (int64_t i = 0; i < m * k; i++)
            ah[i] = t_rand_half(&s, abf);
        for (int64_t i = 0; i < m; i++)   /* af: dense [m, k] */
            for (int64_t kk = 0; kk < k; kk++)
                af[i * k + kk] = (float)t_half(abf, ah[i * ars + kk * acs]);
        for (int64_t i = 0; i < n * k; i++)
            w[i] = t_rand_half(&s, bbf);
        tngrt_gemm_small_half(bdt, m, n, k, af, k, 1, w, 1, k, want, n);
        tngrt_gemm_small_half_a16(adt, bdt, m, n, k, ah, ars, acs, w, 1, k, c, n);
        assert_memory_equal(c, want, (size_t)(m * n) * sizeof *c);
        t_check("a16", -1, bbf, tr, m, n, k, af, k, 1, w, 1, k, NULL, c, n);
        for (int isa = TNGRT_GEMM_PORTABLE; !tr && m < 8 && isa <= TNGRT_GEMM_AVX512; isa++) {
            if (!tngrt_gemm_isa_available((TngrtGemmIsa)isa))
                continue;
            tngrt_gemm_small_half_isa((TngrtGemmIsa)isa, bdt, m, n, k, af, k, 1, w, 1, k, want,
                                      n);
            memset(c, 0xff, (size_t)(m * n) * sizeof *c);
            tngrt_gemm_small_half_a16_isa((TngrtGemmIsa)isa, adt, bdt, m, n, k, ah, ars, acs, w,
                                          1, k, c, n);
            if (memcmp(c, want, (size_t)(m * n) * sizeof *c) != 0)
                fail_msg("path %d adt %d bdt %d m %lld k %lld: a16 bits differ", isa, abf, bbf,
                         (long long)m, (long long)k);
        }
        if (!tr) {   /* the Linear: half x read in place, and x widened */
            int64_t xs[2] = {m, k}, ws[2] = {n, k}, os[2] = {m, n};
            TngrtArg xh = {ah, adt, 2, xs}, xf = {af, TNGRT_F32, 2, xs}, aw = {w, bdt, 2, ws};
            TngrtArg oc = {c, TNGRT_F32, 2, os}, ow = {want, TNGRT_F32, 2, os};
            tngrt_kernel_linear_packed(&oc, &xh, &aw, NULL, NULL);
            tngrt_kernel_linear_packed(&ow, &xf, &aw, NULL, NULL);
            assert_memory_equal(c, want, (size_t)(m * n) * sizeof *c);
        }
        free(ah);
        free(w);
        free(af);
        free(c);
        free(want);
    }
}

/* Few-row products past TNGRT_GEMM_PAR_GEMV_BYTES split over a pool of
 * 2 and 3 threads (by groups of 8 columns of C for a half B, by panels
 * for a float32 B packed at load) give the bits of one call on the
 * caller, for column counts with and without a tail of fewer than 8;
 * and the half product matches the reference. */
static void test_small_half_threads(void **state)
{
    static const int64_t ns[] = {1037, 1024, 2053};
    enum { K = 520 };
    uint32_t s = 29u;
    (void)state;
    for (int th = 2; th <= 3; th++) {
        TngrtPar *p = tngrt__par_new(th);
        assert_non_null(p);
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
        for (int bf16 = 0; bf16 < 2; bf16++)
        for (int m = 1; m <= 3; m += 2) {
            int64_t n = ns[ni];
            float *a = malloc((size_t)(m * K) * sizeof *a);
            float *wf = malloc((size_t)(n * K) * sizeof *wf);
            float *c1 = malloc((size_t)(m * n) * sizeof *c1);
            float *c2 = malloc((size_t)(m * n) * sizeof *c2);
            float *bp = NULL;
            uint16_t *w = malloc((size_t)(n * K) * sizeof *w);
            TngrtDType dt = bf16 ? TNGRT_BF16 : TNGRT_F16;
            assert_true(a && wf && c1 && c2 && w);
            assert_true(2.0 * (double)n * K >= TNGRT_GEMM_PAR_GEMV_BYTES);
            for (int64_t i = 0; i < m * K; i++)
                a[i] = t_rand(&s, -1.0f, 1.0f);
            for (int64_t i = 0; i < n * K; i++) {
                w[i] = t_rand_half(&s, bf16);
                wf[i] = (float)t_half(bf16, w[i]);
            }
            tngrt_gemm_small_half(dt, m, n, K, a, K, 1, w, 1, K, c1, n);
            tngrt__par_enter(p);
            tngrt_gemm_small_half(dt, m, n, K, a, K, 1, w, 1, K, c2, n);
            tngrt__par_enter(NULL);
            assert_memory_equal(c1, c2, (size_t)(m * n) * sizeof *c1);
            t_check("threads", -1, bf16, th, m, n, K, a, K, 1, w, 1, K, NULL, c2, n);
            /* float32 packed at load: the GEMM's split by panels */
            assert_true(tngrt_gemm_pack_weight(&bp, wf, TNGRT_F32, n, K) > 0);
            tngrt_gemm_f32(m, n, K, a, K, 1, bp, c1, n, NULL);
            tngrt__par_enter(p);
            tngrt_gemm_f32(m, n, K, a, K, 1, bp, c2, n, NULL);
            tngrt__par_enter(NULL);
            assert_memory_equal(c1, c2, (size_t)(m * n) * sizeof *c1);
            free(a);
            free(wf);
            free(c1);
            free(c2);
            free(bp);
            free(w);
        }
        tngrt__par_delete(p);
    }
}

/* tngrt_kernel_matmul_strided over attention's batches at prefill size
 * (each head's product under the column split's floor, all of them over
 * it: split by heads over a pool) gives the caller's bits on pools of 2
 * and 3 threads: q [1, 4, 4, 128, 64] @ k^T, k a [1, 128, 4, 64] cache
 * read through strides, shared by the 4 heads of its group (stride 0);
 * float32, float16 and bfloat16 operands and outputs; a half product has
 * the bits of the float32 one over the widened operands, cast. */
static void test_matmul_batches_threads(void **state)
{
    static const int64_t qsh[5] = {1, 4, 4, 128, 64}, ksh[5] = {1, 4, 4, 64, 128};
    static const int64_t kst[5] = {32768, 64, 0, 1, 256}, osh[5] = {1, 4, 4, 128, 128};
    uint32_t s = 5u;
    (void)state;
    for (int dt = 0; dt < 3; dt++) {
        TngrtDType t = dt == 0 ? TNGRT_F32 : dt == 1 ? TNGRT_F16 : TNGRT_BF16;
        size_t es = dt == 0 ? 4 : 2, on = 16 * 128 * 128;
        int64_t qs[5] = {131072, 32768, 8192, 64, 1};
        void *q = malloc(131072 * es), *k = malloc(32768 * es);
        void *o1 = malloc(on * es), *o2 = malloc(on * es);
        assert_true(q && k && o1 && o2);
        for (int64_t i = 0; i < 131072; i++) {
            if (dt == 0)
                ((float *)q)[i] = t_rand(&s, -1.0f, 1.0f);
            else
                ((uint16_t *)q)[i] = t_rand_half(&s, dt == 2);
        }
        for (int64_t i = 0; i < 32768; i++) {
            if (dt == 0)
                ((float *)k)[i] = t_rand(&s, -1.0f, 1.0f);
            else
                ((uint16_t *)k)[i] = t_rand_half(&s, dt == 2);
        }
        TngrtArg aq = {q, t, 5, qsh}, ak = {k, t, 5, ksh};
        TngrtArg ao1 = {o1, t, 5, osh}, ao2 = {o2, t, 5, osh};
        tngrt_kernel_matmul_strided(&ao1, &aq, qs, &ak, kst);
        if (dt > 0) {   /* half operands widened, the out rounded: the float32 product's bits cast */
            float *qf = malloc(131072 * sizeof *qf), *kf = malloc(32768 * sizeof *kf);
            float *of = malloc(on * sizeof *of);
            void *oc = malloc(on * es);
            assert_true(qf && kf && of && oc);
            for (int64_t i = 0; i < 131072; i++)
                qf[i] = (float)t_half(dt == 2, ((uint16_t *)q)[i]);
            for (int64_t i = 0; i < 32768; i++)
                kf[i] = (float)t_half(dt == 2, ((uint16_t *)k)[i]);
            TngrtArg fq = {qf, TNGRT_F32, 5, qsh}, fk = {kf, TNGRT_F32, 5, ksh};
            TngrtArg fo = {of, TNGRT_F32, 5, osh}, co = {oc, t, 5, osh};
            tngrt_kernel_matmul_strided(&fo, &fq, qs, &fk, kst);
            tngrt_kernel_unary(&co, &fo, TNGRT_UN_IDENTITY, 0.0);
            assert_memory_equal(o1, oc, on * es);
            free(qf);
            free(kf);
            free(of);
            free(oc);
        }
        for (int th = 2; th <= 3; th++) {
            TngrtPar *p = tngrt__par_new(th);
            assert_non_null(p);
            memset(o2, 0xff, on * es);
            tngrt__par_enter(p);
            tngrt_kernel_matmul_strided(&ao2, &aq, qs, &ak, kst);
            tngrt__par_enter(NULL);
            assert_memory_equal(o1, o2, on * es);
            tngrt__par_delete(p);
        }
        free(q);
        free(k);
        free(o1);
        free(o2);
    }
}

/* tngrt__gemm_pack_split, the cut both per-call packings use: tasks of
 * whole 32-column panels covering n with no empty task, groups of whole
 * panels within a task and within TNGRT_GEMM_GROUP_BYTES (one panel at
 * least); float32 columns of k 1024 (4 KiB) two panels a group, bfloat16
 * pairs (2 KiB) four; on the caller one task, on 2 threads several. */
static void test_pack_split(void **state)
{
    static const int64_t shp[][3] = {{128, 32000, 1024}, {128, 1037, 2100}, {7, 64, 40},
                                     {1, 33, 8}, {128, 2816, 1024}};
    TngrtPar *p2 = tngrt__par_new(2);
    (void)state;
    assert_non_null(p2);
    for (size_t si = 0; si < sizeof shp / sizeof shp[0]; si++)
    for (int th = 1; th <= 2; th++)
    for (int bytes = 0; bytes < 2; bytes++) {
        int64_t m = shp[si][0], n = shp[si][1], k = shp[si][2];
        int64_t col = bytes ? 4 * ((k + 1) / 2) : 4 * k;
        TngrtGemmPackSplit s = tngrt__gemm_pack_split(th > 1 ? p2 : NULL, m, n, k, col);
        assert_true(s.cols > 0 && s.cols % 32 == 0);
        assert_true(s.ntasks >= 1 && s.ntasks * s.cols >= n && (s.ntasks - 1) * s.cols < n);
        assert_true(s.group % 32 == 0 && s.group >= 32 && s.group <= s.cols);
        assert_true(s.group == 32 || s.group * col <= TNGRT_GEMM_GROUP_BYTES);
        assert_true(s.group == s.cols || (s.group + 32) * col > TNGRT_GEMM_GROUP_BYTES);
        if (th == 1)
            assert_int_equal(s.ntasks, 1);
    }
    assert_int_equal(tngrt__gemm_pack_split(NULL, 128, 32000, 1024, 4096).group, 64);
    assert_int_equal(tngrt__gemm_pack_split(NULL, 128, 32000, 1024, 2048).group, 128);
    assert_true(tngrt__gemm_pack_split(p2, 128, 32000, 1024, 4096).ntasks > 1);
    tngrt__par_delete(p2);
}

/* tngrt_gemm_f32_packing (B packed a few panels at a time per thread)
 * gives the bits of B packed whole by tngrt_gemm_pack_b and
 * tngrt_gemm_f32_epi, for a float32, float16 and bfloat16 B read as a
 * Linear's weight (transposed) and as a row-major [k, n] one, on the
 * caller and on pools of 2 and 3 threads: k deep enough that a group is
 * one panel (K 2100) and shallow (K 40: many panels a group), column
 * counts with a tail, a row bias and an epilogue step (multiply by a row
 * operand) whose operand moves with each group's columns. */
static void test_packing_groups(void **state)
{
    static const int64_t shp[][3] = {{7, 1037, 2100}, {100, 2053, 40}, {9, 64, 40}};
    uint32_t s = 31u;
    (void)state;
    for (size_t si = 0; si < sizeof shp / sizeof shp[0]; si++)
    for (int dt = 0; dt < 3; dt++)
    for (int trans = 0; trans < 2; trans++)
    for (int th = 1; th <= 3; th++) {
        int64_t m = shp[si][0], n = shp[si][1], k = shp[si][2];
        TngrtDType bdt = dt == 0 ? TNGRT_F32 : dt == 1 ? TNGRT_F16 : TNGRT_BF16;
        float *a = malloc((size_t)(m * k) * sizeof *a), *bias = malloc((size_t)n * sizeof *bias);
        float *row = malloc((size_t)n * sizeof *row), *c1 = malloc((size_t)(m * n) * sizeof *c1);
        float *c2 = malloc((size_t)(m * n) * sizeof *c2);
        float *bp = malloc((size_t)tngrt_gemm_packed_size(n, k) * sizeof *bp);
        void *b = malloc((size_t)(n * k) * sizeof(float));
        int64_t bshape[1] = {n * k}, rs = trans ? 1 : n, cs = trans ? k : 1;
        TngrtArg ab = {b, bdt, 1, bshape};
        TngrtGemmEpi epi;
        TngrtPar *p = th > 1 ? tngrt__par_new(th) : NULL;
        assert_true(a && bias && row && c1 && c2 && bp && b && (th == 1 || p));
        for (int64_t i = 0; i < m * k; i++)
            a[i] = t_rand(&s, -1.0f, 1.0f);
        for (int64_t i = 0; i < n * k; i++) {
            if (bdt == TNGRT_F32)
                ((float *)b)[i] = t_rand(&s, -1.0f, 1.0f);
            else
                ((uint16_t *)b)[i] = t_rand_half(&s, bdt == TNGRT_BF16);
        }
        for (int64_t j = 0; j < n; j++) {
            bias[j] = t_rand(&s, -1.0f, 1.0f);
            row[j] = t_rand(&s, -2.0f, 2.0f);
        }
        memset(&epi, 0, sizeof epi);
        epi.n = 1;
        epi.rdt = TNGRT_F32;
        epi.s[0].kind = TNGRT_EPI_MUL;
        epi.s[0].x = row;
        epi.s[0].xdt = TNGRT_F32;
        epi.s[0].xrs = 0;
        epi.s[0].xcs = 1;
        tngrt_gemm_pack_b(bp, &ab, 0, rs, cs, k, n);
        tngrt_gemm_f32_epi(m, n, k, a, k, 1, bp, c1, n, bias, &epi);
        tngrt__par_enter(p);
        assert_int_equal(tngrt_gemm_f32_packing(m, n, k, a, k, 1, &ab, 0, rs, cs, c2, n, bias,
                                                &epi), 0);
        tngrt__par_enter(NULL);
        assert_memory_equal(c1, c2, (size_t)(m * n) * sizeof *c1);
        if (p)
            tngrt__par_delete(p);
        free(a);
        free(bias);
        free(row);
        free(c1);
        free(c2);
        free(bp);
        free(b);
    }
}

/* The timed choice of a split (par.c): TNGRT_PAR_FIRST calls on each arm,
 * alternating, split first; then the arm with the lower running average
 * (the split only when lower by more than 1/TNGRT_PAR_MARGIN), the other
 * every TNGRT_PAR_EXPLORE-th call. *e runs calls calls whose times arm
 * gives (split_ns or serial_ns); returns how many ran split. */
static int t_pick_calls(TngrtParPick *e, int calls, uint64_t serial_ns, uint64_t split_ns)
{
    int split = 0;
    for (int i = 0; i < calls; i++) {
        int arm = tngrt__pick_arm(e);
        split += arm;
        tngrt__pick_record(e, arm, arm ? split_ns : serial_ns);
    }
    return split;
}

static void test_pick_converges(void **state)
{
    TngrtParPick e;
    int split;
    (void)state;
    memset(&e, 0, sizeof e);
    /* the first calls: split, caller, split, caller */
    for (int i = 0; i < 2 * TNGRT_PAR_FIRST; i++) {
        int arm = tngrt__pick_arm(&e);
        assert_int_equal(arm, i % 2 == 0);
        tngrt__pick_record(&e, arm, arm ? 600 : 1000);
    }
    /* split faster: split but for the exploring calls */
    split = t_pick_calls(&e, 160, 1000, 600);
    assert_int_equal(split, 160 - 160 / TNGRT_PAR_EXPLORE);
    /* one split call preempted for a long time: still split */
    tngrt__pick_record(&e, 1, 50000000);
    assert_int_equal(tngrt__pick_arm(&e) || e.calls % TNGRT_PAR_EXPLORE == TNGRT_PAR_EXPLORE - 1,
                     1);
    assert_true(t_pick_calls(&e, 32, 1000, 600) >= 32 - 2 * (32 / TNGRT_PAR_EXPLORE));
    /* the split turns slower (its worker without a core): within a few
     * of its exploring calls the caller alone, then split only to explore */
    t_pick_calls(&e, 16 * TNGRT_PAR_EXPLORE, 1000, 1800);
    split = t_pick_calls(&e, 160, 1000, 1800);
    assert_int_equal(split, 160 / TNGRT_PAR_EXPLORE);
    /* faster by less than the margin: still the caller */
    t_pick_calls(&e, 32 * TNGRT_PAR_EXPLORE, 1000, 1000 - 1000 / (2 * TNGRT_PAR_MARGIN));
    split = t_pick_calls(&e, 160, 1000, 1000 - 1000 / (2 * TNGRT_PAR_MARGIN));
    assert_int_equal(split, 160 / TNGRT_PAR_EXPLORE);
    /* faster by more: split again */
    t_pick_calls(&e, 32 * TNGRT_PAR_EXPLORE, 1000, 900);
    split = t_pick_calls(&e, 160, 1000, 900);
    assert_int_equal(split, 160 - 160 / TNGRT_PAR_EXPLORE);
    /* keys: the same sizes the same key, other sizes or sites another */
    assert_true(tngrt__par_key(TNGRT_PAR_SITE_F16, 1, 1024, 1024) ==
                tngrt__par_key(TNGRT_PAR_SITE_F16, 1, 1024, 1024));
    assert_true(tngrt__par_key(TNGRT_PAR_SITE_F16, 1, 1024, 1024) !=
                tngrt__par_key(TNGRT_PAR_SITE_BF16, 1, 1024, 1024));
    assert_true(tngrt__par_key(TNGRT_PAR_SITE_F16, 1, 1024, 2048) !=
                tngrt__par_key(TNGRT_PAR_SITE_F16, 1, 2048, 1024));
}

/* A site's first split call is slow (cold caches, first page faults, a
 * worker waking): its average starts from the least of the first calls,
 * so the split, faster from then on, is chosen at once rather than after
 * hundreds of calls. */
static void test_pick_cold_first(void **state)
{
    TngrtParPick e;
    int split;
    (void)state;
    memset(&e, 0, sizeof e);
    tngrt__pick_record(&e, tngrt__pick_arm(&e), 3000);   /* split, cold */
    for (int i = 1; i < 2 * TNGRT_PAR_FIRST; i++) {
        int arm = tngrt__pick_arm(&e);
        tngrt__pick_record(&e, arm, arm ? 600 : 1000);
    }
    assert_int_equal(e.avg[1], 600);
    split = t_pick_calls(&e, 32, 1000, 600);
    assert_true(split >= 32 - 32 / TNGRT_PAR_EXPLORE - 1);
}

/* Decode's GEMVs (float16, bfloat16 in place; float32 packed at load) on
 * pools that never split (TNGRT_SPLIT=0), always split (1) and time the
 * choice (unset: 40 calls, through both arms) give the bits of one call
 * on the caller, every call. */
static void test_split_forced(void **state)
{
    enum { N = 1037, K = 520, CALLS = 40 };
    static const char *modes[] = {"0", "1", NULL};
    uint32_t s = 41u;
    float *a = malloc(K * sizeof *a), *wf = malloc((size_t)N * K * sizeof *wf);
    float *ref[3], *c = malloc(N * sizeof *c), *bp = NULL;
    uint16_t *w[2];
    (void)state;
    assert_true(a && wf && c);
    for (int i = 0; i < K; i++)
        a[i] = t_rand(&s, -1.0f, 1.0f);
    for (int i = 0; i < N * K; i++)
        wf[i] = t_rand(&s, -1.0f, 1.0f);
    assert_true(tngrt_gemm_pack_weight(&bp, wf, TNGRT_F32, N, K) > 0);
    assert_true(4.0 * N * K >= TNGRT_GEMM_PAR_GEMV_F32_BYTES);
    for (int h = 0; h < 2; h++) {
        assert_non_null(w[h] = malloc((size_t)N * K * sizeof *w[h]));
        for (int i = 0; i < N * K; i++)
            w[h][i] = t_rand_half(&s, h);
    }
    for (int v = 0; v < 3; v++) {
        assert_non_null(ref[v] = malloc(N * sizeof *ref[v]));
        if (v < 2)
            tngrt_gemm_small_half(v ? TNGRT_BF16 : TNGRT_F16, 1, N, K, a, K, 1, w[v], 1, K,
                                  ref[v], N);
        else
            tngrt_gemm_f32(1, N, K, a, K, 1, bp, ref[v], N, NULL);
    }
    for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; mi++) {
        TngrtPar *p;
        if (modes[mi])
            setenv("TNGRT_SPLIT", modes[mi], 1);
        else
            unsetenv("TNGRT_SPLIT");
        assert_non_null(p = tngrt__par_new(2));
        tngrt__par_enter(p);
        for (int i = 0; i < CALLS; i++)
            for (int v = 0; v < 3; v++) {
                memset(c, 0, N * sizeof *c);
                if (v < 2)
                    tngrt_gemm_small_half(v ? TNGRT_BF16 : TNGRT_F16, 1, N, K, a, K, 1, w[v], 1,
                                          K, c, N);
                else
                    tngrt_gemm_f32(1, N, K, a, K, 1, bp, c, N, NULL);
                assert_memory_equal(c, ref[v], N * sizeof *c);
            }
        tngrt__par_enter(NULL);
        tngrt__par_delete(p);
    }
    unsetenv("TNGRT_SPLIT");
    for (int v = 0; v < 3; v++)
        free(ref[v]);
    free(w[0]);
    free(w[1]);
    free(a);
    free(wf);
    free(c);
    free(bp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_half_paths),
        cmocka_unit_test(test_matmul_half_cache),
        cmocka_unit_test(test_linear_half),
        cmocka_unit_test(test_half_a_in_place),
        cmocka_unit_test(test_small_half_threads),
        cmocka_unit_test(test_matmul_batches_threads),
        cmocka_unit_test(test_pack_split),
        cmocka_unit_test(test_packing_groups),
        cmocka_unit_test(test_pick_converges),
        cmocka_unit_test(test_pick_cold_first),
        cmocka_unit_test(test_split_forced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
