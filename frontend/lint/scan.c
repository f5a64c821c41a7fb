/*
 * scan.c - the annotation scanner. One walk over a file, in program order,
 * finds every TorchAir annotation (resolved through the file's imports, or
 * unresolved when only the final name matches), the with-scopes enclosing
 * it, its function, and its arguments; and it records the module facts
 * lint rules need: CompilerConfig objects and their fields, backends,
 * torch.compile / cache_compile calls, example tensors and the calls that
 * pass them to compiled code.
 *
 * The walk is an abstract interpretation in miniature: each function has a
 * frame mapping names (and dotted names such as self.config) to abstract
 * values. Module-level code runs first, then function bodies (which see the
 * final state of enclosing frames), so with-scopes never leak into a def.
 */
#include "scan.h"

#include <stdlib.h>
#include <string.h>

/* Statement/expression nesting deeper than this is reported (TNG002) and
 * skipped; CPython itself refuses far shallower code (its limit is ~200). */
#define SCAN_MAX_DEPTH 1000
/* Syntax errors reported per file before the rest are summarised. */
#define SCAN_MAX_SYNTAX 20

const char *const ann_kind_name[ANN__count] = {
#define X(k) #k,
    ANN_KINDS(X)
#undef X
};

/* The annotation each TorchAir entry point is (its canonical callee paths,
 * after alias_normalise, are the ALIAS_SCAN rows of alias.c's table,
 * shared with the lowering; torchair.ops.npu_stream_switch & co. are gone:
 * alias_api_status). */
static const AnnKind ann_of_api[TA__COUNT] = {
    [TA_SUPER_KERNEL] = ANN_super_kernel,
    [TA_NPU_STREAM_SWITCH] = ANN_npu_stream_switch,
    [TA_NPU_WAIT_TENSOR] = ANN_npu_wait_tensor,
    [TA_LIMIT_CORE_NUM] = ANN_limit_core_num,
    [TA_OP_NEVER_TIMEOUT] = ANN_op_never_timeout,
    [TA_SET_DIM_GEARS] = ANN_set_dim_gears,
    [TA_MARK_STATIC] = ANN_mark_static,
    [TA_CACHE_COMPILE] = ANN_cache_compile,
    [TA_COMPILER_CONFIG] = ANN_compiler_config,
    [TA_GET_NPU_BACKEND] = ANN_get_npu_backend,
    [TA_TORCH_COMPILE] = ANN_torch_compile,
    [TA_NPU_PRINT] = ANN_npu_print,
    [TA_OPS_WAIT] = ANN_ops_wait,
    [TA_CREATE_TAGGED_EVENT] = ANN_tagged_event,
    [TA_TAGGED_OP] = ANN_tagged_op,
};

/* Final names that make a call a candidate (reported resolved: false when
 * the callee does not resolve). torch.compile's "compile" is too common
 * (re.compile) to be a candidate. */
static const struct { const char *name; AnnKind kind; } ann_names[] = {
    {"super_kernel", ANN_super_kernel},
    {"npu_stream_switch", ANN_npu_stream_switch},
    {"NpuStreamSwitch", ANN_npu_stream_switch},
    {"npu_wait_tensor", ANN_npu_wait_tensor},
    {"limit_core_num", ANN_limit_core_num},
    {"set_dim_gears", ANN_set_dim_gears},
    {"mark_static", ANN_mark_static},
    {"cache_compile", ANN_cache_compile},
    {"CompilerConfig", ANN_compiler_config},
    {"get_npu_backend", ANN_get_npu_backend},
    {"op_never_timeout", ANN_op_never_timeout},
};

/* Parameter names, for reporting positional arguments by name. */
static const char *const ann_params[ANN__count][4] = {
    [ANN_super_kernel] = {"scope", "options"},
    [ANN_npu_stream_switch] = {"stream_tag", "stream_priority", "enable_inner_parallel"},
    [ANN_npu_wait_tensor] = {"self", "dependency"},
    [ANN_limit_core_num] = {"op_aicore_num", "op_vectorcore_num"},
    [ANN_set_dim_gears] = {"t", "dim_gears"},
    [ANN_mark_static] = {"t", "index"},
    [ANN_cache_compile] = {"func"},
    [ANN_get_npu_backend] = {"compiler_config", "custom_decompositions"},
    [ANN_torch_compile] = {"model"},
    [ANN_op_never_timeout] = {"enable"},
    [ANN_ops_wait] = {"tensors"},
    [ANN_tagged_event] = {"tag"},
};

static int scan__ann_kind_of_path(const char *path)
{
    char buf[512];
    int api = alias_torchair_api(alias_normalise(path, buf, sizeof buf), ALIAS_SCAN);
    return api < 0 ? -1 : (int)ann_of_api[api];
}

static int scan__ann_kind_of_name(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof ann_names / sizeof *ann_names; i++)
        if (strlen(ann_names[i].name) == len && memcmp(ann_names[i].name, name, len) == 0)
            return (int)ann_names[i].kind;
    return -1;
}

/* ---- abstract values ---- */

typedef enum ValKind {
    VAL_UNKNOWN,
    VAL_CONFIG,     /* idx: Config */
    VAL_BACKEND,    /* idx: Config, CONFIG_DEFAULT or CONFIG_UNKNOWN */
    VAL_COMPILED,   /* idx: Compile */
    VAL_TENSOR,     /* idx: Tensor */
    VAL_INSTANCE,   /* idx: Class */
    VAL_SCOPE,      /* idx: Annotation opening a with-scope */
    VAL_FUNCTION,   /* idx: Function (the name a def binds: a plain function) */
    VAL_METHOD,     /* idx: Function (obj.method of an instance of a class of this file) */
    VAL_CLASS,      /* idx: Class (the name a class statement binds) */
} ValKind;

typedef struct Val {
    ValKind kind;
    int idx;
    int cond;       /* only on one branch of a conditional expression */
    int32_t call;   /* VAL_BACKEND: the get_npu_backend call of this file that
                     * made it; 0 when not seen (node 0 is the module) */
} Val;

static const Val UNKNOWN = {VAL_UNKNOWN, 0, 0, 0};

typedef struct Frame Frame;
struct Frame {
    StrMap vars;    /* name or dotted name -> Val* */
    Frame *parent;
    int is_function;  /* a def's locals: they shadow imports */
    int is_class;     /* a class body: invisible to its methods */
};

typedef struct Pending {
    int func;
    Frame *parent;
} Pending;

typedef struct Scanner {
    ScanFile *sf;
    const Ast *ast;
    Arena *arena;
    AliasTable *aliases;
    ConstTable *consts;
    StrMap methods;          /* "<class index>.method" -> Function index + 1 */
    StrMap *self_attrs;      /* per class: "self.x" -> Val*, shared by its methods */
    VEC(Frame *) frames;     /* all frames, freed at the end */
    Frame *frame;
    int func, cls;
    VEC(int) scopes;
    VEC(uint8_t) scope_cond;
    VEC(Pending) queue;
    int depth;
    int deep_reported;
    int non_ascii;           /* TNG003s reported: the file is not analysed further */
    ScanModules *mods;       /* the run's modules, NULL: imports are not followed */
    StrMap imported;         /* "<module>:<config>" -> int*: its copy in this file */
} Scanner;

static Val scan__visit(Scanner *s, int32_t n);

static char *scan__text(Scanner *s, int32_t n)
{
    size_t len;
    const char *t = ast_text(s->ast, n, &len);
    return arena_strndup(s->arena, t, len);
}

