# A 3-layer encoder for bench/encoder (BENCHMARKS.md's first model): per layer a
# hand-written RMSNorm (x * rsqrt(mean(x ** 2) + eps) * w), bidirectional
# multi-head attention (fused QKV projection, 4 heads of 16), a residual,
# another RMSNorm and a SiLU-gated MLP (64 -> 128 -> 64), then a final
# RMSNorm.  d = 64, batch 2 x 10 tokens, float32, static shapes.
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn

BATCH = 2
TOKENS = 10
HIDDEN = 64
N_HEADS = 4
HEAD_DIM = HIDDEN // N_HEADS
FFN = 128
N_LAYERS = 3
EPS = 1e-6


class RMSNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(HIDDEN))

    def forward(self, x):
        return x * torch.rsqrt((x ** 2).mean(-1, keepdim=True) + EPS) * self.weight


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn_norm = RMSNorm()
        self.qkv = nn.Linear(HIDDEN, 3 * HIDDEN, bias=False)
        self.out = nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.mlp_norm = RMSNorm()
        self.gate = nn.Linear(HIDDEN, FFN, bias=False)
        self.up = nn.Linear(HIDDEN, FFN, bias=False)
        self.down = nn.Linear(FFN, HIDDEN, bias=False)

    def forward(self, x):
        h = self.qkv(self.attn_norm(x))
        q, k, v = h.split(HIDDEN, dim=-1)
        q = q.view(BATCH, TOKENS, N_HEADS, HEAD_DIM).transpose(1, 2)
        k = k.view(BATCH, TOKENS, N_HEADS, HEAD_DIM).transpose(1, 2)
        v = v.view(BATCH, TOKENS, N_HEADS, HEAD_DIM).transpose(1, 2)
        att = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * (HEAD_DIM ** -0.5), dim=-1)
        ctx = torch.matmul(att, v).transpose(1, 2).reshape(BATCH, TOKENS, HIDDEN)
        x = x + self.out(ctx)
        h = self.mlp_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer() for _ in range(N_LAYERS)])
        self.norm = RMSNorm()

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = torch.compile(Encoder().npu(), backend=torchair.get_npu_backend(), fullgraph=True)
    with torch.no_grad():
        y = model(torch.randn(BATCH, TOKENS, HIDDEN).npu())
    print("encoder:", tuple(y.shape))

# tolerance: matmul
