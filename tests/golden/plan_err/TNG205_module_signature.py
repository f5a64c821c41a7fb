import torch
import torchair


# An nn module constructed with arguments PyTorch refuses (a TypeError in
# host code): the module is not known, and its call says why.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8, bias=False)
        self.act = torch.nn.Sigmoid(inplace=True)

    def forward(self, x):
        return self.act(self.fc(x))  # expect: TNG205


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 8).npu()
print(model(x))
