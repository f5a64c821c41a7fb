# tolerance: matmul
# The neural net family's attention modules: a transformer block
# built ViT-style with the activation passed as a class (act_layer=nn.GELU,
# then act_layer()): nn.LayerNorm -> nn.MultiheadAttention(batch_first=True,
# need_weights=False) -> residual -> MLP; and nn.MultiheadAttention with
# batch_first=False returning its weights (averaged over the heads, and per
# head) under a float additive mask. The state_dict names are PyTorch's
# (in_proj_weight, in_proj_bias, out_proj.weight, out_proj.bias). float32,
# and bfloat16 in a second entry (HalfModel: the MLP with the default
# GELU; attention computed step by step as PyTorch 1.13 does, so that each
# step rounds alike; the whole block is left out in bfloat16: its residual
# sums turn 1-ulp differences of PyTorch's fused self-attention path into
# relative errors beyond the tolerance);
# the batch dim takes 2 or 4 (zip gears, every gear checked).
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn

GEARS = [2, 4]


class Mlp(nn.Module):
    def __init__(self, dim, hidden, act_layer=nn.GELU):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = act_layer()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class Block(nn.Module):
    def __init__(self, dim, heads, act_layer=nn.GELU):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, 2 * dim, act_layer=act_layer)

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block(32, 4, act_layer=nn.SiLU)
        self.cross = nn.MultiheadAttention(32, 2, bias=False)

    def forward(self, x, mem, mask):
        # x: [B, 6, 32]; mem: [5, B, 32] (sequence first); mask: [6, 5] float
        y = self.block(x)
        q = y.transpose(0, 1)
        o, w = self.cross(q, mem, mem, attn_mask=mask)
        o2, w2 = self.cross(q, mem, mem, attn_mask=mask, average_attn_weights=False)
        o3, none = self.cross(q, mem, mem, need_weights=False)
        return y, o, w, o2, w2, o3


class HalfModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = Mlp(32, 64).bfloat16()
        self.cross = nn.MultiheadAttention(32, 2).bfloat16()

    def forward(self, x, mem):
        o, w = self.cross(x.transpose(0, 1), mem, mem)
        o2, none = self.cross(x.transpose(0, 1), mem, mem, need_weights=False)
        return self.mlp(x), o, w, o2


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().eval().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
hmodel = torch.compile(HalfModel().eval().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(4, 6, 32).npu()
mem = torch.randn(5, 4, 32).npu()
mask = (torch.randn(6, 5) * 2).npu()
xh, memh = x.bfloat16(), mem.bfloat16()
torchair.inference.set_dim_gears(x, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(xh, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(mem, dim_gears={1: GEARS})
torchair.inference.set_dim_gears(memh, dim_gears={1: GEARS})
with torch.no_grad():
    outs = model(x, mem, mask)
    houts = hmodel(xh, memh)
print(len(outs), len(houts))
