/*
 * torchlib_dist.c - the torch library (torchlib.c), torch.distributed in
 * a build of --world-size N > 1: the script is run once per rank, and in
 * the run of rank r a process group of N ranks is initialized
 * (is_initialized() True, get_rank() r, get_world_size() N), so the
 * script's own sharding code runs at plan time. Its collectives are ops
 * (ir/ops.def's ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, BROADCAST):
 *
 * - dist.all_reduce(t, op=ReduceOp.X, group=None): t written in place
 *   (views_write: every alias of t sees it, a view's base included);
 * - dist.all_gather_into_tensor(out, t, group=None), dist.all_gather(list,
 *   t, group=None) (each item of list written with its rank's block),
 *   dist.reduce_scatter_tensor(out, t, op=..., group=None),
 *   dist.broadcast(t, src, group=None): likewise in place;
 * - dist.all_to_all_single(out, t, output_split_sizes=None,
 *   input_split_sizes=None, group=None): t's rows cut into one block per
 *   member (equal, or the split sizes, lists known at compile time), out
 *   written with the blocks received;
 * - torch.distributed._functional_collectives.all_reduce(t, "sum", group),
 *   all_gather_tensor(t, 0, group), reduce_scatter_tensor(t, "sum", 0,
 *   group): new tensors;
 * - dist.new_group(ranks) with ranks known at compile time, and the world
 *   (group=None, dist.group.WORLD); get_rank(group), get_world_size(group),
 *   group.rank(), group.size(); dist.barrier() (nothing to do: every rank
 *   runs its collectives in program order); init_process_group and
 *   destroy_process_group (the launcher starts and ends MPI).
 *
 * Outside a trace (module-level code) a collective adds no op: the tensor
 * it writes holds data tngc no longer knows (interp_host_inexact).
 *
 * A group is an O_BUILTIN named "torch.distributed.ProcessGroup:<mask>"
 * (bit r: rank r). A rank outside the group does nothing, as PyTorch's
 * collectives return without work there. async_op=True, other reduce ops
 * and groups tngc cannot name are refused at the call (TNG203, TNG205).
 */
#include "torchlib.h"
#include "torchlib_int.h"

#include <stdlib.h>

#define DIST_PRE "torch.distributed."
#define DIST_PG "torch.distributed.ProcessGroup:"
#define DIST_FC "_functional_collectives."

/* The mask of every rank. */
static int64_t dist__world(const Interp *I)
{
    return (int64_t)(((uint64_t)1 << I->world_size) - 1);   /* world_size <= 63 */
}

static int dist__count(int64_t mask)
{
    int n = 0;
    for (; mask; mask &= mask - 1)
        n++;
    return n;
}

/* The place of rank r in group mask (its rank in the group), -1 outside. */
static int dist__place(int64_t mask, int r)
{
    if (!(mask >> r & 1))
        return -1;
    return dist__count(mask & (((int64_t)1 << r) - 1));
}

static Obj *dist__group_obj(Interp *I, int64_t mask)
{
    return obj_builtin(I, interp_printf(I, DIST_PG "%lld", (long long)mask));
}

/* The group argument g (None, group.WORLD, a new_group's) in *mask; 0
 * after a diagnostic. */
static int dist__group(Interp *I, const Obj *g, int32_t node, const char *what, int64_t *mask)
{
    *mask = dist__world(I);
    if (is_none(g))
        return 1;
    if (g->kind == O_BUILTIN && (streq(g->s, DIST_PRE "group.WORLD") || streq(g->s, DIST_PRE "GroupMember.WORLD")))
        return 1;
    if (g->kind == O_BUILTIN && !strncmp(g->s, DIST_PG, sizeof DIST_PG - 1)) {
        *mask = strtoll(g->s + sizeof DIST_PG - 1, NULL, 10);
        return 1;
    }
    if (g->kind == O_UNKNOWN) {
        if (!obj_reported(g))
            interp_break(I, node, RULE_TNG205, "the process group of %s is not known at compile time", what);
        return 0;
    }
    interp_break(I, node, RULE_TNG203, "the group of %s must be None, torch.distributed.group.WORLD or a "
                 "torch.distributed.new_group([...]) of known ranks", what);
    return 0;
}

