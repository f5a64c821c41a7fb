# A slice assignment whose end is the geared length plus a position,
# cache[:, pos:pos + n] = k: in the gear n = 6 it ends past the cache's 8
# rows, where PyTorch clamps the slice to 4 rows and refuses to copy 6 into
# them. Refused at compile time, naming the gear.
import torch, torch_npu, torchair
from torch import nn
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(2, 8, 4))
    def forward(self, k, pos: int):
        n = k.shape[1]
        self.cache[:, pos:pos + n] = k  # expect: TNG209
        return self.cache.sum(1)
m = torch.compile(M(), backend=torchair.get_npu_backend(), dynamic=True, fullgraph=True)
k = torch.randn(2, 2, 4)
torchair.inference.set_dim_gears(k, dim_gears={1: [2, 6]})
m(k, 4)
