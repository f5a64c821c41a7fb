/*
 * gear_rules.c - the rules of set_dim_gears and of the merge policy, with
 * the one wording of each (gear_rules.h).
 *
 * TorchAir's checks are in inference/_gear_utils.py: an int dim in range
 * (lines 18-23), a list or tuple of ints (24-30) that holds no 0 (31-33),
 * equal lengths under zip (106-110) and at most 100 gears (116-119). Its
 * documentation of set_dim_gears also asks for 2 to 100 values per dim,
 * each above 1.
 */
#include "gear_rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Fills *v with rule at severity sev, the message led by "where: ". */
static int gear__verdict(GearVerdict *v, RuleId rule, Severity sev, const char *where, const char *fmt, ...)
{
    va_list ap;
    size_t n = 0;
    v->rule = rule;
    v->severity = sev;
    if (where)
        n = (size_t)snprintf(v->msg, sizeof v->msg, "%s: ", where);
    if (n >= sizeof v->msg)
        n = sizeof v->msg - 1;
    va_start(ap, fmt);
    vsnprintf(v->msg + n, sizeof v->msg - n, fmt, ap);
    va_end(ap);
    return 1;
}

/* A value of the wrong type (ok 0): "what", then ", not a str" when its
 * type is known. */
static int gear__type(int ok, const char *type, RuleId rule, const char *where, const char *what,
                      GearVerdict *v)
{
    if (ok)
        return 0;
    if (!type)
        return gear__verdict(v, rule, SEV_ERROR, where, "%s", what);
    return gear__verdict(v, rule, SEV_ERROR, where, "%s, not %s %s", what,
                         type[0] && strchr("aeiou", type[0]) ? "an" : "a", type);
}

int gear_rule_dict(int is_dict, const char *type, GearVerdict *v)
{
    return gear__type(is_dict, type, RULE_TNG123, NULL, "dim_gears must be a dict {dim: [values]}", v);
}

int gear_rule_dim_type(int is_int, const char *type, GearVerdict *v)
{
    return gear__type(is_int, type, RULE_TNG121, NULL, "gear dim must be an int", v);
}

int gear_rule_dim(int64_t d, int rank, GearVerdict *v)
{
    if (d >= 0 && (rank < 0 || d < rank))
        return 0;
    if (rank < 0)
        return gear__verdict(v, RULE_TNG122, SEV_ERROR, NULL, "gear dim %lld is negative; dims are 0 to rank-1",
                             (long long)d);
    if (rank == 0)
        return gear__verdict(v, RULE_TNG122, SEV_ERROR, NULL,
                             "gear dim %lld is out of range for a tensor of rank 0 (it has no dims)", (long long)d);
    return gear__verdict(v, RULE_TNG122, SEV_ERROR, NULL,
                         "gear dim %lld is out of range for a tensor of rank %d (valid: 0 to %d)",
                         (long long)d, rank, rank - 1);
}

int gear_rule_values_type(int is_seq, const char *type, const char *where, GearVerdict *v)
{
    return gear__type(is_seq, type, RULE_TNG123, where, "gear values must be a list or tuple of ints", v);
}

int gear_rule_count(size_t n, const char *where, GearVerdict *v)
{
    if (n >= GEAR_VALUES_MIN && n <= GEAR_VALUES_MAX)
        return 0;
    return gear__verdict(v, RULE_TNG126, SEV_ERROR, where, "a dim takes %d to %d gear values, not %zu",
                         GEAR_VALUES_MIN, GEAR_VALUES_MAX, n);
}

int gear_rule_value(int is_int, const char *type, int64_t value, int64_t plan_max, const char *where,
                    GearVerdict *v)
{
    if (gear__type(is_int, type, RULE_TNG124, where, "gear value must be an int", v))
        return 1;
    if (value == 0)
        return gear__verdict(v, RULE_TNG125, SEV_ERROR, where, "gear value must not be 0");
    if (plan_max > 0) {
        if (value < 0)
            return gear__verdict(v, RULE_TNG125, SEV_ERROR, where,
                                 "gear value %lld is negative: tngc plans only sizes above 0", (long long)value);
        if (value > plan_max) {
            char max[32];
            int bits = 0;
            while (bits < 62 && ((int64_t)1 << bits) < plan_max)
                bits++;
            if (((int64_t)1 << bits) == plan_max)
                snprintf(max, sizeof max, "2^%d", bits);
            else
                snprintf(max, sizeof max, "%lld", (long long)plan_max);
            return gear__verdict(v, RULE_TNG209, SEV_ERROR, where,
                                 "gear value %lld is larger than %s, the largest size tngc plans",
                                 (long long)value, max);
        }
        return 0;
    }
    if (value < 0)
        return gear__verdict(v, RULE_TNG125, SEV_WARNING, where,
                             "gear value %lld: TorchAir accepts it, but no tensor dim is negative and its "
                             "documentation allows only values above 1", (long long)value);
    if (value == 1)
        return gear__verdict(v, RULE_TNG125, SEV_WARNING, where,
                             "gear value 1: TorchAir accepts it, but its documentation allows only values above 1");
    return 0;
}

int gear_rule_zip(size_t n, const char *here, size_t first_n, const char *first, GearVerdict *v)
{
    if (n == first_n)
        return 0;
    return gear__verdict(v, RULE_TNG128, SEV_ERROR, NULL,
                         "the zip gear policy needs gear lists of equal length: %zu values %s, %zu %s",
                         n, here, first_n, first);
}

int gear_rule_total(int product, size_t ngears, GearVerdict *v)
{
    if (ngears <= GEARS_MAX)
        return 0;
    if (!product)
        return gear__verdict(v, RULE_TNG129, SEV_ERROR, NULL, "%zu gears; at most %d are allowed",
                             ngears, GEARS_MAX);
    if (ngears > GEARS_COUNT_CAP)
        return gear__verdict(v, RULE_TNG129, SEV_ERROR, NULL,
                             "the product of the gear lists gives more than %d gears; at most %d are allowed",
                             GEARS_COUNT_CAP, GEARS_MAX);
    return gear__verdict(v, RULE_TNG129, SEV_ERROR, NULL,
                         "the product of the gear lists gives %zu gears; at most %d are allowed",
                         ngears, GEARS_MAX);
}

size_t gear_count_mul(size_t total, size_t n)
{
    return total > GEARS_COUNT_CAP ? total : total * n;
}

static const char *const gear_policies[2] = {"zip", "product"};

int gear_policy_parse(const char *name, size_t len, int *product, GearVerdict *v)
{
    *product = 0;
    for (int i = 0; i < 2; i++)
        if (name && len == strlen(gear_policies[i]) && !memcmp(name, gear_policies[i], len)) {
            *product = i;
            return 0;
        }
    return gear__verdict(v, RULE_TNG130, SEV_ERROR, NULL, "dynamic_gears_merge_policy must be \"%s\" or \"%s\"",
                         gear_policies[0], gear_policies[1]);
}

const char *gear_policy_name(int product)
{
    return gear_policies[product != 0];
}
