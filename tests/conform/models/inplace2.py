# The in-place tensor methods: add_ sub_ mul_ div_ clamp_
# masked_fill_ zero_ fill_ (one mechanism: X_ is X written into self) on
# op results, on inputs (written back to the caller's tensors: float32,
# float16 with a float32 operand cast down, int32 with int operands) and on
# a registered buffer read back; later reads see the new values. The
# batch dim takes 2 or 4 (zip gears, every gear checked). The inputs'
# final contents are compared with PyTorch's. (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn

GEARS = [2, 4]
H = 16


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(H))

    def forward(self, x, h, i, z):
        # x: [B, H] float32, h: [B, H] float16, i: [B, H] int32 (inputs
        # updated in place); z: [B, H] float32
        t = x * 2.0
        t.add_(1.0)
        t.mul_(z)
        t.sub_(x, alpha=0.5)
        t.div_(4)
        t.clamp_(-1.0, 1.0)
        t.masked_fill_(z < 0, 0.0)
        x.add_(z)                       # an input, written back
        x.clamp_(min=-0.5)
        h.mul_(z)                       # float32 result cast to float16
        h.masked_fill_(h > 1, 1.0)
        i.add_(3)
        i.mul_(i > 0)                   # int32 times bool stays int32
        z.zero_()
        z.fill_(0.25)
        u = h.float().sum(dim=0)
        self.count.add_(u)              # a buffer, read back below
        self.count.clamp_(max=2.0)
        return t, x * 1.0, h.float(), i * 1, z + 0.0, self.count * 1.0


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(4, H).npu()
h = torch.randn(4, H).half().npu()
i = torch.randint(-5, 5, (4, H), dtype=torch.int32).npu()
z = torch.randn(4, H).npu()
for t in (x, h, i, z):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, h, i, z)
print(len(outs))
