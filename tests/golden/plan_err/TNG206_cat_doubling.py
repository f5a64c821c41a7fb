import torch
import torch_npu
import torchair


# 62 doublings by cat printed a dim of -9223372036854775808. The
# 44th doubling of a float32 [2, 4] is the first past 2^48 bytes.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = x
        for i in range(43):
            y = torch.cat([y, y])
        z = torch.cat([y, y])  # expect: TNG206
        return x


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(2, 4).npu()
print(model(x))
