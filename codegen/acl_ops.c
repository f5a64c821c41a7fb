/*
 * acl_ops.c - which aclnn operator computes each op on the ACL target: the
 * one table from op kinds (frontend/graph.h) to CANN's single-operator API.
 *
 * A row maps an op kind, in one of its forms (AclVariant), to an aclnn
 * function and its arguments; emit_acl.c calls it in two phases,
 * fnGetWorkspaceSize(args..., &workspaceSize, &executor) then fn(workspace,
 * workspaceSize, executor, stream). An op whose (kind, form) has no row is a
 * build error that names it: nothing is silently skipped.
 *
 * Argument tokens (the operands' descriptors are built once per gear):
 *   iK    input K as an aclTensor (NULL when the optional input is absent)
 *   oK    output K as an aclTensor
 *   fK    fattr[K] as an aclScalar (int64 for an int scalar on an integer
 *         result, else double)
 *   one   the aclScalar 1 (linear's beta and alpha)
 *   F0    fattr[0] as a double literal (eps)
 *   aK    attr[K] as an int64 literal (dims)
 *   bK    attr[K] as a bool literal (keepdim, activate_left)
 *   gelu  approximate: 0 (erf) or 1 (tanh) from attr[0]
 *   dt    output 0's aclDataType
 *   cm    cubeMathType 0, KEEP_DTYPE: matmuls compute in their operands'
 *         dtype, as PyTorch does (no float32 down-conversion)
 *   rd    the reduced dims as an aclIntArray (all dims when none are given)
 *   pd    the permutation (attr) as an aclIntArray
 *   ns    layer_norm's normalized shape (input 0's last attr[0] dims)
 *   list  the inputs as an aclTensorList (stack: each with a 1 inserted)
 *   x2    input 0 viewed as a matrix [rows, last dim]; y2 likewise output 0
 *   wt    input 1 [n, k] viewed transposed [k, n] (strides 1, k)
 *   sv    input 0 viewed through the slice attr[0..3] (a strided view)
 *   dv    input 0 (the destination) viewed through the slice
 *   xv    input 0 viewed at index attr[1] of dim attr[0]
 *   qm    the quant mode string ("static", "dynamic")
 *   nil   NULL;  false  the literal false
 *
 * Slices, selects, slice stores, clones and copies are aclnnInplaceCopy
 * between strided views (aclTensor strides and offset, aclnn accepts
 * non-contiguous operands), not separate kernels of their own.
 */
#include "acl_ops.h"

#include <stddef.h>

#define H(x) "aclnnop/aclnn_" x ".h"

