/*
 * lint_config.c - the CompilerConfig rules of `tngc lint`: every field a
 * script sets must exist in TorchAir's config classes and hold a value
 * their setters accept.
 *
 * What TorchAir has is data, not code: data/torchair/ holds the schema of
 * each TorchAir commit tngc knows, and the build turns it into the table
 * torchair_fields[] (scripts/config_schema.sh). An assignment
 * `config.a.b.c = v` walks the table of the commit being linted
 * (--torchair) one name at a time:
 *
 *   - a name the section does not have: TNG164, an error where the
 *     section's __setattr__ raises ValueError (NpuBaseConfig,
 *     _option_base.py:221-226), a warning where it stores any name and
 *     never reads it (export, aclgraph_config, npugraphex_config);
 *   - a section assigned whole: fine, except aclgraph_config and
 *     npugraphex_config, which are not CompilerConfig options (ValueError);
 *   - an option (`x = v`, or `x.value = v`, the same setter,
 *     _option_base.py:42-48): a literal the setter refuses is TNG166, as
 *     strictly as Python decides it (`1 in [True, False]` is true). mode,
 *     debug.graph_dump.type and dynamic_gears_merge_policy keep their own
 *     rules (TNG165, TNG162, TNG130); values computed at run time are not
 *     judged.
 */
#include "lint.h"
#include "lint_facts.h"
#include "torchair_schema.h"
#include "../diag/gear_rules.h"

#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- TorchAir versions ---- */

int lint_torchair_version(const char *name)
{
    if (!strcmp(name, "newest"))
        return 0;
    size_t n = strlen(name);
    int found = -1;
    for (size_t v = 0; v < torchair_nversions; v++) {
        const TorchairVersion *tv = &torchair_versions[v];
        if (!strcmp(name, tv->name) || (n >= 7 && n <= 40 && !strncmp(name, tv->commit, n))) {
            if (found >= 0)
                return -1;   /* a prefix of two commits */
            found = (int)v;
        }
    }
    return found;
}

const char *lint_torchair_versions(void)
{
    static char buf[512];
    size_t at = 0;
    for (size_t v = 0; v < torchair_nversions && at < sizeof buf; v++)
        at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s (%s%s)", v ? ", " : "", torchair_versions[v].name,
                               torchair_versions[v].date, v ? "" : ", the default");
    return buf;
}

/* ---- the schema ---- */

/* The row of the first len bytes of path in a version of mask, or NULL. */
static const TorchairField *config__row(const char *path, size_t len, unsigned mask)
{
    for (size_t i = 0; i < torchair_nfields; i++) {
        const TorchairField *f = &torchair_fields[i];
        if ((f->versions & mask) && !strncmp(f->path, path, len) && f->path[len] == 0)
            return f;
    }
    return NULL;
}

/* An OptionValue or a subclass: an object with a validating .value setter. */
static int config__is_option(const TorchairField *f)
{
    return f->kind != TK_SECTION && f->kind != TK_PLAIN && f->kind != TK_PROPERTY && f->kind != TK_NPUGRAPHEX;
}

/* The field of the version mask closest to path or, failing that, to its
 * first len bytes (at most 2 edits), or NULL. */
static const char *config__suggest(Arena *arena, const char *path, size_t len, unsigned mask)
{
    char *head = arena_printf(arena, "%.*s", (int)len, path);
    const char *best = NULL;
    size_t best_score = 6;   /* 2 * edits, + 1 when only the head is close */
    for (size_t i = 1; i < torchair_nfields; i++) {
        const TorchairField *f = &torchair_fields[i];
        if (!(f->versions & mask))
            continue;
        size_t full = 2 * str_distance(path, f->path), part = 2 * str_distance(head, f->path) + 1;
        size_t score = full < part ? full : part;
        if (score < best_score)
            best = f->path, best_score = score;
    }
    return best;
}

/* ---- literals as Python sees them ---- */

/* Python's `t == v` for a schema literal and a script literal. */
static int config__lit_equal(const TorchairLit *t, const Value *v)
{
    switch (t->kind) {
    case TL_NONE:
        return v->kind == V_NONE;
    case TL_STR:
        return v->kind == V_STR && v->len == strlen(t->s) && !memcmp(v->s, t->s, v->len);
    case TL_BOOL:
    case TL_INT:   /* True == 1 == 1.0 */
        return ((v->kind == V_BOOL || v->kind == V_INT) && v->i == t->i) ||
               (v->kind == V_FLOAT && v->f == (double)t->i);
    }
    return 0;
}

static const char *config__lit_text(Arena *arena, const TorchairLit *t)
{
    switch (t->kind) {
    case TL_NONE: return "None";
    case TL_BOOL: return t->i ? "True" : "False";
    case TL_INT: return arena_printf(arena, "%lld", t->i);
    case TL_STR: return arena_printf(arena, "'%s'", t->s);
    }
    return "?";
}

/* A script literal as a message shows it. */
static const char *config__value_text(Arena *arena, const Value *v)
{
    switch (v->kind) {
    case V_NONE: return "None";
    case V_BOOL: return v->i ? "True" : "False";
    case V_INT: return arena_printf(arena, "%lld", (long long)v->i);
    case V_FLOAT: return arena_printf(arena, "%g", v->f);
    case V_STR: return v->len > 40 ? arena_printf(arena, "'%.37s...'", v->s) : arena_printf(arena, "'%.*s'", (int)v->len, v->s);
    case V_TUPLE: return "a tuple";
    case V_LIST: return "a list";
    case V_DICT: return "a dict";
    case V_EXPR: break;
    }
    return "this value";
}

static int config__is_int(const Value *v)
{
    return v->kind == V_INT || v->kind == V_BOOL;   /* isinstance(True, int) */
}

/* re.match(regex, s) for a str without NUL or non-ASCII bytes (where
 * Python's \d and POSIX's [0-9] could differ): 1 match, 0 no match, -1
 * not decided. */
static int config__regex_match(const TorchairField *f, const Value *v)
{
    for (size_t i = 0; i < v->len; i++)
        if (v->s[i] == 0 || (unsigned char)v->s[i] >= 0x80)
            return -1;
    regex_t re;
    if (regcomp(&re, f->regex, REG_EXTENDED | REG_NOSUB) != 0)
        return -1;
    int ok = regexec(&re, v->s, 0, NULL, 0) == 0;
    if (!ok && v->len && v->s[v->len - 1] == '\n') {   /* Python's $ also matches before a final newline */
        char *s = strndup(v->s, v->len - 1);
        ok = s && regexec(&re, s, 0, NULL, 0) == 0;
        free(s);
    }
    regfree(&re);
    return ok;
}

/* Why the setter of option f refuses the literal v, or NULL when it takes
 * it (or it depends on the file system). */
