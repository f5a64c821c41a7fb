import torch
import torch.nn.functional as F
import torchair


# Calls PyTorch refuses with a TypeError: each binds its arguments to the
# function's signature and is TNG203 naming the function and the argument.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        a = torch.add(x, y, alfa=2)  # expect: TNG203
        b = torch.sum(x, 1, False, torch.float32)  # expect: TNG203
        c = x.transpose(0, 1, 2)  # expect: TNG203
        d = torch.mul(x, y, other=y)  # expect: TNG203
        e = F.softmax(x, dim=-1, axis=0)  # expect: TNG203
        f = torch.clamp_min(x)  # expect: TNG203
        g = x.view()  # expect: TNG203
        h = torch.relu(x, out=y)  # expect: TNG203
        i = torch.add(x, y, alpha=2, out=None)
        return a, b, c, d, e, f, g, h, i


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 8).npu()
y = torch.randn(4, 8).npu()
print(model(x, y))
