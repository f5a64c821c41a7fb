import torch
import torch_npu
import torchair


# Tensors created with sizes past 2^48 bytes, or whose element count
# overflows int64, are refused where they are created.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        a = torch.zeros(2**62, 4)  # expect: TNG206
        b = torch.ones(2**31, 2**31, 2**31, dtype=torch.int8)  # expect: TNG206
        c = torch.full((2**47, 2), 1.0, dtype=torch.float16)  # expect: TNG206
        d = torch.empty(2**45, 2, dtype=torch.float16)
        return x + 1, d


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 4).npu()
print(model(x))