static const char *config__refusal(Arena *arena, const TorchairField *f, const char *shown, const Value *v)
{
    const char *val = config__value_text(arena, v);
    switch (f->kind) {
    case TK_OPTION: {
        if (!f->has_allowed)
            return NULL;
        StrBuf list = {0};
        for (size_t i = 0; i < f->nallowed; i++) {
            if (config__lit_equal(&f->allowed[i], v)) {
                sb_free(&list);
                return NULL;
            }
            sb_printf(&list, "%s%s", i ? ", " : "", config__lit_text(arena, &f->allowed[i]));
        }
        const char *msg = arena_printf(arena, "%s accepts only %s: TorchAir raises ValueError for %s", shown,
                                       list.s ? list.s : "nothing", val);
        sb_free(&list);
        return msg;
    }
    case TK_INT_RANGE:
        if (!config__is_int(v))
            return arena_printf(arena, "%s takes an int: TorchAir raises ValueError for %s", shown, val);
        if (v->i < f->min || v->i > f->max)
            return arena_printf(arena, "%s takes an int in [%lld, %lld]: TorchAir raises ValueError for %s", shown,
                                f->min, f->max, val);
        return NULL;
    case TK_INT_LIST:
        if (v->kind == V_NONE)
            return NULL;
        if (v->kind == V_LIST || v->kind == V_TUPLE) {
            for (size_t i = 0; i < v->nitems; i++)
                if (v->items[i]->kind != V_EXPR && !config__is_int(v->items[i]))
                    return arena_printf(arena, "%s takes a list of ints: TorchAir raises TypeError for the item %s", shown,
                                        config__value_text(arena, v->items[i]));
            return NULL;
        }
        return arena_printf(arena, "%s takes a list of ints or None: TorchAir raises TypeError for %s", shown, val);
    case TK_STR:
        return v->kind == V_NONE || v->kind == V_STR ? NULL :
               arena_printf(arena, "%s takes a str or None: TorchAir raises TypeError for %s", shown, val);
    case TK_DICT:
        return v->kind == V_NONE || v->kind == V_DICT ? NULL :
               arena_printf(arena, "%s takes a dict or None: TorchAir raises TypeError for %s", shown, val);
    case TK_CALLABLE:   /* no literal is callable */
        return v->kind == V_NONE ? NULL :
               arena_printf(arena, "%s takes a callable or None: TorchAir raises TypeError for %s", shown, val);
    case TK_DIR:
        return v->kind != V_NONE ? NULL :
               arena_printf(arena, "%s takes an existing directory: TorchAir raises FileNotFoundError for None", shown);
    case TK_JSON_FILE:
        return v->kind != V_STR || v->len ? NULL :
               arena_printf(arena, "%s takes the path of a .json file: TorchAir raises ValueError for ''", shown);
    case TK_REGEX:
        if (v->kind != V_STR)
            return arena_printf(arena, "%s takes a str matching %s: re.match raises TypeError for %s", shown, f->regex_py, val);
        return config__regex_match(f, v) == 0 ?
               arena_printf(arena, "%s must match %s: TorchAir raises ValueError for %s", shown, f->regex_py, val) : NULL;
    case TK_PROPERTY:   /* its setter: self._path.value = os.path.realpath(value) */
        return v->kind == V_STR ? NULL :
               arena_printf(arena, "%s takes a path: os.path.realpath raises TypeError for %s", shown, val);
    case TK_SECTION: case TK_FILE: case TK_PLAIN: case TK_NPUGRAPHEX:
        break;
    }
    return NULL;
}

/* ---- the rules ---- */

typedef struct ConfigCheck {
    Lint *l;
    const ConfigField *f;
    const char *mode;        /* the config's mode, NULL when unknown */
    int version;             /* index into torchair_versions */
    int cfg;                 /* index into the file's configs */
} ConfigCheck;

/* True when config cfg reaches only cache_compile calls (and at least one):
 * TorchAir bypasses the static kernel build dir there. */
static int config__only_cache_compile(const Lint *l, int cfg)
{
    int any = 0;
    for (size_t c = 0; c < l->sf->compiles.n; c++) {
        const Compile *cp = &l->sf->compiles.v[c];
        if (cp->config != cfg)
            continue;
        if (!cp->is_cache)
            return 0;
        any = 1;
    }
    return any;
}

static int config__str_in(const Value *v, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v->kind == V_STR && v->len == strlen(list[i]) && !memcmp(v->s, list[i], v->len))
            return 1;
    return 0;
}

/* The literal an assignment of this file sets, where the scan holds its
 * value as unknown because the assignment runs on some paths only (under
 * an if or in a loop): the setter refuses a bad literal on every path
 * that runs it. NULL when there is none. */
static const Value *config__path_literal(Lint *l, const ConfigField *f)
{
    if (f->module || f->node < 0 || l->ast->nodes[f->node].kind != NK_assignment)
        return NULL;
    int32_t right = ast_field(l->ast, f->node, F_right);
    if (right < 0)
        return NULL;
    const Value *v = value_of(l->ast, NULL, right, &l->sf->arena);
    return v && v->kind != V_EXPR ? v : NULL;
}

/* The value rules of option row, set through a validating setter. */
static void config__value(ConfigCheck *k, const TorchairField *row)
{
    static const char *const dumps[] = {"txt", "pbtxt", "py"};
    Lint *l = k->l;
    const ConfigField *f = k->f;
    const Value *v = f->value;
    const char *path = row->path;
    int some_paths = 0;   /* v is the literal of a conditional assignment */
    if (v && v->kind == V_EXPR && (v = config__path_literal(l, f)) != NULL)
        some_paths = 1;
    if (!v || v->kind == V_EXPR)
        return;
    /* `x = "O3",`: the trailing comma makes a one-item tuple */
    int comma = v->kind == V_TUPLE && v->nitems == 1 && l->ast->nodes[v->node].kind == NK_expression_list;
    const char *hint = comma ? " (the trailing comma makes it a tuple)" : "";
    if (!strcmp(path, "mode")) {
        if (!config__str_in(v, lint_modes, 3))
            REPORT(l, v->node, TNG165, "unknown mode; use max-autotune, reduce-overhead or npugraph_ex%s", hint);
        return;
    }
    if (!strcmp(path, "debug.graph_dump.type")) {
        if (!config__str_in(v, dumps, 3))
            REPORT(l, v->node, TNG162, "graph_dump.type must be txt, pbtxt or py%s", hint);
        else if (!some_paths && k->mode && !strcmp(k->mode, "reduce-overhead") && !(v->len == 2 && !memcmp(v->s, "py", 2)))
            REPORT(l, f->node, TNG163, "only graph_dump.type = \"py\" works in reduce-overhead mode");
        return;
    }
    if (!strcmp(path, "inference_config.dynamic_gears_merge_policy")) {
        int product;
        GearVerdict gv;
        if (gear_policy_parse(v->kind == V_STR ? v->s : NULL, v->kind == V_STR ? v->len : 0, &product, &gv))
            diag_node(&l->sf->diags, l->ast, v->node, gv.rule, "%s", gv.msg);
        return;
    }
    const char *refusal = config__refusal(&l->sf->arena, row, f->path, v);
    if (refusal) {
        REPORT(l, v->node, TNG166, "%s%s", refusal, hint);
        return;
    }
    if (some_paths)
        return;   /* the rules below read the value the config ends with */
    if (comma && row->kind == TK_OPTION && !row->has_allowed) {
        /* OptionValue.value returns str(self._value) (_option_base.py:30-39) */
        const Value *e = v->items[0];
        const char *shown = e->kind == V_STR ? arena_printf(&l->sf->arena, "('%.*s',)", (int)e->len, e->s)
                                             : arena_printf(&l->sf->arena, "(%s,)", config__value_text(&l->sf->arena, e));
        REPORT_AS(SEV_WARNING, l, v->node, TNG166, "%s is set to the tuple %s by the trailing comma: TorchAir takes any value here and hands on its str(), \"%s\"",
                  f->path, shown, shown);
        return;
    }
    if (!strcmp(path, "experimental_config.aclgraph._aclnn_static_shape_kernel")) {
        if (v->kind == V_BOOL && v->i && k->mode && !strcmp(k->mode, "max-autotune"))
            REPORT(l, f->node, TNG160, "static kernels work only in reduce-overhead mode: TorchAir warns and ignores "
                   "this in %s mode", k->mode);
    } else if (!strcmp(path, "experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir")) {
        /* static_kernel.py:603-608 checks the dir where it is used; under
         * cache_compile it is bypassed (static_kernel.py:43-48) */
        if (v->kind == V_STR && path_escapes(v->s, v->len) && !config__only_cache_compile(l, k->cfg))
            REPORT(l, v->node, TNG161, "the static kernel build dir must not contain '..' or NUL");
    }
}

