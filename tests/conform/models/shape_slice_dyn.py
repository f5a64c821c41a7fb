# The shape family's slices by a dynamic dim: x[:, :bsz] where
# bsz is another input's geared dim (also past x's size: clamped, as
# Python slices are), x[:bsz], x[:, n:], x[:, 1:n:2], x[:, :n - 1] with n a
# geared dim of x itself; Tensor.narrow with a symbolic length and a
# symbolic start; on float32, float16, bfloat16 and int64. Two geared dims,
# zip gears (every gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x, h, b, i, y):
        # x, h, b: [B, 8, 4] float32 / float16 / bfloat16; i: [B, 8] int64;
        # y: [S, 3] float32 (S: 3 or 10)
        bsz = y.shape[0]
        n = x.shape[0]
        outs = []
        for v in (x, h, b, i):
            outs.append(v[:, :bsz])
            outs.append(v[:bsz])
            outs.append(v[:, n:])
            outs.append(v[:, 1:n:2])
            outs.append(v[:, : n - 1] * 2)
            outs.append(v.narrow(1, 0, n))
            outs.append(torch.narrow(v, 1, n, 2))
            outs.append(v[:, :bsz][:, :n])
        outs.append(y[:n])
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(4, 8, 4).npu()
h = torch.randn(4, 8, 4).half().npu()
b = torch.randn(4, 8, 4).bfloat16().npu()
i = torch.randint(-9, 9, (4, 8)).npu()
y = torch.randn(10, 3).npu()
for t in (x, h, b, i):
    torchair.inference.set_dim_gears(t, dim_gears={0: [2, 4]})
torchair.inference.set_dim_gears(y, dim_gears={0: [3, 10]})
with torch.no_grad():
    outs = model(x, h, b, i, y)
print(len(outs))
