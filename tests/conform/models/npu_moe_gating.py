# torch_npu.npu_moe_gating_top_k as torch_npu documents it (the reference is
# tests/ref/stubs/torch_npu): DeepSeek-V3's call (sigmoid, a bias, 8 groups
# scored by their two largest values, 4 kept, routed_scaling_factor, eps),
# softmax with groups scored by their maximum and out_flag, and plain
# softmax / sigmoid without groups or bias; on float32, float16 and
# bfloat16 logits. The int32 expert indices must match exactly. The token
# dim takes 3 or 8 (every gear checked).
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [3, 8]


class Model(torch.nn.Module):
    def forward(self, x, bias):
        outs = []
        for v in (x, x.half(), x.bfloat16()):
            b = bias.to(v.dtype)
            y, idx, _ = torch_npu.npu_moe_gating_top_k(
                v, k=8, bias=b, k_group=4, group_count=8, group_select_mode=1,
                renorm=0, norm_type=1, routed_scaling_factor=2.5, eps=1e-20)
            outs += [y, idx]
            y, idx, out = torch_npu.npu_moe_gating_top_k(
                v, 6, k_group=2, group_count=4, group_select_mode=0, norm_type=0, out_flag=True)
            outs += [y, idx, out]
            outs += list(torch_npu.npu_moe_gating_top_k(v, 3, norm_type=0))[:2]
            outs += list(torch_npu.npu_moe_gating_top_k(v, 2, bias=b))[:2]
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.randn(8, 64) * 2).npu()
bias = (torch.rand(64) * 0.1).npu()
torchair.inference.set_dim_gears(x, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, bias)
print(len(outs))
