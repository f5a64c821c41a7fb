# Python-level facts a forward reads, answered as PyTorch answers them:
# `training` of library modules (a Linear, a Sequential, a ModuleDict)
# after the model's .train() and a submodule's .eval(), of the script's
# own modules, and `is` between dtypes (torch's dtypes are one object
# each: torch.float is torch.float32). Each answer picks a branch.
# Static shapes. (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(5, 5)


class Facts(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(5, 5)
        self.seq = nn.Sequential(nn.Linear(5, 5), nn.ReLU())
        self.blocks = nn.ModuleDict({"a": nn.Linear(5, 5)})
        self.inner = Inner()
        self.frozen = nn.Linear(5, 5)

    def forward(self, x, i):
        bits = [
            self.training,
            self.lin.training,
            self.seq.training,
            self.seq[0].training,
            self.blocks.training,
            self.blocks["a"].training,
            self.inner.training,
            self.inner.lin.training,
            self.frozen.training,
            len(self.blocks) == 1,
            x.dtype is torch.float32,
            x.dtype is torch.float,
            x.dtype is not torch.float16,
            i.dtype is torch.long,
            i.dtype is torch.int32,
        ]
        y = x
        for k, b in enumerate(bits):
            if b:
                y = y + (k + 1)
            else:
                y = y * 0.5
        return y


m = Facts()
m.train()
m.inner.eval()
m.frozen.eval()
config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(m.npu(), backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    out = model(torch.randn(4, 5).npu(), torch.arange(4).npu())
