/*
 * lint_dist.c - the rules on torch.distributed's collectives that the text
 * decides (TNG180-TNG183), following what torch.distributed does with the
 * call (distributed_c10d.py):
 *  - TNG180: the group of a collective bound to a literal (a list of
 *    ranks, a string, a number) rather than a process group: the
 *    collective calls a method of it (group.allreduce) and raises
 *    AttributeError;
 *  - TNG181: an attribute of ReduceOp (or reduce_op) it does not have
 *    (RedOpType's members): AttributeError;
 *  - TNG182: new_group with literal ranks: a negative rank, or (where the
 *    script calls init_process_group(world_size=N) with a literal N) a
 *    rank >= N or more ranks than N, raise (ValueError, RuntimeError
 *    before 2.1); a rank listed twice is a warning: new_group takes the
 *    list's length as the group's size;
 *  - TNG183: all_gather_into_tensor / reduce_scatter_tensor whose output
 *    and input are names bound in the same function (once) to
 *    torch.empty/zeros/ones/rand/randn with literal sizes, and whose
 *    element counts are not in the ratio of the group's size (the world
 *    size above, or the ranks of a new_group bound to a module-level
 *    name): torch raises; with the size unknown, a count that is no
 *    multiple of the other is wrong for every size.
 * Names are resolved through the file's imports (alias.c), so `import
 * torch.distributed as dist` and `from torch.distributed import ReduceOp`
 * are both seen; a call or ReduceOp is first matched by its last name
 * (all_reduce, ReduceOp), so one imported under another name is not. A
 * name the file binds in other ways (a parameter, a loop variable, a
 * second assignment) is not judged.
 */
#include "lint.h"
#include "lint_facts.h"

#include <string.h>

typedef struct Dist {
    Lint *l;
    const Ast *ast;
    AliasTable *aliases;
    ConstTable *consts;
    Arena *arena;
    int64_t world;         /* init_process_group(world_size=N), or -1 */
    int64_t visits;        /* node visits left for the name lookups */
} Dist;

/* The node visits of every name lookup of a file together (each walks
 * the file): past them names are not judged, so a file with many
 * collectives costs O(nodes) more, never O(nodes x calls). */
#define DIST_MAX_VISITS ((int64_t)1 << 26)

/* The canonical name of expression n (torch.distributed.X for every
 * spelling of the module), or NULL. */
static const char *dist__path(const Dist *d, int32_t n)
{
    if (n < 0)
        return NULL;
    const char *p = alias_resolve(d->aliases, d->ast, n, d->arena);
    if (p && !strncmp(p, "torch.distributed.distributed_c10d.", 35))
        p = arena_printf(d->arena, "torch.distributed.%s", p + 35);
    return p;
}

/* 1 when the last name of identifier or attribute chain n is name (a
 * test on the text before the import lookup). */
static int dist__last_is(const Ast *ast, int32_t n, const char *name)
{
    if (n >= 0 && ast->nodes[n].kind == NK_attribute)
        n = ast_field(ast, n, F_attribute);
    return n >= 0 && ast->nodes[n].kind == NK_identifier && ast_text_is(ast, n, name);
}

static int dist__callee_is(const Dist *d, int32_t call, const char *name)
{
    int32_t fn = ast_field(d->ast, call, F_function);
    if (!dist__last_is(d->ast, fn, name))
        return 0;
    const char *p = dist__path(d, fn);
    return p && !strncmp(p, "torch.distributed.", 18) && !strcmp(p + 18, name);
}

/* The argument of call by keyword kw or at position pos (-1: keyword
 * only), or -1. */
static int32_t dist__arg(const Ast *ast, int32_t call, int pos, const char *kw)
{
    int32_t args = ast_field(ast, call, F_arguments);
    if (args < 0)
        return -1;
    int k = 0;
    for (int32_t c = ast->nodes[args].first; c >= 0; c = ast->nodes[c].next) {
        if (!(ast->nodes[c].flags & NODE_NAMED) || ast->nodes[c].kind == NK_comment)
            continue;
        if (ast->nodes[c].kind == NK_keyword_argument) {
            if (ast_text_is(ast, ast_field(ast, c, F_name), kw))
                return ast_field(ast, c, F_value);
            continue;
        }
        if (ast->nodes[c].kind == NK_list_splat || ast->nodes[c].kind == NK_dictionary_splat)
            return -1;
        if (k++ == pos)
            return c;
    }
    return -1;
}

