import torch
import torch_npu
import torchair
from torchair.configs.compiler_config import CompilerConfig


# Enumerated options: stream-fusion, feed-sync-all, debug-dcci-all,
# debug-sync-all and profiling take 0 or 1, early-start 0, 1 or 2,
# preload-code max, none or per-func. The dcci-* options take op types.
class Model(torch.nn.Module):
    def forward(self, x, w):
        with torchair.scope.super_kernel("sk1", "stream-fusion=2"):  # expect: TNG112
            y = torch.mm(x, w)
        with torchair.scope.super_kernel("sk2", "feed-sync-all=true"):  # expect: TNG112
            y = torch.relu(y)
        with torchair.scope.super_kernel("sk3", "dcci-before-kernel-start=MatMulV2:dcci-after-kernel-end=AddN,Cast"):
            y = y * 2
        with torchair.scope.super_kernel("sk4", "early-start=3"):  # expect: TNG112
            y = y + 1
        with torchair.scope.super_kernel("sk5", "preload-code=all"):  # expect: TNG112
            y = y - 1
        with torchair.scope.super_kernel("sk6", "early-start=2:preload-code=per-func:debug-sync-all=1:profiling=0"):
            y = y * 3
        with torchair.scope.super_kernel("sk7", "func-align=3"):  # expect: TNG112
            y = y / 2
        with torchair.scope.super_kernel("sk8", "func-align=256:split-mode=65"):  # expect: TNG112
            y = y + 2
        with torchair.scope.super_kernel("sk9", "func-align=0:split-mode=64:compile-options=-g,-O2"):
            y = y + 3
        return y


config = CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(64, 128, dtype=torch.float16).npu()
w = torch.randn(128, 128, dtype=torch.float16).npu()
out = model(x, w)
