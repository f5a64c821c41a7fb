import torch
import torch_npu
import torchair
from torch import nn

# A write through a slice whose bound is a dynamic dim (known at run time
# only): refused, not written at a guessed place.
class Model(nn.Module):
    def forward(self, x, cache):
        n = x.shape[0]
        part = cache[:n]
        part.mul_(2.0)  # expect: TNG211
        return cache


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, dynamic=True, fullgraph=True)
x = torch.randn(2, 4).npu()
torchair.inference.set_dim_gears(x, dim_gears={0: [2, 3]})
print(model(x, torch.randn(8, 4).npu()))
