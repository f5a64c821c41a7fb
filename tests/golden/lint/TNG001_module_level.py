import torch
import torch_npu
import torchair
from torchair.configs.compiler_config import CompilerConfig

# A syntax error at module level; the config below is still checked.
BATCH_GEARS = [1, 2,, 4]  # expect: TNG001

config = CompilerConfig()
config.mode = "reduce_overhead"  # expect: TNG165
npu_backend = torchair.get_npu_backend(compiler_config=config)
