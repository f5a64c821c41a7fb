# A two-branch model for bench/streams: two independent towers over the same
# input (say a shared and a routed expert), each LAYERS blocks of
# LayerNorm -> Linear(HIDDEN, FFN) -> GELU -> Linear(FFN, HIDDEN) -> residual,
# summed at the end.  Branch b runs under npu_stream_switch("b"); the sum
# waits for it.  bench/streams/bench.py builds it as is (2 streams) and
# with the stream scopes removed (1 stream).
import torch
import torch.nn.functional as F
import torch_npu
import torchair as tng
from torch import nn

TOKENS = 8
HIDDEN = 128
FFN = 512
LAYERS = 4


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(HIDDEN)
        self.up = nn.Linear(HIDDEN, FFN)
        self.down = nn.Linear(FFN, HIDDEN)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


class Tower(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return x


class TwoBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Tower()
        self.b = Tower()

    def forward(self, x):
        ya = self.a(x)
        with tng.scope.npu_stream_switch("b"):
            yb = self.b(x)
        tng.scope.npu_wait_tensor(ya, yb)
        return ya + yb


if __name__ == "__main__":
    torch.manual_seed(0)
    model = torch.compile(TwoBranch().npu(), backend=tng.get_npu_backend(), fullgraph=True)
    with torch.no_grad():
        y = model(torch.randn(TOKENS, HIDDEN).npu())
    print("two branches:", tuple(y.shape))
