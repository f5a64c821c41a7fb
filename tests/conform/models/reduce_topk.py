# The reductions family's sorting ops: torch.topk (k, dim,
# largest, sorted; the result as a tuple and as .values / .indices),
# torch.sort / Tensor.sort (dim, descending), torch.argsort, on float32 and
# bfloat16 (float16 topk has no CPU kernel in PyTorch 1.13) and int32; a
# MoE routing idiom (softmax -> topk -> renormalise by the sum). The data
# has no ties: every tensor holds distinct values exact in bfloat16
# (k / 8), so PyTorch's order and tngc's agree; the NaN order is
# checked by the unit tests (tests/unit/test_rt_reduce.c). The batch dim
# takes 2 or 4 (zip gears, every gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def forward(self, x, b, i, logits):
        # x, b: [B, 48] float32 / bfloat16, distinct values k / 8 (|k| <= 96);
        # i: [B, 48] int32, distinct; logits: [B, 16] float32
        outs = []
        for v in (x, b, i):
            r = torch.topk(v, 5)
            outs.append(r.values)
            outs.append(r.indices)
            vals, idx = v.topk(3, dim=-1, largest=False)
            outs.append(vals)
            outs.append(idx)
            outs.append(torch.topk(v, 2, dim=0).indices)
            s = torch.sort(v, dim=-1, descending=True)
            outs.append(s.values)
            outs.append(s[1])
            sv, si = v.sort(dim=0)
            outs.append(sv)
            outs.append(si)
            outs.append(torch.argsort(v, dim=-1))
            outs.append(v.argsort(dim=1, descending=True))
        probs = torch.softmax(logits, dim=-1)
        w, experts = torch.topk(probs, 4, dim=-1)
        w = w / w.sum(dim=-1, keepdim=True)
        outs.append(w)
        outs.append(experts)
        return outs


def perm_rows(n, m):
    """[n, m]: a permutation of n * m distinct ints (no ties along any dim)."""
    return torch.randn(n * m).argsort().reshape(n, m)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = ((perm_rows(4, 48) - 96).float() / 8).npu()
b = ((perm_rows(4, 48) - 96).float() / 8).bfloat16().npu()
i = (perm_rows(4, 48) - 20).int().npu()
logits = torch.randn(4, 16).npu()
for t in (x, b, i, logits):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, b, i, logits)
print(len(outs))
