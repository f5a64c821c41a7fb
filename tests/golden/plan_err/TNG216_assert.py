import torch
import torch_npu
import torchair
from torch import nn


# assert statements run as in Python: a condition tngc knows at compile
# time (shapes, config values) that is false is an error at the assert with
# its message (AssertionError), and the method stops there (no knock-on
# shape error below it); in host code (__init__) the script stops there, as
# an uncaught AssertionError ends it (the entry after it is not traced). An
# assert on a tensor's values or on a dynamic dim (a geared batch) cannot be
# checked by the bundle: a warning says it is skipped. True ones pass
# silently.
class PatchEmbed(nn.Module):
    def __init__(self, img_size=32, patch=8, dim=16, heads=4):
        super().__init__()
        assert dim % heads == 0, "dim should be divisible by num_heads"
        self.img_size = (img_size, img_size)
        self.proj = nn.Conv2d(3, dim, patch, stride=patch)

    def forward(self, x):
        B, C, H, W = x.shape
        assert C == 3
        assert (x > -100).all(), "inputs out of range"  # expect: TNG216
        assert H == self.img_size[0] and W == self.img_size[1], (  # expect: TNG216
            f"Input image size ({H}*{W}) doesn't match model ({self.img_size[0]}*{self.img_size[1]}).")
        x = self.proj(x).flatten(2)
        return x.view(B, 99, -1)


class Even(nn.Module):
    def forward(self, x):
        assert x.shape[0] % 2 == 0, "an even batch"  # expect: TNG216
        assert x.shape[1] == 4
        return x * 2


class Heads(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        assert dim % heads == 0  # expect: TNG216
        self.lin = nn.Linear(dim, dim)

    def forward(self, x):
        return self.lin(x)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(PatchEmbed().eval().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
print(model(torch.randn(2, 3, 16, 16).npu()))
even = torch.compile(Even().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
xe = torch.randn(2, 4).npu()
torchair.inference.set_dim_gears(xe, dim_gears={0: [2, 4]})
print(even(xe))
heads = torch.compile(Heads(10, 4).npu(), backend=npu_backend, dynamic=False, fullgraph=True)
print(heads(torch.randn(2, 10).npu()))
