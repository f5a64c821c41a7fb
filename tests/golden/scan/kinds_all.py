# tngc scan golden: kinds_all.py
#
# One of each annotation kind, written the way TorchAir's documentation writes them:
# super_kernel, npu_stream_switch, npu_wait_tensor, limit_core_num,
# set_dim_gears, mark_static, cache_compile, compiler_config, config_option,
# get_npu_backend, torch_compile (call and bare decorator).  All resolved.
#
# Expected annotations of `tngc scan --format json`, in source order
# (notation: README.md in this folder):
#   40:23 cache_compile resolved fn=Model.__init__ args(func=expr(self._forward), config=expr(CONFIG)) scopes[]
#   46:14 super_kernel resolved fn=Model._forward args(scope="sp1", options="") scopes[]
#   48:14 npu_stream_switch resolved fn=Model._forward args(stream_tag="1", stream_priority=0) scopes[]
#   49:13 npu_wait_tensor resolved fn=Model._forward args(self=expr(y), dependency=expr(s)) scopes[npu_stream_switch "1"@48:14]
#   51:14 limit_core_num resolved fn=Model._forward args(op_aicore_num=12, op_vectorcore_num=24) scopes[]
#   56:2 torch_compile resolved fn=<module> args() scopes[]
#   61:10 compiler_config resolved fn=<module> args() scopes[]
#   62:1 config_option resolved fn=<module> set(CONFIG.mode = "max-autotune") scopes[]
#   63:11 get_npu_backend resolved fn=<module> args(compiler_config=expr(CONFIG)) scopes[]
#   66:1 set_dim_gears resolved fn=<module> args(t=expr(x), dim_gears={"0": [2, 4]}) scopes[]
#   67:1 mark_static resolved fn=<module> args(t=expr(y)) scopes[]
#   68:9 torch_compile resolved fn=<module> args(model=expr(Model()), backend=expr(backend), fullgraph=True, dynamic=True) scopes[]
#
# Notes:
#   `torch._dynamo.mark_static` resolves with only `import torch` (torch imports _dynamo itself).
#   `CONFIG` is bound to a call, not a literal, so `config=CONFIG` is expr(CONFIG); it is used
#   in __init__ before its module-level assignment, which does not matter to the scan.
#   The bare decorator `@torch.compile` is reported at the expression after `@` (column of `torch`),
#   with no args, in the scope where the decorator is evaluated (<module>).
# Diagnostics: none.
# ---- end of expectations ----

import torch
import torchair
from torchair.configs.compiler_config import CompilerConfig


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cached = torchair.inference.cache_compile(self._forward, config=CONFIG)

    def forward(self, x, y):
        return self.cached(x, y)

    def _forward(self, x, y):
        with torchair.scope.super_kernel("sp1", ""):
            s = x + y
        with torchair.scope.npu_stream_switch("1", 0):
            torchair.scope.npu_wait_tensor(y, s)
            m = torch.mm(x, y)
        with torchair.scope.limit_core_num(12, 24):
            n = m + s
        return n


@torch.compile
def helper(x):
    return x * 2


CONFIG = CompilerConfig()
CONFIG.mode = "max-autotune"
backend = torchair.get_npu_backend(compiler_config=CONFIG)
x = torch.ones(2, 2)
y = torch.ones(2, 2)
torchair.inference.set_dim_gears(x, dim_gears={0: [2, 4]})
torch._dynamo.mark_static(y)
model = torch.compile(Model(), backend=backend, fullgraph=True, dynamic=True)
