# Softmax written by hand as one row kernel on the CPU target
# (codegen/fuse.c row groups): e = exp(x - x.amax(-1, keepdim=True));
# e / e.sum(-1, keepdim=True), scaled first (x * scale), with a broadcast
# additive causal mask of -inf ([T, T] over [B, H, T, T]), with
# x.max(-1, keepdim=True)[0] and .values (max_dim, its indices unread: its
# values as amax's), and e * (1 / sum); float32, float16 and bfloat16 (rounded per op as the
# separate kernels), rows of 7 and 50. Results bitwise equal to --no-fuse
# (tests/conform/fuse_bits.sh). The batch dim takes 2 or 3 (zip gears).
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 3]


def softmax(x):
    e = torch.exp(x - x.amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


class Model(torch.nn.Module):
    def forward(self, s, m, y, h, g):
        # s: [B, 2, 7, 7] float32; m: [7, 7] float32 (0 or -inf: a causal mask);
        # y: [B, 50] float32; h: [B, 50] float16; g: [B, 50] bfloat16
        outs = [softmax(s), softmax(s * 0.125 + m), softmax(y * 0.5)]
        e = torch.exp(y - y.max(-1, keepdim=True)[0])
        outs.append(e * (1.0 / e.sum(dim=-1, keepdim=True)))
        e = (y - torch.max(y, dim=-1, keepdim=True).values).exp()
        outs.append(e / e.sum(-1, keepdim=True))
        for v in (h, g):
            outs.append(softmax(v))
            outs.append(softmax(v * 0.25))
            outs.append(softmax(v.float()).to(v.dtype))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
s = (torch.randn(3, 2, 7, 7) * 4).npu()
m = torch.triu(torch.full((7, 7), float("-inf")), 1).npu()
y = (torch.randn(3, 50) * 3).npu()
h = (torch.randn(3, 50) * 3).half().npu()
g = (torch.randn(3, 50) * 3).bfloat16().npu()
for t in (s, y, h, g):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(s, m, y, h, g)
print(len(outs))
