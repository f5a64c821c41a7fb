# tolerance: matmul
# torch_npu's fused attentions as torch_npu documents them (the reference
# is tests/ref/stubs/torch_npu, _attention): npu_fused_infer_attention_score
# in the BSH, BSND and BNSD layouts with GQA (num_key_value_heads), a bool
# mask [B, 1, Sq, Skv] (True masked out), an int8 mask [Sq, Skv], sparse
# mode 3 (causal from the bottom right), actual lengths as lists and
# softmax_lse_flag; npu_prompt_flash_attention (mask with its
# default next_tokens=0 band); npu_incre_flash_attention (decode, one query
# row) on contiguous and paged key/value (block_table, block_size). float32,
# float16 and bfloat16. The query length takes 4 or 6 and the key/value
# length 6 or 8 (zip gears, every gear checked). Lengths as int tensors
# (read at run time, CPU only: ACL takes host lists) are in
# tests/unit/test_rt_npu.c. (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 4]
SQ, SKV, N, NKV, D, BS = 6, 8, 4, 2, 8, 4


class Model(torch.nn.Module):
    def forward(self, q, k, v, qh, kh, vh, mask, q1, kc, vc, bt):
        outs = []
        for x, y, z in ((q, k, v), (qh, kh, vh), (q.bfloat16(), k.bfloat16(), v.bfloat16())):
            o, lse = torch_npu.npu_fused_infer_attention_score(
                x, y, z, num_heads=N, num_key_value_heads=NKV, scale=0.3, input_layout="BSND",
                atten_mask=mask, softmax_lse_flag=True)
            outs += [o, lse]
            o, lse = torch_npu.npu_fused_infer_attention_score(
                x.flatten(2), y.flatten(2), z.flatten(2), num_heads=N, num_key_value_heads=NKV,
                input_layout="BSH", scale=0.5, sparse_mode=3, atten_mask=mask[0, 0],
                actual_seq_lengths=[3, 3, 3, 3], actual_seq_lengths_kv=[5, 5, 5, 5], softmax_lse_flag=True)
            outs += [o, lse]
            o, lse = torch_npu.npu_fused_infer_attention_score(
                x.transpose(1, 2), y.transpose(1, 2), z.transpose(1, 2), num_heads=N,
                num_key_value_heads=NKV, input_layout="BNSD", scale=0.25,
                atten_mask=mask[0, 0].to(torch.int8))
            outs += [o, lse]
            outs.append(torch_npu.npu_prompt_flash_attention(
                x, y, z, num_heads=N, num_key_value_heads=NKV, input_layout="BSND",
                scale_value=0.35, atten_mask=mask))
        for x in (q1, q1.half()):
            outs.append(torch_npu.npu_incre_flash_attention(
                x, k.flatten(2).to(x.dtype), v.flatten(2).to(x.dtype), num_heads=N,
                num_key_value_heads=NKV, scale_value=0.35, actual_seq_lengths=[5, 5, 5, 5]))
            outs.append(torch_npu.npu_incre_flash_attention(
                x, kc.to(x.dtype), vc.to(x.dtype), num_heads=N, num_key_value_heads=NKV,
                scale_value=0.35, block_table=bt, block_size=BS, actual_seq_lengths=[9, 9, 9, 9]))
        o, lse = torch_npu.npu_fused_infer_attention_score(
            q1, [kc], [vc], num_heads=N, num_key_value_heads=NKV, scale=0.35, block_table=bt,
            block_size=BS, actual_seq_lengths_kv=[11, 11, 11, 11], softmax_lse_flag=True)
        outs += [o, lse]
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
q = torch.randn(4, SQ, N, D).npu()
k = torch.randn(4, SKV, NKV, D).npu()
v = torch.randn(4, SKV, NKV, D).npu()
qh, kh, vh = q.half(), k.half(), v.half()
mask = torch.randint(0, 2, (4, 1, SQ, SKV), dtype=torch.bool)
mask[:, :, :, 0] = False
mask = mask.npu()
q1 = torch.randn(4, 1, N * D).npu()
NB = 12
kc = torch.randn(NB, BS, NKV * D).npu()
vc = torch.randn(NB, BS, NKV * D).npu()
bt = torch.tensor([[3, 0, 7], [1, 11, 2], [5, 9, 4], [10, 6, 8]], dtype=torch.int32).npu()
torchair.inference.set_dim_gears(q, dim_gears={1: [4, 6]})
torchair.inference.set_dim_gears(qh, dim_gears={1: [4, 6]})
torchair.inference.set_dim_gears(k, dim_gears={1: [6, 8]})
torchair.inference.set_dim_gears(v, dim_gears={1: [6, 8]})
torchair.inference.set_dim_gears(kh, dim_gears={1: [6, 8]})
torchair.inference.set_dim_gears(vh, dim_gears={1: [6, 8]})
torchair.inference.set_dim_gears(mask, dim_gears={2: [4, 6], 3: [6, 8]})
with torch.no_grad():
    outs = model(q, k, v, qh, kh, vh, mask, q1, kc, vc, bt)
print(len(outs))
