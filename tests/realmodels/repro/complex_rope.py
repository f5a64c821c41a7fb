# RoPE by complex multiplication (meta-llama/llama, mistral-src,
# DeepSeek-V3): a table made by torch.polar, pairs of the last dim viewed as
# complex numbers by view_as_complex, multiplied, and viewed back by
# view_as_real. PyTorch: y[..., 2i] = x0*cos - x1*sin, y[..., 2i+1] =
# x0*sin + x1*cos, float32 [2, 4, 8]. tngc: builds and matches (a complex64
# tensor is a float32 tensor of its shape + [2], view_as_real's layout).
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class M(nn.Module):
    def __init__(self):
        super().__init__()
        freqs = torch.outer(torch.arange(4).float(), 1.0 / (10000.0 ** (torch.arange(0, 8, 2).float() / 8)))
        self.freqs_cis = torch.polar(torch.ones_like(freqs), freqs)   # complex64 [4, 4]

    def forward(self, x):
        xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * self.freqs_cis).flatten(2)

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
