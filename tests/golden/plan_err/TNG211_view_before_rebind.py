# An in-place write into an op's result (scatter_ into a zeros_like mask,
# x += y on a product) gives the tensor a new value; a view of it taken
# before the write would see the write in PyTorch, so reading it after the
# write is an error, not stale data.
import torch
import torch.nn as nn
import torch_npu
import torchair

class Model(nn.Module):
    def forward(self, x, idx):
        mask = torch.zeros_like(x)
        flat = mask.view(-1)
        mask.scatter_(1, idx, 1.0)
        h = x * 2.0
        rows = h[0:2]
        h += 1.0
        return flat * 1.0, rows * 1.0  # expect: TNG211

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 8).npu()
idx = torch.zeros(4, 2, dtype=torch.long).npu()
print(model(x, idx))
