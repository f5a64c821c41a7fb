# A mixture-of-experts layer as published reference models write it: the
# router's topk picks 2 of 4 experts per token, and each expert runs on the
# rows torch.where(selected == i) returns, its weighted output added back
# through those rows (out[rows] += w[rows, nth, None] * expert(x[rows])).
# How many rows an expert gets depends on the data; torch.compile takes
# that only with torch._dynamo.config.capture_dynamic_output_shape_ops
# set, as here. Also a 1-D selection (rows whose router score passes a
# threshold) stored into with a number, and the expert's own ops: linear,
# silu, gelu, a cast, softmax and a normalisation over the features. The
# token count takes 4 or 6 (zip gears, every gear checked).
# (tests/conform/run.sh)
# tolerance: matmul
import torch
import torch._dynamo
import torch_npu
import torchair
from torch import nn
import torch.nn.functional as F

torch._dynamo.config.capture_dynamic_output_shape_ops = True

D, H, E, K = 16, 24, 4, 2


class Expert(nn.Module):
    def __init__(self):
        super().__init__()
        self.w1 = nn.Linear(D, H, bias=False)
        self.w3 = nn.Linear(D, H, bias=False)
        self.w2 = nn.Linear(H, D)
        self.norm = nn.LayerNorm(D)

    def forward(self, x):
        h = F.silu(self.w1(x)) * self.w3(x).float().type_as(x)
        return self.norm(self.w2(h)) + F.gelu(x).softmax(dim=-1)


class Moe(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(D, E, bias=False)
        self.experts = nn.ModuleList([Expert() for _ in range(E)])

    def forward(self, x):
        flat = x.view(-1, x.shape[-1])
        logits = self.gate(flat)
        weights, selected = torch.topk(logits, K)
        weights = F.softmax(weights, dim=1, dtype=torch.float).type_as(x)
        out = torch.zeros_like(flat)
        for i, expert in enumerate(self.experts):
            rows, nth = torch.where(selected == i)
            out[rows] += weights[rows, nth, None] * expert(flat[rows])
        hot, = torch.where(logits.amax(dim=-1) > 0.2)
        marked = flat.clone()
        marked[hot] = -1.0
        return out.view_as(x), marked


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Moe().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(2, 6, D).npu()
torchair.inference.set_dim_gears(x, dim_gears={1: [4, 6]})
with torch.no_grad():
    out, marked = model(x)
print(tuple(out.shape), tuple(marked.shape))
