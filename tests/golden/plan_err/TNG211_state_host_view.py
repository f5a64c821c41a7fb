# A view of a tensor attribute taken in __init__ (outside the compiled
# method) and read by the method after it writes the attribute, which keeps
# the attribute as state: the view entering the trace would be a tensor of
# its own that does not see the write. Refused at the read.
import torch, torch_npu, torchair
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = torch.empty(4, 8)
        self.head = self.cache[:1]
    def forward(self, x):
        self.cache[:2] = x
        return self.head * 2  # expect: TNG211
m = torch.compile(M(), fullgraph=True)
m(torch.ones(2, 8))
