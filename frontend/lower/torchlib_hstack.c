/*
 * torchlib_hstack.c - the torch library (torchlib.c), stacking along the
 * second dim: torch.hstack, composed from cat. Each lowering (lo_*) is
 * under the Python signature it lowers; its lib[] row is in torchlib.c.
 */
#include "torchlib.h"
#include "torchlib_int.h"

/* torch.hstack(tensors, *, out=None): PyTorch's atleast_1d of every tensor
 * (a 0-d tensor becomes [1]), then cat along dim 0 when the first of them
 * is 1-d, along dim 1 otherwise; cat's own rules (ranks, sizes, dtype
 * promotion) apply to the pieces. */
Obj *lo_hstack(Interp *I, Call *c)
{
    int32_t in[1024];
    int n = tl_tensor_list(I, P(c, "tensors"), c->node, c->full, in, (int)NELEM(in));
    if (n < 0)
        return unk(I);
    if (n == 0)
        return interp_break(I, c->node, RULE_TNG206, "%s expects a non-empty list of tensors", c->full);
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
