# tngc test corpus: deepseek_moe.py
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
# Marker counts: 19 resolved, 9 unresolved.
# Lines of the unresolved calls:
#   686 687 694 695 805 806 811 891 902

"""DeepSeek-style mixture-of-experts decoder for Ascend NPUs in graph mode.

This module holds a complete decoder stack: multi-head latent attention with
a compressed KV cache, a grouped top-k router, routed experts executed with
the fused MoE kernels of torch_npu, shared experts that can overlap with the
routed experts on a second stream, and the glue that compiles the decode step
with TorchAir.

Graph-mode switches live in ``AscendGraphOptions``; nothing in the model
depends on them being enabled, so the same code runs eagerly on a host
without torchair (the wrappers below turn into ``nullcontext``).

Usage of the multi-stream helpers (these mentions are in a docstring and are
not calls): ``npu_stream_switch(flag, "shared")`` switches the ops of a block
to a secondary stream, ``npu_wait_tensor(flag, a, b)`` makes ``a`` wait for
``b``, ``super_kernel(prefix, options)`` fuses a block into one launch.
"""

import contextlib
import dataclasses
import logging
import math
import os
from contextlib import nullcontext
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
import torch_npu

try:
    import torchair as tng
    from torchair.configs.compiler_config import CompilerConfig
    _HAS_TORCHAIR = True
except ImportError:  # host without the Ascend stack
    tng = None
    CompilerConfig = None
    _HAS_TORCHAIR = False

logger = logging.getLogger(__name__)

_EPS_DEFAULT = 1e-6
_SHARED_EXPERT_STREAM = "moe_shared"
_PREFETCH_STREAM = "prefetch"
_ATTN_SK_OPTIONS = "stream-fusion=1"
_MOE_SK_OPTIONS = "stream-fusion=1:feed-sync-all=1"
_MAX_GEARS = 100


# ---------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class DeepseekMoEConfig:
    """Hyper-parameters of the decoder (names follow the HF checkpoints)."""

    vocab_size: int = 102400
    hidden_size: int = 5120
    intermediate_size: int = 12288
    moe_intermediate_size: int = 1536
    num_hidden_layers: int = 60
    num_attention_heads: int = 128
    num_key_value_heads: int = 128
    n_shared_experts: int = 2
    n_routed_experts: int = 160
    num_experts_per_tok: int = 6
    n_group: int = 8
    topk_group: int = 3
    routed_scaling_factor: float = 16.0
    scoring_func: str = "softmax"
    topk_method: str = "group_limited_greedy"
    norm_topk_prob: bool = False
    first_k_dense_replace: int = 1
    moe_layer_freq: int = 1
    q_lora_rank: Optional[int] = 1536
    kv_lora_rank: int = 512
    qk_nope_head_dim: int = 128
    qk_rope_head_dim: int = 64
    v_head_dim: int = 128
    rms_norm_eps: float = 1e-6
    rope_theta: float = 10000.0
    rope_scaling: Optional[Dict[str, Any]] = None
    max_position_embeddings: int = 163840
    tie_word_embeddings: bool = False
    torch_dtype: str = "bfloat16"

    @property
    def qk_head_dim(self) -> int:
        return self.qk_nope_head_dim + self.qk_rope_head_dim

    def is_moe_layer(self, layer_idx: int) -> bool:
        return (self.n_routed_experts is not None
                and layer_idx >= self.first_k_dense_replace
                and layer_idx % self.moe_layer_freq == 0)

    @classmethod
    def tiny(cls) -> "DeepseekMoEConfig":
        """A configuration small enough for unit tests on a laptop."""
        return cls(vocab_size=512, hidden_size=256, intermediate_size=512,
                   moe_intermediate_size=128, num_hidden_layers=3,
                   num_attention_heads=4, num_key_value_heads=4,
                   n_shared_experts=1, n_routed_experts=8,
                   num_experts_per_tok=2, n_group=2, topk_group=1,
                   routed_scaling_factor=1.0, q_lora_rank=64,
                   kv_lora_rank=32, qk_nope_head_dim=16,
                   qk_rope_head_dim=16, v_head_dim=16,
                   max_position_embeddings=2048)


@dataclasses.dataclass
class AscendGraphOptions:
    """Graph-mode switches read by the layers below."""

    enable_graph_mode: bool = True
    multistream_overlap_shared_expert: bool = True
    enable_super_kernel: bool = False
    enable_prefetch: bool = False
    enable_cache_compile: bool = False
    cache_dir: str = ".torchair_cache"
    use_static_kernel: bool = False
    static_kernel_build_dir: str = "/tmp/static_kernels"
    graph_batch_sizes: Tuple[int, ...] = (1, 2, 4, 8, 16, 32)
    enable_single_stream: bool = False
    dump_graph: Optional[str] = None
    limit_aicore: Optional[Tuple[int, int]] = None

    def validate(self) -> None:
        if len(self.graph_batch_sizes) > _MAX_GEARS:
            raise ValueError("too many graph batch sizes: %d" % len(self.graph_batch_sizes))
        if self.enable_single_stream and self.multistream_overlap_shared_expert:
            logger.warning("single-stream graphs disable the shared-expert overlap")
            self.multistream_overlap_shared_expert = False
        if self.enable_super_kernel and not self.enable_graph_mode:
            logger.warning("super kernels need graph mode; ignoring enable_super_kernel")
            self.enable_super_kernel = False

    @classmethod
    def from_env(cls) -> "AscendGraphOptions":
        opts = cls()
        opts.enable_graph_mode = os.environ.get("DS_GRAPH_MODE", "1") == "1"
        opts.enable_super_kernel = os.environ.get("DS_SUPER_KERNEL", "0") == "1"
        opts.enable_cache_compile = os.environ.get("DS_CACHE_COMPILE", "0") == "1"
        sizes = os.environ.get("DS_GRAPH_BATCH_SIZES")
        if sizes:
            opts.graph_batch_sizes = tuple(int(s) for s in sizes.split(","))
        opts.validate()
        return opts


@dataclasses.dataclass
class AttentionMetadata:
    """Per-step attention inputs shared by all layers."""

    is_prefill: bool
    num_tokens: int
    seq_lens: torch.Tensor
    seq_lens_list: List[int]
    block_tables: torch.Tensor
    slot_mapping: torch.Tensor
    max_seq_len: int
    actual_seq_lengths_q: Optional[List[int]] = None

    @property
    def batch_size(self) -> int:
        return self.seq_lens.shape[0]


# ---------------------------------------------------------------------------
# Graph-mode helpers
# ---------------------------------------------------------------------------


def npu_stream_switch(switch_flag: bool, tag: str, priority: int = 0):
    """Switch the ops in the block to stream ``tag`` when ``switch_flag``."""
    if not switch_flag or tng is None:
        return nullcontext()
    return tng.scope.npu_stream_switch(tag, priority)  # resolved


def npu_wait_tensor(switch_flag: bool, self: torch.Tensor, dependency: torch.Tensor) -> torch.Tensor:
    """Make ``self`` wait for ``dependency`` when multi-streaming is on."""
    if not switch_flag or tng is None:
        return self
    return tng.scope.npu_wait_tensor(self, dependency)  # resolved


def super_kernel(prefix: str, options: str, enabled: bool = True):
    """Fuse the ops in the block into one super kernel named ``prefix``."""
    if not enabled or tng is None:
        return nullcontext()
    return tng.scope.super_kernel(prefix, options)  # resolved


