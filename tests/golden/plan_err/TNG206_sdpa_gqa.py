import torch
import torch.nn.functional as F
import torch_npu
import torchair


# Grouped-query attention (enable_gqa=True) with key heads that do not
# divide the query's: PyTorch raises; so does tngc, naming both counts.
class Model(torch.nn.Module):
    def forward(self, q, kv):
        return F.scaled_dot_product_attention(q, kv, kv, enable_gqa=True)  # expect: TNG206


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
model(torch.randn(2, 6, 4, 8), torch.randn(2, 4, 4, 8))
