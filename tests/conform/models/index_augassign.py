# Augmented assignment through an index (t[i] += y). Python reads t[i],
# applies the operator in place to what it read, then stores the result
# back into t[i]. Basic indexing reads a view, so the in-place operator
# already wrote t; advanced indexing (a tensor or a list of indices) reads
# a copy, and only the store writes t. Both forms, on rows and on columns,
# with +=, -= and *=; the index tensor is an input. The token dim takes 4
# or 8 (zip gears, every gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn

GEARS = [4, 8]


class Model(nn.Module):
    def forward(self, x, y, idx):
        # x [T, 6], y [2, 6], idx [2] int64 (distinct rows below 4)
        r = torch.zeros_like(x)
        r[idx] += y                 # tensor index: a copy, stored back
        r[[1, 3]] -= y * 0.5        # list index: a copy, stored back
        r[:, idx] *= 3.0            # tensor index on dim 1
        r[0:2] += 1.0               # basic index: a view, written in place
        v = x.clone()
        v[idx + 1] += x[idx]        # the read and the store index the same rows
        return r, v


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(8, 6).npu()
y = torch.randn(2, 6).npu()
idx = torch.tensor([0, 2]).npu()
torchair.inference.set_dim_gears(x, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, y, idx)
print([tuple(o.shape) for o in outs])
