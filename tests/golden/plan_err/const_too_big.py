# Constants computed in the bundle are bounded: a non-persistent buffer of
# 128 MiB (more than the 64 MiB tngc allows per compiled entry) is refused,
# naming the buffer, rather than planned.
import torch, torch_npu, torchair
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.ones(8192, 4096), persistent=False)
    def forward(self, x):
        return x + self.table[0]  # expect: TNG212
m = torch.compile(M(), fullgraph=True)
m(torch.ones(4096))
