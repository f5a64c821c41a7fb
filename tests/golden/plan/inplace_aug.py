# h += y on a tensor is in place: x (the same tensor) is mutated and read back.
import torch
import torch.nn as nn
import torch_npu
import torchair

class Model(nn.Module):
    def forward(self, x, y):
        h = x
        h += y
        return x * 2

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, dynamic=False, fullgraph=True)
x = torch.ones(2, 4).npu()
y = torch.ones(2, 4).npu()
out = model(x, y)
print(out)
