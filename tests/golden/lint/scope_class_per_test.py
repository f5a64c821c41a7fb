import unittest

import torch
import torch_npu
import torchair


# Each test defines its own `class Model`: a name resolves to the class of
# the function that defines it, not to another test's class of that name.
class SuperKernelTest(unittest.TestCase):
    def test_dynamic(self):
        class Model(torch.nn.Module):
            def forward(self, x):
                with torchair.scope.super_kernel("sk", "stream-fusion=1"):  # expect: TNG114
                    return x + 1

        backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
        model = torch.compile(Model(), backend=backend, dynamic=True)
        model(torch.ones(2, 2))

    def test_static(self):
        class Model(torch.nn.Module):
            def forward(self, x):
                with torchair.scope.super_kernel("sk", "stream-fusion=1"):
                    return x * 2

        backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
        model = torch.compile(Model(), backend=backend, dynamic=False)
        model(torch.ones(2, 2))

    def test_cached(self):
        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.cached = torchair.inference.cache_compile(self.prompt, dynamic=False)

            def forward(self, x):
                return self.cached(x)

            def prompt(self, x):
                with torchair.scope.super_kernel("sk"):
                    return x - 1

        Model()(torch.ones(2, 2))
