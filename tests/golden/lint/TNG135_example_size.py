import torch
import torch_npu
import torchair

# guard_gears_shape (inference/_gear_utils.py:65-80), run on the inputs
# of every compile (npu_fx_compiler.py:817), asserts that an input's size on
# each geared dim is one of its gears (_guard_dynamic_dim, :47-62).


class Model(torch.nn.Module):
    def forward(self, x, y):
        return x + 1, y * 2


config = torchair.CompilerConfig()
model = torch.compile(Model(), backend=torchair.get_npu_backend(compiler_config=config), dynamic=True, fullgraph=True)
x = torch.ones(3, 8).npu()
y = torch.ones((4, 16))
torchair.inference.set_dim_gears(x, dim_gears={0: [2, 4]})
torchair.inference.set_dim_gears(y, dim_gears={0: [2, 4], 1: [8, 16]})
model(x, y)  # expect: TNG135
z = torch.ones(2, 8).npu()
torchair.inference.set_dim_gears(z, dim_gears={0: [2, 4]})
model(z, y)
