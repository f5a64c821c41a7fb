# tolerance: matmul
# The neural net family: F.conv2d and nn.Conv1d with
# padding="same" and an even kernel, which pads one more element after
# than before (PyTorch's rule): the extra zeros are a block cat after the
# input and the conv pads both sides alike (so aclnnConvolution, which
# pads symmetrically, maps it: tests/acl/run.sh). float32 and
# bfloat16; the batch dim takes 2 or 4 (zip gears, every gear checked).
# (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w4 = torch.nn.Parameter(torch.randn(6, 4, 4, 2) * 0.3)
        self.conv = torch.nn.Conv1d(4, 3, 4, padding="same", dilation=3)

    def forward(self, x, s):
        # x: [B, 4, 11, 9]; s: [B, 4, 13]
        outs = [F.conv2d(x, self.w4, padding="same"), self.conv(s)]
        outs.append(F.conv2d(x.bfloat16(), self.w4.bfloat16(), None, 1, "same", 2))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(4, 4, 11, 9).npu()
s = torch.randn(4, 4, 13).npu()
for t in (x, s):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, s)
print(len(outs))
