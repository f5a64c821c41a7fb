import torch
import torch_npu
from torchair.inference import cache_compile


class Model(torch.nn.Module):
    # As a decorator cache_compile receives the plain function of the class
    # body, not a bound method: TorchAir raises ValueError
    # (inference/_cache_compiler.py:612-613).
    @cache_compile  # expect: TNG150
    def forward(self, x):
        return x + 1
