# A Python branch on a geared (dynamic) sequence length (meta-llama/llama and
# DeepSeek-V3: 'if seqlen > 1:' builds the causal mask for prefill only;
# mistral-src: 'if input_ids.shape[1] > 1'). PyTorch/TorchAir: each gear is
# traced at its own size, so gear 1 takes no mask and gear 4 takes it.
# tngc: TNG204 "comparison on a dynamic dimension".
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class M(nn.Module):
    def forward(self, x):
        seqlen = x.shape[1]
        mask = None
        if seqlen > 1:
            mask = torch.triu(torch.full((seqlen, seqlen), float("-inf")), diagonal=1)
        s = x @ x.transpose(1, 2)
        if mask is not None:
            s = s + mask
        return torch.softmax(s, dim=-1) @ x

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(2, 4, 8)
torchair.inference.set_dim_gears(x, dim_gears={1: [1, 4]})
with torch.no_grad():
    y = compiled(x)
