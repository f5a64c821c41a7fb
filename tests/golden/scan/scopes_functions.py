# tngc scan golden: scopes_functions.py
#
# The `function` of an annotation: `<module>` at module level; otherwise the
# dotted names of the enclosing classes and defs (`Outer.Inner.forward`;
# a nested def is `top.inner`, without Python's `<locals>`); lambdas and
# comprehensions add nothing; code in a class body gets the class name.  A def
# or lambda body starts with no scopes: the with-blocks around a def or lambda
# do not apply to the calls inside it (they run when it is called).
#
# Expected annotations of `tngc scan --format json`, in source order
# (notation: README.md in this folder):
#   35:1 npu_wait_tensor resolved fn=<module> args(self=expr(torch.ones(1)), dependency=expr(torch.ones(1))) scopes[]
#   39:5 npu_wait_tensor resolved fn=top args(self=expr(x), dependency=expr(x)) scopes[]
#   42:14 npu_stream_switch resolved fn=top.inner args(stream_tag="in") scopes[]
#   43:20 npu_wait_tensor resolved fn=top.inner args(self=expr(y), dependency=expr(x)) scopes[npu_stream_switch "in"@42:14]
#   49:14 npu_stream_switch resolved fn=Outer args(stream_tag="class-body") scopes[]
#   53:18 super_kernel resolved fn=Outer.Inner.forward args(scope="inner") scopes[]
#   54:24 npu_wait_tensor resolved fn=Outer.Inner.forward args(self=expr(x), dependency=expr(x)) scopes[super_kernel "inner"@53:18]
#   57:14 npu_stream_switch resolved fn=Outer.forward args(stream_tag="outer") scopes[]
#   59:24 npu_wait_tensor resolved fn=Outer.forward.helper args(self=expr(a), dependency=expr(y)) scopes[]
#   60:28 npu_wait_tensor resolved fn=Outer.forward args(self=expr(a), dependency=expr(x)) scopes[]
#   61:40 npu_wait_tensor resolved fn=Outer.forward args(self=expr(x), dependency=expr(y)) scopes[npu_stream_switch "outer"@57:14]
#   65:25 super_kernel resolved fn=Outer.build args(scope=expr("l%d" % i)) scopes[]
#   69:10 limit_core_num resolved fn=serve args(op_aicore_num=1, op_vectorcore_num=2) scopes[]
#   70:16 npu_wait_tensor resolved fn=serve args(self=expr(x), dependency=expr(x)) scopes[limit_core_num(op_aicore_num=1, op_vectorcore_num=2)@69:10]
#
# Notes:
#   `async def` is named like def.
# Diagnostics: none.
# ---- end of expectations ----

import torch
import torchair as tng

tng.scope.npu_wait_tensor(torch.ones(1), torch.ones(1))


def top(x):
    tng.scope.npu_wait_tensor(x, x)

    def inner(y):
        with tng.scope.npu_stream_switch("in"):
            return tng.scope.npu_wait_tensor(y, x)

    return inner


class Outer(torch.nn.Module):
    stream = tng.scope.npu_stream_switch("class-body")

    class Inner(torch.nn.Module):
        def forward(self, x):
            with tng.scope.super_kernel("inner"):
                return tng.scope.npu_wait_tensor(x, x)

    def forward(self, x, y):
        with tng.scope.npu_stream_switch("outer"):
            def helper(a):
                return tng.scope.npu_wait_tensor(a, y)
            fn = lambda a: tng.scope.npu_wait_tensor(a, x)
            return helper(x) + fn(y) + tng.scope.npu_wait_tensor(x, y)

    @staticmethod
    def build():
        return [lambda: tng.scope.super_kernel("l%d" % i) for i in range(2)]


async def serve(x):
    with tng.scope.limit_core_num(1, 2):
        return tng.scope.npu_wait_tensor(x, x)
