# tngc-args: --soc Ascend910B1
import torch
import torch_npu
import torchair
from torchair.configs.compiler_config import CompilerConfig


# Super kernels run on Atlas A3 and, from TorchAir fced8842 on (its docs),
# on Atlas A2 too: Ascend910B1 is an Atlas A2 chip, so nothing is reported.
class Model(torch.nn.Module):
    def forward(self, x, w):
        with torchair.scope.super_kernel("sp1", ""):
            y = torch.mm(x, w)
            y = torch.relu(y)
        return y


if __name__ == "__main__":
    config = CompilerConfig()
    npu_backend = torchair.get_npu_backend(compiler_config=config)
    model = torch.compile(Model(), backend=npu_backend, dynamic=False)
    x = torch.randn(64, 64).npu()
    w = torch.randn(64, 64).npu()
    out = model(x, w)
