# x += y on a view of an input: PyTorch writes through to the input; tngc
# does not model views' write-through, so it is an error, as for a slice
# assignment or copy_ into a view, not a silently unchanged input.
import torch
import torch.nn as nn
import torch_npu
import torchair

class Model(nn.Module):
    def forward(self, x, cache):
        flat = cache.view(-1)
        flat += x  # expect: TNG211
        return cache * 2

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, dynamic=False, fullgraph=True)
x = torch.ones(16).npu()
cache = torch.zeros(2, 8).npu()
print(model(x, cache))
