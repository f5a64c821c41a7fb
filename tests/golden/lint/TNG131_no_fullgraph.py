import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x1, x2):
        return x1 + x2


input1 = torch.ones(2, 2).npu()
input2 = torch.ones(2, 2).npu()
config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
# fullgraph defaults to False: gears need the whole graph.
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True)
torchair.inference.set_dim_gears(input1, dim_gears={0: [2, 4]})  # expect: TNG131
torchair.inference.set_dim_gears(input2, dim_gears={0: [2, 4]})  # expect: TNG131
out = model(input1, input2)
