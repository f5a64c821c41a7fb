/*
 * test_rt_attn.c - unit tests of the tiled attention (runtime/kernels_attn.c,
 * tngrt_kernel_sdpa): lengths across several query blocks and key tiles,
 * with tails, causal and masked, against attention computed in double
 * here (two passes, scores materialised); and the (batch, head) matrices
 * split over pools of 2 and 3 threads giving the bits of one thread.
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

/* One matrix's attention in double: q [L, E], k [S, E], v [S, Ev], keep
 * [L, S] (NULL: all) and add [L, S] (NULL: none) into out [L, Ev]. */
static void t_ref(const float *q, const float *k, const float *v, int64_t L, int64_t S, int64_t E,
                  int64_t Ev, double scale, int causal, const uint8_t *keep, const float *add,
                  double *out)
{
    double *s = malloc((size_t)S * sizeof *s);
    assert_non_null(s);
    for (int64_t i = 0; i < L; i++) {
        double mx = -INFINITY, sum = 0.0;
        for (int64_t j = 0; j < S; j++) {
            double d = 0.0;
            for (int64_t e = 0; e < E; e++)
                d += (double)q[i * E + e] * k[j * E + e];
            s[j] = (causal && j > i) || (keep && !keep[i * S + j]) ? -INFINITY
                   : d * scale + (add ? add[i * S + j] : 0.0);
            mx = s[j] > mx ? s[j] : mx;
        }
        for (int64_t j = 0; j < S; j++)
            sum += s[j] == -INFINITY ? 0.0 : exp(s[j] - mx);
        for (int64_t c = 0; c < Ev; c++) {
            double acc = 0.0;
            for (int64_t j = 0; j < S; j++)
                acc += s[j] == -INFINITY ? 0.0 : exp(s[j] - mx) * v[j * Ev + c];
            out[i * Ev + c] = sum > 0.0 ? acc / sum : NAN;
        }
    }
    free(s);
}

/* H matrices [H, L, E] x [H, S, E] -> [H, L, Ev] through tngrt_kernel_sdpa
 * on float32, against t_ref within 2e-5 (NaN where the reference has it). */
static void t_case(int64_t H, int64_t L, int64_t S, int64_t E, int64_t Ev, int causal, int masks,
                   uint32_t seed)
{
    float *q = malloc((size_t)(H * L * E) * sizeof *q), *k = malloc((size_t)(H * S * E) * sizeof *k);
    float *v = malloc((size_t)(H * S * Ev) * sizeof *v), *o = malloc((size_t)(H * L * Ev) * sizeof *o);
    float *add = malloc((size_t)(L * S) * sizeof *add);
    uint8_t *keep = malloc((size_t)(L * S));
    double *want = malloc((size_t)(L * Ev) * sizeof *want);
    int64_t qs[3] = {H, L, E}, ks[3] = {H, S, E}, vs[3] = {H, S, Ev}, os[3] = {H, L, Ev},
            ms[2] = {L, S};
    assert_true(q && k && v && o && add && keep && want);
    for (int64_t i = 0; i < H * L * E; i++)
        q[i] = t_rand(&seed, -1.0f, 1.0f);
    for (int64_t i = 0; i < H * S * E; i++)
        k[i] = t_rand(&seed, -1.0f, 1.0f);
    for (int64_t i = 0; i < H * S * Ev; i++)
        v[i] = t_rand(&seed, -1.0f, 1.0f);
    for (int64_t i = 0; i < L * S; i++) {
        keep[i] = (uint8_t)(t_rand(&seed, 0.0f, 1.0f) < 0.7f);
        /* later keys score higher: the running maximum grows tile by tile */
        add[i] = (float)(i % S) * 0.05f + t_rand(&seed, -1.0f, 1.0f);
    }
    if (masks && L > 2) {
        memset(keep + S, 0, (size_t)S);   /* row 1: no key kept */
        memset(keep + 2 * S, 0, (size_t)(S - 1));   /* row 2: the last key only */
    }
    TngrtArg Q = {q, TNGRT_F32, 3, qs}, K = {k, TNGRT_F32, 3, ks}, V = {v, TNGRT_F32, 3, vs};
    TngrtArg O = {o, TNGRT_F32, 3, os}, M = {keep, TNGRT_BOOL, 2, ms}, A = {add, TNGRT_F32, 2, ms};
    for (int m = 0; m <= masks; m++) {
        tngrt_kernel_sdpa(&O, &Q, &K, &V, m == 0 ? (masks ? &M : NULL) : &A, causal, 0, 0.0);
        for (int64_t h = 0; h < H; h++) {
            t_ref(q + h * L * E, k + h * S * E, v + h * S * Ev, L, S, E, Ev, 1.0 / sqrt((double)E),
                  causal, m == 0 && masks ? keep : NULL, m == 1 ? add : NULL, want);
            for (int64_t i = 0; i < L * Ev; i++) {
                float got = o[h * L * Ev + i];
                if (isnan(want[i]) ? !isnan(got) : !(fabs(got - want[i]) <= 2e-5)) {
                    fprintf(stderr, "H %lld L %lld S %lld causal %d mask %d: [%lld][%lld] %.9g vs %.9g\n",
                            (long long)H, (long long)L, (long long)S, causal, m, (long long)h,
                            (long long)i, got, want[i]);
                    fail();
                }
            }
        }
    }
    free(q);
    free(k);
    free(v);
    free(o);
    free(add);
    free(keep);
    free(want);
}

/* Lengths past the 16-query blocks and 64-key tiles, with tails; causal
 * with L == S and L < S; bool and float masks (a row with no key: NaN). */
static void test_tiles(void **state)
{
    (void)state;
    t_case(2, 150, 150, 32, 32, 1, 0, 1u);
    t_case(2, 37, 200, 16, 24, 1, 0, 2u);
    t_case(3, 40, 130, 8, 8, 0, 1, 3u);
    t_case(1, 1, 65, 4, 4, 0, 0, 4u);
}

/* 8 heads of 200 x 200 on pools of 2 and 3 threads: the bits of one. */
static void test_threads(void **state)
{
    enum { H = 8, L = 200, E = 32 };
    uint32_t s = 9u;
    float *q = malloc(H * L * E * sizeof *q), *o1 = malloc(H * L * E * sizeof *o1);
    float *o2 = malloc(H * L * E * sizeof *o2);
    int64_t sh[3] = {H, L, E};
    (void)state;
    assert_true(q && o1 && o2);
    for (int i = 0; i < H * L * E; i++)
        q[i] = t_rand(&s, -1.0f, 1.0f);
    TngrtArg Q = {q, TNGRT_F32, 3, sh}, O1 = {o1, TNGRT_F32, 3, sh}, O2 = {o2, TNGRT_F32, 3, sh};
    assert_true(2.0 * H * L * L * 2 * E >= TNGRT_GEMM_PAR_FLOP);
    for (int causal = 0; causal < 2; causal++) {
        tngrt_kernel_sdpa(&O1, &Q, &Q, &Q, NULL, causal, 0, 0.0);
        for (int th = 2; th <= 3; th++) {
            TngrtPar *p = tngrt__par_new(th);
            assert_non_null(p);
            memset(o2, 0, H * L * E * sizeof *o2);
            tngrt__par_enter(p);
            tngrt_kernel_sdpa(&O2, &Q, &Q, &Q, NULL, causal, 0, 0.0);
            tngrt__par_enter(NULL);
            assert_memory_equal(o1, o2, H * L * E * sizeof *o1);
            tngrt__par_delete(p);
        }
    }
    free(q);
    free(o1);
    free(o2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiles),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
