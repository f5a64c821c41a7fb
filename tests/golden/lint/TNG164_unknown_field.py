import torch
import torch_npu
import torchair
from torchair.configs.compiler_config import CompilerConfig

config = CompilerConfig()
config.mdoe = "reduce-overhead"  # expect: TNG164
config.ge_config.enable_single_streams = True  # expect: TNG164
config.inference_config.dynamic_gears_merge_policy = "product"
config.debug.graph_dump.typ = "py"  # expect: TNG164
npu_backend = torchair.get_npu_backend(compiler_config=config)
