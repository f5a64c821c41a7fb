# A KV cache held as a tensor attribute, filled by an eager call of the
# module (a prefill PyTorch runs: host code then holds views of the cache,
# the keys it read) and then read and written by the compiled decode step:
# the cache the eager call left is the state the bundle starts from (the
# weights file holds it under the attribute's name), and the step writes
# its row at position 4 and attends over the five rows.
# (tests/conform/run.sh)
# tolerance: matmul
import torch
import torch_npu
import torchair
from torch import nn

B, S, H = 2, 8, 16


class Cache(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(H, H)
        self.cache = torch.zeros(B, S, H)

    def forward(self, x, pos: int):
        n = x.shape[1]
        self.cache[:, pos:pos + n] = self.proj(x)
        keys = self.cache[:, :pos + n]
        return torch.softmax(x @ keys.transpose(1, 2), dim=-1) @ keys, self.cache * 1.0


model = Cache().eval()
step = torch.compile(model, backend=torchair.get_npu_backend(compiler_config=torchair.CompilerConfig()),
                     dynamic=False, fullgraph=True)
with torch.no_grad():
    y, _ = model(torch.randn(B, 4, H), 0)
    out, cache = step(y[:, -1:], 4)
print(tuple(out.shape))
