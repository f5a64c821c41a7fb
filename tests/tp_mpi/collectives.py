# Every collective tngc compiles, in one entry: build with --world-size N
# (N >= 2, N divides 4) and run under mpirun -np N; check_collectives.py
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
        dist.all_reduce(b[1:3], op=dist.ReduceOp.AVG)   # a view: written through into b
        c = funcol.all_reduce(y, "sum", dist.group.WORLD)
        d = funcol.all_gather_tensor(y, 0, dist.group.WORLD)
        e = funcol.reduce_scatter_tensor(d, "sum", 0, dist.group.WORLD)
        parts = [torch.empty(4, 4) for _ in range(WS)]
        dist.all_gather(parts, y)
        f = torch.cat(parts, dim=1)
        g = y.clone()
        dist.broadcast(g, src=1)
        h = torch.empty(4 // WS, 4)
        dist.reduce_scatter_tensor(h, y, op=dist.ReduceOp.SUM)
        p = y.clone()
        dist.all_reduce(p, group=PAIR)   # ranks outside the pair keep y
        q = y.to(torch.bfloat16)
        dist.all_reduce(q)               # summed in float32, rounded once
        s = funcol.all_gather_tensor(y, 1, dist.group.WORLD)            # along dim 1: [4, 4 * WS]
        t = funcol.reduce_scatter_tensor(s, "sum", 1, dist.group.WORLD)  # along dim 1: [4, 4]
        return a, b, c, d, e, f, g, h, p, q.float(), s, t


model = Collectives()
compiled = torch.compile(model)
compiled(torch.randn(4, 4))
