# torch.tensor of distinct values known when the script runs: a
# non-persistent buffer (not in state_dict, so not in the weights file: the
# bundle computes it), a tensor made at module level and read inside the
# compiled method, and literals inside the method itself (float32 values
# that a float32 does not hold exactly, float16 and bfloat16 rounding, an
# int64 index for index_select, a bool mask for where, a 2-D literal).
# Tokens take 4 or 8 (gears, every gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn

D = 8
SHIFT = torch.tensor([0.1, 0.2, 0.3, -0.7, 1e-3, 2.5, 1e8 + 3, -4.0])


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(D, D)
        self.register_buffer("scale", torch.tensor([0.5, 1.5, -2.0, 3.25, 0.1, 7.0, 1.0, 0.0]),
                             persistent=False)
        self.register_buffer("mix", torch.tensor([[1, 2], [3, 4], [5, -6]]), persistent=False)

    def forward(self, x, h):
        # x [T, D] float32, h [T, D] float16
        y = self.proj(x) * self.scale + SHIFT
        cols = torch.index_select(y, 1, torch.tensor([7, 0, 3, 3]))
        keep = torch.tensor([True, False, True, True, False, False, True, False])
        z = torch.where(keep, y, -y)
        hs = h * torch.tensor([0.1, 0.3, 65504.0, -1e-4, 2.0, 3.0, 0.5, 0.25], dtype=torch.float16)
        bf = x.bfloat16() + torch.tensor([0.1, 1e-3, 300.7, -2.0, 5.0, 6.0, 7.0, 8.0],
                                         dtype=torch.bfloat16)
        m = self.mix.sum(0) + torch.tensor([[10], [20]]).sum()
        return cols, z, hs, bf, m * 2


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(8, D).npu()
h = torch.randn(8, D).half().npu()
torchair.inference.set_dim_gears(x, dim_gears={0: [4, 8]})
torchair.inference.set_dim_gears(h, dim_gears={0: [4, 8]})
with torch.no_grad():
    outs = model(x, h)
print([o.shape for o in outs])
