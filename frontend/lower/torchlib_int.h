/*
 * torchlib_int.h - what the files of the torch library (torchlib.c and
 * torchlib_<family>.c) share: the lowering call (Call), small inline
 * helpers, and the functions one file defines and another uses (each
 * documented where it is defined). Private to those files.
 */
#ifndef TNGC_LOWER_TORCHLIB_INT_H
#define TNGC_LOWER_TORCHLIB_INT_H

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj.h"

#define M_PI_VALUE 3.14159265358979323846
#define NELEM(a) (sizeof(a) / sizeof *(a))

/* A lowering call: the tensor operand first (self of a method, or the
 * first argument of the function form), then the other arguments. */
typedef struct Call {
    const char *name;      /* the name as written after the namespace: "add" */
    const char *full;      /* for messages: "torch.add", "Tensor.add" */
    CallArgs *a;           /* pos[0] is the tensor operand for the tensor forms */
    int32_t node;
    int method;            /* called as a tensor method */
    int arg;               /* table argument (OpKind, flags) */
} Call;

static inline Graph *G(Interp *I) { return interp_graph(I); }

/* ceil(a / b) for a >= 0, b > 0, without the overflow of (a + b - 1) / b. */
static inline int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

/* The Val of value id v in the current graph. */
static inline const Val *val_at(Interp *I, int32_t v) { return &G(I)->vals.v[v]; }

/* The rank of value v. */
static inline int rank_of(Interp *I, int32_t v) { return val_at(I, v)->ndim; }

/* Argument pos (counting the tensor operand as 0) or keyword name. */
static inline Obj *ARG(const Call *c, size_t pos, const char *name)
{
    return args_get(c->a, pos, name);
}

/* The tensor operand: pos 0 or keyword input/self/tensor. */
static inline Obj *ARG0(const Call *c)
{
    Obj *o = args_get(c->a, 0, "input");
    if (!o)
        o = args_kw(c->a, "self");
    if (!o)
        o = args_kw(c->a, "tensor");
    return o;
}

/* Table arguments of lib[] rows (Call.arg) that lowerings in other files
 * read: index_add/index_copy's in-place and add flags; the three attention
 * entry points of torch_npu, one op (FUSED_ATTENTION). */
enum { IX_INPLACE = 1, IX_ADD = 2 };
enum { ATTN_FIA, ATTN_IFA, ATTN_PFA };

/* torchlib.c */
int32_t tl_tv(Interp *I, Obj *o, int32_t node);
int32_t tl_emit(Interp *I, OpKind kind, const int32_t *in, uint32_t nin, const int64_t *attr,
                uint32_t nattr, double f0, double f1, DType dt, int32_t node);
Obj *tl_op_out(Interp *I, int32_t op, int k);
Obj *tl_emit1(Interp *I, OpKind kind, const int32_t *in, uint32_t nin, const int64_t *attr,
              uint32_t nattr, double f0, double f1, DType dt, int32_t node);
Obj *tl_emit_x(Interp *I, OpKind kind, int32_t x, const int64_t *attr, uint32_t nattr,
               double f0, DType dt, int32_t node);
int tl_norm_dim(Interp *I, int64_t d, int n, int32_t node, int64_t *out);
int tl_const_int(Interp *I, const Obj *o, int32_t node, const char *what, int64_t *v);
int tl_known(Interp *I, const Obj *o, int32_t node, const char *what);
int tl_dim_arg(Interp *I, const Obj *o, int n, int32_t node, const char *what, int64_t *out);
int tl_py_number(const Obj *o, double *v, int *is_int);
double tl_float_arg(const Obj *o, double def);
DType tl_dtype_of_obj(const Obj *o);
int tl_dtype_arg(Interp *I, const Obj *o, int32_t node, DType *dt);
Obj *tl_cast_to(Interp *I, Obj *x, DType dt, int32_t node);
int32_t tl_x0(Interp *I, const Call *c);
int tl_dims_of(Interp *I, int32_t v, DimId *d);
int tl_tensor_list(Interp *I, Obj *seq, int32_t node, const char *what, int32_t *vals, int max);
int tl_size_item(Interp *I, const Obj *o, int32_t node, int allow_infer, int64_t *d);
int tl_sizes_arg(Interp *I, CallArgs *a, size_t from, const char *kw, int32_t node, int allow_infer,
                 int64_t *out);
Obj *tl_reshape_to(Interp *I, int32_t x, const DimId *d, int n, int32_t node);
Obj *tl_permute_of(Interp *I, Obj *self, int32_t x, const int64_t *perm, int n, int32_t node);
Obj *tl_slice_of(Interp *I, int32_t x, int64_t dim, int64_t start, int64_t end, int64_t step, int32_t node);
Obj *tl_unsqueeze_at(Interp *I, int32_t x, int64_t dim, int32_t node);
Obj *tl_transpose_last2(Interp *I, Obj *self, int32_t x, int32_t node);
int tl_scalar_operand(Interp *I, const Obj *o, int32_t node, double *v, int *is_int);
Obj *tl_arith(Interp *I, OpKind kind, Obj *l, Obj *r, double alpha, int32_t node, const char *what);
Obj *tl_inplace_result(Interp *I, Obj *x, Obj *r, const Obj *inplace, int32_t node);
Obj *tl_inplace_fit(Interp *I, Obj *x, Obj *r, int32_t node, const char *what);
int tl_num_arg(Interp *I, const Obj *o, double def, int32_t node, const char *what, double *v);
Obj *tl_softplus_of(Interp *I, int32_t x, const Obj *beta, const Obj *threshold, int32_t node);
Obj *tl_two_tensors(Interp *I, Call *c, const char *name);
int32_t tl_opt_tensor(Interp *I, Obj *o, int32_t node, const char *what);
Obj *tl_layer_norm(Interp *I, int32_t x, int64_t k, int32_t w, int32_t b, double eps, int32_t node);
Obj *tl_full_of(Interp *I, const int64_t *d, int n, double fill, DType dt, int32_t node);
int tl_fill_value(Interp *I, const Obj *o, int32_t node, double *v);