/* The lookup key of a name or a chain of attributes of names, or NULL. */
static char *scan__key(Scanner *s, int32_t n)
{
    const Ast *ast = s->ast;
    int32_t m = n;
    while (m >= 0 && ast->nodes[m].kind == NK_attribute)
        m = ast_field(ast, m, F_object);
    if (m < 0 || ast->nodes[m].kind != NK_identifier)
        return NULL;
    size_t len;
    const char *t = ast_text(ast, n, &len);
    char *out = arena_alloc(s->arena, len + 1);
    size_t j = 0;
    int in_comment = 0;
    for (size_t i = 0; i < len; i++) {
        char c = t[i];
        if (c == '#')
            in_comment = 1;
        else if (c == '\n')
            in_comment = 0;
        if (!in_comment && c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\\')
            out[j++] = c;
    }
    out[j] = 0;
    return out;
}

static Frame *scan__frame_new(Scanner *s, Frame *parent)
{
    Frame *f = xcalloc(1, sizeof *f);
    f->parent = parent;
    VEC_PUSH(s->frames, f);
    return f;
}

static void scan__bind(Scanner *s, const char *key, Val v)
{
    Val *slot = arena_alloc(s->arena, sizeof *slot);
    *slot = v;
    strmap_put(&s->frame->vars, key, slot);
    if (s->cls >= 0 && !strncmp(key, "self.", 5) && v.kind != VAL_UNKNOWN)
        strmap_put(&s->self_attrs[s->cls], key, slot);
}

static Val scan__lookup(Scanner *s, const char *key)
{
    for (Frame *f = s->frame; f; f = f->parent) {
        Val *v = strmap_get(&f->vars, key);
        if (v)
            return *v;
    }
    if (s->cls >= 0 && !strncmp(key, "self.", 5)) {   /* set in another method */
        Val *v = strmap_get(&s->self_attrs[s->cls], key);
        if (v)
            return *v;
    }
    return UNKNOWN;
}

/* True when name is a parameter, local variable, def or class of the
 * current def or of a def enclosing it (which shadows an import of the
 * same name). */
static int scan__is_local(Scanner *s, const char *name)
{
    for (Frame *f = s->frame; f; f = f->parent)
        if (f->is_function && strmap_get(&f->vars, name))
            return 1;
    return 0;
}

/* The leftmost name of an attribute chain, or NULL. */
static char *scan__root_name(Scanner *s, int32_t n)
{
    while (n >= 0 && s->ast->nodes[n].kind == NK_attribute)
        n = ast_field(s->ast, n, F_object);
    return n >= 0 && s->ast->nodes[n].kind == NK_identifier ? scan__text(s, n) : NULL;
}

/* A V_STR or V_EXPR value of text, written at node. */
static Value *scan__text_value(Scanner *s, ValueKind kind, int32_t node, const char *text)
{
    Value *v = arena_alloc(s->arena, sizeof *v);
    v->kind = kind;
    v->node = node;
    v->s = text;
    v->len = strlen(text);
    return v;
}

/* ---- pre-pass: classes, functions, suppressions, syntax errors ---- */

static int32_t scan__enclosing_def(const Ast *ast, int32_t n, int *is_class)
{
    for (int32_t p = ast->nodes[n].parent; p >= 0; p = ast->nodes[p].parent) {
        if (ast->nodes[p].kind == NK_function_definition || ast->nodes[p].kind == NK_class_definition) {
            *is_class = ast->nodes[p].kind == NK_class_definition;
            return p;
        }
    }
    return -1;
}

static const char *scan__qualname(Scanner *s, int32_t n)
{
    const Ast *ast = s->ast;
    int32_t name = ast_field(ast, n, F_name);
    const char *own = name >= 0 ? scan__text(s, name) : "?";
    int is_class;
    int32_t outer = scan__enclosing_def(ast, n, &is_class);
    if (outer < 0)
        return own;
    return arena_printf(s->arena, "%s.%s", scan__qualname(s, outer), own);
}

static void scan__suppression(Scanner *s, int32_t n)
{
    size_t len;
    const char *t = ast_text(s->ast, n, &len);
    static const char tag[] = "tngc: ignore[";
    for (size_t i = 0; i + sizeof tag - 1 <= len; i++) {
        if (memcmp(t + i, tag, sizeof tag - 1) != 0)
            continue;
        size_t j = i + sizeof tag - 1;
        while (j < len && t[j] != ']') {
            while (j < len && (t[j] == ' ' || t[j] == ','))
                j++;
            size_t k = j;
            while (k < len && t[k] != ',' && t[k] != ']' && t[k] != ' ')
                k++;
            for (int r = 0; r < RULE__count; r++)
                if (strlen(rule_info[r].id) == k - j && memcmp(rule_info[r].id, t + j, k - j) == 0)
                    VEC_PUSH(s->sf->suppressions, ((Suppression){s->ast->nodes[n].line, (RuleId)r}));
            j = k;
        }
        return;
    }
}

static void scan__syntax_error(Scanner *s, int32_t n, int *count)
{
    const Ast *ast = s->ast;
    if (++*count > SCAN_MAX_SYNTAX)
        return;
    if (ast->refused) {   /* past the parser's memory bound: a limit, not a syntax error */
        diag_node(&s->sf->diags, ast, n, ast->over_budget ? RULE_TNG212 : RULE_TNG001, "%s", ast->refused);
        return;
    }
    if (*count == SCAN_MAX_SYNTAX) {
        diag_node(&s->sf->diags, ast, n, RULE_TNG001, "too many syntax errors; the rest are not shown");
        return;
    }
    if (ast->nodes[n].flags & NODE_MISSING) {
        const char *sym = ast_symbol_name(ast, n);
        if (strcmp(sym, "string_end") == 0)
            diag_node(&s->sf->diags, ast, n, RULE_TNG001, "unterminated string");
        else if (ast->nodes[n].flags & NODE_NAMED)
            diag_node(&s->sf->diags, ast, n, RULE_TNG001, "expected %s", sym);
        else
            diag_node(&s->sf->diags, ast, n, RULE_TNG001, "expected '%s'", sym);
        return;
    }
    size_t len;
    const char *t = ast_text(ast, n, &len);
    size_t show = 0;
    while (show < len && show < 24 && t[show] != '\n' && t[show] != '\r' &&
           (unsigned char)t[show] >= 0x20 && t[show] != 0x7f)
        show++;
    if (show == 0)
        diag_node(&s->sf->diags, ast, n, RULE_TNG001, "invalid syntax");
    else
        diag_node(&s->sf->diags, ast, n, RULE_TNG001, "invalid syntax at '%.*s%s'", (int)show, t,
                  show < len && t[show] != '\n' ? "..." : "");
}

/* A keyword given twice in one call or class bases, `f(a=1, a=3)`: CPython
 * refuses the file ("SyntaxError: keyword argument repeated"), so it is a
 * syntax error (TNG001) at the second keyword. */
static void scan__repeated_keywords(Scanner *s, int32_t args, int *count)
{
    const Ast *ast = s->ast;
    StrMap seen = {0};
    for (int32_t c = ast->nodes[args].first; c >= 0; c = ast->nodes[c].next) {
        if (ast->nodes[c].kind != NK_keyword_argument)
            continue;
        int32_t name = ast_field(ast, c, F_name);
        if (name < 0 || ast->nodes[name].kind != NK_identifier)
            continue;
        char *k = scan__text(s, name);
        if (!strmap_get(&seen, k)) {
            strmap_put(&seen, k, (void *)1);
        } else if (++*count <= SCAN_MAX_SYNTAX) {
            diag_node(&s->sf->diags, ast, c, RULE_TNG001, "keyword argument repeated: '%s' (CPython "
                      "refuses the file: SyntaxError)", k);
        }
    }
    strmap_free(&seen);
}

/* An identifier that may not be its own NFKC normal form (TNG003).
 * CPython reads identifiers in NFKC (PEP 3131): `ｘ` (fullwidth) and `x`
 * are one name to Python. tngc compares names byte for byte and has no
 * Unicode table to normalise them, so such a name would silently be a
 * second variable, attribute, keyword or module: the file is refused
 * instead. Names of ASCII and of letters known to be NFKC-normal
 * (source_ident_unstable: CJK, kana, Hangul, Latin-1, Greek, Cyrillic)
 * are fine, and so is any text in strings and comments. */
static void scan__non_ascii_identifier(Scanner *s, int32_t n)
{
    size_t len;
    const char *t = ast_text(s->ast, n, &len);
    uint32_t c = source_ident_unstable(t, len);
    if (!c)
        return;
    if (++s->non_ascii > SCAN_MAX_SYNTAX)
        return;
    if (s->non_ascii == SCAN_MAX_SYNTAX) {
        diag_node(&s->sf->diags, s->ast, n, RULE_TNG003, "too many such identifiers; the rest are not shown");
        return;
    }
    size_t show = len;   /* at most 64 bytes of the name, cut before a UTF-8 sequence */
    if (show > 64) {
        show = 64;
        while (show > 0 && ((unsigned char)t[show] & 0xc0) == 0x80)
            show--;
    }
    char cp[16] = "a byte";
    if (c < 0x110000)
        snprintf(cp, sizeof cp, "U+%04X", (unsigned)c);
    diag_node(&s->sf->diags, s->ast, n, RULE_TNG003,
              "identifier '%.*s%s' has %s, which Python may read as another character (it normalises "
              "names to NFKC, PEP 3131; tngc does not): spell it in ASCII (the file is not analysed further)",
              (int)show, t, show < len ? "..." : "", cp);
}

/* Marks the error nodes to report: the innermost ones (an ERROR node of
 * tree-sitter's recovery may wrap half a file; what is wrong lies in the
 * error nodes inside it), the first on each line. */
static uint8_t *scan__errors_to_report(const Ast *ast)
{
    if (!ast->has_error)
        return NULL;
    uint8_t *inner = xcalloc(ast->n, 1);   /* 1: has an error node below it */
    for (uint32_t i = ast->n; i-- > 1;) {
        const Node *nd = &ast->nodes[i];
        if (nd->parent >= 0 && ((nd->flags & (NODE_ERROR | NODE_MISSING)) || inner[i]))
            inner[nd->parent] = 1;
    }
    uint32_t last_line = 0;
    for (uint32_t i = 0; i < ast->n; i++) {   /* pre-order: by position */
        const Node *nd = &ast->nodes[i];
        int report = (nd->flags & (NODE_ERROR | NODE_MISSING)) && !inner[i] && nd->line != last_line;
        if (report)
            last_line = nd->line;
        inner[i] = (uint8_t)report;
    }
    return inner;
}

static void scan__prepass(Scanner *s)
{
    const Ast *ast = s->ast;
    ScanFile *sf = s->sf;
    int syntax = 0;
    uint8_t *report = scan__errors_to_report(ast);
    for (uint32_t i = 0; i < ast->n; i++) {
        const Node *nd = &ast->nodes[i];
        int32_t n = (int32_t)i;
        if (nd->kind == NK_comment) {
            scan__suppression(s, n);
        } else if (report && report[i]) {
            scan__syntax_error(s, n, &syntax);
        } else if (nd->kind == NK_identifier) {
            scan__non_ascii_identifier(s, n);
        } else if (nd->kind == NK_argument_list) {
            scan__repeated_keywords(s, n, &syntax);
        } else if (nd->kind == NK_class_definition) {
            int32_t name = ast_field(ast, n, F_name);
            if (name < 0)
                continue;
            Class c = {scan__text(s, name), scan__qualname(s, n), n, TRI_UNKNOWN};
            VEC_PUSH(sf->classes, c);
        } else if (nd->kind == NK_function_definition) {
            int32_t name = ast_field(ast, n, F_name);
            Function f = {0};
            f.node = n;
            f.name = name >= 0 ? scan__text(s, name) : "?";
            f.qualname = scan__qualname(s, n);
            f.cls = -1;
            int is_class;
            int32_t outer = scan__enclosing_def(ast, n, &is_class);
            if (outer >= 0 && is_class) {
                for (size_t c = sf->classes.n; c-- > 0;)
                    if (sf->classes.v[c].node == outer) {
                        f.cls = (int)c;
                        break;
                    }
            }
            if (nd->parent >= 0 && ast->nodes[nd->parent].kind == NK_decorated_definition)
                for (int32_t c = ast->nodes[nd->parent].first; c >= 0; c = ast->nodes[c].next)
                    f.ndecorators += ast->nodes[c].kind == NK_decorator;
            VEC_PUSH(sf->funcs, f);
            if (f.cls >= 0)   /* a class defining a name twice: the last def wins */
                strmap_put(&s->methods, arena_printf(s->arena, "%d.%s", f.cls, f.name),
                           (void *)(intptr_t)sf->funcs.n);
        }
    }
    free(report);
}

/* The Function index of a function_definition node (functions are in node order). */
static int scan__func_of_node(Scanner *s, int32_t n)
{
    size_t lo = 0, hi = s->sf->funcs.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->sf->funcs.v[mid].node < n)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->sf->funcs.n && s->sf->funcs.v[lo].node == n ? (int)lo : -1;
}

static int scan__method(Scanner *s, int cls, const char *name)
{
    if (cls < 0)
        return -1;
    char key[64 + 256];
    if (strlen(name) > 256)
        return -1;
    snprintf(key, sizeof key, "%d.%s", cls, name);
    return (int)(intptr_t)strmap_get(&s->methods, key) - 1;
}

/* ---- calls ---- */

typedef struct CallArgs {
    VEC(int32_t) pos;
    VEC(int32_t) kw_name;
    VEC(int32_t) kw_value;
    VEC(Val) pos_val;
    VEC(Val) kw_val;
    VEC(int32_t) splat;      /* *x and **x arguments */
} CallArgs;

