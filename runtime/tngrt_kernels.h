/*
 * tngrt_kernels.h - the CPU kernels of libtngcrt, one per operator family
 * of tngc (docs/architecture.md), called by generated bundle code.
 *
 * Conventions shared by every kernel:
 * - Every tensor argument is a TngrtArg: a dense C-order buffer with a
 *   dtype and a shape. Generated code never passes strided views: the
 *   planner gives every value a contiguous buffer of its own, or the
 *   buffer of the value it aliases (reshape, contiguous, format_cast);
 *   tngrt_kernel_matmul_strided alone takes element strides beside them.
 * - `out` comes first. Its shape and dtype are the ones the planner
 *   inferred; kernels trust them (the planner checked them) but never read
 *   or write outside the buffers the shapes describe.
 * - Inputs may have a dtype other than out's: each element is converted
 *   to the compute type, computed, and rounded once to out's dtype. The
 *   compute type is float (binary32) when out is a floating dtype (half
 *   types compute in float and round per op, as PyTorch's CPU does) and
 *   int64 when out is an integer or bool dtype (wrapping to out's width).
 *   Float to integer conversion truncates toward zero, as torch's .to()
 *   does; values out of range of the integer type are unspecified but
 *   never undefined behaviour. Anything to bool is (x != 0).
 * - Elementwise kernels allow out->data == an input's data when the two
 *   have the same shape (in-place reuse by the memory planner).
 * - Kernels never allocate on the heap except matmul's conversion buffers
 *   for half and integer types and the float32 scratch of conv and sdpa
 *   (each falls back to a direct loop when malloc fails), and return -1
 *   only where documented.
 * - A kernel that fails sets err->kind: TNGRT_ERR_BAD_INPUT when values in
 *   the data are invalid for the op (an embedding id, group counts), which
 *   tngrt_bundle_run reports as TNGRT_BAD_INPUT; TNGRT_ERR_FAILURE else.
 * - Matmuls call CBLAS (OpenBLAS) for float32; half types convert to
 *   float32, multiply, and round once; integer matmuls accumulate in int64.
 *
 * Two forms: every kernel body is a static inline function in
 * tngrt_kernel_impl.h named tngrt_impl_<kernel>, with the same parameters.
 * kernels.c instantiates them as the generic functions below (shapes read
 * at run time); generated code for static kernels includes the impl
 * header and calls the inline bodies with shapes that are compile-time
 * constants, so the compiler specialises the loops.
 */
#ifndef TNGRT_KERNELS_H
#define TNGRT_KERNELS_H

#include "tngrt.h"

/* A dense C-order operand: ndim extents in shape (ndim 0 is a scalar with
 * one element). */
typedef struct TngrtArg {
    void *data;
    TngrtDType dtype;
    int ndim;
    const int64_t *shape;
} TngrtArg;

/* The elementwise ops, in the order of tngrt_impl_eltwise.h's rows (their
 * semantics are there). */
typedef enum TngrtUnaryOp {
#define TNGRT_UNARY(name, f, i) TNGRT_UN_##name,
#define TNGRT_BINARY(name, f, i)
#include "tngrt_impl_eltwise.h"
#undef TNGRT_UNARY
#undef TNGRT_BINARY
} TngrtUnaryOp;

typedef enum TngrtBinaryOp {
#define TNGRT_UNARY(name, f, i)
#define TNGRT_BINARY(name, f, i) TNGRT_BIN_##name,
#include "tngrt_impl_eltwise.h"
#undef TNGRT_UNARY
#undef TNGRT_BINARY
} TngrtBinaryOp;

typedef enum TngrtReduceOp {
    TNGRT_RED_SUM,       /* float out: float accumulation; integer: int64 */
    TNGRT_RED_MEAN,
    TNGRT_RED_AMAX,      /* float: NaN propagates as in torch.amax */
    TNGRT_RED_AMIN,      /* as AMAX: the smallest, NaN propagating */
    TNGRT_RED_PROD,      /* float: float product; integer: int64, wrapping */
} TngrtReduceOp;

/* ---- elementwise ---- */

/* out = op(x), same shape; p is POW's exponent, LEAKY_RELU's slope
 * (ignored otherwise). */
void tngrt_kernel_unary(const TngrtArg *out, const TngrtArg *x, TngrtUnaryOp op, double p);

/* The same with a second parameter q (SOFTPLUS: p beta, q threshold;
 * CLAMP: p min, q max). */
void tngrt_kernel_unary2(const TngrtArg *out, const TngrtArg *x, TngrtUnaryOp op, double p,
                         double q);

/* out = a op b with NumPy broadcasting: a and b have ranks <= out's and are
 * right-aligned with it; each of their dims equals out's or is 1. */
void tngrt_kernel_binary(const TngrtArg *out, const TngrtArg *a, const TngrtArg *b,
                         TngrtBinaryOp op, double alpha);

/* out = x op s (scalar_first 0) or s op x (scalar_first 1), x of out's
 * shape; for ADD/SUB alpha multiplies the second operand. */
void tngrt_kernel_binary_scalar(const TngrtArg *out, const TngrtArg *x, double s,
                                int scalar_first, TngrtBinaryOp op, double alpha);

/* Every element of out = v (converted to out's dtype). */
void tngrt_kernel_fill(const TngrtArg *out, double v);

/* out = x broadcast to out's shape (as tngrt_kernel_binary broadcasts)
 * and converted to out's dtype: clone, copy_, materialised expands. */
void tngrt_kernel_copy(const TngrtArg *out, const TngrtArg *x);

/* ---- contractions ---- */

/* torch.matmul: 1-D operands are promoted and the added dim removed,
 * batch dims broadcast; covers mm ([m,k]@[k,n]) and bmm. */
void tngrt_kernel_matmul(const TngrtArg *out, const TngrtArg *a, const TngrtArg *b);

/* out[m,n] = beta * bias (broadcast to [m,n]) + alpha * (a[m,k] @ b[k,n]). */
void tngrt_kernel_addmm(const TngrtArg *out, const TngrtArg *bias, const TngrtArg *a,
                        const TngrtArg *b, double beta, double alpha);

/* out[..., n] = x[..., k] @ w[n, k]^T (+ bias[n] when bias is not NULL). */
void tngrt_kernel_linear(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                         const TngrtArg *bias);

/* ---- data movement ---- */

/* out = x.permute(perm) materialised; perm has x->ndim entries. */
void tngrt_kernel_permute(const TngrtArg *out, const TngrtArg *x, const int64_t *perm);

