import torch
import torch_npu
import torchair


# mm of a float16 activation by a float32 weight: mm does not promote.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w):
        return torch.mm(x.half(), w)  # expect: TNG207


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 8).npu()
w = torch.randn(8, 8).npu()
print(model(x, w))