static int32_t dist__owner(const Ast *ast, int32_t n)
{
    for (int32_t p = ast->nodes[n].parent; p >= 0; p = ast->nodes[p].parent)
        if (ast->nodes[p].kind == NK_function_definition || ast->nodes[p].kind == NK_lambda)
            return p;
    return -1;
}

static int dist__inside(const Ast *ast, int32_t n, int32_t def)
{
    return def < 0 || (ast->nodes[n].start >= ast->nodes[def].start && ast->nodes[n].end <= ast->nodes[def].end);
}

/* 1 when identifier node id (a use) names something bound at n only:
 * every other identifier of that text in the file (within def, or the
 * whole file for def -1) is a use, not a target, parameter or import. */
static int dist__bound_once(const Ast *ast, int32_t id, int32_t at, int32_t def)
{
    size_t len;
    const char *t = ast_text(ast, id, &len);
    for (uint32_t i = 0; i < ast->n; i++) {
        const Node *x = &ast->nodes[i];
        size_t xl;
        if (x->kind != NK_identifier || (int32_t)i == at || !dist__inside(ast, (int32_t)i, def))
            continue;
        const char *xt = ast_text(ast, (int32_t)i, &xl);
        if (xl != len || memcmp(xt, t, len))
            continue;
        int32_t p = x->parent;
        NodeKind pk = p >= 0 ? ast->nodes[p].kind : NK_other;
        if ((pk == NK_assignment || pk == NK_augmented_assignment || pk == NK_for_statement) && x->field == F_left)
            return 0;
        if (pk == NK_parameters || pk == NK_default_parameter || pk == NK_typed_default_parameter ||
            pk == NK_pattern_list || pk == NK_tuple_pattern || pk == NK_as_pattern || pk == NK_aliased_import ||
            pk == NK_dotted_name || pk == NK_global_statement || pk == NK_with_item || pk == NK_for_in_clause ||
            pk == NK_typed_parameter || pk == NK_list_pattern || pk == NK_named_expression ||
            pk == NK_nonlocal_statement)
            return 0;
    }
    return 1;
}

/* The right-hand side of the one assignment `NAME = ...` to identifier
 * id within def (-1: module level) before use, when nothing else binds
 * it there; else -1. */
static int32_t dist__binding(Dist *d, int32_t id, int32_t def, int32_t use)
{
    const Ast *ast = d->ast;
    int32_t found = -1;
    if (d->visits < 2 * (int64_t)ast->n)
        return -1;
    d->visits -= 2 * (int64_t)ast->n;
    for (uint32_t i = 0; i < ast->n; i++) {
        if (ast->nodes[i].kind != NK_assignment || !dist__inside(ast, (int32_t)i, def) ||
            dist__owner(ast, (int32_t)i) != def)
            continue;
        int32_t lhs = ast_field(ast, (int32_t)i, F_left), rhs = ast_field(ast, (int32_t)i, F_right);
        if (lhs < 0 || rhs < 0 || ast->nodes[lhs].kind != NK_identifier)
            continue;
        size_t a, b;
        const char *ta = ast_text(ast, lhs, &a), *tb = ast_text(ast, id, &b);
        if (a != b || memcmp(ta, tb, a))
            continue;
        if (found >= 0 || ast->nodes[i].start > ast->nodes[use].start)
            return -1;
        found = (int32_t)i;
    }
    if (found < 0 || !dist__bound_once(ast, id, ast_field(ast, found, F_left), def))
        return -1;
    return ast_field(ast, found, F_right);
}

/* ---- TNG182: new_group's ranks ---- */

