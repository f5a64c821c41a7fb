/* The machine's measured peak float32 FLOP/s: every core runs a loop of
 * independent fused multiply-adds on registers (no memory traffic), with
 * the widest vector unit the CPU reports (AVX-512, else AVX2+FMA, else
 * scalar). 12 independent accumulators hide the FMA latency (4 cycles) on
 * two FMA ports. Prints "peak GFLOP/s: X (ISA, T threads)".
 *
 * usage: peak [THREADS]   (default: the online CPUs) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <immintrin.h>

#define ITERS 20000000L
#define NACC 12

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile float sink;

__attribute__((target("avx512f"))) static double run_avx512(void)
{
    __m512 acc[NACC], m = _mm512_set1_ps(0.999999f), a = _mm512_set1_ps(1e-7f);
    for (int i = 0; i < NACC; i++)
        acc[i] = _mm512_set1_ps((float)i);
    for (long it = 0; it < ITERS; it++)
        for (int i = 0; i < NACC; i++)
            acc[i] = _mm512_fmadd_ps(acc[i], m, a);
    float s = 0;
    for (int i = 0; i < NACC; i++)
        s += _mm512_reduce_add_ps(acc[i]);
    sink = s;
    return (double)ITERS * NACC * 16 * 2;
}

__attribute__((target("avx2,fma"))) static double run_avx2(void)
{
    __m256 acc[NACC], m = _mm256_set1_ps(0.999999f), a = _mm256_set1_ps(1e-7f);
    for (int i = 0; i < NACC; i++)
        acc[i] = _mm256_set1_ps((float)i);
    for (long it = 0; it < ITERS; it++)
        for (int i = 0; i < NACC; i++)
            acc[i] = _mm256_fmadd_ps(acc[i], m, a);
    float s = 0, t[8];
    for (int i = 0; i < NACC; i++) {
        _mm256_storeu_ps(t, acc[i]);
        for (int j = 0; j < 8; j++)
            s += t[j];
    }
    sink = s;
    return (double)ITERS * NACC * 8 * 2;
}

static double run_scalar(void)
{
    float acc[NACC];
    for (int i = 0; i < NACC; i++)
        acc[i] = (float)i;
    for (long it = 0; it < ITERS / 8; it++)
        for (int i = 0; i < NACC; i++)
            acc[i] = acc[i] * 0.999999f + 1e-7f;
    float s = 0;
    for (int i = 0; i < NACC; i++)
        s += acc[i];
    sink = s;
    return (double)(ITERS / 8) * NACC * 2;
}

static int isa;

static void *worker(void *arg)
{
    double *flops = arg;
    *flops = isa == 2 ? run_avx512() : isa == 1 ? run_avx2() : run_scalar();
    return NULL;
}

int main(int argc, char **argv)
{
    long nt = argc > 1 ? atol(argv[1]) : sysconf(_SC_NPROCESSORS_ONLN);
    if (nt < 1 || nt > 256) {
        fprintf(stderr, "usage: peak [THREADS]\n");
        return 2;
    }
    __builtin_cpu_init();
    isa = __builtin_cpu_supports("avx512f") ? 2
        : (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? 1 : 0;
    pthread_t th[256];
    double flops[256];
    double best = 0;
    for (int rep = 0; rep < 3; rep++) { /* the best of 3: a busy neighbour only lowers it */
        double t0 = now(), total = 0;
        for (long i = 0; i < nt; i++)
            if (pthread_create(&th[i], NULL, worker, &flops[i]) != 0) {
                perror("pthread_create");
                return 1;
            }
        for (long i = 0; i < nt; i++) {
            pthread_join(th[i], NULL);
            total += flops[i];
        }
        double g = total / (now() - t0) / 1e9;
        if (g > best)
            best = g;
    }
    printf("peak GFLOP/s: %.1f (%s FMA, %ld threads)\n", best,
           isa == 2 ? "AVX-512" : isa == 1 ? "AVX2" : "scalar", nt);
    return 0;
}
