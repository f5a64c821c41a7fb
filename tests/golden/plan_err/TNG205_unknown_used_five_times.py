# One unknown value (read from the environment when the script runs) used
# again and again, directly and through values computed from it (operands,
# sizes, dims, an index, a condition, a scope name): one error, at its first
# use, naming the line it comes from; the other uses are silent.
import os

import torch
import torch.nn as nn
import torchair

SCALE = int(os.environ.get("SCALE", "2"))
HALF = SCALE // 2


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x) * SCALE  # expect: TNG205
        h = h + SCALE
        h = h * (HALF + 1)
        h = h.reshape(SCALE, -1).sum(dim=HALF) + torch.ones(SCALE)[HALF]
        if SCALE > 1:
            h = h - 1
        with torchair.scope.super_kernel(f"s{SCALE}", ""):
            h = torch.relu(h) * str(SCALE)
        return h


model = Model()
config = torchair.CompilerConfig()
compiled = torch.compile(model, backend=torchair.get_npu_backend(compiler_config=config), fullgraph=True)
compiled(torch.randn(2, 8))