static void scan__args(Scanner *s, int32_t args, CallArgs *ca)
{
    const Ast *ast = s->ast;
    if (args < 0)
        return;
    if (ast->nodes[args].kind != NK_argument_list) {   /* f(x for x in y) */
        scan__visit(s, args);
        return;
    }
    for (int32_t c = ast->nodes[args].first; c >= 0; c = ast->nodes[c].next) {
        const Node *cn = &ast->nodes[c];
        if (!(cn->flags & NODE_NAMED) || cn->kind == NK_comment)
            continue;
        if (cn->kind == NK_keyword_argument) {
            int32_t name = ast_field(ast, c, F_name), value = ast_field(ast, c, F_value);
            Val v = value >= 0 ? scan__visit(s, value) : UNKNOWN;
            if (name >= 0 && value >= 0) {
                VEC_PUSH(ca->kw_name, name);
                VEC_PUSH(ca->kw_value, value);
                VEC_PUSH(ca->kw_val, v);
            }
        } else if (cn->kind == NK_list_splat || cn->kind == NK_dictionary_splat) {
            scan__visit(s, c);
            VEC_PUSH(ca->splat, c);
        } else {
            Val v = scan__visit(s, c);
            VEC_PUSH(ca->pos, c);
            VEC_PUSH(ca->pos_val, v);
        }
    }
}

static void scan__args_free(CallArgs *ca)
{
    VEC_FREE(ca->pos);
    VEC_FREE(ca->kw_name);
    VEC_FREE(ca->kw_value);
    VEC_FREE(ca->pos_val);
    VEC_FREE(ca->kw_val);
    VEC_FREE(ca->splat);
}

/* The node and abstract value of argument `name` at position pos (-1: keyword only). */
static int32_t scan__arg(Scanner *s, const CallArgs *ca, int pos, const char *name, Val *val)
{
    for (size_t i = 0; i < ca->kw_name.n; i++)
        if (ast_text_is(s->ast, ca->kw_name.v[i], name)) {
            if (val)
                *val = ca->kw_val.v[i];
            return ca->kw_value.v[i];
        }
    if (pos >= 0 && (size_t)pos < ca->pos.n) {
        if (val)
            *val = ca->pos_val.v[pos];
        return ca->pos.v[pos];
    }
    if (val)
        *val = UNKNOWN;
    return -1;
}

static Tri scan__tri(Scanner *s, int32_t n)
{
    if (n < 0)
        return TRI_DEFAULT;
    Value *v = value_of(s->ast, s->consts, n, s->arena);
    if (v->kind == V_BOOL)
        return v->i ? TRI_TRUE : TRI_FALSE;
    if (v->kind == V_NONE)
        return TRI_DEFAULT;
    return TRI_UNKNOWN;
}

static int scan__new_annotation(Scanner *s, AnnKind kind, int resolved, int32_t node,
                                const char *callee, const CallArgs *ca)
{
    Annotation a = {0};
    a.kind = kind;
    a.resolved = resolved;
    a.node = node;
    a.func = s->func;
    a.cls = s->func < 0 || s->frame->is_class ? s->cls : -1;   /* in a class body */
    a.callee = callee;
    if (ca) {
        size_t n = ca->pos.n + ca->kw_name.n + ca->splat.n;
        a.args = arena_alloc(s->arena, (n ? n : 1) * sizeof *a.args);
        for (size_t i = 0; i < ca->pos.n; i++) {
            /* an unresolved callee's signature is unknown: arg0, arg1, ... */
            const char *pname = i < 4 && resolved ? ann_params[kind][i] : NULL;
            a.args[a.nargs].name = pname ? pname : arena_printf(s->arena, "arg%zu", i);
            a.args[a.nargs++].value = value_of(s->ast, s->consts, ca->pos.v[i], s->arena);
        }
        a.npos = a.nargs;
        for (size_t i = 0; i < ca->kw_name.n; i++) {
            a.args[a.nargs].name = scan__text(s, ca->kw_name.v[i]);
            a.args[a.nargs++].value = value_of(s->ast, s->consts, ca->kw_value.v[i], s->arena);
        }
        for (size_t i = 0; i < ca->splat.n; i++) {   /* f(*x, **y): reported as "*", "**" */
            int32_t sp = ca->splat.v[i], inner = ast_named_child(s->ast, sp, 0);
            a.args[a.nargs].name = s->ast->nodes[sp].kind == NK_list_splat ? "*" : "**";
            a.args[a.nargs++].value = value_of(s->ast, NULL, inner >= 0 ? inner : sp, s->arena);
        }
    }
    a.nscopes = s->scopes.n;
    if (a.nscopes) {
        a.scopes = arena_alloc(s->arena, a.nscopes * sizeof *a.scopes);
        a.scope_cond = arena_alloc(s->arena, a.nscopes);
        memcpy(a.scopes, s->scopes.v, a.nscopes * sizeof *a.scopes);
        memcpy(a.scope_cond, s->scope_cond.v, a.nscopes);
    }
    VEC_PUSH(s->sf->anns, a);
    return (int)s->sf->anns.n - 1;
}

/* The binding slot a name has now, or NULL when it has none. */
static const Val *scan__slot(Scanner *s, const char *name)
{
    for (Frame *f = s->frame; f; f = f->parent) {
        Val *v = strmap_get(&f->vars, name);
        if (v)
            return v;
    }
    return NULL;
}

/* The key of a tensor reached from a name by attributes and literal
 * indices (prompt[0].data, inputs[1][0], batch["ids"]), or NULL for any
 * other expression. The key names the binding the root name has now, so
 * the same text after that name is assigned again is another tensor. */
static char *scan__indexed_key(Scanner *s, int32_t n)
{
    const Ast *ast = s->ast;
    int32_t m = n;
    int indexed = 0;
    for (int depth = 0; m >= 0 && depth < 16; depth++) {
        if (ast->nodes[m].kind == NK_attribute) {
            m = ast_field(ast, m, F_object);
        } else if (ast->nodes[m].kind == NK_subscript) {
            int32_t idx = ast_field(ast, m, F_subscript);
            if (idx < 0 || (ast->nodes[idx].kind != NK_integer && ast->nodes[idx].kind != NK_string))
                return NULL;
            for (int32_t c = ast->nodes[idx].next; c >= 0; c = ast->nodes[c].next)
                if (ast->nodes[c].field == F_subscript)
                    return NULL;   /* a[1, 2] */
            indexed = 1;
            m = ast_field(ast, m, F_value);
        } else {
            break;
        }
    }
    if (!indexed || m < 0 || ast->nodes[m].kind != NK_identifier)
        return NULL;
    size_t len;
    const char *t = ast_text(ast, n, &len);
    for (size_t i = 0; i < len; i++)
        if (t[i] == '\n' || t[i] == '#')
            return NULL;   /* one line, no comment: the text is the key */
    return arena_printf(s->arena, "%p %.*s", (const void *)scan__slot(s, scan__text(s, m)), (int)len, t);
}

/* The tensor an argument names; a name not yet known becomes a tensor of
 * unknown rank (a parameter, say), so later uses of it are the same tensor.
 * So does a name's element by a literal index (prompt[0].data). */
static int scan__tensor_arg(Scanner *s, int32_t n, Val v)
{
    if (v.kind == VAL_TENSOR)
        return v.idx;
    if (n < 0 || v.kind != VAL_UNKNOWN)
        return -1;
    char *key = scan__key(s, n);
    if (!key && (key = scan__indexed_key(s, n)) != NULL) {
        Val known = scan__lookup(s, key);
        if (known.kind == VAL_TENSOR)
            return known.idx;
    }
    if (!key)
        return -1;
    Tensor t = {n, -1, NULL};
    VEC_PUSH(s->sf->tensors, t);
    int idx = (int)s->sf->tensors.n - 1;
    scan__bind(s, key, (Val){VAL_TENSOR, idx, 0, 0});
    return idx;
}

/* The function a compile target denotes: Model() / model -> Model.forward,
 * obj.method / self.method -> Class.method, a def's name -> that def. */
static int scan__compile_target(Scanner *s, int32_t n, Val v)
{
    if (v.kind == VAL_INSTANCE)
        return scan__method(s, v.idx, "forward");
    if (v.kind == VAL_FUNCTION || v.kind == VAL_METHOD)
        return v.idx;
    if (n >= 0 && s->ast->nodes[n].kind == NK_attribute) {
        int32_t obj = ast_field(s->ast, n, F_object), attr = ast_field(s->ast, n, F_attribute);
        if (obj >= 0 && attr >= 0 && ast_text_is(s->ast, obj, "self"))
            return scan__method(s, s->cls, scan__text(s, attr));
    }
    return -1;
}

/* True when the identifier t names the first parameter of the def being
 * scanned, and that def is an undecorated method written directly in its
 * class's body: the instance the method is called on (self). */
static int scan__is_self_param(Scanner *s, int32_t t)
{
    const Ast *ast = s->ast;
    if (ast->nodes[t].kind != NK_identifier || s->func < 0)
        return 0;
    const Function *f = &s->sf->funcs.v[s->func];
    if (f->cls < 0 || f->ndecorators)
        return 0;
    int32_t block = ast->nodes[f->node].parent;
    if (block < 0 || ast->nodes[block].parent != s->sf->classes.v[f->cls].node)
        return 0;
    int32_t params = ast_field(ast, f->node, F_parameters);
    int32_t first = params >= 0 ? ast_named_child(ast, params, 0) : -1;
    if (first < 0 || ast->nodes[first].kind != NK_identifier)
        return 0;
    size_t n1, n2;
    const char *a = ast_text(ast, first, &n1), *b = ast_text(ast, t, &n2);
    return n1 == n2 && !memcmp(a, b, n1);
}

/* What a cache_compile target provably is when it is not a bound method
 * of a torch.nn.Module (TorchAir checks both, _cache_compiler.py:612-616),
 * or NULL when it may be one (self.m, model.forward, a parameter, a call).
 * A module itself (self in one of its methods, an instance or a class of
 * this file) is not a method: isinstance(func, types.MethodType) fails. */
