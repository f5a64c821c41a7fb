# The KV cache as a plain tensor attribute (not a buffer, not an input)
# written by slices at a Python-int position and read back (meta-llama/llama,
# mistral-src one_file_ref). PyTorch: the attribute keeps its values between
# calls: the second call (4 tokens at position 4) sums the first call's 4
# rows and its own. tngc, before it compiled this: TNG211 "the tensor 'cache_k' is computed from
# constants ... and this entry updates it in place: register it as a
# persistent buffer" (mistral-src one_file_ref, whose cache is
# torch.empty(...).cuda(), gets TNG211 "Tensor.scatter_ into a parameter").
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
    y1 = compiled(torch.randn(2, 4, 8), 0)
    y2 = compiled(torch.randn(2, 4, 8), 4)
