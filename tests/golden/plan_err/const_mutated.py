# A non-persistent buffer computed from constants is evaluated in the
# bundle (not read from the weights file): an entry that updates it in place
# would lose the update at the next call, so tngc refuses it and says to
# register it as a persistent buffer.
import torch, torch_npu, torchair
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("acc", torch.zeros(4), persistent=False)
    def forward(self, x):
        self.acc += x
        return self.acc * 2
m = torch.compile(M(), fullgraph=True)
m(torch.ones(4))  # expect: TNG211
