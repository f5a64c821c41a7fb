# Fast kernel paths on float32 and float16: pow with integer and
# half-integer scalar exponents (multiplies and sqrt: 2, 3, -1, -2, 0.5,
# -0.5, 1.5, 4, -3, 2.5), the vectorised tanh, erf, log, exp, softmax and
# log_softmax over short rows (the three-pass form) and long rows of 300
# (the online form, with a masked -inf stretch) and a hand-written RMSNorm
# (x ** 2), at the default tolerance. kernels_gemm.py has the GEMM.
# The batch dim takes 2 or 4.
# (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn

GEARS = [2, 4]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm_w = nn.Parameter(torch.rand(48) + 0.5)

    def forward(self, x, h, s):
        # x [B, 3, 48] float32 in about [-3, 3]; h the same in float16
        # s [B, 300] float32 scores
        outs = []
        for v in (x, h):
            p = torch.abs(v) + 0.25
            outs.append(v ** 2)
            outs.append(v ** 3 + torch.pow(p, -1) + p ** -2)
            outs.append(p ** 0.5 + p ** -0.5 + p ** 1.5)
            outs.append(torch.pow(v, 4) + p ** -3 + p ** 2.5)
            outs.append(torch.tanh(v) + torch.erf(v))
            outs.append(torch.log(p) + torch.exp(v))
            outs.append(torch.softmax(v, dim=-1))
            outs.append(torch.log_softmax(v, dim=-1))
        ms = s.masked_fill(torch.arange(300) > 250, float("-inf"))
        outs.append(torch.softmax(s, dim=-1))
        outs.append(torch.softmax(ms, dim=-1))
        outs.append(torch.log_softmax(s * 3.0, dim=-1))
        outs.append(F.softmax(s.half(), dim=-1))
        rms = x * torch.rsqrt((x ** 2).mean(-1, keepdim=True) + 1e-6) * self.norm_w
        outs.append(rms)
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.rand(4, 3, 48) * 6 - 3).npu()
h = (torch.rand(4, 3, 48) * 6 - 3).half().npu()
s = (torch.randn(4, 300) * 4).npu()
for t in (x, h, s):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, h, s)
print(len(outs))