/* out = x[..., start:end:step, ...] along dim, with Python's slice rules:
 * start and end may be negative (from the end) or out of range (clamped);
 * end == INT64_MAX means "to the end"; step > 0. */
void tngrt_kernel_slice(const TngrtArg *out, const TngrtArg *x, int dim,
                        int64_t start, int64_t end, int64_t step);

/* out = x.select(dim, index); index < 0 counts from the end. Returns 0, or
 * -1 with a message in err when index is out of range. */
int tngrt_kernel_select(const TngrtArg *out, const TngrtArg *x, int dim, int64_t index,
                        TngrtError *err);

/* dst[..., start:end:step, ...] = src along dim (slice rules as above);
 * src is broadcast to the slice's shape and converted to dst's dtype. */
void tngrt_kernel_slice_store(const TngrtArg *dst, const TngrtArg *src, int dim,
                              int64_t start, int64_t end, int64_t step);

/* out = torch.cat(xs[0..n), dim). stack is cat of operands whose shapes
 * have a 1 inserted at dim (the generated code passes those shapes). */
void tngrt_kernel_cat(const TngrtArg *out, const TngrtArg *const *xs, int n, int dim);

/* ---- reductions and normalisations ---- */

/* Reduces x over the dims whose bit is set in dims_mask (bit d = dim d of
 * x). out has x's rank with those dims 1 (keepdim) or x's rank minus the
 * number of reduced dims; the kernel tells them apart by out->ndim.
 * Reducing no elements gives 0 (sum), NaN (mean), -inf (float amax) or 0
 * (integer amax); an integer mean truncates. */
void tngrt_kernel_reduce(const TngrtArg *out, const TngrtArg *x, TngrtReduceOp op,
                         uint32_t dims_mask);

/* out = softmax(x, dim) or log_softmax (log != 0), computed in float with
 * the maximum subtracted. */
void tngrt_kernel_softmax(const TngrtArg *out, const TngrtArg *x, int dim, int log);

/* Layer norm over the last nnorm dims of x; w and b (NULL when absent) have
 * those dims' shape. Biased variance, eps inside the square root. */
void tngrt_kernel_layer_norm(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                             const TngrtArg *b, int nnorm, double eps);

/* torch_npu.npu_rms_norm: over the last gamma->ndim dims of x,
 * rstd = 1 / sqrt(mean(x^2) + eps) (float32, x's shape with those dims 1),
 * y = x * rstd * gamma (x's dtype). */
void tngrt_kernel_rms_norm(const TngrtArg *y, const TngrtArg *rstd, const TngrtArg *x,
                           const TngrtArg *gamma, double eps);

/* out[ids..., h] = weight[ids[...], h]. Returns 0, or -1 with a message in
 * err (kind TNGRT_ERR_BAD_INPUT) when an id is negative or >= weight's rows. */
int tngrt_kernel_embedding(const TngrtArg *out, const TngrtArg *weight, const TngrtArg *ids,
                           TngrtError *err);

/* ---- torch_npu fused operators (semantics of torch_npu's documentation) ---- */

/* npu_quant_matmul(x1 int8 [.., m, k], x2 int8 [.., k, n], scale, offset,
 * bias, pertoken_scale, output_dtype) as tests/ref/stubs/torch_npu computes
 * it: exact integer accumulation (batch dims broadcast), + bias when bias
 * is int32, then
 * - int8 out: round-half-even(acc * scale + offset) saturated to int8;
 * - int32 out: the accumulator (scale may be NULL);
 * - float16/bfloat16/float32 out: acc * scale [* pertoken_scale per row]
 *   [+ bias when bias is a float type] (offset unused), in double, rounded
 *   to float32 and then to out's dtype.
 * scale may be int64 holding a float32 bit pattern in its low 32 bits
 * (npu_trans_quant_param). scale, offset and bias broadcast to out's shape,
 * pertoken_scale to out's shape without its last dim. Absent operands are
 * NULL. Returns 0, or -1 with a message in err when x1 or x2 is not int8,
 * out's dtype is none of the above, scale is missing or an operand does
 * not broadcast. */
int tngrt_kernel_quant_matmul(const TngrtArg *out, const TngrtArg *x1, const TngrtArg *x2,
                              const TngrtArg *scale, const TngrtArg *offset,
                              const TngrtArg *bias, const TngrtArg *pertoken_scale,
                              TngrtError *err);

/* npu_weight_quant_batchmatmul(x [m, k] float16/bfloat16, weight int8
 * [k, n], antiquant_scale, antiquant_offset, bias, antiquant_group_size)
 * into out [m, n] of x's dtype: with g = group (0, or g >= k: one group of
 * all of k), out[r][c] = sum over groups G of scale[G][c] * (sum over k in
 * G of x[r][k] * w[k][c] + offset[G][c] * sum over k in G of x[r][k])
 * [+ bias[c]], in float32 (tngrt_impl_q8.h gives the order), rounded once
 * to out's dtype. scale and offset (float, offset may be NULL) hold one
 * value, one per column, or with groups [ceil(k / g), n]; bias (float or
 * NULL) n values. Runs on the current pool's threads by columns from
 * TNGRT_GEMM_PAR_GEMV_BYTES of weight (the bits do not change). Returns
 * 0, or -1 with a message in err when an operand's dtype or size does not
 * fit. */
int tngrt_kernel_weight_quant_matmul(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                                     const TngrtArg *scale, const TngrtArg *offset,
                                     const TngrtArg *bias, int64_t group, TngrtError *err);

/* tngrt_kernel_weight_quant_matmul with w also packed in wp
 * (tngrt_q8_pack_rows; NULL: none), which it reads instead of w: one
 * sequential stream per call, the same bits. */
int tngrt_kernel_weight_quant_matmul_packed(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                                            const TngrtArg *scale, const TngrtArg *offset,
                                            const TngrtArg *bias, int64_t group, const void *wp,
                                            TngrtError *err);

/* The packing of an int8 weight [k, n] for the products above: column
 * panels of 64, panel p (columns [64p, 64p + 64)) holding its k rows of
 * 64 bytes one after the other, columns past n zero.
 * tngrt_q8_packed_size: its bytes, or -1 when they overflow.
 * tngrt_q8_pack_new: a block for it (released with free()), or NULL.
 * tngrt_q8_pack_rows: rows [r0, r0 + rows) of w into dst. */
int64_t tngrt_q8_packed_size(int64_t k, int64_t n);
int8_t *tngrt_q8_pack_new(int64_t k, int64_t n);
void tngrt_q8_pack_rows(int8_t *dst, const int8_t *w, int64_t k, int64_t n, int64_t r0, int64_t rows);

