/*
 * torchlib.c - the torch library of the abstract interpreter.
 *
 * The evaluator (eval.c) comes here whenever it meets a torch function
 * (torch.*, torch.nn.functional.*, torch_npu.*), a tensor method, an nn
 * module (construction or call), or an operator / subscript on a tensor.
 * Every tensor operation becomes an op of the current graph
 * (interp_graph): the host graph in host mode (constant dims: it only
 * computes shapes), the entry's graph while tracing a compiled method.
 * Shape and dtype inference is graph.c's; this file maps the Python
 * surface onto the op kinds of graph.h, following its input/attribute
 * conventions.
 *
 * Rules: every Obj is checked for its kind before use. An unknown tensor
 * operand gives an unknown result silently (it echoes an earlier
 * diagnostic: no cascades); an unknown size, dim, index, slice bound or
 * other value the plan needs is TNG205 where it is used (interp_break: a
 * diagnostic while tracing, silent in host mode). Constructs outside the
 * compilable subset are graph breaks with a TNG2xx rule; torchlib_call
 * returns NULL only for names it does not know (the caller reports them).
 *
 * Layout: the library is three layers, each calling only the ones below
 * it. This file is the top: the name table `lib`, the entry points
 * (calls, attributes, the generic in-place method form), operators and
 * subscripts. The lowerings (lo_*), each under the Python signature it
 * lowers, are in torchlib_<family>.c (arith, shape, compare, reduce,
 * index, nn, npu, tensor), the nn modules (the table `nn_modules`: class,
 * constructor, forward) in torchlib_modules.c; torchlib_int.h declares
 * them. The helpers every lowering uses are in torchlib_core.c
 * (torchlib_core.h), which names no lowering.
 */

#include "torchlib.h"
#include "torchlib_int.h"

/* ===================================================================== */
/* The library table                                                     */
/* ===================================================================== */

/* Where a name is known: torch.X, torch.nn.functional.X, torch_npu.X, or
 * as a tensor method. NOTENSOR: the function form takes no tensor operand
 * (creation). */
enum { NS_TORCH = 1, NS_F = 2, NS_NPU = 4, NS_METH = 8, NOTENSOR = 16 };
#define NS_TM (NS_TORCH | NS_METH)
#define NS_TFM (NS_TORCH | NS_F | NS_METH)

typedef Obj *(*LowerFn)(Interp *I, Call *c);

/* A row: the name, where it is known, its lowering, the lowering's table
 * argument, and the Python signature (sig.h's language: PyTorch's
 * parameter names, order, defaults and keyword-only markers) that binds a
 * call's arguments before the lowering reads them (Call.p). A method's
 * self is parameter 0. Rows of one name whose signatures differ by
 * namespace (F.softmax and torch.softmax) are rows of their own. */
