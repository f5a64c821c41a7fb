# Pointwise fusion on the CPU target (codegen/fuse.c): chains of
# elementwise ops whose intermediates nothing else reads become one loop.
# Covers binary ops with broadcasting ([B, 1], [64], 0-d) and scalars on
# either side, pow with integer, half-integer, negative and fractional
# exponents, activations, clamps, float casts inside a chain, a chain whose
# intermediate is also returned (the group must stop before it), one on a
# second stream (super_kernel.py covers chains in a scope); float32, float16
# and bfloat16 (rounded per op as the separate kernels). The batch dim
# takes 2 or 4 (zip gears, every gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def forward(self, x, h, b, r, w, s):
        # x, h, b: [B, 64] float32 / float16 / bfloat16 in about [-3, 3];
        # r: [B, 1] float32 > 0; w: [64] float32; s: 0-d float32
        outs = []
        for v in (x, h, b):
            rr = r.to(v.dtype)
            ww = w.to(v.dtype)
            y = (v * rr + ww) * 0.5 - 1.25
            y = torch.nn.functional.silu(y) * torch.sigmoid(v)
            outs.append(torch.tanh(y) + 2.0 / (1.0 + v * v))
            z = v.pow(2) + v ** 3 - v.abs().pow(0.5) + (v.abs() + 1).pow(-1.5)
            outs.append(torch.clamp(z * 0.125, -2.0, 2.0).exp())
            g = torch.nn.functional.gelu(v) + torch.nn.functional.gelu(v, approximate="tanh")
            outs.append(torch.maximum(g, ww) - torch.minimum(v, rr).relu())
            u = v.float() * 3.0
            outs.append((u.to(v.dtype) + 1.0).sqrt().to(torch.float32) * s)
            k = torch.rsqrt(v * v + 1e-3) * ww
            outs.append(k)
            outs.append(k.neg() * 2.0 + torch.nn.functional.leaky_relu(v, 0.1))
            outs.append((v.abs() + 0.5).pow(1.7) / (2.0 - torch.floor(v)).abs().clamp_min(0.5))
        q = (x - w) * r
        q = torch.nn.functional.softplus(q) + torch.erf(q) * 0.25
        outs.append(q.log1p())
        with torchair.scope.npu_stream_switch("1"):
            e = torch.nn.functional.hardswish(x * 0.5 + 0.25) - torch.nn.functional.mish(x)
            outs.append(e * e)
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.rand(4, 64) * 6 - 3).npu()
h = (torch.rand(4, 64) * 6 - 3).half().npu()
b = (torch.rand(4, 64) * 6 - 3).bfloat16().npu()
r = (torch.rand(4, 1) + 0.5).npu()
w = (torch.rand(64) * 2 - 1).npu()
s = torch.tensor(1.5).npu()
for t in (x, h, b, r):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, h, b, r, w, s)
print(len(outs))
