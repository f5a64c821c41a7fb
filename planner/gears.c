/*
 * gears.c - the gears of an entry: which assignments of its dynamic dims
 * get a static plan, in a deterministic order.
 *
 * set_dim_gears gives each geared dim a list of sizes (Graph.gears, one
 * GearSpec per dim). The merge policy combines them: zip takes the i-th
 * value of every list for gear i (all lists must be equally long);
 * product takes the cartesian product, in lexicographic order over
 * (input position, dim), the first such dim varying slowest. Duplicate
 * gears are dropped (the first occurrence keeps its place) and at most 100
 * gears remain. Symbols no gear binds stay unbound (INT64_MIN): a graph
 * without gears gets one gear, fully static when it has no symbols.
 *
 * The interpreter reports most problems of a single set_dim_gears call;
 * this pass reports the problems of the combination (TNG128, TNG129), a
 * list the interpreter let through (once per rule and line), all three by
 * the rules and words of frontend/diag/gear_rules.h, and the shape
 * checks lowering could not decide, evaluated in every gear (TNG209).
 *
 * It also carries graph.h's size invariant into every gear: a gear value
 * past GRAPH_MAX_BYTES is refused at its set_dim_gears call, and every
 * value's dims are evaluated (overflow-checked) in every gear; a dim that
 * overflows or is negative, or a tensor past GRAPH_MAX_BYTES, is TNG209 at
 * the op that makes it (once per op, and only where none of the op's
 * inputs already failed). The later passes and the code generators can
 * then compute sizes, offsets and arena sums of bound gears without
 * overflow.
 */
#include "passes.h"
#include "../frontend/diag/gear_rules.h"

#include <string.h>

/* A list of candidate gears: rows of nspec values, one per kept spec. */
typedef struct GearRows {
    int64_t *v;
    size_t n, cap, width;
} GearRows;

static void gears__row_push(GearRows *rows, const int64_t *row)
{
    if (rows->n == rows->cap) {
        rows->cap = rows->cap ? 2 * rows->cap : 16;
        rows->v = xrealloc(rows->v, rows->cap * rows->width * sizeof *rows->v);
    }
    memcpy(rows->v + rows->n * rows->width, row, rows->width * sizeof *row);
    rows->n++;
}

static int gears__row_seen(const GearRows *rows, const int64_t *row)
{
    for (size_t i = 0; i < rows->n; i++)
        if (!memcmp(rows->v + i * rows->width, row, rows->width * sizeof *row))
            return 1;
    return 0;
}

/* "dim 0 of x" for messages. */
static const char *gears__spec_name(Plan *self, const GearSpec *s)
{
    const Graph *g = self->g;
    const char *in = s->input >= 0 && (size_t)s->input < g->inputs.n && g->inputs.v[s->input].name
                         ? g->inputs.v[s->input].name : "?";
    return arena_printf(&self->arena, "dim %d of %s", s->dim, in);
}

/* Reports a verdict of gear_rules.h unless the interpreter already
 * reported its rule on that line. */
static void gears__report_once(DiagList *diags, const GearSpec *s, const GearVerdict *v)
{
    for (size_t i = 0; i < diags->n; i++)
        if (diags->v[i].rule == v->rule && diags->v[i].line == s->line)
            return;
    diag_at(diags, s->line, s->col, v->rule, "%s", v->msg);
}

/* A spec that is invalid on its own: wrong number of values, a value that
 * is no size tngc plans. */
static int gears__spec_valid(Plan *self, const GearSpec *s, DiagList *diags)
{
    const char *name = gears__spec_name(self, s);
    GearVerdict v;
    if (gear_rule_count(s->nvalues, name, &v)) {
        gears__report_once(diags, s, &v);
        return 0;
    }
    for (size_t i = 0; i < s->nvalues; i++)
        if (gear_rule_value(1, NULL, s->values[i], GRAPH_MAX_BYTES, name, &v)) {
            gears__report_once(diags, s, &v);
            return 0;
        }
    return 1;
}

/* The specs that bind a symbol, first spec of each symbol only (the
 * interpreter reports a different dict on the same tensor); -1 when one
 * is invalid. */
static int gears__collect(Plan *self, DiagList *diags, const GearSpec **kept, size_t *nkept)
{
    const Graph *g = self->g;
    int ok = 1;
    *nkept = 0;
    for (size_t i = 0; i < g->gears.n; i++) {
        const GearSpec *s = &g->gears.v[i];
        if (s->sym < 0 || (size_t)s->sym >= g->syms.n)
            continue;  /* a static dim: the interpreter reported it */
        int dup = 0;
        for (size_t j = 0; j < *nkept; j++)
            dup |= kept[j]->sym == s->sym;
        if (dup)
            continue;
        ok &= gears__spec_valid(self, s, diags);
        kept[(*nkept)++] = s;
    }
    return ok ? 0 : -1;
}

