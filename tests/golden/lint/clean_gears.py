import torch
import torch_npu
import torchair
from torch._dynamo import mark_static
from torchair.inference import set_dim_gears as gears

BATCH_GEARS = [2, 4, 8, 16]


class Model(torch.nn.Module):
    def forward(self, x, y, kv):
        return torch.mm(x, y) + kv


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cached_decode = torchair.inference.cache_compile(self.decode, config=torchair.CompilerConfig(), dynamic=False)
        self.cached_prefill = torch.npu.npugraph_ex.inference.cache_compile(self.prefill)

    def decode(self, x, kv):
        return x + kv

    def prefill(self, x):
        return x * 2

def add_gears(t, dims):
    torchair.inference.set_dim_gears(t, {3: [2, 4]})
    torchair.inference.set_dim_gears(t, dims)

config = torchair.CompilerConfig()
config.inference_config.dynamic_gears_merge_policy = "product"
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=True, fullgraph=True)
x, y, kv = torch.randn(8, 64).npu(), torch.randn(64, 32).npu(), torch.zeros((8, 32)).npu()
gears(x, dim_gears={0: BATCH_GEARS})
gears(x, dim_gears={0: [2, 4, 8, 16]})
gears(y, {1: (32, 64, 128)})
mark_static(kv)
out = model(x, y, kv)
