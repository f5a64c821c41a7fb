import torch
import torch_npu
import torchair
from torchair.configs.compiler_config import CompilerConfig


# CANN's super-kernel option parser drops empty items and white space,
# warns about and skips an item without '=', and raises on an item whose key
# or value is empty.
class Model(torch.nn.Module):
    def forward(self, x, w):
        with torchair.scope.super_kernel("sk1", "stream-fusion=1::feed-sync-all=1"):
            y = torch.mm(x, w)
        with torchair.scope.super_kernel("sk2", "feed-sync-all"):  # expect: TNG110
            y = torch.relu(y)
        with torchair.scope.super_kernel("sk3", "=1"):  # expect: TNG110
            y = y * 2
        with torchair.scope.super_kernel("sk4", "dcci-before-kernel-start="):  # expect: TNG110
            y = y + 1
        with torchair.scope.super_kernel("sk5", "stream-fusion=0:"):
            y = torch.sigmoid(y)
        with torchair.scope.super_kernel("sk6", " stream-fusion = 1 : early-start=0 "):
            y = y - 1
        with torchair.scope.super_kernel("sk7", '"feed-sync-all=1"'):
            y = y * 3
        with torchair.scope.super_kernel("sk8", "stream-fusion=1:profiling"):  # expect: TNG110
            y = y / 2
        return y


config = CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(64, 128, dtype=torch.float16).npu()
w = torch.randn(128, 128, dtype=torch.float16).npu()
out = model(x, w)
