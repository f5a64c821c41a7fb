/*
 * loop.h - the evaluator's steps and loops (loop.c). Private to the
 * evaluator (eval.c).
 */
#ifndef TNGC_LOWER_LOOP_H
#define TNGC_LOWER_LOOP_H

#include "builtins.h"

/* What a loop iterates: a range item by item (no list of its ints), a
 * tuple as it is (it cannot change while the body runs), anything else
 * as a copy of its items (builtins_iter). */
typedef struct LoopIter {
    Obj *items;            /* NULL for a range */
    int64_t start, step;
    size_t n;
    Obj *iter;             /* an iterator (iter()): each item taken advances it, from base */
    size_t base;
} LoopIter;

/* One statement or loop iteration: counts it against INTERP_MAX_STEPS and
 * the budget; 0 when the run stops. */
int loop_step(Interp *I, int32_t node);
/* builtins_iter without the copy for a host tuple or list (for callers
 * that run no script code while they read the items). */
Obj *loop_view(Interp *I, Obj *o, int32_t node);
/* for x in o: what the loop iterates (0 when o is not known). */
int loop_begin(Interp *I, Obj *o, int32_t node, LoopIter *it);
/* Item k of a loop begun by loop_begin. */
Obj *loop_item(Interp *I, const LoopIter *it, size_t k);

#endif
