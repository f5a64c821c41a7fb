import torch
import torch_npu
import torchair
from torchair.scope import super_kernel

# super_kernel passes its scope name (None becomes '') and its options
# unconverted into scope_enter(str[] keys, str[] values)
# (scope/__init__.py:30-37, scope/_scope.py:13,38): the op's schema
# refuses anything but strings when the with-statement enters, whatever
# the mode (the reduce-overhead compile below ignores the scope later).

config = torchair.CompilerConfig()
config.mode = "reduce-overhead"  # expect: TNG175


class Model(torch.nn.Module):
    def forward(self, x):
        with super_kernel(1):  # expect: TNG115, TNG118
            x = x + 1
        with super_kernel("sk", None):  # expect: TNG110, TNG115
            x = x + 1
        return x


def eager(x):
    with super_kernel(None), super_kernel("sk", ""), super_kernel(scope="sk2"), super_kernel(2.5):  # expect: TNG118
        x = x + 1
    return x


model = torch.compile(Model(), backend=torchair.get_npu_backend(compiler_config=config))
