# A submodule tngc cannot resolve (built by a library it does not see) is
# called: an error, not a call dropped from the graph.
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
        self.writers["k"](k_cache, k)  # expect: TNG205
        return k

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, fullgraph=True, dynamic=False)
x = torch.randn(2, 1, 8).npu()
k_cache = torch.zeros(2, 4, 8).npu()
out = model(x, k_cache)
