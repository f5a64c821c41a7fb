/*
 * lint.c - the rules of `tngc lint`. They read the facts the scanner
 * recorded: annotations with their arguments and scopes, config objects
 * and their fields, compile calls, example tensors and the calls that bind
 * them to compiled functions. A rule that needs to know how a function is
 * compiled stays silent when that is not known statically.
 */
#include "lint.h"
#include "lint_impl.h"
#include "../frontend/diag.h"

#include <stdlib.h>
#include <string.h>

/* ---- chips ---- */

static const struct { const char *name; int super_kernel; } socs[] = {
    {"Ascend910_9391", 1}, {"Ascend910_9392", 1}, {"Ascend910_9381", 1},
    {"Ascend910_9382", 1}, {"Ascend910_9372", 1}, {"Ascend910_9362", 1},
    {"Ascend910B1", 0}, {"Ascend910B2", 0}, {"Ascend910B3", 0}, {"Ascend910B4", 0},
    {"Ascend910A", 0}, {"Ascend910B", 0}, {"Ascend310P3", 0}, {"Ascend310B1", 0},
};

int lint_soc_known(const char *soc, int *has_super_kernel)
{
    for (size_t i = 0; i < sizeof socs / sizeof *socs; i++)
        if (!strcmp(socs[i].name, soc)) {
            *has_super_kernel = socs[i].super_kernel;
            return 1;
        }
    return 0;
}

/* ---- config facts ---- */

/* The field a config path sets: `config.mode.value = "..."` sets `mode`
 * (TorchAir's OptionValue; the same validating setter,
 * _option_base.py:42-48). */
const char *lint_field_path(const char *path)
{
    return !strcmp(path, "mode.value") ? "mode" : path;
}

const ConfigField *lint_field(const Lint *l, int cfg, const char *path)
{
    if (cfg < 0)
        return NULL;
    const Config *c = &l->sf->configs.v[cfg];
    for (size_t i = c->fields.n; i-- > 0;)
        if (!strcmp(lint_field_path(c->fields.v[i].path), path))
            return &c->fields.v[i];
    return NULL;
}

/* The string a config field is set to: its default when unset, NULL when
 * the config or the value is not known statically. */
const char *lint_config_str(const Lint *l, int cfg, const char *path, const char *dflt)
{
    if (cfg == CONFIG_UNKNOWN)
        return NULL;
    const ConfigField *f = lint_field(l, cfg, path);
    if (!f)
        return dflt;
    return f->value && f->value->kind == V_STR ? f->value->s : NULL;
}

const char *const lint_modes[3] = {"max-autotune", "reduce-overhead", "npugraph_ex"};

/* The mode of a config; NULL when unknown or not a valid mode (TNG165). */
const char *lint_mode(const Lint *l, int cfg)
{
    const char *m = lint_config_str(l, cfg, "mode", "max-autotune");
    for (size_t i = 0; m && i < 3; i++)
        if (!strcmp(m, lint_modes[i]))
            return m;
    return NULL;
}

/* The mode of a compile through TorchAir, or NULL when unknown. */
const char *lint_compile_mode(const Lint *l, const Compile *c)
{
    return c->torchair == 1 ? lint_mode(l, c->config) : NULL;
}

int lint_reduce_overhead(const Lint *l, const Compile *c)
{
    const char *m = lint_compile_mode(l, c);
    return m && !strcmp(m, "reduce-overhead");
}

static int lint__dynamic_true(const Compile *c)
{
    return c->dynamic == TRI_TRUE || (c->is_cache && c->dynamic == TRI_DEFAULT);
}

/* Marks the functions each compile runs: its target and, transitively,
 * the methods of the same class it calls through self. */
