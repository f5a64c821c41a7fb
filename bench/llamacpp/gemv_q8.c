/*
 * gemv_q8.c - decode's weight-only int8 GEMV (one row of float16 x times
 * an int8 [k, n] weight, npu_weight_quant_batchmatmul's kernel
 * tngrt_kernel_weight_quant_matmul) with one scale per column, and with
 * one per column and group of 128 rows (scale and offset), each read in
 * place ([k, n]) and packed as a bundle packs it at load
 * (tngrt_q8_pack_rows, tngrt_kernel_weight_quant_matmul_packed); beside it the
 * float16 weight of the same shape read in place (tngrt_kernel_linear_packed,
 * as gemv.c times it). On the caller alone and on a pool of 2 threads; the
 * weights cycled through copies totalling TOTAL bytes (default 512e6) so
 * that each call reads them from memory as a decode step does; the median
 * per call over ROUNDS passes (default 7), or the best with MIN=1. Prints
 * the time per call and the read rate: the bytes of weight, scale and
 * offset one call reads, over its time.
 *
 *   clang -O2 -Iruntime -o gemv_q8 bench/llamacpp/gemv_q8.c build/libtngcrt.a \
 *       -lopenblas -lm -lpthread && ./gemv_q8 [TOTAL [ROUNDS]]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemv_main.h"
#include "tngrt.h"
#include "tngrt_kernels.h"

/* int8 per column, per group of 128, the same packed, float16 */
#define VARIANTS 5

/* The weights of one size: nc int8 copies [k, n], nh packings of them and
 * nh float16 copies [n, k] (the same bytes in each set), the scales and
 * offsets. */
typedef struct Weights {
    int64_t n, k;
    int nc, nh;
    int8_t **w8, **wp;
    uint16_t **wh, *x, *y, *sc, *sg, *og;
} Weights;

static void weights_free(Weights *W)
{
    for (int c = 0; W->w8 && c < W->nc; c++)
        free(W->w8[c]);
    for (int c = 0; W->wh && c < W->nh; c++)
        free(W->wh[c]);
    for (int c = 0; W->wp && c < W->nh; c++)
        free(W->wp[c]);
    free(W->w8), free(W->wp), free(W->wh), free(W->x), free(W->y), free(W->sc), free(W->sg), free(W->og);
}

static int weights_make(Weights *W, int64_t n, int64_t k, double total)
{
    int64_t ng = k / 128;
    float *f = malloc((size_t)(n * k) * sizeof *f);
    memset(W, 0, sizeof *W);
    W->n = n, W->k = k;
    W->nc = (int)(total / ((double)n * (double)k));
    W->nc = W->nc < 1 ? 1 : W->nc > 20000 ? 20000 : W->nc;
    W->nh = W->nc / 2 > 0 ? W->nc / 2 : 1;
    W->w8 = calloc((size_t)W->nc, sizeof *W->w8);
    W->wh = calloc((size_t)W->nh, sizeof *W->wh);
    W->wp = calloc((size_t)W->nh, sizeof *W->wp);
    W->x = malloc((size_t)k * 2), W->y = malloc((size_t)n * 4);
    W->sc = malloc((size_t)n * 2), W->sg = malloc((size_t)(ng * n) * 2), W->og = malloc((size_t)(ng * n) * 2);
    if (!f || !W->w8 || !W->wh || !W->wp || !W->x || !W->y || !W->sc || !W->sg || !W->og)
        return free(f), -1;
    for (int64_t i = 0; i < n * k; i++)
        f[i] = (float)((uint32_t)(i * 2654435761u) % 1000u) / 1000.0f - 0.5f;
    for (int c = 0; c < W->nh; c++) {
        if (!(W->wh[c] = malloc((size_t)(n * k) * 2)))
            return free(f), -1;
        tngrt_half_from_f32(TNGRT_F16, f, W->wh[c], (size_t)(n * k));
    }
    for (int c = 0; c < W->nc; c++) {
        if (!(W->w8[c] = malloc((size_t)(n * k))))
            return free(f), -1;
        for (int64_t i = 0; i < n * k; i++)
            W->w8[c][i] = (int8_t)(f[i] * 254.0f);
    }
    for (int c = 0; c < W->nh; c++) {
        if (!(W->wp[c] = tngrt_q8_pack_new(k, n)))
            return free(f), -1;
        tngrt_q8_pack_rows(W->wp[c], W->w8[c], k, n, 0, k);
    }
    for (int64_t i = 0; i < k; i++)
        f[i] = (float)(i % 17) / 17.0f;
    tngrt_half_from_f32(TNGRT_F16, f, W->x, (size_t)k);
    for (int64_t i = 0; i < ng * n; i++)
        f[i] = 0.004f + (float)(i % 7) * 1e-4f;
    tngrt_half_from_f32(TNGRT_F16, f, W->sc, (size_t)n);
    tngrt_half_from_f32(TNGRT_F16, f, W->sg, (size_t)(ng * n));
    for (int64_t i = 0; i < ng * n; i++)
        f[i] = (float)(i % 5) - 2.0f;
    tngrt_half_from_f32(TNGRT_F16, f, W->og, (size_t)(ng * n));
    free(f);
    return 0;
}

