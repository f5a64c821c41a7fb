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
fn(kind, target) instead of target, where kind is "torch.compile" or
"cache_compile" and target the module, bound method or function compiled.
Without a hook (the default) they return target itself.
"""
import sys
import types

_installed = False
_compile_hook = None


def set_compile_hook(fn):
    """Installs fn(kind, target) -> callable as the recording hook of the
    stand-in torch.compile and cache_compile (None removes it)."""
    global _compile_hook
    _compile_hook = fn


def compiled(kind, target):
    """What a stand-in compile returns for target: the hook's wrapper, or
    target itself when no hook is installed."""
    if _compile_hook is None:
        return target
    return _compile_hook(kind, target)


def _npu_tensor(self, device=None, non_blocking=False, **kwargs):
    return self


def _npu_module(self, device=None):
    return self


def _compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor",
             mode=None, options=None, disable=False):
    if model is None:
        # @torch.compile(...) with arguments
        def decorate(fn):
            return compiled("torch.compile", fn)
        return decorate
    return compiled("torch.compile", model)


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


_HALF_TORCH = ("mm", "bmm", "matmul", "addmm", "softmax", "log_softmax", "sigmoid",
               "tanh", "exp", "log", "sqrt", "rsqrt", "relu", "layer_norm")
_HALF_FUNCTIONAL = ("linear", "silu", "gelu", "relu", "layer_norm", "softmax",
                    "log_softmax", "sigmoid", "tanh")
_HALF_METHODS = ("mm", "bmm", "matmul", "__matmul__", "__rmatmul__", "addmm", "softmax",
                 "log_softmax", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "relu")


def _half_fallback(torch, orig):
    def to_float(v):
        if isinstance(v, torch.Tensor) and v.dtype == torch.float16:
            return v.float()
        if isinstance(v, (list, tuple)):
            return type(v)(to_float(x) for x in v)
        return v

    def to_half(v):
        if isinstance(v, torch.Tensor) and v.dtype == torch.float32:
            return v.half()
        if isinstance(v, tuple):
            return tuple(to_half(x) for x in v)
        return v

    def float_dtypes(v, acc):
        if isinstance(v, torch.Tensor) and v.is_floating_point():
            acc.add(v.dtype)
        elif isinstance(v, (list, tuple)):
            for x in v:
                float_dtypes(x, acc)
        return acc

    def call(*args, **kwargs):
        try:
            return orig(*args, **kwargs)
        except RuntimeError as exc:
            if "not implemented for 'Half'" not in str(exc):
                raise
            dtypes = float_dtypes(list(args) + list(kwargs.values()), set())
            if dtypes != {torch.float16}:
                # float16 mixed with another float type: PyTorch does not
                # promote here, so neither does the fallback
                names = ", ".join(sorted(str(d) for d in dtypes))
                raise RuntimeError("%s: expected float tensors of one dtype, got %s"
                                   % (call.__name__, names)) from None
        out = orig(*[to_float(a) for a in args], **{k: to_float(v) for k, v in kwargs.items()})
        return to_half(out)

    call.__name__ = getattr(orig, "__name__", "op")
    call.__doc__ = getattr(orig, "__doc__", None)
    call._tngc_ref_orig = orig
    return call


def _install_half(torch):
    import torch.nn.functional as F
    for ns, names in ((torch, _HALF_TORCH), (F, _HALF_FUNCTIONAL), (torch.Tensor, _HALF_METHODS)):
        for name in names:
            orig = getattr(ns, name, None)
            if orig is not None and not hasattr(orig, "_tngc_ref_orig"):
                setattr(ns, name, _half_fallback(torch, orig))


def install():
    global _installed
    if _installed:
        return
    import torch

    torch.Tensor.npu = _npu_tensor
    torch.nn.Module.npu = _npu_module
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
