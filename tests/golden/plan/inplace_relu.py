# F.relu(h, inplace=True) and nn.ReLU(inplace=True) replace their input's value.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.act = nn.ReLU(inplace=True)
    def forward(self, x):
        h = self.fc(x)
        F.relu(h, inplace=True)
        g = self.fc(x)
        self.act(g)
        return h, g

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, fullgraph=True, dynamic=False)
h, g = model(torch.randn(4, 8).npu())
print(float(h.min()), float(g.min()))
