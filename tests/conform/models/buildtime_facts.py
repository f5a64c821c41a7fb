# Library facts at build time and two composed ops: hasattr on torch,
# torch.nn.functional, an nn.Linear and a script module picks the code path
# (PyTorch 2.x's answers: SDPA and torch.compile exist, an unset attribute
# does not); numpy in __init__ (np.log scaling a 0-d parameter, -np.inf
# filling a causal-mask buffer, np.log / np.exp / np.sqrt / np.pi and
# np.newaxis building a sinusoid table buffer); torch.hstack, vstack,
# row_stack and dstack of 2-d, 1-d and 0-d tensors; F.rms_norm over one and two trailing dims, with and
# without weight, eps given and None, and of bfloat16 and float16 inputs
# (one operation rounded once: widened to float32, computed, rounded back).
# float32 otherwise; the batch dim takes 2 or 4
# (zip gears, every gear checked). (tests/conform/run.sh)
# tolerance: matmul
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

GEARS = [2, 4]


def table(length, channels):
    step = np.log(10000) / (channels // 2 - 1)
    freqs = torch.exp(-step * torch.arange(channels // 2))
    t = torch.arange(length)[:, np.newaxis] * freqs[np.newaxis, :]
    return torch.cat([torch.sin(t), torch.cos(t * np.sqrt(2.0) / np.exp(1) * np.pi)], dim=1)


class Proj(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.gain = 2.0

    def forward(self, x):
        y = self.fc(x)
        if hasattr(self.fc, "scales"):   # False: nn.Linear has no such attribute
            y = y * self.fc.scales
        if hasattr(self, "gain") and not hasattr(self, "offset"):
            y = y * self.gain
        return y


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = Proj()
        self.flash = hasattr(F, "scaled_dot_product_attention") and hasattr(torch, "compile")
        self.has_weight = hasattr(self.proj.fc, "weight")
        self.scale = nn.Parameter(torch.ones([]) * np.log(1 / 0.07))
        self.register_buffer("mask", torch.empty(8, 8).fill_(-np.inf).triu_(1), persistent=False)
        self.register_buffer("pos", table(8, 16))
        self.norm_w = nn.Parameter(torch.rand(16) + 0.5)
        self.norm_w2 = nn.Parameter(torch.rand(8, 16) + 0.5)

    def forward(self, x, v):
        # x: [B, 8, 16] float32; v: [B, 3] float32
        h = self.proj(x + self.pos) * self.scale.exp()
        if self.flash and self.has_weight:   # attention written out (the ACL target has no sdpa)
            a = torch.softmax(h @ h.transpose(-1, -2) * 0.25 + self.mask, dim=-1) @ h
        else:
            a = h
        wide = torch.hstack([torch.zeros(8, 2), self.mask.clamp(min=-1e4)])
        flat = torch.hstack([v[0], torch.ones(2, 3)[1], torch.tensor(5.0)])
        return (a,
                a.sum(-1, keepdim=True) + wide[None],
                flat,
                torch.hstack((v, v * 2)),
                F.rms_norm(a, (16,), self.norm_w, 1e-5),
                F.rms_norm(a, [8, 16], self.norm_w2),
                F.rms_norm(a * 3, (16,)),
                F.rms_norm(a.bfloat16(), (16,), self.norm_w.bfloat16(), 1e-6),
                F.rms_norm(a.half() * 2, [8, 16]),
                torch.vstack([v[0], torch.ones(3), v[1] * 2]),
                torch.row_stack((v, v - 1)),
                torch.vstack([torch.tensor(1.0), v[0, :1]]),
                torch.dstack([v, v * 3]),
                torch.dstack((v[0], v[1])),
                torch.dstack([torch.tensor(2.0), v[0, 1]]))


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().eval().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(4, 8, 16).npu()
v = torch.randn(4, 3).npu()
for t in (x, v):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, v)
print(len(outs))
