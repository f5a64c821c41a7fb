import torch
import torch_npu
import torchair


# torch.arange with a float step and an end that is a dynamic dim: its
# length would be a float expression of the dim.
class Model(torch.nn.Module):
    def forward(self, x):
        pos = torch.arange(0, x.shape[1], 0.5)  # expect: TNG203
        return x + pos[: 1]


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(4, 8).npu()
torchair.inference.set_dim_gears(x, dim_gears={1: [4, 8]})
print(model(x))
