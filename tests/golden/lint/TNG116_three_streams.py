import torch
import torch_npu
import torchair as tng


# stream-fusion=0 (the default): at most two streams inside the super kernel.
# The scope itself runs on the default stream, "1" is the second stream and
# "2" the third.
class Model(torch.nn.Module):
    def forward(self, x, w1, w2):
        with tng.scope.super_kernel("sk", ""):
            a = torch.mm(x, w1)
            with tng.scope.npu_stream_switch("1"):
                b = torch.mm(x, w2)
            with tng.scope.npu_stream_switch("1"):
                b = torch.relu(b)
            with tng.scope.npu_stream_switch("2"):  # expect: TNG116
                c = torch.sigmoid(a)
            return a + b + c


config = tng.CompilerConfig()
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(64, 64).npu()
w1 = torch.randn(64, 64).npu()
w2 = torch.randn(64, 64).npu()
out = model(x, w1, w2)
