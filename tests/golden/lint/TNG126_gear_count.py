import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x1, x2):
        return torch.matmul(x1, x2)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=True, fullgraph=True)
input1 = torch.randn(4, 64).npu()
input2 = torch.randn(64, 8).npu()
torchair.inference.set_dim_gears(input1, dim_gears={0: [4]})  # expect: TNG126
torchair.inference.set_dim_gears(input2, dim_gears={1: ()})  # expect: TNG126
out = model(input1, input2)
