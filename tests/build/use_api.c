/* A program that links a bundle through its API (tests/build/run.sh): runs
 * the chain model ((x + y) * 3 + 1) on two float32[6] tensors and checks
 * the result. */
#include "chain.h"

#include <stdio.h>
#include <string.h>

int main(void)
{
    TngrtError err;
    chain_t *b = NULL;
    if (chain_create(&b, &err) != 0) {
        fprintf(stderr, "create: %s\n", err.msg);
        return 1;
    }
    const TngrtBundleDesc *sig = chain_signature(b);
    float x[6] = {0, 1, 2, 3, 4, 5}, y[6] = {2, 2, 2, 2, 2, 2};
    TngrtTensor in[2];
    memset(in, 0, sizeof in);
    for (int i = 0; i < 2; i++) {
        in[i].dtype = TNGRT_F32;
        in[i].ndim = 1;
        in[i].shape[0] = 6;
        tngrt_tensor_set_strides(&in[i]);
        in[i].nbytes = sizeof x;
    }
    in[0].data = x;
    in[1].data = y;
    TngrtTensor out[CHAIN_NUM_OUTPUTS];
    int rc = chain_run(b, in, CHAIN_NUM_INPUTS, out, CHAIN_NUM_OUTPUTS);
    if (rc != 0) {
        fprintf(stderr, "run: %s\n", chain_last_error(b));
        chain_destroy(b);
        return 1;
    }
    const float *o = out[0].data;
    for (int i = 0; i < 6; i++)
        if (o[i] != (x[i] + 2) * 3 + 1) {
            fprintf(stderr, "out0[%d] = %g\n", i, o[i]);
            rc = 1;
        }
    /* a wrong rank is refused with a message */
    in[0].ndim = 2;
    if (chain_run(b, in, 2, out, 1) == 0 || !strstr(chain_last_error(b), "x")) {
        fprintf(stderr, "a rank-2 x was not refused\n");
        rc = 1;
    }
    printf("%s: %d inputs, %d outputs, %d gear(s): %s\n", sig->entry, sig->ninputs, sig->noutputs,
           sig->ngears, rc ? "FAILED" : "ok");
    chain_destroy(b);
    return rc;
}
