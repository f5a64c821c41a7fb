# tngc scan golden: args_constants_exprs.py
#
# Module-level constants and non-literal arguments.  A name is replaced by its
# value when it is bound exactly once at module level (anywhere outside defs
# and classes, including inside a module-level if), by `NAME = <literal>`,
# `NAME: T = <literal>` or `NAME = OTHER` with OTHER such a constant (ALIAS has
# TAG's value), and the function using it does not bind it itself.  Anything
# else is {"expr": "<exact source text>"}: names bound twice (reassigned, or in
# both branches of an if), tuple unpacking, names changed through `global`,
# containers holding names, f-strings, attributes, operators, calls.  *args /
# **kwargs are reported under the keys `*` and `**` with the expr unpacked.
#
# Expected annotations of `tngc scan --format json`, in source order
# (notation: README.md in this folder):
#   68:14 npu_stream_switch resolved fn=Model.forward args(stream_tag="1", stream_priority=0) scopes[]
#   69:14 super_kernel resolved fn=Model.forward args(scope="sk_const", options="stream-fusion=1") scopes[]
#   70:14 npu_stream_switch resolved fn=Model.forward args(stream_tag=expr(RETAGGED)) scopes[]
#   71:14 npu_stream_switch resolved fn=Model.forward args(stream_tag=expr(COND)) scopes[]
#   72:14 npu_stream_switch resolved fn=Model.forward args(stream_tag="1") scopes[]
#   73:14 npu_stream_switch resolved fn=Model.forward args(stream_tag=expr(A)) scopes[]
#   74:14 npu_stream_switch resolved fn=Model.forward args(stream_tag=expr(COUNTER)) scopes[]
#   75:14 npu_stream_switch resolved fn=Model.forward args(stream_tag=expr(f"{a}"), stream_priority=expr(b)) scopes[]
#   76:14 npu_stream_switch resolved fn=Model.forward args(stream_tag=expr(cfg.tag), stream_priority=expr(cfg.priority + 1)) scopes[]
#   77:15 npu_stream_switch resolved fn=Model.forward args(stream_tag=expr(a + b), stream_priority=expr(int("0"))) scopes[]
#   78:15 npu_stream_switch resolved fn=Model.forward args(stream_tag=expr(self.TAG), stream_priority=expr([PRIORITY])) scopes[]
#   79:9 set_dim_gears resolved fn=Model.forward args(t=expr(x), dim_gears={"0": [2, 4]}) scopes[]
#   80:9 set_dim_gears resolved fn=Model.forward args(t=expr(y), dim_gears=expr({0: BATCHES})) scopes[]
#   81:9 npu_wait_tensor resolved fn=Model.forward args(*=expr(pair)) scopes[]
#   82:9 cache_compile resolved fn=Model.forward args(func=expr(self.forward), **=expr(opts)) scopes[]
#   88:12 npu_stream_switch resolved fn=shadowed args(stream_tag=expr(TAG)) scopes[]
#
# Notes:
#   `TAG` inside Model.forward is the module constant "1" (the class attribute `Model.TAG`
#   is not visible there); `self.TAG` is expr(self.TAG).  In shadowed() the local assignment
#   `TAG = "local"` makes `TAG` expr(TAG).
# Diagnostics: none.
# ---- end of expectations ----

import torch
import torchair as tng

TAG = "1"
PRIORITY = 0
GEARS = {0: [2, 4]}
SK_NAME: str = "sk_const"
OPTIONS = "stream-fusion=1"
RETAGGED = "a"
RETAGGED = "b"
if torch.cuda.is_available():
    COND = "x"
else:
    COND = "y"
ALIAS = TAG
BATCHES = [2, 4]
A, B = "p", "q"
COUNTER = 1


def bump():
    global COUNTER
    COUNTER = COUNTER + 1


class Model(torch.nn.Module):
    TAG = "class-attr"

    def forward(self, x, y, a, b, cfg, pair, opts):
        s1 = tng.scope.npu_stream_switch(TAG, PRIORITY)
        s2 = tng.scope.super_kernel(SK_NAME, OPTIONS)
        s3 = tng.scope.npu_stream_switch(RETAGGED)
        s4 = tng.scope.npu_stream_switch(COND)
        s5 = tng.scope.npu_stream_switch(ALIAS)
        s6 = tng.scope.npu_stream_switch(A)
        s7 = tng.scope.npu_stream_switch(COUNTER)
        s8 = tng.scope.npu_stream_switch(f"{a}", stream_priority=b)
        s9 = tng.scope.npu_stream_switch(cfg.tag, cfg.priority + 1)
        s10 = tng.scope.npu_stream_switch(a + b, int("0"))
        s11 = tng.scope.npu_stream_switch(self.TAG, [PRIORITY])
        tng.inference.set_dim_gears(x, GEARS)
        tng.inference.set_dim_gears(y, {0: BATCHES})
        tng.scope.npu_wait_tensor(*pair)
        tng.inference.cache_compile(self.forward, **opts)
        return s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11


def shadowed(x):
    TAG = "local"
    return tng.scope.npu_stream_switch(TAG)
