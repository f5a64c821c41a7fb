# A tensor attribute one compiled entry keeps as state (it writes into it
# in place) and a second entry, compiled after it, only reads: the reader
# holds it as state shared with the writer's bundle (`state shared
# M.prefill "cache"` in its plan), read from the weights file when its
# launcher runs on its own, bound to the writer's copy in a program that
# runs both (tngrt_bundle_share_state).
# tolerance: default
import torch
import torch_npu
import torchair


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = torch.zeros(4, 8)

    def prefill(self, x):
        self.cache[:2] = x
        return self.cache[:2] * 2

    def decode(self, x):
        return self.cache[:3] + x[:1]


m = M()
prefill = torch.compile(m.prefill, fullgraph=True)
decode = torch.compile(m.decode, fullgraph=True)
prefill(torch.randn(2, 8))
print(decode(torch.randn(2, 8)))
