import torch
import torch_npu
import torchair
from torchair.configs.compiler_config import CompilerConfig


class Model(torch.nn.Module):
    def forward(self, x, w):
        with torchair.scope.super_kernel("sk", "feed-sync-all=1"):  # expect: TNG115
            y = torch.mm(x, w)
            y = torch.relu(y)
        return y


if __name__ == "__main__":
    config = CompilerConfig()
    config.mode = "reduce-overhead"  # expect: TNG175
    npu_backend = torchair.get_npu_backend(compiler_config=config)
    model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
    x = torch.randn(128, 256, dtype=torch.float16).npu()
    w = torch.randn(256, 256, dtype=torch.float16).npu()
    out = model(x, w)
