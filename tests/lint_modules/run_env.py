# A backend from a module on TNGC_PATH (which imports it from another):
# super_kernel has no effect in reduce-overhead mode (TNG115).
import torch
import torchair
from env_backend import backend


class Model(torch.nn.Module):
    def forward(self, a):
        with torchair.scope.super_kernel("sk"):
            a = a + 1
        return a


model = torch.compile(Model(), backend=backend)
