# A collective whose input another stream computes: the plan orders them
# with an event (stream 0 waits for stream 1 before the all_reduce).
# tests/tp_mpi/acl.sh removes that wait from the generated source and
# expects aclsim's checker to report the race with HcclAllReduce.
import torch
import torch.distributed as dist
import torchair
from torch import nn


class M(nn.Module):
    def forward(self, x):
        with torchair.scope.npu_stream_switch('s1'):
            y = x * 2 + 1
        dist.all_reduce(y)
        return y


torch.compile(M())(torch.randn(4, 4))