/* The reduce op o (ReduceOp.X, or for the functional forms a string) in
 * *op (ReduceOp's number); 0 after a diagnostic. */
static int dist__reduce_op(Interp *I, const Obj *o, int32_t node, const char *what, int64_t *op)
{
    static const char *const names[] = {"SUM", "AVG", "PRODUCT", "MIN", "MAX"};
    static const char *const lower[] = {"sum", "avg", "product", "min", "max"};
    *op = 0;
    if (is_none(o))
        return 1;
    for (int64_t k = 0; k < 5; k++) {
        if (o->kind == O_BUILTIN && (streq(o->s, interp_printf(I, DIST_PRE "ReduceOp.%s", names[k])) ||
                                     streq(o->s, interp_printf(I, DIST_PRE "ReduceOp.RedOpType.%s", names[k])))) {
            *op = k;
            return 1;
        }
        if (o->kind == O_STR && (streq(o->s, lower[k]) || streq(o->s, names[k]))) {
            *op = k;
            return 1;
        }
    }
    if (o->kind == O_UNKNOWN) {
        if (!obj_reported(o))
            interp_break(I, node, RULE_TNG205, "the reduce op of %s is not known at compile time", what);
        return 0;
    }
    interp_break(I, node, RULE_TNG203, "%s: the reduce op must be ReduceOp.SUM, AVG, PRODUCT, MIN or MAX "
                 "(tngc compiles no other)", what);
    return 0;
}

/* A float or integer tensor MPI moves; 0 after a diagnostic. */
static int dist__tensor(Interp *I, Obj *t, int32_t node, const char *what, int32_t *v)
{
    *v = -1;
    if (!is_tensor(t)) {
        if (!t || t->kind != O_UNKNOWN)
            interp_break(I, node, RULE_TNG203, "%s expects a tensor%s", what, t ? "" : ": none is given");
        return 0;
    }
    if ((*v = tl_tv(I, t, node)) < 0)
        return 0;
    DType dt = val_at(I, *v)->dtype;
    if (dt != DT_F32 && dt != DT_F16 && dt != DT_BF16 && dt != DT_I32 && dt != DT_I64) {
        interp_break(I, node, RULE_TNG203, "%s of a %s tensor: tngc's collectives move float32, float16, "
                     "bfloat16, int32 and int64", what, dtype_name(dt));
        return 0;
    }
    return 1;
}

/* async_op=True is refused (the work handle's wait() is not modelled). */
static int dist__sync(Interp *I, const CallArgs *a, int32_t node, const char *what)
{
    Obj *o = args_kw(a, "async_op");
    if (!o || ((o->kind == O_BOOL || o->kind == O_INT) && !o->i))
        return 1;
    interp_break(I, node, RULE_TNG203, "%s with async_op=True: tngc compiles synchronous collectives only", what);
    return 0;
}

/* An argument given by position or keyword; refuses keywords outside
 * names[] (TNG203) through *bad. */
static int dist__args_ok(Interp *I, const CallArgs *a, const char *const *names, size_t n, const char *what)
{
    if (a->has_star)
        return !interp_break(I, a->node, RULE_TNG205, "%s with * or ** arguments", what);
    for (size_t k = 0; k < a->nkw; k++) {
        size_t j = 0;
        while (j < n && !streq(names[j], a->kwnames[k]))
            j++;
        if (j == n) {
            interp_break(I, a->node, RULE_TNG203, "%s() got an unexpected keyword argument '%s'", what,
                         a->kwnames[k]);
            return 0;
        }
    }
    if (a->npos > n) {
        interp_break(I, a->node, RULE_TNG203, "%s() takes at most %zu arguments (%zu given)", what, n, a->npos);
        return 0;
    }
    return 1;
}

