import torch
import torch_npu
import torchair as tng


# A keyword argument given twice is refused by CPython when it compiles the
# file ("SyntaxError: keyword argument repeated"), though the grammar
# parses it: reported at the second keyword, in a call and in class bases;
# the same name in two calls, or as a parameter and a keyword, is fine.
def scale(x, a=1, b=2):
    return x * a + b


class Model(torch.nn.Module):
    def forward(self, x):
        y = scale(x, a=2, b=3) + scale(x, a=4)
        return scale(y, a=1, b=2, a=3)  # expect: TNG001


class Other(Model, metaclass=type, metaclass=type):  # expect: TNG001
    pass


model = Model()
config = tng.CompilerConfig()
npu_backend = tng.get_npu_backend(compiler_config=config, compiler_config=None)  # expect: TNG001
model = torch.compile(model, backend=npu_backend, dynamic=False, fullgraph=True)
