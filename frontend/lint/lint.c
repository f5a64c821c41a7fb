/*
 * lint.c - the rules of `tngc lint`. They read the facts the scanner
 * recorded: annotations with their arguments and scopes, config objects
 * and their fields, compile calls, example tensors and the calls that bind
 * them to compiled functions. A rule that needs to know how a function is
 * compiled stays silent when that is not known statically.
 */
#include "lint.h"
#include "lint_facts.h"
#include "torchair_schema.h"
#include "../diag/diag.h"
#include "../diag/gear_rules.h"

#include <stdlib.h>
#include <string.h>

/* ---- chips ---- */

static const struct { const char *name; int super_kernel; } socs[] = {
    {"Ascend910_9391", 1}, {"Ascend910_9392", 1}, {"Ascend910_9381", 1},
    {"Ascend910_9382", 1}, {"Ascend910_9372", 1}, {"Ascend910_9362", 1},
    /* Atlas A2 (2): super kernels from TorchAir fced8842's docs on; the
     * docs of older commits (--torchair 770a4d54) list Atlas A3 only */
    {"Ascend910B1", 2}, {"Ascend910B2", 2}, {"Ascend910B3", 2}, {"Ascend910B4", 2},
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

static int lint__dynamic_true(const Compile *c)
{
    return c->dynamic == TRI_TRUE || (c->is_cache && c->dynamic == TRI_DEFAULT);
}

/* "an int", "a float", ... for a literal. */
static const char *lint__kind_name(const Value *v)
{
    static const char *const names[] = {
        [V_NONE] = "None", [V_BOOL] = "a bool", [V_INT] = "an int", [V_FLOAT] = "a float",
        [V_STR] = "a str", [V_TUPLE] = "a tuple", [V_LIST] = "a list", [V_DICT] = "a dict",
    };
    return v->kind == V_EXPR ? "an expression" : names[v->kind];
}

/* ---- streams ---- */

static void lint__stream_switch(Lint *l, const Annotation *a, const ConfigField *single_stream)
{
    if (single_stream && !single_stream->module)
        REPORT(l, a->node, TNG101,
               "npu_stream_switch conflicts with ge_config.enable_single_stream = True set in this file");
    else if (single_stream)
        REPORT(l, a->node, TNG101,
               "npu_stream_switch conflicts with ge_config.enable_single_stream = True set at %s:%u, a config this file imports",
               single_stream->module->src.path, single_stream->module->ast.nodes[single_stream->node].line);
    const Value *tag = ann_arg(a, "stream_tag");
    if (tag && tag->kind != V_EXPR && tag->kind != V_STR)
        /* scope/__init__.py:24 passes the tag as it is into the values of
         * scope_enter(str[] keys, str[] values) (scope/_scope.py:13,38) */
        REPORT(l, tag->node, TNG102, "stream tag is %s, not a str: npu_stream_switch passes it unconverted to the op scope_enter(str[] keys, str[] values), whose schema refuses it when the with-statement enters",
               lint__kind_name(tag));
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

/* ---- torch.npu.set_stream in aclgraph ---- */

/* The def or lambda whose body holds node n directly, or -1; *plain is
 * set to 0 when a condition, loop, try or with lies between them. */
static int32_t lint__owner_def(const Ast *ast, int32_t n, int *plain)
{
    *plain = 1;
    for (int32_t p = ast->nodes[n].parent; p >= 0; p = ast->nodes[p].parent) {
        NodeKind k = ast->nodes[p].kind;
        if (k == NK_function_definition || k == NK_lambda || k == NK_class_definition)
            return k == NK_function_definition ? p : -1;
        if (k == NK_if_statement || k == NK_for_statement || k == NK_while_statement || k == NK_try_statement ||
            k == NK_with_statement || k == NK_conditional_expression || k == NK_boolean_operator)
            *plain = 0;
    }
    return -1;
}

static int lint__text_is_one(const Ast *ast, int32_t n, const char *a, const char *b)
{
    return n >= 0 && (ast_text_is(ast, n, a) || ast_text_is(ast, n, b));
}

/* A function compiled in reduce-overhead or npugraph_ex mode that calls
 * torch.npu.set_stream and does not end on the stream it began with:
 * replace_stream_event.py:188-194 raises RuntimeError ("you must make sure
 * at the end of your code set stream to the same stream as the begin").
 * Read where every set_stream is a plain statement of the def: it ends
 * on its entry stream when the last one sets a name or attribute that the
 * file assigns from torch.npu.current_stream() somewhere. */
static void lint__set_stream(Lint *l, size_t fi)
{
    const Ast *ast = l->ast;
    const Function *f = &l->sf->funcs.v[fi];
    unsigned line = 0;
    for (size_t c = 0; c < l->sf->compiles.n && !line; c++) {
        const char *m = lint_compile_mode(l, &l->sf->compiles.v[c]);
        if (l->sf->compiles.v[c].torchair == 1 && lint_compiles(l, c, (int)fi) && m &&
            (!strcmp(m, "reduce-overhead") || !strcmp(m, "npugraph_ex")))
            line = ast->nodes[l->sf->anns.v[l->sf->compiles.v[c].ann].node].line;
    }
    if (!line)
        return;
    int32_t first = -1, last = -1;
    for (int32_t i = f->node + 1; i < (int32_t)ast->n && ast->nodes[i].start < ast->nodes[f->node].end; i++) {
        if (ast->nodes[i].kind != NK_call)
            continue;
        int32_t fn = ast_field(ast, i, F_function);
        if (!lint__text_is_one(ast, fn, "torch.npu.set_stream", "torch_npu.npu.set_stream"))
            continue;
        int plain;
        if (lint__owner_def(ast, i, &plain) != f->node)
            continue;
        if (!plain || ast->nodes[ast->nodes[i].parent].kind != NK_expression_statement)
            return;   /* conditional, or inside an expression: not judged */
        if (first < 0)
            first = i;
        last = i;
    }
    if (first < 0)
        return;
    int32_t args = ast_field(ast, last, F_arguments);
    int32_t arg = args >= 0 ? ast_named_child(ast, args, 0) : -1;
    if (arg < 0 || (ast->nodes[arg].kind != NK_identifier && ast->nodes[arg].kind != NK_attribute))
        return;
    /* the name or attribute is assigned torch.npu.current_stream() somewhere in the file */
    for (int32_t i = 0; i < (int32_t)ast->n; i++) {
        if (ast->nodes[i].kind != NK_assignment)
            continue;
        int32_t lhs = ast_field(ast, i, F_left), rhs = ast_field(ast, i, F_right);
        if (lhs < 0 || rhs < 0 || ast->nodes[rhs].kind != NK_call)
            continue;
        size_t ln, an;
        const char *lt = ast_text(ast, lhs, &ln), *at = ast_text(ast, arg, &an);
        if (ln == an && !memcmp(lt, at, ln) &&
            lint__text_is_one(ast, ast_field(ast, rhs, F_function), "torch.npu.current_stream", "torch_npu.npu.current_stream"))
            return;
    }
    REPORT(l, first, TNG108, "%s switches streams with torch.npu.set_stream and does not switch back to the stream it began on (the last set_stream, line %u, sets another): TorchAir raises RuntimeError when it compiles in reduce-overhead/npugraph_ex mode (line %u); save torch.npu.current_stream() first and set it back at the end, or use `with torch.npu.stream(...)`",
           f->qualname, ast->nodes[last].line, line);
}

/* ---- super kernels ---- */

/*
 * The options string of super_kernel(scope, options) is never read by
 * TorchAir (scope/__init__.py:30-37); in max-autotune mode GE hands it to
 * CANN's super-kernel option parser (asc_op_compile_base,
 * super_kernel_option_parse.py, parse_super_kernel_options), whose rules
 * these follow:
 *  - leading and trailing '"' are stripped; items are split at ':', each
 *    item stripped of white space, and empty items dropped;
 *  - an item without '=' is logged as a warning and skipped;
 *  - key and value are split at the first '=' and stripped; an empty key
 *    or value, a key given twice, and a key without a parser raise;
 *  - each key's parser checks its value (the table below).
 * In reduce-overhead and npugraph_ex mode the whole scope is ignored
 * (graph_pass.py:774), which TNG115 reports; the options are not checked.
 */

typedef enum SkCheck {
    SK_ENUM,      /* one of the listed words */
    SK_NONEMPTY,  /* any value (already non-empty) */
    SK_ALIGN,     /* digits: 0 or a power of two >= 2 */
    SK_SPLIT,     /* digits: 1 to 64 */
    SK_BLOCKS,    /* digits: any non-negative number */
} SkCheck;

static const struct SkKey {
    const char *key;
    SkCheck check;
    const char *values;   /* SK_ENUM: the accepted words, space-separated */
} sk_keys[] = {
    {"func-align", SK_ALIGN, NULL},
    {"preload-code", SK_ENUM, "max none per-func"},
    {"early-start", SK_ENUM, "0 1 2"},
    {"stream-fusion", SK_ENUM, "0 1"},
    {"debug-dcci-all", SK_ENUM, "0 1"},
    {"debug-sync-all", SK_ENUM, "0 1"},
    {"feed-sync-all", SK_ENUM, "0 1"},
    {"profiling", SK_ENUM, "0 1"},
    {"compile-options", SK_NONEMPTY, NULL},
    {"strict-scope-check", SK_NONEMPTY, NULL},
    {"dcci-before-kernel-start", SK_NONEMPTY, NULL},
    {"dcci-after-kernel-end", SK_NONEMPTY, NULL},
    {"dcci-disable-on-kernel", SK_NONEMPTY, NULL},
    {"split-mode", SK_SPLIT, NULL},
    {"debug-aic-num", SK_BLOCKS, NULL},
    {"debug-aiv-num", SK_BLOCKS, NULL},
};

typedef struct SkOptions {
    int valid;            /* CANN's parser accepts it */
    int stream_fusion;    /* -1 unset */
    long aic, aiv;        /* 0 unset */
} SkOptions;

/* A span of the options string. */
typedef struct Span {
    const char *p;
    size_t n;
} Span;

static int lint__space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static Span lint__strip(Span s)
{
    while (s.n && lint__space(s.p[0]))
        s.p++, s.n--;
    while (s.n && lint__space(s.p[s.n - 1]))
        s.n--;
    return s;
}

static int lint__span_is(Span s, const char *word, size_t wn)
{
    return s.n == wn && !memcmp(s.p, word, wn);
}

/* The non-empty stripped items of an options string, in order. */
typedef struct SkItems {
    const char *p, *end;
} SkItems;

static SkItems lint__sk_items(const char *s, size_t n)
{
    SkItems it = {s, s + n};
    while (it.p < it.end && *it.p == '"')
        it.p++;
    while (it.end > it.p && it.end[-1] == '"')
        it.end--;
    return it;
}

static int lint__sk_next(SkItems *it, Span *item)
{
    while (it->p < it->end) {
        const char *stop = memchr(it->p, ':', (size_t)(it->end - it->p));
        if (!stop)
            stop = it->end;
        *item = lint__strip((Span){it->p, (size_t)(stop - it->p)});
        it->p = stop < it->end ? stop + 1 : stop;
        if (item->n)
            return 1;
    }
    return 0;
}

/* Splits a stripped item at its first '=' into stripped key and value;
 * 0 when it has no '='. */
static int lint__sk_split(Span item, Span *key, Span *value)
{
    const char *eq = memchr(item.p, '=', item.n);
    if (!eq)
        return 0;
    *key = lint__strip((Span){item.p, (size_t)(eq - item.p)});
    *value = lint__strip((Span){eq + 1, item.n - (size_t)(eq - item.p) - 1});
    return 1;
}

/* Python's str.isdigit() over ASCII, and the number (saturated). */
static int lint__digits(Span v, long *out)
{
    long x = 0;
    for (size_t i = 0; i < v.n; i++) {
        if (v.p[i] < '0' || v.p[i] > '9')
            return 0;
        x = x > 100000000 ? x : x * 10 + (v.p[i] - '0');
    }
    *out = x;
    return v.n > 0;
}

/* True when value is one of the space-separated words. */
static int lint__in_words(Span v, const char *words)
{
    for (const char *w = words; *w;) {
        size_t wn = strcspn(w, " ");
        if (lint__span_is(v, w, wn))
            return 1;
        w += wn + (w[wn] == ' ');
    }
    return 0;
}

/* "a b c" as "a, b or c". */
static const char *lint__or_list(const char *words, Arena *arena)
{
    StrBuf sb = {0};
    size_t n = strlen(words);
    const char *last = strrchr(words, ' ');
    for (size_t i = 0; i < n; i++) {
        if (words + i == last)
            sb_puts(&sb, " or ");
        else if (words[i] == ' ')
            sb_puts(&sb, ", ");
        else
            sb_putc(&sb, words[i]);
    }
    const char *r = arena_strndup(arena, sb.s ? sb.s : "", sb.len);
    sb_free(&sb);
    return r;
}

/* Checks one key's value; returns 0 and reports when CANN rejects it. */
static int lint__sk_value(Lint *l, int32_t node, const struct SkKey *k, Span v, SkOptions *o)
{
    long x = 0;
    switch (k->check) {
    case SK_ENUM:
        if (lint__in_words(v, k->values)) {
            if (!strcmp(k->key, "stream-fusion"))
                o->stream_fusion = v.p[0] - '0';
            return 1;
        }
        REPORT(l, node, TNG112, "super_kernel option '%s' takes %s, not '%.*s'", k->key,
               lint__or_list(k->values, &l->sf->arena), (int)v.n, v.p);
        return 0;
    case SK_NONEMPTY:
        /* CANN takes any value; the documentation lists two */
        if (!strcmp(k->key, "strict-scope-check") && !lint__in_words(v, "bypass abort"))
            REPORT_AS(SEV_WARNING, l, node, TNG112,
                      "super_kernel option 'strict-scope-check' is documented as bypass or abort, not '%.*s'", (int)v.n, v.p);
        return 1;
    case SK_ALIGN:
        if (lint__digits(v, &x) && x != 1 && (x & (x - 1)) == 0)
            return 1;
        REPORT(l, node, TNG112, "super_kernel option 'func-align' takes 0 or a power of two from 2 up, not '%.*s'", (int)v.n, v.p);
        return 0;
    case SK_SPLIT:
        if (lint__digits(v, &x) && x >= 1 && x <= 64)
            return 1;
        REPORT(l, node, TNG112, "super_kernel option 'split-mode' takes a number from 1 to 64, not '%.*s'", (int)v.n, v.p);
        return 0;
    case SK_BLOCKS:
        if (lint__digits(v, &x)) {
            *(!strcmp(k->key, "debug-aic-num") ? &o->aic : &o->aiv) = x;
            return 1;
        }
        REPORT(l, node, TNG112, "super_kernel option '%s' takes a non-negative integer, not '%.*s'", k->key, (int)v.n, v.p);
        return 0;
    }
    return 0;
}

static const char *lint__sk_known(void)
{
    return "func-align, preload-code, early-start, stream-fusion, debug-dcci-all, debug-sync-all, feed-sync-all, "
           "profiling, compile-options, strict-scope-check, dcci-before-kernel-start, dcci-after-kernel-end, "
           "dcci-disable-on-kernel, split-mode, debug-aic-num, debug-aiv-num";
}

/* options: "key=value:key=value", checked as CANN's parser does. */
static SkOptions lint__sk_options_of(Lint *l, const Value *opts)
{
    SkOptions o = {1, -1, 0, 0};
    if (!opts || opts->kind == V_NONE)
        return o;
    if (opts->kind == V_EXPR) {
        o.valid = 0;
        return o;
    }
    if (opts->kind != V_STR) {   /* lint__super_kernel reports it */
        o.valid = 0;
        return o;
    }
    SkItems it = lint__sk_items(opts->s, opts->len);
    Span item, key, value;
    while (lint__sk_next(&it, &item)) {
        if (!lint__sk_split(item, &key, &value)) {
            REPORT_AS(SEV_WARNING, l, opts->node, TNG110,
                      "super_kernel option '%.*s' is not key=value: CANN warns and ignores it", (int)item.n, item.p);
            continue;
        }
        if (!key.n || !value.n) {
            REPORT(l, opts->node, TNG110, "super_kernel option '%.*s' has no %s", (int)item.n, item.p, key.n ? "value" : "key");
            o.valid = 0;
            continue;
        }
        /* a key given twice: compare with the well-formed items before */
        SkItems before = lint__sk_items(opts->s, (size_t)(item.p - opts->s));
        Span prev, pk, pv;
        int twice = 0;
        while (!twice && lint__sk_next(&before, &prev))
            twice = lint__sk_split(prev, &pk, &pv) && pv.n && pk.n == key.n && !memcmp(pk.p, key.p, key.n);
        if (twice) {
            REPORT(l, opts->node, TNG110, "super_kernel option '%.*s' is given twice", (int)key.n, key.p);
            o.valid = 0;
            continue;
        }
        const struct SkKey *k = NULL;
        for (size_t i = 0; i < sizeof sk_keys / sizeof *sk_keys && !k; i++)
            if (lint__span_is(key, sk_keys[i].key, strlen(sk_keys[i].key)))
                k = &sk_keys[i];
        if (!k) {
            REPORT(l, opts->node, TNG111, "unknown super_kernel option '%.*s' (known: %s)", (int)key.n, key.p, lint__sk_known());
            o.valid = 0;
        } else if (!lint__sk_value(l, opts->node, k, value, &o)) {
            o.valid = 0;
        }
    }
    /* super_kernel_op_infos.py, update_superkernel_blockdim_by_debug_options */
    if (o.valid && o.aic && o.aiv && o.aiv != o.aic && o.aiv != 2 * o.aic)
        REPORT(l, opts->node, TNG113, "debug-aic-num:debug-aiv-num is %ld:%ld; supported ratios are 1:0, 0:1, 1:1 and 1:2",
               o.aic, o.aiv);
    return o;
}

static SkOptions lint__sk_options(Lint *l, const Annotation *a)
{
    return lint__sk_options_of(l, ann_arg(a, "options"));
}

static int lint__sk_ignored(const Lint *l, const Annotation *a);

/* Appends to the diagnostics from index from on the way their value got
 * to super_kernel: through which function's parameter, called where. */
static void lint__sk_chain(Lint *l, size_t from, const Annotation *a, const ArgSource *src)
{
    DiagList *d = &l->sf->diags;
    const char *fname = a->func >= 0 ? l->sf->funcs.v[a->func].qualname : "?";
    for (size_t i = from; i < d->n; i++) {
        StrBuf msg = {0};
        sb_printf(&msg, "%s (through %s(), whose parameter %s is super_kernel's %s at line %u; called at line %u)",
                  d->v[i].msg, fname, src->param, src->arg, l->ast->nodes[a->node].line, l->ast->nodes[src->call].line);
        free(d->v[i].msg);
        d->v[i].msg = msg.s;
    }
}

/* super_kernel's scope and options given by the calls of the function
 * around it (scan.c's ArgSource): the same checks, at the caller's
 * argument (or the parameter's default). */
static void lint__sk_sources(Lint *l, const Annotation *a)
{
    for (size_t i = 0; i < a->nsources; i++) {
        const ArgSource *src = &a->sources[i];
        const Value *v = src->value;
        size_t from = l->sf->diags.n;
        if (v->kind == V_EXPR)
            continue;
        if (!strcmp(src->arg, "scope")) {
            if (v->kind != V_STR && v->kind != V_NONE)
                REPORT(l, v->node, TNG118, "super_kernel scope name is %s, not a str: TorchAir passes it unconverted to the op scope_enter(str[] keys, str[] values), whose schema refuses it when the with-statement enters",
                       lint__kind_name(v));
        } else if (v->kind != V_STR) {
            REPORT(l, v->node, TNG110, "super_kernel options must be a string of key=value items joined by ':', but this is %s: TorchAir passes it unconverted to the op scope_enter(str[] keys, str[] values), whose schema refuses it",
                   lint__kind_name(v));
        } else if (!lint__sk_ignored(l, a)) {
            lint__sk_options_of(l, v);
        }
        lint__sk_chain(l, from, a, src);
    }
}

/* True when every compile that runs the annotation's function is known
 * to be in reduce-overhead or npugraph_ex mode, where the scope is
 * ignored (and at least one compile runs it). */
static int lint__sk_ignored(const Lint *l, const Annotation *a)
{
    int any = 0;
    for (size_t c = 0; c < l->sf->compiles.n; c++) {
        if (!lint_compiles(l, c, a->func))
            continue;
        const char *m = lint_compile_mode(l, &l->sf->compiles.v[c]);
        if (!m || !strcmp(m, "max-autotune"))
            return 0;
        any = 1;
    }
    return any;
}

static void lint__super_kernel(Lint *l, const Annotation *a)
{
    /* scope/__init__.py:30-37 turns a None scope into '' and passes scope
     * and options unconverted into the values of scope_enter(str[] keys,
     * str[] values) (scope/_scope.py:13,38): in every mode */
    const Value *scope = ann_arg(a, "scope"), *opts = ann_arg(a, "options");
    if (scope && scope->kind != V_EXPR && scope->kind != V_STR && scope->kind != V_NONE)
        REPORT(l, scope->node, TNG118, "super_kernel scope name is %s, not a str: TorchAir passes it unconverted to the op scope_enter(str[] keys, str[] values), whose schema refuses it when the with-statement enters",
               lint__kind_name(scope));
    if (opts && opts->kind != V_EXPR && opts->kind != V_STR)
        REPORT(l, opts->node, TNG110, "super_kernel options must be a string of key=value items joined by ':', but this is %s: TorchAir passes it unconverted to the op scope_enter(str[] keys, str[] values), whose schema refuses it",
               lint__kind_name(opts));
    if (!lint__sk_ignored(l, a))
        lint__sk_options(l, a);
    lint__sk_sources(l, a);
    int has_sk;
    int clears = scope && (scope->kind == V_NONE || (scope->kind == V_STR && scope->len == 0));
    if (l->opt->soc && lint_soc_known(l->opt->soc, &has_sk) && a->is_scope && !clears) {
        if (!has_sk)
            REPORT(l, a->node, TNG117, "super kernels exist only on Atlas A3 and A2; --soc %s has none, and the scope has no effect there", l->opt->soc);
        else if (has_sk == 2 && l->opt->torchair > 0)
            REPORT(l, a->node, TNG117, "TorchAir %s documents super kernels on Atlas A3 only; --soc %s is an Atlas A2 chip (documented from fced8842 on)",
                   (size_t)l->opt->torchair < torchair_nversions ? torchair_versions[l->opt->torchair].name : "?", l->opt->soc);
    }
    int dyn = 0, ro = 0;
    for (size_t c = 0; c < l->sf->compiles.n; c++) {
        const Compile *cp = &l->sf->compiles.v[c];
        if (!lint_compiles(l, c, a->func) || cp->torchair != 1)
            continue;
        unsigned line = l->ast->nodes[l->sf->anns.v[cp->ann].node].line;
        /* graph_pass.py:774: reduce-overhead and npugraph_ex drop the scope */
        const char *mode = lint_compile_mode(l, cp);
        int ignored = mode && strcmp(mode, "max-autotune") != 0;
        if (!dyn && !ignored && lint__dynamic_true(cp)) {
            REPORT(l, a->node, TNG114, "super_kernel has no effect in a dynamic graph (TorchAir's documentation: static graphs only), and %s is compiled with dynamic=True at line %u",
                   l->sf->funcs.v[a->func].qualname, line);
            dyn = 1;
        }
        if (!ro && ignored) {
            REPORT(l, a->node, TNG115, "super_kernel has no effect in %s mode (%s is compiled in that mode at line %u)",
                   mode, l->sf->funcs.v[a->func].qualname, line);
            ro = 1;
        }
    }
}

/* True when the options string sets key to value, as CANN reads it. */
static int lint__has_option(const Value *opts, const char *key, const char *value)
{
    if (!opts || opts->kind != V_STR)
        return 0;
    SkItems it = lint__sk_items(opts->s, opts->len);
    Span item, k, v;
    while (lint__sk_next(&it, &item))
        if (lint__sk_split(item, &k, &v) && lint__span_is(k, key, strlen(key)))
            return lint__span_is(v, value, strlen(value));
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
            if (lint__has_option(ann_arg(a, "options"), "stream-fusion", "1"))
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

/* Reports a verdict of gear_rules.h at node. */
static void lint__gear_verdict(Lint *l, int32_t node, const GearVerdict *v)
{
    diag_node(&l->sf->diags, l->ast, node, v->rule, "%s", v->msg);
    l->sf->diags.v[l->sf->diags.n - 1].severity = v->severity;
}

/* Checks one set_dim_gears call on its own; fills dims when it is valid. */
static int lint__gear_call(Lint *l, const Annotation *a, int rank, GearDims *dims)
{
    const Value *d = ann_arg(a, "dim_gears");
    GearVerdict gv;
    dims->ndims = 0;
    if (!d || d->kind == V_EXPR)
        return 0;
    if (gear_rule_dict(d->kind == V_DICT, NULL, &gv)) {
        lint__gear_verdict(l, d->node, &gv);
        return 0;
    }
    int ok = 1;
    for (size_t i = 0; i + 1 < d->nitems; i += 2) {
        const Value *k = d->items[i], *v = d->items[i + 1];
        if (k->kind == V_EXPR || v->kind == V_EXPR) {
            ok = 0;
            continue;
        }
        if (gear_rule_dim_type(k->kind == V_INT, NULL, &gv) || gear_rule_dim(k->i, rank, &gv)) {
            lint__gear_verdict(l, k->node, &gv);
            ok = 0;
        }
        if (gear_rule_values_type(v->kind == V_LIST || v->kind == V_TUPLE, NULL, NULL, &gv)) {
            lint__gear_verdict(l, v->node, &gv);
            ok = 0;
            continue;
        }
        if (gear_rule_count(v->nitems, NULL, &gv)) {
            lint__gear_verdict(l, v->node, &gv);
            ok = 0;
        }
        for (size_t j = 0; j < v->nitems; j++) {
            const Value *e = v->items[j];
            if (e->kind == V_EXPR) {
                ok = 0;
            } else if (gear_rule_value(e->kind == V_INT || e->kind == V_BOOL,   /* bool is an int to isinstance */
                                       NULL, e->i, 0, NULL, &gv)) {
                lint__gear_verdict(l, e->node, &gv);
                ok &= gv.severity != SEV_ERROR;
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
            REPORT(l, a->node, TNG133, "dim gears have no effect in reduce-overhead mode: only the GE graph of max-autotune reads them (TorchAir warns that set_dim_gears may not take effect)");
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
            product = gear_count_mul(product, lint__distinct(d->values[i]));
            any = 1;
        }
        last = g;
    }
    free(order);
    if (!any || !policy || last < 0)
        return;
    int32_t at = sf->anns.v[sf->gears.v[last].ann].node;
    int is_product = 0;
    GearVerdict gv;
    if (gear_policy_parse(policy, strlen(policy), &is_product, &gv))
        return;   /* TNG130 at the option */
    if (!is_product && differs >= 0) {
        int32_t first_node = sf->anns.v[sf->gears.v[first].ann].node;
        const char *in_first = differs == first ? "in this call's first list"
                                                : arena_printf(&sf->arena, "in the first at line %u",
                                                               l->ast->nodes[first_node].line);
        if (gear_rule_zip(diff_len, "here", zip_len, in_first, &gv))
            lint__gear_verdict(l, sf->anns.v[sf->gears.v[differs].ann].node, &gv);
    } else if (gear_rule_total(is_product, is_product ? product : zip_len, &gv)) {
        lint__gear_verdict(l, at, &gv);
    }
}

/* The example inputs a call binds whose size on a geared dim is none of
 * the gears: guard_gears_shape (inference/_gear_utils.py:65-80), run on
 * the inputs of every compile (npu_fx_compiler.py:817), asserts through
 * _guard_dynamic_dim (:47-62) that each geared dim equals one of its
 * gears. Gears set before the call (in the file's text) count. */
static void lint__gear_sizes(Lint *l, const Binding *bd, const GearDims *dims)
{
    ScanFile *sf = l->sf;
    for (size_t i = 0; i < bd->ntensors; i++) {
        const Tensor *t = &sf->tensors.v[bd->tensors[i]];
        int reported = 0;
        for (size_t g = 0; g < sf->gears.n && t->size && !reported; g++) {
            const Annotation *a = &sf->anns.v[sf->gears.v[g].ann];
            if (sf->gears.v[g].tensor != bd->tensors[i] || !dims[g].valid ||
                l->ast->nodes[a->node].start >= l->ast->nodes[bd->node].start)
                continue;
            for (int k = 0; k < dims[g].ndims && !reported; k++) {
                int64_t d = dims[g].dim[k];
                if (d < 0 || (size_t)d >= t->size->nitems || t->size->items[d]->kind != V_INT)
                    continue;
                int64_t n = t->size->items[d]->i;
                const Value *gears = dims[g].values[k];
                int found = 0;
                for (size_t j = 0; j < gears->nitems && !found; j++)
                    found = gears->items[j]->kind == V_EXPR || gears->items[j]->i == n;
                if (found)
                    continue;
                size_t len;
                const char *txt = ast_text(l->ast, gears->node, &len);
                REPORT(l, bd->node, TNG135, "the example input made at line %u has size %lld on dim %lld, none of its gears %.*s (set at line %u): TorchAir's guard_gears_shape raises AssertionError when this call compiles",
                       l->ast->nodes[t->node].line, (long long)n, (long long)d, (int)(len > 60 ? 60 : len), txt,
                       l->ast->nodes[a->node].line);
                reported = 1;
            }
        }
    }
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
            if (!match)
                continue;
            for (size_t i = 0; i < bd->ntensors; i++)
                VEC_PUSH(tensors, bd->tensors[i]);
            if (sf->compiles.v[c].torchair == 1)
                lint__gear_sizes(l, bd, dims);
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
    if (d->rule == RULE_TNG003)
        return 0;   /* the file was not analysed: never hidden */
    for (size_t i = 0; i < sf->suppressions.n; i++)
        if (sf->suppressions.v[i].line == d->line && sf->suppressions.v[i].rule == d->rule)
            return 1;
    return 0;
}

void lint_file(ScanFile *sf, const LintOptions *opt)
{
    Lint l = {sf, &sf->ast, opt, NULL, 0};
    lint_compiled_functions(&l);
    const ConfigField *single_stream = NULL;   /* the first config's that sets it */
    for (size_t c = 0; c < sf->configs.n; c++) {
        const ConfigField *f = lint_field(&l, (int)c, "ge_config.enable_single_stream");
        if (!single_stream && f && f->value && f->value->kind == V_BOOL && f->value->i)
            single_stream = f;
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
    for (size_t f = 0; f < sf->funcs.n; f++)
        lint__set_stream(&l, f);
    for (size_t c = 0; c < sf->compiles.n; c++) {
        if (sf->compiles.v[c].is_cache)
            lint_cache_compile(&l, &sf->compiles.v[c]);
        lint_compile_options(&l, &sf->compiles.v[c]);
    }
    lint_config_pairs(&l);
    lint_api(&l);
    lint_dist(&l);
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
