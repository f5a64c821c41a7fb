# Every unary operator on float32, float16 and bfloat16: neg, abs, exp, log,
# sqrt, rsqrt, relu, gelu (erf and tanh), silu, sigmoid, tanh and pow by
# scalars (2, 3, 0.5, -1.5), each its own output so a failure names the op.
# The inputs span the ranges where the implementations differ most: large
# negative and positive arguments of exp/tanh/sigmoid/gelu, values near 0.
# (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x, p, h, b):
        # x, h, b: [8, 64] float32 / float16 / bfloat16 in about [-6, 6]
        # p: [8, 64] float32, positive
        outs = []
        for v in (x, h, b):
            outs.append(-v)
            outs.append(torch.abs(v))
            outs.append(torch.exp(v))
            outs.append(torch.log(torch.abs(v) + 0.5))
            outs.append(torch.sqrt(torch.abs(v)))
            outs.append(torch.rsqrt(torch.abs(v) + 0.25))
            outs.append(torch.relu(v))
            outs.append(F.gelu(v))
            outs.append(F.gelu(v, approximate="tanh"))
            outs.append(F.silu(v))
            outs.append(torch.sigmoid(v))
            outs.append(torch.tanh(v))
            outs.append(v.pow(2))
            outs.append(v ** 3)
        outs.append(p ** 0.5)
        outs.append(torch.pow(p, -1.5))
        outs.append(torch.neg(p).abs())
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = (torch.rand(8, 64) * 12 - 6).npu()
p = (torch.rand(8, 64) * 4 + 0.05).npu()
h = (torch.rand(8, 64) * 12 - 6).half().npu()
b = (torch.rand(8, 64) * 12 - 6).bfloat16().npu()
with torch.no_grad():
    outs = model(x, p, h, b)
print(len(outs))
