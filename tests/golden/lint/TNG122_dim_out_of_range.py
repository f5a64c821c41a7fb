import torch
import torch_npu
import torchair as tng


class Model(torch.nn.Module):
    def forward(self, x, ids, mask):
        return x.sum() + ids.sum() + mask.sum()


config = tng.CompilerConfig()
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.ones(2, 2).npu()
ids = torch.randint(0, 32000, (8, 16)).npu()
mask = torch.zeros((4, 8, 16), dtype=torch.bool).npu()
tng.inference.set_dim_gears(x, dim_gears={2: [2, 4]})  # expect: TNG122
tng.inference.set_dim_gears(ids, {-1: [16, 32]})  # expect: TNG122
tng.inference.set_dim_gears(mask, {2: [16, 32]})
out = model(x, ids, mask)
