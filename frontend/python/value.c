/*
 * value.c - the literal value of an argument expression: Python literals,
 * tuples, lists, dicts, negative numbers, concatenated strings, and names
 * of module-level constants (assigned once, to a literal). Everything else
 * is V_EXPR carrying its source text.
 */
#include "python.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Deeper literals than this are reported as expressions. */
#define VALUE_MAX_DEPTH 200
/* Larger literals too: constants built of constants (A1 = (A0, A0), ...)
 * would otherwise grow exponentially. */
#define VALUE_MAX_SIZE 100000

struct ConstTable {
    StrMap names;    /* name -> ConstEntry */
    StrMap locals;   /* "<def node>" -> StrMap of the names a def binds */
    VEC(StrMap *) local_maps;
};

typedef struct ConstEntry {
    int32_t rhs;     /* the assigned expression, -1 if not a constant */
    Value *value;    /* its value, once computed */
} ConstEntry;

/* 1 when n is a statement executed at module level (not in a def/class);
 * 2 when it runs there only on some paths (under an if other than the main
 * guard, a loop, a try or a with). */
static int value__at_module_level(const Ast *ast, int32_t n)
{
    for (int32_t p = ast->nodes[n].parent; p >= 0; p = ast->nodes[p].parent) {
        NodeKind k = ast->nodes[p].kind;
        if (k == NK_function_definition || k == NK_class_definition || k == NK_lambda)
            return 0;
    }
    for (int32_t p = ast->nodes[n].parent; p >= 0; p = ast->nodes[p].parent) {
        NodeKind k = ast->nodes[p].kind;
        if (k == NK_for_statement || k == NK_while_statement || k == NK_try_statement ||
            k == NK_with_statement)
            return 2;
        if (k == NK_if_statement && !ast_is_main_guard(ast, p))
            return 2;
    }
    return 1;
}

static void const__bind(ConstTable *t, const Ast *ast, int32_t name, int32_t rhs, Arena *arena)
{
    size_t len;
    const char *s = ast_text(ast, name, &len);
    char *key = arena_strndup(arena, s, len);
    ConstEntry *e = strmap_get(&t->names, key);
    if (e) {
        e->rhs = -1;
        return;
    }
    e = arena_alloc(arena, sizeof *e);
    e->rhs = rhs;
    strmap_put(&t->names, key, e);
}

/* Marks every identifier inside target n as assigned (unknown value). */
static void const__bind_targets(ConstTable *t, const Ast *ast, int32_t n, Arena *arena)
{
    if (ast->nodes[n].kind == NK_identifier) {
        const__bind(t, ast, n, -1, arena);
        const__bind(t, ast, n, -1, arena);
        return;
    }
    if (ast->nodes[n].kind == NK_attribute || ast->nodes[n].kind == NK_other)
        return;
    for (int32_t c = ast->nodes[n].first; c >= 0; c = ast->nodes[c].next)
        const__bind_targets(t, ast, c, arena);
}

ConstTable *const_build(const Ast *ast, Arena *arena)
{
    ConstTable *t = xcalloc(1, sizeof *t);
    for (uint32_t i = 0; i < ast->n; i++) {
        const Node *nd = &ast->nodes[i];
        if (nd->kind == NK_global_statement) {
            for (int32_t c = nd->first; c >= 0; c = ast->nodes[c].next)
                if (ast->nodes[c].kind == NK_identifier)
                    const__bind_targets(t, ast, c, arena);
            continue;
        }
        if (nd->kind == NK_for_statement && value__at_module_level(ast, (int32_t)i)) {
            int32_t target = ast_field(ast, (int32_t)i, F_left);
            if (target >= 0)
                const__bind_targets(t, ast, target, arena);
            continue;
        }
        if (nd->kind != NK_assignment && nd->kind != NK_augmented_assignment)
            continue;
        int level = value__at_module_level(ast, (int32_t)i);
        if (!level)
            continue;
        int32_t left = ast_field(ast, (int32_t)i, F_left);
        int32_t right = ast_field(ast, (int32_t)i, F_right);
        if (left < 0)
            continue;
        if (level == 1 && nd->kind == NK_assignment && ast->nodes[left].kind == NK_identifier && right >= 0 &&
            ast->nodes[right].kind != NK_assignment)
            const__bind(t, ast, left, right, arena);
        else
            const__bind_targets(t, ast, left, arena);
    }
    return t;
}

