# A hand-written RMSNorm as one row kernel on the CPU target
# (codegen/fuse.c): x * rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w in
# its spellings (x ** 2, x * x, torch.square; rsqrt(...) on either side of
# the multiply; with and without the weight; a 2-D and a 3-D input, rows of
# 48 and 64), the normalised value read again (ends the row kernel before
# the weight), and float16 / bfloat16 inputs (elementwise groups only,
# rounded per op). Results bitwise equal to --no-fuse
# (tests/conform/fuse_bits.sh). The batch dim takes 2 or 3 (zip gears).
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 3]


class RMSNorm(torch.nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.rand(dim) + 0.5)
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.n1 = RMSNorm(64, 1e-6)
        self.n2 = RMSNorm(48, 1e-5)

    def forward(self, x, y, h, b):
        # x: [B, 5, 64] float32; y: [B, 48] float32; h, b: [B, 64] f16 / bf16
        outs = [self.n1(x), self.n2(y)]
        outs.append(torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-3) * x)
        outs.append(y * torch.rsqrt(torch.square(y).mean(dim=-1, keepdim=True) + 0.5))
        n = x * torch.rsqrt((x ** 2).mean(-1, keepdim=True) + 1e-6)
        outs.append(n * self.n1.weight)
        outs.append(n + 1.0)
        for v in (h, b):
            outs.append(v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + 1e-3) * self.n1.weight.to(v.dtype))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(3, 5, 64).npu()
y = (torch.randn(3, 48) * 3).npu()
h = torch.randn(3, 64).half().npu()
b = torch.randn(3, 64).bfloat16().npu()
for t in (x, y, h, b):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, y, h, b)
print(len(outs))
