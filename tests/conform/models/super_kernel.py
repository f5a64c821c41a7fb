# tolerance: matmul
# Super kernels: a scope fusing a linear, softmax, layer_norm,
# npu_rms_norm and elementwise ops into one dispatch; a second scope with
# "stream-fusion=1" whose ops run on two streams; super_kernel(None) clearing
# the outer scope for one op; bfloat16 and float16 ops inside a scope. The
# results must be those of the plain ops. (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 32)
        self.ln = nn.LayerNorm(32)
        self.gamma = nn.Parameter(torch.rand(32) + 0.5)

    def forward(self, x, w, b, h):
        # x [16, 32], w [32, 32] float32; b [16, 32] bfloat16; h [16, 32] float16
        with torchair.scope.super_kernel("sk1", ""):
            y = self.fc(x)
            p = torch.softmax(y * 0.5, dim=-1)
            n = self.ln(y + p)
            with torchair.scope.super_kernel(None):
                z = torch.sigmoid(n)                   # outside any super kernel
            r = torch_npu.npu_rms_norm(n + z, self.gamma)[0]
            bb = F.silu(b) * 2.0 + b                   # bfloat16
        with torchair.scope.super_kernel("sk2", "stream-fusion=1"):
            u = torch.mm(r, w)
            with torchair.scope.npu_stream_switch("1"):
                v = torch.mm(x, w.t())
                hh = torch.exp(h * 0.25) - 1.0        # float16
            s = u + v
        return r, bb, s, hh, z


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(16, 32).npu()
w = torch.randn(32, 32).npu()
b = torch.randn(16, 32).bfloat16().npu()
h = torch.randn(16, 32, dtype=torch.float16).npu()
with torch.no_grad():
    outs = model(x, w, b, h)
print([tuple(o.shape) for o in outs])
