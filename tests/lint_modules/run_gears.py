# Gears on the input of a compile whose config (found with -I) is in
# reduce-overhead mode: TNG133.
import torch
from torchair.inference import set_dim_gears
from inc_backend import backend


class Model(torch.nn.Module):
    def forward(self, a):
        return a * 2


model = torch.compile(Model(), backend=backend, fullgraph=True)
x = torch.randn(4, 8)
set_dim_gears(x, {0: [2, 4]})
model(x)
