# In-place updates of inputs and buffers: slice assignment of this step's
# key into a key cache input at a constant position, copy_ of a shifted
# value cache (drop the oldest row, append the new one), and a slice
# assignment into a registered buffer. Later reads see the new contents.
import torch
import torch_npu
import torchair
from torch import nn

BATCH = 2
MAX_SEQ = 8
HIDDEN = 32
POS = 3


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.k_proj = nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.v_proj = nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.register_buffer("last_hidden", torch.zeros(BATCH, 2, HIDDEN))

    def forward(self, x, k_cache, v_cache):
        # x: [BATCH, 1, HIDDEN]; caches: [BATCH, MAX_SEQ, HIDDEN]
        k_cache[:, POS:POS + 1] = self.k_proj(x)
        v_cache.copy_(torch.cat((v_cache[:, 1:], self.v_proj(x)), dim=1))
        self.last_hidden[:, 1:2] = x
        scores = torch.matmul(x, k_cache.transpose(1, 2)) * HIDDEN ** -0.5
        out = torch.matmul(torch.softmax(scores, dim=-1), v_cache)
        return out + self.last_hidden[:, 1:2]


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(BATCH, 1, HIDDEN).npu()
k_cache = torch.zeros(BATCH, MAX_SEQ, HIDDEN).npu()
v_cache = torch.zeros(BATCH, MAX_SEQ, HIDDEN).npu()
with torch.no_grad():
    print(model(x, k_cache, v_cache).shape)
