import torch
import torch.nn.functional as F
import torch_npu
import torchair


# padding='same' pads dilation * (kernel size - 1) in all, and interpolate
# sizes its output floor(size * scale_factor): each must fit in int64, and
# a scale factor must be finite.
class SameConv(torch.nn.Module):
    def forward(self, x, w):
        return F.conv2d(x, w, padding='same', dilation=(1, 2**62))  # expect: TNG206


class Upsample(torch.nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=1e300)  # expect: TNG206


class UpsampleInf(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Upsample(scale_factor=float('inf'), mode='bilinear')

    def forward(self, x):
        return self.up(x)  # expect: TNG206


backend = torchair.get_npu_backend()
x = torch.randn(1, 2, 8, 8).npu()
conv = torch.compile(SameConv().npu(), backend=backend, dynamic=False)
print(conv(x, torch.randn(2, 2, 3, 3).npu()))
up = torch.compile(Upsample().npu(), backend=backend, dynamic=False)
print(up(x))
up_inf = torch.compile(UpsampleInf().npu(), backend=backend, dynamic=False)
print(up_inf(x))