static const char *scan__not_module_method(Scanner *s, int32_t t, Val v)
{
    const Ast *ast = s->ast;
    while (t >= 0 && ast->nodes[t].kind == NK_parenthesized_expression)
        t = ast_named_child(ast, t, 0);
    if (t < 0)
        return NULL;
    if (v.kind == VAL_UNKNOWN && scan__is_self_param(s, t))
        return arena_printf(s->arena, "the %s instance %s itself, not one of its methods",
                            s->sf->classes.v[s->sf->funcs.v[s->func].cls].qualname, scan__text(s, t));
    if (v.kind == VAL_INSTANCE)
        return arena_printf(s->arena, "an instance of %s, not one of its methods", s->sf->classes.v[v.idx].qualname);
    if (v.kind == VAL_CLASS)
        return arena_printf(s->arena, "the class %s", s->sf->classes.v[v.idx].qualname);
    if (ast->nodes[t].kind == NK_lambda)
        return "a lambda";
    if (ast->nodes[t].kind == NK_call) {
        const char *p = alias_resolve(s->aliases, ast, ast_field(ast, t, F_function), s->arena);
        return p && !strcmp(p, "functools.partial") ? "a functools.partial object" : NULL;
    }
    if (v.kind == VAL_FUNCTION && !s->sf->funcs.v[v.idx].ndecorators)
        return arena_printf(s->arena, "the plain function %s", s->sf->funcs.v[v.idx].qualname);
    if (v.kind == VAL_METHOD) {
        int cls = s->sf->funcs.v[v.idx].cls;
        if (cls >= 0 && s->sf->classes.v[cls].module == TRI_FALSE)
            return arena_printf(s->arena, "a method of %s, which does not derive from torch.nn.Module",
                                s->sf->classes.v[cls].qualname);
    }
    return NULL;
}

/* The CompilerConfig of the npugraph_ex package, or the one that
 * torch.npu.npugraph_ex.inference.cache_compile makes: mode npugraph_ex. */
static int scan__npugraph_ex_config(Scanner *s, int32_t call)
{
    Config c = {0};
    c.node = call;
    c.npugraph_ex = 1;
    Value *mode = scan__text_value(s, V_STR, call, "npugraph_ex");
    ConfigField f = {"mode", mode, call, NULL};
    VEC_PUSH(c.fields, f);
    VEC_PUSH(s->sf->configs, c);
    return (int)s->sf->configs.n - 1;
}

/* The config of a compile from its config= (cache_compile) or a backend
 * (get_npu_backend's compiler_config=, cache_compile's backend=):
 * package is "torchair", "npugraph_ex" (whose default config has mode
 * npugraph_ex) or "torch.npu.npugraph_ex" (which forces that mode). */
static int scan__config_of(Scanner *s, int32_t call, const char *package, int32_t n, Val v)
{
    if (!strcmp(package, "torch.npu.npugraph_ex"))
        return scan__npugraph_ex_config(s, call);
    if (v.kind == VAL_CONFIG)
        return v.idx;
    if (n >= 0 && s->ast->nodes[n].kind != NK_none)
        return CONFIG_UNKNOWN;
    return !strcmp(package, "npugraph_ex") ? scan__npugraph_ex_config(s, call) : CONFIG_DEFAULT;
}

/* The package of a canonical callee: torchair, npugraph_ex or torch.npu.npugraph_ex. */
static const char *scan__package(const char *callee)
{
    char buf[512];
    const char *p = alias_normalise(callee, buf, sizeof buf);
    if (!strncmp(p, "npugraph_ex.", 12))
        return "npugraph_ex";
    if (!strncmp(p, "torch.npu.npugraph_ex.", 22))
        return "torch.npu.npugraph_ex";
    return "torchair";
}

static Val scan__compile(Scanner *s, int ann, int is_cache, const CallArgs *ca)
{
    Compile c = {0};
    c.ann = ann;
    c.is_cache = is_cache;
    c.func = -1;
    Val target;
    c.target = scan__arg(s, ca, 0, is_cache ? "func" : "model", &target);
    c.func = scan__compile_target(s, c.target, target);
    c.target_is_function = target.kind == VAL_FUNCTION;
    if (is_cache)
        c.not_module_method = scan__not_module_method(s, c.target, target);
    c.dynamic = scan__tri(s, scan__arg(s, ca, -1, "dynamic", NULL));
    c.fullgraph = scan__tri(s, scan__arg(s, ca, -1, "fullgraph", NULL));
    c.backend_config = CONFIG_UNKNOWN;
    c.backend_call = -1;
    if (is_cache) {
        const Annotation *a = &s->sf->anns.v[ann];
        Val cfg, be;
        int32_t cn = scan__arg(s, ca, -1, "config", &cfg);
        int32_t bn = scan__arg(s, ca, -1, "backend", &be);
        c.torchair = 1;
        if ((cn < 0 || s->ast->nodes[cn].kind == NK_none) && bn >= 0 && s->ast->nodes[bn].kind != NK_none)
            /* config taken from the backend (_cache_compiler.py:609-610) */
            c.config = be.kind == VAL_BACKEND ? be.idx : CONFIG_UNKNOWN;
        else
            c.config = scan__config_of(s, a->node, scan__package(a->callee), cn, cfg);
        if (cn >= 0 && s->ast->nodes[cn].kind != NK_none && be.kind == VAL_BACKEND && !be.cond && !cfg.cond) {
            /* both given: TorchAir compares them (_cache_compiler.py:606-608) */
            c.backend_config = be.idx;
            c.backend_call = be.call > 0 ? be.call : -1;
        }
    } else {
        Val be;
        int32_t bn = scan__arg(s, ca, -1, "backend", &be);
        c.torchair = be.kind == VAL_BACKEND;
        c.config = be.kind == VAL_BACKEND ? be.idx : CONFIG_UNKNOWN;
        if (be.kind == VAL_BACKEND && be.call > 0)
            c.backend_call = be.call;
        if (bn >= 0 && be.kind == VAL_UNKNOWN && s->ast->nodes[bn].kind != NK_string)
            c.torchair = -1;   /* some backend we cannot see */
    }
    VEC_PUSH(s->sf->compiles, c);
    return (Val){VAL_COMPILED, (int)s->sf->compiles.n - 1, 0, 0};
}

static int scan__rank_of_size(Scanner *s, int32_t n)
{
    if (n < 0)
        return -1;
    Value *v = value_of(s->ast, s->consts, n, s->arena);
    if (v->kind == V_TUPLE || v->kind == V_LIST)
        return (int)v->nitems;
    if (v->kind == V_INT)
        return 1;
    return -1;
}

/* torch.ones(2, 3) / torch.ones((2, 3)) / randint(lo, hi, (2, 3)) / full((2, 3), v) */
static int scan__factory_rank(Scanner *s, const char *fn, const CallArgs *ca)
{
    int32_t size = scan__arg(s, ca, -1, "size", NULL);
    if (size >= 0)
        return scan__rank_of_size(s, size);
    if (!strcmp(fn, "randint"))
        return ca->pos.n ? scan__rank_of_size(s, ca->pos.v[ca->pos.n - 1]) : -1;
    if (!strcmp(fn, "full"))
        return ca->pos.n ? scan__rank_of_size(s, ca->pos.v[0]) : -1;
    if (ca->pos.n == 1) {
        Value *v = value_of(s->ast, s->consts, ca->pos.v[0], s->arena);
        if (v->kind == V_TUPLE || v->kind == V_LIST)
            return (int)v->nitems;
    }
    return ca->pos.n ? (int)ca->pos.n : -1;
}

/* The size a torch factory call makes, as a V_TUPLE / V_LIST of its dims,
 * or NULL (the same arguments scan__factory_rank reads). */
static const Value *scan__factory_size(Scanner *s, const char *fn, const CallArgs *ca)
{
    int32_t size = scan__arg(s, ca, -1, "size", NULL);
    if (size < 0 && !strcmp(fn, "randint") && ca->pos.n)
        size = ca->pos.v[ca->pos.n - 1];
    else if (size < 0 && (!strcmp(fn, "full") || ca->pos.n == 1) && ca->pos.n)
        size = ca->pos.v[0];
    if (size >= 0) {
        Value *v = value_of(s->ast, s->consts, size, s->arena);
        return v->kind == V_TUPLE || v->kind == V_LIST ? v : NULL;
    }
    if (!ca->pos.n || !strcmp(fn, "randint") || !strcmp(fn, "full"))
        return NULL;
    Value *v = arena_alloc(s->arena, sizeof *v);   /* torch.ones(2, 3) */
    memset(v, 0, sizeof *v);
    v->kind = V_TUPLE;
    v->node = -1;
    v->items = arena_alloc(s->arena, ca->pos.n * sizeof *v->items);
    for (size_t i = 0; i < ca->pos.n; i++)
        v->items[v->nitems++] = value_of(s->ast, s->consts, ca->pos.v[i], s->arena);
    return v;
}

static int scan__is_one_of(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(name, *list))
            return 1;
    return 0;
}

static const char *const tensor_factories[] = {"ones", "zeros", "randn", "rand", "empty", "full", "randint", NULL};
static const char *const tensor_same_rank[] = {"npu", "cuda", "cpu", "to", "contiguous", "float", "half",
                                               "bfloat16", "clone", "detach", "transpose", "permute",
                                               "requires_grad_", NULL};
static const char *const tensor_same_size[] = {"npu", "cuda", "cpu", "to", "contiguous", "float", "half",
                                               "bfloat16", "clone", "detach", "requires_grad_", NULL};
static const char *const module_same[] = {"npu", "cuda", "cpu", "to", "eval", "train", "half", "float",
                                          "bfloat16", "requires_grad_", NULL};
static const char *const graph_breakers[] = {"item", "tolist", "numpy", NULL};

static void scan__binding(Scanner *s, int compile, int cls, const char *method, int32_t call, const CallArgs *ca)
{
    Binding b = {0};
    b.compile = compile;
    b.cls = cls;
    b.method = method;
    b.node = call;
    b.tensors = arena_alloc(s->arena, (ca->pos.n + ca->kw_val.n + 1) * sizeof *b.tensors);
    for (size_t i = 0; i < ca->pos.n; i++) {
        int t = scan__tensor_arg(s, ca->pos.v[i], ca->pos_val.v[i]);
        if (t >= 0)
            b.tensors[b.ntensors++] = t;
    }
    for (size_t i = 0; i < ca->kw_val.n; i++) {
        int t = scan__tensor_arg(s, ca->kw_value.v[i], ca->kw_val.v[i]);
        if (t >= 0)
            b.tensors[b.ntensors++] = t;
    }
    VEC_PUSH(s->sf->bindings, b);
}

/* The parameter list entry of def named name: its positional index (-1
 * when keyword-only or *args / **kwargs) and default value node (-1). */
static int scan__param(Scanner *s, int32_t def, const char *name, int *index, int32_t *dflt)
{
    const Ast *ast = s->ast;
    int32_t params = ast_field(ast, def, F_parameters);
    int i = 0, kwonly = 0;
    for (int32_t c = params >= 0 ? ast->nodes[params].first : -1; c >= 0; c = ast->nodes[c].next) {
        NodeKind k = ast->nodes[c].kind;
        if (!(ast->nodes[c].flags & NODE_NAMED) || k == NK_comment || k == NK_positional_separator)
            continue;
        if (k == NK_keyword_separator || k == NK_list_splat_pattern || k == NK_dictionary_splat_pattern) {
            kwonly = 1;
            continue;
        }
        int32_t id = c;
        while (id >= 0 && ast->nodes[id].kind != NK_identifier)
            id = ast->nodes[id].first;
        if (id >= 0 && ast_text_is(ast, id, name)) {
            *index = kwonly ? -1 : i;
            *dflt = k == NK_default_parameter || k == NK_typed_default_parameter ? ast_field(ast, c, F_value) : -1;
            return 1;
        }
        i++;
    }
    return 0;
}

