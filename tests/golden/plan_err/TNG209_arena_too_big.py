import torch
import torch_npu
import torchair


# Each result is 2^47 bytes, within the limit; the three outputs live to
# the end together, so the arena would pass 2^48 bytes at the third.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        a = x + 1
        b = x + 2
        c = x + 3  # expect: TNG209
        return a, b, c


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(2**45).npu()
print(model(x))
