# The shape family's broadcasts and tilings: Tensor.expand with
# varargs, a tuple, -1 and new leading dims, expand_as, broadcast_to, the
# GQA idiom
# x[:, :, None, :, :].expand(b, h, n_rep, s, d).reshape(b, h * n_rep, s, d)
# with s geared, Tensor.repeat (more repeats than dims, repeats of 1),
# torch.repeat_interleave / Tensor.repeat_interleave with an int (dim given,
# negative, None: flattened), on float32, float16, bfloat16, int32, bool.
# The sequence dim takes 2 or 5 (zip gears, every gear checked).
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 5]


class Model(torch.nn.Module):
    def forward(self, x, h, b, i, k):
        # x, h, b: [3, S, 1] float32 / float16 / bfloat16; i: [S, 2] int32;
        # k: [2, 2, S, 4] float16 (batch, kv heads, seq, head dim)
        s = x.shape[1]
        outs = []
        for v in (x, h, b):
            outs.append(v.expand(3, s, 4))
            outs.append(v.expand((2, 3, -1, 5)))
            outs.append(v.expand(-1, -1, 2))
            outs.append(v[0].expand_as(v.expand(3, s, 6)))
            outs.append(torch.broadcast_to(v, (2, 3, s, 3)))
            outs.append(v.broadcast_to((-1, s, 2)))
            outs.append(v.repeat(1, 2, 3))
            outs.append(v.repeat(2, 1, 1, 2))
            outs.append(v.repeat(1, 1, 1))
            outs.append(torch.repeat_interleave(v, 2, dim=1))
            outs.append(v.repeat_interleave(3, -1))
            outs.append(v.repeat_interleave(2))
        bsz, kvh, slen, hd = k.shape
        n_rep = 3
        outs.append(k[:, :, None, :, :].expand(bsz, kvh, n_rep, slen, hd).reshape(bsz, kvh * n_rep, slen, hd))
        outs.append(torch.repeat_interleave(k, repeats=n_rep, dim=1))
        outs.append(i.expand(2, s, 2))
        outs.append(i.repeat(2, 2))
        outs.append(i.repeat_interleave(2, dim=0))
        outs.append(i.bool().expand(3, -1, -1))
        outs.append(i.bool().repeat(1, 3))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(3, 5, 1).npu()
h = torch.randn(3, 5, 1).half().npu()
b = torch.randn(3, 5, 1).bfloat16().npu()
i = torch.randint(-9, 9, (5, 2), dtype=torch.int32).npu()
k = torch.randn(2, 2, 5, 4).half().npu()
for t in (x, h, b):
    torchair.inference.set_dim_gears(t, dim_gears={1: GEARS})
torchair.inference.set_dim_gears(i, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(k, dim_gears={2: GEARS})
with torch.no_grad():
    outs = model(x, h, b, i, k)
print(len(outs))
