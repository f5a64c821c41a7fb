# tolerance: matmul
# nn.MultiheadAttention's masks as PyTorch 1.13's multi_head_attention_forward
# merges them: a bool key_padding_mask [B, S] (True: padding) alone, with a
# bool attn_mask [L, S] (or-ed), with a float attn_mask (the padded scores
# -inf); a bool attn_mask alone; a 3-d float attn_mask [B * heads, L, S].
# Cross-attention (query is not key: PyTorch's fused self-attention path is
# not taken), batch_first False and True, the weights averaged and per
# head; no row is fully masked. float32, and bfloat16 in a second entry.
# The batch dim takes 2 or 4 (zip gears, every gear checked).
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn

GEARS = [2, 4]
L, S, E, HEADS = 6, 5, 16, 2


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.seq = nn.MultiheadAttention(E, HEADS)
        self.bf = nn.MultiheadAttention(E, HEADS, batch_first=True)

    def forward(self, q, mem, kpm, bmask, fmask, mask3):
        # q [B, L, E]; mem [B, S, E]; kpm [B, S] bool; bmask [L, S] bool;
        # fmask [L, S] float; mask3 [B * HEADS, L, S] float
        qs, ms = q.transpose(0, 1), mem.transpose(0, 1)
        outs = list(self.seq(qs, ms, ms, key_padding_mask=kpm))
        outs += list(self.seq(qs, ms, ms, key_padding_mask=kpm, attn_mask=bmask))
        outs += list(self.seq(qs, ms, ms, key_padding_mask=kpm, attn_mask=fmask, average_attn_weights=False))
        outs += list(self.bf(q, mem, mem, attn_mask=bmask))
        outs += list(self.bf(q, mem, mem, attn_mask=mask3))
        outs.append(self.bf(q, mem, mem, key_padding_mask=kpm, need_weights=False)[0])
        return outs


class HalfModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.bf = nn.MultiheadAttention(E, HEADS, batch_first=True).bfloat16()

    def forward(self, q, mem, kpm, bmask):
        return list(self.bf(q, mem, mem, key_padding_mask=kpm, attn_mask=bmask))


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().eval().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
hmodel = torch.compile(HalfModel().eval().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
q = torch.randn(4, L, E).npu()
mem = torch.randn(4, S, E).npu()
# padding at the end of each batch's memory: lengths 5, 3, 4, 2
kpm = (torch.arange(S).unsqueeze(0) >= torch.tensor([5, 3, 4, 2]).unsqueeze(1)).npu()
# query i may not see memory positions > i + 1 (position 0 always visible)
bmask = (torch.arange(S).unsqueeze(0) > torch.arange(L).unsqueeze(1) + 1).npu()
fmask = (torch.randn(L, S) * 2).npu()
mask3 = (torch.randn(4 * HEADS, L, S) * 2).npu()
qh, memh = q.bfloat16(), mem.bfloat16()
for t in (q, mem, kpm, qh, memh):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(mask3, dim_gears={0: [g * HEADS for g in GEARS]})
with torch.no_grad():
    outs = model(q, mem, kpm, bmask, fmask, mask3)
    houts = hmodel(qh, memh, kpm, bmask)
print(len(outs), len(houts))
