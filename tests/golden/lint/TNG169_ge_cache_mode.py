import torch
import torchair
from torchair.inference import cache_compile

# TorchAir's cache_compile warns that ge_cache does not take effect when
# its config (config= or the backend's) is in reduce-overhead or
# npugraph_ex mode (inference/_cache_compiler.py:621-623).

ro = torchair.CompilerConfig()
ro.mode = "reduce-overhead"  # expect: TNG175
ex = torchair.CompilerConfig()
ex.mode = "npugraph_ex"
ma = torchair.CompilerConfig()


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = cache_compile(self.prefill, config=ro, ge_cache=True)  # expect: TNG169
        self.b = cache_compile(self.prefill, config=ex, ge_cache=True)  # expect: TNG169
        backend = torchair.get_npu_backend(compiler_config=ro)
        self.c = torchair.inference.cache_compile(self.prefill, backend=backend, ge_cache=1)  # expect: TNG169
        # no warning: max-autotune, no config, ge_cache false
        self.d = cache_compile(self.prefill, config=ma, ge_cache=True)
        self.e = cache_compile(self.prefill, ge_cache=True)
        self.f = cache_compile(self.prefill, config=ro, ge_cache=False)

    def prefill(self, x):
        return x + 1
