"""Patches that let TorchAir scripts run on a plain CPU PyTorch.

install() is called by sitecustomize.py (run_example.sh puts this folder on
PYTHONPATH) and again by the torch_npu and torchair stand-ins; it is
idempotent. It adds only what is missing:

- Tensor.npu() and Module.npu(): return the tensor / module itself (the
  "device" is the CPU);
- torch.compile (absent before PyTorch 2.0): returns the model or function
  unchanged, and works as a decorator with or without arguments;
- torch._dynamo (absent before 2.0): mark_static, mark_dynamic,
  maybe_mark_dynamic, graph_break and reset, which do nothing;
- torch.npu (torch_npu adds it on an NPU machine): is_available, device_count,
  current_device, set_device, synchronize, and npugraph_ex.scope /
  npugraph_ex.inference, which are torchair's scope and inference.

Recording hook (tests/ref/harness.py): set_compile_hook(fn) makes the
stand-in torch.compile and torchair.inference.cache_compile return
fn(kind, target, config) instead of target, where kind is "torch.compile" or
"cache_compile", target the module, bound method or function compiled and
config the CompilerConfig it was compiled with (the backend's, or
cache_compile's config=; None when there is none). Without a hook (the
default) they return target itself.

Half precision: float16 and bfloat16 operands of the ops tngc compiles are
computed in float32 and rounded once where PyTorch 1.13's CPU kernel is
missing or rounds differently (_half_fallback); start_fallback_log() and
take_fallback_log() record which ops that happened to.
"""
import sys
import types

_installed = False
_compile_hook = None


def set_compile_hook(fn):
    """Installs fn(kind, target, config) -> callable as the recording hook
    of the stand-in torch.compile and cache_compile (None removes it)."""
    global _compile_hook
    _compile_hook = fn


def compiled(kind, target, config=None):
    """What a stand-in compile returns for target: the hook's wrapper, or
    target itself when no hook is installed."""
    if _compile_hook is None:
        return target
    return _compile_hook(kind, target, config)


def _npu_tensor(self, device=None, non_blocking=False, **kwargs):
    return self


def _npu_module(self, device=None):
    return self


def _compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor",
             mode=None, options=None, disable=False):
    config = getattr(backend, "compiler_config", None)
    if model is None:
        # @torch.compile(...) with arguments
        def decorate(fn):
            return compiled("torch.compile", fn, config)
        return decorate
    return compiled("torch.compile", model, config)


def _make_dynamo():
    dynamo = types.ModuleType("torch._dynamo")
    dynamo.__doc__ = "tngc reference stand-in: marks are recorded, nothing is compiled."

    def mark_static(t, index=None):
        t._tngc_ref_static = True if index is None else index

    def mark_dynamic(t, index, **kwargs):
        t._tngc_ref_dynamic = index

    def maybe_mark_dynamic(t, index):
        t._tngc_ref_dynamic = index

    def graph_break():
        pass

    def reset():
        pass

    dynamo.mark_static = mark_static
    dynamo.mark_dynamic = mark_dynamic
    dynamo.maybe_mark_dynamic = maybe_mark_dynamic
    dynamo.graph_break = graph_break
    dynamo.reset = reset
    dynamo.config = types.SimpleNamespace(cache_size_limit=8, suppress_errors=False)
    return dynamo


def _make_npu():
    npu = types.ModuleType("torch.npu")
    npu.__doc__ = "tngc reference stand-in: the NPU is the CPU."
    npu.is_available = lambda: True
    npu.device_count = lambda: 1
    npu.current_device = lambda: 0
    npu.set_device = lambda device: None
    npu.synchronize = lambda device=None: None
    npugraph_ex = types.ModuleType("torch.npu.npugraph_ex")

    def _lazy(name):
        # torchair imports torch; resolve it when first used.
        def get():
            import torchair
            return getattr(torchair, name)
        return get

    class _Lazy(types.ModuleType):
        def __init__(self, name, target):
            super().__init__(name)
            self._target = target

        def __getattr__(self, attr):
            return getattr(self._target(), attr)

    npugraph_ex.scope = _Lazy("torch.npu.npugraph_ex.scope", _lazy("scope"))
    npugraph_ex.inference = _Lazy("torch.npu.npugraph_ex.inference", _lazy("inference"))
    npu.npugraph_ex = npugraph_ex
    return npu, npugraph_ex


