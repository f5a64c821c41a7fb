import torch
import torch_npu
import torchair


# examples/dim_gears/model.py's x1 + x2 with the product policy: the gears (2, 2)(4, 2) and
# (4, 2)(2, 2) add tensors of different rows, which do not broadcast.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x1, x2):
        return x1 + x2  # expect: TNG209


input1 = torch.ones(2, 2).npu()
input2 = torch.ones(2, 2).npu()
config = torchair.CompilerConfig()
config.inference_config.dynamic_gears_merge_policy = "product"
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = Model().npu()
model = torch.compile(model, fullgraph=True, backend=npu_backend)
torchair.inference.set_dim_gears(input1, dim_gears={0: [2, 4]})
torchair.inference.set_dim_gears(input2, dim_gears={0: [2, 4]})
print(model(input1, input2))
