# In-place updates of inputs and buffers, in float32, float16 and bfloat16:
# slice assignment of this step's key into a KV cache at a constant
# position (and with a step), a broadcast slice assignment, copy_ of a
# shifted cache (drop the oldest row, append the new one, with a dtype
# conversion), h += y on an input, and a registered buffer updated in place
# and read back. Later reads in the graph see the new contents; the caches'
# final contents are compared with PyTorch's. (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn

B, S, H = 2, 8, 16
POS = 3


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.k_proj = nn.Linear(H, H, bias=False)
        self.register_buffer("seen", torch.zeros(B, 1, H))

    def forward(self, x, k_cache, v_cache, hk_cache, bk_cache, acc):
        # x [B, 1, H] float32; k/v_cache [B, S, H] float32; hk_cache float16,
        # bk_cache bfloat16 [B, S, H]; acc [B, H] float32
        k = self.k_proj(x)
        k_cache[:, POS:POS + 1] = k
        k_cache[:, 5::2] = x * 0.5                   # rows 5 and 7, broadcast
        v_cache.copy_(torch.cat((v_cache[:, 1:], k * 2.0), dim=1))
        hk_cache[:, POS:POS + 1] = k.half()
        hk_cache[:, 0:1] = x                         # float32 into float16
        bk_cache.copy_(torch.cat((x.bfloat16(), bk_cache[:, :-1]), dim=1))
        acc += x.squeeze(1)
        self.seen += x
        scores = torch.softmax((k_cache * x).sum(dim=-1), dim=-1)     # reads the new cache
        return scores, v_cache.sum(dim=1), hk_cache.float().mean(dim=1), self.seen * 3.0, acc * 1.0


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(B, 1, H).npu()
k_cache = torch.randn(B, S, H).npu()
v_cache = torch.randn(B, S, H).npu()
hk_cache = torch.randn(B, S, H, dtype=torch.float16).npu()
bk_cache = torch.randn(B, S, H).bfloat16().npu()
acc = torch.randn(B, H).npu()
with torch.no_grad():
    outs = model(x, k_cache, v_cache, hk_cache, bk_cache, acc)
print(len(outs))
