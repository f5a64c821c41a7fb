import torch
import torch_npu
import torchair
from torchair.inference import set_dim_gears

# TorchAir raises on a gear value of 0 (inference/_gear_utils.py:31-33) but
# accepts 1 and negative values, which its docs rule out (and no dim is
# negative): warnings, reported once on a list that two calls share. True is
# an int to isinstance, so it is the value 1.
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
cache = torch.zeros(4, 64).npu()
set_dim_gears(cache, {0: [True, 2, 4, 8]})  # expect: TNG125
