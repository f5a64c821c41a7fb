# A super kernel scope with an op that cannot be fused (npu_format_cast
# changes the storage layout): fusion walks the ops in program order, the
# format cast closes the first segment and runs on its own, and a second
# segment starts after it.
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w1, w2):
        with torchair.scope.super_kernel("sk", ""):
            a = torch.mm(x, w1)
            b = torch.relu(a)
            w2_nz = torch_npu.npu_format_cast(w2, 29)   # FRACTAL_NZ: not fusable
            c = torch.mm(b, w2_nz)
            d = torch.sigmoid(c)
        return d


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(16, 64).npu()
w1 = torch.randn(64, 64).npu()
w2 = torch.randn(64, 32).npu()
print(model(x, w1, w2).shape)
