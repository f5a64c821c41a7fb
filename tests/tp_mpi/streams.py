# Collectives on streams other than the default one (npu_stream_switch),
# the way serving code overlaps communication with compute: build with
# --world-size N and run under mpirun -np N; tests/tp_mpi/run.sh compares
# each rank's outputs with numpy. Rank r's y is x * (r + 1). The three
# collectives are on stream "comm", the default stream and "comm" again:
# every rank issues them in that order (each waits for the one before).
import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
import torchair
from torch import nn

RANK = dist.get_rank()


class StreamCollectives(nn.Module):
    def forward(self, x):
        y = x * (RANK + 1)
        with torchair.scope.npu_stream_switch("comm"):
            g = funcol.all_gather_tensor(y, 0, dist.group.WORLD)   # overlaps h
        h = torch.mm(y, y)
        dist.all_reduce(h)
        with torchair.scope.npu_stream_switch("comm"):
            torchair.scope.npu_wait_tensor(y, h)
            z = y + 1
            dist.all_reduce(z, op=dist.ReduceOp.MAX)
        return g, h, z + g[:4]


compiled = torch.compile(StreamCollectives(), backend=torchair.get_npu_backend())
compiled(torch.randn(4, 4))
