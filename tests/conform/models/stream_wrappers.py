# tolerance: matmul
# The serving code's stream wrappers (vllm-ascend's torchair path,
# cann-recipes-infer): npu_stream_switch(tag, priority, enabled) returns
# torchair.scope.npu_stream_switch(...) when enabled and
# contextlib.nullcontext() when not; npu_wait_tensor(a, b, enabled) the
# same for the wait. Enabled: the first projection runs on stream "side";
# disabled: the second stays on the default stream. The token dim takes
# 4 or 8 (zip gears, every gear checked). (tests/conform/run.sh)
from contextlib import nullcontext

import torch
import torch_npu
import torchair
from torch import nn


def npu_stream_switch(tag, priority=0, enabled=True):
    return torchair.scope.npu_stream_switch(tag, priority) if enabled else nullcontext()


def npu_wait_tensor(tensor, dependency, enabled=True):
    return torchair.scope.npu_wait_tensor(tensor, dependency) if enabled else tensor


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 16, bias=False)
        self.b = nn.Linear(16, 16, bias=False)

    def forward(self, x):
        with npu_stream_switch("side", 0, enabled=True):
            ya = self.a(x)
        with npu_stream_switch("off", 0, enabled=False):
            yb = torch.relu(self.b(x))
        z = npu_wait_tensor(x * 2.0, ya, enabled=True)
        z = npu_wait_tensor(z, yb, enabled=False)
        return z + ya + yb


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(8, 16).npu()
torchair.inference.set_dim_gears(x, dim_gears={0: [4, 8]})
with torch.no_grad():
    out = model(x)
print(tuple(out.shape))
