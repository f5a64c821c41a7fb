# numpy at build time: tngc evaluates np.log, np.exp, np.sqrt and
# np.float64 of Python numbers (numpy.float64 scalars) and numpy's
# constants; a numpy array (np.arange) or an np.float32 scalar is not
# modelled: TNG202 where forward uses it, naming the numpy call.
# torch.tensor of a numpy.float64 is float64 in PyTorch: TNG203.
import numpy as np
import torch
import torch.nn as nn
import torchair

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.idx = np.arange(4)
        self.step = np.log(2.0) / 3

    def forward(self, x):
        y = x + self.idx  # expect: TNG205
        y = y * np.float32(0.5)  # expect: TNG202
        y = y + torch.tensor(self.step)  # expect: TNG203
        y = y + torch.tensor(self.step, dtype=torch.float32)
        return y * round(-self.step, 2)  # expect: TNG205

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, fullgraph=True, dynamic=False)
out = model(torch.randn(2, 4).npu())