/* npu_dequant_swiglu_quant(x [.., 2H]) as tests/ref/stubs/torch_npu
 * computes it, row by row: int32 x is dequantised in double as
 * (x + int32 bias) * weight_scale (per column) * activation_scale (per row)
 * (+ a float bias) and rounded to float; other x is float(x) + bias. Then
 * swiglu over the halves A | B of the last dim: A * silu(B), or
 * silu(A) * B when activate_left; times quant_scale (per column) when
 * given. quant_mode 0 (static): y = round-half-even(v + quant_offset)
 * saturated to int8, scale_out = 1; 1 (dynamic): per row
 * m = max(rowmax|v|, 1e-12), y = round(v * (127 / m)) saturated,
 * scale_out = m / 127 (float32, x's shape without the last dim; may be
 * NULL). group_index (counts, or NULL) splits the rows into consecutive
 * groups; group g uses row g of weight_scale, quant_scale and quant_offset.
 * Absent operands are NULL. Returns 0, or -1 with a message for a bad
 * shape, quant_mode or group counts (kind TNGRT_ERR_BAD_INPUT). */
int tngrt_kernel_dequant_swiglu_quant(const TngrtArg *y, const TngrtArg *scale_out,
                                      const TngrtArg *x, const TngrtArg *weight_scale,
                                      const TngrtArg *activation_scale, const TngrtArg *bias,
                                      const TngrtArg *quant_scale, const TngrtArg *quant_offset,
                                      const TngrtArg *group_index, int activate_left,
                                      int quant_mode, TngrtError *err);

/* npu_swiglu(x, dim): x split in two halves a, b along dim; out = silu(a) * b. */
void tngrt_kernel_swiglu(const TngrtArg *out, const TngrtArg *x, int dim);

/* ---- kernels: creation and constants ---- */

/* out[i] = start + start_dim + i*step (out is 1-d; integer dtypes truncate
 * start and step first, as torch.arange; start_dim is the value of a
 * symbolic part of the start). */
void tngrt_kernel_arange(const TngrtArg *out, double start, int64_t start_dim, double step);

/* ---- kernels: shape ---- */

/* out = x.triu(diagonal) (lower 0) or x.tril(diagonal) (lower 1) over the
 * last two dims; out has x's shape and dtype. */
void tngrt_kernel_tri(const TngrtArg *out, const TngrtArg *x, int64_t diagonal, int lower);
/* out = x.flip(dims[0..n)); out has x's shape and dtype. */
void tngrt_kernel_flip(const TngrtArg *out, const TngrtArg *x, const int64_t *dims, int n);
/* out = x.roll(shifts, dims) from the pairs (shift, dim) in pairs[0..n)
 * (n even); out has x's shape and dtype. */
void tngrt_kernel_roll(const TngrtArg *out, const TngrtArg *x, const int64_t *pairs, int n);

/* ---- kernels: comparison, selection, bool ---- */

typedef enum TngrtCmpOp {
    TNGRT_CMP_EQ, TNGRT_CMP_NE, TNGRT_CMP_LT, TNGRT_CMP_LE, TNGRT_CMP_GT, TNGRT_CMP_GE
} TngrtCmpOp;

typedef enum TngrtLogicOp {
    TNGRT_LOGIC_AND, TNGRT_LOGIC_OR, TNGRT_LOGIC_XOR, /* of the truth values (x != 0) */
    TNGRT_LOGIC_NOT,
    TNGRT_BIT_AND, TNGRT_BIT_OR, TNGRT_BIT_XOR,       /* of the int64 values, wrapped to out */
    TNGRT_BIT_NOT                                      /* ~x; not x for a bool out */
} TngrtLogicOp;

typedef enum TngrtFpClass { TNGRT_FP_ISNAN, TNGRT_FP_ISINF, TNGRT_FP_ISFINITE } TngrtFpClass;

/* out (bool) = a op b, broadcast; b NULL: a op s, s a Python scalar (an
 * int when s_is_int). Both are first converted to torch.result_type of
 * the operands (a 0-d tensor or a scalar does not raise a dimensioned
 * tensor's dtype within its category), as torch.eq etc. do. */
void tngrt_kernel_compare(const TngrtArg *out, const TngrtArg *a, const TngrtArg *b, double s,
                          int s_is_int, TngrtCmpOp op);

/* out = a op b (b NULL for the NOTs), broadcast: logical ops give bool;
 * bitwise ops compute on int64 and wrap to out's dtype. */
void tngrt_kernel_logic(const TngrtArg *out, const TngrtArg *a, const TngrtArg *b, TngrtLogicOp op);

/* out (bool, x's shape) = isnan/isinf/isfinite(x); integers are finite. */
void tngrt_kernel_fpclass(const TngrtArg *out, const TngrtArg *x, TngrtFpClass op);

/* out = cond ? a : b, the three broadcast to out, each element converted
 * to out's dtype. */
void tngrt_kernel_where(const TngrtArg *out, const TngrtArg *cond, const TngrtArg *a,
                        const TngrtArg *b);

/* In place: out's elements where mask (broadcast to out) is true become v
 * (converted to out's dtype). */
void tngrt_kernel_masked_fill(const TngrtArg *out, const TngrtArg *mask, double v);

/* out (bool) = any (all == 0) or all of x != 0 over the dims in dims_mask
 * (bit d: dim d of x); out has x's rank (keepdim) or lacks those dims.
 * Over no elements: any is false, all is true. */
void tngrt_kernel_any_all(const TngrtArg *out, const TngrtArg *x, uint32_t dims_mask, int all);

/* ---- kernels: reductions, sorting, contractions ---- */

/* topk and sort along dim of x (NaN ranks above every number; equal values
 * keep their index order, so the order is total): indices gets the first k
 * positions of that order, descending when largest != 0 (ascending else),
 * where k is indices->shape[dim]; values (NULL for argsort) gets x's
 * elements at them. values and indices have x's shape but k at dim. */
void tngrt_kernel_topk(const TngrtArg *values, const TngrtArg *indices, const TngrtArg *x, int dim,
                       int largest);

/* x.max(dim) / x.min(dim) (is_min): per line along dim, the index of the
 * first NaN, else of the first largest (smallest) element, into indices
 * (int64), and that element into values (NULL for argmax/argmin). The
 * outputs have x's elements with dim removed (keepdim or not alike). */
