import torch
import torch_npu
import torchair
from torchair.scope import npu_stream_switch, npu_wait_tensor, limit_core_num, super_kernel

# Calls that do not fit TorchAir's defs raise TypeError: get_npu_backend
# takes only keywords (npu_fx_compiler.py:890), cache_compile one positional
# argument (inference/__init__.py:12), CompilerConfig() none
# (configs/compiler_config.py:27), the scopes their listed parameters.

config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(config)  # expect: TNG172
backend2 = torchair.get_npu_backend(compiler_cfg=config)  # expect: TNG172
backend3 = torchair.get_npu_backend(compiler_config=config, custom_decompositions={})
bad_config = torchair.CompilerConfig(mode="reduce-overhead")  # expect: TNG172
x = torch.ones(2, 2)
torchair.inference.set_dim_gears(x, dim_gear={0: [2, 4]})  # expect: TNG172
torchair.inference.set_dim_gears(dim_gears={0: [2, 4]})  # expect: TNG172


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cached = torchair.inference.cache_compile(self.core, config)  # expect: TNG172
        self.cached2 = torchair.inference.cache_compile(self.core, config=config, dynamic=False)

    def core(self, x, y):
        with npu_stream_switch("1", priority=3):  # expect: TNG172
            x = x + 1
        with npu_stream_switch(stream_tag="1", stream_priority=3):
            x = x + 1
        with npu_stream_switch("1", stream_tag="2"):  # expect: TNG172
            x = x + 1
        with npu_stream_switch():  # expect: TNG172
            x = x + 1
        with limit_core_num(4):  # expect: TNG172
            x = x + 1
        with limit_core_num(4, 8):
            x = x + 1
        npu_wait_tensor(x)  # expect: TNG172
        npu_wait_tensor(x, y)
        return x

    def forward(self, x, y):
        return self.cached(x, y)


def eager(x):
    with super_kernel("sk", "stream-fusion=1", "extra"):  # expect: TNG172
        x = x + 1
    return x


def kwargs_passed(cfg, **kw):
    # *args / **kwargs may fill any parameter: not checked
    return torchair.get_npu_backend(**kw), torchair.inference.cache_compile(*cfg)
