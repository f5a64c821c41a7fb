# tolerance: matmul
# state_dict keys the model never reads: a BatchNorm2d's
# num_batches_tracked (saved by PyTorch, never read in eval) and the
# parameters of a submodule forward does not call (an auxiliary head).
# The harness's weights file is the whole state_dict(): the bundle records
# those keys as unread, so the launcher loads the file with no warning,
# --strict included (tests/conform/state_keys.sh checks that, and that a
# missing real weight is still refused and an unknown tensor still warned
# of). Float32, and float16 by a second class (module.half()); the batch
# dim takes 2 or 4 (zip gears, every gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn

GEARS = [2, 4]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.bn.running_mean = torch.randn(8) * 0.1
        self.bn.running_var = torch.rand(8) + 0.5
        self.act = nn.ReLU()
        self.head = nn.Linear(8, 5)
        self.aux_head = nn.Linear(8, 3)   # used in training only

    def forward(self, x):
        # x: [B, 3, 8, 8]
        y = self.act(self.bn(self.conv(x)))
        return self.head(y.mean(dim=(2, 3)))


class HalfNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = Net().half()

    def forward(self, x):
        return self.net(x)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = Net().eval().npu()
half = HalfNet().eval().npu()
fmodel = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)
hmodel = torch.compile(half, backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(4, 3, 8, 8).npu()
xh = x.half()
torchair.inference.set_dim_gears(x, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(xh, dim_gears={0: GEARS})
with torch.no_grad():
    out = fmodel(x)
    hout = hmodel(xh)
print(out.shape, hout.shape)
