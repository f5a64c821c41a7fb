# An in-place update whose operand shapes tngc can show equal only gear by
# gear, as DeepSeek-V3's attention writes it: the scores against a cache
# prefix read as cache[:, :end] (its length min(end, max_len)) take a
# causal mask of the query length in place (scores += mask). The planner
# checks the shapes in every gear (a failing gear would be TNG209). The
# cache is a non-persistent buffer, zeros, that the method writes in place:
# state that starts at zeros, which the weights file may leave out. The
# query length takes 4 or 6 (zip gears, every gear checked).
# (tests/conform/run.sh)
# tolerance: matmul
import torch
import torch_npu
import torchair
from torch import nn

B, S, H = 2, 8, 16


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.wk = nn.Linear(H, H, bias=False)
        self.register_buffer("cache", torch.zeros(B, S, H), persistent=False)

    def forward(self, x):
        seqlen = x.shape[1]
        end = 0 + seqlen
        self.cache[:, 0:end] = self.wk(x)
        scores = x @ self.cache[:, :end].transpose(1, 2)
        mask = torch.full((seqlen, seqlen), float("-inf")).triu_(1)
        scores += mask
        return torch.softmax(scores, dim=-1) @ self.cache[:, :end]


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(B, 6, H).npu()
torchair.inference.set_dim_gears(x, dim_gears={1: [4, 6]})
with torch.no_grad():
    out = model(x)
print(tuple(out.shape))
