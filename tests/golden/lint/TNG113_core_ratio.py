import torch
import torch_npu
import torchair


# aic:aiv must reduce to 1:1 or 1:2 when both are given.
class Model(torch.nn.Module):
    def forward(self, x, w):
        with torchair.scope.super_kernel("sk1", "debug-aic-num=2:debug-aiv-num=3"):  # expect: TNG113
            y = torch.mm(x, w)
        with torchair.scope.super_kernel("sk2", "debug-aiv-num=8:debug-aic-num=16"):  # expect: TNG113
            y = torch.relu(y)
        with torchair.scope.super_kernel("sk3", "debug-aic-num=12:debug-aiv-num=24"):
            y = y * 2
        with torchair.scope.super_kernel("sk4", "debug-aic-num=8:debug-aiv-num=8"):
            y = y + 1
        return y


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(64, 64).npu()
w = torch.randn(64, 64).npu()
out = model(x, w)
