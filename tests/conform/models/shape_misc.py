# The shape family's reorderings: torch.flip / Tensor.flip (one
# dim, several, negative, varargs, a geared dim), fliplr, flipud;
# torch.roll / Tensor.roll (one dim, several, negative shifts, shifts past
# the size, along a geared dim, flattened with no dims); torch.movedim /
# moveaxis (int and tuple); Tensor.unflatten / torch.unflatten (with -1);
# F.pad in constant mode (one, two and three pairs, value=, negative pads
# cropping); narrow and unbind on geared inputs; float32, float16,
# bfloat16, int32, int64, bool. The batch dim takes 2 or 3 (zip gears,
# every gear checked). (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair

GEARS = [2, 3]


class Model(torch.nn.Module):
    def forward(self, x, h, b, i):
        # x, h, b: [B, 3, 4] float32 / float16 / bfloat16; i: [B, 6] int64
        outs = []
        for v in (x, h, b):
            outs.append(torch.flip(v, [2]))
            outs.append(v.flip(0, -1))
            outs.append(v.flip((0, 1, 2)))
            outs.append(torch.fliplr(v))
            outs.append(torch.flipud(v))
            outs.append(torch.roll(v, 1, 2))
            outs.append(v.roll(-1, 1))
            outs.append(torch.roll(v, (5, -7), (2, 1)))
            outs.append(v.roll(shifts=1, dims=0))
            outs.append(torch.roll(v, 3))
            outs.append(torch.movedim(v, 0, 2))
            outs.append(v.movedim((0, 1), (2, 0)))
            outs.append(torch.moveaxis(v, -1, 0))
            outs.append(v.unflatten(2, (2, 2)))
            outs.append(torch.unflatten(v, -1, (2, -1)))
            outs.append(F.pad(v, (1, 2)))
            outs.append(F.pad(v, (0, 1, 2, 0), value=-1.5))
            outs.append(F.pad(v, (1, 1, 1, 1, 1, 1), mode="constant", value=float("-inf")))
            outs.append(F.pad(v, (-1, 1, 0, -2)))
            outs.append(v.narrow(2, 1, 2))
            outs.append(torch.narrow(v, 0, 1, 1))
            for u in v.unbind(1):
                outs.append(u)
            for u in torch.unbind(v, dim=-1):
                outs.append(u * 2)
        outs.append(torch.flip(i, [0, 1]))
        outs.append(i.roll(2, 1))
        outs.append(torch.roll(i.int(), -4))
        outs.append(i.bool().flip(1))
        outs.append(F.pad(i, (2, 1), value=7))
        outs.append(i.movedim(1, 0))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(3, 3, 4).npu()
h = torch.randn(3, 3, 4).half().npu()
b = torch.randn(3, 3, 4).bfloat16().npu()
i = torch.randint(-9, 9, (3, 6)).npu()
for t in (x, h, b, i):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, h, b, i)
print(len(outs))
