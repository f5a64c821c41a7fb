# tolerance: matmul
# The Winograd form of 3 x 3 stride-1 convolutions (runtime/kernels_conv.c:
# F(2 x 2, 3 x 3) from 8 input channels on): input channels 9, 12 and 64
# (not multiples of the 8-channel block, and a deep sum), output channels
# 5, 12 and 20 (not multiples of the block), odd heights and widths (an
# odd count of tile rows and columns; 37 columns: several 16-tile
# groups, the last one part-filled), padding 0, 1 and 2 and (1, 0), each
# with its epilogue (bias; batch norm with random statistics; a residual;
# relu) fused or not (an output also returned: no fusion); a 3-channel
# conv (the direct sums), a dilated and a grouped 3 x 3 (the general
# convolution) for contrast. The batch dim takes 1 or 2 (zip gears,
# every gear checked). (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn

GEARS = [1, 2]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 9, 3, padding=1)
        self.a = nn.Conv2d(9, 12, 3, padding=1, bias=False)
        self.a_bn = nn.BatchNorm2d(12)
        self.b = nn.Conv2d(12, 12, 3, padding=1)
        self.deep_in = nn.Conv2d(12, 64, 1)
        self.deep = nn.Conv2d(64, 20, 3, padding=0, bias=False)
        self.deep_bn = nn.BatchNorm2d(20)
        self.p2 = nn.Conv2d(20, 5, 3, padding=2)
        self.hw = nn.Conv2d(12, 12, 3, padding=(1, 0))
        self.dil = nn.Conv2d(12, 8, 3, padding=2, dilation=2)
        self.grp = nn.Conv2d(12, 8, 3, padding=1, groups=2)

    def forward(self, x):
        # x: [B, 3, 19, 37]
        s = self.stem(x)
        y = F.relu(self.a_bn(self.a(F.relu(s))))
        r = F.relu(self.b(y) + y)
        d = F.relu(self.deep_bn(self.deep(self.deep_in(r))))
        p = self.p2(d)
        h = self.hw(r)
        return [s, y, r, d, p, h, self.dil(r), self.grp(r)]


def randomise(net):
    """Random running statistics and affine parameters in every batch norm
    (the defaults would hide a step left out)."""
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.copy_(torch.randn(m.num_features) * 0.2)
                m.running_var.copy_(torch.rand(m.num_features) + 0.5)
                m.weight.copy_(torch.rand(m.num_features) + 0.5)
                m.bias.copy_(torch.randn(m.num_features) * 0.2)
    return net


net = randomise(Net()).eval().npu()
config = torchair.CompilerConfig()
compiled = torch.compile(net, backend=torchair.get_npu_backend(compiler_config=config), dynamic=True,
                         fullgraph=True)
inp = torch.randn(2, 3, 19, 37).npu()
torchair.inference.set_dim_gears(inp, dim_gears={0: GEARS})
with torch.no_grad():
    print(len(compiled(inp)))
