import torch
import torch_npu
import torchair as tng


# zip pairs the lists position by position; TorchAir asserts their lengths
# are equal (inference/_gear_utils.py:13-36). The error points at the first
# call whose length differs from the first geared call, not at the last call.
class Model(torch.nn.Module):
    def forward(self, x1, x2, x3):
        return x1 + x2 + x3


input1 = torch.ones(2, 2).npu()
input2 = torch.ones(2, 2).npu()
input3 = torch.ones(2, 2).npu()
config = tng.CompilerConfig()
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), fullgraph=True, dynamic=True, backend=npu_backend)
tng.inference.set_dim_gears(input1, dim_gears={0: [2, 4]})
tng.inference.set_dim_gears(input2, dim_gears={0: [2, 4, 8]})  # expect: TNG128
tng.inference.set_dim_gears(input3, dim_gears={0: [2, 4]})
out = model(input1, input2, input3)