# The floating-point ops tngc compiles, by namespace. For float16 and
# bfloat16 operands each goes through _half_op (see there).
_HALF_TORCH = ("add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
               "pow", "neg", "negative", "abs", "exp", "log", "sqrt", "rsqrt", "relu",
               "sigmoid", "tanh", "mm", "bmm", "matmul", "addmm", "softmax", "log_softmax",
               "layer_norm", "sum", "mean", "amax", "cos", "sin", "reciprocal", "square", "sign",
               "floor", "ceil", "round", "erf", "log1p", "expm1", "clamp", "clip", "clamp_min",
               "clamp_max", "maximum", "minimum",
               # -- reduce --
               "prod", "cumsum", "var", "std", "norm", "einsum", "outer", "baddbmm",
               )
_HALF_FUNCTIONAL = ("linear", "silu", "gelu", "relu", "layer_norm", "softmax",
                    "log_softmax", "sigmoid", "tanh", "softplus", "leaky_relu", "hardswish", "mish",
                    # -- shape --
                    "pad",
                    # -- nn --
                    "scaled_dot_product_attention", "conv1d", "conv2d", "batch_norm",
                    "group_norm", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d",
                    "adaptive_max_pool2d", "interpolate",
                    )
_HALF_METHODS = ("add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
                 "pow", "neg", "negative", "abs", "exp", "log", "sqrt", "rsqrt", "relu",
                 "sigmoid", "tanh", "mm", "bmm", "matmul", "addmm", "softmax", "log_softmax",
                 "sum", "mean", "amax", "cos", "sin", "reciprocal", "square", "sign", "floor", "ceil",
                 "round", "erf", "log1p", "expm1", "clamp", "clip", "clamp_min", "clamp_max",
                 "maximum", "minimum",
                 "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                 "__truediv__", "__rtruediv__", "__div__", "__rdiv__", "__pow__", "__rpow__",
                 "__neg__", "__abs__", "__matmul__", "__rmatmul__",
                 # -- reduce --
                 "prod", "cumsum", "var", "std", "norm",
                 )

# What the half-precision ops computed in float32 (see _half_op): a list of
# (op, dtype, reason) appended to while recording is on (tests/ref/harness.py
# turns it on around the calls it records); None: not recording.
_fallbacks = None

NO_KERNEL = "no-kernel"       # PyTorch 1.13 has no CPU kernel for the dtype
ROUNDS = "rounds-differently"  # its kernel's result differs from float32 + one rounding


def start_fallback_log():
    """Starts recording the ops computed in float32 (clears the record)."""
    global _fallbacks
    _fallbacks = []


def take_fallback_log():
    """Stops recording; returns the records [(op, dtype, reason, detail)]."""
    global _fallbacks
    log, _fallbacks = _fallbacks or [], None
    return log


