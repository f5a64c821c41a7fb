# tolerance: matmul
# Matmul epilogue fusion (codegen/fuse_gemm.c): float32
# Linears whose weights the bundle packs at load, each followed by the ops
# the GEMM applies to its output tiles before storing them: bias + relu,
# silu then a scale, gelu (both forms), tanh, sigmoid, a residual add (an
# input, and a value whose buffer the sum may reuse), a row-vector add, a
# one-element tensor, scalars on either side, sub and div, and chains of
# several. Rows 2 x 7 or 4 x 7 by gear (not multiples of the 6- or 4-row
# tiles), columns 40, 48, 33, 100 (not multiples of 16 or 32), k 48 and
# 40. The same on float16 and bfloat16 Linears (computed in float32, each
# op's result rounded to the half type as the separate kernels round it):
# bias + silu + scale, a residual, a row-vector add + tanh, relu + scalar,
# gelu - residual. The batch dim takes 2 or 4.
# (tests/conform/run.sh; tests/conform/fuse_bits.sh: fused bits equal
# --no-fuse's)
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn

GEARS = [2, 4]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fa = nn.Linear(48, 40)
        self.fb = nn.Linear(40, 48)
        self.fc = nn.Linear(48, 33, bias=False)
        self.fd = nn.Linear(48, 100)
        self.fe = nn.Linear(48, 48)
        self.ha = nn.Linear(48, 40).half()
        self.hb = nn.Linear(48, 48).half()
        self.ba = nn.Linear(48, 40).bfloat16()
        self.bb = nn.Linear(48, 48, bias=False).bfloat16()

    def forward(self, x, v, s):
        # x [B, 7, 48] float32; v [48] float32; s [1] float32
        a = F.relu(self.fa(x))
        outs = [a]
        outs.append(F.silu(self.fb(a)) * 0.5 + x)
        outs.append(torch.tanh(self.fc(x)))
        outs.append(F.gelu(self.fd(x)) * 1.25)
        outs.append(F.gelu(self.fd(x * 0.5), approximate="tanh") - 0.75)
        outs.append(torch.sigmoid(self.fe(x) + v))
        t = x * 2.0
        u = F.relu(self.fa(x - 1.0))
        outs.append(t + self.fb(u))          # the sum may take t's buffer
        outs.append(2.0 - self.fe(x) / s)
        outs.append(1.0 / (self.fc(x) + 3.0))
        outs.append(x - self.fe(F.silu(x)))
        h = x.half()
        outs.append(F.silu(self.ha(h)) * 0.5)
        outs.append(h + self.hb(h))
        outs.append(torch.tanh(self.hb(h * 0.5) + v.half()))
        xb = x.bfloat16()
        outs.append(F.relu(self.ba(xb)) + 1.0)
        outs.append(F.gelu(self.bb(xb)) - xb)
        outs.append(torch.sigmoid(self.bb(xb * 2.0)) * 3.0)
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.rand(4, 7, 48) * 4 - 2).npu()
v = (torch.rand(48) * 2 - 1).npu()
s = (torch.rand(1) + 0.5).npu()
torchair.inference.set_dim_gears(x, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, v, s)
print(len(outs))
