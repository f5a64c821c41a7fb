import torch
import torch_npu
import torchair
from torch import nn


# view() of a transposed tensor whose dims cannot be merged without a copy:
# PyTorch raises ("view size is not compatible with input tensor's size
# and stride"); reshape() copies.
class Model(nn.Module):
    def forward(self, x):
        y = x.transpose(0, 1).view(-1)  # expect: TNG203
        z = x.transpose(0, 1).reshape(-1)
        return y, z


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, dynamic=False, fullgraph=True)
print(model(torch.randn(4, 6).npu()))
