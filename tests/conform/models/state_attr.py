# Tensor attributes of modules (neither parameters nor buffers) that the
# compiled method writes in place keep their values between calls: the KV
# cache of the reference LLaMA code. Each attention layer holds
# self.cache_k / self.cache_v made in __init__ (float32, and float16 for the
# values), rebinds them with .to(x) (the identity: same dtype and device),
# writes this call's keys at [:bsz, start_pos:start_pos + seqlen] with
# start_pos a Python int, and reads the prefix [:bsz, :start_pos + seqlen].
# The model counts its calls in a tensor attribute too (self.calls += 1)
# and scales its result by the count, and scatters its input into a
# torch.empty attribute (mistral-src's cache write: data tngc does not
# know, a weight from the start). The caches and the count after the
# call are outputs, so the state a call leaves is compared with PyTorch's;
# the weights file holds them under their attribute paths (layers.0.cache_k,
# calls). The script calls the model three times on the same inputs:
# tests/conform/run.sh compares the first call with one run of the bundle,
# tests/conform/state_attr.sh the third with three runs (the count is 3,
# the caches hold what the first run wrote and the others rewrote).
# tolerance: matmul
import torch
import torch_npu
import torchair
from torch import nn

B, S, H = 2, 8, 16


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.wk = nn.Linear(H, H, bias=False)
        self.wv = nn.Linear(H, H, bias=False)
        self.cache_k = torch.zeros((B + 1, S, H))
        self.cache_v = torch.ones((B + 1, S, H), dtype=torch.float16)

    def forward(self, x, start_pos: int):
        bsz, seqlen, _ = x.shape
        xk = self.wk(x)
        xv = self.wv(x)
        self.cache_k = self.cache_k.to(xk)
        self.cache_k[:bsz, start_pos:start_pos + seqlen] = xk
        self.cache_v[:bsz, start_pos:start_pos + seqlen] = xv          # float32 into float16
        keys = self.cache_k[:bsz, :start_pos + seqlen]
        values = self.cache_v[:bsz, :start_pos + seqlen].float()
        scores = torch.softmax(x @ keys.transpose(1, 2), dim=-1)
        return scores @ values


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Attn(), Attn()])
        self.calls = torch.zeros(1)
        self.seen = torch.empty((B, S, H))

    def forward(self, x, start_pos: int):
        self.calls += 1
        bsz, seqlen, _ = x.shape
        pos = torch.arange(start_pos, start_pos + seqlen)[None, :, None].repeat(bsz, 1, H)
        self.seen[:bsz].scatter_(1, pos, x)
        for layer in self.layers:
            x = x + layer(x, start_pos)
        a, b = self.layers[0], self.layers[1]
        return (x * self.calls, a.cache_k * 1.0, a.cache_v * 1, b.cache_k.sum(1), b.cache_v.float().mean(1),
                self.calls + 0, self.seen[:bsz, start_pos:start_pos + seqlen] * 1.0)


model = Model().eval()
compiled = torch.compile(model, backend=torchair.get_npu_backend(compiler_config=torchair.CompilerConfig()),
                         dynamic=False, fullgraph=True)
x = torch.randn(B, 3, H)
with torch.no_grad():
    for _ in range(3):
        out = compiled(x, 2)
print(out[-1])
