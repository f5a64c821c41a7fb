# An unknown size first needed by an op's argument (torch.ones), then as a
# view size, a reduction dim, a cat dim, a narrow length, an index and an
# operand: one error, where the op first needs it.
import os

import torch
import torch.nn as nn
import torchair

SCALE = int(os.environ.get("SCALE", "2"))


class Model(nn.Module):
    def forward(self, x):
        y = torch.ones(SCALE, 8)  # expect: TNG205
        z = x.view(SCALE, -1)
        w = x.sum(dim=SCALE)
        v = torch.cat([x, x], dim=SCALE)
        u = x.narrow(0, 0, SCALE)
        k = x[SCALE]
        q = x.reshape([SCALE, -1])
        return x * SCALE + y.sum() + z.sum() + w.sum() + v.sum() + u.sum() + k.sum() + q.sum()


config = torchair.CompilerConfig()
compiled = torch.compile(Model(), backend=torchair.get_npu_backend(compiler_config=config), fullgraph=True)
compiled(torch.randn(2, 8))
