# The creation family: torch.arange with an end only, start and
# end, a step (negative, not dividing the span), float bounds, dtype=, and an
# bound that is a geared dim (a graph op of symbolic length: arange(seq) with
# seq = x.shape[1], arange(past, past + seq), arange(seq, 0, -1)); torch.finfo / torch.iinfo attributes as Python numbers;
# torch.full / full_like / zeros_like / ones_like / empty_like and new_empty
# (their shapes only: the values are undefined) / new_zeros / new_ones /
# new_full /
# torch.tensor with geared sizes and dtype=. The sequence dim takes 3 or 5
# (zip gears, every gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [3, 5]


class Model(torch.nn.Module):
    def forward(self, x, h, b):
        # x: [2, S] float32, h: [2, S] float16, b: [2, S] bfloat16
        seq = x.shape[1]
        outs = []
        outs.append(torch.arange(seq))
        outs.append(torch.arange(1, seq + 1, dtype=torch.int32))
        outs.append(torch.arange(0, seq * 2, 3))
        outs.append(torch.arange(7, seq, -1))
        past = h.shape[1] - 2
        outs.append(torch.arange(past, past + seq))
        outs.append(torch.arange(seq, 0, -1))
        outs.append(torch.arange(seq, 2 * seq, 2, dtype=torch.float32))
        outs.append(torch.arange(seq, dtype=torch.float32) * 0.5)
        outs.append(torch.arange(seq, device=x.device).to(x.dtype) + x)
        outs.append(torch.arange(10))
        outs.append(torch.arange(2, 11, 4))
        outs.append(torch.arange(0.0, 1.0, 0.125))
        outs.append(torch.arange(-1.5, 2.0, 0.5, dtype=torch.float16))
        outs.append(torch.arange(0, 4, dtype=torch.bfloat16))
        outs.append(torch.arange(5, 1, -2))
        outs.append(torch.arange(start=1, end=7, step=2))
        outs.append(torch.arange(0, 0))
        for v in (x, h, b):
            info = torch.finfo(v.dtype)
            outs.append(torch.clamp(v, info.min, info.max) + torch.full_like(v, info.max) * 0.5)
            outs.append(v + info.eps)
            outs.append(torch.full_like(v, info.tiny))
            outs.append(torch.full((2, seq), info.min, dtype=v.dtype))
            outs.append(torch.zeros_like(v))
            outs.append(torch.ones_like(v, dtype=torch.float32))
            outs.append(torch.zeros(torch.empty_like(v).shape, dtype=v.dtype))
            outs.append(v.new_zeros((seq, 2)))
            outs.append(v.new_ones(seq))
            outs.append(v.new_full((seq, 3), -2.5))
            outs.append(torch.ones(v.new_empty((2, seq)).shape))
        outs.append(torch.full((seq,), torch.iinfo(torch.int32).max, dtype=torch.int32))
        outs.append(torch.full((seq, 2), torch.iinfo(torch.int64).min))
        outs.append(torch.full((2,), torch.iinfo(torch.int8).min, dtype=torch.int8))
        outs.append(torch.tensor([1, 1, 1], dtype=torch.int32))
        outs.append(torch.tensor([[2.5, 2.5]]) * x[:, :1])
        outs.append(torch.full((seq,), torch.finfo().eps))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(2, 5).npu()
h = torch.randn(2, 5).half().npu()
b = torch.randn(2, 5).bfloat16().npu()
for t in (x, h, b):
    torchair.inference.set_dim_gears(t, dim_gears={1: GEARS})
with torch.no_grad():
    outs = model(x, h, b)
print(len(outs))
