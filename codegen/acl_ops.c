/*
 * acl_ops.c - which aclnn operator computes each op on the ACL target: the
 * one table from op kinds (ir/graph.h) to CANN's single-operator API.
 *
 * A row maps an op kind, in one of its forms (AclVariant), to an aclnn
 * operator (a row of acl_fns[], which also holds the C declarations the
 * bundle makes of it) and its arguments; emit_acl.c calls it in two phases,
 * fnGetWorkspaceSize(args..., &workspaceSize, &executor) then fn(workspace,
 * workspaceSize, executor, stream). An op whose (kind, form) has no row is a
 * build error that names it: nothing is silently skipped.
 *
 * Argument tokens (codegen/emit.h reads them, and the ones both targets
 * share: =text a literal, aK attr[K] as an int64 literal, FK fattr[K] as
 * a double literal; the operands' descriptors are built once per gear):
 *   iK    input K as an aclTensor (NULL when the optional input is absent)
 *   oK    output K as an aclTensor
 *   fK    fattr[K] as an aclScalar (int64 for an int scalar on an integer
 *         result, else double)
 *   one   the aclScalar 1 (linear's beta and alpha)
 *   bK    attr[K] as a bool literal (keepdim, activate_left)
 *   gelu  approximate: 0 (erf) or 1 (tanh) from attr[0]
 *   dt    output 0's aclDataType
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
 *   astart, aend  arange's start (fattr[0] + the dim attr[1]) and end
 *         (start + length * step) as aclScalars
 *   dK    attr[K] (a DimId) as an int64 expression of the gear's dims
 *   shifts, sdims  roll's shifts and dims (its attribute pairs) as aclIntArrays
 *   lK    inputs K.. as an aclTensorList (the indices of index, index_put)
 *   xm dm input 0 / output 0 viewed with the indexed dims attr[0].. first
 *   ym vm output 0 / input 1 (values) viewed with the indices' dims first
 *   n:cs n:cp n:cd n:co   conv's stride, padding, dilation, output padding
 *         (zeros) as aclIntArrays of its 1 or 2 spatial dims
 *   n:k n:s n:p   attr[0..1], [2..3], [4..5] as aclIntArrays (pool kernel,
 *         stride, padding; adaptive pool output size); n:p4 the padding as
 *         begins then ends; n:1 {1, 1}; n:u attr[2..3] (upsample size)
 *   n:N n:C n:HW  input 0's dim 0, dim 1, product of the others (int64)
 *   kl vl input 1 / 2 alone as an aclTensorList (an attention's key, value)
 *   ly    an attention's input layout string from attr[0] ("BSH", "BSND", "BNSD")
 *   aq ak an attention's listed query / key-value lengths as an aclIntArray
 *         (attr[8] / attr[10] repeated attr[9] / attr[11] times), NULL if none
 * A matmul's cubeMathType is =0, KEEP_DTYPE: matmuls compute in their
 * operands' dtype, as PyTorch does (no float32 down-conversion).
 *
 * The table is keyed by [OP_X][variant]; every kind has its plain row, or
 * NONE (ACL_NONE: a source or view, no call), which tests/unit/test_ops.c
 * checks for every kind of ir/ops.def.
 *
 * Slices, selects, slice stores, clones and copies are aclnnInplaceCopy
 * between strided views (aclTensor strides and offset, aclnn accepts
 * non-contiguous operands), not separate kernels of their own.
 */
#include "acl_ops.h"
#include "codegen.h"

#include <stddef.h>

/* ---- the aclnn functions ------------------------------------------------------ */

/* Every aclnn operator the op table uses, keyed by its name. Its
 * GetWorkspaceSize parameters (before workspaceSize, executor) are CANN
 * 8.1.RC1's, copied type for type, const for const, in CANN's order, from
 * the header named (CANN's aclnnop/ headers are C++, so the bundle declares
 * what it calls itself; tests/acl/real_cann.sh compiles these declarations
 * against CANN's headers in C++, where any difference is an error). CS:
 * the launch's stream is declared `const aclrtStream`. UNARY, BINARY,
 * BINARY_ALPHA and MATMUL spell the parameter lists CANN shares between
 * operators. */
