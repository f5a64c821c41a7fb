# `ｘ` (fullwidth) is `x` to Python, which reads names in NFKC: PyTorch
# returns 2x+1 here. tngc does not normalise names, so it refuses the
# script rather than plan x+1.
import torch
import torch.nn as nn
import torch_npu
import torchair


class Model(nn.Module):
    def forward(self, x):
        ｘ = x * 2  # expect: TNG003
        return x + 1


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, fullgraph=True, dynamic=False)
out = model(torch.randn(2, 16).npu())
