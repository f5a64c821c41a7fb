# Writes that earlier releases refused (TNG211) because views did not see
# them, now lowered as PyTorch defines them and checked against it: a slice
# assignment into a clone (the source unchanged) and into an op's result,
# a view returned after a write through its base, `+=` on a flat view of an
# input, views of a scatter_ mask and of a product read after writes into
# their bases, a transposed view of a KV cache read by a matmul after the
# cache is written, a slice assignment into a 4-d view of an input, a
# column multiplied in place through an index (the smallest form of the
# bug), Tensor.data, assignments slicing two dims, with None, and
# through a transposed view; views taken in __init__ before writes into
# their base; augmented assignments that keep the written
# tensor's dtype. Static shapes. (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn


class Forms(nn.Module):
    def forward(self, k, past_k, x, y, cache, flat_in, idx):
        new_k = past_k.clone()
        new_k[:, 3:4] = k
        h = torch.relu(x)
        h[:, 0:4] = y
        v = cache[:, 2:4]
        cache[:, 2:3] = k[:, :, :6]
        flat = flat_in.view(-1)
        flat += x.reshape(-1)[:16]
        mask = torch.zeros_like(x)
        mflat = mask.view(-1)
        mask.scatter_(1, idx, 1.0)
        g = x * 2.0
        rows = g[0:2]
        g += 1.0
        X = x.clone()
        X[:, 0].mul_(10.0)
        d = X.data
        d[1] = -1.0
        Z = x.clone()
        Z[1:3, 4:8] = y[:2]          # two sliced dims
        Z[None, 0, ::3] = 2.0        # None, an int, a step
        Z[:, 10:].t()[1] = y[:, 0]   # through a transposed view
        Z[0] = x[1][None, None]      # leading size-1 dims of the value dropped
        return (new_k, past_k.sum(1), h, v * 1.0, flat_in * 2, mflat * 1.0, rows * 1.0, X, Z)


class KV(nn.Module):
    def forward(self, q, k, k_cache, cache4):
        keys = k_cache.transpose(1, 2)        # [B, D, S] view of the cache
        k_cache[:, 3:4] = k                   # this step's key, seen by keys
        kv = cache4.view(2, 8, 2, 4)
        kv[:, 3:4] = k.view(2, 1, 2, 4)
        k_cache[:, 5:6, 2:6] = k[:, :, :4]    # one head's columns at one position
        return torch.matmul(q, keys), cache4.sum(1)


class Promote(nn.Module):
    # augmented assignment keeps the written tensor's dtype (the result is
    # cast into it, as PyTorch's in-place ops do)
    def forward(self, h, i, x):
        h += x          # float16 += float32: stays float16
        i += i.long()   # int32 += int64: stays int32
        y = x.clone()
        y[:, 0] += 5.0
        g = h * 1.0     # an op's result: float16 too
        g += x
        return h, i, y, g


class HostViews(nn.Module):
    # views taken in __init__ before writes into their base, read by the
    # compiled method (constants the bundle computes)
    def __init__(self):
        super().__init__()
        pe = torch.zeros(6, 8)
        self.even = pe[:, 0::2]
        pe[:, 0::2] = torch.arange(24.0).reshape(6, 4)
        pe[:, 1::2] = 1.0
        self.register_buffer("pe", pe, persistent=False)

    def forward(self, x):
        return x + self.even.sum() + self.pe


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
m1 = torch.compile(Forms().npu(), backend=backend, dynamic=False, fullgraph=True)
m2 = torch.compile(KV().npu(), backend=backend, dynamic=False, fullgraph=True)
m3 = torch.compile(HostViews().npu(), backend=backend, dynamic=False, fullgraph=True)
m4 = torch.compile(Promote().npu(), backend=backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    m1(torch.randn(4, 1, 8).npu(), torch.randn(4, 8, 8).npu(), torch.randn(4, 16).npu(),
       torch.randn(4, 4).npu(), torch.randn(4, 8, 6).npu(), torch.randn(2, 8).npu(),
       torch.randint(0, 16, (4, 2)).npu())
    m2(torch.randn(2, 1, 8).npu(), torch.randn(2, 1, 8).npu(), torch.randn(2, 8, 8).npu(),
       torch.randn(2, 8, 8).npu())
    m3(torch.randn(6, 8).npu())
    m4(torch.randn(3, 4).half().npu(), torch.randint(-5, 5, (3, 4), dtype=torch.int32).npu(),
       torch.randn(3, 4).npu())
