import torch
import torchair as tng
from torchair import CompilerConfig as CC, get_npu_backend as gb
cfg = CC()
cfg.mode = "reduce-overhead"
bk = gb(compiler_config=cfg)

class M(torch.nn.Module):
    def forward(self, x):
        with tng.scope.super_kernel("s\x00\u00e9*/", "stream-fusion=1"):
            return x * 2  # tngc: ignore[TNG101]

m = torch.compile(M(), backend=bk, dynamic=False)
x = torch.randn(2, 3)
tng.inference.set_dim_gears(x, {0: [2, 4]})
m(x)
