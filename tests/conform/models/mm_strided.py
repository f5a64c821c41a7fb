# tolerance: matmul
# Matmuls that read transposed, permuted and broadcast operands in place
# (no copy of the view): attention's q @ k^T and att @ v with q, k
# and v permuted out of [B, S, H, D] projections and a KV cache updated in
# place, a chain of two transposes, a GQA-style key shared by every head
# through expand and through a size-1 batch dim, a 3-d by transposed 2-d
# product, and torch.bmm of a transposed operand; float32, float16 and
# bfloat16. A permute also read by another op keeps its copy. The batch
# dim takes 1 or 3 (gears, every gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [1, 3]
S, H, D = 6, 4, 16


class Model(torch.nn.Module):
    def forward(self, x, cache, kv, w, h, bf):
        # x: [B, S, H * D] float32; cache: [B, S, H * D] (updated in place);
        # kv: [B, 1, S, D] (one key head); w: [20, 12]; h / bf: x in
        # float16 / bfloat16
        b = x.shape[0]
        outs = []
        cache[:, 2:3] = x[:, 0:1] * 0.5
        for t in (x, h, bf):
            q = t.view(b, S, H, D).transpose(1, 2)             # [B, H, S, D]
            k = (t * 0.25).view(b, S, H, D).permute(0, 2, 3, 1)  # [B, H, D, S]
            att = torch.softmax(q @ k, dim=-1)
            v = t.view(b, S, H, D).transpose(1, 2)
            outs.append(att @ v)                                # [B, H, S, D]
            outs.append(torch.matmul(q, q.transpose(-2, -1)))   # [B, H, S, S]
        kc = cache.view(b, S, H, D).transpose(1, 2)
        qc = x.view(b, S, H, D).transpose(1, 2)
        outs.append(torch.matmul(qc[:, :, 0:1], kc.transpose(2, 3)))   # [B, H, 1, S]
        outs.append(torch.matmul(qc, kv.transpose(-2, -1)))              # broadcast head
        ke = kv.expand(b, H, S, D)
        outs.append(torch.matmul(qc, ke.transpose(2, 3)))                # expand read in place
        vt = x.view(b, S, H * D).transpose(1, 2)                         # [B, 64, S]
        outs.append(vt @ w[:, :S].t())                                   # 3-d @ 2-d^T: [B, 64, 20]
        outs.append(torch.bmm(x.transpose(1, 2), x))                     # [B, 64, 64]
        p = x.transpose(1, 2)
        outs.append(p @ x[:, :, 0:5])
        outs.append(p + 1.0)                                             # the permute kept
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(3, S, H * D).npu()
cache = torch.randn(3, S, H * D).npu()
kv = torch.randn(3, 1, S, D).npu()
w = torch.randn(20, 12).npu()
h = x.half()
bf = x.bfloat16()
for t in (x, cache, kv, h, bf):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, cache, kv, w, h, bf)
print(len(outs))
