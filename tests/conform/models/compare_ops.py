# The comparison family: eq ne lt le gt ge as torch functions,
# tensor methods and Python operators, tensor with tensor (broadcast,
# promoted as torch: float16 with float32, int32 with float, a 0-d tensor)
# and with a Python scalar on either side; logical_and/or/xor/not, & | ^ ~
# on bool and int tensors (and a Python bool/int operand); isnan, isinf,
# isfinite; any/all (full, and dim= with keepdim). Every output is bool or
# int: exact. The batch dim takes 2 or 4 (zip gears, every gear checked).
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def forward(self, x, h, b, y, i, j):
        # x, h, b: [B, 16] float32 / float16 / bfloat16 small integers and
        # halves (so that ties occur); y: [16] float32 with NaN and inf;
        # i: [B, 16] int32; j: [16] int64
        outs = []
        for v in (x, h, b):
            w = y.to(v.dtype)
            outs.append(v == w)
            outs.append(v != w)
            outs.append(v < w)
            outs.append(v <= w)
            outs.append(v > w)
            outs.append(v >= w)
            outs.append(torch.eq(v, 0.5))
            outs.append(v.ne(1))
            outs.append(torch.lt(v, -1.0))
            outs.append(v.le(v * 0.5))
            outs.append(torch.gt(v, x))
            outs.append(v.ge(i))
            outs.append(2 < v)
            outs.append(0.5 >= v)
            outs.append(1 == v)
            outs.append(v != 0.1)
            outs.append(torch.greater(v, w))
            outs.append(torch.less_equal(v, 1.5))
            outs.append(v > torch.tensor(0.5))
            outs.append(torch.isnan(w))
            outs.append(w.isinf())
            outs.append(torch.isfinite(w))
            outs.append((v > 0).any())
            outs.append((v > 0).all(dim=1))
            outs.append(torch.any(v > 1, dim=0, keepdim=True))
            outs.append(v.any(1))
            outs.append(v.all())
        outs.append(i == j)
        outs.append(i < 2.5)
        outs.append(i >= 1)
        outs.append(j.lt(i))
        outs.append(torch.isnan(i))
        mi = i > 0
        mj = j.bool()
        outs.append(mi & mj)
        outs.append(mi | mj)
        outs.append(mi ^ mj)
        outs.append(~mi)
        outs.append(mi & True)
        outs.append(torch.logical_and(mi, mj))
        outs.append(torch.logical_or(x, i))
        outs.append(x.logical_xor(h))
        outs.append(torch.logical_not(i))
        outs.append(mi.logical_not())
        outs.append(i & j)
        outs.append(i | 6)
        outs.append(i ^ 3)
        outs.append(~i)
        outs.append(torch.bitwise_and(i, j))
        outs.append(mi.all(dim=-1, keepdim=True))
        outs.append(torch.all(i))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.randint(-6, 7, (4, 16)) * 0.5).npu()
h = (torch.randint(-6, 7, (4, 16)) * 0.5).half().npu()
b = (torch.randint(-6, 7, (4, 16)) * 0.5).bfloat16().npu()
y = torch.randint(-6, 7, (16,)) * 0.5
y[3] = float("nan")
y[7] = float("inf")
y[11] = float("-inf")
y = y.npu()
i = torch.randint(-4, 4, (4, 16), dtype=torch.int32).npu()
j = torch.randint(-4, 4, (16,)).npu()
for t in (x, h, b, i):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, h, b, y, i, j)
print(len(outs))
