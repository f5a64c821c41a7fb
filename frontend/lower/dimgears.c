/*
 * dimgears.c - a comparison of dynamic dims decided by the gears
 * (dimgears.h).
 *
 * TorchDynamo guards a Python branch on a symbolic size and traces again
 * where the guard fails, so each gear computes what Python computes at its
 * sizes. tngc traces one graph for all gears: a comparison is exact there
 * only when it has the same value at every size a gear may give. The set
 * checked is a superset of the planned gears whatever the policy: every
 * combination of each symbol's gear values and its example size.
 */
#include "dimgears.h"

#include <stdint.h>
#include <string.h>

#define DIMGEARS_MAX_SYMS 8
#define DIMGEARS_MAX_ROWS 4096

/* The distinct values symbol sym takes in some gear, and its example
 * size; 0 when no set_dim_gears covers it. */
static size_t dimgears__values(const Graph *g, int sym, int64_t *out, size_t cap)
{
    size_t n = 0;
    int geared = 0;
    for (size_t k = 0; k < g->gears.n; k++) {
        const GearSpec *s = &g->gears.v[k];
        if (s->sym != sym)
            continue;
        geared = 1;
        for (size_t j = 0; j < s->nvalues; j++) {
            int seen = 0;
            for (size_t i = 0; i < n && !seen; i++)
                seen = out[i] == s->values[j];
            if (!seen && n < cap)
                out[n++] = s->values[j];
        }
    }
    if (!geared)
        return 0;
    int64_t ex = g->syms.v[sym].example;
    int seen = 0;
    for (size_t i = 0; i < n && !seen; i++)
        seen = out[i] == ex;
    if (!seen && n < cap)
        out[n++] = ex;
    return n;
}

static int dimgears__apply(const char *op, int64_t a, int64_t b)
{
    if (op[0] == '=')
        return a == b;
    if (op[0] == '!')
        return a != b;
    if (op[0] == '<')
        return op[1] == '=' ? a <= b : a < b;
    return op[1] == '=' ? a >= b : a > b;
}

/* "s0=4" for the symbols used, at their values in symval */
static void dimgears__row(const Graph *g, const int *used, size_t nused, const int64_t *symval, StrBuf *out)
{
    for (size_t i = 0; i < nused; i++)
        sb_printf(out, "%s%s=%lld", i ? ", " : "", g->syms.v[used[i]].name, (long long)symval[used[i]]);
}

int dimgears_compare(Interp *I, const char *op, const Obj *l, const Obj *r, int32_t node, int *res)
{
    Graph *g = I->g;
    const char *cond = interp_node_str(I, node);
    if (strlen(cond) > 60)
        cond = "this comparison";
    DimId da = obj_as_dim(I, l), db = obj_as_dim(I, r);
    if (da < 0 || db < 0 || !g->syms.n) {
        interp_break(I, node, RULE_TNG204, "comparison on a dynamic dimension");
        return 0;
    }
    int used[DIMGEARS_MAX_SYMS];
    size_t nused = 0;
    for (size_t s = 0; s < g->syms.n; s++) {
        if (!graph_dim_uses_sym(g, da, (int)s) && !graph_dim_uses_sym(g, db, (int)s))
            continue;
        if (nused == DIMGEARS_MAX_SYMS) {
            interp_break(I, node, RULE_TNG204, "comparison on a dynamic dimension ('%s') of more than %d "
                         "symbols", cond, DIMGEARS_MAX_SYMS);
            return 0;
        }
        used[nused++] = (int)s;
    }
    int64_t vals[DIMGEARS_MAX_SYMS][16];
    size_t nvals[DIMGEARS_MAX_SYMS], rows = 1;
    for (size_t i = 0; i < nused; i++) {
        nvals[i] = dimgears__values(g, used[i], vals[i], 16);
        if (!nvals[i]) {
            interp_break(I, node, RULE_TNG204, "comparison on a dynamic dimension ('%s'): %s has no gears "
                         "(set_dim_gears), so its value is not known at compile time", cond,
                         g->syms.v[used[i]].name);
            return 0;
        }
        rows *= nvals[i];
        if (rows > DIMGEARS_MAX_ROWS) {
            interp_break(I, node, RULE_TNG204, "comparison on a dynamic dimension ('%s') over more than %d "
                         "gear combinations", cond, DIMGEARS_MAX_ROWS);
            return 0;
        }
    }
    int64_t *symval = interp_alloc(I, g->syms.n * sizeof *symval);
    int64_t *first = interp_alloc(I, g->syms.n * sizeof *first);
    for (size_t s = 0; s < g->syms.n; s++)
        symval[s] = INT64_MIN;
    int decided = -1;
    for (size_t row = 0; row < rows; row++) {
        size_t k = row;
        for (size_t i = 0; i < nused; i++) {
            symval[used[i]] = vals[i][k % nvals[i]];
            k /= nvals[i];
        }
        int64_t a, b;
        if (graph_dim_eval(g, da, symval, &a) || graph_dim_eval(g, db, symval, &b)) {
            interp_break(I, node, RULE_TNG204, "comparison on a dynamic dimension ('%s') that tngc cannot "
                         "evaluate in every gear", cond);
            return 0;
        }
        int v = dimgears__apply(op, a, b);
        if (decided < 0) {
            decided = v;
            memcpy(first, symval, g->syms.n * sizeof *first);
        } else if (v != decided) {
            StrBuf one = {0}, two = {0};
            dimgears__row(g, used, nused, first, &one);
            dimgears__row(g, used, nused, symval, &two);
            interp_break(I, node, RULE_TNG204, "comparison on a dynamic dimension ('%s') that the gears decide "
                         "differently (%s: %s; %s: %s): tngc traces one graph for every gear", cond,
                         one.s ? one.s : "", decided ? "True" : "False", two.s ? two.s : "",
                         v ? "True" : "False");
            sb_free(&one);
            sb_free(&two);
            return 0;
        }
    }
    *res = decided;
    return 1;
}
