import torch
import torch_npu
import torchair


def shared_forward(x, y):
    return x + y


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        config = torchair.CompilerConfig()
        self.cached_add = torchair.inference.cache_compile(shared_forward, config=config)  # expect: TNG150
        self.cached_mul = torchair.inference.cache_compile(lambda x, y: x * y, config=config)  # expect: TNG150

    def forward(self, x, y):
        return self.cached_add(x, y) + self.cached_mul(x, y)
