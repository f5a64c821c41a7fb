import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x1, x2):
        return x1.sum() + x2.sum()


config = torchair.CompilerConfig()
config.inference_config.dynamic_gears_merge_policy = "product"
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=True, fullgraph=True)
input1 = torch.ones(2, 64).npu()
input2 = torch.ones(16, 64).npu()
# 11 x 10 = 110 combinations: more than 100 gears.
torchair.inference.set_dim_gears(input1, dim_gears={0: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]})
torchair.inference.set_dim_gears(input2, dim_gears={0: [16, 32, 48, 64, 80, 96, 112, 128, 144, 160]})  # expect: TNG129
out = model(input1, input2)
