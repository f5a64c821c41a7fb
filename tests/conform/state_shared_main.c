/*
 * state_shared_main.c - one program running the two bundles of
 * tests/conform/models/state_shared.py: the prefill (PRE) and the decode
 * step (DEC), whose KV caches are state shared between them.
 *
 * usage: state_shared_main MODE PRE_WEIGHTS DEC_WEIGHTS PRE_X.npy DEC_X.npy OUTDIR
 *   MODE share: tngrt_bundle_share_state(dec, pre), so the decode step
 *               reads the caches the prefill wrote;
 *        own:   tngrt_bundle_own_state(dec): the decode step reads the
 *               caches of its own weights file;
 *        none:  neither: the decode run must refuse.
 * Runs the prefill once, then the decode step once, and writes their
 * outputs to OUTDIR/prefill.npy and OUTDIR/decode.npy. Exit status 0, or 1
 * with the failing call's message (for MODE none: the decode run's).
 * PRE and DEC are the bundle names, PRE_H and DEC_H their headers (-D).
 */
#include PRE_H
#include DEC_H

#include <stdio.h>
#include <string.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

static int fail(const char *what, const char *msg)
{
    fprintf(stderr, "state_shared_main: %s: %s\n", what, msg);
    return 1;
}

/* Runs bundle b on the one input at path, writing its output to out. */
static int run_one(TngrtBundle *b, const char *path, const char *out)
{
    TngrtTensor *x = NULL, y;
    TngrtError e;
    int rc;
    if (tngrt_npy_read(path, &x, &e) != 0)
        return fail(path, e.msg);
    rc = tngrt_bundle_run(b, x, 1, &y, 1);
    tngrt_tensor_delete(x);
    if (rc != 0)
        return fail("run", tngrt_bundle_last_error(b));
    if (tngrt_npy_write(out, &y, &e) != 0)
        return fail(out, e.msg);
    return 0;
}

int main(int argc, char **argv)
{
    TngrtBundle *pre = NULL, *dec = NULL;
    TngrtError e;
    char path[4096];
    int rc = 1;
    if (argc != 7 || (strcmp(argv[1], "share") && strcmp(argv[1], "own") && strcmp(argv[1], "none"))) {
        fprintf(stderr, "usage: %s share|own|none PRE_WEIGHTS DEC_WEIGHTS PRE_X.npy DEC_X.npy OUTDIR\n",
                argv[0]);
        return 2;
    }
    if (tngrt_bundle_new(&pre, CAT(PRE, _desc)(), &e) != 0 ||
        tngrt_bundle_new(&dec, CAT(DEC, _desc)(), &e) != 0) {
        rc = fail("create", e.msg);
        goto out;
    }
    if (tngrt_bundle_load_weights(pre, argv[2]) != 0) {
        rc = fail(argv[2], tngrt_bundle_last_error(pre));
        goto out;
    }
    if (tngrt_bundle_load_weights(dec, argv[3]) != 0) {
        rc = fail(argv[3], tngrt_bundle_last_error(dec));
        goto out;
    }
    if (!strcmp(argv[1], "share")) {
        int n = tngrt_bundle_share_state(dec, pre);
        if (n < 0) {
            rc = fail("share", tngrt_bundle_last_error(dec));
            goto out;
        }
        printf("shared %d state tensors\n", n);
    } else if (!strcmp(argv[1], "own")) {
        tngrt_bundle_own_state(dec);
    }
    snprintf(path, sizeof path, "%s/prefill.npy", argv[6]);
    if (run_one(pre, argv[4], path) != 0)
        goto out;
    snprintf(path, sizeof path, "%s/decode.npy", argv[6]);
    rc = run_one(dec, argv[5], path);
out:
    tngrt_bundle_delete(dec);
    tngrt_bundle_delete(pre);
    return rc;
}
