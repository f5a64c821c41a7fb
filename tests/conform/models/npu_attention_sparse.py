# tolerance: matmul
# npu_fused_infer_attention_score's sparse modes 1, 2 and 4 as torch_npu
# documents them (the reference is tests/ref/stubs/torch_npu, _attention):
# 1 (allMask: the full atten_mask, pre/next_tokens ignored), 2 (leftUpCausal:
# j > i masked) and 4 (band: pre_tokens / next_tokens counted from the
# bottom-right corner), the last two given the compressed 2048 x 2048 mask
# they do not read; BSND and BNSD, GQA, softmax_lse. float32, float16 and
# bfloat16. The query length takes 4 or 6 and the key/value length 6 or 8
# (zip gears, every gear checked: Sq < Skv). (tests/conform/run.sh)
import torch
import torch_npu
import torchair

SQ, SKV, N, NKV, D = 6, 8, 4, 2, 8


class Model(torch.nn.Module):
    def forward(self, q, k, v, mask, cmask):
        outs = []
        for x, y, z in ((q, k, v), (q.half(), k.half(), v.half()), (q.bfloat16(), k.bfloat16(), v.bfloat16())):
            outs += list(torch_npu.npu_fused_infer_attention_score(
                x, y, z, num_heads=N, num_key_value_heads=NKV, scale=0.3, input_layout="BSND",
                atten_mask=mask, sparse_mode=1, pre_tokens=0, next_tokens=0, softmax_lse_flag=True))
            outs += list(torch_npu.npu_fused_infer_attention_score(
                x, y, z, num_heads=N, num_key_value_heads=NKV, scale=0.3, input_layout="BSND",
                atten_mask=cmask, sparse_mode=2, softmax_lse_flag=True))
            outs.append(torch_npu.npu_fused_infer_attention_score(
                x.transpose(1, 2), y.transpose(1, 2), z.transpose(1, 2), num_heads=N,
                num_key_value_heads=NKV, scale=0.25, input_layout="BNSD", atten_mask=cmask,
                sparse_mode=4, pre_tokens=2, next_tokens=1)[0])
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
q = torch.randn(4, SQ, N, D).npu()
k = torch.randn(4, SKV, NKV, D).npu()
v = torch.randn(4, SKV, NKV, D).npu()
mask = torch.randint(0, 2, (4, 1, SQ, SKV), dtype=torch.bool)
mask[:, :, :, 0] = False
mask = mask.npu()
cmask = torch.triu(torch.ones(2048, 2048, dtype=torch.bool), diagonal=1).npu()
torchair.inference.set_dim_gears(q, dim_gears={1: [4, 6]})
torchair.inference.set_dim_gears(k, dim_gears={1: [6, 8]})
torchair.inference.set_dim_gears(v, dim_gears={1: [6, 8]})
torchair.inference.set_dim_gears(mask, dim_gears={2: [4, 6], 3: [6, 8]})
with torch.no_grad():
    outs = model(q, k, v, mask, cmask)
print(len(outs))
