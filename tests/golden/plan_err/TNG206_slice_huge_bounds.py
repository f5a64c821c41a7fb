import torch
import torch_npu
import torchair


# Slices with bounds and steps near 2**63 are clamped as Python does, with
# no wrap: x[2**62:] is empty, x[::2**62] one row; an index that far is
# out of bounds, not a negative offset.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        a = x[2**62:2**62 + 2**61]
        b = x[-2**62:2**62:2**62]
        c = x[:, -2**62:-2**61]
        d = x[2**62 - 1]  # expect: TNG206
        e = x[:, -2**62]  # expect: TNG206
        return a, b, c


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 4).npu()
print(model(x))
