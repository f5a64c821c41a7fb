# A Python int argument is a constant of the plan: later calls with other
# values are warned about.
import torch
import torch.nn as nn
import torch_npu
import torchair

class Model(nn.Module):
    def forward(self, k, cache, start_pos: int):
        cache[:, start_pos:start_pos + 1] = k
        return cache.sum(1)

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, fullgraph=True, dynamic=False)
k = torch.ones(2, 1, 4).npu()
cache = torch.zeros(2, 8, 4).npu()
for pos in range(3):
    out = model(k, cache, pos)  # expect: TNG210
