# tngc scan golden: compile_decorators.py
#
# torch_compile as a call and as a decorator (bare `@torch.compile`, with
# arguments, stacked with other decorators, on methods and nested defs), and
# calls named `compile` that are not torch.compile (never reported: `compile`
# is too common a name for unresolved reporting).  A decorator is reported at
# the expression after `@`, in the scope where it is evaluated: a method's
# decorator is in the class body (`Model`), a nested def's in the enclosing
# function.  (Proposal, not checked here: also report which def it decorates.)
#
# Expected annotations of `tngc scan --format json`, in source order
# (notation: README.md in this folder):
#   39:15 get_npu_backend resolved fn=<module> args() scopes[]
#   42:2 torch_compile resolved fn=<module> args() scopes[]
#   47:2 torch_compile resolved fn=<module> args(backend=expr(npu_backend), dynamic=False, fullgraph=True) scopes[]
#   53:2 torch_compile resolved fn=<module> args() scopes[]
#   59:6 torch_compile resolved fn=Model args(dynamic=True) scopes[]
#   64:10 torch_compile resolved fn=Model.build args(backend="npugraph_ex") scopes[]
#   74:17 torch_compile resolved fn=<module> args(model=expr(model.forward), backend=expr(npu_backend), dynamic=False) scopes[]
#   75:12 torch_compile resolved fn=<module> args(model=expr(model), backend=expr(npu_backend)) scopes[]
#   76:7 torch_compile resolved fn=<module> args(backend=expr(tng.get_npu_backend(compiler_config=None))) scopes[]
#   76:29 get_npu_backend resolved fn=<module> args(compiler_config=None) scopes[]
#
# Notes:
#   Not reported: re.compile (line 70), the builtin compile (line 71),
#   nn.Module.compile (line 73).
#   `from torch import compile as tcompile`: tcompile(...) is torch.compile, resolved.
#   Line 76: `torch.compile(backend=...)(model)` reports the inner call
#   (the outer call has no name) and the get_npu_backend inside it.
# Diagnostics: none.
# ---- end of expectations ----

import re

import torch
import torchair as tng
from torch import compile as tcompile

npu_backend = tng.get_npu_backend()


@torch.compile
def f1(x):
    return x + 1


@torch.compile(backend=npu_backend, dynamic=False, fullgraph=True)
def f2(x):
    return x * 2


@torch.no_grad()
@torch.compile()
def f3(x):
    return x - 1


class Model(torch.nn.Module):
    @torch.compile(dynamic=True)
    def forward(self, x):
        return x

    def build(self):
        @torch.compile(backend="npugraph_ex")
        def step(x):
            return x
        return step


pattern = re.compile(r"\d+")
code = compile("1 + 1", "<s>", "eval")
model = Model()
model.compile(backend=npu_backend)
model.forward = torch.compile(model.forward, backend=npu_backend, dynamic=False)
compiled = tcompile(model, backend=npu_backend)
opt = torch.compile(backend=tng.get_npu_backend(compiler_config=None))(model)
