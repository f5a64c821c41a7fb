import torch
import torch_npu
import torchair as tng
from torchair.configs.compiler_config import CompilerConfig

config = CompilerConfig()
config.mode = "reduce-overhead"  # expect: TNG175
npu_backend = tng.get_npu_backend(compiler_config=config)


@torch.compile(backend=npu_backend, fullgraph=True, dynamic=True)
def step(x, y):
    return torch.mm(x, y).relu()


x = torch.randn(4, 256).npu()
y = torch.randn(256, 256).npu()
tng.inference.set_dim_gears(x, dim_gears={0: [4, 8, 16]})  # expect: TNG133
out = step(x, y)
