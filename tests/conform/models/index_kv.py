# Indexing and scatter: a decode step's KV-cache update at run-time
# positions, k_cache[bidx, pos] = k (subscript assignment with two index
# tensors), v_cache.index_put_((bidx, pos), v) and the float16 / bfloat16
# caches written from converted keys, into static cache inputs,
# read back after the write; the RoPE tables looked up with cos[position_ids]
# (float32, float16) and a 2-d index; index_put_ with accumulate=True; an
# int64 cache; s_cache[:, step] = k (a position for the whole batch, after
# a leading ':') and a scalar stored through s_cache[:, step + 1, 0]. The batch dim takes 2 or 4 (zip gears, every gear checked).
import torch
import torch_npu
import torchair

GEARS = [2, 4]
S, H, P = 8, 16, 32


class Model(torch.nn.Module):
    def forward(self, k, v, k_cache, v_cache, hk_cache, bk_cache, ik_cache, bidx, pos, cos, hsin, position_ids,
                s_cache, step):
        # k, v [B, H] float32; caches [B, S, H] (f32, f32, f16, bf16, i64);
        # bidx = [0, 1, .., B-1], pos [B] in [0, S); cos [P, H] f32, hsin [P, H] f16;
        # position_ids [B, 3] in [0, P); s_cache [B, S, H] f16 written at
        # s_cache[:, step] (step [1] int64, one position for the batch)
        k_cache[bidx, pos] = k
        v_cache.index_put_((bidx, pos), v)
        hk_cache[bidx, pos] = k.half()
        bk_cache.index_put_((bidx, pos), v.bfloat16(), accumulate=True)
        ik_cache[bidx, pos] = (k * 10).long()
        s_cache[:, step] = k.half().unsqueeze(1)
        s_cache[:, step + 1, 0] = 1.5
        c = cos[position_ids]                    # [B, 3, H]
        s = hsin[position_ids[:, 0]]             # [B, H]
        last = k_cache[bidx, pos] * 2.0          # reads the written rows back
        return c, s, last, k_cache.sum(dim=1), v_cache[:, 0] * 1.0, s_cache[:, step].float()


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
k = torch.randn(4, H).npu()
v = torch.randn(4, H).npu()
k_cache = torch.randn(4, S, H).npu()
v_cache = torch.randn(4, S, H).npu()
hk_cache = torch.randn(4, S, H).half().npu()
bk_cache = torch.randn(4, S, H).bfloat16().npu()
ik_cache = torch.randint(-100, 100, (4, S, H)).npu()
bidx = torch.tensor([0, 1, 2, 3]).npu()
pos = torch.tensor([3, 7, 0, 5]).npu()
cos = torch.randn(P, H).npu()
hsin = torch.randn(P, H).half().npu()
position_ids = torch.randint(0, P, (4, 3)).npu()
s_cache = torch.randn(4, S, H).half().npu()
step = torch.tensor([6]).npu()
for t in (k, v, k_cache, v_cache, hk_cache, bk_cache, ik_cache, bidx, pos, position_ids, s_cache):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(k, v, k_cache, v_cache, hk_cache, bk_cache, ik_cache, bidx, pos, cos, hsin, position_ids,
                 s_cache, step)
print(len(outs))
