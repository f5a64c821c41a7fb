# Process groups other than the world and ReduceOp.AVG, in one entry: build
# with --world-size 4 and run on 4 ranks (mpirun -np 4, or the ACL target's
# 4 processes on aclsim); check_groups.py compares each rank's outputs with
# numpy. Rank r computes y = w(x) * (r + 1); PAIR is [0, 1] on ranks 0 and
# 1 and [2, 3] on ranks 2 and 3; EVEN is [0, 2], which ranks 1 and 3 are not
# in (their tensors keep y).
import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
from torch import nn

RANK = dist.get_rank()
LOW = dist.new_group([0, 1])
HIGH = dist.new_group([2, 3])
EVEN = dist.new_group([0, 2])
PAIR = LOW if RANK < 2 else HIGH


class Groups(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Linear(4, 4, bias=False)

    def forward(self, x):
        y = self.w(x) * (RANK + 1)
        a = y.clone()
        dist.all_reduce(a, op=dist.ReduceOp.AVG, group=PAIR)
        b = torch.empty(2, 4)
        dist.reduce_scatter_tensor(b, y, op=dist.ReduceOp.AVG, group=PAIR)
        c = y.clone()
        dist.all_reduce(c, op=dist.ReduceOp.MAX, group=EVEN)
        d = funcol.all_gather_tensor(y, 0, PAIR)
        e = y.clone()
        dist.broadcast(e, src=2, group=EVEN)   # rank 2 is EVEN's rank 1
        f = y.to(torch.float16)
        dist.all_reduce(f, op=dist.ReduceOp.AVG)
        g = torch.empty(1, 4)
        dist.reduce_scatter_tensor(g, y, op=dist.ReduceOp.AVG)
        k = y.clone()
        dist.all_to_all_single(k, y * 2, group=EVEN)
        return a, b, c, d, e, f.float(), g, k


model = Groups()
compiled = torch.compile(model)
compiled(torch.randn(4, 4))
