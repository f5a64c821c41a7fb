# numpy at build time: a parameter initialised from np.log (openai/CLIP's
# logit_scale = nn.Parameter(torch.ones([]) * np.log(1 / 0.07))). PyTorch: a
# 0-d float32 parameter 2.6593; forward reads it. tngc, before it compiled this: TNG205 at its use
# ("the function or module called here is not known at compile time" on
# self.scale.exp()).
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair
import numpy as np


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones([]) * np.log(1 / 0.07))

    def forward(self, x):
        return x * self.scale.exp()

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
