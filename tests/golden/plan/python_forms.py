# Python forms in a compiled method: @staticmethod called through self,
# @property, @classmethod, starred unpacking of chunk() and of a list.
import torch, torch_npu, torchair
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.s = 2.0
    @staticmethod
    def residual(a, b):
        return a + b
    @property
    def scale(self):
        return self.s * 2
    @classmethod
    def width(cls):
        return 4
    def forward(self, x):
        a, *rest = x.chunk(4, -1)
        h = self.residual(a, rest[0]) * self.scale
        first, *mid, last = [1, 2, 3, 4]
        return h.view(2, self.width() // 4, -1), rest[2] * (last - first)
m = torch.compile(M(), backend=torchair.get_npu_backend(), fullgraph=True)
m(torch.ones(2, 8))