/* super_kernel(scope, options) inside a function whose parameter an
 * argument is: the values that argument takes at the function's calls in
 * this file (a plain function called by name, or a method called through
 * self), or the parameter's default, evaluated with the module's
 * constants. */
static void scan__arg_sources(Scanner *s, Annotation *a, const CallArgs *ca)
{
    static const char *const names[2] = {"scope", "options"};
    if (s->func < 0)
        return;
    const Ast *ast = s->ast;
    const Function *f = &s->sf->funcs.v[s->func];
    int method = f->cls >= 0;
    VEC(ArgSource) out = {0};
    for (int k = 0; k < 2; k++) {
        int32_t n = scan__arg(s, ca, k, names[k], NULL);
        int index;
        int32_t dflt;
        if (n < 0 || ast->nodes[n].kind != NK_identifier)
            continue;
        char *param = scan__text(s, n);
        if (!scan__param(s, f->node, param, &index, &dflt) || (method && index == 0))
            continue;
        for (size_t c = 0; c < ast->n; c++) {
            if (ast->nodes[c].kind != NK_call)
                continue;
            int32_t fn = ast_field(ast, (int32_t)c, F_function), args = ast_field(ast, (int32_t)c, F_arguments);
            int hit = 0;
            if (fn >= 0 && !method)
                hit = ast->nodes[fn].kind == NK_identifier && ast_text_is(ast, fn, f->name);
            else if (fn >= 0 && ast->nodes[fn].kind == NK_attribute) {
                int32_t obj = ast_field(ast, fn, F_object), attr = ast_field(ast, fn, F_attribute);
                hit = obj >= 0 && attr >= 0 && ast_text_is(ast, obj, "self") && ast_text_is(ast, attr, f->name);
            }
            if (!hit || args < 0 || ast->nodes[args].kind != NK_argument_list)
                continue;
            int32_t at = -1;
            int pos = 0, splat = 0, want = index < 0 ? -1 : index - method;
            for (int32_t g = ast->nodes[args].first; g >= 0; g = ast->nodes[g].next) {
                NodeKind gk = ast->nodes[g].kind;
                if (!(ast->nodes[g].flags & NODE_NAMED) || gk == NK_comment)
                    continue;
                if (gk == NK_list_splat || gk == NK_dictionary_splat)
                    splat = 1;
                else if (gk == NK_keyword_argument) {
                    int32_t kn = ast_field(ast, g, F_name);
                    if (kn >= 0 && ast_text_is(ast, kn, param))
                        at = ast_field(ast, g, F_value);
                } else if (pos++ == want && at < 0)
                    at = g;
            }
            if (at < 0 && splat)
                continue;
            if (at < 0)
                at = dflt;
            if (at < 0)
                continue;
            ArgSource src = {names[k], param, value_of(ast, s->consts, at, s->arena), (int32_t)c};
            VEC_PUSH(out, src);
        }
    }
    if (out.n) {
        a->sources = arena_alloc(s->arena, out.n * sizeof *a->sources);
        memcpy(a->sources, out.v, out.n * sizeof *a->sources);
        a->nsources = out.n;
    }
    VEC_FREE(out);
}

static Val scan__annotation_call(Scanner *s, AnnKind kind, int32_t call, const char *callee, const CallArgs *ca)
{
    int ann = scan__new_annotation(s, kind, 1, call, callee, ca);
    if (kind == ANN_super_kernel)
        scan__arg_sources(s, &s->sf->anns.v[ann], ca);
    Val v;
    switch (kind) {
    case ANN_compiler_config: {
        if (!strcmp(scan__package(callee), "npugraph_ex"))
            return (Val){VAL_CONFIG, scan__npugraph_ex_config(s, call), 0, 0};
        Config c = {0};
        c.node = call;
        VEC_PUSH(s->sf->configs, c);
        return (Val){VAL_CONFIG, (int)s->sf->configs.n - 1, 0, 0};
    }
    case ANN_get_npu_backend: {
        int32_t n = scan__arg(s, ca, 0, "compiler_config", &v);
        return (Val){VAL_BACKEND, scan__config_of(s, call, scan__package(callee), n, v), 0, call};
    }
    case ANN_torch_compile: return scan__compile(s, ann, 0, ca);
    case ANN_cache_compile: return scan__compile(s, ann, 1, ca);
    case ANN_set_dim_gears:
    case ANN_mark_static: {
        int32_t n = scan__arg(s, ca, 0, "t", &v);
        TensorAnn ta = {ann, scan__tensor_arg(s, n, v)};
        if (kind == ANN_set_dim_gears)
            VEC_PUSH(s->sf->gears, ta);
        else
            VEC_PUSH(s->sf->marks, ta);
        return UNKNOWN;
    }
    case ANN_super_kernel:
    case ANN_npu_stream_switch:
    case ANN_limit_core_num:
        return (Val){VAL_SCOPE, ann, 0, 0};
    case ANN_npu_wait_tensor:
        scan__arg(s, ca, 0, "self", &v);
        return v;
    default:
        return UNKNOWN;
    }
}

/* ---- names that TorchAir does not have ---- */

/* True when the subtree at root names path: a call or attribute chain
 * that resolves to it, or `from M import name` of it. */
static int scan__uses_path(Scanner *s, int32_t root, const char *path)
{
    const Ast *ast = s->ast;
    char buf[512];
    for (int32_t i = root; i < (int32_t)ast->n && (i == root || ast->nodes[i].parent >= root); i++) {
        NodeKind k = ast->nodes[i].kind;
        if (k == NK_attribute || (k == NK_identifier && ast->nodes[ast->nodes[i].parent].kind != NK_attribute)) {
            const char *p = alias_resolve(s->aliases, ast, i, s->arena);
            if (p && !strcmp(alias_normalise(p, buf, sizeof buf), path))
                return 1;
        } else if (k == NK_import_from_statement) {
            int32_t mod = ast_field(ast, i, F_module_name);
            if (mod < 0 || ast->nodes[mod].kind != NK_dotted_name)
                continue;
            char *m = scan__text(s, mod);
            for (int32_t c = ast->nodes[i].first; m && c >= 0; c = ast->nodes[c].next) {
                int32_t name = ast->nodes[c].kind == NK_aliased_import ? ast_field(ast, c, F_name) : c;
                if (ast->nodes[c].field != F_name || name < 0)
                    continue;
                const char *full = arena_printf(s->arena, "%s.%s", m, scan__text(s, name));
                if (!strcmp(alias_normalise(full, buf, sizeof buf), path))
                    return 1;
            }
        }
    }
    return 0;
}

/* True when the subtree at n calls hasattr() or getattr(). */
static int scan__probes_attr(Scanner *s, int32_t n)
{
    const Ast *ast = s->ast;
    for (int32_t i = n; n >= 0 && i < (int32_t)ast->n && (i == n || ast->nodes[i].parent >= n); i++)
        if (ast->nodes[i].kind == NK_call) {
            int32_t f = ast_field(ast, i, F_function);
            if (f >= 0 && (ast_text_is(ast, f, "hasattr") || ast_text_is(ast, f, "getattr")))
                return 1;
        }
    return 0;
}

/* True when the call n of a name TorchAir lacks only runs as a fallback:
 * its import sits in a try catching ImportError; it is in the body of a
 * try catching AttributeError; it is in a handler (ImportError,
 * AttributeError, Exception, bare) of a try whose body uses the current
 * name (replacement; any body when there is none); or it is behind a
 * hasattr()/getattr() test. */
static int scan__api_guarded(Scanner *s, int32_t n, const char *root, const char *replacement)
{
    const Ast *ast = s->ast;
    static const char catches[] = "ImportError\0ModuleNotFoundError\0AttributeError\0";
    if (root && alias_guarded(s->aliases, root))
        return 1;
    for (int32_t c = n, p = ast->nodes[n].parent; p >= 0; c = p, p = ast->nodes[p].parent) {
        NodeKind k = ast->nodes[p].kind;
        if (k == NK_function_definition || k == NK_class_definition)
            return 0;
        if (k == NK_try_statement && c == alias_try_body(ast, p)) {
            for (int32_t h = ast->nodes[p].first; h >= 0; h = ast->nodes[h].next)
                if (ast->nodes[h].kind == NK_except_clause && alias_handler_catches(ast, h, "AttributeError\0"))
                    return 1;
        } else if (k == NK_except_clause && alias_handler_catches(ast, p, catches)) {
            int32_t try_body = alias_try_body(ast, ast->nodes[p].parent);
            if (!replacement || (try_body >= 0 && scan__uses_path(s, try_body, replacement)))
                return 1;
        } else if ((k == NK_if_statement || k == NK_elif_clause || k == NK_while_statement) &&
                   scan__probes_attr(s, ast_field(ast, p, F_condition))) {
            return 1;
        } else if (k == NK_conditional_expression && scan__probes_attr(s, ast_named_child(ast, p, 1))) {
            return 1;
        } else if (k == NK_boolean_operator && scan__probes_attr(s, ast_field(ast, p, F_left))) {
            return 1;
        }
        if (k == NK_else_clause && ast->nodes[p].parent >= 0 &&
            ast->nodes[ast->nodes[p].parent].kind == NK_if_statement &&
            scan__probes_attr(s, ast_field(ast, ast->nodes[p].parent, F_condition)))
            return 1;
    }
    return 0;
}

