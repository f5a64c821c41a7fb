# tolerance: matmul
# F.scaled_dot_product_attention past one tile of keys (the CPU kernel
# reads 16 queries and 64 keys at a time with a running maximum and sum,
# runtime/kernels_attn.c): query and key lengths that are not multiples
# of the tiles (131, 70, 200, 65), is_causal over several tiles (the
# tiles past a block's diagonal skipped) with L == S and L < S, a bool mask
# with a row that keeps no key (NaN, as PyTorch) and one that keeps only
# the last tile's keys, a float mask with -inf entries and large values
# (the running maximum rescaled across tiles), Ev != E; on float32,
# float16 and bfloat16. (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, q, k, v, v2, keep, bias):
        # q: [1, 2, 131, 32]; k, v: [1, 2, 200, 32]; v2: [1, 2, 200, 24];
        # keep: [70, 200] bool; bias: [1, 2, 70, 200] float32
        outs = []
        for dt in (torch.float32, torch.float16, torch.bfloat16):
            qd, kd, vd, v2d = q.to(dt), k.to(dt), v.to(dt), v2.to(dt)
            outs.append(F.scaled_dot_product_attention(qd, qd, qd, is_causal=True))
            outs.append(F.scaled_dot_product_attention(qd, kd, vd, is_causal=True))
            outs.append(F.scaled_dot_product_attention(qd[:, :, :70], kd, v2d, attn_mask=keep))
            outs.append(F.scaled_dot_product_attention(qd[:, :, :70], kd, vd, bias.to(dt)))
            outs.append(F.scaled_dot_product_attention(qd[:, :, :65], kd[:, :, :65], vd[:, :, :65],
                                                       is_causal=True, scale=0.5))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
q = torch.randn(1, 2, 131, 32).npu()
k = torch.randn(1, 2, 200, 32).npu()
v = torch.randn(1, 2, 200, 32).npu()
v2 = torch.randn(1, 2, 200, 24).npu()
keep = torch.randint(0, 4, (70, 200)).bool()
keep[3] = False
keep[5] = False
keep[5, 190:] = True
keep = keep.npu()
bias = torch.randn(1, 2, 70, 200) * 4
bias[:, :, :, 100:] += 30.0
bias[:, :, 7, :150] = float("-inf")
bias[:, 1, 9, 64:] = float("-inf")
bias = bias.npu()
with torch.no_grad():
    outs = model(q, k, v, v2, keep, bias)
print(len(outs))
