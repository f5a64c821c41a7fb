import torch
import torch_npu
import torchair


# Keeping a tensor of the graph on the module: a side effect the graph
# cannot express (register a buffer and copy_ into it instead).
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)
        self.last_hidden = None

    def forward(self, x):
        h = self.fc(x)
        self.last_hidden = h  # expect: TNG211
        return torch.relu(h)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 16).npu()
print(model(x))
