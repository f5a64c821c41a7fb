# F.pad's modes: "constant" (value=, negative pads crop, more
# pairs than a vision op pads), "replicate", "reflect" and "circular" on
# 4-d [B, C, H, W] inputs (one and two padded dims, uneven amounts) and on
# 3-d [B, C, W] ones, as slices, flips, expands and cats; float32,
# float16, bfloat16, int64 (constant). The batch dim takes 1 or 3 (zip
# gears, every gear checked). (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair

GEARS = [1, 3]


class Model(torch.nn.Module):
    def forward(self, x, h, b, s, i):
        # x, h, b: [B, 2, 5, 6] float32 / float16 / bfloat16;
        # s: [B, 3, 7] float32; i: [B, 4] int64
        outs = []
        for v in (x, h, b):
            outs.append(F.pad(v, (1, 2, 2, 1), mode="reflect"))
            outs.append(F.pad(v, (3, 0, 0, 4), mode="replicate"))
            outs.append(F.pad(v, (2, 1, 1, 3), mode="circular"))
            outs.append(F.pad(v, (1, 1, 1, 1), "constant", 0.5))
            outs.append(F.pad(v, (-1, 2, 0, -3, 1, 1)))
        outs.append(F.pad(s, (2, 3), mode="reflect"))
        outs.append(F.pad(s, (1, 4), mode="replicate"))
        outs.append(F.pad(s, (5, 2), mode="circular"))
        outs.append(F.pad(i, (1, 2), value=-3))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(3, 2, 5, 6).npu()
h = torch.randn(3, 2, 5, 6).half().npu()
b = torch.randn(3, 2, 5, 6).bfloat16().npu()
s = torch.randn(3, 3, 7).npu()
i = torch.randint(-9, 9, (3, 4)).npu()
for t in (x, h, b, s, i):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, h, b, s, i)
print(len(outs))
