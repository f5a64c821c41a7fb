# A slice assignment whose bound is a dynamic dim that has no gears: tngc
# cannot check where the slice ends, so it refuses the write (with gears
# it checks every gear and writes).
import torch, torch_npu, torchair
from torch import nn
class M(nn.Module):
    def forward(self, k, cache):
        n = k.shape[1]
        cache[:, :n] = k  # expect: TNG211
        return cache.sum(1)
m = torch.compile(M(), backend=torchair.get_npu_backend(), dynamic=True, fullgraph=True)
m(torch.randn(2, 3, 4), torch.zeros(2, 8, 4))
