import torch
import torch_npu
import torchair
from torch._dynamo import mark_static
from torchair.inference import set_dim_gears


class Model(torch.nn.Module):
    def forward(self, x, kv):
        return x + kv


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.ones(2, 128).npu()
kv = torch.zeros(2, 128).npu()
mark_static(kv)
set_dim_gears(x, dim_gears={0: [2, 4]})
set_dim_gears(kv, dim_gears={0: [2, 4]})  # expect: TNG134
out = model(x, kv)
