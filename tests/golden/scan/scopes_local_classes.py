# tngc scan golden: scopes_local_classes.py
#
# Classes and defs bind their name where they are defined: a class defined
# in a function is that function's (`fn=` of its class body and methods is
# prefixed with the function), and a call of the class name resolves there.
# op_never_timeout is an annotation (kind op_never_timeout, parameter
# `enable`) that opens no scope; npu_stream_switch's third parameter is
# enable_inner_parallel.
#
# Expected annotations of `tngc scan --format json`, in source order
# (notation: README.md in this folder):
#   33:18 super_kernel resolved fn=test_a.Model.forward args(scope="a") scopes[]
#   36:12 torch_compile resolved fn=test_a args(model=expr(Model()), dynamic=True) scopes[]
#   41:17 limit_core_num resolved fn=test_b.Model args(op_aicore_num=1, op_vectorcore_num=2) scopes[]
#   44:18 npu_stream_switch resolved fn=test_b.Model.forward args(stream_tag="b", stream_priority=0, enable_inner_parallel=False) scopes[]
#   45:22 op_never_timeout resolved fn=test_b.Model.forward args(enable=True) scopes[npu_stream_switch "b"@44:18]
#   46:21 npu_wait_tensor resolved fn=test_b.Model.forward args(self=expr(x), dependency=expr(x)) scopes[npu_stream_switch "b"@44:18]
#   49:12 torch_compile resolved fn=test_b args(model=expr(Model())) scopes[]
#
# Notes:
#   The limit_core_num call in the class body of test_b's Model is evaluated
#   there (not used as a with-item).
# Diagnostics: none.
# ---- end of expectations ----

import torch
import torchair


def test_a():
    class Model(torch.nn.Module):
        def forward(self, x):
            with torchair.scope.super_kernel("a"):
                return x + 1

    return torch.compile(Model(), dynamic=True)


def test_b():
    class Model(torch.nn.Module):
        limit = torchair.scope.limit_core_num(1, 2)

        def forward(self, x):
            with torchair.scope.npu_stream_switch("b", 0, False):
                with torchair.scope.op_never_timeout(True):
                    torchair.scope.npu_wait_tensor(x, x)
                    return x

    return torch.compile(Model())
