import torch
import torch_npu
import torchair


# A gear value past 2^48 is no size: refused at set_dim_gears (a gear of
# 2**62 would make y 2^66 bytes).
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x + 1, y + 1


x = torch.ones(2, 4).npu()
y = torch.ones(2, 4).npu()
config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), fullgraph=True, backend=npu_backend)
torchair.inference.set_dim_gears(x, dim_gears={0: [2, 4]})
torchair.inference.set_dim_gears(y, dim_gears={0: [2, 2**62]})  # expect: TNG209
print(model(x, y))
