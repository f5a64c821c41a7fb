# A Python branch on a dynamic length is planned only when every gear
# decides it alike (TorchDynamo traces each side separately; tngc traces
# one graph): here the gears 2 and 4 decide `n > 2` differently, and a
# length without gears (dynamic=True, no set_dim_gears) may be any size.
import torch
import torch.nn as nn
import torch_npu
import torchair


class Prefill(nn.Module):
    def forward(self, x):
        n = x.shape[1]
        if n > 2:  # expect: TNG204
            x = x.cumsum(1)
        return x


class Free(nn.Module):
    def forward(self, x):
        if x.shape[0] * 2 >= 4:  # expect: TNG204
            return x + 1
        return x


backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
prefill = torch.compile(Prefill(), backend=backend, fullgraph=True, dynamic=True)
x = torch.randn(2, 4)
torchair.inference.set_dim_gears(x, dim_gears={1: [2, 4]})
out = prefill(x)
free = torch.compile(Free(), backend=backend, fullgraph=True, dynamic=True)
out2 = free(torch.randn(3, 4))
