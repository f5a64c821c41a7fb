# Plain-Python helpers a stand-in einops (or any pattern-driven helper)
# needs: dict(**kwargs) filled in a loop, list.index in a list comprehension
# feeding permute. PyTorch: x.permute(0, 2, 1).reshape(2, 32). tngc, before it compiled this: TNG202
# "call of method 'index', which tngc cannot lower" and TNG205 "key not in
# the dict".
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

def to_rows(x, left, right, **known):
    sizes = dict(known)
    for name, dim in zip(left, x.shape):
        sizes[name] = dim
    x = x.reshape([sizes[a] for a in left])
    return x.permute([left.index(a) for a in right])


class M(nn.Module):
    def forward(self, x):
        return to_rows(x, ["b", "n", "d"], ["b", "d", "n"]).reshape(2, 32)

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
