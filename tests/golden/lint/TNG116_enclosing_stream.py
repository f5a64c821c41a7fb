import torch
import torch_npu
import torchair
from torchair.scope import npu_stream_switch, super_kernel


# The super kernel sits on stream "a"; "a" again is not new, "b" is the
# second stream and "c" the third.
class Model(torch.nn.Module):
    def forward(self, x, w):
        with npu_stream_switch("a"):
            with super_kernel("sk", "stream-fusion=0:feed-sync-all=1"):
                y = torch.mm(x, w)
                with npu_stream_switch("a"):
                    y = torch.relu(y)
                with npu_stream_switch("b"):
                    z = torch.sigmoid(y)
                with npu_stream_switch("c"):  # expect: TNG116
                    u = torch.tanh(y)
        return y + z + u


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(64, 64).npu()
w = torch.randn(64, 64).npu()
out = model(x, w)
