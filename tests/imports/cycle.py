# An import cycle between two modules of a package (tests/imports.sh).
import torch
import torchair
from pkg import cyc_a


class Model(torch.nn.Module):
    def forward(self, x):
        return cyc_a.f(x)


model = torch.compile(Model(), backend=torchair.get_npu_backend(), dynamic=False, fullgraph=True)
model(torch.randn(2, 8))
