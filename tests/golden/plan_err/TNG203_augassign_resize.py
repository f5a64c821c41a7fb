import torch
import torch_npu
import torchair
from torch import nn


# x += y whose result has another shape than x (broadcast up): PyTorch
# raises; earlier releases rebound x to the larger result.
class M(nn.Module):
    def forward(self, h, x):
        y = h * 1.0
        y += x
        z = torch.zeros(3, 1)
        z += x  # expect: TNG203
        return y, z


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(M(), backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    out = model(torch.randn(3, 4).half(), torch.randn(3, 4))
