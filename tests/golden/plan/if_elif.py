# if / elif / else on constructor values: each chain folds to the branch the
# value selects (the else and elif branches included).
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def __init__(self, mode, gate):
        super().__init__()
        self.mode = mode
        self.gate = gate

    def forward(self, x):
        if self.mode == 0:
            x = x + 1
        elif self.mode == 1:
            x = torch.tanh(x)
        else:
            x = torch.relu(x)
        if self.gate:
            x = x * 2
        else:
            x = torch.sigmoid(x)
        return x


model = torch.compile(Model(1, False), dynamic=False, fullgraph=True)
model(torch.randn(2, 4))
