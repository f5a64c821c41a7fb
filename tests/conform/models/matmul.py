# tolerance: matmul
# The matmul family on float32, float16 and bfloat16: mm, bmm, matmul / @
# (2-D, 1-D on either side, batched with broadcast batch dims), addmm with
# beta and alpha, F.linear with and without bias, nn.Linear on a 3-D input,
# and a long contraction (k = 2048) whose summation order differs between
# OpenBLAS and PyTorch. (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 24)
        self.fc_nobias = nn.Linear(32, 24, bias=False)

    def forward(self, a, b, bat, vec, big_a, big_b, ha, hb, ba, bb):
        # a [16, 32], b [32, 24], bat [3, 1, 16, 32], vec [32] float32;
        # big_a [8, 2048], big_b [2048, 16]; ha, hb / ba, bb: a, b in
        # float16 / bfloat16
        outs = [
            torch.mm(a, b),                          # [16, 24]
            a @ b,
            torch.matmul(bat, b),                    # [3, 1, 16, 24]
            torch.matmul(bat, bat.transpose(-1, -2)),  # [3, 1, 16, 16]
            torch.matmul(bat, torch.ones(2, 32, 5)),   # broadcast batch: [3, 2, 16, 5]
            torch.matmul(vec, b),                    # [24]
            torch.matmul(a, vec),                    # [16]
            torch.bmm(bat.squeeze(1), bat.squeeze(1).transpose(1, 2)),  # [3, 16, 16]
            torch.addmm(self.fc.bias, a, b),         # bias [24] broadcast
            torch.addmm(a[:, :24], a, b, beta=0.5, alpha=2.0),
            F.linear(a, b.t()),
            F.linear(a, b.t(), self.fc.bias),
            self.fc(bat),                            # [3, 1, 16, 24]
            self.fc_nobias(a),
            torch.mm(big_a, big_b),                  # k = 2048
            torch.matmul(bat.squeeze(1), vec),       # [3, 16, 32] @ [32] -> [3, 16]
            torch.matmul(vec, bat.squeeze(1).transpose(1, 2)),  # [32] @ [3, 32, 16] -> [3, 16]
            torch.matmul(bat, b[:, :4]),             # 4-D @ 2-D
            F.linear(vec, b.t(), self.fc.bias),      # 1-D input
            torch.addmm(a[:, :1], a, b),             # bias [16, 1] broadcast over columns
        ]
        for x, y in ((ha, hb), (ba, bb)):
            outs.append(torch.mm(x, y))
            outs.append(x @ y + 1.0)
            outs.append(torch.matmul(x.unsqueeze(0), y))
            outs.append(torch.bmm(x.unsqueeze(0), y.unsqueeze(0)))
            outs.append(F.linear(x, y.t()))
            outs.append(F.linear(x, y.t(), self.fc.bias.to(x.dtype)))
            outs.append(torch.addmm(self.fc.bias.to(x.dtype), x, y))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
a = torch.randn(16, 32).npu()
b = torch.randn(32, 24).npu()
bat = torch.randn(3, 1, 16, 32).npu()
vec = torch.randn(32).npu()
big_a = torch.randn(8, 2048).npu()
big_b = torch.randn(2048, 16).npu()
ha, hb = a.half(), b.half()
ba, bb = a.bfloat16(), b.bfloat16()
with torch.no_grad():
    outs = model(a, b, bat, vec, big_a, big_b, ha, hb, ba, bb)
print(len(outs))
