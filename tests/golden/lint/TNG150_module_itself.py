import torch
import torchair
from torchair.inference import cache_compile


# An instance is not a method: TorchAir's isinstance(func, types.MethodType)
# fails and it raises ValueError (inference/_cache_compiler.py:612-613),
# whether it is self in a method, an instance made here or a class.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(2, 1)
        self.cached_prompt = torchair.inference.cache_compile(self)  # expect: TNG150
        self.cached_decode = cache_compile(self.decode)

    def forward(self, x):
        return self.linear(x)

    def decode(self, x):
        return self.linear(x) + 1

    @staticmethod
    def build(model):
        # not the instance a method is called on: silent
        return cache_compile(model)

    def nested(self):
        def inner(this):
            return cache_compile(this)
        return inner(self)


class Other:
    def run(me, x):
        return cache_compile(me, dynamic=False)  # expect: TNG150


model = Model()
cached = cache_compile(model)  # expect: TNG150
cached_class = cache_compile(Model)  # expect: TNG150
cached_forward = cache_compile(model.forward)
