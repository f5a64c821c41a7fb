import torch
import torch_npu
import torchair
from torch import nn

# A write into an expanded view: several of its elements are one memory
# location, which PyTorch refuses ("unsupported operation: more than one
# element of the written-to tensor refers to a single memory location").
class Model(nn.Module):
    def forward(self, x):
        b = x[:, :1].expand(-1, 6)
        b.add_(1.0)  # expect: TNG203
        return x


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, dynamic=False, fullgraph=True)
print(model(torch.randn(4, 6).npu()))
