# A cache created lazily inside forward and kept as a module attribute
# (mistral-src moe_one_file_ref: if self._cache_k is None: self._cache_k =
# torch.empty(...)), then written by scatter_ and read. PyTorch (and
# TorchDynamo: an attribute mutation it replays): the first call creates the
# tensor, later calls reuse it. tngc runs the `if` body once as host code
# and keeps the cache as state that starts at zeros (`state zeros`: the
# weights file may leave it out); before, TNG211 "assigning a tensor to the
# module attribute '_cache_k' inside the compiled method".
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self._cache_k = None

    def forward(self, x):
        if self._cache_k is None:
            self._cache_k = torch.empty(2, 16, 8, dtype=x.dtype)
        pos = torch.arange(x.shape[1])[None, :, None].repeat(x.shape[0], 1, x.shape[2])
        self._cache_k[:x.shape[0]].scatter_(dim=1, index=pos, src=x)
        return self._cache_k[:x.shape[0], :x.shape[1]] * 2

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
