/*
 * kernels_reduce.c - the reductions, sorting and contractions family's
 * kernels of libtngcrt: each tngrt_kernel_X of tngrt_kernels.h
 * instantiates the inline body tngrt_impl_X of tngrt_impl_reduce.h with
 * shapes read at run time, as kernels.c does.
 */
#include "tngrt_kernel_impl.h"

#include "kernels_isa.h"

TNGRT_ISA_KERNEL(void, tngrt_kernel_topk,
                 (const TngrtArg *values, const TngrtArg *indices, const TngrtArg *x, int dim,
                 int largest),
                 tngrt_impl_topk(values, indices, x, dim, largest);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_arg_reduce,
                 (const TngrtArg *values, const TngrtArg *indices, const TngrtArg *x, int dim,
                 int is_min),
                 tngrt_impl_arg_reduce(values, indices, x, dim, is_min);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_cumsum, (const TngrtArg *out, const TngrtArg *x, int dim),
                 tngrt_impl_cumsum(out, x, dim);)
