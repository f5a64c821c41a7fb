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
# The compiled model is never called (the script runs the eager one by
# mistake): no example inputs, nothing to plan.
opt_model = torch.compile(model, backend=npu_backend, dynamic=False, fullgraph=True)  # expect: TNG208
x = torch.randn(4, 16).npu()
print(model(x))
