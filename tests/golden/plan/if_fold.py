# Python control flow on values known at compile time: an if on a
# constructor flag and on a static shape is folded, a for over
# range(const) and over range(start, stop, step) is unrolled.
import torch
import torch_npu
import torchair
from torch import nn


class Model(nn.Module):
    def __init__(self, use_gelu=False, n_repeat=3, residual=True):
        super().__init__()
        self.use_gelu = use_gelu
        self.n_repeat = n_repeat
        self.residual = residual
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        h = x
        for _ in range(self.n_repeat):
            h = self.fc(h)
            if self.use_gelu:
                h = torch.nn.functional.gelu(h)
            else:
                h = torch.relu(h)
        for i in range(1, 7, 2):
            h = h * float(i)
        if self.residual and x.shape[0] > 1:
            h = h + x
        if x.dim() == 3:
            h = h.sum(dim=1)
        return h


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(n_repeat=2).npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 16).npu()
with torch.no_grad():
    print(model(x).shape)