/* A collective outside a trace (module-level code, __init__): no op; the
 * tensor written (NULL: none) holds data tngc no longer knows, as after a
 * method it does not know. None, or for a functional form an unknown. */
static Obj *dist__host(Interp *I, Obj *written)
{
    if (!written)
        return unk(I);
    if (written->kind == O_LIST)
        for (size_t k = 0; k < written->n; k++)
            interp_host_inexact(I, written->items[k]);
    else
        interp_host_inexact(I, written);
    return obj_none(I);
}

/* Emits a collective of kind on value x: its output value, or -1. */
static int32_t dist__emit(Interp *I, OpKind kind, int32_t x, const int64_t *attr, uint32_t nattr, int32_t node)
{
    Obj *r = tl_emit1(I, kind, &x, 1, attr, nattr, 0, 0, DT_UNKNOWN, node);
    return tl_tv(I, r, node);
}

/* dst written with value v in place (shape and dtype checked as an in-place
 * op's); None, or the diagnostic's result. */
static Obj *dist__write(Interp *I, Obj *dst, int32_t v, int32_t node, const char *what)
{
    Obj *r = tl_inplace_fit(I, dst, tl_op_out(I, G(I)->vals.v[v].op, 0), node, what);
    if (!is_tensor(r))
        return r;
    int32_t rv = tl_tv(I, r, node);
    if (rv < 0)
        return unk(I);
    Obj *w = views_write(I, dst, rv, node, what);
    return is_tensor(w) ? obj_none(I) : w;
}

static Obj *dist__all_reduce(Interp *I, CallArgs *a, const char *what)
{
    static const char *const names[] = {"tensor", "op", "group", "async_op"};
    int64_t attr[3], mask;
    int32_t x;
    if (!dist__args_ok(I, a, names, 4, what) || !dist__sync(I, a, a->node, what) ||
        !dist__group(I, args_get(a, 2, "group"), a->node, what, &mask) ||
        !dist__reduce_op(I, args_get(a, 1, "op"), a->node, what, &attr[0]))
        return unk(I);
    Obj *t = args_get(a, 0, "tensor");
    if (!dist__tensor(I, t, a->node, what, &x))
        return unk(I);
    if (!I->tracing)
        return dist__host(I, t);
    if (dist__place(mask, I->rank) < 0)
        return obj_none(I);
    attr[1] = mask;
    attr[2] = dist__count(mask);
    int32_t r = dist__emit(I, OP_ALL_REDUCE, x, attr, 3, a->node);
    return r < 0 ? unk(I) : dist__write(I, t, r, a->node, what);
}

static Obj *dist__broadcast(Interp *I, CallArgs *a, const char *what)
{
    static const char *const names[] = {"tensor", "src", "group", "async_op", "group_src"};
    int64_t attr[3], mask, src;
    int32_t x;
    if (!dist__args_ok(I, a, names, 5, what) || !dist__sync(I, a, a->node, what) ||
        !dist__group(I, args_get(a, 2, "group"), a->node, what, &mask))
        return unk(I);
    Obj *s = args_get(a, 1, "src");
    if (!s || !tl_const_int(I, s, a->node, "broadcast's src", &src))
        return s ? unk(I) : interp_break(I, a->node, RULE_TNG203, "%s() needs src", what);
    if (src < 0 || src >= I->world_size || dist__place(mask, (int)src) < 0)
        return interp_break(I, a->node, RULE_TNG203, "%s: src %lld is not a rank of the group", what,
                            (long long)src);
    Obj *t = args_get(a, 0, "tensor");
    if (!dist__tensor(I, t, a->node, what, &x))
        return unk(I);
    if (!I->tracing)
        return dist__host(I, t);
    if (dist__place(mask, I->rank) < 0)
        return obj_none(I);
    attr[0] = src;
    attr[1] = mask;
    attr[2] = dist__count(mask);
    int32_t r = dist__emit(I, OP_BROADCAST, x, attr, 3, a->node);
    return r < 0 ? unk(I) : dist__write(I, t, r, a->node, what);
}

