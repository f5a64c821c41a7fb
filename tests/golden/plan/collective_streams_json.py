# tngc-args: --world-size 2 --format json
# Collectives per stream in the plan (--world-size 2: each rank's plan):
# the all_gather on stream "comm" overlaps the matmul on the default stream;
# the all_reduce after it on the default stream waits for it (collectives
# are ordered: every rank issues them in one order). The bytes per gear:
# all_gather of B bytes over 2 ranks is B in and 2 B out, all_reduce B in
# and B out.
import torch
import torch.distributed as dist
import torchair
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Linear(16, 16 // dist.get_world_size(), bias=False)

    def forward(self, x):
        y = self.w(x)
        gathered = torch.empty(y.shape[0] * dist.get_world_size(), y.shape[1])
        with torchair.scope.npu_stream_switch("comm"):
            dist.all_gather_into_tensor(gathered, y)
        h = torch.mm(x, x.t())
        dist.all_reduce(h)
        return gathered, h


model = torch.compile(Model(), backend=torchair.get_npu_backend(), dynamic=True, fullgraph=True)
x = torch.randn(8, 16)
torchair.inference.set_dim_gears(x, dim_gears={0: [4, 8]})
model(x)
