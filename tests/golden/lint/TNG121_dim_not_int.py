import torch
import torch_npu
import torchair
from torchair.inference import set_dim_gears


class Model(torch.nn.Module):
    def forward(self, x1, x2):
        return x1 + x2


input1 = torch.ones(2, 2).npu()
input2 = torch.ones(2, 2).npu()
config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), fullgraph=True, dynamic=True, backend=npu_backend)
set_dim_gears(input1, dim_gears={"0": [2, 4]})  # expect: TNG121
set_dim_gears(input2, dim_gears={0.0: [2, 4]})  # expect: TNG121
out = model(input1, input2)
