# from m import * (its __all__) and an imported module's __name__
# (tests/imports.sh).
import torch
import torchair
from helpers import *
import helpers

assert NAME == "helpers"


class Model(torch.nn.Module):
    def forward(self, x):
        if helpers.NAME != "helpers":
            return x
        return act(x)


model = torch.compile(Model(), backend=torchair.get_npu_backend(), dynamic=False, fullgraph=True)
model(torch.randn(2, 8))
