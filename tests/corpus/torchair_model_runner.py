# tngc test corpus: torchair_model_runner.py
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
# Marker counts: 28 resolved, 6 unresolved.
# Lines of the unresolved calls:
#   170 171 177 603 605 621

"""Graph-mode model runner: builds the TorchAir compiler config from user
options, compiles (or cache-compiles) the decode step once per padded batch
size, pads inputs to the captured sizes, and runs a multi-token-prediction
(MTP) draft head next to the main model.

The runner is model-agnostic: any ``nn.Module`` whose ``forward`` takes
``(input_ids, positions, kv_caches, attn_metadata)`` works.  A tiny dense
model at the bottom of the file is used by the self-test.
"""

import copy
import dataclasses
import enum
import hashlib
import logging
import os
import shutil
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu

try:
    import torchair
    from torchair.configs.compiler_config import CompilerConfig
    from torchair.inference import set_dim_gears
    from torchair.scope import npu_stream_switch as graph_stream_switch
    from torchair.scope import npu_wait_tensor as graph_wait_tensor
except ImportError:  # allow importing the runner on hosts without torchair
    torchair = None
    CompilerConfig = None
    set_dim_gears = None
    graph_stream_switch = None
    graph_wait_tensor = None

logger = logging.getLogger("graph_runner")

KV_CACHE_FORMAT_ND = 2
KV_CACHE_FORMAT_NZ = 29
MTP_STREAM = "mtp"
SAMPLER_SK_NAME = "sampler"
_VALID_MODES = ("max-autotune", "reduce-overhead")


# ---------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------


class ExecMode(enum.Enum):
    EAGER = 0
    GRAPH = 1
    CACHED_GRAPH = 2


