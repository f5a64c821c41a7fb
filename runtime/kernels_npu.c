/*
 * kernels_npu.c - the generic instantiations of the torch_npu fused-op
 * kernels of tngrt_impl_npu.h (shapes read at run time), as kernels.c does
 * for the others.
 */
#include "tngrt_kernel_impl.h"

#include "kernels_isa.h"

TNGRT_ISA_KERNEL(void, tngrt_kernel_add_rms_norm,
                 (const TngrtArg *y, const TngrtArg *rstd, const TngrtArg *x_out,
                 const TngrtArg *x1, const TngrtArg *x2, const TngrtArg *gamma, double eps),
                 tngrt_impl_add_rms_norm(y, rstd, x_out, x1, x2, gamma, eps);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_rotary_mul,
                 (const TngrtArg *out, const TngrtArg *x, const TngrtArg *r1,
                 const TngrtArg *r2, int mode),
                 tngrt_impl_rotary_mul(out, x, r1, r2, mode);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_dynamic_quant,
                 (const TngrtArg *y, const TngrtArg *scale, const TngrtArg *x,
                 const TngrtArg *smooth),
                 tngrt_impl_dynamic_quant(y, scale, x, smooth);)

TNGRT_ISA_KERNEL(void, tngrt_kernel_moe_gating_top_k_softmax,
                 (const TngrtArg *y, const TngrtArg *expert_idx, const TngrtArg *row_idx,
                 const TngrtArg *x, const TngrtArg *finished, int k),
                 tngrt_impl_moe_gating_top_k_softmax(y, expert_idx, row_idx, x, finished, k);)

TNGRT_ISA_KERNEL(int, tngrt_kernel_fused_attention,
                 (const TngrtArg *out, const TngrtArg *lse, const TngrtArg *q, const TngrtArg *k,
                 const TngrtArg *v, const TngrtArg *mask, const TngrtArg *block_table,
                 const TngrtArg *act_q, const TngrtArg *act_kv, const int64_t *attr, double scale,
                 TngrtError *err),
                 return tngrt_impl_fused_attention(out, lse, q, k, v, mask, block_table, act_q, act_kv,
                                                   attr, scale, err);)

int tngrt_kernel_scatter_update(const TngrtArg *data, const TngrtArg *indices, const TngrtArg *updates,
                                int axis, TngrtError *err)
{
    return tngrt_impl_scatter_update(data, indices, updates, axis, err);
}

int tngrt_kernel_scatter_nd_update(const TngrtArg *var, const TngrtArg *indices, const TngrtArg *updates,
                                   TngrtError *err)
{
    return tngrt_impl_scatter_nd_update(var, indices, updates, err);
}

TNGRT_ISA_KERNEL(void, tngrt_kernel_moe_gating_top_k,
                 (const TngrtArg *y, const TngrtArg *expert_idx, const TngrtArg *out, const TngrtArg *x,
                 const TngrtArg *bias, int k, int k_group, int group_count, int group_select_mode,
                 int norm_type, double scale, double eps),
                 tngrt_impl_moe_gating_top_k(y, expert_idx, out, x, bias, k, k_group, group_count,
                                             group_select_mode, norm_type, scale, eps);)