/* all_gather_into_tensor(out, t) and reduce_scatter_tensor(out, t, op):
 * kind's result of t written into out. */
static Obj *dist__into(Interp *I, CallArgs *a, OpKind kind, const char *what)
{
    static const char *const names[] = {"output", "input", "op", "group", "async_op"};
    static const char *const gnames[] = {"output_tensor", "input_tensor", "group", "async_op"};
    int scatter = kind == OP_REDUCE_SCATTER;
    int64_t attr[3], mask, op = 0;
    int32_t x;
    if (!dist__args_ok(I, a, scatter ? names : gnames, scatter ? 5 : 4, what) || !dist__sync(I, a, a->node, what) ||
        !dist__group(I, args_get(a, scatter ? 3 : 2, "group"), a->node, what, &mask) ||
        (scatter && !dist__reduce_op(I, args_get(a, 2, "op"), a->node, what, &op)))
        return unk(I);
    Obj *out = args_get(a, 0, scatter ? "output" : "output_tensor");
    Obj *t = args_get(a, 1, scatter ? "input" : "input_tensor");
    int32_t ov;
    if (!dist__tensor(I, t, a->node, what, &x) || !dist__tensor(I, out, a->node, what, &ov))
        return unk(I);
    if (!I->tracing)
        return dist__host(I, out);
    if (dist__place(mask, I->rank) < 0)
        return obj_none(I);
    uint32_t n = 0;
    if (scatter)
        attr[n++] = op;
    attr[n++] = mask;
    attr[n++] = dist__count(mask);
    int32_t r = dist__emit(I, kind, x, attr, n, a->node);
    return r < 0 ? unk(I) : dist__write(I, out, r, a->node, what);
}

/* Split sizes o (None, or a list or tuple of n ints known at compile time)
 * into out[0..n); 0 when None, 1 when read, -1 after a diagnostic. */
static int dist__splits(Interp *I, const Obj *o, int n, int32_t node, const char *what, int64_t *out)
{
    if (!o || is_none(o))
        return 0;
    if ((o->kind != O_LIST && o->kind != O_TUPLE) || (int)o->n != n) {
        interp_break(I, node, RULE_TNG203, "%s: the split sizes must be None or a list of %d ints known at "
                     "compile time (one per rank of the group)", what, n);
        return -1;
    }
    for (int k = 0; k < n; k++)
        if (!tl_const_int(I, o->items[k], node, "a split size", &out[k]))
            return -1;
    return 1;
}

/* all_to_all_single(output, input, output_split_sizes, input_split_sizes,
 * group): input's rows cut into one block per member of the group (equal
 * blocks, or input_split_sizes rows each), block j sent to member j, and
 * the blocks received written into output in group order. */
static Obj *dist__all_to_all(Interp *I, CallArgs *a, const char *what)
{
    static const char *const names[] = {"output", "input", "output_split_sizes", "input_split_sizes", "group",
                                        "async_op"};
    int64_t attr[GRAPH_MAX_ATTRS], mask;
    int32_t x, ov;
    if (!dist__args_ok(I, a, names, 6, what) || !dist__sync(I, a, a->node, what) ||
        !dist__group(I, args_get(a, 4, "group"), a->node, what, &mask))
        return unk(I);
    Obj *out = args_get(a, 0, "output"), *t = args_get(a, 1, "input");
    if (!dist__tensor(I, t, a->node, what, &x) || !dist__tensor(I, out, a->node, what, &ov))
        return unk(I);
    int n = dist__count(mask);
    int so = dist__splits(I, args_get(a, 2, "output_split_sizes"), n, a->node, what, attr + 2 + n);
    int si = so < 0 ? -1 : dist__splits(I, args_get(a, 3, "input_split_sizes"), n, a->node, what, attr + 2);
    if (so < 0 || si < 0)
        return unk(I);
    if (so != si)
        return interp_break(I, a->node, RULE_TNG203, "%s: give both output_split_sizes and input_split_sizes, or "
                            "neither", what);
    if (so && 2 + 2 * n > GRAPH_MAX_ATTRS)
        return interp_break(I, a->node, RULE_TNG203, "%s with split sizes over a group of %d ranks: tngc takes "
                            "them for at most %d ranks", what, n, (GRAPH_MAX_ATTRS - 2) / 2);
    if (!I->tracing)
        return dist__host(I, out);
    if (dist__place(mask, I->rank) < 0)
        return obj_none(I);
    attr[0] = mask;
    attr[1] = n;
    int32_t r = dist__emit(I, OP_ALL_TO_ALL, x, attr, so ? (uint32_t)(2 + 2 * n) : 2, a->node);
    return r < 0 ? unk(I) : dist__write(I, out, r, a->node, what);
}

