# A subclass of nn.Linear that overrides forward and reads the weight and
# bias nn.Linear's __init__ made (openai/whisper's Linear). PyTorch:
# F.linear(x, weight, bias). tngc, before it compiled this: TNG205 "'Linear' object has no attribute
# 'weight' that tngc can see".
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class Linear(nn.Linear):
    def forward(self, x):
        return F.linear(x, self.weight.to(x.dtype), None if self.bias is None else self.bias.to(x.dtype))


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = Linear(8, 6)

    def forward(self, x):
        return self.proj(x)

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
