import torch
import torch_npu
import torch_npu.dynamo.torchair as tng
from torch_npu.dynamo.torchair.inference import cache_compile

# torch_npu ships TorchAir as torch_npu.dynamo.torchair: every annotation
# through that name is TorchAir's.


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cached = cache_compile(lambda x: x, config=config)  # expect: TNG150

    def forward(self, x):
        with tng.scope.super_kernel("sk"):  # expect: TNG115
            y = x + 1
        with tng.scope.npu_stream_switch("1", 0, 1):  # expect: TNG106
            y = y * 2
        with tng.scope.op_never_timeout(0):  # expect: TNG105
            y = y - 1
        tng.ops.NpuStreamSwitch("2")  # expect: TNG170
        return y


config = tng.CompilerConfig()
config.mode = "reduce-overhead"  # expect: TNG175
backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=backend, dynamic=False)
model(torch.ones(4, 8))
t = torch.ones(4, 8)
tng.inference.set_dim_gears(t, {0: [0, 4]})  # expect: TNG125
