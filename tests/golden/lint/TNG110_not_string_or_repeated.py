import torch
import torch_npu
import torchair as tng


class Block(torch.nn.Module):
    def forward(self, x, w):
        with tng.scope.super_kernel("sk_mm", 1):  # expect: TNG110
            y = torch.mm(x, w)
        with tng.scope.super_kernel("sk_act", options="feed-sync-all=1:feed-sync-all=0"):  # expect: TNG110
            y = torch.nn.functional.gelu(y)
        with tng.scope.super_kernel("sk_ok", "feed-sync-all=1"):
            y = y * 0.5
        return y


config = tng.CompilerConfig()
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Block(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(8, 256).npu()
w = torch.randn(256, 256).npu()
out = model(x, w)
