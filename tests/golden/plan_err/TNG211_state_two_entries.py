# A tensor attribute one compiled entry keeps as state (it writes into it
# in place) and a second entry reads: each bundle would hold its own copy,
# so the second would not see the first one's writes. Refused at the read.
import torch, torch_npu, torchair
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = torch.zeros(4, 8)
    def prefill(self, x):
        self.cache[:2] = x
        return self.cache[:2] * 2
    def decode(self, x):
        return self.cache[:3] + x[:1]  # expect: TNG211
m = M()
prefill = torch.compile(m.prefill, fullgraph=True)
decode = torch.compile(m.decode, fullgraph=True)
prefill(torch.ones(2, 8))
decode(torch.ones(2, 8))
