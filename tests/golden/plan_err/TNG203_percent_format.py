# printf-style formatting tngc does not evaluate (%c here) is reported where
# it is written, once: the scope name computed from it stays quiet.
import torch
import torch.nn as nn
import torchair


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        name = "blk_%c" % 65  # expect: TNG203
        with torchair.scope.super_kernel(name, ""):
            x = self.fc(x)
        with torchair.scope.super_kernel("%s_%d" % ("ok", 1), ""):
            return x * 2


model = Model()
config = torchair.CompilerConfig()
compiled = torch.compile(model, backend=torchair.get_npu_backend(compiler_config=config), fullgraph=True)
compiled(torch.randn(2, 8))
