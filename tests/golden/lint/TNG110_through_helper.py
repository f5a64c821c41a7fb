import torch
import torch_npu
import torchair

# super_kernel's scope and options reached through a helper's parameters:
# each call of the helper (or the parameter's default) is checked, and the
# finding is at the value the caller must change.

FAST = "stream-fusion=1:early-start=3"


def super_kernel(prefix, option="stream-fusion=1", enabled=True):
    if not enabled:
        return torch.no_grad()
    return torchair.scope.super_kernel(prefix, option)


class Model(torch.nn.Module):
    def forward(self, x):
        with super_kernel("sk1", "stream-fusion=2"):  # expect: TNG112
            x = x + 1
        with super_kernel("sk2", FAST):  # expect: TNG112
            x = x * 2
        with super_kernel(3):  # expect: TNG118
            x = x - 1
        with super_kernel("sk4"), super_kernel("sk5", option="profiling=1"):
            x = x / 2
        return x


config = torchair.CompilerConfig()
model = torch.compile(Model(), backend=torchair.get_npu_backend(compiler_config=config), dynamic=False)

SK_OPTIONS = {"fast": "stream-fusion=1", "debug": "debug-sync-all=2"}  # expect: TNG112


class Tuned(torch.nn.Module):
    def forward(self, x):
        with super_kernel("sk6", SK_OPTIONS["fast"]):
            x = x + 1
        with super_kernel("sk7", SK_OPTIONS["debug"]):
            x = x + 2
        return x


tuned = torch.compile(Tuned(), backend=torchair.get_npu_backend(compiler_config=config), dynamic=False)
