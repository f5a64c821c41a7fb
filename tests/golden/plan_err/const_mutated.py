# A non-persistent buffer the compiled method writes in place is state kept
# between calls (PyTorch keeps the written values in the buffer), as a
# plain tensor attribute is, when the method writes it before any other
# use. This one reads it first: its value was already used as a constant,
# so tngc refuses it and says to register it as a persistent buffer.
import torch, torch_npu, torchair
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("acc", torch.zeros(4), persistent=False)
    def forward(self, x):
        y = self.acc * 2
        self.acc += x
        return self.acc * 2 + y
m = torch.compile(M(), fullgraph=True)
m(torch.ones(4))  # expect: TNG211
