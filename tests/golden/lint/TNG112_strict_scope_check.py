import torch
import torch_npu
import torchair as tng
from torchair.configs.compiler_config import CompilerConfig


# CANN's parser takes any non-empty strict-scope-check; the documentation
# lists bypass and abort: another value is a warning.
class Model(torch.nn.Module):
    def forward(self, x, w):
        with tng.scope.super_kernel("sk1", "strict-scope-check=warn"):  # expect: TNG112
            y = torch.mm(x, w)
        with tng.scope.super_kernel("sk2", "stream-fusion=0:strict-scope-check=Abort"):  # expect: TNG112
            y = torch.relu(y)
        with tng.scope.super_kernel("sk3", "strict-scope-check=bypass"):
            y = y * 2
        return y


config = CompilerConfig()
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(64, 64).npu()
w = torch.randn(64, 64).npu()
out = model(x, w)
