import torch
import torch_npu
import torchair


# Tensor.sort is not in the compilable subset.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores):
        ranked = scores.sort(dim=-1, descending=True)  # expect: TNG203
        return ranked


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
scores = torch.randn(4, 32).npu()
print(model(scores))
