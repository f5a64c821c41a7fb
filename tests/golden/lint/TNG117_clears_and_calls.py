# tngc-args: --soc Ascend310P3
# TNG117 is for with-items that open a super kernel: super_kernel(None) and
# super_kernel("") only clear an outer scope, and a bare call opens none.
import torch
import torchair as tng


class Model(torch.nn.Module):
    def forward(self, x):
        with tng.scope.super_kernel("sk"):  # expect: TNG117
            with tng.scope.super_kernel(None):
                y = torch.relu(x)
            with tng.scope.super_kernel(""):
                y = torch.relu(y)
        tng.scope.super_kernel("not-a-with")
        return y