static void lint__compiled_functions(Lint *l)
{
    ScanFile *sf = l->sf;
    l->nfuncs = sf->funcs.n;
    l->compiles_func = xcalloc(sf->compiles.n * l->nfuncs + 1, 1);
    int *work = xmalloc((l->nfuncs + 1) * sizeof *work);
    for (size_t c = 0; c < sf->compiles.n; c++) {
        int f0 = sf->compiles.v[c].func;
        if (f0 < 0)
            continue;
        uint8_t *mark = l->compiles_func + c * l->nfuncs;
        size_t n = 0;
        mark[f0] = 1;
        work[n++] = f0;
        while (n) {
            const Function *f = &sf->funcs.v[work[--n]];
            for (size_t i = 0; i < f->self_calls.n; i++)
                for (size_t g = 0; g < sf->funcs.n; g++)
                    if (!mark[g] && sf->funcs.v[g].cls == f->cls && f->cls >= 0 &&
                        !strcmp(sf->funcs.v[g].name, f->self_calls.v[i])) {
                        mark[g] = 1;
                        work[n++] = (int)g;
                    }
        }
    }
    free(work);
}

int lint_compiles(const Lint *l, size_t c, int func)
{
    return func >= 0 && l->compiles_func[c * l->nfuncs + (size_t)func];
}

/* ---- streams ---- */

static void lint__stream_switch(Lint *l, const Annotation *a, int single_stream)
{
    if (single_stream)
        REPORT(l, a->node, TNG101,
               "npu_stream_switch conflicts with ge_config.enable_single_stream = True set in this file");
    const Value *tag = ann_arg(a, "stream_tag");
    if (tag && tag->kind != V_EXPR && tag->kind != V_STR)
        REPORT(l, tag->node, TNG102, "stream tag must be a string");
    /* TorchAir passes any priority through (scope/__init__.py:22-27);
     * reduce-overhead replaces it by 0 (replace_stream_event.py:307). */
    const Value *prio = ann_arg(a, "stream_priority");
    if (prio && prio->kind != V_EXPR && (prio->kind != V_INT || prio->i != 0))
        for (size_t c = 0; c < l->sf->compiles.n; c++)
            if (lint_compiles(l, c, a->func) && lint_reduce_overhead(l, &l->sf->compiles.v[c])) {
                REPORT(l, prio->node, TNG103, "stream priority has no effect: reduce-overhead mode (%s is compiled in that mode at line %u) fixes it to 0",
                       l->sf->funcs.v[a->func].qualname, l->ast->nodes[l->sf->anns.v[l->sf->compiles.v[c].ann].node].line);
                break;
            }
}

static void lint__wait_tensor(Lint *l, const Annotation *a)
{
    for (size_t c = 0; c < l->sf->compiles.n; c++)
        if (lint_compiles(l, c, a->func) && lint_reduce_overhead(l, &l->sf->compiles.v[c])) {
            REPORT(l, a->node, TNG104, "npu_wait_tensor is not supported in reduce-overhead mode (%s is compiled in that mode at line %u)",
                   l->sf->funcs.v[a->func].qualname, l->ast->nodes[l->sf->anns.v[l->sf->compiles.v[c].ann].node].line);
            return;
        }
}

/* ---- super kernels ---- */

typedef struct SkOptions {
    int valid;            /* parsed without error */
    int stream_fusion;    /* -1 unset */
    long aic, aiv;        /* 0 unset */
} SkOptions;

static int lint__is_uint(const char *s, size_t n, long *out)
{
    if (n == 0 || n > 9)
        return 0;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 1;
}

static int lint__is_op_list(const char *s, size_t n)
{
    size_t item = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == ',') {
            if (item == 0)
                return 0;
            item = 0;
        } else if ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' ||
                   (item > 0 && s[i] >= '0' && s[i] <= '9')) {
            item++;
        } else {
            return 0;
        }
    }
    return 1;
}


