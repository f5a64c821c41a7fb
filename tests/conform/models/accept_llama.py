# tolerance: matmul
# Acceptance: a LLaMA-style decoder layer in the ordinary
# PyTorch idiom. Prefill: RoPE tables computed inside the model from
# torch.arange (inv_freq, outer, cat, cos/sin), rotate_half by slicing and
# cat, grouped-query attention by expand + reshape of K/V, a causal mask
# from torch.triu(torch.full(..., -inf), diagonal=1), softmax in float32,
# a SiLU-gated MLP, RMSNorm; the K/V cache (a static input) written with
# index_put_ at a position tensor. Decode: one token per sequence, each at
# its own position (an int64 input), the cache written at
# (arange(bsz), pos) of a [B, MAX_LEN, KV_HEADS, HEAD_DIM] cache, attention masked past each sequence's position.
# The sequence length takes 4 or 8 (prefill) and the batch 2 or 4 (decode);
# every gear is checked against PyTorch. (tests/conform/run.sh)
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

HIDDEN, HEADS, KV_HEADS, MAX_LEN = 64, 4, 2, 16
HEAD_DIM = HIDDEN // HEADS


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        var = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(var + self.eps) * self.weight


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def rope(positions, dim, base=10000.0):
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    freqs = torch.outer(positions.float(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def repeat_kv(x, n_rep):
    b, h, s, d = x.shape
    return x[:, :, None, :, :].expand(b, h, n_rep, s, d).reshape(b, h * n_rep, s, d)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj = nn.Linear(HIDDEN, HEADS * HEAD_DIM, bias=False)
        self.k_proj = nn.Linear(HIDDEN, KV_HEADS * HEAD_DIM, bias=False)
        self.v_proj = nn.Linear(HIDDEN, KV_HEADS * HEAD_DIM, bias=False)
        self.o_proj = nn.Linear(HEADS * HEAD_DIM, HIDDEN, bias=False)
        self.gate_proj = nn.Linear(HIDDEN, 96, bias=False)
        self.up_proj = nn.Linear(HIDDEN, 96, bias=False)
        self.down_proj = nn.Linear(96, HIDDEN, bias=False)
        self.input_norm = RMSNorm(HIDDEN)
        self.post_norm = RMSNorm(HIDDEN)

    def mlp(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))

    def attend(self, q, k, v, mask):
        k = repeat_kv(k, HEADS // KV_HEADS)
        v = repeat_kv(v, HEADS // KV_HEADS)
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(HEAD_DIM)
        scores = scores + mask
        probs = F.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
        return torch.matmul(probs, v)

    def forward(self, x, k_cache, v_cache):
        # prefill: x [1, S, HIDDEN]; caches [1, KV_HEADS, MAX_LEN, HEAD_DIM]
        bsz, q_len, _ = x.shape
        h = self.input_norm(x)
        q = self.q_proj(h).view(bsz, q_len, HEADS, HEAD_DIM).transpose(1, 2)
        k = self.k_proj(h).view(bsz, q_len, KV_HEADS, HEAD_DIM).transpose(1, 2)
        v = self.v_proj(h).view(bsz, q_len, KV_HEADS, HEAD_DIM).transpose(1, 2)
        positions = torch.arange(q_len)
        cos, sin = rope(positions, HEAD_DIM)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k_cache.index_put_((torch.zeros_like(positions), torch.arange(KV_HEADS)[:, None], positions), k[0])
        v_cache[:, :, positions] = v
        mask = torch.triu(torch.full((q_len, q_len), float("-inf")), diagonal=1)
        out = self.attend(q, k, v, mask)
        out = out.transpose(1, 2).reshape(bsz, q_len, -1)
        h = x + self.o_proj(out)
        return h + self.mlp(self.post_norm(h))

    def decode(self, x, pos, k_cache, v_cache):
        # decode: x [B, 1, HIDDEN]; pos [B] int64; caches [B, MAX_LEN, KV_HEADS, HEAD_DIM]
        bsz = x.shape[0]
        h = self.input_norm(x)
        q = self.q_proj(h).view(bsz, 1, HEADS, HEAD_DIM).transpose(1, 2)
        k = self.k_proj(h).view(bsz, 1, KV_HEADS, HEAD_DIM).transpose(1, 2)
        v = self.v_proj(h).view(bsz, 1, KV_HEADS, HEAD_DIM).transpose(1, 2)
        cos, sin = rope(pos, HEAD_DIM)
        cos = cos[:, None, None, :]
        sin = sin[:, None, None, :]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rows = torch.arange(bsz)
        k_cache[rows, pos] = k[:, :, 0]
        v_cache[rows, pos] = v[:, :, 0]
        past = torch.arange(MAX_LEN)[None, :] > pos[:, None]
        mask = torch.zeros(bsz, MAX_LEN).masked_fill(past, float("-inf"))[:, None, None, :]
        out = self.attend(q, k_cache.transpose(1, 2), v_cache.transpose(1, 2), mask)
        out = out.transpose(1, 2).reshape(bsz, 1, -1)
        h = x + self.o_proj(out)
        return h + self.mlp(self.post_norm(h))


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
layer = Layer().npu()
prefill = torch.compile(layer, backend=npu_backend, dynamic=True, fullgraph=True)
decode = torch.compile(layer.decode, backend=npu_backend, dynamic=True, fullgraph=True)

x = torch.randn(1, 8, HIDDEN).npu()
k_cache = torch.zeros(1, KV_HEADS, MAX_LEN, HEAD_DIM).npu()
v_cache = torch.zeros(1, KV_HEADS, MAX_LEN, HEAD_DIM).npu()
torch._dynamo.mark_static(k_cache)
torch._dynamo.mark_static(v_cache)
torchair.inference.set_dim_gears(x, dim_gears={1: [4, 8]})
with torch.no_grad():
    y = prefill(x, k_cache, v_cache)

xd = torch.randn(4, 1, HIDDEN).npu()
pos = torch.tensor([3, 0, 15, 7]).npu()
kd = torch.randn(4, MAX_LEN, KV_HEADS, HEAD_DIM).npu()
vd = torch.randn(4, MAX_LEN, KV_HEADS, HEAD_DIM).npu()
for t in (xd, pos, kd, vd):
    torchair.inference.set_dim_gears(t, dim_gears={0: [2, 4]})
with torch.no_grad():
    yd = decode(xd, pos, kd, vd)
print(tuple(y.shape), tuple(yd.shape))
