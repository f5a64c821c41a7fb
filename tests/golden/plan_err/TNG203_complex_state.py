import torch
import torch_npu
import torchair
from torch import nn

# A complex tensor is never a weight (a weights file holds real tensors;
# PyTorch's state_dict has the complex64 buffer), never a compiled entry's
# argument or result, and a module holding a complex buffer is not re-typed by
# Module.to(dtype), which PyTorch casts to the real dtype (dropping the
# imaginary parts). half() keeps it (a complex tensor is no floating point
# one), as PyTorch does.
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        a = torch.arange(8).float()
        self.register_buffer("kept", torch.polar(torch.ones_like(a), a))
        self.register_buffer("local", torch.polar(a, a), persistent=False)
        self.drawn = torch.polar(a, a)
        self.drawn.uniform_()   # refused: data tngc does not know from here on

    def forward(self, x):
        y = torch.view_as_real(self.kept)  # expect: TNG203
        d = torch.view_as_real(self.drawn)  # expect: TNG203
        return torch.view_as_complex(x) * self.local


class Other(nn.Module):
    def __init__(self):
        super().__init__()
        a = torch.arange(8).float()
        self.register_buffer("local", torch.polar(a, a), persistent=False)


Other().half()
Other().to(torch.float16)  # expect: TNG203
config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, dynamic=False, fullgraph=True)
print(model(torch.randn(8, 2).npu()))  # expect: TNG203
z = torch.polar(torch.ones(4), torch.arange(4).float())
print(model(z))  # expect: TNG203
