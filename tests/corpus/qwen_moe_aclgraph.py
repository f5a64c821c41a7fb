# tngc test corpus: qwen_moe_aclgraph.py
#
# Written from scratch for tngc's tests (see README.md in this folder).  It
# imitates the style of LLM serving code for Ascend NPUs but is copied from no
# project; it is only parsed, scanned and linted, never run.
#
# Markers: a line ending in `# resolved` is where exactly one annotation starts
# that `tngc scan` must report with "resolved": true; a line ending in
# `# unresolved`, exactly one reported with "resolved": false (a wrapper or
# method that only shares an annotation's name).  Every line on which the scan
# reports an annotation carries one of the two markers, and no line starts two.
# Marker counts: 19 resolved, 6 unresolved.
# Lines of the unresolved calls:
#   375 400 401 406 658 661

"""Qwen-style sparse MoE decoder, captured with the npugraph_ex (aclgraph) backend.

The decode step is compiled with ``torch.compile(backend="npugraph_ex")`` or
cached with ``torch.npu.npugraph_ex.inference.cache_compile``.  Two
micro-batches can be interleaved on two streams (attention of one overlaps
the experts of the other), and the router/expert kernels of each micro-batch
can be limited to part of the cores so that both streams make progress.

Stream helpers come from the serving framework (``infer_utils``); they pick
``torchair.scope`` in graph mode and ``torch.npu.stream`` in eager mode.
"""

from __future__ import annotations

import enum
import functools
import itertools
import json
import logging
import math
import os
import time
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
from torch._dynamo import mark_static

import torchair
from infer_utils.npu_graph import npu_stream_switch, npu_wait_tensor, super_kernel
from infer_utils.parallel import get_ep_group, get_tp_group

LOG = logging.getLogger("qwen_moe")

MB_STREAM_TAGS = ("mb0", "mb1")
ROUTER_CORES = (8, 16)
EXPERT_CORES = (16, 32)
DEFAULT_GEARS = [1, 2, 4, 8, 16, 32, 64]


# ---------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------


@dataclass
class QwenMoEConfig:
    vocab_size: int = 151936
    hidden_size: int = 2048
    intermediate_size: int = 6144
    moe_intermediate_size: int = 768
    num_hidden_layers: int = 48
    num_attention_heads: int = 32
    num_key_value_heads: int = 4
    head_dim: int = 128
    num_experts: int = 128
    num_experts_per_tok: int = 8
    norm_topk_prob: bool = True
    decoder_sparse_step: int = 1
    mlp_only_layers: List[int] = field(default_factory=list)
    rms_norm_eps: float = 1e-6
    rope_theta: float = 1000000.0
    max_position_embeddings: int = 40960
    tie_word_embeddings: bool = False
    attention_bias: bool = False
    shared_expert_intermediate_size: int = 0

    @classmethod
    def from_json(cls, path: str) -> "QwenMoEConfig":
        with open(path, "r", encoding="utf-8") as f:
            raw = json.load(f)
        known = {k: v for k, v in raw.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def is_sparse(self, layer_idx: int) -> bool:
        return (layer_idx not in self.mlp_only_layers
                and self.num_experts > 0
                and (layer_idx + 1) % self.decoder_sparse_step == 0)


class GraphMode(enum.Enum):
    EAGER = "eager"
    ACLGRAPH = "aclgraph"
    CACHED_ACLGRAPH = "cached_aclgraph"


@dataclass
class RuntimeOptions:
    graph_mode: GraphMode = GraphMode.ACLGRAPH
    micro_batch_overlap: bool = False
    limit_cores: bool = False
    super_kernel_experts: bool = False
    cache_dir: str = "/var/cache/qwen_moe"
    batch_gears: List[int] = field(default_factory=lambda: list(DEFAULT_GEARS))
    max_num_seqs: int = 64
    block_size: int = 128
    num_blocks: int = 1024

    @property
    def graph(self) -> bool:
        return self.graph_mode is not GraphMode.EAGER


class ForwardContext(NamedTuple):
    positions: torch.Tensor
    seq_lens: torch.Tensor
    block_table: torch.Tensor
    slot_mapping: torch.Tensor
    is_decode: bool


# ---------------------------------------------------------------------------
# Small utilities
# ---------------------------------------------------------------------------


def split_batch(x: torch.Tensor, parts: int = 2) -> List[torch.Tensor]:
    """Split along the token dimension into ``parts`` nearly equal chunks."""
    n = x.shape[0]
    step = (n + parts - 1) // parts
    return [x[i:i + step] for i in range(0, n, step)]


def merge_batch(chunks: Sequence[torch.Tensor]) -> torch.Tensor:
    return torch.cat(list(chunks), dim=0)


def split_context(ctx: ForwardContext, parts: int = 2) -> List[ForwardContext]:
    pos = split_batch(ctx.positions, parts)
    lens = split_batch(ctx.seq_lens, parts)
    tables = split_batch(ctx.block_table, parts)
    slots = split_batch(ctx.slot_mapping, parts)
    return [ForwardContext(p, l, t, s, ctx.is_decode) for p, l, t, s in zip(pos, lens, tables, slots)]


def timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            LOG.debug("%s took %.3f ms", fn.__name__, (time.perf_counter() - start) * 1e3)
    return wrapper


class MultiStreamContext:
    """Eager-mode stand-in for graph scopes: real NPU streams keyed by tag.

    Its ``npu_stream_switch``/``super_kernel`` methods share the names of the
    TorchAir scopes but are plain ``torch.npu.stream`` switches.
    """

    def __init__(self, tags: Sequence[str]):
        self.streams = {tag: torch.npu.Stream() for tag in tags}
        self.events: Dict[str, Any] = {}

    def npu_stream_switch(self, tag: str):
        return torch.npu.stream(self.streams[tag])

    def super_kernel(self, name: str, options: str = ""):
        del name, options
        return torch.npu.stream(torch.npu.current_stream())

    def record(self, tag: str) -> None:
        ev = torch.npu.Event()
        ev.record(self.streams[tag])
        self.events[tag] = ev

    def wait(self, tag: str) -> None:
        ev = self.events.pop(tag, None)
        if ev is not None:
            torch.npu.current_stream().wait_event(ev)


# ---------------------------------------------------------------------------
# Layers
# ---------------------------------------------------------------------------


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor, residual: Optional[torch.Tensor] = None):
        if residual is None:
            return torch_npu.npu_rms_norm(x, self.weight, self.eps)[0]
        out, _, res = torch_npu.npu_add_rms_norm(x, residual, self.weight, self.eps)
        return out, res