/* call: function(arguments) */
static Val scan__call(Scanner *s, int32_t n)
{
    const Ast *ast = s->ast;
    int32_t fn = ast_field(ast, n, F_function);
    int32_t args = ast_field(ast, n, F_arguments);
    if (fn < 0)
        return UNKNOWN;
    Val recv = UNKNOWN;        /* the object of obj.method(...) */
    int32_t attr = -1;
    Val callee = UNKNOWN;
    if (ast->nodes[fn].kind == NK_attribute) {
        attr = ast_field(ast, fn, F_attribute);
        int32_t obj = ast_field(ast, fn, F_object);
        recv = obj >= 0 ? scan__visit(s, obj) : UNKNOWN;
        char *key = scan__key(s, fn);
        if (key)
            callee = scan__lookup(s, key);
    } else if (ast->nodes[fn].kind == NK_identifier) {
        callee = scan__lookup(s, scan__text(s, fn));
    } else {
        callee = scan__visit(s, fn);
    }
    CallArgs ca = {0};
    scan__args(s, args, &ca);
    Val result = UNKNOWN;
    char *root = scan__root_name(s, fn);
    const char *path = root && scan__is_local(s, root) ? NULL : alias_resolve(s->aliases, ast, fn, s->arena);
    int kind = path && (callee.kind == VAL_UNKNOWN || callee.kind == VAL_FUNCTION)
             ? scan__ann_kind_of_path(path) : -1;
    char nbuf[512];
    const char *replacement = NULL;
    const char *norm = kind < 0 && path && (callee.kind == VAL_UNKNOWN || callee.kind == VAL_FUNCTION)
                     ? alias_normalise(path, nbuf, sizeof nbuf) : NULL;
    ApiStatus api = norm ? alias_api_status(norm, &replacement) : API_OK;
    size_t flen = 0;
    const char *final = attr >= 0 ? ast_text(ast, attr, &flen)
                      : ast->nodes[fn].kind == NK_identifier ? ast_text(ast, fn, &flen) : NULL;
    const char *fname = final ? arena_strndup(s->arena, final, flen) : NULL;
    if (api != API_OK) {   /* wait(x, y) after `from torchair.ops import npu_wait_tensor as wait` */
        fname = arena_strndup(s->arena, strrchr(norm, '.') + 1, strlen(strrchr(norm, '.') + 1));
        flen = strlen(fname);
    }
    if (kind >= 0) {
        result = scan__annotation_call(s, (AnnKind)kind, n, path, &ca);
    } else if (fname && scan__ann_kind_of_name(fname, flen) >= 0) {
        int ann = scan__new_annotation(s, (AnnKind)scan__ann_kind_of_name(fname, flen), 0, n, scan__text(s, fn), &ca);
        if (api != API_OK) {   /* it raises: unresolved, but lint reports it (TNG170, TNG171) */
            Annotation *a = &s->sf->anns.v[ann];
            a->api = api;
            a->api_path = arena_strndup(s->arena, norm, strlen(norm));
            a->api_guarded = scan__api_guarded(s, n, root, replacement);
        }
    } else if (path && !strncmp(path, "torch.", 6) && scan__is_one_of(path + 6, tensor_factories)) {
        Tensor t = {n, scan__factory_rank(s, path + 6, &ca), scan__factory_size(s, path + 6, &ca)};
        VEC_PUSH(s->sf->tensors, t);
        result = (Val){VAL_TENSOR, (int)s->sf->tensors.n - 1, 0, 0};
    } else if (path && !strcmp(path, "torch_npu.npu_format_cast") && ca.pos.n &&
               ca.pos_val.v[0].kind == VAL_TENSOR) {
        Tensor t = {n, s->sf->tensors.v[ca.pos_val.v[0].idx].rank, NULL};
        VEC_PUSH(s->sf->tensors, t);
        result = (Val){VAL_TENSOR, (int)s->sf->tensors.n - 1, 0, 0};
    } else if (recv.kind == VAL_TENSOR && fname && scan__is_one_of(fname, tensor_same_rank)) {
        const Tensor *from = &s->sf->tensors.v[recv.idx];
        Tensor t = {n, from->rank, scan__is_one_of(fname, tensor_same_size) ? from->size : NULL};
        VEC_PUSH(s->sf->tensors, t);
        result = (Val){VAL_TENSOR, (int)s->sf->tensors.n - 1, 0, 0};
    } else if (recv.kind == VAL_INSTANCE && fname && scan__is_one_of(fname, module_same)) {
        result = recv;
    } else if (callee.kind == VAL_COMPILED) {
        scan__binding(s, callee.idx, -1, NULL, n, &ca);
    } else if (callee.kind == VAL_CLASS) {   /* Model(): the class the name is bound to here */
        result = (Val){VAL_INSTANCE, callee.idx, 0, 0};
    } else if (attr >= 0 && callee.kind == VAL_UNKNOWN) {
        int32_t obj = ast_field(ast, fn, F_object);
        int is_self = obj >= 0 && ast_text_is(ast, obj, "self") && s->cls >= 0;
        int cls = is_self ? s->cls : recv.kind == VAL_INSTANCE ? recv.idx : -1;
        if (cls >= 0)
            scan__binding(s, -1, cls, fname, n, &ca);
        if (is_self && s->func >= 0)
            VEC_PUSH(s->sf->funcs.v[s->func].self_calls, fname);
    }
    /* calls that break a torch.compile graph */
    if (s->func >= 0 && fname &&
        ((ast->nodes[fn].kind == NK_identifier && !path && !strcmp(fname, "print") &&
          callee.kind == VAL_UNKNOWN) ||
         (attr >= 0 && scan__is_one_of(fname, graph_breakers)) ||
         (path && !strcmp(path, "torch._dynamo.graph_break"))))
        VEC_PUSH(s->sf->funcs.v[s->func].graph_breaks, n);
    scan__args_free(&ca);
    return result;
}

/* ---- statements ---- */

static void scan__push_scope(Scanner *s, Val v)
{
    if (v.kind != VAL_SCOPE)
        return;
    s->sf->anns.v[v.idx].is_scope = 1;
    VEC_PUSH(s->scopes, v.idx);
    VEC_PUSH(s->scope_cond, (uint8_t)v.cond);
}

/* A with-item's value: a scope call, a variable holding one, a
 * conditional expression with one on a branch, or a parenthesised tuple. */
static void scan__with_value(Scanner *s, int32_t n)
{
    const Ast *ast = s->ast;
    NodeKind k = ast->nodes[n].kind;
    if (k == NK_as_pattern) {
        int32_t inner = ast_named_child(ast, n, 0);
        if (inner >= 0)
            scan__with_value(s, inner);
        return;
    }
    if (k == NK_tuple || k == NK_parenthesized_expression) {
        for (int32_t c = ast->nodes[n].first; c >= 0; c = ast->nodes[c].next)
            if ((ast->nodes[c].flags & NODE_NAMED) && ast->nodes[c].kind != NK_comment)
                scan__with_value(s, c);
        return;
    }
    scan__push_scope(s, scan__visit(s, n));
}

/* with_statement: with with_item, ...: block */
static void scan__with(Scanner *s, int32_t n)
{
    const Ast *ast = s->ast;
    size_t depth = s->scopes.n;
    for (int32_t c = ast->nodes[n].first; c >= 0; c = ast->nodes[c].next) {
        if (ast->nodes[c].kind == NK_with_clause) {
            for (int32_t item = ast->nodes[c].first; item >= 0; item = ast->nodes[item].next) {
                if (ast->nodes[item].kind != NK_with_item)
                    continue;
                int32_t value = ast_field(ast, item, F_value);
                if (value >= 0)
                    scan__with_value(s, value);
            }
        } else if (ast->nodes[c].field == F_body || ast->nodes[c].kind == NK_block) {
            scan__visit(s, c);
        }
    }
    s->scopes.n = s->scope_cond.n = depth;
}

/* Marks every name in an assignment target as unknown. */
static void scan__unbind_targets(Scanner *s, int32_t n)
{
    char *key = scan__key(s, n);
    if (key) {
        scan__bind(s, key, UNKNOWN);
        return;
    }
    for (int32_t c = s->ast->nodes[n].first; c >= 0; c = s->ast->nodes[c].next)
        if (s->ast->nodes[c].flags & NODE_NAMED)
            scan__unbind_targets(s, c);
}

/* True when statement n runs only on some paths of the code that made the
 * object at origin: under an if (not the main guard), loop or try that
 * does not also contain origin. */
static int scan__conditional(Scanner *s, int32_t n, int32_t origin)
{
    const Ast *ast = s->ast;
    for (int32_t p = ast->nodes[n].parent; p >= 0; p = ast->nodes[p].parent) {
        NodeKind k = ast->nodes[p].kind;
        if (k == NK_function_definition || k == NK_class_definition || k == NK_module)
            return 0;
        if (!(k == NK_if_statement || k == NK_for_statement || k == NK_while_statement ||
              k == NK_try_statement))
            continue;
        if (origin >= 0 && ast->nodes[origin].start >= ast->nodes[p].start &&
            ast->nodes[origin].end <= ast->nodes[p].end)
            return 0;
        if (k != NK_if_statement || !ast_is_main_guard(ast, p))
            return 1;
    }
    return 0;
}

/* config.a.b = value, where config holds a CompilerConfig: a config_option. */
static void scan__config_field(Scanner *s, int32_t assign, int32_t left, int32_t right)
{
    const Ast *ast = s->ast;
    int levels = 0;   /* config paths are short; long chains are not configs */
    for (int32_t obj = ast_field(ast, left, F_object); obj >= 0 && ast->nodes[obj].kind != NK_other &&
                                                       levels++ < 32;
         obj = ast_field(ast, obj, F_object)) {
        char *key = scan__key(s, obj);
        if (!key)
            return;
        Val v = scan__lookup(s, key);
        if (v.kind == VAL_CONFIG) {
            char *full = scan__key(s, left);
            const char *path = full + strlen(key) + 1;
            ConfigField f = {path, right >= 0 ? value_of(ast, s->consts, right, s->arena) : NULL, assign, NULL};
            if (f.value && scan__conditional(s, assign, s->sf->configs.v[v.idx].node))
                /* set on some paths only: its value is not known statically */
                f.value = scan__text_value(s, V_EXPR, right, scan__text(s, right));
            VEC_PUSH(s->sf->configs.v[v.idx].fields, f);
            int ann = scan__new_annotation(s, ANN_config_option, 1, assign, "CompilerConfig", NULL);
            Annotation *a = &s->sf->anns.v[ann];
            a->args = arena_alloc(s->arena, 3 * sizeof *a->args);
            a->args[0] = (Arg){"field", scan__text_value(s, V_STR, left, path)};
            a->args[1] = (Arg){"value", f.value};
            a->args[2] = (Arg){"config", scan__text_value(s, V_EXPR, obj, key)};
            a->nargs = 3;
            return;
        }
        if (ast->nodes[obj].kind != NK_attribute)
            return;
    }
}

/* assignment: left = right  |  left: type = right */
static void scan__assignment(Scanner *s, int32_t n)
{
    const Ast *ast = s->ast;
    int32_t left = ast_field(ast, n, F_left), right = ast_field(ast, n, F_right);
    Val v = right >= 0 ? scan__visit(s, right) : UNKNOWN;
    if (left < 0)
        return;
    if (ast->nodes[left].kind == NK_attribute) {
        int32_t obj = ast_field(ast, left, F_object);
        if (obj >= 0 && ast->nodes[obj].kind != NK_identifier && ast->nodes[obj].kind != NK_attribute)
            scan__visit(s, obj);
        scan__config_field(s, n, left, right);
    } else if (ast->nodes[left].kind != NK_identifier) {
        scan__visit(s, left);   /* subscripts: x[f()] = ... */
    }
    char *key = scan__key(s, left);
    if (key)
        scan__bind(s, key, v);
    else
        scan__unbind_targets(s, left);
}

