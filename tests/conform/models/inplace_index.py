# The in-place index writes (scatter_ scatter_add_ index_add_ index_copy_)
# into the result of an op, as DeepSeek-V3's group-limited router writes
# its group mask (group_mask = zeros_like(...); group_mask.scatter_(1,
# idx, 1)): the tensor just takes the new value, later reads see it. Float32
# and float16 (the mask built in the scores' dtype), int64 indices from
# topk. The token dim takes 4 or 8 (zip gears, every gear checked).
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn

GEARS = [4, 8]
G, E = 4, 8


class Model(nn.Module):
    def forward(self, scores, h, src):
        # scores [T, E] float32, h [T, E] float16, src [T, 2] float32
        t = scores.shape[0]
        group_scores = scores.view(t, G, -1).topk(2, dim=-1)[0].sum(dim=-1)   # [T, G]
        group_idx = torch.topk(group_scores, k=2, dim=-1, sorted=False)[1]
        group_mask = torch.zeros_like(group_scores)
        group_mask.scatter_(1, group_idx, 1)
        score_mask = group_mask.unsqueeze(-1).expand(t, G, E // G).reshape(t, -1)
        masked = scores.masked_fill(~score_mask.bool(), 0.0)
        hm = torch.zeros_like(h)
        hm.scatter_(1, torch.topk(h.float(), 3, dim=-1)[1], h)   # float16 src tensor
        acc = torch.ones_like(scores)
        acc.scatter_add_(1, group_idx, src)
        acc.scatter_add_(1, group_idx + 4, src * 2.0)
        rows = torch.zeros(E, t, dtype=scores.dtype)
        rows.index_add_(0, torch.arange(1, 4, 2), src.t())
        cols = torch.zeros_like(scores)
        cols.index_copy_(1, torch.arange(0, 10, 5), src)
        return group_mask, masked, hm, acc, rows, cols


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
scores = torch.rand(8, E).npu()
h = torch.randn(8, E).half().npu()
src = torch.randn(8, 2).npu()
for x in (scores, h, src):
    torchair.inference.set_dim_gears(x, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(scores, h, src)
print([tuple(o.shape) for o in outs])
