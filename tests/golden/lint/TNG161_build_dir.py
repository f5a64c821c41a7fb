import torch
import torch_npu
import torchair
from torchair.configs.compiler_config import CompilerConfig

config = CompilerConfig()
config.mode = "reduce-overhead"
config.experimental_config.aclgraph._aclnn_static_shape_kernel = True
config.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = "/data/kernels/../../etc"  # expect: TNG161
npu_backend = torchair.get_npu_backend(compiler_config=config)

other = CompilerConfig()
other.mode = "reduce-overhead"
other.experimental_config.aclgraph._aclnn_static_shape_kernel = True
other.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = "/tmp/kernels\x00.d"  # expect: TNG161
other_backend = torchair.get_npu_backend(compiler_config=other)
