import torch
import torch_npu
import torchair
from torch import nn

# Where PyTorch's answer to is_contiguous() depends on strides tngc does
# not follow, tngc refuses rather than guess: a transposed tensor passed to
# the compiled call, an op's result of a permuted operand (PyTorch keeps
# the permuted layout), channels-last tensors (a convolution of one is
# channels-last too), and the channels-last query itself. The copy that
# x.to(memory_format=torch.channels_last) makes is not x, so a write into
# it cannot be taken for a write into x.
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, img, x, z):
        a = z.is_contiguous()  # expect: TNG203
        w = x.permute(1, 0)
        b = (w + 1).is_contiguous()  # expect: TNG203
        c = x.is_contiguous(memory_format=torch.channels_last)  # expect: TNG203
        y = img.to(memory_format=torch.channels_last) + 1.0
        d = self.conv(y).is_contiguous()  # expect: TNG203
        return img, x


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, dynamic=False, fullgraph=True)
print(model(torch.randn(2, 3, 8, 8).npu(), torch.randn(4, 6).npu(), torch.randn(6, 4).npu().t()))
