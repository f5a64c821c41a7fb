# program seed 152807, minimised (mismatch)
# Written by tests/diff/gen.py; each class is one program, its seed above it.
import torch
import torch_npu
import torchair
from torch import nn

config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)


# An in-place op whose operand is another view of the storage it writes,
# sharing elements with it (tests/diff program 152807): PyTorch's result
# depends on the order it writes them in (its overlap check gives up on
# strided views), so tngc refuses.
# program seed 152807 (gen.py --program 152807)
class P152807(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", (torch.randint(-32, 33, (6, 6)) / 16))
        self.register_buffer("b1", (torch.randint(-32, 33, (3, 5)) / 16).to(torch.float16))

    def forward(self, x0, x1):
        v1 = x0.permute(1, 2, 0)
        v2 = x0.unbind(1)[2]
        v2.transpose(0, -1).sub_(v2)  # expect: TNG211
        return v1,


torch.manual_seed(152807)
m152807 = torch.compile(P152807().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_152807 = (torch.randint(-32, 33, (2, 4, 2)) / 16).to(torch.bfloat16).npu()
x1_152807 = (torch.randint(-32, 33, (4, 6)) / 16).npu()
with torch.no_grad():
    r152807 = m152807(x0_152807, x1_152807)
print('done')
