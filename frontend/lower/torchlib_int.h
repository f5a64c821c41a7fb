/*
 * torchlib_int.h - what the files of the torch library (torchlib.c and
 * torchlib_<family>.c) share besides the core (torchlib_core.h): the table
 * arguments of lib[] rows, and the lowerings and helpers one file defines
 * and another uses (each documented where it is defined). Private to those
 * files.
 */
#ifndef TNGC_LOWER_TORCHLIB_INT_H
#define TNGC_LOWER_TORCHLIB_INT_H

#include "torchlib_core.h"

/* Table arguments of lib[] rows (Call.arg) that lowerings in other files
 * read: index_add/index_copy's in-place and add flags; the three attention
 * entry points of torch_npu, one op (FUSED_ATTENTION). */
enum { IX_INPLACE = 1, IX_ADD = 2 };
enum { ATTN_FIA, ATTN_IFA, ATTN_PFA };
/* The fills of the creation functions (torchlib_tensor.c). */
enum { FILL_ZERO, FILL_ONE, FILL_FULL, FILL_RANDINT };

/* torchlib_complex.c */
int tl_cx_any(const Obj *self, const CallArgs *a);
Obj *tl_cx_call(Interp *I, const char *name, Obj *self, CallArgs *a);
Obj *tl_cx_binop(Interp *I, const char *op, Obj *l, Obj *r, int32_t node);
Obj *tl_cx_unop(Interp *I, const char *op, Obj *z, int32_t node);
Obj *tl_cx_subscript(Interp *I, Obj *z, Obj *index, int32_t node);
int tl_cx_store_subscript(Interp *I, Obj *t, Obj *v, int32_t node);
Obj *tl_cx_getattr(Interp *I, Obj *z, const char *name, int32_t node);
Obj *lo_polar(Interp *I, Call *c);
Obj *lo_complex(Interp *I, Call *c);
Obj *lo_view_as_complex(Interp *I, Call *c);
Obj *lo_view_as_real(Interp *I, Call *c);

/* torchlib_rowsel.c */
Obj *tl_where_rows(Interp *I, Obj *cond, int32_t node);
int tl_rowsel_index(Interp *I, const Obj *index);
Obj *tl_rowsel_subscript(Interp *I, Obj *t, Obj *index, int32_t node);
int tl_rowsel_store(Interp *I, Obj *t, Obj *index, Obj *v, int32_t node);

/* torchlib_arith.c */
Obj *lo_arith(Interp *I, Call *c);
Obj *tl_pow_of(Interp *I, Obj *x, Obj *e, int32_t node);
Obj *lo_pow(Interp *I, Call *c);
Obj *lo_unary(Interp *I, Call *c);
Obj *lo_round(Interp *I, Call *c);
Obj *lo_softplus(Interp *I, Call *c);
Obj *lo_leaky_relu(Interp *I, Call *c);
Obj *lo_clamp(Interp *I, Call *c);
Obj *lo_maximum(Interp *I, Call *c);
Obj *lo_gelu(Interp *I, Call *c);
Obj *lo_mm(Interp *I, Call *c);
Obj *lo_addmm(Interp *I, Call *c);
Obj *lo_linear(Interp *I, Call *c);

/* torchlib_dynstore.c: t[index] = the value src where one slice of index
 * has a symbolic bound; 0, -1 after a diagnostic, -2 when it is not such
 * an assignment (the caller refuses it as before) */
int tl_dyn_slice_store(Interp *I, Obj *t, Obj *index, int32_t src, int32_t node);

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
Obj *lo_reshape(Interp *I, Call *c);
Obj *lo_reshape_as(Interp *I, Call *c);
Obj *lo_transpose(Interp *I, Call *c);
Obj *lo_permute(Interp *I, Call *c);
Obj *lo_t(Interp *I, Call *c);
Obj *lo_contiguous(Interp *I, Call *c);
Obj *lo_clone(Interp *I, Call *c);
Obj *lo_unsqueeze(Interp *I, Call *c);
Obj *lo_squeeze(Interp *I, Call *c);
Obj *lo_flatten(Interp *I, Call *c);
Obj *lo_narrow(Interp *I, Call *c);
Obj *lo_cat(Interp *I, Call *c);
Obj *lo_split(Interp *I, Call *c);

