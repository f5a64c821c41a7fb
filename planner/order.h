/*
 * order.h - happens-before between the units of a plan (order.c): stream
 * order and the events, as one vector clock per unit, stored once per
 * change. streams.c fills it while it places the events; memory.c asks it
 * which uses of a buffer are over when another buffer is born.
 *
 * The clock of unit u holds, per stream s, how many units of s happen
 * before u or are u. A stream's clock changes only at a unit that waits
 * for an event (it then takes over the clock of the unit recorded), so a
 * row is stored at such a unit only, and every other unit points at the
 * last row of its stream; its own entry is its position. The memory of
 * the rows is (units that wait) x (streams), which order.c bounds.
 */
#ifndef TNGC_ORDER_H
#define TNGC_ORDER_H

#include "../frontend/diag/diag.h"
#include "plan_types.h"

/* The most streams (the default one included) an entry may use: the width
 * of every clock. */
#define PLAN_MAX_STREAMS 256
/* The most clock entries stored (4 bytes each): 128 MiB. */
#define PLAN_MAX_CLOCK_ENTRIES ((size_t)1 << 25)

typedef struct PlanOrder {
    size_t nstreams;       /* the width of a clock: Plan.streams.n */
    int32_t *stream;       /* per unit: its stream */
    int32_t *pos;          /* per unit: its 1-based position on its stream */
    int32_t *row;          /* per unit: the row of its stream's clock after it, or
                            * -1 when that stream has waited for nothing yet */
    int32_t *rows;         /* nrows rows of nstreams entries */
    size_t nrows, cap;
} PlanOrder;

/* Sizes the per-unit arrays for self->units (positions from the schedules
 * of self->streams); no rows yet. */
void plan_order_init(PlanOrder *o, const Plan *self);
void plan_order_free(PlanOrder *o);

/* How many units of stream s happen before unit u or are u. */
int32_t plan_order_seen(const PlanOrder *o, int32_t u, size_t s);
/* 1 when unit a happens before unit b (a != b). */
int plan_order_before(const PlanOrder *o, int32_t a, int32_t b);

/* Stores clock[0..nstreams) as the row of unit u (u waited for an event);
 * -1 after reporting at op when the rows would pass PLAN_MAX_CLOCK_ENTRIES. */
int plan_order_push(PlanOrder *o, const Plan *self, int32_t u, const int32_t *clock, DiagList *diags);
/* Gives unit u the row of its stream's last clock, last_row (-1: none). */
void plan_order_keep(PlanOrder *o, int32_t u, int32_t last_row);
/* The stored clock row r (its entry for the row's own stream is stale). */
const int32_t *plan_order_row(const PlanOrder *o, int32_t r);

#endif
