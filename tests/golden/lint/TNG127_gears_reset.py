import torch
import torch_npu
import torchair
from torchair.inference import set_dim_gears


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(2, 1024).npu()
set_dim_gears(x, dim_gears={0: [2, 4, 8]})
set_dim_gears(x, dim_gears={0: [2, 4, 8]})
set_dim_gears(x, dim_gears={0: [2, 4, 16]})  # expect: TNG127
out = model(x)
