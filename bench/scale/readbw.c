/*
 * readbw.c - the two yardsticks of bench/scale: how long one read(2) of a
 * file takes (1 MiB chunks into one buffer, the page cache warm: the median
 * of PASSES passes after a first one), and this machine's memory read
 * bandwidth (a loop summing a float array much larger than the caches,
 * sixteen partial sums so that it vectorises; the median of PASSES passes).
 * Medians, as the launcher's p50 it is compared with: on a shared machine a
 * best-of would flatter the yardstick.
 *
 * usage: readbw FILE [ARRAY_MIB]   (default 512)
 * prints: "read: <ms> ms, <GB/s> GB/s" and "bandwidth: <GB/s> GB/s"
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1u << 20)
#define PASSES 7

/* Seconds on the monotonic clock. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of the n values v (sorted in place). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* Reads path once in CHUNK-byte reads; returns the seconds taken (or -1)
 * and the bytes read in *bytes. */
static double read_once(const char *path, char *buf, double *bytes)
{
    double t0 = now_s(), n = 0;
    ssize_t got;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    while ((got = read(fd, buf, CHUNK)) > 0)
        n += (double)got;
    close(fd);
    *bytes = n;
    return got < 0 ? -1 : now_s() - t0;
}

/* Sums n floats with sixteen independent partial sums. */
static float sum16(const float *a, size_t n)
{
    float s[16] = {0}, t = 0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int j = 0; j < 16; j++)
            s[j] += a[i + j];
    for (; i < n; i++)
        t += a[i];
    for (int j = 0; j < 16; j++)
        t += s[j];
    return t;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 512, n;
    char *buf = malloc(CHUNK);
    double t_read[PASSES], t_sum[PASSES], best, bytes = 0, bw;
    float *a, sink = 0;
    if (argc < 2 || !buf || mib == 0) {
        fprintf(stderr, "usage: readbw FILE [ARRAY_MIB]\n");
        return 2;
    }
    for (int p = 0; p <= PASSES; p++) {   /* pass 0 warms the page cache */
        double t = read_once(argv[1], buf, &bytes);
        if (t < 0) {
            perror(argv[1]);
            return 1;
        }
        if (p > 0)
            t_read[p - 1] = t;
    }
    best = median(t_read, PASSES);
    printf("read: %.1f ms, %.2f GB/s\n", best * 1e3, bytes / best / 1e9);
    n = mib * (1u << 20) / sizeof(float);
    a = malloc(n * sizeof(float));
    if (!a)
        return 1;
    for (size_t i = 0; i < n; i++)
        a[i] = (float)(i & 7) * 0.125f;
    for (int p = 0; p < PASSES; p++) {
        double t0 = now_s();
        sink += sum16(a, n);
        t_sum[p] = now_s() - t0;
    }
    bw = (double)(n * sizeof(float)) / median(t_sum, PASSES);
    printf("bandwidth: %.2f GB/s (sum %g)\n", bw / 1e9, (double)sink);
    free(a);
    free(buf);
    return 0;
}