void const_free(ConstTable *self)
{
    if (!self)
        return;
    strmap_free(&self->names);
    for (size_t i = 0; i < self->local_maps.n; i++) {
        strmap_free(self->local_maps.v[i]);
        free(self->local_maps.v[i]);
    }
    VEC_FREE(self->local_maps);
    strmap_free(&self->locals);
    free(self);
}

/* ---- literals ---- */

static Value *value__new(Arena *a, ValueKind k, int32_t node)
{
    Value *v = arena_alloc(a, sizeof *v);
    v->kind = k;
    v->node = node;
    v->size = 1;
    return v;
}

static Value *value__expr(const Ast *ast, int32_t n, Arena *a)
{
    Value *v = value__new(a, V_EXPR, n);
    size_t len;
    const char *s = ast_text(ast, n, &len);
    v->s = arena_strndup(a, s, len);
    v->len = len;
    return v;
}

/* Copies the number at n into buf without its '_' separators; returns
 * the length, or 0 for an imaginary literal (3j) or one too long for buf. */
static size_t value__number_text(const Ast *ast, int32_t n, char *buf, size_t cap)
{
    size_t len, j = 0;
    const char *s = ast_text(ast, n, &len);
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '_')
            continue;
        if (j + 1 >= cap || s[i] == 'j' || s[i] == 'J')
            return 0;
        buf[j++] = s[i];
    }
    buf[j] = 0;
    return j;
}