/* zip: gear i takes the i-th value of every list. */
static int gears__zip(Plan *self, const GearSpec **specs, size_t n, GearRows *rows,
                      DiagList *diags)
{
    int ok = 1;
    for (size_t k = 1; k < n; k++)
        if (specs[k]->nvalues != specs[0]->nvalues) {
            GearVerdict v;
            gear_rule_zip(specs[k]->nvalues, arena_printf(&self->arena, "for %s", gears__spec_name(self, specs[k])),
                          specs[0]->nvalues, arena_printf(&self->arena, "for %s", gears__spec_name(self, specs[0])),
                          &v);
            diag_at(diags, specs[k]->line, specs[k]->col, v.rule, "%s", v.msg);
            ok = 0;
        }
    if (!ok)
        return -1;
    int64_t *row = xmalloc(n * sizeof *row);
    for (size_t i = 0; i < specs[0]->nvalues; i++) {
        for (size_t k = 0; k < n; k++)
            row[k] = specs[k]->values[i];
        if (!gears__row_seen(rows, row))
            gears__row_push(rows, row);
    }
    free(row);
    return 0;
}

static int gears__spec_before(const GearSpec *a, const GearSpec *b)
{
    return a->input != b->input ? a->input < b->input : a->dim < b->dim;
}

/* Distinct values of s in list order; returns their number. */
static size_t gears__distinct(const GearSpec *s, int64_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nvalues; i++) {
        size_t j = 0;
        while (j < n && out[j] != s->values[i])
            j++;
        if (j == n)
            out[n++] = s->values[i];
    }
    return n;
}

/* Sorts specs by (input, dim); insertion sort: stable, and n is tiny. */
static void gears__sort(const GearSpec **specs, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && gears__spec_before(specs[j], specs[j - 1]); j--) {
            const GearSpec *t = specs[j];
            specs[j] = specs[j - 1];
            specs[j - 1] = t;
        }
}

/* Every combination of vals[k][0..count[k]), the last list fastest. */
static void gears__enumerate(const int64_t *vals, const size_t *count, size_t n,
                             size_t total, GearRows *rows)
{
    size_t *digit = xcalloc(n, sizeof *digit);
    int64_t *row = xmalloc(n * sizeof *row);
    for (size_t g = 0; g < total; g++) {
        for (size_t k = 0; k < n; k++)
            row[k] = vals[k * GEAR_VALUES_MAX + digit[k]];
        gears__row_push(rows, row);
        for (size_t k = n; k-- > 0 && ++digit[k] == count[k];)
            digit[k] = 0;  /* odometer carry */
    }
    free(digit);
    free(row);
}

/* product: the cartesian product over specs sorted by (input, dim), the
 * first varying slowest; at most GEARS_MAX. */
static int gears__product(const GearSpec **specs, size_t n, GearRows *rows, DiagList *diags)
{
    gears__sort(specs, n);
    int64_t *vals = xmalloc(n * GEAR_VALUES_MAX * sizeof *vals);
    size_t *count = xmalloc(n * sizeof *count), total = 1;
    for (size_t k = 0; k < n; k++) {
        count[k] = gears__distinct(specs[k], vals + k * GEAR_VALUES_MAX);
        total = gear_count_mul(total, count[k]);
    }
    int rc = 0;
    GearVerdict v;
    if (gear_rule_total(1, total, &v)) {
        diag_at(diags, specs[0]->line, specs[0]->col, v.rule, "%s", v.msg);
        rc = -1;
    } else {
        gears__enumerate(vals, count, n, total, rows);
    }
    free(vals);
    free(count);
    return rc;
}

static void gears__add(Plan *self, const GearSpec **specs, size_t nspecs, const int64_t *row)
{
    size_t nsyms = self->g->syms.n;
    PlanGear pg = {arena_alloc(&self->arena, (nsyms + 1) * sizeof(int64_t))};
    for (size_t s = 0; s < nsyms; s++)
        pg.symval[s] = INT64_MIN;
    for (size_t k = 0; k < nspecs; k++)
        pg.symval[specs[k]->sym] = row[k];
    VEC_PUSH(self->gears, pg);
}

