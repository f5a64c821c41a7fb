# Tensor attributes a compiled method creates on its first call, as
# published model files do (`if self._cache is None: self._cache =
# torch.empty(...)` in forward; a table computed in a property the first
# time it is read), and `.device` compared across tensors
# (`t.device != self.device`, where `self.device` is
# `next(self.parameters()).device`). The cache is state that starts at
# zeros (torch.empty's contents are unspecified; the weights file does not
# hold it: PyTorch's state_dict has no such key); the table is a constant.
# Two calls, at two gears of the sequence length: the second call finds
# both attributes and reads the keys the first wrote at positions 0..3.
# (tests/conform/run.sh)
# tolerance: matmul
import torch
import torch_npu
import torchair
from torch import nn
from typing import Optional

B, S, H = 2, 8, 16


class LazyAttn(nn.Module):
    def __init__(self):
        super().__init__()
        self.wk = nn.Linear(H, H, bias=False)
        self.wq = nn.Linear(H, H, bias=False)
        self._cache: Optional[torch.Tensor] = None
        self._table: Optional[torch.Tensor] = None

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    @property
    def table(self) -> torch.Tensor:
        if self._table is None:
            self._table = torch.cos(torch.arange(S, dtype=torch.float32)[:, None] / (1.0 + torch.arange(H)))
        if self._table.device != self.device:
            self._table = self._table.to(self.device)
        return self._table

    def get_cache(self, x):
        dtype, device = x.dtype, x.device
        if self._cache is None:
            self._cache = torch.empty((B, S, H), dtype=dtype, device=device)
        return self._cache

    def forward(self, x, start: int):
        n = x.shape[1]
        cache = self.get_cache(x)
        pos = torch.arange(start, start + n)
        k = self.wk(x) * self.table[pos]
        cache[:, start:start + n] = k
        keys = cache[:, :start + n]
        q = self.wq(x)
        return torch.softmax(q @ keys.transpose(1, 2), dim=-1) @ keys


model = LazyAttn().eval()
step = torch.compile(model, backend=torchair.get_npu_backend(compiler_config=torchair.CompilerConfig()),
                     dynamic=False, fullgraph=True)
with torch.no_grad():
    a = step(torch.randn(B, 4, H), 0)
    b = step(torch.randn(B, 2, H), 4)
print(tuple(a.shape), tuple(b.shape))
