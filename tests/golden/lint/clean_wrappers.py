import contextlib
from types import SimpleNamespace
import torch
import torch_npu
import torchair
from torchair.configs.compiler_config import CompilerConfig


# Project helpers that merely share TorchAir's names: not annotations.
def npu_stream_switch(tag, priority=0):
    return torch.npu.stream(torch.npu.Stream(priority=priority))


def set_dim_gears(t, dim_gears):
    t.gears = dim_gears
    return t


class scope:
    @staticmethod
    def super_kernel(name, options):
        return contextlib.nullcontext()


class Model(torch.nn.Module):
    def forward(self, x, y):
        with npu_stream_switch(1, -1):
            a = torch.mm(x, y)
        with scope.super_kernel("sk", "no-such-option=7"):
            return a + y


settings = SimpleNamespace(mode="eager")
settings.mdoe = "fast"
config = CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.ones(4, 4).npu()
set_dim_gears(x, {7: [0]})
out = model(x, torch.ones(4, 4).npu())
