/*
 * builtins.h - Python's builtins and the methods of lists and dicts, as
 * the lowering evaluates them (builtins.c).
 */
#ifndef TNGC_LOWER_BUILTINS_H
#define TNGC_LOWER_BUILTINS_H

#include "torchlib.h"

/* Calls the builtin named name (len, min, range, zip, sorted, getattr,
 * math.sqrt, torch.manual_seed, torch.Size ...); NULL when name is none.
 * *checked is 0 for introspection (isinstance, getattr ...), whose unknown
 * result is no library result the evaluator must account for. */
Obj *builtins_call(Interp *I, const char *name, CallArgs *a, int *checked);
/* list.m(...) or dict.m(...) on self; NULL when m is not a method tngc
 * evaluates (a mutator it does not model leaves self unknown). */
/* s.m(args) for str s: format, join, split, replace, strip, lstrip,
 * rstrip, startswith, endswith, lower, upper of known strings; NULL when
 * tngc does not evaluate it (the caller reports or goes on unknown). */
/* True when name is one of Python's builtins tngc knows: a row of the
 * builtins table (not a library name with a dot) or one the evaluator
 * handles itself (super, object, the exceptions, math, ...). */
int builtins_is_name(const char *name);
/* class C(typing.NamedTuple) of the script: its annotated fields (as
 * @dataclass's) and the named-tuple flag. */
void builtins_namedtuple_class(Interp *I, InterpClass *cls);
Obj *builtins_str_method(Interp *I, const char *m, Obj *self, CallArgs *a);
Obj *builtins_container_method(Interp *I, const char *m, Obj *self, CallArgs *a);
/* 1 when m is a method of list or dict that changes the container. */
int builtins_container_mutator(const char *m);
/* Python's iter(o) as a list of items: obj_iter's loop (ITER_LOOP) for
 * containers, the rows of a tensor; NULL when o is not iterable here. */
Obj *builtins_iter(Interp *I, Obj *o, int32_t node);

#endif
