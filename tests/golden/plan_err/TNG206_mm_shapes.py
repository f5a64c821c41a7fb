import torch
import torch_npu
import torchair


# [4, 8] @ [16, 4]: the inner dims differ (8 vs 16).
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w):
        return torch.mm(x, w)  # expect: TNG206


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 8).npu()
w = torch.randn(16, 4).npu()
print(model(x, w))
