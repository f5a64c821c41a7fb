# A subclass of a torch.nn module that overrides forward and calls the
# library's forward through super() (openai/CLIP and openai/whisper's
# LayerNorm: LayerNorm in float32, cast back). PyTorch: nn.LayerNorm's result
# on x.float(), cast to x's dtype. tngc, before it compiled this: TNG205 "the function or module
# called here is not known at compile time" at super().forward.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class LayerNorm(nn.LayerNorm):
    def forward(self, x):
        return super().forward(x.float()).type(x.dtype)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = LayerNorm(8)

    def forward(self, x):
        return self.ln(x)

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
