import torch
import torch_npu
import torchair
from torchair.inference import set_dim_gears


# zip is the default policy; it pairs the lists of every geared dim,
# including two dims of the same tensor.
class Model(torch.nn.Module):
    def forward(self, hidden):
        return torch.nn.functional.silu(hidden)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=True, fullgraph=True)
hidden = torch.randn(2, 128, 4096, dtype=torch.bfloat16).npu()
set_dim_gears(hidden, {0: [2, 4, 8, 16], 1: [128, 256]})  # expect: TNG128
out = model(hidden)