/* integer: 10, 0x1F, 0o17, 0b101, 1_000 */
static Value *value__int(const Ast *ast, int32_t n, Arena *a)
{
    char buf[80];
    size_t j = value__number_text(ast, n, buf, sizeof buf);
    if (!j)
        return value__expr(ast, n, a);
    int base = 10;
    const char *digits = buf;
    if (j > 1 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
        base = 16, digits += 2;
    else if (j > 1 && buf[0] == '0' && (buf[1] == 'o' || buf[1] == 'O'))
        base = 8, digits += 2;
    else if (j > 1 && buf[0] == '0' && (buf[1] == 'b' || buf[1] == 'B'))
        base = 2, digits += 2;
    errno = 0;
    char *end;
    long long x = strtoll(digits, &end, base);
    if (errno || *end || end == digits)
        return value__expr(ast, n, a);
    Value *v = value__new(a, V_INT, n);
    v->i = x;
    return v;
}

static Value *value__float(const Ast *ast, int32_t n, Arena *a)
{
    char buf[128];
    if (!value__number_text(ast, n, buf, sizeof buf))
        return value__expr(ast, n, a);
    char *end;
    double d = strtod(buf, &end);
    if (*end || !isfinite(d))
        return value__expr(ast, n, a);
    Value *v = value__new(a, V_FLOAT, n);
    v->f = d;
    return v;
}

static int value__hex(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static void value__put_utf8(StrBuf *sb, unsigned long cp)
{
    if (cp < 0x80) {
        sb_putc(sb, (char)cp);
    } else if (cp < 0x800) {
        sb_putc(sb, (char)(0xC0 | (cp >> 6)));
        sb_putc(sb, (char)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        sb_putc(sb, (char)(0xE0 | (cp >> 12)));
        sb_putc(sb, (char)(0x80 | ((cp >> 6) & 0x3F)));
        sb_putc(sb, (char)(0x80 | (cp & 0x3F)));
    } else {
        sb_putc(sb, (char)(0xF0 | (cp >> 18)));
        sb_putc(sb, (char)(0x80 | ((cp >> 12) & 0x3F)));
        sb_putc(sb, (char)(0x80 | ((cp >> 6) & 0x3F)));
        sb_putc(sb, (char)(0x80 | (cp & 0x3F)));
    }
}

/* Decodes Python escapes of a non-raw string body into sb. Returns 0 when
 * an escape needs the Unicode database (\N{...}): the caller gives up. */
static int value__unescape(const char *s, size_t n, StrBuf *sb)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\' || i + 1 == n) {
            sb_putc(sb, s[i]);
            continue;
        }
        char c = s[++i];
        int digits = 0;
        switch (c) {
        case '\n': break;
        case '\\': sb_putc(sb, '\\'); break;
        case '\'': sb_putc(sb, '\''); break;
        case '"': sb_putc(sb, '"'); break;
        case 'a': sb_putc(sb, '\a'); break;
        case 'b': sb_putc(sb, '\b'); break;
        case 'f': sb_putc(sb, '\f'); break;
        case 'n': sb_putc(sb, '\n'); break;
        case 'r': sb_putc(sb, '\r'); break;
        case 't': sb_putc(sb, '\t'); break;
        case 'v': sb_putc(sb, '\v'); break;
        case 'x': digits = 2; break;
        case 'u': digits = 4; break;
        case 'U': digits = 8; break;
        case 'N': return 0;
        default:
            if (c >= '0' && c <= '7') {
                unsigned long cp = (unsigned long)(c - '0');
                for (int k = 0; k < 2 && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7'; k++)
                    cp = cp * 8 + (unsigned long)(s[++i] - '0');
                value__put_utf8(sb, cp);
            } else {
                sb_putc(sb, '\\');
                sb_putc(sb, c);
            }
            break;
        }
        if (digits) {
            unsigned long cp = 0;
            for (int k = 0; k < digits; k++) {
                if (i + 1 >= n || value__hex(s[i + 1]) < 0)
                    return 0;
                cp = cp * 16 + (unsigned long)value__hex(s[++i]);
            }
            if (cp > 0x10FFFF)
                return 0;
            value__put_utf8(sb, cp);
        }
    }
    return 1;
}

int value_unescape(const char *s, size_t n, StrBuf *out)
{
    return value__unescape(s, n, out);
}

/* string: a plain or raw str literal; f-strings and bytes are expressions. */
static Value *value__string(const Ast *ast, int32_t n, Arena *a)
{
    int32_t start = -1, end = -1;
    for (int32_t c = ast->nodes[n].first; c >= 0; c = ast->nodes[c].next) {
        if (ast->nodes[c].kind == NK_interpolation || (ast->nodes[c].flags & NODE_ERROR))
            return value__expr(ast, n, a);
        if (ast->nodes[c].kind == NK_string_start)
            start = c;
        if (ast->nodes[c].kind == NK_string_end)
            end = c;
    }
    if (start < 0 || end < 0 || (ast->nodes[end].flags & NODE_MISSING))
        return value__expr(ast, n, a);
    size_t plen;
    const char *prefix = ast_text(ast, start, &plen);
    int raw = 0;
    for (size_t i = 0; i < plen; i++) {
        char c = prefix[i];
        if (c == 'b' || c == 'B' || c == 'f' || c == 'F' || c == 't' || c == 'T')
            return value__expr(ast, n, a);
        if (c == 'r' || c == 'R')
            raw = 1;
    }
    const char *body = ast->src->text + ast->nodes[start].end;
    size_t blen = ast->nodes[end].start - ast->nodes[start].end;
    StrBuf sb = {0};
    if (raw)
        sb_putn(&sb, body, blen);
    else if (!value__unescape(body, blen, &sb)) {
        sb_free(&sb);
        return value__expr(ast, n, a);
    }
    Value *v = value__new(a, V_STR, n);
    v->s = arena_strndup(a, sb.s ? sb.s : "", sb.len);
    v->len = sb.len;
    sb_free(&sb);
    return v;
}

static Value *value__of(const Ast *ast, const ConstTable *consts, int32_t n, Arena *a, int depth);

/* True when the identifier at n names a parameter or a variable assigned in
 * the def or lambda around it: the module constant is then not what it is. */
static int value__locally_bound(const Ast *ast, const ConstTable *consts, int32_t n, Arena *a)
{
    int32_t f = ast->nodes[n].parent;
    while (f >= 0 && ast->nodes[f].kind != NK_function_definition && ast->nodes[f].kind != NK_lambda)
        f = ast->nodes[f].parent;
    if (f < 0)
        return 0;
    ConstTable *t = (ConstTable *)consts;   /* the cache is not part of its meaning */
    char key[16];
    snprintf(key, sizeof key, "%d", (int)f);
    StrMap *names = strmap_get(&t->locals, key);
    if (!names) {   /* the names f binds, computed once per def */
        names = xcalloc(1, sizeof *names);
        VEC_PUSH(t->local_maps, names);
        strmap_put(&t->locals, arena_strndup(a, key, strlen(key)), names);
        /* nodes are in pre-order: f's descendants follow it */
        for (uint32_t i = (uint32_t)f + 1; i < ast->n && ast->nodes[i].start < ast->nodes[f].end; i++) {
            const Node *nd = &ast->nodes[i];
            if (nd->kind != NK_identifier || nd->parent < 0)
                continue;
            const Node *p = &ast->nodes[nd->parent];
            if ((nd->field == F_left || nd->field == F_name || p->kind == NK_parameters ||
                 p->kind == NK_pattern_list || (p->kind == NK_lambda && nd->field == F_parameters) ||
                 (p->kind == NK_other && p->parent >= 0 && ast->nodes[p->parent].kind == NK_parameters)) &&
                !(p->kind == NK_keyword_argument || p->kind == NK_function_definition ||
                  p->kind == NK_class_definition)) {
                size_t len;
                const char *s = ast_text(ast, (int32_t)i, &len);
                strmap_put(names, arena_strndup(a, s, len), (void *)1);
            }
        }
    }
    size_t len;
    const char *s = ast_text(ast, n, &len);
    char name[256];
    if (len >= sizeof name)
        return 1;
    memcpy(name, s, len);
    name[len] = 0;
    return strmap_get(names, name) != NULL;
}

static Value *value__seq(const Ast *ast, const ConstTable *consts, int32_t n, Arena *a,
                         int depth, ValueKind kind)
{
    VEC(Value *) items = {0};
    for (int32_t c = ast->nodes[n].first; c >= 0; c = ast->nodes[c].next) {
        const Node *cn = &ast->nodes[c];
        if (!(cn->flags & NODE_NAMED) || cn->kind == NK_comment)
            continue;
        if (kind == V_DICT) {
            if (cn->kind != NK_pair) {
                VEC_FREE(items);
                return value__expr(ast, n, a);
            }
            VEC_PUSH(items, value__of(ast, consts, ast_field(ast, c, F_key), a, depth + 1));
            VEC_PUSH(items, value__of(ast, consts, ast_field(ast, c, F_value), a, depth + 1));
        } else {
            if (cn->kind == NK_list_splat) {
                VEC_FREE(items);
                return value__expr(ast, n, a);
            }
            VEC_PUSH(items, value__of(ast, consts, c, a, depth + 1));
        }
    }
    size_t size = 1;
    for (size_t i = 0; i < items.n; i++) {
        if (!items.v[i]) {   /* a pair without key or value: broken syntax */
            VEC_FREE(items);
            return value__expr(ast, n, a);
        }
        size += items.v[i]->size;
    }
    if (size > VALUE_MAX_SIZE) {
        VEC_FREE(items);
        return value__expr(ast, n, a);
    }
    Value *v = value__new(a, kind, n);
    v->size = size;
    v->nitems = items.n;
    v->items = arena_alloc(a, (items.n ? items.n : 1) * sizeof *v->items);
    if (items.n)
        memcpy(v->items, items.v, items.n * sizeof *v->items);
    VEC_FREE(items);
    return v;
}

static Value *value__of(const Ast *ast, const ConstTable *consts, int32_t n, Arena *a, int depth)
{
    if (n < 0)
        return NULL;
    if (depth > VALUE_MAX_DEPTH || (ast->nodes[n].flags & (NODE_ERROR | NODE_MISSING)))
        return value__expr(ast, n, a);
    switch ((NodeKind)ast->nodes[n].kind) {
    case NK_integer: return value__int(ast, n, a);
    case NK_float: return value__float(ast, n, a);
    case NK_true:
    case NK_false: {
        Value *v = value__new(a, V_BOOL, n);
        v->i = ast->nodes[n].kind == NK_true;
        return v;
    }
    case NK_none: return value__new(a, V_NONE, n);
    case NK_string: return value__string(ast, n, a);
    case NK_subscript: {   /* OPTIONS["fast"], GEARS[0] of a known dict, list or tuple */
        int32_t obj = ast_field(ast, n, F_value), idx = ast_field(ast, n, F_subscript);
        if (!consts || obj < 0 || idx < 0 || ast->nodes[idx].kind == NK_slice)
            break;
        int more = 0;   /* a[1, 2]: several subscripts */
        for (int32_t c = ast->nodes[idx].next; c >= 0; c = ast->nodes[c].next)
            more |= ast->nodes[c].field == F_subscript;
        if (more)
            break;
        Value *o = value__of(ast, consts, obj, a, depth + 1), *k = value__of(ast, consts, idx, a, depth + 1);
        if (!o || !k || k->kind == V_EXPR)
            break;
        if (o->kind == V_DICT) {
            for (size_t i = 0; i + 1 < o->nitems; i += 2)
                if (value_equal(o->items[i], k))
                    return o->items[i + 1];
        } else if ((o->kind == V_LIST || o->kind == V_TUPLE) && k->kind == V_INT) {
            int64_t j = k->i < 0 ? k->i + (int64_t)o->nitems : k->i;
            if (j >= 0 && (size_t)j < o->nitems)
                return o->items[j];
        }
        break;
    }
    case NK_concatenated_string: {
        StrBuf sb = {0};
        for (int32_t c = ast_named_child(ast, n, 0), i = 1; c >= 0; c = ast_named_child(ast, n, i++)) {
            Value *part = value__of(ast, consts, c, a, depth + 1);
            if (part->kind != V_STR) {
                sb_free(&sb);
                return value__expr(ast, n, a);
            }
            sb_putn(&sb, part->s, part->len);
        }
        Value *v = value__new(a, V_STR, n);
        v->s = arena_strndup(a, sb.s ? sb.s : "", sb.len);
        v->len = sb.len;
        sb_free(&sb);
        return v;
    }
    case NK_unary_operator: {
        int32_t arg = ast_field(ast, n, F_argument);
        int32_t op = ast_field(ast, n, F_operator);
        Value *x = value__of(ast, consts, arg, a, depth + 1);
        if (!x || op < 0 || (x->kind != V_INT && x->kind != V_FLOAT) ||
            !(ast_text_is(ast, op, "-") || ast_text_is(ast, op, "+")))
            return value__expr(ast, n, a);
        Value *v = value__new(a, x->kind, n);
        int neg = ast_text_is(ast, op, "-");
        if (x->kind == V_INT && neg && x->i == INT64_MIN)
            return value__expr(ast, n, a);
        v->i = neg ? -x->i : x->i;
        v->f = neg ? -x->f : x->f;
        return v;
    }
    case NK_parenthesized_expression: {
        int32_t inner = ast_named_child(ast, n, 0);
        return inner >= 0 ? value__of(ast, consts, inner, a, depth + 1) : value__expr(ast, n, a);
    }
    case NK_tuple:
    case NK_expression_list:   /* x = 1, 2 */
        return value__seq(ast, consts, n, a, depth, V_TUPLE);
    case NK_list: return value__seq(ast, consts, n, a, depth, V_LIST);
    case NK_dictionary: return value__seq(ast, consts, n, a, depth, V_DICT);
    case NK_identifier: {
        if (!consts)
            break;
        size_t len;
        const char *s = ast_text(ast, n, &len);
        char key[256];
        if (len >= sizeof key)
            break;
        memcpy(key, s, len);
        key[len] = 0;
        ConstEntry *e = strmap_get(&consts->names, key);
        if (e && e->rhs >= 0 && !value__locally_bound(ast, consts, n, a)) {
            if (!e->value) {
                e->rhs = -1 - e->rhs;   /* in progress: A = B, B = A is not a constant */
                e->value = value__of(ast, consts, -1 - e->rhs, a, depth + 1);
                e->rhs = -1 - e->rhs;
            }
            Value *v = e->value;
            if (v->kind != V_EXPR) {
                /* reported where the argument is written; its items keep
                 * the locations of the constant's definition */
                Value *use = value__new(a, v->kind, n);
                Value keep = *use;
                *use = *v;
                use->node = keep.node;
                return use;
            }
        }
        break;
    }
    default:
        break;
    }
    return value__expr(ast, n, a);
}

Value *value_of(const Ast *ast, const ConstTable *consts, int32_t n, Arena *arena)
{
    return value__of(ast, consts, n, arena, 0);
}

int value_equal(const Value *a, const Value *b)
{
    if (!a || !b || a->kind != b->kind || a->kind == V_EXPR)
        return 0;
    switch (a->kind) {
    case V_NONE: return 1;
    case V_BOOL:
    case V_INT: return a->i == b->i;
    case V_FLOAT: return a->f == b->f;
    case V_STR: return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
    default:
        if (a->nitems != b->nitems)
            return 0;
        for (size_t i = 0; i < a->nitems; i++)
            if (!value_equal(a->items[i], b->items[i]))
                return 0;
        return 1;
    }
}

void value_json(const Value *v, StrBuf *out)
{
    if (!v) {
        sb_puts(out, "null");
        return;
    }
    switch (v->kind) {
    case V_EXPR:
        sb_puts(out, "{\"expr\":");
        sb_json_str(out, v->s, v->len);
        sb_putc(out, '}');
        break;
    case V_NONE: sb_puts(out, "null"); break;
    case V_BOOL: sb_puts(out, v->i ? "true" : "false"); break;
    case V_INT: sb_printf(out, "%lld", (long long)v->i); break;
    case V_FLOAT: {
        char buf[64];
        for (int prec = 15; prec <= 17; prec++) {   /* shortest that round-trips */
            snprintf(buf, sizeof buf, "%.*g", prec, v->f);
            if (strtod(buf, NULL) == v->f)
                break;
        }
        if (!strpbrk(buf, ".eE"))
            strcat(buf, ".0");
        sb_puts(out, buf);
        break;
    }
    case V_STR: sb_json_str(out, v->s, v->len); break;
    case V_TUPLE:
    case V_LIST:
        sb_putc(out, '[');
        for (size_t i = 0; i < v->nitems; i++) {
            if (i)
                sb_putc(out, ',');
            value_json(v->items[i], out);
        }
        sb_putc(out, ']');
        break;
    case V_DICT:
        /* JSON keys are strings: other keys are written as their JSON
         * text ({0: [2, 4]} becomes {"0":[2,4]}). */
        sb_putc(out, '{');
        for (size_t i = 0; i + 1 < v->nitems; i += 2) {
            const Value *k = v->items[i];
            if (i)
                sb_putc(out, ',');
            if (k->kind == V_STR) {
                sb_json_str(out, k->s, k->len);
            } else {
                StrBuf kb = {0};
                value_json(k, &kb);
                sb_json_str(out, kb.s, kb.len);
                sb_free(&kb);
            }
            sb_putc(out, ':');
            value_json(v->items[i + 1], out);
        }
        sb_putc(out, '}');
        break;
    }
}
