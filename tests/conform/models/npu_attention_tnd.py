# tolerance: matmul
# npu_fused_infer_attention_score with input_layout "TND" (the reference is
# tests/ref/stubs/torch_npu): query [T, N, D] and key/value [Tkv, Nkv, D]
# holding batches of different lengths one after another, given as
# cumulative actual_seq_lengths / actual_seq_lengths_kv lists (an empty
# query batch included); no mask, sparse_mode 3 (causal from each batch's
# bottom right, with the compressed 2048 x 2048 mask) and softmax_lse
# [T, N, 1]; GQA. float32, float16 and bfloat16. The head dim takes 8 or
# 16 (every gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair

N, NKV = 4, 2
LQ, LKV = [3, 5, 5, 9], [4, 9, 11, 16]


class Model(torch.nn.Module):
    def forward(self, q, k, v, cmask):
        outs = []
        for x, y, z in ((q, k, v), (q.half(), k.half(), v.half()), (q.bfloat16(), k.bfloat16(), v.bfloat16())):
            outs += list(torch_npu.npu_fused_infer_attention_score(
                x, y, z, num_heads=N, num_key_value_heads=NKV, scale=0.3, input_layout="TND",
                actual_seq_lengths=LQ, actual_seq_lengths_kv=LKV, softmax_lse_flag=True))
            outs.append(torch_npu.npu_fused_infer_attention_score(
                x, y, z, num_heads=N, num_key_value_heads=NKV, scale=0.3, input_layout="TND",
                actual_seq_lengths=LQ, actual_seq_lengths_kv=LKV, sparse_mode=3, atten_mask=cmask)[0])
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
q = torch.randn(LQ[-1], N, 16).npu()
k = torch.randn(LKV[-1], NKV, 16).npu()
v = torch.randn(LKV[-1], NKV, 16).npu()
cmask = torch.triu(torch.ones(2048, 2048, dtype=torch.bool), diagonal=1).npu()
for t in (q, k, v):
    torchair.inference.set_dim_gears(t, dim_gears={2: [8, 16]})
with torch.no_grad():
    outs = model(q, k, v, cmask)
print(len(outs))
