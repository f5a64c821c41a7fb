# A wide graph: many inputs, many independent branches on several streams,
# a cat of many pieces, a long chain of ops built in loops, and gears on a
# dynamic dim; the planner's schedules, events and arenas grow with it.
import torch
import torchair
from torchair.scope import npu_stream_switch, npu_wait_tensor


class Wide(torch.nn.Module):
    def __init__(self, n=16):
        super().__init__()
        self.n = n
        self.layers = torch.nn.ModuleList([torch.nn.Linear(16, 16) for _ in range(n)])

    def forward(self, x, y):
        outs = []
        for i, layer in enumerate(self.layers):
            with npu_stream_switch(str(i % 4), 0):
                h = layer(x) + y
                for _ in range(4):
                    h = torch.relu(h) * 0.5 + h
                outs.append(h)
        head = outs[0]
        for h in outs[1:]:
            head = npu_wait_tensor(head, h)
        wide = torch.cat(outs, dim=-1)
        parts = torch.split(wide, 16, dim=-1)
        acc = parts[0]
        for p in parts[1:]:
            acc = acc + p
        return wide.sum(dim=-1, keepdim=True) + acc.mean() + head


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Wide(), backend=backend, dynamic=True, fullgraph=True)
x = torch.randn(4, 16)
y = torch.randn(4, 16)
torchair.inference.set_dim_gears(x, dim_gears={0: [2, 4, 8, 16]})
torchair.inference.set_dim_gears(y, dim_gears={0: [2, 4, 8, 16]})
out = model(x, y)
