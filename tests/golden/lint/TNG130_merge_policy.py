import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x1, x2):
        return x1 + x2


config = torchair.CompilerConfig()
config.inference_config.dynamic_gears_merge_policy = "cartesian"  # expect: TNG130
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=True, fullgraph=True)
input1 = torch.ones(2, 2).npu()
input2 = torch.ones(2, 2).npu()
torchair.inference.set_dim_gears(input1, dim_gears={0: [2, 4]})
out = model(input1, input2)
