# tngc-args: --streams-as-written
# One super kernel whose ops run on three streams, with stream-fusion=0 (the
# default): at most two streams per super kernel (as in TorchAir), so the op that
# brings in the third stream ends the segment. The third stream is switched
# to in a helper method called inside the scope: scopes follow the calls,
# so its op belongs to the super kernel too (tngc lint, which reads each
# function on its own, does not see it: TNG116 stays silent).
import torch
import torch_npu
import torchair as tng


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def side(self, x, w):
        with tng.scope.npu_stream_switch("2"):
            return torch.mm(x, w)                 # stream "2": a third stream

    def forward(self, x, w1, w2, w3):
        with tng.scope.super_kernel("sk", "stream-fusion=0"):
            a = torch.mm(x, w1)                   # default stream
            with tng.scope.npu_stream_switch("1"):
                b = torch.mm(x, w2)               # stream "1"
            c = self.side(x, w3)
            d = a + b
            e = d + c
        return e


config = tng.CompilerConfig()
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(16, 32).npu()
w1 = torch.randn(32, 32).npu()
w2 = torch.randn(32, 32).npu()
w3 = torch.randn(32, 32).npu()
print(model(x, w1, w2, w3).shape)
