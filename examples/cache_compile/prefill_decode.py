# Compile cache for a model whose forward takes different
# paths in the prefill and decode phases: one cache-compiled method per phase.
#
# TorchAir's documentation shows this pattern with `...` for the arguments and bodies; here
# it is one small attention layer with a KV cache (key_cache, value_cache),
# each (BATCH, MAX_SEQ, HIDDEN).  prefill attends within the prompt and
# writes the prompt's keys and values into the cache; decode appends one
# token's key and value to the cache (dropping the oldest row) and attends
# over the cache.  forward picks the phase from x.size(1).
import torch, torch_npu, torchair
from torch import nn

BATCH = 2
PREFILL_LEN = 8
MAX_SEQ = 16
HIDDEN = 32


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = HIDDEN ** -0.5
        self.norm = nn.LayerNorm(HIDDEN)
        self.q_proj = nn.Linear(HIDDEN, HIDDEN)
        self.k_proj = nn.Linear(HIDDEN, HIDDEN)
        self.v_proj = nn.Linear(HIDDEN, HIDDEN)
        self.o_proj = nn.Linear(HIDDEN, HIDDEN)
        config = torchair.CompilerConfig()
        self.cached_prefill = torchair.inference.cache_compile(self.prefill, config=config)
        self.cached_decode = torchair.inference.cache_compile(self.decode, config=config)

    def forward(self, x, kv_cache):
        if x.size(1) > 1:
            return self.cached_prefill(x, kv_cache)
        return self.cached_decode(x, kv_cache)

    def prefill(self, x, kv_cache):
        # x: (BATCH, PREFILL_LEN, HIDDEN), the prompt.
        key_cache, value_cache = kv_cache
        h = self.norm(x)
        q = self.q_proj(h)
        k = self.k_proj(h)
        v = self.v_proj(h)
        key_cache.copy_(torch.cat((key_cache[:, PREFILL_LEN:], k), dim=1))
        value_cache.copy_(torch.cat((value_cache[:, PREFILL_LEN:], v), dim=1))
        w = torch.softmax(torch.matmul(q, k.transpose(1, 2)) * self.scale, dim=-1)
        return x + self.o_proj(torch.matmul(w, v))

    def decode(self, x, kv_cache):
        # x: (BATCH, 1, HIDDEN), one new token.
        key_cache, value_cache = kv_cache
        h = self.norm(x)
        q = self.q_proj(h)
        key = torch.cat((key_cache[:, 1:], self.k_proj(h)), dim=1)
        value = torch.cat((value_cache[:, 1:], self.v_proj(h)), dim=1)
        key_cache.copy_(key)
        value_cache.copy_(value)
        w = torch.softmax(torch.matmul(q, key.transpose(1, 2)) * self.scale, dim=-1)
        return x + self.o_proj(torch.matmul(w, value))


if __name__ == "__main__":
    model = Model().npu()
    key_cache = torch.zeros(BATCH, MAX_SEQ, HIDDEN).npu()
    value_cache = torch.zeros(BATCH, MAX_SEQ, HIDDEN).npu()
    kv_cache = (key_cache, value_cache)
    with torch.no_grad():
        prompt = torch.randn(BATCH, PREFILL_LEN, HIDDEN).npu()
        print(model(prompt, kv_cache).shape)    # prefill
        token = torch.randn(BATCH, 1, HIDDEN).npu()
        print(model(token, kv_cache).shape)     # decode
        token = torch.randn(BATCH, 1, HIDDEN).npu()
        print(model(token, kv_cache).shape)     # decode, cached graph

# Conformance (tests/e2e/compare.py): the outputs come from float matmuls, so
# they are compared at the matmul tolerances.
# tolerance: matmul
