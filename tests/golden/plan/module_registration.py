# Submodules registered with add_module and Sequential.append get their weights
# named as in state_dict().
from collections import OrderedDict
import torch
import torch.nn as nn
import torch_npu
import torchair

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Sequential()
        self.a.add_module("fc", nn.Linear(8, 8))
        self.b = nn.Sequential()
        self.b.append(nn.Linear(8, 8))
    def forward(self, x):
        return self.a(x), self.b(x)

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, fullgraph=True, dynamic=False)
out = model(torch.randn(2, 8).npu())
