# An all_reduce in a reduce-overhead entry with static kernels: the
# collective is no static kernel (the plan says "collective"), it runs
# through libtngcrt_mpi as in any other entry. Rank r: (x * 2) summed over
# the ranks, + 1.
import torch
import torch.distributed as dist
import torchair
from torch import nn


class AllReduceStatic(nn.Module):
    def forward(self, x):
        y = x * 2
        dist.all_reduce(y)
        return y + 1


config = torchair.CompilerConfig()
config.mode = "reduce-overhead"
config.experimental_config.aclgraph._aclnn_static_shape_kernel = True
npu_backend = torchair.get_npu_backend(compiler_config=config)
compiled = torch.compile(AllReduceStatic(), backend=npu_backend)
compiled(torch.randn(4, 4))
