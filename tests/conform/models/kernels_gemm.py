# tolerance: matmul
# The GEMM on float32, float16 and bfloat16: Linears whose weights
# the bundle packs at load (TNGRT_SIG_PACK_LINEAR; rows 2..12 by gear, 3-D
# input, with and without bias, a chain through SiLU), a Linear on a
# float16 input and weight, matmul with A of 64 rows per batch (libtngcrt's
# GEMM packing B per call) and of 8 rows (up to 2^18 multiply-adds), a
# transposed B, and bmm. The batch dim takes 2 or 4.
# (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn

GEARS = [2, 4]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(48, 80)
        self.fc2 = nn.Linear(80, 33, bias=False)
        self.hfc = nn.Linear(48, 37).half()
        self.bfc = nn.Linear(48, 20).bfloat16()

    def forward(self, x, a, bm, q):
        # x [B, 3, 48]; a [B, 64, 40]; bm [40, 50]; q [B, 8, 40] float32
        outs = [self.fc2(F.silu(self.fc1(x))), self.fc1(x[:, 0]),
                self.hfc(x.half()), self.bfc(x.bfloat16()),
                torch.matmul(a, bm), torch.matmul(q, bm), torch.matmul(a, q.transpose(1, 2)),
                torch.bmm(q, a.transpose(1, 2)), torch.matmul(a.half(), bm.half())]
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.rand(4, 3, 48) * 6 - 3).npu()
a = torch.randn(4, 64, 40).npu()
bm = torch.randn(40, 50).npu()
q = torch.randn(4, 8, 40).npu()
for t in (x, a, q):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, a, bm, q)
print(len(outs))