def limit_core_num(limits: Optional[Tuple[int, int]]):
    """Cap the AI Core / Vector Core count of the ops in the block."""
    if limits is None or tng is None:
        return nullcontext()
    aic, aiv = limits
    return tng.scope.limit_core_num(aic, aiv)  # resolved


def npu_prefetch(switch_flag: bool, weight: torch.Tensor, dependency: torch.Tensor,
                 max_size: int = 0, offset: int = 0) -> None:
    """Prefetch ``weight`` into L2 once ``dependency`` is produced."""
    if not switch_flag:
        return
    input_size = weight.element_size() * weight.numel()
    if max_size <= 0 or max_size > input_size:
        max_size = input_size
    torch_npu.npu_prefetch(weight, dependency, max_size, offset)


def _round_up(x: int, align: int) -> int:
    return (x + align - 1) // align * align


def _divide(numerator: int, denominator: int) -> int:
    if numerator % denominator != 0:
        raise ValueError("%d is not divisible by %d" % (numerator, denominator))
    return numerator // denominator


# ---------------------------------------------------------------------------
# Tensor-parallel helpers (a minimal stand-in for a serving framework's)
# ---------------------------------------------------------------------------


class TPGroup:
    """The tensor-parallel group of this process."""

    def __init__(self, world_size: int = 1, rank: int = 0, group: Optional[Any] = None):
        self.world_size = world_size
        self.rank = rank
        self.group = group

    def all_reduce(self, x: torch.Tensor) -> torch.Tensor:
        if self.world_size == 1:
            return x
        dist.all_reduce(x, group=self.group)
        return x

    def all_gather(self, x: torch.Tensor, dim: int = -1) -> torch.Tensor:
        if self.world_size == 1:
            return x
        if dim < 0:
            dim += x.dim()
        out = torch.empty((self.world_size,) + tuple(x.shape), dtype=x.dtype, device=x.device)
        dist.all_gather_into_tensor(out, x.contiguous(), group=self.group)
        out = out.movedim(0, dim)
        return out.reshape(x.shape[:dim] + (self.world_size * x.shape[dim],) + x.shape[dim + 1:])

    def reduce_scatter(self, x: torch.Tensor) -> torch.Tensor:
        if self.world_size == 1:
            return x
        out = torch.empty((x.shape[0] // self.world_size,) + tuple(x.shape[1:]),
                          dtype=x.dtype, device=x.device)
        dist.reduce_scatter_tensor(out, x, group=self.group)
        return out


_TP_GROUP: Optional[TPGroup] = None


def get_tp_group() -> TPGroup:
    global _TP_GROUP
    if _TP_GROUP is None:
        if dist.is_available() and dist.is_initialized():
            _TP_GROUP = TPGroup(dist.get_world_size(), dist.get_rank())
        else:
            _TP_GROUP = TPGroup()
    return _TP_GROUP


def tensor_model_parallel_all_reduce(x: torch.Tensor) -> torch.Tensor:
    return get_tp_group().all_reduce(x)


# ---------------------------------------------------------------------------
# Basic layers
# ---------------------------------------------------------------------------


class RMSNorm(nn.Module):
    """RMS normalisation with the fused NPU kernel, optionally with a residual."""

    def __init__(self, hidden_size: int, eps: float = _EPS_DEFAULT):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, x: torch.Tensor, residual: Optional[torch.Tensor] = None):
        if residual is not None:
            x, _, residual = torch_npu.npu_add_rms_norm(x, residual, self.weight, self.variance_epsilon)
            return x, residual
        x, _ = torch_npu.npu_rms_norm(x, self.weight, self.variance_epsilon)
        return x

    def extra_repr(self) -> str:
        return "hidden_size=%d, eps=%g" % (self.weight.shape[0], self.variance_epsilon)


class SiluAndMul(nn.Module):
    """silu(x[..., :d]) * x[..., d:] with the fused swiglu kernel."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch_npu.npu_swiglu(x)


class ReplicatedLinear(nn.Module):
    """A linear layer whose weight is the same on every rank."""

    def __init__(self, input_size: int, output_size: int, bias: bool = False,
                 params_dtype: Optional[torch.dtype] = None, prefix: str = ""):
        super().__init__()
        self.input_size = input_size
        self.output_size = output_size
        self.prefix = prefix
        dtype = params_dtype or torch.get_default_dtype()
        self.weight = nn.Parameter(torch.empty(output_size, input_size, dtype=dtype), requires_grad=False)
        self.bias = nn.Parameter(torch.zeros(output_size, dtype=dtype), requires_grad=False) if bias else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight, self.bias)

    def weight_loader(self, param: nn.Parameter, loaded: torch.Tensor) -> None:
        if param.shape != loaded.shape:
            raise ValueError("%s: shape %s != %s" % (self.prefix, tuple(param.shape), tuple(loaded.shape)))
        param.data.copy_(loaded)


class ColumnParallelLinear(ReplicatedLinear):
    """Output features split across the tensor-parallel ranks."""

    def __init__(self, input_size: int, output_size: int, bias: bool = False,
                 gather_output: bool = False, params_dtype: Optional[torch.dtype] = None,
                 prefix: str = ""):
        tp = get_tp_group()
        self.tp_size = tp.world_size
        self.tp_rank = tp.rank
        self.gather_output = gather_output
        super().__init__(input_size, _divide(output_size, tp.world_size), bias, params_dtype, prefix)
        self.full_output_size = output_size

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = super().forward(x)
        if self.gather_output:
            out = get_tp_group().all_gather(out)
        return out

    def weight_loader(self, param: nn.Parameter, loaded: torch.Tensor) -> None:
        shard = param.shape[0]
        loaded = loaded.narrow(0, self.tp_rank * shard, shard)
        super().weight_loader(param, loaded)


class MergedColumnParallelLinear(ColumnParallelLinear):
    """Several column-parallel projections stored as one weight (gate and up)."""

    def __init__(self, input_size: int, output_sizes: Sequence[int], bias: bool = False,
                 params_dtype: Optional[torch.dtype] = None, prefix: str = ""):
        self.output_sizes = list(output_sizes)
        super().__init__(input_size, sum(output_sizes), bias, False, params_dtype, prefix)

    def weight_loader(self, param: nn.Parameter, loaded: torch.Tensor, shard_id: int = 0) -> None:
        offset = sum(self.output_sizes[:shard_id]) // self.tp_size
        size = self.output_sizes[shard_id] // self.tp_size
        start = self.tp_rank * size
        param.data.narrow(0, offset, size).copy_(loaded.narrow(0, start, size))


class RowParallelLinear(ReplicatedLinear):
    """Input features split across ranks; the partial sums are all-reduced."""

    def __init__(self, input_size: int, output_size: int, bias: bool = False,
                 reduce_results: bool = True, params_dtype: Optional[torch.dtype] = None,
                 prefix: str = ""):
        tp = get_tp_group()
        self.tp_size = tp.world_size
        self.tp_rank = tp.rank
        self.reduce_results = reduce_results
        super().__init__(_divide(input_size, tp.world_size), output_size, bias, params_dtype, prefix)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.linear(x, self.weight)
        if self.reduce_results and self.tp_size > 1:
            out = tensor_model_parallel_all_reduce(out)
        if self.bias is not None:
            out = out + self.bias
        return out

    def weight_loader(self, param: nn.Parameter, loaded: torch.Tensor) -> None:
        shard = param.shape[1]
        super().weight_loader(param, loaded.narrow(1, self.tp_rank * shard, shard))


class VocabParallelEmbedding(nn.Module):
    """Embedding table split along the vocabulary."""

    def __init__(self, num_embeddings: int, embedding_dim: int, prefix: str = ""):
        super().__init__()
        tp = get_tp_group()
        self.tp_size = tp.world_size
        self.num_embeddings = num_embeddings
        self.per_rank = _divide(_round_up(num_embeddings, tp.world_size), tp.world_size)
        self.start = tp.rank * self.per_rank
        self.end = min(self.start + self.per_rank, num_embeddings)
        self.weight = nn.Parameter(torch.empty(self.per_rank, embedding_dim), requires_grad=False)
        self.prefix = prefix

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        if self.tp_size == 1:
            return F.embedding(input_ids, self.weight)
        mask = (input_ids < self.start) | (input_ids >= self.end)
        local = (input_ids - self.start).masked_fill(mask, 0)
        out = F.embedding(local, self.weight)
        out = out.masked_fill(mask.unsqueeze(-1), 0)
        return tensor_model_parallel_all_reduce(out)


class ParallelLMHead(VocabParallelEmbedding):
    """The output projection, sharing the embedding's split."""

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        logits = F.linear(hidden_states, self.weight)
        if self.tp_size > 1:
            logits = get_tp_group().all_gather(logits)
        return logits[..., :self.num_embeddings]


