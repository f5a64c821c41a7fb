import torch
import torch_npu
import torchair
from torch import nn

B, S, H = 2, 8, 16


# scores against a cache prefix cache[:, :end] (its length min(end, 8)) take
# a mask of the query length in place: the shapes agree in gear 0 only, and
# the planner checks each gear.
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.randn(B, S, H))

    def forward(self, x):
        seqlen = x.shape[1]
        end = 0 + seqlen
        scores = x @ self.cache[:, :end].transpose(1, 2)
        scores += torch.full((seqlen, seqlen), float("-inf")).triu_(1)  # expect: TNG209
        return torch.softmax(scores, dim=-1) @ self.cache[:, :end]  # expect: TNG209


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(B, 4, H).npu()
torchair.inference.set_dim_gears(x, dim_gears={1: [4, 10]})
print(model(x))
