# getattr of an object tngc does not know (a SimpleNamespace here, a
# transformers config in real code) is unknown, not its default: the scope
# name that needs it is reported, not silently named "0".
from types import SimpleNamespace
import torch
import torch.nn as nn
import torchair

cfg = SimpleNamespace(layer=1)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        with torchair.scope.super_kernel(str(getattr(cfg, "layer", 0)), ""):  # expect: TNG205
            return self.fc(x)


model = Block()
config = torchair.CompilerConfig()
compiled = torch.compile(model, backend=torchair.get_npu_backend(compiler_config=config), fullgraph=True)
compiled(torch.randn(2, 8))
