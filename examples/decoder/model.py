# A small LLaMA-style decoder, one decode step, with every TorchAir
# annotation tngc plans: dynamic gears on the batch dim,
# mark_static, a super kernel scope and two streams
# with an explicit wait.
#
# Per layer: RMSNorm (torch_npu.npu_rms_norm), attention with a KV cache
# updated in place at a fixed decode position, RMSNorm, and a SiLU-gated MLP
# whose gate and up projections run on two streams.  Then a final RMSNorm
# and the lm_head.
#
# Shapes (B is the batch, geared 1/2/4/8):
#   tokens     int64   [B, 1]             this step's token ids
#   attn_mask  float32 [1, 1, 1, MAX_SEQ] 0 where a cache row is valid, -1e4
#                                         after the decode position (static)
#   k_caches   N_LAYERS x float32 [B, MAX_SEQ, HIDDEN]  updated in place
#   v_caches   N_LAYERS x float32 [B, MAX_SEQ, HIDDEN]  updated in place
#   result     float32 [B, 1, VOCAB]      logits of the next token
#
# The decode position is a Python int fixed when the model is built: the
# cache rows it writes are known at compile time.
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
DECODE_POS = 5     # cache rows 0..4 hold the earlier tokens; this step writes row 5
BATCH = 2          # the example batch; one of the gears below
BATCH_GEARS = [1, 2, 4, 8]  # tngc: ignore[TNG125] (batch 1 is a real decode shape)


class RMSNorm(nn.Module):
    def __init__(self, hidden, eps=EPS):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x):
        # npu_rms_norm returns (y, rstd); the model needs y only.
        return torch_npu.npu_rms_norm(x, self.weight, epsilon=self.eps)[0]


class Attention(nn.Module):
    def __init__(self, pos):
        super().__init__()
        self.pos = pos
        self.scale = HEAD_DIM ** -0.5
        self.q_proj = nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.k_proj = nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.v_proj = nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.o_proj = nn.Linear(HIDDEN, HIDDEN, bias=False)

    def forward(self, x, k_cache, v_cache, attn_mask):
        # x: [B, 1, HIDDEN]
        bsz = x.shape[0]
        pos = self.pos
        q = self.q_proj(x)
        # Write this token's key and value into the caches, in place.
        k_cache[:, pos:pos + 1] = self.k_proj(x)
        v_cache[:, pos:pos + 1] = self.v_proj(x)
        # [B, 1, HIDDEN] -> [B, N_HEADS, 1, HEAD_DIM]
        q = q.view(bsz, 1, N_HEADS, HEAD_DIM).transpose(1, 2)
        # [B, MAX_SEQ, HIDDEN] -> [B, N_HEADS, MAX_SEQ, HEAD_DIM]
        keys = k_cache.view(bsz, MAX_SEQ, N_HEADS, HEAD_DIM).transpose(1, 2)
        values = v_cache.view(bsz, MAX_SEQ, N_HEADS, HEAD_DIM).transpose(1, 2)
        # Scores, mask, softmax and the weighted sum: one super kernel
        # (static per gear; stream-fusion=1 lets it span streams).
        with torchair.scope.super_kernel("decoder_sk", "stream-fusion=1"):
            scores = torch.matmul(q, keys.transpose(2, 3)) * self.scale
            probs = torch.softmax(scores + attn_mask, dim=-1)
            ctx = torch.matmul(probs, values)
        # [B, N_HEADS, 1, HEAD_DIM] -> [B, 1, HIDDEN]
        ctx = ctx.transpose(1, 2).contiguous().view(bsz, 1, HIDDEN)
        return self.o_proj(ctx)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate_proj = nn.Linear(HIDDEN, FFN, bias=False)
        self.up_proj = nn.Linear(HIDDEN, FFN, bias=False)
        self.down_proj = nn.Linear(FFN, HIDDEN, bias=False)

    def forward(self, x):
        # The gate projection runs on the default stream while the up
        # projection runs on stream "1".
        gate = F.silu(self.gate_proj(x))
        with torchair.scope.npu_stream_switch("1"):
            up = self.up_proj(x)
        # Back on the default stream: the product waits for up.
        torchair.scope.npu_wait_tensor(gate, up)
        return self.down_proj(gate * up)


