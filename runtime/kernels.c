/*
 * kernels.c - the generic CPU kernels of libtngcrt: each tngrt_kernel_X of
 * tngrt_kernels.h instantiates the inline body tngrt_impl_X of
 * tngrt_kernel_impl.h with shapes read at run time. The kernel families
 * added since (kernels_<family>.c) do the same for their own kernels.
 */
#include "tngrt_kernel_impl.h"

#include "kernels_isa.h"

TNGRT_ISA_KERNEL(void, tngrt_kernel_unary,
                 (const TngrtArg *out, const TngrtArg *x, TngrtUnaryOp op, double p),
                 tngrt_impl_unary(out, x, op, p);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_unary2,
                 (const TngrtArg *out, const TngrtArg *x, TngrtUnaryOp op, double p, double q),
                 tngrt_impl_unary2(out, x, op, p, q);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_binary,
                 (const TngrtArg *out, const TngrtArg *a, const TngrtArg *b,
                 TngrtBinaryOp op, double alpha),
                 tngrt_impl_binary(out, a, b, op, alpha);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_binary_scalar,
                 (const TngrtArg *out, const TngrtArg *x, double s,
                 int scalar_first, TngrtBinaryOp op, double alpha),
                 tngrt_impl_binary_scalar(out, x, s, scalar_first, op, alpha);)

void tngrt_kernel_fill(const TngrtArg *out, double v)
{
    tngrt_impl_fill(out, v);
}

void tngrt_kernel_copy(const TngrtArg *out, const TngrtArg *x)
{
    tngrt_impl_copy(out, x);
}

TNGRT_ISA_KERNEL(void, tngrt_kernel_matmul,
                 (const TngrtArg *out, const TngrtArg *a, const TngrtArg *b),
                 tngrt_impl_matmul(out, a, b);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_addmm,
                 (const TngrtArg *out, const TngrtArg *bias, const TngrtArg *a,
                 const TngrtArg *b, double beta, double alpha),
                 tngrt_impl_addmm(out, bias, a, b, beta, alpha);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_linear,
                 (const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                 const TngrtArg *bias),
                 tngrt_impl_linear(out, x, w, bias);)

void tngrt_kernel_permute(const TngrtArg *out, const TngrtArg *x, const int64_t *perm)
{
    tngrt_impl_permute(out, x, perm);
}

void tngrt_kernel_slice(const TngrtArg *out, const TngrtArg *x, int dim, int64_t start,
                        int64_t end, int64_t step)
{
    tngrt_impl_slice(out, x, dim, start, end, step);
}

int tngrt_kernel_select(const TngrtArg *out, const TngrtArg *x, int dim, int64_t index,
                        TngrtError *err)
{
    return tngrt_impl_select(out, x, dim, index, err);
}

void tngrt_kernel_slice_store(const TngrtArg *dst, const TngrtArg *src, int dim, int64_t start,
                              int64_t end, int64_t step)
{
    tngrt_impl_slice_store(dst, src, dim, start, end, step);
}

void tngrt_kernel_cat(const TngrtArg *out, const TngrtArg *const *xs, int n, int dim)
{
    tngrt_impl_cat(out, xs, n, dim);
}

TNGRT_ISA_KERNEL(void, tngrt_kernel_reduce,
                 (const TngrtArg *out, const TngrtArg *x, TngrtReduceOp op,
                 uint32_t dims_mask),
                 tngrt_impl_reduce(out, x, op, dims_mask);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_softmax,
                 (const TngrtArg *out, const TngrtArg *x, int dim, int log),
                 tngrt_impl_softmax(out, x, dim, log);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_layer_norm,
                 (const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                 const TngrtArg *b, int nnorm, double eps),
                 tngrt_impl_layer_norm(out, x, w, b, nnorm, eps);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_rms_norm,
                 (const TngrtArg *y, const TngrtArg *rstd, const TngrtArg *x,
                 const TngrtArg *gamma, double eps),
                 tngrt_impl_rms_norm(y, rstd, x, gamma, eps);)

int tngrt_kernel_embedding(const TngrtArg *out, const TngrtArg *weight, const TngrtArg *ids,
                           TngrtError *err)
{
    return tngrt_impl_embedding(out, weight, ids, err);
}

TNGRT_ISA_KERNEL(int, tngrt_kernel_quant_matmul,
                 (const TngrtArg *out, const TngrtArg *x1, const TngrtArg *x2,
                 const TngrtArg *scale, const TngrtArg *offset,
                 const TngrtArg *bias, const TngrtArg *pertoken_scale,
                 TngrtError *err),
                 return tngrt_impl_quant_matmul(out, x1, x2, scale, offset, bias,
                                                pertoken_scale, err);)

TNGRT_ISA_KERNEL(int, tngrt_kernel_dequant_swiglu_quant,
                 (const TngrtArg *y, const TngrtArg *scale_out,
                 const TngrtArg *x, const TngrtArg *weight_scale,
                 const TngrtArg *activation_scale, const TngrtArg *bias,
                 const TngrtArg *quant_scale, const TngrtArg *quant_offset,
                 const TngrtArg *group_index, int activate_left,
                 int quant_mode, TngrtError *err),
                 return tngrt_impl_dequant_swiglu_quant(y, scale_out, x, weight_scale,
                                                        activation_scale, bias, quant_scale,
                                                        quant_offset, group_index, activate_left,
                                                        quant_mode, err);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_swiglu,
                 (const TngrtArg *out, const TngrtArg *x, int dim),
                 tngrt_impl_swiglu(out, x, dim);)
