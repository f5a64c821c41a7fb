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
 *   list  the inputs as an aclTensorList (aclnnStack inserts the new dim)
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
 *   a:q a:k a:v a:o  an attention's query, key, value and output in
 *         float32: the op's own (float32 operands), else scratch copies
 *   a:kt  a:k with its last two dims swapped (a view)
 *   a:s1 a:s2  an attention's two scratch score tensors [q's leading dims, L, S]
 *   a:b0 a:b1  its two scratch bias tensors: [L, S] (is_causal), or the
 *         bool mask's shape; all scratch is float32
 *   a:scale  the attention's scale (attr[1]: fattr[0], else 1/sqrt(E));
 *         a:ninf, a:zero  -inf and 0 as aclScalars
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

/* Every aclnn operator the op table uses: the rows of aclnn.def, as the
 * F_<enum> names ops.def's ACL cells use and the table of declarations. */
enum {
#define ACLNN(e, fn, header, params, stream) F_##e,
#include "aclnn.def"
#undef ACLNN
    F_COUNT
};

#define UNARY "const aclTensor *self, aclTensor *out"
#define BINARY_ALPHA(other) "const aclTensor *self, const " other " *other, const aclScalar *alpha, aclTensor *out"
#define BINARY(other) "const aclTensor *self, const " other " *other, aclTensor *out"
#define MATMUL "const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cubeMathType"
#define CS 1
#define NO_CS 0

