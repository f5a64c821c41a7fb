# x.is_contiguous() answered as PyTorch answers it, from the strides tngc
# follows through views: the input itself, reshape of it, a permutation, a
# column slice, a row slice, a size-1 dim made first, a narrowed last dim,
# and a permuted view taken back to the original order. Each answer picks
# a branch, so a wrong one changes the result. Then x.to(memory_format=
# torch.channels_last), and x.contiguous(memory_format=...): copies, so
# writes into them leave x as it was. What tngc cannot tell
# (channels-last tensors, an op's result of a permuted operand, a
# transposed input) is refused: tests/golden/plan_err/TNG203_layout.py.
# Static shapes. (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn


class Layouts(nn.Module):
    def forward(self, x):
        bits = [
            x.is_contiguous(),
            x.is_contiguous(memory_format=torch.contiguous_format),
            x.reshape(-1).is_contiguous(),
            x.permute(0, 2, 1, 3).is_contiguous(),
            x[:, 1:].is_contiguous(),
            x[1:].is_contiguous(),
            x[:1].transpose(0, 1).is_contiguous(),
            x.narrow(3, 0, 1).is_contiguous(),
            x.permute(3, 2, 0, 1).permute(2, 3, 1, 0).is_contiguous(),
            x[0, 0].t().is_contiguous(),
        ]
        y = x
        for i, b in enumerate(bits):
            if b:
                y = y + (i + 1)
            else:
                y = y * 0.5
        c = x.to(memory_format=torch.channels_last)
        c.add_(1.0)
        d = x.contiguous(memory_format=torch.channels_last)
        d.mul_(2.0)
        e = x.float(memory_format=torch.channels_last)
        e[0] = 0.0
        return y, x, c, d, e


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Layouts().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    out = model(torch.randn(3, 4, 5, 2).npu())