/* A name section sec does not have, in path's first len bytes. */
static void config__unknown(ConfigCheck *k, const TorchairField *sec, size_t len)
{
    Lint *l = k->l;
    Arena *arena = &l->sf->arena;
    const char *path = k->f->path;
    const TorchairVersion *tv = &torchair_versions[k->version];
    int other = -1;
    for (size_t v = 0; v < torchair_nversions && other < 0; v++)
        if ((int)v != k->version && config__row(path, len, 1u << v))
            other = (int)v;
    const char *known = other >= 0 ? arena_printf(arena, " (TorchAir %s has it)", torchair_versions[other].name) : "";
    if (sec->accepts_unknown) {
        const char *hint = config__suggest(arena, path, len, 1u << k->version);
        const char *why = !strcmp(sec->path, "npugraphex_config") ?
            arena_printf(arena, "'%.*s' is not an npugraph_ex option, and TorchAir never reads npugraphex_config's attributes",
                         (int)len, path) :
            arena_printf(arena, "'%.*s' is not a field of %s (%.*s), which stores any attribute name and never reads this one",
                         (int)len, path, sec->path, (int)strcspn(sec->cls, " "), sec->cls);
        REPORT_AS(SEV_WARNING, l, k->f->node, TNG164, "%s%s%s%s%s", why, known, hint ? "; did you mean '" : "", hint ? hint : "",
                  hint ? "'?" : "");
        return;
    }
    if (other >= 0) {
        REPORT(l, k->f->node, TNG164,
               "TorchAir %s (%s) has no field '%.*s': setting it raises ValueError there (TorchAir %s has it)",
               tv->name, tv->date, (int)len, path, torchair_versions[other].name);
        return;
    }
    const char *hint = config__suggest(arena, path, len, 1u << k->version);
    if (hint) {
        REPORT(l, k->f->node, TNG164, "CompilerConfig has no field '%s'; did you mean '%s'?", path, hint);
    } else if (sec == &torchair_fields[0] && path[len]) {
        StrBuf names = {0};
        for (size_t i = 1; i < torchair_nfields; i++)
            if (torchair_fields[i].kind == TK_SECTION && !strchr(torchair_fields[i].path, '.') &&
                (torchair_fields[i].versions & (1u << k->version)) && torchair_fields[i].assign == TA_CHECKED)
                sb_printf(&names, "%s%s", names.len ? ", " : "", torchair_fields[i].path);
        REPORT(l, k->f->node, TNG164, "CompilerConfig has no section '%.*s' (sections: %s)", (int)len, path,
               names.s ? names.s : "");
        sb_free(&names);
    } else {
        REPORT(l, k->f->node, TNG164, "CompilerConfig has no field '%s'", path);
    }
}

/* config.<path> = value: walks the schema one name at a time. */
static void config__assignment(ConfigCheck *k)
{
    Lint *l = k->l;
    const char *path = k->f->path;
    unsigned mask = 1u << k->version;
    const TorchairField *sec = &torchair_fields[0];
    size_t at = 0;
    for (;;) {
        size_t end = at + strcspn(path + at, ".");
        const TorchairField *row = config__row(path, end, mask);
        if (!row) {
            config__unknown(k, sec, end);
            return;
        }
        if (row->kind == TK_SECTION && path[end]) {
            sec = row;
            at = end + 1;
            continue;
        }
        const char *rest = path[end] ? path + end + 1 : NULL;
        if (row->kind == TK_SECTION) {
            if (row->assign == TA_RAISES)
                REPORT(l, k->f->node, TNG164, "'%s' is not one of CompilerConfig's options: assigning it raises "
                       "ValueError; set its attributes instead", path);
        } else if (row->kind == TK_NPUGRAPHEX) {
            REPORT_AS(SEV_WARNING, l, k->f->node, TNG164, "setting %s has no effect: TorchAir reads npugraph_ex options only from "
                      "torch.compile(..., options={\"%s\": ...}), which sets %s", row->path, row->path + at, row->target);
        } else if (!rest) {
            if (row->assign == TA_CHECKED)
                config__value(k, row);
        } else if (config__is_option(row) && !strcmp(rest, "value")) {
            config__value(k, row);   /* the same setter, even in export */
        } else if (config__is_option(row)) {
            REPORT_AS(SEV_WARNING, l, k->f->node, TNG164,
                      "%s is an option object: TorchAir never reads its attribute '%s'; did you mean '%s.value'?",
                      row->path, rest, row->path);
        }
        return;
    }
}

/* ---- the npugraph_ex package's CompilerConfig ---- */

/* The fields of npugraph_ex's CompilerConfig (npugraph_ex/configs/
 * compiler_config.py:25-52 at fced8842), as rows of TorchAir's schema
 * form: every one of them is in _fixed_attrs (NpuBaseConfig.__init__ and
 * :54-57), so any other name raises ValueError in NpuBaseConfig.__setattr__
 * (_option_base.py:221-224), and an option goes through its setter. */
static const TorchairLit nge_bools[] = {{TL_BOOL, 1, NULL}, {TL_BOOL, 0, NULL}};
static const TorchairLit nge_stages[] = {{TL_STR, 0, "original"}, {TL_STR, 0, "optimized"}};
static const TorchairLit nge_errmodes[] = {{TL_STR, 0, "global"}, {TL_STR, 0, "thread_local"}, {TL_STR, 0, "relaxed"}};
static const TorchairLit nge_modes[] = {{TL_STR, 0, "npugraph_ex"}};

#define NGE_BOOL(n) {.path = n, .kind = TK_OPTION, .cls = "OptionValue", .has_allowed = 1, .allowed = nge_bools, .nallowed = 2}
#define NGE_LIST(n, l) {.path = n, .kind = TK_OPTION, .cls = "OptionValue", .has_allowed = 1, .allowed = l, \
                        .nallowed = sizeof l / sizeof *l}
#define NGE_KIND(n, k, c) {.path = n, .kind = k, .cls = c}

