# Tensor.item() inside a compiled method: the value read from the tensor
# sets a slice bound, a shape that depends on data. torch.compile with
# fullgraph=True refuses it too (a graph break); the message says so and
# what to do instead.
import torch, torch_npu, torchair
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = torch.zeros(2, 16, 8)
    def forward(self, x, positions):
        cur = positions[-1].item() + 1  # expect: TNG203
        return self.cache[:, :cur] * 2 + x
m = torch.compile(M(), fullgraph=True)
m(torch.ones(2, 1, 8), torch.tensor([6]))
