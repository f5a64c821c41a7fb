/*
 * libcall.h - the evaluator's calls of the layers below it (libcall.c).
 * Private to the evaluator (eval.c).
 */
#ifndef TNGC_LOWER_LIBCALL_H
#define TNGC_LOWER_LIBCALL_H

#include "obj.h"

/* f(args) of the library returned r (ndiag: the diagnostics before the
 * call): while tracing, an unknown result gets a reported cause. */
Obj *libcall_result(Interp *I, size_t ndiag, Obj *r, const char *name, Obj *self, CallArgs *a);
/* f(args) for a library callable: a TorchAir or torch entry point, an
 * external module's function, a Python builtin, a torch function. */
Obj *libcall_function(Interp *I, Obj *callee, CallArgs *a);
/* obj.m(args) for a method of a list, dict, str, module or tensor. */
Obj *libcall_method(Interp *I, Obj *callee, CallArgs *a);

#endif