static const TorchairField nge_fields[] = {
    NGE_BOOL("force_eager"),
    NGE_KIND("use_graph_pool", TK_PLAIN, "plain attr"),
    NGE_BOOL("reuse_graph_pool_in_same_fx"),
    {.path = "capture_limit", .kind = TK_INT_RANGE, .cls = "IntRangeValue", .min = 1, .max = LLONG_MAX},
    NGE_BOOL("clone_input"),
    NGE_BOOL("clone_output"),
    NGE_BOOL("disable_static_kernel_compile_cache"),
    NGE_BOOL("static_kernel_compile"),
    NGE_BOOL("frozen_parameter"),
    NGE_BOOL("remove_noop_ops"),
    NGE_BOOL("remove_cat_ops"),
    NGE_BOOL("inplace_pass"),
    NGE_BOOL("input_inplace_pass"),
    NGE_BOOL("pattern_fusion_pass"),
    NGE_KIND("post_grad_custom_pre_pass", TK_CALLABLE, "CallableValue"),
    NGE_KIND("post_grad_custom_post_pass", TK_CALLABLE, "CallableValue"),
    NGE_BOOL("dump_tensor_data"),
    NGE_LIST("data_dump_stage", nge_stages),
    NGE_KIND("data_dump_dir", TK_DIR, "MustExistedPathValue"),
    {.path = "_vllm_aclnn_static_kernel_sym_index", .kind = TK_INT_RANGE, .cls = "IntRangeValue", .min = 0, .max = LLONG_MAX},
    NGE_KIND("_vllm_aclnn_static_kernel_sym_range", TK_INT_LIST, "IntListValue"),
    NGE_BOOL("super_kernel_optimize"),
    NGE_KIND("super_kernel_optimize_options", TK_DICT, "DictOptionValue"),
    NGE_KIND("super_kernel_debug_options", TK_DICT, "DictOptionValue"),
    NGE_BOOL("deadlock_check"),
    NGE_LIST("capture_error_mode", nge_errmodes),
    NGE_LIST("mode", nge_modes),
    NGE_BOOL("force_recapture"),
};

/* The field of npugraph_ex's CompilerConfig named by the first len bytes
 * of name, or NULL. */
static const TorchairField *config__nge_row(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof nge_fields / sizeof *nge_fields; i++)
        if (!strncmp(nge_fields[i].path, name, len) && nge_fields[i].path[len] == 0)
            return &nge_fields[i];
    return NULL;
}

/* The field of npugraph_ex's CompilerConfig at most 2 edits from name, or NULL. */
static const char *config__nge_near(const char *name)
{
    for (size_t i = 0; i < sizeof nge_fields / sizeof *nge_fields; i++)
        if (str_distance(name, nge_fields[i].path) <= 2)
            return nge_fields[i].path;
    return NULL;
}

/* ---- options TorchAir warns about in a mode ---- */

#define CW_T {TL_BOOL, 1, NULL}
#define CW_F {TL_BOOL, 0, NULL}
#define CW_S(x) {TL_STR, 0, x}

/* unsupport_geconfig_list and unsupport_aclgraphconfig_list
 * (configs/compiler_config.py:63-81): a field set to one of its values
 * (any value but None where the list is empty) draws the UserWarning of
 * _check_config_support (:84-109) in that mode. Left out: the static
 * kernel fields (_aclnn_static_shape_kernel and its build dir: TNG160), and
 * dump_config.enable_dump, which reduce-overhead does read
 * (_acl_concrete_graph/fx2acl_converter.py:326). */
static const struct ConfigWarn {
    int reduce_overhead;       /* 0: max-autotune's list, 1: reduce-overhead's */
    const char *path;
    size_t nvals;
    TorchairLit vals[3];
} config_warns[] = {
    {0, "debug.aclgraph.disable_reinplace_input_mutated_ops_pass", 1, {CW_T}},
    {0, "debug.aclgraph.clone_input", 1, {CW_F}},
    {0, "debug.aclgraph.disable_reinplace_inplaceable_ops_pass", 1, {CW_T}},
    {1, "inference_config.dynamic_gears_merge_policy", 1, {CW_S("product")}},
    {1, "debug.fx_summary.type", 1, {CW_S("csv")}},
    {1, "ge_config.export_compile_stat", 2, {CW_S("1"), CW_S("0")}},
    {1, "export.experimental.auto_atc_config_generated", 1, {CW_T}},
    {1, "export.experimental.enable_record_nn_module_stack", 1, {CW_T}},
    {1, "ge_config.enable_single_stream", 1, {CW_T}},
    {1, "ge_config.oo_level", 1, {CW_S("O1")}},
    {1, "ge_config.oo_constant_folding", 2, {CW_T, CW_F}},
    {1, "ge_config.oo_dead_code_elimination", 2, {CW_T, CW_F}},
    {1, "experimental_config.topology_sorting_strategy", 3, {CW_S("BFS"), CW_S("RDFS"), CW_S("StableRDFS")}},
    {1, "experimental_config.cc_parallel_enable", 1, {CW_T}},
    {1, "experimental_config.enable_ref_data", 1, {CW_T}},
    {1, "experimental_config.tiling_schedule_optimize", 1, {CW_T}},
    {1, "experimental_config.enable_view_optimize", 2, {CW_F, CW_T}},
    {1, "fusion_config.fusion_switch_file", 0, {{TL_NONE, 0, NULL}}},
    {1, "experimental_config.static_model_ops_lower_limit", 0, {{TL_NONE, 0, NULL}}},
    {1, "ge_config.aicore_num", 0, {{TL_NONE, 0, NULL}}},
    {1, "ge_config.optimization_switch", 0, {{TL_NONE, 0, NULL}}},
};

/* True when some compile of the file uses config cfg (get_npu_backend and
 * cache_compile run _check_config_support: npu_fx_compiler.py:904,
 * inference/_cache_compiler.py:375). */
static int config__compiled(const Lint *l, int cfg)
{
    for (size_t c = 0; c < l->sf->compiles.n; c++)
        if (l->sf->compiles.v[c].config == cfg && l->sf->compiles.v[c].torchair == 1)
            return 1;
    return 0;
}

/* The warnings _check_config_support gives for config cfg in its mode
 * (TNG169), on the last assignment of each field it lists. Its
 * DeprecationWarning for every reduce-overhead config (:110-114) is a
 * notice about the mode, not about a line to change: not reported. */
static void config__mode_warnings(Lint *l, int cfg, const char *mode)
{
    const Config *c = &l->sf->configs.v[cfg];
    if (!mode || c->npugraph_ex || !strcmp(mode, "npugraph_ex") || !config__compiled(l, cfg))
        return;
    int ro = !strcmp(mode, "reduce-overhead");
    for (size_t i = 0; i < c->fields.n; i++) {
        const ConfigField *f = &c->fields.v[i];
        const Value *v = f->value;
        if (f->module || !v || v->kind == V_EXPR)
            continue;
        const char *path = lint_field_path(f->path);
        for (size_t w = 0; w < sizeof config_warns / sizeof *config_warns; w++) {
            const struct ConfigWarn *cw = &config_warns[w];
            size_t n = strlen(cw->path);
            if (cw->reduce_overhead != ro || strncmp(cw->path, path, n) || (path[n] && strcmp(path + n, ".value")) ||
                lint_field(l, cfg, cw->path) != f)
                continue;   /* another field, or not its last assignment */
            int hit = cw->nvals == 0 && v->kind != V_NONE;
            for (size_t k = 0; k < cw->nvals && !hit; k++)
                hit = config__lit_equal(&cw->vals[k], v);
            if (hit)
                REPORT(l, f->node, TNG169, "TorchAir warns that config.%s = %s may not take effect or may fail in %s mode",
                       cw->path, config__value_text(&l->sf->arena, v), mode);
        }
    }
}

/* The literal config field path is last set to (this file's), or NULL. */
static const Value *config__last_literal(Lint *l, int cfg, const char *path)
{
    const ConfigField *f = lint_field(l, cfg, path);
    return f && !f->module && f->value && f->value->kind != V_EXPR ? f->value : NULL;
}

/* The debug options whose use _get_compiled_gm warns about
 * (npu_fx_compiler.py:614-634), for a config some compile uses (TNG169):
 * debug.fx_summary enabled (its type set to "csv") writes no csv files in
 * npugraph_ex mode (reduce-overhead's is in config_warns); in max-autotune
 * with skip_compile (True by default) it summarises the graph and runs it
 * eagerly; debug.data_dump enabled (type "npy") runs it eagerly too, in
 * every mode, unless the summary returned first. */
