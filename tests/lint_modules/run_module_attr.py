# The backend through `import compile_utils as cu` and `import compile_utils`.
import torch
import torchair
import compile_utils as cu
import compile_utils


class Model(torch.nn.Module):
    def forward(self, a):
        torchair.scope.npu_wait_tensor(a, a)
        return a + 1


class Other(torch.nn.Module):
    def forward(self, a):
        with torchair.scope.super_kernel("sk"):
            a = a * 2
        return a


m1 = torch.compile(Model(), backend=cu.npu_backend)
m2 = torch.compile(Other(), backend=compile_utils.npu_backend)
