import torch
import torch_npu
import torchair


# The older torchair.ops spelling of the stream scope.
class Model(torch.nn.Module):
    def forward(self, x, w1, w2):
        with torchair.ops.npu_stream_switch("1", 1):  # expect: TNG103
            a = torch.mm(x, w1)
        with torchair.ops.npu_stream_switch("2", stream_priority=-1):  # expect: TNG103
            b = torch.mm(x, w2)
        with torchair.ops.npu_stream_switch("3", stream_priority=0):
            c = torch.add(a, b)
        return c


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(32, 64).npu()
w1 = torch.randn(64, 64).npu()
w2 = torch.randn(64, 64).npu()
out = model(x, w1, w2)
