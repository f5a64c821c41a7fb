# torch_npu fused operators as torch_npu documents them (the
# reference is tests/ref/stubs/torch_npu): npu_add_rms_norm (y, rstd and
# the sum x) on float32, float16 and bfloat16 with a 1-d and a 2-d gamma;
# npu_prefetch (a hint: no op); npu_dynamic_quant with and without
# smooth_scales, a row of zeros included (int8 results exact); and
# npu_moe_gating_top_k_softmax with and without finished (int32 indices
# exact). The batch dim takes 2 or 4 (zip gears, every gear checked).
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def forward(self, a, b, ah, bh, ab, bb, g, g2, qz, smooth, e, fin):
        outs = []
        for x1, x2 in ((a, b), (ah, bh), (ab, bb)):
            y, rstd, x = torch_npu.npu_add_rms_norm(x1, x2, g.to(x1.dtype), 1e-5)
            outs += [y, rstd, x]
            y, rstd, x = torch_npu.npu_add_rms_norm(x1, x2, g2.to(x1.dtype))
            outs += [y, rstd, x]
        torch_npu.npu_prefetch(a, None, 1024)
        for v in (qz, qz.half(), qz.bfloat16()):
            y, scale = torch_npu.npu_dynamic_quant(v)
            outs += [y, scale]
            y, scale = torch_npu.npu_dynamic_quant(v, smooth_scales=smooth.to(v.dtype))
            outs += [y, scale]
        for v in (e, e.half(), e.bfloat16()):
            outs += list(torch_npu.npu_moe_gating_top_k_softmax(v, None, k=3))
            outs += list(torch_npu.npu_moe_gating_top_k_softmax(v, fin, k=1))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
a = torch.randn(4, 5, 32).npu()
b = torch.randn(4, 5, 32).npu()
ah, bh = a.half(), (b * 0.5).half()
ab, bb = (a * 2).bfloat16(), b.bfloat16()
g = (torch.rand(32) + 0.5).npu()
g2 = (torch.rand(5, 32) + 0.5).npu()
qz = (torch.randn(4, 6, 64) * 3).npu()
qz[1, 2] = 0.0
smooth = (torch.rand(64) + 0.5).npu()
e = torch.randn(4, 16).npu()
fin = torch.tensor([False, True, False, True]).npu()
for t in (a, b, ah, bh, ab, bb, qz, e, fin):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(a, b, ah, bh, ab, bb, g, g2, qz, smooth, e, fin)
print(len(outs))
