# reshape(bsz, q_len, -1) behind a geared bsz: the inferred dim is 64, not
# s0*512//(s0*8), so s0 stays row-independent (--pad can serve it).
import torch
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(64, 64)

    def forward(self, x):
        bsz, q_len, _ = x.shape
        y = self.proj(x)
        y = y.view(bsz, q_len, 4, 16)
        y = y.reshape(bsz, q_len, -1)
        return y


model = Model()
config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
compiled = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(2, 8, 64)
torchair.inference.set_dim_gears(x, dim_gears={0: [2, 4, 8]})
compiled(x)
