import torch
import torch_npu
import torchair


# A while loop cannot be lowered into the graph: unroll it with a for over
# a constant range.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        h = torch.relu(x)
        i = 0
        while i < 3:  # expect: TNG201
            h = h * 0.5
            i += 1
        return h


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 16).npu()
print(model(x))
