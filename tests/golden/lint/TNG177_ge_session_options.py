import torch
import torchair

# GE is initialised once per process with the global (session) options of
# the first max-autotune graph that runs (ge_config's, configs/ge_config.py:
# 23-43); a later graph whose options are not a subset raises ValueError
# (core/_backend.py:64-81).

x = torch.ones(2, 2)
c1 = torchair.CompilerConfig()
c1.ge_config.oo_level = "O1"
c2 = torchair.CompilerConfig()
m1 = torch.compile(torch.nn.Linear(2, 2), backend=torchair.get_npu_backend(compiler_config=c1))  # expect: TNG177
m2 = torch.compile(torch.nn.Linear(2, 2), backend=torchair.get_npu_backend(compiler_config=c2))  # expect: TNG177
m1(x)
m2(x)


def same_options():
    # set alike, or to the default: no error
    a = torchair.CompilerConfig()
    a.ge_config.enable_single_stream = False
    b = torchair.CompilerConfig()
    ma = torch.compile(torch.nn.Linear(2, 2), backend=torchair.get_npu_backend(compiler_config=a))
    mb = torch.compile(torch.nn.Linear(2, 2), backend=torchair.get_npu_backend(compiler_config=b))
    return ma(x), mb(x)


def one_sided():
    # an option only one config has: whether it raises depends on which runs first
    a = torchair.CompilerConfig()
    a.ge_config.aicore_num = "24|48"
    b = torchair.CompilerConfig()
    ma = torch.compile(torch.nn.Linear(2, 2), backend=torchair.get_npu_backend(compiler_config=a))
    mb = torch.compile(torch.nn.Linear(2, 2), backend=torchair.get_npu_backend(compiler_config=b))
    return ma(x), mb(x)


def either(flag):
    # only one of them is compiled
    a = torchair.CompilerConfig()
    a.ge_config.enable_single_stream = True
    b = torchair.CompilerConfig()
    if flag:
        ma = torch.compile(torch.nn.Linear(2, 2), backend=torchair.get_npu_backend(compiler_config=a))
        return ma(x)
    mb = torch.compile(torch.nn.Linear(2, 2), backend=torchair.get_npu_backend(compiler_config=b))
    return mb(x)


def other_modes():
    # npugraph_ex mode does not initialise GE: no error
    a = torchair.CompilerConfig()
    a.ge_config.export_compile_stat = "0"
    b = torchair.CompilerConfig()
    b.mode = "npugraph_ex"
    b.ge_config.export_compile_stat = "1"
    ma = torch.compile(torch.nn.Linear(2, 2), backend=torchair.get_npu_backend(compiler_config=a))
    mb = torch.compile(torch.nn.Linear(2, 2), backend=torchair.get_npu_backend(compiler_config=b))
    return ma(x), mb(x)


def never_run():
    # the second compiled object is never called: no graph, no error
    a = torchair.CompilerConfig()
    a.ge_config.oo_level = "O1"
    b = torchair.CompilerConfig()
    ma = torch.compile(torch.nn.Linear(2, 2), backend=torchair.get_npu_backend(compiler_config=a))
    torch.compile(torch.nn.Linear(2, 2), backend=torchair.get_npu_backend(compiler_config=b))
    return ma(x)
