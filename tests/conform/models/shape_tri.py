# The shape family's triangles: torch.triu / torch.tril and the
# Tensor methods with diagonal 0, positive, negative, past the matrix, on
# 2-d, 3-d and non-square inputs whose sizes are geared; the causal-mask
# idiom torch.triu(torch.full((n, n), float("-inf")), diagonal=1) with n a
# geared dim, added to scores and softmaxed; float32, float16, bfloat16,
# int32, int64 and bool. The sequence dim takes 3 or 6 (zip gears, every
# gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [3, 6]


class Model(torch.nn.Module):
    def forward(self, x, h, b, i, q):
        # x, h, b: [2, S, 4] float32 / float16 / bfloat16; i: [S, 5] int32;
        # q: [2, S, S] float32 scores
        n = q.shape[1]
        outs = []
        for v in (x, h, b):
            outs.append(torch.triu(v))
            outs.append(torch.tril(v))
            outs.append(v.triu(1))
            outs.append(v.tril(diagonal=-1))
            outs.append(torch.triu(v, -2))
            outs.append(v.tril(7))
            outs.append(v.triu(-9))
        outs.append(torch.triu(i, 2))
        outs.append(i.tril(-1))
        outs.append(i.long().triu())
        outs.append(i.bool().tril())
        mask = torch.triu(torch.full((n, n), float("-inf")), diagonal=1)
        outs.append(mask)
        outs.append(torch.softmax(q + mask, dim=-1))
        ones = torch.ones(n, n, dtype=torch.bool)
        outs.append(torch.tril(ones))
        outs.append(torch.full((n, n), torch.finfo(torch.float16).min, dtype=torch.float16).triu(1))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(2, 6, 4).npu()
h = torch.randn(2, 6, 4).half().npu()
b = torch.randn(2, 6, 4).bfloat16().npu()
i = torch.randint(-9, 9, (6, 5), dtype=torch.int32).npu()
q = torch.randn(2, 6, 6).npu()
for t in (x, h, b, i):
    torchair.inference.set_dim_gears(t, dim_gears={0 if t is i else 1: GEARS})
torchair.inference.set_dim_gears(q, dim_gears={1: GEARS, 2: GEARS})
with torch.no_grad():
    outs = model(x, h, b, i, q)
print(len(outs))
