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
 * With -DACL they are ACL bundles (--target acl): the same through their
 * own API, <name>_create ... <name>_share_state(dec, pre), <name>_own_state.
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

#ifdef ACL
/* the ACL bundles' own API: fn of bundle name n */
#define T(n) CAT(n, _t)
#define NEW(n, b, e) CAT(n, _create)(&(b), (e))
#define LOAD(n, b, path) CAT(n, _load_weights)((b), (path))
#define LAST(n, b) CAT(n, _last_error)(b)
#define RUN(n, b, x, y) CAT(n, _run)((b), (x), 1, (y), 1)
#define SHARE(n, b, owner) CAT(n, _share_state)((b), (owner))
#define OWN(n, b) (void)CAT(n, _own_state)(b)
#define DELETE(n, b) CAT(n, _destroy)(b)
#else
/* the CPU bundles: libtngcrt's TngrtBundle */
#define T(n) TngrtBundle
#define NEW(n, b, e) tngrt_bundle_new(&(b), CAT(n, _desc)(), (e))
#define LOAD(n, b, path) tngrt_bundle_load_weights((b), (path))
#define LAST(n, b) tngrt_bundle_last_error(b)
#define RUN(n, b, x, y) tngrt_bundle_run((b), (x), 1, (y), 1)
#define SHARE(n, b, owner) tngrt_bundle_share_state((b), (owner))
#define OWN(n, b) tngrt_bundle_own_state(b)
#define DELETE(n, b) tngrt_bundle_delete(b)
#endif

/* run_<n>: runs bundle b of name n on the one input at path, writing its
 * output to out. */
#define RUN_ONE(n)                                                      \
    static int CAT(run_, n)(T(n) * b, const char *path, const char *out) \
    {                                                                   \
        TngrtTensor *x = NULL, y;                                       \
        TngrtError e;                                                   \
        int rc;                                                         \
        if (tngrt_npy_read(path, &x, &e) != 0)                          \
            return fail(path, e.msg);                                   \
        rc = RUN(n, b, x, &y);                                          \
        tngrt_tensor_delete(x);                                         \
        if (rc != 0)                                                    \
            return fail("run", LAST(n, b));                             \
        if (tngrt_npy_write(out, &y, &e) != 0)                          \
            return fail(out, e.msg);                                    \
        return 0;                                                       \
    }
RUN_ONE(PRE)
RUN_ONE(DEC)

int main(int argc, char **argv)
{
    T(PRE) *pre = NULL;
    T(DEC) *dec = NULL;
    TngrtError e;
    char path[4096];
    int rc = 1;
    if (argc != 7 || (strcmp(argv[1], "share") && strcmp(argv[1], "own") && strcmp(argv[1], "none"))) {
        fprintf(stderr, "usage: %s share|own|none PRE_WEIGHTS DEC_WEIGHTS PRE_X.npy DEC_X.npy OUTDIR\n",
                argv[0]);
        return 2;
    }
    if (NEW(PRE, pre, &e) != 0 || NEW(DEC, dec, &e) != 0) {
        rc = fail("create", e.msg);
        goto out;
    }
    if (LOAD(PRE, pre, argv[2]) != 0) {
        rc = fail(argv[2], LAST(PRE, pre));
        goto out;
    }
    if (LOAD(DEC, dec, argv[3]) != 0) {
        rc = fail(argv[3], LAST(DEC, dec));
        goto out;
    }
    if (!strcmp(argv[1], "share")) {
        int n = SHARE(DEC, dec, pre);
        if (n < 0) {
            rc = fail("share", LAST(DEC, dec));
            goto out;
        }
        printf("shared %d state tensors\n", n);
        if (SHARE(DEC, dec, dec) >= 0 || !strstr(LAST(DEC, dec), "shares no state with itself")) {
            rc = fail("share with itself", "not refused");
            goto out;
        }
    } else if (!strcmp(argv[1], "own")) {
        OWN(DEC, dec);
    }
    snprintf(path, sizeof path, "%s/prefill.npy", argv[6]);
    if (CAT(run_, PRE)(pre, argv[4], path) != 0)
        goto out;
    snprintf(path, sizeof path, "%s/decode.npy", argv[6]);
    rc = CAT(run_, DEC)(dec, argv[5], path);
out:
    if (dec)
        DELETE(DEC, dec);
    if (pre)
        DELETE(PRE, pre);
    return rc;
}
