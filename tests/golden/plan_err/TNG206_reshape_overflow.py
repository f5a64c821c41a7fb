import torch
import torch_npu
import torchair


# (2**62 + 4) * 4 elements wrap to 16, x's own count, so the unchecked
# reshape passed and the select read 16 bytes before x; so did
# (2**20 + 1) * (2**40 - 2**20 + 1) * 16 = 2**64 + 16 with each dim below
# 2^48. Every size is checked: no tensor may pass 2^48 bytes, no size
# arithmetic may overflow.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = x.reshape(2**62 + 4, 4)[2**62 - 1]  # expect: TNG206
        z = x.view(2**40, 2**40, -1)  # expect: TNG206
        w = x.view(1048577, 1099510579201, 16)  # expect: TNG206
        return y, z, w


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 4).npu()
print(model(x))
