# tngc-args: --max-memory 8
import torch
import torch_npu
import torchair


# A lookup table built at module level, larger than the interpreter's
# memory budget (8 MB here; 512 MB by default, raised with --max-memory):
# one TNG212 at the statement running when the budget runs out.
def build_table(rows):
    table = []
    for r in range(rows):
        table.append([r] * 1000)  # expect: TNG212
    return table


TABLE = build_table(50000)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x):
        return torch.relu(self.fc(x))


model = torch.compile(Model().npu(), backend=torchair.get_npu_backend(), dynamic=False, fullgraph=True)
print(model(torch.randn(4, 16).npu()))