# ---------------------------------------------------------------------------
# Rotary embedding (YaRN scaling)
# ---------------------------------------------------------------------------


def yarn_find_correction_dim(num_rotations: float, dim: int, base: float = 10000,
                             max_position_embeddings: int = 2048) -> float:
    return (dim * math.log(max_position_embeddings / (num_rotations * 2 * math.pi))) / (2 * math.log(base))


def yarn_find_correction_range(low_rot: float, high_rot: float, dim: int, base: float = 10000,
                               max_position_embeddings: int = 2048) -> Tuple[int, int]:
    low = math.floor(yarn_find_correction_dim(low_rot, dim, base, max_position_embeddings))
    high = math.ceil(yarn_find_correction_dim(high_rot, dim, base, max_position_embeddings))
    return max(low, 0), min(high, dim - 1)


def yarn_linear_ramp_mask(low: float, high: float, dim: int, dtype: torch.dtype) -> torch.Tensor:
    if low == high:
        high += 0.001
    ramp = (torch.arange(dim, dtype=torch.float32) - low) / (high - low)
    return torch.clamp(ramp, 0, 1).to(dtype)


def yarn_get_mscale(scale: float = 1.0, mscale: float = 1.0) -> float:
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


class YarnRotaryEmbedding(nn.Module):
    """Rotary embedding with YaRN context extension; caches cos/sin tables."""

    def __init__(self, head_dim: int, max_position: int, base: float,
                 scaling: Optional[Dict[str, Any]], dtype: torch.dtype):
        super().__init__()
        self.head_dim = head_dim
        self.base = base
        self.max_position = max_position
        scaling = scaling or {}
        self.factor = float(scaling.get("factor", 1.0))
        self.original_max = int(scaling.get("original_max_position_embeddings", max_position))
        self.beta_fast = float(scaling.get("beta_fast", 32))
        self.beta_slow = float(scaling.get("beta_slow", 1))
        self.mscale = float(yarn_get_mscale(self.factor, float(scaling.get("mscale", 1)))
                            / yarn_get_mscale(self.factor, float(scaling.get("mscale_all_dim", 0))))
        cos, sin = self._build_cache(dtype)
        self.register_buffer("cos_cached", cos, persistent=False)
        self.register_buffer("sin_cached", sin, persistent=False)

    def _inv_freq(self) -> torch.Tensor:
        pos_freqs = self.base ** (torch.arange(0, self.head_dim, 2, dtype=torch.float32) / self.head_dim)
        extra = 1.0 / pos_freqs
        inter = 1.0 / (self.factor * pos_freqs)
        low, high = yarn_find_correction_range(self.beta_fast, self.beta_slow, self.head_dim,
                                               self.base, self.original_max)
        mask = 1 - yarn_linear_ramp_mask(low, high, self.head_dim // 2, torch.float32)
        return inter * (1 - mask) + extra * mask

    def _build_cache(self, dtype: torch.dtype) -> Tuple[torch.Tensor, torch.Tensor]:
        t = torch.arange(int(self.max_position * self.factor), dtype=torch.float32)
        freqs = torch.outer(t, self._inv_freq())
        emb = torch.cat((freqs, freqs), dim=-1)
        return (emb.cos() * self.mscale).to(dtype), (emb.sin() * self.mscale).to(dtype)

    def forward(self, positions: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        cos = self.cos_cached.index_select(0, positions.view(-1))
        sin = self.sin_cached.index_select(0, positions.view(-1))
        return cos.unsqueeze(1).unsqueeze(1), sin.unsqueeze(1).unsqueeze(1)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    return torch_npu.npu_rotary_mul(x, cos, sin)


# ---------------------------------------------------------------------------
# Dense MLP
# ---------------------------------------------------------------------------


class DeepseekMLP(nn.Module):
    """gate/up projection, swiglu, down projection."""

    def __init__(self, config: DeepseekMoEConfig, intermediate_size: int,
                 reduce_results: bool = True, prefix: str = ""):
        super().__init__()
        self.gate_up_proj = MergedColumnParallelLinear(config.hidden_size, [intermediate_size] * 2,
                                                       prefix=prefix + ".gate_up_proj")
        self.down_proj = RowParallelLinear(intermediate_size, config.hidden_size,
                                           reduce_results=reduce_results, prefix=prefix + ".down_proj")
        self.act_fn = SiluAndMul()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate_up = self.gate_up_proj(x)
        x = self.act_fn(gate_up)
        return self.down_proj(x)


# ---------------------------------------------------------------------------
# Router and routed experts
# ---------------------------------------------------------------------------


class MoEGate(nn.Module):
    """Scores the experts and picks the top-k per token (group-limited)."""

    def __init__(self, config: DeepseekMoEConfig, prefix: str = ""):
        super().__init__()
        self.top_k = config.num_experts_per_tok
        self.n_routed_experts = config.n_routed_experts
        self.n_group = config.n_group
        self.topk_group = config.topk_group
        self.scoring_func = config.scoring_func
        self.topk_method = config.topk_method
        self.norm_topk_prob = config.norm_topk_prob
        self.routed_scaling_factor = config.routed_scaling_factor
        self.weight = nn.Parameter(torch.empty(config.n_routed_experts, config.hidden_size),
                                   requires_grad=False)
        if self.topk_method == "noaux_tc":
            self.e_score_correction_bias = nn.Parameter(torch.zeros(config.n_routed_experts),
                                                        requires_grad=False)
        else:
            self.e_score_correction_bias = None
        self.prefix = prefix

    def forward(self, hidden_states: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        logits = F.linear(hidden_states.to(torch.float32), self.weight.to(torch.float32))
        if self.scoring_func == "sigmoid":
            weights, ids, _ = torch_npu.npu_moe_gating_top_k(
                logits, k=self.top_k, bias=self.e_score_correction_bias,
                k_group=self.topk_group, group_count=self.n_group, group_select_mode=1,
                renorm=0, norm_type=1, routed_scaling_factor=self.routed_scaling_factor,
                eps=1e-20)
            return weights, ids
        scores = logits.softmax(dim=-1)
        return self._grouped_topk(scores)

    def _grouped_topk(self, scores: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        num_tokens = scores.shape[0]
        group_scores = scores.view(num_tokens, self.n_group, -1).max(dim=-1).values
        group_idx = torch.topk(group_scores, k=self.topk_group, dim=-1, sorted=False)[1]
        group_mask = torch.zeros_like(group_scores)
        group_mask.scatter_(1, group_idx, 1)
        score_mask = group_mask.unsqueeze(-1).expand(
            num_tokens, self.n_group, self.n_routed_experts // self.n_group).reshape(num_tokens, -1)
        masked = scores.masked_fill(~score_mask.bool(), 0.0)
        topk_weight, topk_idx = torch.topk(masked, k=self.top_k, dim=-1, sorted=False)
        if self.top_k > 1 and self.norm_topk_prob:
            topk_weight = topk_weight / (topk_weight.sum(dim=-1, keepdim=True) + 1e-20)
        else:
            topk_weight = topk_weight * self.routed_scaling_factor
        return topk_weight, topk_idx.to(torch.int32)


class FusedExperts(nn.Module):
    """All routed experts of one layer, stored as stacked weights."""

    def __init__(self, config: DeepseekMoEConfig, prefix: str = ""):
        super().__init__()
        tp = get_tp_group()
        self.num_experts = config.n_routed_experts
        self.top_k = config.num_experts_per_tok
        self.hidden_size = config.hidden_size
        self.intermediate_per_rank = _divide(config.moe_intermediate_size, tp.world_size)
        self.w13_weight = nn.Parameter(torch.empty(self.num_experts, config.hidden_size,
                                                   2 * self.intermediate_per_rank), requires_grad=False)
        self.w2_weight = nn.Parameter(torch.empty(self.num_experts, self.intermediate_per_rank,
                                                  config.hidden_size), requires_grad=False)
        self.prefix = prefix

    def forward(self, hidden_states: torch.Tensor, topk_weights: torch.Tensor,
                topk_ids: torch.Tensor) -> torch.Tensor:
        num_tokens = hidden_states.shape[0]
        row_idx = torch.arange(num_tokens * self.top_k, dtype=torch.int32,
                               device=hidden_states.device).view(self.top_k, -1).permute(1, 0).contiguous()
        expanded, expanded_row_idx, expanded_expert_idx = torch_npu.npu_moe_init_routing(
            hidden_states, row_idx=row_idx, expert_idx=topk_ids, active_num=num_tokens)
        tokens_per_expert = torch_npu.npu_moe_compute_expert_tokens(expanded_expert_idx, self.num_experts)
        gate_up = torch_npu.npu_grouped_matmul([expanded], [self.w13_weight], group_list=tokens_per_expert,
                                               split_item=2, group_type=0, group_list_type=0)[0]
        act = torch_npu.npu_swiglu(gate_up)
        down = torch_npu.npu_grouped_matmul([act], [self.w2_weight], group_list=tokens_per_expert,
                                            split_item=2, group_type=0, group_list_type=0)[0]
        return torch_npu.npu_moe_finalize_routing(
            down, skip1=None, skip2=None, bias=None, scales=topk_weights.to(down.dtype),
            expanded_src_to_dst_row=expanded_row_idx, export_for_source_row=topk_ids)

    def load_expert(self, expert_id: int, name: str, loaded: torch.Tensor) -> None:
        tp = get_tp_group()
        shard = self.intermediate_per_rank
        if name in ("gate_proj", "up_proj"):
            offset = 0 if name == "gate_proj" else shard
            src = loaded.narrow(0, tp.rank * shard, shard).t()
            self.w13_weight.data[expert_id].narrow(1, offset, shard).copy_(src)
        elif name == "down_proj":
            src = loaded.narrow(1, tp.rank * shard, shard).t()
            self.w2_weight.data[expert_id].copy_(src)
        else:
            raise KeyError(name)


class DeepseekMoE(nn.Module):
    """Router + routed experts + shared experts, with optional stream overlap.

    With ``multistream_overlap_shared_expert`` the shared experts run on the
    ``moe_shared`` stream while the routed experts run on the main stream; the
    gate-up matmul of the shared experts waits for the router output so that
    the two streams start together.
    """

    def __init__(self, config: DeepseekMoEConfig, graph_opts: AscendGraphOptions, prefix: str = ""):
        super().__init__()
        self.tp_size = get_tp_group().world_size
        self.routed_scaling_factor = config.routed_scaling_factor
        self.gate = MoEGate(config, prefix=prefix + ".gate")
        self.experts = FusedExperts(config, prefix=prefix + ".experts")
        if config.n_shared_experts:
            shared_size = config.moe_intermediate_size * config.n_shared_experts
            self.shared_experts = DeepseekMLP(config, shared_size, reduce_results=False,
                                              prefix=prefix + ".shared_experts")
        else:
            self.shared_experts = None
        self.multistream = graph_opts.multistream_overlap_shared_expert and graph_opts.enable_graph_mode
        self.enable_prefetch = graph_opts.enable_prefetch
        self.prefix = prefix

    def forward(self, hidden_states: torch.Tensor, attn_metadata: AttentionMetadata) -> torch.Tensor:
        num_tokens, hidden_size = hidden_states.shape
        topk_weights, topk_ids = self.gate(hidden_states)

        shared_output = None
        if self.shared_experts is not None:
            with npu_stream_switch(self.multistream, _SHARED_EXPERT_STREAM):  # unresolved
                shared_in = npu_wait_tensor(self.multistream, hidden_states, topk_weights)  # unresolved
                gate_up = self.shared_experts.gate_up_proj(shared_in)
                act = self.shared_experts.act_fn(gate_up)

        routed_output = self.experts(hidden_states, topk_weights, topk_ids)

        if self.shared_experts is not None:
            with npu_stream_switch(self.multistream, _SHARED_EXPERT_STREAM):  # unresolved
                act = npu_wait_tensor(self.multistream, act, routed_output)  # unresolved
                shared_output = self.shared_experts.down_proj(act)

        if shared_output is not None:
            routed_output = routed_output + shared_output
        if self.tp_size > 1:
            routed_output = tensor_model_parallel_all_reduce(routed_output)
        return routed_output.view(num_tokens, hidden_size)


# ---------------------------------------------------------------------------
# Multi-head latent attention
# ---------------------------------------------------------------------------


class KVCacheSpec:
    """Shapes of the compressed KV cache of one layer."""

    def __init__(self, num_blocks: int, block_size: int, kv_lora_rank: int, rope_dim: int):
        self.num_blocks = num_blocks
        self.block_size = block_size
        self.kv_lora_rank = kv_lora_rank
        self.rope_dim = rope_dim

    def allocate(self, dtype: torch.dtype, device: Any) -> Tuple[torch.Tensor, torch.Tensor]:
        nope = torch.zeros(self.num_blocks, self.block_size, 1, self.kv_lora_rank, dtype=dtype, device=device)
        rope = torch.zeros(self.num_blocks, self.block_size, 1, self.rope_dim, dtype=dtype, device=device)
        return nope, rope

    def __repr__(self) -> str:
        return "KVCacheSpec(blocks=%d, block_size=%d, lora=%d, rope=%d)" % (
            self.num_blocks, self.block_size, self.kv_lora_rank, self.rope_dim)


class DeepseekMLAAttention(nn.Module):
    """Multi-head latent attention with absorbed up-projections for decode."""

    def __init__(self, config: DeepseekMoEConfig, graph_opts: AscendGraphOptions,
                 layer_idx: int, prefix: str = ""):
        super().__init__()
        tp = get_tp_group()
        self.layer_idx = layer_idx
        self.hidden_size = config.hidden_size
        self.num_heads = _divide(config.num_attention_heads, tp.world_size)
        self.q_lora_rank = config.q_lora_rank
        self.kv_lora_rank = config.kv_lora_rank
        self.qk_nope_head_dim = config.qk_nope_head_dim
        self.qk_rope_head_dim = config.qk_rope_head_dim
        self.qk_head_dim = config.qk_head_dim
        self.v_head_dim = config.v_head_dim
        self.scaling = self.qk_head_dim ** -0.5
        if config.rope_scaling:
            mscale = yarn_get_mscale(float(config.rope_scaling.get("factor", 1.0)),
                                     float(config.rope_scaling.get("mscale_all_dim", 0)))
            self.scaling = self.scaling * mscale * mscale
        if self.q_lora_rank is not None:
            self.q_a_proj = ReplicatedLinear(self.hidden_size, self.q_lora_rank, prefix=prefix + ".q_a_proj")
            self.q_a_layernorm = RMSNorm(self.q_lora_rank, eps=config.rms_norm_eps)
            self.q_b_proj = ColumnParallelLinear(self.q_lora_rank, config.num_attention_heads * self.qk_head_dim,
                                                 prefix=prefix + ".q_b_proj")
        else:
            self.q_proj = ColumnParallelLinear(self.hidden_size, config.num_attention_heads * self.qk_head_dim,
                                               prefix=prefix + ".q_proj")
        self.kv_a_proj_with_mqa = ReplicatedLinear(self.hidden_size, self.kv_lora_rank + self.qk_rope_head_dim,
                                                   prefix=prefix + ".kv_a_proj_with_mqa")
        self.kv_a_layernorm = RMSNorm(self.kv_lora_rank, eps=config.rms_norm_eps)
        self.kv_b_proj = ColumnParallelLinear(self.kv_lora_rank,
                                              config.num_attention_heads * (self.qk_nope_head_dim + self.v_head_dim),
                                              prefix=prefix + ".kv_b_proj")
        self.o_proj = RowParallelLinear(config.num_attention_heads * self.v_head_dim, self.hidden_size,
                                        prefix=prefix + ".o_proj")
        self.rotary_emb = YarnRotaryEmbedding(self.qk_rope_head_dim, config.max_position_embeddings,
                                              config.rope_theta, config.rope_scaling, torch.bfloat16)
        self.enable_prefetch = graph_opts.enable_prefetch
        self.multistream = graph_opts.multistream_overlap_shared_expert and graph_opts.enable_graph_mode
        self.w_uk: Optional[torch.Tensor] = None
        self.w_uv: Optional[torch.Tensor] = None
        self.prefix = prefix

    def process_weights_after_loading(self) -> None:
        """Split kv_b_proj into the absorbed W_UK and W_UV used by decode."""
        w = self.kv_b_proj.weight.data.view(self.num_heads, self.qk_nope_head_dim + self.v_head_dim,
                                            self.kv_lora_rank)
        w_uk, w_uv = w.split([self.qk_nope_head_dim, self.v_head_dim], dim=1)
        self.w_uk = w_uk.contiguous()
        self.w_uv = w_uv.transpose(1, 2).contiguous()

    def _q_proj(self, hidden_states: torch.Tensor) -> torch.Tensor:
        if self.q_lora_rank is None:
            return self.q_proj(hidden_states)
        q_c = self.q_a_layernorm(self.q_a_proj(hidden_states))
        return self.q_b_proj(q_c)

    def _kv_cache_update(self, kv_no_split: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                         kv_cache: Tuple[torch.Tensor, torch.Tensor],
                         slots: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        num_tokens = kv_no_split.shape[0]
        kv = kv_no_split.view(num_tokens, 1, 1, -1)
        k_pe, k_nope, _, _ = torch_npu.npu_kv_rmsnorm_rope_cache(
            kv, self.kv_a_layernorm.weight, cos, sin, slots.to(torch.int64),
            kv_cache[1], kv_cache[0], epsilon=self.kv_a_layernorm.variance_epsilon,
            cache_mode="PA")
        return k_pe, k_nope

    def forward_decode(self, hidden_states: torch.Tensor, positions: torch.Tensor,
                       kv_cache: Tuple[torch.Tensor, torch.Tensor],
                       attn_metadata: AttentionMetadata) -> torch.Tensor:
        num_tokens = hidden_states.shape[0]
        kv_no_split = self.kv_a_proj_with_mqa(hidden_states)
        cos, sin = self.rotary_emb(positions)
        with npu_stream_switch(self.multistream, "mla_q"):  # unresolved
            npu_wait_tensor(self.multistream, hidden_states, kv_no_split)  # unresolved
            q = self._q_proj(hidden_states).view(num_tokens, self.num_heads, self.qk_head_dim)
            q_nope, q_pe = q.split([self.qk_nope_head_dim, self.qk_rope_head_dim], dim=-1)
            q_nope = torch.bmm(q_nope.transpose(0, 1), self.w_uk).transpose(0, 1)
        k_pe, k_nope = self._kv_cache_update(kv_no_split, cos, sin, kv_cache, attn_metadata.slot_mapping)
        q_pe = npu_wait_tensor(self.multistream, q_pe, k_pe)  # unresolved
        q_pe = apply_rotary(q_pe.unsqueeze(2), cos, sin).squeeze(2)
        attn_out, _ = torch_npu.npu_fused_infer_attention_score(
            q_nope.unsqueeze(1), kv_cache[0], kv_cache[0],
            query_rope=q_pe.unsqueeze(1), key_rope=kv_cache[1],
            num_heads=self.num_heads, num_key_value_heads=1, input_layout="BSND",
            scale=self.scaling, antiquant_mode=0, antiquant_scale=None,
            block_table=attn_metadata.block_tables, block_size=kv_cache[0].shape[1],
            actual_seq_lengths_kv=attn_metadata.seq_lens_list)
        attn_out = attn_out.view(num_tokens, self.num_heads, self.kv_lora_rank)
        out = torch.bmm(attn_out.transpose(0, 1), self.w_uv).transpose(0, 1)
        return self.o_proj(out.reshape(num_tokens, -1))

    def forward_prefill(self, hidden_states: torch.Tensor, positions: torch.Tensor,
                        kv_cache: Tuple[torch.Tensor, torch.Tensor],
                        attn_metadata: AttentionMetadata) -> torch.Tensor:
        num_tokens = hidden_states.shape[0]
        q = self._q_proj(hidden_states).view(num_tokens, self.num_heads, self.qk_head_dim)
        q_nope, q_pe = q.split([self.qk_nope_head_dim, self.qk_rope_head_dim], dim=-1)
        kv_no_split = self.kv_a_proj_with_mqa(hidden_states)
        cos, sin = self.rotary_emb(positions)
        k_pe, k_nope = self._kv_cache_update(kv_no_split, cos, sin, kv_cache, attn_metadata.slot_mapping)
        kv = self.kv_b_proj(k_nope.view(num_tokens, -1)).view(num_tokens, self.num_heads, -1)
        k_nope, v = kv.split([self.qk_nope_head_dim, self.v_head_dim], dim=-1)
        q_pe = apply_rotary(q_pe.unsqueeze(2), cos, sin).squeeze(2)
        k_pe = k_pe.view(num_tokens, 1, self.qk_rope_head_dim).expand(-1, self.num_heads, -1)
        query = torch.cat([q_nope, q_pe], dim=-1)
        key = torch.cat([k_nope, k_pe], dim=-1)
        mask = torch.triu(torch.ones(2048, 2048, dtype=torch.bool, device=query.device), diagonal=1)
        attn_out = torch_npu.npu_fusion_attention(
            query, key, v, self.num_heads, input_layout="TND", scale=self.scaling,
            atten_mask=mask, sparse_mode=3,
            actual_seq_qlen=attn_metadata.actual_seq_lengths_q,
            actual_seq_kvlen=attn_metadata.actual_seq_lengths_q)[0]
        return self.o_proj(attn_out.reshape(num_tokens, -1))

    def forward(self, positions: torch.Tensor, hidden_states: torch.Tensor,
                kv_cache: Tuple[torch.Tensor, torch.Tensor],
                attn_metadata: AttentionMetadata) -> torch.Tensor:
        if attn_metadata.is_prefill:
            return self.forward_prefill(hidden_states, positions, kv_cache, attn_metadata)
        return self.forward_decode(hidden_states, positions, kv_cache, attn_metadata)


# ---------------------------------------------------------------------------
# Decoder layer and model
# ---------------------------------------------------------------------------


class DeepseekDecoderLayer(nn.Module):
    """One transformer block; MoE from ``first_k_dense_replace`` on."""

    def __init__(self, config: DeepseekMoEConfig, graph_opts: AscendGraphOptions,
                 layer_idx: int, prefix: str = ""):
        super().__init__()
        self.layer_idx = layer_idx
        self.hidden_size = config.hidden_size
        self.self_attn = DeepseekMLAAttention(config, graph_opts, layer_idx, prefix=prefix + ".self_attn")
        if config.is_moe_layer(layer_idx):
            self.mlp = DeepseekMoE(config, graph_opts, prefix=prefix + ".mlp")
            self.is_moe = True
        else:
            self.mlp = DeepseekMLP(config, config.intermediate_size, prefix=prefix + ".mlp")
            self.is_moe = False
        self.input_layernorm = RMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.enable_super_kernel = graph_opts.enable_super_kernel
        self.limit_aicore = graph_opts.limit_aicore
        self.sk_prefix = "layer_%d" % layer_idx
        self.prefix = prefix

    def forward(self, positions: torch.Tensor, hidden_states: torch.Tensor,
                residual: Optional[torch.Tensor], kv_cache: Tuple[torch.Tensor, torch.Tensor],
                attn_metadata: AttentionMetadata) -> Tuple[torch.Tensor, torch.Tensor]:
        if residual is None:
            residual = hidden_states
            hidden_states = self.input_layernorm(hidden_states)
        else:
            hidden_states, residual = self.input_layernorm(hidden_states, residual)

        with super_kernel(self.sk_prefix + "_attn", _ATTN_SK_OPTIONS,  # unresolved
                          enabled=self.enable_super_kernel and not attn_metadata.is_prefill):
            hidden_states = self.self_attn(positions, hidden_states, kv_cache, attn_metadata)

        hidden_states, residual = self.post_attention_layernorm(hidden_states, residual)
        if not self.is_moe:
            return self.mlp(hidden_states), residual

        use_sk = self.enable_super_kernel and not attn_metadata.is_prefill
        with (tng.scope.super_kernel(self.sk_prefix + "_moe", _MOE_SK_OPTIONS)  # resolved
              if use_sk else nullcontext()):
            with limit_core_num(self.limit_aicore):  # unresolved
                hidden_states = self.mlp(hidden_states, attn_metadata)
        return hidden_states, residual


class DeepseekModel(nn.Module):
    """Embedding, decoder layers, final norm."""

    def __init__(self, config: DeepseekMoEConfig, graph_opts: AscendGraphOptions, prefix: str = "model"):
        super().__init__()
        self.config = config
        self.embed_tokens = VocabParallelEmbedding(config.vocab_size, config.hidden_size,
                                                   prefix=prefix + ".embed_tokens")
        self.layers = nn.ModuleList([
            DeepseekDecoderLayer(config, graph_opts, i, prefix="%s.layers.%d" % (prefix, i))
            for i in range(config.num_hidden_layers)
        ])
        self.norm = RMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.enable_prefetch = graph_opts.enable_prefetch

    def forward(self, input_ids: torch.Tensor, positions: torch.Tensor,
                kv_caches: List[Tuple[torch.Tensor, torch.Tensor]],
                attn_metadata: AttentionMetadata) -> torch.Tensor:
        hidden_states = self.embed_tokens(input_ids)
        residual = None
        for i, layer in enumerate(self.layers):
            if self.enable_prefetch and i + 1 < len(self.layers):
                nxt = self.layers[i + 1].self_attn
                npu_prefetch(True, nxt.kv_a_proj_with_mqa.weight, hidden_states, 18 * 1024 * 1024)
            hidden_states, residual = layer(positions, hidden_states, residual, kv_caches[i], attn_metadata)
        hidden_states, _ = self.norm(hidden_states, residual)
        return hidden_states


class DeepseekForCausalLM(nn.Module):
    """The language-model head on top of ``DeepseekModel``."""

    def __init__(self, config: DeepseekMoEConfig, graph_opts: Optional[AscendGraphOptions] = None):
        super().__init__()
        self.config = config
        self.graph_opts = graph_opts or AscendGraphOptions()
        self.model = DeepseekModel(config, self.graph_opts)
        self.lm_head = ParallelLMHead(config.vocab_size, config.hidden_size, prefix="lm_head")
        if config.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight
        self.cached_decode = None
        if self.graph_opts.enable_graph_mode and self.graph_opts.enable_cache_compile and _HAS_TORCHAIR:
            self.cached_decode = tng.inference.cache_compile(  # resolved
                self._decode, config=build_compiler_config(self.graph_opts),
                dynamic=False, cache_dir=self.graph_opts.cache_dir,
                global_rank=get_tp_group().rank, tp_rank=get_tp_group().rank, pp_rank=0)

    def forward(self, input_ids: torch.Tensor, positions: torch.Tensor,
                kv_caches: List[Tuple[torch.Tensor, torch.Tensor]],
                attn_metadata: AttentionMetadata) -> torch.Tensor:
        if not attn_metadata.is_prefill and self.cached_decode is not None:
            return self.cached_decode(input_ids, positions, kv_caches, attn_metadata)
        return self._decode(input_ids, positions, kv_caches, attn_metadata)

    def _decode(self, input_ids: torch.Tensor, positions: torch.Tensor,
                kv_caches: List[Tuple[torch.Tensor, torch.Tensor]],
                attn_metadata: AttentionMetadata) -> torch.Tensor:
        hidden_states = self.model(input_ids, positions, kv_caches, attn_metadata)
        return self.compute_logits(hidden_states)

    def compute_logits(self, hidden_states: torch.Tensor) -> torch.Tensor:
        return self.lm_head(hidden_states).float()

    # -- weights ------------------------------------------------------------

    def load_weights(self, weights: Iterable[Tuple[str, torch.Tensor]]) -> List[str]:
        """Load HF-named tensors; returns the names that were not used."""
        params = dict(self.named_parameters())
        unused: List[str] = []
        stacked = [("gate_up_proj", "gate_proj", 0), ("gate_up_proj", "up_proj", 1)]
        for name, tensor in weights:
            if "rotary_emb.inv_freq" in name:
                continue
            if ".mlp.experts." in name and ".shared_experts." not in name:
                if not self._load_expert_weight(name, tensor):
                    unused.append(name)
                continue
            for param_name, shard_name, shard_id in stacked:
                if shard_name not in name:
                    continue
                target = name.replace(shard_name, param_name)
                if target not in params:
                    unused.append(name)
                    break
                module = self.get_submodule(target.rsplit(".", 1)[0])
                module.weight_loader(params[target], tensor, shard_id)
                break
            else:
                if name not in params:
                    unused.append(name)
                    continue
                module = self.get_submodule(name.rsplit(".", 1)[0]) if "." in name else self
                loader = getattr(module, "weight_loader", None)
                if loader is None:
                    params[name].data.copy_(tensor)
                else:
                    loader(params[name], tensor)
        for layer in self.model.layers:
            layer.self_attn.process_weights_after_loading()
        return unused

    def _load_expert_weight(self, name: str, tensor: torch.Tensor) -> bool:
        # model.layers.3.mlp.experts.17.gate_proj.weight
        parts = name.split(".")
        try:
            layer_idx = int(parts[2])
            expert_id = int(parts[5])
            proj = parts[6]
        except (IndexError, ValueError):
            return False
        layer = self.model.layers[layer_idx]
        if not layer.is_moe:
            return False
        layer.mlp.experts.load_expert(expert_id, proj, tensor)
        return True


# ---------------------------------------------------------------------------
# Graph compilation
# ---------------------------------------------------------------------------


def build_compiler_config(opts: AscendGraphOptions):
    """The TorchAir compiler config for the decode graph."""
    if CompilerConfig is None:
        return None
    compiler_config = CompilerConfig()  # resolved
    compiler_config.experimental_config.frozen_parameter = True  # resolved
    compiler_config.experimental_config.tiling_schedule_optimize = True  # resolved
    if opts.use_static_kernel:
        compiler_config.mode = "reduce-overhead"  # resolved
        compiler_config.experimental_config.aclgraph._aclnn_static_shape_kernel = True  # resolved
        compiler_config.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = (  # resolved
            opts.static_kernel_build_dir)
    else:
        compiler_config.mode = "max-autotune"  # resolved
    compiler_config.ge_config.enable_single_stream = opts.enable_single_stream  # resolved
    if opts.dump_graph:
        compiler_config.debug.graph_dump.type = opts.dump_graph  # resolved
    return compiler_config


class GraphRunner:
    """Compiles the decode step once per batch-size gear and replays it."""

    def __init__(self, model: DeepseekForCausalLM, opts: AscendGraphOptions):
        self.model = model
        self.opts = opts
        self.compiled: Optional[Callable[..., torch.Tensor]] = None
        self.kv_caches: List[Tuple[torch.Tensor, torch.Tensor]] = []
        self._warm = set()

    def allocate_kv_caches(self, spec: KVCacheSpec, dtype: torch.dtype, device: Any) -> None:
        self.kv_caches = [spec.allocate(dtype, device) for _ in range(len(self.model.model.layers))]
        for nope, rope in self.kv_caches:
            torch._dynamo.mark_static(nope)  # resolved
            torch._dynamo.mark_static(rope)  # resolved

    def compile(self) -> None:
        if not self.opts.enable_graph_mode or not _HAS_TORCHAIR:
            self.compiled = self.model._decode
            return
        if self.model.cached_decode is not None:
            self.compiled = self.model.cached_decode
            return
        backend = tng.get_npu_backend(compiler_config=build_compiler_config(self.opts))  # resolved
        self.compiled = torch.compile(self.model._decode, dynamic=False, fullgraph=True,  # resolved
                                      backend=backend)

    def pad_batch(self, batch_size: int) -> int:
        for gear in sorted(self.opts.graph_batch_sizes):
            if gear >= batch_size:
                return gear
        return batch_size

    def run(self, input_ids: torch.Tensor, positions: torch.Tensor,
            attn_metadata: AttentionMetadata) -> torch.Tensor:
        if self.compiled is None:
            self.compile()
        batch = input_ids.shape[0]
        padded = self.pad_batch(batch)
        if padded != batch:
            input_ids = F.pad(input_ids, (0, padded - batch))
            positions = F.pad(positions, (0, padded - batch))
        if padded not in self._warm:
            logger.info("first run of gear %d (compiles the graph)", padded)
            self._warm.add(padded)
        logits = self.compiled(input_ids, positions, self.kv_caches, attn_metadata)
        return logits[:batch]


# ---------------------------------------------------------------------------
# Sampling helpers
# ---------------------------------------------------------------------------


def apply_penalties(logits: torch.Tensor, output_tokens: torch.Tensor,
                    presence_penalty: torch.Tensor, frequency_penalty: torch.Tensor,
                    repetition_penalty: torch.Tensor) -> torch.Tensor:
    vocab = logits.shape[-1]
    counts = torch.zeros_like(logits, dtype=torch.int32)
    counts.scatter_add_(1, output_tokens.clamp(0, vocab - 1), torch.ones_like(output_tokens, dtype=torch.int32))
    mask = counts > 0
    rep = repetition_penalty.unsqueeze(1).expand_as(logits)
    logits = torch.where(mask & (logits > 0), logits / rep, logits)
    logits = torch.where(mask & (logits <= 0), logits * rep, logits)
    logits = logits - frequency_penalty.unsqueeze(1) * counts
    logits = logits - presence_penalty.unsqueeze(1) * mask
    return logits


def apply_top_k_top_p(logits: torch.Tensor, top_k: Optional[torch.Tensor],
                      top_p: Optional[torch.Tensor]) -> torch.Tensor:
    if top_k is None and top_p is None:
        return logits
    sorted_logits, sorted_idx = logits.sort(dim=-1, descending=False)
    if top_k is not None:
        kth = sorted_logits.size(1) - top_k.to(torch.long)
        kth_values = sorted_logits.gather(1, kth.unsqueeze(1))
        sorted_logits.masked_fill_(sorted_logits < kth_values, -float("inf"))
    if top_p is not None:
        probs = sorted_logits.softmax(dim=-1)
        cum = probs.cumsum(dim=-1)
        drop = cum <= 1 - top_p.unsqueeze(1)
        drop[:, -1] = False
        sorted_logits.masked_fill_(drop, -float("inf"))
    return torch.empty_like(sorted_logits).scatter_(1, sorted_idx, sorted_logits)


def greedy_or_sample(logits: torch.Tensor, temperature: torch.Tensor,
                     generator: Optional[torch.Generator] = None) -> torch.Tensor:
    greedy = logits.argmax(dim=-1)
    if bool((temperature == 0).all()):
        return greedy
    probs = (logits / temperature.clamp(min=1e-5).unsqueeze(1)).softmax(dim=-1)
    q = torch.empty_like(probs).exponential_(generator=generator)
    sampled = probs.div(q).argmax(dim=-1)
    return torch.where(temperature == 0, greedy, sampled)


class Sampler(nn.Module):
    """Penalties, temperature, top-k/top-p, then sampling."""

    def forward(self, logits: torch.Tensor, output_tokens: torch.Tensor,
                params: Dict[str, torch.Tensor]) -> torch.Tensor:
        logits = apply_penalties(logits, output_tokens, params["presence"], params["frequency"],
                                 params["repetition"])
        logits = apply_top_k_top_p(logits, params.get("top_k"), params.get("top_p"))
        return greedy_or_sample(logits, params["temperature"])


# ---------------------------------------------------------------------------
# Scheduler-side bookkeeping
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class Request:
    request_id: str
    prompt_token_ids: List[int]
    max_tokens: int = 128
    temperature: float = 0.0
    output_token_ids: List[int] = dataclasses.field(default_factory=list)
    block_ids: List[int] = dataclasses.field(default_factory=list)

    @property
    def num_tokens(self) -> int:
        return len(self.prompt_token_ids) + len(self.output_token_ids)

    @property
    def finished(self) -> bool:
        return len(self.output_token_ids) >= self.max_tokens


class BlockAllocator:
    """Hands out KV-cache blocks and takes them back."""

    def __init__(self, num_blocks: int, block_size: int):
        self.block_size = block_size
        self.free = list(range(num_blocks - 1, -1, -1))

    def blocks_needed(self, num_tokens: int) -> int:
        return (num_tokens + self.block_size - 1) // self.block_size

    def allocate(self, req: Request) -> bool:
        need = self.blocks_needed(req.num_tokens + 1) - len(req.block_ids)
        if need > len(self.free):
            return False
        for _ in range(max(need, 0)):
            req.block_ids.append(self.free.pop())
        return True

    def release(self, req: Request) -> None:
        self.free.extend(reversed(req.block_ids))
        req.block_ids.clear()


def build_metadata(requests: Sequence[Request], block_size: int, max_blocks: int,
                   device: Any, is_prefill: bool) -> AttentionMetadata:
    seq_lens = [r.num_tokens for r in requests]
    tables = torch.zeros(len(requests), max_blocks, dtype=torch.int32)
    slots: List[int] = []
    for i, r in enumerate(requests):
        tables[i, :len(r.block_ids)] = torch.tensor(r.block_ids, dtype=torch.int32)
        if is_prefill:
            for pos in range(r.num_tokens):
                slots.append(r.block_ids[pos // block_size] * block_size + pos % block_size)
        else:
            pos = r.num_tokens - 1
            slots.append(r.block_ids[pos // block_size] * block_size + pos % block_size)
    q_lens = None
    if is_prefill:
        q_lens = list(itertools_accumulate(seq_lens))
    return AttentionMetadata(
        is_prefill=is_prefill, num_tokens=len(slots),
        seq_lens=torch.tensor(seq_lens, dtype=torch.int32, device=device),
        seq_lens_list=seq_lens, block_tables=tables.to(device),
        slot_mapping=torch.tensor(slots, dtype=torch.int32, device=device),
        max_seq_len=max(seq_lens) if seq_lens else 0, actual_seq_lengths_q=q_lens)


def itertools_accumulate(values: Iterable[int]) -> List[int]:
    total = 0
    out = []
    for v in values:
        total += v
        out.append(total)
    return out


class Engine:
    """A tiny continuous-batching loop around ``GraphRunner``."""

    def __init__(self, config: DeepseekMoEConfig, opts: AscendGraphOptions, num_blocks: int = 256,
                 block_size: int = 128, device: Any = "npu"):
        self.config = config
        self.opts = opts
        self.device = device
        self.block_size = block_size
        self.max_blocks = config.max_position_embeddings // block_size
        self.model = DeepseekForCausalLM(config, opts).to(device)
        self.runner = GraphRunner(self.model, opts)
        self.runner.allocate_kv_caches(
            KVCacheSpec(num_blocks, block_size, config.kv_lora_rank, config.qk_rope_head_dim),
            torch.bfloat16, device)
        self.allocator = BlockAllocator(num_blocks, block_size)
        self.sampler = Sampler()
        self.waiting: List[Request] = []
        self.running: List[Request] = []

    def add_request(self, req: Request) -> None:
        self.waiting.append(req)

    def _schedule_prefill(self) -> List[Request]:
        batch = []
        while self.waiting and self.allocator.allocate(self.waiting[0]):
            batch.append(self.waiting.pop(0))
        return batch

    def _prefill(self, batch: List[Request]) -> None:
        meta = build_metadata(batch, self.block_size, self.max_blocks, self.device, True)
        ids = torch.tensor([t for r in batch for t in r.prompt_token_ids], device=self.device)
        pos = torch.tensor([p for r in batch for p in range(len(r.prompt_token_ids))], device=self.device)
        logits = self.model(ids, pos, self.runner.kv_caches, meta)
        ends = torch.tensor(itertools_accumulate(len(r.prompt_token_ids) for r in batch), device=self.device) - 1
        self._append(batch, logits.index_select(0, ends))
        self.running.extend(batch)

    def _decode(self) -> None:
        batch = [r for r in self.running if self.allocator.allocate(r)]
        if not batch:
            return
        meta = build_metadata(batch, self.block_size, self.max_blocks, self.device, False)
        ids = torch.tensor([r.output_token_ids[-1] for r in batch], device=self.device)
        pos = torch.tensor([r.num_tokens - 1 for r in batch], device=self.device)
        logits = self.runner.run(ids, pos, meta)
        self._append(batch, logits)

    def _append(self, batch: List[Request], logits: torch.Tensor) -> None:
        temps = torch.tensor([r.temperature for r in batch], device=logits.device)
        outputs = torch.nn.utils.rnn.pad_sequence(
            [torch.tensor(r.output_token_ids or [0], device=logits.device) for r in batch], batch_first=True)
        zeros = torch.zeros(len(batch), device=logits.device)
        params = {"presence": zeros, "frequency": zeros, "repetition": zeros + 1, "temperature": temps}
        tokens = self.sampler(logits, outputs, params).tolist()
        for req, tok in zip(batch, tokens):
            req.output_token_ids.append(int(tok))

    def step(self) -> List[Request]:
        new = self._schedule_prefill()
        if new:
            self._prefill(new)
        else:
            self._decode()
        done = [r for r in self.running if r.finished]
        for r in done:
            self.allocator.release(r)
            self.running.remove(r)
        return done


# ---------------------------------------------------------------------------
# Entry point for a smoke run
# ---------------------------------------------------------------------------


def _random_weights(model: nn.Module, seed: int = 0) -> None:
    gen = torch.Generator().manual_seed(seed)
    for name, param in model.named_parameters():
        if param.dim() == 1:
            param.data.fill_(1.0)
        else:
            param.data.copy_(torch.randn(param.shape, generator=gen) * 0.02)


def main() -> None:
    logging.basicConfig(level=logging.INFO)
    config = DeepseekMoEConfig.tiny()
    opts = AscendGraphOptions.from_env()
    engine = Engine(config, opts, num_blocks=64, block_size=16)
    _random_weights(engine.model)
    for layer in engine.model.model.layers:
        layer.self_attn.process_weights_after_loading()
    for i in range(4):
        engine.add_request(Request("req-%d" % i, list(range(1, 9 + i)), max_tokens=8))
    finished: List[Request] = []
    while len(finished) < 4:
        finished.extend(engine.step())
    for req in finished:
        logger.info("%s -> %s", req.request_id, req.output_token_ids)


if __name__ == "__main__":
    main()