/* torchlib_compare.c */
Obj *lo_compare(Interp *I, Call *c);
Obj *lo_bool(Interp *I, Call *c);
Obj *lo_where(Interp *I, Call *c);
Obj *lo_masked_fill(Interp *I, Call *c);
Obj *lo_any_all(Interp *I, Call *c);
Obj *lo_fill_(Interp *I, Call *c);
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
Obj *lo_reduce(Interp *I, Call *c);
Obj *lo_softmax(Interp *I, Call *c);
Obj *lo_layer_norm(Interp *I, Call *c);
Obj *lo_embedding(Interp *I, Call *c);
Obj *lo_rms_norm(Interp *I, Call *c);

/* torchlib_index.c */
int tl_index_has_tensor(const Obj *index);
Obj *tl_index_subscript(Interp *I, Obj *t, Obj *index, int32_t node);
int tl_index_store_subscript(Interp *I, Obj *t, Obj *index, Obj *v, int32_t node);
int32_t tl_index_values(Interp *I, int32_t dst, Obj *v, int32_t node);
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
Obj *lo_format_cast(Interp *I, Call *c);
Obj *lo_quant_matmul(Interp *I, Call *c);
Obj *lo_weight_quant_batchmatmul(Interp *I, Call *c);
Obj *lo_dequant_swiglu_quant(Interp *I, Call *c);
Obj *lo_swiglu(Interp *I, Call *c);

/* torchlib_tensor.c */
Obj *lo_to(Interp *I, Call *c);
Obj *lo_cast(Interp *I, Call *c);
Obj *lo_type_as(Interp *I, Call *c);
Obj *lo_same(Interp *I, Call *c);
Obj *lo_query(Interp *I, Call *c);
Obj *lo_copy(Interp *I, Call *c);
Obj *lo_create(Interp *I, Call *c);
Obj *lo_create_like(Interp *I, Call *c);
Obj *lo_tensor(Interp *I, Call *c);
Obj *lo_arange(Interp *I, Call *c);
Obj *lo_finfo(Interp *I, Call *c);

/* torchlib_modules.c */
Obj *tl_module_method(Interp *I, const char *m, Obj *self, CallArgs *a);
Obj *tl_module_construct(Interp *I, const char *name, CallArgs *a);
size_t tl_module_parse_sigs(StrBuf *why);
Obj *lo_mha_forward(Interp *I, Call *c);
Obj *tl_module_init_on(Interp *I, Obj *inst, const char *full, CallArgs *a);
int tl_module_is_class(const char *full);
int tl_module_has_base_method(const char *full, const char *name);
Obj *tl_module_base_method(Interp *I, const char *full, const char *name, Obj *inst, CallArgs *a);

/* torchlib_modules.c: script subclasses of torch.nn classes */
Obj *tl_subclass_method(Interp *I, const char *m, Obj *self, CallArgs *a);
Obj *tl_subclass_explicit(Interp *I, const char *name, CallArgs *a);
int tl_module_class_known(const char *cls);

/* torchlib.c */
int tl_lib_has(const char *path);

/* torchlib_dist.c: torch.distributed with --world-size N > 1 (NULL: a name it
 * leaves to the caller) */
Obj *tl_dist_call(Interp *I, const char *name, CallArgs *a);

/* torchlib_hstack.c */
Obj *lo_hstack(Interp *I, Call *c);
Obj *lo_vdstack(Interp *I, Call *c);

/* torchlib_rmsnorm.c */
Obj *lo_rms_norm_f(Interp *I, Call *c);

#endif
