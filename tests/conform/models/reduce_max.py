# The reductions family's max/min ops: Tensor.max / torch.min
# along a dim (keepdim or not; the result as .values / .indices and
# unpacked), without a dim (the full reduction, 0-d), of two tensors
# (elementwise); torch.argmax / argmin (dim, keepdim; no dim: flattened;
# keepdim with no dim); torch.amin; torch.prod (dim, keepdim, none,
# dtype=); torch.cumsum (dim, dtype=). Float32 with NaNs (NaN wins max and
# min, as in PyTorch), float16 and bfloat16, int32 with ties (the first
# index wins). The batch dim takes 2 or 4 (zip gears, every gear checked).
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def forward(self, x, h, b, y, i, p):
        # x, h, b: [B, 32] float32 / float16 / bfloat16 (distinct values k / 8);
        # y: [B, 32] float32 with NaNs in row 1; i: [B, 32] int32 in [-3, 3];
        # p: [B, 8] float32 near 1 (products stay moderate)
        outs = []
        for v in (x, h, b, y, i):
            r = v.max(dim=-1)
            outs.append(r.values)
            outs.append(r.indices)
            m, k = torch.min(v, 1, keepdim=True)
            outs.append(m)
            outs.append(k)
            outs.append(torch.max(v, dim=0).indices)
            outs.append(v.max())
            outs.append(torch.min(v))
            outs.append(torch.argmax(v, dim=1))
            outs.append(v.argmin(dim=-1, keepdim=True))
            outs.append(torch.argmax(v))
            outs.append(v.argmin(keepdim=True))
            outs.append(torch.amin(v, dim=-1))
            outs.append(v.amin(dim=(0, 1), keepdim=True))
            outs.append(torch.max(v, v * 2))
            outs.append(torch.min(v, other=v - 1))
        outs.append(x.max(dim=-1).values - x.min(dim=-1).values)
        for v in (x, h, b, i):
            outs.append(torch.cumsum(v, dim=-1))
            outs.append(v.cumsum(0))
        outs.append(torch.cumsum(i, 1, dtype=torch.float32))
        outs.append(i.cumsum(-1).dtype == torch.int64)
        for v in (p, p.half(), p.bfloat16(), i):
            outs.append(torch.prod(v, dim=-1))
            outs.append(v.prod(1, keepdim=True))
        outs.append(torch.prod(p[:, :4]))
        outs.append(i[:, :6].prod(dtype=torch.float32))
        return outs


def distinct(n, m):
    """[n, m] float32: distinct values k / 8, exact in float16 and bfloat16."""
    return (torch.randn(n * m).argsort().reshape(n, m) - n * m // 2).float() / 8


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = distinct(4, 32).npu()
h = distinct(4, 32).half().npu()
b = distinct(4, 32).bfloat16().npu()
y = distinct(4, 32)
y[1, 5] = float("nan")
y[1, 20] = float("nan")
y = y.npu()
i = torch.randint(-3, 4, (4, 32), dtype=torch.int32).npu()
p = (torch.rand(4, 8) * 0.5 + 0.75).npu()
for t in (x, h, b, y, i, p):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, h, b, y, i, p)
print(len(outs))