/* The literal ranks of new_group call n (NULL: not a literal list). */
static const Value *dist__ranks(const Dist *d, int32_t call)
{
    int32_t r = dist__arg(d->ast, call, 0, "ranks");
    if (r < 0)
        return NULL;
    const Value *v = value_of(d->ast, d->consts, r, d->arena);
    if (v->kind != V_LIST && v->kind != V_TUPLE)
        return NULL;
    for (size_t k = 0; k < v->nitems; k++)
        if (v->items[k]->kind != V_INT)
            return NULL;
    return v;
}

static void dist__new_group(Dist *d, int32_t call)
{
    const Value *v = dist__ranks(d, call);
    if (!v)
        return;
    if (d->world > 0 && (int64_t)v->nitems > d->world) {
        REPORT(d->l, v->node, TNG182, "new_group: %zu ranks in a world of %lld (init_process_group): "
               "torch.distributed raises (\"the new group's world size should be less or equal to the world "
               "size\")", v->nitems, (long long)d->world);
        return;
    }
    for (size_t k = 0; k < v->nitems; k++) {
        int64_t r = v->items[k]->i;
        if (r < 0 || (d->world > 0 && r >= d->world)) {
            if (r < 0)
                REPORT(d->l, v->items[k]->node, TNG182, "new_group: rank %lld is negative: torch.distributed "
                       "raises (\"The new group's rank should be within the world_size\")", (long long)r);
            else
                REPORT(d->l, v->items[k]->node, TNG182, "new_group: rank %lld is not below the world size %lld "
                       "given to init_process_group: torch.distributed raises (\"The new group's rank should be "
                       "within the world_size\")", (long long)r, (long long)d->world);
            return;
        }
        for (size_t j = 0; j < k; j++)
            if (v->items[j]->i == r) {
                REPORT_AS(SEV_WARNING, d->l, v->items[k]->node, TNG182, "new_group: rank %lld is listed twice: "
                          "torch.distributed takes the list's length (%zu) as the group's size, which is not its "
                          "number of ranks", (long long)r, v->nitems);
                return;
            }
    }
}

/* ---- TNG180, TNG183: a collective's group and sizes ---- */

static const char *const dist__collectives[] = {
    "all_reduce", "all_gather", "all_gather_into_tensor", "reduce_scatter", "reduce_scatter_tensor",
    "broadcast", "reduce", "gather", "scatter", "all_to_all", "all_to_all_single", "barrier",
};

/* The position of the group parameter of collective name. */
static int dist__group_pos(const char *name)
{
    if (!strcmp(name, "barrier"))
        return 0;
    if (!strcmp(name, "all_reduce") || !strcmp(name, "all_gather") || !strcmp(name, "all_gather_into_tensor") ||
        !strcmp(name, "broadcast") || !strcmp(name, "all_to_all"))
        return 2;
    if (!strcmp(name, "all_to_all_single"))
        return 4;
    return 3;   /* reduce_scatter*(out, in, op, group), reduce(t, dst, op, group), gather, scatter */
}

static const char *dist__kind_name(const Value *v)
{
    switch (v->kind) {
    case V_LIST: return "a list";
    case V_TUPLE: return "a tuple";
    case V_STR: return "a str";
    case V_INT: return "an int";
    case V_FLOAT: return "a float";
    case V_BOOL: return "a bool";
    case V_DICT: return "a dict";
    default: return NULL;
    }
}

/* The size of the group at expression g (absent: the world), or -1. */
static int64_t dist__group_size(Dist *d, int32_t g)
{
    if (g < 0 || d->ast->nodes[g].kind == NK_none)
        return d->world;
    const char *p = dist__path(d, g);
    if (p && (!strcmp(p, "torch.distributed.group.WORLD") || !strcmp(p, "torch.distributed.GroupMember.WORLD")))
        return d->world;
    if (d->ast->nodes[g].kind != NK_identifier)
        return -1;
    int32_t rhs = dist__binding(d, g, -1, g);
    if (rhs < 0 || d->ast->nodes[rhs].kind != NK_call || !dist__callee_is(d, rhs, "new_group"))
        return -1;
    const Value *v = dist__ranks(d, rhs);
    return v ? (int64_t)v->nitems : -1;
}