enum {
    F_ABS, F_ADD, F_ADDMM, F_ADDS, F_AMAX, F_BATCH_MATMUL, F_CAST, F_CAT, F_CEIL, F_CLAMP, F_CLAMP_MAX, F_CLAMP_MIN,
    F_COS, F_DEQUANT_SWIGLU_QUANT, F_DIV, F_DIVS, F_EMBEDDING, F_ERF, F_EXP, F_EXPM1, F_FLOOR, F_GELU_V2,
    F_HARDSWISH, F_INPLACE_COPY, F_INPLACE_FILL_SCALAR, F_LAYER_NORM, F_LEAKY_RELU, F_LOG, F_LOG1P, F_LOG_SOFTMAX,
    F_MATMUL, F_MAXIMUM, F_MEAN, F_MINIMUM, F_MISH, F_MM, F_MUL, F_MULS, F_NEG, F_PERMUTE, F_POW_TENSOR_SCALAR,
    F_QUANT_MATMUL_V4, F_RECIPROCAL, F_REDUCE_SUM, F_RELU, F_RMS_NORM, F_ROUND, F_RSQRT, F_RSUBS, F_SIGMOID, F_SIGN,
    F_SILU, F_SIN, F_SOFTMAX, F_SOFTPLUS, F_SQRT, F_STACK, F_SUB, F_SUBS, F_SWI_GLU, F_TANH,
    F_POW_TENSOR_TENSOR, F_POW_SCALAR_TENSOR,
    F_INPLACE_MULS,
    /* -- creation and constants -- */
    F_ARANGE,
    /* -- shape -- */
    F_TRIU, F_TRIL, F_FLIP, F_ROLL, F_SLICE,
    /* -- comparison, selection, bool -- */
    F_EQ_TENSOR, F_EQ_SCALAR, F_NE_TENSOR, F_NE_SCALAR, F_GT_TENSOR, F_GT_SCALAR, F_GE_TENSOR, F_GE_SCALAR, F_LT_TENSOR, F_LT_SCALAR, F_LE_TENSOR, F_LE_SCALAR, F_LOGICAL_AND, F_LOGICAL_OR, F_LOGICAL_XOR, F_LOGICAL_NOT, F_BITWISE_AND_TENSOR, F_BITWISE_OR_TENSOR, F_BITWISE_XOR_TENSOR, F_BITWISE_NOT, F_IS_INF, F_IS_FINITE, F_S_WHERE, F_INPLACE_MASKED_FILL_SCALAR, F_ANY, F_ALL,
    /* -- reductions, sorting, contractions -- */
    F_AMIN, F_ARGMAX, F_ARGMIN, F_ARGSORT, F_CUMSUM, F_MAX_DIM, F_MIN_DIM, F_PROD_DIM, F_SORT, F_TOPK,
    /* -- indexing and scatter -- */
    F_GATHER, F_INDEX, F_INDEX_ADD, F_INDEX_COPY, F_INDEX_PUT_IMPL, F_INDEX_SELECT, F_SCATTER, F_SCATTER_ADD,
    F_SCATTER_VALUE,
    /* -- neural net -- */
    F_CONVOLUTION, F_BATCH_NORM, F_GROUP_NORM, F_MAX_POOL, F_AVG_POOL2D, F_ADAPTIVE_AVG_POOL2D,
    F_ADAPTIVE_MAX_POOL2D, F_UPSAMPLE_NEAREST2D_V2, F_UPSAMPLE_BILINEAR2D,
    /* -- torch_npu fused ops -- */
    F_MOE_GATING_TOP_K,
    F_ADD_RMS_NORM, F_ROTARY_POSITION_EMBEDDING, F_DYNAMIC_QUANT, F_MOE_GATING_TOP_K_SOFTMAX,
    F_FUSED_INFER_ATTENTION_SCORE,
    F_INPLACE_SCATTER_UPDATE, F_SCATTER_ND_UPDATE,
    F_COUNT
};

#define H(x) "aclnnop/aclnn_" x ".h"
#define CS 1
#define UNARY "const aclTensor *self, aclTensor *out"
#define BINARY_ALPHA(other) "const aclTensor *self, const " other " *other, const aclScalar *alpha, aclTensor *out"
#define BINARY(other) "const aclTensor *self, const " other " *other, aclTensor *out"
#define MATMUL "const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cubeMathType"

