# mark_static(t, 1) fixes dim 1 only: with dynamic=True, dim 0 of each input
# stays symbolic (Dynamo's semantics of the index argument).
import torch
import torch.nn as nn
import torch_npu
import torchair

class Model(nn.Module):
    def forward(self, x, y):
        return x * 2, y + 1

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, fullgraph=True, dynamic=True)
x = torch.randn(3, 5).npu()
y = torch.randn(6, 7).npu()
torch._dynamo.mark_static(x, 1)
torch._dynamo.mark_static(y, 1)
out = model(x, y)
