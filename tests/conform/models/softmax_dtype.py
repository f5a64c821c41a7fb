# softmax / log_softmax with dtype= (as examples/llama uses it): the input is
# cast to dtype before the operation, as PyTorch documents; tngc lowers it
# to a cast then the softmax in that dtype, which the ACL target maps too
# (aclnnCast, aclnnSoftmax). Half inputs up to float32 (HF's attention:
# softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)), softmax of
# float32 down to bfloat16 (PyTorch 1.13's CPU has no float16 softmax, and
# its bfloat16 log_softmax rounds its steps: not compared), the dtype as
# F.softmax's keyword and 4th position, torch.softmax's 3rd and
# Tensor.softmax's keyword; the same dtype is no cast. The batch dim takes 2 or 4 (zip gears, every gear checked).
# (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def forward(self, x, h, b):
        # x, h, b: [B, 4, 16] float32 / float16 / bfloat16 in about [-8, 8]
        outs = []
        for v in (h, b):
            outs.append(F.softmax(v, dim=-1, dtype=torch.float32).to(v.dtype))
            outs.append(F.log_softmax(v, dim=1, dtype=torch.float32))
            outs.append(torch.softmax(v, -1, torch.float32))
            outs.append(v.softmax(dim=0, dtype=torch.float32))
        outs.append(F.softmax(x, -1, 3, torch.bfloat16))
        outs.append(x.log_softmax(-1, dtype=torch.float32))
        outs.append(F.softmax(x, dim=-1, dtype=torch.float32))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.rand(4, 4, 16) * 16 - 8).npu()
h = (torch.rand(4, 4, 16) * 16 - 8).half().npu()
b = (torch.rand(4, 4, 16) * 16 - 8).bfloat16().npu()
for t in (x, h, b):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    out = model(x, h, b)
