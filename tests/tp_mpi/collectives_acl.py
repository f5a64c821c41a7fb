# collectives.py as the ACL target compiles it (HCCL): ReduceOp.MIN where
# collectives.py averages (HCCL has no average), ReduceOp.PRODUCT as well,
# and the broadcast after them; built with --world-size 2 (the pair is the
# world) and run on aclsim; check_collectives.py 2 DIR acl
# compares each rank's outputs with numpy. Rank r computes y = w(x) * (r + 1).
import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
from torch import nn

WS = dist.get_world_size()
RANK = dist.get_rank()
PAIR = dist.new_group([0, 1])


class Collectives(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Linear(4, 4, bias=False)

    def forward(self, x):
        y = self.w(x) * (RANK + 1)
        a = y.clone()
        dist.all_reduce(a, op=dist.ReduceOp.MAX)
        b = y.clone()
        dist.all_reduce(b[1:3], op=dist.ReduceOp.MIN)   # a view: written through into b
        c = funcol.all_reduce(y, "sum", dist.group.WORLD)
        d = funcol.all_gather_tensor(y, 0, dist.group.WORLD)
        e = funcol.reduce_scatter_tensor(d, "sum", 0, dist.group.WORLD)
        parts = [torch.empty(4, 4) for _ in range(WS)]
        dist.all_gather(parts, y)
        f = torch.cat(parts, dim=1)
        g = y.clone()
        dist.all_reduce(g, op=dist.ReduceOp.PRODUCT)
        h = torch.empty(4 // WS, 4)
        dist.reduce_scatter_tensor(h, y, op=dist.ReduceOp.SUM)
        p = y.clone()
        dist.all_reduce(p, group=PAIR)   # ranks outside the pair keep y
        q = y.to(torch.bfloat16)
        dist.all_reduce(q)               # summed in float32, rounded once
        r = y.clone()
        dist.broadcast(r, src=1)
        return a, b, c, d, e, f, g, h, p, q.float(), r


model = Collectives()
compiled = torch.compile(model)
compiled(torch.randn(4, 4))
