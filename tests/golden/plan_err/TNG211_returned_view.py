# Returning a view taken before an in-place write through its base: PyTorch's
# view sees the write, a copy made at the slice would not. TNG211 at the call.
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, cache, x):
        v = cache[:, 2:4]
        cache[:, 2:3] = x
        return v


model = torch.compile(Model(), fullgraph=True, dynamic=False)
cache = torch.randn(2, 8, 6)
x = torch.randn(2, 1, 6)
model(cache, x)  # expect: TNG211
