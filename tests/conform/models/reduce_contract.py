# The reductions family's contractions: torch.outer / Tensor.ger,
# torch.baddbmm (beta, alpha, beta=0 ignoring the input), and torch.einsum
# lowered to sums, permutes, reshapes and (batched) matmuls: attention
# scores "bhqd,bhkd->bhqk", "bij,bjk->bik", "i,j->ij", "bsh,hd->bsd",
# "...d,d->...", an implicit output, a transpose, a full and a partial sum,
# three operands, and the list form. Float32 and bfloat16 (float16 with
# einsum: PyTorch 1.13 has no float16 bmm on the CPU, so its reference is
# float32 + one rounding). The batch dim takes 2 or 4 (zip gears, every
# gear checked). (tests/conform/run.sh)
# tolerance: matmul
import torch
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def forward(self, q, k, a, u, w, x, hb):
        # q, k: [B, 2, 5, 8]; a: [B, 5, 6]; u: [B, 6, 3]; w: [8, 4];
        # x: [B, 5, 8] float32; hb: [B, 5, 8] bfloat16
        outs = []
        outs.append(torch.einsum("bhqd,bhkd->bhqk", q, k))
        outs.append(torch.einsum("bij,bjk->bik", a, u))
        outs.append(torch.einsum("i,j->ij", w[:, 0], w[0]))
        outs.append(torch.einsum("bsh,hd->bsd", x, w))
        outs.append(torch.einsum("...d,d->...", x, w[:, 1]))
        outs.append(torch.einsum("bij,bjk", a, u))
        outs.append(torch.einsum("bij->bji", a))
        outs.append(torch.einsum("bij->", a))
        outs.append(torch.einsum("bij->bi", a))
        outs.append(torch.einsum("bij,bjk,kl->bil", a, u, w[:3]))
        outs.append(torch.einsum("bsh,hd->bsd", [hb, w.bfloat16()]))
        outs.append(torch.outer(w[:, 0], w[1]))
        outs.append(w[:, 2].ger(w[3]))
        outs.append(torch.outer(hb[0, 0], hb[0, 1]))
        outs.append(torch.baddbmm(x[:, :, :3], a, u))
        outs.append(torch.baddbmm(x[:, :, :3], a, u, beta=0.5, alpha=2.0))
        outs.append(x[:, :, :3].baddbmm(a, u, beta=0))
        outs.append(torch.baddbmm(hb[:, :, :3], a.bfloat16(), u.bfloat16(), alpha=0.25))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
q = torch.randn(4, 2, 5, 8).npu()
k = torch.randn(4, 2, 5, 8).npu()
a = torch.randn(4, 5, 6).npu()
u = torch.randn(4, 6, 3).npu()
w = torch.randn(8, 4).npu()
x = torch.randn(4, 5, 8).npu()
hb = torch.randn(4, 5, 8).bfloat16().npu()
for t in (q, k, a, u, x, hb):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(q, k, a, u, w, x, hb)
print(len(outs))
