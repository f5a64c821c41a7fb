# Slice assignments whose bound is the geared sequence length (the KV cache
# write of a prefill): cache[:bsz, start_pos:start_pos + seqlen] = xk with
# start_pos a Python int, into a plain tensor attribute (state, weights file)
# and into a float16 buffer (float32 values stored), then reads of the
# prefix [:bsz, :start_pos + seqlen]; into an input, a number broadcast at
# a symbolic start ([:, seqlen:seqlen + 2]) and a column broadcast along
# the last dim ([:, :seqlen]). The caches after the call are outputs.
# (tests/conform/run.sh, every gear)
# tolerance: matmul
import torch
import torch_npu
import torchair
from torch import nn

B, S, H = 2, 12, 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.wk = nn.Linear(H, H)
        self.cache_k = torch.zeros((B, S, H))
        self.register_buffer("cache_v", torch.ones((B, S, H), dtype=torch.float16))

    def forward(self, x, tail, start_pos: int):
        bsz, seqlen, _ = x.shape
        xk = self.wk(x)
        self.cache_k[:bsz, start_pos:start_pos + seqlen] = xk
        self.cache_v[:bsz, start_pos:start_pos + seqlen] = xk * 2.0
        tail[:, seqlen:seqlen + 2] = 1.5
        tail[:, :seqlen] = x[:, :, :1]
        keys = self.cache_k[:bsz, :start_pos + seqlen]
        values = self.cache_v[:bsz, :start_pos + seqlen].float()
        return keys.sum(1), values.mean(1), self.cache_k * 1.0, self.cache_v * 1, tail * 1.0


model = Model().eval()
compiled = torch.compile(model, backend=torchair.get_npu_backend(compiler_config=torchair.CompilerConfig()),
                         dynamic=True, fullgraph=True)
x = torch.randn(B, 6, H)
tail = torch.randn(B, S, H)
torchair.inference.set_dim_gears(x, dim_gears={1: [4, 6]})
with torch.no_grad():
    out = compiled(x, tail, 3)
print(len(out))