@dataclasses.dataclass
class TorchairGraphOptions:
    """User-facing graph options (from the serving config's ``torchair`` section)."""

    enabled: bool = True
    mode: str = "max-autotune"
    use_cached_graph: bool = False
    graph_batch_sizes: List[int] = dataclasses.field(default_factory=lambda: [1, 4, 8, 16, 32])
    graph_batch_sizes_init: bool = False
    enable_multistream_mtp: bool = False
    enable_kv_nz: bool = False
    enable_super_kernel: bool = False
    enable_frozen_parameter: bool = True
    enable_tiling_schedule: bool = True
    enable_view_optimize: bool = True
    use_static_kernel: bool = False
    static_kernel_dir: Optional[str] = None
    gears_merge_policy: str = "zip"
    dump_type: Optional[str] = None
    cache_root: str = ".torchair_cache"
    extra_ge_options: Dict[str, str] = dataclasses.field(default_factory=dict)

    @classmethod
    def from_dict(cls, raw: Optional[Dict[str, Any]]) -> "TorchairGraphOptions":
        raw = dict(raw or {})
        unknown = sorted(set(raw) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError("unknown torchair options: %s" % ", ".join(unknown))
        opts = cls(**raw)
        opts.check()
        return opts

    def check(self) -> None:
        if self.mode not in _VALID_MODES:
            raise ValueError("mode must be one of %s, got %r" % (_VALID_MODES, self.mode))
        if any(b <= 0 for b in self.graph_batch_sizes):
            raise ValueError("graph batch sizes must be positive: %s" % self.graph_batch_sizes)
        if self.use_static_kernel and self.mode != "reduce-overhead":
            raise ValueError("static kernels need mode='reduce-overhead'")
        if self.static_kernel_dir and ".." in self.static_kernel_dir.split(os.sep):
            raise ValueError("static_kernel_dir must not contain '..'")
        if self.gears_merge_policy not in ("zip", "product"):
            raise ValueError("gears_merge_policy must be 'zip' or 'product'")
        self.graph_batch_sizes = sorted(set(self.graph_batch_sizes))

    @property
    def exec_mode(self) -> ExecMode:
        if not self.enabled:
            return ExecMode.EAGER
        return ExecMode.CACHED_GRAPH if self.use_cached_graph else ExecMode.GRAPH


@dataclasses.dataclass
class CompileOptions:
    """Arguments of one ``torch.compile`` call (kept separate for logging)."""

    mode: Optional[str] = None
    dynamic: bool = False
    fullgraph: bool = True

    def as_kwargs(self) -> Dict[str, Any]:
        out = {"dynamic": self.dynamic, "fullgraph": self.fullgraph}
        if self.mode is not None:
            out["mode"] = self.mode
        return out


# ---------------------------------------------------------------------------
# Stream helpers for the eager KV-transfer path (not graph scopes)
# ---------------------------------------------------------------------------


def npu_stream_switch(stream: "torch.npu.Stream"):
    """Eager-mode stream switch used by the KV transfer; wraps torch.npu.stream."""
    return torch.npu.stream(stream)


def npu_wait_tensor(tensor: torch.Tensor, stream: "torch.npu.Stream") -> torch.Tensor:
    """Eager-mode: make the current stream wait for ``stream`` before using ``tensor``."""
    torch.npu.current_stream().wait_stream(stream)
    tensor.record_stream(torch.npu.current_stream())
    return tensor


class KVTransfer:
    """Copies finished prefill KV blocks to host memory on a side stream."""

    def __init__(self, num_layers: int, block_shape: Tuple[int, ...], max_blocks: int):
        self.stream = torch.npu.Stream()
        self.host = [torch.empty((max_blocks,) + tuple(block_shape), dtype=torch.bfloat16, pin_memory=True)
                     for _ in range(num_layers)]
        self.pending: List[Tuple[int, List[int]]] = []

    def offload(self, layer: int, cache: torch.Tensor, blocks: List[int]) -> None:
        idx = torch.tensor(blocks, device=cache.device)
        with npu_stream_switch(self.stream):  # unresolved
            src = npu_wait_tensor(cache, torch.npu.current_stream())  # unresolved
            self.host[layer][:len(blocks)].copy_(src.index_select(0, idx), non_blocking=True)
        self.pending.append((layer, blocks))

    def restore(self, layer: int, cache: torch.Tensor, blocks: List[int]) -> None:
        idx = torch.tensor(blocks, device=cache.device)
        with npu_stream_switch(self.stream):  # unresolved
            dev = self.host[layer][:len(blocks)].to(cache.device, non_blocking=True)
            cache.index_copy_(0, idx, dev)
        torch.npu.current_stream().wait_stream(self.stream)

    def drain(self) -> int:
        self.stream.synchronize()
        n = len(self.pending)
        self.pending.clear()
        return n


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class AttnMetadata:
    num_actual_tokens: int
    is_decode: bool
    seq_lens: torch.Tensor
    block_table: torch.Tensor
    slot_mapping: torch.Tensor
    query_start_loc: Optional[torch.Tensor] = None
    graph_pad_size: int = 0

    def to(self, device: Any) -> "AttnMetadata":
        out = copy.copy(self)
        out.seq_lens = self.seq_lens.to(device)
        out.block_table = self.block_table.to(device)
        out.slot_mapping = self.slot_mapping.to(device)
        if self.query_start_loc is not None:
            out.query_start_loc = self.query_start_loc.to(device)
        return out


@dataclasses.dataclass
class StepInputs:
    input_ids: torch.Tensor
    positions: torch.Tensor
    attn_metadata: AttnMetadata
    num_reqs: int

    @property
    def num_tokens(self) -> int:
        return self.input_ids.shape[0]


class InputPadder:
    """Pads decode inputs to the next captured batch size."""

    def __init__(self, batch_sizes: Sequence[int], max_blocks: int, pad_slot: int = -1):
        self.batch_sizes = sorted(batch_sizes)
        self.max_blocks = max_blocks
        self.pad_slot = pad_slot

    def padded_size(self, n: int) -> Optional[int]:
        for b in self.batch_sizes:
            if b >= n:
                return b
        return None

    def pad(self, inputs: StepInputs) -> StepInputs:
        n = inputs.num_tokens
        target = self.padded_size(n)
        if target is None or target == n:
            return inputs
        pad = target - n
        md = inputs.attn_metadata
        new_md = dataclasses.replace(
            md,
            seq_lens=F.pad(md.seq_lens, (0, pad), value=1),
            block_table=F.pad(md.block_table, (0, 0, 0, pad)),
            slot_mapping=F.pad(md.slot_mapping, (0, pad), value=self.pad_slot),
            graph_pad_size=pad)
        return StepInputs(
            input_ids=F.pad(inputs.input_ids, (0, pad)),
            positions=F.pad(inputs.positions, (0, pad)),
            attn_metadata=new_md,
            num_reqs=inputs.num_reqs)


def build_decode_inputs(token_ids: Sequence[int], seq_lens: Sequence[int],
                        block_tables: Sequence[Sequence[int]], block_size: int,
                        max_blocks: int, device: Any) -> StepInputs:
    n = len(token_ids)
    table = np.zeros((n, max_blocks), dtype=np.int32)
    slots = np.zeros(n, dtype=np.int32)
    for i, (blocks, length) in enumerate(zip(block_tables, seq_lens)):
        table[i, :len(blocks)] = blocks
        pos = length - 1
        slots[i] = blocks[pos // block_size] * block_size + pos % block_size
    md = AttnMetadata(
        num_actual_tokens=n, is_decode=True,
        seq_lens=torch.tensor(list(seq_lens), dtype=torch.int32),
        block_table=torch.from_numpy(table),
        slot_mapping=torch.from_numpy(slots))
    return StepInputs(
        input_ids=torch.tensor(list(token_ids), dtype=torch.int64, device=device),
        positions=torch.tensor([s - 1 for s in seq_lens], dtype=torch.int64, device=device),
        attn_metadata=md.to(device), num_reqs=n)


# ---------------------------------------------------------------------------
# Choosing the batch sizes to capture
# ---------------------------------------------------------------------------


def default_graph_batch_sizes(max_num_seqs: int, tp_size: int = 1, num_spec_tokens: int = 0,
                              limit: int = 32) -> List[int]:
    """Powers of two up to 8, then multiples of 8, up to ``max_num_seqs``.

    With speculative decoding every request carries ``1 + num_spec_tokens``
    tokens; with tensor parallelism the padded size must divide evenly.
    """
    tokens_per_req = 1 + num_spec_tokens
    sizes: List[int] = []
    b = 1
    while b <= min(8, max_num_seqs):
        sizes.append(b * tokens_per_req)
        b *= 2
    b = 16
    while b <= max_num_seqs:
        sizes.append(b * tokens_per_req)
        b += 8
    if max_num_seqs * tokens_per_req not in sizes:
        sizes.append(max_num_seqs * tokens_per_req)
    sizes = sorted({_align(s, tp_size) for s in sizes})
    if len(sizes) > limit:
        step = len(sizes) / float(limit)
        sizes = sorted({sizes[min(int(i * step), len(sizes) - 1)] for i in range(limit)} | {sizes[-1]})
    return sizes


def _align(n: int, multiple: int) -> int:
    return ((n + multiple - 1) // multiple) * multiple


def check_batch_sizes(sizes: Sequence[int], max_num_seqs: int, tp_size: int) -> List[str]:
    """Problems with a user-given list of graph batch sizes (empty when fine)."""
    problems = []
    if not sizes:
        problems.append("no graph batch sizes")
    for s in sizes:
        if s % tp_size:
            problems.append("batch size %d is not a multiple of tp_size %d" % (s, tp_size))
    if sizes and max(sizes) < max_num_seqs:
        problems.append("largest graph batch size %d < max_num_seqs %d; larger batches run eagerly"
                        % (max(sizes), max_num_seqs))
    if len(set(sizes)) != len(sizes):
        problems.append("duplicate graph batch sizes")
    return problems


# ---------------------------------------------------------------------------
# Compile cache directory management
# ---------------------------------------------------------------------------


class CacheDirLock:
    """An exclusive lock file inside a compile cache directory."""

    def __init__(self, path: str, timeout_s: float = 600.0, poll_s: float = 0.5):
        self.path = os.path.join(path, ".lock")
        self.timeout_s = timeout_s
        self.poll_s = poll_s
        self.fd: Optional[int] = None

    def __enter__(self) -> "CacheDirLock":
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                self.fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
                os.write(self.fd, str(os.getpid()).encode("ascii"))
                return self
            except FileExistsError:
                if time.monotonic() > deadline:
                    raise TimeoutError("cache dir locked: %s" % self.path)
                time.sleep(self.poll_s)

    def __exit__(self, *exc: Any) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def check_cache_dir_owner(path: str) -> None:
    """Refuse a cache directory that another user owns (it could hold hostile code)."""
    if not os.path.exists(path):
        return
    st = os.stat(path)
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise PermissionError("cache dir %s belongs to uid %d" % (path, st.st_uid))


def prune_cache(root: str, keep: int = 4) -> List[str]:
    """Remove all but the ``keep`` most recently used model caches under ``root``."""
    if not os.path.isdir(root):
        return []
    entries = [os.path.join(root, e) for e in os.listdir(root)]
    entries = [e for e in entries if os.path.isdir(e)]
    entries.sort(key=lambda e: os.stat(e).st_mtime, reverse=True)
    removed = []
    for e in entries[keep:]:
        shutil.rmtree(e, ignore_errors=True)
        removed.append(e)
    return removed


# ---------------------------------------------------------------------------
# Compiler config
# ---------------------------------------------------------------------------


def _rank_cache_dir(root: str, model_name: str, rank: int, batch_size: int) -> str:
    digest = hashlib.sha256(model_name.encode("utf-8")).hexdigest()[:12]
    return os.path.join(root, "%s_%s" % (os.path.basename(model_name), digest), "rank_%d" % rank, "bs_%d" % batch_size)


def build_torchair_config(opts: TorchairGraphOptions):
    """Translate the user options into a TorchAir ``CompilerConfig``."""
    if CompilerConfig is None:
        raise RuntimeError("torchair is not installed")
    torchair_config = CompilerConfig()  # resolved
    torchair_config.mode = opts.mode  # resolved
    torchair_config.experimental_config.frozen_parameter = opts.enable_frozen_parameter  # resolved
    torchair_config.experimental_config.tiling_schedule_optimize = opts.enable_tiling_schedule  # resolved
    torchair_config.experimental_config.enable_view_optimize = opts.enable_view_optimize  # resolved
    torchair_config.inference_config.dynamic_gears_merge_policy = opts.gears_merge_policy  # resolved
    if opts.use_static_kernel:
        torchair_config.experimental_config.aclgraph._aclnn_static_shape_kernel = True  # resolved
        if opts.static_kernel_dir:
            torchair_config.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = opts.static_kernel_dir  # resolved
    if opts.dump_type:
        torchair_config.debug.graph_dump.type = opts.dump_type  # resolved
    if opts.enable_multistream_mtp:
        torchair_config.ge_config.enable_single_stream = False  # resolved
    for key, value in sorted(opts.extra_ge_options.items()):
        setattr(torchair_config.ge_config, key, value)
    return torchair_config


def describe_config(opts: TorchairGraphOptions) -> str:
    fields = dataclasses.asdict(opts)
    return ", ".join("%s=%r" % (k, fields[k]) for k in sorted(fields))


# ---------------------------------------------------------------------------
# Sampling (compiled on its own)
# ---------------------------------------------------------------------------


@torch.compile(dynamic=False, fullgraph=True)  # resolved
def _topk_topp_mask(logits: torch.Tensor, top_k: torch.Tensor, top_p: torch.Tensor) -> torch.Tensor:
    sorted_logits, idx = logits.sort(dim=-1, descending=False)
    cutoff = sorted_logits.size(-1) - top_k.long()
    kth = sorted_logits.gather(-1, cutoff.clamp(min=0).unsqueeze(-1))
    sorted_logits = sorted_logits.masked_fill(sorted_logits < kth, float("-inf"))
    probs = sorted_logits.softmax(dim=-1)
    drop = probs.cumsum(dim=-1) <= (1 - top_p).unsqueeze(-1)
    drop[..., -1] = False
    sorted_logits = sorted_logits.masked_fill(drop, float("-inf"))
    return torch.empty_like(sorted_logits).scatter_(-1, idx, sorted_logits)


@torch.compile  # resolved
def _gumbel_sample(probs: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
    return probs.div(noise).argmax(dim=-1)


class GraphSampler(nn.Module):
    """Temperature + top-k/top-p + sampling; fused into one super kernel in graph mode."""

    def __init__(self, use_super_kernel: bool):
        super().__init__()
        self.use_super_kernel = use_super_kernel and torchair is not None

    def forward(self, logits: torch.Tensor, temperature: torch.Tensor, top_k: torch.Tensor,
                top_p: torch.Tensor) -> torch.Tensor:
        if self.use_super_kernel:
            with torchair.scope.super_kernel(SAMPLER_SK_NAME, "stream-fusion=0"):  # resolved
                return self._sample(logits, temperature, top_k, top_p)
        return self._sample(logits, temperature, top_k, top_p)

    def _sample(self, logits: torch.Tensor, temperature: torch.Tensor, top_k: torch.Tensor,
                top_p: torch.Tensor) -> torch.Tensor:
        greedy = logits.argmax(dim=-1)
        scaled = logits / temperature.clamp(min=1e-5).unsqueeze(-1)
        masked = _topk_topp_mask(scaled, top_k, top_p)
        probs = masked.softmax(dim=-1)
        noise = torch.empty_like(probs).exponential_()
        sampled = _gumbel_sample(probs, noise)
        return torch.where(temperature == 0, greedy, sampled)


# ---------------------------------------------------------------------------
# MTP draft head
# ---------------------------------------------------------------------------


class MTPHead(nn.Module):
    """One extra transformer-free prediction layer that drafts the next token.

    In graph mode it runs on the ``mtp`` stream, overlapping the main model's
    logits computation; its first matmul waits for the main hidden states.
    """

    def __init__(self, hidden_size: int, vocab_size: int, multistream: bool):
        super().__init__()
        self.enorm = nn.LayerNorm(hidden_size)
        self.hnorm = nn.LayerNorm(hidden_size)
        self.eh_proj = nn.Linear(2 * hidden_size, hidden_size, bias=False)
        self.head = nn.Linear(hidden_size, vocab_size, bias=False)
        self.multistream = multistream and graph_stream_switch is not None

    def forward(self, embeds: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
        if not self.multistream:
            return self._draft(embeds, hidden)
        with graph_stream_switch(MTP_STREAM):  # resolved
            graph_wait_tensor(embeds, hidden)  # resolved
            return self._draft(embeds, hidden)

    def _draft(self, embeds: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
        x = torch.cat([self.enorm(embeds), self.hnorm(hidden)], dim=-1)
        return self.head(self.eh_proj(x))


# ---------------------------------------------------------------------------
# The runner
# ---------------------------------------------------------------------------


class GraphModelRunner:
    """Owns the model, its KV caches, and one compiled callable per batch size."""

    def __init__(self, model: nn.Module, opts: TorchairGraphOptions, model_name: str,
                 rank: int = 0, device: Any = "npu"):
        self.model = model
        self.opts = opts
        self.model_name = model_name
        self.rank = rank
        self.device = device
        self.kv_caches: List[Tuple[torch.Tensor, torch.Tensor]] = []
        self.compiled: Dict[int, Callable[..., torch.Tensor]] = {}
        self.torchair_config = None
        if CompilerConfig is not None:
            self.torchair_config = CompilerConfig()  # resolved
        self.padder: Optional[InputPadder] = None
        self.sampler = GraphSampler(opts.enable_super_kernel)
        self.mtp: Optional[MTPHead] = None
        self.stats: Dict[str, float] = {"compile_s": 0.0, "steps": 0}
        self._backend = None

    # -- configuration -------------------------------------------------------

    def configure(self) -> None:
        """Fill ``self.torchair_config`` from the options."""
        if self.torchair_config is None:
            return
        self.torchair_config.mode = self.opts.mode  # resolved
        self.torchair_config.experimental_config.frozen_parameter = self.opts.enable_frozen_parameter  # resolved
        if self.opts.use_static_kernel:
            self.torchair_config.experimental_config.aclgraph._aclnn_static_shape_kernel = True  # resolved
        self.torchair_config.inference_config.dynamic_gears_merge_policy = self.opts.gears_merge_policy  # resolved

    def enable_debug_dump(self, kind: str = "txt") -> None:
        if self.torchair_config is not None:
            self.torchair_config.debug.graph_dump.type = kind  # resolved

    def get_npu_backend(self):
        """Cached TorchAir backend built from ``self.torchair_config``."""
        if self._backend is None:
            self.configure()
            self._backend = torchair.get_npu_backend(compiler_config=self.torchair_config)  # resolved
        return self._backend

    def cache_compile(self, fn: Callable[..., torch.Tensor], batch_size: int) -> Callable[..., torch.Tensor]:
        """Cache-compile ``fn`` (a bound method of the model) for one batch size."""
        cache_dir = _rank_cache_dir(self.opts.cache_root, self.model_name, self.rank, batch_size)
        check_cache_dir_owner(self.opts.cache_root)
        with CacheDirLock(cache_dir):
            return torchair.inference.cache_compile(  # resolved
                fn, config=self.torchair_config, dynamic=False, cache_dir=cache_dir,
                global_rank=self.rank, ge_cache=True)

    def set_dim_gears(self, inputs: StepInputs) -> None:
        """Declare the batch gears on the dynamic inputs (GE dynamic-shape path)."""
        gears = {0: list(self.opts.graph_batch_sizes)}
        set_dim_gears(inputs.input_ids, gears)  # resolved
        set_dim_gears(inputs.positions, dim_gears=gears)  # resolved

    # -- KV caches -----------------------------------------------------------

    def allocate_kv_caches(self, num_layers: int, num_blocks: int, block_size: int,
                           num_kv_heads: int, head_dim: int, dtype: torch.dtype) -> None:
        shape = (num_blocks, block_size, num_kv_heads, head_dim)
        caches = []
        for _ in range(num_layers):
            k = torch.zeros(shape, dtype=dtype, device=self.device)
            v = torch.zeros(shape, dtype=dtype, device=self.device)
            if self.opts.enable_kv_nz:
                k = torch_npu.npu_format_cast(k, KV_CACHE_FORMAT_NZ)
                v = torch_npu.npu_format_cast(v, KV_CACHE_FORMAT_NZ)
            caches.append((k, v))
        self.kv_caches = caches
        self.padder = InputPadder(self.opts.graph_batch_sizes, max_blocks=num_blocks)
        self._mark_kv_static()

    def _mark_kv_static(self) -> None:
        for k, v in self.kv_caches:
            torch._dynamo.mark_static(k)  # resolved
            torch._dynamo.mark_static(v)  # resolved

    # -- compilation ---------------------------------------------------------

    def _compile_one(self, batch_size: int) -> Callable[..., torch.Tensor]:
        mode = self.opts.exec_mode
        if mode is ExecMode.EAGER:
            return self.model.forward
        if mode is ExecMode.CACHED_GRAPH:
            return self.cache_compile(self.model.forward, batch_size)  # unresolved
        compile_opts = CompileOptions(dynamic=False, fullgraph=True)
        backend = self.get_npu_backend()  # unresolved
        return torch.compile(self.model.forward, backend=backend,  # resolved
                             **compile_opts.as_kwargs())

    def capture_all(self) -> None:
        start = time.perf_counter()
        for bs in self.opts.graph_batch_sizes:
            self.compiled[bs] = self._compile_one(bs)
            self._warmup(bs)
        self.stats["compile_s"] = time.perf_counter() - start
        logger.info("captured %d batch sizes in %.1f s", len(self.compiled), self.stats["compile_s"])

    def _warmup(self, bs: int) -> None:
        inputs = build_decode_inputs([0] * bs, [1] * bs, [[0]] * bs, block_size=128,
                                     max_blocks=1, device=self.device)
        if self.opts.graph_batch_sizes_init and self.opts.exec_mode is ExecMode.GRAPH:
            self.set_dim_gears(inputs)  # unresolved
        with torch.inference_mode():
            self.compiled[bs](inputs.input_ids, inputs.positions, self.kv_caches, inputs.attn_metadata)

    def clear_cache(self) -> None:
        root = self.opts.cache_root
        if os.path.isdir(root):
            shutil.rmtree(root)
            logger.info("removed %s", root)

    # -- execution -----------------------------------------------------------

    def execute(self, inputs: StepInputs, sampling: Dict[str, torch.Tensor]) -> torch.Tensor:
        n = inputs.num_tokens
        if inputs.attn_metadata.is_decode and self.padder is not None:
            inputs = self.padder.pad(inputs)
        fn = self.compiled.get(inputs.num_tokens, self.model.forward)
        with torch.inference_mode():
            hidden = fn(inputs.input_ids, inputs.positions, self.kv_caches, inputs.attn_metadata)
            logits = self.model.compute_logits(hidden)[:n]
            tokens = self.sampler(logits, sampling["temperature"], sampling["top_k"], sampling["top_p"])
            if self.mtp is not None:
                embeds = self.model.embed(tokens)
                draft = self.mtp(embeds, hidden[:n]).argmax(dim=-1)
                tokens = torch.stack([tokens, draft], dim=-1)
        self.stats["steps"] += 1
        return tokens


# ---------------------------------------------------------------------------
# A small dense model for the self-test
# ---------------------------------------------------------------------------


class TinyAttention(nn.Module):
    def __init__(self, hidden: int, heads: int, kv_heads: int):
        super().__init__()
        self.heads = heads
        self.kv_heads = kv_heads
        self.head_dim = hidden // heads
        self.qkv = nn.Linear(hidden, (heads + 2 * kv_heads) * self.head_dim, bias=False)
        self.o = nn.Linear(heads * self.head_dim, hidden, bias=False)

    def forward(self, x: torch.Tensor, cache: Tuple[torch.Tensor, torch.Tensor], md: AttnMetadata) -> torch.Tensor:
        n = x.shape[0]
        q, k, v = self.qkv(x).split([self.heads * self.head_dim, self.kv_heads * self.head_dim,
                                    self.kv_heads * self.head_dim], dim=-1)
        q = q.view(n, self.heads, self.head_dim)
        k = k.view(n, self.kv_heads, self.head_dim)
        v = v.view(n, self.kv_heads, self.head_dim)
        torch_npu._npu_reshape_and_cache(key=k, value=v, key_cache=cache[0], value_cache=cache[1],
                                         slot_indices=md.slot_mapping)
        out = torch_npu.npu_fused_infer_attention_score(
            q.unsqueeze(1), cache[0], cache[1], num_heads=self.heads, num_key_value_heads=self.kv_heads,
            input_layout="BSND", scale=self.head_dim ** -0.5, block_table=md.block_table,
            block_size=cache[0].shape[1], actual_seq_lengths_kv=md.seq_lens)[0]
        return self.o(out.reshape(n, -1))


class TinyBlock(nn.Module):
    def __init__(self, hidden: int, heads: int, kv_heads: int, inter: int):
        super().__init__()
        self.ln1 = nn.LayerNorm(hidden)
        self.attn = TinyAttention(hidden, heads, kv_heads)
        self.ln2 = nn.LayerNorm(hidden)
        self.up = nn.Linear(hidden, 2 * inter, bias=False)
        self.down = nn.Linear(inter, hidden, bias=False)

    def forward(self, x: torch.Tensor, cache: Tuple[torch.Tensor, torch.Tensor], md: AttnMetadata) -> torch.Tensor:
        x = x + self.attn(self.ln1(x), cache, md)
        return x + self.down(torch_npu.npu_swiglu(self.up(self.ln2(x))))


class TinyDecoder(nn.Module):
    def __init__(self, vocab: int = 1000, hidden: int = 128, layers: int = 2, heads: int = 4,
                 kv_heads: int = 2, inter: int = 256):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.blocks = nn.ModuleList([TinyBlock(hidden, heads, kv_heads, inter) for _ in range(layers)])
        self.norm = nn.LayerNorm(hidden)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        self.num_layers = layers
        self.num_kv_heads = kv_heads
        self.head_dim = hidden // heads

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        return self.embed_tokens(ids)

    def forward(self, input_ids: torch.Tensor, positions: torch.Tensor,
                kv_caches: List[Tuple[torch.Tensor, torch.Tensor]], md: AttnMetadata) -> torch.Tensor:
        del positions
        x = self.embed_tokens(input_ids)
        for block, cache in zip(self.blocks, kv_caches):
            x = block(x, cache, md)
        return self.norm(x)

    def compute_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.lm_head(hidden).float()


# ---------------------------------------------------------------------------
# Self-test / CLI
# ---------------------------------------------------------------------------


def _sampling_params(n: int, device: Any) -> Dict[str, torch.Tensor]:
    return {
        "temperature": torch.zeros(n, device=device),
        "top_k": torch.full((n,), 50, device=device),
        "top_p": torch.ones(n, device=device),
    }


class StepTimer:
    """Wall-clock latency of runner steps, with percentiles."""

    def __init__(self, sync: Optional[Callable[[], None]] = None):
        self.samples: List[float] = []
        self.sync = sync or (lambda: None)
        self._start = 0.0

    def __enter__(self) -> "StepTimer":
        self.sync()
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.sync()
        self.samples.append((time.perf_counter() - self._start) * 1e3)

    def percentile(self, q: float) -> float:
        if not self.samples:
            return float("nan")
        return float(np.percentile(np.asarray(self.samples), q))

    def summary(self) -> Dict[str, float]:
        return {"p50_ms": self.percentile(50), "p90_ms": self.percentile(90),
                "p99_ms": self.percentile(99), "n": float(len(self.samples))}


def run_eager_reference(model: nn.Module, inputs: StepInputs,
                        kv_caches: List[Tuple[torch.Tensor, torch.Tensor]]) -> torch.Tensor:
    """The same step without graphs, for comparing outputs."""
    caches = [(k.clone(), v.clone()) for k, v in kv_caches]
    with torch.inference_mode():
        hidden = model(inputs.input_ids, inputs.positions, caches, inputs.attn_metadata)
        return model.compute_logits(hidden)


def compare_with_eager(runner: GraphModelRunner, inputs: StepInputs, atol: float = 2e-2,
                       rtol: float = 2e-2) -> Tuple[bool, float]:
    """Run one step through the compiled path and eagerly; report the max difference."""
    ref = run_eager_reference(runner.model, inputs, runner.kv_caches)
    n = inputs.num_tokens
    padded = runner.padder.pad(inputs) if runner.padder is not None else inputs
    fn = runner.compiled.get(padded.num_tokens, runner.model.forward)
    with torch.inference_mode():
        hidden = fn(padded.input_ids, padded.positions, runner.kv_caches, padded.attn_metadata)
        got = runner.model.compute_logits(hidden)[:n]
    diff = (got - ref).abs().max().item()
    ok = torch.allclose(got, ref, atol=atol, rtol=rtol)
    return ok, diff


def self_test(opts: TorchairGraphOptions, device: Any = "npu", steps: int = 4) -> Dict[str, float]:
    model = TinyDecoder().to(device).eval()
    runner = GraphModelRunner(model, opts, model_name="tiny-decoder", device=device)
    runner.allocate_kv_caches(model.num_layers, num_blocks=16, block_size=128,
                              num_kv_heads=model.num_kv_heads, head_dim=model.head_dim,
                              dtype=torch.float16)
    if opts.enable_multistream_mtp:
        runner.mtp = MTPHead(128, 1000, multistream=True).to(device)
    runner.capture_all()
    seq_lens = [3, 5, 2]
    tokens = [11, 12, 13]
    tables = [[0], [1], [2]]
    timer = StepTimer(sync=torch.npu.synchronize)
    inputs = build_decode_inputs(tokens, seq_lens, tables, block_size=128, max_blocks=16, device=device)
    ok, diff = compare_with_eager(runner, inputs)
    logger.info("graph vs eager: ok=%s max diff %.3g", ok, diff)
    for _ in range(steps):
        inputs = build_decode_inputs(tokens, seq_lens, tables, block_size=128, max_blocks=16, device=device)
        with timer:
            out = runner.execute(inputs, _sampling_params(len(tokens), device))
        tokens = out.reshape(len(tokens), -1)[:, 0].tolist()
        seq_lens = [s + 1 for s in seq_lens]
    stats = dict(runner.stats)
    stats.update(timer.summary())
    stats["graph_matches_eager"] = float(ok)
    return stats


def parse_cli(argv: Optional[List[str]] = None) -> Tuple[TorchairGraphOptions, Dict[str, Any]]:
    import argparse
    import json
    ap = argparse.ArgumentParser(description="graph runner self-test")
    ap.add_argument("--options", default="{}", help="torchair options as JSON")
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--clear-cache", action="store_true")
    args = ap.parse_args(argv)
    opts = TorchairGraphOptions.from_dict(json.loads(args.options))
    return opts, {"steps": args.steps, "clear_cache": args.clear_cache}


def main(argv: Optional[List[str]] = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    opts, extra = parse_cli(argv)
    logger.info("options: %s", describe_config(opts))
    if extra["clear_cache"]:
        GraphModelRunner(nn.Identity(), opts, "tiny-decoder").clear_cache()
    stats = self_test(opts, steps=extra["steps"])
    logger.info("stats: %s", stats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
