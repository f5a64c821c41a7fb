# tngc-args: --streams-as-written
# Explicit waits that chain across three streams. A runs on the default
# stream; B on "1" waits for A; C on "2" waits for B; D on "2" also waits
# for A, which stream "2" has already waited for through B: that event is
# redundant and dropped.
import torch
import torch_npu
import torchair as tng


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, in1, in2, in3, in4, in5):
        a = torch.add(in1, in2)                  # A: default stream
        with tng.scope.npu_stream_switch("1"):
            tng.scope.npu_wait_tensor(in3, a)
            b = torch.mm(in3, in3)               # B: stream "1", after A
        with tng.scope.npu_stream_switch("2"):
            tng.scope.npu_wait_tensor(in4, b)
            c = torch.relu(in4)                  # C: stream "2", after B
            tng.scope.npu_wait_tensor(in5, a)
            d = torch.sigmoid(in5)               # D: stream "2", after A (implied)
        return a, b, c, d


config = tng.CompilerConfig()
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
in1 = torch.randn(32, 32).npu()
in2 = torch.randn(32, 32).npu()
in3 = torch.randn(32, 32).npu()
in4 = torch.randn(32, 32).npu()
in5 = torch.randn(32, 32).npu()
result = model(in1, in2, in3, in4, in5)
print([r.shape for r in result])
