/* Gear switching in one process: a bundle run on inputs of gear A, on
 * inputs of gear B, and alternating A, B, A, B...; the switching cost is
 * how much slower an alternating run is than a run after one of its own
 * gear. Also times tngrt_bundle_select alone (the gear table lookup).
 *
 * usage: switch BUNDLE_WEIGHTS N_RUNS A_DIR B_DIR
 *   X_DIR holds one NAME.npy per input, in the signature's order, as
 *   0.npy, 1.npy, ... (bench/gears/bench.py writes them).
 * Prints one line: "a_us b_us alt_a_us alt_b_us select_ns". Built by
 * bench/gears/bench.py against a bundle's lib<name>.a with
 * -DBUNDLE_DESC=<name>_desc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tngrt_bundle.h"

const TngrtBundleDesc *BUNDLE_DESC(void);

#define MAXIN 64
#define MAXOUT 16

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

static int load(const char *dir, int n, TngrtTensor **t, TngrtTensor *flat)
{
    char path[4096];
    TngrtError err;
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%d.npy", dir, i);
        if (tngrt_npy_read(path, &t[i], &err) != 0) {
            fprintf(stderr, "switch: %s\n", err.msg);
            return -1;
        }
        flat[i] = *t[i];
    }
    return 0;
}

int main(int argc, char **argv)
{
    TngrtBundle *b;
    TngrtError err;
    TngrtTensor *ta[MAXIN], *tb[MAXIN], a[MAXIN], bb[MAXIN], out[MAXOUT];
    if (argc != 5) {
        fprintf(stderr, "usage: switch WEIGHTS N_RUNS A_DIR B_DIR\n");
        return 2;
    }
    int runs = atoi(argv[2]);
    if (runs < 10 || runs > 1000000) {
        fprintf(stderr, "switch: N_RUNS must be 10..1000000\n");
        return 2;
    }
    const TngrtBundleDesc *d = BUNDLE_DESC();
    int nin = d->ninputs, nout = d->noutputs;
    if (nin > MAXIN || nout > MAXOUT || tngrt_bundle_new(&b, d, &err) != 0 ||
        tngrt_bundle_load_weights(b, argv[1]) != 0 || load(argv[3], nin, ta, a) != 0 ||
        load(argv[4], nin, tb, bb) != 0) {
        fprintf(stderr, "switch: set-up failed\n");
        return 1;
    }
    double *ts = malloc(sizeof(double) * (size_t)runs);
    double *ts2 = malloc(sizeof(double) * (size_t)runs);
    double res[4];
    if (!ts || !ts2)
        return 1;
    for (int mode = 0; mode < 3; mode++) {
        int n1 = 0, n2 = 0;
        for (int w = 0; w < 20; w++)
            if (tngrt_bundle_run(b, mode == 1 ? bb : a, nin, out, nout) != 0)
                goto fail;
        for (int r = 0; r < runs; r++) {
            const TngrtTensor *in = mode == 0 ? a : mode == 1 ? bb : (r & 1) ? bb : a;
            double t0 = now_us();
            if (tngrt_bundle_run(b, in, nin, out, nout) != 0)
                goto fail;
            double dt = now_us() - t0;
            if (mode < 2 || !(r & 1))
                ts[n1++] = dt;
            else
                ts2[n2++] = dt;
        }
        if (mode < 2) {
            res[mode] = median(ts, n1);
        } else {
            res[2] = median(ts, n1);
            res[3] = median(ts2, n2);
        }
    }
    /* the lookup alone: select on alternating inputs, timed in batches */
    double t0 = now_us();
    int sink = 0;
    for (int r = 0; r < runs * 10; r++)
        sink += tngrt_bundle_select(b, (r & 1) ? bb : a, nin);
    double sel_ns = (now_us() - t0) * 1000.0 / (runs * 10.0);
    printf("%.3f %.3f %.3f %.3f %.1f\n", res[0], res[1], res[2], res[3], sel_ns);
    fprintf(stderr, "gears selected (sum): %d\n", sink);
    tngrt_bundle_delete(b);
    return 0;
fail:
    fprintf(stderr, "switch: run failed: %s\n", tngrt_bundle_last_error(b));
    return 1;
}
