import torch
import torch_npu
import torchair


# cache_compile traces dynamically unless dynamic=False is given.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        config = torchair.CompilerConfig()
        self.cached_forward = torchair.inference.cache_compile(self._forward, config=config)

    def forward(self, x, w):
        return self.cached_forward(x, w)

    def _forward(self, x, w):
        with torchair.scope.super_kernel("sk", "stream-fusion=1"):  # expect: TNG114
            y = torch.mm(x, w)
            return torch.sigmoid(y)


model = Model().npu()
x = torch.randn(32, 64).npu()
w = torch.randn(64, 64).npu()
out = model(x, w)
