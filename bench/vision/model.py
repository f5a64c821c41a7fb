# A small vision model for bench/vision: a stem (conv3x3 3 -> 16, BN,
# ReLU), a 2 x 2 max-pool, a ResNet basic block (conv3x3-BN-ReLU-conv3x3-BN,
# identity add, ReLU; 16 channels), conv3x3 16 -> 32 stride 2 with BN and
# ReLU, a 1 x 1 conv 32 -> 64 with ReLU, a global average pool and a
# Linear 64 -> 10 (4.2 MFLOP of convolution per 3 x 32 x 32 sample).  BatchNorm in eval mode, its
# running statistics and affine parameters random (set by bench.py before
# the weights are written).  float32, static shapes: bench.py rewrites the
# BATCH and SIZE lines for each shape it times.
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn

BATCH = 2
SIZE = 32


def conv_bn(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
                         nn.BatchNorm2d(cout))


class BasicBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.a = conv_bn(ch, ch)
        self.b = conv_bn(ch, ch)

    def forward(self, x):
        return F.relu(self.b(F.relu(self.a(x))) + x)


class Vision(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = conv_bn(3, 16)
        self.pool = nn.MaxPool2d(2)
        self.block = BasicBlock(16)
        self.down = conv_bn(16, 32, stride=2)
        self.proj = nn.Conv2d(32, 64, 1)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.stem(x)))
        x = self.block(x)
        x = F.relu(self.down(x))
        x = F.relu(self.proj(x))
        return self.fc(x.mean((2, 3)))


if __name__ == "__main__":
    torch.manual_seed(0)
    model = torch.compile(Vision().eval().npu(), backend=torchair.get_npu_backend(),
                          fullgraph=True)
    with torch.no_grad():
        y = model(torch.randn(BATCH, 3, SIZE, SIZE).npu())
    print("vision:", tuple(y.shape))

# tolerance: matmul
