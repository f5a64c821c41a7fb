# softmax and log_softmax over the last, the first and a middle dim;
# nn.LayerNorm with and without affine parameters, F.layer_norm over two
# trailing dims with weight and bias; torch_npu.npu_rms_norm with a 1-D and a
# 2-D gamma, both of its results (y and the float32 rstd); on float32,
# float16 and bfloat16 (PyTorch 1.13 has no float16 softmax or layer_norm
# on the CPU: the reference computes those in float32, see fallbacks).
# (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(32)
        self.ln_plain = nn.LayerNorm(32, elementwise_affine=False)
        self.w2 = nn.Parameter(torch.randn(8, 32))
        self.b2 = nn.Parameter(torch.randn(8, 32))
        self.gamma = nn.Parameter(torch.rand(32) + 0.5)
        self.gamma2 = nn.Parameter(torch.rand(8, 32) + 0.5)

    def forward(self, x, h, b):
        # x: [4, 8, 32] float32 (scaled: softmax inputs up to about +-12);
        # h, b: the same in float16 / bfloat16
        outs = []
        for v in (x, h, b):
            outs.append(torch.softmax(v, dim=-1))
            outs.append(torch.softmax(v, dim=0))
            outs.append(F.softmax(v, dim=1))
            outs.append(torch.log_softmax(v, dim=-1))
            outs.append(F.log_softmax(v, dim=1))
        outs.append(self.ln(x))
        outs.append(self.ln_plain(x))
        outs.append(F.layer_norm(x, (8, 32), self.w2, self.b2, eps=1e-3))
        y, rstd = torch_npu.npu_rms_norm(x, self.gamma, epsilon=1e-6)
        outs.append(y)
        outs.append(rstd)
        y2, rstd2 = torch_npu.npu_rms_norm(x, self.gamma2, epsilon=1e-5)
        outs.append(y2)
        outs.append(rstd2)
        for v in (h, b):
            outs.append(F.layer_norm(v, (32,)))
            yv, rv = torch_npu.npu_rms_norm(v, self.gamma.to(v.dtype))
            outs.append(yv)
            outs.append(rv)
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = (torch.randn(4, 8, 32) * 4).npu()
h = (torch.randn(4, 8, 32) * 4).half().npu()
b = (torch.randn(4, 8, 32) * 4).bfloat16().npu()
with torch.no_grad():
    outs = model(x, h, b)
print(len(outs))
