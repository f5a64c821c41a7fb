# tolerance: matmul
# The neural net family's convolution stem: nn.Conv2d ->
# nn.BatchNorm2d (inference, running statistics set in __init__) -> nn.ReLU
# -> nn.MaxPool2d -> nn.Conv2d (groups, padding="same") -> nn.GroupNorm ->
# nn.AvgPool2d -> nn.AdaptiveAvgPool2d((1, 1)) and nn.AdaptiveMaxPool2d,
# then nn.Conv1d over a [B, C, L] view with nn.BatchNorm1d; nn.Upsample
# (bilinear by scale_factor, nearest to a size); the state_dict
# (num_batches_tracked included) is the bundle's weights. Run in float32
# and, in a second entry (HalfStem), in float16 (module.half()). The batch
# dim takes 2 or 4 (zip gears, every gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn

GEARS = [2, 4]


class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.bn1.running_mean = torch.randn(8) * 0.1
        self.bn1.running_var = torch.rand(8) + 0.5
        self.bn1.weight = nn.Parameter(torch.rand(8) + 0.5)
        self.bn1.bias = nn.Parameter(torch.randn(8) * 0.1)
        self.act = nn.ReLU(inplace=True)
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(8, 16, (3, 1), padding="same", groups=2, bias=False)
        self.gn = nn.GroupNorm(4, 16)
        self.avg = nn.AvgPool2d(2, stride=1, padding=1, count_include_pad=False)
        self.gap = nn.AdaptiveAvgPool2d((1, 1))
        self.gmp = nn.AdaptiveMaxPool2d(2)
        self.conv1d = nn.Conv1d(16, 8, 3, dilation=2, padding=2)
        self.bn1d = nn.BatchNorm1d(8)
        self.bn1d.running_mean = torch.randn(8) * 0.1
        self.bn1d.running_var = torch.rand(8) + 0.5
        self.up = nn.Upsample(scale_factor=2, mode="bilinear")
        self.up2 = nn.Upsample(size=(5, 7))

    def forward(self, x):
        # x: [B, 3, 16, 16]
        y = self.pool(self.act(self.bn1(self.conv1(x))))
        z = self.gn(self.conv2(y))
        a = self.avg(z)
        s = z.flatten(2)
        t = self.bn1d(self.conv1d(s))
        return [y, z, a, self.gap(a).flatten(1), self.gmp(z), t, self.up(y), self.up2(z)]


class HalfStem(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = Stem().half()

    def forward(self, x):
        return self.stem(x)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = Stem().eval().npu()
half = HalfStem().eval().npu()
fmodel = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)
hmodel = torch.compile(half, backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(4, 3, 16, 16).npu()
xh = x.half()
torchair.inference.set_dim_gears(x, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(xh, dim_gears={0: GEARS})
with torch.no_grad():
    outs = fmodel(x)
    houts = hmodel(xh)
print(len(outs), len(houts))
