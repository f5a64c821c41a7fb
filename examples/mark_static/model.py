# torch._dynamo.mark_static: with dynamic=True, mark every
# input of the compiled decode step as static so that the graph is static.
#
# TorchAir's documentation shows only the outline of a Whisper-style decoder (`...` bodies).
# This file fills it in with a tiny decoder built from plain ops: token +
# positional embedding, then per layer a self-attention over a rolling KV
# cache, a cross-attention over the encoder output xa, and an MLP.  The KV
# cache is a dict {layer: {"attn"|"cross_attn": {"key"|"value": tensor}}}
# as in that outline.  compute_logits marks the inputs static and calls the
# compiled decode.
from typing import Optional

import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import Tensor, nn

N_VOCAB = 64
N_CTX = 16        # tokens kept in the self-attention cache
N_AUDIO_CTX = 8   # encoder frames (length of xa)
N_STATE = 32
N_LAYER = 2
BATCH = 2


class ResidualAttentionBlock(nn.Module):
    def __init__(self, n_state: int):
        super().__init__()
        self.scale = n_state ** -0.5
        self.attn_ln = nn.LayerNorm(n_state)
        self.query = nn.Linear(n_state, n_state)
        self.key = nn.Linear(n_state, n_state, bias=False)
        self.value = nn.Linear(n_state, n_state)
        self.out = nn.Linear(n_state, n_state)
        self.cross_attn_ln = nn.LayerNorm(n_state)
        self.cross_query = nn.Linear(n_state, n_state)
        self.cross_key = nn.Linear(n_state, n_state, bias=False)
        self.cross_value = nn.Linear(n_state, n_state)
        self.cross_out = nn.Linear(n_state, n_state)
        self.mlp_ln = nn.LayerNorm(n_state)
        self.mlp_in = nn.Linear(n_state, 4 * n_state)
        self.mlp_out = nn.Linear(4 * n_state, n_state)

    def forward(self, x: Tensor, xa: Tensor, layer_cache: dict):
        # Self-attention.  The cache holds the keys and values of the last
        # N_CTX tokens: drop the oldest row, append this token's, write back.
        h = self.attn_ln(x)
        q = self.query(h)
        key = torch.cat((layer_cache["attn"]["key"][:, 1:], self.key(h)), dim=1)
        value = torch.cat((layer_cache["attn"]["value"][:, 1:], self.value(h)), dim=1)
        layer_cache["attn"]["key"].copy_(key)
        layer_cache["attn"]["value"].copy_(value)
        w = torch.softmax(torch.matmul(q, key.transpose(1, 2)) * self.scale, dim=-1)
        x = x + self.out(torch.matmul(w, value))

        # Cross-attention over the encoder output.  Its keys and values are
        # stored in the cache; this small example recomputes them from xa at
        # every step (a real decoder does that on the first step only).
        h = self.cross_attn_ln(x)
        q = self.cross_query(h)
        layer_cache["cross_attn"]["key"].copy_(self.cross_key(xa))
        layer_cache["cross_attn"]["value"].copy_(self.cross_value(xa))
        w = torch.softmax(torch.matmul(q, layer_cache["cross_attn"]["key"].transpose(1, 2)) * self.scale, dim=-1)
        x = x + self.cross_out(torch.matmul(w, layer_cache["cross_attn"]["value"]))

        x = x + self.mlp_out(F.gelu(self.mlp_in(self.mlp_ln(x))))
        return x


