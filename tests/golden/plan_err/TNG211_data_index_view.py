# program seed 1000005009, minimised (mismatch)
# Written by tests/diff/gen.py; each class is one program, its seed above it.
import torch
import torch_npu
import torchair
from torch import nn

config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)


# x[i] with i a 0-d integer tensor is a view in PyTorch (as an int index),
# at a place only the data decides (tests/diff program 1000005009):
# writing it is refused.
# program seed 1000005009 (gen.py --refuse 5009)
class P1000005009(nn.Module):
    def forward(self, x0):
        v1 = x0[None]
        v4 = x0[x0.sum(-1).argmax()]
        v4.mul_(3.0)  # expect: TNG211
        return v1,


torch.manual_seed(1000005009)
m1000005009 = torch.compile(P1000005009().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x0_1000005009 = (torch.randint(-32, 33, (6, 6)) / 16).npu()
with torch.no_grad():
    r1000005009 = m1000005009(x0_1000005009)
print('done')
