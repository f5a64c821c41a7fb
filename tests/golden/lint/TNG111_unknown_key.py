import torch
import torch_npu
import torchair as tng

# Module-level constants are resolved: the typo is reported on the scope line.
FUSED_OPTIONS = "feed-sync-all=1:debug-aic-nums=8"


class Mlp(torch.nn.Module):
    def forward(self, x, w_up, w_down):
        with tng.scope.super_kernel("sk_up", "stream_fusion=1"):  # expect: TNG111
            h = torch.relu(torch.mm(x, w_up))
        with tng.scope.super_kernel("sk_down", FUSED_OPTIONS):  # expect: TNG111
            y = torch.mm(h, w_down)
        return y


config = tng.CompilerConfig()
npu_backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Mlp(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(16, 512, dtype=torch.float16).npu()
w_up = torch.randn(512, 2048, dtype=torch.float16).npu()
w_down = torch.randn(2048, 512, dtype=torch.float16).npu()
out = model(x, w_up, w_down)
