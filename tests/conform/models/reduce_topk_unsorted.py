# torch.topk(..., sorted=False). PyTorch leaves the order of the k results
# unspecified (1.13's CPU kernel returns them in its partition's order);
# tngc returns them sorted (descending for largest, ascending otherwise:
# a valid answer, and the only one aclnnTopk gives). So this model checks
# what does not depend on the order: every index pairs with its value
# (x.gather(dim, indices) == values, exact), the set of values and the set
# of indices (sorted here), and an order-independent use (the DeepSeek
# group mask: scatter of ones at the indices). float32, bfloat16, int32;
# along the last dim and dim 0; the batch dim takes 2 or 4 (every gear
# checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def forward(self, x, b, i):
        outs = []
        for v in (x, b, i):
            for dim, k, largest in ((-1, 5, True), (-1, 3, False), (0, 2, True)):
                vals, idx = torch.topk(v, k, dim=dim, largest=largest, sorted=False)
                outs.append(v.gather(dim, idx) == vals)
                outs.append(torch.sort(vals, dim=dim).values)
                outs.append(torch.sort(idx, dim=dim).values)
            idx = v.topk(4, dim=-1, sorted=False)[1]
            outs.append(torch.zeros_like(x).scatter(1, idx, 1.0))
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
for t in (x, b, i):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, b, i)
print(len(outs))
