import torch
import torch_npu
import torchair as tng


class Model(torch.nn.Module):
    # Called from forward through self._fused(...), so it is compiled too.
    def _fused(self, x, w):
        with tng.scope.super_kernel("sp1", ""):  # expect: TNG114
            return torch.relu(torch.mm(x, w))

    def forward(self, x, w):
        return self._fused(x, w) + 1


config = tng.CompilerConfig()
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(864, 7168, dtype=torch.float16).npu()
w = torch.randn(7168, 4096, dtype=torch.float16).npu()
out = model(x, w)