/* all_gather(tensor_list, tensor): one all_gather along dim 0, then item
 * k of the list written with rows k*d0 .. (k+1)*d0 of it (d0: tensor's
 * dim 0, a constant). */
static Obj *dist__all_gather_list(Interp *I, CallArgs *a, const char *what)
{
    static const char *const names[] = {"tensor_list", "tensor", "group", "async_op"};
    int64_t attr[2], mask;
    int32_t x;
    if (!dist__args_ok(I, a, names, 4, what) || !dist__sync(I, a, a->node, what) ||
        !dist__group(I, args_get(a, 2, "group"), a->node, what, &mask))
        return unk(I);
    Obj *list = args_get(a, 0, "tensor_list"), *t = args_get(a, 1, "tensor");
    if (!dist__tensor(I, t, a->node, what, &x))
        return unk(I);
    int n = dist__count(mask);
    if (!list || list->kind != O_LIST || (int)list->n != n)
        return interp_break(I, a->node, RULE_TNG203, "%s: tensor_list must be a list of %d tensors (the group's "
                            "size)", what, n);
    if (!I->tracing)
        return dist__host(I, list);
    if (dist__place(mask, I->rank) < 0)
        return obj_none(I);
    int64_t d0;
    if (rank_of(I, x) < 1 || !graph_dim_const_value(G(I), val_at(I, x)->dims[0], &d0))
        return interp_break(I, a->node, RULE_TNG203, "%s of a tensor whose dim 0 is not a constant: tngc gathers "
                            "blocks of constant rows", what);
    attr[0] = mask;
    attr[1] = n;
    int32_t all = dist__emit(I, OP_ALL_GATHER, x, attr, 2, a->node);
    for (int k = 0; all >= 0 && k < n; k++) {
        int32_t bv = tl_tv(I, tl_slice_of(I, all, 0, k * d0, (k + 1) * d0, 1, a->node), a->node);
        if (bv < 0)
            return unk(I);
        Obj *r = dist__write(I, list->items[k], bv, a->node, what);
        if (!is_none(r))
            return r;
    }
    return all < 0 ? unk(I) : obj_none(I);
}

/* torch.distributed._functional_collectives: all_reduce(t, reduceOp,
 * group), all_gather_tensor(t, gather_dim, group),
 * reduce_scatter_tensor(t, reduceOp, scatter_dim, group): new tensors.
 * Along a dim d other than 0, as PyTorch defines it (the concatenation of
 * the ranks' tensors along d; rank r's block of the reduction along d):
 * d moved to the front and made contiguous, gathered or scattered along
 * dim 0, and moved back (a view), which gives the same elements. */
