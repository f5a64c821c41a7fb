# A class attribute rebound before the layers are built, read as the
# default dtype of their weights (deepseek-ai/DeepSeek-V3: Linear.dtype =
# torch.bfloat16 in Transformer.__init__, then torch.empty(..., dtype=dtype
# or Linear.dtype) in Linear.__init__). PyTorch: the weight is bfloat16 and
# the bfloat16 input plans. tngc, before it compiled this: ignores the rebinding (the weight stays
# float32) and refuses with TNG207 "linear: expected both operands to have
# the same dtype, got bfloat16 and float32".
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class Linear(nn.Module):
    dtype = torch.float32

    def __init__(self, n_in, n_out, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_out, n_in, dtype=dtype or Linear.dtype))

    def forward(self, x):
        return F.linear(x, self.weight)


class M(nn.Module):
    def __init__(self):
        Linear.dtype = torch.bfloat16
        super().__init__()
        self.proj = Linear(8, 6)

    def forward(self, x):
        return self.proj(x)


npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8).bfloat16())
