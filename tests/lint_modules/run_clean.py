# Clean: max_autotune.py's config is max-autotune, so npu_wait_tensor and
# gears are fine; its refused graph_dump.type is max_autotune.py's own
# finding (not reported here).
import torch
import torchair
from torchair.inference import set_dim_gears
from max_autotune import backend


class Model(torch.nn.Module):
    def forward(self, a, b):
        c = torch.add(a, b)
        with torchair.scope.npu_stream_switch("1"):
            torchair.scope.npu_wait_tensor(b, c)
            d = torch.mm(a, b)
        return c, d


model = torch.compile(Model(), backend=backend, fullgraph=True)
a = torch.randn(4, 4)
b = torch.randn(4, 4)
set_dim_gears(a, {0: [2, 4]})
model(a, b)
