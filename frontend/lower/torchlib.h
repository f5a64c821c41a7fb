/*
 * torchlib.h - the torch library of the lowering: torch.* /
 * torch.nn.functional.* / torch_npu.* functions and tensor methods (the
 * table lib[]), the nn modules (the table of {class, constructor,
 * forward}), and tensors under Python's operators and subscripts.
 *
 * Every tensor operation becomes an op of the current graph (interp_graph):
 * the host graph in host mode (constant dims: it only computes shapes),
 * the entry's graph while tracing a compiled method.
 */
#ifndef TNGC_LOWER_TORCHLIB_H
#define TNGC_LOWER_TORCHLIB_H

#include "obj.h"

/*
 * Calls the library function named name (canonical, e.g. "torch.matmul",
 * "torch.nn.functional.silu", "torch_npu.npu_rms_norm", "torch.nn.Linear"
 * (construction), "torch.ones") with self_obj NULL, or the method name of
 * self_obj (a tensor: "view", "transpose", "npu", "to", "copy_", "size";
 * a module instance: "half", "to", "forward", ModuleList's "append").
 * Returns NULL when the name is not in the library (the caller reports it).
 */
Obj *torchlib_call(Interp *I, const char *name, Obj *self_obj, CallArgs *a);
/* Parses the signature of every library row and nn module constructor:
 * their number, or 0 with the first malformed one appended to why (the unit
 * test's check). */
size_t torchlib_check_signatures(StrBuf *why);
/* An attribute of a tensor (shape, dtype, ndim, T, mT), of a torch module
 * instance, or of the torch and math namespaces; NULL when not known. */
Obj *torchlib_getattr(Interp *I, Obj *obj, const char *name, int32_t node);
/* Calls a torch nn module instance (O_INST with s set): its forward. */
Obj *torchlib_call_module(Interp *I, Obj *inst, CallArgs *a);
/* The torch.nn.Module methods tngc models on any module instance (a
 * script's or torch's): register_buffer / register_parameter, add_module /
 * register_module, and those that return the module itself (npu, eval,
 * to, half ...); NULL for other names. */
Obj *torchlib_module_method(Interp *I, const char *m, Obj *self, CallArgs *a);
/* 1 when name is a torch.nn.Module method a script module may call on itself. */
int torchlib_module_has_method(const char *name);
/* Script subclasses of torch.nn module classes (the end of torchlib_modules.c). The
 * torch.nn class (canonical name: "torch.nn.LayerNorm") that cls derives
 * from through its bases, other than torch.nn.Module and the containers'
 * bases; NULL when none. */
const char *torchlib_nn_base(const InterpClass *cls);
/* base's constructor run on self, an instance of a subclass of it (the
 * class has no __init__, or super().__init__(...)): None, or the refusal. */
Obj *torchlib_subclass_init(Interp *I, Obj *self, const char *base, CallArgs *a);
/* self(args) for an instance of a subclass of base with no forward of its
 * own: base's forward. */
Obj *torchlib_subclass_call(Interp *I, Obj *self, const char *base, CallArgs *a);
/* super().name (super set) or self.name of an instance of a subclass of
 * base, for the names the script's class does not define: base's methods
 * tngc lowers (forward; a convolution's _conv_forward; through super(),
 * __init__ and nn.Module's methods) bound to self; NULL for other names
 * of self (and, through super(), refused while tracing). */
Obj *torchlib_subclass_attr(Interp *I, Obj *self, const char *base, const char *name, int super, int32_t node);
/* hasattr() of library objects as PyTorch 2.1 and later answer it
 * (torchlib_hasattr.c): 1 has it, 0 has it not, -1 when tngc cannot tell
 * (a name it does not know, or one whose answer differs between 2.x
 * releases). torchlib_has_name: the library name path (torch.X,
 * torch.nn.functional.X, torch.nn.X, torch.Tensor.X, torch_npu.X; never
 * 0); torchlib_nn_module_has: a public name of nn.Module;
 * torchlib_module_hasattr: an attribute of a torch.nn module instance. */
int torchlib_has_name(const char *path);
int torchlib_nn_module_has(const char *name);
int torchlib_module_hasattr(const Obj *inst, const char *name);
/* Applies a binary operator (+ - * / // % ** @ and comparisons) when an
 * operand is a tensor; NULL when neither is. op is the operator's text. */
Obj *torchlib_binop(Interp *I, const char *op, Obj *l, Obj *r, int32_t node);
/* l + r where l or r is a tensor; what names the operation in diagnostics
 * ("sum"). */
Obj *torchlib_add(Interp *I, Obj *l, Obj *r, int32_t node, const char *what);
/* abs(x) of a tensor x. */
Obj *torchlib_abs(Interp *I, Obj *x, int32_t node);
/* x op= y on a tensor x, res being x op y: updates x in place (see
 * torchlib.c); returns the object that holds the new value. */
Obj *torchlib_augassign(Interp *I, Obj *x, Obj *res, int32_t node);
/* Unary - + ~ on a tensor; NULL when o is not a tensor. */
Obj *torchlib_unop(Interp *I, const char *op, Obj *o, int32_t node);
/* t[index] where index is an int, slice, None, Ellipsis or a tuple of them. */
Obj *torchlib_subscript(Interp *I, Obj *t, Obj *index, int32_t node);
/* Rows selected by torch.where(condition) (torchlib_rowsel.c): a read of
 * them that no op consumed by the end of the statement at node is refused
 * there (the evaluator calls it after each statement that left one);
 * outputs of graph g that hold them are refused (-1) after a trace. */
void torchlib_rowsel_leak(Interp *I, int32_t node);
int torchlib_rowsel_outputs(Interp *I, const Graph *g, int32_t node);
/* t[index] = v (in-place slice assignment); returns 0, or -1 after a diagnostic. */
int torchlib_store_subscript(Interp *I, Obj *t, Obj *index, Obj *v, int32_t node);
/* The rows of tensor t (t[0], t[1], ...: Python's iteration of a tensor)
 * as a new list; NULL when its first dim is not a constant of at most 1024. */
Obj *torchlib_rows(Interp *I, Obj *t, int32_t node);

#endif
