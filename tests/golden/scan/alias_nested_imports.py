# tngc scan golden: alias_nested_imports.py
#
# Imports inside functions, inside try/except ImportError (with fallbacks that
# rebind the same names), and under `if TYPE_CHECKING`.  Alias resolution is
# file-wide: an import anywhere binds its name for the whole file,
# and a module-level fallback binding (`tng = None`, a fallback `def`) does not
# cancel it.  So every annotation here is resolved.
#
# Expected annotations of `tngc scan --format json`, in source order
# (notation: README.md in this folder):
#   55:11 compiler_config resolved fn=build_backend args() scopes[]
#   56:5 config_option resolved fn=build_backend set(cfg.mode = "reduce-overhead") scopes[]
#   57:12 get_npu_backend resolved fn=build_backend args(compiler_config=expr(cfg)) scopes[]
#   62:5 set_dim_gears resolved fn=gears args(t=expr(t), dim_gears={"0": [1, 2]}) scopes[]
#   71:10 npu_stream_switch resolved fn=forward_streams args(stream_tag="3") scopes[]
#   77:14 super_kernel resolved fn=Block.forward args(scope="blk") scopes[]
#   78:18 npu_stream_switch resolved fn=Block.forward args(stream_tag="1") scopes[super_kernel "blk"@77:14]
#   79:17 npu_wait_tensor UNRESOLVED fn=Block.forward args(arg0=expr(x), arg1=expr(y)) scopes[super_kernel "blk"@77:14 > npu_stream_switch "1"@78:18]
#   84:12 compiler_config resolved fn=make_config args() scopes[]
#
# Notes:
#   `npu_wait_tensor` is imported from torchair.ops, which lost it in March 2025
#   (ops/__init__.py), with a fallback def in the except branch: UNRESOLVED.
#   `tscope` is imported inside setup_streams() only; forward_streams() still resolves it
#   (file-wide, as tngc resolves aliases, although Python itself would raise NameError there).
#   `CompilerConfig` is imported only under `if TYPE_CHECKING:`; the call in make_config() is resolved.
#   Position of a config_option is the start of the assignment target (`cfg` of `cfg.mode`).
# Diagnostics: none.
# ---- end of expectations ----

from typing import TYPE_CHECKING

import torch

try:
    import torchair as tng
    from torchair.scope import super_kernel as _sk
except ImportError:  # CPU-only environments
    tng = None
    _sk = None

try:
    from torchair.ops import npu_wait_tensor
except ImportError:
    def npu_wait_tensor(a, b):
        return a

if TYPE_CHECKING:
    from torchair.configs.compiler_config import CompilerConfig


def build_backend():
    from torchair import get_npu_backend
    from torchair.configs.compiler_config import CompilerConfig as Cfg
    cfg = Cfg()
    cfg.mode = "reduce-overhead"
    return get_npu_backend(compiler_config=cfg)


def gears(t):
    import torchair.inference
    torchair.inference.set_dim_gears(t, {0: [1, 2]})


def setup_streams():
    import torchair.scope as tscope
    return tscope


def forward_streams(x):
    with tscope.npu_stream_switch("3"):
        return x + 1


class Block(torch.nn.Module):
    def forward(self, x, y):
        with _sk("blk"):
            with tng.scope.npu_stream_switch("1"):
                npu_wait_tensor(x, y)
        return x


def make_config():
    return CompilerConfig()
