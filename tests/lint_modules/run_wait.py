# npu_wait_tensor in a function compiled with compile_utils's
# reduce-overhead backend: TNG104, as if the config were in this file.
import torch
import torchair
from torchair import scope
from compile_utils import npu_backend


class Model(torch.nn.Module):
    def forward(self, a, b):
        c = torch.add(a, b)
        with scope.npu_stream_switch("1", 3):
            scope.npu_wait_tensor(b, c)
            d = torch.mm(a, b)
        return c, d


model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
a = torch.randn(4, 4)
b = torch.randn(4, 4)
model(a, b)
