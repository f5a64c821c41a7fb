import torch
import torch_npu
import torchair

# aclgraph_config and npugraphex_config are not among CompilerConfig's
# options (they are not NpuBaseConfig objects, so __init__ does not list
# them): assigning one raises ValueError (configs/_option_base.py:221-226).
# A section that is an NpuBaseConfig may be replaced.
base = torchair.CompilerConfig()
config = torchair.CompilerConfig()
config.debug = base.debug
config.ge_config = base.ge_config
config.aclgraph_config = base.aclgraph_config  # expect: TNG164
config.npugraphex_config = None  # expect: TNG164
config.aclgraph_config.use_custom_pool = None
