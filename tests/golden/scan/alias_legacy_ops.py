# tngc scan golden: alias_legacy_ops.py
#
# The older torchair.ops spellings: torchair.ops.npu_stream_switch,
# torchair.ops.NpuStreamSwitch (a class used as a context manager) and
# torchair.ops.npu_wait_tensor, through several import forms.  NpuStreamSwitch
# is reported with kind npu_stream_switch and the same argument names.
#
# Expected annotations of `tngc scan --format json`, in source order
# (notation: README.md in this folder):
#   34:14 npu_stream_switch resolved fn=Model.forward args(stream_tag="1") scopes[]
#   35:13 npu_wait_tensor resolved fn=Model.forward args(self=expr(a), dependency=expr(c)) scopes[npu_stream_switch "1"@34:14]
#   37:14 npu_stream_switch resolved fn=Model.forward args(stream_tag="2", stream_priority=0) scopes[]
#   39:14 npu_stream_switch resolved fn=Model.forward args(stream_tag="3", stream_priority=0) scopes[]
#   40:13 npu_wait_tensor resolved fn=Model.forward args(self=expr(d), dependency=expr(e)) scopes[npu_stream_switch "3"@39:14]
#   41:14 npu_stream_switch resolved fn=Model.forward args(stream_tag="4") scopes[]
#   42:13 npu_wait_tensor resolved fn=Model.forward args(self=expr(d), dependency=expr(c)) scopes[npu_stream_switch "4"@41:14]
#   43:18 npu_stream_switch resolved fn=Model.forward args(stream_tag="5") scopes[npu_stream_switch "4"@41:14]
#
# Notes:
#   All resolved; nested stream scopes come out outermost first.
# Diagnostics: none.
# ---- end of expectations ----

import torch
import torchair
from torchair import ops
from torchair.ops import NpuStreamSwitch, npu_wait_tensor as wait
from torchair.ops import npu_stream_switch as ops_switch


class Model(torch.nn.Module):
    def forward(self, a, b):
        c = a + b
        with torchair.ops.NpuStreamSwitch("1"):
            torchair.ops.npu_wait_tensor(a, c)
            d = a * b
        with torchair.ops.npu_stream_switch("2", 0):
            e = a - b
        with NpuStreamSwitch("3", stream_priority=0):
            wait(d, e)
        with ops.NpuStreamSwitch("4"):
            ops.npu_wait_tensor(d, c)
            with ops_switch("5"):
                f = d + e
        return f
