# LayerNorm written by hand as one row kernel on the CPU target
# (codegen/fuse.c row groups): (x - mean) / sqrt(var + eps) * w + b
# with x.var(unbiased=False), with mean((x - u) ** 2), with
# (x - u).pow(2).mean(...), the rsqrt form, with and without weight and
# bias, after a residual add, and RMSNorm in float16 and bfloat16; float32,
# float16 and bfloat16 inputs (rounded per op as the separate kernels), a
# 2-D and a 3-D input, rows of 64 and 40. Results bitwise equal to
# --no-fuse (tests/conform/fuse_bits.sh). The batch dim takes 2 or 3 (zip
# gears). (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 3]


def ln_var(x, w, b, eps):
    u = x.mean(-1, keepdim=True)
    return (x - u) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + eps) * w + b


def ln_sq(x, w, b, eps):
    u = x.mean(-1, keepdim=True)
    d = x - u
    return d * torch.rsqrt(((x - u) ** 2).mean(-1, keepdim=True) + eps) * w + b


def ln_pow(x, eps):
    d = x - x.mean(dim=-1, keepdim=True)
    return d / (d.pow(2).mean(-1, keepdim=True) + eps).sqrt()


def rms(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.rand(64) + 0.5)
        self.b = torch.nn.Parameter(torch.rand(64) - 0.5)
        self.w2 = torch.nn.Parameter(torch.rand(40) + 0.5)

    def forward(self, x, y, a, h, g):
        # x, a: [B, 5, 64] float32; y: [B, 40] float32; h: [B, 64] float16;
        # g: [B, 64] bfloat16
        outs = [ln_var(x, self.w, self.b, 1e-5), ln_sq(y, self.w2, 0.25, 1e-6), ln_pow(x, 1e-5)]
        r = x + a
        outs.append(ln_var(r, self.w, self.b, 1e-5) + r)
        outs.append(ln_pow(y * 2.0 - 1.0, 1e-3) * self.w2)
        for v in (h, g):
            w = self.w.to(v.dtype)
            b = self.b.to(v.dtype)
            outs.append(ln_var(v, w, b, 1e-5))
            outs.append(ln_sq(v, w, b, 1e-3))
            outs.append(ln_pow(v, 1e-5))
            outs.append(rms(v, w, 1e-5))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.randn(3, 5, 64) * 2 + 0.5).npu()
y = (torch.randn(3, 40) * 3).npu()
a = torch.randn(3, 5, 64).npu()
h = (torch.randn(3, 64) + 1).half().npu()
g = (torch.randn(3, 64) - 1).bfloat16().npu()
for t in (x, y, a, h, g):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, y, a, h, g)
print(len(outs))
