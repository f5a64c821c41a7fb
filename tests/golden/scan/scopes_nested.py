# tngc scan golden: scopes_nested.py
#
# Scope nesting.  `scopes` lists the resolved super_kernel / npu_stream_switch /
# limit_core_num scopes around an annotation, outermost first, each with its
# tag (npu_stream_switch: stream_tag; super_kernel: scope; limit_core_num: both
# args) and the line:col of the call that opened it.  `with a, b:` and the
# parenthesized `with (a, b):` mean `with a: with b:` (Python's semantics), so
# the call of item b itself already has a in its scopes.  Loops, if/else and
# while do not open scopes.  An annotation used as a with-item does not list
# itself.
#
# Expected annotations of `tngc scan --format json`, in source order
# (notation: README.md in this folder):
#   53:14 super_kernel resolved fn=Model.forward args(scope="outer", options="stream-fusion=1") scopes[]
#   54:18 npu_stream_switch resolved fn=Model.forward args(stream_tag="1") scopes[super_kernel "outer"@53:14]
#   55:17 npu_wait_tensor resolved fn=Model.forward args(self=expr(x), dependency=expr(y)) scopes[super_kernel "outer"@53:14 > npu_stream_switch "1"@54:18]
#   56:22 limit_core_num resolved fn=Model.forward args(op_aicore_num=4, op_vectorcore_num=8) scopes[super_kernel "outer"@53:14 > npu_stream_switch "1"@54:18]
#   57:21 npu_wait_tensor resolved fn=Model.forward args(self=expr(y), dependency=expr(x)) scopes[super_kernel "outer"@53:14 > npu_stream_switch "1"@54:18 > limit_core_num(op_aicore_num=4, op_vectorcore_num=8)@56:22]
#   58:13 npu_wait_tensor resolved fn=Model.forward args(self=expr(x), dependency=expr(y)) scopes[super_kernel "outer"@53:14]
#   59:14 npu_stream_switch resolved fn=Model.forward args(stream_tag="2") scopes[]
#   59:48 super_kernel resolved fn=Model.forward args(scope="multi") scopes[npu_stream_switch "2"@59:14]
#   60:13 npu_wait_tensor resolved fn=Model.forward args(self=expr(x), dependency=expr(y)) scopes[npu_stream_switch "2"@59:14 > super_kernel "multi"@59:48]
#   62:13 npu_stream_switch resolved fn=Model.forward args(stream_tag="3") scopes[]
#   63:13 limit_core_num resolved fn=Model.forward args(op_aicore_num=2, op_vectorcore_num=4) scopes[npu_stream_switch "3"@62:13]
#   65:13 npu_wait_tensor resolved fn=Model.forward args(self=expr(x), dependency=expr(y)) scopes[npu_stream_switch "3"@62:13 > limit_core_num(op_aicore_num=2, op_vectorcore_num=4)@63:13]
#   66:15 npu_stream_switch resolved fn=Model.forward args(stream_tag="4") scopes[]
#   66:49 super_kernel resolved fn=Model.forward args(scope="paren") scopes[npu_stream_switch "4"@66:15]
#   67:13 npu_wait_tensor resolved fn=Model.forward args(self=expr(y), dependency=expr(x)) scopes[npu_stream_switch "4"@66:15 > super_kernel "paren"@66:49]
#   69:18 npu_stream_switch resolved fn=Model.forward args(stream_tag="loop") scopes[]
#   71:26 super_kernel resolved fn=Model.forward args(scope="then") scopes[npu_stream_switch "loop"@69:18]
#   72:25 npu_wait_tensor resolved fn=Model.forward args(self=expr(x), dependency=expr(y)) scopes[npu_stream_switch "loop"@69:18 > super_kernel "then"@71:26]
#   74:26 super_kernel resolved fn=Model.forward args(scope=None) scopes[npu_stream_switch "loop"@69:18]
#   75:25 npu_wait_tensor resolved fn=Model.forward args(self=expr(y), dependency=expr(x)) scopes[npu_stream_switch "loop"@69:18 > super_kernel None@74:26]
#   76:13 npu_wait_tensor resolved fn=Model.forward args(self=expr(x), dependency=expr(y)) scopes[]
#   78:18 npu_stream_switch resolved fn=Model.forward args(stream_tag="w") scopes[]
#   80:17 npu_wait_tensor resolved fn=Model.forward args(self=expr(x), dependency=expr(y)) scopes[npu_stream_switch "w"@78:18]
#   82:18 npu_stream_switch resolved fn=Model.forward args(stream_tag="t") scopes[]
#   83:17 npu_wait_tensor resolved fn=Model.forward args(self=expr(y), dependency=expr(x)) scopes[npu_stream_switch "t"@82:18]
#   85:13 npu_wait_tensor resolved fn=Model.forward args(self=expr(x), dependency=expr(y)) scopes[]
#
# Notes:
#   `super_kernel(None)` is still a super_kernel scope (tag None: it clears the outer one at plan
#   time; the scan only records it).
# Diagnostics: none.
# ---- end of expectations ----

import torch
import torchair as tng


class Model(torch.nn.Module):
    def forward(self, x, y, n, flag):
        with tng.scope.super_kernel("outer", "stream-fusion=1"):
            with tng.scope.npu_stream_switch("1"):
                tng.scope.npu_wait_tensor(x, y)
                with tng.scope.limit_core_num(4, 8):
                    tng.scope.npu_wait_tensor(y, x)
            tng.scope.npu_wait_tensor(x, y)
        with tng.scope.npu_stream_switch("2"), tng.scope.super_kernel("multi"):
            tng.scope.npu_wait_tensor(x, y)
        with (
            tng.scope.npu_stream_switch("3"),
            tng.scope.limit_core_num(2, 4),
        ):
            tng.scope.npu_wait_tensor(x, y)
        with (tng.scope.npu_stream_switch("4"), tng.scope.super_kernel("paren")):
            tng.scope.npu_wait_tensor(y, x)
        for i in range(n):
            with tng.scope.npu_stream_switch("loop"):
                if flag:
                    with tng.scope.super_kernel("then"):
                        tng.scope.npu_wait_tensor(x, y)
                else:
                    with tng.scope.super_kernel(None):
                        tng.scope.npu_wait_tensor(y, x)
            tng.scope.npu_wait_tensor(x, y)
        while n > 0:
            with tng.scope.npu_stream_switch("w") as s, torch.no_grad():
                n -= 1
                tng.scope.npu_wait_tensor(x, y)
        try:
            with tng.scope.npu_stream_switch("t"):
                tng.scope.npu_wait_tensor(y, x)
        finally:
            tng.scope.npu_wait_tensor(x, y)
        return x
