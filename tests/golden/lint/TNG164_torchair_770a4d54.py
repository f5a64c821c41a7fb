# tngc-args: --torchair 770a4d54
import torch
import torch_npu
import torchair

# Linted for TorchAir 770a4d54 (2026-02-27): fields added after it raise
# ValueError there, as unknown names do.
config = torchair.CompilerConfig()
config.debug.run_eagerly = False
config.debug.deadlock_check = True  # expect: TNG164
config.debug.aclgraph.clone_input = True
config.debug.aclgraph.remove_cat_ops = False  # expect: TNG164
config.experimental_config.aclgraph._aclnn_static_shape_kernel_sym_index = 0
config.experimental_config.aclgraph._super_kernel_optimize = True  # expect: TNG164
config.debug.run_eagrly = False  # expect: TNG164
# npugraph_ex's graph_dump_type existed then; npugraphex_config's
# attributes were never read either.
config.npugraphex_config.graph_dump_type = "py"  # expect: TNG164
