# assert statements whose conditions tngc knows at compile time and are
# true pass silently (in __init__ and in forward: shapes, config values);
# the graph has only the forward's ops. (An assert on a tensor's values is
# a TNG216 warning: tests/golden/plan_err/TNG216_assert.py.)
import torch, torch_npu, torchair
from torch import nn
class M(nn.Module):
    def __init__(self, dim=8, heads=2):
        super().__init__()
        assert dim % heads == 0, "dim should be divisible by num_heads"
        self.heads = heads
        self.lin = nn.Linear(dim, dim)
    def forward(self, x):
        B, N, C = x.shape
        assert C % self.heads == 0 and N == 4, f"bad shape {tuple(x.shape)}"
        return self.lin(x).view(B, N, self.heads, C // self.heads)
m = torch.compile(M().eval(), fullgraph=True)
m(torch.ones(2, 4, 8))
