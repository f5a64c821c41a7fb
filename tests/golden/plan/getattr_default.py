# getattr(obj, name, default) takes the default only where the attribute
# provably does not exist: "rope" is absent from Block (default 10000), "k"
# is set in __init__ (3); inside forward the lookup of a missing attribute
# with a default is no graph break. The scope names show the values.
import torch
import torch.nn as nn
import torchair


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.k = 3
        self.base = getattr(self, "rope", 10000)

    def forward(self, x):
        name = "k" + str(getattr(self, "k", 0)) + "_b" + str(self.base) + "_m" + str(getattr(self, "missing", 7))
        with torchair.scope.super_kernel(name, ""):
            return self.fc(x)


model = Block()
config = torchair.CompilerConfig()
compiled = torch.compile(model, backend=torchair.get_npu_backend(compiler_config=config), fullgraph=True)
compiled(torch.randn(2, 8))