void tngrt_kernel_arg_reduce(const TngrtArg *values, const TngrtArg *indices, const TngrtArg *x,
                             int dim, int is_min);

/* Inclusive prefix sums of x along dim into out (x's shape): accumulated
 * in float for a float out (each sum rounded to out's dtype as it is
 * stored), in int64 wrapping for an integer out. */
void tngrt_kernel_cumsum(const TngrtArg *out, const TngrtArg *x, int dim);

/* ---- kernels: indexing and scatter ---- */

/* The indexing kernels check every index against its dim first: one out of
 * range returns -1 with a message in err (kind TNGRT_ERR_BAD_INPUT) and
 * nothing read out of bounds, nothing written. Indices are int64 or int32. */

/* out = x.index_select(dim, index): rows index[i] of dim (0 <= index < size). */
int tngrt_kernel_index_select(const TngrtArg *out, const TngrtArg *x, const TngrtArg *index, int dim,
                              TngrtError *err);

/* out = x.gather(dim, index): out[..i..] = x[..index[..i..]..] at dim, the
 * other coordinates the same (index's sizes must not exceed x's there). */
int tngrt_kernel_gather(const TngrtArg *out, const TngrtArg *x, const TngrtArg *index, int dim,
                        TngrtError *err);

/* out = x[:, .., idx[0], .., idx[nidx-1], ...]: advanced indexing of the
 * consecutive dims dim..dim+nidx-1 by indices broadcast together; out is
 * x.shape[:dim] + the broadcast shape + x.shape[dim+nidx:]. Negative
 * indices count from the end. */
int tngrt_kernel_index(const TngrtArg *out, const TngrtArg *x, const TngrtArg *const *idx, int nidx, int dim,
                       TngrtError *err);

/* The check of an index op a matmul reads through in place
 * (x[idx] along dim, idx one integer element, x's dim of size n): 0 when
 * idx[0] is in [-n, n), else -1 with tngrt_kernel_index's message. */
int tngrt_kernel_index_check(const TngrtArg *idx, int64_t n, int dim, TngrtError *err);

/* idx[0] counted from the end when negative, for an index checked by
 * tngrt_kernel_index_check (clamped to [0, n) all the same: no read out
 * of bounds whatever idx holds). */
int64_t tngrt_kernel_index_row(const TngrtArg *idx, int64_t n);

/* dst[:, .., idx[0], .., idx[nidx-1], ...] = values (+= when accumulate),
 * in place; indices as tngrt_kernel_index, values broadcast to the indexed
 * shape and converted to dst's dtype; duplicates accumulate in order. */
int tngrt_kernel_index_put(const TngrtArg *dst, const TngrtArg *values, const TngrtArg *const *idx, int nidx,
                           int dim, int accumulate, TngrtError *err);

/* out = self.scatter(dim, index, src) (src NULL: the scalar value, in out's
 * dtype); reduce 0 stores, 1 adds (scatter_add), 2 multiplies. index's sizes
 * must not exceed src's, nor self's except at dim. */
int tngrt_kernel_scatter(const TngrtArg *out, const TngrtArg *self, const TngrtArg *index, const TngrtArg *src,
                         double value, int dim, int reduce, TngrtError *err);

/* out = self.index_add(dim, index, src, alpha=alpha) (add != 0) or
 * self.index_copy(dim, index, src); index 1-d (or 0-d), src's dim its length. */
int tngrt_kernel_index_update(const TngrtArg *out, const TngrtArg *self, const TngrtArg *index,
                              const TngrtArg *src, int dim, int add, double alpha, TngrtError *err);


/* ---- kernels: neural net ---- */

/* F.scaled_dot_product_attention: out[..., L, Ev] = softmax(q k^T * scale
 * + mask) v over the keys, in float (rounded once). k and v [..., S, E|Ev]
 * and mask (NULL, bool: nonzero keeps; or float: added; broadcast to
 * [..., L, S]) have leading dims right-aligned with q's, each equal or 1.
 * is_causal keeps key j <= query i only (top-left). scale is 1/sqrt(E)
 * unless has_scale. A query with no key left gives NaN, as PyTorch. */
void tngrt_kernel_sdpa(const TngrtArg *out, const TngrtArg *q, const TngrtArg *k,
                       const TngrtArg *v, const TngrtArg *mask, int is_causal, int has_scale,
                       double scale);

/* F.conv1d (ns 1: x[N, C, W], w[O, C/groups, KW]) or F.conv2d (ns 2:
 * x[N, C, H, W], w[O, C/groups, KH, KW]), bias[O] or NULL; out's spatial
 * size is the one the planner inferred from stride s*, padding before p*
 * (after p*1: implied by out's size, positions outside x count 0) and
 * dilation d*; accumulation in float (float32 2-d with groups 1, dilation
 * 1, a 1 x 1 or 3 x 3 window and stride 1 or 2 both ways: the direct kernel
 * of tngrt_kernel_conv_epi, a heap scratch of the padded input; other
 * float32: unrolled windows times the weights through the GEMM, with a
 * heap scratch of Cg*K*OH*OW floats; the direct loop when a scratch cannot
 * be allocated). ns 1 ignores the h parameters. */
void tngrt_kernel_conv(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                       const TngrtArg *bias, int ns, int64_t sh, int64_t sw, int64_t ph,
                       int64_t pw, int64_t ph1, int64_t pw1, int64_t dh, int64_t dw,
                       int64_t groups);

/* What tngrt_kernel_conv_epi applies to each output element after the
 * convolution and its bias, in this order: the inference batch norm of
 * tngrt_kernel_batch_norm (mean NULL: none; weight, bias NULL: 1, 0), the
 * residual res (out's shape, float32; NULL: none; its storage is out's or
 * apart from it, never x's), and relu where relu is 1. */
typedef struct TngrtConvEpi {
    const TngrtArg *mean, *var, *weight, *bias;
    double eps;
    const TngrtArg *res;
    int relu;
} TngrtConvEpi;

/* tngrt_kernel_conv followed by epi's steps (NULL: none), each rounded to
 * float as the separate kernels round it. A float32 2-d convolution with
 * groups 1, dilation 1, a 1 x 1 or 3 x 3 window and stride 1 or 2 (the same
 * both ways) runs a direct kernel that applies the steps before storing
 * (kernels_conv.c; a heap scratch of the padded input; a 3 x 3 stride-1
 * one from 8 input channels on in the Winograd form F(2 x 2, 3 x 3)); any other runs
 * tngrt_kernel_conv, then the steps over out. out may share storage with x
 * and with the residual (the result is then computed in a heap buffer
 * and copied where the direct kernel does not take it: -1 with err set
 * when that buffer cannot be allocated; else 0); it must not overlap w,
 * bias or epi's statistics. */