/* Checks one key=value item; returns 0 and reports when invalid. */
static int lint__sk_item(Lint *l, int32_t node, const char *k, size_t kn, const char *v, size_t vn, SkOptions *o)
{
#define KEY(s) (kn == sizeof s - 1 && !memcmp(k, s, kn))
#define VAL(s) (vn == sizeof s - 1 && !memcmp(v, s, vn))
    long x;
    if (KEY("stream-fusion") || KEY("feed-sync-all") || KEY("dcci-before-kernel-start") ||
        KEY("dcci-after-kernel-end")) {
        if (VAL("0") || VAL("1")) {
            if (KEY("stream-fusion"))
                o->stream_fusion = v[0] - '0';
            return 1;
        }
        REPORT(l, node, TNG112, "super_kernel option '%.*s' takes 0 or 1, not '%.*s'", (int)kn, k, (int)vn, v);
    } else if (KEY("strict-scope-check")) {
        if (VAL("bypass") || VAL("abort"))
            return 1;
        REPORT(l, node, TNG112, "super_kernel option 'strict-scope-check' takes bypass or abort, not '%.*s'", (int)vn, v);
    } else if (KEY("dcci-disable-on-kernel")) {
        if (lint__is_op_list(v, vn))
            return 1;
        REPORT(l, node, TNG112, "super_kernel option 'dcci-disable-on-kernel' takes comma-separated op types, not '%.*s'", (int)vn, v);
    } else if (KEY("debug-aic-num") || KEY("debug-aiv-num")) {
        if (lint__is_uint(v, vn, &x) && x > 0) {
            *(KEY("debug-aic-num") ? &o->aic : &o->aiv) = x;
            return 1;
        }
        REPORT(l, node, TNG112, "super_kernel option '%.*s' takes a positive integer, not '%.*s'", (int)kn, k, (int)vn, v);
    } else {
        REPORT(l, node, TNG111, "unknown super_kernel option '%.*s' (known: stream-fusion, feed-sync-all, strict-scope-check, dcci-before-kernel-start, dcci-after-kernel-end, dcci-disable-on-kernel, debug-aic-num, debug-aiv-num)", (int)kn, k);
    }
    return 0;
#undef KEY
#undef VAL
}

/* The items of a super_kernel options string, split at ':'; empty items
 * count ("a::b" has three, "" has one). */
typedef struct Items {
    const char *p, *end;
    int done;
} Items;

static int lint__next_item(Items *it, const char **item, size_t *len)
{
    if (it->done)
        return 0;
    const char *stop = memchr(it->p, ':', (size_t)(it->end - it->p));
    if (!stop) {
        stop = it->end;
        it->done = 1;
    }
    *item = it->p;
    *len = (size_t)(stop - it->p);
    it->p = stop + 1;
    return 1;
}

/* The first malformation of an options string, or NULL: items are
 * key=value (neither empty, no second '=') joined by ':', keys unique. */
static const char *lint__sk_malformed(const char *s, size_t n, Arena *arena)
{
    Items it = {s, s + n, 0};
    const char *item;
    size_t len;
    while (lint__next_item(&it, &item, &len)) {
        const char *eq = memchr(item, '=', len), *stop = item + len;
        if (len == 0)
            return "an empty item (items are key=value joined by ':')";
        if (!eq || eq == item || eq + 1 == stop || memchr(eq + 1, '=', (size_t)(stop - eq - 1)))
            return arena_printf(arena, "'%.*s' is not key=value", (int)len, item);
        /* the items before this one, up to its ':': a key given twice */
        Items before = {s, item > s ? item - 1 : s, item == s};
        const char *prev;
        size_t plen;
        while (lint__next_item(&before, &prev, &plen)) {
            const char *peq = memchr(prev, '=', plen);
            if (peq - prev == eq - item && !memcmp(prev, item, (size_t)(eq - item)))
                return arena_printf(arena, "option '%.*s' is given twice", (int)(eq - item), item);
        }
    }
    return NULL;
}

/* options: "key=value:key=value". A malformed string is reported once and
 * not checked further. */
