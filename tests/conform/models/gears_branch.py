# tolerance: matmul
# Python branches on a geared length that every gear decides alike, as a
# decoder's prefill writes them: `if seqlen > 1:` builds a causal mask,
# `is_causal=mask is not None and n > 1` for scaled_dot_product_attention,
# an == / != on the length and arithmetic on it (`seqlen * 2 >= 4`,
# `seqlen - 1 != 0`). The length (dim 1 of x) takes 2, 3 or 5; the
# example call is 5. Each gear must match PyTorch at its shape.
# float32 [2, S, 8].
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        seqlen = x.shape[1]
        h = self.proj(x)
        mask = None
        if seqlen > 1:
            mask = torch.full((seqlen, seqlen), float("-inf")).triu_(1)
        s = h @ h.transpose(1, 2) / 4
        if mask is not None:
            s = s + mask
        y = torch.softmax(s, dim=-1) @ h
        q = h[:, None]
        z = F.scaled_dot_product_attention(q, q, q, is_causal=mask is not None and seqlen > 1)[:, 0]
        if seqlen == 0 or seqlen * 2 < 4:
            z = z * 0
        scale = 2.0 if seqlen - 1 != 0 else -1.0
        return y + z * scale


npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
compiled = torch.compile(Model().eval(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(2, 5, 8)
torchair.inference.set_dim_gears(x, dim_gears={1: [2, 3, 5]})
with torch.no_grad():
    out = compiled(x)
print(out.shape)
