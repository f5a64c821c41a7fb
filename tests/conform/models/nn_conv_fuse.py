# tolerance: matmul
# Convolution epilogues (codegen/fuse_conv.c, runtime/kernels_conv.c): a
# conv3x3 -> BatchNorm2d (eval, random running statistics and affine
# parameters) -> ReLU stem, a ResNet basic block (conv-BN-ReLU-conv-BN, the
# identity added, ReLU), a stride-2 conv3x3 with BN and ReLU, a 1 x 1 conv
# with bias and ReLU, a 1 x 1 stride-2 conv with BN and no ReLU, a conv
# whose output is also returned (no fusion: two readers), and forms the
# direct kernel does not take, fused with their epilogue through the
# general convolution: groups 2 with BN and ReLU, dilation 2 with ReLU, a
# 5 x 5 window with BN, stride (2, 1). Widths 13 and 7 (not multiples of
# the kernel's 8-wide vector), 20 output channels (not a multiple of its
# 8-channel block). The batch dim takes 2 or 3 (zip gears, every gear
# checked). (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn

GEARS = [2, 3]


def bn(c):
    m = nn.BatchNorm2d(c)
    m.running_mean = torch.randn(c) * 0.2
    m.running_var = torch.rand(c) + 0.5
    m.weight = nn.Parameter(torch.rand(c) + 0.5)
    m.bias = nn.Parameter(torch.randn(c) * 0.2)
    return m


class Block(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.c1 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.b1 = bn(ch)
        self.c2 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.b2 = bn(ch)

    def forward(self, x):
        return F.relu(self.b2(self.c2(F.relu(self.b1(self.c1(x))))) + x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 20, 3, padding=1)
        self.stem_bn = bn(20)
        self.block = Block(20)
        self.down = nn.Conv2d(20, 16, 3, stride=2, padding=1, bias=False)
        self.down_bn = bn(16)
        self.proj = nn.Conv2d(16, 24, 1)
        self.short = nn.Conv2d(20, 24, 1, stride=2, bias=False)
        self.short_bn = bn(24)
        self.seen = nn.Conv2d(24, 8, 3, padding=1)
        self.grouped = nn.Conv2d(24, 8, 3, padding=1, groups=2, bias=False)
        self.grouped_bn = bn(8)
        self.dilated = nn.Conv2d(8, 8, 3, padding=2, dilation=2)
        self.wide = nn.Conv2d(8, 6, 5, stride=(2, 1), padding=2, bias=False)
        self.wide_bn = bn(6)

    def forward(self, x):
        # x: [B, 3, 11, 13]
        y = F.relu(self.stem_bn(self.stem(x)))
        y = self.block(y)
        z = F.relu(self.down_bn(self.down(y)))
        p = F.relu(self.proj(z)) + self.short_bn(self.short(y))
        s = self.seen(p)
        g = F.relu(self.grouped_bn(self.grouped(p)))
        d = F.relu(self.dilated(g))
        w = self.wide_bn(self.wide(d))
        return [y, p, s, s * 2, w]


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = Net().eval().npu()
fmodel = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(3, 3, 11, 13).npu()
torchair.inference.set_dim_gears(x, dim_gears={0: GEARS})
with torch.no_grad():
    outs = fmodel(x)
print(len(outs))
