# The dtype and device of a module read from its first parameter
# (mistral-src moe_one_file_ref's Transformer.dtype property:
# next(self.parameters()).dtype). PyTorch: torch.float32. tngc, before it compiled this: TNG202
# "call of method 'parameters', which tngc cannot lower".
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    @property
    def dtype(self):
        return next(self.parameters()).dtype

    def forward(self, x):
        return self.proj(x).to(self.dtype)

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
