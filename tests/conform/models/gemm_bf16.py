# tolerance: matmul
# The bfloat16 x bfloat16 GEMM (runtime/kernels_gemm_bf16.c: vdpbf16ps's
# sums, B packed per call as bfloat16 pairs): Linears over 100 and 128
# rows (one gear each) with even and odd k, with bias, one fused with
# SiLU and a multiply (the GEMM's tile epilogue; over 2^23 flops: split
# over the threads), and matmul of a [2, R, 40] by [40, 50] and by a
# transposed [50, 40].
# (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn

GEARS = [100, 128]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(256, 192).bfloat16()
        self.fc2 = nn.Linear(33, 70, bias=False).bfloat16()
        self.fc3 = nn.Linear(192, 40).bfloat16()

    def forward(self, x, y, a, bm, g):
        # x [R, 256], y [R, 33], a [2, R, 40], g [192] bfloat16; bm [40, 50]
        h = F.silu(self.fc1(x)) * g
        outs = [h, self.fc2(y), self.fc3(h), torch.matmul(a, bm),
                torch.matmul(a, bm.t().contiguous().t())]
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(128, 256).bfloat16().npu()
y = torch.randn(128, 33).bfloat16().npu()
a = torch.randn(2, 128, 40).bfloat16().npu()
bm = torch.randn(40, 50).bfloat16().npu()
g = torch.randn(192).bfloat16().npu()
torchair.inference.set_dim_gears(x, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(y, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(a, dim_gears={1: GEARS})
with torch.no_grad():
    outs = model(x, y, a, bm, g)
print(len(outs))
