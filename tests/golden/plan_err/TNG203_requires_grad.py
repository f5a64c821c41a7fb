import torch
import torch_npu
import torchair
from torch import nn

# requires_grad of a tensor computed from a parameter that requires grad is
# True under torch's grad mode and False under torch.no_grad(); tngc does
# not model grad mode, so it refuses rather than pick one (an input's and a
# parameter's own flags are known: tests/conform/models/grad_queries.py).
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        y = self.lin(x)
        if y.requires_grad:  # expect: TNG203
            return y * 2
        return y


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, dynamic=False, fullgraph=True)
print(model(torch.randn(2, 4).npu()))
