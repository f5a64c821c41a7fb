/*
 * modelpy.h - Python constructs of published model files that the
 * evaluator hands to modelpy.c: an instance's __dict__ as a live dict,
 * class attributes rebound after the class body, torch.distributed in a
 * single process, torch.autograd.Function.apply in inference, the
 * parameter and buffer iterators of nn.Module, and the list and tuple
 * methods index, count, copy and sort. Private to the evaluator (eval.c,
 * libcall.c).
 */
#ifndef TNGC_LOWER_MODELPY_H
#define TNGC_LOWER_MODELPY_H

#include "builtins.h"

/* The library function name(args) when it is one of modelpy's
 * (vars, torch.distributed.is_initialized, is_available, get_world_size,
 * get_rank ...); NULL otherwise. */
Obj *modelpy_call(Interp *I, const char *name, CallArgs *a);
/* self.m(args) when modelpy evaluates it: list/tuple index, count, copy,
 * list.sort, dict.copy, dict.popitem, str.index / rindex, nn.Module
 * parameters / named_parameters / buffers /
 * named_buffers, the methods of an autograd Function's ctx; NULL
 * otherwise. */
Obj *modelpy_method(Interp *I, const char *m, Obj *self, CallArgs *a);
/* o.name when modelpy reads it: inst.__dict__ (the live view), Cls.apply
 * of a torch.autograd.Function subclass, ctx.needs_input_grad; NULL
 * otherwise. */
Obj *modelpy_getattr(Interp *I, Obj *o, const char *name, int32_t node);
/* o.name = val when modelpy writes it (a class attribute of the script, an
 * attribute of an autograd ctx): 1, else 0. */
int modelpy_setattr(Interp *I, Obj *o, const char *name, Obj *val, int32_t node);
/* After d changed through a method, a subscript store or del: when d is
 * an instance's __dict__, the instance's attributes become d's items. */
void modelpy_dict_sync(Interp *I, Obj *d);
/* A tensor attribute a compiled method creates on its first call:
 * `if OBJ.NAME is None:` with no elif or else, whose body only assigns.
 * modelpy_lazy_guard returns the node of OBJ.NAME, else -1.
 * modelpy_lazy_ready says (1) whether the body may run as host code,
 * now, once: o is an instance whose NAME is None. modelpy_lazy_done checks
 * what the body did (Interp.lazy_stale) and left in NAME: 0 when that is
 * no tensor of the method's inputs and the body read no tensor the trace
 * had written (a diagnostic otherwise). */
int32_t modelpy_lazy_guard(Interp *I, int32_t ifnode);
int modelpy_lazy_ready(Obj *o, const char *name);
int modelpy_lazy_done(Interp *I, Obj *o, const char *name, int32_t ifnode);

#endif
