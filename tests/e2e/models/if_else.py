# Python if/else on values known when the model is built (constructor flags,
# static shapes): the branch taken is lowered, the other dropped.  Both an
# `if` whose condition is false (its `else` runs) and one whose condition is
# true (its body runs) are here, so a lowering that drops the wrong branch
# changes the result.  (tests/e2e/run.sh; runs under tests/ref/stubs.)
import torch
import torch_npu
import torchair
from torch import nn


class Model(nn.Module):
    def __init__(self, use_gelu=False, residual=True):
        super().__init__()
        self.use_gelu = use_gelu
        self.residual = residual
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        h = self.fc(x)
        if self.use_gelu:
            h = torch.nn.functional.gelu(h)
        else:
            h = torch.relu(h)
        if self.residual and x.shape[0] > 1:
            h = h + x
        else:
            h = h - x
        return h


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 16).npu()
with torch.no_grad():
    print(model(x))

# Conformance (tests/e2e/compare.py): the outputs come from float matmuls, so
# they are compared at the matmul tolerances.
# tolerance: matmul
