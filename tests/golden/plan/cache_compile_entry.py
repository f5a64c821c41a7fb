# cache_compile as the compiled entry: __init__ stores the
# cache-compiled _forward, forward calls it. The entry is Model._forward,
# compiled static (dynamic=False) with the config given.
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)
        config = torchair.CompilerConfig()
        self.cached_forward = torchair.inference.cache_compile(self._forward, config=config,
                                                               dynamic=False)

    def forward(self, x, y):
        return self.cached_forward(x, y)

    def _forward(self, x, y):
        return torch.relu(self.fc(x)) + y


if __name__ == "__main__":
    model = Model().npu()
    x = torch.randn(4, 16).npu()
    y = torch.randn(4, 16).npu()
    with torch.no_grad():
        print(model(x, y).shape)