static void scan__def(Scanner *s, int32_t n)
{
    int f = scan__func_of_node(s, n);
    if (f < 0)
        return;
    Pending p = {f, s->frame->is_class ? s->frame->parent : s->frame};
    VEC_PUSH(s->queue, p);
    /* default values are evaluated where the def is */
    int32_t params = ast_field(s->ast, n, F_parameters);
    if (params >= 0)
        scan__visit(s, params);
    scan__bind(s, s->sf->funcs.v[f].name, (Val){VAL_FUNCTION, f, 0, 0});
}

/* decorated_definition: @decorator ... def/class */
static void scan__decorated(Scanner *s, int32_t n)
{
    const Ast *ast = s->ast;
    int32_t def = ast_field(ast, n, F_definition);
    for (int32_t c = ast->nodes[n].first; c >= 0 && def < 0; c = ast->nodes[c].next)
        if (ast->nodes[c].kind == NK_function_definition || ast->nodes[c].kind == NK_class_definition)
            def = c;   /* past WIDE_CHILDREN decorators children carry no fields */
    int f = def >= 0 && ast->nodes[def].kind == NK_function_definition ? scan__func_of_node(s, def) : -1;
    Val compiled = UNKNOWN;
    for (int32_t c = ast->nodes[n].first; c >= 0; c = ast->nodes[c].next) {
        if (ast->nodes[c].kind != NK_decorator)
            continue;
        int32_t expr = ast_named_child(ast, c, 0);
        if (expr < 0)
            continue;
        Val v = scan__visit(s, expr);
        if (v.kind == VAL_UNKNOWN && ast->nodes[expr].kind != NK_call) {
            /* @torch.compile, @cache_compile without arguments */
            const char *path = alias_resolve(s->aliases, ast, expr, s->arena);
            int kind = path ? scan__ann_kind_of_path(path) : -1;
            if (kind == ANN_torch_compile || (kind == ANN_cache_compile && f >= 0)) {
                CallArgs none = {0};
                int ann = scan__new_annotation(s, (AnnKind)kind, 1, expr, path, &none);
                v = scan__compile(s, ann, kind == ANN_cache_compile, &none);
                /* @cache_compile: called with the plain function */
                s->sf->compiles.v[v.idx].decorator = kind == ANN_cache_compile;
            }
        }
        if (v.kind == VAL_COMPILED && f >= 0 && !s->sf->compiles.v[v.idx].is_cache) {
            if (s->sf->compiles.v[v.idx].func >= 0 && s->sf->compiles.v[v.idx].func != f) {
                /* one compile object decorating several defs: one record each */
                Compile copy = s->sf->compiles.v[v.idx];
                VEC_PUSH(s->sf->compiles, copy);
                v.idx = (int)s->sf->compiles.n - 1;
            }
            s->sf->compiles.v[v.idx].func = f;
            compiled = v;
        }
    }
    if (def >= 0)
        scan__visit(s, def);
    if (compiled.kind == VAL_COMPILED)   /* calls of the name run the compiled code */
        scan__bind(s, s->sf->funcs.v[f].name, compiled);
}

/* Whether one base class expression derives from torch.nn.Module. */
static Tri scan__base_module(Scanner *s, int32_t base)
{
    const Ast *ast = s->ast;
    NodeKind k = ast->nodes[base].kind;
    if (k == NK_keyword_argument) {   /* metaclass=...: anything may follow */
        scan__visit(s, ast_field(ast, base, F_value));
        return TRI_UNKNOWN;
    }
    Val v = scan__visit(s, base);
    if (v.kind == VAL_CLASS)
        return s->sf->classes.v[v.idx].module;
    if (k != NK_identifier && k != NK_attribute)
        return TRI_UNKNOWN;
    char *root = scan__root_name(s, base);
    const char *path = root && scan__is_local(s, root) ? NULL : alias_resolve(s->aliases, ast, base, s->arena);
    if (path && (!strcmp(path, "torch.nn.Module") || !strcmp(path, "torch.nn.modules.module.Module")))
        return TRI_TRUE;
    if (!path && v.kind == VAL_UNKNOWN && k == NK_identifier && ast_text_is(ast, base, "object"))
        return TRI_FALSE;
    return TRI_UNKNOWN;
}

/* Whether class n derives from torch.nn.Module, from its bases: one that
 * does makes it one; one tngc cannot see leaves it unknown; none, object
 * or classes of this file that provably are not make it provably not. */
static Tri scan__class_module(Scanner *s, int32_t n)
{
    int32_t supers = ast_field(s->ast, n, F_superclasses);
    Tri t = TRI_FALSE;
    if (supers < 0)
        return t;
    for (int32_t c = s->ast->nodes[supers].first; c >= 0; c = s->ast->nodes[c].next) {
        if (!(s->ast->nodes[c].flags & NODE_NAMED) || s->ast->nodes[c].kind == NK_comment)
            continue;
        Tri b = s->ast->nodes[c].kind == NK_list_splat || s->ast->nodes[c].kind == NK_dictionary_splat
              ? (scan__visit(s, c), TRI_UNKNOWN) : scan__base_module(s, c);
        if (b == TRI_TRUE || t == TRI_TRUE)
            t = TRI_TRUE;
        else if (b == TRI_UNKNOWN)
            t = TRI_UNKNOWN;
    }
    return t;
}

/* class_definition: bases, then the body walked in place (methods queued
 * with the class); then the name is bound where the class statement is,
 * like any assignment: a class defined in a def is that def's. */
static void scan__class(Scanner *s, int32_t n)
{
    int saved = s->cls, cls = -1;
    for (size_t c = 0; c < s->sf->classes.n && cls < 0; c++)
        if (s->sf->classes.v[c].node == n)
            cls = (int)c;
    if (cls < 0)
        return;
    s->sf->classes.v[cls].module = scan__class_module(s, n);
    s->cls = cls;
    int32_t body = ast_field(s->ast, n, F_body);
    Frame *outer = s->frame;
    s->frame = scan__frame_new(s, outer);
    s->frame->is_class = 1;
    if (body >= 0)
        scan__visit(s, body);
    s->frame = outer;
    s->cls = saved;
    scan__bind(s, s->sf->classes.v[cls].name, (Val){VAL_CLASS, cls, 0, 0});
}

static void scan__children(Scanner *s, int32_t n)
{
    for (int32_t c = s->ast->nodes[n].first; c >= 0; c = s->ast->nodes[c].next)
        if ((s->ast->nodes[c].flags & NODE_NAMED) && s->ast->nodes[c].kind != NK_comment)
            scan__visit(s, c);
}

static void scan__bind_params(Scanner *s, int32_t params);

/* lambda params: body -- runs when called: no enclosing scopes, own locals */
static void scan__lambda(Scanner *s, int32_t n)
{
    size_t nscopes = s->scopes.n;
    Frame *outer = s->frame;
    s->frame = scan__frame_new(s, outer);
    s->frame->is_function = 1;
    scan__bind_params(s, ast_field(s->ast, n, F_parameters));
    s->scopes.n = s->scope_cond.n = 0;
    scan__visit(s, ast_field(s->ast, n, F_body));
    s->scopes.n = s->scope_cond.n = nscopes;
    s->frame = outer;
}

/* ---- imports of the run's modules ---- */

/* Config idx of module m as a config of this file: copied once (its
 * fields keep naming the module that set them); CONFIG_DEFAULT and
 * CONFIG_UNKNOWN stay. */
static int scan__import_config(Scanner *s, const ScanFile *m, int idx)
{
    if (idx < 0 || (size_t)idx >= m->configs.n)
        return idx < 0 ? idx : CONFIG_UNKNOWN;
    const char *key = arena_printf(s->arena, "%p:%d", (const void *)m, idx);
    int *slot = strmap_get(&s->imported, key);
    if (slot)
        return *slot;
    const Config *from = &m->configs.v[idx];
    Config c = {0};
    c.node = -1;
    c.module = from->module ? from->module : m;
    c.npugraph_ex = from->npugraph_ex;
    for (size_t i = 0; i < from->fields.n; i++) {
        ConfigField f = from->fields.v[i];
        if (!f.module)
            f.module = m;
        VEC_PUSH(c.fields, f);
    }
    VEC_PUSH(s->sf->configs, c);
    slot = arena_alloc(s->arena, sizeof *slot);
    *slot = (int)s->sf->configs.n - 1;
    strmap_put(&s->imported, key, slot);
    return *slot;
}

/* Binds prefix + each config and backend module m exports ("mod." for
 * `import mod`, "" for a star import). */
static void scan__import_all(Scanner *s, const ScanFile *m, const char *prefix)
{
    for (size_t i = 0; i < m->exports.n; i++) {
        const ScanExport *e = &m->exports.v[i];
        if (!*prefix && e->name[0] == '_')
            continue;
        int cfg = scan__import_config(s, m, e->config);
        scan__bind(s, arena_printf(s->arena, "%s%s", prefix, e->name), (Val){e->backend ? VAL_BACKEND : VAL_CONFIG, cfg, 0, 0});
    }
}

/* An import statement n: the configs and backends of the modules it names
 * (found along the run's path, scanned once) bound as this file's. */