int tngrt_kernel_conv_epi(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                          const TngrtArg *bias, int ns, int64_t sh, int64_t sw, int64_t ph,
                          int64_t pw, int64_t ph1, int64_t pw1, int64_t dh, int64_t dw,
                          int64_t groups, const TngrtConvEpi *epi, TngrtError *err);

/* Inference batch norm of x[N, C, ...]: per channel c,
 * a = weight[c] / sqrt(var[c] + eps), out = x * a + (bias[c] - mean[c] * a)
 * (weight 1, bias 0 when NULL). */
void tngrt_kernel_batch_norm(const TngrtArg *out, const TngrtArg *x, const TngrtArg *mean,
                             const TngrtArg *var, const TngrtArg *w, const TngrtArg *b,
                             double eps);

/* F.group_norm of x[N, C, ...]: each sample's C / groups consecutive
 * channels normalised together (biased variance), then per channel
 * weight and bias (NULL: 1 and 0). */
void tngrt_kernel_group_norm(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                             const TngrtArg *b, int64_t groups, double eps);

/* F.max_pool2d (is_max) or F.avg_pool2d over the last two dims of x
 * (3-d or 4-d), floor mode: kernel k*, stride s*, padding p* (max: padding
 * never wins, NaN does; avg: divided by the window clipped to the padded
 * input when count_include_pad, else by the real elements it covers). */
void tngrt_kernel_pool2d(const TngrtArg *out, const TngrtArg *x, int is_max, int64_t kh,
                         int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                         int count_include_pad);

/* F.adaptive_max_pool2d (is_max) / F.adaptive_avg_pool2d to out's last
 * two sizes: output i covers [floor(i H / OH), ceil((i + 1) H / OH)). */
void tngrt_kernel_adaptive_pool2d(const TngrtArg *out, const TngrtArg *x, int is_max);

/* F.interpolate of x[N, C, H, W] to out's size: nearest (bilinear 0;
 * source floor(dst * scale)) or bilinear (align_corners or half-pixel
 * centres); scale per dim 1 / scale_* when given (> 0), else in / out. */
void tngrt_kernel_interpolate(const TngrtArg *out, const TngrtArg *x, int bilinear,
                              int align_corners, double scale_h, double scale_w);

/* ---- kernels: torch_npu fused ops ---- */

/* npu_moe_gating_top_k(x [t, e], bias [e] (may be NULL)) as
 * tests/ref/stubs/torch_npu computes it, in float: out [t, e] (float32) =
 * sigmoid(x) (norm_type 1) or softmax(x) (0); sel = out + bias; with
 * group_count (<= TNGRT_MOE_MAX_GROUPS) > 1 only the k_group best groups of
 * e / group_count experts (score: max (group_select_mode 0) or sum of the
 * two largest sel; ties: the lower group) compete; expert_idx [t, k]
 * (int32) = the k largest sel, descending (ties: the lower expert); y [t,
 * k] = out at expert_idx, / (row sum + eps) when norm_type is 1, times
 * scale (routed_scaling_factor), rounded to y's dtype. */
void tngrt_kernel_moe_gating_top_k(const TngrtArg *y, const TngrtArg *expert_idx, const TngrtArg *out,
                                   const TngrtArg *x, const TngrtArg *bias, int k, int k_group,
                                   int group_count, int group_select_mode, int norm_type, double scale,
                                   double eps);

/* npu_add_rms_norm(x1, x2, gamma, eps) as tests/ref/stubs/torch_npu
 * computes it: x = float(x1) + float(x2) (x_out: x rounded to its dtype;
 * may be NULL); over the trailing gamma->ndim dims, rstd = 1 / sqrt(mean(x^2)
 * + eps) (float32, one per row; may be NULL) and y = x * rstd * gamma, in
 * float, rounded once. x1 and x2 have one shape. */
void tngrt_kernel_add_rms_norm(const TngrtArg *y, const TngrtArg *rstd, const TngrtArg *x_out,
                               const TngrtArg *x1, const TngrtArg *x2, const TngrtArg *gamma,
                               double eps);

/* npu_rotary_mul(x, r1, r2, mode): out = x * r1 + rotate(x) * r2 in float
 * (r1, r2 broadcast to x, right-aligned), rotate over the last dim of even
 * size D: mode 0 (half) (-x[D/2:], x[:D/2]), mode 1 (interleave) each pair
 * (x[2i], x[2i+1]) -> (-x[2i+1], x[2i]); mode 3 (interleave-half,
 * npu_interleave_rope) x is first de-interleaved into q = (x[0::2],
 * x[1::2]), then q * r1 + rotate_half(q) * r2. */
void tngrt_kernel_rotary_mul(const TngrtArg *out, const TngrtArg *x, const TngrtArg *r1,
                             const TngrtArg *r2, int mode);

/* npu_dynamic_quant(x, smooth_scales): per row of the last dim, v = x
 * [* smooth (per column)] in float, m = max|v|, scale = m / 127 (float32,
 * one per row; may be NULL), y = round-half-even(v / scale) saturated to
 * int8 (0 where scale is 0). */
void tngrt_kernel_dynamic_quant(const TngrtArg *y, const TngrtArg *scale, const TngrtArg *x,
                                const TngrtArg *smooth);

/* npu_moe_gating_top_k_softmax(x [.., e], finished, k): per row r of R rows,
 * p = softmax(x) in float; the k largest p in descending order (ties: the
 * lower index first) into y (x's dtype) and their indices into expert_idx
 * (e where finished[r] is true; finished may be NULL); row_idx[r, j] =
 * j * R + r. */
void tngrt_kernel_moe_gating_top_k_softmax(const TngrtArg *y, const TngrtArg *expert_idx,
                                           const TngrtArg *row_idx, const TngrtArg *x,
                                           const TngrtArg *finished, int k);

