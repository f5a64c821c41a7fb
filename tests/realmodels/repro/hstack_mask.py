# torch.hstack of a zero block and a causal mask (meta-llama/llama: the
# prefill mask over the cached and the new positions). PyTorch: a
# [4, 2 + 4] mask, zeros then triu(-inf, 1). tngc, before it compiled this: TNG203 "torch.hstack is
# not among the operators tngc compiles".
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class M(nn.Module):
    def forward(self, x):
        seqlen, start_pos = x.shape[1], 2
        mask = torch.triu(torch.full((seqlen, seqlen), float("-inf")), diagonal=1)
        mask = torch.hstack([torch.zeros((seqlen, start_pos)), mask]).type_as(x)
        return x[:, :, None, :1] + mask[None, :, :, None]

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
