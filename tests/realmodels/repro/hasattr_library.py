# hasattr on a library module to pick a code path (karpathy/nanoGPT:
# self.flash = hasattr(torch.nn.functional, 'scaled_dot_product_attention')).
# PyTorch 2.x: True, the SDPA branch runs. tngc, before it compiled this: the value is not known, so
# TNG205 "the condition of this 'if' is not known at compile time".
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.flash = hasattr(torch.nn.functional, "scaled_dot_product_attention")

    def forward(self, x):
        q = x[:, None]
        if self.flash:
            y = F.scaled_dot_product_attention(q, q, q, is_causal=True)
        else:
            y = q
        return y[:, 0]

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
