import torch
import torch_npu
import torchair


# In-place slice assignment is lowered into inputs and buffers (KV caches);
# h is the result of an op.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        h = torch.relu(x)
        h[:, 0:4] = y  # expect: TNG211
        return h


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 16).npu()
y = torch.randn(4, 4).npu()
print(model(x, y))
