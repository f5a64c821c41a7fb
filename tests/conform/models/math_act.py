# The math family's activations on float32, float16 and bfloat16:
# F.softplus (defaults, beta and threshold given, the threshold crossed),
# F.leaky_relu (default and given slopes, inplace=True on float32), F.hardswish (the
# kinks at -3 and 3), F.mish, and the modules nn.Softplus, nn.LeakyReLU,
# nn.Hardswish, nn.Mish, nn.ReLU, nn.SiLU, nn.GELU; each its own output. The
# batch dim takes 2 or 4 (zip gears, every gear checked).
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
        self.softplus = nn.Softplus(beta=2, threshold=5)
        self.softplus_default = nn.Softplus()
        self.leaky = nn.LeakyReLU(0.2)
        self.leaky_default = nn.LeakyReLU()
        self.hardswish = nn.Hardswish()
        self.mish = nn.Mish()
        self.act = nn.Sequential(nn.ReLU(), nn.SiLU(), nn.GELU())

    def forward(self, x, h, b):
        # x, h, b: [B, 64] float32 / float16 / bfloat16 in about [-25, 25]
        outs = []
        for v in (x, h, b):
            outs.append(F.softplus(v))
            outs.append(F.softplus(v, beta=0.5, threshold=4))
            outs.append(F.softplus(v, 3.0, 30))
            outs.append(F.leaky_relu(v))
            outs.append(F.leaky_relu(v, negative_slope=0.3))
            outs.append(F.hardswish(v * 0.25))
            outs.append(F.mish(v))
            outs.append(F.mish(v * 0.2))
            outs.append(self.softplus(v))
            outs.append(self.softplus_default(v))
            outs.append(self.leaky(v))
            outs.append(self.leaky_default(v))
            outs.append(self.hardswish(v * 0.25))
            outs.append(self.mish(v))
            outs.append(self.act(v))
        # in place on float32 only: the reference's float16 fallback (no
        # PyTorch 1.13 kernel) computes out of place
        w = x * 2.0
        F.leaky_relu(w, 0.1, inplace=True)
        outs.append(w)
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.rand(4, 64) * 50 - 25).npu()
h = (torch.rand(4, 64) * 50 - 25).half().npu()
b = (torch.rand(4, 64) * 50 - 25).bfloat16().npu()
for t in (x, h, b):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, h, b)
print(len(outs))
