# The CPU's stream cost model (planner/streams.c): a branch whose estimated
# work is below a thread hand-off (about 10 us) in every gear runs on the
# default stream; a branch large enough keeps its thread. Stream "small" is
# one [4, 32] x [32, 32] mm (about 0.3 us): it joins stream 0, and its
# waits disappear. Stream "big" is a [256, 512] x [512, 512] mm (about
# 4 ms): it keeps its own thread and its events. The plan reports both
# under "stream cost model".
import torch
import torch_npu
import torchair as tng


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w, a, b):
        h = torch.relu(x)                         # default stream
        with tng.scope.npu_stream_switch("small"):
            s = torch.mm(h, w)                    # too small: runs on stream 0
        with tng.scope.npu_stream_switch("big"):
            y = torch.mm(a, b)                    # own thread
        tng.scope.npu_wait_tensor(h, s)
        return s.sum() + y.sum()


config = tng.CompilerConfig()
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 32).npu()
w = torch.randn(32, 32).npu()
a = torch.randn(256, 512).npu()
b = torch.randn(512, 512).npu()
print(model(x, w, a, b).shape)