static const AclFn acl_fns[F_COUNT] = {
    [F_ABS] = {"aclnnAbs", H("abs"), UNARY, CS},
    [F_ADD] = {"aclnnAdd", H("add"), BINARY_ALPHA("aclTensor"), 0},
    [F_ADDMM] = {"aclnnAddmm", H("addmm"),
                 "const aclTensor *self, const aclTensor *mat1, const aclTensor *mat2, const aclScalar *beta, "
                 "const aclScalar *alpha, aclTensor *out, int8_t cubeMathType", CS},
    [F_ADDS] = {"aclnnAdds", H("add"), BINARY_ALPHA("aclScalar"), 0},
    [F_AMAX] = {"aclnnAmax", H("amax"),
                "const aclTensor *self, const aclIntArray *dim, bool keepDim, aclTensor *out", 0},
    [F_BATCH_MATMUL] = {"aclnnBatchMatMul", H("batch_matmul"), MATMUL, 0},
    [F_CAST] = {"aclnnCast", H("cast"), "const aclTensor *self, const aclDataType dtype, aclTensor *out", 0},
    [F_CAT] = {"aclnnCat", H("cat"), "const aclTensorList *tensors, int64_t dim, aclTensor *out", CS},
    [F_CEIL] = {"aclnnCeil", H("ceil"), UNARY, CS},
    [F_CLAMP] = {"aclnnClamp", H("clamp"),
                 "const aclTensor *self, const aclScalar *clipValueMin, const aclScalar *clipValueMax, "
                 "aclTensor *out", CS},
    [F_CLAMP_MAX] = {"aclnnClampMax", H("clamp"),
                     "const aclTensor *self, const aclScalar *clipValueMax, aclTensor *out", 0},
    [F_CLAMP_MIN] = {"aclnnClampMin", H("clamp"),
                     "const aclTensor *self, const aclScalar *clipValueMin, aclTensor *out", CS},
    [F_COS] = {"aclnnCos", H("cos"), UNARY, CS},
    [F_DEQUANT_SWIGLU_QUANT] = {"aclnnDequantSwigluQuant", H("dequant_swiglu_quant"),
                                "const aclTensor *x, const aclTensor *weightScaleOptional, "
                                "const aclTensor *activationScaleOptional, const aclTensor *biasOptional, "
                                "const aclTensor *quantScaleOptional, const aclTensor *quantOffsetOptional, "
                                "const aclTensor *groupIndexOptional, bool activateLeft, char *quantModeOptional, "
                                "const aclTensor *yOut, const aclTensor *scaleOut", 0},
    [F_DIV] = {"aclnnDiv", H("div"), BINARY("aclTensor"), 0},
    [F_DIVS] = {"aclnnDivs", H("div"), BINARY("aclScalar"), 0},
    [F_EMBEDDING] = {"aclnnEmbedding", H("embedding"),
                     "const aclTensor *weight, const aclTensor *indices, const aclTensor *out", CS},
    [F_ERF] = {"aclnnErf", H("erf"), UNARY, 0},
    [F_EXP] = {"aclnnExp", H("exp"), UNARY, 0},
    [F_EXPM1] = {"aclnnExpm1", H("expm1"), UNARY, CS},
    [F_FLOOR] = {"aclnnFloor", H("floor"), UNARY, 0},
    [F_GELU_V2] = {"aclnnGeluV2", H("gelu_v2"), "const aclTensor *x, int64_t approximate, aclTensor *y", CS},
    [F_HARDSWISH] = {"aclnnHardswish", H("hardswish"), "const aclTensor *self, const aclTensor *out", CS},
    [F_INPLACE_COPY] = {"aclnnInplaceCopy", H("copy"), "aclTensor *selfRef, const aclTensor *src", CS},
    [F_INPLACE_FILL_SCALAR] = {"aclnnInplaceFillScalar", H("fill_scalar"),
                               "aclTensor *selfRef, const aclScalar *value", 0},
    [F_LAYER_NORM] = {"aclnnLayerNorm", H("layer_norm"),
                      "const aclTensor *input, const aclIntArray *normalizedShape, const aclTensor *weightOptional, "
                      "const aclTensor *biasOptional, double eps, aclTensor *out, aclTensor *meanOutOptional, "
                      "aclTensor *rstdOutOptional", 0},
    [F_LEAKY_RELU] = {"aclnnLeakyRelu", H("leaky_relu"),
                      "const aclTensor *self, const aclScalar *negativeSlope, aclTensor *out", 0},
    [F_LOG] = {"aclnnLog", H("log"), UNARY, 0},
    [F_LOG1P] = {"aclnnLog1p", H("log1p"), UNARY, 0},
    [F_LOG_SOFTMAX] = {"aclnnLogSoftmax", H("logsoftmax"),
                       "const aclTensor *self, int64_t dim, aclTensor *out", 0},
    [F_MATMUL] = {"aclnnMatmul", H("matmul"), MATMUL, 0},
    [F_MAXIMUM] = {"aclnnMaximum", H("maximum"), BINARY("aclTensor"), 0},
    [F_MEAN] = {"aclnnMean", H("mean"),
                "const aclTensor *self, const aclIntArray *dim, bool keepDim, aclDataType dtype, aclTensor *out", 0},
    [F_MINIMUM] = {"aclnnMinimum", H("minimum"), BINARY("aclTensor"), 0},
    [F_MISH] = {"aclnnMish", H("mish"), UNARY, 0},
    [F_MM] = {"aclnnMm", H("mm"), MATMUL, 0},
    [F_MUL] = {"aclnnMul", H("mul"), BINARY("aclTensor"), 0},
    [F_MULS] = {"aclnnMuls", H("mul"), BINARY("aclScalar"), 0},
    [F_INPLACE_MULS] = {"aclnnInplaceMuls", H("mul"), "aclTensor *selfRef, const aclScalar *other", 0},
    [F_NEG] = {"aclnnNeg", H("neg"), UNARY, CS},
    [F_PERMUTE] = {"aclnnPermute", H("permute"), "const aclTensor *self, const aclIntArray *dims, aclTensor *out", CS},
    [F_POW_TENSOR_SCALAR] = {"aclnnPowTensorScalar", H("pow"),
                             "const aclTensor *self, const aclScalar *exponent, const aclTensor *out", CS},
    [F_POW_TENSOR_TENSOR] = {"aclnnPowTensorTensor", H("pow_tensor_tensor"),
                             "const aclTensor *self, const aclTensor *exponent, aclTensor *out", 0},
    [F_POW_SCALAR_TENSOR] = {"aclnnPowScalarTensor", H("pow"),
                             "const aclScalar *self, const aclTensor *exponent, const aclTensor *out", 0},
    [F_QUANT_MATMUL_V4] = {"aclnnQuantMatmulV4", H("quant_matmul_v4"),
                           "const aclTensor *x1, const aclTensor *x2, const aclTensor *scale, const aclTensor *offset, "
                           "const aclTensor *pertokenScaleOptional, const aclTensor *bias, bool transposeX1, "
                           "bool transposeX2, const aclTensor *out", 0},
    [F_RECIPROCAL] = {"aclnnReciprocal", H("reciprocal"), UNARY, 0},
    [F_REDUCE_SUM] = {"aclnnReduceSum", H("reduce_sum"),
                      "const aclTensor *self, const aclIntArray *dims, bool keepDims, aclDataType dtype, "
                      "aclTensor *out", 0},
    [F_RELU] = {"aclnnRelu", H("relu"), "const aclTensor *self, const aclTensor *out", CS},
    [F_RMS_NORM] = {"aclnnRmsNorm", H("rms_norm"),
                    "const aclTensor *x, const aclTensor *gamma, double epsilon, const aclTensor *yOut, "
                    "const aclTensor *rstdOut", 0},
    [F_ROUND] = {"aclnnRound", H("round"), UNARY, CS},
    [F_RSQRT] = {"aclnnRsqrt", H("rsqrt"), UNARY, 0},
    [F_RSUBS] = {"aclnnRsubs", H("rsub"), BINARY_ALPHA("aclScalar"), 0},
    [F_SIGMOID] = {"aclnnSigmoid", H("sigmoid"), UNARY, CS},
    [F_SIGN] = {"aclnnSign", H("sign"), UNARY, CS},
    [F_SILU] = {"aclnnSilu", H("silu"), UNARY, 0},
    [F_SIN] = {"aclnnSin", H("sin"), UNARY, 0},
    [F_SOFTMAX] = {"aclnnSoftmax", H("softmax"), "const aclTensor *self, int64_t dim, aclTensor *out", 0},
    [F_SOFTPLUS] = {"aclnnSoftplus", H("softplus"),
                    "const aclTensor *self, const aclScalar *beta, const aclScalar *threshold, aclTensor *out", CS},
    [F_SQRT] = {"aclnnSqrt", H("sqrt"), UNARY, 0},
    [F_STACK] = {"aclnnStack", H("stack"), "const aclTensorList *tensors, int64_t dim, aclTensor *out", CS},
    [F_SUB] = {"aclnnSub", H("sub"), BINARY_ALPHA("aclTensor"), 0},
    [F_SUBS] = {"aclnnSubs", H("sub"), BINARY_ALPHA("aclScalar"), 0},
    [F_SWI_GLU] = {"aclnnSwiGlu", H("swi_glu"), "const aclTensor *x, int64_t dim, const aclTensor *out", 0},
    [F_TANH] = {"aclnnTanh", H("tanh"), UNARY, CS},
    /* -- creation and constants -- */
    [F_ARANGE] = {"aclnnArange", H("arange"),
                  "const aclScalar *start, const aclScalar *end, const aclScalar *step, aclTensor *out", CS},
    /* -- shape -- */
    [F_TRIU] = {"aclnnTriu", H("triu"), "const aclTensor *self, int64_t diagonal, aclTensor *out", 0},
    [F_TRIL] = {"aclnnTril", H("tril"), "const aclTensor *self, int64_t diagonal, aclTensor *out", CS},
    [F_FLIP] = {"aclnnFlip", H("flip"), "const aclTensor *self, const aclIntArray *dims, aclTensor *out", 0},
    [F_ROLL] = {"aclnnRoll", H("roll"),
                "const aclTensor *x, const aclIntArray *shifts, const aclIntArray *dims, aclTensor *out", 0},
    [F_SLICE] = {"aclnnSlice", H("slice"),
                 "const aclTensor *self, int64_t dim, int64_t start, int64_t end, int64_t step, aclTensor *out", 0},
    /* -- comparison, selection, bool -- */
    [F_EQ_TENSOR] = {"aclnnEqTensor", H("eq_tensor"),
        "const aclTensor *self, const aclTensor *other, aclTensor *out", 0},
    [F_EQ_SCALAR] = {"aclnnEqScalar", H("eq_scalar"),
        "const aclTensor *self, const aclScalar *other, aclTensor *out", CS},
    [F_NE_TENSOR] = {"aclnnNeTensor", H("ne_tensor"),
        "const aclTensor *self, const aclTensor *other, aclTensor *out", 0},
    [F_NE_SCALAR] = {"aclnnNeScalar", H("ne_scalar"),
        "const aclTensor *self, const aclScalar *other, aclTensor *out", CS},
    [F_GT_TENSOR] = {"aclnnGtTensor", H("gt_tensor"),
        "const aclTensor *self, const aclTensor *other, aclTensor *out", 0},
    [F_GT_SCALAR] = {"aclnnGtScalar", H("gt_scalar"),
        "const aclTensor *self, const aclScalar *other, aclTensor *out", 0},
    [F_GE_TENSOR] = {"aclnnGeTensor", H("ge_tensor"),
        "const aclTensor *self, const aclTensor *other, aclTensor *out", CS},
    [F_GE_SCALAR] = {"aclnnGeScalar", H("ge_scalar"),
        "const aclTensor *self, const aclScalar *other, aclTensor *out", CS},
    [F_LT_TENSOR] = {"aclnnLtTensor", H("lt_tensor"),
        "const aclTensor *self, const aclTensor *other, aclTensor *out", 0},
    [F_LT_SCALAR] = {"aclnnLtScalar", H("lt_scalar"),
        "const aclTensor *self, const aclScalar *other, aclTensor *out", 0},
    [F_LE_TENSOR] = {"aclnnLeTensor", H("le_tensor"),
        "const aclTensor *self, const aclTensor *other, aclTensor *out", 0},
    [F_LE_SCALAR] = {"aclnnLeScalar", H("le_scalar"),
        "const aclTensor *self, const aclScalar *other, aclTensor *out", 0},
    [F_LOGICAL_AND] = {"aclnnLogicalAnd", H("logical_and"),
        "const aclTensor *self, const aclTensor *other, aclTensor *out", 0},
    [F_LOGICAL_OR] = {"aclnnLogicalOr", H("logical_or"),
        "const aclTensor *self, const aclTensor *other, aclTensor *out", 0},
    [F_LOGICAL_XOR] = {"aclnnLogicalXor", H("logical_xor"),
        "const aclTensor *self, const aclTensor *other, aclTensor *out", 0},
    [F_LOGICAL_NOT] = {"aclnnLogicalNot", H("logical_not"),
        "const aclTensor *self, aclTensor *out", 0},
    [F_BITWISE_AND_TENSOR] = {"aclnnBitwiseAndTensor", H("bitwise_and_tensor"),
        "const aclTensor *self, const aclTensor *other, aclTensor *out", 0},
    [F_BITWISE_OR_TENSOR] = {"aclnnBitwiseOrTensor", H("bitwise_or_tensor"),
        "const aclTensor *self, const aclTensor *other, aclTensor *out", 0},
    [F_BITWISE_XOR_TENSOR] = {"aclnnBitwiseXorTensor", H("bitwise_xor_tensor"),
        "const aclTensor *self, const aclTensor *other, aclTensor *out", 0},
    [F_BITWISE_NOT] = {"aclnnBitwiseNot", H("bitwise_not"),
        "const aclTensor *self, aclTensor *out", 0},
    [F_IS_INF] = {"aclnnIsInf", H("is_inf"),
        "const aclTensor *x, const aclTensor *out", 0},
    [F_IS_FINITE] = {"aclnnIsFinite", H("isfinite"),
        "const aclTensor *self, aclTensor *out", 0},
    [F_S_WHERE] = {"aclnnSWhere", H("s_where"),
        "const aclTensor *condition, const aclTensor *self, const aclTensor *other, aclTensor *out", 0},
    [F_INPLACE_MASKED_FILL_SCALAR] = {"aclnnInplaceMaskedFillScalar", H("masked_fill_scalar"),
        "aclTensor *selfRef, const aclTensor *mask, const aclScalar *value", 0},
    [F_ANY] = {"aclnnAny", H("any"),
        "const aclTensor *self, const aclIntArray *dim, bool keepdim, aclTensor *out", CS},
    [F_ALL] = {"aclnnAll", H("all"),
        "const aclTensor *self, const aclIntArray *dim, bool keepdim, aclTensor *out", CS},
    /* -- reductions, sorting, contractions -- */
    [F_AMIN] = {"aclnnAmin", H("amin"),
                "const aclTensor *self, const aclIntArray *dim, bool keepDim, aclTensor *out", 0},
    [F_ARGMAX] = {"aclnnArgMax", H("argmax"), "const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out", 0},
    [F_ARGMIN] = {"aclnnArgMin", H("argmin"), "const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out", 0},
    [F_ARGSORT] = {"aclnnArgsort", H("argsort"), "const aclTensor *self, int64_t dim, bool descending, aclTensor *out",
                   0},
    [F_CUMSUM] = {"aclnnCumsum", H("cumsum"), "const aclTensor *self, int64_t dim, aclDataType dtype, aclTensor *out",
                  0},
    [F_MAX_DIM] = {"aclnnMaxDim", H("max_dim"),
                   "const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out, aclTensor *indices", 0},
    [F_MIN_DIM] = {"aclnnMinDim", H("min_dim"),
                   "const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out, aclTensor *indices", 0},
    [F_PROD_DIM] = {"aclnnProdDim", H("prod"),
                    "const aclTensor *self, int64_t dim, bool keepDim, const aclDataType dtype, aclTensor *out", 0},
    [F_SORT] = {"aclnnSort", H("sort"),
                "const aclTensor *self, bool stable, int64_t dim, bool descending, aclTensor *valuesOut, "
                "aclTensor *indicesOut", CS},
    [F_TOPK] = {"aclnnTopk", H("topk"),
                "const aclTensor *self, int64_t k, int64_t dim, bool largest, bool sorted, aclTensor *valuesOut, "
                "aclTensor *indicesOut", CS},
    /* -- indexing and scatter -- */
    [F_GATHER] = {"aclnnGather", H("gather"),
                  "const aclTensor *self, const int64_t dim, const aclTensor *index, aclTensor *out", CS},
    [F_INDEX] = {"aclnnIndex", H("index"), "const aclTensor *self, const aclTensorList *indices, aclTensor *out", CS},
    [F_INDEX_ADD] = {"aclnnIndexAdd", H("index_add"),
                     "const aclTensor *self, const int64_t dim, const aclTensor *index, const aclTensor *source, "
                     "const aclScalar *alpha, aclTensor *out", 0},
    [F_INDEX_COPY] = {"aclnnIndexCopy", H("index_copy"),
                      "aclTensor *selfRef, int64_t dim, const aclTensor *index, const aclTensor *source, "
                      "aclTensor *outRef", 0},
    [F_INDEX_PUT_IMPL] = {"aclnnIndexPutImpl", H("index_put_impl"),
                          "aclTensor *selfRef, const aclTensorList *indices, const aclTensor *values, "
                          "const bool accumulate, const bool unsafe", 0},
    [F_INDEX_SELECT] = {"aclnnIndexSelect", H("index_select"),
                        "const aclTensor *self, int64_t dim, const aclTensor *index, aclTensor *out", CS},
    [F_SCATTER] = {"aclnnScatter", H("scatter"),
                   "const aclTensor *self, int64_t dim, const aclTensor *index, const aclTensor *src, int64_t reduce, "
                   "aclTensor *out", CS},
    [F_SCATTER_ADD] = {"aclnnScatterAdd", H("scatter_add"),
                       "const aclTensor *self, int64_t dim, const aclTensor *index, const aclTensor *src, "
                       "aclTensor *out", CS},
    [F_SCATTER_VALUE] = {"aclnnScatterValue", H("scatter"),
                         "const aclTensor *self, int64_t dim, const aclTensor *index, const aclScalar *value, "
                         "int64_t reduce, aclTensor *out", CS},
    /* -- neural net -- */
    [F_CONVOLUTION] = {"aclnnConvolution", H("convolution"),
                       "const aclTensor *input, const aclTensor *weight, const aclTensor *bias, "
                       "const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation, "
                       "bool transposed, const aclIntArray *outputPadding, const int64_t groups, "
                       "aclTensor *output, int8_t cubeMathType", 0},
    [F_BATCH_NORM] = {"aclnnBatchNorm", H("batch_norm"),
                      "const aclTensor *input, const aclTensor *weight, const aclTensor *bias, "
                      "aclTensor *runningMean, aclTensor *runningVar, bool training, double momentum, "
                      "double eps, aclTensor *output, aclTensor *saveMean, aclTensor *saveInvstd", 0},
    [F_GROUP_NORM] = {"aclnnGroupNorm", H("group_norm"),
                      "const aclTensor *self, const aclTensor *gamma, const aclTensor *beta, int64_t N, "
                      "int64_t C, int64_t HxW, int64_t group, double eps, aclTensor *out, "
                      "aclTensor *meanOut, aclTensor *rstdOut", 0},
    [F_MAX_POOL] = {"aclnnMaxPool", H("max_pool"),
                    "const aclTensor *self, const aclIntArray *kernelShape, const aclIntArray *strides, "
                    "const int64_t autoPad, const aclIntArray *pads, const aclIntArray *dilations, "
                    "const int64_t ceilMode, aclTensor *out", 0},
    [F_AVG_POOL2D] = {"aclnnAvgPool2d", H("avgpool2d"),
                      "const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *strides, "
                      "const aclIntArray *paddings, const bool ceilMode, const bool countIncludePad, "
                      "const int64_t divisorOverride, const int8_t cubeMathType, aclTensor *out", 0},
    [F_ADAPTIVE_AVG_POOL2D] = {"aclnnAdaptiveAvgPool2d", H("adaptive_avg_pool2d"),
                               "const aclTensor *self, const aclIntArray *outputSize, aclTensor *out", CS},
    [F_ADAPTIVE_MAX_POOL2D] = {"aclnnAdaptiveMaxPool2d", H("adaptive_max_pool2d"),
                               "const aclTensor *self, const aclIntArray *outputSize, aclTensor *outputOut, "
                               "aclTensor *indicesOut", 0},
    [F_UPSAMPLE_NEAREST2D_V2] = {"aclnnUpsampleNearest2dV2", H("upsample_nearest_2d_v2"),
                                 "const aclTensor *self, const aclIntArray *outputSize, float scalesH, "
                                 "float scalesW, aclTensor *out", 0},
    [F_UPSAMPLE_BILINEAR2D] = {"aclnnUpsampleBilinear2d", H("upsample_bilinear_2d"),
                               "const aclTensor *self, const aclIntArray *outputSize, const bool alignCorners, "
                               "const double scalesH, const double scalesW, aclTensor *out", 0},
    /* -- torch_npu fused ops -- */
    /* CANN 8.3 and later (not in 8.1.RC1: tests/acl/real_cann.sh cannot check it) */
    [F_MOE_GATING_TOP_K] = {"aclnnMoeGatingTopK", H("moe_gating_top_k"),
                            "const aclTensor *x, const aclTensor *biasOptional, int64_t k, int64_t kGroup, "
                            "int64_t groupCount, int64_t groupSelectMode, int64_t renorm, int64_t normType, "
                            "bool outFlag, double routedScalingFactor, double eps, const aclTensor *yOut, "
                            "const aclTensor *expertIdxOut, const aclTensor *outOut", 0},
    [F_ADD_RMS_NORM] = {"aclnnAddRmsNorm", H("add_rms_norm"),
                        "const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma, double epsilon, "
                        "const aclTensor *yOut, const aclTensor *rstdOut, const aclTensor *xOut", 0},
    /* CANN 8.2 and later (not in 8.1.RC1: tests/acl/real_cann.sh cannot check it) */
    [F_ROTARY_POSITION_EMBEDDING] = {"aclnnRotaryPositionEmbedding", H("rotary_position_embedding"),
                                     "const aclTensor *x, const aclTensor *cos, const aclTensor *sin, "
                                     "int64_t mode, aclTensor *out", 0},
    [F_DYNAMIC_QUANT] = {"aclnnDynamicQuant", H("dynamic_quant"),
                         "const aclTensor *x, const aclTensor *smoothScalesOptional, const aclTensor *yOut, "
                         "const aclTensor *scaleOut", 0},
    [F_MOE_GATING_TOP_K_SOFTMAX] = {"aclnnMoeGatingTopKSoftmax", H("moe_gating_top_k_softmax"),
                                    "const aclTensor *x, const aclTensor *finishedOptional, int64_t k, "
                                    "const aclTensor *yOut, const aclTensor *expertIdxOut, "
                                    "const aclTensor *rowIdxOut", 0},
    [F_FUSED_INFER_ATTENTION_SCORE] = {"aclnnFusedInferAttentionScore", H("fused_infer_attention_score"),
        "const aclTensor *query, const aclTensorList *key, const aclTensorList *value, "
        "const aclTensor *pseShift, const aclTensor *attenMask, const aclIntArray *actualSeqLengths, "
        "const aclIntArray *actualSeqLengthsKv, const aclTensor *deqScale1, const aclTensor *quantScale1, "
        "const aclTensor *deqScale2, const aclTensor *quantScale2, const aclTensor *quantOffset2, "
        "const aclTensor *antiquantScale, const aclTensor *antiquantOffset, const aclTensor *blockTable, "
        "const aclTensor *queryPaddingSize, const aclTensor *kvPaddingSize, int64_t numHeads, "
        "double scaleValue, int64_t preTokens, int64_t nextTokens, char *inputLayout, "
        "int64_t numKeyValueHeads, int64_t sparseMode, int64_t innerPrecise, int64_t blockSize, "
        "int64_t antiquantMode, bool softmaxLseFlag, const aclTensor *attentionOut, "
        "const aclTensor *softmaxLse", CS},
    [F_INPLACE_SCATTER_UPDATE] = {"aclnnInplaceScatterUpdate", H("scatter_update"),
                                  "aclTensor *data, const aclTensor *indices, const aclTensor *updates, "
                                  "int64_t axis", 0},
    [F_SCATTER_ND_UPDATE] = {"aclnnScatterNdUpdate", H("scatter_nd_update"),
                             "aclTensor *varRef, const aclTensor *indices, const aclTensor *updates", 0},
};

