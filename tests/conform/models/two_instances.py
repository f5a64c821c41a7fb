# tolerance: matmul
# Two (here three) instances of one class compiled in one script (issue
# 17): tngc names the entries Block.forward, Block.forward#2 and
# Block.forward#3 in the order of their first calls (bundles
# two_instances_Block_forward, _2, _3), and tests/ref/harness.py records
# each under the same name. The instances differ in config (width,
# activation, a bias) so that each bundle must match its own instance:
# float32 (two configs) and float16 (.half()); the batch dim takes 2 or 4
# (zip gears, every gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn

GEARS = [2, 4]


class Block(nn.Module):
    def __init__(self, dim, hidden, act="relu", bias=True):
        super().__init__()
        self.up = nn.Linear(dim, hidden, bias=bias)
        self.down = nn.Linear(hidden, dim, bias=bias)
        self.act = {"relu": nn.ReLU(), "gelu": nn.GELU(), "silu": nn.SiLU()}[act]
        self.scale = 0.5 if act == "gelu" else 1.0

    def forward(self, x):
        return x + self.scale * self.down(self.act(self.up(x)))


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
small = torch.compile(Block(8, 16).eval().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
wide = torch.compile(Block(16, 48, "gelu", bias=False).eval().npu(), backend=npu_backend,
                     dynamic=True, fullgraph=True)
half = torch.compile(Block(8, 24, "silu").half().eval().npu(), backend=npu_backend,
                     dynamic=True, fullgraph=True)
x8 = torch.randn(4, 8).npu()
x16 = torch.randn(4, 16).npu()
xh = torch.randn(4, 8).half().npu()
for t in (x8, x16, xh):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    a = small(x8)
    b = wide(x16)
    c = half(xh)
print(a.shape, b.shape, c.shape)
