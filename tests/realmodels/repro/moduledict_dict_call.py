# nn.ModuleDict built from dict(name=module, ...) and its entries read as
# attributes (karpathy/minGPT's self.transformer.wte, .h, .ln_f). PyTorch:
# ModuleDict registers each module under its key; self.body.fc is that
# module. tngc: TNG205 "the function or module called here is not known at
# compile time" at self.body.fc(x).
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.ModuleDict(dict(
            fc=nn.Linear(8, 8),
            h=nn.ModuleList([nn.Linear(8, 8) for _ in range(2)]),
            ln=nn.LayerNorm(8),
        ))

    def forward(self, x):
        x = self.body.fc(x)
        for layer in self.body.h:
            x = layer(x)
        return self.body.ln(x)

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
