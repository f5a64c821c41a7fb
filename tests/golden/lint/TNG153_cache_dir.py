import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torchair.inference.cache_compile(self._a, cache_dir="../../../../x")  # expect: TNG153
        self.b = torchair.inference.cache_compile(self._a, cache_dir="cache/..")  # expect: TNG153
        self.c = torchair.inference.cache_compile(self._a, cache_dir="/abs\x00/x")  # expect: TNG153
        self.d = torchair.inference.cache_compile(self._a, cache_dir="/data/../cache")
        self.e = torchair.inference.cache_compile(self._a, cache_dir="cache/..x/y..")
        self.f = torchair.inference.cache_compile(self._a, cache_dir=".torchair_cache")

    def forward(self, x):
        return self.a(x)

    def _a(self, x):
        return x + 1
