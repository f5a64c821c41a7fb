/*
 * values.h - what the passes ask about a value of the plan's graph: where
 * its storage belongs and how big it is in a gear (values.c).
 */
#ifndef TNGC_VALUES_H
#define TNGC_VALUES_H

#include "plan_types.h"

/* Fills Plan.root and Plan.last_write in one walk of the values (each
 * view's or in-place output's input 0 comes before it): plan_build does
 * first. */
void plan_values_init(Plan *self);
/* graph_storage_root of v, from Plan.root (in O(1)) once it is filled. */
int32_t plan_root(const Plan *self, int32_t v);

/* "input x" / "weight w" when v's storage belongs to the caller, else NULL
 * (the text in self's arena). */
const char *plan_caller_storage(Plan *self, int32_t v);
/* Elements of value v in gear `gear`; -1 when a dim is unbound there. */
int64_t plan_val_numel(const Plan *self, int gear, int32_t v);
/* Bytes of value v in gear `gear` (elements x dtype size); -1 when unbound. */
int64_t plan_val_bytes(const Plan *self, int gear, int32_t v);

#endif
