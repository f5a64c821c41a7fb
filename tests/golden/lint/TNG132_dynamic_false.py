import torch
import torch_npu
import torchair
from torchair.inference import set_dim_gears


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(512, 512)

    def decode(self, x, xa):
        return self.proj(x) + xa


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
decoder = Decoder().npu()
decoder.decode = torch.compile(decoder.decode, dynamic=False, fullgraph=True, backend=npu_backend)
x = torch.randn(2, 512).npu()
xa = torch.randn(1, 512).npu()
set_dim_gears(x, {0: [2, 4, 8]})  # expect: TNG132
out = decoder.decode(x, xa)
