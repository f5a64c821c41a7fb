# self.buf += x on a registered buffer updates it in place: the sum is copied
# into the buffer (weight acc -> %3), and later reads see the new value.
import torch, torch_npu, torchair
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("acc", torch.zeros(4))
    def forward(self, x):
        self.acc += x
        return self.acc * 2
m = torch.compile(M(), fullgraph=True)
m(torch.ones(4))
