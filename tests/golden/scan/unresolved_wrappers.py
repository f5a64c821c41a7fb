# tngc scan golden: unresolved_wrappers.py
#
# Calls that only share the final name of an annotation are reported with
# resolved false: a project's own wrapper defs, names imported from other
# packages, methods of unrelated objects, a torchair path that does not exist,
# and a name that a function parameter or local assignment shadows.  For an
# unresolved call the positional arguments are named arg0, arg1, ... (by
# position) since its signature is unknown; keywords keep their names.
# Only resolved scopes enter the `scopes` of the annotations inside them.
#
# Expected annotations of `tngc scan --format json`, in source order
# (notation: README.md in this folder):
#   44:12 npu_stream_switch resolved fn=npu_stream_switch args(stream_tag=expr(tag)) scopes[]
#   57:14 npu_stream_switch UNRESOLVED fn=Layer.forward args(arg0=expr(flag), arg1="1") scopes[]
#   58:13 npu_wait_tensor resolved fn=Layer.forward args(self=expr(x), dependency=expr(y)) scopes[]
#   59:14 super_kernel resolved fn=Layer.forward args(scope="outer") scopes[]
#   60:13 npu_wait_tensor UNRESOLVED fn=Layer.forward args(arg0=expr(flag), arg1=expr(x), arg2=expr(y)) scopes[super_kernel "outer"@59:14]
#   61:18 super_kernel UNRESOLVED fn=Layer.forward args(arg0="sk") scopes[super_kernel "outer"@59:14]
#   63:14 npu_stream_switch UNRESOLVED fn=Layer.forward args(arg0="2", stream_priority=1) scopes[]
#   65:14 super_kernel UNRESOLVED fn=Layer.forward args(arg0="sk2") scopes[]
#   67:14 limit_core_num UNRESOLVED fn=Layer.forward args(arg0=expr(stream)) scopes[]
#   69:9 npu_stream_switch UNRESOLVED fn=Layer.forward args(arg0="3") scopes[]
#   70:9 cache_compile UNRESOLVED fn=Layer.forward args(arg0=expr(self.forward)) scopes[]
#   75:10 npu_stream_switch UNRESOLVED fn=scoped args(arg0="4") scopes[]
#   81:10 super_kernel UNRESOLVED fn=local_shadow args(arg0="sk3") scopes[]
#
# Notes:
#   The body of the wrapper npu_stream_switch() holds a real, resolved annotation.
#   `with torch.npu.stream(stream)` and the `def` lines themselves are not reported.
#   Line 69: torchair has no top-level npu_stream_switch.
#   Line 70: the capital-I `torchair.Inference` of a TorchAir documentation example does not exist.
# Diagnostics: none.
# ---- end of expectations ----

from contextlib import nullcontext

import torch
import torchair as tng
from mypkg.utils import super_kernel
from mypkg import streams


def npu_stream_switch(switch_flag, tag):
    return tng.scope.npu_stream_switch(tag) if switch_flag else nullcontext()


def npu_wait_tensor(switch_flag, a, b):
    return a


def limit_core_num(stream):
    return torch.npu.stream(stream)


class Layer(torch.nn.Module):
    def forward(self, x, y, flag, helper, stream):
        with npu_stream_switch(flag, "1"):
            tng.scope.npu_wait_tensor(x, y)
        with tng.scope.super_kernel("outer"):
            npu_wait_tensor(flag, x, y)
            with super_kernel("sk"):
                z = x + y
        with streams.npu_stream_switch("2", stream_priority=1):
            z = z - 1
        with helper.super_kernel("sk2"):
            z = z + 1
        with limit_core_num(stream), torch.npu.stream(stream):
            z = z / 2
        tng.npu_stream_switch("3")
        tng.Inference.cache_compile(self.forward)
        return z


def scoped(tng, x):
    with tng.scope.npu_stream_switch("4"):
        return x


def local_shadow(x, make_scopes):
    tng = make_scopes()
    with tng.scope.super_kernel("sk3"):
        return x