class DecoderLayer(nn.Module):
    def __init__(self, layer_idx, pos):
        super().__init__()
        self.layer_idx = layer_idx
        self.attn_norm = RMSNorm(HIDDEN)
        self.attn = Attention(pos)
        self.mlp_norm = RMSNorm(HIDDEN)
        self.mlp = MLP()

    def forward(self, x, k_cache, v_cache, attn_mask):
        x = x + self.attn(self.attn_norm(x), k_cache, v_cache, attn_mask)
        return x + self.mlp(self.mlp_norm(x))


class Decoder(nn.Module):
    def __init__(self, pos=DECODE_POS):
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB, HIDDEN)
        self.layers = nn.ModuleList([DecoderLayer(i, pos) for i in range(N_LAYERS)])
        self.norm = RMSNorm(HIDDEN)
        self.lm_head = nn.Linear(HIDDEN, VOCAB, bias=False)

    def forward(self, tokens, attn_mask, k_caches, v_caches):
        h = self.embed_tokens(tokens)
        for layer in self.layers:
            h = layer(h, k_caches[layer.layer_idx], v_caches[layer.layer_idx], attn_mask)
        return self.lm_head(self.norm(h))


if __name__ == "__main__":
    torch.manual_seed(0)
    config = torchair.CompilerConfig()
    npu_backend = torchair.get_npu_backend(compiler_config=config)
    model = Decoder().npu()
    # Dynamic batch with gears: a full graph compiled once, static per gear.
    model = torch.compile(model, dynamic=True, fullgraph=True, backend=npu_backend)

    # Step 1: batch 2.  The caches hold random keys and values for the
    # earlier rows; rows after DECODE_POS are masked out.
    tokens = torch.randint(0, VOCAB, (BATCH, 1)).npu()
    attn_mask = torch.cat((torch.zeros(1, 1, 1, DECODE_POS + 1),
                           torch.full((1, 1, 1, MAX_SEQ - DECODE_POS - 1), -1e4)), dim=-1).npu()
    k_caches = [torch.randn(BATCH, MAX_SEQ, HIDDEN).npu() for _ in range(N_LAYERS)]
    v_caches = [torch.randn(BATCH, MAX_SEQ, HIDDEN).npu() for _ in range(N_LAYERS)]
    # The batch dim of the tokens and of every cache takes the same gears
    # (zip policy, the default: the lists have equal lengths).
    torchair.inference.set_dim_gears(tokens, dim_gears={0: BATCH_GEARS})
    for cache in k_caches + v_caches:
        torchair.inference.set_dim_gears(cache, dim_gears={0: BATCH_GEARS})
    # The mask has no batch dim: it never changes shape.
    torch._dynamo.mark_static(attn_mask)
    with torch.no_grad():
        logits = model(tokens, attn_mask, k_caches, v_caches)
    print("batch 2 logits:", tuple(logits.shape))
    print("batch 2 first logits:", logits[0, 0, :4])

    # Step 2: batch 4 is another gear: no recompilation.
    tokens = torch.randint(0, VOCAB, (4, 1)).npu()
    k_caches = [torch.randn(4, MAX_SEQ, HIDDEN).npu() for _ in range(N_LAYERS)]
    v_caches = [torch.randn(4, MAX_SEQ, HIDDEN).npu() for _ in range(N_LAYERS)]
    with torch.no_grad():
        logits = model(tokens, attn_mask, k_caches, v_caches)
    print("batch 4 logits:", tuple(logits.shape))
    print("batch 4 first logits:", logits[0, 0, :4])

# Conformance (tests/e2e/compare.py): the outputs come from float matmuls, so
# they are compared at the matmul tolerances.
# tolerance: matmul
