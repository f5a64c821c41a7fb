/*
 * numpylib.h - numpy at build time (numpylib.c), part of the object layer
 * (it calls obj.c only): numpy's constants are Python floats (obj.c's
 * obj_builtin), np.newaxis is None; np.log, np.exp, np.sqrt and
 * np.float64 of a Python number give a numpy.float64 scalar, an O_FLOAT
 * marked as one. Python's operators keep the mark (pyops.c, eval.c), as
 * numpy's scalar arithmetic does; torch.tensor() of a marked float is
 * refused (PyTorch makes a float64 tensor of it).
 */
#ifndef TNGC_LOWER_NUMPYLIB_H
#define TNGC_LOWER_NUMPYLIB_H

#include "obj.h"

/* 1 when o is a numpy.float64 scalar. */
int numpy_is_f64(const Obj *o);
/* 1 when o is, or a list or tuple holds (at any depth), a numpy.float64. */
int numpy_holds_f64(const Obj *o);
/* r, marked as a numpy.float64 when it is a float and l or r0 is one (the
 * result of a Python operator on them); r itself. */
Obj *numpy_result(Obj *r, const Obj *l, const Obj *r0);
/* A call of numpy.NAME (builtins.c's "numpy." row): np.log, np.exp,
 * np.sqrt, np.float64 of one Python number; anything else is refused:
 * TNG202 while tracing, an unknown naming the call in host code. */
Obj *numpy_call(Interp *I, const char *name, CallArgs *a);

#endif
