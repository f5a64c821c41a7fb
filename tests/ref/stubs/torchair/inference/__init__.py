"""torchair.inference stand-in: set_dim_gears records the gears on the
tensor after TorchAir's checks; cache_compile returns the method itself
(or, under tests/ref/harness.py, its recording wrapper)."""
import inspect

import torch

import _tngc_ref


def set_dim_gears(t, dim_gears):
    if not isinstance(t, torch.Tensor):
        raise TypeError("set_dim_gears: expected a tensor, got %r" % (type(t).__name__,))
    if not isinstance(dim_gears, dict) or not dim_gears:
        raise TypeError("set_dim_gears: dim_gears must be a non-empty dict {dim: [sizes]}")
    for dim, gears in dim_gears.items():
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError("set_dim_gears: dim must be an int, got %r" % (dim,))
        if not 0 <= dim < t.dim():
            raise ValueError("set_dim_gears: dim %d out of range for a %d-d tensor" % (dim, t.dim()))
        if not isinstance(gears, (list, tuple)):
            raise TypeError("set_dim_gears: gears of dim %d must be a list or tuple" % dim)
        if not 2 <= len(gears) <= 100:
            raise ValueError("set_dim_gears: dim %d has %d gears, must be 2 to 100" % (dim, len(gears)))
        for g in gears:
            if not isinstance(g, int) or isinstance(g, bool) or g == 0:
                raise ValueError("set_dim_gears: gear %r of dim %d is not a non-zero int" % (g, dim))
    old = getattr(t, "_tngc_ref_dim_gears", None)
    if old is not None and old != dim_gears:
        raise ValueError("set_dim_gears: the tensor already has the gears %r" % (old,))
    t._tngc_ref_dim_gears = dict(dim_gears)


def cache_compile(func, *, config=None, dynamic=True, cache_dir=None, global_rank=None,
                  tp_rank=None, pp_rank=None, custom_decompositions=None, ge_cache=False,
                  **kwargs):
    if not inspect.ismethod(func) or not isinstance(func.__self__, torch.nn.Module):
        raise ValueError("cache_compile: only a method of an nn.Module instance can be cached, got %r"
                         % (func,))
    return _tngc_ref.compiled("cache_compile", func, config)
