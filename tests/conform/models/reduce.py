# Reductions: sum, mean and amax over one dim, several dims, negative dims,
# with and without keepdim, and over everything, on float32 (rows of 4096
# and 1000 elements: summation order matters), float16 and bfloat16.
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x, long_rows, h, b):
        # x, h, b: [6, 5, 32]; long_rows: [3, 4096] float32
        outs = []
        for v in (x, h, b):
            outs.append(v.sum(dim=-1))
            outs.append(v.sum(dim=(0, 2)))
            outs.append(torch.sum(v, dim=1, keepdim=True))
            outs.append(v.sum())
            outs.append(v.mean(dim=0))
            outs.append(v.mean(dim=(-2, -1), keepdim=True))
            outs.append(torch.mean(v, 1))
            outs.append(v.amax(dim=-1))
            outs.append(v.amax(dim=(0, 1), keepdim=True))
        outs.append(long_rows.sum(dim=1))
        outs.append(long_rows.mean(dim=-1))
        outs.append((long_rows * long_rows).sum(dim=0))   # 4096 columns of 3
        outs.append(long_rows.view(3, 4, 1024).sum(dim=1))
        for dt in (torch.float16, torch.bfloat16):
            lr = long_rows.to(dt)
            outs.append(lr.sum(dim=-1))              # 4096 terms, float accumulation
            outs.append(lr.mean(dim=-1, keepdim=True))
            outs.append(lr.amax(dim=0))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(6, 5, 32).npu()
long_rows = torch.randn(3, 4096).npu()
h = torch.randn(6, 5, 32, dtype=torch.float16).npu()
b = torch.randn(6, 5, 32).bfloat16().npu()
with torch.no_grad():
    outs = model(x, long_rows, h, b)
print(len(outs))
