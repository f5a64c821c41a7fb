# A ModuleList of ModuleLists: weights named layers.0.0.weight, ...
import torch
import torch.nn as nn
import torch_npu
import torchair

class Model(nn.Module):
    def __init__(self, dim=8, depth=2):
        super().__init__()
        self.layers = nn.ModuleList([])
        for _ in range(depth):
            self.layers.append(nn.ModuleList([nn.LayerNorm(dim), nn.Linear(dim, dim)]))
    def forward(self, x):
        for norm, ff in self.layers:
            x = ff(norm(x)) + x
        return x

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, fullgraph=True, dynamic=False)
out = model(torch.randn(2, 8).npu())