/* Builds self->gears from g->gears; -1 after reporting an error. */
static int gears__combine(Plan *self, DiagList *diags)
{
    const Graph *g = self->g;
    const GearSpec **specs = xmalloc((g->gears.n + 1) * sizeof *specs);
    size_t n;
    int rc = gears__collect(self, diags, specs, &n);
    GearRows rows = {.width = n};
    if (rc == 0 && n > 0)
        rc = g->cfg.policy == GEAR_PRODUCT ? gears__product(specs, n, &rows, diags)
                                           : gears__zip(self, specs, n, &rows, diags);
    GearVerdict v;
    if (rc == 0 && gear_rule_total(0, rows.n, &v)) {
        diag_at(diags, specs[0]->line, specs[0]->col, v.rule, "%s", v.msg);
        rc = -1;
    }
    if (rc == 0 && n == 0)
        gears__add(self, specs, 0, NULL);
    for (size_t i = 0; rc == 0 && i < rows.n; i++)
        gears__add(self, specs, n, rows.v + i * n);
    free(rows.v);
    free(specs);
    return rc;
}

/* "gear 1 (s0=4, s1=2)": the bound symbols of gear i. */
static void gears__describe(const Plan *self, size_t i, StrBuf *out)
{
    const Graph *g = self->g;
    const int64_t *sv = self->gears.v[i].symval;
    sb_printf(out, "gear %zu", i);
    const char *sep = " (";
    for (size_t s = 0; s < g->syms.n; s++)
        if (sv[s] != INT64_MIN) {
            sb_printf(out, "%s%s=%lld", sep, g->syms.v[s].name ? g->syms.v[s].name : "?",
                      (long long)sv[s]);
            sep = ", ";
        }
    if (*sep == ',')
        sb_putc(out, ')');
}

/* 1 when check c fails in gear i (a and b known and not compatible), 2
 * when a side overflows int64 there. */
static int gears__check_fails(const Plan *self, const DimCheck *c, size_t i, int64_t *a, int64_t *b)
{
    const int64_t *sv = self->gears.v[i].symval;
    int ra = graph_dim_eval(self->g, c->a, sv, a), rb = graph_dim_eval(self->g, c->b, sv, b);
    if (ra == -2 || rb == -2)
        return 2;
    if (ra < 0 || rb < 0)
        return 0;  /* decided at run time */
    if (*a == *b)
        return 0;
    return !(c->kind == DIMCHECK_BCAST && (*a == 1 || *b == 1));
}

/* One diagnostic per failing check: its first failing gear, and how many
 * other gears fail it. */
static int gears__check(Plan *self, const DimCheck *c, DiagList *diags)
{
    size_t first = 0, nfail = 0;
    int64_t a0 = 0, b0 = 0;
    int how = 0;
    for (size_t i = 0; i < self->gears.n; i++) {
        int64_t a = 0, b = 0;
        int f = gears__check_fails(self, c, i, &a, &b);
        if (f && nfail++ == 0)
            first = i, a0 = a, b0 = b, how = f;
    }
    if (nfail == 0)
        return 0;
    const Graph *g = self->g;
    uint32_t line = g->line, col = g->col;
    if (c->op >= 0 && (size_t)c->op < g->ops.n)
        line = g->ops.v[c->op].line, col = g->ops.v[c->op].col;
    StrBuf sb = {0};
    sb_puts(&sb, "in ");
    gears__describe(self, first, &sb);
    if (how == 2)
        sb_printf(&sb, ": %s: a size overflows 64-bit arithmetic", c->what ? c->what : "shape check");
    else
        sb_printf(&sb, ": %s: %lld vs %lld", c->what ? c->what : "shape check",
                  (long long)a0, (long long)b0);
    if (nfail > 1)
        sb_printf(&sb, " (and in %zu more gear%s)", nfail - 1, nfail > 2 ? "s" : "");
    diag_at(diags, line, col, RULE_TNG209, "%s", sb.s);
    sb_free(&sb);
    return -1;
}

/* A symbol that a shape check equates with a constant is that constant
 * (Dynamo specialises it the same way: a dynamic hidden size that meets a
 * static weight is the weight's size). Binds such symbols left unbound in
 * gear i, to a fixpoint; the checks then hold by construction. A symbol's
 * example is at least 2 (sizes 0 and 1 are specialised when the input is
 * bound), so a broadcast check against a constant c != 1 also means c. */
