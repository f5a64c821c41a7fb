# Makes the compiled model of factory.py: the compile call, the config and
# the gears are in this module, the call that traces it in the script.
import torch
import torchair
from .model import Model


def build():
    config = torchair.CompilerConfig()
    config.mode = "reduce-overhead"
    backend = torchair.get_npu_backend(compiler_config=config)
    return torch.compile(Model(), backend=backend, dynamic=True, fullgraph=True)


def example():
    x = torch.randn(4, 32)
    torchair.inference.set_dim_gears(x, dim_gears={0: [2, 4]})
    return x
