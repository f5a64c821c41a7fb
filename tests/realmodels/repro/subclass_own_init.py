# A subclass of nn.Linear with its own __init__ that calls the library's
# (fairscale's ColumnParallelLinear at world size 1, as the llama files use
# it) and no forward of its own. PyTorch: the inherited nn.Linear.forward.
# tngc, before it compiled this: TNG202 "instance of ColumnParallelLinear is not callable".
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class ColumnParallelLinear(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, gather_output=True, init_method=None):
        super().__init__(in_features, out_features, bias=bias)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = ColumnParallelLinear(8, 6, bias=False, init_method=lambda x: x)

    def forward(self, x):
        return self.proj(x)

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
