import torch
import torch_npu
import torchair


# A shape error in module-level code was once silent, seen only as
# "argument 'x' of the compiled entry is not known" at the call. It is
# reported at its own line, once: what is computed from the failed tensor
# (the next doublings, the call of the model) stays quiet, in module-level
# code and in the compiled method alike.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        z = y
        for i in range(62):
            z = torch.cat([z, z])  # expect: TNG206
        return x + 1, z.sum(), z + 1


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.zeros(2**62, 4)  # expect: TNG206
y = torch.randn(2, 4).npu()
for i in range(62):
    y = torch.cat([y, y])  # expect: TNG206
print(model(x, torch.randn(2, 4)))
print(model(x.npu() + 1, y))