static void dist__group(Dist *d, int32_t call, const char *name)
{
    int32_t g = dist__arg(d->ast, call, dist__group_pos(name), "group");
    if (g < 0 || d->ast->nodes[g].kind == NK_none)
        return;
    int32_t lit = g;
    if (d->ast->nodes[g].kind == NK_identifier) {
        int32_t def = dist__owner(d->ast, call);
        lit = dist__binding(d, g, def, call);
        if (lit < 0 && def >= 0 && d->visits >= (int64_t)d->ast->n) {
            d->visits -= (int64_t)d->ast->n;
            if (dist__bound_once(d->ast, g, -2, def))
                lit = dist__binding(d, g, -1, call);   /* not bound in the function: the module's */
        }
        if (lit < 0)
            return;
    }
    const Value *v = value_of(d->ast, d->consts, lit, d->arena);
    const char *kind = dist__kind_name(v);
    if (!kind)
        return;
    REPORT(d->l, g, TNG180, "%s: the group is %s, not a process group (dist.new_group(ranks), "
           "dist.group.WORLD or None): torch.distributed raises AttributeError when it calls the group", name, kind);
}

/* The element count of the tensor a torch.empty/zeros/ones/rand/randn
 * call with literal sizes makes, or -1. */
static int64_t dist__numel(const Dist *d, int32_t call)
{
    static const char *const makers[] = {"torch.empty", "torch.zeros", "torch.ones", "torch.rand", "torch.randn"};
    const char *p = dist__path(d, ast_field(d->ast, call, F_function));
    size_t m = 0;
    while (m < sizeof makers / sizeof *makers && !(p && !strcmp(p, makers[m])))
        m++;
    if (m == sizeof makers / sizeof *makers)
        return -1;
    int64_t n = 1;
    int32_t a0 = dist__arg(d->ast, call, 0, "size");
    if (a0 < 0)
        return -1;
    const Value *v = value_of(d->ast, d->consts, a0, d->arena);
    if (v->kind == V_LIST || v->kind == V_TUPLE) {
        if (dist__arg(d->ast, call, 1, "") >= 0)
            return -1;
        for (size_t k = 0; k < v->nitems; k++) {
            if (v->items[k]->kind != V_INT || v->items[k]->i < 0 || v->items[k]->i > ((int64_t)1 << 31))
                return -1;
            n *= v->items[k]->i;
        }
        return n;
    }
    for (int k = 0; k < 8; k++) {
        int32_t a = dist__arg(d->ast, call, k, k ? "" : "size");
        if (a < 0)
            return k ? n : -1;
        v = value_of(d->ast, d->consts, a, d->arena);
        if (v->kind != V_INT || v->i < 0 || v->i > ((int64_t)1 << 31))
            return -1;
        n *= v->i;
    }
    return -1;
}

/* The element count of the tensor named at expression x (a name bound
 * once in the call's function to a maker with literal sizes), or -1. */
static int64_t dist__tensor_numel(Dist *d, int32_t call, int32_t x)
{
    if (x < 0 || d->ast->nodes[x].kind != NK_identifier)
        return -1;
    int32_t rhs = dist__binding(d, x, dist__owner(d->ast, call), call);
    return rhs >= 0 && d->ast->nodes[rhs].kind == NK_call ? dist__numel(d, rhs) : -1;
}

static void dist__sizes(Dist *d, int32_t call, const char *name)
{
    int gather = !strcmp(name, "all_gather_into_tensor");
    int32_t out = dist__arg(d->ast, call, 0, gather ? "output_tensor" : "output");
    int32_t in = dist__arg(d->ast, call, 1, gather ? "input_tensor" : "input");
    int64_t no = dist__tensor_numel(d, call, out), ni = dist__tensor_numel(d, call, in);
    if (no <= 0 || ni <= 0)
        return;
    int64_t big = gather ? no : ni, small = gather ? ni : no;
    int64_t n = dist__group_size(d, dist__arg(d->ast, call, dist__group_pos(name), "group"));
    const char *bigs = gather ? "output" : "input", *smalls = gather ? "input" : "output";
    if (n > 0 && big != n * small)
        REPORT(d->l, call, TNG183, "%s: the %s has %lld elements, the %s %lld: it must have the group's size (%lld) "
               "times the %s's; torch.distributed raises", name, bigs, (long long)big, smalls, (long long)small,
               (long long)n, smalls);
    else if (n <= 0 && big % small != 0)
        REPORT(d->l, call, TNG183, "%s: the %s has %lld elements, the %s %lld: it must have the group's size times "
               "the %s's, which no group size gives; torch.distributed raises", name, bigs, (long long)big, smalls,
               (long long)small, smalls);
}

