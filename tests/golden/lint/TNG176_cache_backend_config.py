import torch
import torchair
from torchair.inference import cache_compile

# cache_compile with config= and backend= raises ValueError when the
# backend's config != config= (inference/_cache_compiler.py:606-608);
# CompilerConfig.__eq__ compares every field's value
# (configs/compiler_config.py:47-52), not the objects.


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        config = torchair.CompilerConfig()
        config.export.experimental.enable_lite_export = True
        config1 = torchair.CompilerConfig()
        config1.export.experimental.enable_lite_export = False
        backend = torchair.get_npu_backend(compiler_config=config)  # expect: TNG176
        self.a = cache_compile(self.prompt, config=config, backend=backend)
        self.b = cache_compile(self.decode, config=config1, backend=backend)  # expect: TNG176
        # a second config set alike is equal: no error
        twin = torchair.CompilerConfig()
        twin.export.experimental.enable_lite_export = True
        self.c = cache_compile(self.decode, config=twin, backend=backend)
        # a field set to its default equals a fresh config: no error
        plain = torchair.CompilerConfig()
        plain.mode = "max-autotune"
        self.d = cache_compile(self.decode, config=plain, backend=torchair.get_npu_backend())
        ex = torchair.CompilerConfig()
        ex.mode = "npugraph_ex"
        self.e = cache_compile(self.decode, config=ex,  # expect: TNG176
                               backend=torchair.get_npu_backend())  # expect: TNG176
        # set after the call: the comparison saw the default
        late = torchair.CompilerConfig()
        self.f = cache_compile(self.decode, config=late, backend=torchair.get_npu_backend())
        late.ge_config.oo_level = "O1"

    def prompt(self, x):
        return x

    def decode(self, x):
        return x


class Other(torch.nn.Module):
    def __init__(self, flag):
        super().__init__()
        # set on one path only: not known statically
        cfg = torchair.CompilerConfig()
        if flag:
            cfg.ge_config.oo_level = "O1"
        self.g = cache_compile(self.forward, config=cfg, backend=torchair.get_npu_backend())

    def forward(self, x):
        return x


class Broken(torch.nn.Module):
    def __init__(self):
        super().__init__()
        # get_npu_backend itself raises TypeError: no backend to compare
        cfg = torchair.CompilerConfig()
        cfg.mode = "npugraph_ex"
        backend = torchair.get_npu_backend(compile_config=cfg)  # expect: TNG172
        self.h = cache_compile(self.forward, config=cfg, backend=backend)

    def forward(self, x):
        return x