class Decoder(nn.Module):
    def __init__(self, n_vocab: int = N_VOCAB, n_ctx: int = N_CTX,
                 n_state: int = N_STATE, n_layer: int = N_LAYER):
        super().__init__()
        self.n_ctx = n_ctx
        self.n_state = n_state
        self.n_layer = n_layer
        self.token_embedding = nn.Embedding(n_vocab, n_state)
        self.positional_embedding = nn.Parameter(torch.randn(n_ctx, n_state) * 0.02)
        self.blocks = nn.ModuleList([ResidualAttentionBlock(n_state) for _ in range(n_layer)])
        self.ln = nn.LayerNorm(n_state)
        self.kv_cache = None
        self.step = 0

    def init_kv_cache(self, batch: int, n_audio_ctx: int):
        self.kv_cache = {}
        for i in range(self.n_layer):
            self.kv_cache[i] = {
                "attn": {
                    "key": torch.zeros(batch, self.n_ctx, self.n_state).npu(),
                    "value": torch.zeros(batch, self.n_ctx, self.n_state).npu(),
                },
                "cross_attn": {
                    "key": torch.zeros(batch, n_audio_ctx, self.n_state).npu(),
                    "value": torch.zeros(batch, n_audio_ctx, self.n_state).npu(),
                },
            }

    def decode(
        self,
        x: Tensor,
        xa: Tensor,
        positional_embedding: Tensor,
        kv_cache: Optional[dict] = None,
        updated_kv_positions: Optional[torch.LongTensor] = None,
        actual_seq_len: Optional[list] = None,
        kv_padding_size: Optional[torch.LongTensor] = None
    ):
        # x: (batch, 1) token ids of this step; xa: (batch, N_AUDIO_CTX, N_STATE).
        # updated_kv_positions, actual_seq_len and kv_padding_size describe the
        # cache for the NPU's fused attention kernels; this small decoder
        # attends over the whole rolling cache and does not use them.
        if kv_cache is None:
            kv_cache = self.kv_cache
        h = self.token_embedding(x) + positional_embedding
        for i in range(self.n_layer):
            h = self.blocks[i](h, xa, kv_cache[i])
        h = self.ln(h)
        return F.linear(h, self.token_embedding.weight)

    def compute_logits(self, x, xa):
        # The position of this token, and the state of the rolling cache:
        # the new key/value always lands in its last row.
        pos = min(self.step, self.n_ctx - 1)
        self.step = self.step + 1
        positional_embedding = self.positional_embedding[pos:pos + 1]
        actual_seq_len = pos + 1
        updated_kv_positions = torch.ones(x.shape[0], dtype=torch.int64).npu() * (self.n_ctx - 1)
        kv_padding_size = torch.ones(x.shape[0], dtype=torch.int64).npu() * (self.n_ctx - actual_seq_len)
        n_layer = self.n_layer

        torch._dynamo.mark_static(x)
        torch._dynamo.mark_static(xa)
        torch._dynamo.mark_static(positional_embedding)
        for i in range(n_layer):
            torch._dynamo.mark_static(self.kv_cache[i]['attn']["key"])
            torch._dynamo.mark_static(self.kv_cache[i]['attn']["value"])
            torch._dynamo.mark_static(self.kv_cache[i]['cross_attn']["key"])
            torch._dynamo.mark_static(self.kv_cache[i]['cross_attn']["value"])
        torch._dynamo.mark_static(kv_padding_size)
        return self.decode(x, xa, positional_embedding, self.kv_cache,
                           actual_seq_len=[actual_seq_len], kv_padding_size=kv_padding_size,
                           updated_kv_positions=updated_kv_positions)


if __name__ == "__main__":
    config = torchair.CompilerConfig()
    npu_backend = torchair.get_npu_backend(compiler_config=config)
    decoder = Decoder().npu()
    decoder.init_kv_cache(BATCH, N_AUDIO_CTX)
    decoder.decode = torch.compile(decoder.decode, dynamic=True, fullgraph=True, backend=npu_backend)

    xa = torch.randn(BATCH, N_AUDIO_CTX, N_STATE).npu()
    with torch.no_grad():
        # Two decoding steps: same shapes, so the static graph is reused.
        tokens = torch.randint(0, N_VOCAB, (BATCH, 1)).npu()
        logits = decoder.compute_logits(tokens, xa)
        print(logits.shape)
        tokens = torch.randint(0, N_VOCAB, (BATCH, 1)).npu()
        logits = decoder.compute_logits(tokens, xa)
        print(logits.shape)

# Conformance (tests/e2e/compare.py): the outputs come from float matmuls, so
# they are compared at the matmul tolerances.
# tolerance: matmul
