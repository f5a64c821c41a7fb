# tngc scan golden: scopes_conditional_variable.py
#
# Scopes given as conditional expressions and scopes held in variables.
# A with-item `A if c else B` (parenthesized or not) whose A or B is a resolved
# scope call opens that scope for the body, marked "conditional": true.  A local
# name assigned once from a scope call (or from such a conditional expression:
# then marked conditional too) and then used as a with-item opens that scope; the
# scope entry points at the call that created it, not at the `with`.
#
# Expected annotations of `tngc scan --format json`, in source order
# (notation: README.md in this folder):
#   41:15 npu_stream_switch resolved fn=Model.forward args(stream_tag="1") scopes[]
#   42:13 npu_wait_tensor resolved fn=Model.forward args(self=expr(x), dependency=expr(y)) scopes[npu_stream_switch "1"@41:15 conditional]
#   43:52 super_kernel resolved fn=Model.forward args(scope="cond") scopes[]
#   45:13 npu_wait_tensor resolved fn=Model.forward args(self=expr(z), dependency=expr(x)) scopes[super_kernel "cond"@43:52 conditional]
#   46:15 super_kernel resolved fn=Model.forward args(scope="held", options="feed-sync-all=1") scopes[]
#   48:13 npu_wait_tensor resolved fn=Model.forward args(self=expr(x), dependency=expr(z)) scopes[super_kernel "held"@46:15]
#   49:22 npu_stream_switch resolved fn=Model.forward args(stream_tag="2") scopes[]
#   52:17 npu_wait_tensor resolved fn=Model.forward args(self=expr(z), dependency=expr(y)) scopes[npu_stream_switch "2"@49:22 conditional > super_kernel "held"@46:15]
#   54:13 npu_wait_tensor resolved fn=Model.forward args(self=expr(y), dependency=expr(z)) scopes[]
#
# Notes:
#   `nullcontext()` and `with nullcontext() as nothing:` open nothing.
#   `ctx` is used twice; both uses give the same scope entry (super_kernel "held"@its call).
# Diagnostics: none.
# ---- end of expectations ----

from contextlib import nullcontext

import torch
import torchair as tng


class Model(torch.nn.Module):
    def __init__(self, multi_stream, use_sk):
        super().__init__()
        self.multi_stream = multi_stream
        self.use_sk = use_sk

    def forward(self, x, y):
        with (tng.scope.npu_stream_switch("1") if self.multi_stream else nullcontext()):
            tng.scope.npu_wait_tensor(x, y)
        with nullcontext() if not self.use_sk else tng.scope.super_kernel("cond"):
            z = x + y
            tng.scope.npu_wait_tensor(z, x)
        ctx = tng.scope.super_kernel("held", "feed-sync-all=1")
        with ctx:
            tng.scope.npu_wait_tensor(x, z)
        stream_ctx = tng.scope.npu_stream_switch("2") if self.multi_stream else nullcontext()
        with stream_ctx:
            with ctx:
                tng.scope.npu_wait_tensor(z, y)
        with nullcontext() as nothing:
            tng.scope.npu_wait_tensor(y, z)
        return z
