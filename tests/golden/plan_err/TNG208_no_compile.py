# The model is defined and run eagerly, never compiled: nothing to plan.  # expect: TNG208
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x):
        return torch.relu(self.fc(x))


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = Model().npu()
x = torch.randn(4, 16).npu()
print(model(x))
