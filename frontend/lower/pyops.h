/*
 * pyops.h - Python's operators on the values of the lowering (pyops.c):
 * arithmetic, comparison, subscripts.
 */
#ifndef TNGC_LOWER_PYOPS_H
#define TNGC_LOWER_PYOPS_H

#include "torchlib.h"

/* l op r for a binary operator's text (+ - * / // % ** @ & | ^ << >>):
 * tensors through the torch library; an unsupported operand is a graph
 * break at node. */
Obj *pyops_binop(Interp *I, const char *op, Obj *l, Obj *r, int32_t node);
/* l op r for a comparison (<, <=, >, >=, ==, !=, in, not in, is, is not):
 * a bool, or an unknown (TNG204 on tensors and dynamic dims). */
Obj *pyops_compare(Interp *I, const char *op, Obj *l, Obj *r, int32_t node);
/* o[key] (key evaluated: an int, slice, tuple of them, any dict key). */
Obj *pyops_subscript(Interp *I, Obj *o, Obj *key, int32_t node);
/* o[key] = val: lists, dicts, tensor slices. */
void pyops_store_subscript(Interp *I, Obj *o, Obj *key, Obj *val, int32_t node);

#endif
