import torch
import torch_npu
import torchair
from torch import nn


# BatchNorm in training mode (the model never put in eval mode) normalises
# with batch statistics: tngc compiles inference only and says so.
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.bn = nn.BatchNorm2d(8)

    def forward(self, x):
        return self.bn(self.conv(x))  # expect: TNG203


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(2, 3, 8, 8).npu()
with torch.no_grad():
    print(model(x))
