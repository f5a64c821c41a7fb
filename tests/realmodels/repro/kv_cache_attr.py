# The KV cache as a plain tensor attribute (not a buffer, not an input)
# written by slices at a Python-int position and read back (meta-llama/llama,
# mistral-src one_file_ref). PyTorch: the attribute keeps its values between
# calls; the second call sees the first call's keys: y2 = cache[:, :8].sum
# over both calls' rows. tngc: see README.md (the state of a plain
# attribute is not a weight, an input nor a buffer of the bundle).
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.cache_k = torch.zeros(2, 16, 8)

    def forward(self, x, start_pos: int = 0):
        bsz, seqlen, _ = x.shape
        self.cache_k[:bsz, start_pos:start_pos + seqlen] = self.proj(x)
        return self.cache_k[:bsz, :start_pos + seqlen].sum(1)

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
