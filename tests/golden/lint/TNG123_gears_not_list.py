import torch
import torch_npu
import torchair
from torchair.inference import set_dim_gears


class Model(torch.nn.Module):
    def forward(self, x1, x2):
        return x1 * x2


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=True, fullgraph=True)
input1 = torch.randn(4, 16).npu()
input2 = torch.randn(4, 16).npu()
set_dim_gears(input1, dim_gears={0: 4})  # expect: TNG123
set_dim_gears(input2, dim_gears=[2, 4])  # expect: TNG123
out = model(input1, input2)
