# A relative import of a config (built into a backend here), and a star
# import of nothing that matters.
import torch
import torchair
from .settings import config
from . import settings
from max_autotune_missing import *


class Model(torch.nn.Module):
    def forward(self, a):
        torchair.scope.npu_wait_tensor(a, a)
        return a + 1


class Other(torch.nn.Module):
    def forward(self, a):
        torchair.scope.npu_wait_tensor(a, a)
        return a + 1


model = torch.compile(Model(), backend=torchair.get_npu_backend(compiler_config=config))
other = torch.compile(Other(), backend=torchair.get_npu_backend(compiler_config=settings.config))
