/*
 * kernels_shape.c - the generic CPU kernels of the "creation and
 * constants" and "shape" families (tngrt_impl_shape.h): arange, triu/tril,
 * flip, roll, with shapes read at run time.
 */
#include "tngrt_kernel_impl.h"

void tngrt_kernel_arange(const TngrtArg *out, double start, int64_t start_dim, double step)
{
    tngrt_impl_arange(out, start, start_dim, step);
}

void tngrt_kernel_tri(const TngrtArg *out, const TngrtArg *x, int64_t diagonal, int lower)
{
    tngrt_impl_tri(out, x, diagonal, lower);
}

void tngrt_kernel_flip(const TngrtArg *out, const TngrtArg *x, const int64_t *dims, int n)
{
    tngrt_impl_flip(out, x, dims, n);
}

void tngrt_kernel_roll(const TngrtArg *out, const TngrtArg *x, const int64_t *pairs, int n)
{
    tngrt_impl_roll(out, x, pairs, n);
}
