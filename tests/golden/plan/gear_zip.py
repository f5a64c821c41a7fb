# Gears, zip policy (the default): two geared dims on each of two inputs.
# Gear i takes the i-th value of every list: (batch, seq) = (1, 16),
# (2, 32), (4, 64). The example call is the gear (2, 32).
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(32, 32, bias=False)

    def forward(self, x, mask):
        # x: [batch, seq, 32], mask: [batch, seq]
        h = torch.relu(self.proj(x)) * mask.unsqueeze(-1)
        return h.sum(dim=1) / mask.sum(dim=1, keepdim=True)


config = torchair.CompilerConfig()
config.inference_config.dynamic_gears_merge_policy = "zip"
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(2, 32, 32).npu()
mask = torch.ones(2, 32).npu()
torchair.inference.set_dim_gears(x, dim_gears={0: [1, 2, 4], 1: [16, 32, 64]})  # tngc: ignore[TNG125]
torchair.inference.set_dim_gears(mask, dim_gears={0: [1, 2, 4], 1: [16, 32, 64]})  # tngc: ignore[TNG125]
out = model(x, mask)
print(out.shape)
