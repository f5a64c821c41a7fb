# The CPU's stream cost model counts a stream's runs (planner/streams.c):
# each maximal sequence of a stream's ops in program order is handed to
# its thread and back, so what must pay for a hand-off (about 10 us) is
# the work of one run. A product's work is its flops or the reading of its
# operands, whichever takes longer. Stream "kv" does a [1, 256] x [256, 128]
# mm in each of six layers: 128 KiB read, about 7 us a run, 40 us in all;
# it runs on stream 0. Stream "wide" does a [1, 1024] x [1024, 320] mm in
# two of them: 1.25 MiB, about 66 us a run; it keeps its thread. The plan
# reports both, with their runs.
import torch
import torch_npu
import torchair as tng


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, wk, u, ww):
        h = x
        outs = []
        for layer in range(6):
            h = torch.relu(h) + 1.0
            with tng.scope.npu_stream_switch("kv"):
                k = torch.mm(h, wk)
            outs.append(k.sum())
            if layer % 3 == 0:
                with tng.scope.npu_stream_switch("wide"):
                    v = torch.mm(u, ww)
                outs.append(v.sum())
        return torch.stack(outs).sum() + h.sum()


config = tng.CompilerConfig()
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(1, 256).npu()
wk = torch.randn(256, 128).npu()
u = torch.randn(1, 1024).npu()
ww = torch.randn(1024, 320).npu()
print(model(x, wk, u, ww).shape)
