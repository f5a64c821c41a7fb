import torch
import torch_npu
import torchair
import npugraph_ex as nge

# The npugraph_ex package: its CompilerConfig has fields of its own
# (npugraph_ex/configs/compiler_config.py: force_eager, capture_limit, ...)
# that are not TorchAir's, and its mode is always npugraph_ex.
config = nge.CompilerConfig()
config.force_eager = False
config.capture_limit = 32
backend = nge.get_npu_backend(compiler_config=config)


class Model(torch.nn.Module):
    def forward(self, x):
        with torchair.scope.npu_stream_switch("1", 3):   # reduce-overhead only fixes the priority
            y = x + 1
        with nge.scope.limit_core_num(4, 8):
            y = y * 2
        with nge.scope.npu_stream_switch("2"):  # expect: TNG171
            y = y - 1
        return y


class Cached(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cached = nge.inference.cache_compile(self.prompt)
        self.cached_ex = torch.npu.npugraph_ex.inference.cache_compile(self.prompt, dynamic=False)
        self.bad = nge.inference.cache_compile(len)

    def prompt(self, x):
        return x


model = torch.compile(Model(), backend=backend, dynamic=False)
model(torch.ones(2, 2))
