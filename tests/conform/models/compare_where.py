# The selection ops: torch.where with tensor and Python scalar
# branches (either or both; promoted as torch: a scalar does not raise a
# float16 tensor, a float scalar makes an int tensor float32, a 0-d tensor
# branch), Tensor.where; masked_fill with a Python number and with a 0-d
# tensor value (the mask broadcast), in float32, float16 and bfloat16; the
# causal-mask idiom scores.masked_fill(mask == 0, float("-inf")) before a
# softmax. The batch dim takes 2 or 4 (zip gears, every gear checked).
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 4]
S = 8


class Model(torch.nn.Module):
    def forward(self, x, h, b, i, q, k, mask):
        # x, h, b: [B, 16] float32 / float16 / bfloat16; i: [B, 16] int32;
        # q, k: [B, S, 8] float16; mask [S, S] float16, 1 on and below the
        # diagonal
        outs = []
        for v in (x, h, b):
            c = v > 0
            outs.append(torch.where(c, v, -v * 2))
            outs.append(torch.where(c, v, 0.1))
            outs.append(torch.where(c, 1.5, v))
            outs.append(torch.where(c, 1.0, 0))
            outs.append(torch.where(c, v, x))
            outs.append(torch.where(c, v, torch.tensor(0.3)))
            outs.append(v.where(v < 1, v * 0.5))
            outs.append(torch.where(c[0], v, i))
            outs.append(v.masked_fill(c, 0.25))
            outs.append(v.masked_fill(c[:1], -3))
            outs.append(torch.masked_fill(v, v < -1, float("-inf")))
            outs.append(v.masked_fill(c, torch.tensor(7.0)))
        ci = i > 0
        outs.append(torch.where(ci, i, 2))
        outs.append(torch.where(ci, i, 0.5))
        outs.append(torch.where(ci, True, False))
        outs.append(i.masked_fill(ci, -1))
        outs.append(ci.masked_fill(i < -2, True))
        # a causal mask: scores where row < col are -inf before the softmax
        scores = torch.matmul(q, k.transpose(-1, -2))
        scores = scores.masked_fill(mask == 0, float("-inf"))
        outs.append(torch.softmax(scores.float(), dim=-1))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.rand(4, 16) * 8 - 4).npu()
h = (torch.rand(4, 16) * 8 - 4).half().npu()
b = (torch.rand(4, 16) * 8 - 4).bfloat16().npu()
i = torch.randint(-4, 4, (4, 16), dtype=torch.int32).npu()
q = torch.randn(4, S, 8).half().npu()
k = torch.randn(4, S, 8).half().npu()
mask = torch.tensor([[1.0 if c <= r else 0.0 for c in range(S)] for r in range(S)]).half().npu()
for t in (x, h, b, i, q, k):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, h, b, i, q, k, mask)
print(len(outs))
