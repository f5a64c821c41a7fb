/*
 * eval.h - the evaluator of the lowering (eval.c): Python's expressions
 * and statements in host mode and in trace mode.
 */
#ifndef TNGC_LOWER_EVAL_H
#define TNGC_LOWER_EVAL_H

#include "builtins.h"
#include "entry.h"
#include "pyops.h"

/* Installs the evaluator's dispatch (interp_call, interp_getattr) and makes
 * the module's frame. */
void eval_init(Interp *I);
/* The evaluator's side of the import machinery (imports.h). */
const struct ImportHooks *eval_import_hooks(void);
/* Runs the script's module-level code (node 0, the module). */
void eval_module(Interp *I);
/* Frees the frames that outlived their calls. */
void eval_free(Interp *I);

#endif