/* ---- the op table --------------------------------------------------------------- */

/* The ACL columns of ops.def: one call per form of the op. */
#define ACL(f, args) &acl_fns[F_##f], args, NULL
#define ACL_THEN(f, args, second) &acl_fns[F_##f], args, &second
/* no aclnn call: sources and views, which need no code */
#define ACL_NOCALL NULL, ACL_NONE, NULL
#define NO_ACL NULL, NULL, NULL

/* The second call of a scalar divided by a tensor (ops.def's DIV row). */
static const AclOp acl_div_scale = {OP_DIV, ACL_V_SCALAR_TENSOR, &acl_fns[F_INPLACE_MULS], "o0 f0", NULL};

static const AclOp acl_ops[OP__count][ACL_V_OTHER] = {
#define OP(e, name, flags, in_min, in_max, in_opt, attr_min, attr_max, rule, dtype_rule, rowrule, printer, fusion, op_type, view, layout, swap, acl_form, cpu, cpu_scalar, acl, acl_ts, acl_st, attrs) \
    [OP_##e] = {[ACL_V_PLAIN] = {OP_##e, ACL_V_PLAIN, acl},                 \
                [ACL_V_TENSOR_SCALAR] = {OP_##e, ACL_V_TENSOR_SCALAR, acl_ts}, \
                [ACL_V_SCALAR_TENSOR] = {OP_##e, ACL_V_SCALAR_TENSOR, acl_st}},
#include "../ir/ops.def"
#undef OP
};

/* ---- op types ------------------------------------------------------------------- */

/* The op type of each kind in the static-kernel manifests (and the plan's
 * static-kernel keys), as GE names them: ops.def's op type column. */
static const char *const acl_op_types[OP__count] = {
#define OP(e, name, flags, in_min, in_max, in_opt, attr_min, attr_max, rule, dtype_rule, rowrule, printer, fusion, op_type, view, layout, swap, acl_form, cpu, cpu_scalar, acl, acl_ts, acl_st, attrs) \
    [OP_##e] = op_type,
#include "../ir/ops.def"
#undef OP
};

const char *acl_op_type_of_kind(OpKind kind)
{
    return (unsigned)kind < OP__count ? acl_op_types[kind] : NULL;
}

const char *codegen_op_type(const Graph *g, int32_t op)
{
    const Op *o = &g->ops.v[op];
    if (o->kind == OP_MATMUL && o->nin == 2 && o->in[0] >= 0 && o->in[1] >= 0 &&
        g->vals.v[o->in[0]].ndim <= 2 && g->vals.v[o->in[1]].ndim <= 2)
        return "MatMulV2";
    const char *t = acl_op_type_of_kind(o->kind);
    if (!t)
        TNGC_BUG("acl_ops.c: no op type for %s", op_info[o->kind].name);
    return t;
}

/* The dtype names of the static-kernel manifests (and the plan's static-kernel
 * keys), as GE names them. */
static const char *const acl_dtype_names[DT__count] = {
    [DT_UNKNOWN] = "?", [DT_F32] = "float", [DT_F16] = "float16", [DT_BF16] = "bfloat16",
    [DT_I8] = "int8", [DT_I32] = "int32", [DT_I64] = "int64", [DT_BOOL] = "bool",
};

const char *codegen_dtype_name(DType t)
{
    return acl_dtype_names[(unsigned)t < DT__count ? t : DT_UNKNOWN];
}

/* ---- forms ---------------------------------------------------------------- */

/* Each form rule (ops.def's ACL form column, ACL_FORM(rule)) is
 * acl_form__<rule>: which form of the op's row op is (ACL_V_OTHER and *why
 * when aclnn computes none of them). */

/* the plain form: one aclnn call */
static AclVariant acl_form__plain(const Graph *g, const Op *op, const char **why)
{
    (void)g, (void)op, (void)why;
    return ACL_V_PLAIN;
}

/* add, sub, mul, div: tensor op tensor, tensor op scalar, scalar op tensor */
static AclVariant acl_form__arith(const Graph *g, const Op *op, const char **why)
{
    if (op->attr[0] == 0)
        return ACL_V_PLAIN;
    if (op->attr[0] == 1)
        return ACL_V_TENSOR_SCALAR;
    /* scalar op tensor: s + t and s * t commute (alpha 1) */
    if ((op->kind == OP_ADD && op->fattr[1] == 1.0) || op->kind == OP_MUL)
        return ACL_V_TENSOR_SCALAR;
    if (op->kind == OP_SUB)
        return ACL_V_SCALAR_TENSOR;
    /* s / x: aclnnReciprocal, then aclnnInplaceMuls (x float, as out) */
    if (op->kind == OP_DIV && g->vals.v[op->in[0]].dtype == g->vals.v[op->out].dtype)
        return ACL_V_SCALAR_TENSOR;
    *why = op->kind == OP_DIV ? "a scalar divided by a tensor of integers: aclnnReciprocal takes float "
                                "tensors"
                              : "a scalar plus alpha times a tensor, alpha not 1";
    return ACL_V_OTHER;
}

/* tensor ** tensor, or scalar ** tensor */
static AclVariant acl_form__pow_t(const Graph *g, const Op *op, const char **why)
{
    (void)g, (void)why;
    return op->attr[0] == 0 ? ACL_V_PLAIN : ACL_V_SCALAR_TENSOR;
}

/* linear with a bias, or without */
static AclVariant acl_form__linear(const Graph *g, const Op *op, const char **why)
{
    (void)g, (void)why;
    return op->nin > 2 && op->in[2] >= 0 ? ACL_V_TENSOR_SCALAR : ACL_V_PLAIN;
}

/* a comparison with a tensor, or with a scalar */
static AclVariant acl_form__compare(const Graph *g, const Op *op, const char **why)
{
    (void)g, (void)why;
    return op->nin > 1 && op->in[1] >= 0 ? ACL_V_PLAIN : ACL_V_TENSOR_SCALAR;
}

/* indexing and scatter: a scalar src is aclnnScatterValue */
static AclVariant acl_form__scatter(const Graph *g, const Op *op, const char **why)
{
    (void)g, (void)why;
    return op->nin > 2 && op->in[2] >= 0 ? ACL_V_PLAIN : ACL_V_TENSOR_SCALAR;
}

/* after leading ':' the values move with the indexed dims: all or none */
static AclVariant acl_form__index_put(const Graph *g, const Op *op, const char **why)
{
    int nv = g->vals.v[op->in[1]].ndim, nd = g->vals.v[op->in[0]].ndim, k = (int)op->nin - 2, bn = 0;
    for (uint32_t j = 2; j < op->nin; j++)
        bn = g->vals.v[op->in[j]].ndim > bn ? g->vals.v[op->in[j]].ndim : bn;
    if (op->attr[0] > 0 && nv > nd - (int)op->attr[0] - k && nv != nd - k + bn) {
        *why = "index_put after leading ':' with values that broadcast over the leading dims";
        return ACL_V_OTHER;
    }
    return ACL_V_PLAIN;
}

/* The neural net family's forms no aclnn operator computes: attention
 * (CANN's fused attention operators take layouts and sequence-length lists
 * of their own, not PyTorch's SDPA), and convolution padded unequally
 * before and after (padding="same" with an even kernel). */
static AclVariant acl_form__nn(const Graph *g, const Op *op, const char **why)
{
    (void)g;
    if (op->kind == OP_SDPA) {
        *why = "scaled_dot_product_attention: no aclnn operator computes it as PyTorch defines it "
               "(aclnnFusedInferAttentionScore takes float16/bfloat16 only, a bool mask of the opposite "
               "sense and is_causal only as a mask tensor; use torch_npu.npu_fused_infer_attention_score, "
               "or matmul and softmax)";
        return ACL_V_OTHER;
    }
    if (op->attr[3] != op->attr[5] || op->attr[4] != op->attr[6]) {
        *why = "a convolution padded unequally before and after (padding=\"same\" with an even "
               "kernel): aclnnConvolution pads both sides alike";
        return ACL_V_OTHER;
    }
    return ACL_V_PLAIN;
}

/* fused attention: sequence lengths as host arrays only */
static AclVariant acl_form__fused_attention(const Graph *g, const Op *op, const char **why)
{
    (void)g;
    if (op->nin > 5 && (op->in[5] >= 0 || (op->nin > 6 && op->in[6] >= 0))) {
        *why = "actual sequence lengths given as tensors: aclnnFusedInferAttentionScore takes them "
               "as host int arrays (pass a list)";
        return ACL_V_OTHER;
    }
    return ACL_V_PLAIN;
}

/* softmax, log_softmax: the input's dtype kept */
static AclVariant acl_form__softmax(const Graph *g, const Op *op, const char **why)
{
    if (g->vals.v[op->out].dtype != g->vals.v[op->in[0]].dtype) {
        *why = "a softmax that also casts (dtype=): aclnnSoftmax keeps its input's dtype";
        return ACL_V_OTHER;
    }
    return ACL_V_PLAIN;
}

static AclVariant (*const acl_forms[OP__count])(const Graph *g, const Op *op, const char **why) = {
#define OP(e, name, flags, in_min, in_max, in_opt, attr_min, attr_max, rule, dtype_rule, rowrule, printer, fusion, op_type, view, layout, swap, acl_form, cpu, cpu_scalar, acl, acl_ts, acl_st, attrs) \
    [OP_##e] = acl_form,
#define ACL_FORM(rule) acl_form__##rule
#include "../ir/ops.def"
#undef ACL_FORM
#undef OP
};

AclVariant acl_op_variant(const Graph *g, const Op *op, const char **why)
{
    *why = NULL;
    return acl_forms[op->kind](g, op, why);
}

const AclOp *acl_op_find(OpKind kind, AclVariant variant)
{
    if ((unsigned)kind >= OP__count || (unsigned)variant >= ACL_V_OTHER)
        return NULL;
    const AclOp *row = &acl_ops[kind][variant];
    return row->fn ? row : NULL;
}

int acl_op_has_row(OpKind kind)
{
    return (unsigned)kind < OP__count && acl_ops[kind][ACL_V_PLAIN].args != NULL;
}

int acl_fn_nparams(const AclFn *fn)
{
    int n = 1;
    for (const char *c = fn->params; *c; c++)
        n += *c == ',';
    return n;
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
