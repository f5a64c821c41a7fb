import torch
import torch_npu
import torchair


# The gears are (2, 2)(2, 2) and (4, 2)(4, 2); the last call uses
# (8, 2)(8, 2), which the bundle will refuse (a warning: the plan is made).
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x1, x2):
        return x1 + x2


input1 = torch.ones(2, 2).npu()
input2 = torch.ones(2, 2).npu()
config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = Model().npu()
model = torch.compile(model, fullgraph=True, backend=npu_backend)
torchair.inference.set_dim_gears(input1, dim_gears={0: [2, 4]})
torchair.inference.set_dim_gears(input2, dim_gears={0: [2, 4]})
print(model(input1, input2))
print(model(torch.ones(4, 2).npu(), torch.ones(4, 2).npu()))
print(model(torch.ones(8, 2).npu(), torch.ones(8, 2).npu()))  # expect: TNG210