static void scan__import(Scanner *s, int32_t n)
{
    const Ast *ast = s->ast;
    const char *path = s->sf->src.path;
    if (ast->nodes[n].kind == NK_import_statement) {
        for (int32_t c = ast->nodes[n].first; c >= 0; c = ast->nodes[c].next) {
            if (ast->nodes[c].field != F_name)
                continue;
            int32_t name = c, alias = -1;
            if (ast->nodes[c].kind == NK_aliased_import) {
                name = ast_field(ast, c, F_name);
                alias = ast_field(ast, c, F_alias);
            }
            if (name < 0)
                continue;
            char *mname = scan__text(s, name);
            const ScanFile *m = mname ? scanmods_get(s->mods, path, mname, 0) : NULL;
            if (m)
                scan__import_all(s, m, arena_printf(s->arena, "%s.", alias >= 0 ? scan__text(s, alias) : mname));
        }
        return;
    }
    int32_t mn = ast_field(ast, n, F_module_name);
    if (mn < 0)
        return;
    int level = 0;
    const char *mname = NULL;
    if (ast->nodes[mn].kind == NK_relative_import) {
        const char *text = scan__text(s, mn);
        level = (int)strspn(text, ".");
        for (int32_t c = ast->nodes[mn].first; c >= 0; c = ast->nodes[c].next)
            if (ast->nodes[c].kind == NK_dotted_name)
                mname = scan__text(s, c);
    } else {
        mname = scan__text(s, mn);
    }
    const ScanFile *m = mname ? scanmods_get(s->mods, path, mname, level) : NULL;
    for (int32_t c = ast->nodes[n].first; c >= 0; c = ast->nodes[c].next) {
        if (ast->nodes[c].kind == NK_wildcard_import) {
            if (m)
                scan__import_all(s, m, "");
            continue;
        }
        if (ast->nodes[c].field != F_name)
            continue;
        int32_t name = c, alias = -1;
        if (ast->nodes[c].kind == NK_aliased_import) {
            name = ast_field(ast, c, F_name);
            alias = ast_field(ast, c, F_alias);
        }
        if (name < 0)
            continue;
        const char *nm = scan__text(s, name);
        const char *bound = alias >= 0 ? scan__text(s, alias) : nm;
        const ScanExport *e = NULL;
        for (size_t i = 0; m && i < m->exports.n && !e; i++)
            if (!strcmp(m->exports.v[i].name, nm))
                e = &m->exports.v[i];
        if (e) {
            scan__bind(s, bound, (Val){e->backend ? VAL_BACKEND : VAL_CONFIG, scan__import_config(s, m, e->config), 0, 0});
            continue;
        }
        /* from pkg import mod, from . import mod: a submodule */
        const char *sub = mname ? arena_printf(s->arena, "%s.%s", mname, nm) : nm;
        const ScanFile *sm = scanmods_get(s->mods, path, sub, level);
        if (sm)
            scan__import_all(s, sm, arena_printf(s->arena, "%s.", bound));
    }
}

static Val scan__visit(Scanner *s, int32_t n)
{
    const Ast *ast = s->ast;
    if (n < 0)
        return UNKNOWN;
    if (s->depth >= SCAN_MAX_DEPTH) {
        if (!s->deep_reported)
            diag_node(&s->sf->diags, ast, n, RULE_TNG002,
                      "nesting deeper than %d levels; annotations inside are not analysed", SCAN_MAX_DEPTH);
        s->deep_reported = 1;
        return UNKNOWN;
    }
    s->depth++;
    Val v = UNKNOWN;
    switch ((NodeKind)ast->nodes[n].kind) {
    case NK_call: v = scan__call(s, n); break;
    case NK_identifier: v = scan__lookup(s, scan__text(s, n)); break;
    case NK_attribute: {
        char *key = scan__key(s, n);
        Val o = UNKNOWN;   /* the object, when it is not a name: Helper().run */
        if (key)
            v = scan__lookup(s, key);
        else
            o = scan__visit(s, ast_field(ast, n, F_object));
        if (v.kind == VAL_UNKNOWN) {
            /* obj.method of a known class, as a compile target */
            int32_t obj = ast_field(ast, n, F_object), attr = ast_field(ast, n, F_attribute);
            char *okey = key && obj >= 0 ? scan__key(s, obj) : NULL;
            if (okey)
                o = scan__lookup(s, okey);
            if (o.kind == VAL_INSTANCE && attr >= 0) {
                int m = scan__method(s, o.idx, scan__text(s, attr));
                if (m >= 0)
                    v = (Val){VAL_METHOD, m, 0, 0};
            }
        }
        break;
    }
    case NK_parenthesized_expression: {
        int32_t inner = ast_named_child(ast, n, 0);
        v = scan__visit(s, inner);
        break;
    }
    case NK_conditional_expression: {
        /* a if cond else b: a scope on either branch is a conditional scope */
        Val branch[3] = {UNKNOWN, UNKNOWN, UNKNOWN};
        int i = 0;
        for (int32_t c = ast->nodes[n].first; c >= 0; c = ast->nodes[c].next)
            if ((ast->nodes[c].flags & NODE_NAMED) && ast->nodes[c].kind != NK_comment) {
                Val b = scan__visit(s, c);
                if (i < 3)
                    branch[i++] = b;
            }
        v = branch[0].kind == VAL_SCOPE ? branch[0] : branch[2];
        if (v.kind == VAL_SCOPE)
            v.cond = 1;
        else
            v = UNKNOWN;
        break;
    }
    case NK_assignment: scan__assignment(s, n); break;
    case NK_augmented_assignment: {
        scan__visit(s, ast_field(ast, n, F_right));
        int32_t left = ast_field(ast, n, F_left);
        if (left >= 0)
            scan__unbind_targets(s, left);
        break;
    }
    case NK_with_statement: scan__with(s, n); break;
    case NK_lambda: scan__lambda(s, n); break;
    case NK_function_definition: scan__def(s, n); break;
    case NK_decorated_definition: scan__decorated(s, n); break;
    case NK_class_definition: scan__class(s, n); break;
    case NK_string:   /* f-strings: their interpolations are code */
        for (int32_t c = ast->nodes[n].first; c >= 0; c = ast->nodes[c].next)
            if (ast->nodes[c].kind == NK_interpolation)
                scan__children(s, c);
        break;
    case NK_import_statement:
    case NK_import_from_statement:
        if (s->mods)
            scan__import(s, n);
        break;
    case NK_comment:
    case NK_integer:
    case NK_float:
        break;
    default: scan__children(s, n); break;
    }
    s->depth--;
    return v;
}

/* Binds each parameter name as an unknown local. */
static void scan__bind_params(Scanner *s, int32_t params)
{
    if (params < 0)
        return;
    for (int32_t c = s->ast->nodes[params].first; c >= 0; c = s->ast->nodes[c].next) {
        int32_t name = c;
        while (name >= 0 && s->ast->nodes[name].kind != NK_identifier)
            name = s->ast->nodes[name].first;   /* default/typed/splat: the name comes first */
        if (name >= 0 && s->ast->nodes[name].kind == NK_identifier)
            scan__bind(s, scan__text(s, name), UNKNOWN);
    }
}

/* Walks a queued def's parameters and body in a frame of its own. */
static void scan__function(Scanner *s, const Pending *p)
{
    Function *f = &s->sf->funcs.v[p->func];
    s->func = p->func;
    s->cls = f->cls;
    s->frame = scan__frame_new(s, p->parent);
    s->frame->is_function = 1;
    s->scopes.n = s->scope_cond.n = 0;
    scan__bind_params(s, ast_field(s->ast, f->node, F_parameters));
    int32_t body = ast_field(s->ast, f->node, F_body);
    s->depth = 0;   /* a fresh C stack: each def is walked from the queue */
    scan__visit(s, body);
}

static int scan__file(ScanFile *self, ScanModules *mods, Sink *sink);

int scanfile_load(ScanFile *self, const char *path, Sink *sink)
{
    return scanfile_load_with(self, path, NULL, sink);
}

int scanfile_load_with(ScanFile *self, const char *path, ScanModules *mods, Sink *sink)
{
    memset(self, 0, sizeof *self);
    if (source_load(&self->src, path, sink) != 0)
        return -1;
    return scan__file(self, mods, sink);
}

int scanfile_load_text(ScanFile *self, const char *path, const char *text, size_t len, Sink *sink)
{
    memset(self, 0, sizeof *self);
    if (source_from_text(&self->src, path, text, len, sink) != 0)
        return -1;
    return scan__file(self, NULL, sink);
}

/* The module-level names of the file bound to configs and backends, for
 * the files that import it (ScanFile.exports). */
static void scan__exports(Scanner *s)
{
    const StrMap *vars = &s->frame->vars;
    for (size_t i = 0; i < vars->cap; i++) {
        const Val *v = vars->keys && vars->keys[i] ? vars->vals[i] : NULL;
        if (!v || v->cond || strchr(vars->keys[i], '.') || (v->kind != VAL_CONFIG && v->kind != VAL_BACKEND))
            continue;
        ScanExport e = {vars->keys[i], v->kind == VAL_BACKEND, v->idx};
        VEC_PUSH(s->sf->exports, e);
    }
}

/* Parses and scans self->src (loaded); frees it when the parser fails. */
static int scan__file(ScanFile *self, ScanModules *mods, Sink *sink)
{
    if (ast_parse(&self->ast, &self->src) != 0) {
        sink_file_error(sink, self->src.path, "the parser failed on this file");
        source_free(&self->src);
        return -1;
    }
    Scanner s = {0};
    s.sf = self;
    s.ast = &self->ast;
    s.arena = &self->arena;
    s.aliases = alias_build(s.ast, s.arena);
    s.consts = const_build(s.ast, s.arena);
    s.func = s.cls = -1;
    s.mods = mods;
    scan__prepass(&s);
    s.self_attrs = xcalloc(self->classes.n + 1, sizeof *s.self_attrs);
    s.frame = scan__frame_new(&s, NULL);
    if (!s.non_ascii) {   /* a non-ASCII name would be misread: nothing is analysed */
        scan__visit(&s, 0);
        scan__exports(&s);
        for (size_t i = 0; i < s.queue.n; i++) {
            Pending p = s.queue.v[i];
            scan__function(&s, &p);
        }
    }
    for (size_t i = 0; i < s.frames.n; i++) {
        strmap_free(&s.frames.v[i]->vars);
        free(s.frames.v[i]);
    }
    VEC_FREE(s.frames);
    VEC_FREE(s.queue);
    VEC_FREE(s.scopes);
    VEC_FREE(s.scope_cond);
    for (size_t i = 0; i < self->classes.n; i++)
        strmap_free(&s.self_attrs[i]);
    free(s.self_attrs);
    strmap_free(&s.methods);
    strmap_free(&s.imported);
    alias_free(s.aliases);
    const_free(s.consts);
    return 0;
}

void scanfile_free(ScanFile *self)
{
    for (size_t i = 0; i < self->funcs.n; i++) {
        VEC_FREE(self->funcs.v[i].graph_breaks);
        VEC_FREE(self->funcs.v[i].self_calls);
    }
    for (size_t i = 0; i < self->configs.n; i++)
        VEC_FREE(self->configs.v[i].fields);
    VEC_FREE(self->anns);
    VEC_FREE(self->funcs);
    VEC_FREE(self->classes);
    VEC_FREE(self->configs);
    VEC_FREE(self->compiles);
    VEC_FREE(self->tensors);
    VEC_FREE(self->gears);
    VEC_FREE(self->marks);
    VEC_FREE(self->bindings);
    VEC_FREE(self->suppressions);
    VEC_FREE(self->exports);
    diag_free(&self->diags);
    ast_free(&self->ast);
    source_free(&self->src);
    arena_free(&self->arena);
}

const Value *ann_arg(const Annotation *self, const char *name)
{
    for (size_t i = 0; i < self->nargs; i++)
        if (!strcmp(self->args[i].name, name))
            return self->args[i].value;
    return NULL;
}
