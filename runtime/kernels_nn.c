/*
 * kernels_nn.c - the neural net family's kernels of libtngcrt: each
 * tngrt_kernel_X instantiates tngrt_impl_X of tngrt_impl_nn.h with shapes
 * read at run time, once per instruction set (kernels_isa.h).
 */
#include "tngrt_kernel_impl.h"

#include "internal.h"
#include "kernels_isa.h"

TNGRT_ISA_KERNEL(void, tngrt__sdpa_direct,
                 (const TngrtArg *out, const TngrtArg *q, const TngrtArg *k, const TngrtArg *v,
                 const TngrtArg *mask, int is_causal, int has_scale, double scale),
                 tngrt_impl_sdpa(out, q, k, v, mask, is_causal, has_scale, scale);)

/* The direct kernel of kernels_conv.c where it applies, else the
 * unrolled windows through the GEMM. */
TNGRT_ISA_KERNEL(void, tngrt_kernel_conv,
                 (const TngrtArg *out, const TngrtArg *x, const TngrtArg *w, const TngrtArg *bias,
                 int ns, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t ph1, int64_t pw1,
                 int64_t dh, int64_t dw, int64_t groups),
                 if (!tngrt__conv_direct(out, x, w, bias, ns, sh, sw, ph, pw, ph1, pw1, dh, dw,
                                         groups, NULL))
                     tngrt_impl_conv(out, x, w, bias, ns, sh, sw, ph, pw, ph1, pw1, dh, dw,
                                     groups);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_batch_norm,
                 (const TngrtArg *out, const TngrtArg *x, const TngrtArg *mean, const TngrtArg *var,
                 const TngrtArg *w, const TngrtArg *b, double eps),
                 tngrt_impl_batch_norm(out, x, mean, var, w, b, eps);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_group_norm,
                 (const TngrtArg *out, const TngrtArg *x, const TngrtArg *w, const TngrtArg *b,
                 int64_t groups, double eps),
                 tngrt_impl_group_norm(out, x, w, b, groups, eps);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_pool2d,
                 (const TngrtArg *out, const TngrtArg *x, int is_max, int64_t kh, int64_t kw,
                 int64_t sh, int64_t sw, int64_t ph, int64_t pw, int count_include_pad),
                 tngrt_impl_pool2d(out, x, is_max, kh, kw, sh, sw, ph, pw, count_include_pad);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_adaptive_pool2d,
                 (const TngrtArg *out, const TngrtArg *x, int is_max),
                 tngrt_impl_adaptive_pool2d(out, x, is_max);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_interpolate,
                 (const TngrtArg *out, const TngrtArg *x, int bilinear, int align_corners,
                 double scale_h, double scale_w),
                 tngrt_impl_interpolate(out, x, bilinear, align_corners, scale_h, scale_w);)
