# tngc scan golden: alias_module_level.py
#
# Alias forms bound by module-level imports.  Every call below resolves to its
# canonical TorchAir/torch name, so every annotation is resolved.
#
# Expected annotations of `tngc scan --format json`, in source order
# (notation: README.md in this folder):
#   50:14 super_kernel resolved fn=Model.forward args(scope="sk0") scopes[]
#   52:14 npu_stream_switch resolved fn=Model.forward args(stream_tag="1") scopes[]
#   54:14 limit_core_num resolved fn=Model.forward args(op_aicore_num=8, op_vectorcore_num=16) scopes[]
#   56:14 npu_stream_switch resolved fn=Model.forward args(stream_tag="2") scopes[]
#   57:13 npu_wait_tensor resolved fn=Model.forward args(self=expr(c), dependency=expr(b)) scopes[npu_stream_switch "2"@56:14]
#   64:1 set_dim_gears resolved fn=<module> args(t=expr(x), dim_gears={"0": [4, 8]}) scopes[]
#   65:1 set_dim_gears resolved fn=<module> args(t=expr(y), dim_gears={"0": [4, 8]}) scopes[]
#   66:1 mark_static resolved fn=<module> args(t=expr(x)) scopes[]
#   67:1 mark_static resolved fn=<module> args(t=expr(y)) scopes[]
#   68:1 mark_static resolved fn=<module> args(t=expr(y)) scopes[]
#   69:10 compiler_config resolved fn=<module> args() scopes[]
#   70:1 config_option resolved fn=<module> set(config.mode = "max-autotune") scopes[]
#   71:8 compiler_config resolved fn=<module> args() scopes[]
#   72:11 get_npu_backend resolved fn=<module> args(compiler_config=expr(config)) scopes[]
#   73:12 get_npu_backend resolved fn=<module> args(compiler_config=expr(cfg2)) scopes[]
#   74:9 torch_compile resolved fn=<module> args(model=expr(Model()), backend=expr(backend), fullgraph=True, dynamic=True) scopes[]
#   75:10 torch_compile resolved fn=<module> args(model=expr(Model()), backend=expr(backend2)) scopes[]
#
# Notes:
#   `import torch._dynamo` and `import torch as th` bind `torch`/`th`; `th.compile` is torch.compile.
#   `x`, `y`, `backend`, `backend2`, `config`, `cfg2` are module-level names bound to non-literals,
#   so they are reported as expr(...).
# Diagnostics: none.
# ---- end of expectations ----

import torch
import torchair
import torchair as tng
import torch._dynamo
from torchair import scope
from torchair.scope import npu_stream_switch as f
from torchair.inference import set_dim_gears
from torch._dynamo import mark_static
from torchair.configs.compiler_config import CompilerConfig
from torchair import get_npu_backend
import torch as th
import torch._dynamo as dynamo
from torchair import inference as infer


class Model(torch.nn.Module):
    def forward(self, x, y):
        with torchair.scope.super_kernel("sk0"):
            a = x + y
        with tng.scope.npu_stream_switch("1"):
            b = x * y
        with scope.limit_core_num(8, 16):
            c = a @ b
        with f("2"):
            scope.npu_wait_tensor(c, b)
            d = c - b
        return d


x = torch.ones(4, 8)
y = torch.ones(4, 8)
set_dim_gears(x, {0: [4, 8]})
infer.set_dim_gears(y, dim_gears={0: [4, 8]})
torch._dynamo.mark_static(x)
mark_static(y)
dynamo.mark_static(y)
config = CompilerConfig()
config.mode = "max-autotune"
cfg2 = torchair.CompilerConfig()
backend = get_npu_backend(compiler_config=config)
backend2 = tng.get_npu_backend(compiler_config=cfg2)
model = torch.compile(Model(), backend=backend, fullgraph=True, dynamic=True)
model2 = th.compile(Model(), backend=backend2)
