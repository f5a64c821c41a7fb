# tngc-args: --torchair fced8842d149f16b587c2c867d427e4b766831ca
import torch
import torch_npu
import torchair

# The fields that came after 770a4d54 exist in the newest TorchAir.
config = torchair.CompilerConfig()
config.debug.deadlock_check = True
config.debug.aclgraph.remove_cat_ops = False
config.experimental_config.aclgraph._super_kernel_optimize = True
config.experimental_config.aclgraph._super_kernel_optimize_options = {"stream-fusion": "1"}
config.experimental_config.aclgraph._super_kernel_debug_options = None
