# Constant tensors: a non-persistent buffer (inv_freq from
# arange and pow), a plain tensor attribute (a triu mask) and a
# module-level tensor are computed from constants: their ops are replayed
# into the graph (arange, pow_tensor, reciprocal, full, triu, ...), not
# planned as weights. The persistent buffer (pos, from arange) stays a
# weight (state_dict has it); so do a non-persistent buffer from randn
# (data tngc does not know) and one computed from a parameter.
import torch, torch_npu, torchair
TABLE = torch.arange(4, dtype=torch.float32) * 0.5
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(4))
        inv = 1.0 / (10000.0 ** (torch.arange(0, 8, 2, dtype=torch.float32) / 8))
        self.register_buffer("inv_freq", inv, persistent=False)
        self.mask = torch.triu(torch.full((4, 4), float("-inf")), diagonal=1)
        self.register_buffer("pos", torch.arange(4, dtype=torch.float32))
        self.register_buffer("noise", torch.randn(4), persistent=False)
        self.register_buffer("w2", self.w * 2, persistent=False)
    def forward(self, x):
        y = x * self.inv_freq + TABLE + self.pos + self.noise + self.w2
        return y[None, :] + self.mask
m = torch.compile(M(), fullgraph=True)
m(torch.ones(4))