/* ---- TNG181: ReduceOp ---- */

static void dist__reduce_op(Dist *d, int32_t n)
{
    static const char *const ops[] = {"SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR",
                                      "PREMUL_SUM", "UNUSED", "RedOpType"};
    int32_t obj = ast_field(d->ast, n, F_object);
    if (!dist__last_is(d->ast, obj, "ReduceOp") && !dist__last_is(d->ast, obj, "reduce_op"))
        return;
    const char *p = dist__path(d, obj);
    if (!p || (strcmp(p, "torch.distributed.ReduceOp") && strcmp(p, "torch.distributed.reduce_op")))
        return;
    int32_t attr = ast_field(d->ast, n, F_attribute);
    if (attr < 0)
        return;
    size_t len;
    const char *t = ast_text(d->ast, attr, &len);
    if (len >= 2 && t[0] == '_' && t[1] == '_')
        return;   /* Python's own attributes (__members__, ...) */
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
        if (strlen(ops[k]) == len && !memcmp(ops[k], t, len))
            return;
    REPORT(d->l, attr, TNG181, "%s has no %.*s (it has SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR and "
           "PREMUL_SUM): this raises AttributeError", p, (int)len, t);
}

/* ---- the pass ---- */

static void dist__world(Dist *d)
{
    for (uint32_t i = 0; i < d->ast->n; i++)
        if (d->ast->nodes[i].kind == NK_call && dist__callee_is(d, (int32_t)i, "init_process_group")) {
            int32_t w = dist__arg(d->ast, (int32_t)i, 3, "world_size");
            const Value *v = w >= 0 ? value_of(d->ast, d->consts, w, d->arena) : NULL;
            if (!v || v->kind != V_INT || v->i < 1 || (d->world > 0 && d->world != v->i)) {
                d->world = -1;   /* unknown, or two calls that disagree: no world size */
                return;
            }
            d->world = v->i;
        }
}

/* 1 when the file mentions torch.distributed at all (cheap test first). */
static int dist__mentioned(const Ast *ast)
{
    const Source *src = ast->src;
    return src && src->text && strstr(src->text, "distributed") != NULL;
}

void lint_dist(Lint *l)
{
    const Ast *ast = l->ast;
    if (!dist__mentioned(ast))
        return;
    Dist d = {.l = l, .ast = ast, .arena = &l->sf->arena, .world = 0, .visits = DIST_MAX_VISITS};
    d.aliases = alias_build(ast, d.arena);
    d.consts = const_build(ast, d.arena);
    dist__world(&d);
    if (d.world == 0)
        d.world = -1;
    for (uint32_t i = 0; i < ast->n; i++) {
        int32_t n = (int32_t)i;
        if (ast->nodes[i].kind == NK_attribute) {
            dist__reduce_op(&d, n);
            continue;
        }
        if (ast->nodes[i].kind != NK_call)
            continue;
        if (dist__callee_is(&d, n, "new_group")) {
            dist__new_group(&d, n);
            continue;
        }
        for (size_t k = 0; k < sizeof dist__collectives / sizeof *dist__collectives; k++)
            if (dist__callee_is(&d, n, dist__collectives[k])) {
                dist__group(&d, n, dist__collectives[k]);
                if (!strcmp(dist__collectives[k], "all_gather_into_tensor") ||
                    !strcmp(dist__collectives[k], "reduce_scatter_tensor"))
                    dist__sizes(&d, n, dist__collectives[k]);
                break;
            }
    }
    const_free(d.consts);
    alias_free(d.aliases);
}
