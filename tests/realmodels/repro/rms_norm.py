# F.rms_norm (PyTorch 2.4; deepseek-ai/DeepSeek-V3's RMSNorm). PyTorch:
# x * rsqrt(mean(x^2, -1) + eps) * weight. tngc, before it compiled this: TNG203 (not among the
# operators tngc compiles). PyTorch 1.13 has no F.rms_norm: the reference
# run takes it from tests/realmodels/pyonly.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(8))

    def forward(self, x):
        return F.rms_norm(x, (8,), self.weight, 1e-6)

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
