# A slice assignment into a view of an input: PyTorch writes through to the
# base; tngc does not model that, so it is an error, not a silent wrong plan.
import torch
import torch.nn as nn
import torch_npu
import torchair

class Model(nn.Module):
    def forward(self, k, cache):
        kv = cache.view(2, 8, 2, 4)
        kv[:, 3:4] = k  # expect: TNG211
        return cache.sum(1)

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, dynamic=False, fullgraph=True)
k = torch.ones(2, 1, 2, 4).npu()
cache = torch.zeros(2, 8, 8).npu()
print(model(k, cache)[0, :2])
