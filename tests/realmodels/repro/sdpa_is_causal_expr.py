# scaled_dot_product_attention with is_causal computed from the mask and a
# geared length (openai/whisper: is_causal=mask is not None and n_ctx > 1).
# PyTorch/TorchAir: a bool per traced gear (False at length 1, True at 4).
# tngc: TNG204 "comparison on a dynamic dimension" here; in whisper/model.py,
# where mask is a buffer passed down two calls, TNG205 "argument 'is_causal'
# of torch.nn.functional.scaled_dot_product_attention is not known".
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class M(nn.Module):
    def forward(self, x):
        mask = torch.zeros(1)
        n_ctx = x.shape[1]
        q = x[:, None]
        return F.scaled_dot_product_attention(q, q, q, is_causal=mask is not None and n_ctx > 1)[:, 0]

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(2, 4, 8)
torchair.inference.set_dim_gears(x, dim_gears={1: [1, 4]})
with torch.no_grad():
    y = compiled(x)
