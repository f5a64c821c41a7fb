/*
 * infer_dtype.c - the dtype rules (dtype_<rule>, ops.def's dtype rule
 * column): the dtype of every output of an op, as PyTorch gives it, from
 * its operands' dtypes, a Python scalar operand and the op's dtype
 * attribute; and the promotion helpers they share. graph_add_op (infer.c)
 * runs an op's dtype rule after its shape rule, which checked the operands
 * and set the outputs' shapes (I->nout of them).
 *
 * Error messages come from user scripts: one line, lower case, starting
 * with the op's name.
 */
#include "infer_core.h"

/* ---- promotion ---- */

/* PyTorch's categories: bool < integer < floating point. */
static int dtype__category(DType t)
{
    return t == DT_BOOL ? 0 : dtype__is_int(t) ? 1 : 2;
}

/* torch.promote_types on the dtypes this graph has. */
DType dtype__promote(DType a, DType b)
{
    if (a == b)
        return a;
    int ca = dtype__category(a), cb = dtype__category(b);
    if (ca != cb)
        return ca > cb ? a : b;
    if (ca == 2)
        return DT_F32;     /* f16 with bf16, or either with f32 */
    return dtype_size(a) >= dtype_size(b) ? a : b;
}

/* The result dtype of a tensor-tensor op: a 0-d operand only counts when
 * its category is higher (torch.result_type). */
DType dtype__result(const Val *a, const Val *b)
{
    if ((a->ndim == 0) == (b->ndim == 0))
        return dtype__promote(a->dtype, b->dtype);
    const Val *dimmed = a->ndim ? a : b, *zero = a->ndim ? b : a;
    if (dtype__category(zero->dtype) > dtype__category(dimmed->dtype))
        return zero->dtype;
    return dimmed->dtype;
}

/* The result dtype of tensor op Python scalar: a float tensor keeps its
 * dtype; a float scalar makes an integer tensor the default float dtype
 * (float32 unless the script set another); an int scalar keeps an
 * integer tensor's dtype (bool becomes int64). */
DType dtype__with_scalar(const Graph *g, DType t, int int_scalar)
{
    if (dtype_is_float(t))
        return t;
    if (!int_scalar)
        return graph_float(g);
    return t == DT_BOOL ? DT_I64 : t;
}

/* Every output gets dt. */
static int dtype__all(Infer *I, DType dt)
{
    for (uint32_t i = 0; i < I->nout; i++)
        I->out[i].dtype = dt;
    return 0;
}

/* The outputs get dts[0..nout) (the rule names one per output). */
static int dtype__each(Infer *I, const DType *dts, uint32_t n)
{
    TNGC_ASSERT(I->nout <= n);
    for (uint32_t i = 0; i < I->nout; i++)
        I->out[i].dtype = dts[i];
    return 0;
}

/* The dtype of input 0. */
static DType dtype__in0(const Infer *I)
{
    return infer__in(I, 0)->dtype;
}

/* ---- dtype rules ---- */

/* torch.full(..., dtype=): the op's dtype, the default float dtype when none */
int dtype_attr_f32(Infer *I)
{
    return dtype__all(I, I->d->dtype ? I->d->dtype : graph_float(I->g));
}

/* torch.arange: the dtype the lowering chose, int64 by default */
int dtype_attr_i64(Infer *I)
{
    return dtype__all(I, I->d->dtype ? I->d->dtype : DT_I64);
}

/* npu_quant_matmul(output_dtype=): int8 by default */
int dtype_attr_i8(Infer *I)
{
    return dtype__all(I, I->d->dtype ? I->d->dtype : DT_I8);
}

/* x.to(dtype): the op's dtype, which must be given */
int dtype_attr(Infer *I)
{
    if (I->d->dtype == DT_UNKNOWN)
        return infer__fail(I, "no target dtype");
    return dtype__all(I, I->d->dtype);
}

/* torch.result_type of the operands: two tensors, or (attr[0] 1 or 2, as
 * the binary shape rule reads it) the tensor and a Python scalar, an int
 * one when attr[1] is set; one tensor alone keeps its dtype (~x) */
static DType dtype__operands(const Infer *I)
{
    int64_t mode = I->d->nattr > 0 ? I->attr[0] : 0;
    int int_scalar = I->d->nattr > 1 && I->attr[1];
    if (mode != 0)
        return dtype__with_scalar(I->g, dtype__in0(I), int_scalar);
    if (I->d->nin >= 2)
        return dtype__result(infer__in(I, 0), infer__in(I, 1));
    return dtype__in0(I);
}

/* a + b, a * 2, a & b, maximum(a, b): PyTorch's type promotion */
int dtype_promote(Infer *I)
{
    return dtype__all(I, dtype__operands(I));
}

/* logaddexp: promoted; PyTorch computes it for floating point only */
int dtype_promote_float_only(Infer *I)
{
    DType dt = dtype__operands(I);
    if (!dtype_is_float(dt))
        return infer__fail(I, "expected floating point operands, got %s", dtype_name(dt));
    return dtype__all(I, dt);
}

