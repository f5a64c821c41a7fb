import torch
import torch_npu
import torchair
from torchair import scope


# dcci-disable-on-kernel is a comma-separated list of op type names.
class Model(torch.nn.Module):
    def forward(self, x, w):
        with scope.super_kernel("sk1", "dcci-disable-on-kernel=MatMulV2,,AddN"):  # expect: TNG112
            y = torch.mm(x, w)
        with scope.super_kernel("sk2", "dcci-disable-on-kernel=MatMulV2,"):  # expect: TNG112
            y = torch.relu(y)
        with scope.super_kernel("sk3", "dcci-disable-on-kernel=Mat-Mul"):  # expect: TNG112
            y = y + 1
        with scope.super_kernel("sk4", "dcci-disable-on-kernel=MatMulV2,AddN"):
            y = torch.mm(y, w)
        return y


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(64, 64).npu()
w = torch.randn(64, 64).npu()
out = model(x, w)
