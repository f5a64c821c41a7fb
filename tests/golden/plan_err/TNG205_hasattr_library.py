# hasattr on a library name tngc does not know: PyTorch 2.x may or may not
# have it, so the answer is not known (no guess of False): TNG205 where the
# value decides a branch, naming the hasattr call; in forward, at the call.
# Attributes of a torch.nn module beyond the ones tngc lists are the same.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchair

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.fused = hasattr(F, "fused_gelu_linear")
        self.quant = hasattr(self.proj, "_quant_state")

    def forward(self, x):
        y = self.proj(x)
        if self.fused:  # expect: TNG205
            y = y * 2
        if hasattr(torch, "special_kernel"):  # expect: TNG205
            y = y + 1
        if self.quant:  # expect: TNG205
            y = y - 1
        return y

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, fullgraph=True, dynamic=False)
out = model(torch.randn(2, 8).npu())
