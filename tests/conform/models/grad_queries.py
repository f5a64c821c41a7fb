# x.requires_grad answered as PyTorch answers it: an input (False), a
# parameter (True), one frozen with requires_grad_(False), one made with
# nn.Parameter(..., requires_grad=False), a buffer, a ParameterList's
# tensor (made a parameter), and results computed from inputs and frozen
# parameters only (False in any grad mode). Each answer picks a branch.
# A result computed from a trainable parameter depends on torch's grad
# mode and is refused (tests/golden/plan_err/TNG203_requires_grad.py).
# Static shapes. (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn


class Grads(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(5, 5)
        self.frozen = nn.Linear(5, 5)
        self.frozen.weight.requires_grad_(False)
        self.frozen.bias.requires_grad_(False)
        self.scale = nn.Parameter(torch.ones(5), requires_grad=False)
        self.plist = nn.ParameterList([torch.ones(5)])
        self.register_buffer("buf", torch.zeros(5))

    def forward(self, x):
        bits = [
            x.requires_grad,
            self.lin.weight.requires_grad,
            self.frozen.weight.requires_grad,
            self.scale.requires_grad,
            self.buf.requires_grad,
            self.plist[0].requires_grad,
            (x * 2 + self.buf).requires_grad,
            self.frozen(x).requires_grad,
            (x * self.scale).t().requires_grad,
        ]
        y = x
        for i, b in enumerate(bits):
            if b:
                y = y + (i + 1)
            else:
                y = y * 0.5
        return y


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Grads().npu().eval(), backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    out = model(torch.randn(4, 5).npu())
