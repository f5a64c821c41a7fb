import torch
import torch_npu
import torchair as tng
from torchair.inference import cache_compile


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(64, 64)
        # A method of a submodule: a bound method of a Module, which is all
        # TorchAir asks (inference/_cache_compiler.py:612-616).
        self.cached_proj = cache_compile(self.proj.forward, config=tng.CompilerConfig())

    def forward(self, x):
        return self.cached_proj(x)

    def step(self, x):
        return torch.relu(x)


class Stepper:   # not a Module
    def step(self, x):
        return x


model = Model().npu()
cached_step = cache_compile(model.step, config=tng.CompilerConfig())
cached_stepper = cache_compile(Stepper().step, config=tng.CompilerConfig())  # expect: TNG150