/* npu_fused_infer_attention_score / npu_prompt_flash_attention /
 * npu_incre_flash_attention as tests/ref/stubs/torch_npu computes them;
 * attr as ops.def's FUSED_ATTENTION (layout BSH/BSND/BNSD, heads, key/value
 * heads (GQA: head h reads key/value head h / (heads / kv heads)), sparse
 * mode, pre/next tokens, lse flag, block size, listed lengths). Per batch b,
 * head h and query row i < Lq (act_q, the listed length or all rows):
 * scores s_j = (q_i . k_j) * scale in float over key rows j < Lkv (act_kv,
 * listed or all), except masked ones: sparse mode 2 masks j > i, 3 masks
 * j > i + Lkv - Lq, 4 masks outside the band i + o - pre <= j <= i + o +
 * next (o = Lkv - Lq); mode 0 masks where atten_mask (2-4 d, [.., Sq, Skv],
 * bool or int8, leading dims B or 1, N or 1) is nonzero and, with a mask,
 * outside the band i - pre <= j <= i + next; mode 1 where the mask is. out_i = softmax(s) @ v (float, rounded
 * once), lse_i = max + log(sum exp(s - max)) (float32 [B, N, Sq, 1]; with
 * the flag off lse is [1] and gets 0). Rows with nothing to attend (i >= Lq,
 * or all masked): out 0, lse +inf. With block_table [B, blocks] key/value
 * are [blocks, block_size, Nkv * D] or [blocks, Nkv, block_size, D] and
 * row j of batch b is block block_table[b, j / block_size]. Allocates
 * (Skv + D) floats of scratch. Returns 0, or -1 with a message (kind
 * TNGRT_ERR_BAD_INPUT) for a length outside [0, S], a count of lengths
 * other than B or a block index outside key's blocks. */
int tngrt_kernel_fused_attention(const TngrtArg *out, const TngrtArg *lse, const TngrtArg *q,
                                 const TngrtArg *k, const TngrtArg *v, const TngrtArg *mask,
                                 const TngrtArg *block_table, const TngrtArg *act_q,
                                 const TngrtArg *act_kv, const int64_t *attr, double scale,
                                 TngrtError *err);

/* scatter_update_(data, indices, updates, axis), in place on data (the
 * output, which shares data's storage): for every row b of dim 0,
 * data[b, .., indices[b] + t, ..] = updates[b, .., t, ..] along axis (>= 1)
 * for t < updates.shape[axis]; updates has data's other dims. Returns 0,
 * or -1 with a message (kind TNGRT_ERR_BAD_INPUT, nothing written) when a
 * position does not fit. */
int tngrt_kernel_scatter_update(const TngrtArg *data, const TngrtArg *indices, const TngrtArg *updates,
                                int axis, TngrtError *err);

/* npu_scatter_nd_update_(var, indices [.., K], updates), in place on var:
 * var[indices[i]] = updates[i] (slices of var's dims from K on), in order
 * (a repeated index: the last write wins). Returns 0, or -1 with a message
 * (kind TNGRT_ERR_BAD_INPUT, nothing written) for an index out of range. */
int tngrt_kernel_scatter_nd_update(const TngrtArg *var, const TngrtArg *indices, const TngrtArg *updates,
                                   TngrtError *err);

/* ---- kernels: gemm ---- */

/* Matmul epilogues (codegen/fuse_gemm.c): the pointwise
 * ops that read a Linear's output, applied to each output tile of the
 * GEMM before it is stored. Step s computes v = v op y in float32 (swap:
 * y op v), y the scalar p or x[i * xrs + j * xcs] for output element
 * (i, j); a unary step is v = the unary kernel's op un (parameters p, q).
 * Each step is the separate kernel's expression, so the result has the
 * bits of the unfused ops. With rdt float16 or bfloat16 (a half Linear),
 * the GEMM's result and each step's are rounded to rdt as the separate
 * kernels' stores do (the steps still compute in float32). */
typedef enum TngrtGemmEpiKind {
    TNGRT_EPI_UNARY,
    TNGRT_EPI_ADD,
    TNGRT_EPI_SUB,
    TNGRT_EPI_MUL,
    TNGRT_EPI_DIV
} TngrtGemmEpiKind;

typedef struct TngrtGemmEpiStep {
    TngrtGemmEpiKind kind;
    TngrtUnaryOp un;       /* TNGRT_EPI_UNARY's op */
    float p, q;            /* the unary op's parameters; the scalar operand when x is NULL */
    const void *x;         /* the tensor operand (of dtype xdt), or NULL */
    int64_t xrs, xcs;      /* its element strides along out's rows and columns (0: broadcast) */
    int swap;              /* y op v rather than v op y */
    TngrtDType xdt;        /* x's dtype: float32, float16 or bfloat16 */
} TngrtGemmEpiStep;

#define TNGRT_GEMM_EPI_MAX 8

typedef struct TngrtGemmEpi {
    int n;                 /* steps, at most TNGRT_GEMM_EPI_MAX */
    TngrtGemmEpiStep s[TNGRT_GEMM_EPI_MAX];
    TngrtDType rdt;        /* float32: no rounding; float16 / bfloat16: round each result */
} TngrtGemmEpi;

/* tngrt_gemm_f32 with epi's steps applied to each output tile (epi NULL:
 * none); a step's x may be c itself (read before the element is written)
 * but must not overlap a or c otherwise. */
void tngrt_gemm_f32_epi(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars,
                        int64_t acs, const float *bp, float *c, int64_t ldc, const float *bias,
                        const TngrtGemmEpi *epi);

/* tngrt_gemm_f32_epi with B unpacked (element (kk, j) at b->data[off +
 * kk * rs + j * cs]; float32, float16 or bfloat16, widened exactly), m, n,
 * k >= 1: B packed by each of the run's threads for its own columns, a few
 * panels at a time into scratch that stays in cache, each group's product
 * run before the next is packed: no copy of the whole B, the bits of
 * tngrt_gemm_pack_b and tngrt_gemm_f32_epi. Returns 0, or -1 with nothing
 * written when the scratch cannot be had. */
int tngrt_gemm_f32_packing(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars,
                           int64_t acs, const TngrtArg *b, int64_t off, int64_t rs, int64_t cs,
                           float *c, int64_t ldc, const float *bias, const TngrtGemmEpi *epi);

/* tngrt_gemm_f32_packing for a bfloat16 A (rows contiguous, ars apart)
 * and a bfloat16 B (element (kk, j) at b->data[off + kk * rs + j * cs]),
 * m, n, k >= 1 (kernels_gemm_bf16.c): B packed as bfloat16 pairs a few
 * panels at a time per thread, the sums vdpbf16ps's (each pair's odd
 * element's product added first, then the even one's, float32 rounding
 * to nearest even each time, denormal inputs read and results flushed as
 * zeros) on every path, then bias and epi as tngrt_gemm_f32_epi. Returns
 * 0, or -1 with nothing written (scratch not had, B not bfloat16). */
