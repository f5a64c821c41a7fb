# torch_npu's KV-cache writes as torch_npu documents them (the reference is
# tests/ref/stubs/torch_npu): torch_npu.scatter_update_ into a cache input
# [B, N, S, D] along axis -2 at one position per batch row (in place: the
# caller's tensor is written, as copy_ writes it), and the out-of-place
# scatter_update along axis 1 of a [B, S, H] copy; npu_scatter_nd_update_
# into a block cache [blocks, block_size, H] at (block, slot) pairs and
# npu_scatter_nd_update of whole rows. float32, float16, bfloat16 and
# int8 (exact). The batch dim takes 2 or 4 (zip gears, every gear checked).
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def forward(self, cache, cache_h, pos, kv, blocks, slots, rows, seq, seqb, q8, kq8):
        torch_npu.scatter_update_(cache, pos, kv, -2)
        torch_npu.scatter_update_(cache_h, pos, kv.half(), 2)
        out = torch_npu.scatter_update(seq, pos, kv.flatten(2).transpose(1, 2).reshape(seq.shape[0], 1, -1), 1)
        outb = torch_npu.scatter_update(seqb, pos, kv.flatten(2).transpose(1, 2).reshape(seq.shape[0], 1, -1)
                                        .bfloat16(), 1)
        out8 = torch_npu.scatter_update(q8, pos, kq8, 1)
        torch_npu.npu_scatter_nd_update_(blocks, slots, kv.flatten(1))
        whole = torch_npu.npu_scatter_nd_update(blocks * 1.0, rows, blocks[:2] * 2.0)
        return cache * 1.0, cache_h * 1.0, out, outb, out8, whole


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
B, N, S, D = 4, 2, 6, 4
cache = torch.randn(B, N, S, D).npu()
cache_h = torch.randn(B, N, S, D).half().npu()
pos = torch.tensor([5, 0, 3, 1]).npu()
kv = torch.randn(B, N, 1, D).npu()
blocks = torch.randn(5, 3, N * D).npu()
slots = torch.tensor([[4, 2], [0, 0], [2, 1], [3, 2]], dtype=torch.int32).npu()
rows = torch.tensor([[3], [1]]).npu()
seq = torch.randn(B, S, N * D).npu()
seqb = torch.randn(B, S, N * D).bfloat16().npu()
q8 = torch.randint(-100, 100, (B, S, 3), dtype=torch.int8).npu()
kq8 = torch.randint(-100, 100, (B, 1, 3), dtype=torch.int8).npu()
torchair.inference.set_dim_gears(cache, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(cache_h, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(pos, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(kv, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(slots, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(seq, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(seqb, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(q8, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(kq8, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(cache, cache_h, pos, kv, blocks, slots, rows, seq, seqb, q8, kq8)
print(len(outs))
