# A LLaMA-style causal language model made tensor-parallel the way serving
# code (Megatron-LM, vLLM) shards it over the ranks of torch.distributed:
#
#   embedding       vocab-parallel: each rank holds vocab/N rows; ids outside
#                   its range give zeros, then an all_reduce sums the ranks
#   q/k/v, gate/up  column-parallel: each rank computes heads/N heads and
#                   intermediate/N channels of the MLP
#   o_proj, down    row-parallel: each rank multiplies its slice of the
#                   input dim, an all_reduce sums the partial products
#   lm_head         column-parallel over the vocab, the logits gathered with
#                   all_gather_into_tensor in two halves of the positions:
#                   the first half's gather runs on the stream "comm"
#                   (npu_stream_switch) while the second half's logits are
#                   computed on the default stream, the way serving code
#                   overlaps communication with compute
#
# Each rank builds its own shard (sizes divided by the world size, the
# weights of its rank's slice), as a serving engine does; with one process
# (no process group) the model is the unsharded one, which is what
# reference.py runs in PyTorch.
from contextlib import nullcontext

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

try:
    import torchair
except ImportError:   # PyTorch alone (reference.py): one process, one stream
    torchair = None


def world():
    """(world size, rank) of the default process group; (1, 0) without one."""
    if dist.is_initialized():
        return dist.get_world_size(), dist.get_rank()
    return 1, 0


def comm_stream():
    """The stream collectives overlap compute on: torchair's "comm", or none."""
    return torchair.scope.npu_stream_switch("comm") if torchair is not None else nullcontext()


def all_reduce(x):
    """Sums x over the ranks (in place, returned), as row-parallel layers do."""
    if dist.is_initialized() and dist.get_world_size() > 1:
        dist.all_reduce(x, op=dist.ReduceOp.SUM)
    return x


class TPConfig:
    def __init__(self, vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                 num_attention_heads=4, rms_norm_eps=1e-6, rope_theta=10000.0):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.head_dim = hidden_size // num_attention_heads
        self.rms_norm_eps = rms_norm_eps
        self.rope_theta = rope_theta


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.eps = eps

    def forward(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(variance + self.eps))


class VocabParallelEmbedding(nn.Module):
    def __init__(self, vocab_size, hidden_size):
        super().__init__()
        ws, rank = world()
        self.per_rank = vocab_size // ws
        self.start = rank * self.per_rank
        self.weight = nn.Parameter(torch.randn(self.per_rank, hidden_size) * 0.5)

    def forward(self, ids):
        outside = (ids < self.start) | (ids >= self.start + self.per_rank)
        local = torch.where(outside, torch.zeros_like(ids), ids - self.start)
        x = F.embedding(local, self.weight)
        x = torch.where(outside.unsqueeze(-1), torch.zeros_like(x), x)
        return all_reduce(x)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class Attention(nn.Module):
    def __init__(self, config):
        super().__init__()
        ws, _ = world()
        self.heads = config.num_attention_heads // ws      # this rank's heads
        self.head_dim = config.head_dim
        width = self.heads * self.head_dim
        self.q_proj = nn.Linear(config.hidden_size, width, bias=False)    # column-parallel
        self.k_proj = nn.Linear(config.hidden_size, width, bias=False)
        self.v_proj = nn.Linear(config.hidden_size, width, bias=False)
        self.o_proj = nn.Linear(width, config.hidden_size, bias=False)    # row-parallel

    def forward(self, x, cos, sin):
        bsz, q_len, _ = x.shape
        q = self.q_proj(x).view(bsz, q_len, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(bsz, q_len, self.heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(bsz, q_len, self.heads, self.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        scores = torch.matmul(q, k.transpose(2, 3)) * self.head_dim ** -0.5
        future = torch.arange(q_len)[None, :] > torch.arange(q_len)[:, None]   # causal: no later token
        scores = scores.masked_fill(future, float("-inf"))
        out = torch.matmul(F.softmax(scores, dim=-1), v)
        out = out.transpose(1, 2).reshape(bsz, q_len, self.heads * self.head_dim)
        return all_reduce(self.o_proj(out))


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        ws, _ = world()
        inter = config.intermediate_size // ws
        self.gate_proj = nn.Linear(config.hidden_size, inter, bias=False)   # column-parallel
        self.up_proj = nn.Linear(config.hidden_size, inter, bias=False)
        self.down_proj = nn.Linear(inter, config.hidden_size, bias=False)   # row-parallel

    def forward(self, x):
        return all_reduce(self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x)))


class DecoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.self_attn = Attention(config)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mlp = MLP(config)

    def forward(self, x, cos, sin):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))


class TPLlama(nn.Module):
    def __init__(self, config):
        super().__init__()
        ws, _ = world()
        self.vocab_size = config.vocab_size
        self.embed_tokens = VocabParallelEmbedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList([DecoderLayer(config) for _ in range(config.num_hidden_layers)])
        self.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size // ws, bias=False)   # column-parallel
        inv_freq = 1.0 / (config.rope_theta ** (torch.arange(0, config.head_dim, 2).float() / config.head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, input_ids):
        """input_ids [1, S] int64 -> logits [1, S, vocab] float32"""
        q_len = input_ids.shape[1]
        positions = torch.arange(q_len).float()
        freqs = positions[:, None] * self.inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = layer(x, cos, sin)
        h = self.norm(x)[0]                            # [S, hidden]
        ws, _ = world()
        if ws == 1:
            return self.lm_head(h).unsqueeze(0)
        # the vocab shards gathered per half of the positions: the first
        # half's gather (stream "comm") overlaps the second half's lm_head
        half = q_len // 2
        first = self.lm_head(h[:half]).t().contiguous()     # [vocab / N, S/2]
        gathered = torch.empty(self.vocab_size, first.shape[1])   # [vocab, S/2]: shards in rank order
        with comm_stream():
            dist.all_gather_into_tensor(gathered, first)
        second = self.lm_head(h[half:]).t().contiguous()    # [vocab / N, S - S/2]
        rest = torch.empty(self.vocab_size, second.shape[1])
        dist.all_gather_into_tensor(rest, second)
        return torch.cat((gathered, rest), dim=1).t().unsqueeze(0)
