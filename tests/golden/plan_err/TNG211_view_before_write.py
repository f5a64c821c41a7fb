# A view taken before an in-place write sees the write in PyTorch; tngc's view
# would read stale data, so reading it after the write is an error.
import torch
import torch.nn as nn
import torch_npu
import torchair

class Model(nn.Module):
    def forward(self, q, k, k_cache):
        keys = k_cache.transpose(1, 2)        # [B, D, S] view of the cache
        k_cache[:, 3:4] = k                   # write this step's key
        return torch.matmul(q, keys)  # expect: TNG211

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, dynamic=False, fullgraph=True)
q = torch.ones(1, 1, 4).npu()
k = torch.ones(1, 1, 4).npu()
k_cache = torch.zeros(1, 8, 4).npu()
print(model(q, k, k_cache))
