"""For the PyTorch run of tests/realmodels only (run.sh puts this folder on
PYTHONPATH for tests/ref/harness.py; tngc never reads it).

The model files move their tensors and caches to CUDA (`.cuda()`,
`.to("cuda")`); Debian's PyTorch has no CUDA, and tngc treats these as
no-ops, so here `Tensor.cuda` and `Module.cuda` return the object unchanged
and `Tensor.to` drops a CUDA device. F.rms_norm (PyTorch 2.4) is given
here for files that call it: x * rsqrt(mean(x^2) + eps) * weight, computed
in float32 and cast back to x's dtype.
"""
try:
    import torch

    def _is_cuda(d):
        return (isinstance(d, str) and d.startswith("cuda")) or \
            (isinstance(d, torch.device) and d.type == "cuda")

    _tensor_to = torch.Tensor.to

    def _to(self, *args, **kwargs):
        args = tuple(a for a in args if not _is_cuda(a))
        if _is_cuda(kwargs.get("device")):
            del kwargs["device"]
        if not args and not kwargs:
            return self
        return _tensor_to(self, *args, **kwargs)

    def _rms_norm(x, normalized_shape, weight=None, eps=None):
        dims = tuple(range(-len(normalized_shape), 0))
        if eps is None:
            eps = torch.finfo(x.dtype).eps
        xf = x.float()
        y = xf * torch.rsqrt(xf.pow(2).mean(dims, keepdim=True) + eps)
        if weight is not None:
            y = y * weight.float()
        return y.to(x.dtype)

    if not hasattr(torch.nn.functional, "rms_norm"):
        torch.nn.functional.rms_norm = _rms_norm
    torch.Tensor.cuda = lambda self, *args, **kwargs: self
    torch.nn.Module.cuda = lambda self, *args, **kwargs: self
    torch.Tensor.to = _to
except ImportError:
    pass
