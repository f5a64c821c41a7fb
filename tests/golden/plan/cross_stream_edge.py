# tngc-args: --streams-as-written
# Data edges between streams without any npu_wait_tensor: each one gets an
# event automatically (record after the producer, wait before the consumer).
# up is used twice on the default stream: the second use needs no new wait.
import torch
import torch_npu
import torchair as tng


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w_gate, w_up, w_down):
        h = torch.sigmoid(x)                      # default stream
        gate = torch.mm(h, w_gate)                # default stream
        with tng.scope.npu_stream_switch("1"):
            up = torch.mm(h, w_up)                # stream "1": waits for h
        act = torch.nn.functional.silu(gate) * up  # default: waits for up
        res = up + h                              # default: up already waited for
        with tng.scope.npu_stream_switch("2"):
            down = torch.mm(act, w_down)          # stream "2": waits for act
        return down + res                         # default: waits for down


config = tng.CompilerConfig()
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(8, 32).npu()
w_gate = torch.randn(32, 32).npu()
w_up = torch.randn(32, 32).npu()
w_down = torch.randn(32, 32).npu()
print(model(x, w_gate, w_up, w_down).shape)
