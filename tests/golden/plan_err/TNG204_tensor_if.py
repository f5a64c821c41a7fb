import torch
import torch_npu
import torchair


# An if on a tensor's value: the branch taken is only known at run time.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 0:  # expect: TNG204
            h = torch.relu(h)
        return h


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 16).npu()
print(model(x))