/* torchlib_shape.c */
Obj *tl_slice_dyn_of(Interp *I, int32_t x, int64_t dim, DimId start_d, int64_t start, DimId end_d,
                     int64_t end, int64_t step, int32_t node);
Obj *tl_narrow_dyn(Interp *I, Call *c, int32_t x);
Obj *lo_tri(Interp *I, Call *c);
Obj *lo_expand(Interp *I, Call *c);
Obj *lo_expand_as(Interp *I, Call *c);
Obj *lo_repeat(Interp *I, Call *c);
Obj *lo_repeat_interleave(Interp *I, Call *c);
Obj *lo_flip(Interp *I, Call *c);
Obj *lo_roll(Interp *I, Call *c);
Obj *lo_movedim(Interp *I, Call *c);
Obj *lo_unflatten(Interp *I, Call *c);
Obj *lo_pad(Interp *I, Call *c);

/* torchlib_compare.c */
Obj *lo_compare(Interp *I, Call *c);
Obj *lo_bool(Interp *I, Call *c);
Obj *lo_where(Interp *I, Call *c);
Obj *lo_masked_fill(Interp *I, Call *c);
Obj *lo_any_all(Interp *I, Call *c);
Obj *lo_fill_(Interp *I, Call *c);
Obj *tl_inplace_method(Interp *I, const char *name, Obj *self, CallArgs *a);
Obj *tl_compare_binop(Interp *I, const char *op, Obj *l, Obj *r, int32_t node);

/* torchlib_reduce.c */
Obj *lo_topk(Interp *I, Call *c);
Obj *lo_sort(Interp *I, Call *c);
Obj *lo_max(Interp *I, Call *c);
Obj *lo_argmax(Interp *I, Call *c);
Obj *lo_prod(Interp *I, Call *c);
Obj *lo_cumsum(Interp *I, Call *c);
Obj *lo_var(Interp *I, Call *c);
Obj *lo_norm(Interp *I, Call *c);
Obj *lo_normalize(Interp *I, Call *c);
Obj *lo_outer(Interp *I, Call *c);
Obj *lo_baddbmm(Interp *I, Call *c);
Obj *lo_einsum(Interp *I, Call *c);

/* torchlib_index.c */
int tl_index_has_tensor(const Obj *index);
Obj *tl_index_subscript(Interp *I, Obj *t, Obj *index, int32_t node);
int tl_index_store_subscript(Interp *I, Obj *t, Obj *index, Obj *v, int32_t node);
Obj *lo_index_select(Interp *I, Call *c);
Obj *lo_scatter(Interp *I, Call *c);
Obj *lo_index_add(Interp *I, Call *c);
Obj *lo_index_put(Interp *I, Call *c);
Obj *lo_one_hot(Interp *I, Call *c);

/* torchlib_nn.c */
int tl_nn_flag(Interp *I, const Obj *o, int def, int32_t node, const char *what, int *v);
int tl_nn_ints(Interp *I, const Obj *o, int n, int64_t def, int32_t node, const char *what, int64_t *out);
Obj *lo_sdpa(Interp *I, Call *c);
Obj *tl_conv_of(Interp *I, int32_t x, int32_t w, int32_t b, int ns, Obj *stride, Obj *padding,
                Obj *dilation, Obj *groups, int32_t node);
Obj *lo_conv(Interp *I, Call *c);
Obj *lo_batch_norm(Interp *I, Call *c);
Obj *lo_group_norm(Interp *I, Call *c);
Obj *tl_pool2d_of(Interp *I, OpKind kind, int32_t x, Obj *kernel, Obj *stride, Obj *padding,
                  Obj *dilation, Obj *ceil_mode, Obj *cip, Obj *divisor, Obj *indices, int32_t node);
Obj *lo_pool2d(Interp *I, Call *c);
Obj *tl_adaptive_of(Interp *I, OpKind kind, int32_t x, Obj *size, Obj *indices, int32_t node);
Obj *lo_adaptive_pool2d(Interp *I, Call *c);
Obj *tl_interpolate_of(Interp *I, int32_t x, Obj *size, Obj *scale, Obj *mode, Obj *align,
                       Obj *recompute, Obj *antialias, int32_t node);
Obj *lo_interpolate(Interp *I, Call *c);
Obj *lo_dropout(Interp *I, Call *c);

/* torchlib_npu.c */
Obj *lo_add_rms_norm(Interp *I, Call *c);
Obj *lo_rotary_mul(Interp *I, Call *c);
Obj *lo_interleave_rope(Interp *I, Call *c);
Obj *lo_apply_rotary_pos_emb(Interp *I, Call *c);
Obj *lo_prefetch(Interp *I, Call *c);
Obj *lo_dynamic_quant(Interp *I, Call *c);
Obj *lo_moe_gating_top_k_softmax(Interp *I, Call *c);
Obj *lo_moe_gating_top_k(Interp *I, Call *c);
Obj *lo_attention(Interp *I, Call *c);
Obj *lo_scatter_update(Interp *I, Call *c);
Obj *lo_grouped_matmul(Interp *I, Call *c);

/* torchlib_modules.c */
Obj *tl_module_method(Interp *I, const char *m, Obj *self, CallArgs *a);
Obj *tl_module_construct(Interp *I, const char *name, CallArgs *a);

#endif
