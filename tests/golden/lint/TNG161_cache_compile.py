import torch
import torch_npu
import torchair
from torchair.configs.compiler_config import CompilerConfig


# Under cache_compile TorchAir bypasses the static kernel build dir
# (static_kernel.py:43-48), so its check (static_kernel.py:603-608) never
# runs: a config that reaches only cache_compile is not reported. The same
# dir on a config given to torch.compile is.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        config = CompilerConfig()
        config.mode = "reduce-overhead"  # expect: TNG175
        config.experimental_config.aclgraph._aclnn_static_shape_kernel = True
        config.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = ".."
        self.cached = torchair.inference.cache_compile(self.prompt, config=config)

    def prompt(self, x):
        return x + 1

    def forward(self, x):
        return self.cached(x)


eager = CompilerConfig()
eager.mode = "reduce-overhead"  # expect: TNG175
eager.experimental_config.aclgraph._aclnn_static_shape_kernel = True
eager.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = ".."  # expect: TNG161
model = torch.compile(Model(), backend=torchair.get_npu_backend(compiler_config=eager))