static void config__debug_warnings(Lint *l, int cfg, const char *mode)
{
    if (!mode || !config__compiled(l, cfg))
        return;
    const Value *fx = config__last_literal(l, cfg, "debug.fx_summary.type");
    const Value *dump = config__last_literal(l, cfg, "debug.data_dump.type");
    int summary = fx && fx->kind == V_STR && fx->len == 3 && !memcmp(fx->s, "csv", 3);
    int eager = 0;
    if (summary && !strcmp(mode, "npugraph_ex"))
        REPORT(l, lint_field(l, cfg, "debug.fx_summary.type")->node, TNG169, "TorchAir warns that debug.fx_summary writes no csv files in npugraph_ex mode");
    if (summary && !strcmp(mode, "max-autotune")) {
        const ConfigField *sk = lint_field(l, cfg, "debug.fx_summary.skip_compile");
        const Value *v = sk ? config__last_literal(l, cfg, "debug.fx_summary.skip_compile") : NULL;
        if (!sk || (v && (((v->kind == V_BOOL || v->kind == V_INT) && v->i) || (v->kind == V_FLOAT && v->f != 0)))) {
            REPORT(l, lint_field(l, cfg, "debug.fx_summary.type")->node, TNG169, "with debug.fx_summary and skip_compile (True by default) TorchAir warns that it "
                   "summarises the FX graph and runs it eagerly, without compiling it; set skip_compile = False to compile too");
            eager = 1;
        }
    }
    if (!eager && dump && dump->kind == V_STR && dump->len == 3 && !memcmp(dump->s, "npy", 3))
        REPORT(l, lint_field(l, cfg, "debug.data_dump.type")->node, TNG169, "with debug.data_dump TorchAir warns that it dumps the FX graph's data and runs it "
               "eagerly, without compiling it");
}

/* aclgraph_config.use_custom_pool = torch.npu.graph_pool_handle (the
 * function, not the pool it returns): reduce-overhead hands it to the
 * graph capture as its pool (npu_fx_compiler.py:676), where torch_npu's
 * NPUGraph.capture_begin passes it to the binding that takes a pool
 * token (torch_npu/npu/graphs.py:624, :887, :913): TypeError. Unused in
 * max-autotune: a warning there. */
static void config__custom_pool(Lint *l, int cfg, const char *mode)
{
    const ConfigField *f = lint_field(l, cfg, "aclgraph_config.use_custom_pool");
    if (!f || f->module || !f->value || f->value->kind != V_EXPR)
        return;
    const Value *v = f->value;
    NodeKind k = l->ast->nodes[v->node].kind;
    static const char fn[] = "graph_pool_handle";
    size_t n = sizeof fn - 1;
    if ((k != NK_attribute && k != NK_identifier) || v->len < n || memcmp(v->s + v->len - n, fn, n) ||
        (v->len > n && v->s[v->len - n - 1] != '.'))
        return;
    if (mode && strcmp(mode, "max-autotune"))
        REPORT(l, v->node, TNG166, "use_custom_pool is set to the function %.*s, not to the pool it returns: the %s graph capture refuses it (TypeError); call it: %.*s()",
               (int)v->len, v->s, mode, (int)v->len, v->s);
    else
        REPORT_AS(SEV_WARNING, l, v->node, TNG166, "use_custom_pool is set to the function %.*s, not to the pool it returns; call it: %.*s()",
                  (int)v->len, v->s, (int)v->len, v->s);
}

/* config.<path> = value on npugraph_ex's CompilerConfig: a name it does
 * not have is TNG164 (NpuBaseConfig.__setattr__ raises ValueError,
 * _option_base.py:221-224; reading one raises AttributeError), a literal an
 * option's setter refuses TNG166 (`x = v` and `x.value = v` alike). */
