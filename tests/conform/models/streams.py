# tolerance: matmul
# Multi-stream execution: ops on three streams ("1", "2" and the
# default), data edges between them (events added by the planner),
# explicit npu_wait_tensor waits, the same tag used twice, nested switches
# (the innermost wins), float32 and float16 work on the side streams. The
# results must be those of the program order. (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair as tng


class Model(torch.nn.Module):
    def forward(self, x, w1, w2, h, hw):
        # x [32, 64], w1 [64, 64], w2 [64, 32] float32; h [32, 64], hw [64, 64] float16
        a = torch.mm(x, w1)
        with tng.scope.npu_stream_switch("1"):
            b = F.gelu(torch.mm(x, w1.t()))
            hh = torch.mm(h, hw)                    # float16 on stream 1
        c = a + b                                   # waits for stream 1
        with tng.scope.npu_stream_switch("2"):
            tng.scope.npu_wait_tensor(c, a)
            d = torch.softmax(c, dim=-1)
            with tng.scope.npu_stream_switch("1"):
                e = torch.mm(d, w2)                 # stream 1 again
            f = torch.tanh(hh) * 2.0                # stream 2, float16
        g = e.sum(dim=0) + torch.relu(a).mean(dim=0)[:32]
        with tng.scope.npu_stream_switch("2"):
            k = torch.layer_norm(c, (64,))
        return c, d, e, f, g, k


config = tng.CompilerConfig()
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(32, 64).npu()
w1 = (torch.randn(64, 64) * 0.125).npu()
w2 = torch.randn(64, 32).npu()
h = torch.randn(32, 64, dtype=torch.float16).npu()
hw = (torch.randn(64, 64) * 0.125).half().npu()
with torch.no_grad():
    outs = model(x, w1, w2, h, hw)
print([tuple(o.shape) for o in outs])
