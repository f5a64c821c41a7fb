import torch
import torch_npu
import torchair

# cache_compile(func, *, config=None, dynamic=True, ..., **kwargs)
# (inference/__init__.py:12) passes **kwargs to _cache_compiler.py:602,
# which reads backend, custom_decompositions and ge_cache; any other
# keyword is taken and dropped: compiler_config= leaves the default config.

config = torchair.CompilerConfig()
config.mode = "reduce-overhead"  # expect: TNG175
backend = torchair.get_npu_backend(compiler_config=config)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torchair.inference.cache_compile(self.core, compiler_config=config)  # expect: TNG173
        self.b = torchair.inference.cache_compile(self.core, dynamc=False)  # expect: TNG173
        self.c = torchair.inference.cache_compile(self.core, config=config, ge_cache=False)
        self.d = torchair.inference.cache_compile(self.core, backend=backend, custom_decompositions={})

    def core(self, x):
        return x + 1

    def forward(self, x):
        return self.a(x) + self.b(x) + self.c(x) + self.d(x)
