/*
 * kernels_compare.c - the comparison, selection and bool kernels of
 * libtngcrt (tngrt_kernels.h): the bodies of tngrt_impl_compare.h
 * instantiated with shapes read at run time.
 */
#include "tngrt_kernel_impl.h"

#include "kernels_isa.h"

TNGRT_ISA_KERNEL(void, tngrt_kernel_compare,
                 (const TngrtArg *out, const TngrtArg *a, const TngrtArg *b, double s,
                 int s_is_int, TngrtCmpOp op),
                 tngrt_impl_compare(out, a, b, s, s_is_int, op);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_logic,
                 (const TngrtArg *out, const TngrtArg *a, const TngrtArg *b, TngrtLogicOp op),
                 tngrt_impl_logic(out, a, b, op);)

void tngrt_kernel_fpclass(const TngrtArg *out, const TngrtArg *x, TngrtFpClass op)
{
    tngrt_impl_fpclass(out, x, op);
}

TNGRT_ISA_KERNEL(void, tngrt_kernel_where,
                 (const TngrtArg *out, const TngrtArg *cond, const TngrtArg *a, const TngrtArg *b),
                 tngrt_impl_where(out, cond, a, b);)

void tngrt_kernel_masked_fill(const TngrtArg *out, const TngrtArg *mask, double v)
{
    tngrt_impl_masked_fill(out, mask, v);
}

void tngrt_kernel_any_all(const TngrtArg *out, const TngrtArg *x, uint32_t dims_mask, int all)
{
    tngrt_impl_any_all(out, x, dims_mask, all);
}
