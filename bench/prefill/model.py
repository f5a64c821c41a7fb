# A LLaMA-style prefill for bench/prefill: one prompt of PROMPT tokens
# through N_LAYERS decoder layers, written the way LLaMA ports for TorchAir
# write them: a hand-written RMSNorm, RoPE (rotate_half over the two halves
# of each head, cos and sin computed from the positions in the graph),
# grouped-query attention (N_KV_HEADS key/value heads repeated to N_HEADS)
# as matmul, causal mask, softmax, matmul, and a SwiGLU MLP.  The K/V
# projections run on a second stream beside the Q projection.  Returns the
# logits of every token.  bench/prefill/bench.py sets PROMPT per bundle.
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn

VOCAB = 1024
HIDDEN = 512
N_HEADS = 8
N_KV_HEADS = 2
HEAD_DIM = HIDDEN // N_HEADS
FFN = 1408
N_LAYERS = 2
PROMPT = 32
EPS = 1e-6
THETA = 10000.0


class RMSNorm(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))

    def forward(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(variance + EPS))


def rotate_half(x):
    x1 = x[..., : HEAD_DIM // 2]
    x2 = x[..., HEAD_DIM // 2:]
    return torch.cat((-x2, x1), dim=-1)


def repeat_kv(x):
    """[1, N_KV_HEADS, S, HEAD_DIM] -> [1, N_HEADS, S, HEAD_DIM]"""
    rep = N_HEADS // N_KV_HEADS
    x = x[:, :, None, :, :].expand(1, N_KV_HEADS, rep, PROMPT, HEAD_DIM)
    return x.reshape(1, N_HEADS, PROMPT, HEAD_DIM)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.scaling = HEAD_DIM ** -0.5
        self.q_proj = nn.Linear(HIDDEN, N_HEADS * HEAD_DIM, bias=False)
        self.k_proj = nn.Linear(HIDDEN, N_KV_HEADS * HEAD_DIM, bias=False)
        self.v_proj = nn.Linear(HIDDEN, N_KV_HEADS * HEAD_DIM, bias=False)
        self.o_proj = nn.Linear(N_HEADS * HEAD_DIM, HIDDEN, bias=False)

    def forward(self, x, cos, sin, mask):
        q = self.q_proj(x)
        with torchair.scope.npu_stream_switch("kv"):
            k = self.k_proj(x)
            v = self.v_proj(x)
        q = torchair.scope.npu_wait_tensor(q, k)
        q = q.view(1, PROMPT, N_HEADS, HEAD_DIM).transpose(1, 2)
        k = k.view(1, PROMPT, N_KV_HEADS, HEAD_DIM).transpose(1, 2)
        v = v.view(1, PROMPT, N_KV_HEADS, HEAD_DIM).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = repeat_kv(k)
        v = repeat_kv(v)
        scores = torch.matmul(q, k.transpose(2, 3)) * self.scaling
        probs = F.softmax(scores + mask, dim=-1)
        ctx = torch.matmul(probs, v)
        ctx = ctx.transpose(1, 2).reshape(1, PROMPT, HIDDEN)
        return self.o_proj(ctx)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate_proj = nn.Linear(HIDDEN, FFN, bias=False)
        self.up_proj = nn.Linear(HIDDEN, FFN, bias=False)
        self.down_proj = nn.Linear(FFN, HIDDEN, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn_norm = RMSNorm(HIDDEN)
        self.attn = Attention()
        self.mlp_norm = RMSNorm(HIDDEN)
        self.mlp = MLP()

    def forward(self, x, cos, sin, mask):
        x = x + self.attn(self.attn_norm(x), cos, sin, mask)
        return x + self.mlp(self.mlp_norm(x))


class Prefill(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB, HIDDEN)
        self.layers = nn.ModuleList([Layer() for _ in range(N_LAYERS)])
        self.norm = RMSNorm(HIDDEN)
        self.lm_head = nn.Linear(HIDDEN, VOCAB, bias=False)

    def forward(self, tokens):
        # tokens [1, PROMPT] int64 -> logits [1, PROMPT, VOCAB]
        h = self.embed_tokens(tokens)
        inv_freq = 1.0 / (THETA ** (torch.arange(0, HEAD_DIM, 2).float() / HEAD_DIM))
        pos = torch.arange(PROMPT).float()
        freqs = pos[:, None] * inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = emb.cos()[None, None]
        sin = emb.sin()[None, None]
        mask = torch.full((PROMPT, PROMPT), float("-inf"))
        mask = torch.triu(mask, diagonal=1)[None, None]
        for layer in self.layers:
            h = layer(h, cos, sin, mask)
        return self.lm_head(self.norm(h))


if __name__ == "__main__":
    torch.manual_seed(0)
    model = torch.compile(Prefill().npu().eval(), backend=torchair.get_npu_backend(),
                          fullgraph=True)
    with torch.no_grad():
        logits = model(torch.randint(0, VOCAB, (1, PROMPT)).npu())
    print("prefill logits:", tuple(logits.shape))
