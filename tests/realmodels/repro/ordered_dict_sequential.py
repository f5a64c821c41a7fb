# nn.Sequential built from a collections.OrderedDict of named layers
# (openai/CLIP's Bottleneck.downsample and ResidualAttentionBlock.mlp).
# PyTorch: the layers in order, parameters named by the keys (mlp.c_fc.weight).
# tngc, before it compiled this: TNG205 "the function or module called here is not known at compile
# time" where the Sequential is called.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair
from collections import OrderedDict


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(OrderedDict([
            ("c_fc", nn.Linear(8, 16)),
            ("gelu", nn.GELU()),
            ("c_proj", nn.Linear(16, 8)),
        ]))

    def forward(self, x):
        return self.mlp(x)

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
