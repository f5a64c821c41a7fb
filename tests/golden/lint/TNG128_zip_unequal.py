import torch
import torch_npu
import torchair as tng


class Model(torch.nn.Module):
    def forward(self, x1, x2):
        return x1 + x2


input1 = torch.ones(2, 2).npu()
input2 = torch.ones(2, 2).npu()
config = tng.CompilerConfig()
config.inference_config.dynamic_gears_merge_policy = "zip"
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), fullgraph=True, dynamic=True, backend=npu_backend)
tng.inference.set_dim_gears(input1, dim_gears={0: [2, 4]})
tng.inference.set_dim_gears(input2, dim_gears={0: [2, 4, 8]})  # expect: TNG128
out = model(input1, input2)