def _half_fallback(torch, orig):
    """Wraps orig (a torch function or Tensor method) so that with float16 or
    bfloat16 operands it computes what tngc's kernels and later PyTorch
    versions compute: the op in float32 on the operands' exact values,
    rounded once to the result dtype ("float32 + one rounding").

    PyTorch 1.13's CPU falls short of that in two ways, both measured with
    this Debian build (tests/ref/README.md has the table):
    - many ops have no float16 kernel at all ("not implemented for 'Half'":
      mm, bmm, matmul, linear, softmax, layer_norm, exp, gelu, silu, ...);
    - some kernels that exist round intermediate values to the half type
      (a Python scalar or alpha rounded to the dtype before use; bfloat16
      layer_norm, tanh-GELU and silu with bfloat16 intermediates), which
      puts them further from the exact result than float32 + one rounding
      (bfloat16 layer_norm and tanh-GELU, float16/bfloat16 add with alpha
      or a scalar: beyond the dtype's tolerance of the exact result).
    So the op runs natively first; when that raises "not implemented" or
    gives a result that is not bitwise the float32 + one rounding result,
    the latter is returned and the op is recorded (when recording is on).
    Ops without half operands run natively, untouched."""

    def halves(v, acc):
        if isinstance(v, torch.Tensor):
            if v.dtype in (torch.float16, torch.bfloat16):
                acc.add(v.dtype)
        elif isinstance(v, (list, tuple)):
            for x in v:
                halves(x, acc)
        return acc

    def float_dtypes(v, acc):
        if isinstance(v, torch.Tensor) and v.is_floating_point():
            acc.add(v.dtype)
        elif isinstance(v, (list, tuple)):
            for x in v:
                float_dtypes(x, acc)
        return acc

    def to_float(v):
        if isinstance(v, torch.Tensor) and v.dtype in (torch.float16, torch.bfloat16):
            return v.float()
        if isinstance(v, (list, tuple)):
            return type(v)(to_float(x) for x in v)
        return v

    def like(v, ref):
        """v (float32 results) rounded to the dtypes of ref (native results)
        or, ref being a dtype, to that dtype."""
        if isinstance(v, torch.Tensor):
            dt = ref if isinstance(ref, torch.dtype) else ref.dtype
            return v.to(dt) if v.dtype == torch.float32 and dt != torch.float32 else v
        if isinstance(v, tuple):
            refs = ref if not isinstance(ref, torch.dtype) else (ref,) * len(v)
            return tuple(like(x, r) for x, r in zip(v, refs))
        return v

    def same(a, b):
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
            if a.dtype != b.dtype or a.shape != b.shape:
                return False
            if a.is_floating_point():
                return bool(((a == b) | (a.isnan() & b.isnan())).all())
            return bool(torch.equal(a, b))
        if isinstance(a, tuple) and isinstance(b, tuple):
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        return type(a) is type(b) and a == b

    def call(*args, **kwargs):
        found = halves(list(args) + list(kwargs.values()), set())
        if not found:
            return orig(*args, **kwargs)
        native, reason = None, None
        try:
            native = orig(*args, **kwargs)
        except RuntimeError as exc:
            if "not implemented for" not in str(exc):
                raise
            dtypes = float_dtypes(list(args) + list(kwargs.values()), set())
            if len(dtypes) != 1:
                # float16 mixed with another float type: PyTorch does not
                # promote here, so neither does the fallback
                names = ", ".join(sorted(str(d) for d in dtypes))
                raise RuntimeError("%s: expected float tensors of one dtype, got %s"
                                   % (call.__name__, names)) from None
            reason = NO_KERNEL
        if native is NotImplemented:
            return native
        exact = orig(*[to_float(a) for a in args], **{k: to_float(v) for k, v in kwargs.items()})
        exact = like(exact, native if native is not None else next(iter(found)))
        if native is not None:
            if same(native, exact):
                return native
            reason = ROUNDS
        if _fallbacks is not None:
            dt = "/".join(sorted(str(d).replace("torch.", "") for d in found))
            _fallbacks.append((call.__name__, dt, reason))
        return exact

    call.__name__ = getattr(orig, "__name__", "op")
    call.__doc__ = getattr(orig, "__doc__", None)
    call._tngc_ref_orig = orig
    return call


