# The math family's unary operators on float32, float16 and
# bfloat16: cos, sin, reciprocal, square, sign, floor, ceil, round (halves to
# even), erf, log1p, expm1, as torch functions and as tensor methods, each
# its own output so a failure names the op; sign, square, floor, ceil and
# round on int32 (the dtype stays), cos and reciprocal on int32 (float32
# results). The batch dim takes 2 or 4 (zip gears, every gear checked).
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def forward(self, x, h, b, r, i):
        # x, h, b: [B, 64] float32 / float16 / bfloat16 in about [-6, 6]
        # r: [B, 64] float32 multiples of 0.5 in [-10, 10] (ties of round)
        # i: [B, 64] int32 in [-20, 20)
        outs = []
        for v in (x, h, b):
            outs.append(torch.cos(v))
            outs.append(torch.sin(v * 10.0))
            outs.append(torch.reciprocal(v))
            outs.append(torch.square(v))
            outs.append(torch.sign(v))
            outs.append(torch.floor(v))
            outs.append(torch.ceil(v))
            outs.append(torch.round(v))
            outs.append(torch.erf(v))
            outs.append(torch.log1p(torch.abs(v)))
            outs.append(torch.expm1(v))
            outs.append(v.cos() + v.sin())
            outs.append(v.reciprocal().square())
            outs.append(v.sign() * v.floor() - v.ceil())
            outs.append(v.round(decimals=0))
            outs.append(v.erf())
            outs.append(torch.log1p(v * 0.001))
            outs.append(v.expm1() + (v * 0.001).expm1())
        for v in (r, r.half(), r.bfloat16()):
            outs.append(torch.round(v))
            outs.append(v.floor())
            outs.append(v.ceil())
            outs.append(torch.sign(v))
        outs.append(torch.sign(i))
        outs.append(i.square())
        outs.append(torch.floor(i) + torch.ceil(i) + i.round())
        outs.append(torch.cos(i))
        outs.append(i.reciprocal())
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.rand(4, 64) * 12 - 6).npu()
h = (torch.rand(4, 64) * 12 - 6).half().npu()
b = (torch.rand(4, 64) * 12 - 6).bfloat16().npu()
r = (torch.randint(-20, 21, (4, 64)) / 2.0).npu()
i = torch.randint(-20, 20, (4, 64), dtype=torch.int32).npu()
for t in (x, h, b, r, i):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, h, b, r, i)
print(len(outs))
