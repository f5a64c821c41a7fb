# The prefill step of examples/decoder/model.py: the same layers and weights
# (the same state_dict names), run on a prompt of PROMPT tokens at once
# instead of one token.  Each layer writes cache rows 0..PROMPT-1 in place;
# a causal mask [1, 1, PROMPT, MAX_SEQ] keeps every token from seeing later
# ones.  One static shape (batch 1): bench/decoder/bench.py times it against
# PyTorch.
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn

VOCAB = 128
HIDDEN = 64
N_HEADS = 4
HEAD_DIM = HIDDEN // N_HEADS
FFN = 128
N_LAYERS = 2
MAX_SEQ = 16
EPS = 1e-6
PROMPT = 8
BATCH = 1


class RMSNorm(nn.Module):
    def __init__(self, hidden, eps=EPS):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x):
        return torch_npu.npu_rms_norm(x, self.weight, epsilon=self.eps)[0]


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = HEAD_DIM ** -0.5
        self.q_proj = nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.k_proj = nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.v_proj = nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.o_proj = nn.Linear(HIDDEN, HIDDEN, bias=False)

    def forward(self, x, k_cache, v_cache, attn_mask):
        # x: [B, PROMPT, HIDDEN]
        bsz = x.shape[0]
        q = self.q_proj(x)
        k_cache[:, 0:PROMPT] = self.k_proj(x)
        v_cache[:, 0:PROMPT] = self.v_proj(x)
        q = q.view(bsz, PROMPT, N_HEADS, HEAD_DIM).transpose(1, 2)
        keys = k_cache.view(bsz, MAX_SEQ, N_HEADS, HEAD_DIM).transpose(1, 2)
        values = v_cache.view(bsz, MAX_SEQ, N_HEADS, HEAD_DIM).transpose(1, 2)
        with torchair.scope.super_kernel("prefill_sk", "stream-fusion=1"):
            scores = torch.matmul(q, keys.transpose(2, 3)) * self.scale
            probs = torch.softmax(scores + attn_mask, dim=-1)
            ctx = torch.matmul(probs, values)
        ctx = ctx.transpose(1, 2).contiguous().view(bsz, PROMPT, HIDDEN)
        return self.o_proj(ctx)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate_proj = nn.Linear(HIDDEN, FFN, bias=False)
        self.up_proj = nn.Linear(HIDDEN, FFN, bias=False)
        self.down_proj = nn.Linear(FFN, HIDDEN, bias=False)

    def forward(self, x):
        gate = F.silu(self.gate_proj(x))
        with torchair.scope.npu_stream_switch("1"):
            up = self.up_proj(x)
        torchair.scope.npu_wait_tensor(gate, up)
        return self.down_proj(gate * up)


class DecoderLayer(nn.Module):
    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.attn_norm = RMSNorm(HIDDEN)
        self.attn = Attention()
        self.mlp_norm = RMSNorm(HIDDEN)
        self.mlp = MLP()

    def forward(self, x, k_cache, v_cache, attn_mask):
        x = x + self.attn(self.attn_norm(x), k_cache, v_cache, attn_mask)
        return x + self.mlp(self.mlp_norm(x))


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB, HIDDEN)
        self.layers = nn.ModuleList([DecoderLayer(i) for i in range(N_LAYERS)])
        self.norm = RMSNorm(HIDDEN)
        self.lm_head = nn.Linear(HIDDEN, VOCAB, bias=False)

    def forward(self, tokens, attn_mask, k_caches, v_caches):
        h = self.embed_tokens(tokens)
        for layer in self.layers:
            h = layer(h, k_caches[layer.layer_idx], v_caches[layer.layer_idx], attn_mask)
        return self.lm_head(self.norm(h))


def causal_mask():
    """[1, 1, PROMPT, MAX_SEQ]: 0 where token i may see cache row j (j <= i),
    -1e4 elsewhere."""
    mask = torch.full((1, 1, PROMPT, MAX_SEQ), -1e4)
    for i in range(PROMPT):
        mask[0, 0, i, 0:i + 1] = 0.0
    return mask


if __name__ == "__main__":
    torch.manual_seed(0)
    config = torchair.CompilerConfig()
    model = Decoder().npu()
    model = torch.compile(model, fullgraph=True, backend=torchair.get_npu_backend(compiler_config=config))
    tokens = torch.randint(0, VOCAB, (BATCH, PROMPT)).npu()
    attn_mask = causal_mask().npu()
    k_caches = [torch.zeros(BATCH, MAX_SEQ, HIDDEN).npu() for _ in range(N_LAYERS)]
    v_caches = [torch.zeros(BATCH, MAX_SEQ, HIDDEN).npu() for _ in range(N_LAYERS)]
    with torch.no_grad():
        logits = model(tokens, attn_mask, k_caches, v_caches)
    print("prefill logits:", tuple(logits.shape))
