import torch
import torch_npu
import torchair


# Module-level code that recurses 100 deep: valid Python, beyond the
# interpreter's limit of 64 nested calls.
def layer_widths(depth, width):
    if depth == 0:
        return []
    return [width] + layer_widths(depth - 1, width)  # expect: TNG212


WIDTHS = layer_widths(100, 16)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(WIDTHS[0], WIDTHS[-1])

    def forward(self, x):
        return torch.relu(self.fc(x))


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 16).npu()
print(model(x))
