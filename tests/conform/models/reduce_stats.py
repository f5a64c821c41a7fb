# The reductions family's statistics: torch.var / Tensor.std
# (dim, unbiased, correction=, keepdim), torch.norm / Tensor.norm (p 2, 1,
# inf, 'fro'; dim, keepdim, dtype=), torch.linalg.vector_norm (ord, dim,
# keepdim) and F.normalize (p, dim, eps), lowered to existing ops in
# float32, on float32, float16 and bfloat16 (F.normalize: float32 and
# bfloat16; PyTorch 1.13 has no float16 clamp_min on the CPU). The
# reductions run over the constant dims; the batch dim takes 2 or 4 (zip
# gears, every gear checked). (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def forward(self, x, h, b, z):
        # x, h, b: [B, 6, 32] float32 / float16 / bfloat16 in about [-3, 3];
        # z: [B, 8] float32 with a row of zeros (normalize's eps)
        outs = []
        for v in (x, h, b):
            outs.append(torch.var(v, dim=-1))
            outs.append(v.var(-1, unbiased=False, keepdim=True))
            outs.append(torch.var(v, dim=(1, 2), correction=0))
            outs.append(v.std(dim=-1))
            outs.append(torch.std(v, 2, False, True))
            outs.append(torch.norm(v, dim=-1))
            outs.append(v.norm(p=1, dim=-1, keepdim=True))
            outs.append(v.norm(float("inf"), dim=(1, 2)))
            outs.append(torch.norm(v, p="fro", dim=(1, 2), keepdim=True))
            outs.append(torch.linalg.vector_norm(v, dim=-1))
            outs.append(torch.linalg.vector_norm(v, ord=1, dim=1, keepdim=True))
        for v in (x, b):
            outs.append(F.normalize(v, dim=-1))
            outs.append(F.normalize(v))
            outs.append(F.normalize(v, p=1.0, dim=2, eps=1e-6))
        outs.append(torch.norm(h, p=2, dim=-1, dtype=torch.float32))
        outs.append(F.normalize(z, dim=-1))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.rand(4, 6, 32) * 6 - 3).npu()
h = (torch.rand(4, 6, 32) * 6 - 3).half().npu()
b = (torch.rand(4, 6, 32) * 6 - 3).bfloat16().npu()
z = torch.randn(4, 8)
z[1] = 0.0
z = z.npu()
for t in (x, h, b, z):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, h, b, z)
print(len(outs))
