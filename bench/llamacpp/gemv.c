/*
 * gemv.c - decode's GEMV (one row) through tngrt_kernel_linear_packed:
 * float32 packed as a bundle packs it at load, float16 read in place; on
 * the caller alone and on a pool of 2 threads (internal.h's tngrt__par_*,
 * as a bundle's run sets it), the weights cycled through copies totalling
 * TOTAL bytes (default 512e6) so that each call reads them from memory as
 * a decode step does; the median per call over ROUNDS passes (default 7),
 * or the best with MIN=1 in the environment. The split thresholds are
 * internal.h's TNGRT_GEMM_PAR_GEMV_*: set them to 0 and rebuild the
 * library to see where a second thread starts to pay.
 *
 *   clang -O2 -Iruntime -o gemv bench/llamacpp/gemv.c build/libtngcrt.a \
 *       -lopenblas -lm -lpthread && ./gemv [TOTAL [ROUNDS]]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemv_main.h"
#include "tngrt.h"
#include "tngrt_kernels.h"

/* One size: rounds passes of each of f32 1 thread, f32 2, f16 1, f16 2;
 * prints the median (or best) time per call. */
static int gemv_size(TngrtPar *pool, int64_t n, int64_t k, double total, int rounds, int best)
{
    int nc = (int)(total / ((double)n * (double)k * 2.0)), ncf;
    float *x = malloc((size_t)k * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    float *w = malloc((size_t)(n * k) * sizeof *w), **wp;
    uint16_t **wh;
    double t[4][MAX_ROUNDS];
    int64_t xs[2] = {1, k}, ws[2] = {n, k}, ys[2] = {1, n};
    nc = nc < 1 ? 1 : nc > 20000 ? 20000 : nc;
    ncf = nc / 2 > 0 ? nc / 2 : 1;   /* float32: the same bytes as float16's copies */
    wp = calloc((size_t)ncf, sizeof *wp);
    wh = calloc((size_t)nc, sizeof *wh);
    if (!x || !y || !w || !wp || !wh)
        return -1;
    for (int64_t i = 0; i < n * k; i++)
        w[i] = (float)((uint32_t)(i * 2654435761u) % 1000u) / 1000.0f - 0.5f;
    for (int64_t i = 0; i < k; i++)
        x[i] = (float)(i % 17) / 17.0f;
    for (int c = 0; c < nc; c++) {
        if (!(wh[c] = malloc((size_t)(n * k) * sizeof **wh)))
            return -1;
        tngrt_half_from_f32(TNGRT_F16, w, wh[c], (size_t)(n * k));
    }
    for (int c = 0; c < ncf; c++)
        if (tngrt_gemm_pack_weight(&wp[c], w, TNGRT_F32, n, k) < 0)
            return -1;
    TngrtArg ax = {x, TNGRT_F32, 2, xs}, ay = {y, TNGRT_F32, 2, ys}, aw = {w, TNGRT_F32, 2, ws};
    for (int r = 0; r < rounds; r++)
        for (int v = 0; v < 4; v++) {
            double t0;
            tngrt__par_enter(v & 1 ? pool : NULL);
            t0 = now();
            if (v < 2) {
                for (int c = 0; c < ncf; c++)
                    tngrt_kernel_linear_packed(&ay, &ax, &aw, NULL, wp[c]);
            } else {
                for (int c = 0; c < nc; c++) {
                    TngrtArg awh = {wh[c], TNGRT_F16, 2, ws};
                    tngrt_kernel_linear_packed(&ay, &ax, &awh, NULL, NULL);
                }
            }
            t[v][r] = (now() - t0) / (v < 2 ? ncf : nc);
            tngrt__par_enter(NULL);
        }
    for (int v = 0; v < 4; v++)
        qsort(t[v], (size_t)rounds, sizeof(double), cmp_double);
    int q = best ? 0 : rounds / 2;
    printf("n %5lld k %5lld | f32 %6.2f MB: 1t %8.1f us 2t %8.1f us x%.2f | "
           "f16 %6.2f MB: 1t %8.1f us 2t %8.1f us x%.2f\n",
           (long long)n, (long long)k, (double)(n * k) * 4e-6, t[0][q] * 1e6, t[1][q] * 1e6,
           t[0][q] / t[1][q], (double)(n * k) * 2e-6, t[2][q] * 1e6, t[3][q] * 1e6,
           t[2][q] / t[3][q]);
    fflush(stdout);
    for (int c = 0; c < nc; c++)
        free(wh[c]);
    for (int c = 0; c < ncf; c++)
        free(wp[c]);
    free(wp);
    free(wh);
    free(w);
    free(x);
    free(y);
    return 0;
}

int main(int argc, char **argv)
{
    static const int64_t sz[][2] = {{128, 512},   {256, 512},   {512, 512},   {512, 1024},
                                    {1024, 1024}, {2048, 1024}, {2048, 2048}, {4096, 4096}};
    return gemv_main(argc, argv, "gemv", sz, sizeof sz / sizeof sz[0], gemv_size);
}
