# A KV cache (here a registered buffer, so that only the write is at issue)
# written at [:bsz, start_pos:start_pos + seqlen] where seqlen is the geared
# sequence length (meta-llama/llama's Attention.forward, prefill). PyTorch /
# TorchAir: a slice with a symbolic end, traced per gear; rows 0..seqlen-1
# of the cache take the new keys and the sum reads them. tngc, before it compiled this: TNG211 "a
# slice bound that depends on a dynamic dim".
import torch
import torch.nn as nn
import torch_npu
import torchair


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.register_buffer("cache_k", torch.zeros(2, 16, 8))

    def forward(self, x, start_pos: int):
        bsz, seqlen, _ = x.shape
        self.cache_k[:bsz, start_pos:start_pos + seqlen] = self.proj(x)
        return self.cache_k[:bsz, :start_pos + seqlen].sum(1)


npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(2, 6, 8)
torchair.inference.set_dim_gears(x, dim_gears={1: [4, 6]})
with torch.no_grad():
    y = compiled(x, 0)
