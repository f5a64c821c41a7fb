# getattr of an object tngc does not know (a transformers config read from
# a file) is unknown, not its default: the scope name that needs it is
# reported, not silently named "0".
from transformers import AutoConfig
import torch
import torch.nn as nn
import torchair

cfg = AutoConfig.from_pretrained("./model")


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
