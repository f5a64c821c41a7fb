# A tensor attribute (neither parameter nor buffer) that the compiled method
# reads before it writes into it: the read already used its value as a
# constant of the bundle, so tngc cannot keep it as state between calls and
# refuses it (an attribute written before any read is state: a buffer named
# by its attribute path).
import torch, torch_npu, torchair
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.hist = torch.zeros(2, 4)
    def forward(self, x):
        before = self.hist.sum(0)
        self.hist[0] = x
        return before + self.hist[0]
m = torch.compile(M(), fullgraph=True)
m(torch.ones(4))  # expect: TNG211