static void config__nge_assignment(Lint *l, const ConfigField *f)
{
    Arena *arena = &l->sf->arena;
    const char *path = f->path;
    size_t len = strcspn(path, ".");
    const TorchairField *row = config__nge_row(path, len);
    if (!row) {
        char *name = arena_printf(arena, "%.*s", (int)len, path);
        const char *near = config__nge_near(name);
        REPORT(l, f->node, TNG164, "npugraph_ex's CompilerConfig has no field '%s': %s%s%s%s", name,
               path[len] ? "reading it raises AttributeError" : "NpuBaseConfig.__setattr__ raises ValueError",
               near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
        return;
    }
    if (path[len] && (!config__is_option(row) || strcmp(path + len + 1, "value")))
        return;
    const Value *v = f->value;
    if (v && v->kind == V_EXPR)
        v = config__path_literal(l, f);
    if (!v || v->kind == V_EXPR)
        return;
    const char *refusal = config__refusal(arena, row, arena_printf(arena, "npugraph_ex's %s", row->path), v);
    if (refusal)
        REPORT(l, v->node, TNG166, "%s", refusal);
}

static void config__deprecated_mode(Lint *l, int cfg, const char *mode);

void lint_config(Lint *l, int cfg)
{
    const Config *c = &l->sf->configs.v[cfg];
    ConfigCheck k = {l, NULL, lint_mode(l, cfg), l->opt ? l->opt->torchair : 0, cfg};
    if (k.version < 0 || (size_t)k.version >= torchair_nversions)
        k.version = 0;
    for (size_t i = 0; i < c->fields.n; i++) {
        k.f = &c->fields.v[i];
        if (k.f->module)
            continue;   /* set in an imported module: checked where it is, when that file is linted */
        if (c->npugraph_ex)
            config__nge_assignment(l, k.f);
        else
            config__assignment(&k);
    }
    if (c->npugraph_ex)
        return;
    config__mode_warnings(l, cfg, k.mode);
    config__debug_warnings(l, cfg, k.mode);
    config__custom_pool(l, cfg, k.mode);
    config__deprecated_mode(l, cfg, k.mode);
}

/* ---- torch.compile's options and mode with a TorchAir backend ---- */

/* The node of a keyword argument whose value is v (its value's node if
 * it is not one). */
static int32_t config__keyword_node(const Lint *l, const Value *v)
{
    int32_t p = l->ast->nodes[v->node].parent;
    return p >= 0 && l->ast->nodes[p].kind == NK_keyword_argument ? p : v->node;
}

/* The npugraph_ex option names of the version mask, for a message. */
static const char *config__option_names(Arena *arena, unsigned mask)
{
    StrBuf list = {0};
    for (size_t i = 0; i < torchair_nfields; i++)
        if (torchair_fields[i].kind == TK_NPUGRAPHEX && (torchair_fields[i].versions & mask))
            sb_printf(&list, "%s%s", list.s ? ", " : "", strchr(torchair_fields[i].path, '.') + 1);
    const char *out = arena_strndup(arena, list.s ? list.s : "", list.s ? strlen(list.s) : 0);
    sb_free(&list);
    return out;
}

/*
 * torch.compile hands its options and a mode other than "default" to the
 * backend as keywords. TorchAir's _npu_backend (npu_fx_compiler.py:865-884)
 * passes them to _process_kwargs_options (configs/npugraphex_config.py:89-122),
 * which reads only "options": a key outside its table raises ValueError
 * (:105-107), a value is set on the config field the key maps to, through
 * that option's setter (:109-122); the mode is never read. The npugraph_ex
 * package checks options against its own config, which tngc does not
 * record: only compiles whose backend is torchair's get_npu_backend.
 */
/*
 * torch.compile(backend="npugraph_ex", options={...}): npugraph_ex's
 * _npu_backend (npu_fx_compiler.py:794-811) hands the options to its own
 * _process_kwargs_options (configs/compiler_config.py:172-203), which sets
 * each key on a fresh CompilerConfig: a key that is not one of its fields
 * raises ValueError (:185-197, or __setattr__ for a method's name), a value
 * the field's setter refuses raises there (:203).
 */
static void config__nge_options(Lint *l, const Annotation *a)
{
    Arena *arena = &l->sf->arena;
    const Value *opts = ann_arg(a, "options");
    if (!opts || opts->kind != V_DICT)
        return;
    for (size_t i = 0; i + 1 < opts->nitems; i += 2) {
        const Value *k = opts->items[i], *v = opts->items[i + 1];
        if (k->kind == V_EXPR)
            continue;
        const TorchairField *row = k->kind == V_STR && !memchr(k->s, 0, k->len) ? config__nge_row(k->s, k->len) : NULL;
        if (!row) {
            const char *near = k->kind == V_STR ? config__nge_near(k->s) : NULL;
            REPORT(l, k->node, TNG167, "%s is not a field of npugraph_ex's CompilerConfig: its _process_kwargs_options raises ValueError%s%s%s",
                   config__value_text(arena, k), near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
            continue;
        }
        if (v->kind == V_EXPR)
            continue;
        const char *shown = arena_printf(arena, "options[\"%.*s\"] of npugraph_ex", (int)k->len, k->s);
        const char *refusal = config__refusal(arena, row, shown, v);
        if (refusal)
            REPORT(l, v->node, TNG166, "%s", refusal);
    }
}

void lint_compile_options(Lint *l, const Compile *c)
{
    ScanFile *sf = l->sf;
    const Value *be = c->is_cache ? NULL : ann_arg(&sf->anns.v[c->ann], "backend");
    if (be && be->kind == V_STR && be->len == 11 && !memcmp(be->s, "npugraph_ex", 11)) {
        config__nge_options(l, &sf->anns.v[c->ann]);
        return;
    }
    if (c->is_cache || c->torchair != 1 ||
        (c->config != CONFIG_DEFAULT && (c->config < 0 || sf->configs.v[c->config].npugraph_ex)))
        return;
    const Annotation *a = &sf->anns.v[c->ann];
    int version = l->opt ? l->opt->torchair : 0;
    if (version < 0 || (size_t)version >= torchair_nversions)
        version = 0;
    unsigned mask = 1u << version;
    const Value *mode = ann_arg(a, "mode");
    if (mode && mode->kind == V_STR && !(mode->len == 7 && !memcmp(mode->s, "default", 7))) {
        const char *used = lint_compile_mode(l, c);
        REPORT(l, config__keyword_node(l, mode), TNG168,
               "TorchAir's backend never reads torch.compile's mode: the compile runs in its CompilerConfig's mode%s%s%s; set config.mode instead",
               used ? " (" : "", used ? used : "", used ? ")" : "");
    }
    const Value *opts = ann_arg(a, "options");
    if (!opts || opts->kind != V_DICT)
        return;
    for (size_t i = 0; i + 1 < opts->nitems; i += 2) {
        const Value *k = opts->items[i], *v = opts->items[i + 1];
        if (k->kind == V_EXPR)
            continue;
        const TorchairField *row = NULL;
        if (k->kind == V_STR && !memchr(k->s, 0, k->len)) {
            char *path = arena_printf(&sf->arena, "npugraphex_config.%.*s", (int)k->len, k->s);
            row = config__row(path, strlen(path), mask);
            if (row && row->kind != TK_NPUGRAPHEX)
                row = NULL;
        }
        if (!row) {
            const char *near = NULL;
            for (size_t f = 0; f < torchair_nfields && k->kind == V_STR && !near; f++) {
                const TorchairField *o = &torchair_fields[f];
                if (o->kind == TK_NPUGRAPHEX && (o->versions & mask) && str_distance(k->s, strchr(o->path, '.') + 1) <= 2)
                    near = strchr(o->path, '.') + 1;
            }
            if (near)
                REPORT(l, k->node, TNG167, "%s is not an option TorchAir's backend takes: _process_kwargs_options raises ValueError; did you mean '%s'?",
                       config__value_text(&sf->arena, k), near);
            else
                REPORT(l, k->node, TNG167, "%s is not an option TorchAir's backend takes: _process_kwargs_options raises ValueError (allowed: %s)",
                       config__value_text(&sf->arena, k), config__option_names(&sf->arena, mask));
            continue;
        }
        const TorchairField *target = row->target ? config__row(row->target, strlen(row->target), mask) : NULL;
        if (!target || v->kind == V_EXPR)
            continue;
        const char *shown = arena_printf(&sf->arena, "options[\"%.*s\"], which sets %s,", (int)k->len, k->s, row->target);
        const char *refusal = config__refusal(&sf->arena, target, shown, v);
        if (refusal)
            REPORT(l, v->node, TNG166, "%s", refusal);
    }
}

/* ---- the reduce-overhead deprecation notice ---- */

/* _check_config_support (configs/compiler_config.py:110-114), run by
 * get_npu_backend and cache_compile for every config they get, ends with
 * warnings.filterwarnings("once", category=DeprecationWarning) and
 * warnings.warn("The \"reduce-overhead\" mode configuration will be
 * deprecated. ...", DeprecationWarning) when the mode is reduce-overhead.
 * The filter goes in front of Python's default ones (which hide a
 * DeprecationWarning raised outside __main__), so the user sees it once
 * per process (TNG175), on the mode assignment of a config some compile
 * uses through TorchAir; `tngc lint` only (LintOptions.notices). */
static void config__deprecated_mode(Lint *l, int cfg, const char *mode)
{
    const ConfigField *f = lint_field(l, cfg, "mode");
    if (!l->opt || !l->opt->notices || !mode || strcmp(mode, "reduce-overhead") || !f || f->module ||
        !config__compiled(l, cfg))
        return;
    REPORT(l, f->node, TNG175, "TorchAir warns (DeprecationWarning, shown once per process) that the reduce-overhead mode "
           "configuration will be deprecated: use the npugraph_ex backend, torch.compile(..., backend=\"npugraph_ex\")");
}

/* ---- two configs TorchAir compares ---- */

/* The def that holds node n, or -1 at module level. */
static int32_t config__owner_def(const Ast *ast, int32_t n)
{
    for (int32_t p = ast->nodes[n].parent; p >= 0; p = ast->nodes[p].parent)
        if (ast->nodes[p].kind == NK_function_definition)
            return p;
    return -1;
}

/* Python's `a == b` for two literals: 1, 0, or -1 when not decided here
 * (containers, expressions). */
static int config__py_equal(const Value *a, const Value *b)
{
    if (a->kind == V_EXPR || b->kind == V_EXPR || a->kind >= V_TUPLE || b->kind >= V_TUPLE)
        return -1;
    if (a->kind == V_NONE || b->kind == V_NONE)
        return a->kind == b->kind;
    if (a->kind == V_STR || b->kind == V_STR)
        return a->kind == b->kind && a->len == b->len && !memcmp(a->s, b->s, a->len);
    if (a->kind != V_FLOAT && b->kind != V_FLOAT)
        return a->i == b->i;   /* True == 1 */
    return (a->kind == V_FLOAT ? a->f : (double)a->i) == (b->kind == V_FLOAT ? b->f : (double)b->i);
}

/* A schema literal as a script literal (no node). */
static void config__lit_value(const TorchairLit *t, Value *out)
{
    memset(out, 0, sizeof *out);
    out->node = -1;
    switch (t->kind) {
    case TL_NONE: out->kind = V_NONE; break;
    case TL_BOOL: out->kind = V_BOOL; out->i = t->i; break;
    case TL_INT: out->kind = V_INT; out->i = t->i; break;
    case TL_STR: out->kind = V_STR; out->s = t->s; out->len = strlen(t->s); break;
    }
}

/* The value the leaf path of config cfg (CONFIG_DEFAULT: a fresh
 * CompilerConfig()) holds when node at runs: the literal of its last
 * assignment when that runs before at (earlier in the same def, or in the
 * module's code or an imported module's when at is in a def), else its
 * schema default (None for a name a free section stores). *dflt receives
 * the default. NULL when not known statically: set on some paths only, to
 * an expression, after at or elsewhere, or its section assigned whole or
 * through a property. */
static const Value *config__value_at(Lint *l, int cfg, const char *path, int32_t at, unsigned mask, Value *dflt)
{
    if (cfg == CONFIG_UNKNOWN || (cfg >= 0 && l->sf->configs.v[cfg].npugraph_ex))
        return NULL;
    const TorchairField *row = config__row(path, strlen(path), mask);
    if (cfg >= 0) {
        const Config *c = &l->sf->configs.v[cfg];
        for (size_t i = 0; i < c->fields.n; i++) {
            const char *set = c->fields.v[i].path;
            size_t n = strlen(set);
            if (!strncmp(path, set, n) && path[n] == '.')
                return NULL;   /* a section above it assigned whole */
            const char *dot = strrchr(set, '.');
            size_t sec = dot ? (size_t)(dot - set) : 0;
            const TorchairField *sr = config__row(set, n, mask);
            if (sr && sr->kind == TK_PROPERTY && (!sec || (!strncmp(path, set, sec) && path[sec] == '.')))
                return NULL;   /* a property setter of its section (graph_dump.path sets _path) */
        }
        const ConfigField *f = lint_field(l, cfg, path);
        if (f) {
            if (!f->value || f->value->kind == V_EXPR)
                return NULL;
            if (!f->module) {
                int32_t fd = config__owner_def(l->ast, f->node), ad = config__owner_def(l->ast, at);
                if (fd != ad ? fd >= 0 || ad < 0 : l->ast->nodes[f->node].end > l->ast->nodes[at].start)
                    return NULL;
            }
            return f->value;
        }
    }
    if (row && (row->kind == TK_SECTION || row->kind == TK_PROPERTY))
        return NULL;
    if (row)
        config__lit_value(&row->dflt, dflt);
    else
        config__lit_value(&(TorchairLit){TL_NONE, 0, NULL}, dflt);
    return dflt;
}

/* The leaf a config path sets: "mode.value" and "x.value" name the
 * option; NULL for a section, a property or a path under an option. */
static const char *config__leaf(Lint *l, const char *path, unsigned mask)
{
    size_t n = strlen(path);
    const TorchairField *row = config__row(path, n, mask);
    if (!row && n > 6 && !strcmp(path + n - 6, ".value")) {
        row = config__row(path, n - 6, mask);
        if (!row || !config__is_option(row))
            return NULL;
        return arena_printf(&l->sf->arena, "%.*s", (int)(n - 6), path);
    }
    if (row)
        return row->kind == TK_SECTION || row->kind == TK_PROPERTY || row->kind == TK_NPUGRAPHEX ? NULL : path;
    /* a name the schema lacks: a leaf only under a section that stores any name */
    const char *dot = strrchr(path, '.');
    const TorchairField *sec = dot ? config__row(path, (size_t)(dot - path), mask) : NULL;
    return sec && sec->kind == TK_SECTION && sec->accepts_unknown ? path : NULL;
}

/* The bit of the --torchair commit in TorchairField.versions. */
static unsigned config__mask(const Lint *l)
{
    int version = l->opt ? l->opt->torchair : 0;
    if (version < 0 || (size_t)version >= torchair_nversions)
        version = 0;
    return 1u << version;
}

/* A leaf both configs hold a known literal at, and those differ
 * (CompilerConfig.__eq__ compares every leaf, configs/compiler_config.py:
 * 47-52, 127-158): its path, and the two values in *va, *vb; NULL if none.
 * The paths tried are those either config's assignments set. */
static const char *config__differing_leaf(Lint *l, int a, int b, int32_t at, const Value **va, const Value **vb,
                                          Value *da, Value *db)
{
    unsigned mask = config__mask(l);
    for (int side = 0; side < 2; side++) {
        int cfg = side ? b : a;
        if (cfg < 0)
            continue;
        const Config *c = &l->sf->configs.v[cfg];
        for (size_t i = 0; i < c->fields.n; i++) {
            const char *leaf = config__leaf(l, c->fields.v[i].path, mask);
            if (!leaf)
                continue;
            *va = config__value_at(l, a, leaf, at, mask, da);
            *vb = config__value_at(l, b, leaf, at, mask, db);
            if (*va && *vb && config__py_equal(*va, *vb) == 0)
                return leaf;
        }
    }
    return NULL;
}

/* True unless the get_npu_backend call that made a compile's backend
 * (-1: not seen) fails itself: a positional argument or a keyword other
 * than its two (TypeError, TNG172), so no backend exists to compare. */
static int config__backend_made(const Lint *l, int32_t call)
{
    for (size_t i = 0; call >= 0 && i < l->sf->anns.n; i++) {
        const Annotation *a = &l->sf->anns.v[i];
        if (a->node != call || a->kind != ANN_get_npu_backend)
            continue;
        if (a->npos)
            return 0;
        for (size_t k = 0; k < a->nargs; k++)
            if (strcmp(a->args[k].name, "compiler_config") && strcmp(a->args[k].name, "custom_decompositions"))
                return 0;
    }
    return 1;
}

/* TorchAir's cache_compile given config= and backend= raises ValueError
 * "config in current backend is different from the config during cache
 * generation." when the backend's config != config= (inference/
 * _cache_compiler.py:606-608), that is when a leaf differs (__eq__ is
 * by value: two configs set alike are equal). TNG176, on the call, with
 * a note on the get_npu_backend call that made the backend. */
static void config__cache_backend(Lint *l, const Compile *c)
{
    ScanFile *sf = l->sf;
    const Annotation *a = &sf->anns.v[c->ann];
    char buf[512];
    if (!c->is_cache || c->backend_config == CONFIG_UNKNOWN || c->config == CONFIG_UNKNOWN ||
        c->config == c->backend_config || strncmp(alias_normalise(a->callee, buf, sizeof buf), "torchair.", 9) ||
        !config__backend_made(l, c->backend_call))
        return;
    const Value *va, *vb;
    Value da, db;
    const char *leaf = config__differing_leaf(l, c->config, c->backend_config, a->node, &va, &vb, &da, &db);
    if (!leaf)
        return;
    Arena *arena = &sf->arena;
    const char *sa = config__value_text(arena, va), *sb = config__value_text(arena, vb);
    if (c->backend_call >= 0) {
        REPORT(l, a->node, TNG176, "config= and the config of its backend (made at line %u) differ: %s is %s in config= and %s in the backend's; "
               "TorchAir raises ValueError (config in current backend is different from the config during cache generation)",
               l->ast->nodes[c->backend_call].line, leaf, sa, sb);
        REPORT_AS(SEV_NOTE, l, c->backend_call, TNG176, "this backend's config has %s = %s, but the cache_compile at line %u that is given it has config= with %s",
                  leaf, sb, l->ast->nodes[a->node].line, sa);
    } else {
        REPORT(l, a->node, TNG176, "config= and the config of its backend differ: %s is %s in config= and %s in the backend's; "
               "TorchAir raises ValueError (config in current backend is different from the config during cache generation)",
               leaf, sa, sb);
    }
}

/* ---- GE's session options: once per process ---- */

/* _GEConfig.as_dict (configs/ge_config.py:23-43): the global (session)
 * options of a max-autotune compile, from ge_config's fields. always: the
 * option is there whatever the field holds; truth: it is "true" or "false"
 * by the field's truth, else OptionValue.value (str of the value, "1" /
 * "0" for True / False, _option_base.py:31-40). */
static const struct GeGlobal {
    const char *field;
    const char *option;
    int always, truth;
} ge_globals[] = {
    {"ge_config.aicore_num", "ge.aicoreNum", 0, 0},
    {"ge_config.enable_single_stream", "ge.enableSingleStream", 1, 1},
    {"ge_config.oo_level", "ge.oo.level", 1, 0},
    {"ge_config.oo_constant_folding", "ge.oo.constantFolding", 0, 1},
    {"ge_config.oo_dead_code_elimination", "ge.oo.deadCodeElimination", 0, 1},
    {"ge_config.export_compile_stat", "ge.exportCompileStat", 1, 0},
    {"ge_config.optimization_switch", "ge.optimizationSwitch", 0, 0},
};

/* The string GE option g has for a field value v: NULL when the option is
 * absent (an optional one whose field is None), "?" when not known here. */
static const char *config__ge_option(Arena *arena, const struct GeGlobal *g, const Value *v)
{
    if (v->kind == V_NONE && !g->always)
        return NULL;
    if (g->truth) {
        switch (v->kind) {
        case V_NONE: return "false";
        case V_BOOL:
        case V_INT: return v->i ? "true" : "false";
        case V_STR: return v->len ? "true" : "false";
        default: return "?";
        }
    }
    switch (v->kind) {
    case V_BOOL: return v->i ? "1" : "0";
    case V_INT: return arena_printf(arena, "%lld", (long long)v->i);
    case V_STR: return memchr(v->s, 0, v->len) ? "?" : arena_printf(arena, "%.*s", (int)v->len, v->s);
    default: return "?";
    }
}

/* True when node n runs whenever the code around it runs: under no if
 * (but the main guard), loop, try, with or conditional expression of its
 * def or the module's code. */
static int config__unconditional(const Ast *ast, int32_t n)
{
    for (int32_t p = ast->nodes[n].parent; p >= 0; p = ast->nodes[p].parent) {
        NodeKind k = ast->nodes[p].kind;
        if (k == NK_function_definition || k == NK_class_definition || k == NK_module)
            return 1;
        if (k == NK_if_statement && ast_is_main_guard(ast, p))
            continue;
        if (k == NK_if_statement || k == NK_for_statement || k == NK_while_statement || k == NK_try_statement ||
            k == NK_with_statement || k == NK_conditional_expression || k == NK_lambda)
            return 0;
    }
    return 1;
}

/* A max-autotune torch.compile through TorchAir whose GE session options
 * tngc may judge: a known config, no condition around it, and a call of
 * the compiled object (the graph is converted, and GE initialised, when
 * it first runs: _ge_concrete_graph/fx2ge_converter.py:989-990). */
static int config__ge_compile(Lint *l, size_t ci)
{
    const Compile *c = &l->sf->compiles.v[ci];
    const char *mode = lint_compile_mode(l, c);
    if (c->is_cache || c->torchair != 1 || c->config == CONFIG_UNKNOWN || !mode || strcmp(mode, "max-autotune") ||
        (c->config >= 0 && l->sf->configs.v[c->config].npugraph_ex) ||
        !config__unconditional(l->ast, l->sf->anns.v[c->ann].node) || !config__backend_made(l, c->backend_call))
        return 0;
    for (size_t b = 0; b < l->sf->bindings.n; b++)
        if (l->sf->bindings.v[b].compile == (int)ci)
            return 1;
    return 0;
}

/* The first GE option two compiles both set, to different values: GE is
 * initialised once per process with the first compile's global options,
 * and a later compile whose options are not a subset of them raises
 * ValueError (core/_backend.py:66-82, called by initialize_graph_engine).
 * Options only one of them has are left out: whether that raises depends
 * on which compile runs first. */
static const struct GeGlobal *config__ge_conflict(Lint *l, const Compile *x, const Compile *y, const char **sx,
                                                  const char **sy)
{
    unsigned mask = config__mask(l);
    int32_t ax = l->sf->anns.v[x->ann].node, ay = l->sf->anns.v[y->ann].node;
    for (size_t i = 0; i < sizeof ge_globals / sizeof *ge_globals; i++) {
        const struct GeGlobal *g = &ge_globals[i];
        Value dx, dy;
        const Value *vx = config__value_at(l, x->config, g->field, ax, mask, &dx);
        const Value *vy = config__value_at(l, y->config, g->field, ay, mask, &dy);
        if (!vx || !vy)
            continue;
        *sx = config__ge_option(&l->sf->arena, g, vx);
        *sy = config__ge_option(&l->sf->arena, g, vy);
        if (*sx && *sy && strcmp(*sx, "?") && strcmp(*sy, "?") && strcmp(*sx, *sy))
            return g;
    }
    return NULL;
}

/* Two max-autotune compiles of one def (or of the module's code), both
 * run, whose configs give GE different session options: TNG177 on the
 * later compile, where TorchAir raises when it first runs, with a note on
 * the earlier. */
static void config__ge_sessions(Lint *l)
{
    ScanFile *sf = l->sf;
    for (size_t j = 0; j < sf->compiles.n; j++) {
        if (!config__ge_compile(l, j))
            continue;
        const Compile *y = &sf->compiles.v[j];
        int32_t ny = sf->anns.v[y->ann].node;
        for (size_t i = 0; i < sf->compiles.n; i++) {
            const Compile *x = &sf->compiles.v[i];
            int32_t nx = sf->anns.v[x->ann].node;
            if (i == j || x->config == y->config || l->ast->nodes[nx].start >= l->ast->nodes[ny].start ||
                config__owner_def(l->ast, nx) != config__owner_def(l->ast, ny) || !config__ge_compile(l, i))
                continue;
            const char *sx, *sy;
            const struct GeGlobal *g = config__ge_conflict(l, x, y, &sx, &sy);
            if (!g)
                continue;
            REPORT(l, ny, TNG177, "this max-autotune compile gives GE the session option %s = \"%s\" (%s), but the compile at line %u "
                   "gives it \"%s\": GE is initialised once per process, with the options of the graph that runs first, and TorchAir "
                   "raises ValueError (Unsupport twice initialtion with different options) when the other first runs; give both configs the same %s",
                   g->option, sy, g->field, l->ast->nodes[nx].line, sx, g->field);
            REPORT_AS(SEV_NOTE, l, nx, TNG177, "this compile gives GE %s = \"%s\", the compile at line %u \"%s\": whichever runs second raises",
                      g->option, sx, l->ast->nodes[ny].line, sy);
            break;
        }
    }
}

void lint_config_pairs(Lint *l)
{
    for (size_t c = 0; c < l->sf->compiles.n; c++)
        config__cache_backend(l, &l->sf->compiles.v[c]);
    config__ge_sessions(l);
}
