import torch
import torch_npu
import torchair
from torch import nn


# Subclasses of torch.nn classes: the library's forward on an instance
# whose __init__ never ran the library constructor (PyTorch raises too:
# the module was not initialised), and a library method reached through
# super() that tngc does not model, and a slice of a ModuleList subclass
# (PyTorch builds an instance of the subclass from the slice).
class Bare(nn.Linear):
    def __init__(self, scale):
        self.scale = scale


class Described(nn.LayerNorm):
    def forward(self, x):
        return super().forward(x) * len(super().extra_repr())  # expect: TNG203


class Blocks(nn.ModuleList):
    def forward(self, x):
        for b in self[:1]:  # expect: TNG203
            x = b(x)
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.bare = Bare(2.0)
        self.norm = Described(16)
        self.blocks = Blocks([nn.Linear(16, 16)])

    def forward(self, x):
        return self.bare(x) + self.norm(x) + self.blocks(x)  # expect: TNG205


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 16).npu()
print(model(x))