static Obj *dist__functional(Interp *I, const char *f, CallArgs *a, const char *what)
{
    int gather = streq(f, "all_gather_tensor"), scatter = streq(f, "reduce_scatter_tensor");
    static const char *const rnames[] = {"self", "reduceOp", "group", "tag"};
    static const char *const gnames[] = {"self", "gather_dim", "group", "tag"};
    static const char *const snames[] = {"self", "reduceOp", "scatter_dim", "group", "tag"};
    int64_t attr[3], mask, op = 0, dim = 0;
    int32_t x;
    if (!dist__args_ok(I, a, gather ? gnames : scatter ? snames : rnames, scatter ? 5 : 4, what))
        return unk(I);
    Obj *g = args_get(a, scatter ? 3 : 2, "group");
    if (is_none(g))
        return interp_break(I, a->node, RULE_TNG203, "%s() needs its group", what);
    if (!dist__group(I, g, a->node, what, &mask) ||
        (!gather && !dist__reduce_op(I, args_get(a, 1, "reduceOp"), a->node, what, &op)))
        return unk(I);
    Obj *t = args_get(a, 0, "self");
    if (!dist__tensor(I, t, a->node, what, &x))
        return unk(I);
    Obj *d = gather ? args_get(a, 1, "gather_dim") : scatter ? args_get(a, 2, "scatter_dim") : NULL;
    if (d && !tl_dim_arg(I, d, rank_of(I, x), a->node, what, &dim))
        return unk(I);
    if (!I->tracing)
        return dist__host(I, NULL);
    if (dist__place(mask, I->rank) < 0)
        return interp_break(I, a->node, RULE_TNG203, "%s on a group without rank %d", what, I->rank);
    uint32_t n = 0;
    if (!gather)
        attr[n++] = op;
    attr[n++] = mask;
    attr[n++] = dist__count(mask);
    int nd = rank_of(I, x);
    int64_t to0[GRAPH_MAX_DIMS], back[GRAPH_MAX_DIMS];
    if (dim != 0) {
        to0[0] = dim;
        for (int i = 0, k = 1; i < nd; i++)
            if (i != dim)
                to0[k++] = i;
        for (int i = 0; i < nd; i++)
            back[i] = i < dim ? i + 1 : i == dim ? 0 : i;
        x = tl_tv(I, tl_permute_of(I, NULL, x, to0, nd, a->node), a->node);
        x = x < 0 ? -1 : tl_tv(I, tl_emit_x(I, OP_CONTIGUOUS, x, NULL, 0, 0, DT_UNKNOWN, a->node), a->node);
        if (x < 0)
            return unk(I);
    }
    Obj *r = tl_emit1(I, gather ? OP_ALL_GATHER : scatter ? OP_REDUCE_SCATTER : OP_ALL_REDUCE, &x, 1, attr, n, 0, 0,
                      DT_UNKNOWN, a->node);
    int32_t rv = dim != 0 ? tl_tv(I, r, a->node) : -1;
    return dim == 0 ? r : rv < 0 ? unk(I) : tl_permute_of(I, NULL, rv, back, nd, a->node);
}

/* dist.new_group(ranks=None, ...): the group of the listed ranks. */
static Obj *dist__new_group(Interp *I, CallArgs *a, const char *what)
{
    Obj *r = args_get(a, 0, "ranks");
    if (is_none(r))
        return dist__group_obj(I, dist__world(I));
    if (!r || (r->kind != O_LIST && r->kind != O_TUPLE && r->kind != O_RANGE))
        return interp_break(I, a->node, RULE_TNG205, "%s: the ranks must be a list known at compile time", what);
    int64_t mask = 0, start = 0, stop = 0, step = 1;
    if (r->kind == O_RANGE && (!tl_const_int(I, r->items[0], a->node, "range's start", &start) ||
                               !tl_const_int(I, r->items[1], a->node, "range's stop", &stop) ||
                               !tl_const_int(I, r->items[2], a->node, "range's step", &step) || step <= 0))
        return unk(I);
    size_t n = r->kind == O_RANGE ? (size_t)(stop > start ? (stop - start + step - 1) / step : 0) : r->n;
    for (size_t k = 0; k < n; k++) {
        int64_t v = start + (int64_t)k * step;
        if (r->kind != O_RANGE && !tl_const_int(I, r->items[k], a->node, "a rank of new_group", &v))
            return unk(I);
        if (v < 0 || v >= I->world_size)
            return interp_break(I, a->node, RULE_TNG203, "%s: rank %lld is not in 0..%d (--world-size %d)", what,
                                (long long)v, I->world_size - 1, I->world_size);
        mask |= (int64_t)1 << v;
    }
    if (!mask)
        return interp_break(I, a->node, RULE_TNG203, "%s: an empty group", what);
    return dist__group_obj(I, mask);
}

