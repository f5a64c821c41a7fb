import torch
import torch_npu
import torchair


# narrow's start + length and the sum of split sizes once wrapped
# (undefined behaviour in C): split([2**62] * 3 + [2**62 + 4]) of a dim of
# size 4 summed to 4 and was accepted. Now checked: one TNG206 each. A
# chunk or split size past the dim is no overflow: one part.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        a = x.narrow(0, 2**62, 2**62)  # expect: TNG206
        b = x.split([2**62] * 3 + [2**62 + 4])  # expect: TNG206
        c = torch.split(x, [2**62 - 1 + 2**62, 2**62 - 1 + 2**62], dim=1)  # expect: TNG206
        d = x.chunk(2**62 - 1 + 2**62)
        e = x.split(2**62 - 1 + 2**62, dim=1)
        return d[0] + 1, e[0] + 1


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 4).npu()
print(model(x))
