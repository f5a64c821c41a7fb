import torch
import torch_npu
import torchair
from torch import nn


# An nn module tngc has no lowering for is refused where it is called,
# naming its class; building it (and a supported one) is fine.
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.rnn = nn.LSTM(8, 16)

    def forward(self, x):
        return self.rnn(self.proj(x))  # expect: TNG203


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 3, 8).npu()
print(model(x))
