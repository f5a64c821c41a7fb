import torch
import torch_npu
import torchair


# Not in the compilable subset: an einsum with a repeated letter (a
# diagonal; Tensor.sort, which this script once used, now compiles).
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores):
        ranked = torch.einsum("ii->i", scores)  # expect: TNG203
        return ranked


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
scores = torch.randn(32, 32).npu()
print(model(scores))
