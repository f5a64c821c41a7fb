import os

import torch
import torch_npu
import torchair
from torchair.configs.compiler_config import CompilerConfig


# An assignment that runs on some paths only still hands its literal to the
# option's setter whenever it runs, and the setter refuses "True" for a bool
# option (configs/_option_base.py:42-48: ValueError).
config = CompilerConfig()
if os.getenv("FROZEN"):
    config.experimental_config.frozen_parameter = "True"  # expect: TNG166
    config.debug.graph_dump.type = "pbtxt"
for _ in range(1):
    config.mode = "reduce_overhead"  # expect: TNG165
if os.getenv("SINGLE_STREAM"):
    config.ge_config.enable_single_stream = True
else:
    config.ge_config.enable_single_stream = False
npu_backend = torchair.get_npu_backend(compiler_config=config)
