# tolerance: matmul
# Dynamic gears, zip policy: the batch dim of x (float32), of a bfloat16 KV
# cache and of int64 token ids takes 1, 3 or 8 (gear k = the k-th value of
# every list); the mask is static. Per-row ops (embedding, linear, softmax,
# rms_norm, a slice store into the cache) and ops that mix the rows of the
# geared dim (a mean over the batch): every gear must match PyTorch at its
# shape (tests/ref/harness.py --all-gears makes the inputs of each gear from
# the recorded batch of 3). (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn

H, S, VOCAB = 16, 6, 40
GEARS = [1, 3, 8]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, H)
        self.fc = nn.Linear(H, H)
        self.gamma = nn.Parameter(torch.rand(H) + 0.5)

    def forward(self, x, ids, cache, mask):
        # x [B, H] float32, ids [B, 1] int64, cache [B, S, H] bfloat16,
        # mask [1, S] float32
        h = self.fc(x + self.embed(ids).squeeze(1))              # [B, H]
        cache[:, 2:3] = h.unsqueeze(1).bfloat16()
        scores = (cache.float() * h.unsqueeze(1)).sum(dim=-1)    # [B, S]
        probs = torch.softmax(scores + mask, dim=-1)
        y = torch_npu.npu_rms_norm(h, self.gamma)[0]
        centred = h - h.mean(dim=0, keepdim=True)                # mixes the rows
        return probs, y, centred, probs.bfloat16()


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(3, H).npu()
ids = torch.randint(0, VOCAB, (3, 1)).npu()
cache = torch.randn(3, S, H).bfloat16().npu()
mask = torch.cat((torch.zeros(1, 4), torch.full((1, 2), -1e4)), dim=1).npu()
for t in (x, ids, cache):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
torch._dynamo.mark_static(mask)
with torch.no_grad():
    outs = model(x, ids, cache, mask)
print([tuple(o.shape) for o in outs])
