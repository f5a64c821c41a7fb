# torch.set_default_dtype(torch.bfloat16), as DeepSeek-V3's inference code
# sets it before building the model: every float tensor made without a
# dtype is bfloat16 (torch.zeros, torch.tensor of floats, a float arange,
# torch.full of a float, nn.Linear's and nn.LayerNorm's parameters), an
# integer tensor promoted to float by a float scalar, by true division or
# by a float function (exp) becomes bfloat16, and
# torch.get_default_dtype() and torch.finfo() answer bfloat16. The token
# count takes 4 or 8 (zip gears, every gear checked). (tests/conform/run.sh)
# tolerance: matmul
import torch
import torch_npu
import torchair
from torch import nn

torch.set_default_dtype(torch.bfloat16)
D = 16


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(D, D)
        self.norm = nn.LayerNorm(D)
        self.register_buffer("scale", torch.tensor([0.5, 1.5]))

    def forward(self, x, ids):
        # x [T, D] bfloat16 (the default), ids [T] int64
        pos = torch.arange(0.0, 2.0, 0.5)                      # bfloat16 [4]
        half = ids * 1.5 + (ids / 4) + torch.exp(ids - 4)      # int64 promoted: bfloat16
        base = torch.zeros(x.shape[0], D) + torch.full((1, D), 0.25)
        tiny = torch.finfo(torch.get_default_dtype()).eps
        h = self.norm(self.proj(x) + base) * self.scale[1] + tiny
        return h + half[:, None], pos * 3, torch.get_default_dtype() == torch.bfloat16


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(8, D).npu()
ids = torch.arange(8).npu()
torchair.inference.set_dim_gears(x, dim_gears={0: [4, 8]})
torchair.inference.set_dim_gears(ids, dim_gears={0: [4, 8]})
with torch.no_grad():
    out, pos, flag = model(x, ids)
print(out.dtype, pos.dtype, flag)
