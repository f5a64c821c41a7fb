import torch
import torch_npu
import torchair


# Gear values within 2^48 can still make a tensor too big in a gear: x8 is
# 2^47 bytes in gear 1 (s0=2**40), the cat of four of them 2^49.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x8 = torch.cat([x, x, x, x, x, x, x, x], dim=1)
        return torch.cat([x8, x8, x8, x8], dim=1) + 1  # expect: TNG209


x = torch.ones(2, 4).npu()
config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), fullgraph=True, backend=npu_backend)
torchair.inference.set_dim_gears(x, dim_gears={0: [2, 2**40]})
print(model(x))