/* get_rank(group) / get_world_size(group), and group.rank() / .size(). */
static Obj *dist__query(Interp *I, const Obj *g, int size, CallArgs *a, const char *what)
{
    int64_t mask;
    if (!dist__group(I, g, a->node, what, &mask))
        return unk(I);
    return obj_int(I, size ? dist__count(mask) : dist__place(mask, I->rank));
}

Obj *tl_dist_call(Interp *I, const char *name, CallArgs *a)
{
    if (I->world_size < 2 || strncmp(name, DIST_PRE, sizeof DIST_PRE - 1) != 0)
        return NULL;
    const char *f = name + sizeof DIST_PRE - 1;
    const char *what = interp_printf(I, "torch.distributed.%s", f);
    int world = !strncmp(f, "group.WORLD.", 12);
    if (world || !strncmp(f, "ProcessGroup:", 13)) {   /* group.rank(), group.size() */
        const char *dot = world ? f + 11 : strchr(f, '.');
        Obj *g = dist__group_obj(I, world ? dist__world(I) : strtoll(f + 13, NULL, 10));
        if (dot && (streq(dot, ".rank") || streq(dot, ".size")) && !a->npos && !a->nkw)
            return dist__query(I, g, dot[1] == 's', a, what);
        return NULL;
    }
    if (!strncmp(f, "distributed_c10d.", 17))
        f += 17;
    if (!strncmp(f, DIST_FC, sizeof DIST_FC - 1)) {
        f += sizeof DIST_FC - 1;
        if (streq(f, "all_reduce") || streq(f, "all_gather_tensor") || streq(f, "reduce_scatter_tensor"))
            return dist__functional(I, f, a, what);
        return NULL;
    }
    if ((streq(f, "is_initialized") || streq(f, "is_available")) && !a->npos && !a->nkw)
        return obj_bool(I, 1);
    if (streq(f, "get_rank") || streq(f, "get_world_size")) {
        if (a->npos + a->nkw > 1 || a->has_star)
            return NULL;
        return dist__query(I, args_get(a, 0, "group"), f[4] == 'w', a, what);
    }
    if (streq(f, "new_group"))
        return dist__new_group(I, a, what);
    if (streq(f, "barrier") || streq(f, "init_process_group") || streq(f, "destroy_process_group"))
        return obj_none(I);   /* the launcher starts and ends the group (tngrt_mpi_begin / _end) */
    if (streq(f, "all_reduce"))
        return dist__all_reduce(I, a, what);
    if (streq(f, "broadcast"))
        return dist__broadcast(I, a, what);
    if (streq(f, "all_gather_into_tensor") || streq(f, "_all_gather_base"))
        return dist__into(I, a, OP_ALL_GATHER, what);
    if (streq(f, "reduce_scatter_tensor") || streq(f, "_reduce_scatter_base"))
        return dist__into(I, a, OP_REDUCE_SCATTER, what);
    if (streq(f, "all_gather"))
        return dist__all_gather_list(I, a, what);
    if (streq(f, "all_to_all_single"))
        return dist__all_to_all(I, a, what);
    return interp_break(I, a->node, RULE_TNG203, "%s is not among the collectives tngc compiles (all_reduce, "
                        "all_gather_into_tensor, all_gather, reduce_scatter_tensor, broadcast, all_to_all_single, "
                        "barrier and the functional all_reduce, all_gather_tensor, reduce_scatter_tensor)", what);
}