static void gears__specialise(Plan *self, size_t i)
{
    const Graph *g = self->g;
    int64_t *symval = self->gears.v[i].symval;
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t k = 0; k < g->checks.n; k++) {
            const DimCheck *c = &g->checks.v[k];
            int64_t va, vb;
            int ea = graph_dim_eval(g, c->a, symval, &va) == 0;
            int eb = graph_dim_eval(g, c->b, symval, &vb) == 0;
            if (ea == eb)
                continue;
            DimId unknown = ea ? c->b : c->a;
            int64_t value = ea ? va : vb;
            if (g->dims.v[unknown].kind != DIM_SYM || value < 2)
                continue;
            symval[g->dims.v[unknown].c] = value;
            changed = 1;
        }
    }
}

/* Why value v breaks the size invariant in gear i, or NULL; the
 * evaluated dims (unbound ones as 1) in dims. */
static const char *gears__size_problem(Plan *self, size_t i, int32_t v, int64_t *dims)
{
    const Graph *g = self->g;
    const Val *val = &g->vals.v[v];
    for (int d = 0; d < val->ndim; d++) {
        int rc = graph_dim_eval(g, val->dims[d], self->gears.v[i].symval, &dims[d]);
        if (rc == -2)
            return arena_printf(&self->arena, "dim %d overflows 64-bit arithmetic", d);
        if (rc < 0)
            dims[d] = 1;   /* known at run time */
        else if (dims[d] < 0)
            return arena_printf(&self->arena, "dim %d is negative (%lld)", d, (long long)dims[d]);
    }
    if (graph_size_check(val->ndim, dims, dtype_size(val->dtype), NULL) < 0)
        return "it is larger than 2^48 bytes, the most tngc plans for one tensor";
    return NULL;
}

/* "input x" / "the result of reshape" and its type, for messages. */
static void gears__val_text(const Plan *self, int32_t v, StrBuf *out)
{
    const Graph *g = self->g;
    const Op *op = &g->ops.v[g->vals.v[v].op];
    if (op->kind == OP_INPUT || op->kind == OP_WEIGHT)
        sb_printf(out, "%s %s ", op->kind == OP_INPUT ? "input" : "weight",
                  g->vals.v[v].name ? g->vals.v[v].name : "?");
    else
        sb_printf(out, "the result of %s ", op_info[op->kind].name);
    graph_val_type_str(g, v, out);
}

/* The size invariant of graph.h in every gear: one TNG209 per op with an
 * output that breaks it, unless an input of the op already broke it. */
static int gears__sizes(Plan *self, DiagList *diags)
{
    const Graph *g = self->g;
    char *bad = xcalloc(g->vals.n + 1, 1);
    int64_t dims[GRAPH_MAX_DIMS];
    int rc = 0;
    for (size_t o = 0; o < g->ops.n; o++) {
        const Op *op = &g->ops.v[o];
        int inherited = 0;   /* an input failed, or an earlier output was reported */
        for (uint32_t k = 0; k < op->nin; k++)
            inherited |= op->in[k] >= 0 && bad[op->in[k]];
        for (uint32_t k = 0; k < op->nout; k++) {
            int32_t v = op->out + (int32_t)k;
            size_t first = 0, nfail = 0;
            const char *why = NULL;
            for (size_t i = 0; i < self->gears.n; i++) {
                const char *w = gears__size_problem(self, i, v, dims);
                if (w && nfail++ == 0)
                    first = i, why = w;
            }
            if (!nfail)
                continue;
            bad[v] = 1;
            rc = -1;
            if (inherited)
                continue;
            StrBuf sb = {0};
            sb_puts(&sb, "in ");
            gears__describe(self, first, &sb);
            sb_puts(&sb, ": ");
            gears__val_text(self, v, &sb);
            sb_printf(&sb, ": %s", why);
            if (nfail > 1)
                sb_printf(&sb, " (and in %zu more gear%s)", nfail - 1, nfail > 2 ? "s" : "");
            diag_at_file(diags, op->line ? op->file : NULL, op->line ? op->line : g->line,
                         op->line ? op->col : g->col, RULE_TNG209, "%s", sb.s);
            sb_free(&sb);
            inherited = 1;   /* one diagnostic per op */
        }
    }
    free(bad);
    return rc;
}

int plan_gears(Plan *self, DiagList *diags)
{
    if (gears__combine(self, diags) < 0)
        return -1;
    for (size_t i = 0; i < self->gears.n; i++)
        gears__specialise(self, i);
    int rc = gears__sizes(self, diags);
    for (size_t i = 0; i < self->g->checks.n; i++)
        rc |= gears__check(self, &self->g->checks.v[i], diags);
    return rc;
}
