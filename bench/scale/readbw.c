/*
 * readbw.c - the two yardsticks of bench/scale: how long one read(2) of a
 * file takes (1 MiB chunks into one buffer, the page cache warm: the median
 * of PASSES passes after a first one), and this machine's memory read
 * bandwidth (a loop summing a float array much larger than the caches,
 * 64 partial sums so that it vectorises with no add waiting on another;
 * the median of PASSES passes). The array is the file itself, mapped
 * read-only and faulted in, as a bundle reads its weights in place: the
 * same memory (page cache folios) as the GEMV it is the yardstick of.
 * Medians, as the launcher's p50 it is compared with: on a shared machine a
 * best-of would flatter the yardstick.
 *
 * usage: readbw FILE
 * prints: "read: <ms> ms, <GB/s> GB/s" and "bandwidth: <GB/s> GB/s"
 */
#define _DEFAULT_SOURCE   /* madvise */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

/* Sums n floats with 64 independent partial sums (four vectors of 16
 * lanes, or eight of 8: no add waits on the one before it). */
static float sum64(const float *a, size_t n)
{
    float s[64] = {0}, t = 0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        for (int j = 0; j < 64; j++)
            s[j] += a[i + j];
    for (; i < n; i++)
        t += a[i];
    for (int j = 0; j < 64; j++)
        t += s[j];
    return t;
}

int main(int argc, char **argv)
{
    size_t n;
    char *buf = malloc(CHUNK);
    struct stat sb;
    int fd;
    double t_read[PASSES], t_sum[PASSES], best, bytes = 0, bw;
    const float *a;
    float sink = 0;
    if (argc < 2 || !buf) {
        fprintf(stderr, "usage: readbw FILE\n");
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
    fd = open(argv[1], O_RDONLY);
    if (fd < 0 || fstat(fd, &sb) != 0 || sb.st_size < 4096) {
        perror(argv[1]);
        return 1;
    }
    a = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (a == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
#ifdef MADV_POPULATE_READ
    (void)madvise((void *)a, (size_t)sb.st_size, MADV_POPULATE_READ);
#endif
    n = (size_t)sb.st_size / sizeof(float);
    for (int p = 0; p < PASSES; p++) {
        double t0 = now_s();
        sink += sum64(a, n);
        t_sum[p] = now_s() - t0;
    }
    bw = (double)(n * sizeof(float)) / median(t_sum, PASSES);
    printf("bandwidth: %.2f GB/s (sum %g)\n", bw / 1e9, (double)sink);
    munmap((void *)a, (size_t)sb.st_size);
    free(buf);
    return 0;
}
