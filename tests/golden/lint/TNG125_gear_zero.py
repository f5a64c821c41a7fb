import torch
import torch_npu
import torchair
from torchair.inference import set_dim_gears as set_gears


class Model(torch.nn.Module):
    def forward(self, tokens, positions):
        return tokens + positions


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=True, fullgraph=True)
tokens = torch.zeros(1, 128).npu()
positions = torch.zeros(1, 128).npu()
set_gears(tokens, {1: [0, 128, 256]})  # expect: TNG125
set_gears(positions, {1: (128, 0, 256)})  # expect: TNG125
out = model(tokens, positions)
