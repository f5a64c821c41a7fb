/*
 * gear_rules.h - the rules of set_dim_gears and of the gear merge policy
 * (TNG121-TNG126, TNG128-TNG130, and TNG209's gear values past the largest
 * size tngc plans), on plain data: dims, ranks, values, counts, names.
 *
 * Lint checks the script's literals, the interpreter the values the script
 * computes, the planner the gear lists of a graph; each asks these
 * functions and reports the verdict at its own location, so a rule reads
 * the same whichever stage finds it. Each check returns 1 and fills *v
 * when there is something to report (an error or a warning), else 0.
 *
 * `where` names the gear list for a caller whose location is the whole
 * set_dim_gears call ("dim 0 of x"); it leads the message as "dim 0 of x:
 * ...". NULL: the location is the offending literal itself. `type` is the
 * Python type of a value of the wrong kind ("str"), added as ", not a str";
 * NULL leaves it out.
 */
#ifndef TNGC_GEAR_RULES_H
#define TNGC_GEAR_RULES_H

#include "diag.h"

#define GEAR_VALUES_MIN 2     /* values in one dim's gear list */
#define GEAR_VALUES_MAX 100
#define GEARS_MAX 100         /* gears after the merge policy combines the lists */
#define GEARS_COUNT_CAP 1000  /* gear_count_mul stops counting past this */

typedef struct GearVerdict {
    RuleId rule;
    Severity severity;
    char msg[256];
} GearVerdict;

/* dim_gears is not a dict (is_dict 0): TNG123. */
int gear_rule_dict(int is_dict, const char *type, GearVerdict *v);
/* A dim that is not an int (is_int 0): TNG121. */
int gear_rule_dim_type(int is_int, const char *type, GearVerdict *v);
/* Dim d of a tensor of rank rank (-1: not known; then only d < 0 is
 * checked): TNG122. */
int gear_rule_dim(int64_t d, int rank, GearVerdict *v);
/* A dim's gear values that are not a list or tuple (is_seq 0): TNG123. */
int gear_rule_values_type(int is_seq, const char *type, const char *where, GearVerdict *v);
/* A gear list of n values, outside [GEAR_VALUES_MIN, GEAR_VALUES_MAX]: TNG126. */
int gear_rule_count(size_t n, const char *where, GearVerdict *v);
/* One gear value: not an int (TNG124), 0 (TNG125). plan_max 0 is
 * TorchAir's view (lint): a negative value or 1 is a TNG125 warning, as
 * TorchAir accepts them and its documentation does not. plan_max > 0 is
 * the planner's view: the value is a size tngc plans, so one below 1 is a
 * TNG125 error and one above plan_max a TNG209 error. */
int gear_rule_value(int is_int, const char *type, int64_t value, int64_t plan_max, const char *where,
                    GearVerdict *v);
/* zip with a list of n values where the first has first_n: TNG128.
 * here and first describe the two lists ("here", "in the first at line 3";
 * "for dim 0 of y", "for dim 0 of x"). */
int gear_rule_zip(size_t n, const char *here, size_t first_n, const char *first, GearVerdict *v);
/* ngears gears after the merge policy (product: of the lists' distinct
 * values, counted by gear_count_mul), over GEARS_MAX: TNG129. */
int gear_rule_total(int product, size_t ngears, GearVerdict *v);
/* total * n, saturated: stays above GEARS_COUNT_CAP once past it. */
size_t gear_count_mul(size_t total, size_t n);

/* dynamic_gears_merge_policy set to the name of len bytes: 0 and *product
 * (0 zip, 1 product) for a policy, else TNG130 in *v and *product 0. */
int gear_policy_parse(const char *name, size_t len, int *product, GearVerdict *v);
/* The name of a policy: "zip" or "product". */
const char *gear_policy_name(int product);

#endif
