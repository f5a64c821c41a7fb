import torch
import torch_npu
import torchair as tng


class Model(torch.nn.Module):
    def forward(self, x1, x2):
        return x1 - x2


config = tng.CompilerConfig()
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=True, fullgraph=True)
input1 = torch.ones(8, 32).npu()
input2 = torch.ones(8, 32).npu()
tng.inference.set_dim_gears(input1, dim_gears={0: [2, 4.0]})  # expect: TNG124
tng.inference.set_dim_gears(input2, dim_gears={0: [0, "8"]})  # expect: TNG124,TNG125
out = model(input1, input2)
