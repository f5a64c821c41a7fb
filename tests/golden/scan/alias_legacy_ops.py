# tngc scan golden: alias_legacy_ops.py
#
# The older torchair.ops spellings: torchair.ops.npu_stream_switch,
# torchair.ops.NpuStreamSwitch and torchair.ops.npu_wait_tensor, through
# several import forms.  TorchAir moved them to torchair.scope in March 2025;
# python/torchair/ops/__init__.py (fced8842 and 770a4d54) has none of them,
# so each call is reported UNRESOLVED (arguments named argN), with the kind
# of the name it resolves to (`wait` is npu_wait_tensor, `ops_switch`
# npu_stream_switch), and opens no scope.  `tngc lint` reports TNG170 there.
#
# Expected annotations of `tngc scan --format json`, in source order
# (notation: README.md in this folder):
#   35:14 npu_stream_switch UNRESOLVED fn=Model.forward args(arg0="1") scopes[]
#   36:13 npu_wait_tensor UNRESOLVED fn=Model.forward args(arg0=expr(a), arg1=expr(c)) scopes[]
#   38:14 npu_stream_switch UNRESOLVED fn=Model.forward args(arg0="2", arg1=0) scopes[]
#   40:14 npu_stream_switch UNRESOLVED fn=Model.forward args(arg0="3", stream_priority=0) scopes[]
#   41:13 npu_wait_tensor UNRESOLVED fn=Model.forward args(arg0=expr(d), arg1=expr(e)) scopes[]
#   42:14 npu_stream_switch UNRESOLVED fn=Model.forward args(arg0="4") scopes[]
#   43:13 npu_wait_tensor UNRESOLVED fn=Model.forward args(arg0=expr(d), arg1=expr(c)) scopes[]
#   44:18 npu_stream_switch UNRESOLVED fn=Model.forward args(arg0="5") scopes[]
#
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
