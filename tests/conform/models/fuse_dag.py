# Pointwise fusion on the CPU target (codegen/fuse.c), its
# harder shapes: rank-3 and rank-4 chains whose external inputs broadcast
# along inner, outer and middle dims ([B, 1, 8], [1, 4, 1], [4, 1]); a
# diamond (x feeds two branches that meet again); members of a chain that
# are not adjacent in the schedule (a row sum and a matmul run between
# them, and must not be moved past a member that reads them); a chain
# whose every intermediate is read twice; float32, float16 and bfloat16.
# The batch dim takes 2 or 3 (zip gears, every gear checked).
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 3]


class Model(torch.nn.Module):
    def forward(self, x, c, m, w):
        # x: [B, 4, 8] float32 in about [-2, 2]; c: [B, 1, 8]; m: [4, 1];
        # w: [8, 8] float32
        outs = []
        for dt in (torch.float32, torch.float16, torch.bfloat16):
            v = x.to(dt)
            cc = c.to(dt)
            mm = m.to(dt)
            a = v * cc - mm                       # [B,4,8] from [B,1,8] and [4,1]
            b = torch.exp(v * 0.5)                # a branch of the diamond
            outs.append(torch.sigmoid(a + b) * (a - b))
            y = torch.nn.functional.silu(v)
            s = v.sum(-1, keepdim=True)           # runs between silu and the mul
            outs.append((y * s + 1.0) / (s.abs() + 1.0))
            t = v * v
            outs.append(t * t + t - torch.tanh(t))
            q = (v + 1.0).unsqueeze(1) * cc.unsqueeze(2)   # [B, 1, 4, 8] * [B, 1, 1, 8]
            outs.append(torch.relu(q) - 0.5 * q)
        h = torch.nn.functional.gelu(x)
        p = torch.matmul(x, w)                    # between gelu and the add
        outs.append(h + p * 0.25)
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.rand(3, 4, 8) * 4 - 2).npu()
c = (torch.rand(3, 1, 8) * 2 - 1).npu()
m = (torch.rand(4, 1) * 2 - 1).npu()
w = (torch.rand(8, 8) - 0.5).npu()
for t in (x, c):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, c, m, w)
print(len(outs))
