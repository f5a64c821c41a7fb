/*
 * layers.c - the convolutions of bench/vision/model.py one at a time
 * through tngrt_kernel_conv_epi (with their batch norm, residual and relu
 * epilogues), best of REPS calls each, on the calling thread: microseconds
 * and GFLOP/s per layer at one batch and input size.
 *
 * build: clang -O2 -Iruntime -o layers bench/vision/layers.c build/libtngcrt.a -lm -lpthread
 * usage: layers [BATCH [SIZE [REPS [LAYER]]]]   (default 2 32 300, every layer)
 */
#define _POSIX_C_SOURCE 200809L
#include "tngrt_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    const char *name;
    int c, o, k, s, bn, res, relu, hw_div;   /* hw_div: the input's size is SIZE / hw_div */
} Layer;

static const Layer LAYERS[] = {
    {"stem 3x3 3->16 +bn+relu", 3, 16, 3, 1, 1, 0, 1, 1},
    {"block a 3x3 16->16 +bn+relu", 16, 16, 3, 1, 1, 0, 1, 2},
    {"block b 3x3 16->16 +bn+add+relu", 16, 16, 3, 1, 1, 1, 1, 2},
    {"down 3x3 s2 16->32 +bn+relu", 16, 32, 3, 2, 1, 0, 1, 2},
    {"proj 1x1 32->64 +bias+relu", 32, 64, 1, 1, 0, 0, 1, 4},
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static float *randv(int64_t n, float lo, float span)
{
    float *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
    for (int64_t i = 0; p && i < n; i++)
        p[i] = lo + span * (float)rand() / (float)RAND_MAX;
    return p;
}

static double run_layer(const Layer *l, int n, int size, int reps)
{
    int64_t h = size / l->hw_div, oh = (h + 2 * (l->k / 2) - l->k) / l->s + 1;
    int64_t xs[4] = {n, l->c, h, h}, ws[4] = {l->o, l->c, l->k, l->k}, os[4] = {n, l->o, oh, oh};
    int64_t cs[1] = {l->o};
    float *x = randv(n * l->c * h * h, -1, 2), *w = randv(l->o * l->c * l->k * l->k, -0.5f, 1);
    float *out = randv(n * l->o * oh * oh, 0, 0), *res = randv(n * l->o * oh * oh, -1, 2);
    float *st[4] = {randv(l->o, -0.2f, 0.4f), randv(l->o, 0.5f, 1), randv(l->o, 0.5f, 1),
                    randv(l->o, -0.2f, 0.4f)};
    float *bias = randv(l->o, -0.1f, 0.2f);
    TngrtArg X = {x, TNGRT_F32, 4, xs}, Wt = {w, TNGRT_F32, 4, ws}, O = {out, TNGRT_F32, 4, os};
    TngrtArg R = {res, TNGRT_F32, 4, os}, B = {bias, TNGRT_F32, 1, cs};
    TngrtArg S[4];
    for (int i = 0; i < 4; i++)
        S[i] = (TngrtArg){st[i], TNGRT_F32, 1, cs};
    TngrtConvEpi e = {l->bn ? &S[0] : NULL, l->bn ? &S[1] : NULL, l->bn ? &S[2] : NULL,
                      l->bn ? &S[3] : NULL, 1e-5, l->res ? &R : NULL, l->relu};
    int64_t p = l->k / 2;
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        if (tngrt_kernel_conv_epi(&O, &X, &Wt, l->bn ? NULL : &B, 2, l->s, l->s, p, p, p, p, 1, 1,
                                  1, &e, NULL))
            return -1;
        double t = now() - t0;
        best = t < best ? t : best;
    }
    free(x), free(w), free(out), free(res), free(bias);
    for (int i = 0; i < 4; i++)
        free(st[i]);
    double flop = 2.0 * n * l->o * l->c * l->k * l->k * oh * oh;
    printf("%-34s %8.1f us %7.1f GFLOP/s\n", l->name, best * 1e6, flop / best * 1e-9);
    return best;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2, size = argc > 2 ? atoi(argv[2]) : 32;
    int reps = argc > 3 ? atoi(argv[3]) : 300, only = argc > 4 ? atoi(argv[4]) : -1;
    if (n <= 0 || size < 8 || size % 4 || reps <= 0) {
        fprintf(stderr, "usage: layers [BATCH [SIZE (a multiple of 4) [REPS [LAYER]]]]\n");
        return 2;
    }
    double total = 0;
    for (size_t i = 0; i < sizeof LAYERS / sizeof LAYERS[0]; i++) {
        if (only >= 0 && (size_t)only != i)
            continue;
        double t = run_layer(&LAYERS[i], n, size, reps);
        if (t < 0)
            return 1;
        total += t;
    }
    printf("%-34s %8.1f us\n", "total", total * 1e6);
    return 0;
}
