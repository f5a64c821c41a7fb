# In-place ops whose operand is another view of the storage they write:
# disjoint views (a scan written X[:, i].add_(X[:, i - 1]), a column copied
# from the next, a block += another block) and the very same tensor
# (Z.mul_(Z)) are computed as PyTorch does; views that share some elements
# are refused (tests/golden/plan_err/TNG211_operand_overlap.py). Static
# shapes: the element-by-element check needs constant sizes.
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn


class Operands(nn.Module):
    def forward(self, x):
        X = x.clone()
        for i in range(1, 5):
            X[:, i].add_(X[:, i - 1])
        Y = x.clone()
        Y[:, 0].copy_(Y[:, 1])
        Y[1:3] += Y[3:5]
        Z = x.clone()
        Z.mul_(Z)
        x[0].sub_(x[5])
        return X, Y, Z


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Operands().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    out = model(torch.randn(6, 5).npu())
