import torch
import torch_npu
import torchair
from torch import nn

# An 'if' (or 'elif') that tngc cannot decide is one error at its
# condition; the names its branches bind are not reported again where
# they are read.
class Model(nn.Module):
    def forward(self, x):
        b = x.shape[0]
        if b > 2:  # expect: TNG204
            y = x * 2
        else:
            y = x + 1
        z = y[:1]
        if b > 8:
            w = x
        elif b < 3:  # expect: TNG204
            w = x * 3
        else:
            w = x - 1
        return y.sum(0), z.mean(0), w[0]


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, dynamic=True, fullgraph=True)
x = torch.randn(4, 5).npu()
torchair.inference.set_dim_gears(x, dim_gears={0: [2, 4]})
print(model(x))
