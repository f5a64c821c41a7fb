import torch
import torch_npu
import torchair


# stream-fusion, feed-sync-all, dcci-before-kernel-start and
# dcci-after-kernel-end take 0 or 1.
class Model(torch.nn.Module):
    def forward(self, x, w):
        with torchair.scope.super_kernel("sk1", "stream-fusion=2"):  # expect: TNG112
            y = torch.mm(x, w)
        with torchair.scope.super_kernel("sk2", "feed-sync-all=true"):  # expect: TNG112
            y = torch.relu(y)
        with torchair.scope.super_kernel("sk3", "dcci-before-kernel-start=1:dcci-after-kernel-end=on"):  # expect: TNG112
            y = y + 1
        return y


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(64, 64).npu()
w = torch.randn(64, 64).npu()
out = model(x, w)
