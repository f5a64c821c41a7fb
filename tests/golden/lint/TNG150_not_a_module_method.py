import functools

import torch
import torch_npu
import torchair
from torchair.inference import cache_compile


# TorchAir's cache_compile checks isinstance(func, types.MethodType) and
# isinstance(func.__self__, torch.nn.Module), and raises ValueError
# otherwise (inference/_cache_compiler.py:612-616).
class Helper:
    def run(self, x):
        return x + 1


class DerivedHelper(Helper):
    def run2(self, x):
        return x * 2


class Unknown(SomeBase):   # a base tngc cannot see: may be a Module
    def run(self, x):
        return x


def plain(x):
    return x - 1


helper = Helper()
cached_run = cache_compile(helper.run)  # expect: TNG150
cached_run2 = cache_compile(DerivedHelper().run2, dynamic=False)  # expect: TNG150
cached_unknown = cache_compile(Unknown().run)
cached_partial = cache_compile(functools.partial(plain, 2))  # expect: TNG150
cached_plain = cache_compile(plain)  # expect: TNG150


class Model(torch.nn.Module):
    def __init__(self, runner):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)
        self.runner = runner
        # all bound methods of modules, or names tngc cannot see: silent
        self.cached_forward = cache_compile(self.forward)
        self.cached_proj = cache_compile(self.proj.forward)
        self.cached_runner = cache_compile(self.runner.model.forward)
        self.cached_bound = cache_compile(plain.__get__(self, torch.nn.Module))

    def forward(self, x):
        return self.proj(x)


def wrap(method):
    return cache_compile(method)


model = Model(None)
cached_model = cache_compile(model.forward)
