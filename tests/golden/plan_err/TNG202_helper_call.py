import torch
import torch_npu
import torchair
from model_utils import dump_activation


# A function of a module found on no search path (an external module):
# tngc cannot lower the call, and says which module it is from.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x):
        h = self.fc(x)
        dump_activation("fc", h)  # expect: TNG202
        return torch.relu(h)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 16).npu()
print(model(x))
