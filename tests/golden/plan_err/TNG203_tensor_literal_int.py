import torch
import torch_npu
import torchair


# torch.tensor of an int64 past 2^53 inside the compiled method: tngc
# holds a literal's values as doubles, which do not hold it exactly; a
# literal of more than 1024 distinct values is refused the same way.
class Model(torch.nn.Module):
    def forward(self, x):
        return x + torch.tensor([2 ** 60 + 1, 3])  # expect: TNG203


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.zeros(4, 2, dtype=torch.int64).npu()
print(model(x))
