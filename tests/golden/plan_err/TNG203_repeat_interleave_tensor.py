import torch
import torch_npu
import torchair


# repeat_interleave with a tensor of repeats: the output size depends on
# the data (a dynamic output shape); an int repeats compiles.
class Model(torch.nn.Module):
    def forward(self, x, counts):
        return x.repeat_interleave(counts, dim=0)  # expect: TNG203


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 8).npu()
counts = torch.tensor([1, 2, 0, 3]).npu()
print(model(x, counts))