/* a / b: promoted, then an integer or bool result is the default float dtype */
int dtype_promote_float(Infer *I)
{
    DType dt = dtype__operands(I);
    return dtype__all(I, dtype_is_float(dt) ? dt : graph_float(I->g));
}

/* torch.where(c, a, b): a and b promoted (c is the condition) */
int dtype_promote_values(Infer *I)
{
    return dtype__all(I, dtype__result(infer__in(I, 1), infer__in(I, 2)));
}

/* torch.cat, torch.stack: every input promoted (no 0-d rule) */
int dtype_promote_all(Infer *I)
{
    DType dt = dtype__in0(I);
    for (uint32_t i = 1; i < I->d->nin; i++)
        dt = dtype__promote(dt, infer__in(I, i)->dtype);
    return dtype__all(I, dt);
}

/* clamp(x, min, max) with Python number bounds: promoted as x + bound
 * (attr[0] set: int bounds) */
int dtype_with_scalar(Infer *I)
{
    return dtype__all(I, dtype__with_scalar(I->g, dtype__in0(I), I->d->nattr > 0 && I->attr[0]));
}

/* x ** e (fattr[0]): an integer tensor stays integer for a non-negative
 * integral exponent (bool becomes int64) and becomes float32 otherwise */
int dtype_pow(Infer *I)
{
    DType dt = dtype__in0(I);
    double e = I->d->fattr[0];
    if (!dtype_is_float(dt)) {
        int integral = e > -9e18 && e < 9e18 && e == (double)(int64_t)e;
        if (integral && e < 0)
            return infer__fail(I, "dtype %s: integers to negative integer powers are not allowed",
                               dtype_name(dt));
        if (!integral)
            dt = graph_float(I->g);
        else if (dt == DT_BOOL)
            dt = DT_I64;
    }
    return dtype__all(I, dt);
}

/* input 0's dtype: views, copies, -x, relu, matrix products, norms,
 * indexing and scatter into x, ... */
int dtype_same(Infer *I)
{
    return dtype__all(I, dtype__in0(I));
}

/* torch.square: input 0's dtype, bool becomes int64 */
int dtype_square(Infer *I)
{
    DType dt = dtype__in0(I);
    return dtype__all(I, dt == DT_BOOL ? DT_I64 : dt);
}

/* exp, sqrt, sigmoid, gelu, ...: input 0's dtype, integers and bool become
 * the default float dtype (PyTorch computes them in it) */
int dtype_to_float(Infer *I)
{
    DType dt = dtype__in0(I);
    return dtype__all(I, dtype_is_float(dt) ? dt : graph_float(I->g));
}

/* sum, prod, cumsum: the op's dtype, else a float input's, else int64 */
int dtype_accumulate(Infer *I)
{
    DType x = dtype__in0(I), want = I->d->dtype;
    return dtype__all(I, want ? want : dtype_is_float(x) ? x : DT_I64);
}

/* mean: the op's dtype, else the input's; it must be floating point */
int dtype_mean(Infer *I)
{
    DType dt = I->d->dtype ? I->d->dtype : dtype__in0(I);
    if (!dtype_is_float(dt))
        return infer__fail(I, "could not infer the output dtype: the input dtype must be "
                           "floating point, got %s", dtype_name(dt));
    return dtype__all(I, dt);
}

/* softmax, log_softmax: the op's dtype, else the input's; floating point */
int dtype_softmax(Infer *I)
{
    DType dt = I->d->dtype ? I->d->dtype : dtype__in0(I);
    if (!dtype_is_float(dt))
        return infer__fail(I, "expected a floating point result dtype, got %s", dtype_name(dt));
    return dtype__all(I, dt);
}

/* comparisons, logical ops, isnan, any, all */
int dtype_bool_out(Infer *I)
{
    return dtype__all(I, DT_BOOL);
}

/* topk, sort, max(dim): values in input 0's dtype, then int64 indices */
int dtype_values_index(Infer *I)
{
    return dtype__each(I, (DType[]){dtype__in0(I), DT_I64}, 2);
}

/* argsort, argmax, argmin: int64 indices */
int dtype_index(Infer *I)
{
    return dtype__all(I, DT_I64);
}

/* rms_norm (y, rstd), fused attention (out, softmax_lse), add_rms_norm
 * (y, rstd, x): input 0's dtype, the second output float32 */
int dtype_same_f32(Infer *I)
{
    DType x = dtype__in0(I);
    return dtype__each(I, (DType[]){x, DT_F32, x}, 3);
}

/* dynamic_quant, dequant_swiglu_quant: int8 values, float32 scales */
int dtype_quant(Infer *I)
{
    return dtype__each(I, (DType[]){DT_I8, DT_F32}, 2);
}

/* npu_moe_gating_top_k: y in input 0's dtype, int32 expert ids, float32
 * norm_out */
int dtype_moe_top_k(Infer *I)
{
    return dtype__each(I, (DType[]){dtype__in0(I), DT_I32, DT_F32}, 3);
}

/* npu_moe_gating_top_k_softmax: y in input 0's dtype, int32 expert ids
 * and row ids */
int dtype_moe_top_k_softmax(Infer *I)
{
    return dtype__each(I, (DType[]){dtype__in0(I), DT_I32, DT_I32}, 3);
}