int tngrt_gemm_bf16_packing(int64_t m, int64_t n, int64_t k, const uint16_t *a, int64_t ars,
                            const TngrtArg *b, int64_t off, int64_t rs, int64_t cs, float *c,
                            int64_t ldc, const float *bias, const TngrtGemmEpi *epi);

/* The same on the named path isa (a TngrtGemmIsa, below; the portable one
 * where the CPU lacks it). */
void tngrt_gemm_f32_epi_isa(int isa, int64_t m, int64_t n, int64_t k, const float *a,
                            int64_t ars, int64_t acs, const float *bp, float *c, int64_t ldc,
                            const float *bias, const TngrtGemmEpi *epi);

/* out = epi(x @ w^T + bias) (tngrt_kernel_linear_packed, then epi's steps
 * over the output rows [.., n]): float32 out (or float16 / bfloat16 with
 * epi->rdt the same, x and bias widened, out narrowed once) with w packed
 * in wp, through the fused GEMM; otherwise the separate kernels' results
 * through a scratch copy (a step's x may be out itself). */
void tngrt_kernel_linear_epi(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                             const TngrtArg *bias, const float *wp, const TngrtGemmEpi *epi);

/* tngrt_kernel_matmul_strided (declared below) with a float32 out written
 * through element strides os (NULL: dense; os[last] must be 1: a permuted
 * out whose last dim stays last, e.g. attention's (att @ v).transpose(1, 2)
 * written in place of the copy) and epi's steps (NULL: none; no tensor
 * operands, rdt float32) applied to each batch's product before the next. */
void tngrt_kernel_matmul_strided_epi(const TngrtArg *out, const int64_t *os, const TngrtArg *a,
                                     const int64_t *as, const TngrtArg *b, const int64_t *bs,
                                     const TngrtGemmEpi *epi);

/* The packed-B panel width of libtngcrt's own GEMM (kernels_gemm.c). */
#define TNGRT_GEMM_NR 32

/* The microkernel paths of tngrt_gemm_f32_isa. */
typedef enum TngrtGemmIsa {
    TNGRT_GEMM_PORTABLE,
    TNGRT_GEMM_AVX2,      /* AVX2 + FMA */
    TNGRT_GEMM_AVX512,
    TNGRT_GEMM_AVX512_BF16   /* AVX-512F + AVX512_BF16: tngrt_gemm_bf16_packing_isa's vdpbf16ps
                              * (the float32 and half _isa functions run their portable path) */
} TngrtGemmIsa;

/* Floats of B [k, n] packed by tngrt_gemm_pack_b: n rounded up to 32, times k. */
int64_t tngrt_gemm_packed_size(int64_t n, int64_t k);

/* Packs B (element (kk, j) at b->data[off + kk * rs + j * cs]; float32,
 * float16 or bfloat16, widened exactly) into dst, tngrt_gemm_packed_size
 * floats: panels of 32 columns, each k rows of 32, zero padded. */
void tngrt_gemm_pack_b(float *dst, const TngrtArg *b, int64_t off, int64_t rs, int64_t cs,
                       int64_t k, int64_t n);

/* c[i * ldc + j] = sum_kk a[i * ars + kk * acs] * B[kk, j] (+ bias[j] when
 * bias is not NULL) for i < m, j < n, B packed by tngrt_gemm_pack_b; m, n,
 * k >= 1. The widest microkernel the CPU has (chosen once, at load). */
void tngrt_gemm_f32(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars, int64_t acs,
                    const float *bp, float *c, int64_t ldc, const float *bias);

/* The same on the named path (the portable one where the CPU lacks it). */
void tngrt_gemm_f32_isa(TngrtGemmIsa isa, int64_t m, int64_t n, int64_t k, const float *a,
                        int64_t ars, int64_t acs, const float *bp, float *c, int64_t ldc,
                        const float *bias);

/* Whether this CPU (and build) can run path isa. */
int tngrt_gemm_isa_available(TngrtGemmIsa isa);

/* tngrt_gemm_bf16_packing (above) on the named path isa
 * (TNGRT_GEMM_AVX512_BF16: vdpbf16ps; AVX512, AVX2: FMAs; the portable
 * one where the CPU lacks it); every path gives the same bits. */
int tngrt_gemm_bf16_packing_isa(TngrtGemmIsa isa, int64_t m, int64_t n, int64_t k,
                                const uint16_t *a, int64_t ars, const TngrtArg *b, int64_t off,
                                int64_t rs, int64_t cs, float *c, int64_t ldc, const float *bias,
                                const TngrtGemmEpi *epi);

/* A malloc'd packing (*dst, for tngrt_gemm_f32) of the Linear weight w
 * [n, k] (float32/16, bfloat16) read as B = w^T; returns its size in
 * floats, or -1 (*dst NULL) for another dtype or no memory. */
int64_t tngrt_gemm_pack_weight(float **dst, const void *w, TngrtDType dt, int64_t n, int64_t k);

/* Packs rows [r0, r0 + rows) of the Linear weight w [n, k] into their
 * panels of dst (tngrt_gemm_packed_size(n, k) floats; r0 a multiple of
 * TNGRT_GEMM_NR): packing a large weight in blocks of rows, as a bundle's
 * load does to drop each block's source pages once packed. */
void tngrt_gemm_pack_weight_rows(float *dst, const void *w, TngrtDType dt, int64_t n, int64_t k,
                                 int64_t r0, int64_t rows);

/* c[i * ldc + j] = sum_kk a[i * ars + kk * acs] * b[kk * brs + j * bcs] for
 * i < m, j < n (B unpacked, any strides): the few-row products where
 * packing B costs more than the product (tngrt_gemm_small_pays); the
 * widest vector path the CPU has, chosen once at load. */
void tngrt_gemm_small_f32(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars,
                          int64_t acs, const float *b, int64_t brs, int64_t bcs, float *c,
                          int64_t ldc);

/* The same on the named path (the portable one where the CPU lacks it). */
void tngrt_gemm_small_f32_isa(TngrtGemmIsa isa, int64_t m, int64_t n, int64_t k, const float *a,
                              int64_t ars, int64_t acs, const float *b, int64_t brs, int64_t bcs,
                              float *c, int64_t ldc);

/* c[i * ldc + j] = sum_kk a[i * ars + kk * acs] * B[kk, j] for i < m,
 * j < n, B float16 or bfloat16 (bdt; its bit patterns, element (kk, j) at
 * b[kk * brs + j * bcs]) read in place, each element widened where it is
 * used and summed in float32 (kernels_gemm_half.c); no scratch. Any m,
 * any strides; fast for tngrt_gemm_small_f32's shapes. A weight's GEMV
 * (m < 8, brs 1, acs 1) of a large B runs on the run's threads, with the
 * same bits. Another bdt: nothing written. */
