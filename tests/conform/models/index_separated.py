# Advanced indices separated by a slice, reads and writes, by
# PyTorch's rule: ints select first; tensor indices that a ':' separates put
# their broadcast dims first, then the sliced dims in order. Writes into
# inputs (float32, float16, bfloat16, int32) and a buffer: a head-major KV
# cache written at run-time positions, cache[b, :, pos] = v (v [B, H]);
# x[:, b, :, p] (a leading ':'), x[b, :, 0, p] (an int between), x[0, :, pos]
# (an int, then one tensor: no move), negative positions, a scalar value and
# a value broadcast along the heads; the same subscripts read back. The
# batch dim takes 2 or 3 (every gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 3]
B, H, S = 3, 4, 8


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(B, H, S))

    def forward(self, kc, hc, bc, ic, x4, y4, b, pos, v):
        # kc/hc/bc/ic [B, H, S] (f32, f16, bf16, i32); x4 [2, B, H, S] and y4
        # [B, 2, H, S] f32;
        # b [B] distinct batch rows, pos [B] in [-S, S); v [B, H] f32
        outs = [kc[b, :, pos], x4[:, b, :, pos], y4[b, :, 0, pos], kc[0, :, pos]]
        kc[b, :, pos] = v
        hc[b, :, pos] = v.half()
        bc[b, :, pos] = v[:, :1].bfloat16()
        ic[b, :, pos] = (v * 10).int()
        self.cache[b, :, pos] = v + 1.0
        x4[:, b, :, pos] = 2.5
        y4[b, :, 0, pos] = v[:, :2] * 3.0
        x4[1, :, 1, pos] = v[:, 0]
        outs += [kc[b, :, pos] * 1.0, self.cache * 1.0, x4[:, b, :, pos] * 1.0,
                 y4[b, :, 0, pos] * 1.0]
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
kc = torch.randn(B, H, S).npu()
hc = torch.randn(B, H, S).half().npu()
bc = torch.randn(B, H, S).bfloat16().npu()
ic = torch.randint(-50, 50, (B, H, S), dtype=torch.int32).npu()
x4 = torch.randn(2, B, H, S).npu()
y4 = torch.randn(B, 2, H, S).npu()
b = torch.tensor([1, 0, 2]).npu()
pos = torch.tensor([5, -1, 0]).npu()
v = torch.randn(B, H).npu()
for t in (kc, hc, bc, ic, y4, b, pos, v):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(x4, dim_gears={1: GEARS})
with torch.no_grad():
    outs = model(kc, hc, bc, ic, x4, y4, b, pos, v)
print(len(outs))
