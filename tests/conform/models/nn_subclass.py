# tolerance: matmul
# Script subclasses of torch.nn module classes, and nn.Sequential of an
# OrderedDict: a LayerNorm subclass that normalises in float32 through
# super().forward and casts back (float16 in and out), and a subclass of
# that one with its own __init__ (super().__init__(dim, eps=...)); a
# Linear subclass whose forward reads the inherited weight and bias cast to
# the input's dtype (float16 weights, float32 input; with bias and
# without); a Linear subclass with its own __init__ (super().__init__ with
# bias=False, then an attribute of its own) and the inherited forward, its
# inherited out_features read; a Conv1d subclass overriding _conv_forward,
# which the library's forward calls, calling super()._conv_forward with
# the weight cast (float16 weights); a Conv2d subclass with an empty body;
# an nn.Sequential of an OrderedDict with the keys "-1", "0", "1"
# (AvgPool2d, Conv2d, BatchNorm2d: state_dict names down.0.weight, ...);
# containers subclassed: a ModuleList subclass filled by self.append in its
# own __init__, whose forward iterates over itself and reads len(self) and
# self[0], and a Sequential subclass with no forward (the library's).
# A second entry compiles an instance of a Linear subclass with no forward
# whose __init__ calls nn.Linear.__init__(self, ...) through the class.
# The batch dim takes 2 or 4 (every gear checked). (tests/conform/run.sh)
from collections import OrderedDict

import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn

GEARS = [2, 4]


class Norm(nn.LayerNorm):
    def forward(self, x):
        return super().forward(x.float()).type(x.dtype)


class WideNorm(Norm):
    def __init__(self, dim):
        super().__init__(dim, eps=1e-3)
        self.dim = dim


class CastLinear(nn.Linear):
    def forward(self, x):
        return F.linear(x, self.weight.to(x.dtype), None if self.bias is None else self.bias.to(x.dtype))


class ScaledLinear(nn.Linear):
    def __init__(self, d_in, d_out, scale):
        super().__init__(d_in, d_out, bias=False)
        self.scale = scale


class Explicit(nn.Linear):
    def __init__(self, d_in, d_out):
        nn.Linear.__init__(self, d_in, d_out, bias=False)


class CastConv(nn.Conv1d):
    def _conv_forward(self, x, weight, bias):
        return super()._conv_forward(x, weight.to(x.dtype), None if bias is None else bias.to(x.dtype))


class PlainConv(nn.Conv2d):
    pass


class Stack(nn.ModuleList):
    def __init__(self, dim, n):
        super().__init__()
        for _ in range(n):
            self.append(nn.Linear(dim, dim))

    def forward(self, x):
        for layer in self:
            x = torch.relu(layer(x))
        return x * len(self) + self[0].bias


class Chain(nn.Sequential):
    pass


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = Norm(16)
        self.wide = WideNorm(16)
        self.lin = CastLinear(16, 12).half()
        self.lin_nb = CastLinear(16, 4, bias=False).half()
        self.proj = ScaledLinear(16, 8, 0.5)
        self.conv = CastConv(4, 6, kernel_size=3, padding=1).half()
        self.conv2 = PlainConv(4, 8, 3, padding=1, bias=False)
        self.down = nn.Sequential(OrderedDict([
            ("-1", nn.AvgPool2d(2)),
            ("0", nn.Conv2d(8, 8, 1, bias=False)),
            ("1", nn.BatchNorm2d(8)),
        ]))
        self.stack = Stack(16, 2)
        self.chain = Chain(nn.Linear(16, 8), nn.GELU())

    def forward(self, x, s, img):
        # x: [B, 5, 16]; s: [B, 4, 10]; img: [B, 4, 8, 8] (float32)
        h = self.norm(x.half())
        g = self.wide(x) * self.wide.dim
        y = self.lin(x)
        z = self.lin_nb(x)
        p = self.proj(g) * self.proj.scale + self.proj.out_features
        c = self.conv(s)
        d = self.down(self.conv2(img))
        e = self.chain(self.stack(x))
        return h, g, y, z, p, c, d, e


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().eval().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
lin = torch.compile(Explicit(16, 6).npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(4, 5, 16).npu()
s = torch.randn(4, 4, 10).npu()
img = torch.randn(4, 4, 8, 8).npu()
for t in (x, s, img):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, s, img)
    y = lin(x)
print(len(outs), y.shape)
