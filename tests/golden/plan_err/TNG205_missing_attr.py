# Returning an attribute the module does not have.
import torch
import torch.nn as nn
import torch_npu
import torchair

class Model(nn.Module):
    def forward(self, x, cache):
        h = self.missing  # expect: TNG205
        return h

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, fullgraph=True, dynamic=False)
out = model(torch.randn(2, 1).npu(), torch.zeros(2, 4).npu())
