/*
 * mock_driver.c - drives one ACL bundle through its API for
 * tests/acl/mock_faults.sh: create, load the weights, run it RUNS times on
 * zero-filled inputs of its first gear's shapes, destroy. Each failure is
 * one line on stderr, and what failed is tried again (create and
 * load_weights once more; after a failed run, at least one more run), so a
 * failure injected by the mock runtime shows whether the bundle recovers
 * in the same process. Before destroy it appends "driver destroy" to
 * $TNGC_ACL_MOCK_LOG, so that the test tells teardown's calls apart.
 *
 *   cc -DBUNDLE=model -DBUNDLE_H='"model.h"' mock_driver.c libmodel.a ...
 *   driver RUNS [WEIGHTS.safetensors]
 *
 * Exit status: 0 when every failure was recovered from (the last create,
 * load and run succeeded), 3 when not, 2 bad usage.
 */
#include BUNDLE_H

#include <stdio.h>
#include <stdlib.h>

#define API_(b, f) b##_##f
#define API(b, f) API_(b, f)

/* Zero-filled inputs of gear 0's shapes (a symbol it leaves open: 2). */
static TngrtTensor *inputs_new(const TngrtBundleDesc *d)
{
    TngrtTensor *in = calloc((size_t)d->ninputs + 1, sizeof *in);
    for (int i = 0; in && i < d->ninputs; i++) {
        const TngrtSigTensor *s = &d->inputs[i];
        size_t n = tngrt_dtype_size(s->dtype);
        in[i].dtype = s->dtype;
        in[i].ndim = s->ndim;
        for (int k = 0; k < s->ndim; k++) {
            int64_t v = s->dims[k].sym >= 0 ? d->gears[0].symval[s->dims[k].sym] : s->dims[k].value;
            in[i].shape[k] = v == INT64_MIN ? 2 : v;
            n *= (size_t)in[i].shape[k];
        }
        for (int k = s->ndim - 1, st = 1; k >= 0; st *= (int)in[i].shape[k], k--)
            in[i].strides[k] = st;
        in[i].nbytes = n;
        in[i].data = calloc(1, n + 1);
    }
    return in;
}

static void mark(const char *what)
{
    const char *p = getenv("TNGC_ACL_MOCK_LOG");
    FILE *f = p ? fopen(p, "a") : NULL;
    if (f) {
        fprintf(f, "driver %s\n", what);
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    const TngrtBundleDesc *d = API(BUNDLE, desc)();
    API(BUNDLE, t) *b = NULL;
    TngrtTensor *in, *out;
    TngrtError err;
    long runs = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
    int ok = 1, last = -1;
    if (runs < 1)
        return fprintf(stderr, "usage: %s RUNS [WEIGHTS]\n", argv[0]), 2;
    for (int tries = 0; !b && tries < 2; tries++) {
        err.msg[0] = '\0';
        if (API(BUNDLE, create)(&b, &err) != 0)
            fprintf(stderr, "create: %s\n", err.msg);
        else if (err.msg[0])
            fprintf(stderr, "create: warning: %s\n", err.msg);
    }
    if (!b)
        return 3;
    if (argc > 2) {
        int rc = API(BUNDLE, load_weights)(b, argv[2]);
        if (rc != 0) {
            fprintf(stderr, "load_weights: %s\n", API(BUNDLE, last_error)(b));
            rc = API(BUNDLE, load_weights)(b, argv[2]);
        }
        ok = rc == 0;
    }
    in = inputs_new(d);
    out = calloc((size_t)d->noutputs + 1, sizeof *out);
    for (long r = 0; ok && (r < runs || last != 0); r++) {
        last = API(BUNDLE, run)(b, in, d->ninputs, out, d->noutputs);
        if (last != 0)
            fprintf(stderr, "run %ld: %s\n", r + 1, API(BUNDLE, last_error)(b));
        if (last != 0 && r >= runs)
            ok = 0;   /* the run after a failed one failed too */
    }
    mark("destroy");
    API(BUNDLE, destroy)(b);
    for (int i = 0; in && i < d->ninputs; i++)
        free(in[i].data);
    free(in);
    free(out);
    return ok ? 0 : 3;
}