static SkOptions lint__sk_options(Lint *l, const Annotation *a)
{
    SkOptions o = {1, -1, 0, 0};
    const Value *opts = ann_arg(a, "options");
    if (!opts || opts->kind == V_NONE)
        return o;
    if (opts->kind == V_EXPR) {
        o.valid = 0;
        return o;
    }
    if (opts->kind != V_STR) {
        REPORT(l, opts->node, TNG110, "super_kernel options must be a string of key=value items joined by ':'");
        o.valid = 0;
        return o;
    }
    if (opts->len == 0)
        return o;
    const char *bad = lint__sk_malformed(opts->s, opts->len, &l->sf->arena);
    if (bad) {
        REPORT(l, opts->node, TNG110, "malformed super_kernel options: %s", bad);
        o.valid = 0;
        return o;
    }
    Items it = {opts->s, opts->s + opts->len, 0};
    const char *item;
    size_t len;
    while (lint__next_item(&it, &item, &len)) {   /* well formed: every item has one '=' */
        const char *eq = memchr(item, '=', len);
        if (!lint__sk_item(l, opts->node, item, (size_t)(eq - item), eq + 1, len - (size_t)(eq - item) - 1, &o))
            o.valid = 0;
    }
    if (o.valid && o.aic && o.aiv && o.aiv != o.aic && o.aiv != 2 * o.aic)
        REPORT(l, opts->node, TNG113, "debug-aic-num:debug-aiv-num is %ld:%ld; supported ratios are 1:0, 0:1, 1:1 and 1:2",
               o.aic, o.aiv);
    return o;
}

static void lint__super_kernel(Lint *l, const Annotation *a)
{
    lint__sk_options(l, a);
    int has_sk;
    const Value *scope = ann_arg(a, "scope");
    int clears = scope && (scope->kind == V_NONE || (scope->kind == V_STR && scope->len == 0));
    if (l->opt->soc && lint_soc_known(l->opt->soc, &has_sk) && !has_sk && a->is_scope && !clears)
        REPORT(l, a->node, TNG117, "super kernels exist only on Atlas A3; --soc %s has none", l->opt->soc);
    int dyn = 0, ro = 0;
    for (size_t c = 0; c < l->sf->compiles.n; c++) {
        const Compile *cp = &l->sf->compiles.v[c];
        if (!lint_compiles(l, c, a->func) || cp->torchair != 1)
            continue;
        unsigned line = l->ast->nodes[l->sf->anns.v[cp->ann].node].line;
        if (!dyn && lint__dynamic_true(cp)) {
            REPORT(l, a->node, TNG114, "super_kernel needs a static graph, but %s is compiled with dynamic=True at line %u",
                   l->sf->funcs.v[a->func].qualname, line);
            dyn = 1;
        }
        if (!ro && lint_reduce_overhead(l, cp)) {
            REPORT(l, a->node, TNG115, "super_kernel has no effect in reduce-overhead mode (%s is compiled in that mode at line %u)",
                   l->sf->funcs.v[a->func].qualname, line);
            ro = 1;
        }
    }
}

/* True when the options string has the item key=value exactly. */
static int lint__has_option(const Value *opts, const char *item)
{
    if (!opts || opts->kind != V_STR)
        return 0;
    Items it = {opts->s, opts->s + opts->len, 0};
    const char *p;
    size_t len, n = strlen(item);
    while (lint__next_item(&it, &p, &len))
        if (len == n && !memcmp(p, item, n))
            return 1;
    return 0;
}

/* The text that identifies a scope name or stream tag ("" for none). */
static const char *lint__name_of(const Value *v, Arena *arena)
{
    if (!v || v->kind == V_NONE)
        return "";
    if (v->kind == V_STR)
        return arena_printf(arena, "s:%.*s", (int)v->len, v->s);
    if (v->kind == V_EXPR)
        return arena_printf(arena, "e:%s", v->s);
    StrBuf sb = {0};
    value_json(v, &sb);
    const char *r = arena_printf(arena, "v:%s", sb.s);
    sb_free(&sb);
    return r;
}

/* More than two streams in a super kernel with stream-fusion=0. The same
 * scope name is the same super kernel, across its with-blocks. */