void tngrt_gemm_small_half(TngrtDType bdt, int64_t m, int64_t n, int64_t k, const float *a,
                           int64_t ars, int64_t acs, const uint16_t *b, int64_t brs, int64_t bcs,
                           float *c, int64_t ldc);

/* tngrt_gemm_small_half with A float16 or bfloat16 too (adt; its bit
 * patterns at a[i * ars + kk * acs]): in a GEMV's shape (fewer than 8
 * rows, acs 1, brs 1, k >= 16) A is read in place and widened in
 * registers, half the bytes per column of a float32 row, which then stays
 * in L1 beside B's stream for k up to twice as large; any other shape
 * widens A first. The same bits as tngrt_gemm_small_half over A widened
 * into a dense float32 [m, k] (ars k, acs 1). Another adt or bdt: nothing
 * written. */
void tngrt_gemm_small_half_a16(TngrtDType adt, TngrtDType bdt, int64_t m, int64_t n, int64_t k,
                               const uint16_t *a, int64_t ars, int64_t acs, const uint16_t *b,
                               int64_t brs, int64_t bcs, float *c, int64_t ldc);

/* The same on the named path, in a GEMV's shape only (nothing written
 * otherwise): the unit tests' way to compare the clones. */
void tngrt_gemm_small_half_a16_isa(TngrtGemmIsa isa, TngrtDType adt, TngrtDType bdt, int64_t m,
                                   int64_t n, int64_t k, const uint16_t *a, int64_t ars,
                                   int64_t acs, const uint16_t *b, int64_t brs, int64_t bcs,
                                   float *c, int64_t ldc);

/* Products of fewer rows than this with a float16/bfloat16 B read it in
 * place with tngrt_gemm_small_half rather than pack it per call (packing's
 * transposed stores are slow). A [4096, 4096] float16 Linear, best of 5 at
 * load average 7.7: 8, 32, 64, 128, 256 rows took 49, 106, 204, 431,
 * 1177 ms in place and 232, 191, 237, 264, 471 ms packed per call (a
 * float32 weight packed at load: 58, 73, 116, 120, 387 ms). */
#define TNGRT_GEMM_HALF_INPLACE_ROWS 96

/* The same on the named path (the portable one where the CPU lacks it;
 * AVX2's needs F16C too). */
void tngrt_gemm_small_half_isa(TngrtGemmIsa isa, TngrtDType bdt, int64_t m, int64_t n, int64_t k,
                               const float *a, int64_t ars, int64_t acs, const uint16_t *b,
                               int64_t brs, int64_t bcs, float *c, int64_t ldc);

/* Whether an [m, k] x [k, n] product runs tngrt_gemm_small_f32 rather
 * than packing B (fewer than 8 rows, B cached or one or two rows; or at
 * most 16 columns and 128 deep). */
int tngrt_gemm_small_pays(int64_t m, int64_t n, int64_t k);

/* c[i * ldc + j] = sum_kk a[i * lda + kk] * b[kk * ldb + j] for i < m,
 * j < n (float32, row-major, C not overlapping A or B) through libtngcrt's
 * GEMM: tngrt_gemm_small_f32 where it pays, else B packed into scratch
 * and tngrt_gemm_f32 (on the run's threads when the product is large).
 * Returns 0, or -1 with nothing written when the scratch cannot be had. */
int tngrt_gemm_f32_dense(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                         const float *b, int64_t ldb, float *c, int64_t ldc);

/* torch.matmul of float operands a [..., m, k] and b [..., k, n] (rank >= 2
 * each, batch dims broadcast against out's [..., m, n]) read through
 * element strides: the element at index idx of a is at a->data[sum_d
 * idx[d] * as[d]] (likewise b with bs); any strides, 0 included, so
 * transposed, permuted and broadcast views are read in place. Float32
 * operands are not copied; a float16/bfloat16 a is widened once, a half b
 * (a KV cache) read in place (tngrt_gemm_small_half) or widened by the
 * packing, and out is rounded once per element. */
void tngrt_kernel_matmul_strided(const TngrtArg *out, const TngrtArg *a, const int64_t *as,
                                 const TngrtArg *b, const int64_t *bs);

/* tngrt_kernel_linear with w already packed by tngrt_gemm_pack_weight
 * (wp; NULL: as tngrt_kernel_linear). */
void tngrt_kernel_linear_packed(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                                const TngrtArg *bias, const float *wp);

/* ---- collectives (libtngcrt_mpi.a: runtime/mpi.c, tngrt_mpi.h) ----
 * Across the ranks of a bundle built with --world-size N > 1; group is a
 * bit mask of the ranks taking part (bit r: rank r; 0: every rank), and
 * every rank of it calls the same collective in the same order. op is
 * torch.distributed.ReduceOp's number: 0 SUM, 1 AVG, 2 PRODUCT, 3 MIN,
 * 4 MAX. float16/bfloat16 are reduced in float32 and rounded once. Each
 * returns 0, or -1 with a message in err (MPI's error; past the timeout
 * the job is aborted instead, tngrt_mpi.h). */

/* out = op over the group of x (x's shape). */
int tngrt_kernel_all_reduce(const TngrtArg *out, const TngrtArg *x, int64_t op, int64_t group,
                            TngrtError *err);

/* out = the group's x concatenated along dim 0, in rank order. */
int tngrt_kernel_all_gather(const TngrtArg *out, const TngrtArg *x, int64_t group, TngrtError *err);

/* out = block k (this rank's place k in the group) of op over the group of
 * x, x's dim 0 being the group's size times out's. */
int tngrt_kernel_reduce_scatter(const TngrtArg *out, const TngrtArg *x, int64_t op, int64_t group,
                                TngrtError *err);

/* out = x of rank src (a rank of the group). */
int tngrt_kernel_broadcast(const TngrtArg *out, const TngrtArg *x, int64_t src, int64_t group,
                           TngrtError *err);

/* x's rows cut into one block per member of the group (attr[0] the mask,
 * attr[1] the group's size n; nattr 2: n equal blocks, else attr[2..2+n)
 * the rows sent to each member and attr[2+n..2+2n) those received from
 * each), block j sent to member j; out = the blocks received, in group
 * order. */
int tngrt_kernel_all_to_all(const TngrtArg *out, const TngrtArg *x, const int64_t *attr, int64_t nattr,
                            TngrtError *err);

#endif