static const AclFn acl_fns[F_COUNT] = {
#define ACLNN(e, fn, header, params, stream) [F_##e] = {fn, "aclnnop/aclnn_" header ".h", params, stream},
#include "aclnn.def"
#undef ACLNN
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

/* scaled_dot_product_attention as the aclnn operators of PyTorch's
 * definition of it (its documentation's reference code): scores = q @ k^T
 * (aclnnMatmul, k viewed with its last two dims swapped, leading dims
 * broadcast), times the scale (aclnnInplaceMuls), plus the mask's bias
 * (aclnnAdd), softmax over the last dim (aclnnSoftmax), @ v (aclnnMatmul).
 * A bool mask and is_causal become PyTorch's bias of zeros and -inf:
 * filled with -inf, then zero where the mask is True
 * (aclnnInplaceMaskedFillScalar), or kept above the diagonal only
 * (aclnnTriu, diagonal 1: the keys j > i that query i must not see, top-left
 * aligned). Every step is float32, as the CPU kernel computes it: float16
 * and bfloat16 operands are cast to float32 first and the result cast back
 * once (aclnnCast). The scores, the bias and those copies are the op's
 * scratch ("a:" tokens, emit_acl.c). aclnnFusedInferAttentionScoreV2 is
 * not used: CANN's reference of it lists float16, bfloat16 and int8 query
 * dtypes (no float32), reads a bool attenMask as True = masked out (the
 * opposite of PyTorch's attn_mask) and takes a causal mask only as such a
 * mask tensor with its sparseMode. */
#define SDPA(f, args, next) {OP_SDPA, ACL_V_PLAIN, &acl_fns[F_##f], args, next}
/* the chain from the scores on, in float32; c: the chain (0-3, the form), h:
 * 1 when the operands are cast to float32 first and the result back */
#define SDPA_CHAIN(c, h, ...)                                                  \
    static const AclOp acl_sdpa_##c##h[] = {                                \
        SDPA(CAST, "i0 =ACL_FLOAT a:q", &acl_sdpa_##c##h[1]),               \
        SDPA(CAST, "i1 =ACL_FLOAT a:k", &acl_sdpa_##c##h[2]),               \
        SDPA(CAST, "i2 =ACL_FLOAT a:v", &acl_sdpa_##c##h[3]),               \
        SDPA(MATMUL, "a:q a:kt a:s1 =0", &acl_sdpa_##c##h[4]),              \
        SDPA(INPLACE_MULS, "a:s1 a:scale", &acl_sdpa_##c##h[5]),            \
        __VA_ARGS__,                                                        \
        SDPA(CAST, "a:o dt o0", NULL)}
/* the scores softmaxed from a:s1 (n1 = 1) or a:s2 into the other, @ v */
#define SDPA_OUT(c, h, k, n1, last)                                                              \
    SDPA(SOFTMAX, n1 ? "a:s1 =-1 a:s2" : "a:s2 =-1 a:s1", &acl_sdpa_##c##h[k + 1]),             \
        SDPA(MATMUL, n1 ? "a:s2 a:v a:o =0" : "a:s1 a:v a:o =0", last ? NULL : &acl_sdpa_##c##h[k + 2])
SDPA_CHAIN(0, 0, SDPA_OUT(0, 0, 5, 1, 1));
SDPA_CHAIN(0, 1, SDPA_OUT(0, 1, 5, 1, 0));
SDPA_CHAIN(1, 0, SDPA(ADD, "a:s1 i3 one a:s2", &acl_sdpa_10[6]), SDPA_OUT(1, 0, 6, 0, 1));
SDPA_CHAIN(1, 1, SDPA(ADD, "a:s1 i3 one a:s2", &acl_sdpa_11[6]), SDPA_OUT(1, 1, 6, 0, 0));
#define SDPA_KEEP(h)                                                                 \
    SDPA(INPLACE_FILL_SCALAR, "a:b1 a:ninf", &acl_sdpa_2##h[6]),                     \
        SDPA(INPLACE_MASKED_FILL_SCALAR, "a:b1 i3 a:zero", &acl_sdpa_2##h[7]),       \
        SDPA(ADD, "a:s1 a:b1 one a:s2", &acl_sdpa_2##h[8]), SDPA_OUT(2, h, 8, 0, !h)
#define SDPA_CAUSAL(h)                                                               \
    SDPA(INPLACE_FILL_SCALAR, "a:b0 a:ninf", &acl_sdpa_3##h[6]),                     \
        SDPA(TRIU, "a:b0 =1 a:b1", &acl_sdpa_3##h[7]),                               \
        SDPA(ADD, "a:s1 a:b1 one a:s2", &acl_sdpa_3##h[8]), SDPA_OUT(3, h, 8, 0, !h)
SDPA_CHAIN(2, 0, SDPA_KEEP(0));
SDPA_CHAIN(2, 1, SDPA_KEEP(1));
SDPA_CHAIN(3, 0, SDPA_CAUSAL(0));
SDPA_CHAIN(3, 1, SDPA_CAUSAL(1));
/* per form and cast: the first call (float32 operands: from the scores) */
static const AclOp *const acl_sdpa_first[4][2] = {
    {&acl_sdpa_00[3], &acl_sdpa_01[0]}, {&acl_sdpa_10[3], &acl_sdpa_11[0]},
    {&acl_sdpa_20[3], &acl_sdpa_21[0]}, {&acl_sdpa_30[3], &acl_sdpa_31[0]}};

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

/* The neural net family's forms: attention is its chain of calls
 * (acl_op_sdpa); convolution padded unequally before and after
 * (padding="same" with an even kernel) has none. */
static AclVariant acl_form__nn(const Graph *g, const Op *op, const char **why)
{
    (void)g;
    if (op->kind == OP_SDPA)
        return ACL_V_PLAIN;
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

/* the collectives (--world-size): no aclnn row; emit_acl.c issues them as
 * HCCL calls (acl__hccl) and never asks this table for them */
static AclVariant acl_form__collective(const Graph *g, const Op *op, const char **why)
{
    (void)g, (void)op;
    *why = "a collective: emit_acl.c issues it as an HCCL call";
    return ACL_V_OTHER;
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

/* Whether values a and b have the same dims (the same DimIds). */
static int acl__same_dims(const Val *a, const Val *b)
{
    if (a->ndim != b->ndim)
        return 0;
    for (uint32_t i = 0; i < a->ndim; i++)
        if (a->dims[i] != b->dims[i])
            return 0;
    return 1;
}

/* npu_weight_quant_batchmatmul: aclnnWeightQuantBatchMatmulV2 with no
 * output quantisation (quantScaleOptional, quantOffsetOptional NULL), as
 * CANN's aclnn reference of the operator documents it (8.1.RC1):
 * y = x @ ((weight + antiquantOffset) * antiquantScale) + bias, y of x's
 * dtype; antiquantScale and antiquantOffsetOptional of x's dtype, the
 * offset of the scale's shape; biasOptional float16 with a float16 x and
 * float32 with a bfloat16 x; antiquantGroupSize 0 (per tensor or per
 * column) or a multiple of 32 in [32, k - 1]. The scale's and offset's
 * dtype is x's already (ir/infer.c); the CPU kernel also takes an offset
 * of another shape than the scale's, a bias of any float dtype and a group
 * size of k or more (one group): those cases are refused here. */
static AclVariant acl_form__weight_quant(const Graph *g, const Op *op, const char **why)
{
    const Val *x = &g->vals.v[op->in[0]], *scale = &g->vals.v[op->in[2]];
    const Val *off = op->in[3] >= 0 ? &g->vals.v[op->in[3]] : NULL;
    const Val *bias = op->in[4] >= 0 ? &g->vals.v[op->in[4]] : NULL;
    int64_t k = 0, group = op->attr[0];
    if (off && !acl__same_dims(off, scale)) {
        *why = "npu_weight_quant_batchmatmul with an antiquant_offset of another shape than antiquant_scale: "
               "aclnnWeightQuantBatchMatmulV2 takes them of one shape";
        return ACL_V_OTHER;
    }
    if (bias && bias->dtype != (x->dtype == DT_F16 ? DT_F16 : DT_F32)) {
        *why = "npu_weight_quant_batchmatmul with a bias of another dtype than float16 (x float16) or "
               "float32 (x bfloat16): aclnnWeightQuantBatchMatmulV2 takes no other";
        return ACL_V_OTHER;
    }
    if (group != 0 && (group % 32 != 0 || !graph_dim_const_value(g, x->dims[1], &k) || group >= k)) {
        *why = "npu_weight_quant_batchmatmul with an antiquant_group_size that is not a multiple of 32 "
               "below k: aclnnWeightQuantBatchMatmulV2 takes no other group size";
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

const AclOp *acl_op_sdpa(const Graph *g, const Op *op)
{
    int32_t mask = op->nin > 3 ? op->in[3] : -1;
    int form = mask >= 0 ? (g->vals.v[mask].dtype == DT_BOOL ? 2 : 1) : op->attr[0] ? 3 : 0;
    return acl_sdpa_first[form][g->vals.v[op->in[0]].dtype != DT_F32];
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
