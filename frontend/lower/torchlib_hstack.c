/*
 * torchlib_hstack.c - the torch library (torchlib.c), stacking along a
 * dim after PyTorch's atleast_Nd: torch.hstack, torch.vstack (row_stack)
 * and torch.dstack, composed from unsqueeze and cat. Each lowering (lo_*) is
 * under the Python signature it lowers; its lib[] row is in torchlib.c.
 */
#include "torchlib.h"
#include "torchlib_int.h"

/* The tensors of parameter "tensors" into in[0..cap): their number, or -1
 * with the call's result in *fail (not a list of tensors: unknown; an
 * empty one: TNG206 naming the call). */
static int stack__tensors(Interp *I, Call *c, int32_t *in, int cap, Obj **fail)
{
    int n = tl_tensor_list(I, P(c, "tensors"), c->node, c->full, in, cap);
    if (n < 0)
        *fail = unk(I);
    else if (n == 0)
        *fail = interp_break(I, c->node, RULE_TNG206, "%s expects a non-empty list of tensors", c->full);
    return n > 0 ? n : -1;
}

/* torch.hstack(tensors, *, out=None): PyTorch's atleast_1d of every tensor
 * (a 0-d tensor becomes [1]), then cat along dim 0 when the first of them
 * is 1-d, along dim 1 otherwise; cat's own rules (ranks, sizes, dtype
 * promotion) apply to the pieces. */
Obj *lo_hstack(Interp *I, Call *c)
{
    int32_t in[1024];
    Obj *fail = NULL;
    int n = stack__tensors(I, c, in, (int)NELEM(in), &fail);
    if (n < 0)
        return fail;
    DimId one = graph_dim_const(G(I), 1);
    for (int i = 0; i < n; i++) {
        if (rank_of(I, in[i]) != 0)
            continue;
        if ((in[i] = tl_tv(I, tl_reshape_to(I, in[i], &one, 1, c->node), c->node)) < 0)
            return unk(I);
    }
    for (int i = 1; i < n; i++)
        if (rank_of(I, in[i]) != rank_of(I, in[0]))
            return interp_break(I, c->node, RULE_TNG206, "%s: tensors must have the same number of dims (after "
                                "atleast_1d): got %d and %d", c->full, rank_of(I, in[0]), rank_of(I, in[i]));
    int64_t dim = rank_of(I, in[0]) == 1 ? 0 : 1;
    return tl_emit1(I, OP_CAT, in, (uint32_t)n, &dim, 1, 0, 0, DT_UNKNOWN, c->node);
}

/* unsqueezes x at each dim of at[0..n) in turn; -1 when a step fails. */
static int32_t stack__unsqueeze(Interp *I, int32_t x, const int64_t *at, int n, int32_t node)
{
    for (int k = 0; k < n && x >= 0; k++)
        x = tl_tv(I, tl_unsqueeze_at(I, x, at[k], node), node);
    return x;
}

/* torch.vstack / torch.row_stack(tensors, *, out=None): atleast_2d of
 * every tensor (0-d: [1, 1]; 1-d [n]: [1, n]), then cat along dim 0;
 * torch.dstack: atleast_3d (0-d: [1, 1, 1]; 1-d [n]: [1, n, 1]; 2-d
 * [m, n]: [m, n, 1]), then cat along dim 2. c->arg is 2 or 3. */
Obj *lo_vdstack(Interp *I, Call *c)
{
    int32_t in[1024];
    Obj *fail = NULL;
    int n = stack__tensors(I, c, in, (int)NELEM(in), &fail);
    if (n < 0)
        return fail;
    int three = c->arg == 3;
    /* the unsqueezes of atleast_2d and atleast_3d, by rank */
    static const int64_t at2[2][2] = {{0, 0}, {0, 0}};
    static const int64_t at3[3][3] = {{0, 0, 0}, {0, 2, 0}, {2, 0, 0}};
    static const int n2[2] = {2, 1}, n3[3] = {3, 2, 1};
    for (int i = 0; i < n; i++) {
        int r = rank_of(I, in[i]);
        if (r >= (three ? 3 : 2))
            continue;
        in[i] = stack__unsqueeze(I, in[i], three ? at3[r] : at2[r], three ? n3[r] : n2[r], c->node);
        if (in[i] < 0)
            return unk(I);
    }
    int64_t dim = three ? 2 : 0;
    return tl_emit1(I, OP_CAT, in, (uint32_t)n, &dim, 1, 0, 0, DT_UNKNOWN, c->node);
}
