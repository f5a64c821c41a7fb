# tngc scan golden: alias_npugraph_ex.py
#
# The npugraph_ex spellings: torch.npu.npugraph_ex.scope.* and
# torch.npu.npugraph_ex.inference.cache_compile, reached through `import torch`,
# `import torch.npu.npugraph_ex as ex`, `from torch.npu.npugraph_ex import scope as ...`,
# `from torch.npu import npugraph_ex`, and `torch_npu.npu.npugraph_ex` (torch_npu.npu
# is the module that torch_npu installs as torch.npu).  torch_npu's
# torch/npu/npugraph_ex/scope/__init__.py exports only limit_core_num and
# deterministic: npu_stream_switch, super_kernel and npu_wait_tensor through it
# raise AttributeError, so they are UNRESOLVED (`tngc lint`: TNG171) and open
# no scope.
#
# Expected annotations of `tngc scan --format json`, in source order
# (notation: README.md in this folder):
#   43:30 cache_compile resolved fn=Decoder.__init__ args(func=expr(self.decode), dynamic=False) scopes[]
#   44:31 cache_compile resolved fn=Decoder.__init__ args(func=expr(self.prefill)) scopes[]
#   45:29 cache_compile resolved fn=Decoder.__init__ args(func=expr(self.other), cache_dir="/tmp/c") scopes[]
#   48:14 limit_core_num resolved fn=Decoder.decode args(op_aicore_num=4, op_vectorcore_num=8) scopes[]
#   50:14 npu_stream_switch UNRESOLVED fn=Decoder.decode args(arg0="s1") scopes[]
#   52:14 super_kernel UNRESOLVED fn=Decoder.decode args(arg0="dec", arg1="stream-fusion=1") scopes[]
#   53:13 npu_wait_tensor UNRESOLVED fn=Decoder.decode args(arg0=expr(w), arg1=expr(z)) scopes[]
#   54:14 npu_stream_switch UNRESOLVED fn=Decoder.decode args(arg0="s2", arg1=0) scopes[]
#   59:14 limit_core_num resolved fn=Decoder.prefill args(op_aicore_num=2, op_vectorcore_num=4) scopes[]
#   66:9 torch_compile resolved fn=<module> args(model=expr(Decoder()), backend="npugraph_ex", fullgraph=True, dynamic=False) scopes[]
#
# Notes:
#   torch.compile with backend="npugraph_ex" (a string) is an ordinary torch_compile.
#   cache_compile positional arg is `func`; keywords keep their names.
# Diagnostics: none.
# ---- end of expectations ----

import torch
import torch_npu
import torch.npu.npugraph_ex as ex
from torch.npu.npugraph_ex import scope as ex_scope
from torch.npu import npugraph_ex
from torch.npu.npugraph_ex.inference import cache_compile


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cached_decode = torch.npu.npugraph_ex.inference.cache_compile(self.decode, dynamic=False)
        self.cached_prefill = cache_compile(self.prefill)
        self.cached_other = ex.inference.cache_compile(self.other, cache_dir="/tmp/c")

    def decode(self, x, y):
        with torch.npu.npugraph_ex.scope.limit_core_num(4, 8):
            z = x + y
        with ex.scope.npu_stream_switch("s1"):
            w = x * y
        with ex_scope.super_kernel("dec", "stream-fusion=1"):
            ex_scope.npu_wait_tensor(w, z)
        with npugraph_ex.scope.npu_stream_switch("s2", 0):
            v = z - w
        return v

    def prefill(self, x, y):
        with torch_npu.npu.npugraph_ex.scope.limit_core_num(2, 4):
            return x - y

    def other(self, x, y):
        return x


model = torch.compile(Decoder(), backend="npugraph_ex", fullgraph=True, dynamic=False)
