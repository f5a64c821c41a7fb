/*
 * loop.c - the evaluator's steps and loops (loop.h): the statement budget
 * every statement and loop iteration counts against, and what a loop
 * iterates. Private to the evaluator (eval.c).
 */
#include "loop.h"

#include <string.h>

/* ===================================================================== */
/* Steps                                                                 */
/* ===================================================================== */

/* One statement or loop iteration: counts it against INTERP_MAX_STEPS and
 * the budget; 0 when the run stops. */
int loop_step(Interp *I, int32_t node)
{
    if (I->aborted)
        return 0;
    interp_work(I, 1);
    interp_charge_graph(I);
    if (I->aborted)
        return 0;
    if (++I->steps > INTERP_MAX_STEPS) {
        interp_limit(I, node, "the script runs more than 2,000,000 statements");
        return 0;
    }
    return 1;
}

/* ===================================================================== */
/* Loops                                                                 */
/* ===================================================================== */

/* builtins_iter without the copy for a host tuple or list, for callers
 * that run no script code while they read the items (which could change
 * them). */
Obj *loop_view(Interp *I, Obj *o, int32_t node)
{
    if (!I->tracing && (o->kind == O_TUPLE || o->kind == O_LIST))
        return o;
    return builtins_iter(I, o, node);
}

/* for x in o: what the loop iterates (0 when o is not known). */
int loop_begin(Interp *I, Obj *o, int32_t node, LoopIter *it)
{
    memset(it, 0, sizeof *it);
    if (o->kind == O_RANGE && o->items[2]->i != 0) {
        uint64_t count;
        if (!obj_range(I, o, node, ITER_LOOP, &it->start, &it->step, &count))
            return 0;
        it->n = (size_t)count;
        return 1;
    }
    if (o->kind == O_ITER) {   /* what is left of it; a break leaves the rest */
        Obj *src = o->self_obj;
        it->iter = o;
        it->base = (size_t)o->i < src->n ? (size_t)o->i : src->n;
        it->items = obj_seq(I, O_LIST);
        for (size_t k = it->base; k < src->n; k++)
            obj_push(I, it->items, interp_trace_in(I, src->items[k], node));
        it->n = it->items->n;
        return 1;
    }
    it->items = o->kind == O_TUPLE ? loop_view(I, o, node) : builtins_iter(I, o, node);
    it->n = it->items ? it->items->n : 0;
    return it->items != NULL;
}

/* Item k of a loop begun by loop_begin. */
Obj *loop_item(Interp *I, const LoopIter *it, size_t k)
{
    if (it->iter)
        it->iter->i = (int64_t)(it->base + k + 1);
    return it->items ? it->items->items[k] : obj_int(I, obj_range_at(it->start, it->step, k));
}
