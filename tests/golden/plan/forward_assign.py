# model.forward = torch.compile(model.forward): calling model(x) runs the entry.
import torch
import torch.nn as nn
import torch_npu
import torchair

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
    def forward(self, x):
        return self.fc(x)

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = Model().npu()
model.forward = torch.compile(model.forward, backend=backend, fullgraph=True, dynamic=False)
x = torch.randn(4, 8).npu()
print(model(x).shape)
