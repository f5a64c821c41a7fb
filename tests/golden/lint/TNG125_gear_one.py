import torch
import torch_npu
import torchair
from torchair.inference import set_dim_gears

# TorchAir asserts every gear value > 0 (inference/_gear_utils.py:13-36):
# 0 and negative values are errors. Its docs also rule out 1, which the code
# accepts: a warning, reported once on a list that two calls share.
BATCH_GEARS = [1, 2, 4, 8]  # expect: TNG125


class Model(torch.nn.Module):
    def forward(self, tokens, positions, mask):
        return tokens + positions + mask


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=True, fullgraph=True)
tokens = torch.zeros(2, 128).npu()
positions = torch.zeros(2, 128).npu()
mask = torch.zeros(2, 128).npu()
set_dim_gears(tokens, {0: BATCH_GEARS})
set_dim_gears(positions, {0: BATCH_GEARS})
set_dim_gears(mask, {0: [1, 2, 4, -8]})  # expect: TNG125
out = model(tokens, positions, mask)
