# A submodule built by a library tngc does not see (an external module:
# not on the search path) is called in the graph: one TNG202 naming the
# module and the name, not a call dropped from the graph.
import torch
import torch.nn as nn
from writers import build_writers
import torchair

class CacheWriter(nn.Module):
    def forward(self, cache, k):
        cache[:, 0:1] = k

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8, bias=False)
        self.writers = build_writers({"k": CacheWriter()})
    def forward(self, x, k_cache):
        k = self.proj(x)
        self.writers["k"](k_cache, k)  # expect: TNG202
        return k

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, fullgraph=True, dynamic=False)
x = torch.randn(2, 1, 8).npu()
k_cache = torch.zeros(2, 4, 8).npu()
out = model(x, k_cache)