def _sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    """F.scaled_dot_product_attention for PyTorch before 2.0, in plain
    PyTorch: softmax(q k^T * scale + mask) v; a bool mask keeps True,
    is_causal keeps key j <= query i (top-left); no dropout (inference).
    enable_gqa (PyTorch 2.5): key and value heads (dim -3) repeated with
    repeat_interleave up to the query's, which they must divide."""
    import math
    import torch
    if dropout_p:
        raise NotImplementedError("the stand-in scaled_dot_product_attention has no dropout")
    if enable_gqa and query.dim() >= 3 and key.size(-3) != query.size(-3):
        if query.size(-3) % key.size(-3) or query.size(-3) % value.size(-3):
            raise RuntimeError("number of heads in key and value must divide the number of heads in query")
        key = key.repeat_interleave(query.size(-3) // key.size(-3), -3)
        value = value.repeat_interleave(query.size(-3) // value.size(-3), -3)
    L, S = query.size(-2), key.size(-2)
    s = 1.0 / math.sqrt(query.size(-1)) if scale is None else scale
    scores = torch.matmul(query, key.transpose(-2, -1)) * s
    if is_causal:
        keep = torch.ones(L, S, dtype=torch.bool).tril()
        scores = scores.masked_fill(~keep, float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            scores = scores.masked_fill(~attn_mask, float("-inf"))
        else:
            scores = scores + attn_mask
    return torch.matmul(torch.softmax(scores, dim=-1), value)


def _rms_norm(input, normalized_shape, weight=None, eps=None):
    """F.rms_norm for PyTorch before 2.4, as PyTorch's composite computes
    it for a float32 input: input * rsqrt(mean(input^2 over the normalized
    dims, keepdim) + eps), then times weight; eps None is float32's machine
    epsilon. A float16 or bfloat16 input (and its weight) is widened to
    float32, computed so, and the result rounded to the input's dtype, as
    releases after 2.4 define it."""
    import torch
    half = input.dtype in (torch.float16, torch.bfloat16)
    if input.dtype != torch.float32 and not half:
        raise NotImplementedError("the stand-in rms_norm computes float inputs only")
    x = input.float() if half else input
    dims = tuple(range(-len(normalized_shape), 0))
    if eps is None:
        eps = torch.finfo(torch.float32).eps
    r = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps)
    if weight is not None:
        r = r * (weight.float() if half else weight)
    return r.to(input.dtype) if half else r


def _install_half(torch):
    import torch.nn.functional as F
    for ns, names in ((torch, _HALF_TORCH), (F, _HALF_FUNCTIONAL), (torch.Tensor, _HALF_METHODS)):
        for name in names:
            orig = getattr(ns, name, None)
            if orig is not None and not hasattr(orig, "_tngc_ref_orig"):
                setattr(ns, name, _half_fallback(torch, orig))


def _install_baddbmm(torch):
    """baddbmm with beta=0: PyTorch documents that input is then ignored
    (its NaN and inf are not propagated); 1.13's CPU kernel can multiply an
    uninitialised result buffer by 0 there, which gives a NaN now and then.
    The stand-in computes alpha * (batch1 @ batch2) instead, as documented."""
    orig_f, orig_m = torch.baddbmm, torch.Tensor.baddbmm

    def fixed(orig):
        def call(input, batch1, batch2, *, beta=1, alpha=1, **kw):
            if beta == 0 and not kw:
                r = torch.bmm(batch1, batch2)
                return r if alpha == 1 else r * alpha
            return orig(input, batch1, batch2, beta=beta, alpha=alpha, **kw)
        return call
    torch.baddbmm = fixed(orig_f)
    torch.Tensor.baddbmm = fixed(orig_m)


def install():
    global _installed
    if _installed:
        return
    import torch

    torch.Tensor.npu = _npu_tensor
    torch.nn.Module.npu = _npu_module
    if not hasattr(torch.nn.functional, "scaled_dot_product_attention"):
        torch.nn.functional.scaled_dot_product_attention = _sdpa
    if not hasattr(torch.nn.functional, "rms_norm"):
        torch.nn.functional.rms_norm = _rms_norm
    _install_baddbmm(torch)
    _install_half(torch)
    if not hasattr(torch, "compile"):
        torch.compile = _compile
    if "torch._dynamo" not in sys.modules and not hasattr(torch, "_dynamo"):
        dynamo = _make_dynamo()
        sys.modules["torch._dynamo"] = dynamo
        torch._dynamo = dynamo
    if "torch.npu" not in sys.modules and not hasattr(torch, "npu"):
        npu, npugraph_ex = _make_npu()
        sys.modules["torch.npu"] = npu
        sys.modules["torch.npu.npugraph_ex"] = npugraph_ex
        sys.modules["torch.npu.npugraph_ex.scope"] = npugraph_ex.scope
        sys.modules["torch.npu.npugraph_ex.inference"] = npugraph_ex.inference
        torch.npu = npu
    _installed = True
