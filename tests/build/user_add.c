/* A user kernel for tests/build/run.sh: add of float32 tensors, either of
 * two tensors of the same shape or of a tensor and a scalar (attr[0] = 1). */
#include "tngrt_kernels.h"

#include <stdio.h>

int chain_user_add(const TngrtArg *outs, int nout, const TngrtArg *ins, int nin,
                   const int64_t *attr, int nattr, const double *fattr, TngrtError *err)
{
    (void)nout;
    (void)nattr;
    if (outs[0].dtype != TNGRT_F32 || ins[0].dtype != TNGRT_F32) {
        snprintf(err->msg, sizeof err->msg, "user add: float32 only");
        return -1;
    }
    int64_t n = 1;
    for (int d = 0; d < outs[0].ndim; d++)
        n *= outs[0].shape[d];
    float *o = outs[0].data;
    const float *a = ins[0].data;
    for (int64_t i = 0; i < n; i++)
        o[i] = a[i] + (attr[0] == 0 && nin > 1 ? ((const float *)ins[1].data)[i] : (float)fattr[0]);
    return 0;
}