static const AclOp acl_ops[] = {
    {OP_FULL, ACL_V_PLAIN, "aclnnInplaceFillScalar", H("fill_scalar"), "o0 f0"},
    {OP_ADD, ACL_V_PLAIN, "aclnnAdd", H("add"), "i0 i1 f1 o0"},
    {OP_ADD, ACL_V_TENSOR_SCALAR, "aclnnAdds", H("add"), "i0 f0 f1 o0"},
    {OP_SUB, ACL_V_PLAIN, "aclnnSub", H("sub"), "i0 i1 f1 o0"},
    {OP_SUB, ACL_V_TENSOR_SCALAR, "aclnnSubs", H("sub"), "i0 f0 f1 o0"},
    {OP_SUB, ACL_V_SCALAR_TENSOR, "aclnnRsubs", H("rsub"), "i0 f0 f1 o0"},
    {OP_MUL, ACL_V_PLAIN, "aclnnMul", H("mul"), "i0 i1 o0"},
    {OP_MUL, ACL_V_TENSOR_SCALAR, "aclnnMuls", H("mul"), "i0 f0 o0"},
    {OP_DIV, ACL_V_PLAIN, "aclnnDiv", H("div"), "i0 i1 o0"},
    {OP_DIV, ACL_V_TENSOR_SCALAR, "aclnnDivs", H("div"), "i0 f0 o0"},
    {OP_POW, ACL_V_PLAIN, "aclnnPowTensorScalar", H("pow"), "i0 f0 o0"},
    {OP_NEG, ACL_V_PLAIN, "aclnnNeg", H("neg"), "i0 o0"},
    {OP_ABS, ACL_V_PLAIN, "aclnnAbs", H("abs"), "i0 o0"},
    {OP_EXP, ACL_V_PLAIN, "aclnnExp", H("exp"), "i0 o0"},
    {OP_LOG, ACL_V_PLAIN, "aclnnLog", H("log"), "i0 o0"},
    {OP_SQRT, ACL_V_PLAIN, "aclnnSqrt", H("sqrt"), "i0 o0"},
    {OP_RSQRT, ACL_V_PLAIN, "aclnnRsqrt", H("rsqrt"), "i0 o0"},
    {OP_RELU, ACL_V_PLAIN, "aclnnRelu", H("relu"), "i0 o0"},
    {OP_GELU, ACL_V_PLAIN, "aclnnGeluV2", H("gelu_v2"), "i0 gelu o0"},
    {OP_SILU, ACL_V_PLAIN, "aclnnSilu", H("silu"), "i0 o0"},
    {OP_SIGMOID, ACL_V_PLAIN, "aclnnSigmoid", H("sigmoid"), "i0 o0"},
    {OP_TANH, ACL_V_PLAIN, "aclnnTanh", H("tanh"), "i0 o0"},
    {OP_CAST, ACL_V_PLAIN, "aclnnCast", H("cast"), "i0 dt o0"},
    {OP_MM, ACL_V_PLAIN, "aclnnMm", H("mm"), "i0 i1 o0 cm"},
    {OP_BMM, ACL_V_PLAIN, "aclnnBatchMatMul", H("batch_matmul"), "i0 i1 o0 cm"},
    {OP_MATMUL, ACL_V_PLAIN, "aclnnMatmul", H("matmul"), "i0 i1 o0 cm"},
    {OP_ADDMM, ACL_V_PLAIN, "aclnnAddmm", H("addmm"), "i0 i1 i2 f0 f1 o0 cm"},
    {OP_LINEAR, ACL_V_PLAIN, "aclnnMm", H("mm"), "x2 wt y2 cm"},
    {OP_LINEAR, ACL_V_TENSOR_SCALAR, "aclnnAddmm", H("addmm"), "i2 x2 wt one one y2 cm"},
    {OP_PERMUTE, ACL_V_PLAIN, "aclnnPermute", H("permute"), "i0 pd o0"},
    {OP_CLONE, ACL_V_PLAIN, "aclnnInplaceCopy", H("copy"), "o0 i0"},
    {OP_SLICE, ACL_V_PLAIN, "aclnnInplaceCopy", H("copy"), "o0 sv"},
    {OP_SELECT, ACL_V_PLAIN, "aclnnInplaceCopy", H("copy"), "o0 xv"},
    {OP_CAT, ACL_V_PLAIN, "aclnnCat", H("cat"), "list a0 o0"},
    {OP_STACK, ACL_V_PLAIN, "aclnnStack", H("stack"), "list a0 o0"},
    {OP_SUM, ACL_V_PLAIN, "aclnnReduceSum", H("reduce_sum"), "i0 rd b0 dt o0"},
    {OP_MEAN, ACL_V_PLAIN, "aclnnMean", H("mean"), "i0 rd b0 dt o0"},
    {OP_AMAX, ACL_V_PLAIN, "aclnnAmax", H("amax"), "i0 rd b0 o0"},
    {OP_SOFTMAX, ACL_V_PLAIN, "aclnnSoftmax", H("softmax"), "i0 a0 o0"},
    {OP_LOG_SOFTMAX, ACL_V_PLAIN, "aclnnLogSoftmax", H("logsoftmax"), "i0 a0 o0"},
    {OP_LAYER_NORM, ACL_V_PLAIN, "aclnnLayerNorm", H("layer_norm"), "i0 ns i1 i2 F0 o0 nil nil"},
    {OP_RMS_NORM, ACL_V_PLAIN, "aclnnRmsNorm", H("rms_norm"), "i0 i1 F0 o0 o1"},
    {OP_EMBEDDING, ACL_V_PLAIN, "aclnnEmbedding", H("embedding"), "i0 i1 o0"},
    {OP_QUANT_MATMUL, ACL_V_PLAIN, "aclnnQuantMatmulV4", H("quant_matmul_v4"), "i0 i1 i2 i3 i5 i4 false false o0"},
    {OP_DEQUANT_SWIGLU_QUANT, ACL_V_PLAIN, "aclnnDequantSwigluQuant", H("dequant_swiglu_quant"),
     "i0 i1 i2 i3 i4 i5 i6 b0 qm o0 o1"},
    {OP_SWIGLU, ACL_V_PLAIN, "aclnnSwiGlu", H("swi_glu"), "i0 a0 o0"},
    {OP_COPY, ACL_V_PLAIN, "aclnnInplaceCopy", H("copy"), "o0 i1"},
    {OP_SLICE_STORE, ACL_V_PLAIN, "aclnnInplaceCopy", H("copy"), "dv i1"},
};

AclVariant acl_op_variant(const Graph *g, const Op *op, const char **why)
{
    *why = NULL;
    switch (op->kind) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV:
        if (op->attr[0] == 0)
            return ACL_V_PLAIN;
        if (op->attr[0] == 1)
            return ACL_V_TENSOR_SCALAR;
        /* scalar op tensor: s + t and s * t commute (alpha 1) */
        if ((op->kind == OP_ADD && op->fattr[1] == 1.0) || op->kind == OP_MUL)
            return ACL_V_TENSOR_SCALAR;
        if (op->kind == OP_SUB)
            return ACL_V_SCALAR_TENSOR;
        *why = op->kind == OP_DIV ? "a scalar divided by a tensor; aclnnDivs divides a tensor by a scalar"
                                  : "a scalar plus alpha times a tensor, alpha not 1";
        return ACL_V_OTHER;
    case OP_LINEAR:
        return op->nin > 2 && op->in[2] >= 0 ? ACL_V_TENSOR_SCALAR : ACL_V_PLAIN;
    case OP_SOFTMAX: case OP_LOG_SOFTMAX:
        if (g->vals.v[op->out].dtype != g->vals.v[op->in[0]].dtype) {
            *why = "a softmax that also casts (dtype=): aclnnSoftmax keeps its input's dtype";
            return ACL_V_OTHER;
        }
        return ACL_V_PLAIN;
    default:
        return ACL_V_PLAIN;
    }
}

const AclOp *acl_op_find(OpKind kind, AclVariant variant)
{
    for (size_t i = 0; i < sizeof acl_ops / sizeof acl_ops[0]; i++)
        if (acl_ops[i].kind == kind && acl_ops[i].variant == variant)
            return &acl_ops[i];
    return NULL;
}

const char *acl_dtype(DType t)
{
    switch (t) {
    case DT_F32: return "ACL_FLOAT";
    case DT_F16: return "ACL_FLOAT16";
    case DT_BF16: return "ACL_BF16";
    case DT_I8: return "ACL_INT8";
    case DT_I32: return "ACL_INT32";
    case DT_I64: return "ACL_INT64";
    case DT_BOOL: return "ACL_BOOL";
    default: return "ACL_DT_UNDEFINED";
    }
}
