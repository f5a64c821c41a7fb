# tolerance: matmul
# Products large enough for the bundle's thread pool (runtime/par.c: at
# least 2^23 flops and two 32-column panels, split into tasks of whole
# panels): a float32 Linear with bias, silu and a residual add fused into
# its store (the residual read at each task's columns), one without an
# epilogue whose columns (300) end in a partial panel, a float16 Linear,
# batched matmuls with a transposed operand, and a convolution (its
# im2col product, tngrt_gemm_f32_dense). Rows 66 or 70 by gear (not
# multiples of the 6-row tile). tests/conform/fuse_bits.sh also runs the
# launcher with TNGRT_THREADS=1 and =3 and requires the same bits.
# (tests/conform/run.sh, tests/conform/fuse_bits.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn

GEARS = [66, 70]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Linear(256, 256)
        self.wide = nn.Linear(256, 300, bias=False)
        self.hl = nn.Linear(256, 256).half()
        self.conv = nn.Conv2d(16, 64, 3, padding=1)

    def forward(self, x, img):
        # x [R, 256] float32; img [1, 16, 24, 24] float32
        h = F.silu(self.up(x)) + x
        outs = [h, self.wide(h)]
        outs.append(self.hl(x.half()))
        q = h.view(-1, 2, 128).transpose(0, 1)       # [2, R, 128]
        outs.append(torch.matmul(q, q.transpose(1, 2)) * 0.0625)
        outs.append(torch.relu(self.conv(img)))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.rand(70, 256) * 2 - 1).npu()
img = (torch.rand(1, 16, 24, 24) * 2 - 1).npu()
torchair.inference.set_dim_gears(x, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, img)
print(len(outs))
