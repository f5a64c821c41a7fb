import torch
import torch_npu
import torchair
from torch import nn

# A buffer made in __init__ as a view of another: the compiled method sees
# each tensor made outside it on its own, so a write into either family is
# refused rather than lost.
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(2, 8, 4))
        self.head = self.cache[0]

    def forward(self, x):
        self.cache[:, 0] = x  # expect: TNG211
        return self.head * 1.0


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, dynamic=False, fullgraph=True)
print(model(torch.randn(2, 4).npu()))
