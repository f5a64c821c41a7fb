# tngc-args: --soc Ascend910B2 --torchair 770a4d54
import torch
import torchair


# TorchAir 770a4d54's documentation lists super kernels on Atlas A3 only;
# Atlas A2 (Ascend910B2) is listed from fced8842 on.
class Model(torch.nn.Module):
    def forward(self, x):
        with torchair.scope.super_kernel("sk", ""):  # expect: TNG117
            return x * 2
