import torch
import torch_npu
import torchair

# _check_config_support (configs/compiler_config.py:84-109), run by
# get_npu_backend and cache_compile, warns about the options its lists
# (:63-81) name for the config's mode; a trailing comma makes a config value
# a tuple; use_custom_pool takes the pool graph_pool_handle() returns.


class Model(torch.nn.Module):
    def forward(self, x):
        return x + 1


ro = torchair.CompilerConfig()
ro.mode = "reduce-overhead"  # expect: TNG175
ro.ge_config.enable_single_stream = True  # expect: TNG169
ro.debug.fx_summary.type = "csv"  # expect: TNG169
ro.ge_config.oo_level = "O3"
ro.aclgraph_config.use_custom_pool = torch.npu.graph_pool_handle  # expect: TNG166
m1 = torch.compile(Model(), backend=torchair.get_npu_backend(compiler_config=ro))

ma = torchair.CompilerConfig()
ma.debug.aclgraph.clone_input = False  # expect: TNG169
ma.ge_config.oo_level = "O3",  # expect: TNG166
ma.ge_config.optimization_switch = "a:b",  # expect: TNG166
ma.aclgraph_config.use_custom_pool = torch.npu.graph_pool_handle()
m2 = torch.compile(Model(), backend=torchair.get_npu_backend(compiler_config=ma))