/* The seconds per call of variant v over every copy. */
static double run_variant(const Weights *W, int v)
{
    int64_t n = W->n, k = W->k, ng = k / 128;
    int64_t xs[2] = {1, k}, ws[2] = {k, n}, whs[2] = {n, k}, ys[2] = {1, n}, gs[2] = {ng, n}, cs[1] = {n};
    TngrtArg ax = {W->x, TNGRT_F16, 2, xs}, ay = {W->y, TNGRT_F16, 2, ys};
    TngrtArg asc = {W->sc, TNGRT_F16, 1, cs}, asg = {W->sg, TNGRT_F16, 2, gs}, aog = {W->og, TNGRT_F16, 2, gs};
    int copies = v < 2 ? W->nc : W->nh, grp = v == 1 || v == 3;
    double t0 = now();
    for (int c = 0; c < copies; c++) {
        if (v < 4) {
            TngrtArg aw = {W->w8[c], TNGRT_I8, 2, ws};
            if (tngrt_kernel_weight_quant_matmul_packed(&ay, &ax, &aw, grp ? &asg : &asc, grp ? &aog : NULL,
                                                        NULL, grp ? 128 : 0, v < 2 ? NULL : W->wp[c],
                                                        NULL) < 0)
                return -1.0;
        } else {
            TngrtArg aw = {W->wh[c], TNGRT_F16, 2, whs};
            tngrt_kernel_linear_packed(&ay, &ax, &aw, NULL, NULL);
        }
    }
    return (now() - t0) / copies;
}

/* One size: rounds passes of each variant on 1 and 2 threads; prints the
 * median (or best) time per call and its read rate. */
static int gemv_size(TngrtPar *pool, int64_t n, int64_t k, double total, int rounds, int best)
{
    static const char *const name[VARIANTS] = {"int8 per column", "int8 per group 128", "packed per column",
                                               "packed per group", "float16"};
    Weights W;
    double t[VARIANTS][2][MAX_ROUNDS];
    if (weights_make(&W, n, k, total) < 0)
        return weights_free(&W), -1;
    for (int r = 0; r < rounds; r++)
        for (int v = 0; v < VARIANTS; v++)
            for (int th = 0; th < 2; th++) {
                tngrt__par_enter(th ? pool : NULL);
                t[v][th][r] = run_variant(&W, v);
                tngrt__par_enter(NULL);
                if (t[v][th][r] < 0)
                    return weights_free(&W), -1;
            }
    int q = best ? 0 : rounds / 2;
    for (int v = 0; v < VARIANTS; v++) {
        double bytes = v == 0 || v == 2 ? (double)(n * k) + 2.0 * (double)n
                     : v < 4 ? (double)(n * k) + 4.0 * (double)(k / 128 * n) : 2.0 * (double)(n * k);
        qsort(t[v][0], (size_t)rounds, sizeof(double), cmp_double);
        qsort(t[v][1], (size_t)rounds, sizeof(double), cmp_double);
        printf("n %5lld k %5lld %-19s %7.2f MB: 1t %8.1f us %5.1f GB/s | 2t %8.1f us %5.1f GB/s\n",
               (long long)n, (long long)k, name[v], bytes * 1e-6, t[v][0][q] * 1e6,
               bytes / t[v][0][q] * 1e-9, t[v][1][q] * 1e6, bytes / t[v][1][q] * 1e-9);
    }
    fflush(stdout);
    weights_free(&W);
    return 0;
}

int main(int argc, char **argv)
{
    static const int64_t sz[][2] = {{512, 512}, {1024, 1024}, {2048, 2048}, {4096, 4096}};
    return gemv_main(argc, argv, "gemv_q8", sz, sizeof sz / sizeof sz[0], gemv_size);
}
