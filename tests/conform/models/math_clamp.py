# The math family's bounds: torch.clamp / clip / Tensor.clamp
# with a min, a max or both (keywords or positions, min > max, int bounds on
# a float tensor), torch.clamp_min / clamp_max, torch.maximum /
# torch.minimum (broadcasting, NaN propagating) on float32, float16 and
# bfloat16; clamp of int32 by int bounds (stays int32) and by a float bound
# (float32); maximum of int32 and int64 (int64), of bool (bool). The batch
# dim takes 2 or 4 (zip gears, every gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def forward(self, x, h, b, y, i, j):
        # x, h, b: [B, 64] float32 / float16 / bfloat16 in about [-6, 6];
        # y: [64] float32 with NaNs; i: [B, 64] int32; j: [64] int64
        outs = []
        for v in (x, h, b):
            outs.append(torch.clamp(v, -1.5, 2.25))
            outs.append(torch.clamp(v, min=-0.5))
            outs.append(torch.clamp(v, max=0.75))
            outs.append(v.clamp(min=3, max=1))
            outs.append(torch.clip(v, -2, 2))
            outs.append(v.clip(max=-1.0))
            outs.append(torch.clamp_min(v, 0.1))
            outs.append(v.clamp_max(-0.1))
            w = y.to(v.dtype)
            outs.append(torch.maximum(v, w))
            outs.append(torch.minimum(w, v))
            outs.append(v.maximum(v * 0.5))
            outs.append(v.minimum(-v))
        outs.append(torch.clamp(i, -3, 4))
        outs.append(i.clamp(min=0))
        outs.append(torch.clamp(i, max=2.5))
        outs.append(torch.maximum(i, j))
        outs.append(torch.minimum(i, j))
        outs.append(torch.maximum(i.bool(), j.bool()))
        outs.append(torch.clamp(y, 0, 1))
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.rand(4, 64) * 12 - 6).npu()
h = (torch.rand(4, 64) * 12 - 6).half().npu()
b = (torch.rand(4, 64) * 12 - 6).bfloat16().npu()
y = (torch.rand(64) * 12 - 6)
y[3] = float("nan")
y[17] = float("nan")
y = y.npu()
i = torch.randint(-10, 10, (4, 64), dtype=torch.int32).npu()
j = torch.randint(-10, 10, (64,)).npu()
for t in (x, h, b, i):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, h, b, y, i, j)
print(len(outs))
