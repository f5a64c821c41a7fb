import torch
import torchair

# _check_config_support (configs/compiler_config.py:110-114), which
# get_npu_backend and cache_compile run on their config, adds a "once"
# filter for DeprecationWarning in front of Python's defaults and warns
# that the reduce-overhead mode will be deprecated: the user sees it.

ro = torchair.CompilerConfig()
ro.mode = "reduce-overhead"  # expect: TNG175
m1 = torch.compile(torch.nn.Linear(2, 2), backend=torchair.get_npu_backend(compiler_config=ro))

# not handed to TorchAir: no warning
unused = torchair.CompilerConfig()
unused.mode = "reduce-overhead"

# other modes: no warning
ex = torchair.CompilerConfig()
ex.mode = "npugraph_ex"
m2 = torch.compile(torch.nn.Linear(2, 2), backend=torchair.get_npu_backend(compiler_config=ex))
ma = torchair.CompilerConfig()
ma.mode = "max-autotune"
m3 = torch.compile(torch.nn.Linear(2, 2), backend=torchair.get_npu_backend(compiler_config=ma))


def pick(flag):
    # the mode is only known at run time: no warning
    cfg = torchair.CompilerConfig()
    if flag:
        cfg.mode = "reduce-overhead"
    return torch.compile(torch.nn.Linear(2, 2), backend=torchair.get_npu_backend(compiler_config=cfg))


# suppressed on its line
quiet = torchair.CompilerConfig()
quiet.mode = "reduce-overhead"  # tngc: ignore[TNG175]
m4 = torch.compile(torch.nn.Linear(2, 2), backend=torchair.get_npu_backend(compiler_config=quiet))