static const struct LibEntry {
    const char *name;
    unsigned ns;
    LowerFn fn;
    int arg;
    const char *sig;
} lib[] = {
    /* arithmetic */
    {"add", NS_TM, lo_arith, OP_ADD,
     "add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor? out=None) -> Tensor"},
    {"sub", NS_TM, lo_arith, OP_SUB,
     "sub(Tensor input, Tensor other, *, Scalar alpha=1, Tensor? out=None) -> Tensor"},
    {"subtract", NS_TM, lo_arith, OP_SUB,
     "subtract(Tensor input, Tensor other, *, Scalar alpha=1, Tensor? out=None) -> Tensor"},
    {"mul", NS_TM, lo_arith, OP_MUL,
     "mul(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"multiply", NS_TM, lo_arith, OP_MUL,
     "multiply(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"div", NS_TM, lo_arith, OP_DIV,
     "div(Tensor input, Tensor other, *, str? rounding_mode=None, Tensor? out=None) -> Tensor"},
    {"divide", NS_TM, lo_arith, OP_DIV,
     "divide(Tensor input, Tensor other, *, str? rounding_mode=None, Tensor? out=None) -> Tensor"},
    {"true_divide", NS_TM, lo_arith, OP_DIV,
     "true_divide(Tensor dividend, Tensor divisor, *, Tensor? out=None) -> Tensor"},
    {"pow", NS_TM, lo_pow, 0,
     "pow(Tensor input, Tensor exponent, *, Tensor? out=None) -> Tensor"},
    /* unary elementwise */
    {"neg", NS_TM, lo_unary, OP_NEG,
     "neg(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"negative", NS_TM, lo_unary, OP_NEG,
     "negative(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"abs", NS_TM, lo_unary, OP_ABS,
     "abs(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"exp", NS_TM, lo_unary, OP_EXP,
     "exp(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"log", NS_TM, lo_unary, OP_LOG,
     "log(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"sqrt", NS_TM, lo_unary, OP_SQRT,
     "sqrt(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"rsqrt", NS_TM, lo_unary, OP_RSQRT,
     "rsqrt(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"relu", NS_TFM, lo_unary, OP_RELU,
     "relu(Tensor input, bool inplace=False) -> Tensor"},
    {"silu", NS_F, lo_unary, OP_SILU,
     "silu(Tensor input, bool inplace=False) -> Tensor"},
    {"sigmoid", NS_TFM, lo_unary, OP_SIGMOID,
     "sigmoid(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"tanh", NS_TFM, lo_unary, OP_TANH,
     "tanh(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"gelu", NS_F, lo_gelu, 0,
     "gelu(Tensor input, *, str approximate='none') -> Tensor"},
    {"cos", NS_TM, lo_unary, OP_COS,
     "cos(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"sin", NS_TM, lo_unary, OP_SIN,
     "sin(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"reciprocal", NS_TM, lo_unary, OP_RECIPROCAL,
     "reciprocal(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"square", NS_TM, lo_unary, OP_SQUARE,
     "square(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"sign", NS_TM, lo_unary, OP_SIGN,
     "sign(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"floor", NS_TM, lo_unary, OP_FLOOR,
     "floor(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"ceil", NS_TM, lo_unary, OP_CEIL,
     "ceil(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"round", NS_TM, lo_round, 0,
     "round(Tensor input, *, int decimals=0, Tensor? out=None) -> Tensor"},
    {"erf", NS_TM, lo_unary, OP_ERF,
     "erf(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"log1p", NS_TM, lo_unary, OP_LOG1P,
     "log1p(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"expm1", NS_TM, lo_unary, OP_EXPM1,
     "expm1(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"log2", NS_TM, lo_unary, OP_LOG2,
     "log2(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"exp2", NS_TM, lo_unary, OP_EXP2,
     "exp2(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"softplus", NS_F, lo_softplus, 0,
     "softplus(Tensor input, Scalar beta=1, Scalar threshold=20) -> Tensor"},
    {"leaky_relu", NS_F, lo_leaky_relu, 0,
     "leaky_relu(Tensor input, float negative_slope=0.01, bool inplace=False) -> Tensor"},
    {"hardswish", NS_F, lo_unary, OP_HARDSWISH,
     "hardswish(Tensor input, bool inplace=False) -> Tensor"},
    {"mish", NS_F, lo_unary, OP_MISH,
     "mish(Tensor input, bool inplace=False) -> Tensor"},
    {"clamp", NS_TM, lo_clamp, OP_CLAMP,
     "clamp(Tensor input, Scalar? min=None, Scalar? max=None, *, Tensor? out=None) -> Tensor"},
    {"clip", NS_TM, lo_clamp, OP_CLAMP,
     "clip(Tensor input, Scalar? min=None, Scalar? max=None, *, Tensor? out=None) -> Tensor"},
    {"clamp_min", NS_TM, lo_clamp, OP_CLAMP_MIN,
     "clamp_min(Tensor input, Scalar min, *, Tensor? out=None) -> Tensor"},
    {"clamp_max", NS_TM, lo_clamp, OP_CLAMP_MAX,
     "clamp_max(Tensor input, Scalar max, *, Tensor? out=None) -> Tensor"},
    {"maximum", NS_TM, lo_maximum, OP_MAXIMUM,
     "maximum(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"minimum", NS_TM, lo_maximum, OP_MINIMUM,
     "minimum(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"logaddexp", NS_TM, lo_maximum, OP_LOGADDEXP,
     "logaddexp(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"logaddexp2", NS_TM, lo_maximum, OP_LOGADDEXP2,
     "logaddexp2(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    /* matrix products */
    {"mm", NS_TM, lo_mm, OP_MM,
     "mm(Tensor input, Tensor mat2, *, Tensor? out=None) -> Tensor"},
    {"bmm", NS_TM, lo_mm, OP_BMM,
     "bmm(Tensor input, Tensor mat2, *, Tensor? out=None) -> Tensor"},
    {"matmul", NS_TM, lo_mm, OP_MATMUL,
     "matmul(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"addmm", NS_TM, lo_addmm, 0,
     "addmm(Tensor input, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor? out=None) -> Tensor"},
    {"linear", NS_F, lo_linear, 0,
     "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor"},
    /* shapes */
    {"view", NS_METH, lo_reshape, 0,
     "view(Tensor self, int... size) -> Tensor | view(Tensor self, ScalarType dtype) -> Tensor"},
    {"reshape", NS_TM, lo_reshape, 0,
     "reshape(Tensor input, int... shape) -> Tensor"},
    {"view_as", NS_METH, lo_reshape_as, 0,
     "view_as(Tensor self, Tensor other) -> Tensor"},
    {"reshape_as", NS_METH, lo_reshape_as, 0,
     "reshape_as(Tensor self, Tensor other) -> Tensor"},
    {"transpose", NS_TM, lo_transpose, 0,
     "transpose(Tensor input, int dim0, int dim1) -> Tensor"},
    {"swapaxes", NS_TM, lo_transpose, 0,
     "swapaxes(Tensor input, int axis0, int axis1) -> Tensor"},
    {"swapdims", NS_TM, lo_transpose, 0,
     "swapdims(Tensor input, int dim0, int dim1) -> Tensor"},
    {"permute", NS_TM, lo_permute, 0,
     "permute(Tensor input, int... dims) -> Tensor"},
    {"t", NS_TM, lo_t, 0,
     "t(Tensor input) -> Tensor"},
    {"contiguous", NS_METH, lo_contiguous, 0,
     "contiguous(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor"},
    {"unsqueeze", NS_TM, lo_unsqueeze, 0,
     "unsqueeze(Tensor input, int dim) -> Tensor"},
    {"squeeze", NS_TM, lo_squeeze, 0,
     "squeeze(Tensor input, int[]? dim=None) -> Tensor"},
    {"flatten", NS_TM, lo_flatten, 0,
     "flatten(Tensor input, int start_dim=0, int end_dim=-1) -> Tensor"},
    {"narrow", NS_TM, lo_narrow, 0,
     "narrow(Tensor input, int dim, int start, int length) -> Tensor"},
    {"cat", NS_TORCH, lo_cat, OP_CAT,
     "cat(Tensor[] tensors, int dim=0, *, Tensor? out=None) -> Tensor | cat(Tensor[] tensors, *, int axis, "
     "Tensor? out=None) -> Tensor"},
    {"concat", NS_TORCH, lo_cat, OP_CAT,
     "concat(Tensor[] tensors, int dim=0, *, Tensor? out=None) -> Tensor | concat(Tensor[] tensors, *, int axis, "
     "Tensor? out=None) -> Tensor"},
    {"concatenate", NS_TORCH, lo_cat, OP_CAT,
     "concatenate(Tensor[] tensors, int dim=0, *, Tensor? out=None) -> Tensor | concatenate(Tensor[] tensors, *, "
     "int axis, Tensor? out=None) -> Tensor"},
    {"hstack", NS_TORCH, lo_hstack, 0,
     "hstack(Tensor[] tensors, *, Tensor? out=None) -> Tensor"},
    {"vstack", NS_TORCH, lo_vdstack, 2,
     "vstack(Tensor[] tensors, *, Tensor? out=None) -> Tensor"},
    {"row_stack", NS_TORCH, lo_vdstack, 2,
     "row_stack(Tensor[] tensors, *, Tensor? out=None) -> Tensor"},
    {"dstack", NS_TORCH, lo_vdstack, 3,
     "dstack(Tensor[] tensors, *, Tensor? out=None) -> Tensor"},
    {"stack", NS_TORCH, lo_cat, OP_STACK,
     "stack(Tensor[] tensors, int dim=0, *, Tensor? out=None) -> Tensor | stack(Tensor[] tensors, *, int axis, "
     "Tensor? out=None) -> Tensor"},
    {"split", NS_TM, lo_split, 0,
     "split(Tensor tensor, int[] split_size_or_sections, int dim=0) -> Tensor[] | split(Tensor tensor, "
     "int[] split_size, int dim=0) -> Tensor[]"},
    {"chunk", NS_TM, lo_split, 1,
     "chunk(Tensor input, int chunks, int dim=0) -> Tensor[]"},
    {"unbind", NS_TM, lo_split, 2,
     "unbind(Tensor input, int dim=0) -> Tensor[]"},
    /* reductions, softmax, norms */
    {"sum", NS_TM, lo_reduce, OP_SUM,
     "sum(Tensor input, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, "
     "Tensor? out=None) -> Tensor | sum(Tensor input, *, int[1]? axis, bool keepdim=False, "
     "ScalarType? dtype=None, Tensor? out=None) -> Tensor"},
    {"mean", NS_TM, lo_reduce, OP_MEAN,
     "mean(Tensor input, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, "
     "Tensor? out=None) -> Tensor | mean(Tensor input, *, int[1]? axis, bool keepdim=False, "
     "ScalarType? dtype=None, Tensor? out=None) -> Tensor"},
    {"amax", NS_TM, lo_reduce, OP_AMAX,
     "amax(Tensor input, int[1]? dim=None, bool keepdim=False, *, Tensor? out=None) -> Tensor | "
     "amax(Tensor input, *, int[1]? axis, bool keepdim=False, Tensor? out=None) -> Tensor"},
    {"softmax", NS_F, lo_softmax, OP_SOFTMAX,
     "softmax(Tensor input, int? dim=None, int _stacklevel=3, ScalarType? dtype=None) -> Tensor"},
    {"softmax", NS_TM, lo_softmax, OP_SOFTMAX,
     "softmax(Tensor input, int dim, ScalarType? dtype=None) -> Tensor"},
    {"log_softmax", NS_F, lo_softmax, OP_LOG_SOFTMAX,
     "log_softmax(Tensor input, int? dim=None, int _stacklevel=3, ScalarType? dtype=None) -> Tensor"},
    {"log_softmax", NS_TM, lo_softmax, OP_LOG_SOFTMAX,
     "log_softmax(Tensor input, int dim, ScalarType? dtype=None) -> Tensor"},
    {"layer_norm", NS_TORCH | NS_F, lo_layer_norm, 0,
     "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
     "bool cudnn_enable=True) -> Tensor"},
    {"rms_norm", NS_TORCH | NS_F, lo_rms_norm_f, 0,
     "rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor"},
    {"embedding", NS_F, lo_embedding, 0,
     "embedding(Tensor input, Tensor weight, int? padding_idx=None, float? max_norm=None, float norm_type=2.0, "
     "bool scale_grad_by_freq=False, bool sparse=False) -> Tensor"},
    /* torch_npu */
    {"npu_rms_norm", NS_NPU, lo_rms_norm, 0,
     "npu_rms_norm(Tensor x, Tensor gamma, float epsilon=1e-06) -> (Tensor, Tensor)"},
    {"npu_format_cast", NS_NPU, lo_format_cast, 0,
     "npu_format_cast(Tensor input, int acl_format) -> Tensor"},
    {"npu_quant_matmul", NS_NPU, lo_quant_matmul, 0,
     "npu_quant_matmul(Tensor x1, Tensor x2, Tensor scale, *, Tensor? offset=None, Tensor? pertoken_scale=None, "
     "Tensor? bias=None, ScalarType? output_dtype=None) -> Tensor"},
    {"npu_weight_quant_batchmatmul", NS_NPU, lo_weight_quant_batchmatmul, 0,
     "npu_weight_quant_batchmatmul(Tensor x, Tensor weight, Tensor antiquant_scale, Tensor? antiquant_offset=None, "
     "Tensor? quant_scale=None, Tensor? quant_offset=None, Tensor? bias=None, int antiquant_group_size=0, "
     "int inner_precise=0) -> Tensor"},
    {"npu_dequant_swiglu_quant", NS_NPU, lo_dequant_swiglu_quant, 0,
     "npu_dequant_swiglu_quant(Tensor x, Tensor? weight_scale=None, Tensor? activation_scale=None, "
     "Tensor? bias=None, Tensor? quant_scale=None, Tensor? quant_offset=None, Tensor? group_index=None, "
     "bool activate_left=False, Any quant_mode=0) -> (Tensor, Tensor)"},
    {"npu_swiglu", NS_NPU, lo_swiglu, 0,
     "npu_swiglu(Tensor input, int dim=-1) -> Tensor"},
    /* casts, identities, queries */
    {"to", NS_METH, lo_to, 0,
     "to(Tensor self, Any?... args, *, ScalarType? dtype=None, Device? device=None, bool non_blocking=False, "
     "bool copy=False, MemoryFormat? memory_format=None) -> Tensor"},
    {"float", NS_METH, lo_cast, DT_F32,
     "float(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor"},
    {"half", NS_METH, lo_cast, DT_F16,
     "half(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor"},
    {"bfloat16", NS_METH, lo_cast, DT_BF16,
     "bfloat16(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor"},
    {"int", NS_METH, lo_cast, DT_I32,
     "int(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor"},
    {"long", NS_METH, lo_cast, DT_I64,
     "long(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor"},
    {"bool", NS_METH, lo_cast, DT_BOOL,
     "bool(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor"},
    {"char", NS_METH, lo_cast, DT_I8,
     "char(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor"},
    {"type_as", NS_METH, lo_type_as, 0,
     "type_as(Tensor self, Tensor other) -> Tensor"},
    {"type", NS_METH, lo_type_as, 1,
     "type(Tensor self, Any? dtype=None, bool non_blocking=False) -> Tensor"},
    {"npu", NS_METH, lo_same, 0,
     "npu(Tensor self, Any? device=None, bool non_blocking=False) -> Tensor"},
    {"cuda", NS_METH, lo_same, 0,
     "cuda(Tensor self, Any? device=None, bool non_blocking=False, *, MemoryFormat? memory_format=None) -> Tensor"},
    {"cpu", NS_METH, lo_same, 0,
     "cpu(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor"},
    {"detach", NS_TM, lo_same, 0,
     "detach(Tensor input) -> Tensor"},
    {"clone", NS_TM, lo_clone, 0,
     "clone(Tensor input, *, MemoryFormat? memory_format=None) -> Tensor"},
    {"requires_grad_", NS_METH, lo_same, 0,
     "requires_grad_(Tensor self, bool requires_grad=True) -> Tensor"},
    {"size", NS_METH, lo_query, 0,
     "size(Tensor self, int? dim=None) -> int[]"},
    {"dim", NS_METH, lo_query, 0,
     "dim(Tensor self) -> int"},
    {"ndimension", NS_METH, lo_query, 0,
     "ndimension(Tensor self) -> int"},
    {"numel", NS_TM, lo_query, 0,
     "numel(Tensor input) -> int"},
    {"nelement", NS_METH, lo_query, 0,
     "nelement(Tensor self) -> int"},
    {"element_size", NS_METH, lo_query, 0,
     "element_size(Tensor self) -> int"},
    {"is_floating_point", NS_TM, lo_query, 0,
     "is_floating_point(Tensor input) -> bool"},
    {"is_contiguous", NS_METH, lo_query, 0,
     "is_contiguous(Tensor self, *, MemoryFormat? memory_format=None) -> bool"},
    {"copy_", NS_METH, lo_copy, 0,
     "copy_(Tensor self, Tensor src, bool non_blocking=False) -> Tensor"},
    /* creation */
    {"ones", NS_TORCH | NOTENSOR, lo_create, FILL_ONE,
     "ones(int... size, *, Tensor? out=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
     "bool requires_grad=False) -> Tensor"},
    {"zeros", NS_TORCH | NOTENSOR, lo_create, FILL_ZERO,
     "zeros(int... size, *, Tensor? out=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
     "bool requires_grad=False) -> Tensor"},
    {"empty", NS_TORCH | NOTENSOR, lo_create, FILL_ZERO,
     "empty(int... size, *, Tensor? out=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
     "bool requires_grad=False, bool pin_memory=False, MemoryFormat? memory_format=None) -> Tensor"},
    {"randn", NS_TORCH | NOTENSOR, lo_create, FILL_ZERO,
     "randn(int... size, *, Generator? generator=None, Tensor? out=None, ScalarType? dtype=None, "
     "Layout? layout=None, Device? device=None, bool requires_grad=False, bool pin_memory=False) -> Tensor"},
    {"rand", NS_TORCH | NOTENSOR, lo_create, FILL_ZERO,
     "rand(int... size, *, Generator? generator=None, Tensor? out=None, ScalarType? dtype=None, "
     "Layout? layout=None, Device? device=None, bool requires_grad=False, bool pin_memory=False) -> Tensor"},
    {"full", NS_TORCH | NOTENSOR, lo_create, FILL_FULL,
     "full(int[] size, Scalar fill_value, *, Tensor? out=None, ScalarType? dtype=None, Layout? layout=None, "
     "Device? device=None, bool requires_grad=False) -> Tensor"},
    {"randint", NS_TORCH | NOTENSOR, lo_create, FILL_RANDINT,
     "randint(int high, int[] size, *, Generator? generator=None, Tensor? out=None, ScalarType? dtype=None, "
     "Layout? layout=None, Device? device=None, bool requires_grad=False) -> Tensor | randint(int low, int high, "
     "int[] size, *, Generator? generator=None, Tensor? out=None, ScalarType? dtype=None, Layout? layout=None, "
     "Device? device=None, bool requires_grad=False) -> Tensor"},
    {"tensor", NS_TORCH | NOTENSOR, lo_tensor, 0,
     "tensor(Any data, *, ScalarType? dtype=None, Device? device=None, bool requires_grad=False, "
     "bool pin_memory=False) -> Tensor"},
    {"ones_like", NS_TORCH, lo_create_like, FILL_ONE,
     "ones_like(Tensor input, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
     "bool requires_grad=False, MemoryFormat? memory_format=None) -> Tensor"},
    {"zeros_like", NS_TORCH, lo_create_like, FILL_ZERO,
     "zeros_like(Tensor input, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
     "bool requires_grad=False, MemoryFormat? memory_format=None) -> Tensor"},
    {"empty_like", NS_TORCH, lo_create_like, FILL_ZERO,
     "empty_like(Tensor input, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
     "bool requires_grad=False, MemoryFormat? memory_format=None) -> Tensor"},
    {"randn_like", NS_TORCH, lo_create_like, FILL_ZERO,
     "randn_like(Tensor input, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
     "bool requires_grad=False, MemoryFormat? memory_format=None) -> Tensor"},
    {"rand_like", NS_TORCH, lo_create_like, FILL_ZERO,
     "rand_like(Tensor input, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
     "bool requires_grad=False, MemoryFormat? memory_format=None) -> Tensor"},
    {"full_like", NS_TORCH, lo_create_like, FILL_FULL,
     "full_like(Tensor input, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, "
     "Device? device=None, bool requires_grad=False, MemoryFormat? memory_format=None) -> Tensor"},
    {"new_zeros", NS_METH, lo_create_like, FILL_ZERO,
     "new_zeros(Tensor self, int... size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
     "bool requires_grad=False, bool pin_memory=False) -> Tensor"},
    {"new_ones", NS_METH, lo_create_like, FILL_ONE,
     "new_ones(Tensor self, int... size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
     "bool requires_grad=False, bool pin_memory=False) -> Tensor"},
    {"new_empty", NS_METH, lo_create_like, FILL_ZERO,
     "new_empty(Tensor self, int... size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
     "bool requires_grad=False, bool pin_memory=False) -> Tensor"},
    {"new_full", NS_METH, lo_create_like, FILL_FULL,
     "new_full(Tensor self, int[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, "
     "Device? device=None, bool requires_grad=False, bool pin_memory=False) -> Tensor"},
    /* -- creation and constants -- */
    {"arange", NS_TORCH | NOTENSOR, lo_arange, 0,
     "arange(Scalar end, *, Tensor? out=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
     "bool requires_grad=False) -> Tensor | arange(Scalar start, Scalar end, Scalar step=1, *, Tensor? out=None, "
     "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool requires_grad=False) -> Tensor"},
    {"finfo", NS_TORCH | NOTENSOR, lo_finfo, 0,
     "finfo(ScalarType? type=None) -> finfo"},
    {"iinfo", NS_TORCH | NOTENSOR, lo_finfo, 1,
     "iinfo(ScalarType type) -> iinfo"},
    /* -- shape -- */
    {"triu", NS_TM, lo_tri, OP_TRIU,
     "triu(Tensor input, int diagonal=0, *, Tensor? out=None) -> Tensor"},
    {"tril", NS_TM, lo_tri, OP_TRIL,
     "tril(Tensor input, int diagonal=0, *, Tensor? out=None) -> Tensor"},
    {"expand", NS_METH, lo_expand, 0,
     "expand(Tensor self, int... size) -> Tensor"},
    {"expand_as", NS_METH, lo_expand_as, 0,
     "expand_as(Tensor self, Tensor other) -> Tensor"},
    {"broadcast_to", NS_TM, lo_expand, 1,
     "broadcast_to(Tensor input, int[] shape) -> Tensor"},
    {"repeat", NS_METH, lo_repeat, 0,
     "repeat(Tensor self, int... repeats) -> Tensor"},
    {"repeat_interleave", NS_TM, lo_repeat_interleave, 0,
     "repeat_interleave(Tensor input, Tensor repeats, int? dim=None, *, int? output_size=None) -> Tensor"},
    {"flip", NS_TM, lo_flip, 0,
     "flip(Tensor input, int... dims) -> Tensor"},
    {"fliplr", NS_TM, lo_flip, 1,
     "fliplr(Tensor input) -> Tensor"},
    {"flipud", NS_TM, lo_flip, 2,
     "flipud(Tensor input) -> Tensor"},
    {"roll", NS_TM, lo_roll, 0,
     "roll(Tensor input, int[1] shifts, int[1]? dims=None) -> Tensor"},
    {"movedim", NS_TM, lo_movedim, 0,
     "movedim(Tensor input, int[] source, int[] destination) -> Tensor"},
    {"moveaxis", NS_TM, lo_movedim, 0,
     "moveaxis(Tensor input, int[] source, int[] destination) -> Tensor"},
    {"unflatten", NS_TM, lo_unflatten, 0,
     "unflatten(Tensor input, int dim, int[] sizes) -> Tensor"},
    {"pad", NS_F, lo_pad, 0,
     "pad(Tensor input, int[] pad, str mode='constant', float? value=None) -> Tensor"},
    /* -- comparison, selection, bool -- */
    {"eq", NS_TM, lo_compare, OP_EQ,
     "eq(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"ne", NS_TM, lo_compare, OP_NE,
     "ne(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"not_equal", NS_TM, lo_compare, OP_NE,
     "not_equal(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"lt", NS_TM, lo_compare, OP_LT,
     "lt(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"less", NS_TM, lo_compare, OP_LT,
     "less(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"le", NS_TM, lo_compare, OP_LE,
     "le(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"less_equal", NS_TM, lo_compare, OP_LE,
     "less_equal(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"gt", NS_TM, lo_compare, OP_GT,
     "gt(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"greater", NS_TM, lo_compare, OP_GT,
     "greater(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"ge", NS_TM, lo_compare, OP_GE,
     "ge(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"greater_equal", NS_TM, lo_compare, OP_GE,
     "greater_equal(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"logical_and", NS_TM, lo_bool, OP_LOGICAL_AND,
     "logical_and(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"logical_or", NS_TM, lo_bool, OP_LOGICAL_OR,
     "logical_or(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"logical_xor", NS_TM, lo_bool, OP_LOGICAL_XOR,
     "logical_xor(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"logical_not", NS_TM, lo_bool, OP_LOGICAL_NOT,
     "logical_not(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"bitwise_and", NS_TM, lo_bool, OP_BITWISE_AND,
     "bitwise_and(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"bitwise_or", NS_TM, lo_bool, OP_BITWISE_OR,
     "bitwise_or(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"bitwise_xor", NS_TM, lo_bool, OP_BITWISE_XOR,
     "bitwise_xor(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor"},
    {"bitwise_not", NS_TM, lo_bool, OP_BITWISE_NOT,
     "bitwise_not(Tensor input, *, Tensor? out=None) -> Tensor"},
    {"isnan", NS_TM, lo_unary, OP_ISNAN,
     "isnan(Tensor input) -> Tensor"},
    {"isinf", NS_TM, lo_unary, OP_ISINF,
     "isinf(Tensor input) -> Tensor"},
    {"isfinite", NS_TM, lo_unary, OP_ISFINITE,
     "isfinite(Tensor input) -> Tensor"},
    {"where", NS_TORCH, lo_where, 0,
     "where(Tensor condition, Tensor input, Tensor other, *, Tensor? out=None) -> Tensor | "
     "where(Tensor condition) -> Tensor[]"},
    {"where", NS_METH, lo_where, 0,
     "where(Tensor self, Tensor condition, Tensor other) -> Tensor"},
    {"masked_fill", NS_TM, lo_masked_fill, 0,
     "masked_fill(Tensor input, Tensor mask, Scalar value) -> Tensor"},
    {"any", NS_TM, lo_any_all, OP_REDUCE_ANY,
     "any(Tensor input, int? dim=None, bool keepdim=False, *, Tensor? out=None) -> Tensor"},
    {"all", NS_TM, lo_any_all, OP_REDUCE_ALL,
     "all(Tensor input, int? dim=None, bool keepdim=False, *, Tensor? out=None) -> Tensor"},
    {"zero_", NS_METH, lo_fill_, 0,
     "zero_(Tensor self) -> Tensor"},
    {"fill_", NS_METH, lo_fill_, 1,
     "fill_(Tensor self, Scalar value) -> Tensor"},
    /* -- reductions, sorting, contractions -- */
    {"topk", NS_TM, lo_topk, 0,
     "topk(Tensor input, int k, int dim=-1, bool largest=True, bool sorted=True, *, "
     "Tensor? out=None) -> (Tensor, Tensor)"},
    {"sort", NS_TM, lo_sort, OP_SORT,
     "sort(Tensor input, int dim=-1, bool descending=False, *, bool? stable=False, Tensor? out=None) -> (Tensor, "
     "Tensor)"},
    {"argsort", NS_TM, lo_sort, OP_ARGSORT,
     "argsort(Tensor input, int dim=-1, bool descending=False, *, bool stable=False) -> Tensor"},
    {"max", NS_TM, lo_max, OP_AMAX,
     "max(Tensor input) -> Tensor | max(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor | "
     "max(Tensor input, int dim, bool keepdim=False, *, Tensor? out=None) -> (Tensor, Tensor)"},
    {"min", NS_TM, lo_max, OP_AMIN,
     "min(Tensor input) -> Tensor | min(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor | "
     "min(Tensor input, int dim, bool keepdim=False, *, Tensor? out=None) -> (Tensor, Tensor)"},
    {"amin", NS_TM, lo_reduce, OP_AMIN,
     "amin(Tensor input, int[1]? dim=None, bool keepdim=False, *, Tensor? out=None) -> Tensor | "
     "amin(Tensor input, *, int[1]? axis, bool keepdim=False, Tensor? out=None) -> Tensor"},
    {"argmax", NS_TM, lo_argmax, OP_ARGMAX,
     "argmax(Tensor input, int? dim=None, bool keepdim=False) -> Tensor"},
    {"argmin", NS_TM, lo_argmax, OP_ARGMIN,
     "argmin(Tensor input, int? dim=None, bool keepdim=False) -> Tensor"},
    {"prod", NS_TM, lo_prod, 0,
     "prod(Tensor input, int? dim=None, bool keepdim=False, *, ScalarType? dtype=None, "
     "Tensor? out=None) -> Tensor"},
    {"cumsum", NS_TM, lo_cumsum, 0,
     "cumsum(Tensor input, int dim, *, ScalarType? dtype=None, Tensor? out=None) -> Tensor"},
    {"var", NS_TM, lo_var, 0,
     "var(Tensor input, int[1]? dim=None, bool? unbiased=None, bool keepdim=False, *, Scalar? correction=None, "
     "Tensor? out=None) -> Tensor"},
    {"std", NS_TM, lo_var, 1,
     "std(Tensor input, int[1]? dim=None, bool? unbiased=None, bool keepdim=False, *, Scalar? correction=None, "
     "Tensor? out=None) -> Tensor"},
    {"norm", NS_TORCH, lo_norm, 0,
     "norm(Tensor input, Any? p='fro', int[1]? dim=None, bool keepdim=False, Tensor? out=None, "
     "ScalarType? dtype=None) -> Tensor"},
    {"norm", NS_METH, lo_norm, 0,
     "norm(Tensor self, Any? p='fro', int[1]? dim=None, bool keepdim=False, ScalarType? dtype=None) -> Tensor"},
    {"linalg.vector_norm", NS_TORCH, lo_norm, 1,
     "linalg.vector_norm(Tensor x, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
     "ScalarType? dtype=None, Tensor? out=None) -> Tensor"},
    {"normalize", NS_F, lo_normalize, 0,
     "normalize(Tensor input, float p=2.0, int dim=1, float eps=1e-12, Tensor? out=None) -> Tensor"},
    {"polar", NS_TORCH, lo_polar, 0, "polar(Tensor abs, Tensor angle) -> Tensor"},
    {"complex", NS_TORCH, lo_complex, 0, "complex(Tensor real, Tensor imag) -> Tensor"},
    {"view_as_complex", NS_TORCH, lo_view_as_complex, 0, "view_as_complex(Tensor self) -> Tensor"},
    {"view_as_real", NS_TORCH, lo_view_as_real, 0, "view_as_real(Tensor self) -> Tensor"},
    {"outer", NS_TM, lo_outer, 0,
     "outer(Tensor input, Tensor vec2, *, Tensor? out=None) -> Tensor"},
    {"ger", NS_TM, lo_outer, 0,
     "ger(Tensor input, Tensor vec2, *, Tensor? out=None) -> Tensor"},
    {"baddbmm", NS_TM, lo_baddbmm, 0,
     "baddbmm(Tensor input, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, "
     "Tensor? out=None) -> Tensor"},
    {"einsum", NS_TORCH | NOTENSOR, lo_einsum, 0,
     "einsum(str equation, Tensor... operands) -> Tensor"},
    /* -- indexing and scatter -- */
    {"index_select", NS_TM, lo_index_select, 0,
     "index_select(Tensor input, int dim, Tensor index, *, Tensor? out=None) -> Tensor"},
    {"gather", NS_TM, lo_index_select, 1,
     "gather(Tensor input, int dim, Tensor index, *, bool sparse_grad=False, Tensor? out=None) -> Tensor"},
    {"scatter", NS_TM, lo_scatter, 0,
     "scatter(Tensor input, int dim, Tensor index, Tensor src, *, str? reduce=None, "
     "Tensor? out=None) -> Tensor | scatter(Tensor input, int dim, Tensor index, *, Scalar value, "
     "str? reduce=None, Tensor? out=None) -> Tensor"},
    {"scatter_", NS_METH, lo_scatter, IX_INPLACE,
     "scatter_(Tensor self, int dim, Tensor index, Tensor src, *, str? reduce=None) -> Tensor | "
     "scatter_(Tensor self, int dim, Tensor index, *, Scalar value, str? reduce=None) -> Tensor"},
    {"scatter_add", NS_TM, lo_scatter, IX_ADD,
     "scatter_add(Tensor input, int dim, Tensor index, Tensor src, *, Tensor? out=None) -> Tensor"},
    {"scatter_add_", NS_METH, lo_scatter, IX_ADD | IX_INPLACE,
     "scatter_add_(Tensor self, int dim, Tensor index, Tensor src) -> Tensor"},
    {"index_add", NS_TM, lo_index_add, IX_ADD,
     "index_add(Tensor input, int dim, Tensor index, Tensor source, *, Scalar alpha=1, "
     "Tensor? out=None) -> Tensor"},
    {"index_add_", NS_METH, lo_index_add, IX_ADD | IX_INPLACE,
     "index_add_(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor"},
    {"index_copy", NS_TM, lo_index_add, 0,
     "index_copy(Tensor input, int dim, Tensor index, Tensor source, *, Tensor? out=None) -> Tensor"},
    {"index_copy_", NS_METH, lo_index_add, IX_INPLACE,
     "index_copy_(Tensor self, int dim, Tensor index, Tensor source) -> Tensor"},
    {"index_put", NS_TM, lo_index_put, 0,
     "index_put(Tensor input, Tensor[] indices, Tensor values, bool accumulate=False) -> Tensor"},
    {"index_put_", NS_METH, lo_index_put, IX_INPLACE,
     "index_put_(Tensor self, Tensor[] indices, Tensor values, bool accumulate=False) -> Tensor"},
    {"one_hot", NS_F, lo_one_hot, 0,
     "one_hot(Tensor tensor, int num_classes=-1) -> Tensor"},
    /* -- neural net -- */
    {"dropout1d", NS_F, lo_dropout, 0,
     "dropout1d(Tensor input, float p=0.5, bool training=True, bool inplace=False) -> Tensor"},
    {"dropout2d", NS_F, lo_dropout, 0,
     "dropout2d(Tensor input, float p=0.5, bool training=True, bool inplace=False) -> Tensor"},
    {"dropout3d", NS_F, lo_dropout, 0,
     "dropout3d(Tensor input, float p=0.5, bool training=True, bool inplace=False) -> Tensor"},
    {"alpha_dropout", NS_F, lo_dropout, 0,
     "alpha_dropout(Tensor input, float p=0.5, bool training=False, bool inplace=False) -> Tensor"},
    {"alpha_dropout", NS_TORCH, lo_dropout, 0,
     "alpha_dropout(Tensor input, float p, bool train) -> Tensor"},
    {"feature_alpha_dropout", NS_F, lo_dropout, 0,
     "feature_alpha_dropout(Tensor input, float p=0.5, bool training=False, bool inplace=False) -> Tensor"},
    {"feature_alpha_dropout", NS_TORCH, lo_dropout, 0,
     "feature_alpha_dropout(Tensor input, float p, bool train) -> Tensor"},
    {"feature_dropout", NS_TORCH, lo_dropout, 0,
     "feature_dropout(Tensor input, float p, bool train) -> Tensor"},
    {"scaled_dot_product_attention", NS_F, lo_sdpa, 0,
     "scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
     "float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor"},
    {"multi_head_attention_forward", NS_F, lo_mha_forward, 0,
     "multi_head_attention_forward(Tensor query, Tensor key, Tensor value, int embed_dim_to_check, int num_heads, "
     "Tensor? in_proj_weight, Tensor? in_proj_bias, Tensor? bias_k, Tensor? bias_v, bool add_zero_attn, "
     "float dropout_p, Tensor out_proj_weight, Tensor? out_proj_bias, bool training=True, "
     "Tensor? key_padding_mask=None, bool need_weights=True, Tensor? attn_mask=None, "
     "bool use_separate_proj_weight=False, Tensor? q_proj_weight=None, Tensor? k_proj_weight=None, "
     "Tensor? v_proj_weight=None, Tensor? static_k=None, Tensor? static_v=None, bool average_attn_weights=True, "
     "bool is_causal=False) -> (Tensor, Tensor?)"},
    {"conv1d", NS_TORCH | NS_F, lo_conv, 1,
     "conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, Any padding=0, int[1] dilation=1, "
     "int groups=1) -> Tensor"},
    {"conv2d", NS_TORCH | NS_F, lo_conv, 2,
     "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, Any padding=0, int[2] dilation=1, "
     "int groups=1) -> Tensor"},
    {"batch_norm", NS_F, lo_batch_norm, 0,
     "batch_norm(Tensor input, Tensor? running_mean, Tensor? running_var, Tensor? weight=None, "
     "Tensor? bias=None, bool training=False, float momentum=0.1, float eps=1e-05) -> Tensor"},
    {"group_norm", NS_TORCH | NS_F, lo_group_norm, 0,
     "group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
     "bool cudnn_enabled=True) -> Tensor"},
    {"max_pool2d", NS_TORCH | NS_F, lo_pool2d, OP_MAX_POOL2D,
     "max_pool2d(Tensor input, int[2] kernel_size, int[2]? stride=None, int[2] padding=0, int[2] dilation=1, "
     "bool ceil_mode=False, bool return_indices=False) -> Tensor"},
    {"avg_pool2d", NS_F, lo_pool2d, OP_AVG_POOL2D,
     "avg_pool2d(Tensor input, int[2] kernel_size, int[2]? stride=None, int[2] padding=0, bool ceil_mode=False, "
     "bool count_include_pad=True, int? divisor_override=None) -> Tensor"},
    {"adaptive_avg_pool2d", NS_F, lo_adaptive_pool2d, OP_ADAPTIVE_AVG_POOL2D,
     "adaptive_avg_pool2d(Tensor input, int[2] output_size) -> Tensor"},
    {"adaptive_max_pool2d", NS_F, lo_adaptive_pool2d, OP_ADAPTIVE_MAX_POOL2D,
     "adaptive_max_pool2d(Tensor input, int[2] output_size, bool return_indices=False) -> Tensor"},
    {"interpolate", NS_F, lo_interpolate, 0,
     "interpolate(Tensor input, int[]? size=None, float[]? scale_factor=None, str mode='nearest', "
     "bool? align_corners=None, bool? recompute_scale_factor=None, bool antialias=False) -> Tensor"},
    {"dropout", NS_F, lo_dropout, 0,
     "dropout(Tensor input, float p=0.5, bool training=True, bool inplace=False) -> Tensor"},
    {"dropout", NS_TORCH, lo_dropout, 0,
     "dropout(Tensor input, float p, bool train) -> Tensor"},
    /* -- torch_npu fused ops -- */
    {"npu_add_rms_norm", NS_NPU, lo_add_rms_norm, 0,
     "npu_add_rms_norm(Tensor x1, Tensor x2, Tensor gamma, float epsilon=1e-06) -> (Tensor, Tensor, Tensor)"},
    {"npu_rotary_mul", NS_NPU, lo_rotary_mul, 0,
     "npu_rotary_mul(Tensor input, Tensor r1, Tensor r2, str rotary_mode='half') -> Tensor"},
    {"npu_interleave_rope", NS_NPU, lo_interleave_rope, 0,
     "npu_interleave_rope(Tensor x, Tensor cos, Tensor sin) -> Tensor"},
    {"npu_apply_rotary_pos_emb", NS_NPU, lo_apply_rotary_pos_emb, 0,
     "npu_apply_rotary_pos_emb(Tensor query, Tensor key, Tensor cos, Tensor sin, Any layout='BSH', "
     "str rotary_mode='half') -> (Tensor, Tensor)"},
    {"npu_prefetch", NS_NPU, lo_prefetch, 0,
     "npu_prefetch(Tensor input, Tensor? dependency, int max_size, int offset=0) -> None"},
    {"npu_dynamic_quant", NS_NPU, lo_dynamic_quant, 0,
     "npu_dynamic_quant(Tensor x, *, Tensor? smooth_scales=None, Tensor? group_index=None, "
     "ScalarType? dst_type=None) -> (Tensor, Tensor)"},
    {"npu_moe_gating_top_k_softmax", NS_NPU, lo_moe_gating_top_k_softmax, 0,
     "npu_moe_gating_top_k_softmax(Tensor x, Tensor? finished=None, int k=1) -> (Tensor, Tensor, Tensor)"},
    {"npu_moe_gating_top_k", NS_NPU, lo_moe_gating_top_k, 0,
     "npu_moe_gating_top_k(Tensor x, int k, *, Tensor? bias=None, int k_group=1, int group_count=1, "
     "int group_select_mode=0, int renorm=0, int norm_type=1, bool out_flag=False, "
     "float routed_scaling_factor=1.0, float eps=1e-20) -> (Tensor, Tensor, Tensor)"},
    {"npu_fused_infer_attention_score", NS_NPU, lo_attention, ATTN_FIA,
     "npu_fused_infer_attention_score(Tensor query, Tensor key, Tensor value, *, Tensor? atten_mask=None, "
     "Any? actual_seq_lengths=None, Any? actual_seq_lengths_kv=None, Tensor? block_table=None, int num_heads=1, "
     "float scale=1.0, int pre_tokens=2147483647, int next_tokens=2147483647, str input_layout='BSH', "
     "int num_key_value_heads=0, int sparse_mode=0, int inner_precise=0, int block_size=0, int antiquant_mode=0, "
     "bool softmax_lse_flag=False, **) -> (Tensor, Tensor)"},
    {"npu_incre_flash_attention", NS_NPU, lo_attention, ATTN_IFA,
     "npu_incre_flash_attention(Tensor query, Tensor key, Tensor value, *, Tensor? atten_mask=None, "
     "Any? actual_seq_lengths=None, Tensor? block_table=None, int num_heads=1, float scale_value=1.0, "
     "str input_layout='BSH', int num_key_value_heads=0, int block_size=0, int inner_precise=1, **) -> Tensor"},
    {"npu_prompt_flash_attention", NS_NPU, lo_attention, ATTN_PFA,
     "npu_prompt_flash_attention(Tensor query, Tensor key, Tensor value, *, Tensor? atten_mask=None, "
     "Any? actual_seq_lengths=None, Any? actual_seq_lengths_kv=None, int num_heads=1, float scale_value=1.0, "
     "int pre_tokens=2147473647, int next_tokens=0, str input_layout='BSH', int num_key_value_heads=0, "
     "int sparse_mode=0, int inner_precise=0, **) -> Tensor"},
    {"npu_grouped_matmul", NS_NPU, lo_grouped_matmul, 0,
     "npu_grouped_matmul(Tensor[] x, Tensor[] weight, *, Tensor[]? bias=None, int[]? group_list=None, "
     "int split_item=0, int? group_type=None, int group_list_type=0, ScalarType? output_dtype=None, "
     "int act_type=0, **) -> Tensor[]"},
    {"scatter_update_", NS_NPU, lo_scatter_update, 2,
     "scatter_update_(Tensor data, Tensor indices, Tensor updates, int axis) -> Tensor"},
    {"scatter_update", NS_NPU, lo_scatter_update, 0,
     "scatter_update(Tensor data, Tensor indices, Tensor updates, int axis) -> Tensor"},
    {"npu_scatter_nd_update_", NS_NPU, lo_scatter_update, 3,
     "npu_scatter_nd_update_(Tensor var, Tensor indices, Tensor updates) -> Tensor"},
    {"npu_scatter_nd_update", NS_NPU, lo_scatter_update, 1,
     "npu_scatter_nd_update(Tensor var, Tensor indices, Tensor updates) -> Tensor"},
};

static const struct LibEntry *lib_find(const char *name, unsigned ns)
{
    for (size_t i = 0; i < NELEM(lib); i++)
        if ((lib[i].ns & ns) && strcmp(lib[i].name, name) == 0)
            return &lib[i];
    return NULL;
}

/* Installs the dispatcher the family files re-enter (tl_lib,
 * torchlib_core.h). */
static void lib__install(void)
{
    if (!tl_lib.call)
        tl_lib = (TlLib){torchlib_call, torchlib_subscript, torchlib_binop, torchlib_unop};
}

static Obj *lib_call(Interp *I, const struct LibEntry *e, const char *full, Obj *self, CallArgs *a);

/* The signatures of lib[], parsed once, all of them, on first use. A
 * malformed one is a bug (the unit test parses them all). */
static SigRow lib_sigs[NELEM(lib)];
static SigParam lib_params[4096];

/* Parses every row's signature; 1, or 0 with the first problem appended
 * to why. */
static int lib_parse_sigs(StrBuf *why)
{
    static int done;
    size_t used = 0;
    for (size_t i = 0; !done && i < NELEM(lib); i++)
        if (!tl_sig_row_parse(lib[i].name, lib[i].sig, &lib_sigs[i], lib_params, NELEM(lib_params), &used, why))
            return 0;
    done = 1;
    return 1;
}

size_t torchlib_check_signatures(StrBuf *why)
{
    size_t nm = lib_parse_sigs(why) ? tl_module_parse_sigs(why) : 0;
    return nm ? NELEM(lib) + nm : 0;
}

/* f(..., out=t): the result written into t as an in-place op writes it
 * (views_write), t returned. PyTorch resizes an out tensor of another
 * shape and casts into another dtype where it can: tngc writes only into
 * one of the result's shape and dtype (TNG211 else). */
static Obj *lib_call_out(Interp *I, const struct LibEntry *e, const char *full, Obj *self, CallArgs *a)
{
    CallArgs b = *a;
    Obj *out = NULL;
    b.kwnames = interp_alloc(I, (a->nkw + 1) * sizeof *b.kwnames);
    b.kw = interp_alloc(I, (a->nkw + 1) * sizeof *b.kw);
    b.nkw = 0;
    for (size_t i = 0; i < a->nkw; i++) {
        if (streq(a->kwnames[i], "out")) {
            out = a->kw[i];
            continue;
        }
        b.kwnames[b.nkw] = a->kwnames[i];
        b.kw[b.nkw++] = a->kw[i];
    }
    if (!is_tensor(out))
        return obj_has_unknown(out) ? unk(I) : interp_break(I, a->node, RULE_TNG211, "%s with out= of "
                                                           "something other than one tensor", full);
    Obj *r = lib_call(I, e, full, self, &b);
    if (!is_tensor(r))
        return r;
    int32_t rv = tl_tv(I, r, a->node), ov = tl_tv(I, out, a->node);
    if (rv < 0 || ov < 0)
        return unk(I);
    const Val *x = val_at(I, rv), *y = val_at(I, ov);
    int same = x->ndim == y->ndim && x->dtype == y->dtype;
    for (int d = 0; same && d < x->ndim; d++)
        same = x->dims[d] == y->dims[d];
    if (!same)
        return interp_break(I, a->node, RULE_TNG211, "%s(..., out=): out must have the result's shape and "
                            "dtype (PyTorch would resize or cast it)", full);
    return views_write(I, out, rv, a->node, "out=");
}

/* Calls a library entry: methods get self as argument 0. */
static Obj *lib_call(Interp *I, const struct LibEntry *e, const char *full, Obj *self, CallArgs *a)
{
    CallArgs sh = *a;
    if (self) {
        sh.npos = a->npos + 1;
        sh.pos = interp_alloc(I, (sh.npos + 1) * sizeof *sh.pos);
        sh.pos[0] = self;
        for (size_t i = 0; i < a->npos; i++)
            sh.pos[i + 1] = a->pos[i];
    }
    /* an unknown tensor operand is the echo of an earlier diagnostic:
     * silent; unknown sizes, dims and scalars are reported where used */
    if (obj_has_unknown(self))
        return unk(I);
    if (a->has_star)
        return !(e->ns & NOTENSOR) && sh.npos && is_unknown(sh.pos[0])
                   ? unk(I)
                   : interp_break(I, a->node, RULE_TNG205, "the arguments of %s (*args or **kwargs) are not "
                                  "known at compile time", full);
    Call c;
    c.name = e->name;
    c.full = full;
    c.a = &sh;
    c.node = a->node;
    c.method = self != NULL;
    c.arg = e->arg;
    c.I = I;
    StrBuf why = {0};
    if (!lib_parse_sigs(&why))
        TNGC_BUG("%s", why.s);
    Obj *refused = tl_bind(I, &lib_sigs[e - lib], &sh, full, &c);
    if (refused)
        return refused;
    if (!(e->ns & NOTENSOR) && is_unknown(c.p[0]))
        return unk(I);
    /* out=: the lowering's result written into it, for every row whose
     * signature has out (PyTorch's functions that take one) */
    int out = sig_index(c.sig, "out");
    if (out >= 0 && c.p[out] && !is_none(c.p[out]))
        return lib_call_out(I, e, full, self, a);
    /* memory_format=torch.channels_last: from here on tngc no longer knows
     * which tensors are contiguous. PyTorch's result is a copy of x in the
     * other layout where x is contiguous (where x may already be in that
     * layout it is x itself, and tngc's result stays ambiguous) */
    int mf = sig_index(c.sig, "memory_format");
    int nonstd = mf >= 0 ? views_memory_format(I, c.p[mf], sh.npos ? sh.pos[0] : NULL) : 0;
    Obj *r = e->fn(I, &c);
    if (nonstd == 2 && is_tensor(r) && is_tensor(sh.pos[0]) &&
        (r->t == sh.pos[0]->t || (r->t->g == G(I) && r->t->value >= 0 &&
                                  G(I)->ops.v[val_at(I, r->t->value)->op].kind == OP_CONTIGUOUS))) {
        int32_t x = tl_tv(I, sh.pos[0], a->node);
        r = x < 0 ? unk(I) : tl_emit_x(I, OP_CLONE, x, NULL, 0, 0, DT_UNKNOWN, a->node);
    }
    if (is_tensor(r) && r->t->g == G(I))   /* an operand returned as it is: the same rows */
        rowsel_unread(I, r->t->value);
    /* what PyTorch returns as a view of the first argument is one here too;
     * of torch.nn.functional only dropout returns its argument (F.unfold
     * is no view) */
    const char *vname = nonstd ? ""
                      : strncmp(full, "torch.nn.functional.", 20) != 0 || strstr(e->name, "dropout") ? e->name
                                                                                                       : "";
    views_after_call(I, vname, sh.pos, sh.npos, r, a->node);
    return r;
}

/* ===================================================================== */
/* Entry points: calls and attributes                                    */
/* ===================================================================== */

/*
 * The in-place tensor methods, one mechanism: x.X_(args) where the library
 * has no X_ of its own is x.X(args) written into x. The result must have
 * x's shape (else TNG203: an in-place op cannot resize x), and is cast to
 * x's dtype when it differs, where PyTorch allows it (a float result into
 * an integer x, or a non-bool one into a bool x, is PyTorch's error and
 * TNG203 here). The write is torchlib_augassign's, the rule of `x += y`
 * and copy_: into the storage of an input or buffer (COPY, written back
 * to the caller), TNG211 on a parameter or a view of one; any other
 * tensor (an op's result) just takes the new value. So add_ sub_ mul_
 * div_ clamp_ masked_fill_ and every later X_ whose X is a tensor method
 * come for free; methods whose X_ is no in-place op (casts, views,
 * queries) are left out. Returns NULL when x.X is no library method (the
 * caller reports the name).
 */
static Obj *tl_inplace_method(Interp *I, const char *name, Obj *self, CallArgs *a)
{
    static const char *const not_inplace[] = {
        "to", "float", "half", "bfloat16", "int", "long", "bool", "char", "type_as", "type", "npu", "cuda",
        "cpu", "clone", "contiguous", "view", "view_as", "reshape", "reshape_as", "detach", "size", "dim",
        "ndimension", "numel", "nelement", "element_size", "is_floating_point", "is_contiguous", "copy",
        "split", "chunk", "unbind"};
    size_t n = strlen(name);
    if (n < 2 || name[n - 1] != '_' || name[n - 2] == '_')
        return NULL;
    const char *base = interp_printf(I, "%.*s", (int)(n - 1), name);
    for (size_t i = 0; i < NELEM(not_inplace); i++)
        if (streq(base, not_inplace[i]))
            return NULL;
    /* in-place changes of a tensor's shape or strides: its storage keeps
     * its data and its views keep their own shapes, which the graph's
     * values (one shape each) do not model */
    static const char *const restride[] = {"transpose", "t", "squeeze", "unsqueeze", "swapaxes", "swapdims",
                                           "as_strided", "resize", "resize_as", "set", "permute"};
    for (size_t i = 0; i < NELEM(restride); i++)
        if (streq(base, restride[i]))
            return interp_break(I, a->node, RULE_TNG211, "Tensor.%s changes the tensor's shape or strides in "
                                "place, which tngc does not model: write x = x.%s(...) instead", name, base);
    int32_t x = tl_tv(I, self, a->node);
    if (x < 0)
        return unk(I);
    const char *what = interp_printf(I, "Tensor.%s", name);
    for (size_t i = 0; i < a->npos; i++)
        if (!views_operand_ok(I, self, a->pos[i], a->node, what))
            return obj_unknown_reported(I);
    for (size_t i = 0; i < a->nkw; i++)
        if (!views_operand_ok(I, self, a->kw[i], a->node, what))
            return obj_unknown_reported(I);
    Obj *r = torchlib_call(I, base, self, a);
    if (!r || is_unknown(r))
        return r;
    if (!is_tensor(r))
        return interp_break(I, a->node, RULE_TNG203, "Tensor.%s: Tensor.%s does not give a tensor", name, base);
    (void)x;
    r = tl_inplace_fit(I, self, r, a->node, interp_printf(I, "Tensor.%s", name));
    if (!is_tensor(r))
        return r;
    return tl_augassign(I, self, r, a->node);
}

/* x op= y on a tensor x (tl_augassign, torchlib_core.c). */
Obj *torchlib_augassign(Interp *I, Obj *x, Obj *res, int32_t node)
{
    lib__install();
    if ((is_tensor(x) && x->t->cplx) || (is_tensor(res) && res->t->cplx))
        return tl_cx_unop(I, "op=", x, node);
    return tl_augassign(I, x, res, node);
}

/* Parameter creation: torch.nn.Parameter(data, requires_grad=True) */
static Obj *make_parameter(Interp *I, CallArgs *a)
{
    Obj *t = args_get(a, 0, "data");
    if (!t)
        return interp_break(I, a->node, RULE_TNG203, "torch.nn.Parameter() without data");
    if (!is_tensor(t))
        return obj_has_unknown(t) ? unk(I) : interp_break(I, a->node, RULE_TNG203, "torch.nn.Parameter of a non-tensor");
    t->t->is_param = 1;
    t->t->requires_grad = obj_flag(args_get(a, 1, "requires_grad"), 1);
    return t;
}

/* 1 when path names a lib[] row the way torchlib_call finds it:
 * torch.nn.functional.X, torch_npu.X, torch.Tensor.X, torch.X. */
int tl_lib_has(const char *path)
{
    static const struct { const char *prefix; unsigned ns; } spaces[] = {
        {"torch.nn.functional.", NS_F}, {"torch_npu.", NS_NPU}, {"torch.Tensor.", NS_METH}, {"torch.", NS_TORCH}};
    for (size_t i = 0; i < NELEM(spaces); i++) {
        size_t n = strlen(spaces[i].prefix);
        if (strncmp(path, spaces[i].prefix, n) == 0)
            return lib_find(path + n, spaces[i].ns) != NULL;
    }
    return 0;
}

Obj *torchlib_call(Interp *I, const char *name, Obj *self_obj, CallArgs *a)
{
    lib__install();
    if (!name || !a)
        return NULL;
    if (self_obj) {
        if (self_obj->kind == O_UNKNOWN)
            return unk(I);
        if (self_obj->kind == O_INST)
            return tl_module_method(I, name, self_obj, a);
        if (self_obj->kind == O_TENSOR && tl_cx_any(self_obj, a))   /* complex operands */
            return tl_cx_call(I, name, self_obj, a);
        if (self_obj->kind != O_TENSOR)
            return NULL;
        interp_state_write(I, self_obj, name, a->node);   /* x.X_(...) on a tensor attribute: state */
        const struct LibEntry *e = lib_find(name, NS_METH);
        if (!e) {
            Obj *r = tl_inplace_method(I, name, self_obj, a);
            if (!r)   /* a method tngc does not know may change the tensor's data */
                interp_host_inexact(I, self_obj);
            return r;
        }
        return lib_call(I, e, interp_printf(I, "Tensor.%s", name), self_obj, a);
    }
    Obj *dist = tl_dist_call(I, name, a);   /* torch.distributed in a rank of --world-size N */
    if (dist)
        return dist;
    if (tl_cx_any(NULL, a))   /* complex operands */
        return tl_cx_call(I, name, NULL, a);
    unsigned ns;
    const char *fn;
    if (strncmp(name, "torch.nn.functional.", 20) == 0) {
        ns = NS_F, fn = name + 20;
    } else if (strncmp(name, "torch_npu.", 10) == 0) {
        ns = NS_NPU, fn = name + 10;
    } else if (strncmp(name, "torch.nn.", 9) == 0) {
        if (strncmp(name, "torch.nn.init.", 14) == 0)   /* initialisers write data tngc does not know */
            for (size_t i = 0; i < a->npos; i++)
                interp_host_inexact(I, a->pos[i]);
        if (streq(name, "torch.nn.Parameter") || streq(name, "torch.nn.parameter.Parameter"))
            return make_parameter(I, a);
        return tl_module_construct(I, name, a);
    } else if (strncmp(name, "torch.", 6) == 0) {
        ns = NS_TORCH, fn = name + 6;
    } else {
        return NULL;
    }
    const struct LibEntry *e = lib_find(fn, ns);
    if (!e) {
        for (size_t i = 0; i < a->npos; i++)   /* it may write into its tensor arguments */
            interp_host_inexact(I, a->pos[i]);
        return NULL;
    }
    return lib_call(I, e, name, NULL, a);
}

/* x.requires_grad. A host tensor answers its flag, and so does an entry
 * input, weight or constant standing for one (its value as the trace
 * began). A tensor the trace computes requires grad when torch's grad mode
 * is on and a tensor it is computed from does; tngc does not model grad
 * mode (torch.no_grad is an empty scope here), so the answer is known,
 * False, only when no such tensor feeds it. */
static Obj *tl_requires_grad(Interp *I, Obj *obj, int32_t node)
{
    TensorObj *t = obj->t;
    if (!I->tracing || t->g != G(I))
        return obj_bool(I, t->requires_grad);
    int32_t v = interp_val(I, obj, node);
    const Graph *g = G(I);
    if (v < 0)
        return unk(I);
    for (size_t i = 0; i < I->shadows.n; i++) {
        const Shadow *sh = &I->shadows.v[i];
        if (sh->initial == v && sh->host)
            return obj_bool(I, sh->host->requires_grad);
    }
    /* bit 0: a leaf that requires grad; bit 1: pushed (each value once) */
    uint8_t *mark = calloc(g->vals.n, 1);
    int32_t *stack = malloc(g->vals.n * sizeof *stack);
    if (!mark || !stack) {
        free(mark);
        free(stack);
        return interp_break(I, node, RULE_TNG212, "out of memory");
    }
    for (size_t i = 0; i < I->shadows.n; i++) {
        const Shadow *sh = &I->shadows.v[i];
        if (sh->initial >= 0 && (size_t)sh->initial < g->vals.n && sh->host && sh->host->requires_grad)
            mark[sh->initial] = 1;
    }
    size_t n = 0;
    int found = 0;
    stack[n++] = v;
    mark[v] |= 2;
    while (n && !found) {
        int32_t u = stack[--n];
        found = mark[u] & 1;
        const Op *op = &g->ops.v[g->vals.v[u].op];
        for (uint32_t k = 0; !found && k < op->nin; k++)
            if (op->in[k] >= 0 && !(mark[op->in[k]] & 2)) {
                mark[op->in[k]] |= 2;
                stack[n++] = op->in[k];
            }
    }
    free(mark);
    free(stack);
    if (found)
        return interp_break(I, node, RULE_TNG203, "requires_grad of a tensor computed from one that requires "
                            "grad (a parameter) depends on torch's grad mode, which tngc does not model");
    return obj_bool(I, 0);
}

Obj *torchlib_getattr(Interp *I, Obj *obj, const char *name, int32_t node)
{
    lib__install();
    if (!obj || !name)
        return NULL;
    if (obj->kind == O_BUILTIN && obj->s) {
        if (streq(obj->s, "torch")) {
            DType dt = dtype_from_torch_name(name);
            if (dt != DT_UNKNOWN)
                return tl_obj_dtype(I, dt);
            if (streq(name, "pi"))
                return obj_float(I, M_PI_VALUE);
            if (streq(name, "inf"))
                return obj_float(I, INFINITY);
            return NULL;
        }
        if (streq(obj->s, "math")) {
            if (streq(name, "pi"))
                return obj_float(I, M_PI_VALUE);
            if (streq(name, "e"))
                return obj_float(I, exp(1.0));
            if (streq(name, "tau"))
                return obj_float(I, 2 * M_PI_VALUE);
            if (streq(name, "inf"))
                return obj_float(I, INFINITY);
        }
        return NULL;
    }
    if (obj->kind == O_TENSOR && obj->t->cplx)
        return tl_cx_getattr(I, obj, name, node);
    if (obj->kind == O_TENSOR) {
        int32_t v = tl_tv(I, obj, node);
        if (v < 0)
            return unk(I);
        const Val *x = val_at(I, v);
        if (streq(name, "dtype") || streq(name, "ndim") || streq(name, "device"))
            rowsel_unread(I, v);   /* not the number of selected rows */
        if (streq(name, "shape")) {
            Obj *items[GRAPH_MAX_DIMS];
            for (int i = 0; i < x->ndim; i++)
                items[i] = obj_dim(I, x->dims[i]);
            return obj_tuple(I, items, x->ndim);
        }
        if (streq(name, "dtype"))
            return tl_obj_dtype(I, x->dtype);
        if (streq(name, "ndim"))
            return obj_int(I, x->ndim);
        if (streq(name, "T")) {   /* reverses all dims */
            int n = x->ndim;
            if (n < 2)
                return obj;
            int64_t perm[GRAPH_MAX_DIMS];
            for (int i = 0; i < n; i++)
                perm[i] = n - 1 - i;
            Obj *r = tl_permute_of(I, obj, v, perm, n, node);
            views_of(I, obj, r, node);
            return r;
        }
        if (streq(name, "mT")) {
            if (x->ndim < 2)
                return interp_break(I, node, RULE_TNG206, "mT of a tensor of fewer than 2 dims");
            Obj *r = tl_transpose_last2(I, obj, v, node);
            views_of(I, obj, r, node);
            return r;
        }
        if (streq(name, "data"))
            return obj;
        if (streq(name, "requires_grad"))
            return tl_requires_grad(I, obj, node);
        if (streq(name, "device") && obj_tensor_device(I))
            return obj_tensor_device(I);
        if (streq(name, "is_cuda") || streq(name, "is_npu") || streq(name, "device") || streq(name, "grad") ||
            streq(name, "is_leaf"))
            return unk(I);
        if (streq(name, "itemsize"))
            return obj_int(I, dtype_size(x->dtype));
        return NULL;
    }
    if (obj->kind == O_INST && !obj->cls && obj->s) {
        static const struct { const char *attr, *cls; int dim; } fromw[] = {
            {"in_features", "torch.nn.Linear", 1}, {"out_features", "torch.nn.Linear", 0},
            {"num_embeddings", "torch.nn.Embedding", 0}, {"embedding_dim", "torch.nn.Embedding", 1}};
        for (size_t i = 0; i < NELEM(fromw); i++)
            if (streq(name, fromw[i].attr) && streq(obj->s, fromw[i].cls)) {
                Obj *w = obj_getattr(obj, "weight");
                int32_t v = is_tensor(w) && w->t->g == G(I) ? w->t->value : -1;
                if (v < 0 || (size_t)v >= G(I)->vals.n || val_at(I, v)->ndim != 2)
                    return unk(I);
                return obj_dim(I, val_at(I, v)->dims[fromw[i].dim]);
            }
        if (streq(name, "training") && strncmp(obj->s, "torch.nn.", 9) == 0) {
            Obj *tr = obj_getattr(obj, "training");   /* .eval() / .train(mode) set it */
            intptr_t k = (intptr_t)strmap_get(&I->lib_training, interp_ptr_key(I, obj));
            return tr ? tr : obj_bool(I, k ? k - 1 : 1);   /* as nn.Module.__init__ leaves it */
        }
        return NULL;
    }
    return NULL;
}

/* ===================================================================== */
/* Operators                                                             */
/* ===================================================================== */

/* l op r with a tensor operand: + - * / ** @ (and the scalar forms on
 * either side), comparisons and & | ^ (tl_compare_binop); // and % are not lowered */
Obj *torchlib_binop(Interp *I, const char *op, Obj *l, Obj *r, int32_t node)
{
    lib__install();
    if (!op || !l || !r || (!is_tensor(l) && !is_tensor(r)))
        return NULL;
    if (obj_has_unknown(l) || obj_has_unknown(r))
        return unk(I);
    if ((is_tensor(l) && l->t->cplx) || (is_tensor(r) && r->t->cplx))
        return tl_cx_binop(I, op, l, r, node);
    static const struct { const char *op; OpKind k; } ar[] = {
        {"+", OP_ADD}, {"-", OP_SUB}, {"*", OP_MUL}, {"/", OP_DIV}};
    for (size_t i = 0; i < NELEM(ar); i++)
        if (streq(op, ar[i].op))
            return tl_arith(I, ar[i].k, l, r, 1, node, interp_printf(I, "operator '%s'", op));
    if (streq(op, "**"))
        return tl_pow_of(I, l, r, node);
    if (streq(op, "@")) {
        if (!is_tensor(l) || !is_tensor(r))
            return interp_break(I, node, RULE_TNG203, "operator '@' needs two tensors");
        int32_t in[2] = {tl_tv(I, l, node), tl_tv(I, r, node)};
        if (in[0] < 0 || in[1] < 0)
            return unk(I);
        return tl_emit1(I, OP_MATMUL, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, node);
    }
    Obj *cb = tl_compare_binop(I, op, l, r, node);
    if (cb)
        return cb;
    return interp_break(I, node, RULE_TNG203, "operator '%s' on a tensor is not in the compilable subset", op);
}

Obj *torchlib_add(Interp *I, Obj *l, Obj *r, int32_t node, const char *what)
{
    return tl_arith(I, OP_ADD, l, r, 1, node, what);
}

Obj *torchlib_abs(Interp *I, Obj *x, int32_t node)
{
    lib__install();
    if (is_tensor(x) && x->t->cplx)
        return tl_cx_unop(I, "abs", x, node);
    int32_t v = tl_tv(I, x, node);
    return v < 0 ? unk(I) : tl_emit_x(I, OP_ABS, v, NULL, 0, 0, DT_UNKNOWN, node);
}

/* -x | +x | ~x */
Obj *torchlib_unop(Interp *I, const char *op, Obj *o, int32_t node)
{
    lib__install();
    if (!op || !is_tensor(o))
        return NULL;
    if (o->t->cplx)
        return tl_cx_unop(I, op, o, node);
    if (streq(op, "+"))
        return o;
    if (streq(op, "-")) {
        int32_t v = tl_tv(I, o, node);
        return v < 0 ? unk(I) : tl_emit_x(I, OP_NEG, v, NULL, 0, 0, DT_UNKNOWN, node);
    }
    if (streq(op, "not"))
        return interp_break(I, node, RULE_TNG204, "the truth of a tensor is only known at run time");
    if (streq(op, "~")) {
        int32_t v = tl_tv(I, o, node);
        return v < 0 ? unk(I) : tl_emit_x(I, OP_BITWISE_NOT, v, NULL, 0, 0, DT_UNKNOWN, node);
    }
    return interp_break(I, node, RULE_TNG203, "operator '%s' on a tensor is not in the compilable subset", op);
}

/* ===================================================================== */
/* Subscripts                                                            */
/* ===================================================================== */

/* One index of a subscript, resolved. */
typedef enum IxKind { IX_FULL, IX_INT, IX_SLICE, IX_NEW, IX_ELLIPSIS } IxKind;
typedef struct Ix {
    IxKind kind;
    int64_t start, stop, step;   /* IX_INT: start is the index */
    DimId dstart, dstop;         /* IX_SLICE: a symbolic bound (reads only), else -1 */
} Ix;

/* A slice bound: None (def), an int, or a constant symbolic int. 0 after a
 * diagnostic. */
static int slice_bound(Interp *I, const Obj *o, int64_t def, int32_t node, int64_t *v, RuleId rule)
{
    if (is_none(o)) {
        *v = def;
        return 1;
    }
    if (o->kind == O_UNKNOWN)
        return 0;
    if (obj_int_value(o, v) && o->kind != O_BOOL)
        return 1;
    if (o->kind == O_DIM) {
        if (graph_dim_const_value(G(I), o->dim, v))
            return 1;
        interp_break(I, node, rule, "a slice bound that depends on a dynamic dim");
        return 0;
    }
    interp_break(I, node, RULE_TNG203, "a slice bound that is not an int");
    return 0;
}

/* Resolves index (an int, slice, None, Ellipsis or a tuple of them) for a
 * tensor of rank n into ix (ellipsis expanded into full slices); returns the
 * count, or -1 after a diagnostic. rule: the rule for non-constant bounds. */
static int resolve_index(Interp *I, Obj *index, int n, int32_t node, RuleId rule, Ix *ix, int max)
{
    Obj *const *items = index->kind == O_TUPLE ? index->items : &index;
    size_t cnt = index->kind == O_TUPLE ? index->n : 1;
    int consumed = 0, ellipses = 0;
    for (size_t i = 0; i < cnt; i++) {
        Obj *o = items[i];
        if (o->kind == O_SLICE)
            for (size_t k = 0; k < o->n; k++)
                if (is_unknown(o->items[k])) {
                    if (!obj_reported(o->items[k]))
                        interp_break(I, node, rule, "a slice bound is not known at compile time%s",
                                     interp_unknown_origin(I, o->items[k], node));
                    return -1;
                }
        if (is_unknown(o)) {
            if (!obj_reported(o))
                interp_break(I, node, rule, "a tensor index is not known at compile time%s",
                             interp_unknown_origin(I, o, node));
            return -1;
        }
        switch (o->kind) {
        case O_INT: case O_DIM: case O_SLICE: consumed++; break;
        case O_NONE: break;
        case O_ELLIPSIS: ellipses++; break;
        case O_TENSOR: case O_LIST: case O_BOOL: case O_TUPLE:
            interp_break(I, node, rule == RULE_TNG211 ? RULE_TNG211 : RULE_TNG203,
                         "indexing a tensor with a tensor, list or bool (advanced indexing) is not in the "
                         "compilable subset");
            return -1;
        default:
            interp_break(I, node, RULE_TNG203, "a tensor index tngc cannot lower");
            return -1;
        }
    }
    if (ellipses > 1) {
        interp_break(I, node, RULE_TNG206, "an index can only have a single ellipsis");
        return -1;
    }
    if (consumed > n) {
        interp_break(I, node, RULE_TNG206, "too many indices for a tensor of dimension %d", n);
        return -1;
    }
    int k = 0;
    for (size_t i = 0; i < cnt; i++) {
        Obj *o = items[i];
        if (o->kind == O_ELLIPSIS) {
            for (int j = 0; j < n - consumed && k < max; j++)
                ix[k++].kind = IX_FULL;
            continue;
        }
        if (k >= max) {
            interp_break(I, node, RULE_TNG206, "an index of too many parts");
            return -1;
        }
        Ix *x = &ix[k++];
        memset(x, 0, sizeof *x);
        if (o->kind == O_NONE) {
            x->kind = IX_NEW;
        } else if (o->kind == O_INT || o->kind == O_DIM) {
            x->kind = IX_INT;
            if (!slice_bound(I, o, 0, node, &x->start, rule))
                return -1;
        } else {   /* O_SLICE */
            if (o->n < 3) {
                interp_break(I, node, RULE_TNG203, "a malformed slice");
                return -1;
            }
            int64_t cv;
            x->dstart = x->dstop = -1;
            /* reads (rule TNG205) take a bound that is a dynamic dim: SLICE_DYN */
            if (rule == RULE_TNG205 && o->items[0]->kind == O_DIM && !graph_dim_const_value(G(I), o->items[0]->dim, &cv))
                x->dstart = o->items[0]->dim;
            if (rule == RULE_TNG205 && o->items[1]->kind == O_DIM && !graph_dim_const_value(G(I), o->items[1]->dim, &cv))
                x->dstop = o->items[1]->dim;
            if ((x->dstart < 0 && !slice_bound(I, o->items[0], 0, node, &x->start, rule)) ||
                (x->dstop < 0 && !slice_bound(I, o->items[1], GRAPH_END, node, &x->stop, rule)) ||
                !slice_bound(I, o->items[2], 1, node, &x->step, rule))
                return -1;
            if (x->step <= 0) {
                interp_break(I, node, RULE_TNG203, "a slice step must be positive (negative steps are "
                             "not supported by torch)");
                return -1;
            }
            x->kind = x->start == 0 && x->stop == GRAPH_END && x->step == 1 && x->dstart < 0 && x->dstop < 0
                          ? IX_FULL : IX_SLICE;
        }
    }
    return k;
}

/* 1 when index (a tensor or a tuple) holds a 0-d integer tensor, which
 * PyTorch indexes with as with an int: a view whose place is data. */
static int index_has_0d_int(Interp *I, Obj *index, int32_t node)
{
    Obj **items = index->kind == O_TUPLE ? index->items : &index;
    size_t n = index->kind == O_TUPLE ? index->n : 1;
    for (size_t i = 0; i < n; i++) {
        int32_t v = is_tensor(items[i]) ? tl_tv(I, items[i], node) : -1;
        if (v >= 0 && val_at(I, v)->ndim == 0 && val_at(I, v)->dtype != DT_BOOL &&
            !dtype_is_float(val_at(I, v)->dtype))
            return 1;
    }
    return 0;
}

/* t[index] */
Obj *torchlib_subscript(Interp *I, Obj *t, Obj *index, int32_t node)
{
    lib__install();
    if (!is_tensor(t) || !index)
        return unk(I);
    if (t->t->cplx)
        return tl_cx_subscript(I, t, index, node);
    if (tl_rowsel_index(I, index))   /* through what torch.where(condition) returned */
        return tl_rowsel_subscript(I, t, index, node);
    if (tl_index_has_tensor(index)) {   /* advanced indexing: indexing and scatter */
        Obj *r = tl_index_subscript(I, t, index, node);
        if (index_has_0d_int(I, index, node))
            views_undecided(I, t, r, node);   /* PyTorch: a view at a place tngc does not know */
        return r;
    }
    int32_t x = tl_tv(I, t, node);
    if (x < 0)
        return unk(I);
    Ix ix[2 * GRAPH_MAX_DIMS + 2];
    int n = resolve_index(I, index, rank_of(I, x), node, RULE_TNG205, ix, (int)NELEM(ix));
    if (n < 0)
        return unk(I);
    Obj *cur = t;
    int64_t p = 0;   /* the dim of cur the next index applies to */
    for (int i = 0; i < n; i++) {
        switch (ix[i].kind) {
        case IX_FULL:
            p++;
            break;
        case IX_NEW:
            cur = tl_unsqueeze_at(I, x, p, node);
            p++;
            break;
        case IX_INT: {
            int64_t attr[2] = {p, ix[i].start};
            cur = tl_emit_x(I, OP_SELECT, x, attr, 2, 0, DT_UNKNOWN, node);
            break;
        }
        case IX_SLICE:
            if (ix[i].dstart >= 0 || ix[i].dstop >= 0)
                cur = tl_slice_dyn_of(I, x, p, ix[i].dstart, ix[i].start, ix[i].dstop, ix[i].stop, ix[i].step, node);
            else
                cur = tl_slice_of(I, x, p, ix[i].start, ix[i].stop, ix[i].step, node);
            p++;
            break;
        case IX_ELLIPSIS:
            break;
        }
        if (cur != t && (x = tl_tv(I, cur, node)) < 0)
            return unk(I);
    }
    views_of(I, t, cur, node);   /* basic indexing gives a view */
    return cur;
}

Obj *torchlib_rows(Interp *I, Obj *t, int32_t node)
{
    Obj *rows = obj_seq(I, O_LIST);
    int32_t v = interp_val(I, t, node);
    int64_t n0;
    if (v < 0 || G(I)->vals.v[v].ndim == 0 || !graph_dim_const_value(G(I), G(I)->vals.v[v].dims[0], &n0) ||
        n0 > 1024)
        return NULL;
    for (int64_t k = 0; k < n0; k++)
        obj_push(I, rows, torchlib_subscript(I, t, obj_int(I, k), node));
    return rows;
}

/* t[index] = v: one sliced or integer-indexed dim, the others full */
int torchlib_store_subscript(Interp *I, Obj *t, Obj *index, Obj *v, int32_t node)
{
    lib__install();
    if (!is_tensor(t) || !index || !v)
        return -1;
    if (is_unknown(v))
        return -1;
    if (t->t->cplx || (is_tensor(v) && v->t->cplx))
        return tl_cx_store_subscript(I, t, v, node);
    if (tl_rowsel_index(I, index))   /* through what torch.where(condition) returned */
        return tl_rowsel_store(I, t, index, v, node);
    if (tl_index_has_tensor(index))   /* advanced indexing: indexing and scatter */
        return tl_index_store_subscript(I, t, index, v, node);
    int32_t dst = tl_tv(I, t, node);
    if (dst < 0)
        return -1;
    int32_t src;
    double num;
    int num_int;
    if (tl_py_number(v, &num, &num_int)) {   /* t[i] = 2.5: a 0-d tensor of t's dtype */
        src = tl_tv(I, tl_full_of(I, NULL, 0, num, val_at(I, dst)->dtype, node), node);
    } else if (!is_tensor(v)) {
        interp_break(I, node, RULE_TNG211, "assigning something that is not a tensor or a number to a "
                     "tensor slice");
        return -1;
    } else {
        src = tl_tv(I, v, node);
    }
    if (src < 0 || (dst = views_write_begin(I, t, node, "slice assignment")) < 0)
        return -1;
    int dyn = tl_dyn_slice_store(I, t, index, src, node);   /* a symbolic slice bound */
    if (dyn != -2)
        return dyn;
    int r = rank_of(I, dst);
    Ix ix[2 * GRAPH_MAX_DIMS + 2];
    int n = resolve_index(I, index, r, node, RULE_TNG211, ix, (int)NELEM(ix));
    if (n < 0)
        return -1;
    /* PyTorch drops the leading size-1 dims of a value of more dims than
     * the indexed view has (x[0] = y[None, None]) */
    int vr = r;
    for (int i = 0; i < n; i++)
        vr += ix[i].kind == IX_NEW ? 1 : ix[i].kind == IX_INT ? -1 : 0;
    for (int64_t one; rank_of(I, src) > vr && graph_dim_const_value(G(I), val_at(I, src)->dims[0], &one) &&
                      one == 1;) {
        DimId d[GRAPH_MAX_DIMS];
        int sr = tl_dims_of(I, src, d);
        if ((src = tl_tv(I, tl_reshape_to(I, src, d + 1, sr - 1, node), node)) < 0)
            return -1;
    }
    int which = -1, dim = 0, general = t->t->base != NULL;
    for (int i = 0; i < n && !general; i++) {
        if (ix[i].kind == IX_NEW || ix[i].dstart >= 0 || ix[i].dstop >= 0) {
            general = 1;
        } else if (ix[i].kind == IX_INT || ix[i].kind == IX_SLICE) {
            general = which >= 0;
            which = i;
            dim = i;   /* no None: index i applies to dim i */
        }
    }
    if (general) {   /* through the view t[index], as PyTorch's t[index].copy_(v) */
        Obj *view = torchlib_subscript(I, t, index, node);
        if (!is_tensor(view))
            return -1;
        int32_t in[2] = {views_write_begin(I, view, node, "slice assignment"), src};
        if (in[0] < 0)
            return -1;
        int32_t op = tl_emit(I, OP_COPY, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, node);
        return op < 0 ? -1 : views_write_end(I, view, G(I)->ops.v[op].out, node);
    }
    int32_t op;
    if (which < 0) {   /* t[:] = v, t[...] = v: the whole tensor */
        int32_t in[2] = {dst, src};
        op = tl_emit(I, OP_COPY, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, node);
    } else {
        Ix *x = &ix[which];
        int64_t attr[4] = {dim, x->start, x->stop, x->step};
        if (x->kind == IX_INT) {
            int64_t nsz;
            if (graph_dim_const_value(G(I), val_at(I, dst)->dims[dim], &nsz) &&
                (x->start >= nsz || x->start < -nsz)) {
                interp_break(I, node, RULE_TNG206, "index %lld is out of bounds for dim %d with size %lld",
                             (long long)x->start, dim, (long long)nsz);
                return -1;
            }
            if (x->start == INT64_MAX) {   /* past every dim; start + 1 would overflow */
                interp_break(I, node, RULE_TNG206, "index %lld is out of bounds for dim %d",
                             (long long)x->start, dim);
                return -1;
            }
            attr[2] = x->start == -1 ? GRAPH_END : x->start + 1;
            attr[3] = 1;
            /* the indexed shape lacks dim; src aligned to it from the right
             * gets the size-1 dim back when it reaches that far */
            int after = r - 1 - dim, sr = rank_of(I, src);
            if (sr > after) {
                Obj *s2 = tl_unsqueeze_at(I, src, sr - after, node);
                if ((src = tl_tv(I, s2, node)) < 0)
                    return -1;
            }
        }
        int32_t in[2] = {dst, src};
        op = tl_emit(I, OP_SLICE_STORE, in, 2, attr, 4, 0, 0, DT_UNKNOWN, node);
    }
    if (op < 0)
        return -1;
    return views_write_end(I, t, G(I)->ops.v[op].out, node);
}