static void lint__sk_streams(Lint *l)
{
    ScanFile *sf = l->sf;
    Arena *arena = &sf->arena;
    StrMap groups = {0};   /* scope name -> Group */
    /* the first two streams of a super kernel; fusion_off: stream-fusion=1 lifts the limit */
    typedef struct Group { const char *streams[2]; int n; int fusion_off; } Group;
    /* annotations in source order */
    int *order = xmalloc((sf->anns.n + 1) * sizeof *order);
    size_t n = 0;
    for (size_t i = 0; i < sf->anns.n; i++)
        if (sf->anns.v[i].resolved && sf->anns.v[i].is_scope &&
            (sf->anns.v[i].kind == ANN_super_kernel || sf->anns.v[i].kind == ANN_npu_stream_switch))
            order[n++] = (int)i;
    for (size_t i = 1; i < n; i++)   /* insertion sort by position: few scopes */
        for (size_t j = i; j > 0 && l->ast->nodes[sf->anns.v[order[j]].node].start <
                                        l->ast->nodes[sf->anns.v[order[j - 1]].node].start; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (size_t k = 0; k < n; k++) {
        const Annotation *a = &sf->anns.v[order[k]];
        /* the innermost super kernel enclosing a, and the stream a runs on */
        int sk = -1;
        const char *stream = "";
        if (a->kind == ANN_super_kernel) {
            sk = order[k];
            for (size_t s = 0; s < a->nscopes; s++)
                if (sf->anns.v[a->scopes[s]].kind == ANN_npu_stream_switch)
                    stream = lint__name_of(ann_arg(&sf->anns.v[a->scopes[s]], "stream_tag"), arena);
        } else {
            for (size_t s = a->nscopes; s-- > 0;)
                if (sf->anns.v[a->scopes[s]].kind == ANN_super_kernel) {
                    sk = a->scopes[s];
                    break;
                }
            stream = lint__name_of(ann_arg(a, "stream_tag"), arena);
        }
        if (sk < 0)
            continue;
        const Value *scope = ann_arg(&sf->anns.v[sk], "scope");
        const char *name = lint__name_of(scope, arena);
        if (!*name)
            continue;   /* super_kernel(None) clears the scope */
        Group *g = strmap_get(&groups, name);
        if (!g) {
            g = arena_alloc(arena, sizeof *g);
            strmap_put(&groups, name, g);
        }
        if (a->kind == ANN_super_kernel) {
            if (lint__has_option(ann_arg(a, "options"), "stream-fusion=1"))
                g->fusion_off = 1;
        }
        int known = 0;
        for (int i = 0; i < g->n; i++)
            known |= !strcmp(g->streams[i], stream);
        if (known)
            continue;
        if (g->n < 2) {
            g->streams[g->n++] = stream;
        } else if (!g->fusion_off) {
            REPORT(l, a->node, TNG116, "a third stream inside super kernel %s: with stream-fusion=0 (the default) a super kernel spans at most two streams",
                   scope && scope->kind == V_STR ? arena_printf(arena, "'%.*s'", (int)scope->len, scope->s) : "scope");
        }
    }
    free(order);
    strmap_free(&groups);
}

/* ---- gears ---- */

typedef struct GearDims {
    int valid;                /* no TNG121-126 error: counts for TNG127-129 */
    int ndims;
    int64_t dim[8];
    const Value *values[8];   /* the list or tuple of each dim */
} GearDims;

/* Checks one set_dim_gears call on its own; fills dims when it is valid. */
static int lint__gear_call(Lint *l, const Annotation *a, int rank, GearDims *dims)
{
    const Value *d = ann_arg(a, "dim_gears");
    dims->ndims = 0;
    if (!d || d->kind == V_EXPR)
        return 0;
    if (d->kind != V_DICT) {
        REPORT(l, d->node, TNG123, "dim_gears must be a dict {dim: [values]}");
        return 0;
    }
    int ok = 1;
    for (size_t i = 0; i + 1 < d->nitems; i += 2) {
        const Value *k = d->items[i], *v = d->items[i + 1];
        if (k->kind == V_EXPR || v->kind == V_EXPR) {
            ok = 0;
            continue;
        }
        if (k->kind != V_INT) {
            REPORT(l, k->node, TNG121, "gear dim must be an int");
            ok = 0;
        } else if (k->i < 0 || (rank >= 0 && k->i >= rank)) {
            if (rank >= 0)
                REPORT(l, k->node, TNG122, "gear dim %lld is out of range for a tensor of rank %d (valid: 0 to %d)",
                       (long long)k->i, rank, rank - 1);
            else
                REPORT(l, k->node, TNG122, "gear dim %lld is negative; dims are 0 to rank-1", (long long)k->i);
            ok = 0;
        }
        if (v->kind != V_LIST && v->kind != V_TUPLE) {
            REPORT(l, v->node, TNG123, "gear values must be a list or tuple of ints");
            ok = 0;
            continue;
        }
        if (v->nitems < 2 || v->nitems > 100) {
            REPORT(l, v->node, TNG126, "a dim takes 2 to 100 gear values, not %zu", v->nitems);
            ok = 0;
        }
        for (size_t j = 0; j < v->nitems; j++) {
            const Value *e = v->items[j];
            if (e->kind == V_EXPR) {
                ok = 0;
            } else if (e->kind != V_INT) {
                REPORT(l, e->node, TNG124, "gear value must be an int");
                ok = 0;
            } else if (e->i <= 0) {   /* _gear_utils.py asserts every value > 0 */
                if (e->i == 0)
                    REPORT(l, e->node, TNG125, "gear value must not be 0");
                else
                    REPORT(l, e->node, TNG125, "gear value must be positive, not %lld", (long long)e->i);
                ok = 0;
            } else if (e->i == 1) {   /* accepted by _gear_utils.py:13-36; the docs forbid it */
                REPORT_AS(SEV_WARNING, l, e->node, TNG125, "gear value 1: TorchAir accepts it, but its documentation allows only values above 1");
            }
        }
        if (ok && dims->ndims < 8) {
            dims->dim[dims->ndims] = k->i;
            dims->values[dims->ndims++] = v;
        }
    }
    return ok;
}

static size_t lint__distinct(const Value *list)
{
    size_t n = 0;
    for (size_t i = 0; i < list->nitems; i++) {
        int dup = 0;
        for (size_t j = 0; j < i && !dup; j++)
            dup = list->items[j]->i == list->items[i]->i;
        n += !dup;
    }
    return n;
}

/* Gear rules that need the compile: fullgraph, dynamic, mode, policy and
 * the combined count over all geared inputs of compile c. */
static void lint__compile_gears(Lint *l, size_t c, const int *tensors, size_t nt, const GearDims *dims_of_ann)
{
    ScanFile *sf = l->sf;
    const Compile *cp = &sf->compiles.v[c];
    if (cp->torchair != 1)
        return;
    const char *mode = lint_compile_mode(l, cp);
    const char *policy = lint_config_str(l, cp->config, "inference_config.dynamic_gears_merge_policy", "zip");
    /* the compile's set_dim_gears calls, in source order */
    int *order = xmalloc((sf->gears.n + 1) * sizeof *order);
    size_t n = 0;
    for (size_t g = 0; g < sf->gears.n; g++) {
        int t = sf->gears.v[g].tensor, bound = 0;
        for (size_t i = 0; i < nt && !bound; i++)
            bound = tensors[i] == t;
        if (bound && t >= 0)
            order[n++] = (int)g;
    }
    for (size_t i = 1; i < n; i++)   /* insertion sort by position: few calls */
        for (size_t j = i; j > 0 && l->ast->nodes[sf->anns.v[sf->gears.v[order[j]].ann].node].start <
                                        l->ast->nodes[sf->anns.v[sf->gears.v[order[j - 1]].ann].node].start; j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    int last = -1, first = -1, differs = -1;   /* calls: the last; the first geared; the first whose length differs */
    size_t zip_len = 0, diff_len = 0, product = 1;
    int any = 0;
    for (size_t k = 0; k < n; k++) {
        int g = order[k];
        const Annotation *a = &sf->anns.v[sf->gears.v[g].ann];
        if (!cp->is_cache && cp->fullgraph != TRI_TRUE && cp->fullgraph != TRI_UNKNOWN)
            REPORT(l, a->node, TNG131, "dim gears without fullgraph=True on the compile at line %u: a graph break would split the geared inputs",
                   l->ast->nodes[sf->anns.v[cp->ann].node].line);
        if (cp->dynamic == TRI_FALSE)
            REPORT(l, a->node, TNG132, "dim gears need a dynamic compile, but line %u compiles with dynamic=False",
                   l->ast->nodes[sf->anns.v[cp->ann].node].line);
        if (mode && !strcmp(mode, "reduce-overhead"))
            REPORT(l, a->node, TNG133, "dim gears are not supported in reduce-overhead mode");
        const GearDims *d = &dims_of_ann[g];
        for (int i = 0; d->valid && i < d->ndims; i++) {
            size_t len = d->values[i]->nitems;
            if (!any) {
                zip_len = len;
                first = g;
            } else if (differs < 0 && len != zip_len) {
                differs = g;
                diff_len = len;
            }
            size_t distinct = lint__distinct(d->values[i]);
            product = product > 1000 ? product : product * distinct;
            any = 1;
        }
        last = g;
    }
    free(order);
    if (!any || !policy || last < 0)
        return;
    int32_t at = sf->anns.v[sf->gears.v[last].ann].node;
    if (!strcmp(policy, "zip") && differs >= 0) {
        int32_t first_node = sf->anns.v[sf->gears.v[first].ann].node;
        if (differs == first)
            REPORT(l, sf->anns.v[sf->gears.v[differs].ann].node, TNG128,
                   "the zip gear policy needs gear lists of equal length: this call has lists of %zu and %zu values",
                   zip_len, diff_len);
        else
            REPORT(l, sf->anns.v[sf->gears.v[differs].ann].node, TNG128,
                   "the zip gear policy needs gear lists of equal length: %zu values here, %zu in the first at line %u",
                   diff_len, zip_len, l->ast->nodes[first_node].line);
    } else if (!strcmp(policy, "product") && product > 100)
        REPORT(l, at, TNG129, "the product of the gear lists gives %s%zu gears; at most 100 are allowed",
               product > 1000 ? "more than " : "", product > 1000 ? (size_t)1000 : product);
    else if (!strcmp(policy, "zip") && zip_len > 100)
        REPORT(l, at, TNG129, "%zu gears; at most 100 are allowed", zip_len);
}

static void lint__gears(Lint *l)
{
    ScanFile *sf = l->sf;
    GearDims *dims = xcalloc(sf->gears.n + 1, sizeof *dims);
    for (size_t g = 0; g < sf->gears.n; g++) {
        const TensorAnn *ga = &sf->gears.v[g];
        const Annotation *a = &sf->anns.v[ga->ann];
        int rank = ga->tensor >= 0 ? sf->tensors.v[ga->tensor].rank : -1;
        dims[g].valid = lint__gear_call(l, a, rank, &dims[g]);
        if (ga->tensor < 0)
            continue;
        for (size_t h = 0; h < g; h++)
            if (sf->gears.v[h].tensor == ga->tensor && dims[h].valid && dims[g].valid) {
                const Value *x = ann_arg(&sf->anns.v[sf->gears.v[h].ann], "dim_gears"), *y = ann_arg(a, "dim_gears");
                if (x && y && x->kind != V_EXPR && y->kind != V_EXPR && !value_equal(x, y))
                    REPORT(l, a->node, TNG127, "this tensor already has different gears (set at line %u)",
                           l->ast->nodes[sf->anns.v[sf->gears.v[h].ann].node].line);
                break;
            }
        for (size_t m = 0; m < sf->marks.n; m++)
            if (sf->marks.v[m].tensor == ga->tensor) {
                REPORT(l, a->node, TNG134, "gears on a tensor that is marked static at line %u",
                       l->ast->nodes[sf->anns.v[sf->marks.v[m].ann].node].line);
                break;
            }
    }
    /* per compile: the tensors bound to it by calls */
    for (size_t c = 0; c < sf->compiles.n; c++) {
        VEC(int) tensors = {0};
        for (size_t b = 0; b < sf->bindings.n; b++) {
            const Binding *bd = &sf->bindings.v[b];
            int match = bd->compile == (int)c;
            if (bd->compile < 0 && sf->compiles.v[c].func >= 0) {
                const Function *f = &sf->funcs.v[sf->compiles.v[c].func];
                match = f->cls == bd->cls && !strcmp(f->name, bd->method);
            }
            if (match)
                for (size_t i = 0; i < bd->ntensors; i++)
                    VEC_PUSH(tensors, bd->tensors[i]);
        }
        if (tensors.n) {
            lint__compile_gears(l, c, tensors.v, tensors.n, dims);
            const Compile *cp = &sf->compiles.v[c];
            for (size_t m = 0; m < sf->marks.n; m++)
                for (size_t i = 0; i < tensors.n; i++)
                    if (tensors.v[i] == sf->marks.v[m].tensor && cp->dynamic == TRI_FALSE && cp->torchair == 1) {
                        REPORT(l, sf->anns.v[sf->marks.v[m].ann].node, TNG140,
                               "mark_static has no effect: this tensor goes to a dynamic=False compile (line %u)",
                               l->ast->nodes[sf->anns.v[cp->ann].node].line);
                        break;
                    }
        }
        VEC_FREE(tensors);
    }
    free(dims);
}

/* ---- driver ---- */

static int lint__suppressed(const ScanFile *sf, const Diag *d)
{
    for (size_t i = 0; i < sf->suppressions.n; i++)
        if (sf->suppressions.v[i].line == d->line && sf->suppressions.v[i].rule == d->rule)
            return 1;
    return 0;
}

void lint_file(ScanFile *sf, const LintOptions *opt)
{
    Lint l = {sf, &sf->ast, opt, NULL, 0};
    lint__compiled_functions(&l);
    int single_stream = 0;
    for (size_t c = 0; c < sf->configs.n; c++) {
        const ConfigField *f = lint_field(&l, (int)c, "ge_config.enable_single_stream");
        single_stream |= f && f->value && f->value->kind == V_BOOL && f->value->i;
        lint_config(&l, (int)c);
    }
    for (size_t i = 0; i < sf->anns.n; i++) {
        const Annotation *a = &sf->anns.v[i];
        if (!a->resolved)
            continue;
        if (a->kind == ANN_npu_stream_switch)
            lint__stream_switch(&l, a, single_stream);
        else if (a->kind == ANN_npu_wait_tensor)
            lint__wait_tensor(&l, a);
        else if (a->kind == ANN_super_kernel)
            lint__super_kernel(&l, a);
    }
    lint__sk_streams(&l);
    lint__gears(&l);
    for (size_t c = 0; c < sf->compiles.n; c++)
        if (sf->compiles.v[c].is_cache)
            lint_cache_compile(&l, &sf->compiles.v[c]);
    size_t kept = 0;
    for (size_t i = 0; i < sf->diags.n; i++) {
        if (lint__suppressed(sf, &sf->diags.v[i]))
            free(sf->diags.v[i].msg);
        else
            sf->diags.v[kept++] = sf->diags.v[i];
    }
    sf->diags.n = kept;
    diag_sort(&sf->diags);
    diag_dedup(&sf->diags);   /* a gear list constant shared by two set_dim_gears calls: once */
    free(l.compiles_func);
}
