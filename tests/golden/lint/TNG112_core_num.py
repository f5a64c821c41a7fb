import torch
import torch_npu
import torchair as tng


# debug-aic-num and debug-aiv-num are non-negative integers (0: not set).
class Model(torch.nn.Module):
    def forward(self, x, w):
        with tng.scope.super_kernel("sk1", "debug-aic-num=0"):
            y = torch.mm(x, w)
        with tng.scope.super_kernel("sk2", "debug-aiv-num=-4"):  # expect: TNG112
            y = torch.relu(y)
        with tng.scope.super_kernel("sk3", "debug-aic-num=eight"):  # expect: TNG112
            y = y * 2
        with tng.scope.super_kernel("sk4", "debug-aiv-num=16"):
            y = y + 1
        return y


config = tng.CompilerConfig()
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(64, 64).npu()
w = torch.randn(64, 64).npu()
out = model(x, w)