class RotaryEmbedding(nn.Module):
    def __init__(self, head_dim: int, max_position: int, base: float):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
        t = torch.arange(max_position, dtype=torch.float32)
        freqs = torch.outer(t, inv_freq)
        emb = torch.cat([freqs, freqs], dim=-1)
        self.register_buffer("cos", emb.cos(), persistent=False)
        self.register_buffer("sin", emb.sin(), persistent=False)

    def forward(self, positions: torch.Tensor, q: torch.Tensor, k: torch.Tensor):
        cos = self.cos[positions].unsqueeze(1).to(q.dtype)
        sin = self.sin[positions].unsqueeze(1).to(q.dtype)
        q = torch_npu.npu_rotary_mul(q.unsqueeze(0), cos.unsqueeze(0), sin.unsqueeze(0)).squeeze(0)
        k = torch_npu.npu_rotary_mul(k.unsqueeze(0), cos.unsqueeze(0), sin.unsqueeze(0)).squeeze(0)
        return q, k


class QKVParallelLinear(nn.Module):
    def __init__(self, hidden: int, head_dim: int, n_heads: int, n_kv: int, bias: bool):
        super().__init__()
        tp = get_tp_group().world_size
        self.n_heads = n_heads // tp
        self.n_kv = max(1, n_kv // tp)
        self.head_dim = head_dim
        out = (self.n_heads + 2 * self.n_kv) * head_dim
        self.weight = nn.Parameter(torch.empty(out, hidden), requires_grad=False)
        self.bias = nn.Parameter(torch.zeros(out), requires_grad=False) if bias else None

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        qkv = F.linear(x, self.weight, self.bias)
        q_size = self.n_heads * self.head_dim
        kv_size = self.n_kv * self.head_dim
        return qkv.split([q_size, kv_size, kv_size], dim=-1)


class RowParallelLinear(nn.Module):
    def __init__(self, in_features: int, out_features: int, reduce: bool = True):
        super().__init__()
        self.tp = get_tp_group()
        self.weight = nn.Parameter(torch.empty(out_features, in_features // self.tp.world_size),
                                   requires_grad=False)
        self.reduce = reduce

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.linear(x, self.weight)
        if self.reduce and self.tp.world_size > 1:
            out = self.tp.all_reduce(out)
        return out


class QwenAttention(nn.Module):
    def __init__(self, config: QwenMoEConfig, layer_idx: int):
        super().__init__()
        self.layer_idx = layer_idx
        self.qkv_proj = QKVParallelLinear(config.hidden_size, config.head_dim, config.num_attention_heads,
                                          config.num_key_value_heads, config.attention_bias)
        self.num_heads = self.qkv_proj.n_heads
        self.num_kv_heads = self.qkv_proj.n_kv
        self.head_dim = config.head_dim
        self.scale = config.head_dim ** -0.5
        self.q_norm = RMSNorm(config.head_dim, config.rms_norm_eps)
        self.k_norm = RMSNorm(config.head_dim, config.rms_norm_eps)
        self.o_proj = RowParallelLinear(config.num_attention_heads * config.head_dim, config.hidden_size)
        self.rotary = RotaryEmbedding(config.head_dim, config.max_position_embeddings, config.rope_theta)

    def forward(self, hidden: torch.Tensor, ctx: ForwardContext,
                kv_cache: Tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        n = hidden.shape[0]
        q, k, v = self.qkv_proj(hidden)
        q = self.q_norm(q.view(n, self.num_heads, self.head_dim))
        k = self.k_norm(k.view(n, self.num_kv_heads, self.head_dim))
        v = v.view(n, self.num_kv_heads, self.head_dim)
        q, k = self.rotary(ctx.positions, q, k)
        torch_npu._npu_reshape_and_cache(key=k, value=v, key_cache=kv_cache[0], value_cache=kv_cache[1],
                                         slot_indices=ctx.slot_mapping)
        if ctx.is_decode:
            out = torch_npu.npu_fused_infer_attention_score(
                q.unsqueeze(1), kv_cache[0], kv_cache[1], num_heads=self.num_heads,
                num_key_value_heads=self.num_kv_heads, input_layout="BSND", scale=self.scale,
                block_table=ctx.block_table, block_size=kv_cache[0].shape[1],
                actual_seq_lengths_kv=ctx.seq_lens)[0]
        else:
            out = torch_npu.npu_fusion_attention(
                q, k, v, self.num_heads, input_layout="TND", scale=self.scale, sparse_mode=3,
                actual_seq_qlen=ctx.seq_lens.cumsum(0), actual_seq_kvlen=ctx.seq_lens.cumsum(0))[0]
        return self.o_proj(out.reshape(n, -1))


class QwenMLP(nn.Module):
    def __init__(self, hidden: int, inter: int, reduce: bool = True):
        super().__init__()
        tp = get_tp_group().world_size
        self.gate_up = nn.Parameter(torch.empty(2 * inter // tp, hidden), requires_grad=False)
        self.down = RowParallelLinear(inter, hidden, reduce=reduce)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(torch_npu.npu_swiglu(F.linear(x, self.gate_up)))


class ExpertWeights(nn.Module):
    """Stacked expert weights of this expert-parallel rank."""

    def __init__(self, config: QwenMoEConfig):
        super().__init__()
        ep = get_ep_group()
        self.ep_size = ep.world_size
        self.ep_rank = ep.rank
        self.num_local = config.num_experts // ep.world_size
        self.first = ep.rank * self.num_local
        inter = config.moe_intermediate_size
        self.w13 = nn.Parameter(torch.empty(self.num_local, config.hidden_size, 2 * inter), requires_grad=False)
        self.w2 = nn.Parameter(torch.empty(self.num_local, inter, config.hidden_size), requires_grad=False)

    def owns(self, expert_id: int) -> bool:
        return self.first <= expert_id < self.first + self.num_local

    def load(self, expert_id: int, proj: str, w: torch.Tensor) -> None:
        local = expert_id - self.first
        inter = self.w2.shape[1]
        if proj == "gate_proj":
            self.w13.data[local, :, :inter].copy_(w.t())
        elif proj == "up_proj":
            self.w13.data[local, :, inter:].copy_(w.t())
        elif proj == "down_proj":
            self.w2.data[local].copy_(w.t())
        else:
            raise KeyError(proj)


class SparseMoEBlock(nn.Module):
    """Softmax top-k router and grouped-matmul experts."""

    def __init__(self, config: QwenMoEConfig, opts: RuntimeOptions, layer_idx: int):
        super().__init__()
        self.top_k = config.num_experts_per_tok
        self.num_experts = config.num_experts
        self.norm_topk_prob = config.norm_topk_prob
        self.gate = nn.Parameter(torch.empty(config.num_experts, config.hidden_size), requires_grad=False)
        self.experts = ExpertWeights(config)
        self.opts = opts
        self.sk_name = "moe_%d" % layer_idx

    def route(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        logits = F.linear(x, self.gate)
        weights, ids, _ = torch_npu.npu_moe_gating_top_k_softmax(logits, None, k=self.top_k)
        if self.norm_topk_prob:
            weights = weights / weights.sum(dim=-1, keepdim=True)
        return weights.to(x.dtype), ids

    def experts_forward(self, x: torch.Tensor, weights: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        n = x.shape[0]
        sorted_x, expanded_row_idx, tokens_per_expert, _ = torch_npu.npu_moe_init_routing_v2(
            x, ids, active_num=n * self.top_k, expert_num=self.num_experts,
            expert_tokens_num_type=1, expert_tokens_num_flag=True, active_expert_range=[0, self.num_experts])
        h = torch_npu.npu_grouped_matmul([sorted_x], [self.experts.w13], group_list=tokens_per_expert,
                                         group_type=0, group_list_type=1, split_item=3)[0]
        h = torch_npu.npu_swiglu(h)
        h = torch_npu.npu_grouped_matmul([h], [self.experts.w2], group_list=tokens_per_expert,
                                         group_type=0, group_list_type=1, split_item=3)[0]
        return torch_npu.npu_moe_token_unpermute(h, expanded_row_idx, weights)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with super_kernel(self.sk_name, "stream-fusion=1", self.opts.super_kernel_experts):  # unresolved
            weights, ids = self.route(x)
            out = self.experts_forward(x, weights, ids)
        tp = get_tp_group()
        if tp.world_size > 1:
            out = tp.all_reduce(out)
        return out


class SharedExpertMoEBlock(SparseMoEBlock):
    """Qwen2-MoE flavour: a gated shared expert next to the routed experts.

    In graph mode the shared expert runs on its own stream (helpers from
    infer_utils) and overlaps the dispatch of the routed experts; the final
    add waits for both.
    """

    def __init__(self, config: QwenMoEConfig, opts: RuntimeOptions, layer_idx: int):
        super().__init__(config, opts, layer_idx)
        self.shared_expert = QwenMLP(config.hidden_size, config.shared_expert_intermediate_size, reduce=False)
        self.shared_expert_gate = nn.Parameter(torch.empty(1, config.hidden_size), requires_grad=False)
        self.multistream = opts.graph and not opts.micro_batch_overlap

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weights, ids = self.route(x)
        with npu_stream_switch(self.multistream, "shared_expert"):  # unresolved
            x_shared = npu_wait_tensor(self.multistream, x, weights)  # unresolved
            shared = self.shared_expert(x_shared)
            gate = torch.sigmoid(F.linear(x_shared, self.shared_expert_gate))
            shared = shared * gate
        routed = self.experts_forward(x, weights, ids)
        shared = npu_wait_tensor(self.multistream, shared, routed)  # unresolved
        out = routed + shared
        tp = get_tp_group()
        if tp.world_size > 1:
            out = tp.all_reduce(out)
        return out


class QwenDecoderLayer(nn.Module):
    def __init__(self, config: QwenMoEConfig, opts: RuntimeOptions, layer_idx: int):
        super().__init__()
        self.layer_idx = layer_idx
        self.self_attn = QwenAttention(config, layer_idx)
        if config.is_sparse(layer_idx) and config.shared_expert_intermediate_size > 0:
            self.mlp = SharedExpertMoEBlock(config, opts, layer_idx)
        elif config.is_sparse(layer_idx):
            self.mlp = SparseMoEBlock(config, opts, layer_idx)
        else:
            self.mlp = QwenMLP(config.hidden_size, config.intermediate_size)
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.opts = opts

    def forward(self, hidden: torch.Tensor, residual: Optional[torch.Tensor], ctx: ForwardContext,
                kv_cache: Tuple[torch.Tensor, torch.Tensor]) -> Tuple[torch.Tensor, torch.Tensor]:
        if residual is None:
            residual = hidden
            hidden = self.input_layernorm(hidden)
        else:
            hidden, residual = self.input_layernorm(hidden, residual)
        hidden = self.self_attn(hidden, ctx, kv_cache)
        hidden, residual = self.post_attention_layernorm(hidden, residual)
        return self.mlp(hidden), residual

    def forward_two_batches(self, hs: List[torch.Tensor], rs: List[Optional[torch.Tensor]],
                            ctxs: List[ForwardContext],
                            kv_cache: Tuple[torch.Tensor, torch.Tensor]):
        """Attention of micro-batch 1 overlaps the experts of micro-batch 0."""
        h0, r0 = self._attn_half(hs[0], rs[0], ctxs[0], kv_cache)
        with torchair.scope.npu_stream_switch(MB_STREAM_TAGS[1]):  # resolved
            torchair.scope.npu_wait_tensor(hs[1], h0)  # resolved
            h1, r1 = self._attn_half(hs[1], rs[1], ctxs[1], kv_cache)
        with torch.npu.npugraph_ex.scope.limit_core_num(*EXPERT_CORES):  # resolved
            h0 = self.mlp(h0)
        with torchair.scope.npu_stream_switch(MB_STREAM_TAGS[1]):  # resolved
            with torch.npu.npugraph_ex.scope.limit_core_num(*ROUTER_CORES):  # resolved
                h1 = self.mlp(torchair.scope.npu_wait_tensor(h1, h0))  # resolved
        return [h0, h1], [r0, r1]

    def _attn_half(self, hidden: torch.Tensor, residual: Optional[torch.Tensor], ctx: ForwardContext,
                   kv_cache: Tuple[torch.Tensor, torch.Tensor]):
        if residual is None:
            residual = hidden
            hidden = self.input_layernorm(hidden)
        else:
            hidden, residual = self.input_layernorm(hidden, residual)
        hidden = self.self_attn(hidden, ctx, kv_cache)
        return self.post_attention_layernorm(hidden, residual)


class QwenMoEModel(nn.Module):
    def __init__(self, config: QwenMoEConfig, opts: RuntimeOptions):
        super().__init__()
        self.config = config
        self.opts = opts
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList([QwenDecoderLayer(config, opts, i) for i in range(config.num_hidden_layers)])
        self.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)

    def forward(self, input_ids: torch.Tensor, ctx: ForwardContext,
                kv_caches: List[Tuple[torch.Tensor, torch.Tensor]]) -> torch.Tensor:
        hidden = self.embed_tokens(input_ids)
        if self.opts.micro_batch_overlap and ctx.is_decode and input_ids.shape[0] > 1:
            return self._forward_overlapped(hidden, ctx, kv_caches)
        residual = None
        for layer, cache in zip(self.layers, kv_caches):
            hidden, residual = layer(hidden, residual, ctx, cache)
        hidden, _ = self.norm(hidden, residual)
        return hidden

    def _forward_overlapped(self, hidden: torch.Tensor, ctx: ForwardContext,
                            kv_caches: List[Tuple[torch.Tensor, torch.Tensor]]) -> torch.Tensor:
        hs = split_batch(hidden)
        rs: List[Optional[torch.Tensor]] = [None, None]
        ctxs = split_context(ctx)
        for layer, cache in zip(self.layers, kv_caches):
            hs, rs = layer.forward_two_batches(hs, rs, ctxs, cache)
        outs = [self.norm(h, r)[0] for h, r in zip(hs, rs)]
        return merge_batch(outs)


class QwenMoEForCausalLM(nn.Module):
    def __init__(self, config: QwenMoEConfig, opts: RuntimeOptions):
        super().__init__()
        self.config = config
        self.opts = opts
        self.model = QwenMoEModel(config, opts)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight
        if opts.graph_mode is GraphMode.CACHED_ACLGRAPH:
            self.cached_decode = torch.npu.npugraph_ex.inference.cache_compile(  # resolved
                self.decode, dynamic=False, cache_dir=opts.cache_dir)
        else:
            self.cached_decode = None

    def forward(self, input_ids: torch.Tensor, ctx: ForwardContext,
                kv_caches: List[Tuple[torch.Tensor, torch.Tensor]]) -> torch.Tensor:
        if ctx.is_decode and self.cached_decode is not None:
            return self.cached_decode(input_ids, ctx, kv_caches)
        return self.decode(input_ids, ctx, kv_caches)

    def decode(self, input_ids: torch.Tensor, ctx: ForwardContext,
               kv_caches: List[Tuple[torch.Tensor, torch.Tensor]]) -> torch.Tensor:
        hidden = self.model(input_ids, ctx, kv_caches)
        return self.lm_head(hidden)

    def load_weights(self, weights: Iterator[Tuple[str, torch.Tensor]]) -> int:
        params = dict(self.named_parameters())
        loaded = 0
        for name, w in weights:
            if ".mlp.experts." in name:
                parts = name.split(".")
                layer, expert, proj = int(parts[2]), int(parts[5]), parts[6]
                experts = self.model.layers[layer].mlp.experts
                if experts.owns(expert):
                    experts.load(expert, proj, w)
                    loaded += 1
                continue
            if name.endswith(("q_proj.weight", "k_proj.weight", "v_proj.weight")):
                loaded += self._load_qkv(name, w)
                continue
            if name.endswith(("gate_proj.weight", "up_proj.weight")) and ".mlp." in name:
                loaded += self._load_gate_up(name, w)
                continue
            if name.endswith("mlp.gate.weight"):
                name = name.replace("mlp.gate.weight", "mlp.gate")
            if name in params:
                params[name].data.copy_(w)
                loaded += 1
            else:
                LOG.warning("unused weight %s", name)
        return loaded

    def _load_qkv(self, name: str, w: torch.Tensor) -> int:
        layer = int(name.split(".")[2])
        proj = self.model.layers[layer].self_attn.qkv_proj
        q = proj.n_heads * proj.head_dim
        kv = proj.n_kv * proj.head_dim
        offsets = {"q_proj": (0, q), "k_proj": (q, kv), "v_proj": (q + kv, kv)}
        key = name.split(".")[-2]
        off, size = offsets[key]
        tp = get_tp_group()
        proj.weight.data.narrow(0, off, size).copy_(w.narrow(0, tp.rank * size, size))
        return 1

    def _load_gate_up(self, name: str, w: torch.Tensor) -> int:
        layer = int(name.split(".")[2])
        mlp = self.model.layers[layer].mlp
        half = mlp.gate_up.shape[0] // 2
        off = 0 if "gate_proj" in name else half
        tp = get_tp_group()
        mlp.gate_up.data.narrow(0, off, half).copy_(w.narrow(0, tp.rank * half, half))
        return 1


# ---------------------------------------------------------------------------
# Graph capture
# ---------------------------------------------------------------------------


def mark_static_inputs(kv_caches: List[Tuple[torch.Tensor, torch.Tensor]]) -> None:
    """KV caches never change shape: keep them out of the dynamic dims."""
    for k_cache, v_cache in kv_caches:
        mark_static(k_cache)  # resolved
        mark_static(v_cache)  # resolved


def make_npugraph_options(opts: RuntimeOptions) -> Dict[str, Any]:
    return {
        "clone_input": False,
        "inplace_pass": True,
        "static_kernel_compile": False,
        "capture_limit": len(opts.batch_gears) * 2,
    }


class AclGraphRunner:
    """Captures one graph per batch gear (npugraph_ex backend)."""

    def __init__(self, model: QwenMoEForCausalLM, opts: RuntimeOptions,
                 kv_caches: List[Tuple[torch.Tensor, torch.Tensor]]):
        self.model = model
        self.opts = opts
        self.kv_caches = kv_caches
        self.gears = sorted(set(opts.batch_gears))
        self.compiled = None
        self.streams = MultiStreamContext(MB_STREAM_TAGS)

    def prepare(self) -> None:
        mark_static_inputs(self.kv_caches)
        if self.opts.graph_mode is GraphMode.ACLGRAPH:
            self.compiled = torch.compile(self.model.decode, backend="npugraph_ex",  # resolved
                                          options=make_npugraph_options(self.opts),
                                          fullgraph=True, dynamic=False)
        elif self.opts.graph_mode is GraphMode.CACHED_ACLGRAPH:
            self.compiled = self.model.cached_decode
        else:
            self.compiled = self.model.decode

    def gear_for(self, n: int) -> int:
        for g in self.gears:
            if g >= n:
                return g
        raise ValueError("batch %d exceeds the largest gear %d" % (n, self.gears[-1]))

    def pad_inputs(self, input_ids: torch.Tensor, ctx: ForwardContext) -> Tuple[torch.Tensor, ForwardContext]:
        n = input_ids.shape[0]
        g = self.gear_for(n)
        if g == n:
            return input_ids, ctx
        pad = g - n
        input_ids = F.pad(input_ids, (0, pad))
        ctx = ForwardContext(
            positions=F.pad(ctx.positions, (0, pad)),
            seq_lens=F.pad(ctx.seq_lens, (0, pad), value=1),
            block_table=F.pad(ctx.block_table, (0, 0, 0, pad)),
            slot_mapping=F.pad(ctx.slot_mapping, (0, pad), value=-1),
            is_decode=ctx.is_decode)
        return input_ids, ctx

    @timed
    def decode(self, input_ids: torch.Tensor, ctx: ForwardContext) -> torch.Tensor:
        n = input_ids.shape[0]
        input_ids, ctx = self.pad_inputs(input_ids, ctx)
        out = self.compiled(input_ids, ctx, self.kv_caches)
        return out[:n]

    def warmup(self, device: Any) -> None:
        for g in self.gears:
            ids = torch.zeros(g, dtype=torch.int64, device=device)
            ctx = ForwardContext(
                positions=torch.zeros(g, dtype=torch.int64, device=device),
                seq_lens=torch.ones(g, dtype=torch.int32, device=device),
                block_table=torch.zeros(g, 1, dtype=torch.int32, device=device),
                slot_mapping=torch.zeros(g, dtype=torch.int32, device=device),
                is_decode=True)
            self.decode(ids, ctx)
            LOG.info("captured gear %d", g)

    def eager_overlap_probe(self, x: torch.Tensor) -> torch.Tensor:
        """Check in eager mode that the two micro-batch streams really overlap."""
        with self.streams.npu_stream_switch(MB_STREAM_TAGS[1]):  # unresolved
            y = x * 2
            self.streams.record(MB_STREAM_TAGS[1])
        with self.streams.super_kernel("probe"):  # unresolved
            z = x + 1
        self.streams.wait(MB_STREAM_TAGS[1])
        return y + z


class GeGraphRunner(AclGraphRunner):
    """The same runner on the GE (max-autotune) backend, with batch gears."""

    def prepare(self) -> None:
        mark_static_inputs(self.kv_caches)
        graph_config = torchair.CompilerConfig()  # resolved
        graph_config.mode = "max-autotune"  # resolved
        graph_config.inference_config.dynamic_gears_merge_policy = "zip"  # resolved
        graph_config.experimental_config.frozen_parameter = True  # resolved
        backend = torchair.get_npu_backend(compiler_config=graph_config)  # resolved
        self.compiled = torch.compile(self.model.decode, backend=backend,  # resolved
                                      fullgraph=True, dynamic=True)

    def set_gears(self, input_ids: torch.Tensor, ctx: ForwardContext) -> None:
        torchair.inference.set_dim_gears(input_ids, dim_gears={0: self.gears})  # resolved
        torchair.inference.set_dim_gears(ctx.positions, {0: self.gears})  # resolved
        torchair.inference.set_dim_gears(ctx.slot_mapping, {0: self.gears})  # resolved

    def decode(self, input_ids: torch.Tensor, ctx: ForwardContext) -> torch.Tensor:
        if not getattr(self, "_gears_set", False):
            self.set_gears(input_ids, ctx)
            self._gears_set = True
        return super().decode(input_ids, ctx)


# ---------------------------------------------------------------------------
# A small offline driver
# ---------------------------------------------------------------------------


@dataclass
class Sequence_:
    seq_id: int
    tokens: List[int]
    max_new: int
    blocks: List[int] = field(default_factory=list)
    done: bool = False

    def __len__(self) -> int:
        return len(self.tokens)


class PagedCache:
    def __init__(self, config: QwenMoEConfig, opts: RuntimeOptions, device: Any):
        tp = get_tp_group().world_size
        kv_heads = max(1, config.num_key_value_heads // tp)
        shape = (opts.num_blocks, opts.block_size, kv_heads, config.head_dim)
        self.caches = [(torch.zeros(shape, dtype=torch.bfloat16, device=device),
                        torch.zeros(shape, dtype=torch.bfloat16, device=device))
                       for _ in range(config.num_hidden_layers)]
        self.block_size = opts.block_size
        self.free = list(range(opts.num_blocks))

    def ensure(self, seq: Sequence_) -> None:
        need = (len(seq) + self.block_size) // self.block_size
        while len(seq.blocks) < need:
            seq.blocks.append(self.free.pop())

    def release(self, seq: Sequence_) -> None:
        self.free.extend(seq.blocks)
        seq.blocks = []

    def slot(self, seq: Sequence_, pos: int) -> int:
        return seq.blocks[pos // self.block_size] * self.block_size + pos % self.block_size


def make_context(seqs: List[Sequence_], cache: PagedCache, device: Any, decode: bool) -> ForwardContext:
    max_blocks = max(len(s.blocks) for s in seqs)
    table = torch.zeros(len(seqs), max_blocks, dtype=torch.int32)
    for i, s in enumerate(seqs):
        table[i, :len(s.blocks)] = torch.tensor(s.blocks, dtype=torch.int32)
    if decode:
        positions = [len(s) - 1 for s in seqs]
        slots = [cache.slot(s, len(s) - 1) for s in seqs]
    else:
        positions = [p for s in seqs for p in range(len(s))]
        slots = [cache.slot(s, p) for s in seqs for p in range(len(s))]
    return ForwardContext(
        positions=torch.tensor(positions, dtype=torch.int64, device=device),
        seq_lens=torch.tensor([len(s) for s in seqs], dtype=torch.int32, device=device),
        block_table=table.to(device),
        slot_mapping=torch.tensor(slots, dtype=torch.int32, device=device),
        is_decode=decode)


def generate(model: QwenMoEForCausalLM, runner: AclGraphRunner, cache: PagedCache,
             prompts: List[List[int]], max_new: int, device: Any) -> List[List[int]]:
    seqs = [Sequence_(i, list(p), max_new) for i, p in enumerate(prompts)]
    for s in seqs:
        cache.ensure(s)
    ctx = make_context(seqs, cache, device, decode=False)
    ids = torch.tensor([t for s in seqs for t in s.tokens], device=device)
    logits = model(ids, ctx, cache.caches)
    last = torch.tensor(list(itertools.accumulate(len(s) for s in seqs)), device=device) - 1
    next_tokens = logits.index_select(0, last).argmax(-1).tolist()
    for s, t in zip(seqs, next_tokens):
        s.tokens.append(int(t))
    for _ in range(max_new - 1):
        live = [s for s in seqs if not s.done]
        if not live:
            break
        for s in live:
            cache.ensure(s)
        ctx = make_context(live, cache, device, decode=True)
        ids = torch.tensor([s.tokens[-1] for s in live], device=device)
        next_tokens = runner.decode(ids, ctx).argmax(-1).tolist()
        for s, t in zip(live, next_tokens):
            s.tokens.append(int(t))
            if len(s.tokens) - len(prompts[s.seq_id]) >= s.max_new:
                s.done = True
                cache.release(s)
    return [s.tokens[len(prompts[s.seq_id]):] for s in seqs]


def iter_safetensors(path: str) -> Iterator[Tuple[str, torch.Tensor]]:
    """Yield (name, tensor) from every *.safetensors file under ``path``."""
    from safetensors import safe_open
    files = sorted(f for f in os.listdir(path) if f.endswith(".safetensors"))
    if not files:
        raise FileNotFoundError("no .safetensors files in %s" % path)
    for fname in files:
        with safe_open(os.path.join(path, fname), framework="pt", device="cpu") as f:
            for key in f.keys():
                yield key, f.get_tensor(key)


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * q / 100.0
    lo = math.floor(k)
    hi = math.ceil(k)
    if lo == hi:
        return ordered[int(k)]
    return ordered[lo] * (hi - k) + ordered[hi] * (k - lo)


def benchmark(runner: AclGraphRunner, device: Any, batch: int, iters: int = 50,
              warmup: int = 5) -> Dict[str, float]:
    """Latency of the decode step at one batch size (after capture)."""
    ids = torch.randint(0, runner.model.config.vocab_size, (batch,), device=device)
    ctx = ForwardContext(
        positions=torch.full((batch,), 7, dtype=torch.int64, device=device),
        seq_lens=torch.full((batch,), 8, dtype=torch.int32, device=device),
        block_table=torch.zeros(batch, 1, dtype=torch.int32, device=device),
        slot_mapping=torch.arange(batch, dtype=torch.int32, device=device),
        is_decode=True)
    for _ in range(warmup):
        runner.decode(ids, ctx)
    torch.npu.synchronize()
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        runner.decode(ids, ctx)
        torch.npu.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return {"p50_ms": percentile(times, 50), "p90_ms": percentile(times, 90),
            "p99_ms": percentile(times, 99), "mean_ms": sum(times) / len(times)}


def profile_decode(runner: AclGraphRunner, device: Any, batch: int, out_dir: str) -> None:
    """Collect an Ascend profiler trace of a few decode steps."""
    experimental = torch_npu.profiler._ExperimentalConfig(
        profiler_level=torch_npu.profiler.ProfilerLevel.Level1, aic_metrics=None)
    with torch_npu.profiler.profile(
            activities=[torch_npu.profiler.ProfilerActivity.CPU, torch_npu.profiler.ProfilerActivity.NPU],
            schedule=torch_npu.profiler.schedule(wait=1, warmup=1, active=3, repeat=1, skip_first=1),
            on_trace_ready=torch_npu.profiler.tensorboard_trace_handler(out_dir),
            experimental_config=experimental) as prof:
        for _ in range(7):
            benchmark(runner, device, batch, iters=1, warmup=0)
            prof.step()


def parse_args(argv: Optional[List[str]] = None):
    import argparse
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default=None, help="HF config.json")
    p.add_argument("--graph-mode", default="aclgraph", choices=[m.value for m in GraphMode])
    p.add_argument("--ge", action="store_true", help="use the GE backend instead of npugraph_ex")
    p.add_argument("--micro-batch-overlap", action="store_true")
    p.add_argument("--limit-cores", action="store_true")
    p.add_argument("--gears", default=",".join(str(g) for g in DEFAULT_GEARS))
    p.add_argument("--max-new", type=int, default=16)
    p.add_argument("--weights", default=None, help="folder with *.safetensors")
    p.add_argument("--bench", type=int, default=0, help="benchmark this batch size")
    p.add_argument("--profile-dir", default=None)
    return p.parse_args(argv)


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    config = QwenMoEConfig.from_json(args.config) if args.config else QwenMoEConfig(
        hidden_size=256, intermediate_size=512, moe_intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=64, num_experts=8,
        num_experts_per_tok=2, vocab_size=1024, max_position_embeddings=4096)
    opts = RuntimeOptions(graph_mode=GraphMode(args.graph_mode),
                          micro_batch_overlap=args.micro_batch_overlap,
                          limit_cores=args.limit_cores,
                          batch_gears=[int(g) for g in args.gears.split(",")],
                          num_blocks=64, block_size=16)
    device = "npu"
    model = QwenMoEForCausalLM(config, opts).to(device).to(torch.bfloat16)
    cache = PagedCache(config, opts, device)
    runner_cls = GeGraphRunner if args.ge else AclGraphRunner
    runner = runner_cls(model, opts, cache.caches)
    if args.weights:
        n = model.load_weights(iter_safetensors(args.weights))
        LOG.info("loaded %d tensors", n)
    runner.prepare()
    if args.bench:
        LOG.info("batch %d: %s", args.bench, json.dumps(benchmark(runner, device, args.bench)))
        if args.profile_dir:
            profile_decode(runner, device, args.bench, args.profile_dir)
        return 0
    prompts = [[1, 2, 3, 4], [5, 6, 7], [8, 9]]
    outs = generate(model, runner, cache, prompts, args.max_new, device)
    for p, o in zip(prompts, outs):
        LOG.info("%s -> %s", p, o)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
