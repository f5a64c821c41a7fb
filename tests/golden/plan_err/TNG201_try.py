import torch
import torch_npu
import torchair


# try/except in the compiled method is a graph break: a graph cannot catch
# an exception.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w):
        y = torch.mm(x, w)
        try:  # expect: TNG201
            y = torch.relu(y)
        except RuntimeError:
            pass
        return y


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 16).npu()
w = torch.randn(16, 8).npu()
print(model(x, w))
