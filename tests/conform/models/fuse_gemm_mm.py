# tolerance: matmul
# Matmul epilogues and outputs written through strides
# (codegen/fuse_gemm.c): float32 matmul / bmm whose output feeds a
# scale, activations and scalar ops (applied to each batch's product), and
# attention's (att @ v).transpose(1, 2) with the product written straight
# into the transposed layout instead of a copy (q @ k^T read in place
# through strides as before); a permute moving more than two dims; a
# matmul on dense operands with broadcast batch dims. Matmuls followed by
# ops with a tensor operand, which fuse.c's pointwise groups take (a
# matmul's epilogue takes unary and scalar steps only: tensor steps in its
# store measured no faster than that one generated loop): a row (a bias,
# then relu), a full tensor per batch product, a one-element tensor on the
# left of a sub, a row before a permute, and a sum whose operand's buffer
# the planner may give the result. Rows 7 (not a tile multiple), heads 3,
# head dim 20.
# The float16 attention runs unfused. The batch dim takes 2 or 4.
# (tests/conform/run.sh; fuse_bits.sh: the fused bits equal --no-fuse's)
import torch
import torch.nn.functional as F
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.rand(36) - 0.5)
        self.bias9 = torch.nn.Parameter(torch.rand(9) - 0.5)
        self.scale = torch.nn.Parameter(torch.tensor([0.75]))

    def forward(self, x, m, w):
        # x [B, 7, 60] float32; m [60, 36] float32; w [B, 3, 20, 9] float32
        b = x.shape[0]
        r = torch.tanh(x[:, :, :7])                   # [B, 7, 7], read by a bmm's step
        q = x.view(b, 7, 3, 20).transpose(1, 2)
        k = q * 0.5
        v = q + 1.0
        att = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * 0.125, dim=-1)
        ctx = torch.matmul(att, v).transpose(1, 2).reshape(b, 7, 60)
        outs = [ctx, att]
        outs.append(torch.tanh(torch.matmul(x, m)) * 2.0 - 0.5)
        outs.append(F.gelu(torch.bmm(x, x.transpose(1, 2))) / 3.0)
        p = torch.matmul(q, w)                        # [B, 3, 7, 9]
        outs.append(F.relu(p).permute(2, 0, 1, 3).contiguous())
        outs.append(torch.sigmoid(torch.matmul(x, m)).permute(1, 0, 2))
        h = x.half().view(b, 7, 3, 20).transpose(1, 2)
        outs.append(torch.matmul(h, h.transpose(-2, -1)).transpose(1, 2) * 0.25)
        outs.append(torch.relu(torch.matmul(x, m) + self.bias))
        outs.append(torch.bmm(x, x.transpose(1, 2)) + r)
        outs.append(self.scale - torch.matmul(q, k.transpose(-2, -1)) / 3.0)
        outs.append((torch.matmul(q, w) + self.bias9).permute(0, 2, 1, 3).contiguous())
        u = x[:, :, :36] * 0.5
        outs.append(u + torch.matmul(x, m))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.rand(4, 7, 60) * 2 - 1).npu()
m = (torch.rand(60, 36) * 2 - 1).npu()
w = (torch.rand(4, 3, 20, 9) * 2 - 1).npu()
for t in (x, w):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, m, w)
print(len(outs))
