# tolerance: matmul
# Matmuls reading slices of one projection in place
# (planner/strided.c): a fused QKV Linear split three ways (split, chunk,
# plain indexing), each part viewed as heads and transposed, so q @ k^T and
# att @ v read the Linear's output through strides with no slice copied;
# a part also read by an add (its slice stays, the matmul still reads in
# place); a slice with a step; a part rotated elementwise first (a copy
# the matmul reads densely); float32 with a scale, mask and epilogue, and
# float16. Rows 5, heads 3 of 8; the batch dim takes 2 or 3 (a symbolic
# dim kept whole by the heads' view). (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair

GEARS = [2, 3]
T, H, D = 5, 3, 8


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(H * D, 3 * H * D)
        self.out = torch.nn.Linear(H * D, H * D, bias=False)

    def heads(self, t):
        return t.reshape(t.shape[0], T, H, D).transpose(1, 2)

    def forward(self, x, mask):
        # x [B, 5, 24] float32; mask [5, 5] float32
        b = x.shape[0]
        h = self.qkv(x)
        q, k, v = h.split(H * D, dim=-1)
        att = torch.matmul(self.heads(q), self.heads(k).transpose(-2, -1)) * D ** -0.5
        att = torch.softmax(att + mask, dim=-1)
        ctx = torch.matmul(att, self.heads(v)).transpose(1, 2).reshape(b, T, H * D)
        outs = [self.out(ctx), att]
        q2, k2, v2 = h.chunk(3, dim=-1)
        s2 = torch.matmul(self.heads(q2), self.heads(k2).transpose(-2, -1))
        outs.append(F.silu(s2) + 1.0)
        outs.append(v2 + 2.0)                          # v2's slice read by an add too
        outs.append(torch.matmul(self.heads(v2).transpose(-2, -1), self.heads(q2)))
        kk = h[..., H * D:2 * H * D]
        qr = torch.cat((-q[..., D // 2:], q[..., :D // 2]), dim=-1)   # a copy first
        outs.append(torch.matmul(qr, kk.transpose(-2, -1)))
        ev = h[:, :, ::3]                              # a step: every third column
        outs.append(torch.matmul(ev.transpose(1, 2), ev))
        hh = h.half()
        qh, kh, _ = hh.split(H * D, dim=-1)
        outs.append(torch.matmul(self.heads(qh), self.heads(kh).transpose(-2, -1)) * 0.25)
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.rand(3, T, H * D) * 2 - 1).npu()
mask = torch.triu(torch.full((T, T), -1e4), diagonal=1).npu()
torchair.inference.set_dim_gears(x, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, mask)
print(len(outs))
