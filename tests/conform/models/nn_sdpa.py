# tolerance: matmul
# The neural net family's attention: F.scaled_dot_product_attention
# on [B, H, L, E] query/key/value: the default scale, is_causal (top-left,
# L != S too), a bool mask (True keeps) broadcast over batch and heads, a
# float additive mask per batch, an explicit scale, one key/value head
# broadcast over the query heads, grouped-query attention (enable_gqa,
# PyTorch 2.5: 2 and 1 key/value heads for 4 query heads, repeated as
# repeat_interleave repeats them), and 3-d operands; on float32, float16 and
# bfloat16 (PyTorch 1.13 has no SDPA: the stand-in computes it in plain
# PyTorch, see tests/ref/stubs/_tngc_ref.py). The batch dim takes 2 or 4
# (zip gears, every gear checked). (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def forward(self, q, k, v, keep, bias):
        # q: [B, 4, 6, 16]; k, v: [B, 4, 9, 16]; keep: [6, 9] bool;
        # bias: [B, 1, 6, 9] float32
        outs = []
        for dt in (torch.float32, torch.float16, torch.bfloat16):
            qd, kd, vd = q.to(dt), k.to(dt), v.to(dt)
            outs.append(F.scaled_dot_product_attention(qd, kd, vd))
            outs.append(F.scaled_dot_product_attention(qd, kd, vd, is_causal=True))
            outs.append(F.scaled_dot_product_attention(qd, qd, qd, is_causal=True))
            outs.append(F.scaled_dot_product_attention(qd, kd, vd, attn_mask=keep))
            outs.append(F.scaled_dot_product_attention(qd, kd, vd, bias.to(dt)))
            outs.append(F.scaled_dot_product_attention(qd, kd, vd, scale=0.3))
            outs.append(F.scaled_dot_product_attention(qd, kd[:, :1], vd[:, :1]))
            outs.append(F.scaled_dot_product_attention(qd[:, 0], kd[:, 1], vd[:, 2], is_causal=True))
            outs.append(F.scaled_dot_product_attention(qd, kd[:, :2], vd[:, 2:], enable_gqa=True))
            outs.append(F.scaled_dot_product_attention(qd, kd[:, :1], vd[:, :1], is_causal=True, enable_gqa=True))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
q = torch.randn(4, 4, 6, 16).npu()
k = torch.randn(4, 4, 9, 16).npu()
v = torch.randn(4, 4, 9, 16).npu()
keep = torch.randint(0, 4, (6, 9)).bool().npu()
bias = (torch.randn(4, 1, 6, 9) * 2).npu()
for t in (q, k, v, bias):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(q, k, v, keep, bias)
print(len(outs))
