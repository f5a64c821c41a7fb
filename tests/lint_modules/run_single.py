# npu_stream_switch while single_stream.py's config (used here) sets
# ge_config.enable_single_stream: TNG101 names where it was set.
import torch
import torchair
from single_stream import backend as single_backend


class Model(torch.nn.Module):
    def forward(self, a):
        with torchair.scope.npu_stream_switch("1"):
            a = a + 1
        return a


model = torch.compile(Model(), backend=single_backend)
